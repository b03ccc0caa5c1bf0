//! A second implementation's bytes: bodies, frames and record sets written by kafka-python
//! (its hand-written per-version protocol classes and its record builders), read back by
//! kwire. The vectors and the field values they carry come from
//! `tests/kafka_python/generate.py` (see its docstring for the format); they are committed, so
//! this test needs no Python.
//!
//! For every body:
//!
//! * our typed decoder (`Request::decode` / `Response::decode`) reads it, consuming every byte;
//! * every field kafka-python set is compared with the decoded value: the value's `Debug` tree
//!   (the generated structs' derived `Debug`) is parsed and each path looked up in it, so names,
//!   nesting, array lengths, nulls, strings, bytes and numbers must all agree;
//! * every `records` field is walked with `Records::batches()`: v2 batches (header fields,
//!   CRC-32C, records with offsets, timestamps, keys, values, headers), legacy messages
//!   (`LegacyMessage`, CRC-32, `LegacyMessage::record`) and gzip wrappers
//!   (`BuiltinCodecs`, `LegacyMessage::inner`), against what kafka-python's own reader saw;
//! * re-encoding gives back the identical bytes;
//! * the whole frame kafka-python built (size, header, body) goes through `frame::decode_*` and
//!   `frame::encode_*` with the same result.
//!
//! The other way round, `tests/kafka_python/flexible.txt` holds kwire's own encodings of every
//! flexible version that kafka-python's JSON-schema classes know (240 message-versions, from
//! `cargo run --example flexible_instances`), as kafka-python decoded them
//! (`tests/kafka_python/decode_ours.py`): the same checks hold for them, so kafka-python reads
//! every field kwire writes as kwire meant it.
//!
//! Versions our tables do not have yet must be exactly versions that Kafka 4.0 removed
//! ([`REMOVED_IN_4_0`]); for those, the decoder must refuse with `UnsupportedVersion`, and the
//! test prints which cases wait for them.

use std::collections::BTreeMap;

use kwire::codec::{Reader, Str};
use kwire::records::compression::{BuiltinCodecs, Decompressor};
use kwire::records::{Batch, Compression, Records};
use kwire::{ApiKey, DecodeErrorKind, Encode, Request, Response, frame};

const VECTORS: &str = include_str!("../kafka_python/vectors.txt");

/// kwire's encodings of every flexible version kafka-python's JSON-schema classes know, as
/// kafka-python decoded them (`tests/kafka_python/decode_ours.py`).
const FLEXIBLE: &str = include_str!("../kafka_python/flexible.txt");

/// Request versions present in Kafka 3.9 and removed in 4.0 (the response versions are the
/// same), as `(api key, first, last)`.
const REMOVED_IN_4_0: &[(i16, i16, i16)] = &[
    (0, 0, 2),  // Produce
    (1, 0, 3),  // Fetch
    (2, 0, 0),  // ListOffsets
    (4, 0, 7),  // LeaderAndIsr
    (5, 0, 4),  // StopReplica
    (6, 0, 8),  // UpdateMetadata
    (7, 0, 3),  // ControlledShutdown
    (8, 0, 1),  // OffsetCommit
    (9, 0, 0),  // OffsetFetch
    (19, 0, 1), // CreateTopics
    (20, 0, 0), // DeleteTopics
    (23, 0, 1), // OffsetForLeaderEpoch
    (27, 0, 0), // WriteTxnMarkers
    (29, 0, 0), // DescribeAcls
    (30, 0, 0), // CreateAcls
    (31, 0, 0), // DeleteAcls
    (32, 0, 0), // DescribeConfigs
    (34, 0, 0), // AlterReplicaLogDirs
    (35, 0, 0), // DescribeLogDirs
    (38, 0, 0), // CreateDelegationToken
    (39, 0, 0), // RenewDelegationToken
    (40, 0, 0), // ExpireDelegationToken
    (41, 0, 0), // DescribeDelegationToken
    (56, 0, 1), // AlterPartition
];

fn removed_in_4_0(key: i16, version: i16) -> bool {
    REMOVED_IN_4_0
        .iter()
        .any(|&(k, lo, hi)| k == key && (lo..=hi).contains(&version))
}

/// Where kafka-python's bytes break the Kafka schemas (kafka-python 3.0.12, `kafka.protocol.old`).
/// Each entry is checked to still disagree in exactly that way, so the list cannot go stale.
#[derive(Debug, Clone, Copy)]
enum Bug {
    /// The body has the layout of another version: kafka-python's `DescribeAcls*_v2` reuse the
    /// v1 schema, but v2 is the first flexible version (compact strings and arrays, tagged
    /// fields). Our decoder must refuse the body at the version named and read it at this one.
    BodyOfVersion(i16),
    /// The body has the layout of no version: kafka-python's `DescribeLogDirsRequest_v0` writes
    /// `Partitions` as one `int32` where the schema has `[]int32`. Our decoder must refuse it.
    BodyMalformed,
    /// The body is right, but the frame uses this header version: kafka-python's
    /// `OffsetForLeaderEpoch*_v4` encode a flexible body but are not marked flexible, so the
    /// request gets header v1 (no tagged fields) instead of v2 and the response header v0
    /// instead of v1. Our frame decoder must refuse the frame, and the frame's prefix must be
    /// exactly the size and header written at this version.
    FrameHeaderVersion(i16),
}

const KAFKA_PYTHON_BUGS: &[(&str, Bug)] = &[
    ("DescribeAclsRequest_v2", Bug::BodyOfVersion(1)),
    ("DescribeAclsResponse_v2", Bug::BodyOfVersion(1)),
    ("DescribeLogDirsRequest_v0", Bug::BodyMalformed),
    ("OffsetForLeaderEpochRequest_v4", Bug::FrameHeaderVersion(1)),
    (
        "OffsetForLeaderEpochResponse_v4",
        Bug::FrameHeaderVersion(0),
    ),
];

fn bug(name: &str) -> Option<Bug> {
    KAFKA_PYTHON_BUGS
        .iter()
        .find(|(n, _)| *n == name)
        .map(|&(_, b)| b)
}

// ------------------------------------------------------------------------------------------------
// The vectors

fn unhex(s: &str) -> Vec<u8> {
    if s == "~" {
        return Vec::new();
    }
    assert!(s.len().is_multiple_of(2), "odd hex length: {s}");
    (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&s[i..i + 2], 16).expect("hex"))
        .collect()
}

fn opt_hex(s: &str) -> Option<Vec<u8>> {
    (s != "-").then(|| unhex(s))
}

#[derive(Debug, Default)]
struct ExpectedBatch {
    base_offset: i64,
    last_offset_delta: i32,
    producer_id: i64,
    producer_epoch: i16,
    base_sequence: i32,
    transactional: bool,
    count: i32,
}

#[derive(Debug)]
struct ExpectedRecord {
    offset: i64,
    timestamp: Option<i64>,
    key: Option<Vec<u8>>,
    value: Option<Vec<u8>>,
    headers: Vec<(Vec<u8>, Option<Vec<u8>>)>,
}

#[derive(Debug)]
struct ExpectedEntry {
    magic: i8,
    offset: i64,
    attributes: i16,
    batch: Option<ExpectedBatch>,
    records: Vec<ExpectedRecord>,
}

#[derive(Debug)]
struct Set {
    bytes: Vec<u8>,
    entries: Vec<ExpectedEntry>,
}

#[derive(Debug)]
enum Expect {
    Field(String, String),
    Len(String, Option<usize>),
    Records(String, String),
}

#[derive(Debug)]
struct Case {
    name: String,
    key: i16,
    version: i16,
    request: bool,
    body: Vec<u8>,
    frame_prefix: Vec<u8>,
    correlation_id: i32,
    client_id: Option<String>,
    expects: Vec<Expect>,
}

struct Vectors {
    sets: BTreeMap<String, Set>,
    cases: Vec<Case>,
    generator: String,
}

fn parse_vectors() -> Vectors {
    parse(VECTORS)
}

fn parse(text: &str) -> Vectors {
    let mut sets = BTreeMap::new();
    let mut cases = Vec::new();
    let mut generator = String::new();
    let mut set: Option<(String, Set)> = None;
    let mut case: Option<Case> = None;
    for line in text.lines() {
        if let Some(comment) = line.strip_prefix("# ") {
            if generator.is_empty() {
                generator = comment.to_string();
            }
            continue;
        }
        let (kind, rest) = line.split_once(' ').unwrap_or((line, ""));
        let w: Vec<&str> = rest.split(' ').collect();
        match kind {
            "set" => {
                set = Some((
                    w[0].to_string(),
                    Set {
                        bytes: unhex(w[1]),
                        entries: Vec::new(),
                    },
                ));
            }
            "entry" => set.as_mut().unwrap().1.entries.push(ExpectedEntry {
                magic: w[0].parse().unwrap(),
                offset: w[1].parse().unwrap(),
                attributes: w[2].parse().unwrap(),
                batch: None,
                records: Vec::new(),
            }),
            "batch" => {
                let e = set.as_mut().unwrap().1.entries.last_mut().unwrap();
                e.batch = Some(ExpectedBatch {
                    base_offset: w[0].parse().unwrap(),
                    last_offset_delta: w[1].parse().unwrap(),
                    producer_id: w[2].parse().unwrap(),
                    producer_epoch: w[3].parse().unwrap(),
                    base_sequence: w[4].parse().unwrap(),
                    transactional: w[5] == "true",
                    count: w[6].parse().unwrap(),
                });
            }
            "rec" => {
                let headers = if w[4] == "-" {
                    Vec::new()
                } else {
                    w[4].split(',')
                        .map(|kv| {
                            let (k, v) = kv.split_once('=').unwrap();
                            (unhex(k), opt_hex(v))
                        })
                        .collect()
                };
                let e = set.as_mut().unwrap().1.entries.last_mut().unwrap();
                e.records.push(ExpectedRecord {
                    offset: w[0].parse().unwrap(),
                    timestamp: (w[1] != "-").then(|| w[1].parse().unwrap()),
                    key: opt_hex(w[2]),
                    value: opt_hex(w[3]),
                    headers,
                });
            }
            "endset" => {
                let (name, s) = set.take().unwrap();
                sets.insert(name, s);
            }
            "case" => {
                case = Some(Case {
                    name: w[0].to_string(),
                    key: w[1].parse().unwrap(),
                    version: w[2].parse().unwrap(),
                    request: w[3] == "request",
                    body: unhex(w[4]),
                    frame_prefix: Vec::new(),
                    correlation_id: 0,
                    client_id: None,
                    expects: Vec::new(),
                });
            }
            "frame" => case.as_mut().unwrap().frame_prefix = unhex(w[0]),
            "header" => {
                let c = case.as_mut().unwrap();
                c.correlation_id = w[0].parse().unwrap();
                c.client_id = w.get(1).map(|s| (*s).to_string());
            }
            "f" => {
                let (path, value) = rest.split_once(' ').unwrap();
                let c = case.as_mut().unwrap();
                c.expects
                    .push(Expect::Field(path.to_string(), value.to_string()));
            }
            "len" => {
                let n = (w[1] != "null").then(|| w[1].parse().unwrap());
                let c = case.as_mut().unwrap();
                c.expects.push(Expect::Len(w[0].to_string(), n));
            }
            "records" => {
                let c = case.as_mut().unwrap();
                c.expects
                    .push(Expect::Records(w[0].to_string(), w[1].to_string()));
            }
            "end" => cases.push(case.take().unwrap()),
            other => panic!("unknown vector line kind {other:?}"),
        }
    }
    assert!(set.is_none() && case.is_none(), "vectors end mid-item");
    Vectors {
        sets,
        cases,
        generator,
    }
}

use crate::debug_tree::{Node, debug_tree, unwrap_some};

/// Finds `topics[1].partitions[0].name` in a tree. `None` with the reason when it is missing.
fn lookup<'n>(root: &'n Node, path: &str) -> Result<&'n Node, String> {
    let mut node = root;
    for seg in path.split('.') {
        let (name, mut indices) = match seg.find('[') {
            Some(i) => (&seg[..i], &seg[i..]),
            None => (seg, ""),
        };
        node = match unwrap_some(node) {
            Node::Struct(sname, fields) => match fields.iter().find(|(n, _)| n == name) {
                Some((_, v)) => v,
                None => {
                    let names: Vec<&str> = fields.iter().map(|(n, _)| n.as_str()).collect();
                    return Err(format!("{sname} has no field {name:?} (fields: {names:?})"));
                }
            },
            other => return Err(format!("{name:?} looked up in a non-struct {other:?}")),
        };
        while let Some(rest) = indices.strip_prefix('[') {
            let close = rest.find(']').unwrap();
            let i: usize = rest[..close].parse().unwrap();
            indices = &rest[close + 1..];
            node = match unwrap_some(node) {
                Node::List(items) => items
                    .get(i)
                    .ok_or_else(|| format!("index {i} beyond {} elements", items.len()))?,
                other => return Err(format!("[{i}] applied to a non-list {other:?}")),
            };
        }
    }
    Ok(node)
}

fn is_none(node: &Node) -> bool {
    matches!(node, Node::Atom(a) if a == "None")
}

/// Compares a node with an expected value of the vectors (`i:`, `s:`, `b:`, `bool:`, `f:`,
/// `null`).
fn compare_value(node: &Node, expected: &str) -> Result<(), String> {
    if expected == "null" {
        return if is_none(node) {
            Ok(())
        } else {
            Err(format!("expected null, found {node:?}"))
        };
    }
    let node = unwrap_some(node);
    let (kind, want) = expected.split_once(':').unwrap();
    let ok = match (kind, node) {
        ("i", Node::Atom(a)) => a.parse::<i128>().ok() == want.parse::<i128>().ok(),
        ("f", Node::Atom(a)) => a.parse::<f64>().ok() == want.parse::<f64>().ok(),
        ("bool", Node::Atom(a)) => a == want,
        ("s", Node::Str(s)) => s == want,
        ("u", Node::Tuple(name, items)) if name == "Uuid" => {
            matches!(items.as_slice(), [Node::Atom(a)] if a == want)
        }
        ("b", Node::List(items)) => {
            let got: Option<Vec<u8>> = items
                .iter()
                .map(|n| match n {
                    Node::Atom(a) => a.parse::<u8>().ok(),
                    _ => None,
                })
                .collect();
            got == Some(unhex(want))
        }
        _ => false,
    };
    if ok {
        Ok(())
    } else {
        Err(format!("expected {expected}, found {node:?}"))
    }
}

// ------------------------------------------------------------------------------------------------
// Records

/// Decompresses a gzip payload, growing the buffer until it fits.
fn decompress(codec: Compression, input: &[u8]) -> Result<Vec<u8>, String> {
    let mut size = 256;
    loop {
        let mut buf = vec![0u8; size];
        match BuiltinCodecs::new().decompress(codec, input, &mut buf) {
            Ok(n) => {
                buf.truncate(n);
                return Ok(buf);
            }
            Err(e) if e.is_output_too_small() && size < 1 << 24 => size *= 4,
            Err(e) => return Err(format!("decompress: {e:?}")),
        }
    }
}

/// A record as read: offset, timestamp, key, value.
type GotRecord<'r> = (i64, Option<i64>, Option<&'r [u8]>, Option<&'r [u8]>);

fn compare_record(
    what: &str,
    got: GotRecord<'_>,
    headers: Vec<(Vec<u8>, Option<Vec<u8>>)>,
    want: &ExpectedRecord,
    errors: &mut Vec<String>,
) {
    let (offset, timestamp, key, value) = got;
    if offset != want.offset
        || timestamp != want.timestamp
        || key != want.key.as_deref()
        || value != want.value.as_deref()
        || headers != want.headers
    {
        errors.push(format!(
            "{what}: record (offset {offset}, timestamp {timestamp:?}, key {key:?}, value \
             {value:?}, headers {headers:?}) but kafka-python read {want:?}"
        ));
    }
}

/// Walks a records field with `Records::batches()` and compares it with what kafka-python's
/// reader saw in the same bytes. Returns the number of records compared.
fn check_records(what: &str, records: Records<'_>, set: &Set, errors: &mut Vec<String>) -> usize {
    let mut compared = 0;
    if records.as_bytes() != set.bytes.as_slice() {
        errors.push(format!("{what}: records bytes differ from the set"));
        return 0;
    }
    let entries: Vec<_> = records.batches().collect();
    if entries.len() != set.entries.len() {
        errors.push(format!(
            "{what}: {} entries, kafka-python read {}",
            entries.len(),
            set.entries.len()
        ));
        return 0;
    }
    for (i, (entry, want)) in entries.into_iter().zip(&set.entries).enumerate() {
        let what = format!("{what} entry {i}");
        let entry = match entry {
            Ok(e) => e,
            Err(e) => {
                errors.push(format!("{what}: {e}"));
                continue;
            }
        };
        if let Err(e) = entry.verify_crc() {
            errors.push(format!("{what}: CRC: {e}"));
        }
        if entry.magic() != want.magic {
            errors.push(format!(
                "{what}: magic {} but {}",
                entry.magic(),
                want.magic
            ));
            continue;
        }
        let mut got_records = Vec::new();
        match entry {
            Batch::V2(b) => {
                let wb = want.batch.as_ref().unwrap();
                let header = (
                    b.base_offset(),
                    b.attributes().0,
                    b.last_offset_delta(),
                    b.producer_id(),
                    b.producer_epoch(),
                    b.base_sequence(),
                    b.is_transactional(),
                    b.records_count(),
                );
                let expected = (
                    wb.base_offset,
                    want.attributes,
                    wb.last_offset_delta,
                    wb.producer_id,
                    wb.producer_epoch,
                    wb.base_sequence,
                    wb.transactional,
                    wb.count,
                );
                if header != expected {
                    errors.push(format!(
                        "{what}: batch header {header:?} but kafka-python {expected:?}"
                    ));
                }
                let mut compare = |iter: kwire::records::RecordIter<'_>| {
                    for r in iter {
                        match r {
                            Ok(r) => got_records.push((
                                (
                                    r.offset(),
                                    Some(r.timestamp()),
                                    r.key().map(<[u8]>::to_vec),
                                    r.value().map(<[u8]>::to_vec),
                                ),
                                r.headers()
                                    .iter()
                                    .map(|h| (h.key().to_vec(), h.value().map(<[u8]>::to_vec)))
                                    .collect::<Vec<_>>(),
                            )),
                            Err(e) => errors.push(format!("{what}: record: {e}")),
                        }
                    }
                };
                if b.compression() == Compression::NONE {
                    compare(b.records().unwrap());
                } else if cfg!(feature = "gzip") {
                    let payload = decompress(b.compression(), b.payload()).unwrap();
                    compare(b.records_in(&payload).unwrap());
                } else {
                    // Without the codec the header is all there is to read.
                    assert!(decompress(b.compression(), b.payload()).is_err());
                    continue;
                }
            }
            Batch::Legacy(m) => {
                if (m.offset(), i16::from(m.attributes())) != (want.offset, want.attributes) {
                    errors.push(format!(
                        "{what}: offset {} attributes {} but kafka-python {} {}",
                        m.offset(),
                        m.attributes(),
                        want.offset,
                        want.attributes
                    ));
                }
                if !m.is_wrapper() {
                    let r = m.record().unwrap();
                    got_records.push((
                        (
                            r.offset(),
                            r.timestamp(),
                            r.key().map(<[u8]>::to_vec),
                            r.value().map(<[u8]>::to_vec),
                        ),
                        Vec::new(),
                    ));
                } else if cfg!(feature = "gzip") {
                    let inner = decompress(m.compression(), m.value().unwrap()).unwrap();
                    for r in m.inner(&inner).unwrap() {
                        match r {
                            Ok(r) => {
                                if let Err(e) = r.verify_crc() {
                                    errors.push(format!("{what}: inner CRC: {e}"));
                                }
                                got_records.push((
                                    (
                                        r.offset(),
                                        r.timestamp(),
                                        r.key().map(<[u8]>::to_vec),
                                        r.value().map(<[u8]>::to_vec),
                                    ),
                                    Vec::new(),
                                ));
                            }
                            Err(e) => errors.push(format!("{what}: inner message: {e}")),
                        }
                    }
                } else {
                    assert!(decompress(m.compression(), m.value().unwrap()).is_err());
                    continue;
                }
            }
        }
        if got_records.len() != want.records.len() {
            errors.push(format!(
                "{what}: {} records, kafka-python read {}",
                got_records.len(),
                want.records.len()
            ));
            continue;
        }
        for ((got, headers), w) in got_records.iter().zip(&want.records) {
            let (o, t, k, v) = got;
            compare_record(
                &what,
                (*o, *t, k.as_deref(), v.as_deref()),
                headers.clone(),
                w,
                errors,
            );
            compared += 1;
        }
    }
    compared
}

/// The `records` field at a path of a decoded Produce request or Fetch response.
fn records_at<'a>(
    body: &Node,
    decoded: &Decoded<'a>,
    path: &str,
) -> Result<Option<Records<'a>>, String> {
    // The Debug tree says where the field is; the typed value gives the bytes.
    lookup(body, path)?;
    let idx: Vec<usize> = path
        .split('[')
        .skip(1)
        .map(|s| s[..s.find(']').unwrap()].parse().unwrap())
        .collect();
    let [t, p] = idx[..] else {
        return Err(format!("unexpected records path {path}"));
    };
    match decoded {
        Decoded::Request(Request::Produce(r)) => {
            let topic = r.topic_data.iter().nth(t).ok_or("no topic")?;
            let part = topic.partition_data.iter().nth(p).ok_or("no partition")?;
            Ok(part.records)
        }
        Decoded::Response(Response::Fetch(r)) => {
            let topic = r.responses.iter().nth(t).ok_or("no topic")?;
            let part = topic.partitions.iter().nth(p).ok_or("no partition")?;
            Ok(part.records)
        }
        _ => Err(format!("records field {path} in an unexpected message")),
    }
}

// ------------------------------------------------------------------------------------------------
// The cases

fn decode_body<'a>(
    c: &Case,
    version: i16,
    r: &mut Reader<'a>,
) -> Result<Decoded<'a>, kwire::DecodeError> {
    let key = ApiKey(c.key);
    if c.request {
        Request::decode(r, key, version).map(Decoded::Request)
    } else {
        Response::decode(r, key, version).map(Decoded::Response)
    }
}

enum Decoded<'a> {
    Request(Request<'a>),
    Response(Response<'a>),
}

fn encode_to_vec<E: Encode>(value: &E, version: i16) -> Result<Vec<u8>, String> {
    let len = value.encoded_len(version).map_err(|e| e.to_string())?;
    let mut out = vec![0u8; len];
    let n = value.encode(version, &mut out).map_err(|e| e.to_string())?;
    out.truncate(n);
    Ok(out)
}

#[derive(Default)]
struct Tally {
    cases: usize,
    fields: usize,
    records: usize,
    frames: usize,
    awaiting: Vec<String>,
    bugs_met: Vec<String>,
}

fn check_case(c: &Case, sets: &BTreeMap<String, Set>, tally: &mut Tally, errors: &mut Vec<String>) {
    let key = ApiKey(c.key);
    let what = format!("{} (key {}, v{})", c.name, c.key, c.version);
    let versions = if c.request {
        key.request_versions()
    } else {
        key.response_versions()
    };
    let mut r = Reader::new(&c.body);
    let decoded = decode_body(c, c.version, &mut r);
    if !versions.contains(c.version) {
        // Not in our tables yet: only a version Kafka 4.0 removed may be missing, and the
        // decoder must say so rather than misread it.
        if !removed_in_4_0(c.key, c.version) {
            errors.push(format!("{what}: version not supported by kwire"));
        } else if !matches!(
            decoded.as_ref().map_err(|e| e.kind),
            Err(DecodeErrorKind::UnsupportedVersion { .. })
        ) {
            errors.push(format!(
                "{what}: expected UnsupportedVersion from the decoder"
            ));
        }
        tally.awaiting.push(c.name.clone());
        return;
    }
    let bug = bug(&c.name);
    if bug.is_some() {
        tally.bugs_met.push(c.name.clone());
    }
    // The version whose layout the body really has.
    let mut version = c.version;
    match bug {
        Some(Bug::BodyMalformed) => {
            if decoded.is_ok() && r.is_empty() {
                errors.push(format!("{what}: listed as malformed, but it decodes"));
            }
            return;
        }
        Some(Bug::BodyOfVersion(v)) => {
            if decoded.is_ok() && r.is_empty() {
                errors.push(format!(
                    "{what}: listed as a v{v} body, but it decodes at v{}",
                    c.version
                ));
            }
            version = v;
            r = Reader::new(&c.body);
            let again = decode_body(c, v, &mut r);
            return check_decoded(c, version, again, r, bug, sets, tally, errors);
        }
        _ => {}
    }
    check_decoded(c, version, decoded, r, bug, sets, tally, errors);
}

#[allow(clippy::too_many_arguments)]
fn check_decoded(
    c: &Case,
    version: i16,
    decoded: Result<Decoded<'_>, kwire::DecodeError>,
    r: Reader<'_>,
    bug: Option<Bug>,
    sets: &BTreeMap<String, Set>,
    tally: &mut Tally,
    errors: &mut Vec<String>,
) {
    let key = ApiKey(c.key);
    let what = format!("{} (key {}, v{})", c.name, c.key, c.version);
    let decoded = match decoded {
        Ok(d) => d,
        Err(e) => {
            errors.push(format!("{what}: decode: {e}\n  body {}", hex(&c.body)));
            return;
        }
    };
    if !r.is_empty() {
        errors.push(format!(
            "{what}: decode left {} of {} bytes",
            r.remaining(),
            c.body.len()
        ));
        return;
    }
    tally.cases += 1;

    // Field by field.
    let tree = match &decoded {
        Decoded::Request(v) => debug_tree(v),
        Decoded::Response(v) => debug_tree(v),
    };
    let body = match &tree {
        Node::Tuple(_, items) if items.len() == 1 => &items[0],
        other => panic!("{what}: unexpected Debug shape {other:?}"),
    };
    for e in &c.expects {
        let result = match e {
            Expect::Field(path, value) => lookup(body, path)
                .and_then(|n| compare_value(n, value).map_err(|m| format!("{path}: {m}"))),
            Expect::Len(path, n) => {
                lookup(body, path).and_then(|node| match (n, unwrap_some(node)) {
                    (None, _) if is_none(node) => Ok(()),
                    (Some(n), Node::List(items)) if items.len() == *n => Ok(()),
                    (_, other) => Err(format!("{path}: expected {n:?} elements, found {other:?}")),
                })
            }
            Expect::Records(path, set) => match records_at(body, &decoded, path) {
                Ok(Some(records)) => {
                    tally.records +=
                        check_records(&format!("{what} {path}"), records, &sets[set], errors);
                    Ok(())
                }
                Ok(None) => Err(format!("{path}: null records, expected set {set}")),
                Err(m) => Err(m),
            },
        };
        match result {
            Ok(()) => tally.fields += 1,
            Err(m) => errors.push(format!("{what}: {m}")),
        }
    }

    // Byte for byte.
    let again = match &decoded {
        Decoded::Request(v) => encode_to_vec(v, version),
        Decoded::Response(v) => encode_to_vec(v, version),
    };
    match again {
        Ok(bytes) if bytes == c.body => {}
        Ok(bytes) => errors.push(format!(
            "{what}: re-encoded bytes differ\n  kafka-python {}\n  kwire   {}",
            hex(&c.body),
            hex(&bytes)
        )),
        Err(e) => errors.push(format!("{what}: re-encode: {e}")),
    }

    // The whole frame.
    let whole: Vec<u8> = [c.frame_prefix.as_slice(), c.body.as_slice()].concat();
    let wrong_header = match bug {
        Some(Bug::FrameHeaderVersion(hv)) => Some(hv),
        // The header names the version the body does not have.
        Some(Bug::BodyOfVersion(_)) => Some(-1),
        _ => None,
    };
    if let Some(hv) = wrong_header {
        let refused = if c.request {
            frame::decode_request(&whole).is_err()
        } else {
            frame::decode_response(&whole, key, c.version).is_err()
        };
        if !refused {
            errors.push(format!(
                "{what}: listed with a wrong frame, but the frame decodes"
            ));
        }
        if hv >= 0 {
            let header = if c.request {
                let h = kwire::messages::RequestHeader::default()
                    .with_request_api_key(c.key)
                    .with_request_api_version(c.version)
                    .with_correlation_id(c.correlation_id)
                    .with_client_id(c.client_id.as_deref());
                encode_to_vec(&h, hv)
            } else {
                let h = kwire::messages::ResponseHeader::default()
                    .with_correlation_id(c.correlation_id);
                encode_to_vec(&h, hv)
            }
            .unwrap();
            let size = i32::try_from(header.len() + c.body.len()).unwrap();
            let prefix = [size.to_be_bytes().as_slice(), &header].concat();
            if prefix != c.frame_prefix {
                errors.push(format!(
                    "{what}: frame prefix {} is not header v{hv} {}",
                    hex(&c.frame_prefix),
                    hex(&prefix)
                ));
            }
        }
        return;
    }
    let mut out = vec![0u8; whole.len() + 64];
    let frame_result = if c.request {
        frame::decode_request(&whole)
            .map_err(|e| e.to_string())
            .and_then(|(h, b)| {
                if (
                    h.request_api_key,
                    h.request_api_version,
                    h.correlation_id,
                    h.client_id,
                ) != (
                    c.key,
                    c.version,
                    c.correlation_id,
                    c.client_id.as_deref().map(Str::new),
                ) {
                    return Err(format!("header {h:?}"));
                }
                frame::encode_request(&h, &b, &mut out).map_err(|e| e.to_string())
            })
    } else {
        frame::decode_response(&whole, key, c.version)
            .map_err(|e| e.to_string())
            .and_then(|(h, b)| {
                if h.correlation_id != c.correlation_id {
                    return Err(format!("header {h:?}"));
                }
                frame::encode_response(&h, &b, c.version, &mut out).map_err(|e| e.to_string())
            })
    };
    match frame_result {
        Ok(n) if out[..n] == whole[..] => tally.frames += 1,
        Ok(n) => errors.push(format!(
            "{what}: frame re-encoded differently\n  kafka-python {}\n  kwire   {}",
            hex(&whole),
            hex(&out[..n])
        )),
        Err(e) => errors.push(format!(
            "{what}: frame: {e}\n  kafka-python frame {}",
            hex(&whole)
        )),
    }
}

fn hex(b: &[u8]) -> String {
    b.iter().map(|x| format!("{x:02x}")).collect()
}

#[test]
fn kafka_python_bodies_and_frames() {
    let v = parse_vectors();
    assert!(
        v.generator.contains("kafka-python 3.0.12"),
        "{}",
        v.generator
    );
    assert!(v.cases.len() >= 270, "only {} cases", v.cases.len());
    let mut tally = Tally::default();
    let mut errors = Vec::new();
    for c in &v.cases {
        check_case(c, &v.sets, &mut tally, &mut errors);
    }
    eprintln!(
        "kafka-python: {} cases decoded, compared and re-encoded ({} fields, {} records, {} \
         frames)",
        tally.cases, tally.fields, tally.records, tally.frames
    );
    if !tally.awaiting.is_empty() {
        eprintln!(
            "kafka-python: {} cases at versions kwire does not have yet (removed in Kafka \
             4.0), checked to be refused: {}",
            tally.awaiting.len(),
            tally.awaiting.join(" ")
        );
    }
    assert!(
        errors.is_empty(),
        "{} disagreements with kafka-python:\n{}",
        errors.len(),
        errors.join("\n")
    );
    // Every listed kafka-python bug is met, unless its version still awaits our tables.
    for (name, _) in KAFKA_PYTHON_BUGS {
        assert!(
            tally.bugs_met.iter().any(|n| n == name) || tally.awaiting.iter().any(|n| n == name),
            "{name}: listed in KAFKA_PYTHON_BUGS but not met"
        );
    }
    let frame_bugs = tally.bugs_met.len();
    assert!(tally.cases > 0 && tally.fields > 0);
    assert!(tally.frames + frame_bugs >= tally.cases, "frames checked");
}

/// Our encoder against kafka-python's decoder, over every flexible version kafka-python's
/// JSON-schema classes know: each body kwire wrote (a random instance) was decoded by
/// kafka-python, which read every byte; here kwire decodes it again, every field kafka-python
/// read must hold the same value, re-encoding must give the same bytes (so these are still the
/// bytes kafka-python read), and the frame header kafka-python wrote around it is read too.
#[test]
fn kwire_encodings_as_kafka_python_reads_them() {
    let v = parse(FLEXIBLE);
    assert!(
        v.generator.contains("kafka-python 3.0.12"),
        "{}",
        v.generator
    );
    let unread: Vec<&str> = FLEXIBLE
        .lines()
        .filter(|l| l.starts_with("# kafka-python could read no instance"))
        .collect();
    assert!(unread.is_empty(), "{}", unread.join("\n"));
    let mut tally = Tally::default();
    let mut errors = Vec::new();
    for c in &v.cases {
        check_case(c, &v.sets, &mut tally, &mut errors);
    }
    eprintln!(
        "kafka-python read kwire's encodings: {} flexible cases, {} fields, {} frames",
        tally.cases, tally.fields, tally.frames
    );
    assert!(
        errors.is_empty(),
        "{} disagreements with kafka-python:\n{}",
        errors.len(),
        errors.join("\n")
    );
    assert!(
        tally.cases >= 240 && tally.fields > 3000,
        "{} cases",
        tally.cases
    );
    assert_eq!(tally.frames, tally.cases, "every frame checked");
}

#[test]
fn kafka_python_record_sets() {
    let v = parse_vectors();
    let mut errors = Vec::new();
    let mut compared = 0;
    for (name, set) in &v.sets {
        compared += check_records(name, Records::new(&set.bytes), set, &mut errors);
    }
    assert!(errors.is_empty(), "{}", errors.join("\n"));
    let plain: usize = v
        .sets
        .values()
        .flat_map(|s| &s.entries)
        .filter(|e| e.attributes & 7 == 0)
        .map(|e| e.records.len())
        .sum();
    let all: usize = v
        .sets
        .values()
        .flat_map(|s| &s.entries)
        .map(|e| e.records.len())
        .sum();
    let expected = if cfg!(feature = "gzip") { all } else { plain };
    assert_eq!(compared, expected, "records compared");
    assert!(v.sets.len() >= 8);
}
