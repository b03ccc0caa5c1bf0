//! Topic names for topic ids: what Metadata responses (and the others that carry both) told
//! each broker's clients, shown beside the ids that later requests and responses use.

use std::collections::HashMap;
use std::fmt::Write as _;
use std::net::SocketAddr;
use std::str::FromStr;

use kwire::ApiKey;
use kwire::codec::Uuid;
use kwire_schema::describe;

use super::structs::Structs;

/// Topic names by id, by the broker that gave them.
#[derive(Debug, Default)]
pub struct TopicNames {
    by_broker: HashMap<SocketAddr, HashMap<Uuid, String>>,
}

impl TopicNames {
    /// Learns the topics a response of `api` at `version` from `server` names with their ids.
    pub fn learn(&mut self, server: SocketAddr, frame: &[u8], api: ApiKey, version: i16) {
        if !matches!(
            api,
            ApiKey::METADATA | ApiKey::CREATE_TOPICS | ApiKey::DESCRIBE_TOPIC_PARTITIONS
        ) {
            return;
        }
        let mut structs = Structs::default();
        // What reads before an error is still learned.
        let _ = describe::visit_response_frame(frame, api, version, &mut structs);
        structs.finish();
        for s in &structs.done {
            if let (Some(name), Some(id)) = (s.str("Name"), s.uuid("TopicId"))
                && !id.is_zero()
            {
                self.by_broker
                    .entry(server)
                    .or_default()
                    .insert(id, name.to_owned());
            }
        }
    }

    /// The name of topic `id`: as `server` gave it, else as another broker did.
    pub fn name(&self, server: SocketAddr, id: Uuid) -> Option<&str> {
        self.by_broker
            .get(&server)
            .and_then(|names| names.get(&id))
            .or_else(|| self.by_broker.values().find_map(|names| names.get(&id)))
            .map(String::as_str)
    }

    /// `tree` (as the dissector writes it) with `(topic "NAME")` at the end of each line whose
    /// value is a topic id this capture named.
    pub fn annotate(&self, server: SocketAddr, tree: &str) -> String {
        let mut out = String::with_capacity(tree.len());
        for line in tree.lines() {
            out.push_str(line);
            if let Some(name) = self.line_topic(server, line) {
                let _ = write!(out, "  (topic {name:?})");
            }
            out.push('\n');
        }
        out
    }

    /// The topic named by the Uuid value of a tree line.
    fn line_topic(&self, server: SocketAddr, line: &str) -> Option<&str> {
        let (_, rest) = line.split_once(" uuid ")?;
        let value = rest.trim_start().strip_prefix("= ")?;
        let id = Uuid::from_str(value.get(..22)?).ok()?;
        self.name(server, id)
    }
}
