//! [`Writer`]: the only code that writes output bytes, and the size functions that mirror it.

use crate::error::EncodeError;

use super::{MAX_STRING_LEN, Uuid};

/// A cursor over a caller's output buffer.
///
/// Writes never fail and never panic. A write that does not fit is not performed; the writer
/// still advances its position and remembers that it overflowed. That makes a writer over an
/// empty buffer a byte counter, and lets encoders check capacity once, up front
/// ([`Writer::check_capacity`]), and then write without a branch on every call.
#[derive(Debug)]
pub struct Writer<'b> {
    buf: &'b mut [u8],
    pos: usize,
    overflowed: bool,
}

impl<'b> Writer<'b> {
    /// A writer at the start of `buf`.
    #[must_use]
    pub const fn new(buf: &'b mut [u8]) -> Self {
        Self {
            buf,
            pos: 0,
            overflowed: false,
        }
    }

    /// Fails with `BufferTooSmall` unless `required` more bytes fit after the current position.
    ///
    /// # Errors
    ///
    /// `BufferTooSmall { required, available }`.
    pub fn check_capacity(&self, required: usize) -> Result<(), EncodeError> {
        let available = self.buf.len().saturating_sub(self.pos);
        if required > available {
            Err(EncodeError::BufferTooSmall {
                required,
                available,
            })
        } else {
            Ok(())
        }
    }

    /// Bytes written (or, after an overflow, that would have been written).
    #[must_use]
    pub const fn position(&self) -> usize {
        self.pos
    }

    /// True if some write did not fit.
    #[must_use]
    pub const fn overflowed(&self) -> bool {
        self.overflowed
    }

    /// Writes `bytes`.
    #[inline]
    pub fn put(&mut self, bytes: &[u8]) {
        let n = bytes.len();
        match self
            .buf
            .get_mut(self.pos..)
            .and_then(|rest| rest.get_mut(..n))
        {
            Some(dst) => dst.copy_from_slice(bytes),
            None => self.overflowed = true,
        }
        self.pos = self.pos.saturating_add(n);
    }

    #[inline(always)]
    fn put_array<const N: usize>(&mut self, bytes: [u8; N]) {
        match self
            .buf
            .get_mut(self.pos..)
            .and_then(|rest| rest.first_chunk_mut::<N>())
        {
            Some(dst) => *dst = bytes,
            None => self.overflowed = true,
        }
        self.pos = self.pos.saturating_add(N);
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
    #[inline(always)]
    pub fn uvarint(&mut self, v: u32) {
        if v < 0x80 {
            // Lossless: v < 0x80.
            self.put_array([v.to_le_bytes()[0]]);
        } else {
            self.uvarint_long(v);
        }
    }

    /// The multi-byte path of [`Writer::uvarint`], out of line so that the one-byte case inlines.
    #[inline(never)]
    fn uvarint_long(&mut self, v: u32) {
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
        let mut u = ((v << 1) ^ (v >> 63)).cast_unsigned();
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
    /// `int16` (classic strings) or `int32`. Lengths were checked by the size pass; a length that
    /// does not fit its prefix is clamped (and would have been refused there).
    #[inline(always)]
    pub fn len(&mut self, len: usize, flexible: bool, short: bool) {
        if flexible {
            self.uvarint(u32::try_from(len).unwrap_or(u32::MAX).saturating_add(1));
        } else if short {
            self.i16(i16::try_from(len).unwrap_or(i16::MAX));
        } else {
            self.i32(i32::try_from(len).unwrap_or(i32::MAX));
        }
    }

    /// Writes the null length: compact `0`, or `-1` as `int16`/`int32`.
    #[inline]
    pub fn null_len(&mut self, flexible: bool, short: bool) {
        if flexible {
            self.u8(0);
        } else if short {
            self.i16(-1);
        } else {
            self.i32(-1);
        }
    }

    /// Writes a string with its length prefix.
    #[inline]
    pub fn string(&mut self, v: &str, flexible: bool) {
        self.len(v.len(), flexible, true);
        self.put(v.as_bytes());
    }

    /// Writes a nullable string.
    #[inline]
    pub fn nullable_string(&mut self, v: Option<&str>, flexible: bool) {
        match v {
            Some(s) => self.string(s, flexible),
            None => self.null_len(flexible, true),
        }
    }

    /// Writes bytes with their length prefix.
    #[inline]
    pub fn bytes(&mut self, v: &[u8], flexible: bool) {
        self.len(v.len(), flexible, false);
        self.put(v);
    }

    /// Writes nullable bytes.
    #[inline]
    pub fn nullable_bytes(&mut self, v: Option<&[u8]>, flexible: bool) {
        match v {
            Some(b) => self.bytes(b, flexible),
            None => self.null_len(flexible, false),
        }
    }
}

/// Bytes in the minimal unsigned varint encoding of `v`.
#[inline]
#[must_use]
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
pub const fn varint_len(v: i32) -> usize {
    uvarint_len(((v << 1) ^ (v >> 31)).cast_unsigned())
}

/// Bytes in the minimal zig-zag varlong encoding of `v`.
#[inline]
#[must_use]
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
/// `LengthOverflow` when `len` does not fit the prefix (`int16` for classic strings, 32767 for
/// every string, `int32` otherwise).
#[inline]
pub fn len_prefix(
    len: usize,
    flexible: bool,
    short: bool,
    path: &'static str,
) -> Result<usize, EncodeError> {
    let limit = if short { MAX_STRING_LEN } else { 0x7fff_fffe };
    if len > limit {
        return Err(EncodeError::LengthOverflow { path, length: len });
    }
    Ok(if flexible {
        uvarint_len(u32::try_from(len).unwrap_or(u32::MAX).saturating_add(1))
    } else if short {
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
pub fn string_len(v: &str, flexible: bool, path: &'static str) -> Result<usize, EncodeError> {
    Ok(len_prefix(v.len(), flexible, true, path)?.saturating_add(v.len()))
}

/// Encoded size of a nullable string.
///
/// # Errors
///
/// `LengthOverflow` over 32767 bytes.
#[inline]
pub fn nullable_string_len(
    v: Option<&str>,
    flexible: bool,
    path: &'static str,
) -> Result<usize, EncodeError> {
    match v {
        Some(s) => string_len(s, flexible, path),
        None => Ok(null_len(flexible, true)),
    }
}

/// Encoded size of bytes with their prefix.
///
/// # Errors
///
/// `LengthOverflow` past `i32::MAX - 1`.
#[inline]
pub fn bytes_len(v: &[u8], flexible: bool, path: &'static str) -> Result<usize, EncodeError> {
    Ok(len_prefix(v.len(), flexible, false, path)?.saturating_add(v.len()))
}

/// Encoded size of nullable bytes.
///
/// # Errors
///
/// `LengthOverflow` past `i32::MAX - 1`.
#[inline]
pub fn nullable_bytes_len(
    v: Option<&[u8]>,
    flexible: bool,
    path: &'static str,
) -> Result<usize, EncodeError> {
    match v {
        Some(b) => bytes_len(b, flexible, path),
        None => Ok(null_len(flexible, false)),
    }
}

/// Encoded size of a null length.
#[inline]
#[must_use]
pub const fn null_len(flexible: bool, short: bool) -> usize {
    if flexible {
        1
    } else if short {
        2
    } else {
        4
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
    fn varlong_lengths() {
        assert_eq!(varlong_len(0), 1);
        assert_eq!(varlong_len(-1), 1);
        assert_eq!(varlong_len(63), 1);
        assert_eq!(varlong_len(64), 2);
        assert_eq!(varlong_len(i64::MAX), 10);
        assert_eq!(varlong_len(i64::MIN), 10);
    }
}
