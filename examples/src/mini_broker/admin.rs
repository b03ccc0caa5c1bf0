//! The admin calls on the broker and its topics: DescribeConfigs and DescribeCluster.
//!
//! Topics and the broker report Kafka's default values for the settings clients and tools ask
//! about most; the broker's own id, listener and partition count come from its configuration.

use kwire::ErrorCode;
use kwire::messages::describe_cluster_response::DescribeClusterBroker;
use kwire::messages::describe_configs_response::{
    DescribeConfigsResourceResult, DescribeConfigsResult, DescribeConfigsSynonym,
};
use kwire::messages::{
    DescribeClusterRequest, DescribeClusterResponse, DescribeConfigsRequest,
    DescribeConfigsResponse,
};

use super::broker::{CLUSTER_ID, Config, encode};

/// `ResourceType` values of DescribeConfigs.
pub mod resource {
    pub const TOPIC: i8 = 2;
    pub const BROKER: i8 = 4;
}

/// `ConfigSource` values of DescribeConfigs (v1+).
mod source {
    pub const STATIC_BROKER_CONFIG: i8 = 4;
    pub const DEFAULT_CONFIG: i8 = 5;
}

/// `ConfigType` values of DescribeConfigs (v3+).
#[derive(Debug, Clone, Copy)]
#[repr(i8)]
enum Type {
    Boolean = 1,
    String = 2,
    Int = 3,
    Short = 4,
    Long = 5,
    Double = 6,
    List = 7,
}

/// One setting: name, value, type, and whether the broker's configuration set it.
#[derive(Debug, Clone)]
struct Setting {
    name: &'static str,
    value: String,
    ty: Type,
    configured: bool,
}

impl Setting {
    fn default(name: &'static str, value: &str, ty: Type) -> Self {
        Self {
            name,
            value: value.to_owned(),
            ty,
            configured: false,
        }
    }
}

/// Kafka's defaults for the topic settings.
fn topic_settings() -> Vec<Setting> {
    use Type::{Boolean, Double, Int, List, Long};
    [
        ("cleanup.policy", "delete", List),
        ("compression.type", "producer", Type::String),
        ("delete.retention.ms", "86400000", Long),
        ("file.delete.delay.ms", "60000", Long),
        ("flush.messages", "9223372036854775807", Long),
        ("flush.ms", "9223372036854775807", Long),
        ("index.interval.bytes", "4096", Int),
        ("max.compaction.lag.ms", "9223372036854775807", Long),
        ("max.message.bytes", "1048588", Int),
        ("message.timestamp.type", "CreateTime", Type::String),
        ("min.cleanable.dirty.ratio", "0.5", Double),
        ("min.compaction.lag.ms", "0", Long),
        ("min.insync.replicas", "1", Int),
        ("preallocate", "false", Boolean),
        ("retention.bytes", "-1", Long),
        ("retention.ms", "604800000", Long),
        ("segment.bytes", "1073741824", Int),
        ("segment.index.bytes", "10485760", Int),
        ("segment.jitter.ms", "0", Long),
        ("segment.ms", "604800000", Long),
        ("unclean.leader.election.enable", "false", Boolean),
    ]
    .into_iter()
    .map(|(name, value, ty)| Setting::default(name, value, ty))
    .collect()
}

/// The broker's settings: what its configuration sets, then Kafka's defaults.
fn broker_settings(config: &Config) -> Vec<Setting> {
    use Type::{Boolean, Int, Long, Short};
    let configured = |name, value: String, ty| Setting {
        name,
        value,
        ty,
        configured: true,
    };
    let mut settings = vec![
        configured("node.id", config.node_id.to_string(), Int),
        configured("broker.id", config.node_id.to_string(), Int),
        configured(
            "advertised.listeners",
            format!("PLAINTEXT://{}:{}", config.host, config.port),
            Type::String,
        ),
        configured("num.partitions", config.partitions.to_string(), Int),
    ];
    settings.extend(
        [
            ("auto.create.topics.enable", "true", Boolean),
            ("compression.type", "producer", Type::String),
            ("default.replication.factor", "1", Int),
            ("delete.topic.enable", "true", Boolean),
            ("log.retention.bytes", "-1", Long),
            ("log.retention.hours", "168", Int),
            ("log.segment.bytes", "1073741824", Int),
            ("message.max.bytes", "1048588", Int),
            ("min.insync.replicas", "1", Int),
            ("offsets.topic.replication.factor", "3", Short),
            ("transaction.state.log.replication.factor", "3", Short),
        ]
        .into_iter()
        .map(|(name, value, ty)| Setting::default(name, value, ty)),
    );
    settings
}

/// What one resource's entry in the response needs, owned.
struct Described {
    error: ErrorCode,
    message: Option<String>,
    ty: i8,
    name: String,
    settings: Vec<Setting>,
}

pub fn describe_configs(
    config: &Config,
    topic_exists: &dyn Fn(&str) -> bool,
    id: i32,
    r: &DescribeConfigsRequest<'_>,
    v: i16,
) -> Result<Vec<u8>, String> {
    let described: Vec<Described> = r
        .resources
        .iter()
        .map(|res| {
            let found = match (res.resource_type, res.resource_name.to_str()) {
                (resource::TOPIC, Ok(name)) if topic_exists(name) => Ok(topic_settings()),
                (resource::TOPIC, Ok(_)) => Err((ErrorCode::UNKNOWN_TOPIC_OR_PARTITION, None)),
                // Kafka reads a name that is not UTF-8 with U+FFFD in place of the bytes, which
                // its check of a topic name refuses.
                (resource::TOPIC, Err(_)) => Err((
                    ErrorCode::INVALID_TOPIC_EXCEPTION,
                    Some(format!("Topic name \"{}\" is illegal", res.resource_name)),
                )),
                // The empty name asks for the defaults every broker shares.
                (resource::BROKER, _)
                    if res.resource_name.is_empty()
                        || res.resource_name == *config.node_id.to_string() =>
                {
                    Ok(broker_settings(config))
                }
                (resource::BROKER, _) => Err((
                    ErrorCode::INVALID_REQUEST,
                    Some(format!(
                        "this is broker {}, not {}",
                        config.node_id, res.resource_name
                    )),
                )),
                (other, _) => Err((
                    ErrorCode::INVALID_REQUEST,
                    Some(format!("resource type {other} is not served here")),
                )),
            };
            let (error, message, settings) = match found {
                Ok(mut settings) => {
                    // Null or empty asks for every setting, as Kafka has it.
                    if let Some(keys) = res.configuration_keys.filter(|k| !k.is_empty()) {
                        settings.retain(|s| keys.iter().any(|k| k == s.name));
                    }
                    (ErrorCode::NONE, None, settings)
                }
                Err((error, message)) => (error, message, Vec::new()),
            };
            Described {
                error,
                message,
                ty: res.resource_type,
                // As Kafka reads it.
                name: res.resource_name.to_string_lossy().into_owned(),
                settings,
            }
        })
        .collect();

    let source = |s: &Setting| {
        if s.configured {
            source::STATIC_BROKER_CONFIG
        } else {
            source::DEFAULT_CONFIG
        }
    };
    // A setting's synonyms list it under its own name, with its source, when asked for.
    let synonyms: Vec<Vec<[DescribeConfigsSynonym<'_>; 1]>> = described
        .iter()
        .map(|d| {
            d.settings
                .iter()
                .map(|s| {
                    [DescribeConfigsSynonym::default()
                        .with_name(s.name)
                        .with_value(Some(&s.value))
                        .with_source(source(s))]
                })
                .collect()
        })
        .collect();
    let configs: Vec<Vec<DescribeConfigsResourceResult<'_>>> = described
        .iter()
        .zip(&synonyms)
        .map(|(d, synonyms)| {
            d.settings
                .iter()
                .zip(synonyms)
                .map(|(s, synonym)| {
                    let c = DescribeConfigsResourceResult::default()
                        .with_name(s.name)
                        .with_value(Some(&s.value))
                        // Nothing here can be changed: the broker has no AlterConfigs.
                        .with_read_only(true);
                    let c = if v == 0 {
                        c.with_is_default(!s.configured)
                    } else {
                        c.with_config_source(source(s))
                    };
                    let c = if v >= 1 && r.include_synonyms {
                        c.with_synonyms(&synonym[..])
                    } else {
                        c
                    };
                    if v >= 3 {
                        c.with_config_type(s.ty as i8)
                    } else {
                        c
                    }
                })
                .collect()
        })
        .collect();
    let results: Vec<DescribeConfigsResult<'_>> = described
        .iter()
        .zip(&configs)
        .map(|(d, configs)| {
            DescribeConfigsResult::default()
                .with_error_code(d.error.0)
                .with_error_message(d.message.as_deref())
                .with_resource_type(d.ty)
                .with_resource_name(&d.name)
                .with_configs(&configs[..])
        })
        .collect();
    let body = DescribeConfigsResponse::default().with_results(&results[..]);
    encode(id, &body, v)
}

/// `EndpointType` of DescribeCluster (v1+): this is a broker.
const BROKERS: i8 = 1;

pub fn describe_cluster(
    config: &Config,
    id: i32,
    r: &DescribeClusterRequest<'_>,
    v: i16,
) -> Result<Vec<u8>, String> {
    let body = DescribeClusterResponse::default()
        .with_cluster_id(CLUSTER_ID)
        .with_controller_id(config.node_id);
    let body = if v >= 1 {
        body.with_endpoint_type(BROKERS)
    } else {
        body
    };
    if v >= 1 && r.endpoint_type != BROKERS {
        // Kafka's brokers describe the brokers; the controllers answer for themselves.
        let body = body
            .with_error_code(ErrorCode::MISMATCHED_ENDPOINT_TYPE.0)
            .with_error_message(Some("this is a broker endpoint"));
        return encode(id, &body, v);
    }
    let brokers = [DescribeClusterBroker::default()
        .with_broker_id(config.node_id)
        .with_host(&config.host)
        .with_port(config.port)];
    encode(id, &body.with_brokers(&brokers[..]), v)
}
