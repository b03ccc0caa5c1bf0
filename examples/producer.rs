//! A producer: batches of records to one partition, with up to 8 Produce requests in flight on
//! one connection, each answer matched to its request, which is tagged with its number of
//! records.
//!
//! ```text
//! cargo run -p kwire-examples --example producer -- 127.0.0.1:19092 events [COUNT]
//! ```

use kwire::codec::Str;
use kwire::messages::metadata_request::MetadataRequestTopic;
use kwire::messages::produce_request::{PartitionProduceData, TopicProduceData};
use kwire::messages::{MetadataRequest, MetadataResponse, ProduceRequest, ProduceResponse};
use kwire::records::{BatchBuilder, NewBatch, NewRecord, Records};
use kwire::{ErrorCode, io, session::Client};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let broker = args.next().unwrap_or_else(|| "127.0.0.1:19092".into());
    let topic = args.next().unwrap_or_else(|| "events".into());
    let count: usize = args.next().map_or(Ok(100), |n| n.parse())?;
    let client = Client::negotiating(Some("kwire-producer")).with_request_timeout(30_000);
    let mut broker: io::Connection<'_, _> = io::connect(&broker, client)?;

    // Metadata creates the topic, and gives its id: Produce names topics by id from v13 on.
    let topics = [MetadataRequestTopic::default().with_name(Some(&topic))];
    let request = MetadataRequest::default()
        .with_topics(&topics)
        .with_allow_auto_topic_creation(true);
    let metadata: MetadataResponse<'_> = broker.call(&request)?.decode_as()?;
    let topic_id = match metadata
        .topics
        .iter()
        .find(|t| t.name == Some(Str::new(&topic)))
    {
        Some(t) if t.error_code == ErrorCode::NONE => t.topic_id,
        _ => return Err(format!("{topic}: not found").into()),
    };

    // Batches of 10 records to partition 0, sent while fewer than 8 wait for their answer. Each
    // batch is written in place, where its records field goes in the request's frame.
    let values: Vec<String> = (0..count).map(|i| format!("record {i}")).collect();
    let (mut sent, mut acked) = (0, 0);
    while acked < count {
        while sent < count && broker.client().in_flight() < 8 {
            let in_batch = &values[sent..count.min(sent + 10)];
            let records = in_batch.iter().map(|v| NewRecord {
                key: None,
                value: Some(v.as_bytes()),
                headers: &[],
                timestamp: 0,
            });
            let batch = NewBatch::new(BatchBuilder::new(), records);
            let partitions =
                [PartitionProduceData::default().with_records(Some(Records::in_place(&batch)))];
            // By name and by id: the encode writes the one the version carries (the id from v13).
            let data = [TopicProduceData::default()
                .with_name(&topic)
                .with_topic_id(topic_id)
                .with_partition_data(&partitions)];
            let request = ProduceRequest::default()
                .with_acks(-1)
                .with_topic_data(&data);
            // The request's tag is its number of records, which comes back with its answer.
            let tag = u64::try_from(in_batch.len())?;
            broker.send_tagged(&request.with_timeout_ms(5_000), tag)?;
            sent += in_batch.len();
        }
        let answer = broker.receive()?;
        let produced: ProduceResponse<'_> = answer.decode_as()?;
        for p in produced
            .responses
            .iter()
            .flat_map(|t| t.partition_responses.iter())
        {
            if p.error_code != ErrorCode::NONE {
                return Err(format!("{topic}-0: {}", ErrorCode(p.error_code)).into());
            }
            println!("{topic}-0@{}: {} records", p.base_offset, answer.tag());
        }
        acked += usize::try_from(answer.tag())?;
    }
    Ok(())
}
