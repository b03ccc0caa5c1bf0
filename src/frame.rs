//! Size-prefixed frames: encoding a whole request or response (size, header, body) in one call,
//! decoding one, and finding complete frames in a partly filled stream buffer.
//!
//! Every frame on a Kafka connection is an `int32` size (the number of bytes that follow),
//! then a header, then a body.

use crate::api::{Request, Response};
use crate::codec::{Decode, Drops, Encode, Message, Str, encode_with, refuse_drops};
use crate::error::{DecodeError, DecodeErrorKind, EncodeError, Status};
use crate::header::{request_header_version, response_header_version};
use crate::messages::{RequestHeader, ResponseHeader};
use crate::wire::ApiKey;

pub use crate::codec::framing::SIZE_LEN;
use crate::codec::framing::{announced_len, header_start, payload};

/// A body that knows its API key: every generated request and response, and the [`Request`]
/// and [`Response`] enums.
pub trait Body: Encode {
    /// The API key of the body.
    fn body_api_key(&self) -> ApiKey;

    /// For a request, whether the broker answers it: every request but a Produce with `acks`
    /// 0 (see [`Request::expects_response`]). True for a response.
    fn expects_response(&self) -> bool;

    /// For a request that bounds its response's data (the `MaxBytes` of Fetch from version 3,
    /// ShareFetch and FetchSnapshot) and asks for more than `max_bytes` at `version`: the
    /// request asking for `max_bytes`, as [`Message::with_response_limit`] lowers it. `None` for
    /// any other request, for a response, and for the [`Request`] and [`Response`] enums. The
    /// session sends a request through it, so that the answer fits its receive buffer
    /// (`session::Client::with_max_response`).
    ///
    /// ```
    /// use kwire::frame::Body;
    /// use kwire::messages::FetchRequest;
    ///
    /// let fetch = FetchRequest::default().with_max_bytes(4 << 20);
    /// assert_eq!(fetch.fit_response(17, 65_024).map(|f| f.max_bytes), Some(65_024));
    /// assert_eq!(fetch.fit_response(17, 8 << 20), None);
    /// assert_eq!(fetch.fit_response(2, 65_024), None);
    /// ```
    #[must_use]
    fn fit_response(&self, version: i16, max_bytes: i32) -> Option<Self>
    where
        Self: Sized,
    {
        let _ = (version, max_bytes);
        None
    }
}

impl<T: Message + Encode> Body for T {
    fn body_api_key(&self) -> ApiKey {
        T::API_KEY
    }

    fn expects_response(&self) -> bool {
        Message::expects_response(self)
    }

    fn fit_response(&self, version: i16, max_bytes: i32) -> Option<Self> {
        Message::with_response_limit(self, version, max_bytes)
    }
}

impl Body for Request<'_> {
    fn body_api_key(&self) -> ApiKey {
        self.api_key()
    }

    fn expects_response(&self) -> bool {
        Request::expects_response(self)
    }
}

impl Body for Response<'_> {
    fn body_api_key(&self) -> ApiKey {
        self.api_key()
    }

    fn expects_response(&self) -> bool {
        true
    }
}

fn frame_size(size: usize, path: &'static str) -> Result<i32, EncodeError> {
    i32::try_from(size).map_err(|_| EncodeError::LengthOverflow { path, length: size })
}

/// Encodes a request frame: size prefix, request header (at the version the API key and
/// `header.request_api_version` call for) and body. Returns the bytes written.
///
/// A value the version cannot carry is refused, not lost: a field the version has no room for
/// that holds a value other than its default fails with `FieldNotInVersion`, naming the field
/// and the versions that have it ([`encode_request_lenient`] leaves out the values of ignorable
/// fields instead), and a topic named only by the name (or id) the version lacks fails with
/// `TopicNamedBy`.
///
/// ```
/// use kwire::codec::Uuid;
/// use kwire::messages::produce_request::TopicProduceData;
/// use kwire::messages::{ProduceRequest, RequestHeader};
/// use kwire::{ApiKey, EncodeError, frame};
///
/// // Produce v13 names a topic by its id: a name alone is refused, naming the field that does.
/// let topics = [TopicProduceData::default().with_name("events")];
/// let body = ProduceRequest::default().with_topic_data(&topics);
/// let mut out = [0u8; 64];
/// let v13 = RequestHeader::new(ApiKey::PRODUCE, 13, 1);
/// let Err(EncodeError::TopicNamedBy { path, by, .. }) =
///     frame::encode_request(&v13, &body, &mut out)
/// else {
///     panic!("a topic name alone at v13 is refused");
/// };
/// assert_eq!((path, by), ("ProduceRequest.TopicData.Name", "ProduceRequest.TopicData.TopicId"));
///
/// // Given both, the encode writes the one its version carries.
/// let id = Uuid::from_u128(7);
/// let topics = [TopicProduceData::default().with_name("events").with_topic_id(id)];
/// let body = ProduceRequest::default().with_topic_data(&topics);
/// assert!(frame::encode_request(&v13.with_request_api_version(12), &body, &mut out).is_ok());
/// assert!(frame::encode_request(&v13, &body, &mut out).is_ok());
/// ```
///
/// # Errors
///
/// `ApiKeyMismatch` when the header's API key is not the body's; any encode error of the header
/// or body, `FieldNotInVersion` included; `BufferTooSmall`, with the frame's length. What was
/// written is unspecified on error.
pub fn encode_request<B: Body>(
    header: &RequestHeader<'_>,
    body: &B,
    out: &mut [u8],
) -> Result<usize, EncodeError> {
    request_frame(header, body, out, Drops::Refused)
}

/// [`encode_request`], leaving out the value of a field Kafka's schema marks *ignorable* where
/// the version has no such field (see [`Encode::dropped_field`]), as Kafka's own serializer does:
/// for a proxy that forwards a request at an older version than it was written for.
///
/// ```
/// use kwire::messages::{ApiVersionsRequest, RequestHeader};
/// use kwire::{ApiKey, EncodeError, frame};
///
/// let body = ApiVersionsRequest::default()
///     .with_client_software_name("kwire")
///     .with_client_software_version("1.0");
/// let mut out = [0u8; 64];
/// // ApiVersions v2 has no field for the client's software: refused, or left out on request.
/// let v2 = RequestHeader::new(ApiKey::API_VERSIONS, 2, 1);
/// assert!(matches!(
///     frame::encode_request(&v2, &body, &mut out),
///     Err(EncodeError::FieldNotInVersion { ignorable: true, .. })
/// ));
/// assert_eq!(frame::encode_request_lenient(&v2, &body, &mut out), Ok(14));
/// let v3 = RequestHeader::new(ApiKey::API_VERSIONS, 3, 1);
/// assert!(frame::encode_request(&v3, &body, &mut out).is_ok());
/// ```
///
/// # Errors
///
/// As [`encode_request`], except `FieldNotInVersion` for an ignorable field.
pub fn encode_request_lenient<B: Body>(
    header: &RequestHeader<'_>,
    body: &B,
    out: &mut [u8],
) -> Result<usize, EncodeError> {
    request_frame(header, body, out, Drops::Allowed)
}

/// A request frame, its header version from the header and the body.
fn request_frame<B: Body>(
    header: &RequestHeader<'_>,
    body: &B,
    out: &mut [u8],
    drops: Drops,
) -> Result<usize, EncodeError> {
    let hv = request_header_for(header, body)?;
    encode_frame(header, hv, body, header.request_api_version, out, drops)
}

/// The request header version for `header`, once its API key is checked against the body's.
fn request_header_for<B: Body>(header: &RequestHeader<'_>, body: &B) -> Result<i16, EncodeError> {
    let key = ApiKey(header.request_api_key);
    if key != body.body_api_key() {
        return Err(EncodeError::ApiKeyMismatch {
            expected: key,
            found: body.body_api_key(),
        });
    }
    Ok(request_header_version(key, header.request_api_version))
}

/// Encodes a response frame for `version` of the body's API: size prefix, response header and
/// body. Returns the bytes written. A value the version cannot carry is refused, as
/// [`encode_request`] refuses it.
///
/// # Errors
///
/// Any encode error of the header or body, `FieldNotInVersion` included; `BufferTooSmall`.
/// What was written is unspecified on error.
pub fn encode_response<B: Body>(
    header: &ResponseHeader<'_>,
    body: &B,
    version: i16,
    out: &mut [u8],
) -> Result<usize, EncodeError> {
    response_frame(header, body, version, out, Drops::Refused)
}

/// [`encode_response`], leaving out the value of an ignorable field the version has no field
/// for, as [`encode_request_lenient`] does.
///
/// # Errors
///
/// As [`encode_response`], except `FieldNotInVersion` for an ignorable field.
pub fn encode_response_lenient<B: Body>(
    header: &ResponseHeader<'_>,
    body: &B,
    version: i16,
    out: &mut [u8],
) -> Result<usize, EncodeError> {
    response_frame(header, body, version, out, Drops::Allowed)
}

/// A response frame, its header version from the body's API and `version`.
fn response_frame<B: Body>(
    header: &ResponseHeader<'_>,
    body: &B,
    version: i16,
    out: &mut [u8],
    drops: Drops,
) -> Result<usize, EncodeError> {
    let hv = response_header_version(body.body_api_key(), version);
    encode_frame(header, hv, body, version, out, drops)
}

/// The whole frame's length for header (at header version `hv`) and body (at `version`), size
/// prefix included, after every check the encoders make.
fn frame_len<H: Encode + ?Sized, B: Encode + ?Sized>(
    header: &H,
    hv: i16,
    body: &B,
    version: i16,
) -> Result<usize, EncodeError> {
    let size = header
        .encoded_len(hv)?
        .saturating_add(body.encoded_len(version)?);
    frame_size(size, "Frame.size")?;
    Ok(size.saturating_add(SIZE_LEN))
}

/// Writes size prefix, header (at header version `hv`) and body (at `version`) through
/// [`encode_with`]: the prefix's place first, filled in once the frame's length is known.
pub(crate) fn encode_frame<H: Encode + ?Sized, B: Encode + ?Sized>(
    header: &H,
    hv: i16,
    body: &B,
    version: i16,
    out: &mut [u8],
    drops: Drops,
) -> Result<usize, EncodeError> {
    let (total, prefix) = encode_with(
        out,
        || frame_len(header, hv, body, version),
        || match drops {
            Drops::Refused => {
                refuse_drops(header, hv)?;
                refuse_drops(body, version)
            }
            Drops::Allowed => Ok(()),
        },
        |w| {
            let prefix = w.reserve(SIZE_LEN);
            header.write(w, hv);
            body.write(w, version);
            prefix
        },
    )?;
    let size = frame_size(total.saturating_sub(SIZE_LEN), "Frame.size")?;
    if let Some(prefix) = prefix {
        prefix.copy_from_slice(&size.to_be_bytes());
    }
    Ok(total)
}

/// The exact number of bytes [`encode_request`] (or [`encode_request_lenient`]) writes for
/// `header` and `body`, size prefix included: the buffer to give it, for callers who allocate one
/// per frame.
///
/// ```
/// use kwire::frame;
/// use kwire::messages::{MetadataRequest, RequestHeader};
///
/// let header = RequestHeader::default()
///     .with_request_api_key(3)
///     .with_request_api_version(12)
///     .with_correlation_id(1);
/// let body = MetadataRequest::default();
/// let mut out = vec![0u8; frame::request_len(&header, &body)?];
/// assert_eq!(frame::encode_request(&header, &body, &mut out)?, out.len());
/// # Ok::<(), kwire::EncodeError>(())
/// ```
///
/// # Errors
///
/// As [`encode_request_lenient`], except `BufferTooSmall`: the value of an ignorable field the
/// version cannot carry is left to the encoders, which refuse or leave it out.
pub fn request_len<B: Body>(header: &RequestHeader<'_>, body: &B) -> Result<usize, EncodeError> {
    let hv = request_header_for(header, body)?;
    frame_len(header, hv, body, header.request_api_version)
}

/// The exact number of bytes [`encode_response`] (or [`encode_response_lenient`]) writes for
/// `header` and `body` at `version`, size prefix included.
///
/// # Errors
///
/// As [`encode_response_lenient`], except `BufferTooSmall`.
pub fn response_len<B: Body>(
    header: &ResponseHeader<'_>,
    body: &B,
    version: i16,
) -> Result<usize, EncodeError> {
    let hv = response_header_version(body.body_api_key(), version);
    frame_len(header, hv, body, version)
}

/// The start of a request header: what routing, logging and matching responses need, read
/// by [`request_info`] without decoding the body.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct RequestInfo<'a> {
    /// The API key, which may be one this crate does not know.
    pub api_key: ApiKey,
    /// The API version, which may be one this crate does not know.
    pub api_version: i16,
    /// The correlation id the response will carry.
    pub correlation_id: i32,
    /// The client id, `None` when null. The header v0 of ControlledShutdown v0 has none, and
    /// gives the schema's default, `Some("")`, as [`decode_request`] does.
    pub client_id: Option<Str<'a>>,
}

/// Reads the API key, version, correlation id and client id of a request frame (size prefix
/// included) without decoding the rest of its header or its body.
///
/// `frame` may be a whole frame or only its start: the bytes of these four fields are enough,
/// so a proxy can route a large Produce before the rest of it has arrived. The API key and
/// version need not be ones this crate knows; every request header but ControlledShutdown v0's
/// puts the client id next, as a classic nullable string.
///
/// ```
/// use kwire::frame;
/// use kwire::messages::{HeartbeatRequest, RequestHeader};
/// use kwire::ApiKey;
///
/// let header = RequestHeader::new(ApiKey::HEARTBEAT, 4, 7).with_client_id(Some("app"));
/// let mut buf = [0u8; 64];
/// let n = frame::encode_request(&header, &HeartbeatRequest::default(), &mut buf)?;
///
/// let info = frame::request_info(&buf[..n])?;
/// assert_eq!(info.api_key, ApiKey::HEARTBEAT);
/// assert_eq!((info.api_version, info.correlation_id, info.client_id), (4, 7, Some("app".into())));
/// // The first 19 bytes hold all four fields.
/// assert_eq!(frame::request_info(&buf[..19])?, info);
/// # Ok::<(), Box<dyn core::error::Error>>(())
/// ```
///
/// # Errors
///
/// `NegativeFrameSize`; `Truncated` when `frame` or its size prefix ends before the four
/// fields do.
pub fn request_info(frame: &[u8]) -> Result<RequestInfo<'_>, DecodeError> {
    let mut r = header_start(frame)?;
    let api_key = ApiKey(r.decode_with(|r| r.i16("RequestHeader.RequestApiKey"))?);
    let api_version = r.decode_with(|r| r.i16("RequestHeader.RequestApiVersion"))?;
    let correlation_id = r.decode_with(|r| r.i32("RequestHeader.CorrelationId"))?;
    let client_id = if request_header_version(api_key, api_version) >= 1 {
        r.decode_with(|r| r.nullable_string(false, "RequestHeader.ClientId"))?
    } else {
        RequestHeader::default().client_id
    };
    Ok(RequestInfo {
        api_key,
        api_version,
        correlation_id,
        client_id,
    })
}

/// Reads the correlation id of a response frame (size prefix included), which every response
/// header starts with, to match the response to its request before decoding it. `frame` may be
/// a whole frame or only its first eight bytes.
///
/// # Errors
///
/// `NegativeFrameSize`; `Truncated` when `frame` or its size prefix ends before the
/// correlation id does.
pub fn response_correlation_id(frame: &[u8]) -> Result<i32, DecodeError> {
    // Slices, not a `Reader`: firmware that checks every reply's correlation id links little.
    let Some((size, rest)) = frame.split_first_chunk::<SIZE_LEN>() else {
        return Err(truncated(0, SIZE_LEN, frame.len(), "Frame.size"));
    };
    let size = announced_len(i32::from_be_bytes(*size))?;
    let path = "ResponseHeader.CorrelationId";
    match rest
        .get(..size.min(rest.len()))
        .and_then(<[u8]>::first_chunk)
    {
        Some(id) => Ok(i32::from_be_bytes(*id)),
        None => Err(truncated(SIZE_LEN, 4, size.min(rest.len()), path)),
    }
}

/// `Truncated` for a read of `wanted` bytes at `offset` where only `available` are left.
#[cold]
fn truncated(offset: usize, wanted: usize, available: usize, path: &'static str) -> DecodeError {
    let needed = wanted.saturating_sub(available);
    DecodeError::new(offset, DecodeErrorKind::Truncated { needed }, path)
}

/// Decodes a whole request frame (size prefix included): the header, then the body by the API
/// key and version the header names. The frame must be exactly as long as its size prefix says.
/// A program that expects one request type decodes it with [`decode_request_as`], which links
/// only that type's decoder.
///
/// Offsets in errors count from the start of `frame`.
///
/// # Errors
///
/// `Truncated`, `TrailingBytes`, `NegativeFrameSize`, `UnknownApiKey`, `ApiNotEnabled`,
/// `UnsupportedVersion`, and any header or body error.
pub fn decode_request(frame: &[u8]) -> Result<(RequestHeader<'_>, Request<'_>), DecodeError> {
    let mut r = payload(frame)?;
    let mut peek = r.clone();
    let key = ApiKey(peek.decode_with(|r| r.i16("RequestHeader.RequestApiKey"))?);
    let version = peek.decode_with(|r| r.i16("RequestHeader.RequestApiVersion"))?;
    if key.request_versions().is_empty() {
        return Err(DecodeError::new(
            r.offset(),
            DecodeErrorKind::UnknownApiKey(key),
            "RequestHeader.RequestApiKey",
        ));
    }
    let header = RequestHeader::decode(&mut r, request_header_version(key, version))?;
    let body = Request::decode(&mut r, key, version)?;
    r.finish("Request")?;
    Ok((header, body))
}

/// Decodes a whole request frame (size prefix included) whose body is known to be a `T`, the
/// request type: the typed counterpart of [`decode_request`], as [`decode_response_as`] is of
/// [`decode_response`]. The header gives the version; its API key must be `T`'s.
///
/// Only `T`'s decoder is linked in, where [`decode_request`] reaches the decoder of every
/// enabled request through [`Request`]: a device or a small server that answers a few APIs
/// stays small.
///
/// ```
/// use kwire::frame;
/// use kwire::messages::{HeartbeatRequest, MetadataRequest, RequestHeader};
/// use kwire::{ApiKey, DecodeErrorKind};
///
/// let body = HeartbeatRequest::default().with_group_id("g").with_generation_id(3);
/// let header = RequestHeader::new(ApiKey::HEARTBEAT, 4, 9);
/// let mut buf = [0u8; 64];
/// let n = frame::encode_request(&header, &body, &mut buf)?;
///
/// let (header, request) = frame::decode_request_as::<HeartbeatRequest<'_>>(&buf[..n])?;
/// assert_eq!((header.correlation_id, request.generation_id), (9, 3));
///
/// // Another API's request is refused, naming both.
/// let err = frame::decode_request_as::<MetadataRequest<'_>>(&buf[..n]).unwrap_err();
/// assert_eq!(
///     err.kind,
///     DecodeErrorKind::ApiKeyMismatch { expected: ApiKey::METADATA, found: ApiKey::HEARTBEAT }
/// );
/// # Ok::<(), Box<dyn core::error::Error>>(())
/// ```
///
/// # Errors
///
/// `ApiKeyMismatch` when the header names another API than `T`'s; otherwise as
/// [`decode_request`] (`UnsupportedVersion` when `T` has no such version in this build).
pub fn decode_request_as<'a, T: Message + Decode<'a>>(
    frame: &'a [u8],
) -> Result<(RequestHeader<'a>, T), DecodeError> {
    let mut r = payload(frame)?;
    let mut peek = r.clone();
    let key = ApiKey(peek.decode_with(|r| r.i16("RequestHeader.RequestApiKey"))?);
    let version = peek.decode_with(|r| r.i16("RequestHeader.RequestApiVersion"))?;
    if key != T::API_KEY {
        return Err(DecodeError::new(
            r.offset(),
            DecodeErrorKind::ApiKeyMismatch {
                expected: T::API_KEY,
                found: key,
            },
            "RequestHeader.RequestApiKey",
        ));
    }
    let header = RequestHeader::decode(&mut r, request_header_version(key, version))?;
    let body = T::decode(&mut r, version)?;
    r.finish("Request")?;
    Ok((header, body))
}

/// Decodes a whole response frame (size prefix included) to a request of `api_key` at
/// `version` (responses do not name their API; the caller matches them by correlation id, as
/// [`response_correlation_id`] reads it).
///
/// An ApiVersions response is also accepted in the version 0 layout that a broker answers with,
/// error `UNSUPPORTED_VERSION`, when it does not know the version asked for (see
/// `api::decode_api_versions`, which also says which layout it read).
///
/// # Errors
///
/// As [`decode_request`].
pub fn decode_response(
    frame: &[u8],
    api_key: ApiKey,
    version: i16,
) -> Result<(ResponseHeader<'_>, Response<'_>), DecodeError> {
    let mut r = payload(frame)?;
    let header = ResponseHeader::decode(&mut r, response_header_version(api_key, version))?;
    #[cfg(feature = "ApiVersions")]
    if api_key == ApiKey::API_VERSIONS {
        let (body, _) = crate::api::decode_api_versions_body_at(&r, version)?;
        return Ok((header, Response::ApiVersions(body)));
    }
    let body = Response::decode(&mut r, api_key, version)?;
    r.finish("Response")?;
    Ok((header, body))
}

/// Decodes a whole response frame (size prefix included) whose body is known to be a `T`, at
/// `version`: the typed counterpart of [`decode_response`], as [`decode_request_as`] is of
/// [`decode_request`].
///
/// Only `T`'s decoder is linked in, where [`decode_response`] reaches the decoder of every
/// response through [`Response`]: on a device that speaks a few APIs, this keeps the code small.
///
/// ```
/// use kwire::frame;
/// use kwire::messages::{HeartbeatResponse, ResponseHeader};
///
/// let body = HeartbeatResponse::default().with_error_code(27);
/// let header = ResponseHeader::default().with_correlation_id(9);
/// let mut buf = [0u8; 32];
/// let n = frame::encode_response(&header, &body, 4, &mut buf)?;
///
/// let (header, body) = frame::decode_response_as::<HeartbeatResponse<'_>>(&buf[..n], 4)?;
/// assert_eq!((header.correlation_id, body.error_code), (9, 27));
/// # Ok::<(), Box<dyn core::error::Error>>(())
/// ```
///
/// An `ApiVersionsResponse` is also read in the v0 layout a broker falls back to, as
/// [`decode_response`] reads it.
///
/// # Errors
///
/// As [`decode_response`]; `UnsupportedVersion` when `T` has no such version.
pub fn decode_response_as<'a, T: Message + Decode<'a>>(
    frame: &'a [u8],
    version: i16,
) -> Result<(ResponseHeader<'a>, T), DecodeError> {
    let mut r = payload(frame)?;
    if !T::BUILT_VERSIONS.contains(version) {
        return Err(DecodeError::new(
            r.offset(),
            DecodeErrorKind::UnsupportedVersion {
                api_key: T::API_KEY,
                version,
            },
            T::PATH,
        ));
    }
    let header = ResponseHeader::decode(&mut r, response_header_version(T::API_KEY, version))?;
    if T::API_KEY == ApiKey::API_VERSIONS {
        let (body, _) = crate::api::decode_api_versions_body_at(&r, version)?;
        return Ok((header, body));
    }
    let body = T::decode(&mut r, version)?;
    r.finish("Response")?;
    Ok((header, body))
}

/// Finds the first complete frame at the start of a stream buffer.
///
/// Returns `Complete(frame)` with the whole frame (size prefix included; `frame.len()` bytes are
/// consumed), or `Incomplete { needed }` with the number of further bytes required before a
/// frame can complete.
///
/// # Errors
///
/// `NegativeFrameSize`, or `FrameTooLarge` when the size exceeds `max_size` (a broker's
/// `socket.request.max.bytes`, a client's fetch limit).
pub fn split(buf: &[u8], max_size: usize) -> Result<Status<&[u8]>, DecodeError> {
    let Some((prefix, _)) = buf.split_first_chunk::<SIZE_LEN>() else {
        return Ok(Status::Incomplete {
            needed: SIZE_LEN.saturating_sub(buf.len()),
        });
    };
    let size = announced_len(i32::from_be_bytes(*prefix))?;
    if size > max_size {
        return Err(DecodeError::new(
            0,
            DecodeErrorKind::FrameTooLarge {
                size,
                limit: max_size,
            },
            "Frame.size",
        ));
    }
    let total = size.saturating_add(SIZE_LEN);
    match buf.get(..total) {
        Some(frame) => Ok(Status::Complete(frame)),
        None => Ok(Status::Incomplete {
            needed: total.saturating_sub(buf.len()),
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn split_reports_what_is_missing() {
        assert_eq!(split(&[0, 0], 100), Ok(Status::Incomplete { needed: 2 }));
        assert_eq!(
            split(&[0, 0, 0, 3, 1], 100),
            Ok(Status::Incomplete { needed: 2 })
        );
        assert_eq!(
            split(&[0, 0, 0, 1, 9, 8], 100),
            Ok(Status::Complete(&[0, 0, 0, 1, 9][..]))
        );
        assert_eq!(
            split(&[0xff, 0xff, 0xff, 0xff], 100),
            Err(DecodeError::new(
                0,
                DecodeErrorKind::NegativeFrameSize(-1),
                "Frame.size"
            ))
        );
        assert_eq!(
            split(&[0, 0, 1, 0], 100),
            Err(DecodeError::new(
                0,
                DecodeErrorKind::FrameTooLarge {
                    size: 256,
                    limit: 100
                },
                "Frame.size"
            ))
        );
    }
}
