//! Seeded pseudo-random instances of any message at any version, written by the schema walker
//! ([`kwire_schema::walker::write_instance`]) with a [`Random`] source.

use alloc::vec;
use alloc::vec::Vec;

use kwire::error::EncodeError;
use kwire_schema::walker::{self, EmptyBatch, Slot, Source, Spot, UNKNOWN_PAYLOAD_MAX};
use kwire_schema::{self as schemas, MessageSchema, Primitive, StructSchema};

/// Writes a pseudo-random legal instance of `schema` at `version`, determined by `seed`, at the
/// start of `out` and returns the bytes written.
///
/// Arrays hold zero to three elements (fewer in deeply nested structs), nullable values are
/// null or present, numbers (biased towards edge values), UUIDs, strings (valid UTF-8, at most
/// 8 bytes) and bytes (at most 8) are random, `records` fields hold zero to two 61-byte record
/// batches without records (valid CRC-32C). In flexible versions each tagged field is set or
/// not (the walker makes a set field differ from its default, so a typed re-encode keeps it),
/// and a struct sometimes carries an unknown tagged field after its known ones. The instance is
/// canonical: minimal varints, `-1`/`0` nulls, booleans 0 or 1, so it re-encodes to identical
/// bytes.
///
/// # Errors
///
/// As [`walker::write_instance`]: `UnsupportedVersion`, or `BufferTooSmall` with the size
/// needed, in which case nothing is written.
pub fn write_random(
    schema: &MessageSchema,
    version: i16,
    seed: u64,
    out: &mut [u8],
) -> Result<usize, EncodeError> {
    walker::write_instance(schema, version, Random::new(seed), out)
}

/// The instance [`write_random`] writes for `seed`, in a buffer of its own size.
///
/// # Errors
///
/// `UnsupportedVersion` for a version outside the schema's valid versions.
pub fn random_instance(
    schema: &MessageSchema,
    version: i16,
    seed: u64,
) -> Result<Vec<u8>, EncodeError> {
    let mut out = vec![0u8; walker::instance_len(schema, version, Random::new(seed))?];
    let n = write_random(schema, version, seed, &mut out)?;
    out.truncate(n);
    Ok(out)
}

/// [`random_instance`] of the schema named `name` (see [`kwire_schema::by_name`]): for a
/// build that holds its own copy of the schema tables, such as kwire's unit tests, and so names
/// a schema rather than passing it. `None` for an unknown name or version.
pub fn random_instance_named(name: &str, version: i16, seed: u64) -> Option<Vec<u8>> {
    let schema = schemas::by_name(name)?;
    random_instance(schema, version, seed).ok()
}

/// A [`Source`] of pseudo-random choices: SplitMix64 from a seed.
#[derive(Debug, Clone, Copy)]
pub struct Random {
    state: u64,
}

impl Random {
    /// The generator for `seed`.
    pub const fn new(seed: u64) -> Self {
        Self { state: seed }
    }

    /// The next 64 random bits (SplitMix64).
    pub fn next_u64(&mut self) -> u64 {
        self.state = self.state.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.state;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// A value in `0..n` (0 when `n` is 0).
    fn below(&mut self, n: u64) -> u64 {
        self.next_u64().checked_rem(n).unwrap_or(0)
    }

    /// A `usize` in `0..n`.
    fn below_usize(&mut self, n: usize) -> usize {
        let n = u64::try_from(n).unwrap_or(u64::MAX);
        usize::try_from(self.below(n)).unwrap_or(0)
    }

    /// True with probability `1/n`.
    fn one_in(&mut self, n: u64) -> bool {
        self.below(n) == 0
    }

    /// Fills `buf` with random bytes.
    fn fill(&mut self, buf: &mut [u8]) {
        for chunk in buf.chunks_mut(8) {
            for (d, s) in chunk.iter_mut().zip(self.next_u64().to_le_bytes()) {
                *d = s;
            }
        }
    }

    /// The bit pattern of an integer `bits` wide (in the low bits), biased towards edge values.
    fn int_pattern(&mut self, bits: u32) -> u64 {
        let sign = 1u64.checked_shl(bits.saturating_sub(1)).unwrap_or(0);
        match self.below(8) {
            0 => 0,
            1 => u64::MAX,
            2 => 1,
            3 => self.below(1000),
            4 => sign,
            5 => sign.wrapping_sub(1),
            _ => self.next_u64(),
        }
    }

    /// A finite float, biased towards simple values (never NaN, never negative zero).
    fn float(&mut self) -> f64 {
        const SIMPLE: [f64; 8] = [
            0.0,
            1.0,
            -1.5,
            0.25,
            1.0e10,
            -3.0e-5,
            f64::MAX,
            f64::MIN_POSITIVE,
        ];
        let pick = self.below_usize(SIMPLE.len().saturating_add(2));
        let v = SIMPLE
            .get(pick)
            .copied()
            .unwrap_or_else(|| f64::from_bits(self.next_u64()));
        if v.is_nan() || v == 0.0 { 0.0 } else { v }
    }

    /// A random valid UTF-8 string of at most `N` bytes, built in `buf`.
    fn string<'b, const N: usize>(&mut self, buf: &'b mut [u8; N]) -> &'b str {
        const PIECES: [&str; 10] = [
            "a",
            "b",
            "k",
            "Z",
            "0",
            "-",
            " ",
            "\u{e9}",
            "\u{20ac}",
            "\u{1d11e}",
        ];
        let target = self.below_usize(buf.len().saturating_add(1));
        let mut len = 0usize;
        while len < target {
            let piece = PIECES
                .get(self.below_usize(PIECES.len()))
                .copied()
                .unwrap_or("a")
                .as_bytes();
            let end = len.saturating_add(piece.len());
            let Some(dst) = buf.get_mut(len..end) else {
                break;
            };
            dst.copy_from_slice(piece);
            len = end;
        }
        core::str::from_utf8(buf.get(..len).unwrap_or_default()).unwrap_or_default()
    }

    /// The header of a batch without records.
    fn batch(&mut self) -> EmptyBatch {
        let mut low = |bits| self.int_pattern(bits).to_le_bytes();
        let partition_leader_epoch = i32::from_le_bytes(first(low(32)));
        let producer_id = i64::from_le_bytes(low(64));
        let producer_epoch = i16::from_le_bytes(first(low(16)));
        let base_sequence = i32::from_le_bytes(first(low(32)));
        EmptyBatch {
            base_offset: i64::try_from(self.below(1_000_000)).unwrap_or(0),
            partition_leader_epoch,
            // Transactional or not.
            attributes: if self.one_in(2) { 0 } else { 0x10 },
            base_timestamp: -1,
            max_timestamp: -1,
            producer_id,
            producer_epoch,
            base_sequence,
        }
    }
}

/// The first `N` of eight little-endian bytes.
fn first<const N: usize>(bytes: [u8; 8]) -> [u8; N] {
    let mut out = [0u8; N];
    for (d, s) in out.iter_mut().zip(bytes) {
        *d = s;
    }
    out
}

impl Source for Random {
    fn null(&mut self, _: Spot<'_>) -> bool {
        self.one_in(4)
    }

    /// Zero to three elements at the top, two one level down, one below that.
    fn elements(&mut self, at: Spot<'_>) -> usize {
        let max = match at.depth {
            0 | 1 => 3,
            2 => 2,
            _ => 1,
        };
        self.below_usize(max + 1)
    }

    fn set_tagged(&mut self, _: Spot<'_>) -> bool {
        self.one_in(2)
    }

    /// One time in four: a tag zero to two past the highest defined, with up to four bytes.
    fn unknown_tagged(
        &mut self,
        _: &StructSchema,
        _: i16,
        payload: &mut [u8; UNKNOWN_PAYLOAD_MAX],
    ) -> Option<(u32, usize)> {
        if !self.one_in(4) {
            return None;
        }
        let above = u32::try_from(self.below(3)).unwrap_or(0);
        let len = self.below_usize(payload.len() + 1);
        self.fill(payload);
        Some((above, len))
    }

    fn primitive(&mut self, _: Spot<'_>, p: Primitive, slot: &mut Slot<'_, '_>) {
        match p {
            Primitive::Bool => slot.bool(self.one_in(2)),
            Primitive::Int8 => slot.int(self.int_pattern(8)),
            Primitive::Int16 | Primitive::Uint16 => slot.int(self.int_pattern(16)),
            Primitive::Int32 | Primitive::Uint32 => slot.int(self.int_pattern(32)),
            Primitive::Int64 => slot.int(self.int_pattern(64)),
            Primitive::Float64 => slot.float(self.float()),
            Primitive::Uuid => {
                let mut v = [0u8; 16];
                self.fill(&mut v);
                slot.uuid(v);
            }
            Primitive::String => {
                let mut buf = [0u8; 8];
                slot.string(self.string(&mut buf));
            }
            Primitive::Bytes => {
                let mut buf = [0u8; 8];
                let len = self.below_usize(buf.len() + 1);
                self.fill(&mut buf);
                slot.bytes(buf.get(..len).unwrap_or_default());
            }
            Primitive::Records => {
                let n = self.below_usize(3);
                let batches = [self.batch(), self.batch()];
                slot.batches(batches.get(..n).unwrap_or_default());
            }
        }
    }
}

/// A [`Source`] of populated instances, for measuring: the [`Random`] choices, but `width`
/// elements in each top-level array, four in the arrays of their elements and two deeper down,
/// strings (of the given kind) and bytes of 8 to 32 bytes, few nulls, and no unknown tagged
/// fields.
#[derive(Debug, Clone, Copy)]
pub struct Populated {
    random: Random,
    width: usize,
    strings: Strings,
}

/// The characters of a [`Populated`] instance's strings.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Strings {
    /// ASCII letters, digits, `.`, `_` and `-`: the characters of topic names, as Kafka allows
    /// them, and of the ids clients usually choose.
    Names,
    /// [`Random`]'s mix, in which most strings hold a character of two, three or four bytes.
    Mixed,
}

impl Populated {
    /// The source for `seed` with `width` elements in each top-level array.
    pub const fn new(seed: u64, width: usize, strings: Strings) -> Self {
        Self {
            random: Random::new(seed),
            width,
            strings,
        }
    }
}

impl Source for Populated {
    fn null(&mut self, _: Spot<'_>) -> bool {
        self.random.one_in(16)
    }

    fn elements(&mut self, at: Spot<'_>) -> usize {
        match at.depth {
            0 => self.width,
            1 => 4,
            _ => 2,
        }
    }

    fn set_tagged(&mut self, _: Spot<'_>) -> bool {
        self.random.one_in(2)
    }

    fn unknown_tagged(
        &mut self,
        _: &StructSchema,
        _: i16,
        _: &mut [u8; UNKNOWN_PAYLOAD_MAX],
    ) -> Option<(u32, usize)> {
        None
    }

    fn primitive(&mut self, at: Spot<'_>, p: Primitive, slot: &mut Slot<'_, '_>) {
        match p {
            Primitive::String if self.strings == Strings::Names => {
                const NAME: &[u8; 40] = b"abcdefghijklmnopqrstuvwxyz0123456789._-Z";
                let mut buf = [0u8; 32];
                let len = 8 + self.random.below_usize(buf.len() - 7);
                for b in buf.iter_mut().take(len) {
                    *b = NAME
                        .get(self.random.below_usize(NAME.len()))
                        .copied()
                        .unwrap_or(b'a');
                }
                slot.string(core::str::from_utf8(buf.get(..len).unwrap_or_default()).unwrap_or(""));
            }
            Primitive::String => {
                let mut buf = [0u8; 32];
                let s = loop {
                    let s = self.random.string(&mut buf);
                    if s.len() >= 8 {
                        break s.len();
                    }
                };
                slot.string(core::str::from_utf8(buf.get(..s).unwrap_or_default()).unwrap_or(""));
            }
            Primitive::Bytes => {
                let mut buf = [0u8; 32];
                let len = 8 + self.random.below_usize(buf.len() - 7);
                self.random.fill(&mut buf);
                slot.bytes(buf.get(..len).unwrap_or_default());
            }
            _ => self.random.primitive(at, p, slot),
        }
    }
}

/// A populated instance of `schema` at `version` (see [`Populated`]) of about `target` bytes:
/// the width of its top-level arrays is the one whose instance comes nearest to `target` from
/// below, up to 65 536 elements (a message without arrays stays as small as it is).
///
/// # Errors
///
/// `UnsupportedVersion` for a version outside the schema's valid versions.
pub fn populated_instance(
    schema: &MessageSchema,
    version: i16,
    seed: u64,
    target: usize,
    strings: Strings,
) -> Result<Vec<u8>, EncodeError> {
    let len = |width| walker::instance_len(schema, version, Populated::new(seed, width, strings));
    // The largest width whose instance is at most `target` bytes: double, then bisect.
    let (mut low, mut high) = (1usize, 2usize);
    while high <= 1 << 16 && len(high)? <= target {
        low = high;
        high *= 2;
    }
    while high - low > 1 {
        let mid = low + (high - low) / 2;
        if len(mid)? <= target {
            low = mid;
        } else {
            high = mid;
        }
    }
    let source = Populated::new(seed, low, strings);
    let mut out = vec![0u8; walker::instance_len(schema, version, source)?];
    let n = walker::write_instance(schema, version, source, &mut out)?;
    out.truncate(n);
    Ok(out)
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeSet;

    use kwire::error::DecodeErrorKind;
    use kwire_schema::walker::validate;
    use kwire_schema::{MESSAGES, by_name};

    use super::*;

    fn random(schema: &MessageSchema, version: i16, seed: u64) -> Vec<u8> {
        random_instance(schema, version, seed).expect("a valid version")
    }

    fn versions(schema: &MessageSchema) -> impl Iterator<Item = i16> {
        let r = schema.valid_versions;
        (r.min..=r.max).filter(move |v| r.contains(*v))
    }

    #[test]
    fn every_random_instance_validates_and_is_deterministic() {
        for schema in MESSAGES {
            for v in versions(schema) {
                for seed in 0..20 {
                    let bytes = random(schema, v, seed);
                    assert_eq!(
                        validate(schema, v, &bytes),
                        Ok(bytes.len()),
                        "{} v{v} seed {seed}",
                        schema.name
                    );
                    assert_eq!(bytes, random(schema, v, seed), "deterministic");
                }
            }
        }
    }

    #[test]
    fn truncation_is_always_an_error() {
        for schema in MESSAGES {
            for v in versions(schema) {
                for seed in 0..3 {
                    let bytes = random(schema, v, seed);
                    for cut in (0..bytes.len()).step_by(bytes.len() / 64 + 1) {
                        let err = validate(schema, v, &bytes[..cut]).unwrap_err();
                        assert!(
                            matches!(err.kind, DecodeErrorKind::Truncated { .. }),
                            "{} v{v} cut {cut}: {err}",
                            schema.name
                        );
                    }
                }
            }
        }
    }

    #[test]
    fn random_instances_vary_and_carry_unknown_tags() {
        // RenewDelegationTokenRequest v2 defines no tags: hmac (compact bytes of at most 8),
        // int64, then the tagged section, whose entries are all unknown.
        let schema = by_name("RenewDelegationTokenRequest").unwrap();
        let mut sizes = BTreeSet::new();
        let (mut with, mut without) = (0, 0);
        for seed in 0..64 {
            let bytes = random(schema, 2, seed);
            sizes.insert(bytes.len());
            let section = usize::from(bytes[0]) - 1 + 1 + 8;
            assert!(bytes[section] <= 1, "at most one unknown tag");
            if bytes[section] == 0 {
                without += 1;
            } else {
                with += 1;
                assert!(
                    bytes[section + 1] <= 2,
                    "tag past the defined ones by at most 2"
                );
            }
        }
        assert!(sizes.len() > 5);
        assert!(with > 5 && without > 5, "{with} {without}");
    }
}
