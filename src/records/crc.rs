//! The two checksums of Kafka's record formats.
//!
//! * [`crc32c()`]: CRC-32C (Castagnoli, reflected polynomial `0x82F63B78`), stored in every v2
//!   record batch over the bytes from the attributes (offset 21) to the end of the batch.
//! * [`crc32`]: CRC-32 (IEEE 802.3, the zlib checksum), stored in every legacy message (magic 0
//!   and 1) over the bytes from the magic byte to the end of the message.
//!
//! Both are table-driven, sixteen bytes per step, in safe portable code: the same result on every
//! target, no runtime feature detection. With the `crc-hw` feature (which needs `std`), CRC-32C
//! uses the processor's CRC-32C instruction when it has one (SSE 4.2 on x86-64, the CRC
//! extension on AArch64, detected at run time, through the `crc32c` crate) and a table
//! otherwise.

#[cfg(not(feature = "crc-hw"))]
use crc::CRC_32_ISCSI;
use crc::{CRC_32_ISO_HDLC, Crc, Table};

#[cfg(not(feature = "crc-hw"))]
static CASTAGNOLI: Crc<u32, Table<16>> = Crc::<u32, Table<16>>::new(&CRC_32_ISCSI);
static IEEE: Crc<u32, Table<16>> = Crc::<u32, Table<16>>::new(&CRC_32_ISO_HDLC);

/// CRC-32C of `bytes`.
///
/// ```
/// assert_eq!(kafka_wire::records::crc::crc32c(b"123456789"), 0xe306_9283);
/// ```
#[must_use]
#[inline]
pub fn crc32c(bytes: &[u8]) -> u32 {
    #[cfg(feature = "crc-hw")]
    {
        crc32c::crc32c(bytes)
    }
    #[cfg(not(feature = "crc-hw"))]
    {
        CASTAGNOLI.checksum(bytes)
    }
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
    #[cfg(not(feature = "crc-hw"))]
    digest: crc::Digest<'static, u32, Table<16>>,
    #[cfg(feature = "crc-hw")]
    state: u32,
}

impl Crc32c {
    /// A new computation.
    #[must_use]
    pub fn new() -> Self {
        Self {
            #[cfg(not(feature = "crc-hw"))]
            digest: CASTAGNOLI.digest(),
            #[cfg(feature = "crc-hw")]
            state: 0,
        }
    }

    /// Adds `bytes`.
    pub fn update(&mut self, bytes: &[u8]) {
        #[cfg(not(feature = "crc-hw"))]
        self.digest.update(bytes);
        #[cfg(feature = "crc-hw")]
        {
            self.state = crc32c::crc32c_append(self.state, bytes);
        }
    }

    /// The CRC of everything added.
    #[must_use]
    pub fn finish(self) -> u32 {
        #[cfg(not(feature = "crc-hw"))]
        {
            self.digest.finalize()
        }
        #[cfg(feature = "crc-hw")]
        {
            self.state
        }
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
