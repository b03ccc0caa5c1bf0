//! `kwire probe --fuzz N --seed S`: requests built from seeded random instances and from
//! mutations of them, each followed by a liveness check; and `--replay FILE`, which sends one
//! such request again.
//!
//! Every request is a whole frame whose size prefix matches its length: the mutations work on
//! the body (lengths, counts, varints, tagged fields, truncations), and the prefix is written
//! after. Each goes out on a fresh connection, and the broker must answer with a frame that
//! decodes at the request's version, or close the connection, within the timeout. Then an
//! ApiVersions exchange on another fresh connection checks that the broker still answers.
//! A request that makes the broker hang, stop answering or answer what does not decode is a
//! finding, and is written to a file that `--replay` sends again.

use std::fmt;
use std::path::{Path, PathBuf};

use kwire::codec::{Encode, VersionRange};
use kwire::header::request_header_version;
use kwire::messages::RequestHeader;
use kwire::{ApiKey, frame};
use kwire_schema as schema;
use kwire_testkit::random::{Random, random_instance};

use super::conn::{CLIENT_ID, Conn, Reply, Target};
use super::opening::{negotiate, opening_error};
use super::requests::is_write;
use crate::Error;

/// How a request was made from its random instance.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mutation {
    /// The random instance as it is: a legal request.
    None,
    /// The body cut short.
    Truncated,
    /// A byte set to an edge value.
    Byte,
    /// Four bytes set to a huge or negative length or count.
    Length32,
    /// Two bytes set to a huge or negative string length.
    Length16,
    /// An over-long or unfinished varint inserted.
    Varint,
    /// A tagged field with a huge declared size appended.
    TaggedField,
    /// A run of the body repeated.
    Repeated,
}

impl Mutation {
    const ALL: [Self; 8] = [
        Self::None,
        Self::Truncated,
        Self::Byte,
        Self::Length32,
        Self::Length16,
        Self::Varint,
        Self::TaggedField,
        Self::Repeated,
    ];

    /// The mutation in a few words.
    #[must_use]
    pub const fn name(self) -> &'static str {
        match self {
            Self::None => "none",
            Self::Truncated => "truncated",
            Self::Byte => "an edge byte",
            Self::Length32 => "a bad int32 length",
            Self::Length16 => "a bad int16 length",
            Self::Varint => "a bad varint",
            Self::TaggedField => "a huge tagged field",
            Self::Repeated => "a repeated run",
        }
    }
}

/// A request of the fuzz run: its frame, and how it was made.
#[derive(Debug, Clone)]
pub struct Case {
    /// The API in the header.
    pub api: ApiKey,
    /// The version in the header.
    pub version: i16,
    /// The correlation id in the header.
    pub correlation_id: i32,
    /// How the body was changed.
    pub mutation: Mutation,
    /// The whole frame, size prefix included.
    pub frame: Vec<u8>,
}

/// A number below `n` (0 for 0).
fn below(rng: &mut Random, n: usize) -> usize {
    if n == 0 {
        return 0;
    }
    usize::try_from(rng.next_u64() % (n as u64)).unwrap_or(0)
}

/// Applies `m` to `body`.
fn mutate(body: &mut Vec<u8>, m: Mutation, rng: &mut Random) {
    let pos = below(rng, body.len().saturating_add(1));
    let put = |body: &mut Vec<u8>, bytes: &[u8]| {
        for (i, b) in bytes.iter().enumerate() {
            match body.get_mut(pos + i) {
                Some(slot) => *slot = *b,
                None => body.push(*b),
            }
        }
    };
    match m {
        Mutation::None => {}
        Mutation::Truncated => body.truncate(below(rng, body.len())),
        Mutation::Byte => {
            let v = [0x00, 0xff, 0x7f, 0x80][below(rng, 4)];
            put(body, &[v]);
        }
        Mutation::Length32 => {
            let v: i32 = [i32::MAX, -1, -2, 0x0001_0000][below(rng, 4)];
            put(body, &v.to_be_bytes());
        }
        Mutation::Length16 => {
            let v: i16 = [i16::MAX, -1, i16::MIN, 0x0100][below(rng, 4)];
            put(body, &v.to_be_bytes());
        }
        Mutation::Varint => {
            let runs: [&[u8]; 3] = [
                &[0xff, 0xff, 0xff, 0xff, 0xff, 0x01],
                &[0x80, 0x80, 0x80, 0x80, 0x80],
                &[0xff, 0xff, 0xff, 0xff, 0x0f],
            ];
            let run = runs[below(rng, runs.len())];
            let at = pos.min(body.len());
            body.splice(at..at, run.iter().copied());
        }
        Mutation::TaggedField => {
            // One tagged field, tag 0, announcing about 2 GB of payload, where the body's last
            // byte (most often an empty tagged-field section) was.
            body.pop();
            body.extend_from_slice(&[0x01, 0x00, 0xff, 0xff, 0xff, 0xff, 0x07, 0x00]);
        }
        Mutation::Repeated => {
            let start = below(rng, body.len());
            let len = below(rng, body.len().saturating_sub(start)).saturating_add(1);
            let run: Vec<u8> = body.get(start..start + len).unwrap_or_default().to_vec();
            let at = pos.min(body.len());
            body.splice(at..at, run);
        }
    }
}

/// Request `index` of the run seeded with `seed`, over `pool` (API and versions).
#[must_use]
pub fn case(pool: &[(ApiKey, VersionRange)], seed: u64, index: u64) -> Option<Case> {
    // Each request has its own generator: request 90 of a run is the same without the 89
    // before it.
    let mut rng = Random::new(seed ^ index.wrapping_mul(0x9e37_79b9_7f4a_7c15));
    rng.next_u64();
    let &(api, range) = pool.get(below(&mut rng, pool.len()))?;
    let span = usize::try_from(i32::from(range.max) - i32::from(range.min) + 1).ok()?;
    let version = range.min + i16::try_from(below(&mut rng, span)).ok()?;
    let body_schema = schema::request(api)?;
    let mut body = random_instance(body_schema, version, rng.next_u64()).ok()?;
    let mutation = Mutation::ALL[below(&mut rng, Mutation::ALL.len())];
    mutate(&mut body, mutation, &mut rng);
    let correlation_id = i32::try_from(index % (i32::MAX as u64)).ok()?;
    let hv = request_header_version(api, version);
    let client_id = if hv == 0 { "" } else { CLIENT_ID };
    let header = RequestHeader::new(api, version, correlation_id).with_client_id(Some(client_id));
    let mut head = vec![0u8; 256];
    let n = header.encode(hv, &mut head).ok()?;
    head.truncate(n);
    let size = i32::try_from(head.len() + body.len()).ok()?;
    let mut frame = Vec::with_capacity(4 + head.len() + body.len());
    frame.extend_from_slice(&size.to_be_bytes());
    frame.extend_from_slice(&head);
    frame.extend_from_slice(&body);
    Some(Case {
        api,
        version,
        correlation_id,
        mutation,
        frame,
    })
}

/// What the broker did with one request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Fate {
    /// It answered with a frame that decodes.
    Answered,
    /// It closed the connection.
    Closed,
    /// It sent nothing, as a Produce with `acks` 0 calls for.
    Silent,
    /// A finding: what went wrong.
    Finding(String),
    /// A finding that ends the run: the broker no longer takes connections or answers.
    Stopped(String),
}

impl fmt::Display for Fate {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Answered => f.write_str("answered"),
            Self::Closed => f.write_str("closed the connection"),
            Self::Silent => f.write_str("sent nothing, as asked"),
            Self::Finding(why) | Self::Stopped(why) => f.write_str(why),
        }
    }
}

/// Sends `frame` on a fresh connection and judges the answer, then checks that the broker
/// still answers ApiVersions.
fn send(target: &Target, frame: &[u8]) -> Fate {
    let info = match frame::request_info(frame) {
        Ok(info) => info,
        Err(e) => return Fate::Finding(format!("the frame has no request header: {e}")),
    };
    let opened = target.client(false, 0).and_then(|client| {
        let mut conn = Conn::open(target, client)?;
        if target.authenticates() {
            conn.settle(false).map_err(|e| opening_error(&e))?;
        }
        Ok(conn)
    });
    let fate = match opened {
        Err(why) => return Fate::Stopped(format!("the broker takes no connection: {why}")),
        Ok(mut conn) => match conn.write(frame) {
            Err(_) => Fate::Closed,
            Ok(()) => judge(
                &conn.read_frame(),
                frame,
                info.api_key,
                info.api_version,
                info.correlation_id,
            ),
        },
    };
    let why = match negotiate(target, false) {
        Ok(_) => return fate,
        Err(Error::Failed(why)) => why,
        Err(Error::Io(e)) => e.to_string(),
    };
    Fate::Stopped(format!(
        "after it ({fate}), the broker no longer answers ApiVersions: {why}"
    ))
}

fn judge(reply: &Reply, frame: &[u8], api: ApiKey, version: i16, id: i32) -> Fate {
    match reply {
        Reply::Frame(f) => match frame::response_correlation_id(f) {
            Ok(got) if got != id => Fate::Finding(format!(
                "the answer carries correlation id {got}, the request {id}"
            )),
            _ => match frame::decode_response(f, api, version) {
                Ok(_) => Fate::Answered,
                Err(e) => Fate::Finding(format!("the answer does not decode: {e}")),
            },
        },
        Reply::Closed(_) => Fate::Closed,
        Reply::Timeout => {
            let silent = frame::decode_request(frame).is_ok_and(|(_, r)| !r.expects_response());
            if silent {
                Fate::Silent
            } else {
                Fate::Finding("neither an answer nor a close within the timeout".into())
            }
        }
        Reply::WrongCorrelation { expected, received } => Fate::Finding(format!(
            "the answer carries correlation id {received}, the request {expected}"
        )),
        Reply::Garbage(why) => Fate::Finding(format!("the answer cannot be read: {why}")),
    }
}

/// The options of a fuzz run.
#[derive(Debug, Clone)]
pub struct Run {
    /// The broker.
    pub broker: String,
    /// Requests to send.
    pub count: u64,
    /// The seed.
    pub seed: u64,
    /// Where findings are written.
    pub out: PathBuf,
    /// The broker's address, TLS, SASL and timeout.
    pub target: Target,
    /// The APIs named with `--api` (all when empty).
    pub apis: Vec<ApiKey>,
    /// Whether APIs that write are sent.
    pub allow_writes: bool,
    /// Print each request's fate on standard error.
    pub verbose: bool,
}

/// APIs left out of a fuzz run unless named with `--api`: a Fetch or ShareFetch may wait for
/// data as long as its random `max_wait_ms` says, which is no hang.
const LONG_POLLS: &[ApiKey] = &[ApiKey::FETCH, ApiKey::SHARE_FETCH];

/// APIs whose random instances write unless `--allow-writes`, beyond [`super::requests::WRITES`]: a
/// Produce carries record batches, a Metadata may ask for topics to be created.
const FUZZ_WRITES: &[ApiKey] = &[ApiKey::PRODUCE, ApiKey::METADATA];

/// Runs `--fuzz`: returns the report's text and the number of findings.
///
/// # Errors
///
/// `Failed` when the broker cannot be reached at the start, or a finding cannot be written.
pub fn fuzz(run: &Run) -> Result<(String, usize), Error> {
    let (conn, _) = negotiate(&run.target, run.verbose)?;
    let pool: Vec<(ApiKey, VersionRange)> = kwire::api::API_TABLE
        .iter()
        .filter(|i| run.apis.is_empty() || run.apis.contains(&i.key))
        .filter(|i| run.allow_writes || !(is_write(i.key) || FUZZ_WRITES.contains(&i.key)))
        .filter(|i| !run.apis.is_empty() || !LONG_POLLS.contains(&i.key))
        .filter_map(|i| {
            let theirs = conn.client.advertised(i.key)?;
            let ours = i.request_versions;
            let r = VersionRange::new(theirs.min.max(ours.min), theirs.max.min(ours.max));
            (!r.is_empty()).then_some((i.key, r))
        })
        .collect();
    drop(conn);
    if pool.is_empty() {
        return Err(Error::Failed(
            "the broker advertises no API version to fuzz (writes are left out unless \
             --allow-writes)"
                .into(),
        ));
    }
    let mut text = String::new();
    let (mut answered, mut closed, mut silent, mut findings) = (0u64, 0u64, 0u64, 0usize);
    let (mut sent, mut mutated) = (0usize, 0u64);
    for index in 0..run.count {
        let Some(case) = case(&pool, run.seed, index) else {
            continue;
        };
        sent += 1;
        if case.mutation != Mutation::None {
            mutated += 1;
        }
        let fate = send(&run.target, &case.frame);
        let name = case.api.info().map_or("?", |i| i.name);
        if run.verbose {
            eprintln!(
                "request {index}: {name} v{} ({}, {} bytes): {fate}",
                case.version,
                case.mutation.name(),
                case.frame.len()
            );
        }
        match &fate {
            Fate::Answered => answered += 1,
            Fate::Closed => closed += 1,
            Fate::Silent => silent += 1,
            Fate::Finding(why) | Fate::Stopped(why) => {
                findings += 1;
                let file = write_finding(&run.out, run.seed, index, &case)?;
                text.push_str(&format!(
                    "request {index}: {name} v{} (mutation: {}, {} bytes): {why}\n  written to {}; \
                     replay with: kwire probe {} --replay {}\n",
                    case.version,
                    case.mutation.name(),
                    case.frame.len(),
                    file.display(),
                    run.broker,
                    file.display()
                ));
                if let Fate::Stopped(_) = fate {
                    text.push_str("The broker stopped answering: the run ends here.\n");
                    break;
                }
            }
        }
    }
    text.push_str(&format!(
        "fuzz: {sent} request{} sent (seed {}, {mutated} mutated) over {} API{}: \
         {answered} answered, {closed} closed the connection, {silent} not answered as asked, \
         {findings} finding{}.\n",
        plural(sent),
        run.seed,
        pool.len(),
        plural(pool.len()),
        plural(findings)
    ));
    Ok((text, findings))
}

/// The plural ending for a count.
fn plural(n: usize) -> &'static str {
    if n == 1 { "" } else { "s" }
}

fn write_finding(dir: &Path, seed: u64, index: u64, case: &Case) -> Result<PathBuf, Error> {
    std::fs::create_dir_all(dir)
        .map_err(|e| Error::Failed(format!("creating {}: {e}", dir.display())))?;
    let name = case.api.info().map_or("unknown", |i| i.name);
    let file = dir.join(format!("seed{seed}-{index}-{name}-v{}.bin", case.version));
    std::fs::write(&file, &case.frame)
        .map_err(|e| Error::Failed(format!("writing {}: {e}", file.display())))?;
    Ok(file)
}

/// Runs `--replay FILE`: returns the report's text and whether it is a finding.
///
/// # Errors
///
/// `Failed` when the file cannot be read or holds no request frame.
pub fn replay(target: &Target, file: &Path) -> Result<(String, bool), Error> {
    let frame = std::fs::read(file)
        .map_err(|e| Error::Failed(format!("reading {}: {e}", file.display())))?;
    let info = frame::request_info(&frame)
        .map_err(|e| Error::Failed(format!("{} holds no request frame: {e}", file.display())))?;
    let fate = send(target, &frame);
    let name = info.api_key.info().map_or("an unknown API", |i| i.name);
    let text = format!(
        "replay of {} ({name} v{}, {} bytes): {fate}\n",
        file.display(),
        info.api_version,
        frame.len()
    );
    Ok((text, matches!(fate, Fate::Finding(_) | Fate::Stopped(_))))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cases_are_reproducible_and_sized() {
        let pool = [
            (ApiKey::LIST_GROUPS, VersionRange::new(0, 5)),
            (ApiKey::DESCRIBE_GROUPS, VersionRange::new(0, 6)),
        ];
        let mut mutations = Vec::new();
        for i in 0..200 {
            let a = case(&pool, 7, i).expect("a case");
            let b = case(&pool, 7, i).expect("a case");
            assert_eq!(a.frame, b.frame);
            let size = i32::from_be_bytes(a.frame[..4].try_into().unwrap());
            assert_eq!(usize::try_from(size).unwrap(), a.frame.len() - 4);
            let info = frame::request_info(&a.frame).expect("a header");
            assert_eq!((info.api_key, info.api_version), (a.api, a.version));
            if a.mutation == Mutation::None {
                assert!(frame::decode_request(&a.frame).is_ok(), "request {i}");
            }
            if !mutations.contains(&a.mutation) {
                mutations.push(a.mutation);
            }
        }
        assert_eq!(mutations.len(), Mutation::ALL.len());
        assert_ne!(
            case(&pool, 8, 0).unwrap().frame,
            case(&pool, 7, 0).unwrap().frame
        );
    }
}
