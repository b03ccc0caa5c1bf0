//! Differential tests of v2 record batches against the `kafka-protocol` crate (0.18), without
//! compression.
//!
//! * **theirs → ours**: batches written by its `RecordBatchEncoder` are read with
//!   [`RecordBatch`] and compared field by field with the records it was given.
//! * **ours → theirs**: batches written by [`BatchBuilder`] are read with its
//!   `RecordBatchDecoder` and compared field by field with the records we wrote.
//! * **same bytes**: for records both writers lay out the same way (contiguous offsets from the
//!   base, the first record holding the smallest timestamp, no log-append time, no delete
//!   horizon), the two batches are identical byte for byte.
//!
//! Where the two crates differ in what they compute (rather than in what is on the wire):
//!
//! * `kafka-protocol` reads a record's sequence as `baseSequence + offsetDelta` with plain
//!   32-bit wrapping, also when the batch has no sequence (-1). Kafka wraps from `i32::MAX` to 0
//!   and has no sequence for -1, which is what [`Record::sequence`] returns.
//! * It does not apply log-append time: a record's timestamp is always `baseTimestamp + delta`.
//! * Its encoder never sets the timestamp-type bit, takes the smallest timestamp as
//!   `baseTimestamp` (ours takes the first record's, as Kafka's producer does) and the smallest
//!   offset as `baseOffset`. With the delete-horizon flag it still stores the smallest timestamp
//!   there.
//! * Its record headers are an `IndexMap`: a repeated key collapses into one entry (the first
//!   position, the last value). Header keys here are therefore unique within a record, and
//!   UTF-8, which its decoder requires.
//! * It adds timestamps and offsets with overflow checks, so the values here stay far from the
//!   ends of `i64` (`records_prop.rs` covers the extremes for this crate alone).
//!
//! [`Record::sequence`]: kwire::records::Record::sequence

use std::collections::BTreeMap;

use bytes::{Bytes, BytesMut};
use kafka_protocol::protocol::StrBytes;
use kafka_protocol::records::{
    Compression as KpCompression, Record as KpRecord, RecordBatchDecoder, RecordBatchEncoder,
    RecordEncodeOptions, TimestampType as KpTimestampType,
};
use kwire::control::ControlPayload;
use kwire::records::{
    Batch, BatchBuilder, Compression, ControlRecord, ControlRecordType, NewHeader, NewRecord,
    RecordBatch, Records, TimestampType, TxnMarker,
};
use proptest::prelude::*;

/// Timestamps and offsets stay within this distance of zero (see the module notes).
const FAR: i64 = 1 << 60;

/// One record's content, owned.
#[derive(Debug, Clone)]
struct Content {
    key: Option<Vec<u8>>,
    value: Option<Vec<u8>>,
    /// Unique keys, in order.
    headers: Vec<(String, Option<Vec<u8>>)>,
    timestamp: i64,
}

/// The batch-level fields.
#[derive(Debug, Clone)]
struct Fields {
    base_offset: i64,
    partition_leader_epoch: i32,
    producer_id: i64,
    producer_epoch: i16,
    base_sequence: i32,
    transactional: bool,
    control: bool,
    delete_horizon: bool,
}

fn options() -> RecordEncodeOptions {
    RecordEncodeOptions {
        version: 2,
        compression: KpCompression::None,
    }
}

fn nullable(max: usize) -> impl Strategy<Value = Option<Vec<u8>>> {
    prop_oneof![
        1 => Just(None),
        4 => prop::collection::vec(any::<u8>(), 0..=max).prop_map(Some),
    ]
}

/// Unique UTF-8 header keys (a map drops repeats), in generated order.
fn headers() -> impl Strategy<Value = Vec<(String, Option<Vec<u8>>)>> {
    prop::collection::vec(("[a-z\u{e9}\u{1f600}-]{0,8}", nullable(16)), 0..5).prop_map(|hs| {
        let mut seen = BTreeMap::new();
        hs.into_iter()
            .filter(|(k, _)| seen.insert(k.clone(), ()).is_none())
            .collect()
    })
}

fn timestamp() -> impl Strategy<Value = i64> {
    prop_oneof![
        Just(-1i64),
        Just(0i64),
        1_700_000_000_000i64..1_700_000_100_000,
        -FAR..FAR,
    ]
}

fn content() -> impl Strategy<Value = Content> {
    (nullable(32), nullable(300), headers(), timestamp()).prop_map(
        |(key, value, headers, timestamp)| Content {
            key,
            value,
            headers,
            timestamp,
        },
    )
}

fn contents() -> impl Strategy<Value = Vec<Content>> {
    prop_oneof![
        8 => prop::collection::vec(content(), 1..10),
        1 => prop::collection::vec(content(), 100..200),
    ]
}

fn fields() -> impl Strategy<Value = Fields> {
    (
        prop_oneof![Just(0i64), 0..FAR, -FAR..0],
        prop_oneof![Just(-1i32), any::<i32>()],
        prop_oneof![Just(-1i64), 0..i64::MAX],
        prop_oneof![Just(-1i16), 0..i16::MAX],
        prop_oneof![Just(-1i32), Just(0), 0..(i32::MAX - 10_000)],
        any::<bool>(),
        any::<bool>(),
        any::<bool>(),
    )
        .prop_map(
            |(
                base_offset,
                partition_leader_epoch,
                producer_id,
                producer_epoch,
                base_sequence,
                transactional,
                control,
                delete_horizon,
            )| Fields {
                base_offset,
                partition_leader_epoch,
                producer_id,
                producer_epoch,
                base_sequence,
                transactional,
                control,
                delete_horizon,
            },
        )
}

/// Offset gaps between consecutive records (a compacted log has holes).
fn gaps(n: usize) -> impl Strategy<Value = Vec<i64>> {
    prop::collection::vec(prop_oneof![4 => Just(1i64), 1 => 1i64..1000], n)
}

/// `kafka-protocol` records with the given offsets, encoded by its encoder.
fn theirs(fields: &Fields, contents: &[Content], offsets: &[i64]) -> (Vec<KpRecord>, Bytes) {
    let records: Vec<KpRecord> = contents
        .iter()
        .zip(offsets)
        .map(|(c, &offset)| {
            let delta = (offset - fields.base_offset) as i32;
            let mut r = KpRecord {
                transactional: fields.transactional,
                control: fields.control,
                delete_horizon: fields.delete_horizon,
                partition_leader_epoch: fields.partition_leader_epoch,
                producer_id: fields.producer_id,
                producer_epoch: fields.producer_epoch,
                timestamp_type: KpTimestampType::Creation,
                offset,
                // The encoder keeps records in one batch while offset - sequence is constant.
                sequence: fields.base_sequence.wrapping_add(delta),
                timestamp: c.timestamp,
                key: c.key.clone().map(Bytes::from),
                value: c.value.clone().map(Bytes::from),
                headers: Default::default(),
            };
            for (k, v) in &c.headers {
                r.headers
                    .insert(StrBytes::from_string(k.clone()), v.clone().map(Bytes::from));
            }
            r
        })
        .collect();
    let mut buf = BytesMut::new();
    RecordBatchEncoder::encode(&mut buf, &records, &options()).unwrap();
    (records, buf.freeze())
}

/// Our batch of `contents`, written by the builder.
fn ours(builder: BatchBuilder, contents: &[Content]) -> Vec<u8> {
    let headers: Vec<Vec<NewHeader<'_>>> = contents
        .iter()
        .map(|c| {
            c.headers
                .iter()
                .map(|(k, v)| NewHeader {
                    key: k.as_bytes(),
                    value: v.as_deref(),
                })
                .collect()
        })
        .collect();
    let records: Vec<NewRecord<'_>> = contents
        .iter()
        .zip(&headers)
        .map(|(c, h)| NewRecord {
            key: c.key.as_deref(),
            value: c.value.as_deref(),
            headers: h,
            timestamp: c.timestamp,
        })
        .collect();
    let len = builder.encoded_len(&records).unwrap();
    let mut out = vec![0u8; len];
    assert_eq!(builder.write(&records, &mut out).unwrap(), len);
    out
}

fn builder(fields: &Fields, log_append_time: bool, horizon: Option<i64>) -> BatchBuilder {
    BatchBuilder::new()
        .with_base_offset(fields.base_offset)
        .with_partition_leader_epoch(fields.partition_leader_epoch)
        .with_producer(
            fields.producer_id,
            fields.producer_epoch,
            fields.base_sequence,
        )
        .with_timestamp_type(if log_append_time {
            TimestampType::LogAppendTime
        } else {
            TimestampType::CreateTime
        })
        .with_transactional(fields.transactional)
        .with_control(fields.control)
        .with_delete_horizon(horizon)
}

/// Kafka's sequence: none for a negative base, else wrapping from `i32::MAX` to 0.
fn kafka_sequence(base: i32, delta: i32) -> Option<i32> {
    (base >= 0).then(|| ((i64::from(base) + i64::from(delta)) % (1 << 31)) as i32)
}

fn header_pairs(headers: &[(String, Option<Vec<u8>>)]) -> Vec<(Vec<u8>, Option<Vec<u8>>)> {
    headers
        .iter()
        .map(|(k, v)| (k.as_bytes().to_vec(), v.clone()))
        .collect()
}

fn their_header_pairs(r: &KpRecord) -> Vec<(Vec<u8>, Option<Vec<u8>>)> {
    r.headers
        .iter()
        .map(|(k, v)| (k.as_bytes().to_vec(), v.as_ref().map(|v| v.to_vec())))
        .collect()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(384))]

    /// Theirs → ours, field by field.
    #[test]
    fn their_batches_read_with_ours(
        fields in fields(),
        (contents, gaps) in contents().prop_flat_map(|c| { let n = c.len(); (Just(c), gaps(n)) }),
    ) {
        let mut offsets = Vec::with_capacity(gaps.len());
        let mut next = fields.base_offset;
        for g in &gaps {
            offsets.push(next);
            next += g;
        }
        let (records, bytes) = theirs(&fields, &contents, &offsets);

        let mut batches = Records::new(&bytes).batches();
        let Some(Ok(Batch::V2(b))) = batches.next() else {
            panic!("their encoding is not one v2 batch");
        };
        prop_assert!(batches.next().is_none());
        prop_assert!(batches.remainder().is_empty());
        prop_assert_eq!(b.len(), bytes.len());
        b.verify_crc().unwrap();

        let n = records.len();
        let min_ts = contents.iter().map(|c| c.timestamp).min().unwrap();
        let max_ts = contents.iter().map(|c| c.timestamp).max().unwrap();
        prop_assert_eq!(b.base_offset(), fields.base_offset);
        prop_assert_eq!(b.last_offset(), *offsets.last().unwrap());
        prop_assert_eq!(b.partition_leader_epoch(), fields.partition_leader_epoch);
        prop_assert_eq!(b.magic(), 2);
        prop_assert_eq!(b.compression(), Compression::NONE);
        prop_assert_eq!(b.attributes().timestamp_type(), TimestampType::CreateTime);
        prop_assert_eq!(b.is_transactional(), fields.transactional);
        prop_assert_eq!(b.is_control(), fields.control);
        prop_assert_eq!(b.delete_horizon(), fields.delete_horizon.then_some(min_ts));
        prop_assert_eq!(b.base_timestamp(), min_ts);
        prop_assert_eq!(b.max_timestamp(), max_ts);
        prop_assert_eq!(b.producer_id(), fields.producer_id);
        prop_assert_eq!(b.producer_epoch(), fields.producer_epoch);
        prop_assert_eq!(b.base_sequence(), fields.base_sequence);
        prop_assert_eq!(b.records_count() as usize, n);

        let ours: Vec<_> = b.records().unwrap().collect::<Result<_, _>>().unwrap();
        prop_assert_eq!(ours.len(), n);
        for (r, want) in ours.iter().zip(&records) {
            prop_assert_eq!(r.offset(), want.offset);
            prop_assert_eq!(r.timestamp(), want.timestamp);
            prop_assert_eq!(r.key(), want.key.as_deref());
            prop_assert_eq!(r.value(), want.value.as_deref());
            prop_assert_eq!(r.attributes(), 0);
            // Below i32::MAX here, so Kafka's wrap and theirs agree whenever there is a sequence.
            let expected = (fields.base_sequence >= 0).then_some(want.sequence);
            prop_assert_eq!(r.sequence(), expected);
            let headers: Vec<(Vec<u8>, Option<Vec<u8>>)> = r
                .headers()
                .iter()
                .map(|h| (h.key().to_vec(), h.value().map(<[u8]>::to_vec)))
                .collect();
            prop_assert_eq!(headers, their_header_pairs(want));
        }
    }

    /// Ours → theirs, field by field.
    #[test]
    fn our_batches_read_with_theirs(
        fields in fields(),
        contents in contents(),
        log_append_time in any::<bool>(),
        horizon in prop_oneof![3 => Just(None), 1 => (-FAR..FAR).prop_map(Some)],
        wrap in any::<bool>(),
    ) {
        let mut fields = fields;
        if wrap && fields.base_sequence >= 0 {
            // Run the sequence past i32::MAX inside the batch.
            fields.base_sequence = i32::MAX - (contents.len() as i32 / 2);
        }
        let mut contents = contents;
        if let Some(h) = horizon {
            // Their reader adds deltas with overflow checks: keep record times near the horizon.
            for c in &mut contents {
                c.timestamp = h.saturating_add(c.timestamp % (1 << 40));
            }
        } else {
            let first = contents[0].timestamp;
            for c in &mut contents {
                c.timestamp = first.saturating_add(c.timestamp % (1 << 40));
            }
        }
        let bytes = ours(builder(&fields, log_append_time, horizon), &contents);

        let mut buf = Bytes::from(bytes.clone());
        let infos = RecordBatchDecoder::decode_batch_info(&mut buf.clone()).unwrap();
        prop_assert_eq!(infos.len(), 1);
        let info = &infos[0];
        let base_ts = horizon.unwrap_or(contents[0].timestamp);
        prop_assert_eq!(info.record_count as usize, contents.len());
        prop_assert_eq!(info.min_offset, fields.base_offset);
        prop_assert_eq!(info.min_timestamp, base_ts);
        prop_assert_eq!(info.base_sequence, fields.base_sequence);
        prop_assert_eq!(info.partition_leader_epoch, fields.partition_leader_epoch);
        prop_assert_eq!(info.producer_id, fields.producer_id);
        prop_assert_eq!(info.producer_epoch, fields.producer_epoch);
        prop_assert_eq!(info.transactional, fields.transactional);
        prop_assert_eq!(info.control, fields.control);
        prop_assert_eq!(info.delete_horizon, horizon.is_some());
        prop_assert_eq!(info.compression, KpCompression::None);
        let expected_type = if log_append_time { KpTimestampType::LogAppend } else { KpTimestampType::Creation };
        prop_assert_eq!(info.timestamp_type, expected_type);

        let set = RecordBatchDecoder::decode(&mut buf).unwrap();
        prop_assert_eq!(set.version, 2);
        prop_assert_eq!(set.compression, KpCompression::None);
        prop_assert_eq!(set.records.len(), contents.len());
        let ours_view = RecordBatch::parse(&bytes).unwrap();
        for (i, (r, c)) in set.records.iter().zip(&contents).enumerate() {
            let delta = i as i32;
            prop_assert_eq!(r.offset, fields.base_offset + i as i64);
            // Their reader does not apply log-append time: the record's own timestamp.
            prop_assert_eq!(r.timestamp, c.timestamp);
            prop_assert_eq!(r.key.as_deref(), c.key.as_deref());
            prop_assert_eq!(r.value.as_deref(), c.value.as_deref());
            prop_assert_eq!(their_header_pairs(r), header_pairs(&c.headers));
            prop_assert_eq!(r.transactional, fields.transactional);
            prop_assert_eq!(r.control, fields.control);
            prop_assert_eq!(r.delete_horizon, horizon.is_some());
            prop_assert_eq!(r.timestamp_type, expected_type);
            prop_assert_eq!(r.partition_leader_epoch, fields.partition_leader_epoch);
            prop_assert_eq!(r.producer_id, fields.producer_id);
            prop_assert_eq!(r.producer_epoch, fields.producer_epoch);
            // Theirs wraps at 2^32 and has a sequence for -1; ours follows Kafka.
            prop_assert_eq!(r.sequence, fields.base_sequence.wrapping_add(delta));
            let mine = ours_view.records().unwrap().nth(i).unwrap().unwrap();
            prop_assert_eq!(mine.sequence(), kafka_sequence(fields.base_sequence, delta));
            if fields.base_sequence >= 0 && fields.base_sequence.checked_add(delta).is_some() {
                prop_assert_eq!(mine.sequence(), Some(r.sequence));
            }
        }
    }

    /// The same records give the same bytes from both writers.
    #[test]
    fn both_writers_agree_byte_for_byte(
        fields in fields(),
        contents in contents(),
    ) {
        let mut fields = fields;
        fields.delete_horizon = false;
        let mut contents = contents;
        // Their base timestamp is the smallest, ours the first record's: put the smallest first.
        let min = contents.iter().map(|c| c.timestamp).min().unwrap();
        contents[0].timestamp = min;
        let offsets: Vec<i64> = (0..contents.len() as i64).map(|i| fields.base_offset + i).collect();
        let (_, theirs) = theirs(&fields, &contents, &offsets);
        let ours = ours(builder(&fields, false, None), &contents);
        prop_assert_eq!(&ours[..], &theirs[..]);
    }
}

/// Their decoder keeps the last value of a repeated header key; ours keeps every header in
/// order. The first value is what `Headers::get` returns.
#[test]
fn repeated_header_keys_collapse_in_theirs_only() {
    let headers = [
        NewHeader::new(b"trace", b"1"),
        NewHeader::new(b"other", b"x"),
        NewHeader::new(b"trace", b"2"),
    ];
    let record = NewRecord::new(b"v")
        .with_headers(&headers)
        .with_timestamp(5);
    let mut out = [0u8; 256];
    let n = BatchBuilder::new().write([record], &mut out).unwrap();
    let b = RecordBatch::parse(&out[..n]).unwrap();
    let r = b.records().unwrap().next().unwrap().unwrap();
    assert_eq!(r.headers().len(), 3);
    assert_eq!(r.headers().get(b"trace"), Some(Some(&b"1"[..])));

    let set = RecordBatchDecoder::decode(&mut Bytes::copy_from_slice(&out[..n])).unwrap();
    let theirs = &set.records[0].headers;
    assert_eq!(theirs.len(), 2);
    assert_eq!(
        theirs.get(&b"trace"[..]).unwrap().as_deref(),
        Some(&b"2"[..])
    );
}

/// A transaction marker written by our builder reads as a control record in theirs, and theirs
/// as a COMMIT marker in ours.
#[test]
fn transaction_markers_both_ways() {
    let mut out = [0u8; 128];
    let n = BatchBuilder::new()
        .with_base_offset(42)
        .with_producer(4000, 3, -1)
        .write_txn_marker(true, TxnMarker::new(5), 1_700_000_000_000, &mut out)
        .unwrap();
    let set = RecordBatchDecoder::decode(&mut Bytes::copy_from_slice(&out[..n])).unwrap();
    let r = &set.records[0];
    assert!(r.control && r.transactional);
    assert_eq!((r.producer_id, r.producer_epoch, r.offset), (4000, 3, 42));
    assert_eq!(r.key.as_deref(), Some(&[0, 0, 0, 1][..]));
    assert_eq!(r.value.as_deref(), Some(&[0, 0, 0, 0, 0, 5][..]));

    let record = KpRecord {
        transactional: true,
        control: true,
        delete_horizon: false,
        partition_leader_epoch: 9,
        producer_id: 77,
        producer_epoch: 1,
        timestamp_type: KpTimestampType::Creation,
        offset: 1000,
        sequence: -1,
        timestamp: 1_700_000_000_000,
        key: Some(Bytes::from_static(&[0, 0, 0, 0])),
        value: Some(Bytes::from_static(&[0, 0, 0, 0, 0, 12])),
        headers: Default::default(),
    };
    let mut buf = BytesMut::new();
    RecordBatchEncoder::encode(&mut buf, [&record], &options()).unwrap();
    let b = RecordBatch::parse(&buf).unwrap();
    b.verify_crc().unwrap();
    assert!(b.is_control() && b.is_transactional());
    let r = b.records().unwrap().next().unwrap().unwrap();
    let c = ControlRecord::parse(&r).unwrap();
    assert_eq!(c.record_type(), ControlRecordType::ABORT);
    assert_eq!(
        c.payload().unwrap(),
        ControlPayload::Abort(TxnMarker::new(12))
    );
}

/// Several batches from their encoder (it starts a new batch when the producer changes) walk
/// as a records field in ours.
#[test]
fn their_multi_batch_records_field() {
    let make = |offset: i64, producer_id: i64| KpRecord {
        transactional: false,
        control: false,
        delete_horizon: false,
        partition_leader_epoch: 1,
        producer_id,
        producer_epoch: 0,
        timestamp_type: KpTimestampType::Creation,
        offset,
        sequence: offset as i32,
        timestamp: 1_700_000_000_000 + offset,
        key: None,
        value: Some(Bytes::from(format!("value-{offset}"))),
        headers: Default::default(),
    };
    let records: Vec<KpRecord> = (0..10).map(|i| make(i, 1 + i / 4)).collect();
    let mut buf = BytesMut::new();
    RecordBatchEncoder::encode(&mut buf, &records, &options()).unwrap();
    let mut seen = Vec::new();
    let mut batches = Records::new(&buf).batches();
    for batch in batches.by_ref() {
        let b = *batch.unwrap().as_v2().unwrap();
        b.verify_crc().unwrap();
        for r in b.records().unwrap() {
            let r = r.unwrap();
            seen.push((r.offset(), b.producer_id(), r.value().unwrap().to_vec()));
        }
    }
    assert!(batches.remainder().is_empty());
    let expected: Vec<_> = records
        .iter()
        .map(|r| (r.offset, r.producer_id, r.value.as_ref().unwrap().to_vec()))
        .collect();
    assert_eq!(seen, expected);
}
