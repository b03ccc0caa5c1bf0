//! The storage of the mini broker: topics, partitions and their logs, kept in memory.
//!
//! A partition log is the concatenation of the record batches producers sent, byte for byte,
//! except for the two fields a broker owns: the base offset (assigned on append, as Kafka does)
//! and the partition leader epoch. Neither is covered by the batch CRC, so the stored batches stay
//! valid.

use std::collections::{BTreeMap, HashMap};
use std::mem::offset_of;

use kwire::codec::{Str, Uuid};
use kwire::records::compression::BuiltinCodecs;
use kwire::records::{Compression, HEADER_LEN, LOG_OVERHEAD, RecordBatch, RecordBatchHeader};
use kwire::{DecodeError, ErrorCode};

/// Where one stored batch lies, and what a fetch or a timestamp lookup needs to know of it.
#[derive(Debug, Clone, Copy)]
struct Entry {
    next_offset: i64,
    position: usize,
    len: usize,
    max_timestamp: i64,
}

/// One partition's log.
#[derive(Debug, Default)]
pub struct Log {
    bytes: Vec<u8>,
    entries: Vec<Entry>,
    next_offset: i64,
}

/// What a fetch of one partition found.
#[derive(Debug)]
pub struct Slice<'a> {
    pub error: i16,
    pub high_watermark: i64,
    pub bytes: &'a [u8],
}

impl Log {
    /// The first offset still in the log. Nothing is ever deleted here.
    pub fn start_offset(&self) -> i64 {
        0
    }

    /// Checks that `records` holds exactly one valid v2 batch, as Kafka requires of a Produce
    /// request from version 3 on, and returns it. `version` is the Produce version: zstd needs 7.
    ///
    /// The errors are Kafka's: no batch, more than one, or one of another magic is
    /// INVALID_RECORD; a batch that does not parse or fails its CRC is CORRUPT_MESSAGE; zstd
    /// before version 7 is UNSUPPORTED_COMPRESSION_TYPE.
    pub fn validate(records: &[u8], version: i16) -> Result<RecordBatch<'_>, i16> {
        // Fewer bytes than a batch header, or a length past the end, is no batch at all.
        let length = offset_of!(RecordBatchHeader, batch_length);
        let announced = records
            .get(length..LOG_OVERHEAD)
            .and_then(|b| b.try_into().ok())
            .map(i32::from_be_bytes);
        let whole = announced
            .and_then(|n| usize::try_from(n).ok())
            .is_some_and(|n| records.len() >= LOG_OVERHEAD + n);
        if records.len() < HEADER_LEN || !whole {
            return Err(ErrorCode::INVALID_RECORD.0);
        }
        let batch = match RecordBatch::parse(records) {
            Ok(b) => b,
            Err(e) if is_magic_error(&e) => return Err(ErrorCode::INVALID_RECORD.0),
            Err(_) => return Err(ErrorCode::CORRUPT_MESSAGE.0),
        };
        if batch.as_bytes().len() != records.len() {
            return Err(ErrorCode::INVALID_RECORD.0);
        }
        if batch.verify_crc().is_err() {
            return Err(ErrorCode::CORRUPT_MESSAGE.0);
        }
        if batch.compression() == Compression::ZSTD && version < 7 {
            return Err(ErrorCode::UNSUPPORTED_COMPRESSION_TYPE.0);
        }
        // Kafka's batch checks: a positive count that matches the offset range.
        let count = batch.records_count();
        if count <= 0
            || batch.last_offset_delta() < 0
            || i64::from(count) != i64::from(batch.last_offset_delta()) + 1
        {
            return Err(ErrorCode::INVALID_RECORD.0);
        }
        Self::validate_records(&batch)?;
        Ok(batch)
    }

    /// Reads every record, as Kafka does on append: a record that does not parse is
    /// CORRUPT_MESSAGE; fewer or more records than the count, or (compressed) inner offsets that
    /// are not 0, 1, 2, … are INVALID_RECORD. A codec not compiled in is taken on trust.
    fn validate_records(batch: &RecordBatch<'_>) -> Result<(), i16> {
        let compressed = batch.compression() != Compression::NONE;
        let check = |it: kwire::records::RecordIter<'_>| {
            let mut n: i64 = 0;
            for record in it {
                let record = record.map_err(|_| ErrorCode::CORRUPT_MESSAGE.0)?;
                if compressed && record.offset() != batch.base_offset() + n {
                    return Err(ErrorCode::INVALID_RECORD.0);
                }
                n += 1;
            }
            if n == i64::from(batch.records_count()) {
                Ok(())
            } else {
                Err(ErrorCode::INVALID_RECORD.0)
            }
        };
        if !compressed {
            // The CRC was checked above.
            let records = batch.records_unchecked();
            return check(records.map_err(|_| ErrorCode::CORRUPT_MESSAGE.0)?);
        }
        if !BuiltinCodecs::is_enabled(batch.compression()) {
            return Ok(());
        }
        let mut buf = vec![0u8; batch.payload().len().saturating_mul(4).max(1024)];
        loop {
            match batch.decompress_into(&mut BuiltinCodecs::new(), &mut buf) {
                Ok(it) => return check(it),
                Err(err) => match err.retry_len() {
                    Some(n) if n > buf.len() && n <= MAX_DECOMPRESSED => buf.resize(n, 0),
                    Some(_) => return Err(ErrorCode::INVALID_RECORD.0),
                    None => return Err(ErrorCode::CORRUPT_MESSAGE.0),
                },
            }
        }
    }

    /// Appends a batch `validate` accepted, assigning its offsets. Returns the base offset.
    pub fn append(&mut self, batch: &RecordBatch<'_>, leader_epoch: i32) -> i64 {
        let base = self.next_offset;
        let position = self.bytes.len();
        self.bytes.extend_from_slice(batch.as_bytes());
        let stored = &mut self.bytes[position..];
        if let Ok(header) = RecordBatchHeader::from_batch_mut(stored) {
            header.base_offset.set(base);
            header.partition_leader_epoch.set(leader_epoch);
        }
        let next = base + i64::from(batch.last_offset_delta()) + 1;
        self.entries.push(Entry {
            next_offset: next,
            position,
            len: batch.as_bytes().len(),
            max_timestamp: batch.max_timestamp(),
        });
        self.next_offset = next;
        base
    }

    /// The bytes a fetch from `offset` returns: whole batches from the one holding `offset`, at
    /// most `max_bytes` of them, except that the first batch is always whole when `first` is set
    /// (Kafka's "at least one batch" rule, for the first partition of a response that has data).
    /// The last batch may be cut short, as Kafka's are; but when not even the first batch fits,
    /// nothing is returned (Kafka's `firstEntryIncomplete`), never a lone partial batch.
    pub fn read(&self, offset: i64, max_bytes: usize, first: bool) -> Slice<'_> {
        let high_watermark = self.next_offset;
        if offset < self.start_offset() || offset > high_watermark {
            return Slice {
                error: ErrorCode::OFFSET_OUT_OF_RANGE.0,
                high_watermark,
                bytes: &[],
            };
        }
        let i = self.entries.partition_point(|e| e.next_offset <= offset);
        let Some(entry) = self.entries.get(i) else {
            return Slice {
                error: ErrorCode::NONE.0,
                high_watermark,
                bytes: &[],
            };
        };
        let available = self.bytes.len() - entry.position;
        let mut len = available.min(max_bytes);
        if len < entry.len {
            len = if first { entry.len } else { 0 };
        }
        Slice {
            error: ErrorCode::NONE.0,
            high_watermark,
            bytes: &self.bytes[entry.position..entry.position + len],
        }
    }

    /// The offset and timestamp ListOffsets answers for `timestamp`: -2 earliest, -1 latest, -3
    /// the record with the largest timestamp, otherwise the first record at or after it.
    pub fn lookup(&self, timestamp: i64) -> (i64, i64) {
        match timestamp {
            -2 | -4 => (self.start_offset(), -1),
            -1 | -5 => (self.next_offset, -1),
            -3 => {
                let mut best: Option<(i64, i64)> = None;
                for e in &self.entries {
                    for (offset, ts) in self.record_times(e) {
                        if best.is_none_or(|(_, b)| ts > b) {
                            best = Some((offset, ts));
                        }
                    }
                }
                best.unwrap_or((-1, -1))
            }
            t => {
                for e in self.entries.iter().filter(|e| e.max_timestamp >= t) {
                    if let Some(found) = self.record_times(e).into_iter().find(|&(_, ts)| ts >= t) {
                        return found;
                    }
                }
                (-1, -1)
            }
        }
    }

    /// Offset and timestamp of each record of a stored batch, decompressing it if need be, as
    /// Kafka reads records to answer a timestamp lookup. A batch whose codec is not compiled in
    /// stands for itself: its first offset and its largest timestamp.
    fn record_times(&self, e: &Entry) -> Vec<(i64, i64)> {
        let bytes = &self.bytes[e.position..e.position + e.len];
        let Ok(batch) = RecordBatch::parse(bytes) else {
            return Vec::new();
        };
        let whole = vec![(batch.base_offset(), batch.max_timestamp())];
        if batch.compression() == Compression::NONE {
            // Stored batches passed their CRC check when they were appended.
            return batch.records_unchecked().map_or(whole, |it| {
                it.filter_map(Result::ok)
                    .map(|r| (r.offset(), r.timestamp()))
                    .collect()
            });
        }
        if !BuiltinCodecs::is_enabled(batch.compression()) {
            return whole;
        }
        let mut buf = vec![0u8; batch.payload().len().saturating_mul(4).max(1024)];
        loop {
            match batch.decompress_into(&mut BuiltinCodecs::new(), &mut buf) {
                Ok(it) => {
                    return it
                        .filter_map(Result::ok)
                        .map(|r| (r.offset(), r.timestamp()))
                        .collect();
                }
                Err(err) => match err.retry_len() {
                    Some(n) if n > buf.len() && n <= MAX_DECOMPRESSED => buf.resize(n, 0),
                    _ => return whole,
                },
            }
        }
    }
}

/// The largest decompressed batch a timestamp lookup reads.
const MAX_DECOMPRESSED: usize = 256 * 1024 * 1024;

fn is_magic_error(e: &DecodeError) -> bool {
    matches!(e.kind, kwire::DecodeErrorKind::UnknownMagic(_))
}

/// A topic: its id and partitions.
#[derive(Debug)]
pub struct Topic {
    pub id: Uuid,
    pub partitions: Vec<Log>,
}

/// Every topic, by name and by id.
#[derive(Debug, Default)]
pub struct Topics {
    by_name: BTreeMap<String, Topic>,
    names: HashMap<Uuid, String>,
    created: u64,
}

impl Topics {
    /// Creates a topic; `Err` with an error code if the name is taken or invalid.
    pub fn create(&mut self, name: &str, partitions: i32) -> Result<&Topic, i16> {
        if !valid_name(name) {
            return Err(ErrorCode::INVALID_TOPIC_EXCEPTION.0);
        }
        if partitions < 1 {
            return Err(ErrorCode::INVALID_PARTITIONS.0);
        }
        if self.by_name.contains_key(name) {
            return Err(ErrorCode::TOPIC_ALREADY_EXISTS.0);
        }
        self.created += 1;
        let id = topic_id(self.created, name);
        self.names.insert(id, name.to_owned());
        let topic = Topic {
            id,
            partitions: (0..partitions).map(|_| Log::default()).collect(),
        };
        Ok(self.by_name.entry(name.to_owned()).or_insert(topic))
    }

    pub fn get(&self, name: &str) -> Option<&Topic> {
        self.by_name.get(name)
    }

    /// The topic a request names. A name that is not UTF-8 names none: Kafka reads it with
    /// U+FFFD in place of the bytes, which no topic name holds, and answers as for a topic it
    /// does not know.
    pub fn named(&self, name: Str<'_>) -> Option<&Topic> {
        self.get(name.to_str().ok()?)
    }

    pub fn get_mut(&mut self, name: &str) -> Option<&mut Topic> {
        self.by_name.get_mut(name)
    }

    /// The topic a request names, to append to (see [`Topics::named`]).
    pub fn named_mut(&mut self, name: Str<'_>) -> Option<&mut Topic> {
        self.get_mut(name.to_str().ok()?)
    }

    /// The name of the topic with id `id`.
    pub fn name_of(&self, id: Uuid) -> Option<&str> {
        self.names.get(&id).map(String::as_str)
    }

    pub fn iter(&self) -> impl Iterator<Item = (&str, &Topic)> {
        self.by_name.iter().map(|(n, t)| (n.as_str(), t))
    }

    pub fn remove(&mut self, name: &str) -> Option<Topic> {
        let t = self.by_name.remove(name)?;
        self.names.remove(&t.id);
        Some(t)
    }
}

/// Kafka's rule for topic names: 1 to 249 characters of `[a-zA-Z0-9._-]`, not `.` or `..`.
pub fn valid_name(name: &str) -> bool {
    !name.is_empty()
        && name.len() <= 249
        && name != "."
        && name != ".."
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'_' | b'-'))
}

/// A topic id that is unique in this broker's life and never the zero UUID (version 4 bits set).
fn topic_id(counter: u64, name: &str) -> Uuid {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in name.bytes() {
        h = (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3);
    }
    let most = (h & 0xffff_ffff_ffff_0fff) | 0x4000;
    let least = (counter & 0x3fff_ffff_ffff_ffff) | 0x8000_0000_0000_0000;
    Uuid::from_u64_pair(most, least)
}
