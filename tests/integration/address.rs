//! Broker address rewriting (`kwire::io::relay::address`) against the schemas: every field of every
//! schema that names a host or a port is classified, and every response that can name a broker
//! is rewritten at every version.

#![cfg(all(feature = "all-apis", feature = "std"))]

use std::string::{String, ToString};
use std::vec::Vec;
use std::{format, vec};

use kwire::codec::MessageKind;
use kwire::codec::{Reader, VersionRange};
use kwire::frame::{self, Body};
use kwire::io::relay::address::*;
use kwire::messages::ResponseHeader;
use kwire::messages::{
    DescribeClusterResponse, FetchResponse, FindCoordinatorResponse, HeartbeatResponse,
    MetadataResponse, ProduceResponse, ShareAcknowledgeResponse, ShareFetchResponse,
    describe_cluster_response, fetch_response, find_coordinator_response, metadata_response,
    produce_response, share_acknowledge_response, share_fetch_response,
};
use kwire::{ApiKey, EncodeError, Response};
use kwire_schema::describe::{Category, Name, Node, TypeWord, Value, Visit};
use kwire_schema::walker::{EmptyBatch, Slot, Source, Spot, write_instance};
use kwire_schema::{self as schema, FieldType, MessageSchema, Primitive, StructSchema};

// ---- The classification -----------------------------------------------------------------

/// Whether a field name has the word `Host` or `Port` in its camel case (`Host`,
/// `ClientHost`, `HostFilter`, `V0Port`), which is how a schema names an address.
fn names_an_address(name: &str) -> bool {
    let mut words = Vec::new();
    let mut word = String::new();
    for c in name.chars() {
        if c.is_ascii_uppercase() && !word.is_empty() {
            words.push(core::mem::take(&mut word));
        }
        word.push(c);
    }
    words.push(word);
    words.iter().any(|w| w == "Host" || w == "Port")
}

/// A field that names an address, where it is.
struct Found {
    path: String,
    message: &'static MessageSchema,
    /// The versions of the field, and those in which its struct can be reached.
    versions: (VersionRange, VersionRange),
}

fn address_fields(
    m: &'static MessageSchema,
    s: &StructSchema,
    path: &str,
    depth: usize,
    found: &mut Vec<Found>,
) {
    assert!(depth < 16, "{path}: the schema nests deeper than expected");
    for f in s.fields {
        let here = format!("{path}.{}", f.name);
        if names_an_address(f.name) {
            found.push(Found {
                path: here.clone(),
                message: m,
                versions: (f.versions, s.versions),
            });
        }
        if let FieldType::Struct(inner) | FieldType::StructArray(inner) = f.ty {
            address_fields(m, inner, &here, depth + 1, found);
        }
    }
}

/// Every field of every schema (requests, responses, headers and data) that names a host
/// or a port, at every depth.
fn every_address_field() -> Vec<Found> {
    let mut found = Vec::new();
    for m in schema::MESSAGES {
        address_fields(m, m.root, m.name, 0, &mut found);
    }
    found
}

#[test]
fn every_host_and_port_field_is_classified() {
    let found = every_address_field();
    let left: Vec<&str> = LEFT_AS_IS.iter().map(|(path, _)| *path).collect();
    let undecided: Vec<&str> = found
        .iter()
        .map(|f| f.path.as_str())
        .filter(|p| !REWRITTEN.contains(p) && !left.contains(p))
        .collect();
    assert!(
        undecided.is_empty(),
        "fields that name a host or a port, in neither REWRITTEN nor LEFT_AS_IS: {undecided:?}"
    );
    let stale: Vec<&str> = REWRITTEN
        .iter()
        .chain(&left)
        .copied()
        .filter(|p| !found.iter().any(|f| f.path == *p))
        .collect();
    assert!(
        stale.is_empty(),
        "listed fields that no schema has (or that name no host or port): {stale:?}"
    );
    let both: Vec<&&str> = REWRITTEN.iter().filter(|p| left.contains(p)).collect();
    assert!(both.is_empty(), "in both lists: {both:?}");
    let mut all: Vec<&str> = REWRITTEN.iter().chain(&left).copied().collect();
    all.sort_unstable();
    let listed = all.len();
    all.dedup();
    assert_eq!(all.len(), listed, "a field is listed twice");
    for (path, why) in LEFT_AS_IS {
        assert!(!why.is_empty(), "{path}: no reason given");
    }
}

#[test]
fn the_apis_that_tell_addresses_are_those_of_the_rewritten_fields() {
    let found = every_address_field();
    for m in schema::MESSAGES
        .iter()
        .filter(|m| m.kind == MessageKind::Response)
    {
        for v in m.valid_versions.min..=m.valid_versions.max {
            let tells = found.iter().any(|f| {
                core::ptr::eq(f.message, *m)
                    && REWRITTEN.contains(&f.path.as_str())
                    && f.versions.0.contains(v)
                    && f.versions.1.contains(v)
            });
            assert_eq!(
                tells_broker_addresses(ApiKey(m.api_key), v),
                tells,
                "{} v{v}",
                m.name
            );
        }
    }
}

// ---- Every response at every version, from the schemas -----------------------------------

/// An instance source that names brokers: each `NodeId` or `BrokerId` takes the next
/// number n, and each host or port after it is `broker-n` and 9000 + n. Two elements per
/// array near the top, one below; every tagged field set.
#[derive(Clone)]
struct Brokers {
    node: u64,
}

impl Source for Brokers {
    fn null(&mut self, _: Spot<'_>) -> bool {
        false
    }

    fn elements(&mut self, at: Spot<'_>) -> usize {
        if at.depth < 2 { 2 } else { 1 }
    }

    fn set_tagged(&mut self, _: Spot<'_>) -> bool {
        true
    }

    fn primitive(&mut self, at: Spot<'_>, p: Primitive, slot: &mut Slot<'_, '_>) {
        match at.field.name {
            "NodeId" | "BrokerId" => {
                self.node += 1;
                slot.int(self.node);
            }
            name if names_an_address(name) && p == Primitive::String => {
                slot.string(&format!("broker-{}", self.node));
            }
            name if names_an_address(name) => slot.int(9000 + self.node),
            _ if p == Primitive::Records => slot.batches(&[EmptyBatch::default()]),
            _ => {}
        }
    }
}

/// One node of a dissected frame: its schema path (element indices and the tagged
/// section's wrappers left out), what it is, and its value.
#[derive(Debug)]
struct Leaf {
    path: String,
    name: String,
    category: Category,
    tagged_entry: bool,
    value: String,
    text: Option<String>,
    int: Option<i64>,
}

#[derive(Default)]
struct Leaves {
    stack: Vec<Option<String>>,
    leaves: Vec<Leaf>,
}

impl Visit for Leaves {
    fn node(&mut self, node: &Node<'_>) -> core::fmt::Result {
        self.stack.truncate(node.depth);
        let part = match node.name {
            Name::Plain("tagged_fields" | "value") | Name::Indexed(..) => None,
            Name::Plain(name) if node.depth > 0 => Some(name.to_string()),
            _ => None,
        };
        self.stack.push(part);
        let path: Vec<&str> = self.stack.iter().flatten().map(String::as_str).collect();
        self.leaves.push(Leaf {
            path: path.join("."),
            name: node.name.to_string(),
            category: node.category,
            tagged_entry: node.ty == TypeWord::Wire("tagged"),
            value: format!("{:?}", node.value),
            text: match node.value {
                Value::Str(s, _) => Some(s.to_string()),
                _ => None,
            },
            int: node.value.int(),
        });
        Ok(())
    }
}

fn leaves(frame: &[u8], key: ApiKey, version: i16) -> Vec<Leaf> {
    let mut v = Leaves::default();
    kwire_schema::describe::visit_response_frame(frame, key, version, &mut v).unwrap();
    v.leaves
}

/// Every response schema at every version, with every array holding brokers' rows and
/// every tagged field set: the fields of [`REWRITTEN`] come out at the caller's address,
/// every other node as it was (but the sizes that count the longer hosts), and a response
/// without such a field is not rewritten, its addresses never offered to the caller.
#[test]
fn every_response_at_every_version_rewrites_exactly_the_rewritten_fields() {
    let mut rewritten_apis = Vec::new();
    for m in schema::MESSAGES
        .iter()
        .filter(|m| m.kind == MessageKind::Response)
    {
        let key = ApiKey(m.api_key);
        for v in m.valid_versions.min..=m.valid_versions.max {
            let what = format!("{} v{v}", m.name);
            let mut body = vec![0; 1 << 16];
            let n = write_instance(m, v, Brokers { node: 0 }, &mut body).unwrap();
            let mut r = Reader::new(&body[..n]);
            let response = Response::decode(&mut r, key, v).unwrap();
            let sent = frame_of(&response, v);
            let (header, decoded) = frame::decode_response(&sent, key, v).unwrap();
            let mut out = Vec::new();
            let mut asked = 0;
            let result = rewrite_response(&header, &decoded, v, &mut out, |b| {
                asked += 1;
                let host = format!("{}.Host", b.at);
                assert!(
                    REWRITTEN.contains(&host.as_str()),
                    "{what}: {} offered",
                    b.at
                );
                assert_eq!(b.host, format!("broker-{}", b.node_id), "{what}");
                assert_eq!(b.port, 9000 + b.node_id, "{what}");
                Some((format!("relay-{}", b.node_id), 20000 + b.node_id))
            })
            .unwrap();

            let before = leaves(&sent, key, v);
            let hosts = before
                .iter()
                .filter(|l| l.name == "Host" && REWRITTEN.contains(&l.path.as_str()))
                .count();
            assert_eq!(tells_broker_addresses(key, v), hosts > 0, "{what}");
            if hosts == 0 {
                assert_eq!(
                    (result, asked, out.len()),
                    (Rewritten::Unchanged, 0, 0),
                    "{what}"
                );
                continue;
            }
            rewritten_apis.push(m.name);
            assert_eq!(result, Rewritten::Changed { addresses: hosts }, "{what}");
            assert_eq!(asked, hosts, "{what}");
            let after = leaves(&out, key, v);
            assert_eq!(before.len(), after.len(), "{what}");
            for (b, a) in before.iter().zip(&after) {
                assert_eq!((&b.path, &b.name), (&a.path, &a.name), "{what}");
                if REWRITTEN.contains(&b.path.as_str()) {
                    if b.name == "Host" {
                        let n = b.text.as_deref().unwrap().strip_prefix("broker-").unwrap();
                        assert_eq!(a.text.as_deref(), Some(format!("relay-{n}").as_str()));
                    } else {
                        assert_eq!(a.int.unwrap() - 20000, b.int.unwrap() - 9000, "{what}");
                    }
                } else if b.value != a.value {
                    // Only the frame's size and a tagged field's size count the hosts.
                    let size = matches!(b.category, Category::Frame | Category::Tagged)
                        && (b.name == "size" || b.tagged_entry);
                    assert!(
                        size,
                        "{what}: {} changed: {} -> {}",
                        b.path, b.value, a.value
                    );
                }
            }
        }
    }
    rewritten_apis.sort_unstable();
    rewritten_apis.dedup();
    let mut apis: Vec<&str> = REWRITTEN
        .iter()
        .map(|p| p.split('.').next().unwrap())
        .collect();
    apis.sort_unstable();
    apis.dedup();
    assert_eq!(rewritten_apis, apis);
}

// ---- Each API, built with the typed messages ----------------------------------------------

const RELAY: &str = "relay.test";

fn frame_of<B: Body>(body: &B, version: i16) -> Vec<u8> {
    let header = ResponseHeader::default().with_correlation_id(7);
    let mut f = vec![0; frame::response_len(&header, body, version).unwrap()];
    frame::encode_response(&header, body, version, &mut f).unwrap();
    f
}

type Offered = Vec<(i32, String, i32, &'static str)>;

/// `sent` through [`rewrite_response`], broker n moved to `relay.test:20000+n`; what was
/// written, and the brokers offered.
fn relayed(sent: &[u8], key: ApiKey, version: i16) -> (Rewritten, Vec<u8>, Offered) {
    let (header, body) = frame::decode_response(sent, key, version).unwrap();
    let mut out = Vec::new();
    let mut offered = Vec::new();
    let result = rewrite_response(&header, &body, version, &mut out, |b| {
        offered.push((b.node_id, b.host.to_string(), b.port, b.at));
        Some((RELAY, 20000 + b.node_id))
    })
    .unwrap();
    if result.is_changed() {
        let (told, _) = frame::decode_response(&out, key, version).unwrap();
        assert_eq!(told.correlation_id, 7);
    }
    (result, out, offered)
}

fn offered(rows: &[(i32, &str, i32)], at: &'static str) -> Offered {
    rows.iter()
        .map(|&(id, host, port)| (id, host.to_string(), port, at))
        .collect()
}

const SENT: [(i32, &str, i32); 2] = [(1, "b1.internal", 9092), (2, "b2.internal", 9093)];
const TOLD: [(i32, &str, i32); 2] = [(1, RELAY, 20001), (2, RELAY, 20002)];
/// An error's entry: no broker.
const EMPTY: (i32, &str, i32) = (-1, "", -1);

#[test]
fn metadata_brokers() {
    use metadata_response::{MetadataResponseBroker, MetadataResponseTopic};
    fn rows<'x>(rows: [(i32, &'x str, i32); 2], v: i16) -> Vec<MetadataResponseBroker<'x>> {
        let rack = if v >= 1 { Some("rack-a") } else { None };
        rows.iter()
            .chain([&EMPTY])
            .map(|&(id, host, port)| {
                let row = MetadataResponseBroker::default().with_node_id(id);
                row.with_host(host).with_port(port).with_rack(rack)
            })
            .collect()
    }
    let topics = [MetadataResponseTopic::default().with_name(Some("events"))];
    let body = MetadataResponse::default().with_topics(&topics[..]);
    for v in [0, 1, 9, 12, 13] {
        let body = if v >= 1 {
            body.with_controller_id(2)
        } else {
            body
        };
        let sent = frame_of(&body.with_brokers(&rows(SENT, v)), v);
        let (result, out, asked) = relayed(&sent, ApiKey::METADATA, v);
        assert_eq!(result, Rewritten::Changed { addresses: 2 }, "v{v}");
        assert_eq!(out, frame_of(&body.with_brokers(&rows(TOLD, v)), v), "v{v}");
        assert_eq!(asked, offered(&SENT, "MetadataResponse.Brokers"), "v{v}");
    }
}

#[test]
fn describe_cluster_brokers() {
    use describe_cluster_response::DescribeClusterBroker;
    fn rows<'x>(rows: [(i32, &'x str, i32); 2]) -> Vec<DescribeClusterBroker<'x>> {
        rows.iter()
            .map(|&(id, host, port)| {
                let row = DescribeClusterBroker::default().with_broker_id(id);
                row.with_host(host)
                    .with_port(port)
                    .with_rack(Some("rack-a"))
            })
            .collect()
    }
    let body = DescribeClusterResponse::default()
        .with_cluster_id("cluster")
        .with_controller_id(1);
    for v in [0, 1, 2] {
        let sent = frame_of(&body.with_brokers(&rows(SENT)), v);
        let (result, out, asked) = relayed(&sent, ApiKey::DESCRIBE_CLUSTER, v);
        assert_eq!(result, Rewritten::Changed { addresses: 2 }, "v{v}");
        assert_eq!(out, frame_of(&body.with_brokers(&rows(TOLD)), v), "v{v}");
        assert_eq!(
            asked,
            offered(&SENT, "DescribeClusterResponse.Brokers"),
            "v{v}"
        );
    }
}

#[test]
fn the_coordinator_before_v4() {
    for v in 0..=3 {
        let body = FindCoordinatorResponse::default().with_node_id(1);
        let body = if v >= 1 {
            body.with_throttle_time_ms(5)
        } else {
            body
        };
        let sent = frame_of(&body.with_host("b1.internal").with_port(9092), v);
        let (result, out, asked) = relayed(&sent, ApiKey::FIND_COORDINATOR, v);
        assert_eq!(result, Rewritten::Changed { addresses: 1 }, "v{v}");
        assert_eq!(
            out,
            frame_of(&body.with_host(RELAY).with_port(20001), v),
            "v{v}"
        );
        assert_eq!(
            asked,
            offered(&SENT[..1], "FindCoordinatorResponse"),
            "v{v}"
        );

        // COORDINATOR_NOT_AVAILABLE: no coordinator, nothing to rewrite.
        let error = FindCoordinatorResponse::default()
            .with_error_code(15)
            .with_node_id(-1)
            .with_host("")
            .with_port(-1);
        let (result, out, asked) = relayed(&frame_of(&error, v), ApiKey::FIND_COORDINATOR, v);
        assert_eq!(
            (result, out.len(), asked.len()),
            (Rewritten::Unchanged, 0, 0),
            "v{v}"
        );
    }
}

#[test]
fn the_coordinators_from_v4_with_an_error_entry_left_as_it_is() {
    use find_coordinator_response::Coordinator;
    fn rows<'x>((id, host, port): (i32, &'x str, i32)) -> [Coordinator<'x>; 2] {
        [
            Coordinator::default()
                .with_key("orders")
                .with_node_id(id)
                .with_host(host)
                .with_port(port),
            Coordinator::default()
                .with_key("audit")
                .with_error_code(15)
                .with_node_id(-1)
                .with_host("")
                .with_port(-1),
        ]
    }
    for v in 4..=ApiKey::FIND_COORDINATOR.response_versions().max {
        let body = FindCoordinatorResponse::default().with_throttle_time_ms(5);
        let sent = frame_of(&body.with_coordinators(&rows(SENT[0])[..]), v);
        let (result, out, asked) = relayed(&sent, ApiKey::FIND_COORDINATOR, v);
        assert_eq!(result, Rewritten::Changed { addresses: 1 }, "v{v}");
        assert_eq!(
            out,
            frame_of(&body.with_coordinators(&rows(TOLD[0])[..]), v),
            "v{v}"
        );
        assert_eq!(
            asked,
            offered(&SENT[..1], "FindCoordinatorResponse.Coordinators")
        );
    }
}

/// The leader endpoints of `$body` (`$module::NodeEndpoint`s) at `$versions`.
macro_rules! node_endpoints {
    ($module:ident, $body:ident, $key:expr, $versions:expr, $at:literal) => {{
        use $module::NodeEndpoint;
        fn rows<'x>(rows: [(i32, &'x str, i32); 2]) -> Vec<NodeEndpoint<'x>> {
            rows.iter()
                .chain([&EMPTY])
                .map(|&(id, host, port)| {
                    let row = NodeEndpoint::default().with_node_id(id);
                    row.with_host(host)
                        .with_port(port)
                        .with_rack(Some("rack-a"))
                })
                .collect()
        }
        let body = $body::default().with_throttle_time_ms(5);
        for v in $versions {
            let sent = frame_of(&body.with_node_endpoints(&rows(SENT)), v);
            let (result, out, asked) = relayed(&sent, $key, v);
            assert_eq!(result, Rewritten::Changed { addresses: 2 }, "{} v{v}", $key);
            assert_eq!(out, frame_of(&body.with_node_endpoints(&rows(TOLD)), v));
            assert_eq!(asked, offered(&SENT, $at), "{} v{v}", $key);
        }
    }};
}

#[test]
fn leader_endpoints() {
    let fetch = ApiKey::FETCH.response_versions().max;
    let produce = ApiKey::PRODUCE.response_versions().max;
    let share = ApiKey::SHARE_FETCH.response_versions();
    let ack = ApiKey::SHARE_ACKNOWLEDGE.response_versions();
    node_endpoints!(
        fetch_response,
        FetchResponse,
        ApiKey::FETCH,
        16..=fetch,
        "FetchResponse.NodeEndpoints"
    );
    node_endpoints!(
        produce_response,
        ProduceResponse,
        ApiKey::PRODUCE,
        10..=produce,
        "ProduceResponse.NodeEndpoints"
    );
    node_endpoints!(
        share_fetch_response,
        ShareFetchResponse,
        ApiKey::SHARE_FETCH,
        share.min..=share.max,
        "ShareFetchResponse.NodeEndpoints"
    );
    node_endpoints!(
        share_acknowledge_response,
        ShareAcknowledgeResponse,
        ApiKey::SHARE_ACKNOWLEDGE,
        ack.min..=ack.max,
        "ShareAcknowledgeResponse.NodeEndpoints"
    );
}

#[test]
fn a_response_that_names_no_broker_is_not_rewritten() {
    let cases = [
        (
            frame_of(&HeartbeatResponse::default(), 4),
            ApiKey::HEARTBEAT,
            4,
        ),
        (
            frame_of(&MetadataResponse::default(), 12),
            ApiKey::METADATA,
            12,
        ),
        (frame_of(&FetchResponse::default(), 15), ApiKey::FETCH, 15),
        (frame_of(&FetchResponse::default(), 17), ApiKey::FETCH, 17),
    ];
    for (sent, key, v) in cases {
        let (header, body) = frame::decode_response(&sent, key, v).unwrap();
        let mut out = vec![1, 2, 3];
        let result = rewrite_response(&header, &body, v, &mut out, |_| -> Option<(&str, i32)> {
            unreachable!("{key} v{v} names no broker")
        });
        assert_eq!(result, Ok(Rewritten::Unchanged), "{key} v{v}");
        assert!(!result.unwrap().is_changed());
        assert_eq!(out, [1, 2, 3], "{key} v{v}: nothing is written");
    }
}

/// The brokers a Metadata v12 response frame tells: node id, host, port.
fn brokers_told(frame: &[u8]) -> Vec<(i32, &str, i32)> {
    let (_, told) = frame::decode_response(frame, ApiKey::METADATA, 12).unwrap();
    let Response::Metadata(told) = told else {
        unreachable!("{told:?}")
    };
    told.brokers
        .iter()
        .map(|b| (b.node_id, b.host.to_str().unwrap(), b.port))
        .collect()
}

fn metadata_frame() -> Vec<u8> {
    use metadata_response::MetadataResponseBroker;
    let brokers: Vec<_> = SENT
        .iter()
        .map(|&(id, host, port)| {
            MetadataResponseBroker::default()
                .with_node_id(id)
                .with_host(host)
                .with_port(port)
        })
        .collect();
    frame_of(&MetadataResponse::default().with_brokers(&brokers), 12)
}

#[test]
fn addresses_kept_or_given_back_unchanged_are_not_rewritten() {
    let sent = metadata_frame();
    let (header, body) = frame::decode_response(&sent, ApiKey::METADATA, 12).unwrap();
    let mut out = Vec::new();
    let kept = rewrite_response(&header, &body, 12, &mut out, |_| None::<(&str, i32)>);
    assert_eq!((kept, out.len()), (Ok(Rewritten::Unchanged), 0));
    let same = rewrite_response(&header, &body, 12, &mut out, |b| {
        Some((b.host.to_str().unwrap(), b.port))
    });
    assert_eq!((same, out.len()), (Ok(Rewritten::Unchanged), 0));

    // Broker 2 moved to another port only.
    let one = rewrite_response(&header, &body, 12, &mut out, |b| {
        (b.node_id == 2).then_some((b.host.to_str().unwrap(), 19093))
    });
    assert_eq!(one, Ok(Rewritten::Changed { addresses: 1 }));
    let told = brokers_told(&out);
    assert_eq!(told, [(1, "b1.internal", 9092), (2, "b2.internal", 19093)]);
}

#[test]
fn hosts_made_for_each_broker_and_the_frame_appended() {
    let sent = metadata_frame();
    let (header, body) = frame::decode_response(&sent, ApiKey::METADATA, 12).unwrap();
    let mut out = vec![0xee; 3];
    let result = rewrite_response(&header, &body, 12, &mut out, |b| {
        Some((format!("relay-{}.test", b.node_id), 19090 + b.node_id))
    });
    assert_eq!(result, Ok(Rewritten::Changed { addresses: 2 }));
    assert_eq!(out[..3], [0xee; 3]);
    let told = brokers_told(&out[3..]);
    assert_eq!(
        told,
        [(1, "relay-1.test", 19091), (2, "relay-2.test", 19092)]
    );
}

#[test]
fn a_host_no_string_can_hold_is_refused_and_nothing_written() {
    let sent = metadata_frame();
    let (header, body) = frame::decode_response(&sent, ApiKey::METADATA, 12).unwrap();
    let mut out = vec![0xee; 3];
    let long = "h".repeat(40_000);
    let result = rewrite_response(&header, &body, 12, &mut out, |_| Some((&long, 1)));
    assert!(
        matches!(
            result,
            Err(EncodeError::LengthOverflow { length: 40_000, .. })
        ),
        "{result:?}"
    );
    assert_eq!(out, [0xee; 3]);
}
