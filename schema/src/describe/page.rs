//! The reference page of an API: facts, and the smallest legal request and response with their
//! byte layout and object tree.

use core::fmt::{self, Write};

use super::{DescribeError, write_request_frame, write_response_frame};
use crate::walker;
use kwire::api::{ApiInfo, ApiKey};
use kwire::codec::{Encode, VersionRange};
use kwire::error::EncodeError;
use kwire::header::{request_header_version, response_header_version};
use kwire::messages::{RequestHeader, ResponseHeader};

/// Which side of an API.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Side {
    /// The request.
    Request,
    /// The response.
    Response,
}

impl Side {
    /// `"request"` or `"response"`.
    #[must_use]
    pub const fn name(self) -> &'static str {
        match self {
            Self::Request => "request",
            Self::Response => "response",
        }
    }

    /// The header version of this side of `api` at `version`.
    #[must_use]
    pub fn header_version(self, api: ApiKey, version: i16) -> i16 {
        match self {
            Self::Request => request_header_version(api, version),
            Self::Response => response_header_version(api, version),
        }
    }
}

fn scratch_error(prefix: usize, e: EncodeError) -> DescribeError {
    match e {
        EncodeError::BufferTooSmall { required, .. } => DescribeError::ScratchTooSmall {
            needed: prefix.saturating_add(required),
        },
        _ => DescribeError::UnknownApi,
    }
}

/// Writes the smallest legal frame of one side of `api` at `version` into `scratch` and returns
/// its length: a size prefix, the header (correlation id 0; for requests an empty client id) and
/// the minimal body of [`walker::write_minimal`].
///
/// # Errors
///
/// `UnknownApi` when the API has no schema for that side or not that version;
/// `ScratchTooSmall` (with the size needed) when the frame does not fit.
pub fn write_minimal_frame(
    api: ApiKey,
    version: i16,
    side: Side,
    scratch: &mut [u8],
) -> Result<usize, DescribeError> {
    let schema = match side {
        Side::Request => crate::request(api),
        Side::Response => crate::response(api),
    }
    .ok_or(DescribeError::UnknownApi)?;
    if !schema.valid_versions.contains(version) {
        return Err(DescribeError::UnknownApi);
    }
    let hv = side.header_version(api, version);
    let (prefix, rest) = scratch
        .split_at_mut_checked(4)
        .ok_or(DescribeError::ScratchTooSmall { needed: 4 })?;
    let header_len = match side {
        Side::Request => RequestHeader::default()
            .with_request_api_key(api.0)
            .with_request_api_version(version)
            .with_client_id(Some(""))
            .encode(hv, rest),
        Side::Response => ResponseHeader::default().encode(hv, rest),
    }
    .map_err(|e| scratch_error(4, e))?;
    let body = rest.get_mut(header_len..).unwrap_or_default();
    let body_len = walker::write_minimal(schema, version, body)
        .map_err(|e| scratch_error(header_len.saturating_add(4), e))?;
    let size = header_len.saturating_add(body_len);
    let size_field = i32::try_from(size).map_err(|_| DescribeError::UnknownApi)?;
    prefix.copy_from_slice(&size_field.to_be_bytes());
    Ok(size.saturating_add(4))
}

/// Bytes per row of a byte layout.
pub const ROW: usize = 16;

/// Writes `bytes` as a byte layout: a column header, then 16 bytes a row, rows labelled by
/// their offset (`0000`, `0010`, …).
///
/// # Errors
///
/// When `out` refuses a write.
pub fn write_layout<W: Write + ?Sized>(bytes: &[u8], out: &mut W) -> fmt::Result {
    out.write_str("     ")?;
    for column in 0..ROW {
        write!(out, " {column:>2X}")?;
    }
    out.write_char('\n')?;
    for (i, row) in bytes.chunks(ROW).enumerate() {
        write!(out, "{:04x} ", i.saturating_mul(ROW))?;
        for b in row {
            write!(out, " {b:02x}")?;
        }
        out.write_char('\n')?;
    }
    Ok(())
}

/// Writes `bytes` as one line of lowercase hex (no newline).
///
/// # Errors
///
/// When `out` refuses a write.
pub fn write_hex<W: Write + ?Sized>(bytes: &[u8], out: &mut W) -> fmt::Result {
    bytes.iter().try_for_each(|b| write!(out, "{b:02x}"))
}

/// The version a page is encoded at: `version`, or the highest request version.
///
/// # Errors
///
/// `UnknownApi` when the API is unknown, has no versions, or lacks `version` on either side.
pub fn page_version(
    api: ApiKey,
    version: Option<i16>,
) -> Result<(&'static ApiInfo, i16), DescribeError> {
    let info = api.info().ok_or(DescribeError::UnknownApi)?;
    if info.request_versions.is_empty() {
        return Err(DescribeError::UnknownApi);
    }
    let version = version.unwrap_or(info.request_versions.max);
    if !info.request_versions.contains(version) || !info.response_versions.contains(version) {
        return Err(DescribeError::UnknownApi);
    }
    Ok((info, version))
}

/// Writes the reference page of `api` at `version` (default: its highest version): the facts
/// (key, version, flexible versions, header versions, version ranges, sizes), then for the request
/// and the response of the smallest legal instance a title line, the byte layout and the object
/// tree. `scratch` holds one frame at a time (a few hundred bytes suffice for every API).
///
/// # Errors
///
/// `UnknownApi` (see [`page_version`]), `ScratchTooSmall`, `Fmt`; a `Decode` error would mean
/// the dissector disagrees with the walker that wrote the frame.
pub fn page<W: Write + ?Sized>(
    api: ApiKey,
    version: Option<i16>,
    scratch: &mut [u8],
    out: &mut W,
) -> Result<(), DescribeError> {
    let (info, version) = page_version(api, version)?;
    let request_len = write_minimal_frame(api, version, Side::Request, scratch)?;
    let response_len = write_minimal_frame(api, version, Side::Response, scratch)?;
    writeln!(out, "{}", info.name)?;
    out.write_char('\n')?;
    let facts: [(&str, &dyn fmt::Display); 4] = [
        ("API key", &info.key.0),
        ("Encoded at", &Prefixed("v", version)),
        ("Flexible versions", &Flexible(info)),
        (
            "Headers",
            &Headers(
                request_header_version(api, version),
                response_header_version(api, version),
            ),
        ),
    ];
    for (name, value) in facts {
        writeln!(out, "{name:<18} {value}")?;
    }
    writeln!(
        out,
        "{:<18} {}",
        "Request versions",
        Current(info.current_request_versions)
    )?;
    writeln!(
        out,
        "{:<18} {}",
        "Response versions",
        Current(info.current_response_versions)
    )?;
    writeln!(out, "{:<18} {request_len} bytes", "Request size")?;
    writeln!(out, "{:<18} {response_len} bytes", "Response size")?;
    if let Some(older) = older_versions(info) {
        writeln!(
            out,
            "{:<18} {older} (removed in Kafka 4.0; older brokers speak them)",
            "Older versions"
        )?;
    }
    for side in [Side::Request, Side::Response] {
        let n = write_minimal_frame(api, version, side, scratch)?;
        let frame = scratch.get(..n).unwrap_or_default();
        let (title, schema) = match side {
            Side::Request => ("Request", crate::request(api)),
            Side::Response => ("Response", crate::response(api)),
        };
        let name = schema.map_or("", |s| s.name);
        out.write_char('\n')?;
        writeln!(out, "{title}")?;
        out.write_char('\n')?;
        writeln!(
            out,
            "{name} v{version}, {} header v{}, {n} bytes on the wire",
            side.name(),
            side.header_version(api, version)
        )?;
        out.write_char('\n')?;
        writeln!(out, "byte layout ({n} bytes, {ROW} bytes per row)")?;
        out.write_char('\n')?;
        write_layout(frame, out)?;
        out.write_char('\n')?;
        writeln!(out, "object tree")?;
        out.write_char('\n')?;
        match side {
            Side::Request => write_request_frame(frame, out)?,
            Side::Response => write_response_frame(frame, api, version, out)?,
        }
    }
    Ok(())
}

/// The versions of `info` that Kafka 4.0 removed and this crate still speaks (always the lowest).
fn older_versions(info: &ApiInfo) -> Option<VersionRange> {
    let all = info.request_versions;
    let current = info.current_request_versions;
    if all.is_empty() || all == current {
        return None;
    }
    if current.is_empty() {
        return Some(all);
    }
    Some(VersionRange::new(all.min, current.min.saturating_sub(1)))
}

/// A current-release version range; `none` for the keys Kafka 4.0 removed.
struct Current(VersionRange);

impl fmt::Display for Current {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.0.is_empty() {
            f.write_str("none (Kafka 4.0 removed this API)")
        } else {
            write!(f, "{}", self.0)
        }
    }
}

struct Prefixed(&'static str, i16);

impl fmt::Display for Prefixed {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}{}", self.0, self.1)
    }
}

struct Flexible(&'static ApiInfo);

impl fmt::Display for Flexible {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let i = self.0;
        if i.request_flexible == i.response_flexible {
            write!(f, "{}", i.request_flexible)
        } else {
            write!(
                f,
                "request {}, response {}",
                i.request_flexible, i.response_flexible
            )
        }
    }
}

struct Headers(i16, i16);

impl fmt::Display for Headers {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "req v{}, resp v{}", self.0, self.1)
    }
}
