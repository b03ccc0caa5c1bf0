//! What the fields a client touches first mean, in our words: the generator adds each note to
//! the doc comment of the field (or message) its path names, and refuses a path that names
//! nothing.

/// A note on a message, struct or field, by schema path.
pub struct Note {
    /// The schema path: a message (`"MetadataRequest"`), or a field as the encoder's errors name
    /// it (`"MetadataRequest.Topics"`, `"ProduceRequest.TopicData.PartitionData.Records"`):
    /// the message name, then the schema field names down to the field.
    pub path: &'static str,
    /// Markdown, one to four sentences.
    pub text: &'static str,
}

/// The notes, in schema order of the APIs.
pub const NOTES: &[Note] = &[
    // Produce (0)
    Note {
        path: "ProduceRequest",
        text: "`default()` sends with `Acks` 0, so the broker writes no response at all, not even an error: for an answer, set `with_acks(-1)` (or 1) and a `with_timeout_ms`. Each partition carries one record batch, built with `kwire::records::BatchBuilder`.",
    },
    Note {
        path: "ProduceRequest.TransactionalId",
        text: "Null, the default, for a producer outside transactions, idempotent or not. A transactional producer puts here the transactional id it registered with InitProducerId, and its batches must belong to an open transaction that includes the partition.",
    },
    Note {
        path: "ProduceRequest.Acks",
        text: "How many replicas must hold the records before the broker answers: 1 waits for the leader's own write, -1 for every in-sync replica, and 0 means the broker sends no response whatsoever (success and errors alike go unreported). The schema has no default, so `default()` holds 0 and sends fire-and-forget requests, which the session does not wait on. Use -1 when the records must survive the loss of the leader; other values are refused with `INVALID_REQUIRED_ACKS`.",
    },
    Note {
        path: "ProduceRequest.TimeoutMs",
        text: "How long the leader may wait for the followers before answering; only acks -1 waits, so 0 and 1 ignore it. Past it the partition reports `REQUEST_TIMED_OUT`, though the records may be written anyway, so a plain retry can store them twice unless the producer is idempotent. `default()` holds 0, which leaves acks -1 no time to replicate: set something like 30000.",
    },
    Note {
        path: "ProduceRequest.TopicData.Name",
        text: "The topic by name, which versions up to 12 carry; v13 names it by `TopicId` instead. Set both, the id from `MetadataResponse.Topics.TopicId`, and the encoder writes the one the version carries; a name alone at v13+ is refused (`TopicNamedBy`), never sent as the zero id.",
    },
    Note {
        path: "ProduceRequest.TopicData.TopicId",
        text: "The topic's id, which names the topic in place of `Name` from v13 on; take it from `MetadataResponse.Topics.TopicId` (v10+). With both set the encoder writes whichever the version carries, and an id alone below v13 is refused (`TopicNamedBy`); an id the broker does not know gets `UNKNOWN_TOPIC_ID`.",
    },
    Note {
        path: "ProduceRequest.TopicData.PartitionData.Records",
        text: "The records to append, as `Some(Records::new(&batch[..n]))` over a batch that `BatchBuilder` wrote. From v3 the broker takes exactly one batch per partition, in the v2 format (magic 2); an idempotent or transactional producer also stamps the batch with its producer id, epoch and sequence.",
    },
    Note {
        path: "ProduceResponse.Responses.PartitionResponses.ErrorCode",
        text: "The outcome for this partition, `ErrorCode::NONE` when the records were stored; `ErrorCode(code).is_retriable()` says whether sending again may help. `NOT_LEADER_OR_FOLLOWER` means the leader moved: refresh the metadata and send to the new one.",
    },
    Note {
        path: "ProduceResponse.Responses.PartitionResponses.BaseOffset",
        text: "The offset the broker gave the first record of the batch; the others follow one by one, so the batch's record at index i sits at `BaseOffset + i`. It is -1 when the partition reports an error.",
    },
    Note {
        path: "ProduceResponse.Responses.PartitionResponses.LogAppendTimeMs",
        text: "-1 when the topic keeps the producer's timestamps (`CreateTime`). When the topic uses `LogAppendTime`, the broker's clock at the append, which then stands for the timestamp of every record of the batch.",
    },
    Note {
        path: "ProduceResponse.ThrottleTimeMs",
        text: "How long, in milliseconds, this client is held back for going over a quota; 0 when it did not. From v6 the broker answers first and then stops reading the connection for that long, so wait it out before sending more to this broker.",
    },
    // Fetch (1)
    Note {
        path: "FetchRequest",
        text: "`default()` asks for an answer at once (`MaxWaitMs` and `MinBytes` 0, so an idle loop spins) and allows up to `i32::MAX` bytes of records. A consumer sets `with_max_wait_ms(500)`, `with_min_bytes(1)`, a `with_max_bytes` its receive buffer can hold, and `PartitionMaxBytes` on each partition.",
    },
    Note {
        path: "FetchRequest.ReplicaId",
        text: "-1, the default, marks a consumer; only a broker following the leader puts its own id here. A client leaves it alone: from v15 the field is gone (followers use `ReplicaState`), and the encoder refuses any other value there.",
    },
    Note {
        path: "FetchRequest.MaxWaitMs",
        text: "How long the broker may hold the request while less than `MinBytes` of data is available; it then answers with whatever it has, possibly nothing. 100 to 500 ms is usual; keep it well below the client's own request timeout.",
    },
    Note {
        path: "FetchRequest.MinBytes",
        text: "The amount of record data the broker waits for before answering early, within `MaxWaitMs`. 1 answers as soon as any record is there; 0 answers at once even when empty; larger values trade latency for fewer round trips.",
    },
    Note {
        path: "FetchRequest.MaxBytes",
        text: "A soft cap on the record data of the whole response (v3+): the first batch of the first partition that has data comes back whole even when it is larger, so a fetch always makes progress. A session told its receive limit (`Client::with_max_response`; `io::Connection` takes it from its receive buffer) lowers it to that limit less 512 bytes, so that the response fits; the receive buffer must still hold one batch as large as the topic's `max.message.bytes`, or the frame is refused.",
    },
    Note {
        path: "FetchRequest.IsolationLevel",
        text: "0, the default, reads uncommitted: every record below the high watermark, including those of open and aborted transactions. 1 reads committed: only below the last stable offset, with the aborted transactions listed in each partition's `AbortedTransactions` so their records can be dropped. Readers of transactional topics want 1.",
    },
    Note {
        path: "FetchRequest.SessionId",
        text: "The fetch session the request belongs to, 0 for none. With the defaults (0 here and `SessionEpoch` -1) no session is kept and every request is a full fetch listing all its partitions. To open a session, send 0 with epoch 0, then send back the `SessionId` of the response.",
    },
    Note {
        path: "FetchRequest.SessionEpoch",
        text: "-1, the default, means no session (or closes the one `SessionId` names); 0 asks for a new session. Each later request of a session carries the next epoch, 1, 2 and so on, and lists only the partitions that changed, with `ForgottenTopicsData` for those to drop. A mismatch gets `INVALID_FETCH_SESSION_EPOCH` or `FETCH_SESSION_ID_NOT_FOUND`: start again with a full fetch.",
    },
    Note {
        path: "FetchRequest.Topics.Topic",
        text: "The topic by name, which versions up to 12 carry; from v13 the topic is named by `TopicId` instead. Set both and the encoder writes the one the version carries; a name alone at v13+ is refused (`TopicNamedBy`).",
    },
    Note {
        path: "FetchRequest.Topics.TopicId",
        text: "The topic's id, which replaces `Topic` from v13; take it from `MetadataResponse.Topics.TopicId`. With both set the encoder writes whichever the version carries, and an id alone below v13 is refused (`TopicNamedBy`); an id the broker does not know gets `UNKNOWN_TOPIC_ID`.",
    },
    Note {
        path: "FetchRequest.Topics.Partitions.CurrentLeaderEpoch",
        text: "The leader epoch this client last saw for the partition (`MetadataResponse...LeaderEpoch`), v9+. A broker whose view differs answers `FENCED_LEADER_EPOCH` or `UNKNOWN_LEADER_EPOCH` instead of serving data; -1, the default, skips the check.",
    },
    Note {
        path: "FetchRequest.Topics.Partitions.FetchOffset",
        text: "The offset of the next record wanted: a committed offset, one from ListOffsets, or the last fetched batch's next offset. An offset outside the partition's log gets `OFFSET_OUT_OF_RANGE`, and the client must choose a new position.",
    },
    Note {
        path: "FetchRequest.Topics.Partitions.LogStartOffset",
        text: "Only followers report their log start here; a consumer leaves the default -1.",
    },
    Note {
        path: "FetchRequest.Topics.Partitions.PartitionMaxBytes",
        text: "A soft cap on the record data returned for this partition: as with `MaxBytes`, a first batch that is larger still comes back whole. `default()` holds 0, which gets at most that single first batch; set a real size, such as 1 MiB.",
    },
    Note {
        path: "FetchRequest.RackId",
        text: "The consumer's rack (its `client.rack`), v11+. A broker configured with a rack-aware `replica.selector.class` may then point the consumer at a replica in the same rack (see `PreferredReadReplica`); empty, the default, opts out.",
    },
    Note {
        path: "FetchResponse.ThrottleTimeMs",
        text: "How long, in milliseconds, this client is held back for going over a quota; 0 when it did not. From v8 the broker answers first and then stops reading the connection for that long, so pause fetching from this broker meanwhile.",
    },
    Note {
        path: "FetchResponse.ErrorCode",
        text: "An error of the request as a whole (v7+), mostly about the fetch session, such as `FETCH_SESSION_ID_NOT_FOUND`; the response then holds no partitions. Problems of single partitions come in each partition's `ErrorCode`.",
    },
    Note {
        path: "FetchResponse.Responses.Partitions.ErrorCode",
        text: "Per partition: `OFFSET_OUT_OF_RANGE` asks for a new position, `NOT_LEADER_OR_FOLLOWER` and `FENCED_LEADER_EPOCH` for fresh metadata and a fetch from the current leader. Records come only with `ErrorCode::NONE`.",
    },
    Note {
        path: "FetchResponse.Responses.Partitions.HighWatermark",
        text: "The offset after the last record that every in-sync replica holds: consumers read up to it and no further (read-committed ones only to `LastStableOffset`). Its distance from the consumer's position is the consumer's lag.",
    },
    Note {
        path: "FetchResponse.Responses.Partitions.LastStableOffset",
        text: "The offset below which every transaction has been committed or aborted; a read-committed fetch returns records only below it. It equals the high watermark when no transaction is open, and is -1 when the broker did not report it.",
    },
    Note {
        path: "FetchResponse.Responses.Partitions.AbortedTransactions",
        text: "Filled for a read-committed fetch: each aborted transaction overlapping the returned records, as a producer id and the offset of its first record. Skip that producer's records from that offset up to its abort marker, a control batch. Null for a read-uncommitted fetch, where aborted records are simply returned.",
    },
    Note {
        path: "FetchResponse.Responses.Partitions.PreferredReadReplica",
        text: "-1 normally. Otherwise the broker id of a replica, usually in the consumer's rack, that the consumer should fetch this partition from next; such an answer carries no records.",
    },
    Note {
        path: "FetchResponse.Responses.Partitions.Records",
        text: "The batches read, which may begin before the requested offset (the whole batch that holds it comes back) and may end in a batch cut short by the size limits. Walk them with `Records::batches`, which stops before a cut-off tail, skip records below the offset asked for, and fetch next from the last batch's `next_offset()`.",
    },
    // ListOffsets (2)
    Note {
        path: "ListOffsetsRequest.ReplicaId",
        text: "-1 for a client: set `with_replica_id(-1)`, as the schema gives no default and `default()` holds 0. The broker takes 0 for a follower with broker id 0, ignores `IsolationLevel`, and answers a latest-offset lookup with the log end, which may lie past the high watermark.",
    },
    Note {
        path: "ListOffsetsRequest.IsolationLevel",
        text: "Matters for the latest offset (`Timestamp` -1): 0, read uncommitted, gives the high watermark, and 1, read committed, the last stable offset. It is honoured only when `ReplicaId` is -1.",
    },
    Note {
        path: "ListOffsetsRequest.Topics.Partitions.Timestamp",
        text: "What to look up: -1 the latest offset (the one after the last record a consumer may read, see `IsolationLevel`), -2 the earliest, -3 (v7+) the offset of the record with the largest timestamp, -4 (v8+) the earliest offset still on local disk under tiered storage, -5 (v9+) the last offset copied to tiered storage, -6 (v11+) the earliest not yet copied. A value of 0 or more is a time in milliseconds since the Unix epoch, and the answer is the first offset whose record timestamp is at or after it. A negative value the request's version does not know gets `UNSUPPORTED_VERSION`; `default()` holds 0, which is a time lookup, not the earliest offset.",
    },
    Note {
        path: "ListOffsetsResponse.Topics.Partitions.ErrorCode",
        text: "Per partition: `NOT_LEADER_OR_FOLLOWER` means ask the current leader, and `OFFSET_NOT_AVAILABLE` (a new leader that does not know its high watermark yet) means retry shortly.",
    },
    Note {
        path: "ListOffsetsResponse.Topics.Partitions.Offset",
        text: "The offset found. -1 with no error means no record qualifies, typically a time lookup later than every record: the consumer then starts from the latest offset.",
    },
    // Metadata (3)
    Note {
        path: "MetadataRequest",
        text: "`default()` asks for no topics: the answer lists the brokers and the cluster only. Ask for every topic with `MetadataRequest::default().with_topics(None)` (v1+), or for some with `.with_topics(&topics)`. At v0 the same empty list asks for every topic.",
    },
    Note {
        path: "MetadataRequest.Topics",
        text: "The topics to describe. From v1, null asks for every topic and an empty list, what `default()` holds, for none, only brokers and cluster; at v0 an empty list meant every topic, and null is refused there (`NullNotAllowed`). All: `with_topics(None)`; some: `with_topics(&topics)`.",
    },
    Note {
        path: "MetadataRequest.Topics.Name",
        text: "The topic to describe. From v12 a topic may be named by `TopicId` with a null name instead; v10 and v11 carry the id field, but brokers did not implement lookups by id there, so name topics by name at those versions.",
    },
    Note {
        path: "MetadataRequest.AllowAutoTopicCreation",
        text: "Whether the broker may create requested topics that do not exist, which it does only if its `auto.create.topics.enable` is on. True by default; v0 to v3 always allow it, and the encoder refuses false at those versions.",
    },
    Note {
        path: "MetadataResponse.Topics.ErrorCode",
        text: "Per topic: `UNKNOWN_TOPIC_OR_PARTITION` when it does not exist (and was not created), `LEADER_NOT_AVAILABLE` while a new topic is still getting its leaders (ask again shortly), `TOPIC_AUTHORIZATION_FAILED` when this client may not see it.",
    },
    Note {
        path: "MetadataResponse.Topics.Partitions.LeaderId",
        text: "The broker to send this partition's Produce and Fetch requests to: look its `NodeId` up in `Brokers` for host and port. -1 while the partition has no leader; refresh the metadata and try again.",
    },
    // OffsetCommit (8)
    Note {
        path: "OffsetCommitRequest.GenerationIdOrMemberEpoch",
        text: "A member of a classic group sends the `GenerationId` of its last JoinGroup response; a member of a KIP-848 consumer group sends its member epoch. A client that stores offsets without joining the group (a simple consumer, a standalone commit) sends -1, the default, with an empty `MemberId`, which a classic group accepts only while it has no members.",
    },
    Note {
        path: "OffsetCommitRequest.Topics.Name",
        text: "The topic by name, up to v9; v10 names it by `TopicId` instead. Set both and the encoder writes the one the version carries; one alone at a version that carries the other is refused (`TopicNamedBy`).",
    },
    Note {
        path: "OffsetCommitRequest.Topics.Partitions.CommittedOffset",
        text: "Where the group resumes: the offset of the next record to read, that is the last processed offset plus one, not the last one read. Committing the last read offset makes the consumer process that record again after a restart.",
    },
    Note {
        path: "OffsetCommitRequest.Topics.Partitions.CommittedLeaderEpoch",
        text: "The epoch of the leader that appended the last record consumed (the batch header carries it), v6+. It lets a consumer that later resumes from this offset detect that the log was truncated under it; -1, the default, when unknown.",
    },
    Note {
        path: "OffsetCommitRequest.Topics.Partitions.CommittedMetadata",
        text: "Free text kept with the offset and handed back by OffsetFetch; `default()` holds the empty string. Brokers limit its size (`offset.metadata.max.bytes`, 4096 by default) and answer `OFFSET_METADATA_TOO_LARGE` beyond it.",
    },
    // OffsetFetch (9)
    Note {
        path: "OffsetFetchRequest.Topics",
        text: "The partitions to look up, up to v7 (v8+ uses `Groups`). Null asks for every partition the group has committed (v2+), while an empty list, what `default()` holds, asks for none; set `with_topics(None)` for all.",
    },
    Note {
        path: "OffsetFetchRequest.Groups.Topics",
        text: "As the top-level `Topics` of older versions: null for every partition the group has committed, an empty list, the default, for none.",
    },
    Note {
        path: "OffsetFetchRequest.RequireStable",
        text: "v7+: when true, a partition whose transactional offset commit is still pending answers `UNSTABLE_OFFSET_COMMIT`, a retriable error, rather than the older committed offset. Read-committed consumers set it.",
    },
    Note {
        path: "OffsetFetchResponse.Topics.Partitions.CommittedOffset",
        text: "-1, with no error, when the group has no offset for the partition: the consumer must pick where to start itself (ListOffsets -2 or -1).",
    },
    Note {
        path: "OffsetFetchResponse.Groups.Topics.Partitions.CommittedOffset",
        text: "-1, with no error, when nothing is committed for the partition; the consumer then chooses its start itself, with ListOffsets -2 or -1.",
    },
    Note {
        path: "OffsetFetchResponse.Groups.ErrorCode",
        text: "An error of this group as a whole (v8+): `COORDINATOR_LOAD_IN_PROGRESS` means retry, `NOT_COORDINATOR` means find the coordinator again; partition errors come per partition.",
    },
    // FindCoordinator (10)
    Note {
        path: "FindCoordinatorRequest.Key",
        text: "Up to v3: the group id, or the transactional id with `KeyType` 1, whose coordinator is wanted. From v4 the keys go in `CoordinatorKeys` and the answers in `Coordinators`.",
    },
    Note {
        path: "FindCoordinatorRequest.KeyType",
        text: "What the key names (v1+): 0, the default, a group; 1 a transactional id; 2 (v6+) the share coordinator that keeps a share-partition's state, keyed `groupId:topicId:partition`, which brokers ask for. v0 knows only groups, and members of share groups still look up their group with 0.",
    },
    Note {
        path: "FindCoordinatorRequest.CoordinatorKeys",
        text: "v4+: the keys to look up in one request, all of the one `KeyType`; the response has a `Coordinators` entry for each.",
    },
    Note {
        path: "FindCoordinatorResponse.Coordinators",
        text: "v4+: one entry per key asked, each with its own `ErrorCode`; up to v3 the single answer sits in the top-level fields. Send the group's or transaction's requests to `Host` and `Port`, and look again after `NOT_COORDINATOR`.",
    },
    // JoinGroup (11)
    Note {
        path: "JoinGroupRequest.SessionTimeoutMs",
        text: "How long the coordinator waits without a heartbeat before it drops the member and rebalances. It must lie between the broker's `group.min.session.timeout.ms` and `group.max.session.timeout.ms` (6 s and 30 min by default), or the join gets `INVALID_SESSION_TIMEOUT`; `default()` holds 0, which is refused. The Java consumer uses 45000.",
    },
    Note {
        path: "JoinGroupRequest.RebalanceTimeoutMs",
        text: "How long the coordinator waits, once a rebalance starts, for every member to join again; members that take longer are dropped. The Java consumer sends its `max.poll.interval.ms` (5 min by default). v0 has no such field and uses `SessionTimeoutMs`; from v1 set it, as the default -1 is only a placeholder.",
    },
    Note {
        path: "JoinGroupRequest.MemberId",
        text: "Empty on the first join. From v4 a broker answers an empty id with `MEMBER_ID_REQUIRED` and puts the id to use in the response's `MemberId`: join again with it. Keep it for SyncGroup, Heartbeat, OffsetCommit, LeaveGroup and later joins; after `UNKNOWN_MEMBER_ID`, start over with an empty id.",
    },
    Note {
        path: "JoinGroupRequest.GroupInstanceId",
        text: "Static membership (v5+): an id that stays the same across restarts of one consumer instance (its `group.instance.id`), so that a restart within the session timeout keeps the assignment without a rebalance. Null, the default, makes a dynamic member. A second member joining with the same instance id fences the first (`FENCED_INSTANCE_ID`).",
    },
    Note {
        path: "JoinGroupRequest.ProtocolType",
        text: "The kind of group: `consumer` for consumers, `connect` for Kafka Connect workers. All members must send the same type, or the join gets `INCONSISTENT_GROUP_PROTOCOL`.",
    },
    Note {
        path: "JoinGroupRequest.Protocols",
        text: "The assignment strategies this member supports, in order of preference (for consumers, assignor names such as `range` or `cooperative-sticky`), each with metadata that only the group leader reads (for consumers, a `ConsumerProtocolSubscription`). The coordinator picks one that every member lists.",
    },
    Note {
        path: "JoinGroupResponse.GenerationId",
        text: "The generation of the group that this join completed; send it in SyncGroup, Heartbeat and OffsetCommit until the next rebalance.",
    },
    Note {
        path: "JoinGroupResponse.Leader",
        text: "The member id of the group leader. If it equals the response's `MemberId`, this member leads: `Members` lists everyone with their metadata, and it must compute the assignment and send it in SyncGroup.",
    },
    // Heartbeat (12)
    Note {
        path: "HeartbeatRequest",
        text: "Sent by each member, well within `SessionTimeoutMs` (at most a third of it is the usual advice), with the `GenerationId` and `MemberId` of its last join. `REBALANCE_IN_PROGRESS` in the answer means join again, keeping the member id.",
    },
    // LeaveGroup (13)
    Note {
        path: "LeaveGroupRequest.Members",
        text: "v3+: the members to remove, each by `MemberId`, plus `GroupInstanceId` for a static member. An admin tool may remove a static member by instance id alone, with an empty member id.",
    },
    // SyncGroup (14)
    Note {
        path: "SyncGroupRequest.GenerationId",
        text: "The `GenerationId` of the JoinGroup response just received; a stale one gets `ILLEGAL_GENERATION`, and the member must join again.",
    },
    Note {
        path: "SyncGroupRequest.ProtocolType",
        text: "Required from v5: the protocol type the JoinGroup response named. Null, what `default()` holds, or a mismatch gets `INCONSISTENT_GROUP_PROTOCOL`, so set it at v5+.",
    },
    Note {
        path: "SyncGroupRequest.ProtocolName",
        text: "Required from v5: the protocol the JoinGroup response chose (its `ProtocolName`). Null, the default, or a different name gets `INCONSISTENT_GROUP_PROTOCOL`.",
    },
    Note {
        path: "SyncGroupRequest.Assignments",
        text: "The leader sends every member's assignment here (for consumers, one `ConsumerProtocolAssignment` each); the other members send an empty list. Each member receives its own in the response's `Assignment`.",
    },
    // SaslHandshake (17)
    Note {
        path: "SaslHandshakeRequest.Mechanism",
        text: "The SASL mechanism, as Kafka spells it: `PLAIN`, `SCRAM-SHA-256`, `SCRAM-SHA-512`, `OAUTHBEARER` or `GSSAPI`. One that the listener does not enable gets `UNSUPPORTED_SASL_MECHANISM`, and the response lists the enabled ones. Use v1, after which each message of the exchange travels in a SaslAuthenticate request.",
    },
    // ApiVersions (18)
    Note {
        path: "ApiVersionsRequest.ClientSoftwareName",
        text: "The client library's name (v3+), which brokers show in their metrics. It must match `[a-zA-Z0-9](?:[a-zA-Z0-9\\-.]*[a-zA-Z0-9])?`: letters, digits, `-` and `.`, beginning and ending with a letter or digit. A v3+ request whose name or version fails gets `INVALID_REQUEST`, and `default()` holds the empty string, which fails; the negotiating session sends `kwire` (see `Client::with_software`).",
    },
    Note {
        path: "ApiVersionsRequest.ClientSoftwareVersion",
        text: "The library's version (v3+), under the same pattern as the name: `1.4.0` and `1.4.0-rc1` pass, while `1.4.0+build` fails on the `+`.",
    },
    Note {
        path: "ApiVersionsResponse.ErrorCode",
        text: "`UNSUPPORTED_VERSION` when the broker does not know the version asked: it then answers in the v0 layout, with `ApiKeys` giving at least its own ApiVersions range, so the client can ask again at the highest version both know. The negotiating session does that itself (`Event::Retry`).",
    },
    Note {
        path: "ApiVersionsResponse.ApiKeys",
        text: "The APIs the broker serves, each with the lowest and highest version it accepts; send each request at the highest version both sides support (`kwire::api::VersionTable` picks it). An API missing from the list is not served by this broker.",
    },
    // CreateTopics (19)
    Note {
        path: "CreateTopicsRequest.Topics.NumPartitions",
        text: "The new topic's partition count. -1 takes the broker's `num.partitions`, which the protocol allows from v4 (Kafka's own client refuses to send it earlier); with manual `Assignments` it must be -1, as the assignment gives the count. `default()` holds 0, which is refused with `INVALID_PARTITIONS`.",
    },
    Note {
        path: "CreateTopicsRequest.Topics.ReplicationFactor",
        text: "Copies of each partition. -1 takes the broker's `default.replication.factor`, from v4, and it must be -1 when `Assignments` places the replicas; more than the live brokers gets `INVALID_REPLICATION_FACTOR`. `default()` holds 0, which is refused too.",
    },
    Note {
        path: "CreateTopicsRequest.Topics.Assignments",
        text: "A manual placement: for each partition, the ids of the brokers holding its replicas, the first being the preferred leader. Empty, the default, lets the controller place them; when set, `NumPartitions` and `ReplicationFactor` must both be -1, or the topic gets `INVALID_REQUEST`.",
    },
    Note {
        path: "CreateTopicsRequest.Topics.Configs",
        text: "Topic-level settings that differ from the broker's defaults, such as `cleanup.policy` set to `compact`, or `retention.ms`. An unknown name or a bad value fails the topic, and a null value is refused.",
    },
    Note {
        path: "CreateTopicsRequest.timeoutMs",
        text: "How long the broker waits for the creation to complete before answering, 60000 by default (the schema spells the field `timeoutMs`). A topic answered with `REQUEST_TIMED_OUT` may still be created afterwards: check with Metadata before trying again.",
    },
    Note {
        path: "CreateTopicsRequest.validateOnly",
        text: "When true (v1+), the broker runs every check (name, partitions, replication, configs, creation policy) and reports the outcome, but creates nothing.",
    },
    Note {
        path: "CreateTopicsResponse.Topics.ErrorCode",
        text: "Per topic: `TOPIC_ALREADY_EXISTS` is often harmless, `ErrorMessage` (v1+) gives the reason of the others, and `THROTTLING_QUOTA_EXCEEDED` (v6+) asks to try again after `ThrottleTimeMs`.",
    },
    // DeleteTopics (20)
    Note {
        path: "DeleteTopicsRequest.Topics",
        text: "v6+: the topics to delete, each either by `Name` with a zero `TopicId`, or by `TopicId` with a null `Name`. An entry with both, or with neither, gets `INVALID_REQUEST`.",
    },
    Note {
        path: "DeleteTopicsRequest.TimeoutMs",
        text: "How long the broker waits for the deletions to complete before answering; `default()` holds 0, so set one. A topic answered with `REQUEST_TIMED_OUT` may still be deleted afterwards.",
    },
    // InitProducerId (22)
    Note {
        path: "InitProducerIdRequest.TransactionalId",
        text: "Null for an idempotent producer outside transactions: any broker then hands out a fresh producer id. A transactional producer sends its `transactional.id`, to its transaction coordinator (FindCoordinator with `KeyType` 1). `default()` holds the empty string, which brokers refuse with `INVALID_REQUEST`: set `with_transactional_id(None)` or a real id.",
    },
    Note {
        path: "InitProducerIdRequest.TransactionTimeoutMs",
        text: "For a transactional producer, how long a transaction may stay open before the coordinator aborts it; ignored without a `TransactionalId`. It must be positive and at most the broker's `transaction.max.timeout.ms` (15 min by default), or the answer is `INVALID_TRANSACTION_TIMEOUT`; `default()` holds 0, and the Java producer uses 60000.",
    },
    Note {
        path: "InitProducerIdRequest.ProducerId",
        text: "-1, the default, asks for a new id. From v3 a producer that already has one may send it, with its current `ProducerEpoch`, to keep the id at a bumped epoch after an error that needs it.",
    },
    Note {
        path: "InitProducerIdRequest.ProducerEpoch",
        text: "-1 with a new producer; otherwise the epoch the producer currently holds for `ProducerId`. A stale epoch is fenced (`PRODUCER_FENCED` from v4, `INVALID_PRODUCER_EPOCH` before).",
    },
    // DescribeConfigs (32)
    Note {
        path: "DescribeConfigsRequest.Resources.ResourceType",
        text: "What the resource is, as Kafka's `ConfigResource.Type` numbers it: 2 a topic, 4 a broker, 8 a broker's loggers, 16 client metrics settings, 32 a group.",
    },
    Note {
        path: "DescribeConfigsRequest.Resources.ResourceName",
        text: "The topic's name, or for a broker or its loggers the broker id in decimal, such as `\"1\"`. An empty name with type 4 asks for the cluster-wide dynamic broker defaults.",
    },
    Note {
        path: "DescribeConfigsRequest.Resources.ConfigurationKeys",
        text: "The settings to return; null asks for all. Current brokers also read an empty list, what `default()` holds, as all.",
    },
    Note {
        path: "DescribeConfigsResponse.Results.Configs.Value",
        text: "The value as a string; null for a sensitive setting such as a password, which then has `IsSensitive` set.",
    },
    Note {
        path: "DescribeConfigsResponse.Results.Configs.ConfigSource",
        text: "Where the value comes from (v1+): 1 a dynamic topic setting, 2 a dynamic setting of this broker, 3 a dynamic cluster-wide broker default, 4 the broker's properties file, 5 Kafka's built-in default, 6 a dynamic logger level; newer brokers use higher values for newer sources.",
    },
    // SaslAuthenticate (36)
    Note {
        path: "SaslAuthenticateRequest.AuthBytes",
        text: "One message of the mechanism chosen in SaslHandshake, as `kwire::session::sasl::SaslClient` writes it; the response's `AuthBytes` carry the server's next message. Send it only after a v1 SaslHandshake succeeded.",
    },
    Note {
        path: "SaslAuthenticateResponse.ErrorCode",
        text: "`SASL_AUTHENTICATION_FAILED` means the credentials were rejected, with details in `ErrorMessage`; the broker closes the connection after this answer.",
    },
    Note {
        path: "SaslAuthenticateResponse.SessionLifetimeMs",
        text: "v1+: 0 when the broker sets no limit. Otherwise the milliseconds after which the connection must authenticate again, over the same connection, or the broker closes it.",
    },
];

/// Every message's name and every field's schema path in `messages`: what a note may name.
///
/// # Errors
///
/// A message whose structs do not collect.
pub fn schema_paths(messages: &[crate::spec::Message]) -> Result<Vec<String>, String> {
    let mut paths = Vec::new();
    for m in messages {
        paths.push(m.name.clone());
        for s in crate::spec::collect_structs(m)?.list {
            paths.extend(s.fields.iter().map(|f| format!("{}.{}", s.path, f.name)));
        }
    }
    Ok(paths)
}

/// The note on `path`, if there is one.
pub fn note(path: &str) -> Option<&'static str> {
    NOTES.iter().find(|n| n.path == path).map(|n| n.text)
}

/// `Err` naming the notes whose path is not one of `paths` ([`schema_paths`]): a note must not
/// outlive the field it explains.
pub fn check<'p>(paths: impl IntoIterator<Item = &'p str>) -> Result<(), String> {
    let paths: std::collections::BTreeSet<&str> = paths.into_iter().collect();
    let stray: Vec<&str> = NOTES
        .iter()
        .map(|n| n.path)
        .filter(|p| !paths.contains(p))
        .collect();
    if stray.is_empty() {
        Ok(())
    } else {
        Err(format!("notes on nothing: {}", stray.join(", ")))
    }
}

/// `text` as doc comment lines of at most `width` characters (a word longer than that stays
/// whole), each ending in a newline.
pub fn doc_lines(text: &str, width: usize) -> String {
    let mut out = String::new();
    let mut line = String::new();
    for word in text.split_whitespace() {
        if !line.is_empty() && line.len() + 1 + word.len() > width {
            out.push_str("/// ");
            out.push_str(&line);
            out.push('\n');
            line.clear();
        }
        if !line.is_empty() {
            line.push(' ');
        }
        line.push_str(word);
    }
    if !line.is_empty() {
        out.push_str("/// ");
        out.push_str(&line);
        out.push('\n');
    }
    out
}
