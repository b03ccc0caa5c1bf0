//! [`Str`]: a string field as the wire holds it, checked as UTF-8 where it is read.

use core::cmp::Ordering;
use core::fmt::{self, Write as _};
use core::hash::{Hash, Hasher};
use core::str::Utf8Error;

/// A string field: a view of the bytes it was decoded from, or of the `&str` it was built from.
///
/// Decoding checks a string's length and bounds, not its UTF-8, as Kafka's own reader, librdkafka
/// and franz-go do not refuse a message for a malformed string: a string is checked where it is
/// read, by [`Str::to_str`], and only if it is. Comparing, ordering and hashing look at the bytes
/// and check nothing, so a topic name found in a `MetadataResponse` is compared with `"orders"`
/// for the cost of a `memcmp`. A decode that refuses a string that is not UTF-8 is one
/// [`Reader::checking_utf8`](crate::codec::Reader::checking_utf8) away.
///
/// Builders take `&str`, so a message built of values is valid UTF-8; a string copied from a
/// decoded message is written back as it was read.
///
/// ```
/// use kwire::codec::Str;
///
/// let name = Str::new("orders");
/// assert_eq!(name, "orders");
/// assert_eq!(name.len(), 6);
/// assert_eq!(name.to_str(), Ok("orders"));
/// assert!(Str::new("a") < Str::new("b"));
/// assert_eq!(name.to_string(), "orders");
/// ```
///
/// `Display` and `Debug` escape the bytes that are not UTF-8 as `\xNN`:
///
/// ```
/// use kwire::codec::{Reader, Str};
///
/// let wire = [0, 4, b'a', 0xff, b'b', b'c'];
/// let s: Str<'_> = Reader::new(&wire).decode_with(|r| r.string(false, "s"))?;
/// assert!(s.to_str().is_err());
/// assert_eq!(s.as_bytes(), b"a\xffbc");
/// assert_eq!(s.to_string(), r"a\xffbc");
/// assert_eq!(format!("{s:?}"), r#""a\xffbc""#);
/// # Ok::<(), kwire::DecodeError>(())
/// ```
#[derive(Clone, Copy, Default)]
pub struct Str<'a>(&'a [u8]);

impl<'a> Str<'a> {
    /// The empty string.
    pub const EMPTY: Self = Self(&[]);

    /// The view of `s`.
    #[must_use]
    #[inline(always)]
    pub const fn new(s: &'a str) -> Self {
        Self(s.as_bytes())
    }

    /// The view of bytes read from the wire, which may not be UTF-8: the decoders' constructor.
    #[must_use]
    #[inline(always)]
    pub(crate) const fn from_wire(bytes: &'a [u8]) -> Self {
        Self(bytes)
    }

    /// The bytes, as they are on the wire.
    #[must_use]
    #[inline(always)]
    pub const fn as_bytes(self) -> &'a [u8] {
        self.0
    }

    /// The length in bytes.
    #[must_use]
    #[inline(always)]
    pub const fn len(self) -> usize {
        self.0.len()
    }

    /// True for the empty string.
    #[must_use]
    #[inline(always)]
    pub const fn is_empty(self) -> bool {
        self.0.is_empty()
    }

    /// The string, checked as UTF-8: `core::str::from_utf8`, the check safe code has, once. An
    /// empty string costs no check.
    ///
    /// # Errors
    ///
    /// [`Utf8Error`] when the bytes are not UTF-8 (its `valid_up_to` says where they stop being).
    #[inline]
    pub const fn to_str(self) -> Result<&'a str, Utf8Error> {
        if self.0.is_empty() {
            return Ok("");
        }
        core::str::from_utf8(self.0)
    }

    /// True when the bytes are UTF-8: what [`Str::to_str`] checks, with ASCII, the usual case,
    /// checked a word at a time.
    #[must_use]
    #[inline]
    pub fn is_utf8(self) -> bool {
        is_utf8(self.0)
    }

    /// The string, with every byte sequence that is not UTF-8 replaced by U+FFFD, as Kafka's Java
    /// reader reads it: borrowed when the bytes are UTF-8.
    #[cfg(feature = "alloc")]
    #[must_use]
    pub fn to_string_lossy(self) -> alloc::borrow::Cow<'a, str> {
        alloc::string::String::from_utf8_lossy(self.0)
    }

    /// Writes the string with each byte that is not part of a UTF-8 sequence as `\xNN`, and
    /// each valid part through `valid`.
    fn write_escaped(
        self,
        f: &mut fmt::Formatter<'_>,
        valid: impl Fn(&str, &mut fmt::Formatter<'_>) -> fmt::Result,
    ) -> fmt::Result {
        for chunk in self.0.utf8_chunks() {
            valid(chunk.valid(), f)?;
            for b in chunk.invalid() {
                write!(f, "\\x{b:02x}")?;
            }
        }
        Ok(())
    }
}

/// True when `bytes` are UTF-8. With `perf`, an empty string costs no call, and ASCII (topic
/// names, hosts, client ids) is checked a word at a time first, which on short strings costs a
/// fraction of `from_utf8`.
#[inline(always)]
pub(crate) fn is_utf8(bytes: &[u8]) -> bool {
    if cfg!(feature = "perf") && (bytes.is_empty() || is_ascii(bytes)) {
        return true;
    }
    core::str::from_utf8(bytes).is_ok()
}

/// True when `bytes` are ASCII. Strings of the protocol are mostly shorter than 64 bytes, where
/// `<[u8]>::is_ascii` checks the bytes after its last whole word one at a time: here they are
/// checked with one more word, the last eight bytes, overlapping the ones before.
#[inline(always)]
fn is_ascii(bytes: &[u8]) -> bool {
    const HIGH: u64 = 0x8080_8080_8080_8080;
    if bytes.len() > 64 {
        return bytes.is_ascii();
    }
    if let Some(last) = bytes.last_chunk::<8>() {
        let (words, _) = bytes.as_chunks::<8>();
        let any = words.iter().fold(u64::from_ne_bytes(*last), |any, w| {
            any | u64::from_ne_bytes(*w)
        });
        return any & HIGH == 0;
    }
    if let (Some(first), Some(last)) = (bytes.first_chunk::<4>(), bytes.last_chunk::<4>()) {
        return (u32::from_ne_bytes(*first) | u32::from_ne_bytes(*last)) & 0x8080_8080 == 0;
    }
    bytes.iter().all(u8::is_ascii)
}

impl<'a> From<&'a str> for Str<'a> {
    #[inline(always)]
    fn from(s: &'a str) -> Self {
        Self::new(s)
    }
}

impl AsRef<[u8]> for Str<'_> {
    fn as_ref(&self) -> &[u8] {
        self.0
    }
}

impl PartialEq for Str<'_> {
    #[inline]
    fn eq(&self, other: &Self) -> bool {
        self.0 == other.0
    }
}

impl Eq for Str<'_> {}

impl PartialEq<str> for Str<'_> {
    #[inline]
    fn eq(&self, other: &str) -> bool {
        self.0 == other.as_bytes()
    }
}

impl PartialEq<&str> for Str<'_> {
    #[inline]
    fn eq(&self, other: &&str) -> bool {
        self.0 == other.as_bytes()
    }
}

impl PartialEq<Str<'_>> for str {
    #[inline]
    fn eq(&self, other: &Str<'_>) -> bool {
        self.as_bytes() == other.0
    }
}

impl PartialEq<Str<'_>> for &str {
    #[inline]
    fn eq(&self, other: &Str<'_>) -> bool {
        self.as_bytes() == other.0
    }
}

#[cfg(feature = "alloc")]
impl PartialEq<alloc::string::String> for Str<'_> {
    #[inline]
    fn eq(&self, other: &alloc::string::String) -> bool {
        self.0 == other.as_bytes()
    }
}

#[cfg(feature = "alloc")]
impl PartialEq<Str<'_>> for alloc::string::String {
    #[inline]
    fn eq(&self, other: &Str<'_>) -> bool {
        self.as_bytes() == other.0
    }
}

impl PartialOrd for Str<'_> {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

/// Byte order, which for UTF-8 is the order of `str`.
impl Ord for Str<'_> {
    fn cmp(&self, other: &Self) -> Ordering {
        self.0.cmp(other.0)
    }
}

impl PartialOrd<str> for Str<'_> {
    fn partial_cmp(&self, other: &str) -> Option<Ordering> {
        Some(self.0.cmp(other.as_bytes()))
    }
}

impl PartialOrd<&str> for Str<'_> {
    fn partial_cmp(&self, other: &&str) -> Option<Ordering> {
        Some(self.0.cmp(other.as_bytes()))
    }
}

/// Hashes as `str` does, so that a `Str` and the `&str` equal to it hash alike.
impl Hash for Str<'_> {
    fn hash<H: Hasher>(&self, state: &mut H) {
        state.write(self.0);
        state.write_u8(0xff);
    }
}

impl fmt::Display for Str<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.to_str() {
            // Padding and width apply to a valid string, as to a `str`.
            Ok(s) => f.pad(s),
            Err(_) => self.write_escaped(f, |s, f| f.write_str(s)),
        }
    }
}

/// Quoted and escaped as `str` is (a single quote is left as it is), with `\xNN` for each byte
/// that is not part of a UTF-8 sequence.
impl fmt::Debug for Str<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_char('"')?;
        self.write_escaped(f, |s, f| {
            s.chars().try_for_each(|c| match c {
                '\'' => f.write_char(c),
                c => c.escape_debug().try_for_each(|e| f.write_char(e)),
            })
        })?;
        f.write_char('"')
    }
}

#[cfg(feature = "defmt")]
impl defmt::Format for Str<'_> {
    fn format(&self, f: defmt::Formatter<'_>) {
        match self.to_str() {
            Ok(s) => defmt::write!(f, "{=str}", s),
            Err(_) => defmt::write!(f, "{=[u8]}", self.0),
        }
    }
}

#[cfg(test)]
mod tests {
    use std::collections::hash_map::DefaultHasher;
    use std::format;
    use std::string::ToString;

    use super::*;

    fn hash_of<T: Hash + ?Sized>(v: &T) -> u64 {
        let mut h = DefaultHasher::new();
        v.hash(&mut h);
        h.finish()
    }

    #[test]
    fn compares_hashes_and_prints_as_the_str() {
        for s in ["", "orders", "naïve", "日本語", "\"q\"\n", "it's\t\\"] {
            let v = Str::new(s);
            assert_eq!(v, s);
            assert_eq!(s, v);
            assert_eq!(v.to_str(), Ok(s));
            assert!(v.is_utf8());
            assert_eq!(hash_of(&v), hash_of(s));
            assert_eq!(v.to_string(), s);
            assert_eq!(format!("{v:?}"), format!("{s:?}"));
            assert_eq!(format!("{v:>12}"), format!("{s:>12}"));
        }
        assert!(Str::new("abc") < Str::new("abd"));
        assert_eq!(Str::new("é").cmp(&Str::new("z")), "é".cmp("z"));
    }

    #[test]
    fn bytes_that_are_not_utf8_are_escaped() {
        let v = Str::from_wire(b"a\xffb\xe6\x97\xa5\xe6\x97");
        assert!(v.to_str().is_err());
        assert!(!v.is_utf8());
        assert_eq!(v.to_string(), "a\\xffb日\\xe6\\x97");
        assert_eq!(format!("{v:?}"), "\"a\\xffb日\\xe6\\x97\"");
        assert_ne!(v, "ab");
    }

    #[test]
    fn short_ascii_check_agrees_with_core() {
        // Every length up to past the word-at-a-time bound, with one byte above 0x7f at each
        // position in turn, and none.
        let mut buf = [b'a'; 80];
        for len in 0..buf.len() {
            let bytes = &mut buf[..len];
            assert!(is_ascii(bytes), "len {len}");
            for at in 0..len {
                bytes[at] = 0x80;
                assert_eq!(is_ascii(bytes), bytes.is_ascii(), "len {len}, at {at}");
                bytes[at] = b'a';
            }
        }
    }

    #[test]
    fn the_word_check_agrees_with_core() {
        let mut bytes = [b'a'; 70];
        for len in 0..70 {
            for bad in 0..len {
                bytes[bad] = 0xc3;
                let s = &bytes[..len];
                assert_eq!(is_utf8(s), core::str::from_utf8(s).is_ok(), "{len} {bad}");
                bytes[bad] = b'a';
            }
            assert!(is_utf8(&bytes[..len]));
        }
    }
}
