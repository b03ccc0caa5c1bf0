//! Runs kwire and `kafka-protocol` on each workload, alternately, and prints one line per
//! workload with the ratio of their median times (peer time / our time; above 1 means kwire
//! is faster):
//!
//! ```text
//! cargo run --release --example bench_report [-- --quick] [-- --verbose]
//! ```
//!
//! The two implementations run in interleaved rounds on the same input bytes, so slow phases of a
//! shared machine hit both alike; the medians of the per-round times are compared. The inputs are
//! those of the criterion benches (`benches/workloads/mod.rs`).

use std::hint::black_box;
use std::time::{Duration, Instant};

use kafka_protocol::protocol::Encodable;
use kafka_protocol::records::RecordBatchDecoder;
use kwire::records::crc;
use kwire::{ApiKey, Encode, frame};

#[path = "../workloads/mod.rs"]
#[allow(dead_code)]
mod workloads;

use workloads::*;

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
