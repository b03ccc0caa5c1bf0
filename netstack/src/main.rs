//! A producer and a consumer on kwire's sans-I/O session layer, run over two transports in one
//! invocation: smoltcp, a TCP/IP stack in user space, on a TAP device; and the kernel's TCP
//! sockets. All the Kafka code is shared (`kafka.rs`); only the part that moves bytes differs
//! (`transport.rs`, `smol.rs`).
//!
//! Each run negotiates versions (ApiVersions, with the session's fallback to version 0),
//! creates a topic of its own (CreateTopics, where the broker serves it; a broker that does not
//! create topics from Metadata requests needs it), asks Metadata for it (its id and partition
//! 0's leader),
//! produces N records in batches of 100 with acks=-1 and up to 8 Produce requests in flight
//! (the topic named by id from Produce v13), then fetches them back from the first offset
//! produced (by id from Fetch v13) and checks every record: key, value, timestamp, headers,
//! offsets consecutive, each batch's CRC, and the partition ending at the last one. Any
//! difference fails the run.
//!
//! Nothing is allocated on the data path. A counting global allocator is armed around the
//! produce loop and the consume loop only, after the setup: the TAP device opened, smoltcp's
//! interface built with a socket set in fixed storage and socket buffers made, the records and
//! every buffer made. The count is printed for each transport, and the run fails if smoltcp's
//! is not 0. smoltcp's own `TunTapInterface` allocates a buffer for each frame in each
//! direction, so the TAP device here is read and written through buffers made when it is
//! opened (`smol.rs`); `--transports smoltcp-tuntap` runs smoltcp over `TunTapInterface` for
//! comparison (its count is printed, not checked).
//!
//! # Running it
//!
//! `netstack/run` (as root) makes a network namespace with a TAP device `kwtap0` at
//! 10.77.0.1/24, starts the example broker in it on 10.77.0.1:9092, runs this program in it
//! (smoltcp at 10.77.0.2/24 on `kwtap0`, then a kernel socket to the same broker), and deletes
//! the namespace on exit:
//!
//! ```text
//! cargo build -p kwire-netstack && cargo build -p kwire-examples --example mini_broker
//! sudo netstack/run 10000
//! ```
//!
//! The program alone, inside such a namespace:
//!
//! ```text
//! kwire-netstack --broker 10.77.0.1:9092 --records 10000 [--batch 100] [--tap kwtap0]
//!     [--address 10.77.0.2/24] [--transports smoltcp,kernel] [--timeout SECS] [--label NAME]
//!     [--max-version N]
//! ```
//!
//! # Figures
//!
//! Measured with `netstack/run` on a 2-core VM that other builds shared (load 2 to 3),
//! 2026-12-05, Rust 1.95: the lowest and highest of every run made (nine of 100 000 records in
//! the dev profile, three in release, six of 2 000). The load moves the figures by up to a
//! factor of three. Records are 12 + 100 bytes with two headers, about 150 bytes each in a batch.
//! The kernel socket connects to an address of the namespace itself, so its segments take the
//! kernel's loopback path, not `kwtap0`.
//!
//! ```text
//! 100 000 records, dev profile, as CI builds both (this program and the mini broker):
//! transport   produce rec/s       consume rec/s       allocations on the data path
//! smoltcp      66 000 - 141 000    97 000 - 156 000   0
//! kernel      157 000 - 489 000   295 000 - 462 000   0
//!
//! 100 000 records, release profile, both (KWIRE_NETSTACK=target/release/kwire-netstack
//! MINI_BROKER=target/release/examples/mini_broker netstack/run 100000):
//! smoltcp     2.34 M - 2.50 M     2.55 M - 3.20 M     0
//! kernel      3.56 M - 3.75 M     4.91 M - 5.60 M     0
//!
//! 2 000 records (CI's run), dev profile:
//! smoltcp      39 000 - 117 000    45 000 - 146 000   0
//! kernel      101 000 - 308 000   118 000 - 416 000   0
//! ```
//!
//! smoltcp over its own `TunTapInterface` (dev profile, one run of 100 000 records): 112 000
//! and 154 000 rec/s, and 53 416 allocator calls on the data path (31 356 producing, 22 060
//! consuming), where the device of `smol.rs` makes none.

// The counting allocator is the only `unsafe` code, allowed in its module alone.
#![deny(unsafe_code)]
#![warn(clippy::missing_docs_in_private_items)]

mod counting;
mod data;
mod error;
mod kafka;
mod smol;
mod tls;
mod transport;

use std::fmt;
use std::net::{Ipv4Addr, SocketAddr, SocketAddrV4};
use std::path::Path;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use kwire::io::SaslConfig;
use kwire::io::tls::rustls::ClientConfig;
use kwire::records::{BatchBuilder, NewRecord};
use kwire::{ApiKey, EncodeError};
use smoltcp::iface::SocketStorage;
use smoltcp::phy::{Medium, TunTapInterface};
use smoltcp::wire::Ipv4Cidr;

use crate::counting::counted;
use crate::data::{Dataset, MAX_RECORDS};
use crate::error::Error;
use crate::kafka::{Conn, IN_FLIGHT, Target, consume, create_topic, metadata, produce};
use crate::smol::{Phy, Setup, Smoltcp, Tap};
use crate::tls::Tls;
use crate::transport::{Kernel, Transport};

/// The most bytes one Fetch response carries (and the partition's share of it).
const FETCH_MAX_BYTES: i32 = 1 << 20;
/// The receive buffer: a whole Fetch response, with room for the next frame's start.
const RX_BYTES: usize = 2 << 20;
/// Bytes of smoltcp's TCP receive buffer (its window) and of its send buffer.
const SOCKET_BUFFER: usize = 1 << 20;

/// A way to the broker.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    /// smoltcp on the TAP device, read and written through buffers made beforehand.
    Smoltcp,
    /// smoltcp on the TAP device through smoltcp's own `TunTapInterface`.
    SmoltcpTunTap,
    /// A kernel TCP socket.
    Kernel,
}

impl Kind {
    /// The name on the command line and in the table.
    fn name(self) -> &'static str {
        match self {
            Self::Smoltcp => "smoltcp",
            Self::SmoltcpTunTap => "smoltcp-tuntap",
            Self::Kernel => "kernel",
        }
    }

    /// The kind named `name`.
    fn parse(name: &str) -> Option<Self> {
        [Self::Smoltcp, Self::SmoltcpTunTap, Self::Kernel]
            .into_iter()
            .find(|k| k.name() == name)
    }
}

impl fmt::Display for Kind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// The command line.
#[derive(Debug, Clone)]
struct Args {
    /// The broker: its address, for both transports.
    broker: SocketAddrV4,
    /// Records to produce and consume.
    records: usize,
    /// Records per batch (one batch per Produce request).
    batch: usize,
    /// The TAP device smoltcp runs on.
    tap: String,
    /// smoltcp's address and subnet on it.
    address: Ipv4Cidr,
    /// The transports to run, in order.
    transports: Vec<Kind>,
    /// How long any one wait may last.
    timeout: Duration,
    /// The broker's name in the report.
    label: String,
    /// The highest Produce and Fetch version to send.
    max_version: Option<i16>,
    /// TLS: the configuration and the name the broker's certificate must carry.
    tls: Option<(Arc<ClientConfig>, String)>,
    /// The SASL login, which the program's sessions borrow for as long as it runs.
    sasl: Option<&'static SaslConfig>,
}

/// How the program is called.
const USAGE: &str = "usage: kwire-netstack [--broker HOST:PORT] [--records N] [--batch N] \
    [--tap NAME] [--address A.B.C.D/P] [--transports smoltcp,smoltcp-tuntap,kernel] \
    [--timeout SECS] [--label NAME] [--max-version N] [--ca-file PEM [--server-name NAME]] \
    [--sasl-mechanism PLAIN|SCRAM-SHA-256|SCRAM-SHA-512 --sasl-user NAME \
    [--sasl-password-file FILE]]  (the password from KWIRE_SASL_PASSWORD otherwise)";

impl Args {
    /// Reads the command line.
    fn parse(mut args: impl Iterator<Item = String>) -> Result<Self, String> {
        let mut parsed = Self {
            broker: SocketAddrV4::new(Ipv4Addr::new(10, 77, 0, 1), 9092),
            records: 10_000,
            batch: 100,
            tap: "kwtap0".into(),
            address: Ipv4Cidr::new(Ipv4Addr::new(10, 77, 0, 2), 24),
            transports: vec![Kind::Smoltcp, Kind::Kernel],
            timeout: Duration::from_secs(30),
            label: "broker".into(),
            max_version: None,
            tls: None,
            sasl: None,
        };
        let (mut ca_file, mut server_name) = (None, None);
        let (mut mechanism, mut user, mut password_file) = (None, None, None);
        while let Some(arg) = args.next() {
            let mut value = || args.next().ok_or(format!("{arg} needs a value"));
            match arg.as_str() {
                "--broker" => {
                    let v = value()?;
                    parsed.broker = v
                        .parse()
                        .map_err(|_| format!("--broker {v}: not A.B.C.D:PORT"))?;
                }
                "--records" => {
                    let v = value()?;
                    parsed.records = v
                        .parse()
                        .ok()
                        .filter(|n| (1..=MAX_RECORDS).contains(n))
                        .ok_or(format!(
                            "--records {v}: not a number from 1 to {MAX_RECORDS}"
                        ))?;
                }
                "--batch" => {
                    let v = value()?;
                    parsed.batch = v
                        .parse()
                        .ok()
                        .filter(|n| (1..=10_000).contains(n))
                        .ok_or(format!("--batch {v}: not a number from 1 to 10000"))?;
                }
                "--tap" => parsed.tap = value()?,
                "--address" => {
                    let v = value()?;
                    parsed.address =
                        parse_cidr(&v).ok_or(format!("--address {v}: not A.B.C.D/P"))?;
                }
                "--transports" => {
                    let v = value()?;
                    parsed.transports = v
                        .split(',')
                        .map(|name| Kind::parse(name).ok_or(format!("no transport {name}")))
                        .collect::<Result<_, _>>()?;
                }
                "--timeout" => {
                    let v = value()?;
                    let secs: u64 = v
                        .parse()
                        .map_err(|_| format!("--timeout {v}: not seconds"))?;
                    parsed.timeout = Duration::from_secs(secs.max(1));
                }
                "--label" => parsed.label = value()?,
                "--max-version" => {
                    let v = value()?;
                    let max = v
                        .parse()
                        .map_err(|_| format!("--max-version {v}: not a version"))?;
                    parsed.max_version = Some(max);
                }
                "--ca-file" => ca_file = Some(value()?),
                "--server-name" => server_name = Some(value()?),
                "--sasl-mechanism" => mechanism = Some(value()?),
                "--sasl-user" => user = Some(value()?),
                "--sasl-password-file" => password_file = Some(value()?),
                _ => return Err(format!("unknown argument {arg}")),
            }
        }
        if let Some(ca_file) = ca_file {
            let config = kwire::io::tls::client_config(Some(Path::new(&ca_file)), None)
                .map_err(|e| format!("--ca-file: {e}"))?;
            let name = server_name.unwrap_or_else(|| parsed.broker.ip().to_string());
            parsed.tls = Some((config, name));
        } else if server_name.is_some() {
            return Err("--server-name goes with --ca-file".into());
        }
        match (mechanism, user) {
            (Some(mechanism), Some(user)) => {
                let file = password_file.as_deref().map(Path::new);
                let login = SaslConfig::load(&mechanism, &user, file)?;
                parsed.sasl = Some(Box::leak(Box::new(login)));
            }
            (None, None) => {}
            _ => return Err("--sasl-mechanism and --sasl-user go together".into()),
        }
        Ok(parsed)
    }
}

/// `A.B.C.D/P` as an IPv4 subnet and address.
fn parse_cidr(text: &str) -> Option<Ipv4Cidr> {
    let (address, prefix) = text.split_once('/')?;
    let prefix: u8 = prefix.parse().ok().filter(|p| *p <= 32)?;
    Some(Ipv4Cidr::new(address.parse().ok()?, prefix))
}

/// What one transport's run measured.
#[derive(Debug, Clone, Copy)]
struct Outcome {
    /// Records produced and read back.
    records: usize,
    /// The produce loop's time.
    produce: Duration,
    /// The consume loop's time.
    consume: Duration,
    /// Allocator calls in the produce loop and in the consume loop.
    allocations: (u64, u64),
}

/// Records per second.
fn rate(records: usize, time: Duration) -> f64 {
    records as f64 / time.as_secs_f64().max(1e-9)
}

/// What every run shares: the records and the sizes of the buffers made for them.
struct Work<'a> {
    /// The command line.
    args: &'a Args,
    /// The records' data, to check them against.
    data: &'a Dataset,
    /// The records, to produce.
    records: &'a [NewRecord<'a>],
    /// Bytes of the largest batch.
    largest_batch: usize,
}

/// Runs the whole exchange over `net`, already connected: negotiate, Metadata, then the
/// produce loop and the consume loop, each with allocation counting armed.
fn exchange<T: Transport>(
    kind: Kind,
    net: T,
    work: &Work<'_>,
    topic: &str,
) -> Result<Outcome, Error> {
    let args = work.args;
    // Room for every Produce request in flight: its batch and its headers.
    let tx_bytes = IN_FLIGHT * (work.largest_batch + 1024);
    let mut conn =
        Conn::new(net, RX_BYTES, tx_bytes, args.timeout).with_max_version(args.max_version);
    if let Some(login) = args.sasl {
        conn = conn.with_sasl(
            login
                .credentials()
                .map_err(|e| Error::Setup(e.to_string()))?,
        );
    }
    conn.negotiate()?;
    if let Some(login) = args.sasl {
        println!(
            "{kind}: authenticated as {} with {}",
            login.user(),
            login.mechanism()
        );
    }
    create_topic(&mut conn, topic)?;
    let target = metadata(&mut conn, topic)?;
    report_setup(kind, &conn, &target);
    let (_, host, port) = &target.leader;
    if host.parse() != Ok(*args.broker.ip()) || u16::try_from(*port) != Ok(args.broker.port()) {
        return Err(Error::Setup(format!(
            "partition 0 is led by {host}:{port}, not by the broker connected to ({}): this \
             program keeps one connection",
            args.broker
        )));
    }
    let mut scratch = vec![0u8; work.largest_batch];

    let started = Instant::now();
    let (first, produce_allocations) =
        counted(|| produce(&mut conn, &target, work.records, args.batch, &mut scratch));
    let produce_time = started.elapsed();
    let first = first?;

    let started = Instant::now();
    let (consumed, consume_allocations) =
        counted(|| consume(&mut conn, &target, work.data, first, FETCH_MAX_BYTES));
    let consume_time = started.elapsed();
    consumed?;

    conn.close()?;
    Ok(Outcome {
        records: work.records.len(),
        produce: produce_time,
        consume: consume_time,
        allocations: (produce_allocations, consume_allocations),
    })
}

/// Prints the versions negotiated and the topic found.
fn report_setup<T: Transport>(kind: Kind, conn: &Conn<T>, target: &Target) {
    let v = |key| conn.version(key).map_or(-1, |v| v);
    let (node, host, port) = &target.leader;
    println!(
        "{kind}: Metadata v{}, Produce v{}, Fetch v{}; topic {} (id {}), partition 0 led by node \
         {node} at {host}:{port}",
        v(ApiKey::METADATA),
        v(ApiKey::PRODUCE),
        v(ApiKey::FETCH),
        target.name,
        target.id,
    );
}

/// Opens `kind`'s transport and runs the exchange over it.
fn run(kind: Kind, index: usize, work: &Work<'_>) -> Result<Outcome, Error> {
    let args = work.args;
    let topic = format!("kwire-netstack-{kind}-{}-{index}", std::process::id());
    match kind {
        Kind::Kernel => {
            let net = Kernel::connect(SocketAddr::V4(args.broker), args.timeout)?;
            println!("{kind}: connected to {}", args.broker);
            secured(kind, net, work, &topic)
        }
        Kind::Smoltcp => {
            let tap = Tap::open(&args.tap)?;
            run_smoltcp(kind, tap, index, work, &topic)
        }
        Kind::SmoltcpTunTap => {
            let tap = TunTapInterface::new(&args.tap, Medium::Ethernet).map_err(|e| {
                Error::Setup(format!("cannot open the TAP device {}: {e}", args.tap))
            })?;
            run_smoltcp(kind, tap, index, work, &topic)
        }
    }
}

/// Builds smoltcp's interface over `device`, connects, and runs the exchange.
fn run_smoltcp<D: Phy>(
    kind: Kind,
    device: D,
    index: usize,
    work: &Work<'_>,
    topic: &str,
) -> Result<Outcome, Error> {
    let args = work.args;
    let mut storage = [SocketStorage::EMPTY; 1];
    let setup = Setup {
        address: args.address,
        broker: args.broker,
        local_port: 49_152
            + u16::try_from((std::process::id() as usize * 4 + index) % 16_384).unwrap_or(0),
        rx_buffer: SOCKET_BUFFER,
        tx_buffer: SOCKET_BUFFER,
        timeout: args.timeout,
    };
    let mtu = device.capabilities().max_transmission_unit;
    let net = Smoltcp::connect(device, setup, &mut storage)?;
    println!(
        "{kind}: {} on {} (MAC {}, frames up to {mtu} bytes), connected to {}",
        args.address,
        args.tap,
        smol::MAC,
        args.broker
    );
    secured(kind, net, work, topic)
}

/// Runs the exchange over `net`, or over TLS over it when the command line asks for TLS.
fn secured<T: Transport>(
    kind: Kind,
    net: T,
    work: &Work<'_>,
    topic: &str,
) -> Result<Outcome, Error> {
    match &work.args.tls {
        Some((config, name)) => {
            println!("{kind}: TLS to {name}, the broker's certificate checked");
            exchange(kind, Tls::new(net, config, name)?, work, topic)
        }
        None => exchange(kind, net, work, topic),
    }
}

/// Bytes of the largest batch of `batch` records that `records` makes.
fn largest_batch(records: &[NewRecord<'_>], batch: usize) -> Result<usize, EncodeError> {
    records
        .chunks(batch.max(1))
        .map(|chunk| BatchBuilder::new().encoded_len(chunk))
        .try_fold(0, |most, len| len.map(|len| most.max(len)))
}

fn main() -> ExitCode {
    let args = match Args::parse(std::env::args().skip(1)) {
        Ok(args) => args,
        Err(problem) => {
            eprintln!("kwire-netstack: {problem}\n{USAGE}");
            return ExitCode::from(2);
        }
    };
    let now_ms = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_millis()).unwrap_or(0));
    let data = Dataset::new(args.records, now_ms);
    let headers = data.headers();
    let records = data.records(&headers);
    let largest_batch = match largest_batch(&records, args.batch) {
        Ok(n) => n,
        Err(e) => {
            eprintln!("kwire-netstack: {e}");
            return ExitCode::FAILURE;
        }
    };
    let work = Work {
        args: &args,
        data: &data,
        records: &records,
        largest_batch,
    };
    println!(
        "kwire-netstack: {} records (12-byte key, 100-byte value, 2 headers), {} per batch, up \
         to {IN_FLIGHT} Produce requests in flight, against {} at {}",
        args.records, args.batch, args.label, args.broker
    );

    let mut results = Vec::new();
    for (index, &kind) in args.transports.iter().enumerate() {
        let result = run(kind, index, &work);
        if let Err(e) = &result {
            eprintln!("{kind}: FAILED: {e}");
        }
        results.push((kind, result));
    }

    println!();
    println!(
        "{:<16} {:>9} {:>14} {:>14} {:>24}",
        "transport", "records", "produce rec/s", "consume rec/s", "allocations on data path"
    );
    let mut failed = false;
    for (kind, result) in &results {
        match result {
            Ok(o) => {
                let (p, c) = o.allocations;
                println!(
                    "{:<16} {:>9} {:>14.0} {:>14.0} {:>24}",
                    kind.name(),
                    o.records,
                    rate(o.records, o.produce),
                    rate(o.records, o.consume),
                    format!("{} ({p} + {c})", p + c),
                );
                // rustls allocates its records: the data path over TLS is measured, not held
                // to none.
                if *kind == Kind::Smoltcp && args.tls.is_none() && p + c != 0 {
                    eprintln!("{kind}: FAILED: the data path allocated {} times", p + c);
                    failed = true;
                }
            }
            Err(_) => {
                println!("{:<16} {:>9}", kind.name(), "FAILED");
                failed = true;
            }
        }
    }
    if failed {
        println!("kwire-netstack against {}: FAILED", args.label);
        ExitCode::FAILURE
    } else {
        println!(
            "kwire-netstack against {}: every record came back",
            args.label
        );
        ExitCode::SUCCESS
    }
}

#[cfg(test)]
mod tests {
    use std::net::SocketAddr;

    use kwire_examples::mini_broker::broker::Broker;

    use super::*;

    /// The example broker, in this process, on a port of loopback.
    fn broker() -> SocketAddrV4 {
        let SocketAddr::V4(addr) = Broker::spawn(1) else {
            panic!("an IPv4 address");
        };
        addr
    }

    fn args(broker: SocketAddrV4, records: usize) -> Args {
        let line = format!("--broker {broker} --records {records} --batch 100 --transports kernel");
        Args::parse(line.split(' ').map(String::from)).expect("a valid command line")
    }

    #[test]
    fn every_record_comes_back_over_a_kernel_socket_and_the_data_path_does_not_allocate() {
        let args = args(broker(), 1_050);
        let data = Dataset::new(args.records, 1_700_000_000_000);
        let headers = data.headers();
        let records = data.records(&headers);
        let work = Work {
            args: &args,
            data: &data,
            records: &records,
            largest_batch: largest_batch(&records, args.batch).expect("the batches encode"),
        };
        let outcome = run(Kind::Kernel, 0, &work).expect("a clean run");
        assert_eq!(outcome.records, 1_050);
        assert_eq!(outcome.allocations, (0, 0));
    }

    #[test]
    fn before_version_13_the_topic_is_named_and_every_record_comes_back_all_the_same() {
        let mut args = args(broker(), 420);
        args.max_version = Some(12);
        let data = Dataset::new(args.records, 1_700_000_000_000);
        let headers = data.headers();
        let records = data.records(&headers);
        let net = Kernel::connect(SocketAddr::V4(args.broker), args.timeout).expect("connected");
        let mut conn = Conn::new(net, RX_BYTES, 1 << 20, args.timeout).with_max_version(Some(12));
        conn.negotiate().expect("versions");
        assert_eq!(conn.version(ApiKey::PRODUCE).ok(), Some(12));
        assert_eq!(conn.version(ApiKey::FETCH).ok(), Some(12));
        assert_eq!(conn.version(ApiKey::METADATA).ok(), Some(13));
        let target = metadata(&mut conn, "by-name").expect("the topic");
        let mut scratch = vec![0; largest_batch(&records, 100).expect("the batches encode")];
        let first = produce(&mut conn, &target, &records, 100, &mut scratch).expect("produced");
        consume(&mut conn, &target, &data, first, FETCH_MAX_BYTES).expect("every record back");
        // And through the whole run, as the command line gives it.
        let work = Work {
            args: &args,
            data: &data,
            records: &records,
            largest_batch: scratch.len(),
        };
        assert_eq!(
            run(Kind::Kernel, 0, &work).expect("a clean run").records,
            420
        );
    }

    #[test]
    fn a_record_that_comes_back_different_fails_the_run() {
        let args = args(broker(), 250);
        let produced = Dataset::new(args.records, 1_700_000_000_000);
        let headers = produced.headers();
        let records = produced.records(&headers);
        let net = Kernel::connect(SocketAddr::V4(args.broker), args.timeout).expect("connected");
        let mut conn = Conn::new(net, RX_BYTES, 1 << 20, args.timeout);
        conn.negotiate().expect("versions");
        let target = metadata(&mut conn, "changed").expect("the topic");
        let mut scratch = vec![0; largest_batch(&records, 100).expect("the batches encode")];
        let first = produce(&mut conn, &target, &records, 100, &mut scratch).expect("produced");
        assert_eq!(first, 0);
        // The same records a millisecond later: the first one read back is not the expected.
        let expected = Dataset::new(args.records, 1_700_000_000_001);
        let err = consume(&mut conn, &target, &expected, first, FETCH_MAX_BYTES).unwrap_err();
        assert!(
            matches!(
                err,
                Error::Mismatch {
                    offset: 0,
                    field: "timestamp"
                }
            ),
            "{err}"
        );
        // Fewer records expected than the partition holds: more came back than were produced.
        let fewer = Dataset::new(200, 1_700_000_000_000);
        let err = consume(&mut conn, &target, &fewer, first, FETCH_MAX_BYTES).unwrap_err();
        assert!(matches!(err, Error::Unexpected(_)), "{err}");
    }

    #[test]
    fn the_command_line_is_read_and_checked() {
        let parse = |line: &str| Args::parse(line.split_whitespace().map(String::from));
        let args =
            parse("--records 5 --address 10.77.0.9/16 --transports kernel,smoltcp").expect("valid");
        assert_eq!(args.records, 5);
        assert_eq!(args.address, Ipv4Cidr::new(Ipv4Addr::new(10, 77, 0, 9), 16));
        assert_eq!(args.transports, [Kind::Kernel, Kind::Smoltcp]);
        assert!(parse("--records 0").is_err());
        assert!(parse("--batch").is_err());
        assert!(parse("--address 10.77.0.9").is_err());
        assert!(parse("--transports dpdk").is_err());
    }
}
