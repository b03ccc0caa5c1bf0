//! [`Walker`]: the cursor that steps over encoded values without building them.

use super::{MAX_STRING_LEN, Reader};

/// A cursor that advances over encoded values, checking them as a decode would, without building
/// them or saying what is wrong.
///
/// Decoding an array walks its elements once to validate them; iterating a decoded array walks
/// over the nested arrays inside each element to find where they end. The walk only needs to
/// know *whether* the bytes are good: a step that fails returns `None` and leaves the cursor
/// where it failed, and the caller reads the same bytes with a [`Reader`] when it needs the
/// error. That keeps the cursor a slice and a flag, which the compiler holds in registers.
///
/// A walk may refuse what a read accepts (see [`Walker::tagged_section`]), never the reverse.
#[derive(Debug, Clone, Copy)]
pub struct Walker<'a> {
    rest: &'a [u8],
    /// Bytes an earlier decode validated: strings are not checked as UTF-8 again and tagged
    /// sections are stepped over.
    validated: bool,
}

impl<'a> Walker<'a> {
    /// A walker over the bytes `r` has not read yet, validated when `r` is.
    #[must_use]
    pub(crate) const fn at(r: &Reader<'a>) -> Self {
        Self {
            rest: r.rest(),
            validated: r.is_validated(),
        }
    }

    /// The bytes not yet walked over.
    #[must_use]
    pub const fn rest(&self) -> &'a [u8] {
        self.rest
    }

    /// A reader over the bytes not yet walked over, for a step the walker leaves to a read.
    fn reader(&self) -> Reader<'a> {
        if self.validated {
            Reader::validated(self.rest, 0)
        } else {
            Reader::new(self.rest)
        }
    }

    /// Steps over `n` bytes.
    #[inline(always)]
    pub fn skip(&mut self, n: usize) -> Option<()> {
        self.rest = self.rest.get(n..)?;
        Some(())
    }

    /// Reads a length prefix as [`Reader`] reads a nullable one: `Some(None)` for null.
    #[inline(always)]
    fn nullable_len(&mut self, flexible: bool, short: bool) -> Option<Option<usize>> {
        match super::reader::fast_len(&mut self.rest, flexible, short) {
            Some(n) => Some(Some(n)),
            None => self.nullable_len_slow(flexible, short),
        }
    }

    /// Every other length encoding, read by a [`Reader`].
    #[inline(never)]
    fn nullable_len_slow(&mut self, flexible: bool, short: bool) -> Option<Option<usize>> {
        let mut r = self.reader();
        let n = r.nullable_len(flexible, short, "").ok()?;
        self.rest = r.rest();
        Some(n)
    }

    /// Steps over a string (`nullable`: a null is accepted), as [`Reader`] reads it: at most
    /// [`MAX_STRING_LEN`] bytes of UTF-8.
    #[inline(always)]
    pub fn string(&mut self, flexible: bool, nullable: bool) -> Option<()> {
        let Some(n) = self.nullable_len(flexible, true)? else {
            return nullable.then_some(());
        };
        if n > MAX_STRING_LEN {
            return None;
        }
        let (s, rest) = self.rest.split_at_checked(n)?;
        if !self.validated {
            super::reader::utf8(s)?;
        }
        self.rest = rest;
        Some(())
    }

    /// Steps over a bytes or records field (`nullable`: a null is accepted).
    #[inline(always)]
    pub fn bytes(&mut self, flexible: bool, nullable: bool) -> Option<()> {
        match self.nullable_len(flexible, false)? {
            Some(n) => self.skip(n),
            None => nullable.then_some(()),
        }
    }

    /// Reads an array's element count (`nullable`: `Some(None)` for a null array), refusing a
    /// count larger than the bytes left, as [`Reader`] does.
    #[inline(always)]
    pub fn array_len(&mut self, flexible: bool, nullable: bool) -> Option<Option<usize>> {
        match self.nullable_len(flexible, false)? {
            Some(n) if n <= self.rest.len() => Some(Some(n)),
            Some(_) => None,
            None => nullable.then_some(None),
        }
    }

    /// Reads the int8 presence marker of a nullable struct: true when present.
    #[inline(always)]
    pub fn struct_marker(&mut self) -> Option<bool> {
        let (&m, rest) = self.rest.split_first()?;
        self.rest = rest;
        Some(m < 0x80)
    }

    /// Steps over a tagged-field section. An empty one (the common case) is one byte; a
    /// non-empty one is stepped over entry by entry in validated bytes, and refused in bytes not
    /// yet validated, whose entries only a struct's read knows how to check.
    #[inline(always)]
    pub fn tagged_section(&mut self) -> Option<()> {
        match self.rest.split_first() {
            Some((0, rest)) => {
                self.rest = rest;
                Some(())
            }
            _ if self.validated => self.tagged_entries(),
            _ => None,
        }
    }

    /// Steps over a validated non-empty tagged section.
    #[inline(never)]
    fn tagged_entries(&mut self) -> Option<()> {
        let mut r = self.reader();
        r.skip_tagged_section("").ok()?;
        self.rest = r.rest();
        Some(())
    }

    /// Steps over one element with `read`, for the elements a walk is not generated for.
    #[inline]
    pub(crate) fn read_with<T, E>(
        &mut self,
        read: impl FnOnce(&mut Reader<'a>) -> Result<T, E>,
    ) -> Option<()> {
        let mut r = self.reader();
        read(&mut r).ok()?;
        self.rest = r.rest();
        Some(())
    }
}
