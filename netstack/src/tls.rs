//! TLS over any [`Transport`]: rustls' connection driven without I/O of its own, its records
//! read from and written to the transport underneath (smoltcp's socket in user space, or a
//! kernel socket). The session above sees a transport like any other.

use std::io::{ErrorKind, Read, Write};
use std::sync::Arc;
use std::time::Duration;

use kwire::io::tls::rustls::pki_types::ServerName;
use kwire::io::tls::rustls::{ClientConfig, ClientConnection};

use crate::error::Error;
use crate::transport::Transport;

/// Bytes of TLS records read from the transport at a time (a record is at most 16 KiB and
/// some).
const RAW: usize = 18 << 10;

/// A TLS client connection over `T`.
#[derive(Debug)]
pub struct Tls<T> {
    /// The transport underneath.
    net: T,
    /// rustls' state: the handshake, the keys, the plaintext either way.
    session: ClientConnection,
    /// TLS records made, `out[sent..]` not yet taken by the transport.
    out: Vec<u8>,
    /// How much of `out` the transport took.
    sent: usize,
    /// TLS records read from the transport, `raw[fed..got]` not yet handed to the session.
    raw: Box<[u8]>,
    /// How much of `raw` the session took.
    fed: usize,
    /// How much of `raw` holds bytes read.
    got: usize,
}

/// rustls' error as this program's.
fn tls_error(e: impl std::fmt::Display) -> Error {
    Error::Setup(format!("TLS: {e}"))
}

impl<T: Transport> Tls<T> {
    /// Starts TLS to `name` (the broker's certificate must be valid for it; the SNI name) over
    /// `net`, already connected. The handshake runs as the session sends its first request.
    ///
    /// # Errors
    ///
    /// A name that is no server name, or a configuration rustls refuses.
    pub fn new(net: T, config: &Arc<ClientConfig>, name: &str) -> Result<Self, Error> {
        let name = ServerName::try_from(name.to_owned()).map_err(tls_error)?;
        let session = ClientConnection::new(Arc::clone(config), name).map_err(tls_error)?;
        Ok(Self {
            net,
            session,
            out: Vec::with_capacity(RAW),
            sent: 0,
            raw: vec![0; RAW].into_boxed_slice(),
            fed: 0,
            got: 0,
        })
    }

    /// Moves the records the session has to send into `out`, and as many of them as the
    /// transport takes into it.
    fn flush(&mut self) -> Result<(), Error> {
        if self.sent == self.out.len() {
            self.out.clear();
            self.sent = 0;
        }
        while self.session.wants_write() {
            self.session.write_tls(&mut self.out).map_err(Error::Io)?;
        }
        while self.sent < self.out.len() {
            let n = self
                .net
                .send(self.out.get(self.sent..).unwrap_or_default())?;
            if n == 0 {
                break;
            }
            self.sent += n;
        }
        Ok(())
    }

    /// Whether records wait to be taken by the transport.
    fn pending(&self) -> bool {
        self.sent < self.out.len()
    }
}

impl<T: Transport> Transport for Tls<T> {
    fn send(&mut self, bytes: &[u8]) -> Result<usize, Error> {
        self.flush()?;
        if self.pending() {
            // The transport has no room: the session drives it and sends again.
            return Ok(0);
        }
        let n = self.session.writer().write(bytes).map_err(Error::Io)?;
        self.flush()?;
        Ok(n)
    }

    fn recv(&mut self, buf: &mut [u8]) -> Result<usize, Error> {
        loop {
            match self.session.reader().read(buf) {
                Ok(0) if !buf.is_empty() => return Err(Error::Closed),
                Ok(n) => return Ok(n),
                Err(e) if e.kind() == ErrorKind::WouldBlock => {}
                Err(e) if e.kind() == ErrorKind::UnexpectedEof => return Err(Error::Closed),
                Err(e) => return Err(Error::Io(e)),
            }
            if self.fed == self.got {
                // Everything read was handed over: what the session has to say goes out first
                // (a blocking transport waits in recv), then more records come in.
                self.flush()?;
                let n = self.net.recv(&mut self.raw)?;
                if n == 0 {
                    return Ok(0);
                }
                (self.fed, self.got) = (0, n);
            }
            let mut fresh = self.raw.get(self.fed..self.got).unwrap_or_default();
            let before = fresh.len();
            self.session.read_tls(&mut fresh).map_err(Error::Io)?;
            self.fed += before - fresh.len();
            self.session.process_new_packets().map_err(tls_error)?;
            // Handshake messages, and the requests held until the handshake ended.
            self.flush()?;
        }
    }

    fn drive(&mut self, sending: bool) -> Result<(), Error> {
        self.flush()?;
        self.net.drive(sending || self.pending())
    }

    fn close(&mut self, timeout: Duration) -> Result<(), Error> {
        self.session.send_close_notify();
        self.flush()?;
        self.net.close(timeout)
    }
}
