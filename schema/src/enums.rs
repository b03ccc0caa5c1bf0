//! The names of the protocol's enumerated values: error codes, API keys, acks, isolation levels,
//! resource, ACL, coordinator and configuration types. The schemas declare these fields as plain
//! integers; the names are Kafka's, as its clients and tools print them.

use kwire::api::{ApiKey, ErrorCode};

use super::tree::Category;

/// The APIs whose resource types, operations and permission types are an ACL's.
macro_rules! acl_apis {
    () => {
        ApiKey::CREATE_ACLS | ApiKey::DESCRIBE_ACLS | ApiKey::DELETE_ACLS
    };
}
/// The name the protocol gives `value` of the integer field `field` in a message of `api`
/// (`category` tells a request from a response), if it names one.
///
/// An error code of zero is not named: it is the absence of an error, and trees show it bare.
/// A non-zero code this crate does not know is named as such.
pub(crate) fn value_name(
    api: ApiKey,
    category: Category,
    field: &str,
    value: i64,
) -> Option<&'static str> {
    if field.ends_with("ErrorCode") {
        return match i16::try_from(value) {
            Ok(0) => None,
            Ok(code) => Some(ErrorCode(code).name().unwrap_or("unknown error code")),
            Err(_) => None,
        };
    }
    let table: &[(i64, &'static str)] = match (field, api) {
        ("Acks", ApiKey::PRODUCE) => &[(-1, "all"), (0, "none"), (1, "leader")],
        ("IsolationLevel", _) => &[(0, "READ_UNCOMMITTED"), (1, "READ_COMMITTED")],
        ("Timestamp", ApiKey::LIST_OFFSETS) if category == Category::RequestBody => &[
            (-1, "LATEST"),
            (-2, "EARLIEST"),
            (-3, "MAX_TIMESTAMP"),
            (-4, "EARLIEST_LOCAL"),
            (-5, "LATEST_TIERED"),
        ],
        ("KeyType", ApiKey::FIND_COORDINATOR) => &[(0, "GROUP"), (1, "TRANSACTION"), (2, "SHARE")],
        ("ResourceType" | "ResourceTypeFilter", acl_apis!()) => &[
            (0, "UNKNOWN"),
            (1, "ANY"),
            (2, "TOPIC"),
            (3, "GROUP"),
            (4, "CLUSTER"),
            (5, "TRANSACTIONAL_ID"),
            (6, "DELEGATION_TOKEN"),
            (7, "USER"),
        ],
        ("ResourceType" | "ResourceTypes", _) => &[
            (0, "UNKNOWN"),
            (2, "TOPIC"),
            (4, "BROKER"),
            (8, "BROKER_LOGGER"),
            (16, "CLIENT_METRICS"),
            (32, "GROUP"),
        ],
        ("PatternType" | "PatternTypeFilter" | "ResourcePatternType", _) => &[
            (0, "UNKNOWN"),
            (1, "ANY"),
            (2, "MATCH"),
            (3, "LITERAL"),
            (4, "PREFIXED"),
        ],
        ("Operation", acl_apis!()) => &[
            (0, "UNKNOWN"),
            (1, "ANY"),
            (2, "ALL"),
            (3, "READ"),
            (4, "WRITE"),
            (5, "CREATE"),
            (6, "DELETE"),
            (7, "ALTER"),
            (8, "DESCRIBE"),
            (9, "CLUSTER_ACTION"),
            (10, "DESCRIBE_CONFIGS"),
            (11, "ALTER_CONFIGS"),
            (12, "IDEMPOTENT_WRITE"),
            (13, "CREATE_TOKENS"),
            (14, "DESCRIBE_TOKENS"),
            (15, "TWO_PHASE_COMMIT"),
        ],
        ("PermissionType", acl_apis!()) => &[(0, "UNKNOWN"), (1, "ANY"), (2, "DENY"), (3, "ALLOW")],
        ("ConfigOperation", ApiKey::INCREMENTAL_ALTER_CONFIGS) => {
            &[(0, "SET"), (1, "DELETE"), (2, "APPEND"), (3, "SUBTRACT")]
        }
        ("ConfigSource", _) => &[
            (0, "UNKNOWN"),
            (1, "TOPIC_CONFIG"),
            (2, "DYNAMIC_BROKER_CONFIG"),
            (3, "DYNAMIC_DEFAULT_BROKER_CONFIG"),
            (4, "STATIC_BROKER_CONFIG"),
            (5, "DEFAULT_CONFIG"),
            (6, "DYNAMIC_BROKER_LOGGER_CONFIG"),
            (7, "CLIENT_METRICS_CONFIG"),
            (8, "GROUP_CONFIG"),
        ],
        ("ConfigType", ApiKey::DESCRIBE_CONFIGS) => &[
            (0, "UNKNOWN"),
            (1, "BOOLEAN"),
            (2, "STRING"),
            (3, "INT"),
            (4, "SHORT"),
            (5, "LONG"),
            (6, "DOUBLE"),
            (7, "LIST"),
            (8, "CLASS"),
            (9, "PASSWORD"),
        ],
        ("ElectionType", ApiKey::ELECT_LEADERS) => &[(0, "PREFERRED"), (1, "UNCLEAN")],
        ("MatchType", ApiKey::DESCRIBE_CLIENT_QUOTAS) => {
            &[(0, "EXACT"), (1, "DEFAULT"), (2, "SPECIFIED")]
        }
        ("Mechanism", _) => &[(0, "UNKNOWN"), (1, "SCRAM-SHA-256"), (2, "SCRAM-SHA-512")],
        ("UpgradeType", ApiKey::UPDATE_FEATURES) => &[
            (1, "UPGRADE"),
            (2, "SAFE_DOWNGRADE"),
            (3, "UNSAFE_DOWNGRADE"),
        ],
        _ => return None,
    };
    table
        .iter()
        .find(|(v, _)| *v == value)
        .map(|(_, name)| *name)
}

#[cfg(test)]
mod tests {
    use super::*;

    const REQ: Category = Category::RequestBody;
    const RESP: Category = Category::ResponseBody;

    #[test]
    fn names_what_the_protocol_names() {
        let name = |api, cat, field, v| value_name(api, cat, field, v);
        assert_eq!(
            name(ApiKey::FETCH, RESP, "ErrorCode", 1),
            Some("OFFSET_OUT_OF_RANGE")
        );
        assert_eq!(name(ApiKey::FETCH, RESP, "ErrorCode", 0), None);
        assert_eq!(
            name(ApiKey::FETCH, RESP, "ErrorCode", 31_000),
            Some("unknown error code")
        );
        assert_eq!(name(ApiKey::PRODUCE, REQ, "Acks", -1), Some("all"));
        assert_eq!(
            name(ApiKey::FETCH, REQ, "IsolationLevel", 1),
            Some("READ_COMMITTED")
        );
        assert_eq!(
            name(ApiKey::LIST_OFFSETS, REQ, "Timestamp", -2),
            Some("EARLIEST")
        );
        // A response's timestamp is a time, not a query.
        assert_eq!(name(ApiKey::LIST_OFFSETS, RESP, "Timestamp", -1), None);
        // Resource types: an ACL's and a configuration's differ.
        assert_eq!(
            name(ApiKey::CREATE_ACLS, REQ, "ResourceType", 4),
            Some("CLUSTER")
        );
        assert_eq!(
            name(ApiKey::DESCRIBE_CONFIGS, REQ, "ResourceType", 4),
            Some("BROKER")
        );
        assert_eq!(
            name(ApiKey::DESCRIBE_ACLS, REQ, "Operation", 3),
            Some("READ")
        );
        assert_eq!(
            name(ApiKey::FIND_COORDINATOR, REQ, "KeyType", 1),
            Some("TRANSACTION")
        );
        // A value outside the enumeration, and a field that is not one.
        assert_eq!(name(ApiKey::UPDATE_FEATURES, REQ, "UpgradeType", 0), None);
        assert_eq!(name(ApiKey::FETCH, REQ, "MaxWaitMs", 1), None);
    }
}
