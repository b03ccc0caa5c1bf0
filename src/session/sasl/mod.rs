//! SASL authentication, without I/O: the client's side of the mechanisms Kafka brokers offer,
//! and a server's checks of PLAIN and SCRAM ([`server`]).
//!
//! A client authenticates after the ApiVersions exchange: a SaslHandshake request names the
//! mechanism, then each message of the mechanism travels as the `auth_bytes` of a
//! SaslAuthenticate request, and the broker's answer as the response's `auth_bytes`.
//! [`SaslClient`] writes the client's messages and reads the server's; the caller (or the
//! session's [`Client`](super::Client)) carries them.
//!
//! * PLAIN (RFC 4616): the user name and password in one message. It sends the password as it
//!   is: use it inside TLS.
//! * SCRAM-SHA-256 and SCRAM-SHA-512 (RFC 5802, RFC 7677): the password never crosses the
//!   wire, and the server proves that it knows it too. A server whose final message does not
//!   carry the signature the password gives is an error ([`SaslError::ServerSignature`]), never
//!   a success.
//! * OAUTHBEARER (RFC 7628, KIP-255): a token the caller obtained, with SASL extensions.
//!
//! There is no random number generator in `no_std`: a SCRAM client is given its nonce
//! ([`nonce_from_random`] makes one from random bytes). Nothing allocates, and no secret appears
//! in an error or in `Debug` output.
//!
//! ```
//! use kwire::session::sasl::{Credentials, SaslClient, server};
//!
//! // The server side: credentials as Kafka stores them, derived once from the password.
//! let stored = server::ScramCredential::sha512(b"s3cret", b"salt-of-alice", 4096)?;
//! # let mut out = [0u8; 256];
//! # let mut answer = [0u8; 256];
//! let mut client = SaslClient::new(Credentials::scram_sha512("alice", "s3cret", b"fyko+d2lbbFgONRv9qkxdawL"));
//! let n = client.start(&mut out)?;
//! let (mut exchange, m) = server::ScramServer::start(
//!     &out[..n],
//!     |user| (user == "alice").then_some(stored),
//!     b"3rfcNHYJY1ZVvWVs7j",
//!     &mut answer,
//! )?;
//! let n = client.step(&answer[..m], &mut out)?.expect("the client's final message");
//! let m = exchange.finish(&out[..n], &mut answer)?;
//! assert_eq!(client.step(&answer[..m], &mut out)?, None); // the server proved itself
//! assert!(client.is_done());
//! # Ok::<(), kwire::session::sasl::SaslError>(())
//! ```

mod auth;
mod scram;
pub mod server;

use crate::session::buffer::copy;
use core::fmt;

pub(super) use auth::{Auth, Step};
pub use auth::{AuthError, Mechanisms};
pub use scram::ScramHash;

/// The longest SCRAM client nonce, in bytes.
pub const MAX_NONCE: usize = 64;

/// A SCRAM client nonce, kept by value: empty when the one given was longer than [`MAX_NONCE`]
/// (which the start of the exchange refuses, as it refuses an empty one).
#[derive(Clone, Copy)]
struct Nonce {
    bytes: [u8; MAX_NONCE],
    len: usize,
}

impl Nonce {
    fn new(nonce: &[u8]) -> Self {
        let mut bytes = [0u8; MAX_NONCE];
        match bytes.get_mut(..nonce.len()) {
            Some(to) => {
                copy(to, nonce);
                Self {
                    bytes,
                    len: nonce.len(),
                }
            }
            None => Self { bytes, len: 0 },
        }
    }

    fn as_bytes(&self) -> &[u8] {
        self.bytes.get(..self.len).unwrap_or_default()
    }
}

/// The fewest PBKDF2 iterations a SCRAM client accepts, as Kafka's clients: 4096.
pub const MIN_ITERATIONS: u32 = 4096;

/// The most PBKDF2 iterations a SCRAM client accepts unless told otherwise
/// ([`Credentials::with_max_iterations`]): Kafka's own limit for stored credentials, 16384.
pub const MAX_ITERATIONS: u32 = 16_384;

/// A mechanism and what the client proves itself with.
///
/// `Debug` shows the mechanism and the user name only.
#[derive(Clone, Copy)]
pub struct Credentials<'a> {
    kind: Kind<'a>,
}

#[derive(Clone, Copy)]
enum Kind<'a> {
    Plain {
        username: &'a str,
        password: &'a str,
    },
    Scram {
        hash: ScramHash,
        username: &'a str,
        password: &'a str,
        nonce: Nonce,
        token: bool,
        max_iterations: u32,
    },
    OAuthBearer {
        token: &'a str,
        authzid: Option<&'a str>,
        extensions: &'a [(&'a str, &'a str)],
    },
}

impl<'a> Credentials<'a> {
    /// PLAIN: `username` and `password`, sent as they are.
    #[must_use]
    pub const fn plain(username: &'a str, password: &'a str) -> Self {
        Self {
            kind: Kind::Plain { username, password },
        }
    }

    /// SCRAM-SHA-256 with `username` and `password`; `nonce` is the client's nonce, copied:
    /// printable ASCII without `,`, at most [`MAX_NONCE`] bytes, fresh and unpredictable for
    /// each authentication (see [`nonce_from_random`]). A nonce that is not is refused when the
    /// exchange starts.
    #[must_use]
    pub fn scram_sha256(username: &'a str, password: &'a str, nonce: &[u8]) -> Self {
        Self::scram(ScramHash::Sha256, username, password, nonce)
    }

    /// SCRAM-SHA-512, as [`Credentials::scram_sha256`].
    #[must_use]
    pub fn scram_sha512(username: &'a str, password: &'a str, nonce: &[u8]) -> Self {
        Self::scram(ScramHash::Sha512, username, password, nonce)
    }

    /// SCRAM with `hash`, as [`Credentials::scram_sha256`].
    #[must_use]
    pub fn scram(hash: ScramHash, username: &'a str, password: &'a str, nonce: &[u8]) -> Self {
        Self {
            kind: Kind::Scram {
                hash,
                username,
                password,
                nonce: Nonce::new(nonce),
                token: false,
                max_iterations: MAX_ITERATIONS,
            },
        }
    }

    /// OAUTHBEARER with `token`, a bearer token the caller obtained from its identity provider.
    #[must_use]
    pub const fn oauth_bearer(token: &'a str) -> Self {
        Self {
            kind: Kind::OAuthBearer {
                token,
                authzid: None,
                extensions: &[],
            },
        }
    }

    /// A SCRAM authentication with a delegation token: `username` is the token's id and
    /// `password` its HMAC, and the client asks for Kafka's `tokenauth` extension. No change to
    /// other mechanisms.
    #[must_use]
    pub const fn with_delegation_token(mut self) -> Self {
        if let Kind::Scram { ref mut token, .. } = self.kind {
            *token = true;
        }
        self
    }

    /// The most PBKDF2 iterations a SCRAM server may ask for (at least [`MIN_ITERATIONS`]; by
    /// default [`MAX_ITERATIONS`]): each costs the client two HMACs. No change to other
    /// mechanisms.
    #[must_use]
    pub const fn with_max_iterations(mut self, iterations: u32) -> Self {
        if let Kind::Scram {
            ref mut max_iterations,
            ..
        } = self.kind
        {
            *max_iterations = iterations;
        }
        self
    }

    /// OAUTHBEARER's SASL extensions (KIP-342): pairs of a name of letters and a value of
    /// printable characters, which the broker hands to its callback. No change to other
    /// mechanisms.
    #[must_use]
    pub const fn with_extensions(mut self, pairs: &'a [(&'a str, &'a str)]) -> Self {
        if let Kind::OAuthBearer {
            ref mut extensions, ..
        } = self.kind
        {
            *extensions = pairs;
        }
        self
    }

    /// The identity OAUTHBEARER acts as, when it is not the token's (`a=` of the GS2 header).
    /// No change to other mechanisms.
    #[must_use]
    pub const fn with_authzid(mut self, id: &'a str) -> Self {
        if let Kind::OAuthBearer {
            ref mut authzid, ..
        } = self.kind
        {
            *authzid = Some(id);
        }
        self
    }

    /// The mechanism's name, as the SaslHandshake request names it (`"SCRAM-SHA-512"`).
    #[must_use]
    pub const fn mechanism(&self) -> &'static str {
        match self.kind {
            Kind::Plain { .. } => "PLAIN",
            Kind::Scram { hash, .. } => hash.mechanism(),
            Kind::OAuthBearer { .. } => "OAUTHBEARER",
        }
    }
}

impl fmt::Debug for Credentials<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut d = f.debug_struct("Credentials");
        d.field("mechanism", &self.mechanism());
        match self.kind {
            Kind::Plain { username, .. } | Kind::Scram { username, .. } => {
                d.field("username", &username);
            }
            Kind::OAuthBearer { .. } => {}
        }
        d.finish_non_exhaustive()
    }
}

/// Why an authentication failed on the client's side.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
#[non_exhaustive]
pub enum SaslError {
    /// The output buffer is too short for the message: it needs `needed` bytes.
    BufferTooSmall {
        /// The message's length.
        needed: usize,
    },
    /// What the caller gave cannot be sent: a SCRAM nonce that is empty or holds a character
    /// other than printable ASCII without `,`; an OAUTHBEARER extension whose name is not
    /// letters or is `auth`, or whose value is not printable; a PLAIN user name or password
    /// holding a NUL.
    InvalidCredentials(&'static str),
    /// The server's message is not what the mechanism expects at this step (the part named).
    Malformed(&'static str),
    /// The SCRAM server's nonce does not extend the client's, or adds nothing to it.
    Nonce,
    /// The SCRAM server asked for an iteration count outside the bounds the client accepts.
    Iterations {
        /// The count asked.
        asked: u32,
        /// The fewest accepted ([`MIN_ITERATIONS`]).
        min: u32,
        /// The most accepted.
        max: u32,
    },
    /// The SCRAM server's salt is longer than the 128 bytes a client keeps.
    SaltTooLong,
    /// The server ended the exchange with an error (SCRAM's `e=` attribute: `invalid-proof`
    /// when the password is wrong, `unknown-user`, ...), or refused an OAUTHBEARER token.
    Rejected(ServerReason),
    /// The SCRAM server's signature is not the one the password gives: it does not know the
    /// password, and the exchange must not be trusted.
    ServerSignature,
    /// A step was taken out of order: after the end of the exchange, or before its start.
    State,
}

/// The reason a server gave in an error message, as much as fits in [`ServerReason::CAPACITY`]
/// bytes (Kafka's messages do).
#[derive(Clone, Copy, PartialEq, Eq)]
pub struct ServerReason {
    bytes: [u8; ServerReason::CAPACITY],
    len: u8,
    /// Whether the reason was longer, and cut.
    cut: bool,
}

impl ServerReason {
    /// The most bytes of a reason kept.
    pub const CAPACITY: usize = 104;

    fn new(text: &[u8]) -> Self {
        let mut bytes = [0u8; Self::CAPACITY];
        let len = text.len().min(bytes.len());
        if let (Some(to), Some(from)) = (bytes.get_mut(..len), text.get(..len)) {
            copy(to, from);
        }
        Self {
            bytes,
            len: u8::try_from(len).unwrap_or(u8::MAX),
            cut: text.len() > len,
        }
    }

    /// The reason's bytes (cut at [`ServerReason::CAPACITY`]).
    #[must_use]
    pub fn as_bytes(&self) -> &[u8] {
        self.bytes.get(..usize::from(self.len)).unwrap_or_default()
    }

    /// Whether the reason was longer than what is kept.
    #[must_use]
    pub const fn is_cut(&self) -> bool {
        self.cut
    }
}

impl fmt::Debug for ServerReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

impl fmt::Display for ServerReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(&crate::codec::Str::from_wire(self.as_bytes()), f)?;
        if self.cut {
            f.write_str("...")?;
        }
        Ok(())
    }
}

#[cfg(feature = "defmt")]
impl defmt::Format for ServerReason {
    fn format(&self, f: defmt::Formatter<'_>) {
        defmt::write!(f, "{=[u8]}", self.as_bytes());
    }
}

impl fmt::Display for SaslError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::BufferTooSmall { needed } => {
                write!(f, "the SASL message needs a buffer of {needed} bytes")
            }
            Self::InvalidCredentials(what) => write!(f, "cannot send these credentials: {what}"),
            Self::Malformed(what) => write!(f, "malformed SASL server message: {what}"),
            Self::Nonce => f.write_str("the SCRAM server's nonce does not extend the client's"),
            Self::Iterations { asked, min, max } => write!(
                f,
                "the SCRAM server asks for {asked} iterations, outside {min}..={max}"
            ),
            Self::SaltTooLong => f.write_str("the SCRAM server's salt is over 128 bytes"),
            Self::Rejected(reason) => write!(f, "SASL authentication failed: {reason}"),
            Self::ServerSignature => {
                f.write_str("the SCRAM server's signature is wrong: it does not know the password")
            }
            Self::State => f.write_str("SASL step out of order"),
        }
    }
}

impl core::error::Error for SaslError {}

/// Writes a SCRAM nonce made of `random` (at least 18 bytes from a cryptographic source is
/// usual) into `out`, base64-encoded, and returns it.
///
/// # Errors
///
/// [`SaslError::BufferTooSmall`] when `out` is shorter than the encoding (4 bytes for every 3
/// random ones, rounded up); [`SaslError::InvalidCredentials`] for no random bytes.
pub fn nonce_from_random<'o>(random: &[u8], out: &'o mut [u8]) -> Result<&'o [u8], SaslError> {
    if random.is_empty() {
        return Err(SaslError::InvalidCredentials("an empty nonce"));
    }
    let n = scram::base64_encode(random, out)?;
    Ok(out.get(..n).unwrap_or_default())
}

/// The client's side of one SASL authentication: see the [module docs](self).
#[derive(Clone)]
pub struct SaslClient<'a> {
    credentials: Credentials<'a>,
    state: State,
}

#[derive(Clone)]
enum State {
    /// Nothing sent yet.
    Start,
    /// The only message of PLAIN or OAUTHBEARER sent: the server's answer ends the exchange.
    Sent,
    /// OAUTHBEARER's token refused: the client acknowledged, and the exchange fails.
    Refused,
    /// SCRAM's client-first message sent.
    ScramFirst,
    /// SCRAM's client-final message sent: the signature the server must send.
    ScramFinal(scram::Signature),
    /// Authenticated.
    Done,
    /// Failed.
    Failed,
}

impl fmt::Debug for SaslClient<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let state = match self.state {
            State::Start => "start",
            State::Sent | State::ScramFirst | State::ScramFinal(_) => "in progress",
            State::Refused | State::Failed => "failed",
            State::Done => "done",
        };
        f.debug_struct("SaslClient")
            .field("credentials", &self.credentials)
            .field("state", &state)
            .finish()
    }
}

impl<'a> SaslClient<'a> {
    /// A client that authenticates with `credentials`.
    #[must_use]
    pub const fn new(credentials: Credentials<'a>) -> Self {
        Self {
            credentials,
            state: State::Start,
        }
    }

    /// The mechanism's name, for the SaslHandshake request.
    #[must_use]
    pub const fn mechanism(&self) -> &'static str {
        self.credentials.mechanism()
    }

    /// Whether the exchange ended in success: for SCRAM, the server proved that it knows the
    /// password.
    #[must_use]
    pub const fn is_done(&self) -> bool {
        matches!(self.state, State::Done)
    }

    /// Writes the client's first message into `out` and returns its length: PLAIN's only
    /// message, SCRAM's client-first message, OAUTHBEARER's initial response.
    ///
    /// # Errors
    ///
    /// [`SaslError::BufferTooSmall`]; [`SaslError::InvalidCredentials`];
    /// [`SaslError::State`] when the exchange has started.
    pub fn start(&mut self, out: &mut [u8]) -> Result<usize, SaslError> {
        if !matches!(self.state, State::Start) {
            return Err(SaslError::State);
        }
        let mut w = Out::new(out);
        let next = match self.credentials.kind {
            Kind::Plain { username, password } => {
                if username.contains('\0') || password.contains('\0') {
                    return Err(SaslError::InvalidCredentials("a NUL in PLAIN credentials"));
                }
                // authzid (empty: the user's own identity), user name, password.
                w.put(b"\0");
                w.put(username.as_bytes());
                w.put(b"\0");
                w.put(password.as_bytes());
                State::Sent
            }
            Kind::Scram {
                username,
                nonce,
                token,
                ..
            } => {
                scram::client_first(&mut w, username, nonce.as_bytes(), token)?;
                State::ScramFirst
            }
            Kind::OAuthBearer {
                token,
                authzid,
                extensions,
            } => {
                oauth_initial(&mut w, token, authzid, extensions)?;
                State::Sent
            }
        };
        let n = w.finish()?;
        self.state = next;
        Ok(n)
    }

    /// Reads the server's message `server` (a SaslAuthenticate response's `auth_bytes`), and
    /// writes the client's next message into `out`: `Some(length)` to send it, `None` when the
    /// exchange ended in success.
    ///
    /// A broker that refuses the credentials says so in the response's error code (and
    /// message), which the caller checks first; this step sees what the mechanism says.
    ///
    /// # Errors
    ///
    /// [`SaslError::Rejected`], [`SaslError::ServerSignature`], [`SaslError::Nonce`],
    /// [`SaslError::Iterations`], [`SaslError::Malformed`]: the exchange failed, and every
    /// later step fails with [`SaslError::State`]. [`SaslError::BufferTooSmall`] leaves the
    /// step to be taken again with a larger buffer.
    pub fn step(&mut self, server: &[u8], out: &mut [u8]) -> Result<Option<usize>, SaslError> {
        let state = core::mem::replace(&mut self.state, State::Failed);
        let (result, next) = self.advance(state, server, out);
        self.state = next;
        result
    }

    /// One step from `state`: the result and the state after it.
    fn advance(
        &self,
        state: State,
        server: &[u8],
        out: &mut [u8],
    ) -> (Result<Option<usize>, SaslError>, State) {
        match (state, self.credentials.kind) {
            // PLAIN's server says nothing; OAUTHBEARER's says nothing on success and sends an
            // error document on failure, which the client acknowledges with a lone 0x01 for
            // the server to end the exchange.
            (State::Sent, Kind::OAuthBearer { .. }) if !server.is_empty() => {
                let mut w = Out::new(out);
                w.put(b"\x01");
                match w.finish() {
                    Ok(n) => (Ok(Some(n)), State::Refused),
                    Err(e) => (Err(e), State::Sent),
                }
            }
            (State::Sent, _) => (Ok(None), State::Done),
            (State::Refused, _) => (
                Err(SaslError::Rejected(ServerReason::new(server))),
                State::Failed,
            ),
            (
                State::ScramFirst,
                Kind::Scram {
                    hash,
                    username,
                    password,
                    nonce,
                    token,
                    max_iterations,
                },
            ) => {
                let first = scram::ClientFirst {
                    username,
                    nonce: nonce.as_bytes(),
                    token,
                };
                let bounds = (MIN_ITERATIONS, max_iterations.max(MIN_ITERATIONS));
                let mut w = Out::new(out);
                match scram::client_final(&mut w, hash, &first, password, server, bounds) {
                    Ok(signature) => match w.finish() {
                        Ok(n) => (Ok(Some(n)), State::ScramFinal(signature)),
                        Err(e) => (Err(e), State::ScramFirst),
                    },
                    Err(e) => (Err(e), State::Failed),
                }
            }
            (State::ScramFinal(expected), _) => match scram::server_final(server, &expected) {
                Ok(()) => (Ok(None), State::Done),
                Err(e) => (Err(e), State::Failed),
            },
            (State::Start | State::ScramFirst | State::Done | State::Failed, _) => {
                (Err(SaslError::State), State::Failed)
            }
        }
    }
}

/// OAUTHBEARER's initial client response (RFC 7628 section 3.1): the GS2 header, the token, and
/// the extensions, each pair ended by 0x01, and a last 0x01.
fn oauth_initial(
    w: &mut Out<'_>,
    token: &str,
    authzid: Option<&str>,
    extensions: &[(&str, &str)],
) -> Result<(), SaslError> {
    // Printable ASCII, space and tab: what a value may hold (RFC 7628 section 3.1).
    let value_ok = |v: &str| v.bytes().all(|b| (0x20..=0x7e).contains(&b) || b == b'\t');
    if token.is_empty() || !value_ok(token) {
        return Err(SaslError::InvalidCredentials(
            "an OAUTHBEARER token that is empty or not printable",
        ));
    }
    w.put(b"n,");
    if let Some(id) = authzid {
        if id.contains([',', '=']) || id.is_empty() {
            return Err(SaslError::InvalidCredentials(
                "an OAUTHBEARER authzid that is empty or holds ',' or '='",
            ));
        }
        w.put(b"a=");
        w.put(id.as_bytes());
    }
    w.put(b",\x01auth=Bearer ");
    w.put(token.as_bytes());
    w.put(b"\x01");
    for (key, value) in extensions {
        if key.is_empty() || !key.bytes().all(|b| b.is_ascii_alphabetic()) || *key == "auth" {
            return Err(SaslError::InvalidCredentials(
                "an OAUTHBEARER extension name that is not letters, or is `auth`",
            ));
        }
        if !value_ok(value) {
            return Err(SaslError::InvalidCredentials(
                "an OAUTHBEARER extension value that is not printable",
            ));
        }
        w.put(key.as_bytes());
        w.put(b"=");
        w.put(value.as_bytes());
        w.put(b"\x01");
    }
    w.put(b"\x01");
    Ok(())
}

/// A message written into a caller's buffer, counting the bytes it needs when they do not fit.
struct Out<'b> {
    buf: &'b mut [u8],
    len: usize,
}

impl<'b> Out<'b> {
    fn new(buf: &'b mut [u8]) -> Self {
        Self { buf, len: 0 }
    }

    /// Appends `bytes`, or only counts them once the buffer is full.
    fn put(&mut self, bytes: &[u8]) {
        let end = self.len.saturating_add(bytes.len());
        if let Some(to) = self.buf.get_mut(self.len..end) {
            copy(to, bytes);
        }
        self.len = end;
    }

    /// The space for the next `n` bytes, or `None` (the bytes counted) when they do not fit.
    fn reserve(&mut self, n: usize) -> Option<&mut [u8]> {
        let start = self.len;
        self.len = start.saturating_add(n);
        self.buf.get_mut(start..self.len)
    }

    /// The message's length, when it fits.
    fn finish(self) -> Result<usize, SaslError> {
        if self.len <= self.buf.len() {
            Ok(self.len)
        } else {
            Err(SaslError::BufferTooSmall { needed: self.len })
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_is_one_message_of_three_fields() {
        let mut client = SaslClient::new(Credentials::plain("alice", "pw"));
        let mut out = [0u8; 16];
        let n = client.start(&mut out).unwrap();
        assert_eq!(&out[..n], b"\0alice\0pw");
        assert_eq!(client.step(b"", &mut out), Ok(None));
        assert!(client.is_done());
        assert_eq!(client.step(b"", &mut out), Err(SaslError::State));
        let mut small = [0u8; 4];
        let mut client = SaslClient::new(Credentials::plain("alice", "pw"));
        assert_eq!(
            client.start(&mut small),
            Err(SaslError::BufferTooSmall { needed: 9 })
        );
        assert_eq!(
            client.start(&mut out),
            Ok(9),
            "a short buffer leaves the start to take"
        );
    }

    #[test]
    fn oauth_bearer_sends_token_and_extensions() {
        let pairs = [("traceId", "123")];
        let credentials = Credentials::oauth_bearer("eyJ.a.b").with_extensions(&pairs);
        let mut client = SaslClient::new(credentials);
        let mut out = [0u8; 64];
        let n = client.start(&mut out).unwrap();
        assert_eq!(
            &out[..n],
            b"n,,\x01auth=Bearer eyJ.a.b\x01traceId=123\x01\x01"
        );
        assert_eq!(client.step(b"", &mut out), Ok(None));

        // A refused token: the client acknowledges the error document, then fails.
        let mut client = SaslClient::new(Credentials::oauth_bearer("t").with_authzid("svc"));
        let n = client.start(&mut out).unwrap();
        assert_eq!(&out[..n], b"n,a=svc,\x01auth=Bearer t\x01\x01");
        let error = br#"{"status":"invalid_token"}"#;
        assert_eq!(client.step(error, &mut out), Ok(Some(1)));
        assert_eq!(out[0], 1);
        assert!(matches!(
            client.step(b"", &mut out),
            Err(SaslError::Rejected(_))
        ));
        assert!(!client.is_done());

        let bad = [("auth", "x")];
        let mut client = SaslClient::new(Credentials::oauth_bearer("t").with_extensions(&bad));
        assert!(matches!(
            client.start(&mut out),
            Err(SaslError::InvalidCredentials(_))
        ));
    }

    #[test]
    fn debug_shows_no_secret() {
        let c = Credentials::scram_sha512("alice", "hunter2", b"nonce-nonce");
        let text = std::format!("{c:?} {:?}", SaslClient::new(c));
        assert!(
            text.contains("alice") && text.contains("SCRAM-SHA-512"),
            "{text}"
        );
        assert!(
            !text.contains("hunter2") && !text.contains("nonce-nonce"),
            "{text}"
        );
        let text = std::format!("{:?}", Credentials::oauth_bearer("tok3n"));
        assert!(!text.contains("tok3n"), "{text}");
    }

    #[test]
    fn nonces_are_base64_of_the_random_bytes() {
        let mut out = [0u8; 32];
        assert_eq!(
            nonce_from_random(&[0xfb, 0xff, 0x00], &mut out),
            Ok(&b"+/8A"[..])
        );
        assert_eq!(
            nonce_from_random(&[1; 18], &mut out[..8]),
            Err(SaslError::BufferTooSmall { needed: 24 })
        );
    }
}
