//! Writing v2 record batches into a caller's buffer.

use core::borrow::Borrow;
#[cfg(feature = "in-place")]
use core::panic::RefUnwindSafe;

use super::batch::{
    Attributes, CRC_OFFSET, CRC_START, Compression, HEADER_LEN, LOG_OVERHEAD, TimestampType,
};
use super::compression::{CompressionError, Compressor};
use super::control_record::{ControlRecordType, TxnMarker};
#[cfg(feature = "in-place")]
use crate::codec::WriteRecords;
use crate::codec::{IntoNullable, Writer, varint_len, varlong_len};
use crate::error::EncodeError;

/// A header of a record to be written.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct NewHeader<'a> {
    /// The key (UTF-8 by convention; Kafka does not allow a null key).
    pub key: &'a [u8],
    /// The value; `None` for null.
    pub value: Option<&'a [u8]>,
}

impl<'a> NewHeader<'a> {
    /// A header with a value.
    #[must_use]
    pub const fn new(key: &'a [u8], value: &'a [u8]) -> Self {
        Self {
            key,
            value: Some(value),
        }
    }
}

/// A record to be written by [`BatchBuilder`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct NewRecord<'a> {
    /// The key; `None` for null.
    pub key: Option<&'a [u8]>,
    /// The value; `None` for null (a tombstone).
    pub value: Option<&'a [u8]>,
    /// The headers, written in this order (duplicate keys allowed).
    pub headers: &'a [NewHeader<'a>],
    /// The timestamp in milliseconds (-1 for none).
    pub timestamp: i64,
}

impl<'a> NewRecord<'a> {
    /// A record with a value, no key, no headers and timestamp -1.
    #[must_use]
    pub const fn new(value: &'a [u8]) -> Self {
        Self {
            key: None,
            value: Some(value),
            headers: &[],
            timestamp: -1,
        }
    }

    /// This record with a key: bytes (`b"k"`, `&vec`, a slice, `Some(slice)`), or `None` for
    /// null.
    ///
    /// ```
    /// use kwire::records::NewRecord;
    ///
    /// let key = vec![1u8, 2];
    /// assert_eq!(NewRecord::new(b"v").with_key(b"k").key, Some(&b"k"[..]));
    /// assert_eq!(NewRecord::new(b"v").with_key(&key).key, Some(&[1u8, 2][..]));
    /// assert_eq!(NewRecord::new(b"v").with_key(Some(&key[..1])).key, Some(&[1u8][..]));
    /// assert_eq!(NewRecord::new(b"v").with_key(b"k").with_key(None).key, None);
    /// ```
    #[must_use]
    pub fn with_key(mut self, key: impl IntoNullable<&'a [u8]>) -> Self {
        self.key = key.into_nullable();
        self
    }

    /// This record with a value: bytes, as [`NewRecord::with_key`] takes them, or `None` for
    /// null (a tombstone, which deletes the key from a compacted topic).
    ///
    /// ```
    /// use kwire::records::NewRecord;
    ///
    /// let tombstone = NewRecord::default().with_key(b"gone").with_value(None);
    /// assert_eq!((tombstone.key, tombstone.value), (Some(&b"gone"[..]), None));
    /// assert_eq!(NewRecord::new(b"a").with_value(b"b"), NewRecord::new(b"b"));
    /// ```
    #[must_use]
    pub fn with_value(mut self, value: impl IntoNullable<&'a [u8]>) -> Self {
        self.value = value.into_nullable();
        self
    }

    /// This record with headers.
    #[must_use]
    pub const fn with_headers(mut self, headers: &'a [NewHeader<'a>]) -> Self {
        self.headers = headers;
        self
    }

    /// This record with a timestamp.
    #[must_use]
    pub const fn with_timestamp(mut self, timestamp: i64) -> Self {
        self.timestamp = timestamp;
        self
    }

    /// Bytes of the record after its length prefix, given its deltas.
    fn body_len(&self, timestamp_delta: i64, offset_delta: i32) -> Result<usize, EncodeError> {
        let mut n = 1usize
            .saturating_add(varlong_len(timestamp_delta))
            .saturating_add(varint_len(offset_delta))
            .saturating_add(var_bytes_len(self.key, "NewRecord.key")?)
            .saturating_add(var_bytes_len(self.value, "NewRecord.value")?)
            .saturating_add(varint_len(len_i32(
                self.headers.len(),
                "NewRecord.headers",
            )?));
        for h in self.headers {
            n = n
                .saturating_add(var_bytes_len(Some(h.key), "NewHeader.key")?)
                .saturating_add(var_bytes_len(h.value, "NewHeader.value")?);
        }
        Ok(n)
    }

    #[cfg_attr(feature = "perf", inline(always))]
    fn write(&self, w: &mut Writer<'_>, body_len: i32, timestamp_delta: i64, offset_delta: i32) {
        w.varint(body_len);
        w.i8(0);
        w.varlong(timestamp_delta);
        w.varint(offset_delta);
        write_var_bytes(w, self.key);
        write_var_bytes(w, self.value);
        w.varint(i32::try_from(self.headers.len()).unwrap_or(i32::MAX));
        for h in self.headers {
            write_var_bytes(w, Some(h.key));
            write_var_bytes(w, h.value);
        }
    }
}

fn len_i32(n: usize, path: &'static str) -> Result<i32, EncodeError> {
    i32::try_from(n).map_err(|_| EncodeError::LengthOverflow { path, length: n })
}

fn var_bytes_len(v: Option<&[u8]>, path: &'static str) -> Result<usize, EncodeError> {
    Ok(match v {
        None => 1,
        Some(b) => varint_len(len_i32(b.len(), path)?).saturating_add(b.len()),
    })
}

#[cfg_attr(feature = "perf", inline(always))]
fn write_var_bytes(w: &mut Writer<'_>, v: Option<&[u8]>) {
    match v {
        None => w.varint(-1),
        Some(b) => {
            w.varint(i32::try_from(b.len()).unwrap_or(i32::MAX));
            w.put(b);
        }
    }
}

/// The sizes and timestamps of a batch, worked out before anything is written.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Plan {
    pub(crate) count: i32,
    pub(crate) base_timestamp: i64,
    pub(crate) max_timestamp: i64,
    /// Bytes of the uncompressed records.
    pub(crate) records_len: usize,
}

/// Writes a v2 record batch into a caller's buffer.
///
/// The builder holds the batch-level fields; the records come as a slice or any iterator of
/// [`NewRecord`], walked once: each record is written as it is sized, and the header and its
/// CRC-32C last. Offset deltas are 0, 1, 2, … in order; `baseTimestamp` is the first record's
/// timestamp (or the delete horizon, when one is set) and `maxTimestamp` the largest. When the
/// batch does not fit, the error says how long it is, and what the buffer holds is unspecified.
///
/// ```
/// use kwire::records::{BatchBuilder, NewRecord, RecordBatch};
///
/// let records = [NewRecord::new(b"hi").with_timestamp(1_700_000_000_000)];
/// let mut buf = [0u8; 128];
/// let n = BatchBuilder::new().write(&records, &mut buf)?;
/// assert_eq!(n, 70);
/// let batch = RecordBatch::parse(&buf[..n])?;
/// assert_eq!(batch.crc(), 0xbbcc_4115);
/// # Ok::<(), Box<dyn core::error::Error>>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct BatchBuilder {
    base_offset: i64,
    partition_leader_epoch: i32,
    producer_id: i64,
    producer_epoch: i16,
    base_sequence: i32,
    timestamp_type: TimestampType,
    transactional: bool,
    control: bool,
    delete_horizon: Option<i64>,
}

impl Default for BatchBuilder {
    fn default() -> Self {
        Self::new()
    }
}

impl BatchBuilder {
    /// A builder for a plain batch: base offset 0, no leader epoch, no producer id, epoch or
    /// sequence (all -1), create-time timestamps, not transactional, not control.
    #[must_use]
    pub const fn new() -> Self {
        Self {
            base_offset: 0,
            partition_leader_epoch: -1,
            producer_id: -1,
            producer_epoch: -1,
            base_sequence: -1,
            timestamp_type: TimestampType::CreateTime,
            transactional: false,
            control: false,
            delete_horizon: None,
        }
    }

    /// Sets `baseOffset` (producers write 0; brokers assign offsets).
    #[must_use]
    pub const fn with_base_offset(mut self, base_offset: i64) -> Self {
        self.base_offset = base_offset;
        self
    }

    /// Sets `partitionLeaderEpoch`.
    #[must_use]
    pub const fn with_partition_leader_epoch(mut self, epoch: i32) -> Self {
        self.partition_leader_epoch = epoch;
        self
    }

    /// Sets the idempotent-producer fields: producer id, epoch and the first record's sequence.
    #[must_use]
    pub const fn with_producer(mut self, id: i64, epoch: i16, base_sequence: i32) -> Self {
        self.producer_id = id;
        self.producer_epoch = epoch;
        self.base_sequence = base_sequence;
        self
    }

    /// Sets the timestamp type.
    #[must_use]
    pub const fn with_timestamp_type(mut self, timestamp_type: TimestampType) -> Self {
        self.timestamp_type = timestamp_type;
        self
    }

    /// Marks the batch transactional.
    #[must_use]
    pub const fn with_transactional(mut self, transactional: bool) -> Self {
        self.transactional = transactional;
        self
    }

    /// Marks the batch as a control batch.
    #[must_use]
    pub const fn with_control(mut self, control: bool) -> Self {
        self.control = control;
        self
    }

    /// Sets the delete horizon of a compacted batch (stored in `baseTimestamp`; record
    /// timestamps are then relative to it).
    #[must_use]
    pub const fn with_delete_horizon(mut self, horizon: Option<i64>) -> Self {
        self.delete_horizon = horizon;
        self
    }

    /// The attributes the batch is written with, for a payload compressed with `compression`.
    #[must_use]
    pub const fn attributes(&self, compression: Compression) -> Attributes {
        Attributes::new(
            compression,
            self.timestamp_type,
            self.transactional,
            self.control,
        )
        .with_delete_horizon(self.delete_horizon.is_some())
    }

    /// The exact number of bytes [`BatchBuilder::write`] writes for `records`.
    ///
    /// # Errors
    ///
    /// `LengthOverflow` when a key, value, header or the batch is longer than the format allows,
    /// or there are more than `i32::MAX` records.
    pub fn encoded_len<'r, I>(&self, records: I) -> Result<usize, EncodeError>
    where
        I: IntoIterator,
        I::Item: Borrow<NewRecord<'r>>,
    {
        let plan = self.plan(records)?;
        batch_len(plan.records_len)
    }

    /// Writes the batch into `out` and returns its length.
    ///
    /// # Errors
    ///
    /// As [`BatchBuilder::encoded_len`], and `BufferTooSmall` with the batch's length when
    /// `out` is shorter than the batch. The contents of `out` are unspecified after an error.
    pub fn write<'r, I>(&self, records: I, out: &mut [u8]) -> Result<usize, EncodeError>
    where
        I: IntoIterator,
        I::Item: Borrow<NewRecord<'r>>,
    {
        let available = out.len();
        let (head, rest) = out.split_at_mut_checked(HEADER_LEN).unwrap_or_default();
        let plan = self.write_records(records, rest)?;
        let total = batch_len(plan.records_len)?;
        let Some(payload) = rest
            .get(..plan.records_len)
            .filter(|_| head.len() == HEADER_LEN)
        else {
            return Err(EncodeError::BufferTooSmall {
                required: total,
                available,
            });
        };
        self.write_header(&plan, Compression::NONE, head, payload);
        Ok(total)
    }

    /// Bytes of the uncompressed records section for `records`: the scratch length
    /// [`BatchBuilder::write_compressed`] needs (the batch length minus the 61-byte header).
    ///
    /// # Errors
    ///
    /// As [`BatchBuilder::encoded_len`].
    pub fn records_len<'r, I>(&self, records: I) -> Result<usize, EncodeError>
    where
        I: IntoIterator,
        I::Item: Borrow<NewRecord<'r>>,
    {
        Ok(self.plan(records)?.records_len)
    }

    /// Writes a batch whose records are compressed with `codec` into `out` and returns its
    /// length.
    ///
    /// The records are first written uncompressed into `scratch` (it needs
    /// [`BatchBuilder::records_len`] bytes), then compressed by `compressor` into `out` after
    /// the 61-byte header; the header, with `codec` in its attributes, and the CRC-32C come
    /// last. With [`Compression::NONE`] this is [`BatchBuilder::write`] and `scratch` is not
    /// used. An `out` of 61 bytes plus [`Compressor::max_compressed_len`] always suffices.
    ///
    /// # Errors
    ///
    /// [`CompressionError::Encode`] as [`BatchBuilder::write`] (`BufferTooSmall` when `scratch`
    /// cannot hold the uncompressed records); [`CompressionError::OutputTooSmall`] with lengths
    /// counted for the whole of `out` when the compressed batch does not fit; what the
    /// compressor returns otherwise. The contents of `out` are unspecified after an error.
    pub fn write_compressed<'r, I, C>(
        &self,
        records: I,
        codec: Compression,
        compressor: &mut C,
        scratch: &mut [u8],
        out: &mut [u8],
    ) -> Result<usize, CompressionError>
    where
        I: IntoIterator,
        I::Item: Borrow<NewRecord<'r>>,
        C: Compressor + ?Sized,
    {
        if codec == Compression::NONE {
            return Ok(self.write(records, out)?);
        }
        let available = scratch.len();
        let plan = self.write_records(records, scratch)?;
        batch_len(plan.records_len)?;
        let Some(raw) = scratch.get(..plan.records_len) else {
            return Err(CompressionError::Encode(EncodeError::BufferTooSmall {
                required: plan.records_len,
                available,
            }));
        };
        let out_len = out.len();
        let too_small = |needed: Option<usize>| CompressionError::OutputTooSmall {
            available: out_len,
            needed: needed.map(|n| n.saturating_add(HEADER_LEN)),
        };
        let Some((head, body)) = out.split_at_mut_checked(HEADER_LEN) else {
            return Err(too_small(compressor.max_compressed_len(codec, raw.len())));
        };
        let n = match compressor.compress(codec, raw, body) {
            Ok(n) => n,
            Err(CompressionError::OutputTooSmall { needed, .. }) => {
                return Err(too_small(
                    needed.or_else(|| compressor.max_compressed_len(codec, raw.len())),
                ));
            }
            Err(err) => return Err(err),
        };
        let body: &[u8] = body;
        let Some(payload) = body.get(..n) else {
            return Err(CompressionError::Codec {
                codec,
                reason: "the compressor reported more bytes than its output holds",
            });
        };
        let total = batch_len(n)?;
        self.write_header(&plan, codec, head, payload);
        Ok(total)
    }

    /// Writes a control batch holding one transaction marker (ABORT or COMMIT), as a transaction
    /// coordinator does. The builder's producer id and epoch should be the transaction's.
    ///
    /// # Errors
    ///
    /// `BufferTooSmall` when `out` is too short.
    pub fn write_txn_marker(
        &self,
        commit: bool,
        marker: TxnMarker,
        timestamp: i64,
        out: &mut [u8],
    ) -> Result<usize, EncodeError> {
        let kind = if commit {
            ControlRecordType::COMMIT
        } else {
            ControlRecordType::ABORT
        };
        let key = kind.key();
        let value = marker.value();
        let record = NewRecord {
            key: Some(&key),
            value: Some(&value),
            headers: &[],
            timestamp,
        };
        self.with_control(true)
            .with_transactional(true)
            .write([record], out)
    }

    /// Sizes the records and finds the batch timestamps.
    pub(crate) fn plan<'r, I>(&self, records: I) -> Result<Plan, EncodeError>
    where
        I: IntoIterator,
        I::Item: Borrow<NewRecord<'r>>,
    {
        self.write_records(records, &mut [])
    }

    /// Writes the uncompressed records into `out` in one pass, sizing them and finding the
    /// batch timestamps as it goes. When `out` is shorter than the records (the plan's
    /// `records_len`), the records that do not fit are only sized, and what `out` holds is
    /// unspecified.
    pub(crate) fn write_records<'r, I>(
        &self,
        records: I,
        out: &mut [u8],
    ) -> Result<Plan, EncodeError>
    where
        I: IntoIterator,
        I::Item: Borrow<NewRecord<'r>>,
    {
        let mut count: usize = 0;
        let mut first: Option<i64> = None;
        let mut max: Option<i64> = None;
        let mut records_len: usize = 0;
        for (i, record) in records.into_iter().enumerate() {
            let record = record.borrow();
            let ts = record.timestamp;
            let base = *first.get_or_insert(self.delete_horizon.unwrap_or(ts));
            max = Some(max.map_or(ts, |m| m.max(ts)));
            let offset_delta = len_i32(i, "RecordBatch.records")?;
            let ts_delta = ts.wrapping_sub(base);
            let body = record.body_len(ts_delta, offset_delta)?;
            let body_i32 = len_i32(body, "NewRecord")?;
            let at = records_len;
            records_len = records_len
                .saturating_add(varint_len(body_i32))
                .saturating_add(body);
            if let Some(dst) = out.get_mut(at..records_len) {
                record.write(&mut Writer::new(dst), body_i32, ts_delta, offset_delta);
            }
            count = i.saturating_add(1);
        }
        Ok(Plan {
            count: len_i32(count, "RecordBatch.records")?,
            base_timestamp: first.or(self.delete_horizon).unwrap_or(-1),
            max_timestamp: max.unwrap_or(-1),
            records_len,
        })
    }

    /// Fills the 61-byte header `head` for a batch whose records section is `payload`, CRC
    /// included.
    pub(crate) fn write_header(
        &self,
        plan: &Plan,
        compression: Compression,
        head: &mut [u8],
        payload: &[u8],
    ) {
        let header = V2Header {
            base_offset: self.base_offset,
            partition_leader_epoch: self.partition_leader_epoch,
            attributes: self.attributes(compression).0,
            base_timestamp: plan.base_timestamp,
            max_timestamp: plan.max_timestamp,
            producer_id: self.producer_id,
            producer_epoch: self.producer_epoch,
            base_sequence: self.base_sequence,
            records_count: plan.count,
        };
        header.write(head, payload);
    }
}

/// A v2 batch of new records written in place (with the `in-place` feature): a [`BatchBuilder`]
/// and its records, which
/// [`Records::in_place`](super::Records::in_place) puts in a message's `records` field, so that
/// the encode writes the batch, CRC included, straight into its output where the field goes.
/// Nothing is built in a buffer of its own and copied, for any number of partitions, through
/// every encode ([`Encode::encode`](crate::codec::Encode::encode), `frame::encode_request`, a
/// session's `Client::send`).
///
/// The records are any iterator that can be walked again (a slice, `slice.iter()`, a `map` over
/// one): an encode walks them twice, once for the length the field's prefix says
/// ([`BatchBuilder::encoded_len`]), then to write them ([`BatchBuilder::write`]). The batch is
/// uncompressed; a compressed one is written with [`BatchBuilder::write_compressed`] and put in
/// the message as bytes.
///
/// ```
/// use kwire::frame;
/// use kwire::messages::produce_request::{PartitionProduceData, TopicProduceData};
/// use kwire::messages::{ProduceRequest, RequestHeader};
/// use kwire::records::{BatchBuilder, NewBatch, NewRecord, Records, WriteRecords};
/// use kwire::ApiKey;
///
/// let records = [NewRecord::new(b"21.5").with_key(b"board-7")];
/// let batch = NewBatch::new(BatchBuilder::new(), &records);
/// assert_eq!(batch.encoded_len()?, 79);
/// let partitions = [PartitionProduceData::default().with_records(Some(Records::in_place(&batch)))];
/// let topics = [TopicProduceData::default().with_name("sensors").with_partition_data(&partitions)];
/// let body = ProduceRequest::default().with_acks(-1).with_topic_data(&topics);
/// let header = RequestHeader::new(ApiKey::PRODUCE, 11, 1);
///
/// let mut out = [0u8; 256];
/// let n = frame::encode_request(&header, &body, &mut out)?;
/// assert_eq!(n, frame::request_len(&header, &body)?);
/// # Ok::<(), kwire::EncodeError>(())
/// ```
#[cfg(feature = "in-place")]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct NewBatch<I> {
    builder: BatchBuilder,
    records: I,
}

#[cfg(feature = "in-place")]
impl<I> NewBatch<I> {
    /// The batch `builder` writes of `records`.
    #[must_use]
    pub const fn new(builder: BatchBuilder, records: I) -> Self {
        Self { builder, records }
    }

    /// The batch-level fields.
    #[must_use]
    pub const fn builder(&self) -> &BatchBuilder {
        &self.builder
    }

    /// The records.
    #[must_use]
    pub const fn records(&self) -> &I {
        &self.records
    }
}

/// [`BatchBuilder::encoded_len`] and [`BatchBuilder::write`] of the records.
#[cfg(feature = "in-place")]
impl<'r, I> WriteRecords for NewBatch<I>
where
    I: IntoIterator + Clone + Sync + RefUnwindSafe,
    I::Item: Borrow<NewRecord<'r>>,
{
    fn encoded_len(&self) -> Result<usize, EncodeError> {
        self.builder.encoded_len(self.records.clone())
    }

    fn write(&self, out: &mut [u8]) -> Result<usize, EncodeError> {
        self.builder.write(self.records.clone(), out)
    }
}

/// The fields of a v2 batch header that its writer is given: the batch length, the magic byte,
/// the CRC-32C and the last offset delta (the count less one) are the writer's own.
pub(crate) struct V2Header {
    pub(crate) base_offset: i64,
    pub(crate) partition_leader_epoch: i32,
    pub(crate) attributes: i16,
    pub(crate) base_timestamp: i64,
    pub(crate) max_timestamp: i64,
    pub(crate) producer_id: i64,
    pub(crate) producer_epoch: i16,
    pub(crate) base_sequence: i32,
    pub(crate) records_count: i32,
}

impl V2Header {
    /// Fills the 61-byte `head` of a batch whose records section is `payload`, CRC included.
    #[inline(always)]
    pub(crate) fn write(&self, head: &mut [u8], payload: &[u8]) {
        let length = i32::try_from(
            payload
                .len()
                .saturating_add(HEADER_LEN)
                .saturating_sub(LOG_OVERHEAD),
        )
        .unwrap_or(i32::MAX);
        let mut w = Writer::new(head);
        w.i64(self.base_offset);
        w.i32(length);
        w.i32(self.partition_leader_epoch);
        w.i8(2);
        w.u32(0); // CRC, filled in below
        w.i16(self.attributes);
        w.i32(self.records_count.saturating_sub(1).max(0));
        w.i64(self.base_timestamp);
        w.i64(self.max_timestamp);
        w.i64(self.producer_id);
        w.i16(self.producer_epoch);
        w.i32(self.base_sequence);
        w.i32(self.records_count);
        let mut crc = super::crc::Crc32c::new();
        crc.update(head.get(CRC_START..).unwrap_or_default());
        crc.update(payload);
        if let Some(dst) = head.get_mut(CRC_OFFSET..CRC_START) {
            dst.copy_from_slice(&crc.finish().to_be_bytes());
        }
    }
}

/// Total batch length for a records section of `records_len` bytes.
pub(crate) fn batch_len(records_len: usize) -> Result<usize, EncodeError> {
    let total = HEADER_LEN.saturating_add(records_len);
    len_i32(
        total.saturating_sub(LOG_OVERHEAD),
        "RecordBatch.batchLength",
    )?;
    Ok(total)
}
