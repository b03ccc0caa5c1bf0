//! kwire on tokio: Kafka's frames as a [`tokio_util::codec`] codec, and an async
//! [`Connection`] to a broker with the calls of the blocking [`kwire::io::Connection`].
//!
//! kwire itself does no I/O: its session layer ([`kwire::session`]) keeps what a connection
//! needs between frames. This crate drives it over tokio's streams, as tokio-rustls drives
//! rustls.
//!
//! * [`FrameCodec`]: a [`Decoder`] that cuts whole frames (size prefix included, as kwire's
//!   `frame` functions take them) out of a byte stream, refusing a size over the limit, and an
//!   [`Encoder`] of requests and responses, each a header and a body. For `Framed` streams,
//!   relays and servers.
//! * [`Connection`]: open (negotiate), `call`, `send` and `receive`, over any
//!   `AsyncRead + AsyncWrite`, with the client's request timeout kept by tokio's clock.
//!
//! ```no_run
//! use kwire::messages::{MetadataRequest, MetadataResponse};
//! use kwire::session::Client;
//! use kwire_tokio::Connection;
//!
//! # async fn run() -> Result<(), Box<dyn std::error::Error>> {
//! let client = Client::negotiating(Some("app")).with_request_timeout(30_000);
//! let stream = tokio::net::TcpStream::connect("127.0.0.1:9092").await?;
//! let mut broker: Connection<'_, _> = Connection::open(stream, client).await?;
//! let metadata: MetadataResponse<'_> =
//!     broker.call(&MetadataRequest::default()).await?.decode_as()?;
//! println!("{} brokers", metadata.brokers.iter().count());
//! # Ok(())
//! # }
//! ```

use std::time::Duration;

use bytes::{BufMut, BytesMut};
use kwire::frame::{self, Body};
use kwire::io::{
    DEFAULT_MAX_FRAME, Error, FIRST_SEND_BUFFER, answer, check_call, check_idle, clock, encode,
    ended, fit_responses,
};
use kwire::messages::{RequestHeader, ResponseHeader};
use kwire::session::{Answer, Client, FrameBuffer, Sent};
use kwire::{ApiKey, DecodeError, EncodeError, Status};
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};
use tokio::time::Instant;
use tokio_util::codec::{Decoder, Encoder};

/// Kafka's framing for [`tokio_util::codec::Framed`]: each item decoded is a whole frame, its
/// 4-byte size prefix included; requests and responses are encoded from a header and a body.
///
/// ```
/// use bytes::BytesMut;
/// use kwire::messages::{HeartbeatRequest, RequestHeader};
/// use kwire::ApiKey;
/// use kwire_tokio::FrameCodec;
/// use tokio_util::codec::{Decoder, Encoder};
///
/// let mut codec = FrameCodec::new();
/// let mut wire = BytesMut::new();
/// let header = RequestHeader::new(ApiKey::HEARTBEAT, 4, 7);
/// codec.encode((&header, &HeartbeatRequest::default()), &mut wire)?;
/// // The first bytes only: no frame yet.
/// let mut rx = wire.split_to(3);
/// assert_eq!(codec.decode(&mut rx)?, None);
/// rx.unsplit(wire);
/// let frame = codec.decode(&mut rx)?.expect("a whole frame");
/// let (header, _) = kwire::frame::decode_request(&frame)?;
/// assert_eq!(header.correlation_id, 7);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone, Copy)]
pub struct FrameCodec {
    max_frame: usize,
}

impl FrameCodec {
    /// A codec accepting frames up to [`DEFAULT_MAX_FRAME`] bytes after the size prefix.
    #[must_use]
    pub fn new() -> Self {
        Self {
            max_frame: DEFAULT_MAX_FRAME,
        }
    }

    /// Accepts frames of at most `max` bytes after the size prefix (a broker's
    /// `socket.request.max.bytes`, a client's fetch limit).
    #[must_use]
    pub fn with_max_frame(mut self, max: usize) -> Self {
        self.max_frame = max;
        self
    }
}

impl Default for FrameCodec {
    fn default() -> Self {
        Self::new()
    }
}

/// Why a frame could not be read or written by a [`FrameCodec`].
#[derive(Debug)]
#[non_exhaustive]
pub enum CodecError {
    /// The stream failed.
    Io(std::io::Error),
    /// The stream holds no frame where one must start: a negative size, or one over the limit.
    /// The stream cannot be read further.
    Framing(DecodeError),
    /// A request or response did not encode.
    Encode(EncodeError),
}

impl std::fmt::Display for CodecError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Io(e) => write!(f, "the stream failed: {e}"),
            Self::Framing(e) => write!(f, "the stream holds no frame here: {e}"),
            Self::Encode(e) => write!(f, "the frame does not encode: {e}"),
        }
    }
}

impl std::error::Error for CodecError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Self::Io(e) => Some(e),
            Self::Framing(e) => Some(e),
            Self::Encode(e) => Some(e),
        }
    }
}

impl From<std::io::Error> for CodecError {
    fn from(e: std::io::Error) -> Self {
        Self::Io(e)
    }
}

impl Decoder for FrameCodec {
    type Item = BytesMut;
    type Error = CodecError;

    fn decode(&mut self, src: &mut BytesMut) -> Result<Option<BytesMut>, CodecError> {
        match frame::split(src, self.max_frame).map_err(CodecError::Framing)? {
            Status::Complete(frame) => {
                let len = frame.len();
                Ok(Some(src.split_to(len)))
            }
            Status::Incomplete { needed } => {
                // Room for the rest of the frame, once its size is known.
                src.reserve(needed);
                Ok(None)
            }
        }
    }
}

/// Writes a frame of `len` bytes with `encode` into `dst`.
fn put_frame(
    dst: &mut BytesMut,
    len: usize,
    encode: impl FnOnce(&mut [u8]) -> Result<usize, EncodeError>,
) -> Result<(), CodecError> {
    let start = dst.len();
    dst.put_bytes(0, len);
    match encode(&mut dst[start..]) {
        Ok(_) => Ok(()),
        Err(e) => {
            dst.truncate(start);
            Err(CodecError::Encode(e))
        }
    }
}

/// A request: its header (which names the API, the version and the correlation id) and body.
impl<B: Body> Encoder<(&RequestHeader<'_>, &B)> for FrameCodec {
    type Error = CodecError;

    fn encode(
        &mut self,
        (header, body): (&RequestHeader<'_>, &B),
        dst: &mut BytesMut,
    ) -> Result<(), CodecError> {
        let len = frame::request_len(header, body).map_err(CodecError::Encode)?;
        put_frame(dst, len, |out| frame::encode_request(header, body, out))
    }
}

/// A response at a version: its header (the correlation id echoed) and body.
impl<B: Body> Encoder<(&ResponseHeader<'_>, &B, i16)> for FrameCodec {
    type Error = CodecError;

    fn encode(
        &mut self,
        (header, body, version): (&ResponseHeader<'_>, &B, i16),
        dst: &mut BytesMut,
    ) -> Result<(), CodecError> {
        let len = frame::response_len(header, body, version).map_err(CodecError::Encode)?;
        put_frame(dst, len, |out| {
            frame::encode_response(header, body, version, out)
        })
    }
}

/// An async connection to one broker: a stream, the session's [`Client`] and its buffers, with
/// the calls of [`kwire::io::Connection`] and its [`Error`].
///
/// The client's request timeout ([`Client::with_request_timeout`]) is kept by tokio's clock: a
/// read waits no longer than the oldest request's deadline, and [`Error::TimedOut`] says which
/// request expired.
#[derive(Debug)]
pub struct Connection<'a, S, const N: usize = 8> {
    stream: S,
    client: Client<'a, N>,
    rx: FrameBuffer<Vec<u8>>,
    tx: Vec<u8>,
    /// The origin of the session's clock.
    started: Instant,
}

impl<'a, S: AsyncRead + AsyncWrite + Unpin, const N: usize> Connection<'a, S, N> {
    /// A connection over `stream` (frames up to [`DEFAULT_MAX_FRAME`], the client's requests
    /// fitted to them as [`kwire::io::Connection::open`] fits them), after the ApiVersions
    /// exchange of a negotiating client.
    ///
    /// # Errors
    ///
    /// As [`kwire::io::Connection::open`].
    pub async fn open(stream: S, client: Client<'a, N>) -> Result<Self, Error> {
        let rx = FrameBuffer::new(vec![0; DEFAULT_MAX_FRAME + frame::SIZE_LEN]);
        let mut c = Self {
            stream,
            client: fit_responses(client, &rx),
            rx,
            tx: vec![0; FIRST_SEND_BUFFER],
            started: Instant::now(),
        };
        c.settle().await?;
        Ok(c)
    }

    /// Runs the session's own exchanges (the ApiVersions exchange, an authentication) until
    /// the session is ready, or sends and awaits nothing.
    async fn settle(&mut self) -> Result<(), Error> {
        loop {
            while let Some(n) = self.client.poll_transmit(&mut self.tx)? {
                self.write(n).await?;
            }
            // Ready, or a client that does not negotiate: it sends nothing and awaits nothing.
            if self.client.is_ready() || self.client.in_flight() == 0 {
                return Ok(());
            }
            // Ready, Retry (the request again, at the version the broker named), or a step of
            // the authentication.
            self.fill().await?;
            self.client.receive(&mut self.rx)?;
        }
    }

    /// Authenticates again on this connection (KIP-368), as
    /// [`kwire::io::Connection::reauthenticate`] does.
    ///
    /// # Errors
    ///
    /// As [`kwire::io::Connection::reauthenticate`].
    pub async fn reauthenticate(
        &mut self,
        credentials: kwire::session::sasl::Credentials<'a>,
    ) -> Result<(), Error> {
        check_idle(&self.client)?;
        self.client.handle_timeout(clock(self.started.elapsed()));
        self.client.reauthenticate(credentials)?;
        self.settle().await
    }

    /// Sends `body` at the version both sides speak, and waits for its answer.
    ///
    /// # Errors
    ///
    /// As [`kwire::io::Connection::call`].
    pub async fn call<R: Body>(&mut self, body: &R) -> Result<Answer<'_>, Error> {
        check_call(&self.client, body)?;
        self.send(body).await?;
        self.receive().await
    }

    /// Sends `body` at the version both sides speak, without waiting for its answer.
    ///
    /// # Errors
    ///
    /// As [`kwire::io::Connection::send`].
    pub async fn send<R: Body>(&mut self, body: &R) -> Result<Sent, Error> {
        self.send_tagged(body, 0).await
    }

    /// Sends `body` at the version both sides speak with a tag the caller chooses, which
    /// comes back with the answer, as [`kwire::io::Connection::send_tagged`] does.
    ///
    /// # Errors
    ///
    /// As [`kwire::io::Connection::send`].
    pub async fn send_tagged<R: Body>(&mut self, body: &R, tag: u64) -> Result<Sent, Error> {
        let version = self.client.version(body.body_api_key())?;
        self.send_at_tagged(body, version, tag).await
    }

    /// Sends `body` at `version`, without waiting for its answer.
    ///
    /// # Errors
    ///
    /// As [`kwire::io::Connection::send`].
    pub async fn send_at<R: Body>(&mut self, body: &R, version: i16) -> Result<Sent, Error> {
        self.send_at_tagged(body, version, 0).await
    }

    /// Sends `body` at `version` with a tag the caller chooses, as
    /// [`kwire::io::Connection::send_at_tagged`] does.
    ///
    /// # Errors
    ///
    /// As [`kwire::io::Connection::send`].
    pub async fn send_at_tagged<R: Body>(
        &mut self,
        body: &R,
        version: i16,
        tag: u64,
    ) -> Result<Sent, Error> {
        // The clock read, for the request's deadline; one that expired is reported by a read.
        self.client.handle_timeout(clock(self.started.elapsed()));
        let sent = encode(&mut self.client, body, version, tag, &mut self.tx)?;
        self.write(sent.len).await?;
        Ok(sent)
    }

    /// Waits for the answer to the oldest request in flight.
    ///
    /// # Errors
    ///
    /// As [`kwire::io::Connection::receive`].
    pub async fn receive(&mut self) -> Result<Answer<'_>, Error> {
        if self.client.in_flight() == 0 {
            return Err(Error::Idle);
        }
        self.fill().await?;
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

    /// The stream, the connection taken apart.
    pub fn into_inner(self) -> S {
        self.stream
    }

    /// Writes the first `n` bytes of the send buffer, within the request timeout if the
    /// client has one.
    async fn write(&mut self, n: usize) -> Result<(), Error> {
        let write = self.stream.write_all(&self.tx[..n]);
        match self.client.request_timeout() {
            Some(ms) => match tokio::time::timeout(Duration::from_millis(ms.into()), write).await {
                Ok(written) => Ok(written?),
                Err(_) => Err(Error::Io(std::io::ErrorKind::TimedOut.into())),
            },
            None => Ok(write.await?),
        }
    }

    /// Reads until a whole frame is buffered, waiting no longer than the oldest deadline. Past
    /// it, what has arrived is still read: an answer that came in time is handed back whenever
    /// it is asked for.
    async fn fill(&mut self) -> Result<(), Error> {
        while self.rx.missing()? > 0 {
            let now = clock(self.started.elapsed());
            let expired = self.client.handle_timeout(now);
            // A deadline not passed at `now` is less than 2^31 ms ahead; past it, a read takes
            // only what has arrived.
            let wait = match expired {
                Some(_) => Some(Duration::ZERO),
                None => self
                    .client
                    .poll_timeout()
                    .map(|deadline| Duration::from_millis(u64::from(deadline.wrapping_sub(now)))),
            };
            let read = self.stream.read(self.rx.spare());
            let n = match wait {
                Some(wait) => match tokio::time::timeout(wait, read).await {
                    Ok(read) => read?,
                    Err(_) => match expired {
                        Some(request) => return Err(Error::TimedOut { request }),
                        // The deadline came while waiting: the next turn says which request.
                        None => continue,
                    },
                },
                None => read.await?,
            };
            if n == 0 {
                return Err(ended(&self.client, &self.rx));
            }
            self.rx.filled(n);
        }
        Ok(())
    }
}

/// TLS for a [`Connection`] (feature `tls`): rustls through tokio-rustls, configured with
/// [`kwire::io::tls`] (the system's roots or a CA file, client certificates).
#[cfg(feature = "tls")]
pub mod tls {
    use std::sync::Arc;
    use std::time::Duration;

    use kwire::io::Error;
    use kwire::io::tls::host_of;
    use kwire::io::tls::rustls::ClientConfig;
    use kwire::io::tls::rustls::pki_types::ServerName;
    use kwire::session::Client;
    use tokio::net::TcpStream;

    use super::Connection;

    /// A client's TLS stream over TCP.
    pub type TlsStream = tokio_rustls::client::TlsStream<TcpStream>;

    /// Connects to `addr` (`host:port`) over TLS, the broker's certificate checked for `host`
    /// (also the SNI name sent), the handshake bounded by the client's request timeout, and
    /// opens a [`Connection`] over it, after the session's version negotiation (and SASL, with
    /// [`Client::with_sasl`]).
    ///
    /// # Errors
    ///
    /// As [`kwire::io::tls::connect`].
    pub async fn connect<'a, const N: usize>(
        addr: &str,
        config: &Arc<ClientConfig>,
        client: Client<'a, N>,
    ) -> Result<Connection<'a, TlsStream, N>, Error> {
        let invalid = |why: String| std::io::Error::new(std::io::ErrorKind::InvalidInput, why);
        let host = host_of(addr).ok_or_else(|| invalid(format!("{addr}: no HOST:PORT")))?;
        let name =
            ServerName::try_from(host.to_owned()).map_err(|e| invalid(format!("{host}: {e}")))?;
        let tcp = TcpStream::connect(addr).await?;
        tcp.set_nodelay(true)?;
        let handshake = tokio_rustls::TlsConnector::from(Arc::clone(config)).connect(name, tcp);
        let stream = match client.request_timeout() {
            Some(ms) => tokio::time::timeout(Duration::from_millis(u64::from(ms)), handshake)
                .await
                .map_err(|_| {
                    std::io::Error::new(
                        std::io::ErrorKind::TimedOut,
                        "the TLS handshake got no answer in time: is the listener TLS?",
                    )
                })??,
            None => handshake.await?,
        };
        Connection::open(stream, client).await
    }
}

/// The guide's client chapter (`docs/guide/client.md`), its programs compiled as doc tests.
#[cfg(doctest)]
#[doc = include_str!("../../docs/guide/client.md")]
struct ClientChapter;
