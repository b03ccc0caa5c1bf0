//! A classic-protocol group coordinator (JoinGroup, SyncGroup, Heartbeat, LeaveGroup) and the
//! committed offsets (OffsetCommit, OffsetFetch), in memory.
//!
//! A rebalance starts when a member joins or leaves; it completes once every member has sent
//! its JoinGroup, or when the rebalance timeout drops the ones that did not. The first member to
//! join becomes the leader, which assigns the partitions in SyncGroup.

use std::collections::{BTreeMap, HashMap};
use std::sync::{Condvar, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use kwire::ErrorCode;
use kwire::codec::{Str, Uuid};
use kwire::messages::delete_groups_response::DeletableGroupResult;
use kwire::messages::describe_groups_response::{DescribedGroup, DescribedGroupMember};
use kwire::messages::join_group_response::JoinGroupResponseMember;
use kwire::messages::leave_group_response::MemberResponse;
use kwire::messages::list_groups_response::ListedGroup;
use kwire::messages::offset_commit_response::{
    OffsetCommitResponsePartition, OffsetCommitResponseTopic,
};
use kwire::messages::offset_fetch_response::{
    OffsetFetchResponseGroup, OffsetFetchResponsePartition, OffsetFetchResponsePartitions,
    OffsetFetchResponseTopic, OffsetFetchResponseTopics,
};
use kwire::messages::{
    DeleteGroupsRequest, DeleteGroupsResponse, DescribeGroupsRequest, DescribeGroupsResponse,
    HeartbeatRequest, HeartbeatResponse, JoinGroupRequest, JoinGroupResponse, LeaveGroupRequest,
    LeaveGroupResponse, ListGroupsRequest, ListGroupsResponse, OffsetCommitRequest,
    OffsetCommitResponse, OffsetFetchRequest, OffsetFetchResponse, SyncGroupRequest,
    SyncGroupResponse,
};

use super::broker::encode;

/// A partition's OffsetCommit outcome: index, error code.
type Committed = (i32, i16);

/// A group id as text: groups are kept by `String`. One that is not UTF-8 is refused with
/// INVALID_GROUP_ID.
fn group_id(id: Str<'_>) -> Result<&str, i16> {
    id.to_str().map_err(|_| ErrorCode::INVALID_GROUP_ID.0)
}

/// A string of a request that the broker keeps or answers with (a client id, a protocol's name,
/// a member's instance id, a commit's metadata), as Kafka reads it: bytes that are not UTF-8
/// become U+FFFD.
fn as_kafka_reads(s: Str<'_>) -> String {
    s.to_string_lossy().into_owned()
}

/// Every group, behind one lock; the condition variable wakes members waiting in JoinGroup and
/// SyncGroup.
#[derive(Debug, Default)]
pub struct Groups {
    groups: Mutex<HashMap<String, Group>>,
    changed: Condvar,
}

#[derive(Debug, Default)]
struct Group {
    generation: i32,
    /// A rebalance is under way: JoinGroups are being collected until this deadline.
    rebalance_deadline: Option<Instant>,
    protocol_type: Option<String>,
    protocol: Option<String>,
    leader: Option<String>,
    members: BTreeMap<String, Member>,
    /// Member ids handed out with MEMBER_ID_REQUIRED that have not joined yet.
    pending: Vec<String>,
    /// The leader's assignments for the current generation, once it has synced.
    assignments: Option<HashMap<String, Vec<u8>>>,
    /// Members and their metadata in the protocol chosen, for the leader's JoinGroup answer.
    roster: Vec<(String, Option<String>, Vec<u8>)>,
    offsets: BTreeMap<(String, i32), (i64, i32, Option<String>)>,
    next_member: u64,
}

#[derive(Debug)]
struct Member {
    instance: Option<String>,
    /// The client id of the member's JoinGroup request.
    client_id: String,
    protocols: Vec<(String, Vec<u8>)>,
    session_timeout: Duration,
    rebalance_timeout: Duration,
    last_seen: Instant,
    /// Joined in the rebalance under way.
    joined: bool,
}

impl Group {
    /// Drops members whose session expired, starting a rebalance if any were dropped.
    fn expire(&mut self, now: Instant) {
        let before = self.members.len();
        self.members
            .retain(|_, m| m.joined || now.duration_since(m.last_seen) <= m.session_timeout);
        if self.members.len() != before {
            self.start_rebalance(now);
        }
    }

    fn start_rebalance(&mut self, now: Instant) {
        if self.members.is_empty() {
            self.rebalance_deadline = None;
            self.leader = None;
            self.assignments = None;
            return;
        }
        if self.rebalance_deadline.is_none() {
            let wait = self
                .members
                .values()
                .map(|m| m.rebalance_timeout)
                .max()
                .unwrap_or_default();
            self.rebalance_deadline = Some(now + wait);
            self.assignments = None;
            for m in self.members.values_mut() {
                m.joined = false;
            }
        }
    }

    /// Completes the rebalance if every member has joined or the deadline has passed.
    fn try_complete(&mut self, now: Instant) -> bool {
        let Some(deadline) = self.rebalance_deadline else {
            return false;
        };
        let all = self.members.values().all(|m| m.joined);
        if !all && now < deadline {
            return false;
        }
        self.members.retain(|_, m| m.joined);
        self.rebalance_deadline = None;
        self.generation += 1;
        // The first protocol of the leader's list that every member supports.
        if self
            .leader
            .as_ref()
            .is_none_or(|l| !self.members.contains_key(l))
        {
            self.leader = self.members.keys().next().cloned();
        }
        let leader = self.leader.as_ref().and_then(|l| self.members.get(l));
        self.protocol = leader.and_then(|l| {
            l.protocols
                .iter()
                .map(|(name, _)| name)
                .find(|name| {
                    self.members
                        .values()
                        .all(|m| m.protocols.iter().any(|(n, _)| n == *name))
                })
                .cloned()
        });
        let protocol = self.protocol.clone().unwrap_or_default();
        self.roster = self
            .members
            .iter()
            .map(|(id, m)| {
                let meta = m
                    .protocols
                    .iter()
                    .find(|(n, _)| *n == protocol)
                    .map(|(_, meta)| meta.clone())
                    .unwrap_or_default();
                (id.clone(), m.instance.clone(), meta)
            })
            .collect();
        for m in self.members.values_mut() {
            m.joined = false;
            m.last_seen = now;
        }
        true
    }

    /// The state as DescribeGroups and ListGroups name it.
    fn state(&self) -> &'static str {
        if self.rebalance_deadline.is_some() {
            "PreparingRebalance"
        } else if self.members.is_empty() {
            "Empty"
        } else if self.assignments.is_none() {
            "CompletingRebalance"
        } else {
            "Stable"
        }
    }

    /// The error for a member's Heartbeat, SyncGroup or OffsetCommit at `generation`.
    fn check(&self, member: &str, generation: i32) -> i16 {
        if !self.members.contains_key(member) {
            ErrorCode::UNKNOWN_MEMBER_ID.0
        } else if generation != self.generation {
            ErrorCode::ILLEGAL_GENERATION.0
        } else if self.rebalance_deadline.is_some() {
            ErrorCode::REBALANCE_IN_PROGRESS.0
        } else {
            ErrorCode::NONE.0
        }
    }
}

impl Groups {
    fn lock(&self) -> MutexGuard<'_, HashMap<String, Group>> {
        self.groups.lock().unwrap_or_else(|e| e.into_inner())
    }

    pub fn join(
        &self,
        id: i32,
        client_id: Str<'_>,
        r: &JoinGroupRequest<'_>,
        v: i16,
    ) -> Result<Vec<u8>, String> {
        let fail = |error: i16, member: &str| {
            let body = JoinGroupResponse::default()
                .with_error_code(error)
                .with_member_id(member);
            encode(id, &body, v)
        };
        let asked = r.member_id.to_string_lossy();
        let group = match group_id(r.group_id) {
            Ok(group) => group,
            Err(e) => return fail(e, &asked),
        };
        let protocol_type = as_kafka_reads(r.protocol_type);
        let now = Instant::now();
        let mut all = self.lock();
        let g = all.entry(group.to_owned()).or_default();
        g.expire(now);
        if g.protocol_type
            .as_deref()
            .is_some_and(|t| t != protocol_type)
            && !g.members.is_empty()
        {
            return fail(ErrorCode::INCONSISTENT_GROUP_PROTOCOL.0, &asked);
        }
        // A member id that is not UTF-8 is none this broker handed out.
        let known = r
            .member_id
            .to_str()
            .ok()
            .filter(|m| g.members.contains_key(*m) || g.pending.iter().any(|p| p == m));
        let member_id = if r.member_id.is_empty() {
            g.next_member += 1;
            let fresh = format!("member-{}-{}", g.next_member, std::process::id());
            if v >= 4 {
                // Kafka hands out the id first and expects the member to join again with it.
                g.pending.push(fresh.clone());
                return fail(ErrorCode::MEMBER_ID_REQUIRED.0, &fresh);
            }
            fresh
        } else if let Some(known) = known {
            known.to_owned()
        } else {
            return fail(ErrorCode::UNKNOWN_MEMBER_ID.0, &asked);
        };
        g.pending.retain(|p| *p != member_id);
        g.protocol_type = Some(protocol_type);
        let session = Duration::from_millis(u64::try_from(r.session_timeout_ms).unwrap_or(0));
        let rebalance = if v >= 1 {
            Duration::from_millis(u64::try_from(r.rebalance_timeout_ms).unwrap_or(0))
        } else {
            session
        };
        let member = Member {
            instance: r.group_instance_id.map(as_kafka_reads),
            client_id: as_kafka_reads(client_id),
            protocols: r
                .protocols
                .iter()
                .map(|p| (as_kafka_reads(p.name), p.metadata.to_vec()))
                .collect(),
            session_timeout: session,
            rebalance_timeout: rebalance,
            last_seen: now,
            joined: false,
        };
        g.members.insert(member_id.clone(), member);
        g.start_rebalance(now);
        if let Some(m) = g.members.get_mut(&member_id) {
            m.joined = true;
        }
        let generation = g.generation;
        if g.try_complete(now) {
            self.changed.notify_all();
        }
        // Wait for the rebalance this join belongs to to complete.
        loop {
            let g = all.get_mut(group).ok_or("group vanished")?;
            if g.generation != generation {
                break;
            }
            let Some(deadline) = g.rebalance_deadline else {
                break;
            };
            let now = Instant::now();
            if g.try_complete(now) {
                self.changed.notify_all();
                break;
            }
            all = self
                .changed
                .wait_timeout(
                    all,
                    deadline.saturating_duration_since(now) + Duration::from_millis(1),
                )
                .unwrap_or_else(|e| e.into_inner())
                .0;
        }
        let g = all.get(group).ok_or("group vanished")?;
        if !g.members.contains_key(&member_id) {
            return fail(ErrorCode::UNKNOWN_MEMBER_ID.0, &member_id);
        }
        let leader = g.leader.clone().unwrap_or_default();
        let members: Vec<JoinGroupResponseMember<'_>> = if leader == member_id {
            g.roster
                .iter()
                .map(|(mid, instance, meta)| {
                    let m = JoinGroupResponseMember::default()
                        .with_member_id(mid)
                        .with_metadata(meta);
                    if v >= 5 {
                        m.with_group_instance_id(instance.as_deref())
                    } else {
                        m
                    }
                })
                .collect()
        } else {
            Vec::new()
        };
        let mut body = JoinGroupResponse::default()
            .with_generation_id(g.generation)
            .with_protocol_name(g.protocol.as_deref())
            .with_leader(&leader)
            .with_member_id(&member_id)
            .with_members(&members[..]);
        if v >= 7 {
            body = body.with_protocol_type(g.protocol_type.as_deref());
        }
        encode(id, &body, v)
    }

    pub fn sync(&self, id: i32, r: &SyncGroupRequest<'_>, v: i16) -> Result<Vec<u8>, String> {
        let fail = |error: i16| encode(id, &SyncGroupResponse::default().with_error_code(error), v);
        let group = match group_id(r.group_id) {
            Ok(group) => group,
            Err(e) => return fail(e),
        };
        let mut all = self.lock();
        let Some(g) = all.get_mut(group) else {
            return fail(ErrorCode::UNKNOWN_MEMBER_ID.0);
        };
        // A member id that is not UTF-8 is none this broker handed out.
        let Ok(member) = r.member_id.to_str() else {
            return fail(ErrorCode::UNKNOWN_MEMBER_ID.0);
        };
        let error = g.check(member, r.generation_id);
        if error != ErrorCode::NONE.0 {
            return fail(error);
        }
        if g.leader.as_deref() == Some(member) {
            // An assignment to a member id that is not UTF-8 is one to no member.
            g.assignments = Some(
                r.assignments
                    .iter()
                    .filter_map(|a| {
                        Some((a.member_id.to_str().ok()?.to_owned(), a.assignment.to_vec()))
                    })
                    .collect(),
            );
            self.changed.notify_all();
        }
        let generation = r.generation_id;
        let timeout = g
            .members
            .get(member)
            .map_or(Duration::ZERO, |m| m.rebalance_timeout);
        let deadline = Instant::now() + timeout;
        loop {
            let Some(g) = all.get_mut(group) else {
                return fail(ErrorCode::UNKNOWN_MEMBER_ID.0);
            };
            let error = g.check(member, generation);
            if error != ErrorCode::NONE.0 {
                return fail(error);
            }
            if let Some(a) = &g.assignments {
                let assignment = a.get(member).cloned().unwrap_or_default();
                let mut body = SyncGroupResponse::default().with_assignment(&assignment);
                if v >= 5 {
                    body = body
                        .with_protocol_type(g.protocol_type.as_deref())
                        .with_protocol_name(g.protocol.as_deref());
                }
                if let Some(m) = g.members.get_mut(member) {
                    m.last_seen = Instant::now();
                }
                return encode(id, &body, v);
            }
            let now = Instant::now();
            if now >= deadline {
                // The leader never synced: start over.
                g.start_rebalance(now);
                return fail(ErrorCode::REBALANCE_IN_PROGRESS.0);
            }
            all = self
                .changed
                .wait_timeout(all, deadline - now)
                .unwrap_or_else(|e| e.into_inner())
                .0;
        }
    }

    pub fn heartbeat(&self, id: i32, r: &HeartbeatRequest<'_>, v: i16) -> Result<Vec<u8>, String> {
        let now = Instant::now();
        let mut all = self.lock();
        let group = group_id(r.group_id).map(|group| all.get_mut(group));
        let error = match group {
            Err(e) => e,
            Ok(None) => ErrorCode::UNKNOWN_MEMBER_ID.0,
            Ok(Some(g)) => {
                g.expire(now);
                // A member id that is not UTF-8 is none this broker handed out.
                let member = r.member_id.to_str().ok();
                if let Some(m) = member.and_then(|m| g.members.get_mut(m)) {
                    m.last_seen = now;
                }
                if g.try_complete(now) {
                    self.changed.notify_all();
                }
                member.map_or(ErrorCode::UNKNOWN_MEMBER_ID.0, |m| {
                    g.check(m, r.generation_id)
                })
            }
        };
        encode(id, &HeartbeatResponse::default().with_error_code(error), v)
    }

    pub fn leave(&self, id: i32, r: &LeaveGroupRequest<'_>, v: i16) -> Result<Vec<u8>, String> {
        let now = Instant::now();
        let mut all = self.lock();
        let leaving: Vec<(Str<'_>, Option<Str<'_>>)> = if v >= 3 {
            r.members
                .iter()
                .map(|m| (m.member_id, m.group_instance_id))
                .collect()
        } else {
            vec![(r.member_id, None)]
        };
        let mut results = Vec::new();
        let mut top = ErrorCode::NONE.0;
        match group_id(r.group_id).map(|group| all.get_mut(group)) {
            Err(e) => top = e,
            Ok(None) => top = ErrorCode::UNKNOWN_MEMBER_ID.0,
            Ok(Some(g)) => {
                for &(member, instance) in &leaving {
                    // A member id that is not UTF-8 is none this broker handed out.
                    let gone = member.to_str().is_ok_and(|m| g.members.remove(m).is_some());
                    results.push((
                        as_kafka_reads(member),
                        instance.map(as_kafka_reads),
                        if gone {
                            ErrorCode::NONE.0
                        } else {
                            ErrorCode::UNKNOWN_MEMBER_ID.0
                        },
                    ));
                    if !gone && v < 3 {
                        top = ErrorCode::UNKNOWN_MEMBER_ID.0;
                    }
                }
                g.rebalance_deadline = None;
                g.start_rebalance(now);
                if g.try_complete(now) {
                    self.changed.notify_all();
                }
                self.changed.notify_all();
            }
        }
        let rows: Vec<MemberResponse<'_>> = results
            .iter()
            .map(|(m, i, e)| {
                MemberResponse::default()
                    .with_member_id(m)
                    .with_group_instance_id(i.as_deref())
                    .with_error_code(*e)
            })
            .collect();
        let mut body = LeaveGroupResponse::default().with_error_code(top);
        if v >= 3 {
            body = body.with_members(&rows[..]);
        }
        encode(id, &body, v)
    }

    /// OffsetCommit. `name_of` resolves topic ids (version 10 on); `exists` says whether a
    /// partition exists (Kafka answers UNKNOWN_TOPIC_OR_PARTITION for one that does not, before
    /// the group is consulted).
    pub fn commit(
        &self,
        id: i32,
        r: &OffsetCommitRequest<'_>,
        v: i16,
        name_of: &dyn Fn(Uuid) -> Option<String>,
        exists: &dyn Fn(&str, i32) -> bool,
    ) -> Result<Vec<u8>, String> {
        let mut all = self.lock();
        let mut group = group_id(r.group_id).map(|name| all.entry(name.to_owned()).or_default());
        let error = match &group {
            Err(e) => *e,
            // A commit from outside the group (generation -1) is allowed while the group is
            // empty.
            Ok(g) if r.generation_id_or_member_epoch < 0 && g.members.is_empty() => {
                ErrorCode::NONE.0
            }
            // A member id that is not UTF-8 is none this broker handed out.
            Ok(g) => r
                .member_id
                .to_str()
                .map_or(ErrorCode::UNKNOWN_MEMBER_ID.0, |m| {
                    g.check(m, r.generation_id_or_member_epoch)
                }),
        };
        let mut rows: Vec<(String, Uuid, Vec<Committed>)> = Vec::new();
        for t in &r.topics {
            // The topic's name, and the name to answer with. A name that is not UTF-8 names no
            // topic; the answer names it as Kafka reads it.
            let (name, answer) = if v >= 10 {
                let name = name_of(t.topic_id);
                let answer = name.clone().unwrap_or_default();
                (name, answer)
            } else {
                (
                    t.name.to_str().ok().map(str::to_owned),
                    as_kafka_reads(t.name),
                )
            };
            let mut parts = Vec::new();
            for p in &t.partitions {
                let e = match (&mut group, &name) {
                    // Kafka refuses a group id before it looks at the topics.
                    (Err(e), _) => *e,
                    (Ok(_), None) if v >= 10 => ErrorCode::UNKNOWN_TOPIC_ID.0,
                    (Ok(_), None) => ErrorCode::UNKNOWN_TOPIC_OR_PARTITION.0,
                    (Ok(_), Some(n)) if !exists(n, p.partition_index) => {
                        ErrorCode::UNKNOWN_TOPIC_OR_PARTITION.0
                    }
                    (Ok(_), Some(_)) if error != ErrorCode::NONE.0 => error,
                    (Ok(g), Some(n)) => {
                        g.offsets.insert(
                            (n.clone(), p.partition_index),
                            (
                                p.committed_offset,
                                p.committed_leader_epoch,
                                p.committed_metadata.map(as_kafka_reads),
                            ),
                        );
                        ErrorCode::NONE.0
                    }
                };
                parts.push((p.partition_index, e));
            }
            rows.push((answer, t.topic_id, parts));
        }
        drop(all);
        let parts: Vec<Vec<OffsetCommitResponsePartition<'_>>> = rows
            .iter()
            .map(|(_, _, parts)| {
                parts
                    .iter()
                    .map(|&(i, e)| {
                        OffsetCommitResponsePartition::default()
                            .with_partition_index(i)
                            .with_error_code(e)
                    })
                    .collect()
            })
            .collect();
        let topics: Vec<OffsetCommitResponseTopic<'_>> = rows
            .iter()
            .zip(&parts)
            .map(|((name, tid, _), parts)| {
                let t = OffsetCommitResponseTopic::default().with_partitions(&parts[..]);
                t.with_topic_id(*tid).with_name(name)
            })
            .collect();
        encode(
            id,
            &OffsetCommitResponse::default().with_topics(&topics[..]),
            v,
        )
    }

    /// OffsetFetch, one group (versions 0-7) or several (8 on). `name_of` resolves topic ids
    /// (version 10 on); `id_of` finds them for the answer.
    pub fn fetch_offsets(
        &self,
        id: i32,
        r: &OffsetFetchRequest<'_>,
        v: i16,
        name_of: &dyn Fn(Uuid) -> Option<String>,
        id_of: &dyn Fn(&str) -> Uuid,
    ) -> Result<Vec<u8>, String> {
        let all = self.lock();
        // (topic name, topic id, [(partition, offset, leader epoch, metadata)]) per group.
        type Rows = Vec<(String, Uuid, Vec<(i32, i64, i32, Option<String>)>)>;
        type Wanted = Option<Vec<(String, Uuid, Vec<i32>)>>;
        // The topics asked for by name are named as Kafka reads them: a name that is not UTF-8
        // names no topic, and has no offsets.
        let lookup = |group: &str, wanted: Wanted| -> Rows {
            let offsets = all.get(group).map(|g| &g.offsets);
            let empty = BTreeMap::new();
            let offsets = offsets.unwrap_or(&empty);
            let wanted = wanted.unwrap_or_else(|| {
                // All topics with committed offsets.
                let mut topics: BTreeMap<&str, Vec<i32>> = BTreeMap::new();
                for (t, p) in offsets.keys() {
                    topics.entry(t.as_str()).or_default().push(*p);
                }
                topics
                    .into_iter()
                    .map(|(t, ps)| (t.to_owned(), id_of(t), ps))
                    .collect()
            });
            wanted
                .into_iter()
                .map(|(name, tid, parts)| {
                    let rows = parts
                        .into_iter()
                        .map(|p| match offsets.get(&(name.clone(), p)) {
                            Some((o, e, m)) => (p, *o, *e, m.clone()),
                            None => (p, -1, -1, Some(String::new())),
                        })
                        .collect();
                    (name, tid, rows)
                })
                .collect()
        };
        if v < 8 {
            let wanted = r.topics.as_ref().map(|ts| {
                ts.iter()
                    .map(|t| {
                        (
                            as_kafka_reads(t.name),
                            Uuid::ZERO,
                            t.partition_indexes.iter().collect(),
                        )
                    })
                    .collect()
            });
            let (error, rows) = match group_id(r.group_id) {
                Ok(group) => (ErrorCode::NONE.0, lookup(group, wanted)),
                // Versions 0-1 carry the error in each partition asked for, as Kafka answers;
                // later ones in the response, with no topics.
                Err(e) if v < 2 => {
                    let rows = wanted
                        .unwrap_or_default()
                        .into_iter()
                        .map(|(name, tid, ps)| {
                            let ps = ps.into_iter().map(|p| (p, -1, -1, Some(String::new())));
                            (name, tid, ps.collect())
                        });
                    (e, rows.collect())
                }
                Err(e) => (e, Vec::new()),
            };
            drop(all);
            let parts: Vec<Vec<OffsetFetchResponsePartition<'_>>> = rows
                .iter()
                .map(|(_, _, ps)| {
                    ps.iter()
                        .map(|(p, o, e, m)| {
                            let row = OffsetFetchResponsePartition::default()
                                .with_partition_index(*p)
                                .with_committed_offset(*o)
                                .with_metadata(m.as_deref())
                                .with_error_code(error);
                            if v >= 5 {
                                row.with_committed_leader_epoch(*e)
                            } else {
                                row
                            }
                        })
                        .collect()
                })
                .collect();
            let topics: Vec<OffsetFetchResponseTopic<'_>> = rows
                .iter()
                .zip(&parts)
                .map(|((n, _, _), ps)| {
                    OffsetFetchResponseTopic::default()
                        .with_name(n)
                        .with_partitions(&ps[..])
                })
                .collect();
            let body = OffsetFetchResponse::default().with_topics(&topics[..]);
            let body = if v >= 2 {
                body.with_error_code(error)
            } else {
                body
            };
            return encode(id, &body, v);
        }
        // (group id as Kafka reads it, error, rows) per group.
        let groups: Vec<(String, i16, Rows)> = r
            .groups
            .iter()
            .map(|g| {
                let wanted = g.topics.as_ref().map(|ts| {
                    ts.iter()
                        .map(|t| {
                            let name = if v >= 10 {
                                name_of(t.topic_id).unwrap_or_default()
                            } else {
                                as_kafka_reads(t.name)
                            };
                            (name, t.topic_id, t.partition_indexes.iter().collect())
                        })
                        .collect()
                });
                let (error, rows) = match group_id(g.group_id) {
                    Ok(group) => (ErrorCode::NONE.0, lookup(group, wanted)),
                    Err(e) => (e, Vec::new()),
                };
                (as_kafka_reads(g.group_id), error, rows)
            })
            .collect();
        drop(all);
        let parts: Vec<Vec<Vec<OffsetFetchResponsePartitions<'_>>>> = groups
            .iter()
            .map(|(_, _, rows)| {
                rows.iter()
                    .map(|(_, _, ps)| {
                        ps.iter()
                            .map(|(p, o, e, m)| {
                                OffsetFetchResponsePartitions::default()
                                    .with_partition_index(*p)
                                    .with_committed_offset(*o)
                                    .with_committed_leader_epoch(*e)
                                    .with_metadata(m.as_deref())
                            })
                            .collect()
                    })
                    .collect()
            })
            .collect();
        let topics: Vec<Vec<OffsetFetchResponseTopics<'_>>> = groups
            .iter()
            .zip(&parts)
            .map(|((_, _, rows), parts)| {
                rows.iter()
                    .zip(parts)
                    .map(|((n, tid, _), ps)| {
                        let t = OffsetFetchResponseTopics::default().with_partitions(&ps[..]);
                        t.with_topic_id(*tid).with_name(n)
                    })
                    .collect()
            })
            .collect();
        let rows: Vec<OffsetFetchResponseGroup<'_>> = groups
            .iter()
            .zip(&topics)
            .map(|((g, error, _), ts)| {
                OffsetFetchResponseGroup::default()
                    .with_group_id(g)
                    .with_error_code(*error)
                    .with_topics(&ts[..])
            })
            .collect();
        encode(
            id,
            &OffsetFetchResponse::default().with_groups(&rows[..]),
            v,
        )
    }
}

/// The admin calls on groups: DescribeGroups, ListGroups and DeleteGroups.
impl Groups {
    pub fn describe(
        &self,
        id: i32,
        r: &DescribeGroupsRequest<'_>,
        v: i16,
    ) -> Result<Vec<u8>, String> {
        let mut all = self.lock();
        let now = Instant::now();
        // Owned rows first: the response borrows from them.
        struct MemberRow {
            id: String,
            instance: Option<String>,
            client_id: String,
            metadata: Vec<u8>,
            assignment: Vec<u8>,
        }
        struct Row {
            group: String,
            error: i16,
            state: &'static str,
            protocol_type: String,
            protocol: String,
            members: Vec<MemberRow>,
        }
        let rows: Vec<Row> = r
            .groups
            .iter()
            .map(
                |name| match group_id(name).map(|group| all.get_mut(group)) {
                    Ok(Some(g)) => {
                        g.expire(now);
                        let protocol = g.protocol.clone().unwrap_or_default();
                        let members = g
                            .members
                            .iter()
                            .map(|(mid, m)| {
                                let metadata = m
                                    .protocols
                                    .iter()
                                    .find(|(p, _)| *p == protocol)
                                    .map(|(_, meta)| meta.clone())
                                    .unwrap_or_default();
                                let assignment = g
                                    .assignments
                                    .as_ref()
                                    .and_then(|a| a.get(mid))
                                    .cloned()
                                    .unwrap_or_default();
                                MemberRow {
                                    id: mid.clone(),
                                    instance: m.instance.clone(),
                                    client_id: m.client_id.clone(),
                                    metadata,
                                    assignment,
                                }
                            })
                            .collect();
                        Row {
                            group: as_kafka_reads(name),
                            error: ErrorCode::NONE.0,
                            state: g.state(),
                            protocol_type: g.protocol_type.clone().unwrap_or_default(),
                            protocol,
                            members,
                        }
                    }
                    // Kafka describes an unknown group as Dead; from v6 on it also says so with an error.
                    Ok(None) => Row {
                        group: as_kafka_reads(name),
                        error: if v >= 6 {
                            ErrorCode::GROUP_ID_NOT_FOUND.0
                        } else {
                            ErrorCode::NONE.0
                        },
                        state: "Dead",
                        protocol_type: String::new(),
                        protocol: String::new(),
                        members: Vec::new(),
                    },
                    // A group id refused: no state, as Kafka describes a group it refuses.
                    Err(e) => Row {
                        group: as_kafka_reads(name),
                        error: e,
                        state: "",
                        protocol_type: String::new(),
                        protocol: String::new(),
                        members: Vec::new(),
                    },
                },
            )
            .collect();
        drop(all);
        let members: Vec<Vec<DescribedGroupMember<'_>>> = rows
            .iter()
            .map(|row| {
                row.members
                    .iter()
                    .map(|m| {
                        let described = DescribedGroupMember::default()
                            .with_member_id(&m.id)
                            .with_client_id(&m.client_id)
                            // The broker does not keep the peer address of a member.
                            .with_client_host("")
                            .with_member_metadata(&m.metadata)
                            .with_member_assignment(&m.assignment);
                        if v >= 4 {
                            described.with_group_instance_id(m.instance.as_deref())
                        } else {
                            described
                        }
                    })
                    .collect()
            })
            .collect();
        let groups: Vec<DescribedGroup<'_>> = rows
            .iter()
            .zip(&members)
            .map(|(row, members)| {
                let g = DescribedGroup::default()
                    .with_error_code(row.error)
                    .with_group_id(&row.group)
                    .with_group_state(row.state)
                    .with_protocol_type(&row.protocol_type)
                    .with_protocol_data(&row.protocol)
                    .with_members(&members[..]);
                if v >= 6 && row.error == ErrorCode::GROUP_ID_NOT_FOUND.0 {
                    g.with_error_message(Some("the group does not exist"))
                } else {
                    g
                }
            })
            .collect();
        let body = DescribeGroupsResponse::default().with_groups(&groups[..]);
        encode(id, &body, v)
    }

    pub fn list(&self, id: i32, r: &ListGroupsRequest<'_>, v: i16) -> Result<Vec<u8>, String> {
        let mut all = self.lock();
        let now = Instant::now();
        let mut rows: Vec<(String, String, &'static str)> = Vec::new();
        for (name, g) in all.iter_mut() {
            g.expire(now);
            let state = g.state();
            let wanted_state = r.states_filter.is_empty()
                || r.states_filter
                    .iter()
                    .any(|s| s.as_bytes().eq_ignore_ascii_case(state.as_bytes()));
            // Every group here is a classic group.
            let wanted_type = r.types_filter.is_empty()
                || r.types_filter
                    .iter()
                    .any(|t| t.as_bytes().eq_ignore_ascii_case(b"classic"));
            if wanted_state && wanted_type {
                rows.push((
                    name.clone(),
                    g.protocol_type.clone().unwrap_or_default(),
                    state,
                ));
            }
        }
        drop(all);
        rows.sort();
        let groups: Vec<ListedGroup<'_>> = rows
            .iter()
            .map(|(name, protocol_type, state)| {
                ListedGroup::default()
                    .with_group_id(name)
                    .with_protocol_type(protocol_type)
                    .with_group_state(state)
                    .with_group_type("classic")
            })
            .collect();
        let body = ListGroupsResponse::default().with_groups(&groups[..]);
        encode(id, &body, v)
    }

    pub fn delete(&self, id: i32, r: &DeleteGroupsRequest<'_>, v: i16) -> Result<Vec<u8>, String> {
        let mut all = self.lock();
        let now = Instant::now();
        let names: Vec<(String, ErrorCode)> = r
            .groups_names
            .iter()
            .map(|name| {
                let error = match group_id(name) {
                    Err(e) => ErrorCode(e),
                    Ok(name) => match all.get_mut(name) {
                        None => ErrorCode::GROUP_ID_NOT_FOUND,
                        Some(g) => {
                            g.expire(now);
                            if g.members.is_empty() {
                                all.remove(name);
                                ErrorCode::NONE
                            } else {
                                ErrorCode::NON_EMPTY_GROUP
                            }
                        }
                    },
                };
                (as_kafka_reads(name), error)
            })
            .collect();
        drop(all);
        let results: Vec<DeletableGroupResult<'_>> = names
            .iter()
            .map(|(name, error)| {
                DeletableGroupResult::default()
                    .with_group_id(name)
                    .with_error_code(error.0)
            })
            .collect();
        let body = DeleteGroupsResponse::default().with_results(&results[..]);
        encode(id, &body, v)
    }
}
