//! Whole frames (size prefix, header, body) around the smallest legal instance of a message,
//! as the schema walker writes it.

use kafka_wire::codec::Encode;
use kafka_wire::frame::{self, SIZE_LEN};
use kafka_wire::header::{request_header_version, response_header_version};
use kafka_wire::messages::{RequestHeader, ResponseHeader};
use kafka_wire::schema::{self, MessageSchema, walker};
use kafka_wire::{ApiKey, EncodeError};

use crate::Error;

/// Which side of an API a frame carries.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Direction {
    Request,
    Response,
}

impl Direction {
    pub(crate) const fn name(self) -> &'static str {
        match self {
            Self::Request => "request",
            Self::Response => "response",
        }
    }
}

/// One encoded frame and where its parts are.
#[derive(Debug)]
pub(crate) struct Frame {
    /// The body's schema.
    pub(crate) schema: &'static MessageSchema,
    /// The body version.
    pub(crate) version: i16,
    /// The header version.
    pub(crate) header_version: i16,
    /// The whole frame, size prefix included.
    pub(crate) bytes: Vec<u8>,
    /// Bytes of the header (after the size prefix).
    pub(crate) header_len: usize,
    /// Bytes of the body (after the header).
    pub(crate) body_len: usize,
    /// Why the typed decoder disagrees with the walker's bytes, if it does.
    pub(crate) typed_mismatch: Option<String>,
}

fn encode_error(what: &str, e: EncodeError) -> Error {
    Error::Failed(format!("encoding {what}: {e}"))
}

/// The smallest legal instance of `direction` of `key` at `version`, in a frame with
/// correlation id 0 (and, for requests, an empty client id).
pub(crate) fn minimal(key: ApiKey, version: i16, direction: Direction) -> Result<Frame, Error> {
    let schema = match direction {
        Direction::Request => schema::request(key),
        Direction::Response => schema::response(key),
    }
    .ok_or_else(|| {
        Error::Failed(format!(
            "no {} schema for API key {}",
            direction.name(),
            key.0
        ))
    })?;

    let body = minimal_body(schema, version)?;
    let (header_version, header) = match direction {
        Direction::Request => {
            let hv = request_header_version(key, version);
            let header = RequestHeader::default()
                .with_request_api_key(key.0)
                .with_request_api_version(version)
                .with_correlation_id(0)
                .with_client_id(Some(""));
            (hv, encode(&header, hv, "the request header")?)
        }
        Direction::Response => {
            let hv = response_header_version(key, version);
            let header = ResponseHeader::default().with_correlation_id(0);
            (hv, encode(&header, hv, "the response header")?)
        }
    };

    let size = header.len() + body.len();
    let prefix = i32::try_from(size)
        .map_err(|_| Error::Failed(format!("a {size}-byte frame is too large")))?;
    let mut bytes = Vec::with_capacity(SIZE_LEN + size);
    bytes.extend_from_slice(&prefix.to_be_bytes());
    bytes.extend_from_slice(&header);
    bytes.extend_from_slice(&body);

    let typed = match direction {
        Direction::Request => frame::decode_request(&bytes).map(drop),
        Direction::Response => frame::decode_response(&bytes, key, version).map(drop),
    };
    Ok(Frame {
        schema,
        version,
        header_version,
        header_len: header.len(),
        body_len: body.len(),
        bytes,
        typed_mismatch: typed.err().map(|e| {
            format!(
                "the typed decoder rejects the minimal {} v{version}: {e}",
                schema.name
            )
        }),
    })
}

fn minimal_body(schema: &MessageSchema, version: i16) -> Result<Vec<u8>, Error> {
    let mut out = vec![0u8; 4096];
    let n = match walker::write_minimal(schema, version, &mut out) {
        Err(EncodeError::BufferTooSmall { required, .. }) => {
            out.resize(required, 0);
            walker::write_minimal(schema, version, &mut out)
        }
        other => other,
    }
    .map_err(|e| encode_error(schema.name, e))?;
    out.truncate(n);
    Ok(out)
}

fn encode<T: Encode>(value: &T, version: i16, what: &str) -> Result<Vec<u8>, Error> {
    let mut out = vec![
        0u8;
        value
            .encoded_len(version)
            .map_err(|e| encode_error(what, e))?
    ];
    let n = value
        .encode(version, &mut out)
        .map_err(|e| encode_error(what, e))?;
    out.truncate(n);
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn renew_delegation_token_v2_sizes() {
        let key = ApiKey::RENEW_DELEGATION_TOKEN;
        let request = minimal(key, 2, Direction::Request).unwrap();
        assert_eq!(request.bytes.len(), 25);
        assert_eq!(
            (request.header_version, request.header_len, request.body_len),
            (2, 11, 10)
        );
        assert_eq!(request.typed_mismatch, None);
        let response = minimal(key, 2, Direction::Response).unwrap();
        assert_eq!(response.bytes.len(), 24);
        assert_eq!(
            (
                response.header_version,
                response.header_len,
                response.body_len
            ),
            (1, 5, 15)
        );
        assert_eq!(response.typed_mismatch, None);
    }

    #[test]
    fn every_api_and_version_has_a_minimal_frame_the_typed_code_reads() {
        for info in kafka_wire::api::API_TABLE {
            for (direction, range) in [
                (Direction::Request, info.request_versions),
                (Direction::Response, info.response_versions),
            ] {
                if range.is_empty() {
                    continue;
                }
                for version in range.min..=range.max {
                    let frame = minimal(info.key, version, direction).unwrap();
                    assert_eq!(frame.typed_mismatch, None);
                    assert_eq!(
                        frame.bytes.len(),
                        SIZE_LEN + frame.header_len + frame.body_len
                    );
                }
            }
        }
    }
}
