//! The proxy example tells clients only its own address: every broker address in the responses
//! it forwards (Metadata, DescribeCluster, FindCoordinator, and the leader endpoints of Fetch,
//! Produce, ShareFetch and ShareAcknowledge) comes out pointing at it.

use kwire::frame::{self, Body};
use kwire::messages::{
    FetchResponse, FindCoordinatorResponse, MetadataResponse, ProduceResponse, ResponseHeader,
    ShareAcknowledgeResponse, ShareFetchResponse, fetch_response, find_coordinator_response,
    metadata_response, produce_response, share_acknowledge_response, share_fetch_response,
};
use kwire::{ApiKey, Response};
use kwire_examples::proxy;

const PROXY: (&str, i32) = ("proxy.local", 19093);
const BROKERS: [(i32, &str, i32); 2] = [
    (1, "broker-a.internal", 9092),
    (2, "broker-b.internal", 9093),
];

/// The rows of `BROKERS` as `$row`s (a node endpoint or broker type with `with_host` and
/// `with_port`; `$id` names its node id setter).
macro_rules! rows_of_brokers {
    ($row:ty, $id:ident) => {
        BROKERS
            .iter()
            .map(|&(id, host, port)| <$row>::default().$id(id).with_host(host).with_port(port))
            .collect::<Vec<_>>()
    };
}

/// Encodes `body` at `version`, passes it through the proxy's rewrite, and decodes the result.
fn through_proxy<B: Body>(body: &B, key: ApiKey, version: i16) -> (Vec<u8>, Vec<u8>) {
    let header = ResponseHeader::default().with_correlation_id(3);
    let mut sent = vec![0; frame::response_len(&header, body, version).unwrap()];
    frame::encode_response(&header, body, version, &mut sent).unwrap();
    let (header, decoded) = frame::decode_response(&sent, key, version).unwrap();
    let mut out = Vec::new();
    proxy::readdress(&header, &decoded, version, PROXY, &mut out).unwrap();
    (sent, out)
}

/// The (node id, host, port) triples of the endpoints a rewritten response names.
fn endpoints(out: &[u8], key: ApiKey, version: i16) -> Vec<(i32, String, i32)> {
    let (header, body) = frame::decode_response(out, key, version).unwrap();
    assert_eq!(header.correlation_id, 3);
    match body {
        Response::Fetch(r) => r
            .node_endpoints
            .iter()
            .map(|e| (e.node_id, e.host.to_string(), e.port))
            .collect(),
        Response::Produce(r) => r
            .node_endpoints
            .iter()
            .map(|e| (e.node_id, e.host.to_string(), e.port))
            .collect(),
        Response::ShareFetch(r) => r
            .node_endpoints
            .iter()
            .map(|e| (e.node_id, e.host.to_string(), e.port))
            .collect(),
        Response::ShareAcknowledge(r) => r
            .node_endpoints
            .iter()
            .map(|e| (e.node_id, e.host.to_string(), e.port))
            .collect(),
        Response::Metadata(r) => r
            .brokers
            .iter()
            .map(|b| (b.node_id, b.host.to_string(), b.port))
            .collect(),
        // One coordinator at the top level before v4, a list from v4 on.
        Response::FindCoordinator(r) if version < 4 => {
            vec![(r.node_id, r.host.to_string(), r.port)]
        }
        Response::FindCoordinator(r) => r
            .coordinators
            .iter()
            .map(|c| (c.node_id, c.host.to_string(), c.port))
            .collect(),
        other => panic!("unexpected {}", other.api_key()),
    }
}

fn check(key: ApiKey, version: i16, sent: &[u8], out: &[u8]) {
    check_named(key, version, sent, out, &BROKERS);
}

/// `out` names the nodes of `brokers`, each at the proxy's address, and none of their hosts.
fn check_named(key: ApiKey, version: i16, sent: &[u8], out: &[u8], brokers: &[(i32, &str, i32)]) {
    let only_the_proxy: Vec<_> = brokers
        .iter()
        .map(|&(id, _, _)| (id, PROXY.0.to_owned(), PROXY.1))
        .collect();
    assert_eq!(
        endpoints(out, key, version),
        only_the_proxy,
        "{key} v{version}"
    );
    let leaked = |needle: &str| out.windows(needle.len()).any(|w| w == needle.as_bytes());
    for &(_, host, _) in brokers {
        assert!(
            sent.windows(host.len()).any(|w| w == host.as_bytes()),
            "{key} v{version}: the test response names {host}"
        );
        assert!(
            !leaked(host),
            "{key} v{version}: {host} leaks through the proxy"
        );
    }
}

#[test]
fn fetch_leader_endpoints_point_at_the_proxy() {
    let endpoints = rows_of_brokers!(fetch_response::NodeEndpoint<'_>, with_node_id);
    let body = FetchResponse::default().with_node_endpoints(&endpoints[..]);
    let versions = ApiKey::FETCH.response_versions();
    for v in 16..=versions.max {
        let (sent, out) = through_proxy(&body, ApiKey::FETCH, v);
        check(ApiKey::FETCH, v, &sent, &out);
    }
}

#[test]
fn produce_leader_endpoints_point_at_the_proxy() {
    let endpoints = rows_of_brokers!(produce_response::NodeEndpoint<'_>, with_node_id);
    let body = ProduceResponse::default().with_node_endpoints(&endpoints[..]);
    let versions = ApiKey::PRODUCE.response_versions();
    for v in 10..=versions.max {
        let (sent, out) = through_proxy(&body, ApiKey::PRODUCE, v);
        check(ApiKey::PRODUCE, v, &sent, &out);
    }
}

#[test]
fn share_group_leader_endpoints_point_at_the_proxy() {
    let fetch = rows_of_brokers!(share_fetch_response::NodeEndpoint<'_>, with_node_id);
    let body = ShareFetchResponse::default().with_node_endpoints(&fetch[..]);
    let versions = ApiKey::SHARE_FETCH.response_versions();
    for v in versions.min..=versions.max {
        let (sent, out) = through_proxy(&body, ApiKey::SHARE_FETCH, v);
        check(ApiKey::SHARE_FETCH, v, &sent, &out);
    }

    let ack = rows_of_brokers!(share_acknowledge_response::NodeEndpoint<'_>, with_node_id);
    let body = ShareAcknowledgeResponse::default().with_node_endpoints(&ack[..]);
    let versions = ApiKey::SHARE_ACKNOWLEDGE.response_versions();
    for v in versions.min..=versions.max {
        let (sent, out) = through_proxy(&body, ApiKey::SHARE_ACKNOWLEDGE, v);
        check(ApiKey::SHARE_ACKNOWLEDGE, v, &sent, &out);
    }
}

#[test]
fn metadata_brokers_point_at_the_proxy() {
    let brokers = rows_of_brokers!(metadata_response::MetadataResponseBroker<'_>, with_node_id);
    let body = MetadataResponse::default().with_brokers(&brokers[..]);
    for v in [1, 9, 12, ApiKey::METADATA.response_versions().max] {
        let (sent, out) = through_proxy(&body, ApiKey::METADATA, v);
        check(ApiKey::METADATA, v, &sent, &out);
    }
}

#[test]
fn coordinators_point_at_the_proxy() {
    let (id, host, port) = BROKERS[0];
    let coordinators: Vec<_> = BROKERS
        .iter()
        .map(|&(id, host, port)| {
            find_coordinator_response::Coordinator::default()
                .with_key("group")
                .with_node_id(id)
                .with_host(host)
                .with_port(port)
        })
        .collect();
    let versions = ApiKey::FIND_COORDINATOR.response_versions();
    for v in versions.min..=versions.max {
        let body = if v < 4 {
            FindCoordinatorResponse::default()
                .with_node_id(id)
                .with_host(host)
                .with_port(port)
        } else {
            FindCoordinatorResponse::default().with_coordinators(&coordinators[..])
        };
        let (sent, out) = through_proxy(&body, ApiKey::FIND_COORDINATOR, v);
        let named = if v < 4 { &BROKERS[..1] } else { &BROKERS[..] };
        check_named(ApiKey::FIND_COORDINATOR, v, &sent, &out, named);
    }
}
