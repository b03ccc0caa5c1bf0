//! Runs kwire and `kafka-protocol` on each workload, alternately, and prints one line per
//! workload with the ratio of their median times (peer time / our time; above 1 means kwire
//! is faster):
//!
//! ```text
//! cargo run --release --example bench_report [-- --quick] [-- --verbose] [-- --breadth [--mixed-strings]]
//! ```
//!
//! The two implementations run in interleaved rounds on the same input bytes, so slow phases of a
//! shared machine hit both alike; the medians of the per-round times are compared. The inputs are
//! those of the criterion benches (the `kwire-workloads` package, `benches/workloads/`).
//!
//! With `--breadth`, it runs the breadth comparison instead ([`breadth`]): every message type
//! both crates have, on a populated instance of about 64 KB each, its strings made of the
//! characters of topic names, or with `--mixed-strings` of the testkit's mix, in which most
//! strings hold characters of more than one byte.

use std::hint::black_box;
use std::time::{Duration, Instant};

use kafka_protocol::protocol::Encodable;
use kafka_protocol::records::RecordBatchDecoder;
use kwire::records::crc;
use kwire::{ApiKey, Encode, frame};

use kwire_workloads::*;

mod visitors;

/// What a visit gathers from a decoded message: every value it reads, folded (so that no read
/// can be left out), and the lengths of its strings, bytes and arrays, which the two crates must
/// agree on for the same message.
#[derive(Default)]
struct Acc {
    fold: u64,
    lengths: u64,
}

impl Acc {
    #[inline]
    fn value(&mut self, v: u64) {
        self.fold = self.fold.rotate_left(5) ^ v;
    }

    #[inline]
    fn length(&mut self, n: usize) {
        self.value(n as u64);
        self.lengths = self.lengths.wrapping_add(n as u64);
    }
}

/// Reads every value a decoded message holds: its fields, each element of each array, the
/// payloads of unknown tagged fields. The impls for message structs are generated (`visitors.rs`).
trait Visit {
    fn visit(&self, acc: &mut Acc);
}

macro_rules! visit_as_u64 {
    ($($t:ty),*) => {$(
        impl Visit for $t {
            #[inline]
            fn visit(&self, acc: &mut Acc) {
                acc.value(*self as u64);
            }
        }
    )*};
}
visit_as_u64!(bool, i8, i16, u16, i32, u32, i64);

impl Visit for f64 {
    #[inline]
    fn visit(&self, acc: &mut Acc) {
        acc.value(self.to_bits());
    }
}

impl<T: Visit> Visit for Option<T> {
    #[inline]
    fn visit(&self, acc: &mut Acc) {
        match self {
            Some(v) => v.visit(acc),
            None => acc.value(u64::MAX),
        }
    }
}

/// kwire's field types.
mod ours {
    use kwire::codec::{Array, Element, Str, TaggedFields, Uuid};
    use kwire::records::{Records, UnalignedRecords};

    use super::{Acc, Visit};

    /// A string is read as `&str`, checked as UTF-8 here once, as `kafka-protocol`'s decode
    /// checks it once.
    impl Visit for Str<'_> {
        #[inline]
        fn visit(&self, acc: &mut Acc) {
            acc.length(self.to_str().map_or(usize::MAX, str::len));
        }
    }

    impl Visit for &[u8] {
        #[inline]
        fn visit(&self, acc: &mut Acc) {
            acc.length(self.len());
        }
    }

    impl Visit for Uuid {
        #[inline]
        fn visit(&self, acc: &mut Acc) {
            let v = u128::from_be_bytes(self.0);
            acc.value((v >> 64) as u64 ^ v as u64);
        }
    }

    impl<'a, T: Element<'a> + Visit> Visit for Array<'a, T> {
        #[inline]
        fn visit(&self, acc: &mut Acc) {
            acc.length(self.len());
            for e in self {
                e.visit(acc);
            }
        }
    }

    impl Visit for TaggedFields<'_> {
        #[inline]
        fn visit(&self, acc: &mut Acc) {
            for f in self.iter() {
                acc.value(u64::from(f.tag));
                acc.length(f.data.len());
            }
        }
    }

    impl Visit for Records<'_> {
        #[inline]
        fn visit(&self, acc: &mut Acc) {
            acc.length(self.as_bytes().len());
        }
    }

    impl Visit for UnalignedRecords<'_> {
        #[inline]
        fn visit(&self, acc: &mut Acc) {
            acc.length(self.as_bytes().len());
        }
    }
}

/// `kafka-protocol`'s field types.
mod theirs {
    use std::collections::BTreeMap;

    use bytes::Bytes;
    use kafka_protocol::messages::{BrokerId, GroupId, ProducerId, TopicName, TransactionalId};
    use kafka_protocol::protocol::StrBytes;

    use super::{Acc, Visit};

    impl Visit for StrBytes {
        #[inline]
        fn visit(&self, acc: &mut Acc) {
            acc.length(self.len());
        }
    }

    impl Visit for Bytes {
        #[inline]
        fn visit(&self, acc: &mut Acc) {
            acc.length(self.len());
        }
    }

    impl Visit for uuid::Uuid {
        #[inline]
        fn visit(&self, acc: &mut Acc) {
            let v = self.as_u128();
            acc.value((v >> 64) as u64 ^ v as u64);
        }
    }

    impl<T: Visit> Visit for Vec<T> {
        #[inline]
        fn visit(&self, acc: &mut Acc) {
            acc.length(self.len());
            for e in self {
                e.visit(acc);
            }
        }
    }

    impl Visit for BTreeMap<i32, Bytes> {
        #[inline]
        fn visit(&self, acc: &mut Acc) {
            for (tag, data) in self {
                acc.value(*tag as u64);
                acc.length(data.len());
            }
        }
    }

    macro_rules! visit_inner {
        ($($t:ty),*) => {$(
            impl Visit for $t {
                #[inline]
                fn visit(&self, acc: &mut Acc) {
                    self.0.visit(acc);
                }
            }
        )*};
    }
    visit_inner!(BrokerId, GroupId, ProducerId, TopicName, TransactionalId);
}

/// How long one timed batch of iterations should take.
const BATCH: Duration = Duration::from_millis(2);

struct Settings {
    /// Time spent on each comparison (all its contenders together).
    budget: Duration,
    verbose: bool,
}

/// Time per iteration of `f`, in nanoseconds, for a batch of `n` iterations.
fn time_batch(f: &mut dyn FnMut() -> u64, n: u64) -> f64 {
    let start = Instant::now();
    let mut acc = 0u64;
    for _ in 0..n {
        acc = acc.wrapping_add(f());
    }
    black_box(acc);
    start.elapsed().as_nanos() as f64 / n as f64
}

/// Iterations that make one batch last about [`BATCH`].
fn calibrate(f: &mut dyn FnMut() -> u64) -> u64 {
    let mut n = 1u64;
    loop {
        let start = Instant::now();
        time_batch(f, n);
        let t = start.elapsed();
        if t >= BATCH / 4 || n >= 1 << 30 {
            let per = t.as_secs_f64() / n as f64;
            return ((BATCH.as_secs_f64() / per).ceil() as u64).max(1);
        }
        n *= 2;
    }
}

fn median(v: &mut [f64]) -> f64 {
    v.sort_by(f64::total_cmp);
    let m = v.len() / 2;
    if v.len().is_multiple_of(2) {
        (v[m - 1] + v[m]) / 2.0
    } else {
        v[m]
    }
}

/// Runs the contenders in interleaved rounds (the order rotating each round) and returns the
/// median nanoseconds per iteration of each.
fn compare(s: &Settings, label: &str, fs: &mut [&mut dyn FnMut() -> u64]) -> Vec<f64> {
    // Warm up and size the batches.
    let sizes: Vec<u64> = fs.iter_mut().map(|f| calibrate(*f)).collect();
    let rounds = ((s.budget.as_secs_f64() / (BATCH.as_secs_f64() * fs.len() as f64)) as usize)
        .clamp(11, 2001);
    let mut times = vec![Vec::with_capacity(rounds); fs.len()];
    for round in 0..rounds {
        for k in 0..fs.len() {
            let i = (k + round) % fs.len();
            times[i].push(time_batch(fs[i], sizes[i]));
        }
    }
    let medians: Vec<f64> = times.iter_mut().map(|t| median(t)).collect();
    if s.verbose {
        let shown: Vec<String> = medians.iter().map(|m| format!("{m:.0} ns")).collect();
        eprintln!("  {label}: {} ({rounds} rounds)", shown.join(" / "));
    }
    medians
}

/// Ratio of the peer's median to ours, for a decode or encode comparison.
fn ratio(
    s: &Settings,
    label: &str,
    ours: &mut dyn FnMut() -> u64,
    theirs: &mut dyn FnMut() -> u64,
) -> f64 {
    let m = compare(s, label, &mut [ours, theirs]);
    m[1] / m[0]
}

fn verdict(r: f64, target: f64) -> &'static str {
    if r >= target { "met" } else { "missed" }
}

/// What a message's encode is held to.
#[derive(Clone, Copy)]
enum EncodeTarget {
    /// At least this ratio against the peer.
    Ratio(f64),
    /// Both sides are one big copy of record bytes: within 1.1x of a `memcpy` of the same
    /// bytes.
    Copy,
}

/// Compares one message's decode (with a visit of every value) and encode, and prints a line.
/// The encode is timed beside a plain copy of the encoded bytes, in the same rounds.
fn message<O: Encode, T: Encodable>(
    s: &Settings,
    case: &Case<O, T>,
    ours: fn(&[u8], i16) -> u64,
    theirs: fn(&bytes::Bytes, i16) -> u64,
    decode_target: f64,
    encode_target: EncodeTarget,
) {
    let v = case.version;
    let dec = ratio(
        s,
        &format!("{} decode", case.name),
        &mut || ours(&case.body, v),
        &mut || theirs(&case.shared, v),
    );
    let mut out = case.out_buf();
    let mut buf = case.peer_buf();
    // The copy runs between buffers aligned as the encoders' are: its source holds the
    // encoded bytes.
    let copy_from = case.out_buf();
    let mut copy_out = case.out_buf();
    let m = compare(
        s,
        &format!("{} encode / peer encode / copy", case.name),
        &mut [
            &mut || ours_encode(&case.ours, v, &mut out) as u64,
            &mut || theirs_encode(&case.theirs, v, &mut buf) as u64,
            &mut || plain_copy(black_box(&copy_from), &mut copy_out) as u64,
        ],
    );
    let (enc, of_copy) = (m[1] / m[0], m[0] / m[2]);
    let encode_verdict = match encode_target {
        EncodeTarget::Ratio(t) => format!("{t}x: {}", verdict(enc, t)),
        EncodeTarget::Copy => format!(
            "1.1x a copy: {}",
            if of_copy <= 1.1 { "met" } else { "missed" }
        ),
    };
    println!(
        "{:<17} decode {dec:>6.2}x ({decode_target}x: {:<6}) encode {enc:>6.2}x, {of_copy:>5.2}x a copy ({encode_verdict}){}",
        case.name,
        verdict(dec, decode_target),
        if dec < 1.0 || enc < 1.0 {
            "   BELOW 1.0x"
        } else {
            ""
        },
    );
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let quick = args.iter().any(|a| a == "--quick");
    let s = Settings {
        budget: Duration::from_millis(if quick { 300 } else { 3500 }),
        verbose: args.iter().any(|a| a == "--verbose" || a == "-v"),
    };
    if args.iter().any(|a| a == "--breadth") {
        let s = Settings {
            budget: Duration::from_millis(if quick { 60 } else { 400 }),
            ..s
        };
        let strings = if args.iter().any(|a| a == "--mixed-strings") {
            kwire_testkit::Strings::Mixed
        } else {
            kwire_testkit::Strings::Names
        };
        breadth(&s, strings);
        return;
    }
    let started = Instant::now();
    let w = Workloads::new();

    println!(
        "workload          ratio = kafka-protocol time / kwire time (median); encode also as a multiple of copying its bytes"
    );
    use EncodeTarget::{Copy, Ratio};
    message(
        &s,
        &w.metadata,
        ours_metadata,
        theirs_metadata,
        10.0,
        Ratio(3.0),
    );
    message(&s, &w.fetch, ours_fetch, theirs_fetch, 4.0, Copy);
    message(&s, &w.produce, ours_produce, theirs_produce, 3.0, Copy);
    message(
        &s,
        &w.api_versions,
        ours_api_versions,
        theirs_api_versions,
        5.0,
        Ratio(3.0),
    );
    message(
        &s,
        &w.fetch_empty,
        ours_fetch,
        theirs_fetch,
        4.0,
        Ratio(3.0),
    );
    message(&s, &w.produce_many, ours_produce, theirs_produce, 3.0, Copy);
    message(
        &s,
        &w.offset_commit,
        ours_offset_commit,
        theirs_offset_commit,
        10.0,
        Ratio(3.0),
    );
    message(
        &s,
        &w.list_offsets,
        ours_list_offsets,
        theirs_list_offsets,
        10.0,
        Ratio(3.0),
    );

    // Re-encoding a decoded FetchResponse frame, relative to copying its bytes.
    let frame_bytes = &w.fetch_frame;
    let (header, body) =
        frame::decode_response(frame_bytes, ApiKey::FETCH, FETCH_VERSION).expect("valid");
    let mut out1 = vec![0u8; frame_bytes.len()];
    let mut out2 = vec![0u8; frame_bytes.len()];
    let mut out3 = vec![0u8; frame_bytes.len()];
    let m = compare(
        &s,
        "fetch_v16 copy / re-encode / decode+re-encode",
        &mut [
            &mut || plain_copy(black_box(frame_bytes), &mut out1) as u64,
            &mut || ours_reencode_decoded(&header, &body, &mut out2) as u64,
            &mut || ours_reencode(black_box(frame_bytes), &mut out3) as u64,
        ],
    );
    let (copy, re, dre) = (m[0], m[1], m[2]);
    println!(
        "{:<17} re-encode {:.2}x the time of a plain copy ({:.2}x with decoding)   (1.1x a copy: {})",
        "fetch_v16",
        re / copy,
        dre / copy,
        if re / copy <= 1.1 { "met" } else { "missed" },
    );

    // CRC-32C over 16 KiB.
    let data = &w.crc_data;
    let m = compare(
        &s,
        "crc32c_16k",
        &mut [&mut || u64::from(crc::crc32c(black_box(data)))],
    );
    let gbs = data.len() as f64 / m[0];
    println!(
        "{:<17} {gbs:.2} GB/s   (target 4 GB/s: {})",
        "crc32c_16k",
        verdict(gbs, 4.0)
    );

    // Reading the 1000 small records of one batch.
    let batch = &w.small_batch;
    let shared = bytes::Bytes::from(batch.clone());
    let m = compare(
        &s,
        "read_1000_records",
        &mut [
            &mut || ours_read_records(black_box(batch)) as u64,
            &mut || {
                let set =
                    RecordBatchDecoder::decode(&mut black_box(shared.clone())).expect("valid");
                let mut acc = 0u64;
                for r in &set.records {
                    acc += (r.key.as_ref().map_or(0, bytes::Bytes::len)
                        + r.value.as_ref().map_or(0, bytes::Bytes::len))
                        as u64;
                    acc = acc.wrapping_add((r.offset ^ r.timestamp) as u64);
                    for (k, v) in &r.headers {
                        acc += (k.len() + v.as_ref().map_or(0, bytes::Bytes::len)) as u64;
                    }
                }
                acc
            },
        ],
    );
    println!(
        "{:<17} {:.1} M records/s   ({:.2}x kafka-protocol's RecordBatchDecoder)",
        "read_1000_records",
        SMALL_RECORDS as f64 / m[0] * 1e3,
        m[1] / m[0],
    );
    if s.verbose {
        eprintln!("total {:.1} s", started.elapsed().as_secs_f64());
    }
}

/// Peer time / our time for encoding `ours` at `version` into `out` and the peer's value with
/// `theirs` into `buf`.
fn encode_ratio<O: Encode>(
    s: &Settings,
    label: &str,
    ours: &O,
    version: i16,
    out: &mut [u8],
    buf: &mut bytes::BytesMut,
    theirs: &dyn Fn(&mut bytes::BytesMut) -> bool,
) -> f64 {
    ratio(
        s,
        label,
        &mut || ours.encode(version, out).unwrap_or(0) as u64,
        &mut || {
            buf.clear();
            if theirs(buf) { buf.len() as u64 } else { 0 }
        },
    )
}

/// The instance size of the breadth comparison.
const BREADTH_TARGET: usize = 64 * 1024;

/// The size under which a breadth instance counts as small: a type without arrays, whose
/// instance cannot grow to the target.
const SMALL: usize = 1024;

/// One message type of the breadth comparison.
struct BreadthRow {
    name: &'static str,
    version: i16,
    len: usize,
    /// Peer time / our time for decoding and visiting every value.
    decode: f64,
    /// Peer time / our time for decoding alone: what a relay or a filter pays.
    decode_alone: f64,
    /// Peer time / our time for encoding the decoded value.
    encode: f64,
}

/// Every message type both crates have, requests and responses, at the highest version both
/// support: a populated instance of about [`BREADTH_TARGET`] bytes from the testkit
/// (`populated_instance`, seeded by the API key, its strings of the kind `strings`), which
/// `kafka-protocol` must decode and encode back to the same bytes to be compared. Each side
/// decodes it and visits every value (the generated visitors of `visitors.rs`, which must read
/// the same total of string, bytes and array lengths on both sides), then encodes the decoded
/// value alone. Prints a line per type, the distribution of the ratios, and the ten slowest
/// types.
fn breadth(s: &Settings, strings: kwire_testkit::Strings) {
    use kafka_protocol::messages::{ApiKey as KpKey, RequestKind, ResponseKind};
    use kwire::codec::MessageKind;
    use kwire::codec::Reader;
    use kwire::{Request, Response};
    use kwire_schema::MESSAGES;

    println!("breadth: strings of {strings:?}");
    let mut rows = Vec::new();
    let mut left_out = Vec::new();
    for schema in MESSAGES {
        let request = match schema.kind {
            MessageKind::Request => true,
            MessageKind::Response => false,
            _ => continue,
        };
        let Ok(kp_key) = KpKey::try_from(schema.api_key) else {
            left_out.push(format!("{}: not in kafka-protocol", schema.name));
            continue;
        };
        // The highest version both decode: the peer's API key may list versions that some of
        // its message types do not have yet.
        let theirs = kp_key.valid_versions();
        let low = schema.valid_versions.min.max(theirs.min);
        let seed = u64::from(schema.api_key.unsigned_abs());
        let instance = |v| {
            kwire_testkit::populated_instance(schema, v, seed, BREADTH_TARGET, strings)
                .expect("a valid version")
        };
        let peer_decodes = |v, bytes: &[u8]| {
            let mut input = bytes::Bytes::copy_from_slice(bytes);
            if request {
                RequestKind::decode(kp_key, &mut input, v).is_ok()
            } else {
                ResponseKind::decode(kp_key, &mut input, v).is_ok()
            }
        };
        let Some((version, bytes)) = (low..=schema.valid_versions.max.min(theirs.max))
            .rev()
            .map(|v| (v, instance(v)))
            .find(|(v, bytes)| peer_decodes(*v, bytes))
        else {
            left_out.push(format!(
                "{}: kafka-protocol decodes no version",
                schema.name
            ));
            continue;
        };
        let shared = bytes::Bytes::from(bytes.clone());
        let key = ApiKey(schema.api_key);
        let mut out = vec![0u8; bytes.len()];
        let mut buf = bytes::BytesMut::with_capacity(bytes.len());

        // Both sides must write the instance back as it was: the comparison is of the same
        // message.
        let ours_encodes = |out: &mut [u8]| -> usize {
            let mut r = Reader::new(&bytes);
            if request {
                let v = Request::decode(&mut r, key, version).expect("ours decodes");
                v.encode(version, out).expect("ours encodes")
            } else {
                let v = Response::decode(&mut r, key, version).expect("ours decodes");
                v.encode(version, out).expect("ours encodes")
            }
        };
        let n = ours_encodes(&mut out);
        assert_eq!(
            &out[..n],
            &bytes[..],
            "{} v{version}: ours round-trips",
            schema.name
        );
        buf.clear();
        let mut input = shared.clone();
        let theirs_encode = if request {
            RequestKind::decode(kp_key, &mut input, version)
                .and_then(|v| v.encode(&mut buf, version))
        } else {
            ResponseKind::decode(kp_key, &mut input, version)
                .and_then(|v| v.encode(&mut buf, version))
        };
        match theirs_encode {
            Ok(()) if buf[..] == bytes[..] => {}
            Ok(()) => {
                left_out.push(format!(
                    "{} v{version}: kafka-protocol writes other bytes",
                    schema.name
                ));
                continue;
            }
            Err(e) => {
                left_out.push(format!("{} v{version}: kafka-protocol: {e:#}", schema.name));
                continue;
            }
        }

        // Decode, then visit every value (the generated visitors of `visitors.rs`).
        let ours_visit = || -> Acc {
            let mut acc = Acc::default();
            let mut r = Reader::new(black_box(&bytes));
            if request {
                Request::decode(&mut r, key, version)
                    .expect("ours decodes")
                    .visit(&mut acc);
            } else {
                Response::decode(&mut r, key, version)
                    .expect("ours decodes")
                    .visit(&mut acc);
            }
            acc
        };
        let theirs_visit = || -> Acc {
            let mut acc = Acc::default();
            let mut input = black_box(&shared).clone();
            if request {
                RequestKind::decode(kp_key, &mut input, version)
                    .expect("decodes")
                    .visit(&mut acc);
            } else {
                ResponseKind::decode(kp_key, &mut input, version)
                    .expect("decodes")
                    .visit(&mut acc);
            }
            acc
        };
        let (ours_lengths, theirs_lengths) = (ours_visit().lengths, theirs_visit().lengths);
        assert_eq!(
            ours_lengths, theirs_lengths,
            "{} v{version}: both visits read the same strings, bytes and arrays",
            schema.name
        );
        let decode = ratio(
            s,
            &format!("{} v{version} decode+visit", schema.name),
            &mut || ours_visit().fold,
            &mut || theirs_visit().fold,
        );

        // Decoding alone: the decoded value is dropped unread (the peer's with its allocations).
        let decode_alone = ratio(
            s,
            &format!("{} v{version} decode", schema.name),
            &mut || {
                let mut r = Reader::new(black_box(&bytes));
                let ok = if request {
                    black_box(Request::decode(&mut r, key, version)).is_ok()
                } else {
                    black_box(Response::decode(&mut r, key, version)).is_ok()
                };
                u64::from(ok)
            },
            &mut || {
                let mut input = black_box(&shared).clone();
                let ok = if request {
                    black_box(RequestKind::decode(kp_key, &mut input, version)).is_ok()
                } else {
                    black_box(ResponseKind::decode(kp_key, &mut input, version)).is_ok()
                };
                u64::from(ok)
            },
        );

        // Encoding alone, from each side's decoded value.
        let mut r = Reader::new(&bytes);
        let mut input = shared.clone();
        let label = format!("{} v{version} encode", schema.name);
        let encode = if request {
            let ours = Request::decode(&mut r, key, version).expect("ours decodes");
            let theirs = RequestKind::decode(kp_key, &mut input, version).expect("decodes");
            encode_ratio(s, &label, &ours, version, &mut out, &mut buf, &|b| {
                theirs.encode(b, version).is_ok()
            })
        } else {
            let ours = Response::decode(&mut r, key, version).expect("ours decodes");
            let theirs = ResponseKind::decode(kp_key, &mut input, version).expect("decodes");
            encode_ratio(s, &label, &ours, version, &mut out, &mut buf, &|b| {
                theirs.encode(b, version).is_ok()
            })
        };
        println!(
            "{:<44} v{version:<3} {:>7} bytes   decode+visit {decode:>6.2}x   decode {decode_alone:>6.2}x   encode {encode:>6.2}x",
            schema.name,
            bytes.len(),
        );
        rows.push(BreadthRow {
            name: schema.name,
            version,
            len: bytes.len(),
            decode,
            decode_alone,
            encode,
        });
    }

    println!();
    for reason in &left_out {
        println!("left out: {reason}");
    }
    let quantiles = |pick: fn(&BreadthRow) -> f64, small: bool| {
        let mut v: Vec<f64> = rows
            .iter()
            .filter(|r| !small || r.len < SMALL)
            .map(pick)
            .collect();
        v.sort_by(f64::total_cmp);
        let at = |q: f64| v[((v.len() - 1) as f64 * q).round() as usize];
        format!(
            "min {:.2}x  p10 {:.2}x  p25 {:.2}x  median {:.2}x  p75 {:.2}x  max {:.2}x",
            at(0.0),
            at(0.1),
            at(0.25),
            at(0.5),
            at(0.75),
            at(1.0)
        )
    };
    println!(
        "{} message types, {} left out. Ratio = kafka-protocol time / kwire time (median).",
        rows.len(),
        left_out.len()
    );
    println!("decode+visit: {}", quantiles(|r| r.decode, false));
    println!("decode alone: {}", quantiles(|r| r.decode_alone, false));
    println!("encode:       {}", quantiles(|r| r.encode, false));
    println!(
        "the {} types whose instance stays under {SMALL} bytes (no arrays):",
        rows.iter().filter(|r| r.len < SMALL).count()
    );
    println!("  decode+visit: {}", quantiles(|r| r.decode, true));
    println!("  decode alone: {}", quantiles(|r| r.decode_alone, true));
    println!("  encode:       {}", quantiles(|r| r.encode, true));
    for (what, pick) in [
        (
            "decode+visit",
            (|r: &BreadthRow| r.decode) as fn(&BreadthRow) -> f64,
        ),
        ("decode alone", |r: &BreadthRow| r.decode_alone),
        ("encode", |r: &BreadthRow| r.encode),
    ] {
        rows.sort_by(|a, b| pick(a).total_cmp(&pick(b)));
        let slowest: Vec<String> = rows
            .iter()
            .take(10)
            .map(|r| format!("{} v{} ({} B) {:.2}x", r.name, r.version, r.len, pick(r)))
            .collect();
        println!("ten slowest, {what}: {}", slowest.join(", "));
    }
}
