//! The read walk over the schema tables: bytes into the nodes of an object tree, handed to a
//! [`Visit`]or. The dissector (`describe`) shows the nodes; validation
//! ([`super::walker::validate`]) walks without visiting, and reads `records` fields as bytes.

use super::enums;
use super::tree::{About, Category, DescribeError, LenNote, Name, Node, TypeWord, Value, Visit};
use crate::api::ApiKey;
use crate::codec::framing::{SIZE_LEN, announced_len};
use crate::codec::{Reader, TaggedEntry, TaggedSection};
use crate::error::{DecodeError, DecodeErrorKind};
use crate::header::{request_header_version, response_header_version};
use crate::records::{Batch, HEADER_FIELDS, HEADER_LEN, LegacyMessage, RecordBatch, Records};
use crate::schema::{self, FieldSchema, FieldType, MessageSchema, Primitive, StructSchema};

type R<T = ()> = Result<T, DescribeError>;

/// A visitor that ignores everything: the visitor of the walks that only measure or record.
struct Noop;

impl Visit for Noop {
    fn node(&mut self, _: &Node<'_>) -> core::fmt::Result {
        Ok(())
    }
}

/// How a walk learns a composite node's size, which its node carries but which is only known
/// once its children are walked.
enum Sizes<'s> {
    /// Nothing is visited (a measure, or a check that a body reads): no size is needed.
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

/// Where a walk sends its nodes, and how it sizes composite ones.
struct Out<'v> {
    v: &'v mut dyn Visit,
    sizes: Sizes<'v>,
    /// Composite nodes opened so far, in walk order.
    opened: usize,
    /// Whether the record batches inside `records` fields are read (the dissector shows them);
    /// validation, like the typed decoders, reads such a field as bytes.
    batches: bool,
}

impl<'v> Out<'v> {
    fn new(v: &'v mut dyn Visit, sizes: Sizes<'v>) -> Self {
        Self {
            v,
            sizes,
            opened: 0,
            batches: true,
        }
    }

    fn node(&mut self, node: &Node<'_>) -> core::fmt::Result {
        self.v.node(node)
    }
}

/// Composite nodes whose sizes a walk keeps on the stack (2 KiB): a tree with more keeps them
/// in a vector with `alloc`, and is measured node by node without it.
const STACK_SIZES: usize = 256;

/// Walks with `walk` and hands its nodes to `v`, each with its size. Three walks, each linear in
/// the input: one counts the composite nodes, one records their sizes, one visits. Without
/// `alloc` and with more than [`STACK_SIZES`] composite nodes, one walk that measures each
/// composite node before visiting it instead, at a cost of the input's size times its depth.
fn visit_sized(v: &mut dyn Visit, walk: impl Fn(&mut Out<'_>) -> R) -> R {
    let mut noop = Noop;
    let mut count = Out::new(&mut noop, Sizes::Unneeded);
    // A walk that fails still opened the nodes before the failure, and those are the nodes
    // the other walks reach.
    let _ = walk(&mut count);
    let mut stack = [None; STACK_SIZES];
    #[cfg(feature = "alloc")]
    let mut heap;
    let sizes: &mut [Option<u32>] = match stack.get_mut(..count.opened) {
        Some(sizes) => sizes,
        #[cfg(feature = "alloc")]
        None => {
            heap = alloc::vec![None; count.opened];
            &mut heap
        }
        #[cfg(not(feature = "alloc"))]
        None => return walk(&mut Out::new(v, Sizes::Measure)),
    };
    let _ = walk(&mut Out::new(&mut noop, Sizes::Record(sizes)));
    walk(&mut Out::new(v, Sizes::Replay(sizes)))
}

/// Visits a composite node, which `node` builds from its size (`None` when its children do not
/// read), then its children, which `walk` visits.
fn composite<'a, 'n>(
    o: &mut Out<'_>,
    r: &mut Reader<'a>,
    node: impl FnOnce(Option<usize>) -> Node<'n>,
    walk: impl Fn(&mut Reader<'a>, &mut Out<'_>) -> R,
) -> R {
    let index = o.opened;
    o.opened = o.opened.saturating_add(1);
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
    walk(r, o)
}

/// The version, flexibility and body category a body is walked with.
#[derive(Debug, Clone, Copy)]
struct Ctx {
    /// The API of the message (`ApiKey(-1)` in headers), for the names of enumerated values.
    api: ApiKey,
    version: i16,
    flexible: bool,
    body: Category,
}

/// Bytes a walk over a copy of `r` consumes, or `None` if it fails.
fn measure<'a>(
    r: &Reader<'a>,
    walk: impl FnOnce(&mut Reader<'a>, &mut Out<'_>) -> R,
) -> Option<usize> {
    let mut probe = r.clone();
    let start = probe.offset();
    walk(&mut probe, &mut Out::new(&mut Noop, Sizes::Unneeded)).ok()?;
    Some(probe.offset().saturating_sub(start))
}

/// Emits a leaf covering the bytes from `start` to the reader's position.
#[allow(
    clippy::too_many_arguments,
    reason = "the walk threads its reader, visitor, depth and the field's wire facts through each step; bundling them would only move the list into a struct built at every call"
)]
fn leaf(
    v: &mut Out<'_>,
    r: &Reader<'_>,
    start: usize,
    depth: usize,
    last: bool,
    name: Name<'_>,
    ty: TypeWord<'_>,
    value: Value<'_>,
    about: &'static str,
    category: Category,
) -> R {
    let about = if about.is_empty() {
        About::None
    } else {
        About::Text(about)
    };
    v.node(&Node {
        depth,
        last,
        name,
        ty,
        value,
        offset: start,
        size: Some(r.offset().saturating_sub(start)),
        about,
        category,
    })?;
    Ok(())
}

/// Reads a length prefix again, after the value it prefixes was read successfully, for the note.
fn len_note(mut r: Reader<'_>, compact: bool, short: bool) -> LenNote {
    if compact {
        LenNote::Compact(r.uvarint("").unwrap_or(0))
    } else if short {
        LenNote::Int16(r.i16("").map_or(0, i32::from))
    } else {
        LenNote::Int32(r.i32("").unwrap_or(0))
    }
}

// ---------------------------------------------------------------------------------------------
// Frames
// ---------------------------------------------------------------------------------------------

/// Reads the size prefix and checks it against the input; returns the frame length.
fn frame_size(frame: &[u8]) -> Result<(i32, Option<usize>), DecodeError> {
    let mut r = Reader::new(frame);
    let size = r.decode_with(|r| r.i32("Frame.size"))?;
    let total = announced_len(size)?.saturating_add(SIZE_LEN);
    Ok((size, (frame.len() >= total).then_some(total)))
}

fn frame_nodes(
    frame: &[u8],
    v: &mut Out<'_>,
    schema: &MessageSchema,
    version: i16,
) -> R<(i32, Option<usize>)> {
    let (size, total) = frame_size(frame).map_err(DescribeError::Decode)?;
    v.node(&Node {
        depth: 0,
        last: true,
        name: Name::Plain(schema.name),
        ty: TypeWord::Message(version),
        value: Value::None,
        offset: 0,
        size: total,
        about: About::None,
        category: Category::Frame,
    })?;
    v.node(&Node {
        depth: 1,
        last: false,
        name: Name::Plain("Frame"),
        ty: TypeWord::None,
        value: Value::None,
        offset: 0,
        size: Some(4),
        about: About::Text("length-delimited framing"),
        category: Category::Frame,
    })?;
    v.node(&Node {
        depth: 2,
        last: true,
        name: Name::Plain("size"),
        ty: TypeWord::Wire("int32"),
        value: Value::Int(i64::from(size)),
        offset: 0,
        size: Some(4),
        about: About::Text("number of bytes that follow, patched after encoding"),
        category: Category::Frame,
    })?;
    Ok((size, total))
}

/// The bytes of the frame after its size prefix (all of them when the frame is cut short), and
/// the error to report at the end when the frame is shorter or longer than its prefix says.
fn frame_rest(frame: &[u8], size: i32, total: Option<usize>) -> (&[u8], Option<DecodeError>) {
    match total {
        Some(t) => {
            let rest = frame.get(4..t).unwrap_or_default();
            let extra = frame.len().saturating_sub(t);
            let err = (extra > 0).then(|| {
                DecodeError::new(t, DecodeErrorKind::TrailingBytes { count: extra }, "Frame")
            });
            (rest, err)
        }
        None => {
            // What the frame decoder reports: the bytes missing after the size prefix.
            let needed = usize::try_from(size)
                .unwrap_or(0)
                .saturating_add(4)
                .saturating_sub(frame.len());
            let err = DecodeError::new(4, DecodeErrorKind::Truncated { needed }, "Frame");
            (frame.get(4..).unwrap_or_default(), Some(err))
        }
    }
}

/// Walks a request frame (size prefix, request header, body), taking the API key and version from
/// the header.
///
/// # Errors
///
/// The first decoding error (after the nodes before it were visited); `UnknownApi` when the
/// header names an API key or version without a schema; `Fmt` when the visitor fails.
pub fn visit_request_frame(frame: &[u8], v: &mut dyn Visit) -> R {
    visit_sized(v, |o| request_frame(frame, o))
}

fn request_frame(frame: &[u8], v: &mut Out<'_>) -> R {
    let mut peek = Reader::with_offset(frame.get(4..).unwrap_or_default(), 4);
    let peeked = peek.decode_with(|r| {
        Ok((
            r.i16("RequestHeader.RequestApiKey")?,
            r.i16("RequestHeader.RequestApiVersion")?,
        ))
    });
    let (key, version) = match peeked {
        Ok(found) => found,
        // The frame decoder's error: the size prefix, else the field the frame ends in.
        Err(e) => {
            frame_size(frame).map_err(DescribeError::Decode)?;
            return Err(DescribeError::Decode(e));
        }
    };
    let api = ApiKey(key);
    let schema = schema::request(api).ok_or(DescribeError::UnknownApi)?;
    let (size, total) = frame_nodes(frame, v, schema, version)?;
    let (rest, trailing) = frame_rest(frame, size, total);
    let mut r = Reader::with_offset(rest, 4);
    let hv = request_header_version(api, version);
    let header = |size| Node {
        depth: 1,
        last: false,
        name: Name::Plain("RequestHeader"),
        ty: TypeWord::Version(hv),
        value: Value::None,
        offset: 4,
        size,
        about: About::Text("common request header"),
        category: Category::Header,
    };
    composite(v, &mut r, header, |r, v| request_header(r, v, hv))?;
    body(schema, version, Category::RequestBody, &mut r, v)?;
    finish(&r, trailing)
}

/// Walks a response frame of `api_key` at `version` (response headers do not name their API).
///
/// # Errors
///
/// As [`visit_request_frame`].
pub fn visit_response_frame(frame: &[u8], api_key: ApiKey, version: i16, v: &mut dyn Visit) -> R {
    let schema = schema::response(api_key).ok_or(DescribeError::UnknownApi)?;
    let version = if api_key == ApiKey::API_VERSIONS {
        api_versions_layout(schema, version, frame)
    } else {
        version
    };
    visit_sized(v, |o| response_frame(frame, api_key, schema, version, o))
}

fn response_frame(
    frame: &[u8],
    api_key: ApiKey,
    schema: &MessageSchema,
    version: i16,
    v: &mut Out<'_>,
) -> R {
    let (size, total) = frame_nodes(frame, v, schema, version)?;
    let (rest, trailing) = frame_rest(frame, size, total);
    let mut r = Reader::with_offset(rest, 4);
    let hv = response_header_version(api_key, version);
    let header = |size| Node {
        depth: 1,
        last: false,
        name: Name::Plain("ResponseHeader"),
        ty: TypeWord::Version(hv),
        value: Value::None,
        offset: 4,
        size,
        about: About::Text("common response header"),
        category: Category::Header,
    };
    composite(v, &mut r, header, |r, v| response_header(r, v, hv))?;
    body(schema, version, Category::ResponseBody, &mut r, v)?;
    finish(&r, trailing)
}

/// The version whose layout an ApiVersions response frame's body is in, for a request sent at
/// `sent`, by the rule of [`crate::frame::decode_response`]: a broker that does not know `sent`
/// answers error `UNSUPPORTED_VERSION` in the v0 layout. With that error the body is tried as v0
/// first, otherwise at `sent` first; the other layout is taken only when it reads the body
/// exactly and the first does not.
fn api_versions_layout(schema: &MessageSchema, sent: i16, frame: &[u8]) -> i16 {
    // The size prefix and the v0 response header (a correlation id) come first.
    let end = frame_size(frame)
        .ok()
        .and_then(|(_, total)| total)
        .unwrap_or(frame.len());
    let body = frame.get(8..end).unwrap_or_default();
    let unsupported = body.first_chunk::<2>().map(|b| i16::from_be_bytes(*b))
        == Some(crate::ErrorCode::UNSUPPORTED_VERSION.0);
    let (first, second) = if unsupported && sent != 0 {
        (0, sent)
    } else {
        (sent, 0)
    };
    let reads = |version| {
        let mut noop = Noop;
        body_alone(
            schema,
            version,
            body,
            &mut Out::new(&mut noop, Sizes::Unneeded),
        )
        .is_ok()
    };
    if first != second && !reads(first) && reads(second) {
        second
    } else {
        first
    }
}

/// Walks a body of `schema` at `version` on its own (no frame or header), at depth 0.
///
/// # Errors
///
/// As [`visit_request_frame`]; bytes after the body are `TrailingBytes`.
pub fn visit_body(schema: &MessageSchema, version: i16, bytes: &[u8], v: &mut dyn Visit) -> R {
    visit_sized(v, |o| body_alone(schema, version, bytes, o))
}

fn body_alone(schema: &MessageSchema, version: i16, bytes: &[u8], v: &mut Out<'_>) -> R {
    let mut r = Reader::new(bytes);
    body_at(schema, version, body_category(schema), &mut r, v, 0)?;
    r.finish(schema.name)?;
    Ok(())
}

fn body_category(schema: &MessageSchema) -> Category {
    match schema.kind {
        crate::codec::MessageKind::Response => Category::ResponseBody,
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
    let mut out = Out::new(&mut noop, Sizes::Unneeded);
    out.batches = false;
    let mut r = Reader::new(bytes);
    match body_at(schema, version, body_category(schema), &mut r, &mut out, 0) {
        Ok(()) => Ok(r.offset()),
        Err(DescribeError::Decode(e)) => Err(e),
        // Only a visitor fails otherwise, and this walk visits nothing.
        Err(
            DescribeError::Fmt | DescribeError::UnknownApi | DescribeError::ScratchTooSmall { .. },
        ) => Ok(r.offset()),
    }
}

fn finish(r: &Reader<'_>, trailing: Option<DecodeError>) -> R {
    r.finish("Frame")?;
    match trailing {
        Some(e) => Err(DescribeError::Decode(e)),
        None => Ok(()),
    }
}

fn request_header(r: &mut Reader<'_>, v: &mut Out<'_>, hv: i16) -> R {
    let c = Category::Header;
    let at = r.offset();
    let key = r.decode_with(|r| r.i16("RequestHeader.RequestApiKey"))?;
    leaf(
        v,
        r,
        at,
        2,
        false,
        Name::Plain("request_api_key"),
        TypeWord::Wire("int16"),
        Value::ApiKey(key, ApiKey(key).name()),
        "numeric id of the API being invoked",
        c,
    )?;
    let at = r.offset();
    let version = r.decode_with(|r| r.i16("RequestHeader.RequestApiVersion"))?;
    leaf(
        v,
        r,
        at,
        2,
        false,
        Name::Plain("request_api_version"),
        TypeWord::Wire("int16"),
        Value::Int(i64::from(version)),
        "version of the API being invoked",
        c,
    )?;
    correlation_id(
        r,
        v,
        "RequestHeader.CorrelationId",
        hv < 1,
        "echoed back by the broker in the response",
    )?;
    if hv >= 1 {
        let at = r.offset();
        let start = r.clone();
        let client = r.decode_with(|r| r.nullable_string(false, "RequestHeader.ClientId"))?;
        let note = len_note(start, false, true);
        leaf(
            v,
            r,
            at,
            2,
            hv < 2,
            Name::Plain("client_id"),
            TypeWord::Wire("nullable_string"),
            client.map_or(Value::Null(note), |s| Value::Str(s, note)),
            "always a non-flexible int16-prefixed string",
            c,
        )?;
    }
    if hv >= 2 {
        header_tags("RequestHeader", hv, r, v)?;
    }
    Ok(())
}

/// A header's `correlation_id`, the last field of a header without tagged fields.
fn correlation_id(
    r: &mut Reader<'_>,
    v: &mut Out<'_>,
    path: &'static str,
    last: bool,
    about: &'static str,
) -> R {
    let at = r.offset();
    let id = r.decode_with(|r| r.i32(path))?;
    leaf(
        v,
        r,
        at,
        2,
        last,
        Name::Plain("correlation_id"),
        TypeWord::Wire("int32"),
        Value::Int(i64::from(id)),
        about,
        Category::Header,
    )
}

/// The tagged section that ends a flexible header.
fn header_tags(name: &str, hv: i16, r: &mut Reader<'_>, v: &mut Out<'_>) -> R {
    let ctx = Ctx {
        api: ApiKey(-1),
        version: hv,
        flexible: true,
        body: Category::Header,
    };
    tagged_section(schema::by_name(name).map(|m| m.root), ctx, r, v, 2, true)
}

fn response_header(r: &mut Reader<'_>, v: &mut Out<'_>, hv: i16) -> R {
    correlation_id(
        r,
        v,
        "ResponseHeader.CorrelationId",
        hv < 1,
        "matches the correlation_id of the request",
    )?;
    if hv >= 1 {
        header_tags("ResponseHeader", hv, r, v)?;
    }
    Ok(())
}

fn body(
    schema: &MessageSchema,
    version: i16,
    category: Category,
    r: &mut Reader<'_>,
    v: &mut Out<'_>,
) -> R {
    body_at(schema, version, category, r, v, 1)
}

fn body_at(
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
    let node = |size| Node {
        depth,
        last: true,
        name: Name::Plain(schema.name),
        ty: TypeWord::Struct,
        value: Value::None,
        offset,
        size,
        about: if matches!(category, Category::RequestBody | Category::ResponseBody) {
            About::Body(version)
        } else {
            About::None
        },
        category,
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
        field(
            f,
            Name::Plain(f.name),
            s.path,
            ctx,
            false,
            r,
            v,
            depth,
            last,
        )?;
    }
    if ctx.flexible {
        tagged_section(Some(s), ctx, r, v, depth, true)?;
    }
    Ok(())
}

/// One field's value as a node (and its children).
#[allow(
    clippy::too_many_arguments,
    reason = "the walk threads its reader, visitor, depth and the field's wire facts through each step; bundling them would only move the list into a struct built at every call"
)]
fn field(
    f: &FieldSchema,
    name: Name<'_>,
    path: &'static str,
    ctx: Ctx,
    tagged: bool,
    r: &mut Reader<'_>,
    v: &mut Out<'_>,
    depth: usize,
    last: bool,
) -> R {
    let compact = f.is_compact(ctx.version, ctx.flexible);
    let nullable = f.is_nullable(ctx.version);
    let child = depth.saturating_add(1);
    match f.ty {
        FieldType::Primitive(Primitive::Records) => {
            records_field(name, path, compact, nullable, ctx, r, v, depth, last)
        }
        FieldType::Primitive(p) => primitive(
            p,
            name,
            p.name(),
            path,
            compact,
            nullable,
            ctx,
            r,
            v,
            depth,
            last,
        ),
        FieldType::Struct(s) => {
            let offset = r.offset();
            let null = nullable && !marker(&mut r.clone(), tagged, path).unwrap_or(true);
            let node = |size| Node {
                depth,
                last,
                name,
                ty: TypeWord::Named(s.name),
                value: if null { Value::Absent } else { Value::Struct },
                offset,
                size,
                about: About::None,
                category: ctx.body,
            };
            composite(v, r, node, |r, v| {
                nullable_struct(s, path, ctx, tagged, nullable, r, v, child)
            })
        }
        FieldType::Array(_) | FieldType::StructArray(_) => {
            let elem = match f.ty {
                FieldType::StructArray(s) => s.name,
                FieldType::Array(p) => p.name(),
                FieldType::Primitive(p) => p.name(),
                FieldType::Struct(s) => s.name,
            };
            let offset = r.offset();
            let count = count(&mut r.clone(), compact, nullable, path)
                .ok()
                .flatten();
            let node = |size| Node {
                depth,
                last,
                name,
                ty: TypeWord::Array(elem),
                value: count.map_or(Value::Absent, Value::Elements),
                offset,
                size,
                about: About::None,
                category: ctx.body,
            };
            composite(v, r, node, |r, v| {
                array(f, path, ctx, compact, nullable, r, v, child)
            })
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

#[allow(
    clippy::too_many_arguments,
    reason = "the walk threads its reader, visitor, depth and the field's wire facts through each step; bundling them would only move the list into a struct built at every call"
)]
fn nullable_struct(
    s: &StructSchema,
    path: &'static str,
    ctx: Ctx,
    tagged: bool,
    nullable: bool,
    r: &mut Reader<'_>,
    v: &mut Out<'_>,
    depth: usize,
) -> R {
    if nullable {
        let at = r.offset();
        let mut probe = r.clone();
        let present = marker(r, tagged, path)?;
        let raw = if tagged {
            Value::Uint(u64::from(probe.uvarint(path).unwrap_or(0)))
        } else {
            Value::Marker(probe.i8(path).unwrap_or(0))
        };
        leaf(
            v,
            r,
            at,
            depth,
            !present,
            Name::Plain("marker"),
            TypeWord::Wire(if tagged { "uvarint" } else { "int8" }),
            raw,
            "",
            ctx.body,
        )?;
        if !present {
            return Ok(());
        }
    }
    fields(s, ctx, r, v, depth)
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

#[allow(
    clippy::too_many_arguments,
    reason = "the walk threads its reader, visitor, depth and the field's wire facts through each step; bundling them would only move the list into a struct built at every call"
)]
fn array(
    f: &FieldSchema,
    path: &'static str,
    ctx: Ctx,
    compact: bool,
    nullable: bool,
    r: &mut Reader<'_>,
    v: &mut Out<'_>,
    depth: usize,
) -> R {
    let at = r.offset();
    let start = r.clone();
    let n = count(r, compact, nullable, path)?;
    let (ty, value) = if compact {
        let raw = start.clone().uvarint(path).unwrap_or(0);
        ("uvarint", Value::CompactCount(raw))
    } else {
        (
            "int32",
            Value::Int(i64::from(start.clone().i32(path).unwrap_or(0))),
        )
    };
    let n = n.unwrap_or(0);
    leaf(
        v,
        r,
        at,
        depth,
        n == 0,
        Name::Plain("length"),
        TypeWord::Wire(ty),
        value,
        "",
        ctx.body,
    )?;
    let child = depth.saturating_add(1);
    for i in 0..n {
        let last = i.saturating_add(1) == n;
        match f.ty {
            FieldType::StructArray(s) => {
                let offset = r.offset();
                let node = |size| Node {
                    depth,
                    last,
                    name: Name::Indexed(s.name, i),
                    ty: TypeWord::Named(s.name),
                    value: Value::Struct,
                    offset,
                    size,
                    about: About::None,
                    category: ctx.body,
                };
                composite(v, r, node, |r, v| fields(s, ctx, r, v, child))?;
            }
            FieldType::Array(p) | FieldType::Primitive(p) => {
                let name = Name::Indexed(f.name, i);
                primitive(
                    p,
                    name,
                    p.name(),
                    path,
                    compact,
                    false,
                    ctx,
                    r,
                    v,
                    depth,
                    last,
                )?;
            }
            FieldType::Struct(_) => {}
        }
    }
    Ok(())
}

/// A primitive value as a leaf.
#[allow(
    clippy::too_many_arguments,
    reason = "the walk threads its reader, visitor, depth and the field's wire facts through each step; bundling them would only move the list into a struct built at every call"
)]
fn primitive(
    p: Primitive,
    name: Name<'_>,
    ty: &'static str,
    path: &'static str,
    compact: bool,
    nullable: bool,
    ctx: Ctx,
    r: &mut Reader<'_>,
    v: &mut Out<'_>,
    depth: usize,
    last: bool,
) -> R {
    let at = r.offset();
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
            let s = if nullable {
                r.decode_with(|r| r.nullable_string(compact, path))?
            } else {
                Some(r.decode_with(|r| r.string(compact, path))?)
            };
            let note = len_note(start, compact, true);
            s.map_or(Value::Null(note), |s| Value::Str(s, note))
        }
        Primitive::Bytes | Primitive::Records => {
            let b = if nullable {
                r.decode_with(|r| r.nullable_bytes(compact, path))?
            } else {
                Some(r.decode_with(|r| r.bytes(compact, path))?)
            };
            let note = len_note(start, compact, false);
            b.map_or(Value::Null(note), |b| Value::Bytes(b, note))
        }
    };
    let value = named(ctx, name, value);
    leaf(
        v,
        r,
        at,
        depth,
        last,
        name,
        TypeWord::Wire(ty),
        value,
        "",
        ctx.body,
    )
}

/// `value` with the name the protocol gives it, when field `name` is an enumeration.
fn named<'a>(ctx: Ctx, name: Name<'_>, value: Value<'a>) -> Value<'a> {
    let (Name::Plain(field) | Name::Indexed(field, _)) = name else {
        return value;
    };
    match value {
        Value::Int(n) if field == "ApiKey" => {
            i16::try_from(n).map_or(value, |k| Value::ApiKey(k, ApiKey(k).name()))
        }
        Value::Int(n) => enums::value_name(ctx.api, ctx.body, field, n)
            .map_or(value, |name| Value::Named(n, name)),
        _ => value,
    }
}

// ---------------------------------------------------------------------------------------------
// Tagged fields
// ---------------------------------------------------------------------------------------------

/// The tagged-field section ending a struct: a leaf when empty, else the count and each entry.
fn tagged_section(
    s: Option<&StructSchema>,
    ctx: Ctx,
    r: &mut Reader<'_>,
    v: &mut Out<'_>,
    depth: usize,
    last: bool,
) -> R {
    let path = s.map_or("tagged fields", |s| s.path);
    let at = r.offset();
    let n = r.clone().decode_with(|r| r.uvarint(path))?;
    let about = About::Text(if ctx.body == Category::Header {
        "number of tagged fields in the header"
    } else {
        "number of tagged fields in this struct"
    });
    let node = |size| Node {
        depth,
        last,
        name: Name::Plain("tagged_fields"),
        ty: TypeWord::Wire("uvarint"),
        value: Value::Uint(u64::from(n)),
        offset: at,
        size,
        about,
        category: Category::Tagged,
    };
    if n == 0 {
        // One byte when minimal; the decoders accept a longer varint too.
        r.decode_with(|r| r.uvarint(path))?;
        v.node(&node(Some(r.offset().saturating_sub(at))))?;
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
    let at = r.offset();
    let defined = s.map_or(0, StructSchema::tag_count);
    let mut section = r.decode_with(|r| TaggedSection::begin(r, defined, path))?;
    let n = section.remaining();
    leaf(
        v,
        r,
        at,
        depth,
        false,
        Name::Plain("count"),
        TypeWord::Wire("uvarint"),
        Value::Uint(u64::from(n)),
        "",
        Category::Tagged,
    )?;
    let child = depth.saturating_add(1);
    while let Some(entry) = r.decode_with(|r| section.entry(r))? {
        let known = s.and_then(|s| s.fields.iter().find(|f| f.tag == Some(entry.tag)));
        v.node(&Node {
            depth,
            last: section.remaining() == 0,
            name: known.map_or(Name::UnknownTag(entry.tag), |f| Name::Plain(f.name)),
            ty: TypeWord::Wire("tagged"),
            value: Value::Uint(u64::from(entry.size)),
            offset: entry.offset,
            size: Some(r.offset().saturating_sub(entry.offset)),
            about: About::None,
            category: Category::Tagged,
        })?;
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
    let cat = Category::Tagged;
    let uvarint = |name, value, offset: usize, end: usize| Node {
        depth,
        last: false,
        name: Name::Plain(name),
        ty: TypeWord::Wire("uvarint"),
        value: Value::Uint(u64::from(value)),
        offset,
        size: Some(end.saturating_sub(offset)),
        about: About::None,
        category: cat,
    };
    v.node(&uvarint("tag", tag, offset, size_offset))?;
    v.node(&uvarint("size", size, size_offset, at))?;
    let Some(f) = known else {
        let bytes = payload.rest();
        v.node(&Node {
            depth,
            last: true,
            name: Name::Plain("data"),
            ty: TypeWord::Wire("bytes"),
            value: Value::Bytes(bytes, LenNote::Compact(size.saturating_add(1))),
            offset: at,
            size: Some(bytes.len()),
            about: About::None,
            category: cat,
        })?;
        return Ok(());
    };
    if !f.is_tagged(ctx.version) {
        let mut r = payload.clone();
        let e = r.decode_with(|r| Err::<(), _>(section.not_in_version(r, tag, ctx.version)));
        return e.map_err(DescribeError::Decode);
    }
    let value = field(
        f,
        Name::Plain("value"),
        path,
        ctx,
        true,
        &mut payload,
        v,
        depth,
        true,
    );
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

#[allow(
    clippy::too_many_arguments,
    reason = "the walk threads its reader, visitor, depth and the field's wire facts through each step; bundling them would only move the list into a struct built at every call"
)]
fn records_field(
    name: Name<'_>,
    path: &'static str,
    compact: bool,
    nullable: bool,
    ctx: Ctx,
    r: &mut Reader<'_>,
    v: &mut Out<'_>,
    depth: usize,
    last: bool,
) -> R {
    let at = r.offset();
    let start = r.clone();
    let records = if nullable {
        r.decode_with(|r| r.nullable_records(compact, path))?
    } else {
        Some(r.decode_with(|r| r.records(compact, path))?)
    };
    let note = len_note(start.clone(), compact, false);
    let Some(records) = records else {
        return leaf(
            v,
            r,
            at,
            depth,
            last,
            name,
            TypeWord::Wire("records"),
            Value::Null(note),
            "",
            ctx.body,
        );
    };
    let entries = records.batches().take_while(Result::is_ok).count();
    v.node(&Node {
        depth,
        last,
        name,
        ty: TypeWord::Wire("records"),
        value: Value::Records {
            len: records.len(),
            entries,
            note,
        },
        offset: at,
        size: Some(r.offset().saturating_sub(at)),
        about: About::None,
        category: ctx.body,
    })?;
    let child = depth.saturating_add(1);
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
    let empty = records.is_empty();
    leaf(
        v,
        &len_reader,
        at,
        child,
        empty,
        Name::Plain("length"),
        TypeWord::Wire(ty),
        value,
        "",
        ctx.body,
    )?;
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
        v.node(&Node {
            depth,
            last: true,
            name: Name::Plain("tail"),
            ty: TypeWord::Wire("bytes"),
            value: Value::Tail(tail.len()),
            offset: batches.byte_offset(),
            size: Some(tail.len()),
            about: About::Text("the broker cut the last batch short"),
            category: Category::RecordBatch,
        })?;
    }
    Ok(())
}

fn v2_batch(b: &RecordBatch<'_>, v: &mut Out<'_>, depth: usize, last: bool) -> R {
    let at = b.offset();
    let cat = Category::RecordBatch;
    v.node(&Node {
        depth,
        last,
        name: Name::Plain("RecordBatch"),
        ty: TypeWord::Version(2),
        value: Value::None,
        offset: at,
        size: Some(b.len()),
        about: About::Text("record batch, magic 2"),
        category: cat,
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
        v.node(&Node {
            depth: child,
            last: payload.is_empty() && i.saturating_add(1) == HEADER_FIELDS.len(),
            name: Name::Plain(field.name),
            ty: TypeWord::Wire(field.wire_type),
            value,
            offset: at.saturating_add(field.offset),
            size: Some(field.size),
            about: About::Text(about),
            category: cat,
        })?;
    }
    if payload.is_empty() {
        return Ok(());
    }
    let payload_at = at.saturating_add(HEADER_LEN);
    let compression = b.compression();
    if compression != crate::records::Compression::NONE {
        v.node(&Node {
            depth: child,
            last: true,
            name: Name::Plain("records"),
            ty: TypeWord::Wire("bytes"),
            value: Value::Compressed(compression, payload.len()),
            offset: payload_at,
            size: Some(payload.len()),
            about: About::Text("compressed records"),
            category: Category::Record,
        })?;
        return Ok(());
    }
    // The CRC node above reports a mismatch; the records are shown either way.
    let mut records = b.records_unchecked()?.enumerate().peekable();
    while let Some((i, record)) = records.next() {
        let record = record?;
        let last = records.peek().is_none();
        v.node(&Node {
            depth: child,
            last,
            name: Name::Indexed("Record", i),
            ty: TypeWord::Wire("record"),
            value: Value::Record {
                offset: record.offset(),
                key: record.key().map(<[u8]>::len),
                value: record.value().map(<[u8]>::len),
                headers: record.headers().len(),
            },
            offset: record.position(),
            size: Some(record.as_bytes().len()),
            about: About::None,
            category: Category::Record,
        })?;
    }
    Ok(())
}

fn legacy(m: &LegacyMessage<'_>, v: &mut Out<'_>, depth: usize, last: bool) -> R {
    let at = m.position();
    let cat = Category::RecordBatch;
    v.node(&Node {
        depth,
        last,
        name: Name::Plain("Message"),
        ty: TypeWord::Version(i16::from(m.magic())),
        value: Value::None,
        offset: at,
        size: Some(m.as_bytes().len()),
        about: About::Text("legacy message"),
        category: cat,
    })?;
    let child = depth.saturating_add(1);
    let mut r = Reader::with_offset(m.as_bytes(), at);
    let mut emit = |r: &Reader<'_>,
                    start: usize,
                    name: &'static str,
                    ty: &'static str,
                    value: Value<'_>,
                    last: bool| {
        leaf(
            v,
            r,
            start,
            child,
            last,
            Name::Plain(name),
            TypeWord::Wire(ty),
            value,
            "",
            cat,
        )
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
