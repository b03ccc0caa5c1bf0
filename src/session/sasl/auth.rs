//! A client session's authentication: the SaslHandshake request naming the mechanism, then one
//! SaslAuthenticate request per message of the mechanism, as Kafka's clients send them after the
//! ApiVersions exchange. After a SaslHandshake at version 0 (a broker before Kafka 1.0, which
//! has no SaslAuthenticate) the mechanism's messages go raw: each a size-prefixed frame of its
//! bytes alone, answered alike.

use core::fmt;

use crate::api::ErrorCode;
use crate::messages::{SaslAuthenticateResponse, SaslHandshakeResponse};

use super::{SaslClient, SaslError, ServerReason};
use crate::session::SessionError;

/// The longest message of a mechanism written when the server's arrives (SCRAM's client-final
/// message: its nonce and the proof), which the session keeps until it is sent.
const NEXT: usize = 384;

/// Where a session's authentication stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(in crate::session) enum Step {
    /// The versions are not known yet.
    Waiting,
    /// The SaslHandshake request is to be sent.
    HandshakeDue,
    /// The mechanism's first message is to be sent.
    FirstDue,
    /// The message in `next` is to be sent.
    NextDue,
    /// A request was sent: the answer to this correlation id is awaited.
    Sent {
        correlation_id: i32,
        handshake: bool,
    },
    /// Authenticated.
    Done,
    /// Failed: every later step fails.
    Failed,
}

/// A client session's SASL authentication.
#[derive(Clone)]
pub(in crate::session) struct Auth<'a> {
    pub(in crate::session) sasl: SaslClient<'a>,
    pub(in crate::session) step: Step,
    /// The next message, written when the server's message arrived.
    pub(in crate::session) next: heapless::Vec<u8, NEXT>,
    /// The broker's `session_lifetime_ms` (SaslAuthenticate v1 and later), 0 for none.
    pub(in crate::session) lifetime_ms: i64,
    /// The handshake was at version 0: the mechanism's messages go raw, without a header.
    pub(in crate::session) raw: bool,
    /// The session's clock when the broker last accepted the credentials.
    pub(in crate::session) authenticated_at: u32,
}

impl fmt::Debug for Auth<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Auth")
            .field("sasl", &self.sasl)
            .field("step", &self.step)
            .field("lifetime_ms", &self.lifetime_ms)
            .finish_non_exhaustive()
    }
}

impl<'a> Auth<'a> {
    pub(in crate::session) fn new(sasl: SaslClient<'a>) -> Self {
        Self {
            sasl,
            step: Step::Waiting,
            next: heapless::Vec::new(),
            lifetime_ms: 0,
            raw: false,
            authenticated_at: 0,
        }
    }

    /// Starts the exchange again with `sasl` (KIP-368): the handshake is due.
    pub(in crate::session) fn again(&mut self, sasl: SaslClient<'a>) {
        self.sasl = sasl;
        self.step = Step::HandshakeDue;
        self.next.clear();
        self.raw = false;
    }

    /// Reads the answer to the SaslHandshake request (`handshake`) or to a SaslAuthenticate
    /// request, in `frame` at `version`: `Ok(true)` once authenticated, `Ok(false)` when a
    /// request of the session's is due.
    pub(in crate::session) fn answered(
        &mut self,
        frame: &[u8],
        version: i16,
        handshake: bool,
        now: u32,
    ) -> Result<bool, SessionError> {
        self.step = Step::Failed;
        if handshake {
            let (_, body) =
                crate::frame::decode_response_as::<SaslHandshakeResponse<'_>>(frame, version)?;
            return match ErrorCode(body.error_code) {
                ErrorCode::NONE => {
                    self.step = Step::FirstDue;
                    self.raw = version == 0;
                    Ok(false)
                }
                code => Err(SessionError::Auth(AuthError::Mechanism {
                    asked: self.sasl.mechanism(),
                    offered: Mechanisms::of(body.mechanisms.iter().map(|m| m.as_bytes())),
                    code,
                })),
            };
        }
        let (_, body) =
            crate::frame::decode_response_as::<SaslAuthenticateResponse<'_>>(frame, version)?;
        if body.error_code != 0 {
            let message = body.error_message.map(|m| m.as_bytes()).unwrap_or_default();
            return Err(SessionError::Auth(AuthError::Refused {
                code: ErrorCode(body.error_code),
                reason: ServerReason::new(message),
            }));
        }
        self.server_message(body.auth_bytes, body.session_lifetime_ms, now)
    }

    /// Reads a raw token, the server's message after a SaslHandshake v0: `Ok(true)` once
    /// authenticated. (A broker that refuses closes the connection.)
    pub(in crate::session) fn answered_raw(
        &mut self,
        token: &[u8],
        now: u32,
    ) -> Result<bool, SessionError> {
        self.step = Step::Failed;
        self.server_message(token, 0, now)
    }

    /// Hands the server's message to the mechanism: its next message due, or the end.
    fn server_message(
        &mut self,
        message: &[u8],
        lifetime_ms: i64,
        now: u32,
    ) -> Result<bool, SessionError> {
        let mut next = [0u8; NEXT];
        match self.sasl.step(message, &mut next) {
            Ok(Some(n)) => {
                self.next.clear();
                self.next
                    .extend_from_slice(next.get(..n).unwrap_or_default())
                    .map_err(|_| SessionError::Auth(AuthError::Exchange(SaslError::State)))?;
                self.step = Step::NextDue;
                Ok(false)
            }
            Ok(None) => {
                self.lifetime_ms = lifetime_ms;
                self.authenticated_at = now;
                self.step = Step::Done;
                Ok(true)
            }
            Err(e) => Err(SessionError::Auth(AuthError::Exchange(e))),
        }
    }
}

/// The mechanisms a broker offers, of those Kafka knows.
#[derive(Clone, Copy, PartialEq, Eq, Default)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct Mechanisms(u8);

impl Mechanisms {
    /// The mechanisms Kafka knows, each a bit of the set in this order.
    pub const KNOWN: [&'static str; 5] = [
        "PLAIN",
        "SCRAM-SHA-256",
        "SCRAM-SHA-512",
        "OAUTHBEARER",
        "GSSAPI",
    ];

    /// The set of the `names` Kafka knows; another name sets the bit after theirs
    /// ([`Mechanisms::others`]).
    fn of<'n>(names: impl Iterator<Item = &'n [u8]>) -> Self {
        let mut bits = 0u8;
        for name in names {
            let i = Self::KNOWN
                .iter()
                .position(|k| k.as_bytes() == name)
                .unwrap_or(Self::KNOWN.len());
            bits |= Self::bit(i);
        }
        Self(bits)
    }

    /// The bit of the `i`th mechanism of [`Mechanisms::KNOWN`] (of the others after them).
    fn bit(i: usize) -> u8 {
        u32::try_from(i)
            .ok()
            .and_then(|i| 1u8.checked_shl(i))
            .unwrap_or(0)
    }

    /// Whether the broker offers `name`.
    #[must_use]
    pub fn contains(self, name: &str) -> bool {
        self.iter().any(|m| m == name)
    }

    /// The known mechanisms offered, in [`Mechanisms::KNOWN`]'s order.
    pub fn iter(self) -> impl Iterator<Item = &'static str> {
        Self::KNOWN
            .into_iter()
            .enumerate()
            .filter(move |&(i, _)| self.0 & Self::bit(i) != 0)
            .map(|(_, name)| name)
    }

    /// Whether the broker offers mechanisms Kafka does not know as well.
    #[must_use]
    pub fn others(self) -> bool {
        self.0 & Self::bit(Self::KNOWN.len()) != 0
    }
}

impl fmt::Debug for Mechanisms {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

impl fmt::Display for Mechanisms {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut any = false;
        for m in self.iter() {
            if any {
                f.write_str(", ")?;
            }
            f.write_str(m)?;
            any = true;
        }
        match (any, self.others()) {
            (false, false) => f.write_str("none"),
            (false, true) => f.write_str("only mechanisms Kafka does not know"),
            (true, true) => f.write_str(" and others"),
            (true, false) => Ok(()),
        }
    }
}

/// Why a session's authentication failed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
#[non_exhaustive]
pub enum AuthError {
    /// The broker refused the SaslHandshake: `UNSUPPORTED_SASL_MECHANISM` when it does not
    /// offer the mechanism (`ILLEGAL_SASL_STATE` when it is not expecting a handshake).
    Mechanism {
        /// The mechanism asked for.
        asked: &'static str,
        /// Those the broker offers.
        offered: Mechanisms,
        /// The broker's error code.
        code: ErrorCode,
    },
    /// The broker refused the credentials (`SASL_AUTHENTICATION_FAILED` for a wrong password),
    /// with its message. Do not retry with the same credentials.
    Refused {
        /// The broker's error code.
        code: ErrorCode,
        /// The broker's message (its first 104 bytes).
        reason: ServerReason,
    },
    /// The exchange failed on the client's side: the server's messages were not the
    /// mechanism's, or a SCRAM server did not prove that it knows the password.
    Exchange(SaslError),
}

impl fmt::Display for AuthError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Mechanism {
                asked,
                offered,
                code,
            } => write!(
                f,
                "the broker refused SASL mechanism {asked} ({code}); it offers {offered}"
            ),
            Self::Refused { code, reason } => {
                write!(f, "SASL authentication failed: {reason} ({code})")
            }
            Self::Exchange(e) => fmt::Display::fmt(e, f),
        }
    }
}

impl core::error::Error for AuthError {
    fn source(&self) -> Option<&(dyn core::error::Error + 'static)> {
        match self {
            Self::Exchange(e) => Some(e),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mechanisms_name_what_a_broker_offers() {
        let m = Mechanisms::of([&b"SCRAM-SHA-512"[..], b"PLAIN", b"X-CUSTOM"].into_iter());
        assert!(m.contains("PLAIN") && m.contains("SCRAM-SHA-512") && !m.contains("GSSAPI"));
        assert_eq!(std::format!("{m}"), "PLAIN, SCRAM-SHA-512 and others");
        assert_eq!(std::format!("{}", Mechanisms::default()), "none");
    }
}
