//! The object tree a dissection produces: its [`Node`]s, what they hold, and the [`Visit`]or
//! that receives them. Shown to users as [`crate::describe`]; the schema
//! walker's validation walks the same tree without visiting it.

use core::fmt;

use kwire::codec::Str;
use kwire::error::DecodeError;

/// What part of a frame a node belongs to (for colouring or filtering).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Category {
    /// The frame and its size prefix.
    Frame,
    /// The request or response header.
    Header,
    /// The body of a request.
    RequestBody,
    /// The body of a response.
    ResponseBody,
    /// A record batch or legacy message and its header fields.
    RecordBatch,
    /// A record inside a batch.
    Record,
    /// A tagged-field section or entry.
    Tagged,
}

/// A node's name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Name<'a> {
    /// A plain name.
    Plain(&'a str),
    /// An element of an array: `Name[index]`.
    Indexed(&'a str, usize),
    /// A tagged entry whose tag this schema does not define.
    UnknownTag(u32),
}

impl fmt::Display for Name<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Self::Plain(s) => f.write_str(s),
            Self::Indexed(s, i) => write!(f, "{s}[{i}]"),
            Self::UnknownTag(t) => write!(f, "unknown_tag_{t}"),
        }
    }
}

/// A node's type word.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TypeWord<'a> {
    /// No type (grouping nodes such as `Frame`).
    None,
    /// A wire type such as `int32`, `uvarint` or `nullable_string`.
    Wire(&'a str),
    /// An array: `[]Element`.
    Array(&'a str),
    /// The root of a frame: `message vN`.
    Message(i16),
    /// A header or batch format version: `vN`.
    Version(i16),
    /// A struct.
    Struct,
    /// A struct-typed field or array element: its type name.
    Named(&'a str),
}

impl fmt::Display for TypeWord<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Self::None => Ok(()),
            Self::Wire(s) | Self::Named(s) => f.write_str(s),
            Self::Array(s) => write!(f, "[]{s}"),
            Self::Message(v) => write!(f, "message v{v}"),
            Self::Version(v) => write!(f, "v{v}"),
            Self::Struct => f.write_str("struct"),
        }
    }
}

/// How a length or count was encoded, for the note after a value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LenNote {
    /// A classic `int16` length (strings).
    Int16(i32),
    /// A classic `int32` length (bytes, records, arrays).
    Int32(i32),
    /// A compact unsigned varint holding length + 1 (0 = null).
    Compact(u32),
}

impl fmt::Display for LenNote {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Self::Int16(n) => write!(f, "(int16 len={n})"),
            Self::Int32(n) => write!(f, "(int32 len={n})"),
            Self::Compact(n) => write!(f, "(compact, len+1={n})"),
        }
    }
}

/// How many bytes of a string or bytes value a node shows before eliding the rest.
pub const PREVIEW: usize = 32;

/// A node's value.
#[derive(Debug, Clone, Copy, PartialEq)]
#[non_exhaustive]
pub enum Value<'a> {
    /// No value shown.
    None,
    /// A signed integer.
    Int(i64),
    /// An unsigned integer.
    Uint(u64),
    /// An API key with its name.
    ApiKey(i16, Option<&'static str>),
    /// A value of an enumeration (an error code, acks, a resource type, ...) with its name.
    Named(i64, &'static str),
    /// A boolean.
    Bool(bool),
    /// A float.
    Float(f64),
    /// A UUID, shown in Kafka's base64 form.
    Uuid(kwire::codec::Uuid),
    /// A string (whose bytes need not be UTF-8) and how its length was encoded.
    Str(Str<'a>, LenNote),
    /// Bytes and how their length was encoded.
    Bytes(&'a [u8], LenNote),
    /// Bytes that carry credentials (a SaslAuthenticate message: a PLAIN password, a SCRAM proof,
    /// an OAUTHBEARER token), displayed as their length and the step of the mechanism they are,
    /// never as their content: [`Value::revealed`] (`--show-secrets`) makes them plain bytes.
    Secret {
        /// The bytes.
        bytes: &'a [u8],
        /// The mechanism's step (`"SCRAM client-final"`), or `"auth bytes"`.
        step: &'static str,
        /// How the length was encoded.
        note: LenNote,
    },
    /// Null, and how it was encoded.
    Null(LenNote),
    /// The element count of an array.
    Elements(usize),
    /// A null struct or array.
    Absent,
    /// A struct.
    Struct,
    /// A compact count (n + 1).
    CompactCount(u32),
    /// A compact length (len + 1).
    CompactLen(u32),
    /// A nullable struct's presence marker.
    Marker(i8),
    /// A CRC and whether it matches the bytes it covers.
    Crc {
        /// The stored CRC.
        stored: u32,
        /// The CRC computed over the bytes.
        computed: u32,
    },
    /// Record-batch attributes.
    BatchAttributes(kwire::records::Attributes),
    /// A record set: its length in bytes and how many whole entries it holds.
    Records {
        /// Bytes.
        len: usize,
        /// Whole entries (batches or legacy messages).
        entries: usize,
        /// How the length was encoded.
        note: LenNote,
    },
    /// A record, summarised.
    Record {
        /// Its offset.
        offset: i64,
        /// Key length, `None` for null.
        key: Option<usize>,
        /// Value length, `None` for null.
        value: Option<usize>,
        /// Header count.
        headers: usize,
    },
    /// A compressed payload.
    Compressed(kwire::records::Compression, usize),
    /// Bytes left at the end of a records field that do not hold a whole entry.
    Tail(usize),
}

/// Writes a string as a quoted, escaped preview of at most [`PREVIEW`] characters, each byte
/// that is not part of a UTF-8 sequence shown as `\xNN`.
fn write_quoted(f: &mut fmt::Formatter<'_>, s: Str<'_>) -> fmt::Result {
    let mut shown = 0usize;
    let mut room = |f: &mut fmt::Formatter<'_>| {
        let full = shown >= PREVIEW;
        shown = shown.saturating_add(1);
        if full {
            f.write_str("\"...").map(|()| false)
        } else {
            Ok(true)
        }
    };
    f.write_str("\"")?;
    for chunk in s.as_bytes().utf8_chunks() {
        for c in chunk.valid().chars() {
            if !room(f)? {
                return Ok(());
            }
            write!(f, "{}", c.escape_debug())?;
        }
        for b in chunk.invalid() {
            if !room(f)? {
                return Ok(());
            }
            write!(f, "\\x{b:02x}")?;
        }
    }
    f.write_str("\"")
}

fn write_hex_preview(f: &mut fmt::Formatter<'_>, b: &[u8]) -> fmt::Result {
    f.write_str("0x")?;
    for x in b.iter().take(PREVIEW) {
        write!(f, "{x:02x}")?;
    }
    if b.len() > PREVIEW {
        f.write_str("...")?;
    }
    Ok(())
}

impl<'a> Value<'a> {
    /// The integer of an integer value, named or not (an error code, an API key, ...).
    #[must_use]
    pub fn int(&self) -> Option<i64> {
        match *self {
            Self::Int(v) | Self::Named(v, _) => Some(v),
            Self::ApiKey(k, _) => Some(i64::from(k)),
            _ => None,
        }
    }

    /// The value with its secret shown: a [`Value::Secret`] as the bytes it is, any other
    /// value as it is.
    #[must_use]
    pub fn revealed(self) -> Self {
        match self {
            Self::Secret { bytes, note, .. } => Self::Bytes(bytes, note),
            v => v,
        }
    }
}

impl fmt::Display for Value<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Self::None => Ok(()),
            Self::Int(v) => write!(f, "= {v}"),
            Self::Uint(v) => write!(f, "= {v}"),
            Self::ApiKey(k, Some(name)) => write!(f, "= {k} ({name})"),
            Self::ApiKey(k, None) => write!(f, "= {k} (unknown API)"),
            Self::Named(v, name) => write!(f, "= {v} ({name})"),
            Self::Bool(b) => write!(f, "= {b}"),
            Self::Float(v) => write!(f, "= {v:?}"),
            // Kafka's form, as its tools and logs print topic ids.
            Self::Uuid(u) => write!(f, "= {u}"),
            Self::Str(s, note) => {
                f.write_str("= ")?;
                write_quoted(f, s)?;
                write!(f, " {note}")
            }
            Self::Bytes([], note) => write!(f, "= empty {note}"),
            Self::Bytes(b, note) => {
                f.write_str("= ")?;
                write_hex_preview(f, b)?;
                write!(f, " {note}")
            }
            Self::Secret { bytes, step, note } => {
                write!(f, "= <{step}, {} bytes, not shown> {note}", bytes.len())
            }
            Self::Null(note) => write!(f, "= null {note}"),
            Self::Absent => f.write_str("= null"),
            Self::Elements(1) => f.write_str("= 1 element"),
            Self::Elements(n) => write!(f, "= {n} elements"),
            Self::Struct => f.write_str("= struct"),
            Self::CompactCount(n) => write!(f, "= {n} (compact, n+1)"),
            Self::CompactLen(n) => write!(f, "= {n} (compact, len+1)"),
            Self::Marker(m) if m < 0 => write!(f, "= {m} (null)"),
            Self::Marker(m) => write!(f, "= {m} (present)"),
            Self::Crc { stored, computed } if stored == computed => {
                write!(f, "= {stored:#010x} (valid)")
            }
            Self::Crc { stored, computed } => {
                write!(f, "= {stored:#010x} (MISMATCH, computed {computed:#010x})")
            }
            Self::BatchAttributes(a) => {
                let codec = a.compression();
                write!(f, "= {} (", a.0)?;
                match codec.name() {
                    Some(n) => f.write_str(n)?,
                    None => write!(f, "codec {}", codec.0)?,
                }
                match a.timestamp_type() {
                    kwire::records::TimestampType::CreateTime => f.write_str(", CreateTime")?,
                    kwire::records::TimestampType::LogAppendTime => {
                        f.write_str(", LogAppendTime")?;
                    }
                }
                if a.is_transactional() {
                    f.write_str(", transactional")?;
                }
                if a.is_control() {
                    f.write_str(", control")?;
                }
                if a.has_delete_horizon() {
                    f.write_str(", delete horizon")?;
                }
                f.write_str(")")
            }
            Self::Records { len, entries, note } => {
                let s = if entries == 1 { "" } else { "es" };
                write!(f, "= {len} bytes, {entries} batch{s} {note}")
            }
            Self::Record {
                offset,
                key,
                value,
                headers,
            } => {
                write!(f, "= offset {offset}, key ")?;
                match key {
                    Some(n) => write!(f, "{n}B")?,
                    None => f.write_str("null")?,
                }
                f.write_str(", value ")?;
                match value {
                    Some(n) => write!(f, "{n}B")?,
                    None => f.write_str("null")?,
                }
                write!(f, ", {headers} headers")
            }
            Self::Compressed(c, n) => match c.name() {
                Some(name) => write!(f, "= {n} bytes, {name}-compressed"),
                None => write!(f, "= {n} bytes, codec {}", c.0),
            },
            Self::Tail(n) => write!(f, "= {n} bytes (a partial entry, skipped)"),
        }
    }
}

/// One node of the object tree.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Node<'a> {
    /// Depth: 0 for the root.
    pub depth: usize,
    /// Whether no sibling follows this node.
    pub last: bool,
    /// The name.
    pub name: Name<'a>,
    /// The type word.
    pub ty: TypeWord<'a>,
    /// The value.
    pub value: Value<'a>,
    /// Offset of the node's first byte, from the start of the input.
    pub offset: usize,
    /// Bytes the node covers; `None` when the input ends or breaks inside it.
    pub size: Option<usize>,
    /// A short description (framing, headers and record-batch fields only).
    pub about: About,
    /// What the node belongs to.
    pub category: Category,
}

/// A node's description.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum About {
    /// None.
    None,
    /// A fixed text.
    Text(&'static str),
    /// The body of a message at a version.
    Body(i16),
}

impl About {
    /// True when there is nothing to show.
    #[must_use]
    pub const fn is_none(&self) -> bool {
        matches!(self, Self::None)
    }
}

impl fmt::Display for About {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Self::None => Ok(()),
            Self::Text(s) => f.write_str(s),
            Self::Body(v) => write!(f, "message body, version {v}"),
        }
    }
}

/// Receives the nodes of a tree, in order (a node before its children).
pub trait Visit {
    /// Called for each node.
    ///
    /// # Errors
    ///
    /// A formatting error stops the walk.
    fn node(&mut self, node: &Node<'_>) -> fmt::Result;
}

/// Why describing failed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DescribeError {
    /// The input is malformed; the tree up to this point has been produced.
    Decode(DecodeError),
    /// The output refused a write.
    Fmt,
    /// The API or version has no schema (or no such version).
    UnknownApi,
    /// A scratch buffer was too small for the frame to describe.
    ScratchTooSmall {
        /// Bytes needed.
        needed: usize,
    },
}

impl From<DecodeError> for DescribeError {
    fn from(e: DecodeError) -> Self {
        Self::Decode(e)
    }
}

impl From<fmt::Error> for DescribeError {
    fn from(_: fmt::Error) -> Self {
        Self::Fmt
    }
}

impl fmt::Display for DescribeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Decode(e) => fmt::Display::fmt(e, f),
            Self::Fmt => f.write_str("the output refused a write"),
            Self::UnknownApi => f.write_str("no schema for this API and version"),
            Self::ScratchTooSmall { needed } => {
                write!(f, "scratch buffer too small ({needed} bytes needed)")
            }
        }
    }
}

impl core::error::Error for DescribeError {}
