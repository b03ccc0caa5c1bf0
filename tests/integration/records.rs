//! Record batches: the worked examples of the protocol notes, builder round trips, control
//! records, batch iteration over a records field, and damage detection.

use kwire::DecodeErrorKind;
use kwire::control::ControlPayload;
use kwire::records::{
    Batch, BatchBuilder, Compression, ControlRecord, ControlRecordType, LegacyMessage, NewHeader,
    NewRecord, RecordBatch, Records, TimestampType, TxnMarker, crc,
};

/// The 70-byte v2 batch: baseOffset 0, one record (null key, value "hi", no headers),
/// CreateTime 1700000000000, no producer, partitionLeaderEpoch -1.
const BATCH_70: &str = "
    0000000000000000 0000003a ffffffff 02 bbcc4115
    0000 00000000 0000018bcfe56800 0000018bcfe56800
    ffffffffffffffff ffff ffffffff 00000001
    10 000000 01 046869 00";

/// The same content as a legacy v1 log entry.
const LEGACY_V1_36: &str = "
    0000000000000000 00000018 dba4e6e2 01 00 0000018bcfe56800 ffffffff 00000002 6869";

const TS: i64 = 1_700_000_000_000;

fn hex(s: &str) -> Vec<u8> {
    let s: String = s.chars().filter(|c| !c.is_whitespace()).collect();
    (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap())
        .collect()
}

#[test]
fn crc_check_values() {
    assert_eq!(crc::crc32c(b"123456789"), 0xe306_9283);
    assert_eq!(crc::crc32c(b"Some String"), 608_512_271);
}

#[test]
fn worked_v2_batch_decodes_field_by_field() {
    let bytes = hex(BATCH_70);
    assert_eq!(bytes.len(), 70);
    let b = RecordBatch::parse(&bytes).unwrap();
    assert_eq!(b.len(), 70);
    assert_eq!(b.base_offset(), 0);
    assert_eq!(b.batch_length(), 58);
    assert_eq!(b.partition_leader_epoch(), -1);
    assert_eq!(b.magic(), 2);
    assert_eq!(b.crc(), 0xbbcc_4115);
    assert_eq!(b.compute_crc(), 0xbbcc_4115);
    b.verify_crc().unwrap();
    assert_eq!(b.compression(), Compression::NONE);
    assert_eq!(b.attributes().timestamp_type(), TimestampType::CreateTime);
    assert!(!b.is_transactional() && !b.is_control());
    assert_eq!(b.delete_horizon(), None);
    assert_eq!(b.last_offset_delta(), 0);
    assert_eq!(b.base_timestamp(), TS);
    assert_eq!(b.max_timestamp(), TS);
    assert_eq!(b.producer_id(), -1);
    assert_eq!(b.producer_epoch(), -1);
    assert_eq!(b.base_sequence(), -1);
    assert_eq!(b.records_count(), 1);
    let records: Vec<_> = b.records().unwrap().collect::<Result<_, _>>().unwrap();
    assert_eq!(records.len(), 1);
    let r = records[0];
    assert_eq!(r.position(), 61);
    assert_eq!(r.as_bytes().len(), 9);
    assert_eq!(r.attributes(), 0);
    assert_eq!(r.timestamp_delta(), 0);
    assert_eq!(r.offset_delta(), 0);
    assert_eq!(r.key(), None);
    assert_eq!(r.value(), Some(&b"hi"[..]));
    assert!(r.headers().is_empty());
    assert_eq!(r.offset(), 0);
    assert_eq!(r.timestamp(), TS);
    assert_eq!(r.sequence(), None);
}

#[test]
fn builder_reproduces_the_worked_batch() {
    let mut out = [0u8; 70];
    let records = [NewRecord::new(b"hi").with_timestamp(TS)];
    let builder = BatchBuilder::new();
    assert_eq!(builder.encoded_len(&records).unwrap(), 70);
    assert_eq!(builder.write(&records, &mut out).unwrap(), 70);
    assert_eq!(out.to_vec(), hex(BATCH_70));
    // From an iterator too.
    let mut out2 = [0u8; 70];
    let it = (0..1).map(|_| NewRecord::new(b"hi").with_timestamp(TS));
    assert_eq!(builder.write(it, &mut out2).unwrap(), 70);
    assert_eq!(out, out2);
}

#[test]
fn builder_writes_nothing_when_short() {
    let records = [NewRecord::new(b"hi").with_timestamp(TS)];
    let mut out = [0xeeu8; 69];
    let err = BatchBuilder::new().write(&records, &mut out).unwrap_err();
    assert_eq!(
        err,
        kwire::EncodeError::BufferTooSmall {
            required: 70,
            available: 69
        }
    );
    assert!(out.iter().all(|&b| b == 0xee));
}

#[test]
fn worked_legacy_entry_decodes() {
    let bytes = hex(LEGACY_V1_36);
    assert_eq!(bytes.len(), 36);
    let m = LegacyMessage::parse(&bytes).unwrap();
    assert_eq!(m.offset(), 0);
    assert_eq!(m.message_size(), 24);
    assert_eq!(m.crc(), 0xdba4_e6e2);
    m.verify_crc().unwrap();
    assert_eq!(m.magic(), 1);
    assert_eq!(m.compression(), Compression::NONE);
    assert_eq!(m.timestamp(), Some(TS));
    assert_eq!(m.key(), None);
    assert_eq!(m.value(), Some(&b"hi"[..]));
}

#[test]
fn rich_records_round_trip() {
    let h = [
        NewHeader::new(b"k", b"v1"),
        NewHeader::new(b"k", b"v2"),
        NewHeader {
            key: b"",
            value: None,
        },
    ];
    let records = [
        NewRecord::new(b"first").with_key(b"a").with_timestamp(5),
        NewRecord {
            key: None,
            value: None,
            headers: &h,
            timestamp: i64::MIN,
        },
        NewRecord::new(b"").with_timestamp(i64::MAX),
    ];
    let builder = BatchBuilder::new()
        .with_base_offset(1000)
        .with_partition_leader_epoch(7)
        .with_producer(42, 3, i32::MAX - 1)
        .with_transactional(true);
    let n = builder.encoded_len(&records).unwrap();
    let mut out = vec![0u8; n];
    assert_eq!(builder.write(&records, &mut out).unwrap(), n);
    let b = RecordBatch::parse(&out).unwrap();
    b.verify_crc().unwrap();
    assert_eq!(b.base_offset(), 1000);
    assert_eq!(b.last_offset(), 1002);
    assert_eq!(b.next_offset(), 1003);
    assert_eq!(b.partition_leader_epoch(), 7);
    assert_eq!(b.producer_id(), 42);
    assert_eq!(b.producer_epoch(), 3);
    assert!(b.is_transactional());
    assert_eq!(b.base_timestamp(), 5);
    assert_eq!(b.max_timestamp(), i64::MAX);
    let got: Vec<_> = b.records().unwrap().collect::<Result<_, _>>().unwrap();
    assert_eq!(got.len(), 3);
    for (i, (r, want)) in got.iter().zip(&records).enumerate() {
        assert_eq!(r.key(), want.key);
        assert_eq!(r.value(), want.value);
        assert_eq!(r.timestamp(), want.timestamp, "record {i}");
        assert_eq!(r.offset(), 1000 + i as i64);
        let headers: Vec<_> = r.headers().iter().map(|h| (h.key(), h.value())).collect();
        let want_h: Vec<_> = want.headers.iter().map(|h| (h.key, h.value)).collect();
        assert_eq!(headers, want_h);
    }
    // Sequences wrap from i32::MAX to 0.
    let seqs: Vec<_> = got.iter().map(|r| r.sequence()).collect();
    assert_eq!(seqs, [Some(i32::MAX - 1), Some(i32::MAX), Some(0)]);
    assert_eq!(got[1].headers().get(b"k"), Some(Some(&b"v1"[..])));
    assert_eq!(got[1].headers().get(b""), Some(None));
    assert_eq!(got[1].headers().get(b"x"), None);
}

#[test]
fn empty_batch() {
    let mut out = [0u8; 61];
    let n = BatchBuilder::new()
        .write(core::iter::empty::<NewRecord<'_>>(), &mut out)
        .unwrap();
    assert_eq!(n, 61);
    let b = RecordBatch::parse(&out).unwrap();
    b.verify_crc().unwrap();
    assert_eq!(b.records_count(), 0);
    assert_eq!(b.base_timestamp(), -1);
    assert_eq!(b.records().unwrap().count(), 0);
}

#[test]
fn txn_marker_control_batch() {
    let mut out = [0u8; 128];
    let n = BatchBuilder::new()
        .with_producer(9, 1, -1)
        .write_txn_marker(true, TxnMarker::new(5), TS, &mut out)
        .unwrap();
    let b = RecordBatch::parse(&out[..n]).unwrap();
    b.verify_crc().unwrap();
    assert!(b.is_control() && b.is_transactional());
    let r = b.records().unwrap().next().unwrap().unwrap();
    assert_eq!(r.key(), Some(&[0, 0, 0, 1][..]));
    assert_eq!(r.value(), Some(&[0, 0, 0, 0, 0, 5][..]));
    let c = ControlRecord::parse(&r).unwrap();
    assert_eq!(c.version(), 0);
    assert_eq!(c.record_type(), ControlRecordType::COMMIT);
    assert_eq!(
        c.payload().unwrap(),
        ControlPayload::Commit(TxnMarker {
            version: 0,
            coordinator_epoch: 5
        })
    );
}

#[test]
fn unknown_control_type_passes_through() {
    let key = ControlRecordType(77).key();
    let records = [NewRecord::new(b"opaque").with_key(&key)];
    let mut out = [0u8; 128];
    let n = BatchBuilder::new()
        .with_control(true)
        .write(&records, &mut out)
        .unwrap();
    let b = RecordBatch::parse(&out[..n]).unwrap();
    let r = b.records().unwrap().next().unwrap().unwrap();
    let c = ControlRecord::parse(&r).unwrap();
    assert_eq!(c.record_type().name(), None);
    assert_eq!(
        c.payload().unwrap(),
        ControlPayload::Unknown(ControlRecordType(77), Some(&b"opaque"[..]))
    );
    // A key shorter than 4 bytes is an error.
    let short = [NewRecord::new(b"").with_key(&[0, 0, 1])];
    let n = BatchBuilder::new()
        .with_control(true)
        .write(&short, &mut out)
        .unwrap();
    let b = RecordBatch::parse(&out[..n]).unwrap();
    let r = b.records().unwrap().next().unwrap().unwrap();
    let e = ControlRecord::parse(&r).unwrap_err();
    assert!(matches!(e.kind, DecodeErrorKind::Truncated { .. }), "{e}");
}

#[test]
fn records_field_iteration_and_truncated_tail() {
    let one = hex(BATCH_70);
    let legacy = hex(LEGACY_V1_36);
    let mut field = Vec::new();
    field.extend_from_slice(&one);
    field.extend_from_slice(&legacy);
    field.extend_from_slice(&one);
    let records = Records::with_offset(&field, 100);
    let got: Vec<_> = records.batches().collect::<Result<_, _>>().unwrap();
    assert_eq!(got.len(), 3);
    assert!(matches!(got[0], Batch::V2(_)));
    assert!(matches!(got[1], Batch::Legacy(_)));
    assert_eq!(got[2].position(), 100 + 70 + 36);
    for b in &got {
        b.verify_crc().unwrap();
    }
    // Every proper prefix that holds a whole entry ends cleanly after the whole entries it
    // holds, and reports the partial one; one that holds only part of the first entry is an
    // error, never an empty result.
    let ends = [70, 106, 176];
    for cut in 1..field.len() {
        let mut it = Records::new(&field[..cut]).batches();
        if cut < ends[0] {
            let e = it.next().unwrap().unwrap_err();
            let needed = if cut < 12 { 17 - cut } else { 70 - cut };
            assert_eq!(
                e.kind,
                DecodeErrorKind::IncompleteFirstBatch {
                    available: cut,
                    needed
                },
                "cut {cut}"
            );
            assert!(it.next().is_none() && it.partial().is_none());
            continue;
        }
        let whole = it.by_ref().collect::<Result<Vec<_>, _>>().unwrap();
        let expect = ends.iter().filter(|&&end| end <= cut).count();
        assert_eq!(whole.len(), expect, "cut {cut}");
        let consumed: usize = whole.iter().map(|b| b.as_bytes().len()).sum();
        assert_eq!(it.remainder().len(), cut - consumed);
        let partial = it.partial();
        if consumed == cut {
            assert_eq!(partial, None, "cut {cut}");
        } else {
            let p = partial.unwrap();
            assert_eq!(
                (p.byte_offset, p.available),
                (consumed, cut - consumed),
                "cut {cut}"
            );
            let next_end = ends.iter().find(|&&end| end > cut).unwrap();
            let needed = if p.available < 12 {
                17 - p.available
            } else {
                next_end - cut
            };
            assert_eq!(p.needed, needed, "cut {cut}");
        }
    }
    assert!(Records::new(&[]).batches().next().is_none());
}

#[test]
fn record_batches_read_v2_as_batches_does_and_refuse_legacy() {
    let one = hex(BATCH_70);
    let field = [one.as_slice(), &one].concat();
    // Every prefix of two v2 batches: the same batches, errors and partial ends.
    for cut in 0..=field.len() {
        let records = Records::with_offset(&field[..cut], 100);
        let mut all = records.batches();
        let mut v2 = records.record_batches();
        loop {
            let (a, b) = (all.next(), v2.next());
            match (a, b) {
                (None, None) => break,
                (Some(Ok(a)), Some(Ok(b))) => assert_eq!(a.as_v2(), Some(&b), "cut {cut}"),
                (Some(Err(a)), Some(Err(b))) => assert_eq!(a, b, "cut {cut}"),
                (a, b) => panic!("cut {cut}: {a:?} against {b:?}"),
            }
        }
        assert_eq!(all.partial(), v2.partial(), "cut {cut}");
        assert_eq!(all.remainder(), v2.remainder(), "cut {cut}");
        assert_eq!(all.byte_offset(), v2.byte_offset(), "cut {cut}");
    }
    // A legacy message is refused at its magic byte, and the iteration ends.
    let legacy = hex(LEGACY_V1_36);
    let field = [one.as_slice(), &legacy, &one].concat();
    let mut v2 = Records::with_offset(&field, 100).record_batches();
    assert_eq!(v2.next().unwrap().unwrap().offset(), 100);
    let e = v2.next().unwrap().unwrap_err();
    assert_eq!(
        (e.kind, e.offset, e.path),
        (
            DecodeErrorKind::UnknownMagic(1),
            100 + 70 + 16,
            "RecordBatch.magic"
        )
    );
    assert!(v2.next().is_none());
    assert_eq!(v2.partial(), None);
}

#[test]
fn records_field_damage_is_typed() {
    let mut bad = hex(BATCH_70);
    bad[16] = 3;
    let e = Records::new(&bad).batches().next().unwrap().unwrap_err();
    assert_eq!(e.kind, DecodeErrorKind::UnknownMagic(3));
    assert_eq!(e.offset, 16);
    let mut bad = hex(BATCH_70);
    bad[8..12].copy_from_slice(&13i32.to_be_bytes());
    let e = Records::new(&bad).batches().next().unwrap().unwrap_err();
    assert_eq!(e.kind, DecodeErrorKind::EntryTooSmall { size: 13, min: 14 });
    // A v2 batch whose length is below the header's.
    let mut bad = hex(BATCH_70);
    bad[8..12].copy_from_slice(&40i32.to_be_bytes());
    let e = Records::new(&bad).batches().next().unwrap().unwrap_err();
    assert_eq!(e.kind, DecodeErrorKind::EntryTooSmall { size: 40, min: 49 });
}

#[test]
fn every_crc_covered_byte_flip_is_detected() {
    let good = hex(BATCH_70);
    for i in 21..good.len() {
        for bit in 0..8 {
            let mut bad = good.clone();
            bad[i] ^= 1 << bit;
            let b = RecordBatch::parse(&bad).unwrap();
            let e = b.verify_crc().unwrap_err();
            assert_eq!(e.offset, 17);
            assert!(matches!(e.kind, DecodeErrorKind::CrcMismatch { .. }));
        }
    }
    // The leader epoch is outside the CRC.
    let mut epoch = good.clone();
    epoch[12..16].copy_from_slice(&5i32.to_be_bytes());
    RecordBatch::parse(&epoch).unwrap().verify_crc().unwrap();
}

#[test]
fn record_damage_is_typed() {
    let good = hex(BATCH_70);
    // Record length says 9, fields use 8.
    let mut bad = good.clone();
    bad[61] = 0x12;
    let damaged = RecordBatch::parse(&bad).unwrap();
    // Its CRC no longer matches: the checked walk refuses the batch.
    assert!(matches!(
        damaged.records().unwrap_err().kind,
        DecodeErrorKind::CrcMismatch { .. }
    ));
    let e = damaged
        .records_unchecked()
        .unwrap()
        .next()
        .unwrap()
        .unwrap_err();
    assert_eq!(
        e.kind,
        DecodeErrorKind::RecordSizeMismatch {
            declared: 9,
            consumed: 8
        }
    );
    assert_eq!(e.offset, 61);
    // Count 2 with one record present.
    let mut bad = good.clone();
    bad[57..61].copy_from_slice(&2i32.to_be_bytes());
    let r: Vec<_> = RecordBatch::parse(&bad)
        .unwrap()
        .records_unchecked()
        .unwrap()
        .collect();
    assert_eq!(r.len(), 2);
    assert!(r[0].is_ok());
    assert!(matches!(
        r[1].unwrap_err().kind,
        DecodeErrorKind::Truncated { .. }
    ));
    // Count 0 with one record present: trailing bytes.
    let mut bad = good.clone();
    bad[57..61].copy_from_slice(&0i32.to_be_bytes());
    let r: Vec<_> = RecordBatch::parse(&bad)
        .unwrap()
        .records_unchecked()
        .unwrap()
        .collect();
    assert_eq!(r.len(), 1);
    assert_eq!(
        r[0].unwrap_err().kind,
        DecodeErrorKind::TrailingBytes { count: 9 }
    );
    // Negative count.
    let mut bad = good.clone();
    bad[57..61].copy_from_slice(&(-1i32).to_be_bytes());
    let e = RecordBatch::parse(&bad)
        .unwrap()
        .records_unchecked()
        .unwrap_err();
    assert_eq!(e.kind, DecodeErrorKind::NegativeLength(-1));
    // Compressed: records must be asked of the decompressed payload.
    let mut bad = good.clone();
    bad[22] = 1;
    let e = RecordBatch::parse(&bad)
        .unwrap()
        .records_unchecked()
        .unwrap_err();
    assert_eq!(e.kind, DecodeErrorKind::Compressed(1));
    // Key length -2.
    let mut bad = good.clone();
    bad[65] = 0x03;
    let e = RecordBatch::parse(&bad)
        .unwrap()
        .records_unchecked()
        .unwrap()
        .next()
        .unwrap()
        .unwrap_err();
    assert_eq!(e.kind, DecodeErrorKind::NegativeLength(-2));
    assert_eq!(e.offset, 65);
}

#[test]
fn every_proper_prefix_of_a_batch_errors_cleanly() {
    let good = hex(BATCH_70);
    for cut in 0..good.len() {
        let e = RecordBatch::parse(&good[..cut]).unwrap_err();
        assert!(
            matches!(e.kind, DecodeErrorKind::Truncated { .. }),
            "cut {cut}: {e}"
        );
    }
}

#[test]
fn timestamp_delta_is_a_varlong() {
    // A delta beyond i32 range must survive.
    let records = [
        NewRecord::new(b"a").with_timestamp(0),
        NewRecord::new(b"b").with_timestamp(1 << 40),
    ];
    let mut out = [0u8; 128];
    let n = BatchBuilder::new().write(&records, &mut out).unwrap();
    let b = RecordBatch::parse(&out[..n]).unwrap();
    let ts: Vec<_> = b
        .records()
        .unwrap()
        .map(|r| r.unwrap().timestamp())
        .collect();
    assert_eq!(ts, [0, 1 << 40]);
}

#[test]
fn log_append_time_uses_max_timestamp() {
    let records = [
        NewRecord::new(b"a").with_timestamp(10),
        NewRecord::new(b"b").with_timestamp(30),
    ];
    let mut out = [0u8; 128];
    let n = BatchBuilder::new()
        .with_timestamp_type(TimestampType::LogAppendTime)
        .write(&records, &mut out)
        .unwrap();
    let b = RecordBatch::parse(&out[..n]).unwrap();
    let ts: Vec<_> = b
        .records()
        .unwrap()
        .map(|r| r.unwrap().timestamp())
        .collect();
    assert_eq!(ts, [30, 30]);
}

#[test]
fn decoded_messages_hand_out_batches() {
    use kwire::messages::ProduceRequest;
    use kwire::messages::produce_request::{PartitionProduceData, TopicProduceData};
    use kwire::{Decode, Encode};
    let batch = hex(BATCH_70);
    let partitions = [PartitionProduceData::default().with_records(Some(Records::new(&batch)))];
    let topics = [TopicProduceData::default()
        .with_name("t")
        .with_partition_data(&partitions[..])];
    let req = ProduceRequest::default()
        .with_acks(-1)
        .with_timeout_ms(1000)
        .with_topic_data(&topics[..]);
    let mut buf = vec![0u8; req.encoded_len(9).unwrap()];
    req.encode(9, &mut buf).unwrap();
    let back = ProduceRequest::decode_exact(&buf, 9).unwrap();
    let topic = back.topic_data.iter().next().unwrap();
    let part = topic.partition_data.iter().next().unwrap();
    let records = part.records.unwrap();
    assert_eq!(&buf[records.offset()..records.offset() + 70], &batch[..]);
    let b = records.batches().next().unwrap().unwrap();
    assert_eq!(b.position(), records.offset());
    let b = b.as_v2().unwrap();
    let r = b.records().unwrap().next().unwrap().unwrap();
    assert_eq!(r.value(), Some(&b"hi"[..]));
    assert_eq!(r.position(), records.offset() + 61);
}

#[test]
fn header_fields_change_in_place() {
    use kwire::records::RecordBatchHeader;
    let mut bytes = hex(BATCH_70);
    let h = RecordBatchHeader::from_batch_mut(&mut bytes).unwrap();
    h.base_offset.set(77);
    h.partition_leader_epoch.set(3);
    let b = RecordBatch::parse(&bytes).unwrap();
    b.verify_crc().unwrap();
    assert_eq!((b.base_offset(), b.partition_leader_epoch()), (77, 3));
    // A covered field needs a new CRC.
    RecordBatchHeader::from_batch_mut(&mut bytes)
        .unwrap()
        .producer_id
        .set(5);
    assert!(RecordBatch::parse(&bytes).unwrap().verify_crc().is_err());
    let crc = RecordBatchHeader::refresh_crc(&mut bytes).unwrap();
    let b = RecordBatch::parse(&bytes).unwrap();
    b.verify_crc().unwrap();
    assert_eq!((b.crc(), b.producer_id()), (crc, 5));
    // Not a v2 batch: refused.
    bytes[16] = 1;
    assert!(RecordBatchHeader::from_batch_mut(&mut bytes).is_err());
    assert!(RecordBatchHeader::refresh_crc(&mut bytes).is_err());
}

/// A record's key and value are set from bytes in any of the forms a caller holds them, or
/// from `None`; `NewRecord::new` stays a `const fn`.
#[test]
fn keys_and_values_from_bytes_or_none() {
    const FIXED: NewRecord<'static> = NewRecord::new(b"fixed");
    let vec = vec![7u8, 8, 9];
    let slice: &[u8] = &vec[1..];
    let text = String::from("board-7");
    let keys = [
        (NewRecord::new(b"v").with_key(b"k"), Some(&b"k"[..])),
        (NewRecord::new(b"v").with_key(&vec), Some(&vec[..])),
        (NewRecord::new(b"v").with_key(slice), Some(slice)),
        (NewRecord::new(b"v").with_key(Some(slice)), Some(slice)),
        (NewRecord::new(b"v").with_key(&text), Some(text.as_bytes())),
        (NewRecord::new(b"v").with_key(b"k").with_key(None), None),
        (FIXED.with_key(&[0, 0, 1]), Some(&[0u8, 0, 1][..])),
    ];
    for (record, key) in keys {
        assert_eq!(record.key, key);
    }
    let tombstone = NewRecord::default().with_key(b"gone").with_value(None);
    let records = [
        tombstone,
        NewRecord::new(b"old").with_value(&vec),
        NewRecord::default().with_value(Some(slice)),
    ];
    let mut buf = [0u8; 256];
    let n = BatchBuilder::new().write(&records, &mut buf).unwrap();
    let batch = RecordBatch::parse(&buf[..n]).unwrap();
    let read: Vec<_> = batch
        .records()
        .unwrap()
        .map(|r| r.map(|r| (r.key(), r.value())))
        .collect::<Result<_, _>>()
        .unwrap();
    assert_eq!(
        read,
        [
            (Some(&b"gone"[..]), None),
            (None, Some(&vec[..])),
            (None, Some(slice)),
        ]
    );
}
