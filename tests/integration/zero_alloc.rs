//! kwire allocates nothing: decoding, visiting, re-encoding and building each benchmark
//! workload is counted by a global allocator and must make zero allocations, and so must every
//! request and response of every version through the frame codec and the dissector, an lz4
//! batch written and read back, and every fuzz oracle on every file of the committed fuzz corpus
//! (the oracles decode, encode, re-decode, walk and dissect their input into a scratch buffer
//! lent by the caller). What each compression codec allocates is checked against the
//! documentation.
//!
//! The allocator counts per thread, and only while a thread has armed it, so the test harness's
//! own threads and the input construction are not counted.

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::hint::black_box;

use kwire::header::request_header_version;
use kwire::records::crc;
use kwire::{ApiKey, frame};
use kwire_workloads::*;

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

/// A workload's name, body and version, its decode-and-visit and its encode into a buffer.
type Case<'w> = (
    &'static str,
    &'w [u8],
    i16,
    fn(&[u8], i16) -> u64,
    &'w dyn Fn(&mut [u8]) -> usize,
);

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

    let cases: [Case<'_>; 4] = [
        (
            "fetch without records",
            &w.fetch_empty.body,
            FETCH_VERSION,
            ours_fetch,
            &|o| ours_encode(&w.fetch_empty.ours, FETCH_VERSION, o),
        ),
        (
            "produce to 100 partitions",
            &w.produce_many.body,
            PRODUCE_VERSION,
            ours_produce,
            &|o| ours_encode(&w.produce_many.ours, PRODUCE_VERSION, o),
        ),
        (
            "offset commit",
            &w.offset_commit.body,
            OFFSET_COMMIT_VERSION,
            ours_offset_commit,
            &|o| ours_encode(&w.offset_commit.ours, OFFSET_COMMIT_VERSION, o),
        ),
        (
            "list offsets",
            &w.list_offsets.body,
            LIST_OFFSETS_VERSION,
            ours_list_offsets,
            &|o| ours_encode(&w.list_offsets.ours, LIST_OFFSETS_VERSION, o),
        ),
    ];
    for (what, body, version, decode, encode) in cases {
        assert_none(what, || decode(body, version));
        let n = assert_none(what, || encode(&mut out));
        assert_eq!(out[..n], body[..], "{what}");
    }
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

type Oracle = fn(
    &[u8],
    &mut [u8],
) -> Result<kwire_testkit::oracles::Outcome, kwire_testkit::oracles::OracleFailure>;

/// The scratch buffer a target lends its oracle, by the input length.
type ScratchLen = dyn Fn(usize) -> usize;

#[test]
fn fuzz_oracles_run_without_allocating() {
    use kwire_testkit::oracles as f;
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
        ("session", f::session, &f::scratch_len),
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

/// What each built-in codec allocates, compressing and decompressing payloads of many sizes
/// through `BuiltinCodecs`, is what the `compression` module's documentation states: nothing
/// for none, lz4 and snappy decompression; snappy compression only for inputs over 1 KiB (the
/// `snap` encoder's larger hash table); gzip and zstd working memory on every call.
#[cfg(any(
    feature = "gzip",
    feature = "snappy",
    feature = "lz4",
    feature = "zstd"
))]
#[test]
fn compression_allocates_as_documented() {
    use kwire::records::Compression;
    use kwire::records::compression::{BuiltinCodecs, Compressor, Decompressor};

    let payload: Vec<u8> = (0..200_000u32)
        .map(|i| (i.wrapping_mul(2_654_435_761) >> 27) as u8 | b'a')
        .collect();
    let codecs = [
        Compression::NONE,
        Compression::GZIP,
        Compression::SNAPPY,
        Compression::LZ4,
        Compression::ZSTD,
    ];
    let mut checked = 0;
    for codec in codecs.into_iter().filter(|c| BuiltinCodecs::is_enabled(*c)) {
        for len in [0usize, 100, 1024, 1025, 5000, 40_000, 70_000, 200_000] {
            let input = &payload[..len];
            let room = BuiltinCodecs::new().max_compressed_len(codec, len);
            let mut packed = vec![0u8; room.expect("every built-in codec knows its bound")];
            let mut unpacked = vec![0u8; len];
            let (n, compress) =
                counted(|| BuiltinCodecs::new().compress(codec, input, &mut packed));
            let n = n.expect("compresses");
            let (m, decompress) =
                counted(|| BuiltinCodecs::new().decompress(codec, &packed[..n], &mut unpacked));
            assert_eq!(m, Ok(len));
            assert_eq!(unpacked, input);
            let expected = match codec {
                Compression::GZIP | Compression::ZSTD => (true, true),
                Compression::SNAPPY => (len > 1024, false),
                _ => (false, false),
            };
            assert_eq!(
                (compress > 0, decompress > 0),
                expected,
                "{codec:?}, {len} bytes: {compress} allocator calls compressing, \
                 {decompress} decompressing"
            );
            checked += 1;
        }
    }
    assert!(checked >= 8);
}

/// A producer's and a consumer's whole compressed path with a codec that needs no allocator:
/// an lz4 batch written by `write_compressed` and read back through `decompress_into`.
#[cfg(feature = "lz4")]
#[test]
fn compressed_batches_build_and_read_without_allocating() {
    use kwire::records::compression::BuiltinCodecs;
    use kwire::records::{BatchBuilder, Compression, RecordBatch};

    let (keys, values) = small_content();
    let records = small_records(&keys, &values);
    let builder = BatchBuilder::new().with_producer(7, 0, 0);
    let mut scratch = vec![0u8; 1 << 20];
    let mut out = vec![0u8; 1 << 20];
    let mut codecs = BuiltinCodecs::new();
    let n = assert_none("write an lz4 batch", || {
        builder
            .write_compressed(
                &records,
                Compression::LZ4,
                &mut codecs,
                &mut scratch,
                &mut out,
            )
            .expect("fits")
    });
    let read = assert_none("read an lz4 batch", || {
        let batch = RecordBatch::parse(&out[..n]).expect("valid");
        let mut values = 0usize;
        for record in batch
            .decompress_into(&mut codecs, &mut scratch)
            .expect("decompresses")
        {
            values += record.expect("valid").value().map_or(0, <[u8]>::len);
        }
        values
    });
    assert_eq!(read, values.iter().map(Vec::len).sum::<usize>());
}

/// Every request and response of every API at every version, as the walker's smallest and a
/// random instance: decoding, encoding, the frame codec around it, negotiating from an
/// ApiVersions response and (with `describe`) dissecting the frame into a writer that has room
/// make no allocation.
#[test]
fn every_message_and_the_dissector_run_without_allocating() {
    use kwire::codec::{MessageKind, Reader};
    use kwire::messages::{RequestHeader, ResponseHeader};
    use kwire::{Encode, Request, Response};
    use kwire_schema::{self as schema, walker};

    let mut instances = 0usize;
    let mut out = vec![0u8; 1 << 17];
    let mut frame_buf = vec![0u8; 1 << 17];
    let mut text = String::with_capacity(1 << 22);
    for schema in schema::MESSAGES.iter().copied() {
        if !matches!(schema.kind, MessageKind::Request | MessageKind::Response) {
            continue;
        }
        let key = ApiKey(schema.api_key);
        let range = schema.valid_versions;
        for version in (range.min..=range.max).filter(|v| range.contains(*v)) {
            for seed in [None, Some(7)] {
                let mut bytes = vec![0u8; 1 << 16];
                let n = match seed {
                    None => walker::write_minimal(schema, version, &mut bytes),
                    Some(seed) => kwire_testkit::write_random(schema, version, seed, &mut bytes),
                }
                .expect("fits");
                let bytes = &bytes[..n];
                let what = format!("{} v{version}", schema.name);
                let frame_len = assert_none(&what, || {
                    let r = &mut Reader::new(bytes);
                    if schema.kind == MessageKind::Request {
                        let body = Request::decode(r, key, version).expect("valid");
                        assert_eq!(body.encode(version, &mut out), Ok(n));
                        // A client id where the header has one (not ControlledShutdown v0's).
                        let header = RequestHeader::new(key, version, 1);
                        let header = if request_header_version(key, version) >= 1 {
                            header.with_client_id(Some("c"))
                        } else {
                            header
                        };
                        let len = frame::encode_request(&header, &body, &mut frame_buf);
                        let len = len.expect("fits");
                        frame::decode_request(&frame_buf[..len]).expect("valid");
                        len
                    } else {
                        let body = Response::decode(r, key, version).expect("valid");
                        assert_eq!(body.encode(version, &mut out), Ok(n));
                        let header = ResponseHeader::default().with_correlation_id(1);
                        let len = frame::encode_response(&header, &body, version, &mut frame_buf);
                        let len = len.expect("fits");
                        frame::decode_response(&frame_buf[..len], key, version).expect("valid");
                        if let Response::ApiVersions(v) = body {
                            let table = kwire::api::VersionTable::from_response(&v);
                            let _ = black_box(table.negotiate(ApiKey::FETCH));
                        }
                        len
                    }
                });
                {
                    text.clear();
                    let frame = &frame_buf[..frame_len];
                    assert_none(&what, || {
                        if schema.kind == MessageKind::Request {
                            kwire_schema::describe::write_request_frame(frame, &mut text)
                        } else {
                            kwire_schema::describe::write_response_frame(
                                frame, key, version, &mut text,
                            )
                        }
                        .expect("dissects")
                    });
                }
                assert!(frame_len > n, "the frame holds a header around the body");
                instances += 1;
            }
        }
    }
    assert!(instances > 1400, "{instances}");
}
