//! Compressed record batches: batches compressed by `kafka-protocol` read with ours, ours read
//! by `kafka-protocol` and by ours, for every codec; the framing details of each codec; and the
//! retry protocol of a too-small buffer.

#![cfg(all(
    feature = "gzip",
    feature = "snappy",
    feature = "lz4",
    feature = "zstd"
))]

use bytes::{Bytes, BytesMut};
use kafka_protocol::protocol::StrBytes;
use kafka_protocol::records as kp;
use kwire::records::compression::{BuiltinCodecs, CompressionError, Compressor, Decompressor};
use kwire::records::{BatchBuilder, Compression, NewHeader, NewRecord, Record, RecordBatch};

const CODECS: [Compression; 4] = [
    Compression::GZIP,
    Compression::SNAPPY,
    Compression::LZ4,
    Compression::ZSTD,
];
const TS: i64 = 1_700_000_000_000;
const PRODUCER_ID: i64 = 4242;
const PRODUCER_EPOCH: i16 = 3;
const BASE_SEQUENCE: i32 = 17;
const LEADER_EPOCH: i32 = 9;

fn kp_codec(codec: Compression) -> kp::Compression {
    match codec {
        Compression::GZIP => kp::Compression::Gzip,
        Compression::SNAPPY => kp::Compression::Snappy,
        Compression::LZ4 => kp::Compression::Lz4,
        Compression::ZSTD => kp::Compression::Zstd,
        _ => kp::Compression::None,
    }
}

/// Text that compresses, but not to nothing.
fn text(seed: usize, len: usize) -> Vec<u8> {
    let words = [
        "kafka", "record", "batch", "offset", "leader", "epoch", "topic", "zstd", "snappy",
    ];
    let mut out = Vec::with_capacity(len + 16);
    let mut i = seed;
    while out.len() < len {
        out.extend_from_slice(words[i % words.len()].as_bytes());
        out.push(b' ');
        i = i.wrapping_mul(7).wrapping_add(3);
    }
    out.truncate(len);
    out
}

/// The content of one record, independent of either library.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Expected {
    offset: i64,
    timestamp: i64,
    sequence: i32,
    key: Option<Vec<u8>>,
    value: Option<Vec<u8>>,
    headers: Vec<(Vec<u8>, Option<Vec<u8>>)>,
}

/// Records with null and empty keys and values, headers with null values, timestamps out of
/// order, and values large enough for several snappy (32 KiB) and lz4 (64 KiB) blocks.
fn expected_records() -> Vec<Expected> {
    let sizes = [0usize, 1, 10, 300, 70_000, 5, 150_000, 2];
    sizes
        .iter()
        .enumerate()
        .map(|(i, &size)| {
            let i64i = i64::try_from(i).unwrap();
            let headers = match i % 3 {
                0 => vec![],
                1 => vec![(b"trace".to_vec(), Some(text(i, 12)))],
                _ => vec![
                    (b"a".to_vec(), None),
                    (b"b".to_vec(), Some(Vec::new())),
                    (b"c".to_vec(), Some(text(i + 1, 40))),
                ],
            };
            Expected {
                offset: i64i,
                timestamp: TS + if i % 2 == 0 { i64i * 10 } else { -i64i },
                sequence: BASE_SEQUENCE + i32::try_from(i).unwrap(),
                key: match i % 4 {
                    0 => None,
                    1 => Some(Vec::new()),
                    _ => Some(format!("key-{i}").into_bytes()),
                },
                value: if i == 5 { None } else { Some(text(i, size)) },
                headers,
            }
        })
        .collect()
}

fn to_kp(e: &Expected) -> kp::Record {
    kp::Record {
        transactional: false,
        control: false,
        delete_horizon: false,
        partition_leader_epoch: LEADER_EPOCH,
        producer_id: PRODUCER_ID,
        producer_epoch: PRODUCER_EPOCH,
        timestamp_type: kp::TimestampType::Creation,
        offset: e.offset,
        sequence: e.sequence,
        timestamp: e.timestamp,
        key: e.key.clone().map(Bytes::from),
        value: e.value.clone().map(Bytes::from),
        headers: e
            .headers
            .iter()
            .map(|(k, v)| {
                (
                    StrBytes::from_utf8(Bytes::from(k.clone())).unwrap(),
                    v.clone().map(Bytes::from),
                )
            })
            .collect(),
    }
}

fn from_kp(r: &kp::Record) -> Expected {
    Expected {
        offset: r.offset,
        timestamp: r.timestamp,
        sequence: r.sequence,
        key: r.key.as_ref().map(|b| b.to_vec()),
        value: r.value.as_ref().map(|b| b.to_vec()),
        headers: r
            .headers
            .iter()
            .map(|(k, v)| (k.as_bytes().to_vec(), v.as_ref().map(|b| b.to_vec())))
            .collect(),
    }
}

fn from_ours(r: &Record<'_>) -> Expected {
    Expected {
        offset: r.offset(),
        timestamp: r.timestamp(),
        sequence: r.sequence().expect("a producer sequence"),
        key: r.key().map(<[u8]>::to_vec),
        value: r.value().map(<[u8]>::to_vec),
        headers: r
            .headers()
            .iter()
            .map(|h| (h.key().to_vec(), h.value().map(<[u8]>::to_vec)))
            .collect(),
    }
}

fn kp_encode(records: &[kp::Record], codec: Compression) -> Bytes {
    let mut buf = BytesMut::new();
    kp::RecordBatchEncoder::encode(
        &mut buf,
        records,
        &kp::RecordEncodeOptions {
            version: 2,
            compression: kp_codec(codec),
        },
    )
    .expect("kafka-protocol encodes");
    buf.freeze()
}

/// Reads a compressed batch with ours, growing the buffer on `OutputTooSmall`.
fn read_ours(bytes: &[u8], codec: Compression) -> Vec<Expected> {
    let batch = RecordBatch::parse(bytes).unwrap();
    assert_eq!(batch.len(), bytes.len());
    batch.verify_crc().unwrap();
    assert_eq!(batch.compression(), codec);
    let mut buf = vec![0u8; 16];
    let mut retries = 0;
    loop {
        match batch.decompress_into(&mut BuiltinCodecs::new(), &mut buf) {
            Ok(records) => {
                let out: Vec<Expected> = records.map(|r| from_ours(&r.unwrap())).collect();
                assert!(retries > 0, "a 16-byte buffer should have been too small");
                return out;
            }
            Err(err) => {
                let len = err
                    .retry_len()
                    .unwrap_or_else(|| panic!("{codec:?}: {err}"));
                assert!(len > buf.len(), "{codec:?}: retry length must grow");
                buf = vec![0u8; len];
                retries += 1;
                assert!(retries < 40);
            }
        }
    }
}

fn new_records(expected: &[Expected]) -> (Vec<Vec<NewHeader<'_>>>, i64) {
    let headers = expected
        .iter()
        .map(|e| {
            e.headers
                .iter()
                .map(|(k, v)| NewHeader {
                    key: k,
                    value: v.as_deref(),
                })
                .collect()
        })
        .collect();
    (headers, expected[0].offset)
}

/// Writes the records with ours, compressed with `codec`.
fn write_ours(expected: &[Expected], codec: Compression) -> Vec<u8> {
    let (headers, base_offset) = new_records(expected);
    let records: Vec<NewRecord<'_>> = expected
        .iter()
        .zip(&headers)
        .map(|(e, h)| NewRecord {
            key: e.key.as_deref(),
            value: e.value.as_deref(),
            headers: h,
            timestamp: e.timestamp,
        })
        .collect();
    let builder = BatchBuilder::new()
        .with_base_offset(base_offset)
        .with_partition_leader_epoch(LEADER_EPOCH)
        .with_producer(PRODUCER_ID, PRODUCER_EPOCH, BASE_SEQUENCE);
    let mut codecs = BuiltinCodecs::new();
    let mut scratch = vec![0u8; builder.records_len(&records).unwrap()];
    // Too small a scratch buffer is an encode error.
    let short = scratch.len() - 1;
    let err = builder
        .write_compressed(
            &records,
            codec,
            &mut codecs,
            &mut scratch[..short],
            &mut [0u8; 4096],
        )
        .unwrap_err();
    assert!(matches!(err, CompressionError::Encode(_)), "{err:?}");
    // Too small an output buffer says how much is needed; that much suffices.
    let mut out = vec![0u8; 64];
    let err = builder
        .write_compressed(&records, codec, &mut codecs, &mut scratch, &mut out)
        .unwrap_err();
    let needed = err.needed().unwrap_or_else(|| panic!("{codec:?}: {err}"));
    assert!(needed > out.len(), "{codec:?}: {err}");
    if codec != Compression::ZSTD {
        // The bound, counted for the whole batch.
        let bound = codecs.max_compressed_len(codec, scratch.len()).unwrap();
        assert_eq!(needed, bound + 61, "{codec:?}");
    }
    out = vec![0u8; needed];
    let n = builder
        .write_compressed(&records, codec, &mut codecs, &mut scratch, &mut out)
        .unwrap();
    out.truncate(n);
    assert!(
        n < 61 + scratch.len(),
        "{codec:?} should shrink {} bytes of text, wrote {n}",
        scratch.len()
    );
    out
}

#[test]
fn kafka_protocol_batches_read_with_ours() {
    let expected = expected_records();
    let kp_records: Vec<kp::Record> = expected.iter().map(to_kp).collect();
    for codec in CODECS {
        let bytes = kp_encode(&kp_records, codec);
        let batch = RecordBatch::parse(&bytes).unwrap();
        assert_eq!(batch.producer_id(), PRODUCER_ID);
        assert_eq!(batch.producer_epoch(), PRODUCER_EPOCH);
        assert_eq!(batch.base_sequence(), BASE_SEQUENCE);
        assert_eq!(batch.partition_leader_epoch(), LEADER_EPOCH);
        assert_eq!(batch.records_count(), 8);
        assert!(batch.records().is_err(), "records() of a compressed batch");
        assert_eq!(read_ours(&bytes, codec), expected, "{codec:?}");
    }
}

#[test]
fn our_batches_read_with_kafka_protocol_and_ours() {
    let expected = expected_records();
    for codec in CODECS {
        let bytes = write_ours(&expected, codec);
        assert_eq!(read_ours(&bytes, codec), expected, "{codec:?}");

        let mut buf = Bytes::from(bytes.clone());
        let set = kp::RecordBatchDecoder::decode(&mut buf)
            .unwrap_or_else(|e| panic!("{codec:?}: kafka-protocol rejects our batch: {e:#}"));
        assert_eq!(set.version, 2);
        assert_eq!(set.compression, kp_codec(codec));
        let theirs: Vec<Expected> = set.records.iter().map(from_kp).collect();
        assert_eq!(theirs, expected, "{codec:?}");
        for r in &set.records {
            assert_eq!(r.producer_id, PRODUCER_ID);
            assert_eq!(r.producer_epoch, PRODUCER_EPOCH);
            assert_eq!(r.partition_leader_epoch, LEADER_EPOCH);
            assert!(!r.transactional && !r.control);
        }
    }
}

#[test]
fn a_damaged_compressed_batch_fails_its_crc() {
    let expected = expected_records();
    for codec in CODECS {
        let mut bytes = write_ours(&expected, codec);
        let last = bytes.len() - 1;
        bytes[last] ^= 0x55;
        let batch = RecordBatch::parse(&bytes).unwrap();
        assert!(batch.verify_crc().is_err(), "{codec:?}");
    }
}

#[test]
fn uncompressed_batches_pass_through() {
    let expected = expected_records();
    let (headers, _) = new_records(&expected[..3]);
    let records: Vec<NewRecord<'_>> = expected[..3]
        .iter()
        .zip(&headers)
        .map(|(e, h)| NewRecord {
            key: e.key.as_deref(),
            value: e.value.as_deref(),
            headers: h,
            timestamp: e.timestamp,
        })
        .collect();
    let builder = BatchBuilder::new().with_producer(PRODUCER_ID, PRODUCER_EPOCH, BASE_SEQUENCE);
    let mut out = vec![0u8; 1024];
    let n = builder
        .write_compressed(
            &records,
            Compression::NONE,
            &mut BuiltinCodecs::new(),
            &mut [],
            &mut out,
        )
        .unwrap();
    assert_eq!(n, builder.write(&records, &mut [0u8; 1024]).unwrap());
    let batch = RecordBatch::parse(&out[..n]).unwrap();
    // Read in place: the (empty) buffer is not needed.
    let read: Vec<Expected> = batch
        .decompress_into(&mut BuiltinCodecs::new(), &mut [])
        .unwrap()
        .map(|r| from_ours(&r.unwrap()))
        .collect();
    assert_eq!(read, expected[..3]);
}

/// Bytes → bytes, as a legacy wrapper message's value needs.
#[test]
fn raw_round_trips_for_every_codec() {
    let inputs = [Vec::new(), b"x".to_vec(), text(3, 1000), text(5, 300_000)];
    let mut codecs = BuiltinCodecs::new();
    for codec in CODECS {
        for input in &inputs {
            let bound = codecs.max_compressed_len(codec, input.len()).unwrap();
            let mut packed = vec![0u8; bound];
            let n = codecs.compress(codec, input, &mut packed).unwrap();
            assert!(n <= bound);
            let mut unpacked = vec![0u8; input.len()];
            let m = codecs
                .decompress(codec, &packed[..n], &mut unpacked)
                .unwrap();
            assert_eq!(
                &unpacked[..m],
                &input[..],
                "{codec:?}, {} bytes",
                input.len()
            );
            if !input.is_empty() {
                let err = codecs
                    .decompress(codec, &packed[..n], &mut unpacked[..input.len() - 1])
                    .unwrap_err();
                assert!(err.is_output_too_small(), "{codec:?}: {err}");
                // A stream cut short is damage, never a too-small buffer.
                let mut big = vec![0u8; input.len() + 100];
                let err = codecs
                    .decompress(codec, &packed[..n / 2], &mut big)
                    .unwrap_err();
                assert!(
                    matches!(err, CompressionError::Codec { .. }),
                    "{codec:?}: {err}"
                );
            }
        }
    }
}

#[test]
fn none_copies_and_other_codecs_are_refused() {
    let mut codecs = BuiltinCodecs::new();
    let mut out = [0u8; 4];
    assert_eq!(
        codecs.decompress(Compression::NONE, b"abc", &mut out),
        Ok(3)
    );
    assert_eq!(&out[..3], b"abc");
    assert_eq!(
        codecs.compress(Compression::NONE, b"abcde", &mut out),
        Err(CompressionError::OutputTooSmall {
            available: 4,
            needed: Some(5)
        })
    );
    for v in 5..=7 {
        assert_eq!(
            codecs.decompress(Compression(v), b"abc", &mut out),
            Err(CompressionError::UnknownCodec(Compression(v)))
        );
        assert!(!BuiltinCodecs::is_enabled(Compression(v)));
    }
    for codec in CODECS {
        assert!(BuiltinCodecs::is_enabled(codec));
    }
    let err = CompressionError::CodecNotEnabled(Compression::ZSTD);
    assert_eq!(err.to_string(), "compression codec zstd is not enabled");
}

fn xerial(blocks: &[&[u8]]) -> Vec<u8> {
    let mut out = b"\x82SNAPPY\0\0\0\0\x01\0\0\0\x01".to_vec();
    for block in blocks {
        let raw = snap::raw::Encoder::new().compress_vec(block).unwrap();
        out.extend_from_slice(&u32::try_from(raw.len()).unwrap().to_be_bytes());
        out.extend_from_slice(&raw);
    }
    out
}

#[test]
fn snappy_framing() {
    let mut codecs = BuiltinCodecs::new();
    let mut out = vec![0u8; 4096];
    // Raw snappy without the xerial header is read, as Java and kafka-protocol do.
    let raw = snap::raw::Encoder::new()
        .compress_vec(&text(1, 1000))
        .unwrap();
    let n = codecs
        .decompress(Compression::SNAPPY, &raw, &mut out)
        .unwrap();
    assert_eq!(out[..n], text(1, 1000));
    // Java's output for a short payload: header, then one block.
    let ours = {
        let mut buf = [0u8; 64];
        let n = codecs
            .compress(Compression::SNAPPY, b"hello", &mut buf)
            .unwrap();
        buf[..n].to_vec()
    };
    assert_eq!(ours, xerial(&[b"hello"]));
    // Two streams back to back read as one.
    let mut two = xerial(&[b"abc", b"def"]);
    two.extend_from_slice(&xerial(&[b"ghi"]));
    let n = codecs
        .decompress(Compression::SNAPPY, &two, &mut out)
        .unwrap();
    assert_eq!(&out[..n], b"abcdefghi");
    // The exact length is known up front.
    let err = codecs
        .decompress(Compression::SNAPPY, &two, &mut out[..5])
        .unwrap_err();
    assert_eq!(err.needed(), Some(9));
    // Empty and truncated streams are damage.
    assert!(
        codecs
            .decompress(Compression::SNAPPY, &[], &mut out)
            .is_err()
    );
    let cut = &two[..two.len() - 2];
    assert!(matches!(
        codecs.decompress(Compression::SNAPPY, cut, &mut out),
        Err(CompressionError::Codec { .. })
    ));
}

fn gzip(data: &[u8]) -> Vec<u8> {
    let mut codecs = BuiltinCodecs::new();
    let mut buf = vec![
        0u8;
        codecs
            .max_compressed_len(Compression::GZIP, data.len())
            .unwrap()
    ];
    let n = codecs.compress(Compression::GZIP, data, &mut buf).unwrap();
    buf.truncate(n);
    buf
}

#[test]
fn gzip_framing() {
    let mut codecs = BuiltinCodecs::new();
    let mut out = vec![0u8; 4096];
    // Concatenated members read as one stream; bytes after the last member that are not a
    // member are ignored, as Java's GZIPInputStream does.
    let mut two = gzip(b"first ");
    two.extend_from_slice(&gzip(b"second"));
    let n = codecs
        .decompress(Compression::GZIP, &two, &mut out)
        .unwrap();
    assert_eq!(&out[..n], b"first second");
    two.extend_from_slice(b"\0\0junk");
    let n = codecs
        .decompress(Compression::GZIP, &two, &mut out)
        .unwrap();
    assert_eq!(&out[..n], b"first second");
    // Optional header fields (name, comment, extra, header CRC) are skipped.
    let plain = gzip(b"payload");
    let mut fancy = vec![0x1f, 0x8b, 8, 0x1e, 0, 0, 0, 0, 0, 3];
    fancy.extend_from_slice(&[3, 0, b'x', b'y', b'z']);
    fancy.extend_from_slice(b"name.txt\0");
    fancy.extend_from_slice(b"a comment\0");
    fancy.extend_from_slice(&[0xab, 0xcd]);
    fancy[3] |= 0x02;
    fancy.extend_from_slice(&plain[10..]);
    let n = codecs
        .decompress(Compression::GZIP, &fancy, &mut out)
        .unwrap();
    assert_eq!(&out[..n], b"payload");
    // A wrong CRC-32 in the trailer is a checksum mismatch.
    let mut bad = gzip(b"payload");
    let at = bad.len() - 8;
    bad[at] ^= 1;
    assert!(matches!(
        codecs.decompress(Compression::GZIP, &bad, &mut out),
        Err(CompressionError::Checksum { .. })
    ));
    // Unless the checksums are not checked; the length in the trailer still is.
    let mut unchecked = BuiltinCodecs::new().verify_checksums(false);
    assert!(!unchecked.verifies_checksums() && codecs.verifies_checksums());
    let n = unchecked
        .decompress(Compression::GZIP, &bad, &mut out)
        .unwrap();
    assert_eq!(&out[..n], b"payload");
    let at = bad.len() - 4;
    bad[at] ^= 1;
    assert!(matches!(
        unchecked.decompress(Compression::GZIP, &bad, &mut out),
        Err(CompressionError::Codec { .. })
    ));
    assert!(
        codecs
            .decompress(Compression::GZIP, b"not gzip", &mut out)
            .is_err()
    );
}

fn xxh32(data: &[u8]) -> u32 {
    twox_hash::XxHash32::oneshot(0, data)
}

/// An LZ4 frame with the given FLG, the blocks as given (size word and data), and a header
/// checksum over the descriptor (or, for `legacy`, over the magic number too).
fn lz4_frame(flg: u8, blocks: &[(u32, &[u8])], content: &[u8], legacy: bool) -> Vec<u8> {
    let mut out = vec![0x04, 0x22, 0x4d, 0x18, flg, 0x40];
    let hc_over = if legacy { &out[..] } else { &out[4..] };
    let hc = xxh32(hc_over).to_le_bytes()[1];
    out.push(hc);
    for (size, data) in blocks {
        out.extend_from_slice(&size.to_le_bytes());
        out.extend_from_slice(data);
        if flg & 0x10 != 0 {
            out.extend_from_slice(&xxh32(data).to_le_bytes());
        }
    }
    out.extend_from_slice(&[0; 4]);
    if flg & 0x04 != 0 {
        out.extend_from_slice(&xxh32(content).to_le_bytes());
    }
    out
}

#[test]
fn lz4_framing() {
    let mut codecs = BuiltinCodecs::new();
    let mut out = vec![0u8; 4096];
    // Linked blocks: the second block's match reaches back into the first (stored) block.
    let first: &[u8] = b"0123456789abcdef";
    let second: &[u8] = &[0x04, 0x10, 0x00, 0x50, b'v', b'w', b'x', b'y', b'z'];
    let content = b"0123456789abcdef01234567vwxyz";
    for flg in [0x40, 0x40 | 0x10 | 0x04] {
        let frame = lz4_frame(flg, &[(0x8000_0010, first), (9, second)], content, false);
        let n = codecs
            .decompress(Compression::LZ4, &frame, &mut out)
            .unwrap();
        assert_eq!(&out[..n], content, "FLG {flg:#x}");
        // The same block with independent blocks has nothing to refer to.
        let independent = lz4_frame(
            flg | 0x20,
            &[(0x8000_0010, first), (9, second)],
            content,
            false,
        );
        assert!(
            codecs
                .decompress(Compression::LZ4, &independent, &mut out)
                .is_err()
        );
    }
    // A wrong block or content checksum is damage, unless the checksums are not checked.
    let mut unchecked = BuiltinCodecs::new().verify_checksums(false);
    for (flg, at) in [(0x60 | 0x10, 5), (0x60 | 0x04, 1)] {
        let mut frame = lz4_frame(flg, &[(0x8000_0010, first)], first, false);
        let at = frame.len() - at;
        frame[at] ^= 1;
        assert!(
            codecs
                .decompress(Compression::LZ4, &frame, &mut out)
                .is_err(),
            "FLG {flg:#x}"
        );
        let n = unchecked
            .decompress(Compression::LZ4, &frame, &mut out)
            .unwrap();
        assert_eq!(&out[..n], first, "FLG {flg:#x}");
    }
    // The header checksum that magic 0 Kafka wrote (over the magic number too) is accepted; a
    // wrong one is not.
    let legacy = lz4_frame(0x60, &[(0x8000_0010, first)], first, true);
    let n = codecs
        .decompress(Compression::LZ4, &legacy, &mut out)
        .unwrap();
    assert_eq!(&out[..n], first);
    let mut wrong = legacy.clone();
    wrong[6] ^= 0xff;
    assert!(
        codecs
            .decompress(Compression::LZ4, &wrong, &mut out)
            .is_err()
    );
    let n = unchecked
        .decompress(Compression::LZ4, &wrong, &mut out)
        .unwrap();
    assert_eq!(&out[..n], first);
    // Skippable frames and concatenated frames.
    let mut many = vec![0x5a, 0x2a, 0x4d, 0x18, 3, 0, 0, 0, 1, 2, 3];
    many.extend_from_slice(&lz4_frame(0x60, &[(0x8000_0003, b"abc")], b"abc", false));
    many.extend_from_slice(&lz4_frame(0x60, &[(0x8000_0003, b"def")], b"def", false));
    let n = codecs
        .decompress(Compression::LZ4, &many, &mut out)
        .unwrap();
    assert_eq!(&out[..n], b"abcdef");
    // Ours: the header Java writes.
    let mut buf = [0u8; 64];
    let n = codecs.compress(Compression::LZ4, b"abc", &mut buf).unwrap();
    assert_eq!(
        buf[..n],
        lz4_frame(0x60, &[(0x8000_0003, b"abc")], b"abc", false)
    );
}

#[test]
fn errors_display_and_chain() {
    use std::error::Error as _;
    let err = CompressionError::OutputTooSmall {
        available: 10,
        needed: Some(20),
    };
    assert_eq!(
        err.to_string(),
        "output buffer too small: 20 bytes needed, 10 available"
    );
    assert_eq!(err.retry_len(), Some(20));
    let err = CompressionError::OutputTooSmall {
        available: 100,
        needed: None,
    };
    assert_eq!(err.retry_len(), Some(200));
    let batch = RecordBatch::parse(&[0u8; 4]).unwrap_err();
    let err = CompressionError::from(batch);
    assert!(err.source().is_some());
    assert_eq!(err.retry_len(), None);
}

mod damaged_input {
    use super::*;
    use proptest::prelude::*;

    fn packed(codec: Compression) -> Vec<u8> {
        let input = text(9, 3000);
        let mut codecs = BuiltinCodecs::new();
        let mut out = vec![0u8; codecs.max_compressed_len(codec, input.len()).unwrap()];
        let n = codecs.compress(codec, &input, &mut out).unwrap();
        out.truncate(n);
        out
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(256))]

        /// Damaged streams give an error or some output, never a panic, and never write past
        /// the buffer they were given.
        #[test]
        fn decompressing_damaged_streams_does_not_panic(
            codec in 1u8..=4,
            flips in proptest::collection::vec((any::<prop::sample::Index>(), 1u8..=255), 1..4),
            cut in any::<prop::sample::Index>(),
            out_len in 0usize..5000,
        ) {
            let codec = Compression(codec);
            let mut bytes = packed(codec);
            for (at, x) in flips {
                let i = at.index(bytes.len());
                bytes[i] ^= x;
            }
            let keep = cut.index(bytes.len() + 1);
            bytes.truncate(keep.max(bytes.len() / 2));
            let mut out = vec![0u8; out_len];
            if let Ok(n) = BuiltinCodecs::new().decompress(codec, &bytes, &mut out) {
                prop_assert!(n <= out_len);
            }
        }

        /// Arbitrary bytes, too.
        #[test]
        fn decompressing_arbitrary_bytes_does_not_panic(
            codec in 0u8..=7,
            bytes in proptest::collection::vec(any::<u8>(), 0..200),
        ) {
            let mut out = vec![0u8; 1000];
            let _ = BuiltinCodecs::new().decompress(Compression(codec), &bytes, &mut out);
        }
    }
}
