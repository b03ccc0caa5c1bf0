//! What the probe sends: the smallest legal request of each API version, which versions, and
//! which APIs are left out unless `--allow-writes`.

use clap::ValueEnum;
use kwire::ApiKey;
use kwire_schema::describe::{self, Side};

/// Which versions the probe sends.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Versions {
    /// The versions the broker advertises.
    Advertised,
    /// Every version kwire knows, advertised or not.
    All,
}

/// The APIs whose requests create, delete or alter something on the server, or take part in
/// the cluster's own replication, quorum and registration: skipped unless `--allow-writes`.
pub const WRITES: &[&str] = &[
    "LeaderAndIsr",
    "StopReplica",
    "UpdateMetadata",
    "ControlledShutdown",
    "OffsetCommit",
    "JoinGroup",
    "SyncGroup",
    "LeaveGroup",
    "CreateTopics",
    "DeleteTopics",
    "DeleteRecords",
    "InitProducerId",
    "AddPartitionsToTxn",
    "AddOffsetsToTxn",
    "EndTxn",
    "WriteTxnMarkers",
    "TxnOffsetCommit",
    "CreateAcls",
    "DeleteAcls",
    "AlterConfigs",
    "AlterReplicaLogDirs",
    "CreatePartitions",
    "CreateDelegationToken",
    "RenewDelegationToken",
    "ExpireDelegationToken",
    "DeleteGroups",
    "ElectLeaders",
    "IncrementalAlterConfigs",
    "AlterPartitionReassignments",
    "OffsetDelete",
    "AlterClientQuotas",
    "AlterUserScramCredentials",
    "Vote",
    "BeginQuorumEpoch",
    "EndQuorumEpoch",
    "AlterPartition",
    "UpdateFeatures",
    "Envelope",
    "BrokerRegistration",
    "BrokerHeartbeat",
    "UnregisterBroker",
    "AllocateProducerIds",
    "ConsumerGroupHeartbeat",
    "ControllerRegistration",
    "PushTelemetry",
    "AssignReplicasToDirs",
    "ShareGroupHeartbeat",
    "ShareFetch",
    "ShareAcknowledge",
    "AddRaftVoter",
    "RemoveRaftVoter",
    "UpdateRaftVoter",
    "InitializeShareGroupState",
    "WriteShareGroupState",
    "DeleteShareGroupState",
    "StreamsGroupHeartbeat",
    "AlterShareGroupOffsets",
    "DeleteShareGroupOffsets",
    "StreamsGroupTopologyDescriptionUpdate",
    "UnregisterController",
];

/// Whether requests of `api` create, delete or alter something ([`WRITES`]).
#[must_use]
pub fn is_write(api: ApiKey) -> bool {
    api.info().is_some_and(|i| WRITES.contains(&i.name))
}

/// The smallest legal request frame of `api` at `version` (correlation id 0, empty client id),
/// as [`describe::write_minimal_frame`] writes it. `None` when kwire has no such version.
#[must_use]
pub fn minimal_request(api: ApiKey, version: i16) -> Option<Vec<u8>> {
    let mut out = vec![0u8; 1 << 12];
    let n = match describe::write_minimal_frame(api, version, Side::Request, &mut out) {
        Ok(n) => n,
        Err(describe::DescribeError::ScratchTooSmall { needed }) => {
            out = vec![0u8; needed];
            describe::write_minimal_frame(api, version, Side::Request, &mut out).ok()?
        }
        Err(_) => return None,
    };
    out.truncate(n);
    Some(out)
}

#[cfg(test)]
mod tests {
    use kwire::api::API_TABLE;
    use kwire::frame;

    use super::*;

    #[test]
    fn every_write_is_an_api() {
        for name in WRITES {
            assert!(ApiKey::from_name(name).is_some(), "{name}");
        }
        assert!(is_write(ApiKey::CREATE_TOPICS));
        assert!(!is_write(ApiKey::METADATA));
    }

    #[test]
    fn every_minimal_request_reads_back() {
        for info in API_TABLE {
            for v in info.request_versions.min..=info.request_versions.max {
                if info.request_versions.is_empty() {
                    break;
                }
                let bytes = minimal_request(info.key, v).expect("a minimal request");
                assert!(frame::decode_request(&bytes).is_ok(), "{} v{v}", info.name);
            }
        }
    }
}
