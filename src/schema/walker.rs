//! A generic walker over the schema tables: validation, minimal instances and seeded random
//! instances of any message at any version.
//!
//! The walker reads [`MessageSchema`] descriptions only; it shares no code with the generated
//! encoders and decoders in [`crate::messages`] (it uses nothing but the primitive [`Reader`] and
//! [`Writer`]), so it is a second, independent implementation of the wire format against which
//! the typed code is checked.
//!
//! # Wire rules it applies
//!
//! * A field is present at version `v` when `v` is in its `versions` (walking from the top level
//!   guarantees the enclosing struct is present). It is sent in the tagged section when `v` is also
//!   in its `tagged_versions`, positionally otherwise.
//! * The message's flexible versions decide compact lengths and the tagged-field section that ends
//!   every struct (top level, nested, array elements). A field-level flexible override decides the
//!   length encoding of that field alone.
//! * A nullable positional struct carries an `int8` marker (`-1` null, `1` present; any negative
//!   value reads as null). A nullable tagged struct carries an unsigned varint marker inside its
//!   payload (`0` null, anything else present).
//! * A tagged section is a count, then `tag, size, payload` entries in strictly increasing tag
//!   order. A tag the struct defines must be tagged at the version being read and its value must
//!   use exactly `size` bytes; other tags are unknown and skipped.
//! * A `records` field is bytes on the wire.
//!
//! Validation errors name the schema path of the struct being read (the walker has no per-field
//! static paths).
//!
//! The walker recurses over the static schema only: its depth is bounded by the deepest struct
//! nesting of the tables, never by the input.

use super::{DefaultValue, FieldSchema, FieldType, MessageSchema, Primitive, StructSchema};
use crate::api::ApiKey;
use crate::codec::{Reader, Writer};
use crate::error::{DecodeError, DecodeErrorKind, EncodeError};

/// Length of the record batch written for a `records` field (a v2 batch header with no records).
const BATCH_LEN: usize = 61;

/// The value of the batch length field of such a batch (bytes after the length field).
const BATCH_LENGTH_FIELD: i32 = 49;

/// First byte covered by a v2 batch CRC.
const CRC_START: usize = 21;

/// The version and flexibility a body is walked at.
#[derive(Debug, Clone, Copy)]
struct Ctx {
    version: i16,
    flexible: bool,
}

impl Ctx {
    /// Whether the length prefixes of `f` use the compact encoding.
    fn compact(self, f: &FieldSchema) -> bool {
        f.flexible_versions
            .map_or(self.flexible, |r| r.contains(self.version))
    }
}

// ---------------------------------------------------------------------------------------------
// Validation
// ---------------------------------------------------------------------------------------------

/// Validates one body of `schema` at `version` from the start of `bytes`; returns the bytes
/// consumed.
///
/// The checks are those of the typed decoders: lengths and counts against the input, strings
/// of at most 32767 bytes of valid UTF-8, nulls only where the field is nullable at `version`,
/// tags strictly increasing, a defined tag only at versions where its field is tagged, and a
/// known tagged value using exactly its declared size. Bytes after the body are not looked at.
///
/// # Errors
///
/// `UnsupportedVersion` (with the schema's API key) for a version outside the schema's valid
/// versions, and otherwise the first violation found, with its absolute offset in `bytes`:
/// `Truncated`, `VarintTooLong`, `NegativeLength`, `UnexpectedNull`, `LengthTooLarge`,
/// `InvalidUtf8`, `TagOutOfOrder`, `TagNotInVersion`, `TaggedSizeMismatch`.
pub fn validate(schema: &MessageSchema, version: i16, bytes: &[u8]) -> Result<usize, DecodeError> {
    let mut r = Reader::new(bytes);
    if !schema.valid_versions.contains(version) {
        return Err(DecodeError::new(
            r.offset(),
            DecodeErrorKind::UnsupportedVersion {
                api_key: ApiKey(schema.api_key),
                version,
            },
            schema.name,
        ));
    }
    let ctx = Ctx {
        version,
        flexible: schema.is_flexible(version),
    };
    check_struct(schema.root, ctx, &mut r)?;
    Ok(r.offset())
}

/// Validates one struct: its positional fields in order, then (flexible versions) its tagged
/// section.
fn check_struct(s: &StructSchema, ctx: Ctx, r: &mut Reader<'_>) -> Result<(), DecodeError> {
    for f in s.fields {
        if f.is_positional(ctx.version) {
            check_value(f, s.path, ctx, false, r)?;
        }
    }
    if ctx.flexible {
        check_tagged_section(s, ctx, r)?;
    }
    Ok(())
}

/// Validates the value of field `f` of a struct at `path` (positionally, or as the payload of its
/// tagged entry).
fn check_value(
    f: &FieldSchema,
    path: &'static str,
    ctx: Ctx,
    tagged: bool,
    r: &mut Reader<'_>,
) -> Result<(), DecodeError> {
    let compact = ctx.compact(f);
    let nullable = f.is_nullable(ctx.version);
    match f.ty {
        FieldType::Primitive(p) => check_primitive(p, compact, nullable, path, r),
        FieldType::Struct(s) => {
            if nullable {
                let present = if tagged {
                    r.decode_with(|r| r.uvarint(path))? != 0
                } else {
                    r.decode_with(|r| r.struct_marker(path))?
                };
                if !present {
                    return Ok(());
                }
            }
            check_struct(s, ctx, r)
        }
        FieldType::Array(p) => {
            let Some(count) = check_count(compact, nullable, path, r)? else {
                return Ok(());
            };
            for _ in 0..count {
                check_primitive(p, compact, false, path, r)?;
            }
            Ok(())
        }
        FieldType::StructArray(s) => {
            let Some(count) = check_count(compact, nullable, path, r)? else {
                return Ok(());
            };
            for _ in 0..count {
                check_struct(s, ctx, r)?;
            }
            Ok(())
        }
    }
}

/// Reads an array count; `None` for a null array.
fn check_count(
    compact: bool,
    nullable: bool,
    path: &'static str,
    r: &mut Reader<'_>,
) -> Result<Option<usize>, DecodeError> {
    if nullable {
        r.decode_with(|r| r.nullable_array_len(compact, path))
    } else {
        r.decode_with(|r| r.array_len(compact, path)).map(Some)
    }
}

/// Validates one primitive value.
fn check_primitive(
    p: Primitive,
    compact: bool,
    nullable: bool,
    path: &'static str,
    r: &mut Reader<'_>,
) -> Result<(), DecodeError> {
    r.decode_with(|r| {
        if let Some(width) = p.width() {
            return r.take(width, path).map(drop);
        }
        match (p, nullable) {
            (Primitive::String, true) => r.nullable_string(compact, path).map(drop),
            (Primitive::String, false) => r.string(compact, path).map(drop),
            (_, true) => r.nullable_bytes(compact, path).map(drop),
            (_, false) => r.bytes(compact, path).map(drop),
        }
    })
}

/// Validates the tagged-field section of struct `s`.
fn check_tagged_section(s: &StructSchema, ctx: Ctx, r: &mut Reader<'_>) -> Result<(), DecodeError> {
    let path = s.path;
    let count = r.decode_with(|r| r.uvarint(path))?;
    // Every entry takes at least two bytes (its tag and its size).
    let min = usize::try_from(count)
        .unwrap_or(usize::MAX)
        .saturating_mul(2);
    if min > r.remaining() {
        return Err(DecodeError::new(
            r.offset(),
            DecodeErrorKind::Truncated {
                needed: min.saturating_sub(r.remaining()),
            },
            path,
        ));
    }
    let mut previous: Option<u32> = None;
    for _ in 0..count {
        let at = r.offset();
        let tag = r.decode_with(|r| r.uvarint(path))?;
        if let Some(previous) = previous
            && tag <= previous
        {
            return Err(DecodeError::new(
                at,
                DecodeErrorKind::TagOutOfOrder { tag, previous },
                path,
            ));
        }
        previous = Some(tag);
        let declared = r.decode_with(|r| r.uvarint(path))?;
        let mut payload =
            r.decode_with(|r| r.sub(usize::try_from(declared).unwrap_or(usize::MAX), path))?;
        let Some(f) = s.fields.iter().find(|f| f.tag == Some(tag)) else {
            // Unknown: kept as raw bytes by a decoder, nothing to check.
            continue;
        };
        if !f.is_tagged(ctx.version) {
            return Err(DecodeError::new(
                at,
                DecodeErrorKind::TagNotInVersion {
                    tag,
                    version: ctx.version,
                },
                path,
            ));
        }
        // A value that runs past its payload disagrees with the declared size as much as one that
        // stops short of it.
        check_value(f, path, ctx, true, &mut payload).map_err(|e| match e.kind {
            DecodeErrorKind::Truncated { needed } => DecodeError::new(
                e.offset,
                DecodeErrorKind::TaggedSizeMismatch {
                    tag,
                    declared,
                    consumed: usize::try_from(declared)
                        .unwrap_or(usize::MAX)
                        .saturating_add(needed),
                },
                path,
            ),
            _ => e,
        })?;
        if !payload.is_empty() {
            let consumed = usize::try_from(declared)
                .unwrap_or(usize::MAX)
                .saturating_sub(payload.remaining());
            return Err(DecodeError::new(
                payload.offset(),
                DecodeErrorKind::TaggedSizeMismatch {
                    tag,
                    declared,
                    consumed,
                },
                path,
            ));
        }
    }
    Ok(())
}

// ---------------------------------------------------------------------------------------------
// Writing instances
// ---------------------------------------------------------------------------------------------

/// Writes the smallest legal instance of `schema` at `version` at the start of `out` and returns
/// the bytes written.
///
/// Every positional field holds its zero value: numbers 0, `false`, the zero UUID, empty strings
/// and bytes (also when nullable), arrays of exactly one (minimal) element, nullable structs
/// present, and a `records` field holding one 61-byte v2 record batch without records whose
/// header is zero except the batch length (49), the magic byte (2) and the CRC-32C. No tagged
/// field is written.
///
/// # Errors
///
/// `UnsupportedVersion` for a version outside the schema's valid versions; `BufferTooSmall`
/// (with the size needed) when `out` is too short, in which case nothing is written.
pub fn write_minimal(
    schema: &MessageSchema,
    version: i16,
    out: &mut [u8],
) -> Result<usize, EncodeError> {
    emit(schema, version, Gen::minimal(), out)
}

/// Writes a pseudo-random legal instance of `schema` at `version`, determined by `seed`, at the
/// start of `out` and returns the bytes written.
///
/// Arrays hold zero to three elements (fewer in deeply nested arrays), nullable values are null
/// or present, numbers, UUIDs, strings (valid UTF-8, at most 8 bytes) and bytes (at most 8) are
/// random, `records` fields hold zero to two 61-byte record batches without records (valid
/// CRC-32C). In flexible versions each tagged field is set or not (a set field always differs
/// from its default, so a typed re-encode keeps it), and a struct sometimes carries unknown
/// tagged fields after its known ones. The instance is canonical: minimal varints, `-1`/`0`
/// nulls, booleans 0 or 1, so it re-encodes to identical bytes.
///
/// # Errors
///
/// `UnsupportedVersion` for a version outside the schema's valid versions; `BufferTooSmall`
/// (with the size needed) when `out` is too short, in which case nothing is written.
pub fn write_random(
    schema: &MessageSchema,
    version: i16,
    seed: u64,
    out: &mut [u8],
) -> Result<usize, EncodeError> {
    emit(schema, version, Gen::random(seed), out)
}

/// Sizes an instance with a counting pass, checks the buffer, then writes it with the same
/// generator state.
fn emit(
    schema: &MessageSchema,
    version: i16,
    g: Gen,
    out: &mut [u8],
) -> Result<usize, EncodeError> {
    if !schema.valid_versions.contains(version) {
        return Err(EncodeError::UnsupportedVersion {
            api_key: ApiKey(schema.api_key),
            version,
        });
    }
    let ctx = Ctx {
        version,
        flexible: schema.is_flexible(version),
    };
    let required = {
        let mut counter = Writer::new(&mut []);
        let mut dry = g;
        write_struct(schema.root, ctx, false, &mut dry, &mut counter);
        counter.position()
    };
    let mut w = Writer::new(out);
    w.check_capacity(required)?;
    let mut g = g;
    write_struct(schema.root, ctx, false, &mut g, &mut w);
    Ok(w.position())
}

/// The source of values: all-zero (minimal) or a seeded generator.
#[derive(Debug, Clone, Copy)]
struct Gen {
    state: u64,
    random: bool,
    /// Nesting depth of struct arrays, to bound sizes.
    depth: u8,
}

impl Gen {
    const fn minimal() -> Self {
        Self {
            state: 0,
            random: false,
            depth: 0,
        }
    }

    const fn random(seed: u64) -> Self {
        Self {
            state: seed,
            random: true,
            depth: 0,
        }
    }

    /// SplitMix64.
    fn next(&mut self) -> u64 {
        self.state = self.state.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.state;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// A value in `0..n` (0 when `n` is 0).
    fn below(&mut self, n: u64) -> u64 {
        self.next().checked_rem(n).unwrap_or(0)
    }

    /// A `usize` in `0..n`.
    fn below_usize(&mut self, n: usize) -> usize {
        let n = u64::try_from(n).unwrap_or(u64::MAX);
        usize::try_from(self.below(n)).unwrap_or(0)
    }

    /// A random byte.
    fn byte(&mut self) -> u8 {
        u8::try_from(self.next() & 0xff).unwrap_or(0)
    }

    /// True with probability `1/n`.
    fn one_in(&mut self, n: u64) -> bool {
        self.below(n) == 0
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
            _ => self.next(),
        }
    }

    /// Most elements an array may get at the current depth.
    const fn max_elements(&self) -> usize {
        match self.depth {
            0 | 1 => 3,
            2 => 2,
            _ => 1,
        }
    }
}

/// The mask of bit `n` (0 past bit 63).
fn bit(n: u32) -> u64 {
    1u64.checked_shl(n).unwrap_or(0)
}

/// The low `N` bytes of `v`, in little-endian order.
fn low_bytes<const N: usize>(v: u64) -> [u8; N] {
    let mut out = [0u8; N];
    for (d, s) in out.iter_mut().zip(v.to_le_bytes()) {
        *d = s;
    }
    out
}

/// Writes struct `s`: its positional fields, then (flexible versions) its tagged section. With
/// `must_differ`, the struct is made to differ from a default-constructed one.
fn write_struct(s: &StructSchema, ctx: Ctx, must_differ: bool, g: &mut Gen, w: &mut Writer<'_>) {
    let mut pending = must_differ;
    for f in s.fields {
        if f.is_positional(ctx.version) {
            write_value(f, ctx, false, pending, g, w);
            pending = false;
        }
    }
    if ctx.flexible {
        write_tagged_section(s, ctx, pending, g, w);
    }
}

/// Writes the tagged section of `s`. With `must_have_one`, at least one entry is written.
fn write_tagged_section(
    s: &StructSchema,
    ctx: Ctx,
    must_have_one: bool,
    g: &mut Gen,
    w: &mut Writer<'_>,
) {
    // Tags are numbered from 0 per struct; `defined` is one past the highest.
    let defined = s
        .fields
        .iter()
        .filter_map(|f| f.tag)
        .map(|t| t.saturating_add(1))
        .max()
        .unwrap_or(0);
    if !g.random {
        w.uvarint(0);
        return;
    }
    // Which known tags to set (tags past 63 are never set).
    let mut set: u64 = 0;
    let mut first_available: Option<u32> = None;
    for tag in 0..defined.min(64) {
        let tagged_here = s
            .fields
            .iter()
            .any(|f| f.tag == Some(tag) && f.is_tagged(ctx.version));
        if !tagged_here {
            continue;
        }
        if first_available.is_none() {
            first_available = Some(tag);
        }
        if g.one_in(2) {
            set |= bit(tag);
        }
    }
    let mut unknown: u32 = if g.one_in(4) { 1 } else { 0 };
    if must_have_one && set == 0 && unknown == 0 {
        match first_available {
            Some(tag) => set |= bit(tag),
            None => unknown = 1,
        }
    }
    w.uvarint(set.count_ones().saturating_add(unknown));
    for tag in 0..defined.min(64) {
        if set & bit(tag) == 0 {
            continue;
        }
        let Some(f) = s.fields.iter().find(|f| f.tag == Some(tag)) else {
            continue;
        };
        let size = {
            let mut counter = Writer::new(&mut []);
            let mut dry = *g;
            write_value(f, ctx, true, true, &mut dry, &mut counter);
            counter.position()
        };
        w.uvarint(tag);
        w.uvarint(u32::try_from(size).unwrap_or(u32::MAX));
        write_value(f, ctx, true, true, g, w);
    }
    if unknown > 0 {
        let offset = u32::try_from(g.below(3)).unwrap_or(0);
        w.uvarint(defined.saturating_add(offset));
        let mut payload = [0u8; 4];
        let len = g.below_usize(payload.len().saturating_add(1));
        for b in &mut payload {
            *b = g.byte();
        }
        let data = payload.get(..len).unwrap_or_default();
        w.uvarint(u32::try_from(data.len()).unwrap_or(0));
        w.put(data);
    }
}

/// Writes the value of field `f`, positionally or as a tagged payload. With `must_differ`, the
/// value differs from the field's default.
fn write_value(
    f: &FieldSchema,
    ctx: Ctx,
    tagged: bool,
    must_differ: bool,
    g: &mut Gen,
    w: &mut Writer<'_>,
) {
    let compact = ctx.compact(f);
    let nullable = f.is_nullable(ctx.version);
    let default_null = f.default == DefaultValue::Null;
    if nullable && g.random {
        // Null differs from any non-null default; with a null default it never differs.
        let null = if must_differ {
            !default_null && g.one_in(4)
        } else {
            g.one_in(4)
        };
        if null {
            write_null(f, tagged, compact, w);
            return;
        }
    }
    // Any present value differs from a null default.
    let must_differ = must_differ && !(nullable && default_null);
    match f.ty {
        FieldType::Primitive(p) => write_primitive(p, f.default, compact, must_differ, g, w),
        FieldType::Struct(s) => {
            if nullable {
                if tagged {
                    w.uvarint(1);
                } else {
                    w.i8(1);
                }
            }
            write_struct(s, ctx, must_differ, g, w);
        }
        FieldType::Array(p) => {
            let n = element_count(must_differ, g);
            w.len(n, compact, false);
            for _ in 0..n {
                write_primitive(p, DefaultValue::Implicit, compact, false, g, w);
            }
        }
        FieldType::StructArray(s) => {
            let n = element_count(must_differ, g);
            w.len(n, compact, false);
            g.depth = g.depth.saturating_add(1);
            for _ in 0..n {
                write_struct(s, ctx, false, g, w);
            }
            g.depth = g.depth.saturating_sub(1);
        }
    }
}

/// How many elements an array gets: one when minimal, at least one with `must_differ`.
fn element_count(must_differ: bool, g: &mut Gen) -> usize {
    if !g.random {
        return 1;
    }
    let max = g.max_elements();
    if must_differ {
        g.below_usize(max).saturating_add(1)
    } else {
        g.below_usize(max.saturating_add(1))
    }
}

/// Writes the null encoding of field `f`.
fn write_null(f: &FieldSchema, tagged: bool, compact: bool, w: &mut Writer<'_>) {
    match f.ty {
        FieldType::Struct(_) => {
            if tagged {
                w.uvarint(0);
            } else {
                w.i8(-1);
            }
        }
        FieldType::Primitive(Primitive::String) => w.null_len(compact, true),
        _ => w.null_len(compact, false),
    }
}

/// The integer a field defaults to (0 when implicit).
const fn default_int(d: DefaultValue) -> i64 {
    match d {
        DefaultValue::Int(n) => n,
        _ => 0,
    }
}

/// Writes one primitive value; with `must_differ` it differs from `default`.
fn write_primitive(
    p: Primitive,
    default: DefaultValue,
    compact: bool,
    must_differ: bool,
    g: &mut Gen,
    w: &mut Writer<'_>,
) {
    let random = g.random;
    let d = default_int(default);
    match p {
        Primitive::Bool => {
            let default = matches!(default, DefaultValue::Bool(true));
            let v = if must_differ {
                !default
            } else {
                random && g.one_in(2)
            };
            w.bool(v);
        }
        Primitive::Int8 => {
            let mut v = if random {
                i8::from_le_bytes(low_bytes(g.int_pattern(8)))
            } else {
                0
            };
            if must_differ && i64::from(v) == d {
                v = v.wrapping_add(1);
            }
            w.i8(v);
        }
        Primitive::Int16 => {
            let mut v = if random {
                i16::from_le_bytes(low_bytes(g.int_pattern(16)))
            } else {
                0
            };
            if must_differ && i64::from(v) == d {
                v = v.wrapping_add(1);
            }
            w.i16(v);
        }
        Primitive::Uint16 => {
            let mut v = if random {
                u16::from_le_bytes(low_bytes(g.int_pattern(16)))
            } else {
                0
            };
            if must_differ && i64::from(v) == d {
                v = v.wrapping_add(1);
            }
            w.u16(v);
        }
        Primitive::Int32 => {
            let mut v = if random {
                i32::from_le_bytes(low_bytes(g.int_pattern(32)))
            } else {
                0
            };
            if must_differ && i64::from(v) == d {
                v = v.wrapping_add(1);
            }
            w.i32(v);
        }
        Primitive::Uint32 => {
            let mut v = if random {
                u32::from_le_bytes(low_bytes(g.int_pattern(32)))
            } else {
                0
            };
            if must_differ && i64::from(v) == d {
                v = v.wrapping_add(1);
            }
            w.u32(v);
        }
        Primitive::Int64 => {
            let mut v = if random {
                i64::from_le_bytes(low_bytes(g.int_pattern(64)))
            } else {
                0
            };
            if must_differ && v == d {
                v = v.wrapping_add(1);
            }
            w.i64(v);
        }
        Primitive::Float64 => {
            let default = match default {
                DefaultValue::Float(x) => x,
                DefaultValue::Int(n) => i32::try_from(n).map_or(0.0, f64::from),
                _ => 0.0,
            };
            let mut v = if random { random_float(g) } else { 0.0 };
            if must_differ && v == default {
                v = if default == 1.0 { 2.0 } else { 1.0 };
            }
            w.f64(v);
        }
        Primitive::Uuid => {
            let mut v = [0u8; 16];
            if random {
                for chunk in v.chunks_mut(8) {
                    for (d, s) in chunk.iter_mut().zip(g.next().to_le_bytes()) {
                        *d = s;
                    }
                }
            }
            if must_differ && v == [0u8; 16] {
                v = [1u8; 16];
            }
            w.put(&v);
        }
        Primitive::String => {
            let mut buf = [0u8; 8];
            let len = if random {
                random_string(g, &mut buf)
            } else {
                0
            };
            let mut s = buf.get(..len).unwrap_or_default();
            if must_differ {
                let default = match default {
                    DefaultValue::Str(d) => d.as_bytes(),
                    _ => b"",
                };
                if s == default {
                    s = if default == b"x" { b"y" } else { b"x" };
                }
            }
            w.len(s.len(), compact, true);
            w.put(s);
        }
        Primitive::Bytes => {
            let mut buf = [0u8; 8];
            let mut len = if random {
                g.below_usize(buf.len().saturating_add(1))
            } else {
                0
            };
            if must_differ && len == 0 {
                len = 1;
            }
            if random {
                for b in &mut buf {
                    *b = g.byte();
                }
            }
            let data = buf.get(..len).unwrap_or_default();
            w.len(data.len(), compact, false);
            w.put(data);
        }
        Primitive::Records => {
            let mut n: usize = if random { g.below_usize(3) } else { 1 };
            if must_differ && n == 0 {
                n = 1;
            }
            w.len(n.saturating_mul(BATCH_LEN), compact, false);
            for _ in 0..n {
                let header = if random {
                    BatchHeader::random(g)
                } else {
                    BatchHeader::ZERO
                };
                w.put(&header.encode());
            }
        }
    }
}

/// A finite float, biased towards simple values (never NaN, never negative zero).
fn random_float(g: &mut Gen) -> f64 {
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
    let pick = g.below_usize(SIMPLE.len().saturating_add(2));
    let v = SIMPLE
        .get(pick)
        .copied()
        .unwrap_or_else(|| f64::from_bits(g.next()));
    if v.is_nan() || v == 0.0 { 0.0 } else { v }
}

/// Fills `buf` with a random valid UTF-8 string and returns its length.
fn random_string(g: &mut Gen, buf: &mut [u8; 8]) -> usize {
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
    let target = g.below_usize(buf.len().saturating_add(1));
    let mut len = 0usize;
    while len < target {
        let piece = PIECES
            .get(g.below_usize(PIECES.len()))
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
    len
}

/// The header of a v2 record batch without records.
#[derive(Debug, Clone, Copy)]
struct BatchHeader {
    base_offset: i64,
    partition_leader_epoch: i32,
    attributes: i16,
    base_timestamp: i64,
    max_timestamp: i64,
    producer_id: i64,
    producer_epoch: i16,
    base_sequence: i32,
}

impl BatchHeader {
    /// All zero (the minimal instance's batch).
    const ZERO: Self = Self {
        base_offset: 0,
        partition_leader_epoch: 0,
        attributes: 0,
        base_timestamp: 0,
        max_timestamp: 0,
        producer_id: 0,
        producer_epoch: 0,
        base_sequence: 0,
    };

    fn random(g: &mut Gen) -> Self {
        let attributes = if g.one_in(2) { 0 } else { 0x10 };
        Self {
            base_offset: i64::from_le_bytes(low_bytes(g.below(1_000_000))),
            partition_leader_epoch: i32::from_le_bytes(low_bytes(g.int_pattern(32))),
            attributes,
            base_timestamp: -1,
            max_timestamp: -1,
            producer_id: i64::from_le_bytes(low_bytes(g.int_pattern(64))),
            producer_epoch: i16::from_le_bytes(low_bytes(g.int_pattern(16))),
            base_sequence: i32::from_le_bytes(low_bytes(g.int_pattern(32))),
        }
    }

    /// The 61 bytes of the batch, with its CRC-32C.
    fn encode(&self) -> [u8; BATCH_LEN] {
        let mut buf = [0u8; BATCH_LEN];
        {
            let mut w = Writer::new(&mut buf);
            w.i64(self.base_offset);
            w.i32(BATCH_LENGTH_FIELD);
            w.i32(self.partition_leader_epoch);
            w.i8(2);
            w.u32(0);
            w.i16(self.attributes);
            w.i32(0); // last offset delta
            w.i64(self.base_timestamp);
            w.i64(self.max_timestamp);
            w.i64(self.producer_id);
            w.i16(self.producer_epoch);
            w.i32(self.base_sequence);
            w.i32(0); // records count
        }
        let crc = crate::records::crc::crc32c(buf.get(CRC_START..).unwrap_or_default());
        if let Some(dst) = buf.get_mut(CRC_START.saturating_sub(4)..CRC_START) {
            dst.copy_from_slice(&crc.to_be_bytes());
        }
        buf
    }
}

#[cfg(test)]
mod tests {
    use std::vec;
    use std::vec::Vec;

    use super::*;
    use crate::schema::{MESSAGES, by_name};

    fn minimal(name: &str, version: i16) -> Vec<u8> {
        let schema = by_name(name).unwrap();
        let mut buf = vec![0u8; 1 << 16];
        let n = write_minimal(schema, version, &mut buf).unwrap();
        buf.truncate(n);
        buf
    }

    fn random(schema: &MessageSchema, version: i16, seed: u64) -> Vec<u8> {
        let required = match write_random(schema, version, seed, &mut []) {
            Ok(n) => n,
            Err(EncodeError::BufferTooSmall { required, .. }) => required,
            Err(e) => unreachable!("{e}"),
        };
        let mut buf = vec![0u8; required];
        assert_eq!(write_random(schema, version, seed, &mut buf), Ok(required));
        buf
    }

    fn versions(schema: &MessageSchema) -> impl Iterator<Item = i16> {
        let r = schema.valid_versions;
        (r.min..=r.max).filter(move |v| r.contains(*v))
    }

    #[test]
    fn renew_delegation_token_v2_minimal() {
        let bytes = minimal("RenewDelegationTokenRequest", 2);
        assert_eq!(bytes, [0x01, 0, 0, 0, 0, 0, 0, 0, 0, 0x00]);
        let schema = by_name("RenewDelegationTokenRequest").unwrap();
        assert_eq!(validate(schema, 2, &bytes), Ok(10));
    }

    #[test]
    fn update_features_v2_minimal() {
        let bytes = minimal("UpdateFeaturesRequest", 2);
        assert_eq!(bytes, [0, 0, 0, 0, 0x02, 0x01, 0, 0, 0, 0, 0, 0]);
    }

    #[test]
    fn request_header_client_id_stays_classic() {
        // v2: api key, api version, correlation id, client id "" with an int16 length, tags.
        assert_eq!(
            minimal("RequestHeader", 2),
            [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]
        );
        assert_eq!(minimal("RequestHeader", 1).len(), 10);
    }

    #[test]
    fn minimal_records_batch() {
        // ProduceRequest v3: transactional id (nullable, empty), acks, timeout, one topic with
        // one partition holding one batch.
        let bytes = minimal("ProduceRequest", 3);
        let batch = &bytes[bytes.len() - BATCH_LEN..];
        assert_eq!(
            &bytes[bytes.len() - BATCH_LEN - 4..bytes.len() - BATCH_LEN],
            &[0, 0, 0, 61]
        );
        assert_eq!(&batch[8..12], &[0, 0, 0, 49]);
        assert_eq!(batch[16], 2);
        let crc = crate::records::crc::crc32c(&batch[21..]);
        assert_eq!(&batch[17..21], &crc.to_be_bytes());
        assert!(
            batch
                .iter()
                .enumerate()
                .all(|(i, b)| matches!(i, 11 | 16..=20) || *b == 0)
        );
        assert_eq!(crate::records::crc::crc32c(b"123456789"), 0xe306_9283);
    }

    #[test]
    fn every_minimal_and_random_instance_validates() {
        for schema in MESSAGES {
            for v in versions(schema) {
                let bytes = minimal(schema.name, v);
                assert_eq!(
                    validate(schema, v, &bytes),
                    Ok(bytes.len()),
                    "{} v{v}",
                    schema.name
                );
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
    fn versions_outside_the_valid_range_are_refused() {
        let schema = by_name("FetchRequest").unwrap();
        let v = schema.valid_versions.max + 1;
        assert_eq!(
            validate(schema, v, &[0; 64]).unwrap_err().kind,
            DecodeErrorKind::UnsupportedVersion {
                api_key: ApiKey(1),
                version: v
            }
        );
        assert_eq!(
            write_minimal(schema, -1, &mut [0; 64]),
            Err(EncodeError::UnsupportedVersion {
                api_key: ApiKey(1),
                version: -1
            })
        );
    }

    #[test]
    fn short_buffers_are_refused_untouched() {
        let schema = by_name("UpdateFeaturesRequest").unwrap();
        let mut buf = [0xa5u8; 11];
        assert_eq!(
            write_minimal(schema, 2, &mut buf),
            Err(EncodeError::BufferTooSmall {
                required: 12,
                available: 11
            })
        );
        assert_eq!(buf, [0xa5; 11]);
    }

    #[test]
    fn tagged_section_rules() {
        // ApiVersionsRequest v3: two compact strings then the tagged section.
        let schema = by_name("ApiVersionsRequest").unwrap();
        let ok = [0x01, 0x01, 0x02, 0x05, 0x01, 0xaa, 0x07, 0x00];
        assert_eq!(validate(schema, 3, &ok), Ok(ok.len()));
        let out_of_order = [0x01, 0x01, 0x02, 0x07, 0x00, 0x05, 0x01, 0xaa];
        assert!(matches!(
            validate(schema, 3, &out_of_order).unwrap_err().kind,
            DecodeErrorKind::TagOutOfOrder {
                tag: 5,
                previous: 7
            }
        ));
        let duplicate = [0x01, 0x01, 0x02, 0x05, 0x00, 0x05, 0x00];
        assert!(matches!(
            validate(schema, 3, &duplicate).unwrap_err().kind,
            DecodeErrorKind::TagOutOfOrder {
                tag: 5,
                previous: 5
            }
        ));
        let bad_utf8 = [0x02, 0xff, 0x01, 0x00];
        assert_eq!(
            validate(schema, 3, &bad_utf8).unwrap_err().kind,
            DecodeErrorKind::InvalidUtf8
        );

        // FetchRequest v12: tag 1 (ReplicaState) is only tagged from v15.
        let fetch = by_name("FetchRequest").unwrap();
        let mut body = minimal("FetchRequest", 12);
        assert_eq!(body.pop(), Some(0));
        body.extend_from_slice(&[0x01, 0x01, 0x0d]);
        body.extend_from_slice(&[0xff; 13]);
        let err = validate(fetch, 12, &body).unwrap_err();
        assert_eq!(
            err.kind,
            DecodeErrorKind::TagNotInVersion {
                tag: 1,
                version: 12
            }
        );
        // At v15 the same entry is ReplicaState (int32, int64, empty tags): 13 bytes.
        let mut body = minimal("FetchRequest", 15);
        body.pop();
        body.extend_from_slice(&[0x01, 0x01, 0x0d]);
        body.extend_from_slice(&[0xff; 12]);
        body.push(0x00);
        assert_eq!(validate(fetch, 15, &body), Ok(body.len()));
        // A declared size one byte too long.
        let n = body.len();
        body[n - 14] = 0x0e;
        body.push(0x00);
        assert!(matches!(
            validate(fetch, 15, &body).unwrap_err().kind,
            DecodeErrorKind::TaggedSizeMismatch {
                tag: 1,
                declared: 14,
                consumed: 13
            }
        ));
    }

    #[test]
    fn nullability_follows_the_version() {
        // MetadataRequest: Topics nullable from v1.
        let schema = by_name("MetadataRequest").unwrap();
        let null_topics = [0xff, 0xff, 0xff, 0xff, 0x00];
        assert_eq!(validate(schema, 1, &null_topics[..4]), Ok(4));
        assert_eq!(
            validate(schema, 0, &null_topics).unwrap_err().kind,
            DecodeErrorKind::UnexpectedNull
        );
        // DescribeTopicPartitionsRequest: nullable positional struct with an int8 marker.
        let schema = by_name("DescribeTopicPartitionsRequest").unwrap();
        let body = [0x01, 0x00, 0x00, 0x00, 0x00, 0xff, 0x00];
        assert_eq!(validate(schema, 0, &body), Ok(body.len()));
    }

    #[test]
    fn random_instances_vary_and_carry_unknown_tags() {
        // RenewDelegationTokenRequest v2 defines no tags: hmac (compact bytes of at most 8),
        // int64, then the tagged section, whose entries are all unknown.
        let schema = by_name("RenewDelegationTokenRequest").unwrap();
        let mut sizes = std::collections::BTreeSet::new();
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
