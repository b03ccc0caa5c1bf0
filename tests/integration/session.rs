//! The session layer over byte streams cut every way: pipelined requests and their responses
//! in chunks of any size, `acks=0` requests between answered ones, correlation ids that wrap,
//! the ApiVersions exchange and its fallback, and peers that send what no broker should.

use kwire::api::VersionTable;
use kwire::codec::VersionRange;
use kwire::messages::api_versions_response::ApiVersion;
use kwire::messages::produce_request::TopicProduceData;
use kwire::messages::{
    ApiVersionsRequest, ApiVersionsResponse, FetchRequest, FetchResponse, HeartbeatRequest,
    HeartbeatResponse, MetadataRequest, MetadataResponse, ProduceRequest, ProduceResponse,
};
use kwire::session::{Client, Event, FrameBuffer, InFlight, Pending, SessionError, server};
use kwire::{ApiKey, DecodeErrorKind, Request, Response, frame};
use proptest::prelude::*;

/// The broker's advertised ranges.
const BROKER: [(i16, i16, i16); 5] = [(0, 3, 11), (1, 4, 16), (3, 0, 12), (12, 0, 4), (18, 0, 4)];

/// A broker: answers every request frame in `requests` that expects an answer, in order. The
/// answer's body says which request it answers (its throttle time or error code is the
/// correlation id), so a response matched to the wrong request shows.
fn broker(requests: &[u8]) -> Vec<Vec<u8>> {
    let mut storage = vec![0u8; 1 << 16];
    let mut rx = FrameBuffer::new(&mut storage);
    assert_eq!(rx.push(requests), requests.len());
    let mut answers = Vec::new();
    let mut out = vec![0u8; 4096];
    while let Some(request) = server::next_request(&mut rx).unwrap() {
        let (_, body) = request.decode().unwrap();
        let id = request.info.correlation_id;
        let n = match body {
            Request::ApiVersions(_) => {
                // Every version has the keys, not the throttle time: the id goes in a row of
                // key -1, which no client looks up.
                let keys: Vec<ApiVersion<'_>> = BROKER
                    .iter()
                    .chain(&[(-1, i16::try_from(id % 1000).unwrap(), 0)])
                    .map(|&(k, min, max)| {
                        ApiVersion::default()
                            .with_api_key(k)
                            .with_min_version(min)
                            .with_max_version(max)
                    })
                    .collect();
                let body = ApiVersionsResponse::default().with_api_keys(&keys[..]);
                server::respond_api_versions(&request.info, &body, &mut out).unwrap()
            }
            Request::Produce(p) if p.acks == 0 => continue,
            Request::Produce(_) => {
                let body = ProduceResponse::default().with_throttle_time_ms(id);
                server::respond(&request.info, &body, &mut out).unwrap()
            }
            Request::Fetch(_) => {
                let body = FetchResponse::default().with_throttle_time_ms(id);
                server::respond(&request.info, &body, &mut out).unwrap()
            }
            Request::Metadata(_) => {
                let body = MetadataResponse::default().with_throttle_time_ms(id);
                server::respond(&request.info, &body, &mut out).unwrap()
            }
            Request::Heartbeat(_) => {
                let code = i16::try_from(id % 1000).unwrap();
                let body = HeartbeatResponse::default().with_error_code(code);
                server::respond(&request.info, &body, &mut out).unwrap()
            }
            other => panic!("the test broker does not serve {:?}", other.api_key()),
        };
        answers.push(out[..n].to_vec());
    }
    answers
}

/// What a response says of the request it answers: the id the test broker put in it.
fn says(response: &Response<'_>) -> i32 {
    match response {
        Response::ApiVersions(r) => r
            .api_keys
            .iter()
            .find(|k| k.api_key == -1)
            .map(|k| i32::from(k.min_version))
            .unwrap(),
        Response::Produce(r) => r.throttle_time_ms,
        Response::Fetch(r) => r.throttle_time_ms,
        Response::Metadata(r) => r.throttle_time_ms,
        Response::Heartbeat(r) => i32::from(r.error_code),
        other => panic!("unexpected {:?}", other.api_key()),
    }
}

/// A client that has negotiated with the test broker, its bytes fed whole.
fn ready_client() -> Client<'static, 16> {
    let mut client = Client::negotiating(Some("test"));
    let mut tx = vec![0u8; 256];
    let n = client.poll_transmit(&mut tx).unwrap().unwrap();
    assert_eq!(client.poll_transmit(&mut tx).unwrap(), None, "one hello");
    let answer = broker(&tx[..n]).concat();
    let mut storage = vec![0u8; 4096];
    let mut rx = FrameBuffer::new(&mut storage);
    rx.push(&answer);
    assert!(matches!(client.receive(&mut rx), Ok(Some(Event::Ready))));
    assert!(matches!(client.receive(&mut rx), Ok(None)));
    assert!(client.is_ready());
    client
}

/// The requests of the pipelined stream: answered ones with `acks=0` Produce between them.
fn pipeline(client: &mut Client<'_, 16>) -> (Vec<u8>, Vec<i32>) {
    let mut wire = Vec::new();
    let mut answered = Vec::new();
    let mut tx = vec![0u8; 1024];
    let topics = [TopicProduceData::default().with_name("t")];
    let fire_and_forget = ProduceRequest::default()
        .with_acks(0)
        .with_topic_data(&topics);
    let acked = ProduceRequest::default()
        .with_acks(-1)
        .with_topic_data(&topics);
    // Encodes one request and keeps its bytes, and its id if it is answered.
    macro_rules! send {
        ($sent:expr) => {{
            let sent: kwire::session::Sent = $sent.unwrap();
            wire.extend_from_slice(&tx[..sent.len]);
            if sent.answered {
                answered.push(sent.correlation_id);
            }
        }};
    }
    for round in 0..3 {
        send!(client.send(&MetadataRequest::default(), &mut tx));
        send!(client.send(&fire_and_forget, &mut tx));
        send!(client.send(&HeartbeatRequest::default(), &mut tx));
        if round == 1 {
            send!(client.send(&acked, &mut tx));
            send!(client.send(&fire_and_forget, &mut tx));
            send!(client.send_at(&ApiVersionsRequest::default(), 0, &mut tx));
        }
        send!(client.send(&FetchRequest::default(), &mut tx));
    }
    (wire, answered)
}

/// Feeds `stream` to a client in chunks of the given sizes (the last chunk takes the rest) and
/// returns the correlation ids of the responses it handed back, each checked against its body.
fn receive_in_chunks(
    client: &mut Client<'_, 16>,
    stream: &[u8],
    sizes: &[usize],
    storage: &mut [u8],
) -> Vec<i32> {
    let mut rx = FrameBuffer::new(storage);
    let mut got = Vec::new();
    let mut rest = stream;
    let mut sizes = sizes.iter().copied().chain(std::iter::repeat(usize::MAX));
    while !rest.is_empty() {
        let want = sizes.next().unwrap().clamp(1, rest.len());
        let mut chunk = &rest[..want];
        rest = &rest[want..];
        while !chunk.is_empty() {
            let took = rx.push(chunk);
            chunk = &chunk[took..];
            while let Some(event) = client.receive(&mut rx).unwrap() {
                let Event::Response(answer) = event else {
                    panic!("only responses are due");
                };
                let request = answer.request();
                let body = answer.decode().unwrap();
                assert_eq!(body.api_key(), request.api_key);
                if matches!(request.api_key, ApiKey::HEARTBEAT | ApiKey::API_VERSIONS) {
                    assert_eq!(says(&body), request.correlation_id % 1000);
                } else {
                    assert_eq!(says(&body), request.correlation_id);
                }
                got.push(request.correlation_id);
            }
        }
    }
    client.finish(&rx).unwrap();
    got
}

#[test]
fn every_split_point_of_a_pipelined_stream_gives_every_response_in_order() {
    let mut client = ready_client();
    let (requests, answered) = pipeline(&mut client);
    assert_eq!(client.in_flight(), answered.len());
    let stream = broker(&requests).concat();
    let template = client;
    // The storage fits the largest frame and little more, so that it is compacted often.
    let largest = broker(&requests).iter().map(Vec::len).max().unwrap();
    for at in 0..=stream.len() {
        let mut client = template.clone();
        let mut storage = vec![0u8; largest + 7];
        let got = receive_in_chunks(&mut client, &stream, &[at], &mut storage);
        assert_eq!(got, answered, "split at {at}");
    }
    let mut client = template.clone();
    let mut storage = vec![0u8; largest];
    let got = receive_in_chunks(&mut client, &stream, &[1; 100_000], &mut storage);
    assert_eq!(got, answered, "one byte at a time");
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn any_chunking_gives_every_response_in_order(
        sizes in proptest::collection::vec(1usize..300, 0..40),
        slack in 0usize..200,
    ) {
        let mut client = ready_client();
        let (requests, answered) = pipeline(&mut client);
        let answers = broker(&requests);
        let largest = answers.iter().map(Vec::len).max().unwrap();
        let mut storage = vec![0u8; largest + slack];
        let got = receive_in_chunks(&mut client, &answers.concat(), &sizes, &mut storage);
        prop_assert_eq!(got, answered);
        prop_assert_eq!(client.in_flight(), 0);
    }
}

#[test]
fn correlation_ids_wrap_from_the_largest_to_zero() {
    let mut client: Client<'_, 4> = Client::new(None).with_correlation_id(i32::MAX - 1);
    let mut tx = [0u8; 64];
    let mut wire = Vec::new();
    let mut ids = Vec::new();
    for _ in 0..3 {
        let sent = client
            .send_at(&HeartbeatRequest::default(), 4, &mut tx)
            .unwrap();
        wire.extend_from_slice(&tx[..sent.len]);
        ids.push(sent.correlation_id);
    }
    assert_eq!(ids, [i32::MAX - 1, i32::MAX, 0]);
    let stream = broker(&wire).concat();
    let mut storage = [0u8; 256];
    let mut rx = FrameBuffer::new(&mut storage);
    rx.push(&stream);
    let mut got = Vec::new();
    while let Some(Event::Response(a)) = client.receive(&mut rx).unwrap() {
        got.push(a.request().correlation_id);
    }
    assert_eq!(got, ids);

    // A wrapped id still in flight is refused, and nothing is remembered for it.
    let mut client: Client<'_, 4> = Client::new(None).with_correlation_id(i32::MAX);
    client
        .send_at(&HeartbeatRequest::default(), 4, &mut tx)
        .unwrap();
    client
        .send_at(&HeartbeatRequest::default(), 4, &mut tx)
        .unwrap();
    let mut client = client.with_correlation_id(i32::MAX);
    assert_eq!(
        client.send_at(&HeartbeatRequest::default(), 4, &mut tx),
        Err(SessionError::CorrelationIdInUse(i32::MAX))
    );
    assert_eq!(client.in_flight(), 2);
}

#[test]
fn in_flight_requests_are_bounded_by_the_storage() {
    let mut client: Client<'_, 2> = Client::new(None);
    let mut tx = [0u8; 64];
    for _ in 0..2 {
        client
            .send_at(&HeartbeatRequest::default(), 4, &mut tx)
            .unwrap();
    }
    assert_eq!(
        client.send_at(&HeartbeatRequest::default(), 4, &mut tx),
        Err(SessionError::TooManyInFlight { capacity: 2 })
    );
    // A request that gets no response is not kept, so it may still go.
    let topics = [TopicProduceData::default().with_name("t")];
    let body = ProduceRequest::default()
        .with_acks(0)
        .with_topic_data(&topics);
    let sent = client.send_at(&body, 9, &mut tx).unwrap();
    assert!(!sent.answered);
    assert_eq!(client.in_flight(), 2);
}

#[test]
fn a_request_that_does_not_encode_is_not_remembered() {
    let mut client: Client<'_, 2> = Client::new(None);
    let mut tx = [0u8; 8];
    assert!(matches!(
        client.send_at(&HeartbeatRequest::default(), 4, &mut tx),
        Err(SessionError::Encode(_))
    ));
    assert_eq!(client.in_flight(), 0);
    let mut tx = [0u8; 64];
    let sent = client
        .send_at(&HeartbeatRequest::default(), 4, &mut tx)
        .unwrap();
    assert_eq!(sent.correlation_id, 0, "the id was not used up");
}

#[test]
fn send_before_negotiation_is_refused_and_unknown_keys_are_named() {
    let mut client: Client<'_, 4> = Client::negotiating(None);
    let mut tx = [0u8; 128];
    assert_eq!(
        client.send(&HeartbeatRequest::default(), &mut tx),
        Err(SessionError::NotNegotiated)
    );
    let client = ready_client();
    assert_eq!(client.version(ApiKey::METADATA), Ok(12));
    assert_eq!(
        client.advertised(ApiKey::FETCH),
        Some(VersionRange::new(4, 16))
    );
    assert!(matches!(
        client.version(ApiKey::JOIN_GROUP),
        Err(SessionError::Unsupported {
            api_key: ApiKey::JOIN_GROUP,
            ..
        })
    ));
}

/// Sends the hello of `client`, answers it with `reply` (a whole ApiVersions response frame
/// built from the request's header), and returns what the client made of it.
fn hello_answered_by(
    client: &mut Client<'_, 4>,
    reply: impl Fn(&frame::RequestInfo<'_>, &mut [u8]) -> usize,
) -> Result<Option<i16>, SessionError> {
    let mut tx = [0u8; 256];
    let n = client.poll_transmit(&mut tx)?.expect("a hello is due");
    let info = frame::request_info(&tx[..n]).unwrap();
    let mut answer = [0u8; 256];
    let m = reply(&info, &mut answer);
    let mut storage = [0u8; 256];
    let mut rx = FrameBuffer::new(&mut storage);
    rx.push(&answer[..m]);
    match client.receive(&mut rx)? {
        Some(Event::Ready) => Ok(None),
        Some(Event::Retry { version }) => Ok(Some(version)),
        other => panic!("{other:?}"),
    }
}

#[test]
fn a_broker_that_does_not_know_the_apiversions_version_is_asked_again() {
    let mut client: Client<'_, 4> = Client::negotiating(Some("c"));
    let first = kwire::api::api_versions_request_version();
    // A 2.4+ broker names its range (0-3): the client asks again at 3.
    let retry = hello_answered_by(&mut client, |info, out| {
        assert_eq!(info.api_version, first);
        server::reject_api_versions(info, VersionRange::new(0, 3), out).unwrap()
    });
    assert_eq!(retry, Ok(Some(3)));
    assert!(!client.is_ready());
    // The broker of before 2.4 names none: the client falls back to 0.
    let retry = hello_answered_by(&mut client, |info, out| {
        assert_eq!(info.api_version, 3);
        let body = ApiVersionsResponse::default().with_error_code(35);
        server::respond_api_versions(info, &body, out).unwrap()
    });
    assert_eq!(retry, Ok(Some(0)));
    let ready = hello_answered_by(&mut client, |info, out| {
        assert_eq!(info.api_version, 0);
        let keys = [ApiVersion::default().with_api_key(12).with_max_version(4)];
        let body = ApiVersionsResponse::default().with_api_keys(&keys);
        server::respond_api_versions(info, &body, out).unwrap()
    });
    assert_eq!(ready, Ok(None));
    assert_eq!(client.version(ApiKey::HEARTBEAT), Ok(4));

    // Any other error ends the exchange.
    let mut client: Client<'_, 4> = Client::negotiating(None);
    let failed = hello_answered_by(&mut client, |info, out| {
        let body = ApiVersionsResponse::default().with_error_code(31);
        server::respond_api_versions(info, &body, out).unwrap()
    });
    assert!(matches!(failed, Err(SessionError::Negotiate(_))));
    assert_eq!(
        client.send(&HeartbeatRequest::default(), &mut [0u8; 64]),
        Err(SessionError::NotNegotiated)
    );
}

#[test]
fn the_fallback_reply_is_the_v0_layout_behind_header_v0() {
    let start = [0, 0, 0, 12, 0, 18, 0, 99, 0, 0, 0, 5, 0xff, 0xff];
    let info = frame::request_info(&start).unwrap();
    let mut out = [0u8; 64];
    let n = server::reject_api_versions(&info, VersionRange::new(0, 4), &mut out).unwrap();
    // Size 16: correlation id, error 35, one entry (key 18, 0-4), no throttle, no tags.
    assert_eq!(
        &out[..n],
        [
            0, 0, 0, 16, 0, 0, 0, 5, 0, 35, 0, 0, 0, 1, 0, 18, 0, 0, 0, 4
        ]
    );
    let reply = kwire::api::decode_api_versions(&out[..n], 99).unwrap();
    let err = VersionTable::try_from_response(&reply.body).unwrap_err();
    assert_eq!(err.retry_version(99), Some(4));
}

/// A client with one Heartbeat (correlation id 0) and one Metadata (1) in flight.
fn two_in_flight() -> Client<'static, 4> {
    let mut client = Client::new(None);
    let mut tx = [0u8; 64];
    client
        .send_at(&HeartbeatRequest::default(), 4, &mut tx)
        .unwrap();
    client
        .send_at(&MetadataRequest::default(), 12, &mut tx)
        .unwrap();
    client
}

fn heartbeat_answer(correlation_id: i32) -> Vec<u8> {
    let header = kwire::messages::ResponseHeader::default().with_correlation_id(correlation_id);
    let mut out = [0u8; 32];
    let n = frame::encode_response(&header, &HeartbeatResponse::default(), 4, &mut out).unwrap();
    out[..n].to_vec()
}

#[test]
fn hostile_peers_get_clear_errors() {
    // A 2 GB size prefix.
    let mut client = two_in_flight();
    let mut storage = [0u8; 1024];
    let mut rx = FrameBuffer::new(&mut storage);
    rx.push(&[0x7f, 0xff, 0xff, 0xff, 1, 2, 3]);
    let err = client.receive(&mut rx).unwrap_err();
    let SessionError::Framing(e) = err else {
        panic!("{err:?}")
    };
    assert!(matches!(
        e.kind,
        DecodeErrorKind::FrameTooLarge {
            size: 0x7fff_ffff,
            limit: 1020
        }
    ));
    assert_eq!(
        client.receive(&mut rx).unwrap_err(),
        err,
        "the stream stays stopped"
    );
    assert!(err.to_string().contains("2147483647"), "{err}");

    // A negative size prefix.
    let mut rx = FrameBuffer::new(&mut storage);
    rx.push(&[0xff, 0xff, 0xff, 0xf0]);
    assert!(matches!(
        client.receive(&mut rx),
        Err(SessionError::Framing(e)) if matches!(e.kind, DecodeErrorKind::NegativeFrameSize(-16))
    ));

    // A response to no request: skipped, with its id; the one due still comes.
    let mut client = two_in_flight();
    let mut rx = FrameBuffer::new(&mut storage);
    rx.push(&heartbeat_answer(77));
    rx.push(&heartbeat_answer(0));
    assert_eq!(
        client.receive(&mut rx).unwrap_err(),
        SessionError::NoRequest { correlation_id: 77 }
    );
    assert!(
        matches!(client.receive(&mut rx), Ok(Some(Event::Response(a))) if a.request().correlation_id == 0)
    );

    // Out of order: the Metadata's id before the Heartbeat's.
    let mut client = two_in_flight();
    let mut rx = FrameBuffer::new(&mut storage);
    rx.push(&heartbeat_answer(1));
    assert_eq!(
        client.receive(&mut rx).unwrap_err(),
        SessionError::OutOfOrder {
            expected: 0,
            received: 1
        }
    );
    assert_eq!(client.in_flight(), 2);

    // Garbage: a frame too short for a correlation id, then one whose body does not decode.
    let mut client = two_in_flight();
    let mut rx = FrameBuffer::new(&mut storage);
    rx.push(&[0, 0, 0, 2, 9, 9]);
    assert!(matches!(
        client.receive(&mut rx),
        Err(SessionError::Decode(_))
    ));
    rx.push(&[0, 0, 0, 5, 0, 0, 0, 0, 0xee]);
    let Ok(Some(Event::Response(answer))) = client.receive(&mut rx) else {
        panic!("the frame is matched before it is decoded")
    };
    assert!(matches!(answer.decode(), Err(SessionError::Decode(_))));
    assert_eq!(
        answer.decode_as::<MetadataResponse<'_>>().unwrap_err(),
        SessionError::WrongApi {
            asked: ApiKey::METADATA,
            request: ApiKey::HEARTBEAT
        }
    );

    // A close mid-frame, and a close with a request unanswered.
    let mut rx = FrameBuffer::new(&mut storage);
    let whole = heartbeat_answer(1);
    rx.push(&whole[..7]);
    assert!(matches!(client.receive(&mut rx), Ok(None)));
    assert_eq!(
        client.finish(&rx),
        Err(SessionError::ClosedMidFrame {
            received: 7,
            missing: whole.len() - 7
        })
    );
    rx.push(&whole[7..]);
    assert!(matches!(
        client.receive(&mut rx),
        Ok(Some(Event::Response(_)))
    ));
    assert_eq!(client.finish(&rx), Ok(()));
    let client = two_in_flight();
    assert_eq!(
        client.finish(&rx),
        Err(SessionError::Unanswered {
            requests: 2,
            oldest: 0
        })
    );
}

#[test]
fn a_relay_tracks_requests_it_did_not_encode() {
    let mut waiting: InFlight<3, u64> = InFlight::new();
    for (i, id) in [10, 11, 12].into_iter().enumerate() {
        let tag = u64::try_from(i).unwrap();
        waiting
            .push(Pending {
                correlation_id: id,
                api_key: ApiKey::FETCH,
                version: 16,
                tag,
            })
            .unwrap();
    }
    assert_eq!(
        waiting.push(Pending {
            correlation_id: 13,
            api_key: ApiKey::FETCH,
            version: 16,
            tag: 9
        }),
        Err(SessionError::TooManyInFlight { capacity: 3 })
    );
    assert_eq!(waiting.remove(11).map(|p| p.tag), Some(1));
    assert_eq!(
        waiting.push(Pending {
            correlation_id: 10,
            api_key: ApiKey::FETCH,
            version: 16,
            tag: 9
        }),
        Err(SessionError::CorrelationIdInUse(10))
    );
    assert_eq!(
        waiting.answer(12),
        Err(SessionError::OutOfOrder {
            expected: 10,
            received: 12
        })
    );
    assert_eq!(waiting.pop_oldest().map(|p| p.correlation_id), Some(10));
    let answered = waiting.answer(12).unwrap();
    assert_eq!((answered.tag, answered.response_header_version()), (2, 1));
    assert!(waiting.is_empty());
}

#[test]
fn deadlines_are_kept_until_the_answer_and_checked_across_the_clock_wrap() {
    let mut client: Client<'_, 4> = Client::new(None).with_request_timeout(1_000);
    let mut out = [0u8; 64];
    // The clock 300 ms before it wraps: the deadlines fall after the wrap.
    assert_eq!(client.handle_timeout(u32::MAX - 299), None);
    let first = client
        .send_at(&HeartbeatRequest::default(), 4, &mut out)
        .unwrap();
    assert_eq!(client.handle_timeout(100), None);
    let second = client
        .send_at(&HeartbeatRequest::default(), 4, &mut out)
        .unwrap();
    assert_eq!(client.poll_timeout(), Some(700));
    assert_eq!(client.handle_timeout(699), None);
    assert_eq!(
        client.handle_timeout(700).map(|p| p.correlation_id),
        Some(first.correlation_id)
    );

    // The first is answered: the second's deadline is the one left.
    let mut storage = [0u8; 256];
    let mut rx = FrameBuffer::new(&mut storage);
    rx.push(&heartbeat_answer(first.correlation_id));
    assert!(matches!(
        client.receive(&mut rx),
        Ok(Some(Event::Response(_)))
    ));
    assert_eq!(client.poll_timeout(), Some(1_100));
    assert_eq!(client.handle_timeout(1_099), None);
    let expired = client
        .handle_timeout(1_100)
        .expect("the second request expired");
    assert_eq!(expired.correlation_id, second.correlation_id);

    // A timeout of 0 is none.
    let mut untimed: Client<'_, 4> = Client::new(None).with_request_timeout(0);
    assert_eq!(untimed.request_timeout(), None);
    untimed
        .send_at(&HeartbeatRequest::default(), 4, &mut out)
        .unwrap();
    assert_eq!(
        (untimed.poll_timeout(), untimed.handle_timeout(u32::MAX)),
        (None, None)
    );
}

#[test]
fn tags_come_back_with_pipelined_answers_in_any_chunks() {
    let mut client = ready_client();
    let mut wire = Vec::new();
    let mut tx = vec![0u8; 1024];
    let topics = [TopicProduceData::default().with_name("t")];
    let acked = ProduceRequest::default()
        .with_acks(-1)
        .with_topic_data(&topics);
    let fire_and_forget = ProduceRequest::default()
        .with_acks(0)
        .with_topic_data(&topics);
    // Tagged and untagged requests, and one that gets no answer, its tag forgotten with it.
    let mut expected = Vec::new();
    for (i, tag) in [7u64, 0, u64::MAX, 12, 1 << 40].into_iter().enumerate() {
        let sent = match i {
            1 => client.send(&HeartbeatRequest::default(), &mut tx),
            3 => client.send_at_tagged(&MetadataRequest::default(), 12, tag, &mut tx),
            _ => client.send_tagged(&acked, tag, &mut tx),
        }
        .unwrap();
        wire.extend_from_slice(&tx[..sent.len]);
        expected.push((sent.correlation_id, tag));
        let lost = client.send_tagged(&fire_and_forget, 99, &mut tx).unwrap();
        assert!(!lost.answered);
        wire.extend_from_slice(&tx[..lost.len]);
    }
    let tags: Vec<u64> = client.pending().map(|p| p.tag).collect();
    assert_eq!(tags, [7, 0, u64::MAX, 12, 1 << 40]);

    let answers = broker(&wire).concat();
    for chunk in [1, 3, 64, answers.len()] {
        let mut client = client.clone();
        let mut storage = vec![0u8; 4096];
        let mut rx = FrameBuffer::new(&mut storage);
        let mut got = Vec::new();
        for piece in answers.chunks(chunk) {
            rx.push(piece);
            while let Some(Event::Response(answer)) = client.receive(&mut rx).unwrap() {
                assert_eq!(
                    says(&answer.decode().unwrap()),
                    answer.request().correlation_id
                );
                got.push((answer.request().correlation_id, answer.tag()));
            }
        }
        assert_eq!(got, expected, "chunks of {chunk}");
        assert_eq!(client.in_flight(), 0);
    }
}

#[test]
fn a_request_that_expires_comes_back_with_its_tag() {
    let mut client: Client<'_, 4> = Client::new(None).with_request_timeout(1_000);
    let mut out = [0u8; 64];
    let first = client
        .send_at_tagged(&HeartbeatRequest::default(), 4, 30, &mut out)
        .unwrap();
    assert_eq!(client.handle_timeout(500), None);
    let second = client
        .send_at_tagged(&HeartbeatRequest::default(), 4, 45, &mut out)
        .unwrap();
    let untagged = client
        .send_at(&HeartbeatRequest::default(), 4, &mut out)
        .unwrap();
    let expired = client.handle_timeout(1_000).expect("the first expired");
    assert_eq!(
        (expired.correlation_id, expired.tag),
        (first.correlation_id, 30)
    );
    assert_eq!(expired.untagged().api_key, ApiKey::HEARTBEAT);

    // The first answered late: the second is the one that expires next, with its own tag.
    let mut storage = [0u8; 256];
    let mut rx = FrameBuffer::new(&mut storage);
    rx.push(&heartbeat_answer(first.correlation_id));
    let Ok(Some(Event::Response(answer))) = client.receive(&mut rx) else {
        panic!("the first answer")
    };
    assert_eq!(answer.tag(), 30);
    let expired = client.handle_timeout(1_500).expect("the second expired");
    assert_eq!(
        (expired.correlation_id, expired.tag),
        (second.correlation_id, 45)
    );
    // What is left unanswered, to send again, with the tags.
    let left: Vec<(i32, u64)> = client
        .pending()
        .map(|p| (p.correlation_id, p.tag))
        .collect();
    assert_eq!(
        left,
        [(second.correlation_id, 45), (untagged.correlation_id, 0)]
    );
}

/// The `MaxBytes` of the request `client` sends for `body` at `version`.
fn max_bytes_sent<B: kwire::Body>(client: &mut Client<'_, 4>, body: &B, version: i16) -> i32 {
    let mut out = [0u8; 256];
    let sent = client.send_at(body, version, &mut out).unwrap();
    match frame::decode_request(&out[..sent.len]).unwrap().1 {
        Request::Fetch(r) => r.max_bytes,
        Request::ShareFetch(r) => r.max_bytes,
        Request::FetchSnapshot(r) => r.max_bytes,
        other => panic!("{:?}", other.api_key()),
    }
}

#[test]
fn a_fetch_asks_for_no_more_than_the_receive_buffer_holds() {
    use kwire::messages::{FetchSnapshotRequest, ShareFetchRequest};

    let limited = || Client::<'_, 4>::new(None).with_max_response(64 << 10);
    let fetch = FetchRequest::default().with_max_bytes(4 << 20);
    assert_eq!(limited().max_response(), Some(64 << 10));
    // 64 KiB less the 512 bytes of the response's own fields.
    assert_eq!(kwire::session::RESPONSE_OVERHEAD, 512);
    for version in [3, 12, 17, 18] {
        assert_eq!(max_bytes_sent(&mut limited(), &fetch, version), 65_024);
    }
    // The schema's default, 2 GiB, and the other requests that bound their answer.
    let default = FetchRequest::default();
    assert_eq!(max_bytes_sent(&mut limited(), &default, 18), 65_024);
    let share = ShareFetchRequest::default().with_max_bytes(4 << 20);
    assert_eq!(max_bytes_sent(&mut limited(), &share, 1), 65_024);
    let snapshot = FetchSnapshotRequest::default();
    assert_eq!(max_bytes_sent(&mut limited(), &snapshot, 1), 65_024);
    // A request that asks for less goes as it is.
    let small = FetchRequest::default().with_max_bytes(1_000);
    assert_eq!(max_bytes_sent(&mut limited(), &small, 18), 1_000);
    // A buffer smaller than the overhead: the broker still returns a first batch.
    let mut tiny: Client<'_, 4> = Client::new(None).with_max_response(100);
    assert_eq!(max_bytes_sent(&mut tiny, &fetch, 18), 0);

    // A client without a limit sends what it is given.
    let mut unlimited: Client<'_, 4> = Client::new(None);
    assert_eq!(unlimited.max_response(), None);
    assert_eq!(max_bytes_sent(&mut unlimited, &fetch, 18), 4 << 20);
    assert_eq!(max_bytes_sent(&mut unlimited, &default, 18), i32::MAX);

    // The Request enum goes as it is.
    assert_eq!(
        max_bytes_sent(&mut limited(), &Request::Fetch(fetch), 18),
        4 << 20
    );
}

#[test]
fn a_fetch_at_a_version_without_max_bytes_goes_as_it_is() {
    let mut out = [0u8; 256];
    for version in 0..3 {
        // The default reads back as the default: nothing was lowered.
        let mut client: Client<'_, 4> = Client::new(None).with_max_response(64 << 10);
        let sent = client
            .send_at(&FetchRequest::default(), version, &mut out)
            .unwrap();
        let Request::Fetch(fetch) = frame::decode_request(&out[..sent.len]).unwrap().1 else {
            panic!("a Fetch")
        };
        assert_eq!(fetch.max_bytes, i32::MAX);
        assert_eq!(client.in_flight(), 1);

        // A value the version cannot carry is refused as without a limit, and nothing is
        // remembered.
        let asked = FetchRequest::default().with_max_bytes(4 << 20);
        let refused = client.send_at(&asked, version, &mut out);
        let mut plain: Client<'_, 4> = Client::new(None).with_correlation_id(1);
        assert_eq!(refused, plain.send_at(&asked, version, &mut out));
        assert!(matches!(
            refused,
            Err(SessionError::Encode(
                kwire::EncodeError::FieldNotInVersion {
                    path: "FetchRequest.MaxBytes",
                    ..
                }
            ))
        ));
        assert_eq!(client.in_flight(), 1);
    }
}
