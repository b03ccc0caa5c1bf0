//! The request frames the producer sent, read by an implementation that is not kwire: the
//! `kafka-protocol` crate decodes each frame's header and body, and every field the producer
//! set is compared with what it meant to send, the records of the Produce batch included.

use bytes::{Buf, Bytes};
use kafka_protocol::messages::{
    ApiVersionsRequest, FetchRequest, MetadataRequest, ProduceRequest, RequestHeader,
};
use kafka_protocol::protocol::{Decodable, HeaderVersion};
use kafka_protocol::records::{Compression, RecordBatchDecoder};

use crate::producer::{
    API_VERSIONS_VERSION, CLIENT_ID, PARTITION, RECORDS, SASL_EXCHANGES, Summary, TOPIC, readings,
};

/// Fails with the message when the condition does not hold.
macro_rules! ensure {
    ($cond:expr, $($what:tt)+) => {
        if !$cond {
            return Err(format!($($what)+));
        }
    };
}

/// Checks the four request frames of a run that ended with `summary`.
///
/// # Errors
///
/// The first field that `kafka-protocol` read differently from what the producer set.
pub fn check_requests(frames: &[Vec<u8>], summary: &Summary) -> Result<(), String> {
    // ApiVersions, the login's exchanges (which this does not read), Metadata, Produce, Fetch.
    let s = SASL_EXCHANGES;
    let login = i32::try_from(s).unwrap_or_default();
    ensure!(
        frames.len() == 4 + s,
        "{} request frames, not {}",
        frames.len(),
        4 + s
    );
    let [metadata_v, produce_v, fetch_v] = summary.versions;
    let topic_id = summary.topic_id.to_u128();

    let hello: ApiVersionsRequest = read(&frames[0], 18, API_VERSIONS_VERSION, 1)?;
    ensure!(
        hello.client_software_name.to_string() == CLIENT_ID
            && hello.client_software_version.to_string() == "0.1.0",
        "ApiVersions: client software {:?} {:?}",
        hello.client_software_name,
        hello.client_software_version
    );

    let metadata: MetadataRequest = read(&frames[1 + s], 3, metadata_v, 2 + login)?;
    let topics = metadata.topics.as_deref().unwrap_or_default();
    ensure!(
        topics.len() == 1
            && topics[0].name.as_deref().map(|n| &**n) == Some(TOPIC)
            && metadata.allow_auto_topic_creation
            && !metadata.include_topic_authorized_operations,
        "Metadata: {metadata:?}"
    );

    let produce: ProduceRequest = read(&frames[2 + s], 0, produce_v, 3 + login)?;
    ensure!(
        produce.acks == -1 && produce.timeout_ms == 5_000 && produce.transactional_id.is_none(),
        "Produce: acks {}, timeout {}",
        produce.acks,
        produce.timeout_ms
    );
    ensure!(
        produce.topic_data.len() == 1,
        "Produce: {} topics",
        produce.topic_data.len()
    );
    let topic = &produce.topic_data[0];
    if produce_v >= 13 {
        ensure!(
            topic.topic_id.as_u128() == topic_id,
            "Produce: topic id {}",
            topic.topic_id
        );
    } else {
        ensure!(
            topic.name.to_string() == TOPIC,
            "Produce: topic {:?}",
            topic.name
        );
    }
    ensure!(
        topic.partition_data.len() == 1 && topic.partition_data[0].index == PARTITION,
        "Produce: partitions {:?}",
        topic.partition_data
    );
    let mut batch = topic.partition_data[0].records.clone().unwrap_or_default();
    ensure!(
        batch.len() == summary.batch_len,
        "Produce: a {}-byte batch",
        batch.len()
    );
    let set = RecordBatchDecoder::decode(&mut batch).map_err(|e| format!("Produce batch: {e}"))?;
    ensure!(
        set.version == 2 && set.compression == Compression::None && !batch.has_remaining(),
        "Produce batch: version {}, {:?}",
        set.version,
        set.compression
    );
    let values = readings();
    ensure!(
        set.records.len() == RECORDS,
        "Produce batch: {} records",
        set.records.len()
    );
    for (i, (record, value)) in set.records.iter().zip(&values).enumerate() {
        let headers: Vec<(&str, Option<&[u8]>)> = record
            .headers
            .iter()
            .map(|(k, v)| (&**k, v.as_deref()))
            .collect();
        ensure!(
            record.offset == i as i64
                && record.timestamp == 1_700_000_000_000 + i as i64
                && record.key.as_deref() == Some(b"board-7".as_slice())
                && record.value.as_deref() == Some(value.as_bytes())
                && headers
                    == [
                        ("unit", Some(&b"celsius"[..])),
                        ("device", Some(&b"board-7"[..]))
                    ],
            "Produce batch: record {i} is {record:?}"
        );
    }

    let fetch: FetchRequest = read(&frames[3 + s], 1, fetch_v, 4 + login)?;
    ensure!(
        fetch.max_wait_ms == 500 && fetch.min_bytes == 1 && fetch.max_bytes == 1024,
        "Fetch: wait {}, min {}, max {}",
        fetch.max_wait_ms,
        fetch.min_bytes,
        fetch.max_bytes
    );
    ensure!(
        fetch.topics.len() == 1,
        "Fetch: {} topics",
        fetch.topics.len()
    );
    let topic = &fetch.topics[0];
    if fetch_v >= 13 {
        ensure!(
            topic.topic_id.as_u128() == topic_id,
            "Fetch: topic id {}",
            topic.topic_id
        );
    } else {
        ensure!(
            topic.topic.to_string() == TOPIC,
            "Fetch: topic {:?}",
            topic.topic
        );
    }
    let partitions = &topic.partitions;
    ensure!(
        partitions.len() == 1
            && partitions[0].partition == PARTITION
            && partitions[0].fetch_offset == summary.base_offset
            && partitions[0].partition_max_bytes == 1024,
        "Fetch: partitions {partitions:?}"
    );
    Ok(())
}

/// Decodes a request frame with `kafka-protocol`: the size prefix, the header (its API key,
/// version, correlation id and client id checked) and a body of type `T` that spans the rest.
fn read<T: Decodable + HeaderVersion>(
    frame: &[u8],
    api_key: i16,
    version: i16,
    correlation_id: i32,
) -> Result<T, String> {
    let mut buf = Bytes::copy_from_slice(frame);
    let what = format!("API key {api_key} v{version}");
    ensure!(buf.len() >= 4, "{what}: a {}-byte frame", buf.len());
    let size = buf.get_i32();
    ensure!(
        usize::try_from(size).ok() == Some(buf.len()),
        "{what}: size {size}"
    );
    let header = RequestHeader::decode(&mut buf, T::header_version(version))
        .map_err(|e| format!("{what}: header: {e}"))?;
    ensure!(
        header.request_api_key == api_key
            && header.request_api_version == version
            && header.correlation_id == correlation_id
            && header.client_id.as_deref() == Some(CLIENT_ID),
        "{what}: header {header:?}"
    );
    let body = T::decode(&mut buf, version).map_err(|e| format!("{what}: body: {e}"))?;
    ensure!(
        !buf.has_remaining(),
        "{what}: {} bytes after the body",
        buf.remaining()
    );
    Ok(body)
}
