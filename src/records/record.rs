//! Records inside a v2 batch, read lazily, and their headers.

use crate::codec::{Failed, Reader};
use crate::error::{DecodeError, DecodeErrorKind};

/// What a record needs from its batch to know its absolute offset, timestamp and sequence.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct BatchContext {
    pub(crate) base_offset: i64,
    pub(crate) base_timestamp: i64,
    /// `Some(maxTimestamp)` when the batch uses log-append time.
    pub(crate) log_append_time: Option<i64>,
    pub(crate) base_sequence: i32,
}

/// The records of one batch, read one at a time from the borrowed payload.
///
/// Each item is a [`Record`] or the first error met, after which the iterator ends. It reads
/// exactly `recordsCount` records and then reports `TrailingBytes` if anything is left; a record
/// whose fields do not use exactly its declared length is `RecordSizeMismatch`.
#[derive(Debug, Clone)]
pub struct RecordIter<'a> {
    reader: Reader<'a>,
    remaining: u32,
    ctx: BatchContext,
    done: bool,
}

impl<'a> RecordIter<'a> {
    pub(crate) const fn new(
        payload: &'a [u8],
        offset: usize,
        count: u32,
        ctx: BatchContext,
    ) -> Self {
        Self {
            reader: Reader::with_offset(payload, offset),
            remaining: count,
            ctx,
            done: false,
        }
    }

    /// Records not yet read, as declared by `recordsCount`.
    #[must_use]
    pub const fn remaining(&self) -> u32 {
        self.remaining
    }

    fn fail(&mut self, err: DecodeError) -> Option<Result<Record<'a>, DecodeError>> {
        self.done = true;
        Some(Err(err))
    }
}

impl<'a> Iterator for RecordIter<'a> {
    type Item = Result<Record<'a>, DecodeError>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.done {
            return None;
        }
        let Some(left) = self.remaining.checked_sub(1) else {
            self.done = true;
            if self.reader.is_empty() {
                return None;
            }
            let err = DecodeError::new(
                self.reader.offset(),
                DecodeErrorKind::TrailingBytes {
                    count: self.reader.remaining(),
                },
                "RecordBatch.records",
            );
            return Some(Err(err));
        };
        self.remaining = left;
        match Record::read(&mut self.reader, &self.ctx) {
            Ok(record) => Some(Ok(record)),
            Err(Failed) => {
                let err = self.reader.take_error();
                self.fail(err)
            }
        }
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        if self.done {
            return (0, Some(0));
        }
        // One more item may be a trailing-bytes error.
        let n = usize::try_from(self.remaining).unwrap_or(usize::MAX);
        (0, Some(n.saturating_add(1)))
    }
}

impl core::iter::FusedIterator for RecordIter<'_> {}

/// One record of a v2 batch, borrowed from the payload.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct Record<'a> {
    bytes: &'a [u8],
    position: usize,
    attributes: i8,
    timestamp_delta: i64,
    offset_delta: i32,
    key: Option<&'a [u8]>,
    value: Option<&'a [u8]>,
    headers: Headers<'a>,
    offset: i64,
    timestamp: i64,
    sequence: Option<i32>,
}

impl<'a> Record<'a> {
    /// Reads one record; a failure leaves its error in `r` (the reads pass up only the
    /// [`Failed`] marker, as generated decoders do, which keeps every exit one branch).
    fn read(r: &mut Reader<'a>, ctx: &BatchContext) -> Result<Self, Failed> {
        let position = r.offset();
        let start = r.rest();
        let length = r.varint("Record.length")?;
        if length < 0 {
            let kind = DecodeErrorKind::NegativeLength(length);
            return Err(r.fail_at(position, kind, "Record.length"));
        }
        let body = r.rest();
        let attributes = r.i8("Record.attributes")?;
        let timestamp_delta = r.varlong("Record.timestampDelta")?;
        let offset_delta = r.varint("Record.offsetDelta")?;
        let key = var_bytes(r, "Record.key")?;
        let value = var_bytes(r, "Record.value")?;
        let headers = Headers::read(r)?;
        let consumed = body.len().saturating_sub(r.rest().len());
        if usize::try_from(length).ok() != Some(consumed) {
            let kind = DecodeErrorKind::RecordSizeMismatch {
                declared: length,
                consumed,
            };
            return Err(r.fail_at(position, kind, "Record.length"));
        }
        let total = start.len().saturating_sub(r.rest().len());
        #[cfg(kwire_mutant)]
        let timestamp_delta = if crate::__mutant::on(crate::__mutant::Mutant::RecordTimestamp) {
            timestamp_delta.wrapping_add(1)
        } else {
            timestamp_delta
        };
        Ok(Self {
            bytes: start.get(..total).unwrap_or_default(),
            position,
            attributes,
            timestamp_delta,
            offset_delta,
            key,
            value,
            headers,
            offset: ctx.base_offset.wrapping_add(i64::from(offset_delta)),
            timestamp: ctx
                .log_append_time
                .unwrap_or_else(|| ctx.base_timestamp.wrapping_add(timestamp_delta)),
            sequence: sequence(ctx.base_sequence, offset_delta),
        })
    }

    /// The record's bytes, its length prefix included.
    #[must_use]
    pub const fn as_bytes(&self) -> &'a [u8] {
        self.bytes
    }

    /// Absolute position of the record's first byte (its length prefix) in the buffer it was
    /// read from.
    #[must_use]
    pub const fn position(&self) -> usize {
        self.position
    }

    /// The record's `attributes` byte (unused by Kafka, written 0).
    #[must_use]
    pub const fn attributes(&self) -> i8 {
        self.attributes
    }

    /// `timestampDelta`, relative to the batch's `baseTimestamp`.
    #[must_use]
    pub const fn timestamp_delta(&self) -> i64 {
        self.timestamp_delta
    }

    /// `offsetDelta`, relative to the batch's `baseOffset`.
    #[must_use]
    pub const fn offset_delta(&self) -> i32 {
        self.offset_delta
    }

    /// The key; `None` for a null key.
    #[must_use]
    pub const fn key(&self) -> Option<&'a [u8]> {
        self.key
    }

    /// The value; `None` for a null value (a tombstone).
    #[must_use]
    pub const fn value(&self) -> Option<&'a [u8]> {
        self.value
    }

    /// The headers, in wire order.
    #[must_use]
    pub const fn headers(&self) -> Headers<'a> {
        self.headers
    }

    /// The record's offset: the batch's `baseOffset` plus `offsetDelta`.
    #[must_use]
    pub const fn offset(&self) -> i64 {
        self.offset
    }

    /// The record's timestamp: the batch's `baseTimestamp` plus `timestampDelta`, or the batch's
    /// `maxTimestamp` when the batch uses log-append time.
    #[must_use]
    pub const fn timestamp(&self) -> i64 {
        self.timestamp
    }

    /// The record's producer sequence: the batch's `baseSequence` plus `offsetDelta`, wrapping
    /// from `i32::MAX` to 0 as Kafka does; `None` when the batch has no sequence (-1).
    #[must_use]
    pub const fn sequence(&self) -> Option<i32> {
        self.sequence
    }
}

/// Kafka's sequence arithmetic: `base + delta`, wrapping past `i32::MAX` to 0.
const fn sequence(base: i32, delta: i32) -> Option<i32> {
    if base < 0 {
        return None;
    }
    match base.checked_add(delta) {
        Some(s) if s >= 0 => Some(s),
        // Past i32::MAX: continue from 0.
        _ => Some(base.wrapping_add(delta).wrapping_sub(i32::MIN)),
    }
}

/// Reads zig-zag-varint-length-prefixed bytes; -1 is null.
fn var_bytes<'a>(r: &mut Reader<'a>, path: &'static str) -> Result<Option<&'a [u8]>, Failed> {
    let at = r.offset();
    let len = r.varint(path)?;
    if len == -1 {
        return Ok(None);
    }
    let Ok(n) = usize::try_from(len) else {
        return Err(r.fail_at(at, DecodeErrorKind::NegativeLength(len), path));
    };
    r.take(n, path).map(Some)
}

/// The headers of a record, validated when the record was read and iterated without further
/// checks. Duplicate keys are kept, in wire order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct Headers<'a> {
    count: u32,
    bytes: &'a [u8],
}

impl<'a> Headers<'a> {
    fn read(r: &mut Reader<'a>) -> Result<Self, Failed> {
        let at = r.offset();
        let count = r.varint("Record.headerCount")?;
        let Ok(count) = u32::try_from(count) else {
            let kind = DecodeErrorKind::NegativeLength(count);
            return Err(r.fail_at(at, kind, "Record.headerCount"));
        };
        let start = r.rest();
        for _ in 0..count {
            let key_at = r.offset();
            if var_bytes(r, "Record.headers.key")?.is_none() {
                let kind = DecodeErrorKind::UnexpectedNull;
                return Err(r.fail_at(key_at, kind, "Record.headers.key"));
            }
            var_bytes(r, "Record.headers.value")?;
        }
        let used = start.len().saturating_sub(r.rest().len());
        Ok(Self {
            count,
            bytes: start.get(..used).unwrap_or_default(),
        })
    }

    /// The number of headers.
    #[must_use]
    pub fn len(&self) -> usize {
        usize::try_from(self.count).unwrap_or(usize::MAX)
    }

    /// True when there are no headers.
    #[must_use]
    pub const fn is_empty(&self) -> bool {
        self.count == 0
    }

    /// The encoded headers (without the count).
    #[must_use]
    pub const fn as_bytes(&self) -> &'a [u8] {
        self.bytes
    }

    /// Iterates the headers in wire order.
    #[must_use]
    pub const fn iter(&self) -> HeaderIter<'a> {
        HeaderIter {
            reader: Reader::new(self.bytes),
            remaining: self.count,
        }
    }

    /// The value of the first header named `key` (`Some(None)` when that header's value is
    /// null), or `None` when no header has that name.
    #[must_use]
    pub fn get(&self, key: &[u8]) -> Option<Option<&'a [u8]>> {
        self.iter().find(|h| h.key == key).map(|h| h.value)
    }
}

impl<'a> IntoIterator for Headers<'a> {
    type Item = Header<'a>;
    type IntoIter = HeaderIter<'a>;

    fn into_iter(self) -> HeaderIter<'a> {
        self.iter()
    }
}

impl<'a> IntoIterator for &Headers<'a> {
    type Item = Header<'a>;
    type IntoIter = HeaderIter<'a>;

    fn into_iter(self) -> HeaderIter<'a> {
        self.iter()
    }
}

/// One record header.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct Header<'a> {
    key: &'a [u8],
    value: Option<&'a [u8]>,
}

impl<'a> Header<'a> {
    /// The key's bytes (UTF-8 by convention; see [`Header::key_str`]).
    #[must_use]
    pub const fn key(&self) -> &'a [u8] {
        self.key
    }

    /// The value; `None` when null.
    #[must_use]
    pub const fn value(&self) -> Option<&'a [u8]> {
        self.value
    }

    /// The key as a string.
    ///
    /// # Errors
    ///
    /// When the key is not valid UTF-8.
    pub const fn key_str(&self) -> Result<&'a str, core::str::Utf8Error> {
        core::str::from_utf8(self.key)
    }
}

/// Iterator over [`Headers`].
#[derive(Debug, Clone)]
pub struct HeaderIter<'a> {
    reader: Reader<'a>,
    remaining: u32,
}

impl<'a> Iterator for HeaderIter<'a> {
    type Item = Header<'a>;

    fn next(&mut self) -> Option<Header<'a>> {
        self.remaining = self.remaining.checked_sub(1)?;
        // The bytes were validated when the record was read, so these reads succeed.
        let key = var_bytes(&mut self.reader, "Record.headers.key").ok()??;
        let value = var_bytes(&mut self.reader, "Record.headers.value").ok()?;
        Some(Header { key, value })
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let n = usize::try_from(self.remaining).unwrap_or(usize::MAX);
        (n, Some(n))
    }
}

impl ExactSizeIterator for HeaderIter<'_> {}
impl core::iter::FusedIterator for HeaderIter<'_> {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sequence_wraps_like_kafka() {
        assert_eq!(sequence(-1, 5), None);
        assert_eq!(sequence(0, 5), Some(5));
        assert_eq!(sequence(i32::MAX, 0), Some(i32::MAX));
        assert_eq!(sequence(i32::MAX, 1), Some(0));
        assert_eq!(sequence(i32::MAX - 1, 3), Some(1));
        assert_eq!(sequence(i32::MAX, i32::MAX), Some(i32::MAX - 1));
    }
}
