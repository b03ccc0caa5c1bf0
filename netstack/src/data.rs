//! The records produced and expected back: made once, before the data path, and compared
//! byte for byte when they return.

use std::io::Write;

use kwire::records::{NewHeader, NewRecord, Record};

/// Bytes of a key: `key-` and eight digits.
const KEY_LEN: usize = 12;
/// Bytes of a value: `value-`, eight digits, `-`, and letters that shift with the index.
const VALUE_LEN: usize = 100;
/// Bytes of the `seq` header's value: the index, big-endian.
const SEQ_LEN: usize = 8;
/// Bytes of one record's data in the arena.
const STRIDE: usize = KEY_LEN + VALUE_LEN + SEQ_LEN;
/// The most records a run makes: eight digits of index.
pub const MAX_RECORDS: usize = 99_999_999;
/// The key of the first header, whose value is the record's index.
const SEQ: &[u8] = b"seq";
/// The key and value of the second header, the same on every record.
const SOURCE: (&[u8], &[u8]) = (b"source", b"kwire-netstack");

/// `count` records' keys, values and headers, laid out at fixed strides in one buffer.
#[derive(Debug, Clone)]
pub struct Dataset {
    /// Each record's key, value and `seq` header value, `STRIDE` bytes a record.
    arena: Vec<u8>,
    /// How many records.
    count: usize,
    /// The first record's timestamp; record `i` has this plus `i` milliseconds.
    base_timestamp: i64,
}

impl Dataset {
    /// Makes `count` records (at most [`MAX_RECORDS`]), timestamped from `base_timestamp`.
    #[must_use]
    pub fn new(count: usize, base_timestamp: i64) -> Self {
        let count = count.min(MAX_RECORDS);
        let mut arena = Vec::with_capacity(count * STRIDE);
        for i in 0..count {
            // Writing to a `Vec` cannot fail; the widths are fixed by `MAX_RECORDS`.
            let _ = write!(arena, "key-{i:08}");
            let _ = write!(arena, "value-{i:08}-");
            let letters = VALUE_LEN - "value-00000000-".len();
            arena.extend((0..letters).map(|j| b'a' + ((i + j) % 26) as u8));
            arena.extend_from_slice(&(i as u64).to_be_bytes());
        }
        Self {
            arena,
            count,
            base_timestamp,
        }
    }

    /// How many records there are.
    #[must_use]
    pub fn len(&self) -> usize {
        self.count
    }

    /// Record `i`'s data: key, value, `seq` header value.
    fn parts(&self, i: usize) -> Option<(&[u8], &[u8], &[u8])> {
        let data = self.arena.get(i.checked_mul(STRIDE)?..)?.get(..STRIDE)?;
        let (key, rest) = data.split_at_checked(KEY_LEN)?;
        let (value, seq) = rest.split_at_checked(VALUE_LEN)?;
        Some((key, value, seq))
    }

    /// Record `i`'s timestamp.
    fn timestamp(&self, i: usize) -> i64 {
        self.base_timestamp
            .saturating_add(i64::try_from(i).unwrap_or(i64::MAX))
    }

    /// The headers of every record, in order: for [`Dataset::records`] to borrow.
    #[must_use]
    pub fn headers(&self) -> Vec<[NewHeader<'_>; 2]> {
        (0..self.count)
            .filter_map(|i| self.parts(i))
            .map(|(_, _, seq)| [NewHeader::new(SEQ, seq), NewHeader::new(SOURCE.0, SOURCE.1)])
            .collect()
    }

    /// Every record, in order, ready for a batch builder.
    #[must_use]
    pub fn records<'a>(&'a self, headers: &'a [[NewHeader<'a>; 2]]) -> Vec<NewRecord<'a>> {
        (0..self.count)
            .zip(headers)
            .filter_map(|(i, headers)| {
                let (key, value, _) = self.parts(i)?;
                Some(NewRecord {
                    key: Some(key),
                    value: Some(value),
                    headers,
                    timestamp: self.timestamp(i),
                })
            })
            .collect()
    }

    /// Checks that `record` is record `i`: its key, value, timestamp and headers. Returns the
    /// name of the first field that differs.
    ///
    /// # Errors
    ///
    /// `key`, `value`, `timestamp` or `headers`; `index` when there is no record `i`.
    pub fn check(&self, i: usize, record: &Record<'_>) -> Result<(), &'static str> {
        let (key, value, seq) = self.parts(i).ok_or("index")?;
        if record.key() != Some(key) {
            return Err("key");
        }
        if record.value() != Some(value) {
            return Err("value");
        }
        if record.timestamp() != self.timestamp(i) {
            return Err("timestamp");
        }
        let expected = [(SEQ, Some(seq)), (SOURCE.0, Some(SOURCE.1))];
        let same = record
            .headers()
            .iter()
            .map(|h| (h.key(), h.value()))
            .eq(expected);
        if !same {
            return Err("headers");
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use kwire::records::{BatchBuilder, RecordBatch};

    use super::Dataset;

    #[test]
    fn every_record_reads_back_as_itself_and_not_as_its_neighbour() {
        let data = Dataset::new(30, 1_700_000_000_000);
        let headers = data.headers();
        let records = data.records(&headers);
        assert_eq!(records.len(), 30);
        let mut buf = vec![0u8; 16 * 1024];
        let n = BatchBuilder::new()
            .write(records.iter(), &mut buf)
            .expect("the batch fits");
        let batch = RecordBatch::parse(&buf[..n]).expect("a batch");
        for (i, record) in batch.records().expect("its CRC holds").enumerate() {
            let record = record.expect("a record");
            assert_eq!(data.check(i, &record), Ok(()));
            assert_eq!(data.check((i + 1) % 30, &record), Err("key"));
        }
        assert_eq!(records[7].key, Some(&b"key-00000007"[..]));
        assert_eq!(records[7].value.unwrap().len(), 100);
    }
}
