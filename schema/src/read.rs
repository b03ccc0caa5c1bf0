//! The read walk over the schema tables: a message body's bytes into the nodes of an object
//! tree, handed to a [`Visit`]or. Validation ([`super::walker::validate`]) walks without
//! visiting, and reads `records` fields as bytes; the dissector (`describe`, which adds the
//! frame and its header around a body) shows the nodes, with each composite node's size.

use super::enums;
use super::tree::{About, Category, DescribeError, LenNote, Name, Node, TypeWord, Value, Visit};
use crate::{FieldSchema, FieldType, MessageSchema, Primitive, StructSchema};
use kwire::api::ApiKey;
use kwire::codec::{Reader, TaggedEntry, TaggedSection};
use kwire::error::{DecodeError, DecodeErrorKind};
use kwire::records::{Batch, HEADER_LEN, LegacyMessage, RecordBatch, RecordBatchHeader, Records};

pub(crate) type R<T = ()> = Result<T, DescribeError>;

/// A field of the v2 batch header as it lies on the wire.
struct HeaderField {
    /// Its name as Kafka's documentation of the format writes it, such as `baseOffset`.
    name: &'static str,
    /// Its wire type, such as `int64`.
    wire_type: &'static str,
    /// Its offset in the batch.
    offset: usize,
    /// Its size in bytes.
    size: usize,
}

/// The size of the header field `field` reads.
const fn field_size<T>(_field: fn(&RecordBatchHeader) -> &T) -> usize {
    size_of::<T>()
}

macro_rules! header_field {
    ($name:literal, $wire:literal, $field:ident) => {
        HeaderField {
            name: $name,
            wire_type: $wire,
            offset: core::mem::offset_of!(RecordBatchHeader, $field),
            size: field_size(|h| &h.$field),
        }
    };
}

/// The fields of the v2 batch header in wire order, at the offsets of kwire's
/// [`RecordBatchHeader`].
const HEADER_FIELDS: [HeaderField; 13] = [
    header_field!("baseOffset", "int64", base_offset),
    header_field!("batchLength", "int32", batch_length),
    header_field!("partitionLeaderEpoch", "int32", partition_leader_epoch),
    header_field!("magic", "int8", magic),
    header_field!("crc", "uint32", crc),
    header_field!("attributes", "int16", attributes),
    header_field!("lastOffsetDelta", "int32", last_offset_delta),
    header_field!("baseTimestamp", "int64", base_timestamp),
    header_field!("maxTimestamp", "int64", max_timestamp),
    header_field!("producerId", "int64", producer_id),
    header_field!("producerEpoch", "int16", producer_epoch),
    header_field!("baseSequence", "int32", base_sequence),
    header_field!("recordsCount", "int32", records_count),
];

/// The fields tile the header: each starts where the one before ends, the last ends at
/// [`HEADER_LEN`].
#[allow(
    clippy::indexing_slicing,
    clippy::arithmetic_side_effects,
    reason = "evaluated at compile time: a fault is a build error"
)]
const _: () = {
    let mut end = 0;
    let mut i = 0;
    while i < HEADER_FIELDS.len() {
        assert!(HEADER_FIELDS[i].offset == end);
        end += HEADER_FIELDS[i].size;
        i += 1;
    }
    assert!(end == HEADER_LEN);
};

/// A visitor that ignores everything: the visitor of the walks that only measure or record.
pub(crate) struct Noop;

impl Visit for Noop {
    fn node(&mut self, _: &Node<'_>) -> core::fmt::Result {
        Ok(())
    }
}

/// How a walk learns a composite node's size, which its node carries but which is only known
/// once its children are walked.
pub(crate) enum Sizes<'s> {
    /// Composite nodes are not visited (a count, a measure, or a check that a body reads): no
    /// size is needed.
    Unneeded,
    /// Each composite node is measured by walking it once more before it is visited: no
    /// storage, at a cost of the input's size times its depth.
    #[cfg(not(feature = "alloc"))]
    Measure,
    /// Visits nothing and records each composite node's size, by its place in walk order.
    Record(&'s mut [Option<u32>]),
    /// Takes each composite node's size from a `Record` walk over the same input (measuring
    /// any the record has no room for).
    Replay(&'s [Option<u32>]),
}

/// Where a walk sends its nodes, and (with the dissector) how it sizes composite ones.
pub(crate) struct Out<'v> {
    v: &'v mut dyn Visit,
    sizes: Sizes<'v>,
    /// Composite nodes opened so far, in walk order.
    pub(crate) opened: usize,
    /// Whether the record batches inside `records` fields are read (the dissector shows them);
    /// validation, like the typed decoders, reads such a field as bytes.
    batches: bool,
}

impl<'v> Out<'v> {
    /// A walk that hands `v` its leaves and no composite node.
    pub(crate) fn new(v: &'v mut dyn Visit) -> Self {
        Self {
            v,
            sizes: Sizes::Unneeded,
            opened: 0,
            batches: true,
        }
    }

    /// A walk that hands `v` every node, composite ones sized by `sizes`.
    pub(crate) fn sized(v: &'v mut dyn Visit, sizes: Sizes<'v>) -> Self {
        Self {
            sizes,
            ..Self::new(v)
        }
    }

    pub(crate) fn node(&mut self, node: &Node<'_>) -> core::fmt::Result {
        self.v.node(node)
    }
}

/// Visits a composite node, which `node` builds from its size (`None` when its children do not
/// read), then its children, which `walk` visits.
pub(crate) fn composite<'a, 'n>(
    o: &mut Out<'_>,
    r: &mut Reader<'a>,
    node: impl FnOnce(Option<usize>) -> Node<'n>,
    walk: impl Fn(&mut Reader<'a>, &mut Out<'_>) -> R,
) -> R {
    {
        let index = o.opened;
        o.opened = index.saturating_add(1);
        let size = match &mut o.sizes {
            Sizes::Unneeded => return walk(r, o),
            Sizes::Record(_) => {
                let start = r.offset();
                let result = walk(r, o);
                if let (Ok(()), Sizes::Record(sizes)) = (&result, &mut o.sizes)
                    && let Some(slot) = sizes.get_mut(index)
                {
                    *slot = u32::try_from(r.offset().saturating_sub(start)).ok();
                }
                return result;
            }
            Sizes::Replay(sizes) => match sizes.get(index) {
                Some(size) => size.and_then(|n| usize::try_from(n).ok()),
                None => measure(r, &walk),
            },
            #[cfg(not(feature = "alloc"))]
            Sizes::Measure => measure(r, &walk),
        };
        o.node(&node(size))?;
    }
    walk(r, o)
}

/// The version, flexibility and body category a body is walked with.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Ctx {
    /// The API of the message (`ApiKey(-1)` in headers), for the names of enumerated values.
    pub(crate) api: ApiKey,
    pub(crate) version: i16,
    pub(crate) flexible: bool,
    pub(crate) body: Category,
}

impl Ctx {
    /// A node of the body at `depth`, last of its siblings or not, named `name`.
    fn place(self, depth: usize, last: bool, name: Name<'_>) -> Place<'_> {
        Place {
            depth,
            last,
            name,
            category: self.body,
        }
    }
}

/// Bytes a walk over a copy of `r` consumes, or `None` if it fails.
fn measure<'a>(
    r: &Reader<'a>,
    walk: impl FnOnce(&mut Reader<'a>, &mut Out<'_>) -> R,
) -> Option<usize> {
    let mut probe = r.clone();
    let start = probe.offset();
    walk(&mut probe, &mut Out::new(&mut Noop)).ok()?;
    Some(probe.offset().saturating_sub(start))
}

/// Where a node goes in the tree: its depth, whether no sibling follows it, its name, and the
/// part of the message it belongs to.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Place<'n> {
    pub(crate) depth: usize,
    pub(crate) last: bool,
    pub(crate) name: Name<'n>,
    pub(crate) category: Category,
}

/// The node at `at` covering `size` bytes from `offset` (`None` when they do not read), without
/// a description.
pub(crate) fn node_at<'n>(
    at: Place<'n>,
    offset: usize,
    size: Option<usize>,
    ty: TypeWord<'n>,
    value: Value<'n>,
) -> Node<'n> {
    Node {
        depth: at.depth,
        last: at.last,
        name: at.name,
        ty,
        value,
        offset,
        size,
        about: About::None,
        category: at.category,
    }
}

/// The size of the bytes from `start` to the reader's position.
pub(crate) fn since(start: usize, r: &Reader<'_>) -> Option<usize> {
    Some(r.offset().saturating_sub(start))
}

/// Reads a length prefix again, after the value it prefixes was read successfully, for the note.
pub(crate) fn len_note(mut r: Reader<'_>, compact: bool, short: bool) -> LenNote {
    if compact {
        LenNote::Compact(r.uvarint("").unwrap_or(0))
    } else if short {
        LenNote::Int16(r.i16("").map_or(0, i32::from))
    } else {
        LenNote::Int32(r.i32("").unwrap_or(0))
    }
}

pub(crate) fn body_category(schema: &MessageSchema) -> Category {
    match schema.kind {
        kwire::codec::MessageKind::Response => Category::ResponseBody,
        _ => Category::RequestBody,
    }
}

/// Reads one body of `schema` at `version` from the start of `bytes` as the dissector does, but
/// visiting nothing and reading `records` fields as bytes, as the typed decoders do: the
/// schema walker's validation ([`super::walker::validate`]). Returns the bytes read.
pub(crate) fn check_body(
    schema: &MessageSchema,
    version: i16,
    bytes: &[u8],
) -> Result<usize, DecodeError> {
    let mut noop = Noop;
    let mut out = Out::new(&mut noop);
    out.batches = false;
    let mut r = Reader::new(bytes);
    match body_at(schema, version, body_category(schema), &mut r, &mut out, 0) {
        Ok(()) => Ok(r.offset()),
        Err(DescribeError::Decode(e)) => Err(e),
        // Only a visitor fails otherwise, and this walk visits nothing.
        Err(_) => Ok(r.offset()),
    }
}

pub(crate) fn body_at(
    schema: &MessageSchema,
    version: i16,
    category: Category,
    r: &mut Reader<'_>,
    v: &mut Out<'_>,
    depth: usize,
) -> R {
    if !schema.valid_versions.contains(version) {
        return Err(DescribeError::Decode(DecodeError::new(
            r.offset(),
            DecodeErrorKind::UnsupportedVersion {
                api_key: ApiKey(schema.api_key),
                version,
            },
            schema.name,
        )));
    }
    let ctx = Ctx {
        api: ApiKey(schema.api_key),
        version,
        flexible: schema.is_flexible(version),
        body: category,
    };
    let child = depth.saturating_add(1);
    let offset = r.offset();
    let at = Place {
        depth,
        last: true,
        name: Name::Plain(schema.name),
        category,
    };
    let about = if matches!(category, Category::RequestBody | Category::ResponseBody) {
        About::Body(version)
    } else {
        About::None
    };
    let node = |size| Node {
        about,
        ..node_at(at, offset, size, TypeWord::Struct, Value::None)
    };
    composite(v, r, node, |r, v| fields(schema.root, ctx, r, v, child))
}

// ---------------------------------------------------------------------------------------------
// Structs and fields
// ---------------------------------------------------------------------------------------------

/// The fields of struct `s` at `depth`, then its tagged section in flexible versions.
fn fields(s: &StructSchema, ctx: Ctx, r: &mut Reader<'_>, v: &mut Out<'_>, depth: usize) -> R {
    let present = |f: &&FieldSchema| f.is_positional(ctx.version);
    let count = s.fields.iter().filter(present).count();
    for (i, f) in s.fields.iter().filter(present).enumerate() {
        let last = !ctx.flexible && i.saturating_add(1) == count;
        let at = ctx.place(depth, last, Name::Plain(f.name));
        field(f, Wire::of(f, ctx, s.path, false), r, v, at)?;
    }
    if ctx.flexible {
        tagged_section(Some(s), ctx, r, v, depth, true)?;
    }
    Ok(())
}

/// How one field is read: the walk's context, the path its errors name, whether it is the value
/// of a tagged entry, and its encoding at the walk's version.
#[derive(Debug, Clone, Copy)]
struct Wire {
    ctx: Ctx,
    path: &'static str,
    tagged: bool,
    /// Lengths and counts are unsigned varints of the length plus one.
    compact: bool,
    /// The value may be null.
    nullable: bool,
}

impl Wire {
    /// Field `f` of the struct at `path`, read with `ctx` (as a tagged entry's value if `tagged`).
    fn of(f: &FieldSchema, ctx: Ctx, path: &'static str, tagged: bool) -> Self {
        Self {
            ctx,
            path,
            tagged,
            compact: f.is_compact(ctx.version, ctx.flexible),
            nullable: f.is_nullable(ctx.version),
        }
    }
}

/// One field's value as a node (and its children).
fn field(f: &FieldSchema, w: Wire, r: &mut Reader<'_>, v: &mut Out<'_>, at: Place<'_>) -> R {
    let child = at.depth.saturating_add(1);
    match f.ty {
        FieldType::Primitive(Primitive::Records) => records_field(w, r, v, at),
        FieldType::Primitive(p) => primitive(p, w, r, v, at),
        FieldType::Struct(s) => {
            let offset = r.offset();
            let null = w.nullable && !marker(&mut r.clone(), w.tagged, w.path).unwrap_or(true);
            let value = if null { Value::Absent } else { Value::Struct };
            let node = |size| node_at(at, offset, size, TypeWord::Named(s.name), value);
            composite(v, r, node, |r, v| nullable_struct(s, w, r, v, child))
        }
        FieldType::Array(_) | FieldType::StructArray(_) => {
            let elem = match f.ty {
                FieldType::StructArray(s) => s.name,
                FieldType::Array(p) => p.name(),
                FieldType::Primitive(p) => p.name(),
                FieldType::Struct(s) => s.name,
            };
            let offset = r.offset();
            let count = count(&mut r.clone(), w.compact, w.nullable, w.path)
                .ok()
                .flatten();
            let value = count.map_or(Value::Absent, Value::Elements);
            let node = |size| node_at(at, offset, size, TypeWord::Array(elem), value);
            composite(v, r, node, |r, v| array(f, w, r, v, child))
        }
    }
}

/// Reads a nullable struct's presence marker.
fn marker(r: &mut Reader<'_>, tagged: bool, path: &'static str) -> Result<bool, DecodeError> {
    r.decode_with(|r| {
        if tagged {
            r.uvarint(path).map(|m| m != 0)
        } else {
            r.struct_marker(path)
        }
    })
}

fn nullable_struct(
    s: &StructSchema,
    w: Wire,
    r: &mut Reader<'_>,
    v: &mut Out<'_>,
    depth: usize,
) -> R {
    if w.nullable {
        let start = r.offset();
        let mut probe = r.clone();
        let present = marker(r, w.tagged, w.path)?;
        let raw = if w.tagged {
            Value::Uint(u64::from(probe.uvarint(w.path).unwrap_or(0)))
        } else {
            Value::Marker(probe.i8(w.path).unwrap_or(0))
        };
        let at = w.ctx.place(depth, !present, Name::Plain("marker"));
        let ty = TypeWord::Wire(if w.tagged { "uvarint" } else { "int8" });
        v.node(&node_at(at, start, since(start, r), ty, raw))?;
        if !present {
            return Ok(());
        }
    }
    fields(s, w.ctx, r, v, depth)
}

/// Reads an array count; `None` for a null array.
fn count(
    r: &mut Reader<'_>,
    compact: bool,
    nullable: bool,
    path: &'static str,
) -> Result<Option<usize>, DecodeError> {
    r.decode_with(|r| {
        if nullable {
            r.nullable_array_len(compact, path)
        } else {
            r.array_len(compact, path).map(Some)
        }
    })
}

fn array(f: &FieldSchema, w: Wire, r: &mut Reader<'_>, v: &mut Out<'_>, depth: usize) -> R {
    let (ctx, path) = (w.ctx, w.path);
    let offset = r.offset();
    let start = r.clone();
    let n = count(r, w.compact, w.nullable, path)?;
    let (ty, value) = if w.compact {
        let raw = start.clone().uvarint(path).unwrap_or(0);
        ("uvarint", Value::CompactCount(raw))
    } else {
        (
            "int32",
            Value::Int(i64::from(start.clone().i32(path).unwrap_or(0))),
        )
    };
    let n = n.unwrap_or(0);
    let at = ctx.place(depth, n == 0, Name::Plain("length"));
    v.node(&node_at(
        at,
        offset,
        since(offset, r),
        TypeWord::Wire(ty),
        value,
    ))?;
    let child = depth.saturating_add(1);
    for i in 0..n {
        let last = i.saturating_add(1) == n;
        match f.ty {
            FieldType::StructArray(s) => {
                let offset = r.offset();
                let at = ctx.place(depth, last, Name::Indexed(s.name, i));
                let node = |size| node_at(at, offset, size, TypeWord::Named(s.name), Value::Struct);
                composite(v, r, node, |r, v| fields(s, ctx, r, v, child))?;
            }
            FieldType::Array(p) | FieldType::Primitive(p) => {
                let at = ctx.place(depth, last, Name::Indexed(f.name, i));
                let element = Wire {
                    nullable: false,
                    ..w
                };
                primitive(p, element, r, v, at)?;
            }
            FieldType::Struct(_) => {}
        }
    }
    Ok(())
}

/// A primitive value as a leaf.
fn primitive(p: Primitive, w: Wire, r: &mut Reader<'_>, v: &mut Out<'_>, at: Place<'_>) -> R {
    let (path, compact) = (w.path, w.compact);
    let offset = r.offset();
    let start = r.clone();
    let value = match p {
        Primitive::Bool => Value::Bool(r.decode_with(|r| r.bool(path))?),
        Primitive::Int8 => Value::Int(i64::from(r.decode_with(|r| r.i8(path))?)),
        Primitive::Int16 => Value::Int(i64::from(r.decode_with(|r| r.i16(path))?)),
        Primitive::Uint16 => Value::Uint(u64::from(r.decode_with(|r| r.u16(path))?)),
        Primitive::Int32 => Value::Int(i64::from(r.decode_with(|r| r.i32(path))?)),
        Primitive::Uint32 => Value::Uint(u64::from(r.decode_with(|r| r.u32(path))?)),
        Primitive::Int64 => Value::Int(r.decode_with(|r| r.i64(path))?),
        Primitive::Float64 => Value::Float(r.decode_with(|r| r.f64(path))?),
        Primitive::Uuid => Value::Uuid(r.decode_with(|r| r.uuid(path))?),
        Primitive::String => {
            let s = if w.nullable {
                r.decode_with(|r| r.nullable_string(compact, path))?
            } else {
                Some(r.decode_with(|r| r.string(compact, path))?)
            };
            let note = len_note(start, compact, true);
            s.map_or(Value::Null(note), |s| Value::Str(s, note))
        }
        Primitive::Bytes | Primitive::Records => {
            let b = if w.nullable {
                r.decode_with(|r| r.nullable_bytes(compact, path))?
            } else {
                Some(r.decode_with(|r| r.bytes(compact, path))?)
            };
            let note = len_note(start, compact, false);
            b.map_or(Value::Null(note), |b| Value::Bytes(b, note))
        }
    };
    let value = named(w.ctx, at.name, value);
    let ty = TypeWord::Wire(p.name());
    v.node(&node_at(at, offset, since(offset, r), ty, value))?;
    Ok(())
}

/// `value` with the name the protocol gives it, when field `name` is an enumeration.
fn named<'a>(ctx: Ctx, name: Name<'_>, value: Value<'a>) -> Value<'a> {
    let (Name::Plain(field) | Name::Indexed(field, _)) = name else {
        return value;
    };
    match value {
        // Credentials are shown as their length and step only.
        Value::Bytes(b, note)
            if ctx.api == ApiKey::SASL_AUTHENTICATE && field == "AuthBytes" && !b.is_empty() =>
        {
            Value::Secret {
                bytes: b,
                step: sasl_step(b),
                note,
            }
        }
        Value::Int(n) if field == "ApiKey" => {
            i16::try_from(n).map_or(value, |k| Value::ApiKey(k, ApiKey(k).name()))
        }
        Value::Int(n) => enums::value_name(ctx.api, ctx.body, field, n)
            .map_or(value, |name| Value::Named(n, name)),
        _ => value,
    }
}

/// The step of a SASL mechanism a message of a SaslAuthenticate exchange is, from its first
/// bytes (what the dissector shows instead of the message).
fn sasl_step(message: &[u8]) -> &'static str {
    let starts = |p: &[u8]| message.starts_with(p);
    if (starts(b"n,") || starts(b"y,")) && message.windows(6).any(|w| w == b"\x01auth=") {
        "OAUTHBEARER initial response"
    } else if starts(b"n,") || starts(b"y,") || starts(b"p=") {
        "SCRAM client-first"
    } else if starts(b"c=") {
        "SCRAM client-final"
    } else if starts(b"r=") {
        "SCRAM server-first"
    } else if starts(b"v=") {
        "SCRAM server-final"
    } else if starts(b"e=") {
        "SCRAM server error"
    } else if message == b"\x01" {
        "OAUTHBEARER acknowledgement"
    } else if starts(b"{") {
        "OAUTHBEARER error"
    } else if message.iter().filter(|&&b| b == 0).count() == 2 {
        "PLAIN credentials"
    } else {
        "auth bytes"
    }
}

// ---------------------------------------------------------------------------------------------
// Tagged fields
// ---------------------------------------------------------------------------------------------

/// The tagged-field section ending a struct: a leaf when empty, else the count and each entry.
pub(crate) fn tagged_section(
    s: Option<&StructSchema>,
    ctx: Ctx,
    r: &mut Reader<'_>,
    v: &mut Out<'_>,
    depth: usize,
    last: bool,
) -> R {
    let path = s.map_or("tagged fields", |s| s.path);
    let offset = r.offset();
    let n = r.clone().decode_with(|r| r.uvarint(path))?;
    let about = About::Text(if ctx.body == Category::Header {
        "number of tagged fields in the header"
    } else {
        "number of tagged fields in this struct"
    });
    let at = Place {
        depth,
        last,
        name: Name::Plain("tagged_fields"),
        category: Category::Tagged,
    };
    let value = Value::Uint(u64::from(n));
    let node = |size| Node {
        about,
        ..node_at(at, offset, size, TypeWord::Wire("uvarint"), value)
    };
    if n == 0 {
        // One byte when minimal; the decoders accept a longer varint too.
        r.decode_with(|r| r.uvarint(path))?;
        v.node(&node(since(offset, r)))?;
        return Ok(());
    }
    let child = depth.saturating_add(1);
    composite(v, r, node, |r, v| tagged_entries(s, ctx, r, v, child))
}

/// The entries of a non-empty tagged section, read by the decoders' own reader of sections
/// ([`TaggedSection`]), which keeps the rules: the count against the bytes left, tags in
/// increasing order, a payload of the declared size.
fn tagged_entries(
    s: Option<&StructSchema>,
    ctx: Ctx,
    r: &mut Reader<'_>,
    v: &mut Out<'_>,
    depth: usize,
) -> R {
    let path = s.map_or("tagged fields", |s| s.path);
    let offset = r.offset();
    let defined = s.map_or(0, StructSchema::tag_count);
    let mut section = r.decode_with(|r| TaggedSection::begin(r, defined, path))?;
    let n = section.remaining();
    let at = Place {
        depth,
        last: false,
        name: Name::Plain("count"),
        category: Category::Tagged,
    };
    let value = Value::Uint(u64::from(n));
    v.node(&node_at(
        at,
        offset,
        since(offset, r),
        TypeWord::Wire("uvarint"),
        value,
    ))?;
    let child = depth.saturating_add(1);
    while let Some(entry) = r.decode_with(|r| section.entry(r))? {
        let known = s.and_then(|s| s.fields.iter().find(|f| f.tag == Some(entry.tag)));
        let at = Place {
            depth,
            last: section.remaining() == 0,
            name: known.map_or(Name::UnknownTag(entry.tag), |f| Name::Plain(f.name)),
            category: Category::Tagged,
        };
        let value = Value::Uint(u64::from(entry.size));
        let size = since(entry.offset, r);
        v.node(&node_at(
            at,
            entry.offset,
            size,
            TypeWord::Wire("tagged"),
            value,
        ))?;
        tagged_entry(&section, entry, known, path, ctx, v, child)?;
    }
    Ok(())
}

/// The tag, size and value of one tagged entry; the value of a tag the schema does not define
/// is shown as its bytes.
fn tagged_entry(
    section: &TaggedSection<'_>,
    entry: TaggedEntry<'_>,
    known: Option<&FieldSchema>,
    path: &'static str,
    ctx: Ctx,
    v: &mut Out<'_>,
    depth: usize,
) -> R {
    let TaggedEntry {
        tag,
        size,
        offset,
        size_offset,
        mut payload,
    } = entry;
    let at = payload.offset();
    let place = |last, name| Place {
        depth,
        last,
        name: Name::Plain(name),
        category: Category::Tagged,
    };
    let uvarint = |name, value, offset: usize, end: usize| {
        let size = Some(end.saturating_sub(offset));
        let value = Value::Uint(u64::from(value));
        node_at(
            place(false, name),
            offset,
            size,
            TypeWord::Wire("uvarint"),
            value,
        )
    };
    v.node(&uvarint("tag", tag, offset, size_offset))?;
    v.node(&uvarint("size", size, size_offset, at))?;
    let Some(f) = known else {
        let bytes = payload.rest();
        let value = Value::Bytes(bytes, LenNote::Compact(size.saturating_add(1)));
        let ty = TypeWord::Wire("bytes");
        v.node(&node_at(
            place(true, "data"),
            at,
            Some(bytes.len()),
            ty,
            value,
        ))?;
        return Ok(());
    };
    if !f.is_tagged(ctx.version) {
        let mut r = payload.clone();
        let e = r.decode_with(|r| Err::<(), _>(section.not_in_version(r, tag, ctx.version)));
        return e.map_err(DescribeError::Decode);
    }
    let value_at = ctx.place(depth, true, Name::Plain("value"));
    let value = field(f, Wire::of(f, ctx, path, true), &mut payload, v, value_at);
    value.map_err(|e| match e {
        DescribeError::Decode(e) => DescribeError::Decode(section.value_error(e, tag, path)),
        other => other,
    })?;
    if !payload.is_empty() {
        return Err(DescribeError::Decode(
            section.unread_error(&payload, tag, path),
        ));
    }
    Ok(())
}

// ---------------------------------------------------------------------------------------------
// Records
// ---------------------------------------------------------------------------------------------

fn records_field(w: Wire, r: &mut Reader<'_>, v: &mut Out<'_>, at: Place<'_>) -> R {
    let (path, compact) = (w.path, w.compact);
    let offset = r.offset();
    let start = r.clone();
    let records = if w.nullable {
        r.decode_with(|r| r.nullable_records(compact, path))?
    } else {
        Some(r.decode_with(|r| r.records(compact, path))?)
    };
    let note = len_note(start.clone(), compact, false);
    let ty = TypeWord::Wire("records");
    let Some(records) = records else {
        v.node(&node_at(
            at,
            offset,
            since(offset, r),
            ty,
            Value::Null(note),
        ))?;
        return Ok(());
    };
    let entries = records.batches().take_while(Result::is_ok).count();
    let value = Value::Records {
        len: records.len(),
        entries,
        note,
    };
    v.node(&node_at(at, offset, since(offset, r), ty, value))?;
    let child = at.depth.saturating_add(1);
    let mut len_reader = start;
    let (ty, value) = if compact {
        (
            "uvarint",
            Value::CompactLen(len_reader.decode_with(|r| r.uvarint(path))?),
        )
    } else {
        (
            "int32",
            Value::Int(i64::from(len_reader.decode_with(|r| r.i32(path))?)),
        )
    };
    let length = w
        .ctx
        .place(child, records.is_empty(), Name::Plain("length"));
    let size = since(offset, &len_reader);
    v.node(&node_at(length, offset, size, TypeWord::Wire(ty), value))?;
    if v.batches {
        visit_records(records, v, child)?;
    }
    Ok(())
}

/// Walks the entries of a records field: each v2 batch with its header fields and a summary of
/// each record, each legacy message with its fields, and any truncated tail.
fn visit_records(records: Records<'_>, v: &mut Out<'_>, depth: usize) -> R {
    let mut batches = records.batches();
    while let Some(item) = batches.next() {
        let batch = match item {
            Ok(batch) => batch,
            // Only part of the first entry: shown as the tail, as a partial last entry is.
            Err(e) if matches!(e.kind, DecodeErrorKind::IncompleteFirstBatch { .. }) => break,
            Err(e) => return Err(DescribeError::Decode(e)),
        };
        let last = batches.clone().next().is_none() && batches.remainder().is_empty();
        match batch {
            Batch::V2(b) => v2_batch(&b, v, depth, last)?,
            Batch::Legacy(m) => legacy(&m, v, depth, last)?,
        }
    }
    let tail = batches.remainder();
    if !tail.is_empty() {
        let at = Place {
            depth,
            last: true,
            name: Name::Plain("tail"),
            category: Category::RecordBatch,
        };
        let (ty, value) = (TypeWord::Wire("bytes"), Value::Tail(tail.len()));
        v.node(&Node {
            about: About::Text("the broker cut the last batch short"),
            ..node_at(at, batches.byte_offset(), Some(tail.len()), ty, value)
        })?;
    }
    Ok(())
}

fn v2_batch(b: &RecordBatch<'_>, v: &mut Out<'_>, depth: usize, last: bool) -> R {
    let at = b.offset();
    let cat = Category::RecordBatch;
    let place = |depth, last, name| Place {
        depth,
        last,
        name,
        category: cat,
    };
    let batch = place(depth, last, Name::Plain("RecordBatch"));
    v.node(&Node {
        about: About::Text("record batch, magic 2"),
        ..node_at(batch, at, Some(b.len()), TypeWord::Version(2), Value::None)
    })?;
    let child = depth.saturating_add(1);
    // The values and notes of the header's fields, in the order of `HEADER_FIELDS`.
    let values: [(Value<'_>, &str); 13] = [
        (Value::Int(b.base_offset()), "offset of the first record"),
        (
            Value::Int(i64::from(b.batch_length())),
            "bytes that follow this field",
        ),
        (
            Value::Int(i64::from(b.partition_leader_epoch())),
            "leader epoch; outside the CRC",
        ),
        (Value::Int(i64::from(b.magic())), "batch format version"),
        (
            Value::Crc {
                stored: b.crc(),
                computed: b.compute_crc(),
            },
            "CRC-32C of the bytes from attributes on",
        ),
        (
            Value::BatchAttributes(b.attributes()),
            "compression, timestamp type, flags",
        ),
        (
            Value::Int(i64::from(b.last_offset_delta())),
            "last offset minus baseOffset",
        ),
        (
            Value::Int(b.base_timestamp()),
            "timestamp of the first record",
        ),
        (
            Value::Int(b.max_timestamp()),
            "largest timestamp in the batch",
        ),
        (
            Value::Int(b.producer_id()),
            "-1 without an idempotent producer",
        ),
        (Value::Int(i64::from(b.producer_epoch())), "producer epoch"),
        (
            Value::Int(i64::from(b.base_sequence())),
            "sequence of the first record",
        ),
        (
            Value::Int(i64::from(b.records_count())),
            "records in the batch",
        ),
    ];
    let payload = b.payload();
    for (i, (field, (value, about))) in HEADER_FIELDS.iter().zip(values).enumerate() {
        let last = payload.is_empty() && i.saturating_add(1) == HEADER_FIELDS.len();
        let field_at = place(child, last, Name::Plain(field.name));
        let (offset, ty) = (
            at.saturating_add(field.offset),
            TypeWord::Wire(field.wire_type),
        );
        v.node(&Node {
            about: About::Text(about),
            ..node_at(field_at, offset, Some(field.size), ty, value)
        })?;
    }
    if payload.is_empty() {
        return Ok(());
    }
    let payload_at = at.saturating_add(HEADER_LEN);
    let compression = b.compression();
    if compression != kwire::records::Compression::NONE {
        let records_at = Place {
            category: Category::Record,
            ..place(child, true, Name::Plain("records"))
        };
        let (size, ty) = (Some(payload.len()), TypeWord::Wire("bytes"));
        let value = Value::Compressed(compression, payload.len());
        v.node(&Node {
            about: About::Text("compressed records"),
            ..node_at(records_at, payload_at, size, ty, value)
        })?;
        return Ok(());
    }
    // The CRC node above reports a mismatch; the records are shown either way.
    let mut records = b.records_unchecked()?.enumerate().peekable();
    while let Some((i, record)) = records.next() {
        let record = record?;
        let last = records.peek().is_none();
        let record_at = Place {
            category: Category::Record,
            ..place(child, last, Name::Indexed("Record", i))
        };
        let value = Value::Record {
            offset: record.offset(),
            key: record.key().map(<[u8]>::len),
            value: record.value().map(<[u8]>::len),
            headers: record.headers().len(),
        };
        let size = Some(record.as_bytes().len());
        let ty = TypeWord::Wire("record");
        v.node(&node_at(record_at, record.position(), size, ty, value))?;
    }
    Ok(())
}

fn legacy(m: &LegacyMessage<'_>, v: &mut Out<'_>, depth: usize, last: bool) -> R {
    let at = m.position();
    let cat = Category::RecordBatch;
    let message = Place {
        depth,
        last,
        name: Name::Plain("Message"),
        category: cat,
    };
    let (size, ty) = (
        Some(m.as_bytes().len()),
        TypeWord::Version(i16::from(m.magic())),
    );
    v.node(&Node {
        about: About::Text("legacy message"),
        ..node_at(message, at, size, ty, Value::None)
    })?;
    let child = depth.saturating_add(1);
    let mut r = Reader::with_offset(m.as_bytes(), at);
    let mut emit = |r: &Reader<'_>,
                    start: usize,
                    name: &'static str,
                    ty: &'static str,
                    value: Value<'_>,
                    last: bool| {
        let place = Place {
            depth: child,
            last,
            name: Name::Plain(name),
            category: cat,
        };
        v.node(&node_at(
            place,
            start,
            since(start, r),
            TypeWord::Wire(ty),
            value,
        ))
    };
    // The fixed fields: name, wire type, width, value; the timestamp from magic 1 on.
    let header = [
        ("offset", "int64", 8, Value::Int(m.offset())),
        (
            "messageSize",
            "int32",
            4,
            Value::Int(i64::from(m.message_size())),
        ),
        (
            "crc",
            "uint32",
            4,
            Value::Crc {
                stored: m.crc(),
                computed: m.compute_crc(),
            },
        ),
        ("magic", "int8", 1, Value::Int(i64::from(m.magic()))),
        (
            "attributes",
            "int8",
            1,
            Value::Int(i64::from(m.attributes())),
        ),
    ];
    let timestamp = m
        .timestamp()
        .map(|ts| ("timestamp", "int64", 8, Value::Int(ts)));
    for (name, ty, width, value) in header.into_iter().chain(timestamp) {
        let s = r.offset();
        r.decode_with(|r| r.take(width, ""))?;
        emit(&r, s, name, ty, value, false)?;
    }
    for (name, value, last) in [("key", m.key(), false), ("value", m.value(), true)] {
        let s = r.offset();
        let len = r.decode_with(|r| r.i32(""))?;
        r.decode_with(|r| r.take(value.map_or(0, <[u8]>::len), ""))?;
        let note = LenNote::Int32(len);
        emit(
            &r,
            s,
            name,
            "bytes",
            value.map_or(Value::Null(note), |b| Value::Bytes(b, note)),
            last,
        )?;
    }
    Ok(())
}
