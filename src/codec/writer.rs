//! [`Writer`]: the only code that writes output bytes, and the size functions that mirror it.

use crate::error::EncodeError;

use super::{LengthPrefix, MAX_STRING_LEN, Records, Str, Uuid};

/// A cursor over a caller's output buffer.
///
/// Writes never fail and never panic. A write that does not fit is not performed; the writer
/// still advances its position and remembers that it overflowed. That makes a writer over an
/// empty buffer a byte counter, and lets an encoder write in one pass and learn at the end how
/// many bytes the encoding needs; one that found a value it cannot encode
/// [refuses](Writer::refuse) the output instead of stopping.
///
/// The writer holds the unwritten rest of the buffer, so a write that fits is one length
/// comparison, the store, and the slice moving on; the bookkeeping of an overflow is out of line.
#[derive(Debug)]
#[doc(hidden)]
pub struct Writer<'b> {
    /// The part of the buffer not written yet (empty once a write overflowed).
    rest: &'b mut [u8],
    /// Length of the caller's buffer.
    capacity: usize,
    /// Bytes counted but not written because they did not fit; nonzero once overflowed.
    lost: usize,
}

impl<'b> Writer<'b> {
    /// A writer at the start of `buf`.
    #[must_use]
    pub const fn new(buf: &'b mut [u8]) -> Self {
        let capacity = buf.len();
        Self {
            rest: buf,
            capacity,
            lost: 0,
        }
    }

    /// Fails with `BufferTooSmall` unless `required` more bytes fit after the current position.
    ///
    /// # Errors
    ///
    /// `BufferTooSmall { required, available }`.
    pub fn check_capacity(&self, required: usize) -> Result<(), EncodeError> {
        let available = self.rest.len();
        if required > available {
            Err(EncodeError::BufferTooSmall {
                required,
                available,
            })
        } else {
            Ok(())
        }
    }

    /// Moves this writer out, leaving a writer over no bytes in its place, for the caller to
    /// move back (`*w = moved`) when done. A loop that writes through a writer behind a
    /// reference loads and stores the writer around every write; through a local, the
    /// compiler keeps it in registers.
    #[cfg(feature = "perf")]
    #[inline(always)]
    pub(crate) fn move_out(&mut self) -> Self {
        Self {
            rest: core::mem::take(&mut self.rest),
            capacity: self.capacity,
            lost: self.lost,
        }
    }

    /// Runs `write`, a rare path kept out of line. With `perf` the writer goes out and comes
    /// back by value ([`Writer::move_out`]), so that the caller's writer never has its address
    /// taken and can stay in registers; without it, `write` runs on this writer.
    #[inline(always)]
    pub(crate) fn out_of_line(&mut self, write: impl FnOnce(&mut Self)) {
        #[cfg(feature = "perf")]
        {
            *self = write_moved(self.move_out(), write);
        }
        #[cfg(not(feature = "perf"))]
        write(self);
    }

    /// Bytes written (or, after an overflow, that would have been written).
    #[must_use]
    pub const fn position(&self) -> usize {
        self.capacity
            .wrapping_sub(self.rest.len())
            .saturating_add(self.lost)
    }

    /// True if some write did not fit, or the writer was [refused](Writer::refused).
    #[must_use]
    pub const fn overflowed(&self) -> bool {
        self.lost != 0
    }

    /// True if an encoder found a value its version cannot carry (a null where the field is not
    /// nullable, a string longer than its prefix can say, a field the version lacks): what was
    /// written is not an encoding, and [`Writer::position`] means nothing. The error that says
    /// which value is [`Encode::encoded_len`](super::Encode::encoded_len)'s: encoders check in
    /// one pass and name the fault only when there is one.
    #[must_use]
    pub const fn refused(&self) -> bool {
        self.lost == REFUSED
    }

    /// Marks the output as no encoding (see [`Writer::refused`]); later writes are not performed.
    /// Inline with `perf`, as the overflow bookkeeping is and for the same reason.
    #[cfg_attr(feature = "perf", inline(always))]
    #[cfg_attr(not(feature = "perf"), inline(never))]
    pub fn refuse(&mut self) {
        cold_path();
        self.lost = REFUSED;
        self.rest = &mut [];
    }

    /// Records a write that did not fit: `missing` bytes more than the buffer had left. The rest
    /// of the buffer is given up, so nothing is written after the gap.
    ///
    /// Inline with `perf`, with only the hint out of line: a call that took the writer would
    /// make every loop that writes keep the writer in memory rather than in registers. Small
    /// builds keep one out-of-line copy.
    #[cfg_attr(feature = "perf", inline(always))]
    #[cfg_attr(not(feature = "perf"), inline(never))]
    fn overflow(&mut self, missing: usize) {
        cold_path();
        // Saturating, so that a refused writer stays refused.
        self.lost = self.lost.saturating_add(missing);
        self.rest = &mut [];
    }

    /// The next `n` bytes of the buffer, consumed, or `None` (the overflow recorded) when fewer
    /// are left.
    #[inline(always)]
    pub(crate) fn reserve(&mut self, n: usize) -> Option<&'b mut [u8]> {
        let left = self.rest.len();
        if n > left {
            self.overflow(n.wrapping_sub(left));
            return None;
        }
        // The length was checked first, so that taking the rest is only a move the compiler can
        // see through: it writes the placeholder only to overwrite it.
        let (dst, tail) = core::mem::take(&mut self.rest).split_at_mut_checked(n)?;
        self.rest = tail;
        Some(dst)
    }

    /// A writer over the next `n` bytes, consumed, or `None` (the overflow recorded) when fewer
    /// are left. Generated encoders write runs of fixed-width fields through one, so that the
    /// run costs one length check.
    #[cfg_attr(feature = "perf", inline(always))]
    #[cfg_attr(not(feature = "perf"), inline(never))]
    pub(crate) fn sub(&mut self, n: usize) -> Option<Self> {
        self.reserve(n).map(Writer::new)
    }

    /// Writes `bytes`.
    #[cfg_attr(feature = "perf", inline)]
    #[cfg_attr(not(feature = "perf"), inline(never))]
    pub fn put(&mut self, bytes: &[u8]) {
        if let Some(dst) = self.reserve(bytes.len()) {
            #[cfg(feature = "perf")]
            dst.copy_from_slice(bytes);
            #[cfg(not(feature = "perf"))]
            copy_plain(dst, bytes);
        }
    }

    #[cfg_attr(feature = "perf", inline(always))]
    #[cfg_attr(not(feature = "perf"), inline(never))]
    fn put_array<const N: usize>(&mut self, bytes: [u8; N]) {
        let left = self.rest.len();
        if N > left {
            self.overflow(N.wrapping_sub(left));
            return;
        }
        if let Some((dst, tail)) = core::mem::take(&mut self.rest).split_first_chunk_mut::<N>() {
            *dst = bytes;
            self.rest = tail;
        }
    }

    /// Writes a `bool` as `0x00` or `0x01`.
    #[inline]
    pub fn bool(&mut self, v: bool) {
        self.put_array([u8::from(v)]);
    }

    /// Writes one byte.
    #[inline]
    pub fn u8(&mut self, v: u8) {
        self.put_array([v]);
    }

    /// Writes an `int8`.
    #[inline]
    pub fn i8(&mut self, v: i8) {
        self.put_array(v.to_be_bytes());
    }

    /// Writes a big-endian `int16`.
    #[inline]
    pub fn i16(&mut self, v: i16) {
        self.put_array(v.to_be_bytes());
    }

    /// Writes a big-endian `uint16`.
    #[inline]
    pub fn u16(&mut self, v: u16) {
        self.put_array(v.to_be_bytes());
    }

    /// Writes a big-endian `int32`.
    #[inline]
    pub fn i32(&mut self, v: i32) {
        self.put_array(v.to_be_bytes());
    }

    /// Writes a big-endian `uint32`.
    #[inline]
    pub fn u32(&mut self, v: u32) {
        self.put_array(v.to_be_bytes());
    }

    /// Writes a big-endian `int64`.
    #[inline]
    pub fn i64(&mut self, v: i64) {
        self.put_array(v.to_be_bytes());
    }

    /// Writes a big-endian IEEE-754 `float64`.
    #[inline]
    pub fn f64(&mut self, v: f64) {
        self.put_array(v.to_be_bytes());
    }

    /// Writes a UUID's 16 bytes.
    #[inline]
    pub fn uuid(&mut self, v: Uuid) {
        self.put_array(v.0);
    }

    /// Writes an unsigned varint in its minimal form.
    #[cfg_attr(feature = "perf", inline(always))]
    #[cfg_attr(not(feature = "perf"), inline(never))]
    pub fn uvarint(&mut self, v: u32) {
        let [b0, b1, ..] = v.to_le_bytes();
        if v < 0x80 {
            self.put_array([b0]);
        } else if cfg!(feature = "perf") && v < 0x4000 {
            // Two bytes inline with `perf`: compact lengths of bytes and records fields, and the
            // lengths of record keys and values.
            self.put_array([b0 | 0x80, (b0 >> 7) | (b1 << 1)]);
        } else {
            self.uvarint_long(v);
        }
    }

    /// The multi-byte path of [`Writer::uvarint`], out of line (see [`Writer::out_of_line`]) so
    /// that the one-byte case inlines.
    #[inline(always)]
    fn uvarint_long(&mut self, v: u32) {
        self.out_of_line(|w| w.uvarint_long_in_place(v));
    }

    /// Writes a varint of two bytes or more.
    #[cfg_attr(feature = "perf", inline(always))]
    #[cfg_attr(not(feature = "perf"), inline(never))]
    fn uvarint_long_in_place(&mut self, v: u32) {
        let mut buf = [0u8; 5];
        let mut v = v;
        let mut n: usize = 0;
        for slot in &mut buf {
            let low = v.to_le_bytes()[0] & 0x7f;
            v >>= 7;
            n = n.wrapping_add(1);
            if v == 0 {
                *slot = low;
                break;
            }
            *slot = low | 0x80;
        }
        self.put(buf.get(..n).unwrap_or(&[]));
    }

    /// Writes a zig-zag varint in its minimal form.
    #[inline]
    pub fn varint(&mut self, v: i32) {
        self.uvarint(((v << 1) ^ (v >> 31)).cast_unsigned());
    }

    /// Writes a zig-zag varlong in its minimal form.
    #[inline]
    pub fn varlong(&mut self, v: i64) {
        let u = ((v << 1) ^ (v >> 63)).cast_unsigned();
        // With `perf`, timestamp deltas within a batch (mostly one or two bytes) take the
        // varint's inline cases.
        if cfg!(feature = "perf")
            && let Ok(small) = u32::try_from(u)
            && small < 0x4000
        {
            self.uvarint(small);
            return;
        }
        self.out_of_line(|w| w.uvarlong_in_place(u));
    }

    /// Writes an unsigned varlong of any length.
    #[cfg_attr(feature = "perf", inline(always))]
    #[cfg_attr(not(feature = "perf"), inline(never))]
    fn uvarlong_in_place(&mut self, u: u64) {
        let mut u = u;
        let mut buf = [0u8; 10];
        let mut n: usize = 0;
        for slot in &mut buf {
            let low = u.to_le_bytes()[0] & 0x7f;
            u >>= 7;
            n = n.wrapping_add(1);
            if u == 0 {
                *slot = low;
                break;
            }
            *slot = low | 0x80;
        }
        self.put(buf.get(..n).unwrap_or(&[]));
    }

    /// Writes a length prefix for a non-null value of `len` bytes or elements: compact N+1,
    /// `int16` (classic strings) or `int32`. A length over the prefix's
    /// [limit](LengthPrefix::limit) [refuses](Writer::refuse) the output.
    #[inline(always)]
    pub fn len(&mut self, len: usize, prefix: LengthPrefix) {
        if len > prefix.limit() {
            self.refuse();
        } else if prefix.is_compact() {
            let n = u32::try_from(len).unwrap_or(u32::MAX).saturating_add(1);
            let [b0, b1, b2, _] = n.to_le_bytes();
            match n {
                // Three bytes inline with `perf`, for bytes and records fields (which are often
                // that long); strings, rarely over 16 KiB, stay small.
                0x4000..0x20_0000 if cfg!(feature = "perf") && prefix == LengthPrefix::Compact => {
                    self.put_array([
                        b0 | 0x80,
                        (b0 >> 7) | (b1 << 1) | 0x80,
                        (b1 >> 6) | (b2 << 2),
                    ]);
                }
                _ => self.uvarint(n),
            }
        } else if prefix == LengthPrefix::Int16 {
            self.i16(i16::try_from(len).unwrap_or(i16::MAX));
        } else {
            self.i32(i32::try_from(len).unwrap_or(i32::MAX));
        }
    }

    /// Writes the null length: compact `0`, or `-1` as `int16`/`int32`.
    #[inline]
    pub fn null_len(&mut self, prefix: LengthPrefix) {
        match prefix {
            LengthPrefix::CompactString | LengthPrefix::Compact => self.u8(0),
            LengthPrefix::Int16 => self.i16(-1),
            LengthPrefix::Int32 => self.i32(-1),
        }
    }

    /// Writes a string with its length prefix.
    #[cfg_attr(feature = "perf", inline)]
    #[cfg_attr(not(feature = "perf"), inline(never))]
    pub fn string(&mut self, v: Str<'_>, flexible: bool) {
        self.len(v.len(), LengthPrefix::string(flexible));
        self.put(v.as_bytes());
    }

    /// Writes a nullable string.
    #[inline]
    pub fn nullable_string(&mut self, v: Option<Str<'_>>, flexible: bool) {
        match v {
            Some(s) => self.string(s, flexible),
            None => self.null_len(LengthPrefix::string(flexible)),
        }
    }

    /// Writes bytes with their length prefix.
    #[inline(always)]
    pub fn bytes(&mut self, v: &[u8], flexible: bool) {
        self.len(v.len(), LengthPrefix::bytes(flexible));
        self.put(v);
    }

    /// Writes nullable bytes.
    #[inline(always)]
    pub fn nullable_bytes(&mut self, v: Option<&[u8]>, flexible: bool) {
        match v {
            Some(b) => self.bytes(b, flexible),
            None => self.null_len(LengthPrefix::bytes(flexible)),
        }
    }

    /// Writes a `records` field with its length prefix: its bytes, or with the `in-place`
    /// feature what its source writes in place (`Records::in_place`), straight into the output:
    /// the length the source announces (`WriteRecords::encoded_len`), then its write into
    /// exactly that many bytes. A source whose length is an error [refuses](Writer::refuse) the
    /// output, and so does one that writes other than it announced, which no sizing finds: its
    /// encode fails with [`EncodeError::RecordsMiswritten`].
    #[inline(always)]
    pub fn records(&mut self, v: Records<'_>, flexible: bool) {
        #[cfg(feature = "in-place")]
        match v.read_bytes() {
            Some(bytes) => self.bytes(bytes, flexible),
            None => {
                cold_path();
                self.out_of_line(move |w| w.records_not_read(Some(v), flexible));
            }
        }
        #[cfg(not(feature = "in-place"))]
        self.bytes(v.as_bytes(), flexible);
    }

    /// Writes a nullable `records` field (see [`Writer::records`]).
    #[inline(always)]
    pub fn nullable_records(&mut self, v: Option<Records<'_>>, flexible: bool) {
        // Bytes, the common case, in one test; null and a source out of line.
        #[cfg(feature = "in-place")]
        match v.and_then(|r| r.read_bytes()) {
            Some(bytes) => self.bytes(bytes, flexible),
            None => {
                cold_path();
                self.out_of_line(move |w| w.records_not_read(v, flexible));
            }
        }
        #[cfg(not(feature = "in-place"))]
        self.nullable_bytes(v.map(|r| r.as_bytes()), flexible);
    }

    /// A `records` field that is null, or written in place by its source: the length the source
    /// announces, then its write into exactly that many bytes of the output, checked.
    #[cfg(feature = "in-place")]
    #[inline(never)]
    fn records_not_read(&mut self, v: Option<Records<'_>>, flexible: bool) {
        let Some(r) = v else {
            self.null_len(LengthPrefix::bytes(flexible));
            return;
        };
        let Some(source) = r.source() else {
            self.bytes(r.as_bytes(), flexible);
            return;
        };
        let Ok(len) = source.encoded_len() else {
            // The sizing names the error.
            self.refuse();
            return;
        };
        self.len(len, LengthPrefix::bytes(flexible));
        if let Some(dst) = self.reserve(len)
            && source.write(dst) != Ok(len)
        {
            // No sizing finds this refusal: the encode reports `RecordsMiswritten`.
            self.refuse();
        }
    }
}

/// [`Writer::lost`] of a refused writer: more than any count of bytes that did not fit.
const REFUSED: usize = usize::MAX;

/// Marks the path that calls it as unlikely, for the compiler's block layout.
#[cold]
#[inline(never)]
const fn cold_path() {}

/// `write` on a writer passed in and returned by value, out of line: [`Writer::out_of_line`].
#[cfg(feature = "perf")]
#[inline(never)]
fn write_moved<'b>(mut w: Writer<'b>, write: impl FnOnce(&mut Writer<'b>)) -> Writer<'b> {
    write(&mut w);
    w
}

/// Bytes in the minimal unsigned varint encoding of `v`.
#[cfg_attr(feature = "perf", inline)]
#[cfg_attr(not(feature = "perf"), inline(never))]
#[must_use]
#[doc(hidden)]
pub const fn uvarint_len(v: u32) -> usize {
    match v {
        0..0x80 => 1,
        0x80..0x4000 => 2,
        0x4000..0x20_0000 => 3,
        0x20_0000..0x1000_0000 => 4,
        _ => 5,
    }
}

/// Bytes in the minimal zig-zag varint encoding of `v`.
#[inline]
#[must_use]
#[doc(hidden)]
pub const fn varint_len(v: i32) -> usize {
    uvarint_len(((v << 1) ^ (v >> 31)).cast_unsigned())
}

/// Bytes in the minimal zig-zag varlong encoding of `v`.
#[inline]
#[must_use]
#[doc(hidden)]
pub const fn varlong_len(v: i64) -> usize {
    let u = ((v << 1) ^ (v >> 63)).cast_unsigned();
    match 64u32.saturating_sub(u.leading_zeros()) {
        0..=7 => 1,
        8..=14 => 2,
        15..=21 => 3,
        22..=28 => 4,
        29..=35 => 5,
        36..=42 => 6,
        43..=49 => 7,
        50..=56 => 8,
        57..=63 => 9,
        _ => 10,
    }
}

/// Bytes in a length prefix for `len`, checking that it fits (`LengthOverflow` otherwise).
///
/// # Errors
///
/// `LengthOverflow` when `len` is over the prefix's [`LengthPrefix::limit`].
#[inline]
#[doc(hidden)]
pub fn len_prefix(
    len: usize,
    prefix: LengthPrefix,
    path: &'static str,
) -> Result<usize, EncodeError> {
    prefix_len(
        len,
        prefix.is_compact(),
        matches!(prefix, LengthPrefix::Int16 | LengthPrefix::CompactString),
        path,
    )
}

/// [`len_prefix`] with the prefix given as the two facts that choose it, for the crate's own
/// sizing code: each caller's `string` is a constant, so only `compact` (the version's
/// flexibility) is tested. Through the enum, the sizing code linked into firmware was larger.
#[inline]
pub(crate) fn prefix_len(
    len: usize,
    compact: bool,
    string: bool,
    path: &'static str,
) -> Result<usize, EncodeError> {
    let limit = if string { MAX_STRING_LEN } else { 0x7fff_fffe };
    if len > limit {
        return Err(EncodeError::LengthOverflow { path, length: len });
    }
    Ok(if compact {
        uvarint_len(u32::try_from(len).unwrap_or(u32::MAX).saturating_add(1))
    } else if string {
        2
    } else {
        4
    })
}

/// Encoded size of a string with its prefix.
///
/// # Errors
///
/// `LengthOverflow` over 32767 bytes.
#[inline]
#[doc(hidden)]
pub fn string_len(v: Str<'_>, flexible: bool, path: &'static str) -> Result<usize, EncodeError> {
    Ok(prefix_len(v.len(), flexible, true, path)?.saturating_add(v.len()))
}

/// Encoded size of a nullable string.
///
/// # Errors
///
/// `LengthOverflow` over 32767 bytes.
#[inline]
#[doc(hidden)]
pub fn nullable_string_len(
    v: Option<Str<'_>>,
    flexible: bool,
    path: &'static str,
) -> Result<usize, EncodeError> {
    match v {
        Some(s) => string_len(s, flexible, path),
        None => Ok(LengthPrefix::string(flexible).null_len()),
    }
}

/// Encoded size of bytes with their prefix.
///
/// # Errors
///
/// `LengthOverflow` past `i32::MAX - 1`.
#[inline]
#[doc(hidden)]
pub fn bytes_len(v: &[u8], flexible: bool, path: &'static str) -> Result<usize, EncodeError> {
    Ok(prefix_len(v.len(), flexible, false, path)?.saturating_add(v.len()))
}

/// Encoded size of nullable bytes.
///
/// # Errors
///
/// `LengthOverflow` past `i32::MAX - 1`.
#[inline]
#[doc(hidden)]
pub fn nullable_bytes_len(
    v: Option<&[u8]>,
    flexible: bool,
    path: &'static str,
) -> Result<usize, EncodeError> {
    match v {
        Some(b) => bytes_len(b, flexible, path),
        None => Ok(LengthPrefix::bytes(flexible).null_len()),
    }
}

/// Encoded size of a `records` field with its prefix: of its bytes, or with the `in-place`
/// feature of what its source writes in place (`WriteRecords::encoded_len`).
///
/// # Errors
///
/// `LengthOverflow` past `i32::MAX - 1`; the source's error.
#[inline]
#[doc(hidden)]
pub fn records_len(
    v: Records<'_>,
    flexible: bool,
    path: &'static str,
) -> Result<usize, EncodeError> {
    #[cfg(feature = "in-place")]
    let len = match v.source() {
        None => v.len(),
        Some(source) => source.encoded_len()?,
    };
    #[cfg(not(feature = "in-place"))]
    let len = v.len();
    Ok(prefix_len(len, flexible, false, path)?.saturating_add(len))
}

/// Encoded size of a nullable `records` field (see [`records_len`]).
///
/// # Errors
///
/// As [`records_len`].
#[inline]
#[doc(hidden)]
pub fn nullable_records_len(
    v: Option<Records<'_>>,
    flexible: bool,
    path: &'static str,
) -> Result<usize, EncodeError> {
    match v {
        Some(r) => records_len(r, flexible, path),
        None => Ok(LengthPrefix::bytes(flexible).null_len()),
    }
}

/// The plain build's copy of `src` into the front of `dst` (a `memcpy` at opt-level "s", a byte
/// loop at "z"), without `copy_from_slice`'s length check, which a size-optimized build keeps out
/// of line, and with it a panic path that [`Writer::put`]'s lengths, equal by construction, never
/// take.
#[cfg(any(test, not(feature = "perf")))]
#[inline]
fn copy_plain(dst: &mut [u8], src: &[u8]) {
    for (d, s) in dst.iter_mut().zip(src) {
        *d = *s;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::codec::Reader;

    fn uv(v: u32) -> ([u8; 8], usize) {
        let mut buf = [0u8; 8];
        let mut w = Writer::new(&mut buf);
        w.uvarint(v);
        let n = w.position();
        (buf, n)
    }

    #[test]
    fn uvarint_vectors() {
        for (v, bytes) in [
            (0u32, &[0x00][..]),
            (127, &[0x7f]),
            (128, &[0x80, 0x01]),
            (8192, &[0x80, 0x40]),
            (0x7fff_ffff, &[0xff, 0xff, 0xff, 0xff, 0x07]),
            (u32::MAX, &[0xff, 0xff, 0xff, 0xff, 0x0f]),
        ] {
            let (buf, n) = uv(v);
            assert_eq!(&buf[..n], bytes, "{v}");
            assert_eq!(uvarint_len(v), n);
            assert_eq!(Reader::new(bytes).uvarint("x").unwrap(), v);
        }
    }

    #[test]
    fn overflow_is_counted_not_written() {
        let mut buf = [0xa5u8; 3];
        let mut w = Writer::new(&mut buf);
        w.i16(1);
        w.i32(2);
        assert!(w.overflowed());
        assert_eq!(w.position(), 6);
        assert_eq!(buf, [0, 1, 0xa5]);
    }

    #[test]
    fn nothing_lands_after_an_overflow() {
        let mut buf = [0xa5u8; 6];
        let mut w = Writer::new(&mut buf);
        w.i16(0x0102);
        w.i64(3);
        // Fits in the four bytes left, but the gap before it was skipped.
        w.u8(4);
        assert!(w.overflowed());
        assert_eq!(w.position(), 11);
        assert_eq!(
            w.check_capacity(1).unwrap_err(),
            EncodeError::BufferTooSmall {
                required: 1,
                available: 0
            }
        );
        assert_eq!(buf, [1, 2, 0xa5, 0xa5, 0xa5, 0xa5]);
    }

    #[test]
    fn sub_writers_take_their_run_or_nothing() {
        let mut buf = [0u8; 7];
        let mut w = Writer::new(&mut buf);
        if let Some(mut run) = w.sub(6) {
            run.i16(0x0102);
            run.i32(0x0304_0506);
            assert_eq!(run.position(), 6);
            assert!(!run.overflowed());
        }
        assert_eq!(w.position(), 6);
        assert!(w.sub(2).is_none());
        assert!(w.overflowed());
        assert_eq!(w.position(), 8);
        assert_eq!(buf, [1, 2, 3, 4, 5, 6, 0]);
    }

    #[test]
    fn compact_lengths_at_the_one_byte_edge() {
        for (len, bytes) in [
            (0usize, &[0x01][..]),
            (0x7e, &[0x7f]),
            (0x7f, &[0x80, 0x01]),
            (0xff, &[0x80, 0x02]),
        ] {
            let mut buf = [0u8; 8];
            let mut w = Writer::new(&mut buf);
            w.len(len, LengthPrefix::Compact);
            let n = w.position();
            assert_eq!(&buf[..n], bytes, "{len}");
            assert_eq!(len_prefix(len, LengthPrefix::Compact, "x").unwrap(), n);
        }
    }

    #[test]
    fn varlong_lengths() {
        assert_eq!(varlong_len(0), 1);
        assert_eq!(varlong_len(-1), 1);
        assert_eq!(varlong_len(63), 1);
        assert_eq!(varlong_len(64), 2);
        assert_eq!(varlong_len(i64::MAX), 10);
        assert_eq!(varlong_len(i64::MIN), 10);
    }

    /// The plain build's copy writes what the `perf` build's `copy_from_slice` writes.
    #[test]
    fn plain_copy_agrees_with_copy_from_slice() {
        let src: [u8; 300] = core::array::from_fn(|i| (i as u8).wrapping_mul(29));
        for len in 0..300 {
            let (mut plain, mut fast) = ([0xEEu8; 301], [0xEEu8; 301]);
            copy_plain(&mut plain[..len], &src[..len]);
            fast[..len].copy_from_slice(&src[..len]);
            assert_eq!(plain, fast, "len {len}");
        }
    }
}
