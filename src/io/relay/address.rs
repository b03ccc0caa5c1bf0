//! The broker addresses a response tells a client, rewritten by a relay.
//!
//! A client connects to the brokers that responses name: every broker of a Metadata response,
//! the coordinator FindCoordinator finds, the new leader a Fetch or Produce response points to.
//! A relay that sits between a client and a cluster (a proxy, a tap) keeps the client's later
//! connections going through it by rewriting each of those addresses to one of its own before
//! the response goes on. [`rewrite_response`] does that for every response that can name one,
//! with the new address chosen by the caller for each broker.
//!
//! Which fields are broker addresses is decided once, field by field: [`REWRITTEN`] lists every
//! field of the schemas that [`rewrite_response`] rewrites, and [`LEFT_AS_IS`] every other field
//! that names a host or a port, with why a client's relay leaves it alone. A test walks every
//! schema at every depth and fails on a field in neither list, so a new one in a later schema
//! is decided before it is relayed.
//!
//! ```
//! use kwire::messages::metadata_response::MetadataResponseBroker;
//! use kwire::messages::{MetadataResponse, ResponseHeader};
//! use kwire::io::relay::address::{self, Rewritten};
//! use kwire::{ApiKey, Response, frame};
//!
//! // A Metadata v12 response, as a broker sends it.
//! let brokers = [
//!     MetadataResponseBroker::default().with_node_id(1).with_host("b1.internal").with_port(9092),
//!     MetadataResponseBroker::default().with_node_id(2).with_host("b2.internal").with_port(9092),
//! ];
//! let header = ResponseHeader::default().with_correlation_id(7);
//! let body = MetadataResponse::default().with_brokers(&brokers[..]);
//! let mut sent = vec![0; frame::response_len(&header, &body, 12)?];
//! frame::encode_response(&header, &body, 12, &mut sent)?;
//!
//! // The relay: only responses that can name a broker are decoded.
//! assert!(address::tells_broker_addresses(ApiKey::METADATA, 12));
//! let (header, body) = frame::decode_response(&sent, ApiKey::METADATA, 12)?;
//! let mut out = Vec::new();
//! // Broker n is reached through the relay's port 19090 + n.
//! let rewritten = address::rewrite_response(&header, &body, 12, &mut out, |broker| {
//!     Some(("relay.example", 19090 + broker.node_id))
//! })?;
//! assert_eq!(rewritten, Rewritten::Changed { addresses: 2 });
//!
//! let (header, Response::Metadata(told)) = frame::decode_response(&out, ApiKey::METADATA, 12)? else {
//!     unreachable!()
//! };
//! assert_eq!(header.correlation_id, 7);
//! let told: Vec<_> = told.brokers.iter().map(|b| (b.node_id, b.host.to_str(), b.port)).collect();
//! assert_eq!(told, [(1, Ok("relay.example"), 19091), (2, Ok("relay.example"), 19092)]);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use alloc::vec::Vec;

use crate::api::Response;
use crate::codec::Str;
use crate::error::EncodeError;
use crate::frame::{self, Body};
use crate::messages::ResponseHeader;
use crate::wire::ApiKey;

/// The schema path of every field that [`rewrite_response`] rewrites: the broker addresses a
/// client connects to when a response names them.
///
/// The list is generated from the schemas: the `Host` and `Port` of each struct of a response
/// (or its top level) that has them beside a field identifying a broker (`"entityType":
/// "brokerId"`), in an API that brokers serve. KRaft's controller-to-controller APIs name the
/// quorum's nodes with the same fields, and are left out ([`LEFT_AS_IS`]).
///
/// * `MetadataResponse.Brokers`: the brokers the client then produces to and fetches from.
/// * `DescribeClusterResponse.Brokers`: the brokers, or the controllers when the request asked
///   for controller endpoints (an admin client bootstrapped from controllers connects to them).
/// * `FindCoordinatorResponse` (before v4) and `FindCoordinatorResponse.Coordinators` (v4 on):
///   the group, transaction or share coordinator the client then connects to.
/// * `NodeEndpoints` of Fetch (v16+), Produce (v10+), ShareFetch and ShareAcknowledge: where a
///   partition's new leader is, so that the client goes there without asking Metadata first.
pub const REWRITTEN: &[&str] = crate::api::BROKER_ADDRESS_FIELDS;

/// Every other field of the schemas that names a host or a port, by schema path, with why a
/// relay of client connections leaves it as it is: none of them is an address a client is told
/// to connect to.
pub const LEFT_AS_IS: &[(&str, &str)] = &[
    // Access control lists: the host a principal may connect from.
    ("CreateAclsRequest.Creations.Host", ACL),
    ("DeleteAclsRequest.Filters.HostFilter", ACL),
    ("DeleteAclsResponse.FilterResults.MatchingAcls.Host", ACL),
    ("DescribeAclsRequest.HostFilter", ACL),
    ("DescribeAclsResponse.Resources.Acls.Host", ACL),
    // Where a group member's client connects from, as the broker saw it.
    (
        "ConsumerGroupDescribeResponse.Groups.Members.ClientHost",
        CLIENT,
    ),
    ("DescribeGroupsResponse.Groups.Members.ClientHost", CLIENT),
    (
        "ShareGroupDescribeResponse.Groups.Members.ClientHost",
        CLIENT,
    ),
    (
        "StreamsGroupDescribeResponse.Groups.Members.ClientHost",
        CLIENT,
    ),
    (
        "EnvelopeRequest.ClientHostAddress",
        "the address of the client whose request a broker forwards to the controller",
    ),
    // Kafka Streams: the application's own instances.
    ("StreamsGroupHeartbeatRequest.UserEndpoint.Host", STREAMS),
    ("StreamsGroupHeartbeatRequest.UserEndpoint.Port", STREAMS),
    (
        "StreamsGroupHeartbeatResponse.PartitionsByUserEndpoint.UserEndpoint.Host",
        STREAMS,
    ),
    (
        "StreamsGroupHeartbeatResponse.PartitionsByUserEndpoint.UserEndpoint.Port",
        STREAMS,
    ),
    (
        "StreamsGroupDescribeResponse.Groups.Members.UserEndpoint.Host",
        STREAMS,
    ),
    (
        "StreamsGroupDescribeResponse.Groups.Members.UserEndpoint.Port",
        STREAMS,
    ),
    // A node telling the cluster where it listens: what the cluster records must be true.
    ("BrokerRegistrationRequest.Listeners.Host", REGISTERED),
    ("BrokerRegistrationRequest.Listeners.Port", REGISTERED),
    ("ControllerRegistrationRequest.Listeners.Host", REGISTERED),
    ("ControllerRegistrationRequest.Listeners.Port", REGISTERED),
    ("AddRaftVoterRequest.Listeners.Host", REGISTERED),
    ("AddRaftVoterRequest.Listeners.Port", REGISTERED),
    ("UpdateRaftVoterRequest.Listeners.Host", REGISTERED),
    ("UpdateRaftVoterRequest.Listeners.Port", REGISTERED),
    // The controllers' quorum.
    ("DescribeQuorumResponse.Nodes.Listeners.Host", QUORUM),
    ("DescribeQuorumResponse.Nodes.Listeners.Port", QUORUM),
    ("VoteResponse.NodeEndpoints.Host", RAFT),
    ("VoteResponse.NodeEndpoints.Port", RAFT),
    ("BeginQuorumEpochRequest.LeaderEndpoints.Host", RAFT),
    ("BeginQuorumEpochRequest.LeaderEndpoints.Port", RAFT),
    ("BeginQuorumEpochResponse.NodeEndpoints.Host", RAFT),
    ("BeginQuorumEpochResponse.NodeEndpoints.Port", RAFT),
    ("EndQuorumEpochRequest.LeaderEndpoints.Host", RAFT),
    ("EndQuorumEpochRequest.LeaderEndpoints.Port", RAFT),
    ("EndQuorumEpochResponse.NodeEndpoints.Host", RAFT),
    ("EndQuorumEpochResponse.NodeEndpoints.Port", RAFT),
    ("FetchSnapshotResponse.NodeEndpoints.Host", RAFT),
    ("FetchSnapshotResponse.NodeEndpoints.Port", RAFT),
    ("UpdateRaftVoterResponse.CurrentLeader.Host", RAFT),
    ("UpdateRaftVoterResponse.CurrentLeader.Port", RAFT),
    (
        "VotersRecord.Voters.Endpoints.Host",
        "a record of the metadata log, not a request or a response",
    ),
    (
        "VotersRecord.Voters.Endpoints.Port",
        "a record of the metadata log, not a request or a response",
    ),
    // The controller's requests to brokers before KRaft (removed in Kafka 4.0).
    ("LeaderAndIsrRequest.LiveLeaders.HostName", ZOOKEEPER),
    ("LeaderAndIsrRequest.LiveLeaders.Port", ZOOKEEPER),
    ("UpdateMetadataRequest.LiveBrokers.V0Host", ZOOKEEPER),
    ("UpdateMetadataRequest.LiveBrokers.V0Port", ZOOKEEPER),
    (
        "UpdateMetadataRequest.LiveBrokers.Endpoints.Host",
        ZOOKEEPER,
    ),
    (
        "UpdateMetadataRequest.LiveBrokers.Endpoints.Port",
        ZOOKEEPER,
    ),
];

const ACL: &str = "an ACL's host: where a principal may connect from, not a broker";
const CLIENT: &str = "the member's own client host, as the broker saw it";
const STREAMS: &str =
    "a Kafka Streams instance's endpoint for interactive queries: the application's, not a broker";
const REGISTERED: &str = "a request: the listeners a node is reached at, told to the \
                          controllers, which must record them as they are";
const QUORUM: &str = "a controller voter's listeners, shown by a quorum description; no client \
                      connects to them from it (an admin client learns the controllers it \
                      connects to from DescribeCluster)";
const RAFT: &str = "controller to controller (KRaft): the quorum's leader or voters, told to \
                    another controller, never to a client";
const ZOOKEEPER: &str = "controller to broker, before KRaft (the API is gone from Kafka 4.0)";

/// One broker address a response names, as [`rewrite_response`] hands it to the caller.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
#[non_exhaustive]
pub struct Broker<'a> {
    /// The broker's node id: the row's `NodeId` (`BrokerId` in DescribeCluster). Every field
    /// in [`REWRITTEN`] sits next to one.
    pub node_id: i32,
    /// The host as the response holds it (see [`Str::to_str`]), never empty.
    pub host: Str<'a>,
    /// The port, never negative.
    pub port: i32,
    /// The schema path of the struct that holds the address, such as
    /// `"MetadataResponse.Brokers"` or, for the single coordinator before v4,
    /// `"FindCoordinatorResponse"`: its `Host` and `Port` are entries of [`REWRITTEN`].
    pub at: &'static str,
}

/// What [`rewrite_response`] did.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
#[must_use]
pub enum Rewritten {
    /// No address changed: the response names none, or the caller kept each as it was.
    /// Nothing was written; the frame as it came is the one to relay.
    Unchanged,
    /// This many addresses changed (a host, a port or both), and the re-encoded frame was
    /// appended to the output.
    Changed {
        /// The addresses changed.
        addresses: usize,
    },
}

impl Rewritten {
    /// True if a frame was written.
    #[must_use]
    pub const fn is_changed(self) -> bool {
        matches!(self, Self::Changed { .. })
    }
}

/// True if a response of `api_key` at `version` can name a broker address that
/// [`rewrite_response`] rewrites, in this build (the API's feature on): the responses a relay
/// needs to decode. Every other one can be relayed as it came, undecoded.
///
/// Fetch names leaders from v16 and Produce from v10; Metadata, DescribeCluster,
/// FindCoordinator, ShareFetch and ShareAcknowledge at every version.
#[must_use]
pub const fn tells_broker_addresses(api_key: ApiKey, version: i16) -> bool {
    api_key.is_enabled() && crate::api::names_brokers(api_key, version)
}

/// Re-encodes a response with the broker addresses it names rewritten, appending the whole
/// frame (size prefix, `header` and `body`, at `version`) to `out`.
///
/// `to` is asked once for each address of a field in [`REWRITTEN`], in wire order, and returns
/// the new host and port, or `None` to leave the address as it is. An entry without a broker
/// (an error's empty entry: an empty host or a negative port) is never passed to it and stays
/// as it is.
///
/// The new host is any owner of a string (`H: AsRef<str>`): a `&str` that outlives the call,
/// such as the relay's own host, or a `String` made for this broker. The call keeps each one
/// until the frame is encoded, so nothing the caller returns needs to live longer than that.
///
/// When no address changes (the response names none, such as every response for which
/// [`tells_broker_addresses`] is false, or `to` left each as it was, or returned it unchanged),
/// nothing is encoded or written and the result is [`Rewritten::Unchanged`]: the frame as it
/// came is the one to relay.
///
/// `body` is normally one just decoded from a frame at `version`, which re-encodes at that
/// version as it was read; only the addresses differ.
///
/// # Errors
///
/// The errors of [`frame::encode_response`], such as `LengthOverflow` for a host longer than a
/// string can say, and `BufferTooSmall` when `out` cannot grow to hold the frame. `out` is left
/// as it was then.
#[cfg_attr(
    not(kwire_names_brokers),
    allow(
        unused_variables,
        unused_mut,
        clippy::match_single_binding,
        clippy::needless_pass_by_value,
        clippy::ptr_arg,
        reason = "a build without the APIs that name brokers has nothing to rewrite"
    )
)]
pub fn rewrite_response<'a, H: AsRef<str>>(
    header: &ResponseHeader<'_>,
    body: &Response<'a>,
    version: i16,
    out: &mut Vec<u8>,
    mut to: impl FnMut(Broker<'a>) -> Option<(H, i32)>,
) -> Result<Rewritten, EncodeError> {
    // `$body` with the rows of its array `$field` (set by `$with`, node ids in `$id`) moved to
    // the caller's addresses, appended to `out`.
    #[allow(
        unused_macros,
        reason = "used by each API that names brokers, whose features may all be off"
    )]
    macro_rules! rows {
        ($body:expr, $field:ident, $with:ident, $id:ident, $at:literal) => {{
            let body = *$body;
            let rows = body.$field.iter().map(|r| (r.$id, r.host, r.port));
            let (new, addresses) = new_addresses(rows, $at, &mut to);
            if addresses == 0 {
                return Ok(Rewritten::Unchanged);
            }
            let rows: Vec<_> = body
                .$field
                .iter()
                .zip(&new)
                .map(|(row, new)| match new {
                    Some((host, port)) => row.with_host(host.as_ref()).with_port(*port),
                    None => row,
                })
                .collect();
            append(out, header, &body.$with(&rows[..]), version, addresses)
        }};
    }
    match body {
        #[cfg(feature = "Metadata")]
        Response::Metadata(m) => rows!(
            m,
            brokers,
            with_brokers,
            node_id,
            "MetadataResponse.Brokers"
        ),
        #[cfg(feature = "DescribeCluster")]
        Response::DescribeCluster(d) => rows!(
            d,
            brokers,
            with_brokers,
            broker_id,
            "DescribeClusterResponse.Brokers"
        ),
        // One coordinator, at the top level, before v4.
        #[cfg(feature = "FindCoordinator")]
        Response::FindCoordinator(c) if version < 4 => {
            let one = core::iter::once((c.node_id, c.host, c.port));
            let (new, addresses) = new_addresses(one, "FindCoordinatorResponse", &mut to);
            match new.first() {
                Some(Some((host, port))) => {
                    let c = c.with_host(host.as_ref()).with_port(*port);
                    append(out, header, &c, version, addresses)
                }
                _ => Ok(Rewritten::Unchanged),
            }
        }
        #[cfg(feature = "FindCoordinator")]
        Response::FindCoordinator(c) => rows!(
            c,
            coordinators,
            with_coordinators,
            node_id,
            "FindCoordinatorResponse.Coordinators"
        ),
        #[cfg(feature = "Fetch")]
        Response::Fetch(r) => rows!(
            r,
            node_endpoints,
            with_node_endpoints,
            node_id,
            "FetchResponse.NodeEndpoints"
        ),
        #[cfg(feature = "Produce")]
        Response::Produce(r) => rows!(
            r,
            node_endpoints,
            with_node_endpoints,
            node_id,
            "ProduceResponse.NodeEndpoints"
        ),
        #[cfg(feature = "ShareFetch")]
        Response::ShareFetch(r) => rows!(
            r,
            node_endpoints,
            with_node_endpoints,
            node_id,
            "ShareFetchResponse.NodeEndpoints"
        ),
        #[cfg(feature = "ShareAcknowledge")]
        Response::ShareAcknowledge(r) => rows!(
            r,
            node_endpoints,
            with_node_endpoints,
            node_id,
            "ShareAcknowledgeResponse.NodeEndpoints"
        ),
        #[allow(
            unreachable_patterns,
            reason = "every other response, when the build has any other API"
        )]
        _ => Ok(Rewritten::Unchanged),
    }
}

/// The caller's new address for each row given as (node id, host, port), `None` where the
/// address stays (no broker there, or the caller kept it), and how many changed.
#[cfg_attr(
    not(kwire_names_brokers),
    allow(dead_code, reason = "used by each API that names brokers")
)]
fn new_addresses<'a, H: AsRef<str>>(
    rows: impl Iterator<Item = (i32, Str<'a>, i32)>,
    at: &'static str,
    to: &mut impl FnMut(Broker<'a>) -> Option<(H, i32)>,
) -> (Vec<Option<(H, i32)>>, usize) {
    let mut changed: usize = 0;
    let new = rows
        .map(|(node_id, host, port)| {
            // No broker (an error's empty entry): left as it is.
            if host.is_empty() || port < 0 {
                return None;
            }
            let (new_host, new_port) = to(Broker {
                node_id,
                host,
                port,
                at,
            })?;
            if host == new_host.as_ref() && new_port == port {
                return None;
            }
            changed = changed.saturating_add(1);
            Some((new_host, new_port))
        })
        .collect();
    (new, changed)
}

/// Appends the frame of `header` and `body` at `version` to `out`.
#[cfg_attr(
    not(kwire_names_brokers),
    allow(dead_code, reason = "used by each API that names brokers")
)]
fn append<B: Body>(
    out: &mut Vec<u8>,
    header: &ResponseHeader<'_>,
    body: &B,
    version: i16,
    addresses: usize,
) -> Result<Rewritten, EncodeError> {
    let len = frame::response_len(header, body, version)?;
    let start = out.len();
    if out.try_reserve(len).is_err() {
        return Err(EncodeError::BufferTooSmall {
            required: len,
            available: out.capacity().saturating_sub(start),
        });
    }
    // The reservation made room for `start + len` bytes: the sum fits.
    out.resize(start.saturating_add(len), 0);
    let written = frame::encode_response(
        header,
        body,
        version,
        out.get_mut(start..).unwrap_or_default(),
    );
    if let Err(e) = written {
        out.truncate(start);
        return Err(e);
    }
    Ok(Rewritten::Changed { addresses })
}
