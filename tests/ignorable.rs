//! Fields a version cannot carry: ignorable values are dropped by the plain encode and refused
//! by the strict one, which names them; `dropped_field` agrees with what a round trip loses.

use kwire::codec::{MessageKind, Reader, VersionRange};
use kwire::messages::fetch_request::FetchTopic;
use kwire::messages::metadata_response::MetadataResponseBroker;
use kwire::messages::{
    ControlledShutdownRequest, FetchRequest, MetadataResponse, RequestHeader, ResponseHeader,
};
use kwire::schema;
use kwire::{ApiKey, Encode, EncodeError, Request, Response, frame};

fn versions(r: VersionRange) -> impl Iterator<Item = i16> {
    (r.min..=r.max).filter(move |v| r.contains(*v))
}

/// An ignorable field inside an array element is named by its full path, only at the versions
/// that lack it; the strict encode fails there and writes nothing.
#[test]
fn a_nested_ignorable_value_is_named_and_refused() {
    let brokers = [
        MetadataResponseBroker::default()
            .with_host("a")
            .with_port(1),
        MetadataResponseBroker::default()
            .with_host("b")
            .with_port(2)
            .with_rack(Some("eu-1a")),
    ];
    let body = MetadataResponse::default().with_brokers(&brokers);
    assert_eq!(body.dropped_field(0), Some("MetadataResponse.Brokers.Rack"));
    assert_eq!(body.dropped_field(1), None);

    let mut out = [0xAAu8; 64];
    let plain = body.encode(0, &mut out).unwrap();
    assert!(plain > 0);
    let mut untouched = [0xAAu8; 64];
    let err = body.encode_strict(0, &mut untouched).unwrap_err();
    assert_eq!(
        err,
        EncodeError::IgnorableFieldDropped {
            path: "MetadataResponse.Brokers.Rack",
            version: 0
        }
    );
    assert_eq!(untouched, [0xAAu8; 64]);
    assert_eq!(
        err.to_string(),
        "MetadataResponse.Brokers.Rack holds a non-default value that version 0 would drop \
         (the field is ignorable; the strict encode refuses to lose it)"
    );
    // Where the version carries the field, strict and plain write the same bytes.
    let mut strict = [0u8; 64];
    let n = body.encode_strict(1, &mut strict).unwrap();
    assert_eq!(body.encode(1, &mut out), Ok(n));
    assert_eq!(strict[..n], out[..n]);
}

/// Other errors come first: a version the message does not have is reported as such, not as a
/// dropped field.
#[test]
fn the_strict_encode_checks_the_version_first() {
    let body = FetchRequest::default().with_rack_id("eu-1a");
    assert_eq!(body.dropped_field(10), Some("FetchRequest.RackId"));
    assert!(matches!(
        body.encode_strict(99, &mut [0u8; 128]),
        Err(EncodeError::UnsupportedVersion { version: 99, .. })
    ));
}

/// A tagged ignorable field is dropped outside its tagged versions, and the request enum passes
/// the question to its body.
#[test]
fn tagged_fields_and_the_request_enum() {
    let topics = [FetchTopic::default().with_topic("events")];
    let body = FetchRequest::default()
        .with_cluster_id(Some("cluster-1"))
        .with_topics(&topics);
    assert_eq!(body.dropped_field(11), Some("FetchRequest.ClusterId"));
    assert_eq!(body.dropped_field(12), None);
    // From v13 topics are named by id, and a name is ignorable.
    assert_eq!(
        body.with_cluster_id(None).dropped_field(13),
        Some("FetchRequest.Topics.Topic")
    );
    let request = Request::Fetch(body);
    assert_eq!(request.dropped_field(11), Some("FetchRequest.ClusterId"));
    assert_eq!(request.dropped_field(12), None);
}

/// The strict frame encoders check the header and the body, and write nothing when they refuse.
#[test]
fn strict_frames() {
    let mut out = [0x55u8; 128];
    // ControlledShutdown v0 sends header v0, which has no client id.
    let header = RequestHeader::new(ApiKey::CONTROLLED_SHUTDOWN, 0, 4).with_client_id(Some("app"));
    let body = ControlledShutdownRequest::default().with_broker_id(3);
    assert!(frame::encode_request(&header, &body, &mut out).is_ok());
    let mut untouched = [0x55u8; 128];
    assert_eq!(
        frame::encode_request_strict(&header, &body, &mut untouched),
        Err(EncodeError::IgnorableFieldDropped {
            path: "RequestHeader.ClientId",
            version: 0
        })
    );
    assert_eq!(untouched, [0x55u8; 128]);
    let at_v1 = header.with_request_api_version(1);
    let n = frame::encode_request_strict(&at_v1, &body, &mut out).unwrap();
    assert_eq!(frame::request_len(&at_v1, &body), Ok(n));

    let brokers = [MetadataResponseBroker::default().with_rack(Some("eu-1a"))];
    let response = Response::Metadata(MetadataResponse::default().with_brokers(&brokers));
    let header = ResponseHeader::default().with_correlation_id(4);
    assert!(frame::encode_response(&header, &response, 0, &mut out).is_ok());
    assert_eq!(
        frame::encode_response_strict(&header, &response, 0, &mut untouched),
        Err(EncodeError::IgnorableFieldDropped {
            path: "MetadataResponse.Brokers.Rack",
            version: 0
        })
    );
    assert_eq!(untouched, [0x55u8; 128]);
    assert!(frame::encode_response_strict(&header, &response, 1, &mut out).is_ok());
}

/// Random instances of every request and response at every version, re-encoded at every other
/// version the plain encode accepts: the round trip at the other version loses a value exactly
/// when `dropped_field` names one.
#[test]
fn dropped_field_agrees_with_what_a_round_trip_loses() {
    const SEEDS: u64 = 16;
    let (mut lossless, mut lossy, mut refused) = (0usize, 0usize, 0usize);
    let mut failures = Vec::new();
    for schema in schema::MESSAGES.iter().copied() {
        let key = ApiKey(schema.api_key);
        for from in versions(schema.valid_versions) {
            for seed in 0..SEEDS {
                let mut bytes = vec![0u8; 1 << 16];
                let Ok(n) = kwire_testkit::write_random(schema, from, seed, &mut bytes) else {
                    continue;
                };
                let Some(original) = decode(schema.kind, key, from, &bytes[..n]) else {
                    continue;
                };
                // NaN never equals itself; such an instance says nothing here.
                if !original.eq(&original) {
                    continue;
                }
                for to in versions(schema.valid_versions) {
                    let mut out = vec![0u8; 1 << 16];
                    let Ok(m) = original.encode(to, &mut out) else {
                        refused += 1;
                        continue;
                    };
                    let again =
                        decode(schema.kind, key, to, &out[..m]).expect("decodes what it encoded");
                    let dropped = original.dropped_field(to);
                    let lost = !again.eq(&original);
                    if dropped.is_some() != lost {
                        failures.push(format!(
                            "{} v{from} seed {seed} -> v{to}: dropped_field {dropped:?}, \
                             round trip lost a value: {lost}",
                            schema.name
                        ));
                    }
                    if lost {
                        lossy += 1;
                    } else {
                        lossless += 1;
                    }
                }
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} disagreements, the first:\n{}",
        failures.len(),
        failures[..failures.len().min(20)].join("\n")
    );
    // Both outcomes are common, so the agreement means something.
    assert!(
        lossy > 1000 && lossless > 1000,
        "{lossy} lossy, {lossless} lossless, {refused} refused"
    );
}

/// Decodes a request or response of `key` at `version`; `None` for other kinds or a failure.
fn decode(kind: MessageKind, key: ApiKey, version: i16, bytes: &[u8]) -> Option<Either<'_>> {
    let r = &mut Reader::new(bytes);
    match kind {
        MessageKind::Request => Request::decode(r, key, version).ok().map(Either::Request),
        MessageKind::Response => Response::decode(r, key, version).ok().map(Either::Response),
        MessageKind::Header | MessageKind::Data => None,
    }
}

/// A decoded request or response, compared and re-encoded as one.
#[derive(Debug, PartialEq)]
enum Either<'a> {
    Request(Request<'a>),
    Response(Response<'a>),
}

impl Either<'_> {
    fn encode(&self, version: i16, out: &mut [u8]) -> Result<usize, EncodeError> {
        match self {
            Self::Request(r) => r.encode(version, out),
            Self::Response(r) => r.encode(version, out),
        }
    }

    fn dropped_field(&self, version: i16) -> Option<&'static str> {
        match self {
            Self::Request(r) => r.dropped_field(version),
            Self::Response(r) => r.dropped_field(version),
        }
    }
}
