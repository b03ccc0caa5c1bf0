//! Header versions: which request and response header each API key and version uses.
//!
//! The headers themselves are generated from their schemas:
//! [`RequestHeader`](crate::messages::RequestHeader) (v1: key, version, correlation id, client
//! id; v2 adds a tagged-field section; the client id keeps its `int16` length even in v2) and
//! [`ResponseHeader`](crate::messages::ResponseHeader) (v0: correlation id; v1 adds a tagged-field
//! section).
//!
//! The header version is derived from the flexible versions of the API table, as below. A schema
//! may also state it, version by version (`headerVersions`); the generator reads that and refuses
//! a schema whose header versions depart from what these functions derive, so that the flexible
//! versions stay all they need.

use crate::wire::ApiKey;

/// The request header version for `version` of `api_key`: 2 when the request version is
/// flexible, else 1; 0 for ControlledShutdown v0 (the only request without a client id; the
/// API was removed in Kafka 4.0, and its versions come from the 3.9 schemas).
///
/// Like Kafka's own mapping, this is a threshold on the flexible versions, so it also answers for
/// versions outside the valid range (a broker must read the header of an ApiVersions request of
/// any version). Unknown keys map to 1.
#[must_use]
pub fn request_header_version(api_key: ApiKey, version: i16) -> i16 {
    if api_key == ApiKey::CONTROLLED_SHUTDOWN && version == 0 {
        return 0;
    }
    match api_key.info() {
        Some(info) if !info.request_flexible.is_empty() && version >= info.request_flexible.min => {
            2
        }
        _ => 1,
    }
}

/// The response header version for `version` of `api_key`: 1 when the response version is
/// flexible, else 0. ApiVersions responses always use header v0, so that a client can read the
/// correlation id and error code of a response to a version the broker does not know.
#[must_use]
pub fn response_header_version(api_key: ApiKey, version: i16) -> i16 {
    if api_key == ApiKey::API_VERSIONS {
        return 0;
    }
    match api_key.info() {
        Some(info)
            if !info.response_flexible.is_empty() && version >= info.response_flexible.min =>
        {
            1
        }
        _ => 0,
    }
}

impl<'a> crate::messages::RequestHeader<'a> {
    /// A header for a request of `api_key` at `version` with `correlation_id`; the client id is
    /// the schema's default, empty (set one with `with_client_id`).
    ///
    /// ```
    /// use kwire::ApiKey;
    /// use kwire::messages::RequestHeader;
    ///
    /// let header = RequestHeader::new(ApiKey::FETCH, 16, 7).with_client_id(Some("app"));
    /// assert_eq!(header.api_key(), ApiKey::FETCH);
    /// assert_eq!((header.request_api_version, header.correlation_id), (16, 7));
    /// ```
    #[must_use]
    pub fn new(api_key: ApiKey, version: i16, correlation_id: i32) -> Self {
        Self::default()
            .with_request_api_key(api_key.0)
            .with_request_api_version(version)
            .with_correlation_id(correlation_id)
    }

    /// The API key the header names.
    #[must_use]
    pub fn api_key(&self) -> ApiKey {
        ApiKey(self.request_api_key)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::codec::Str;

    #[test]
    fn header_versions() {
        assert_eq!(request_header_version(ApiKey::PRODUCE, 8), 1);
        assert_eq!(request_header_version(ApiKey::PRODUCE, 9), 2);
        assert_eq!(response_header_version(ApiKey::PRODUCE, 9), 1);
        assert_eq!(request_header_version(ApiKey::API_VERSIONS, 3), 2);
        assert_eq!(request_header_version(ApiKey::API_VERSIONS, 99), 2);
        assert_eq!(response_header_version(ApiKey::API_VERSIONS, 4), 0);
        assert_eq!(request_header_version(ApiKey::CONTROLLED_SHUTDOWN, 0), 0);
        assert_eq!(request_header_version(ApiKey::UPDATE_FEATURES, 0), 2);
        assert_eq!(response_header_version(ApiKey::SASL_HANDSHAKE, 1), 0);
        assert_eq!(request_header_version(ApiKey(999), 0), 1);
        assert_eq!(request_header_version(ApiKey::CONTROLLED_SHUTDOWN, 1), 1);
        assert_eq!(request_header_version(ApiKey::CONTROLLED_SHUTDOWN, 3), 2);
        assert_eq!(request_header_version(ApiKey::LEADER_AND_ISR, 3), 1);
        assert_eq!(request_header_version(ApiKey::LEADER_AND_ISR, 4), 2);
        assert_eq!(request_header_version(ApiKey::PRODUCE, 0), 1);
        assert_eq!(response_header_version(ApiKey::UPDATE_METADATA, 6), 1);
    }

    /// ControlledShutdown v0 frames carry request header v0: no client id; one the header holds
    /// is refused, or left out by the lenient encode (the field is ignorable), and the frame
    /// decodes back without one.
    #[test]
    fn controlled_shutdown_v0_frame_has_no_client_id() {
        use crate::api::Request;
        use crate::frame;
        use crate::messages::{ControlledShutdownRequest, RequestHeader};

        let header = RequestHeader::default()
            .with_request_api_key(ApiKey::CONTROLLED_SHUTDOWN.0)
            .with_request_api_version(0)
            .with_correlation_id(7)
            .with_client_id(Some("broker-1"));
        let body = ControlledShutdownRequest::default().with_broker_id(3);
        let mut buf = [0u8; 64];
        assert!(matches!(
            frame::encode_request(&header, &body, &mut buf),
            Err(crate::EncodeError::FieldNotInVersion {
                path: "RequestHeader.ClientId",
                version: 0,
                ignorable: true,
                ..
            })
        ));
        let n = frame::encode_request_lenient(&header, &body, &mut buf).unwrap();
        let expected = [0, 0, 0, 12, 0, 7, 0, 0, 0, 0, 0, 7, 0, 0, 0, 3];
        assert_eq!(buf.get(..n), Some(&expected[..]));
        let (h, b) = frame::decode_request(&expected).unwrap();
        assert_eq!(h.correlation_id, 7);
        assert_eq!(h.client_id, Some(Str::EMPTY));
        assert_eq!(b, Request::ControlledShutdown(body));

        // v1 has a client id again.
        let header = header.with_request_api_version(1);
        let n = frame::encode_request(&header, &body, &mut buf).unwrap();
        assert_eq!(n, 16 + 2 + 8);
        let (h, _) = frame::decode_request(buf.get(..n).unwrap()).unwrap();
        assert_eq!(h.client_id, Some(Str::new("broker-1")));
    }
}
