//! `kwire tap`: a proxy between clients and a cluster that prints each exchange as `kwire
//! capture` does, relays every frame as it came, and points the broker addresses clients are
//! told at itself, so that clients stay on the tap.

use std::collections::HashMap;
use std::io::{self, Write};
use std::net::{SocketAddr, TcpListener, TcpStream, ToSocketAddrs};
use std::path::PathBuf;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::{SystemTime, UNIX_EPOCH};

use clap::Args;
use kwire::ApiKey;
use kwire::frame;
use kwire::io::relay::{self, Closed, Frames, address};
use kwire::io::tls::{
    self, Duplex,
    rustls::{ClientConfig, ServerConfig},
};

use crate::capture::exchange::{Conversation, Ends, Event, Unanswered};
use crate::capture::print::{Printer, Show};
use crate::capture::source::Time;
use crate::capture::write::{Flow, PcapWriter};
use crate::security::Security;

/// The command line of `kwire tap`.
#[derive(Debug, Args)]
pub struct TapArgs {
    /// The address clients connect to (`127.0.0.1:19092`; port 0 picks a free one).
    #[arg(long)]
    pub listen: String,
    /// The broker the tap's clients reach through it (a bootstrap address).
    #[arg(long)]
    pub upstream: String,
    /// What to print of each exchange.
    #[command(flatten)]
    pub show: Show,
    /// Also write the traffic, as the brokers sent it, to this pcapng file (`kwire capture
    /// FILE --port PORT` with the upstream's port reads it, and so does Wireshark).
    #[arg(long)]
    pub write: Option<PathBuf>,
    /// TLS on each side: the certificate clients are shown, and how the brokers are reached.
    #[command(flatten)]
    pub tls: TapTls,
}

/// TLS on each side of the tap, which ends it on both: it reads the exchanges in the clear,
/// prints them and writes them to its file (SaslAuthenticate's credentials shown as their step
/// only, unless `--show-secrets`).
#[derive(Debug, Clone, Default, Args)]
pub struct TapTls {
    /// Speak TLS to clients with this certificate chain (PEM, leaf first), for the names they
    /// connect to.
    #[arg(long, value_name = "PEM", requires = "tls_key")]
    pub tls_cert: Option<PathBuf>,
    /// The private key of --tls-cert, PEM.
    #[arg(long, value_name = "PEM", requires = "tls_cert")]
    pub tls_key: Option<PathBuf>,
    /// Reach the brokers over TLS, their certificates checked against the system's roots (or
    /// only the CAs of --upstream-ca-file) for the host names they are reached by.
    #[arg(long)]
    pub upstream_tls: bool,
    /// Trust only the CAs of this PEM file upstream (implies --upstream-tls).
    #[arg(long, value_name = "PEM")]
    pub upstream_ca_file: Option<PathBuf>,
    /// Show the brokers this client certificate, PEM (mutual TLS; implies --upstream-tls).
    #[arg(long, value_name = "PEM", requires = "upstream_key")]
    pub upstream_cert: Option<PathBuf>,
    /// The private key of --upstream-cert, PEM.
    #[arg(long, value_name = "PEM", requires = "upstream_cert")]
    pub upstream_key: Option<PathBuf>,
}

impl TapTls {
    /// The client-facing configuration, when there is TLS towards clients.
    fn listen(&self) -> Result<Option<Arc<ServerConfig>>, String> {
        match (&self.tls_cert, &self.tls_key) {
            (Some(cert), Some(key)) => tls::ServerTls::new(cert, key)
                .and_then(tls::ServerTls::config)
                .map(Some)
                .map_err(|e| format!("--tls-cert: {e}")),
            _ => Ok(None),
        }
    }

    /// The upstream configuration, when there is TLS towards brokers.
    fn upstream(&self) -> Result<Option<Arc<ClientConfig>>, String> {
        Security {
            tls: self.upstream_tls,
            ca_file: self.upstream_ca_file.clone(),
            cert: self.upstream_cert.clone(),
            key: self.upstream_key.clone(),
            ..Security::default()
        }
        .tls()
        .map_err(|e| format!("upstream {e}"))
    }
}

fn now() -> Time {
    let d = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap_or_default();
    Time(u64::try_from(d.as_nanos()).unwrap_or(u64::MAX))
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

/// What the tap's threads share.
#[derive(Debug)]
struct Tap {
    printer: Mutex<Printer>,
    pcap: Option<Mutex<PcapWriter>>,
    /// Broker address (host, port) as clients are told it -> the tap's port relaying to it.
    routes: Mutex<HashMap<(String, i32), u16>>,
    /// The IP address the tap's listeners are bound to.
    listen_ip: std::net::IpAddr,
    /// TLS towards clients.
    listen_tls: Option<Arc<ServerConfig>>,
    /// TLS towards brokers.
    upstream_tls: Option<Arc<ClientConfig>>,
}

impl Tap {
    fn print(&self, ends: Ends, events: &[Event]) {
        let mut printer = lock(&self.printer);
        let stdout = io::stdout();
        let mut out = stdout.lock();
        for e in events {
            // Output that cannot be written (a closed pipe) does not stop the relaying.
            let _ = printer.event(ends, e, &mut out);
        }
        let _ = out.flush();
    }

    fn record(&self, f: impl FnOnce(&mut PcapWriter) -> io::Result<()>) {
        if let Some(w) = &self.pcap
            && let Err(e) = f(&mut lock(w))
        {
            eprintln!("kwire tap: writing the capture: {e}");
        }
    }

    /// The tap's port for the broker at `host:port`: a new listener relaying to it the first
    /// time it is named.
    fn route(self: &Arc<Self>, host: &str, port: i32) -> Option<u16> {
        let mut routes = lock(&self.routes);
        if let Some(p) = routes.get(&(host.to_owned(), port)) {
            return Some(*p);
        }
        let listener = TcpListener::bind((self.listen_ip, 0)).ok()?;
        let local = listener.local_addr().ok()?.port();
        let upstream = format!("{host}:{port}");
        eprintln!(
            "kwire tap: broker {upstream} is reached through {}",
            SocketAddr::new(self.listen_ip, local)
        );
        routes.insert((host.to_owned(), port), local);
        let tap = Arc::clone(self);
        std::thread::spawn(move || accept(&tap, &listener, &upstream));
        Some(local)
    }
}

/// Runs `kwire tap` until it is stopped.
///
/// # Errors
///
/// The listening address cannot be bound, or the capture file cannot be created.
pub fn run(args: &TapArgs) -> Result<(), crate::Error> {
    let listener = TcpListener::bind(&args.listen)
        .map_err(|e| crate::Error::Failed(format!("listening on {}: {e}", args.listen)))?;
    let local = listener.local_addr()?;
    let upstream = args
        .upstream
        .to_socket_addrs()
        .ok()
        .and_then(|mut a| a.next())
        .ok_or_else(|| crate::Error::Failed(format!("{} is no address", args.upstream)))?;
    let pcap = match &args.write {
        Some(path) => Some(Mutex::new(PcapWriter::create(path).map_err(|e| {
            crate::Error::Failed(format!("creating {}: {e}", path.display()))
        })?)),
        None => None,
    };
    let listen_tls = args.tls.listen().map_err(crate::Error::Failed)?;
    let upstream_tls = args.tls.upstream().map_err(crate::Error::Failed)?;
    let mut printer = Printer::new(args.show.clone());
    printer.start_at(now());
    let tap = Arc::new(Tap {
        printer: Mutex::new(printer),
        pcap,
        routes: Mutex::new(HashMap::from([(
            (upstream.ip().to_string(), i32::from(upstream.port())),
            local.port(),
        )])),
        listen_ip: local.ip(),
        listen_tls,
        upstream_tls,
    });
    let over = |tls: bool| if tls { " over TLS" } else { "" };
    println!(
        "kwire tap: listening on {local}{}, relaying to {}{}",
        over(tap.listen_tls.is_some()),
        args.upstream,
        over(tap.upstream_tls.is_some())
    );
    accept(&tap, &listener, &args.upstream);
    Ok(())
}

/// Accepts clients on `listener`, each relayed to `upstream` on threads of its own.
fn accept(tap: &Arc<Tap>, listener: &TcpListener, upstream: &str) {
    for client in listener.incoming() {
        let Ok(client) = client else { continue };
        let (tap, upstream) = (Arc::clone(tap), upstream.to_owned());
        std::thread::spawn(move || {
            if let Err(e) = connection(&tap, client, &upstream) {
                eprintln!("kwire tap: {upstream}: {e}");
            }
        });
    }
}

/// Relays one client connection to `upstream`.
fn connection(tap: &Arc<Tap>, client: TcpStream, upstream: &str) -> io::Result<()> {
    let server = TcpStream::connect(upstream)?;
    client.set_nodelay(true)?;
    server.set_nodelay(true)?;
    let ends = Ends {
        client: client.peer_addr()?,
        server: server.peer_addr()?,
    };
    let flow = tap.pcap.as_ref().map_or(Ok(None), |w| {
        Flow::open(&mut lock(w), now(), ends.client, ends.server).map(Some)
    })?;
    let exchanges = Exchanges {
        tap,
        ends,
        // The address the client reached the tap at: the one to tell it for every broker.
        host: client.local_addr()?.ip().to_string(),
        flow: Mutex::new(flow),
        conversation: Mutex::new(Conversation::opened()),
    };
    let client = Duplex::accepted(client, tap.listen_tls.as_ref())?;
    let server = Duplex::connected(server, upstream, tap.upstream_tls.as_ref())?;
    let (closed, result) = relay::run(
        (client.read, client.write),
        (server.read, server.write),
        &exchanges,
    );
    let why = match closed {
        Closed::ByClient => Unanswered::ClientClosed,
        Closed::ByBroker => Unanswered::BrokerClosed,
    };
    let conversation = std::mem::take(&mut *lock(&exchanges.conversation));
    tap.print(ends, &conversation.close(why));
    exchanges.record(|f, w| f.close(w, now()));
    result
}

/// One relayed connection: its exchanges printed and recorded as its frames pass.
struct Exchanges<'t> {
    tap: &'t Arc<Tap>,
    ends: Ends,
    /// The address the client reached the tap at.
    host: String,
    flow: Mutex<Option<Flow>>,
    conversation: Mutex<Conversation>,
}

impl Exchanges<'_> {
    /// Writes to the connection's flow in the capture file, if the tap writes one.
    fn record(&self, f: impl FnOnce(&mut Flow, &mut PcapWriter) -> io::Result<()>) {
        self.tap.record(|w| match &mut *lock(&self.flow) {
            Some(flow) => f(flow, w),
            None => Ok(()),
        });
    }
}

impl Frames for Exchanges<'_> {
    fn request(&self, frame: &[u8], _: &mut Vec<u8>) {
        let t = now();
        self.record(|f, w| f.data(w, t, true, frame));
        // Recorded before it is sent: its response cannot come first.
        let events = lock(&self.conversation).client_bytes(t, frame, 0);
        self.tap.print(self.ends, &events);
    }

    fn response(&self, frame: &[u8], out: &mut Vec<u8>) {
        let t = now();
        self.record(|f, w| f.data(w, t, false, frame));
        let events = lock(&self.conversation).server_bytes(t, frame, 0);
        for e in &events {
            if let Event::Exchange(req, _) = e
                && let Some(rewritten) =
                    rerouted(self.tap, req.api_key, req.version, frame, &self.host)
            {
                *out = rewritten;
            }
        }
        self.tap.print(self.ends, &events);
    }
}

/// A response that tells the client broker addresses, re-encoded with each pointed at the
/// tap (on `host`, the address the client reached it at); `None` for every other response, and
/// for one that does not decode or re-encode, which go as they came.
fn rerouted(tap: &Arc<Tap>, api: ApiKey, version: i16, f: &[u8], host: &str) -> Option<Vec<u8>> {
    if !address::tells_broker_addresses(api, version) {
        return None;
    }
    let (header, body) = frame::decode_response(f, api, version).ok()?;
    let mut out = Vec::new();
    let rewritten = address::rewrite_response(&header, &body, version, &mut out, |broker| {
        // A host that is not UTF-8 names no host to relay to: it is left as it is.
        let port = tap.route(broker.host.to_str().ok()?, broker.port);
        Some((host, port.map_or(broker.port, i32::from)))
    });
    rewritten.ok()?.is_changed().then_some(out)
}
