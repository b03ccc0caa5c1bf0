//! Legacy message sets: log entries in the magic 0 and magic 1 formats, checksummed with CRC-32.

use super::batch::{Compression, LOG_OVERHEAD, TimestampType, entry_size};
use super::crc::crc32;
use crate::codec::Reader;
use crate::error::{DecodeError, DecodeErrorKind};

/// Offset of the CRC in a legacy entry (after the offset and size fields).
const CRC_OFFSET: usize = 12;
/// Offset of the first CRC-covered byte (the magic byte).
const CRC_COVERED: usize = 16;

/// The smallest `messageSize` of a magic 0 message (no key or value).
pub const MIN_MESSAGE_SIZE_V0: i32 = 14;
/// The smallest `messageSize` of a magic 1 message.
pub const MIN_MESSAGE_SIZE_V1: i32 = 22;

/// A view over one legacy log entry: `int64` offset, `int32` size and a magic 0 or 1 message.
///
/// Building the view checks the magic, the size and that key and value fit the message exactly;
/// the CRC is checked only when asked ([`LegacyMessage::verify_crc`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct LegacyMessage<'a> {
    bytes: &'a [u8],
    position: usize,
    offset: i64,
    crc: u32,
    magic: i8,
    attributes: i8,
    timestamp: Option<i64>,
    key: Option<&'a [u8]>,
    value: Option<&'a [u8]>,
}

impl<'a> LegacyMessage<'a> {
    /// Reads the entry at the start of `input` (bytes after it are ignored).
    ///
    /// # Errors
    ///
    /// `Truncated` when `input` is shorter than the entry, `UnknownMagic` for a magic other than
    /// 0 or 1, `EntryTooSmall` for a size below the format's minimum, `NegativeLength` for a key
    /// or value length below -1, `TrailingBytes` when key and value end before the message does.
    pub fn parse(input: &'a [u8]) -> Result<Self, DecodeError> {
        Self::parse_at(input, 0)
    }

    /// As [`LegacyMessage::parse`], with `input` at absolute offset `base` of a larger buffer.
    ///
    /// # Errors
    ///
    /// As [`LegacyMessage::parse`].
    pub fn parse_at(input: &'a [u8], base: usize) -> Result<Self, DecodeError> {
        let mut head = Reader::with_offset(input, base);
        let offset = head.i64("LegacyMessage.offset")?;
        let size_at = head.offset();
        let size = head.i32("LegacyMessage.messageSize")?;
        let crc = head.u32("LegacyMessage.crc")?;
        let magic_at = head.offset();
        let magic = head.i8("LegacyMessage.magic")?;
        let min = match magic {
            0 => MIN_MESSAGE_SIZE_V0,
            1 => MIN_MESSAGE_SIZE_V1,
            _ => {
                return Err(DecodeError::new(
                    magic_at,
                    DecodeErrorKind::UnknownMagic(magic),
                    "LegacyMessage.magic",
                ));
            }
        };
        if size < min {
            return Err(DecodeError::new(
                size_at,
                DecodeErrorKind::EntryTooSmall { size, min },
                "LegacyMessage.messageSize",
            ));
        }
        let total = usize::try_from(size)
            .unwrap_or(usize::MAX)
            .saturating_add(LOG_OVERHEAD);
        let Some(bytes) = input.get(..total) else {
            return Err(DecodeError::new(
                base.saturating_add(input.len()),
                DecodeErrorKind::Truncated {
                    needed: total.saturating_sub(input.len()),
                },
                "LegacyMessage.messageSize",
            ));
        };
        let mut r = Reader::with_offset(bytes, base);
        r.take(CRC_COVERED.saturating_add(1), "LegacyMessage")?;
        let attributes = r.i8("LegacyMessage.attributes")?;
        let timestamp = if magic == 1 {
            Some(r.i64("LegacyMessage.timestamp")?)
        } else {
            None
        };
        let key = nullable_bytes(&mut r, "LegacyMessage.key")?;
        let value = nullable_bytes(&mut r, "LegacyMessage.value")?;
        r.finish("LegacyMessage")?;
        Ok(Self {
            bytes,
            position: base,
            offset,
            crc,
            magic,
            attributes,
            timestamp,
            key,
            value,
        })
    }

    /// The entry's bytes (offset and size fields included).
    #[must_use]
    pub const fn as_bytes(&self) -> &'a [u8] {
        self.bytes
    }

    /// Absolute position of the entry's first byte in the buffer it was read from.
    #[must_use]
    pub const fn position(&self) -> usize {
        self.position
    }

    /// The entry's offset as stored (for an inner message of a magic 1 wrapper, a relative one).
    #[must_use]
    pub const fn offset(&self) -> i64 {
        self.offset
    }

    /// `messageSize`: the bytes after the size field.
    #[must_use]
    pub fn message_size(&self) -> i32 {
        entry_size(self.bytes).unwrap_or(0)
    }

    /// The stored CRC-32.
    #[must_use]
    pub const fn crc(&self) -> u32 {
        self.crc
    }

    /// The magic byte: 0 or 1.
    #[must_use]
    pub const fn magic(&self) -> i8 {
        self.magic
    }

    /// The attributes byte.
    #[must_use]
    pub const fn attributes(&self) -> i8 {
        self.attributes
    }

    /// The compression codec (bits 0-2). A compressed message is a wrapper: its value holds the
    /// compressed inner entries.
    #[must_use]
    pub const fn compression(&self) -> Compression {
        Compression(self.attributes.to_be_bytes()[0] & 0x07)
    }

    /// The timestamp type (bit 3, magic 1 only).
    #[must_use]
    pub const fn timestamp_type(&self) -> TimestampType {
        if self.magic == 1 && self.attributes & 0x08 != 0 {
            TimestampType::LogAppendTime
        } else {
            TimestampType::CreateTime
        }
    }

    /// The timestamp (magic 1 only; -1 when the producer set none).
    #[must_use]
    pub const fn timestamp(&self) -> Option<i64> {
        self.timestamp
    }

    /// The key; `None` when null.
    #[must_use]
    pub const fn key(&self) -> Option<&'a [u8]> {
        self.key
    }

    /// The value; `None` when null.
    #[must_use]
    pub const fn value(&self) -> Option<&'a [u8]> {
        self.value
    }

    /// CRC-32 over the bytes the stored CRC covers (the magic byte to the end).
    #[must_use]
    pub fn compute_crc(&self) -> u32 {
        crc32(self.bytes.get(CRC_COVERED..).unwrap_or_default())
    }

    /// Checks the stored CRC against the bytes. Under `cfg(fuzzing)` this always succeeds.
    ///
    /// # Errors
    ///
    /// `CrcMismatch` at the CRC field's offset.
    pub fn verify_crc(&self) -> Result<(), DecodeError> {
        let computed = self.compute_crc();
        if self.crc == computed || cfg!(fuzzing) {
            Ok(())
        } else {
            Err(DecodeError::new(
                self.position.saturating_add(CRC_OFFSET),
                DecodeErrorKind::CrcMismatch {
                    stored: self.crc,
                    computed,
                },
                "LegacyMessage.crc",
            ))
        }
    }
}

/// Reads `int32`-length-prefixed bytes; -1 is null.
fn nullable_bytes<'a>(
    r: &mut Reader<'a>,
    path: &'static str,
) -> Result<Option<&'a [u8]>, DecodeError> {
    let at = r.offset();
    let len = r.i32(path)?;
    if len == -1 {
        return Ok(None);
    }
    let Ok(n) = usize::try_from(len) else {
        return Err(DecodeError::new(
            at,
            DecodeErrorKind::NegativeLength(len),
            path,
        ));
    };
    r.take(n, path).map(Some)
}
