//! Header versions: which request and response header each API key and version uses.
//!
//! The headers themselves are generated from their schemas:
//! [`RequestHeader`](crate::messages::RequestHeader) (v1: key, version, correlation id, client
//! id; v2 adds a tagged-field section; the client id keeps its `int16` length even in v2) and
//! [`ResponseHeader`](crate::messages::ResponseHeader) (v0: correlation id; v1 adds a tagged-field
//! section).

use crate::api::ApiKey;

/// The request header version for `version` of `api_key`: 2 when the request version is
/// flexible, else 1; 0 for ControlledShutdown v0 (the only request without a client id).
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

#[cfg(test)]
mod tests {
    use super::*;

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
    }
}
