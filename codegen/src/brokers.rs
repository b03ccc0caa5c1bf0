//! The responses that name brokers a client connects to, found in the schemas.
//!
//! A struct of a response, or its top level, names a broker when it has a field whose
//! `entityType` is `brokerId` beside a `Host` and a `Port`, in an API that brokers serve (its
//! request's `listeners` has `broker`). The controllers' own APIs (KRaft's Vote,
//! BeginQuorumEpoch, EndQuorumEpoch, FetchSnapshot, UpdateRaftVoter) name the quorum's nodes
//! with the same three fields, told to another controller, never to a client; a host and a port
//! without a broker id (an ACL's host, a Kafka Streams instance, a listener a node registers)
//! are no broker either.
//!
//! The generator writes what this finds twice: the APIs, for the build script's cfg
//! `kwire_names_brokers`, and the fields with the versions that have them, for the library's
//! `io::relay::address`, which rewrites them.

use std::collections::BTreeMap;

use crate::spec::{Field, Kind, Message, Range, StructDef, collect_structs};

/// A struct of a response that names a broker.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BrokerStruct {
    /// The API key.
    pub api_key: i16,
    /// The API name (the cargo feature).
    pub api: String,
    /// The struct's schema path, as `io::relay::address` names it: the response, then each field
    /// down to it (`MetadataResponse.Brokers`, or `FindCoordinatorResponse` for its top level).
    pub path: String,
    /// The versions in which the response has the struct with its three fields, open-ended
    /// (`N+`) when the fields are.
    pub versions: Range,
}

/// Every struct of a response that names a broker, by API key, then in field order, outer
/// structs first.
pub fn broker_structs(messages: &[Message]) -> Result<Vec<BrokerStruct>, String> {
    let mut found = Vec::new();
    for m in messages.iter().filter(|m| m.kind == Kind::Response) {
        let Some(key) = m.api_key else { continue };
        let served_by_brokers = messages.iter().any(|r| {
            r.kind == Kind::Request
                && r.api_key == Some(key)
                && r.listeners.iter().any(|l| l == "broker")
        });
        if !served_by_brokers {
            continue;
        }
        let structs = collect_structs(m)?;
        let by_name: BTreeMap<&str, &StructDef> =
            structs.list.iter().map(|s| (s.name.as_str(), s)).collect();
        visit(
            m,
            key,
            &by_name,
            &m.fields,
            &m.name,
            Range::ALL,
            0,
            &mut found,
        )?;
    }
    found.sort_by_key(|s| s.api_key);
    Ok(found)
}

#[allow(clippy::too_many_arguments)]
fn visit(
    m: &Message,
    key: i16,
    by_name: &BTreeMap<&str, &StructDef>,
    fields: &[Field],
    path: &str,
    reach: Range,
    depth: usize,
    found: &mut Vec<BrokerStruct>,
) -> Result<(), String> {
    if depth > 32 {
        return Err(format!("{}: {path} nests too deep", m.file));
    }
    let named = |name: &str| fields.iter().find(|f| f.name == name);
    let id = fields
        .iter()
        .find(|f| f.entity_type.as_deref() == Some("brokerId"));
    if let (Some(id), Some(host), Some(port)) = (id, named("Host"), named("Port")) {
        let versions = reach
            .intersect(id.versions)
            .intersect(host.versions)
            .intersect(port.versions);
        if !versions.intersect(m.valid).is_empty() {
            found.push(BrokerStruct {
                api_key: key,
                api: m.api_name().to_string(),
                path: path.to_string(),
                versions,
            });
        }
    }
    for f in fields {
        let Some(inner) = f.ty.struct_name() else {
            continue;
        };
        let s = by_name
            .get(inner)
            .ok_or_else(|| format!("{}: {path}.{} has no struct {inner}", m.file, f.name))?;
        let reach = reach.intersect(f.versions);
        if !reach.is_empty() {
            let here = format!("{path}.{}", f.name);
            visit(m, key, by_name, &s.fields, &here, reach, depth + 1, found)?;
        }
    }
    Ok(())
}

/// Each API that names brokers, by key, with the versions of its responses that do: the
/// versions of its [`BrokerStruct`]s, joined where they touch or overlap.
pub fn broker_apis(structs: &[BrokerStruct]) -> Vec<(i16, String, Vec<Range>)> {
    let mut apis: Vec<(i16, String, Vec<Range>)> = Vec::new();
    for s in structs {
        match apis.last_mut() {
            Some((key, _, ranges)) if *key == s.api_key => ranges.push(s.versions),
            _ => apis.push((s.api_key, s.api.clone(), vec![s.versions])),
        }
    }
    for (_, _, ranges) in &mut apis {
        ranges.sort_by_key(|r| r.min);
        let mut joined: Vec<Range> = Vec::new();
        for r in ranges.iter() {
            match joined.last_mut() {
                Some(last) if i32::from(r.min) <= i32::from(last.max) + 1 => {
                    last.max = last.max.max(r.max);
                }
                _ => joined.push(*r),
            }
        }
        *ranges = joined;
    }
    apis
}
