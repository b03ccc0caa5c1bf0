//! Header versions: which request and response header each API key and version uses.
//!
//! The headers themselves are generated from their schemas:
//! [`RequestHeader`](crate::messages::RequestHeader) (v1: key, version, correlation id, client
//! id; v2 adds a tagged-field section; the client id keeps its `int16` length even in v2) and
//! [`ResponseHeader`](crate::messages::ResponseHeader) (v0: correlation id; v1 adds a tagged-field
//! section).
//!
//! The header version of each version of a request and a response is the API table's
//! ([`ApiInfo::request_headers`](crate::api::ApiInfo::request_headers) and
//! [`ApiInfo::response_headers`](crate::api::ApiInfo::response_headers)): the schema's
//! `headerVersions` where it states them, else Kafka's rule, which the generator applies. A
//! request is framed with header 1 below its flexible versions and 2 from them, a response with
//! header 0 and then 1; ControlledShutdown's v0 request has header 0 (no client id), and
//! ApiVersions responses have header 0 at every version, so that a client can read the error of
//! a response to a version the broker does not know.

use crate::wire::ApiKey;

/// The header versions of a request or a response, version by version: a step function, since
/// a later version never goes back to an older header. It also answers for versions outside the
/// valid range, as Kafka's mapping does (a broker must read the header of an ApiVersions request
/// of any version).
///
/// ```
/// use kwire::ApiKey;
///
/// let info = ApiKey::METADATA.info().unwrap();
/// assert_eq!(info.request_headers.at(8), 1);
/// assert_eq!(info.request_headers.at(9), 2);
/// assert_eq!(info.request_headers.first_version(2), Some(9));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct HeaderVersions {
    /// For header versions 0 to 3, the first version framed with it; [`Self::NEVER`] for one
    /// that no version uses.
    from: [i16; 4],
}

impl HeaderVersions {
    /// The entry of a header version no version uses.
    pub const NEVER: i16 = i16::MAX;

    /// For header versions 0 to 3, the first version framed with it, [`Self::NEVER`] for one no
    /// version uses. The entries in use must grow with the header version, and one of them be 0.
    #[must_use]
    pub const fn new(from: [i16; 4]) -> Self {
        Self { from }
    }

    /// The header version of `version`: the newest header whose first version is `version` or
    /// before it (the header of version 0 for a negative version).
    #[must_use]
    pub fn at(self, version: i16) -> i16 {
        let version = version.max(0);
        let mut header = 0;
        for (h, &from) in (0i16..).zip(&self.from) {
            if from <= version {
                header = h;
            }
        }
        header
    }

    /// The first version framed with header version `header`, if any is.
    #[must_use]
    pub fn first_version(self, header: i16) -> Option<i16> {
        let from = *self.from.get(usize::try_from(header).ok()?)?;
        (from != Self::NEVER).then_some(from)
    }
}

/// The request header version for `version` of `api_key` ([`HeaderVersions`]); 1 for a key
/// Kafka has not assigned.
#[must_use]
pub fn request_header_version(api_key: ApiKey, version: i16) -> i16 {
    api_key.info().map_or(1, |i| i.request_headers.at(version))
}

/// The response header version for `version` of `api_key` ([`HeaderVersions`]); 0 for a key
/// Kafka has not assigned.
#[must_use]
pub fn response_header_version(api_key: ApiKey, version: i16) -> i16 {
    api_key.info().map_or(0, |i| i.response_headers.at(version))
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

    /// The API table's header versions are Kafka's rule over the flexible versions, for every
    /// key and version, while no schema states other ones. (A negative version, which no key
    /// has, is framed as version 0.)
    #[test]
    fn the_table_follows_the_flexible_versions() {
        for info in crate::api::API_TABLE.iter() {
            for version in 0..=info.request_versions.max.saturating_add(2) {
                let flexible = |r: crate::codec::VersionRange| !r.is_empty() && version >= r.min;
                let request = match (info.key, version) {
                    (ApiKey::CONTROLLED_SHUTDOWN, 0) => 0,
                    _ if flexible(info.request_flexible) => 2,
                    _ => 1,
                };
                let response = match info.key {
                    ApiKey::API_VERSIONS => 0,
                    _ if flexible(info.response_flexible) => 1,
                    _ => 0,
                };
                assert_eq!(
                    request_header_version(info.key, version),
                    request,
                    "{} v{version}",
                    info.name
                );
                assert_eq!(
                    response_header_version(info.key, version),
                    response,
                    "{} v{version}",
                    info.name
                );
            }
        }
    }

    #[test]
    fn steps() {
        let h = HeaderVersions::new([HeaderVersions::NEVER, 0, 9, 11]);
        assert_eq!(
            [-1, 0, 8, 9, 10, 11, 99].map(|v| h.at(v)),
            [1, 1, 1, 2, 2, 3, 3]
        );
        assert_eq!(h.first_version(0), None);
        assert_eq!(h.first_version(3), Some(11));
        assert_eq!(h.first_version(4), None);
    }

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
