//! Kafka's error codes: the `i16` a response carries per topic, partition, group or request.

use core::fmt;

/// A Kafka error code: an open newtype over the `i16` in a response's `error_code` fields, so a
/// code this crate does not know survives a round trip and prints as its number.
///
/// The associated constants name every code Kafka defines, with the protocol's upper-case
/// names ([`ErrorCode::name`]) and whether a client may retry the request unchanged
/// ([`ErrorCode::is_retriable`]).
///
/// ```
/// use kwire::ErrorCode;
///
/// let code = ErrorCode::from(3);
/// assert_eq!(code, ErrorCode::UNKNOWN_TOPIC_OR_PARTITION);
/// assert_eq!(code.name(), Some("UNKNOWN_TOPIC_OR_PARTITION"));
/// assert!(code.is_retriable());
/// assert_eq!(code.to_string(), "UNKNOWN_TOPIC_OR_PARTITION");
///
/// // A code from a newer broker: kept, printed as its number.
/// let newer = ErrorCode(1000);
/// assert_eq!(newer.name(), None);
/// assert!(!newer.is_retriable());
/// assert_eq!(newer.to_string(), "1000");
///
/// // Generated messages carry the raw `i16`, which compares with the constants directly.
/// let partition_error: i16 = 6;
/// assert!(partition_error == ErrorCode::NOT_LEADER_OR_FOLLOWER);
/// ```
///
/// ## Printing
///
/// `{}` prints the name, for messages to people; `{:#}` adds Kafka's description; `{:?}` prints
/// the name and the number, for logs and assertions, where the number is what a search finds:
///
/// ```
/// use kwire::ErrorCode;
///
/// let code = ErrorCode::UNKNOWN_TOPIC_ID;
/// assert_eq!(format!("{code}"), "UNKNOWN_TOPIC_ID");
/// assert_eq!(format!("{code:?}"), "UNKNOWN_TOPIC_ID(100)");
/// assert!(format!("{code:#}").starts_with("UNKNOWN_TOPIC_ID ("));
/// assert_eq!(format!("{:?}", ErrorCode::NONE), "NONE(0)");
/// assert_eq!(format!("{:?}", ErrorCode(1000)), "ErrorCode(1000)");
/// ```
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub struct ErrorCode(pub i16);

/// The facts of one error code.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct ErrorInfo {
    code: ErrorCode,
    name: &'static str,
    retriable: bool,
    description: &'static str,
}

/// The end of a constant's doc: whether the code is retriable.
macro_rules! retriable_doc {
    (true) => {
        ", retriable."
    };
    (false) => {
        "."
    };
}

/// Defines the constants and [`ERROR_TABLE`], in code order from -1 without gaps, so that a
/// code's entry is at index `code + 1`.
macro_rules! error_codes {
    ($( #[doc = $doc:literal] $name:ident = $code:literal, $retriable:tt; )*) => {
        impl ErrorCode {
            $(
                #[doc = $doc]
                #[doc = ""]
                #[doc = concat!("Code ", stringify!($code), retriable_doc!($retriable))]
                pub const $name: Self = Self($code);
            )*
        }

        /// Every code Kafka defines, indexed by `code + 1`.
        static ERROR_TABLE: &[ErrorInfo] = &[
            $(
                ErrorInfo {
                    code: ErrorCode::$name,
                    name: stringify!($name),
                    retriable: $retriable,
                    description: $doc.trim_ascii_start(),
                },
            )*
        ];
    };
}

error_codes! {
    /// The broker failed in a way it has no code for.
    UNKNOWN_SERVER_ERROR = -1, false;
    /// No error.
    NONE = 0, false;
    /// The offset asked for is outside the partition's log.
    OFFSET_OUT_OF_RANGE = 1, false;
    /// A record failed its CRC, was cut short or is otherwise malformed.
    CORRUPT_MESSAGE = 2, true;
    /// The broker does not host this topic or partition.
    UNKNOWN_TOPIC_OR_PARTITION = 3, true;
    /// The fetch size asked for is not valid.
    INVALID_FETCH_SIZE = 4, false;
    /// The partition has no leader right now, as during an election.
    LEADER_NOT_AVAILABLE = 5, true;
    /// The broker is not the partition's leader (or, for a follower fetch, not a replica).
    NOT_LEADER_OR_FOLLOWER = 6, true;
    /// The request did not complete in time.
    REQUEST_TIMED_OUT = 7, true;
    /// The broker is not available.
    BROKER_NOT_AVAILABLE = 8, false;
    /// A replica the request needs is not available.
    REPLICA_NOT_AVAILABLE = 9, true;
    /// A record batch is larger than the broker or topic accepts.
    MESSAGE_TOO_LARGE = 10, false;
    /// The request came from a controller with an old epoch.
    STALE_CONTROLLER_EPOCH = 11, false;
    /// The metadata string of an offset commit is too long.
    OFFSET_METADATA_TOO_LARGE = 12, false;
    /// The connection closed before the broker answered.
    NETWORK_EXCEPTION = 13, true;
    /// The coordinator is still loading its state.
    COORDINATOR_LOAD_IN_PROGRESS = 14, true;
    /// The coordinator is not available.
    COORDINATOR_NOT_AVAILABLE = 15, true;
    /// The broker is not the coordinator of this group or transaction.
    NOT_COORDINATOR = 16, true;
    /// The topic name is not valid, or the topic is internal.
    INVALID_TOPIC_EXCEPTION = 17, false;
    /// A produce request's records are larger than the segment size.
    RECORD_LIST_TOO_LARGE = 18, false;
    /// Fewer in-sync replicas than the topic requires: the write was refused.
    NOT_ENOUGH_REPLICAS = 19, true;
    /// The write was appended, but fewer in-sync replicas than required hold it.
    NOT_ENOUGH_REPLICAS_AFTER_APPEND = 20, true;
    /// The produce request's acks value is not valid.
    INVALID_REQUIRED_ACKS = 21, false;
    /// The group generation given is not the current one.
    ILLEGAL_GENERATION = 22, false;
    /// The member's protocol type or protocols do not match the group's.
    INCONSISTENT_GROUP_PROTOCOL = 23, false;
    /// The group id is empty or null.
    INVALID_GROUP_ID = 24, false;
    /// The coordinator does not know this member id.
    UNKNOWN_MEMBER_ID = 25, false;
    /// The session timeout is outside the range the broker allows.
    INVALID_SESSION_TIMEOUT = 26, false;
    /// The group is rebalancing; the member should rejoin.
    REBALANCE_IN_PROGRESS = 27, false;
    /// The committed offset's data is too large.
    INVALID_COMMIT_OFFSET_SIZE = 28, false;
    /// The principal may not access the topic.
    TOPIC_AUTHORIZATION_FAILED = 29, false;
    /// The principal may not access the group.
    GROUP_AUTHORIZATION_FAILED = 30, false;
    /// The principal may not perform this cluster action.
    CLUSTER_AUTHORIZATION_FAILED = 31, false;
    /// A record's timestamp is outside the accepted range.
    INVALID_TIMESTAMP = 32, false;
    /// The broker does not offer the SASL mechanism asked for.
    UNSUPPORTED_SASL_MECHANISM = 33, false;
    /// The SASL request is not valid in the connection's current state.
    ILLEGAL_SASL_STATE = 34, false;
    /// The broker does not support this version of the API.
    UNSUPPORTED_VERSION = 35, false;
    /// A topic of this name exists already.
    TOPIC_ALREADY_EXISTS = 36, false;
    /// The partition count is not valid.
    INVALID_PARTITIONS = 37, false;
    /// The replication factor is not valid.
    INVALID_REPLICATION_FACTOR = 38, false;
    /// The replica assignment is not valid.
    INVALID_REPLICA_ASSIGNMENT = 39, false;
    /// A configuration value is not valid.
    INVALID_CONFIG = 40, false;
    /// The broker is not the active controller.
    NOT_CONTROLLER = 41, true;
    /// The request is malformed or breaks the protocol's rules.
    INVALID_REQUEST = 42, false;
    /// The topic's message format version does not support this request.
    UNSUPPORTED_FOR_MESSAGE_FORMAT = 43, false;
    /// The request breaks a policy configured on the broker.
    POLICY_VIOLATION = 44, false;
    /// The broker received a producer sequence number out of order.
    OUT_OF_ORDER_SEQUENCE_NUMBER = 45, false;
    /// The broker has already received this producer sequence number.
    DUPLICATE_SEQUENCE_NUMBER = 46, false;
    /// The producer's epoch is old: another producer with its transactional id has started.
    INVALID_PRODUCER_EPOCH = 47, false;
    /// The operation is not valid in the transaction's current state.
    INVALID_TXN_STATE = 48, false;
    /// The producer id does not match the transactional id.
    INVALID_PRODUCER_ID_MAPPING = 49, false;
    /// The transaction timeout exceeds the broker's maximum.
    INVALID_TRANSACTION_TIMEOUT = 50, false;
    /// The previous transaction of this producer is still completing.
    CONCURRENT_TRANSACTIONS = 51, false;
    /// A newer transaction coordinator has taken over from the one that sent this.
    TRANSACTION_COORDINATOR_FENCED = 52, false;
    /// The principal may not use the transactional id.
    TRANSACTIONAL_ID_AUTHORIZATION_FAILED = 53, false;
    /// Security features are disabled on the broker.
    SECURITY_DISABLED = 54, false;
    /// The broker did not attempt this operation because another in the same request failed.
    OPERATION_NOT_ATTEMPTED = 55, false;
    /// A disk error on the broker: the replica is offline.
    KAFKA_STORAGE_ERROR = 56, true;
    /// The log directory is not among the broker's.
    LOG_DIR_NOT_FOUND = 57, false;
    /// SASL authentication failed.
    SASL_AUTHENTICATION_FAILED = 58, false;
    /// The broker has no state for this producer id.
    UNKNOWN_PRODUCER_ID = 59, false;
    /// A partition reassignment is in progress.
    REASSIGNMENT_IN_PROGRESS = 60, false;
    /// Delegation token authentication is disabled.
    DELEGATION_TOKEN_AUTH_DISABLED = 61, false;
    /// The delegation token does not exist.
    DELEGATION_TOKEN_NOT_FOUND = 62, false;
    /// The principal is neither the token's owner nor a renewer.
    DELEGATION_TOKEN_OWNER_MISMATCH = 63, false;
    /// Delegation token requests are not allowed on this kind of connection.
    DELEGATION_TOKEN_REQUEST_NOT_ALLOWED = 64, false;
    /// The principal may not use the delegation token.
    DELEGATION_TOKEN_AUTHORIZATION_FAILED = 65, false;
    /// The delegation token has expired.
    DELEGATION_TOKEN_EXPIRED = 66, false;
    /// The principal type is not supported.
    INVALID_PRINCIPAL_TYPE = 67, false;
    /// The group has members, so it cannot be deleted.
    NON_EMPTY_GROUP = 68, false;
    /// No group has this id.
    GROUP_ID_NOT_FOUND = 69, false;
    /// The broker has no fetch session with this id.
    FETCH_SESSION_ID_NOT_FOUND = 70, true;
    /// The fetch session epoch is not the one expected.
    INVALID_FETCH_SESSION_EPOCH = 71, true;
    /// The leader has no endpoint on the listener the request came in on.
    LISTENER_NOT_FOUND = 72, true;
    /// Topic deletion is disabled on the broker.
    TOPIC_DELETION_DISABLED = 73, false;
    /// The leader epoch given is older than the broker's.
    FENCED_LEADER_EPOCH = 74, true;
    /// The leader epoch given is newer than the broker's.
    UNKNOWN_LEADER_EPOCH = 75, true;
    /// The consumer's fetch version cannot carry the topic's compression.
    UNSUPPORTED_COMPRESSION_TYPE = 76, false;
    /// The broker epoch is old.
    STALE_BROKER_EPOCH = 77, false;
    /// The leader's high watermark has not caught up after an election.
    OFFSET_NOT_AVAILABLE = 78, true;
    /// The member must rejoin with the member id the coordinator gave it.
    MEMBER_ID_REQUIRED = 79, false;
    /// The preferred leader is not available.
    PREFERRED_LEADER_NOT_AVAILABLE = 80, true;
    /// The group has its maximum number of members.
    GROUP_MAX_SIZE_REACHED = 81, false;
    /// Another member with the same group instance id has replaced this one.
    FENCED_INSTANCE_ID = 82, false;
    /// No replica eligible to lead is available.
    ELIGIBLE_LEADERS_NOT_AVAILABLE = 83, true;
    /// The leader is already the one the election would choose.
    ELECTION_NOT_NEEDED = 84, true;
    /// No partition reassignment is in progress.
    NO_REASSIGNMENT_IN_PROGRESS = 85, false;
    /// The group subscribes to the topic, so its offsets cannot be deleted.
    GROUP_SUBSCRIBED_TO_TOPIC = 86, false;
    /// A record failed the broker's validation.
    INVALID_RECORD = 87, false;
    /// A transactional offset commit for the partition is still pending.
    UNSTABLE_OFFSET_COMMIT = 88, true;
    /// The principal's quota on this kind of request is used up.
    THROTTLING_QUOTA_EXCEEDED = 89, true;
    /// A newer producer with the same transactional id has fenced this one.
    PRODUCER_FENCED = 90, false;
    /// A resource the request names does not exist.
    RESOURCE_NOT_FOUND = 91, false;
    /// The request names a resource twice.
    DUPLICATE_RESOURCE = 92, false;
    /// The credential does not meet the broker's requirements.
    UNACCEPTABLE_CREDENTIAL = 93, false;
    /// The voter set does not agree with the replica's.
    INCONSISTENT_VOTER_SET = 94, false;
    /// The version in the update is not valid.
    INVALID_UPDATE_VERSION = 95, false;
    /// The controller could not apply the feature update.
    FEATURE_UPDATE_FAILED = 96, false;
    /// The forwarded principal could not be read.
    PRINCIPAL_DESERIALIZATION_FAILURE = 97, false;
    /// The snapshot asked for does not exist.
    SNAPSHOT_NOT_FOUND = 98, false;
    /// The position asked for is outside the snapshot.
    POSITION_OUT_OF_RANGE = 99, false;
    /// The broker does not know this topic id.
    UNKNOWN_TOPIC_ID = 100, true;
    /// A broker with this id is registered already.
    DUPLICATE_BROKER_REGISTRATION = 101, false;
    /// No broker with this id is registered.
    BROKER_ID_NOT_REGISTERED = 102, false;
    /// The topic id does not match the topic's id on the broker.
    INCONSISTENT_TOPIC_ID = 103, true;
    /// The cluster id does not match this cluster's.
    INCONSISTENT_CLUSTER_ID = 104, false;
    /// No transaction has this transactional id.
    TRANSACTIONAL_ID_NOT_FOUND = 105, false;
    /// The fetch session's topic ids changed, or some are missing.
    FETCH_SESSION_TOPIC_ID_ERROR = 106, true;
    /// The replica cannot join the ISR now.
    INELIGIBLE_REPLICA = 107, false;
    /// A new leader was elected while the request was waiting.
    NEW_LEADER_ELECTED = 108, false;
    /// The offset is only in tiered storage now.
    OFFSET_MOVED_TO_TIERED_STORAGE = 109, false;
    /// The member epoch is fenced: the member must rejoin with epoch 0.
    FENCED_MEMBER_EPOCH = 110, false;
    /// The group instance id is still held by another member.
    UNRELEASED_INSTANCE_ID = 111, false;
    /// The group does not support the assignor named.
    UNSUPPORTED_ASSIGNOR = 112, false;
    /// The member epoch is older than the group's.
    STALE_MEMBER_EPOCH = 113, false;
    /// The request reached an endpoint of another type than it was sent for.
    MISMATCHED_ENDPOINT_TYPE = 114, false;
    /// This endpoint type does not serve the request.
    UNSUPPORTED_ENDPOINT_TYPE = 115, false;
    /// No controller with this id is known.
    UNKNOWN_CONTROLLER_ID = 116, false;
    /// The client's telemetry subscription id is not the current one.
    UNKNOWN_SUBSCRIPTION_ID = 117, false;
    /// The telemetry payload is larger than the broker accepts.
    TELEMETRY_TOO_LARGE = 118, false;
    /// The controller rejected the registration.
    INVALID_REGISTRATION = 119, false;
    /// The transaction failed in a way that lets the producer abort it and go on.
    TRANSACTION_ABORTABLE = 120, false;
    /// The record is not in a state that allows this acknowledgement.
    INVALID_RECORD_STATE = 121, false;
    /// The broker has no share session for this member.
    SHARE_SESSION_NOT_FOUND = 122, true;
    /// The share session epoch is not the one expected.
    INVALID_SHARE_SESSION_EPOCH = 123, true;
    /// The share partition state epoch is old.
    FENCED_STATE_EPOCH = 124, false;
    /// The voter key does not match the receiving replica's.
    INVALID_VOTER_KEY = 125, false;
    /// The voter is in the voter set already.
    DUPLICATE_VOTER = 126, false;
    /// The voter is not in the voter set.
    VOTER_NOT_FOUND = 127, false;
    /// The regular expression is not valid.
    INVALID_REGULAR_EXPRESSION = 128, false;
    /// The client's metadata is stale: it should bootstrap again.
    REBOOTSTRAP_REQUIRED = 129, false;
    /// The streams topology is not valid.
    STREAMS_INVALID_TOPOLOGY = 130, false;
    /// The streams topology epoch is not valid.
    STREAMS_INVALID_TOPOLOGY_EPOCH = 131, false;
    /// The streams topology epoch is older than the group's.
    STREAMS_TOPOLOGY_FENCED = 132, false;
    /// The broker has as many share sessions as it allows.
    SHARE_SESSION_LIMIT_REACHED = 133, true;
}

impl ErrorCode {
    fn info(self) -> Option<&'static ErrorInfo> {
        let i = usize::try_from(self.0.checked_add(1)?).ok()?;
        ERROR_TABLE.get(i).filter(|e| e.code == self)
    }

    /// Whether this is [`ErrorCode::NONE`], the code of success.
    #[must_use]
    pub const fn is_ok(self) -> bool {
        self.0 == 0
    }

    /// Whether this is an error: any code but [`ErrorCode::NONE`], including unknown ones.
    #[must_use]
    pub const fn is_err(self) -> bool {
        self.0 != 0
    }

    /// The protocol's upper-case name, such as `"UNKNOWN_TOPIC_OR_PARTITION"`, or `None` for a
    /// code Kafka has not defined.
    #[must_use]
    pub fn name(self) -> Option<&'static str> {
        self.info().map(|e| e.name)
    }

    /// Whether a client may send the same request again and expect it to succeed once the
    /// condition passes (a leader election, a coordinator loading, a timeout). Unknown codes
    /// are not retriable.
    #[must_use]
    pub fn is_retriable(self) -> bool {
        self.info().is_some_and(|e| e.retriable)
    }

    /// What the code means, in a sentence, or `None` for a code Kafka has not defined.
    #[must_use]
    pub fn description(self) -> Option<&'static str> {
        self.info().map(|e| e.description)
    }

    /// Looks a code up by its protocol name, ignoring ASCII case
    /// (`"unknown_topic_or_partition"`).
    #[must_use]
    pub fn from_name(name: &str) -> Option<Self> {
        ERROR_TABLE
            .iter()
            .find(|e| e.name.eq_ignore_ascii_case(name))
            .map(|e| e.code)
    }

    /// Every code Kafka defines, in numeric order from -1 (`UNKNOWN_SERVER_ERROR`), `NONE`
    /// included.
    pub fn all() -> impl Iterator<Item = Self> {
        ERROR_TABLE.iter().map(|e| e.code)
    }
}

/// The name and number, such as `UNKNOWN_TOPIC_OR_PARTITION(3)`, or `ErrorCode(1000)`.
impl fmt::Debug for ErrorCode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.name() {
            Some(name) => write!(f, "{name}({})", self.0),
            None => write!(f, "ErrorCode({})", self.0),
        }
    }
}

/// The name, such as `UNKNOWN_TOPIC_OR_PARTITION`, or the number for a code Kafka has not
/// defined. The alternate form (`{:#}`) adds the description.
impl fmt::Display for ErrorCode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.info() {
            Some(e) if f.alternate() => write!(f, "{} ({})", e.name, e.description),
            Some(e) => f.write_str(e.name),
            None => write!(f, "{}", self.0),
        }
    }
}

#[cfg(feature = "defmt")]
impl defmt::Format for ErrorCode {
    fn format(&self, f: defmt::Formatter<'_>) {
        match self.name() {
            Some(name) => defmt::write!(f, "{=str}", name),
            None => defmt::write!(f, "{=i16}", self.0),
        }
    }
}

impl From<i16> for ErrorCode {
    fn from(v: i16) -> Self {
        Self(v)
    }
}

impl From<ErrorCode> for i16 {
    fn from(c: ErrorCode) -> Self {
        c.0
    }
}

impl PartialEq<i16> for ErrorCode {
    fn eq(&self, other: &i16) -> bool {
        self.0 == *other
    }
}

impl PartialEq<ErrorCode> for i16 {
    fn eq(&self, other: &ErrorCode) -> bool {
        *self == other.0
    }
}
