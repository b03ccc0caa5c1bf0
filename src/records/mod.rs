//! Record batches: the `records` fields of Produce, Fetch and ShareFetch, read in place.
//!
//! A `records` field holds a concatenation of log entries. Each starts with an `int64` offset, an
//! `int32` size (the bytes after it) and, at offset 16, a magic byte: 2 for a [`RecordBatch`]
//! (the format of every Kafka since 0.11), 0 or 1 for a legacy message ([`LegacyMessage`]).
//!
//! * [`Records::batches`] walks the entries. As Kafka's fetch path does, it stops without error
//!   at a last entry that the input cuts short after complete ones (brokers send partial batches
//!   at the end of a fetch response; [`Batches::partial`] reports it). A field holding only part
//!   of its first entry is an `IncompleteFirstBatch` error (the fetch size is smaller than the
//!   batch), and any other damage a typed [`DecodeError`]: the walk never ends empty in silence.
//!   [`Records::record_batches`] walks them the same way as v2 batches only, for a client that
//!   reads nothing older (a firmware then links no legacy reader).
//! * [`RecordBatch`] reads the 61-byte header in place ([`RecordBatchHeader`], a zerocopy struct)
//!   and iterates records lazily ([`Record`], [`Headers`]) once its CRC-32C has been checked
//!   ([`RecordBatch::records`]; [`RecordBatch::records_unchecked`] skips the check).
//!
//! ```
//! use kwire::DecodeErrorKind;
//! use kwire::records::{BatchBuilder, NewRecord, Records};
//!
//! let mut field = [0u8; 256];
//! let n = BatchBuilder::new().write(&[NewRecord::new(b"hello")], &mut field)?;
//!
//! // A whole batch, then the first 20 bytes of the next, as a fetch cut at its limit ends.
//! field.copy_within(..20, n);
//! let mut batches = Records::new(&field[..n + 20]).batches();
//! for batch in batches.by_ref() {
//!     let batch = batch?.as_v2().copied().unwrap();
//!     for record in batch.records()? {
//!         assert_eq!(record?.value(), Some(&b"hello"[..]));
//!     }
//! }
//! assert_eq!(batches.partial().map(|p| (p.byte_offset, p.available)), Some((n, 20)));
//!
//! // Only part of a batch: an error, not an empty walk.
//! let err = Records::new(&field[..20]).batches().next().unwrap().unwrap_err();
//! assert!(matches!(err.kind, DecodeErrorKind::IncompleteFirstBatch { available: 20, .. }));
//!
//! // A damaged batch is refused before any record is read.
//! field[n - 1] ^= 1;
//! let damaged = Records::new(&field[..n]).batches().next().unwrap()?;
//! let err = damaged.as_v2().unwrap().records().unwrap_err();
//! assert!(matches!(err.kind, DecodeErrorKind::CrcMismatch { .. }));
//! # Ok::<(), Box<dyn core::error::Error>>(())
//! ```
//! * [`ControlRecord`] reads the key of a control record; [`ControlRecord::payload`] (in
//!   [`crate::control`]) decodes its value, a transaction marker or a KRaft record.
//! * [`BatchBuilder`] writes a v2 batch into a caller's buffer, CRC included. With the
//!   `in-place` feature, a `NewBatch` (a builder and its records) is written in place, straight
//!   into an encoder's output where a message's records field goes (`Records::in_place`,
//!   `WriteRecords`).
//! * [`LegacyMessage`] reads a magic 0 or 1 message; [`LegacyMessage::inner`] iterates the inner
//!   messages of a compressed wrapper (with Kafka's offset rules for each magic),
//!   [`LegacyRecords`] the records of an uncompressed message set, and [`LegacyBuilder`] writes
//!   message sets for old brokers.
//! * [`compression`] is where the caller plugs in codecs (optional features supply them).
//! * [`crc`] has both checksums.
//!
//! Nothing here allocates or copies record data.

pub mod compression;
pub mod crc;

mod batch;
mod builder;
mod control_record;
mod legacy;
mod record;

pub use batch::{
    Attributes, CRC_OFFSET, CRC_START, Compression, HEADER_LEN, LOG_OVERHEAD, MAGIC_OFFSET,
    MIN_BATCH_LENGTH, RecordBatch, RecordBatchHeader, TimestampType,
};
#[cfg(feature = "in-place")]
pub use builder::NewBatch;
pub use builder::{BatchBuilder, NewHeader, NewRecord};
pub use control_record::{ControlRecord, ControlRecordType, TxnMarker};
pub use legacy::*;
pub use record::{Header, HeaderIter, Headers, Record, RecordIter};

pub use crate::codec::records_field::Records;
#[cfg(feature = "in-place")]
pub use crate::codec::records_field::WriteRecords;
use crate::error::{DecodeError, DecodeErrorKind};

/// Bytes of an entry up to and including its magic byte; fewer than this at the end of a records
/// field is a truncated tail.
const HEADER_UP_TO_MAGIC: usize = 17;
/// The smallest entry size Kafka accepts (a legacy v0 message with no key or value).
pub const MIN_ENTRY_SIZE: i32 = 14;

impl<'a> Records<'a> {
    /// Iterates the entries (v2 batches and legacy messages).
    #[must_use]
    pub const fn batches(&self) -> Batches<'a> {
        Batches {
            rest: self.as_bytes(),
            base: self.offset(),
            done: false,
            read_one: false,
            failed: false,
        }
    }

    /// Iterates the entries as v2 record batches: [`Records::batches`] for a client that reads
    /// only the format of every Kafka since 0.11 (brokers send nothing older to a Fetch of v4
    /// or newer). A legacy message is an `UnknownMagic` error, as [`RecordBatch::parse`] gives,
    /// and the code that reads legacy messages is not linked in.
    #[must_use]
    pub const fn record_batches(&self) -> RecordBatches<'a> {
        RecordBatches(self.batches())
    }
}

/// A byte range of a log that need not start or end on an entry boundary
/// (`FetchSnapshotResponse.UnalignedRecords`, a slice of a snapshot file). Kept raw.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Default)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct UnalignedRecords<'a> {
    bytes: &'a [u8],
}

impl<'a> UnalignedRecords<'a> {
    /// Wraps the bytes.
    #[must_use]
    pub const fn new(bytes: &'a [u8]) -> Self {
        Self { bytes }
    }

    /// The bytes.
    #[must_use]
    pub const fn as_bytes(&self) -> &'a [u8] {
        self.bytes
    }

    /// The length in bytes.
    #[must_use]
    pub const fn len(&self) -> usize {
        self.bytes.len()
    }

    /// True when there are no bytes.
    #[must_use]
    pub const fn is_empty(&self) -> bool {
        self.bytes.is_empty()
    }
}

impl<'a> From<&'a [u8]> for UnalignedRecords<'a> {
    fn from(bytes: &'a [u8]) -> Self {
        Self::new(bytes)
    }
}

impl core::fmt::Debug for UnalignedRecords<'_> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(f, "UnalignedRecords({} bytes)", self.bytes.len())
    }
}

/// One log entry of a records field.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum Batch<'a> {
    /// A v2 record batch (magic 2).
    V2(RecordBatch<'a>),
    /// A legacy message (magic 0 or 1), possibly a compressed wrapper.
    Legacy(LegacyMessage<'a>),
}

impl<'a> Batch<'a> {
    /// The magic byte.
    #[must_use]
    pub fn magic(&self) -> i8 {
        match self {
            Self::V2(b) => b.magic(),
            Self::Legacy(m) => m.magic(),
        }
    }

    /// The entry's bytes.
    #[must_use]
    pub const fn as_bytes(&self) -> &'a [u8] {
        match self {
            Self::V2(b) => b.as_bytes(),
            Self::Legacy(m) => m.as_bytes(),
        }
    }

    /// Absolute offset of the entry's first byte.
    #[must_use]
    pub const fn position(&self) -> usize {
        match self {
            Self::V2(b) => b.offset(),
            Self::Legacy(m) => m.position(),
        }
    }

    /// The v2 batch, if this is one.
    #[must_use]
    pub const fn as_v2(&self) -> Option<&RecordBatch<'a>> {
        match self {
            Self::V2(b) => Some(b),
            Self::Legacy(_) => None,
        }
    }

    /// The legacy message, if this is one.
    #[must_use]
    pub const fn as_legacy(&self) -> Option<&LegacyMessage<'a>> {
        match self {
            Self::V2(_) => None,
            Self::Legacy(m) => Some(m),
        }
    }

    /// Checks the entry's CRC (CRC-32C for v2, CRC-32 for legacy).
    ///
    /// # Errors
    ///
    /// `CrcMismatch`.
    pub fn verify_crc(&self) -> Result<(), DecodeError> {
        match self {
            Self::V2(b) => b.verify_crc(),
            Self::Legacy(m) => m.verify_crc(),
        }
    }
}

/// Iterator over the entries of a records field; see [`Records::batches`].
///
/// Three endings are told apart:
///
/// * the field ends on an entry boundary, or in a partial entry after complete ones, the normal
///   end of a fetch that was cut at its size limit: the iterator ends, and [`Batches::partial`]
///   says where the partial entry starts and how many bytes it lacks;
/// * the field holds only part of its first entry, so no batch can be read at all (a fetch size
///   smaller than the batch): an `IncompleteFirstBatch` error;
/// * a malformed entry: its error.
///
/// After an error it ends.
#[derive(Debug, Clone)]
pub struct Batches<'a> {
    rest: &'a [u8],
    base: usize,
    done: bool,
    /// Whether an entry has been read: a partial entry is an error only before the first.
    read_one: bool,
    /// Whether the iteration ended with an error.
    failed: bool,
}

/// The partial entry a records field ends in, after complete ones ([`Batches::partial`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct PartialBatch {
    /// Where its first byte is: a position in the buffer given to the outermost decode call,
    /// as [`DecodeError::offset`](crate::DecodeError::offset) counts it (not a Kafka offset).
    pub byte_offset: usize,
    /// The bytes of it the field holds.
    pub available: usize,
    /// How many more it needs: all of it when its size field was there to read, else at least
    /// as many as that field needs.
    pub needed: usize,
}

impl<'a> Batches<'a> {
    /// The bytes not yet read. Once the iterator has ended without error, this is the partial
    /// entry the field ends in (empty when the field ended on an entry boundary).
    #[must_use]
    pub const fn remainder(&self) -> &'a [u8] {
        self.rest
    }

    /// The partial entry the field ends in, once the iterator has ended without error: `None`
    /// when the field ended on an entry boundary (or the iteration has not ended).
    #[must_use]
    pub fn partial(&self) -> Option<PartialBatch> {
        if !self.done || self.failed || self.rest.is_empty() {
            return None;
        }
        Some(PartialBatch {
            byte_offset: self.base,
            available: self.rest.len(),
            needed: missing(self.rest),
        })
    }

    /// Where the next entry starts: a position in the buffer given to the outermost decode call
    /// (not a Kafka offset).
    #[must_use]
    pub const fn byte_offset(&self) -> usize {
        self.base
    }

    fn fail<B>(&mut self, err: DecodeError) -> Option<Result<B, DecodeError>> {
        self.done = true;
        self.failed = true;
        Some(Err(err))
    }
}

/// How many more bytes the partial entry `tail` needs: to its announced end when its size field
/// is there, else to the end of its header up to the magic byte.
fn missing(tail: &[u8]) -> usize {
    let announced = batch::entry_size(tail)
        .and_then(|size| usize::try_from(size).ok())
        .map(|size| size.saturating_add(LOG_OVERHEAD));
    announced
        .unwrap_or(HEADER_UP_TO_MAGIC)
        .max(HEADER_UP_TO_MAGIC)
        .saturating_sub(tail.len())
}

impl<'a> Batches<'a> {
    /// Ends the iteration at a partial entry: the normal end after complete entries, an error
    /// when it is the first.
    fn end_partial<B>(&mut self) -> Option<Result<B, DecodeError>> {
        if self.read_one || self.rest.is_empty() {
            self.done = true;
            return None;
        }
        let err = DecodeError::new(
            self.base,
            DecodeErrorKind::IncompleteFirstBatch {
                available: self.rest.len(),
                needed: missing(self.rest),
            },
            "Records",
        );
        self.fail(err)
    }
}

impl<'a> Iterator for Batches<'a> {
    type Item = Result<Batch<'a>, DecodeError>;

    fn next(&mut self) -> Option<Self::Item> {
        self.next_entry(|entry, base| LegacyMessage::parse_at(entry, base).map(Batch::Legacy))
    }
}

impl<'a> Batches<'a> {
    /// Reads the next entry: a v2 batch as `B`, any other through `legacy` (given the entry and
    /// its absolute offset). The one walk of [`Batches`] and [`RecordBatches`].
    #[inline(always)]
    fn next_entry<B: From<RecordBatch<'a>>>(
        &mut self,
        legacy: impl FnOnce(&'a [u8], usize) -> Result<B, DecodeError>,
    ) -> Option<Result<B, DecodeError>> {
        if self.done {
            return None;
        }
        if self.rest.len() < HEADER_UP_TO_MAGIC {
            return self.end_partial();
        }
        let size = batch::entry_size(self.rest).unwrap_or(0);
        if size < MIN_ENTRY_SIZE {
            let err = DecodeError::new(
                self.base.saturating_add(8),
                DecodeErrorKind::EntryTooSmall {
                    size,
                    min: MIN_ENTRY_SIZE,
                },
                "Records.size",
            );
            return self.fail(err);
        }
        let magic = self
            .rest
            .get(MAGIC_OFFSET)
            .map_or(0, |&m| i8::from_be_bytes([m]));
        if !(0..=2).contains(&magic) {
            let err = DecodeError::new(
                self.base.saturating_add(MAGIC_OFFSET),
                DecodeErrorKind::UnknownMagic(magic),
                "Records.magic",
            );
            return self.fail(err);
        }
        let total = usize::try_from(size)
            .unwrap_or(usize::MAX)
            .saturating_add(LOG_OVERHEAD);
        let Some((entry, rest)) = self.rest.split_at_checked(total) else {
            // A partial last entry: the end of the field, as in Kafka.
            return self.end_partial();
        };
        let parsed = if magic == 2 {
            RecordBatch::parse_at(entry, self.base).map(B::from)
        } else {
            legacy(entry, self.base)
        };
        match parsed {
            Ok(batch) => {
                self.rest = rest;
                self.base = self.base.saturating_add(total);
                self.read_one = true;
                Some(Ok(batch))
            }
            Err(err) => self.fail(err),
        }
    }
}

impl core::iter::FusedIterator for Batches<'_> {}

impl<'a> From<RecordBatch<'a>> for Batch<'a> {
    fn from(batch: RecordBatch<'a>) -> Self {
        Self::V2(batch)
    }
}

/// Iterator over the entries of a records field as v2 record batches; see
/// [`Records::record_batches`].
///
/// It ends as [`Batches`] does (a partial last entry after complete ones is the normal end,
/// [`RecordBatches::partial`] says where), and a legacy message is an `UnknownMagic` error.
/// After an error it ends.
#[derive(Debug, Clone)]
pub struct RecordBatches<'a>(Batches<'a>);

impl<'a> RecordBatches<'a> {
    /// The bytes not yet read, as [`Batches::remainder`].
    #[must_use]
    pub const fn remainder(&self) -> &'a [u8] {
        self.0.remainder()
    }

    /// The partial entry the field ends in, as [`Batches::partial`].
    #[must_use]
    pub fn partial(&self) -> Option<PartialBatch> {
        self.0.partial()
    }

    /// Where the next entry starts: a position in the buffer given to the outermost decode call
    /// (not a Kafka offset).
    #[must_use]
    pub const fn byte_offset(&self) -> usize {
        self.0.byte_offset()
    }
}

impl<'a> Iterator for RecordBatches<'a> {
    type Item = Result<RecordBatch<'a>, DecodeError>;

    fn next(&mut self) -> Option<Self::Item> {
        // A legacy entry read as a v2 batch: its magic byte is refused.
        self.0.next_entry(RecordBatch::parse_at)
    }
}

impl core::iter::FusedIterator for RecordBatches<'_> {}
