//! The server's side of a connection (a broker, a test server, a relay's client-facing end):
//! request frames out of chunks, and each response with the correlation id echoed and the
//! header version Kafka's rule calls for.
//!
//! ```
//! use kwire::messages::{HeartbeatRequest, HeartbeatResponse, RequestHeader};
//! use kwire::session::{FrameBuffer, server};
//! use kwire::{ApiKey, Request, frame};
//!
//! // A client's request arrives in two pieces.
//! let mut wire = [0u8; 64];
//! let header = RequestHeader::new(ApiKey::HEARTBEAT, 4, 42);
//! let n = frame::encode_request(&header, &HeartbeatRequest::default(), &mut wire)?;
//!
//! let mut storage = [0u8; 256];
//! let mut rx = FrameBuffer::new(&mut storage);
//! rx.push(&wire[..5]);
//! assert!(server::next_request(&mut rx)?.is_none());
//! rx.push(&wire[5..n]);
//! let request = server::next_request(&mut rx)?.expect("a whole frame");
//! assert!(matches!(request.decode()?.1, Request::Heartbeat(_)));
//!
//! let mut out = [0u8; 64];
//! let n = server::respond(&request.info, &HeartbeatResponse::default(), &mut out)?;
//! assert_eq!(frame::response_correlation_id(&out[..n])?, 42);
//! # Ok::<(), Box<dyn core::error::Error>>(())
//! ```

use crate::api::Request;
use crate::error::{DecodeError, EncodeError};
use crate::frame::{self, Body, RequestInfo};
use crate::messages::{RequestHeader, ResponseHeader};

use super::{FrameBuffer, SessionError};

/// A request frame received, with what its header's start says.
#[derive(Debug, Clone, Copy)]
pub struct Incoming<'a> {
    /// The API, version, correlation id and client id, read without decoding the rest: the
    /// API and version may be ones this build does not know.
    pub info: RequestInfo<'a>,
    /// The whole frame, size prefix included.
    pub frame: &'a [u8],
}

impl<'a> Incoming<'a> {
    /// The whole request: header and body.
    ///
    /// # Errors
    ///
    /// As [`frame::decode_request`].
    pub fn decode(&self) -> Result<(RequestHeader<'a>, Request<'a>), DecodeError> {
        frame::decode_request(self.frame)
    }
}

/// The next request frame in `rx`, or `None` until more bytes arrive. The frame read last is
/// released first.
///
/// # Errors
///
/// [`SessionError::Framing`] for a stream that holds no frame where one must start (every
/// later call fails alike); [`SessionError::Decode`] for a frame too short for a request
/// header's API key, version, correlation id and client id.
pub fn next_request<'r, S: AsRef<[u8]> + AsMut<[u8]>>(
    rx: &'r mut FrameBuffer<S>,
) -> Result<Option<Incoming<'r>>, SessionError> {
    let Some(frame) = rx.next_frame()? else {
        return Ok(None);
    };
    let info = frame::request_info(frame)?;
    Ok(Some(Incoming { info, frame }))
}

/// Encodes the response to `request` into `out`: the correlation id echoed, the header at the
/// version the request's API and version call for (v0 for ApiVersions at every version), the
/// body at the request's version. Returns the frame's length. A value the version cannot carry
/// is refused, as [`frame::encode_response`] refuses it.
///
/// An ApiVersions response goes through `respond_api_versions`, which knows the layout of
/// its error.
///
/// # Errors
///
/// As [`frame::encode_response`]; `ApiKeyMismatch` when the body answers another API.
pub fn respond<B: Body>(
    request: &RequestInfo<'_>,
    body: &B,
    out: &mut [u8],
) -> Result<usize, EncodeError> {
    respond_with(
        request,
        body,
        request.api_version,
        out,
        frame::encode_response,
    )
}

/// [`respond`], leaving out the value of an ignorable field the version has no field for, as
/// Kafka's broker does when it builds one answer for every version of a request.
///
/// # Errors
///
/// As [`frame::encode_response_lenient`]; `ApiKeyMismatch`.
pub fn respond_lenient<B: Body>(
    request: &RequestInfo<'_>,
    body: &B,
    out: &mut [u8],
) -> Result<usize, EncodeError> {
    respond_with(
        request,
        body,
        request.api_version,
        out,
        frame::encode_response_lenient,
    )
}

/// The encoder's signature: header, body, version, output.
type EncodeResponse<B> = fn(&ResponseHeader<'_>, &B, i16, &mut [u8]) -> Result<usize, EncodeError>;

fn respond_with<B: Body>(
    request: &RequestInfo<'_>,
    body: &B,
    version: i16,
    out: &mut [u8],
    encode: EncodeResponse<B>,
) -> Result<usize, EncodeError> {
    if body.body_api_key() != request.api_key {
        return Err(EncodeError::ApiKeyMismatch {
            expected: request.api_key,
            found: body.body_api_key(),
        });
    }
    let header = ResponseHeader::default().with_correlation_id(request.correlation_id);
    encode(&header, body, version, out)
}

#[cfg(feature = "ApiVersions")]
/// Encodes an ApiVersions response to `request`: at the request's version, or, when its error
/// is `UNSUPPORTED_VERSION` (the server does not know the version asked), in the version 0
/// layout, whatever version was asked, as Kafka's broker answers and
/// [`decode_api_versions`](crate::api::decode_api_versions) reads. The writing side of that
/// rule: a broker's answer and a relay's re-encoding both come here. Values of ignorable fields
/// that version 0 cannot carry are left out.
///
/// # Errors
///
/// As [`respond`].
pub fn respond_api_versions(
    request: &RequestInfo<'_>,
    body: &crate::messages::ApiVersionsResponse<'_>,
    out: &mut [u8],
) -> Result<usize, EncodeError> {
    match crate::api::api_versions_fallback(body.error_code) {
        Some(layout) => respond_with(request, body, layout, out, frame::encode_response_lenient),
        None => respond_with(
            request,
            body,
            request.api_version,
            out,
            frame::encode_response,
        ),
    }
}

#[cfg(feature = "ApiVersions")]
/// The answer to an ApiVersions request at a version the server does not speak: error
/// `UNSUPPORTED_VERSION` in the version 0 layout, listing the ApiVersions versions the server
/// does speak (`served`), so that the client asks again at one of them (KIP-511; a client
/// that finds no range retries at version 0). Returns the frame's length.
///
/// ```
/// use kwire::api::{NegotiateError, VersionTable, decode_api_versions};
/// use kwire::codec::VersionRange;
/// use kwire::frame;
/// use kwire::session::server;
///
/// // A client newer than the server asks at version 9: the start of its request frame (size,
/// // API key 18, version 9, correlation id 7, no client id).
/// let start = [0, 0, 0, 12, 0, 18, 0, 9, 0, 0, 0, 7, 0xff, 0xff];
/// let info = frame::request_info(&start)?;
/// let mut out = [0u8; 32];
/// let n = server::reject_api_versions(&info, VersionRange::new(0, 3), &mut out)?;
///
/// let reply = decode_api_versions(&out[..n], 9)?;
/// assert_eq!((reply.version, reply.header.correlation_id), (0, 7));
/// let err = VersionTable::try_from_response(&reply.body).unwrap_err();
/// assert_eq!(err.retry_version(9), Some(3));
/// # Ok::<(), Box<dyn core::error::Error>>(())
/// ```
///
/// # Errors
///
/// As [`respond`].
pub fn reject_api_versions(
    request: &RequestInfo<'_>,
    served: crate::codec::VersionRange,
    out: &mut [u8],
) -> Result<usize, EncodeError> {
    use crate::messages::ApiVersionsResponse;
    use crate::messages::api_versions_response::ApiVersion;

    let own = [ApiVersion::default()
        .with_api_key(crate::wire::ApiKey::API_VERSIONS.0)
        .with_min_version(served.min)
        .with_max_version(served.max)];
    let body = ApiVersionsResponse::default()
        .with_error_code(crate::api::ErrorCode::UNSUPPORTED_VERSION.0)
        .with_api_keys(&own);
    respond_api_versions(request, &body, out)
}
