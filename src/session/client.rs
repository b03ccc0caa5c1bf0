//! The client's side of a connection.

use crate::api::{Response, common_range};
use crate::codec::{Decode, DroppedField, Drops, Encode, Message, VersionRange, Writer};
use crate::error::{DecodeError, DecodeErrorKind, EncodeError};
use crate::frame::{self, Body};
use crate::header::request_header_version;
use crate::messages::RequestHeader;
use crate::wire::ApiKey;

use super::{FrameBuffer, InFlight, Pending, Sent, SessionError};

/// The client's side of one connection to a broker, without I/O.
///
/// It assigns correlation ids (0, 1, 2, ..., wrapping from `i32::MAX` to 0), encodes each
/// request into the caller's buffer, remembers up to `N` requests in flight (so that requests
/// can be pipelined: sent without waiting for the responses before), and matches each response
/// read from a [`FrameBuffer`] to its request: [`Client::receive`] hands it back as an
/// [`Answer`], to decode as its type or as the [`Response`] enum, borrowed from the buffer.
/// A Produce with `acks` 0 gets no response: it is sent and forgotten.
///
/// A negotiating client (`Client::negotiating`) starts with the ApiVersions exchange: its
/// request comes out of [`Client::poll_transmit`], the answer arrives as [`Event::Ready`], and
/// from then on [`Client::send`] sends each request at the highest version both the broker and
/// this build speak (the build's versions are those `KWIRE_VERSIONS` kept). A broker that does
/// not know the ApiVersions version sent answers in the version 0 layout; the client then asks
/// again at the version that
/// [`NegotiateError::retry_version`](crate::api::NegotiateError::retry_version) picks
/// ([`Event::Retry`]).
///
/// # Sizing the receive buffer
///
/// A response frame larger than the receive buffer ([`FrameBuffer::max_frame`]) ends the
/// connection (`SessionError::Framing`), and Fetch asks for up to 2 GiB by default
/// (`MaxBytes` 0x7fffffff). [`Client::with_max_response`] tells the session what the buffer
/// holds (`io::Connection` tells it itself), and the session lowers the `MaxBytes` of each
/// request that bounds its answer (Fetch from v3, ShareFetch, FetchSnapshot) to that less
/// [`RESPONSE_OVERHEAD`], 512 bytes for the response's headers and fields around the records,
/// as librdkafka wants `receive.message.max.bytes` at least `fetch.max.bytes` + 512. So the
/// largest answer is `max_bytes` + the overhead; for a program that fetches many partitions at
/// once, whose overhead grows with them, set a lower `MaxBytes` itself. A broker still returns
/// the first record batch of a fetch whole even when it is larger than `MaxBytes` (or the
/// partition's `PartitionMaxBytes`), so that a consumer makes progress (KIP-74): the buffer
/// must also hold the largest single batch the topics hold (the broker's `message.max.bytes`,
/// about 1 MiB by default) with the overhead, whatever the cap.
///
/// See the [module docs](super) for a whole pipelined exchange.
#[derive(Debug, Clone)]
pub struct Client<'a, const N: usize> {
    client_id: Option<&'a str>,
    next_correlation_id: i32,
    /// The requests in flight, each with its deadline, if it has one, and the caller's tag.
    in_flight: InFlight<N, Tags>,
    /// The session's clock: the last `now` given to [`Client::handle_timeout`].
    now: u32,
    /// How long a request may wait for its response, in the clock's milliseconds.
    timeout: Option<u32>,
    /// The largest response frame the receive buffer holds, size prefix excluded.
    max_response: Option<usize>,
    #[cfg(feature = "ApiVersions")]
    hello: Hello<'a>,
    /// The SASL authentication, when the client authenticates.
    #[cfg(feature = "sasl")]
    auth: Option<super::sasl::Auth<'a>>,
}

/// What a [`Client`] received.
#[derive(Debug)]
pub enum Event<'a> {
    /// The response to a request sent with [`Client::send`] or [`Client::send_at`] (or their
    /// tagged forms, [`Client::send_tagged`] and [`Client::send_at_tagged`]).
    Response(Answer<'a>),
    /// The broker's versions are known: [`Client::send`] picks a version for each request.
    Ready,
    /// The broker did not know the ApiVersions version it was sent: an ApiVersions request at
    /// `version` waits in [`Client::poll_transmit`].
    Retry {
        /// The ApiVersions version asked next.
        version: i16,
    },
    /// The session authenticates (see `Client::with_sasl`, with the `sasl` feature): its next
    /// request waits in [`Client::poll_transmit`]. [`Event::Ready`] comes once it is
    /// authenticated.
    Authenticating,
}

impl<'a> Event<'a> {
    /// The response, if the event is one: after [`Event::Ready`], every event is.
    #[must_use]
    pub fn into_response(self) -> Option<Answer<'a>> {
        match self {
            Self::Response(answer) => Some(answer),
            Self::Ready | Self::Retry { .. } | Self::Authenticating => None,
        }
    }
}

/// A response frame, matched to its request.
#[derive(Debug, Clone, Copy)]
pub struct Answer<'a> {
    request: Pending,
    tag: Tag,
    frame: &'a [u8],
}

impl<'a> Answer<'a> {
    /// The request the response answers: its API, version and correlation id.
    #[must_use]
    pub fn request(&self) -> Pending {
        self.request
    }

    /// The tag the request was sent with ([`Client::send_tagged`]); 0 for one sent with
    /// [`Client::send`] or [`Client::send_at`].
    #[must_use]
    pub fn tag(&self) -> u64 {
        self.tag.get()
    }

    /// The whole response frame, size prefix included.
    #[must_use]
    pub fn frame(&self) -> &'a [u8] {
        self.frame
    }

    /// The response's body, as the [`Response`] enum (which links the decoder of every
    /// response the build has; [`Answer::decode_as`] links one).
    ///
    /// # Errors
    ///
    /// [`SessionError::Decode`] with the decoder's error; offsets count from the frame's start.
    pub fn decode(&self) -> Result<Response<'a>, SessionError> {
        let (_, body) =
            frame::decode_response(self.frame, self.request.api_key, self.request.version)?;
        Ok(body)
    }

    /// The response's body as `T`, which must be the response of the request's API.
    ///
    /// # Errors
    ///
    /// [`SessionError::WrongApi`] when `T` answers another API; [`SessionError::Decode`].
    pub fn decode_as<T: Message + Decode<'a>>(&self) -> Result<T, SessionError> {
        if T::API_KEY != self.request.api_key {
            return Err(SessionError::WrongApi {
                asked: T::API_KEY,
                request: self.request.api_key,
            });
        }
        let (_, body) = frame::decode_response_as::<T>(self.frame, self.request.version)?;
        Ok(body)
    }
}

impl<'a, const N: usize> Client<'a, N> {
    /// A client that sends requests at the versions it is told ([`Client::send_at`]), sending
    /// `client_id` in every request header.
    #[must_use]
    pub fn new(client_id: Option<&'a str>) -> Self {
        Self {
            client_id,
            next_correlation_id: 0,
            in_flight: InFlight::new(),
            now: 0,
            timeout: None,
            max_response: None,
            #[cfg(feature = "ApiVersions")]
            hello: Hello::off(),
            #[cfg(feature = "sasl")]
            auth: None,
        }
    }

    /// Authenticates with `credentials` after the ApiVersions exchange, as Kafka's clients do:
    /// a SaslHandshake request (v1) naming the mechanism, then a SaslAuthenticate request per
    /// message of the mechanism (see [`sasl`](super::sasl)). [`Event::Authenticating`] marks
    /// each step; [`Event::Ready`] comes, and [`Client::send`] sends, once the broker accepted
    /// the credentials and, for SCRAM, proved that it knows the password. A client that does
    /// not negotiate starts with the handshake, at SaslHandshake v1 and SaslAuthenticate v0. A
    /// broker that offers SaslHandshake v0 alone (Kafka before 1.0) gets the handshake at v0
    /// and then the mechanism's messages raw, each a size-prefixed frame of its bytes, as
    /// Kafka's first SASL framing has them; it closes the connection on a wrong password.
    ///
    /// A failure is [`SessionError::Auth`]: a wrong password is
    /// [`AuthError::Refused`](super::sasl::AuthError::Refused) with the broker's message, a
    /// mechanism the broker does not offer names those it offers. Neither is worth retrying
    /// with the same credentials.
    ///
    /// The mechanism's first message (an OAUTHBEARER token can be kilobytes) is written at the
    /// end of the buffer given to [`Client::poll_transmit`] and copied into the request before
    /// it: a buffer too short for both is `BufferTooSmall` with the length that holds them, and
    /// the step can be taken again with it.
    #[cfg(feature = "sasl")]
    #[must_use]
    pub fn with_sasl(mut self, credentials: super::sasl::Credentials<'a>) -> Self {
        let mut auth = super::sasl::Auth::new(super::sasl::SaslClient::new(credentials));
        if matches!(self.hello.state, HelloState::Off) {
            auth.step = super::sasl::Step::HandshakeDue;
        }
        self.auth = Some(auth);
        self
    }

    /// Authenticates again on this connection (KIP-368), with `credentials` (for SCRAM, with a
    /// fresh nonce), before the broker's session lifetime ends ([`Client::reauthenticate_at`]):
    /// the SaslHandshake and the mechanism's requests wait in [`Client::poll_transmit`], and
    /// until the broker accepted the credentials again [`Client::send`] is refused, as Kafka's
    /// clients hold their requests. Requests in flight stay in flight, and their responses come
    /// from [`Client::receive`] as before.
    ///
    /// # Errors
    ///
    /// [`SessionError::NotNegotiated`] for a client that never authenticated, or whose
    /// authentication is under way.
    #[cfg(feature = "sasl")]
    pub fn reauthenticate(
        &mut self,
        credentials: super::sasl::Credentials<'a>,
    ) -> Result<(), SessionError> {
        match &mut self.auth {
            Some(auth) if auth.step == super::sasl::Step::Done => {
                auth.again(super::sasl::SaslClient::new(credentials));
                Ok(())
            }
            _ => Err(SessionError::NotNegotiated),
        }
    }

    /// When to authenticate again, on the session's clock ([`Client::handle_timeout`]): nine
    /// tenths of the broker's session lifetime after it accepted the credentials, as Kafka's
    /// clients do it between 85 and 95 %. `None` when the broker set no lifetime (or before
    /// authentication).
    #[cfg(feature = "sasl")]
    #[must_use]
    pub fn reauthenticate_at(&self) -> Option<u32> {
        let auth = self.auth.as_ref()?;
        let lifetime = u64::try_from(self.session_lifetime_ms()?).ok()?;
        // Within the clock's range ahead (it wraps at 2^32 ms, about 49 days).
        let wait =
            u32::try_from(lifetime.saturating_mul(9) / 10).unwrap_or(i32::MAX.unsigned_abs());
        Some(
            auth.authenticated_at
                .wrapping_add(wait.min(i32::MAX.unsigned_abs())),
        )
    }

    /// The broker's `session_lifetime_ms` from the last SaslAuthenticate response
    /// (SaslAuthenticate v1 and later; KIP-368): the connection is closed that long after the
    /// authentication unless the client authenticates again. `None` before authentication, or
    /// when the broker sets no lifetime.
    #[cfg(feature = "sasl")]
    #[must_use]
    pub fn session_lifetime_ms(&self) -> Option<i64> {
        self.auth
            .as_ref()
            .filter(|a| matches!(a.step, super::sasl::Step::Done))
            .map(|a| a.lifetime_ms)
            .filter(|&ms| ms > 0)
    }

    /// A client that starts with the ApiVersions exchange at the highest version this build
    /// speaks, naming itself `kwire` at this crate's version ([`Client::with_software`]
    /// changes that).
    #[cfg(feature = "ApiVersions")]
    #[must_use]
    pub fn negotiating(client_id: Option<&'a str>) -> Self {
        let mut client = Self::new(client_id);
        client.hello.state = HelloState::Due(crate::api::api_versions_request_version());
        client
    }

    /// The client software's name and version that the ApiVersions request (v3 and later)
    /// tells the broker, which shows them in its metrics. Kafka accepts letters, digits, `-`
    /// and `.`, starting and ending with a letter or digit.
    #[cfg(feature = "ApiVersions")]
    #[must_use]
    pub fn with_software(mut self, name: &'a str, version: &'a str) -> Self {
        self.hello.software = (name, version);
        self
    }

    /// Asks ApiVersions at `version` first instead of at the highest version this build
    /// speaks: a firmware that knows its brokers skips a retry. A version this build does not
    /// speak is refused when the request is encoded.
    #[cfg(feature = "ApiVersions")]
    #[must_use]
    pub fn with_api_versions_version(mut self, version: i16) -> Self {
        if let HelloState::Due(_) = self.hello.state {
            self.hello.state = HelloState::Due(version);
        }
        self
    }

    /// Gives every request sent from then on a deadline: `timeout_ms` milliseconds (at most
    /// `i32::MAX`, about 24 days; 0 is no timeout) after the session's clock when it is sent.
    /// The session has no clock of its own: the caller sets it with [`Client::handle_timeout`],
    /// which also says which request expired, and [`Client::poll_timeout`] says when to call
    /// it next (the model of quinn-proto's `poll_timeout`/`handle_timeout`). The clock is a
    /// millisecond count that may wrap, as a device's tick counter does: deadlines are compared
    /// across the wrap.
    ///
    /// ```
    /// use kwire::messages::HeartbeatRequest;
    /// use kwire::session::Client;
    ///
    /// let mut client: Client<'_, 4> = Client::new(None).with_request_timeout(500);
    /// let mut out = [0u8; 64];
    /// assert_eq!(client.handle_timeout(u32::MAX - 99), None); // 100 ms before the wrap
    /// let sent = client.send_at(&HeartbeatRequest::default(), 4, &mut out)?;
    /// assert_eq!(client.poll_timeout(), Some(400));
    /// assert_eq!(client.handle_timeout(399), None);
    /// let expired = client.handle_timeout(400).expect("past its deadline");
    /// assert_eq!(expired.correlation_id, sent.correlation_id);
    /// # Ok::<(), kwire::session::SessionError>(())
    /// ```
    #[must_use]
    pub fn with_request_timeout(mut self, timeout_ms: u32) -> Self {
        self.timeout = (timeout_ms > 0).then(|| timeout_ms.min(i32::MAX.unsigned_abs()));
        self
    }

    /// The timeout [`Client::with_request_timeout`] set, in milliseconds.
    #[must_use]
    pub fn request_timeout(&self) -> Option<u32> {
        self.timeout
    }

    /// Fits the answers to requests sent from then on in a receive buffer that holds response
    /// frames of `max_frame` bytes after the size prefix ([`FrameBuffer::max_frame`]): a
    /// request that bounds its answer's data and asks for more than `max_frame` less
    /// [`RESPONSE_OVERHEAD`] is sent asking for that much (see
    /// [`Body::fit_response`] and [sizing the receive buffer](Client#sizing-the-receive-buffer)).
    /// A client without it sends every request as it is given.
    ///
    /// ```
    /// use kwire::frame::decode_request;
    /// use kwire::messages::FetchRequest;
    /// use kwire::session::{Client, FrameBuffer};
    /// use kwire::Request;
    ///
    /// let mut storage = vec![0u8; 64 << 10];
    /// let rx = FrameBuffer::new(&mut storage[..]);
    /// let mut client: Client<'_, 4> = Client::new(None).with_max_response(rx.max_frame());
    /// let mut out = [0u8; 128];
    /// // A Fetch at its default `MaxBytes`, 2 GiB.
    /// let sent = client.send_at(&FetchRequest::default(), 17, &mut out)?;
    /// let (_, body) = decode_request(&out[..sent.len])?;
    /// let Request::Fetch(fetch) = body else { unreachable!() };
    /// assert_eq!(fetch.max_bytes, (64 << 10) - 4 - 512);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[must_use]
    pub fn with_max_response(mut self, max_frame: usize) -> Self {
        self.max_response = Some(max_frame);
        self
    }

    /// The largest response frame [`Client::with_max_response`] set.
    #[must_use]
    pub fn max_response(&self) -> Option<usize> {
        self.max_response
    }

    /// Sets the session's clock to `now` (milliseconds from any origin the caller keeps, going
    /// forward, wrapping at `u32::MAX`) and returns the oldest request in flight whose deadline
    /// has passed, if any, with the tag it was sent with ([`Client::send_tagged`]; 0 for
    /// none). The request stays in flight: Kafka answers in order, so a late response still
    /// comes before the later ones, and a client that gives up on a request closes the
    /// connection, as Kafka's own clients do ([`Client::pending`] then lists what went
    /// unanswered).
    pub fn handle_timeout(&mut self, now: u32) -> Option<Pending<u64>> {
        self.now = now;
        let oldest = self.first_timed()?;
        let deadline = oldest.tag.deadline?;
        // Passed when `now` is at or after it, across a wrap of the clock.
        (now.wrapping_sub(deadline) < 1 << 31).then(|| Tags::caller(oldest))
    }

    /// The earliest deadline of the requests in flight, on the session's clock: when to call
    /// [`Client::handle_timeout`] next. `None` when no request in flight has one.
    #[must_use]
    pub fn poll_timeout(&self) -> Option<u32> {
        self.first_timed()?.tag.deadline
    }

    /// The oldest request in flight with a deadline: the one whose deadline comes first, since
    /// requests are sent in order, on a clock that goes forward, with one timeout.
    fn first_timed(&self) -> Option<&Pending<Tags>> {
        self.in_flight.iter().find(|p| p.tag.deadline.is_some())
    }

    /// Starts the correlation ids at `id` instead of 0 (a negative `id` starts at 0).
    #[must_use]
    pub fn with_correlation_id(mut self, id: i32) -> Self {
        self.next_correlation_id = id.max(0);
        self
    }

    /// The bytes the session itself must send: the ApiVersions request of a negotiating client,
    /// at its start and after [`Event::Retry`]. Returns the frame's length at the start of
    /// `out`, or `None` when there is nothing to send.
    ///
    /// # Errors
    ///
    /// As [`Client::send_at`].
    pub fn poll_transmit(&mut self, out: &mut [u8]) -> Result<Option<usize>, SessionError> {
        #[cfg(feature = "ApiVersions")]
        if let HelloState::Due(version) = self.hello.state {
            let (name, software_version) = self.hello.software;
            let body = crate::messages::ApiVersionsRequest::default()
                .with_client_software_name(name)
                .with_client_software_version(software_version);
            // The software's name and version are hints, which versions before 3 leave out.
            let sent = self.encode(&body, version, out, Drops::Allowed, 0)?;
            self.hello.state = HelloState::Asked {
                version,
                correlation_id: sent.correlation_id,
            };
            return Ok(Some(sent.len));
        }
        #[cfg(feature = "sasl")]
        return self.transmit_auth(out);
        #[cfg(not(feature = "sasl"))]
        {
            let _ = out;
            Ok(None)
        }
    }

    /// Encodes the authentication's next request into `out`, if one is due: its length.
    #[cfg(feature = "sasl")]
    fn transmit_auth(&mut self, out: &mut [u8]) -> Result<Option<usize>, SessionError> {
        use super::sasl::{AuthError, Step};
        use crate::messages::{SaslAuthenticateRequest, SaslHandshakeRequest};

        let Some(mut auth) = self.auth.take() else {
            return Ok(None);
        };
        let exchange = |e| SessionError::Auth(AuthError::Exchange(e));
        let handshake = auth.step == Step::HandshakeDue;
        let result = match auth.step {
            // After a SaslHandshake v0: the mechanism's message alone, in a frame of its own.
            Step::FirstDue | Step::NextDue if auth.raw => Some(self.send_raw_token(out, |to| {
                if auth.step == Step::NextDue {
                    let to = to
                        .get_mut(..auth.next.len())
                        .ok_or(super::sasl::SaslError::BufferTooSmall {
                            needed: auth.next.len(),
                        })
                        .map_err(exchange)?;
                    crate::session::buffer::copy(to, &auth.next);
                    Ok(auth.next.len())
                } else {
                    auth.sasl.start(to).map_err(exchange)
                }
            })),
            Step::HandshakeDue => {
                Some(self.auth_version(ApiKey::SASL_HANDSHAKE, 1).and_then(|v| {
                    let body =
                        SaslHandshakeRequest::default().with_mechanism(auth.sasl.mechanism());
                    self.send_at(&body, v, out)
                }))
            }
            Step::NextDue => Some(
                self.auth_version(ApiKey::SASL_AUTHENTICATE, 0)
                    .and_then(|v| {
                        let body = SaslAuthenticateRequest::default().with_auth_bytes(&auth.next);
                        self.send_at(&body, v, out)
                    }),
            ),
            // The mechanism's first message is written at the end of `out`, and the request
            // that carries it before it; a buffer too short for both leaves the step to take.
            Step::FirstDue => Some(
                self.auth_version(ApiKey::SASL_AUTHENTICATE, 0)
                    .and_then(|v| {
                        let before = auth.sasl.clone();
                        let (available, client_id) = (out.len(), self.client_id);
                        let too_small = |n| {
                            SessionError::Encode(EncodeError::BufferTooSmall {
                                required: token_frame_len(client_id, n, v),
                                available,
                            })
                        };
                        let sent = match auth.sasl.start(out) {
                            // The guard keeps `copy_within`'s bounds check, a panic path, out.
                            Ok(n) if n <= out.len() => {
                                let at = out.len().saturating_sub(n);
                                out.copy_within(..n, at);
                                let (head, tail) = out.split_at_mut(at);
                                let body = SaslAuthenticateRequest::default().with_auth_bytes(tail);
                                match self.send_at(&body, v, head) {
                                    Err(SessionError::Encode(EncodeError::BufferTooSmall {
                                        ..
                                    })) => Err(too_small(n)),
                                    sent => sent,
                                }
                            }
                            Ok(n) => Err(too_small(n)),
                            Err(super::sasl::SaslError::BufferTooSmall { needed }) => {
                                Err(too_small(needed))
                            }
                            Err(e) => Err(exchange(e)),
                        };
                        if sent.is_err() {
                            auth.sasl = before;
                        }
                        sent
                    }),
            ),
            // Nothing of the session's to send: the versions are not known yet, or an answer is
            // awaited, or the exchange is over.
            Step::Waiting | Step::Sent { .. } | Step::Done | Step::Failed => None,
        };
        if let Some(Ok(sent)) = result {
            auth.step = Step::Sent {
                correlation_id: sent.correlation_id,
                handshake,
            };
        }
        self.auth = Some(auth);
        result.transpose().map(|sent| sent.map(|s| s.len))
    }

    /// Sends a raw SASL token (after a SaslHandshake v0): a size prefix and the bytes `write`
    /// puts after it, nothing else. The session awaits its answer as a request's, under a
    /// correlation id of its own that no frame carries.
    #[cfg(feature = "sasl")]
    fn send_raw_token(
        &mut self,
        out: &mut [u8],
        write: impl FnOnce(&mut [u8]) -> Result<usize, SessionError>,
    ) -> Result<Sent, SessionError> {
        let available = out.len();
        let Some((prefix, rest)) = out.split_first_chunk_mut::<{ frame::SIZE_LEN }>() else {
            return Err(SessionError::Encode(EncodeError::BufferTooSmall {
                required: frame::SIZE_LEN,
                available,
            }));
        };
        let n = match write(rest) {
            Err(SessionError::Auth(super::sasl::AuthError::Exchange(
                super::sasl::SaslError::BufferTooSmall { needed },
            ))) => {
                return Err(SessionError::Encode(EncodeError::BufferTooSmall {
                    required: needed.saturating_add(frame::SIZE_LEN),
                    available,
                }));
            }
            n => n?,
        };
        let size = i32::try_from(n).map_err(|_| {
            SessionError::Encode(EncodeError::BufferTooSmall {
                required: n,
                available,
            })
        })?;
        *prefix = size.to_be_bytes();
        let correlation_id = self.next_id(true)?;
        let sent = Sent {
            len: n.saturating_add(frame::SIZE_LEN),
            correlation_id,
            api_key: ApiKey::SASL_AUTHENTICATE,
            version: 0,
            answered: true,
        };
        self.sent(sent, 0)
    }

    /// The version to send the authentication's request for `key` at: the highest both sides
    /// speak once the broker's versions are known, `fallback` before (a client that does not
    /// negotiate), within this build's versions either way.
    #[cfg(feature = "sasl")]
    fn auth_version(&self, key: ApiKey, fallback: i16) -> Result<i16, SessionError> {
        if matches!(self.hello.state, HelloState::Ready) {
            return common_range(self.advertised(key), key.built_versions())
                .map(|r| r.max)
                .map_err(|reason| SessionError::Unsupported {
                    api_key: key,
                    reason,
                });
        }
        // Not `clamp`, whose check of its bounds is a panic path.
        let built = key.built_versions();
        Ok(fallback.max(built.min).min(built.max))
    }

    /// Whether the broker's versions are known.
    #[must_use]
    pub fn is_ready(&self) -> bool {
        #[cfg(feature = "sasl")]
        if self
            .auth
            .as_ref()
            .is_some_and(|a| a.step != super::sasl::Step::Done)
        {
            return false;
        }
        #[cfg(feature = "ApiVersions")]
        return matches!(self.hello.state, HelloState::Ready);
        #[cfg(not(feature = "ApiVersions"))]
        false
    }

    /// The version to send `key` at: the highest both the broker and this build speak.
    ///
    /// # Errors
    ///
    /// [`SessionError::NotNegotiated`] before [`Event::Ready`];
    /// [`SessionError::Unsupported`] when no version is common.
    #[inline]
    pub fn version(&self, key: ApiKey) -> Result<i16, SessionError> {
        self.common(key).map(|r| r.max)
    }

    /// The versions of `key` both the broker and this build speak.
    ///
    /// Inline, so that for a key the program names and the build pins, this build's range is
    /// a constant, and the API table is not linked for it.
    ///
    /// # Errors
    ///
    /// As [`Client::version`].
    #[inline]
    pub fn common(&self, key: ApiKey) -> Result<VersionRange, SessionError> {
        if !self.is_ready() {
            return Err(SessionError::NotNegotiated);
        }
        common_range(self.advertised(key), key.built_versions()).map_err(|reason| {
            SessionError::Unsupported {
                api_key: key,
                reason,
            }
        })
    }

    /// The versions of `key` the broker advertised (`None` before [`Event::Ready`], and for a
    /// key it did not advertise).
    #[must_use]
    pub fn advertised(&self, key: ApiKey) -> Option<VersionRange> {
        #[cfg(feature = "ApiVersions")]
        return self.hello.versions().and_then(|v| v.advertised(key));
        #[cfg(not(feature = "ApiVersions"))]
        {
            let _ = key;
            None
        }
    }

    /// Encodes a request for `body` at the version negotiated for its API into `out`, and
    /// remembers it until its response comes.
    ///
    /// # Errors
    ///
    /// As [`Client::version`] and [`Client::send_at`].
    pub fn send<B: Body>(&mut self, body: &B, out: &mut [u8]) -> Result<Sent, SessionError> {
        self.send_tagged(body, 0, out)
    }

    /// [`Client::send`], with a tag the caller chooses (an index into its own table of
    /// requests, the number of records a Produce carries), which comes back with the answer
    /// ([`Answer::tag`]), with the request if its deadline passes
    /// ([`Client::handle_timeout`]), and with the requests left unanswered
    /// ([`Client::pending`]). A request sent with [`Client::send`] has the tag 0.
    ///
    /// ```
    /// use kwire::messages::HeartbeatRequest;
    /// use kwire::session::{Client, Event, FrameBuffer};
    /// # use kwire::session::server;
    /// # use kwire::messages::HeartbeatResponse;
    ///
    /// let mut client: Client<'_, 4> = Client::new(None);
    /// let mut out = [0u8; 64];
    /// let mut wire = Vec::new();
    /// for batch in [3, 5] {
    ///     let sent = client.send_at_tagged(&HeartbeatRequest::default(), 4, batch, &mut out)?;
    ///     wire.extend_from_slice(&out[..sent.len]);
    /// }
    /// # let mut storage = [0u8; 256];
    /// # let mut requests = FrameBuffer::new(&mut storage[..]);
    /// # requests.push(&wire);
    /// # let mut answers = Vec::new();
    /// # while let Some(request) = server::next_request(&mut requests).unwrap() {
    /// #     let n = server::respond(&request.info, &HeartbeatResponse::default(), &mut out).unwrap();
    /// #     answers.extend_from_slice(&out[..n]);
    /// # }
    /// // ... the broker answers both ...
    /// let mut storage = [0u8; 256];
    /// let mut rx = FrameBuffer::new(&mut storage[..]);
    /// rx.push(&answers);
    /// let mut acknowledged = 0;
    /// while let Some(Event::Response(answer)) = client.receive(&mut rx)? {
    ///     acknowledged += answer.tag();
    /// }
    /// assert_eq!(acknowledged, 8);
    /// # Ok::<(), kwire::session::SessionError>(())
    /// ```
    ///
    /// # Errors
    ///
    /// As [`Client::send`].
    pub fn send_tagged<B: Body>(
        &mut self,
        body: &B,
        tag: u64,
        out: &mut [u8],
    ) -> Result<Sent, SessionError> {
        let version = self.version(body.body_api_key())?;
        self.send_at_tagged(body, version, tag, out)
    }

    /// Encodes a request for `body` at `version` into `out`, and remembers it until its
    /// response comes. A value the version cannot carry is refused, as
    /// [`frame::encode_request`] refuses it. Nothing is remembered when it fails.
    ///
    /// # Errors
    ///
    /// [`SessionError::TooManyInFlight`] when `N` requests wait for their responses;
    /// [`SessionError::CorrelationIdInUse`] when the next id, after wrapping, is still in
    /// flight; [`SessionError::Encode`].
    pub fn send_at<B: Body>(
        &mut self,
        body: &B,
        version: i16,
        out: &mut [u8],
    ) -> Result<Sent, SessionError> {
        self.encode(body, version, out, Drops::Refused, 0)
    }

    /// [`Client::send_at`], with a tag the caller chooses, as [`Client::send_tagged`] has it.
    ///
    /// # Errors
    ///
    /// As [`Client::send_at`].
    pub fn send_at_tagged<B: Body>(
        &mut self,
        body: &B,
        version: i16,
        tag: u64,
        out: &mut [u8],
    ) -> Result<Sent, SessionError> {
        self.encode(body, version, out, Drops::Refused, tag)
    }

    /// Encodes the request, leaving out ignorable values the version lacks only if `drops`
    /// allows it, and remembers it with the caller's `tag`, as [`frame::encode_request`] (or
    /// [`frame::encode_request_lenient`]) encodes it. Inline and thin: past what depends on the
    /// body's type (its key, whether it is answered, the header version), the body goes on
    /// behind a vtable, so that one copy of the encoder serves every body.
    #[inline]
    fn encode<B: Body>(
        &mut self,
        body: &B,
        version: i16,
        out: &mut [u8],
        drops: Drops,
        tag: u64,
    ) -> Result<Sent, SessionError> {
        let api_key = body.body_api_key();
        let request = Request {
            api_key,
            version,
            header_version: request_header_version(api_key, version),
            answered: body.expects_response(),
            drops,
        };
        // For a body that cannot be lowered, `fitted` is `None` at compile time.
        let fitted = match self.max_response {
            Some(max_response) => body.fit_response(version, max_bytes(max_response)),
            None => None,
        };
        let body: &dyn ErasedBody = match &fitted {
            Some(fitted) => fitted,
            None => body,
        };
        self.encode_erased(body, request, out, tag)
    }

    /// [`Client::encode`], for every body. The caller's `tag` comes apart from the `Request`,
    /// which then fits in registers (a firmware's calls grew by a hundred bytes with it inside).
    #[inline(never)]
    fn encode_erased(
        &mut self,
        body: &dyn ErasedBody,
        request: Request,
        out: &mut [u8],
        tag: u64,
    ) -> Result<Sent, SessionError> {
        let Request {
            api_key,
            version,
            header_version: hv,
            answered,
            drops,
        } = request;
        let correlation_id = self.next_id(answered)?;
        let header =
            RequestHeader::new(api_key, version, correlation_id).with_client_id(self.client_id);
        let len = frame::encode_frame(&header, hv, body, version, out, drops)?;
        let sent = Sent {
            len,
            correlation_id,
            api_key,
            version,
            answered,
        };
        self.sent(sent, tag)
    }

    /// The next correlation id, once the request can be remembered.
    fn next_id(&self, answered: bool) -> Result<i32, SessionError> {
        let id = self.next_correlation_id;
        if answered {
            self.in_flight.check(id)?;
        } else if self.in_flight.contains(id) {
            return Err(SessionError::CorrelationIdInUse(id));
        }
        Ok(id)
    }

    /// Remembers a request encoded, with the caller's `tag`, its id checked by
    /// [`Client::next_id`].
    fn sent(&mut self, sent: Sent, tag: u64) -> Result<Sent, SessionError> {
        if sent.answered {
            let deadline = self.timeout.map(|t| self.now.wrapping_add(t));
            self.in_flight.push_checked(Pending {
                correlation_id: sent.correlation_id,
                api_key: sent.api_key,
                version: sent.version,
                tag: Tags {
                    deadline,
                    caller: Tag::new(tag),
                },
            })?;
        }
        self.next_correlation_id = sent.correlation_id.checked_add(1).unwrap_or(0);
        Ok(sent)
    }

    /// The next response in `rx`, matched to its request, or `None` until more bytes arrive.
    /// The frame read last is released first.
    ///
    /// The event borrows `rx`, so a loop that reads until an event comes reads first and asks
    /// after: `while rx.missing()? > 0 { /* read into rx.spare(), then rx.filled(n) */ }`, then
    /// `receive` (a whole frame is there: it answers `Some`, or an error).
    ///
    /// # Errors
    ///
    /// [`SessionError::Framing`] for a stream that holds no frame where one must start (every
    /// later call fails alike); [`SessionError::NoRequest`] and [`SessionError::OutOfOrder`]
    /// for a response that is not the one due (its frame is skipped); [`SessionError::Decode`]
    /// for a frame too short to hold a correlation id, or an ApiVersions answer that does not
    /// decode; `SessionError::Negotiate` when the ApiVersions exchange failed.
    pub fn receive<'r, S: AsRef<[u8]> + AsMut<[u8]>>(
        &mut self,
        rx: &'r mut FrameBuffer<S>,
    ) -> Result<Option<Event<'r>>, SessionError> {
        if rx.advance()?.is_none() {
            return Ok(None);
        }
        let rx: &'r FrameBuffer<S> = rx;
        let frame = rx.current();
        // After a SaslHandshake v0, the frame answering a raw token is a raw token: no header.
        #[cfg(feature = "sasl")]
        if let Some(auth) = &mut self.auth
            && auth.raw
            && let super::sasl::Step::Sent {
                correlation_id,
                handshake: false,
            } = auth.step
        {
            self.in_flight.answer(correlation_id)?;
            let token = frame.get(frame::SIZE_LEN..).unwrap_or_default();
            let done = auth.answered_raw(token, self.now)?;
            return Ok(Some(if done {
                Event::Ready
            } else {
                Event::Authenticating
            }));
        }
        // A whole frame, its size prefix checked: as `frame::response_correlation_id` reads it,
        // without checking the prefix again.
        let correlation_id = match frame.get(frame::SIZE_LEN..).and_then(<[u8]>::first_chunk) {
            Some(id) => i32::from_be_bytes(*id),
            None => return Err(no_correlation_id(frame.len()).into()),
        };
        let answered = self.in_flight.answer(correlation_id)?;
        let (request, tag) = (answered.untagged(), answered.tag.caller);
        #[cfg(feature = "ApiVersions")]
        if let HelloState::Asked {
            version,
            correlation_id: hello,
        } = self.hello.state
            && hello == correlation_id
        {
            let event = self.hello.answered(frame, version)?;
            #[cfg(feature = "sasl")]
            if let (Event::Ready, Some(auth)) = (&event, &mut self.auth) {
                auth.step = super::sasl::Step::HandshakeDue;
                return Ok(Some(Event::Authenticating));
            }
            return Ok(Some(event));
        }
        #[cfg(feature = "sasl")]
        if let Some(auth) = &mut self.auth
            && let super::sasl::Step::Sent {
                correlation_id: id,
                handshake,
            } = auth.step
            && id == correlation_id
        {
            let done = auth.answered(frame, request.version, handshake, self.now)?;
            return Ok(Some(if done {
                Event::Ready
            } else {
                Event::Authenticating
            }));
        }
        Ok(Some(Event::Response(Answer {
            request,
            tag,
            frame,
        })))
    }

    /// How many requests wait for their responses.
    #[must_use]
    pub fn in_flight(&self) -> usize {
        self.in_flight.len()
    }

    /// The requests that wait for their responses, oldest first, each with the tag it was sent
    /// with ([`Client::send_tagged`]; 0 for none): after a connection failed, the requests to
    /// send again.
    pub fn pending(&self) -> impl Iterator<Item = Pending<u64>> {
        self.in_flight.iter().map(Tags::caller)
    }

    /// At the end of the stream (the broker closed the connection, or the client is about to):
    /// `Ok` when no frame was cut off and no request is left unanswered.
    ///
    /// # Errors
    ///
    /// [`SessionError::ClosedMidFrame`]; [`SessionError::Unanswered`].
    pub fn finish<S: AsRef<[u8]> + AsMut<[u8]>>(
        &self,
        rx: &FrameBuffer<S>,
    ) -> Result<(), SessionError> {
        rx.finish()?;
        self.in_flight.finish()
    }
}

/// The most bytes of a buffer a SaslAuthenticate request at `version` carrying a message of `n`
/// bytes takes as the session writes it: the message at the buffer's end, and the request, size
/// prefix included, copying it before it.
#[cfg(feature = "sasl")]
fn token_frame_len(client_id: Option<&str>, n: usize, version: i16) -> usize {
    let header =
        RequestHeader::new(ApiKey::SASL_AUTHENTICATE, version, 0).with_client_id(client_id);
    let empty = crate::messages::SaslAuthenticateRequest::default();
    // The frame without the message, the message twice, and room for its length to grow
    // from one byte to five.
    frame::request_len(&header, &empty)
        .unwrap_or(0)
        .saturating_add(n.saturating_mul(2))
        .saturating_add(4)
}

/// The bytes a response takes besides the data a request's `MaxBytes` bounds: its headers, and
/// the fields around the records. 512, as librdkafka asks `receive.message.max.bytes` to be at
/// least `fetch.max.bytes` + 512; a Fetch of many partitions takes more (see
/// [sizing the receive buffer](Client#sizing-the-receive-buffer)).
pub const RESPONSE_OVERHEAD: usize = 512;

/// The `MaxBytes` whose answer fits in a response frame of `max_response` bytes.
fn max_bytes(max_response: usize) -> i32 {
    i32::try_from(max_response.saturating_sub(RESPONSE_OVERHEAD)).unwrap_or(i32::MAX)
}

/// `Truncated` for a whole response frame of `len` bytes, too short to hold a correlation id,
/// as `frame::response_correlation_id` reports it.
#[cold]
fn no_correlation_id(len: usize) -> DecodeError {
    let needed = (frame::SIZE_LEN + 4).saturating_sub(len);
    DecodeError::new(
        frame::SIZE_LEN,
        DecodeErrorKind::Truncated { needed },
        "ResponseHeader.CorrelationId",
    )
}

/// What [`Client::encode`] reads of a request before its body is encoded.
#[derive(Clone, Copy)]
struct Request {
    api_key: ApiKey,
    version: i16,
    header_version: i16,
    answered: bool,
    drops: Drops,
}

/// What a [`Client`] keeps with a request in flight.
#[derive(Debug, Clone, Copy)]
struct Tags {
    /// When its response is due, on the session's clock, if the client has a request timeout.
    deadline: Option<u32>,
    /// The caller's tag ([`Client::send_tagged`]).
    caller: Tag,
}

/// A caller's tag, kept as two halves, low first: a `u64` would align the client (and each
/// [`Answer`]) to 8 bytes, and a firmware that zeroes such a client links a second `memclr`
/// (the embedded producer's `.text` grew by 160 bytes with it).
#[derive(Debug, Clone, Copy)]
struct Tag([u32; 2]);

impl Tag {
    /// The halves of `tag`.
    fn new(tag: u64) -> Self {
        let [a, b, c, d, e, f, g, h] = tag.to_le_bytes();
        Self([
            u32::from_le_bytes([a, b, c, d]),
            u32::from_le_bytes([e, f, g, h]),
        ])
    }

    /// The tag whole.
    fn get(self) -> u64 {
        let [low, high] = self.0;
        (u64::from(high) << 32) | u64::from(low)
    }
}

impl Tags {
    /// The request with the caller's tag alone.
    fn caller(p: &Pending<Self>) -> Pending<u64> {
        Pending {
            correlation_id: p.correlation_id,
            api_key: p.api_key,
            version: p.version,
            tag: p.tag.caller.get(),
        }
    }
}

/// The encoding of a request body, as a trait object: the three calls the session's encoder
/// makes, and no more (an `Encode` object would link its provided methods too).
trait ErasedBody {
    fn body_len(&self, version: i16) -> Result<usize, EncodeError>;
    fn write_body(&self, w: &mut Writer<'_>, version: i16);
    fn dropped_value(&self, version: i16) -> Option<DroppedField>;
}

impl<B: Encode> ErasedBody for B {
    fn body_len(&self, version: i16) -> Result<usize, EncodeError> {
        Encode::encoded_len(self, version)
    }

    fn write_body(&self, w: &mut Writer<'_>, version: i16) {
        Encode::write(self, w, version);
    }

    fn dropped_value(&self, version: i16) -> Option<DroppedField> {
        Encode::dropped_field(self, version)
    }
}

/// The frame encoder's view of an erased body.
impl Encode for dyn ErasedBody + '_ {
    fn encoded_len(&self, version: i16) -> Result<usize, EncodeError> {
        self.body_len(version)
    }

    fn write(&self, w: &mut Writer<'_>, version: i16) {
        self.write_body(w, version);
    }

    fn dropped_field(&self, version: i16) -> Option<DroppedField> {
        self.dropped_value(version)
    }
}

/// The ApiVersions exchange of a [`Client`].
#[cfg(feature = "ApiVersions")]
#[derive(Debug, Clone)]
struct Hello<'a> {
    state: HelloState,
    /// The client software's name and version.
    software: (&'a str, &'a str),
    /// The broker's versions: they count once the state is `Ready`.
    broker: crate::api::VersionTable,
}

#[cfg(feature = "ApiVersions")]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum HelloState {
    /// The client does not negotiate.
    Off,
    /// An ApiVersions request at this version is to be sent.
    Due(i16),
    /// Sent, waiting for the answer.
    Asked { version: i16, correlation_id: i32 },
    /// The broker's versions are known.
    Ready,
    /// The exchange failed.
    Failed,
}

#[cfg(feature = "ApiVersions")]
impl Hello<'_> {
    fn off() -> Self {
        Self {
            state: HelloState::Off,
            software: ("kwire", env!("CARGO_PKG_VERSION")),
            broker: crate::api::VersionTable::default(),
        }
    }

    /// The broker's versions, once they are known.
    fn versions(&self) -> Option<&crate::api::VersionTable> {
        matches!(self.state, HelloState::Ready).then_some(&self.broker)
    }

    /// Reads the answer to the ApiVersions request sent at `sent` into the broker's versions,
    /// checked as `VersionTable::try_from_response` checks them: ready, or an ApiVersions
    /// request to send again, or the exchange failed.
    fn answered(&mut self, frame: &[u8], sent: i16) -> Result<Event<'static>, SessionError> {
        self.state = HelloState::Failed;
        let reply = crate::api::decode_api_versions(frame, sent)?;
        let Err(e) = self.broker.read_response(&reply.body) else {
            self.state = HelloState::Ready;
            return Ok(Event::Ready);
        };
        match e.retry_version(sent) {
            Some(version) => {
                self.state = HelloState::Due(version);
                Ok(Event::Retry { version })
            }
            None => Err(SessionError::Negotiate(e)),
        }
    }
}
