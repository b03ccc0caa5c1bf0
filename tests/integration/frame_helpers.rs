//! The frame helpers that read a header without decoding the body, `Request::expects_response`,
//! and the ApiVersions v0 fallback reply through `frame::decode_response` and
//! `frame::decode_response_as`; `frame::decode_request_as`, the typed request decode.

use kwire::codec::Str;
use kwire::messages::api_versions_response::ApiVersion;
use kwire::messages::produce_request::TopicProduceData;
use kwire::messages::{
    ApiVersionsResponse, ControlledShutdownRequest, HeartbeatRequest, MetadataRequest,
    ProduceRequest, RequestHeader, ResponseHeader,
};
use kwire::{ApiKey, DecodeError, DecodeErrorKind, ErrorCode, Request, Response, frame};

fn request_frame(
    key: ApiKey,
    version: i16,
    client_id: Option<&str>,
    body: &Request<'_>,
) -> Vec<u8> {
    let header = RequestHeader::default()
        .with_request_api_key(key.0)
        .with_request_api_version(version)
        .with_correlation_id(0x0102_0304)
        .with_client_id(client_id);
    let mut buf = vec![0u8; frame::request_len(&header, body).unwrap()];
    frame::encode_request(&header, body, &mut buf).unwrap();
    buf
}

#[test]
fn request_info_reads_every_header_version() {
    // Header v1 (Metadata v8), v2 (Metadata v12, flexible), v0 (ControlledShutdown v0).
    for (key, version, body, client_id) in [
        (
            ApiKey::METADATA,
            8,
            Request::from(MetadataRequest::default()),
            Some("app"),
        ),
        (
            ApiKey::METADATA,
            12,
            Request::from(MetadataRequest::default()),
            Some("app"),
        ),
        (
            ApiKey::METADATA,
            12,
            Request::from(MetadataRequest::default()),
            None,
        ),
        (
            ApiKey::HEARTBEAT,
            4,
            Request::from(HeartbeatRequest::default()),
            Some(""),
        ),
        (
            ApiKey::CONTROLLED_SHUTDOWN,
            0,
            Request::from(ControlledShutdownRequest::default()),
            // Header v0 has no client id: the schema default, as the full decode gives.
            Some(""),
        ),
    ] {
        let f = request_frame(key, version, client_id, &body);
        let info = frame::request_info(&f).unwrap();
        assert_eq!(info.api_key, key);
        assert_eq!(info.api_version, version);
        assert_eq!(info.correlation_id, 0x0102_0304);
        assert_eq!(info.client_id, client_id.map(Str::new), "{key} v{version}");
        // It agrees with the full decode.
        let (header, _) = frame::decode_request(&f).unwrap();
        assert_eq!(header.client_id, info.client_id);
    }
}

#[test]
fn request_info_needs_only_the_start_of_the_frame() {
    let body = Request::from(HeartbeatRequest::default().with_group_id("group"));
    let f = request_frame(ApiKey::HEARTBEAT, 3, Some("client"), &body);
    // size 4 + key 2 + version 2 + correlation 4 + client id 2 + 6.
    let needed = 20;
    let info = frame::request_info(&f).unwrap();
    assert_eq!(frame::request_info(&f[..needed]), Ok(info));
    for cut in 0..needed {
        let err = frame::request_info(&f[..cut]).unwrap_err();
        assert!(
            matches!(err.kind, DecodeErrorKind::Truncated { .. }),
            "cut at {cut}: {err}"
        );
    }
}

#[test]
fn request_info_reads_keys_and_versions_it_does_not_know() {
    // key 1000 v7, correlation 9, client id "x", and a body nothing here can read.
    let f = [
        0, 0, 0, 14, 0x03, 0xe8, 0, 7, 0, 0, 0, 9, 0, 1, b'x', 0xde, 0xad, 0xbe,
    ];
    let info = frame::request_info(&f).unwrap();
    assert_eq!(info.api_key, ApiKey(1000));
    assert_eq!((info.api_version, info.correlation_id), (7, 9));
    assert_eq!(info.client_id, Some(Str::new("x")));
    assert!(frame::decode_request(&f).is_err());
}

#[test]
fn request_info_stays_inside_the_size_prefix() {
    // The size prefix says 9 bytes, so the client id's length ends outside the frame.
    let f = [0, 0, 0, 9, 0, 12, 0, 4, 0, 0, 0, 1, 0, 0, 0, 1, b'x'];
    let err = frame::request_info(&f).unwrap_err();
    assert!(
        matches!(err.kind, DecodeErrorKind::Truncated { .. }),
        "{err}"
    );
    assert_eq!(err.offset, 12);
    let f = [0xff, 0xff, 0xff, 0xfe, 0, 12];
    let err = frame::request_info(&f).unwrap_err();
    assert_eq!(err.kind, DecodeErrorKind::NegativeFrameSize(-2));
}

#[test]
fn response_correlation_id_matches_the_header() {
    for version in [0, 4] {
        let header = ResponseHeader::default().with_correlation_id(-77);
        let body = kwire::messages::HeartbeatResponse::default();
        let mut buf = [0u8; 32];
        let n = frame::encode_response(&header, &body, version, &mut buf).unwrap();
        assert_eq!(frame::response_correlation_id(&buf[..n]), Ok(-77));
        assert_eq!(frame::response_correlation_id(&buf[..8]), Ok(-77));
        assert!(frame::response_correlation_id(&buf[..7]).is_err());
    }
    let truncated = |offset, needed| {
        Err(DecodeError::new(
            offset,
            DecodeErrorKind::Truncated { needed },
            if offset == 0 {
                "Frame.size"
            } else {
                "ResponseHeader.CorrelationId"
            },
        ))
    };
    // The size prefix says 3: the correlation id does not fit in the frame.
    assert_eq!(
        frame::response_correlation_id(&[0, 0, 0, 3, 0, 0, 0, 1]),
        truncated(4, 1)
    );
    assert_eq!(
        frame::response_correlation_id(&[0, 0, 0, 9, 0, 0]),
        truncated(4, 2)
    );
    assert_eq!(frame::response_correlation_id(&[0, 0]), truncated(0, 2));
    assert_eq!(
        frame::response_correlation_id(&[0x80, 0, 0, 0, 0, 0, 0, 1]),
        Err(DecodeError::new(
            0,
            DecodeErrorKind::NegativeFrameSize(i32::MIN),
            "Frame.size"
        ))
    );
}

#[test]
fn produce_with_acks_zero_expects_no_response() {
    let topics = [TopicProduceData::default().with_name("t")];
    for (acks, answered) in [(0, false), (1, true), (-1, true)] {
        let produce = ProduceRequest::default()
            .with_acks(acks)
            .with_topic_data(&topics[..]);
        assert_eq!(Request::from(produce).expects_response(), answered);
        // As a decoded request too.
        let f = request_frame(ApiKey::PRODUCE, 9, Some("p"), &Request::from(produce));
        let (_, decoded) = frame::decode_request(&f).unwrap();
        assert_eq!(decoded.expects_response(), answered);
    }
    assert!(Request::from(MetadataRequest::default()).expects_response());
}

#[test]
fn decode_response_accepts_the_api_versions_fallback() {
    // A broker's reply to ApiVersions v3 when it does not know v3: response header v0, body in
    // the v0 layout with error 35, listing ApiVersions 0-2.
    let reply = [
        0, 0, 0, 16, 0, 0, 0, 5, 0, 35, 0, 0, 0, 1, 0, 18, 0, 0, 0, 2,
    ];
    for sent in [3, 4, 99] {
        let (header, body) = frame::decode_response(&reply, ApiKey::API_VERSIONS, sent).unwrap();
        assert_eq!(header.correlation_id, 5);
        let Response::ApiVersions(body) = body else {
            panic!("not ApiVersions");
        };
        // The typed decoder reads the same body the same way, at the versions it has.
        if sent <= 4 {
            let (typed_header, typed) =
                frame::decode_response_as::<ApiVersionsResponse<'_>>(&reply, sent).unwrap();
            assert_eq!((typed_header, typed), (header, body));
        }
        assert_eq!(body.error_code, ErrorCode::UNSUPPORTED_VERSION);
        let keys: Vec<_> = body
            .api_keys
            .iter()
            .map(|k| (k.api_key, k.min_version, k.max_version))
            .collect();
        assert_eq!(keys, [(18, 0, 2)]);
    }

    // A normal reply at the version sent still decodes at that version.
    let keys = [ApiVersion::default()
        .with_api_key(ApiKey::PRODUCE.0)
        .with_max_version(9)];
    let body = ApiVersionsResponse::default()
        .with_api_keys(&keys[..])
        .with_throttle_time_ms(3);
    let header = ResponseHeader::default().with_correlation_id(6);
    let mut buf = [0u8; 64];
    let n = frame::encode_response(&header, &body, 3, &mut buf).unwrap();
    let (_, decoded) = frame::decode_response(&buf[..n], ApiKey::API_VERSIONS, 3).unwrap();
    assert_eq!(decoded, Response::ApiVersions(body));
    let (_, typed) = frame::decode_response_as::<ApiVersionsResponse<'_>>(&buf[..n], 3).unwrap();
    assert_eq!(typed, body);
    assert!(frame::decode_response_as::<ApiVersionsResponse<'_>>(&buf[..n - 1], 3).is_err());

    // A frame neither layout reads fails with the error of the layout tried first.
    let err = frame::decode_response(&buf[..n - 1], ApiKey::API_VERSIONS, 3).unwrap_err();
    assert!(frame::decode_response(&reply[..19], ApiKey::API_VERSIONS, 3).is_err());
    assert!(matches!(
        err.kind,
        DecodeErrorKind::Truncated { .. } | DecodeErrorKind::TrailingBytes { .. }
    ));
}

/// `frame::decode_request_as` reads what `frame::decode_request` reads, for one request type,
/// and refuses a frame of another API.
mod decode_request_as {
    use kwire::codec::{Decode, Message, Uuid};
    use kwire::messages::produce_request::PartitionProduceData;
    use kwire::messages::{ControlledShutdownRequest, HeartbeatRequest, ProduceRequest};
    use kwire::records::{BatchBuilder, NewRecord, Records};

    use super::*;

    /// A decoded request frame: its header and body.
    type Decoded<'a, T> = Result<(RequestHeader<'a>, T), DecodeError>;

    /// What `decode_request_as` and `decode_request` read of `buf`.
    fn both<'a, T>(buf: &'a [u8]) -> (Decoded<'a, T>, Decoded<'a, Request<'a>>)
    where
        T: Message + Decode<'a>,
    {
        (
            frame::decode_request_as::<T>(buf),
            frame::decode_request(buf),
        )
    }

    fn encode<B: frame::Body>(key: ApiKey, version: i16, body: &B) -> Vec<u8> {
        let header = RequestHeader::new(key, version, 77);
        // ControlledShutdown v0's header has no client id.
        let header = if key == ApiKey::CONTROLLED_SHUTDOWN && version == 0 {
            header
        } else {
            header.with_client_id(Some("c"))
        };
        let mut buf = vec![0u8; frame::request_len(&header, body).unwrap()];
        frame::encode_request(&header, body, &mut buf).unwrap();
        buf
    }

    #[test]
    fn reads_what_decode_request_reads() {
        let mut batch = [0u8; 128];
        let n = BatchBuilder::new()
            .write(&[NewRecord::new(b"v").with_key(b"k")], &mut batch)
            .unwrap();
        let partitions = [PartitionProduceData::default()
            .with_index(2)
            .with_records(Some(Records::new(&batch[..n])))];
        let topics = [TopicProduceData::default()
            .with_name("t")
            .with_topic_id(Uuid::from_u128(5))
            .with_partition_data(&partitions)];
        let produce = ProduceRequest::default()
            .with_acks(-1)
            .with_topic_data(&topics);
        for version in 0..=13 {
            let buf = encode(ApiKey::PRODUCE, version, &produce);
            let (typed, any) = both::<ProduceRequest<'_>>(&buf);
            let (header, body) = typed.unwrap();
            let (any_header, Request::Produce(any_body)) = any.unwrap() else {
                panic!("a Produce request");
            };
            assert_eq!((header, body), (any_header, any_body), "version {version}");
            assert_eq!(header.correlation_id, 77);
            let records = body
                .topic_data
                .iter()
                .next()
                .unwrap()
                .partition_data
                .iter()
                .next();
            assert_eq!(records.unwrap().records, Some(Records::new(&batch[..n])));
        }
        // Header v0 (no client id), and the flexible header of Heartbeat v4.
        let shutdown = ControlledShutdownRequest::default().with_broker_id(3);
        let buf = encode(ApiKey::CONTROLLED_SHUTDOWN, 0, &shutdown);
        let (header, body) =
            frame::decode_request_as::<ControlledShutdownRequest<'_>>(&buf).unwrap();
        assert_eq!((header.client_id, body.broker_id), (Some(Str::new("")), 3));
        let heartbeat = HeartbeatRequest::default()
            .with_group_id("g")
            .with_member_id("m");
        let buf = encode(ApiKey::HEARTBEAT, 4, &heartbeat);
        let (_, body) = frame::decode_request_as::<HeartbeatRequest<'_>>(&buf).unwrap();
        assert_eq!(body, heartbeat);
    }

    #[test]
    fn another_api_is_refused_by_name() {
        let buf = encode(ApiKey::HEARTBEAT, 4, &HeartbeatRequest::default());
        let err = frame::decode_request_as::<MetadataRequest<'_>>(&buf).unwrap_err();
        assert_eq!(
            err,
            DecodeError::new(
                4,
                DecodeErrorKind::ApiKeyMismatch {
                    expected: ApiKey::METADATA,
                    found: ApiKey::HEARTBEAT
                },
                "RequestHeader.RequestApiKey"
            )
        );
        assert_eq!(
            err.kind.to_string(),
            "the request is Heartbeat (12), not the Metadata (3) it is decoded as"
        );
        // A key no API has: refused as another API's.
        let mut unknown = buf.clone();
        unknown[4..6].copy_from_slice(&999i16.to_be_bytes());
        assert!(matches!(
            frame::decode_request_as::<HeartbeatRequest<'_>>(&unknown)
                .unwrap_err()
                .kind,
            DecodeErrorKind::ApiKeyMismatch {
                found: ApiKey(999),
                ..
            }
        ));
    }

    /// A version the type does not have, a frame cut short, bytes left over: the errors
    /// `decode_request` gives.
    #[test]
    fn fails_as_decode_request_fails() {
        let buf = encode(
            ApiKey::HEARTBEAT,
            4,
            &HeartbeatRequest::default().with_group_id("g"),
        );
        let mut v99 = buf.clone();
        v99[6..8].copy_from_slice(&99i16.to_be_bytes());
        let mut longer = buf.clone();
        longer.push(0);
        let size = u32::try_from(longer.len() - 4).unwrap();
        longer[..4].copy_from_slice(&size.to_be_bytes());
        for input in [&v99[..], &buf[..buf.len() - 1], &buf[..5], &longer[..]] {
            let (typed, any) = both::<HeartbeatRequest<'_>>(input);
            assert_eq!(typed.unwrap_err(), any.unwrap_err());
        }
        assert!(matches!(
            frame::decode_request_as::<HeartbeatRequest<'_>>(&v99)
                .unwrap_err()
                .kind,
            DecodeErrorKind::UnsupportedVersion { version: 99, .. }
        ));
    }
}
