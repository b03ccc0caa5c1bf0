//! A Kafka client built on kwire: blocking TCP, one broker connection at a time, each a
//! `kwire::io::Connection` that assigns correlation ids, negotiates versions and matches
//! responses to requests.
//!
//! ```text
//! cargo run -p kwire-examples --example client -- 127.0.0.1:9092 \
//!     [--topic NAME] [--partitions N] [--records N] [--compression none|gzip|snappy|lz4|zstd] \
//!     [--tls] [--ca-file PEM] [--cert PEM --key PEM] \
//!     [--sasl-mechanism PLAIN|SCRAM-SHA-256|SCRAM-SHA-512 --sasl-user NAME]
//! ```
//!
//! With `--tls`, every connection is TLS, the broker's certificate checked against the system's
//! roots, or only against the CAs of `--ca-file` (which implies `--tls`); `--cert` and `--key`
//! show a client certificate (mutual TLS).
//! With `--sasl-mechanism`, every connection authenticates as `--sasl-user` (SASL_PLAINTEXT, or
//! SASL_SSL with TLS),
//! with the password from the environment variable `KWIRE_SASL_PASSWORD` or the file named by
//! `--sasl-password-file`: never from the command line, where other users see it.
//!
//! It negotiates versions from the broker's ApiVersions answer (retrying at a version the broker
//! names when it does not know ours), creates a topic, finds each partition's leader, produces
//! one batch of records with keys, values and headers to every partition, fetches them back and
//! checks every record: offset, key, value, headers and timestamp. Each step prints what it sent
//! and what came back. The exit code is 0 only if everything came back as sent.

use std::collections::BTreeMap;
use std::process::ExitCode;

use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use kwire::codec::{Str, Uuid};
use kwire::frame::{self, Body};
use kwire::io::tls;
use kwire::messages::create_topics_request::CreatableTopic;
use kwire::messages::fetch_request::{FetchPartition, FetchTopic};
use kwire::messages::metadata_request::MetadataRequestTopic;
use kwire::messages::produce_request::{PartitionProduceData, TopicProduceData};
use kwire::messages::{CreateTopicsRequest, FetchRequest, MetadataRequest, ProduceRequest};
use kwire::records::compression::BuiltinCodecs;
use kwire::records::{BatchBuilder, Compression, HEADER_LEN, NewHeader, NewRecord, Records};
use kwire::session::Client;
use kwire::{ApiKey, ErrorCode, Response, io};
use kwire_examples::security::{self, Security, SecurityArgs};

type Error = Box<dyn std::error::Error>;

const CLIENT_ID: &str = "kwire-example";

struct Options {
    broker: String,
    topic: String,
    partitions: i32,
    records: usize,
    compression: Compression,
    /// TLS and SASL for every connection.
    security: Security,
}

fn main() -> ExitCode {
    let options = match parse_args() {
        Ok(o) => o,
        Err(e) => {
            eprintln!("client: {e}");
            eprintln!(
                "usage: client HOST:PORT [--topic NAME] [--partitions N] [--records N] \
                 [--compression none|gzip|snappy|lz4|zstd] \
                 {}  (the password from KWIRE_SASL_PASSWORD otherwise)",
                security::USAGE
            );
            return ExitCode::from(2);
        }
    };
    // The configuration lives as long as the program: the connections borrow its credentials.
    let options: &'static Options = Box::leak(Box::new(options));
    match run(options) {
        Ok(()) => {
            println!("ok: every record came back as it was sent");
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("client: FAILED: {e}");
            ExitCode::FAILURE
        }
    }
}

fn parse_args() -> Result<Options, Error> {
    let mut args = std::env::args().skip(1);
    let mut options = Options {
        broker: String::new(),
        topic: format!("kwire-client-{}", now_ms()),
        partitions: 3,
        records: 5,
        compression: Compression::NONE,
        security: Security::default(),
    };
    let mut security = SecurityArgs::default();
    while let Some(arg) = args.next() {
        let mut value = || args.next().ok_or(format!("{arg} needs a value"));
        if security.take(&arg, &mut value)? {
            continue;
        }
        match arg.as_str() {
            "--topic" => options.topic = value()?,
            "--partitions" => options.partitions = value()?.parse()?,
            "--records" => options.records = value()?.parse()?,
            "--compression" => {
                let name = value()?;
                options.compression = (0..5)
                    .map(Compression)
                    .find(|c| c.name() == Some(name.as_str()))
                    .ok_or(format!("unknown compression {name}"))?;
                if !BuiltinCodecs::is_enabled(options.compression) {
                    return Err(format!("{name} needs the crate feature of that name").into());
                }
            }
            a if !a.starts_with('-') && options.broker.is_empty() => options.broker = a.to_owned(),
            a => return Err(format!("unexpected argument {a}").into()),
        }
    }
    if options.broker.is_empty() {
        return Err("no broker address".into());
    }
    if options.partitions < 1 || options.records < 1 {
        return Err("--partitions and --records must be at least 1".into());
    }
    options.security = security.finish()?;
    Ok(options)
}

fn now_ms() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX))
}

/// One broker connection: kwire's blocking connection, which negotiates versions, assigns
/// correlation ids and matches each response to its request, and the broker's address.
struct Connection {
    addr: String,
    conn: io::Connection<'static, tls::Stream, Vec<u8>, 1>,
}

impl Connection {
    /// Connects and negotiates versions: the session sends its ApiVersions request at the
    /// highest version this crate knows, and again at the version the broker names if it does
    /// not know that one.
    fn open(addr: &str, o: &'static Options) -> Result<Self, Error> {
        let session = Client::negotiating(Some(CLIENT_ID))
            .with_software(CLIENT_ID, env!("CARGO_PKG_VERSION"))
            .with_request_timeout(30_000);
        let conn = o.security.connect(addr, session)?;
        if o.security.tls.is_some() {
            println!("[{addr}] TLS: the broker's certificate verified");
        }
        println!("[{addr}] ApiVersions: versions negotiated");
        if let Some(sasl) = &o.security.sasl {
            println!(
                "[{addr}] SASL: authenticated as {} with {}",
                sasl.user(),
                sasl.mechanism()
            );
        }
        Ok(Self {
            addr: addr.to_owned(),
            conn,
        })
    }

    /// The session: the versions negotiated.
    fn session(&self) -> &Client<'static, 1> {
        self.conn.client()
    }

    /// Sends a request at the negotiated version and returns the response frame and version.
    fn call<B: Body>(&mut self, body: &B) -> Result<(Vec<u8>, i16), Error> {
        let answer = self.conn.call(body)?;
        Ok((answer.frame().to_vec(), answer.request().version))
    }
}

/// Where a topic's partitions live.
struct TopicLayout {
    id: Uuid,
    /// Partition -> leader broker address.
    leaders: BTreeMap<i32, String>,
}

fn run(o: &'static Options) -> Result<(), Error> {
    let mut bootstrap = Connection::open(&o.broker, o)?;
    for key in [
        ApiKey::METADATA,
        ApiKey::CREATE_TOPICS,
        ApiKey::PRODUCE,
        ApiKey::FETCH,
    ] {
        let common = bootstrap.session().common(key)?;
        let advertised = bootstrap.session().advertised(key);
        println!(
            "[{}] {key}: broker v{}-v{}, sending v{}",
            bootstrap.addr,
            advertised.map_or(-1, |r| r.min),
            advertised.map_or(-1, |r| r.max),
            common.max
        );
    }

    create_topic(&mut bootstrap, o)?;
    let layout = wait_for_leaders(&mut bootstrap, o)?;

    // The records: keys, values and headers that differ per partition and record.
    let ts = now_ms();
    let texts: Vec<(String, String, String)> = (0..o.partitions)
        .flat_map(|p| {
            (0..o.records).map(move |i| {
                (
                    format!("key-{p}-{i}"),
                    format!("value {i} of partition {p}, written by kwire"),
                    format!("{i}"),
                )
            })
        })
        .collect();
    let headers: Vec<[NewHeader<'_>; 2]> = texts
        .iter()
        .map(|(_, _, i)| {
            [
                NewHeader::new(b"source", b"kwire"),
                NewHeader::new(b"index", i.as_bytes()),
            ]
        })
        .collect();
    let records: Vec<NewRecord<'_>> = texts
        .iter()
        .zip(&headers)
        .enumerate()
        .map(|(n, ((k, v, _), h))| NewRecord {
            key: Some(k.as_bytes()),
            value: Some(v.as_bytes()),
            headers: h,
            timestamp: ts + i64::try_from(n).unwrap_or(0),
        })
        .collect();
    let per_partition: Vec<&[NewRecord<'_>]> = records.chunks(o.records).collect();

    let mut connections: BTreeMap<String, Connection> = BTreeMap::new();
    connections.insert(o.broker.clone(), bootstrap);
    let mut base_offsets = BTreeMap::new();
    for (p, leader) in &layout.leaders {
        let batch_records = per_partition[usize::try_from(*p)?];
        let conn = connection(&mut connections, leader, o)?;
        let base = produce(conn, o, &layout, *p, batch_records)?;
        base_offsets.insert(*p, base);
    }
    for (p, leader) in &layout.leaders {
        let batch_records = per_partition[usize::try_from(*p)?];
        let conn = connection(&mut connections, leader, o)?;
        fetch_and_check(conn, o, &layout, *p, base_offsets[p], batch_records)?;
    }
    Ok(())
}

fn connection<'c>(
    connections: &'c mut BTreeMap<String, Connection>,
    addr: &str,
    o: &'static Options,
) -> Result<&'c mut Connection, Error> {
    if !connections.contains_key(addr) {
        connections.insert(addr.to_owned(), Connection::open(addr, o)?);
    }
    Ok(connections.get_mut(addr).ok_or("no connection")?)
}

fn create_topic(c: &mut Connection, o: &Options) -> Result<(), Error> {
    let topics = [CreatableTopic::default()
        .with_name(&o.topic)
        .with_num_partitions(o.partitions)
        .with_replication_factor(1)];
    let request = CreateTopicsRequest::default()
        .with_topics(&topics)
        .with_timeout_ms(10_000);
    let (frame, version) = c.call(&request)?;
    let (_, Response::CreateTopics(r)) =
        frame::decode_response(&frame, ApiKey::CREATE_TOPICS, version)?
    else {
        return Err("not a CreateTopics response".into());
    };
    for t in &r.topics {
        match ErrorCode(t.error_code) {
            ErrorCode::NONE => println!(
                "[{}] CreateTopics v{version}: created {} with {} partitions",
                c.addr, t.name, o.partitions
            ),
            ErrorCode::TOPIC_ALREADY_EXISTS => {
                println!(
                    "[{}] CreateTopics v{version}: {} exists already",
                    c.addr, t.name
                );
            }
            e => {
                return Err(format!(
                    "CreateTopics {}: {e} {}",
                    t.name,
                    t.error_message.unwrap_or(Str::EMPTY)
                )
                .into());
            }
        }
    }
    Ok(())
}

/// Asks for the topic's metadata until every partition has a leader.
fn wait_for_leaders(c: &mut Connection, o: &Options) -> Result<TopicLayout, Error> {
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        let topics = [MetadataRequestTopic::default().with_name(Some(&o.topic))];
        let request = MetadataRequest::default().with_topics(&topics);
        let (frame, version) = c.call(&request)?;
        let (_, Response::Metadata(m)) = frame::decode_response(&frame, ApiKey::METADATA, version)?
        else {
            return Err("not a Metadata response".into());
        };
        // The addresses to connect to: a host that is not UTF-8 is no host name.
        let brokers: BTreeMap<i32, String> = m
            .brokers
            .iter()
            .map(|b| match b.host.to_str() {
                Ok(host) => Ok((b.node_id, format!("{host}:{}", b.port))),
                Err(e) => Err(format!("broker {} has the host {}: {e}", b.node_id, b.host)),
            })
            .collect::<Result<_, _>>()?;
        let mut layout = TopicLayout {
            id: Uuid::ZERO,
            leaders: BTreeMap::new(),
        };
        let mut retry = false;
        for t in &m.topics {
            layout.id = t.topic_id;
            match ErrorCode(t.error_code) {
                ErrorCode::NONE => {}
                e if e.is_retriable() => retry = true,
                e => return Err(format!("Metadata {}: {e}", o.topic).into()),
            }
            for p in &t.partitions {
                match brokers.get(&p.leader_id) {
                    Some(addr) if p.error_code == ErrorCode::NONE => {
                        layout.leaders.insert(p.partition_index, addr.clone());
                    }
                    _ => retry = true,
                }
            }
        }
        let complete = usize::try_from(o.partitions).ok() == Some(layout.leaders.len());
        if !retry && complete {
            println!(
                "[{}] Metadata v{version}: {} has {} partitions, leaders {:?}",
                c.addr,
                o.topic,
                layout.leaders.len(),
                layout.leaders.values().collect::<Vec<_>>()
            );
            return Ok(layout);
        }
        if Instant::now() > deadline {
            return Err(format!("{}: no leader for every partition after 20 s", o.topic).into());
        }
        std::thread::sleep(Duration::from_millis(200));
    }
}

/// Produces one batch to partition `p` (acks=all) and returns the base offset the broker
/// assigned.
fn produce(
    c: &mut Connection,
    o: &Options,
    layout: &TopicLayout,
    p: i32,
    records: &[NewRecord<'_>],
) -> Result<i64, Error> {
    let builder = BatchBuilder::new();
    let raw_len = builder.records_len(records)?;
    let mut scratch = vec![0u8; raw_len];
    // A compressed batch is at most a little larger than its raw records.
    let mut batch = vec![0u8; HEADER_LEN + raw_len + raw_len / 2 + 1024];
    let n = builder.write_compressed(
        records,
        o.compression,
        &mut BuiltinCodecs::new(),
        &mut scratch,
        &mut batch,
    )?;
    let batch = &batch[..n];
    let partitions = [PartitionProduceData::default()
        .with_index(p)
        .with_records(Some(Records::new(batch)))];
    // By name, and by id: version 13 names topics by id, and the encode writes the one it carries.
    let topics = [TopicProduceData::default()
        .with_name(&o.topic)
        .with_topic_id(layout.id)
        .with_partition_data(&partitions)];
    let request = ProduceRequest::default()
        .with_acks(-1)
        .with_timeout_ms(10_000)
        .with_topic_data(&topics);
    let (frame, version) = c.call(&request)?;
    let (_, Response::Produce(r)) = frame::decode_response(&frame, ApiKey::PRODUCE, version)?
    else {
        return Err("not a Produce response".into());
    };
    let part = r
        .responses
        .iter()
        .flat_map(|t| t.partition_responses.iter())
        .find(|r| r.index == p)
        .ok_or("the Produce response lacks the partition")?;
    if part.error_code != ErrorCode::NONE {
        return Err(format!(
            "Produce {}-{p}: {} {}",
            o.topic,
            ErrorCode(part.error_code),
            part.error_message.unwrap_or(Str::EMPTY)
        )
        .into());
    }
    println!(
        "[{}] Produce v{version}: {} records ({} bytes, {}) to {}-{p}: base offset {}",
        c.addr,
        records.len(),
        batch.len(),
        o.compression.name().unwrap_or("?"),
        o.topic,
        part.base_offset
    );
    Ok(part.base_offset)
}

/// Fetches partition `p` from `base` and checks the records against what was sent.
fn fetch_and_check(
    c: &mut Connection,
    o: &Options,
    layout: &TopicLayout,
    p: i32,
    base: i64,
    sent: &[NewRecord<'_>],
) -> Result<(), Error> {
    let partitions = [FetchPartition::default()
        .with_partition(p)
        .with_fetch_offset(base)
        .with_partition_max_bytes(1024 * 1024)];
    let topics = [FetchTopic::default()
        .with_topic(&o.topic)
        .with_topic_id(layout.id)
        .with_partitions(&partitions)];
    let request = FetchRequest::default()
        .with_max_wait_ms(5_000)
        .with_min_bytes(1)
        .with_max_bytes(16 * 1024 * 1024)
        .with_topics(&topics);
    let (frame, version) = c.call(&request)?;
    let (_, Response::Fetch(r)) = frame::decode_response(&frame, ApiKey::FETCH, version)? else {
        return Err("not a Fetch response".into());
    };
    if r.error_code != ErrorCode::NONE {
        return Err(format!("Fetch: {}", ErrorCode(r.error_code)).into());
    }
    let data = r
        .responses
        .iter()
        .flat_map(|t| t.partitions.iter())
        .find(|d| d.partition_index == p)
        .ok_or("the Fetch response lacks the partition")?;
    if data.error_code != ErrorCode::NONE {
        let e = ErrorCode(data.error_code);
        return Err(format!("Fetch {}-{p}: {e}", o.topic).into());
    }
    let mut got = 0usize;
    let mut scratch = vec![0u8; 1024 * 1024];
    let records = data.records.unwrap_or_default();
    for batch in records.batches() {
        let batch = batch?;
        let Some(batch) = batch.as_v2() else {
            return Err("a legacy message set in the response".into());
        };
        // CRC checked before anything is decompressed.
        for record in batch.decompress_into(&mut BuiltinCodecs::new(), &mut scratch)? {
            let record = record?;
            if record.offset() < base {
                continue;
            }
            let i = usize::try_from(record.offset() - base)?;
            let Some(want) = sent.get(i) else {
                return Err(format!("offset {} was not produced here", record.offset()).into());
            };
            let headers: Vec<(&[u8], Option<&[u8]>)> = record
                .headers()
                .iter()
                .map(|h| (h.key(), h.value()))
                .collect();
            let want_headers: Vec<(&[u8], Option<&[u8]>)> =
                want.headers.iter().map(|h| (h.key, h.value)).collect();
            if record.key() != want.key
                || record.value() != want.value
                || headers != want_headers
                || record.timestamp() != want.timestamp
            {
                return Err(format!(
                    "record at offset {} differs from what was sent",
                    record.offset()
                )
                .into());
            }
            got += 1;
        }
    }
    println!(
        "[{}] Fetch v{version}: {}-{p} from offset {base}: {got} records back, high watermark {}, \
         every key, value, header and timestamp as sent",
        c.addr, o.topic, data.high_watermark
    );
    if got != sent.len() {
        return Err(format!("{got} of {} records came back", sent.len()).into());
    }
    Ok(())
}
