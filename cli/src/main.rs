//! `kwire`: the command-line tool of the kwire codec.
//!
//! ```text
//! kwire page <Api> [--version N] [--schemas DIR]   the reference page of an API
//! kwire page <Api> --request|--response --hex   the smallest frame as one hex line
//! kwire list                                 every API with versions, headers and sizes
//! kwire catalog                              every key, version and direction as hex
//! kwire dissect [FILE|-] --request           the object tree of a request frame (-: stdin)
//! kwire dissect [FILE|-] --response --api-key K --version V [--records]
//! kwire site OUT_DIR [--schemas DIR]...      the catalogue as a static web site
//! kwire capture FILE [--port N]... [--api A]... [--tree] [--records] [--lint] [--check]
//!                                            the Kafka exchanges of a pcap or pcapng capture
//! kwire tap --listen ADDR --upstream ADDR [--api A]... [--tree] [--records] [--lint]
//!           [--write FILE]
//!                                            a proxy printing the exchanges it relays
//! kwire probe BROKER [--api A]... [--versions all|advertised] [--timeout MS] [--json]
//!           [--allow-writes] [--verbose]
//!                                            a conformance check of a broker
//! kwire probe BROKER --fuzz N [--seed S] [--out DIR] | --replay FILE
//!                                            seeded random and mutated requests
//! ```
//!
//! Exit codes: 0 success, 1 the input or the request could not be handled (the message says
//! why), 2 the command line was wrong.
//!
//! Each command is a module of the library, `kwire_cli::page` to `kwire_cli::probe`, with its
//! command line and its `run`; this file gathers their command lines and runs the one given.

use std::io::{self, Write};
use std::process::ExitCode;

use clap::{Parser, Subcommand};

use kwire_cli::{Error, capture, catalog, dissect, list, page, probe, site, tap};

#[derive(Debug, Parser)]
#[command(
    name = "kwire",
    version,
    about = "Reference pages and a dissector for the Kafka wire protocol",
    after_help = "Examples:
  kwire page RenewDelegationToken             the reference page, at the highest version
  kwire page fetch --version 16 --request --hex
  kwire list
  kwire dissect frame.bin --request
  xxd -p frame.bin | kwire dissect - --response --api-key Metadata --version 12

Exit codes: 0 success, 1 the input could not be handled, 2 the command line was wrong."
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// The reference page of an API: facts, and the smallest legal request and response with
    /// their byte layout and object tree.
    #[command(after_help = "Examples:
  kwire page RenewDelegationToken       by name, in any case
  kwire page 39 --version 1             by key, at a given version
  kwire page fetch --request --hex      only the smallest request frame, as one hex line
  kwire page 39 --schemas ../shared/kafka-schemas/message   with the fields' descriptions")]
    Page(page::PageArgs),
    /// Every API key: name, request and response versions, flexible versions, header versions
    /// and minimal frame sizes at the highest version.
    #[command(after_help = "Example:
  kwire list | grep -i share")]
    List(list::ListArgs),
    /// The smallest legal frame of every API key, version and direction, one hex line each.
    #[command(after_help = "Example:
  kwire catalog > catalog.txt")]
    Catalog(catalog::CatalogArgs),
    /// The object tree of one frame read from a file or stdin (binary, or hex with any
    /// whitespace).
    #[command(after_help = "Examples:
  kwire dissect frame.bin --request
  kwire dissect reply.hex --response --api-key Fetch --version 16 --records
  kwire page Heartbeat --request --hex | kwire dissect - --request")]
    Dissect(dissect::DissectArgs),
    /// The catalogue as a static web site: an index of every API key and a page per API and
    /// version, each with its byte layout and object tree; self-contained, nothing fetched.
    #[command(after_help = "Examples:
  kwire site target/site
  kwire site target/site --schemas ../shared/kafka-schemas/message \\
      --schemas ../shared/kafka-schemas/message-3.9
  kwire probe localhost:9092 --json > broker.json; kwire site target/site --probe broker.json
Then open target/site/index.html in a browser.")]
    Site(site::SiteArgs),
    /// The Kafka exchanges of a packet capture (pcap or pcapng; Ethernet, Linux cooked,
    /// loopback or raw IP; IPv4 and IPv6): each TCP connection reassembled, its frames cut,
    /// each response paired with its request and decoded. One line per exchange: time,
    /// connection, API and version, correlation and client ids, sizes, latency and the error
    /// codes the response holds.
    #[command(after_help = "Examples:
  tcpdump -i lo -w kafka.pcap port 9092     capture, then:
  kwire capture kafka.pcap
  kwire capture kafka.pcap --port 19092 --api Fetch --api Produce --tree
  tcpdump -i lo -U -w - port 9092 | kwire capture -")]
    Capture(capture::CaptureArgs),
    /// A live tap between clients and a cluster: it relays every frame as it came, prints
    /// each exchange as `kwire capture` does, and points the broker addresses clients are told
    /// (Metadata, FindCoordinator, DescribeCluster, the leader endpoints of Fetch, Produce and
    /// share-group responses) at itself, one port per broker, so that clients stay on the tap.
    #[command(after_help = "Examples:
  kwire tap --listen 127.0.0.1:19092 --upstream broker:9092
  kwire tap --listen 127.0.0.1:19092 --upstream broker:9092 --api Produce --records
  kwire tap --listen 127.0.0.1:19092 --upstream broker:9092 --write session.pcapng
  kwire capture session.pcapng --port 9092 --tree      later, from the file")]
    Tap(tap::TapArgs),
    /// A conformance check of a broker: ApiVersions, then the smallest legal request of every
    /// API and version it advertises (or every version kwire knows), each answer checked for
    /// its timing, correlation id, header version, decoding and error codes, and each version
    /// it does not advertise checked to be refused. Prints the matrix; exits with 1 on any
    /// finding.
    #[command(after_help = "Examples:
  kwire probe localhost:9092
  kwire probe localhost:9092 --versions all --api Fetch --api Metadata
  kwire probe localhost:9092 --json --timeout 2000 > probe.json
  kwire probe localhost:9092 --fuzz 500 --seed 7 --out findings
  kwire probe localhost:9092 --replay findings/seed7-12-ListGroups-v3.bin

Requests that create, delete or alter something are skipped unless --allow-writes.")]
    Probe(probe::ProbeArgs),
}

/// Writes to standard output through `run`, holding it for the whole command.
fn printed(run: impl FnOnce(&mut dyn Write) -> Result<(), Error>) -> Result<(), Error> {
    let stdout = io::stdout();
    let mut out = stdout.lock();
    run(&mut out).and_then(|()| out.flush().map_err(Error::Io))
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match &cli.command {
        Command::Page(args) => printed(|out| page::run(args, out)),
        Command::List(args) => printed(|out| list::run(args, out)),
        Command::Catalog(args) => printed(|out| catalog::run(args, out)),
        Command::Dissect(args) => printed(|out| dissect::run(args, out)),
        Command::Site(args) => printed(|out| site::run(args, out)),
        Command::Capture(args) => printed(|out| capture::run(args, out)),
        // The tap prints from the threads of its connections: standard output is not held.
        Command::Tap(args) => tap::run(args),
        Command::Probe(args) => printed(|out| probe::run(args, out)),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        // A closed pipe (`kwire catalog | head`) is not an error.
        Err(Error::Io(e)) if e.kind() == io::ErrorKind::BrokenPipe => ExitCode::SUCCESS,
        Err(Error::Io(e)) => {
            eprintln!("kwire: writing output: {e}");
            ExitCode::FAILURE
        }
        Err(Error::Failed(msg)) => {
            eprintln!("kwire: {msg}");
            ExitCode::FAILURE
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn command_lines() {
        let ok = |s: &str| Cli::try_parse_from(s.split_whitespace()).is_ok();
        assert!(ok("kwire page fetch --version 16"));
        assert!(ok("kwire page 39 --request --hex"));
        assert!(ok("kwire page 39 --schemas a --schemas b"));
        assert!(!ok("kwire page 39 --request --hex --schemas a"));
        assert!(ok("kwire dissect --request f.bin"));
        assert!(ok("kwire dissect --response --api-key Fetch --version 4"));
        assert!(!ok("kwire page"));
        assert!(!ok("kwire page fetch --request"));
        assert!(!ok("kwire dissect f.bin"));
        assert!(!ok("kwire dissect --response --api-key 1"));
        assert!(ok("kwire site out --schemas a --schemas b --wasm k.wasm"));
        assert!(!ok("kwire site"));
        assert!(!ok("kwire frobnicate"));
    }

    #[test]
    fn probe_command_lines() {
        let ok = |s: &str| Cli::try_parse_from(s.split_whitespace()).is_ok();
        assert!(ok("kwire probe b:9092"));
        assert!(ok(
            "kwire probe b:9092 --api Fetch --api 3 --versions all --timeout 100 --json"
        ));
        assert!(ok("kwire probe b:9092 --allow-writes --verbose"));
        assert!(ok("kwire probe b:9092 --fuzz 10 --seed 3 --out d"));
        assert!(ok("kwire probe b:9092 --replay f.bin"));
        assert!(!ok("kwire probe"));
        assert!(!ok("kwire probe b:9092 --versions some"));
        assert!(!ok("kwire probe b:9092 --timeout 0"));
        assert!(!ok("kwire probe b:9092 --seed 3"));
        assert!(!ok("kwire probe b:9092 --fuzz 10 --json"));
        assert!(!ok("kwire probe b:9092 --fuzz 10 --replay f.bin"));
        assert!(!ok("kwire probe b:9092 --api NoSuchApi"));
    }
}
