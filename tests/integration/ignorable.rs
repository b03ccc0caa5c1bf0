//! Fields a version cannot carry: every encode refuses a value it would lose, naming the field
//! and the versions that have it, except the lenient one, which leaves out the values of
//! ignorable fields as Kafka's serializer does; `dropped_field` agrees with what a lenient round
//! trip loses.

use kwire::codec::{DroppedField, MessageKind, Reader, Uuid, VersionRange};
use kwire::messages::fetch_request::FetchTopic;
use kwire::messages::metadata_response::MetadataResponseBroker;
use kwire::messages::produce_request::TopicProduceData;
use kwire::messages::{
    ControlledShutdownRequest, FetchRequest, MetadataResponse, ProduceRequest, RequestHeader,
    ResponseHeader,
};
use kwire::{ApiKey, Encode, EncodeError, Request, Response, frame};
use kwire_schema as schema;

fn versions(r: VersionRange) -> impl Iterator<Item = i16> {
    (r.min..=r.max).filter(move |v| r.contains(*v))
}

fn dropped(path: &'static str, versions: VersionRange) -> Option<DroppedField> {
    Some(DroppedField { path, versions })
}

/// A topic named where the version names topics by id: refused by every encoder, the lenient
/// ones included, not sent as the zero topic id; the error names the field that does.
#[test]
fn a_topic_name_alone_at_produce_v13_is_refused() {
    let topics = [TopicProduceData::default().with_name("events")];
    let body = ProduceRequest::default()
        .with_acks(-1)
        .with_topic_data(&topics);
    let header = RequestHeader::new(ApiKey::PRODUCE, 13, 1);
    let mut out = [0x55u8; 128];
    let err = frame::encode_request(&header, &body, &mut out).unwrap_err();
    assert_eq!(
        err,
        EncodeError::TopicNamedBy {
            path: "ProduceRequest.TopicData.Name",
            version: 13,
            versions: VersionRange::new(0, 12),
            by: "ProduceRequest.TopicData.TopicId",
        }
    );
    assert_eq!(
        err.to_string(),
        "ProduceRequest.TopicData.Name holds a value that version 13 cannot carry (the field is \
         in versions 0-12 only): at version 13 the topic is named by `TopicId` \
         (ProduceRequest.TopicData.TopicId), which is not set; set both, and the encode writes \
         the one its version carries"
    );
    assert_eq!(
        frame::encode_request_lenient(&header, &body, &mut out),
        Err(err)
    );
    assert_eq!(body.dropped_field(13), None);
    // The same request at v12 carries the name; an id alone at v12 is refused alike.
    let v12 = header.with_request_api_version(12);
    assert!(frame::encode_request(&v12, &body, &mut out).is_ok());
    let by_id = [TopicProduceData::default().with_topic_id(Uuid::from_u128(1))];
    let body = body.with_topic_data(&by_id);
    assert!(frame::encode_request(&header, &body, &mut out).is_ok());
    assert!(matches!(
        frame::encode_request_lenient(&v12, &body, &mut out),
        Err(EncodeError::TopicNamedBy {
            path: "ProduceRequest.TopicData.TopicId",
            version: 12,
            by: "ProduceRequest.TopicData.Name",
            ..
        })
    ));
}

/// A topic given by both its name and its id encodes at every version as the one the version
/// carries: the bytes of the name alone before v13, of the id alone from v13.
#[test]
fn a_topic_named_both_ways_encodes_at_every_version() {
    let id = Uuid::from_u128(0x1234);
    let both = [TopicProduceData::default()
        .with_name("events")
        .with_topic_id(id)];
    let name = [TopicProduceData::default().with_name("events")];
    let by_id = [TopicProduceData::default().with_topic_id(id)];
    let request = |t| ProduceRequest::default().with_acks(-1).with_topic_data(t);
    for version in 0..=13 {
        let header = RequestHeader::new(ApiKey::PRODUCE, version, 1);
        let one = if version >= 13 { &by_id } else { &name };
        let (mut a, mut b) = ([0u8; 128], [0u8; 128]);
        let n = frame::encode_request(&header, &request(&both), &mut a).unwrap();
        assert_eq!(frame::encode_request(&header, &request(one), &mut b), Ok(n));
        assert_eq!(a[..n], b[..n], "v{version}");
        assert_eq!(request(&both).dropped_field(version), None);
    }
    // Fetch names its topics the same way.
    let both = [FetchTopic::default().with_topic("events").with_topic_id(id)];
    let fetch = FetchRequest::default().with_topics(&both);
    for version in 4..=17 {
        assert!(fetch.encode(version, &mut [0u8; 256]).is_ok(), "v{version}");
    }
}

/// An ignorable field inside an array element is named by its full path, only at the versions
/// that lack it; the encode fails there, and the lenient encode leaves the value out.
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
    let rack = dropped("MetadataResponse.Brokers.Rack", VersionRange::from(1));
    assert_eq!(body.dropped_field(0), rack);
    assert_eq!(body.dropped_field(1), None);

    let mut out = [0xAAu8; 64];
    let lenient = body.encode_lenient(0, &mut out).unwrap();
    assert!(lenient > 0);
    let err = body.encode(0, &mut [0u8; 64]).unwrap_err();
    assert_eq!(
        err,
        EncodeError::FieldNotInVersion {
            path: "MetadataResponse.Brokers.Rack",
            version: 0,
            versions: VersionRange::from(1),
            ignorable: true,
        }
    );
    // Where the version carries the field, both encodes write the same bytes.
    let mut refusing = [0u8; 64];
    let n = body.encode(1, &mut refusing).unwrap();
    assert_eq!(body.encode_lenient(1, &mut out), Ok(n));
    assert_eq!(refusing[..n], out[..n]);
}

/// Other errors come first: a version the message does not have is reported as such, not as a
/// field it cannot carry.
#[test]
fn the_encode_checks_the_version_first() {
    let body = FetchRequest::default().with_rack_id("eu-1a");
    assert_eq!(
        body.dropped_field(10),
        dropped("FetchRequest.RackId", VersionRange::from(11))
    );
    assert!(matches!(
        body.encode(99, &mut [0u8; 128]),
        Err(EncodeError::UnsupportedVersion { version: 99, .. })
    ));
}

/// A tagged ignorable field is named outside its tagged versions, and the request enum passes
/// the question to its body.
#[test]
fn tagged_fields_and_the_request_enum() {
    let topics = [FetchTopic::default().with_topic("events")];
    let body = FetchRequest::default()
        .with_cluster_id(Some("cluster-1"))
        .with_topics(&topics);
    let cluster_id = dropped("FetchRequest.ClusterId", VersionRange::from(12));
    assert_eq!(body.dropped_field(11), cluster_id);
    assert_eq!(body.dropped_field(12), None);
    // From v13 topics are named by id: a name alone is refused by every encode.
    assert_eq!(body.with_cluster_id(None).dropped_field(13), None);
    assert!(matches!(
        body.with_cluster_id(None)
            .encode_lenient(13, &mut [0u8; 128]),
        Err(EncodeError::TopicNamedBy {
            path: "FetchRequest.Topics.Topic",
            ..
        })
    ));
    let request = Request::Fetch(body);
    assert_eq!(request.dropped_field(11), cluster_id);
    assert_eq!(request.dropped_field(12), None);
    assert!(matches!(
        request.encode(11, &mut [0u8; 128]),
        Err(EncodeError::FieldNotInVersion {
            path: "FetchRequest.ClusterId",
            ignorable: true,
            ..
        })
    ));
}

/// The frame encoders check the header and the body, and write nothing when they refuse; the
/// lenient ones leave the value out.
#[test]
fn frames_refuse_and_lenient_frames_leave_out() {
    let mut out = [0x55u8; 128];
    // ControlledShutdown v0 sends header v0, which has no client id.
    let header = RequestHeader::new(ApiKey::CONTROLLED_SHUTDOWN, 0, 4).with_client_id(Some("app"));
    let body = ControlledShutdownRequest::default().with_broker_id(3);
    let n = frame::encode_request_lenient(&header, &body, &mut out).unwrap();
    assert_eq!(frame::request_len(&header, &body), Ok(n));
    let mut refused = [0x55u8; 128];
    assert_eq!(
        frame::encode_request(&header, &body, &mut refused),
        Err(EncodeError::FieldNotInVersion {
            path: "RequestHeader.ClientId",
            version: 0,
            versions: VersionRange::from(1),
            ignorable: true,
        })
    );
    let at_v1 = header.with_request_api_version(1);
    let n = frame::encode_request(&at_v1, &body, &mut out).unwrap();
    assert_eq!(frame::request_len(&at_v1, &body), Ok(n));

    let brokers = [MetadataResponseBroker::default().with_rack(Some("eu-1a"))];
    let response = Response::Metadata(MetadataResponse::default().with_brokers(&brokers));
    let header = ResponseHeader::default().with_correlation_id(4);
    let n = frame::encode_response_lenient(&header, &response, 0, &mut out).unwrap();
    assert_eq!(frame::response_len(&header, &response, 0), Ok(n));
    assert!(matches!(
        frame::encode_response(&header, &response, 0, &mut refused),
        Err(EncodeError::FieldNotInVersion {
            path: "MetadataResponse.Brokers.Rack",
            version: 0,
            ignorable: true,
            ..
        })
    ));
    assert!(frame::encode_response(&header, &response, 1, &mut out).is_ok());
}

/// Random instances of every request and response at every version, re-encoded at every other
/// version the lenient encode accepts: the round trip at the other version loses a value exactly
/// when `dropped_field` names one, and exactly then the encode refuses, naming that field.
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
                    let Ok(m) = original.encode_lenient(to, &mut out) else {
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
                    let refusal = match original.encode(to, &mut out) {
                        Ok(_) => None,
                        Err(EncodeError::FieldNotInVersion {
                            path,
                            version,
                            versions,
                            ignorable: true,
                        }) if version == to => Some(DroppedField { path, versions }),
                        Err(e) => {
                            failures.push(format!(
                                "{} v{from} seed {seed} -> v{to}: the encode failed with {e} \
                                 where the lenient one did not",
                                schema.name
                            ));
                            None
                        }
                    };
                    if refusal != dropped {
                        failures.push(format!(
                            "{} v{from} seed {seed} -> v{to}: dropped_field {dropped:?}, \
                             the encode refused {refusal:?}",
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

    fn encode_lenient(&self, version: i16, out: &mut [u8]) -> Result<usize, EncodeError> {
        match self {
            Self::Request(r) => r.encode_lenient(version, out),
            Self::Response(r) => r.encode_lenient(version, out),
        }
    }

    fn dropped_field(&self, version: i16) -> Option<DroppedField> {
        match self {
            Self::Request(r) => r.dropped_field(version),
            Self::Response(r) => r.dropped_field(version),
        }
    }
}
