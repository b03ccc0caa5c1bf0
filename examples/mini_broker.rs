//! A single-node, in-memory Kafka broker built on kwire, for real clients to produce to
//! and consume from:
//!
//! ```text
//! cargo run --release -p kwire-examples --example mini_broker -- 127.0.0.1:19092 [--partitions N] [--sasl USERS_FILE] [--verbose]
//! ```
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

use kwire_examples::mini_broker::broker::{Broker, Config};
use kwire_examples::mini_broker::sasl::Users;

fn main() -> ExitCode {
    let mut addr = String::from("127.0.0.1:19092");
    let mut partitions = 1;
    let mut verbose = false;
    let mut sasl = None;
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
            "--verbose" | "-v" => verbose = true,
            "--help" | "-h" => return usage(""),
            a if !a.starts_with('-') => addr = a.to_owned(),
            a => return usage(&format!("unknown option {a}")),
        }
    }
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
    };
    let auth = match &sasl {
        Some(users) => format!(", SASL required of {} user(s)", users.len()),
        None => String::new(),
    };
    println!(
        "mini_broker listening on {local} (node 1, {partitions} partition(s) per new topic{auth})"
    );
    let broker = Broker::new(config);
    if let Err(e) = broker.serve(listener) {
        eprintln!("mini_broker: {e}");
        return ExitCode::FAILURE;
    }
    ExitCode::SUCCESS
}

fn usage(problem: &str) -> ExitCode {
    if !problem.is_empty() {
        eprintln!("mini_broker: {problem}");
    }
    eprintln!("usage: mini_broker [HOST:PORT] [--partitions N] [--sasl USERS_FILE] [--verbose]");
    if problem.is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(2)
    }
}
