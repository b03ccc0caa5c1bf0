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

use kwire::codec::Array;
use kwire::messages::fetch_request::{FetchPartition, FetchTopic};
use kwire::messages::metadata_request::MetadataRequestTopic;
use kwire::messages::{FetchRequest, FetchResponse, MetadataRequest, MetadataResponse};
use kwire::records::Batch;
use kwire::session::{Answer, Client, Event, FrameBuffer};
use kwire::{ApiKey, Body, ErrorCode};

type Result<T> = std::result::Result<T, Box<dyn Error>>;

/// A connection to one broker, with kwire's session: it assigns correlation ids, negotiates
/// versions and matches each response to its request.
struct Connection {
    stream: TcpStream,
    client: Client<'static, 1>,
    rx: FrameBuffer<Vec<u8>>,
    tx: Vec<u8>,
}

impl Connection {
    /// Connects and negotiates versions. A broker that does not know the ApiVersions version
    /// sent answers in the v0 layout with the versions it knows: the session asks again.
    fn open(broker: &str) -> Result<Self> {
        let mut c = Connection {
            stream: TcpStream::connect(broker)?,
            client: Client::negotiating(Some("kwire-consumer")),
            rx: FrameBuffer::new(vec![0; 64 << 20]),
            tx: vec![0; 4096],
        };
        loop {
            while let Some(n) = c.client.poll_transmit(&mut c.tx)? {
                c.stream.write_all(&c.tx[..n])?;
            }
            if let Event::Ready = c.next()? {
                return Ok(c);
            }
        }
    }

    /// The next thing the session hands back, read from the broker as it comes.
    fn next(&mut self) -> Result<Event<'_>> {
        while self.rx.missing()? > 0 {
            match self.stream.read(self.rx.spare())? {
                0 => return Err("the broker closed the connection".into()),
                n => self.rx.filled(n),
            }
        }
        Ok(self.client.receive(&mut self.rx)?.ok_or("no frame")?)
    }

    /// Sends `body` at the version both sides speak and returns the answer.
    fn call<B: Body>(&mut self, body: &B) -> Result<Answer<'_>> {
        let n = self.client.send(body, &mut self.tx)?.len;
        self.stream.write_all(&self.tx[..n])?;
        match self.next()? {
            Event::Response(answer) => Ok(answer),
            _ => Err("no answer".into()),
        }
    }
}

fn main() -> Result<()> {
    let mut args = std::env::args().skip(1);
    let broker = args.next().unwrap_or_else(|| "127.0.0.1:19092".into());
    let topic = args.next().unwrap_or_else(|| "events".into());
    let count: Option<usize> = args.next().map(|n| n.parse()).transpose()?;
    let mut broker = Connection::open(&broker)?;

    // The topic's id: Fetch names topics by id from v13 on.
    let topics = [MetadataRequestTopic::default().with_name(Some(&topic))];
    let request = MetadataRequest::default().with_topics(Some(Array::from(&topics[..])));
    let metadata: MetadataResponse<'_> = broker.call(&request)?.decode_as()?;
    let found = metadata.topics.iter().find(|t| t.name == Some(&topic[..]));
    let topic_id = match found {
        Some(t) if t.error_code == ErrorCode::NONE => t.topic_id,
        Some(t) => return Err(format!("{topic}: {}", ErrorCode(t.error_code)).into()),
        None => return Err(format!("{topic}: not in the Metadata response").into()),
    };

    let version = broker.client.version(ApiKey::FETCH)?;
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
        let fetched: FetchResponse<'_> = broker.call(&request)?.decode_as()?;
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
