//! Runs one workload of kwire a fixed number of times, for instruction counts that do not
//! depend on timing noise:
//!
//! ```text
//! cargo build --release --example callgrind
//! valgrind --tool=callgrind target/release/examples/callgrind metadata-decode 100
//! ```
//!
//! Only kwire runs inside the loop; the inputs are built before it. Run it with no
//! arguments for the list of workloads. To see the cost of the loop alone, subtract the count
//! of a run with 0 iterations.

use std::hint::black_box;
use std::process::ExitCode;

use kwire::records::crc;
use kwire::{ApiKey, frame};
use kwire_workloads::*;

const NAMES: &[&str] = &[
    "metadata-decode",
    "metadata-encode",
    "fetch-decode",
    "fetch-encode",
    "fetch-reencode",
    "fetch-decode-reencode",
    "fetch-copy",
    "produce-decode",
    "produce-encode",
    "api-versions-decode",
    "api-versions-encode",
    "fetch-empty-decode",
    "fetch-empty-encode",
    "produce-many-decode",
    "produce-many-encode",
    "offset-commit-decode",
    "offset-commit-encode",
    "list-offsets-decode",
    "list-offsets-encode",
    "crc32c-16k",
    "read-1000-records",
    "build-1000-records",
];

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (Some(name), Some(n)) = (
        args.first(),
        args.get(1).and_then(|n| n.parse::<u64>().ok()),
    ) else {
        eprintln!(
            "usage: callgrind <workload> <iterations>\nworkloads: {}",
            NAMES.join(" ")
        );
        return ExitCode::from(2);
    };
    let w = Workloads::new();
    let mut out = vec![0u8; w.fetch_frame.len()];
    let (keys, values) = small_content();
    let records = small_records(&keys, &values);
    let (header, body) =
        frame::decode_response(&w.fetch_frame, ApiKey::FETCH, FETCH_VERSION).expect("valid");
    let mut acc = 0u64;
    match name.as_str() {
        "metadata-decode" => {
            (0..n).for_each(|_| acc ^= ours_metadata(black_box(&w.metadata.body), 12))
        }
        "metadata-encode" => (0..n).for_each(|_| {
            acc ^= ours_encode(black_box(&w.metadata.ours), 12, &mut out) as u64;
        }),
        "fetch-decode" => (0..n).for_each(|_| acc ^= ours_fetch(black_box(&w.fetch.body), 16)),
        "fetch-encode" => (0..n).for_each(|_| {
            acc ^= ours_encode(black_box(&w.fetch.ours), 16, &mut out) as u64;
        }),
        "fetch-reencode" => (0..n).for_each(|_| {
            acc ^= ours_reencode_decoded(black_box(&header), black_box(&body), &mut out) as u64;
        }),
        "fetch-decode-reencode" => (0..n).for_each(|_| {
            acc ^= ours_reencode(black_box(&w.fetch_frame), &mut out) as u64;
        }),
        "fetch-copy" => (0..n).for_each(|_| {
            acc ^= plain_copy(black_box(&w.fetch_frame), &mut out) as u64;
        }),
        "produce-decode" => {
            (0..n).for_each(|_| acc ^= ours_produce(black_box(&w.produce.body), 11))
        }
        "produce-encode" => (0..n).for_each(|_| {
            acc ^= ours_encode(black_box(&w.produce.ours), 11, &mut out) as u64;
        }),
        "api-versions-decode" => (0..n).for_each(|_| {
            acc ^= ours_api_versions(black_box(&w.api_versions.body), 4);
        }),
        "api-versions-encode" => (0..n).for_each(|_| {
            acc ^= ours_encode(black_box(&w.api_versions.ours), 4, &mut out) as u64;
        }),
        "fetch-empty-decode" => (0..n).for_each(|_| {
            acc ^= ours_fetch(black_box(&w.fetch_empty.body), FETCH_VERSION);
        }),
        "fetch-empty-encode" => (0..n).for_each(|_| {
            acc ^= ours_encode(black_box(&w.fetch_empty.ours), FETCH_VERSION, &mut out) as u64;
        }),
        "produce-many-decode" => (0..n).for_each(|_| {
            acc ^= ours_produce(black_box(&w.produce_many.body), PRODUCE_VERSION);
        }),
        "produce-many-encode" => (0..n).for_each(|_| {
            acc ^= ours_encode(black_box(&w.produce_many.ours), PRODUCE_VERSION, &mut out) as u64;
        }),
        "offset-commit-decode" => (0..n).for_each(|_| {
            acc ^= ours_offset_commit(black_box(&w.offset_commit.body), OFFSET_COMMIT_VERSION);
        }),
        "offset-commit-encode" => (0..n).for_each(|_| {
            acc ^= ours_encode(
                black_box(&w.offset_commit.ours),
                OFFSET_COMMIT_VERSION,
                &mut out,
            ) as u64;
        }),
        "list-offsets-decode" => (0..n).for_each(|_| {
            acc ^= ours_list_offsets(black_box(&w.list_offsets.body), LIST_OFFSETS_VERSION);
        }),
        "list-offsets-encode" => (0..n).for_each(|_| {
            acc ^= ours_encode(
                black_box(&w.list_offsets.ours),
                LIST_OFFSETS_VERSION,
                &mut out,
            ) as u64;
        }),
        "crc32c-16k" => (0..n).for_each(|_| acc ^= u64::from(crc::crc32c(black_box(&w.crc_data)))),
        "read-1000-records" => (0..n).for_each(|_| {
            acc ^= ours_read_records(black_box(&w.small_batch)) as u64;
        }),
        "build-1000-records" => (0..n).for_each(|_| {
            acc ^= ours_build_records(black_box(&records), &mut out) as u64;
        }),
        other => {
            eprintln!("unknown workload {other}; workloads: {}", NAMES.join(" "));
            return ExitCode::from(2);
        }
    }
    println!("{name} x{n}: {acc:x}");
    ExitCode::SUCCESS
}
