//! One connection to the broker: a [`Client`] over TCP or TLS whose reads stop at a deadline,
//! authenticated with SASL when the probe is given a login.

use std::io::{self, Read, Write};
use std::net::{SocketAddr, TcpStream, ToSocketAddrs};
use std::sync::Arc;
use std::time::{Duration, Instant};

use kwire::frame::Body;
use kwire::io::SaslConfig;
use kwire::io::tls::{self, rustls::ClientConfig};
use kwire::session::{Client, Event, FrameBuffer, SessionError};

use crate::security::Security;

/// The client id every request of the probe carries.
pub const CLIENT_ID: &str = "kwire-probe";

/// The largest response frame read, size prefix excluded. A larger announced size is a
/// framing error, not an allocation.
const MAX_FRAME: usize = 16 << 20;

/// Where and how the probe connects: the broker's address and host, its TLS and SASL, and how
/// long each connection and answer may take.
#[derive(Debug, Clone)]
pub struct Target {
    /// The broker's address, resolved.
    pub addr: SocketAddr,
    /// The host named, which a TLS certificate must carry.
    host: String,
    tls: Option<Arc<ClientConfig>>,
    sasl: Option<&'static SaslConfig>,
    /// How long a connection and each answer may take.
    pub timeout: Duration,
}

impl Target {
    /// Resolves `broker` (`host:port`) and reads the TLS and SASL options.
    ///
    /// # Errors
    ///
    /// A message when the name does not resolve or an option cannot be used.
    pub fn new(broker: &str, timeout: Duration, security: &Security) -> Result<Self, String> {
        let addr = broker
            .to_socket_addrs()
            .map_err(|e| format!("the broker address {broker} does not resolve: {e}"))?
            .next()
            .ok_or_else(|| format!("the broker address {broker} resolves to no address"))?;
        let host = tls::host_of(broker).unwrap_or(broker).to_owned();
        Ok(Self {
            addr,
            host,
            tls: security.tls()?,
            sasl: security.sasl()?,
            timeout,
        })
    }

    /// The session of a connection: negotiating versions first, or starting with correlation
    /// id `first_id`; authenticating when the probe has a login.
    ///
    /// # Errors
    ///
    /// A message when the system gives no random bytes for a SCRAM nonce.
    pub fn client(&self, negotiating: bool, first_id: i32) -> Result<Client<'static, 1>, String> {
        let client = if negotiating {
            Client::negotiating(Some(CLIENT_ID))
        } else {
            Client::new(Some(CLIENT_ID)).with_correlation_id(first_id)
        };
        match self.sasl {
            Some(login) => Ok(client.with_sasl(login.credentials().map_err(|e| e.to_string())?)),
            None => Ok(client),
        }
    }

    /// Whether connections authenticate before their first request.
    #[must_use]
    pub const fn authenticates(&self) -> bool {
        self.sasl.is_some()
    }
}

/// What came back for one request.
#[derive(Debug)]
pub enum Reply {
    /// A whole response frame carrying the request's correlation id (size prefix included).
    Frame(Vec<u8>),
    /// Nothing whole arrived before the deadline.
    Timeout,
    /// The broker closed the connection (or reset it) before a whole frame arrived.
    Closed(String),
    /// A whole frame arrived whose correlation id is not the request's.
    WrongCorrelation {
        /// The request's correlation id.
        expected: i32,
        /// The frame's.
        received: i32,
    },
    /// The stream holds no frame where one must start (a negative or huge size), or a frame
    /// too short to hold a correlation id.
    Garbage(String),
}

/// A connection to the broker and its session.
pub struct Conn {
    stream: tls::Stream,
    rx: FrameBuffer<Vec<u8>>,
    /// The session: correlation ids and the request in flight.
    pub client: Client<'static, 1>,
    timeout: Duration,
}

impl Conn {
    /// Connects to the target, over TLS when it has a configuration, with `client` as the
    /// session. A session that authenticates has yet to be settled ([`Conn::settle`]).
    ///
    /// # Errors
    ///
    /// A message when the connection fails.
    pub fn open(target: &Target, client: Client<'static, 1>) -> Result<Self, String> {
        let addr = target.addr;
        let tcp = TcpStream::connect_timeout(&addr, target.timeout)
            .map_err(|e| format!("connecting to {addr} failed: {e}"))?;
        // Failing to set these only costs speed or a longer wait: the deadline still holds.
        let _ = tcp.set_nodelay(true);
        let _ = tcp.set_write_timeout(Some(target.timeout));
        let stream = match &target.tls {
            Some(config) => tls::Stream::client(tcp, &target.host, config)
                .map_err(|e| format!("TLS to {}: {e}", target.host))?,
            None => tls::Stream::Tcp(tcp),
        };
        Ok(Self {
            stream,
            rx: FrameBuffer::new(vec![0u8; MAX_FRAME + 4]),
            client,
            timeout: target.timeout,
        })
    }

    /// Runs the session's opening exchanges, ApiVersions (asking again at the version a broker
    /// names) and SASL's, until requests can be sent. Returns the ApiVersions versions asked,
    /// in order. `Err` with the reply that ended it, or why.
    ///
    /// # Errors
    ///
    /// [`Opening::Failed`] when the broker answers wrongly or a request cannot be sent;
    /// [`Opening::Reply`] with a reply that is no answer to the opening's request.
    pub fn settle(&mut self, verbose: bool) -> Result<Vec<i16>, Opening> {
        let mut asked = Vec::new();
        let mut tx = vec![0u8; 1 << 12];
        // ApiVersions a few times at most, and SASL's three messages: a broker that keeps
        // refusing is reported.
        for _ in 0..8 {
            let Some(n) = self
                .client
                .poll_transmit(&mut tx)
                .map_err(|e| Opening::Failed(format!("the opening request: {e}")))?
            else {
                return Ok(asked);
            };
            let frame = tx.get(..n).unwrap_or_default();
            let info = kwire::frame::request_info(frame)
                .map_err(|e| Opening::Failed(format!("the opening request: {e}")))?;
            let name = info.api_key.info().map_or("?", |i| i.name);
            if info.api_key == kwire::ApiKey::API_VERSIONS {
                asked.push(info.api_version);
            }
            if verbose {
                eprintln!("{name} v{}: sent", info.api_version);
            }
            self.write(frame)
                .map_err(|e| Opening::Failed(format!("sending {name}: {e}")))?;
            match self.next_event(info.correlation_id) {
                Err(NegotiationEvent::Ready) => return Ok(asked),
                Err(NegotiationEvent::Retry(v)) if verbose => {
                    eprintln!("{name} v{}: refused, asking v{v}", info.api_version);
                }
                Err(NegotiationEvent::Retry(_) | NegotiationEvent::Authenticating) => {}
                Err(NegotiationEvent::Failed(why)) => return Err(Opening::Failed(why)),
                Ok(reply) => {
                    return Err(Opening::Reply {
                        reply,
                        api: info.api_key,
                        version: info.api_version,
                    });
                }
            }
        }
        Err(Opening::Failed(format!(
            "the opening exchanges did not end after ApiVersions versions {asked:?}"
        )))
    }

    /// Sends raw bytes.
    ///
    /// # Errors
    ///
    /// The write's error.
    pub fn write(&mut self, bytes: &[u8]) -> io::Result<()> {
        self.stream.write_all(bytes)?;
        self.stream.flush()
    }

    /// Sends `body` at `version` and waits for its answer.
    ///
    /// # Errors
    ///
    /// A message when the request cannot be encoded or sent.
    pub fn exchange<B: Body>(&mut self, body: &B, version: i16) -> Result<Reply, String> {
        let mut tx = vec![0u8; 1 << 16];
        let sent = match self.client.send_at(body, version, &mut tx) {
            Ok(sent) => sent,
            Err(SessionError::Encode(kwire::EncodeError::BufferTooSmall { required, .. })) => {
                tx = vec![0u8; required];
                self.client
                    .send_at(body, version, &mut tx)
                    .map_err(|e| format!("the request cannot be encoded: {e}"))?
            }
            Err(e) => return Err(format!("the request cannot be encoded: {e}")),
        };
        let frame = tx.get(..sent.len).unwrap_or_default();
        if let Err(e) = self.write(frame) {
            return Ok(Reply::Closed(format!("sending failed: {e}")));
        }
        Ok(self.receive(sent.correlation_id))
    }

    /// Waits for the next event of the session: `Ok` with the reply to the request whose
    /// correlation id is `expected` (an answer, or what went wrong), or, for a negotiating
    /// client, `Err` with the negotiation's `Ready` or `Retry`.
    pub fn next_event(&mut self, expected: i32) -> Result<Reply, NegotiationEvent> {
        let deadline = Instant::now() + self.timeout;
        loop {
            match self.client.receive(&mut self.rx) {
                Ok(Some(Event::Response(answer))) => {
                    return Ok(Reply::Frame(answer.frame().to_vec()));
                }
                Ok(Some(Event::Ready)) => return Err(NegotiationEvent::Ready),
                Ok(Some(Event::Retry { version })) => {
                    return Err(NegotiationEvent::Retry(version));
                }
                Ok(Some(Event::Authenticating)) => return Err(NegotiationEvent::Authenticating),
                Ok(None) => {}
                Err(SessionError::NoRequest { correlation_id }) => {
                    return Ok(Reply::WrongCorrelation {
                        expected,
                        received: correlation_id,
                    });
                }
                Err(SessionError::OutOfOrder { received, .. }) => {
                    return Ok(Reply::WrongCorrelation { expected, received });
                }
                Err(SessionError::Negotiate(e)) => {
                    return Err(NegotiationEvent::Failed(format!(
                        "the ApiVersions exchange failed: {e}"
                    )));
                }
                Err(SessionError::Auth(e)) => {
                    return Err(NegotiationEvent::Failed(e.to_string()));
                }
                Err(e) => return Ok(Reply::Garbage(e.to_string())),
            }
            if let Some(reply) = self.fill(deadline) {
                return Ok(reply);
            }
        }
    }

    /// Waits for the next whole frame, whatever its correlation id: the answer to bytes sent
    /// with [`Conn::write`], which the session did not encode.
    pub fn read_frame(&mut self) -> Reply {
        let deadline = Instant::now() + self.timeout;
        loop {
            match self.rx.next_frame() {
                Ok(Some(frame)) => return Reply::Frame(frame.to_vec()),
                Ok(None) => {}
                Err(e) => return Reply::Garbage(e.to_string()),
            }
            if let Some(reply) = self.fill(deadline) {
                return reply;
            }
        }
    }

    /// Reads what the network has into the buffer, waiting until `deadline` at most. `Some`:
    /// the reading ends with that reply.
    fn fill(&mut self, deadline: Instant) -> Option<Reply> {
        let left = deadline.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return Some(Reply::Timeout);
        }
        let _ = self.stream.tcp().set_read_timeout(Some(left));
        let spare = self.rx.spare();
        if spare.is_empty() {
            return Some(Reply::Garbage("the receive buffer is full".into()));
        }
        match self.stream.read(spare) {
            Ok(0) => Some(Reply::Closed(closed_detail(&self.rx))),
            Ok(n) => {
                self.rx.filled(n);
                None
            }
            Err(e)
                if matches!(
                    e.kind(),
                    io::ErrorKind::WouldBlock | io::ErrorKind::TimedOut
                ) =>
            {
                Some(Reply::Timeout)
            }
            Err(e) if e.kind() == io::ErrorKind::Interrupted => None,
            Err(e) => Some(Reply::Closed(format!("reading failed: {e}"))),
        }
    }

    /// Waits for the response to the request with `correlation_id`.
    fn receive(&mut self, correlation_id: i32) -> Reply {
        match self.next_event(correlation_id) {
            Ok(reply) => reply,
            Err(NegotiationEvent::Failed(why)) => Reply::Garbage(why),
            Err(_) => Reply::Garbage("an unexpected ApiVersions or SASL exchange".into()),
        }
    }
}

/// An event of the session's opening: the ApiVersions exchange and SASL's.
#[derive(Debug)]
pub enum NegotiationEvent {
    /// The broker's versions are known, and the session authenticated if it had to.
    Ready,
    /// The broker asked for another ApiVersions version.
    Retry(i16),
    /// A step of SASL's went through; another is due.
    Authenticating,
    /// The exchange failed.
    Failed(String),
}

fn closed_detail(rx: &FrameBuffer<Vec<u8>>) -> String {
    match rx.finish() {
        Ok(()) => "the broker closed the connection".into(),
        Err(e) => format!("the broker closed the connection: {e}"),
    }
}

/// How the session's opening failed.
#[derive(Debug)]
pub enum Opening {
    /// Why.
    Failed(String),
    /// A reply that is no answer to the opening's request.
    Reply {
        /// The reply.
        reply: Reply,
        /// The request's API.
        api: kwire::ApiKey,
        /// And version.
        version: i16,
    },
}
