//! Decode and encode throughput of kafka-wire beside the `kafka-protocol` crate, on the same
//! bytes in the same run.

use std::hint::black_box;

use bytes::{Bytes, BytesMut};
use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use kafka_protocol::protocol::{Decodable, Encodable};
use kafka_wire::codec::{Decode, Encode, Reader};
use kafka_wire::messages::MetadataResponse;
use kafka_wire::messages::metadata_response::{
    MetadataResponseBroker, MetadataResponsePartition, MetadataResponseTopic,
};

const VERSION: i16 = 12;

/// A MetadataResponse v12 body: 3 brokers, 100 topics of 10 partitions, 3 replicas each.
fn metadata_body() -> Vec<u8> {
    let replicas = [1, 2, 3];
    let partitions: Vec<MetadataResponsePartition<'_>> = (0..10)
        .map(|p| {
            MetadataResponsePartition::default()
                .with_partition_index(p)
                .with_leader_id(1 + p % 3)
                .with_leader_epoch(7)
                .with_replica_nodes((&replicas[..]).into())
                .with_isr_nodes((&replicas[..]).into())
        })
        .collect();
    let names: Vec<String> = (0..100).map(|t| format!("topic-{t:03}")).collect();
    let topics: Vec<MetadataResponseTopic<'_>> = names
        .iter()
        .map(|n| {
            MetadataResponseTopic::default()
                .with_name(Some(n.as_str()))
                .with_partitions((&partitions[..]).into())
        })
        .collect();
    let brokers: Vec<MetadataResponseBroker<'_>> = (1..=3)
        .map(|b| {
            MetadataResponseBroker::default()
                .with_node_id(b)
                .with_host("broker.example")
                .with_port(9092)
        })
        .collect();
    let body = MetadataResponse::default()
        .with_brokers((&brokers[..]).into())
        .with_cluster_id(Some("cluster"))
        .with_topics((&topics[..]).into());
    let mut out = vec![0u8; body.encoded_len(VERSION).expect("encodable")];
    body.encode(VERSION, &mut out).expect("fits");
    out
}

/// Visits every field of a decoded response, so lazy views are fully walked.
fn visit(m: &MetadataResponse<'_>) -> i64 {
    let mut acc = i64::from(m.throttle_time_ms);
    for b in m.brokers.iter() {
        acc += i64::from(b.node_id) + i64::from(b.port) + b.host.len() as i64;
    }
    for t in m.topics.iter() {
        acc += t.name.map_or(0, str::len) as i64;
        for p in t.partitions.iter() {
            acc += i64::from(p.partition_index) + i64::from(p.leader_id);
            acc += p.replica_nodes.iter().map(i64::from).sum::<i64>();
            acc += p.isr_nodes.iter().map(i64::from).sum::<i64>();
        }
    }
    acc
}

fn metadata(c: &mut Criterion) {
    let body = metadata_body();
    let mut g = c.benchmark_group("metadata_response_v12_decode");
    g.throughput(Throughput::Bytes(body.len() as u64));
    g.bench_function("kafka-wire", |b| {
        b.iter(|| {
            let m = MetadataResponse::decode(&mut Reader::new(black_box(&body)), VERSION)
                .expect("valid");
            black_box(visit(&m))
        })
    });
    let shared = Bytes::from(body.clone());
    g.bench_function("kafka-protocol", |b| {
        b.iter(|| {
            let mut input = black_box(shared.clone());
            let m = kafka_protocol::messages::MetadataResponse::decode(&mut input, VERSION)
                .expect("valid");
            black_box(m.topics.len())
        })
    });
    g.finish();

    let ours = MetadataResponse::decode(&mut Reader::new(&body), VERSION).expect("valid");
    let theirs =
        kafka_protocol::messages::MetadataResponse::decode(&mut Bytes::from(body.clone()), VERSION)
            .expect("valid");
    let mut g = c.benchmark_group("metadata_response_v12_encode");
    g.throughput(Throughput::Bytes(body.len() as u64));
    let mut out = vec![0u8; body.len()];
    g.bench_function("kafka-wire", |b| {
        b.iter(|| black_box(&ours).encode(VERSION, &mut out).expect("fits"))
    });
    let mut buf = BytesMut::with_capacity(body.len());
    g.bench_function("kafka-protocol", |b| {
        b.iter(|| {
            buf.clear();
            black_box(&theirs)
                .encode(&mut buf, VERSION)
                .expect("encodable");
        })
    });
    g.finish();
}

criterion_group!(benches, metadata);
criterion_main!(benches);
