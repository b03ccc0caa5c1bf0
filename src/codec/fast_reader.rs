//! [`FastReader`]: the cursor that steps over encoded values, and reads them where the input is
//! known to be good, without recording errors.

#[cfg(feature = "perf")]
use super::Failed;
use super::{MAX_STRING_LEN, Reader, Uuid};

/// A cursor that advances over encoded values, checking them as a decode would, without saying
/// what is wrong.
///
/// Decoding an array walks its elements once to validate them; iterating a decoded array reads
/// each element through a fast reader and walks over the nested arrays inside it to find where they
/// end. A walk only needs to know *whether* the bytes are good: a step that fails returns `None`,
/// leaving the cursor anywhere in what it stepped over, and the caller reads the same bytes with
/// a [`Reader`] when it needs the error. That keeps the cursor a slice, an offset and a flag,
/// which the compiler holds in registers.
///
/// The value reads ([`FastReader::string`], [`FastReader::i32`], …) check what the [`Reader`]'s
/// namesakes check. A walk or a read may refuse what a [`Reader`] accepts (see
/// [`FastReader::tagged_section`]), never the reverse.
#[derive(Debug, Clone, Copy)]
pub struct FastReader<'a> {
    rest: &'a [u8],
    /// Absolute offset of the end of the input, as in [`Reader`].
    end: usize,
    /// Bytes an earlier decode validated: tagged sections are stepped over and strings are not
    /// checked again when they are only stepped over.
    validated: bool,
}

impl<'a> FastReader<'a> {
    /// A fast reader over the bytes `r` has not read yet, validated when `r` is.
    #[must_use]
    pub(crate) const fn at(r: &Reader<'a>) -> Self {
        Self {
            rest: r.rest(),
            end: r.offset().wrapping_add(r.remaining()),
            validated: r.is_validated(),
        }
    }

    /// A fast reader over `bytes` that an earlier decode validated, whose first byte is at absolute
    /// offset `offset`.
    #[must_use]
    pub(crate) const fn validated(bytes: &'a [u8], offset: usize) -> Self {
        Self {
            rest: bytes,
            end: offset.wrapping_add(bytes.len()),
            validated: true,
        }
    }

    /// The bytes not yet walked over.
    #[must_use]
    pub const fn rest(&self) -> &'a [u8] {
        self.rest
    }

    /// Moves to `rest`, the bytes after a step taken on a copy of this fast reader.
    #[inline(always)]
    pub(crate) const fn set_rest(&mut self, rest: &'a [u8]) {
        self.rest = rest;
    }

    /// The absolute offset of the next byte.
    #[must_use]
    pub const fn offset(&self) -> usize {
        self.end.wrapping_sub(self.rest.len())
    }

    /// A reader over the bytes not yet walked over, with the same offsets, for a step the
    /// fast reader leaves to a read.
    pub(crate) const fn reader(&self) -> Reader<'a> {
        if self.validated {
            Reader::validated(self.rest, self.offset())
        } else {
            Reader::with_offset(self.rest, self.offset())
        }
    }

    /// Steps over `n` bytes.
    #[inline(always)]
    pub fn skip(&mut self, n: usize) -> Option<()> {
        self.rest = self.rest.get(n..)?;
        Some(())
    }

    /// Takes the next `n` bytes.
    #[inline(always)]
    pub fn take(&mut self, n: usize) -> Option<&'a [u8]> {
        let (head, rest) = self.rest.split_at_checked(n)?;
        self.rest = rest;
        Some(head)
    }

    /// Takes the next `N` bytes as an array: one bounds check for a run of fixed-width fields.
    #[inline(always)]
    pub fn array<const N: usize>(&mut self) -> Option<&'a [u8; N]> {
        let (head, rest) = self.rest.split_first_chunk::<N>()?;
        self.rest = rest;
        Some(head)
    }

    /// Reads one byte.
    #[inline(always)]
    pub fn u8(&mut self) -> Option<u8> {
        let (&b, rest) = self.rest.split_first()?;
        self.rest = rest;
        Some(b)
    }

    /// Reads a `bool` as [`Reader::bool`] does.
    #[inline(always)]
    pub fn bool(&mut self) -> Option<bool> {
        self.u8().map(|b| b != 0)
    }

    /// Reads an `int8`.
    #[inline(always)]
    pub fn i8(&mut self) -> Option<i8> {
        self.u8().map(u8::cast_signed)
    }

    /// Reads a big-endian `int16`.
    #[inline(always)]
    pub fn i16(&mut self) -> Option<i16> {
        self.array().map(|b| i16::from_be_bytes(*b))
    }

    /// Reads a big-endian `uint16`.
    #[inline(always)]
    pub fn u16(&mut self) -> Option<u16> {
        self.array().map(|b| u16::from_be_bytes(*b))
    }

    /// Reads a big-endian `int32`.
    #[inline(always)]
    pub fn i32(&mut self) -> Option<i32> {
        self.array().map(|b| i32::from_be_bytes(*b))
    }

    /// Reads a big-endian `uint32`.
    #[inline(always)]
    pub fn u32(&mut self) -> Option<u32> {
        self.array().map(|b| u32::from_be_bytes(*b))
    }

    /// Reads a big-endian `int64`.
    #[inline(always)]
    pub fn i64(&mut self) -> Option<i64> {
        self.array().map(|b| i64::from_be_bytes(*b))
    }

    /// Reads a big-endian `float64`.
    #[inline(always)]
    pub fn f64(&mut self) -> Option<f64> {
        self.array().map(|b| f64::from_be_bytes(*b))
    }

    /// Reads a UUID.
    #[inline(always)]
    pub fn uuid(&mut self) -> Option<Uuid> {
        self.array().map(|b| Uuid(*b))
    }

    /// Reads a length prefix as [`Reader`] reads a nullable one: `Some(None)` for null.
    #[inline(always)]
    fn nullable_len(&mut self, flexible: bool, short: bool) -> Option<Option<usize>> {
        if let Some(n) = super::reader::fast_len(&mut self.rest, flexible, short) {
            return Some(Some(n));
        }
        let (n, rest) = Self::nullable_len_slow(self.rest, flexible, short)?;
        self.rest = rest;
        Some(n)
    }

    /// Every other length encoding, read by a [`Reader`]: the length and the bytes after it.
    /// It takes and returns the slice rather than the fast reader, which so stays in registers.
    #[inline(never)]
    fn nullable_len_slow(
        rest: &'a [u8],
        flexible: bool,
        short: bool,
    ) -> Option<(Option<usize>, &'a [u8])> {
        let mut r = Reader::new(rest);
        let n = r.nullable_len(flexible, short, "").ok()?;
        Some((n, r.rest()))
    }

    /// Reads a length that must not be null.
    #[inline(always)]
    fn len(&mut self, flexible: bool, short: bool) -> Option<usize> {
        self.nullable_len(flexible, short)?
    }

    /// The body of a string of `n` bytes: at most [`MAX_STRING_LEN`] bytes of UTF-8.
    #[inline(always)]
    fn str_body(&mut self, n: usize) -> Option<&'a str> {
        if n > MAX_STRING_LEN {
            return None;
        }
        super::reader::utf8(self.take(n)?)
    }

    /// Reads a string that must not be null, as [`Reader::string`] does.
    #[inline(always)]
    pub fn string(&mut self, flexible: bool) -> Option<&'a str> {
        let n = self.len(flexible, true)?;
        self.str_body(n)
    }

    /// Reads a nullable string, as [`Reader::nullable_string`] does.
    #[inline(always)]
    pub fn nullable_string(&mut self, flexible: bool) -> Option<Option<&'a str>> {
        match self.nullable_len(flexible, true)? {
            Some(n) => self.str_body(n).map(Some),
            None => Some(None),
        }
    }

    /// Reads bytes that must not be null, as [`Reader::bytes`] does.
    #[inline(always)]
    pub fn bytes(&mut self, flexible: bool) -> Option<&'a [u8]> {
        let n = self.len(flexible, false)?;
        self.take(n)
    }

    /// Reads nullable bytes, as [`Reader::nullable_bytes`] does.
    #[inline(always)]
    pub fn nullable_bytes(&mut self, flexible: bool) -> Option<Option<&'a [u8]>> {
        match self.nullable_len(flexible, false)? {
            Some(n) => self.take(n).map(Some),
            None => Some(None),
        }
    }

    /// Reads a `records` field that must not be null, keeping its absolute offset.
    #[inline(always)]
    pub fn records(&mut self, flexible: bool) -> Option<crate::wire::Records<'a>> {
        let n = self.len(flexible, false)?;
        self.records_body(n)
    }

    /// Reads a nullable `records` field, keeping its absolute offset.
    #[inline(always)]
    pub fn nullable_records(&mut self, flexible: bool) -> Option<Option<crate::wire::Records<'a>>> {
        match self.nullable_len(flexible, false)? {
            Some(n) => self.records_body(n).map(Some),
            None => Some(None),
        }
    }

    /// The `n` bytes of a records field, with their absolute offset.
    #[inline(always)]
    fn records_body(&mut self, n: usize) -> Option<crate::wire::Records<'a>> {
        let at = self.offset();
        self.take(n)
            .map(|b| crate::wire::Records::with_offset(b, at))
    }

    /// Steps over a string (`nullable`: a null is accepted), as [`Reader`] reads it: at most
    /// [`MAX_STRING_LEN`] bytes of UTF-8 (checked only in bytes not yet validated).
    #[inline(always)]
    pub fn skip_string(&mut self, flexible: bool, nullable: bool) -> Option<()> {
        let Some(n) = self.nullable_len(flexible, true)? else {
            return nullable.then_some(());
        };
        if n > MAX_STRING_LEN {
            return None;
        }
        let s = self.take(n)?;
        (self.validated || super::reader::is_utf8(s)).then_some(())
    }

    /// Steps over a bytes or records field (`nullable`: a null is accepted).
    #[inline(always)]
    pub fn skip_bytes(&mut self, flexible: bool, nullable: bool) -> Option<()> {
        match self.nullable_len(flexible, false)? {
            Some(n) => self.skip(n),
            None => nullable.then_some(()),
        }
    }

    /// Reads an array's element count (`nullable`: `Some(None)` for a null array), refusing a
    /// count larger than the bytes left, as [`Reader`] does.
    #[inline(always)]
    pub fn array_len(&mut self, flexible: bool, nullable: bool) -> Option<Option<usize>> {
        match self.raw_array_len(flexible, nullable)? {
            Some(n) if n > self.rest.len() => None,
            n => Some(n),
        }
    }

    /// Reads an array's element count without comparing it with the bytes left: for elements
    /// of a fixed size, whose total the caller checks instead.
    #[inline(always)]
    pub(crate) fn raw_array_len(
        &mut self,
        flexible: bool,
        nullable: bool,
    ) -> Option<Option<usize>> {
        match self.nullable_len(flexible, false)? {
            Some(n) => Some(Some(n)),
            None => nullable.then_some(None),
        }
    }

    /// Reads the int8 presence marker of a nullable struct: true when present.
    #[inline(always)]
    pub fn struct_marker(&mut self) -> Option<bool> {
        self.u8().map(|m| m < 0x80)
    }

    /// Steps over a tagged-field section. An empty one (the common case) is one byte; a
    /// non-empty one is stepped over entry by entry in validated bytes, and refused in bytes not
    /// yet validated, whose entries only a struct's read knows how to check.
    #[inline(always)]
    pub fn tagged_section(&mut self) -> Option<()> {
        if self.empty_tagged_section().is_some() {
            return Some(());
        }
        if !self.validated {
            return None;
        }
        self.rest = Self::tagged_entries(self.rest)?;
        Some(())
    }

    /// Reads a non-empty tagged section into `value` with `read` (a struct's reader of its
    /// section) through a [`Reader`] from here, and returns the value: what a message's read
    /// through a fast reader does with a section an element's leaves to its reader.
    #[cfg(feature = "perf")]
    #[inline(always)]
    pub(crate) fn read_section_into<T>(
        &mut self,
        value: T,
        read: impl FnOnce(&mut T, &mut Reader<'a>) -> Result<(), Failed>,
    ) -> Option<T> {
        let (value, rest) = read_section(self.reader(), value, read)?;
        self.rest = rest;
        Some(value)
    }

    /// Consumes an empty tagged-field section, and refuses any other: a read through a fast reader
    /// leaves the fields of a non-empty section to a [`Reader`].
    #[inline(always)]
    pub fn empty_tagged_section(&mut self) -> Option<()> {
        match self.rest.split_first() {
            Some((0, rest)) => {
                self.rest = rest;
                Some(())
            }
            _ => None,
        }
    }

    /// Steps over a validated non-empty tagged section: the bytes after it.
    #[inline(never)]
    fn tagged_entries(rest: &'a [u8]) -> Option<&'a [u8]> {
        let mut r = Reader::new(rest);
        r.skip_tagged_section("").ok()?;
        Some(r.rest())
    }

    /// Reads one value with `read` through a [`Reader`] over the same bytes, for the values a
    /// fast reader has no read of its own for.
    #[inline]
    pub(crate) fn read_with<T, E>(
        &mut self,
        read: impl FnOnce(&mut Reader<'a>) -> Result<T, E>,
    ) -> Option<T> {
        let mut r = self.reader();
        let v = read(&mut r).ok()?;
        self.rest = r.rest();
        Some(v)
    }
}

/// The read of [`FastReader::read_section_into`], out of line, which keeps the decoder it is called
/// from as small as it was without it.
#[cfg(feature = "perf")]
#[cold]
#[inline(never)]
fn read_section<'a, T>(
    mut r: Reader<'a>,
    mut value: T,
    read: impl FnOnce(&mut T, &mut Reader<'a>) -> Result<(), Failed>,
) -> Option<(T, &'a [u8])> {
    read(&mut value, &mut r).ok()?;
    Some((value, r.rest()))
}

#[cfg(test)]
mod tests {
    use core::fmt::Debug;
    use std::vec;

    use crate::api::{Request, Response};
    use crate::codec::{Encode, MessageKind, Reader};
    use crate::error::DecodeError;
    use crate::schema::MESSAGES;
    use crate::wire::ApiKey;

    /// Random instances of each request and response at each version.
    #[cfg(feature = "all-apis")]
    const SEEDS: u64 = 24;

    /// Decodes `bytes` first as new input, then as bytes an earlier decode validated (the path
    /// iteration takes, where nested arrays of structs are walked over rather than validated
    /// again): the second must read as many bytes, the same value, and re-encode to them.
    fn same_through_both_paths<'a, T: Encode + PartialEq + Debug>(
        bytes: &'a [u8],
        version: i16,
        decode: impl Fn(&mut Reader<'a>) -> Result<T, DecodeError>,
    ) -> Result<(), std::string::String> {
        let mut r = Reader::new(bytes);
        let first = decode(&mut r).map_err(|e| std::format!("first decode: {e}"))?;
        let mut v = Reader::validated(bytes, 0);
        let second = decode(&mut v).map_err(|e| std::format!("validated decode: {e}"))?;
        if v.offset() != r.offset() || second != first {
            return Err(std::format!(
                "read {} of {} bytes:\n{first:?}\n{second:?}",
                v.offset(),
                r.offset()
            ));
        }
        let mut out = vec![0u8; second.encoded_len(version).unwrap_or(0)];
        match second.encode(version, &mut out) {
            Ok(n) if n == r.offset() && bytes.get(..n) == Some(&out[..]) => Ok(()),
            other => Err(std::format!("re-encodes differently: {other:?}")),
        }
    }

    #[cfg(feature = "all-apis")]
    #[test]
    fn validated_bytes_read_as_a_first_decode_does() {
        let mut checked = 0usize;
        for schema in MESSAGES {
            let key = ApiKey(schema.api_key);
            let range = schema.valid_versions;
            for version in (range.min..=range.max).filter(|v| range.contains(*v)) {
                for seed in 0..SEEDS {
                    // A schema and version of the tables.
                    let bytes =
                        kwire_testkit::random_instance_named(schema.name, version, seed).unwrap();
                    let outcome = match schema.kind {
                        MessageKind::Request => same_through_both_paths(&bytes, version, |r| {
                            Request::decode(r, key, version)
                        }),
                        MessageKind::Response => same_through_both_paths(&bytes, version, |r| {
                            Response::decode(r, key, version)
                        }),
                        MessageKind::Header | MessageKind::Data => continue,
                    };
                    assert_eq!(outcome, Ok(()), "{} v{version} seed {seed}", schema.name);
                    checked += 1;
                }
            }
        }
        assert!(checked > 10_000, "only {checked} instances checked");
    }
}
