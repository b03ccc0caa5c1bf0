//! A single-node, in-memory Kafka broker built on kwire, for real clients to produce to
//! and consume from:
//!
//! ```text
//! cargo run --release -p kwire-examples --example mini_broker -- 127.0.0.1:19092 [--partitions N] [--sasl USERS_FILE] [--tls-cert PEM --tls-key PEM [--tls-client-ca PEM]] [--verbose]
//! ```
//!
//! With `--tls-cert` and `--tls-key` (a certificate chain and its key, PEM), the listener speaks
//! TLS (SSL, or SASL_SSL with `--sasl`); with `--tls-client-ca` too, every client must show a
//! certificate from one of that file's CAs (mutual TLS).
//!
//! With `--sasl`, every connection must authenticate first (SASL_PLAINTEXT), with PLAIN,
//! SCRAM-SHA-256 or SCRAM-SHA-512, as one of the users of the file: one `name:password` per
//! line. Before that it serves ApiVersions, SaslHandshake and SaslAuthenticate only (after a
//! SaslHandshake v0, the raw tokens of Kafka's first SASL framing), and a
//! wrong password is answered with `SASL_AUTHENTICATION_FAILED` before the connection closes.
//!
//! It serves ApiVersions (with the v0 answer to a version it does not know), Metadata (creating
//! missing topics with N partitions, 1 by default), Produce (any acks; acks=0 gets no answer),
//! ListOffsets, Fetch (max wait, min bytes, size limits that cut the last batch short, as Kafka
//! does), CreateTopics, DeleteTopics, InitProducerId, FindCoordinator, the classic consumer
//! group protocol and committed offsets, and the admin calls DescribeGroups, ListGroups,
//! DeleteGroups, DescribeConfigs (topics and the broker, at Kafka's defaults) and
//! DescribeCluster, each at every version of the current Kafka release.
//! Any other request gets a response of its own API and version carrying UNSUPPORTED_VERSION.
//!
//! Batches are kept byte for byte as producers sent them; the broker only assigns their base
//! offset and partition leader epoch, as Kafka does. Nothing is written to disk.

use std::net::TcpListener;
use std::process::ExitCode;
use std::sync::Arc;

use kwire::io::tls;
use kwire_examples::mini_broker::broker::{Broker, Config};
use kwire_examples::mini_broker::sasl::Users;

fn main() -> ExitCode {
    let mut addr = String::from("127.0.0.1:19092");
    let mut partitions = 1;
    let mut verbose = false;
    let mut sasl = None;
    let (mut tls_cert, mut tls_key, mut tls_client_ca) = (None, None, None);
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--partitions" => match args.next().and_then(|n| n.parse().ok()) {
                Some(n) if n >= 1 => partitions = n,
                _ => return usage("--partitions needs a positive number"),
            },
            "--sasl" => match args.next().map(|path| Users::load(&path)) {
                Some(Ok(users)) if !users.is_empty() => sasl = Some(Arc::new(users)),
                Some(Ok(_)) => return usage("--sasl: the users file names no user"),
                Some(Err(e)) => return usage(&format!("--sasl: {e}")),
                None => return usage("--sasl needs a users file"),
            },
            "--tls-cert" => tls_cert = args.next(),
            "--tls-key" => tls_key = args.next(),
            "--tls-client-ca" => tls_client_ca = args.next(),
            "--verbose" | "-v" => verbose = true,
            "--help" | "-h" => return usage(""),
            a if !a.starts_with('-') => addr = a.to_owned(),
            a => return usage(&format!("unknown option {a}")),
        }
    }
    let tls = match (tls_cert, tls_key, tls_client_ca) {
        (None, None, None) => None,
        (Some(cert), Some(key), client_ca) => match server_tls(&cert, &key, client_ca.as_deref()) {
            Ok(config) => Some(config),
            Err(e) => return usage(&format!("TLS: {e}")),
        },
        _ => return usage("TLS needs both --tls-cert and --tls-key"),
    };
    let listener = match TcpListener::bind(&addr) {
        Ok(l) => l,
        Err(e) => {
            eprintln!("mini_broker: cannot listen on {addr}: {e}");
            return ExitCode::FAILURE;
        }
    };
    let local = match listener.local_addr() {
        Ok(a) => a,
        Err(e) => {
            eprintln!("mini_broker: {e}");
            return ExitCode::FAILURE;
        }
    };
    let config = Config {
        host: local.ip().to_string(),
        port: i32::from(local.port()),
        node_id: 1,
        partitions,
        verbose,
        sasl: sasl.clone(),
        tls: tls.clone(),
        sasl_v0_only: false,
    };
    let protocol = match (&sasl, &tls) {
        (Some(_), Some(_)) => "SASL_SSL",
        (Some(_), None) => "SASL_PLAINTEXT",
        (None, Some(_)) => "SSL",
        (None, None) => "PLAINTEXT",
    };
    let auth = match &sasl {
        Some(users) => format!(", SASL required of {} user(s)", users.len()),
        None => String::new(),
    };
    println!(
        "mini_broker listening on {local}, {protocol} (node 1, {partitions} partition(s) per new topic{auth})"
    );
    let broker = Broker::new(config);
    if let Err(e) = broker.serve(listener) {
        eprintln!("mini_broker: {e}");
        return ExitCode::FAILURE;
    }
    ExitCode::SUCCESS
}

/// The listener's TLS configuration from its PEM files.
fn server_tls(
    cert: &str,
    key: &str,
    client_ca: Option<&str>,
) -> Result<Arc<tls::rustls::ServerConfig>, tls::TlsError> {
    let mut server = tls::ServerTls::new(cert, key)?;
    if let Some(ca) = client_ca {
        server = server.with_client_ca_file(ca)?;
    }
    server.config()
}

fn usage(problem: &str) -> ExitCode {
    if !problem.is_empty() {
        eprintln!("mini_broker: {problem}");
    }
    eprintln!(
        "usage: mini_broker [HOST:PORT] [--partitions N] [--sasl USERS_FILE] \
         [--tls-cert PEM --tls-key PEM [--tls-client-ca PEM]] [--verbose]"
    );
    if problem.is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(2)
    }
}
