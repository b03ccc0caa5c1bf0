//! What can go wrong in a session.

use core::fmt;

#[cfg(feature = "ApiVersions")]
use crate::api::NegotiateError;
use crate::api::Unsupported;
use crate::error::{DecodeError, EncodeError};
use crate::wire::ApiKey;

/// Why a session refused a request, or could not take a frame.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
#[non_exhaustive]
pub enum SessionError {
    /// The stream holds no frame where one must start: a negative size prefix, or one over the
    /// configured maximum (a hostile or confused peer announcing 2 GB). The stream cannot be
    /// read further; every later call reports the same error.
    Framing(DecodeError),
    /// A response whose correlation id no request in flight carries.
    NoRequest {
        /// The response's correlation id.
        correlation_id: i32,
    },
    /// A response to a request that is in flight but not the oldest: Kafka answers the requests
    /// of a connection in the order they were sent, so the older ones are lost. The response's
    /// frame is skipped; the requests stay in flight.
    OutOfOrder {
        /// The correlation id of the oldest request in flight: the one due.
        expected: i32,
        /// The response's correlation id.
        received: i32,
    },
    /// The peer closed the connection with part of a frame received.
    ClosedMidFrame {
        /// Bytes of the unfinished frame received.
        received: usize,
        /// Bytes it still lacked: to its end, or, when not even its size prefix was whole, to
        /// the prefix's end (at least that many).
        missing: usize,
    },
    /// The peer closed the connection with requests unanswered.
    Unanswered {
        /// How many.
        requests: usize,
        /// The correlation id of the oldest.
        oldest: i32,
    },
    /// `N` requests are in flight already: read a response first.
    TooManyInFlight {
        /// The capacity the caller gave the session.
        capacity: usize,
    },
    /// The next correlation id, after wrapping from `i32::MAX` to 0, still belongs to a
    /// request in flight.
    CorrelationIdInUse(i32),
    /// A request did not encode.
    Encode(EncodeError),
    /// A frame did not decode.
    Decode(DecodeError),
    /// A response was read as another API's response than its request's.
    WrongApi {
        /// The API asked for.
        asked: ApiKey,
        /// The API of the request it answers.
        request: ApiKey,
    },
    /// [`Client::send`](super::Client::send) was called before the broker's versions were
    /// known, or by a client that does not negotiate.
    NotNegotiated,
    #[cfg(feature = "ApiVersions")]
    /// The ApiVersions exchange failed.
    Negotiate(NegotiateError),
    /// The SASL authentication failed (see [`Client::with_sasl`](super::Client::with_sasl)).
    #[cfg(feature = "sasl")]
    Auth(super::sasl::AuthError),
    /// No version of the API is common to the broker and this build.
    Unsupported {
        /// The API.
        api_key: ApiKey,
        /// Why.
        reason: Unsupported,
    },
}

impl fmt::Display for SessionError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Framing(e) => write!(f, "the stream holds no frame here: {e}"),
            Self::NoRequest { correlation_id } => write!(
                f,
                "a response with correlation id {correlation_id} answers no request in flight"
            ),
            Self::OutOfOrder { expected, received } => write!(
                f,
                "a response with correlation id {received} came before the response to \
                 {expected}, which was sent first"
            ),
            Self::ClosedMidFrame { received, missing } => write!(
                f,
                "the peer closed the connection inside a frame: {received} bytes received, \
                 at least {missing} missing"
            ),
            Self::Unanswered { requests, oldest } => write!(
                f,
                "the peer closed the connection with {requests} requests unanswered, the \
                 oldest with correlation id {oldest}"
            ),
            Self::TooManyInFlight { capacity } => {
                write!(f, "{capacity} requests are in flight already")
            }
            Self::CorrelationIdInUse(id) => {
                write!(
                    f,
                    "correlation id {id} still belongs to a request in flight"
                )
            }
            Self::Encode(e) => write!(f, "encoding a request: {e}"),
            Self::Decode(e) => write!(f, "decoding a frame: {e}"),
            Self::WrongApi { asked, request } => {
                write!(f, "a response to {request} was read as {asked}")
            }
            Self::NotNegotiated => f.write_str("the broker's versions are not known yet"),
            #[cfg(feature = "ApiVersions")]
            Self::Negotiate(e) => write!(f, "negotiating versions: {e}"),
            Self::Unsupported { api_key, reason } => write!(f, "{api_key}: {reason}"),
            #[cfg(feature = "sasl")]
            Self::Auth(e) => fmt::Display::fmt(e, f),
        }
    }
}

impl core::error::Error for SessionError {
    fn source(&self) -> Option<&(dyn core::error::Error + 'static)> {
        match self {
            Self::Framing(e) | Self::Decode(e) => Some(e),
            Self::Encode(e) => Some(e),
            #[cfg(feature = "ApiVersions")]
            Self::Negotiate(e) => Some(e),
            Self::Unsupported { reason, .. } => Some(reason),
            #[cfg(feature = "sasl")]
            Self::Auth(e) => Some(e),
            _ => None,
        }
    }
}

impl From<EncodeError> for SessionError {
    fn from(e: EncodeError) -> Self {
        Self::Encode(e)
    }
}

impl From<DecodeError> for SessionError {
    fn from(e: DecodeError) -> Self {
        Self::Decode(e)
    }
}
