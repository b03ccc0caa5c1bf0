//! One connection to the broker: a [`Client`] over a [`TcpStream`] whose reads stop at a
//! deadline.

use std::io::{self, Read, Write};
use std::net::{SocketAddr, TcpStream, ToSocketAddrs};
use std::time::{Duration, Instant};

use kwire::frame::Body;
use kwire::session::{Client, Event, FrameBuffer, SessionError};

/// The client id every request of the probe carries.
pub const CLIENT_ID: &str = "kwire-probe";

/// The largest response frame read, size prefix excluded. A larger announced size is a
/// framing error, not an allocation.
const MAX_FRAME: usize = 16 << 20;

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
    stream: TcpStream,
    rx: FrameBuffer<Vec<u8>>,
    /// The session: correlation ids and the request in flight.
    pub client: Client<'static, 1>,
    timeout: Duration,
}

/// The broker's address, resolved.
///
/// # Errors
///
/// A message when the name does not resolve.
pub fn resolve(broker: &str) -> Result<SocketAddr, String> {
    broker
        .to_socket_addrs()
        .map_err(|e| format!("the broker address {broker} does not resolve: {e}"))?
        .next()
        .ok_or_else(|| format!("the broker address {broker} resolves to no address"))
}

impl Conn {
    /// Connects to `addr`, waiting at most `timeout`, with `client` as the session.
    ///
    /// # Errors
    ///
    /// A message when the connection fails.
    pub fn open(
        addr: SocketAddr,
        timeout: Duration,
        client: Client<'static, 1>,
    ) -> Result<Self, String> {
        let stream = TcpStream::connect_timeout(&addr, timeout)
            .map_err(|e| format!("connecting to {addr} failed: {e}"))?;
        // Failing to set these only costs speed or a longer wait: the deadline still holds.
        let _ = stream.set_nodelay(true);
        let _ = stream.set_write_timeout(Some(timeout));
        Ok(Self {
            stream,
            rx: FrameBuffer::new(vec![0u8; MAX_FRAME + 4]),
            client,
            timeout,
        })
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
                // The probe does not authenticate: its session has no step of SASL's.
                Ok(Some(Event::Authenticating)) => {
                    return Ok(Reply::Garbage(
                        "an authentication step not asked for".into(),
                    ));
                }
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
        let _ = self.stream.set_read_timeout(Some(left));
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
            Err(_) => Reply::Garbage("an unexpected ApiVersions exchange".into()),
        }
    }
}

/// An event of the ApiVersions exchange.
#[derive(Debug)]
pub enum NegotiationEvent {
    /// The broker's versions are known.
    Ready,
    /// The broker asked for another ApiVersions version.
    Retry(i16),
    /// The exchange failed.
    Failed(String),
}

fn closed_detail(rx: &FrameBuffer<Vec<u8>>) -> String {
    match rx.finish() {
        Ok(()) => "the broker closed the connection".into(),
        Err(e) => format!("the broker closed the connection: {e}"),
    }
}
