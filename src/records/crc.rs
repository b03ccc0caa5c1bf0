//! The two checksums of Kafka's record formats.
//!
//! * [`crc32c()`]: CRC-32C (Castagnoli, reflected polynomial `0x82F63B78`), stored in every v2
//!   record batch over the bytes from the attributes (offset 21) to the end of the batch.
//! * [`crc32`]: CRC-32 (IEEE 802.3, the zlib checksum), stored in every legacy message (magic 0
//!   and 1) over the bytes from the magic byte to the end of the message.
//!
//! Both are table-driven in safe portable code, with no panic path: the same result on every
//! target, no runtime feature detection. With the `perf` feature (on by default) they take
//! sixteen bytes a step through 16 KiB of tables each; without it, a byte a step through one
//! 1 KiB table. With the `crc-hw` feature (which needs `std`), CRC-32C uses the processor's
//! CRC-32C instruction when it has one (SSE 4.2 on x86-64, the CRC extension on AArch64,
//! detected at run time, through the `crc32c` crate) and a table otherwise.
//!
//! A build compiled with SSE 4.2 enabled (`-C target-cpu=native`) still uses the table without
//! `crc-hw`: calling `_mm_crc32_u64` safely needs a `#[target_feature]` function, and a function
//! without the attribute can only call that one in `unsafe` code, whatever the build enables,
//! and this crate forbids `unsafe`.

/// Tables kept: sixteen with the `perf` feature (a 16-byte step), one without (a byte step).
const TABLES: usize = if cfg!(feature = "perf") { 16 } else { 1 };

/// The `N` tables of a reflected CRC-32 with the reflected polynomial `poly`: table 0 holds the
/// CRC of each byte value; table `k` the CRC of that byte followed by `k` zero bytes.
#[allow(
    clippy::indexing_slicing,
    clippy::as_conversions,
    clippy::arithmetic_side_effects,
    reason = "evaluated at compile time, where an index out of range or an overflow fails the build"
)]
const fn tables<const N: usize>(poly: u32) -> [[u32; 256]; N] {
    let mut t = [[0u32; 256]; N];
    let mut b = 0;
    while b < 256 {
        let mut crc = b as u32;
        let mut bit = 0;
        while bit < 8 {
            crc = if crc & 1 == 1 {
                (crc >> 1) ^ poly
            } else {
                crc >> 1
            };
            bit += 1;
        }
        t[0][b] = crc;
        b += 1;
    }
    let mut k = 1;
    while k < N {
        let mut b = 0;
        while b < 256 {
            let prev = t[k - 1][b];
            t[k][b] = (prev >> 8) ^ t[0][(prev & 0xff) as usize];
            b += 1;
        }
        k += 1;
    }
    t
}

/// The portable CRC-32C's tables; with `crc-hw`, only the tests use them, to check the
/// instruction against them.
#[cfg(any(test, not(feature = "crc-hw")))]
static CASTAGNOLI: [[u32; 256]; TABLES] = tables(0x82f6_3b78);
static IEEE: [[u32; 256]; TABLES] = tables(0xedb8_8320);

/// One table lookup; a `u8` index is always in range, so this compiles to a plain load.
#[inline(always)]
fn at(table: &[u32; 256], byte: u8) -> u32 {
    table.get(usize::from(byte)).copied().unwrap_or(0)
}

/// Advances the (inverted) CRC state `crc` over `bytes`: sixteen bytes a step when there are
/// sixteen tables, then a byte a step.
#[inline]
fn update<const N: usize>(mut crc: u32, t: &[[u32; 256]; N], bytes: &[u8]) -> u32 {
    let mut bytes = bytes;
    if let Some(sixteen) = t.first_chunk::<16>() {
        let [
            t0,
            t1,
            t2,
            t3,
            t4,
            t5,
            t6,
            t7,
            t8,
            t9,
            t10,
            t11,
            t12,
            t13,
            t14,
            t15,
        ] = sixteen;
        let (chunks, rest) = bytes.as_chunks::<16>();
        for &[
            b0,
            b1,
            b2,
            b3,
            b4,
            b5,
            b6,
            b7,
            b8,
            b9,
            b10,
            b11,
            b12,
            b13,
            b14,
            b15,
        ] in chunks
        {
            // The twelve lookups that do not depend on the running CRC first, so that only
            // the last four are on the chain from one step to the next.
            let ahead = at(t0, b15)
                ^ at(t1, b14)
                ^ at(t2, b13)
                ^ at(t3, b12)
                ^ at(t4, b11)
                ^ at(t5, b10)
                ^ at(t6, b9)
                ^ at(t7, b8)
                ^ at(t8, b7)
                ^ at(t9, b6)
                ^ at(t10, b5)
                ^ at(t11, b4);
            let [c0, c1, c2, c3] = (crc ^ u32::from_le_bytes([b0, b1, b2, b3])).to_le_bytes();
            crc = ahead ^ (at(t12, c3) ^ at(t13, c2) ^ at(t14, c1) ^ at(t15, c0));
        }
        bytes = rest;
    }
    let Some(t0) = t.first() else {
        return crc;
    };
    for &b in bytes {
        let [low, ..] = crc.to_le_bytes();
        crc = (crc >> 8) ^ at(t0, low ^ b);
    }
    crc
}

/// CRC-32C of `bytes`.
///
/// ```
/// assert_eq!(kwire::records::crc::crc32c(b"123456789"), 0xe306_9283);
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
        !update(!0, &CASTAGNOLI, bytes)
    }
}

/// CRC-32 (IEEE) of `bytes`.
///
/// ```
/// assert_eq!(kwire::records::crc::crc32(b"123456789"), 0xcbf4_3926);
/// ```
#[must_use]
pub fn crc32(bytes: &[u8]) -> u32 {
    !update(!0, &IEEE, bytes)
}

/// A CRC-32C computed over several pieces, for data that is not contiguous.
#[derive(Clone)]
pub struct Crc32c {
    /// The CRC of the bytes so far (with `crc-hw`), or its inverted running state (without).
    state: u32,
}

impl Crc32c {
    /// A new computation.
    #[must_use]
    pub fn new() -> Self {
        Self {
            state: if cfg!(feature = "crc-hw") { 0 } else { !0 },
        }
    }

    /// Adds `bytes`.
    pub fn update(&mut self, bytes: &[u8]) {
        #[cfg(not(feature = "crc-hw"))]
        {
            self.state = update(self.state, &CASTAGNOLI, bytes);
        }
        #[cfg(feature = "crc-hw")]
        {
            self.state = crc32c::crc32c_append(self.state, bytes);
        }
    }

    /// The CRC of everything added.
    #[must_use]
    pub fn finish(self) -> u32 {
        if cfg!(feature = "crc-hw") {
            self.state
        } else {
            !self.state
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

    /// A bitwise reflected CRC-32 with the reflected polynomial `poly`: the definition every
    /// fast path is checked against.
    fn bitwise(poly: u32, bytes: &[u8]) -> u32 {
        let mut crc = !0u32;
        for &b in bytes {
            crc ^= u32::from(b);
            for _ in 0..8 {
                crc = if crc & 1 == 1 {
                    (crc >> 1) ^ poly
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
                let expected = bitwise(0x82f6_3b78, bytes);
                assert_eq!(crc32c(bytes), expected, "start {start} len {len}");
                let mut c = Crc32c::new();
                c.update(&bytes[..len / 3]);
                c.update(&bytes[len / 3..]);
                assert_eq!(c.finish(), expected, "pieces, start {start} len {len}");
            }
        }
    }

    /// CRC-32 (IEEE), the legacy message sets' checksum, the same way.
    #[test]
    fn ieee_every_length_and_alignment() {
        let data: [u8; 320] = core::array::from_fn(|i| (i as u8).wrapping_mul(151) ^ 0xa5);
        for start in 0..16 {
            for len in 0..300 {
                let bytes = &data[start..start + len];
                assert_eq!(
                    crc32(bytes),
                    bitwise(0xedb8_8320, bytes),
                    "start {start} len {len}"
                );
            }
        }
    }

    /// The two table paths (the `perf` build's sixteen-byte step and the plain build's byte
    /// step), whichever of them this build uses, and with `crc-hw` the instruction, agree with
    /// each other, for both polynomials, over every length to 300 at every alignment to 16.
    #[test]
    fn every_path_agrees() {
        static C1: [[u32; 256]; 1] = tables(0x82f6_3b78);
        static C16: [[u32; 256]; 16] = tables(0x82f6_3b78);
        static I1: [[u32; 256]; 1] = tables(0xedb8_8320);
        static I16: [[u32; 256]; 16] = tables(0xedb8_8320);
        let data: [u8; 320] = core::array::from_fn(|i| (i as u8).wrapping_mul(73) ^ 0x3c);
        for start in 0..16 {
            for len in 0..300 {
                let bytes = &data[start..start + len];
                let byte_step = !update(!0, &C1, bytes);
                assert_eq!(
                    !update(!0, &C16, bytes),
                    byte_step,
                    "start {start} len {len}"
                );
                assert_eq!(!update(!0, &CASTAGNOLI, bytes), byte_step);
                assert_eq!(crc32c(bytes), byte_step, "start {start} len {len}");
                let ieee = !update(!0, &I1, bytes);
                assert_eq!(!update(!0, &I16, bytes), ieee, "start {start} len {len}");
                assert_eq!(crc32(bytes), ieee);
            }
        }
    }

    /// With `crc-hw`, on a processor the run says has the CRC-32C instruction (the
    /// `KWIRE_EXPECT_CRC_INSTRUCTION` variable, which CI sets for its x86-64 machines and for
    /// AArch64 under `qemu-aarch64 -cpu max`): the detection the `crc32c` crate makes finds it, so
    /// the tests above checked the instruction's results, not the crate's table.
    #[cfg(feature = "crc-hw")]
    #[test]
    fn the_instruction_is_used_where_expected() {
        extern crate std;
        if std::env::var_os("KWIRE_EXPECT_CRC_INSTRUCTION").is_none() {
            return;
        }
        #[cfg(target_arch = "x86_64")]
        assert!(std::arch::is_x86_feature_detected!("sse4.2"));
        #[cfg(target_arch = "aarch64")]
        assert!(std::arch::is_aarch64_feature_detected!("crc"));
        #[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64")))]
        panic!("no CRC-32C instruction is used on this architecture");
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
