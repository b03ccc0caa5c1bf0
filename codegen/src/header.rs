//! Header versions: which request or response header frames each version of an API's request
//! or response.
//!
//! A schema may say it in `headerVersions`, a map from version ranges, in the schemas' notation,
//! to a header version written as a string: `{"0-8": "1", "9+": "2"}`. Without one, the header
//! version is derived from the flexible versions, by Kafka's rule: request header 1 below the
//! flexible versions and 2 from them, response header 0 below them and 1 from them;
//! ControlledShutdown v0 requests take header 0 (no client id), and
//! ApiVersions responses header 0 at every version, so that a client can read the error of a
//! response to a version the broker does not know.
//!
//! [`header_versions`] answers either way, from the map or derived, and the API table carries
//! the answer ([`first_versions`]): the library reads the header version of each version there,
//! with no rule of its own.

use std::fmt::Write as _;

use serde_json::Value;

use crate::spec::{Kind, Message, Range};

/// The API key of ControlledShutdown, whose v0 request has header v0.
pub const CONTROLLED_SHUTDOWN: i16 = 7;
/// The API key of ApiVersions, whose response has header v0 at every version.
pub const API_VERSIONS: i16 = 18;

/// The versions of a request or response framed with one header version.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HeaderSpan {
    /// The request or response versions.
    pub versions: Range,
    /// Their header version.
    pub header: i16,
}

/// The lowest header version that has a tagged-field section, which a flexible version's header
/// needs: request header v2, response header v1.
pub fn lowest_flexible_header(kind: Kind) -> i16 {
    if kind == Kind::Request { 2 } else { 1 }
}

/// Reads and checks a schema's `headerVersions` map. Its ranges, once in order, start at version
/// 0, follow each other without a gap or an overlap and end open (`N+`); its header versions
/// never go down, and a range with a flexible version maps to a header with a tagged-field
/// section ([`lowest_flexible_header`]), but for the ApiVersions response, whose header is v0 at
/// every version. `file` names the schema in the errors.
pub fn parse_map(
    file: &str,
    kind: Kind,
    api_key: Option<i16>,
    flexible: Range,
    map: &Value,
) -> Result<Vec<HeaderSpan>, String> {
    let fail = |why: String| Err(format!("{file}: headerVersions {why}"));
    if !matches!(kind, Kind::Request | Kind::Response) {
        return fail(format!(
            "on a {kind:?} schema: only requests and responses have headers"
        ));
    }
    let Some(entries) = map.as_object() else {
        return fail("is not an object of version ranges and header versions".into());
    };
    let mut spans = Vec::new();
    for (range, written) in entries {
        let versions = Range::parse(range).map_err(|e| format!("{file}: headerVersions: {e}"))?;
        if versions.is_empty() {
            return fail(format!("maps {range:?}, which names no version"));
        }
        let header = match written.as_str() {
            Some(h) if !h.is_empty() && h.bytes().all(|b| b.is_ascii_digit()) => h.parse().ok(),
            _ => None,
        };
        let Some(header) = header else {
            return fail(format!(
                "maps {range:?} to {written}, not to a header version written as a string of digits"
            ));
        };
        spans.push(HeaderSpan { versions, header });
    }
    spans.sort_by_key(|s| s.versions.min);
    let Some(first) = spans.first() else {
        return fail("is empty".into());
    };
    if first.versions.min != 0 {
        return fail(format!("starts at version {}, not 0", first.versions.min));
    }
    for pair in spans.windows(2) {
        let (a, b) = (pair[0], pair[1]);
        if b.versions.min <= a.versions.max {
            return fail(format!(
                "has {} and {}, which overlap",
                a.versions, b.versions
            ));
        }
        if b.versions.min > a.versions.max + 1 {
            return fail(format!(
                "leaves out versions {} between {} and {}",
                Range {
                    min: a.versions.max + 1,
                    max: b.versions.min - 1
                },
                a.versions,
                b.versions
            ));
        }
        if b.header < a.header {
            return fail(format!(
                "goes down from header v{} at {} to v{} at {}",
                a.header, a.versions, b.header, b.versions
            ));
        }
    }
    if let Some(last) = spans.last()
        && last.versions.max != i16::MAX
    {
        return fail(format!(
            "ends with {}, not with an open range (`N+`)",
            last.versions
        ));
    }
    let exempt = kind == Kind::Response && api_key == Some(API_VERSIONS);
    let lowest = lowest_flexible_header(kind);
    if !exempt
        && let Some(s) = spans
            .iter()
            .find(|s| s.header < lowest && !s.versions.intersect(flexible).is_empty())
    {
        return fail(format!(
            "maps {}, flexible from {flexible}, to header v{}: a flexible {} needs header v{lowest} or later",
            s.versions,
            s.header,
            if kind == Kind::Request {
                "request"
            } else {
                "response"
            }
        ));
    }
    Ok(spans)
}

/// The header version of every version of a request or response, in order from version 0, the
/// last span open: the schema's `headerVersions` when it has one, else [`derived`]. Nothing
/// for the other schemas.
pub fn header_versions(m: &Message) -> Vec<HeaderSpan> {
    match &m.header_map {
        Some(spans) => spans.clone(),
        None => derived(m),
    }
}

/// The header version of `version` of a request or response (see [`header_versions`]).
pub fn header_version(m: &Message, version: i16) -> Option<i16> {
    header_versions(m)
        .iter()
        .find(|s| s.versions.contains(version))
        .map(|s| s.header)
}

/// The header versions of a request or response derived from its flexible versions, the rule of
/// Kafka's (see the [module](self) docs): a threshold at the first flexible
/// version, with ControlledShutdown's v0 request and the ApiVersions response apart. Adjacent
/// spans have different header versions.
pub fn derived(m: &Message) -> Vec<HeaderSpan> {
    let (below, from) = match m.kind {
        Kind::Request => (1, 2),
        Kind::Response if m.api_key == Some(API_VERSIONS) => (0, 0),
        Kind::Response => (0, 1),
        Kind::Header | Kind::Data => return Vec::new(),
    };
    let mut spans = Vec::new();
    let mut start = 0;
    if m.kind == Kind::Request && m.api_key == Some(CONTROLLED_SHUTDOWN) {
        spans.push(HeaderSpan {
            versions: Range { min: 0, max: 0 },
            header: 0,
        });
        start = 1;
    }
    if m.flexible.is_empty() {
        spans.push(HeaderSpan {
            versions: Range {
                min: start,
                max: i16::MAX,
            },
            header: below,
        });
    } else {
        let threshold = m.flexible.min.max(start);
        if threshold > start {
            spans.push(HeaderSpan {
                versions: Range {
                    min: start,
                    max: threshold - 1,
                },
                header: below,
            });
        }
        spans.push(HeaderSpan {
            versions: Range {
                min: threshold,
                max: i16::MAX,
            },
            header: from,
        });
    }
    coalesce(&spans)
}

/// `spans` with each run of adjacent spans of one header version made one span.
pub fn coalesce(spans: &[HeaderSpan]) -> Vec<HeaderSpan> {
    let mut out: Vec<HeaderSpan> = Vec::new();
    for s in spans {
        match out.last_mut() {
            Some(last) if last.header == s.header => last.versions.max = s.versions.max,
            _ => out.push(*s),
        }
    }
    out
}

/// Spans in the notation of a `headerVersions` map: `{"0-8": "1", "9+": "2"}`.
pub fn shown(spans: &[HeaderSpan]) -> String {
    let mut out = String::from("{");
    for (i, s) in spans.iter().enumerate() {
        let _ = write!(
            out,
            "{}\"{}\": \"{}\"",
            if i == 0 { "" } else { ", " },
            s.versions,
            s.header
        );
    }
    out.push('}');
    out
}

/// The highest header version the library's `HeaderVersions` holds: request header v3 is the
/// newest Kafka has prepared.
pub const MAX_HEADER: i16 = 3;

/// The header versions of a request or response as the library's `api::HeaderVersions` holds
/// them: for header versions 0 to [`MAX_HEADER`], the first version framed with it, `i16::MAX`
/// for one no version uses. A header version past [`MAX_HEADER`] is refused.
pub fn first_versions(m: &Message) -> Result<[i16; 4], String> {
    let mut from = [i16::MAX; 4];
    for s in coalesce(&header_versions(m)) {
        let slot = usize::try_from(s.header)
            .ok()
            .and_then(|h| from.get_mut(h))
            .ok_or_else(|| {
                format!(
                    "{}: header v{} at versions {}: the library knows header versions up to v{MAX_HEADER}",
                    m.file, s.header, s.versions
                )
            })?;
        *slot = (*slot).min(s.versions.min);
    }
    Ok(from)
}
