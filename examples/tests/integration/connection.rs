//! `kwire::io::Connection` against the mini broker, and against peers that misbehave: one that
//! closes inside a frame, one that stalls past the request timeout, one that answers a request
//! it was not sent, one that announces a 2 GB frame. Each gets an error, never a panic or a hang.

use std::io::Write;
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::time::{Duration, Instant};

use kwire::io::{self, Connection, Error};
use kwire::messages::api_versions_response::ApiVersion;
use kwire::messages::fetch_request::{FetchPartition, FetchTopic};
use kwire::messages::metadata_request::MetadataRequestTopic;
use kwire::messages::produce_request::{PartitionProduceData, TopicProduceData};
use kwire::messages::{
    ApiVersionsResponse, FetchRequest, FetchResponse, HeartbeatRequest, MetadataRequest,
    MetadataResponse, ProduceRequest, ProduceResponse,
};
use kwire::records::{Batch, BatchBuilder, NewRecord, Records};
use kwire::session::{Client, FrameBuffer, SessionError, server};
use kwire::{ApiKey, ErrorCode};
use kwire_examples::mini_broker::broker::Broker;

/// Creates `topic` (one partition) and returns its id.
fn create(broker: &mut Connection<'_, TcpStream>, topic: &str) -> kwire::codec::Uuid {
    let topics = [MetadataRequestTopic::default().with_name(Some(topic))];
    let request = MetadataRequest::default()
        .with_topics(&topics)
        .with_allow_auto_topic_creation(true);
    let metadata: MetadataResponse<'_> = broker.call(&request).unwrap().decode_as().unwrap();
    let t = metadata.topics.iter().next().expect("the topic");
    assert_eq!(t.error_code, ErrorCode::NONE);
    t.topic_id
}

/// Calls `f` with a Produce request of `values` to partition 0 of the topic.
fn with_produce<R>(
    topic_id: kwire::codec::Uuid,
    values: &[Vec<u8>],
    f: impl FnOnce(&ProduceRequest<'_>) -> R,
) -> R {
    let records = values.iter().map(|v| NewRecord {
        key: None,
        value: Some(v),
        headers: &[],
        timestamp: 0,
    });
    let mut batch = vec![0; 1 << 16];
    let len = BatchBuilder::new().write(records, &mut batch).unwrap();
    let partitions = [PartitionProduceData::default()
        .with_index(0)
        .with_records(Some(Records::new(&batch[..len])))];
    let data = [TopicProduceData::default()
        .with_topic_id(topic_id)
        .with_partition_data(&partitions)];
    f(&ProduceRequest::default()
        .with_acks(-1)
        .with_timeout_ms(5_000)
        .with_topic_data(&data))
}

/// The values of the records of partition 0 of the topic, from offset 0.
fn fetch_values(
    broker: &mut Connection<'_, TcpStream>,
    topic_id: kwire::codec::Uuid,
) -> Vec<Vec<u8>> {
    let partitions = [FetchPartition::default()
        .with_partition(0)
        .with_partition_max_bytes(1 << 20)];
    let topics = [FetchTopic::default()
        .with_topic_id(topic_id)
        .with_partitions(&partitions)];
    let request = FetchRequest::default()
        .with_max_bytes(4 << 20)
        .with_topics(&topics);
    let fetched: FetchResponse<'_> = broker.call(&request).unwrap().decode_as().unwrap();
    let mut values = Vec::new();
    for p in fetched.responses.iter().flat_map(|t| t.partitions.iter()) {
        assert_eq!(p.error_code, ErrorCode::NONE);
        for batch in p.records.unwrap_or_default().batches() {
            let Batch::V2(batch) = batch.unwrap() else {
                panic!("a v2 batch")
            };
            for record in batch.records().unwrap() {
                values.push(record.unwrap().value().unwrap_or_default().to_vec());
            }
        }
    }
    values
}

#[test]
fn calls_and_pipelined_sends_against_the_mini_broker() {
    let addr = Broker::spawn(1);
    let client = Client::negotiating(Some("io-test")).with_request_timeout(10_000);
    let mut broker = io::connect(addr, client).unwrap();
    assert!(broker.client().is_ready());
    let topic_id = create(&mut broker, "io");

    // A batch larger than the send buffer the connection starts with: the buffer grows.
    let big: Vec<Vec<u8>> = (0..4).map(|i| vec![b'a' + i; 3000]).collect();
    assert!(broker.version(ApiKey::PRODUCE).unwrap() >= 13);
    let produced = with_produce(topic_id, &big, |request| {
        let answer = broker.call(request).unwrap();
        answer
            .decode_as::<ProduceResponse<'_>>()
            .unwrap()
            .responses
            .iter()
            .count()
    });
    assert_eq!(produced, 1);

    // Three requests in flight, their answers read in order.
    let mut sent = Vec::new();
    for i in 0..3u8 {
        let id = with_produce(topic_id, &[vec![i]], |r| broker.send(r).unwrap());
        sent.push(id.correlation_id);
    }
    assert_eq!(broker.client().in_flight(), 3);
    // A call waits for nothing sent before it: refused, and nothing sent.
    assert!(matches!(
        broker.call(&MetadataRequest::default()),
        Err(Error::Busy { in_flight: 3 })
    ));
    for id in sent {
        let answer = broker.receive().unwrap();
        assert_eq!(answer.request().correlation_id, id);
        let _: ProduceResponse<'_> = answer.decode_as().unwrap();
    }
    assert!(matches!(broker.receive(), Err(Error::Idle)));

    let mut expected = big;
    expected.extend((0..3u8).map(|i| vec![i]));
    assert_eq!(fetch_values(&mut broker, topic_id), expected);

    // acks 0: no answer comes, so a call is refused before anything is sent: the next
    // request gets the next correlation id.
    let id = |broker: &mut Connection<'_, TcpStream>| {
        let answer = broker.call(&MetadataRequest::default()).unwrap();
        answer.request().correlation_id
    };
    let before = id(&mut broker);
    let acks0 = ProduceRequest::default().with_acks(0);
    assert!(matches!(
        broker.call(&acks0),
        Err(Error::NoResponse {
            api_key: ApiKey::PRODUCE
        })
    ));
    assert_eq!(id(&mut broker), before + 1);
}

#[test]
fn the_callers_buffers_and_a_request_they_cannot_hold() {
    let addr = Broker::spawn(1);
    let (mut rx, mut tx) = ([0u8; 1 << 16], [0u8; 512]);
    let stream = TcpStream::connect(addr).unwrap();
    stream
        .set_read_timeout(Some(Duration::from_secs(10)))
        .unwrap();
    let client: Client<'_, 2> = Client::negotiating(None).with_request_timeout(10_000);
    let mut broker = Connection::open_with(stream, client, &mut rx[..], &mut tx[..]).unwrap();
    let metadata: MetadataResponse<'_> = broker
        .call(&MetadataRequest::default())
        .unwrap()
        .decode_as()
        .unwrap();
    assert_eq!(metadata.brokers.iter().count(), 1);

    // A request larger than the caller's send buffer: refused with the size it needs.
    let names: Vec<String> = (0..40)
        .map(|i| format!("topic-with-a-long-name-{i}"))
        .collect();
    let topics: Vec<_> = names
        .iter()
        .map(|n| MetadataRequestTopic::default().with_name(Some(n)))
        .collect();
    let request = MetadataRequest::default().with_topics(&topics);
    match broker.call(&request) {
        Err(Error::Session(SessionError::Encode(kwire::EncodeError::BufferTooSmall {
            required,
            available: 512,
        }))) => assert!(required > 512),
        other => panic!("{other:?}"),
    }
    // The connection goes on.
    assert!(broker.call(&MetadataRequest::default()).is_ok());
}

/// A peer on a port of loopback that answers ApiVersions (Heartbeat v0-4 advertised) and does
/// what `then` does with the connection and each other request.
fn peer(
    mut then: impl FnMut(&mut TcpStream, &server::Incoming<'_>) + Send + 'static,
) -> SocketAddr {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap();
    std::thread::spawn(move || {
        let (mut stream, _) = listener.accept().unwrap();
        let mut rx = FrameBuffer::new(vec![0u8; 1 << 16]);
        let mut out = [0u8; 512];
        loop {
            while rx.missing().unwrap() > 0 {
                match std::io::Read::read(&mut stream, rx.spare()) {
                    Ok(0) | Err(_) => return,
                    Ok(n) => rx.filled(n),
                }
            }
            let request = server::next_request(&mut rx).unwrap().unwrap();
            if request.info.api_key == ApiKey::API_VERSIONS {
                let keys = [
                    ApiVersion::default().with_api_key(12).with_max_version(4),
                    ApiVersion::default().with_api_key(18).with_max_version(4),
                ];
                let body = ApiVersionsResponse::default().with_api_keys(&keys);
                let n = server::respond_api_versions(&request.info, &body, &mut out).unwrap();
                stream.write_all(&out[..n]).unwrap();
            } else {
                then(&mut stream, &request);
            }
        }
    });
    addr
}

/// Connects to `addr` and sends a Heartbeat, which the peer answers as it does.
fn heartbeat(addr: SocketAddr, timeout_ms: u32) -> Result<(), Error> {
    let client: Client<'_, 4> = Client::negotiating(None).with_request_timeout(timeout_ms);
    let mut c = io::connect(addr, client)?;
    c.call(&HeartbeatRequest::default()).map(|_| ())
}

#[test]
fn a_peer_that_closes_inside_a_frame() {
    let addr = peer(|stream, _| {
        stream.write_all(&[0, 0, 0, 20, 0, 0]).unwrap();
        stream.shutdown(std::net::Shutdown::Both).unwrap();
    });
    match heartbeat(addr, 10_000) {
        Err(Error::Session(SessionError::ClosedMidFrame {
            received: 6,
            missing: 18,
        })) => {}
        other => panic!("{other:?}"),
    }
}

#[test]
fn a_peer_that_stalls_past_the_timeout() {
    let addr = peer(|_, _| std::thread::sleep(Duration::from_secs(30)));
    let started = Instant::now();
    match heartbeat(addr, 1_500) {
        Err(e @ Error::TimedOut { request }) => {
            assert_eq!(request.api_key, ApiKey::HEARTBEAT);
            assert!(e.to_string().contains("got no answer in time"), "{e}");
        }
        other => panic!("{other:?}"),
    }
    let waited = started.elapsed();
    // Reported within an eighth of the timeout (the socket's read timeout) of the deadline.
    assert!(
        waited >= Duration::from_millis(1_500) && waited < Duration::from_secs(5),
        "{waited:?}"
    );
}

#[test]
fn answers_that_came_in_time_are_read_after_the_deadline() {
    let addr = peer(|stream, request| {
        let mut out = [0u8; 64];
        let body = kwire::messages::HeartbeatResponse::default();
        let n = server::respond(&request.info, &body, &mut out).unwrap();
        stream.write_all(&out[..n]).unwrap();
    });
    let client: Client<'_, 4> = Client::negotiating(None).with_request_timeout(200);
    let mut c = io::connect(addr, client).unwrap();
    for _ in 0..2 {
        c.send(&HeartbeatRequest::default()).unwrap();
    }
    std::thread::sleep(Duration::from_millis(600));
    for _ in 0..2 {
        let answer = c.receive().unwrap();
        assert_eq!(answer.request().api_key, ApiKey::HEARTBEAT);
    }
    assert!(matches!(c.receive(), Err(Error::Idle)));
}

#[test]
fn a_peer_that_answers_a_request_it_was_not_sent() {
    let addr = peer(|stream, request| {
        let mut info = request.info;
        info.correlation_id += 7;
        let mut out = [0u8; 64];
        let body = kwire::messages::HeartbeatResponse::default();
        let n = server::respond(&info, &body, &mut out).unwrap();
        stream.write_all(&out[..n]).unwrap();
    });
    match heartbeat(addr, 10_000) {
        Err(Error::Session(SessionError::NoRequest { correlation_id })) => {
            assert_eq!(correlation_id, 8);
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn a_peer_that_announces_a_2_gb_frame() {
    let addr = peer(|stream, _| {
        stream.write_all(&0x7fff_fff0_i32.to_be_bytes()).unwrap();
        std::thread::sleep(Duration::from_secs(30));
    });
    let started = Instant::now();
    match heartbeat(addr, 10_000) {
        Err(Error::Session(SessionError::Framing(e))) => {
            assert!(e.to_string().contains("2147483632"), "{e}");
        }
        other => panic!("{other:?}"),
    }
    assert!(started.elapsed() < Duration::from_secs(5));
}

#[test]
fn a_peer_that_closes_before_negotiating() {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap();
    std::thread::spawn(move || {
        // The request read, then the connection closed unanswered.
        let (mut stream, _) = listener.accept().unwrap();
        let _ = std::io::Read::read(&mut stream, &mut [0u8; 256]);
    });
    let client: Client<'_, 1> = Client::negotiating(None).with_request_timeout(10_000);
    match io::connect(addr, client) {
        Err(Error::Session(SessionError::Unanswered { requests: 1, .. })) => {}
        other => panic!("{:?}", other.map(|_| ())),
    }
}

#[test]
fn tags_come_back_with_the_answers_and_with_a_request_that_timed_out() {
    let addr = Broker::spawn(1);
    let client = Client::negotiating(Some("io-tags")).with_request_timeout(10_000);
    let mut broker = io::connect(addr, client).unwrap();
    let topic_id = create(&mut broker, "tags");

    // Three batches in flight, each tagged with its number of records.
    let batches: Vec<Vec<Vec<u8>>> = (1..=3u8)
        .map(|n| (0..n).map(|i| vec![b'a' + i; 10]).collect())
        .collect();
    let mut sent = Vec::new();
    for batch in &batches {
        let records = u64::try_from(batch.len()).unwrap();
        let s = with_produce(topic_id, batch, |r| broker.send_tagged(r, records).unwrap());
        sent.push((s.correlation_id, records));
    }
    let version = broker.version(ApiKey::METADATA).unwrap();
    let meta = broker
        .send_at_tagged(&MetadataRequest::default(), version, u64::MAX)
        .unwrap();
    sent.push((meta.correlation_id, u64::MAX));
    let mut acknowledged = 0;
    for (id, tag) in sent {
        let answer = broker.receive().unwrap();
        assert_eq!((answer.request().correlation_id, answer.tag()), (id, tag));
        if answer.request().api_key == ApiKey::PRODUCE {
            let _: ProduceResponse<'_> = answer.decode_as().unwrap();
            acknowledged += answer.tag();
        }
    }
    assert_eq!(acknowledged, 6);
    assert_eq!(fetch_values(&mut broker, topic_id).len(), 6);
    // `call` tags nothing.
    assert_eq!(broker.call(&MetadataRequest::default()).unwrap().tag(), 0);

    // A peer that never answers: the request that timed out names its tag.
    let addr = peer(|_, _| std::thread::sleep(Duration::from_secs(30)));
    let client: Client<'_, 4> = Client::negotiating(None).with_request_timeout(300);
    let mut c = io::connect(addr, client).unwrap();
    c.send_tagged(&HeartbeatRequest::default(), 41).unwrap();
    c.send(&HeartbeatRequest::default()).unwrap();
    match c.receive() {
        Err(Error::TimedOut { request }) => {
            assert_eq!((request.api_key, request.tag), (ApiKey::HEARTBEAT, 41));
        }
        other => panic!("{:?}", other.map(|a| a.request())),
    }
    let left: Vec<u64> = c.client().pending().map(|p| p.tag).collect();
    assert_eq!(left, [41, 0]);
}

#[test]
fn a_default_fetch_fits_the_callers_receive_buffer() {
    let addr = Broker::spawn(1);
    let client = Client::negotiating(Some("io-fit")).with_request_timeout(10_000);
    let mut broker = io::connect(addr, client).unwrap();
    assert_eq!(broker.client().max_response(), Some(io::DEFAULT_MAX_FRAME));
    let topic_id = create(&mut broker, "fit");
    // Four batches of 24 KB: more than a 64 KiB buffer holds.
    for i in 0..4u8 {
        with_produce(topic_id, &[vec![b'a' + i; 24_000]], |r| {
            broker.call(r).unwrap();
        });
    }

    let (mut rx, mut tx) = (vec![0u8; 64 << 10], [0u8; 1024]);
    let stream = TcpStream::connect(addr).unwrap();
    let client: Client<'_, 2> = Client::negotiating(None);
    let mut small = Connection::open_with(stream, client, &mut rx[..], &mut tx[..]).unwrap();
    assert_eq!(small.client().max_response(), Some((64 << 10) - 4));
    // Fetch at its default `MaxBytes`, 2 GiB: lowered to what the buffer holds, the answer
    // fits, and holds the batches that fit in it.
    let partitions = [FetchPartition::default()
        .with_partition(0)
        .with_partition_max_bytes(1 << 20)];
    let topics = [FetchTopic::default()
        .with_topic_id(topic_id)
        .with_partitions(&partitions)];
    let request = FetchRequest::default().with_topics(&topics);
    let answer = small.call(&request).unwrap();
    assert!(answer.frame().len() <= 64 << 10);
    let fetched: FetchResponse<'_> = answer.decode_as().unwrap();
    let p = fetched
        .responses
        .iter()
        .next()
        .unwrap()
        .partitions
        .iter()
        .next()
        .unwrap();
    assert_eq!(p.error_code, ErrorCode::NONE);
    assert_eq!(p.records.unwrap_or_default().batches().count(), 2);

    // A client told less keeps its own limit.
    let (mut rx, mut tx) = (vec![0u8; 64 << 10], [0u8; 1024]);
    let stream = TcpStream::connect(addr).unwrap();
    let client: Client<'_, 2> = Client::negotiating(None).with_max_response(30_000);
    let small = Connection::open_with(stream, client, &mut rx[..], &mut tx[..]).unwrap();
    assert_eq!(small.client().max_response(), Some(30_000));
}
