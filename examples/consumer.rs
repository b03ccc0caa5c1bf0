//! A consumer of one partition: negotiate versions, find the topic's id, fetch by id, walk the
//! records with their CRC checked, and fetch again from the offset after the last batch.
//!
//! ```text
//! cargo run -p kwire-examples --example consumer -- 127.0.0.1:19092 events [COUNT]
//! ```

use kwire::codec::Str;
use kwire::messages::fetch_request::{FetchPartition, FetchTopic};
use kwire::messages::metadata_request::MetadataRequestTopic;
use kwire::messages::{FetchRequest, FetchResponse, MetadataRequest, MetadataResponse};
use kwire::{ErrorCode, io, records::Batch, session::Client};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let broker = args.next().unwrap_or_else(|| "127.0.0.1:19092".into());
    let topic = args.next().unwrap_or_else(|| "events".into());
    let count: Option<usize> = args.next().map(|n| n.parse()).transpose()?;
    let client = Client::negotiating(Some("kwire-consumer")).with_request_timeout(30_000);
    let mut broker: io::Connection<'_, _> = io::connect(&broker, client)?;

    // The topic's id: Fetch names topics by id from v13 on, by name before.
    let topics = [MetadataRequestTopic::default().with_name(Some(&topic))];
    let request = MetadataRequest::default().with_topics(&topics);
    let metadata: MetadataResponse<'_> = broker.call(&request)?.decode_as()?;
    let t = metadata
        .topics
        .iter()
        .find(|t| t.name == Some(Str::new(&topic)));
    let topic_id = match t.ok_or("the topic is not in the Metadata response")? {
        t if t.error_code == ErrorCode::NONE => t.topic_id,
        t => return Err(format!("{topic}: {}", ErrorCode(t.error_code)).into()),
    };

    let (mut offset, mut seen) = (0, 0);
    while count.is_none_or(|c| seen < c) {
        let partitions = [FetchPartition::default()
            .with_fetch_offset(offset)
            .with_partition_max_bytes(1 << 20)];
        // Both the name and the id: the encode writes the one the version carries.
        let topics = [FetchTopic::default()
            .with_topic(&topic)
            .with_topic_id(topic_id)
            .with_partitions(&partitions)];
        let request = FetchRequest::default()
            .with_max_wait_ms(500)
            .with_max_bytes(4 << 20)
            .with_topics(&topics);
        let fetched: FetchResponse<'_> = broker.call(&request)?.decode_as()?;
        for partition in fetched.responses.iter().flat_map(|t| t.partitions.iter()) {
            if partition.error_code != ErrorCode::NONE {
                return Err(format!("{topic}-0: {}", ErrorCode(partition.error_code)).into());
            }
            for batch in partition.records.unwrap_or_default().batches() {
                // Legacy message sets are skipped; `records()` checks the batch's CRC.
                let Batch::V2(batch) = batch? else { continue };
                for record in batch.records()? {
                    let record = record?;
                    if record.offset() >= offset {
                        let key = String::from_utf8_lossy(record.key().unwrap_or_default());
                        let value = String::from_utf8_lossy(record.value().unwrap_or_default());
                        println!("{topic}-0@{}: {key} = {value}", record.offset());
                        seen += 1;
                    }
                }
                offset = batch.next_offset();
            }
        }
    }
    Ok(())
}
