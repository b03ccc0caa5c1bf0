//! Frames cut out of a connection's two byte streams, and each response paired with its
//! request by correlation id: the part of a capture that a live tap shares.

use std::net::SocketAddr;

use kwire::frame;
use kwire::session::{InFlight, Pending};
use kwire::{ApiKey, ErrorCode, Request as Body, Status};

use super::source::Time;

/// The largest frame accepted (a broker's default `socket.request.max.bytes`): a size prefix
/// above it means the stream is not where a frame starts.
pub const MAX_FRAME: usize = 100 << 20;

/// The two ends of a connection.
#[derive(Debug, Clone, Copy)]
pub struct Ends {
    /// The client's address.
    pub client: SocketAddr,
    /// The broker's address.
    pub server: SocketAddr,
}

/// A frame cut out of a stream.
#[derive(Debug, Clone)]
pub struct Frame {
    /// When its last byte arrived.
    pub time: Time,
    /// Its bytes, size prefix included.
    pub bytes: Vec<u8>,
    /// Where it starts in its direction's stream.
    pub offset: u64,
}

/// A request frame and what its header says.
#[derive(Debug, Clone)]
pub struct Request {
    /// The frame.
    pub frame: Frame,
    /// Its API.
    pub api_key: ApiKey,
    /// Its version.
    pub version: i16,
    /// The correlation id its response carries.
    pub correlation_id: i32,
    /// The client id, `None` when null; as Kafka reads it (each byte sequence that is not
    /// UTF-8 replaced by U+FFFD; `--lint` shows the bytes).
    pub client_id: Option<String>,
    /// A Produce with `acks = 0`: the broker sends no response.
    pub acks_zero: bool,
}

/// Why a request has no response.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Unanswered {
    /// A Produce with `acks = 0`, which gets none.
    AcksZero,
    /// The broker answered a later request of the connection first (it answers in order).
    Skipped,
    /// Another request reused its correlation id before a response came.
    Reused,
    /// The client closed the connection before the response came.
    ClientClosed,
    /// The broker closed the connection without answering.
    BrokerClosed,
    /// The capture ended first.
    CaptureEnded,
}

impl Unanswered {
    /// Whether the traffic is at fault (not the client leaving, or the capture ending).
    pub fn is_problem(self) -> bool {
        matches!(self, Self::Skipped | Self::Reused | Self::BrokerClosed)
    }

    /// How a line says it.
    pub fn text(self) -> &'static str {
        match self {
            Self::AcksZero => "acks=0: no response",
            Self::Skipped => "no response: the broker answered a later request first",
            Self::Reused => "no response: its correlation id was used again",
            Self::ClientClosed => "no response: the client closed the connection",
            Self::BrokerClosed => "no response: the broker closed the connection",
            Self::CaptureEnded => "no response by the end of the capture",
        }
    }
}

/// Something a connection's streams gave.
#[derive(Debug)]
pub enum Event {
    /// A request and its response.
    Exchange(Request, Frame),
    /// A request without a response, and why.
    Unanswered(Request, Unanswered),
    /// A response whose correlation id no request seen carried (the capture began after it).
    Orphan(Frame, i32),
    /// A request frame whose header does not read.
    BadRequest(Frame, kwire::DecodeError),
    /// One direction stopped making sense: a size prefix no frame has, bytes lost from the
    /// capture. The message says where; the direction is skipped up to the next frame found.
    Lost {
        /// The direction (`true`: client to server).
        from_client: bool,
        /// What happened.
        message: String,
    },
}

impl Event {
    /// When the exchange began: its request's time (a response's without one); `None` for
    /// bytes lost, which carry no time.
    pub fn started(&self) -> Option<Time> {
        match self {
            Self::Exchange(req, _) | Self::Unanswered(req, _) => Some(req.frame.time),
            Self::Orphan(frame, _) | Self::BadRequest(frame, _) => Some(frame.time),
            Self::Lost { .. } => None,
        }
    }
}

/// Bytes kept while looking for a frame start: enough for a request header's first fields and
/// a usual client id, which tell a request frame.
const KEEP: usize = 256;

/// Cuts frames out of one direction's bytes.
#[derive(Debug, Default)]
struct Framer {
    buf: Vec<u8>,
    /// Stream offset of `buf[0]`.
    start: u64,
    /// Whether `buf` starts at a frame. False when the capture began inside the connection or
    /// lost bytes: frames are then looked for.
    synced: bool,
    /// Where the current search for a frame began.
    searching_from: Option<u64>,
}

impl Framer {
    /// Appends bytes and returns the frames they complete; `looks_like` tells a frame start
    /// while the framer is looking for one, and `notes` gets a line for every stretch of bytes
    /// skipped.
    fn push(
        &mut self,
        time: Time,
        bytes: &[u8],
        looks_like: &dyn Fn(&[u8]) -> bool,
        notes: &mut Vec<String>,
    ) -> Vec<Frame> {
        self.buf.extend_from_slice(bytes);
        let mut frames = Vec::new();
        let mut at = 0usize;
        loop {
            let offset = self.start + at as u64;
            let rest = &self.buf[at..];
            if !self.synced {
                let Some(i) = (0..rest.len()).find(|&i| looks_like(&rest[i..])) else {
                    break;
                };
                at += i;
                self.synced = true;
                let from = self.searching_from.take().unwrap_or(offset);
                let skipped = offset + i as u64 - from;
                if skipped > 0 {
                    notes.push(format!(
                        "{skipped} bytes from stream byte {from} skipped to the next frame"
                    ));
                }
                continue;
            }
            match frame::split(rest, MAX_FRAME) {
                Ok(Status::Complete(f)) => {
                    frames.push(Frame {
                        time,
                        bytes: f.to_vec(),
                        offset,
                    });
                    at += f.len();
                }
                Ok(Status::Incomplete { .. }) => break,
                Err(e) => {
                    notes.push(format!(
                        "no frame starts at stream byte {offset} ({}): looking for the next one",
                        e.kind
                    ));
                    self.synced = false;
                    self.searching_from = Some(offset);
                    at += 1;
                }
            }
        }
        if !self.synced {
            // Still looking: keep only the bytes a frame start could yet be found in.
            self.searching_from.get_or_insert(self.start + at as u64);
            at = at.max(self.buf.len().saturating_sub(KEEP));
        }
        self.buf.drain(..at);
        self.start += at as u64;
        frames
    }

    /// Bytes lost from the stream: what is buffered no longer leads to a frame.
    fn lose(&mut self, n: usize) {
        self.start += (self.buf.len() + n) as u64;
        self.buf.clear();
        self.synced = false;
        self.searching_from = Some(self.start);
    }
}

/// Requests awaiting responses that a conversation keeps: past as many, the oldest is taken
/// for skipped (a broker answers a connection's requests in order).
const MAX_PENDING: usize = 1024;

/// A connection's two streams and its requests awaiting responses, oldest first.
#[derive(Debug, Default)]
pub struct Conversation {
    client: Framer,
    server: Framer,
    pending: Box<InFlight<MAX_PENDING, Request>>,
}

/// Whether `b` starts like a request frame: a size no larger than [`MAX_FRAME`] and a header
/// naming an API and version this crate knows.
fn looks_like_request(b: &[u8]) -> bool {
    frame::split(b, MAX_FRAME).is_ok()
        && frame::request_info(b).is_ok_and(|i| {
            i.api_key.request_versions().contains(i.api_version)
                && b.get(..4).is_some_and(|s| s != [0, 0, 0, 0])
        })
}

impl Conversation {
    /// A conversation whose streams start at a frame (the capture saw the connection open).
    pub fn opened() -> Self {
        let mut c = Self::default();
        c.client.synced = true;
        c.server.synced = true;
        c
    }

    /// Bytes from the client, in order; `lost` bytes were missing before them.
    pub fn client_bytes(&mut self, time: Time, bytes: &[u8], lost: usize) -> Vec<Event> {
        let mut events = Vec::new();
        let mut notes = Vec::new();
        if lost > 0 {
            self.client.lose(lost);
            notes.push(format!("{lost} bytes missing from the capture"));
        }
        for f in self
            .client
            .push(time, bytes, &looks_like_request, &mut notes)
        {
            match read_request(f) {
                Ok(r) if r.acks_zero => events.push(Event::Unanswered(r, Unanswered::AcksZero)),
                Ok(r) => {
                    if let Some(old) = self.pending.remove(r.correlation_id) {
                        events.push(Event::Unanswered(old.tag, Unanswered::Reused));
                    }
                    if self.pending.len() == MAX_PENDING
                        && let Some(old) = self.pending.pop_oldest()
                    {
                        events.push(Event::Unanswered(old.tag, Unanswered::Skipped));
                    }
                    let pending = Pending {
                        correlation_id: r.correlation_id,
                        api_key: r.api_key,
                        version: r.version,
                        tag: r,
                    };
                    // Room was made, and the id is free.
                    let _ = self.pending.push(pending);
                }
                Err((f, e)) => events.push(Event::BadRequest(f, e)),
            }
        }
        events.extend(notes.into_iter().map(|message| Event::Lost {
            from_client: true,
            message,
        }));
        events
    }

    /// Bytes from the server, in order; `lost` bytes were missing before them.
    pub fn server_bytes(&mut self, time: Time, bytes: &[u8], lost: usize) -> Vec<Event> {
        let mut events = Vec::new();
        let mut notes = Vec::new();
        if lost > 0 {
            self.server.lose(lost);
            notes.push(format!("{lost} bytes missing from the capture"));
        }
        let pending = &self.pending;
        let looks_like = |b: &[u8]| {
            frame::split(b, MAX_FRAME).is_ok()
                && frame::response_correlation_id(b).is_ok_and(|c| pending.contains(c))
        };
        let frames = self.server.push(time, bytes, &looks_like, &mut notes);
        for f in frames {
            match frame::response_correlation_id(&f.bytes) {
                // Requests sent before this one are answered before it, or never.
                Ok(c) => match self.pending.answer_skipping(c, |p| {
                    events.push(Event::Unanswered(p.tag, Unanswered::Skipped));
                }) {
                    Ok(r) => events.push(Event::Exchange(r.tag, f)),
                    Err(_) => events.push(Event::Orphan(f, c)),
                },
                // A complete frame holds its correlation id unless it is shorter than one.
                Err(_) => events.push(Event::Orphan(f, -1)),
            }
        }
        events.extend(notes.into_iter().map(|message| Event::Lost {
            from_client: false,
            message,
        }));
        events
    }

    /// The connection is over (`why` says how it ended for the requests still waiting): those
    /// requests, oldest first, and what is left of an unfinished frame in either direction.
    pub fn close(mut self, why: Unanswered) -> Vec<Event> {
        let mut events = Vec::new();
        while let Some(r) = self.pending.pop_oldest() {
            events.push(Event::Unanswered(r.tag, why));
        }
        for (from_client, f) in [(true, &self.client), (false, &self.server)] {
            if !f.buf.is_empty() && f.synced {
                events.push(Event::Lost {
                    from_client,
                    message: format!(
                        "the connection ends inside a frame: {} bytes at stream byte {}",
                        f.buf.len(),
                        f.start
                    ),
                });
            }
        }
        events
    }
}

/// Reads a request frame's header (and a Produce's `acks`).
fn read_request(f: Frame) -> Result<Request, (Frame, kwire::DecodeError)> {
    let info = match frame::request_info(&f.bytes) {
        Ok(i) => i,
        Err(e) => return Err((f, e)),
    };
    let acks_zero = info.api_key == ApiKey::PRODUCE
        && matches!(frame::decode_request(&f.bytes), Ok((_, Body::Produce(p))) if p.acks == 0);
    Ok(Request {
        api_key: info.api_key,
        version: info.api_version,
        correlation_id: info.correlation_id,
        client_id: info.client_id.map(|id| id.to_string_lossy().into_owned()),
        acks_zero,
        frame: f,
    })
}

/// The non-zero error codes of a response, counted: every field whose name ends in
/// `ErrorCode`.
#[derive(Debug, Default)]
pub struct ErrorCodes(pub Vec<(ErrorCode, usize)>);

impl kwire_schema::describe::Visit for ErrorCodes {
    fn node(&mut self, n: &kwire_schema::describe::Node<'_>) -> std::fmt::Result {
        use kwire_schema::describe::Name;
        if let (Name::Plain(name), Some(v)) = (n.name, n.value.int())
            && name.ends_with("ErrorCode")
            && v != 0
            && let Ok(code) = i16::try_from(v)
        {
            match self.0.iter_mut().find(|(c, _)| c.0 == code) {
                Some((_, count)) => *count += 1,
                None => self.0.push((ErrorCode(code), 1)),
            }
        }
        Ok(())
    }
}
