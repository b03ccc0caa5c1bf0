//! The broker: connections, request dispatch and the handlers of every API it serves.

use std::borrow::Cow;
use std::io::{self, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use kwire::codec::{Array, Str, Uuid, VersionRange};
use kwire::frame::{self, Body, RequestInfo};
use kwire::io::tls;
use kwire::messages::api_versions_response::ApiVersion;
use kwire::messages::create_topics_request::CreatableTopic;
use kwire::messages::create_topics_response::{CreatableTopicConfigs, CreatableTopicResult};
use kwire::messages::delete_topics_response::DeletableTopicResult;
use kwire::messages::fetch_response::{FetchableTopicResponse, PartitionData};
use kwire::messages::find_coordinator_response::Coordinator;
use kwire::messages::list_offsets_response::{
    ListOffsetsPartitionResponse, ListOffsetsTopicResponse,
};
use kwire::messages::metadata_response::{
    MetadataResponseBroker, MetadataResponsePartition, MetadataResponseTopic,
};
use kwire::messages::produce_response::{PartitionProduceResponse, TopicProduceResponse};
use kwire::messages::{
    ApiVersionsResponse, CreateTopicsRequest, CreateTopicsResponse, DeleteTopicsRequest,
    DeleteTopicsResponse, FetchRequest, FetchResponse, FindCoordinatorRequest,
    FindCoordinatorResponse, InitProducerIdRequest, InitProducerIdResponse, ListOffsetsRequest,
    ListOffsetsResponse, MetadataRequest, MetadataResponse, ProduceRequest, ProduceResponse,
    RequestHeader, ResponseHeader,
};
use kwire::session::{FrameBuffer, server};
use kwire::{ApiKey, EncodeError, ErrorCode, Request};

use super::admin;
use super::fallback;
use super::groups::Groups;
use super::log::Topics;
use super::sasl::{Session, Then, Users};

/// The largest frame accepted (Kafka's `socket.request.max.bytes` default).
const MAX_FRAME: usize = 100 * 1024 * 1024;

/// How the broker runs.
#[derive(Debug, Clone)]
pub struct Config {
    /// The host clients are told to connect to.
    pub host: String,
    /// The port clients are told to connect to.
    pub port: i32,
    /// This broker's node id.
    pub node_id: i32,
    /// Partitions of an auto-created topic.
    pub partitions: i32,
    /// Print one line per request.
    pub verbose: bool,
    /// The users, when every connection must authenticate with SASL first.
    pub sasl: Option<Arc<Users>>,
    /// The listener's TLS, when connections are TLS (SSL or SASL_SSL).
    pub tls: Option<Arc<tls::rustls::ServerConfig>>,
    /// With SASL, advertise SaslHandshake v0 alone and no SaslAuthenticate, as Kafka before 1.0
    /// did: clients send the mechanism's messages raw.
    pub sasl_v0_only: bool,
}

/// The APIs served, each at every version of the current Kafka release.
pub const SERVED: &[ApiKey] = &[
    ApiKey::PRODUCE,
    ApiKey::FETCH,
    ApiKey::LIST_OFFSETS,
    ApiKey::METADATA,
    ApiKey::OFFSET_COMMIT,
    ApiKey::OFFSET_FETCH,
    ApiKey::FIND_COORDINATOR,
    ApiKey::JOIN_GROUP,
    ApiKey::HEARTBEAT,
    ApiKey::LEAVE_GROUP,
    ApiKey::SYNC_GROUP,
    ApiKey::API_VERSIONS,
    ApiKey::CREATE_TOPICS,
    ApiKey::DELETE_TOPICS,
    ApiKey::INIT_PRODUCER_ID,
    ApiKey::DESCRIBE_GROUPS,
    ApiKey::LIST_GROUPS,
    ApiKey::DELETE_GROUPS,
    ApiKey::DESCRIBE_CONFIGS,
    ApiKey::DESCRIBE_CLUSTER,
];

/// The versions of `key` this broker answers.
pub fn served_versions(key: ApiKey) -> VersionRange {
    if !SERVED.contains(&key) {
        return VersionRange::NONE;
    }
    key.info()
        .map_or(VersionRange::NONE, |i| i.current_request_versions)
}

/// The shared state: topics and groups behind one lock, and a condition variable that wakes
/// fetches waiting for data.
#[derive(Debug)]
pub struct Broker {
    pub config: Config,
    state: Mutex<State>,
    appended: Condvar,
    pub groups: Groups,
}

#[derive(Debug, Default)]
struct State {
    topics: Topics,
    next_producer_id: i64,
}

impl Broker {
    pub fn new(config: Config) -> Arc<Self> {
        Arc::new(Self {
            config,
            state: Mutex::new(State {
                topics: Topics::default(),
                next_producer_id: 1000,
            }),
            appended: Condvar::new(),
            groups: Groups::default(),
        })
    }

    fn state(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// A broker with `partitions` partitions per new topic, serving on a port of the loopback
    /// interface on threads of its own until the process ends: the in-process broker of the
    /// tests. Returns its address.
    ///
    /// # Panics
    ///
    /// When no loopback port can be bound.
    pub fn spawn(partitions: i32) -> std::net::SocketAddr {
        Self::spawn_with(partitions, None, None, false)
    }

    /// [`Broker::spawn`] for a broker that requires SASL from the `users` (name and
    /// password).
    ///
    /// # Panics
    ///
    /// As [`Broker::spawn`].
    pub fn spawn_sasl(partitions: i32, users: &[(&str, &str)]) -> std::net::SocketAddr {
        Self::spawn_with(partitions, Some(Self::users(users)), None, false)
    }

    /// [`Broker::spawn`] for a broker whose listener speaks TLS with `tls`, and requires SASL
    /// from the `users` unless there are none.
    ///
    /// # Panics
    ///
    /// As [`Broker::spawn`].
    pub fn spawn_tls(
        partitions: i32,
        users: &[(&str, &str)],
        tls: Arc<tls::rustls::ServerConfig>,
    ) -> std::net::SocketAddr {
        let sasl = (!users.is_empty()).then(|| Self::users(users));
        Self::spawn_with(partitions, sasl, Some(tls), false)
    }

    fn users(users: &[(&str, &str)]) -> Arc<Users> {
        let pairs = users
            .iter()
            .map(|&(u, p)| (u.to_owned(), p.to_owned()))
            .collect();
        Arc::new(Users::new(pairs).expect("users"))
    }

    fn spawn_with(
        partitions: i32,
        sasl: Option<Arc<Users>>,
        tls: Option<Arc<tls::rustls::ServerConfig>>,
        sasl_v0_only: bool,
    ) -> std::net::SocketAddr {
        let listener = TcpListener::bind("127.0.0.1:0").expect("a loopback port");
        let addr = listener.local_addr().expect("the port's address");
        let broker = Self::new(Config {
            host: addr.ip().to_string(),
            port: i32::from(addr.port()),
            node_id: 1,
            partitions,
            verbose: false,
            sasl,
            tls,
            sasl_v0_only,
        });
        std::thread::spawn(move || broker.serve(listener));
        addr
    }

    /// [`Broker::spawn_sasl`] for a broker of Kafka's before 1.0: SaslHandshake v0 alone, the
    /// mechanism's messages raw.
    ///
    /// # Panics
    ///
    /// As [`Broker::spawn`].
    pub fn spawn_sasl_v0(partitions: i32, users: &[(&str, &str)]) -> std::net::SocketAddr {
        Self::spawn_with(partitions, Some(Self::users(users)), None, true)
    }

    /// The versions of `key` this broker answers: SASL's, and the SCRAM credential APIs, only
    /// when it requires SASL (after a handshake at version 0 the tokens come raw, at version 1
    /// in SaslAuthenticate requests).
    fn served(&self, key: ApiKey) -> VersionRange {
        match key {
            ApiKey::SASL_HANDSHAKE if self.config.sasl.is_some() && self.config.sasl_v0_only => {
                VersionRange::new(0, 0)
            }
            ApiKey::SASL_AUTHENTICATE if self.config.sasl_v0_only => VersionRange::NONE,
            ApiKey::SASL_HANDSHAKE if self.config.sasl.is_some() => VersionRange::new(0, 1),
            ApiKey::SASL_AUTHENTICATE
            | ApiKey::ALTER_USER_SCRAM_CREDENTIALS
            | ApiKey::DESCRIBE_USER_SCRAM_CREDENTIALS
                if self.config.sasl.is_some() =>
            {
                key.info()
                    .map_or(VersionRange::NONE, |i| i.current_request_versions)
            }
            key => served_versions(key),
        }
    }

    /// Accepts connections forever, one thread each.
    pub fn serve(self: &Arc<Self>, listener: TcpListener) -> io::Result<()> {
        for stream in listener.incoming() {
            let stream = stream?;
            let broker = Arc::clone(self);
            std::thread::spawn(move || {
                let peer = stream.peer_addr().ok();
                if let Err(e) = broker.accepted(stream)
                    && broker.config.verbose
                {
                    eprintln!("connection {peer:?}: {e}");
                }
            });
        }
        Ok(())
    }

    /// Serves an accepted connection, over TLS when the listener has it.
    fn accepted(&self, stream: TcpStream) -> io::Result<()> {
        stream.set_nodelay(true)?;
        match &self.config.tls {
            Some(config) => self.connection(tls::accept(config, stream).map_err(io::Error::other)?),
            None => self.connection(stream),
        }
    }

    /// Reads frames off one connection and answers each in order, as Kafka does.
    fn connection(&self, mut stream: impl Read + Write) -> io::Result<()> {
        // Zeroed pages are only touched as requests fill them.
        let mut rx = FrameBuffer::new(vec![0u8; MAX_FRAME + frame::SIZE_LEN]);
        let mut auth = self.config.sasl.as_ref().map(|_| Session::default());
        loop {
            match rx.next_frame() {
                Ok(Some(frame)) => match self.answer(frame, auth.as_mut()) {
                    Ok((reply, then)) => {
                        if let Some(reply) = reply {
                            stream.write_all(&reply)?;
                            stream.flush()?;
                        }
                        if let Then::Close(why) = then {
                            if self.config.verbose {
                                eprintln!(
                                    "closing the connection: SASL authentication failed ({why})"
                                );
                            }
                            return Ok(());
                        }
                    }
                    Err(why) => {
                        eprintln!("closing the connection: {why}");
                        return Ok(());
                    }
                },
                Ok(None) => {
                    let n = stream.read(rx.spare())?;
                    if n == 0 {
                        if let Err(e) = rx.finish() {
                            eprintln!("{e}");
                        }
                        return Ok(());
                    }
                    rx.filled(n);
                }
                Err(e) => {
                    eprintln!("closing the connection: {e}");
                    return Ok(());
                }
            }
        }
    }

    /// Answers one frame of a connection: a raw token after a SaslHandshake v0, a request
    /// otherwise.
    fn answer(
        &self,
        frame: &[u8],
        auth: Option<&mut Session>,
    ) -> Result<(Option<Vec<u8>>, Then), String> {
        match (auth, self.config.sasl.as_deref()) {
            (Some(auth), Some(users)) if auth.raw_tokens() => Ok(auth.raw_token(users, frame)),
            (auth, _) => self.handle_in(frame, auth),
        }
    }

    /// Answers one request frame. `Ok(None)`: no response is due (a Produce with acks=0).
    /// `Err`: the connection must close, as Kafka closes it on a request it cannot parse.
    pub fn handle(&self, f: &[u8]) -> Result<Option<Vec<u8>>, String> {
        self.handle_in(f, None).map(|(reply, _)| reply)
    }

    /// [`Broker::handle`] on a connection whose authentication is `auth` (when the broker
    /// requires SASL): before it succeeds, a request other than ApiVersions, SaslHandshake and
    /// SaslAuthenticate is an `Err`, and closes the connection as Kafka closes it.
    pub fn handle_in(
        &self,
        f: &[u8],
        auth: Option<&mut Session>,
    ) -> Result<(Option<Vec<u8>>, Then), String> {
        // Key, version and correlation id, readable whether or not the body is.
        let info = frame::request_info(f).map_err(|e| format!("a request header: {e}"))?;
        let (key, version, correlation_id) = (info.api_key, info.api_version, info.correlation_id);
        let served = self.served(key);

        if key == ApiKey::API_VERSIONS && !served.contains(version) {
            // A client newer than this broker: the v0 answer naming the ApiVersions versions
            // served, so that it asks again at one of them, as Kafka's broker answers.
            if self.config.verbose {
                eprintln!("ApiVersions v{version}: unsupported, answering with v0");
            }
            let mut out = vec![0u8; 64];
            let n = server::reject_api_versions(&info, served, &mut out)
                .map_err(|e| format!("ApiVersions v{version}: {e}"))?;
            out.truncate(n);
            return Ok((Some(out), Then::Continue));
        }
        if !served.contains(version) {
            if self.config.verbose {
                eprintln!(
                    "{key} v{version}: not served, answering {}",
                    ErrorCode::UNSUPPORTED_VERSION.0
                );
            }
            return fallback::error_response(
                key,
                version,
                correlation_id,
                ErrorCode::UNSUPPORTED_VERSION.0,
            )
            .map(|reply| (Some(reply), Then::Continue));
        }

        let (header, request) =
            frame::decode_request(f).map_err(|e| format!("{key} v{version}: {e}"))?;
        if self.config.verbose {
            eprintln!(
                "{key} v{version} correlation {} from {:?}",
                header.correlation_id,
                header.client_id.unwrap_or(Str::EMPTY)
            );
        }
        if let (Some(auth), Some(users)) = (auth, self.config.sasl.as_deref()) {
            match &request {
                Request::SaslHandshake(r) => {
                    let reply = auth.handshake(correlation_id, r, version)?;
                    return Ok((Some(reply), Then::Continue));
                }
                Request::SaslAuthenticate(r) => {
                    let (reply, then) = auth.authenticate(users, correlation_id, r, version)?;
                    if self.config.verbose
                        && then == Then::Continue
                        && let Some(user) = auth.user()
                    {
                        eprintln!("authenticated as {user}");
                    }
                    return Ok((Some(reply), then));
                }
                Request::ApiVersions(_) => {}
                _ if auth.user().is_none() => {
                    return Err(format!("a {key} request before SASL authentication"));
                }
                Request::AlterUserScramCredentials(r) => {
                    let reply = users.alter(correlation_id, r, version)?;
                    return Ok((Some(reply), Then::Continue));
                }
                Request::DescribeUserScramCredentials(r) => {
                    let reply = users.describe(correlation_id, r, version)?;
                    return Ok((Some(reply), Then::Continue));
                }
                _ => {}
            }
        }
        self.dispatch(&header, &request, version)
            .map(|reply| (reply, Then::Continue))
    }

    fn dispatch(
        &self,
        header: &RequestHeader<'_>,
        request: &Request<'_>,
        v: i16,
    ) -> Result<Option<Vec<u8>>, String> {
        let id = header.correlation_id;
        match request {
            Request::ApiVersions(_) => {
                let rows = self.api_version_rows();
                let body = ApiVersionsResponse::default().with_api_keys(&rows[..]);
                encode(id, &body, v).map(Some)
            }
            Request::Metadata(r) => self.metadata(id, r, v).map(Some),
            Request::Produce(r) => self.produce(id, r, v),
            Request::ListOffsets(r) => self.list_offsets(id, r, v).map(Some),
            Request::Fetch(r) => self.fetch(id, r, v).map(Some),
            Request::FindCoordinator(r) => self.find_coordinator(id, r, v).map(Some),
            Request::InitProducerId(r) => self.init_producer_id(id, r, v).map(Some),
            Request::CreateTopics(r) => self.create_topics(id, r, v).map(Some),
            Request::DeleteTopics(r) => self.delete_topics(id, r, v).map(Some),
            Request::JoinGroup(r) => {
                let client_id = header.client_id.unwrap_or(Str::EMPTY);
                self.groups.join(id, client_id, r, v).map(Some)
            }
            Request::DescribeGroups(r) => self.groups.describe(id, r, v).map(Some),
            Request::ListGroups(r) => self.groups.list(id, r, v).map(Some),
            Request::DeleteGroups(r) => self.groups.delete(id, r, v).map(Some),
            Request::DescribeConfigs(r) => {
                let exists = |name: &str| self.state().topics.get(name).is_some();
                admin::describe_configs(&self.config, &exists, id, r, v).map(Some)
            }
            Request::DescribeCluster(r) => {
                admin::describe_cluster(&self.config, id, r, v).map(Some)
            }
            Request::SyncGroup(r) => self.groups.sync(id, r, v).map(Some),
            Request::Heartbeat(r) => self.groups.heartbeat(id, r, v).map(Some),
            Request::LeaveGroup(r) => self.groups.leave(id, r, v).map(Some),
            Request::OffsetCommit(r) => {
                let name_of = |tid| self.state().topics.name_of(tid).map(str::to_owned);
                let exists = |name: &str, partition: i32| {
                    let st = self.state();
                    let count = st.topics.get(name).map_or(0, |t| t.partitions.len());
                    usize::try_from(partition).is_ok_and(|p| p < count)
                };
                self.groups.commit(id, r, v, &name_of, &exists).map(Some)
            }
            Request::OffsetFetch(r) => {
                let name_of = |tid| self.state().topics.name_of(tid).map(str::to_owned);
                let id_of = |name: &str| self.state().topics.get(name).map_or(Uuid::ZERO, |t| t.id);
                self.groups
                    .fetch_offsets(id, r, v, &name_of, &id_of)
                    .map(Some)
            }
            other => {
                fallback::error_response(other.api_key(), v, id, ErrorCode::UNSUPPORTED_VERSION.0)
                    .map(Some)
            }
        }
    }

    fn broker_row(&self) -> MetadataResponseBroker<'_> {
        MetadataResponseBroker::default()
            .with_node_id(self.config.node_id)
            .with_host(&self.config.host)
            .with_port(self.config.port)
    }

    fn metadata(&self, id: i32, r: &MetadataRequest<'_>, v: i16) -> Result<Vec<u8>, String> {
        let node = self.config.node_id;
        // Versions 0-3 always create missing topics; later versions ask.
        let auto_create = v < 4 || r.allow_auto_topic_creation;
        let mut st = self.state();
        // Which topics: null (or, in v0, empty) means all of them.
        let wanted: Option<Vec<(Option<Str<'_>>, Uuid)>> = match &r.topics {
            Some(t) if !(v == 0 && t.is_empty()) => {
                Some(t.iter().map(|t| (t.name, t.topic_id)).collect())
            }
            _ => None,
        };
        struct Row {
            name: Option<String>,
            id: Uuid,
            error: i16,
            partitions: i32,
        }
        let mut rows = Vec::new();
        match wanted {
            None => {
                for (name, t) in st.topics.iter() {
                    rows.push(Row {
                        name: Some(name.to_owned()),
                        id: t.id,
                        error: ErrorCode::NONE.0,
                        partitions: len_i32(t.partitions.len()),
                    });
                }
            }
            Some(wanted) => {
                for (name, tid) in wanted {
                    let name = match name.map(Str::to_str).transpose() {
                        Ok(name) => name.map(str::to_owned),
                        // Kafka reads a name that is not UTF-8 with U+FFFD in place of the
                        // bytes, an illegal name, and answers so.
                        Err(_) => {
                            rows.push(Row {
                                name: name.map(|n| n.to_string_lossy().into_owned()),
                                id: Uuid::ZERO,
                                error: ErrorCode::INVALID_TOPIC_EXCEPTION.0,
                                partitions: 0,
                            });
                            continue;
                        }
                    };
                    let name = name.or_else(|| st.topics.name_of(tid).map(str::to_owned));
                    let Some(name) = name else {
                        rows.push(Row {
                            name: None,
                            id: tid,
                            error: ErrorCode::UNKNOWN_TOPIC_ID.0,
                            partitions: 0,
                        });
                        continue;
                    };
                    let found = st.topics.get(&name).map(|t| (t.id, t.partitions.len()));
                    let row = match found {
                        Some((tid, n)) => Row {
                            name: Some(name),
                            id: tid,
                            error: ErrorCode::NONE.0,
                            partitions: len_i32(n),
                        },
                        None if auto_create => {
                            match st.topics.create(&name, self.config.partitions) {
                                Ok(t) => Row {
                                    id: t.id,
                                    partitions: len_i32(t.partitions.len()),
                                    name: Some(name),
                                    error: ErrorCode::NONE.0,
                                },
                                Err(e) => Row {
                                    name: Some(name),
                                    id: Uuid::ZERO,
                                    error: e,
                                    partitions: 0,
                                },
                            }
                        }
                        None => Row {
                            name: Some(name),
                            id: Uuid::ZERO,
                            error: ErrorCode::UNKNOWN_TOPIC_OR_PARTITION.0,
                            partitions: 0,
                        },
                    };
                    rows.push(row);
                }
            }
        }
        drop(st);

        let replicas = [node];
        let partitions: Vec<Vec<MetadataResponsePartition<'_>>> = rows
            .iter()
            .map(|row| {
                (0..row.partitions)
                    .map(|p| {
                        let mut part = MetadataResponsePartition::default()
                            .with_partition_index(p)
                            .with_leader_id(node)
                            .with_replica_nodes(&replicas)
                            .with_isr_nodes(&replicas);
                        if v >= 7 {
                            part = part.with_leader_epoch(0);
                        }
                        part
                    })
                    .collect()
            })
            .collect();
        let topics: Vec<MetadataResponseTopic<'_>> = rows
            .iter()
            .zip(&partitions)
            .map(|(row, parts)| {
                let mut t = MetadataResponseTopic::default()
                    .with_error_code(row.error)
                    .with_name(row.name.as_deref())
                    .with_partitions(&parts[..]);
                if v >= 10 {
                    t = t.with_topic_id(row.id);
                }
                t
            })
            .collect();
        let brokers = [self.broker_row()];
        let mut body = MetadataResponse::default()
            .with_brokers(&brokers)
            .with_topics(&topics[..]);
        if v >= 1 {
            body = body.with_controller_id(node);
        }
        if v >= 2 {
            body = body.with_cluster_id(Some(CLUSTER_ID));
        }
        encode(id, &body, v)
    }

    fn produce(&self, id: i32, r: &ProduceRequest<'_>, v: i16) -> Result<Option<Vec<u8>>, String> {
        let mut results: Vec<(Option<String>, Uuid, Vec<Appended>)> = Vec::new();
        if !matches!(r.acks, -1..=1) {
            // Kafka appends nothing and answers every partition with INVALID_REQUIRED_ACKS.
            for t in &r.topic_data {
                let parts = t
                    .partition_data
                    .iter()
                    .map(|p| (p.index, ErrorCode::INVALID_REQUIRED_ACKS.0, -1))
                    .collect();
                results.push((
                    Some(t.name.to_string_lossy().into_owned()),
                    t.topic_id,
                    parts,
                ));
            }
        } else {
            let mut st = self.state();
            for t in &r.topic_data {
                // The name to answer with: the topic's, or the one asked for as Kafka reads it.
                let name = if v >= 13 {
                    st.topics.name_of(t.topic_id).map(str::to_owned)
                } else {
                    Some(t.name.to_string_lossy().into_owned())
                };
                let mut parts = Vec::new();
                for p in &t.partition_data {
                    let topic = if v >= 13 {
                        name.as_deref().and_then(|n| st.topics.get_mut(n))
                    } else {
                        st.topics.named_mut(t.name)
                    };
                    let outcome = match topic {
                        None if v >= 13 => Err(ErrorCode::UNKNOWN_TOPIC_ID.0),
                        None => Err(ErrorCode::UNKNOWN_TOPIC_OR_PARTITION.0),
                        Some(topic) => usize::try_from(p.index)
                            .ok()
                            .and_then(|i| topic.partitions.get_mut(i))
                            .ok_or(ErrorCode::UNKNOWN_TOPIC_OR_PARTITION.0)
                            .and_then(|log| {
                                let bytes = p.records.map_or(&[][..], |rec| rec.as_bytes());
                                let batch = super::log::Log::validate(bytes, v)?;
                                Ok(log.append(&batch, 0))
                            }),
                    };
                    parts.push(match outcome {
                        Ok(base) => (p.index, ErrorCode::NONE.0, base),
                        Err(e) => (p.index, e, -1),
                    });
                }
                results.push((name, t.topic_id, parts));
            }
        }
        self.appended.notify_all();
        if r.acks == 0 {
            return Ok(None);
        }
        let parts: Vec<Vec<PartitionProduceResponse<'_>>> = results
            .iter()
            .map(|(_, _, parts)| {
                parts
                    .iter()
                    .map(|&(index, error, base)| {
                        let mut p = PartitionProduceResponse::default()
                            .with_index(index)
                            .with_error_code(error)
                            .with_base_offset(base);
                        if v >= 5 {
                            p = p.with_log_start_offset(if error == ErrorCode::NONE.0 {
                                0
                            } else {
                                -1
                            });
                        }
                        p
                    })
                    .collect()
            })
            .collect();
        let topics: Vec<TopicProduceResponse<'_>> = results
            .iter()
            .zip(&parts)
            .map(|((name, tid, _), parts)| {
                let t = TopicProduceResponse::default().with_partition_responses(&parts[..]);
                t.with_topic_id(*tid)
                    .with_name(name.as_deref().unwrap_or(""))
            })
            .collect();
        let body = ProduceResponse::default().with_responses(&topics[..]);
        encode(id, &body, v).map(Some)
    }

    fn list_offsets(&self, id: i32, r: &ListOffsetsRequest<'_>, v: i16) -> Result<Vec<u8>, String> {
        let st = self.state();
        let mut results: Vec<(Cow<'_, str>, Vec<Found>)> = Vec::new();
        for t in &r.topics {
            let topic = st.topics.named(t.name);
            let parts = t
                .partitions
                .iter()
                .map(|p| {
                    let log = topic.and_then(|t| {
                        usize::try_from(p.partition_index)
                            .ok()
                            .and_then(|i| t.partitions.get(i))
                    });
                    match log {
                        None => (
                            p.partition_index,
                            ErrorCode::UNKNOWN_TOPIC_OR_PARTITION.0,
                            -1,
                            -1,
                        ),
                        Some(log) => {
                            let (offset, ts) = log.lookup(p.timestamp);
                            (p.partition_index, ErrorCode::NONE.0, offset, ts)
                        }
                    }
                })
                .collect();
            results.push((t.name.to_string_lossy(), parts));
        }
        drop(st);
        let old_style: Vec<[i64; 1]> = results
            .iter()
            .flat_map(|(_, parts)| parts.iter().map(|p| [p.2]))
            .collect();
        let mut old = old_style.iter();
        let parts: Vec<Vec<ListOffsetsPartitionResponse<'_>>> = results
            .iter()
            .map(|(_, parts)| {
                parts
                    .iter()
                    .map(|&(index, error, offset, ts)| {
                        let p = ListOffsetsPartitionResponse::default()
                            .with_partition_index(index)
                            .with_error_code(error);
                        let one = old.next().map_or(&[][..], |o| &o[..]);
                        if v == 0 {
                            return p.with_old_style_offsets(Array::from(
                                if error == ErrorCode::NONE.0 {
                                    one
                                } else {
                                    &[][..]
                                },
                            ));
                        }
                        let p = p.with_offset(offset).with_timestamp(ts);
                        // The epoch of the batch found; none when nothing was found.
                        if v >= 4 && error == ErrorCode::NONE.0 && offset >= 0 {
                            p.with_leader_epoch(0)
                        } else {
                            p
                        }
                    })
                    .collect()
            })
            .collect();
        let topics: Vec<ListOffsetsTopicResponse<'_>> = results
            .iter()
            .zip(&parts)
            .map(|((name, _), parts)| {
                ListOffsetsTopicResponse::default()
                    .with_name(name)
                    .with_partitions(&parts[..])
            })
            .collect();
        let body = ListOffsetsResponse::default().with_topics(&topics[..]);
        encode(id, &body, v)
    }

    fn fetch(&self, id: i32, r: &FetchRequest<'_>, v: i16) -> Result<Vec<u8>, String> {
        if r.session_id != 0 {
            // No incremental fetch sessions are ever handed out (session id 0 in every answer),
            // so a request naming one names a session this broker does not know.
            let body =
                FetchResponse::default().with_error_code(ErrorCode::FETCH_SESSION_ID_NOT_FOUND.0);
            return encode(id, &body, v);
        }
        let deadline =
            Instant::now() + Duration::from_millis(u64::try_from(r.max_wait_ms).unwrap_or(0));
        let min_bytes = usize::try_from(r.min_bytes).unwrap_or(0);
        // Versions before 3 have no response-wide limit.
        let max_bytes = if v >= 3 {
            usize::try_from(r.max_bytes).unwrap_or(0)
        } else {
            usize::MAX
        };
        // One result per partition asked for: (topic index, partition, error, high watermark,
        // range of `data`).
        let mut data: Vec<u8> = Vec::new();
        let mut results: Vec<(usize, i32, i16, i64, std::ops::Range<usize>)> = Vec::new();
        let mut topics: Vec<(Option<String>, Uuid)> = Vec::new();
        let mut st = self.state();
        loop {
            data.clear();
            results.clear();
            topics.clear();
            let mut errors = false;
            for (ti, t) in r.topics.iter().enumerate() {
                // The name to answer with: the topic's, or the one asked for as Kafka reads it.
                let name = if v >= 13 {
                    st.topics.name_of(t.topic_id).map(str::to_owned)
                } else {
                    Some(t.topic.to_string_lossy().into_owned())
                };
                let topic = if v >= 13 {
                    name.as_deref().and_then(|n| st.topics.get(n))
                } else {
                    st.topics.named(t.topic)
                };
                for p in &t.partitions {
                    let log = topic.and_then(|t| {
                        usize::try_from(p.partition)
                            .ok()
                            .and_then(|i| t.partitions.get(i))
                    });
                    let Some(log) = log else {
                        let e = if v >= 13 && topic.is_none() {
                            ErrorCode::UNKNOWN_TOPIC_ID.0
                        } else {
                            ErrorCode::UNKNOWN_TOPIC_OR_PARTITION.0
                        };
                        errors = true;
                        results.push((ti, p.partition, e, -1, 0..0));
                        continue;
                    };
                    let room = max_bytes.saturating_sub(data.len());
                    let limit = usize::try_from(p.partition_max_bytes)
                        .unwrap_or(0)
                        .min(room);
                    let slice = log.read(p.fetch_offset, limit, data.is_empty());
                    errors |= slice.error != ErrorCode::NONE.0;
                    let start = data.len();
                    data.extend_from_slice(slice.bytes);
                    results.push((
                        ti,
                        p.partition,
                        slice.error,
                        slice.high_watermark,
                        start..data.len(),
                    ));
                }
                topics.push((name, t.topic_id));
            }
            let now = Instant::now();
            if errors || data.len() >= min_bytes || now >= deadline {
                break;
            }
            st = self
                .appended
                .wait_timeout(st, deadline - now)
                .unwrap_or_else(|e| e.into_inner())
                .0;
        }
        drop(st);

        let mut per_topic: Vec<Vec<PartitionData<'_>>> =
            topics.iter().map(|_| Vec::new()).collect();
        for (ti, partition, error, hw, range) in &results {
            let mut p = PartitionData::default()
                .with_partition_index(*partition)
                .with_error_code(*error)
                .with_high_watermark(*hw)
                .with_records(Some(data[range.clone()].into()));
            if v >= 4 {
                p = p
                    .with_last_stable_offset(*hw)
                    .with_aborted_transactions(None);
            }
            if v >= 5 {
                p = p.with_log_start_offset(if *error == ErrorCode::NONE.0 { 0 } else { -1 });
            }
            per_topic[*ti].push(p);
        }
        let responses: Vec<FetchableTopicResponse<'_>> = topics
            .iter()
            .zip(&per_topic)
            .map(|((name, tid), parts)| {
                let t = FetchableTopicResponse::default().with_partitions(&parts[..]);
                t.with_topic_id(*tid)
                    .with_topic(name.as_deref().unwrap_or(""))
            })
            .collect();
        // No incremental fetch sessions: session id 0 tells the client to send full requests.
        let body = FetchResponse::default().with_responses(&responses[..]);
        encode(id, &body, v)
    }

    fn find_coordinator(
        &self,
        id: i32,
        r: &FindCoordinatorRequest<'_>,
        v: i16,
    ) -> Result<Vec<u8>, String> {
        let c = &self.config;
        if v >= 4 {
            // Each key as Kafka reads it, to answer with.
            let keys: Vec<Cow<'_, str>> = r
                .coordinator_keys
                .iter()
                .map(Str::to_string_lossy)
                .collect();
            let rows: Vec<Coordinator<'_>> = keys
                .iter()
                .map(|key| {
                    Coordinator::default()
                        .with_key(key)
                        .with_node_id(c.node_id)
                        .with_host(&c.host)
                        .with_port(c.port)
                })
                .collect();
            let body = FindCoordinatorResponse::default().with_coordinators(&rows[..]);
            return encode(id, &body, v);
        }
        let body = FindCoordinatorResponse::default()
            .with_node_id(c.node_id)
            .with_host(&c.host)
            .with_port(c.port);
        encode(id, &body, v)
    }

    fn init_producer_id(
        &self,
        id: i32,
        r: &InitProducerIdRequest<'_>,
        v: i16,
    ) -> Result<Vec<u8>, String> {
        let (pid, epoch) = if r.producer_id >= 0 && r.producer_epoch >= 0 {
            // Bumping the epoch of a producer that already has an id (KIP-360).
            (r.producer_id, r.producer_epoch.saturating_add(1))
        } else {
            let mut st = self.state();
            st.next_producer_id += 1;
            (st.next_producer_id, 0)
        };
        let body = InitProducerIdResponse::default()
            .with_producer_id(pid)
            .with_producer_epoch(epoch);
        encode(id, &body, v)
    }

    fn create_topics(
        &self,
        id: i32,
        r: &CreateTopicsRequest<'_>,
        v: i16,
    ) -> Result<Vec<u8>, String> {
        let mut st = self.state();
        let mut rows: Vec<Created<'_>> = Vec::new();
        for t in &r.topics {
            let outcome = self.check_new_topic(&st, &t).and_then(|(name, n)| {
                if r.validate_only {
                    Ok((Uuid::ZERO, n))
                } else {
                    st.topics
                        .create(name, n)
                        .map(|t| (t.id, n))
                        .map_err(|e| (e, format!("Topic '{name}' cannot be created.")))
                }
            });
            rows.push((t.name.to_string_lossy(), outcome));
        }
        drop(st);
        let no_configs: [CreatableTopicConfigs<'_>; 0] = [];
        let results: Vec<CreatableTopicResult<'_>> = rows
            .iter()
            .map(|(name, outcome)| {
                let mut t = CreatableTopicResult::default().with_name(name);
                match outcome {
                    Ok((tid, n)) => {
                        if v >= 5 {
                            t = t
                                .with_num_partitions(*n)
                                .with_replication_factor(1)
                                .with_configs(&no_configs);
                        }
                        if v >= 7 {
                            t = t.with_topic_id(*tid);
                        }
                    }
                    Err((e, message)) => {
                        t = t.with_error_code(*e);
                        if v >= 1 {
                            t = t.with_error_message(Some(message.as_str()));
                        }
                    }
                }
                t
            })
            .collect();
        let body = CreateTopicsResponse::default().with_topics(&results[..]);
        encode(id, &body, v)
    }

    /// Kafka's checks of a topic to create, in its order; the name and partition count on
    /// success.
    fn check_new_topic<'r>(
        &self,
        st: &State,
        t: &CreatableTopic<'r>,
    ) -> Result<(&'r str, i32), Refusal> {
        // A name that is not UTF-8 is illegal: Kafka reads it with U+FFFD in place of the bytes.
        let name = t.name.to_str().ok().filter(|n| super::log::valid_name(n));
        let Some(name) = name else {
            return Err((
                ErrorCode::INVALID_TOPIC_EXCEPTION.0,
                format!("Topic name \"{}\" is illegal", t.name),
            ));
        };
        if st.topics.get(name).is_some() {
            return Err((
                ErrorCode::TOPIC_ALREADY_EXISTS.0,
                format!("Topic '{name}' already exists."),
            ));
        }
        if !t.assignments.is_empty() {
            if t.num_partitions != -1 || t.replication_factor != -1 {
                return Err((
                    ErrorCode::INVALID_REQUEST.0,
                    "Both numPartitions or replicationFactor and replicasAssignments were set. \
                     Both cannot be used at the same time."
                        .into(),
                ));
            }
            for a in &t.assignments {
                if a.broker_ids.len() != 1 || a.broker_ids.iter().any(|b| b != self.config.node_id)
                {
                    return Err((
                        ErrorCode::INVALID_REPLICA_ASSIGNMENT.0,
                        format!(
                            "Partition {} may only be placed on broker {}.",
                            a.partition_index, self.config.node_id
                        ),
                    ));
                }
            }
            return Ok((name, len_i32(t.assignments.len())));
        }
        let n = if t.num_partitions == -1 {
            self.config.partitions
        } else {
            t.num_partitions
        };
        if n < 1 {
            return Err((
                ErrorCode::INVALID_PARTITIONS.0,
                "Number of partitions was set to an invalid non-positive value.".into(),
            ));
        }
        match t.replication_factor {
            -1 | 1 => Ok((name, n)),
            rf if rf < 1 => Err((
                ErrorCode::INVALID_REPLICATION_FACTOR.0,
                "Replication factor must be larger than 0, or -1 to use the default value.".into(),
            )),
            rf => Err((
                ErrorCode::INVALID_REPLICATION_FACTOR.0,
                format!(
                    "Unable to replicate the partition {rf} time(s): The target replication \
                     factor of {rf} cannot be reached because only 1 broker(s) are registered."
                ),
            )),
        }
    }

    fn delete_topics(
        &self,
        id: i32,
        r: &DeleteTopicsRequest<'_>,
        v: i16,
    ) -> Result<Vec<u8>, String> {
        let mut st = self.state();
        let mut rows: Vec<(Option<String>, Uuid, i16)> = Vec::new();
        let mut delete = |st: &mut State, asked: Option<Str<'_>>, tid: Uuid| {
            // The name to answer with: the one asked for as Kafka reads it, or the topic's.
            let name = match asked {
                Some(n) => Some(n.to_string_lossy().into_owned()),
                None => st.topics.name_of(tid).map(str::to_owned),
            };
            // A name that is not UTF-8 names no topic.
            let removed = match asked {
                Some(n) => n.to_str().ok().and_then(|n| st.topics.remove(n)),
                None => name.as_deref().and_then(|n| st.topics.remove(n)),
            };
            let error = match (&removed, name.is_some()) {
                (Some(_), _) => ErrorCode::NONE.0,
                (None, false) => ErrorCode::UNKNOWN_TOPIC_ID.0,
                (None, true) => ErrorCode::UNKNOWN_TOPIC_OR_PARTITION.0,
            };
            rows.push((name, removed.map_or(tid, |t| t.id), error));
        };
        if v >= 6 {
            for t in &r.topics {
                delete(&mut st, t.name, t.topic_id);
            }
        } else {
            for name in &r.topic_names {
                delete(&mut st, Some(name), Uuid::ZERO);
            }
        }
        drop(st);
        let results: Vec<DeletableTopicResult<'_>> = rows
            .iter()
            .map(|(name, tid, error)| {
                let mut t = DeletableTopicResult::default()
                    .with_name(name.as_deref())
                    .with_error_code(*error);
                if v >= 6 {
                    t = t.with_topic_id(*tid);
                }
                t
            })
            .collect();
        let body = DeleteTopicsResponse::default().with_responses(&results[..]);
        encode(id, &body, v)
    }
}

/// Why a topic cannot be created: error code and message.
type Refusal = (i16, String);
/// A topic's CreateTopics outcome: name (as Kafka reads it), and its id and partition count or
/// the refusal.
type Created<'a> = (Cow<'a, str>, Result<(Uuid, i32), Refusal>);
/// A partition's Produce outcome: index, error code, base offset.
type Appended = (i32, i16, i64);
/// A partition's ListOffsets outcome: index, error code, offset, timestamp.
type Found = (i32, i16, i64, i64);

/// The cluster id reported in Metadata.
pub const CLUSTER_ID: &str = "kwire-mini-broker";

impl Broker {
    /// One ApiVersions row per served API, SASL's when the broker requires it.
    fn api_version_rows(&self) -> Vec<ApiVersion<'static>> {
        let sasl = [
            ApiKey::SASL_HANDSHAKE,
            ApiKey::SASL_AUTHENTICATE,
            ApiKey::ALTER_USER_SCRAM_CREDENTIALS,
            ApiKey::DESCRIBE_USER_SCRAM_CREDENTIALS,
        ];
        let sasl = if self.config.sasl.is_some() {
            &sasl[..]
        } else {
            &[]
        };
        SERVED
            .iter()
            .chain(sasl)
            .map(|&k| {
                let r = self.served(k);
                ApiVersion::default()
                    .with_api_key(k.0)
                    .with_min_version(r.min)
                    .with_max_version(r.max)
            })
            .collect()
    }
}

fn len_i32(n: usize) -> i32 {
    i32::try_from(n).unwrap_or(i32::MAX)
}

/// Encodes a response frame into a buffer of exactly its size.
///
/// The broker builds one answer for every version of a request, as Kafka's broker does, and
/// encodes it leniently, as Kafka's serializer does: a hint that the schema marks ignorable (a
/// group's state, a throttle time) is left out of a version without the field. A value that is
/// not ignorable is still refused.
pub fn encode<B: Body>(correlation_id: i32, body: &B, version: i16) -> Result<Vec<u8>, String> {
    let request = RequestInfo {
        api_key: body.body_api_key(),
        api_version: version,
        correlation_id,
        client_id: None,
    };
    let header = ResponseHeader::default().with_correlation_id(correlation_id);
    let failed = |e: EncodeError| format!("{} v{version}: {e}", body.body_api_key());
    let mut out = vec![0u8; frame::response_len(&header, body, version).map_err(failed)?];
    server::respond_lenient(&request, body, &mut out).map_err(failed)?;
    Ok(out)
}
