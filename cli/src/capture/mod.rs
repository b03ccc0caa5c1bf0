//! `kwire capture`: the Kafka exchanges of a pcap or pcapng capture, each response paired with
//! its request.

pub mod exchange;
pub mod lint;
pub mod print;
pub mod source;
pub mod structs;
pub mod tcp;
pub mod topics;
pub mod write;

use std::collections::HashMap;
use std::fs::File;
use std::io::{self, BufReader, Read, Write};
use std::net::SocketAddr;
use std::path::PathBuf;

use clap::Args;

use exchange::{Conversation, Ends, Event, Unanswered};
use print::{Printer, Show};
use source::Packet;
use tcp::Reassembler;

/// Kafka's port.
pub const DEFAULT_PORT: u16 = 9092;

/// The command line of `kwire capture`.
#[derive(Debug, Args)]
pub struct CaptureArgs {
    /// The capture: a pcap or pcapng file (as tcpdump, tshark or Wireshark write them); `-`
    /// reads standard input.
    pub file: PathBuf,
    /// A port brokers listen on (default 9092). May be repeated.
    #[arg(long = "port", short = 'p')]
    pub ports: Vec<u16>,
    /// What to print of each exchange.
    #[command(flatten)]
    pub show: Show,
    /// Exit with status 1 on any problem: a request the broker skipped or dropped, a frame
    /// that does not decode, damaged records, a response without its request, bytes missing
    /// from the capture, a lint finding of error level.
    #[arg(long)]
    pub check: bool,
    /// The order of the lines: `request` (each exchange at its request's time, so that times
    /// never go backwards; printed once the capture is read) or `completion` (each exchange as
    /// its response completes it, printed as the capture is read).
    #[arg(long, value_enum, default_value_t = Order::Request)]
    pub order: Order,
}

/// The order `kwire capture` prints its lines in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Order {
    /// By the time of each exchange's request.
    Request,
    /// As each exchange completes.
    Completion,
}

/// Where the lines go: straight out, or held to be printed in request order.
struct Lines<'o> {
    out: &'o mut dyn Write,
    /// With `--order request`: each line's time, its place in the order of completion, and its
    /// text.
    held: Option<Vec<(source::Time, usize, Vec<u8>)>>,
}

impl Lines<'_> {
    /// Prints `event`, or holds its lines; `now` stands for the time of an event without one.
    fn event(
        &mut self,
        printer: &mut Printer,
        ends: Ends,
        event: &Event,
        now: source::Time,
    ) -> io::Result<()> {
        match self.held.as_mut() {
            None => printer.event(ends, event, self.out),
            Some(held) => {
                let mut text = Vec::new();
                printer.event(ends, event, &mut text)?;
                if !text.is_empty() {
                    held.push((event.started().unwrap_or(now), held.len(), text));
                }
                Ok(())
            }
        }
    }

    /// Prints the lines held, in request order.
    fn flush(&mut self) -> io::Result<()> {
        if let Some(held) = self.held.as_mut() {
            held.sort_by_key(|(time, seq, _)| (*time, *seq));
            for (_, _, text) in held.drain(..) {
                self.out.write_all(&text)?;
            }
        }
        Ok(())
    }
}

/// One TCP connection of the capture.
#[derive(Debug)]
struct Connection {
    ends: Ends,
    conversation: Conversation,
    /// Client to server.
    up: Reassembler,
    /// Server to client.
    down: Reassembler,
    /// A FIN seen from the client, from the server.
    fins: (bool, bool),
    /// Who sent the first FIN or RST.
    closed_by: Option<Unanswered>,
}

impl Connection {
    fn new(ends: Ends, opened: bool) -> Self {
        Self {
            ends,
            conversation: if opened {
                Conversation::opened()
            } else {
                Conversation::default()
            },
            up: Reassembler::default(),
            down: Reassembler::default(),
            fins: (false, false),
            closed_by: None,
        }
    }

    /// Ends the connection: what is held behind gaps is delivered, what waits is reported.
    fn close(mut self, time: source::Time, why: Unanswered) -> (Ends, Vec<Event>) {
        let mut events = Vec::new();
        while self.up.has_gap() {
            let d = self.up.skip_gap();
            events.extend(self.conversation.client_bytes(time, &d.bytes, d.lost));
        }
        while self.down.has_gap() {
            let d = self.down.skip_gap();
            events.extend(self.conversation.server_bytes(time, &d.bytes, d.lost));
        }
        events.extend(self.conversation.close(why));
        (self.ends, events)
    }
}

/// The connections of a capture, by (client, server) address.
#[derive(Debug)]
struct Tracker {
    ports: Vec<u16>,
    connections: HashMap<(SocketAddr, SocketAddr), Connection>,
    /// Keys in the order connections were first seen.
    order: Vec<(SocketAddr, SocketAddr)>,
    last: source::Time,
}

impl Tracker {
    /// Takes one packet; returns the events it completes, with the connection they belong to.
    fn packet(&mut self, p: &Packet<'_>, printer: &mut Printer) -> Vec<(Ends, Event)> {
        printer.start_at(p.time);
        self.last = p.time;
        let Some(seg) = tcp::segment(p.link, p.data) else {
            return Vec::new();
        };
        let mut done = Vec::new();
        let (key, from_client) = if self.connections.contains_key(&(seg.src, seg.dst)) {
            ((seg.src, seg.dst), true)
        } else if self.connections.contains_key(&(seg.dst, seg.src)) {
            ((seg.dst, seg.src), false)
        } else {
            // The last ACKs of a connection already closed, or a reset for one never seen:
            // nothing to start a connection with.
            if !seg.syn && seg.payload.is_empty() {
                return done;
            }
            // A new connection: the SYN tells who opened it, else the broker's port.
            let from_client = if seg.syn {
                !seg.ack
            } else {
                !self.ports.contains(&seg.src.port())
            };
            let key = if from_client {
                (seg.src, seg.dst)
            } else {
                (seg.dst, seg.src)
            };
            if !self.ports.contains(&key.1.port()) {
                return done;
            }
            (key, from_client)
        };
        // A SYN from the client on addresses already seen: the old connection is over.
        if seg.syn && !seg.ack && from_client {
            done.extend(self.close(key, p.time, Unanswered::ClientClosed));
        }
        let conn = self.connections.entry(key).or_insert_with(|| {
            self.order.push(key);
            printer.tally.connections += 1;
            Connection::new(
                Ends {
                    client: key.0,
                    server: key.1,
                },
                seg.syn,
            )
        });
        let (stream, d) = if from_client {
            (true, conn.up.push(seg.seq, seg.syn, seg.payload))
        } else {
            (false, conn.down.push(seg.seq, seg.syn, seg.payload))
        };
        if !d.bytes.is_empty() || d.lost > 0 {
            let events = if stream {
                conn.conversation.client_bytes(p.time, &d.bytes, d.lost)
            } else {
                conn.conversation.server_bytes(p.time, &d.bytes, d.lost)
            };
            done.extend(events.into_iter().map(|e| (conn.ends, e)));
        }
        // Who closed first decides what the requests still waiting were left by.
        if (seg.fin || seg.rst) && conn.closed_by.is_none() {
            conn.closed_by = Some(if from_client {
                Unanswered::ClientClosed
            } else {
                Unanswered::BrokerClosed
            });
        }
        if from_client {
            conn.fins.0 |= seg.fin;
        } else {
            conn.fins.1 |= seg.fin;
        }
        // Reset, or closed both ways: what still waits will not be answered.
        if seg.rst || conn.fins == (true, true) {
            let why = conn.closed_by.unwrap_or(Unanswered::ClientClosed);
            done.extend(self.close(key, p.time, why));
        }
        done
    }

    /// Closes the connection of `key`, if there is one.
    fn close(
        &mut self,
        key: (SocketAddr, SocketAddr),
        time: source::Time,
        why: Unanswered,
    ) -> Vec<(Ends, Event)> {
        let Some(conn) = self.connections.remove(&key) else {
            return Vec::new();
        };
        self.order.retain(|k| *k != key);
        let why = conn.closed_by.unwrap_or(why);
        let (ends, events) = conn.close(time, why);
        events.into_iter().map(|e| (ends, e)).collect()
    }

    /// The end of the capture: every connection is closed, in the order first seen.
    fn finish(mut self) -> Vec<(Ends, Event)> {
        let mut done = Vec::new();
        for key in self.order.clone() {
            done.extend(self.close(key, self.last, Unanswered::CaptureEnded));
        }
        done
    }
}

/// The ports named, or Kafka's.
fn ports(named: &[u16]) -> Vec<u16> {
    if named.is_empty() {
        vec![DEFAULT_PORT]
    } else {
        named.to_vec()
    }
}

/// The ports named, or Kafka's, as `9092` or `9092, 9093`.
fn ports_text(named: &[u16]) -> String {
    let p: Vec<String> = ports(named).iter().map(u16::to_string).collect();
    p.join(", ")
}

/// Runs `kwire capture`.
///
/// # Errors
///
/// The capture cannot be opened or read (the exchanges before the problem have been printed),
/// output failed, or `--check` found a problem.
pub fn run(args: &CaptureArgs, out: &mut dyn Write) -> Result<(), crate::Error> {
    let input: Box<dyn Read + Send> = if args.file.as_os_str() == "-" {
        Box::new(io::stdin())
    } else {
        let f = File::open(&args.file)
            .map_err(|e| crate::Error::Failed(format!("opening {}: {e}", args.file.display())))?;
        Box::new(BufReader::new(f))
    };
    read(input, args, out)
}

/// Reads the capture `input` as `kwire capture` does with `args` (whose file is not opened).
///
/// # Errors
///
/// As [`run`].
pub fn read(
    input: impl Read + Send,
    args: &CaptureArgs,
    out: &mut dyn Write,
) -> Result<(), crate::Error> {
    let mut tracker = Tracker {
        ports: ports(&args.ports),
        connections: HashMap::new(),
        order: Vec::new(),
        last: source::Time::default(),
    };
    let mut printer = Printer::new(args.show.clone());
    let mut lines = Lines {
        out,
        held: (args.order == Order::Request).then(Vec::new),
    };
    let mut written: io::Result<()> = Ok(());
    let mut packets = 0usize;
    let read = source::for_each_packet(input, |p| {
        packets += 1;
        if written.is_err() {
            return;
        }
        for (ends, e) in tracker.packet(&p, &mut printer) {
            if let Err(err) = lines.event(&mut printer, ends, &e, p.time) {
                written = Err(err);
                return;
            }
        }
    });
    written?;
    // What a truncated or damaged capture left open is reported before its error.
    let last = tracker.last;
    for (ends, e) in tracker.finish() {
        lines.event(&mut printer, ends, &e, last)?;
    }
    lines.flush()?;
    let out = lines.out;
    if packets > 0 || read.is_ok() {
        writeln!(out, "{}", printer.tally)?;
    }
    if packets > 0 && printer.tally.connections == 0 {
        writeln!(
            out,
            "(no TCP connection to port {} among {packets} packets: name the brokers' ports \
             with --port)",
            ports_text(&args.ports)
        )?;
    }
    read.map_err(crate::Error::Failed)?;
    if args.check && !printer.tally.clean() {
        return Err(crate::Error::Failed(format!(
            "--check: not every request was answered and decoded ({})",
            printer.tally
        )));
    }
    Ok(())
}
