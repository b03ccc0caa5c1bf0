//! Version negotiation: the versions both sides speak, from a broker's ApiVersions response.
//!
//! The exchange with a broker is described at [`decode_api_versions`].

use core::fmt;

use heapless::Vec;

use super::{API_TABLE, ErrorCode};
use crate::codec::VersionRange;
use crate::codec::{Decode, Reader};
use crate::error::DecodeError;
#[cfg(feature = "ApiVersions")]
use crate::messages::{ApiVersionsResponse, ResponseHeader};
use crate::wire::ApiKey;

/// The most API keys a [`VersionTable`] holds (Kafka assigns fewer than 100).
pub const MAX_APIS: usize = 128;

// Every key Kafka has assigned has a slot, and keys assigned later have room too.
const _: () = assert!(API_TABLE.len() <= MAX_APIS);

/// The ApiVersions request version to send first: the highest this crate knows.
///
/// If the broker answers [`ErrorCode::UNSUPPORTED_VERSION`], send again at
/// [`NegotiateError::retry_version`].
#[must_use]
pub fn api_versions_request_version() -> i16 {
    ApiKey::API_VERSIONS.built_versions().max
}

/// Why no version of a key can be sent to the broker ([`VersionTable::negotiate`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum Unsupported {
    /// This crate speaks no version of the key: not a key Kafka has assigned, or one it removed.
    UnknownKey,
    /// The broker did not advertise the key.
    NotAdvertised,
    /// The broker advertised a range with its minimum above its maximum.
    EmptyBrokerRange {
        /// The range as advertised.
        broker: VersionRange,
    },
    /// Every version the broker supports is older than every version this crate speaks.
    BrokerTooOld {
        /// The broker's range.
        broker: VersionRange,
        /// This crate's range.
        ours: VersionRange,
    },
    /// Every version the broker supports is newer than every version this crate speaks.
    BrokerTooNew {
        /// The broker's range.
        broker: VersionRange,
        /// This crate's range.
        ours: VersionRange,
    },
}

impl fmt::Display for Unsupported {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::UnknownKey => f.write_str("this codec speaks no version of the API key"),
            Self::NotAdvertised => f.write_str("the broker does not support the API key"),
            Self::EmptyBrokerRange { broker } => {
                write!(f, "the broker advertised an empty version range {broker}")
            }
            Self::BrokerTooOld { broker, ours } => write!(
                f,
                "the broker is too old: it supports versions {broker}, this codec {ours}"
            ),
            Self::BrokerTooNew { broker, ours } => write!(
                f,
                "the broker is too new: it supports versions {broker}, this codec {ours}"
            ),
        }
    }
}

impl core::error::Error for Unsupported {}

/// Why an ApiVersions response gives no [`VersionTable`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum NegotiateError {
    /// Error [`ErrorCode::UNSUPPORTED_VERSION`]: the broker does not know the ApiVersions
    /// version it was sent. Send the request again at [`NegotiateError::retry_version`].
    UnsupportedVersion {
        /// The broker's ApiVersions range, if it listed one (brokers since 2.4 do).
        broker: Option<VersionRange>,
    },
    /// Any other non-zero error code.
    ErrorCode(i16),
    /// The broker advertised a key more than once.
    DuplicateKey(ApiKey),
}

impl NegotiateError {
    /// After [`NegotiateError::UnsupportedVersion`] in reply to an ApiVersions request at
    /// `sent`: the version to send next. That is the highest version both sides support for
    /// ApiVersions if the broker listed its range, else 0 (brokers before 2.4 list nothing).
    ///
    /// `None` for any other error, and when retrying would not help: `sent` was already 0 or
    /// no lower than the version found, or no version of ApiVersions is common to both sides.
    #[must_use]
    pub fn retry_version(&self, sent: i16) -> Option<i16> {
        let Self::UnsupportedVersion { broker } = *self else {
            return None;
        };
        let ours = ApiKey::API_VERSIONS.built_versions();
        let next = match broker {
            Some(broker) => {
                let common = broker.intersect(ours);
                if common.is_empty() {
                    return None;
                }
                common.max
            }
            None => 0,
        };
        (next < sent && ours.contains(next)).then_some(next)
    }
}

impl fmt::Display for NegotiateError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::UnsupportedVersion { broker: Some(r) } => write!(
                f,
                "the broker does not support this ApiVersions version (it supports {r})"
            ),
            Self::UnsupportedVersion { broker: None } => {
                f.write_str("the broker does not support this ApiVersions version")
            }
            Self::ErrorCode(code) => write!(f, "the broker answered ApiVersions with error {code}"),
            Self::DuplicateKey(key) => write!(f, "the broker advertised {key} twice"),
        }
    }
}

impl core::error::Error for NegotiateError {}

#[cfg(feature = "ApiVersions")]
/// A decoded ApiVersions response frame ([`decode_api_versions`]).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ApiVersionsReply<'a> {
    /// The response header (always header v0 for ApiVersions).
    pub header: ResponseHeader<'a>,
    /// The body.
    pub body: ApiVersionsResponse<'a>,
    /// The version the body was read at: the version sent, or 0 when the broker fell back to
    /// the v0 layout.
    pub version: i16,
}

#[cfg(feature = "ApiVersions")]
/// Decodes a whole ApiVersions response frame (size prefix included) to a request sent at
/// version `sent`, reading the v0 layout a broker falls back to when it does not know `sent`.
/// Offsets in errors count from the start of `frame`.
///
/// # The ApiVersions exchange
///
/// A client opens a connection by sending an ApiVersions request, before anything else, at the
/// highest version it knows ([`api_versions_request_version`]). The broker answers with the
/// range of versions it supports for every API key, and the client then sends each request at
/// the highest version both sides support ([`VersionTable::negotiate`]).
///
/// When the broker does not know the ApiVersions version it was sent, it does not parse the
/// request body. It answers with error `UNSUPPORTED_VERSION` (35) in an ApiVersions body laid
/// out as **version 0**, whatever version was asked for, always behind response header v0.
/// Brokers since 2.4 (KIP-511) list their own ApiVersions range in that body; older ones send an
/// empty list. The client retries at the highest version both sides support for ApiVersions
/// itself, or at version 0 when the broker did not say ([`NegotiateError::retry_version`]).
/// This is what Kafka's own Java client does; a broker since 0.10 accepts an ApiVersions v0
/// request. A server on this crate answers so with
/// [`reject_api_versions`](crate::session::server::reject_api_versions).
///
/// This function reads such a reply robustly. Every ApiVersions body starts with its
/// `ErrorCode`, and the response header is v0 at every version, so the error code can be read
/// before the body's layout is known:
///
/// * error 35 for a version other than 0: the body is read as v0 first (the broker's fallback),
///   then, if that fails, at the version sent;
/// * otherwise the body is read at the version sent first, then, if that fails, as v0 (as Kafka's
///   Java client does).
///
/// The two layouts cannot be confused: the frame length is exact, a v0 body is four bytes too
/// short for v1 and v2 (no `ThrottleTimeMs`), and read as v3 or later its four-byte array length
/// begins with a zero byte (for any list shorter than 2^24 entries), a compact null, which the
/// non-nullable `ApiKeys` rejects.
///
/// ```
/// use kwire::api::{ApiKey, VersionTable, api_versions_request_version, decode_api_versions};
///
/// // The reply of a 2.8 broker to an ApiVersions request at a version it does not know:
/// // size, correlation id 1, error 35, one entry: ApiVersions 0-3.
/// let reply = [0, 0, 0, 16, 0, 0, 0, 1, 0, 35, 0, 0, 0, 1, 0, 18, 0, 0, 0, 3];
/// let sent = api_versions_request_version();
/// let decoded = decode_api_versions(&reply, sent)?;
/// assert_eq!(decoded.version, 0);
/// let err = VersionTable::try_from_response(&decoded.body).unwrap_err();
/// assert_eq!(err.retry_version(sent), Some(3));
///
/// // The reply at v3: size, correlation id 2, no error, Produce 0-9 and ApiVersions 0-3, no
/// // throttle, no tagged fields.
/// let reply = [
///     0, 0, 0, 26, 0, 0, 0, 2, 0, 0, 3, 0, 0, 0, 0, 0, 9, 0, 0, 18, 0, 0, 0, 3, 0, 0, 0, 0, 0,
///     0,
/// ];
/// let decoded = decode_api_versions(&reply, 3)?;
/// let table = VersionTable::try_from_response(&decoded.body)?;
/// assert_eq!(table.negotiate(ApiKey::PRODUCE), Ok(9));
/// assert_eq!(table.negotiate(ApiKey::API_VERSIONS), Ok(3));
/// # Ok::<(), Box<dyn core::error::Error>>(())
/// ```
///
/// # Errors
///
/// `Truncated`, `TrailingBytes`, `NegativeFrameSize`, or any error of the header or body; when
/// both layouts fail, the error of the layout tried first.
pub fn decode_api_versions(frame: &[u8], sent: i16) -> Result<ApiVersionsReply<'_>, DecodeError> {
    let mut payload = crate::codec::framing::payload(frame)?;
    let header = ResponseHeader::decode(&mut payload, 0)?;
    let (body, version) = decode_body(&payload, sent)?;
    Ok(ApiVersionsReply {
        header,
        body,
        version,
    })
}

#[cfg(feature = "ApiVersions")]
/// Decodes an ApiVersions response body alone (no size prefix, no header) to a request sent at
/// version `sent`, as [`decode_api_versions`] does. Returns the body and the version it was read
/// at.
///
/// # Errors
///
/// `Truncated`, `TrailingBytes`, or any error of the body; when both layouts fail, the error of
/// the layout tried first.
pub fn decode_api_versions_body(
    body: &[u8],
    sent: i16,
) -> Result<(ApiVersionsResponse<'_>, i16), DecodeError> {
    decode_body(&Reader::new(body), sent)
}

/// Decodes the ApiVersions response body that fills the rest of `r`, to a request sent at
/// `sent`, in either layout; returns the body and the version read. `T` is
/// `ApiVersionsResponse`, generic so that [`crate::frame::decode_response_as`] shares the rule.
pub(crate) fn decode_body<'a, T: Decode<'a>>(
    r: &Reader<'a>,
    sent: i16,
) -> Result<(T, i16), DecodeError> {
    let Ok(error_code) = r.clone().i16("ApiVersionsResponse.ErrorCode") else {
        // Not even an error code: the error of a body at the version sent.
        return decode_exact(r, sent).map(|body| (body, sent));
    };
    let first = api_versions_fallback(error_code).unwrap_or(sent);
    let second = if first == 0 { sent } else { 0 };
    match decode_exact(r, first) {
        Ok(body) => Ok((body, first)),
        Err(e) if second != first => decode_exact(r, second)
            .map(|body| (body, second))
            .map_err(|_| e),
        Err(e) => Err(e),
    }
}

/// The fallback of the ApiVersions exchange, the one rule its two sides keep: a response body
/// with error [`ErrorCode::UNSUPPORTED_VERSION`] (the server does not know the version asked)
/// is laid out as version 0, whatever version was asked. `Some(0)` for such a body, `None` for
/// any other, which is laid out at the version asked. [`decode_api_versions`] reads by it,
/// `session::server::respond_api_versions` writes by it.
pub(crate) fn api_versions_fallback(error_code: i16) -> Option<i16> {
    (error_code == ErrorCode::UNSUPPORTED_VERSION).then_some(0)
}

/// Decodes the body at `version`, requiring it to fill the rest of the reader.
fn decode_exact<'a, T: Decode<'a>>(r: &Reader<'a>, version: i16) -> Result<T, DecodeError> {
    let mut r = r.clone();
    let body = T::decode(&mut r, version)?;
    r.finish(T::PATH)?;
    Ok(body)
}

/// The keys a [`VersionTable`] keeps by number, `0..KEYS`: every key Kafka has assigned.
const KEYS: usize = API_TABLE.len();

/// The words of a [`VersionTable`]'s bitmap of the keys below [`KEYS`].
const WORDS: usize = KEYS.div_ceil(32);

/// The other keys a [`VersionTable`] keeps, in a list: keys Kafka assigns after this crate.
const OTHERS: usize = MAX_APIS.saturating_sub(KEYS);

/// Where a key below [`KEYS`] is kept: its slot.
fn slot(key: ApiKey) -> Option<usize> {
    usize::try_from(key.0).ok().filter(|&i| i < KEYS)
}

/// A broker's advertised version ranges, and for each API key the highest version both sides
/// support.
///
/// Built from a broker's `ApiVersionsResponse` (`VersionTable::try_from_response`,
/// `VersionTable::from_response`, with the `ApiVersions` feature) or from a list of advertised
/// ranges ([`VersionTable::from_advertised`], [`VersionTable::from_ranges`]). It keeps every
/// advertised range, including those of keys this crate does not speak, and intersects them
/// with the request versions this crate knows when asked ([`VersionTable::negotiate`]). A
/// [`Client`](crate::session::Client) of the session layer keeps one.
///
/// Fixed capacity ([`MAX_APIS`]), no allocation. Every key Kafka has assigned has a slot by
/// number, so that a key is looked up without a search, and every key this crate speaks is
/// always kept; keys assigned after it are listed, and should a broker advertise more of them
/// than fit, the rest are dropped ([`VersionTable::dropped`]).
///
/// Kafka 4.0 brokers advertise a minimum of 0 for Produce although they refuse v0-2
/// (KAFKA-18659); the highest common version, the one to send, is unaffected.
#[derive(Clone)]
pub struct VersionTable {
    /// The range advertised for each key below [`KEYS`], by key, where `known` has its bit.
    by_key: [VersionRange; KEYS],
    /// A bit per key below [`KEYS`], by key: whether it was advertised (clearing them is a few
    /// stores, where clearing a slot per key is one per key).
    known: [u32; WORDS],
    /// The advertised keys outside `0..KEYS`, in the order advertised.
    others: Vec<(ApiKey, VersionRange), OTHERS>,
    /// Advertised keys not kept for want of room.
    dropped: usize,
}

impl Default for VersionTable {
    fn default() -> Self {
        Self {
            by_key: [VersionRange::new(0, 0); KEYS],
            known: [0; WORDS],
            others: Vec::new(),
            dropped: 0,
        }
    }
}

/// Tables are equal when they advertise the same ranges and dropped as many keys.
impl PartialEq for VersionTable {
    fn eq(&self, other: &Self) -> bool {
        self.dropped == other.dropped && self.iter_advertised().eq(other.iter_advertised())
    }
}

impl Eq for VersionTable {}

impl fmt::Debug for VersionTable {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        /// The advertised ranges, as a map.
        struct Advertised<'t>(&'t VersionTable);
        impl fmt::Debug for Advertised<'_> {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.debug_map().entries(self.0.iter_advertised()).finish()
            }
        }
        f.debug_struct("VersionTable")
            .field("advertised", &Advertised(self))
            .field("dropped", &self.dropped)
            .finish()
    }
}

#[cfg(feature = "defmt")]
impl defmt::Format for VersionTable {
    fn format(&self, f: defmt::Formatter<'_>) {
        defmt::write!(f, "VersionTable {{ advertised: {{");
        for (key, range) in self.iter_advertised() {
            defmt::write!(f, " {}: {},", key, range);
        }
        defmt::write!(f, " }}, dropped: {=usize} }}", self.dropped);
    }
}

impl VersionTable {
    #[cfg(feature = "ApiVersions")]
    /// Builds a table from the `ApiKeys` of a broker's response, leniently: the error code is
    /// not looked at, and a key advertised twice keeps its first range. See
    /// [`VersionTable::try_from_response`] for the checked form.
    #[must_use]
    pub fn from_response(response: &ApiVersionsResponse<'_>) -> Self {
        let mut table = Self::default();
        // The ranges are kept whatever the verdict: a duplicate keeps its first range.
        let _ = table.read_response(response);
        table
    }

    #[cfg(feature = "ApiVersions")]
    /// Builds a table from a broker's response, checking it: the error code must be 0 and no
    /// key may be advertised twice.
    ///
    /// # Errors
    ///
    /// [`NegotiateError::UnsupportedVersion`] for error [`ErrorCode::UNSUPPORTED_VERSION`]
    /// (retry at [`NegotiateError::retry_version`]); [`NegotiateError::ErrorCode`] for any other
    /// error; [`NegotiateError::DuplicateKey`].
    pub fn try_from_response(response: &ApiVersionsResponse<'_>) -> Result<Self, NegotiateError> {
        let mut table = Self::default();
        table.read_response(response)?;
        Ok(table)
    }

    #[cfg(feature = "ApiVersions")]
    /// Replaces the table's ranges with those of a broker's response, in one pass over its
    /// `ApiKeys`, a key advertised twice keeping its first range; then gives the verdict of
    /// [`VersionTable::try_from_response`]: the error code first, then the first key
    /// advertised twice. In place, so that a session keeps its table where it is.
    pub(crate) fn read_response(
        &mut self,
        response: &ApiVersionsResponse<'_>,
    ) -> Result<(), NegotiateError> {
        self.known = [0; WORDS];
        self.others.clear();
        self.dropped = 0;
        let mut twice = Ok(());
        for (key, range) in advertised(response) {
            let kept = self.insert(key, range);
            if twice.is_ok() {
                twice = kept;
            }
        }
        match ErrorCode(response.error_code) {
            ErrorCode::NONE => twice,
            ErrorCode::UNSUPPORTED_VERSION => Err(NegotiateError::UnsupportedVersion {
                broker: self.advertised(ApiKey::API_VERSIONS),
            }),
            code => Err(NegotiateError::ErrorCode(code.0)),
        }
    }

    /// Builds a table from advertised `(key, range)` pairs, such as those of a broker's
    /// response or of a broker version a client is configured for.
    ///
    /// # Errors
    ///
    /// [`NegotiateError::DuplicateKey`] when a key appears twice.
    pub fn from_advertised<I>(advertised: I) -> Result<Self, NegotiateError>
    where
        I: IntoIterator<Item = (ApiKey, VersionRange)>,
    {
        let mut table = Self::default();
        for (key, range) in advertised {
            table.insert(key, range)?;
        }
        Ok(table)
    }

    /// Builds a table from advertised `(key, min, max)` triples, as an ApiVersions response
    /// lists them.
    ///
    /// # Errors
    ///
    /// [`NegotiateError::DuplicateKey`] when a key appears twice.
    pub fn from_ranges(ranges: &[(i16, i16, i16)]) -> Result<Self, NegotiateError> {
        Self::from_advertised(
            ranges
                .iter()
                .map(|&(key, min, max)| (ApiKey(key), VersionRange::new(min, max))),
        )
    }

    /// Keeps one advertised range: the one check of a key advertised twice, which is refused
    /// (its first range stays). A key that finds no room is counted as dropped.
    fn insert(&mut self, key: ApiKey, range: VersionRange) -> Result<(), NegotiateError> {
        let again = match slot(key) {
            Some(i) => match (self.known.get_mut(i / 32), self.by_key.get_mut(i)) {
                (Some(word), Some(slot)) => {
                    let bit = 1 << (i % 32);
                    let again = *word & bit != 0;
                    if !again {
                        *word |= bit;
                        *slot = range;
                    }
                    again
                }
                _ => false,
            },
            None => {
                let again = self.others.iter().any(|(k, _)| *k == key);
                if !again && self.others.push((key, range)).is_err() {
                    self.dropped = self.dropped.saturating_add(1);
                }
                again
            }
        };
        if again {
            Err(NegotiateError::DuplicateKey(key))
        } else {
            Ok(())
        }
    }

    /// The highest version of `key` both sides support: the version to send.
    ///
    /// # Errors
    ///
    /// Why there is none: [`Unsupported::UnknownKey`] when this crate speaks no version of
    /// `key`, [`Unsupported::NotAdvertised`] when the broker does not support it,
    /// [`Unsupported::EmptyBrokerRange`], [`Unsupported::BrokerTooOld`] or
    /// [`Unsupported::BrokerTooNew`] when the ranges do not overlap.
    #[inline]
    pub fn negotiate(&self, key: ApiKey) -> Result<i16, Unsupported> {
        self.common(key).map(|r| r.max)
    }

    /// The highest version of `key` both sides support that is not above `max`: the version to
    /// send from code written against version `max` of the API, which must not meet a newer
    /// layout whatever this crate and the broker speak.
    ///
    /// ```
    /// use kwire::ApiKey;
    /// use kwire::api::{Unsupported, VersionTable};
    ///
    /// // A broker with Fetch 4-17.
    /// let table = VersionTable::from_ranges(&[(ApiKey::FETCH.0, 4, 17)])?;
    /// assert_eq!(table.negotiate_up_to(ApiKey::FETCH, 12), Ok(12));
    /// assert_eq!(table.negotiate_up_to(ApiKey::FETCH, 99), table.negotiate(ApiKey::FETCH));
    /// assert!(matches!(
    ///     table.negotiate_up_to(ApiKey::FETCH, 3),
    ///     Err(Unsupported::BrokerTooNew { .. })
    /// ));
    /// # Ok::<(), kwire::api::NegotiateError>(())
    /// ```
    ///
    /// # Errors
    ///
    /// As [`VersionTable::negotiate`], with this crate's range cut at `max`: `BrokerTooNew` when
    /// the broker's lowest version is above `max`, `UnknownKey` when `max` is below the lowest
    /// version this crate speaks.
    pub fn negotiate_up_to(&self, key: ApiKey, max: i16) -> Result<i16, Unsupported> {
        let ours = key.built_versions();
        let capped = VersionRange::new(ours.min, ours.max.min(max));
        common_range(self.advertised(key), capped).map(|r| r.max)
    }

    /// The versions of `key` both sides support.
    ///
    /// Inline, so that for a key the program names and the build pins, this crate's range is a
    /// constant, and the API table is not linked for it.
    ///
    /// # Errors
    ///
    /// As [`VersionTable::negotiate`].
    #[inline]
    pub fn common(&self, key: ApiKey) -> Result<VersionRange, Unsupported> {
        common_range(self.advertised(key), key.built_versions())
    }

    /// The range the broker advertised for `key`, whether or not this crate speaks it.
    #[must_use]
    #[inline]
    pub fn advertised(&self, key: ApiKey) -> Option<VersionRange> {
        match slot(key) {
            Some(i) => self.by_key(i),
            None => self.other(key),
        }
    }

    /// The range advertised for the key in slot `i`.
    fn by_key(&self, i: usize) -> Option<VersionRange> {
        let known = self.known.get(i / 32)? & (1 << (i % 32)) != 0;
        self.by_key.get(i).copied().filter(|_| known)
    }

    /// The range advertised for a key outside `0..KEYS`.
    #[inline(never)]
    fn other(&self, key: ApiKey) -> Option<VersionRange> {
        self.others
            .iter()
            .find(|(k, _)| *k == key)
            .map(|(_, range)| *range)
    }

    /// The advertised key that follows `after` in key order (the first one after `None`).
    fn next_advertised(&self, after: Option<ApiKey>) -> Option<(ApiKey, VersionRange)> {
        let start = match after {
            None => 0,
            Some(key) => key
                .0
                .checked_add(1)
                .map_or(KEYS, |next| usize::try_from(next).unwrap_or(0)),
        };
        let kept =
            (start..KEYS).find_map(|i| Some((ApiKey(i16::try_from(i).ok()?), self.by_key(i)?)));
        let other = self
            .others
            .iter()
            .copied()
            .filter(|(key, _)| after.is_none_or(|after| *key > after))
            .min_by_key(|(key, _)| *key);
        match (kept, other) {
            (Some(kept), Some(other)) => Some(if other.0 < kept.0 { other } else { kept }),
            (kept, other) => kept.or(other),
        }
    }

    /// Every advertised key and range, in key order, including keys this crate does not speak
    /// and ranges that do not overlap with its own.
    pub fn iter_advertised(&self) -> impl Iterator<Item = (ApiKey, VersionRange)> + '_ {
        let mut after = None;
        core::iter::from_fn(move || {
            let next = self.next_advertised(after)?;
            after = Some(next.0);
            Some(next)
        })
    }

    /// The number of advertised keys not kept because the table was full (0 in practice).
    #[must_use]
    pub fn dropped(&self) -> usize {
        self.dropped
    }

    /// The negotiated keys and the ranges both sides speak, in key order: the keys for which
    /// [`VersionTable::common`] succeeds.
    pub fn iter(&self) -> impl Iterator<Item = (ApiKey, VersionRange)> + '_ {
        self.iter_advertised()
            .filter_map(|(key, _)| self.common(key).ok().map(|r| (key, r)))
    }

    /// The number of negotiated keys.
    #[must_use]
    pub fn len(&self) -> usize {
        self.iter().count()
    }

    /// True when no key was negotiated.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.iter().next().is_none()
    }
}

/// The versions in both `ours` and `broker`, the range a broker advertised for a key (`None`
/// when it advertised none).
pub(crate) fn common_range(
    broker: Option<VersionRange>,
    ours: VersionRange,
) -> Result<VersionRange, Unsupported> {
    if ours.is_empty() {
        return Err(Unsupported::UnknownKey);
    }
    let Some(broker) = broker else {
        return Err(Unsupported::NotAdvertised);
    };
    if broker.is_empty() {
        Err(Unsupported::EmptyBrokerRange { broker })
    } else if broker.max < ours.min {
        Err(Unsupported::BrokerTooOld { broker, ours })
    } else if broker.min > ours.max {
        Err(Unsupported::BrokerTooNew { broker, ours })
    } else {
        Ok(broker.intersect(ours))
    }
}

#[cfg(feature = "ApiVersions")]
/// The `(key, range)` pairs of a response's `ApiKeys`.
fn advertised<'r>(
    response: &'r ApiVersionsResponse<'_>,
) -> impl Iterator<Item = (ApiKey, VersionRange)> + 'r {
    response.api_keys.iter().map(|a| {
        (
            ApiKey(a.api_key),
            VersionRange::new(a.min_version, a.max_version),
        )
    })
}

#[cfg(feature = "ApiVersions")]
#[cfg(test)]
mod tests {
    use super::*;
    use crate::messages::api_versions_response::ApiVersion;

    fn entry(key: i16, min: i16, max: i16) -> ApiVersion<'static> {
        ApiVersion::default()
            .with_api_key(key)
            .with_min_version(min)
            .with_max_version(max)
    }

    #[test]
    fn intersects_with_our_versions() {
        let advertised = [
            entry(0, 0, 11),
            entry(1, 4, 99),
            entry(5, 0, 4),
            entry(999, 0, 1),
        ];
        let response = ApiVersionsResponse::default().with_api_keys(&advertised[..]);
        let t = VersionTable::from_response(&response);
        let produce = ApiKey::PRODUCE.request_versions();
        assert_eq!(
            t.common(ApiKey::PRODUCE),
            Ok(VersionRange::new(produce.min, 11))
        );
        assert_eq!(
            t.negotiate(ApiKey::FETCH),
            Ok(ApiKey::FETCH.request_versions().max)
        );
        // StopReplica: negotiated only where this crate speaks it.
        let stop = ApiKey::STOP_REPLICA.request_versions();
        assert_eq!(
            t.negotiate(ApiKey::STOP_REPLICA).ok(),
            (!stop.is_empty()).then(|| stop.max.min(4))
        );
        assert_eq!(t.common(ApiKey(999)), Err(Unsupported::UnknownKey));
        assert_eq!(t.negotiate(ApiKey(999)), Err(Unsupported::UnknownKey));
        assert_eq!(t.advertised(ApiKey(999)), Some(VersionRange::new(0, 1)));
        assert_eq!(t.len(), if stop.is_empty() { 2 } else { 3 });
        assert_eq!(t.iter_advertised().count(), 4);
    }

    #[test]
    fn explains_keys_without_a_common_version() {
        let t =
            VersionTable::from_ranges(&[(0, 0, 2), (1, 40, 50), (3, 5, 2), (18, 0, 3)]).unwrap();
        let produce = ApiKey::PRODUCE.request_versions();
        if produce.min > 2 {
            assert_eq!(
                t.negotiate(ApiKey::PRODUCE),
                Err(Unsupported::BrokerTooOld {
                    broker: VersionRange::new(0, 2),
                    ours: produce
                })
            );
        } else {
            assert_eq!(t.negotiate(ApiKey::PRODUCE), Ok(2));
        }
        assert_eq!(
            t.negotiate(ApiKey::FETCH),
            Err(Unsupported::BrokerTooNew {
                broker: VersionRange::new(40, 50),
                ours: ApiKey::FETCH.request_versions()
            })
        );
        assert_eq!(
            t.negotiate(ApiKey::METADATA),
            Err(Unsupported::EmptyBrokerRange {
                broker: VersionRange::new(5, 2)
            })
        );
        assert_eq!(
            t.negotiate(ApiKey::LIST_OFFSETS),
            Err(Unsupported::NotAdvertised)
        );
        assert_eq!(t.negotiate(ApiKey(-1)), Err(Unsupported::UnknownKey));
        assert_eq!(t.negotiate(ApiKey::API_VERSIONS), Ok(3));
    }

    #[test]
    fn duplicates() {
        assert_eq!(
            VersionTable::from_ranges(&[(0, 0, 9), (3, 0, 12), (0, 0, 3)]),
            Err(NegotiateError::DuplicateKey(ApiKey::PRODUCE))
        );
        let advertised = [entry(0, 0, 9), entry(0, 0, 3)];
        let response = ApiVersionsResponse::default().with_api_keys(&advertised[..]);
        assert_eq!(
            VersionTable::try_from_response(&response),
            Err(NegotiateError::DuplicateKey(ApiKey::PRODUCE))
        );
        // The lenient form keeps the first.
        let t = VersionTable::from_response(&response);
        assert_eq!(t.advertised(ApiKey::PRODUCE), Some(VersionRange::new(0, 9)));
    }

    #[test]
    fn error_codes() {
        let advertised = [entry(18, 0, 3)];
        let response = ApiVersionsResponse::default()
            .with_error_code(35)
            .with_api_keys(&advertised[..]);
        let err = VersionTable::try_from_response(&response).unwrap_err();
        assert_eq!(
            err,
            NegotiateError::UnsupportedVersion {
                broker: Some(VersionRange::new(0, 3))
            }
        );
        assert_eq!(err.retry_version(4), Some(3));
        assert_eq!(err.retry_version(3), None, "no progress: give up");
        let old = ApiVersionsResponse::default().with_error_code(35);
        let err = VersionTable::try_from_response(&old).unwrap_err();
        assert_eq!(err, NegotiateError::UnsupportedVersion { broker: None });
        assert_eq!(err.retry_version(2), Some(0));
        assert_eq!(err.retry_version(0), None);
        let other = ApiVersionsResponse::default().with_error_code(42);
        let err = VersionTable::try_from_response(&other).unwrap_err();
        assert_eq!(err, NegotiateError::ErrorCode(42));
        assert_eq!(err.retry_version(3), None);
        // A broker range above ours: nothing to retry with.
        let ours = ApiKey::API_VERSIONS.request_versions();
        let err = NegotiateError::UnsupportedVersion {
            broker: Some(VersionRange::new(ours.max + 1, ours.max + 3)),
        };
        assert_eq!(err.retry_version(ours.max), None);
    }

    #[test]
    fn every_assigned_key_has_its_slot() {
        for (i, info) in API_TABLE.iter().enumerate() {
            assert_eq!(slot(info.key), Some(i), "{:?}", info.key);
        }
        assert_eq!(slot(ApiKey(-1)), None);
        assert_eq!(slot(ApiKey(i16::try_from(KEYS).unwrap())), None);
    }

    #[test]
    fn full_table_keeps_every_key_we_speak() {
        // MAX_APIS keys we do not speak first, then every key we do.
        let mut ranges = std::vec::Vec::new();
        for k in 0..MAX_APIS as i16 {
            ranges.push((ApiKey(1000 + k), VersionRange::new(0, 0)));
        }
        for info in API_TABLE.iter() {
            ranges.push((info.key, VersionRange::new(0, 100)));
        }
        let t = VersionTable::from_advertised(ranges.iter().copied()).unwrap();
        for info in API_TABLE.iter() {
            if !info.request_versions.is_empty() {
                assert_eq!(t.negotiate(info.key), Ok(info.request_versions.max));
            }
        }
        assert_eq!(t.iter_advertised().count(), MAX_APIS);
        assert_eq!(t.dropped(), ranges.len() - MAX_APIS);
        let keys: std::vec::Vec<_> = t.iter_advertised().map(|(k, _)| k).collect();
        assert!(keys.windows(2).all(|w| w[0] < w[1]), "sorted by key");
    }

    /// The table's answers are those read from the response itself: the first range of each
    /// key, and the first key seen again.
    fn as_the_response_says(advertised: &[ApiVersion<'_>], error_code: i16) {
        let response = ApiVersionsResponse::default()
            .with_error_code(error_code)
            .with_api_keys(advertised);
        let first = |key: ApiKey| {
            advertised
                .iter()
                .find(|a| a.api_key == key.0)
                .map(|a| VersionRange::new(a.min_version, a.max_version))
        };
        let twice = advertised.iter().enumerate().find_map(|(i, a)| {
            let seen = advertised[..i].iter().any(|b| b.api_key == a.api_key);
            seen.then_some(ApiKey(a.api_key))
        });
        let expected = match (error_code, twice) {
            (0, None) => Ok(()),
            (0, Some(key)) => Err(NegotiateError::DuplicateKey(key)),
            (35, _) => Err(NegotiateError::UnsupportedVersion {
                broker: first(ApiKey::API_VERSIONS),
            }),
            (code, _) => Err(NegotiateError::ErrorCode(code)),
        };
        assert_eq!(
            VersionTable::try_from_response(&response).map(|_| ()),
            expected,
            "{advertised:?}"
        );
        let table = VersionTable::from_response(&response);
        let asked = API_TABLE
            .iter()
            .map(|info| info.key)
            .chain(advertised.iter().map(|a| ApiKey(a.api_key)))
            .chain([ApiKey(-1), ApiKey(127), ApiKey(128), ApiKey(i16::MAX)]);
        for key in asked {
            assert_eq!(table.advertised(key), first(key), "{key:?}");
            let common = common_range(first(key), key.built_versions());
            assert_eq!(table.common(key), common, "{key:?}");
            assert_eq!(table.negotiate(key), common.map(|r| r.max), "{key:?}");
        }
        let mut keys: std::vec::Vec<_> = advertised.iter().map(|a| a.api_key).collect();
        keys.sort_unstable();
        keys.dedup();
        let listed: std::vec::Vec<_> = table.iter_advertised().map(|(k, _)| k.0).collect();
        assert_eq!(listed, keys, "every key once, in key order");
    }

    #[test]
    fn tables_answer_as_the_response_says() {
        // A broker of every key this crate speaks, at ranges around ours.
        let every: std::vec::Vec<_> = API_TABLE
            .iter()
            .map(|info| {
                let ours = info.request_versions;
                entry(
                    info.key.0,
                    ours.min.saturating_sub(1),
                    ours.max.saturating_add(2),
                )
            })
            .collect();
        as_the_response_says(&every, 0);
        as_the_response_says(&every, 35);
        as_the_response_says(&every, 7);
        // Ranges that miss ours on either side, empty ones, keys outside the bitmap, and keys
        // advertised twice, near and far apart, below and above 127.
        let cases: [&[(i16, i16, i16)]; 11] = [
            &[],
            &[(0, 0, 2), (1, 40, 50), (3, 5, 2), (18, 0, 3)],
            &[(999, 0, 1), (-4, 0, 1), (127, 0, 0), (128, 0, 0)],
            &[(0, 0, 9), (0, 0, 3)],
            &[(1, 0, 9), (3, 0, 1), (18, 0, 3), (1, 0, 1)],
            &[(127, 0, 1), (2, 0, 1), (127, 0, 1)],
            &[(128, 0, 1), (2, 0, 1), (128, 0, 1)],
            &[(-1, 0, 1), (-1, 0, 1)],
            &[
                (i16::MAX, 0, 1),
                (0, 0, 1),
                (i16::MIN, 0, 1),
                (i16::MAX, 1, 2),
            ],
            // Two keys twice: the one seen again first is named.
            &[(300, 0, 1), (2, 0, 1), (2, 0, 1), (300, 0, 1)],
            &[(2, 0, 1), (300, 0, 1), (300, 0, 1), (2, 0, 1)],
        ];
        for ranges in cases {
            let advertised: std::vec::Vec<_> = ranges
                .iter()
                .map(|&(k, min, max)| entry(k, min, max))
                .collect();
            as_the_response_says(&advertised, 0);
            as_the_response_says(&advertised, 35);
        }
    }

    #[test]
    fn v0_fallback_body() {
        // A v0 body: error 35, ApiVersions 0-3.
        let body = [0, 35, 0, 0, 0, 1, 0, 18, 0, 0, 0, 3];
        for sent in 0..=6 {
            let (decoded, version) = decode_api_versions_body(&body, sent).unwrap();
            assert_eq!(version, 0, "sent {sent}");
            assert_eq!(decoded.error_code, 35);
            assert_eq!(decoded.api_keys.len(), 1);
        }
        // A broker before 2.4: error 35 and an empty list.
        let body = [0, 35, 0, 0, 0, 0];
        for sent in 0..=6 {
            let (decoded, version) = decode_api_versions_body(&body, sent).unwrap();
            assert_eq!((decoded.error_code, version), (35, 0));
        }
    }
}
