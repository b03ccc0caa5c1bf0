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

use std::fmt::Write as _;
use std::io::{self, Read, Write};
use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Args, Parser, Subcommand};
use kwire::ApiKey;
use kwire::api::API_TABLE;
use kwire_schema::describe::{self, DescribeError, Side};

use kwire_site as site;

use kwire_cli::{Error, capture, parse_api, probe, tap};
use kwire_site::records;

/// Scratch space for one minimal frame (the largest is a few hundred bytes).
const SCRATCH: usize = 1 << 16;

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
    Page(PageArgs),
    /// Every API key: name, request and response versions, flexible versions, header versions
    /// and minimal frame sizes at the highest version.
    #[command(after_help = "Example:
  kwire list | grep -i share")]
    List,
    /// The smallest legal frame of every API key, version and direction, one hex line each.
    #[command(after_help = "Example:
  kwire catalog > catalog.txt")]
    Catalog,
    /// The object tree of one frame read from a file or stdin (binary, or hex with any
    /// whitespace).
    #[command(after_help = "Examples:
  kwire dissect frame.bin --request
  kwire dissect reply.hex --response --api-key Fetch --version 16 --records
  kwire page Heartbeat --request --hex | kwire dissect - --request")]
    Dissect(DissectArgs),
    /// The catalogue as a static web site: an index of every API key and a page per API and
    /// version, each with its byte layout and object tree; self-contained, nothing fetched.
    #[command(after_help = "Examples:
  kwire site target/site
  kwire site target/site --schemas ../shared/kafka-schemas/message \\
      --schemas ../shared/kafka-schemas/message-3.9
  kwire probe localhost:9092 --json > broker.json; kwire site target/site --probe broker.json
Then open target/site/index.html in a browser.")]
    Site(SiteArgs),
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

#[derive(Debug, Args)]
struct SiteArgs {
    /// The directory to write the site into (created if missing).
    out_dir: PathBuf,
    /// A directory of Kafka's JSON message schemas (its `message` directory). The pages then
    /// also show each field's description and the message's schema. May be repeated; the
    /// first directory holding a message's file is used.
    #[arg(long)]
    schemas: Vec<PathBuf>,
    /// The dissector built for the browser (`cargo build --release -p kwire-wasm --target
    /// wasm32-unknown-unknown`): the site then has a page that dissects a pasted frame.
    #[arg(long)]
    wasm: Option<PathBuf>,
    /// A JSON document of `kwire probe --json`: the site then has `probe.html`, the matrix of
    /// each broker's verdicts. May be repeated.
    #[arg(long, value_name = "RESULTS.json")]
    probe: Vec<PathBuf>,
}

#[derive(Debug, Args)]
struct PageArgs {
    /// The API: its name in any case (`RenewDelegationToken`, `fetch`) or its key (`39`).
    #[arg(value_parser = parse_api)]
    api: ApiKey,
    /// The version to encode at (default: the highest).
    #[arg(long, short = 'v')]
    version: Option<i16>,
    /// With --hex: the request frame.
    #[arg(long, conflicts_with = "response", requires = "hex")]
    request: bool,
    /// With --hex: the response frame.
    #[arg(long, requires = "hex")]
    response: bool,
    /// Print only the frame, as one line of lowercase hex.
    #[arg(long)]
    hex: bool,
    /// A directory of Kafka's JSON message schemas: the trees then carry each field's
    /// description, as the reference pages and the site show them. May be repeated.
    #[arg(long, conflicts_with = "hex")]
    schemas: Vec<PathBuf>,
}

#[derive(Debug, Args)]
struct DissectArgs {
    /// The file holding the frame; `-` or none reads standard input.
    file: Option<PathBuf>,
    /// The frame is a request (its header names the API and version).
    #[arg(
        long,
        conflicts_with = "response",
        required_unless_present = "response"
    )]
    request: bool,
    /// The frame is a response (give --api-key and --version).
    #[arg(long, requires_all = ["api_key", "version"])]
    response: bool,
    /// The API of a response: name or key.
    #[arg(long, value_parser = parse_api)]
    api_key: Option<ApiKey>,
    /// The version of a response.
    #[arg(long, short = 'v')]
    version: Option<i16>,
    /// After the tree, every record of every records field: offset, time, key, value and
    /// headers (compressed batches decompressed, control records named).
    #[arg(long)]
    records: bool,
    /// Show SaslAuthenticate's auth bytes (passwords, SCRAM proofs, tokens), which the tree
    /// otherwise shows as their length and mechanism step only.
    #[arg(long)]
    show_secrets: bool,
}

fn describe_error(api: ApiKey, version: Option<i16>, e: DescribeError) -> Error {
    match e {
        DescribeError::UnknownApi => {
            let Some(info) = api.info() else {
                return Error::Failed(format!("unknown API key {}", api.0));
            };
            Error::Failed(format!(
                "{} has no version {} (requests {}, responses {})",
                info.name,
                version.map_or_else(|| "?".into(), |v| v.to_string()),
                info.request_versions,
                info.response_versions
            ))
        }
        other => Error::Failed(other.to_string()),
    }
}

fn page(args: &PageArgs, out: &mut dyn Write) -> Result<(), Error> {
    let mut scratch = vec![0u8; SCRATCH];
    let mut text = String::new();
    if args.hex {
        let (_, version) = describe::page_version(args.api, args.version)
            .map_err(|e| describe_error(args.api, args.version, e))?;
        let side = if args.response {
            Side::Response
        } else {
            Side::Request
        };
        let n = describe::write_minimal_frame(args.api, version, side, &mut scratch)
            .map_err(|e| describe_error(args.api, Some(version), e))?;
        describe::write_hex(&scratch[..n], &mut text)?;
        text.push('\n');
    } else if args.schemas.is_empty() {
        describe::page(args.api, args.version, &mut scratch, &mut text)
            .map_err(|e| describe_error(args.api, args.version, e))?;
    } else {
        schema_dirs(&args.schemas)?;
        describe::page_version(args.api, args.version)
            .map_err(|e| describe_error(args.api, args.version, e))?;
        text = site::page_text(args.api, args.version, &args.schemas).map_err(Error::Failed)?;
    }
    out.write_all(text.as_bytes())?;
    Ok(())
}

fn minimal_len(api: ApiKey, version: i16, side: Side, scratch: &mut [u8]) -> String {
    describe::write_minimal_frame(api, version, side, scratch)
        .map_or_else(|_| "-".into(), |n| n.to_string())
}

fn list(out: &mut dyn Write) -> Result<(), Error> {
    let mut scratch = vec![0u8; SCRATCH];
    let width = API_TABLE.iter().map(|i| i.name.len()).max().unwrap_or(0);
    let mut text = String::new();
    writeln!(
        text,
        "key  {:<width$}  {:<9} {:<9} {:<9} {:<9} {:<7} {:>8} {:>9}",
        "name", "request", "flexible", "response", "flexible", "headers", "req size", "resp size"
    )?;
    for info in API_TABLE {
        let top = info.request_versions.max;
        let (headers, req, resp) = if info.request_versions.is_empty() {
            ("-".to_string(), "-".to_string(), "-".to_string())
        } else {
            (
                format!(
                    "{}/{}",
                    Side::Request.header_version(info.key, top),
                    Side::Response.header_version(info.key, top)
                ),
                minimal_len(info.key, top, Side::Request, &mut scratch),
                minimal_len(info.key, top, Side::Response, &mut scratch),
            )
        };
        writeln!(
            text,
            "{:>3}  {:<width$}  {:<9} {:<9} {:<9} {:<9} {:<7} {:>8} {:>9}",
            info.key.0,
            info.name,
            info.request_versions.to_string(),
            info.request_flexible.to_string(),
            info.response_versions.to_string(),
            info.response_flexible.to_string(),
            headers,
            req,
            resp,
        )?;
    }
    out.write_all(text.as_bytes())?;
    Ok(())
}

fn catalog(out: &mut dyn Write) -> Result<(), Error> {
    let mut scratch = vec![0u8; SCRATCH];
    let mut text = String::new();
    for info in API_TABLE {
        for version in info.request_versions.min..=info.request_versions.max {
            if info.request_versions.is_empty() {
                break;
            }
            for side in [Side::Request, Side::Response] {
                let n = describe::write_minimal_frame(info.key, version, side, &mut scratch)
                    .map_err(|e| describe_error(info.key, Some(version), e))?;
                write!(
                    text,
                    "{} {} {version} {} ",
                    info.key.0,
                    info.name,
                    side.name()
                )?;
                describe::write_hex(&scratch[..n], &mut text)?;
                text.push('\n');
            }
        }
    }
    out.write_all(text.as_bytes())?;
    Ok(())
}

/// The frame bytes: hex when the input is only hex digits and whitespace, else binary.
fn frame_bytes(input: &[u8]) -> Result<Vec<u8>, Error> {
    let text = input
        .iter()
        .all(|b| b.is_ascii_hexdigit() || b.is_ascii_whitespace());
    if !text || input.iter().all(u8::is_ascii_whitespace) {
        return Ok(input.to_vec());
    }
    let digits: Vec<u8> = input
        .iter()
        .copied()
        .filter(u8::is_ascii_hexdigit)
        .collect();
    if !digits.len().is_multiple_of(2) {
        return Err(Error::Failed(format!(
            "the hex input has an odd number of digits ({})",
            digits.len()
        )));
    }
    Ok(digits
        .chunks(2)
        .map(|pair| {
            let hi = (pair[0] as char).to_digit(16).unwrap_or(0);
            let lo = (pair[1] as char).to_digit(16).unwrap_or(0);
            u8::try_from(hi * 16 + lo).unwrap_or(0)
        })
        .collect())
}

fn dissect(args: &DissectArgs, out: &mut dyn Write) -> Result<(), Error> {
    let mut input = Vec::new();
    match args.file.as_deref().filter(|p| p.as_os_str() != "-") {
        Some(path) => {
            input = std::fs::read(path)
                .map_err(|e| Error::Failed(format!("reading {}: {e}", path.display())))?;
        }
        None => {
            io::stdin()
                .read_to_end(&mut input)
                .map_err(|e| Error::Failed(format!("reading stdin: {e}")))?;
        }
    }
    let frame = frame_bytes(&input)?;
    let mut text = String::new();
    // The records are read whether or not they are shown: a damaged batch fails the command.
    let mut report = if args.records {
        records::Report::printed()
    } else {
        records::Report::checked()
    };
    let result = match (args.response, args.api_key, args.version) {
        (true, Some(api), Some(version)) => {
            let response = Some((api, version));
            let result = capture::print::write_tree(&frame, response, args.show_secrets, &mut text);
            records::response_records(&frame, api, version, &|_| None, &mut report);
            result
        }
        _ => {
            let result = capture::print::write_tree(&frame, None, args.show_secrets, &mut text);
            records::request_records(&frame, &|_| None, &mut report);
            result
        }
    };
    let damaged = report.summary();
    text.push_str(&report.into_text());
    out.write_all(text.as_bytes())?;
    if result.is_ok()
        && let Some(summary) = damaged
    {
        return Err(Error::Failed(format!("damaged records: {summary}")));
    }
    match result {
        Ok(()) => Ok(()),
        Err(DescribeError::Decode(e)) => Err(Error::Failed(format!("malformed frame: {e}"))),
        Err(DescribeError::UnknownApi) => Err(Error::Failed(
            "the frame names an API key or version this tool has no schema for".into(),
        )),
        Err(e) => Err(Error::Failed(e.to_string())),
    }
}

/// Fails unless each of `dirs` is a directory that holds JSON files: a `--schemas` that names
/// nothing would otherwise leave the descriptions out without a word.
fn schema_dirs(dirs: &[PathBuf]) -> Result<(), Error> {
    for dir in dirs {
        let entries = std::fs::read_dir(dir)
            .map_err(|e| Error::Failed(format!("--schemas {}: {e}", dir.display())))?;
        let json = entries
            .filter_map(Result::ok)
            .any(|e| e.path().extension().is_some_and(|x| x == "json"));
        if !json {
            return Err(Error::Failed(format!(
                "--schemas {}: the directory holds no message schemas (no .json files)",
                dir.display()
            )));
        }
    }
    Ok(())
}

fn site(args: &SiteArgs, out: &mut dyn Write) -> Result<(), Error> {
    schema_dirs(&args.schemas)?;
    let probe = args
        .probe
        .iter()
        .map(|path| {
            let text = std::fs::read_to_string(path)
                .map_err(|e| Error::Failed(format!("reading {}: {e}", path.display())))?;
            probe::parse_json(&text).map_err(|e| {
                Error::Failed(format!(
                    "{}: not the results of kwire probe --json: {e}",
                    path.display()
                ))
            })
        })
        .collect::<Result<Vec<_>, Error>>()?;
    let summary = site::write_site(&site::Options {
        out: args.out_dir.clone(),
        schemas: args.schemas.clone(),
        wasm: args.wasm.clone(),
        probe,
    })
    .map_err(Error::Failed)?;
    writeln!(
        out,
        "wrote {} pages to {} ({} message schemas found); open {}",
        summary.pages,
        args.out_dir.display(),
        summary.schemas,
        args.out_dir.join("index.html").display()
    )?;
    Ok(())
}

/// Runs a command that writes to `out`.
fn run(command: &Command, out: &mut dyn Write) -> Result<(), Error> {
    match command {
        Command::Page(args) => page(args, out),
        Command::List => list(out),
        Command::Catalog => catalog(out),
        Command::Dissect(args) => dissect(args, out),
        Command::Site(args) => site(args, out),
        Command::Capture(args) => capture::run(args, out),
        Command::Tap(args) => tap::run(args),
        Command::Probe(args) => probe::run(args, out),
    }
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match &cli.command {
        // The tap prints from the threads of its connections: standard output is not held.
        Command::Tap(args) => tap::run(args),
        command => {
            let stdout = io::stdout();
            let mut out = stdout.lock();
            run(command, &mut out).and_then(|()| out.flush().map_err(Error::Io))
        }
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
    fn apis_by_name_or_key() {
        assert_eq!(
            parse_api("renewdelegationtoken"),
            Ok(ApiKey::RENEW_DELEGATION_TOKEN)
        );
        assert_eq!(parse_api("1"), Ok(ApiKey::FETCH));
        assert!(parse_api("NoSuchApi").is_err());
        assert!(parse_api("9999").is_err());
    }

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

    #[test]
    fn hex_or_binary_input() {
        assert_eq!(frame_bytes(b"00 01\n0a FF").unwrap(), [0, 1, 10, 255]);
        assert_eq!(frame_bytes(&[0, 0, 0, 1, 7]).unwrap(), [0, 0, 0, 1, 7]);
        assert!(frame_bytes(b"abc").is_err());
    }
}
