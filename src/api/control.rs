//! The values of control records, decoded by type: transaction markers, and KRaft's
//! metadata-log records, which are generated messages. It sits above [`crate::messages`], so
//! that [`crate::records`] stays below them; [`ControlRecord`] itself, the record's key, is a
//! record view.

use crate::codec::{Decode, Reader};
use crate::error::{DecodeError, DecodeErrorKind};
use crate::messages::{
    KRaftVersionRecord, LeaderChangeMessage, SnapshotFooterRecord, SnapshotHeaderRecord,
    VotersRecord,
};
use crate::records::{ControlRecord, ControlRecordType, TxnMarker};

/// What a control record carries, decoded by type.
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
#[non_exhaustive]
pub enum ControlPayload<'a> {
    /// A transaction abort marker.
    Abort(TxnMarker),
    /// A transaction commit marker.
    Commit(TxnMarker),
    /// KRaft `LeaderChangeMessage`.
    LeaderChange(LeaderChangeMessage<'a>),
    /// KRaft `SnapshotHeaderRecord`.
    SnapshotHeader(SnapshotHeaderRecord<'a>),
    /// KRaft `SnapshotFooterRecord`.
    SnapshotFooter(SnapshotFooterRecord<'a>),
    /// KRaft `KRaftVersionRecord`.
    KRaftVersion(KRaftVersionRecord<'a>),
    /// KRaft `VotersRecord`.
    KRaftVoters(VotersRecord<'a>),
    /// A type this crate does not know, passed through with its raw value.
    Unknown(ControlRecordType, Option<&'a [u8]>),
}

impl<'a> ControlRecord<'a> {
    /// Decodes the value according to the type: the transaction marker for ABORT and COMMIT, the
    /// KRaft data record (at version 0, flexible, as Kafka writes them) for the others, and the
    /// raw value for unknown types.
    ///
    /// # Errors
    ///
    /// When a known type's value is null, too short or malformed.
    pub fn payload(&self) -> Result<ControlPayload<'a>, DecodeError> {
        let t = self.record_type();
        if t.name().is_none() {
            return Ok(ControlPayload::Unknown(t, self.value()));
        }
        let Some(value) = self.value() else {
            return Err(DecodeError::new(
                self.position(),
                DecodeErrorKind::UnexpectedNull,
                "ControlRecord.value",
            ));
        };
        let mut r = Reader::with_offset(value, self.position());
        Ok(match t {
            ControlRecordType::ABORT | ControlRecordType::COMMIT => {
                let marker = TxnMarker {
                    version: r.decode_with(|r| r.i16("TxnMarker.version"))?,
                    coordinator_epoch: r.decode_with(|r| r.i32("TxnMarker.coordinatorEpoch"))?,
                };
                if t == ControlRecordType::ABORT {
                    ControlPayload::Abort(marker)
                } else {
                    ControlPayload::Commit(marker)
                }
            }
            ControlRecordType::LEADER_CHANGE => {
                ControlPayload::LeaderChange(LeaderChangeMessage::decode(&mut r, 0)?)
            }
            ControlRecordType::SNAPSHOT_HEADER => {
                ControlPayload::SnapshotHeader(SnapshotHeaderRecord::decode(&mut r, 0)?)
            }
            ControlRecordType::SNAPSHOT_FOOTER => {
                ControlPayload::SnapshotFooter(SnapshotFooterRecord::decode(&mut r, 0)?)
            }
            ControlRecordType::KRAFT_VERSION => {
                ControlPayload::KRaftVersion(KRaftVersionRecord::decode(&mut r, 0)?)
            }
            _ => ControlPayload::KRaftVoters(VotersRecord::decode(&mut r, 0)?),
        })
    }
}
