//! Legacy message sets (magic 0 and 1): the worked examples, the builder, wrapper offset and
//! timestamp rules, round trips, truncation and CRC damage.

use kwire::codec::VersionRange;
use kwire::records::{
    Batch, Compression, InnerSet, LegacyBuilder, LegacyMagic, LegacyMessage, LegacyRecord,
    LegacyRecords, NewHeader, NewRecord, Records, TimestampType,
};
use kwire::{DecodeErrorKind, EncodeError};
use proptest::prelude::*;

/// The v1 entry of the protocol notes: offset 0, null key, value "hi", CreateTime TS.
const LEGACY_V1_36: &str = "
    0000000000000000 00000018 dba4e6e2 01 00 0000018bcfe56800 ffffffff 00000002 6869";

/// The same content in magic 0 (no timestamp); CRC computed independently.
const LEGACY_V0_28: &str = "
    0000000000000000 00000010 fd6ebddb 00 00 ffffffff 00000002 6869";

const TS: i64 = 1_700_000_000_000;

fn hex(s: &str) -> Vec<u8> {
    let s: String = s.chars().filter(|c| !c.is_whitespace()).collect();
    (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap())
        .collect()
}

/// Bit-at-a-time CRC-32 (IEEE, reflected polynomial 0xEDB88320), independent of the crate's.
fn crc32_bitwise(bytes: &[u8]) -> u32 {
    let mut crc = !0u32;
    for &b in bytes {
        crc ^= u32::from(b);
        for _ in 0..8 {
            crc = if crc & 1 != 0 {
                (crc >> 1) ^ 0xedb8_8320
            } else {
                crc >> 1
            };
        }
    }
    !crc
}

fn builder(magic: LegacyMagic) -> LegacyBuilder {
    LegacyBuilder::new(magic)
}

fn write_set(b: LegacyBuilder, records: &[NewRecord<'_>]) -> Vec<u8> {
    let n = b.encoded_len(records).unwrap();
    let mut out = vec![0u8; n];
    assert_eq!(b.write(records, &mut out).unwrap(), n);
    out
}

/// An uncompressed inner set wrapped with a codec attribute but not actually compressed: the
/// reading API takes the decompressed bytes, so the test passes the inner set itself.
fn fake_wrapper(b: LegacyBuilder, records: &[NewRecord<'_>]) -> (Vec<u8>, Vec<u8>, InnerSet) {
    let mut inner = vec![0u8; b.encoded_len(records).unwrap()];
    let set = b.write_inner(records, &mut inner).unwrap();
    assert_eq!(set.len, inner.len());
    let (wrapper, _) = wrap(b, &set, &inner);
    (wrapper, inner, set)
}

fn wrap(b: LegacyBuilder, set: &InnerSet, inner: &[u8]) -> (Vec<u8>, usize) {
    let n = b.wrapper_len(inner.len()).unwrap();
    let mut out = vec![0u8; n];
    assert_eq!(
        b.write_wrapper(Compression::GZIP, set, inner, &mut out)
            .unwrap(),
        n
    );
    (out, n)
}

#[test]
fn crc_reference_matches() {
    assert_eq!(crc32_bitwise(b"123456789"), 0xcbf4_3926);
    let v1 = hex(LEGACY_V1_36);
    assert_eq!(crc32_bitwise(&v1[16..]), 0xdba4_e6e2);
    let v0 = hex(LEGACY_V0_28);
    assert_eq!(crc32_bitwise(&v0[16..]), 0xfd6e_bddb);
}

#[test]
fn worked_v1_entry_decodes_field_by_field() {
    let bytes = hex(LEGACY_V1_36);
    assert_eq!(bytes.len(), 36);
    let m = LegacyMessage::parse(&bytes).unwrap();
    assert_eq!(m.as_bytes(), &bytes[..]);
    assert_eq!(m.position(), 0);
    assert_eq!(m.offset(), 0);
    assert_eq!(m.message_size(), 24);
    assert_eq!(m.crc(), 0xdba4_e6e2);
    assert_eq!(m.compute_crc(), 0xdba4_e6e2);
    m.verify_crc().unwrap();
    assert_eq!(m.magic(), 1);
    assert_eq!(m.attributes(), 0);
    assert_eq!(m.compression(), Compression::NONE);
    assert!(!m.is_wrapper());
    assert_eq!(m.timestamp_type(), TimestampType::CreateTime);
    assert_eq!(m.timestamp(), Some(TS));
    assert_eq!(m.key(), None);
    assert_eq!(m.value(), Some(&b"hi"[..]));
    let r = m.record().unwrap();
    assert_eq!(r.offset(), 0);
    assert_eq!(r.timestamp(), Some(TS));
    assert_eq!(r.magic(), 1);
    assert_eq!(r.message(), m);
}

#[test]
fn builder_reproduces_the_worked_v1_entry() {
    let records = [NewRecord::new(b"hi").with_timestamp(TS)];
    let b = builder(LegacyMagic::V1);
    assert_eq!(b.encoded_len(&records).unwrap(), 36);
    assert_eq!(write_set(b, &records), hex(LEGACY_V1_36));
    // From a cloneable iterator too.
    let mut out = [0u8; 36];
    let it = (0..1).map(|_| NewRecord::new(b"hi").with_timestamp(TS));
    assert_eq!(b.write(it, &mut out).unwrap(), 36);
    assert_eq!(out.to_vec(), hex(LEGACY_V1_36));
}

#[test]
fn worked_v0_entry_both_ways() {
    let bytes = hex(LEGACY_V0_28);
    let m = LegacyMessage::parse(&bytes).unwrap();
    assert_eq!(m.magic(), 0);
    assert_eq!(m.message_size(), 16);
    assert_eq!(m.crc(), 0xfd6e_bddb);
    m.verify_crc().unwrap();
    assert_eq!(m.timestamp(), None);
    assert_eq!(m.timestamp_type(), TimestampType::CreateTime);
    assert_eq!(m.key(), None);
    assert_eq!(m.value(), Some(&b"hi"[..]));
    // The v0 builder drops the timestamp.
    let records = [NewRecord::new(b"hi").with_timestamp(TS)];
    assert_eq!(write_set(builder(LegacyMagic::V0), &records), bytes);
    // Minimum sizes.
    let empty = [NewRecord {
        key: None,
        value: None,
        headers: &[],
        timestamp: -1,
    }];
    let v0 = write_set(builder(LegacyMagic::V0), &empty);
    let v1 = write_set(builder(LegacyMagic::V1), &empty);
    assert_eq!(LegacyMessage::parse(&v0).unwrap().message_size(), 14);
    assert_eq!(LegacyMessage::parse(&v1).unwrap().message_size(), 22);
    assert_eq!(LegacyMagic::V0.min_message_size(), 14);
    assert_eq!(LegacyMagic::V1.min_message_size(), 22);
}

#[test]
fn builder_errors_write_nothing() {
    let records = [NewRecord::new(b"hi").with_timestamp(TS)];
    let mut out = [0xeeu8; 35];
    let e = builder(LegacyMagic::V1)
        .write(&records, &mut out)
        .unwrap_err();
    assert_eq!(
        e,
        EncodeError::BufferTooSmall {
            required: 36,
            available: 35
        }
    );
    assert!(out.iter().all(|&b| b == 0xee));
    let e = builder(LegacyMagic::V1)
        .write_inner(&records, &mut out)
        .unwrap_err();
    assert!(matches!(e, EncodeError::BufferTooSmall { .. }));
    assert!(out.iter().all(|&b| b == 0xee));

    let h = [NewHeader::new(b"k", b"v")];
    let with_headers = [NewRecord::new(b"x").with_headers(&h)];
    for (magic, version) in [(LegacyMagic::V0, 0), (LegacyMagic::V1, 1)] {
        let e = builder(magic).write(&with_headers, &mut out).unwrap_err();
        assert_eq!(
            e,
            EncodeError::FieldNotInVersion {
                path: "NewRecord.headers",
                version,
                versions: VersionRange::from(2),
                ignorable: false,
            }
        );
        assert!(out.iter().all(|&b| b == 0xee));
    }

    let set = builder(LegacyMagic::V1).inner_set(&records).unwrap();
    let mut big = [0xeeu8; 128];
    for codec in [Compression::NONE, Compression::ZSTD, Compression(7)] {
        let e = builder(LegacyMagic::V1)
            .write_wrapper(codec, &set, b"x", &mut big)
            .unwrap_err();
        assert!(matches!(e, EncodeError::FieldNotInVersion { .. }), "{e}");
    }
    let need = builder(LegacyMagic::V1).wrapper_len(40).unwrap();
    assert_eq!(need, 34 + 40);
    let e = builder(LegacyMagic::V1)
        .write_wrapper(Compression::LZ4, &set, &[0; 40], &mut big[..need - 1])
        .unwrap_err();
    assert_eq!(
        e,
        EncodeError::BufferTooSmall {
            required: need,
            available: need - 1
        }
    );
    assert!(big.iter().all(|&b| b == 0xee));
}

fn three() -> [NewRecord<'static>; 3] {
    [
        NewRecord::new(b"a").with_key(b"k1").with_timestamp(10),
        NewRecord::new(b"bb").with_timestamp(30),
        NewRecord {
            key: Some(b"k3"),
            value: None,
            headers: &[],
            timestamp: 20,
        },
    ]
}

fn collect_inner(wrapper: &[u8], inner: &[u8]) -> Vec<(i64, i64, Option<i64>)> {
    let w = LegacyMessage::parse(wrapper).unwrap();
    w.inner(inner)
        .unwrap()
        .map(|r| {
            let r = r.unwrap();
            (r.message().offset(), r.offset(), r.timestamp())
        })
        .collect()
}

#[test]
fn v0_wrapper_inner_offsets_are_absolute() {
    let b = builder(LegacyMagic::V0).with_base_offset(500);
    let (wrapper, inner, set) = fake_wrapper(b, &three());
    assert_eq!(set.count, 3);
    assert_eq!(set.last_offset, 502);
    let w = LegacyMessage::parse(&wrapper).unwrap();
    w.verify_crc().unwrap();
    assert!(w.is_wrapper());
    assert_eq!(w.compression(), Compression::GZIP);
    assert_eq!(w.offset(), 502);
    assert_eq!(w.key(), None);
    assert_eq!(w.value(), Some(&inner[..]));
    assert_eq!(
        collect_inner(&wrapper, &inner),
        [(500, 500, None), (501, 501, None), (502, 502, None)]
    );
    let it = w.inner(&inner).unwrap();
    assert_eq!(it.remaining(), 3);
    assert_eq!(it.last_offset(), 502);
    let recs: Vec<LegacyRecord<'_>> = it.map(Result::unwrap).collect();
    assert_eq!(recs[0].key(), Some(&b"k1"[..]));
    assert_eq!(recs[2].value(), None);
    assert_eq!(recs[1].position(), 29);
    for r in &recs {
        r.verify_crc().unwrap();
    }
    // A wrapper is not a record by itself.
    let e = w.record().unwrap_err();
    assert_eq!(e.kind, DecodeErrorKind::Compressed(1));
    assert_eq!(e.offset, 17);
}

#[test]
fn v1_wrapper_inner_offsets_are_relative() {
    let b = builder(LegacyMagic::V1).with_base_offset(1000);
    let (wrapper, inner, set) = fake_wrapper(b, &three());
    assert_eq!(set.last_offset, 1002);
    assert_eq!(set.max_timestamp, 30);
    let w = LegacyMessage::parse(&wrapper).unwrap();
    w.verify_crc().unwrap();
    assert_eq!(w.offset(), 1002);
    assert_eq!(w.timestamp(), Some(30));
    assert_eq!(w.timestamp_type(), TimestampType::CreateTime);
    assert_eq!(
        collect_inner(&wrapper, &inner),
        [
            (0, 1000, Some(10)),
            (1, 1001, Some(30)),
            (2, 1002, Some(20))
        ]
    );
}

#[test]
fn v1_wrapper_offset_zero_is_tolerated() {
    let b = builder(LegacyMagic::V1).with_base_offset(1000);
    let mut inner = vec![0u8; b.encoded_len(three()).unwrap()];
    let set = b.write_inner(three(), &mut inner).unwrap();
    let zero = InnerSet {
        last_offset: 0,
        ..set
    };
    let (wrapper, _) = wrap(b, &zero, &inner);
    assert_eq!(
        collect_inner(&wrapper, &inner),
        [(0, 0, Some(10)), (1, 1, Some(30)), (2, 2, Some(20))]
    );
    // A nonzero wrapper offset below the last relative offset is refused.
    let low = InnerSet {
        last_offset: 1,
        ..set
    };
    let (wrapper, _) = wrap(b, &low, &inner);
    let e = LegacyMessage::parse(&wrapper)
        .unwrap()
        .inner(&inner)
        .unwrap_err();
    assert_eq!(e.kind, DecodeErrorKind::Malformed);
    assert_eq!(e.path, "LegacyMessage.offset");
    // Exactly the last relative offset: base 0.
    let exact = InnerSet {
        last_offset: 2,
        ..set
    };
    let (wrapper, _) = wrap(b, &exact, &inner);
    let offsets: Vec<_> = collect_inner(&wrapper, &inner)
        .iter()
        .map(|t| t.1)
        .collect();
    assert_eq!(offsets, [0, 1, 2]);
}

#[test]
fn log_append_time_overrides_inner_timestamps() {
    let b = builder(LegacyMagic::V1).with_timestamp_type(TimestampType::LogAppendTime);
    let mut inner = vec![0u8; b.encoded_len(three()).unwrap()];
    let set = b.write_inner(three(), &mut inner).unwrap();
    let appended = InnerSet {
        max_timestamp: TS,
        ..set
    };
    let (wrapper, _) = wrap(b, &appended, &inner);
    let w = LegacyMessage::parse(&wrapper).unwrap();
    assert_eq!(w.attributes(), 0x09);
    assert_eq!(w.timestamp_type(), TimestampType::LogAppendTime);
    assert_eq!(w.timestamp(), Some(TS));
    for r in w.inner(&inner).unwrap() {
        let r = r.unwrap();
        assert_eq!(r.timestamp(), Some(TS));
        assert_eq!(r.timestamp_type(), TimestampType::LogAppendTime);
        // The stored timestamp is untouched.
        assert_ne!(r.message().timestamp(), Some(TS));
    }
    // The v0 builder ignores the timestamp type.
    let v0 = builder(LegacyMagic::V0).with_timestamp_type(TimestampType::LogAppendTime);
    assert_eq!(v0.attributes(Compression::SNAPPY), 2);
    let m = write_set(v0, &three());
    assert_eq!(LegacyMessage::parse(&m).unwrap().attributes(), 0);
}

#[test]
fn inner_damage_is_typed() {
    let v1 = builder(LegacyMagic::V1);
    let (wrapper, inner, _) = fake_wrapper(v1, &three());
    let w = LegacyMessage::parse(&wrapper).unwrap();

    // Empty decompressed payload.
    let e = w.inner(&[]).unwrap_err();
    assert_eq!(
        (e.kind, e.path),
        (DecodeErrorKind::Malformed, "LegacyMessage.inner")
    );

    // A cut-short inner set: the scan reports it.
    for cut in 1..inner.len() {
        if [37, 73].contains(&cut) {
            continue; // entry boundaries
        }
        let e = w.inner(&inner[..cut]).unwrap_err();
        assert!(
            matches!(e.kind, DecodeErrorKind::Truncated { .. }),
            "cut {cut}: {e}"
        );
    }

    // Trailing garbage too small to be an entry.
    let mut bad = inner.clone();
    bad.extend_from_slice(&[0; 12]);
    let e = w.inner(&bad).unwrap_err();
    assert_eq!(e.kind, DecodeErrorKind::EntryTooSmall { size: 0, min: 14 });
    assert_eq!(e.offset, inner.len() + 8);

    // Inner magic differs from the wrapper's.
    let v0_inner = write_set(builder(LegacyMagic::V0), &three());
    let items: Vec<_> = w.inner(&v0_inner).unwrap().collect();
    assert_eq!(items.len(), 1);
    let e = items[0].unwrap_err();
    assert_eq!(e.kind, DecodeErrorKind::UnknownMagic(0));
    assert_eq!((e.offset, e.path), (16, "LegacyMessage.inner.magic"));

    // A compressed inner message.
    let (nested, _, _) = fake_wrapper(v1, &three()[..1]);
    let mut set = inner.clone();
    set.extend_from_slice(&nested);
    let items: Vec<_> = w.inner(&set).unwrap().collect();
    assert_eq!(items.len(), 4);
    assert!(items[..3].iter().all(Result::is_ok));
    let e = items[3].unwrap_err();
    assert_eq!(e.kind, DecodeErrorKind::Compressed(1));
    assert_eq!(
        (e.offset, e.path),
        (inner.len() + 17, "LegacyMessage.inner.attributes")
    );

    // A key length of -2 inside the set.
    let mut bad = inner.clone();
    bad[26..30].copy_from_slice(&(-2i32).to_be_bytes());
    let items: Vec<_> = w.inner(&bad).unwrap().collect();
    assert_eq!(items.len(), 1);
    let e = items[0].unwrap_err();
    assert_eq!(
        (e.kind, e.offset),
        (DecodeErrorKind::NegativeLength(-2), 26)
    );

    // Not a wrapper; a wrapper with a null value; a codec magic 0/1 does not allow.
    let plain = hex(LEGACY_V1_36);
    let e = LegacyMessage::parse(&plain)
        .unwrap()
        .inner(&inner)
        .unwrap_err();
    assert_eq!((e.kind, e.offset), (DecodeErrorKind::Malformed, 17));
    let null_value = [NewRecord {
        key: Some(b"kk"),
        value: None,
        headers: &[],
        timestamp: 0,
    }];
    let mut m = write_set(v1, &null_value);
    m[17] = 2;
    let e = LegacyMessage::parse(&m).unwrap().inner(&inner).unwrap_err();
    assert_eq!(
        (e.kind, e.path),
        (DecodeErrorKind::Malformed, "LegacyMessage.value")
    );
    assert_eq!(e.offset, 18 + 8 + 4 + 2);
    let mut zstd = wrapper.clone();
    zstd[17] = 4;
    let e = LegacyMessage::parse(&zstd)
        .unwrap()
        .inner(&inner)
        .unwrap_err();
    assert_eq!(
        (e.kind, e.path),
        (DecodeErrorKind::Malformed, "LegacyMessage.attributes")
    );
}

#[test]
fn legacy_records_walks_a_message_set() {
    let recs = three();
    let set = write_set(builder(LegacyMagic::V1).with_base_offset(7), &recs);
    let got: Vec<_> = LegacyRecords::with_offset(&set, 100)
        .collect::<Result<_, _>>()
        .unwrap();
    assert_eq!(got.len(), 3);
    for (i, (r, want)) in got.iter().zip(&recs).enumerate() {
        assert_eq!(r.offset(), 7 + i as i64);
        assert_eq!(r.key(), want.key);
        assert_eq!(r.value(), want.value);
        assert_eq!(r.timestamp(), Some(want.timestamp));
        r.verify_crc().unwrap();
    }
    assert_eq!(got[1].position(), 100 + 37);
    // From a Records value, and Records::batches sees the same entries.
    let n = LegacyRecords::from(Records::new(&set)).count();
    assert_eq!(n, 3);
    let batches: Vec<_> = Records::new(&set)
        .batches()
        .collect::<Result<_, _>>()
        .unwrap();
    assert!(batches.iter().all(|b| matches!(b, Batch::Legacy(_))));

    // A truncated tail ends quietly.
    let mut it = LegacyRecords::new(&set[..set.len() - 1]);
    assert_eq!(it.by_ref().filter(Result::is_ok).count(), 2);
    assert_eq!(it.remainder().len(), 35);

    // A wrapper stops the walk with `Compressed`.
    let (wrapper, _, _) = fake_wrapper(builder(LegacyMagic::V1), &recs);
    let mut mixed = set.clone();
    mixed.extend_from_slice(&wrapper);
    mixed.extend_from_slice(&set);
    let items: Vec<_> = LegacyRecords::new(&mixed).collect();
    assert_eq!(items.len(), 4);
    let e = items[3].unwrap_err();
    assert_eq!(
        (e.kind, e.offset),
        (DecodeErrorKind::Compressed(1), set.len() + 17)
    );

    // A v2 batch is not a legacy message.
    let mut v2 = vec![0u8; 128];
    let n = kwire::records::BatchBuilder::new()
        .write(&recs, &mut v2)
        .unwrap();
    let items: Vec<_> = LegacyRecords::new(&v2[..n]).collect();
    assert_eq!(items.len(), 1);
    assert_eq!(items[0].unwrap_err().kind, DecodeErrorKind::UnknownMagic(2));
}

#[test]
fn every_proper_prefix_is_truncated() {
    let (wrapper, _, _) = fake_wrapper(builder(LegacyMagic::V0), &three());
    for entry in [hex(LEGACY_V1_36), hex(LEGACY_V0_28), wrapper] {
        LegacyMessage::parse(&entry).unwrap();
        for cut in 0..entry.len() {
            let e = LegacyMessage::parse(&entry[..cut]).unwrap_err();
            assert!(
                matches!(e.kind, DecodeErrorKind::Truncated { .. }),
                "cut {cut}: {e}"
            );
            // Only part of the first entry: no record can be read, and the walk says so.
            let mut batches = Records::new(&entry[..cut]).batches();
            let mut legacy = LegacyRecords::new(&entry[..cut]);
            if cut == 0 {
                assert!(batches.next().is_none());
                assert!(legacy.next().is_none());
                continue;
            }
            let e = batches.next().unwrap().unwrap_err();
            assert!(
                matches!(e.kind, DecodeErrorKind::IncompleteFirstBatch { available, .. } if available == cut),
                "cut {cut}: {e}"
            );
            assert!(batches.next().is_none(), "cut {cut}");
            assert_eq!(batches.remainder().len(), cut);
            assert!(legacy.next().unwrap().is_err());
            assert!(legacy.next().is_none());
        }
    }
}

#[test]
fn every_crc_covered_bit_flip_is_detected() {
    let (wrapper, _, _) = fake_wrapper(builder(LegacyMagic::V1), &three());
    for good in [hex(LEGACY_V1_36), hex(LEGACY_V0_28), wrapper] {
        let mut verified = 0;
        for i in 16..good.len() {
            for bit in 0..8 {
                let mut bad = good.clone();
                bad[i] ^= 1 << bit;
                // A flip may break the structure (a length or the magic): parsing then fails,
                // and the checksum would disagree all the same.
                let Ok(m) = LegacyMessage::parse(&bad) else {
                    let stored = u32::from_be_bytes(bad[12..16].try_into().unwrap());
                    assert_ne!(kwire::records::crc::crc32(&bad[16..]), stored);
                    continue;
                };
                let e = m.verify_crc().unwrap_err();
                assert_eq!(e.offset, 12);
                assert!(matches!(e.kind, DecodeErrorKind::CrcMismatch { .. }));
                verified += 1;
            }
        }
        assert!(verified >= 24, "{verified}");
        // Flipping the stored CRC is caught as well; the offset field is outside the CRC.
        for i in 12..16 {
            let mut bad = good.clone();
            bad[i] ^= 0x10;
            assert!(LegacyMessage::parse(&bad).unwrap().verify_crc().is_err());
        }
        let mut offset = good.clone();
        offset[7] ^= 1;
        LegacyMessage::parse(&offset).unwrap().verify_crc().unwrap();
    }
}

#[derive(Debug, Clone)]
struct Rec {
    key: Option<Vec<u8>>,
    value: Option<Vec<u8>>,
    timestamp: i64,
}

fn rec() -> impl Strategy<Value = Rec> {
    let bytes = || proptest::option::of(proptest::collection::vec(any::<u8>(), 0..40));
    let ts = prop_oneof![
        Just(i64::MIN),
        Just(i64::MAX),
        Just(-1i64),
        Just(0i64),
        any::<i64>()
    ];
    (bytes(), bytes(), ts).prop_map(|(key, value, timestamp)| Rec {
        key,
        value,
        timestamp,
    })
}

fn new_records(recs: &[Rec]) -> Vec<NewRecord<'_>> {
    recs.iter()
        .map(|r| NewRecord {
            key: r.key.as_deref(),
            value: r.value.as_deref(),
            headers: &[],
            timestamp: r.timestamp,
        })
        .collect()
}

fn magic_strategy() -> impl Strategy<Value = LegacyMagic> {
    prop_oneof![Just(LegacyMagic::V0), Just(LegacyMagic::V1)]
}

fn check(got: &LegacyRecord<'_>, want: &Rec, magic: LegacyMagic, offset: i64) {
    assert_eq!(got.offset(), offset);
    assert_eq!(got.key(), want.key.as_deref());
    assert_eq!(got.value(), want.value.as_deref());
    assert_eq!(got.magic(), magic.magic());
    let ts = match magic {
        LegacyMagic::V0 => None,
        LegacyMagic::V1 => Some(want.timestamp),
    };
    assert_eq!(got.timestamp(), ts);
    got.verify_crc().unwrap();
}

proptest! {
    #[test]
    fn plain_sets_round_trip(
        recs in proptest::collection::vec(rec(), 0..24),
        magic in magic_strategy(),
        base in prop_oneof![Just(0i64), 0i64..1 << 40],
    ) {
        let b = builder(magic).with_base_offset(base);
        let records = new_records(&recs);
        let out = write_set(b, &records);
        let got: Vec<_> = LegacyRecords::new(&out).collect::<Result<_, _>>().unwrap();
        prop_assert_eq!(got.len(), recs.len());
        for (i, (g, want)) in got.iter().zip(&recs).enumerate() {
            check(g, want, magic, base + i as i64);
        }
        let n = Records::new(&out).batches().map(|b| b.unwrap().verify_crc().unwrap()).count();
        prop_assert_eq!(n, recs.len());
        // A buffer one byte short is refused.
        if !out.is_empty() {
            let mut short = vec![0u8; out.len() - 1];
            let is_too_small = matches!(
                b.write(&records, &mut short),
                Err(EncodeError::BufferTooSmall { .. })
            );
            prop_assert!(is_too_small);
        }
    }

    #[test]
    fn wrapped_sets_round_trip(
        recs in proptest::collection::vec(rec(), 1..24),
        magic in magic_strategy(),
        base in prop_oneof![Just(0i64), 1i64..1 << 40],
    ) {
        let b = builder(magic).with_base_offset(base);
        let records = new_records(&recs);
        let (wrapper, inner, set) = fake_wrapper(b, &records);
        prop_assert_eq!(set.count, recs.len());
        let w = LegacyMessage::parse(&wrapper).unwrap();
        w.verify_crc().unwrap();
        let last = base + recs.len() as i64 - 1;
        prop_assert_eq!(w.offset(), last);
        if magic == LegacyMagic::V1 {
            let max = recs.iter().map(|r| r.timestamp).max().unwrap();
            prop_assert_eq!(w.timestamp(), Some(max));
        }
        let it = w.inner(&inner).unwrap();
        prop_assert_eq!(it.last_offset(), if magic == LegacyMagic::V1 && last == 0 { 0 } else { last });
        let got: Vec<_> = it.collect::<Result<_, _>>().unwrap();
        prop_assert_eq!(got.len(), recs.len());
        for (i, (g, want)) in got.iter().zip(&recs).enumerate() {
            check(g, want, magic, base + i as i64);
            let stored = match magic {
                LegacyMagic::V0 => base + i as i64,
                LegacyMagic::V1 => i as i64,
            };
            prop_assert_eq!(g.message().offset(), stored);
        }
    }
}
