//! The malformed-input catalogue: one case per class of bad input, each asserting the whole
//! typed error (kind, absolute byte offset, field path). Deeper checks of some classes (every
//! prefix of several real frames against an independent layout, encode-side failures) live in
//! `bad_input.rs`; this file is the index a reviewer reads first.
//!
//! Leniencies, as in Kafka's Java reader, are cases too: non-minimal varints decode, any negative
//! length of a nullable field is null, the bits of a varint's last byte beyond 32 (or 64) are
//! ignored, and a string that is not UTF-8 decodes (a reader checking UTF-8 refuses it).

use kwire::codec::{Decode, Encode, Reader};
use kwire::frame;
use kwire::messages::RequestHeader;
use kwire::messages::api_versions_request::ApiVersionsRequest;
use kwire::messages::fetch_request::FetchRequest;
use kwire::messages::heartbeat_request::HeartbeatRequest;
use kwire::messages::metadata_request::MetadataRequest;
use kwire::records::{BatchBuilder, NewRecord, RecordBatch, Records};
use kwire::{ApiKey, DecodeError, DecodeErrorKind as K, Request, Response, Status};

fn err(offset: usize, kind: K, path: &'static str) -> DecodeError {
    DecodeError::new(offset, kind, path)
}

fn api_versions_v3(body: &[u8]) -> Result<ApiVersionsRequest<'_>, DecodeError> {
    let mut r = Reader::new(body);
    let v = ApiVersionsRequest::decode(&mut r, 3)?;
    r.finish("ApiVersionsRequest")?;
    Ok(v)
}

fn heartbeat_v0(body: &[u8]) -> Result<HeartbeatRequest<'_>, DecodeError> {
    HeartbeatRequest::decode(&mut Reader::new(body), 0)
}

const NAME: &str = "ApiVersionsRequest.ClientSoftwareName";
const SOFTWARE_VERSION: &str = "ApiVersionsRequest.ClientSoftwareVersion";
const TAGS: &str = "ApiVersionsRequest.tagged_fields";
const GROUP: &str = "HeartbeatRequest.GroupId";

// ---------------------------------------------------------------------------------------------
// Lengths and truncation
// ---------------------------------------------------------------------------------------------

#[test]
fn truncation_at_every_byte() {
    // ClientSoftwareName "kw", ClientSoftwareVersion "1", no tagged fields.
    let body = [0x03, b'k', b'w', 0x02, b'1', 0x00];
    assert!(api_versions_v3(&body).is_ok());
    let expected = [
        err(0, K::Truncated { needed: 1 }, NAME),
        err(1, K::Truncated { needed: 2 }, NAME),
        err(1, K::Truncated { needed: 1 }, NAME),
        err(3, K::Truncated { needed: 1 }, SOFTWARE_VERSION),
        err(4, K::Truncated { needed: 1 }, SOFTWARE_VERSION),
        err(5, K::Truncated { needed: 1 }, TAGS),
    ];
    for (cut, want) in expected.iter().enumerate() {
        assert_eq!(
            api_versions_v3(&body[..cut]).unwrap_err(),
            *want,
            "cut at {cut}"
        );
    }
}

#[test]
fn length_past_the_input() {
    assert_eq!(
        heartbeat_v0(&[0x00, 0x05, b'a', b'b']).unwrap_err(),
        err(2, K::Truncated { needed: 3 }, GROUP)
    );
}

#[test]
fn huge_element_count_in_a_tiny_input() {
    // MetadataRequest v1: Topics is a nullable int32-counted array. i32::MAX elements cannot fit
    // in 0 bytes: refused before any element is read (nothing is allocated either way).
    let body = [0x7f, 0xff, 0xff, 0xff];
    assert_eq!(
        MetadataRequest::decode(&mut Reader::new(&body), 1).unwrap_err(),
        err(
            4,
            K::Truncated {
                needed: 0x7fff_ffff
            },
            "MetadataRequest.Topics"
        )
    );
}

#[test]
fn negative_lengths() {
    // -1 on a non-nullable string is a null where none is allowed; other negatives are negative
    // lengths. Compact 0 is the compact null.
    assert_eq!(
        heartbeat_v0(&[0xff, 0xff]).unwrap_err(),
        err(0, K::UnexpectedNull, GROUP)
    );
    assert_eq!(
        heartbeat_v0(&[0xff, 0xfe]).unwrap_err(),
        err(0, K::NegativeLength(-2), GROUP)
    );
    assert_eq!(
        api_versions_v3(&[0x00, 0x01, 0x00]).unwrap_err(),
        err(0, K::UnexpectedNull, NAME)
    );
    // Nullable: -1 and any other negative length are null (RequestHeader v1 ClientId).
    for len in [[0xff, 0xff], [0x80, 0x00]] {
        let mut body = vec![0x00, 0x12, 0x00, 0x03, 0x00, 0x00, 0x00, 0x07];
        body.extend_from_slice(&len);
        let h = RequestHeader::decode(&mut Reader::new(&body), 1).unwrap();
        assert_eq!(h.client_id, None);
    }
}

#[test]
fn string_over_the_string_limit() {
    // A compact length of 40000 bytes (N + 1 = 40001) exceeds the 32767-byte string limit,
    // whatever follows.
    let mut body = vec![0xc1, 0xb8, 0x02];
    body.extend(std::iter::repeat_n(b'a', 40_000));
    assert_eq!(
        api_versions_v3(&body).unwrap_err(),
        err(
            0,
            K::LengthTooLarge {
                length: 40_000,
                limit: 32_767
            },
            NAME
        )
    );
}

#[test]
fn invalid_utf8() {
    // Read as the bytes they are; `to_str` is the check.
    let body = [0x00, 0x02, 0xc3, 0x28, 0, 0, 0, 1, 0x00, 0x01, b'm'];
    let group = heartbeat_v0(&body).unwrap().group_id;
    assert_eq!(group.as_bytes(), [0xc3, 0x28]);
    assert!(group.to_str().is_err());
    // A reader checking UTF-8 refuses them, at the string's first byte.
    assert_eq!(
        HeartbeatRequest::decode(&mut Reader::new(&body).checking_utf8(), 0).unwrap_err(),
        err(2, K::InvalidUtf8, GROUP)
    );
}

// ---------------------------------------------------------------------------------------------
// Varints
// ---------------------------------------------------------------------------------------------

#[test]
fn varint_with_a_fifth_byte_continuation() {
    let body = [0xff, 0xff, 0xff, 0xff, 0xff, 0x00];
    assert_eq!(
        api_versions_v3(&body).unwrap_err(),
        err(0, K::VarintTooLong, NAME)
    );
    // Four continuation bytes and a last one without: a length of 2^32 - 1 (N + 1), too large.
    let mut r = Reader::new(&[0xff, 0xff, 0xff, 0xff, 0x0f]);
    assert_eq!(r.decode_with(|r| r.uvarint("x")), Ok(u32::MAX));
}

#[test]
fn varlong_with_a_tenth_byte_continuation() {
    let mut too_long = [0xffu8; 11];
    too_long[10] = 0;
    assert_eq!(
        Reader::with_offset(&too_long, 100).decode_with(|r| r.varlong("Record.TimestampDelta")),
        Err(err(100, K::VarintTooLong, "Record.TimestampDelta"))
    );
    // Ten bytes, the last without continuation: accepted, bits past 64 ignored.
    let mut ten = [0xffu8; 10];
    ten[9] = 0x01;
    assert_eq!(Reader::new(&ten).varlong("x"), Ok(i64::MIN));
}

#[test]
fn non_minimal_varints_are_accepted_and_re_encoded_minimally() {
    // ClientSoftwareName's compact length 3 written in two bytes (0x83 0x00).
    let body = [0x83, 0x00, b'k', b'w', 0x02, b'1', 0x00];
    let v = api_versions_v3(&body).unwrap();
    assert_eq!(v.client_software_name, "kw");
    let mut out = [0u8; 16];
    let n = v.encode(3, &mut out).unwrap();
    assert_eq!(&out[..n], &[0x03, b'k', b'w', 0x02, b'1', 0x00]);
}

// ---------------------------------------------------------------------------------------------
// Tagged fields
// ---------------------------------------------------------------------------------------------

#[test]
fn duplicate_and_out_of_order_tags() {
    // Name "", version "", then two tagged fields: tags 5 and 5, then 6 and 5.
    assert_eq!(
        api_versions_v3(&[0x01, 0x01, 0x02, 0x05, 0x00, 0x05, 0x00]).unwrap_err(),
        err(
            5,
            K::TagOutOfOrder {
                tag: 5,
                previous: 5
            },
            TAGS
        )
    );
    assert_eq!(
        api_versions_v3(&[0x01, 0x01, 0x02, 0x06, 0x00, 0x05, 0x00]).unwrap_err(),
        err(
            5,
            K::TagOutOfOrder {
                tag: 5,
                previous: 6
            },
            TAGS
        )
    );
}

/// A FetchRequest v12 body whose top-level tagged section is replaced by `section`.
fn fetch_v12_with_section(section: &[u8]) -> (Vec<u8>, usize) {
    let mut body = vec![0u8; 64];
    let n = FetchRequest::default().encode(12, &mut body).unwrap();
    body.truncate(n);
    assert_eq!(
        body.pop(),
        Some(0x00),
        "the empty tagged section ends the body"
    );
    let at = body.len();
    body.extend_from_slice(section);
    (body, at)
}

#[test]
fn known_tag_at_a_version_without_it() {
    // Tag 1 (ReplicaState) is tagged from v15 only.
    let (body, at) = fetch_v12_with_section(&[0x01, 0x01, 0x00]);
    assert_eq!(
        FetchRequest::decode(&mut Reader::new(&body), 12).unwrap_err(),
        err(
            at + 1,
            K::TagNotInVersion {
                tag: 1,
                version: 12
            },
            "FetchRequest.tagged_fields"
        )
    );
}

#[test]
fn tagged_payload_whose_size_differs_from_its_field() {
    // Tag 0 (ClusterId, a compact nullable string) declared as 3 bytes holding "a" (2 bytes).
    let (body, at) = fetch_v12_with_section(&[0x01, 0x00, 0x03, 0x02, b'a', b'b']);
    assert_eq!(
        FetchRequest::decode(&mut Reader::new(&body), 12).unwrap_err(),
        err(
            at + 5,
            K::TaggedSizeMismatch {
                tag: 0,
                declared: 3,
                consumed: 2
            },
            "FetchRequest.ClusterId"
        )
    );
    // Declared 1 byte for a field that needs 2: the field runs out of payload.
    let (body, at) = fetch_v12_with_section(&[0x01, 0x00, 0x01, 0x02, b'a']);
    assert_eq!(
        FetchRequest::decode(&mut Reader::new(&body), 12).unwrap_err(),
        err(
            at + 4,
            K::TaggedSizeMismatch {
                tag: 0,
                declared: 1,
                consumed: 2
            },
            "FetchRequest.ClusterId"
        )
    );
}

// ---------------------------------------------------------------------------------------------
// API keys, versions and frames
// ---------------------------------------------------------------------------------------------

#[test]
fn unknown_api_key() {
    assert_eq!(
        Request::decode(&mut Reader::new(&[]), ApiKey(999), 0).unwrap_err(),
        err(0, K::UnknownApiKey(ApiKey(999)), "Request")
    );
    assert_eq!(
        Response::decode(&mut Reader::new(&[]), ApiKey(-1), 0).unwrap_err(),
        err(0, K::UnknownApiKey(ApiKey(-1)), "Response")
    );
}

#[test]
fn unsupported_version() {
    let e = Request::decode(&mut Reader::new(&[]), ApiKey(12), 99).unwrap_err();
    assert_eq!(
        e,
        err(
            0,
            K::UnsupportedVersion {
                api_key: ApiKey(12),
                version: 99
            },
            "HeartbeatRequest"
        )
    );
}

/// A HeartbeatRequest v0 frame: size, header v1 (key 12, version 0, correlation 7, client "c"),
/// then group "g", generation 1, member "m".
fn heartbeat_frame(extra: &[u8]) -> Vec<u8> {
    let mut rest = vec![
        0x00, 0x0c, 0x00, 0x00, 0x00, 0x00, 0x00, 0x07, 0x00, 0x01, b'c',
    ];
    rest.extend_from_slice(&[0x00, 0x01, b'g', 0x00, 0x00, 0x00, 0x01, 0x00, 0x01, b'm']);
    rest.extend_from_slice(extra);
    let mut frame = u32::try_from(rest.len()).unwrap().to_be_bytes().to_vec();
    frame.extend_from_slice(&rest);
    frame
}

#[test]
fn trailing_bytes_where_exactness_was_asked_for() {
    assert!(frame::decode_request(&heartbeat_frame(&[])).is_ok());
    let e = frame::decode_request(&heartbeat_frame(&[0xaa, 0xbb])).unwrap_err();
    assert_eq!(e, err(25, K::TrailingBytes { count: 2 }, "Request"));
}

#[test]
fn oversized_and_negative_frame_sizes() {
    let frame = heartbeat_frame(&[]);
    assert_eq!(
        frame::split(&frame, 16).unwrap_err(),
        err(
            0,
            K::FrameTooLarge {
                size: 21,
                limit: 16
            },
            "Frame.size"
        )
    );
    assert!(matches!(frame::split(&frame, 21), Ok(Status::Complete(f)) if f == frame));
    assert_eq!(
        frame::split(&[0xff, 0xff, 0xff, 0xfe, 0x00], 1 << 20).unwrap_err(),
        err(0, K::NegativeFrameSize(-2), "Frame.size")
    );
    // A response frame whose header is cut: truncated inside the correlation id.
    let e =
        frame::decode_response(&[0x00, 0x00, 0x00, 0x02, 0x00, 0x00], ApiKey(18), 0).unwrap_err();
    assert_eq!(
        e,
        err(
            4,
            K::Truncated { needed: 2 },
            "ResponseHeader.CorrelationId"
        )
    );
}

// ---------------------------------------------------------------------------------------------
// Record batches
// ---------------------------------------------------------------------------------------------

fn one_record_batch() -> Vec<u8> {
    let records = [NewRecord::new(b"value").with_key(b"key")];
    let mut out = vec![0u8; 256];
    let n = BatchBuilder::new().write(&records, &mut out).unwrap();
    out.truncate(n);
    out
}

#[test]
fn crc_mismatch() {
    let mut batch = one_record_batch();
    let stored = u32::from_be_bytes(batch[17..21].try_into().unwrap());
    assert_eq!(RecordBatch::parse(&batch).unwrap().verify_crc(), Ok(()));
    let last = batch.len() - 1;
    batch[last] ^= 0x01;
    let computed = kwire::records::crc::crc32c(&batch[21..]);
    assert_eq!(
        RecordBatch::parse(&batch)
            .unwrap()
            .verify_crc()
            .unwrap_err(),
        err(17, K::CrcMismatch { stored, computed }, "RecordBatch.crc")
    );
}

#[test]
fn batch_length_that_lies() {
    let batch = one_record_batch();
    let real = i32::from_be_bytes(batch[8..12].try_into().unwrap());
    // Longer than the input: the batch is incomplete, 10 bytes short at the input's end.
    let mut longer = batch.clone();
    longer[8..12].copy_from_slice(&(real + 10).to_be_bytes());
    assert_eq!(
        RecordBatch::parse(&longer).unwrap_err(),
        err(
            batch.len(),
            K::Truncated { needed: 10 },
            "RecordBatch.batchLength"
        )
    );
    // Shorter than a batch header can be.
    let mut tiny = batch.clone();
    tiny[8..12].copy_from_slice(&10i32.to_be_bytes());
    assert_eq!(
        RecordBatch::parse(&tiny).unwrap_err(),
        err(
            8,
            K::EntryTooSmall { size: 10, min: 49 },
            "RecordBatch.batchLength"
        )
    );
    // Shorter than its records: the last record runs past the batch's end.
    let mut short = batch.clone();
    short[8..12].copy_from_slice(&(real - 3).to_be_bytes());
    let cut = &short[..short.len() - 3];
    let parsed = RecordBatch::parse(cut).unwrap();
    // The CRC no longer matches: a checked walk stops there, the unchecked one reads on.
    assert!(matches!(
        parsed.records().unwrap_err().kind,
        K::CrcMismatch { .. }
    ));
    let e = parsed
        .records_unchecked()
        .unwrap()
        .find_map(Result::err)
        .unwrap();
    // The record (at 61: length, attributes, deltas, key "key" at 66) has its 5-byte value at
    // 70, but the batch now ends at 73.
    assert_eq!(e, err(70, K::Truncated { needed: 2 }, "Record.value"));
    // In a records field, a first batch longer than the field is an error (a fetch size too
    // small), not an empty result.
    let field = Records::new(&longer);
    let mut batches = field.batches();
    assert_eq!(
        batches.next(),
        Some(Err(err(
            0,
            K::IncompleteFirstBatch {
                available: longer.len(),
                needed: 10
            },
            "Records"
        )))
    );
    assert_eq!(batches.next(), None);
    // After a complete batch, the same is the normal end of a fetch, reported as partial.
    let both = [&batch[..], &longer[..]].concat();
    let mut batches = Records::new(&both).batches();
    assert!(batches.next().unwrap().is_ok());
    assert_eq!(batches.next(), None);
    assert_eq!(
        batches.partial(),
        Some(kwire::records::PartialBatch {
            byte_offset: batch.len(),
            available: longer.len(),
            needed: 10
        })
    );
}
