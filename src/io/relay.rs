//! A relay between clients and a broker: each connection's frames cut out of both directions and
//! handed, one at a time, to what decides what goes on ([`Frames`]); and the broker addresses a
//! response tells a client, pointed at the relay ([`address`]).
//!
//! [`run`] relays one connection on two threads, the requests on the caller's and the responses
//! on a scoped one, until either side closes it. A proxy that rewrites requests, a tap that prints
//! what passes, a test harness that drops a response: each is a [`Frames`] of a few lines.
//!
//! ```no_run
//! use std::net::{TcpListener, TcpStream};
//! use kwire::io::relay::{self, Frames};
//!
//! /// Logs each request's key and version, and forwards every frame as it came.
//! struct Log;
//!
//! impl Frames for Log {
//!     fn request(&self, frame: &[u8], _out: &mut Vec<u8>) {
//!         if let Ok(info) = kwire::frame::request_info(frame) {
//!             println!("{} v{}", info.api_key, info.api_version);
//!         }
//!     }
//! }
//!
//! let listener = TcpListener::bind("127.0.0.1:19092")?;
//! for client in listener.incoming() {
//!     let client = client?;
//!     let broker = TcpStream::connect("127.0.0.1:9092")?;
//!     std::thread::spawn(move || {
//!         let ends = (client.try_clone()?, client);
//!         relay::run(ends, (broker.try_clone()?, broker), &Log).1
//!     });
//! }
//! # Ok::<(), std::io::Error>(())
//! ```

pub mod address;

extern crate std;

use alloc::vec::Vec;
use std::io::{self, ErrorKind, Read, Write};
use std::net::{Shutdown, TcpStream};
use std::sync::OnceLock;

use crate::session::{FrameBuffer, SessionError};

/// The largest frame relayed, size prefix excluded: Kafka's default `socket.request.max.bytes`
/// is 100 MiB, and a fetch response is bounded by what the client asks for.
pub const MAX_FRAME: usize = 256 * 1024 * 1024;

/// The storage each direction starts with; it grows for a larger frame.
const INITIAL: usize = 64 * 1024;

/// What a relay does with each frame, from either side. Both methods are called from the
/// connection's two threads, hence `&self` and `Sync`.
pub trait Frames: Sync {
    /// A whole request frame from the client (size prefix included). What is written to `out`
    /// goes to the broker instead; left empty, the frame goes as it came.
    fn request(&self, frame: &[u8], out: &mut Vec<u8>) {
        let _ = (frame, out);
    }

    /// A whole response frame from the broker. What is written to `out` goes to the client
    /// instead; left empty, the frame goes as it came.
    fn response(&self, frame: &[u8], out: &mut Vec<u8>) {
        let _ = (frame, out);
    }
}

/// The side that ended a relayed connection first.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Closed {
    /// The client closed its connection (or its bytes could not be relayed).
    ByClient,
    /// The broker closed its connection (or its bytes could not be relayed).
    ByBroker,
}

/// The writing half of one end of a relayed connection: frames are written through `&self`, and
/// [`Half::close`] ends the connection, which also ends a read waiting on its other half.
pub trait Half: Send + Sync {
    /// Writes all of `bytes`.
    ///
    /// # Errors
    ///
    /// The stream's.
    fn write_all(&self, bytes: &[u8]) -> io::Result<()>;

    /// Ends the connection.
    fn close(&self);
}

impl Half for TcpStream {
    fn write_all(&self, bytes: &[u8]) -> io::Result<()> {
        Write::write_all(&mut &*self, bytes)
    }

    fn close(&self) {
        let _ = self.shutdown(Shutdown::Both);
    }
}

#[cfg(feature = "tls")]
impl Half for super::tls::DuplexWriter {
    fn write_all(&self, bytes: &[u8]) -> io::Result<()> {
        Write::write_all(&mut &*self, bytes)
    }

    fn close(&self) {
        Self::close(self);
    }
}

/// Relays one connection until either side closes it: the client's frames to the broker through
/// [`Frames::request`] on this thread, the broker's to the client through [`Frames::response`]
/// on a second one. Each end is given as its reading and its writing half (a `TcpStream` and its
/// clone, or [`super::tls::Duplex`]'s `read` and `write`). When one side closes, the other is
/// closed once what it sent has been relayed.
///
/// Returns the side that ended first, and the first error of either direction: a read or a
/// write that failed (a connection reset ends a direction as a close does), bytes that are not
/// a frame ([`ErrorKind::InvalidData`]), or a connection closed in the middle of a frame
/// ([`ErrorKind::UnexpectedEof`]).
pub fn run<F: Frames + ?Sized>(
    client: (impl Read + Send, impl Half),
    broker: (impl Read + Send, impl Half),
    frames: &F,
) -> (Closed, io::Result<()>) {
    let (client_read, client_write) = client;
    let (broker_read, broker_write) = broker;
    let first = OnceLock::new();
    let (requests, responses) = std::thread::scope(|scope| {
        let responses = scope.spawn(|| {
            let result = pump(broker_read, &client_write, |f, out| frames.response(f, out));
            first.get_or_init(|| Closed::ByBroker);
            client_write.close();
            result
        });
        let requests = pump(client_read, &broker_write, |f, out| frames.request(f, out));
        first.get_or_init(|| Closed::ByClient);
        broker_write.close();
        let responses = responses
            .join()
            .unwrap_or_else(|_| Err(io::Error::other("the response thread panicked")));
        (requests, responses)
    });
    let closed = first.get().copied().unwrap_or(Closed::ByClient);
    (closed, requests.and(responses))
}

/// Cuts the frames out of what `from` sends, passes each through `each` and writes the result
/// (the frame itself when `each` writes nothing) to `to`, until `from` ends.
fn pump(
    mut from: impl Read,
    to: &impl Half,
    mut each: impl FnMut(&[u8], &mut Vec<u8>),
) -> io::Result<()> {
    let mut rx = FrameBuffer::growing(INITIAL, MAX_FRAME);
    let mut out = Vec::new();
    loop {
        while let Some(frame) = rx.next_frame().map_err(io_error)? {
            out.clear();
            each(frame, &mut out);
            to.write_all(if out.is_empty() { frame } else { &out })?;
        }
        rx.reserve_frame().map_err(io_error)?;
        let n = match from.read(rx.spare()) {
            Ok(0) => return rx.finish().map_err(io_error),
            Ok(n) => n,
            Err(e) if e.kind() == ErrorKind::Interrupted => continue,
            Err(e) if e.kind() == ErrorKind::ConnectionReset => return Ok(()),
            Err(e) => return Err(e),
        };
        rx.filled(n);
    }
}

fn io_error(e: SessionError) -> io::Error {
    let kind = match e {
        SessionError::ClosedMidFrame { .. } => ErrorKind::UnexpectedEof,
        _ => ErrorKind::InvalidData,
    };
    io::Error::new(kind, alloc::format!("{e}"))
}
