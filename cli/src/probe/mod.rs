//! `kwire probe`: a conformance check of a broker.
//!
//! The probe asks ApiVersions first, at the highest version kwire speaks (the session falls
//! back as Kafka's clients do when the broker does not know it), then sends, for every API and
//! version the broker advertises (or, with `--versions all`, every version kwire knows), the
//! smallest legal request: empty arrays, empty strings, defaults, which changes nothing on the
//! server. APIs that create, delete or alter something are skipped unless `--allow-writes`.
//!
//! Each answer is checked: it arrives within the timeout, carries the request's correlation
//! id, uses the response header version the protocol calls for, decodes at the version asked
//! with no byte left over, and holds only error codes the protocol defines. A version outside
//! the advertised range must be refused, with UNSUPPORTED_VERSION or by closing the connection
//! (a fresh connection is opened after a close). The result is a matrix of API, version and
//! verdict, as a table or a JSON document; any finding makes the command fail.
//!
//! This module reads the command line and runs the matrix; the rest, each depending only on
//! those listed before it:
//!
//! - `conn`: one connection to the broker, and the replies read from it;
//! - `verdict`: what a reply says about the broker;
//! - `opening`: a connection's ApiVersions and SASL exchanges;
//! - `requests`: what the probe sends;
//! - `report`: the matrix, as a table or a JSON document;
//! - [`fuzz`]: `--fuzz` and `--replay`.

mod conn;
pub mod fuzz;
mod opening;
mod report;
mod requests;
mod verdict;

use std::path::PathBuf;
use std::time::Duration;

use clap::Args;
use kwire::api::API_TABLE;
use kwire::codec::VersionRange;
use kwire::header::request_header_version;
use kwire::session::Client;
use kwire::{ApiKey, Request, frame};

use crate::security::Security;
use crate::{Error, parse_api};

pub use conn::{CLIENT_ID, Reply};
pub use opening::Hello;
pub use report::{ApiReport, Probe, VersionReport, parse_json, range_text};
pub use requests::{Versions, WRITES, is_write, minimal_request};
pub use verdict::{Outcome, Verdict, judge, judge_frame};

use conn::{Conn, Target};
use opening::{negotiate, reopen_conn};

/// The command line of `kwire probe`.
#[derive(Debug, Args)]
pub struct ProbeArgs {
    /// The broker: `host:port`.
    pub broker: String,
    /// Probe only this API (name in any case, or key). May be repeated.
    #[arg(long, value_parser = parse_api)]
    pub api: Vec<ApiKey>,
    /// Which versions to send: those the broker advertises, or every version kwire knows
    /// (the others must then be refused).
    #[arg(long, value_enum, default_value_t = Versions::Advertised)]
    pub versions: Versions,
    /// How long to wait for each answer and each connection, in milliseconds.
    #[arg(long, default_value_t = 5000, value_parser = clap::value_parser!(u64).range(1..))]
    pub timeout: u64,
    /// Print the matrix as a JSON document.
    #[arg(long, conflicts_with_all = ["fuzz", "replay"])]
    pub json: bool,
    /// Also send the APIs that create, delete or alter something (their smallest requests
    /// name nothing, yet a broker may still act on them).
    #[arg(long)]
    pub allow_writes: bool,
    /// Print each exchange as it happens, on standard error.
    #[arg(long)]
    pub verbose: bool,
    /// Instead of the matrix, send N requests built from seeded random instances and from
    /// mutations of them (lengths, counts, varints, tagged fields, truncations), each on a
    /// fresh connection and followed by an ApiVersions exchange that checks the broker still
    /// answers.
    #[arg(long, value_name = "N", conflicts_with = "replay")]
    pub fuzz: Option<u64>,
    /// The seed of --fuzz: the same seed against the same broker sends the same requests.
    #[arg(long, default_value_t = 0, requires = "fuzz")]
    pub seed: u64,
    /// Where --fuzz writes the frame of each finding, to replay with --replay.
    #[arg(
        long,
        value_name = "DIR",
        default_value = "probe-findings",
        requires = "fuzz"
    )]
    pub out: PathBuf,
    /// Send the request frame held in FILE (as --fuzz writes it) on a fresh connection, judge
    /// the answer, and check that the broker still answers.
    #[arg(long, value_name = "FILE")]
    pub replay: Option<PathBuf>,
    /// TLS and SASL towards the broker.
    #[command(flatten)]
    pub security: Security,
}

/// Runs `kwire probe`.
///
/// # Errors
///
/// `Failed` when the broker cannot be reached or its ApiVersions answer cannot be read, and
/// when the probe found a non-conformance (after printing the matrix).
pub fn run(args: &ProbeArgs, out: &mut dyn std::io::Write) -> Result<(), Error> {
    let timeout = Duration::from_millis(args.timeout);
    let target = Target::new(&args.broker, timeout, &args.security).map_err(Error::Failed)?;
    if let Some(file) = &args.replay {
        let (text, finding) = fuzz::replay(&target, file)?;
        out.write_all(text.as_bytes())?;
        if finding {
            out.flush()?;
            return Err(Error::Failed(format!(
                "the request in {} is a finding against {}",
                file.display(),
                args.broker
            )));
        }
        return Ok(());
    }
    if let Some(count) = args.fuzz {
        let run = fuzz::Run {
            broker: args.broker.clone(),
            count,
            seed: args.seed,
            out: args.out.clone(),
            target: target.clone(),
            apis: args.api.clone(),
            allow_writes: args.allow_writes,
            verbose: args.verbose,
        };
        let (text, findings) = fuzz::fuzz(&run)?;
        out.write_all(text.as_bytes())?;
        if findings > 0 {
            out.flush()?;
            return Err(Error::Failed(format!(
                "fuzzing {} found {findings} request{} the broker mishandles; their frames are in {}",
                args.broker,
                if findings == 1 { "" } else { "s" },
                args.out.display()
            )));
        }
        return Ok(());
    }
    let (mut conn, hello) = negotiate(&target, args.verbose)?;
    // The broker's ranges, kept: a fresh connection does not negotiate again.
    let ranges: Vec<Option<VersionRange>> = API_TABLE
        .iter()
        .map(|i| conn.client.advertised(i.key))
        .collect();
    // The ids of fresh connections: any will do, distinct ones read better in a capture.
    let mut next_id: i32 = 1000;
    let mut probe = Probe {
        broker: args.broker.clone(),
        api_versions: hello.clone(),
        versions: args.versions,
        timeout_ms: args.timeout,
        apis: Vec::new(),
        stopped: None,
    };
    'apis: for (info, &advertised) in API_TABLE.iter().zip(&ranges) {
        if !args.api.is_empty() && !args.api.contains(&info.key) {
            continue;
        }
        let known = info.request_versions;
        if known.is_empty() || (args.versions == Versions::Advertised && advertised.is_none()) {
            continue;
        }
        let mut report = ApiReport {
            key: info.key,
            name: info.name,
            advertised,
            versions: Vec::new(),
        };
        for version in known.min..=known.max {
            let is_advertised = advertised.is_some_and(|r| r.contains(version));
            if args.versions == Versions::Advertised && !is_advertised {
                continue;
            }
            let outcome = if is_write(info.key) && !args.allow_writes {
                Outcome::new(Verdict::SkippedWrites, "")
            } else {
                let (outcome, reopen) =
                    probe_one(&mut conn, info.key, version, is_advertised, args.verbose);
                next_id = next_id.wrapping_add(1).max(0);
                if reopen {
                    match reopen_conn(&target, next_id) {
                        Ok(fresh) => conn = fresh,
                        Err(why) => {
                            report.versions.push(VersionReport { version, outcome });
                            probe.apis.push(report);
                            probe.stopped = Some(format!(
                                "after {} v{version}, the broker takes no new connection: {why}",
                                info.name
                            ));
                            break 'apis;
                        }
                    }
                }
                outcome
            };
            report.versions.push(VersionReport { version, outcome });
        }
        probe.apis.push(report);
    }
    let text = if args.json {
        probe.json()
    } else {
        probe.table()
    };
    out.write_all(text.as_bytes())?;
    let findings = probe.findings();
    if findings > 0 {
        out.flush()?;
        return Err(Error::Failed(format!(
            "the broker at {} does not conform: {findings} finding{}",
            args.broker,
            if findings == 1 { "" } else { "s" }
        )));
    }
    Ok(())
}

/// Sends the smallest request of `api` at `version` on `conn` and judges the answer. The
/// second value says whether the connection must be replaced: after a close, a timeout or a
/// stream that cannot be read further.
fn probe_one(
    conn: &mut Conn,
    api: ApiKey,
    version: i16,
    advertised: bool,
    verbose: bool,
) -> (Outcome, bool) {
    let Some(bytes) = minimal_request(api, version) else {
        return (
            Outcome::new(Verdict::NotSent, "kwire cannot write this request"),
            false,
        );
    };
    let request = match frame::decode_request(&bytes) {
        Ok((_, request)) => answered(request),
        Err(e) => {
            return (
                Outcome::new(
                    Verdict::NotSent,
                    format!("kwire cannot read its request: {e}"),
                ),
                false,
            );
        }
    };
    // Request header v0 (ControlledShutdown v0) has no client id: a session with the default,
    // empty one sends it, and the connection's session takes over again after.
    let plain = request_header_version(api, version) == 0;
    let saved = plain.then(|| std::mem::replace(&mut conn.client, Client::new(Some(""))));
    let reply = conn.exchange(&request, version);
    if let Some(saved) = saved {
        conn.client = saved;
    }
    let reply = match reply {
        Ok(reply) => reply,
        Err(why) => return (Outcome::new(Verdict::NotSent, why), false),
    };
    let reopen = !matches!(reply, Reply::Frame(_));
    let outcome = judge(&reply, api, version, advertised);
    if verbose {
        let name = api.info().map_or("?", |i| i.name);
        eprintln!(
            "{name} v{version}: {} {}",
            outcome.verdict.name(),
            outcome.detail
        );
    }
    // After a refusal, a broker may have closed as well: a fresh connection costs little.
    let reopen = reopen || outcome.verdict != Verdict::Ok;
    (outcome, reopen)
}

/// The request with a response due: a Produce asks for acknowledgement by the leader (its
/// smallest instance has `acks` 0, which gets no response).
fn answered(request: Request<'_>) -> Request<'_> {
    match request {
        Request::Produce(p) => Request::Produce(p.with_acks(1)),
        other => other,
    }
}
