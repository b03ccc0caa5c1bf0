//! Round-trip oracles shared by the fuzz targets in `fuzz/` and by `tests/corpus_replay.rs`.
//!
//! Not part of the public API and outside semver: it exists so that the fuzz targets stay
//! one-line wrappers and so that plain `cargo test` replays the fuzz corpus through exactly the
//! same checks.
//!
//! Every oracle takes arbitrary input and a scratch buffer lent by the caller (nothing is
//! allocated; [`scratch_len`] says how much to lend), and returns
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
//! 4. encoding into a buffer one byte too short fails with `BufferTooSmall` and writes nothing;
//! 5. re-encoding the second value reproduces `e` byte for byte:
//!    `encode(decode(encode(decode(x)))) == encode(decode(x))`.
//!
//! The re-encoding is not required to equal the input: the decoder accepts what Kafka's Java
//! reader accepts (non-minimal varints, any negative length as null, any non-zero `bool`, default
//! tagged fields written out) and encoding is always canonical. [`Outcome::RoundTrip`] reports
//! whether it did (`canonical`), so that known-canonical inputs can be held to it.
//!
//! Every decode error must name an offset inside the input it was given.

use core::fmt;

use crate::api::{ApiKey, Request, Response};
use crate::codec::{
    Encode, RawTaggedField, Reader, TaggedFields, TaggedSection, Writer, bytes_len, len_prefix,
    null_len, nullable_bytes_len, nullable_string_len, string_len, tagged_entry_len, uvarint_len,
    varint_len, varlong_len,
};
use crate::error::{DecodeError, DecodeErrorKind, EncodeError, Status};
use crate::frame::{self, SIZE_LEN};
use crate::header::request_header_version;
use crate::messages::RequestHeader;

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
        let value = Request::decode(self.key, self.version, &mut r)?;
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
        let value = Response::decode(self.key, self.version, &mut r)?;
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

/// The filler of buffers that must stay untouched.
const JUNK: u8 = 0xa5;

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
    let (encoding, rest) = scratch.split_at_mut(len);

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

    // One byte short: a typed error, and not a byte written.
    if let Some(short_len) = len.checked_sub(1) {
        let short = rest.get_mut(..short_len).ok_or(OracleFailure::Invariant {
            stage: "scratch split",
        })?;
        short.fill(JUNK);
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
        if let Some(offset) = short.iter().position(|&b| b != JUNK) {
            return Err(OracleFailure::Bytes {
                stage: "encode into a short buffer wrote",
                offset,
            });
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
    read: impl FnOnce(&mut Reader<'s>) -> Result<T, DecodeError>,
) -> Result<(), OracleFailure> {
    let mut r = Reader::new(written);
    let again = read(&mut r).map_err(|error| OracleFailure::Redecode { stage, error })?;
    ensure(again == *value, stage)?;
    expect_len(stage, written.len(), r.offset())
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
            let v = r.uvarint(P)?;
            let out = written!("uvarint", uvarint_len(v), |w| w.uvarint(v));
            reread("uvarint", out, &v, |r| r.uvarint(P))?;
        }
        1 => {
            let v = r.varint(P)?;
            let out = written!("varint", varint_len(v), |w| w.varint(v));
            reread("varint", out, &v, |r| r.varint(P))?;
        }
        2 => {
            let v = r.varlong(P)?;
            let out = written!("varlong", varlong_len(v), |w| w.varlong(v));
            reread("varlong", out, &v, |r| r.varlong(P))?;
        }
        3 => {
            let v = r.string(flexible, P)?;
            let len = encode_len("string_len", string_len(v, flexible, P))?;
            let out = written!("string", len, |w| w.string(v, flexible));
            reread("string", out, &v, |r| r.string(flexible, P))?;
        }
        4 => {
            let v = r.nullable_string(flexible, P)?;
            let len = encode_len("nullable_string_len", nullable_string_len(v, flexible, P))?;
            let out = written!("nullable string", len, |w| w.nullable_string(v, flexible));
            reread("nullable string", out, &v, |r| {
                r.nullable_string(flexible, P)
            })?;
        }
        5 => {
            let v = r.bytes(flexible, P)?;
            let len = encode_len("bytes_len", bytes_len(v, flexible, P))?;
            let out = written!("bytes", len, |w| w.bytes(v, flexible));
            reread("bytes", out, &v, |r| r.bytes(flexible, P))?;
        }
        6 => {
            let v = r.nullable_bytes(flexible, P)?;
            let len = encode_len("nullable_bytes_len", nullable_bytes_len(v, flexible, P))?;
            let out = written!("nullable bytes", len, |w| w.nullable_bytes(v, flexible));
            reread("nullable bytes", out, &v, |r| r.nullable_bytes(flexible, P))?;
        }
        7 => {
            let n = r.array_len(flexible, P)?;
            let len = encode_len("array length", len_prefix(n, flexible, false, P))?;
            let out = written!("array length", len, |w| w.len(n, flexible, false));
            check_array_len(out, Some(n), flexible)?;
        }
        8 => {
            let n = r.nullable_array_len(flexible, P)?;
            let len = match n {
                Some(n) => encode_len("nullable array length", len_prefix(n, flexible, false, P))?,
                None => null_len(flexible, false),
            };
            let out = written!("nullable array length", len, |w| match n {
                Some(n) => w.len(n, flexible, false),
                None => w.null_len(flexible, false),
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
    let raw = if flexible {
        let u = r
            .uvarint(P)
            .map_err(|error| OracleFailure::Redecode { stage, error })?;
        i64::from(u).saturating_sub(1)
    } else {
        i64::from(
            r.i32(P)
                .map_err(|error| OracleFailure::Redecode { stage, error })?,
        )
    };
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
        while let Some((tag, payload)) = section.next(r)? {
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
    let mut section = TaggedSection::begin(r, first_unknown, P)?;
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
        unknown.write(w);
    })?
    else {
        return Ok(Step::Skipped);
    };

    let mut again = Reader::new(out);
    let redecode = |error| OracleFailure::Redecode { stage, error };
    let mut section2 = TaggedSection::begin(&mut again, first_unknown, P).map_err(redecode)?;
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
    }

    #[test]
    fn nan_is_accepted_as_equal_to_itself() {
        assert!(same_value(&f64::NAN, &f64::NAN));
        assert!(!same_value(&1.0f64, &2.0f64));
    }
}
