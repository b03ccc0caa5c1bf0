//! kwire allocates nothing: decoding, visiting, re-encoding and building each benchmark
//! workload is counted by a global allocator and must make zero allocations, and so must every
//! fuzz oracle on every file of the committed fuzz corpus (the oracles decode, encode, re-decode,
//! walk and dissect their input into a scratch buffer lent by the caller).
//!
//! The allocator counts per thread, and only while a thread has armed it, so the test harness's
//! own threads and the input construction are not counted.

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::hint::black_box;

#[path = "../benches/workloads/mod.rs"]
#[allow(dead_code)]
mod workloads;

use kwire::records::crc;
use kwire::{ApiKey, frame};
use workloads::*;

struct Counting;

thread_local! {
    static ARMED: Cell<bool> = const { Cell::new(false) };
    static COUNT: Cell<u64> = const { Cell::new(0) };
}

fn note() {
    // `try_with`: the thread-locals may be gone while a thread is being torn down.
    let _ = ARMED.try_with(|armed| {
        if armed.get() {
            let _ = COUNT.try_with(|c| c.set(c.get() + 1));
        }
    });
}

// SAFETY: every call is forwarded unchanged to the system allocator; the counting touches only
// const-initialised thread-locals, which never allocate.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        note();
        // SAFETY: the caller upholds `GlobalAlloc::alloc`'s contract, which `System` shares.
        unsafe { System.alloc(layout) }
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        note();
        // SAFETY: as for `alloc`.
        unsafe { System.alloc_zeroed(layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        note();
        // SAFETY: as for `alloc`; `ptr` came from this allocator, that is from `System`.
        unsafe { System.realloc(ptr, layout, new_size) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        note();
        // SAFETY: `ptr` came from this allocator, that is from `System`, with `layout`.
        unsafe { System.dealloc(ptr, layout) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

/// Runs `f` with counting armed on this thread and returns its result and the number of
/// allocator calls it made.
fn counted<R>(f: impl FnOnce() -> R) -> (R, u64) {
    COUNT.with(|c| c.set(0));
    ARMED.with(|a| a.set(true));
    let r = f();
    ARMED.with(|a| a.set(false));
    (r, COUNT.with(Cell::get))
}

#[track_caller]
fn assert_none<R>(what: &str, f: impl FnOnce() -> R) -> R {
    let (r, n) = counted(f);
    assert_eq!(n, 0, "{what}: {n} allocator calls");
    r
}

#[test]
fn the_counter_sees_allocations() {
    let (_, n) = counted(|| drop(black_box(vec![1u8; 64])));
    assert!(
        n >= 2,
        "an allocation and a deallocation are counted, got {n}"
    );
}

#[test]
fn messages_decode_visit_and_encode_without_allocating() {
    let w = Workloads::new();
    let mut out = vec![0u8; w.fetch_frame.len()];

    let m = &w.metadata;
    let a = assert_none("metadata decode", || ours_metadata(&m.body, m.version));
    assert_eq!(a, ours_metadata(&m.body, m.version));
    let n = assert_none("metadata encode", || {
        ours_encode(&m.ours, m.version, &mut out)
    });
    assert_eq!(out[..n], m.body[..]);

    let f = &w.fetch;
    assert_none("fetch decode", || ours_fetch(&f.body, f.version));
    let n = assert_none("fetch encode", || ours_encode(&f.ours, f.version, &mut out));
    assert_eq!(out[..n], f.body[..]);

    let p = &w.produce;
    assert_none("produce decode", || ours_produce(&p.body, p.version));
    let n = assert_none("produce encode", || {
        ours_encode(&p.ours, p.version, &mut out)
    });
    assert_eq!(out[..n], p.body[..]);

    let v = &w.api_versions;
    assert_none("api versions decode", || {
        ours_api_versions(&v.body, v.version)
    });
    let n = assert_none("api versions encode", || {
        ours_encode(&v.ours, v.version, &mut out)
    });
    assert_eq!(out[..n], v.body[..]);
}

#[test]
fn fetch_frames_reencode_without_allocating() {
    let w = Workloads::new();
    let mut out = vec![0u8; w.fetch_frame.len()];
    let n = assert_none("fetch frame decode and re-encode", || {
        ours_reencode(&w.fetch_frame, &mut out)
    });
    assert_eq!(out[..n], w.fetch_frame[..]);
    out.fill(0);
    let (header, body) = assert_none("fetch frame decode", || {
        frame::decode_response(&w.fetch_frame, ApiKey::FETCH, FETCH_VERSION).expect("valid")
    });
    let n = assert_none("fetch frame re-encode", || {
        ours_reencode_decoded(&header, &body, &mut out)
    });
    assert_eq!(out[..n], w.fetch_frame[..]);
}

#[test]
fn records_read_build_and_checksum_without_allocating() {
    let w = Workloads::new();
    let (keys, values) = small_content();
    let records = small_records(&keys, &values);
    let mut out = vec![0u8; w.small_batch.len()];

    assert_none("crc32c", || crc::crc32c(&w.crc_data));
    assert_none("read 1000 records", || ours_read_records(&w.small_batch));
    let n = assert_none("build 1000 records", || {
        ours_build_records(&records, &mut out)
    });
    assert_eq!(out[..n], w.small_batch[..]);
    assert_none("parse a batch header", || {
        kwire::records::RecordBatch::parse(&out).map(|b| b.records_count())
    })
    .expect("valid");
}

type Oracle = fn(&[u8], &mut [u8]) -> Result<kwire::__fuzz::Outcome, kwire::__fuzz::OracleFailure>;

/// The scratch buffer a target lends its oracle, by the input length.
type ScratchLen = dyn Fn(usize) -> usize;

#[test]
fn fuzz_oracles_run_without_allocating() {
    use kwire::__fuzz as f;
    let structured = |_: usize| f::structured_scratch_len();
    let targets: Vec<(&str, Oracle, &ScratchLen)> = vec![
        ("request_body", f::request_body, &f::scratch_len),
        ("response_body", f::response_body, &f::scratch_len),
        ("request_frame", f::request_frame, &f::scratch_len),
        ("response_frame", f::response_frame, &f::scratch_len),
        ("primitives", f::primitives, &f::scratch_len),
        ("split", f::split, &f::scratch_len),
        ("record_batch", f::record_batch, &f::scratch_len),
        ("legacy_message_set", f::legacy_message_set, &f::scratch_len),
        ("structured", f::structured, &structured),
        #[cfg(feature = "describe")]
        ("dissector", f::dissector, &f::scratch_len),
    ];
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("fuzz/corpus");
    let mut runs = 0usize;
    for (target, oracle, scratch_len) in targets {
        let mut inputs: Vec<Vec<u8>> = std::fs::read_dir(root.join(target))
            .expect("a committed corpus")
            .map(|e| std::fs::read(e.expect("entry").path()).expect("readable"))
            .collect();
        inputs.sort();
        assert!(!inputs.is_empty(), "{target}: empty corpus");
        let longest = inputs.iter().map(Vec::len).max().unwrap_or(0);
        let mut scratch = vec![0u8; scratch_len(longest)];
        for input in &inputs {
            let outcome = assert_none(target, || oracle(input, &mut scratch));
            assert!(outcome.is_ok(), "{target}: {outcome:?}");
            runs += 1;
        }
    }
    assert!(runs > 0);
}
