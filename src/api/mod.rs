//! API keys, their version tables, the [`Request`] and [`Response`] enums that decode any body
//! by API key and version, and version negotiation ([`VersionTable`], and with the
//! `ApiVersions` feature `decode_api_versions`, at which the exchange with a broker, including
//! its fallback to an ApiVersions v0 body, is described).

pub mod control;
mod error_code;
mod generated;
pub mod header;
mod negotiate;

use core::convert::Infallible;
use core::fmt;
use core::marker::PhantomData;

use crate::codec::{Failed, Reader, VersionRange};
use crate::error::DecodeErrorKind;

pub use crate::wire::ApiKey;
pub use error_code::ErrorCode;
pub use generated::{API_TABLE, Request, Response};
#[cfg(feature = "std")]
pub(crate) use generated::{BROKER_ADDRESS_FIELDS, names_brokers};
pub use header::HeaderVersions;
#[cfg(feature = "ApiVersions")]
pub(crate) use negotiate::api_versions_fallback;
pub(crate) use negotiate::common_range;
pub(crate) use negotiate::decode_body as decode_api_versions_body_at;
#[cfg(feature = "ApiVersions")]
pub use negotiate::{ApiVersionsReply, decode_api_versions, decode_api_versions_body};
pub use negotiate::{
    MAX_APIS, NegotiateError, Unsupported, VersionTable, api_versions_request_version,
};

/// The body of the [`Request`] and [`Response`] variant that exists only when no API feature is
/// enabled, so that the enums keep their lifetime. It has no values.
#[doc(hidden)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct NoApi<'a>(Infallible, PhantomData<&'a ()>);

#[cfg(feature = "defmt")]
impl defmt::Format for NoApi<'_> {
    fn format(&self, _: defmt::Formatter<'_>) {
        match self.0 {}
    }
}

impl Request<'_> {
    /// Whether the broker answers this request: every request but a Produce with `acks` 0, to
    /// which no response is sent (a proxy or client must not wait for one, nor keep its
    /// correlation id).
    #[must_use]
    pub fn expects_response(&self) -> bool {
        // Not a `match` with a catch-all arm: in a build with Produce alone, that arm is
        // unreachable.
        #[cfg(feature = "Produce")]
        return !matches!(self, Request::Produce(p) if p.acks == 0);
        #[cfg(not(feature = "Produce"))]
        {
            let _ = self;
            true
        }
    }
}

/// Records in `r` the error for an API key that [`Request::decode`] or [`Response::decode`] has no
/// body type for: `ApiNotEnabled` when the key has versions but its feature is off,
/// `UnknownApiKey` otherwise.
#[cold]
fn missing_api(r: &mut Reader<'_>, api_key: ApiKey, path: &'static str) -> Failed {
    let kind = if api_key.request_versions().is_empty() {
        DecodeErrorKind::UnknownApiKey(api_key)
    } else {
        DecodeErrorKind::ApiNotEnabled(api_key)
    };
    r.fail(kind, path)
}

/// The static facts of one API key.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ApiInfo {
    /// The key.
    pub key: ApiKey,
    /// The API name (the schema name without `Request`/`Response`).
    pub name: &'static str,
    /// Valid request versions (empty for a removed API).
    pub request_versions: VersionRange,
    /// Valid response versions (empty for a removed API).
    pub response_versions: VersionRange,
    /// The request versions the current Kafka release defines. `request_versions` also holds
    /// the older versions that Kafka 4.0 removed and pre-4.0 brokers still speak; this range is
    /// empty for the keys 4.0 removed altogether.
    pub current_request_versions: VersionRange,
    /// The response versions the current Kafka release defines (see
    /// [`ApiInfo::current_request_versions`]).
    pub current_response_versions: VersionRange,
    /// Versions of the request using the flexible encoding.
    pub request_flexible: VersionRange,
    /// Versions of the response using the flexible encoding.
    pub response_flexible: VersionRange,
    /// The request header version of each request version.
    pub request_headers: HeaderVersions,
    /// The response header version of each response version.
    pub response_headers: HeaderVersions,
}

impl ApiKey {
    /// The facts of this key, if it is a key Kafka has assigned.
    #[must_use]
    pub fn info(self) -> Option<&'static ApiInfo> {
        let i = usize::try_from(self.0).ok()?;
        API_TABLE.get(i).filter(|info| info.key == self)
    }

    /// The API name, such as `"Fetch"`.
    #[must_use]
    pub fn name(self) -> Option<&'static str> {
        self.info().map(|i| i.name)
    }

    /// Valid request versions (empty for an unknown or removed key).
    #[must_use]
    pub fn request_versions(self) -> VersionRange {
        self.info()
            .map_or(VersionRange::NONE, |i| i.request_versions)
    }

    /// The request versions this build encodes and decodes: [`ApiKey::request_versions`],
    /// unless the build named this API in `KWIRE_VERSIONS` (see the crate docs on firmware
    /// builds). Version negotiation offers these.
    #[must_use]
    #[inline]
    pub fn built_versions(self) -> VersionRange {
        // A named range is within the valid versions (`build.rs` checks it), so a build that
        // names its APIs answers for them without the API table.
        crate::wire::named_versions(self).unwrap_or_else(|| self.request_versions())
    }

    /// Valid response versions (empty for an unknown or removed key).
    #[must_use]
    pub fn response_versions(self) -> VersionRange {
        self.info()
            .map_or(VersionRange::NONE, |i| i.response_versions)
    }

    /// Looks a key up by API name, ignoring ASCII case (`"fetch"`, `"RenewDelegationToken"`).
    #[must_use]
    pub fn from_name(name: &str) -> Option<Self> {
        API_TABLE
            .iter()
            .find(|i| i.name.eq_ignore_ascii_case(name))
            .map(|i| i.key)
    }

    /// Every assigned key, in numeric order.
    pub fn all() -> impl Iterator<Item = Self> {
        API_TABLE.iter().map(|i| i.key)
    }
}

impl fmt::Debug for ApiKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.name() {
            Some(name) => write!(f, "{name}({})", self.0),
            None => write!(f, "ApiKey({})", self.0),
        }
    }
}

impl fmt::Display for ApiKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.name() {
            Some(name) => f.write_str(name),
            None => write!(f, "ApiKey({})", self.0),
        }
    }
}
