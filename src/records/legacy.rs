//! Legacy message sets: log entries in the magic 0 and magic 1 formats, checksummed with CRC-32.
//!
//! * [`LegacyMessage`] is one log entry, read in place.
//! * [`LegacyRecord`] is a message seen as a record: its absolute offset and effective timestamp
//!   worked out. [`LegacyMessage::record`] gives one for an uncompressed message;
//!   [`LegacyMessage::inner`] iterates the messages inside a compressed wrapper, from the
//!   wrapper's value as the caller decompressed it ([`InnerMessages`]); [`LegacyRecords`] walks a
//!   run of uncompressed entries.
//! * [`LegacyBuilder`] writes message sets, and wrapper messages around an inner set that the
//!   caller compressed.
//!
//! Offsets inside a wrapper: in magic 0 the inner messages carry absolute offsets; in magic 1
//! they carry relative ones (0, 1, 2, …) and the wrapper carries the absolute offset of the last
//! inner message, so an inner message's absolute offset is
//! `wrapper offset − last relative offset + its relative offset`. A magic 1 wrapper offset of 0
//! (written by some old producers) means the relative offsets are used as they are. A wrapper of
//! either magic is written with the absolute offset of its last inner message.

use core::borrow::Borrow;

use super::batch::{Compression, LOG_OVERHEAD, MAGIC_OFFSET, TimestampType, entry_size};
use super::builder::NewRecord;
use super::crc::crc32;
use super::{Batch, Batches, PartialBatch, Records};
use crate::codec::{Reader, Writer, nullable_bytes_len};
use crate::error::{DecodeError, DecodeErrorKind, EncodeError};
use crate::wire::VersionRange;

/// Offset of the CRC in a legacy entry (after the offset and size fields).
const CRC_OFFSET: usize = 12;
/// Offset of the first CRC-covered byte (the magic byte).
const CRC_COVERED: usize = 16;
/// Offset of the attributes byte in a legacy entry.
const ATTRIBUTES_OFFSET: usize = 17;
/// Compression bits of the attributes.
const COMPRESSION_MASK: u8 = 0x07;
/// Timestamp-type bit of the attributes (magic 1 only).
const LOG_APPEND_TIME_BIT: u8 = 0x08;

/// The smallest `messageSize` of a magic 0 message (no key or value).
pub const MIN_MESSAGE_SIZE_V0: i32 = 14;
/// The smallest `messageSize` of a magic 1 message.
pub const MIN_MESSAGE_SIZE_V1: i32 = 22;

/// A view over one legacy log entry: `int64` offset, `int32` size and a magic 0 or 1 message.
///
/// Building the view checks the magic, the size and that key and value fit the message exactly;
/// the CRC is not checked by the view ([`LegacyMessage::verify_crc`] checks it, and
/// [`LegacyRecords`] checks every message's).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct LegacyMessage<'a> {
    bytes: &'a [u8],
    position: usize,
    offset: i64,
    crc: u32,
    magic: i8,
    attributes: i8,
    timestamp: Option<i64>,
    key: Option<&'a [u8]>,
    value: Option<&'a [u8]>,
}

impl<'a> LegacyMessage<'a> {
    /// Reads the entry at the start of `input` (bytes after it are ignored).
    ///
    /// # Errors
    ///
    /// `Truncated` when `input` is shorter than the entry, `UnknownMagic` for a magic other than
    /// 0 or 1, `EntryTooSmall` for a size below the format's minimum, `NegativeLength` for a key
    /// or value length below -1, `TrailingBytes` when key and value end before the message does.
    pub fn parse(input: &'a [u8]) -> Result<Self, DecodeError> {
        Self::parse_at(input, 0)
    }

    /// As [`LegacyMessage::parse`], with `input` at absolute offset `base` of a larger buffer.
    ///
    /// # Errors
    ///
    /// As [`LegacyMessage::parse`].
    pub fn parse_at(input: &'a [u8], base: usize) -> Result<Self, DecodeError> {
        let mut head = Reader::with_offset(input, base);
        let offset = head.decode_with(|r| r.i64("LegacyMessage.offset"))?;
        let size_at = head.offset();
        let size = head.decode_with(|r| r.i32("LegacyMessage.messageSize"))?;
        let crc = head.decode_with(|r| r.u32("LegacyMessage.crc"))?;
        let magic_at = head.offset();
        let magic = head.decode_with(|r| r.i8("LegacyMessage.magic"))?;
        let min = match magic {
            0 => MIN_MESSAGE_SIZE_V0,
            1 => MIN_MESSAGE_SIZE_V1,
            _ => {
                return Err(DecodeError::new(
                    magic_at,
                    DecodeErrorKind::UnknownMagic(magic),
                    "LegacyMessage.magic",
                ));
            }
        };
        if size < min {
            return Err(DecodeError::new(
                size_at,
                DecodeErrorKind::EntryTooSmall { size, min },
                "LegacyMessage.messageSize",
            ));
        }
        let total = usize::try_from(size)
            .unwrap_or(usize::MAX)
            .saturating_add(LOG_OVERHEAD);
        let Some(bytes) = input.get(..total) else {
            return Err(DecodeError::new(
                base.saturating_add(input.len()),
                DecodeErrorKind::Truncated {
                    needed: total.saturating_sub(input.len()),
                },
                "LegacyMessage.messageSize",
            ));
        };
        let mut r = Reader::with_offset(bytes, base);
        r.decode_with(|r| r.take(CRC_COVERED.saturating_add(1), "LegacyMessage"))?;
        let attributes = r.decode_with(|r| r.i8("LegacyMessage.attributes"))?;
        let timestamp = if magic == 1 {
            Some(r.decode_with(|r| r.i64("LegacyMessage.timestamp"))?)
        } else {
            None
        };
        let key = nullable_bytes(&mut r, "LegacyMessage.key")?;
        let value = nullable_bytes(&mut r, "LegacyMessage.value")?;
        r.finish("LegacyMessage")?;
        Ok(Self {
            bytes,
            position: base,
            offset,
            crc,
            magic,
            attributes,
            timestamp,
            key,
            value,
        })
    }

    /// The entry's bytes (offset and size fields included).
    #[must_use]
    pub const fn as_bytes(&self) -> &'a [u8] {
        self.bytes
    }

    /// Absolute position of the entry's first byte in the buffer it was read from.
    #[must_use]
    pub const fn position(&self) -> usize {
        self.position
    }

    /// The entry's offset as stored (for an inner message of a magic 1 wrapper, a relative one).
    #[must_use]
    pub const fn offset(&self) -> i64 {
        self.offset
    }

    /// `messageSize`: the bytes after the size field.
    #[must_use]
    pub fn message_size(&self) -> i32 {
        entry_size(self.bytes).unwrap_or(0)
    }

    /// The stored CRC-32.
    #[must_use]
    pub const fn crc(&self) -> u32 {
        self.crc
    }

    /// The magic byte: 0 or 1.
    #[must_use]
    pub const fn magic(&self) -> i8 {
        self.magic
    }

    /// The attributes byte.
    #[must_use]
    pub const fn attributes(&self) -> i8 {
        self.attributes
    }

    /// The compression codec (bits 0-2). A compressed message is a wrapper: its value holds the
    /// compressed inner entries.
    #[must_use]
    pub const fn compression(&self) -> Compression {
        Compression(self.attributes.to_be_bytes()[0] & 0x07)
    }

    /// The timestamp type (bit 3, magic 1 only).
    #[must_use]
    pub const fn timestamp_type(&self) -> TimestampType {
        if self.magic == 1 && self.attributes & 0x08 != 0 {
            TimestampType::LogAppendTime
        } else {
            TimestampType::CreateTime
        }
    }

    /// The timestamp (magic 1 only; -1 when the producer set none).
    #[must_use]
    pub const fn timestamp(&self) -> Option<i64> {
        self.timestamp
    }

    /// The key; `None` when null.
    #[must_use]
    pub const fn key(&self) -> Option<&'a [u8]> {
        self.key
    }

    /// The value; `None` when null.
    #[must_use]
    pub const fn value(&self) -> Option<&'a [u8]> {
        self.value
    }

    /// CRC-32 over the bytes the stored CRC covers (the magic byte to the end).
    #[must_use]
    pub fn compute_crc(&self) -> u32 {
        crc32(self.bytes.get(CRC_COVERED..).unwrap_or_default())
    }

    /// Checks the stored CRC against the bytes. [`LegacyRecords`] checks every message's;
    /// [`LegacyMessage::record`] and [`LegacyMessage::inner`] do not, for a reader that does not
    /// want the check (as Kafka's consumers with `check.crcs=false`).
    ///
    /// # Errors
    ///
    /// `CrcMismatch` at the CRC field's offset.
    pub fn verify_crc(&self) -> Result<(), DecodeError> {
        let computed = self.compute_crc();
        if self.crc == computed {
            Ok(())
        } else {
            Err(DecodeError::new(
                self.position.saturating_add(CRC_OFFSET),
                DecodeErrorKind::CrcMismatch {
                    stored: self.crc,
                    computed,
                },
                "LegacyMessage.crc",
            ))
        }
    }

    /// True when the message is a compressed wrapper (compression bits not 0): its value holds
    /// the compressed inner entries.
    #[must_use]
    pub const fn is_wrapper(&self) -> bool {
        self.compression().0 != 0
    }

    /// This uncompressed message as a record, with its stored offset and timestamp.
    ///
    /// # Errors
    ///
    /// `Compressed` (at the attributes) when the message is a wrapper: decompress its value and
    /// use [`LegacyMessage::inner`].
    pub fn record(&self) -> Result<LegacyRecord<'a>, DecodeError> {
        if self.is_wrapper() {
            return Err(DecodeError::new(
                self.position.saturating_add(ATTRIBUTES_OFFSET),
                DecodeErrorKind::Compressed(self.compression().0),
                "LegacyMessage.attributes",
            ));
        }
        Ok(LegacyRecord {
            message: *self,
            offset: self.offset,
            timestamp: self.timestamp,
            timestamp_type: self.timestamp_type(),
        })
    }

    /// Iterates the inner messages of this wrapper, given its value decompressed by the caller
    /// (`decompressed`), with absolute offsets worked out.
    ///
    /// In magic 0 the inner offsets are absolute. In magic 1 they are relative (0, 1, 2, …) and
    /// the wrapper's offset is the absolute offset of the last inner message, so an inner
    /// message's absolute offset is `wrapper offset − last relative offset + relative offset`; a
    /// wrapper offset of 0 (written by some old producers) leaves the relative offsets as they
    /// are.
    ///
    /// A first pass over `decompressed` reads only the entries' offset and size fields, to find
    /// the last inner offset and check that the entries fill the buffer exactly; the iterator then
    /// reads each message in full. With log-append time on a magic 1 wrapper, every inner message
    /// takes the wrapper's timestamp, and every inner message reports the wrapper's timestamp
    /// type. Inner CRCs are not checked ([`LegacyRecord::verify_crc`] does that).
    ///
    /// Errors about the wrapper carry its absolute positions; errors inside `decompressed` count
    /// from the start of `decompressed`.
    ///
    /// # Errors
    ///
    /// * `Malformed` when this message is not a wrapper, when its codec is not gzip, snappy or lz4
    ///   (the codecs magic 0 and 1 allow), when its value is null, when `decompressed` holds no
    ///   entry (`"LegacyMessage.inner"`), or when a nonzero magic 1 wrapper offset is below the
    ///   last relative offset (`"LegacyMessage.offset"`).
    /// * `Truncated` when the last entry of `decompressed` is cut short (unlike the end of a fetch
    ///   response, a decompressed payload is complete, so this is damage), and `EntryTooSmall` for
    ///   an entry size below 14.
    ///
    /// The iterator's items report further damage of each inner message: as
    /// [`LegacyMessage::parse`], and `UnknownMagic` (`"LegacyMessage.inner.magic"`) for an inner
    /// magic other than the wrapper's, `Compressed` (`"LegacyMessage.inner.attributes"`) for a
    /// compressed inner message.
    pub fn inner<'p>(&self, decompressed: &'p [u8]) -> Result<InnerMessages<'p>, DecodeError> {
        let attributes_at = self.position.saturating_add(ATTRIBUTES_OFFSET);
        if !matches!(self.compression().0, 1..=3) {
            return Err(DecodeError::new(
                attributes_at,
                DecodeErrorKind::Malformed,
                "LegacyMessage.attributes",
            ));
        }
        if self.value.is_none() {
            return Err(DecodeError::new(
                self.value_length_at(),
                DecodeErrorKind::Malformed,
                "LegacyMessage.value",
            ));
        }
        let (count, last) = scan(decompressed)?;
        if count == 0 {
            return Err(DecodeError::new(
                0,
                DecodeErrorKind::Malformed,
                "LegacyMessage.inner",
            ));
        }
        let (delta, last_offset) = if self.magic == 1 && self.offset != 0 {
            if self.offset < last {
                return Err(DecodeError::new(
                    self.position,
                    DecodeErrorKind::Malformed,
                    "LegacyMessage.offset",
                ));
            }
            (self.offset.wrapping_sub(last), self.offset)
        } else {
            (0, last)
        };
        let log_append_time = match self.timestamp_type() {
            TimestampType::LogAppendTime => self.timestamp,
            TimestampType::CreateTime => None,
        };
        Ok(InnerMessages {
            rest: decompressed,
            pos: 0,
            magic: self.magic,
            delta,
            last_offset,
            log_append_time,
            timestamp_type: self.timestamp_type(),
            remaining: count,
            done: false,
        })
    }

    /// Absolute offset of the value's length field.
    fn value_length_at(&self) -> usize {
        let key_length_at: usize = if self.magic == 1 { 26 } else { 18 };
        self.position
            .saturating_add(key_length_at)
            .saturating_add(4)
            .saturating_add(self.key.map_or(0, <[u8]>::len))
    }
}

/// Reads `int32`-length-prefixed bytes; -1 is null.
fn nullable_bytes<'a>(
    r: &mut Reader<'a>,
    path: &'static str,
) -> Result<Option<&'a [u8]>, DecodeError> {
    let at = r.offset();
    let len = r.decode_with(|r| r.i32(path))?;
    if len == -1 {
        return Ok(None);
    }
    let Ok(n) = usize::try_from(len) else {
        return Err(DecodeError::new(
            at,
            DecodeErrorKind::NegativeLength(len),
            path,
        ));
    };
    r.decode_with(|r| r.take(n, path)).map(Some)
}

/// Walks the entry framing of a decompressed inner set: the number of entries and the stored
/// offset of the last one.
fn scan(bytes: &[u8]) -> Result<(usize, i64), DecodeError> {
    let mut r = Reader::new(bytes);
    let mut count: usize = 0;
    let mut last: i64 = 0;
    while !r.is_empty() {
        let offset = r.decode_with(|r| r.i64("LegacyMessage.offset"))?;
        let size_at = r.offset();
        let size = r.decode_with(|r| r.i32("LegacyMessage.messageSize"))?;
        if size < MIN_MESSAGE_SIZE_V0 {
            return Err(DecodeError::new(
                size_at,
                DecodeErrorKind::EntryTooSmall {
                    size,
                    min: MIN_MESSAGE_SIZE_V0,
                },
                "LegacyMessage.messageSize",
            ));
        }
        r.decode_with(|r| {
            r.take(
                usize::try_from(size).unwrap_or(usize::MAX),
                "LegacyMessage.messageSize",
            )
        })?;
        count = count.saturating_add(1);
        last = offset;
    }
    Ok((count, last))
}

/// A legacy message seen as a record: the message, its absolute offset and its effective
/// timestamp.
///
/// For an uncompressed message ([`LegacyMessage::record`], [`LegacyRecords`]) these are the
/// stored ones; for an inner message of a wrapper ([`InnerMessages`]) they follow the wrapper.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct LegacyRecord<'a> {
    message: LegacyMessage<'a>,
    offset: i64,
    timestamp: Option<i64>,
    timestamp_type: TimestampType,
}

impl<'a> LegacyRecord<'a> {
    /// The message as stored (its [`LegacyMessage::offset`] may be a relative one).
    #[must_use]
    pub const fn message(&self) -> LegacyMessage<'a> {
        self.message
    }

    /// The absolute offset.
    #[must_use]
    pub const fn offset(&self) -> i64 {
        self.offset
    }

    /// The timestamp (magic 1 only): the message's own, or the wrapper's under log-append time.
    #[must_use]
    pub const fn timestamp(&self) -> Option<i64> {
        self.timestamp
    }

    /// The timestamp type (of the wrapper, for an inner message).
    #[must_use]
    pub const fn timestamp_type(&self) -> TimestampType {
        self.timestamp_type
    }

    /// The magic byte: 0 or 1.
    #[must_use]
    pub const fn magic(&self) -> i8 {
        self.message.magic()
    }

    /// The key; `None` when null.
    #[must_use]
    pub const fn key(&self) -> Option<&'a [u8]> {
        self.message.key()
    }

    /// The value; `None` when null.
    #[must_use]
    pub const fn value(&self) -> Option<&'a [u8]> {
        self.message.value()
    }

    /// Position of the message's first byte in the buffer it was read from (for an inner
    /// message, the decompressed value).
    #[must_use]
    pub const fn position(&self) -> usize {
        self.message.position()
    }

    /// Checks the message's CRC-32.
    ///
    /// # Errors
    ///
    /// `CrcMismatch`.
    pub fn verify_crc(&self) -> Result<(), DecodeError> {
        self.message.verify_crc()
    }
}

/// The inner messages of a compressed wrapper, read lazily from its decompressed value; see
/// [`LegacyMessage::inner`].
///
/// Each item is a [`LegacyRecord`] with its absolute offset, or the first error met, after
/// which the iterator ends.
#[derive(Debug, Clone)]
pub struct InnerMessages<'p> {
    rest: &'p [u8],
    pos: usize,
    magic: i8,
    delta: i64,
    last_offset: i64,
    log_append_time: Option<i64>,
    timestamp_type: TimestampType,
    remaining: usize,
    done: bool,
}

impl<'p> InnerMessages<'p> {
    /// Inner messages not yet read.
    #[must_use]
    pub const fn remaining(&self) -> usize {
        self.remaining
    }

    /// Absolute offset of the last inner message.
    #[must_use]
    pub const fn last_offset(&self) -> i64 {
        self.last_offset
    }

    fn fail(&mut self, err: DecodeError) -> Option<Result<LegacyRecord<'p>, DecodeError>> {
        self.done = true;
        Some(Err(err))
    }
}

impl<'p> Iterator for InnerMessages<'p> {
    type Item = Result<LegacyRecord<'p>, DecodeError>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.done {
            return None;
        }
        let Some(left) = self.remaining.checked_sub(1) else {
            self.done = true;
            return None;
        };
        self.remaining = left;
        let message = match LegacyMessage::parse_at(self.rest, self.pos) {
            Ok(m) => m,
            Err(err) => return self.fail(err),
        };
        if message.magic != self.magic {
            return self.fail(DecodeError::new(
                self.pos.saturating_add(MAGIC_OFFSET),
                DecodeErrorKind::UnknownMagic(message.magic),
                "LegacyMessage.inner.magic",
            ));
        }
        if message.is_wrapper() {
            return self.fail(DecodeError::new(
                self.pos.saturating_add(ATTRIBUTES_OFFSET),
                DecodeErrorKind::Compressed(message.compression().0),
                "LegacyMessage.inner.attributes",
            ));
        }
        let len = message.bytes.len();
        self.rest = self.rest.get(len..).unwrap_or_default();
        self.pos = self.pos.saturating_add(len);
        let timestamp = if self.magic == 1 {
            self.log_append_time.or(message.timestamp)
        } else {
            None
        };
        Some(Ok(LegacyRecord {
            message,
            offset: self.delta.wrapping_add(message.offset),
            timestamp,
            timestamp_type: self.timestamp_type,
        }))
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        if self.done {
            (0, Some(0))
        } else {
            (0, Some(self.remaining))
        }
    }
}

impl core::iter::FusedIterator for InnerMessages<'_> {}

/// The records of a run of uncompressed legacy entries (a magic 0 or 1 message set, such as a
/// fetch response from an old broker), each with its stored offset and timestamp.
///
/// Each message's CRC is checked before its record is given out (`CrcMismatch`). Framing is that
/// of [`Records::batches`]: a last entry cut short after complete ones ends the iteration without
/// error ([`LegacyRecords::partial`] then describes it), and only part of a first entry is
/// `IncompleteFirstBatch`. A compressed wrapper is reported as `Compressed` and a v2 batch as
/// `UnknownMagic(2)`; after any error the iterator ends. For a
/// set that may hold wrappers, walk [`Records::batches`], decompress each wrapper's value and
/// use [`LegacyMessage::inner`].
#[derive(Debug, Clone)]
pub struct LegacyRecords<'a> {
    entries: Batches<'a>,
    done: bool,
}

impl<'a> LegacyRecords<'a> {
    /// Iterates the entries in `bytes`.
    #[must_use]
    pub const fn new(bytes: &'a [u8]) -> Self {
        Self::with_offset(bytes, 0)
    }

    /// Iterates the entries in `bytes`, found at absolute offset `offset` of a larger buffer.
    #[must_use]
    pub const fn with_offset(bytes: &'a [u8], offset: usize) -> Self {
        Self {
            entries: Records::with_offset(bytes, offset).batches(),
            done: false,
        }
    }

    /// The bytes not yet read; once the iterator has ended without error, the partial entry the
    /// set ends in.
    #[must_use]
    pub const fn remainder(&self) -> &'a [u8] {
        self.entries.remainder()
    }

    /// The partial entry the set ends in, once the iterator has ended without error
    /// ([`Batches::partial`]).
    #[must_use]
    pub fn partial(&self) -> Option<PartialBatch> {
        self.entries.partial()
    }
}

impl<'a> From<Records<'a>> for LegacyRecords<'a> {
    fn from(records: Records<'a>) -> Self {
        Self::with_offset(records.as_bytes(), records.offset())
    }
}

impl<'a> Iterator for LegacyRecords<'a> {
    type Item = Result<LegacyRecord<'a>, DecodeError>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.done {
            return None;
        }
        let item = match self.entries.next()? {
            Ok(Batch::Legacy(message)) => message.verify_crc().and_then(|()| message.record()),
            Ok(Batch::V2(batch)) => Err(DecodeError::new(
                batch.offset().saturating_add(MAGIC_OFFSET),
                DecodeErrorKind::UnknownMagic(batch.magic()),
                "LegacyMessage.magic",
            )),
            Err(err) => Err(err),
        };
        self.done = item.is_err();
        Some(item)
    }
}

impl core::iter::FusedIterator for LegacyRecords<'_> {}

/// The format version of a legacy message set.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum LegacyMagic {
    /// Magic 0: no timestamps; inner offsets of a wrapper are absolute.
    V0,
    /// Magic 1: timestamps; inner offsets of a wrapper are relative.
    V1,
}

impl LegacyMagic {
    /// The magic byte.
    #[must_use]
    pub const fn magic(self) -> i8 {
        match self {
            Self::V0 => 0,
            Self::V1 => 1,
        }
    }

    /// The smallest `messageSize` of this format (a message with null key and value).
    #[must_use]
    pub const fn min_message_size(self) -> i32 {
        match self {
            Self::V0 => MIN_MESSAGE_SIZE_V0,
            Self::V1 => MIN_MESSAGE_SIZE_V1,
        }
    }

    /// Bytes of an entry with null key and value: offset and size fields included.
    const fn overhead(self) -> usize {
        match self {
            Self::V0 => 26,
            Self::V1 => 34,
        }
    }
}

/// What a wrapper message needs to know about the inner set it carries; returned by
/// [`LegacyBuilder::inner_set`] and [`LegacyBuilder::write_inner`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct InnerSet {
    /// Bytes of the uncompressed inner set.
    pub len: usize,
    /// Number of inner messages.
    pub count: usize,
    /// Absolute offset of the last inner message: the wrapper's offset. With no messages, the
    /// base offset minus one.
    pub last_offset: i64,
    /// The largest inner timestamp (-1 with no messages): the wrapper's timestamp in magic 1.
    pub max_timestamp: i64,
}

/// Writes legacy message sets (magic 0 or 1) into a caller's buffer, CRC-32 included.
///
/// The records come as a slice or any cloneable iterator of [`NewRecord`] (walked twice: once to
/// size the set, once to write it). Legacy messages have no headers, so every record's headers
/// must be empty; magic 0 has no timestamps either, so theirs are dropped. Nothing is written
/// unless everything fits.
///
/// * [`LegacyBuilder::write`]: a plain set, entry `i` at offset `base + i`.
/// * [`LegacyBuilder::write_inner`] and [`LegacyBuilder::write_wrapper`]: a compressed set. The
///   inner set is written uncompressed (offsets `base + i` in magic 0, `i` in magic 1), the
///   caller compresses it, and the wrapper carries the compressed bytes with the absolute offset
///   of the last inner message.
///
/// ```
/// use kwire::records::{LegacyBuilder, LegacyMagic, LegacyMessage, NewRecord};
///
/// let records = [NewRecord::new(b"hi").with_timestamp(1_700_000_000_000)];
/// let mut buf = [0u8; 64];
/// let n = LegacyBuilder::new(LegacyMagic::V1).write(&records, &mut buf)?;
/// assert_eq!(n, 36);
/// let message = LegacyMessage::parse(&buf[..n])?;
/// assert_eq!(message.crc(), 0xdba4_e6e2);
/// # Ok::<(), Box<dyn core::error::Error>>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct LegacyBuilder {
    magic: LegacyMagic,
    base_offset: i64,
    timestamp_type: TimestampType,
}

impl LegacyBuilder {
    /// A builder for `magic`: base offset 0, create-time timestamps.
    #[must_use]
    pub const fn new(magic: LegacyMagic) -> Self {
        Self {
            magic,
            base_offset: 0,
            timestamp_type: TimestampType::CreateTime,
        }
    }

    /// Sets the offset of the first message (producers write 0; brokers assign offsets).
    #[must_use]
    pub const fn with_base_offset(mut self, base_offset: i64) -> Self {
        self.base_offset = base_offset;
        self
    }

    /// Sets the timestamp type written in the attributes (magic 1 only; ignored for magic 0).
    /// The timestamps themselves are the records' (under log-append time, the caller sets them to
    /// the append time).
    #[must_use]
    pub const fn with_timestamp_type(mut self, timestamp_type: TimestampType) -> Self {
        self.timestamp_type = timestamp_type;
        self
    }

    /// The format version.
    #[must_use]
    pub const fn magic(&self) -> LegacyMagic {
        self.magic
    }

    /// The attributes byte of a message compressed with `compression` (only bits 0-2 are used).
    #[must_use]
    pub const fn attributes(&self, compression: Compression) -> i8 {
        let mut bits = compression.0 & COMPRESSION_MASK;
        if matches!(self.magic, LegacyMagic::V1)
            && matches!(self.timestamp_type, TimestampType::LogAppendTime)
        {
            bits |= LOG_APPEND_TIME_BIT;
        }
        i8::from_be_bytes([bits])
    }

    /// The exact number of bytes [`LegacyBuilder::write`] (or [`LegacyBuilder::write_inner`])
    /// writes for `records`.
    ///
    /// # Errors
    ///
    /// `FieldNotInVersion` (`"NewRecord.headers"`, version = magic) when a record has headers;
    /// `LengthOverflow` when a key, value or message is longer than an `int32` can say.
    pub fn encoded_len<'r, I>(&self, records: I) -> Result<usize, EncodeError>
    where
        I: IntoIterator,
        I::Item: Borrow<NewRecord<'r>>,
    {
        Ok(self.inner_set(records)?.len)
    }

    /// Sizes `records` as an inner set, without writing anything.
    ///
    /// # Errors
    ///
    /// As [`LegacyBuilder::encoded_len`].
    pub fn inner_set<'r, I>(&self, records: I) -> Result<InnerSet, EncodeError>
    where
        I: IntoIterator,
        I::Item: Borrow<NewRecord<'r>>,
    {
        let mut len: usize = 0;
        let mut count: usize = 0;
        let mut max: Option<i64> = None;
        for record in records {
            let record = record.borrow();
            len = len.saturating_add(self.entry_len(record)?);
            count = count.saturating_add(1);
            max = Some(max.map_or(record.timestamp, |m| m.max(record.timestamp)));
        }
        let last_index = i64::try_from(count).unwrap_or(i64::MAX).wrapping_sub(1);
        Ok(InnerSet {
            len,
            count,
            last_offset: self.base_offset.wrapping_add(last_index),
            max_timestamp: max.unwrap_or(-1),
        })
    }

    /// Writes `records` as a plain (uncompressed) message set into `out`, entry `i` at offset
    /// `base + i`, and returns its length.
    ///
    /// # Errors
    ///
    /// As [`LegacyBuilder::encoded_len`], and `BufferTooSmall` (nothing written) when `out` is
    /// shorter than the set.
    pub fn write<'r, I>(&self, records: I, out: &mut [u8]) -> Result<usize, EncodeError>
    where
        I: IntoIterator + Clone,
        I::Item: Borrow<NewRecord<'r>>,
    {
        let set = self.inner_set(records.clone())?;
        Writer::new(out).check_capacity(set.len)?;
        self.write_entries(
            records,
            self.base_offset,
            out.get_mut(..set.len).unwrap_or_default(),
        );
        Ok(set.len)
    }

    /// Writes `records` as the uncompressed inner set of a wrapper into `out`: offsets
    /// `base + i` in magic 0, relative offsets `i` in magic 1. Compress the first
    /// [`InnerSet::len`] bytes of `out` and pass them, with the returned [`InnerSet`], to
    /// [`LegacyBuilder::write_wrapper`].
    ///
    /// # Errors
    ///
    /// As [`LegacyBuilder::write`].
    pub fn write_inner<'r, I>(&self, records: I, out: &mut [u8]) -> Result<InnerSet, EncodeError>
    where
        I: IntoIterator + Clone,
        I::Item: Borrow<NewRecord<'r>>,
    {
        let set = self.inner_set(records.clone())?;
        Writer::new(out).check_capacity(set.len)?;
        let first = match self.magic {
            LegacyMagic::V0 => self.base_offset,
            LegacyMagic::V1 => 0,
        };
        self.write_entries(records, first, out.get_mut(..set.len).unwrap_or_default());
        Ok(set)
    }

    /// The exact number of bytes [`LegacyBuilder::write_wrapper`] writes for a compressed inner
    /// set of `compressed_len` bytes.
    ///
    /// # Errors
    ///
    /// `LengthOverflow` when the message is longer than an `int32` can say.
    pub fn wrapper_len(&self, compressed_len: usize) -> Result<usize, EncodeError> {
        message_len(self.magic, 0, compressed_len)
    }

    /// Writes a wrapper message into `out` and returns its length: null key, value `compressed`
    /// (an inner set written by [`LegacyBuilder::write_inner`], compressed by the caller with
    /// `compression`), offset [`InnerSet::last_offset`] and, in magic 1, timestamp
    /// [`InnerSet::max_timestamp`].
    ///
    /// Kafka refuses a wrapper whose inner set is empty; this writes one if asked.
    ///
    /// # Errors
    ///
    /// `FieldNotInVersion` (`"LegacyMessage.attributes"`, version = magic) when `compression` is
    /// not gzip, snappy or lz4 (an uncompressed message is not a wrapper, and zstd needs magic
    /// 2); `LengthOverflow` as [`LegacyBuilder::wrapper_len`]; `BufferTooSmall` (nothing
    /// written) when `out` is too short.
    pub fn write_wrapper(
        &self,
        compression: Compression,
        inner: &InnerSet,
        compressed: &[u8],
        out: &mut [u8],
    ) -> Result<usize, EncodeError> {
        if !matches!(compression.0, 1..=3) {
            return Err(EncodeError::FieldNotInVersion {
                path: "LegacyMessage.attributes",
                version: i16::from(self.magic.magic()),
                versions: VersionRange::from(2),
                ignorable: false,
            });
        }
        let total = self.wrapper_len(compressed.len())?;
        Writer::new(out).check_capacity(total)?;
        let Some(entry) = out.get_mut(..total) else {
            return Err(EncodeError::BufferTooSmall {
                required: total,
                available: out.len(),
            });
        };
        write_message(
            entry,
            self.magic,
            inner.last_offset,
            self.attributes(compression),
            inner.max_timestamp,
            None,
            Some(compressed),
        );
        Ok(total)
    }

    /// Bytes of one entry for `record`.
    fn entry_len(&self, record: &NewRecord<'_>) -> Result<usize, EncodeError> {
        if !record.headers.is_empty() {
            return Err(EncodeError::FieldNotInVersion {
                path: "NewRecord.headers",
                version: i16::from(self.magic.magic()),
                versions: VersionRange::from(2),
                ignorable: false,
            });
        }
        let key = nullable_bytes_len(record.key, false, "NewRecord.key")?;
        let value = nullable_bytes_len(record.value, false, "NewRecord.value")?;
        // The null lengths are part of the overhead.
        message_len(self.magic, key.saturating_sub(4), value.saturating_sub(4))
    }

    /// Writes one entry per record, offsets counting up from `first`. Sizes were checked.
    fn write_entries<'r, I>(&self, records: I, first: i64, out: &mut [u8])
    where
        I: IntoIterator,
        I::Item: Borrow<NewRecord<'r>>,
    {
        let attributes = self.attributes(Compression::NONE);
        let mut rest = out;
        let mut offset = first;
        for record in records {
            let record = record.borrow();
            let len = self.entry_len(record).unwrap_or(usize::MAX);
            let Some((entry, tail)) = core::mem::take(&mut rest).split_at_mut_checked(len) else {
                return;
            };
            write_message(
                entry,
                self.magic,
                offset,
                attributes,
                record.timestamp,
                record.key,
                record.value,
            );
            rest = tail;
            offset = offset.wrapping_add(1);
        }
    }
}

/// Bytes of an entry whose key and value hold `key` and `value` bytes (nulls count as 0).
fn message_len(magic: LegacyMagic, key: usize, value: usize) -> Result<usize, EncodeError> {
    let total = magic.overhead().saturating_add(key).saturating_add(value);
    let size = total.saturating_sub(LOG_OVERHEAD);
    if i32::try_from(size).is_err() {
        return Err(EncodeError::LengthOverflow {
            path: "LegacyMessage.messageSize",
            length: size,
        });
    }
    Ok(total)
}

/// Writes one whole entry into `entry` (exactly its length) and fills in its CRC-32.
fn write_message(
    entry: &mut [u8],
    magic: LegacyMagic,
    offset: i64,
    attributes: i8,
    timestamp: i64,
    key: Option<&[u8]>,
    value: Option<&[u8]>,
) {
    let size = i32::try_from(entry.len().saturating_sub(LOG_OVERHEAD)).unwrap_or(i32::MAX);
    let mut w = Writer::new(entry);
    w.i64(offset);
    w.i32(size);
    w.u32(0); // CRC, filled in below
    w.i8(magic.magic());
    w.i8(attributes);
    if matches!(magic, LegacyMagic::V1) {
        w.i64(timestamp);
    }
    w.nullable_bytes(key, false);
    w.nullable_bytes(value, false);
    let crc = crc32(entry.get(CRC_COVERED..).unwrap_or_default());
    if let Some(dst) = entry.get_mut(CRC_OFFSET..CRC_COVERED) {
        dst.copy_from_slice(&crc.to_be_bytes());
    }
}
