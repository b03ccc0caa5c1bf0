//! The proxy: relays client connections to one upstream broker, decoding, logging and
//! re-encoding every frame (see the `proxy` example for the command line).

use std::io;
use std::net::{TcpListener, TcpStream};
use std::sync::{Arc, Mutex};

use kwire::codec::Str;
use kwire::frame::{self, Body, RequestInfo};
use kwire::io::relay::address::{self, Rewritten};
use kwire::io::relay::{self, Frames};
use kwire::io::tls::{self, Duplex};
use kwire::messages::{RequestHeader, ResponseHeader};
use kwire::session::{self, Pending, server};
use kwire::{ApiKey, EncodeError, Response};

/// What the proxy is told on its command line, and the address it listens on.
#[derive(Debug, Clone)]
pub struct Config {
    /// The upstream broker, `HOST:PORT`.
    pub upstream: String,
    /// The client id every request is re-encoded with, if any.
    pub client_id: Option<String>,
    /// No line per frame.
    pub quiet: bool,
    /// The host clients are told to connect to: the proxy's own.
    pub host: String,
    /// The port clients are told to connect to.
    pub port: i32,
    /// TLS towards clients: the proxy's certificate.
    pub listen_tls: Option<Arc<tls::rustls::ServerConfig>>,
    /// TLS towards the upstream broker.
    pub upstream_tls: Option<Arc<tls::rustls::ClientConfig>>,
}

/// Requests sent upstream and not yet answered, oldest first; past as many, a request is
/// forwarded without being kept (its response is relayed as it comes).
type InFlight = Mutex<session::InFlight<1024>>;

/// Remembers a request forwarded, if it gets a response.
fn remember(n: usize, in_flight: &InFlight, info: &RequestInfo<'_>) {
    let request = Pending {
        correlation_id: info.correlation_id,
        api_key: info.api_key,
        version: info.api_version,
        tag: (),
    };
    let mut in_flight = in_flight.lock().unwrap_or_else(|e| e.into_inner());
    if let Err(e) = in_flight.push(request) {
        println!(
            "[{n}] -> correlation {}: not kept ({e})",
            info.correlation_id
        );
    }
}

/// The request a response with `correlation_id` answers. Kafka answers in order: requests sent
/// before it that are still waiting will not be answered, and are forgotten.
fn answered(n: usize, in_flight: &InFlight, correlation_id: i32) -> Option<Pending> {
    let mut in_flight = in_flight.lock().unwrap_or_else(|e| e.into_inner());
    let skipped = |p: Pending| {
        println!(
            "[{n}] <- correlation {}: {} v{} skipped by the broker",
            p.correlation_id, p.api_key, p.version
        );
    };
    in_flight.answer_skipping(correlation_id, skipped).ok()
}

/// Accepts client connections on `listener` for ever, relaying each on threads of its own.
pub fn serve(listener: &TcpListener, config: Config) {
    let config = Arc::new(config);
    for (n, client) in listener.incoming().enumerate() {
        let client = match client {
            Ok(c) => c,
            Err(e) => {
                eprintln!("proxy: accept: {e}");
                continue;
            }
        };
        let config = Arc::clone(&config);
        std::thread::spawn(move || {
            if let Err(e) = connection(n, client, &config) {
                eprintln!("[{n}] {e}");
            }
        });
    }
}

/// Relays one client connection.
fn connection(n: usize, client: TcpStream, config: &Config) -> io::Result<()> {
    let upstream = TcpStream::connect(&config.upstream)?;
    client.set_nodelay(true)?;
    upstream.set_nodelay(true)?;
    let client = Duplex::accepted(client, config.listen_tls.as_ref())?;
    let upstream = Duplex::connected(upstream, &config.upstream, config.upstream_tls.as_ref())?;
    let proxied = Proxied {
        n,
        config,
        in_flight: InFlight::default(),
    };
    relay::run(
        (client.read, client.write),
        (upstream.read, upstream.write),
        &proxied,
    )
    .1
}

/// One connection's frames, each decoded, logged and re-encoded.
struct Proxied<'c> {
    /// The connection's number, in the log.
    n: usize,
    config: &'c Config,
    in_flight: InFlight,
}

impl Frames for Proxied<'_> {
    fn request(&self, frame: &[u8], out: &mut Vec<u8>) {
        request(self.n, frame, out, self.config, &self.in_flight);
    }

    fn response(&self, frame: &[u8], out: &mut Vec<u8>) {
        response(self.n, frame, out, self.config, &self.in_flight);
    }
}

/// One request: decode, log, rewrite the client id, re-encode.
fn request(n: usize, f: &[u8], out: &mut Vec<u8>, config: &Config, in_flight: &InFlight) {
    let (header, body) = match frame::decode_request(f) {
        Ok(d) => d,
        Err(e) => {
            // The header's start still says what the response will be, so that it can be
            // matched and logged (a version newer than this crate's, say).
            match frame::request_info(f) {
                Ok(info) => {
                    println!(
                        "[{n}] -> {} v{} correlation {}: {} bytes, forwarded as is: {e}",
                        info.api_key,
                        info.api_version,
                        info.correlation_id,
                        f.len()
                    );
                    remember(n, in_flight, &info);
                }
                Err(_) => println!("[{n}] -> {} bytes, forwarded as is: {e}", f.len()),
            }
            out.extend_from_slice(f);
            return;
        }
    };
    let key = ApiKey(header.request_api_key);
    let version = header.request_api_version;
    if body.expects_response() {
        let info = RequestInfo {
            api_key: key,
            api_version: version,
            correlation_id: header.correlation_id,
            client_id: header.client_id,
        };
        remember(n, in_flight, &info);
    }
    let mut header: RequestHeader<'_> = header;
    if let Some(id) = &config.client_id {
        header.client_id = Some(Str::new(id));
    }
    // The client id is a hint: a header without the field (ControlledShutdown v0's) goes out
    // without it, as the lenient encode leaves out an ignorable value the version cannot carry.
    // Everything else was read at this version, so nothing else can be left out.
    let encoded = frame::request_len(&header, &body).and_then(|len| {
        out.resize(len, 0);
        frame::encode_request_lenient(&header, &body, out)
    });
    match encoded {
        Ok(_) => {
            if !config.quiet {
                println!(
                    "[{n}] -> {key} v{version} correlation {} client {:?}: {} bytes in, {} out",
                    header.correlation_id,
                    header.client_id.unwrap_or(Str::EMPTY),
                    f.len(),
                    out.len()
                );
            }
        }
        Err(e) => {
            println!("[{n}] -> {key} v{version}: re-encoding failed ({e}), forwarded as is");
            out.clear();
            out.extend_from_slice(f);
        }
    }
}

/// One response: match it to its request, decode, log, point broker addresses at the proxy,
/// re-encode.
fn response(n: usize, f: &[u8], out: &mut Vec<u8>, config: &Config, in_flight: &InFlight) {
    let correlation_id = frame::response_correlation_id(f);
    let sent = correlation_id
        .ok()
        .and_then(|id| answered(n, in_flight, id));
    let (
        Ok(correlation_id),
        Some(Pending {
            api_key: key,
            version,
            ..
        }),
    ) = (correlation_id, sent)
    else {
        println!(
            "[{n}] <- {} bytes for no request in flight, forwarded as is",
            f.len()
        );
        out.extend_from_slice(f);
        return;
    };
    let (header, body) = match frame::decode_response(f, key, version) {
        Ok(d) => d,
        Err(e) => {
            println!(
                "[{n}] <- {key} v{version}: {} bytes, forwarded as is: {e}",
                f.len()
            );
            out.extend_from_slice(f);
            return;
        }
    };
    let result = readdress(&header, &body, version, (&config.host, config.port), out);
    match result {
        Ok(()) => {
            if !config.quiet {
                println!(
                    "[{n}] <- {key} v{version} correlation {correlation_id}: {} bytes in, {} out",
                    f.len(),
                    out.len()
                );
            }
        }
        Err(e) => {
            println!("[{n}] <- {key} v{version}: re-encoding failed ({e}), forwarded as is");
            out.clear();
            out.extend_from_slice(f);
        }
    }
}

/// Re-encodes a response into `out`, with every broker address a client is told replaced by
/// the proxy's own, `host:port`: the brokers of Metadata and DescribeCluster, the coordinators of
/// FindCoordinator, and the leader endpoints of Fetch (v16+), Produce (v10+), ShareFetch and
/// ShareAcknowledge (see [`address::REWRITTEN`]). An error's empty entry names no broker and
/// stays as it is.
pub fn readdress(
    header: &ResponseHeader<'_>,
    body: &Response<'_>,
    version: i16,
    (host, port): (&str, i32),
    out: &mut Vec<u8>,
) -> Result<(), EncodeError> {
    match body {
        // The session keeps the layout rule of ApiVersions' answers (v0 for an unknown version).
        Response::ApiVersions(a) => {
            let request = RequestInfo {
                api_key: ApiKey::API_VERSIONS,
                api_version: version,
                correlation_id: header.correlation_id,
                client_id: None,
            };
            out.resize(frame::response_len(header, a, version)?, 0);
            loop {
                match server::respond_api_versions(&request, a, out) {
                    // The v0 layout differs in size: the encoder says by how much.
                    Err(EncodeError::BufferTooSmall { required, .. }) => out.resize(required, 0),
                    done => {
                        out.truncate(done?);
                        return Ok(());
                    }
                }
            }
        }
        other => {
            match address::rewrite_response(header, other, version, out, |_| Some((host, port)))? {
                Rewritten::Changed { .. } => Ok(()),
                Rewritten::Unchanged => encode_response(out, header, other, version),
            }
        }
    }
}

fn encode_response<B: Body>(
    out: &mut Vec<u8>,
    header: &ResponseHeader<'_>,
    body: &B,
    version: i16,
) -> Result<(), EncodeError> {
    out.resize(frame::response_len(header, body, version)?, 0);
    frame::encode_response(header, body, version, out)?;
    Ok(())
}
