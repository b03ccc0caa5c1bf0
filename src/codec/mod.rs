//! Wire primitives: arrays, strings, UUIDs, version ranges, tagged fields, and the traits every
//! message implements.
//!
//! # Contract
//!
//! * Every input byte is read through a [`Reader`]; every output byte is written through the
//!   encoder's writer. Neither allocates nor panics.
//! * Decoding borrows: strings are [`Str`] views checked as UTF-8 where they are read
//!   ([`Str::to_str`]), bytes are `&'a [u8]`, arrays are [`Array`] views validated once and then
//!   iterated without errors.
//! * Encoding is one pass: [`Encode::encode`] checks each value as it writes it, and a buffer that
//!   is too small fails with [`EncodeError::BufferTooSmall`] carrying the size the encoding needs
//!   (what was written before an error is unspecified). [`Encode::encoded_len`] gives the exact
//!   size first, for callers who want it.
//!
//! # What is public
//!
//! What a program calls: [`Decode`], [`Encode`] and [`Message`] on every generated type, the
//! [`Reader`] a decode starts from, the value types ([`Array`], [`Str`], [`Uuid`],
//! [`VersionRange`], [`TaggedFields`]). The vocabulary the generated code is written in (the
//! reads and writes of each wire type, the size of each encoding, the tagged-field section's
//! walk, the `Decode::read` and `Encode::write` hooks) is public only because the dissector crate
//! (`kwire-schema`) reads with it too: it is hidden from this documentation, as prost hides its
//! encoding module, and may change in any release. What arrays do with their elements
//! ([`Element`] is sealed) and the error-free cursor that decoding validates arrays with stay
//! inside the crate.
//!
//! # Leniencies (as Kafka's Java reader)
//!
//! * A `bool` byte other than 0 reads as `true`.
//! * Varints may be non-minimal (`80 00` is 0); the bits of a 5th varint byte (10th varlong byte)
//!   that do not fit are ignored. Encoding is always minimal.
//! * In a nullable field, any negative length is null; in a non-nullable field, `-1` is
//!   [`DecodeErrorKind::UnexpectedNull`](crate::DecodeErrorKind::UnexpectedNull) and other negative
//!   lengths are [`DecodeErrorKind::NegativeLength`](crate::DecodeErrorKind::NegativeLength).
//! * The int8 marker of a nullable struct reads any negative value as null, anything else as
//!   present.
//!
//! * A string need not be UTF-8: decoding checks its length, and [`Str::to_str`] its bytes
//!   (Java substitutes U+FFFD; `Str::to_string_lossy`, with `alloc`, does too). A decode through
//!   [`Reader::checking_utf8`] refuses such a string.
//!
//! Stricter than Java: tagged fields must come in strictly increasing tag order, and a known
//! tagged field must consume exactly its declared size.
//!
//! # Inlining
//!
//! With the `perf` feature, the reads and writes every field calls are inlined into the generated
//! code. Without it (firmware), most of them are `inline(never)`: one copy of each serves every
//! field, which is what the small builds measure (the guide's chapter on embedded use gives the
//! producer's section sizes). Which ones are kept out of line was decided by measuring that
//! build: some are larger there out of line than inlined.

mod array;
mod fast_reader;
pub(crate) mod framing;
mod reader;
pub(crate) mod records_field;
mod tagged;
mod writer;

pub(crate) use array::ElementCodec;
pub use array::{Array, ArrayIter, ArrayView, Element, IntoNullable, StorageTooSmall};
pub(crate) use fast_reader::FastReader;
#[cfg(feature = "perf")]
pub(crate) use fast_reader::FastSection;
pub use reader::{Failed, Reader};
pub(crate) use records_field::Records;
#[cfg(feature = "in-place")]
pub(crate) use records_field::WriteRecords;
pub use tagged::{
    RawTaggedField, TaggedEntry, TaggedFieldIter, TaggedFields, TaggedSection, tagged_entry_len,
};
pub use writer::{
    Writer, bytes_len, len_prefix, nullable_bytes_len, nullable_records_len, nullable_string_len,
    records_len, string_len, uvarint_len, varint_len, varlong_len,
};

use crate::error::{DecodeError, EncodeError};
use crate::wire::ApiKey;
pub(crate) use crate::wire::Built;
pub use crate::wire::{
    Hyphenated, ParseUuidError, ParseVersionRangeError, Str, Uuid, VersionRange,
};

/// The longest string Kafka reads or writes, in UTF-8 bytes (also for compact strings).
pub const MAX_STRING_LEN: usize = 0x7fff;

/// How a length or element count is prefixed on the wire, which the value's kind and the
/// message version's flexibility decide.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
#[doc(hidden)]
pub enum LengthPrefix {
    /// `int16`, -1 for null: a string in a classic version.
    Int16,
    /// `int32`, -1 for null: bytes, records or an array in a classic version.
    Int32,
    /// An unsigned varint of N+1, 0 for null: a string in a flexible version (at most
    /// [`MAX_STRING_LEN`] bytes, as in every version).
    CompactString,
    /// An unsigned varint of N+1, 0 for null: bytes, records or an array in a flexible version.
    Compact,
}

impl LengthPrefix {
    /// The prefix of a string: [`LengthPrefix::CompactString`] in flexible versions, else
    /// [`LengthPrefix::Int16`].
    #[must_use]
    #[inline(always)]
    pub const fn string(flexible: bool) -> Self {
        if flexible {
            Self::CompactString
        } else {
            Self::Int16
        }
    }

    /// The prefix of bytes, records and arrays: [`LengthPrefix::Compact`] in flexible
    /// versions, else [`LengthPrefix::Int32`].
    #[must_use]
    #[inline(always)]
    pub const fn bytes(flexible: bool) -> Self {
        if flexible { Self::Compact } else { Self::Int32 }
    }

    /// True for the varint prefixes of flexible versions.
    #[must_use]
    #[inline(always)]
    pub const fn is_compact(self) -> bool {
        matches!(self, Self::CompactString | Self::Compact)
    }

    /// The largest length the prefix may carry: [`MAX_STRING_LEN`] for strings, `i32::MAX - 1`
    /// otherwise (a compact N+1 must fit an `int32`, as in Kafka's reader).
    #[must_use]
    #[inline(always)]
    pub const fn limit(self) -> usize {
        match self {
            Self::Int16 | Self::CompactString => MAX_STRING_LEN,
            Self::Int32 | Self::Compact => 0x7fff_fffe,
        }
    }

    /// The encoded size of a null: 1 compact byte, or -1 as `int16` or `int32`.
    #[must_use]
    #[inline(always)]
    pub const fn null_len(self) -> usize {
        match self {
            Self::CompactString | Self::Compact => 1,
            Self::Int16 => 2,
            Self::Int32 => 4,
        }
    }
}

/// Decoding of a message or struct at a version, borrowing from the input.
///
/// Every generated message and struct implements it; a program calls [`Decode::decode`] or
/// [`Decode::decode_exact`]. The method the generated types implement, and the reads it is
/// written with, are the generated code's own and are left out of this documentation (see
/// [what is public](self#what-is-public)).
///
/// ```
/// use kwire::codec::{Decode, Reader};
/// use kwire::messages::ApiVersionsRequest;
///
/// // ApiVersions v3: client software name and version, compact strings, no tagged fields.
/// let bytes = [6, b'k', b'w', b'i', b'r', b'e', 4, b'0', b'.', b'1', 0];
/// let request = ApiVersionsRequest::decode_exact(&bytes, 3)?;
/// assert_eq!(request.client_software_name, "kwire");
///
/// // Cut short: the error names the byte and the field.
/// let err = ApiVersionsRequest::decode(&mut Reader::new(&bytes[..8]), 3).unwrap_err();
/// assert_eq!((err.offset, err.path), (7, "ApiVersionsRequest.ClientSoftwareVersion"));
/// # Ok::<(), kwire::DecodeError>(())
/// ```
pub trait Decode<'a>: Sized {
    /// Schema path of the type, used in errors (for example `"FetchRequest"`).
    const PATH: &'static str;

    /// Decodes one value at `version`, advancing `r` past it; on failure the error is left in
    /// `r` ([`Reader::take_error`]). What [`Decode::decode`] runs, and what decoders call for
    /// their nested values.
    ///
    /// # Errors
    ///
    /// [`Failed`], with the [`DecodeError`] in `r`.
    #[doc(hidden)]
    fn read(r: &mut Reader<'a>, version: i16) -> Result<Self, Failed>;

    /// Decodes one value at `version`, advancing `r` past it.
    ///
    /// # Errors
    ///
    /// Any [`DecodeError`]: truncation, bad lengths, invalid UTF-8, tagged-field violations, and
    /// for top-level messages a version outside the valid range.
    #[inline]
    fn decode(r: &mut Reader<'a>, version: i16) -> Result<Self, DecodeError> {
        Self::read(r, version).map_err(|Failed| r.take_error())
    }

    /// Decodes a value that must span all of `bytes`.
    ///
    /// # Errors
    ///
    /// As [`Decode::decode`], plus `TrailingBytes` when input is left over.
    fn decode_exact(bytes: &'a [u8], version: i16) -> Result<Self, DecodeError> {
        let mut r = Reader::new(bytes);
        let v = Self::decode(&mut r, version)?;
        r.finish(Self::PATH)?;
        Ok(v)
    }
}

/// The read of a generated type through a [`FastReader`], which records no error: `None` wherever
/// [`Decode::read`] would fail, and wherever the type leaves the bytes to `read` (generated
/// elements leave a non-empty tagged section to it; generated messages with tagged fields of
/// their own read it with a [`Reader`] from where the fast reader stands). Good input so costs no
/// error bookkeeping: the generated types' [`Decode::decode`] tries it first
/// ([`read_fast_or_read`]).
#[cfg(feature = "perf")]
pub(crate) trait ReadFast<'a>: Decode<'a> {
    /// Reads one value at `version`, advancing `w` past it.
    fn read_fast(w: &mut FastReader<'a>, version: i16) -> Option<Self>;
}

/// Reads one `T` at `version` as the generated types' [`Decode::decode`] does with `perf`:
/// through a fast reader first ([`ReadFast`]), and with [`Decode::read`] only where the fast reader
/// refuses; the by-key decoders of requests and responses read their bodies so too.
#[cfg(feature = "perf")]
#[inline]
pub(crate) fn read_fast_or_read<'a, T: ReadFast<'a>>(
    r: &mut Reader<'a>,
    version: i16,
) -> Result<T, Failed> {
    let mut w = FastReader::at(r);
    if let Some(v) = T::read_fast(&mut w, version) {
        r.advance_to(&w);
        return Ok(v);
    }
    T::read(r, version)
}

/// [`read_fast_or_read`] for the by-key decoders of requests and responses: the value as the
/// variant `wrap` makes, or the error the reader recorded. Each arm of those decoders writes its
/// own variant into the result, so that no whole enum is copied from one result to another.
#[cfg(feature = "perf")]
#[inline(always)]
#[allow(
    dead_code,
    reason = "a build without any API feature has no by-key decoder"
)]
pub(crate) fn read_fast_or_read_as<'a, T: ReadFast<'a>, S>(
    r: &mut Reader<'a>,
    version: i16,
    wrap: fn(T) -> S,
) -> Result<S, DecodeError> {
    match read_fast_or_read::<T>(r, version) {
        Ok(v) => Ok(wrap(v)),
        Err(Failed) => Err(r.take_error()),
    }
}

/// [`read_fast_or_read`] for the by-key decoders, in a build without `perf`.
#[cfg(not(feature = "perf"))]
#[inline(always)]
#[allow(
    dead_code,
    reason = "a build without any API feature has no by-key decoder"
)]
pub(crate) fn read_fast_or_read_as<'a, T: Decode<'a>, S>(
    r: &mut Reader<'a>,
    version: i16,
    wrap: fn(T) -> S,
) -> Result<S, DecodeError> {
    match T::read(r, version) {
        Ok(v) => Ok(wrap(v)),
        Err(Failed) => Err(r.take_error()),
    }
}

/// Encoding of a message or struct at a version into a caller's buffer.
///
/// A value the version cannot carry is refused, never lost: [`Encode::encode`] fails with
/// [`EncodeError::FieldNotInVersion`] naming the field and the versions that have it.
/// [`Encode::encode_lenient`] is the one exception, for proxies that re-encode at another
/// version: it leaves out the values of fields Kafka's schema marks *ignorable*, as Kafka's own
/// serializer does (see [`messages`](crate::messages#fields-outside-a-version)).
///
/// Encoding is one pass: the value is written as it is checked, and a buffer that is too small
/// is found at the end, with the size the encoding needs. What was written before an error is
/// unspecified. [`Encode::encoded_len`] gives the size first, for callers who want it.
pub trait Encode {
    /// The exact number of bytes [`Encode::encode_lenient`] writes for `version`, which is also
    /// what [`Encode::encode`] writes when it succeeds, after the checks they make: this is where
    /// an encode's errors come from, except the one for an ignorable field's value that the
    /// version cannot carry ([`Encode::dropped_field`]), which only [`Encode::encode`] makes.
    ///
    /// # Errors
    ///
    /// `UnsupportedVersion`, `FieldNotInVersion` (for a field that is not ignorable),
    /// `TopicNamedBy`, `NullNotAllowed`, `LengthOverflow`, `TaggedFieldsNotInVersion`,
    /// `InvalidUnknownTag`.
    fn encoded_len(&self, version: i16) -> Result<usize, EncodeError>;

    /// Writes the encoding at `version`, leaving out the values [`Encode::dropped_field`] finds.
    /// Where [`Encode::encoded_len`] would fail, the writer is [refused](Writer::refused) instead
    /// (with `perf`: a small build's encoders size first, and its generated writes leave those
    /// checks to the sizing); a writer that runs out of room records the overflow and goes on
    /// counting.
    #[doc(hidden)]
    fn write(&self, w: &mut Writer<'_>, version: i16);

    /// Writes the encoding at `version` at the start of `out` and returns the number of bytes
    /// written, which equals [`Encode::encoded_len`].
    ///
    /// # Errors
    ///
    /// As [`Encode::encoded_len`], then `FieldNotInVersion` (with `ignorable: true`) for a
    /// value [`Encode::dropped_field`] finds, then `BufferTooSmall { required, available }`.
    fn encode(&self, version: i16, out: &mut [u8]) -> Result<usize, EncodeError> {
        encode_once(self, version, out, Drops::Refused)
    }

    /// The first field, in field order and nested structs included, whose value an encode at
    /// `version` cannot carry although Kafka's schema marks it *ignorable*: a value other than
    /// the field's default, at a version without the field. [`Encode::encode`] refuses it;
    /// [`Encode::encode_lenient`] leaves it out. `None` when an encode at `version` carries
    /// every value. (A field that is not ignorable never gets here: every encode refuses it; see
    /// [`messages`](crate::messages#fields-outside-a-version).)
    fn dropped_field(&self, version: i16) -> Option<DroppedField> {
        let _ = version;
        None
    }

    /// [`Encode::encode`], except that the value of an ignorable field the version cannot carry
    /// ([`Encode::dropped_field`]) is left out, as Kafka's own serializer does: for a proxy that
    /// re-encodes a message at another version than it was read at, and accepts losing the
    /// hints (a rack id, a client's software name) the older version has no field for.
    ///
    /// # Errors
    ///
    /// As [`Encode::encoded_len`], plus `BufferTooSmall { required, available }`.
    fn encode_lenient(&self, version: i16, out: &mut [u8]) -> Result<usize, EncodeError> {
        encode_once(self, version, out, Drops::Allowed)
    }
}

/// A field whose value an encode at some version cannot carry, as [`Encode::dropped_field`]
/// finds it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct DroppedField {
    /// Schema path of the field, such as `"ProduceRequest.TopicData.Name"`.
    pub path: &'static str,
    /// The versions that have the field.
    pub versions: VersionRange,
}

/// Whether an encode may leave out the value of an ignorable field that its version lacks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Drops {
    /// Silently, as Kafka's own serializer does.
    Allowed,
    /// Never: the encode fails with `FieldNotInVersion`.
    Refused,
}

/// `Err(FieldNotInVersion)` for the ignorable field [`Encode::dropped_field`] finds.
pub(crate) fn refuse_drops<E: Encode + ?Sized>(value: &E, version: i16) -> Result<(), EncodeError> {
    match value.dropped_field(version) {
        Some(DroppedField { path, versions }) => Err(EncodeError::FieldNotInVersion {
            path,
            version,
            versions,
            ignorable: true,
        }),
        None => Ok(()),
    }
}

/// True if bit `version` of `mask` is set: whether a generated `dropped_field` can find a value
/// at `version` (the bits are the versions where one of its ignorable fields is absent).
#[inline]
pub(crate) fn drops_at(mask: u64, version: i16) -> bool {
    match u32::try_from(version) {
        Ok(v) if v < u64::BITS => (mask >> v) & 1 == 1,
        _ => false,
    }
}

/// [`Encode::encode`] and [`Encode::encode_lenient`]: [`encode_with`] of [`Encode::write`].
fn encode_once<E: Encode + ?Sized>(
    value: &E,
    version: i16,
    out: &mut [u8],
    drops: Drops,
) -> Result<usize, EncodeError> {
    encode_with(
        out,
        || value.encoded_len(version),
        || match drops {
            Drops::Refused => refuse_drops(value, version),
            Drops::Allowed => Ok(()),
        },
        |w| value.write(w, version),
    )
    .map(|(len, ())| len)
}

/// Runs `write` into `out` and returns the bytes it wrote (with what `write` returns), or the
/// first error: that of `size`, the sizing of what `write` writes, then that of `drops`, then
/// `BufferTooSmall` with the length `write` needs.
///
/// With `perf` this is one pass: `write` checks as it writes, and `size` runs only after a
/// [refused](Writer::refused) write, to name the fault. Small builds size first and write only
/// what fits, which links no second way of finding an error; the results are the same.
#[inline]
pub(crate) fn encode_with<'b, T>(
    out: &'b mut [u8],
    size: impl Fn() -> Result<usize, EncodeError>,
    drops: impl Fn() -> Result<(), EncodeError>,
    write: impl FnOnce(&mut Writer<'b>) -> T,
) -> Result<(usize, T), EncodeError> {
    let available = out.len();
    if !cfg!(feature = "perf") {
        let required = size()?;
        drops()?;
        if required > available {
            return Err(EncodeError::BufferTooSmall {
                required,
                available,
            });
        }
    }
    let mut w = Writer::new(out);
    let wrote = write(&mut w);
    if cfg!(feature = "perf") {
        if w.refused() {
            return Err(refusal(size));
        }
        drops()?;
    } else if cfg!(feature = "in-place") && w.refused() {
        // Sized first, so nothing is refused (the oracles test that the two agree) but what a
        // records source wrote other than it announced.
        return Err(EncodeError::RecordsMiswritten);
    } else {
        debug_assert!(!w.refused(), "a write refused what its sizing accepts");
    }
    if w.overflowed() {
        return Err(EncodeError::BufferTooSmall {
            required: w.position(),
            available,
        });
    }
    Ok((w.position(), wrote))
}

/// The error behind a refused write: the one its sizing gives. The two make the same checks
/// (the oracles test it), but for a records source that writes other than it announced (with
/// `in-place`), which no sizing finds: a refusal its sizing accepts is `RecordsMiswritten`.
#[cold]
#[inline(never)]
fn refusal(size: impl FnOnce() -> Result<usize, EncodeError>) -> EncodeError {
    let sized = size();
    debug_assert!(
        cfg!(feature = "in-place") || sized.is_err(),
        "a write refused what its sizing accepts"
    );
    sized.err().unwrap_or(EncodeError::RecordsMiswritten)
}

/// What a schema describes: a request or response body, a header, or a standalone payload.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum MessageKind {
    /// A request body.
    Request,
    /// A response body.
    Response,
    /// A request or response header.
    Header,
    /// A standalone payload format (consumer protocol, control records, ...).
    Data,
}

/// The static facts of a top-level schema type.
pub trait Message {
    /// The schema name, such as `"FetchRequest"`.
    const NAME: &'static str;
    /// The API key (for headers and data payloads, `ApiKey(-1)`).
    const API_KEY: ApiKey;
    /// What the schema describes.
    const KIND: MessageKind;
    /// The versions the schema defines.
    const VALID_VERSIONS: VersionRange;
    /// The versions this build decodes and encodes: [`Message::VALID_VERSIONS`], unless the
    /// build named this API in `KWIRE_VERSIONS` (see the crate docs on firmware builds).
    const BUILT_VERSIONS: VersionRange;
    /// The versions that use the flexible (compact, tagged) encoding.
    const FLEXIBLE_VERSIONS: VersionRange;

    /// For a request, whether the broker answers it: every request but a Produce with `acks`
    /// 0, to which no response is sent. True for every other message.
    #[must_use]
    fn expects_response(&self) -> bool {
        true
    }

    /// This request asking for at most `max_bytes` bytes of data in its response at `version`,
    /// if it asks for more: Fetch (from version 3), ShareFetch and FetchSnapshot bound their
    /// response's data with `MaxBytes`, which a session lowers to what its receive buffer
    /// holds. `None` for a request that asks for no more, at a version without the bound, and
    /// for every other message.
    ///
    /// ```
    /// use kwire::codec::Message;
    /// use kwire::messages::{FetchRequest, MetadataRequest};
    ///
    /// // Fetch's MaxBytes defaults to 0x7fffffff: more than any receive buffer.
    /// let fetch = FetchRequest::default().with_max_wait_ms(500);
    /// let capped = fetch.with_response_limit(17, 65_024).unwrap();
    /// assert_eq!((capped.max_bytes, capped.max_wait_ms), (65_024, 500));
    /// assert_eq!(capped.with_response_limit(17, 1 << 20), None);
    /// // Fetch v2 has no MaxBytes to lower.
    /// assert_eq!(fetch.with_response_limit(2, 65_024), None);
    /// assert_eq!(MetadataRequest::default().with_response_limit(12, 1 << 10), None);
    /// ```
    #[must_use]
    fn with_response_limit(&self, version: i16, max_bytes: i32) -> Option<Self>
    where
        Self: Sized,
    {
        let _ = (version, max_bytes);
        None
    }
}

/// Records the error for a version outside a message's valid range in `r`, at its offset: the
/// generated decoders' version check, out of line.
#[doc(hidden)]
#[cold]
#[inline(never)]
pub fn version_error(
    r: &mut Reader<'_>,
    api_key: ApiKey,
    version: i16,
    path: &'static str,
) -> Failed {
    r.fail(
        crate::error::DecodeErrorKind::UnsupportedVersion { api_key, version },
        path,
    )
}

macro_rules! primitive_element {
    ($t:ty, $read:ident, $write:ident, $len:expr, $bytes:expr) => {
        impl<'a> ElementCodec<'a> for $t {
            const WIRE_SIZE: Option<usize> = Some($len);
            #[inline]
            fn read_element(
                r: &mut Reader<'a>,
                _: i16,
                _: bool,
                path: &'static str,
            ) -> Result<Self, Failed> {
                r.$read(path)
            }
            #[inline(always)]
            fn read_fast(w: &mut FastReader<'a>, _: i16, _: bool) -> Option<Self> {
                w.$read()
            }
            #[inline]
            fn element_len(&self, _: i16, _: bool, _: &'static str) -> Result<usize, EncodeError> {
                Ok($len)
            }
            #[inline]
            fn write_element(&self, w: &mut Writer<'_>, _: i16, _: bool) {
                w.$write(*self);
            }
            #[inline(always)]
            fn write_array(elements: &[Self], w: &mut Writer<'_>, _: i16, flexible: bool) {
                let bytes: fn(Self) -> [u8; $len] = $bytes;
                let fill = |dst: &mut [u8]| {
                    for (slot, e) in dst.as_chunks_mut::<$len>().0.iter_mut().zip(elements) {
                        *slot = bytes(*e);
                    }
                };
                // The usual short compact array: prefix and elements in one reservation.
                if flexible
                    && let Ok(n) = u8::try_from(elements.len())
                    && n < 0x7f
                {
                    let total = usize::from(n).wrapping_mul($len).wrapping_add(1);
                    if let Some((prefix, body)) = w.reserve(total).and_then(<[u8]>::split_first_mut)
                    {
                        *prefix = n.wrapping_add(1);
                        fill(body);
                    }
                } else {
                    w.len(elements.len(), LengthPrefix::bytes(flexible));
                    if let Some(dst) = w.reserve(elements.len().saturating_mul($len)) {
                        fill(dst);
                    }
                }
            }
        }
    };
}

primitive_element!(bool, bool, bool, 1, |v| [u8::from(v)]);
primitive_element!(i8, i8, i8, 1, i8::to_be_bytes);
primitive_element!(i16, i16, i16, 2, i16::to_be_bytes);
primitive_element!(u16, u16, u16, 2, u16::to_be_bytes);
primitive_element!(i32, i32, i32, 4, i32::to_be_bytes);
primitive_element!(u32, u32, u32, 4, u32::to_be_bytes);
primitive_element!(i64, i64, i64, 8, i64::to_be_bytes);
primitive_element!(f64, f64, f64, 8, f64::to_be_bytes);
primitive_element!(Uuid, uuid, uuid, 16, |v| v.0);

impl<'a> ElementCodec<'a> for Str<'a> {
    #[inline]
    fn read_element(
        r: &mut Reader<'a>,
        _: i16,
        flexible: bool,
        path: &'static str,
    ) -> Result<Self, Failed> {
        r.string(flexible, path)
    }
    #[inline(always)]
    fn walk(w: &mut FastReader<'a>, _: i16, flexible: bool) -> Option<()> {
        w.skip_string(flexible, false)
    }
    #[inline(always)]
    fn read_fast(w: &mut FastReader<'a>, _: i16, flexible: bool) -> Option<Self> {
        w.string(flexible)
    }
    #[inline]
    fn element_len(
        &self,
        _: i16,
        flexible: bool,
        path: &'static str,
    ) -> Result<usize, EncodeError> {
        string_len(*self, flexible, path)
    }
    #[inline]
    fn write_element(&self, w: &mut Writer<'_>, _: i16, flexible: bool) {
        w.string(*self, flexible);
    }
}

/// `$body`, which names the version `$v`, once per range of versions: a `match` on `$version`
/// with an arm per range (`lo..=hi`, or one version) and a last arm for every other version.
/// The generated elements list the ranges in which they encode alike, so that within each arm
/// the compiler folds the version tests of what `$body` inlines. Without ranges, `$body` once.
#[cfg(feature = "perf")]
macro_rules! per_class {
    // The upper bound of a range written `lo..=hi` or `lo`.
    (@hi $lo:literal) => { $lo };
    (@hi $lo:literal $hi:literal) => { $hi };
    ($version:expr, $v:ident => $body:expr; $($lo:literal $(..= $hi:literal)?),+) => {
        match $version {
            $($v @ $lo $(..= $hi)? => {
                // The same value, bounded as the arm knows it. Without the bound the arms are
                // the same code, which the compiler merges before it folds any version test.
                let $v = $v.clamp($lo, $crate::codec::per_class!(@hi $lo $($hi)?));
                $body
            })+
            $v => $body,
        }
    };
    ($version:expr, $v:ident => $body:expr;) => {{
        let $v = $version;
        $body
    }};
}
#[cfg(feature = "perf")]
pub(crate) use per_class;

/// Implements [`ElementCodec`] (so [`Element`]) for a generated struct through its [`Decode`] and
/// [`Encode`] impls; the ranges after the name are the struct's version ranges for [`per_class!`],
/// newest first.
macro_rules! struct_element {
    ($t:ident $(; $($lo:literal $(..= $hi:literal)?),+)?) => {
        impl<'a> $crate::codec::ElementCodec<'a> for $t<'a> {
            #[cfg(feature = "perf")]
            const FAST_READ_REFUSES: bool = $t::FAST_READ_REFUSES;
            // Inlined into the array loops and iterators with the `perf` feature; one
            // out-of-line copy per struct without it.
            #[cfg_attr(feature = "perf", inline)]
            #[cfg_attr(not(feature = "perf"), inline(never))]
            fn read_element(
                r: &mut $crate::codec::Reader<'a>,
                version: i16,
                _: bool,
                _: &'static str,
            ) -> ::core::result::Result<Self, $crate::codec::Failed> {
                <Self as $crate::codec::Decode<'a>>::read(r, version)
            }
            #[inline]
            fn walk(
                w: &mut $crate::codec::FastReader<'a>,
                version: i16,
                _: bool,
            ) -> ::core::option::Option<()> {
                $t::walk_wire(w, version)
            }
            #[cfg(feature = "perf")]
            #[inline(always)]
            fn walk_many(
                mut w: $crate::codec::FastReader<'a>,
                count: usize,
                version: i16,
                _: bool,
            ) -> ::core::option::Option<&'a [u8]> {
                $crate::codec::per_class!(version, v => {
                    for _ in 0..count {
                        $t::walk_wire(&mut w, v)?;
                    }
                }; $($($lo $(..= $hi)?),+)?);
                ::core::option::Option::Some(w.rest())
            }
            #[cfg(feature = "perf")]
            #[inline]
            fn read_fast(
                w: &mut $crate::codec::FastReader<'a>,
                version: i16,
                _: bool,
            ) -> ::core::option::Option<Self> {
                <Self as $crate::codec::ReadFast<'a>>::read_fast(w, version)
            }
            #[cfg(feature = "perf")]
            #[inline(never)]
            fn read_fast_sections(
                mut w: $crate::codec::FastReader<'a>,
                version: i16,
                _: bool,
            ) -> ::core::option::Option<(Self, &'a [u8])> {
                let v = $t::read_fast_sections(&mut w, version)?;
                ::core::option::Option::Some((v, w.rest()))
            }
            #[inline]
            fn element_len(
                &self,
                version: i16,
                _: bool,
                _: &'static str,
            ) -> ::core::result::Result<usize, $crate::EncodeError> {
                <Self as $crate::codec::Encode>::encoded_len(self, version)
            }
            #[inline]
            fn write_element(&self, w: &mut $crate::codec::Writer<'_>, version: i16, _: bool) {
                <Self as $crate::codec::Encode>::write(self, w, version);
            }
            #[inline(always)]
            fn same_encoding(read: i16, _: bool, version: i16, _: bool) -> bool {
                // `BUILT`: the invoking module's versions.
                #[cfg(kwire_narrowed)]
                let (read, version) = (BUILT.pin(read), BUILT.pin(version));
                read == version
            }
            #[cfg(feature = "perf")]
            #[inline(always)]
            fn len_many(
                elements: &[Self],
                version: i16,
                _: bool,
                _: &'static str,
            ) -> ::core::result::Result<usize, $crate::EncodeError> {
                let mut total = 0usize;
                $crate::codec::per_class!(version, v => {
                    for e in elements {
                        total = total
                            .saturating_add(<Self as $crate::codec::Encode>::encoded_len(e, v)?);
                    }
                }; $($($lo $(..= $hi)?),+)?);
                ::core::result::Result::Ok(total)
            }
            #[cfg(feature = "perf")]
            #[inline(always)]
            fn write_array(
                elements: &[Self],
                w: &mut $crate::codec::Writer<'_>,
                version: i16,
                flexible: bool,
            ) {
                // Through a local writer, which stays in registers (see `Writer::move_out`).
                let mut local = w.move_out();
                local.len(elements.len(), $crate::codec::LengthPrefix::bytes(flexible));
                $crate::codec::per_class!(version, v => {
                    for e in elements {
                        <Self as $crate::codec::Encode>::write(e, &mut local, v);
                    }
                }; $($($lo $(..= $hi)?),+)?);
                *w = local;
            }
        }
    };
}
pub(crate) use struct_element;
