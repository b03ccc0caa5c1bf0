//! The lines `kwire capture` and `kwire tap` print: one per exchange, and the trees below it
//! when asked for.

use std::fmt::Write as _;
use std::io::{self, Write};

use kwire::ApiKey;
use kwire_schema::describe::{self, DescribeError, Visit};

// The ends each line names, for the callers of the printer.
use super::exchange::Ends;
use super::exchange::{ErrorCodes, Event, Frame, Request, Unanswered};
use super::lint::{Finding, Level, Linter};
use super::source::Time;
use super::topics::TopicNames;
use kwire_site::records;

/// What to print of each exchange: the options `kwire capture` and `kwire tap` share.
#[derive(Debug, Clone, Default, clap::Args)]
pub struct Show {
    /// Only the exchanges of this API, by name or key. May be repeated.
    #[arg(long = "api", value_parser = crate::parse_api)]
    pub apis: Vec<ApiKey>,
    /// Print the object trees of each request and response below its line.
    #[arg(long)]
    pub tree: bool,
    /// Print every record of the exchanges' records fields (Produce, Fetch, share fetches):
    /// offset, time, key, value and headers, compressed batches decompressed, control records
    /// named.
    #[arg(long)]
    pub records: bool,
    /// Check every exchange against the protocol as Kafka writes it (varints in their shortest
    /// form, tagged fields in order and not at their defaults, header versions, versions the
    /// broker advertised, correlation ids, size prefixes, leader endpoints, removed versions)
    /// and print each finding below its line; `--check` fails on findings of error level.
    #[arg(long)]
    pub lint: bool,
    /// Show SaslAuthenticate's auth bytes (passwords, SCRAM proofs, tokens) in the trees,
    /// which otherwise show them as their length and mechanism step only.
    #[arg(long)]
    pub show_secrets: bool,
}

/// Writes the object tree of a request frame, or with `response` (its API and version) of a
/// response frame; credentials as their length and step unless `secrets` says to show them.
///
/// # Errors
///
/// As [`describe::render`].
pub fn write_tree(
    frame: &[u8],
    response: Option<(ApiKey, i16)>,
    secrets: bool,
    out: &mut String,
) -> Result<(), DescribeError> {
    let walk = |v: &mut dyn Visit| match response {
        Some((api, version)) => describe::visit_response_frame(frame, api, version, v),
        None => describe::visit_request_frame(frame, v),
    };
    if secrets {
        describe::render(out, |v| walk(&mut describe::Reveal(v)))
    } else {
        describe::render(out, walk)
    }
}

/// What was seen, for the last line.
#[derive(Debug, Default, Clone, Copy)]
pub struct Tally {
    /// Connections.
    pub connections: usize,
    /// Requests answered.
    pub exchanges: usize,
    /// Produce requests with `acks = 0`.
    pub acks_zero: usize,
    /// Requests still waiting when the client closed the connection or the capture ended.
    pub waiting: usize,
    /// Requests the broker left unanswered: skipped, or the connection closed by the broker.
    pub unanswered: usize,
    /// Requests or responses that do not decode.
    pub malformed: usize,
    /// Responses to requests the capture does not hold.
    pub orphans: usize,
    /// Stretches of bytes lost or skipped.
    pub lost: usize,
    /// Exchanges whose records are damaged (a CRC that does not match, an entry or record that
    /// cannot be read).
    pub damaged: usize,
    /// Whether the exchanges were linted.
    pub linted: bool,
    /// Lint findings of error level.
    pub lint_errors: usize,
    /// Lint findings of warning level.
    pub lint_warnings: usize,
}

impl Tally {
    /// Whether everything seen was answered and decoded.
    pub fn clean(&self) -> bool {
        self.unanswered == 0
            && self.malformed == 0
            && self.orphans == 0
            && self.lost == 0
            && self.damaged == 0
            && self.lint_errors == 0
    }

    /// Every request seen.
    pub fn requests(&self) -> usize {
        self.exchanges + self.acks_zero + self.waiting + self.unanswered
    }
}

impl Tally {
    /// Counts `findings` and writes them, a line each, into `text`.
    fn lint(&mut self, findings: &[Finding], text: &mut String) {
        for f in findings {
            match f.level {
                Level::Error => self.lint_errors += 1,
                Level::Warning => self.lint_warnings += 1,
            }
            let _ = writeln!(text, "  {f}");
        }
    }
}

impl std::fmt::Display for Tally {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let s = |n: usize| if n == 1 { "" } else { "s" };
        let requests = self.requests();
        write!(
            f,
            "{requests} request{} on {} connection{}: {} answered, {} with acks=0, {} left \
             waiting; {} unanswered, {} malformed, {} with damaged records, {} response{} \
             without a request, {} stream problem{}",
            s(requests),
            self.connections,
            s(self.connections),
            self.exchanges,
            self.acks_zero,
            self.waiting,
            self.unanswered,
            self.malformed,
            self.damaged,
            self.orphans,
            s(self.orphans),
            self.lost,
            s(self.lost)
        )?;
        if self.linted {
            write!(
                f,
                "; lint: {} error{}, {} warning{}",
                self.lint_errors,
                s(self.lint_errors),
                self.lint_warnings,
                s(self.lint_warnings)
            )?;
        }
        Ok(())
    }
}

/// Prints events as they come.
#[derive(Debug)]
pub struct Printer {
    show: Show,
    /// With `--lint`: what the exchanges so far taught.
    linter: Option<Linter>,
    /// The topic names the responses so far gave.
    topics: TopicNames,
    /// Times are printed from here.
    start: Option<Time>,
    /// The counts so far.
    pub tally: Tally,
}

/// Ignores the nodes: a walk only to validate.
struct Check;

impl Visit for Check {
    fn node(&mut self, _: &describe::Node<'_>) -> std::fmt::Result {
        Ok(())
    }
}

fn api_name(api: ApiKey) -> String {
    api.name()
        .map_or_else(|| format!("ApiKey{}", api.0), str::to_owned)
}

impl Printer {
    /// A printer of what `show` selects.
    pub fn new(show: Show) -> Self {
        Self {
            linter: show.lint.then(Linter::default),
            topics: TopicNames::default(),
            tally: Tally {
                linted: show.lint,
                ..Tally::default()
            },
            show,
            start: None,
        }
    }

    /// Times count from `t` (the first packet, or the moment a tap started).
    pub fn start_at(&mut self, t: Time) {
        self.start.get_or_insert(t);
    }

    fn wanted(&self, api: ApiKey) -> bool {
        self.show.apis.is_empty() || self.show.apis.contains(&api)
    }

    fn time(&mut self, t: Time) -> String {
        t.since(*self.start.get_or_insert(t))
    }

    /// The start of a line about a request: time, ends, API, version, correlation and
    /// client ids, and request size.
    fn request_line(&mut self, ends: Ends, r: &Request) -> String {
        let mut line = format!(
            "{}  {} > {}  {} v{}  corr {}",
            self.time(r.frame.time),
            ends.client,
            ends.server,
            api_name(r.api_key),
            r.version,
            r.correlation_id
        );
        match &r.client_id {
            Some(id) => {
                let _ = write!(line, "  client {id:?}");
            }
            None => line.push_str("  client null"),
        }
        let _ = write!(line, "  {}B", r.frame.bytes.len());
        line
    }

    /// Prints one event.
    ///
    /// # Errors
    ///
    /// Writing to `out` failed.
    pub fn event(&mut self, ends: Ends, event: &Event, out: &mut dyn Write) -> io::Result<()> {
        let mut text;
        match event {
            Event::Exchange(req, resp) => {
                if !self.wanted(req.api_key) {
                    return Ok(());
                }
                self.tally.exchanges += 1;
                text = self.request_line(ends, req);
                let _ = write!(
                    text,
                    " > {}B  {}",
                    resp.bytes.len(),
                    req.frame.time.millis_to(resp.time)
                );
                let req_ok = describe::visit_request_frame(&req.frame.bytes, &mut Check);
                let mut codes = ErrorCodes::default();
                let resp_ok = describe::visit_response_frame(
                    &resp.bytes,
                    req.api_key,
                    req.version,
                    &mut codes,
                );
                if let Err(e) = &req_ok {
                    self.tally.malformed += 1;
                    let _ = write!(text, "  request malformed: {}", why(e));
                }
                if let Err(e) = &resp_ok {
                    self.tally.malformed += 1;
                    let _ = write!(text, "  response malformed: {}", why(e));
                }
                // The records are read whether or not they are shown: damaged ones mark the line.
                let mut records = if self.show.records {
                    records::Report::printed()
                } else {
                    records::Report::checked()
                };
                self.topics
                    .learn(ends.server, &resp.bytes, req.api_key, req.version);
                let names = |id| self.topics.name(ends.server, id).map(str::to_owned);
                records::request_records(&req.frame.bytes, &names, &mut records);
                records::response_records(
                    &resp.bytes,
                    req.api_key,
                    req.version,
                    &names,
                    &mut records,
                );
                if let Some(summary) = records.summary() {
                    self.tally.damaged += 1;
                    let _ = write!(text, "  damaged records: {summary}");
                }
                if !codes.0.is_empty() {
                    text.push_str("  errors:");
                    for (i, (code, n)) in codes.0.iter().enumerate() {
                        let sep = if i == 0 { " " } else { ", " };
                        let _ = write!(text, "{sep}{code} ({})", code.0);
                        if *n > 1 {
                            let _ = write!(text, " x{n}");
                        }
                    }
                } else if req_ok.is_ok() && resp_ok.is_ok() && records.summary().is_none() {
                    text.push_str("  ok");
                }
                text.push('\n');
                if let Some(linter) = self.linter.as_mut() {
                    let findings = linter.exchange(ends, req, Some(resp));
                    self.tally.lint(&findings, &mut text);
                }
                if self.show.tree {
                    let secrets = self.show.show_secrets;
                    let mut tree = String::from("request:\n");
                    let _ = write_tree(&req.frame.bytes, None, secrets, &mut tree);
                    tree.push_str("response:\n");
                    let response = Some((req.api_key, req.version));
                    let _ = write_tree(&resp.bytes, response, secrets, &mut tree);
                    text.push_str(&self.topics.annotate(ends.server, &tree));
                }
                text.push_str(&records.into_text());
                if self.show.tree {
                    text.push('\n');
                }
            }
            Event::Unanswered(req, why) => {
                if !self.wanted(req.api_key) {
                    return Ok(());
                }
                text = self.request_line(ends, req);
                match why {
                    Unanswered::AcksZero => self.tally.acks_zero += 1,
                    w if w.is_problem() => self.tally.unanswered += 1,
                    _ => self.tally.waiting += 1,
                }
                let mut records = if self.show.records {
                    records::Report::printed()
                } else {
                    records::Report::checked()
                };
                let names = |id| self.topics.name(ends.server, id).map(str::to_owned);
                records::request_records(&req.frame.bytes, &names, &mut records);
                if let Some(summary) = records.summary() {
                    self.tally.damaged += 1;
                    let _ = write!(text, "  damaged records: {summary}");
                }
                let _ = writeln!(text, "  ({})", why.text());
                if let Some(linter) = self.linter.as_mut() {
                    let findings = linter.unanswered(ends, req, *why);
                    self.tally.lint(&findings, &mut text);
                }
                if self.show.tree {
                    let mut tree = String::from("request:\n");
                    let secrets = self.show.show_secrets;
                    let _ = write_tree(&req.frame.bytes, None, secrets, &mut tree);
                    text.push_str(&self.topics.annotate(ends.server, &tree));
                }
                text.push_str(&records.into_text());
                if self.show.tree {
                    text.push('\n');
                }
            }
            Event::Orphan(resp, correlation_id) => {
                self.tally.orphans += 1;
                text = format!(
                    "{}  {} > {}  response corr {correlation_id}  {}B  (its request is not in \
                     the capture)\n",
                    self.time(resp.time),
                    ends.client,
                    ends.server,
                    resp.bytes.len()
                );
            }
            Event::BadRequest(f, e) => {
                self.tally.malformed += 1;
                text = self.frame_line(ends, f, &format!("request header malformed: {e}"));
            }
            Event::Lost {
                from_client,
                message,
            } => {
                self.tally.lost += 1;
                let (from, to) = if *from_client {
                    (ends.client, ends.server)
                } else {
                    (ends.server, ends.client)
                };
                text = format!("{from} > {to}: {message}\n");
            }
        }
        out.write_all(text.as_bytes())
    }

    fn frame_line(&mut self, ends: Ends, f: &Frame, what: &str) -> String {
        format!(
            "{}  {} > {}  frame of {}B at stream byte {}: {what}\n",
            self.time(f.time),
            ends.client,
            ends.server,
            f.bytes.len(),
            f.offset
        )
    }
}

fn why(e: &DescribeError) -> String {
    match e {
        DescribeError::Decode(e) => e.to_string(),
        DescribeError::UnknownApi => "no schema for this API key and version".into(),
        other => other.to_string(),
    }
}
