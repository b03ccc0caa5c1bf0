//! A producer on kwire's session layer: batches of records to one partition, with up to 8
//! Produce requests in flight on one connection, each answer matched to its request.
//!
//! ```text
//! cargo run -p kwire-examples --example producer -- 127.0.0.1:19092 events [COUNT]
//! ```

use std::error::Error;
use std::io::{Read, Write};
use std::net::TcpStream;

use kwire::codec::Array;
use kwire::messages::metadata_request::MetadataRequestTopic;
use kwire::messages::produce_request::{PartitionProduceData, TopicProduceData};
use kwire::messages::{MetadataRequest, MetadataResponse, ProduceRequest, ProduceResponse};
use kwire::records::{BatchBuilder, NewRecord, Records};
use kwire::session::{Client, Event, FrameBuffer};
use kwire::{ApiKey, ErrorCode};

type Result<T> = std::result::Result<T, Box<dyn Error>>;

/// The next thing the session hands back, read from the broker as it comes.
fn next<'r>(
    client: &mut Client<'_, 8>,
    rx: &'r mut FrameBuffer<Vec<u8>>,
    stream: &mut TcpStream,
) -> Result<Event<'r>> {
    while rx.missing()? > 0 {
        match stream.read(rx.spare())? {
            0 => return Err(client.finish(rx).err().map_or("closed".into(), Into::into)),
            n => rx.filled(n),
        }
    }
    Ok(client.receive(rx)?.ok_or("no frame")?)
}

fn main() -> Result<()> {
    let mut args = std::env::args().skip(1);
    let broker = args.next().unwrap_or_else(|| "127.0.0.1:19092".into());
    let topic = args.next().unwrap_or_else(|| "events".into());
    let count: usize = args.next().map_or(Ok(100), |n| n.parse())?;

    let mut stream = TcpStream::connect(&broker)?;
    let mut client = Client::negotiating(Some("kwire-producer"));
    let (mut rx, mut tx) = (FrameBuffer::new(vec![0; 1 << 20]), vec![0; 1 << 16]);

    // The session's ApiVersions request, and again at the version a broker names that does
    // not know the one sent.
    loop {
        while let Some(n) = client.poll_transmit(&mut tx)? {
            stream.write_all(&tx[..n])?;
        }
        if let Event::Ready = next(&mut client, &mut rx, &mut stream)? {
            break;
        }
    }

    // Metadata creates the topic, and gives its id: Produce names topics by id from v13 on.
    let topics = [MetadataRequestTopic::default().with_name(Some(&topic))];
    let request = MetadataRequest::default()
        .with_topics(Some(Array::from(&topics[..])))
        .with_allow_auto_topic_creation(true);
    let n = client.send(&request, &mut tx)?.len;
    stream.write_all(&tx[..n])?;
    let Event::Response(answer) = next(&mut client, &mut rx, &mut stream)? else {
        return Err("no answer to Metadata".into());
    };
    let metadata: MetadataResponse<'_> = answer.decode_as()?;
    let topic_id = match metadata.topics.iter().find(|t| t.name == Some(&topic[..])) {
        Some(t) if t.error_code == ErrorCode::NONE => t.topic_id,
        _ => return Err(format!("{topic}: not found").into()),
    };

    // Batches of 10 records to partition 0, sent while fewer than 8 wait for their answer.
    let values: Vec<String> = (0..count).map(|i| format!("record {i}")).collect();
    let mut batch = vec![0; 1 << 15];
    let (mut sent, mut acked) = (0, 0);
    while acked < count {
        while sent < count && client.in_flight() < 8 {
            let records = values[sent..count.min(sent + 10)]
                .iter()
                .map(|v| NewRecord {
                    key: None,
                    value: Some(v.as_bytes()),
                    headers: &[],
                    timestamp: 0,
                });
            let len = BatchBuilder::new().write(records, &mut batch)?;
            let partitions = [PartitionProduceData::default()
                .with_index(0)
                .with_records(Some(Records::new(&batch[..len])))];
            let data = TopicProduceData::default().with_partition_data(&partitions);
            let data = if client.version(ApiKey::PRODUCE)? >= 13 {
                data.with_topic_id(topic_id)
            } else {
                data.with_name(&topic)
            };
            let request = ProduceRequest::default()
                .with_acks(-1)
                .with_timeout_ms(5_000)
                .with_topic_data(std::slice::from_ref(&data));
            let n = client.send(&request, &mut tx)?.len;
            stream.write_all(&tx[..n])?;
            sent = count.min(sent + 10);
        }
        let Event::Response(answer) = next(&mut client, &mut rx, &mut stream)? else {
            return Err("no answer to Produce".into());
        };
        let produced: ProduceResponse<'_> = answer.decode_as()?;
        for p in produced
            .responses
            .iter()
            .flat_map(|t| t.partition_responses.iter())
        {
            if p.error_code != ErrorCode::NONE {
                return Err(format!("{topic}-0: {}", ErrorCode(p.error_code)).into());
            }
            let n = (count - acked).min(10);
            println!("{topic}-0@{}: {n} records", p.base_offset);
            acked += n;
        }
    }
    Ok(())
}
