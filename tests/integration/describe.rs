//! The dissector and the reference pages: the seeds reproduced, and for every API key, version
//! and direction a tree that agrees with the bytes and with the typed decoder.

use kwire::api::API_TABLE;
use kwire::codec::Encode;
use kwire::frame::{decode_request, decode_response, encode_request, encode_response};
use kwire::header::response_header_version;
use kwire::messages::{RequestHeader, ResponseHeader};
use kwire::{ApiKey, DecodeErrorKind};
use kwire_schema as schema;
use kwire_schema::describe::{self, Category, DescribeError, Node, Side, Visit};

fn seeds_dir() -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/seeds")
}

fn page_text(api: &str, version: Option<i16>) -> String {
    let mut scratch = vec![0u8; 1 << 16];
    let mut out = String::new();
    describe::page(
        ApiKey::from_name(api).unwrap(),
        version,
        &mut scratch,
        &mut out,
    )
    .unwrap();
    out
}

fn norm(line: &str) -> String {
    line.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// The parts of a page the seeds carry: the facts, and per side the title, the byte-layout line,
/// the row labels and the tree, as one segment per node (drawing removed) plus the drawn rows
/// when the seed keeps its line breaks.
#[derive(Debug, Default, PartialEq)]
struct Parts {
    facts: Vec<(String, String)>,
    sides: Vec<SidePart>,
}

#[derive(Debug, Default, PartialEq)]
struct SidePart {
    heading: String,
    layout: String,
    labels: Vec<String>,
    segments: Vec<String>,
    /// Rows up to the end of the name column (the drawing and the name), when available.
    drawing: Vec<String>,
}

/// Splits a tree (rows, or one flattened line) into one whitespace-normalised segment per node.
fn segments(tree: &str) -> Vec<String> {
    let flat = norm(tree);
    let mut out = Vec::new();
    for part in flat.split("+-- ") {
        let mut seg = part.trim().to_string();
        while seg.ends_with(" |") || seg == "|" {
            seg = seg.trim_end_matches('|').trim_end().to_string();
        }
        out.push(seg);
    }
    out
}

/// Each row's drawing and name: everything before the first run of two spaces after the name.
fn drawing(rows: &[&str]) -> Vec<String> {
    rows.iter()
        .map(|r| {
            let body = r.trim_start_matches(['|', '+', '-', ' ']);
            let start = r.len() - body.len();
            let name_len = body.find(' ').unwrap_or(body.len());
            r[..start + name_len].to_string()
        })
        .collect()
}

fn seed_parts(text: &str) -> Parts {
    let lines: Vec<&str> = text
        .lines()
        .map(|l| l.trim_end())
        .map(|l| l.strip_prefix("- ").unwrap_or(l))
        .collect();
    let mut parts = Parts::default();
    let start = lines.iter().position(|l| *l == "API key").unwrap();
    let mut i = start;
    while !lines[i].starts_with("framerpc") {
        parts
            .facts
            .push((lines[i].to_string(), lines[i + 1].to_string()));
        i += 2;
    }
    for title in ["Request", "Response"] {
        let at = lines.iter().position(|l| *l == title).unwrap();
        let rest: Vec<&str> = lines[at + 1..]
            .iter()
            .copied()
            .filter(|l| !l.is_empty())
            .collect();
        let heading = rest[0].to_string();
        let layout = rest[1].to_string();
        let mut j = 2;
        let mut labels = Vec::new();
        while rest[j] != "object tree" {
            if rest[j].len() == 4 && rest[j].chars().all(|c| c.is_ascii_hexdigit()) {
                labels.push(rest[j].to_string());
            }
            j += 1;
        }
        j += 1;
        let mut rows = Vec::new();
        while !rest[j].starts_with("kafka message schema") {
            rows.push(rest[j]);
            j += 1;
        }
        parts.sides.push(SidePart {
            heading,
            layout,
            labels,
            segments: segments(&rows.join("\n")),
            drawing: if rows.len() > 1 {
                drawing(&rows)
            } else {
                Vec::new()
            },
        });
    }
    parts
}

fn our_parts(text: &str) -> Parts {
    let lines: Vec<&str> = text.lines().collect();
    let mut parts = Parts::default();
    for l in lines[2..].iter().take_while(|l| !l.is_empty()) {
        let (k, v) = l.split_at(18);
        parts
            .facts
            .push((k.trim().to_string(), v.trim().to_string()));
    }
    for title in ["Request", "Response"] {
        let at = lines.iter().position(|l| *l == title).unwrap();
        let heading = lines[at + 2].to_string();
        let layout = lines[at + 4].to_string();
        let mut j = at + 7;
        let mut labels = Vec::new();
        while !lines[j].is_empty() {
            labels.push(lines[j][..4].to_string());
            j += 1;
        }
        assert_eq!(lines[j + 1], "object tree");
        j += 3;
        let mut rows = Vec::new();
        while j < lines.len() && !lines[j].is_empty() && !lines[j].starts_with("error") {
            rows.push(lines[j]);
            j += 1;
        }
        parts.sides.push(SidePart {
            heading,
            layout,
            labels,
            segments: segments(&rows.join("\n")),
            drawing: drawing(&rows),
        });
    }
    parts
}

/// A segment split after its `[offset, size]` column: (everything up to it, the description).
fn split_segment(seg: &str) -> (String, String) {
    let end = seg
        .find("B]")
        .or_else(|| seg.find(", ?]"))
        .map_or(seg.len(), |e| e + 2);
    (seg[..end].to_string(), seg[end..].trim().to_string())
}

fn check_seed(file: &str, api: &str) {
    let seed = std::fs::read_to_string(seeds_dir().join(file)).unwrap();
    let want = seed_parts(&seed);
    let got = our_parts(&page_text(api, None));
    // Every fact of the seed, in order; ours may add the versions only older brokers speak.
    let ours: Vec<_> = got
        .facts
        .iter()
        .filter(|(k, _)| k != "Older versions")
        .cloned()
        .collect();
    assert_eq!(ours, want.facts, "{file}: facts");
    assert_eq!(got.sides.len(), 2);
    for (g, w) in got.sides.iter().zip(&want.sides) {
        assert_eq!(g.heading, w.heading, "{file}: title");
        assert_eq!(g.layout, w.layout, "{file}: byte layout");
        assert_eq!(g.labels, w.labels, "{file}: row labels");
        assert_eq!(g.segments.len(), w.segments.len(), "{file}: node count");
        for (gs, ws) in g.segments.iter().zip(&w.segments) {
            let (g_row, g_about) = split_segment(gs);
            let (w_row, w_about) = split_segment(ws);
            assert_eq!(g_row, w_row, "{file}: node");
            // Descriptions are compared where we write one (framing, headers, body structs and
            // tagged sections); body fields carry the schema's prose in the seeds, not here.
            if !g_about.is_empty() {
                assert_eq!(g_about, w_about, "{file}: description of {g_row}");
            }
        }
        if !w.drawing.is_empty() {
            assert_eq!(g.drawing, w.drawing, "{file}: tree drawing");
        }
    }
}

#[test]
fn seed_renew_delegation_token() {
    check_seed("RenewDelegationToken-v2.txt", "RenewDelegationToken");
}

#[test]
fn seed_update_features() {
    check_seed("UpdateFeatures-v2.txt", "updatefeatures");
}

/// Collects every node.
#[derive(Default)]
struct Nodes(Vec<Node<'static>>, Vec<String>);

impl Visit for Nodes {
    fn node(&mut self, n: &Node<'_>) -> std::fmt::Result {
        // Keep what the checks need, with the borrowed parts rendered.
        self.1.push(format!("{} {} {}", n.name, n.ty, n.value));
        self.0.push(Node {
            depth: n.depth,
            last: n.last,
            name: describe::Name::Plain(""),
            ty: describe::TypeWord::None,
            value: describe::Value::None,
            offset: n.offset,
            size: n.size,
            about: n.about,
            category: n.category,
        });
        Ok(())
    }
}

/// Every node's size is the sum of its children's; leaves tile the frame in order; `last` is
/// true exactly for the last child of each parent.
fn check_tree(nodes: &[Node<'_>], labels: &[String], len: usize, what: &str) {
    assert_eq!(nodes[0].depth, 0);
    assert_eq!(nodes[0].size, Some(len), "{what}: root size");
    let mut at = 0;
    for (i, n) in nodes.iter().enumerate() {
        let size = n
            .size
            .unwrap_or_else(|| panic!("{what}: {} has no size", labels[i]));
        let children: Vec<usize> = (i + 1..nodes.len())
            .take_while(|&j| nodes[j].depth > n.depth)
            .filter(|&j| nodes[j].depth == n.depth + 1)
            .collect();
        if children.is_empty() {
            assert_eq!(
                n.offset, at,
                "{what}: leaf {} starts where the last ended",
                labels[i]
            );
            at += size;
        } else {
            let sum: usize = children.iter().map(|&j| nodes[j].size.unwrap()).sum();
            assert_eq!(
                sum, size,
                "{what}: {} is the sum of its children",
                labels[i]
            );
            assert_eq!(nodes[children[0]].offset, n.offset, "{what}: {}", labels[i]);
            for (k, &c) in children.iter().enumerate() {
                assert_eq!(
                    nodes[c].last,
                    k + 1 == children.len(),
                    "{what}: last flag of {}",
                    labels[c]
                );
            }
        }
    }
    assert_eq!(at, len, "{what}: leaves cover the frame");
}

fn every_version() -> impl Iterator<Item = (ApiKey, i16)> {
    API_TABLE.iter().flat_map(|info| {
        let r = info.request_versions;
        (r.min..=r.max)
            .filter(move |_| !r.is_empty())
            .map(move |v| (info.key, v))
    })
}

#[test]
fn every_minimal_frame_reencodes_and_tiles() {
    let mut scratch = vec![0u8; 1 << 16];
    let mut count = 0;
    for (key, version) in every_version() {
        for side in [Side::Request, Side::Response] {
            let what = format!("{key:?} v{version} {}", side.name());
            let n = describe::write_minimal_frame(key, version, side, &mut scratch).unwrap();
            let frame = &scratch[..n];
            let mut out = vec![0u8; n];
            let written = match side {
                Side::Request => {
                    let (h, b) = decode_request(frame).unwrap();
                    encode_request(&h, &b, &mut out).unwrap()
                }
                Side::Response => {
                    let (h, b) = decode_response(frame, key, version).unwrap();
                    encode_response(&h, &b, version, &mut out).unwrap()
                }
            };
            assert_eq!(&out[..written], frame, "{what}: re-encode");
            let mut nodes = Nodes::default();
            match side {
                Side::Request => describe::visit_request_frame(frame, &mut nodes),
                Side::Response => describe::visit_response_frame(frame, key, version, &mut nodes),
            }
            .unwrap();
            check_tree(&nodes.0, &nodes.1, n, &what);
            count += 1;
        }
    }
    assert!(count > 600, "{count} frames");
}

/// A frame around `body`, with header fields the typed decoder accepts.
fn frame_of(key: ApiKey, version: i16, side: Side, body: &[u8]) -> Vec<u8> {
    let hv = side.header_version(key, version);
    let mut header = vec![0u8; 256];
    let n = match side {
        Side::Request => RequestHeader::default()
            .with_request_api_key(key.0)
            .with_request_api_version(version)
            .with_correlation_id(7)
            .with_client_id(Some("dissect"))
            // ControlledShutdown v0's header v0 has no client id: left out there.
            .encode_lenient(hv, &mut header),
        Side::Response => ResponseHeader::default()
            .with_correlation_id(7)
            .encode(hv, &mut header),
    }
    .unwrap();
    let mut f = ((n + body.len()) as i32).to_be_bytes().to_vec();
    f.extend_from_slice(&header[..n]);
    f.extend_from_slice(body);
    f
}

fn visit(
    frame: &[u8],
    key: ApiKey,
    version: i16,
    side: Side,
    v: &mut dyn Visit,
) -> Result<(), DescribeError> {
    match side {
        Side::Request => describe::visit_request_frame(frame, v),
        Side::Response => describe::visit_response_frame(frame, key, version, v),
    }
}

fn typed(frame: &[u8], key: ApiKey, version: i16, side: Side) -> Result<(), kwire::DecodeError> {
    match side {
        Side::Request => decode_request(frame).map(drop),
        Side::Response => decode_response(frame, key, version).map(drop),
    }
}

#[test]
fn random_instances_dissect_like_the_typed_decoder() {
    let mut body = vec![0u8; 1 << 20];
    let mut frames = 0;
    let mut errors = 0;
    for (key, version) in every_version() {
        for side in [Side::Request, Side::Response] {
            let s = match side {
                Side::Request => schema::request(key),
                Side::Response => schema::response(key),
            }
            .unwrap();
            for seed in 0..24u64 {
                let n = kwire_testkit::write_random(s, version, seed, &mut body).unwrap();
                let frame = frame_of(key, version, side, &body[..n]);
                let what = format!("{} v{version} seed {seed}", s.name);
                let mut nodes = Nodes::default();
                visit(&frame, key, version, side, &mut nodes)
                    .unwrap_or_else(|e| panic!("{what}: {e}"));
                check_tree(&nodes.0, &nodes.1, frame.len(), &what);
                typed(&frame, key, version, side).unwrap();
                frames += 1;
                // Cut the body short, fixing up the size prefix: the dissector fails where the
                // typed decoder does.
                if seed < 4 && n > 0 {
                    let cut = (seed as usize * 7919) % n;
                    let short = frame_of(key, version, side, &body[..cut]);
                    let d = visit(&short, key, version, side, &mut Nodes::default());
                    let t = typed(&short, key, version, side);
                    match (d, t) {
                        (Ok(()), Ok(())) => {}
                        (Err(DescribeError::Decode(d)), Err(t)) => {
                            assert_eq!(d.offset, t.offset, "{what} cut at {cut}: {d} vs {t}");
                            assert_eq!(d.kind, t.kind, "{what} cut at {cut}: {d} vs {t}");
                            errors += 1;
                        }
                        (d, t) => panic!("{what} cut at {cut}: dissector {d:?}, typed {t:?}"),
                    }
                }
            }
        }
    }
    assert!(
        frames > 10_000 && errors > 1000,
        "{frames} frames, {errors} errors"
    );
}

#[test]
fn malformed_input_prints_the_tree_so_far_and_the_error() {
    let mut scratch = vec![0u8; 256];
    let n = describe::write_minimal_frame(
        ApiKey::RENEW_DELEGATION_TOKEN,
        2,
        Side::Request,
        &mut scratch,
    )
    .unwrap();
    let mut text = String::new();
    let e = describe::write_request_frame(&scratch[..n - 5], &mut text).unwrap_err();
    let DescribeError::Decode(e) = e else {
        panic!("{e:?}")
    };
    assert_eq!(e.offset, 16);
    assert!(matches!(e.kind, DecodeErrorKind::Truncated { needed: 4 }));
    assert!(text.contains("+-- Hmac"));
    assert!(!text.contains("RenewPeriodMs"));
    assert!(text.lines().last().unwrap().starts_with("error: "));
    assert!(text.contains("[0x0000, ?]"));
    // Bytes after the frame are reported after the whole tree.
    let mut long = scratch[..n].to_vec();
    long.push(0);
    let mut text = String::new();
    let e = describe::write_request_frame(&long, &mut text).unwrap_err();
    assert_eq!(
        e,
        DescribeError::Decode(kwire::DecodeError::new(
            n,
            DecodeErrorKind::TrailingBytes { count: 1 },
            "Frame"
        ))
    );
}

#[test]
fn records_are_shown_batch_by_batch() {
    use kwire::messages::ProduceRequest;
    use kwire::messages::produce_request::{PartitionProduceData, TopicProduceData};
    use kwire::records::{BatchBuilder, NewHeader, NewRecord, Records};
    let headers = [NewHeader::new(b"h", b"v")];
    let records = [
        NewRecord::new(b"one").with_timestamp(5),
        NewRecord::new(b"two")
            .with_key(b"k")
            .with_headers(&headers)
            .with_timestamp(6),
    ];
    let mut batches = vec![0u8; 512];
    let a = BatchBuilder::new().write(&records, &mut batches).unwrap();
    let b = BatchBuilder::new()
        .with_base_offset(2)
        .write(&records[..1], &mut batches[a..])
        .unwrap();
    // A cut-short third batch, as a broker may send at the end of a fetch.
    let c = BatchBuilder::new()
        .write(&records, &mut batches[a + b..])
        .unwrap();
    let field = &batches[..a + b + c - 10];
    let partitions = [PartitionProduceData::default().with_records(Some(Records::new(field)))];
    let topics = [TopicProduceData::default()
        .with_name("t")
        .with_partition_data(&partitions[..])];
    let body = ProduceRequest::default().with_topic_data(&topics[..]);
    let header = RequestHeader::default()
        .with_request_api_key(0)
        .with_request_api_version(9)
        .with_client_id(Some("c"));
    let mut frame = vec![0u8; 1024];
    let n = encode_request(&header, &body, &mut frame).unwrap();
    let mut text = String::new();
    describe::write_request_frame(&frame[..n], &mut text).unwrap();
    assert_eq!(text.matches("+-- RecordBatch ").count(), 2, "{text}");
    assert!(
        text.contains("= offset 1, key 1B, value 3B, 1 headers"),
        "{text}"
    );
    assert!(
        text.contains("= offset 2, key null, value 3B, 0 headers"),
        "{text}"
    );
    assert!(text.contains("(valid)"));
    assert!(text.contains("+-- tail "), "{text}");
    let mut nodes = Nodes::default();
    describe::visit_request_frame(&frame[..n], &mut nodes).unwrap();
    check_tree(&nodes.0, &nodes.1, n, "produce with records");
    assert!(nodes.0.iter().any(|n| n.category == Category::Record));
}

#[test]
fn unknown_tags_and_responses() {
    // ApiVersions responses always use header v0; a random v4 body carries unknown tags.
    let key = ApiKey::API_VERSIONS;
    assert_eq!(response_header_version(key, 4), 0);
    let s = schema::response(key).unwrap();
    let mut body = vec![0u8; 4096];
    let mut seen_unknown = false;
    for seed in 0..64 {
        let n = kwire_testkit::write_random(s, 4, seed, &mut body).unwrap();
        let frame = frame_of(key, 4, Side::Response, &body[..n]);
        let mut text = String::new();
        describe::write_response_frame(&frame, key, 4, &mut text).unwrap();
        seen_unknown |= text.contains("unknown_tag_");
    }
    assert!(seen_unknown);
}

#[test]
fn pages_name_the_older_versions() {
    let text = page_text("RenewDelegationToken", None);
    assert!(text.contains("Request versions   1-2\n"), "{text}");
    assert!(
        text.contains("Older versions     0 (removed in Kafka 4.0"),
        "{text}"
    );
    let text = page_text("LeaderAndIsr", None);
    assert!(text.contains("Encoded at         v7\n"), "{text}");
    assert!(
        text.contains("Request versions   none (Kafka 4.0 removed this API)\n"),
        "{text}"
    );
    assert!(text.contains("Older versions     0-7 ("), "{text}");
    let text = page_text("Produce", Some(0));
    assert!(text.contains("Older versions     0-2 ("), "{text}");
    assert!(
        text.contains("ProduceRequest v0, request header v1"),
        "{text}"
    );
    let text = page_text("ControlledShutdown", Some(0));
    assert!(
        text.contains("ControlledShutdownRequest v0, request header v0"),
        "{text}"
    );
    assert!(!text.contains("client_id"), "{text}");
}

/// A broker's reply to an ApiVersions version it does not know is laid out as v0, whatever the
/// version asked for: the dissector reads it so, as `frame::decode_response` does, and a reply
/// in the layout asked for is still read at that version.
#[test]
fn api_versions_fallback_reply_dissects_as_v0() {
    let reply = [
        0, 0, 0, 16, 0, 0, 0, 5, 0, 35, 0, 0, 0, 1, 0, 18, 0, 0, 0, 2,
    ];
    for sent in [3, 4] {
        let mut text = String::new();
        describe::write_response_frame(&reply, ApiKey::API_VERSIONS, sent, &mut text).unwrap();
        assert!(text.starts_with("ApiVersionsResponse"), "{text}");
        assert!(text.contains("message v0"), "{text}");
        assert!(text.contains("message body, version 0"), "{text}");
        assert!(decode_response(&reply, ApiKey::API_VERSIONS, sent).is_ok());
    }

    let body = kwire::messages::ApiVersionsResponse::default().with_error_code(35);
    let header = ResponseHeader::default().with_correlation_id(5);
    let mut buf = [0u8; 32];
    let n = encode_response(&header, &body, 3, &mut buf).unwrap();
    let mut text = String::new();
    describe::write_response_frame(&buf[..n], ApiKey::API_VERSIONS, 3, &mut text).unwrap();
    assert!(text.contains("message v3"), "{text}");
}

#[test]
fn enumerated_values_are_named_and_uuids_printed_as_kafka_does() {
    use kwire::codec::Uuid;
    use kwire::messages::fetch_request::{FetchPartition, FetchTopic};
    use kwire::messages::fetch_response::{FetchableTopicResponse, PartitionData};
    use kwire::messages::{ApiVersionsResponse, FetchRequest, FetchResponse};
    let id = Uuid::from(0x0123_4567_89ab_cdef_0123_4567_89ab_cdef_u128);
    let partitions = [FetchPartition::default()];
    let topics = [FetchTopic::default()
        .with_topic_id(id)
        .with_partitions(&partitions[..])];
    let request = FetchRequest::default()
        .with_isolation_level(1)
        .with_topics(&topics[..]);
    let header = RequestHeader::default()
        .with_request_api_key(1)
        .with_request_api_version(17);
    let mut frame = vec![0u8; 512];
    let n = encode_request(&header, &request, &mut frame).unwrap();
    let mut text = String::new();
    describe::write_request_frame(&frame[..n], &mut text).unwrap();
    assert!(text.contains("= 1 (READ_COMMITTED)"), "{text}");
    assert!(text.contains(&format!("= {id} ")), "{text}");
    assert!(!text.contains(&id.hyphenated().to_string()), "{text}");

    let data = [PartitionData::default().with_error_code(1)];
    let responses = [FetchableTopicResponse::default()
        .with_topic_id(id)
        .with_partitions(&data[..])];
    let response = FetchResponse::default().with_responses(&responses[..]);
    let mut body = vec![0u8; 512];
    let len = response.encode(17, &mut body).unwrap();
    let frame = frame_of(ApiKey::FETCH, 17, Side::Response, &body[..len]);
    let mut text = String::new();
    describe::write_response_frame(&frame, ApiKey::FETCH, 17, &mut text).unwrap();
    assert!(text.contains("= 1 (OFFSET_OUT_OF_RANGE)"), "{text}");
    // No error is shown bare, as the reference pages show it.
    assert!(
        text.contains("ErrorCode  ") && text.contains("= 0 "),
        "{text}"
    );

    // An API key in a body is named as the header's is.
    let keys = [kwire::messages::api_versions_response::ApiVersion::default().with_api_key(3)];
    let response = ApiVersionsResponse::default().with_api_keys(&keys[..]);
    let len = response.encode(3, &mut body).unwrap();
    let frame = frame_of(ApiKey::API_VERSIONS, 3, Side::Response, &body[..len]);
    let mut text = String::new();
    describe::write_response_frame(&frame, ApiKey::API_VERSIONS, 3, &mut text).unwrap();
    assert!(text.contains("= 3 (Metadata)"), "{text}");
}

/// A SaslAuthenticate exchange is shown as the steps of its mechanism and their lengths, never
/// as the credentials: a PLAIN password, a SCRAM proof or signature, an OAUTHBEARER token.
#[test]
fn sasl_credentials_are_never_shown() {
    use kwire::messages::{SaslAuthenticateRequest, SaslAuthenticateResponse};

    let secrets: [(&[u8], &str); 4] = [
        (b"\0alice\0hunter2-pw", "PLAIN credentials"),
        (
            b"c=biws,r=abcdefghijk,p=SECRETPROOFbase64==",
            "SCRAM client-final",
        ),
        (
            b"n,,\x01auth=Bearer SECRET.TOKEN.value\x01\x01",
            "OAUTHBEARER initial response",
        ),
        (b"n,,n=alice,r=abcdefghijk", "SCRAM client-first"),
    ];
    for version in [0, 1, 2] {
        for (message, step) in secrets {
            let header = RequestHeader::new(ApiKey::SASL_AUTHENTICATE, version, 9);
            let body = SaslAuthenticateRequest::default().with_auth_bytes(message);
            let mut frame = vec![0u8; 256];
            let n = encode_request(&header, &body, &mut frame).unwrap();
            let mut text = String::new();
            describe::write_request_frame(&frame[..n], &mut text).unwrap();
            assert!(
                text.contains(&format!("<{step}, {} bytes, not shown>", message.len())),
                "{text}"
            );
            for secret in ["hunter2", "SECRET", "736563726574"] {
                assert!(!text.contains(secret), "v{version}: {text}");
            }
        }
        let answer = SaslAuthenticateResponse::default().with_auth_bytes(b"v=SECRETSIGNATURE=");
        let header = ResponseHeader::default().with_correlation_id(9);
        let mut frame = vec![0u8; 256];
        let n = encode_response(&header, &answer, version, &mut frame).unwrap();
        let mut text = String::new();
        describe::write_response_frame(&frame[..n], ApiKey::SASL_AUTHENTICATE, version, &mut text)
            .unwrap();
        assert!(
            text.contains("<SCRAM server-final, 18 bytes, not shown>"),
            "{text}"
        );
        assert!(!text.contains("SECRET"), "{text}");
    }
}
