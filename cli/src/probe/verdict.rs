//! What a response says about the broker: the checks of one answer, and the verdicts.

use kwire::frame;
use kwire::header::response_header_version;
use kwire::{ApiKey, ErrorCode};
use kwire_schema::describe::{self, Name, Node, Visit};

use super::conn::Reply;

/// The verdict on one API version.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Verdict {
    /// Answered as the protocol requires.
    Ok,
    /// Not advertised, and refused as Kafka refuses it (UNSUPPORTED_VERSION or a close).
    NotAdvertised,
    /// Advertised, yet answered with UNSUPPORTED_VERSION.
    Refused,
    /// The body decodes after the other response header version, not after the right one.
    WrongHeaderVersion,
    /// The response carries another correlation id.
    WrongCorrelationId,
    /// The response does not decode at the version asked, or leaves bytes over.
    Undecodable,
    /// The response holds an error code the protocol does not define.
    UnknownErrorCode,
    /// No whole response within the timeout.
    Timeout,
    /// The broker closed the connection instead of answering an advertised version.
    ConnectionClosed,
    /// Not sent: the API creates, deletes or alters something (see `--allow-writes`).
    SkippedWrites,
    /// Not advertised, yet answered as if it were.
    AnsweredNotAdvertised,
    /// Not sent: this build cannot encode the request.
    NotSent,
}

impl Verdict {
    /// Every verdict, in the order reports list them.
    pub const ALL: [Self; 12] = [
        Self::Ok,
        Self::NotAdvertised,
        Self::Refused,
        Self::WrongHeaderVersion,
        Self::WrongCorrelationId,
        Self::Undecodable,
        Self::UnknownErrorCode,
        Self::Timeout,
        Self::ConnectionClosed,
        Self::SkippedWrites,
        Self::AnsweredNotAdvertised,
        Self::NotSent,
    ];

    /// The verdict's words, as the table and the JSON document print them.
    #[must_use]
    pub const fn name(self) -> &'static str {
        match self {
            Self::Ok => "ok",
            Self::NotAdvertised => "not advertised",
            Self::Refused => "refused",
            Self::WrongHeaderVersion => "wrong header version",
            Self::WrongCorrelationId => "wrong correlation id",
            Self::Undecodable => "undecodable",
            Self::UnknownErrorCode => "unknown error code",
            Self::Timeout => "timeout",
            Self::ConnectionClosed => "connection closed",
            Self::SkippedWrites => "skipped (writes)",
            Self::AnsweredNotAdvertised => "answered though not advertised",
            Self::NotSent => "not sent",
        }
    }

    /// Whether the verdict is a non-conformance of the broker.
    #[must_use]
    pub const fn is_finding(self) -> bool {
        !matches!(
            self,
            Self::Ok | Self::NotAdvertised | Self::SkippedWrites | Self::NotSent
        )
    }
}

/// A verdict and what it rests on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Outcome {
    /// The verdict.
    pub verdict: Verdict,
    /// A sentence on what was seen (empty when there is nothing to add).
    pub detail: String,
}

impl Outcome {
    /// An outcome with `detail`.
    pub fn new(verdict: Verdict, detail: impl Into<String>) -> Self {
        Self {
            verdict,
            detail: detail.into(),
        }
    }
}

/// Every error code a response holds: the fields whose names end in `ErrorCode`.
#[derive(Debug, Default)]
struct Codes(Vec<i16>);

impl Visit for Codes {
    fn node(&mut self, n: &Node<'_>) -> std::fmt::Result {
        if let (Name::Plain(name), Some(v)) = (n.name, n.value.int())
            && name.ends_with("ErrorCode")
        {
            // A value outside `i16` cannot be in an `int16` field; kept out of the list.
            if let Ok(code) = i16::try_from(v)
                && !self.0.contains(&code)
            {
                self.0.push(code);
            }
        }
        Ok(())
    }
}

/// The verdict on what came back for a request of `api` at `version`; `advertised` says
/// whether the broker advertised that version.
#[must_use]
pub fn judge(reply: &Reply, api: ApiKey, version: i16, advertised: bool) -> Outcome {
    match reply {
        Reply::Frame(f) => judge_frame(f, api, version, advertised),
        Reply::Timeout => Outcome::new(Verdict::Timeout, "no whole response within the timeout"),
        Reply::Closed(why) if advertised => Outcome::new(Verdict::ConnectionClosed, why.clone()),
        Reply::Closed(why) => Outcome::new(Verdict::NotAdvertised, format!("refused: {why}")),
        Reply::WrongCorrelation { expected, received } => Outcome::new(
            Verdict::WrongCorrelationId,
            format!("the response carries correlation id {received}, the request {expected}"),
        ),
        Reply::Garbage(why) => Outcome::new(Verdict::Undecodable, why.clone()),
    }
}

/// The verdict on a whole response frame, its correlation id already matched.
#[must_use]
pub fn judge_frame(f: &[u8], api: ApiKey, version: i16, advertised: bool) -> Outcome {
    if let Err(e) = frame::decode_response(f, api, version) {
        let hv = response_header_version(api, version);
        let other = 1 - hv;
        if let Some(swapped) = with_header_version(f, hv)
            && frame::decode_response(&swapped, api, version).is_ok()
        {
            return Outcome::new(
                Verdict::WrongHeaderVersion,
                if hv == 0 {
                    // An empty tagged-field section is one zero byte: a stray zero byte after
                    // the correlation id reads the same.
                    format!(
                        "the body follows a response header v{other} (or a stray zero byte); \
                         the protocol calls for v{hv}"
                    )
                } else {
                    format!(
                        "the body follows a response header v{other}; the protocol calls for v{hv}"
                    )
                },
            );
        }
        return Outcome::new(Verdict::Undecodable, format!("{e}"));
    }
    let mut codes = Codes::default();
    if let Err(e) = describe::visit_response_frame(f, api, version, &mut codes) {
        return Outcome::new(
            Verdict::Undecodable,
            format!("the schema walker cannot read it: {e}"),
        );
    }
    if let Some(unknown) = codes.0.iter().find(|c| ErrorCode(**c).name().is_none()) {
        return Outcome::new(
            Verdict::UnknownErrorCode,
            format!("error code {unknown} is not one the protocol defines"),
        );
    }
    let unsupported = codes.0.contains(&ErrorCode::UNSUPPORTED_VERSION.0);
    let named: Vec<String> = codes
        .0
        .iter()
        .filter(|c| **c != 0)
        .map(|c| ErrorCode(*c).to_string())
        .collect();
    match (advertised, unsupported) {
        (true, false) => Outcome::new(Verdict::Ok, named.join(", ")),
        (true, true) => Outcome::new(
            Verdict::Refused,
            "advertised, yet answered UNSUPPORTED_VERSION",
        ),
        (false, true) => Outcome::new(Verdict::NotAdvertised, "refused: UNSUPPORTED_VERSION"),
        // Nowhere to carry UNSUPPORTED_VERSION: a response without an error code field (a
        // Produce that names no partition) cannot refuse in its body.
        (false, false) if codes.0.is_empty() => Outcome::new(
            Verdict::NotAdvertised,
            "answered with a response that has no error code field; \
             a refusal cannot be told from an answer",
        ),
        (false, false) => Outcome::new(
            Verdict::AnsweredNotAdvertised,
            if named.is_empty() {
                "answered without an error".to_string()
            } else {
                format!("answered with {}", named.join(", "))
            },
        ),
    }
}

/// `f` read as if the broker had written the other response header version than `hv` (with
/// an empty tagged-field section), rewritten with header `hv`: an empty section added after
/// the correlation id (for `hv` 1), or one taken away (for `hv` 0). `None` when that cannot be
/// done.
fn with_header_version(f: &[u8], hv: i16) -> Option<Vec<u8>> {
    let (head, body) = (f.get(4..8)?, f.get(8..)?);
    let mut out = Vec::with_capacity(f.len() + 1);
    let body: &[u8] = if hv == 1 {
        out.extend_from_slice(&[0; 4]);
        out.extend_from_slice(head);
        out.push(0);
        body
    } else {
        // Header v1 carries a tagged-field section: an empty one is a single zero byte.
        let (&first, rest) = body.split_first()?;
        if first != 0 {
            return None;
        }
        out.extend_from_slice(&[0; 4]);
        out.extend_from_slice(head);
        rest
    };
    out.extend_from_slice(body);
    let size = i32::try_from(out.len() - 4).ok()?;
    out.get_mut(..4)?.copy_from_slice(&size.to_be_bytes());
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn header_versions_swap_both_ways() {
        let v0 = [0, 0, 0, 6, 0, 0, 0, 7, 0, 9];
        let v1 = with_header_version(&v0, 1).unwrap();
        assert_eq!(v1, [0, 0, 0, 7, 0, 0, 0, 7, 0, 0, 9]);
        assert_eq!(with_header_version(&v1, 0).unwrap(), v0);
        assert_eq!(with_header_version(&[0, 0, 0, 1, 0], 0), None);
    }

    #[test]
    fn findings_are_the_non_conformances() {
        let findings: Vec<_> = Verdict::ALL.iter().filter(|v| v.is_finding()).collect();
        assert_eq!(findings.len(), 8);
    }
}
