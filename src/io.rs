//! A blocking connection to a broker over any byte stream (feature `std`): the session layer
//! with the socket loop written once.
//!
//! [`Connection`] owns a stream (`TcpStream`, a TLS stream, anything `Read + Write`), a
//! [`Client`] and its two buffers. [`Connection::open`] negotiates versions (the ApiVersions
//! fallback of an old broker included), [`Connection::call`] sends a request at the version both
//! sides speak and returns its matched answer, and [`Connection::send`] with
//! [`Connection::receive`] pipeline several requests on the connection. The buffers are the
//! connection's own (`Vec<u8>`, the send buffer grown to what a request needs) or the caller's
//! ([`Connection::open_with`]).
//!
//! The receive buffer holds the largest answer the connection accepts: a larger one ends the
//! connection (a `SessionError::Framing`). The connection tells its client the buffer's size
//! ([`Client::with_max_response`]), and the client lowers the `MaxBytes` of each Fetch (v3 and
//! later), ShareFetch and FetchSnapshot so that the answer fits: at most the buffer's frame
//! size less [`RESPONSE_OVERHEAD`](crate::session::RESPONSE_OVERHEAD) (512 bytes). A broker
//! still returns the first record batch of a fetch whole even when it is larger than
//! `MaxBytes`, so a caller's buffer ([`Connection::open_with`]) must also hold the largest
//! single batch of the topics fetched (the broker's `message.max.bytes`, about 1 MiB by
//! default) and the overhead; the connection's own holds 64 MiB ([`DEFAULT_MAX_FRAME`]).
//!
//! Timeouts are the stream's own: a read that times out (`set_read_timeout` on a `TcpStream`)
//! comes back to the connection, which reports [`Error::TimedOut`] once the oldest request has
//! waited longer than the client's request timeout ([`Client::with_request_timeout`]), and the
//! read error itself when the client has none. [`connect`] sets the socket's timeouts from the
//! client's, the read timeout an eighth of it (at most a second), so that an expired request
//! is reported within that much of its deadline. A broker that closes the connection,
//! announces a frame over the limit, answers a request it was not sent or sends garbage gets
//! an [`Error`], never a panic; one that stalls, an [`Error::TimedOut`] where the stream has a
//! read timeout.
//!
//! ```no_run
//! use kwire::io;
//! use kwire::messages::{MetadataRequest, MetadataResponse};
//! use kwire::session::Client;
//!
//! let client = Client::negotiating(Some("app")).with_request_timeout(30_000);
//! let mut broker: io::Connection<'_, _> = io::connect("127.0.0.1:9092", client)?;
//! let answer = broker.call(&MetadataRequest::default())?;
//! let metadata: MetadataResponse<'_> = answer.decode_as()?;
//! for b in metadata.brokers.iter() {
//!     println!("broker {} at {}:{}", b.node_id, b.host, b.port);
//! }
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

extern crate std;

// The system's random source makes its nonces: none on a WebAssembly page.
pub mod relay;
#[cfg(all(feature = "sasl", not(target_family = "wasm")))]
mod sasl;
#[cfg(feature = "tls")]
pub mod tls;

#[cfg(all(feature = "sasl", not(target_family = "wasm")))]
pub use sasl::{PASSWORD_VAR, SaslConfig};

use alloc::vec;
use alloc::vec::Vec;
use core::fmt;
use core::time::Duration;
use std::io::{ErrorKind, Read, Write};
use std::net::{TcpStream, ToSocketAddrs};
use std::time::Instant;

use crate::error::EncodeError;
use crate::frame::Body;
use crate::session::{Answer, Client, Event, FrameBuffer, Pending, Sent, SessionError};
use crate::wire::ApiKey;

/// The largest response frame a connection with its own buffers accepts, size prefix excluded:
/// 64 MiB, above Kafka's default `fetch.max.bytes` (55 MiB). The receive buffer is allocated
/// zeroed, so the system maps its pages only as frames fill them.
pub const DEFAULT_MAX_FRAME: usize = 64 << 20;

/// The send buffer a connection with its own buffers starts with; it grows to what a request
/// needs.
pub const FIRST_SEND_BUFFER: usize = 4 << 10;

/// The session's clock for a connection opened `elapsed` ago: the milliseconds since, wrapping
/// as the session's clock may ([`Client::handle_timeout`]).
#[must_use]
#[doc(hidden)]
pub fn clock(elapsed: Duration) -> u32 {
    let ms = elapsed.as_millis() & u128::from(u32::MAX);
    u32::try_from(ms).unwrap_or_default()
}

/// What can go wrong on a [`Connection`].
#[derive(Debug)]
#[non_exhaustive]
pub enum Error {
    /// The stream failed (a read that timed out with no request timeout set is one).
    Io(std::io::Error),
    /// The session refused a request or a frame: a response to no request, one out of order, a
    /// frame over the limit, the broker closing inside a frame or with requests unanswered, a
    /// failed negotiation, an encode that failed.
    Session(SessionError),
    /// The oldest request in flight waited past its deadline. Close the connection, as Kafka's
    /// clients do: its answer may still come, before the others'.
    TimedOut {
        /// The request, with the tag it was sent with ([`Connection::send_tagged`]; 0 for
        /// none).
        request: Pending<u64>,
    },
    /// [`Connection::call`] on a request that gets no response (a Produce with `acks` 0):
    /// [`Connection::send`] sends it. Nothing was sent.
    NoResponse {
        /// The request's API.
        api_key: ApiKey,
    },
    /// [`Connection::call`] while requests sent with [`Connection::send`] wait for their
    /// answers, which come first: [`Connection::receive`] them. Nothing was sent.
    Busy {
        /// How many requests wait.
        in_flight: usize,
    },
    /// [`Connection::receive`] with no request in flight: no answer can come.
    Idle,
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Io(e) => write!(f, "the connection failed: {e}"),
            Self::Session(e) => e.fmt(f),
            Self::TimedOut { request } => write!(
                f,
                "request {} ({:?} v{}) got no answer in time",
                request.correlation_id, request.api_key, request.version
            ),
            Self::NoResponse { api_key } => write!(
                f,
                "this {api_key:?} request gets no response: send it with Connection::send"
            ),
            Self::Busy { in_flight } => write!(
                f,
                "{in_flight} requests wait for their answers, which come first: receive them"
            ),
            Self::Idle => f.write_str("no request waits for an answer"),
        }
    }
}

impl core::error::Error for Error {
    fn source(&self) -> Option<&(dyn core::error::Error + 'static)> {
        match self {
            Self::Io(e) => Some(e),
            Self::Session(e) => Some(e),
            _ => None,
        }
    }
}

impl From<std::io::Error> for Error {
    fn from(e: std::io::Error) -> Self {
        Self::Io(e)
    }
}

impl From<SessionError> for Error {
    fn from(e: SessionError) -> Self {
        Self::Session(e)
    }
}

/// Storage for a connection's buffers: the connection's own `Vec<u8>`, whose send buffer
/// grows to what a request needs, or the caller's `&mut [u8]`, which stays as it is.
pub trait Storage: AsRef<[u8]> + AsMut<[u8]> + sealed::Sealed {
    /// Makes room for at least `len` bytes; `false` when the storage cannot grow.
    #[doc(hidden)]
    fn grow(&mut self, len: usize) -> bool;
}

mod sealed {
    pub trait Sealed {}
    impl Sealed for alloc::vec::Vec<u8> {}
    impl Sealed for &mut [u8] {}
}

impl Storage for Vec<u8> {
    fn grow(&mut self, len: usize) -> bool {
        if self.len() < len {
            // Doubling at least: a series of larger requests is encoded twice only a few times.
            self.resize(len.max(self.len().saturating_mul(2)), 0);
        }
        true
    }
}

impl Storage for &mut [u8] {
    fn grow(&mut self, len: usize) -> bool {
        self.len() >= len
    }
}

/// The checks [`Connection::call`] makes before it sends `body`: a request that gets no
/// response cannot be called, and a call waits for no answer but its own.
///
/// This and [`check_idle`], [`encode`], [`fit_responses`], [`ended`], [`answer`] and [`clock`]
/// are the I/O-free
/// parts of a connection, for a connection over another I/O model (`kwire-tokio`'s) to share;
/// they are hidden from the documentation, since a program calls the connections instead.
///
/// # Errors
///
/// [`Error::NoResponse`]; [`Error::Busy`] while requests are in flight.
#[doc(hidden)]
pub fn check_call<R: Body, const N: usize>(client: &Client<'_, N>, body: &R) -> Result<(), Error> {
    if !body.expects_response() {
        return Err(Error::NoResponse {
            api_key: body.body_api_key(),
        });
    }
    check_idle(client)
}

/// The check a connection makes before an exchange that waits for its own answers only (a
/// call, a re-authentication): no request is in flight.
///
/// # Errors
///
/// [`Error::Busy`] while requests are in flight.
#[doc(hidden)]
pub fn check_idle<const N: usize>(client: &Client<'_, N>) -> Result<(), Error> {
    match client.in_flight() {
        0 => Ok(()),
        in_flight => Err(Error::Busy { in_flight }),
    }
}

/// Encodes a request for `body` at `version` with the caller's `tag` into `tx` with the
/// session, storage that can grow grown to what the request needs: the frame's length at the
/// start of `tx`.
///
/// # Errors
///
/// [`Error::Session`] as [`Client::send_at_tagged`] refuses the request.
#[doc(hidden)]
pub fn encode<R: Body, B: Storage, const N: usize>(
    client: &mut Client<'_, N>,
    body: &R,
    version: i16,
    tag: u64,
    tx: &mut B,
) -> Result<Sent, Error> {
    match client.send_at_tagged(body, version, tag, tx.as_mut()) {
        Err(SessionError::Encode(EncodeError::BufferTooSmall { required, .. }))
            if tx.grow(required) =>
        {
            Ok(client.send_at_tagged(body, version, tag, tx.as_mut())?)
        }
        sent => Ok(sent?),
    }
}

/// `client`, its requests fitted to `rx` ([`Client::with_max_response`]), unless it was told a
/// smaller limit.
#[must_use]
#[doc(hidden)]
pub fn fit_responses<'a, S: AsRef<[u8]> + AsMut<[u8]>, const N: usize>(
    client: Client<'a, N>,
    rx: &FrameBuffer<S>,
) -> Client<'a, N> {
    let max = client
        .max_response()
        .map_or(rx.max_frame(), |m| m.min(rx.max_frame()));
    client.with_max_response(max)
}

/// The error of a stream that ended (a read of no bytes) while an answer was awaited: the
/// session's when a frame was cut off or requests are unanswered, else an unexpected end.
#[must_use]
#[doc(hidden)]
pub fn ended<S: AsRef<[u8]> + AsMut<[u8]>, const N: usize>(
    client: &Client<'_, N>,
    rx: &FrameBuffer<S>,
) -> Error {
    match client.finish(rx) {
        Err(e) => Error::Session(e),
        Ok(()) => Error::Io(ErrorKind::UnexpectedEof.into()),
    }
}

/// The answer a connection's `receive` hands back, out of the session's event for a whole
/// frame (`rx.missing()` said 0).
///
/// # Errors
///
/// As [`Client::receive`]; [`Error::Idle`] for an event of the session's own exchange, which is
/// over once a connection is open.
#[doc(hidden)]
pub fn answer<'r, S: AsRef<[u8]> + AsMut<[u8]>, const N: usize>(
    client: &mut Client<'_, N>,
    rx: &'r mut FrameBuffer<S>,
) -> Result<Answer<'r>, Error> {
    match client.receive(rx)? {
        Some(Event::Response(answer)) => Ok(answer),
        Some(Event::Ready | Event::Retry { .. } | Event::Authenticating) => Err(Error::Idle),
        None => Err(Error::Io(std::io::Error::other("no whole frame after all"))),
    }
}

/// A blocking connection to one broker: a stream, the session's [`Client`] and its buffers.
///
/// `N` requests may be in flight at once ([`Connection::send`]); `B` is the buffers' storage.
/// See the [module docs](self).
#[derive(Debug)]
pub struct Connection<'a, S, B: Storage = Vec<u8>, const N: usize = 8> {
    stream: S,
    client: Client<'a, N>,
    rx: FrameBuffer<B>,
    tx: B,
    /// The origin of the session's clock.
    started: Instant,
}

/// Connects to `addr` over TCP and opens a connection with buffers of its own. Nagle's delay
/// is off; with a request timeout, the socket's write timeout is the client's, and its read
/// timeout an eighth of it, at most a second: an expired request is reported within that much
/// of its deadline.
///
/// # Errors
///
/// As [`Connection::open`], and [`Error::Io`] when the connection cannot be made.
pub fn connect<'a, const N: usize>(
    addr: impl ToSocketAddrs,
    client: Client<'a, N>,
) -> Result<Connection<'a, TcpStream, Vec<u8>, N>, Error> {
    let stream = tcp(addr, &client)?;
    Connection::open(stream, client)
}

/// The TCP connection of [`connect`]: Nagle's delay off, the timeouts from the client's.
fn tcp<const N: usize>(
    addr: impl ToSocketAddrs,
    client: &Client<'_, N>,
) -> std::io::Result<TcpStream> {
    let stream = TcpStream::connect(addr)?;
    stream.set_nodelay(true)?;
    if let Some(ms) = client.request_timeout() {
        let read = (ms / 8).clamp(1, 1_000);
        stream.set_read_timeout(Some(Duration::from_millis(u64::from(read))))?;
        stream.set_write_timeout(Some(Duration::from_millis(u64::from(ms))))?;
    }
    Ok(stream)
}

impl<'a, S: Read + Write, const N: usize> Connection<'a, S, Vec<u8>, N> {
    /// A connection over `stream` with buffers of its own (frames up to
    /// [`DEFAULT_MAX_FRAME`]), after the ApiVersions exchange of a negotiating client. The
    /// client's request timeout is enforced when a read of the stream times out: a stream
    /// without a read timeout waits for a stalled broker as long as it stalls.
    ///
    /// # Errors
    ///
    /// [`Error::Session`] with `SessionError::Negotiate` when the broker's versions cannot be
    /// learned; as [`Connection::receive`] for the stream.
    pub fn open(stream: S, client: Client<'a, N>) -> Result<Self, Error> {
        let rx = vec![0; DEFAULT_MAX_FRAME.saturating_add(crate::frame::SIZE_LEN)];
        Self::open_with(stream, client, rx, vec![0; FIRST_SEND_BUFFER])
    }
}

impl<'a, S: Read + Write, B: Storage, const N: usize> Connection<'a, S, B, N> {
    /// A connection over `stream` with the given buffers: `rx` holds the largest response frame
    /// accepted, and `tx` the largest request a `&mut [u8]` can send (a `Vec<u8>` grows); after
    /// the ApiVersions exchange of a negotiating client. The client's requests are fitted to
    /// `rx` ([`Client::with_max_response`], unless the client was given less): see the
    /// [module docs](self) for how large it must be.
    ///
    /// # Errors
    ///
    /// As [`Connection::open`].
    pub fn open_with(stream: S, client: Client<'a, N>, rx: B, tx: B) -> Result<Self, Error> {
        let rx = FrameBuffer::new(rx);
        let mut c = Self {
            stream,
            client: fit_responses(client, &rx),
            rx,
            tx,
            started: Instant::now(),
        };
        c.settle()?;
        Ok(c)
    }

    /// Runs the session's own exchanges (the ApiVersions exchange, an authentication) until
    /// the session is ready, or sends and awaits nothing.
    fn settle(&mut self) -> Result<(), Error> {
        loop {
            while let Some(n) = self.client.poll_transmit(self.tx.as_mut())? {
                self.write(n)?;
            }
            // Ready, or a client that does not negotiate: it sends nothing and awaits nothing.
            if self.client.is_ready() || self.client.in_flight() == 0 {
                return Ok(());
            }
            // Ready, Retry (the request again, at the version the broker named), or a step of
            // the authentication.
            self.fill()?;
            self.client.receive(&mut self.rx)?;
        }
    }

    /// Authenticates again on this connection (KIP-368) with `credentials`, before the
    /// broker's session lifetime ends (`Client::reauthenticate_at`, on the clock this
    /// connection keeps from when it opened), and returns once the broker accepted them.
    ///
    /// # Errors
    ///
    /// [`Error::Busy`] while requests wait for their answers (nothing is sent then);
    /// [`Error::Session`] with `SessionError::Auth` when the broker refuses; as
    /// [`Connection::receive`] for the stream.
    #[cfg(feature = "sasl")]
    pub fn reauthenticate(
        &mut self,
        credentials: crate::session::sasl::Credentials<'a>,
    ) -> Result<(), Error> {
        check_idle(&self.client)?;
        self.tick();
        self.client.reauthenticate(credentials)?;
        self.settle()
    }

    /// Sends `body` at the version both sides speak, and waits for its answer.
    ///
    /// # Errors
    ///
    /// [`Error::NoResponse`] for a request that gets none, [`Error::Busy`] while requests sent
    /// before wait for their answers (nothing is sent then); as [`Connection::send`] and
    /// [`Connection::receive`].
    pub fn call<R: Body>(&mut self, body: &R) -> Result<Answer<'_>, Error> {
        check_call(&self.client, body)?;
        self.send(body)?;
        self.receive()
    }

    /// Sends `body` at the version both sides speak, without waiting: its answer comes from
    /// [`Connection::receive`], after those of the requests sent before it.
    ///
    /// # Errors
    ///
    /// [`Error::Session`] when the session refuses the request (no version in common, `N`
    /// requests in flight, a value the version cannot carry, a request larger than the
    /// caller's send buffer); [`Error::Io`] when the stream fails.
    pub fn send<R: Body>(&mut self, body: &R) -> Result<Sent, Error> {
        self.send_tagged(body, 0)
    }

    /// [`Connection::send`], with a tag the caller chooses (an index into its own table, the
    /// number of records a Produce carries), which comes back with the answer
    /// ([`Answer::tag`]), with an [`Error::TimedOut`], and in the requests left unanswered
    /// ([`Client::pending`]), as [`Client::send_tagged`] keeps it.
    ///
    /// # Errors
    ///
    /// As [`Connection::send`].
    pub fn send_tagged<R: Body>(&mut self, body: &R, tag: u64) -> Result<Sent, Error> {
        let version = self.client.version(body.body_api_key())?;
        self.send_at_tagged(body, version, tag)
    }

    /// Sends `body` at `version`, without waiting.
    ///
    /// # Errors
    ///
    /// As [`Connection::send`].
    pub fn send_at<R: Body>(&mut self, body: &R, version: i16) -> Result<Sent, Error> {
        self.send_at_tagged(body, version, 0)
    }

    /// [`Connection::send_at`], with a tag the caller chooses, as
    /// [`Connection::send_tagged`] has it.
    ///
    /// # Errors
    ///
    /// As [`Connection::send`].
    pub fn send_at_tagged<R: Body>(
        &mut self,
        body: &R,
        version: i16,
        tag: u64,
    ) -> Result<Sent, Error> {
        // The clock read, for the request's deadline; one that expired is reported by a read.
        self.tick();
        let sent = encode(&mut self.client, body, version, tag, &mut self.tx)?;
        self.write(sent.len)?;
        Ok(sent)
    }

    /// Waits for the answer to the oldest request in flight.
    ///
    /// # Errors
    ///
    /// [`Error::Idle`] with no request in flight; [`Error::TimedOut`] past the oldest
    /// request's deadline; [`Error::Session`] for a response that is not the one due, a frame
    /// over the limit, or a broker that closed the connection; [`Error::Io`].
    pub fn receive(&mut self) -> Result<Answer<'_>, Error> {
        if self.client.in_flight() == 0 {
            return Err(Error::Idle);
        }
        self.fill()?;
        answer(&mut self.client, &mut self.rx)
    }

    /// The version `key` is sent at: the highest both the broker and this build speak.
    ///
    /// # Errors
    ///
    /// As [`Client::version`].
    pub fn version(&self, key: ApiKey) -> Result<i16, Error> {
        Ok(self.client.version(key)?)
    }

    /// The session: the broker's versions, the requests in flight.
    #[must_use]
    pub fn client(&self) -> &Client<'a, N> {
        &self.client
    }

    /// The stream.
    #[must_use]
    pub fn get_ref(&self) -> &S {
        &self.stream
    }

    /// The stream, to set its options (writing to it or reading from it breaks the session).
    pub fn get_mut(&mut self) -> &mut S {
        &mut self.stream
    }

    /// The stream, the connection taken apart.
    pub fn into_inner(self) -> S {
        self.stream
    }

    /// Writes the first `n` bytes of the send buffer.
    fn write(&mut self, n: usize) -> Result<(), Error> {
        let frame = self.tx.as_ref().get(..n).unwrap_or_default();
        self.stream.write_all(frame)?;
        Ok(())
    }

    /// Sets the session's clock; the request that expired, if one did.
    fn tick(&mut self) -> Option<Pending<u64>> {
        self.client.handle_timeout(clock(self.started.elapsed()))
    }

    /// Reads until a whole frame is buffered. A deadline is checked after each read that leaves
    /// the frame unfinished: an answer that came in time is handed back whenever it is asked
    /// for.
    fn fill(&mut self) -> Result<(), Error> {
        while self.rx.missing()? > 0 {
            match self.stream.read(self.rx.spare()) {
                Ok(0) => return Err(ended(&self.client, &self.rx)),
                Ok(n) => self.rx.filled(n),
                Err(e) if e.kind() == ErrorKind::Interrupted => {}
                // The stream's timeout: a timeout of the session's, or none.
                Err(e)
                    if matches!(e.kind(), ErrorKind::WouldBlock | ErrorKind::TimedOut)
                        && self.client.poll_timeout().is_some() => {}
                Err(e) => return Err(Error::Io(e)),
            }
            if self.rx.missing()? > 0
                && let Some(request) = self.tick()
            {
                return Err(Error::TimedOut { request });
            }
        }
        Ok(())
    }
}
