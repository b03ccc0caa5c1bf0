//! The schema walks, for callers: validation ([`validate`], the dissector's read walk visiting
//! nothing), and instances of any message at any version, the smallest legal one
//! ([`write_minimal`]) or one whose open choices (nulls, array lengths, tagged fields, values) a
//! [`Source`] of the caller's makes ([`write_instance`]).
//!
//! The walks read [`MessageSchema`] descriptions only; they share no code with the generated
//! encoders and decoders in [`kwire::messages`] but the codec's primitives (the reader, the
//! [`Writer`], and the reader of tagged sections, so that their rules are written once), so they
//! are a second implementation of the message layouts against which the typed code is checked.
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
use kwire::api::ApiKey;
use kwire::codec::{LengthPrefix, Writer};
use kwire::error::{DecodeError, EncodeError};
use kwire::records::crc::crc32c;
use kwire::records::{CRC_OFFSET, CRC_START, HEADER_LEN};

/// The version and flexibility a body is walked at.
#[derive(Debug, Clone, Copy)]
struct Ctx {
    version: i16,
    flexible: bool,
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
/// `TagOutOfOrder`, `TagNotInVersion`, `TaggedSizeMismatch`. A string need not be UTF-8, as for
/// the decoders.
pub fn validate(schema: &MessageSchema, version: i16, bytes: &[u8]) -> Result<usize, DecodeError> {
    super::read::check_body(schema, version, bytes)
}

// ---------------------------------------------------------------------------------------------
// Instances
// ---------------------------------------------------------------------------------------------

/// Where an instance writer stands when it asks its [`Source`] for a choice.
#[derive(Debug, Clone, Copy)]
pub struct Spot<'s> {
    /// The field being written; for an element of an array of primitives, the array's field.
    pub field: &'s FieldSchema,
    /// The version being written.
    pub version: i16,
    /// How many structs enclose the field's own struct: 0 for the message's top-level fields,
    /// 1 for the fields of an element of a top-level array, and so on.
    pub depth: u8,
}

/// The choices an instance of a schema leaves open, answered by the caller of
/// [`write_instance`]; the writer keeps every wire rule (encodings, length prefixes, null
/// markers, tagged sections in increasing tag order, record batches with their CRC).
///
/// The writer asks in the order of the bytes it writes. It sizes the instance with a clone of
/// the source before it writes with the source itself, and sizes each tagged value the same
/// way, so a source must give the same answers from the same state: a pure function of its
/// state, such as a seeded generator.
///
/// A set tagged field must differ from its default, or an encoder would leave it out and the
/// instance would not re-encode to the same bytes. The writer sees to that: it asks for no null
/// where null is the default, writes at least one element where empty is, and moves a value
/// equal to the default off it.
pub trait Source: Clone {
    /// Whether the nullable value at `at` is null (asked only where null is allowed).
    fn null(&mut self, at: Spot<'_>) -> bool;

    /// How many elements the array at `at` holds.
    fn elements(&mut self, at: Spot<'_>) -> usize;

    /// Whether the known tagged field at `at` is written (asked in tag order). By default none
    /// is.
    fn set_tagged(&mut self, at: Spot<'_>) -> bool {
        let _ = at;
        false
    }

    /// An unknown tagged field to write after the known ones of the struct `s` at `version`:
    /// `Some((above, len))` writes the tag `above` past the highest tag `s` defines, with the
    /// first `len` bytes of `payload` (at most its length); `None`, the default, writes none.
    fn unknown_tagged(
        &mut self,
        s: &StructSchema,
        version: i16,
        payload: &mut [u8; UNKNOWN_PAYLOAD_MAX],
    ) -> Option<(u32, usize)> {
        let _ = (s, version, payload);
        None
    }

    /// The value of the primitive `p` at `at`, written through `slot`. A slot left unwritten,
    /// or written with a value of another kind, holds the zero value of `p`.
    fn primitive(&mut self, at: Spot<'_>, p: Primitive, slot: &mut Slot<'_, '_>);
}

/// The most payload bytes [`Source::unknown_tagged`] can give.
pub const UNKNOWN_PAYLOAD_MAX: usize = 4;

/// The header of a v2 record batch that holds no records, as [`Slot::batches`] writes it: the
/// batch length (49), the magic byte (2), the CRC-32C, the last offset delta and the record
/// count (0) are the writer's.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct EmptyBatch {
    /// The offset of the batch.
    pub base_offset: i64,
    /// The partition leader epoch.
    pub partition_leader_epoch: i32,
    /// The attributes (compression, timestamp type, transactional and control bits).
    pub attributes: i16,
    /// The first timestamp.
    pub base_timestamp: i64,
    /// The largest timestamp.
    pub max_timestamp: i64,
    /// The producer id (-1 for none).
    pub producer_id: i64,
    /// The producer epoch.
    pub producer_epoch: i16,
    /// The first sequence number.
    pub base_sequence: i32,
}

impl EmptyBatch {
    /// The length of the batch on the wire: a v2 batch header and nothing after it.
    pub const LEN: usize = HEADER_LEN;

    /// The batch length field: the bytes after it (the header less the offset and the length).
    const BATCH_LENGTH: i32 = 49;

    /// The batch's bytes, with its CRC-32C.
    fn encode(&self) -> [u8; Self::LEN] {
        let mut buf = [0u8; Self::LEN];
        let mut w = Writer::new(&mut buf);
        w.i64(self.base_offset);
        w.i32(Self::BATCH_LENGTH);
        w.i32(self.partition_leader_epoch);
        w.i8(2);
        w.u32(0); // the CRC, over what follows it, is filled in below
        w.i16(self.attributes);
        w.i32(0); // last offset delta
        w.i64(self.base_timestamp);
        w.i64(self.max_timestamp);
        w.i64(self.producer_id);
        w.i16(self.producer_epoch);
        w.i32(self.base_sequence);
        w.i32(0); // record count
        let crc = crc32c(buf.get(CRC_START..).unwrap_or_default());
        if let Some(at) = buf.get_mut(CRC_OFFSET..CRC_START) {
            at.copy_from_slice(&crc.to_be_bytes());
        }
        buf
    }
}

/// Where a [`Source`] writes one primitive value. Only the first value written counts.
pub struct Slot<'a, 'w> {
    p: Primitive,
    default: DefaultValue,
    compact: bool,
    must_differ: bool,
    written: bool,
    w: &'a mut Writer<'w>,
}

impl core::fmt::Debug for Slot<'_, '_> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Slot")
            .field("primitive", &self.p)
            .field("written", &self.written)
            .finish_non_exhaustive()
    }
}

impl Slot<'_, '_> {
    /// Takes the slot for a value that is of the slot's kind when `kind` holds. False when the
    /// slot is written already, or when the value is of another kind, whose place the zero value
    /// then takes.
    fn take(&mut self, kind: bool) -> bool {
        if self.written {
            return false;
        }
        if !kind {
            self.zero();
            return false;
        }
        self.written = true;
        true
    }

    /// Writes the zero value of the slot's primitive.
    fn zero(&mut self) {
        match self.p {
            Primitive::Bool => self.bool(false),
            Primitive::Float64 => self.float(0.0),
            Primitive::Uuid => self.uuid([0; 16]),
            Primitive::String => self.string(""),
            Primitive::Bytes => self.bytes(&[]),
            Primitive::Records => self.batches(&[]),
            _ => self.int(0),
        }
    }

    /// A boolean, for a `bool`.
    pub fn bool(&mut self, v: bool) {
        if !self.take(self.p == Primitive::Bool) {
            return;
        }
        let default = matches!(self.default, DefaultValue::Bool(true));
        self.w.bool(if self.must_differ { !default } else { v });
    }

    /// An integer, for any integer type: the low bits of `bits` as wide as the type.
    pub fn int(&mut self, bits: u64) {
        let integer = matches!(
            self.p,
            Primitive::Int8
                | Primitive::Int16
                | Primitive::Uint16
                | Primitive::Int32
                | Primitive::Uint32
                | Primitive::Int64
        );
        if !self.take(integer) {
            return;
        }
        let default = match self.default {
            DefaultValue::Int(n) => n,
            _ => 0,
        };
        // Moved off the default by one where the value must differ from it.
        macro_rules! put {
            ($t:ty, $write:ident) => {{
                let mut v = <$t>::from_le_bytes(low_bytes(bits));
                if self.must_differ && i64::from(v) == default {
                    v = v.wrapping_add(1);
                }
                self.w.$write(v);
            }};
        }
        match self.p {
            Primitive::Int8 => put!(i8, i8),
            Primitive::Int16 => put!(i16, i16),
            Primitive::Uint16 => put!(u16, u16),
            Primitive::Int32 => put!(i32, i32),
            Primitive::Uint32 => put!(u32, u32),
            _ => put!(i64, i64),
        }
    }

    /// A float, for a `float64` (NaN is written as 0.0, so that the instance equals itself).
    pub fn float(&mut self, v: f64) {
        if !self.take(self.p == Primitive::Float64) {
            return;
        }
        let default = match self.default {
            DefaultValue::Float(x) => x,
            DefaultValue::Int(n) => i32::try_from(n).map_or(0.0, f64::from),
            _ => 0.0,
        };
        let mut v = if v.is_nan() { 0.0 } else { v };
        if self.must_differ && v == default {
            v = if default == 1.0 { 2.0 } else { 1.0 };
        }
        self.w.f64(v);
    }

    /// A UUID's sixteen bytes, for a `uuid`.
    pub fn uuid(&mut self, v: [u8; 16]) {
        if !self.take(self.p == Primitive::Uuid) {
            return;
        }
        let v = if self.must_differ && v == [0; 16] {
            [1; 16]
        } else {
            v
        };
        self.w.put(&v);
    }

    /// A string, for a `string` (cut to the 32767 bytes the wire allows, at a character
    /// boundary).
    pub fn string(&mut self, s: &str) {
        if !self.take(self.p == Primitive::String) {
            return;
        }
        let mut end = s.len().min(usize::from(i16::MAX.unsigned_abs()));
        while !s.is_char_boundary(end) {
            end = end.saturating_sub(1);
        }
        let mut s = s.get(..end).unwrap_or_default();
        if self.must_differ {
            let default = match self.default {
                DefaultValue::Str(d) => d,
                _ => "",
            };
            if s == default {
                s = if default == "x" { "y" } else { "x" };
            }
        }
        self.w.len(s.len(), LengthPrefix::string(self.compact));
        self.w.put(s.as_bytes());
    }

    /// Bytes, for `bytes`.
    pub fn bytes(&mut self, data: &[u8]) {
        if !self.take(self.p == Primitive::Bytes) {
            return;
        }
        let data = if self.must_differ && data.is_empty() {
            &[0]
        } else {
            data
        };
        self.w.len(data.len(), LengthPrefix::bytes(self.compact));
        self.w.put(data);
    }

    /// Record batches without records, for `records`.
    pub fn batches(&mut self, batches: &[EmptyBatch]) {
        if !self.take(self.p == Primitive::Records) {
            return;
        }
        let one = [EmptyBatch::default()];
        let batches = if self.must_differ && batches.is_empty() {
            &one
        } else {
            batches
        };
        self.w.len(
            batches.len().saturating_mul(EmptyBatch::LEN),
            LengthPrefix::bytes(self.compact),
        );
        for b in batches {
            self.w.put(&b.encode());
        }
    }
}

/// The size of the instance of `schema` at `version` whose open choices `source` makes: what
/// [`write_instance`] writes with the same source, for sizing its output buffer.
///
/// # Errors
///
/// `UnsupportedVersion` for a version outside the schema's valid versions.
pub fn instance_len<S: Source>(
    schema: &MessageSchema,
    version: i16,
    mut source: S,
) -> Result<usize, EncodeError> {
    let ctx = instance_ctx(schema, version)?;
    let mut counter = Writer::new(&mut []);
    write_struct(schema.root, ctx, 0, false, &mut source, &mut counter);
    Ok(counter.position())
}

/// Writes an instance of `schema` at `version` whose open choices `source` makes, at the start
/// of `out`, and returns the bytes written.
///
/// # Errors
///
/// `UnsupportedVersion` for a version outside the schema's valid versions; `BufferTooSmall`
/// (with the size needed, which [`instance_len`] also gives) when `out` is too short, in which
/// case nothing is written.
pub fn write_instance<S: Source>(
    schema: &MessageSchema,
    version: i16,
    mut source: S,
    out: &mut [u8],
) -> Result<usize, EncodeError> {
    let ctx = instance_ctx(schema, version)?;
    let required = instance_len(schema, version, source.clone())?;
    let mut w = Writer::new(out);
    w.check_capacity(required)?;
    write_struct(schema.root, ctx, 0, false, &mut source, &mut w);
    Ok(w.position())
}

/// The walk context of an instance of `schema` at `version`, if the schema has that version.
fn instance_ctx(schema: &MessageSchema, version: i16) -> Result<Ctx, EncodeError> {
    if !schema.valid_versions.contains(version) {
        return Err(EncodeError::UnsupportedVersion {
            api_key: ApiKey(schema.api_key),
            version,
        });
    }
    Ok(Ctx {
        version,
        flexible: schema.is_flexible(version),
    })
}

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
/// As [`write_instance`].
pub fn write_minimal(
    schema: &MessageSchema,
    version: i16,
    out: &mut [u8],
) -> Result<usize, EncodeError> {
    write_instance(schema, version, Minimal, out)
}

/// The [`Source`] of the smallest legal instance, which [`write_minimal`] writes: no nulls,
/// one element per array, zero values, one empty record batch per `records` field and no
/// tagged fields. [`instance_len`] with it sizes that instance.
#[derive(Debug, Clone, Copy, Default)]
pub struct Minimal;

impl Source for Minimal {
    fn null(&mut self, _: Spot<'_>) -> bool {
        false
    }

    fn elements(&mut self, _: Spot<'_>) -> usize {
        1
    }

    fn primitive(&mut self, _: Spot<'_>, p: Primitive, slot: &mut Slot<'_, '_>) {
        if p == Primitive::Records {
            slot.batches(&[EmptyBatch::default()]);
        }
    }
}

/// The low `N` bytes of `v`, in little-endian order.
fn low_bytes<const N: usize>(v: u64) -> [u8; N] {
    let mut out = [0u8; N];
    for (d, s) in out.iter_mut().zip(v.to_le_bytes()) {
        *d = s;
    }
    out
}

/// Writes struct `s` (enclosed by `depth` structs): its positional fields, then (flexible
/// versions) its tagged section. With `must_differ`, the struct is made to differ from a
/// default-constructed one.
fn write_struct<S: Source>(
    s: &StructSchema,
    ctx: Ctx,
    depth: u8,
    must_differ: bool,
    src: &mut S,
    w: &mut Writer<'_>,
) {
    let mut pending = must_differ;
    for f in s.fields {
        if f.is_positional(ctx.version) {
            write_value(f, ctx, depth, false, pending, src, w);
            pending = false;
        }
    }
    if ctx.flexible {
        write_tagged_section(s, ctx, depth, pending, src, w);
    }
}

/// Writes the tagged section of `s`. With `must_have_one`, at least one entry is written.
fn write_tagged_section<S: Source>(
    s: &StructSchema,
    ctx: Ctx,
    depth: u8,
    must_have_one: bool,
    src: &mut S,
    w: &mut Writer<'_>,
) {
    // Tags past 63 are never set.
    let defined = s.tag_count();
    let mut set: u64 = 0;
    let mut first_available: Option<u32> = None;
    for tag in 0..defined.min(64) {
        let Some(field) = s
            .fields
            .iter()
            .find(|f| f.tag == Some(tag) && f.is_tagged(ctx.version))
        else {
            continue;
        };
        first_available.get_or_insert(tag);
        let at = Spot {
            field,
            version: ctx.version,
            depth,
        };
        if src.set_tagged(at) {
            set |= bit(tag);
        }
    }
    let mut payload = [0u8; UNKNOWN_PAYLOAD_MAX];
    let mut unknown = src
        .unknown_tagged(s, ctx.version, &mut payload)
        .map(|(above, len)| (defined.saturating_add(above), len.min(payload.len())));
    if must_have_one && set == 0 && unknown.is_none() {
        match first_available {
            Some(tag) => set |= bit(tag),
            None => unknown = Some((defined, 0)),
        }
    }
    w.uvarint(
        set.count_ones()
            .saturating_add(u32::from(unknown.is_some())),
    );
    for tag in 0..defined.min(64) {
        if set & bit(tag) == 0 {
            continue;
        }
        let Some(f) = s.fields.iter().find(|f| f.tag == Some(tag)) else {
            continue;
        };
        let size = {
            let mut counter = Writer::new(&mut []);
            write_value(f, ctx, depth, true, true, &mut src.clone(), &mut counter);
            counter.position()
        };
        w.uvarint(tag);
        w.uvarint(u32::try_from(size).unwrap_or(u32::MAX));
        write_value(f, ctx, depth, true, true, src, w);
    }
    if let Some((tag, len)) = unknown {
        let data = payload.get(..len).unwrap_or_default();
        w.uvarint(tag);
        w.uvarint(u32::try_from(data.len()).unwrap_or(0));
        w.put(data);
    }
}

/// The mask of bit `n` (0 past bit 63).
fn bit(n: u32) -> u64 {
    1u64.checked_shl(n).unwrap_or(0)
}

/// Writes the value of field `f`, positionally or as a tagged payload. With `must_differ`, the
/// value differs from the field's default.
fn write_value<S: Source>(
    f: &FieldSchema,
    ctx: Ctx,
    depth: u8,
    tagged: bool,
    must_differ: bool,
    src: &mut S,
    w: &mut Writer<'_>,
) {
    let compact = f.is_compact(ctx.version, ctx.flexible);
    let nullable = f.is_nullable(ctx.version);
    let default_null = f.default == DefaultValue::Null;
    let at = Spot {
        field: f,
        version: ctx.version,
        depth,
    };
    // Null differs from any non-null default; with a null default it never differs.
    if nullable && !(must_differ && default_null) && src.null(at) {
        write_null(f, tagged, compact, w);
        return;
    }
    // Any present value differs from a null default.
    let must_differ = must_differ && !(nullable && default_null);
    let inner = depth.saturating_add(1);
    match f.ty {
        FieldType::Primitive(p) => write_primitive(at, p, f.default, compact, must_differ, src, w),
        FieldType::Struct(s) => {
            if nullable {
                if tagged {
                    w.uvarint(1);
                } else {
                    w.i8(1);
                }
            }
            write_struct(s, ctx, inner, must_differ, src, w);
        }
        FieldType::Array(p) => {
            let n = element_count(at, must_differ, src);
            w.len(n, LengthPrefix::bytes(compact));
            for _ in 0..n {
                write_primitive(at, p, DefaultValue::Implicit, compact, false, src, w);
            }
        }
        FieldType::StructArray(s) => {
            let n = element_count(at, must_differ, src);
            w.len(n, LengthPrefix::bytes(compact));
            for _ in 0..n {
                write_struct(s, ctx, inner, false, src, w);
            }
        }
    }
}

/// How many elements the array at `at` gets: at least one with `must_differ`.
fn element_count<S: Source>(at: Spot<'_>, must_differ: bool, src: &mut S) -> usize {
    let n = src.elements(at);
    if must_differ { n.max(1) } else { n }
}

/// Writes one primitive value at `at` through the source; with `must_differ` it differs from
/// `default`.
fn write_primitive<S: Source>(
    at: Spot<'_>,
    p: Primitive,
    default: DefaultValue,
    compact: bool,
    must_differ: bool,
    src: &mut S,
    w: &mut Writer<'_>,
) {
    let mut slot = Slot {
        p,
        default,
        compact,
        must_differ,
        written: false,
        w,
    };
    src.primitive(at, p, &mut slot);
    if !slot.written {
        slot.zero();
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
        FieldType::Primitive(Primitive::String) => w.null_len(LengthPrefix::string(compact)),
        _ => w.null_len(LengthPrefix::bytes(compact)),
    }
}

#[cfg(test)]
mod tests {
    use std::vec;
    use std::vec::Vec;

    use super::*;
    use crate::{MESSAGES, by_name};
    use kwire::error::DecodeErrorKind;

    fn minimal(name: &str, version: i16) -> Vec<u8> {
        let schema = by_name(name).unwrap();
        let mut buf = vec![0u8; 1 << 16];
        let n = write_minimal(schema, version, &mut buf).unwrap();
        buf.truncate(n);
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
        let batch = &bytes[bytes.len() - EmptyBatch::LEN..];
        assert_eq!(
            &bytes[bytes.len() - EmptyBatch::LEN - 4..bytes.len() - EmptyBatch::LEN],
            &[0, 0, 0, 61]
        );
        assert_eq!(&batch[8..12], &[0, 0, 0, 49]);
        assert_eq!(batch[16], 2);
        let crc = kwire::records::crc::crc32c(&batch[21..]);
        assert_eq!(&batch[17..21], &crc.to_be_bytes());
        assert!(
            batch
                .iter()
                .enumerate()
                .all(|(i, b)| matches!(i, 11 | 16..=20) || *b == 0)
        );
        assert_eq!(kwire::records::crc::crc32c(b"123456789"), 0xe306_9283);
    }

    #[test]
    fn every_minimal_instance_validates_and_every_truncation_fails() {
        for schema in MESSAGES {
            for v in versions(schema) {
                let bytes = minimal(schema.name, v);
                assert_eq!(
                    validate(schema, v, &bytes),
                    Ok(bytes.len()),
                    "{} v{v}",
                    schema.name
                );
                for cut in 0..bytes.len() {
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
        // A string that is not UTF-8 is valid structure, as the decoders read it.
        let bad_utf8 = [0x02, 0xff, 0x01, 0x00];
        assert_eq!(validate(schema, 3, &bad_utf8), Ok(bad_utf8.len()));

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
}
