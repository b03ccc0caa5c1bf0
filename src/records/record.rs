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
    /// The bytes not read yet.
    rest: &'a [u8],
    /// Absolute offset of the end of the payload: the current offset is `end - rest.len()`.
    end: usize,
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
            rest: payload,
            end: offset.wrapping_add(payload.len()),
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

    /// The absolute offset of the next byte.
    const fn offset(&self) -> usize {
        self.end.wrapping_sub(self.rest.len())
    }

    /// Reads the next record with [`Record::read`], which says exactly what is wrong: the path
    /// of a record [`Record::read_fast`] does not take, and of every record without `perf`.
    #[cfg_attr(feature = "perf", cold)]
    #[inline(never)]
    fn read_checked(&mut self) -> Option<Result<Record<'a>, DecodeError>> {
        let mut reader = Reader::with_offset(self.rest, self.offset());
        match Record::read(&mut reader, &self.ctx) {
            Ok(record) => {
                self.rest = reader.rest();
                Some(Ok(record))
            }
            Err(Failed) => {
                self.done = true;
                Some(Err(reader.take_error()))
            }
        }
    }
}

impl<'a> Iterator for RecordIter<'a> {
    type Item = Result<Record<'a>, DecodeError>;

    #[inline]
    fn next(&mut self) -> Option<Self::Item> {
        if self.done {
            return None;
        }
        let Some(left) = self.remaining.checked_sub(1) else {
            self.done = true;
            if self.rest.is_empty() {
                return None;
            }
            let err = DecodeError::new(
                self.offset(),
                DecodeErrorKind::TrailingBytes {
                    count: self.rest.len(),
                },
                "RecordBatch.records",
            );
            return Some(Err(err));
        };
        self.remaining = left;
        // Without `perf` (firmware), every record takes the one path.
        if !cfg!(feature = "perf") {
            return self.read_checked();
        }
        let Some((record, rest)) = Record::read_fast(self.rest, self.offset(), &self.ctx) else {
            return self.read_checked();
        };
        self.rest = rest;
        Some(Ok(record))
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
    /// The batch's `baseSequence`: the record's sequence is computed when asked for.
    base_sequence: i32,
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
        Ok(Self::new(
            start.get(..total).unwrap_or_default(),
            position,
            Fields {
                attributes,
                timestamp_delta,
                offset_delta,
                key,
                value,
                headers,
            },
            ctx,
        ))
    }

    /// Reads one record from the start of `bytes` (at absolute offset `position`) when it is
    /// well formed and its varints are at most two bytes long, as they are in batches of small
    /// records; returns it with the bytes after it. `None` for anything else, which
    /// [`Record::read`] then reads or reports: whatever this accepts, `read` accepts too, with
    /// the same result.
    #[inline]
    fn read_fast(bytes: &'a [u8], position: usize, ctx: &BatchContext) -> Option<(Self, &'a [u8])> {
        let mut p = bytes;
        let length = short_len(&mut p)?;
        let (mut body, rest) = p.split_at_checked(length)?;
        let (&attributes, tail) = body.split_first()?;
        body = tail;
        let timestamp_delta = i64::from(short_varint(&mut body)?);
        let offset_delta = short_varint(&mut body)?;
        let key = short_var_bytes(&mut body)?;
        let value = short_var_bytes(&mut body)?;
        let count = u32::from(short_uvarint(&mut body).filter(|u| u & 1 == 0)? >> 1);
        let start = body;
        for _ in 0..count {
            short_var_bytes(&mut body)??;
            short_var_bytes(&mut body)?;
        }
        if !body.is_empty() {
            return None;
        }
        let headers = start.get(..start.len().wrapping_sub(body.len()))?;
        let total = bytes.len().wrapping_sub(rest.len());
        let record = Self::new(
            bytes.get(..total)?,
            position,
            Fields {
                attributes: attributes.cast_signed(),
                timestamp_delta,
                offset_delta,
                key,
                value,
                headers: Headers {
                    count,
                    bytes: headers,
                },
            },
            ctx,
        );
        Some((record, rest))
    }

    /// A record from its fields and its batch's context.
    #[inline(always)]
    fn new(bytes: &'a [u8], position: usize, f: Fields<'a>, ctx: &BatchContext) -> Self {
        Self {
            bytes,
            position,
            attributes: f.attributes,
            timestamp_delta: f.timestamp_delta,
            offset_delta: f.offset_delta,
            key: f.key,
            value: f.value,
            headers: f.headers,
            offset: ctx.base_offset.wrapping_add(i64::from(f.offset_delta)),
            timestamp: ctx
                .log_append_time
                .unwrap_or_else(|| ctx.base_timestamp.wrapping_add(f.timestamp_delta)),
            base_sequence: ctx.base_sequence,
        }
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
        sequence(self.base_sequence, self.offset_delta)
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

/// The fields of a record as read, before its batch's context applies.
#[derive(Clone, Copy)]
struct Fields<'a> {
    attributes: i8,
    timestamp_delta: i64,
    offset_delta: i32,
    key: Option<&'a [u8]>,
    value: Option<&'a [u8]>,
    headers: Headers<'a>,
}

/// Reads an unsigned varint of one or two bytes from the start of `bytes`; `None` when it is
/// longer or the bytes end inside it.
#[inline(always)]
fn short_uvarint(bytes: &mut &[u8]) -> Option<u16> {
    match **bytes {
        [b0, ref tail @ ..] if b0 < 0x80 => {
            *bytes = tail;
            Some(u16::from(b0))
        }
        [b0, b1, ref tail @ ..] if b1 < 0x80 => {
            *bytes = tail;
            Some(u16::from(b0 & 0x7f) | u16::from(b1) << 7)
        }
        _ => None,
    }
}

/// Reads a zig-zag varint of one or two bytes, as [`short_uvarint`]. A one- or two-byte varlong
/// has the same value, so this reads both.
#[inline(always)]
fn short_varint(bytes: &mut &[u8]) -> Option<i32> {
    let u = short_uvarint(bytes)?;
    Some(i32::from(u >> 1) ^ i32::from(u & 1).wrapping_neg())
}

/// Reads a length that must not be negative, with a [`short_uvarint`] zig-zag prefix.
#[inline(always)]
fn short_len(bytes: &mut &[u8]) -> Option<usize> {
    let u = short_uvarint(bytes)?;
    // Zig-zag: even values are the non-negative ones.
    (u & 1 == 0).then_some(usize::from(u >> 1))
}

/// Reads bytes with a [`short_uvarint`] zig-zag length prefix from the start of `bytes`:
/// `Some(None)` for null (-1), `None` when the prefix is longer, negative otherwise, or the
/// bytes end early.
#[inline(always)]
fn short_var_bytes<'a>(bytes: &mut &'a [u8]) -> Option<Option<&'a [u8]>> {
    let u = short_uvarint(bytes)?;
    if u & 1 != 0 {
        // Zig-zag 1 is -1, null; other odd values are negative lengths.
        return (u == 1).then_some(None);
    }
    let (head, tail) = bytes.split_at_checked(usize::from(u >> 1))?;
    *bytes = tail;
    Some(Some(head))
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
            rest: self.bytes,
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
    rest: &'a [u8],
    remaining: u32,
}

impl<'a> Iterator for HeaderIter<'a> {
    type Item = Header<'a>;

    #[inline]
    fn next(&mut self) -> Option<Header<'a>> {
        self.remaining = self.remaining.checked_sub(1)?;
        if !cfg!(feature = "perf") {
            return self.next_long();
        }
        // The bytes were validated when the record was read, so these reads succeed.
        let mut rest = self.rest;
        let (Some(Some(key)), Some(value)) =
            (short_var_bytes(&mut rest), short_var_bytes(&mut rest))
        else {
            return self.next_long();
        };
        self.rest = rest;
        Some(Header { key, value })
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let n = usize::try_from(self.remaining).unwrap_or(usize::MAX);
        (n, Some(n))
    }
}

impl<'a> HeaderIter<'a> {
    /// The header that [`HeaderIter::next`] did not read with short length prefixes, read from
    /// its start again (every header without `perf`).
    #[cfg_attr(feature = "perf", cold)]
    #[inline(never)]
    fn next_long(&mut self) -> Option<Header<'a>> {
        let mut reader = Reader::new(self.rest);
        let key = var_bytes(&mut reader, "Record.headers.key").ok()??;
        let value = var_bytes(&mut reader, "Record.headers.value").ok()?;
        self.rest = reader.rest();
        Some(Header { key, value })
    }
}

impl ExactSizeIterator for HeaderIter<'_> {}
impl core::iter::FusedIterator for HeaderIter<'_> {}

#[cfg(test)]
mod tests {
    extern crate std;
    use super::*;
    use std::vec;
    use std::vec::Vec;

    #[test]
    fn sequence_wraps_like_kafka() {
        assert_eq!(sequence(-1, 5), None);
        assert_eq!(sequence(0, 5), Some(5));
        assert_eq!(sequence(i32::MAX, 0), Some(i32::MAX));
        assert_eq!(sequence(i32::MAX, 1), Some(0));
        assert_eq!(sequence(i32::MAX - 1, 3), Some(1));
        assert_eq!(sequence(i32::MAX, i32::MAX), Some(i32::MAX - 1));
    }

    const CTX: BatchContext = BatchContext {
        base_offset: 100,
        base_timestamp: 1_700_000_000_000,
        log_append_time: None,
        base_sequence: 5,
    };

    /// The records of `payload` read with [`Record::read`] alone, as the iterator read them
    /// before it had a fast path: the reference the iterator is held to.
    fn reference(payload: &[u8], count: u32) -> Vec<Result<Record<'_>, DecodeError>> {
        let mut r = Reader::with_offset(payload, 61);
        let mut out = Vec::new();
        for _ in 0..count {
            match Record::read(&mut r, &CTX) {
                Ok(record) => out.push(Ok(record)),
                Err(Failed) => {
                    out.push(Err(r.take_error()));
                    return out;
                }
            }
        }
        if !r.is_empty() {
            let count = r.remaining();
            let kind = DecodeErrorKind::TrailingBytes { count };
            out.push(Err(DecodeError::new(
                r.offset(),
                kind,
                "RecordBatch.records",
            )));
        }
        out
    }

    /// A record: `length`, attributes, deltas, key, value and headers, with `long` varints
    /// (more bytes than needed) where asked, which only the checked path reads.
    fn record(out: &mut Vec<u8>, i: u8, long: bool, headers: &[(&[u8], Option<&[u8]>)]) {
        fn varint(out: &mut Vec<u8>, v: i64, long: bool) {
            let mut u = ((v << 1) ^ (v >> 63)).cast_unsigned();
            loop {
                let more = u >= 0x80 || long && u >= 0x10;
                out.push((u & 0x7f) as u8 | if more { 0x80 } else { 0 });
                u >>= 7;
                if !more {
                    break;
                }
            }
        }
        let mut body = vec![0u8];
        varint(&mut body, i64::from(i) * 300, long);
        varint(&mut body, i64::from(i), false);
        varint(&mut body, 3, long);
        body.extend_from_slice(&[b'k', i, b'k']);
        if i % 4 == 3 {
            varint(&mut body, -1, false);
        } else {
            varint(&mut body, i64::from(i % 7), false);
            body.extend(core::iter::repeat_n(i, usize::from(i % 7)));
        }
        varint(&mut body, headers.len() as i64, false);
        for (k, v) in headers {
            varint(&mut body, k.len() as i64, long);
            body.extend_from_slice(k);
            match v {
                Some(v) => {
                    varint(&mut body, v.len() as i64, false);
                    body.extend_from_slice(v);
                }
                None => varint(&mut body, -1, false),
            }
        }
        varint(out, body.len() as i64, false);
        out.extend_from_slice(&body);
    }

    /// The iterator (the fast path, and the checked path where that one declines) gives what
    /// [`Record::read`] alone gives, record for record and error for error, on valid payloads
    /// and on every one-byte change, truncation and count of them.
    #[test]
    fn fast_path_agrees_with_checked_read() {
        let mut payload = Vec::new();
        for i in 0..12u8 {
            let headers: &[(&[u8], Option<&[u8]>)] = match i % 3 {
                0 => &[],
                1 => &[(b"trace", Some(b"abc"))],
                _ => &[(b"a", None), (b"bb", Some(b""))],
            };
            record(&mut payload, i, i % 5 == 4, headers);
        }
        let check = |bytes: &[u8], count: u32| {
            let got: Vec<_> = RecordIter::new(bytes, 61, count, CTX).collect();
            assert_eq!(got, reference(bytes, count), "{bytes:02x?} count {count}");
            for r in got.iter().flatten() {
                let headers: Vec<_> = r.headers().iter().collect();
                let mut reader = Reader::new(r.headers().as_bytes());
                let again: Vec<_> = (0..r.headers().len())
                    .map(|_| Header {
                        key: var_bytes(&mut reader, "k").ok().flatten().unwrap(),
                        value: var_bytes(&mut reader, "v").ok().unwrap(),
                    })
                    .collect();
                assert_eq!(headers, again);
            }
        };
        for count in [0, 1, 11, 12, 13] {
            check(&payload, count);
        }
        for at in 0..payload.len() {
            check(&payload[..at], 12);
            for value in [0x00, 0x01, 0x02, 0x7f, 0x80, 0xff, payload[at] ^ 0x40] {
                let mut changed = payload.clone();
                changed[at] = value;
                check(&changed, 12);
            }
        }
    }
}
