//! Round trips driven by the schema walker, a second implementation of the wire format that
//! shares no code with the generated messages.
//!
//! For every request and response schema, both headers and the standalone data schemas, at every
//! valid version:
//!
//! * the walker's minimal instance and [`SEEDS`] seeded random instances are decoded by the typed
//!   code (all bytes consumed), decoded a second time (equal values), re-encoded (identical bytes,
//!   `encoded_len` equal to the bytes written, `BufferTooSmall` one byte short), and the walker
//!   validates what the typed code wrote;
//! * the `Default` value of every request and response type encodes at every valid version, the
//!   walker validates it and it round-trips through the typed decoder;
//! * corrupted random instances are fed to both the walker's validator and the typed decoder,
//!   which must agree on success, bytes consumed and (when failing) the error offset and kind.

use std::collections::BTreeMap;
use std::fmt::Debug;
use std::time::Instant;

use kwire::codec::{MessageKind, Reader, VersionRange};
use kwire::messages as m;
use kwire::{ApiKey, Decode, DecodeError, Encode, EncodeError, Message, Request, Response};
use kwire_schema::{self as schema, MessageSchema, walker};

/// Seeded random instances per message and version.
const SEEDS: u64 = 256;

/// Random instances per message and version that are corrupted for the differential check.
const MUTATION_SEEDS: u64 = 32;

/// Corruptions tried per instance.
const MUTATIONS: u64 = 48;

/// Schema name and version of cases where the generated code is known to be wrong (see the
/// failure text for each entry). Every entry must still fail, so the list cannot go stale.
const KNOWN_GENERATED_BUGS: &[(&str, i16)] = &[];

fn versions(r: VersionRange) -> impl Iterator<Item = i16> {
    (r.min..=r.max).filter(move |v| r.contains(*v))
}

fn minimal(schema: &MessageSchema, version: i16) -> Vec<u8> {
    let mut buf = vec![0u8; walker::instance_len(schema, version, walker::Minimal).expect("valid")];
    let n = walker::write_minimal(schema, version, &mut buf).expect("sized");
    assert_eq!(n, buf.len());
    buf
}

fn random(schema: &MessageSchema, version: i16, seed: u64) -> Vec<u8> {
    kwire_testkit::random_instance(schema, version, seed).expect("a valid version")
}

/// What the typed code made of some bytes.
struct Outcome {
    /// Bytes the typed decoder consumed.
    consumed: usize,
    /// The typed re-encoding of the decoded value.
    reencoded: Vec<u8>,
}

/// Decodes `bytes` twice with `decode`, compares the values and re-encodes the first.
fn run<'a, T, F>(bytes: &'a [u8], version: i16, decode: F) -> Result<Outcome, String>
where
    T: Encode + PartialEq + Debug,
    F: Fn(&mut Reader<'a>) -> Result<T, DecodeError>,
{
    let mut r = Reader::new(bytes);
    let first = decode(&mut r).map_err(|e| format!("typed decode failed: {e}"))?;
    let consumed = r.offset();
    let second =
        decode(&mut Reader::new(bytes)).map_err(|e| format!("second decode failed: {e}"))?;
    if first != second {
        return Err(format!(
            "decoding twice gave different values:\n{first:?}\n{second:?}"
        ));
    }
    let len = first
        .encoded_len(version)
        .map_err(|e| format!("typed encoded_len failed: {e}"))?;
    let mut out = vec![0u8; len];
    let n = first
        .encode(version, &mut out)
        .map_err(|e| format!("typed encode failed: {e}"))?;
    if n != len {
        return Err(format!("encoded_len {len} but encode wrote {n}"));
    }
    if len > 0 {
        let mut short = vec![0u8; len - 1];
        match first.encode(version, &mut short) {
            Err(EncodeError::BufferTooSmall {
                required,
                available,
            }) if required == len && available == len - 1 => {}
            other => return Err(format!("encode into {} bytes gave {other:?}", len - 1)),
        }
    }
    Ok(Outcome {
        consumed,
        reencoded: out,
    })
}

/// Decodes with the typed code matching `schema`.
fn typed(schema: &MessageSchema, version: i16, bytes: &[u8]) -> Result<Outcome, String> {
    let key = ApiKey(schema.api_key);
    let v = version;
    match schema.kind {
        MessageKind::Request => run(bytes, v, |r| Request::decode(r, key, v)),
        MessageKind::Response => run(bytes, v, |r| Response::decode(r, key, v)),
        MessageKind::Header | MessageKind::Data => match schema.name {
            "RequestHeader" => run(bytes, v, |r| m::RequestHeader::decode(r, v)),
            "ResponseHeader" => run(bytes, v, |r| m::ResponseHeader::decode(r, v)),
            "AbortedTxn" => run(bytes, v, |r| m::AbortedTxn::decode(r, v)),
            "ConsumerProtocolAssignment" => {
                run(bytes, v, |r| m::ConsumerProtocolAssignment::decode(r, v))
            }
            "ConsumerProtocolSubscription" => {
                run(bytes, v, |r| m::ConsumerProtocolSubscription::decode(r, v))
            }
            "ControlRecordTypeSchema" => {
                run(bytes, v, |r| m::ControlRecordTypeSchema::decode(r, v))
            }
            "DefaultPrincipalData" => run(bytes, v, |r| m::DefaultPrincipalData::decode(r, v)),
            "EndTxnMarker" => run(bytes, v, |r| m::EndTxnMarker::decode(r, v)),
            "KRaftVersionRecord" => run(bytes, v, |r| m::KRaftVersionRecord::decode(r, v)),
            "LeaderChangeMessage" => run(bytes, v, |r| m::LeaderChangeMessage::decode(r, v)),
            "SnapshotFooterRecord" => run(bytes, v, |r| m::SnapshotFooterRecord::decode(r, v)),
            "SnapshotHeaderRecord" => run(bytes, v, |r| m::SnapshotHeaderRecord::decode(r, v)),
            "VotersRecord" => run(bytes, v, |r| m::VotersRecord::decode(r, v)),
            other => Err(format!("no typed decoder known for {other}")),
        },
    }
}

/// Runs one walker instance through the typed code; `Err` describes the first disagreement.
fn check_instance(schema: &MessageSchema, version: i16, bytes: &[u8]) -> Result<(), String> {
    match walker::validate(schema, version, bytes) {
        Ok(n) if n == bytes.len() => {}
        other => return Err(format!("walker rejects its own instance: {other:?}")),
    }
    let out = typed(schema, version, bytes)?;
    if out.consumed != bytes.len() {
        return Err(format!(
            "typed decode consumed {} of {} bytes",
            out.consumed,
            bytes.len()
        ));
    }
    if out.reencoded != bytes {
        let at = out
            .reencoded
            .iter()
            .zip(bytes)
            .position(|(a, b)| a != b)
            .unwrap_or(out.reencoded.len().min(bytes.len()));
        return Err(format!(
            "re-encoding differs at byte {at} (lengths {} vs {}):\n walker {}\n typed  {}",
            bytes.len(),
            out.reencoded.len(),
            hex(bytes),
            hex(&out.reencoded)
        ));
    }
    match walker::validate(schema, version, &out.reencoded) {
        Ok(n) if n == out.reencoded.len() => Ok(()),
        other => Err(format!("walker rejects the typed encoding: {other:?}")),
    }
}

fn hex(bytes: &[u8]) -> String {
    bytes
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect::<Vec<_>>()
        .join(" ")
}

/// Failures keyed by schema and version: the first message and how many instances failed.
#[derive(Default)]
struct Failures(BTreeMap<(&'static str, i16), (String, usize)>);

impl Failures {
    fn add(&mut self, schema: &'static MessageSchema, version: i16, what: String) {
        self.0.entry((schema.name, version)).or_insert((what, 0)).1 += 1;
    }

    /// Panics on failures outside the skip list, and on skip-list entries that passed.
    fn settle(self, context: &str) {
        let mut report = String::new();
        for ((name, v), (what, count)) in &self.0 {
            if !KNOWN_GENERATED_BUGS.contains(&(*name, *v)) {
                report.push_str(&format!("{name} v{v} ({count} instances): {what}\n"));
            }
        }
        for (name, v) in KNOWN_GENERATED_BUGS {
            if !self.0.contains_key(&(*name, *v)) {
                report.push_str(&format!(
                    "{name} v{v} is in KNOWN_GENERATED_BUGS but passes\n"
                ));
            }
        }
        assert!(report.is_empty(), "{context}:\n{report}");
    }
}

fn kind_name(kind: MessageKind) -> &'static str {
    match kind {
        MessageKind::Request => "request",
        MessageKind::Response => "response",
        MessageKind::Header => "header",
        MessageKind::Data => "data",
    }
}

#[test]
fn walker_instances_round_trip_through_the_typed_code() {
    let start = Instant::now();
    let mut failures = Failures::default();
    let mut per_kind: BTreeMap<&str, (usize, usize)> = BTreeMap::new();
    let mut bytes_total = 0usize;
    for schema in schema::MESSAGES.iter().copied() {
        for v in versions(schema.valid_versions) {
            let entry = per_kind.entry(kind_name(schema.kind)).or_default();
            entry.0 += 1;
            let instances = std::iter::once(minimal(schema, v))
                .chain((0..SEEDS).map(|seed| random(schema, v, seed)));
            for (i, bytes) in instances.enumerate() {
                entry.1 += 1;
                bytes_total += bytes.len();
                if let Err(what) = check_instance(schema, v, &bytes) {
                    let which = if i == 0 {
                        "minimal".to_string()
                    } else {
                        format!("seed {}", i - 1)
                    };
                    failures.add(schema, v, format!("{which}: {what}"));
                }
            }
        }
    }
    println!(
        "walker round trips in {:?} ({} bytes of instances):",
        start.elapsed(),
        bytes_total
    );
    for (kind, (versions, instances)) in &per_kind {
        println!("  {kind}: {versions} message-versions, {instances} instances");
    }
    assert_eq!(
        per_kind.get("header").map(|e| e.0),
        Some(5),
        "RequestHeader v0-2, ResponseHeader v0-1"
    );
    assert_eq!(per_kind.get("request").map(|e| e.0), Some(364));
    assert_eq!(per_kind.get("response").map(|e| e.0), Some(364));
    failures.settle("walker instances the typed code does not round-trip");
}

/// Random instances per message and version encoded at every other version.
const VERSION_SEEDS: u64 = 4;

/// What encoding `value` at `version` must give, from its sizing: `encoded_len`'s error, then
/// (unless `lenient`) the ignorable value `dropped_field` finds, then `BufferTooSmall` when
/// `available` is short, else the length.
fn expected<T: Encode>(
    value: &T,
    version: i16,
    lenient: bool,
    available: usize,
) -> Result<usize, EncodeError> {
    let len = value.encoded_len(version)?;
    if !lenient && let Some(d) = value.dropped_field(version) {
        return Err(EncodeError::FieldNotInVersion {
            path: d.path,
            version,
            versions: d.versions,
            ignorable: true,
        });
    }
    if len > available {
        return Err(EncodeError::BufferTooSmall {
            required: len,
            available,
        });
    }
    Ok(len)
}

/// Encodes `value` at every version of `range` and one on each side of it, into a buffer of its
/// size and into none, strictly and leniently, holding each result to [`expected`]. Returns the
/// encodes that were refused for a value.
fn encode_across<T: Encode>(value: &T, range: VersionRange) -> Result<usize, String> {
    let mut refused = 0;
    for u in range.min.saturating_sub(1)..=range.max.saturating_add(1) {
        let room = value.encoded_len(u).unwrap_or(0);
        for lenient in [false, true] {
            let encode = |out: &mut [u8]| {
                if lenient {
                    value.encode_lenient(u, out)
                } else {
                    value.encode(u, out)
                }
            };
            let mut out = vec![0u8; room];
            for (got, available) in [(encode(&mut out), room), (encode(&mut []), 0)] {
                let want = expected(value, u, lenient, available);
                if got != want {
                    return Err(format!(
                        "at v{u} (lenient {lenient}, {available} bytes): {got:?}, sizing says {want:?}"
                    ));
                }
                if available == room
                    && !matches!(got, Ok(_) | Err(EncodeError::BufferTooSmall { .. }))
                {
                    refused += 1;
                }
            }
        }
    }
    Ok(refused)
}

#[test]
fn one_pass_encoding_refuses_what_sizing_refuses() {
    let mut failures = Failures::default();
    let (mut values, mut refused) = (0usize, 0usize);
    for schema in schema::MESSAGES.iter().copied() {
        let key = ApiKey(schema.api_key);
        let range = schema.valid_versions;
        for v in versions(range) {
            for seed in 0..VERSION_SEEDS {
                let bytes = random(schema, v, seed);
                let mut r = Reader::new(&bytes);
                let result = match schema.kind {
                    MessageKind::Request => Request::decode(&mut r, key, v)
                        .map_err(|e| e.to_string())
                        .and_then(|value| encode_across(&value, range)),
                    MessageKind::Response => Response::decode(&mut r, key, v)
                        .map_err(|e| e.to_string())
                        .and_then(|value| encode_across(&value, range)),
                    MessageKind::Header | MessageKind::Data => continue,
                };
                values += 1;
                match result {
                    Ok(n) => refused += n,
                    Err(what) => failures.add(schema, v, format!("seed {seed}: {what}")),
                }
            }
        }
    }
    println!("{values} values encoded at every version; {refused} encodes refused a value");
    assert!(
        refused > 1000,
        "random instances hold values other versions cannot carry"
    );
    failures.settle("one-pass encodes that disagree with sizing");
}

/// Encodes `T::default()` at every valid version; returns the number of versions.
fn check_default<T: Default + Encode + Message>(failures: &mut Failures) -> usize {
    let schema = schema::by_name(T::NAME).unwrap_or_else(|| panic!("no schema named {}", T::NAME));
    assert_eq!(schema.valid_versions, T::VALID_VERSIONS, "{}", T::NAME);
    let value = T::default();
    let mut count = 0;
    for v in versions(T::VALID_VERSIONS) {
        count += 1;
        let result = (|| {
            let len = value
                .encoded_len(v)
                .map_err(|e| format!("default encoded_len: {e}"))?;
            let mut buf = vec![0u8; len];
            let n = value
                .encode(v, &mut buf)
                .map_err(|e| format!("default encode: {e}"))?;
            if n != len {
                return Err(format!("encoded_len {len} but encode wrote {n}"));
            }
            check_instance(schema, v, &buf)
        })();
        if let Err(what) = result {
            failures.add(schema, v, what);
        }
    }
    count
}

macro_rules! check_defaults {
    ($failures:expr; $($t:ident),* $(,)?) => {{
        let mut types = 0usize;
        let mut versions = 0usize;
        $(
            types += 1;
            versions += check_default::<m::$t<'static>>($failures);
        )*
        (types, versions)
    }};
}

#[test]
fn default_values_encode_at_every_valid_version() {
    let mut failures = Failures::default();
    let (req_types, req_versions) = check_defaults!(&mut failures;
    ProduceRequest, FetchRequest, ListOffsetsRequest, MetadataRequest, LeaderAndIsrRequest,
    StopReplicaRequest, UpdateMetadataRequest, ControlledShutdownRequest, OffsetCommitRequest,
    OffsetFetchRequest, FindCoordinatorRequest, JoinGroupRequest, HeartbeatRequest,
    LeaveGroupRequest, SyncGroupRequest, DescribeGroupsRequest, ListGroupsRequest,
    SaslHandshakeRequest, ApiVersionsRequest, CreateTopicsRequest, DeleteTopicsRequest,
    DeleteRecordsRequest, InitProducerIdRequest, OffsetForLeaderEpochRequest,
    AddPartitionsToTxnRequest, AddOffsetsToTxnRequest, EndTxnRequest, WriteTxnMarkersRequest,
    TxnOffsetCommitRequest, DescribeAclsRequest, CreateAclsRequest, DeleteAclsRequest,
    DescribeConfigsRequest, AlterConfigsRequest, AlterReplicaLogDirsRequest,
    DescribeLogDirsRequest, SaslAuthenticateRequest, CreatePartitionsRequest,
    CreateDelegationTokenRequest, RenewDelegationTokenRequest, ExpireDelegationTokenRequest,
    DescribeDelegationTokenRequest, DeleteGroupsRequest, ElectLeadersRequest,
    IncrementalAlterConfigsRequest, AlterPartitionReassignmentsRequest,
    ListPartitionReassignmentsRequest, OffsetDeleteRequest, DescribeClientQuotasRequest,
    AlterClientQuotasRequest, DescribeUserScramCredentialsRequest,
    AlterUserScramCredentialsRequest, VoteRequest, BeginQuorumEpochRequest, EndQuorumEpochRequest,
    DescribeQuorumRequest, AlterPartitionRequest, UpdateFeaturesRequest, EnvelopeRequest,
    FetchSnapshotRequest, DescribeClusterRequest, DescribeProducersRequest,
    BrokerRegistrationRequest, BrokerHeartbeatRequest, UnregisterBrokerRequest,
    DescribeTransactionsRequest, ListTransactionsRequest, AllocateProducerIdsRequest,
    ConsumerGroupHeartbeatRequest, ConsumerGroupDescribeRequest, ControllerRegistrationRequest,
    GetTelemetrySubscriptionsRequest, PushTelemetryRequest, AssignReplicasToDirsRequest,
    ListConfigResourcesRequest, DescribeTopicPartitionsRequest, ShareGroupHeartbeatRequest,
    ShareGroupDescribeRequest, ShareFetchRequest, ShareAcknowledgeRequest, AddRaftVoterRequest,
    RemoveRaftVoterRequest, UpdateRaftVoterRequest, InitializeShareGroupStateRequest,
    ReadShareGroupStateRequest, WriteShareGroupStateRequest, DeleteShareGroupStateRequest,
    ReadShareGroupStateSummaryRequest, StreamsGroupHeartbeatRequest, StreamsGroupDescribeRequest,
    DescribeShareGroupOffsetsRequest, AlterShareGroupOffsetsRequest,
    DeleteShareGroupOffsetsRequest, StreamsGroupTopologyDescriptionUpdateRequest,
    UnregisterControllerRequest
    );
    let (resp_types, resp_versions) = check_defaults!(&mut failures;
    ProduceResponse, FetchResponse, ListOffsetsResponse, MetadataResponse, LeaderAndIsrResponse,
    StopReplicaResponse, UpdateMetadataResponse, ControlledShutdownResponse, OffsetCommitResponse,
    OffsetFetchResponse, FindCoordinatorResponse, JoinGroupResponse, HeartbeatResponse,
    LeaveGroupResponse, SyncGroupResponse, DescribeGroupsResponse, ListGroupsResponse,
    SaslHandshakeResponse, ApiVersionsResponse, CreateTopicsResponse, DeleteTopicsResponse,
    DeleteRecordsResponse, InitProducerIdResponse, OffsetForLeaderEpochResponse,
    AddPartitionsToTxnResponse, AddOffsetsToTxnResponse, EndTxnResponse, WriteTxnMarkersResponse,
    TxnOffsetCommitResponse, DescribeAclsResponse, CreateAclsResponse, DeleteAclsResponse,
    DescribeConfigsResponse, AlterConfigsResponse, AlterReplicaLogDirsResponse,
    DescribeLogDirsResponse, SaslAuthenticateResponse, CreatePartitionsResponse,
    CreateDelegationTokenResponse, RenewDelegationTokenResponse, ExpireDelegationTokenResponse,
    DescribeDelegationTokenResponse, DeleteGroupsResponse, ElectLeadersResponse,
    IncrementalAlterConfigsResponse, AlterPartitionReassignmentsResponse,
    ListPartitionReassignmentsResponse, OffsetDeleteResponse, DescribeClientQuotasResponse,
    AlterClientQuotasResponse, DescribeUserScramCredentialsResponse,
    AlterUserScramCredentialsResponse, VoteResponse, BeginQuorumEpochResponse,
    EndQuorumEpochResponse, DescribeQuorumResponse, AlterPartitionResponse, UpdateFeaturesResponse,
    EnvelopeResponse, FetchSnapshotResponse, DescribeClusterResponse, DescribeProducersResponse,
    BrokerRegistrationResponse, BrokerHeartbeatResponse, UnregisterBrokerResponse,
    DescribeTransactionsResponse, ListTransactionsResponse, AllocateProducerIdsResponse,
    ConsumerGroupHeartbeatResponse, ConsumerGroupDescribeResponse, ControllerRegistrationResponse,
    GetTelemetrySubscriptionsResponse, PushTelemetryResponse, AssignReplicasToDirsResponse,
    ListConfigResourcesResponse, DescribeTopicPartitionsResponse, ShareGroupHeartbeatResponse,
    ShareGroupDescribeResponse, ShareFetchResponse, ShareAcknowledgeResponse, AddRaftVoterResponse,
    RemoveRaftVoterResponse, UpdateRaftVoterResponse, InitializeShareGroupStateResponse,
    ReadShareGroupStateResponse, WriteShareGroupStateResponse, DeleteShareGroupStateResponse,
    ReadShareGroupStateSummaryResponse, StreamsGroupHeartbeatResponse,
    StreamsGroupDescribeResponse, DescribeShareGroupOffsetsResponse,
    AlterShareGroupOffsetsResponse, DeleteShareGroupOffsetsResponse,
    StreamsGroupTopologyDescriptionUpdateResponse, UnregisterControllerResponse
    );
    println!(
        "defaults: {req_types} request types ({req_versions} versions), \
         {resp_types} response types ({resp_versions} versions)"
    );
    let with_versions = |kind: MessageKind| {
        schema::MESSAGES
            .iter()
            .filter(|s| s.kind == kind && !s.valid_versions.is_empty())
            .count()
    };
    assert_eq!(req_types, with_versions(MessageKind::Request));
    assert_eq!(resp_types, with_versions(MessageKind::Response));
    assert_eq!((req_types, resp_types), (95, 95));
    assert_eq!((req_versions, resp_versions), (364, 364));
    failures.settle("default values");
}

/// Corrupts one instance: one to three times, overwrite a byte, or insert or remove one.
fn corrupt(bytes: &[u8], seed: u64) -> Vec<u8> {
    let mut x = seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) ^ 0xd1b5_4a32_d192_ed03;
    let mut next = move || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x
    };
    let mut out = bytes.to_vec();
    let times = 1 + usize::from(next() % 4 == 0) + usize::from(next() % 8 == 0);
    for _ in 0..times {
        if out.is_empty() {
            out.push(next() as u8);
            continue;
        }
        let at = (next() % out.len() as u64) as usize;
        match next() % 8 {
            0 => out[at] = 0xff,
            1 => out[at] = 0x00,
            2 => out[at] = out[at].wrapping_add(1),
            3 => out[at] = out[at].wrapping_sub(1),
            4 => out[at] ^= 0x80,
            5 => {
                out.remove(at);
            }
            6 => out.insert(at, next() as u8),
            _ => out[at] = next() as u8,
        }
    }
    out
}

/// The typed decoder's verdict on `bytes`: consumed bytes, or the error offset and kind.
fn typed_verdict(schema: &MessageSchema, version: i16, bytes: &[u8]) -> Result<usize, DecodeError> {
    let key = ApiKey(schema.api_key);
    let mut r = Reader::new(bytes);
    // Formatting a decoded value iterates every array in it: an element that the decode's walk
    // accepted but a read refuses trips the iterator's debug assertion.
    let visit = |v: &dyn Debug| drop(format!("{v:?}"));
    match schema.kind {
        MessageKind::Request => Request::decode(&mut r, key, version).map(|v| visit(&v)),
        MessageKind::Response => Response::decode(&mut r, key, version).map(|v| visit(&v)),
        MessageKind::Header | MessageKind::Data => match schema.name {
            "RequestHeader" => m::RequestHeader::decode(&mut r, version).map(|v| visit(&v)),
            "ResponseHeader" => m::ResponseHeader::decode(&mut r, version).map(|v| visit(&v)),
            other => panic!("no typed decoder wired for {other}"),
        },
    }?;
    Ok(r.offset())
}

#[test]
fn walker_and_typed_decoder_agree_on_corrupted_input() {
    let start = Instant::now();
    let mut failures = Failures::default();
    let (mut cases, mut rejected) = (0usize, 0usize);
    for schema in schema::MESSAGES.iter().copied() {
        if matches!(schema.kind, MessageKind::Data) {
            continue;
        }
        for v in versions(schema.valid_versions) {
            for seed in 0..MUTATION_SEEDS {
                let bytes = random(schema, v, seed);
                for k in 0..MUTATIONS {
                    let bad = corrupt(&bytes, seed.wrapping_mul(1000).wrapping_add(k));
                    cases += 1;
                    let ours = walker::validate(schema, v, &bad);
                    let theirs = typed_verdict(schema, v, &bad);
                    let agree = match (&ours, &theirs) {
                        (Ok(a), Ok(b)) => a == b,
                        (Err(a), Err(b)) if a.offset == b.offset && a.kind == b.kind => true,
                        _ => false,
                    };
                    rejected += usize::from(ours.is_err() && agree);
                    if !agree {
                        failures.add(
                            schema,
                            v,
                            format!(
                                "seed {seed} corruption {k}: walker {ours:?}, typed {theirs:?}\n input {}",
                                hex(&bad)
                            ),
                        );
                    }
                }
            }
        }
    }
    println!(
        "corrupted inputs: {cases} cases, {rejected} rejected by both in {:?}",
        start.elapsed()
    );
    failures.settle("walker and typed decoder disagree");
}

/// Decodes the walker's random instances of `name` at `version` with the typed code.
fn typed_instances<'a, T>(
    name: &str,
    version: i16,
    bufs: &'a mut Vec<Vec<u8>>,
    decode: impl Fn(&'a [u8]) -> T,
) -> Vec<T> {
    let schema = schema::by_name(name).unwrap();
    *bufs = (0..SEEDS)
        .map(|seed| random(schema, version, seed))
        .collect();
    bufs.iter().map(|b| decode(b)).collect()
}

#[test]
fn random_instances_exercise_tagged_fields_and_nulls() {
    let mut bufs = Vec::new();
    let all = typed_instances("ApiVersionsResponse", 4, &mut bufs, |b| {
        m::ApiVersionsResponse::decode_exact(b, 4).unwrap()
    });
    let n = |f: &dyn Fn(&m::ApiVersionsResponse<'_>) -> bool| all.iter().filter(|x| f(x)).count();
    let counts = [
        n(&|x| !x.supported_features.is_empty()),
        n(&|x| x.finalized_features_epoch != -1),
        n(&|x| !x.finalized_features.is_empty()),
        n(&|x| x.zk_migration_ready),
        n(&|x| !x.unknown_tagged_fields.is_empty()),
        n(&|x| x.api_keys.is_empty()),
        n(&|x| x.api_keys.len() == 3),
    ];
    println!("ApiVersionsResponse v4 of {SEEDS}: {counts:?}");
    assert!(
        counts.iter().all(|&c| c > SEEDS as usize / 16),
        "{counts:?}"
    );

    let mut bufs = Vec::new();
    let all = typed_instances("FetchRequest", 17, &mut bufs, |b| {
        m::FetchRequest::decode_exact(b, 17).unwrap()
    });
    let replica_state = all.iter().filter(|x| !x.replica_state.is_default()).count();
    let cluster_id = all.iter().filter(|x| x.cluster_id.is_some()).count();
    println!("FetchRequest v17 of {SEEDS}: replica state {replica_state}, cluster id {cluster_id}");
    assert!(replica_state > SEEDS as usize / 4 && cluster_id > SEEDS as usize / 4);

    let mut bufs = Vec::new();
    let all = typed_instances("BrokerHeartbeatRequest", 2, &mut bufs, |b| {
        m::BrokerHeartbeatRequest::decode_exact(b, 2).unwrap()
    });
    let cordoned = all.iter().filter(|x| x.cordoned_log_dirs.is_some()).count();
    let cordoned_empty = all
        .iter()
        .filter(|x| x.cordoned_log_dirs.is_some_and(|a| a.is_empty()))
        .count();
    println!("BrokerHeartbeatRequest v2 of {SEEDS}: cordoned {cordoned} (empty {cordoned_empty})");
    assert!(cordoned > SEEDS as usize / 4 && cordoned_empty > 0);

    let mut bufs = Vec::new();
    let all = typed_instances("MetadataRequest", 12, &mut bufs, |b| {
        m::MetadataRequest::decode_exact(b, 12).unwrap()
    });
    let null_topics = all.iter().filter(|x| x.topics.is_none()).count();
    println!("MetadataRequest v12 of {SEEDS}: null topics {null_topics}");
    assert!(null_topics > SEEDS as usize / 8 && null_topics < SEEDS as usize / 2);
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(4096))]

    /// Any schema, any valid version, any seed: the walker's instance survives the typed code.
    /// Failures shrink to the smallest seed, version and schema index.
    #[test]
    fn proptest_any_message_any_version_any_seed(
        index in 0..schema::MESSAGES.len(),
        pick in proptest::prelude::any::<u16>(),
        seed in proptest::prelude::any::<u64>(),
    ) {
        let schema = schema::MESSAGES[index];
        let valid = schema.valid_versions;
        proptest::prop_assume!(!valid.is_empty());
        let span = u16::try_from(valid.max - valid.min).expect("ranges are small") + 1;
        let version = valid.min + i16::try_from(pick % span).expect("fits");
        let bytes = random(schema, version, seed);
        if let Err(why) = check_instance(schema, version, &bytes) {
            proptest::prop_assert!(false, "{} v{version} seed {seed}: {why}", schema.name);
        }
    }
}

/// Decodes `bytes` with `Decode::decode` (a walker first, the reader where it refuses) and with
/// the reader alone, and checks that both give the same value or the same error.
fn both_paths_agree<'a, T: Decode<'a> + PartialEq + Debug>(bytes: &'a [u8], version: i16) {
    let mut fast = Reader::new(bytes);
    let decoded = T::decode(&mut fast, version);
    let mut slow = Reader::new(bytes);
    let read = T::read(&mut slow, version).map_err(|_| slow.take_error());
    assert_eq!(decoded, read, "{} at v{version}", T::PATH);
    if decoded.is_ok() {
        assert_eq!(fast.offset(), slow.offset(), "{} at v{version}", T::PATH);
    }
}

/// A message's own tagged fields (a FetchResponse's node endpoints, an ApiVersionsResponse's
/// features), which `decode` reads through its walker, give the value, and on a truncated or
/// corrupted section the error, of the reader alone. (That the decode no longer begins again
/// shows in the instruction counts, not here.)
#[test]
fn a_message_tagged_section_reads_alike_through_both_paths() {
    let endpoints = [m::fetch_response::NodeEndpoint::default()
        .with_node_id(2)
        .with_host("broker-2")
        .with_port(9092)
        .with_rack(Some("rack-b"))];
    let partitions = [m::fetch_response::PartitionData::default().with_partition_index(4)];
    let topics = [m::fetch_response::FetchableTopicResponse::default()
        .with_topic_id(kwire::codec::Uuid::from_u64_pair(1, 2))
        .with_partitions(&partitions[..])];
    let fetch = m::FetchResponse::default()
        .with_responses(&topics[..])
        .with_node_endpoints(&endpoints[..]);
    let features = [m::api_versions_response::SupportedFeatureKey::default()
        .with_name("kraft.version")
        .with_max_version(1)];
    let versions = m::ApiVersionsResponse::default()
        .with_supported_features(&features[..])
        .with_finalized_features_epoch(7);
    let mut buf = [0u8; 512];
    for v in [16, 17] {
        let n = fetch.encode(v, &mut buf).unwrap();
        let bytes = &buf[..n];
        both_paths_agree::<m::FetchResponse>(bytes, v);
        assert_eq!(
            m::FetchResponse::decode(&mut Reader::new(bytes), v)
                .unwrap()
                .node_endpoints,
            fetch.node_endpoints
        );
        for cut in 1..n {
            both_paths_agree::<m::FetchResponse>(&bytes[..n - cut], v);
        }
        let mut bad = bytes.to_vec();
        // The section's entry count, one more than there are entries.
        let count = n - endpoints_section_len(&fetch, v);
        bad[count] += 1;
        both_paths_agree::<m::FetchResponse>(&bad, v);
    }
    let n = versions.encode(4, &mut buf).unwrap();
    for cut in 0..n {
        both_paths_agree::<m::ApiVersionsResponse>(&buf[..n - cut], 4);
    }
}

/// The length of a FetchResponse's root tagged section: its whole encoding less the encoding
/// without the node endpoints, plus the one byte of an empty section.
fn endpoints_section_len(fetch: &m::FetchResponse<'_>, version: i16) -> usize {
    let without = fetch.with_node_endpoints(kwire::codec::Array::Slice(&[]));
    fetch.encoded_len(version).unwrap() - without.encoded_len(version).unwrap() + 1
}
