//! Record-batch throughput of kwire beside the `kafka-protocol` crate, on the same bytes in
//! the same run: checksums over 16 KiB, reading the 1000 records of one batch, and writing a
//! 1000-record batch.

use std::hint::black_box;

use bytes::{Bytes, BytesMut};
use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use kafka_protocol::records::{
    Compression as KpCompression, IEEE, Record as KpRecord, RecordBatchDecoder, RecordBatchEncoder,
    RecordEncodeOptions, TimestampType as KpTimestampType,
};
use kwire::records::{BatchBuilder, NewHeader, NewRecord, RecordBatch, crc};

use kwire_workloads as workloads;

const RECORDS: usize = 1000;
const TS: i64 = 1_700_000_000_000;

/// The content of the small records: a 7-byte key, a 24-byte value and one header.
struct Content {
    keys: Vec<Vec<u8>>,
    values: Vec<Vec<u8>>,
}

impl Content {
    fn new() -> Self {
        Self {
            keys: (0..RECORDS)
                .map(|i| format!("key-{i:03}").into_bytes())
                .collect(),
            values: (0..RECORDS)
                .map(|i| format!("{{\"n\":{i:05},\"ok\":true}}    ").into_bytes())
                .collect(),
        }
    }

    fn ours<'a>(&'a self, header: &'a [NewHeader<'a>]) -> Vec<NewRecord<'a>> {
        self.keys
            .iter()
            .zip(&self.values)
            .enumerate()
            .map(|(i, (k, v))| {
                NewRecord::new(v)
                    .with_key(k)
                    .with_headers(header)
                    .with_timestamp(TS + i as i64)
            })
            .collect()
    }

    fn theirs(&self) -> Vec<KpRecord> {
        self.keys
            .iter()
            .zip(&self.values)
            .enumerate()
            .map(|(i, (k, v))| {
                let mut r = KpRecord {
                    transactional: false,
                    control: false,
                    delete_horizon: false,
                    partition_leader_epoch: -1,
                    producer_id: 7,
                    producer_epoch: 0,
                    timestamp_type: KpTimestampType::Creation,
                    offset: i as i64,
                    sequence: i as i32,
                    timestamp: TS + i as i64,
                    key: Some(Bytes::from(k.clone())),
                    value: Some(Bytes::from(v.clone())),
                    headers: Default::default(),
                };
                r.headers
                    .insert("trace".into(), Some(Bytes::from_static(b"abc")));
                r
            })
            .collect()
    }
}

const HEADER: [NewHeader<'static>; 1] = [NewHeader {
    key: b"trace",
    value: Some(b"abc"),
}];

fn builder() -> BatchBuilder {
    BatchBuilder::new().with_producer(7, 0, 0)
}

fn options() -> RecordEncodeOptions {
    RecordEncodeOptions {
        version: 2,
        compression: KpCompression::None,
    }
}

fn checksums(c: &mut Criterion) {
    let data = workloads::crc_data();

    let mut g = c.benchmark_group("crc32c_16k");
    g.throughput(Throughput::Bytes(data.len() as u64));
    g.bench_function("kwire", |b| b.iter(|| crc::crc32c(black_box(&data))));
    // kafka-protocol has no public CRC-32C; the `crc` crate's sixteen-table form, the same
    // method, is the reference point.
    let sixteen = ::crc::Crc::<u32, ::crc::Table<16>>::new(&::crc::CRC_32_ISCSI);
    g.bench_function("crc-crate-16-tables", |b| {
        b.iter(|| sixteen.checksum(black_box(&data)))
    });
    g.finish();

    // CRC-32 (IEEE), the legacy messages' checksum, which kafka-protocol exports.
    let mut g = c.benchmark_group("crc32_16k");
    g.throughput(Throughput::Bytes(data.len() as u64));
    g.bench_function("kwire", |b| b.iter(|| crc::crc32(black_box(&data))));
    g.bench_function("kafka-protocol", |b| {
        b.iter(|| IEEE.checksum(black_box(&data)))
    });
    g.finish();
}

fn read_records(c: &mut Criterion) {
    let bytes = workloads::small_records_batch();
    let shared = Bytes::from(bytes.clone());

    let mut g = c.benchmark_group("read_1000_records");
    g.throughput(Throughput::Elements(RECORDS as u64));
    // Both check the CRC (`records` does, before the first record) and visit every key, value
    // and header.
    g.bench_function("kwire", |b| {
        b.iter(|| {
            let batch = RecordBatch::parse(black_box(&bytes)).unwrap();
            let mut acc = 0usize;
            for r in batch.records().unwrap() {
                let r = r.unwrap();
                acc += r.key().map_or(0, <[u8]>::len) + r.value().map_or(0, <[u8]>::len);
                acc += r.offset() as usize + r.timestamp() as usize;
                for h in r.headers() {
                    acc += h.key().len() + h.value().map_or(0, <[u8]>::len);
                }
            }
            acc
        })
    });
    g.bench_function("kwire-no-crc", |b| {
        b.iter(|| {
            let batch = RecordBatch::parse(black_box(&bytes)).unwrap();
            let mut acc = 0usize;
            for r in batch.records_unchecked().unwrap() {
                let r = r.unwrap();
                acc += r.key().map_or(0, <[u8]>::len) + r.value().map_or(0, <[u8]>::len);
                acc += r.offset() as usize + r.timestamp() as usize;
                for h in r.headers() {
                    acc += h.key().len() + h.value().map_or(0, <[u8]>::len);
                }
            }
            acc
        })
    });
    g.bench_function("kafka-protocol", |b| {
        b.iter(|| {
            let set = RecordBatchDecoder::decode(&mut black_box(shared.clone())).unwrap();
            let mut acc = 0usize;
            for r in &set.records {
                acc +=
                    r.key.as_ref().map_or(0, Bytes::len) + r.value.as_ref().map_or(0, Bytes::len);
                acc += r.offset as usize + r.timestamp as usize;
                for (k, v) in &r.headers {
                    acc += k.len() + v.as_ref().map_or(0, Bytes::len);
                }
            }
            acc
        })
    });
    g.finish();
}

fn write_batch(c: &mut Criterion) {
    let content = Content::new();
    let ours = content.ours(&HEADER);
    let theirs = content.theirs();
    let len = builder().encoded_len(&ours).unwrap();

    // The same bytes from both, so the comparison is like for like.
    let mut a = vec![0u8; len];
    builder().write(&ours, &mut a).unwrap();
    let mut b = BytesMut::new();
    RecordBatchEncoder::encode(&mut b, &theirs, &options()).unwrap();
    assert_eq!(&a[..], &b[..], "both write the same batch");

    let mut g = c.benchmark_group("write_1000_records");
    g.throughput(Throughput::Elements(RECORDS as u64));
    let mut out = vec![0u8; len];
    g.bench_function("kwire", |bench| {
        bench.iter(|| builder().write(black_box(&ours), &mut out).unwrap())
    });
    let mut buf = BytesMut::with_capacity(len);
    g.bench_function("kafka-protocol", |bench| {
        bench.iter(|| {
            buf.clear();
            RecordBatchEncoder::encode(&mut buf, black_box(&theirs), &options()).unwrap();
            buf.len()
        })
    });
    g.finish();
}

criterion_group!(benches, checksums, read_records, write_batch);
criterion_main!(benches);
