//! Control records: the transaction markers and the KRaft metadata-log records that sit in
//! control batches. Their values are decoded in [`crate::control`], above the generated
//! messages that the KRaft records are.

use super::record::Record;
use crate::codec::Reader;
use crate::error::{DecodeError, DecodeErrorKind};

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

    /// Where the record starts, as an absolute offset: the offset its errors name.
    #[must_use]
    pub const fn position(&self) -> usize {
        self.position
    }
}
