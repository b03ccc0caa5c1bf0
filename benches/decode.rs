//! Decode and encode throughput of kwire beside the `kafka-protocol` crate, on the same
//! bytes in the same run, one group per message and direction:
//!
//! * decode: MetadataResponse v12 (100 topics × 10 partitions × 3 replicas), FetchResponse v16
//!   (100 partitions of one 16 KiB batch each), ProduceRequest v11 (one 16 KiB batch) and
//!   ApiVersionsResponse v4, and four with many small structures: FetchResponse v16 of 1000
//!   partitions without records, ProduceRequest v11 of 100 partitions with one small batch each,
//!   OffsetCommitRequest v9 of 50 topics × 20 partitions and ListOffsetsResponse v10 of 1000
//!   partitions; each followed by a visit of every field and every array element (and of the
//!   record batches' headers);
//! * encode: the same messages, ours built from caller slices into a caller's buffer, theirs
//!   into a pre-reserved `BytesMut`;
//! * re-encode: a decoded FetchResponse frame written again at its version, beside a plain copy
//!   of the frame's bytes.
//!
//! The inputs come from the `kwire-workloads` package (`benches/workloads/`), shared with the
//! report, the instruction-count runner and the allocation test.

use std::hint::black_box;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use kafka_protocol::protocol::Encodable;
use kwire::{ApiKey, Encode, frame};

use kwire_workloads::*;

type Visit<I> = fn(&I, i16) -> u64;

fn decode_group<O, T>(
    c: &mut Criterion,
    case: &Case<O, T>,
    ours: Visit<[u8]>,
    theirs: Visit<bytes::Bytes>,
) {
    let mut g = c.benchmark_group(format!("{}_decode", case.name));
    g.throughput(Throughput::Bytes(case.body.len() as u64));
    g.bench_function("kwire", |b| {
        b.iter(|| ours(black_box(&case.body), case.version))
    });
    g.bench_function("kafka-protocol", |b| {
        b.iter(|| theirs(black_box(&case.shared), case.version))
    });
    g.finish();
}

fn encode_group<O: Encode, T: Encodable>(c: &mut Criterion, case: &Case<O, T>) {
    let mut g = c.benchmark_group(format!("{}_encode", case.name));
    g.throughput(Throughput::Bytes(case.body.len() as u64));
    let mut out = case.out_buf();
    g.bench_function("kwire", |b| {
        b.iter(|| ours_encode(black_box(&case.ours), case.version, &mut out))
    });
    let mut buf = case.peer_buf();
    g.bench_function("kafka-protocol", |b| {
        b.iter(|| theirs_encode(black_box(&case.theirs), case.version, &mut buf))
    });
    g.finish();
}

fn messages(c: &mut Criterion) {
    let w = Workloads::new();
    decode_group(c, &w.metadata, ours_metadata, theirs_metadata);
    encode_group(c, &w.metadata);
    decode_group(c, &w.fetch, ours_fetch, theirs_fetch);
    encode_group(c, &w.fetch);
    decode_group(c, &w.produce, ours_produce, theirs_produce);
    encode_group(c, &w.produce);
    decode_group(c, &w.api_versions, ours_api_versions, theirs_api_versions);
    encode_group(c, &w.api_versions);
    decode_group(c, &w.fetch_empty, ours_fetch, theirs_fetch);
    encode_group(c, &w.fetch_empty);
    decode_group(c, &w.produce_many, ours_produce, theirs_produce);
    encode_group(c, &w.produce_many);
    decode_group(
        c,
        &w.offset_commit,
        ours_offset_commit,
        theirs_offset_commit,
    );
    encode_group(c, &w.offset_commit);
    decode_group(c, &w.list_offsets, ours_list_offsets, theirs_list_offsets);
    encode_group(c, &w.list_offsets);

    let frame_bytes = &w.fetch_frame;
    let (header, body) =
        frame::decode_response(frame_bytes, ApiKey::FETCH, FETCH_VERSION).expect("valid");
    let mut out = vec![0u8; frame_bytes.len()];
    let mut g = c.benchmark_group("fetch_v16_reencode");
    g.throughput(Throughput::Bytes(frame_bytes.len() as u64));
    g.bench_function("plain-copy", |b| {
        b.iter(|| plain_copy(black_box(frame_bytes), &mut out))
    });
    g.bench_function("kwire-reencode", |b| {
        b.iter(|| ours_reencode_decoded(black_box(&header), black_box(&body), &mut out))
    });
    g.bench_function("kwire-decode-reencode", |b| {
        b.iter(|| ours_reencode(black_box(frame_bytes), &mut out))
    });
    g.finish();
}

criterion_group!(benches, messages);
criterion_main!(benches);
