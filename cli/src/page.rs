//! `kafka-wire page <Api>`: the reference page of an API's smallest legal instance — the facts
//! of the API, then for the request and the response the header version, the frame size and
//! the hex layout.

use std::io::{self, Write};

use kafka_wire::ApiKey;
use kafka_wire::api::ApiInfo;

use crate::Error;
use crate::frames::{self, Direction, Frame};
use crate::hex;

/// Everything a page shows.
#[derive(Debug)]
pub(crate) struct Page {
    info: &'static ApiInfo,
    version: i16,
    request: Frame,
    response: Frame,
}

impl Page {
    /// Builds the page of `api` at `version` (default: the highest request version).
    pub(crate) fn build(api: ApiKey, version: Option<i16>) -> Result<Self, Error> {
        let info = api
            .info()
            .ok_or_else(|| Error::Failed(format!("unknown API key {}", api.0)))?;
        if info.request_versions.is_empty() {
            return Err(Error::Failed(format!(
                "{} (API key {}) has no valid versions: Kafka 4.0 removed it",
                info.name, info.key.0
            )));
        }
        let version = version.unwrap_or(info.request_versions.max);
        for (side, range) in [
            ("request", info.request_versions),
            ("response", info.response_versions),
        ] {
            if !range.contains(version) {
                return Err(Error::Failed(format!(
                    "{} has no {side} version {version} (valid: {range})",
                    info.name
                )));
            }
        }
        Ok(Self {
            info,
            version,
            request: frames::minimal(api, version, Direction::Request)?,
            response: frames::minimal(api, version, Direction::Response)?,
        })
    }

    /// Writes the page. Fails after writing it if the typed decoder disagreed with the walker
    /// on either frame (the two are independent implementations of the wire format).
    pub(crate) fn write(&self, out: &mut dyn Write) -> Result<(), Error> {
        self.write_page(out)?;
        let problems: Vec<&str> = [&self.request, &self.response]
            .iter()
            .filter_map(|f| f.typed_mismatch.as_deref())
            .collect();
        if problems.is_empty() {
            Ok(())
        } else {
            Err(Error::Failed(problems.join("; ")))
        }
    }

    fn write_page(&self, out: &mut dyn Write) -> io::Result<()> {
        let info = self.info;
        writeln!(out, "{}", info.name)?;
        writeln!(out)?;
        let flexible = if info.request_flexible == info.response_flexible {
            info.request_flexible.to_string()
        } else {
            format!(
                "request {}, response {}",
                info.request_flexible, info.response_flexible
            )
        };
        let facts = [
            ("API key", info.key.0.to_string()),
            ("Encoded at", format!("v{}", self.version)),
            ("Flexible versions", flexible),
            (
                "Headers",
                format!(
                    "req v{}, resp v{}",
                    self.request.header_version, self.response.header_version
                ),
            ),
            ("Request versions", info.request_versions.to_string()),
            ("Response versions", info.response_versions.to_string()),
            (
                "Request size",
                format!("{} bytes", self.request.bytes.len()),
            ),
            (
                "Response size",
                format!("{} bytes", self.response.bytes.len()),
            ),
        ];
        for (name, value) in facts {
            writeln!(out, "{name:<18} {value}")?;
        }
        for (title, frame) in [("Request", &self.request), ("Response", &self.response)] {
            writeln!(out)?;
            write_frame(out, title, frame)?;
        }
        Ok(())
    }
}

fn write_frame(out: &mut dyn Write, title: &str, frame: &Frame) -> io::Result<()> {
    let side = if title == "Request" {
        "request"
    } else {
        "response"
    };
    writeln!(out, "{title}")?;
    writeln!(out)?;
    writeln!(
        out,
        "{} v{}, {side} header v{}, {} bytes on the wire",
        frame.schema.name,
        frame.version,
        frame.header_version,
        frame.bytes.len()
    )?;
    writeln!(
        out,
        "size prefix 4 bytes, header {} bytes, body {} bytes",
        frame.header_len, frame.body_len
    )?;
    writeln!(out)?;
    writeln!(
        out,
        "byte layout ({} bytes, {} bytes per row)",
        frame.bytes.len(),
        hex::ROW
    )?;
    writeln!(out)?;
    hex::write(out, &frame.bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn page(api: &str, version: Option<i16>) -> Result<String, Error> {
        let page = Page::build(ApiKey::from_name(api).unwrap(), version)?;
        let mut out = Vec::new();
        page.write(&mut out)?;
        Ok(String::from_utf8(out).unwrap())
    }

    #[test]
    fn renew_delegation_token_page() {
        let text = page("RenewDelegationToken", None).unwrap();
        assert!(text.starts_with("RenewDelegationToken\n"));
        assert!(text.contains("Encoded at         v2\n"));
        assert!(text.contains("Headers            req v2, resp v1\n"));
        assert!(text.contains("Request size       25 bytes\n"));
        assert!(text.contains("Response size      24 bytes\n"));
        assert!(
            text.contains(
                "RenewDelegationTokenRequest v2, request header v2, 25 bytes on the wire\n"
            )
        );
        assert!(text.contains("0000  00 00 00 15 00 27 00 02 00 00 00 00 00 00 00 01\n"));
        assert!(text.contains("0000  00 00 00 14 00 00 00 00 00 00 00 00 00 00 00 00\n"));
    }

    #[test]
    fn versions_are_checked() {
        assert!(
            page("RenewDelegationToken", Some(1))
                .unwrap()
                .contains("Encoded at         v1\n")
        );
        assert!(matches!(
            page("RenewDelegationToken", Some(3)),
            Err(Error::Failed(_))
        ));
        assert!(matches!(page("LeaderAndIsr", None), Err(Error::Failed(_))));
    }
}
