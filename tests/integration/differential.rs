//! Differential tests against the `kafka-protocol` crate (0.18, generated from Kafka 4.1 schemas).
//!
//! For every API key, direction and version that both crates cover:
//!
//! * **theirs → ours**: a value is encoded by `kafka-protocol`, decoded by our typed code (all
//!   bytes must be consumed), re-encoded by our typed code, and the bytes must be identical. The
//!   values are `Default::default()` and every instance of the other direction, decoded by
//!   `kafka-protocol` and re-encoded at every version it can be carried in.
//! * **ours → theirs**: the schema walker writes the minimal instance and a few seeded random
//!   instances; `kafka-protocol` decodes them (all bytes consumed) and re-encodes them, and the
//!   bytes must be identical.
//! * **values, both ways**: for every message and version both cover, random walker instances
//!   are encoded by our typed code and decoded by `kafka-protocol`, and encoded by
//!   `kafka-protocol` and decoded by ours; every field of the two decoded values is compared by
//!   its path (both `Debug` trees, parsed), so two same-typed fields bound the wrong way round in
//!   both directions, which identical bytes cannot show, fail. Fields only one crate has are
//!   listed in [`ONE_SIDED`]. A few key messages are also compared by hand-written code.
//!
//! The request and response headers and the standalone data schemas that both crates know are
//! covered the same way. Whole frames (size prefix, header, body) built by `kafka-protocol` go
//! through our frame codec, and the header versions of both crates are compared. Hand-built large
//! values (long arrays and strings, real record batches, big tagged payloads and tag numbers)
//! cover the multi-byte varints that the walker's small instances do not reach.
//!
//! Legitimate differences are listed in [`KNOWN_DIFFERENCES`] with their reason; every entry must
//! still be hit, so the list cannot go stale. Ranges only kwire covers (Kafka after 4.1) are
//! listed in [`ONLY_IN_KWIRE`].

use std::collections::BTreeMap;
use std::fmt::Write as _;

use bytes::{Buf, Bytes, BytesMut};
use kafka_protocol::messages as kp;
use kafka_protocol::protocol::{
    Decodable, Encodable, HeaderVersion, Message as KpMessage, Request as KpRequest,
};
use kwire::codec::{Reader, Str};
use kwire::{ApiKey, Decode, Encode};
use kwire_schema::{self as schema, MessageSchema, walker};

/// Number of seeded random instances written per message and version.
const SEEDS: u64 = 32;

/// What a schema describes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Kind {
    Request,
    Response,
    Header,
    Data,
}

/// The direction of a comparison.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Way {
    /// `kafka-protocol` encodes, we decode and re-encode.
    TheirsToOurs,
    /// We (the schema walker) encode, `kafka-protocol` decodes and re-encodes.
    OursToTheirs,
    /// `kafka-protocol` builds a whole frame (size, header, body), we decode and re-encode it.
    Frame,
}

/// Encoded bytes, or why they could not be produced.
type Encoded = Result<Vec<u8>, String>;

/// A `kafka-protocol` message type, erased to function pointers.
#[derive(Clone, Copy)]
struct Peer {
    versions: (i16, i16),
    /// Encodes `Default::default()` at a version.
    encode_default: fn(i16) -> Encoded,
    /// Decodes at the first version (all input must be consumed) and encodes at the second.
    transcode: fn(&[u8], i16, i16) -> Encoded,
    /// Decodes at a version (all input must be consumed) and prints the value with `Debug`.
    debug: fn(&[u8], i16) -> Result<String, String>,
    /// For API messages: the header version, and a whole frame around a body.
    frame: Option<FramePeer>,
}

#[derive(Clone, Copy)]
struct FramePeer {
    header_version: fn(i16) -> i16,
    build: fn(&[u8], i16) -> Encoded,
}

/// One schema covered by both crates.
#[derive(Clone, Copy)]
struct Case {
    name: &'static str,
    key: i16,
    kind: Kind,
    theirs: Peer,
    ours_versions: (i16, i16),
    /// Decodes with our typed code (all input must be consumed) and re-encodes at that version.
    ours: fn(&[u8], i16) -> Encoded,
    /// Decodes with our typed code (all input must be consumed) and prints the value with
    /// `Debug`.
    ours_debug: fn(&[u8], i16) -> Result<String, String>,
    schema: Option<&'static MessageSchema>,
}

fn kp_encode<T: Encodable>(value: &T, version: i16) -> Encoded {
    let size = value
        .compute_size(version)
        .map_err(|e| format!("kafka-protocol compute_size: {e:#}"))?;
    let mut buf = BytesMut::with_capacity(size);
    value
        .encode(&mut buf, version)
        .map_err(|e| format!("kafka-protocol encode: {e:#}"))?;
    if buf.len() != size {
        return Err(format!(
            "kafka-protocol wrote {} bytes but computed {size}",
            buf.len()
        ));
    }
    Ok(buf.to_vec())
}

fn kp_decode<T: Decodable>(bytes: &[u8], version: i16) -> Result<T, String> {
    let mut buf = Bytes::copy_from_slice(bytes);
    let value =
        T::decode(&mut buf, version).map_err(|e| format!("kafka-protocol decode: {e:#}"))?;
    if buf.has_remaining() {
        return Err(format!(
            "kafka-protocol decode left {} of {} bytes",
            buf.remaining(),
            bytes.len()
        ));
    }
    Ok(value)
}

fn peer<T: KpMessage + Encodable + Decodable + Default + std::fmt::Debug>() -> Peer {
    Peer {
        versions: (T::VERSIONS.min, T::VERSIONS.max),
        encode_default: |v| kp_encode(&T::default(), v),
        transcode: |bytes, from, to| kp_encode(&kp_decode::<T>(bytes, from)?, to),
        debug: |bytes, v| kp_decode::<T>(bytes, v).map(|t| format!("{t:?}")),
        frame: None,
    }
}

fn ours_encode<E: Encode>(value: &E, version: i16) -> Encoded {
    let len = value
        .encoded_len(version)
        .map_err(|e| format!("kwire encoded_len: {e}"))?;
    let mut out = vec![0u8; len];
    let n = value
        .encode(version, &mut out)
        .map_err(|e| format!("kwire encode: {e}"))?;
    if n != len {
        return Err(format!("kwire wrote {n} bytes but encoded_len said {len}"));
    }
    Ok(out)
}

fn ours_request(key: i16, bytes: &[u8], version: i16) -> Encoded {
    let mut r = Reader::new(bytes);
    let v = kwire::Request::decode(&mut r, ApiKey(key), version)
        .map_err(|e| format!("kwire decode: {e}"))?;
    if !r.is_empty() {
        return Err(format!(
            "kwire decode left {} of {} bytes",
            r.remaining(),
            bytes.len()
        ));
    }
    ours_encode(&v, version)
}

fn ours_response(key: i16, bytes: &[u8], version: i16) -> Encoded {
    let mut r = Reader::new(bytes);
    let v = kwire::Response::decode(&mut r, ApiKey(key), version)
        .map_err(|e| format!("kwire decode: {e}"))?;
    if !r.is_empty() {
        return Err(format!(
            "kwire decode left {} of {} bytes",
            r.remaining(),
            bytes.len()
        ));
    }
    ours_encode(&v, version)
}

fn range(r: kwire::codec::VersionRange) -> (i16, i16) {
    (r.min, r.max)
}

/// The two cases (request and response) of one API key.
fn api_cases<R: KpRequest + Default + std::fmt::Debug>() -> [Case; 2]
where
    R::Response: Default + std::fmt::Debug,
{
    let key = ApiKey(R::KEY);
    let short = |name: &'static str| name.rsplit("::").next().unwrap_or(name);
    [
        Case {
            name: short(std::any::type_name::<R>()),
            key: R::KEY,
            kind: Kind::Request,
            theirs: Peer {
                frame: Some(FramePeer {
                    header_version: R::header_version,
                    build: kp_request_frame::<R>,
                }),
                ..peer::<R>()
            },
            ours_versions: range(key.request_versions()),
            ours: |bytes, v| ours_request(R::KEY, bytes, v),
            ours_debug: |bytes, v| {
                let mut r = Reader::new(bytes);
                let value = kwire::Request::decode(&mut r, ApiKey(R::KEY), v)
                    .map_err(|e| format!("kwire decode: {e}"))?;
                r.finish("body").map_err(|e| format!("kwire decode: {e}"))?;
                Ok(format!("{value:?}"))
            },
            schema: schema::request(key),
        },
        Case {
            name: short(std::any::type_name::<R::Response>()),
            key: R::KEY,
            kind: Kind::Response,
            theirs: Peer {
                frame: Some(FramePeer {
                    header_version: <R::Response as HeaderVersion>::header_version,
                    build: kp_response_frame::<R>,
                }),
                ..peer::<R::Response>()
            },
            ours_versions: range(key.response_versions()),
            ours: |bytes, v| ours_response(R::KEY, bytes, v),
            ours_debug: |bytes, v| {
                let mut r = Reader::new(bytes);
                let value = kwire::Response::decode(&mut r, ApiKey(R::KEY), v)
                    .map_err(|e| format!("kwire decode: {e}"))?;
                r.finish("body").map_err(|e| format!("kwire decode: {e}"))?;
                Ok(format!("{value:?}"))
            },
            schema: schema::response(key),
        },
    ]
}

/// Maps every request type of `kafka-protocol` to its API key (`Request::KEY`) and response
/// type (`Request::Response`), so that every key is dispatched without a hand-written block.
macro_rules! api_cases {
    ($($req:ident),* $(,)?) => {
        vec![$(api_cases::<kp::$req>()),*].into_iter().flatten().collect::<Vec<Case>>()
    };
}

/// Headers and standalone data schemas: `kafka-protocol` type and our type of the same name.
macro_rules! data_cases {
    ($($kind:ident $ty:ident),* $(,)?) => {
        vec![$(
            Case {
                name: stringify!($ty),
                key: -1,
                kind: Kind::$kind,
                theirs: peer::<kp::$ty>(),
                ours_versions: range(
                    <kwire::messages::$ty<'_> as kwire::Message>::VALID_VERSIONS,
                ),
                ours: |bytes, v| {
                    let value = kwire::messages::$ty::decode_exact(bytes, v)
                        .map_err(|e| format!("kwire decode: {e}"))?;
                    ours_encode(&value, v)
                },
                ours_debug: |bytes, v| {
                    kwire::messages::$ty::decode_exact(bytes, v)
                        .map(|value| format!("{value:?}"))
                        .map_err(|e| format!("kwire decode: {e}"))
                },
                schema: schema::by_name(stringify!($ty)),
            }
        ),*]
    };
}

fn all_cases() -> Vec<Case> {
    let mut cases = api_cases![
        ProduceRequest,
        FetchRequest,
        ListOffsetsRequest,
        MetadataRequest,
        OffsetCommitRequest,
        OffsetFetchRequest,
        FindCoordinatorRequest,
        JoinGroupRequest,
        HeartbeatRequest,
        LeaveGroupRequest,
        SyncGroupRequest,
        DescribeGroupsRequest,
        ListGroupsRequest,
        SaslHandshakeRequest,
        ApiVersionsRequest,
        CreateTopicsRequest,
        DeleteTopicsRequest,
        DeleteRecordsRequest,
        InitProducerIdRequest,
        OffsetForLeaderEpochRequest,
        AddPartitionsToTxnRequest,
        AddOffsetsToTxnRequest,
        EndTxnRequest,
        WriteTxnMarkersRequest,
        TxnOffsetCommitRequest,
        DescribeAclsRequest,
        CreateAclsRequest,
        DeleteAclsRequest,
        DescribeConfigsRequest,
        AlterConfigsRequest,
        AlterReplicaLogDirsRequest,
        DescribeLogDirsRequest,
        SaslAuthenticateRequest,
        CreatePartitionsRequest,
        CreateDelegationTokenRequest,
        RenewDelegationTokenRequest,
        ExpireDelegationTokenRequest,
        DescribeDelegationTokenRequest,
        DeleteGroupsRequest,
        ElectLeadersRequest,
        IncrementalAlterConfigsRequest,
        AlterPartitionReassignmentsRequest,
        ListPartitionReassignmentsRequest,
        OffsetDeleteRequest,
        DescribeClientQuotasRequest,
        AlterClientQuotasRequest,
        DescribeUserScramCredentialsRequest,
        AlterUserScramCredentialsRequest,
        VoteRequest,
        BeginQuorumEpochRequest,
        EndQuorumEpochRequest,
        DescribeQuorumRequest,
        AlterPartitionRequest,
        UpdateFeaturesRequest,
        EnvelopeRequest,
        FetchSnapshotRequest,
        DescribeClusterRequest,
        DescribeProducersRequest,
        BrokerRegistrationRequest,
        BrokerHeartbeatRequest,
        UnregisterBrokerRequest,
        DescribeTransactionsRequest,
        ListTransactionsRequest,
        AllocateProducerIdsRequest,
        ConsumerGroupHeartbeatRequest,
        ConsumerGroupDescribeRequest,
        ControllerRegistrationRequest,
        GetTelemetrySubscriptionsRequest,
        PushTelemetryRequest,
        AssignReplicasToDirsRequest,
        ListConfigResourcesRequest,
        DescribeTopicPartitionsRequest,
        ShareGroupHeartbeatRequest,
        ShareGroupDescribeRequest,
        ShareFetchRequest,
        ShareAcknowledgeRequest,
        AddRaftVoterRequest,
        RemoveRaftVoterRequest,
        UpdateRaftVoterRequest,
        InitializeShareGroupStateRequest,
        ReadShareGroupStateRequest,
        WriteShareGroupStateRequest,
        DeleteShareGroupStateRequest,
        ReadShareGroupStateSummaryRequest,
        DescribeShareGroupOffsetsRequest,
        AlterShareGroupOffsetsRequest,
        DeleteShareGroupOffsetsRequest,
    ];
    cases.extend(data_cases![
        Header RequestHeader,
        Header ResponseHeader,
        Data ConsumerProtocolAssignment,
        Data ConsumerProtocolSubscription,
        Data DefaultPrincipalData,
        Data EndTxnMarker,
        Data KRaftVersionRecord,
        Data LeaderChangeMessage,
        Data SnapshotFooterRecord,
        Data SnapshotHeaderRecord,
        Data VotersRecord,
    ]);
    cases
}

/// A difference between the crates that is legitimate, with its reason.
struct Known {
    /// API key (-1 for headers and data schemas).
    key: i16,
    kind: Kind,
    /// Schema name, for headers and data schemas.
    name: Option<&'static str>,
    versions: (i16, i16),
    way: Way,
    /// A text the failure detail must contain, to keep the skip narrow.
    detail: &'static str,
    reason: &'static str,
}

/// `kafka-protocol` writes a null wherever its value holds one, also at versions where the field
/// is not nullable (Java's generated writers throw there: protocol notes, section 8, rule 4; and
/// Java's readers reject it: "non-nullable field X was serialized as null", section 5.2).
/// A value decoded at a newer version, where the field may be null, and re-encoded by
/// `kafka-protocol` at an older one is therefore not a legal message, and our decoder rightly
/// rejects it.
const NULL_AT_OLD_VERSION: &str = "kafka-protocol writes null into a field that is not nullable at this version \
     (value taken from a version where it is); kwire rejects the message, as Java does";

/// `kafka-protocol` generates `let version = ...` for a data schema's own `Version` field, which
/// shadows the schema version, and decodes the nested structs at the value of that field instead.
const VERSION_FIELD_SHADOWS: &str = "kafka-protocol decodes the nested structs of a data schema with a `Version` field \
     at that field's value instead of the schema version (its generated decoder shadows `version`)";

/// Every legitimate difference. Each entry must be hit by at least one comparison.
const KNOWN_DIFFERENCES: &[Known] = &[
    // JoinGroupResponse.ProtocolName is nullable in versions 7+.
    Known {
        key: 11,
        kind: Kind::Response,
        name: None,
        versions: (0, 6),
        way: Way::TheirsToOurs,
        detail: "JoinGroupResponse.ProtocolName at byte",
        reason: NULL_AT_OLD_VERSION,
    },
    // OffsetFetchRequest.Topics is nullable in versions 2+.
    Known {
        key: 9,
        kind: Kind::Request,
        name: None,
        versions: (0, 1),
        way: Way::TheirsToOurs,
        detail: "OffsetFetchRequest.Topics at byte",
        reason: NULL_AT_OLD_VERSION,
    },
    // MetadataRequest.Topics is nullable in versions 1+.
    Known {
        key: 3,
        kind: Kind::Request,
        name: None,
        versions: (0, 0),
        way: Way::TheirsToOurs,
        detail: "MetadataRequest.Topics at byte",
        reason: NULL_AT_OLD_VERSION,
    },
    // MetadataRequest.Topics.Name is nullable in versions 10+.
    Known {
        key: 3,
        kind: Kind::Request,
        name: None,
        versions: (0, 9),
        way: Way::TheirsToOurs,
        detail: "MetadataRequest.Topics.Name at byte",
        reason: NULL_AT_OLD_VERSION,
    },
    // MetadataResponse.Topics.Name is nullable in versions 12+.
    Known {
        key: 3,
        kind: Kind::Response,
        name: None,
        versions: (0, 11),
        way: Way::TheirsToOurs,
        detail: "MetadataResponse.Topics.Name at byte",
        reason: NULL_AT_OLD_VERSION,
    },
    // DeleteTopicsResponse.Responses.Name is nullable in versions 6+.
    Known {
        key: 20,
        kind: Kind::Response,
        name: None,
        versions: (0, 5),
        way: Way::TheirsToOurs,
        detail: "DeleteTopicsResponse.Responses.Name at byte",
        reason: NULL_AT_OLD_VERSION,
    },
    // LeaderChangeMessage v1 adds Voter.VoterDirectoryId.
    Known {
        key: -1,
        kind: Kind::Data,
        name: Some("LeaderChangeMessage"),
        versions: (0, 1),
        way: Way::OursToTheirs,
        detail: "kafka-protocol decode",
        reason: VERSION_FIELD_SHADOWS,
    },
    // VotersRecord has a single version: any other value of its `Version` field is rejected by
    // the nested struct decoders.
    Known {
        key: -1,
        kind: Kind::Data,
        name: Some("VotersRecord"),
        versions: (0, 0),
        way: Way::OursToTheirs,
        detail: "kafka-protocol decode: specified version not supported",
        reason: VERSION_FIELD_SHADOWS,
    },
];

fn known(case: &Case, version: i16, way: Way, detail: &str) -> Option<usize> {
    KNOWN_DIFFERENCES.iter().position(|k| {
        k.key == case.key
            && k.kind == case.kind
            && k.name.is_none_or(|n| n == case.name)
            && (k.versions.0..=k.versions.1).contains(&version)
            && k.way == way
            && detail.contains(k.detail)
    })
}

fn hex(bytes: &[u8]) -> String {
    const MAX: usize = 160;
    let mut s = String::new();
    for b in bytes.iter().take(MAX) {
        let _ = write!(s, "{b:02x}");
    }
    if bytes.len() > MAX {
        let _ = write!(s, "…(+{} bytes)", bytes.len() - MAX);
    }
    s
}

fn describe_diff(expected: &[u8], got: &[u8]) -> String {
    let at = expected
        .iter()
        .zip(got)
        .position(|(a, b)| a != b)
        .unwrap_or(expected.len().min(got.len()));
    format!(
        "first difference at byte {at}; expected {} bytes: {}; got {} bytes: {}",
        expected.len(),
        hex(expected),
        got.len(),
        hex(got)
    )
}

/// Collected outcomes of the whole run.
#[derive(Default)]
struct Outcome {
    /// Message-versions compared, per way.
    compared: BTreeMap<Way, usize>,
    /// Instances compared, per way.
    instances: BTreeMap<Way, usize>,
    /// Instances skipped because a known difference applies, per way.
    skipped: BTreeMap<Way, usize>,
    /// Hits per known-difference entry.
    hits: Vec<usize>,
    /// Unexplained mismatches.
    failures: Vec<String>,
    /// Values that `kafka-protocol` could not encode at a version (not a mismatch).
    not_encodable: usize,
}

impl Outcome {
    fn check(
        &mut self,
        case: &Case,
        version: i16,
        way: Way,
        what: &str,
        result: Result<(), String>,
    ) {
        *self.instances.entry(way).or_default() += 1;
        let Err(detail) = result else { return };
        if let Some(i) = known(case, version, way, &detail) {
            self.hits[i] += 1;
            *self.skipped.entry(way).or_default() += 1;
            return;
        }
        self.failures.push(format!(
            "{} (key {}) v{version} {way:?} [{what}]: {detail}",
            case.name, case.key
        ));
    }
}

fn compare_ours(case: &Case, bytes: &[u8], version: i16) -> Result<(), String> {
    let ours = (case.ours)(bytes, version).map_err(|e| format!("{e}; input {}", hex(bytes)))?;
    if ours != bytes {
        return Err(describe_diff(bytes, &ours));
    }
    Ok(())
}

/// The walker's minimal instance and `SEEDS` random instances of a schema at a version.
fn walker_instances(schema: &MessageSchema, version: i16) -> Vec<(String, Encoded)> {
    fn run<S: walker::Source>(schema: &MessageSchema, version: i16, source: S) -> Encoded {
        let len =
            walker::instance_len(schema, version, source.clone()).map_err(|e| e.to_string())?;
        let mut buf = vec![0u8; len];
        walker::write_instance(schema, version, source, &mut buf).map_err(|e| e.to_string())?;
        Ok(buf)
    }
    let mut all = vec![("minimal".to_string(), run(schema, version, walker::Minimal))];
    for seed in 0..SEEDS {
        let seed = seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) ^ u64::from(version.unsigned_abs());
        all.push((
            format!("seed {seed:#x}"),
            run(schema, version, kwire_testkit::Random::new(seed)),
        ));
    }
    all
}

fn intersect(a: (i16, i16), b: (i16, i16)) -> std::ops::RangeInclusive<i16> {
    a.0.max(b.0)..=a.1.min(b.1)
}

// ---------------------------------------------------------------------------------------------
// Large values: the walker writes short strings and arrays, so multi-byte varint lengths, long
// tagged payloads, large tag numbers and real record batches come from hand-built values.
// ---------------------------------------------------------------------------------------------

/// A hand-built `kafka-protocol` value, encodable at some versions.
struct Large {
    key: i16,
    kind: Kind,
    label: &'static str,
    note: &'static str,
    encode: Box<dyn Fn(i16) -> Encoded>,
}

fn large<T: Encodable + 'static>(key: ApiKey, kind: Kind, note: &'static str, value: T) -> Large {
    Large {
        key: key.0,
        kind,
        label: "large",
        note,
        encode: Box::new(move |v| kp_encode(&value, v)),
    }
}

fn text(n: usize, unit: &str) -> kafka_protocol::protocol::StrBytes {
    kafka_protocol::protocol::StrBytes::from_string(unit.repeat(n))
}

fn topic(n: usize) -> kp::TopicName {
    kp::TopicName(text(n, "t"))
}

/// A UUID of `kafka-protocol`'s UUID type (which the tests cannot name).
fn uuid_of<U: TryFrom<Vec<u8>, Error: std::fmt::Debug>>(seed: u8) -> U {
    let bytes: Vec<u8> = (0..16u8)
        .map(|i| seed.wrapping_mul(31).wrapping_add(i))
        .collect();
    U::try_from(bytes).expect("16 bytes")
}

/// Unknown tagged fields with multi-byte tags and sizes, above every tag the schemas define.
fn unknown_tags() -> BTreeMap<i32, Bytes> {
    BTreeMap::from([
        (200, Bytes::from(vec![0xa5; 300])),
        (70_000, Bytes::from_static(b"\x01")),
    ])
}

/// Three record batches' worth of records (one value of 20000 bytes), as a v2 batch.
fn record_batch() -> Bytes {
    use kafka_protocol::records::{
        Compression, Record, RecordBatchEncoder, RecordEncodeOptions, TimestampType,
    };
    let record = |offset: i64, value: Vec<u8>| Record {
        transactional: false,
        control: false,
        delete_horizon: false,
        partition_leader_epoch: 3,
        producer_id: 77,
        producer_epoch: 1,
        timestamp_type: TimestampType::Creation,
        offset,
        sequence: i32::try_from(offset).unwrap_or(0),
        timestamp: 1_700_000_000_000 + offset,
        key: Some(Bytes::from(format!("key-{offset}"))),
        value: Some(Bytes::from(value)),
        headers: Default::default(),
    };
    let records = [
        record(0, vec![1; 10]),
        record(1, vec![2; 20_000]),
        record(2, Vec::new()),
    ];
    let mut buf = BytesMut::new();
    RecordBatchEncoder::encode(
        &mut buf,
        &records,
        &RecordEncodeOptions {
            version: 2,
            compression: Compression::None,
        },
    )
    .expect("kafka-protocol record batch");
    buf.freeze()
}

fn large_values() -> Vec<Large> {
    let mut all = Vec::new();
    let batch = record_batch();

    // MetadataResponse: long arrays and strings.
    for tagged in [false, true] {
        let mut r = kp::MetadataResponse::default();
        r.throttle_time_ms = 1234;
        r.cluster_id = Some(text(300, "c"));
        r.controller_id = kp::BrokerId(7);
        r.brokers = (0..150)
            .map(|i| {
                let mut b = kp::metadata_response::MetadataResponseBroker::default();
                b.node_id = kp::BrokerId(i);
                b.host = text(200, "h");
                b.port = 9092 + i;
                b.rack = (i % 2 == 0).then(|| text(70, "é"));
                if tagged {
                    b.unknown_tagged_fields = unknown_tags();
                }
                b
            })
            .collect();
        r.topics = (0..2u8)
            .map(|i| {
                let mut t = kp::metadata_response::MetadataResponseTopic::default();
                t.name = Some(topic(130 + usize::from(i)));
                t.topic_id = uuid_of(i);
                t.is_internal = i == 1;
                t.partitions = (0..140)
                    .map(|p| {
                        let mut part = kp::metadata_response::MetadataResponsePartition::default();
                        part.partition_index = p;
                        part.leader_id = kp::BrokerId(p % 5);
                        part.leader_epoch = p * 3;
                        part.replica_nodes = (0..130).map(kp::BrokerId).collect();
                        part.isr_nodes = (0..2).map(kp::BrokerId).collect();
                        part
                    })
                    .collect();
                t
            })
            .collect();
        if tagged {
            r.unknown_tagged_fields = unknown_tags();
        }
        all.push(large(
            ApiKey::METADATA,
            Kind::Response,
            if tagged {
                "with tagged fields"
            } else {
                "without tagged fields"
            },
            r,
        ));
    }

    // MetadataRequest: 200 topics.
    let mut r = kp::MetadataRequest::default();
    r.topics = Some(
        (0..200u8)
            .map(|i| {
                let mut t = kp::metadata_request::MetadataRequestTopic::default();
                t.name = Some(topic(140));
                t.topic_id = uuid_of(i);
                t
            })
            .collect(),
    );
    r.allow_auto_topic_creation = true;
    all.push(large(ApiKey::METADATA, Kind::Request, "200 topics", r));

    // ProduceRequest: real record batches, long names.
    for by_id in [false, true] {
        let mut r = kp::ProduceRequest::default();
        r.transactional_id = Some(kp::TransactionalId(text(150, "x")));
        r.acks = -1;
        r.timeout_ms = 30_000;
        r.topic_data = (0..2u8)
            .map(|i| {
                let mut t = kp::produce_request::TopicProduceData::default();
                if by_id {
                    t.topic_id = uuid_of(i);
                } else {
                    t.name = topic(200);
                }
                t.partition_data = (0..2)
                    .map(|p| {
                        let mut d = kp::produce_request::PartitionProduceData::default();
                        d.index = p;
                        d.records = Some(batch.clone());
                        d
                    })
                    .collect();
                t
            })
            .collect();
        all.push(large(
            ApiKey::PRODUCE,
            Kind::Request,
            if by_id {
                "topics by id"
            } else {
                "topics by name"
            },
            r,
        ));
    }

    // FetchRequest: tagged fields (cluster id, replica state), many topics and partitions.
    for tagged in [false, true] {
        let mut r = kp::FetchRequest::default();
        r.max_wait_ms = 500;
        r.min_bytes = 1;
        r.max_bytes = 50 << 20;
        r.isolation_level = 1;
        r.session_id = 99;
        r.session_epoch = 5;
        if tagged {
            r.cluster_id = Some(text(200, "k"));
            r.replica_state.replica_id = kp::BrokerId(3);
            r.replica_state.replica_epoch = 1 << 40;
            r.rack_id = text(129, "r");
            r.unknown_tagged_fields = unknown_tags();
        }
        r.topics = (0..130u8)
            .map(|i| {
                let mut t = kp::fetch_request::FetchTopic::default();
                t.topic = topic(20);
                t.topic_id = uuid_of(i);
                t.partitions = (0..3)
                    .map(|p| {
                        let mut part = kp::fetch_request::FetchPartition::default();
                        part.partition = p;
                        part.fetch_offset = 1 << 33;
                        part.partition_max_bytes = 1 << 20;
                        if tagged {
                            part.replica_directory_id = uuid_of(200);
                        }
                        part
                    })
                    .collect();
                t
            })
            .collect();
        all.push(large(
            ApiKey::FETCH,
            Kind::Request,
            if tagged {
                "with tagged fields"
            } else {
                "without tagged fields"
            },
            r,
        ));
    }

    // FetchResponse: records, aborted transactions, tagged structs and node endpoints.
    for tagged in [false, true] {
        let mut r = kp::FetchResponse::default();
        r.throttle_time_ms = 1;
        r.session_id = 42;
        r.responses = (0..2u8)
            .map(|i| {
                let mut t = kp::fetch_response::FetchableTopicResponse::default();
                t.topic = topic(150);
                t.topic_id = uuid_of(i);
                t.partitions = (0..3)
                    .map(|p| {
                        let mut part = kp::fetch_response::PartitionData::default();
                        part.partition_index = p;
                        part.high_watermark = 1 << 35;
                        part.last_stable_offset = 1 << 34;
                        part.log_start_offset = 12;
                        part.aborted_transactions = Some(
                            (0..150)
                                .map(|n| {
                                    let mut a = kp::fetch_response::AbortedTransaction::default();
                                    a.producer_id = kp::ProducerId(n);
                                    a.first_offset = n * 10;
                                    a
                                })
                                .collect(),
                        );
                        part.records = Some(batch.clone());
                        if tagged {
                            part.diverging_epoch.epoch = 4;
                            part.diverging_epoch.end_offset = 1000;
                            part.current_leader.leader_id = kp::BrokerId(2);
                            part.current_leader.leader_epoch = 9;
                            part.snapshot_id.end_offset = 55;
                            part.snapshot_id.epoch = 6;
                            part.unknown_tagged_fields = unknown_tags();
                        }
                        part
                    })
                    .collect();
                t
            })
            .collect();
        if tagged {
            r.node_endpoints = (0..3)
                .map(|i| {
                    let mut e = kp::fetch_response::NodeEndpoint::default();
                    e.node_id = kp::BrokerId(i);
                    e.host = text(100, "n");
                    e.port = 9093;
                    e.rack = Some(text(10, "z"));
                    e
                })
                .collect();
        }
        all.push(large(
            ApiKey::FETCH,
            Kind::Response,
            if tagged {
                "with tagged fields"
            } else {
                "without tagged fields"
            },
            r,
        ));
    }

    // ApiVersionsResponse: a long key list and a tagged feature list longer than 127 bytes.
    for tagged in [false, true] {
        let mut r = kp::ApiVersionsResponse::default();
        r.api_keys = (0..200)
            .map(|k| {
                let mut a = kp::api_versions_response::ApiVersion::default();
                a.api_key = k;
                a.min_version = 0;
                a.max_version = k % 17;
                a
            })
            .collect();
        if tagged {
            r.supported_features = (0..40)
                .map(|i| {
                    let mut f = kp::api_versions_response::SupportedFeatureKey::default();
                    f.name = text(5 + i, "f");
                    f.min_version = 1;
                    f.max_version = 3;
                    f
                })
                .collect();
            r.finalized_features_epoch = 1 << 40;
            r.finalized_features = (0..3)
                .map(|i| {
                    let mut f = kp::api_versions_response::FinalizedFeatureKey::default();
                    f.name = text(3 + i, "g");
                    f.max_version_level = 2;
                    f.min_version_level = 1;
                    f
                })
                .collect();
            r.zk_migration_ready = true;
        }
        all.push(large(
            ApiKey::API_VERSIONS,
            Kind::Response,
            if tagged {
                "with tagged fields"
            } else {
                "without tagged fields"
            },
            r,
        ));
    }
    all
}

// ---------------------------------------------------------------------------------------------
// Whole frames: size prefix, header and body.
// ---------------------------------------------------------------------------------------------

const CLIENT_ID: &str = "differential-client";
const CORRELATION_ID: i32 = 0x0102_0304;

/// Builds a whole request frame with `kafka-protocol` around a body that it decodes at `version`.
fn kp_request_frame<R: KpRequest>(body: &[u8], version: i16) -> Encoded {
    let value = kp_decode::<R>(body, version)?;
    let mut header = kp::RequestHeader::default();
    header.request_api_key = R::KEY;
    header.request_api_version = version;
    header.correlation_id = CORRELATION_ID;
    header.client_id = Some(kafka_protocol::protocol::StrBytes::from_static_str(
        CLIENT_ID,
    ));
    let mut payload = kp_encode(&header, R::header_version(version))?;
    payload.extend(kp_encode(&value, version)?);
    let mut frame = i32::try_from(payload.len()).unwrap().to_be_bytes().to_vec();
    frame.extend(payload);
    Ok(frame)
}

/// Builds a whole response frame with `kafka-protocol`.
fn kp_response_frame<R: KpRequest>(body: &[u8], version: i16) -> Encoded {
    let value = kp_decode::<R::Response>(body, version)?;
    let mut header = kp::ResponseHeader::default();
    header.correlation_id = CORRELATION_ID;
    let mut payload = kp_encode(
        &header,
        <R::Response as HeaderVersion>::header_version(version),
    )?;
    payload.extend(kp_encode(&value, version)?);
    let mut frame = i32::try_from(payload.len()).unwrap().to_be_bytes().to_vec();
    frame.extend(payload);
    Ok(frame)
}

/// Dissects a whole frame, decodes it with our code and re-encodes it.
fn ours_frame(kind: Kind, key: i16, version: i16, frame: &[u8]) -> Encoded {
    // The dissector reads every frame the peer writes, too.
    {
        let mut tree = String::new();
        match kind {
            Kind::Request => kwire_schema::describe::write_request_frame(frame, &mut tree),
            _ => {
                kwire_schema::describe::write_response_frame(frame, ApiKey(key), version, &mut tree)
            }
        }
        .map_err(|e| format!("kwire dissect: {e}\n{tree}"))?;
    }
    let mut out = vec![0u8; frame.len() + 64];
    let n = match kind {
        Kind::Request => {
            let (header, body) = kwire::frame::decode_request(frame)
                .map_err(|e| format!("kwire decode_request: {e}"))?;
            if header.client_id != Some(Str::new(CLIENT_ID))
                || header.correlation_id != CORRELATION_ID
            {
                return Err(format!("kwire decoded header {header:?}"));
            }
            kwire::frame::encode_request(&header, &body, &mut out)
        }
        _ => {
            let (header, body) = kwire::frame::decode_response(frame, ApiKey(key), version)
                .map_err(|e| format!("kwire decode_response: {e}"))?;
            if header.correlation_id != CORRELATION_ID {
                return Err(format!("kwire decoded header {header:?}"));
            }
            kwire::frame::encode_response(&header, &body, version, &mut out)
        }
    }
    .map_err(|e| format!("kwire frame encode: {e}"))?;
    out.truncate(n);
    Ok(out)
}

/// Why a range is covered by kwire only.
const NEWER_THAN_4_1: &str =
    "added to Kafka after 4.1; kafka-protocol 0.18 is generated from the 4.1 schemas";

/// Why a range is covered by kwire only.
const REMOVED_IN_4_0: &str = "removed in Kafka 4.0 (generated from the 3.9 schemas); \
     kafka-protocol 0.18 starts at the 4.0 minimum";

/// Why a whole removed API is covered by kwire only.
const API_REMOVED_IN_4_0: &str = "ZooKeeper-mode API removed in Kafka 4.0 (generated from the \
     3.9 schemas); kafka-protocol 0.18 generates no type for it";

/// API keys and versions that kwire covers and kafka-protocol 0.18 does not, so nothing can
/// be compared there: (key, kind, versions, reason). Checked against both crates' version tables,
/// so the list is exact. There is no range that only kafka-protocol covers.
const ONLY_IN_KWIRE: &[(i16, Kind, (i16, i16), &str)] = &[
    (0, Kind::Request, (0, 2), REMOVED_IN_4_0),
    (0, Kind::Response, (0, 2), REMOVED_IN_4_0),
    (1, Kind::Request, (0, 3), REMOVED_IN_4_0),
    (1, Kind::Response, (0, 3), REMOVED_IN_4_0),
    (2, Kind::Request, (0, 0), REMOVED_IN_4_0),
    (2, Kind::Response, (0, 0), REMOVED_IN_4_0),
    (4, Kind::Request, (0, 7), API_REMOVED_IN_4_0),
    (4, Kind::Response, (0, 7), API_REMOVED_IN_4_0),
    (5, Kind::Request, (0, 4), API_REMOVED_IN_4_0),
    (5, Kind::Response, (0, 4), API_REMOVED_IN_4_0),
    (6, Kind::Request, (0, 8), API_REMOVED_IN_4_0),
    (6, Kind::Response, (0, 8), API_REMOVED_IN_4_0),
    (7, Kind::Request, (0, 3), API_REMOVED_IN_4_0),
    (7, Kind::Response, (0, 3), API_REMOVED_IN_4_0),
    (8, Kind::Request, (0, 1), REMOVED_IN_4_0),
    (8, Kind::Response, (0, 1), REMOVED_IN_4_0),
    (9, Kind::Request, (0, 0), REMOVED_IN_4_0),
    (9, Kind::Response, (0, 0), REMOVED_IN_4_0),
    (19, Kind::Request, (0, 1), REMOVED_IN_4_0),
    (19, Kind::Response, (0, 1), REMOVED_IN_4_0),
    (20, Kind::Request, (0, 0), REMOVED_IN_4_0),
    (20, Kind::Response, (0, 0), REMOVED_IN_4_0),
    (23, Kind::Request, (0, 1), REMOVED_IN_4_0),
    (23, Kind::Response, (0, 1), REMOVED_IN_4_0),
    (27, Kind::Request, (0, 0), REMOVED_IN_4_0),
    (27, Kind::Response, (0, 0), REMOVED_IN_4_0),
    (29, Kind::Request, (0, 0), REMOVED_IN_4_0),
    (29, Kind::Response, (0, 0), REMOVED_IN_4_0),
    (30, Kind::Request, (0, 0), REMOVED_IN_4_0),
    (30, Kind::Response, (0, 0), REMOVED_IN_4_0),
    (31, Kind::Request, (0, 0), REMOVED_IN_4_0),
    (31, Kind::Response, (0, 0), REMOVED_IN_4_0),
    (32, Kind::Request, (0, 0), REMOVED_IN_4_0),
    (32, Kind::Response, (0, 0), REMOVED_IN_4_0),
    (34, Kind::Request, (0, 0), REMOVED_IN_4_0),
    (34, Kind::Response, (0, 0), REMOVED_IN_4_0),
    (35, Kind::Request, (0, 0), REMOVED_IN_4_0),
    (35, Kind::Response, (0, 0), REMOVED_IN_4_0),
    (38, Kind::Request, (0, 0), REMOVED_IN_4_0),
    (38, Kind::Response, (0, 0), REMOVED_IN_4_0),
    (39, Kind::Request, (0, 0), REMOVED_IN_4_0),
    (39, Kind::Response, (0, 0), REMOVED_IN_4_0),
    (40, Kind::Request, (0, 0), REMOVED_IN_4_0),
    (40, Kind::Response, (0, 0), REMOVED_IN_4_0),
    (41, Kind::Request, (0, 0), REMOVED_IN_4_0),
    (41, Kind::Response, (0, 0), REMOVED_IN_4_0),
    (56, Kind::Request, (0, 1), REMOVED_IN_4_0),
    (56, Kind::Response, (0, 1), REMOVED_IN_4_0),
    (2, Kind::Request, (11, 11), NEWER_THAN_4_1),
    (2, Kind::Response, (11, 11), NEWER_THAN_4_1),
    (8, Kind::Request, (10, 10), NEWER_THAN_4_1),
    (9, Kind::Request, (10, 10), NEWER_THAN_4_1),
    (18, Kind::Request, (5, 5), NEWER_THAN_4_1),
    (18, Kind::Response, (5, 5), NEWER_THAN_4_1),
    (22, Kind::Request, (6, 6), NEWER_THAN_4_1),
    (27, Kind::Request, (2, 2), NEWER_THAN_4_1),
    (27, Kind::Response, (2, 2), NEWER_THAN_4_1),
    (28, Kind::Request, (6, 6), NEWER_THAN_4_1),
    (28, Kind::Response, (6, 6), NEWER_THAN_4_1),
    (35, Kind::Request, (5, 5), NEWER_THAN_4_1),
    (35, Kind::Response, (5, 5), NEWER_THAN_4_1),
    (42, Kind::Request, (3, 3), NEWER_THAN_4_1),
    (42, Kind::Response, (3, 3), NEWER_THAN_4_1),
    (63, Kind::Request, (2, 2), NEWER_THAN_4_1),
    (63, Kind::Response, (2, 2), NEWER_THAN_4_1),
    (78, Kind::Request, (2, 2), NEWER_THAN_4_1),
    (78, Kind::Response, (2, 2), NEWER_THAN_4_1),
    (79, Kind::Request, (2, 2), NEWER_THAN_4_1),
    (79, Kind::Response, (2, 2), NEWER_THAN_4_1),
    (80, Kind::Request, (1, 1), NEWER_THAN_4_1),
    (80, Kind::Response, (1, 1), NEWER_THAN_4_1),
    (85, Kind::Request, (1, 1), NEWER_THAN_4_1),
    (85, Kind::Response, (1, 1), NEWER_THAN_4_1),
    (87, Kind::Request, (1, 1), NEWER_THAN_4_1),
    (87, Kind::Response, (1, 1), NEWER_THAN_4_1),
    (
        88,
        Kind::Request,
        (0, 1),
        "StreamsGroupHeartbeat (KIP-1071): kafka-protocol 0.18 generates no type for it",
    ),
    (
        88,
        Kind::Response,
        (0, 1),
        "StreamsGroupHeartbeat (KIP-1071): kafka-protocol 0.18 generates no type for it",
    ),
    (
        89,
        Kind::Request,
        (0, 1),
        "StreamsGroupDescribe (KIP-1071): kafka-protocol 0.18 generates no type for it",
    ),
    (
        89,
        Kind::Response,
        (0, 1),
        "StreamsGroupDescribe (KIP-1071): kafka-protocol 0.18 generates no type for it",
    ),
    (90, Kind::Request, (1, 1), NEWER_THAN_4_1),
    (90, Kind::Response, (1, 1), NEWER_THAN_4_1),
    (93, Kind::Request, (0, 0), NEWER_THAN_4_1),
    (93, Kind::Response, (0, 0), NEWER_THAN_4_1),
    (94, Kind::Request, (0, 0), NEWER_THAN_4_1),
    (94, Kind::Response, (0, 0), NEWER_THAN_4_1),
];

/// Header and data schema versions that kwire covers and kafka-protocol 0.18 does not:
/// (schema, versions, reason).
const HEADERS_ONLY_IN_KWIRE: &[(&str, (i16, i16), &str)] = &[(
    "RequestHeader",
    (0, 0),
    "request header v0 (no client id), used only by ControlledShutdown v0; removed in Kafka 4.0",
)];

/// The ranges of `ours` outside `theirs` (at most one below and one above).
fn outside(ours: (i16, i16), theirs: Option<(i16, i16)>) -> Vec<(i16, i16)> {
    if ours.0 > ours.1 {
        return Vec::new();
    }
    let Some(theirs) = theirs else {
        return vec![ours];
    };
    let mut gaps = Vec::new();
    if ours.0 < theirs.0 {
        gaps.push((ours.0, ours.1.min(theirs.0 - 1)));
    }
    if ours.1 > theirs.1 {
        gaps.push((ours.0.max(theirs.1 + 1), ours.1));
    }
    gaps
}

#[test]
fn coverage_gaps_are_documented() {
    let cases = all_cases();
    let mut only_ours = Vec::new();
    let mut only_theirs = Vec::new();
    for key in ApiKey::all() {
        for kind in [Kind::Request, Kind::Response] {
            let ours = match kind {
                Kind::Request => range(key.request_versions()),
                _ => range(key.response_versions()),
            };
            let theirs = cases
                .iter()
                .find(|c| c.key == key.0 && c.kind == kind)
                .map(|c| c.theirs.versions);
            for gap in outside(ours, theirs) {
                only_ours.push((key.0, kind, gap));
            }
            if let Some(theirs) = theirs {
                for gap in outside(theirs, Some(ours)) {
                    only_theirs.push((key.0, kind, gap));
                }
            }
        }
    }
    // Headers and data schemas: the same ranges, except the documented ones.
    let mut header_gaps = Vec::new();
    for case in cases.iter().filter(|c| c.key < 0) {
        for gap in outside(case.ours_versions, Some(case.theirs.versions)) {
            header_gaps.push((case.name, gap));
        }
        assert!(
            outside(case.theirs.versions, Some(case.ours_versions)).is_empty(),
            "{}: versions only kafka-protocol covers",
            case.name
        );
    }
    let documented_headers: Vec<_> = HEADERS_ONLY_IN_KWIRE
        .iter()
        .map(|&(name, versions, _)| (name, versions))
        .collect();
    assert_eq!(
        header_gaps, documented_headers,
        "undocumented kwire-only header or data ranges"
    );
    let mut documented: Vec<_> = ONLY_IN_KWIRE
        .iter()
        .map(|&(key, kind, versions, _)| (key, kind, versions))
        .collect();
    documented.sort();
    only_ours.sort();
    println!("covered by kwire only (nothing to compare):");
    for (key, kind, versions, reason) in ONLY_IN_KWIRE {
        println!(
            "  {:?} {kind:?} v{}-{}: {reason}",
            ApiKey(*key),
            versions.0,
            versions.1
        );
    }
    assert_eq!(only_ours, documented, "undocumented kwire-only ranges");
    assert!(
        only_theirs.is_empty(),
        "ranges only kafka-protocol covers: {only_theirs:?}"
    );
}

/// Compares the header version of an API message and round-trips a whole frame built by
/// `kafka-protocol` around `body` through our frame codec.
fn check_frame(out: &mut Outcome, case: &Case, version: i16, label: &str, body: &[u8]) {
    let Some(frame) = case.theirs.frame else {
        return;
    };
    let key = ApiKey(case.key);
    let ours_hv = match case.kind {
        Kind::Request => kwire::header::request_header_version(key, version),
        _ => kwire::header::response_header_version(key, version),
    };
    let theirs_hv = (frame.header_version)(version);
    let r = if ours_hv == theirs_hv {
        (frame.build)(body, version).and_then(|bytes| {
            let ours = ours_frame(case.kind, case.key, version, &bytes)?;
            if ours == bytes {
                Ok(())
            } else {
                Err(describe_diff(&bytes, &ours))
            }
        })
    } else {
        Err(format!(
            "header version: ours {ours_hv}, theirs {theirs_hv}"
        ))
    };
    out.check(case, version, Way::Frame, label, r);
}

#[test]
fn differential_against_kafka_protocol() {
    let cases = all_cases();
    let mut out = Outcome {
        hits: vec![0; KNOWN_DIFFERENCES.len()],
        ..Outcome::default()
    };

    for case in &cases {
        let versions = intersect(case.theirs.versions, case.ours_versions);
        for v in versions.clone() {
            *out.compared.entry(Way::TheirsToOurs).or_default() += 1;
            if case.theirs.frame.is_some() {
                *out.compared.entry(Way::Frame).or_default() += 1;
            }
            match (case.theirs.encode_default)(v) {
                Ok(bytes) => {
                    let r = compare_ours(case, &bytes, v);
                    out.check(case, v, Way::TheirsToOurs, "default", r);
                    check_frame(&mut out, case, v, "default", &bytes);
                }
                Err(_) => out.not_encodable += 1,
            }
        }
        let Some(schema) = case.schema else {
            out.failures.push(format!(
                "{} (key {}): no schema in kwire",
                case.name, case.key
            ));
            continue;
        };
        for v in versions.clone() {
            *out.compared.entry(Way::OursToTheirs).or_default() += 1;
            for (label, bytes) in walker_instances(schema, v) {
                let bytes = match bytes {
                    Ok(b) => b,
                    Err(e) => {
                        out.failures.push(format!(
                            "{} (key {}) v{v} [{label}]: walker failed: {e}",
                            case.name, case.key
                        ));
                        continue;
                    }
                };
                // ours → theirs: decode and re-encode with kafka-protocol at the same version.
                let r = (case.theirs.transcode)(&bytes, v, v).and_then(|theirs| {
                    if theirs == bytes {
                        Ok(())
                    } else {
                        Err(describe_diff(&bytes, &theirs))
                    }
                });
                let decoded = r.is_ok();
                out.check(case, v, Way::OursToTheirs, &label, r);
                if !decoded {
                    continue;
                }
                if label == "minimal" {
                    check_frame(&mut out, case, v, &label, &bytes);
                }
                // theirs → ours: the decoded value, encoded by kafka-protocol at every version
                // that can carry it.
                for to in versions.clone() {
                    match (case.theirs.transcode)(&bytes, v, to) {
                        Ok(theirs) => {
                            let r = compare_ours(case, &theirs, to);
                            out.check(case, to, Way::TheirsToOurs, &format!("{label}@v{v}"), r);
                        }
                        Err(_) => out.not_encodable += 1,
                    }
                }
            }
        }
    }

    // theirs → ours: hand-built large values at every version that can carry them.
    let mut large_versions = 0;
    for value in large_values() {
        let case = cases
            .iter()
            .find(|c| c.key == value.key && c.kind == value.kind)
            .expect("case of a large value");
        let mut encoded = Vec::new();
        for v in intersect(case.theirs.versions, case.ours_versions) {
            match (value.encode)(v) {
                Ok(bytes) => {
                    encoded.push(v);
                    let r = compare_ours(case, &bytes, v);
                    out.check(case, v, Way::TheirsToOurs, value.label, r);
                    check_frame(&mut out, case, v, value.label, &bytes);
                }
                Err(_) => out.not_encodable += 1,
            }
        }
        assert!(
            !encoded.is_empty(),
            "{} {}: encodable at no version",
            case.name,
            value.label
        );
        println!(
            "  {} {} ({}): versions {encoded:?}",
            case.name, value.label, value.note
        );
        large_versions += encoded.len();
    }

    let api_keys: std::collections::BTreeSet<i16> = cases
        .iter()
        .filter(|c| c.key >= 0 && !intersect(c.theirs.versions, c.ours_versions).is_empty())
        .map(|c| c.key)
        .collect();
    let api_versions: usize = cases
        .iter()
        .filter(|c| c.key >= 0)
        .map(|c| intersect(c.theirs.versions, c.ours_versions).count())
        .sum();
    println!("differential coverage against kafka-protocol 0.18:");
    println!(
        "  {} API keys, {api_versions} request/response message-versions, {} header and data \
         message-versions",
        api_keys.len(),
        out.compared.get(&Way::TheirsToOurs).copied().unwrap_or(0) - api_versions
    );
    for way in [Way::TheirsToOurs, Way::OursToTheirs, Way::Frame] {
        println!(
            "  {way:?}: {} message-versions, {} instances compared, {} skipped as known differences",
            out.compared.get(&way).copied().unwrap_or(0),
            out.instances.get(&way).copied().unwrap_or(0),
            out.skipped.get(&way).copied().unwrap_or(0),
        );
    }
    println!("  large hand-built values compared at {large_versions} message-versions");
    println!(
        "  values kafka-protocol cannot encode at a version: {}",
        out.not_encodable
    );

    println!("known differences (instances skipped):");
    for (k, hits) in KNOWN_DIFFERENCES.iter().zip(&out.hits) {
        let who = k
            .name
            .map_or_else(|| format!("{:?}", ApiKey(k.key)), str::to_string);
        println!(
            "  {who} {:?} v{}-{} {:?} [{}]: {hits} — {}",
            k.kind, k.versions.0, k.versions.1, k.way, k.detail, k.reason
        );
    }

    let stale: Vec<_> = KNOWN_DIFFERENCES
        .iter()
        .zip(&out.hits)
        .filter(|(_, h)| **h == 0)
        .map(|(k, _)| {
            format!(
                "key {} {:?} {:?} {:?}: {}",
                k.key, k.kind, k.versions, k.way, k.reason
            )
        })
        .collect();
    for f in &out.failures {
        println!("MISMATCH {f}");
    }
    assert!(stale.is_empty(), "known differences never hit: {stale:#?}");
    assert!(out.failures.is_empty(), "{} mismatches", out.failures.len());
}

// ---------------------------------------------------------------------------------------------
// Field-by-field comparison of a few key messages, decoded by both crates.
// ---------------------------------------------------------------------------------------------

/// Collects field differences under a path.
struct Diff(Vec<String>);

impl Diff {
    fn eq<T: PartialEq + std::fmt::Debug>(&mut self, path: &str, ours: T, theirs: T) {
        if ours != theirs {
            self.0
                .push(format!("{path}: ours {ours:?}, theirs {theirs:?}"));
        }
    }

    fn len(&mut self, path: &str, ours: usize, theirs: usize) -> bool {
        self.eq(&format!("{path}.len()"), ours, theirs);
        ours == theirs
    }

    fn tags(
        &mut self,
        path: &str,
        ours: kwire::codec::TaggedFields<'_>,
        theirs: &BTreeMap<i32, Bytes>,
    ) {
        let ours: Vec<(i64, &[u8])> = ours.iter().map(|f| (i64::from(f.tag), f.data)).collect();
        let theirs: Vec<(i64, &[u8])> = theirs
            .iter()
            .map(|(k, v)| (i64::from(*k), &v[..]))
            .collect();
        self.eq(&format!("{path}.unknown_tagged_fields"), ours, theirs);
    }
}

/// Their string as ours: the two are compared by their bytes (`Str`'s equality), which ours
/// need not hold as UTF-8 and theirs does.
fn theirs(s: &str) -> Str<'_> {
    Str::new(s)
}

fn opt_str(s: Option<&kafka_protocol::protocol::StrBytes>) -> Option<Str<'_>> {
    s.map(|s| theirs(s))
}

fn uuid(u: kwire::codec::Uuid) -> [u8; 16] {
    u.0
}

fn records(r: Option<kwire::records::Records<'_>>) -> Option<&[u8]> {
    r.map(|r| r.as_bytes())
}

fn cmp_metadata_request(
    d: &mut Diff,
    o: &kwire::messages::MetadataRequest<'_>,
    t: &kp::MetadataRequest,
) {
    d.eq(
        "allow_auto_topic_creation",
        o.allow_auto_topic_creation,
        t.allow_auto_topic_creation,
    );
    d.eq(
        "include_cluster_authorized_operations",
        o.include_cluster_authorized_operations,
        t.include_cluster_authorized_operations,
    );
    d.eq(
        "include_topic_authorized_operations",
        o.include_topic_authorized_operations,
        t.include_topic_authorized_operations,
    );
    d.eq("topics.is_none()", o.topics.is_none(), t.topics.is_none());
    if let (Some(ot), Some(tt)) = (&o.topics, &t.topics)
        && d.len("topics", ot.len(), tt.len())
    {
        for (i, (a, b)) in ot.iter().zip(tt).enumerate() {
            d.eq(
                &format!("topics[{i}].topic_id"),
                uuid(a.topic_id),
                *b.topic_id.as_bytes(),
            );
            d.eq(
                &format!("topics[{i}].name"),
                a.name,
                b.name.as_ref().map(|n| theirs(&n.0)),
            );
            d.tags(
                &format!("topics[{i}]"),
                a.unknown_tagged_fields,
                &b.unknown_tagged_fields,
            );
        }
    }
    d.tags("", o.unknown_tagged_fields, &t.unknown_tagged_fields);
}

fn cmp_metadata_response(
    d: &mut Diff,
    o: &kwire::messages::MetadataResponse<'_>,
    t: &kp::MetadataResponse,
) {
    d.eq("throttle_time_ms", o.throttle_time_ms, t.throttle_time_ms);
    d.eq("cluster_id", o.cluster_id, opt_str(t.cluster_id.as_ref()));
    d.eq("controller_id", o.controller_id, t.controller_id.0);
    d.eq(
        "cluster_authorized_operations",
        o.cluster_authorized_operations,
        t.cluster_authorized_operations,
    );
    d.eq("error_code", o.error_code, t.error_code);
    if d.len("brokers", o.brokers.len(), t.brokers.len()) {
        for (i, (a, b)) in o.brokers.iter().zip(&t.brokers).enumerate() {
            d.eq(&format!("brokers[{i}].node_id"), a.node_id, b.node_id.0);
            d.eq(&format!("brokers[{i}].host"), a.host, theirs(&b.host));
            d.eq(&format!("brokers[{i}].port"), a.port, b.port);
            d.eq(
                &format!("brokers[{i}].rack"),
                a.rack,
                opt_str(b.rack.as_ref()),
            );
            d.tags(
                &format!("brokers[{i}]"),
                a.unknown_tagged_fields,
                &b.unknown_tagged_fields,
            );
        }
    }
    if d.len("topics", o.topics.len(), t.topics.len()) {
        for (i, (a, b)) in o.topics.iter().zip(&t.topics).enumerate() {
            let p = format!("topics[{i}]");
            d.eq(&format!("{p}.error_code"), a.error_code, b.error_code);
            d.eq(
                &format!("{p}.name"),
                a.name,
                b.name.as_ref().map(|n| theirs(&n.0)),
            );
            d.eq(
                &format!("{p}.topic_id"),
                uuid(a.topic_id),
                *b.topic_id.as_bytes(),
            );
            d.eq(&format!("{p}.is_internal"), a.is_internal, b.is_internal);
            d.eq(
                &format!("{p}.topic_authorized_operations"),
                a.topic_authorized_operations,
                b.topic_authorized_operations,
            );
            d.tags(&p, a.unknown_tagged_fields, &b.unknown_tagged_fields);
            if d.len(
                &format!("{p}.partitions"),
                a.partitions.len(),
                b.partitions.len(),
            ) {
                for (j, (x, y)) in a.partitions.iter().zip(&b.partitions).enumerate() {
                    let q = format!("{p}.partitions[{j}]");
                    let ids = |v: &[kp::BrokerId]| v.iter().map(|b| b.0).collect::<Vec<_>>();
                    d.eq(&format!("{q}.error_code"), x.error_code, y.error_code);
                    d.eq(
                        &format!("{q}.partition_index"),
                        x.partition_index,
                        y.partition_index,
                    );
                    d.eq(&format!("{q}.leader_id"), x.leader_id, y.leader_id.0);
                    d.eq(&format!("{q}.leader_epoch"), x.leader_epoch, y.leader_epoch);
                    d.eq(
                        &format!("{q}.replica_nodes"),
                        x.replica_nodes.iter().collect(),
                        ids(&y.replica_nodes),
                    );
                    d.eq(
                        &format!("{q}.isr_nodes"),
                        x.isr_nodes.iter().collect(),
                        ids(&y.isr_nodes),
                    );
                    d.eq(
                        &format!("{q}.offline_replicas"),
                        x.offline_replicas.iter().collect(),
                        ids(&y.offline_replicas),
                    );
                    d.tags(&q, x.unknown_tagged_fields, &y.unknown_tagged_fields);
                }
            }
        }
    }
    d.tags("", o.unknown_tagged_fields, &t.unknown_tagged_fields);
}

fn cmp_fetch_request(d: &mut Diff, o: &kwire::messages::FetchRequest<'_>, t: &kp::FetchRequest) {
    d.eq("cluster_id", o.cluster_id, opt_str(t.cluster_id.as_ref()));
    d.eq("replica_id", o.replica_id, t.replica_id.0);
    d.eq(
        "replica_state.replica_id",
        o.replica_state.replica_id,
        t.replica_state.replica_id.0,
    );
    d.eq(
        "replica_state.replica_epoch",
        o.replica_state.replica_epoch,
        t.replica_state.replica_epoch,
    );
    d.eq("max_wait_ms", o.max_wait_ms, t.max_wait_ms);
    d.eq("min_bytes", o.min_bytes, t.min_bytes);
    d.eq("max_bytes", o.max_bytes, t.max_bytes);
    d.eq("isolation_level", o.isolation_level, t.isolation_level);
    d.eq("session_id", o.session_id, t.session_id);
    d.eq("session_epoch", o.session_epoch, t.session_epoch);
    d.eq("rack_id", o.rack_id, theirs(&t.rack_id));
    if d.len("topics", o.topics.len(), t.topics.len()) {
        for (i, (a, b)) in o.topics.iter().zip(&t.topics).enumerate() {
            let p = format!("topics[{i}]");
            d.eq(&format!("{p}.topic"), a.topic, theirs(&b.topic.0));
            d.eq(
                &format!("{p}.topic_id"),
                uuid(a.topic_id),
                *b.topic_id.as_bytes(),
            );
            d.tags(&p, a.unknown_tagged_fields, &b.unknown_tagged_fields);
            if d.len(
                &format!("{p}.partitions"),
                a.partitions.len(),
                b.partitions.len(),
            ) {
                for (j, (x, y)) in a.partitions.iter().zip(&b.partitions).enumerate() {
                    let q = format!("{p}.partitions[{j}]");
                    d.eq(&format!("{q}.partition"), x.partition, y.partition);
                    d.eq(
                        &format!("{q}.current_leader_epoch"),
                        x.current_leader_epoch,
                        y.current_leader_epoch,
                    );
                    d.eq(&format!("{q}.fetch_offset"), x.fetch_offset, y.fetch_offset);
                    d.eq(
                        &format!("{q}.last_fetched_epoch"),
                        x.last_fetched_epoch,
                        y.last_fetched_epoch,
                    );
                    d.eq(
                        &format!("{q}.log_start_offset"),
                        x.log_start_offset,
                        y.log_start_offset,
                    );
                    d.eq(
                        &format!("{q}.partition_max_bytes"),
                        x.partition_max_bytes,
                        y.partition_max_bytes,
                    );
                    d.eq(
                        &format!("{q}.replica_directory_id"),
                        uuid(x.replica_directory_id),
                        *y.replica_directory_id.as_bytes(),
                    );
                    d.eq(
                        &format!("{q}.high_watermark"),
                        x.high_watermark,
                        y.high_watermark,
                    );
                    d.tags(&q, x.unknown_tagged_fields, &y.unknown_tagged_fields);
                }
            }
        }
    }
    if d.len(
        "forgotten_topics_data",
        o.forgotten_topics_data.len(),
        t.forgotten_topics_data.len(),
    ) {
        for (i, (a, b)) in o
            .forgotten_topics_data
            .iter()
            .zip(&t.forgotten_topics_data)
            .enumerate()
        {
            let p = format!("forgotten_topics_data[{i}]");
            d.eq(&format!("{p}.topic"), a.topic, theirs(&b.topic.0));
            d.eq(
                &format!("{p}.topic_id"),
                uuid(a.topic_id),
                *b.topic_id.as_bytes(),
            );
            d.eq(
                &format!("{p}.partitions"),
                a.partitions.iter().collect(),
                b.partitions.clone(),
            );
            d.tags(&p, a.unknown_tagged_fields, &b.unknown_tagged_fields);
        }
    }
    d.tags("", o.unknown_tagged_fields, &t.unknown_tagged_fields);
}

fn cmp_fetch_response(d: &mut Diff, o: &kwire::messages::FetchResponse<'_>, t: &kp::FetchResponse) {
    d.eq("throttle_time_ms", o.throttle_time_ms, t.throttle_time_ms);
    d.eq("error_code", o.error_code, t.error_code);
    d.eq("session_id", o.session_id, t.session_id);
    if d.len("responses", o.responses.len(), t.responses.len()) {
        for (i, (a, b)) in o.responses.iter().zip(&t.responses).enumerate() {
            let p = format!("responses[{i}]");
            d.eq(&format!("{p}.topic"), a.topic, theirs(&b.topic.0));
            d.eq(
                &format!("{p}.topic_id"),
                uuid(a.topic_id),
                *b.topic_id.as_bytes(),
            );
            d.tags(&p, a.unknown_tagged_fields, &b.unknown_tagged_fields);
            if !d.len(
                &format!("{p}.partitions"),
                a.partitions.len(),
                b.partitions.len(),
            ) {
                continue;
            }
            for (j, (x, y)) in a.partitions.iter().zip(&b.partitions).enumerate() {
                let q = format!("{p}.partitions[{j}]");
                d.eq(
                    &format!("{q}.partition_index"),
                    x.partition_index,
                    y.partition_index,
                );
                d.eq(&format!("{q}.error_code"), x.error_code, y.error_code);
                d.eq(
                    &format!("{q}.high_watermark"),
                    x.high_watermark,
                    y.high_watermark,
                );
                d.eq(
                    &format!("{q}.last_stable_offset"),
                    x.last_stable_offset,
                    y.last_stable_offset,
                );
                d.eq(
                    &format!("{q}.log_start_offset"),
                    x.log_start_offset,
                    y.log_start_offset,
                );
                d.eq(
                    &format!("{q}.diverging_epoch"),
                    (x.diverging_epoch.epoch, x.diverging_epoch.end_offset),
                    (y.diverging_epoch.epoch, y.diverging_epoch.end_offset),
                );
                d.eq(
                    &format!("{q}.current_leader"),
                    (x.current_leader.leader_id, x.current_leader.leader_epoch),
                    (y.current_leader.leader_id.0, y.current_leader.leader_epoch),
                );
                d.eq(
                    &format!("{q}.snapshot_id"),
                    (x.snapshot_id.end_offset, x.snapshot_id.epoch),
                    (y.snapshot_id.end_offset, y.snapshot_id.epoch),
                );
                d.eq(
                    &format!("{q}.aborted_transactions"),
                    x.aborted_transactions.map(|a| {
                        a.iter()
                            .map(|t| (t.producer_id, t.first_offset))
                            .collect::<Vec<_>>()
                    }),
                    y.aborted_transactions.as_ref().map(|a| {
                        a.iter()
                            .map(|t| (t.producer_id.0, t.first_offset))
                            .collect()
                    }),
                );
                d.eq(
                    &format!("{q}.preferred_read_replica"),
                    x.preferred_read_replica,
                    y.preferred_read_replica.0,
                );
                d.eq(
                    &format!("{q}.records"),
                    records(x.records),
                    y.records.as_deref(),
                );
                d.tags(&q, x.unknown_tagged_fields, &y.unknown_tagged_fields);
            }
        }
    }
    if d.len(
        "node_endpoints",
        o.node_endpoints.len(),
        t.node_endpoints.len(),
    ) {
        for (i, (a, b)) in o.node_endpoints.iter().zip(&t.node_endpoints).enumerate() {
            d.eq(
                &format!("node_endpoints[{i}]"),
                (a.node_id, a.host, a.port, a.rack),
                (
                    b.node_id.0,
                    theirs(&b.host),
                    b.port,
                    opt_str(b.rack.as_ref()),
                ),
            );
            d.tags(
                &format!("node_endpoints[{i}]"),
                a.unknown_tagged_fields,
                &b.unknown_tagged_fields,
            );
        }
    }
    d.tags("", o.unknown_tagged_fields, &t.unknown_tagged_fields);
}

fn cmp_produce_request(
    d: &mut Diff,
    o: &kwire::messages::ProduceRequest<'_>,
    t: &kp::ProduceRequest,
) {
    d.eq(
        "transactional_id",
        o.transactional_id,
        t.transactional_id.as_ref().map(|s| theirs(&s.0)),
    );
    d.eq("acks", o.acks, t.acks);
    d.eq("timeout_ms", o.timeout_ms, t.timeout_ms);
    if d.len("topic_data", o.topic_data.len(), t.topic_data.len()) {
        for (i, (a, b)) in o.topic_data.iter().zip(&t.topic_data).enumerate() {
            let p = format!("topic_data[{i}]");
            d.eq(&format!("{p}.name"), a.name, theirs(&b.name.0));
            d.eq(
                &format!("{p}.topic_id"),
                uuid(a.topic_id),
                *b.topic_id.as_bytes(),
            );
            d.tags(&p, a.unknown_tagged_fields, &b.unknown_tagged_fields);
            if d.len(
                &format!("{p}.partition_data"),
                a.partition_data.len(),
                b.partition_data.len(),
            ) {
                for (j, (x, y)) in a.partition_data.iter().zip(&b.partition_data).enumerate() {
                    let q = format!("{p}.partition_data[{j}]");
                    d.eq(&format!("{q}.index"), x.index, y.index);
                    d.eq(
                        &format!("{q}.records"),
                        records(x.records),
                        y.records.as_deref(),
                    );
                    d.tags(&q, x.unknown_tagged_fields, &y.unknown_tagged_fields);
                }
            }
        }
    }
    d.tags("", o.unknown_tagged_fields, &t.unknown_tagged_fields);
}

fn cmp_produce_response(
    d: &mut Diff,
    o: &kwire::messages::ProduceResponse<'_>,
    t: &kp::ProduceResponse,
) {
    d.eq("throttle_time_ms", o.throttle_time_ms, t.throttle_time_ms);
    if d.len("responses", o.responses.len(), t.responses.len()) {
        for (i, (a, b)) in o.responses.iter().zip(&t.responses).enumerate() {
            let p = format!("responses[{i}]");
            d.eq(&format!("{p}.name"), a.name, theirs(&b.name.0));
            d.eq(
                &format!("{p}.topic_id"),
                uuid(a.topic_id),
                *b.topic_id.as_bytes(),
            );
            d.tags(&p, a.unknown_tagged_fields, &b.unknown_tagged_fields);
            if !d.len(
                &format!("{p}.partition_responses"),
                a.partition_responses.len(),
                b.partition_responses.len(),
            ) {
                continue;
            }
            for (j, (x, y)) in a
                .partition_responses
                .iter()
                .zip(&b.partition_responses)
                .enumerate()
            {
                let q = format!("{p}.partition_responses[{j}]");
                d.eq(
                    &format!("{q}.scalars"),
                    (
                        x.index,
                        x.error_code,
                        x.base_offset,
                        x.log_append_time_ms,
                        x.log_start_offset,
                    ),
                    (
                        y.index,
                        y.error_code,
                        y.base_offset,
                        y.log_append_time_ms,
                        y.log_start_offset,
                    ),
                );
                d.eq(
                    &format!("{q}.error_message"),
                    x.error_message,
                    opt_str(y.error_message.as_ref()),
                );
                d.eq(
                    &format!("{q}.current_leader"),
                    (x.current_leader.leader_id, x.current_leader.leader_epoch),
                    (y.current_leader.leader_id.0, y.current_leader.leader_epoch),
                );
                d.eq(
                    &format!("{q}.record_errors"),
                    x.record_errors
                        .iter()
                        .map(|e| (e.batch_index, e.batch_index_error_message))
                        .collect(),
                    y.record_errors
                        .iter()
                        .map(|e| (e.batch_index, opt_str(e.batch_index_error_message.as_ref())))
                        .collect::<Vec<_>>(),
                );
                d.tags(&q, x.unknown_tagged_fields, &y.unknown_tagged_fields);
            }
        }
    }
    if d.len(
        "node_endpoints",
        o.node_endpoints.len(),
        t.node_endpoints.len(),
    ) {
        for (i, (a, b)) in o.node_endpoints.iter().zip(&t.node_endpoints).enumerate() {
            d.eq(
                &format!("node_endpoints[{i}]"),
                (a.node_id, a.host, a.port, a.rack),
                (
                    b.node_id.0,
                    theirs(&b.host),
                    b.port,
                    opt_str(b.rack.as_ref()),
                ),
            );
        }
    }
    d.tags("", o.unknown_tagged_fields, &t.unknown_tagged_fields);
}

fn cmp_api_versions_request(
    d: &mut Diff,
    o: &kwire::messages::ApiVersionsRequest<'_>,
    t: &kp::ApiVersionsRequest,
) {
    d.eq(
        "client_software_name",
        o.client_software_name,
        theirs(&t.client_software_name),
    );
    d.eq(
        "client_software_version",
        o.client_software_version,
        theirs(&t.client_software_version),
    );
    d.tags("", o.unknown_tagged_fields, &t.unknown_tagged_fields);
}

fn cmp_api_versions_response(
    d: &mut Diff,
    o: &kwire::messages::ApiVersionsResponse<'_>,
    t: &kp::ApiVersionsResponse,
) {
    d.eq("error_code", o.error_code, t.error_code);
    d.eq("throttle_time_ms", o.throttle_time_ms, t.throttle_time_ms);
    d.eq(
        "finalized_features_epoch",
        o.finalized_features_epoch,
        t.finalized_features_epoch,
    );
    d.eq(
        "zk_migration_ready",
        o.zk_migration_ready,
        t.zk_migration_ready,
    );
    d.eq(
        "api_keys",
        o.api_keys
            .iter()
            .map(|k| (k.api_key, k.min_version, k.max_version))
            .collect(),
        t.api_keys
            .iter()
            .map(|k| (k.api_key, k.min_version, k.max_version))
            .collect::<Vec<_>>(),
    );
    d.eq(
        "supported_features",
        o.supported_features
            .iter()
            .map(|k| (k.name, k.min_version, k.max_version))
            .collect(),
        t.supported_features
            .iter()
            .map(|k| (theirs(&k.name), k.min_version, k.max_version))
            .collect::<Vec<_>>(),
    );
    d.eq(
        "finalized_features",
        o.finalized_features
            .iter()
            .map(|k| (k.name, k.max_version_level, k.min_version_level))
            .collect(),
        t.finalized_features
            .iter()
            .map(|k| (theirs(&k.name), k.max_version_level, k.min_version_level))
            .collect::<Vec<_>>(),
    );
    for (i, (a, b)) in o.api_keys.iter().zip(&t.api_keys).enumerate() {
        d.tags(
            &format!("api_keys[{i}]"),
            a.unknown_tagged_fields,
            &b.unknown_tagged_fields,
        );
    }
    d.tags("", o.unknown_tagged_fields, &t.unknown_tagged_fields);
}

/// Decodes the walker's instances of one message with both crates at every common version and
/// compares the field values.
fn compare_fields<'a, O, T>(
    kind: Kind,
    key: ApiKey,
    bytes_store: &'a mut Vec<Vec<u8>>,
    cmp: fn(&mut Diff, &O, &T),
) -> (usize, Vec<String>)
where
    O: Decode<'a> + kwire::Message,
    T: KpMessage + Decodable,
{
    let schema = match kind {
        Kind::Request => schema::request(key),
        _ => schema::response(key),
    }
    .expect("schema");
    let versions = intersect((T::VERSIONS.min, T::VERSIONS.max), range(O::VALID_VERSIONS));
    let mut labels = Vec::new();
    for v in versions {
        for (label, bytes) in walker_instances(schema, v).into_iter().take(5) {
            bytes_store.push(bytes.expect("walker instance"));
            labels.push((v, label));
        }
    }
    let mut failures = Vec::new();
    for ((v, label), bytes) in labels.iter().zip(bytes_store.iter()) {
        let ours = O::decode_exact(bytes, *v).map_err(|e| e.to_string());
        let theirs = kp_decode::<T>(bytes, *v);
        match (ours, theirs) {
            (Ok(o), Ok(t)) => {
                let mut d = Diff(Vec::new());
                cmp(&mut d, &o, &t);
                for f in d.0 {
                    failures.push(format!("{} v{v} [{label}] {f}", O::NAME));
                }
            }
            (o, t) => failures.push(format!(
                "{} v{v} [{label}]: ours {:?}, theirs {:?}",
                O::NAME,
                o.err(),
                t.err()
            )),
        }
    }
    (labels.len(), failures)
}

#[test]
fn field_values_agree_for_key_messages() {
    use kwire::messages as m;
    let mut compared = 0;
    let mut failures = Vec::new();
    macro_rules! run {
        ($kind:ident, $key:expr, $ours:ident, $theirs:ident, $cmp:ident) => {{
            let mut store = Vec::new();
            let (n, f) =
                compare_fields::<m::$ours<'_>, kp::$theirs>(Kind::$kind, $key, &mut store, $cmp);
            compared += n;
            failures.extend(f);
        }};
    }
    run!(
        Request,
        ApiKey::METADATA,
        MetadataRequest,
        MetadataRequest,
        cmp_metadata_request
    );
    run!(
        Response,
        ApiKey::METADATA,
        MetadataResponse,
        MetadataResponse,
        cmp_metadata_response
    );
    run!(
        Request,
        ApiKey::FETCH,
        FetchRequest,
        FetchRequest,
        cmp_fetch_request
    );
    run!(
        Response,
        ApiKey::FETCH,
        FetchResponse,
        FetchResponse,
        cmp_fetch_response
    );
    run!(
        Request,
        ApiKey::PRODUCE,
        ProduceRequest,
        ProduceRequest,
        cmp_produce_request
    );
    run!(
        Response,
        ApiKey::PRODUCE,
        ProduceResponse,
        ProduceResponse,
        cmp_produce_response
    );
    run!(
        Request,
        ApiKey::API_VERSIONS,
        ApiVersionsRequest,
        ApiVersionsRequest,
        cmp_api_versions_request
    );
    run!(
        Response,
        ApiKey::API_VERSIONS,
        ApiVersionsResponse,
        ApiVersionsResponse,
        cmp_api_versions_response
    );
    println!("field-by-field comparison: {compared} instances of 8 key messages");
    for f in &failures {
        println!("FIELD MISMATCH {f}");
    }
    assert!(failures.is_empty(), "{} field mismatches", failures.len());
}

// ------------------------------------------------------------------------------------------------
// Values compared by path, for every message

use crate::debug_tree::{self, Node};

/// Random instances per message and version in the value comparison.
const VALUE_SEEDS: u64 = 8;

/// A node with the wrappers that only one side prints taken off: our `Request`/`Response` variant
/// and `Uuid(..)`, `kafka-protocol`'s newtypes (`TopicName(..)`, `BrokerId(..)`, ...). `Some`
/// stays: both print it.
fn bare(mut node: &Node) -> &Node {
    while let Node::Tuple(name, items) = node {
        if name != "Some" && items.len() == 1 && !is_records(name) {
            node = &items[0];
        } else {
            break;
        }
    }
    node
}

/// Our records types, which print their length only.
fn is_records(name: &str) -> bool {
    name == "Records" || name == "UnalignedRecords"
}

/// Bytes as either side prints them: our `&[u8]` as a list of numbers, theirs as `b"..."`.
fn as_bytes(node: &Node) -> Option<Vec<u8>> {
    match node {
        Node::Bytes(b) => Some(b.clone()),
        Node::List(items) => items
            .iter()
            .map(|i| match i {
                Node::Atom(a) => a.parse::<u8>().ok(),
                _ => None,
            })
            .collect(),
        _ => None,
    }
}

/// Unknown tagged fields as `(tag, bytes)`: ours a list of `RawTaggedField { tag, data }`,
/// theirs a map `{tag: b"..."}`.
fn tagged(node: &Node) -> Option<Vec<(String, Vec<u8>)>> {
    match node {
        Node::List(items) => items
            .iter()
            .map(|i| match i {
                Node::Struct(_, fields) => {
                    let tag = fields.iter().find(|(n, _)| n == "tag")?;
                    let data = fields.iter().find(|(n, _)| n == "data")?;
                    match &tag.1 {
                        Node::Atom(t) => Some((t.clone(), as_bytes(&data.1)?)),
                        _ => None,
                    }
                }
                _ => None,
            })
            .collect(),
        Node::Struct(name, entries) if name.is_empty() => entries
            .iter()
            .map(|(tag, data)| Some((tag.clone(), as_bytes(data)?)))
            .collect(),
        _ => None,
    }
}

/// `kafka-protocol`'s name for a field, as ours, where no field has its own name: it prefixes
/// keywords with `_` (we print raw identifiers bare), splits digits off (`enable_2_pc`), and
/// keeps the older name of `TxnOffsetCommitRequest.GenerationIdOrMemberEpoch`.
fn their_name(name: &str) -> &str {
    match name {
        "enable_2_pc" => "enable2_pc",
        "generation_id" => "generation_id_or_member_epoch",
        _ => name.strip_prefix('_').unwrap_or(name),
    }
}

/// Fields one crate's structs have and the other's do not: fields Kafka added after 4.1 (the
/// schemas `kafka-protocol` 0.18 is generated from) or that only the versions 4.0 removed have,
/// and the unknown tagged fields of schemas that are never flexible, which `kafka-protocol`
/// leaves out. Each is at its default wherever the other crate lacks it; every entry must still
/// be met.
const ONE_SIDED: &[&str] = &[
    "AddRaftVoterRequest .ack_when_committed: a field only ours has",
    "AlterPartitionRequest .topics.topic_name: a field only ours has",
    "AlterPartitionResponse .topics.topic_name: a field only ours has",
    "ApiVersionsRequest .cluster_id: a field only ours has",
    "ApiVersionsRequest .node_id: a field only ours has",
    "BrokerHeartbeatRequest .cordoned_log_dirs: a field only ours has",
    "ConsumerProtocolAssignment .assigned_partitions.unknown_tagged_fields: a field only ours has",
    "ConsumerProtocolAssignment .unknown_tagged_fields: a field only ours has",
    "ConsumerProtocolSubscription .owned_partitions.unknown_tagged_fields: a field only ours has",
    "ConsumerProtocolSubscription .unknown_tagged_fields: a field only ours has",
    "DeleteGroupsResponse .results.error_message: a field only ours has",
    "DescribeConfigsResponse .results.configs.is_default: a field only ours has",
    "DescribeLogDirsResponse .results.is_cordoned: a field only ours has",
    "DescribeShareGroupOffsetsResponse .groups.topics.partitions.lag: a field only ours has",
    "EndTxnMarker .unknown_tagged_fields: a field only ours has",
    "ListOffsetsRequest .topics.partitions.max_num_offsets: a field only ours has",
    "ListOffsetsResponse .topics.partitions.old_style_offsets: a field only ours has",
    "OffsetCommitRequest .topics.partitions.commit_timestamp: a field only ours has",
    "OffsetDeleteRequest .topics.partitions.unknown_tagged_fields: a field only ours has",
    "OffsetDeleteRequest .topics.unknown_tagged_fields: a field only ours has",
    "OffsetDeleteRequest .unknown_tagged_fields: a field only ours has",
    "OffsetDeleteResponse .topics.partitions.unknown_tagged_fields: a field only ours has",
    "OffsetDeleteResponse .topics.unknown_tagged_fields: a field only ours has",
    "OffsetDeleteResponse .unknown_tagged_fields: a field only ours has",
    "ReadShareGroupStateSummaryResponse .results.partitions.delivery_complete_count: a field only ours has",
    "SaslHandshakeRequest .unknown_tagged_fields: a field only ours has",
    "SaslHandshakeResponse .unknown_tagged_fields: a field only ours has",
    "ShareAcknowledgeRequest .is_renew_ack: a field only ours has",
    "ShareAcknowledgeResponse .acquisition_lock_timeout_ms: a field only ours has",
    "ShareFetchRequest .is_renew_ack: a field only ours has",
    "ShareFetchRequest .share_acquire_mode: a field only ours has",
    "TxnOffsetCommitRequest .topics.topic_id: a field only ours has",
    "TxnOffsetCommitResponse .topics.topic_id: a field only ours has",
    "WriteShareGroupStateRequest .topics.partitions.delivery_complete_count: a field only ours has",
    "WriteTxnMarkersRequest .markers.transaction_version: a field only ours has",
];

const ONLY_OURS: &str = "a field only ours has";
const ONLY_THEIRS: &str = "a field only theirs has";

/// Compares our value with theirs field by field, recording each difference with its path.
fn compare_values(path: &str, ours: &Node, theirs: &Node, diffs: &mut Vec<String>) {
    let (o, t) = (bare(ours), bare(theirs));
    let differ = |diffs: &mut Vec<String>| {
        diffs.push(format!("{path}: ours {o:?}, theirs {t:?}"));
    };
    match (o, t) {
        // Our records print their length only; the bytes are compared by the byte-level tests.
        // A records field is nullable in theirs wherever it is in the schema.
        (Node::Tuple(name, items), _) if is_records(name) => {
            match (items.first(), as_bytes(debug_tree::unwrap_some(t))) {
                (Some(Node::Atom(len)), Some(b)) if *len == format!("{} bytes", b.len()) => {}
                _ => differ(diffs),
            }
        }
        (Node::Struct(_, of), Node::Struct(_, tf)) => {
            for (name, ov) in of {
                let same = tf.iter().find(|(n, _)| n == name);
                let Some((_, tv)) = same.or_else(|| tf.iter().find(|(n, _)| their_name(n) == name))
                else {
                    diffs.push(format!("{path}.{name}: {ONLY_OURS}"));
                    continue;
                };
                let sub = format!("{path}.{name}");
                if name == "unknown_tagged_fields" {
                    if tagged(ov) != tagged(tv) || tagged(ov).is_none() {
                        diffs.push(format!("{sub}: ours {ov:?}, theirs {tv:?}"));
                    }
                } else {
                    compare_values(&sub, ov, tv, diffs);
                }
            }
            for (name, _) in tf {
                if !of.iter().any(|(n, _)| n == name || n == their_name(name)) {
                    diffs.push(format!("{path}.{name}: {ONLY_THEIRS}"));
                }
            }
        }
        (Node::Tuple(on, oi), Node::Tuple(tn, ti)) if on == tn && oi.len() == ti.len() => {
            for (i, (a, b)) in oi.iter().zip(ti).enumerate() {
                compare_values(&format!("{path}.{on}{i}"), a, b, diffs);
            }
        }
        (Node::List(oi), Node::List(ti)) => {
            if oi.len() != ti.len() {
                differ(diffs);
                return;
            }
            for (i, (a, b)) in oi.iter().zip(ti).enumerate() {
                compare_values(&format!("{path}[{i}]"), a, b, diffs);
            }
        }
        (Node::List(_) | Node::Bytes(_), Node::Bytes(_) | Node::List(_)) => {
            if as_bytes(o).is_none() || as_bytes(o) != as_bytes(t) {
                differ(diffs);
            }
        }
        (a, b) if a == b => {}
        _ => differ(diffs),
    }
}

/// For every message type and version both crates cover, random instances of the schema walker
/// (a random value in every field, so that two fields of one type bound the wrong way round
/// differ) go both ways: our decoder and encoder's bytes are decoded by `kafka-protocol`, and
/// `kafka-protocol`'s encoding of them by our decoder; each time every field of the two decoded
/// values is compared by its path, the unknown tagged fields included.
#[test]
fn every_field_agrees_by_path_both_ways() {
    let mut failures: Vec<String> = Vec::new();
    let mut one_sided = std::collections::BTreeSet::new();
    let (mut compared, mut fields) = (0usize, 0usize);
    for case in all_cases() {
        let Some(schema) = case.schema else { continue };
        for v in intersect(case.theirs.versions, case.ours_versions) {
            for seed in 0..VALUE_SEEDS {
                let mut buf = vec![0u8; 1 << 16];
                let Ok(n) = kwire_testkit::write_random(schema, v, seed, &mut buf) else {
                    continue;
                };
                let bytes = &buf[..n];
                let label = format!("{} v{v} seed {seed}", case.name);
                let outcome = (|| -> Result<(), String> {
                    // Ours encodes, theirs decodes.
                    let ours_bytes = (case.ours)(bytes, v)?;
                    let ours = debug_tree::parse(&(case.ours_debug)(&ours_bytes, v)?);
                    let theirs_text = match (case.theirs.debug)(&ours_bytes, v) {
                        Err(e) if known(&case, v, Way::OursToTheirs, &e).is_some() => {
                            return Ok(());
                        }
                        other => other?,
                    };
                    let theirs = debug_tree::parse(&theirs_text);
                    let mut diffs = Vec::new();
                    compare_values("", &ours, &theirs, &mut diffs);
                    // Theirs encodes, ours decodes.
                    let theirs_bytes = (case.theirs.transcode)(&ours_bytes, v, v)?;
                    let back = debug_tree::parse(&(case.ours_debug)(&theirs_bytes, v)?);
                    let mut back_diffs = Vec::new();
                    compare_values("", &back, &theirs, &mut back_diffs);
                    fields += count_leaves(&ours);
                    compared += 1;
                    let mut all: Vec<String> = Vec::new();
                    for (way, list) in [("ours -> theirs", diffs), ("theirs -> ours", back_diffs)] {
                        for d in list {
                            if d.ends_with(ONLY_OURS) || d.ends_with(ONLY_THEIRS) {
                                let field: String = d
                                    .split(": ")
                                    .next()
                                    .unwrap_or_default()
                                    .split('[')
                                    .map(|p| p.split_once(']').map_or(p, |(_, r)| r))
                                    .collect();
                                one_sided.insert(format!(
                                    "{} {field}: {}",
                                    case.name,
                                    d.rsplit(": ").next().unwrap_or_default()
                                ));
                            } else {
                                all.push(format!("{way} {d}"));
                            }
                        }
                    }
                    if all.is_empty() {
                        Ok(())
                    } else {
                        Err(all.join("; "))
                    }
                })();
                if let Err(e) = outcome {
                    failures.push(format!("{label}: {e}"));
                }
            }
        }
    }
    println!("values compared by path: {compared} instances, {fields} leaf values");
    for f in &one_sided {
        if !ONE_SIDED.contains(&f.as_str()) {
            failures.push(format!("not in ONE_SIDED: {f}"));
        }
    }
    for f in ONE_SIDED {
        if !one_sided.contains(*f) {
            failures.push(format!("in ONE_SIDED but not met: {f}"));
        }
    }
    assert!(
        failures.is_empty(),
        "{} instances differ, the first:\n{}",
        failures.len(),
        failures
            .iter()
            .take(10)
            .cloned()
            .collect::<Vec<_>>()
            .join("\n")
    );
    assert!(
        compared > 4000 && fields > 50_000,
        "{compared} instances, {fields} values"
    );
}

/// The leaf values of a tree.
fn count_leaves(node: &Node) -> usize {
    match node {
        Node::Struct(_, fields) => fields.iter().map(|(_, v)| count_leaves(v)).sum(),
        Node::Tuple(_, items) | Node::List(items) => items.iter().map(count_leaves).sum(),
        Node::Str(_) | Node::Atom(_) | Node::Bytes(_) => 1,
    }
}
