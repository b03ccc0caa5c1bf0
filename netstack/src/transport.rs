//! How bytes move between the session and the broker: the one part that differs between
//! transports. Everything above it (the session, the requests, the checks) is shared.

use std::io::{self, Read, Write};
use std::net::{Shutdown, SocketAddr, TcpStream};
use std::time::Duration;

use crate::error::Error;

/// A byte stream to the broker.
///
/// A polled transport (smoltcp) takes and gives what it can at once and makes progress in
/// [`Transport::drive`]; a blocking one (a kernel socket) waits inside [`Transport::send`] and
/// [`Transport::recv`] and has nothing to drive. The caller flushes what it has to send before
/// it asks for bytes, so a blocking transport never waits to read while requests wait to go.
pub trait Transport {
    /// Takes a prefix of `bytes` to send; returns how many bytes it took (0 when it has no room
    /// now: drive it, then send the rest).
    ///
    /// # Errors
    ///
    /// [`Error::Closed`] when the connection can no longer send; the transport's own.
    fn send(&mut self, bytes: &[u8]) -> Result<usize, Error>;

    /// Moves received bytes into `buf`; returns how many (0 when none have arrived yet, for a
    /// polled transport; a blocking one waits for at least one).
    ///
    /// # Errors
    ///
    /// [`Error::Closed`] at the end of the stream; the transport's own.
    fn recv(&mut self, buf: &mut [u8]) -> Result<usize, Error>;

    /// Lets the transport make progress: segments out and in, timers. When there is nothing to
    /// do it waits for the network, briefly. `sending` says whether bytes wait to be sent.
    ///
    /// # Errors
    ///
    /// The transport's own.
    fn drive(&mut self, sending: bool) -> Result<(), Error>;

    /// Closes the connection, waiting at most `timeout` for the close to complete.
    ///
    /// # Errors
    ///
    /// The transport's own.
    fn close(&mut self, timeout: Duration) -> Result<(), Error>;
}

/// A kernel TCP socket, blocking, with Nagle's algorithm off.
#[derive(Debug)]
pub struct Kernel {
    /// The connection.
    stream: TcpStream,
}

impl Kernel {
    /// Connects to `broker`; a read or a write that waits longer than `timeout` fails.
    ///
    /// # Errors
    ///
    /// The connect's and the socket options'.
    pub fn connect(broker: SocketAddr, timeout: Duration) -> Result<Self, Error> {
        let stream = TcpStream::connect_timeout(&broker, timeout)?;
        stream.set_nodelay(true)?;
        stream.set_read_timeout(Some(timeout))?;
        stream.set_write_timeout(Some(timeout))?;
        Ok(Self { stream })
    }
}

/// A kernel socket's error as this program's: a timeout is one, whatever the kernel calls it.
fn kernel_error(e: io::Error, what: &'static str, timeout: Duration) -> Error {
    match e.kind() {
        io::ErrorKind::WouldBlock | io::ErrorKind::TimedOut => Error::Timeout {
            what,
            secs: timeout.as_secs(),
        },
        io::ErrorKind::ConnectionReset | io::ErrorKind::BrokenPipe => Error::Reset,
        _ => Error::Io(e),
    }
}

impl Transport for Kernel {
    fn send(&mut self, bytes: &[u8]) -> Result<usize, Error> {
        loop {
            match self.stream.write(bytes) {
                Ok(0) if !bytes.is_empty() => return Err(Error::Closed),
                Ok(n) => return Ok(n),
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => {
                    let timeout = self.stream.write_timeout().ok().flatten();
                    return Err(kernel_error(e, "room to send", timeout.unwrap_or_default()));
                }
            }
        }
    }

    fn recv(&mut self, buf: &mut [u8]) -> Result<usize, Error> {
        loop {
            match self.stream.read(buf) {
                Ok(0) if !buf.is_empty() => return Err(Error::Closed),
                Ok(n) => return Ok(n),
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => {
                    let timeout = self.stream.read_timeout().ok().flatten();
                    return Err(kernel_error(
                        e,
                        "bytes from the broker",
                        timeout.unwrap_or_default(),
                    ));
                }
            }
        }
    }

    fn drive(&mut self, _sending: bool) -> Result<(), Error> {
        Ok(())
    }

    fn close(&mut self, _timeout: Duration) -> Result<(), Error> {
        match self.stream.shutdown(Shutdown::Both) {
            Err(e) if e.kind() != io::ErrorKind::NotConnected => Err(Error::Io(e)),
            _ => Ok(()),
        }
    }
}
