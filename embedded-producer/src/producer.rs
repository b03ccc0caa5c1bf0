//! The producer's whole path, `no_std` and without an allocator: every buffer is a fixed array
//! on the stack, every array to encode is a `heapless::Vec`, and every failure is a value.
//!
//! 1. ApiVersions: negotiate the versions of Metadata, Produce and Fetch.
//! 2. Metadata for the topic: its id and the partition's leader.
//! 3. Produce one record batch (keys, values, headers) with acks=all.
//! 4. Fetch from the offset the broker assigned and walk the records back, CRC checked.
//!
//! The network is a [`Transport`]: on a device, the TCP stack of the board; in this example,
//! responses recorded from a broker ([`Canned`]) or, on a host, a socket.

use heapless::{String, Vec};
use kwire::codec::{Decode, Message, Str, Uuid};
use kwire::frame::Body;
use kwire::messages::fetch_request::{FetchPartition, FetchTopic};
use kwire::messages::metadata_request::MetadataRequestTopic;
use kwire::messages::produce_request::{PartitionProduceData, TopicProduceData};
use kwire::messages::{
    FetchRequest, FetchResponse, MetadataRequest, MetadataResponse, ProduceRequest, ProduceResponse,
};
use kwire::records::{BatchBuilder, NewHeader, NewRecord, Records};
use kwire::session::{Client, Event, FrameBuffer, SessionError};
use kwire::{ApiKey, DecodeError, EncodeError, ErrorCode};

/// The topic written to.
pub const TOPIC: &str = "sensors";
/// The partition written to.
pub const PARTITION: i32 = 0;
/// Records per batch.
pub const RECORDS: usize = 3;
/// Bytes of the largest response frame this producer accepts.
pub const MAX_RESPONSE: usize = 2048;

pub(crate) const CLIENT_ID: &str = "embedded-producer";

/// The user a `sasl` build logs in as, with SCRAM-SHA-256. A device keeps its credentials in
/// its provisioned storage; these are the recorded run's.
#[cfg(feature = "sasl")]
pub const SASL_USER: &str = "firmware";
/// The password of [`SASL_USER`].
#[cfg(feature = "sasl")]
pub const SASL_PASSWORD: &str = "firmware-secret";
/// The SCRAM client nonce. A device takes it fresh from its random source for every
/// connection; here it is fixed, so that the recorded responses (whose proof and signature
/// depend on it) replay.
#[cfg(feature = "sasl")]
pub const SASL_NONCE: &[u8] = b"c2Vuc29yLW5vZGUtMDAwMQ";
/// The ApiVersions version sent (the one every broker since Kafka 2.4 knows).
pub(crate) const API_VERSIONS_VERSION: i16 = 3;

/// Sends one request frame and receives the whole response frame into `response`.
pub trait Transport {
    /// The transport's own failure.
    type Error;

    /// Sends `request` (a whole frame) and writes the whole response frame into `response`,
    /// returning its length.
    ///
    /// # Errors
    ///
    /// The transport's own.
    fn exchange(&mut self, request: &[u8], response: &mut [u8]) -> Result<usize, Self::Error>;
}

/// Why the producer stopped.
#[derive(Debug)]
pub enum Error<T> {
    /// The transport failed.
    Transport(T),
    /// The record batch did not encode.
    Encode(EncodeError),
    /// The records fetched did not decode.
    Decode(DecodeError),
    /// The session failed: a request that did not encode, a response that did not decode or
    /// answers no request, version negotiation that failed, an API the broker does not speak.
    Session(SessionError),
    /// The broker answered with a Kafka error code.
    Kafka(ApiKey, ErrorCode),
    /// A response lacked what was asked for, or records came back different.
    Unexpected(&'static str),
}

impl<T: core::fmt::Debug> core::fmt::Display for Error<T> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            Self::Transport(e) => write!(f, "transport: {e:?}"),
            Self::Encode(e) => write!(f, "encoding the record batch: {e}"),
            Self::Decode(e) => write!(f, "decoding the records fetched: {e}"),
            Self::Session(e) => write!(f, "{e}"),
            Self::Kafka(key, code) => write!(f, "{key}: {code}"),
            Self::Unexpected(what) => f.write_str(what),
        }
    }
}

impl<T> From<EncodeError> for Error<T> {
    fn from(e: EncodeError) -> Self {
        Self::Encode(e)
    }
}

impl<T> From<DecodeError> for Error<T> {
    fn from(e: DecodeError) -> Self {
        Self::Decode(e)
    }
}

impl<T> From<SessionError> for Error<T> {
    fn from(e: SessionError) -> Self {
        Self::Session(e)
    }
}

/// What the run did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Summary {
    /// The versions sent: Metadata, Produce, Fetch.
    pub versions: [i16; 3],
    /// The topic's id.
    pub topic_id: Uuid,
    /// The partition's leader.
    pub leader: i32,
    /// The base offset the broker assigned to the batch.
    pub base_offset: i64,
    /// Bytes of the batch produced.
    pub batch_len: usize,
    /// Records read back, each equal to the one sent.
    pub records_read: usize,
    /// The high watermark the Fetch reported.
    pub high_watermark: i64,
}

/// One connection: kwire's session (correlation ids, the negotiated versions, the request in
/// flight), the request buffer and the receive buffer.
struct Connection<'t, T> {
    transport: &'t mut T,
    session: Client<'static, 1>,
    request: [u8; 1024],
    rx: FrameBuffer<&'t mut [u8; MAX_RESPONSE]>,
}

impl<T: Transport> Connection<'_, T> {
    /// Negotiates versions: the session's ApiVersions request, again at the version the broker
    /// names if it does not know the one sent; then, with the `sasl` feature, logs in.
    fn negotiate(&mut self) -> Result<(), Error<T::Error>> {
        while let Some(n) = self.session.poll_transmit(&mut self.request)? {
            match self.exchange(n)? {
                Some(Event::Ready) => return Ok(()),
                Some(Event::Retry { .. } | Event::Authenticating) => {}
                _ => break,
            }
        }
        Err(Error::Unexpected("no answer to ApiVersions"))
    }

    /// Encodes `body` at `version`, the one the session negotiated for its API, exchanges it,
    /// and decodes the response as `R`, matched to the request by the session.
    fn call<'s, B: Body, R: Message + Decode<'s>>(
        &'s mut self,
        body: &B,
        version: i16,
    ) -> Result<R, Error<T::Error>> {
        let sent = self.session.send_at(body, version, &mut self.request)?;
        match self.exchange(sent.len)? {
            Some(Event::Response(answer)) => Ok(answer.decode_as()?),
            _ => Err(Error::Unexpected("no response")),
        }
    }

    /// Sends the `n`-byte request frame, receives the response into the receive buffer and
    /// hands it to the session. Not generic over the body, so one copy serves every request.
    fn exchange(&mut self, n: usize) -> Result<Option<Event<'_>>, Error<T::Error>> {
        let request = self
            .request
            .get(..n)
            .ok_or(Error::Unexpected("request length"))?;
        let m = self
            .transport
            .exchange(request, self.rx.spare())
            .map_err(Error::Transport)?;
        self.rx.filled(m);
        Ok(self.session.receive(&mut self.rx)?)
    }
}

/// The values of the records: a reading per record, `temperature=20.0C` and on, formatted
/// without an allocator and without `core::fmt` (whose machinery costs firmware over a
/// kilobyte of flash).
pub(crate) fn readings() -> Vec<String<24>, RECORDS> {
    let mut out = Vec::new();
    for i in 0..RECORDS {
        let mut s = String::new();
        // 24 bytes always hold this text.
        let _ = s.push_str("temperature=");
        push_decimal(&mut s, 20 + i);
        let _ = s.push('.');
        push_decimal(&mut s, i * 3 % 10);
        let _ = s.push('C');
        let _ = out.push(s);
    }
    out
}

/// Appends `n` in decimal to `s` (as far as it fits).
fn push_decimal<const N: usize>(s: &mut String<N>, n: usize) {
    if n >= 10 {
        push_decimal(s, n / 10);
    }
    let digit = u8::try_from(n % 10).unwrap_or(0);
    let _ = s.push(char::from(b'0' + digit));
}

/// The batch's settings: a plain batch (no producer id, not transactional). A static, so that
/// the encoder reads constants where a builder on the stack takes stores (and the `memset` its
/// run of -1 fields turns into).
static PLAIN_BATCH: BatchBuilder = BatchBuilder::new();

/// The session: negotiating versions, and with the `sasl` feature logging in.
fn session() -> Client<'static, 1> {
    let client = Client::negotiating(Some(CLIENT_ID))
        .with_software(CLIENT_ID, "0.1.0")
        .with_api_versions_version(API_VERSIONS_VERSION)
        .with_correlation_id(1);
    #[cfg(feature = "sasl")]
    let client = client.with_sasl(kwire::session::sasl::Credentials::scram_sha256(
        SASL_USER,
        SASL_PASSWORD,
        SASL_NONCE,
    ));
    client
}

/// Runs the whole path over `transport`.
///
/// # Errors
///
/// The first failure, as an [`Error`].
pub fn run<T: Transport>(transport: &mut T) -> Result<Summary, Error<T::Error>> {
    let mut received = [0; MAX_RESPONSE];
    let mut s = Connection {
        transport,
        // The recorded responses answer correlation ids from 1 on.
        session: session(),
        request: [0; 1024],
        rx: FrameBuffer::new(&mut received),
    };

    // 1. ApiVersions.
    s.negotiate()?;
    let version = |key: ApiKey| s.session.version(key);
    let versions = [
        version(ApiKey::METADATA)?,
        version(ApiKey::PRODUCE)?,
        version(ApiKey::FETCH)?,
    ];
    let [metadata_v, produce_v, fetch_v] = versions;

    // 2. Metadata: the topic id (Produce and Fetch name topics by id from v13) and the leader.
    let topics = [MetadataRequestTopic::default().with_name(Some(TOPIC))];
    let request = MetadataRequest::default()
        .with_topics(&topics)
        .with_allow_auto_topic_creation(true);
    let metadata: MetadataResponse<'_> = s.call(&request, metadata_v)?;
    let topic = metadata
        .topics
        .iter()
        .find(|t| t.name == Some(Str::new(TOPIC)))
        .ok_or(Error::Unexpected(
            "the topic is not in the Metadata response",
        ))?;
    if topic.error_code != ErrorCode::NONE {
        return Err(Error::Kafka(ApiKey::METADATA, ErrorCode(topic.error_code)));
    }
    let topic_id = topic.topic_id;
    let leader = topic
        .partitions
        .iter()
        .find(|p| p.partition_index == PARTITION)
        .map(|p| p.leader_id)
        .ok_or(Error::Unexpected(
            "the partition is not in the Metadata response",
        ))?;

    // 3. Produce: one batch built in a stack buffer.
    let values = readings();
    let headers = [
        NewHeader::new(b"unit", b"celsius"),
        NewHeader::new(b"device", b"board-7"),
    ];
    let mut records: Vec<NewRecord<'_>, RECORDS> = Vec::new();
    for (i, v) in values.iter().enumerate() {
        let record = NewRecord {
            key: Some(b"board-7"),
            value: Some(v.as_bytes()),
            headers: &headers,
            timestamp: 1_700_000_000_000 + i64::from(u8::try_from(i).unwrap_or(0)),
        };
        let _ = records.push(record);
    }
    let mut batch = [0u8; 512];
    let batch_len = PLAIN_BATCH.write(records.iter(), &mut batch)?;
    let batch = batch
        .get(..batch_len)
        .ok_or(Error::Unexpected("batch length"))?;

    let mut partitions: Vec<PartitionProduceData<'_>, 1> = Vec::new();
    let _ = partitions.push(
        PartitionProduceData::default()
            .with_index(PARTITION)
            .with_records(Some(Records::new(batch))),
    );
    // By name and by id: the encode writes the one the version carries (the id from v13).
    let topics = [TopicProduceData::default()
        .with_name(TOPIC)
        .with_topic_id(topic_id)
        .with_partition_data(&partitions)];
    let request = ProduceRequest::default()
        .with_acks(-1)
        .with_timeout_ms(5_000)
        .with_topic_data(&topics);
    let produced: ProduceResponse<'_> = s.call(&request, produce_v)?;
    let part = produced
        .responses
        .iter()
        .find_map(|t| t.partition_responses.iter().find(|p| p.index == PARTITION))
        .ok_or(Error::Unexpected(
            "the partition is not in the Produce response",
        ))?;
    if part.error_code != ErrorCode::NONE {
        return Err(Error::Kafka(ApiKey::PRODUCE, ErrorCode(part.error_code)));
    }
    let base_offset = part.base_offset;

    // 4. Fetch the batch back and compare every record.
    let partitions = [FetchPartition::default()
        .with_partition(PARTITION)
        .with_fetch_offset(base_offset)
        .with_partition_max_bytes(1024)];
    let topics = [FetchTopic::default()
        .with_topic(TOPIC)
        .with_topic_id(topic_id)
        .with_partitions(&partitions)];
    let request = FetchRequest::default()
        .with_max_wait_ms(500)
        .with_min_bytes(1)
        .with_max_bytes(1024)
        .with_topics(&topics);
    let fetched: FetchResponse<'_> = s.call(&request, fetch_v)?;
    let data = fetched
        .responses
        .iter()
        .find_map(|t| t.partitions.iter().find(|p| p.partition_index == PARTITION))
        .ok_or(Error::Unexpected(
            "the partition is not in the Fetch response",
        ))?;
    if data.error_code != ErrorCode::NONE {
        return Err(Error::Kafka(ApiKey::FETCH, ErrorCode(data.error_code)));
    }
    let mut records_read = 0;
    // Version 2 batches only: a legacy message is an error, and its reader is not linked.
    for batch in data.records.unwrap_or_default().record_batches() {
        let batch = batch?;
        // CRC checked first.
        for record in batch.records()? {
            let record = record?;
            let Some(i) = record
                .offset()
                .checked_sub(base_offset)
                .and_then(|d| usize::try_from(d).ok())
            else {
                continue;
            };
            let sent = records
                .get(i)
                .ok_or(Error::Unexpected("a record that was not produced"))?;
            let same_headers = record
                .headers()
                .iter()
                .map(|h| (h.key(), h.value()))
                .eq(sent.headers.iter().map(|h| (h.key, h.value)));
            if record.key() != sent.key
                || record.value() != sent.value
                || record.timestamp() != sent.timestamp
                || !same_headers
            {
                return Err(Error::Unexpected("a record came back different"));
            }
            records_read += 1;
        }
    }
    if records_read != RECORDS {
        return Err(Error::Unexpected("not every record came back"));
    }
    Ok(Summary {
        versions,
        topic_id,
        leader,
        base_offset,
        batch_len,
        records_read,
        high_watermark: data.high_watermark,
    })
}

/// Responses recorded from a broker, replayed in order.
#[derive(Debug)]
pub struct Canned<'a> {
    responses: &'a [&'a [u8]],
    next: usize,
}

impl<'a> Canned<'a> {
    /// Replays `responses`, one per exchange.
    #[must_use]
    pub const fn new(responses: &'a [&'a [u8]]) -> Self {
        Self { responses, next: 0 }
    }
}

/// Why a canned exchange failed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CannedError {
    /// More requests than recorded responses.
    Exhausted,
    /// A recorded response is larger than the buffer.
    TooLarge,
}

impl Transport for Canned<'_> {
    type Error = CannedError;

    fn exchange(&mut self, _request: &[u8], response: &mut [u8]) -> Result<usize, CannedError> {
        let recorded = self
            .responses
            .get(self.next)
            .ok_or(CannedError::Exhausted)?;
        self.next += 1;
        let dst = response
            .get_mut(..recorded.len())
            .ok_or(CannedError::TooLarge)?;
        // Element by element, not `copy_from_slice`: its length check is a panic path that
        // `opt-level = "z"` leaves in.
        for (d, s) in dst.iter_mut().zip(*recorded) {
            *d = *s;
        }
        Ok(recorded.len())
    }
}

/// The exchanges of the SASL login between ApiVersions and Metadata (feature `sasl`):
/// SaslHandshake, and SCRAM's two SaslAuthenticate messages. (Host builds read it.)
#[cfg(not(target_os = "none"))]
pub const SASL_EXCHANGES: usize = if cfg!(feature = "sasl") { 3 } else { 0 };

/// The responses of a mini broker run, recorded with `embedded-producer --broker ADDR --save
/// DIR` on a host, one per exchange, and their files' names.
#[cfg(not(feature = "sasl"))]
pub const RECORDED: [&[u8]; 4] = [
    include_bytes!("../data/api_versions.bin"),
    include_bytes!("../data/metadata.bin"),
    include_bytes!("../data/produce.bin"),
    include_bytes!("../data/fetch.bin"),
];

/// The file names of [`RECORDED`], in order. (Host builds save them.)
#[cfg(all(not(feature = "sasl"), not(target_os = "none")))]
pub const NAMES: [&str; 4] = ["api_versions", "metadata", "produce", "fetch"];

/// The responses of a mini broker run that required SASL (`--sasl` with the user
/// [`SASL_USER`]), recorded as [`RECORDED`] is without the feature.
#[cfg(feature = "sasl")]
pub const RECORDED: [&[u8]; 7] = [
    include_bytes!("../data/sasl/api_versions.bin"),
    include_bytes!("../data/sasl/sasl_handshake.bin"),
    include_bytes!("../data/sasl/scram_server_first.bin"),
    include_bytes!("../data/sasl/scram_server_final.bin"),
    include_bytes!("../data/sasl/metadata.bin"),
    include_bytes!("../data/sasl/produce.bin"),
    include_bytes!("../data/sasl/fetch.bin"),
];

/// The file names of [`RECORDED`], in order. (Host builds save them.)
#[cfg(all(feature = "sasl", not(target_os = "none")))]
pub const NAMES: [&str; 7] = [
    "api_versions",
    "sasl_handshake",
    "scram_server_first",
    "scram_server_final",
    "metadata",
    "produce",
    "fetch",
];
