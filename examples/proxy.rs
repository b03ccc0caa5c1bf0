//! A Kafka proxy built on kwire: it sits between clients and one upstream broker, decodes
//! every request and response by API key and version, logs one line per frame, rewrites the
//! client id of requests, and re-encodes each frame.
//!
//! ```text
//! cargo run --release -p kwire-examples --example proxy -- --listen 127.0.0.1:19093 --upstream 127.0.0.1:9092 \
//!     [--client-id NAME] [--quiet] [--tls-cert PEM --tls-key PEM] \
//!     [--upstream-tls] [--upstream-ca-file PEM] [--upstream-cert PEM --upstream-key PEM]
//! ```
//!
//! With `--tls-cert` and `--tls-key` clients reach the proxy over TLS; with `--upstream-tls`
//! (the system's roots) or `--upstream-ca-file` it reaches the broker over TLS, the broker's
//! certificate checked for the upstream's host. The proxy ends TLS on each side: it reads the
//! frames in the clear. SASL passes through it, between the clients and the broker.
//!
//! Re-encoding takes the verbatim fast path: a decoded array that is not touched is copied to
//! the output as the bytes it was read from, so the work per frame is a validating decode and a
//! copy. What the proxy does touch:
//!
//! * every request header's client id, when `--client-id` is given;
//! * every broker address a client is told, which all point at the proxy so that clients keep
//!   talking through it (one upstream broker): the brokers of Metadata and DescribeCluster, the
//!   coordinators of FindCoordinator, and the current leaders that Fetch (v16+), Produce (v10+),
//!   ShareFetch and ShareAcknowledge responses name when leadership moved.
//!
//! Re-encoding also writes every response in its canonical form: minimal varints, and tagged
//! fields that hold their default value left out, as Apache Kafka writes them. Some clients
//! (librdkafka before 2.1) misread a broker that sends defaulted tagged fields; behind this
//! proxy they read it correctly.
//!
//! A frame that does not decode (a version this crate does not know, a damaged frame) is
//! forwarded unchanged and logged as such.

use std::net::TcpListener;
use std::process::ExitCode;

use kwire::io::tls;
use kwire_examples::proxy::{self, Config};
use kwire_examples::security::SecurityArgs;

fn main() -> ExitCode {
    let (listen, config) = match parse_args() {
        Ok(c) => c,
        Err(e) => {
            eprintln!("proxy: {e}");
            eprintln!(
                "usage: proxy --listen HOST:PORT --upstream HOST:PORT [--client-id NAME] [--quiet] \
                 [--tls-cert PEM --tls-key PEM] [--upstream-tls] [--upstream-ca-file PEM] \
                 [--upstream-cert PEM --upstream-key PEM]"
            );
            return ExitCode::from(2);
        }
    };
    let listener = match TcpListener::bind(&listen) {
        Ok(l) => l,
        Err(e) => {
            eprintln!("proxy: cannot listen on {listen}: {e}");
            return ExitCode::FAILURE;
        }
    };
    let config = match listener.local_addr() {
        Ok(a) => Config {
            host: a.ip().to_string(),
            port: i32::from(a.port()),
            ..config
        },
        Err(e) => {
            eprintln!("proxy: {e}");
            return ExitCode::FAILURE;
        }
    };
    let over = |tls: bool| if tls { " over TLS" } else { "" };
    println!(
        "proxy listening on {}:{} for {}{}{}",
        config.host,
        config.port,
        config.upstream,
        over(config.upstream_tls.is_some()),
        if config.listen_tls.is_some() {
            ", clients over TLS"
        } else {
            ""
        }
    );
    proxy::serve(&listener, config);
    ExitCode::SUCCESS
}

/// The address to listen on, and the rest of the configuration.
fn parse_args() -> Result<(String, Config), String> {
    let mut listen = None;
    let mut upstream = None;
    let mut client_id = None;
    let mut quiet = false;
    let (mut cert, mut key) = (None, None);
    // The upstream's TLS options are the client's, named for the upstream.
    let mut upstream_security = SecurityArgs::default();
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        let mut value = || args.next().ok_or(format!("{arg} needs a value"));
        if let Some(option) = arg.strip_prefix("--upstream-")
            && matches!(option, "tls" | "ca-file" | "cert" | "key")
        {
            upstream_security.take(&format!("--{option}"), &mut value)?;
            continue;
        }
        match arg.as_str() {
            "--tls-cert" => cert = Some(value()?),
            "--tls-key" => key = Some(value()?),
            "--listen" => listen = Some(value()?),
            "--upstream" => upstream = Some(value()?),
            "--client-id" => client_id = Some(value()?),
            "--quiet" | "-q" => quiet = true,
            a => return Err(format!("unexpected argument {a}")),
        }
    }
    let listen_tls = match (cert, key) {
        (Some(cert), Some(key)) => Some(
            tls::ServerTls::new(cert, key)
                .and_then(tls::ServerTls::config)
                .map_err(|e| format!("--tls-cert: {e}"))?,
        ),
        (None, None) => None,
        _ => return Err("--tls-cert and --tls-key go together".into()),
    };
    let config = Config {
        upstream: upstream.ok_or("--upstream is required")?,
        client_id,
        quiet,
        host: String::new(),
        port: 0,
        listen_tls,
        upstream_tls: upstream_security.finish()?.tls,
    };
    Ok((listen.ok_or("--listen is required")?, config))
}
