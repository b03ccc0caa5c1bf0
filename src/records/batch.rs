//! The v2 record batch (magic 2): its 61-byte header read in place, and the view over a batch.

use core::mem::offset_of;

use zerocopy::byteorder::big_endian::{I16, I32, I64, U32};
use zerocopy::{FromBytes, Immutable, IntoBytes, KnownLayout, Unaligned};

use super::compression::{CompressionError, Decompressor};
use super::crc::crc32c;
use super::record::RecordIter;
use crate::error::{DecodeError, DecodeErrorKind};

/// Length of the v2 batch header (61): the offset of the first record.
pub const HEADER_LEN: usize = size_of::<RecordBatchHeader>();
/// Offset of the stored CRC-32C (17).
pub const CRC_OFFSET: usize = offset_of!(RecordBatchHeader, crc);
/// Offset of the first byte covered by the batch CRC (21, the attributes).
pub const CRC_START: usize = offset_of!(RecordBatchHeader, attributes);
/// Offset of the magic byte (16), in v2 batches and legacy messages alike.
pub const MAGIC_OFFSET: usize = offset_of!(RecordBatchHeader, magic);
/// Bytes of an entry before its size field ends (12): `baseOffset` and `batchLength`.
pub const LOG_OVERHEAD: usize = offset_of!(RecordBatchHeader, partition_leader_epoch);
/// The smallest `batchLength` of a v2 batch (49): a header with no records.
pub const MIN_BATCH_LENGTH: i32 = 49;

const _: () = assert!(HEADER_LEN == 61 && CRC_OFFSET == 17 && CRC_START == 21);
const _: () = assert!(MAGIC_OFFSET == 16 && LOG_OVERHEAD == 12);

/// The 61-byte header of a v2 record batch, as it lies on the wire: every field big-endian,
/// alignment 1, read in place from the input with zerocopy.
///
/// The fields are public wire integers; [`RecordBatch`] has accessors that return native values.
#[derive(
    Clone, Copy, PartialEq, Eq, Hash, FromBytes, IntoBytes, KnownLayout, Immutable, Unaligned,
)]
#[repr(C)]
pub struct RecordBatchHeader {
    /// Offset of the first record.
    pub base_offset: I64,
    /// Bytes that follow this field to the end of the batch (total length − 12).
    pub batch_length: I32,
    /// Leader epoch stamped by the partition leader; -1 when unknown. Not covered by the CRC.
    pub partition_leader_epoch: I32,
    /// Format version: 2.
    pub magic: i8,
    /// CRC-32C of the bytes from `attributes` to the end of the batch.
    pub crc: U32,
    /// Compression, timestamp type and flags: see [`Attributes`].
    pub attributes: I16,
    /// Offset of the last record minus `base_offset`.
    pub last_offset_delta: I32,
    /// Timestamp of the first record, or the delete horizon when the attributes say so.
    pub base_timestamp: I64,
    /// Largest record timestamp (or the log-append time).
    pub max_timestamp: I64,
    /// Producer id; -1 for none.
    pub producer_id: I64,
    /// Producer epoch; -1 for none.
    pub producer_epoch: I16,
    /// Sequence number of the first record; -1 for none.
    pub base_sequence: I32,
    /// Number of records in the batch.
    pub records_count: I32,
}

impl RecordBatchHeader {
    /// The header of the v2 batch at the start of `batch`, for changing fields in place: a broker
    /// assigning `base_offset`, a leader stamping `partition_leader_epoch` (neither is covered by
    /// the CRC), or anything else followed by [`RecordBatchHeader::refresh_crc`].
    ///
    /// ```
    /// use kwire::records::{BatchBuilder, NewRecord, RecordBatch, RecordBatchHeader};
    ///
    /// let mut buf = [0u8; 128];
    /// let n = BatchBuilder::new().write(&[NewRecord::new(b"v")], &mut buf)?;
    /// let header = RecordBatchHeader::from_batch_mut(&mut buf[..n])?;
    /// header.base_offset.set(1_000);
    /// header.partition_leader_epoch.set(7);
    /// let batch = RecordBatch::parse(&buf[..n])?;
    /// batch.verify_crc()?;
    /// assert_eq!(batch.base_offset(), 1_000);
    /// # Ok::<(), Box<dyn core::error::Error>>(())
    /// ```
    ///
    /// # Errors
    ///
    /// As [`RecordBatch::parse`]: the magic must be 2 and `batch` must hold the whole batch.
    pub fn from_batch_mut(batch: &mut [u8]) -> Result<&mut Self, DecodeError> {
        RecordBatch::parse(batch)?;
        match Self::mut_from_prefix(batch) {
            Ok((header, _)) => Ok(header),
            // Unreachable: the batch parsed, so it has at least 61 bytes.
            Err(_) => Err(DecodeError::new(
                0,
                DecodeErrorKind::Malformed,
                "RecordBatch",
            )),
        }
    }

    /// Recomputes and stores the CRC-32C of the v2 batch at the start of `batch`, after fields it
    /// covers were changed in place. Returns the new CRC.
    ///
    /// # Errors
    ///
    /// As [`RecordBatch::parse`].
    pub fn refresh_crc(batch: &mut [u8]) -> Result<u32, DecodeError> {
        let len = RecordBatch::parse(batch)?.len();
        let crc = crc32c(batch.get(CRC_START..len).unwrap_or_default());
        if let Some(dst) = batch.get_mut(CRC_OFFSET..CRC_START) {
            dst.copy_from_slice(&crc.to_be_bytes());
        }
        Ok(crc)
    }
}

impl core::fmt::Debug for RecordBatchHeader {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("RecordBatchHeader")
            .field("base_offset", &self.base_offset.get())
            .field("batch_length", &self.batch_length.get())
            .field("partition_leader_epoch", &self.partition_leader_epoch.get())
            .field("magic", &self.magic)
            .field("crc", &format_args!("{:#010x}", self.crc.get()))
            .field("attributes", &Attributes(self.attributes.get()))
            .field("last_offset_delta", &self.last_offset_delta.get())
            .field("base_timestamp", &self.base_timestamp.get())
            .field("max_timestamp", &self.max_timestamp.get())
            .field("producer_id", &self.producer_id.get())
            .field("producer_epoch", &self.producer_epoch.get())
            .field("base_sequence", &self.base_sequence.get())
            .field("records_count", &self.records_count.get())
            .finish()
    }
}

#[cfg(feature = "defmt")]
impl defmt::Format for RecordBatchHeader {
    fn format(&self, f: defmt::Formatter<'_>) {
        defmt::write!(
            f,
            "RecordBatchHeader {{ base_offset: {}, batch_length: {}, magic: {}, crc: {=u32:#x}, attributes: {}, records_count: {} }}",
            self.base_offset.get(),
            self.batch_length.get(),
            self.magic,
            self.crc.get(),
            Attributes(self.attributes.get()),
            self.records_count.get()
        );
    }
}

/// A compression codec, from bits 0-2 of the attributes. Open: values Kafka has not defined are
/// kept as they are.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct Compression(pub u8);

impl Compression {
    /// Not compressed.
    pub const NONE: Self = Self(0);
    /// gzip (RFC 1952).
    pub const GZIP: Self = Self(1);
    /// Snappy, in the xerial stream framing that Kafka's Java client writes.
    pub const SNAPPY: Self = Self(2);
    /// LZ4, frame format.
    pub const LZ4: Self = Self(3);
    /// Zstandard (v2 batches only).
    pub const ZSTD: Self = Self(4);

    /// The codec's name as Kafka spells it in `compression.type`, or `None` for an undefined
    /// value.
    #[must_use]
    pub const fn name(self) -> Option<&'static str> {
        match self.0 {
            0 => Some("none"),
            1 => Some("gzip"),
            2 => Some("snappy"),
            3 => Some("lz4"),
            4 => Some("zstd"),
            _ => None,
        }
    }
}

/// Where record timestamps come from (bit 3 of the attributes).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum TimestampType {
    /// Set by the producer (each record's own timestamp).
    CreateTime,
    /// Set by the broker on append: every record's timestamp is the batch's `max_timestamp`.
    LogAppendTime,
}

/// The `attributes` of a v2 batch. Open: every bit is kept, the undefined ones included.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct Attributes(pub i16);

impl Attributes {
    const COMPRESSION_MASK: i16 = 0x07;
    const TIMESTAMP_TYPE: i16 = 0x08;
    const TRANSACTIONAL: i16 = 0x10;
    const CONTROL: i16 = 0x20;
    const DELETE_HORIZON: i16 = 0x40;

    /// Builds attributes from their parts.
    #[must_use]
    pub const fn new(
        compression: Compression,
        timestamp_type: TimestampType,
        transactional: bool,
        control: bool,
    ) -> Self {
        let mut bits = Self::COMPRESSION_MASK & i16::from_be_bytes([0, compression.0]);
        if matches!(timestamp_type, TimestampType::LogAppendTime) {
            bits |= Self::TIMESTAMP_TYPE;
        }
        if transactional {
            bits |= Self::TRANSACTIONAL;
        }
        if control {
            bits |= Self::CONTROL;
        }
        Self(bits)
    }

    /// The compression codec (bits 0-2).
    #[must_use]
    pub const fn compression(self) -> Compression {
        Compression(self.0.to_be_bytes()[1] & 0x07)
    }

    /// The timestamp type (bit 3).
    #[must_use]
    pub const fn timestamp_type(self) -> TimestampType {
        if self.0 & Self::TIMESTAMP_TYPE != 0 {
            TimestampType::LogAppendTime
        } else {
            TimestampType::CreateTime
        }
    }

    /// Whether the batch belongs to a transaction (bit 4).
    #[must_use]
    pub const fn is_transactional(self) -> bool {
        self.0 & Self::TRANSACTIONAL != 0
    }

    /// Whether the batch holds control records (bit 5).
    #[must_use]
    pub const fn is_control(self) -> bool {
        self.0 & Self::CONTROL != 0
    }

    /// Whether `base_timestamp` holds the delete horizon of a compacted batch (bit 6).
    #[must_use]
    pub const fn has_delete_horizon(self) -> bool {
        self.0 & Self::DELETE_HORIZON != 0
    }

    /// These attributes with the delete-horizon bit set or cleared.
    #[must_use]
    pub const fn with_delete_horizon(self, present: bool) -> Self {
        if present {
            Self(self.0 | Self::DELETE_HORIZON)
        } else {
            Self(self.0 & !Self::DELETE_HORIZON)
        }
    }
}

/// A view over one v2 record batch, borrowed from the input.
///
/// Building the view checks the magic byte first, then that `batchLength` is at least the header's
/// 49 and that the input holds the whole batch; nothing else is trusted, and the view costs no
/// CRC, so that a proxy can forward batches without paying for it. [`RecordBatch::records`]
/// checks the CRC ([`RecordBatch::verify_crc`]) and then reads the records lazily;
/// [`RecordBatch::records_unchecked`] reads them without the check.
///
/// ```
/// use kwire::records::RecordBatch;
///
/// // The 70-byte batch of the protocol notes: one record, null key, value "hi".
/// let bytes = [
///     0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x3a, 0xff, 0xff, 0xff, 0xff, 2, 0xbb, 0xcc, 0x41, 0x15,
///     0, 0, 0, 0, 0, 0, 0, 0, 1, 0x8b, 0xcf, 0xe5, 0x68, 0, 0, 0, 1, 0x8b, 0xcf, 0xe5, 0x68, 0,
///     0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0, 0, 0,
///     1, 0x10, 0, 0, 0, 1, 4, b'h', b'i', 0,
/// ];
/// let batch = RecordBatch::parse(&bytes)?;
/// batch.verify_crc()?;
/// assert_eq!(batch.records_count(), 1);
/// for record in batch.records()? {
///     let record = record?;
///     assert_eq!(record.key(), None);
///     assert_eq!(record.value(), Some(&b"hi"[..]));
///     assert_eq!(record.timestamp(), 1_700_000_000_000);
/// }
/// # Ok::<(), kwire::DecodeError>(())
/// ```
#[derive(Clone, Copy, PartialEq, Eq)]
pub struct RecordBatch<'a> {
    header: &'a RecordBatchHeader,
    bytes: &'a [u8],
    base: usize,
}

impl<'a> RecordBatch<'a> {
    /// Reads the batch at the start of `input` (bytes after it are ignored). Offsets in errors
    /// count from the start of `input`.
    ///
    /// # Errors
    ///
    /// `Truncated` when `input` is shorter than 17 bytes or than the batch it declares;
    /// `UnknownMagic` when the magic byte is not 2; `EntryTooSmall` when `batchLength` is below
    /// 49.
    pub fn parse(input: &'a [u8]) -> Result<Self, DecodeError> {
        Self::parse_at(input, 0)
    }

    /// As [`RecordBatch::parse`], with `input` starting at absolute offset `base` of a larger
    /// buffer (errors and [`RecordBatch::offset`] then count from that buffer's start).
    ///
    /// # Errors
    ///
    /// As [`RecordBatch::parse`].
    pub fn parse_at(input: &'a [u8], base: usize) -> Result<Self, DecodeError> {
        let at = |rel: usize| base.saturating_add(rel);
        let Some(&magic) = input.get(MAGIC_OFFSET) else {
            return Err(DecodeError::new(
                at(input.len()),
                DecodeErrorKind::Truncated {
                    needed: (MAGIC_OFFSET + 1).saturating_sub(input.len()),
                },
                "RecordBatch.magic",
            ));
        };
        let magic = i8::from_be_bytes([magic]);
        if magic != 2 {
            return Err(DecodeError::new(
                at(MAGIC_OFFSET),
                DecodeErrorKind::UnknownMagic(magic),
                "RecordBatch.magic",
            ));
        }
        let length = entry_size(input).unwrap_or(0);
        if length < MIN_BATCH_LENGTH {
            return Err(DecodeError::new(
                at(8),
                DecodeErrorKind::EntryTooSmall {
                    size: length,
                    min: MIN_BATCH_LENGTH,
                },
                "RecordBatch.batchLength",
            ));
        }
        let total = usize::try_from(length)
            .unwrap_or(usize::MAX)
            .saturating_add(LOG_OVERHEAD);
        let Some(bytes) = input.get(..total) else {
            return Err(DecodeError::new(
                at(input.len()),
                DecodeErrorKind::Truncated {
                    needed: total.saturating_sub(input.len()),
                },
                "RecordBatch.batchLength",
            ));
        };
        let Ok((header, _)) = RecordBatchHeader::ref_from_prefix(bytes) else {
            // Unreachable: `total` is at least 61.
            return Err(DecodeError::new(
                at(0),
                DecodeErrorKind::Malformed,
                "RecordBatch",
            ));
        };
        Ok(Self {
            header,
            bytes,
            base,
        })
    }

    /// The header, read in place.
    #[must_use]
    pub const fn header(&self) -> &'a RecordBatchHeader {
        self.header
    }

    /// The whole batch, header included.
    #[must_use]
    pub const fn as_bytes(&self) -> &'a [u8] {
        self.bytes
    }

    /// The batch's length in bytes (`batchLength` + 12).
    #[must_use]
    pub const fn len(&self) -> usize {
        self.bytes.len()
    }

    /// Always false: a batch has at least its header.
    #[must_use]
    pub const fn is_empty(&self) -> bool {
        self.bytes.is_empty()
    }

    /// Absolute offset of the batch's first byte in the buffer it was read from.
    #[must_use]
    pub const fn offset(&self) -> usize {
        self.base
    }

    /// The records section (everything after the 61-byte header): the records themselves, or one
    /// compressed stream of them.
    #[must_use]
    pub fn payload(&self) -> &'a [u8] {
        self.bytes.get(HEADER_LEN..).unwrap_or_default()
    }

    /// `baseOffset`.
    #[must_use]
    pub fn base_offset(&self) -> i64 {
        self.header.base_offset.get()
    }

    /// `batchLength`.
    #[must_use]
    pub fn batch_length(&self) -> i32 {
        self.header.batch_length.get()
    }

    /// `partitionLeaderEpoch`.
    #[must_use]
    pub fn partition_leader_epoch(&self) -> i32 {
        self.header.partition_leader_epoch.get()
    }

    /// The magic byte: 2.
    #[must_use]
    pub const fn magic(&self) -> i8 {
        self.header.magic
    }

    /// The stored CRC-32C.
    #[must_use]
    pub fn crc(&self) -> u32 {
        self.header.crc.get()
    }

    /// The attributes.
    #[must_use]
    pub fn attributes(&self) -> Attributes {
        Attributes(self.header.attributes.get())
    }

    /// The compression codec.
    #[must_use]
    pub fn compression(&self) -> Compression {
        self.attributes().compression()
    }

    /// Whether this is a control batch.
    #[must_use]
    pub fn is_control(&self) -> bool {
        self.attributes().is_control()
    }

    /// Whether this batch belongs to a transaction.
    #[must_use]
    pub fn is_transactional(&self) -> bool {
        self.attributes().is_transactional()
    }

    /// `lastOffsetDelta`.
    #[must_use]
    pub fn last_offset_delta(&self) -> i32 {
        self.header.last_offset_delta.get()
    }

    /// Offset of the last record: `baseOffset + lastOffsetDelta`.
    #[must_use]
    pub fn last_offset(&self) -> i64 {
        self.base_offset()
            .wrapping_add(i64::from(self.last_offset_delta()))
    }

    /// The offset after the batch: `last_offset() + 1`.
    #[must_use]
    pub fn next_offset(&self) -> i64 {
        self.last_offset().wrapping_add(1)
    }

    /// `baseTimestamp` as stored (the delete horizon when [`Attributes::has_delete_horizon`]).
    #[must_use]
    pub fn base_timestamp(&self) -> i64 {
        self.header.base_timestamp.get()
    }

    /// The delete horizon of a compacted batch, when the attributes say `baseTimestamp` holds it.
    #[must_use]
    pub fn delete_horizon(&self) -> Option<i64> {
        self.attributes()
            .has_delete_horizon()
            .then(|| self.base_timestamp())
    }

    /// `maxTimestamp`.
    #[must_use]
    pub fn max_timestamp(&self) -> i64 {
        self.header.max_timestamp.get()
    }

    /// `producerId`.
    #[must_use]
    pub fn producer_id(&self) -> i64 {
        self.header.producer_id.get()
    }

    /// `producerEpoch`.
    #[must_use]
    pub fn producer_epoch(&self) -> i16 {
        self.header.producer_epoch.get()
    }

    /// `baseSequence`.
    #[must_use]
    pub fn base_sequence(&self) -> i32 {
        self.header.base_sequence.get()
    }

    /// `recordsCount` as stored (it may be negative in damaged input; [`RecordBatch::records`]
    /// rejects that).
    #[must_use]
    pub fn records_count(&self) -> i32 {
        self.header.records_count.get()
    }

    /// CRC-32C over the bytes the stored CRC covers (offset 21 to the end).
    #[must_use]
    pub fn compute_crc(&self) -> u32 {
        crc32c(self.bytes.get(CRC_START..).unwrap_or_default())
    }

    /// Checks the stored CRC against the bytes.
    ///
    /// [`RecordBatch::records`] and [`RecordBatch::records_in`] check it first; a reader that
    /// does not want the check (as Kafka's consumers with `check.crcs=false`) reads with
    /// [`RecordBatch::records_unchecked`] and [`RecordBatch::records_in_unchecked`] instead.
    ///
    /// # Errors
    ///
    /// `CrcMismatch` at the CRC field's offset.
    pub fn verify_crc(&self) -> Result<(), DecodeError> {
        let stored = self.crc();
        let computed = self.compute_crc();
        if stored == computed {
            Ok(())
        } else {
            Err(DecodeError::new(
                self.base.saturating_add(CRC_OFFSET),
                DecodeErrorKind::CrcMismatch { stored, computed },
                "RecordBatch.crc",
            ))
        }
    }

    /// Checks the batch's CRC, then iterates the records of the uncompressed batch, lazily.
    ///
    /// # Errors
    ///
    /// `CrcMismatch` when the batch's bytes are not the ones its producer sent; `Compressed`
    /// when the batch is compressed (decompress [`RecordBatch::payload`] and use
    /// [`RecordBatch::records_in`]); `NegativeLength` when `recordsCount` is negative.
    pub fn records(&self) -> Result<RecordIter<'a>, DecodeError> {
        self.verify_crc()?;
        self.records_unchecked()
    }

    /// Iterates the records of an uncompressed batch without checking its CRC: for bytes whose
    /// integrity is known otherwise (checked before, or written here), or to look at a damaged
    /// batch.
    ///
    /// # Errors
    ///
    /// As [`RecordBatch::records`], without `CrcMismatch`.
    pub fn records_unchecked(&self) -> Result<RecordIter<'a>, DecodeError> {
        let compression = self.compression();
        if compression != Compression::NONE {
            return Err(DecodeError::new(
                self.base.saturating_add(CRC_START),
                DecodeErrorKind::Compressed(compression.0),
                "RecordBatch.attributes",
            ));
        }
        self.records_in_at(self.payload(), self.base.saturating_add(HEADER_LEN))
    }

    /// Checks the batch's CRC (over its compressed bytes), then iterates records held in
    /// `payload`, a decompressed copy of this batch's payload, with the batch's offsets,
    /// timestamps and sequences applied. Offsets in errors of the records count from the start
    /// of `payload`.
    ///
    /// # Errors
    ///
    /// `CrcMismatch`; `NegativeLength` when `recordsCount` is negative.
    pub fn records_in<'p>(&self, payload: &'p [u8]) -> Result<RecordIter<'p>, DecodeError> {
        self.verify_crc()?;
        self.records_in_unchecked(payload)
    }

    /// [`RecordBatch::records_in`] without the CRC check.
    ///
    /// # Errors
    ///
    /// `NegativeLength` when `recordsCount` is negative.
    pub fn records_in_unchecked<'p>(
        &self,
        payload: &'p [u8],
    ) -> Result<RecordIter<'p>, DecodeError> {
        self.records_in_at(payload, 0)
    }

    /// Checks the batch's CRC, decompresses the payload into `buf` with `decompressor` and
    /// iterates the records.
    ///
    /// An uncompressed batch is read in place, without touching `buf` (as
    /// [`RecordBatch::records`]). Record positions in errors count from the start of `buf`.
    /// Damaged bytes never reach the decompressor: the CRC covers the compressed payload. To
    /// read without the CRC check, decompress [`RecordBatch::payload`] and iterate with
    /// [`RecordBatch::records_in_unchecked`].
    ///
    /// ```
    /// # #[cfg(feature = "lz4")] {
    /// use kwire::records::compression::BuiltinCodecs;
    /// use kwire::records::{BatchBuilder, Compression, NewRecord, RecordBatch};
    ///
    /// let records = [NewRecord::new(b"hello hello hello hello").with_timestamp(5)];
    /// let (mut scratch, mut out) = ([0u8; 256], [0u8; 256]);
    /// let n = BatchBuilder::new().write_compressed(
    ///     &records,
    ///     Compression::LZ4,
    ///     &mut BuiltinCodecs::new(),
    ///     &mut scratch,
    ///     &mut out,
    /// )?;
    ///
    /// let batch = RecordBatch::parse(&out[..n])?;
    /// assert_eq!(batch.compression(), Compression::LZ4);
    /// let mut buf = [0u8; 256];
    /// for record in batch.decompress_into(&mut BuiltinCodecs::new(), &mut buf)? {
    ///     assert_eq!(record?.value(), Some(&b"hello hello hello hello"[..]));
    /// }
    /// # }
    /// # Ok::<(), Box<dyn core::error::Error>>(())
    /// ```
    ///
    /// # Errors
    ///
    /// [`CompressionError::Decode`] with `CrcMismatch` for a damaged batch; what the
    /// decompressor returns (`OutputTooSmall` when `buf` is too short: retry with a larger one);
    /// [`CompressionError::Decode`] when `recordsCount` is negative.
    pub fn decompress_into<'b, D>(
        &self,
        decompressor: &mut D,
        buf: &'b mut [u8],
    ) -> Result<RecordIter<'b>, CompressionError>
    where
        D: Decompressor + ?Sized,
        'a: 'b,
    {
        // The CRC covers the compressed bytes: nothing damaged reaches the decompressor.
        self.verify_crc()?;
        let codec = self.compression();
        if codec == Compression::NONE {
            return Ok(self.records_unchecked()?);
        }
        let n = decompressor.decompress(codec, self.payload(), buf)?;
        let payload: &'b [u8] = buf;
        let Some(payload) = payload.get(..n) else {
            return Err(CompressionError::Codec {
                codec,
                reason: "the decompressor reported more bytes than its output holds",
            });
        };
        Ok(self.records_in_unchecked(payload)?)
    }

    fn records_in_at<'p>(
        &self,
        payload: &'p [u8],
        offset: usize,
    ) -> Result<RecordIter<'p>, DecodeError> {
        let count = self.records_count();
        let Ok(count) = u32::try_from(count) else {
            return Err(DecodeError::new(
                self.base.saturating_add(57),
                DecodeErrorKind::NegativeLength(count),
                "RecordBatch.recordsCount",
            ));
        };
        let timestamp = match self.attributes().timestamp_type() {
            TimestampType::CreateTime => None,
            TimestampType::LogAppendTime => Some(self.max_timestamp()),
        };
        Ok(RecordIter::new(
            payload,
            offset,
            count,
            super::record::BatchContext {
                base_offset: self.base_offset(),
                base_timestamp: self.base_timestamp(),
                log_append_time: timestamp,
                base_sequence: self.base_sequence(),
            },
        ))
    }
}

impl core::fmt::Debug for RecordBatch<'_> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("RecordBatch")
            .field("offset", &self.base)
            .field("header", self.header)
            .finish_non_exhaustive()
    }
}

#[cfg(feature = "defmt")]
impl defmt::Format for RecordBatch<'_> {
    fn format(&self, f: defmt::Formatter<'_>) {
        defmt::write!(
            f,
            "RecordBatch {{ offset: {}, header: {} }}",
            self.base,
            self.header
        );
    }
}

/// The `int32` at offset 8 of an entry (`batchLength` or `messageSize`), if present.
pub(crate) fn entry_size(input: &[u8]) -> Option<i32> {
    let bytes: [u8; 4] = input.get(8..12)?.try_into().ok()?;
    Some(i32::from_be_bytes(bytes))
}
