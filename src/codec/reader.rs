//! [`Reader`]: the cursor every decode reads input with, recording where and why it failed.
//! (The fast reader steps over input already known to be good, and the record batch view reads
//! its fixed header in place, through `zerocopy`.)

use crate::error::{DecodeError, DecodeErrorKind};

use super::{MAX_STRING_LEN, Str, Uuid};
use crate::wire::is_utf8;

/// A cursor over borrowed input that knows its absolute offset: what [`Decode::decode`]
/// reads from, so that a decode can start anywhere in a buffer and report positions in it
/// ([`Reader::with_offset`]), go on where the last one ended ([`Reader::offset`],
/// [`Reader::rest`]), refuse strings that are not UTF-8 ([`Reader::checking_utf8`]) and check
/// that nothing is left ([`Reader::finish`]).
///
/// The reads of each wire type that the generated decoders are written with are hidden from
/// this documentation (see [`codec`](super#what-is-public)). Nothing is allocated and nothing
/// panics.
///
/// [`Decode::decode`]: super::Decode::decode
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Reader<'a> {
    rest: &'a [u8],
    /// Absolute offset of the end of the input: the current offset is `end - rest.len()`, so
    /// advancing only moves `rest`.
    end: usize,
    /// Set on readers over bytes a decode has already validated (the elements of a decoded
    /// array): nested arrays of structs are then walked over rather than decoded again.
    validated: bool,
    /// Set by [`Reader::checking_utf8`]: strings that are not UTF-8 are refused.
    check_utf8: bool,
    /// The error of the last failed read, until taken.
    error: Option<DecodeError>,
}

/// A read that failed: the [`DecodeError`] is held by the [`Reader`] it failed on, until
/// [`Reader::take_error`] takes it.
///
/// The crate's own decoders pass this zero-sized marker up instead of the error itself, which
/// keeps every error exit a single branch.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[doc(hidden)]
pub struct Failed;

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
            check_utf8: false,
            error: None,
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
            check_utf8: false,
            error: None,
        }
    }

    /// A reader over bytes that an earlier decode at the same version has already read without
    /// error: what iteration reads the elements of a decoded array with, made by tests.
    #[cfg(test)]
    #[must_use]
    pub(crate) const fn validated(bytes: &'a [u8], offset: usize) -> Self {
        Self::with_flags(bytes, offset, true, false)
    }

    /// A reader over `bytes` from absolute offset `offset`, checking UTF-8 (see
    /// [`Reader::checking_utf8`]) as `check_utf8` says, and, when `validated`, over bytes that an
    /// earlier decode at the same version has already read without error (the elements of a
    /// decoded array): decoding through it gives the same values, but nested arrays of structs
    /// are walked over instead of being validated again. Over bytes that were never validated
    /// such a reader stays memory-safe and panic-free, but a nested array's errors are then only
    /// found (and end its iteration early) when it is iterated. A fast reader's reader, made
    /// without a branch.
    #[must_use]
    pub(crate) const fn with_flags(
        bytes: &'a [u8],
        offset: usize,
        validated: bool,
        check_utf8: bool,
    ) -> Self {
        Self {
            rest: bytes,
            end: offset.wrapping_add(bytes.len()),
            validated,
            check_utf8,
            error: None,
        }
    }

    /// This reader, refusing every string that is not UTF-8 with
    /// [`DecodeErrorKind::InvalidUtf8`](crate::DecodeErrorKind::InvalidUtf8).
    ///
    /// A decode checks the structure of what it reads (lengths, counts, bounds, tagged
    /// sections), not the UTF-8 of its strings, which [`Str::to_str`] checks where a string is
    /// read. A decode through this reader also checks each string when it is decoded, so that
    /// every string of the decoded message is UTF-8: a pass over the string's bytes, a word at a
    /// time where they are ASCII, and `core`'s check where they are not (`to_str` checks again).
    ///
    /// ```
    /// use kwire::codec::{Decode, Reader};
    /// use kwire::messages::FindCoordinatorRequest;
    ///
    /// let body = [0x00, 0x02, 0xc3, 0x28]; // v0: a key of two bytes that are not UTF-8
    /// let lenient = FindCoordinatorRequest::decode(&mut Reader::new(&body), 0)?;
    /// assert!(lenient.key.to_str().is_err());
    ///
    /// let strict = FindCoordinatorRequest::decode(&mut Reader::new(&body).checking_utf8(), 0);
    /// assert_eq!(strict.unwrap_err().offset, 2);
    /// # Ok::<(), kwire::DecodeError>(())
    /// ```
    #[must_use]
    pub const fn checking_utf8(mut self) -> Self {
        self.check_utf8 = true;
        self
    }

    /// True for a reader made by [`Reader::checking_utf8`] (or taken from one).
    #[must_use]
    pub const fn checks_utf8(&self) -> bool {
        self.check_utf8
    }

    /// True for a reader over validated bytes (see [`Reader::with_flags`]).
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

    /// Moves to where `w`, a fast reader made at this reader, has got to.
    #[inline(always)]
    pub(crate) fn advance_to(&mut self, w: &super::FastReader<'a>) {
        self.rest = w.rest();
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

    /// Takes the error of the read that returned [`Failed`] on this reader.
    ///
    /// Every [`Failed`] from this reader's methods leaves its error here. Should there be none,
    /// the result is a `Malformed` error at the current offset.
    #[doc(hidden)]
    pub fn take_error(&mut self) -> DecodeError {
        match self.error.take() {
            Some(e) => e,
            None => DecodeError::new(self.offset(), DecodeErrorKind::Malformed, ""),
        }
    }

    /// Runs `reads` on this reader and returns their value, or the [`DecodeError`] the failing
    /// read left here: the step from the reads, which pass up [`Failed`], to a caller that wants
    /// the error (`r.decode_with(|r| r.i32("Frame.size"))`).
    ///
    /// # Errors
    ///
    /// The error of the read that failed.
    #[inline]
    #[doc(hidden)]
    pub fn decode_with<T>(
        &mut self,
        reads: impl FnOnce(&mut Self) -> Result<T, Failed>,
    ) -> Result<T, DecodeError> {
        reads(self).map_err(|Failed| self.take_error())
    }

    /// Fails with [`DecodeErrorKind::TrailingBytes`] unless every byte has been read.
    ///
    /// # Errors
    ///
    /// `TrailingBytes` at the first unread byte.
    #[inline]
    pub fn finish(&self, path: &'static str) -> Result<(), DecodeError> {
        if self.rest.is_empty() {
            Ok(())
        } else {
            Err(DecodeError::new(
                self.offset(),
                DecodeErrorKind::TrailingBytes {
                    count: self.rest.len(),
                },
                path,
            ))
        }
    }

    /// Records `error` as this reader's failure and returns the marker to pass up: how a
    /// [`Decode::read`](super::Decode::read) reports a failure of its own, such as a value out of
    /// range (`return Err(r.fail_with(DecodeError::new(..)))`).
    #[cold]
    #[inline(never)]
    #[doc(hidden)]
    pub fn fail_with(&mut self, error: DecodeError) -> Failed {
        self.error = Some(error);
        Failed
    }

    /// Records a failure of `kind` at absolute offset `offset`.
    #[cold]
    #[inline(never)]
    pub(crate) fn fail_at(
        &mut self,
        offset: usize,
        kind: DecodeErrorKind,
        path: &'static str,
    ) -> Failed {
        self.fail_with(DecodeError::new(offset, kind, path))
    }

    /// Records a failure of `kind` at the current offset.
    #[cold]
    #[inline(never)]
    pub(crate) fn fail(&mut self, kind: DecodeErrorKind, path: &'static str) -> Failed {
        self.fail_at(self.offset(), kind, path)
    }

    /// Records a `Truncated` failure for a read of `n` bytes at the current offset.
    #[cold]
    #[inline(never)]
    fn fail_truncated(&mut self, n: usize, path: &'static str) -> Failed {
        let needed = n.saturating_sub(self.rest.len());
        self.fail(DecodeErrorKind::Truncated { needed }, path)
    }

    /// Records the `Truncated` failure of an array of `size`-byte elements that the input ends
    /// inside of (their count said more than the bytes left hold): at the element cut short,
    /// as reading the elements one by one would find it.
    #[cold]
    #[inline(never)]
    pub(crate) fn fail_fixed_elements(&mut self, size: usize, path: &'static str) -> Failed {
        let left = self.rest.len();
        let cut = left.checked_rem(size).unwrap_or(0);
        let offset = self.offset().wrapping_add(left.wrapping_sub(cut));
        let needed = size.saturating_sub(cut);
        self.fail_at(offset, DecodeErrorKind::Truncated { needed }, path)
    }

    /// Takes the next `n` bytes.
    ///
    /// # Errors
    ///
    /// `Truncated` at the current offset when fewer than `n` bytes are left.
    #[inline]
    #[doc(hidden)]
    pub fn take(&mut self, n: usize, path: &'static str) -> Result<&'a [u8], Failed> {
        let Some((head, tail)) = self.rest.split_at_checked(n) else {
            return Err(self.fail_truncated(n, path));
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
    #[doc(hidden)]
    pub fn sub(&mut self, n: usize, path: &'static str) -> Result<Reader<'a>, Failed> {
        let offset = self.offset();
        let bytes = self.take(n, path)?;
        Ok(Reader {
            rest: bytes,
            end: offset.wrapping_add(n),
            validated: self.validated,
            check_utf8: self.check_utf8,
            error: None,
        })
    }

    /// Takes the next `N` bytes as an array reference.
    ///
    /// # Errors
    ///
    /// `Truncated` when fewer than `N` bytes are left.
    #[inline]
    #[doc(hidden)]
    pub fn array<const N: usize>(&mut self, path: &'static str) -> Result<&'a [u8; N], Failed> {
        let Some((head, tail)) = self.rest.split_first_chunk::<N>() else {
            return Err(self.fail_truncated(N, path));
        };
        self.rest = tail;
        Ok(head)
    }

    /// Reads a `bool`: any non-zero byte is `true`, as Kafka's Java reader has it.
    ///
    /// # Errors
    ///
    /// `Truncated` at the end of input.
    #[cfg_attr(feature = "perf", inline)]
    #[cfg_attr(not(feature = "perf"), inline(never))]
    #[doc(hidden)]
    pub fn bool(&mut self, path: &'static str) -> Result<bool, Failed> {
        self.u8(path).map(|b| b != 0)
    }

    /// Reads one byte.
    ///
    /// # Errors
    ///
    /// `Truncated` at the end of input.
    #[inline]
    #[doc(hidden)]
    pub fn u8(&mut self, path: &'static str) -> Result<u8, Failed> {
        let Some((&b, tail)) = self.rest.split_first() else {
            return Err(self.fail_truncated(1, path));
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
    #[doc(hidden)]
    pub fn i8(&mut self, path: &'static str) -> Result<i8, Failed> {
        self.u8(path).map(u8::cast_signed)
    }

    /// Reads a big-endian `int16`.
    ///
    /// # Errors
    ///
    /// `Truncated` when fewer than 2 bytes are left.
    #[cfg_attr(feature = "perf", inline)]
    #[cfg_attr(not(feature = "perf"), inline(never))]
    #[doc(hidden)]
    pub fn i16(&mut self, path: &'static str) -> Result<i16, Failed> {
        self.array::<2>(path).map(|b| i16::from_be_bytes(*b))
    }

    /// Reads a big-endian `uint16`.
    ///
    /// # Errors
    ///
    /// `Truncated` when fewer than 2 bytes are left.
    #[inline]
    #[doc(hidden)]
    pub fn u16(&mut self, path: &'static str) -> Result<u16, Failed> {
        self.array::<2>(path).map(|b| u16::from_be_bytes(*b))
    }

    /// Reads a big-endian `int32`.
    ///
    /// # Errors
    ///
    /// `Truncated` when fewer than 4 bytes are left.
    #[cfg_attr(feature = "perf", inline)]
    #[cfg_attr(not(feature = "perf"), inline(never))]
    #[doc(hidden)]
    pub fn i32(&mut self, path: &'static str) -> Result<i32, Failed> {
        self.array::<4>(path).map(|b| i32::from_be_bytes(*b))
    }

    /// Reads a big-endian `uint32`.
    ///
    /// # Errors
    ///
    /// `Truncated` when fewer than 4 bytes are left.
    #[inline]
    #[doc(hidden)]
    pub fn u32(&mut self, path: &'static str) -> Result<u32, Failed> {
        self.array::<4>(path).map(|b| u32::from_be_bytes(*b))
    }

    /// Reads a big-endian `int64`.
    ///
    /// # Errors
    ///
    /// `Truncated` when fewer than 8 bytes are left.
    #[cfg_attr(feature = "perf", inline)]
    #[cfg_attr(not(feature = "perf"), inline(never))]
    #[doc(hidden)]
    pub fn i64(&mut self, path: &'static str) -> Result<i64, Failed> {
        self.array::<8>(path).map(|b| i64::from_be_bytes(*b))
    }

    /// Reads a big-endian IEEE-754 `float64`.
    ///
    /// # Errors
    ///
    /// `Truncated` when fewer than 8 bytes are left.
    #[inline]
    #[doc(hidden)]
    pub fn f64(&mut self, path: &'static str) -> Result<f64, Failed> {
        self.array::<8>(path).map(|b| f64::from_be_bytes(*b))
    }

    /// Reads a 16-byte UUID.
    ///
    /// # Errors
    ///
    /// `Truncated` when fewer than 16 bytes are left.
    #[inline]
    #[doc(hidden)]
    pub fn uuid(&mut self, path: &'static str) -> Result<Uuid, Failed> {
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
    #[doc(hidden)]
    pub fn uvarint(&mut self, path: &'static str) -> Result<u32, Failed> {
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
    fn uvarint_long(&mut self, path: &'static str) -> Result<u32, Failed> {
        let mut value: u32 = 0;
        let mut rest = self.rest;
        for i in 0..5u32 {
            let Some((&b, tail)) = rest.split_first() else {
                return Err(self.fail(DecodeErrorKind::Truncated { needed: 1 }, path));
            };
            rest = tail;
            value |= u32::from(b & 0x7f).wrapping_shl(i.wrapping_mul(7));
            if b & 0x80 == 0 {
                self.rest = rest;
                return Ok(value);
            }
        }
        Err(self.fail(DecodeErrorKind::VarintTooLong, path))
    }

    /// Reads a zig-zag signed varint (32-bit).
    ///
    /// # Errors
    ///
    /// As [`Reader::uvarint`].
    #[inline]
    #[doc(hidden)]
    pub fn varint(&mut self, path: &'static str) -> Result<i32, Failed> {
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
    #[doc(hidden)]
    pub fn varlong(&mut self, path: &'static str) -> Result<i64, Failed> {
        let mut value: u64 = 0;
        let mut rest = self.rest;
        for i in 0..10u32 {
            let Some((&b, tail)) = rest.split_first() else {
                return Err(self.fail(DecodeErrorKind::Truncated { needed: 1 }, path));
            };
            rest = tail;
            value |= u64::from(b & 0x7f).wrapping_shl(i.wrapping_mul(7));
            if b & 0x80 == 0 {
                self.rest = rest;
                return Ok((value >> 1).cast_signed() ^ (value & 1).cast_signed().wrapping_neg());
            }
        }
        Err(self.fail(DecodeErrorKind::VarintTooLong, path))
    }

    /// Reads a length prefix: `int16` (classic strings), `int32` (classic bytes, records and
    /// arrays) or a compact unsigned varint holding N+1.
    #[inline(always)]
    fn raw_len(
        &mut self,
        flexible: bool,
        short: bool,
        path: &'static str,
    ) -> Result<RawLen, Failed> {
        let n: i32 = if flexible {
            let start = self.offset();
            let u = self.uvarint(path)?;
            // N+1 with 0 = null. Java computes N in int arithmetic: 0x80000000 becomes
            // i32::MAX (too long), larger values wrap to negative lengths.
            let n = u.wrapping_sub(1).cast_signed();
            if u == 0x8000_0000 {
                return Err(self.fail_at(
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
    #[cfg_attr(feature = "perf", inline(always))]
    #[cfg_attr(not(feature = "perf"), inline(never))]
    #[doc(hidden)]
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
    /// With the `perf` feature the common encodings (see [`fast_len`]) are read inline, and
    /// everything else, errors included, goes through [`Reader::len_slow`]; small builds read
    /// every length there, one copy for all fields.
    #[inline(always)]
    fn len(&mut self, flexible: bool, short: bool, path: &'static str) -> Result<usize, Failed> {
        if cfg!(feature = "perf")
            && let Some(n) = fast_len(&mut self.rest, flexible, short)
        {
            return Ok(n);
        }
        self.len_slow(flexible, short, path)
    }

    /// Every length encoding and its errors: the out-of-line path of [`Reader::len`].
    #[inline(never)]
    fn len_slow(
        &mut self,
        flexible: bool,
        short: bool,
        path: &'static str,
    ) -> Result<usize, Failed> {
        let start = self.offset();
        match self.raw_len(flexible, short, path)? {
            RawLen::Len(n) => Ok(n),
            RawLen::Null(-1) => Err(self.fail_at(start, DecodeErrorKind::UnexpectedNull, path)),
            RawLen::Null(n) => Err(self.fail_at(start, DecodeErrorKind::NegativeLength(n), path)),
        }
    }

    /// Reads a length where null is allowed: any negative length is null, as in Kafka's Java
    /// reader.
    #[inline(always)]
    pub(super) fn nullable_len(
        &mut self,
        flexible: bool,
        short: bool,
        path: &'static str,
    ) -> Result<Option<usize>, Failed> {
        if cfg!(feature = "perf")
            && let Some(n) = fast_len(&mut self.rest, flexible, short)
        {
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
    ) -> Result<Option<usize>, Failed> {
        Ok(match self.raw_len(flexible, short, path)? {
            RawLen::Len(n) => Some(n),
            RawLen::Null(_) => None,
        })
    }

    #[inline]
    fn str_body(&mut self, n: usize, start: usize, path: &'static str) -> Result<Str<'a>, Failed> {
        if n > MAX_STRING_LEN {
            return Err(self.fail_at(
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
        if self.check_utf8 && !is_utf8(bytes) {
            return Err(self.fail_at(at, DecodeErrorKind::InvalidUtf8, path));
        }
        Ok(Str::from_wire(bytes))
    }

    /// Reads a string: `int16` length (classic) or compact length, then its bytes, checked as
    /// UTF-8 only by a reader [checking UTF-8](Reader::checking_utf8).
    ///
    /// # Errors
    ///
    /// `Truncated`; `UnexpectedNull` for a null; `NegativeLength`; `LengthTooLarge` over 32767
    /// bytes; `InvalidUtf8` (offset of the string's first byte) when checking UTF-8.
    #[inline]
    #[doc(hidden)]
    pub fn string(&mut self, flexible: bool, path: &'static str) -> Result<Str<'a>, Failed> {
        let start = self.offset();
        let n = self.len(flexible, true, path)?;
        self.str_body(n, start, path)
    }

    /// Reads a nullable string (any negative length is null).
    ///
    /// # Errors
    ///
    /// As [`Reader::string`], without the null errors.
    #[cfg_attr(feature = "perf", inline)]
    #[cfg_attr(not(feature = "perf"), inline(never))]
    #[doc(hidden)]
    pub fn nullable_string(
        &mut self,
        flexible: bool,
        path: &'static str,
    ) -> Result<Option<Str<'a>>, Failed> {
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
    #[doc(hidden)]
    pub fn bytes(&mut self, flexible: bool, path: &'static str) -> Result<&'a [u8], Failed> {
        let n = self.len(flexible, false, path)?;
        self.take(n, path)
    }

    /// Reads nullable bytes (any negative length is null).
    ///
    /// # Errors
    ///
    /// `Truncated`.
    #[inline]
    #[doc(hidden)]
    pub fn nullable_bytes(
        &mut self,
        flexible: bool,
        path: &'static str,
    ) -> Result<Option<&'a [u8]>, Failed> {
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
    #[doc(hidden)]
    pub fn records(
        &mut self,
        flexible: bool,
        path: &'static str,
    ) -> Result<super::Records<'a>, Failed> {
        let n = self.len(flexible, false, path)?;
        let at = self.offset();
        self.take(n, path)
            .map(|b| super::Records::with_offset(b, at))
    }

    /// Reads a nullable `records` field, keeping its absolute offset.
    ///
    /// # Errors
    ///
    /// As [`Reader::nullable_bytes`].
    #[inline]
    #[doc(hidden)]
    pub fn nullable_records(
        &mut self,
        flexible: bool,
        path: &'static str,
    ) -> Result<Option<super::Records<'a>>, Failed> {
        match self.nullable_len(flexible, false, path)? {
            Some(n) => {
                let at = self.offset();
                self.take(n, path)
                    .map(|b| Some(super::Records::with_offset(b, at)))
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
    #[doc(hidden)]
    pub fn skip(&mut self, n: usize, path: &'static str) -> Result<(), Failed> {
        self.take(n, path).map(|_| ())
    }

    /// Skips a tagged-field section: its count, then each entry's tag, size and payload.
    ///
    /// # Errors
    ///
    /// Varint and truncation errors.
    #[inline(always)]
    #[doc(hidden)]
    pub fn skip_tagged_section(&mut self, path: &'static str) -> Result<(), Failed> {
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
    #[cfg_attr(feature = "perf", inline(always))]
    #[cfg_attr(not(feature = "perf"), inline(never))]
    #[doc(hidden)]
    pub fn array_len(&mut self, flexible: bool, path: &'static str) -> Result<usize, Failed> {
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
    #[doc(hidden)]
    pub fn nullable_array_len(
        &mut self,
        flexible: bool,
        path: &'static str,
    ) -> Result<Option<usize>, Failed> {
        match self.nullable_len(flexible, false, path)? {
            Some(n) => {
                self.check_count(n, path)?;
                Ok(Some(n))
            }
            None => Ok(None),
        }
    }

    #[inline]
    fn check_count(&mut self, n: usize, path: &'static str) -> Result<(), Failed> {
        if n > self.rest.len() {
            return Err(self.fail_truncated(n, path));
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
    #[doc(hidden)]
    pub fn struct_marker(&mut self, path: &'static str) -> Result<bool, Failed> {
        self.i8(path).map(|m| m >= 0)
    }
}

/// Reads a length in its common encoding (a compact length of up to three bytes, or one byte
/// without the `perf` feature; a non-negative `int16` or `int32`) off the front of `rest`;
/// returns `None`, consuming nothing, for anything else. The inline half of every length read
/// of the [`FastReader`](super::FastReader), and of the [`Reader`] with the `perf` feature.
#[inline(always)]
pub(super) fn fast_len(rest: &mut &[u8], flexible: bool, short: bool) -> Option<usize> {
    let (n, tail) = if flexible {
        // A varint of one to three bytes holding N+1 with N >= 0 (lengths below 2 MiB).
        match rest.split_first() {
            // 1..=0x7f: one byte.
            Some((&b, tail)) if b.wrapping_sub(1) < 0x7f => (usize::from(b.wrapping_sub(1)), tail),
            // Small builds read the longer forms out of line.
            Some((&b0, tail)) if cfg!(feature = "perf") && b0 & 0x80 != 0 => {
                let low = usize::from(b0 & 0x7f);
                let (&b1, tail) = tail.split_first()?;
                if b1 & 0x80 == 0 {
                    ((low | usize::from(b1) << 7).checked_sub(1)?, tail)
                } else {
                    let (&b2, tail) = tail.split_first()?;
                    if b2 & 0x80 != 0 {
                        return None;
                    }
                    let v = low | usize::from(b1 & 0x7f) << 7 | usize::from(b2) << 14;
                    (v.checked_sub(1)?, tail)
                }
            }
            _ => return None,
        }
    } else if short {
        let (head, tail) = rest.split_first_chunk::<2>()?;
        (usize::try_from(i16::from_be_bytes(*head)).ok()?, tail)
    } else {
        let (head, tail) = rest.split_first_chunk::<4>()?;
        (usize::try_from(i32::from_be_bytes(*head)).ok()?, tail)
    };
    *rest = tail;
    Some(n)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fixed_width() {
        let bytes = [0x01, 0xff, 0x12, 0x34, 0x80, 0, 0, 1];
        let mut r = Reader::new(&bytes);
        assert!(r.decode_with(|r| r.bool("x")).unwrap());
        assert_eq!(r.decode_with(|r| r.i8("x")).unwrap(), -1);
        assert_eq!(r.decode_with(|r| r.i16("x")).unwrap(), 0x1234);
        assert_eq!(r.offset(), 4);
        assert_eq!(r.decode_with(|r| r.i32("x")).unwrap(), i32::MIN + 1);
        assert_eq!(
            r.decode_with(|r| r.i8("x.y")),
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
            r.decode_with(|r| r.i64("f")),
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
        assert_eq!(
            r.decode_with(|r| r.nullable_string(false, "s")).unwrap(),
            None
        );
        assert_eq!(r.decode_with(|r| r.string(false, "s")).unwrap(), "a");
        assert_eq!(
            r.decode_with(|r| r.nullable_string(true, "s")).unwrap(),
            None
        );
        assert_eq!(r.decode_with(|r| r.string(true, "s")).unwrap(), "abc");
        let mut r = Reader::new(&[0x00]);
        assert_eq!(
            r.decode_with(|r| r.string(true, "s")),
            Err(DecodeError::new(0, DecodeErrorKind::UnexpectedNull, "s"))
        );
        let mut r = Reader::new(&[0xff, 0xfe]);
        assert_eq!(
            r.decode_with(|r| r.string(false, "s")),
            Err(DecodeError::new(
                0,
                DecodeErrorKind::NegativeLength(-2),
                "s"
            ))
        );
        // Not UTF-8: read as it is, and refused by a reader checking UTF-8.
        let bad = [0x00, 0x02, 0xc3, 0x28];
        let s = Reader::new(&bad)
            .decode_with(|r| r.string(false, "s"))
            .unwrap();
        assert_eq!((s.as_bytes(), s.to_str().is_err()), (&bad[2..], true));
        let mut r = Reader::new(&bad).checking_utf8();
        assert_eq!(
            r.decode_with(|r| r.string(false, "s")),
            Err(DecodeError::new(2, DecodeErrorKind::InvalidUtf8, "s"))
        );
        let mut r = Reader::new(&[0x03, 0xc3, 0xa9]).checking_utf8();
        assert_eq!(
            r.decode_with(|r| r.nullable_string(true, "s")),
            Ok(Some(Str::new("é")))
        );
    }

    #[test]
    fn huge_counts_fail_before_looping() {
        let mut r = Reader::new(&[0x7f, 0xff, 0xff, 0xff, 0x00]);
        assert_eq!(
            r.decode_with(|r| r.array_len(false, "a")),
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
