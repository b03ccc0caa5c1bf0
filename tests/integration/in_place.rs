//! Record batches written in place (`Records::in_place`, `NewBatch`): the bytes an encode writes
//! equal those of a batch built in a buffer of its own and copied in, for any number of
//! partitions, at classic and flexible versions, through every way a request is encoded; a
//! buffer too small says how long the frame is; a source that writes other than it announced
//! is refused.

use std::io::{Read, Write};

use kwire::codec::{Encode, Uuid};
use kwire::messages::produce_request::{PartitionProduceData, TopicProduceData};
use kwire::messages::{ProduceRequest, RequestHeader};
use kwire::records::{
    BatchBuilder, NewBatch, NewHeader, NewRecord, RecordBatch, Records, WriteRecords,
};
use kwire::session::{Client, SessionError};
use kwire::{ApiKey, EncodeError, Request, frame};

const HEADERS: [NewHeader<'static>; 1] = [NewHeader::new(b"unit", b"celsius")];

/// Three partitions' records: one, none and three, with keys, a null value and headers.
fn record_sets() -> [Vec<NewRecord<'static>>; 3] {
    let ts = 1_700_000_000_000;
    [
        vec![
            NewRecord::new(b"21.5")
                .with_key(b"board-7")
                .with_timestamp(ts),
        ],
        vec![],
        vec![
            NewRecord::new(b"a").with_timestamp(ts),
            NewRecord {
                value: None,
                ..NewRecord::new(b"")
            }
            .with_key(b"gone")
            .with_timestamp(ts + 5),
            NewRecord::new(&[7; 300])
                .with_headers(&HEADERS)
                .with_timestamp(ts + 2),
        ],
    ]
}

fn builder(partition: usize) -> BatchBuilder {
    let sequence = i32::try_from(partition).unwrap() * 10;
    BatchBuilder::new().with_producer(4000, 2, sequence)
}

/// The batches built the two-buffer way, each in a `Vec` of its own.
fn copied_batches(sets: &[Vec<NewRecord<'static>>]) -> Vec<Vec<u8>> {
    sets.iter()
        .enumerate()
        .map(|(i, records)| {
            let mut buf = vec![0; 1024];
            let n = builder(i).write(records, &mut buf).unwrap();
            buf.truncate(n);
            buf
        })
        .collect()
}

/// A Produce request of the partitions `partitions`, its topic named both ways (the encode writes
/// the one its version carries).
fn produce<'a>(
    partitions: &'a [PartitionProduceData<'a>],
    topics: &'a mut Vec<TopicProduceData<'a>>,
) -> ProduceRequest<'a> {
    topics.push(
        TopicProduceData::default()
            .with_name("sensors")
            .with_topic_id(Uuid::from_u128(0x5e45_0125))
            .with_partition_data(partitions),
    );
    ProduceRequest::default()
        .with_acks(-1)
        .with_timeout_ms(5_000)
        .with_topic_data(topics.as_slice())
}

/// Runs `check` on two Produce requests of the same records (`record_sets`): the first holds
/// its batches built in buffers of their own (`copied_batches`), the second writes them in place.
fn copied_and_in_place(check: impl FnOnce(&ProduceRequest<'_>, &ProduceRequest<'_>)) {
    let sets = record_sets();
    let copied = copied_batches(&sets);
    let in_place: Vec<_> = sets
        .iter()
        .enumerate()
        .map(|(i, records)| NewBatch::new(builder(i), records.as_slice()))
        .collect();
    let by_copy = partitions(copied.iter().map(|b| Records::new(b)));
    let by_source = partitions(in_place.iter().map(|b| Records::in_place(b)));
    let (mut t1, mut t2) = (Vec::new(), Vec::new());
    check(&produce(&by_copy, &mut t1), &produce(&by_source, &mut t2));
}

/// One partition per record set, plus a last one with null records.
fn partitions<'a>(records: impl IntoIterator<Item = Records<'a>>) -> Vec<PartitionProduceData<'a>> {
    records
        .into_iter()
        .map(Some)
        .chain([None])
        .enumerate()
        .map(|(i, r)| {
            PartitionProduceData::default()
                .with_index(i32::try_from(i).unwrap())
                .with_records(r)
        })
        .collect()
}

/// Every version's frame, encoded both ways, is the same, and its batches read back with their
/// CRCs checked.
#[test]
fn a_batch_written_in_place_is_the_batch_copied_in() {
    let (sets, copied) = (record_sets(), copied_batches(&record_sets()));
    copied_and_in_place(|copy_body, source_body| {
        for version in 3..=13 {
            let header = RequestHeader::new(ApiKey::PRODUCE, version, 7).with_client_id(Some("c"));
            let mut expected = vec![0; 4096];
            let n = frame::encode_request(&header, copy_body, &mut expected).unwrap();
            expected.truncate(n);
            let mut out = vec![0xa5; 4096];
            let m = frame::encode_request(&header, source_body, &mut out).unwrap();
            assert_eq!(&out[..m], &expected[..], "version {version}");
            assert_eq!(frame::request_len(&header, source_body), Ok(n));
            assert_eq!(
                source_body.encoded_len(version),
                copy_body.encoded_len(version)
            );
            let mut body = vec![0; 4096];
            let b = source_body.encode(version, &mut body).unwrap();
            assert_eq!(copy_body.encode(version, &mut out), Ok(b));
            assert_eq!(&body[..b], &out[..b], "version {version}");

            let (_, Request::Produce(decoded)) = frame::decode_request(&expected).unwrap() else {
                panic!("a Produce request");
            };
            let topic = decoded.topic_data.iter().next().unwrap();
            for (i, p) in topic.partition_data.iter().enumerate() {
                let Some(records) = p.records else {
                    assert_eq!(i, 3);
                    continue;
                };
                let batch = RecordBatch::parse(records.as_bytes()).unwrap();
                assert_eq!(batch.records().unwrap().count(), sets[i].len());
                assert_eq!(records.as_bytes(), copied[i].as_slice());
            }
        }
    });
}

#[test]
fn a_buffer_too_small_says_how_long_the_frame_is() {
    copied_and_in_place(|_, body| {
        for version in [8, 11] {
            let header = RequestHeader::new(ApiKey::PRODUCE, version, 1);
            let len = frame::request_len(&header, body).unwrap();
            for available in [0, 10, 80, len - 300, len - 1] {
                let mut out = vec![0; available];
                assert_eq!(
                    frame::encode_request(&header, body, &mut out),
                    Err(EncodeError::BufferTooSmall {
                        required: len,
                        available
                    }),
                    "version {version}, {available} bytes"
                );
            }
            let mut out = vec![0; len];
            assert_eq!(frame::encode_request(&header, body, &mut out), Ok(len));
        }
    });
}

/// A session's client writes the batch where it goes in its output, as it writes bytes.
#[test]
fn through_a_session_client() {
    copied_and_in_place(|copy_body, source_body| {
        let mut frames = Vec::new();
        for body in [copy_body, source_body] {
            let mut client: Client<'_, 4> = Client::new(Some("c"));
            let mut out = [0u8; 2048];
            let sent = client.send_at(body, 11, &mut out).unwrap();
            assert!(sent.answered);
            frames.push(out[..sent.len].to_vec());
        }
        assert_eq!(frames[0], frames[1]);

        let mut client: Client<'_, 4> = Client::new(Some("c"));
        let mut small = [0u8; 100];
        assert_eq!(
            client.send_at(source_body, 11, &mut small),
            Err(SessionError::Encode(EncodeError::BufferTooSmall {
                required: frames[0].len(),
                available: 100
            }))
        );
        assert_eq!(client.in_flight(), 0);
    });
}

/// What a stream is sent: written down, and nothing to read.
struct Sent(Vec<u8>);

impl Write for Sent {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.extend_from_slice(buf);
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

impl Read for Sent {
    fn read(&mut self, _: &mut [u8]) -> std::io::Result<usize> {
        Ok(0)
    }
}

/// A blocking connection grows its send buffer to the length the encode asks for, and sends the
/// batch written in place.
#[test]
fn through_a_connection() {
    copied_and_in_place(|copy_body, source_body| {
        let (copy_body, source_body) = (copy_body.with_acks(0), source_body.with_acks(0));
        let mut wire = Vec::new();
        for body in [&copy_body, &source_body] {
            let client: Client<'_, 4> = Client::new(Some("c"));
            let mut conn = kwire::io::Connection::open(Sent(Vec::new()), client).unwrap();
            conn.send_at(body, 11).unwrap();
            wire.push(conn.into_inner().0);
        }
        assert!(wire[0].len() > 400);
        assert_eq!(wire[0], wire[1]);
    });
}

/// Writes `wrote` where it announced `announced`, or fails.
struct Liar {
    announced: Result<usize, EncodeError>,
    wrote: Result<usize, EncodeError>,
}

impl WriteRecords for Liar {
    fn encoded_len(&self) -> Result<usize, EncodeError> {
        self.announced
    }

    fn write(&self, out: &mut [u8]) -> Result<usize, EncodeError> {
        out.fill(0xee);
        self.wrote
    }
}

#[test]
fn a_source_that_writes_other_than_it_announced_is_refused() {
    let overflow = EncodeError::LengthOverflow {
        path: "NewRecord.key",
        length: 1 << 31,
    };
    for (liar, expected) in [
        (
            Liar {
                announced: Ok(10),
                wrote: Ok(9),
            },
            EncodeError::RecordsMiswritten,
        ),
        (
            Liar {
                announced: Ok(10),
                wrote: Ok(11),
            },
            EncodeError::RecordsMiswritten,
        ),
        (
            Liar {
                announced: Ok(10),
                wrote: Err(overflow),
            },
            EncodeError::RecordsMiswritten,
        ),
        (
            Liar {
                announced: Err(overflow),
                wrote: Ok(0),
            },
            overflow,
        ),
    ] {
        for version in [8, 9] {
            let partitions =
                [PartitionProduceData::default().with_records(Some(Records::in_place(&liar)))];
            let mut topics = Vec::new();
            let body = produce(&partitions, &mut topics);
            let header = RequestHeader::new(ApiKey::PRODUCE, version, 1);
            let mut out = [0u8; 256];
            assert_eq!(
                frame::encode_request(&header, &body, &mut out),
                Err(expected),
                "version {version}"
            );
            assert_eq!(body.encode(version, &mut out), Err(expected));
            let mut client: Client<'_, 4> = Client::new(None);
            assert_eq!(
                client.send_at(&body, version, &mut out),
                Err(SessionError::Encode(expected))
            );
        }
    }
    assert!(
        EncodeError::RecordsMiswritten
            .to_string()
            .contains("other than the length it announced")
    );
}

/// A message holding a batch written in place compares, prints and copies as a message does.
#[test]
fn messages_holding_one_compare_and_print() {
    let records = [NewRecord::new(b"v")];
    let (a, b) = (
        NewBatch::new(BatchBuilder::new(), &records[..]),
        NewBatch::new(BatchBuilder::new(), &records[..]),
    );
    let p = PartitionProduceData::default().with_records(Some(Records::in_place(&a)));
    let q = p;
    assert_eq!(p, q);
    assert_ne!(
        p,
        PartitionProduceData::default().with_records(Some(Records::in_place(&b)))
    );
    assert!(format!("{p:?}").contains("Records(in place, 69 bytes)"));
    let r = p.records.unwrap();
    assert!(r.as_bytes().is_empty() && r.batches().next().is_none());
    assert_eq!(r.source().map(|s| s.encoded_len()), Some(Ok(69)));
}

/// Any iterator that can be walked again is a batch's records: here a `map` building them from
/// readings, with no array of records at all.
#[test]
fn records_from_an_iterator() {
    let readings: [&[u8]; 3] = [b"20.1", b"20.4", b"20.9"];
    let records = readings
        .iter()
        .zip(0i64..)
        .map(|(v, i)| NewRecord::new(v).with_timestamp(1_000 + i));
    let batch = NewBatch::new(BatchBuilder::new(), records.clone());
    let mut buf = [0u8; 256];
    let n = BatchBuilder::new().write(records, &mut buf).unwrap();
    assert_eq!(batch.encoded_len(), Ok(n));
    let mut out = [0u8; 256];
    assert_eq!(batch.write(&mut out), Ok(n));
    assert_eq!(out[..n], buf[..n]);
}
