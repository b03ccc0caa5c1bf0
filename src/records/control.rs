//! Control records: the transaction markers and the KRaft metadata-log records that sit in
//! control batches.

use super::record::Record;
use crate::codec::{Decode, Reader};
use crate::error::{DecodeError, DecodeErrorKind};
use crate::messages::{
    KRaftVersionRecord, LeaderChangeMessage, SnapshotFooterRecord, SnapshotHeaderRecord,
    VotersRecord,
};

/// The type of a control record (the second `int16` of its key). Open: unknown types are kept.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct ControlRecordType(pub i16);

impl ControlRecordType {
    /// A transaction was aborted.
    pub const ABORT: Self = Self(0);
    /// A transaction was committed.
    pub const COMMIT: Self = Self(1);
    /// KRaft: a new leader was elected.
    pub const LEADER_CHANGE: Self = Self(2);
    /// KRaft: first record of a snapshot.
    pub const SNAPSHOT_HEADER: Self = Self(3);
    /// KRaft: last record of a snapshot.
    pub const SNAPSHOT_FOOTER: Self = Self(4);
    /// KRaft: the `kraft.version` feature level.
    pub const KRAFT_VERSION: Self = Self(5);
    /// KRaft: the set of voters.
    pub const KRAFT_VOTERS: Self = Self(6);

    /// Kafka's name for the type, or `None` for one it does not define.
    #[must_use]
    pub const fn name(self) -> Option<&'static str> {
        match self.0 {
            0 => Some("ABORT"),
            1 => Some("COMMIT"),
            2 => Some("LEADER_CHANGE"),
            3 => Some("SNAPSHOT_HEADER"),
            4 => Some("SNAPSHOT_FOOTER"),
            5 => Some("KRAFT_VERSION"),
            6 => Some("KRAFT_VOTERS"),
            _ => None,
        }
    }

    /// The 4-byte record key of this type: `int16` version 0, `int16` type.
    #[must_use]
    pub const fn key(self) -> [u8; 4] {
        let t = self.0.to_be_bytes();
        [0, 0, t[0], t[1]]
    }
}

/// The value of an ABORT or COMMIT control record: an `int16` version (0) and the transaction
/// coordinator's epoch.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct TxnMarker {
    /// The value's version.
    pub version: i16,
    /// The epoch of the transaction coordinator that wrote the marker.
    pub coordinator_epoch: i32,
}

impl TxnMarker {
    /// A version-0 marker.
    #[must_use]
    pub const fn new(coordinator_epoch: i32) -> Self {
        Self {
            version: 0,
            coordinator_epoch,
        }
    }

    /// The 6-byte record value.
    #[must_use]
    pub const fn value(&self) -> [u8; 6] {
        let v = self.version.to_be_bytes();
        let e = self.coordinator_epoch.to_be_bytes();
        [v[0], v[1], e[0], e[1], e[2], e[3]]
    }
}

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

/// A control record: the key read as version and type, the value kept raw until asked for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct ControlRecord<'a> {
    version: i16,
    record_type: ControlRecordType,
    value: Option<&'a [u8]>,
    position: usize,
}

impl<'a> ControlRecord<'a> {
    /// Reads the key of a record from a control batch.
    ///
    /// As in Kafka, a key version above 0 is read as version 0 (later versions may only append).
    ///
    /// # Errors
    ///
    /// `UnexpectedNull` for a null key, `Truncated` for a key shorter than 4 bytes, `Malformed` for
    /// a negative key version; offsets are the record's position.
    pub fn parse(record: &Record<'a>) -> Result<Self, DecodeError> {
        let position = record.position();
        let Some(key) = record.key() else {
            return Err(DecodeError::new(
                position,
                DecodeErrorKind::UnexpectedNull,
                "ControlRecord.key",
            ));
        };
        let mut r = Reader::with_offset(key, position);
        let version = r.decode_with(|r| r.i16("ControlRecord.version"))?;
        if version < 0 {
            return Err(DecodeError::new(
                position,
                DecodeErrorKind::Malformed,
                "ControlRecord.version",
            ));
        }
        let record_type = ControlRecordType(r.decode_with(|r| r.i16("ControlRecord.type"))?);
        Ok(Self {
            version,
            record_type,
            value: record.value(),
            position,
        })
    }

    /// The key's version.
    #[must_use]
    pub const fn version(&self) -> i16 {
        self.version
    }

    /// The control record type.
    #[must_use]
    pub const fn record_type(&self) -> ControlRecordType {
        self.record_type
    }

    /// The raw value.
    #[must_use]
    pub const fn value(&self) -> Option<&'a [u8]> {
        self.value
    }

    /// Decodes the value according to the type: the transaction marker for ABORT and COMMIT, the
    /// KRaft data record (at version 0, flexible, as Kafka writes them) for the others, and the
    /// raw value for unknown types.
    ///
    /// # Errors
    ///
    /// When a known type's value is null, too short or malformed.
    pub fn payload(&self) -> Result<ControlPayload<'a>, DecodeError> {
        let t = self.record_type;
        if t.name().is_none() {
            return Ok(ControlPayload::Unknown(t, self.value));
        }
        let Some(value) = self.value else {
            return Err(DecodeError::new(
                self.position,
                DecodeErrorKind::UnexpectedNull,
                "ControlRecord.value",
            ));
        };
        let mut r = Reader::with_offset(value, self.position);
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
