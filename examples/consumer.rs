//! A consumer of one partition, whole in one file: negotiate versions with the broker, find the
//! topic's id, fetch by topic id, walk the records with their CRC checked, and fetch again from
//! the offset after the last batch.
//!
//! ```text
//! cargo run -p kwire-examples --example consumer -- 127.0.0.1:19092 events [COUNT]
//! ```
//!
//! It stops after COUNT records, or runs until stopped. The README's quick start is this file.

use std::error::Error;
use std::io::{Read, Write};
use std::net::TcpStream;

use kwire::api::{VersionTable, api_versions_request_version, decode_api_versions};
use kwire::codec::Array;
use kwire::messages::fetch_request::{FetchPartition, FetchTopic};
use kwire::messages::metadata_request::MetadataRequestTopic;
use kwire::messages::{
    ApiVersionsRequest, FetchRequest, FetchResponse, MetadataRequest, MetadataResponse,
    RequestHeader,
};
use kwire::records::Batch;
use kwire::{ApiKey, Body, ErrorCode, Status, frame};

type Result<T> = std::result::Result<T, Box<dyn Error>>;

/// A connection to one broker: requests go out one at a time, each answer is read whole.
struct Connection {
    stream: TcpStream,
    received: Vec<u8>,
    correlation_id: i32,
}

impl Connection {
    /// Sends `body` at `version` and returns the frame that answers it.
    fn call<B: Body>(&mut self, body: &B, version: i16) -> Result<Vec<u8>> {
        self.correlation_id += 1;
        let header = RequestHeader::new(body.body_api_key(), version, self.correlation_id)
            .with_client_id(Some("kwire-consumer"));
        let mut request = vec![0; frame::request_len(&header, body)?];
        frame::encode_request(&header, body, &mut request)?;
        self.stream.write_all(&request)?;
        loop {
            if let Status::Complete(response) = frame::split(&self.received, 64 << 20)? {
                let response = response.to_vec();
                self.received.drain(..response.len());
                if frame::response_correlation_id(&response)? != self.correlation_id {
                    return Err("a response to another request".into());
                }
                return Ok(response);
            }
            let mut chunk = [0; 64 * 1024];
            match self.stream.read(&mut chunk)? {
                0 => return Err("the broker closed the connection".into()),
                n => self.received.extend_from_slice(&chunk[..n]),
            }
        }
    }

    /// The versions both sides speak. A broker that does not know the ApiVersions version
    /// sent answers in the v0 layout with the versions it knows: ask again at one of those.
    fn negotiate(&mut self) -> Result<VersionTable> {
        let mut version = api_versions_request_version();
        loop {
            let response = self.call(&ApiVersionsRequest::default(), version)?;
            let reply = decode_api_versions(&response, version)?;
            match VersionTable::try_from_response(&reply.body) {
                Ok(table) => return Ok(table),
                Err(e) => match e.retry_version(version) {
                    Some(retry) if retry != version => version = retry,
                    _ => return Err(e.into()),
                },
            }
        }
    }
}

fn main() -> Result<()> {
    let mut args = std::env::args().skip(1);
    let broker = args.next().unwrap_or_else(|| "127.0.0.1:19092".into());
    let topic = args.next().unwrap_or_else(|| "events".into());
    let count: Option<usize> = args.next().map(|n| n.parse()).transpose()?;

    let stream = TcpStream::connect(&broker)?;
    let mut broker = Connection {
        stream,
        received: Vec::new(),
        correlation_id: 0,
    };
    let versions = broker.negotiate()?;

    // The topic's id: Fetch names topics by id from v13 on.
    let version = versions.negotiate(ApiKey::METADATA)?;
    let topics = [MetadataRequestTopic::default().with_name(Some(&topic))];
    let request = MetadataRequest::default().with_topics(Some(Array::from(&topics[..])));
    let response = broker.call(&request, version)?;
    let (_, metadata) = frame::decode_response_as::<MetadataResponse<'_>>(&response, version)?;
    let found = metadata.topics.iter().find(|t| t.name == Some(&topic[..]));
    let topic_id = match found {
        Some(t) if t.error_code == ErrorCode::NONE => t.topic_id,
        Some(t) => return Err(format!("{topic}: {}", ErrorCode(t.error_code)).into()),
        None => return Err(format!("{topic}: not in the Metadata response").into()),
    };

    let version = versions.negotiate(ApiKey::FETCH)?;
    let mut offset = 0;
    let mut seen = 0;
    while count.is_none_or(|c| seen < c) {
        let partitions = [FetchPartition::default()
            .with_partition(0)
            .with_fetch_offset(offset)
            .with_partition_max_bytes(1 << 20)];
        let topic_data = FetchTopic::default().with_partitions(&partitions);
        let topic_data = if version >= 13 {
            topic_data.with_topic_id(topic_id)
        } else {
            topic_data.with_topic(&topic)
        };
        let topics = [topic_data];
        let request = FetchRequest::default()
            .with_max_wait_ms(500)
            .with_min_bytes(1)
            .with_max_bytes(4 << 20)
            .with_topics(&topics);
        let response = broker.call(&request, version)?;
        let (_, fetched) = frame::decode_response_as::<FetchResponse<'_>>(&response, version)?;
        for partition in fetched.responses.iter().flat_map(|t| t.partitions.iter()) {
            if partition.error_code != ErrorCode::NONE {
                return Err(format!("{topic}-0: {}", ErrorCode(partition.error_code)).into());
            }
            for batch in partition.records.unwrap_or_default().batches() {
                // A damaged batch is an error here; legacy message sets are skipped.
                let Batch::V2(batch) = batch? else { continue };
                // `records()` checks the batch's CRC first; a compressed batch needs
                // `decompress_into` and the compression features.
                for record in batch.records()? {
                    let record = record?;
                    if record.offset() < offset {
                        continue; // a batch starts before the offset asked for
                    }
                    let text =
                        |b: Option<&[u8]>| String::from_utf8_lossy(b.unwrap_or(b"")).into_owned();
                    println!(
                        "{topic}-0@{}: {} = {}",
                        record.offset(),
                        text(record.key()),
                        text(record.value())
                    );
                    seen += 1;
                }
                offset = batch.next_offset();
            }
            // A partial last batch (the fetch was cut at its size limit) is fetched again whole.
        }
    }
    Ok(())
}
