//! The responses that name brokers (`kwire_codegen::brokers`): the rule on small schemas
//! written here, and what it finds in the real schema set.

use kwire_codegen::brokers::{broker_apis, broker_structs};
use kwire_codegen::spec::{Message, Range, parse_message};

/// A request of `key` served by `listeners`, and its response with `fields`.
fn api(name: &str, key: i16, listeners: &str, fields: &str) -> [Message; 2] {
    let request = format!(
        r#"{{ "apiKey": {key}, "type": "request", "listeners": [{listeners}], "name": "{name}Request",
            "validVersions": "0-5", "flexibleVersions": "2+", "fields": [] }}"#
    );
    let response = format!(
        r#"{{ "apiKey": {key}, "type": "response", "name": "{name}Response",
            "validVersions": "0-5", "flexibleVersions": "2+", "fields": [ {fields} ] }}"#
    );
    [
        parse_message(&format!("{name}Request.json"), &request).expect("request parses"),
        parse_message(&format!("{name}Response.json"), &response).expect("response parses"),
    ]
}

fn open(from: i16) -> Range {
    Range {
        min: from,
        max: i16::MAX,
    }
}

const NODES: &str = r#"{ "name": "Nodes", "type": "[]Node", "versions": "3+", "fields": [
    { "name": "NodeId", "type": "int32", "versions": "3+", "entityType": "brokerId" },
    { "name": "Host", "type": "string", "versions": "3+" },
    { "name": "Port", "type": "int32", "versions": "4+" } ] }"#;

#[test]
fn a_host_and_a_port_beside_a_broker_id_in_an_api_brokers_serve() {
    let mut messages = Vec::new();
    messages.extend(api("Told", 60, r#""broker", "controller""#, NODES));
    // The same struct in a controller's own API, and a host and a port without a broker id.
    messages.extend(api("Quorum", 61, r#""controller""#, NODES));
    let endpoint = r#"{ "name": "Endpoint", "type": "Instance", "versions": "0+", "fields": [
        { "name": "Host", "type": "string", "versions": "0+" },
        { "name": "Port", "type": "int32", "versions": "0+" } ] }"#;
    messages.extend(api("Streams", 62, r#""broker""#, endpoint));
    // The top level, until a version without the host.
    let top = r#"{ "name": "LeaderId", "type": "int32", "versions": "0+", "entityType": "brokerId" },
        { "name": "Host", "type": "string", "versions": "0-1" },
        { "name": "Port", "type": "int32", "versions": "0+" }"#;
    messages.extend(api("Leader", 63, r#""broker""#, top));

    let found = broker_structs(&messages).expect("the schemas are sound");
    let paths: Vec<(&str, Range)> = found
        .iter()
        .map(|s| (s.path.as_str(), s.versions))
        .collect();
    assert_eq!(
        paths,
        [
            ("ToldResponse.Nodes", open(4)),
            ("LeaderResponse", Range { min: 0, max: 1 }),
        ]
    );
    let apis: Vec<(i16, String, Vec<Range>)> = broker_apis(&found);
    assert_eq!(
        apis,
        [
            (60, "Told".to_string(), vec![open(4)]),
            (63, "Leader".to_string(), vec![Range { min: 0, max: 1 }]),
        ]
    );
}

/// In the real schema set: the brokers of Metadata and DescribeCluster, FindCoordinator's
/// coordinator (at the top level before v4, in a list from v4), and the new leaders of Produce
/// (v10+), Fetch (v16+), ShareFetch and ShareAcknowledge; no controller-to-controller API.
#[test]
fn the_schemas_name_brokers_in_seven_apis() {
    let messages = super::schemas();
    let found = broker_structs(&messages).expect("the schemas are sound");
    let paths: Vec<(&str, Range)> = found
        .iter()
        .map(|s| (s.path.as_str(), s.versions))
        .collect();
    assert_eq!(
        paths,
        [
            ("ProduceResponse.NodeEndpoints", open(10)),
            ("FetchResponse.NodeEndpoints", open(16)),
            ("MetadataResponse.Brokers", open(0)),
            ("FindCoordinatorResponse", Range { min: 0, max: 3 }),
            ("FindCoordinatorResponse.Coordinators", open(4)),
            ("DescribeClusterResponse.Brokers", open(0)),
            ("ShareFetchResponse.NodeEndpoints", open(0)),
            ("ShareAcknowledgeResponse.NodeEndpoints", open(0)),
        ]
    );
    let apis: Vec<(String, Vec<Range>)> = broker_apis(&found)
        .into_iter()
        .map(|(_, name, ranges)| (name, ranges))
        .collect();
    let want = [
        ("Produce", open(10)),
        ("Fetch", open(16)),
        ("Metadata", open(0)),
        ("FindCoordinator", open(0)),
        ("DescribeCluster", open(0)),
        ("ShareFetch", open(0)),
        ("ShareAcknowledge", open(0)),
    ]
    .map(|(name, versions)| (name.to_string(), vec![versions]));
    assert_eq!(apis, want);
}
