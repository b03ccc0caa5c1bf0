//! The workloads shared by the benches, the report, the instruction-count runner and the
//! allocation test: deterministic inputs, and the work each implementation does on them.
//!
//! Every message body is built once with kwire, encoded, and decoded by `kafka-protocol`
//! from those same bytes; both sides then work on identical input. The `ours_*` and `theirs_*`
//! functions return a checksum of everything they visited; for the same input both checksums
//! are equal, which the constructors assert, so both sides provably do the same visiting.
//!
//! A package of its own, not published, which the library's benches, its measuring programs
//! (`benches/tools/`) and its allocation test (`tests/integration/zero_alloc.rs`) depend on, so that they
//! measure one set of workloads. It enables only the APIs it builds; the library's own targets
//! bring their features (`perf` among the defaults).

use bytes::{Buf, Bytes, BytesMut};
use kafka_protocol::messages as kp;
use kafka_protocol::protocol::{Decodable, Encodable};
use kwire::codec::{Reader, Str, Uuid};
use kwire::messages::api_versions_response::{
    ApiVersion, FinalizedFeatureKey, SupportedFeatureKey,
};
use kwire::messages::fetch_response::{
    AbortedTransaction, EpochEndOffset, FetchableTopicResponse, LeaderIdAndEpoch, NodeEndpoint,
    PartitionData, SnapshotId,
};
use kwire::messages::list_offsets_response::{
    ListOffsetsPartitionResponse, ListOffsetsTopicResponse,
};
use kwire::messages::metadata_response::{
    MetadataResponseBroker, MetadataResponsePartition, MetadataResponseTopic,
};
use kwire::messages::offset_commit_request::{
    OffsetCommitRequestPartition, OffsetCommitRequestTopic,
};
use kwire::messages::produce_request::{PartitionProduceData, TopicProduceData};
use kwire::messages::{
    ApiVersionsResponse, FetchResponse, ListOffsetsResponse, MetadataResponse, OffsetCommitRequest,
    ProduceRequest, ResponseHeader,
};
use kwire::records::{BatchBuilder, NewHeader, NewRecord, RecordBatch, Records};
use kwire::{ApiKey, Decode, Encode, Response, frame};

pub const METADATA_VERSION: i16 = 12;
pub const FETCH_VERSION: i16 = 16;
pub const PRODUCE_VERSION: i16 = 11;
pub const API_VERSIONS_VERSION: i16 = 4;
pub const OFFSET_COMMIT_VERSION: i16 = 9;
pub const LIST_OFFSETS_VERSION: i16 = 10;

/// Bytes of each record batch in the fetch and produce workloads.
pub const BATCH_LEN: usize = 16 * 1024;
/// Records in the small-record batch.
pub const SMALL_RECORDS: usize = 1000;
const TS: i64 = 1_700_000_000_000;

// ---------------------------------------------------------------------------------------------
// Checksums: both sides fold what they visit into one number the same way.
// ---------------------------------------------------------------------------------------------

/// A plain sum: it keeps every read alive while adding as little work of its own as possible
/// (a multiply-based hash made the visitor itself a large share of the peer's time).
#[inline(always)]
fn mix(acc: u64, v: u64) -> u64 {
    acc.wrapping_add(v)
}

#[inline(always)]
fn mix_i(acc: u64, v: i64) -> u64 {
    mix(acc, v as u64)
}

fn mix_uuid(acc: u64, u: &[u8; 16]) -> u64 {
    let (hi, lo) = u.split_at(8);
    let hi = u64::from_be_bytes(hi.try_into().unwrap_or_default());
    let lo = u64::from_be_bytes(lo.try_into().unwrap_or_default());
    mix(mix(acc, hi), lo)
}

/// Folds a string read as `&str`: kwire's checked once here, where it is read, as
/// `kafka-protocol`'s decode checks each string once.
fn mix_str(acc: u64, s: Str<'_>) -> u64 {
    match s.to_str() {
        Ok(s) => mix_text(acc, s),
        Err(_) => mix(acc, 1),
    }
}

fn mix_text(acc: u64, s: &str) -> u64 {
    mix(
        acc,
        s.len() as u64 ^ u64::from(s.as_bytes().first().copied().unwrap_or(0)),
    )
}

fn mix_opt_text(acc: u64, s: Option<&str>) -> u64 {
    match s {
        Some(s) => mix_text(acc, s),
        None => mix(acc, u64::MAX),
    }
}

fn mix_opt_str(acc: u64, s: Option<Str<'_>>) -> u64 {
    match s {
        Some(s) => mix_str(acc, s),
        None => mix(acc, u64::MAX),
    }
}

/// Folds the header fields of every batch in a records field, read with kwire.
fn ours_batches(mut acc: u64, records: Option<&Records<'_>>) -> u64 {
    let Some(records) = records else {
        return mix(acc, u64::MAX);
    };
    for b in records.batches() {
        let Ok(b) = b else { return mix(acc, 1) };
        let Some(b) = b.as_v2() else { continue };
        acc = mix_i(acc, b.base_offset());
        acc = mix_i(acc, i64::from(b.batch_length()));
        acc = mix_i(acc, i64::from(b.partition_leader_epoch()));
        acc = mix(acc, u64::from(b.crc()));
        acc = mix_i(acc, i64::from(b.attributes().0));
        acc = mix_i(acc, i64::from(b.last_offset_delta()));
        acc = mix_i(acc, b.base_timestamp());
        acc = mix_i(acc, b.max_timestamp());
        acc = mix_i(acc, b.producer_id());
        acc = mix_i(acc, i64::from(b.producer_epoch()));
        acc = mix_i(acc, i64::from(b.base_sequence()));
        acc = mix_i(acc, i64::from(b.records_count()));
    }
    acc
}

/// The same fold over `kafka-protocol`'s raw records bytes. That crate's only header reader,
/// `decode_batch_info`, also checks every CRC; the headers are read here with `bytes::Buf`
/// instead, so both sides do the same work.
fn theirs_batches(mut acc: u64, records: Option<&Bytes>) -> u64 {
    let Some(records) = records else {
        return mix(acc, u64::MAX);
    };
    let mut rest: &[u8] = records;
    while rest.len() >= 61 {
        let mut h = rest;
        let base_offset = h.get_i64();
        let len = h.get_i32();
        let epoch = h.get_i32();
        let _magic = h.get_i8();
        let crc = h.get_u32();
        let attributes = h.get_i16();
        let last_offset_delta = h.get_i32();
        let base_ts = h.get_i64();
        let max_ts = h.get_i64();
        let pid = h.get_i64();
        let pepoch = h.get_i16();
        let seq = h.get_i32();
        let count = h.get_i32();
        for v in [
            base_offset,
            i64::from(len),
            i64::from(epoch),
            i64::from(crc),
            i64::from(attributes),
            i64::from(last_offset_delta),
            base_ts,
            max_ts,
            pid,
            i64::from(pepoch),
            i64::from(seq),
            i64::from(count),
        ] {
            acc = mix_i(acc, v);
        }
        let total = 12 + len.max(0) as usize;
        rest = rest.get(total..).unwrap_or_default();
    }
    acc
}

// ---------------------------------------------------------------------------------------------
// Input construction
// ---------------------------------------------------------------------------------------------

fn leak<T>(v: Vec<T>) -> &'static [T] {
    v.leak()
}

/// The boundary every buffer an encode copies from or into starts on, on both sides: how fast
/// a copy runs depends on how its source and destination are aligned, and with these it is
/// the same for kwire and for the peer.
const ALIGN: usize = 64;

/// `bytes` in a new buffer starting on an [`ALIGN`] boundary: the buffer and where they start.
fn aligned(bytes: &[u8]) -> (Vec<u8>, usize) {
    let mut storage = vec![0u8; bytes.len() + ALIGN];
    let at = storage.as_ptr().align_offset(ALIGN);
    storage[at..at + bytes.len()].copy_from_slice(bytes);
    (storage, at)
}

/// A record batch of ours, leaked on an [`ALIGN`] boundary.
fn leak_batch(batch: Vec<u8>) -> &'static [u8] {
    let (storage, at) = aligned(&batch);
    &storage.leak()[at..at + batch.len()]
}

fn leak_str(s: String) -> &'static str {
    s.leak()
}

/// Encodes a kwire value into a fresh vector of exactly its size.
pub fn encode<E: Encode>(v: &E, version: i16) -> Vec<u8> {
    let mut out = vec![0u8; v.encoded_len(version).expect("encodable")];
    let n = v.encode(version, &mut out).expect("fits");
    assert_eq!(n, out.len());
    out
}

/// A v2 batch of exactly [`BATCH_LEN`] bytes: 16 records of about 1 KiB, base offset `base`.
pub fn batch_16k(base: i64) -> Vec<u8> {
    let values: Vec<Vec<u8>> = (0..15u8)
        .map(|i| (0..1000u32).map(|j| (j as u8) ^ i ^ (base as u8)).collect())
        .collect();
    let headers = [NewHeader {
        key: b"trace",
        value: Some(b"0123456789abcdef"),
    }];
    let builder = BatchBuilder::new()
        .with_base_offset(base)
        .with_partition_leader_epoch(5)
        .with_producer(4242, 1, (base % 1000) as i32);
    // Grow the last value until the batch is exactly BATCH_LEN long (from a little below the
    // answer: its length prefix may take one more byte).
    let mut last = 0usize;
    let mut first = true;
    loop {
        let tail = vec![7u8; last];
        let records: Vec<NewRecord<'_>> = values
            .iter()
            .map(|v| &v[..])
            .chain(std::iter::once(&tail[..]))
            .enumerate()
            .map(|(i, v)| {
                NewRecord::new(v)
                    .with_headers(&headers)
                    .with_timestamp(TS + i as i64)
            })
            .collect();
        let len = builder.encoded_len(&records).expect("encodable");
        if first {
            first = false;
            last = BATCH_LEN.saturating_sub(len + 4);
            continue;
        }
        if len >= BATCH_LEN {
            assert_eq!(len, BATCH_LEN, "a 16 KiB batch can be sized exactly");
            let mut out = vec![0u8; len];
            builder.write(&records, &mut out).expect("fits");
            return out;
        }
        last += 1;
    }
}

/// MetadataResponse v12: 3 brokers, 100 topics of 10 partitions, 3 replicas each.
pub fn metadata_value() -> MetadataResponse<'static> {
    let brokers = leak(
        (1..=3)
            .map(|b| {
                MetadataResponseBroker::default()
                    .with_node_id(b)
                    .with_host(leak_str(format!("broker-{b}.kafka.example.com")))
                    .with_port(9092)
                    .with_rack(Some(leak_str(format!("rack-{b}"))))
            })
            .collect(),
    );
    let topics = leak(
        (0..100u64)
            .map(|t| {
                let partitions = leak(
                    (0..10i32)
                        .map(|p| {
                            let r = leak(vec![1 + p % 3, 1 + (p + 1) % 3, 1 + (p + 2) % 3]);
                            MetadataResponsePartition::default()
                                .with_partition_index(p)
                                .with_leader_id(r[0])
                                .with_leader_epoch(7 + p)
                                .with_replica_nodes(r)
                                .with_isr_nodes(r)
                        })
                        .collect(),
                );
                MetadataResponseTopic::default()
                    .with_name(Some(leak_str(format!("orders.events.topic-{t:03}"))))
                    .with_topic_id(Uuid::from_u64_pair(0x1234_5678 + t, !t))
                    .with_partitions(partitions)
                    .with_topic_authorized_operations(-2_147_483_648)
            })
            .collect(),
    );
    MetadataResponse::default()
        .with_brokers(brokers)
        .with_cluster_id(Some("mUxHyBnQRk-5pRkVvZgMQw"))
        .with_controller_id(2)
        .with_topics(topics)
}

/// FetchResponse v16: 10 topics of 10 partitions, each partition holding one 16 KiB batch.
pub fn fetch_value() -> FetchResponse<'static> {
    let responses = leak(
        (0..10u64)
            .map(|t| {
                let partitions = leak(
                    (0..10i32)
                        .map(|p| {
                            let n = t as i64 * 10 + i64::from(p);
                            let batch = leak_batch(batch_16k(n * 1000));
                            let aborted = leak(if p % 2 == 0 {
                                vec![]
                            } else {
                                vec![
                                    AbortedTransaction::default()
                                        .with_producer_id(77)
                                        .with_first_offset(n * 1000 + 3),
                                ]
                            });
                            PartitionData::default()
                                .with_partition_index(p)
                                .with_high_watermark(n * 1000 + 5000)
                                .with_last_stable_offset(n * 1000 + 4000)
                                .with_log_start_offset(n)
                                .with_diverging_epoch(
                                    EpochEndOffset::default().with_epoch(-1).with_end_offset(-1),
                                )
                                .with_current_leader(
                                    LeaderIdAndEpoch::default()
                                        .with_leader_id(-1)
                                        .with_leader_epoch(-1),
                                )
                                .with_snapshot_id(
                                    SnapshotId::default().with_end_offset(-1).with_epoch(-1),
                                )
                                .with_aborted_transactions(Some(aborted.into()))
                                .with_preferred_read_replica(-1)
                                .with_records(Some(Records::new(batch)))
                        })
                        .collect(),
                );
                FetchableTopicResponse::default()
                    .with_topic_id(Uuid::from_u64_pair(0xabcd + t, t))
                    .with_partitions(partitions)
            })
            .collect(),
    );
    let endpoints = leak(
        (1..=3)
            .map(|b| {
                NodeEndpoint::default()
                    .with_node_id(b)
                    .with_host(leak_str(format!("broker-{b}.kafka.example.com")))
                    .with_port(9092)
                    .with_rack(Some(leak_str(format!("rack-{b}"))))
            })
            .collect(),
    );
    FetchResponse::default()
        .with_session_id(91)
        .with_responses(responses)
        .with_node_endpoints(endpoints)
}

/// ProduceRequest v11: one topic, one partition, one 16 KiB batch.
pub fn produce_value() -> ProduceRequest<'static> {
    let batch = leak_batch(batch_16k(0));
    let partitions = leak(vec![
        PartitionProduceData::default()
            .with_index(3)
            .with_records(Some(Records::new(batch))),
    ]);
    let topics = leak(vec![
        TopicProduceData::default()
            .with_name("orders.events")
            .with_partition_data(partitions),
    ]);
    ProduceRequest::default()
        .with_transactional_id(None)
        .with_acks(-1)
        .with_timeout_ms(30_000)
        .with_topic_data(topics)
}

/// FetchResponse v16 as a consumer's long poll returns it when nothing new has arrived: 10 topics
/// of 100 partitions, each with its offsets, no aborted transactions and empty records.
pub fn fetch_empty_value() -> FetchResponse<'static> {
    let responses = leak(
        (0..10u64)
            .map(|t| {
                let partitions = leak(
                    (0..100i32)
                        .map(|p| {
                            let n = t as i64 * 100 + i64::from(p);
                            PartitionData::default()
                                .with_partition_index(p)
                                .with_high_watermark(n * 1000 + 5000)
                                .with_last_stable_offset(n * 1000 + 5000)
                                .with_log_start_offset(n)
                                .with_preferred_read_replica(-1)
                                .with_records(Some(Records::new(&[])))
                        })
                        .collect(),
                );
                FetchableTopicResponse::default()
                    .with_topic_id(Uuid::from_u64_pair(0xef01 + t, t))
                    .with_partitions(partitions)
            })
            .collect(),
    );
    FetchResponse::default()
        .with_session_id(92)
        .with_responses(responses)
}

/// ProduceRequest v11 from a producer that batches for many partitions: 10 topics of 10
/// partitions, one small batch each (four records of 100-byte values).
pub fn produce_many_value() -> ProduceRequest<'static> {
    let topics = leak(
        (0..10u64)
            .map(|t| {
                let partitions = leak(
                    (0..10i32)
                        .map(|p| {
                            let values: Vec<Vec<u8>> = (0..4u8)
                                .map(|i| vec![b'a' + i + (p as u8 % 8); 100])
                                .collect();
                            let records: Vec<NewRecord<'_>> = values
                                .iter()
                                .enumerate()
                                .map(|(i, v)| NewRecord::new(v).with_timestamp(TS + i as i64))
                                .collect();
                            let builder = BatchBuilder::new().with_producer(4242, 1, p * 4);
                            let mut out =
                                vec![0u8; builder.encoded_len(&records).expect("encodable")];
                            builder.write(&records, &mut out).expect("fits");
                            PartitionProduceData::default()
                                .with_index(p)
                                .with_records(Some(Records::new(leak_batch(out))))
                        })
                        .collect(),
                );
                TopicProduceData::default()
                    .with_name(leak_str(format!("orders.events.topic-{t:03}")))
                    .with_partition_data(partitions)
            })
            .collect(),
    );
    ProduceRequest::default()
        .with_transactional_id(None)
        .with_acks(-1)
        .with_timeout_ms(30_000)
        .with_topic_data(topics)
}

/// OffsetCommitRequest v9 from a consumer group member: 50 topics of 20 partitions.
pub fn offset_commit_value() -> OffsetCommitRequest<'static> {
    let topics = leak(
        (0..50u64)
            .map(|t| {
                let partitions = leak(
                    (0..20i32)
                        .map(|p| {
                            OffsetCommitRequestPartition::default()
                                .with_partition_index(p)
                                .with_committed_offset(t as i64 * 1_000_000 + i64::from(p) * 977)
                                .with_committed_leader_epoch(7)
                                .with_committed_metadata(Some(""))
                        })
                        .collect(),
                );
                OffsetCommitRequestTopic::default()
                    .with_name(leak_str(format!("orders.events.topic-{t:03}")))
                    .with_partitions(partitions)
            })
            .collect(),
    );
    OffsetCommitRequest::default()
        .with_group_id("order-processors")
        .with_generation_id_or_member_epoch(42)
        .with_member_id("consumer-order-processors-1-6f1c2a3b-4d5e-4f60-8a9b-0c1d2e3f4a5b")
        .with_group_instance_id(None)
        .with_topics(topics)
}

/// ListOffsetsResponse v10: 10 topics of 100 partitions.
pub fn list_offsets_value() -> ListOffsetsResponse<'static> {
    let topics = leak(
        (0..10u64)
            .map(|t| {
                let partitions = leak(
                    (0..100i32)
                        .map(|p| {
                            ListOffsetsPartitionResponse::default()
                                .with_partition_index(p)
                                .with_timestamp(-1)
                                .with_offset(t as i64 * 1_000_000 + i64::from(p) * 31)
                                .with_leader_epoch(5)
                        })
                        .collect(),
                );
                ListOffsetsTopicResponse::default()
                    .with_name(leak_str(format!("orders.events.topic-{t:03}")))
                    .with_partitions(partitions)
            })
            .collect(),
    );
    ListOffsetsResponse::default().with_topics(topics)
}

/// ApiVersionsResponse v4 as a current broker sends it: every API key kwire knows with its
/// request versions, and the usual supported and finalized features.
pub fn api_versions_value() -> ApiVersionsResponse<'static> {
    let keys = leak(
        ApiKey::all()
            .map(|k| {
                let v = k.request_versions();
                ApiVersion::default()
                    .with_api_key(k.0)
                    .with_min_version(v.min)
                    .with_max_version(v.max)
            })
            .collect(),
    );
    let features: [(&'static str, i16, i16); 6] = [
        ("metadata.version", 1, 27),
        ("kraft.version", 0, 1),
        ("group.version", 0, 1),
        ("transaction.version", 0, 2),
        ("eligible.leader.replicas.version", 0, 1),
        ("share.version", 0, 1),
    ];
    let supported = leak(
        features
            .iter()
            .map(|&(n, min, max)| {
                SupportedFeatureKey::default()
                    .with_name(n)
                    .with_min_version(min)
                    .with_max_version(max)
            })
            .collect(),
    );
    let finalized = leak(
        features
            .iter()
            .map(|&(n, _, max)| {
                FinalizedFeatureKey::default()
                    .with_name(n)
                    .with_max_version_level(max)
                    .with_min_version_level(max)
            })
            .collect(),
    );
    ApiVersionsResponse::default()
        .with_api_keys(keys)
        .with_supported_features(supported)
        .with_finalized_features_epoch(1234)
        .with_finalized_features(finalized)
}

/// A batch of [`SMALL_RECORDS`] small records: 7-byte keys, 24-byte values and one header each.
pub fn small_records_batch() -> Vec<u8> {
    let (keys, values) = small_content();
    let records = small_records(&keys, &values);
    let builder = BatchBuilder::new().with_producer(7, 0, 0);
    let mut out = vec![0u8; builder.encoded_len(&records).expect("encodable")];
    builder.write(&records, &mut out).expect("fits");
    out
}

/// 16 KiB of deterministic bytes for the checksum workload.
pub fn crc_data() -> Vec<u8> {
    (0..16 * 1024u32)
        .map(|i| (i.wrapping_mul(2_654_435_761) >> 24) as u8)
        .collect()
}

// ---------------------------------------------------------------------------------------------
// One message workload: its bytes, our built value and the peer's decoded value.
// ---------------------------------------------------------------------------------------------

/// A record batch of the peer's in a buffer of its own, on an [`ALIGN`] boundary.
fn own_buffer(records: &mut Option<Bytes>) {
    if let Some(b) = records {
        let (storage, at) = aligned(b);
        *b = Bytes::from(storage).slice(at..at + b.len());
    }
}

/// Gives each record batch of a peer's FetchResponse a buffer of its own.
fn own_fetch_records(m: &mut kp::FetchResponse) {
    for t in &mut m.responses {
        t.partitions
            .iter_mut()
            .for_each(|p| own_buffer(&mut p.records));
    }
}

/// Gives each record batch of a peer's ProduceRequest a buffer of its own.
fn own_produce_records(m: &mut kp::ProduceRequest) {
    for t in &mut m.topic_data {
        t.partition_data
            .iter_mut()
            .for_each(|p| own_buffer(&mut p.records));
    }
}

/// A message workload.
pub struct Case<O: 'static, T> {
    pub name: &'static str,
    pub version: i16,
    /// The encoded body, the input of both decoders.
    pub body: Vec<u8>,
    /// The same bytes as `Bytes`, for `kafka-protocol`.
    pub shared: Bytes,
    /// Our value as an encoder builds it (arrays are caller slices).
    pub ours: O,
    /// The peer's value, decoded from `body`.
    pub theirs: T,
}

impl<O: Encode + 'static, T: Decodable + Encodable> Case<O, T> {
    fn new(name: &'static str, version: i16, ours: O) -> Self {
        let body = encode(&ours, version);
        let shared = Bytes::from(body.clone());
        let theirs = T::decode(&mut shared.clone(), version).expect("peer decodes");
        let mut again = BytesMut::new();
        theirs.encode(&mut again, version).expect("peer encodes");
        assert_eq!(
            &again[..],
            &body[..],
            "{name}: the peer writes the same bytes"
        );
        Self {
            name,
            version,
            body,
            shared,
            ours,
            theirs,
        }
    }
}

impl<O, T> Case<O, T> {
    /// Moves each record batch of the peer's value into a buffer of its own, with `detach`.
    /// Decoded, they are slices of the input at the offsets the encoding writes them to; ours
    /// are built, each in its own buffer, and the peer's are made so too.
    fn with_own_records(mut self, detach: fn(&mut T)) -> Self {
        detach(&mut self.theirs);
        self
    }

    /// A buffer large enough for our encoding, on an [`ALIGN`] boundary, holding the encoded
    /// bytes.
    pub fn out_buf(&self) -> OutBuf {
        let (storage, at) = aligned(&self.body);
        OutBuf {
            storage,
            at,
            len: self.body.len(),
        }
    }

    /// A `BytesMut` reserved for the peer's encoding, on an [`ALIGN`] boundary.
    pub fn peer_buf(&self) -> BytesMut {
        let mut whole = BytesMut::with_capacity(self.body.len() + ALIGN);
        let pad = whole.as_ptr().align_offset(ALIGN);
        whole.resize(pad, 0);
        whole.split_off(pad)
    }
}

/// A caller's buffer for our encodings, on an [`ALIGN`] boundary.
pub struct OutBuf {
    storage: Vec<u8>,
    at: usize,
    len: usize,
}

impl std::ops::Deref for OutBuf {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        &self.storage[self.at..self.at + self.len]
    }
}

impl std::ops::DerefMut for OutBuf {
    fn deref_mut(&mut self) -> &mut [u8] {
        &mut self.storage[self.at..self.at + self.len]
    }
}

/// Encodes our value into `out` (a caller's buffer).
#[inline]
pub fn ours_encode<O: Encode>(v: &O, version: i16, out: &mut [u8]) -> usize {
    v.encode(version, out).expect("fits")
}

/// Encodes the peer's value into a pre-reserved `BytesMut`.
#[inline]
pub fn theirs_encode<T: Encodable>(v: &T, version: i16, out: &mut BytesMut) -> usize {
    out.clear();
    v.encode(out, version).expect("encodable");
    out.len()
}

// ---------------------------------------------------------------------------------------------
// Decode and visit
// ---------------------------------------------------------------------------------------------

pub fn ours_metadata(body: &[u8], version: i16) -> u64 {
    let m = MetadataResponse::decode(&mut Reader::new(body), version).expect("valid");
    let mut acc = mix_i(0, i64::from(m.throttle_time_ms));
    for b in m.brokers.iter() {
        acc = mix_i(acc, i64::from(b.node_id));
        acc = mix_str(acc, b.host);
        acc = mix_i(acc, i64::from(b.port));
        acc = mix_opt_str(acc, b.rack);
    }
    acc = mix_opt_str(acc, m.cluster_id);
    acc = mix_i(acc, i64::from(m.controller_id));
    for t in m.topics.iter() {
        acc = mix_i(acc, i64::from(t.error_code));
        acc = mix_opt_str(acc, t.name);
        acc = mix_uuid(acc, &t.topic_id.0);
        acc = mix(acc, u64::from(t.is_internal));
        for p in t.partitions.iter() {
            acc = mix_i(acc, i64::from(p.error_code));
            acc = mix_i(acc, i64::from(p.partition_index));
            acc = mix_i(acc, i64::from(p.leader_id));
            acc = mix_i(acc, i64::from(p.leader_epoch));
            for r in p.replica_nodes.iter() {
                acc = mix_i(acc, i64::from(r));
            }
            for r in p.isr_nodes.iter() {
                acc = mix_i(acc, i64::from(r));
            }
            for r in p.offline_replicas.iter() {
                acc = mix_i(acc, i64::from(r));
            }
            acc = mix(acc, p.unknown_tagged_fields.len() as u64);
        }
        acc = mix_i(acc, i64::from(t.topic_authorized_operations));
        acc = mix(acc, t.unknown_tagged_fields.len() as u64);
    }
    mix(acc, m.unknown_tagged_fields.len() as u64)
}

pub fn theirs_metadata(body: &Bytes, version: i16) -> u64 {
    let m = kp::MetadataResponse::decode(&mut body.clone(), version).expect("valid");
    let mut acc = mix_i(0, i64::from(m.throttle_time_ms));
    for b in &m.brokers {
        acc = mix_i(acc, i64::from(b.node_id.0));
        acc = mix_text(acc, &b.host);
        acc = mix_i(acc, i64::from(b.port));
        acc = mix_opt_text(acc, b.rack.as_deref());
    }
    acc = mix_opt_text(acc, m.cluster_id.as_deref());
    acc = mix_i(acc, i64::from(m.controller_id.0));
    for t in &m.topics {
        acc = mix_i(acc, i64::from(t.error_code));
        acc = mix_opt_text(acc, t.name.as_ref().map(|n| &*n.0));
        acc = mix_uuid(acc, t.topic_id.as_bytes());
        acc = mix(acc, u64::from(t.is_internal));
        for p in &t.partitions {
            acc = mix_i(acc, i64::from(p.error_code));
            acc = mix_i(acc, i64::from(p.partition_index));
            acc = mix_i(acc, i64::from(p.leader_id.0));
            acc = mix_i(acc, i64::from(p.leader_epoch));
            for r in &p.replica_nodes {
                acc = mix_i(acc, i64::from(r.0));
            }
            for r in &p.isr_nodes {
                acc = mix_i(acc, i64::from(r.0));
            }
            for r in &p.offline_replicas {
                acc = mix_i(acc, i64::from(r.0));
            }
            acc = mix(acc, p.unknown_tagged_fields.len() as u64);
        }
        acc = mix_i(acc, i64::from(t.topic_authorized_operations));
        acc = mix(acc, t.unknown_tagged_fields.len() as u64);
    }
    mix(acc, m.unknown_tagged_fields.len() as u64)
}

fn ours_fetch_value(m: &FetchResponse<'_>) -> u64 {
    let mut acc = mix_i(0, i64::from(m.throttle_time_ms));
    acc = mix_i(acc, i64::from(m.error_code));
    acc = mix_i(acc, i64::from(m.session_id));
    for t in m.responses.iter() {
        acc = mix_str(acc, t.topic);
        acc = mix_uuid(acc, &t.topic_id.0);
        for p in t.partitions.iter() {
            acc = mix_i(acc, i64::from(p.partition_index));
            acc = mix_i(acc, i64::from(p.error_code));
            acc = mix_i(acc, p.high_watermark);
            acc = mix_i(acc, p.last_stable_offset);
            acc = mix_i(acc, p.log_start_offset);
            acc = mix_i(acc, i64::from(p.diverging_epoch.epoch));
            acc = mix_i(acc, p.diverging_epoch.end_offset);
            acc = mix_i(acc, i64::from(p.current_leader.leader_id));
            acc = mix_i(acc, i64::from(p.current_leader.leader_epoch));
            acc = mix_i(acc, p.snapshot_id.end_offset);
            acc = mix_i(acc, i64::from(p.snapshot_id.epoch));
            match &p.aborted_transactions {
                Some(a) => {
                    for a in a.iter() {
                        acc = mix_i(acc, a.producer_id);
                        acc = mix_i(acc, a.first_offset);
                    }
                }
                None => acc = mix(acc, u64::MAX),
            }
            acc = mix_i(acc, i64::from(p.preferred_read_replica));
            acc = ours_batches(acc, p.records.as_ref());
            acc = mix(acc, p.unknown_tagged_fields.len() as u64);
        }
    }
    for e in m.node_endpoints.iter() {
        acc = mix_i(acc, i64::from(e.node_id));
        acc = mix_str(acc, e.host);
        acc = mix_i(acc, i64::from(e.port));
        acc = mix_opt_str(acc, e.rack);
    }
    mix(acc, m.unknown_tagged_fields.len() as u64)
}

pub fn ours_fetch(body: &[u8], version: i16) -> u64 {
    let m = FetchResponse::decode(&mut Reader::new(body), version).expect("valid");
    ours_fetch_value(&m)
}

pub fn theirs_fetch(body: &Bytes, version: i16) -> u64 {
    let m = kp::FetchResponse::decode(&mut body.clone(), version).expect("valid");
    let mut acc = mix_i(0, i64::from(m.throttle_time_ms));
    acc = mix_i(acc, i64::from(m.error_code));
    acc = mix_i(acc, i64::from(m.session_id));
    for t in &m.responses {
        acc = mix_text(acc, &t.topic.0);
        acc = mix_uuid(acc, t.topic_id.as_bytes());
        for p in &t.partitions {
            acc = mix_i(acc, i64::from(p.partition_index));
            acc = mix_i(acc, i64::from(p.error_code));
            acc = mix_i(acc, p.high_watermark);
            acc = mix_i(acc, p.last_stable_offset);
            acc = mix_i(acc, p.log_start_offset);
            acc = mix_i(acc, i64::from(p.diverging_epoch.epoch));
            acc = mix_i(acc, p.diverging_epoch.end_offset);
            acc = mix_i(acc, i64::from(p.current_leader.leader_id.0));
            acc = mix_i(acc, i64::from(p.current_leader.leader_epoch));
            acc = mix_i(acc, p.snapshot_id.end_offset);
            acc = mix_i(acc, i64::from(p.snapshot_id.epoch));
            match &p.aborted_transactions {
                Some(a) => {
                    for a in a {
                        acc = mix_i(acc, a.producer_id.0);
                        acc = mix_i(acc, a.first_offset);
                    }
                }
                None => acc = mix(acc, u64::MAX),
            }
            acc = mix_i(acc, i64::from(p.preferred_read_replica.0));
            acc = theirs_batches(acc, p.records.as_ref());
            acc = mix(acc, p.unknown_tagged_fields.len() as u64);
        }
    }
    for e in &m.node_endpoints {
        acc = mix_i(acc, i64::from(e.node_id.0));
        acc = mix_text(acc, &e.host);
        acc = mix_i(acc, i64::from(e.port));
        acc = mix_opt_text(acc, e.rack.as_deref());
    }
    mix(acc, m.unknown_tagged_fields.len() as u64)
}

pub fn ours_produce(body: &[u8], version: i16) -> u64 {
    let m = ProduceRequest::decode(&mut Reader::new(body), version).expect("valid");
    let mut acc = mix_opt_str(0, m.transactional_id);
    acc = mix_i(acc, i64::from(m.acks));
    acc = mix_i(acc, i64::from(m.timeout_ms));
    for t in m.topic_data.iter() {
        acc = mix_str(acc, t.name);
        acc = mix_uuid(acc, &t.topic_id.0);
        for p in t.partition_data.iter() {
            acc = mix_i(acc, i64::from(p.index));
            acc = ours_batches(acc, p.records.as_ref());
            acc = mix(acc, p.unknown_tagged_fields.len() as u64);
        }
        acc = mix(acc, t.unknown_tagged_fields.len() as u64);
    }
    mix(acc, m.unknown_tagged_fields.len() as u64)
}

pub fn theirs_produce(body: &Bytes, version: i16) -> u64 {
    let m = kp::ProduceRequest::decode(&mut body.clone(), version).expect("valid");
    let mut acc = mix_opt_text(0, m.transactional_id.as_ref().map(|t| &*t.0));
    acc = mix_i(acc, i64::from(m.acks));
    acc = mix_i(acc, i64::from(m.timeout_ms));
    for t in &m.topic_data {
        acc = mix_text(acc, &t.name.0);
        acc = mix_uuid(acc, t.topic_id.as_bytes());
        for p in &t.partition_data {
            acc = mix_i(acc, i64::from(p.index));
            acc = theirs_batches(acc, p.records.as_ref());
            acc = mix(acc, p.unknown_tagged_fields.len() as u64);
        }
        acc = mix(acc, t.unknown_tagged_fields.len() as u64);
    }
    mix(acc, m.unknown_tagged_fields.len() as u64)
}

pub fn ours_api_versions(body: &[u8], version: i16) -> u64 {
    let m = ApiVersionsResponse::decode(&mut Reader::new(body), version).expect("valid");
    let mut acc = mix_i(0, i64::from(m.error_code));
    for k in m.api_keys.iter() {
        acc = mix_i(acc, i64::from(k.api_key));
        acc = mix_i(acc, i64::from(k.min_version));
        acc = mix_i(acc, i64::from(k.max_version));
    }
    acc = mix_i(acc, i64::from(m.throttle_time_ms));
    for f in m.supported_features.iter() {
        acc = mix_str(acc, f.name);
        acc = mix_i(acc, i64::from(f.min_version));
        acc = mix_i(acc, i64::from(f.max_version));
    }
    acc = mix_i(acc, m.finalized_features_epoch);
    for f in m.finalized_features.iter() {
        acc = mix_str(acc, f.name);
        acc = mix_i(acc, i64::from(f.max_version_level));
        acc = mix_i(acc, i64::from(f.min_version_level));
    }
    acc = mix(acc, u64::from(m.zk_migration_ready));
    mix(acc, m.unknown_tagged_fields.len() as u64)
}

pub fn theirs_api_versions(body: &Bytes, version: i16) -> u64 {
    let m = kp::ApiVersionsResponse::decode(&mut body.clone(), version).expect("valid");
    let mut acc = mix_i(0, i64::from(m.error_code));
    for k in &m.api_keys {
        acc = mix_i(acc, i64::from(k.api_key));
        acc = mix_i(acc, i64::from(k.min_version));
        acc = mix_i(acc, i64::from(k.max_version));
    }
    acc = mix_i(acc, i64::from(m.throttle_time_ms));
    for f in &m.supported_features {
        acc = mix_text(acc, &f.name);
        acc = mix_i(acc, i64::from(f.min_version));
        acc = mix_i(acc, i64::from(f.max_version));
    }
    acc = mix_i(acc, m.finalized_features_epoch);
    for f in &m.finalized_features {
        acc = mix_text(acc, &f.name);
        acc = mix_i(acc, i64::from(f.max_version_level));
        acc = mix_i(acc, i64::from(f.min_version_level));
    }
    acc = mix(acc, u64::from(m.zk_migration_ready));
    mix(acc, m.unknown_tagged_fields.len() as u64)
}

pub fn ours_offset_commit(body: &[u8], version: i16) -> u64 {
    let m = OffsetCommitRequest::decode(&mut Reader::new(body), version).expect("valid");
    let mut acc = mix_str(0, m.group_id);
    acc = mix_i(acc, i64::from(m.generation_id_or_member_epoch));
    acc = mix_str(acc, m.member_id);
    acc = mix_opt_str(acc, m.group_instance_id);
    acc = mix_i(acc, m.retention_time_ms);
    for t in m.topics.iter() {
        acc = mix_str(acc, t.name);
        for p in t.partitions.iter() {
            acc = mix_i(acc, i64::from(p.partition_index));
            acc = mix_i(acc, p.committed_offset);
            acc = mix_i(acc, i64::from(p.committed_leader_epoch));
            acc = mix_opt_str(acc, p.committed_metadata);
            acc = mix(acc, p.unknown_tagged_fields.len() as u64);
        }
        acc = mix(acc, t.unknown_tagged_fields.len() as u64);
    }
    mix(acc, m.unknown_tagged_fields.len() as u64)
}

pub fn theirs_offset_commit(body: &Bytes, version: i16) -> u64 {
    let m = kp::OffsetCommitRequest::decode(&mut body.clone(), version).expect("valid");
    let mut acc = mix_text(0, &m.group_id.0);
    acc = mix_i(acc, i64::from(m.generation_id_or_member_epoch));
    acc = mix_text(acc, &m.member_id);
    acc = mix_opt_text(acc, m.group_instance_id.as_deref());
    acc = mix_i(acc, m.retention_time_ms);
    for t in &m.topics {
        acc = mix_text(acc, &t.name.0);
        for p in &t.partitions {
            acc = mix_i(acc, i64::from(p.partition_index));
            acc = mix_i(acc, p.committed_offset);
            acc = mix_i(acc, i64::from(p.committed_leader_epoch));
            acc = mix_opt_text(acc, p.committed_metadata.as_deref());
            acc = mix(acc, p.unknown_tagged_fields.len() as u64);
        }
        acc = mix(acc, t.unknown_tagged_fields.len() as u64);
    }
    mix(acc, m.unknown_tagged_fields.len() as u64)
}

pub fn ours_list_offsets(body: &[u8], version: i16) -> u64 {
    let m = ListOffsetsResponse::decode(&mut Reader::new(body), version).expect("valid");
    let mut acc = mix_i(0, i64::from(m.throttle_time_ms));
    for t in m.topics.iter() {
        acc = mix_str(acc, t.name);
        for p in t.partitions.iter() {
            acc = mix_i(acc, i64::from(p.partition_index));
            acc = mix_i(acc, i64::from(p.error_code));
            acc = mix_i(acc, p.timestamp);
            acc = mix_i(acc, p.offset);
            acc = mix_i(acc, i64::from(p.leader_epoch));
            acc = mix(acc, p.unknown_tagged_fields.len() as u64);
        }
        acc = mix(acc, t.unknown_tagged_fields.len() as u64);
    }
    mix(acc, m.unknown_tagged_fields.len() as u64)
}

pub fn theirs_list_offsets(body: &Bytes, version: i16) -> u64 {
    let m = kp::ListOffsetsResponse::decode(&mut body.clone(), version).expect("valid");
    let mut acc = mix_i(0, i64::from(m.throttle_time_ms));
    for t in &m.topics {
        acc = mix_text(acc, &t.name.0);
        for p in &t.partitions {
            acc = mix_i(acc, i64::from(p.partition_index));
            acc = mix_i(acc, i64::from(p.error_code));
            acc = mix_i(acc, p.timestamp);
            acc = mix_i(acc, p.offset);
            acc = mix_i(acc, i64::from(p.leader_epoch));
            acc = mix(acc, p.unknown_tagged_fields.len() as u64);
        }
        acc = mix(acc, t.unknown_tagged_fields.len() as u64);
    }
    mix(acc, m.unknown_tagged_fields.len() as u64)
}

// ---------------------------------------------------------------------------------------------
// Proxy path: a whole FetchResponse frame, decoded then encoded again at its version.
// ---------------------------------------------------------------------------------------------

/// Builds the size-prefixed response frame around a FetchResponse body.
pub fn fetch_frame(value: &FetchResponse<'_>) -> Vec<u8> {
    let header = ResponseHeader::default().with_correlation_id(0x0102_0304);
    let len = 4
        + header.encoded_len(1).expect("encodable")
        + value.encoded_len(FETCH_VERSION).expect("encodable");
    let mut out = vec![0u8; len];
    let n = frame::encode_response(&header, value, FETCH_VERSION, &mut out).expect("fits");
    assert_eq!(n, len);
    out
}

/// Decodes a FetchResponse frame and writes it again into `out` at the version it was read at.
#[inline]
pub fn ours_reencode(frame_bytes: &[u8], out: &mut [u8]) -> usize {
    let (header, body) =
        frame::decode_response(frame_bytes, ApiKey::FETCH, FETCH_VERSION).expect("valid");
    frame::encode_response(&header, &body, FETCH_VERSION, out).expect("fits")
}

/// Writes an already decoded FetchResponse frame again into `out`.
#[inline]
pub fn ours_reencode_decoded(
    header: &ResponseHeader<'_>,
    body: &Response<'_>,
    out: &mut [u8],
) -> usize {
    frame::encode_response(header, body, FETCH_VERSION, out).expect("fits")
}

/// The reference point for re-encoding: copying the frame's bytes.
#[inline]
pub fn plain_copy(frame_bytes: &[u8], out: &mut [u8]) -> usize {
    out[..frame_bytes.len()].copy_from_slice(frame_bytes);
    frame_bytes.len()
}

// ---------------------------------------------------------------------------------------------
// Records
// ---------------------------------------------------------------------------------------------

/// Reads every record of a batch (CRC checked), visiting each key, value and header.
pub fn ours_read_records(batch: &[u8]) -> usize {
    let batch = RecordBatch::parse(batch).expect("valid");
    let mut acc = 0usize;
    // `records` checks the CRC first.
    for r in batch.records().expect("crc and uncompressed") {
        let r = r.expect("valid");
        acc += r.key().map_or(0, <[u8]>::len) + r.value().map_or(0, <[u8]>::len);
        acc = acc.wrapping_add(r.offset() as usize ^ r.timestamp() as usize);
        for h in r.headers() {
            acc += h.key().len() + h.value().map_or(0, <[u8]>::len);
        }
    }
    acc
}

/// Writes the [`SMALL_RECORDS`] small records again with a `BatchBuilder` into `out`.
pub fn ours_build_records(records: &[NewRecord<'_>], out: &mut [u8]) -> usize {
    BatchBuilder::new()
        .with_producer(7, 0, 0)
        .write(records, out)
        .expect("fits")
}

// ---------------------------------------------------------------------------------------------
// Everything together
// ---------------------------------------------------------------------------------------------

/// All workloads, built once.
pub struct Workloads {
    pub metadata: Case<MetadataResponse<'static>, kp::MetadataResponse>,
    pub fetch: Case<FetchResponse<'static>, kp::FetchResponse>,
    pub produce: Case<ProduceRequest<'static>, kp::ProduceRequest>,
    pub api_versions: Case<ApiVersionsResponse<'static>, kp::ApiVersionsResponse>,
    /// A FetchResponse of 1000 partitions and no records.
    pub fetch_empty: Case<FetchResponse<'static>, kp::FetchResponse>,
    /// A ProduceRequest of 100 partitions with one small batch each.
    pub produce_many: Case<ProduceRequest<'static>, kp::ProduceRequest>,
    pub offset_commit: Case<OffsetCommitRequest<'static>, kp::OffsetCommitRequest>,
    pub list_offsets: Case<ListOffsetsResponse<'static>, kp::ListOffsetsResponse>,
    /// The FetchResponse as a whole response frame (size prefix, header v1, body).
    pub fetch_frame: Vec<u8>,
    pub crc_data: Vec<u8>,
    pub small_batch: Vec<u8>,
}

impl Workloads {
    pub fn new() -> Self {
        let w = Self {
            metadata: Case::new("metadata_v12", METADATA_VERSION, metadata_value()),
            fetch: Case::new("fetch_v16", FETCH_VERSION, fetch_value())
                .with_own_records(own_fetch_records),
            produce: Case::new("produce_v11", PRODUCE_VERSION, produce_value())
                .with_own_records(own_produce_records),
            api_versions: Case::new(
                "api_versions_v4",
                API_VERSIONS_VERSION,
                api_versions_value(),
            ),
            fetch_empty: Case::new("fetch_empty_v16", FETCH_VERSION, fetch_empty_value()),
            produce_many: Case::new("produce_100_v11", PRODUCE_VERSION, produce_many_value())
                .with_own_records(own_produce_records),
            offset_commit: Case::new(
                "offset_commit_v9",
                OFFSET_COMMIT_VERSION,
                offset_commit_value(),
            ),
            list_offsets: Case::new(
                "list_offsets_v10",
                LIST_OFFSETS_VERSION,
                list_offsets_value(),
            ),
            fetch_frame: fetch_frame(&fetch_value()),
            crc_data: crc_data(),
            small_batch: small_records_batch(),
        };
        w.check();
        w
    }

    /// Both sides visit the same values.
    fn check(&self) {
        let m = &self.metadata;
        assert_eq!(
            ours_metadata(&m.body, m.version),
            theirs_metadata(&m.shared, m.version)
        );
        let f = &self.fetch;
        assert_eq!(
            ours_fetch(&f.body, f.version),
            theirs_fetch(&f.shared, f.version)
        );
        let p = &self.produce;
        assert_eq!(
            ours_produce(&p.body, p.version),
            theirs_produce(&p.shared, p.version)
        );
        let a = &self.api_versions;
        assert_eq!(
            ours_api_versions(&a.body, a.version),
            theirs_api_versions(&a.shared, a.version)
        );
        let e = &self.fetch_empty;
        assert_eq!(
            ours_fetch(&e.body, e.version),
            theirs_fetch(&e.shared, e.version)
        );
        let pm = &self.produce_many;
        assert_eq!(
            ours_produce(&pm.body, pm.version),
            theirs_produce(&pm.shared, pm.version)
        );
        let o = &self.offset_commit;
        assert_eq!(
            ours_offset_commit(&o.body, o.version),
            theirs_offset_commit(&o.shared, o.version)
        );
        let l = &self.list_offsets;
        assert_eq!(
            ours_list_offsets(&l.body, l.version),
            theirs_list_offsets(&l.shared, l.version)
        );
        let mut out = vec![0u8; self.fetch_frame.len()];
        assert_eq!(ours_reencode(&self.fetch_frame, &mut out), out.len());
        assert_eq!(out, self.fetch_frame, "re-encoding is byte for byte");
        let (_, body) =
            frame::decode_response(&self.fetch_frame, ApiKey::FETCH, FETCH_VERSION).expect("valid");
        let Response::Fetch(body) = body else {
            panic!("a fetch response")
        };
        assert_eq!(ours_fetch_value(&body), ours_fetch(&f.body, f.version));
    }
}

impl Default for Workloads {
    fn default() -> Self {
        Self::new()
    }
}

/// The records of the small-record batch, as an encoder is given them.
pub fn small_records<'a>(keys: &'a [Vec<u8>], values: &'a [Vec<u8>]) -> Vec<NewRecord<'a>> {
    const HEADER: [NewHeader<'static>; 1] = [NewHeader {
        key: b"trace",
        value: Some(b"abc"),
    }];
    keys.iter()
        .zip(values)
        .enumerate()
        .map(|(i, (k, v))| {
            NewRecord::new(v)
                .with_key(k)
                .with_headers(&HEADER)
                .with_timestamp(TS + i as i64)
        })
        .collect()
}

/// Keys and values of the small records.
pub fn small_content() -> (Vec<Vec<u8>>, Vec<Vec<u8>>) {
    let keys = (0..SMALL_RECORDS)
        .map(|i| format!("key-{i:03}").into_bytes())
        .collect();
    let values = (0..SMALL_RECORDS)
        .map(|i| format!("{{\"n\":{i:05},\"ok\":true}}    ").into_bytes())
        .collect();
    (keys, values)
}
