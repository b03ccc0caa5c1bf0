//! Version negotiation against the ranges real brokers advertise: 0.10.2, 2.8, 3.9 (derived from
//! the 3.9.2 schemas) and 4.x (derived from the trunk schemas), the ApiVersions v0 fallback
//! exchange, and an ApiVersions response body recorded from a 0.10.2 broker.

use std::fs;
use std::path::Path;

use kwire::api::{
    ApiKey, NegotiateError, Unsupported, VersionTable, api_versions_request_version,
    decode_api_versions, decode_api_versions_body,
};
use kwire::codec::VersionRange;
use kwire::frame;
use kwire::messages::api_versions_response::ApiVersion;
use kwire::messages::{ApiVersionsResponse, ResponseHeader};
use kwire::{ErrorCode, Response};

// ---------------------------------------------------------------------------------------------
// Advertised ranges of old brokers.
//
// Source: kafka-python's `kafka/protocol/broker_api_versions.py` (BROKER_API_VERSIONS), whose
// tables from 0.10.1 on are, per its comment, "copied from brokers via api_versions_response".
// The 0.10.2 table is also exactly what the ApiVersions v0 response body recorded in kafkajs's
// fixtures holds (see `KAFKAJS_0_10_2_BODY` below), and agrees with librdkafka debug logs of
// real brokers quoted in its issue tracker.
// ---------------------------------------------------------------------------------------------

/// Kafka 0.10.2: `(key, min, max)`.
const BROKER_0_10_2: &[(i16, i16, i16)] = &[
    (0, 0, 2),
    (1, 0, 3),
    (2, 0, 1),
    (3, 0, 2),
    (4, 0, 0),
    (5, 0, 0),
    (6, 0, 3),
    (7, 1, 1),
    (8, 0, 2),
    (9, 0, 2),
    (10, 0, 0),
    (11, 0, 1),
    (12, 0, 0),
    (13, 0, 0),
    (14, 0, 0),
    (15, 0, 0),
    (16, 0, 0),
    (17, 0, 0),
    (18, 0, 0),
    (19, 0, 1),
    (20, 0, 0),
];

/// Kafka 2.8: `(key, min, max)`.
const BROKER_2_8: &[(i16, i16, i16)] = &[
    (0, 0, 9),
    (1, 0, 12),
    (2, 0, 6),
    (3, 0, 11),
    (4, 0, 5),
    (5, 0, 3),
    (6, 0, 7),
    (7, 0, 3),
    (8, 0, 8),
    (9, 0, 7),
    (10, 0, 3),
    (11, 0, 7),
    (12, 0, 4),
    (13, 0, 4),
    (14, 0, 5),
    (15, 0, 5),
    (16, 0, 4),
    (17, 0, 1),
    (18, 0, 3),
    (19, 0, 7),
    (20, 0, 6),
    (21, 0, 2),
    (22, 0, 4),
    (23, 0, 4),
    (24, 0, 3),
    (25, 0, 3),
    (26, 0, 3),
    (27, 0, 1),
    (28, 0, 3),
    (29, 0, 2),
    (30, 0, 2),
    (31, 0, 2),
    (32, 0, 4),
    (33, 0, 2),
    (34, 0, 2),
    (35, 0, 2),
    (36, 0, 2),
    (37, 0, 3),
    (38, 0, 2),
    (39, 0, 2),
    (40, 0, 2),
    (41, 0, 2),
    (42, 0, 2),
    (43, 0, 2),
    (44, 0, 1),
    (45, 0, 0),
    (46, 0, 0),
    (47, 0, 0),
    (48, 0, 1),
    (49, 0, 1),
    (50, 0, 0),
    (51, 0, 0),
    (56, 0, 0),
    (57, 0, 0),
    (60, 0, 0),
    (61, 0, 0),
];

/// Asserts that the version negotiated for `key` is `expected`, the answer once the crate speaks
/// every version of the 3.9 schemas. Where this crate does not speak `expected` (Kafka 4.0
/// removed it), asserts the typed reason instead, so that the expectation follows
/// `ApiKey::request_versions()`.
fn assert_version(table: &VersionTable, key: ApiKey, expected: i16) {
    let ours = key.request_versions();
    let got = table.negotiate(key);
    if ours.contains(expected) {
        assert_eq!(got, Ok(expected), "{key:?}");
    } else if ours.is_empty() {
        assert_eq!(got, Err(Unsupported::UnknownKey), "{key:?}");
    } else {
        let broker = table.advertised(key).unwrap();
        assert!(broker.max < ours.min, "{key:?}: {broker} against {ours}");
        assert_eq!(
            got,
            Err(Unsupported::BrokerTooOld { broker, ours }),
            "{key:?}"
        );
    }
}

/// The rule, restated: for every advertised key, the highest version in both ranges, or the
/// right reason why there is none.
fn assert_rule(table: &VersionTable, advertised: &[(i16, i16, i16)]) {
    for &(key, min, max) in advertised {
        let key = ApiKey(key);
        let ours = key.request_versions();
        let broker = VersionRange::new(min, max);
        let expected = if ours.is_empty() {
            Err(Unsupported::UnknownKey)
        } else if broker.is_empty() {
            Err(Unsupported::EmptyBrokerRange { broker })
        } else if max < ours.min {
            Err(Unsupported::BrokerTooOld { broker, ours })
        } else if min > ours.max {
            Err(Unsupported::BrokerTooNew { broker, ours })
        } else {
            Ok(max.min(ours.max))
        };
        assert_eq!(table.negotiate(key), expected, "{key:?}");
    }
    for key in ApiKey::all() {
        if !advertised.iter().any(|&(k, _, _)| k == key.0) && !key.request_versions().is_empty() {
            assert_eq!(
                table.negotiate(key),
                Err(Unsupported::NotAdvertised),
                "{key:?}"
            );
        }
    }
}

#[test]
fn broker_0_10_2() {
    let t = VersionTable::from_ranges(BROKER_0_10_2).unwrap();
    assert_rule(&t, BROKER_0_10_2);
    for (key, expected) in [
        (ApiKey::PRODUCE, 2),
        (ApiKey::FETCH, 3),
        (ApiKey::LIST_OFFSETS, 1),
        (ApiKey::METADATA, 2),
        (ApiKey::LEADER_AND_ISR, 0),
        (ApiKey::STOP_REPLICA, 0),
        (ApiKey::UPDATE_METADATA, 3),
        (ApiKey::CONTROLLED_SHUTDOWN, 1),
        (ApiKey::OFFSET_COMMIT, 2),
        (ApiKey::OFFSET_FETCH, 2),
        (ApiKey::FIND_COORDINATOR, 0),
        (ApiKey::JOIN_GROUP, 1),
        (ApiKey::HEARTBEAT, 0),
        (ApiKey::LEAVE_GROUP, 0),
        (ApiKey::SYNC_GROUP, 0),
        (ApiKey::DESCRIBE_GROUPS, 0),
        (ApiKey::LIST_GROUPS, 0),
        (ApiKey::SASL_HANDSHAKE, 0),
        (ApiKey::API_VERSIONS, 0),
        (ApiKey::CREATE_TOPICS, 1),
        (ApiKey::DELETE_TOPICS, 0),
    ] {
        assert_version(&t, key, expected);
    }
    // Keys 0.10.2 did not have.
    for key in [
        ApiKey::DELETE_RECORDS,
        ApiKey::INIT_PRODUCER_ID,
        ApiKey::SASL_AUTHENTICATE,
        ApiKey::DESCRIBE_CLUSTER,
    ] {
        assert_eq!(t.negotiate(key), Err(Unsupported::NotAdvertised), "{key:?}");
    }
}

#[test]
fn broker_2_8() {
    let t = VersionTable::from_ranges(BROKER_2_8).unwrap();
    assert_rule(&t, BROKER_2_8);
    for (key, expected) in [
        (ApiKey::PRODUCE, 9),
        (ApiKey::FETCH, 12),
        (ApiKey::LIST_OFFSETS, 6),
        (ApiKey::METADATA, 11),
        (ApiKey::LEADER_AND_ISR, 5),
        (ApiKey::STOP_REPLICA, 3),
        (ApiKey::UPDATE_METADATA, 7),
        (ApiKey::CONTROLLED_SHUTDOWN, 3),
        (ApiKey::OFFSET_COMMIT, 8),
        (ApiKey::OFFSET_FETCH, 7),
        (ApiKey::FIND_COORDINATOR, 3),
        (ApiKey::JOIN_GROUP, 7),
        (ApiKey::API_VERSIONS, 3),
        (ApiKey::CREATE_TOPICS, 7),
        (ApiKey::DELETE_TOPICS, 6),
        (ApiKey::INIT_PRODUCER_ID, 4),
        (ApiKey::OFFSET_FOR_LEADER_EPOCH, 4),
        (ApiKey::WRITE_TXN_MARKERS, 1),
        (ApiKey::DESCRIBE_CONFIGS, 4),
        (ApiKey::SASL_AUTHENTICATE, 2),
        (ApiKey::CREATE_DELEGATION_TOKEN, 2),
        // Key 56 was AlterIsr, v0 only, in 2.8; AlterPartition v0 in 3.9.
        (ApiKey::ALTER_PARTITION, 0),
        (ApiKey::DESCRIBE_CLUSTER, 0),
        (ApiKey::DESCRIBE_PRODUCERS, 0),
    ] {
        assert_version(&t, key, expected);
    }
    assert_eq!(
        t.negotiate(ApiKey::DESCRIBE_TRANSACTIONS),
        Err(Unsupported::NotAdvertised)
    );
}

// ---------------------------------------------------------------------------------------------
// Ranges derived from the schema files.
// ---------------------------------------------------------------------------------------------

/// The top-level facts of one request schema.
#[derive(Debug)]
struct SchemaFacts {
    key: i16,
    valid: VersionRange,
    listeners: Vec<String>,
    latest_unstable: bool,
}

/// The text after `"name":` up to the end of its value, in the top-level part of a schema.
fn value_of<'a>(top: &'a str, name: &str) -> Option<&'a str> {
    let at = top.find(&format!("\"{name}\""))?;
    let rest = top[at + name.len() + 2..].trim_start();
    let rest = rest.strip_prefix(':')?.trim_start();
    let end = if rest.starts_with('[') {
        rest.find(']')? + 1
    } else if let Some(quoted) = rest.strip_prefix('"') {
        quoted.find('"')? + 2
    } else {
        rest.find([',', '\n', '}'])?
    };
    Some(rest[..end].trim())
}

fn parse_range(s: &str) -> VersionRange {
    let s = s.trim_matches('"');
    if s == "none" {
        return VersionRange::NONE;
    }
    match s.split_once('-') {
        Some((a, b)) => VersionRange::new(a.parse().unwrap(), b.parse().unwrap()),
        None => {
            let v = s.parse().unwrap();
            VersionRange::new(v, v)
        }
    }
}

/// Reads `apiKey`, `validVersions`, `listeners` and `latestVersionUnstable` of every request
/// schema in `dir`: a hand-written extraction of the top-level keys, which come before
/// `"fields"`, with `//` comment lines removed.
fn request_schemas(dir: &str) -> Vec<SchemaFacts> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join(dir);
    let mut out = Vec::new();
    for entry in fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap().to_str().unwrap().to_owned();
        if !name.ends_with("Request.json") {
            continue;
        }
        let text: String = fs::read_to_string(&path)
            .unwrap()
            .lines()
            .filter(|l| !l.trim_start().starts_with("//"))
            .collect::<Vec<_>>()
            .join("\n");
        let top = &text[..text.find("\"fields\"").unwrap_or(text.len())];
        if value_of(top, "type") != Some("\"request\"") {
            continue;
        }
        let key = value_of(top, "apiKey").unwrap().parse().unwrap();
        let valid = parse_range(value_of(top, "validVersions").unwrap());
        let listeners = value_of(top, "listeners")
            .map(|l| {
                l.trim_matches(['[', ']'])
                    .split(',')
                    .map(|s| s.trim().trim_matches('"').to_owned())
                    .filter(|s| !s.is_empty())
                    .collect()
            })
            .unwrap_or_default();
        let latest_unstable = value_of(top, "latestVersionUnstable") == Some("true");
        out.push(SchemaFacts {
            key,
            valid,
            listeners,
            latest_unstable,
        });
    }
    out.sort_by_key(|s| s.key);
    out
}

/// What a broker built from `dir`'s schemas advertises on a listener of kind `listener`
/// (`"broker"`, or `"zkBroker"` for a ZooKeeper-mode 3.x broker): the valid versions of every
/// API that listener serves, without a latest version marked unstable (brokers advertise those
/// only when `unstable.api.versions.enable` is set), and without APIs left with no version.
fn advertised_by(dir: &str, listener: &str) -> Vec<(i16, i16, i16)> {
    request_schemas(dir)
        .into_iter()
        .filter(|s| s.listeners.iter().any(|l| l == listener))
        .filter_map(|s| {
            let mut r = s.valid;
            if s.latest_unstable {
                r.max -= 1;
            }
            (!r.is_empty()).then_some((s.key, r.min, r.max))
        })
        .collect()
}

const SCHEMAS_3_9: &str = "../shared/kafka-schemas/message-3.9";
const SCHEMAS_TRUNK: &str = "../shared/kafka-schemas/message";

fn advertised_range(advertised: &[(i16, i16, i16)], key: ApiKey) -> Option<(i16, i16)> {
    advertised
        .iter()
        .find(|&&(k, _, _)| k == key.0)
        .map(|&(_, a, b)| (a, b))
}

#[test]
fn schema_extraction_matches_the_protocol_notes() {
    // Spot checks against the 3.9.2 and trunk columns of the protocol notes, section 11.1.
    let kraft_3_9 = advertised_by(SCHEMAS_3_9, "broker");
    for (key, range) in [
        (ApiKey::PRODUCE, (0, 11)),
        (ApiKey::FETCH, (0, 17)),
        (ApiKey::LIST_OFFSETS, (0, 9)),
        (ApiKey::OFFSET_COMMIT, (0, 9)),
        (ApiKey::API_VERSIONS, (0, 4)),
        (ApiKey::CREATE_TOPICS, (0, 7)),
        (ApiKey::INIT_PRODUCER_ID, (0, 5)),
        (ApiKey::DESCRIBE_LOG_DIRS, (0, 4)),
        (ApiKey::CONSUMER_GROUP_HEARTBEAT, (0, 0)),
    ] {
        assert_eq!(
            advertised_range(&kraft_3_9, key),
            Some(range),
            "3.9 {key:?}"
        );
    }
    // Controller-only and ZooKeeper-only APIs, and the unstable share-group v0s, are not
    // advertised by a KRaft broker.
    for key in [
        ApiKey::LEADER_AND_ISR,
        ApiKey::CONTROLLED_SHUTDOWN,
        ApiKey::VOTE,
        ApiKey::BROKER_REGISTRATION,
        ApiKey(76),
        ApiKey(78),
        ApiKey(83),
    ] {
        assert_eq!(advertised_range(&kraft_3_9, key), None, "3.9 {key:?}");
    }
    let zk_3_9 = advertised_by(SCHEMAS_3_9, "zkBroker");
    assert_eq!(
        advertised_range(&zk_3_9, ApiKey::LEADER_AND_ISR),
        Some((0, 7))
    );
    assert_eq!(
        advertised_range(&zk_3_9, ApiKey::STOP_REPLICA),
        Some((0, 4))
    );
    assert_eq!(
        advertised_range(&zk_3_9, ApiKey::UPDATE_METADATA),
        Some((0, 8))
    );
    assert_eq!(
        advertised_range(&zk_3_9, ApiKey::CONTROLLED_SHUTDOWN),
        Some((0, 3))
    );

    let trunk = advertised_by(SCHEMAS_TRUNK, "broker");
    for (key, range) in [
        (ApiKey::PRODUCE, (3, 13)),
        (ApiKey::FETCH, (4, 18)),
        (ApiKey::API_VERSIONS, (0, 5)),
        (ApiKey::INIT_PRODUCER_ID, (0, 5)),
        (ApiKey::JOIN_GROUP, (0, 9)),
        (ApiKey::SHARE_FETCH, (1, 2)),
    ] {
        assert_eq!(advertised_range(&trunk, key), Some(range), "trunk {key:?}");
    }
    assert_eq!(advertised_range(&trunk, ApiKey::LEADER_AND_ISR), None);
}

#[test]
fn broker_3_9_kraft() {
    let advertised = advertised_by(SCHEMAS_3_9, "broker");
    let t = VersionTable::from_ranges(&advertised).unwrap();
    assert_rule(&t, &advertised);
    // This crate speaks every version a 3.9 broker advertises: each key negotiates to the
    // broker's highest.
    for &(key, _, max) in &advertised {
        assert_eq!(t.negotiate(ApiKey(key)), Ok(max), "{:?}", ApiKey(key));
    }
    assert_eq!(t.len(), advertised.len());
    assert_eq!(t.negotiate(ApiKey::PRODUCE), Ok(11));
    assert_eq!(t.negotiate(ApiKey::FETCH), Ok(17));
    assert_eq!(t.negotiate(ApiKey::API_VERSIONS), Ok(4));
    // LeaderAndIsr is a ZooKeeper-mode API: not advertised (or, where this crate does not speak
    // it, unknown).
    let expected = if ApiKey::LEADER_AND_ISR.request_versions().is_empty() {
        Unsupported::UnknownKey
    } else {
        Unsupported::NotAdvertised
    };
    assert_eq!(t.negotiate(ApiKey::LEADER_AND_ISR), Err(expected));
    assert_eq!(
        t.negotiate(ApiKey::SHARE_FETCH),
        Err(Unsupported::NotAdvertised)
    );
}

#[test]
fn broker_3_9_zookeeper() {
    let advertised = advertised_by(SCHEMAS_3_9, "zkBroker");
    let t = VersionTable::from_ranges(&advertised).unwrap();
    assert_rule(&t, &advertised);
    assert_version(&t, ApiKey::PRODUCE, 11);
    assert_version(&t, ApiKey::LEADER_AND_ISR, 7);
    assert_version(&t, ApiKey::STOP_REPLICA, 4);
    assert_version(&t, ApiKey::UPDATE_METADATA, 8);
    assert_version(&t, ApiKey::CONTROLLED_SHUTDOWN, 3);
}

#[test]
fn broker_4_x() {
    let advertised = advertised_by(SCHEMAS_TRUNK, "broker");
    let t = VersionTable::from_ranges(&advertised).unwrap();
    assert_rule(&t, &advertised);
    for &(key, _, max) in &advertised {
        assert_eq!(t.negotiate(ApiKey(key)), Ok(max), "{:?}", ApiKey(key));
    }
    assert_eq!(t.negotiate(ApiKey::PRODUCE), Ok(13));
    assert_eq!(t.negotiate(ApiKey::FETCH), Ok(18));
    assert_eq!(t.negotiate(ApiKey::API_VERSIONS), Ok(5));
    // InitProducerId v6 is marked unstable: not advertised, not negotiated.
    assert_eq!(t.negotiate(ApiKey::INIT_PRODUCER_ID), Ok(5));
    assert_eq!(t.common(ApiKey::PRODUCE), Ok(VersionRange::new(3, 13)));
    assert_eq!(
        t.negotiate(ApiKey::VOTE),
        Err(Unsupported::NotAdvertised),
        "controller only"
    );
}

// ---------------------------------------------------------------------------------------------
// The ApiVersions exchange, with the v0 fallback.
// ---------------------------------------------------------------------------------------------

/// What a broker advertising `advertised` answers to an ApiVersions request at `version`: the
/// full response at that version when it knows it, else error 35 in a v0 body, listing its own
/// ApiVersions range when `kip_511` (brokers since 2.4) and nothing otherwise.
fn broker_reply(
    advertised: &[(i16, i16, i16)],
    kip_511: bool,
    version: i16,
    correlation_id: i32,
) -> Vec<u8> {
    let entries: Vec<ApiVersion<'static>> = advertised
        .iter()
        .map(|&(k, min, max)| {
            ApiVersion::default()
                .with_api_key(k)
                .with_min_version(min)
                .with_max_version(max)
        })
        .collect();
    let (own_min, own_max) = advertised_range(advertised, ApiKey::API_VERSIONS).unwrap();
    let header = ResponseHeader::default().with_correlation_id(correlation_id);
    let mut out = vec![0u8; 4096];
    let n = if (own_min..=own_max).contains(&version) {
        let body = ApiVersionsResponse::default().with_api_keys(&entries[..]);
        frame::encode_response(&header, &body, version, &mut out).unwrap()
    } else {
        let own: Vec<ApiVersion<'static>> = entries
            .iter()
            .copied()
            .filter(|e| kip_511 && e.api_key == ApiKey::API_VERSIONS.0)
            .collect();
        let body = ApiVersionsResponse::default()
            .with_error_code(ErrorCode::UNSUPPORTED_VERSION.0)
            .with_api_keys(&own[..]);
        frame::encode_response(&header, &body, 0, &mut out).unwrap()
    };
    out.truncate(n);
    out
}

/// Runs the client side of the exchange against `broker_reply`; returns the versions sent and
/// the table.
fn exchange(advertised: &[(i16, i16, i16)], kip_511: bool) -> (Vec<i16>, VersionTable) {
    let mut sent = api_versions_request_version();
    let mut versions = vec![];
    for correlation_id in 0.. {
        versions.push(sent);
        let reply = broker_reply(advertised, kip_511, sent, correlation_id);
        let decoded = decode_api_versions(&reply, sent).unwrap();
        assert_eq!(decoded.header.correlation_id, correlation_id);
        match VersionTable::try_from_response(&decoded.body) {
            Ok(table) => {
                assert_eq!(decoded.version, sent);
                return (versions, table);
            }
            Err(e) => {
                assert_eq!(decoded.version, 0, "the fallback body is v0");
                sent = e.retry_version(sent).expect("a version to retry with");
            }
        }
        assert!(correlation_id < 3, "the exchange must end");
    }
    unreachable!()
}

#[test]
fn exchange_with_each_broker() {
    let ours = api_versions_request_version();
    assert_eq!(ours, ApiKey::API_VERSIONS.request_versions().max);

    // 0.10.2 knows only v0 and answers an unknown version with an empty list: retry at v0.
    let (sent, t) = exchange(BROKER_0_10_2, false);
    assert_eq!(sent, [ours, 0]);
    assert_rule(&t, BROKER_0_10_2);

    // 2.8 lists its ApiVersions range 0-3.
    let (sent, t) = exchange(BROKER_2_8, true);
    assert_eq!(sent, [ours, 3]);
    assert_rule(&t, BROKER_2_8);

    // 2.3 and older did not list it; a broker advertising 0-2 without KIP-511 gets v0.
    let (sent, _) = exchange(&[(0, 0, 7), (1, 0, 11), (18, 0, 2)], false);
    assert_eq!(sent, [ours, 0]);

    // 3.9 supports ApiVersions 0-4: this crate's v5 is retried at v4.
    let advertised = advertised_by(SCHEMAS_3_9, "broker");
    let (sent, t) = exchange(&advertised, true);
    assert_eq!(sent, [ours, 4]);
    assert_eq!(t.negotiate(ApiKey::FETCH), Ok(17));

    // A trunk broker answers the first request.
    let advertised = advertised_by(SCHEMAS_TRUNK, "broker");
    let (sent, t) = exchange(&advertised, true);
    assert_eq!(sent, [ours]);
    assert_eq!(t.negotiate(ApiKey::FETCH), Ok(18));
}

#[test]
fn fallback_body_decodes_whatever_version_was_sent() {
    for kip_511 in [false, true] {
        for sent in 1..=7 {
            let reply = broker_reply(&[(18, 0, 0)], kip_511, sent, 9);
            let decoded = decode_api_versions(&reply, sent).unwrap();
            assert_eq!(decoded.version, 0);
            assert_eq!(decoded.body.error_code, 35);
            let err = VersionTable::try_from_response(&decoded.body).unwrap_err();
            let broker = kip_511.then_some(VersionRange::new(0, 0));
            assert_eq!(err, NegotiateError::UnsupportedVersion { broker });
            assert_eq!(err.retry_version(sent), Some(0));
        }
    }
}

#[test]
fn other_errors_and_damaged_frames() {
    // Error 42 (INVALID_REQUEST) at a version the broker knows comes at that version.
    let body = ApiVersionsResponse::default().with_error_code(42);
    let mut out = [0u8; 64];
    let n = frame::encode_response(&ResponseHeader::default(), &body, 3, &mut out).unwrap();
    let decoded = decode_api_versions(&out[..n], 3).unwrap();
    assert_eq!(decoded.version, 3);
    let err = VersionTable::try_from_response(&decoded.body).unwrap_err();
    assert_eq!(err, NegotiateError::ErrorCode(42));
    assert_eq!(err.retry_version(3), None);

    // Truncations and trailing bytes are errors, never a wrong table.
    let reply = broker_reply(BROKER_2_8, true, 3, 1);
    for cut in 0..reply.len() {
        assert!(decode_api_versions(&reply[..cut], 3).is_err(), "cut {cut}");
    }
    let mut longer = reply.clone();
    longer.push(0);
    assert!(decode_api_versions(&longer, 3).is_err());
    let mut lying = reply.clone();
    lying[3] += 1;
    lying.push(0);
    assert!(decode_api_versions(&lying, 3).is_err());
}

// ---------------------------------------------------------------------------------------------
// A response recorded from a broker.
// ---------------------------------------------------------------------------------------------

/// The ApiVersions v0 response body a Kafka 0.10.2 broker sent, as recorded in kafkajs's
/// protocol fixtures (`src/protocol/requests/apiVersions/fixtures/v0_response.json` in
/// tulios/kafkajs): the body after the correlation id. Its ranges are those kafka-python lists
/// for 0.10.2, including ControlledShutdown advertised as 1-1.
const KAFKAJS_0_10_2_BODY: &[u8] = &[
    0, 0, 0, 0, 0, 21, 0, 0, 0, 0, 0, 2, 0, 1, 0, 0, 0, 3, 0, 2, 0, 0, 0, 1, 0, 3, 0, 0, 0, 2, 0,
    4, 0, 0, 0, 0, 0, 5, 0, 0, 0, 0, 0, 6, 0, 0, 0, 3, 0, 7, 0, 1, 0, 1, 0, 8, 0, 0, 0, 2, 0, 9, 0,
    0, 0, 2, 0, 10, 0, 0, 0, 0, 0, 11, 0, 0, 0, 1, 0, 12, 0, 0, 0, 0, 0, 13, 0, 0, 0, 0, 0, 14, 0,
    0, 0, 0, 0, 15, 0, 0, 0, 0, 0, 16, 0, 0, 0, 0, 0, 17, 0, 0, 0, 0, 0, 18, 0, 0, 0, 0, 0, 19, 0,
    0, 0, 1, 0, 20, 0, 0, 0, 0,
];

/// The ApiVersions v1 response body (with `ThrottleTimeMs`) of a Kafka 0.11 broker, from the
/// same fixtures (`fixtures/v1_response.json`), which kafkajs decodes as v1 and v2.
const KAFKAJS_0_11_BODY: &[u8] = &[
    0, 0, 0, 0, 0, 34, 0, 0, 0, 0, 0, 3, 0, 1, 0, 0, 0, 5, 0, 2, 0, 0, 0, 2, 0, 3, 0, 0, 0, 4, 0,
    4, 0, 0, 0, 0, 0, 5, 0, 0, 0, 0, 0, 6, 0, 0, 0, 3, 0, 7, 0, 1, 0, 1, 0, 8, 0, 0, 0, 3, 0, 9, 0,
    0, 0, 3, 0, 10, 0, 0, 0, 1, 0, 11, 0, 0, 0, 2, 0, 12, 0, 0, 0, 1, 0, 13, 0, 0, 0, 1, 0, 14, 0,
    0, 0, 1, 0, 15, 0, 0, 0, 1, 0, 16, 0, 0, 0, 1, 0, 17, 0, 0, 0, 0, 0, 18, 0, 0, 0, 1, 0, 19, 0,
    0, 0, 2, 0, 20, 0, 0, 0, 1, 0, 21, 0, 0, 0, 0, 0, 22, 0, 0, 0, 0, 0, 23, 0, 0, 0, 0, 0, 24, 0,
    0, 0, 0, 0, 25, 0, 0, 0, 0, 0, 26, 0, 0, 0, 0, 0, 27, 0, 0, 0, 0, 0, 28, 0, 0, 0, 0, 0, 29, 0,
    0, 0, 0, 0, 30, 0, 0, 0, 0, 0, 31, 0, 0, 0, 0, 0, 32, 0, 0, 0, 0, 0, 33, 0, 0, 0, 0, 0, 0, 0,
    0,
];

/// Wraps a recorded body in a frame: size prefix and response header v0 (the recording starts
/// after the correlation id).
fn framed(correlation_id: i32, body: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    out.extend_from_slice(&i32::try_from(body.len() + 4).unwrap().to_be_bytes());
    out.extend_from_slice(&correlation_id.to_be_bytes());
    out.extend_from_slice(body);
    out
}

#[test]
fn recorded_0_10_2_response() {
    let reply = framed(0, KAFKAJS_0_10_2_BODY);

    // Through the generic frame decoder.
    let (header, response) = frame::decode_response(&reply, ApiKey::API_VERSIONS, 0).unwrap();
    assert_eq!(header.correlation_id, 0);
    let Response::ApiVersions(body) = response else {
        panic!("not ApiVersions: {response:?}")
    };
    assert_eq!(body.error_code, 0);
    assert_eq!(body.api_keys.len(), 21);
    let t = VersionTable::try_from_response(&body).unwrap();
    let advertised: Vec<(i16, i16, i16)> = t
        .iter_advertised()
        .map(|(k, r)| (k.0, r.min, r.max))
        .collect();
    assert_eq!(advertised, BROKER_0_10_2);
    assert_rule(&t, BROKER_0_10_2);
    assert_version(&t, ApiKey::PRODUCE, 2);
    assert_version(&t, ApiKey::FETCH, 3);
    assert_version(&t, ApiKey::CONTROLLED_SHUTDOWN, 1);
    assert_eq!(t.negotiate(ApiKey::METADATA), Ok(2));
    assert_eq!(t.negotiate(ApiKey::JOIN_GROUP), Ok(1));
    assert_eq!(t.negotiate(ApiKey::API_VERSIONS), Ok(0));

    // Through the ApiVersions decoder: v0 as sent.
    let decoded = decode_api_versions(&reply, 0).unwrap();
    assert_eq!(decoded.version, 0);
    assert_eq!(
        VersionTable::try_from_response(&decoded.body),
        Ok(t.clone())
    );
    // A v0 body in reply to a higher version (as if the client had sent v1 or v3 and the
    // broker had answered in v0) is recognised as v0.
    for sent in [1, 2, 3, 4] {
        let decoded = decode_api_versions(&reply, sent).unwrap();
        assert_eq!(decoded.version, 0, "sent {sent}");
        assert_eq!(VersionTable::from_response(&decoded.body), t);
    }
    let (body, version) = decode_api_versions_body(KAFKAJS_0_10_2_BODY, 3).unwrap();
    assert_eq!((body.api_keys.len(), version), (21, 0));
}

#[test]
fn recorded_0_11_response() {
    let reply = framed(1, KAFKAJS_0_11_BODY);
    let decoded = decode_api_versions(&reply, 1).unwrap();
    assert_eq!(decoded.version, 1);
    assert_eq!(decoded.body.throttle_time_ms, 0);
    let t = VersionTable::try_from_response(&decoded.body).unwrap();
    assert_eq!(t.iter_advertised().count(), 34);
    assert_version(&t, ApiKey::PRODUCE, 3);
    assert_eq!(t.negotiate(ApiKey::FETCH), Ok(5));
    assert_eq!(t.negotiate(ApiKey::METADATA), Ok(4));
    assert_eq!(t.negotiate(ApiKey::API_VERSIONS), Ok(1));
    assert_version(&t, ApiKey::CREATE_TOPICS, 2);
    assert_version(&t, ApiKey::DESCRIBE_ACLS, 0);
    assert_eq!(t.negotiate(ApiKey::INIT_PRODUCER_ID), Ok(0));
    // v1 and v2 share a layout.
    assert_eq!(decode_api_versions(&reply, 2).unwrap().version, 2);
}

#[test]
fn negotiation_capped_at_the_callers_highest_version() {
    let table = VersionTable::from_ranges(&[
        (ApiKey::FETCH.0, 4, 17),
        (ApiKey::PRODUCE.0, 3, 12),
        (ApiKey::SHARE_FETCH.0, 1, 2),
    ])
    .unwrap();
    // Inside both ranges: the cap itself.
    assert_eq!(table.negotiate_up_to(ApiKey::FETCH, 12), Ok(12));
    assert_eq!(table.negotiate_up_to(ApiKey::FETCH, 4), Ok(4));
    // Above everything: the uncapped answer.
    assert_eq!(
        table.negotiate_up_to(ApiKey::PRODUCE, i16::MAX),
        table.negotiate(ApiKey::PRODUCE)
    );
    // Below the broker's lowest: the broker is too new for the caller's code.
    assert_eq!(
        table.negotiate_up_to(ApiKey::PRODUCE, 2),
        Err(Unsupported::BrokerTooNew {
            broker: VersionRange::new(3, 12),
            ours: VersionRange::new(ApiKey::PRODUCE.request_versions().min, 2),
        })
    );
    // Below the lowest version this crate speaks (ShareFetch starts at 1).
    assert_eq!(
        table.negotiate_up_to(ApiKey::SHARE_FETCH, 0),
        Err(Unsupported::UnknownKey)
    );
    assert_eq!(
        table.negotiate_up_to(ApiKey::METADATA, 12),
        Err(Unsupported::NotAdvertised)
    );
}

/// Each message type says which versions the build kept, as a constant of the type: the same
/// range as the `Message` trait's and the API table's, usable where a constant is (a firmware
/// pins its version with it, checked at compile time).
#[test]
fn each_message_type_names_its_built_versions() {
    use kwire::codec::Message;
    use kwire::messages::{FetchRequest, FetchResponse, ProduceRequest};

    const PRODUCE: i16 = ProduceRequest::BUILT_VERSIONS.max;
    const _: () = assert!(ProduceRequest::BUILT_VERSIONS.contains(PRODUCE));
    assert_eq!(
        ProduceRequest::BUILT_VERSIONS,
        <ProduceRequest<'_> as Message>::BUILT_VERSIONS
    );
    assert_eq!(
        ProduceRequest::BUILT_VERSIONS,
        ApiKey::PRODUCE.built_versions()
    );
    assert_eq!(FetchRequest::BUILT_VERSIONS, FetchResponse::BUILT_VERSIONS);
    // This build keeps every version.
    assert_eq!(
        ProduceRequest::BUILT_VERSIONS,
        ProduceRequest::VALID_VERSIONS
    );
    assert_eq!(PRODUCE, 13);
}
