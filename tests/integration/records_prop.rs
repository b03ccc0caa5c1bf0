//! Property tests of v2 record batches: what `BatchBuilder` writes reads back field by field,
//! the CRC catches every single-bit change it covers, a batch cut short is a truncation (and, in
//! a records field, a silent end), and arbitrary bytes never panic anywhere in the records layer.

use kwire::DecodeErrorKind;
use kwire::records::{
    Batch, BatchBuilder, Compression, ControlRecord, NewHeader, NewRecord, RecordBatch, Records,
    TimestampType,
};
use kwire_testkit::oracles::{self, Outcome, scratch_len};
use proptest::prelude::*;
use proptest::sample::Index;

/// A record as the tests hold it (owned, so that strategies can make it).
#[derive(Debug, Clone)]
struct Rec {
    key: Option<Vec<u8>>,
    value: Option<Vec<u8>>,
    headers: Vec<(Vec<u8>, Option<Vec<u8>>)>,
    timestamp: i64,
}

/// The batch-level fields given to the builder.
#[derive(Debug, Clone)]
struct Fields {
    base_offset: i64,
    partition_leader_epoch: i32,
    producer_id: i64,
    producer_epoch: i16,
    base_sequence: i32,
    log_append_time: bool,
    transactional: bool,
    control: bool,
    delete_horizon: Option<i64>,
}

impl Fields {
    fn builder(&self) -> BatchBuilder {
        BatchBuilder::new()
            .with_base_offset(self.base_offset)
            .with_partition_leader_epoch(self.partition_leader_epoch)
            .with_producer(self.producer_id, self.producer_epoch, self.base_sequence)
            .with_timestamp_type(if self.log_append_time {
                TimestampType::LogAppendTime
            } else {
                TimestampType::CreateTime
            })
            .with_transactional(self.transactional)
            .with_control(self.control)
            .with_delete_horizon(self.delete_horizon)
    }
}

fn bytes(max: usize) -> impl Strategy<Value = Vec<u8>> {
    prop::collection::vec(any::<u8>(), 0..=max)
}

fn nullable(max: usize) -> impl Strategy<Value = Option<Vec<u8>>> {
    prop_oneof![1 => Just(None), 4 => bytes(max).prop_map(Some)]
}

fn timestamp() -> impl Strategy<Value = i64> {
    prop_oneof![
        Just(i64::MIN),
        Just(i64::MAX),
        Just(-1i64),
        Just(0i64),
        1_700_000_000_000i64..1_700_000_100_000,
        any::<i64>(),
    ]
}

/// Header keys from a small alphabet, so that duplicates are common.
fn header() -> impl Strategy<Value = (Vec<u8>, Option<Vec<u8>>)> {
    let key = prop_oneof![
        Just(Vec::new()),
        Just(b"trace".to_vec()),
        Just(b"id".to_vec()),
        bytes(12),
    ];
    (key, nullable(12))
}

fn record() -> impl Strategy<Value = Rec> {
    (
        nullable(40),
        nullable(200),
        prop::collection::vec(header(), 0..5),
        timestamp(),
    )
        .prop_map(|(key, value, headers, timestamp)| Rec {
            key,
            value,
            headers,
            timestamp,
        })
}

/// Small records, for batches of many.
fn small_record() -> impl Strategy<Value = Rec> {
    (nullable(3), nullable(3), timestamp()).prop_map(|(key, value, timestamp)| Rec {
        key,
        value,
        headers: Vec::new(),
        timestamp,
    })
}

fn records() -> impl Strategy<Value = Vec<Rec>> {
    prop_oneof![
        1 => Just(Vec::new()),
        6 => prop::collection::vec(record(), 1..8),
        1 => prop::collection::vec(small_record(), 100..400),
    ]
}

fn base_sequence() -> impl Strategy<Value = i32> {
    prop_oneof![
        Just(-1),
        Just(0),
        Just(i32::MAX),
        Just(i32::MAX - 1),
        (i32::MAX - 500)..=i32::MAX,
        0..=i32::MAX,
        any::<i32>(),
    ]
}

fn fields() -> impl Strategy<Value = Fields> {
    (
        prop_oneof![Just(0i64), Just(i64::MAX), Just(i64::MIN), any::<i64>()],
        any::<i32>(),
        prop_oneof![Just(-1i64), any::<i64>()],
        prop_oneof![Just(-1i16), any::<i16>()],
        base_sequence(),
        any::<bool>(),
        any::<bool>(),
        any::<bool>(),
        prop_oneof![3 => Just(None), 1 => timestamp().prop_map(Some)],
    )
        .prop_map(
            |(
                base_offset,
                partition_leader_epoch,
                producer_id,
                producer_epoch,
                base_sequence,
                log_append_time,
                transactional,
                control,
                delete_horizon,
            )| Fields {
                base_offset,
                partition_leader_epoch,
                producer_id,
                producer_epoch,
                base_sequence,
                log_append_time,
                transactional,
                control,
                delete_horizon,
            },
        )
}

/// Writes the batch with the builder (checking `encoded_len` on the way).
fn build(fields: &Fields, recs: &[Rec]) -> Vec<u8> {
    let headers: Vec<Vec<NewHeader<'_>>> = recs
        .iter()
        .map(|r| {
            r.headers
                .iter()
                .map(|(k, v)| NewHeader {
                    key: k,
                    value: v.as_deref(),
                })
                .collect()
        })
        .collect();
    let new: Vec<NewRecord<'_>> = recs
        .iter()
        .zip(&headers)
        .map(|(r, h)| NewRecord {
            key: r.key.as_deref(),
            value: r.value.as_deref(),
            headers: h,
            timestamp: r.timestamp,
        })
        .collect();
    let builder = fields.builder();
    let len = builder.encoded_len(&new).unwrap();
    let mut out = vec![0u8; len];
    assert_eq!(builder.write(&new, &mut out).unwrap(), len);
    out
}

/// Kafka's sequence of the record at `delta`: `base + delta`, wrapping from `i32::MAX` to 0.
fn sequence(base: i32, delta: i32) -> Option<i32> {
    (base >= 0).then(|| ((i64::from(base) + i64::from(delta)) % (1i64 << 31)) as i32)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn builder_output_reads_back_field_by_field(fields in fields(), recs in records()) {
        let bytes = build(&fields, &recs);
        let b = RecordBatch::parse(&bytes).unwrap();
        let n = recs.len();
        prop_assert_eq!(b.len(), bytes.len());
        prop_assert_eq!(b.batch_length() as usize, bytes.len() - 12);
        prop_assert_eq!(b.magic(), 2);
        prop_assert_eq!(b.crc(), b.compute_crc());
        b.verify_crc().unwrap();
        prop_assert_eq!(b.base_offset(), fields.base_offset);
        prop_assert_eq!(b.partition_leader_epoch(), fields.partition_leader_epoch);
        prop_assert_eq!(b.producer_id(), fields.producer_id);
        prop_assert_eq!(b.producer_epoch(), fields.producer_epoch);
        prop_assert_eq!(b.base_sequence(), fields.base_sequence);
        prop_assert_eq!(b.records_count() as usize, n);
        prop_assert_eq!(b.compression(), Compression::NONE);
        let a = b.attributes();
        prop_assert_eq!(a.timestamp_type() == TimestampType::LogAppendTime, fields.log_append_time);
        prop_assert_eq!(b.is_transactional(), fields.transactional);
        prop_assert_eq!(b.is_control(), fields.control);
        prop_assert_eq!(a.has_delete_horizon(), fields.delete_horizon.is_some());
        prop_assert_eq!(b.delete_horizon(), fields.delete_horizon);
        prop_assert_eq!(a.0 & !0x78, 0, "no compression bits and no undefined bits");
        prop_assert_eq!(b.last_offset_delta() as usize, n.saturating_sub(1));
        prop_assert_eq!(b.last_offset(), fields.base_offset.wrapping_add(n.saturating_sub(1) as i64));
        let max = recs.iter().map(|r| r.timestamp).max().unwrap_or(-1);
        let base = fields
            .delete_horizon
            .or(recs.first().map(|r| r.timestamp))
            .unwrap_or(-1);
        prop_assert_eq!(b.base_timestamp(), base);
        prop_assert_eq!(b.max_timestamp(), max);

        let mut seen = 0;
        for (i, (r, want)) in b.records().unwrap().zip(&recs).enumerate() {
            let r = r.unwrap();
            let delta = i as i32;
            prop_assert_eq!(r.attributes(), 0);
            prop_assert_eq!(r.offset_delta(), delta);
            prop_assert_eq!(r.offset(), fields.base_offset.wrapping_add(i as i64));
            prop_assert_eq!(r.timestamp_delta(), want.timestamp.wrapping_sub(base));
            let ts = if fields.log_append_time { max } else { want.timestamp };
            prop_assert_eq!(r.timestamp(), ts);
            prop_assert_eq!(r.sequence(), sequence(fields.base_sequence, delta));
            prop_assert_eq!(r.key(), want.key.as_deref());
            prop_assert_eq!(r.value(), want.value.as_deref());
            let headers: Vec<(&[u8], Option<&[u8]>)> =
                r.headers().iter().map(|h| (h.key(), h.value())).collect();
            let expected: Vec<(&[u8], Option<&[u8]>)> = want
                .headers
                .iter()
                .map(|(k, v)| (k.as_slice(), v.as_deref()))
                .collect();
            prop_assert_eq!(headers, expected, "headers in order, duplicates kept");
            prop_assert_eq!(r.headers().len(), want.headers.len());
            if let Some((k, v)) = want.headers.first() {
                let first = want.headers.iter().find(|(k2, _)| k2 == k).unwrap();
                prop_assert_eq!(r.headers().get(k), Some(first.1.as_deref()));
                prop_assert_eq!(first.1.as_deref(), v.as_deref());
            }
            seen += 1;
        }
        prop_assert_eq!(seen, n);
        prop_assert!(b.records().unwrap().all(|r| r.is_ok()));
        prop_assert_eq!(b.records().unwrap().count(), n);

        // In a records field: one batch, nothing left.
        let mut batches = Records::new(&bytes).batches();
        match batches.next() {
            Some(Ok(Batch::V2(again))) => prop_assert_eq!(again.as_bytes(), &bytes[..]),
            other => prop_assert!(false, "expected one v2 batch, got {:?}", other),
        }
        prop_assert!(batches.next().is_none());
        prop_assert!(batches.remainder().is_empty());

        // The fuzz oracle holds the builder's output to its own bytes.
        let mut scratch = vec![0u8; scratch_len(bytes.len())];
        let outcome = oracles::record_batch(&bytes, &mut scratch).unwrap();
        if n <= 64 && recs.iter().map(|r| r.headers.len()).sum::<usize>() <= 128 {
            prop_assert_eq!(outcome, Outcome::RoundTrip { canonical: true });
        }
    }

    #[test]
    fn every_single_bit_flip_under_the_crc_is_detected(
        fields in fields(),
        recs in prop::collection::vec(record(), 0..4),
        at in any::<Index>(),
        bit in 0u8..8,
    ) {
        let mut bytes = build(&fields, &recs);
        let i = 21 + at.index(bytes.len() - 21);
        bytes[i] ^= 1 << bit;
        let b = RecordBatch::parse(&bytes).unwrap();
        let err = b.verify_crc().unwrap_err();
        prop_assert_eq!(err.offset, 17);
        let is_crc_mismatch = matches!(err.kind, DecodeErrorKind::CrcMismatch { .. });
        prop_assert!(is_crc_mismatch);
        prop_assert!(Batch::V2(b).verify_crc().is_err());
    }

    #[test]
    fn every_single_bit_flip_in_the_stored_crc_is_detected(
        fields in fields(),
        recs in prop::collection::vec(record(), 0..3),
        at in 17usize..21,
        bit in 0u8..8,
    ) {
        let mut bytes = build(&fields, &recs);
        bytes[at] ^= 1 << bit;
        prop_assert!(RecordBatch::parse(&bytes).unwrap().verify_crc().is_err());
    }

    #[test]
    fn bytes_outside_the_crc_do_not_affect_it(
        fields in fields(),
        recs in prop::collection::vec(record(), 0..3),
        epoch in any::<i32>(),
        offset in any::<i64>(),
    ) {
        let mut bytes = build(&fields, &recs);
        bytes[..8].copy_from_slice(&offset.to_be_bytes());
        bytes[12..16].copy_from_slice(&epoch.to_be_bytes());
        let b = RecordBatch::parse(&bytes).unwrap();
        b.verify_crc().unwrap();
        prop_assert_eq!(b.partition_leader_epoch(), epoch);
        prop_assert_eq!(b.base_offset(), offset);
    }

    #[test]
    fn every_proper_prefix_is_truncated(
        fields in fields(),
        recs in prop::collection::vec(record(), 0..4),
        before in prop::collection::vec(record(), 0..2),
    ) {
        let bytes = build(&fields, &recs);
        // A complete batch in front, so that the cut one is not always the first.
        let first = build(&fields, &before);
        for cut in 0..bytes.len() {
            let prefix = &bytes[..cut];
            let err = RecordBatch::parse(prefix).unwrap_err();
            let truncated = matches!(err.kind, DecodeErrorKind::Truncated { needed } if needed > 0);
            prop_assert!(truncated, "cut at {}: {:?}", cut, err);
            prop_assert_eq!(err.offset, cut);

            // Alone, the prefix is an incomplete first batch: an error, never an empty result.
            let mut batches = Records::new(prefix).batches();
            if cut == 0 {
                prop_assert!(batches.next().is_none());
            } else {
                let e = batches.next().unwrap().unwrap_err();
                let incomplete = matches!(
                    e.kind,
                    DecodeErrorKind::IncompleteFirstBatch { available, needed }
                        if available == cut && needed > 0
                );
                prop_assert!(incomplete, "cut at {}: {:?}", cut, e);
                prop_assert!(batches.next().is_none());
                prop_assert_eq!(batches.partial(), None);
            }
            prop_assert_eq!(batches.remainder(), prefix);

            let mut field = first.clone();
            field.extend_from_slice(prefix);
            let mut batches = Records::new(&field).batches();
            let got = batches.next().unwrap().unwrap();
            prop_assert_eq!(got.as_bytes(), &first[..]);
            prop_assert!(batches.next().is_none(), "cut at {}", cut);
            prop_assert_eq!(batches.remainder(), prefix);
            prop_assert_eq!(batches.byte_offset(), first.len());
            // After a complete batch it is the normal end of a fetch, reported as partial.
            let partial = batches.partial().map(|p| (p.byte_offset, p.available));
            prop_assert_eq!(partial, (cut > 0).then_some((first.len(), cut)));
            if let Some(p) = batches.partial() {
                let needed = if cut < 12 { 17 - cut } else { bytes.len() - cut };
                prop_assert_eq!(p.needed, needed);
            }
        }
    }

    #[test]
    fn random_bytes_never_panic(data in prop::collection::vec(any::<u8>(), 0..600)) {
        walk_everything(&data);
        let mut scratch = vec![0u8; scratch_len(data.len())];
        oracles::record_batch(&data, &mut scratch).unwrap();
        oracles::legacy_message_set(&data, &mut scratch).unwrap();
    }

    #[test]
    fn a_valid_header_over_random_records_never_panics(
        fields in fields(),
        count in prop_oneof![Just(-1i32), Just(i32::MIN), Just(i32::MAX), 0i32..6],
        attributes in prop_oneof![Just(None), any::<i16>().prop_map(Some)],
        payload in prop::collection::vec(any::<u8>(), 0..300),
    ) {
        // A valid, empty batch, then random record bytes and fix-ups of its length and count.
        let mut bytes = build(&fields, &[]);
        bytes.extend_from_slice(&payload);
        let len = (bytes.len() - 12) as i32;
        bytes[8..12].copy_from_slice(&len.to_be_bytes());
        bytes[57..61].copy_from_slice(&count.to_be_bytes());
        if let Some(a) = attributes {
            bytes[21..23].copy_from_slice(&a.to_be_bytes());
        }
        walk_everything(&bytes);
        let mut scratch = vec![0u8; scratch_len(bytes.len())];
        oracles::record_batch(&bytes, &mut scratch).unwrap();
    }

    #[test]
    fn random_control_records_never_panic(
        fields in fields(),
        keys in prop::collection::vec(
            (
                prop_oneof![Just(None), bytes(6).prop_map(Some)],
                any::<i16>(),
                0i16..8,
                nullable(60),
            ),
            1..4,
        ),
    ) {
        let recs: Vec<Rec> = keys
            .into_iter()
            .map(|(raw, version, kind, value)| {
                let key = raw.or_else(|| {
                    let mut k = version.to_be_bytes().to_vec();
                    k.extend_from_slice(&kind.to_be_bytes());
                    Some(k)
                });
                Rec { key, value, headers: Vec::new(), timestamp: 0 }
            })
            .collect();
        let mut fields = fields;
        fields.control = true;
        let bytes = build(&fields, &recs);
        walk_everything(&bytes);
        let mut scratch = vec![0u8; scratch_len(bytes.len())];
        prop_assert!(oracles::record_batch(&bytes, &mut scratch).is_ok());
    }
}

/// Reads everything there is to read: every entry, CRC, record, header and control payload.
fn walk_everything(data: &[u8]) {
    let records = Records::new(data);
    let mut batches = records.batches();
    for entry in batches.by_ref() {
        let Ok(entry) = entry else { break };
        let _ = entry.verify_crc();
        match entry {
            Batch::V2(b) => {
                let _ = (
                    b.compute_crc(),
                    b.delete_horizon(),
                    b.next_offset(),
                    b.payload(),
                );
                let _ = format!("{b:?}");
                let Ok(iter) = b.records() else { continue };
                for r in iter {
                    let Ok(r) = r else { break };
                    let _ = (r.offset(), r.timestamp(), r.sequence(), r.key(), r.value());
                    for h in r.headers() {
                        let _ = (h.key_str(), h.value());
                    }
                    let _ = r.headers().get(b"trace");
                    if let Ok(c) = ControlRecord::parse(&r) {
                        let _ = c.payload();
                    }
                }
            }
            Batch::Legacy(m) => {
                let _ = (
                    m.compute_crc(),
                    m.timestamp_type(),
                    m.compression(),
                    m.key(),
                    m.value(),
                );
            }
        }
    }
    assert!(batches.remainder().len() <= data.len());
}
