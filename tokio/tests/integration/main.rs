//! kwire-tokio's tests, one binary: the async connection against the mini broker and against
//! peers written with the frame codec that misbehave (close inside a frame, stall past the
//! timeout, answer a request they were not sent, announce a 2 GB frame).

use std::net::SocketAddr;
use std::time::{Duration, Instant};

use futures::{SinkExt, StreamExt};
use kwire::io::Error;
use kwire::messages::api_versions_response::ApiVersion;
use kwire::messages::fetch_request::{FetchPartition, FetchTopic};
use kwire::messages::metadata_request::MetadataRequestTopic;
use kwire::messages::produce_request::{PartitionProduceData, TopicProduceData};
use kwire::messages::{
    ApiVersionsResponse, FetchRequest, FetchResponse, HeartbeatRequest, HeartbeatResponse,
    MetadataRequest, MetadataResponse, ProduceRequest, ProduceResponse, ResponseHeader,
};
use kwire::records::{Batch, BatchBuilder, NewRecord, Records};
use kwire::session::{Client, SessionError};
use kwire::{ApiKey, ErrorCode, frame};
use kwire_examples::mini_broker::broker::Broker;
use kwire_tokio::{CodecError, Connection, FrameCodec};
use tokio::io::AsyncWriteExt;
use tokio::net::{TcpListener, TcpStream};
use tokio_util::codec::Framed;

async fn connect(
    addr: SocketAddr,
    timeout_ms: u32,
) -> Result<Connection<'static, TcpStream>, Error> {
    let stream = TcpStream::connect(addr).await?;
    let client = Client::negotiating(Some("tokio-test")).with_request_timeout(timeout_ms);
    Connection::open(stream, client).await
}

#[tokio::test]
async fn produce_pipelined_and_fetch_back_from_the_mini_broker() {
    let addr = Broker::spawn(1);
    let mut broker = connect(addr, 10_000).await.unwrap();
    assert!(broker.client().is_ready());

    let topics = [MetadataRequestTopic::default().with_name(Some("async"))];
    let request = MetadataRequest::default()
        .with_topics(&topics)
        .with_allow_auto_topic_creation(true);
    let metadata: MetadataResponse<'_> = broker.call(&request).await.unwrap().decode_as().unwrap();
    let topic = metadata.topics.iter().next().unwrap();
    assert_eq!(topic.error_code, ErrorCode::NONE);
    let topic_id = topic.topic_id;
    assert!(broker.version(ApiKey::PRODUCE).unwrap() >= 13);

    // Five batches in flight, the third larger than the send buffer the connection starts with.
    let values: Vec<Vec<u8>> = (0..5u8)
        .map(|i| vec![b'a' + i; 1 + 10_000 * usize::from(i == 2)])
        .collect();
    let mut ids = Vec::new();
    for (i, value) in (0u64..).zip(&values) {
        let record = NewRecord {
            key: None,
            value: Some(value),
            headers: &[],
            timestamp: 0,
        };
        let mut batch = vec![0; 1 << 15];
        let len = BatchBuilder::new().write([record], &mut batch).unwrap();
        let partitions = [PartitionProduceData::default()
            .with_index(0)
            .with_records(Some(Records::new(&batch[..len])))];
        let data = [TopicProduceData::default()
            .with_topic_id(topic_id)
            .with_partition_data(&partitions)];
        let request = ProduceRequest::default()
            .with_acks(-1)
            .with_timeout_ms(5_000)
            .with_topic_data(&data);
        // Each tagged with its value's index, which comes back with the answer.
        let sent = broker.send_tagged(&request, i).await.unwrap();
        ids.push((sent.correlation_id, i));
    }
    for id in ids {
        let answer = broker.receive().await.unwrap();
        assert_eq!((answer.request().correlation_id, answer.tag()), id);
        let produced: ProduceResponse<'_> = answer.decode_as().unwrap();
        let p = produced.responses.iter().next().unwrap();
        assert_eq!(p.partition_responses.iter().next().unwrap().error_code, 0);
    }
    assert!(matches!(broker.receive().await, Err(Error::Idle)));

    let partitions = [FetchPartition::default()
        .with_partition(0)
        .with_partition_max_bytes(1 << 20)];
    let topics = [FetchTopic::default()
        .with_topic_id(topic_id)
        .with_partitions(&partitions)];
    let request = FetchRequest::default()
        .with_max_bytes(4 << 20)
        .with_topics(&topics);
    let fetched: FetchResponse<'_> = broker.call(&request).await.unwrap().decode_as().unwrap();
    let mut read = Vec::new();
    for p in fetched.responses.iter().flat_map(|t| t.partitions.iter()) {
        for batch in p.records.unwrap_or_default().batches() {
            let Batch::V2(batch) = batch.unwrap() else {
                panic!("a v2 batch")
            };
            for record in batch.records().unwrap() {
                read.push(record.unwrap().value().unwrap().to_vec());
            }
        }
    }
    assert_eq!(read, values);
}

/// A peer written with the frame codec: it answers ApiVersions (Heartbeat v0-4 advertised), then
/// does what `then` does with the stream and the next request's correlation id.
async fn peer<F, Fut>(then: F) -> SocketAddr
where
    F: FnOnce(Framed<TcpStream, FrameCodec>, i32) -> Fut + Send + 'static,
    Fut: Future<Output = ()> + Send,
{
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move {
        let (stream, _) = listener.accept().await.unwrap();
        let mut framed = Framed::new(stream, FrameCodec::new());
        while let Some(Ok(request)) = framed.next().await {
            let info = frame::request_info(&request).unwrap();
            let header = ResponseHeader::default().with_correlation_id(info.correlation_id);
            if info.api_key == ApiKey::API_VERSIONS {
                let keys = [
                    ApiVersion::default().with_api_key(12).with_max_version(4),
                    ApiVersion::default().with_api_key(18).with_max_version(4),
                ];
                let body = ApiVersionsResponse::default().with_api_keys(&keys);
                framed
                    .send((&header, &body, info.api_version))
                    .await
                    .unwrap();
            } else {
                then(framed, info.correlation_id).await;
                return;
            }
        }
    });
    addr
}

async fn heartbeat(addr: SocketAddr, timeout_ms: u32) -> Result<(), Error> {
    let mut c = connect(addr, timeout_ms).await?;
    c.call(&HeartbeatRequest::default()).await.map(|_| ())
}

#[tokio::test]
async fn the_codec_answers_and_the_connection_reads() {
    let addr = peer(|mut framed, id| async move {
        let header = ResponseHeader::default().with_correlation_id(id);
        let body = HeartbeatResponse::default().with_error_code(ErrorCode::REBALANCE_IN_PROGRESS.0);
        framed.send((&header, &body, 4)).await.unwrap();
        // Keeps the connection open until the client has read the answer.
        let _ = framed.next().await;
    })
    .await;
    let mut c = connect(addr, 10_000).await.unwrap();
    let answer = c.call(&HeartbeatRequest::default()).await.unwrap();
    let body: HeartbeatResponse<'_> = answer.decode_as().unwrap();
    assert_eq!(body.error_code, ErrorCode::REBALANCE_IN_PROGRESS);
}

#[tokio::test]
async fn a_peer_that_closes_inside_a_frame() {
    let addr = peer(|framed, _| async move {
        let mut stream = framed.into_inner();
        stream.write_all(&[0, 0, 0, 20, 0, 0]).await.unwrap();
        stream.shutdown().await.unwrap();
    })
    .await;
    match heartbeat(addr, 10_000).await {
        Err(Error::Session(SessionError::ClosedMidFrame {
            received: 6,
            missing: 18,
        })) => {}
        other => panic!("{other:?}"),
    }
}

#[tokio::test]
async fn a_peer_that_stalls_past_the_timeout() {
    let addr = peer(|framed, _| async move {
        tokio::time::sleep(Duration::from_secs(30)).await;
        drop(framed);
    })
    .await;
    let started = Instant::now();
    match heartbeat(addr, 1_500).await {
        Err(Error::TimedOut { request }) => assert_eq!(request.api_key, ApiKey::HEARTBEAT),
        other => panic!("{other:?}"),
    }
    let waited = started.elapsed();
    assert!(
        waited >= Duration::from_millis(1_500) && waited < Duration::from_secs(5),
        "{waited:?}"
    );
}

#[tokio::test]
async fn answers_that_came_in_time_are_read_after_the_deadline() {
    let addr = peer(|mut framed, id| async move {
        let header = ResponseHeader::default().with_correlation_id(id);
        framed
            .send((&header, &HeartbeatResponse::default(), 4))
            .await
            .unwrap();
        let header = ResponseHeader::default().with_correlation_id(id + 1);
        framed
            .send((&header, &HeartbeatResponse::default(), 4))
            .await
            .unwrap();
        let _ = framed.next().await;
    })
    .await;
    let mut c = connect(addr, 200).await.unwrap();
    for tag in [3, 4] {
        c.send_at_tagged(&HeartbeatRequest::default(), 4, tag)
            .await
            .unwrap();
    }
    tokio::time::sleep(Duration::from_millis(600)).await;
    for tag in [3, 4] {
        let answer = c.receive().await.unwrap();
        assert_eq!(
            (answer.request().api_key, answer.tag()),
            (ApiKey::HEARTBEAT, tag)
        );
    }
}

#[tokio::test]
async fn a_peer_that_answers_a_request_it_was_not_sent() {
    let addr = peer(|mut framed, id| async move {
        let header = ResponseHeader::default().with_correlation_id(id + 7);
        framed
            .send((&header, &HeartbeatResponse::default(), 4))
            .await
            .unwrap();
        let _ = framed.next().await;
    })
    .await;
    match heartbeat(addr, 10_000).await {
        Err(Error::Session(SessionError::NoRequest { correlation_id: 8 })) => {}
        other => panic!("{other:?}"),
    }
}

#[tokio::test]
async fn a_peer_that_announces_a_2_gb_frame() {
    let addr = peer(|framed, _| async move {
        let mut stream = framed.into_inner();
        stream
            .write_all(&0x7fff_fff0_i32.to_be_bytes())
            .await
            .unwrap();
        tokio::time::sleep(Duration::from_secs(30)).await;
    })
    .await;
    let started = Instant::now();
    match heartbeat(addr, 10_000).await {
        Err(Error::Session(SessionError::Framing(_))) => {}
        other => panic!("{other:?}"),
    }
    assert!(started.elapsed() < Duration::from_secs(5));
}

#[tokio::test]
async fn the_codec_refuses_a_frame_over_its_limit() {
    let (client, server) = tokio::io::duplex(64);
    let mut framed = Framed::new(server, FrameCodec::new().with_max_frame(16));
    let mut client = client;
    client.write_all(&[0, 0, 0, 17]).await.unwrap();
    match framed.next().await {
        Some(Err(CodecError::Framing(e))) => assert!(e.to_string().contains("17"), "{e}"),
        other => panic!("{other:?}"),
    }
}

/// A connection that authenticates with SCRAM, then again (KIP-368), and is served in between
/// and after.
#[tokio::test]
async fn a_connection_authenticates_and_authenticates_again() {
    use kwire::session::sasl::Credentials;

    let addr = Broker::spawn_sasl(1, &[("alice", "alice-secret")]);
    let stream = TcpStream::connect(addr).await.unwrap();
    let credentials = Credentials::scram_sha512("alice", "alice-secret", b"nonce-one");
    let client: Client<'_, 8> = Client::negotiating(None).with_sasl(credentials);
    let mut broker = Connection::open(stream, client).await.unwrap();
    let metadata = MetadataRequest::default();
    let body: MetadataResponse<'_> = broker.call(&metadata).await.unwrap().decode_as().unwrap();
    assert_eq!(body.brokers.iter().count(), 1);
    let again = Credentials::scram_sha256("alice", "alice-secret", b"nonce-two");
    broker.reauthenticate(again).await.unwrap();
    let body: MetadataResponse<'_> = broker.call(&metadata).await.unwrap().decode_as().unwrap();
    assert_eq!(body.brokers.iter().count(), 1);
}

/// SCRAM over TLS to the mini broker's TLS listener, with certificates made here.
#[cfg(feature = "tls")]
#[tokio::test]
async fn scram_over_tls_to_the_mini_broker() {
    use kwire::io::tls::ClientTls;
    use kwire::session::sasl::Credentials;

    let pki = kwire_testkit::pki::Pki::new("tokio");
    let server = pki.server(&["127.0.0.1"]).config().unwrap();
    let addr = Broker::spawn_tls(1, &[("alice", "alice-secret")], server).to_string();
    let trust = ClientTls::ca_file(pki.ca_file()).unwrap().config().unwrap();
    let credentials = Credentials::scram_sha512("alice", "alice-secret", b"tokio-nonce");
    let client: Client<'_, 8> = Client::negotiating(Some("tokio-tls"))
        .with_sasl(credentials)
        .with_request_timeout(5_000);
    let mut conn = kwire_tokio::tls::connect(&addr, &trust, client)
        .await
        .unwrap();
    let answer = conn.call(&MetadataRequest::default()).await.unwrap();
    let metadata: MetadataResponse<'_> = answer.decode_as().unwrap();
    assert_eq!(metadata.brokers.iter().count(), 1);

    // Another CA's certificate is refused in the handshake.
    let other = kwire_testkit::pki::Pki::new("tokio-other");
    let wrong = ClientTls::ca_file(other.ca_file())
        .unwrap()
        .config()
        .unwrap();
    let client: Client<'_, 8> = Client::negotiating(None).with_request_timeout(5_000);
    let e = kwire_tokio::tls::connect(&addr, &wrong, client)
        .await
        .unwrap_err();
    assert!(e.to_string().contains("UnknownIssuer"), "{e}");
}
