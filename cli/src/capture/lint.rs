//! `--lint`: the rules of the protocol as Kafka writes it, checked on every exchange. Each
//! finding names the rule, the byte of the frame it is about and what is wrong; findings of
//! error level are what a peer may misread or reject, warnings what Kafka would not write.

use std::collections::HashMap;
use std::fmt;

use kwire::ApiKey;
use kwire::api::{VersionTable, decode_api_versions};
use kwire::header::{request_header_version, response_header_version};
use kwire::{DecodeError, DecodeErrorKind};
use kwire_schema::describe::{self, DescribeError, LenNote, Name, Node, TypeWord, Value, Visit};
use kwire_schema::{
    self as schema, DefaultValue, FieldSchema, FieldType, MessageSchema, StructSchema,
};

use super::exchange::{Ends, Frame, Request, Unanswered};
use super::structs::Structs;

/// How much a finding matters.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Level {
    /// A peer may misread or reject it.
    Error,
    /// Legal, but not what Kafka writes.
    Warning,
}

/// Which frame of the exchange a finding is about.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Side {
    /// The request.
    Request,
    /// The response.
    Response,
}

/// One broken rule.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Finding {
    /// How much it matters.
    pub level: Level,
    /// The rule, as a short name.
    pub rule: &'static str,
    /// The frame it is about.
    pub side: Side,
    /// The byte of that frame (size prefix included) it is about.
    pub offset: usize,
    /// What is wrong, as a sentence.
    pub text: String,
}

impl fmt::Display for Finding {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let level = match self.level {
            Level::Error => "error",
            Level::Warning => "warning",
        };
        let side = match self.side {
            Side::Request => "request",
            Side::Response => "response",
        };
        write!(
            f,
            "lint {level} [{}] {side} byte {}: {}",
            self.rule, self.offset, self.text
        )
    }
}

/// What the linter learns from the exchanges it has seen.
#[derive(Debug, Default)]
pub struct Linter {
    /// The versions each connection's broker advertised in its ApiVersions response.
    advertised: HashMap<(std::net::SocketAddr, std::net::SocketAddr), VersionTable>,
    /// The brokers Metadata responses listed: node id to host and port.
    brokers: HashMap<i64, (String, i64)>,
}

impl Linter {
    /// The findings of a request and its response, if any; what they teach (advertised
    /// versions, brokers) is kept for the exchanges after them.
    pub fn exchange(&mut self, ends: Ends, req: &Request, resp: Option<&Frame>) -> Vec<Finding> {
        let mut findings = self.request(ends, req);
        if let Some(resp) = resp {
            findings.extend(self.response(ends, req, &resp.bytes));
        }
        findings
    }

    /// A request left unanswered for `why`: its own findings, and a reused correlation id.
    pub fn unanswered(&mut self, ends: Ends, req: &Request, why: Unanswered) -> Vec<Finding> {
        let mut findings = self.request(ends, req);
        if why == Unanswered::Reused {
            findings.push(Finding {
                level: Level::Error,
                rule: "correlation-id-reused",
                side: Side::Request,
                offset: 8,
                text: format!(
                    "correlation id {} was used again before this request was answered: the \
                     client cannot tell the two responses apart",
                    req.correlation_id
                ),
            });
        }
        findings
    }

    fn request(&self, ends: Ends, req: &Request) -> Vec<Finding> {
        let frame = &req.frame.bytes;
        let (api, version) = (req.api_key, req.version);
        let mut findings = Vec::new();
        let name = api_name(api);
        if let Some(info) = api.info()
            && !info.current_request_versions.contains(version)
            && info.request_versions.contains(version)
        {
            findings.push(Finding {
                level: Level::Warning,
                rule: "removed-version",
                side: Side::Request,
                offset: 6,
                text: format!(
                    "{name} v{version} was removed in Kafka 4.0 (it speaks {}); brokers before \
                     4.0 still accept it",
                    info.current_request_versions
                ),
            });
        }
        if api != ApiKey::API_VERSIONS
            && let Some(table) = self.advertised.get(&(ends.client, ends.server))
        {
            let text = match table.advertised(api) {
                None => Some(format!(
                    "{name} v{version} sent, but the broker's ApiVersions response on this \
                     connection does not list {name}"
                )),
                Some(range) if !range.contains(version) => Some(format!(
                    "{name} v{version} sent, but the broker advertised {range} on this \
                     connection"
                )),
                Some(_) => None,
            };
            if let Some(text) = text {
                findings.push(Finding {
                    level: Level::Error,
                    rule: "version-not-advertised",
                    side: Side::Request,
                    offset: 6,
                    text,
                });
            }
        }
        let mut scan = Scan::new(Side::Request, schema::request(api), version);
        let walked = describe::visit_request_frame(frame, &mut scan);
        findings.append(&mut scan.findings);
        if let Err(e) = walked {
            let expected = request_header_version(api, version);
            let other = [0, 1, 2].into_iter().find(|&hv| {
                hv != expected && request_body_at(frame, hv).is_some_and(|b| body_reads(&scan, b))
            });
            match other {
                Some(hv) => findings.push(Finding {
                    level: Level::Error,
                    rule: "request-header-version",
                    side: Side::Request,
                    offset: 4,
                    text: format!(
                        "the request header is v{hv}, but {name} v{version} takes request \
                         header v{expected}: the broker reads the body from the wrong byte"
                    ),
                }),
                None => findings.extend(decode_finding(&e, Side::Request, frame.len())),
            }
        }
        findings
    }

    fn response(&mut self, ends: Ends, req: &Request, frame: &[u8]) -> Vec<Finding> {
        let (api, version) = (req.api_key, req.version);
        let mut scan = Scan::new(Side::Response, schema::response(api), version);
        let walked = describe::visit_response_frame(frame, api, version, &mut scan);
        let mut findings = std::mem::take(&mut scan.findings);
        if let Err(e) = walked {
            let expected = response_header_version(api, version);
            let other = [0, 1].into_iter().find(|&hv| {
                hv != expected && response_body_at(frame, hv).is_some_and(|b| body_reads(&scan, b))
            });
            match other {
                Some(hv) => findings.push(Finding {
                    level: Level::Error,
                    rule: "response-header-version",
                    side: Side::Response,
                    offset: 4,
                    text: format!(
                        "the response header is v{hv}, but a response to {} v{version} takes \
                         response header v{expected}: the client reads the body from the \
                         wrong byte",
                        api_name(api)
                    ),
                }),
                None => findings.extend(decode_finding(&e, Side::Response, frame.len())),
            }
            return findings;
        }
        if api == ApiKey::API_VERSIONS
            && let Ok(reply) = decode_api_versions(frame, version)
            && reply.body.error_code == 0
            && let Ok(table) = VersionTable::try_from_response(&reply.body)
        {
            self.advertised.insert((ends.client, ends.server), table);
        }
        scan.walk.finish();
        for s in &scan.walk.done {
            let (Some(id), Some(host), Some(port)) =
                (s.int("NodeId"), s.str("Host"), s.int("Port"))
            else {
                continue;
            };
            match s.field.as_str() {
                "Brokers" if api == ApiKey::METADATA => {
                    self.brokers.insert(id, (host.to_owned(), port));
                }
                "NodeEndpoints" => match self.brokers.get(&id) {
                    Some((h, p)) if (h.as_str(), *p) != (host, port) => findings.push(Finding {
                        level: Level::Error,
                        rule: "leader-endpoint",
                        side: Side::Response,
                        offset: s.offset,
                        text: format!(
                            "the leader endpoint of node {id} is {host}:{port}, but the \
                             Metadata response gave {h}:{p}"
                        ),
                    }),
                    None if !self.brokers.is_empty() => findings.push(Finding {
                        level: Level::Warning,
                        rule: "leader-endpoint",
                        side: Side::Response,
                        offset: s.offset,
                        text: format!(
                            "leader endpoint node {id} ({host}:{port}) is not among the brokers \
                             the Metadata responses listed"
                        ),
                    }),
                    _ => {}
                },
                _ => {}
            }
        }
        findings
    }
}

/// The name of `api`, or its number.
fn api_name(api: ApiKey) -> String {
    api.name()
        .map_or_else(|| format!("API {}", api.0), str::to_owned)
}

/// The finding a decoding error makes, when a rule names it: tags out of order, or a size
/// prefix that says more than the message holds.
fn decode_finding(e: &DescribeError, side: Side, len: usize) -> Option<Finding> {
    let DescribeError::Decode(DecodeError { kind, offset, .. }) = e else {
        return None;
    };
    let (rule, text) = match *kind {
        DecodeErrorKind::TagOutOfOrder { tag, previous } => (
            "tagged-field-order",
            format!(
                "tag {tag} follows tag {previous}: tagged fields go in increasing order of tag, \
                 each once"
            ),
        ),
        DecodeErrorKind::TrailingBytes { count } => (
            "size-prefix",
            format!(
                "the size prefix gives {} bytes, but the message ends {count} bytes before \
                 them",
                len.saturating_sub(4)
            ),
        ),
        _ => return None,
    };
    Some(Finding {
        level: Level::Error,
        rule,
        side,
        offset: *offset,
        text,
    })
}

/// Whether `body` reads as the scanned message's body with nothing left over.
fn body_reads(scan: &Scan, body: &[u8]) -> bool {
    scan.schema
        .is_some_and(|s| describe::visit_body(s, scan.version, body, &mut Ignore).is_ok())
}

/// The bytes after a request header of version `hv`, if `frame` has one.
fn request_body_at(frame: &[u8], hv: i16) -> Option<&[u8]> {
    // Size, API key, version, correlation id.
    let mut at = 12;
    if hv >= 1 {
        let len = i16::from_be_bytes(frame.get(at..at + 2)?.try_into().ok()?);
        at += 2 + usize::try_from(len.max(0)).ok()?;
        if len < -1 {
            return None;
        }
    }
    if hv >= 2 {
        at = skip_tags(frame, at)?;
    }
    frame.get(at..)
}

/// The bytes after a response header of version `hv`, if `frame` has one.
fn response_body_at(frame: &[u8], hv: i16) -> Option<&[u8]> {
    // Size, correlation id.
    let mut at = 8;
    if hv >= 1 {
        at = skip_tags(frame, at)?;
    }
    frame.get(at..)
}

/// The end of the tagged section at `at`.
fn skip_tags(b: &[u8], mut at: usize) -> Option<usize> {
    let n;
    (n, at) = uvarint(b, at)?;
    for _ in 0..n {
        (_, at) = uvarint(b, at)?;
        let size;
        (size, at) = uvarint(b, at)?;
        at = at.checked_add(usize::try_from(size).ok()?)?;
    }
    (at <= b.len()).then_some(at)
}

/// An unsigned varint at `at`, and where it ends.
fn uvarint(b: &[u8], mut at: usize) -> Option<(u32, usize)> {
    let mut v = 0u32;
    for shift in (0..35).step_by(7) {
        let byte = *b.get(at)?;
        at += 1;
        v |= u32::from(byte & 0x7f).checked_shl(shift)?;
        if byte & 0x80 == 0 {
            return Some((v, at));
        }
    }
    None
}

/// Bytes the shortest unsigned varint of `n` takes.
fn uvarint_len(n: u64) -> usize {
    let bits = 64 - n.leading_zeros() as usize;
    bits.div_ceil(7).max(1)
}

/// Ignores the nodes.
struct Ignore;

impl Visit for Ignore {
    fn node(&mut self, _: &Node<'_>) -> fmt::Result {
        Ok(())
    }
}

/// A tagged entry being read.
#[derive(Debug)]
struct Tagged {
    field: String,
    depth: usize,
    offset: usize,
    tag: Option<u32>,
}

/// One walk over a frame's tree: the rules a node shows, and the structs.
struct Scan {
    side: Side,
    schema: Option<&'static MessageSchema>,
    version: i16,
    findings: Vec<Finding>,
    walk: Structs,
    tagged: Option<Tagged>,
}

impl Scan {
    fn new(side: Side, schema: Option<&'static MessageSchema>, version: i16) -> Self {
        Self {
            side,
            schema,
            version,
            findings: Vec::new(),
            walk: Structs::default(),
            tagged: None,
        }
    }

    fn find(&mut self, level: Level, rule: &'static str, offset: usize, text: String) {
        self.findings.push(Finding {
            level,
            rule,
            side: self.side,
            offset,
            text,
        });
    }

    /// A varint of `size` bytes holding `value`, at `offset`.
    fn varint(&mut self, value: u64, size: usize, offset: usize, what: &str) {
        let shortest = uvarint_len(value);
        if size > shortest {
            self.find(
                Level::Warning,
                "varint-not-minimal",
                offset,
                format!(
                    "{what} {value} takes {size} bytes where {shortest} suffice{}: Kafka writes \
                     the shortest form",
                    if shortest == 1 { "s" } else { "" }
                ),
            );
        }
    }

    /// The tagged field `name` with tag `tag` of this message (or its header).
    fn tagged_field(&self, name: &str, tag: u32) -> Option<&'static FieldSchema> {
        let headers = ["RequestHeader", "ResponseHeader"].map(schema::by_name);
        self.schema
            .into_iter()
            .chain(headers.into_iter().flatten())
            .find_map(|m| find_tagged(m.root, name, tag))
    }
}

/// The field `name` with tag `tag` in `s` or the structs inside it.
fn find_tagged(s: &'static StructSchema, name: &str, tag: u32) -> Option<&'static FieldSchema> {
    s.fields.iter().find_map(|f| {
        if f.name == name && f.tag == Some(tag) {
            return Some(f);
        }
        match f.ty {
            FieldType::Struct(c) | FieldType::StructArray(c) => find_tagged(c, name, tag),
            FieldType::Primitive(_) | FieldType::Array(_) => None,
        }
    })
}

/// Whether `v` is the default `d`, which a tagged field is left out for.
fn is_default(d: DefaultValue, v: &Value<'_>) -> bool {
    match (d, *v) {
        (DefaultValue::Int(x), v) => v.int() == Some(x),
        (DefaultValue::Bool(b), Value::Bool(x)) => b == x,
        (DefaultValue::Str(s), Value::Str(x, _)) => x == s,
        (DefaultValue::Float(f), Value::Float(x)) => f == x,
        (DefaultValue::Null, Value::Null(_) | Value::Absent) => true,
        (DefaultValue::Implicit, Value::Bool(false)) => true,
        (DefaultValue::Implicit, Value::Str(x, _)) => x.is_empty(),
        (DefaultValue::Implicit, Value::Bytes([], _)) => true,
        (DefaultValue::Implicit, Value::Elements(0)) => true,
        (DefaultValue::Implicit, Value::Uuid(u)) => u.is_zero(),
        (DefaultValue::Implicit, Value::Float(x)) => x == 0.0,
        (DefaultValue::Implicit, v) => v.int() == Some(0),
        _ => false,
    }
}

impl Visit for Scan {
    fn node(&mut self, n: &Node<'_>) -> fmt::Result {
        self.walk.node(n)?;
        if let Some(t) = &self.tagged
            && n.depth <= t.depth
        {
            self.tagged = None;
        }
        let size = n.size.unwrap_or(0);
        if let Value::Str(s, _) = n.value
            && let Err(e) = s.to_str()
        {
            // The first byte that is not UTF-8, after the length prefix.
            let at = n.offset + size.saturating_sub(s.len()) + e.valid_up_to();
            self.find(
                Level::Warning,
                "string-not-utf8",
                at,
                format!(
                    "string {} {s:?} is not UTF-8: Kafka writes strings in UTF-8, and its Java \
                     reader takes each byte that is not for U+FFFD",
                    n.name
                ),
            );
        }
        match (n.ty, n.value) {
            // A non-empty tagged section is the node of its entries; its count is a leaf.
            (TypeWord::Wire("uvarint"), Value::Uint(x))
                if !(n.name == Name::Plain("tagged_fields") && x > 0) =>
            {
                self.varint(x, size, n.offset, "a uvarint holding");
            }
            (TypeWord::Wire("uvarint"), Value::CompactCount(x) | Value::CompactLen(x)) => {
                self.varint(u64::from(x), size, n.offset, "a compact length holding");
            }
            (_, Value::Str(s, LenNote::Compact(raw))) => {
                let prefix = size.saturating_sub(s.len());
                self.varint(u64::from(raw), prefix, n.offset, "a compact length holding");
            }
            (_, Value::Bytes(b, LenNote::Compact(raw))) if n.ty != TypeWord::Wire("bytes") => {
                let prefix = size.saturating_sub(b.len());
                self.varint(u64::from(raw), prefix, n.offset, "a compact length holding");
            }
            (_, Value::Null(LenNote::Compact(raw))) => {
                self.varint(u64::from(raw), size, n.offset, "a compact length holding");
            }
            (_, Value::Named(code, "unknown error code")) => self.find(
                Level::Warning,
                "unknown-error-code",
                n.offset,
                format!("error code {code} is not one the protocol defines"),
            ),
            _ => {}
        }
        match (n.ty, n.name) {
            (TypeWord::Wire("tagged"), Name::Plain(field)) => {
                self.tagged = Some(Tagged {
                    field: field.to_owned(),
                    depth: n.depth,
                    offset: n.offset,
                    tag: None,
                });
            }
            (_, Name::Plain("tag")) => {
                if let (Some(t), Value::Uint(tag)) = (self.tagged.as_mut(), n.value) {
                    t.tag = u32::try_from(tag).ok();
                }
            }
            (_, Name::Plain("value")) => {
                if let Some(Tagged {
                    field,
                    depth,
                    offset,
                    tag: Some(tag),
                }) = self.tagged.take()
                    && depth.saturating_add(1) == n.depth
                    && let Some(f) = self.tagged_field(&field, tag)
                    && !matches!(f.ty, FieldType::Struct(_))
                    && is_default(f.default, &n.value)
                {
                    self.find(
                        Level::Warning,
                        "tagged-field-default",
                        offset,
                        format!(
                            "tagged field {field} (tag {tag}) is sent with its default value: \
                             Kafka leaves such a field out"
                        ),
                    );
                }
            }
            _ => {}
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shortest_varints() {
        assert_eq!(uvarint_len(0), 1);
        assert_eq!(uvarint_len(127), 1);
        assert_eq!(uvarint_len(128), 2);
        assert_eq!(uvarint_len(u64::from(u32::MAX)), 5);
        assert_eq!(uvarint(&[0x80, 0x00], 0), Some((0, 2)));
        assert_eq!(skip_tags(&[1, 0, 2, 9, 9], 0), Some(5));
        assert_eq!(skip_tags(&[1, 0, 3, 9, 9], 0), None);
    }
}
