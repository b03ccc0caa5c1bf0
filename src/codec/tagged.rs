//! The tagged-field section of flexible versions, and [`TaggedFields`]: the unknown tags a
//! struct carries.

use core::fmt;

use crate::error::{DecodeError, DecodeErrorKind, EncodeError};

use super::{Failed, FastReader, Reader, Writer, uvarint_len};

/// One tagged field kept as raw bytes: its tag and its payload (without the tag and size
/// varints).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct RawTaggedField<'a> {
    /// The tag.
    pub tag: u32,
    /// The payload bytes.
    pub data: &'a [u8],
}

/// The tagged fields of a struct that its schema does not define, in increasing tag order.
///
/// Decoding keeps them as a borrowed slice of the input; encoding writes them back after the
/// known tagged fields (unknown tags are always greater than the known ones, which are numbered
/// from 0). Callers can supply their own as a slice of [`RawTaggedField`]s in strictly increasing
/// tag order (`TaggedFields::from`); the decoded form can only be made by decoding, so that
/// what is written back verbatim is always entries a decode checked.
#[derive(Clone, Copy)]
pub struct TaggedFields<'a>(Repr<'a>);

#[derive(Clone, Copy)]
enum Repr<'a> {
    /// Fields as read from the wire: `count` validated entries of `tag, size, payload`.
    Wire { count: u32, bytes: &'a [u8] },
    /// Fields supplied by the caller.
    Slice(&'a [RawTaggedField<'a>]),
}

impl Default for TaggedFields<'_> {
    fn default() -> Self {
        Self::EMPTY
    }
}

impl<'a> From<&'a [RawTaggedField<'a>]> for TaggedFields<'a> {
    fn from(fields: &'a [RawTaggedField<'a>]) -> Self {
        Self(Repr::Slice(fields))
    }
}

impl<'a> TaggedFields<'a> {
    /// No unknown tagged fields.
    pub const EMPTY: Self = Self(Repr::Slice(&[]));

    /// The `count` fields of a section's bytes, which a decode checked.
    #[cfg(feature = "perf")]
    #[inline(always)]
    pub(crate) const fn wire(count: u32, bytes: &'a [u8]) -> Self {
        Self(Repr::Wire { count, bytes })
    }

    /// The number of fields.
    #[must_use]
    #[inline]
    pub fn len(&self) -> usize {
        match self.0 {
            Repr::Wire { count, .. } => usize::try_from(count).unwrap_or(usize::MAX),
            Repr::Slice(s) => s.len(),
        }
    }

    /// True when there are none.
    #[must_use]
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Iterates the fields in tag order.
    #[must_use]
    #[inline]
    pub fn iter(&self) -> TaggedFieldIter<'a> {
        TaggedFieldIter(match self.0 {
            Repr::Wire { count, bytes } => IterRepr::Wire {
                w: FastReader::validated(bytes, 0),
                left: count,
            },
            Repr::Slice(s) => IterRepr::Slice(s.iter()),
        })
    }

    /// Encoded size of the entries (not the count), checking caller-supplied tags: strictly
    /// increasing and not below `first_unknown` (the number of tags the struct defines).
    ///
    /// # Errors
    ///
    /// `InvalidUnknownTag`, `LengthOverflow`.
    #[cfg_attr(feature = "perf", inline)]
    #[cfg_attr(not(feature = "perf"), inline(never))]
    #[doc(hidden)]
    pub fn encoded_len(
        &self,
        first_unknown: u32,
        path: &'static str,
    ) -> Result<usize, EncodeError> {
        match self.0 {
            Repr::Wire { bytes, .. } => Ok(bytes.len()),
            Repr::Slice(fields) => {
                let mut total = 0usize;
                let mut next_allowed = first_unknown;
                for f in fields {
                    if f.tag < next_allowed {
                        return Err(EncodeError::InvalidUnknownTag { path, tag: f.tag });
                    }
                    next_allowed = f.tag.saturating_add(1);
                    let size =
                        u32::try_from(f.data.len()).map_err(|_| EncodeError::LengthOverflow {
                            path,
                            length: f.data.len(),
                        })?;
                    total = total
                        .saturating_add(uvarint_len(f.tag))
                        .saturating_add(uvarint_len(size))
                        .saturating_add(f.data.len());
                }
                Ok(total)
            }
        }
    }

    /// Writes the entries (not the count), checking caller-supplied tags as
    /// [`TaggedFields::encoded_len`] does: where it would fail, the writer is
    /// [refused](Writer::refuse).
    #[cfg_attr(feature = "perf", inline)]
    #[cfg_attr(not(feature = "perf"), inline(never))]
    #[doc(hidden)]
    pub fn write(&self, w: &mut Writer<'_>, first_unknown: u32) {
        match self.0 {
            Repr::Wire { bytes, .. } => w.put(bytes),
            Repr::Slice(fields) => {
                let mut next_allowed = first_unknown;
                for f in fields {
                    let Ok(size) = u32::try_from(f.data.len()) else {
                        w.refuse();
                        return;
                    };
                    if f.tag < next_allowed {
                        w.refuse();
                        return;
                    }
                    next_allowed = f.tag.saturating_add(1);
                    w.uvarint(f.tag);
                    w.uvarint(size);
                    w.put(f.data);
                }
            }
        }
    }

    /// Encoded size of the whole section (count and entries) of a struct that writes no known
    /// tagged fields, checking caller-supplied tags as [`TaggedFields::encoded_len`]. The usual
    /// empty section is one byte.
    ///
    /// # Errors
    ///
    /// `InvalidUnknownTag`, `LengthOverflow`.
    #[inline(always)]
    #[doc(hidden)]
    pub fn section_len(
        &self,
        first_unknown: u32,
        path: &'static str,
    ) -> Result<usize, EncodeError> {
        if self.is_empty() {
            Ok(1)
        } else {
            self.nonempty_section_len(first_unknown, path)
        }
    }

    #[inline(never)]
    fn nonempty_section_len(
        &self,
        first_unknown: u32,
        path: &'static str,
    ) -> Result<usize, EncodeError> {
        Ok(uvarint_len(self.count()).saturating_add(self.encoded_len(first_unknown, path)?))
    }

    /// Writes the whole section of a struct that writes no known tagged fields: the count, then the
    /// entries, checked as [`TaggedFields::write`] checks them. The usual empty section is one zero
    /// byte.
    #[inline(always)]
    #[doc(hidden)]
    pub fn write_section(&self, w: &mut Writer<'_>, first_unknown: u32) {
        if self.is_empty() {
            w.u8(0);
        } else {
            w.out_of_line(|w| self.write_nonempty_section(w, first_unknown));
        }
    }

    /// The rare non-empty section: the count, then the entries.
    #[cfg_attr(feature = "perf", inline(always))]
    #[cfg_attr(not(feature = "perf"), inline(never))]
    fn write_nonempty_section(&self, w: &mut Writer<'_>, first_unknown: u32) {
        w.uvarint(self.count());
        self.write(w, first_unknown);
    }

    /// The count as written in the section header.
    #[must_use]
    #[inline]
    #[doc(hidden)]
    pub fn count(&self) -> u32 {
        u32::try_from(self.len()).unwrap_or(u32::MAX)
    }
}

impl PartialEq for TaggedFields<'_> {
    fn eq(&self, other: &Self) -> bool {
        self.len() == other.len() && self.iter().eq(other.iter())
    }
}

impl fmt::Debug for TaggedFields<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

#[cfg(feature = "defmt")]
impl defmt::Format for TaggedFields<'_> {
    fn format(&self, f: defmt::Formatter<'_>) {
        super::array::defmt_list(f, self.iter());
    }
}

/// Iterator over [`TaggedFields`].
#[derive(Debug, Clone)]
pub struct TaggedFieldIter<'a>(IterRepr<'a>);

#[derive(Debug, Clone)]
enum IterRepr<'a> {
    Wire { w: FastReader<'a>, left: u32 },
    Slice(core::slice::Iter<'a, RawTaggedField<'a>>),
}

impl<'a> Iterator for TaggedFieldIter<'a> {
    type Item = RawTaggedField<'a>;

    #[inline]
    fn next(&mut self) -> Option<RawTaggedField<'a>> {
        match &mut self.0 {
            IterRepr::Wire { w, left } => {
                *left = left.checked_sub(1)?;
                // Validated at decode time; an error here only ends the iteration.
                let tag = w.uvarint()?;
                let size = w.uvarint()?;
                let data = w.take(usize::try_from(size).ok()?)?;
                Some(RawTaggedField { tag, data })
            }
            IterRepr::Slice(it) => it.next().copied(),
        }
    }
}

/// One entry of a tagged section, as [`TaggedSection::entry`] reads it.
#[derive(Debug, Clone)]
#[doc(hidden)]
pub struct TaggedEntry<'a> {
    /// The tag.
    pub tag: u32,
    /// The payload size the entry declares.
    pub size: u32,
    /// Absolute offset of the tag.
    pub offset: usize,
    /// Absolute offset of the size.
    pub size_offset: usize,
    /// A reader over exactly the payload.
    pub payload: Reader<'a>,
}

/// Reads a tagged-field section, handing the known tags to the caller one at a time and
/// collecting the unknown ones.
///
/// A type of one's own with a tagged field reads its section as the generated decoders do:
///
/// ```
/// use kwire::codec::{Decode, Failed, Reader, Str, TaggedFields, TaggedSection};
///
/// /// An int32, then a section whose tag 0 is a rack id.
/// #[derive(Debug)]
/// struct Member<'a> {
///     id: i32,
///     rack: Option<Str<'a>>,
///     unknown: TaggedFields<'a>,
/// }
///
/// impl<'a> Decode<'a> for Member<'a> {
///     const PATH: &'static str = "Member";
///
///     fn read(r: &mut Reader<'a>, _version: i16) -> Result<Self, Failed> {
///         let id = r.i32("Member.Id")?;
///         let mut rack = None;
///         // One tag defined (tag 0); others are kept as unknown.
///         let mut section = TaggedSection::begin(r, 1, "Member._tagged_fields")?;
///         while let Some((tag, payload)) = section.next(r)? {
///             if tag == 0 {
///                 rack = section.field(r, payload, tag, "Member.Rack", |p| {
///                     p.nullable_string(true, "Member.Rack")
///                 })?;
///             }
///         }
///         let unknown = section.finish(r);
///         Ok(Member { id, rack, unknown })
///     }
/// }
///
/// // id 7; two fields: tag 0 ("r1", compact string), tag 5 (one byte, unknown).
/// let bytes = [0, 0, 0, 7, 2, 0, 3, 3, b'r', b'1', 5, 1, 0xff];
/// let member = Member::decode_exact(&bytes, 0)?;
/// assert_eq!((member.id, member.rack), (7, Some(Str::new("r1"))));
/// assert_eq!(member.unknown.iter().map(|f| f.tag).collect::<Vec<_>>(), [5]);
/// # Ok::<(), kwire::DecodeError>(())
/// ```
///
/// Like the reads of [`Reader`], its methods return [`Failed`] and leave the error,
/// named in each method's `# Errors`, in the reader `r` ([`Reader::take_error`]).
#[derive(Debug)]
#[doc(hidden)]
pub struct TaggedSection<'a> {
    left: u32,
    previous: Option<u32>,
    first_unknown: u32,
    unknown_count: u32,
    unknown_start: Option<&'a [u8]>,
    declared: u32,
    entry_offset: usize,
    path: &'static str,
}

impl<'a> TaggedSection<'a> {
    /// Reads the section's field count. `first_unknown` is the number of tags the struct defines
    /// (tags are numbered from 0).
    ///
    /// # Errors
    ///
    /// Varint errors; a count larger than the bytes left is `Truncated`.
    #[cfg_attr(feature = "perf", inline)]
    #[cfg_attr(not(feature = "perf"), inline(never))]
    pub fn begin(
        r: &mut Reader<'a>,
        first_unknown: u32,
        path: &'static str,
    ) -> Result<Self, Failed> {
        let left = r.uvarint(path)?;
        // Each entry takes at least two bytes (tag and size).
        let min = usize::try_from(left)
            .unwrap_or(usize::MAX)
            .saturating_mul(2);
        if min > r.remaining() {
            let needed = min.saturating_sub(r.remaining());
            return Err(r.fail(DecodeErrorKind::Truncated { needed }, path));
        }
        Ok(Self {
            left,
            previous: None,
            first_unknown,
            unknown_count: 0,
            unknown_start: None,
            declared: 0,
            entry_offset: 0,
            path,
        })
    }

    /// Reads a whole section for a struct that defines no tagged field, keeping every field as
    /// unknown. Out of line: sections are almost always empty, and
    /// [`Reader::empty_tagged_section`] consumes those.
    ///
    /// # Errors
    ///
    /// As [`TaggedSection::begin`] and [`TaggedSection::next`].
    #[inline(never)]
    pub fn read_unknown(
        r: &mut Reader<'a>,
        path: &'static str,
    ) -> Result<TaggedFields<'a>, Failed> {
        let mut section = Self::begin(r, 0, path)?;
        while section.next(r)?.is_some() {}
        Ok(section.finish(r))
    }

    /// Returns the next known tag and a reader over exactly its payload, skipping (and keeping)
    /// unknown tags.
    ///
    /// # Errors
    ///
    /// As [`TaggedSection::entry`].
    #[cfg_attr(feature = "perf", inline)]
    #[cfg_attr(not(feature = "perf"), inline(never))]
    pub fn next(&mut self, r: &mut Reader<'a>) -> Result<Option<(u32, Reader<'a>)>, Failed> {
        loop {
            let bytes = r.rest();
            let Some(entry) = self.entry(r)? else {
                return Ok(None);
            };
            if entry.tag < self.first_unknown {
                return Ok(Some((entry.tag, entry.payload)));
            }
            if self.unknown_start.is_none() {
                self.unknown_start = Some(bytes);
            }
            self.unknown_count = self.unknown_count.saturating_add(1);
        }
    }

    /// Reads the next entry, known or unknown, without keeping it among the unknown fields:
    /// for a reader that shows every entry where it stands, as the dissector does.
    ///
    /// # Errors
    ///
    /// Varint and truncation errors; `TagOutOfOrder` for a tag not greater than the previous one.
    #[inline(always)]
    pub fn entry(&mut self, r: &mut Reader<'a>) -> Result<Option<TaggedEntry<'a>>, Failed> {
        if self.left == 0 {
            return Ok(None);
        }
        self.left = self.left.saturating_sub(1);
        let offset = r.offset();
        let tag = r.uvarint(self.path)?;
        if let Some(previous) = self.previous
            && tag <= previous
        {
            return Err(r.fail_at(
                offset,
                DecodeErrorKind::TagOutOfOrder { tag, previous },
                self.path,
            ));
        }
        self.previous = Some(tag);
        let size_offset = r.offset();
        let size = r.uvarint(self.path)?;
        let payload = r.sub(usize::try_from(size).unwrap_or(usize::MAX), self.path)?;
        self.declared = size;
        self.entry_offset = offset;
        Ok(Some(TaggedEntry {
            tag,
            size,
            offset,
            size_offset,
            payload,
        }))
    }

    /// The entries not read yet.
    #[must_use]
    pub const fn remaining(&self) -> u32 {
        self.left
    }

    /// Reads a known field's value from exactly its payload with `read`.
    ///
    /// # Errors
    ///
    /// The value's own errors, except that running out of payload, or leaving part of it unread,
    /// is `TaggedSizeMismatch` (the declared size disagrees with the value).
    #[inline]
    pub fn field<T>(
        &self,
        r: &mut Reader<'a>,
        mut payload: Reader<'a>,
        tag: u32,
        path: &'static str,
        read: impl FnOnce(&mut Reader<'a>) -> Result<T, Failed>,
    ) -> Result<T, Failed> {
        match read(&mut payload) {
            Ok(value) if payload.is_empty() => Ok(value),
            // Both failures are settled out of line, one copy for every field.
            Ok(_) => Err(self.unread(r, &payload, tag, path)),
            Err(Failed) => Err(self.field_error(r, &mut payload, tag, path)),
        }
    }

    /// Records in `r` the error for a value that left part of its payload unread.
    #[cold]
    #[inline(never)]
    fn unread(
        &self,
        r: &mut Reader<'a>,
        payload: &Reader<'a>,
        tag: u32,
        path: &'static str,
    ) -> Failed {
        r.fail_with(self.unread_error(payload, tag, path))
    }

    /// Records in `r` the error of a value read from `payload`, as [`TaggedSection::value_error`]
    /// gives it.
    #[cold]
    #[inline(never)]
    fn field_error(
        &self,
        r: &mut Reader<'a>,
        payload: &mut Reader<'a>,
        tag: u32,
        path: &'static str,
    ) -> Failed {
        let e = payload.take_error();
        r.fail_with(self.value_error(e, tag, path))
    }

    /// The error for the value of the entry last read (`tag`) when it left `payload`, the
    /// reader over its payload, partly unread: `TaggedSizeMismatch`.
    #[must_use]
    pub fn unread_error(&self, payload: &Reader<'a>, tag: u32, path: &'static str) -> DecodeError {
        let declared = usize::try_from(self.declared).unwrap_or(usize::MAX);
        let consumed = declared.saturating_sub(payload.remaining());
        self.mismatch(payload.offset(), tag, consumed, path)
    }

    /// The error `e` of the value of the entry last read (`tag`), as the section reports it:
    /// running past the payload's end means the value wanted more than the declared size,
    /// `TaggedSizeMismatch`; any other error stands.
    #[must_use]
    pub fn value_error(&self, e: DecodeError, tag: u32, path: &'static str) -> DecodeError {
        match e.kind {
            // The value wanted `needed` bytes beyond the end of its payload.
            DecodeErrorKind::Truncated { needed } => {
                let declared = usize::try_from(self.declared).unwrap_or(usize::MAX);
                self.mismatch(e.offset, tag, declared.saturating_add(needed), path)
            }
            _ => e,
        }
    }

    fn mismatch(
        &self,
        offset: usize,
        tag: u32,
        consumed: usize,
        path: &'static str,
    ) -> DecodeError {
        DecodeError::new(
            offset,
            DecodeErrorKind::TaggedSizeMismatch {
                tag,
                declared: self.declared,
                consumed,
            },
            path,
        )
    }

    /// Records in `r` the error for a defined tag read at a version where the field is not
    /// tagged, at the offset of the tag.
    #[cold]
    #[inline(never)]
    pub fn not_in_version(&self, r: &mut Reader<'a>, tag: u32, version: i16) -> Failed {
        r.fail_at(
            self.entry_offset,
            DecodeErrorKind::TagNotInVersion { tag, version },
            self.path,
        )
    }

    /// Ends the section and returns the unknown fields read.
    #[inline]
    #[must_use]
    pub fn finish(self, r: &Reader<'a>) -> TaggedFields<'a> {
        match self.unknown_start {
            None => TaggedFields::EMPTY,
            Some(start) => {
                let used = start.len().saturating_sub(r.remaining());
                TaggedFields(Repr::Wire {
                    count: self.unknown_count,
                    bytes: start.get(..used).unwrap_or_default(),
                })
            }
        }
    }
}

/// Encoded size of a known tagged field entry whose payload is `size` bytes.
#[inline]
#[must_use]
#[doc(hidden)]
pub fn tagged_entry_len(tag: u32, size: usize) -> usize {
    uvarint_len(tag)
        .saturating_add(uvarint_len(u32::try_from(size).unwrap_or(u32::MAX)))
        .saturating_add(size)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unknown_tags_are_kept_and_known_ones_returned() {
        // 3 fields: tag 0 (known, 1 byte), tag 5 (unknown, 2 bytes), tag 9 (unknown, 0 bytes).
        let bytes = [3, 0, 1, 0xaa, 5, 2, 1, 2, 9, 0];
        let mut r = Reader::new(&bytes);
        let mut s = TaggedSection::begin(&mut r, 2, "T").unwrap();
        let (tag, p) = s.next(&mut r).unwrap().unwrap();
        assert_eq!(tag, 0);
        assert_eq!(s.field(&mut r, p, tag, "T", |p| p.u8("T")).unwrap(), 0xaa);
        assert!(s.next(&mut r).unwrap().is_none());
        let unknown = s.finish(&r);
        assert_eq!(unknown.len(), 2);
        let v: [RawTaggedField<'_>; 2] = [
            RawTaggedField {
                tag: 5,
                data: &[1, 2],
            },
            RawTaggedField { tag: 9, data: &[] },
        ];
        assert_eq!(unknown, TaggedFields::from(&v[..]));
        assert_eq!(unknown.encoded_len(2, "T").unwrap(), 6);
    }

    #[test]
    fn out_of_order_tags_are_rejected() {
        let bytes = [2, 4, 0, 4, 0];
        let mut r = Reader::new(&bytes);
        let mut s = TaggedSection::begin(&mut r, 0, "T").unwrap();
        assert_eq!(s.next(&mut r), Err(Failed));
        assert_eq!(
            r.take_error(),
            DecodeError::new(
                3,
                DecodeErrorKind::TagOutOfOrder {
                    tag: 4,
                    previous: 4
                },
                "T"
            )
        );
    }

    /// A known field's errors land in the section's reader: running past the payload is a size
    /// mismatch, leaving part of it unread too, and any other error stands as it was.
    #[test]
    fn field_errors_are_recorded_in_the_outer_reader() {
        // One known field, tag 0, declared 2 bytes: 0x00 0x05.
        let bytes = [1, 0, 2, 0, 5];
        let read_field = |read: fn(&mut Reader<'_>) -> Result<u32, Failed>| {
            let mut r = Reader::new(&bytes);
            let mut s = TaggedSection::begin(&mut r, 1, "T").unwrap();
            let (tag, p) = s.next(&mut r).unwrap().unwrap();
            s.field(&mut r, p, tag, "T.F", read)
                .map_err(|Failed| r.take_error())
        };
        assert_eq!(read_field(|p| p.i16("T.F").map(|v| v as u32)), Ok(5));
        let mismatch = |offset, consumed| {
            Err(DecodeError::new(
                offset,
                DecodeErrorKind::TaggedSizeMismatch {
                    tag: 0,
                    declared: 2,
                    consumed,
                },
                "T.F",
            ))
        };
        // Wants 4 bytes of a 2-byte payload: at the read's start.
        assert_eq!(read_field(|p| p.u32("T.F")), mismatch(3, 4));
        // Leaves one of the two bytes: at the first byte left.
        assert_eq!(read_field(|p| p.u8("T.F").map(u32::from)), mismatch(4, 1));
        // A compact string whose length byte 0 is null: the string's own error stands.
        assert_eq!(
            read_field(|p| p.string(true, "T.F.S").map(|s| s.len() as u32)),
            Err(DecodeError::new(
                3,
                DecodeErrorKind::UnexpectedNull,
                "T.F.S"
            ))
        );
    }
}
