//! [`Reader`]: the only code that reads input bytes.

use crate::error::{DecodeError, DecodeErrorKind};

use super::{MAX_STRING_LEN, Uuid};

/// A cursor over borrowed input that knows its absolute offset.
///
/// Every read either returns a value borrowed from (or copied out of) the input and advances, or
/// returns a [`DecodeError`] naming the absolute offset of the item that could not be read and
/// leaves the reader where it was for fixed-width reads. Nothing is allocated and nothing panics.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Reader<'a> {
    rest: &'a [u8],
    /// Absolute offset of the end of the input: the current offset is `end - rest.len()`, so
    /// advancing only moves `rest`.
    end: usize,
    /// Set on readers over bytes a decode has already validated (the elements of a decoded
    /// array): nested arrays of structs are then skipped over rather than decoded again.
    validated: bool,
}

/// A length prefix as read from the wire, before nullability is applied.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum RawLen {
    /// A non-negative length.
    Len(usize),
    /// A negative length: the value, after the compact "minus one".
    Null(i32),
}

impl<'a> Reader<'a> {
    /// A reader over `bytes`, whose first byte is at absolute offset 0.
    #[must_use]
    pub const fn new(bytes: &'a [u8]) -> Self {
        Self {
            rest: bytes,
            end: bytes.len(),
            validated: false,
        }
    }

    /// A reader over `bytes`, whose first byte is at absolute offset `offset` (for input that is a
    /// slice of a larger buffer, so that errors report positions in the larger buffer).
    #[must_use]
    pub const fn with_offset(bytes: &'a [u8], offset: usize) -> Self {
        Self {
            rest: bytes,
            end: offset.wrapping_add(bytes.len()),
            validated: false,
        }
    }

    /// A reader over bytes that an earlier decode at the same version has already read without
    /// error (such as the elements of a decoded array). Decoding through it gives the same values,
    /// but nested arrays of structs are skipped over instead of being validated again.
    ///
    /// Over bytes that were never validated it stays memory-safe and panic-free, but a nested
    /// array's errors are then only found (and end its iteration early) when it is iterated.
    /// Hidden: it exists for the crate's own iterators and for tests that compare both paths.
    #[doc(hidden)]
    #[must_use]
    pub const fn validated(bytes: &'a [u8], offset: usize) -> Self {
        Self {
            rest: bytes,
            end: offset.wrapping_add(bytes.len()),
            validated: true,
        }
    }

    /// True for a reader made by [`Reader::validated`] (or taken from one).
    #[must_use]
    pub(crate) const fn is_validated(&self) -> bool {
        self.validated
    }

    /// The absolute offset of the next byte.
    #[must_use]
    pub const fn offset(&self) -> usize {
        self.end.wrapping_sub(self.rest.len())
    }

    /// The bytes not yet read.
    #[must_use]
    pub const fn rest(&self) -> &'a [u8] {
        self.rest
    }

    /// How many bytes are left.
    #[must_use]
    pub const fn remaining(&self) -> usize {
        self.rest.len()
    }

    /// True when every byte has been read.
    #[must_use]
    pub const fn is_empty(&self) -> bool {
        self.rest.is_empty()
    }

    #[cold]
    #[inline(never)]
    fn err(&self, kind: DecodeErrorKind, path: &'static str) -> DecodeError {
        DecodeError::new(self.offset(), kind, path)
    }

    #[cold]
    #[inline(never)]
    fn truncated(&self, n: usize, path: &'static str) -> DecodeError {
        self.err(
            DecodeErrorKind::Truncated {
                needed: n.saturating_sub(self.rest.len()),
            },
            path,
        )
    }

    /// Fails with [`DecodeErrorKind::TrailingBytes`] unless every byte has been read.
    ///
    /// # Errors
    ///
    /// `TrailingBytes` at the first unread byte.
    pub fn finish(&self, path: &'static str) -> Result<(), DecodeError> {
        if self.rest.is_empty() {
            Ok(())
        } else {
            Err(self.err(
                DecodeErrorKind::TrailingBytes {
                    count: self.rest.len(),
                },
                path,
            ))
        }
    }

    /// Takes the next `n` bytes.
    ///
    /// # Errors
    ///
    /// `Truncated` at the current offset when fewer than `n` bytes are left.
    #[inline]
    pub fn take(&mut self, n: usize, path: &'static str) -> Result<&'a [u8], DecodeError> {
        let Some((head, tail)) = self.rest.split_at_checked(n) else {
            return Err(self.truncated(n, path));
        };
        self.rest = tail;
        Ok(head)
    }

    /// Takes the next `n` bytes as a reader of their own that keeps absolute offsets.
    ///
    /// # Errors
    ///
    /// `Truncated` when fewer than `n` bytes are left.
    #[inline]
    pub fn sub(&mut self, n: usize, path: &'static str) -> Result<Reader<'a>, DecodeError> {
        let offset = self.offset();
        let bytes = self.take(n, path)?;
        Ok(Reader {
            rest: bytes,
            end: offset.wrapping_add(n),
            validated: self.validated,
        })
    }

    /// Takes the next `N` bytes as an array reference.
    ///
    /// # Errors
    ///
    /// `Truncated` when fewer than `N` bytes are left.
    #[inline]
    pub fn array<const N: usize>(
        &mut self,
        path: &'static str,
    ) -> Result<&'a [u8; N], DecodeError> {
        let Some((head, tail)) = self.rest.split_first_chunk::<N>() else {
            return Err(self.truncated(N, path));
        };
        self.rest = tail;
        Ok(head)
    }

    /// Reads a `bool`: any non-zero byte is `true`, as Kafka's Java reader has it.
    ///
    /// # Errors
    ///
    /// `Truncated` at the end of input.
    #[inline]
    pub fn bool(&mut self, path: &'static str) -> Result<bool, DecodeError> {
        self.u8(path).map(|b| b != 0)
    }

    /// Reads one byte.
    ///
    /// # Errors
    ///
    /// `Truncated` at the end of input.
    #[inline]
    pub fn u8(&mut self, path: &'static str) -> Result<u8, DecodeError> {
        let Some((&b, tail)) = self.rest.split_first() else {
            return Err(self.truncated(1, path));
        };
        self.rest = tail;
        Ok(b)
    }

    /// Reads an `int8`.
    ///
    /// # Errors
    ///
    /// `Truncated` at the end of input.
    #[inline]
    pub fn i8(&mut self, path: &'static str) -> Result<i8, DecodeError> {
        self.u8(path).map(u8::cast_signed)
    }

    /// Reads a big-endian `int16`.
    ///
    /// # Errors
    ///
    /// `Truncated` when fewer than 2 bytes are left.
    #[inline]
    pub fn i16(&mut self, path: &'static str) -> Result<i16, DecodeError> {
        self.array::<2>(path).map(|b| i16::from_be_bytes(*b))
    }

    /// Reads a big-endian `uint16`.
    ///
    /// # Errors
    ///
    /// `Truncated` when fewer than 2 bytes are left.
    #[inline]
    pub fn u16(&mut self, path: &'static str) -> Result<u16, DecodeError> {
        self.array::<2>(path).map(|b| u16::from_be_bytes(*b))
    }

    /// Reads a big-endian `int32`.
    ///
    /// # Errors
    ///
    /// `Truncated` when fewer than 4 bytes are left.
    #[inline]
    pub fn i32(&mut self, path: &'static str) -> Result<i32, DecodeError> {
        self.array::<4>(path).map(|b| i32::from_be_bytes(*b))
    }

    /// Reads a big-endian `uint32`.
    ///
    /// # Errors
    ///
    /// `Truncated` when fewer than 4 bytes are left.
    #[inline]
    pub fn u32(&mut self, path: &'static str) -> Result<u32, DecodeError> {
        self.array::<4>(path).map(|b| u32::from_be_bytes(*b))
    }

    /// Reads a big-endian `int64`.
    ///
    /// # Errors
    ///
    /// `Truncated` when fewer than 8 bytes are left.
    #[inline]
    pub fn i64(&mut self, path: &'static str) -> Result<i64, DecodeError> {
        self.array::<8>(path).map(|b| i64::from_be_bytes(*b))
    }

    /// Reads a big-endian IEEE-754 `float64`.
    ///
    /// # Errors
    ///
    /// `Truncated` when fewer than 8 bytes are left.
    #[inline]
    pub fn f64(&mut self, path: &'static str) -> Result<f64, DecodeError> {
        self.array::<8>(path).map(|b| f64::from_be_bytes(*b))
    }

    /// Reads a 16-byte UUID.
    ///
    /// # Errors
    ///
    /// `Truncated` when fewer than 16 bytes are left.
    #[inline]
    pub fn uuid(&mut self, path: &'static str) -> Result<Uuid, DecodeError> {
        self.array::<16>(path).map(|b| Uuid(*b))
    }

    /// Reads an unsigned varint of at most 5 bytes (7 bits a byte, least significant first).
    ///
    /// Like Kafka's Java reader, it accepts non-minimal encodings (`80 00` is 0) and ignores the
    /// bits of the 5th byte that do not fit in 32 bits.
    ///
    /// # Errors
    ///
    /// `Truncated` (offset of the varint, 1 more byte needed) when the input ends inside it;
    /// `VarintTooLong` (offset of the varint) when the 5th byte has its continuation bit set.
    #[inline(always)]
    pub fn uvarint(&mut self, path: &'static str) -> Result<u32, DecodeError> {
        if let Some((&b, tail)) = self.rest.split_first()
            && b & 0x80 == 0
        {
            self.rest = tail;
            return Ok(u32::from(b));
        }
        self.uvarint_long(path)
    }

    /// The multi-byte (and error) path of [`Reader::uvarint`], kept out of line so that the
    /// one-byte case inlines.
    #[inline(never)]
    fn uvarint_long(&mut self, path: &'static str) -> Result<u32, DecodeError> {
        let mut value: u32 = 0;
        let mut rest = self.rest;
        for i in 0..5u32 {
            let Some((&b, tail)) = rest.split_first() else {
                return Err(self.err(DecodeErrorKind::Truncated { needed: 1 }, path));
            };
            rest = tail;
            value |= u32::from(b & 0x7f).wrapping_shl(i.wrapping_mul(7));
            if b & 0x80 == 0 {
                self.rest = rest;
                return Ok(value);
            }
        }
        Err(self.err(DecodeErrorKind::VarintTooLong, path))
    }

    /// Reads a zig-zag signed varint (32-bit).
    ///
    /// # Errors
    ///
    /// As [`Reader::uvarint`].
    #[inline]
    pub fn varint(&mut self, path: &'static str) -> Result<i32, DecodeError> {
        let u = self.uvarint(path)?;
        Ok((u >> 1).cast_signed() ^ (u & 1).cast_signed().wrapping_neg())
    }

    /// Reads a zig-zag signed varlong (64-bit, at most 10 bytes; bits past 64 are ignored, as in
    /// Kafka's Java reader).
    ///
    /// # Errors
    ///
    /// `Truncated` when the input ends inside it; `VarintTooLong` when the 10th byte has its
    /// continuation bit set.
    #[inline]
    pub fn varlong(&mut self, path: &'static str) -> Result<i64, DecodeError> {
        let mut value: u64 = 0;
        let mut rest = self.rest;
        for i in 0..10u32 {
            let Some((&b, tail)) = rest.split_first() else {
                return Err(self.err(DecodeErrorKind::Truncated { needed: 1 }, path));
            };
            rest = tail;
            value |= u64::from(b & 0x7f).wrapping_shl(i.wrapping_mul(7));
            if b & 0x80 == 0 {
                self.rest = rest;
                return Ok((value >> 1).cast_signed() ^ (value & 1).cast_signed().wrapping_neg());
            }
        }
        Err(self.err(DecodeErrorKind::VarintTooLong, path))
    }

    /// Reads a length prefix: `int16` (classic strings), `int32` (classic bytes, records and
    /// arrays) or a compact unsigned varint holding N+1.
    #[inline(always)]
    fn raw_len(
        &mut self,
        flexible: bool,
        short: bool,
        path: &'static str,
    ) -> Result<RawLen, DecodeError> {
        let n: i32 = if flexible {
            let start = self.offset();
            let u = self.uvarint(path)?;
            // N+1 with 0 = null. Java computes N in int arithmetic: 0x80000000 becomes
            // i32::MAX (too long), larger values wrap to negative lengths.
            let n = u.wrapping_sub(1).cast_signed();
            if u == 0x8000_0000 {
                return Err(DecodeError::new(
                    start,
                    DecodeErrorKind::LengthTooLarge {
                        length: 0x7fff_ffff,
                        limit: 0x7fff_fffe,
                    },
                    path,
                ));
            }
            n
        } else if short {
            i32::from(self.i16(path)?)
        } else {
            self.i32(path)?
        };
        Ok(match usize::try_from(n) {
            Ok(len) => RawLen::Len(len),
            Err(_) => RawLen::Null(n),
        })
    }

    /// Consumes an empty tagged-field section (a count of zero, one byte) and returns true;
    /// returns false without consuming anything when the next byte is not zero.
    #[inline(always)]
    pub fn empty_tagged_section(&mut self) -> bool {
        match self.rest.split_first() {
            Some((0, tail)) => {
                self.rest = tail;
                true
            }
            _ => false,
        }
    }

    /// Reads a length that must not be null.
    ///
    /// The common encodings (a one-byte compact length, a non-negative `int16` or `int32`) are
    /// read inline; everything else, errors included, goes through [`Reader::len_slow`].
    #[inline(always)]
    fn len(
        &mut self,
        flexible: bool,
        short: bool,
        path: &'static str,
    ) -> Result<usize, DecodeError> {
        match self.fast_len(flexible, short) {
            Some(n) => Ok(n),
            None => self.len_slow(flexible, short, path),
        }
    }

    /// Reads a length in its common encoding (a one-byte compact length, a non-negative `int16`
    /// or `int32`); returns `None`, consuming nothing, for anything else.
    #[inline(always)]
    fn fast_len(&mut self, flexible: bool, short: bool) -> Option<usize> {
        let (n, tail) = if flexible {
            match self.rest.split_first() {
                // 1..=0x7f: a one-byte varint holding N+1 with N >= 0.
                Some((&b, tail)) if b.wrapping_sub(1) < 0x7f => {
                    (usize::from(b.wrapping_sub(1)), tail)
                }
                _ => return None,
            }
        } else if short {
            let (head, tail) = self.rest.split_first_chunk::<2>()?;
            (usize::try_from(i16::from_be_bytes(*head)).ok()?, tail)
        } else {
            let (head, tail) = self.rest.split_first_chunk::<4>()?;
            (usize::try_from(i32::from_be_bytes(*head)).ok()?, tail)
        };
        self.rest = tail;
        Some(n)
    }

    /// Every length encoding and its errors: the out-of-line path of [`Reader::len`].
    #[inline(never)]
    fn len_slow(
        &mut self,
        flexible: bool,
        short: bool,
        path: &'static str,
    ) -> Result<usize, DecodeError> {
        let start = self.offset();
        match self.raw_len(flexible, short, path)? {
            RawLen::Len(n) => Ok(n),
            RawLen::Null(-1) => Err(DecodeError::new(
                start,
                DecodeErrorKind::UnexpectedNull,
                path,
            )),
            RawLen::Null(n) => Err(DecodeError::new(
                start,
                DecodeErrorKind::NegativeLength(n),
                path,
            )),
        }
    }

    /// Reads a length where null is allowed: any negative length is null, as in Kafka's Java
    /// reader.
    #[inline(always)]
    fn nullable_len(
        &mut self,
        flexible: bool,
        short: bool,
        path: &'static str,
    ) -> Result<Option<usize>, DecodeError> {
        if let Some(n) = self.fast_len(flexible, short) {
            return Ok(Some(n));
        }
        self.nullable_len_slow(flexible, short, path)
    }

    /// Every nullable length encoding and its errors: the out-of-line path of
    /// [`Reader::nullable_len`].
    #[inline(never)]
    fn nullable_len_slow(
        &mut self,
        flexible: bool,
        short: bool,
        path: &'static str,
    ) -> Result<Option<usize>, DecodeError> {
        Ok(match self.raw_len(flexible, short, path)? {
            RawLen::Len(n) => Some(n),
            RawLen::Null(_) => None,
        })
    }

    #[inline]
    fn str_body(
        &mut self,
        n: usize,
        start: usize,
        path: &'static str,
    ) -> Result<&'a str, DecodeError> {
        if n > MAX_STRING_LEN {
            return Err(DecodeError::new(
                start,
                DecodeErrorKind::LengthTooLarge {
                    length: n,
                    limit: MAX_STRING_LEN,
                },
                path,
            ));
        }
        let at = self.offset();
        let bytes = self.take(n, path)?;
        core::str::from_utf8(bytes)
            .map_err(|_| DecodeError::new(at, DecodeErrorKind::InvalidUtf8, path))
    }

    /// Reads a string: `int16` length (classic) or compact length, then UTF-8 bytes.
    ///
    /// # Errors
    ///
    /// `Truncated`; `UnexpectedNull` for a null; `NegativeLength`; `LengthTooLarge` over 32767
    /// bytes; `InvalidUtf8` (offset of the string's first byte).
    #[inline]
    pub fn string(&mut self, flexible: bool, path: &'static str) -> Result<&'a str, DecodeError> {
        let start = self.offset();
        let n = self.len(flexible, true, path)?;
        self.str_body(n, start, path)
    }

    /// Reads a nullable string (any negative length is null).
    ///
    /// # Errors
    ///
    /// As [`Reader::string`], without the null errors.
    #[inline]
    pub fn nullable_string(
        &mut self,
        flexible: bool,
        path: &'static str,
    ) -> Result<Option<&'a str>, DecodeError> {
        let start = self.offset();
        match self.nullable_len(flexible, true, path)? {
            Some(n) => self.str_body(n, start, path).map(Some),
            None => Ok(None),
        }
    }

    /// Reads bytes: `int32` length (classic) or compact length, then the bytes.
    ///
    /// # Errors
    ///
    /// `Truncated`; `UnexpectedNull`; `NegativeLength`.
    #[inline]
    pub fn bytes(&mut self, flexible: bool, path: &'static str) -> Result<&'a [u8], DecodeError> {
        let n = self.len(flexible, false, path)?;
        self.take(n, path)
    }

    /// Reads nullable bytes (any negative length is null).
    ///
    /// # Errors
    ///
    /// `Truncated`.
    #[inline]
    pub fn nullable_bytes(
        &mut self,
        flexible: bool,
        path: &'static str,
    ) -> Result<Option<&'a [u8]>, DecodeError> {
        match self.nullable_len(flexible, false, path)? {
            Some(n) => self.take(n, path).map(Some),
            None => Ok(None),
        }
    }

    /// Reads a `records` field that must not be null, keeping its absolute offset.
    ///
    /// # Errors
    ///
    /// As [`Reader::bytes`].
    #[inline]
    pub fn records(
        &mut self,
        flexible: bool,
        path: &'static str,
    ) -> Result<crate::records::Records<'a>, DecodeError> {
        let n = self.len(flexible, false, path)?;
        let at = self.offset();
        self.take(n, path)
            .map(|b| crate::records::Records::with_offset(b, at))
    }

    /// Reads a nullable `records` field, keeping its absolute offset.
    ///
    /// # Errors
    ///
    /// As [`Reader::nullable_bytes`].
    #[inline]
    pub fn nullable_records(
        &mut self,
        flexible: bool,
        path: &'static str,
    ) -> Result<Option<crate::records::Records<'a>>, DecodeError> {
        match self.nullable_len(flexible, false, path)? {
            Some(n) => {
                let at = self.offset();
                self.take(n, path)
                    .map(|b| Some(crate::records::Records::with_offset(b, at)))
            }
            None => Ok(None),
        }
    }

    /// Skips `n` bytes.
    ///
    /// # Errors
    ///
    /// `Truncated` when fewer than `n` bytes are left.
    #[inline(always)]
    pub fn skip(&mut self, n: usize, path: &'static str) -> Result<(), DecodeError> {
        self.take(n, path).map(|_| ())
    }

    /// Skips a string, bytes or records field (`short`: the classic `int16` string length),
    /// null or not, without looking at its contents.
    ///
    /// # Errors
    ///
    /// Length and truncation errors.
    #[inline(always)]
    pub fn skip_sized(
        &mut self,
        flexible: bool,
        short: bool,
        path: &'static str,
    ) -> Result<(), DecodeError> {
        match self.nullable_len(flexible, short, path)? {
            Some(n) => self.skip(n, path),
            None => Ok(()),
        }
    }

    /// Skips a tagged-field section: its count, then each entry's tag, size and payload.
    ///
    /// # Errors
    ///
    /// Varint and truncation errors.
    #[inline(always)]
    pub fn skip_tagged_section(&mut self, path: &'static str) -> Result<(), DecodeError> {
        if self.empty_tagged_section() {
            return Ok(());
        }
        let count = self.uvarint(path)?;
        for _ in 0..count {
            self.uvarint(path)?;
            let size = self.uvarint(path)?;
            self.skip(usize::try_from(size).unwrap_or(usize::MAX), path)?;
        }
        Ok(())
    }

    /// Reads an array element count that must not be null.
    ///
    /// A count larger than the bytes left cannot be satisfied (every element takes at least one
    /// byte); it is reported as `Truncated` with the shortfall, before any element is read.
    ///
    /// # Errors
    ///
    /// `Truncated`; `UnexpectedNull`; `NegativeLength`.
    #[inline(always)]
    pub fn array_len(&mut self, flexible: bool, path: &'static str) -> Result<usize, DecodeError> {
        let n = self.len(flexible, false, path)?;
        self.check_count(n, path)?;
        Ok(n)
    }

    /// Reads a nullable array element count (any negative count is null).
    ///
    /// # Errors
    ///
    /// `Truncated`, as [`Reader::array_len`].
    #[inline(always)]
    pub fn nullable_array_len(
        &mut self,
        flexible: bool,
        path: &'static str,
    ) -> Result<Option<usize>, DecodeError> {
        match self.nullable_len(flexible, false, path)? {
            Some(n) => {
                self.check_count(n, path)?;
                Ok(Some(n))
            }
            None => Ok(None),
        }
    }

    #[inline]
    fn check_count(&self, n: usize, path: &'static str) -> Result<(), DecodeError> {
        if n > self.rest.len() {
            return Err(self.truncated(n, path));
        }
        Ok(())
    }

    /// Reads the int8 presence marker of a positional nullable struct: negative is null,
    /// anything else present (as Kafka's Java reader has it).
    ///
    /// # Errors
    ///
    /// `Truncated`.
    #[inline]
    pub fn struct_marker(&mut self, path: &'static str) -> Result<bool, DecodeError> {
        self.i8(path).map(|m| m >= 0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fixed_width() {
        let bytes = [0x01, 0xff, 0x12, 0x34, 0x80, 0, 0, 1];
        let mut r = Reader::new(&bytes);
        assert!(r.bool("x").unwrap());
        assert_eq!(r.i8("x").unwrap(), -1);
        assert_eq!(r.i16("x").unwrap(), 0x1234);
        assert_eq!(r.offset(), 4);
        assert_eq!(r.i32("x").unwrap(), i32::MIN + 1);
        assert_eq!(
            r.i8("x.y"),
            Err(DecodeError::new(
                8,
                DecodeErrorKind::Truncated { needed: 1 },
                "x.y"
            ))
        );
    }

    #[test]
    fn truncated_reports_start_and_shortfall() {
        let bytes = [0, 0, 0];
        let mut r = Reader::with_offset(&bytes, 10);
        assert_eq!(
            r.i64("f"),
            Err(DecodeError::new(
                10,
                DecodeErrorKind::Truncated { needed: 5 },
                "f"
            ))
        );
        assert_eq!(r.offset(), 10);
    }

    #[test]
    fn strings_and_nulls() {
        let mut r = Reader::new(&[0xff, 0xff, 0x00, 0x01, b'a', 0x00, 0x04, b'a', b'b', b'c']);
        assert_eq!(r.nullable_string(false, "s").unwrap(), None);
        assert_eq!(r.string(false, "s").unwrap(), "a");
        assert_eq!(r.nullable_string(true, "s").unwrap(), None);
        assert_eq!(r.string(true, "s").unwrap(), "abc");
        let mut r = Reader::new(&[0x00]);
        assert_eq!(
            r.string(true, "s"),
            Err(DecodeError::new(0, DecodeErrorKind::UnexpectedNull, "s"))
        );
        let mut r = Reader::new(&[0xff, 0xfe]);
        assert_eq!(
            r.string(false, "s"),
            Err(DecodeError::new(
                0,
                DecodeErrorKind::NegativeLength(-2),
                "s"
            ))
        );
        let mut r = Reader::new(&[0x00, 0x02, 0xc3, 0x28]);
        assert_eq!(
            r.string(false, "s"),
            Err(DecodeError::new(2, DecodeErrorKind::InvalidUtf8, "s"))
        );
    }

    #[test]
    fn huge_counts_fail_before_looping() {
        let mut r = Reader::new(&[0x7f, 0xff, 0xff, 0xff, 0x00]);
        assert_eq!(
            r.array_len(false, "a"),
            Err(DecodeError::new(
                4,
                DecodeErrorKind::Truncated {
                    needed: 0x7fff_fffe
                },
                "a"
            ))
        );
    }
}
