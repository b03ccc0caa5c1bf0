//! The two checksums of Kafka's record formats.
//!
//! * [`crc32c`]: CRC-32C (Castagnoli, reflected polynomial `0x82F63B78`), stored in every v2
//!   record batch over the bytes from the attributes (offset 21) to the end of the batch.
//! * [`crc32`]: CRC-32 (IEEE 802.3, the zlib checksum), stored in every legacy message (magic 0
//!   and 1) over the bytes from the magic byte to the end of the message.
//!
//! Both are table-driven, sixteen bytes per step, in safe portable code: the same result on every
//! target, no runtime feature detection.

use crc::{CRC_32_ISCSI, CRC_32_ISO_HDLC, Crc, Table};

static CASTAGNOLI: Crc<u32, Table<16>> = Crc::<u32, Table<16>>::new(&CRC_32_ISCSI);
static IEEE: Crc<u32, Table<16>> = Crc::<u32, Table<16>>::new(&CRC_32_ISO_HDLC);

/// CRC-32C of `bytes`.
///
/// ```
/// assert_eq!(kafka_wire::records::crc::crc32c(b"123456789"), 0xe306_9283);
/// ```
#[must_use]
pub fn crc32c(bytes: &[u8]) -> u32 {
    CASTAGNOLI.checksum(bytes)
}

/// CRC-32 (IEEE) of `bytes`.
///
/// ```
/// assert_eq!(kafka_wire::records::crc::crc32(b"123456789"), 0xcbf4_3926);
/// ```
#[must_use]
pub fn crc32(bytes: &[u8]) -> u32 {
    IEEE.checksum(bytes)
}

/// A CRC-32C computed over several pieces, for data that is not contiguous.
#[derive(Clone)]
pub struct Crc32c {
    digest: crc::Digest<'static, u32, Table<16>>,
}

impl Crc32c {
    /// A new computation.
    #[must_use]
    pub fn new() -> Self {
        Self {
            digest: CASTAGNOLI.digest(),
        }
    }

    /// Adds `bytes`.
    pub fn update(&mut self, bytes: &[u8]) {
        self.digest.update(bytes);
    }

    /// The CRC of everything added.
    #[must_use]
    pub fn finish(self) -> u32 {
        self.digest.finalize()
    }
}

impl Default for Crc32c {
    fn default() -> Self {
        Self::new()
    }
}

impl core::fmt::Debug for Crc32c {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str("Crc32c")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn known_values() {
        assert_eq!(crc32c(b"123456789"), 0xe306_9283);
        assert_eq!(crc32c(b"Some String"), 608_512_271);
        assert_eq!(crc32(b"123456789"), 0xcbf4_3926);
        assert_eq!(crc32c(b""), 0);
    }

    #[test]
    fn pieces_equal_whole() {
        let data: [u8; 100] = core::array::from_fn(|i| i as u8);
        for split in [0, 1, 17, 64, 99, 100] {
            let mut c = Crc32c::new();
            c.update(&data[..split]);
            c.update(&data[split..]);
            assert_eq!(c.finish(), crc32c(&data));
        }
    }
}
