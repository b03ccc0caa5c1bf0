//! The two checksums of Kafka's record formats.
//!
//! * [`crc32c()`]: CRC-32C (Castagnoli, reflected polynomial `0x82F63B78`), stored in every v2
//!   record batch over the bytes from the attributes (offset 21) to the end of the batch.
//! * [`crc32`]: CRC-32 (IEEE 802.3, the zlib checksum), stored in every legacy message (magic 0
//!   and 1) over the bytes from the magic byte to the end of the message.
//!
//! Both are table-driven in safe portable code: the same result on every target, no runtime
//! feature detection. With the `perf` feature (on by default) they take sixteen bytes a step
//! through 16 KiB of tables each; without it, a byte a step through one 1 KiB table. With the `crc-hw` feature (which needs `std`), CRC-32C
//! uses the processor's CRC-32C instruction when it has one (SSE 4.2 on x86-64, the CRC
//! extension on AArch64, detected at run time, through the `crc32c` crate) and a table
//! otherwise.
//!
//! A build compiled with SSE 4.2 enabled (`-C target-cpu=native`) still uses the table without
//! `crc-hw`: calling `_mm_crc32_u64` safely needs a `#[target_feature]` function, and a function
//! without the attribute can only call that one in `unsafe` code, whatever the build enables,
//! and this crate forbids `unsafe`.

#[cfg(not(feature = "crc-hw"))]
use crc::CRC_32_ISCSI;
use crc::{CRC_32_ISO_HDLC, Crc, Table};

/// Sixteen 1 KiB tables, sixteen bytes a step, with the `perf` feature; one table and a byte a
/// step without it.
#[cfg(feature = "perf")]
type Tables = Table<16>;
#[cfg(not(feature = "perf"))]
type Tables = Table<1>;

#[cfg(not(feature = "crc-hw"))]
static CASTAGNOLI: Crc<u32, Tables> = Crc::<u32, Tables>::new(&CRC_32_ISCSI);
static IEEE: Crc<u32, Tables> = Crc::<u32, Tables>::new(&CRC_32_ISO_HDLC);

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
    digest: crc::Digest<'static, u32, Tables>,
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

    /// Bitwise CRC-32C, the definition every fast path is checked against.
    fn bitwise(bytes: &[u8]) -> u32 {
        let mut crc = !0u32;
        for &b in bytes {
            crc ^= u32::from(b);
            for _ in 0..8 {
                crc = if crc & 1 == 1 {
                    (crc >> 1) ^ 0x82f6_3b78
                } else {
                    crc >> 1
                };
            }
        }
        !crc
    }

    /// Whichever path this build uses (the table, or the instruction with `crc-hw`) against the
    /// bitwise definition, over every length to 300 at every start alignment to 16, whole and in
    /// two pieces.
    #[test]
    fn every_length_and_alignment() {
        let data: [u8; 320] = core::array::from_fn(|i| (i as u8).wrapping_mul(167) ^ 0x5a);
        for start in 0..16 {
            for len in 0..300 {
                let bytes = &data[start..start + len];
                let expected = bitwise(bytes);
                assert_eq!(crc32c(bytes), expected, "start {start} len {len}");
                let mut c = Crc32c::new();
                c.update(&bytes[..len / 3]);
                c.update(&bytes[len / 3..]);
                assert_eq!(c.finish(), expected, "pieces, start {start} len {len}");
            }
        }
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
