//! The dissector's walks: a request or response frame (its size prefix, header and body), or
//! a body alone, through the schema tables' read walk ([`crate::read`]), each node
//! handed to the visitor with its size.

use crate::MessageSchema;
use crate::read::{
    Ctx, Noop, Out, Place, R, Sizes, body_at, body_category, composite, len_note, node_at,
    tagged_section,
};
use crate::tree::{About, Category, DescribeError, Name, Node, TypeWord, Value, Visit};
use kwire::api::ApiKey;
use kwire::codec::Reader;
use kwire::error::{DecodeError, DecodeErrorKind};
use kwire::frame::SIZE_LEN;
use kwire::header::{request_header_version, response_header_version};

/// Composite nodes whose sizes a walk keeps on the stack (2 KiB): a tree with more keeps them
/// in a vector with `alloc`, and is measured node by node without it.
const STACK_SIZES: usize = 256;

/// Walks with `walk` and hands its nodes to `v`, each with its size. Three walks, each linear in
/// the input: one counts the composite nodes, one records their sizes, one visits. Without
/// `alloc` and with more than [`STACK_SIZES`] composite nodes, one walk that measures each
/// composite node before visiting it instead, at a cost of the input's size times its depth.
fn visit_sized(v: &mut dyn Visit, walk: impl Fn(&mut Out<'_>) -> R) -> R {
    let mut noop = Noop;
    let mut count = Out::new(&mut noop);
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
        None => return walk(&mut Out::sized(v, Sizes::Measure)),
    };
    let _ = walk(&mut Out::sized(&mut noop, Sizes::Record(sizes)));
    walk(&mut Out::sized(v, Sizes::Replay(sizes)))
}

/// Reads the size prefix and checks it against the input; returns the frame length.
fn frame_size(frame: &[u8]) -> Result<(i32, Option<usize>), DecodeError> {
    let mut r = Reader::new(frame);
    let size = r.decode_with(|r| r.i32("Frame.size"))?;
    let len = usize::try_from(size)
        .map_err(|_| DecodeError::new(0, DecodeErrorKind::NegativeFrameSize(size), "Frame.size"))?;
    let total = len.saturating_add(SIZE_LEN);
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
    let schema = crate::request(api).ok_or(DescribeError::UnknownApi)?;
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
    let schema = crate::response(api_key).ok_or(DescribeError::UnknownApi)?;
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
/// `sent`, by the rule of [`kwire::frame::decode_response`]: a broker that does not know `sent`
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
        == Some(kwire::ErrorCode::UNSUPPORTED_VERSION.0);
    let (first, second) = if unsupported && sent != 0 {
        (0, sent)
    } else {
        (sent, 0)
    };
    let reads = |version| {
        let mut noop = Noop;
        body_alone(schema, version, body, &mut Out::new(&mut noop)).is_ok()
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
    header_field(
        v,
        Place {
            depth: 2,
            last: false,
            name: Name::Plain("request_api_key"),
            category: c,
        },
        at..r.offset(),
        TypeWord::Wire("int16"),
        Value::ApiKey(key, ApiKey(key).name()),
        "numeric id of the API being invoked",
    )?;
    let at = r.offset();
    let version = r.decode_with(|r| r.i16("RequestHeader.RequestApiVersion"))?;
    header_field(
        v,
        Place {
            depth: 2,
            last: false,
            name: Name::Plain("request_api_version"),
            category: c,
        },
        at..r.offset(),
        TypeWord::Wire("int16"),
        Value::Int(i64::from(version)),
        "version of the API being invoked",
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
        header_field(
            v,
            Place {
                depth: 2,
                last: hv < 2,
                name: Name::Plain("client_id"),
                category: c,
            },
            at..r.offset(),
            TypeWord::Wire("nullable_string"),
            client.map_or(Value::Null(note), |s| Value::Str(s, note)),
            "always a non-flexible int16-prefixed string",
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
    header_field(
        v,
        Place {
            depth: 2,
            last,
            name: Name::Plain("correlation_id"),
            category: Category::Header,
        },
        at..r.offset(),
        TypeWord::Wire("int32"),
        Value::Int(i64::from(id)),
        about,
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
    tagged_section(crate::by_name(name).map(|m| m.root), ctx, r, v, 2, true)
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

/// A field of the frame or a header: its node at `at`, covering the bytes `span`, described by
/// `about`.
fn header_field(
    v: &mut Out<'_>,
    at: Place<'_>,
    span: core::ops::Range<usize>,
    ty: TypeWord<'_>,
    value: Value<'_>,
    about: &'static str,
) -> R {
    let size = span.end.saturating_sub(span.start);
    v.node(&Node {
        about: About::Text(about),
        ..node_at(at, span.start, Some(size), ty, value)
    })?;
    Ok(())
}
