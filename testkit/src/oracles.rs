//! Round-trip oracles shared by the fuzz targets in `fuzz/` and by `tests/integration/corpus_replay.rs`, so
//! that the fuzz targets stay one-line wrappers and plain `cargo test` replays the fuzz corpus
//! through exactly the same checks.
//!
//! Every oracle takes arbitrary input and a scratch buffer lent by the caller (nothing is
//! allocated; [`scratch_len`] says how much to lend, [`structured_scratch_len`] for
//! [`structured`]), and returns
//!
//! * `Ok(`[`Outcome`]`)` when every invariant held — including when the input was rejected with
//!   a typed error, which is what most random input should get;
//! * `Err(`[`OracleFailure`]`)` when an invariant did not hold. That is always a bug in the crate:
//!   the fuzz target panics on it.
//!
//! # What is checked
//!
//! For the body and frame oracles, once the input decodes to a value `v`:
//!
//! 1. `encoded_len(v)` succeeds (a value that decoded at a version can be encoded at it);
//! 2. `encode(v)` writes exactly `encoded_len(v)` bytes `e`;
//! 3. `e` decodes, consuming all of it, to a value equal to `v`;
//! 4. encoding into a buffer one byte too short fails with `BufferTooSmall`, with the length;
//! 5. re-encoding the second value reproduces `e` byte for byte:
//!    `encode(decode(encode(decode(x)))) == encode(decode(x))`.
//!
//! The re-encoding is not required to equal the input: the decoder accepts what Kafka's Java
//! reader accepts (non-minimal varints, any negative length as null, any non-zero `bool`, default
//! tagged fields written out) and encoding is always canonical. [`Outcome::RoundTrip`] reports
//! whether it did (`canonical`), so that known-canonical inputs can be held to it.
//!
//! Every decode error must name an offset inside the input it was given.
//!
//! Two oracles are differential as well: [`structured`] holds the schema walker
//! ([`kwire_schema::walker`]), a second implementation of the wire format, and the typed
//! decoders to the same verdict on walker instances and their mutations, and `dissector`
//! (feature `describe`) does the same for the dissector and the typed frame decoders.

use core::fmt;

use kwire::api::{API_TABLE, ApiKey, Request, Response};
use kwire::codec::{
    Decode, Encode, Failed, LengthPrefix, RawTaggedField, Reader, Str, TaggedFields, TaggedSection,
    Writer, bytes_len, len_prefix, nullable_bytes_len, nullable_string_len, string_len,
    tagged_entry_len, uvarint_len, varint_len, varlong_len,
};
use kwire::control::ControlPayload;
use kwire::error::{DecodeError, DecodeErrorKind, EncodeError, Status};
use kwire::frame::{self, SIZE_LEN};
use kwire::header::{request_header_version, response_header_version};
use kwire::messages::{RequestHeader, ResponseHeader};
use kwire::records::crc::{crc32, crc32c};
use kwire::records::{
    Batch, BatchBuilder, CRC_START, Compression, ControlRecord, ControlRecordType, HEADER_LEN,
    InnerMessages, InnerSet, LOG_OVERHEAD, LegacyBuilder, LegacyMagic, LegacyMessage, MAGIC_OFFSET,
    MIN_BATCH_LENGTH, MIN_MESSAGE_SIZE_V0, MIN_MESSAGE_SIZE_V1, NewHeader, NewRecord, Record,
    RecordBatch, Records, TimestampType,
};
use kwire_schema::describe::{self, DescribeError, Node, Value, Visit};
use kwire_schema::{self as schema, MessageSchema, walker};

/// What an oracle did with an input on which every invariant held.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    /// The input did not decode; the error was well formed.
    Rejected,
    /// The input decoded, but the scratch buffer was too small for the round trip.
    Skipped,
    /// The input decoded and the round trip held. `canonical` is true when the first encoding
    /// reproduced the consumed input byte for byte.
    RoundTrip {
        /// The first encoding equals the consumed input.
        canonical: bool,
    },
    /// An oracle without a round trip (the stream splitter, the primitives) checked the input.
    Checked {
        /// How many items (frames, primitive values) were checked.
        items: usize,
    },
}

/// A violated invariant: a bug in the crate.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum OracleFailure {
    /// Encoding a value that had decoded failed.
    Encode {
        /// Which check.
        stage: &'static str,
        /// The error.
        error: EncodeError,
    },
    /// Bytes the crate encoded did not decode.
    Redecode {
        /// Which check.
        stage: &'static str,
        /// The error.
        error: DecodeError,
    },
    /// A decode error named an offset outside its input.
    ErrorOffset {
        /// Which check.
        stage: &'static str,
        /// The error.
        error: DecodeError,
        /// The input length.
        input_len: usize,
    },
    /// Two lengths that must agree did not.
    Length {
        /// Which check.
        stage: &'static str,
        /// The length that was expected.
        expected: usize,
        /// The length found.
        actual: usize,
    },
    /// A decoded value differed from the value that was encoded.
    Value {
        /// Which check.
        stage: &'static str,
    },
    /// Two encodings that must be identical differed.
    Bytes {
        /// Which check.
        stage: &'static str,
        /// The first differing byte.
        offset: usize,
    },
    /// Two independent readings of the same bytes disagreed.
    Disagree {
        /// Which check.
        stage: &'static str,
        /// The first reading: the bytes it consumed, or its error.
        first: Result<usize, DecodeError>,
        /// The second reading.
        second: Result<usize, DecodeError>,
    },
    /// Another invariant did not hold.
    Invariant {
        /// Which one.
        stage: &'static str,
    },
}

impl fmt::Display for OracleFailure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Self::Encode { stage, error } => write!(f, "{stage}: encoding failed: {error}"),
            Self::Redecode { stage, error } => {
                write!(f, "{stage}: our own encoding did not decode: {error}")
            }
            Self::ErrorOffset {
                stage,
                error,
                input_len,
            } => write!(
                f,
                "{stage}: error offset outside the {input_len}-byte input: {error}"
            ),
            Self::Length {
                stage,
                expected,
                actual,
            } => write!(f, "{stage}: expected {expected} bytes, found {actual}"),
            Self::Value { stage } => write!(f, "{stage}: the decoded value differs"),
            Self::Bytes { stage, offset } => {
                write!(f, "{stage}: the encodings differ at byte {offset}")
            }
            Self::Disagree {
                stage,
                first,
                second,
            } => write!(f, "{stage}: {first:?} against {second:?}"),
            Self::Invariant { stage } => write!(f, "{stage}: invariant violated"),
        }
    }
}

impl core::error::Error for OracleFailure {}

/// The scratch buffer every oracle in this module needs for an input of `input_len` bytes (an
/// oracle given less skips the checks it has no room for).
#[must_use]
pub const fn scratch_len(input_len: usize) -> usize {
    input_len.saturating_mul(2).saturating_add(64)
}

/// An oracle: arbitrary input and a lent scratch buffer, the verdict.
pub type Oracle = fn(&[u8], &mut [u8]) -> Result<Outcome, OracleFailure>;

/// One fuzz target: what `fuzz/fuzz_targets/<name>.rs` runs, and how the tests replay its corpus.
#[derive(Debug, Clone, Copy)]
pub struct Target {
    /// The target's name (its file in `fuzz/fuzz_targets/` and its corpus directory).
    pub name: &'static str,
    /// The oracle it wraps.
    pub oracle: Oracle,
    /// The scratch buffer to lend for an input of a given length.
    pub scratch_len: fn(usize) -> usize,
    /// Whether hand-made `seed-` files must round-trip to exactly their own bytes.
    pub canonical_seeds: bool,
}

const fn target(name: &'static str, oracle: Oracle, canonical_seeds: bool) -> Target {
    Target {
        name,
        oracle,
        scratch_len,
        canonical_seeds,
    }
}

/// Every fuzz target, with its oracle.
pub const TARGETS: &[Target] = &[
    target("request_body", request_body, true),
    target("response_body", response_body, true),
    target("request_frame", request_frame, true),
    target("response_frame", response_frame, true),
    target("primitives", primitives, false),
    target("split", split, false),
    target("record_batch", record_batch, true),
    target("legacy_message_set", legacy_message_set, false),
    Target {
        scratch_len: |_| structured_scratch_len(),
        ..target("structured", structured, true)
    },
    target("dissector", dissector, false),
    target("session", session, false),
    target("sasl", sasl, false),
];

/// A request body: API key (`int16`) and version (`int16`) in the first four bytes, then the
/// body, decoded with [`Request::decode`].
///
/// # Errors
///
/// The first invariant that did not hold.
pub fn request_body(data: &[u8], scratch: &mut [u8]) -> Result<Outcome, OracleFailure> {
    let Some((key, version, body)) = key_and_version(data) else {
        return Ok(Outcome::Rejected);
    };
    round_trip(&RequestBody { key, version }, body, scratch)
}

/// A response body: API key (`int16`) and version (`int16`) in the first four bytes, then the
/// body, decoded with [`Response::decode`].
///
/// # Errors
///
/// The first invariant that did not hold.
pub fn response_body(data: &[u8], scratch: &mut [u8]) -> Result<Outcome, OracleFailure> {
    let Some((key, version, body)) = key_and_version(data) else {
        return Ok(Outcome::Rejected);
    };
    round_trip(&ResponseBody { key, version }, body, scratch)
}

/// A whole request frame (size prefix, header, body), decoded with [`frame::decode_request`]
/// and encoded with [`frame::encode_request`].
///
/// # Errors
///
/// The first invariant that did not hold.
pub fn request_frame(data: &[u8], scratch: &mut [u8]) -> Result<Outcome, OracleFailure> {
    round_trip(&RequestFrame, data, scratch)
}

/// A whole response frame: API key (`int16`) and version (`int16`) in the first four bytes, as in
/// [`response_body`], then the frame (size prefix, response header, body), decoded with
/// [`frame::decode_response`] and encoded with [`frame::encode_response`] at the version whose
/// layout the body was read in (an ApiVersions reply may be in the v0 layout a broker falls back
/// to, whatever the version). The expected encoded length is computed independently of the frame
/// encoder: the prefix, the header at the response header version of the key and version, and
/// the body.
///
/// # Errors
///
/// The first invariant that did not hold.
pub fn response_frame(data: &[u8], scratch: &mut [u8]) -> Result<Outcome, OracleFailure> {
    let Some((key, version, frame)) = key_and_version(data) else {
        return Ok(Outcome::Rejected);
    };
    round_trip(&ResponseFrame { key, version }, frame, scratch)
}

/// The stream splitter [`frame::split`]: the first two bytes are the size limit (`uint16`), the
/// rest is a stream buffer, split into frames until it runs out or fails.
///
/// # Errors
///
/// The first invariant that did not hold.
pub fn split(data: &[u8], scratch: &mut [u8]) -> Result<Outcome, OracleFailure> {
    let Some((limit, mut stream)) = data.split_first_chunk::<2>() else {
        return Ok(Outcome::Rejected);
    };
    let max = usize::from(u16::from_be_bytes(*limit));
    let mut items = 0usize;
    loop {
        let announced = announced_size(stream);
        match frame::split(stream, max) {
            Ok(Status::Complete(found)) => {
                let size = announced.ok_or(OracleFailure::Invariant {
                    stage: "split: complete without a size prefix",
                })?;
                let size = usize::try_from(size).map_err(|_| OracleFailure::Invariant {
                    stage: "split: complete with a negative size",
                })?;
                ensure(size <= max, "split: complete over the limit")?;
                expect_len(
                    "split: frame length",
                    size.saturating_add(SIZE_LEN),
                    found.len(),
                )?;
                ensure(
                    core::ptr::eq(found.as_ptr(), stream.as_ptr()),
                    "split: frame is not at the start of the buffer",
                )?;
                stream = stream.get(found.len()..).ok_or(OracleFailure::Invariant {
                    stage: "split: frame longer than the buffer",
                })?;
                items = items.saturating_add(1);
            }
            Ok(Status::Incomplete { needed }) => {
                ensure(needed > 0, "split: nothing needed")?;
                match announced {
                    None => expect_len(
                        "split: prefix needed",
                        SIZE_LEN.saturating_sub(stream.len()),
                        needed,
                    )?,
                    Some(size) => {
                        let size = usize::try_from(size).map_err(|_| OracleFailure::Invariant {
                            stage: "split: incomplete with a negative size",
                        })?;
                        ensure(size <= max, "split: incomplete over the limit")?;
                        let total = size.saturating_add(SIZE_LEN);
                        expect_len(
                            "split: bytes needed",
                            total.saturating_sub(stream.len()),
                            needed,
                        )?;
                        // Giving it what it asked for completes the frame.
                        if let Some(buf) = scratch.get_mut(..total) {
                            buf.fill(0);
                            for (dst, src) in buf.iter_mut().zip(stream) {
                                *dst = *src;
                            }
                            match frame::split(buf, max) {
                                Ok(Status::Complete(f)) => {
                                    expect_len("split: completed frame", total, f.len())?
                                }
                                _ => {
                                    return Err(OracleFailure::Invariant {
                                        stage: "split: needed bytes did not complete",
                                    });
                                }
                            }
                        }
                    }
                }
                break;
            }
            Err(error) => {
                ensure(error.offset == 0, "split: error not at the size prefix")?;
                let expected = match announced {
                    Some(size) if size < 0 => DecodeErrorKind::NegativeFrameSize(size),
                    Some(size) => DecodeErrorKind::FrameTooLarge {
                        size: usize::try_from(size).unwrap_or(usize::MAX),
                        limit: max,
                    },
                    None => {
                        return Err(OracleFailure::Invariant {
                            stage: "split: error without a size prefix",
                        });
                    }
                };
                ensure(error.kind == expected, "split: wrong error kind")?;
                break;
            }
        }
    }
    Ok(Outcome::Checked { items })
}

/// The wire primitives through [`Reader`] and [`Writer`]: the input is a sequence of
/// operations, each an opcode byte and the encoding it names. Each value is read, written back,
/// read again and compared, and the size functions are checked against the bytes written.
///
/// Opcode: low four bits select the primitive (modulo 10: unsigned varint, varint, varlong,
/// string, nullable string, bytes, nullable bytes, array length, nullable array length, tagged
/// section); bit 4 selects the compact (flexible) form; the top three bits are the number of
/// known tags of a tagged section. The sequence stops at the first read error.
///
/// # Errors
///
/// The first invariant that did not hold.
pub fn primitives(data: &[u8], scratch: &mut [u8]) -> Result<Outcome, OracleFailure> {
    let mut r = Reader::new(data);
    let mut items = 0usize;
    while let Ok(op) = r.u8("op") {
        let step = match primitive(op, &mut r, scratch) {
            Ok(step) => step,
            Err(Stop::Read(error)) => {
                check_offset("primitives", &error, data.len())?;
                break;
            }
            Err(Stop::Fail(failure)) => return Err(failure),
        };
        if step == Step::Skipped {
            break;
        }
        items = items.saturating_add(1);
    }
    Ok(Outcome::Checked { items })
}

// ---------------------------------------------------------------------------------------------
// Round trips of bodies and frames.

/// How one kind of input is decoded and encoded.
trait Codec<'d> {
    /// The decoded value.
    type Value: PartialEq + fmt::Debug;
    /// Decodes from the start of `bytes`, returning the value and the bytes consumed.
    fn decode(&self, bytes: &'d [u8]) -> Result<(Self::Value, usize), DecodeError>;
    /// The exact encoded size.
    fn encoded_len(&self, value: &Self::Value) -> Result<usize, EncodeError>;
    /// Encodes at the start of `out`.
    fn encode(&self, value: &Self::Value, out: &mut [u8]) -> Result<usize, EncodeError>;
}

struct RequestBody {
    key: ApiKey,
    version: i16,
}

impl<'d> Codec<'d> for RequestBody {
    type Value = Request<'d>;

    fn decode(&self, bytes: &'d [u8]) -> Result<(Request<'d>, usize), DecodeError> {
        let mut r = Reader::new(bytes);
        let value = Request::decode(&mut r, self.key, self.version)?;
        Ok((value, r.offset()))
    }

    fn encoded_len(&self, value: &Request<'d>) -> Result<usize, EncodeError> {
        value.encoded_len(self.version)
    }

    fn encode(&self, value: &Request<'d>, out: &mut [u8]) -> Result<usize, EncodeError> {
        value.encode(self.version, out)
    }
}

struct ResponseBody {
    key: ApiKey,
    version: i16,
}

impl<'d> Codec<'d> for ResponseBody {
    type Value = Response<'d>;

    fn decode(&self, bytes: &'d [u8]) -> Result<(Response<'d>, usize), DecodeError> {
        let mut r = Reader::new(bytes);
        let value = Response::decode(&mut r, self.key, self.version)?;
        Ok((value, r.offset()))
    }

    fn encoded_len(&self, value: &Response<'d>) -> Result<usize, EncodeError> {
        value.encoded_len(self.version)
    }

    fn encode(&self, value: &Response<'d>, out: &mut [u8]) -> Result<usize, EncodeError> {
        value.encode(self.version, out)
    }
}

struct RequestFrame;

impl<'d> Codec<'d> for RequestFrame {
    type Value = (RequestHeader<'d>, Request<'d>);

    fn decode(&self, bytes: &'d [u8]) -> Result<(Self::Value, usize), DecodeError> {
        frame::decode_request(bytes).map(|value| (value, bytes.len()))
    }

    /// Computed independently of [`frame::encode_request`]: prefix, header at its version, body.
    fn encoded_len(&self, (header, body): &Self::Value) -> Result<usize, EncodeError> {
        let version = header.request_api_version;
        let header_version = request_header_version(body.api_key(), version);
        Ok(SIZE_LEN
            .saturating_add(header.encoded_len(header_version)?)
            .saturating_add(body.encoded_len(version)?))
    }

    fn encode(&self, (header, body): &Self::Value, out: &mut [u8]) -> Result<usize, EncodeError> {
        frame::encode_request(header, body, out)
    }
}

struct ResponseFrame {
    key: ApiKey,
    version: i16,
}

impl ResponseFrame {
    /// The version whose layout a response frame's body was read in: the oracle's version,
    /// except for an ApiVersions reply in the v0 layout a broker falls back to, which
    /// [`kwire::api::decode_api_versions`] reports.
    fn layout(&self, bytes: &[u8]) -> i16 {
        if self.key == ApiKey::API_VERSIONS {
            return kwire::api::decode_api_versions(bytes, self.version)
                .map_or(self.version, |reply| reply.version);
        }
        let _ = bytes;
        self.version
    }
}

impl<'d> Codec<'d> for ResponseFrame {
    /// The header, the body, and the version of the body's layout.
    type Value = (ResponseHeader<'d>, Response<'d>, i16);

    fn decode(&self, bytes: &'d [u8]) -> Result<(Self::Value, usize), DecodeError> {
        let (header, body) = frame::decode_response(bytes, self.key, self.version)?;
        Ok(((header, body, self.layout(bytes)), bytes.len()))
    }

    /// Computed independently of [`frame::encode_response`] (which takes the header version from
    /// the body's key): prefix, header at the version of the oracle's key, body.
    fn encoded_len(&self, (header, body, layout): &Self::Value) -> Result<usize, EncodeError> {
        let header_version = response_header_version(self.key, *layout);
        Ok(SIZE_LEN
            .saturating_add(header.encoded_len(header_version)?)
            .saturating_add(body.encoded_len(*layout)?))
    }

    fn encode(
        &self,
        (header, body, layout): &Self::Value,
        out: &mut [u8],
    ) -> Result<usize, EncodeError> {
        frame::encode_response(header, body, *layout, out)
    }
}

fn round_trip<'d, C: Codec<'d>>(
    codec: &C,
    input: &'d [u8],
    scratch: &'d mut [u8],
) -> Result<Outcome, OracleFailure> {
    let (first, consumed) = match codec.decode(input) {
        Ok(decoded) => decoded,
        Err(error) => {
            check_offset("decode", &error, input.len())?;
            return Ok(Outcome::Rejected);
        }
    };
    let consumed = input.get(..consumed).ok_or(OracleFailure::Length {
        stage: "consumed more than the input",
        expected: input.len(),
        actual: consumed,
    })?;
    let len = codec
        .encoded_len(&first)
        .map_err(|error| OracleFailure::Encode {
            stage: "encoded_len",
            error,
        })?;
    if len.saturating_mul(2) > scratch.len() {
        return Ok(Outcome::Skipped);
    }
    let Some((encoding, rest)) = scratch.split_at_mut_checked(len) else {
        return Ok(Outcome::Skipped);
    };

    let written = codec
        .encode(&first, encoding)
        .map_err(|error| OracleFailure::Encode {
            stage: "encode",
            error,
        })?;
    expect_len("encode wrote encoded_len bytes", len, written)?;
    let encoding: &'d [u8] = encoding;
    let canonical = encoding == consumed;

    let (second, used) = codec
        .decode(encoding)
        .map_err(|error| OracleFailure::Redecode {
            stage: "decode(encode(v))",
            error,
        })?;
    expect_len("decode(encode(v)) consumed the encoding", len, used)?;
    if !same_value(&first, &second) {
        return Err(OracleFailure::Value {
            stage: "decode(encode(v)) == v",
        });
    }
    let len2 = codec
        .encoded_len(&second)
        .map_err(|error| OracleFailure::Encode {
            stage: "encoded_len(decode(encode(v)))",
            error,
        })?;
    expect_len("encoded_len is stable", len, len2)?;

    // One byte short: a typed error with the length needed.
    if let Some(short_len) = len.checked_sub(1) {
        let short = rest.get_mut(..short_len).ok_or(OracleFailure::Invariant {
            stage: "scratch split",
        })?;
        match codec.encode(&second, short) {
            Err(EncodeError::BufferTooSmall {
                required,
                available,
            }) => {
                expect_len("BufferTooSmall.required", len, required)?;
                expect_len("BufferTooSmall.available", short_len, available)?;
            }
            Err(error) => {
                return Err(OracleFailure::Encode {
                    stage: "encode into a short buffer",
                    error,
                });
            }
            Ok(_) => {
                return Err(OracleFailure::Invariant {
                    stage: "encode into a short buffer succeeded",
                });
            }
        }
    }

    let written2 = codec
        .encode(&second, rest)
        .map_err(|error| OracleFailure::Encode {
            stage: "encode(decode(encode(v)))",
            error,
        })?;
    expect_len("encode(decode(encode(v))) length", len, written2)?;
    let again = rest.get(..len).unwrap_or_default();
    if let Some(offset) = first_difference(encoding, again) {
        return Err(OracleFailure::Bytes {
            stage: "encode(decode(encode(v))) == encode(v)",
            offset,
        });
    }
    Ok(Outcome::RoundTrip { canonical })
}

/// Equality of two decoded values. `PartialEq` is the test, except that a NaN `float64` is not
/// equal to itself: values that print the same and contain a NaN are accepted as equal (their
/// encodings are compared byte for byte anyway).
fn same_value<T: PartialEq + fmt::Debug>(a: &T, b: &T) -> bool {
    if a == b {
        return true;
    }
    let (fa, fb) = (Fingerprint::of(a), Fingerprint::of(b));
    fa.saw_nan && fa == fb
}

/// A hash of a value's `Debug` text (FNV-1a), noting whether it printed a NaN.
#[derive(Debug, PartialEq, Eq)]
struct Fingerprint {
    hash: u64,
    len: usize,
    saw_nan: bool,
    tail: [u8; 2],
}

impl Fingerprint {
    fn of<T: fmt::Debug>(value: &T) -> Self {
        let mut fp = Self {
            hash: 0xcbf2_9ce4_8422_2325,
            len: 0,
            saw_nan: false,
            tail: [0; 2],
        };
        // Writing into a Fingerprint cannot fail.
        let _ = fmt::write(&mut fp, format_args!("{value:?}"));
        fp
    }
}

impl fmt::Write for Fingerprint {
    fn write_str(&mut self, s: &str) -> fmt::Result {
        for &b in s.as_bytes() {
            self.hash = (self.hash ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3);
            self.len = self.len.wrapping_add(1);
            if self.tail == *b"Na" && b == b'N' {
                self.saw_nan = true;
            }
            self.tail = [self.tail[1], b];
        }
        Ok(())
    }
}

fn key_and_version(data: &[u8]) -> Option<(ApiKey, i16, &[u8])> {
    let ([k0, k1, v0, v1], body) = data.split_first_chunk::<4>().map(|(p, b)| (*p, b))?;
    Some((
        ApiKey(i16::from_be_bytes([k0, k1])),
        i16::from_be_bytes([v0, v1]),
        body,
    ))
}

fn announced_size(stream: &[u8]) -> Option<i32> {
    stream
        .split_first_chunk::<SIZE_LEN>()
        .map(|(prefix, _)| i32::from_be_bytes(*prefix))
}

fn first_difference(a: &[u8], b: &[u8]) -> Option<usize> {
    a.iter()
        .zip(b)
        .position(|(x, y)| x != y)
        .or_else(|| (a.len() != b.len()).then_some(a.len().min(b.len())))
}

/// A session client's receive path. The first byte sets the client up: bit 7 makes it
/// negotiate (its ApiVersions request is in flight first), bits 0-2 say how many ApiVersions
/// requests it has in flight besides, each at the version the next byte names (modulo 5). The
/// byte after them is the chunk size (modulo 64, plus 1); the rest is the stream received.
///
/// The stream is received twice, whole and in chunks, into receive buffers of the same size:
/// the two must give the same events and errors. Every response must carry the correlation id
/// of the request it is matched to, which leaves the requests in flight; an error must leave
/// them as they were; a stream stopped by a bad frame must stay stopped.
///
/// # Errors
///
/// The first invariant that did not hold.
pub fn session(data: &[u8], scratch: &mut [u8]) -> Result<Outcome, OracleFailure> {
    let Some((&setup, rest)) = data.split_first() else {
        return Ok(Outcome::Rejected);
    };
    let count = usize::from(setup & 7);
    let Some((versions, rest)) = rest.split_at_checked(count) else {
        return Ok(Outcome::Rejected);
    };
    let Some((&chunk, stream)) = rest.split_first() else {
        return Ok(Outcome::Rejected);
    };
    let chunk = usize::from(chunk % 64).saturating_add(1);
    let half = scratch.len() / 2;
    let (first, second) = scratch.split_at_mut(half);
    let second = second.get_mut(..half).unwrap_or_default();
    let whole = receive_stream(setup, versions, stream, stream.len().max(1), first)?;
    let pieces = receive_stream(setup, versions, stream, chunk, second)?;
    ensure(whole == pieces, "session: chunks changed what was received")?;
    Ok(Outcome::Checked {
        items: whole.events,
    })
}

/// What a session client made of a stream: the number of events and errors, a digest of
/// their kinds and correlation ids in order, and the requests left in flight.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Received {
    events: usize,
    digest: u64,
    left: usize,
}

impl Received {
    fn note(&mut self, kind: u64, id: i32) {
        self.events = self.events.saturating_add(1);
        // FNV-1a over (kind, id).
        for b in kind.to_be_bytes().into_iter().chain(id.to_be_bytes()) {
            self.digest = (self.digest ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3);
        }
    }
}

/// Receives `stream` in chunks of `chunk` bytes into a buffer over `storage`, checking each
/// event (see [`session`]).
fn receive_stream(
    setup: u8,
    versions: &[u8],
    stream: &[u8],
    chunk: usize,
    storage: &mut [u8],
) -> Result<Received, OracleFailure> {
    use kwire::messages::ApiVersionsRequest;
    use kwire::session::{Client, Event, FrameBuffer, SessionError};

    let mut client: Client<'_, 8> = if setup & 0x80 != 0 {
        Client::negotiating(Some("fuzz"))
    } else {
        Client::new(Some("fuzz"))
    };
    let mut tx = [0u8; 128];
    if client.poll_transmit(&mut tx).is_err() {
        return Err(OracleFailure::Invariant {
            stage: "session: the ApiVersions request did not encode",
        });
    }
    for &v in versions {
        let version = i16::from(v % 5);
        if client
            .send_at(&ApiVersionsRequest::default(), version, &mut tx)
            .is_err()
        {
            return Err(OracleFailure::Invariant {
                stage: "session: a request did not encode",
            });
        }
    }
    let mut rx = FrameBuffer::new(storage);
    let mut seen = Received {
        events: 0,
        digest: 0xcbf2_9ce4_8422_2325,
        left: 0,
    };
    let mut rest = stream;
    loop {
        let (now, later) = rest.split_at(chunk.min(rest.len()));
        let taken = rx.push(now);
        rest = later;
        let mut pending = now.get(taken..).unwrap_or_default();
        let mut progress = taken > 0;
        loop {
            let before = client.in_flight();
            match client.receive(&mut rx) {
                Ok(None) => break,
                Ok(Some(event)) => {
                    progress = true;
                    expect_len(
                        "session: one request answered",
                        before.wrapping_sub(1),
                        client.in_flight(),
                    )?;
                    match event {
                        Event::Response(answer) => {
                            let id = frame::response_correlation_id(answer.frame());
                            ensure(
                                id == Ok(answer.request().correlation_id),
                                "session: a response matched to another request",
                            )?;
                            if let Err(SessionError::Decode(e)) = answer.decode() {
                                ensure(
                                    e.offset <= answer.frame().len(),
                                    "session: an error offset outside the frame",
                                )?;
                            }
                            seen.note(1, answer.request().correlation_id);
                        }
                        Event::Ready => seen.note(2, 0),
                        Event::Retry { version } => seen.note(3, i32::from(version)),
                        Event::Authenticating => {
                            ensure(false, "session: an authentication step without credentials")?;
                        }
                    }
                }
                Err(e @ SessionError::Framing(_)) => {
                    ensure(
                        matches!(client.receive(&mut rx), Err(again) if again == e),
                        "session: a stopped stream went on",
                    )?;
                    seen.note(4, 0);
                    seen.left = client.in_flight();
                    return Ok(seen);
                }
                Err(e) => {
                    progress = true;
                    // An answer to the session's own ApiVersions request that does not decode,
                    // or fails the exchange, still answered that request.
                    let answered =
                        matches!(e, SessionError::Negotiate(_) | SessionError::Decode(_))
                            && before.wrapping_sub(1) == client.in_flight();
                    ensure(
                        answered || before == client.in_flight(),
                        "session: an error changed the requests in flight",
                    )?;
                    let id = match e {
                        SessionError::NoRequest { correlation_id } => correlation_id,
                        SessionError::OutOfOrder { received, .. } => received,
                        _ => -1,
                    };
                    seen.note(5, id);
                }
            }
            // Room was made: the rest of the chunk goes in.
            if !pending.is_empty() {
                let taken = rx.push(pending);
                pending = pending.get(taken..).unwrap_or_default();
            }
        }
        ensure(
            progress || now.is_empty(),
            "session: a full buffer took no bytes and gave no frame",
        )?;
        ensure(pending.is_empty(), "session: bytes left out of a chunk")?;
        if rest.is_empty() {
            break;
        }
    }
    seen.note(6, i32::from(client.finish(&rx).is_ok()));
    seen.left = client.in_flight();
    Ok(seen)
}

fn ensure(ok: bool, stage: &'static str) -> Result<(), OracleFailure> {
    if ok {
        Ok(())
    } else {
        Err(OracleFailure::Invariant { stage })
    }
}

fn expect_len(stage: &'static str, expected: usize, actual: usize) -> Result<(), OracleFailure> {
    if expected == actual {
        Ok(())
    } else {
        Err(OracleFailure::Length {
            stage,
            expected,
            actual,
        })
    }
}

fn check_offset(
    stage: &'static str,
    error: &DecodeError,
    input_len: usize,
) -> Result<(), OracleFailure> {
    if error.offset <= input_len {
        Ok(())
    } else {
        Err(OracleFailure::ErrorOffset {
            stage,
            error: *error,
            input_len,
        })
    }
}

// ---------------------------------------------------------------------------------------------
// Primitives.

const P: &str = "primitive";

/// The most known tags a section can have here (three opcode bits).
const MAX_KNOWN: usize = 8;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Step {
    Checked,
    Skipped,
}

enum Stop {
    /// The input did not read: the sequence ends.
    Read(DecodeError),
    /// An invariant failed.
    Fail(OracleFailure),
}

impl From<DecodeError> for Stop {
    fn from(e: DecodeError) -> Self {
        Self::Read(e)
    }
}

impl From<OracleFailure> for Stop {
    fn from(f: OracleFailure) -> Self {
        Self::Fail(f)
    }
}

/// Writes with `write` into `scratch`, checking that exactly `expected` bytes were written.
/// `None` when the scratch is too small.
fn emit<'s>(
    scratch: &'s mut [u8],
    stage: &'static str,
    expected: usize,
    write: impl FnOnce(&mut Writer<'_>),
) -> Result<Option<&'s [u8]>, OracleFailure> {
    let Some(out) = scratch.get_mut(..expected) else {
        return Ok(None);
    };
    let mut w = Writer::new(out);
    write(&mut w);
    ensure(!w.overflowed(), stage)?;
    expect_len(stage, expected, w.position())?;
    Ok(Some(out))
}

/// Reads the written bytes back with `read`: the value must equal `value` and use every byte.
fn reread<'s, T: PartialEq>(
    stage: &'static str,
    written: &'s [u8],
    value: &T,
    read: impl FnOnce(&mut Reader<'s>) -> Result<T, Failed>,
) -> Result<(), OracleFailure> {
    let mut r = Reader::new(written);
    let again = r
        .decode_with(read)
        .map_err(|error| OracleFailure::Redecode { stage, error })?;
    ensure(again == *value, stage)?;
    expect_len(stage, written.len(), r.offset())
}

/// A string written to `written` (read as `value`), read back by a reader checking UTF-8: it is
/// refused, with `InvalidUtf8` at the string's first byte, exactly when [`Str::to_str`] refuses
/// it, and [`Str::is_utf8`] says the same.
fn checked_utf8<'s>(
    stage: &'static str,
    written: &'s [u8],
    value: Option<Str<'_>>,
    read: impl FnOnce(&mut Reader<'s>) -> Result<Option<Str<'s>>, Failed>,
) -> Result<(), OracleFailure> {
    let valid = value.map(Str::to_str);
    ensure(
        value.is_none_or(|v| v.is_utf8() == v.to_str().is_ok()),
        "is_utf8 agrees with to_str",
    )?;
    let mut r = Reader::new(written).checking_utf8();
    let checked = r.decode_with(read);
    let first = written
        .len()
        .saturating_sub(value.map_or(0, |v| v.as_bytes().len()));
    match (valid, checked) {
        (None | Some(Ok(_)), Ok(again)) => ensure(again == value, stage),
        (Some(Err(_)), Err(error)) => ensure(
            error.kind == DecodeErrorKind::InvalidUtf8 && error.offset == first,
            stage,
        ),
        _ => Err(OracleFailure::Invariant { stage }),
    }
}

fn encode_len(
    stage: &'static str,
    len: Result<usize, EncodeError>,
) -> Result<usize, OracleFailure> {
    len.map_err(|error| OracleFailure::Encode { stage, error })
}

fn primitive(op: u8, r: &mut Reader<'_>, scratch: &mut [u8]) -> Result<Step, Stop> {
    let flexible = op & 0x10 != 0;
    let known_tags = op >> 5;
    macro_rules! written {
        ($stage:literal, $len:expr, |$w:ident| $write:expr) => {
            match emit(scratch, $stage, $len, |$w| $write)? {
                Some(out) => out,
                None => return Ok(Step::Skipped),
            }
        };
    }
    match (op & 0x0f) % 10 {
        0 => {
            let v = r.decode_with(|r| r.uvarint(P))?;
            let out = written!("uvarint", uvarint_len(v), |w| w.uvarint(v));
            reread("uvarint", out, &v, |r| r.uvarint(P))?;
        }
        1 => {
            let v = r.decode_with(|r| r.varint(P))?;
            let out = written!("varint", varint_len(v), |w| w.varint(v));
            reread("varint", out, &v, |r| r.varint(P))?;
        }
        2 => {
            let v = r.decode_with(|r| r.varlong(P))?;
            let out = written!("varlong", varlong_len(v), |w| w.varlong(v));
            reread("varlong", out, &v, |r| r.varlong(P))?;
        }
        3 => {
            let v = r.decode_with(|r| r.string(flexible, P))?;
            let len = encode_len("string_len", string_len(v, flexible, P))?;
            let out = written!("string", len, |w| w.string(v, flexible));
            reread("string", out, &v, |r| r.string(flexible, P))?;
            checked_utf8("string: checked as UTF-8", out, Some(v), |r| {
                r.string(flexible, P).map(Some)
            })?;
        }
        4 => {
            let v = r.decode_with(|r| r.nullable_string(flexible, P))?;
            let len = encode_len("nullable_string_len", nullable_string_len(v, flexible, P))?;
            let out = written!("nullable string", len, |w| w.nullable_string(v, flexible));
            reread("nullable string", out, &v, |r| {
                r.nullable_string(flexible, P)
            })?;
            checked_utf8("nullable string: checked as UTF-8", out, v, |r| {
                r.nullable_string(flexible, P)
            })?;
        }
        5 => {
            let v = r.decode_with(|r| r.bytes(flexible, P))?;
            let len = encode_len("bytes_len", bytes_len(v, flexible, P))?;
            let out = written!("bytes", len, |w| w.bytes(v, flexible));
            reread("bytes", out, &v, |r| r.bytes(flexible, P))?;
        }
        6 => {
            let v = r.decode_with(|r| r.nullable_bytes(flexible, P))?;
            let len = encode_len("nullable_bytes_len", nullable_bytes_len(v, flexible, P))?;
            let out = written!("nullable bytes", len, |w| w.nullable_bytes(v, flexible));
            reread("nullable bytes", out, &v, |r| r.nullable_bytes(flexible, P))?;
        }
        7 => {
            let n = r.decode_with(|r| r.array_len(flexible, P))?;
            let len = encode_len(
                "array length",
                len_prefix(n, LengthPrefix::bytes(flexible), P),
            )?;
            let out = written!("array length", len, |w| w
                .len(n, LengthPrefix::bytes(flexible)));
            check_array_len(out, Some(n), flexible)?;
        }
        8 => {
            let n = r.decode_with(|r| r.nullable_array_len(flexible, P))?;
            let len = match n {
                Some(n) => encode_len(
                    "nullable array length",
                    len_prefix(n, LengthPrefix::bytes(flexible), P),
                )?,
                None => LengthPrefix::bytes(flexible).null_len(),
            };
            let out = written!("nullable array length", len, |w| match n {
                Some(n) => w.len(n, LengthPrefix::bytes(flexible)),
                None => w.null_len(LengthPrefix::bytes(flexible)),
            });
            check_array_len(out, n, flexible)?;
        }
        _ => return tagged_section(known_tags, r, scratch),
    }
    Ok(Step::Checked)
}

/// An array count as written: compact N+1 (0 for null) or `int32` (-1 for null). It is checked
/// by hand because reading a count back needs the elements after it.
fn check_array_len(out: &[u8], n: Option<usize>, flexible: bool) -> Result<(), OracleFailure> {
    let mut r = Reader::new(out);
    let stage = "array length";
    let raw = r
        .decode_with(|r| {
            if flexible {
                r.uvarint(P).map(|u| i64::from(u).saturating_sub(1))
            } else {
                r.i32(P).map(i64::from)
            }
        })
        .map_err(|error| OracleFailure::Redecode { stage, error })?;
    let expected = match n {
        Some(n) => i64::try_from(n).unwrap_or(i64::MAX),
        None => -1,
    };
    ensure(raw == expected, stage)?;
    expect_len(stage, out.len(), r.offset())
}

/// The known fields of a section as read: `(tag, payload)` in order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Known<'a> {
    fields: [RawTaggedField<'a>; MAX_KNOWN],
    count: usize,
}

impl<'a> Known<'a> {
    fn read(section: &mut TaggedSection<'a>, r: &mut Reader<'a>) -> Result<Self, Stop> {
        let mut known = Self {
            fields: [RawTaggedField { tag: 0, data: &[] }; MAX_KNOWN],
            count: 0,
        };
        while let Some((tag, payload)) = section.next(r).map_err(|Failed| r.take_error())? {
            let slot = known
                .fields
                .get_mut(known.count)
                .ok_or(OracleFailure::Invariant {
                    stage: "tagged section: more known tags than defined",
                })?;
            *slot = RawTaggedField {
                tag,
                data: payload.rest(),
            };
            known.count = known.count.saturating_add(1);
        }
        Ok(known)
    }

    fn iter(&self) -> impl Iterator<Item = &RawTaggedField<'a>> {
        self.fields.iter().take(self.count)
    }

    fn same(&self, other: &Known<'_>) -> bool {
        self.count == other.count
            && self
                .iter()
                .zip(other.iter())
                .all(|(a, b)| a.tag == b.tag && a.data == b.data)
    }
}

fn tagged_section(known_tags: u8, r: &mut Reader<'_>, scratch: &mut [u8]) -> Result<Step, Stop> {
    let first_unknown = u32::from(known_tags);
    let mut section = TaggedSection::begin(r, first_unknown, P).map_err(|Failed| r.take_error())?;
    let known = Known::read(&mut section, r)?;
    let unknown = section.finish(r);
    check_unknown(&unknown, first_unknown)?;

    let count = u32::try_from(known.count.saturating_add(unknown.len())).unwrap_or(u32::MAX);
    let stage = "tagged section";
    let mut len = uvarint_len(count);
    for f in known.iter() {
        len = len.saturating_add(tagged_entry_len(f.tag, f.data.len()));
    }
    len = len.saturating_add(encode_len(stage, unknown.encoded_len(first_unknown, P))?);
    let Some(out) = emit(scratch, stage, len, |w| {
        w.uvarint(count);
        for f in known.iter() {
            w.uvarint(f.tag);
            w.uvarint(u32::try_from(f.data.len()).unwrap_or(u32::MAX));
            w.put(f.data);
        }
        unknown.write(w, first_unknown);
    })?
    else {
        return Ok(Step::Skipped);
    };

    let mut again = Reader::new(out);
    let redecode = |error| OracleFailure::Redecode { stage, error };
    let mut section2 = TaggedSection::begin(&mut again, first_unknown, P)
        .map_err(|Failed| redecode(again.take_error()))?;
    let known2 = match Known::read(&mut section2, &mut again) {
        Ok(k) => k,
        Err(Stop::Read(error)) => return Err(redecode(error).into()),
        Err(Stop::Fail(f)) => return Err(f.into()),
    };
    let unknown2 = section2.finish(&again);
    ensure(known.same(&known2), "tagged section: known fields differ")?;
    ensure(unknown == unknown2, "tagged section: unknown fields differ")?;
    expect_len(stage, out.len(), again.offset())?;
    Ok(Step::Checked)
}

/// Unknown fields as kept: iteration yields exactly `len()` fields, in strictly increasing tag
/// order, none below `first_unknown`.
fn check_unknown(unknown: &TaggedFields<'_>, first_unknown: u32) -> Result<(), OracleFailure> {
    let mut seen = 0usize;
    let mut next_allowed = first_unknown;
    for f in unknown.iter() {
        ensure(f.tag >= next_allowed, "tagged section: unknown tag order")?;
        next_allowed = f.tag.saturating_add(1);
        seen = seen.saturating_add(1);
    }
    expect_len("tagged section: unknown count", unknown.len(), seen)
}

// ---------------------------------------------------------------------------------------------
// Records fields: v2 batches and legacy messages.

/// The most records of one batch that the rebuild check holds; bigger batches get every other
/// check.
const MAX_REBUILD_RECORDS: usize = 64;
/// The most headers, over all the records of one batch, that the rebuild check holds.
const MAX_REBUILD_HEADERS: usize = 128;
/// Bytes of a v2 batch up to the end of its CRC field.
const CRC_END: usize = CRC_START;
/// Offset of the CRC field of a v2 batch.
const CRC_AT: usize = 17;
/// Offset of the CRC field of a legacy message.
const LEGACY_CRC_AT: usize = 12;
/// Offset of the first byte a legacy message's CRC covers (its magic byte).
const LEGACY_CRC_FROM: usize = 16;

/// A `records` field, walked with [`Records::batches`]: every entry is read to the end, a v2
/// batch down to its last header and control payload, and checked.
///
/// * Entries follow each other with no gap, each where the iterator says, and a clean end leaves
///   exactly the unread tail in [`Batches::remainder`](kwire::records::Batches::remainder): a
///   tail too short for the entry it starts, which a standalone parse calls truncated.
/// * A v2 batch's accessors agree with its bytes; `verify_crc` agrees with `compute_crc`, and
///   the records are read past it (`records_unchecked`); records follow each other to the end of the
///   batch, exactly `recordsCount` of them, with offsets, timestamps and sequences derived from
///   the batch as Kafka derives them; headers iterate to their count; control records and their
///   payloads read or fail inside their record.
/// * An uncompressed v2 batch of up to 64 records and 128 headers is written again with
///   [`BatchBuilder`] from its batch fields and records. The result always reads back to the same
///   keys, values, headers and timestamps, with a correct CRC, and a buffer one byte short gets
///   `BufferTooSmall` with the batch's length. When the input agrees with what the builder writes
///   (attributes with no undefined bits, offset deltas 0, 1, 2, …, record attributes 0,
///   `lastOffsetDelta`, `baseTimestamp` and `maxTimestamp` as the builder derives them), the
///   rebuilt batch is never longer than the input and, when it is as long (every varint was
///   minimal), identical to it outside the CRC field.
/// * A legacy message's accessors agree with its bytes, and writing its fields back gives its
///   bytes exactly, CRC aside (the format has a single encoding).
/// * Every error names an offset inside the input, inside the entry or record it is about.
///
/// The outcome is [`Outcome::RoundTrip`] when the field held only complete uncompressed v2
/// batches and a truncated tail, and every batch was rebuilt (`canonical`: each to its own bytes,
/// CRC included); [`Outcome::Rejected`] when the first entry was an error; else
/// [`Outcome::Checked`] with the number of entries.
///
/// # Errors
///
/// The first invariant that did not hold.
pub fn record_batch(data: &[u8], scratch: &mut [u8]) -> Result<Outcome, OracleFailure> {
    Ok(walk_entries(data, scratch)?.outcome())
}

/// Legacy message sets (magic 0 and 1): the input is a records field walked as in
/// [`record_batch`], with every check of that oracle, and also read from its start with
/// [`LegacyMessage::parse`], which must agree with the first entry of the walk: the same message,
/// a truncated tail for both, or an error at the same offset.
///
/// Each message is also seen through its record view and written again with [`LegacyBuilder`];
/// a wrapper's value is read as its inner set (any bytes are a possible decompression) with
/// [`LegacyMessage::inner`], and the wrapper is written again around it with
/// [`LegacyBuilder::write_wrapper`].
///
/// The outcome is [`Outcome::Rejected`] when the first entry was an error, else
/// [`Outcome::Checked`] with the number of entries.
///
/// # Errors
///
/// The first invariant that did not hold.
pub fn legacy_message_set(data: &[u8], scratch: &mut [u8]) -> Result<Outcome, OracleFailure> {
    let walk = walk_entries(data, scratch)?;
    legacy_parse_agrees(data)?;
    Ok(if walk.error && walk.items == 0 {
        Outcome::Rejected
    } else {
        Outcome::Checked { items: walk.items }
    })
}

/// What a walk over a records field saw.
#[derive(Debug, Clone, Copy, Default)]
struct Walk {
    /// Entries read.
    items: usize,
    /// Legacy messages among them.
    legacy: usize,
    /// V2 batches among them.
    v2: usize,
    /// V2 batches rebuilt with the builder.
    rebuilt: usize,
    /// Rebuilt batches identical to their input, CRC included.
    identical: usize,
    /// The walk ended with an error.
    error: bool,
}

impl Walk {
    fn outcome(&self) -> Outcome {
        if self.error && self.items == 0 {
            Outcome::Rejected
        } else if !self.error && self.legacy == 0 && self.v2 > 0 && self.rebuilt == self.v2 {
            Outcome::RoundTrip {
                canonical: self.identical == self.v2,
            }
        } else {
            Outcome::Checked { items: self.items }
        }
    }
}

/// True when `inner` lies inside `outer` (an empty `inner` anywhere).
fn inside(inner: &[u8], outer: &[u8]) -> bool {
    if inner.is_empty() {
        return true;
    }
    let outer = outer.as_ptr_range();
    let inner = inner.as_ptr_range();
    outer.start <= inner.start && inner.end <= outer.end
}

/// True when `a` is the slice of `data` that starts at `at` and is as long as `a`.
fn is_at(a: &[u8], data: &[u8], at: usize) -> bool {
    let end = at.saturating_add(a.len());
    data.get(at..end)
        .is_some_and(|b| a.is_empty() || core::ptr::eq(a.as_ptr(), b.as_ptr()))
}

/// An error about the bytes `from..to` of the input must point inside them.
fn check_error_in(
    stage: &'static str,
    error: &DecodeError,
    from: usize,
    to: usize,
    input_len: usize,
) -> Result<(), OracleFailure> {
    check_offset(stage, error, input_len)?;
    if (from..=to).contains(&error.offset) {
        Ok(())
    } else {
        Err(OracleFailure::ErrorOffset {
            stage,
            error: *error,
            input_len,
        })
    }
}

fn walk_entries(data: &[u8], scratch: &mut [u8]) -> Result<Walk, OracleFailure> {
    let mut walk = Walk::default();
    let mut batches = Records::new(data).batches();
    let mut at = 0usize;
    loop {
        ensure(batches.byte_offset() == at, "records: iterator offset")?;
        let Some(item) = batches.next() else {
            break;
        };
        let entry = match item {
            Ok(entry) => entry,
            Err(error) => {
                check_error_in("records: entry error", &error, at, data.len(), data.len())?;
                if let DecodeErrorKind::IncompleteFirstBatch { available, .. } = error.kind {
                    ensure(
                        at == 0 && available == data.len(),
                        "records: IncompleteFirstBatch after an entry, or not over the field",
                    )?;
                    ensure(
                        batches.partial().is_none(),
                        "records: a partial entry reported beside the error",
                    )?;
                }
                ensure(
                    batches.next().is_none(),
                    "records: iteration went on after an error",
                )?;
                walk.error = true;
                return Ok(walk);
            }
        };
        let bytes = entry.as_bytes();
        ensure(entry.position() == at, "records: entry position")?;
        ensure(
            is_at(bytes, data, at),
            "records: entry is not the input at its position",
        )?;
        let size = entry_size_of(bytes).ok_or(OracleFailure::Invariant {
            stage: "records: entry shorter than its size field",
        })?;
        expect_len(
            "records: entry length is size + 12",
            size.saturating_add(LOG_OVERHEAD),
            bytes.len(),
        )?;
        let magic = bytes.get(MAGIC_OFFSET).map(|&m| i8::from_be_bytes([m]));
        ensure(magic == Some(entry.magic()), "records: entry magic")?;
        match entry {
            Batch::V2(batch) => {
                ensure(entry.as_v2().is_some(), "records: as_v2")?;
                walk.v2 = walk.v2.saturating_add(1);
                check_v2(&batch, data, scratch, &mut walk)?;
            }
            Batch::Legacy(message) => {
                ensure(entry.as_legacy().is_some(), "records: as_legacy")?;
                walk.legacy = walk.legacy.saturating_add(1);
                check_legacy(&message, data.len(), scratch)?;
            }
        }
        match entry.verify_crc() {
            Ok(()) => {}
            Err(error) => check_error_in(
                "records: entry CRC error",
                &error,
                at,
                at.saturating_add(bytes.len()),
                data.len(),
            )?,
        }
        at = at.saturating_add(bytes.len());
        walk.items = walk.items.saturating_add(1);
    }
    // A clean end: what is left is the tail after the last entry, too short for its entry.
    let tail = data.get(at..).ok_or(OracleFailure::Invariant {
        stage: "records: entries past the input",
    })?;
    let remainder = batches.remainder();
    ensure(
        remainder.len() == tail.len() && is_at(remainder, data, at),
        "records: the remainder is not the unread tail",
    )?;
    // A partial entry ends the iteration cleanly only after a complete one, and is reported.
    let partial = batches.partial();
    ensure(
        partial.map(|p| (p.byte_offset, p.available))
            == (!tail.is_empty()).then_some((at, tail.len())),
        "records: partial() does not describe the unread tail",
    )?;
    ensure(
        tail.is_empty() || at > 0,
        "records: a field holding only part of its first entry ended without an error",
    )?;
    if tail.len() > MAGIC_OFFSET {
        let size = entry_size_of(tail).unwrap_or(0);
        ensure(
            size.saturating_add(LOG_OVERHEAD) > tail.len(),
            "records: a complete entry was left unread",
        )?;
        let parsed = if tail.get(MAGIC_OFFSET) == Some(&2) {
            RecordBatch::parse(tail).err()
        } else {
            LegacyMessage::parse(tail).err()
        };
        ensure(
            matches!(
                parsed.map(|e| e.kind),
                Some(DecodeErrorKind::Truncated { .. } | DecodeErrorKind::EntryTooSmall { .. })
            ),
            "records: the tail that ended the walk parses on its own",
        )?;
    }
    Ok(walk)
}

/// The bytes of a v2 batch before and after its CRC field.
fn outside_crc(s: &[u8]) -> (&[u8], &[u8]) {
    let (head, rest) = s.split_at_checked(CRC_AT).unwrap_or_default();
    (
        head,
        rest.get(CRC_END.saturating_sub(CRC_AT)..)
            .unwrap_or_default(),
    )
}

/// The entry's size field as a length (`None` when missing or negative).
fn entry_size_of(bytes: &[u8]) -> Option<usize> {
    let size: [u8; 4] = bytes.get(8..12)?.try_into().ok()?;
    usize::try_from(i32::from_be_bytes(size)).ok()
}

fn check_v2(
    b: &RecordBatch<'_>,
    data: &[u8],
    scratch: &mut [u8],
    walk: &mut Walk,
) -> Result<(), OracleFailure> {
    let bytes = b.as_bytes();
    let start = b.offset();
    let end = start.saturating_add(b.len());
    ensure(b.magic() == 2, "v2: magic")?;
    ensure(!b.is_empty(), "v2: is_empty")?;
    ensure(
        b.batch_length() >= MIN_BATCH_LENGTH,
        "v2: batchLength below 49",
    )?;
    expect_len(
        "v2: payload length",
        b.len().saturating_sub(HEADER_LEN),
        b.payload().len(),
    )?;
    ensure(inside(b.payload(), bytes), "v2: payload outside the batch")?;
    let again = RecordBatch::parse(bytes).map_err(|error| OracleFailure::Redecode {
        stage: "v2: the batch alone",
        error,
    })?;
    ensure(
        again.header() == b.header() && again.as_bytes() == bytes,
        "v2: the batch alone reads differently",
    )?;
    ensure(
        b.header().base_offset.get() == b.base_offset()
            && b.header().records_count.get() == b.records_count()
            && b.header().crc.get() == b.crc(),
        "v2: header and accessors differ",
    )?;
    ensure(
        b.last_offset()
            == b.base_offset()
                .wrapping_add(i64::from(b.last_offset_delta()))
            && b.next_offset() == b.last_offset().wrapping_add(1),
        "v2: last and next offsets",
    )?;
    let attributes = b.attributes();
    ensure(
        b.compression() == attributes.compression()
            && b.is_control() == attributes.is_control()
            && b.is_transactional() == attributes.is_transactional(),
        "v2: attribute accessors",
    )?;
    ensure(
        b.delete_horizon()
            == attributes
                .has_delete_horizon()
                .then_some(b.base_timestamp()),
        "v2: delete horizon",
    )?;
    let computed = b.compute_crc();
    ensure(
        computed == crc32c(bytes.get(CRC_START..).unwrap_or_default()),
        "v2: compute_crc",
    )?;
    match b.verify_crc() {
        Ok(()) => ensure(b.crc() == computed, "v2: verify_crc passed a wrong CRC")?,
        Err(error) => {
            ensure(
                error.offset == start.saturating_add(CRC_AT)
                    && error.kind
                        == (DecodeErrorKind::CrcMismatch {
                            stored: b.crc(),
                            computed,
                        })
                    && b.crc() != computed,
                "v2: CRC error",
            )?;
        }
    }

    // The checked walk is the CRC check and then the unchecked one.
    let checked = b.records().map(|_| ());
    let expected = b
        .verify_crc()
        .and_then(|()| b.records_unchecked().map(|_| ()));
    ensure(
        checked == expected,
        "v2: records() is not verify_crc, then records_unchecked()",
    )?;
    let records = match b.records_unchecked() {
        Ok(records) => records,
        Err(error) => {
            check_error_in("v2: records()", &error, start, end, data.len())?;
            let expected = match error.kind {
                DecodeErrorKind::Compressed(c) => c != 0 && Compression(c) == b.compression(),
                DecodeErrorKind::NegativeLength(n) => n < 0 && n == b.records_count(),
                _ => false,
            };
            return ensure(expected, "v2: records() refused an iterable batch");
        }
    };
    let count = u32::try_from(b.records_count()).map_err(|_| OracleFailure::Invariant {
        stage: "v2: records() accepted a negative count",
    })?;
    ensure(records.remaining() == count, "v2: remaining")?;
    let mut next = start.saturating_add(HEADER_LEN);
    let mut read = 0u32;
    let mut clean = true;
    for item in records {
        let r = match item {
            Ok(r) => r,
            Err(error) => {
                check_error_in("v2: record error", &error, next, end, data.len())?;
                clean = false;
                break;
            }
        };
        check_record(b, &r, data, next)?;
        next = next.saturating_add(r.as_bytes().len());
        ensure(next <= end, "v2: record past the batch")?;
        read = read.saturating_add(1);
    }
    if clean {
        ensure(read == count, "v2: records read is not recordsCount")?;
        expect_len("v2: records end at the batch end", end, next)?;
        if let Some(identical) = rebuild(b, scratch)? {
            walk.rebuilt = walk.rebuilt.saturating_add(1);
            if identical {
                walk.identical = walk.identical.saturating_add(1);
            }
        }
    }
    Ok(())
}

/// A record's timestamp before log-append time is applied: `baseTimestamp + timestampDelta`.
fn raw_timestamp(b: &RecordBatch<'_>, r: &Record<'_>) -> i64 {
    b.base_timestamp().wrapping_add(r.timestamp_delta())
}

fn check_record(
    b: &RecordBatch<'_>,
    r: &Record<'_>,
    data: &[u8],
    at: usize,
) -> Result<(), OracleFailure> {
    let bytes = r.as_bytes();
    ensure(r.position() == at, "record: position")?;
    ensure(
        is_at(bytes, data, at),
        "record: not the input at its position",
    )?;
    ensure(!bytes.is_empty(), "record: empty")?;
    ensure(
        r.key().is_none_or(|k| inside(k, bytes)) && r.value().is_none_or(|v| inside(v, bytes)),
        "record: key or value outside the record",
    )?;
    ensure(
        r.offset() == b.base_offset().wrapping_add(i64::from(r.offset_delta())),
        "record: offset",
    )?;
    let timestamp = match b.attributes().timestamp_type() {
        TimestampType::CreateTime => raw_timestamp(b, r),
        TimestampType::LogAppendTime => b.max_timestamp(),
    };
    ensure(r.timestamp() == timestamp, "record: timestamp")?;
    let sequence = if b.base_sequence() < 0 {
        None
    } else {
        // Kafka's sequences run from 0 to i32::MAX and wrap.
        i64::from(b.base_sequence())
            .wrapping_add(i64::from(r.offset_delta()))
            .checked_rem_euclid(1 << 31)
            .and_then(|s| i32::try_from(s).ok())
    };
    ensure(r.sequence() == sequence, "record: sequence")?;

    let headers = r.headers();
    ensure(
        inside(headers.as_bytes(), bytes),
        "record: headers outside the record",
    )?;
    ensure(
        headers.is_empty() == headers.iter().next().is_none(),
        "headers: is_empty",
    )?;
    let iter = headers.iter();
    expect_len("headers: size hint", headers.len(), iter.len())?;
    let mut seen = 0usize;
    for h in iter {
        ensure(
            inside(h.key(), headers.as_bytes())
                && h.value().is_none_or(|v| inside(v, headers.as_bytes())),
            "headers: header outside the headers",
        )?;
        if seen == 0 {
            ensure(
                headers.get(h.key()) == Some(h.value()),
                "headers: get(first key)",
            )?;
        }
        ensure(
            h.key_str().is_ok() == core::str::from_utf8(h.key()).is_ok(),
            "headers: key_str",
        )?;
        seen = seen.saturating_add(1);
    }
    expect_len("headers: iterated", headers.len(), seen)?;
    ensure(headers.iter().count() == seen, "headers: iterate twice")?;

    if b.is_control() {
        check_control(r, data.len())?;
    }
    Ok(())
}

fn check_control(r: &Record<'_>, input_len: usize) -> Result<(), OracleFailure> {
    let from = r.position();
    let to = from.saturating_add(r.as_bytes().len());
    let control = match ControlRecord::parse(r) {
        Ok(control) => control,
        Err(error) => return check_error_in("control: key", &error, from, to, input_len),
    };
    let key = r.key().unwrap_or_default();
    let version = key.first_chunk::<2>().map(|v| i16::from_be_bytes(*v));
    let kind = key
        .get(2..4)
        .and_then(|t| t.try_into().ok())
        .map(|t: [u8; 2]| ControlRecordType(i16::from_be_bytes(t)));
    ensure(
        version == Some(control.version())
            && control.version() >= 0
            && kind == Some(control.record_type())
            && control.value() == r.value(),
        "control: key fields",
    )?;
    let t = control.record_type();
    match control.payload() {
        Err(error) => check_error_in("control: payload", &error, from, to, input_len),
        Ok(payload) => {
            let value = r.value().unwrap_or_default();
            let matches = match payload {
                ControlPayload::Abort(m) | ControlPayload::Commit(m) => {
                    let is_abort = matches!(payload, ControlPayload::Abort(_));
                    let epoch = value
                        .get(2..6)
                        .and_then(|e| e.try_into().ok())
                        .map(i32::from_be_bytes);
                    (t == ControlRecordType::ABORT) == is_abort
                        && (t == ControlRecordType::ABORT || t == ControlRecordType::COMMIT)
                        && value.first_chunk::<2>().map(|v| i16::from_be_bytes(*v))
                            == Some(m.version)
                        && epoch == Some(m.coordinator_epoch)
                }
                ControlPayload::LeaderChange(_) => t == ControlRecordType::LEADER_CHANGE,
                ControlPayload::SnapshotHeader(_) => t == ControlRecordType::SNAPSHOT_HEADER,
                ControlPayload::SnapshotFooter(_) => t == ControlRecordType::SNAPSHOT_FOOTER,
                ControlPayload::KRaftVersion(_) => t == ControlRecordType::KRAFT_VERSION,
                ControlPayload::KRaftVoters(_) => t == ControlRecordType::KRAFT_VOTERS,
                ControlPayload::Unknown(u, v) => u == t && t.name().is_none() && v == r.value(),
                // A payload kind this oracle has not learned yet.
                _ => false,
            };
            ensure(matches, "control: payload does not match the type")
        }
    }
}

/// Writes an uncompressed batch again with the builder and checks the result. `None` when the
/// batch is compressed, too big for the fixed capacity or the scratch buffer; else whether the
/// rebuilt batch is identical to the input, CRC included.
fn rebuild(b: &RecordBatch<'_>, scratch: &mut [u8]) -> Result<Option<bool>, OracleFailure> {
    let Ok(records) = b.records_unchecked() else {
        return Ok(None);
    };
    let mut new_headers = [NewHeader::default(); MAX_REBUILD_HEADERS];
    let mut new_records = [NewRecord::default(); MAX_REBUILD_RECORDS];
    let mut ranges = [(0usize, 0usize); MAX_REBUILD_RECORDS];
    let mut n = 0usize;
    let mut h = 0usize;
    // Whether the input is what the builder writes, up to varint lengths.
    let mut agrees = true;
    let mut first_ts: Option<i64> = None;
    let mut max_ts: Option<i64> = None;
    for r in records {
        let Ok(r) = r else {
            return Ok(None);
        };
        let (Some(slot), Some(range)) = (new_records.get_mut(n), ranges.get_mut(n)) else {
            return Ok(None);
        };
        let ts = raw_timestamp(b, &r);
        first_ts.get_or_insert(ts);
        max_ts = Some(max_ts.map_or(ts, |m| m.max(ts)));
        *slot = NewRecord {
            key: r.key(),
            value: r.value(),
            headers: &[],
            timestamp: ts,
        };
        let from = h;
        for header in r.headers() {
            let Some(dst) = new_headers.get_mut(h) else {
                return Ok(None);
            };
            *dst = NewHeader {
                key: header.key(),
                value: header.value(),
            };
            h = h.saturating_add(1);
        }
        *range = (from, h);
        agrees &= r.attributes() == 0 && usize::try_from(r.offset_delta()).ok() == Some(n);
        n = n.saturating_add(1);
    }
    for (record, &(from, to)) in new_records.iter_mut().zip(&ranges).take(n) {
        record.headers = new_headers.get(from..to).unwrap_or_default();
    }
    let new_records = new_records.get(..n).unwrap_or_default();

    let attributes = b.attributes();
    let builder = BatchBuilder::new()
        .with_base_offset(b.base_offset())
        .with_partition_leader_epoch(b.partition_leader_epoch())
        .with_producer(b.producer_id(), b.producer_epoch(), b.base_sequence())
        .with_timestamp_type(attributes.timestamp_type())
        .with_transactional(attributes.is_transactional())
        .with_control(attributes.is_control())
        .with_delete_horizon(b.delete_horizon());
    let written_attributes = builder.attributes(Compression::NONE);
    let base_timestamp = match b.delete_horizon() {
        Some(horizon) => horizon,
        None => first_ts.unwrap_or(-1),
    };
    let last_delta = i32::try_from(n.saturating_sub(1)).unwrap_or(i32::MAX);
    agrees &= attributes == written_attributes
        && b.last_offset_delta() == last_delta
        && b.base_timestamp() == base_timestamp
        && b.max_timestamp() == max_ts.unwrap_or(-1);

    let len = builder
        .encoded_len(new_records)
        .map_err(|error| OracleFailure::Encode {
            stage: "rebuild: encoded_len",
            error,
        })?;
    if len.saturating_mul(2) > scratch.len() {
        return Ok(None);
    }
    let Some((out, rest)) = scratch.split_at_mut_checked(len) else {
        return Ok(None);
    };
    let written = builder
        .write(new_records, out)
        .map_err(|error| OracleFailure::Encode {
            stage: "rebuild: write",
            error,
        })?;
    expect_len("rebuild: write wrote encoded_len bytes", len, written)?;

    if let Some(short_len) = len.checked_sub(1) {
        let short = rest.get_mut(..short_len).ok_or(OracleFailure::Invariant {
            stage: "rebuild: scratch split",
        })?;
        // A typed error with the batch's length; what the short buffer holds is unspecified.
        match builder.write(new_records, short) {
            Err(EncodeError::BufferTooSmall {
                required,
                available,
            }) => {
                expect_len("rebuild: BufferTooSmall.required", len, required)?;
                expect_len("rebuild: BufferTooSmall.available", short_len, available)?;
            }
            Err(error) => {
                return Err(OracleFailure::Encode {
                    stage: "rebuild: write into a short buffer",
                    error,
                });
            }
            Ok(_) => {
                return Err(OracleFailure::Invariant {
                    stage: "rebuild: write into a short buffer succeeded",
                });
            }
        }
    }

    let out: &[u8] = out;
    let rebuilt = RecordBatch::parse(out).map_err(|error| OracleFailure::Redecode {
        stage: "rebuild: parse",
        error,
    })?;
    expect_len("rebuild: parsed length", len, rebuilt.len())?;
    ensure(rebuilt.crc() == rebuilt.compute_crc(), "rebuild: CRC")?;
    ensure(
        rebuilt.base_offset() == b.base_offset()
            && rebuilt.partition_leader_epoch() == b.partition_leader_epoch()
            && rebuilt.producer_id() == b.producer_id()
            && rebuilt.producer_epoch() == b.producer_epoch()
            && rebuilt.base_sequence() == b.base_sequence()
            && rebuilt.attributes() == written_attributes
            && rebuilt.last_offset_delta() == last_delta
            && rebuilt.base_timestamp() == base_timestamp
            && rebuilt.max_timestamp() == max_ts.unwrap_or(-1)
            && usize::try_from(rebuilt.records_count()).ok() == Some(n),
        "rebuild: batch fields",
    )?;
    let again = rebuilt.records().map_err(|error| OracleFailure::Redecode {
        stage: "rebuild: records",
        error,
    })?;
    let mut i = 0usize;
    for (r, original) in again.zip(
        new_records
            .iter()
            .chain(core::iter::repeat(&NewRecord::default())),
    ) {
        let r = r.map_err(|error| OracleFailure::Redecode {
            stage: "rebuild: record",
            error,
        })?;
        ensure(i < n, "rebuild: more records than written")?;
        ensure(
            r.key() == original.key
                && r.value() == original.value
                && r.attributes() == 0
                && usize::try_from(r.offset_delta()).ok() == Some(i)
                && raw_timestamp(&rebuilt, &r) == original.timestamp
                && r.headers().len() == original.headers.len()
                && r.headers()
                    .iter()
                    .zip(original.headers)
                    .all(|(x, y)| x.key() == y.key && x.value() == y.value),
            "rebuild: a record reads back differently",
        )?;
        i = i.saturating_add(1);
    }
    expect_len("rebuild: records read back", n, i)?;

    let input = b.as_bytes();
    if agrees {
        ensure(
            len <= input.len(),
            "rebuild: longer than an input the builder agrees with",
        )?;
        if len == input.len() {
            let (a0, a1) = outside_crc(input);
            let (b0, b1) = outside_crc(out);
            if let Some(offset) = first_difference(a0, b0) {
                return Err(OracleFailure::Bytes {
                    stage: "rebuild: differs from an input the builder agrees with",
                    offset,
                });
            }
            if let Some(offset) = first_difference(a1, b1) {
                return Err(OracleFailure::Bytes {
                    stage: "rebuild: differs from an input the builder agrees with",
                    offset: offset.saturating_add(CRC_END),
                });
            }
        }
    }
    Ok(Some(out == input))
}

fn check_legacy(
    m: &LegacyMessage<'_>,
    input_len: usize,
    scratch: &mut [u8],
) -> Result<(), OracleFailure> {
    let bytes = m.as_bytes();
    let min = match m.magic() {
        0 => MIN_MESSAGE_SIZE_V0,
        1 => MIN_MESSAGE_SIZE_V1,
        _ => {
            return Err(OracleFailure::Invariant {
                stage: "legacy: magic",
            });
        }
    };
    ensure(
        m.message_size() >= min,
        "legacy: message size below the minimum",
    )?;
    expect_len(
        "legacy: entry length",
        usize::try_from(m.message_size())
            .unwrap_or(usize::MAX)
            .saturating_add(LOG_OVERHEAD),
        bytes.len(),
    )?;
    let again =
        LegacyMessage::parse_at(bytes, m.position()).map_err(|error| OracleFailure::Redecode {
            stage: "legacy: the entry alone",
            error,
        })?;
    ensure(again == *m, "legacy: the entry alone reads differently")?;
    ensure(
        m.timestamp().is_some() == (m.magic() == 1),
        "legacy: timestamp presence",
    )?;
    let attributes = m.attributes().to_be_bytes()[0];
    ensure(
        m.compression() == Compression(attributes & 0x07),
        "legacy: compression",
    )?;
    let log_append = m.magic() == 1 && attributes & 0x08 != 0;
    ensure(
        (m.timestamp_type() == TimestampType::LogAppendTime) == log_append,
        "legacy: timestamp type",
    )?;
    ensure(
        m.key().is_none_or(|k| inside(k, bytes)) && m.value().is_none_or(|v| inside(v, bytes)),
        "legacy: key or value outside the entry",
    )?;
    let computed = m.compute_crc();
    ensure(
        computed == crc32(bytes.get(LEGACY_CRC_FROM..).unwrap_or_default()),
        "legacy: compute_crc",
    )?;
    match m.verify_crc() {
        Ok(()) => ensure(m.crc() == computed, "legacy: verify_crc passed a wrong CRC")?,
        Err(error) => {
            check_offset("legacy: CRC error", &error, input_len)?;
            ensure(
                error.offset == m.position().saturating_add(LEGACY_CRC_AT)
                    && error.kind
                        == (DecodeErrorKind::CrcMismatch {
                            stored: m.crc(),
                            computed,
                        })
                    && m.crc() != computed,
                "legacy: CRC error",
            )?;
        }
    }

    check_legacy_views(m, input_len, scratch)?;

    // The format has one encoding: writing the fields back gives the bytes, CRC aside.
    let Some(out) = scratch.get_mut(..bytes.len()) else {
        return Ok(());
    };
    let mut w = Writer::new(out);
    w.i64(m.offset());
    w.i32(m.message_size());
    w.u32(computed);
    w.i8(m.magic());
    w.i8(m.attributes());
    if let Some(ts) = m.timestamp() {
        w.i64(ts);
    }
    for part in [m.key(), m.value()] {
        match part {
            None => w.i32(-1),
            Some(p) => {
                w.i32(i32::try_from(p.len()).unwrap_or(i32::MAX));
                w.put(p);
            }
        }
    }
    ensure(!w.overflowed(), "legacy: rewrite overflowed")?;
    expect_len("legacy: rewrite length", bytes.len(), w.position())?;
    let out: &[u8] = out;
    let (a0, a1) = bytes.split_at_checked(LEGACY_CRC_AT).unwrap_or_default();
    let (b0, b1) = out.split_at_checked(LEGACY_CRC_AT).unwrap_or_default();
    let a1 = a1.get(4..).unwrap_or_default();
    let b1 = b1.get(4..).unwrap_or_default();
    if let Some(offset) = first_difference(a0, b0) {
        return Err(OracleFailure::Bytes {
            stage: "legacy: rewrite differs",
            offset,
        });
    }
    if let Some(offset) = first_difference(a1, b1) {
        return Err(OracleFailure::Bytes {
            stage: "legacy: rewrite differs",
            offset: offset.saturating_add(LEGACY_CRC_FROM),
        });
    }
    Ok(())
}

/// Offset of a legacy message's attributes byte.
const LEGACY_ATTRIBUTES_AT: usize = 17;

/// The record view, [`LegacyBuilder`] and, for a wrapper, the inner messages of a legacy entry.
///
/// * A plain message is a record with its stored offset and timestamp; the builder, given its
///   fields, writes it again, identical outside the CRC when its attributes are the builder's.
/// * A wrapper is no record. Its value is read as if it were the decompressed inner set (the
///   oracle has no decompressor, and any bytes are a possible decompression): the inner messages
///   have the wrapper's magic, absolute offsets and timestamps as Kafka derives them, and errors
///   inside the value. `write_wrapper` with the same value and the wrapper's offset and
///   timestamp writes the wrapper again, identical outside the CRC when key and attributes are
///   the builder's.
fn check_legacy_views(
    m: &LegacyMessage<'_>,
    input_len: usize,
    scratch: &mut [u8],
) -> Result<(), OracleFailure> {
    let magic = if m.magic() == 0 {
        LegacyMagic::V0
    } else {
        LegacyMagic::V1
    };
    let builder = LegacyBuilder::new(magic)
        .with_base_offset(m.offset())
        .with_timestamp_type(m.timestamp_type());
    ensure(
        m.is_wrapper() == (m.compression().0 != 0),
        "legacy: is_wrapper",
    )?;
    if !m.is_wrapper() {
        let r = m.record().map_err(|error| OracleFailure::Redecode {
            stage: "legacy: record() of a plain message",
            error,
        })?;
        ensure(
            r.message() == *m
                && r.offset() == m.offset()
                && r.timestamp() == m.timestamp()
                && r.timestamp_type() == m.timestamp_type()
                && r.magic() == m.magic()
                && r.key() == m.key()
                && r.value() == m.value()
                && r.position() == m.position(),
            "legacy: record view",
        )?;
        let record = NewRecord {
            key: m.key(),
            value: m.value(),
            headers: &[],
            timestamp: m.timestamp().unwrap_or(-1),
        };
        let bytes = m.as_bytes();
        let Some(out) = scratch.get_mut(..bytes.len()) else {
            return Ok(());
        };
        let len = builder
            .encoded_len([record])
            .map_err(|error| OracleFailure::Encode {
                stage: "legacy: builder encoded_len",
                error,
            })?;
        expect_len("legacy: builder length", bytes.len(), len)?;
        let written = builder
            .write([record], out)
            .map_err(|error| OracleFailure::Encode {
                stage: "legacy: builder write",
                error,
            })?;
        expect_len("legacy: builder wrote", len, written)?;
        if m.attributes() == builder.attributes(Compression::NONE) {
            same_outside_legacy_crc("legacy: builder output differs", bytes, out)?;
        }
        return Ok(());
    }

    match m.record() {
        Err(error) => ensure(
            error.offset == m.position().saturating_add(LEGACY_ATTRIBUTES_AT)
                && error.kind == DecodeErrorKind::Compressed(m.compression().0),
            "legacy: record() of a wrapper",
        )?,
        Ok(_) => {
            return Err(OracleFailure::Invariant {
                stage: "legacy: a wrapper read as a record",
            });
        }
    }
    let value = m.value().unwrap_or_default();
    match m.inner(value) {
        // Errors about the wrapper count from the input, errors inside the value from the value.
        Err(error) => check_offset("legacy: inner()", &error, input_len.max(value.len()))?,
        Ok(inner) => check_inner(m, value, inner)?,
    }

    // The wrapper written again around the same value.
    let bytes = m.as_bytes();
    let set = InnerSet {
        len: value.len(),
        count: 0,
        last_offset: m.offset(),
        max_timestamp: m.timestamp().unwrap_or(-1),
    };
    let Some(out) = scratch.get_mut(..bytes.len()) else {
        return Ok(());
    };
    match builder.write_wrapper(m.compression(), &set, value, out) {
        Ok(written) => {
            ensure(
                matches!(m.compression().0, 1..=3),
                "legacy: write_wrapper took a codec legacy sets lack",
            )?;
            // Written with a null key, and a null value written as empty.
            expect_len(
                "legacy: write_wrapper length",
                bytes.len().saturating_sub(m.key().map_or(0, <[u8]>::len)),
                written,
            )?;
            if m.key().is_none()
                && m.value().is_some()
                && m.attributes() == builder.attributes(m.compression())
            {
                same_outside_legacy_crc("legacy: write_wrapper output differs", bytes, out)?;
            }
        }
        Err(EncodeError::FieldNotInVersion { .. }) => ensure(
            !matches!(m.compression().0, 1..=3),
            "legacy: write_wrapper refused a legacy codec",
        )?,
        Err(error) => {
            return Err(OracleFailure::Encode {
                stage: "legacy: write_wrapper",
                error,
            });
        }
    }
    Ok(())
}

fn check_inner(
    m: &LegacyMessage<'_>,
    value: &[u8],
    inner: InnerMessages<'_>,
) -> Result<(), OracleFailure> {
    let count = inner.remaining();
    ensure(count > 0, "legacy: inner set without messages")?;
    let last = inner.last_offset();
    let relative = m.magic() == 1 && m.offset() != 0;
    if relative {
        ensure(last == m.offset(), "legacy: inner last offset")?;
    }
    let mut seen = 0usize;
    let mut at = 0usize;
    let mut stored_last = None;
    let mut delta: Option<i64> = None;
    for item in inner {
        let r = match item {
            Ok(r) => r,
            Err(error) => {
                check_error_in(
                    "legacy: inner message",
                    &error,
                    at,
                    value.len(),
                    value.len(),
                )?;
                return Ok(());
            }
        };
        ensure(r.position() == at, "legacy: inner position")?;
        let message = r.message();
        ensure(
            is_at(message.as_bytes(), value, at),
            "legacy: inner message is not the value at its position",
        )?;
        ensure(
            r.magic() == m.magic() && !message.is_wrapper(),
            "legacy: inner magic or compression",
        )?;
        ensure(
            r.timestamp_type() == m.timestamp_type(),
            "legacy: inner timestamp type",
        )?;
        let timestamp = match (m.magic(), m.timestamp_type()) {
            (0, _) => None,
            (_, TimestampType::LogAppendTime) => m.timestamp(),
            _ => message.timestamp(),
        };
        ensure(r.timestamp() == timestamp, "legacy: inner timestamp")?;
        stored_last = Some(message.offset());
        at = at.saturating_add(message.as_bytes().len());
        seen = seen.saturating_add(1);
        // Absolute offsets: stored + delta, one delta for the whole set.
        let d = r.offset().wrapping_sub(message.offset());
        ensure(*delta.get_or_insert(d) == d, "legacy: inner offsets")?;
        let _ = r.verify_crc();
    }
    expect_len("legacy: inner messages read", count, seen)?;
    expect_len("legacy: inner messages fill the value", value.len(), at)?;
    if let (Some(stored), Some(delta)) = (stored_last, delta) {
        let expected = if relative {
            m.offset().wrapping_sub(stored)
        } else {
            0
        };
        ensure(delta == expected, "legacy: inner offset delta")?;
        ensure(
            last == stored.wrapping_add(delta),
            "legacy: inner last offset",
        )?;
    }
    Ok(())
}

/// Two legacy entries agree everywhere outside the CRC field.
fn same_outside_legacy_crc(stage: &'static str, a: &[u8], b: &[u8]) -> Result<(), OracleFailure> {
    let (a0, a1) = a.split_at_checked(LEGACY_CRC_AT).unwrap_or_default();
    let (b0, b1) = b.split_at_checked(LEGACY_CRC_AT).unwrap_or_default();
    if let Some(offset) = first_difference(a0, b0) {
        return Err(OracleFailure::Bytes { stage, offset });
    }
    let a1 = a1.get(4..).unwrap_or_default();
    let b1 = b1.get(4..).unwrap_or_default();
    if let Some(offset) = first_difference(a1, b1) {
        return Err(OracleFailure::Bytes {
            stage,
            offset: offset.saturating_add(LEGACY_CRC_FROM),
        });
    }
    Ok(())
}

/// [`LegacyMessage::parse`] on the whole input agrees with the first entry of
/// [`Records::batches`] when the input starts with a magic 0 or 1 entry.
fn legacy_parse_agrees(data: &[u8]) -> Result<(), OracleFailure> {
    if !matches!(data.get(MAGIC_OFFSET), Some(0 | 1)) {
        return Ok(());
    }
    let parsed = LegacyMessage::parse(data);
    let first = Records::new(data).batches().next();
    match (parsed, first) {
        (Ok(m), Some(Ok(Batch::Legacy(n)))) => ensure(m == n, "legacy: parse and batches differ"),
        (Err(e), None) => ensure(
            matches!(
                e.kind,
                DecodeErrorKind::Truncated { .. } | DecodeErrorKind::EntryTooSmall { .. }
            ),
            "legacy: batches ended where parse failed",
        ),
        // Only part of the entry: the field reports its first entry incomplete.
        (Err(e), Some(Err(f)))
            if matches!(f.kind, DecodeErrorKind::IncompleteFirstBatch { .. }) =>
        {
            ensure(
                matches!(
                    e.kind,
                    DecodeErrorKind::Truncated { .. } | DecodeErrorKind::EntryTooSmall { .. }
                ) && f.offset == 0,
                "legacy: an incomplete first entry that parse reads otherwise",
            )
        }
        (Err(e), Some(Err(f))) => {
            ensure(e.offset == f.offset, "legacy: errors at different offsets")
        }
        _ => Err(OracleFailure::Invariant {
            stage: "legacy: parse and batches disagree",
        }),
    }
}

// ---------------------------------------------------------------------------------------------
// Structure-aware: walker instances of any request or response, then mutated.

/// Bytes at the start of the scratch buffer of [`structured`] that hold the walker's instance
/// (mutated in place); the rest holds the round trips.
const STRUCTURED_INSTANCE: usize = 16 * 1024;

/// Bytes of the input of [`structured`] that pick the schema, the version and the seed.
const PICK_LEN: usize = 10;

/// Bytes of one mutation of [`structured`].
const MUTATION_LEN: usize = 3;

/// The scratch buffer [`structured`] needs, whatever the length of its input: 16 KiB for the
/// walker's instance and room for the round trips of anything that fits there.
#[must_use]
pub const fn structured_scratch_len() -> usize {
    64 * 1024
}

/// Structure-aware: a valid random instance of any request or response schema, written by the
/// schema walker from the input, held to the typed code, then mutated by the rest of the input
/// and held to the walker again.
///
/// Input:
///
/// * byte 0: bit 0 picks the request (0) or the response (1) schema, bits 1-7 the API key, as an
///   index into [`API_TABLE`] modulo its length;
/// * byte 1: the version, as an index into the schema's valid versions modulo their number;
/// * bytes 2-9: the seed of [`crate::random::write_random`] (`uint64`, big-endian; a short input is
///   padded with zeros);
/// * then mutations of three bytes each (a trailing partial one is ignored): a big-endian
///   `uint16` whose top two bits pick the operation and whose low 14 bits are a position, and an
///   operand byte. The operations: XOR the byte at the position (modulo the length) with the
///   operand; insert the operand at the position (modulo the length plus one; nothing when the
///   instance fills its 16 KiB); remove the byte at the position; truncate at the position.
///
/// The instance is written into the first 16 KiB of `scratch` and mutated there; the outcome is
/// [`Outcome::Skipped`] when it does not fit, or when `scratch` is shorter than
/// [`structured_scratch_len`]. Checked:
///
/// 1. the untouched instance: [`walker::validate`] accepts all of it; the typed decoder
///    ([`Request::decode`] or [`Response::decode`]) consumes all of it; and it round-trips as in
///    [`request_body`], to exactly its own bytes (a walker instance is canonical);
/// 2. the mutated instance: the walker and the typed decoder agree, with the rule of the test
///    `walker_and_typed_decoder_agree_on_corrupted_input` (no exceptions): both accept it and
///    consume the same number of bytes, or both reject it with errors at the same offset and of
///    the same kind; then it goes through the body round trip of [`request_body`] or
///    [`response_body`].
///
/// The outcome is that of the last round trip: `RoundTrip { canonical: true }` for an input
/// without mutations.
///
/// # Errors
///
/// The first invariant that did not hold.
pub fn structured(data: &[u8], scratch: &mut [u8]) -> Result<Outcome, OracleFailure> {
    let Some(pick) = Pick::read(data) else {
        return Ok(Outcome::Rejected);
    };
    let Some((region, work)) = scratch.split_at_mut_checked(STRUCTURED_INSTANCE) else {
        return Ok(Outcome::Skipped);
    };
    let len = match crate::random::write_random(pick.schema, pick.version, pick.seed, region) {
        Ok(len) => len,
        Err(EncodeError::BufferTooSmall { .. }) => return Ok(Outcome::Skipped),
        Err(error) => {
            return Err(OracleFailure::Encode {
                stage: "structured: walker write_random",
                error,
            });
        }
    };

    // The untouched instance.
    let instance = region.get(..len).ok_or(OracleFailure::Length {
        stage: "structured: the walker wrote past its buffer",
        expected: STRUCTURED_INSTANCE,
        actual: len,
    })?;
    match walker::validate(pick.schema, pick.version, instance) {
        Ok(consumed) => expect_len("structured: the walker reads its instance", len, consumed)?,
        Err(error) => {
            return Err(OracleFailure::Redecode {
                stage: "structured: the walker rejects its own instance",
                error,
            });
        }
    }
    match pick.typed_verdict(instance) {
        Ok(consumed) => expect_len(
            "structured: the typed decoder reads the instance",
            len,
            consumed,
        )?,
        Err(error) => {
            return Err(OracleFailure::Redecode {
                stage: "structured: the typed decoder rejects a walker instance",
                error,
            });
        }
    }
    let outcome = pick.round_trip(instance, work)?;
    ensure(
        matches!(
            outcome,
            Outcome::RoundTrip { canonical: true } | Outcome::Skipped
        ),
        "structured: a walker instance does not re-encode to its own bytes",
    )?;

    // The mutated instance.
    let mutations = data
        .get(PICK_LEN..)
        .unwrap_or_default()
        .chunks_exact(MUTATION_LEN);
    if mutations.len() == 0 {
        return Ok(outcome);
    }
    let mut len = len;
    for m in mutations {
        if let [op0, op1, operand] = *m {
            len = mutate(region, len, u16::from_be_bytes([op0, op1]), operand);
        }
    }
    let mutated = region.get(..len).unwrap_or_default();
    let ours = walker::validate(pick.schema, pick.version, mutated);
    let theirs = pick.typed_verdict(mutated);
    if let Err(error) = &ours {
        check_offset("structured: walker error", error, len)?;
    }
    if let Err(error) = &theirs {
        check_offset("structured: typed decoder error", error, len)?;
    }
    let agree = match (&ours, &theirs) {
        (Ok(a), Ok(b)) => a == b,
        (Err(a), Err(b)) => a.offset == b.offset && a.kind == b.kind,
        _ => false,
    };
    if !agree {
        return Err(OracleFailure::Disagree {
            stage: "structured: the walker and the typed decoder disagree",
            first: ours,
            second: theirs,
        });
    }
    pick.round_trip(mutated, work)
}

/// The schema, version and seed the input of [`structured`] picks.
struct Pick {
    schema: &'static MessageSchema,
    response: bool,
    key: ApiKey,
    version: i16,
    seed: u64,
}

impl Pick {
    /// `None` for an empty input (every other input picks something).
    fn read(data: &[u8]) -> Option<Self> {
        let (&side_and_key, rest) = data.split_first()?;
        let response = side_and_key & 1 != 0;
        let index = usize::from(side_and_key >> 1).checked_rem(API_TABLE.len())?;
        let key = API_TABLE.get(index)?.key;
        let schema = if response {
            schema::response(key)
        } else {
            schema::request(key)
        }?;
        let valid = schema.valid_versions;
        let span = i32::from(valid.max)
            .checked_sub(i32::from(valid.min))?
            .checked_add(1)
            .filter(|span| *span > 0)?;
        let index = i32::from(rest.first().copied().unwrap_or(0)).checked_rem(span)?;
        let version = i16::try_from(i32::from(valid.min).checked_add(index)?).ok()?;
        let mut seed = [0u8; 8];
        for (dst, src) in seed.iter_mut().zip(rest.get(1..).unwrap_or_default()) {
            *dst = *src;
        }
        Some(Self {
            schema,
            response,
            key,
            version,
            seed: u64::from_be_bytes(seed),
        })
    }

    /// The typed decoder's verdict: the bytes consumed, or its error.
    fn typed_verdict(&self, bytes: &[u8]) -> Result<usize, DecodeError> {
        let mut r = Reader::new(bytes);
        if self.response {
            Response::decode(&mut r, self.key, self.version)?;
        } else {
            Request::decode(&mut r, self.key, self.version)?;
        }
        Ok(r.offset())
    }

    /// The body round trip of [`request_body`] or [`response_body`].
    fn round_trip<'d>(
        &self,
        body: &'d [u8],
        scratch: &'d mut [u8],
    ) -> Result<Outcome, OracleFailure> {
        let (key, version) = (self.key, self.version);
        if self.response {
            round_trip(&ResponseBody { key, version }, body, scratch)
        } else {
            round_trip(&RequestBody { key, version }, body, scratch)
        }
    }
}

/// Applies one mutation of [`structured`] to `buf[..len]` and returns the new length, which is
/// never more than `buf.len()`.
fn mutate(buf: &mut [u8], len: usize, op: u16, operand: u8) -> usize {
    let len = len.min(buf.len());
    let at = usize::from(op & 0x3fff);
    match op >> 14 {
        0 => {
            if let Some(b) = at.checked_rem(len).and_then(|i| buf.get_mut(i)) {
                *b ^= operand;
            }
            len
        }
        1 => {
            let at = at.checked_rem(len.saturating_add(1)).unwrap_or(0);
            // `at..=len` is there only while the instance has room to grow.
            match buf.get_mut(at..=len) {
                Some(moved) => {
                    moved.rotate_right(1);
                    if let Some(first) = moved.first_mut() {
                        *first = operand;
                    }
                    len.saturating_add(1)
                }
                None => len,
            }
        }
        2 => match at.checked_rem(len).and_then(|i| buf.get_mut(i..len)) {
            Some(moved) => {
                moved.rotate_left(1);
                len.saturating_sub(1)
            }
            None => len,
        },
        _ => at.checked_rem(len).unwrap_or(0),
    }
}

// ---------------------------------------------------------------------------------------------
// The dissector against the typed frame decoder.

/// The deepest tree whose shape [`dissector`] checks (far deeper than any schema nests).
const MAX_TREE_DEPTH: usize = 64;

/// The dissector ([`kwire_schema::describe`]) against the typed frame decoder.
///
/// Input: a selector byte whose bit 0 picks a request frame (0) or a response frame (1); for a
/// response, the API key (`int16`) and version (`int16`) as in [`response_body`]; then the frame
/// (size prefix, header, body).
///
/// The frame is walked with [`describe::visit_request_frame`] or
/// [`describe::visit_response_frame`] and decoded with [`frame::decode_request`] or
/// [`frame::decode_response`]. Checked:
///
/// * every node lies inside the frame, and when the walk succeeds the nodes form the tree the
///   test `random_instances_dissect_like_the_typed_decoder` checks: one root covering the whole
///   frame, every node with children exactly as large as its children, which follow each other
///   from its start, `last` on exactly the last child of each node, and a size on every node;
/// * the walk and the typed decoder agree, with the rule of that test: both succeed, or the walk
///   fails with [`DescribeError::Decode`] and the typed decoder fails, at the same offset and
///   with the same kind. Every departure from it is one the test never meets:
///   * [`DescribeError::UnknownApi`] (no schema for the key: nothing is read) must meet a typed
///     failure, `UnknownApiKey` for a request frame whose size prefix is right;
///   * an error inside a records field (the test's records are always whole batches) is the
///     walk's alone: the walk reads the entries (batches, records, legacy messages) while the
///     typed decoder keeps the field as bytes for [`Records::batches`], so the typed decoder must
///     succeed, or fail at or after the end of that field;
///   * a frame whose size prefix does not match its length (the test always sets it right) must
///     fail both ways, but not alike: the walk reports the first error in the bytes that are
///     there, the typed decoder rejects the frame before its header. Such a frame is checked
///     again with its size prefix corrected (a copy in `scratch`), under the exact rule;
///   * `Fmt` and `ScratchTooSmall` never happen here;
/// * on strings that are not UTF-8, which both read: when both succeed, the typed decoders
///   through a reader checking UTF-8 ([`Reader::checking_utf8`]) refuse the frame, with
///   `InvalidUtf8`, exactly at the first byte of the first string the tree shows that is not
///   UTF-8 (its `Str::to_str` fails), and read it when the tree shows none. An ApiVersions
///   response, which may be in the v0 layout a broker falls back to, is left out of this.
///
/// The outcome is [`Outcome::Rejected`] when the typed decoder rejected the frame as given, else
/// [`Outcome::Checked`] with the number of nodes visited.
///
/// # Errors
///
/// The first invariant that did not hold.
pub fn dissector(data: &[u8], scratch: &mut [u8]) -> Result<Outcome, OracleFailure> {
    let Some((&selector, rest)) = data.split_first() else {
        return Ok(Outcome::Rejected);
    };
    let (side, frame) = if selector & 1 == 0 {
        (Side::Request, rest)
    } else {
        let Some((key, version, frame)) = key_and_version(rest) else {
            return Ok(Outcome::Rejected);
        };
        (Side::Response(key, version), frame)
    };
    let outcome = dissect(side, frame)?;
    if let Some(size) = frame
        .len()
        .checked_sub(SIZE_LEN)
        .and_then(|n| i32::try_from(n).ok())
        && announced_size(frame) != Some(size)
        && let Some(copy) = scratch.get_mut(..frame.len())
    {
        copy.copy_from_slice(frame);
        if let Some(prefix) = copy.get_mut(..SIZE_LEN) {
            prefix.copy_from_slice(&size.to_be_bytes());
        }
        dissect(side, copy)?;
    }
    Ok(outcome)
}

/// Which frame [`dissector`] reads.
#[derive(Debug, Clone, Copy)]
enum Side {
    Request,
    Response(ApiKey, i16),
}

/// One frame through the dissector and the typed decoder.
fn dissect(side: Side, frame: &[u8]) -> Result<Outcome, OracleFailure> {
    let mut tree = Tree::new(frame.len());
    let walked = match side {
        Side::Request => describe::visit_request_frame(frame, &mut tree),
        Side::Response(key, version) => {
            describe::visit_response_frame(frame, key, version, &mut tree)
        }
    };
    let typed = match side {
        Side::Request => frame::decode_request(frame).map(|_| frame.len()),
        Side::Response(key, version) => {
            frame::decode_response(frame, key, version).map(|_| frame.len())
        }
    };
    if let Some(stage) = tree.outside {
        return Err(OracleFailure::Invariant { stage });
    }
    if let Err(error) = &typed {
        check_offset("dissector: typed decoder error", error, frame.len())?;
    }
    let exact = announced_size(frame)
        .and_then(|size| usize::try_from(size).ok())
        .and_then(|size| size.checked_add(SIZE_LEN))
        == Some(frame.len());
    let outcome = if typed.is_ok() {
        Outcome::Checked { items: tree.nodes }
    } else {
        Outcome::Rejected
    };
    match (walked, typed) {
        (Ok(()), Ok(_)) => {
            tree.finish()?;
            utf8_agrees(side, frame, tree.not_utf8)?;
            Ok(outcome)
        }
        (Err(DescribeError::Decode(error)), typed) => {
            check_offset("dissector: walk error", &error, frame.len())?;
            let same = typed
                .as_ref()
                .is_err_and(|t| t.offset == error.offset && t.kind == error.kind);
            // An error inside a records field is the walk's alone, and the typed decoder read
            // the field as bytes: it succeeds, or fails after the field.
            let in_records = tree
                .records_end(error.offset)
                .is_some_and(|end| typed.as_ref().map_or_else(|t| t.offset >= end, |_| true));
            if same || in_records || (!exact && typed.is_err()) {
                Ok(outcome)
            } else {
                Err(OracleFailure::Disagree {
                    stage: "dissector: the walk and the typed decoder disagree",
                    first: Err(error),
                    second: typed,
                })
            }
        }
        (Ok(()), Err(typed)) => Err(OracleFailure::Disagree {
            stage: "dissector: the walk accepts a frame the typed decoder rejects",
            first: Ok(frame.len()),
            second: Err(typed),
        }),
        (Err(DescribeError::UnknownApi), Err(typed)) => {
            ensure(
                !exact
                    || matches!(side, Side::Response(..))
                    || matches!(typed.kind, DecodeErrorKind::UnknownApiKey(_)),
                "dissector: no schema for a request the typed decoder knows",
            )?;
            Ok(outcome)
        }
        (Err(DescribeError::UnknownApi), Ok(_)) => Err(OracleFailure::Invariant {
            stage: "dissector: no schema for a frame the typed decoder accepts",
        }),
        (Err(DescribeError::Fmt | DescribeError::ScratchTooSmall { .. }), _) => {
            Err(OracleFailure::Invariant {
                stage: "dissector: the walk failed without a decoding error",
            })
        }
    }
}

/// The typed decoders over a frame they read, through a reader checking UTF-8: they refuse it
/// at `not_utf8`, the first byte of the first string the tree showed that is not UTF-8, and
/// read it when there is none.
fn utf8_agrees(side: Side, frame: &[u8], not_utf8: Option<usize>) -> Result<(), OracleFailure> {
    let stage = "dissector: a string that is not UTF-8 in the tree, and a decode checking UTF-8";
    let payload = frame.get(SIZE_LEN..).unwrap_or_default();
    let mut r = Reader::with_offset(payload, SIZE_LEN).checking_utf8();
    let checked = match side {
        Side::Request => {
            let info = frame::request_info(frame)
                .map_err(|error| OracleFailure::Redecode { stage, error })?;
            let (key, version) = (info.api_key, info.api_version);
            RequestHeader::decode(&mut r, request_header_version(key, version))
                .and_then(|_| Request::decode(&mut r, key, version))
                .map(|_| ())
        }
        Side::Response(ApiKey::API_VERSIONS, _) => return Ok(()),
        Side::Response(key, version) => {
            ResponseHeader::decode(&mut r, response_header_version(key, version))
                .and_then(|_| Response::decode(&mut r, key, version))
                .map(|_| ())
        }
    };
    match (not_utf8, checked) {
        (None, Ok(())) => Ok(()),
        (Some(at), Err(e)) if e.kind == DecodeErrorKind::InvalidUtf8 && e.offset == at => Ok(()),
        (shown, checked) => Err(OracleFailure::Disagree {
            stage,
            first: shown.map_or(Ok(frame.len()), |at| {
                Err(DecodeError::new(
                    at,
                    DecodeErrorKind::InvalidUtf8,
                    "dissector",
                ))
            }),
            second: checked.map(|()| frame.len()),
        }),
    }
}

/// A node of [`Tree`] whose children may still come.
#[derive(Debug, Clone, Copy, Default)]
struct Open {
    depth: usize,
    offset: usize,
    size: Option<usize>,
    /// Where the next child must start.
    end: usize,
    children: usize,
    /// The `last` flag of the latest child.
    last: bool,
}

/// A visitor that records nothing but checks the nodes as they come: each inside the frame
/// (`outside`, always a failure) and together a tree that tiles the frame (`shape`, a failure
/// when the walk succeeded).
#[derive(Debug)]
struct Tree {
    len: usize,
    nodes: usize,
    open: [Open; MAX_TREE_DEPTH],
    depth: usize,
    roots: usize,
    root_size: Option<usize>,
    /// The tree went deeper than [`MAX_TREE_DEPTH`]: its shape is not checked.
    deep: bool,
    /// Start and end of the latest records field whose entries the walk went into.
    records: Option<(usize, usize)>,
    /// The first byte of the first string that is not UTF-8.
    not_utf8: Option<usize>,
    outside: Option<&'static str>,
    shape: Option<&'static str>,
}

impl Tree {
    fn new(len: usize) -> Self {
        Self {
            len,
            nodes: 0,
            open: [Open::default(); MAX_TREE_DEPTH],
            depth: 0,
            roots: 0,
            root_size: None,
            deep: false,
            records: None,
            not_utf8: None,
            outside: None,
            shape: None,
        }
    }

    fn shape(&mut self, ok: bool, stage: &'static str) {
        if !ok && self.shape.is_none() {
            self.shape = Some(stage);
        }
    }

    /// The end of the latest records field the walk went into, when `offset` lies in it.
    fn records_end(&self, offset: usize) -> Option<usize> {
        self.records
            .filter(|&(start, end)| start <= offset && offset <= end)
            .map(|(_, end)| end)
    }

    /// The innermost open node, if any.
    fn top(&self) -> Option<Open> {
        self.depth
            .checked_sub(1)
            .and_then(|i| self.open.get(i))
            .copied()
    }

    /// Closes the innermost open node: no more children will come.
    fn close(&mut self) {
        let Some(top) = self.top() else {
            return;
        };
        self.depth = self.depth.saturating_sub(1);
        if top.children == 0 {
            self.shape(top.size.is_some(), "dissector: a leaf without a size");
        } else {
            self.shape(
                top.size == top.end.checked_sub(top.offset),
                "dissector: a node is not the sum of its children",
            );
            self.shape(top.last, "dissector: the last child is not marked last");
        }
    }

    /// Closes every node and checks the shape of a tree whose walk succeeded.
    fn finish(&mut self) -> Result<(), OracleFailure> {
        while self.depth > 0 {
            self.close();
        }
        self.shape(
            self.roots == 1 && self.root_size == Some(self.len),
            "dissector: the root does not cover the frame",
        );
        match self.shape {
            Some(stage) if !self.deep => Err(OracleFailure::Invariant { stage }),
            _ => Ok(()),
        }
    }
}

impl Visit for Tree {
    fn node(&mut self, node: &Node<'_>) -> fmt::Result {
        self.nodes = self.nodes.saturating_add(1);
        let end = node
            .size
            .map_or(Some(node.offset), |size| node.offset.checked_add(size));
        if end.is_none_or(|end| end > self.len) && self.outside.is_none() {
            self.outside = Some("dissector: a node outside the frame");
        }
        if let (Value::Records { .. }, Some(end)) = (node.value, end) {
            self.records = Some((node.offset, end));
        }
        if let (Value::Str(s, _), Some(end), None) = (node.value, end, self.not_utf8)
            && s.to_str().is_err()
        {
            self.not_utf8 = Some(end.saturating_sub(s.len()));
        }
        while self.top().is_some_and(|top| top.depth >= node.depth) {
            self.close();
        }
        let at = self.depth.checked_sub(1);
        match at.and_then(|i| self.open.get_mut(i)) {
            None => {
                let ok = node.depth == 0 && node.offset == 0 && self.roots == 0;
                self.roots = self.roots.saturating_add(1);
                self.root_size = node.size;
                self.shape(ok, "dissector: not a single root at offset 0");
            }
            Some(parent) => {
                let depth_ok = parent.depth.checked_add(1) == Some(node.depth);
                let previous_ok = parent.children == 0 || !parent.last;
                let start_ok = node.offset == parent.end;
                parent.end = parent.end.saturating_add(node.size.unwrap_or(0));
                parent.children = parent.children.saturating_add(1);
                parent.last = node.last;
                self.shape(
                    depth_ok,
                    "dissector: a node deeper than a child of its parent",
                );
                self.shape(previous_ok, "dissector: a child after one marked last");
                self.shape(start_ok, "dissector: a child not where its sibling ended");
            }
        }
        match self.open.get_mut(self.depth) {
            Some(slot) => {
                *slot = Open {
                    depth: node.depth,
                    offset: node.offset,
                    size: node.size,
                    end: node.offset,
                    children: 0,
                    last: false,
                };
                self.depth = self.depth.saturating_add(1);
            }
            None => self.deep = true,
        }
        Ok(())
    }
}

/// The client's side of a SASL exchange against a server of the input's choosing: the first byte
/// picks the mechanism (bits 0-1: SCRAM-SHA-256, SCRAM-SHA-512, PLAIN, OAUTHBEARER) and which of
/// the server's messages the input replaces (bit 2: the first, bit 3: the last); then a length
/// byte and the replacing first message, and the rest is the replacing last one.
///
/// An honest SCRAM server ([`kwire::session::sasl::server::ScramServer`], user `user`,
/// password `pencil`) answers wherever the input does not, and must accept the client's proof.
/// Nothing panics, and a SCRAM client never ends in success unless both of the server's
/// messages it read are the honest server's (the signature: its first attribute): no input can
/// make it accept a server that does not know the password.
///
/// # Errors
///
/// The first invariant that did not hold.
pub fn sasl(data: &[u8], _scratch: &mut [u8]) -> Result<Outcome, OracleFailure> {
    use kwire::session::sasl::server::{ScramCredential, ScramServer};
    use kwire::session::sasl::{Credentials, SaslClient, ScramHash};

    let Some((&mode, rest)) = data.split_first() else {
        return Ok(Outcome::Rejected);
    };
    let (first_len, rest) = rest.split_first().map_or((0, rest), |(&n, r)| (n, r));
    let (given_first, given_last) = rest
        .split_at_checked(usize::from(first_len))
        .unwrap_or((rest, &[]));
    let (replace_first, replace_last) = (mode & 4 != 0, mode & 8 != 0);
    let nonce = b"rOprNGfwEbeRWgbNEkqO";
    let hash = match mode & 3 {
        0 => ScramHash::Sha256,
        1 => ScramHash::Sha512,
        other => {
            // PLAIN and OAUTHBEARER read whatever the server says without panicking, and end
            // after at most two steps.
            let credentials = if other == 2 {
                Credentials::plain("user", "pencil")
            } else {
                Credentials::oauth_bearer("token")
            };
            let mut client = SaslClient::new(credentials);
            let mut out = [0u8; 128];
            ensure(client.start(&mut out).is_ok(), "sasl: the first message")?;
            let mut steps = 0;
            for message in [given_first, given_last] {
                match client.step(message, &mut out) {
                    Ok(Some(_)) => steps += 1,
                    Ok(None) | Err(_) => break,
                }
            }
            ensure(steps <= 1, "sasl: a one-message mechanism went on")?;
            return Ok(Outcome::Checked { items: steps });
        }
    };
    let mut client = SaslClient::new(Credentials::scram(hash, "user", "pencil", nonce));
    let mut client_first = [0u8; 64];
    let n = client
        .start(&mut client_first)
        .map_err(|_| OracleFailure::Invariant {
            stage: "sasl: the client-first message",
        })?;
    let client_first = client_first.get(..n).unwrap_or_default();
    let credential = ScramCredential::derive(hash, b"pencil", b"salt", 4096).map_err(|_| {
        OracleFailure::Invariant {
            stage: "sasl: a credential",
        }
    })?;
    let mut honest_first = [0u8; 256];
    let (server, n) = ScramServer::start(
        client_first,
        |user| (user == "user").then_some(credential),
        b"server-nonce",
        &mut honest_first,
    )
    .map_err(|_| OracleFailure::Invariant {
        stage: "sasl: the server reads the client-first message",
    })?;
    let honest_first = honest_first.get(..n).unwrap_or_default();
    let first = if replace_first {
        given_first
    } else {
        honest_first
    };
    let mut client_final = [0u8; 256];
    let Ok(Some(n)) = client.step(first, &mut client_final) else {
        ensure(
            replace_first,
            "sasl: the client refused the honest server-first message",
        )?;
        return Ok(Outcome::Rejected);
    };
    let client_final = client_final.get(..n).unwrap_or_default();
    // The honest server checks the proof of a client that read its own first message.
    let mut honest_last = [0u8; 128];
    let honest_last = if first == honest_first {
        let n = server.finish(client_final, &mut honest_last).map_err(|_| {
            OracleFailure::Invariant {
                stage: "sasl: the honest server refused the client's proof",
            }
        })?;
        honest_last.get(..n).unwrap_or_default()
    } else {
        &[]
    };
    let last = if replace_last {
        given_last
    } else {
        honest_last
    };
    let mut out = [0u8; 64];
    match client.step(last, &mut out) {
        Ok(None) => {
            let signature = |m: &[u8]| m.split(|&b| b == b',').next().map(<[u8]>::to_vec);
            ensure(
                first == honest_first
                    && !honest_last.is_empty()
                    && signature(last) == signature(honest_last),
                "sasl: the client accepted a server that does not know the password",
            )?;
            ensure(client.is_done(), "sasl: accepted but not done")?;
            Ok(Outcome::Checked { items: 2 })
        }
        Ok(Some(_)) => Err(OracleFailure::Invariant {
            stage: "sasl: a third client message",
        }),
        Err(_) => {
            ensure(!client.is_done(), "sasl: refused but done")?;
            ensure(
                replace_first || replace_last,
                "sasl: the client refused the honest server",
            )?;
            Ok(Outcome::Rejected)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rejects_short_and_unknown_input() {
        let mut scratch = [0u8; 64];
        assert_eq!(request_body(&[0, 18], &mut scratch), Ok(Outcome::Rejected));
        assert_eq!(
            request_body(&[0x7f, 0, 0, 0], &mut scratch),
            Ok(Outcome::Rejected)
        );
        assert_eq!(split(&[0], &mut scratch), Ok(Outcome::Rejected));
    }

    #[test]
    fn api_versions_v3_request_round_trips_canonically() {
        // Key 18, version 3; client software name "a", version "1", no tagged fields.
        let input = [0, 18, 0, 3, 2, b'a', 2, b'1', 0];
        let mut scratch = [0u8; 64];
        assert_eq!(
            request_body(&input, &mut scratch),
            Ok(Outcome::RoundTrip { canonical: true })
        );
        // A non-minimal varint length is accepted and re-encoded minimally.
        let input = [0, 18, 0, 3, 0x82, 0, b'a', 2, b'1', 0];
        assert_eq!(
            request_body(&input, &mut scratch),
            Ok(Outcome::RoundTrip { canonical: false })
        );
    }

    #[test]
    fn split_walks_a_stream() {
        let mut scratch = [0u8; 64];
        let input = [0, 16, 0, 0, 0, 1, 9, 0, 0, 0, 2, 1];
        assert_eq!(
            split(&input, &mut scratch),
            Ok(Outcome::Checked { items: 1 })
        );
        let too_large = [0, 1, 0, 0, 0, 2, 1, 2];
        assert_eq!(
            split(&too_large, &mut scratch),
            Ok(Outcome::Checked { items: 0 })
        );
    }

    #[test]
    fn primitives_round_trip() {
        let mut scratch = [0u8; 64];
        // uvarint 300 (non-minimal 3 bytes), compact string "hi", tagged section with
        // 1 known tag: [tag 0 size 1 'x', tag 3 size 0].
        let input = [
            0x00, 0xac, 0x82, 0x00, 0x13, 3, b'h', b'i', 0x29, 2, 0, 1, b'x', 3, 0,
        ];
        assert_eq!(
            primitives(&input, &mut scratch),
            Ok(Outcome::Checked { items: 3 })
        );
        // Strings that are not UTF-8 read, write back and are refused by a reader checking
        // UTF-8: compact "\xffi", then nullable classic "a\xc3".
        let input = [0x13, 3, 0xff, b'i', 0x04, 0, 2, b'a', 0xc3];
        assert_eq!(
            primitives(&input, &mut scratch),
            Ok(Outcome::Checked { items: 2 })
        );
    }

    #[test]
    fn mutations_edit_in_place() {
        let mut buf = [1u8, 2, 3, 0];
        // XOR at 1, insert 9 at 0, remove at 3, truncate at 2.
        assert_eq!(mutate(&mut buf, 3, 0x0001, 0xff), 3);
        assert_eq!(buf, [1, 0xfd, 3, 0]);
        assert_eq!(mutate(&mut buf, 3, 0x4000, 9), 4);
        assert_eq!(buf, [9, 1, 0xfd, 3]);
        assert_eq!(mutate(&mut buf, 4, 0x8003, 0), 3);
        assert_eq!(buf[..3], [9, 1, 0xfd]);
        assert_eq!(mutate(&mut buf, 3, 0xc002, 0), 2);
        // No room to insert; nothing to edit in an empty instance.
        assert_eq!(mutate(&mut buf, 4, 0x4000, 7), 4);
        assert_eq!(mutate(&mut [], 0, 0x0000, 1), 0);
        assert_eq!(mutate(&mut [], 0, 0x8000, 1), 0);
    }

    #[test]
    fn structured_walker_instances_round_trip() {
        let mut scratch = [0u8; structured_scratch_len()];
        // Produce v9 request, seed 1; Fetch v16 response, seed 2.
        for pick in [
            [0, 9, 0, 0, 0, 0, 0, 0, 0, 1],
            [3, 16, 0, 0, 0, 0, 0, 0, 0, 2],
        ] {
            assert_eq!(
                structured(&pick, &mut scratch),
                Ok(Outcome::RoundTrip { canonical: true })
            );
        }
        // Truncated to nothing: both readings reject it.
        let cut = [0, 9, 0, 0, 0, 0, 0, 0, 0, 1, 0xc0, 0, 0];
        assert_eq!(structured(&cut, &mut scratch), Ok(Outcome::Rejected));
        assert_eq!(structured(&[], &mut scratch), Ok(Outcome::Rejected));
        assert_eq!(structured(&[0], &mut [0u8; 16]), Ok(Outcome::Skipped));
    }

    #[test]
    fn dissector_agrees_with_the_frame_decoder() {
        let mut scratch = [0u8; 256];
        // A RenewDelegationToken v2 request frame.
        let mut input = [
            0, 0, 0, 0, 21, 0, 39, 0, 2, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0,
        ];
        assert!(matches!(
            dissector(&input, &mut scratch),
            Ok(Outcome::Checked { items }) if items > 10
        ));
        // Its size prefix announcing more bytes than there are, though the body is whole.
        input[4] = 99;
        assert_eq!(dissector(&input, &mut scratch), Ok(Outcome::Rejected));
        // A frame that ends inside its API key.
        assert_eq!(
            dissector(&[0, 0, 0, 0, 1, 0], &mut scratch),
            Ok(Outcome::Rejected)
        );
        // The body's empty tagged section as a two-byte varint.
        let long = [
            0, 0, 0, 0, 22, 0, 39, 0, 2, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0x80, 0,
        ];
        assert!(matches!(
            dissector(&long, &mut scratch),
            Ok(Outcome::Checked { .. })
        ));
        // A client id that is not UTF-8: both read it, and a decode checking UTF-8 refuses the
        // frame at its byte, where the tree shows it.
        let not_utf8 = [
            0, 0, 0, 0, 22, 0, 39, 0, 2, 0, 0, 0, 0, 0, 1, 0xff, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0,
        ];
        assert!(matches!(
            dissector(&not_utf8, &mut scratch),
            Ok(Outcome::Checked { .. })
        ));
        assert_eq!(
            utf8_agrees(Side::Request, &not_utf8[1..], None).map_err(|_| ()),
            Err(())
        );
        assert_eq!(utf8_agrees(Side::Request, &not_utf8[1..], Some(14)), Ok(()));
    }

    #[test]
    fn nan_is_accepted_as_equal_to_itself() {
        assert!(same_value(&f64::NAN, &f64::NAN));
        assert!(!same_value(&1.0f64, &2.0f64));
    }
}
