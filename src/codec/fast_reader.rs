//! [`FastReader`]: the cursor that steps over encoded values, and reads them where the input is
//! known to be good, without recording errors.

#[cfg(feature = "perf")]
use super::TaggedFields;
use super::{MAX_STRING_LEN, Reader, Str, Uuid};
use crate::wire::is_utf8;

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
    /// Bytes an earlier decode validated: tagged sections are stepped over.
    validated: bool,
    /// Strings are checked as UTF-8 (a [`Reader::checking_utf8`] over bytes not yet validated).
    check_utf8: bool,
}

impl<'a> FastReader<'a> {
    /// A fast reader over the bytes `r` has not read yet, validated when `r` is.
    #[must_use]
    pub(crate) const fn at(r: &Reader<'a>) -> Self {
        Self {
            rest: r.rest(),
            end: r.offset().wrapping_add(r.remaining()),
            validated: r.is_validated(),
            check_utf8: r.checks_utf8() && !r.is_validated(),
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
            check_utf8: false,
        }
    }

    /// The fast reader as scalars, for a call that is not inlined: a fast reader passed whole
    /// crosses the call in memory, and a loop over one the callee got that way stores its cursor
    /// at every step. [`FastReader::from_parts`] puts it together again.
    #[inline(always)]
    pub(crate) const fn into_parts(self) -> (&'a [u8], usize, bool, bool) {
        (self.rest, self.end, self.validated, self.check_utf8)
    }

    /// The fast reader [`FastReader::into_parts`] took apart.
    #[inline(always)]
    pub(crate) const fn from_parts(
        rest: &'a [u8],
        end: usize,
        validated: bool,
        check_utf8: bool,
    ) -> Self {
        Self {
            rest,
            end,
            validated,
            check_utf8,
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
        Reader::with_flags(self.rest, self.offset(), self.validated, self.check_utf8)
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

    /// Reads an unsigned varint as [`Reader::uvarint`] does: one byte inline, longer ones out of
    /// line.
    #[inline(always)]
    pub fn uvarint(&mut self) -> Option<u32> {
        match self.rest.split_first() {
            Some((&b, rest)) if b < 0x80 => {
                self.rest = rest;
                Some(u32::from(b))
            }
            _ => self.read_with(|r| r.uvarint("")),
        }
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

    /// The body of a string of `n` bytes: at most [`MAX_STRING_LEN`] bytes (of UTF-8, when
    /// checking it).
    #[inline(always)]
    fn str_body(&mut self, n: usize) -> Option<Str<'a>> {
        if n > MAX_STRING_LEN {
            return None;
        }
        let s = self.take(n)?;
        if self.check_utf8 && !is_utf8(s) {
            return None;
        }
        Some(Str::from_wire(s))
    }

    /// Reads a string that must not be null, as [`Reader::string`] does.
    #[inline(always)]
    pub fn string(&mut self, flexible: bool) -> Option<Str<'a>> {
        let n = self.len(flexible, true)?;
        self.str_body(n)
    }

    /// Reads a nullable string, as [`Reader::nullable_string`] does.
    #[inline(always)]
    pub fn nullable_string(&mut self, flexible: bool) -> Option<Option<Str<'a>>> {
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
    pub fn records(&mut self, flexible: bool) -> Option<super::Records<'a>> {
        let n = self.len(flexible, false)?;
        self.records_body(n)
    }

    /// Reads a nullable `records` field, keeping its absolute offset.
    #[inline(always)]
    pub fn nullable_records(&mut self, flexible: bool) -> Option<Option<super::Records<'a>>> {
        match self.nullable_len(flexible, false)? {
            Some(n) => self.records_body(n).map(Some),
            None => Some(None),
        }
    }

    /// The `n` bytes of a records field, with their absolute offset.
    #[inline(always)]
    fn records_body(&mut self, n: usize) -> Option<super::Records<'a>> {
        let at = self.offset();
        self.take(n).map(|b| super::Records::with_offset(b, at))
    }

    /// Steps over a string (`nullable`: a null is accepted), as [`Reader`] reads it: at most
    /// [`MAX_STRING_LEN`] bytes (of UTF-8, when checking it).
    #[inline(always)]
    pub fn skip_string(&mut self, flexible: bool, nullable: bool) -> Option<()> {
        let Some(n) = self.nullable_len(flexible, true)? else {
            return nullable.then_some(());
        };
        self.str_body(n).map(drop)
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

    /// Steps over a tagged-field section: an empty one (the common case) is one byte; a non-empty
    /// one is stepped over entry by entry in validated bytes, and in bytes not yet validated is
    /// checked by `check`, a struct's read of its section (see [`FastSection`]).
    ///
    /// `check` takes the fast reader by value and returns the bytes after the section, so that
    /// this fast reader, whose address is never taken, stays in registers.
    #[inline(always)]
    pub(crate) fn tagged_section_with(
        &mut self,
        check: impl FnOnce(Self) -> Option<&'a [u8]>,
    ) -> Option<()> {
        if self.empty_tagged_section().is_some() {
            return Some(());
        }
        self.rest = if self.validated {
            Self::tagged_entries(self.rest)?
        } else {
            check(*self)?
        };
        Some(())
    }

    /// Reads a non-empty tagged section into `value` with `read` (a struct's `read_tagged_fast`),
    /// which takes the value and this fast reader by value and returns them with the bytes after
    /// the section: the fast reader's address is never taken.
    #[cfg(feature = "perf")]
    #[inline(always)]
    pub(crate) fn section_into<T>(
        &mut self,
        value: T,
        read: impl FnOnce(T, Self) -> Option<(T, &'a [u8])>,
    ) -> Option<T> {
        let (value, rest) = read(value, *self)?;
        self.rest = rest;
        Some(value)
    }

    /// A fast reader over the next `n` bytes alone (a tagged field's payload), with the same
    /// offsets and flags.
    #[cfg(feature = "perf")]
    #[inline(always)]
    fn sub(&mut self, n: usize) -> Option<Self> {
        let at = self.offset();
        let bytes = self.take(n)?;
        Some(Self {
            rest: bytes,
            end: at.wrapping_add(n),
            ..*self
        })
    }

    /// `Some` when every byte has been read: a tagged field's value must fill its payload.
    #[cfg(feature = "perf")]
    #[inline(always)]
    pub(crate) fn finished(&self) -> Option<()> {
        self.rest.is_empty().then_some(())
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

    /// Takes the next `N` bytes, the last of which is the count of the tagged section that
    /// follows a struct's last run of fixed-width fields (one bounds check for the run and an
    /// empty section), with the bytes after them. The caller moves to those bytes when the
    /// count is zero, and reads the section with [`FastReader::unknown_section_at`] otherwise.
    #[cfg(feature = "perf")]
    #[inline(always)]
    pub(crate) fn peek_array<const N: usize>(&self) -> Option<(&'a [u8; N], &'a [u8])> {
        self.rest.split_first_chunk::<N>()
    }

    /// Reads, out of line, the non-empty tagged section that starts `at` bytes on, of a struct
    /// that defines no tagged field.
    #[cfg(feature = "perf")]
    #[inline(always)]
    pub(crate) fn unknown_section_at(&mut self, at: usize) -> Option<TaggedFields<'a>> {
        let (fields, rest) = Self::read_unknown_section(*self, at)?;
        self.rest = rest;
        Some(fields)
    }

    /// Reads the tagged section of a struct that defines no tagged field, an empty one inline,
    /// keeping every field as unknown.
    #[cfg(feature = "perf")]
    #[inline(always)]
    pub(crate) fn unknown_tagged_section(&mut self) -> Option<TaggedFields<'a>> {
        if self.empty_tagged_section().is_some() {
            return Some(TaggedFields::EMPTY);
        }
        self.unknown_section()
    }

    /// Reads a non-empty tagged section of a struct that defines no tagged field, out of line.
    #[cfg(feature = "perf")]
    #[inline(always)]
    pub(crate) fn unknown_section(&mut self) -> Option<TaggedFields<'a>> {
        self.unknown_section_at(0)
    }

    /// The read of [`FastReader::unknown_section_at`], taking the fast reader by value so that
    /// the caller's, whose address is never taken, stays in registers.
    #[cfg(feature = "perf")]
    #[inline(never)]
    fn read_unknown_section(mut w: Self, at: usize) -> Option<(TaggedFields<'a>, &'a [u8])> {
        w.skip(at)?;
        let fields = FastSection::read_unknown(&mut w)?;
        Some((fields, w.rest))
    }

    /// Steps over a validated non-empty tagged section: the bytes after it.
    #[inline(never)]
    fn tagged_entries(rest: &'a [u8]) -> Option<&'a [u8]> {
        let mut w = Self::validated(rest, 0);
        for _ in 0..w.uvarint()? {
            w.uvarint()?;
            let size = w.uvarint()?;
            w.skip(usize::try_from(size).ok()?)?;
        }
        Some(w.rest)
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

/// A non-empty tagged-field section read through a [`FastReader`]: what the generated
/// `read_tagged_fast` of a struct reads its section with, the twin of
/// [`TaggedSection`](super::TaggedSection). It refuses what `TaggedSection` refuses (a count
/// the bytes left cannot hold, tags out of order, entries cut short), without saying why; the
/// struct checks its known fields' versions and that each value fills its payload.
#[cfg(feature = "perf")]
pub(crate) struct FastSection<'a> {
    left: u32,
    /// The tag before, once one was read.
    previous: Option<u32>,
    /// The number of tags the struct defines: tags from this one on are unknown.
    first_unknown: u32,
    unknown_count: u32,
    /// Where the first unknown entry starts.
    unknown_start: Option<&'a [u8]>,
}

#[cfg(feature = "perf")]
impl<'a> FastSection<'a> {
    /// Reads the section's field count.
    #[inline(always)]
    pub(crate) fn begin(w: &mut FastReader<'a>, first_unknown: u32) -> Option<Self> {
        let left = w.uvarint()?;
        // Each entry takes at least two bytes (tag and size).
        if usize::try_from(left).ok()?.checked_mul(2)? > w.rest.len() {
            return None;
        }
        Some(Self {
            left,
            previous: None,
            first_unknown,
            unknown_count: 0,
            unknown_start: None,
        })
    }

    /// Reads a whole section for a struct that defines no tagged field, keeping every field as
    /// unknown.
    #[inline(always)]
    pub(crate) fn read_unknown(w: &mut FastReader<'a>) -> Option<TaggedFields<'a>> {
        let mut section = Self::begin(w, 0)?;
        while section.next(w)?.is_some() {}
        Some(section.finish(w))
    }

    /// The next known tag and a fast reader over exactly its payload, stepping over (and
    /// keeping) unknown tags; `Some(None)` at the end of the section.
    #[inline(always)]
    pub(crate) fn next(&mut self, w: &mut FastReader<'a>) -> Option<Option<(u32, FastReader<'a>)>> {
        loop {
            let Some(left) = self.left.checked_sub(1) else {
                return Some(None);
            };
            self.left = left;
            let start = w.rest;
            let tag = w.uvarint()?;
            if self.previous.is_some_and(|previous| tag <= previous) {
                return None;
            }
            self.previous = Some(tag);
            let size = w.uvarint()?;
            let payload = w.sub(usize::try_from(size).ok()?)?;
            if tag < self.first_unknown {
                return Some(Some((tag, payload)));
            }
            if self.unknown_start.is_none() {
                self.unknown_start = Some(start);
            }
            self.unknown_count = self.unknown_count.saturating_add(1);
        }
    }

    /// Ends the section and returns the unknown fields read.
    #[inline(always)]
    pub(crate) fn finish(self, w: &FastReader<'a>) -> TaggedFields<'a> {
        match self.unknown_start {
            None => TaggedFields::EMPTY,
            Some(start) => {
                let used = start.len().saturating_sub(w.rest.len());
                TaggedFields::wire(self.unknown_count, start.get(..used).unwrap_or_default())
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use core::fmt::Debug;
    use std::vec;

    use crate::codec::Decode;

    use crate::api::{API_TABLE, Request, Response};
    use crate::codec::{Encode, Reader};
    use crate::error::DecodeError;

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

    /// A string that is not UTF-8 inside an array element: decoded as it is, and refused by a
    /// decode checking UTF-8, at the string's offset, whichever reader finds it.
    #[cfg(feature = "Metadata")]
    #[test]
    fn strings_in_arrays_are_checked_only_when_asked() {
        use crate::messages::MetadataResponse;
        use crate::messages::metadata_response::MetadataResponseBroker;

        let brokers = [
            MetadataResponseBroker::default().with_host("ok"),
            MetadataResponseBroker::default().with_host("xy"),
        ];
        for version in [8, 12] {
            let m = MetadataResponse::default().with_brokers(&brokers);
            let mut bytes = vec![0u8; m.encoded_len(version).unwrap()];
            m.encode(version, &mut bytes).unwrap();
            let at = bytes.windows(2).position(|w| w == b"xy").unwrap();
            bytes[at] = 0xff;
            let lenient = MetadataResponse::decode(&mut Reader::new(&bytes), version).unwrap();
            let hosts: std::vec::Vec<_> = lenient.brokers.iter().map(|b| b.host).collect();
            assert_eq!(hosts[0], "ok");
            assert_eq!(hosts[1].as_bytes(), b"\xffy");
            assert!(hosts[1].to_str().is_err());
            let strict =
                MetadataResponse::decode(&mut Reader::new(&bytes).checking_utf8(), version);
            let err = strict.unwrap_err();
            assert_eq!(
                (err.offset, err.kind),
                (at, crate::DecodeErrorKind::InvalidUtf8),
                "v{version}"
            );
        }
    }

    /// Array elements whose tagged sections hold fields read through the fast reader as through
    /// a [`Reader`]: a FetchResponse v16's partitions with their current leaders set.
    #[cfg(feature = "Fetch")]
    #[test]
    fn elements_with_tagged_fields_read_alike() {
        use crate::messages::FetchResponse;
        use crate::messages::fetch_response::{
            FetchableTopicResponse, LeaderIdAndEpoch, PartitionData,
        };

        let partitions: std::vec::Vec<_> = (0..5)
            .map(|i| {
                let p = PartitionData::default().with_partition_index(i);
                if i % 2 == 0 {
                    p.with_current_leader(LeaderIdAndEpoch::default().with_leader_id(i))
                } else {
                    p
                }
            })
            .collect();
        let topics = [FetchableTopicResponse::default().with_partitions(&partitions[..])];
        let m = FetchResponse::default().with_responses(&topics);
        let mut bytes = vec![0u8; m.encoded_len(16).unwrap()];
        m.encode(16, &mut bytes).unwrap();
        let decoded = FetchResponse::decode(&mut Reader::new(&bytes), 16).unwrap();
        assert_eq!(decoded, m);
        same_through_both_paths(&bytes, 16, |r| FetchResponse::decode(r, 16)).unwrap();
        let leaders: std::vec::Vec<_> = decoded
            .responses
            .iter()
            .flat_map(|t| t.partitions.iter())
            .map(|p| p.current_leader.leader_id)
            .collect();
        assert_eq!(leaders, [0, -1, 2, -1, 4]);
    }

    /// Array elements without tagged fields of their own keep a non-empty section's fields as
    /// unknown when iterated, whether their read ends with a run of fixed-width fields
    /// (ApiVersionsResponse's keys) or not (ListOffsetsResponse's partitions at v10, whose last
    /// fields are version-dependent).
    #[cfg(all(feature = "ApiVersions", feature = "ListOffsets"))]
    #[test]
    fn elements_keep_unknown_tagged_fields() {
        use crate::codec::{RawTaggedField, TaggedFields};
        use crate::messages::api_versions_response::ApiVersion;
        use crate::messages::list_offsets_response::{
            ListOffsetsPartitionResponse, ListOffsetsTopicResponse,
        };
        use crate::messages::{ApiVersionsResponse, ListOffsetsResponse};

        let raw = [
            RawTaggedField {
                tag: 7,
                data: b"abc",
            },
            RawTaggedField {
                tag: 300,
                data: &[],
            },
        ];
        let unknown = TaggedFields::from(&raw[..]);
        let tags = |t: &TaggedFields<'_>| -> std::vec::Vec<(u32, std::vec::Vec<u8>)> {
            t.iter().map(|f| (f.tag, f.data.to_vec())).collect()
        };

        let keys: std::vec::Vec<_> = (0..4)
            .map(|i| {
                let k = ApiVersion::default()
                    .with_api_key(i)
                    .with_max_version(i + 1);
                if i % 2 == 1 {
                    k.with_unknown_tagged_fields(unknown)
                } else {
                    k
                }
            })
            .collect();
        let m = ApiVersionsResponse::default().with_api_keys(&keys[..]);
        let mut bytes = vec![0u8; m.encoded_len(3).unwrap()];
        m.encode(3, &mut bytes).unwrap();
        let decoded = ApiVersionsResponse::decode(&mut Reader::new(&bytes), 3).unwrap();
        let read: std::vec::Vec<_> = decoded.api_keys.iter().collect();
        assert_eq!(read, keys);
        assert_eq!(tags(&read[1].unknown_tagged_fields), tags(&unknown));
        same_through_both_paths(&bytes, 3, |r| ApiVersionsResponse::decode(r, 3)).unwrap();

        let partitions: std::vec::Vec<_> = (0..3)
            .map(|i| {
                let p = ListOffsetsPartitionResponse::default().with_partition_index(i);
                if i == 0 {
                    p.with_unknown_tagged_fields(unknown)
                } else {
                    p
                }
            })
            .collect();
        let topics = [ListOffsetsTopicResponse::default().with_partitions(&partitions[..])];
        let m = ListOffsetsResponse::default().with_topics(&topics);
        let mut bytes = vec![0u8; m.encoded_len(10).unwrap()];
        m.encode(10, &mut bytes).unwrap();
        let decoded = ListOffsetsResponse::decode(&mut Reader::new(&bytes), 10).unwrap();
        let read: std::vec::Vec<_> = decoded
            .topics
            .iter()
            .flat_map(|t| t.partitions.iter())
            .collect();
        assert_eq!(read, partitions);
        assert_eq!(tags(&read[0].unknown_tagged_fields), tags(&unknown));
        same_through_both_paths(&bytes, 10, |r| ListOffsetsResponse::decode(r, 10)).unwrap();
    }

    #[cfg(feature = "all-apis")]
    #[test]
    fn validated_bytes_read_as_a_first_decode_does() {
        let mut checked = 0usize;
        for api in API_TABLE {
            for (side, range) in [
                ("Request", api.request_versions),
                ("Response", api.response_versions),
            ] {
                let name = std::format!("{}{side}", api.name);
                for version in (range.min..=range.max).filter(|v| range.contains(*v)) {
                    for seed in 0..SEEDS {
                        let bytes =
                            kwire_testkit::random_instance_named(&name, version, seed).unwrap();
                        let outcome = if side == "Request" {
                            same_through_both_paths(&bytes, version, |r| {
                                Request::decode(r, api.key, version)
                            })
                        } else {
                            same_through_both_paths(&bytes, version, |r| {
                                Response::decode(r, api.key, version)
                            })
                        };
                        assert_eq!(outcome, Ok(()), "{name} v{version} seed {seed}");
                        checked += 1;
                    }
                }
            }
        }
        assert!(checked > 10_000, "only {checked} instances checked");
    }
}
