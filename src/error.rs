//! Errors and the framing status.
//!
//! Every error is a small `Copy` value. A [`DecodeError`] names the absolute byte offset in the
//! buffer handed to the outermost call, the [`DecodeErrorKind`] and the schema path of the field
//! being read (for example `"MetadataResponse.Topics.Partitions.LeaderId"`). An [`EncodeError`]
//! names what could not be encoded and, for a short buffer, how many bytes were needed.

use core::fmt;

use crate::wire::{ApiKey, VersionRange};

/// Why decoding failed.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
#[non_exhaustive]
pub enum DecodeErrorKind {
    /// The input ended early: `needed` more bytes were required at the error offset.
    Truncated {
        /// How many more bytes the read needed.
        needed: usize,
    },
    /// An unsigned varint or varint had a continuation bit on its 5th byte, or a varlong on its
    /// 10th byte.
    VarintTooLong,
    /// A length or count was negative where null is not allowed (the value read, after the
    /// compact "minus one" for flexible encodings).
    NegativeLength(i32),
    /// A null value (length -1, compact length 0, or a negative struct marker) was read for a
    /// field that is not nullable at this version.
    UnexpectedNull,
    /// A length is larger than the format allows: a string over Kafka's limit of 32767 bytes,
    /// or a compact length over `i32::MAX`. (A length that merely runs past the end of the input
    /// is [`DecodeErrorKind::Truncated`].)
    LengthTooLarge {
        /// The declared length.
        length: usize,
        /// The largest length allowed.
        limit: usize,
    },
    /// A string was not valid UTF-8, in a decode that checks it (see
    /// [`Reader::checking_utf8`](crate::codec::Reader::checking_utf8)).
    InvalidUtf8,
    /// A tagged field's tag was not strictly greater than the one before it (a duplicate or an
    /// out-of-order tag).
    TagOutOfOrder {
        /// The tag read.
        tag: u32,
        /// The tag read before it.
        previous: u32,
    },
    /// A tag that this struct defines was read at a version where the field is not tagged.
    TagNotInVersion {
        /// The tag read.
        tag: u32,
        /// The version being decoded.
        version: i16,
    },
    /// A known tagged field's value did not consume exactly the size its tag declared.
    TaggedSizeMismatch {
        /// The tag.
        tag: u32,
        /// The size declared in the tagged-field header.
        declared: u32,
        /// The bytes the field's value actually used.
        consumed: usize,
    },
    /// The API key is not one this crate knows, or it has no valid version.
    UnknownApiKey(ApiKey),
    /// The API key is a valid one, but this build leaves its message types out: its cargo
    /// feature (named as the API, such as `Produce`; all of them with `all-apis`) is not enabled.
    ApiNotEnabled(ApiKey),
    /// A request frame is of another API than the one the caller decodes it as
    /// (`frame::decode_request_as`).
    ApiKeyMismatch {
        /// The API key of the type asked for.
        expected: ApiKey,
        /// The API key the request header names.
        found: ApiKey,
    },
    /// The version is outside the message's valid versions.
    UnsupportedVersion {
        /// The API key of the message.
        api_key: ApiKey,
        /// The version asked for.
        version: i16,
    },
    /// Bytes were left over where the whole input had to be consumed.
    TrailingBytes {
        /// How many bytes were left.
        count: usize,
    },
    /// A frame's int32 size prefix was negative.
    NegativeFrameSize(i32),
    /// A frame's size prefix exceeds the limit the caller set.
    FrameTooLarge {
        /// The size the prefix declared.
        size: usize,
        /// The caller's limit.
        limit: usize,
    },
    /// A CRC did not match the bytes it covers.
    CrcMismatch {
        /// The CRC stored in the input.
        stored: u32,
        /// The CRC computed over the input.
        computed: u32,
    },
    /// A record batch or message had a magic byte this crate does not read.
    UnknownMagic(i8),
    /// A record-set entry (a v2 batch or a legacy message) declared a size below the smallest
    /// its format allows.
    EntryTooSmall {
        /// The size declared (bytes after the size field).
        size: i32,
        /// The smallest size the format allows.
        min: i32,
    },
    /// A record (inside a v2 batch) declared a length that its fields did not use exactly.
    RecordSizeMismatch {
        /// The length the record declared.
        declared: i32,
        /// The bytes its fields used.
        consumed: usize,
    },
    /// Records were asked of a compressed batch or wrapper message: decompress its payload first.
    /// The value is the compression codec from the attributes.
    Compressed(u8),
    /// A records field holds only part of its first entry: no batch can be read from it, which
    /// for a fetch means the fetch size is smaller than the batch (Kafka's clients report it so).
    /// A partial entry after complete ones is the normal end of a fetch, not this error
    /// ([`Batches::partial`](crate::records::Batches::partial)).
    IncompleteFirstBatch {
        /// The bytes the field holds.
        available: usize,
        /// How many more the entry needs: all of it when its size field was there to read, else
        /// at least as many as that field needs.
        needed: usize,
    },
    /// A value broke a structural rule of its format (a negative record count, a control record
    /// key that is too short, ...).
    Malformed,
}

/// A decoding failure: where it happened, why, and in which field.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct DecodeError {
    /// Absolute byte offset in the buffer given to the outermost decode call.
    pub offset: usize,
    /// What went wrong.
    pub kind: DecodeErrorKind,
    /// Schema path of the field being read, such as `"FetchRequest.Topics.Partitions.Partition"`.
    pub path: &'static str,
}

impl DecodeError {
    /// Builds an error.
    #[cold]
    #[inline(never)]
    #[must_use]
    pub const fn new(offset: usize, kind: DecodeErrorKind, path: &'static str) -> Self {
        Self { offset, kind, path }
    }

    /// Whether the error is one that bytes of another version, read at this one, make: a
    /// request or response body whose structure did not hold, or that left bytes over.
    fn may_be_another_version(&self) -> bool {
        use DecodeErrorKind as K;
        let structural = matches!(
            self.kind,
            K::Truncated { .. }
                | K::VarintTooLong
                | K::NegativeLength(_)
                | K::UnexpectedNull
                | K::LengthTooLarge { .. }
                | K::InvalidUtf8
                | K::TagOutOfOrder { .. }
                | K::TagNotInVersion { .. }
                | K::TaggedSizeMismatch { .. }
                | K::TrailingBytes { .. }
        );
        let message = self.path.split('.').next().unwrap_or_default();
        let body = message.ends_with("Request") || message.ends_with("Response");
        structural && body
    }
}

/// As a derived `Debug` would print it, but CRCs in hex, as `Display` and the dissector print
/// them.
impl fmt::Debug for DecodeErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Self::Truncated { needed } => f
                .debug_struct("Truncated")
                .field("needed", &needed)
                .finish(),
            Self::VarintTooLong => f.write_str("VarintTooLong"),
            Self::NegativeLength(n) => f.debug_tuple("NegativeLength").field(&n).finish(),
            Self::UnexpectedNull => f.write_str("UnexpectedNull"),
            Self::LengthTooLarge { length, limit } => f
                .debug_struct("LengthTooLarge")
                .field("length", &length)
                .field("limit", &limit)
                .finish(),
            Self::InvalidUtf8 => f.write_str("InvalidUtf8"),
            Self::TagOutOfOrder { tag, previous } => f
                .debug_struct("TagOutOfOrder")
                .field("tag", &tag)
                .field("previous", &previous)
                .finish(),
            Self::TagNotInVersion { tag, version } => f
                .debug_struct("TagNotInVersion")
                .field("tag", &tag)
                .field("version", &version)
                .finish(),
            Self::TaggedSizeMismatch {
                tag,
                declared,
                consumed,
            } => f
                .debug_struct("TaggedSizeMismatch")
                .field("tag", &tag)
                .field("declared", &declared)
                .field("consumed", &consumed)
                .finish(),
            Self::UnknownApiKey(key) => f.debug_tuple("UnknownApiKey").field(&key).finish(),
            Self::ApiNotEnabled(key) => f.debug_tuple("ApiNotEnabled").field(&key).finish(),
            Self::ApiKeyMismatch { expected, found } => f
                .debug_struct("ApiKeyMismatch")
                .field("expected", &expected)
                .field("found", &found)
                .finish(),
            Self::UnsupportedVersion { api_key, version } => f
                .debug_struct("UnsupportedVersion")
                .field("api_key", &api_key)
                .field("version", &version)
                .finish(),
            Self::TrailingBytes { count } => f
                .debug_struct("TrailingBytes")
                .field("count", &count)
                .finish(),
            Self::NegativeFrameSize(n) => f.debug_tuple("NegativeFrameSize").field(&n).finish(),
            Self::FrameTooLarge { size, limit } => f
                .debug_struct("FrameTooLarge")
                .field("size", &size)
                .field("limit", &limit)
                .finish(),
            Self::CrcMismatch { stored, computed } => f
                .debug_struct("CrcMismatch")
                .field("stored", &format_args!("{stored:#010x}"))
                .field("computed", &format_args!("{computed:#010x}"))
                .finish(),
            Self::UnknownMagic(m) => f.debug_tuple("UnknownMagic").field(&m).finish(),
            Self::EntryTooSmall { size, min } => f
                .debug_struct("EntryTooSmall")
                .field("size", &size)
                .field("min", &min)
                .finish(),
            Self::RecordSizeMismatch { declared, consumed } => f
                .debug_struct("RecordSizeMismatch")
                .field("declared", &declared)
                .field("consumed", &consumed)
                .finish(),
            Self::Compressed(c) => f.debug_tuple("Compressed").field(&c).finish(),
            Self::IncompleteFirstBatch { available, needed } => f
                .debug_struct("IncompleteFirstBatch")
                .field("available", &available)
                .field("needed", &needed)
                .finish(),
            Self::Malformed => f.write_str("Malformed"),
        }
    }
}

impl fmt::Display for DecodeErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Self::Truncated { needed } => write!(f, "input truncated ({needed} more bytes needed)"),
            Self::VarintTooLong => f.write_str("varint too long"),
            Self::NegativeLength(n) => write!(f, "negative length {n}"),
            Self::UnexpectedNull => f.write_str("null in a field that is not nullable"),
            Self::LengthTooLarge { length, limit } => {
                write!(f, "length {length} exceeds the limit of {limit}")
            }
            Self::InvalidUtf8 => f.write_str("string is not valid UTF-8"),
            Self::TagOutOfOrder { tag, previous } => {
                write!(f, "tagged field {tag} follows tag {previous}")
            }
            Self::TagNotInVersion { tag, version } => {
                write!(f, "tag {tag} is not valid at version {version}")
            }
            Self::TaggedSizeMismatch {
                tag,
                declared,
                consumed,
            } => write!(
                f,
                "tagged field {tag} declared {declared} bytes but its value used {consumed}"
            ),
            Self::UnknownApiKey(key) => write!(f, "unknown {}", Named(key)),
            Self::ApiNotEnabled(key) => write!(
                f,
                "{} is not compiled in: its cargo feature `{}` is off",
                Named(key),
                key.name().unwrap_or("?")
            ),
            Self::ApiKeyMismatch { expected, found } => write!(
                f,
                "the request is {}, not the {} it is decoded as",
                Named(found),
                Named(expected)
            ),
            Self::UnsupportedVersion { api_key, version } => unsupported(f, api_key, version),
            Self::TrailingBytes { count } => write!(f, "{count} trailing bytes"),
            Self::NegativeFrameSize(n) => write!(f, "negative frame size {n}"),
            Self::FrameTooLarge { size, limit } => {
                write!(f, "frame size {size} exceeds the limit of {limit}")
            }
            Self::CrcMismatch { stored, computed } => {
                write!(
                    f,
                    "CRC mismatch: stored {stored:#010x}, computed {computed:#010x}"
                )
            }
            Self::UnknownMagic(m) => write!(f, "unknown magic byte {m}"),
            Self::EntryTooSmall { size, min } => {
                write!(f, "entry size {size} is below the minimum of {min}")
            }
            Self::RecordSizeMismatch { declared, consumed } => write!(
                f,
                "record declared {declared} bytes but its fields used {consumed}"
            ),
            Self::Compressed(codec) => {
                write!(
                    f,
                    "payload is compressed (codec {codec}); decompress it first"
                )
            }
            Self::IncompleteFirstBatch { available, needed } => write!(
                f,
                "the records hold only {available} bytes of their first batch, {needed} more \
                 needed: the fetch size is smaller than the batch"
            ),
            Self::Malformed => f.write_str("malformed input"),
        }
    }
}

/// `PATH at byte OFFSET: KIND`, and for a body that did not decode, a hint that the version may
/// be the wrong one.
///
/// ```
/// use kwire::frame;
/// use kwire::messages::{MetadataResponse, ResponseHeader};
///
/// let mut buf = [0u8; 64];
/// let header = ResponseHeader::default().with_correlation_id(1);
/// let n = frame::encode_response(&header, &MetadataResponse::default(), 12, &mut buf)?;
/// let err = frame::decode_response_as::<MetadataResponse<'_>>(&buf[..n], 8).unwrap_err();
/// assert!(err.to_string().ends_with("(were the bytes written at another version than the one they were read at?)"));
/// # Ok::<(), kwire::EncodeError>(())
/// ```
impl fmt::Display for DecodeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} at byte {}: {}", self.path, self.offset, self.kind)?;
        if self.may_be_another_version() {
            f.write_str(
                " (were the bytes written at another version than the one they were read at?)",
            )?;
        }
        Ok(())
    }
}

impl core::error::Error for DecodeError {}

/// Why encoding failed. What an encode call wrote before it returned one of these is unspecified.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
#[non_exhaustive]
pub enum EncodeError {
    /// The output buffer is shorter than the encoding.
    BufferTooSmall {
        /// Bytes the encoding needs.
        required: usize,
        /// Bytes the caller's buffer has.
        available: usize,
    },
    /// The version is outside the message's valid versions.
    UnsupportedVersion {
        /// The API key of the message.
        api_key: ApiKey,
        /// The version asked for.
        version: i16,
    },
    /// A field holds a value other than its default at a version that has no such field: the
    /// value would be lost, so the encode refuses it.
    FieldNotInVersion {
        /// Schema path of the field.
        path: &'static str,
        /// The version being encoded.
        version: i16,
        /// The versions that have the field.
        versions: VersionRange,
        /// Whether Kafka's schema marks the field *ignorable*: its value is a hint the receiver
        /// can do without, which [`Encode::encode_lenient`](crate::codec::Encode::encode_lenient)
        /// and the lenient frame encoders leave out instead of failing.
        ignorable: bool,
    },
    /// A topic's name (or id) is set, at a version that names topics only by id (or only by
    /// name), and the field that does is not set: Produce and Fetch name topics by id from
    /// version 13, OffsetCommit from 10. Set both, and an encode writes the one its version
    /// carries. Leaving the value out would send a request for no topic, so no encode does,
    /// the lenient ones included.
    TopicNamedBy {
        /// Schema path of the field that is set, such as `"ProduceRequest.TopicData.Name"`.
        path: &'static str,
        /// The version being encoded.
        version: i16,
        /// The versions that have the field.
        versions: VersionRange,
        /// Schema path of the field that names the topic at `version`, such as
        /// `"ProduceRequest.TopicData.TopicId"`.
        by: &'static str,
    },
    /// A null value is held by a field that is not nullable at this version.
    NullNotAllowed {
        /// Schema path of the field.
        path: &'static str,
        /// The version being encoded.
        version: i16,
    },
    /// A string is longer than 32767 bytes, or bytes, an array or a frame is longer than an int32
    /// length can say.
    LengthOverflow {
        /// Schema path of the field.
        path: &'static str,
        /// The length that does not fit.
        length: usize,
    },
    /// Tagged fields (known or unknown) are set but the version is not flexible.
    TaggedFieldsNotInVersion {
        /// Schema path of the struct.
        path: &'static str,
        /// The version being encoded.
        version: i16,
    },
    /// Caller-supplied unknown tagged fields are not in strictly increasing tag order, or one
    /// uses a tag that the struct defines.
    InvalidUnknownTag {
        /// Schema path of the struct.
        path: &'static str,
        /// The offending tag.
        tag: u32,
    },
    /// The request or response enum variant does not match the API key it is encoded for.
    ApiKeyMismatch {
        /// The API key asked for.
        expected: ApiKey,
        /// The API key of the value.
        found: ApiKey,
    },
    /// A `records` field written in place (`Records::in_place`, with the `in-place` feature) did
    /// not write what its source announced: `WriteRecords::write` failed, or wrote another length
    /// than `WriteRecords::encoded_len` gave. The frame would not be what its sizes say, so no
    /// encode returns it.
    RecordsMiswritten,
}

impl fmt::Display for EncodeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Self::BufferTooSmall {
                required,
                available,
            } => write!(
                f,
                "buffer too small: {required} bytes required, {available} available"
            ),
            Self::UnsupportedVersion { api_key, version } => unsupported(f, api_key, version),
            Self::FieldNotInVersion {
                path,
                version,
                versions,
                ignorable,
            } => {
                write!(
                    f,
                    "{path} holds a value that version {version} cannot carry: "
                )?;
                if versions.is_empty() {
                    f.write_str("no version has the field")?;
                } else {
                    write!(f, "the field is in versions {versions} only")?;
                }
                if ignorable {
                    f.write_str(
                        " (it is ignorable: a lenient encode leaves it out instead of failing)",
                    )?;
                }
                Ok(())
            }
            Self::TopicNamedBy {
                path,
                version,
                versions,
                by,
            } => {
                let field = by.rsplit('.').next().unwrap_or(by);
                write!(
                    f,
                    "{path} holds a value that version {version} cannot carry (the field is in \
                     versions {versions} only): at version {version} the topic is named by \
                     `{field}` ({by}), which is not set; set both, and the encode writes the \
                     one its version carries"
                )
            }
            Self::NullNotAllowed { path, version } => {
                write!(f, "{path} is null but not nullable at version {version}")
            }
            Self::LengthOverflow { path, length } => {
                write!(f, "{path} is too long for its length prefix ({length})")
            }
            Self::TaggedFieldsNotInVersion { path, version } => write!(
                f,
                "{path} has tagged fields but version {version} is not flexible"
            ),
            Self::InvalidUnknownTag { path, tag } => {
                write!(f, "{path}: unknown tag {tag} is out of order or reserved")
            }
            Self::ApiKeyMismatch { expected, found } => write!(
                f,
                "the header names {} but the body is {}",
                Named(expected),
                Named(found)
            ),
            Self::RecordsMiswritten => {
                f.write_str("a records field's source wrote other than the length it announced")
            }
        }
    }
}

impl core::error::Error for EncodeError {}

/// An API key as messages name it: `Fetch (1)`, or `API key 1000` for a key Kafka has not
/// assigned.
struct Named(ApiKey);

impl fmt::Display for Named {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0.name() {
            Some(name) => write!(f, "{name} ({})", self.0.0),
            None => write!(f, "API key {}", self.0.0),
        }
    }
}

/// `Fetch (1) has no version 99 (versions 0-18)`; in a build that kept Fetch 18 alone, `Fetch (1)
/// has no version 12 in this build (versions 18 of 0-18)`.
fn unsupported(f: &mut fmt::Formatter<'_>, api_key: ApiKey, version: i16) -> fmt::Result {
    write!(f, "{} has no version {version}", Named(api_key))?;
    let (versions, built) = (api_key.request_versions(), api_key.built_versions());
    if versions.is_empty() {
        Ok(())
    } else if built == versions {
        write!(f, " (versions {versions})")
    } else {
        write!(f, " in this build (versions {built} of {versions})")
    }
}

/// The result of looking for a complete frame in a partly filled buffer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum Status<T> {
    /// A complete item was found.
    Complete(T),
    /// More input is needed: at least `needed` more bytes.
    Incomplete {
        /// The minimum number of further bytes before progress is possible.
        needed: usize,
    },
}

impl<T> Status<T> {
    /// Returns the complete value, if any.
    pub fn complete(self) -> Option<T> {
        match self {
            Self::Complete(t) => Some(t),
            Self::Incomplete { .. } => None,
        }
    }

    /// True when more input is needed.
    pub const fn is_incomplete(&self) -> bool {
        matches!(self, Self::Incomplete { .. })
    }
}
