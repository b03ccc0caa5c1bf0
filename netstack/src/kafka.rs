//! The Kafka side, the same over every transport: kwire's session over a [`Transport`], the
//! version negotiation, the topic's metadata, the pipelined produce loop and the fetch loop
//! that checks every record.

use std::time::{Duration, Instant};

use kwire::codec::{Array, Str, Uuid};
use kwire::frame::Body;
use kwire::messages::create_topics_request::CreatableTopic;
use kwire::messages::fetch_request::{FetchPartition, FetchTopic};
use kwire::messages::metadata_request::MetadataRequestTopic;
use kwire::messages::produce_request::{PartitionProduceData, TopicProduceData};
use kwire::messages::{
    CreateTopicsRequest, CreateTopicsResponse, FetchRequest, FetchResponse, MetadataRequest,
    MetadataResponse, ProduceRequest, ProduceResponse,
};
use kwire::records::{BatchBuilder, NewRecord, Records};
use kwire::session::sasl::Credentials;
use kwire::session::{Client, Event, FrameBuffer, Sent, SessionError};
use kwire::{ApiKey, EncodeError, ErrorCode};

use crate::data::Dataset;
use crate::error::Error;
use crate::transport::Transport;

/// Requests in flight at once, at most.
pub const IN_FLIGHT: usize = 8;
/// The client id sent in every request header.
const CLIENT_ID: &str = "kwire-netstack";
/// The partition written and read.
const PARTITION: i32 = 0;
/// How long the broker may hold a Fetch that finds no new records.
const FETCH_MAX_WAIT_MS: i32 = 500;
/// How long the broker may take to replicate a Produce (acks=-1).
const PRODUCE_TIMEOUT_MS: i32 = 30_000;

/// One connection: a transport, kwire's session on it, the receive buffer responses are cut
/// from, and the send buffer requests are encoded into and sent from.
#[derive(Debug)]
pub struct Conn<T> {
    /// The byte stream.
    net: T,
    /// Correlation ids, requests in flight, versions.
    session: Client<'static, IN_FLIGHT>,
    /// Bytes received, cut into frames.
    rx: FrameBuffer<Vec<u8>>,
    /// Requests encoded, the bytes `tx_start..tx_end` not yet taken by the transport.
    tx: Vec<u8>,
    /// The first byte staged and not yet taken.
    tx_start: usize,
    /// The end of the bytes staged.
    tx_end: usize,
    /// How long a wait for one response, or for the transport to take the bytes staged, may
    /// last.
    timeout: Duration,
    /// The highest version Produce and Fetch are sent at, when lower than the negotiated one.
    max_version: Option<i16>,
}

impl<T: Transport> Conn<T> {
    /// A negotiating session over `net`, with a receive buffer of `rx_bytes` (the largest
    /// response frame, size prefix included) and a send buffer of `tx_bytes` (room for the
    /// requests in flight).
    #[must_use]
    pub fn new(net: T, rx_bytes: usize, tx_bytes: usize, timeout: Duration) -> Self {
        Self {
            net,
            session: Client::negotiating(Some(CLIENT_ID)),
            rx: FrameBuffer::new(vec![0; rx_bytes]),
            tx: vec![0; tx_bytes],
            tx_start: 0,
            tx_end: 0,
            timeout,
            max_version: None,
        }
    }

    /// Authenticates with `credentials` after the ApiVersions exchange.
    #[must_use]
    pub fn with_sasl(mut self, credentials: Credentials<'static>) -> Self {
        self.session = self.session.with_sasl(credentials);
        self
    }

    /// Sends Produce and Fetch at `max` at most (within the versions both sides speak), to
    /// exercise the versions before topic ids.
    #[must_use]
    pub fn with_max_version(mut self, max: Option<i16>) -> Self {
        self.max_version = max;
        self
    }

    /// The version `key` is sent at: the highest both sides speak, or for Produce and Fetch
    /// the cap if lower.
    ///
    /// # Errors
    ///
    /// The session's, before negotiation or when no version is common.
    pub fn version(&self, key: ApiKey) -> Result<i16, Error> {
        let common = self.session.common(key)?;
        let capped = key == ApiKey::PRODUCE || key == ApiKey::FETCH;
        let cap = self.max_version.filter(|_| capped).unwrap_or(common.max);
        Ok(cap.min(common.max).max(common.min))
    }

    /// Starts the send buffer over once the transport has taken every byte staged.
    fn rewind(&mut self) {
        if self.tx_start == self.tx_end {
            self.tx_start = 0;
            self.tx_end = 0;
        }
    }

    /// Encodes a request for `body` after the bytes staged, at [`Conn::version`], and
    /// remembers it in the session until its response comes. When the room left is too small,
    /// sends what is staged first.
    ///
    /// # Errors
    ///
    /// The session's ([`SessionError::TooManyInFlight`] with [`IN_FLIGHT`] requests waiting);
    /// the transport's.
    pub fn stage<B: Body>(&mut self, body: &B) -> Result<Sent, Error> {
        let version = self.version(body.body_api_key())?;
        self.rewind();
        let out = self.tx.get_mut(self.tx_end..).unwrap_or_default();
        let sent = match self.session.send_at(body, version, out) {
            Err(SessionError::Encode(EncodeError::BufferTooSmall { .. })) if self.tx_end > 0 => {
                self.drain()?;
                self.rewind();
                let out = self.tx.get_mut(self.tx_end..).unwrap_or_default();
                self.session.send_at(body, version, out)?
            }
            sent => sent?,
        };
        self.tx_end = self.tx_end.saturating_add(sent.len);
        Ok(sent)
    }

    /// Hands the transport as many staged bytes as it takes now.
    ///
    /// # Errors
    ///
    /// The transport's.
    pub fn flush(&mut self) -> Result<(), Error> {
        while self.tx_start < self.tx_end {
            let staged = self.tx.get(self.tx_start..self.tx_end).unwrap_or_default();
            let n = self.net.send(staged)?;
            if n == 0 {
                break;
            }
            self.tx_start = self.tx_start.saturating_add(n).min(self.tx_end);
        }
        Ok(())
    }

    /// Sends every staged byte, driving the transport until it has taken them.
    fn drain(&mut self) -> Result<(), Error> {
        let start = Instant::now();
        loop {
            self.flush()?;
            if self.tx_start == self.tx_end {
                return Ok(());
            }
            self.net.drive(true)?;
            if start.elapsed() > self.timeout {
                return Err(self.timed_out("room to send requests"));
            }
        }
    }

    /// One round: staged bytes out, the transport driven, received bytes into the receive
    /// buffer's spare room.
    fn pump(&mut self) -> Result<(), Error> {
        self.flush()?;
        self.net.drive(self.tx_start < self.tx_end)?;
        self.flush()?;
        let n = self.net.recv(self.rx.spare())?;
        self.rx.filled(n);
        Ok(())
    }

    /// Waits for the next whole frame and hands it to the session: the response to the
    /// oldest request in flight, or the session's own event.
    ///
    /// # Errors
    ///
    /// [`Error::Timeout`] naming `what`; the session's; the transport's.
    pub fn next_event(&mut self, what: &'static str) -> Result<Event<'_>, Error> {
        let start = Instant::now();
        while self.rx.missing()? > 0 {
            self.pump()?;
            if start.elapsed() > self.timeout {
                return Err(self.timed_out(what));
            }
        }
        self.session.receive(&mut self.rx)?.ok_or(Error::Unexpected(
            "a whole frame that the session did not take",
        ))
    }

    /// A timeout of this connection, waiting for `what`.
    fn timed_out(&self, what: &'static str) -> Error {
        Error::Timeout {
            what,
            secs: self.timeout.as_secs(),
        }
    }

    /// The ApiVersions exchange: the session's own request, again at the version the broker
    /// names if it does not know the one sent (and at version 0 if it names none).
    ///
    /// # Errors
    ///
    /// The session's ([`SessionError::Negotiate`]); the transport's.
    pub fn negotiate(&mut self) -> Result<(), Error> {
        // ApiVersions and its retries, and the steps of an authentication.
        for _ in 0..8 {
            self.rewind();
            let out = self.tx.get_mut(self.tx_end..).unwrap_or_default();
            if let Some(n) = self.session.poll_transmit(out)? {
                self.tx_end = self.tx_end.saturating_add(n);
            }
            match self.next_event("ApiVersions response")? {
                Event::Ready => return Ok(()),
                Event::Retry { .. } | Event::Authenticating => {}
                Event::Response(_) => {
                    return Err(Error::Unexpected(
                        "a response before the ApiVersions answer",
                    ));
                }
            }
        }
        Err(Error::Unexpected(
            "the broker refused every ApiVersions version",
        ))
    }

    /// Closes the connection, once every request was answered and every byte received was
    /// read.
    ///
    /// # Errors
    ///
    /// The session's ([`SessionError::Unanswered`], [`SessionError::ClosedMidFrame`]); the
    /// transport's.
    pub fn close(&mut self) -> Result<(), Error> {
        self.session.finish(&self.rx)?;
        self.net.close(Duration::from_secs(2))
    }
}

/// The topic written and read, as the broker described it.
#[derive(Debug, Clone)]
pub struct Target {
    /// Its name.
    pub name: String,
    /// Its id (Produce v13 and Fetch v13 and later name topics by id).
    pub id: Uuid,
    /// Partition 0's leader: node id, host and port.
    pub leader: (i32, String, i32),
}

/// Creates `topic` with one partition, or finds it there already: a broker that does not
/// create topics from Metadata requests (tansu does not) has it then. A broker that does not
/// serve CreateTopics is left to create it from the Metadata request.
///
/// # Errors
///
/// [`Error::Kafka`] for an error other than `TOPIC_ALREADY_EXISTS`; [`Error::Unexpected`] for
/// a response without the topic.
pub fn create_topic<T: Transport>(conn: &mut Conn<T>, topic: &str) -> Result<(), Error> {
    if conn.version(ApiKey::CREATE_TOPICS).is_err() {
        return Ok(());
    }
    let topics = [CreatableTopic::default()
        .with_name(topic)
        .with_num_partitions(1)
        .with_replication_factor(-1)];
    let request = CreateTopicsRequest::default()
        .with_topics(Array::from(&topics))
        .with_timeout_ms(10_000);
    conn.stage(&request)?;
    let Event::Response(answer) = conn.next_event("CreateTopics response")? else {
        return Err(Error::Unexpected("no CreateTopics response"));
    };
    let response: CreateTopicsResponse<'_> = answer.decode_as()?;
    let found = response
        .topics
        .iter()
        .find(|t| t.name == Str::new(topic))
        .ok_or(Error::Unexpected(
            "the topic is not in the CreateTopics response",
        ))?;
    match ErrorCode(found.error_code) {
        ErrorCode::NONE | ErrorCode::TOPIC_ALREADY_EXISTS => Ok(()),
        code => Err(Error::Kafka(ApiKey::CREATE_TOPICS, code)),
    }
}

/// Asks Metadata for `topic`, creating it if the broker allows, until partition 0 has a
/// leader (a broker that has just created a topic may answer LEADER_NOT_AVAILABLE a while).
///
/// # Errors
///
/// [`Error::Kafka`] for the topic's error that lasts; [`Error::Unexpected`] for a response
/// without the topic, its partition or its leader.
pub fn metadata<T: Transport>(conn: &mut Conn<T>, topic: &str) -> Result<Target, Error> {
    let mut tries = 0;
    loop {
        tries += 1;
        let topics = [MetadataRequestTopic::default().with_name(Some(topic))];
        let request = MetadataRequest::default()
            .with_topics(&topics)
            .with_allow_auto_topic_creation(true);
        conn.stage(&request)?;
        let Event::Response(answer) = conn.next_event("Metadata response")? else {
            return Err(Error::Unexpected("no Metadata response"));
        };
        let response: MetadataResponse<'_> = answer.decode_as()?;
        let found = response
            .topics
            .iter()
            .find(|t| t.name == Some(Str::new(topic)))
            .ok_or(Error::Unexpected(
                "the topic is not in the Metadata response",
            ))?;
        let code = ErrorCode(found.error_code);
        let retriable = code == ErrorCode::LEADER_NOT_AVAILABLE
            || code == ErrorCode::UNKNOWN_TOPIC_OR_PARTITION;
        if code != ErrorCode::NONE && !(retriable && tries < 40) {
            return Err(Error::Kafka(ApiKey::METADATA, code));
        }
        let leader = found
            .partitions
            .iter()
            .find(|p| p.partition_index == PARTITION)
            .map(|p| p.leader_id)
            .filter(|&id| id >= 0);
        match leader {
            Some(id) if code == ErrorCode::NONE => {
                let broker = response
                    .brokers
                    .iter()
                    .find(|b| b.node_id == id)
                    .ok_or(Error::Unexpected("the leader is not among the brokers"))?;
                let host = broker
                    .host
                    .to_str()
                    .map_err(|_| Error::Unexpected("the leader's host is not UTF-8"))?;
                return Ok(Target {
                    name: topic.to_owned(),
                    id: found.topic_id,
                    leader: (id, host.to_owned(), broker.port),
                });
            }
            _ if tries < 40 => std::thread::sleep(Duration::from_millis(250)),
            _ => return Err(Error::Unexpected("partition 0 has no leader")),
        }
    }
}

/// Produces `records` to partition 0 in batches of `batch` records (acks=-1), with up to
/// [`IN_FLIGHT`] Produce requests in flight, each batch written into `scratch` (as large as
/// the largest batch). Returns the offset of the first record; checks that the broker put the
/// batches one after the other.
///
/// # Errors
///
/// [`Error::Kafka`] for a batch the broker refused; [`Error::Unexpected`] for a response
/// without the partition or with an offset out of sequence; the session's and the transport's.
pub fn produce<T: Transport>(
    conn: &mut Conn<T>,
    target: &Target,
    records: &[NewRecord<'_>],
    batch: usize,
    scratch: &mut [u8],
) -> Result<i64, Error> {
    let version = conn.version(ApiKey::PRODUCE)?;
    let by_id = version >= 13;
    let mut batches = records.chunks(batch.max(1));
    let total = batches.len();
    let (mut sent, mut acked) = (0usize, 0usize);
    let mut first = None;
    let mut next_offset = 0i64;
    while acked < total {
        // Fill the window: each batch built, framed and staged behind the ones before.
        while sent < total && conn.session.in_flight() < IN_FLIGHT {
            let Some(chunk) = batches.next() else { break };
            let len = BatchBuilder::new().write(chunk.iter(), scratch)?;
            let bytes = scratch.get(..len).unwrap_or_default();
            let partitions = [PartitionProduceData::default()
                .with_index(PARTITION)
                .with_records(Some(Records::new(bytes)))];
            let topics = [TopicProduceData::default()
                .with_name(&target.name)
                .with_topic_id(target.id)
                .with_partition_data(&partitions)];
            let request = ProduceRequest::default()
                .with_acks(-1)
                .with_timeout_ms(PRODUCE_TIMEOUT_MS)
                .with_topic_data(&topics);
            conn.stage(&request)?;
            sent += 1;
        }
        conn.flush()?;
        // The oldest request's response: Kafka answers a connection's requests in order.
        let Event::Response(answer) = conn.next_event("Produce response")? else {
            return Err(Error::Unexpected("a session event amid Produce responses"));
        };
        let response: ProduceResponse<'_> = answer.decode_as()?;
        let topic = response
            .responses
            .iter()
            .find(|t| {
                if by_id {
                    t.topic_id == target.id
                } else {
                    t.name == target.name.as_str()
                }
            })
            .ok_or(Error::Unexpected(
                "the topic is not in the Produce response",
            ))?;
        let partition = topic
            .partition_responses
            .iter()
            .find(|p| p.index == PARTITION)
            .ok_or(Error::Unexpected(
                "the partition is not in the Produce response",
            ))?;
        if partition.error_code != ErrorCode::NONE {
            return Err(Error::Kafka(
                ApiKey::PRODUCE,
                ErrorCode(partition.error_code),
            ));
        }
        let base = partition.base_offset;
        if first.is_some() && base != next_offset {
            return Err(Error::Unexpected(
                "a batch was not put right after the one before",
            ));
        }
        first.get_or_insert(base);
        let count = records
            .len()
            .saturating_sub(acked.saturating_mul(batch))
            .min(batch);
        next_offset = base.saturating_add(i64::try_from(count).unwrap_or(i64::MAX));
        acked += 1;
    }
    first.ok_or(Error::Unexpected("no record was produced"))
}

/// Fetches partition 0 from `first` until every record of `data` has come back, in order
/// and equal to the one produced (key, value, timestamp, headers; each batch's CRC checked),
/// with up to `max_bytes` per response. Then checks that the partition ends there.
///
/// # Errors
///
/// [`Error::Mismatch`] for a record that differs or an offset out of sequence;
/// [`Error::Unexpected`] when the partition ends before every record came back, or holds
/// more; [`Error::Timeout`] when no record comes for the connection's timeout; the broker's,
/// the session's and the transport's.
pub fn consume<T: Transport>(
    conn: &mut Conn<T>,
    target: &Target,
    data: &Dataset,
    first: i64,
    max_bytes: i32,
) -> Result<(), Error> {
    let version = conn.version(ApiKey::FETCH)?;
    let by_id = version >= 13;
    let count = i64::try_from(data.len()).unwrap_or(i64::MAX);
    let end = first.saturating_add(count);
    let mut offset = first;
    let mut high_watermark;
    let mut progress = Instant::now();
    loop {
        let partitions = [FetchPartition::default()
            .with_partition(PARTITION)
            .with_fetch_offset(offset)
            .with_partition_max_bytes(max_bytes)];
        let topics = [FetchTopic::default()
            .with_topic(&target.name)
            .with_topic_id(target.id)
            .with_partitions(&partitions)];
        let request = FetchRequest::default()
            .with_max_wait_ms(FETCH_MAX_WAIT_MS)
            .with_min_bytes(1)
            .with_max_bytes(max_bytes)
            .with_topics(&topics);
        conn.stage(&request)?;
        conn.flush()?;
        let timeout = conn.timeout;
        let Event::Response(answer) = conn.next_event("Fetch response")? else {
            return Err(Error::Unexpected("a session event amid Fetch responses"));
        };
        let response: FetchResponse<'_> = answer.decode_as()?;
        if response.error_code != ErrorCode::NONE {
            return Err(Error::Kafka(ApiKey::FETCH, ErrorCode(response.error_code)));
        }
        let partition = response
            .responses
            .iter()
            .filter(|t| {
                if by_id {
                    t.topic_id == target.id
                } else {
                    t.topic == target.name.as_str()
                }
            })
            .flat_map(|t| t.partitions.iter())
            .find(|p| p.partition_index == PARTITION)
            .ok_or(Error::Unexpected(
                "the partition is not in the Fetch response",
            ))?;
        if partition.error_code != ErrorCode::NONE {
            return Err(Error::Kafka(ApiKey::FETCH, ErrorCode(partition.error_code)));
        }
        high_watermark = partition.high_watermark;
        let before = offset;
        // A partial last batch (the response was cut at its size limit) is fetched again.
        for batch in partition.records.unwrap_or_default().record_batches() {
            let batch = batch?;
            for record in batch.records()? {
                let record = record?;
                let at = record.offset();
                if at < offset {
                    // A batch that starts before the offset asked for.
                    continue;
                }
                if at != offset {
                    return Err(Error::Mismatch {
                        offset: at,
                        field: "offset",
                    });
                }
                if at >= end {
                    return Err(Error::Unexpected(
                        "the partition holds records after those produced",
                    ));
                }
                let i = usize::try_from(at.saturating_sub(first)).unwrap_or(usize::MAX);
                data.check(i, &record)
                    .map_err(|field| Error::Mismatch { offset: at, field })?;
                offset = at.saturating_add(1);
            }
            offset = offset.max(batch.next_offset());
        }
        if offset >= end {
            break;
        }
        if high_watermark < end {
            return Err(Error::Unexpected(
                "the partition ends before every record produced",
            ));
        }
        if offset > before {
            progress = Instant::now();
        } else if progress.elapsed() > timeout {
            return Err(Error::Timeout {
                what: "record fetched",
                secs: timeout.as_secs(),
            });
        }
    }
    if offset != end || high_watermark != end {
        return Err(Error::Unexpected(
            "the partition holds records after those produced",
        ));
    }
    Ok(())
}
