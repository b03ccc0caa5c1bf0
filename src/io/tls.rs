//! TLS for a [`Connection`] (feature `tls`): rustls, with the `ring`
//! provider and TLS 1.2 and 1.3, as Kafka's SSL and SASL_SSL listeners speak them.
//!
//! [`ClientTls`] says what a client trusts (the system's roots, or the CAs of a PEM file) and
//! which certificate it shows, if any (mutual TLS); [`connect`] opens a TCP connection, with a
//! configuration verifies the broker's certificate for the host it was given (also its SNI
//! name), and negotiates the session's versions over it. [`ServerTls`] is the listener's side: a certificate chain and its
//! key, and optionally the CAs a client certificate must come from.
//!
//! The certificate is checked on by default and there is no switch to turn it off: a broker
//! with a self-signed certificate is reached by trusting that certificate ([`ClientTls::with_ca_file`]).
//! A failed handshake (an unknown issuer, a name the certificate does not carry) is the
//! connection's [`Error::Io`], with rustls' reason inside.
//!
//! ```no_run
//! use kwire::io::{self, tls};
//! use kwire::session::Client;
//!
//! let trust = tls::ClientTls::ca_file("ca.pem")?.config()?;
//! let client = Client::negotiating(Some("app")).with_request_timeout(30_000);
//! let broker: io::Connection<'_, tls::Stream> =
//!     tls::connect("broker.example:9093", Some(&trust), client)?;
//! # drop(broker);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

extern crate std;

use alloc::borrow::ToOwned;
use alloc::boxed::Box;
use alloc::string::{String, ToString};
use alloc::sync::Arc;
use alloc::vec::Vec;
use core::fmt;
use std::io::{ErrorKind, Read, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};

use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, PrivateKeyDer, ServerName};
use rustls::server::WebPkiClientVerifier;
use rustls::{
    ClientConfig, ClientConnection, RootCertStore, ServerConfig, ServerConnection, StreamOwned,
};

use super::{Connection, Error};
use crate::session::Client;

pub use rustls;

/// A client's TLS stream over TCP, the TLS side of a [`Stream`].
pub type TlsStream = StreamOwned<ClientConnection, TcpStream>;

/// A server's TLS stream over an accepted TCP connection ([`accept`]).
pub type ServerStream = StreamOwned<ServerConnection, TcpStream>;

/// What went wrong building a TLS configuration.
#[derive(Debug)]
#[non_exhaustive]
pub enum TlsError {
    /// A file could not be read, or held PEM that does not parse.
    File {
        /// The file.
        path: PathBuf,
        /// Why.
        reason: String,
    },
    /// A certificate file holds no certificate.
    NoCertificate {
        /// The file.
        path: PathBuf,
    },
    /// No root certificate to trust: the system's store is empty or unreadable and no CA file
    /// was given.
    NoRoots,
    /// rustls refused the configuration: a key that does not match its certificate, a CA that
    /// is not a usable trust anchor.
    Config(rustls::Error),
}

impl fmt::Display for TlsError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::File { path, reason } => write!(f, "{}: {reason}", path.display()),
            Self::NoCertificate { path } => {
                write!(f, "{}: no PEM certificate in the file", path.display())
            }
            Self::NoRoots => {
                f.write_str("no trusted root certificate: the system has none, give a CA file")
            }
            Self::Config(e) => write!(f, "the TLS configuration was refused: {e}"),
        }
    }
}

impl core::error::Error for TlsError {
    fn source(&self) -> Option<&(dyn core::error::Error + 'static)> {
        match self {
            Self::Config(e) => Some(e),
            _ => None,
        }
    }
}

impl From<rustls::Error> for TlsError {
    fn from(e: rustls::Error) -> Self {
        Self::Config(e)
    }
}

/// What a client trusts and shows: the builder of its rustls [`ClientConfig`].
#[derive(Debug, Clone)]
pub struct ClientTls {
    roots: RootCertStore,
    identity: Option<Identity>,
}

impl ClientTls {
    /// Trusts the system's root certificates (as `rustls-native-certs` finds them: the
    /// platform's store, or the files `SSL_CERT_FILE` and `SSL_CERT_DIR` name), as Kafka's
    /// clients do by default. Certificates of the store that do not parse are skipped.
    ///
    /// # Errors
    ///
    /// [`TlsError::NoRoots`] when the store yields no usable certificate.
    pub fn system() -> Result<Self, TlsError> {
        let mut roots = RootCertStore::empty();
        let found = rustls_native_certs::load_native_certs();
        let (added, _) = roots.add_parsable_certificates(found.certs);
        if added == 0 {
            return Err(TlsError::NoRoots);
        }
        Ok(Self {
            roots,
            identity: None,
        })
    }

    /// Trusts only the certificates of a PEM file (Kafka's `ssl.truststore` or librdkafka's
    /// `ssl.ca.location`), and nothing else: for a private CA or a self-signed broker.
    ///
    /// # Errors
    ///
    /// [`TlsError::File`] when it cannot be read, [`TlsError::NoCertificate`] when it holds no
    /// certificate, [`TlsError::Config`] when one is not a usable trust anchor.
    pub fn ca_file(path: impl AsRef<Path>) -> Result<Self, TlsError> {
        let mut roots = RootCertStore::empty();
        for cert in certificates(path.as_ref())? {
            roots.add(cert)?;
        }
        Ok(Self {
            roots,
            identity: None,
        })
    }

    /// Also trusts the certificates of a PEM file.
    ///
    /// # Errors
    ///
    /// As [`ClientTls::ca_file`].
    pub fn with_ca_file(mut self, path: impl AsRef<Path>) -> Result<Self, TlsError> {
        for cert in certificates(path.as_ref())? {
            self.roots.add(cert)?;
        }
        Ok(self)
    }

    /// Shows a client certificate (mutual TLS): the chain of a PEM file, leaf first, and the
    /// private key of another (PKCS #8, PKCS #1 or SEC1). The pair is checked when
    /// [`ClientTls::config`] builds the configuration.
    ///
    /// # Errors
    ///
    /// [`TlsError::File`] or [`TlsError::NoCertificate`] for a file that cannot be read or
    /// holds no certificate or key.
    pub fn with_client_cert(
        mut self,
        cert: impl AsRef<Path>,
        key: impl AsRef<Path>,
    ) -> Result<Self, TlsError> {
        self.identity = Some(Identity::load(cert.as_ref(), key.as_ref())?);
        Ok(self)
    }

    /// The rustls configuration: these roots, this client certificate if any, the `ring`
    /// provider's defaults.
    ///
    /// # Errors
    ///
    /// [`TlsError::Config`] when the key does not fit the certificate.
    pub fn config(self) -> Result<Arc<ClientConfig>, TlsError> {
        let builder = ClientConfig::builder_with_provider(provider())
            .with_safe_default_protocol_versions()?
            .with_root_certificates(self.roots);
        let config = match self.identity {
            Some(Identity { chain, key }) => builder.with_client_auth_cert(chain, key)?,
            None => builder.with_no_client_auth(),
        };
        Ok(Arc::new(config))
    }
}

/// The configuration of a program's TLS options (`--ca-file`, `--cert` and `--key`): only the
/// CAs of `ca_file` trusted, or the system's roots without one; the client certificate and key
/// of `identity`, if any.
///
/// # Errors
///
/// As [`ClientTls::ca_file`], [`ClientTls::system`], [`ClientTls::with_client_cert`] and
/// [`ClientTls::config`].
pub fn client_config(
    ca_file: Option<&Path>,
    identity: Option<(&Path, &Path)>,
) -> Result<Arc<ClientConfig>, TlsError> {
    let trust = match ca_file {
        Some(path) => ClientTls::ca_file(path)?,
        None => ClientTls::system()?,
    };
    match identity {
        Some((cert, key)) => trust.with_client_cert(cert, key)?.config(),
        None => trust.config(),
    }
}

/// A server's certificate and what it asks of clients: the builder of its rustls
/// [`ServerConfig`].
#[derive(Debug, Clone)]
pub struct ServerTls {
    identity: Identity,
    client_roots: Option<RootCertStore>,
}

impl ServerTls {
    /// Serves the certificate chain of a PEM file, leaf first, with the private key of another.
    ///
    /// # Errors
    ///
    /// As [`ClientTls::with_client_cert`].
    pub fn new(cert: impl AsRef<Path>, key: impl AsRef<Path>) -> Result<Self, TlsError> {
        Ok(Self {
            identity: Identity::load(cert.as_ref(), key.as_ref())?,
            client_roots: None,
        })
    }

    /// Requires every client to show a certificate from one of the CAs of a PEM file (mutual
    /// TLS, Kafka's `ssl.client.auth=required`).
    ///
    /// # Errors
    ///
    /// As [`ClientTls::ca_file`].
    pub fn with_client_ca_file(mut self, path: impl AsRef<Path>) -> Result<Self, TlsError> {
        let mut roots = self
            .client_roots
            .take()
            .unwrap_or_else(RootCertStore::empty);
        for cert in certificates(path.as_ref())? {
            roots.add(cert)?;
        }
        self.client_roots = Some(roots);
        Ok(self)
    }

    /// The rustls configuration.
    ///
    /// # Errors
    ///
    /// [`TlsError::Config`] when the key does not fit the certificate or a client CA is not a
    /// usable trust anchor.
    pub fn config(self) -> Result<Arc<ServerConfig>, TlsError> {
        let builder = ServerConfig::builder_with_provider(provider())
            .with_safe_default_protocol_versions()?;
        let builder = match self.client_roots {
            Some(roots) => {
                let verifier =
                    WebPkiClientVerifier::builder_with_provider(Arc::new(roots), provider())
                        .build()
                        .map_err(|e| TlsError::Config(rustls::Error::General(e.to_string())))?;
                builder.with_client_cert_verifier(verifier)
            }
            None => builder.with_no_client_auth(),
        };
        let Identity { chain, key } = self.identity;
        Ok(Arc::new(builder.with_single_cert(chain, key)?))
    }
}

/// Starts the server side of TLS on an accepted connection. The handshake runs as the stream
/// is first read or written.
///
/// # Errors
///
/// [`rustls::Error`] when rustls cannot start a session with the configuration.
pub fn accept(
    config: &Arc<ServerConfig>,
    stream: TcpStream,
) -> Result<ServerStream, rustls::Error> {
    Ok(StreamOwned::new(
        ServerConnection::new(Arc::clone(config))?,
        stream,
    ))
}

/// A TCP connection, over TLS or not: the stream of a program that chooses at run time (a
/// `--tls` option).
#[derive(Debug)]
#[non_exhaustive]
pub enum Stream {
    /// Plain TCP (Kafka's PLAINTEXT and SASL_PLAINTEXT).
    Tcp(TcpStream),
    /// TLS over TCP (SSL and SASL_SSL).
    Tls(Box<TlsStream>),
}

impl Stream {
    /// Starts TLS on a TCP connection to `host` (a DNS name or an IP address): the broker's
    /// certificate must be valid for it, and it is the SNI name sent. The handshake runs as the
    /// stream is first written or read.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::InvalidInput`] for a host that is no server name.
    pub fn client(tcp: TcpStream, host: &str, config: &Arc<ClientConfig>) -> std::io::Result<Self> {
        let session = client_session(host, config)?;
        Ok(Self::Tls(Box::new(StreamOwned::new(session, tcp))))
    }

    /// Runs the TLS handshake to its end, waiting at most `timeout` for the broker (a read
    /// timeout of the socket's makes the wait end; without one it lasts as long as the broker
    /// stalls). Nothing to do over plain TCP or once done.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::TimedOut`] when the broker does not finish it in time (as a listener that
    /// does not speak TLS does), or rustls' reason when it fails.
    pub fn handshake(&mut self, timeout: Option<core::time::Duration>) -> std::io::Result<()> {
        let Self::Tls(tls) = self else {
            return Ok(());
        };
        let started = std::time::Instant::now();
        while tls.conn.is_handshaking() {
            match tls.conn.complete_io(&mut tls.sock) {
                Ok(_) => {}
                Err(e) if matches!(e.kind(), ErrorKind::WouldBlock | ErrorKind::TimedOut) => {
                    if timeout.is_some_and(|t| started.elapsed() >= t) {
                        return Err(std::io::Error::new(
                            ErrorKind::TimedOut,
                            "the TLS handshake got no answer in time: is the listener TLS?",
                        ));
                    }
                }
                Err(e) if e.kind() == ErrorKind::Interrupted => {}
                Err(e) => return Err(e),
            }
        }
        Ok(())
    }

    /// The TCP connection underneath.
    #[must_use]
    pub fn tcp(&self) -> &TcpStream {
        match self {
            Self::Tcp(s) => s,
            Self::Tls(s) => s.get_ref(),
        }
    }
}

impl Read for Stream {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        match self {
            Self::Tcp(s) => s.read(buf),
            Self::Tls(s) => s.read(buf),
        }
    }
}

impl Write for Stream {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        match self {
            Self::Tcp(s) => s.write(buf),
            Self::Tls(s) => s.write(buf),
        }
    }

    fn flush(&mut self) -> std::io::Result<()> {
        match self {
            Self::Tcp(s) => s.flush(),
            Self::Tls(s) => s.flush(),
        }
    }
}

/// Connects to `addr` (`host:port`, `[v6]:port`) over TCP as [`super::connect`] does, then,
/// with a configuration, over TLS: the broker's certificate must be valid for `host` (a DNS
/// name or an IP address), which is also the SNI name sent, and the handshake must end within
/// the client's request timeout. Opens the connection with buffers of its own, after the
/// session's version negotiation.
///
/// # Errors
///
/// [`Error::Io`] with [`ErrorKind::InvalidInput`] for an address without a port or a host
/// that is no server name; with [`ErrorKind::TimedOut`] for a handshake the broker does not
/// finish in time, and rustls' reason for one that fails; otherwise as [`super::connect`].
pub fn connect<'a, const N: usize>(
    addr: &str,
    tls: Option<&Arc<ClientConfig>>,
    client: Client<'a, N>,
) -> Result<Connection<'a, Stream, Vec<u8>, N>, Error> {
    let stream = match tls {
        Some(config) => {
            let host = host_of(addr).ok_or_else(|| {
                std::io::Error::new(
                    ErrorKind::InvalidInput,
                    alloc::format!("{addr}: no HOST:PORT"),
                )
            })?;
            let timeout = client
                .request_timeout()
                .map(|ms| core::time::Duration::from_millis(u64::from(ms)));
            let mut stream = Stream::client(super::tcp(addr, &client)?, host, config)?;
            stream.handshake(timeout)?;
            stream
        }
        None => Stream::Tcp(super::tcp(addr, &client)?),
    };
    Connection::open(stream, client)
}

/// Splits a TLS connection over `tcp` into a reading half and a writing half that two threads
/// can use at once, as a relay does (the halves of a `TcpStream` from `try_clone`, over TLS).
/// The socket is read without a lock, so a read that waits does not hold up the writer; the
/// session itself is shared. A client's first handshake message is sent at once.
///
/// # Errors
///
/// A socket that cannot be cloned, or the first handshake message not sent.
pub fn split(
    conn: impl Into<rustls::Connection>,
    tcp: TcpStream,
) -> std::io::Result<(TlsReader, TlsWriter)> {
    let session = Arc::new(std::sync::Mutex::new(conn.into()));
    let writer = TlsWriter {
        session: Arc::clone(&session),
        tcp: tcp.try_clone()?,
    };
    writer.flush_tls(&mut lock(&session))?;
    let reader = TlsReader {
        session,
        tcp,
        raw: alloc::vec![0; 16 << 10],
        pending: 0..0,
    };
    Ok((reader, writer))
}

fn lock(
    session: &std::sync::Mutex<rustls::Connection>,
) -> std::sync::MutexGuard<'_, rustls::Connection> {
    session
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// The reading half of a [`split`] TLS connection: plaintext as the peer sent it. A read of 0
/// bytes is the peer's end (its `close_notify`, or the connection closed after the last whole
/// record).
#[derive(Debug)]
pub struct TlsReader {
    session: Arc<std::sync::Mutex<rustls::Connection>>,
    tcp: TcpStream,
    /// Bytes read off the socket.
    raw: Vec<u8>,
    /// Those of them not yet handed to the session.
    pending: core::ops::Range<usize>,
}

/// The writing half of a [`split`] TLS connection.
#[derive(Debug)]
pub struct TlsWriter {
    session: Arc<std::sync::Mutex<rustls::Connection>>,
    tcp: TcpStream,
}

impl TlsReader {
    /// The TCP connection underneath.
    #[must_use]
    pub const fn tcp(&self) -> &TcpStream {
        &self.tcp
    }
}

impl Read for TlsReader {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        loop {
            {
                let mut session = lock(&self.session);
                match session.reader().read(buf) {
                    Err(e) if e.kind() == ErrorKind::WouldBlock => {}
                    // A peer that closes without close_notify after a whole record has ended.
                    Err(e) if e.kind() == ErrorKind::UnexpectedEof => return Ok(0),
                    done => return done,
                }
                if !self.pending.is_empty() {
                    let raw = self.raw.get(self.pending.clone()).unwrap_or_default();
                    let fed = session.read_tls(&mut &*raw)?;
                    self.pending.start = self.pending.start.saturating_add(fed);
                    session
                        .process_new_packets()
                        .map_err(std::io::Error::other)?;
                    // Handshake messages and alerts the session has to send.
                    while session.wants_write() {
                        session.write_tls(&mut &self.tcp)?;
                    }
                    continue;
                }
            }
            let n = self.tcp.read(&mut self.raw)?;
            if n == 0 {
                // The end: the session learns it, and says whether it came cleanly.
                let mut session = lock(&self.session);
                session.read_tls(&mut &[][..])?;
                session
                    .process_new_packets()
                    .map_err(std::io::Error::other)?;
                return match session.reader().read(buf) {
                    Err(e) if e.kind() == ErrorKind::UnexpectedEof => Ok(0),
                    Err(e) if e.kind() == ErrorKind::WouldBlock => Ok(0),
                    done => done,
                };
            }
            self.pending = 0..n;
        }
    }
}

impl TlsWriter {
    fn flush_tls(&self, session: &mut rustls::Connection) -> std::io::Result<()> {
        while session.wants_write() {
            session.write_tls(&mut &self.tcp)?;
        }
        Ok(())
    }

    /// Tells the peer this side is done (TLS `close_notify`), then shuts the socket down.
    pub fn close(&self) {
        let mut session = lock(&self.session);
        session.send_close_notify();
        let _ = self.flush_tls(&mut session);
        let _ = self.tcp.shutdown(std::net::Shutdown::Both);
    }
}

impl Write for &TlsWriter {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let mut session = lock(&self.session);
        let n = session.writer().write(buf)?;
        self.flush_tls(&mut session)?;
        Ok(n)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.flush_tls(&mut lock(&self.session))
    }
}

impl Write for TlsWriter {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        (&*self).write(buf)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        (&*self).flush()
    }
}

/// One end of a relayed connection, over TCP or TLS, in two halves for two threads: what a
/// proxy reads from it, and what it writes to it.
#[derive(Debug)]
pub struct Duplex {
    /// The reading half.
    pub read: DuplexReader,
    /// The writing half.
    pub write: DuplexWriter,
}

/// The reading half of a [`Duplex`].
#[derive(Debug)]
#[non_exhaustive]
pub enum DuplexReader {
    /// Over TCP.
    Tcp(TcpStream),
    /// Over TLS.
    Tls(TlsReader),
}

/// The writing half of a [`Duplex`]; `&DuplexWriter` writes, so that threads can share it.
#[derive(Debug)]
#[non_exhaustive]
pub enum DuplexWriter {
    /// Over TCP.
    Tcp(TcpStream),
    /// Over TLS.
    Tls(TlsWriter),
}

impl Duplex {
    /// Both halves of a TCP connection.
    ///
    /// # Errors
    ///
    /// A socket that cannot be cloned.
    pub fn tcp(stream: TcpStream) -> std::io::Result<Self> {
        Ok(Self {
            read: DuplexReader::Tcp(stream.try_clone()?),
            write: DuplexWriter::Tcp(stream),
        })
    }

    /// Both halves of a TLS connection over `stream` ([`split`]): a client's
    /// ([`ClientConnection`]) or a server's ([`ServerConnection`]).
    ///
    /// # Errors
    ///
    /// As [`split`].
    pub fn tls(session: impl Into<rustls::Connection>, stream: TcpStream) -> std::io::Result<Self> {
        let (read, write) = split(session, stream)?;
        Ok(Self {
            read: DuplexReader::Tls(read),
            write: DuplexWriter::Tls(write),
        })
    }
}

impl Duplex {
    /// The end of a relay that faces its clients: a server's TLS with `config`, plain TCP
    /// without.
    ///
    /// # Errors
    ///
    /// As [`Duplex::tls`], and rustls' refusal of the configuration.
    pub fn accepted(
        stream: TcpStream,
        config: Option<&Arc<ServerConfig>>,
    ) -> std::io::Result<Self> {
        match config {
            Some(config) => {
                let session =
                    ServerConnection::new(Arc::clone(config)).map_err(std::io::Error::other)?;
                Self::tls(session, stream)
            }
            None => Self::tcp(stream),
        }
    }

    /// The end of a relay that faces the broker at `addr` (`host:port`): a client's TLS with
    /// `config`, the broker's certificate checked for the host, plain TCP without.
    ///
    /// # Errors
    ///
    /// As [`Duplex::tls`], [`ErrorKind::InvalidInput`] for a host that is no server name.
    pub fn connected(
        stream: TcpStream,
        addr: &str,
        config: Option<&Arc<ClientConfig>>,
    ) -> std::io::Result<Self> {
        match config {
            Some(config) => {
                let session = client_session(host_of(addr).unwrap_or(addr), config)?;
                Self::tls(session, stream)
            }
            None => Self::tcp(stream),
        }
    }
}

impl Read for DuplexReader {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        match self {
            Self::Tcp(s) => s.read(buf),
            Self::Tls(s) => s.read(buf),
        }
    }
}

impl Write for &DuplexWriter {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        match *self {
            DuplexWriter::Tcp(s) => (&*s).write(buf),
            DuplexWriter::Tls(w) => (&*w).write(buf),
        }
    }

    fn flush(&mut self) -> std::io::Result<()> {
        match *self {
            DuplexWriter::Tcp(s) => (&*s).flush(),
            DuplexWriter::Tls(w) => (&*w).flush(),
        }
    }
}

impl DuplexWriter {
    /// Ends the connection: TLS's `close_notify` first, then the socket shut down both ways,
    /// which also ends a read waiting on the other half.
    pub fn close(&self) {
        match self {
            Self::Tcp(s) => {
                let _ = s.shutdown(std::net::Shutdown::Both);
            }
            Self::Tls(w) => w.close(),
        }
    }
}

/// A client's TLS session with `host` (a DNS name or an IP address): the name its
/// certificate must carry, and the SNI name sent.
fn client_session(host: &str, config: &Arc<ClientConfig>) -> std::io::Result<ClientConnection> {
    let name = ServerName::try_from(host.to_owned())
        .map_err(|e| std::io::Error::new(ErrorKind::InvalidInput, alloc::format!("{host}: {e}")))?;
    ClientConnection::new(Arc::clone(config), name).map_err(std::io::Error::other)
}

/// The host of `host:port` or `[v6]:port`: the name a broker's certificate must carry.
#[must_use]
pub fn host_of(addr: &str) -> Option<&str> {
    let (host, port) = addr.rsplit_once(':')?;
    port.parse::<u16>().ok()?;
    let host = match host.strip_prefix('[') {
        Some(v6) => v6.strip_suffix(']')?,
        None => host,
    };
    (!host.is_empty()).then_some(host)
}

/// The `ring` provider: it builds with a C compiler alone, in less time than `aws-lc-rs`, on
/// every target rustls supports. rustls deprecates it for lacking the post-quantum key exchange
/// (X25519MLKEM768); X25519 and the NIST curves, which it has, are what Kafka's brokers offer.
#[allow(deprecated)]
fn provider() -> Arc<rustls::crypto::CryptoProvider> {
    Arc::new(rustls::crypto::ring::default_provider())
}

/// A certificate chain and its private key.
#[derive(Debug)]
struct Identity {
    chain: Vec<CertificateDer<'static>>,
    key: PrivateKeyDer<'static>,
}

impl Clone for Identity {
    fn clone(&self) -> Self {
        Self {
            chain: self.chain.clone(),
            key: self.key.clone_key(),
        }
    }
}

impl Identity {
    fn load(cert: &Path, key: &Path) -> Result<Self, TlsError> {
        let chain = certificates(cert)?;
        let key = PrivateKeyDer::from_pem_file(key).map_err(|e| TlsError::File {
            path: key.to_owned(),
            reason: e.to_string(),
        })?;
        Ok(Self { chain, key })
    }
}

/// The certificates of a PEM file: at least one.
fn certificates(path: &Path) -> Result<Vec<CertificateDer<'static>>, TlsError> {
    let file = |e: rustls::pki_types::pem::Error| TlsError::File {
        path: path.to_owned(),
        reason: e.to_string(),
    };
    let certs = CertificateDer::pem_file_iter(path)
        .map_err(file)?
        .collect::<Result<Vec<_>, _>>()
        .map_err(file)?;
    if certs.is_empty() {
        return Err(TlsError::NoCertificate {
            path: path.to_owned(),
        });
    }
    Ok(certs)
}

#[cfg(test)]
mod tests {
    use super::host_of;

    #[test]
    fn the_host_of_an_address() {
        assert_eq!(host_of("broker.example:9093"), Some("broker.example"));
        assert_eq!(host_of("127.0.0.1:9093"), Some("127.0.0.1"));
        assert_eq!(host_of("[::1]:9093"), Some("::1"));
        assert_eq!(host_of("broker.example"), None);
        assert_eq!(host_of(":9093"), None);
        assert_eq!(host_of("[::1:9093"), None);
        assert_eq!(host_of("b:port"), None);
    }
}
