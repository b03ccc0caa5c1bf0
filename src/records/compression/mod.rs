//! Compression of record payloads.
//!
//! A compressed v2 batch keeps its 61-byte header in the clear and replaces the records section
//! with one compressed stream of all its records; a compressed legacy message (a *wrapper*) holds
//! the compressed inner log entries in its value. The codec is named by bits 0-2 of the
//! attributes ([`Compression`]).
//!
//! The core of this module neither allocates nor names any codec library: codecs come from the
//! caller through two traits that work on caller buffers,
//!
//! * [`Decompressor`]: `decompress(codec, input, output) -> Result<usize, CompressionError>`;
//! * [`Compressor`]: `compress(codec, input, output) -> Result<usize, CompressionError>`, with
//!   [`Compressor::max_compressed_len`] to size the output.
//!
//! A buffer that is too small is always [`CompressionError::OutputTooSmall`], so a caller can
//! retry with a larger one (see [`CompressionError::needed`]). On top of the traits:
//!
//! * [`RecordBatch::decompress_into`] decompresses a batch's payload into a caller buffer and
//!   iterates its records;
//! * [`BatchBuilder::write_compressed`] writes a compressed batch, CRC included.
//!
//! A legacy wrapper needs nothing more: its value is a plain compressed byte stream, so
//! `decompressor.decompress(message.compression(), message.value().unwrap_or_default(), buf)`
//! gives the inner entries, which [`Records`](super::Records) reads.
//!
//! [`BuiltinCodecs`] implements both traits with the codecs that cargo features compile in:
//!
//! | feature | format | crate | needs |
//! |---|---|---|---|
//! | `gzip` | gzip (RFC 1952) around raw deflate | `miniz_oxide` | `alloc` |
//! | `snappy` | snappy, xerial stream framing (raw snappy also read) | `snap` | `std` |
//! | `lz4` | LZ4 frame format | `lz4_flex` (blocks), `twox-hash` (checksums) | nothing |
//! | `zstd` | Zstandard frames | `ruzstd` | `alloc` |
//!
//! All four crates are pure Rust. `snap` has no `no_std` mode, so `snappy` needs `std` (and its
//! compressor allocates a hash table for inputs over 1 KiB); the deflate compressor of
//! `miniz_oxide` and all of `ruzstd` allocate, so `gzip` and `zstd` need `alloc`; `lz4` uses only
//! `lz4_flex`'s slice functions and frames the blocks here, so it works with neither and
//! allocates nothing. Without any of these features [`BuiltinCodecs`] still exists and handles only
//! [`Compression::NONE`].

use core::borrow::Borrow;
use core::fmt;

use super::batch::{Compression, HEADER_LEN, RecordBatch};
use super::builder::{BatchBuilder, NewRecord, batch_len};
use super::record::RecordIter;
use crate::error::{DecodeError, EncodeError};

/// Why compressing or decompressing failed.
///
/// The [`Compressor`] and [`Decompressor`] traits return the first four variants; the batch
/// helpers ([`RecordBatch::decompress_into`], [`BatchBuilder::write_compressed`]) also return
/// [`CompressionError::Decode`] and [`CompressionError::Encode`] for the batch around the
/// payload.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
#[non_exhaustive]
pub enum CompressionError {
    /// The output buffer cannot hold the result. Retry with a larger one: at least `needed`
    /// bytes when that is known, otherwise (for example) twice `available`.
    OutputTooSmall {
        /// Bytes the caller's output buffer has.
        available: usize,
        /// The output length that suffices, when the stream or the codec tells it.
        needed: Option<usize>,
    },
    /// The attributes name a codec that Kafka does not define (5, 6 or 7).
    UnknownCodec(Compression),
    /// The codec is defined by Kafka, but this implementation does not provide it (for
    /// [`BuiltinCodecs`]: its cargo feature is off).
    CodecNotEnabled(Compression),
    /// The codec refused the data: a damaged, truncated or unsupported stream when
    /// decompressing, or input it cannot compress.
    Codec {
        /// The codec.
        codec: Compression,
        /// What was wrong.
        reason: &'static str,
    },
    /// The stream read well but its own checksum does not match what it holds: gzip's
    /// CRC-32 of a member, or lz4's header, block or content checksum.
    /// [`BuiltinCodecs::verify_checksums`]`(false)` reads such a stream regardless.
    Checksum {
        /// The codec.
        codec: Compression,
        /// Which checksum.
        reason: &'static str,
    },
    /// The batch around the payload is malformed (for example a negative record count).
    Decode(DecodeError),
    /// The batch cannot be written: a length overflows, or the uncompressed records do not fit
    /// the scratch buffer (`BufferTooSmall`).
    Encode(EncodeError),
}

impl CompressionError {
    /// True for [`CompressionError::OutputTooSmall`]: the same call may succeed with a larger
    /// output buffer.
    #[must_use]
    pub const fn is_output_too_small(&self) -> bool {
        matches!(self, Self::OutputTooSmall { .. })
    }

    /// For [`CompressionError::OutputTooSmall`], a length to retry with: `needed` when known,
    /// else twice the available length (at least 64 bytes). `None` for other errors.
    #[must_use]
    pub fn retry_len(&self) -> Option<usize> {
        match *self {
            Self::OutputTooSmall { available, needed } => {
                Some(needed.unwrap_or_else(|| available.saturating_mul(2).max(64)))
            }
            _ => None,
        }
    }

    /// For [`CompressionError::OutputTooSmall`], the output length that suffices when known.
    #[must_use]
    pub const fn needed(&self) -> Option<usize> {
        match *self {
            Self::OutputTooSmall { needed, .. } => needed,
            _ => None,
        }
    }
}

impl fmt::Display for CompressionError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Self::OutputTooSmall {
                available,
                needed: Some(needed),
            } => write!(
                f,
                "output buffer too small: {needed} bytes needed, {available} available"
            ),
            Self::OutputTooSmall {
                available,
                needed: None,
            } => write!(f, "output buffer of {available} bytes too small"),
            Self::UnknownCodec(codec) => write!(f, "unknown compression codec {}", codec.0),
            Self::CodecNotEnabled(codec) => write!(
                f,
                "compression codec {} is not enabled",
                codec.name().unwrap_or("?")
            ),
            Self::Codec { codec, reason } | Self::Checksum { codec, reason } => {
                write!(f, "{}: {reason}", codec.name().unwrap_or("codec"))
            }
            Self::Decode(err) => write!(f, "{err}"),
            Self::Encode(err) => write!(f, "{err}"),
        }
    }
}

impl core::error::Error for CompressionError {
    fn source(&self) -> Option<&(dyn core::error::Error + 'static)> {
        match self {
            Self::Decode(err) => Some(err),
            Self::Encode(err) => Some(err),
            _ => None,
        }
    }
}

impl From<DecodeError> for CompressionError {
    fn from(err: DecodeError) -> Self {
        Self::Decode(err)
    }
}

impl From<EncodeError> for CompressionError {
    fn from(err: EncodeError) -> Self {
        Self::Encode(err)
    }
}

/// Decompresses whole payloads into a caller's buffer.
///
/// Implement it to bring codecs of your own (hardware, another library, a subset); or use
/// [`BuiltinCodecs`].
pub trait Decompressor {
    /// Decompresses `input`, one complete stream in `codec`'s Kafka format, into the start of
    /// `output` and returns the number of bytes written.
    ///
    /// For [`Compression::NONE`] an implementation should copy `input`.
    ///
    /// # Errors
    ///
    /// [`CompressionError::OutputTooSmall`] when the result does not fit `output` (never for
    /// any other reason, so that callers can retry with a larger buffer);
    /// [`CompressionError::UnknownCodec`] or [`CompressionError::CodecNotEnabled`] for a codec
    /// the implementation does not handle; [`CompressionError::Codec`] for a damaged stream,
    /// [`CompressionError::Checksum`] for one that fails only its own checksum.
    /// What `output` holds after an error is unspecified.
    fn decompress(
        &mut self,
        codec: Compression,
        input: &[u8],
        output: &mut [u8],
    ) -> Result<usize, CompressionError>;
}

/// Compresses whole payloads into a caller's buffer.
pub trait Compressor {
    /// Compresses `input` as one complete stream in `codec`'s Kafka format into the start of
    /// `output` and returns the number of bytes written.
    ///
    /// For [`Compression::NONE`] an implementation should copy `input`.
    ///
    /// # Errors
    ///
    /// [`CompressionError::OutputTooSmall`] when `output` is too short (an output of
    /// [`Compressor::max_compressed_len`] bytes never is; a codec may ask for that much room even
    /// when its result would be shorter); [`CompressionError::UnknownCodec`] or
    /// [`CompressionError::CodecNotEnabled`] for a codec it does not handle;
    /// [`CompressionError::Codec`] when the codec cannot compress `input`. What `output` holds
    /// after an error is unspecified.
    fn compress(
        &mut self,
        codec: Compression,
        input: &[u8],
        output: &mut [u8],
    ) -> Result<usize, CompressionError>;

    /// An output length with which [`Compressor::compress`] of `input_len` bytes never fails
    /// for lack of room, if the implementation knows one. The default is `None`.
    fn max_compressed_len(&self, codec: Compression, input_len: usize) -> Option<usize> {
        let _ = (codec, input_len);
        None
    }
}

impl<T: Decompressor + ?Sized> Decompressor for &mut T {
    fn decompress(
        &mut self,
        codec: Compression,
        input: &[u8],
        output: &mut [u8],
    ) -> Result<usize, CompressionError> {
        (**self).decompress(codec, input, output)
    }
}

impl<T: Compressor + ?Sized> Compressor for &mut T {
    fn compress(
        &mut self,
        codec: Compression,
        input: &[u8],
        output: &mut [u8],
    ) -> Result<usize, CompressionError> {
        (**self).compress(codec, input, output)
    }

    fn max_compressed_len(&self, codec: Compression, input_len: usize) -> Option<usize> {
        (**self).max_compressed_len(codec, input_len)
    }
}

impl<'a> RecordBatch<'a> {
    /// Checks the batch's CRC, decompresses the payload into `buf` with `decompressor` and
    /// iterates the records.
    ///
    /// An uncompressed batch is read in place, without touching `buf` (as
    /// [`RecordBatch::records`]). Record positions in errors count from the start of `buf`.
    /// Damaged bytes never reach the decompressor: the CRC covers the compressed payload. To
    /// read without the CRC check, decompress [`RecordBatch::payload`] and iterate with
    /// [`RecordBatch::records_in_unchecked`].
    ///
    /// ```
    /// # #[cfg(feature = "lz4")] {
    /// use kwire::records::compression::BuiltinCodecs;
    /// use kwire::records::{BatchBuilder, Compression, NewRecord, RecordBatch};
    ///
    /// let records = [NewRecord::new(b"hello hello hello hello").with_timestamp(5)];
    /// let (mut scratch, mut out) = ([0u8; 256], [0u8; 256]);
    /// let n = BatchBuilder::new().write_compressed(
    ///     &records,
    ///     Compression::LZ4,
    ///     &mut BuiltinCodecs::new(),
    ///     &mut scratch,
    ///     &mut out,
    /// )?;
    ///
    /// let batch = RecordBatch::parse(&out[..n])?;
    /// assert_eq!(batch.compression(), Compression::LZ4);
    /// let mut buf = [0u8; 256];
    /// for record in batch.decompress_into(&mut BuiltinCodecs::new(), &mut buf)? {
    ///     assert_eq!(record?.value(), Some(&b"hello hello hello hello"[..]));
    /// }
    /// # }
    /// # Ok::<(), Box<dyn core::error::Error>>(())
    /// ```
    ///
    /// # Errors
    ///
    /// [`CompressionError::Decode`] with `CrcMismatch` for a damaged batch; what the
    /// decompressor returns (`OutputTooSmall` when `buf` is too short: retry with a larger one);
    /// [`CompressionError::Decode`] when `recordsCount` is negative.
    pub fn decompress_into<'b, D>(
        &self,
        decompressor: &mut D,
        buf: &'b mut [u8],
    ) -> Result<RecordIter<'b>, CompressionError>
    where
        D: Decompressor + ?Sized,
        'a: 'b,
    {
        // The CRC covers the compressed bytes: nothing damaged reaches the decompressor.
        self.verify_crc()?;
        let codec = self.compression();
        if codec == Compression::NONE {
            return Ok(self.records_unchecked()?);
        }
        let n = decompressor.decompress(codec, self.payload(), buf)?;
        let payload: &'b [u8] = buf;
        let Some(payload) = payload.get(..n) else {
            return Err(CompressionError::Codec {
                codec,
                reason: "the decompressor reported more bytes than its output holds",
            });
        };
        Ok(self.records_in_unchecked(payload)?)
    }
}

impl BatchBuilder {
    /// Bytes of the uncompressed records section for `records`: the scratch length
    /// [`BatchBuilder::write_compressed`] needs (the batch length minus the 61-byte header).
    ///
    /// # Errors
    ///
    /// As [`BatchBuilder::encoded_len`].
    pub fn records_len<'r, I>(&self, records: I) -> Result<usize, EncodeError>
    where
        I: IntoIterator,
        I::Item: Borrow<NewRecord<'r>>,
    {
        Ok(self.plan(records)?.records_len)
    }

    /// Writes a batch whose records are compressed with `codec` into `out` and returns its
    /// length.
    ///
    /// The records are first written uncompressed into `scratch` (it needs
    /// [`BatchBuilder::records_len`] bytes), then compressed by `compressor` into `out` after
    /// the 61-byte header; the header, with `codec` in its attributes, and the CRC-32C come
    /// last. With [`Compression::NONE`] this is [`BatchBuilder::write`] and `scratch` is not
    /// used. An `out` of 61 bytes plus [`Compressor::max_compressed_len`] always suffices.
    ///
    /// # Errors
    ///
    /// [`CompressionError::Encode`] as [`BatchBuilder::write`] (`BufferTooSmall` when `scratch`
    /// cannot hold the uncompressed records); [`CompressionError::OutputTooSmall`] with lengths
    /// counted for the whole of `out` when the compressed batch does not fit; what the
    /// compressor returns otherwise. The contents of `out` are unspecified after an error.
    pub fn write_compressed<'r, I, C>(
        &self,
        records: I,
        codec: Compression,
        compressor: &mut C,
        scratch: &mut [u8],
        out: &mut [u8],
    ) -> Result<usize, CompressionError>
    where
        I: IntoIterator,
        I::Item: Borrow<NewRecord<'r>>,
        C: Compressor + ?Sized,
    {
        if codec == Compression::NONE {
            return Ok(self.write(records, out)?);
        }
        let available = scratch.len();
        let plan = self.write_records(records, scratch)?;
        batch_len(plan.records_len)?;
        let Some(raw) = scratch.get(..plan.records_len) else {
            return Err(CompressionError::Encode(EncodeError::BufferTooSmall {
                required: plan.records_len,
                available,
            }));
        };
        let out_len = out.len();
        let too_small = |needed: Option<usize>| CompressionError::OutputTooSmall {
            available: out_len,
            needed: needed.map(|n| n.saturating_add(HEADER_LEN)),
        };
        let Some((head, body)) = out.split_at_mut_checked(HEADER_LEN) else {
            return Err(too_small(compressor.max_compressed_len(codec, raw.len())));
        };
        let n = match compressor.compress(codec, raw, body) {
            Ok(n) => n,
            Err(CompressionError::OutputTooSmall { needed, .. }) => {
                return Err(too_small(
                    needed.or_else(|| compressor.max_compressed_len(codec, raw.len())),
                ));
            }
            Err(err) => return Err(err),
        };
        let body: &[u8] = body;
        let Some(payload) = body.get(..n) else {
            return Err(CompressionError::Codec {
                codec,
                reason: "the compressor reported more bytes than its output holds",
            });
        };
        let total = batch_len(n)?;
        self.write_header(&plan, codec, head, payload);
        Ok(total)
    }
}

/// The codecs compiled in by this crate's cargo features, behind [`Compressor`] and
/// [`Decompressor`].
///
/// | codec | feature | reads | writes |
/// |---|---|---|---|
/// | none | always | a copy | a copy |
/// | gzip | `gzip` | gzip members, concatenated ones too; bytes after the last member that do not start another are ignored, as Java does | one member, deflate level 6 |
/// | snappy | `snappy` | the xerial stream framing (header `82 53 4e 41 50 50 59 00`, version, compatible version, then blocks of an `int32` length and a raw snappy block; a header inside the stream starts a concatenated stream) and, as Java's `SnappyInputStream` and `kafka-protocol` do, plain raw snappy when the input does not start with that header | xerial framing, version 1, compatible 1, 32 KiB blocks, as Java writes |
/// | lz4 | `lz4` | LZ4 frames, concatenated ones and skippable frames too, independent and linked blocks, block and content checksums; the header checksum may also be the one that magic 0 Kafka wrote (taken over the magic number) | one frame of independent 64 KiB blocks, no checksums, as Java writes |
/// | zstd | `zstd` | Zstandard frames (no dictionaries) | one frame, `ruzstd`'s fastest level |
///
/// Others return [`CompressionError::UnknownCodec`] (5 to 7) or
/// [`CompressionError::CodecNotEnabled`].
///
/// The checksums the formats carry (gzip's CRC-32 of each member, lz4's header checksum and
/// its block and content checksums when a frame has them) are checked by default: a mismatch is
/// [`CompressionError::Checksum`]. [`BuiltinCodecs::verify_checksums`]`(false)` skips them, as
/// Kafka's consumers do with `check.crcs=false`: for bytes whose integrity is known otherwise
/// (a v2 batch's CRC-32C covers its compressed payload), or to read what a damaged stream
/// still holds. The rest of each format is checked either way; zstd's optional content
/// checksum is not checked.
///
/// ```
/// # #[cfg(feature = "gzip")] {
/// use kwire::records::Compression;
/// use kwire::records::compression::{BuiltinCodecs, Compressor, Decompressor};
///
/// let mut codecs = BuiltinCodecs::new();
/// let mut gz = [0u8; 64];
/// let n = codecs.compress(Compression::GZIP, b"payload", &mut gz)?;
/// gz[n - 8] ^= 1; // the member's CRC-32
/// let mut out = [0u8; 64];
/// assert!(codecs.decompress(Compression::GZIP, &gz[..n], &mut out).is_err());
///
/// let mut unchecked = BuiltinCodecs::new().verify_checksums(false);
/// let len = unchecked.decompress(Compression::GZIP, &gz[..n], &mut out)?;
/// assert_eq!(&out[..len], b"payload");
/// # }
/// # Ok::<(), kwire::records::compression::CompressionError>(())
/// ```
///
/// The type holds only that choice. Gzip and zstd allocate
/// working memory on each call; snappy compression of more than 1 KiB allocates its hash table
/// (up to 32 KiB, `snap`'s encoder keeps only a 1 KiB input's table inline); snappy
/// decompression and lz4 use only the stack (lz4 compression about 8 KiB of hash table, the
/// rest far less).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct BuiltinCodecs {
    checksums: bool,
}

impl Default for BuiltinCodecs {
    fn default() -> Self {
        Self::new()
    }
}

impl BuiltinCodecs {
    /// The codecs, checking the formats' own checksums.
    #[must_use]
    pub const fn new() -> Self {
        Self { checksums: true }
    }

    /// These codecs checking the formats' own checksums when decompressing (`true`, the
    /// default) or not (`false`); see the type's documentation for which checksums these are.
    #[must_use]
    pub const fn verify_checksums(self, on: bool) -> Self {
        Self { checksums: on }
    }

    /// Whether decompression checks the formats' own checksums.
    #[must_use]
    pub const fn verifies_checksums(&self) -> bool {
        self.checksums
    }

    /// Whether `codec` is handled (it is defined and its feature is on).
    #[must_use]
    pub fn is_enabled(codec: Compression) -> bool {
        const ENABLED: [bool; 5] = [
            true,
            cfg!(feature = "gzip"),
            cfg!(feature = "snappy"),
            cfg!(feature = "lz4"),
            cfg!(feature = "zstd"),
        ];
        ENABLED.get(usize::from(codec.0)).copied().unwrap_or(false)
    }
}

/// The error for a codec that [`BuiltinCodecs`] does not handle.
fn not_handled(codec: Compression) -> CompressionError {
    if codec.name().is_some() {
        CompressionError::CodecNotEnabled(codec)
    } else {
        CompressionError::UnknownCodec(codec)
    }
}

/// Copies `input` to the start of `output`.
fn copy(input: &[u8], output: &mut [u8]) -> Result<usize, CompressionError> {
    let available = output.len();
    let Some(dst) = output.get_mut(..input.len()) else {
        return Err(CompressionError::OutputTooSmall {
            available,
            needed: Some(input.len()),
        });
    };
    dst.copy_from_slice(input);
    Ok(input.len())
}

/// Matches `$codec` against the built-in codecs whose feature is on, and evaluates `$call`
/// with `$m` naming that codec's module (`gzip`, `snappy`, `lz4`, `zstd`); `$none` for
/// `Compression::NONE`, `$other` for any other codec: the dispatch to the built-in codecs,
/// written once.
macro_rules! by_codec {
    ($codec:expr, none => $none:expr, other => $other:expr, |$m:ident| $call:expr) => {
        match $codec {
            Compression::NONE => $none,
            #[cfg(feature = "gzip")]
            Compression::GZIP => {
                use gzip as $m;
                $call
            }
            #[cfg(feature = "snappy")]
            Compression::SNAPPY => {
                use snappy as $m;
                $call
            }
            #[cfg(feature = "lz4")]
            Compression::LZ4 => {
                use lz4 as $m;
                $call
            }
            #[cfg(feature = "zstd")]
            Compression::ZSTD => {
                use zstd as $m;
                $call
            }
            _ => $other,
        }
    };
}

impl Decompressor for BuiltinCodecs {
    fn decompress(
        &mut self,
        codec: Compression,
        input: &[u8],
        output: &mut [u8],
    ) -> Result<usize, CompressionError> {
        by_codec!(codec,
            none => copy(input, output),
            other => Err(not_handled(codec)),
            |m| m::decompress(input, output, self.checksums)
        )
    }
}

impl Compressor for BuiltinCodecs {
    fn compress(
        &mut self,
        codec: Compression,
        input: &[u8],
        output: &mut [u8],
    ) -> Result<usize, CompressionError> {
        by_codec!(codec,
            none => copy(input, output),
            other => Err(not_handled(codec)),
            |m| m::compress(input, output)
        )
    }

    fn max_compressed_len(&self, codec: Compression, input_len: usize) -> Option<usize> {
        by_codec!(codec,
            none => Some(input_len),
            other => None,
            |m| Some(m::max_compressed_len(input_len))
        )
    }
}

/// Writing into the front of a caller's buffer, without indexing.
#[cfg(any(feature = "gzip", feature = "snappy", feature = "lz4"))]
#[derive(Debug)]
struct Output<'a> {
    buf: &'a mut [u8],
    len: usize,
}

#[cfg(any(feature = "gzip", feature = "snappy", feature = "lz4"))]
#[cfg_attr(
    not(all(feature = "gzip", feature = "snappy", feature = "lz4")),
    allow(dead_code, reason = "each codec uses a different subset")
)]
impl<'a> Output<'a> {
    const fn new(buf: &'a mut [u8]) -> Self {
        Self { buf, len: 0 }
    }

    fn capacity(&self) -> usize {
        self.buf.len()
    }

    /// The unwritten part.
    fn spare(&mut self) -> &mut [u8] {
        self.buf.get_mut(self.len..).unwrap_or_default()
    }

    /// The written part and the unwritten part.
    fn split(&mut self) -> (&[u8], &mut [u8]) {
        let (done, spare) = self.buf.split_at_mut_checked(self.len).unwrap_or_default();
        (done, spare)
    }

    fn written(&self) -> &[u8] {
        self.buf.get(..self.len).unwrap_or_default()
    }

    /// Marks `n` more bytes of the unwritten part as written.
    fn advance(&mut self, n: usize) {
        self.len = self.len.saturating_add(n).min(self.buf.len());
    }

    /// Appends `bytes`, or returns false when they do not fit.
    fn put(&mut self, bytes: &[u8]) -> bool {
        let Some(dst) = self.spare().get_mut(..bytes.len()) else {
            return false;
        };
        dst.copy_from_slice(bytes);
        self.advance(bytes.len());
        true
    }
}

/// A `u32` as a `usize` (saturating on 16-bit targets).
#[cfg(any(feature = "gzip", feature = "snappy", feature = "lz4"))]
#[cfg_attr(
    not(all(feature = "gzip", feature = "snappy", feature = "lz4")),
    allow(dead_code, reason = "each codec uses a different subset")
)]
fn usize_from(n: u32) -> usize {
    usize::try_from(n).unwrap_or(usize::MAX)
}

#[cfg(feature = "gzip")]
mod gzip {
    //! gzip (RFC 1952) with `miniz_oxide`'s raw deflate.

    use alloc::boxed::Box;

    use miniz_oxide::deflate::core::{
        CompressorOxide, TDEFLFlush, TDEFLStatus, compress as deflate,
        create_comp_flags_from_zip_params,
    };
    use miniz_oxide::inflate::TINFLStatus;
    use miniz_oxide::inflate::core::{
        DecompressorOxide, decompress as inflate,
        inflate_flags::TINFL_FLAG_USING_NON_WRAPPING_OUTPUT_BUF,
    };

    use super::{Compression, CompressionError, Output};
    use crate::codec::Reader;
    use crate::records::crc::crc32;

    /// What a gzip stream's reads are named in the reader.
    const PATH: &str = "gzip";

    const CODEC: Compression = Compression::GZIP;
    /// ID1, ID2 and CM (deflate).
    const MAGIC: [u8; 3] = [0x1f, 0x8b, 8];
    /// The header written: no flags, no modification time, no extra flags, OS unknown.
    const HEADER: [u8; 10] = [0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 0xff];
    const FHCRC: u8 = 0x02;
    const FEXTRA: u8 = 0x04;
    const FNAME: u8 = 0x08;
    const FCOMMENT: u8 = 0x10;
    /// The deflate level Java's `GZIPOutputStream` uses by default.
    const LEVEL: i32 = 6;

    const fn corrupt(reason: &'static str) -> CompressionError {
        CompressionError::Codec {
            codec: CODEC,
            reason,
        }
    }

    const fn checksum(reason: &'static str) -> CompressionError {
        CompressionError::Checksum {
            codec: CODEC,
            reason,
        }
    }

    /// Skips past the next zero byte.
    fn skip_c_string(input: &mut Reader<'_>) -> Option<()> {
        let end = input.rest().iter().position(|&b| b == 0)?;
        input.skip(end.checked_add(1)?, PATH).ok()
    }

    /// Reads a member header; `None` when `input` does not start with one.
    fn header(input: &mut Reader<'_>) -> Option<()> {
        if input.array::<3>(PATH).ok().copied()? != MAGIC {
            return None;
        }
        let flags = input.u8(PATH).ok()?;
        input.take(6, PATH).ok()?; // MTIME, XFL, OS
        if flags & FEXTRA != 0 {
            let len = u16::from_le_bytes(input.array::<2>(PATH).ok().copied()?);
            input.take(usize::from(len), PATH).ok()?;
        }
        if flags & FNAME != 0 {
            skip_c_string(input)?;
        }
        if flags & FCOMMENT != 0 {
            skip_c_string(input)?;
        }
        if flags & FHCRC != 0 {
            input.take(2, PATH).ok()?;
        }
        Some(())
    }

    /// Decompresses `input`; with `checksums`, a member's CRC-32 must match its output.
    pub(super) fn decompress(
        input: &[u8],
        output: &mut [u8],
        checksums: bool,
    ) -> Result<usize, CompressionError> {
        let mut input = Reader::new(input);
        let mut out = Output::new(output);
        let mut state = Box::<DecompressorOxide>::default();
        let mut first = true;
        loop {
            let mut next = input.clone();
            if header(&mut next).is_none() {
                if first {
                    return Err(corrupt("not a gzip stream"));
                }
                // Like Java's GZIPInputStream: bytes after a member that do not start another
                // member end the stream.
                return Ok(out.len);
            }
            first = false;
            input = next;
            state.init();
            let start = out.len;
            let (status, used, produced) = inflate(
                &mut state,
                input.rest(),
                out.spare(),
                0,
                TINFL_FLAG_USING_NON_WRAPPING_OUTPUT_BUF,
            );
            out.advance(produced);
            let _ = input.skip(used, PATH);
            match status {
                TINFLStatus::Done => {}
                TINFLStatus::HasMoreOutput => {
                    return Err(CompressionError::OutputTooSmall {
                        available: out.capacity(),
                        needed: None,
                    });
                }
                TINFLStatus::NeedsMoreInput | TINFLStatus::FailedCannotMakeProgress => {
                    return Err(corrupt("truncated deflate data"));
                }
                _ => return Err(corrupt("invalid deflate data")),
            }
            let mut u32_le = || {
                input
                    .array::<4>(PATH)
                    .map(|b| u32::from_le_bytes(*b))
                    .map_err(|_| corrupt("truncated trailer"))
            };
            let (crc, size) = (u32_le()?, u32_le()?);
            let member = out.written().get(start..).unwrap_or_default();
            if checksums && crc32(member) != crc {
                return Err(checksum("CRC-32 mismatch"));
            }
            if size != low32(member.len()) {
                return Err(corrupt("length mismatch"));
            }
            if input.is_empty() {
                return Ok(out.len);
            }
        }
    }

    pub(super) fn compress(input: &[u8], output: &mut [u8]) -> Result<usize, CompressionError> {
        let available = output.len();
        let too_small = CompressionError::OutputTooSmall {
            available,
            needed: Some(max_compressed_len(input.len())),
        };
        let mut out = Output::new(output);
        if !out.put(&HEADER) {
            return Err(too_small);
        }
        let flags = create_comp_flags_from_zip_params(LEVEL, -15, 0);
        let mut state = Box::new(CompressorOxide::new(flags));
        let (status, used, produced) = deflate(&mut state, input, out.spare(), TDEFLFlush::Finish);
        out.advance(produced);
        match status {
            TDEFLStatus::Done if used == input.len() => {}
            TDEFLStatus::Okay | TDEFLStatus::Done => return Err(too_small),
            _ => return Err(corrupt("deflate failed")),
        }
        let size = low32(input.len());
        let mut trailer = [0u8; 8];
        let (crc_bytes, size_bytes) = trailer.split_at_mut(4);
        crc_bytes.copy_from_slice(&crc32(input).to_le_bytes());
        size_bytes.copy_from_slice(&size.to_le_bytes());
        if !out.put(&trailer) {
            return Err(too_small);
        }
        Ok(out.len)
    }

    /// `n` modulo 2^32, as gzip's ISIZE holds it.
    fn low32(n: usize) -> u32 {
        let n = u64::try_from(n).unwrap_or(u64::MAX) & 0xffff_ffff;
        u32::try_from(n).unwrap_or(0)
    }

    /// Header and trailer, plus deflate's worst case: stored blocks of at most 65535 bytes with 5
    /// bytes of overhead each, and a few bytes of slack for the final block.
    pub(super) fn max_compressed_len(n: usize) -> usize {
        n.saturating_add((n / 16_383).saturating_add(1).saturating_mul(5))
            .saturating_add(HEADER.len())
            .saturating_add(8)
            .saturating_add(64)
    }
}

#[cfg(feature = "snappy")]
mod snappy {
    //! Snappy in the xerial stream framing, with `snap`'s raw block codec.

    use snap::raw::{Decoder, Encoder, decompress_len, max_compress_len};

    use super::{Compression, CompressionError, Output, usize_from};
    use crate::codec::Reader;

    /// What a snappy stream's reads are named in the reader.
    const PATH: &str = "snappy";

    const CODEC: Compression = Compression::SNAPPY;
    /// The xerial magic.
    const MAGIC: [u8; 8] = [0x82, b'S', b'N', b'A', b'P', b'P', b'Y', 0];
    /// Magic, version 1 and compatible version 1, as Java's `SnappyOutputStream` writes them.
    const HEADER: [u8; 16] = [
        0x82, b'S', b'N', b'A', b'P', b'P', b'Y', 0, 0, 0, 0, 1, 0, 0, 0, 1,
    ];
    /// The first four bytes of the magic read as a block length: a header inside the stream.
    const MAGIC_HEAD: u32 = 0x8253_4e41;
    /// The uncompressed size of each block that Java writes.
    const BLOCK: usize = 32 * 1024;

    const fn corrupt(reason: &'static str) -> CompressionError {
        CompressionError::Codec {
            codec: CODEC,
            reason,
        }
    }

    /// The stream's blocks, header(s) skipped, or an error.
    fn blocks<'a>(
        input: &'a [u8],
    ) -> impl Iterator<Item = Result<&'a [u8], CompressionError>> + 'a {
        let mut input = Reader::new(input.get(HEADER.len()..).unwrap_or_default());
        let mut failed = false;
        core::iter::from_fn(move || {
            loop {
                if failed || input.is_empty() {
                    return None;
                }
                let Some(len) = input.array::<4>(PATH).ok().copied().map(u32::from_be_bytes) else {
                    failed = true;
                    return Some(Err(corrupt("truncated block length")));
                };
                if len == MAGIC_HEAD {
                    // A concatenated stream: the rest of its header, then its blocks.
                    if input
                        .take(HEADER.len().saturating_sub(4), PATH)
                        .ok()
                        .is_none()
                    {
                        failed = true;
                        return Some(Err(corrupt("truncated stream header")));
                    }
                    continue;
                }
                if i32::try_from(len).is_err() {
                    failed = true;
                    return Some(Err(corrupt("negative block length")));
                }
                let Some(block) = input.take(usize_from(len), PATH).ok() else {
                    failed = true;
                    return Some(Err(corrupt("truncated block")));
                };
                return Some(Ok(block));
            }
        })
    }

    fn raw_len(block: &[u8]) -> Result<usize, CompressionError> {
        decompress_len(block).map_err(|_| corrupt("invalid snappy block"))
    }

    fn decode(block: &[u8], output: &mut [u8]) -> Result<usize, CompressionError> {
        Decoder::new()
            .decompress(block, output)
            .map_err(|_| corrupt("invalid snappy block"))
    }

    /// Decompresses `input`; the format carries no checksum, so `_checksums` changes nothing.
    pub(super) fn decompress(
        input: &[u8],
        output: &mut [u8],
        _checksums: bool,
    ) -> Result<usize, CompressionError> {
        if input.is_empty() {
            return Err(corrupt("empty stream"));
        }
        let available = output.len();
        // Java falls back to raw snappy when the 16-byte header is absent. A raw stream cannot
        // start with the magic (its first element would be a copy with nothing to copy), so a
        // stream that starts with the magic but is shorter than the header is a cut one.
        if !input.starts_with(&MAGIC) {
            // Raw snappy, which Java's SnappyInputStream also accepts.
            let n = raw_len(input)?;
            let Some(dst) = output.get_mut(..n) else {
                return Err(CompressionError::OutputTooSmall {
                    available,
                    needed: Some(n),
                });
            };
            return decode(input, dst);
        }
        if input.len() < HEADER.len() {
            return Err(corrupt("truncated stream header"));
        }
        let version = input
            .get(8..12)
            .and_then(|b| b.try_into().ok())
            .map_or(0, i32::from_be_bytes);
        if version < 1 {
            return Err(corrupt("unsupported xerial stream version"));
        }
        // First pass: the total length, from each block's own header.
        let mut total: usize = 0;
        for block in blocks(input) {
            total = total
                .checked_add(raw_len(block?)?)
                .ok_or(corrupt("stream too long"))?;
        }
        if total > available {
            return Err(CompressionError::OutputTooSmall {
                available,
                needed: Some(total),
            });
        }
        let mut out = Output::new(output);
        for block in blocks(input) {
            let block = block?;
            let n = raw_len(block)?;
            let dst = out.spare().get_mut(..n).ok_or(corrupt("stream too long"))?;
            let written = decode(block, dst)?;
            out.advance(written);
        }
        Ok(out.len)
    }

    pub(super) fn compress(input: &[u8], output: &mut [u8]) -> Result<usize, CompressionError> {
        let too_small = CompressionError::OutputTooSmall {
            available: output.len(),
            needed: Some(max_compressed_len(input.len())),
        };
        let mut out = Output::new(output);
        if !out.put(&HEADER) {
            return Err(too_small);
        }
        let mut encoder = Encoder::new();
        for chunk in input.chunks(BLOCK) {
            // `snap` wants room for the worst case of each block.
            let spare = out.spare();
            let Some((len, rest)) = spare.split_at_mut_checked(4) else {
                return Err(too_small);
            };
            if rest.len() < max_compress_len(chunk.len()) {
                return Err(too_small);
            }
            let n = encoder
                .compress(chunk, rest)
                .map_err(|_| corrupt("block too large to compress"))?;
            let n32 = u32::try_from(n).map_err(|_| corrupt("block too large to compress"))?;
            len.copy_from_slice(&n32.to_be_bytes());
            out.advance(n.saturating_add(4));
        }
        Ok(out.len)
    }

    /// The header, and for each 32 KiB block its length and snappy's worst case.
    pub(super) fn max_compressed_len(n: usize) -> usize {
        let blocks = n.div_ceil(BLOCK);
        let full = max_compress_len(BLOCK).saturating_add(4);
        HEADER.len().saturating_add(full.saturating_mul(blocks))
    }
}

#[cfg(feature = "lz4")]
mod lz4 {
    //! The LZ4 frame format, framed here around `lz4_flex`'s block codec.

    use lz4_flex::block::{
        CompressError, DecompressError, compress_into, decompress_into_with_dict,
        get_maximum_output_size,
    };
    use twox_hash::XxHash32;

    use super::{Compression, CompressionError, Output, usize_from};
    use crate::codec::Reader;

    /// What an lz4 frame's reads are named in the reader.
    const PATH: &str = "lz4";

    const CODEC: Compression = Compression::LZ4;
    const MAGIC: [u8; 4] = 0x184d_2204_u32.to_le_bytes();
    /// Skippable frames have magic numbers 0x184D2A50 to 0x184D2A5F.
    const SKIPPABLE_MASK: u32 = 0xffff_fff0;
    const SKIPPABLE: u32 = 0x184d_2a50;
    /// FLG: version 01, independent blocks, no checksums, no content size, no dictionary.
    const FLG: u8 = 0x60;
    /// BD: 64 KiB blocks.
    const BD: u8 = 0x40;
    const BLOCK: usize = 64 * 1024;
    /// LZ4's window: how far back a match in a linked block may reach.
    const WINDOW: usize = 64 * 1024;
    /// The high bit of a block size: the block is stored uncompressed.
    const UNCOMPRESSED: u32 = 0x8000_0000;

    const fn corrupt(reason: &'static str) -> CompressionError {
        CompressionError::Codec {
            codec: CODEC,
            reason,
        }
    }

    const fn checksum(reason: &'static str) -> CompressionError {
        CompressionError::Checksum {
            codec: CODEC,
            reason,
        }
    }

    fn xxh32(bytes: &[u8]) -> u32 {
        XxHash32::oneshot(0, bytes)
    }

    /// The header checksum byte: the second byte of the descriptor's xxHash32.
    fn header_checksum(bytes: &[u8]) -> u8 {
        xxh32(bytes).to_le_bytes().get(1).copied().unwrap_or(0)
    }

    /// What a frame descriptor says.
    struct Frame {
        independent: bool,
        block_checksum: bool,
        content_checksum: bool,
        content_size: Option<u64>,
        block_max: usize,
    }

    /// Reads a frame descriptor (after the magic number) and, with `checksums`, checks its
    /// checksum. `frame` is the whole frame from its magic number on, for the checksum that
    /// magic 0 Kafka wrote.
    fn descriptor(
        input: &mut Reader<'_>,
        frame: &[u8],
        checksums: bool,
    ) -> Result<Frame, CompressionError> {
        let start = input.rest();
        let truncated = corrupt("truncated frame header");
        let flg = input.u8(PATH).map_err(|_| truncated)?;
        let bd = input.u8(PATH).map_err(|_| truncated)?;
        if flg >> 6 != 1 {
            return Err(corrupt("unsupported frame version"));
        }
        if flg & 0x02 != 0 || bd & 0x8f != 0 {
            return Err(corrupt("reserved bits set in the frame header"));
        }
        let content_size = if flg & 0x08 != 0 {
            Some(u64::from_le_bytes(
                input.array::<8>(PATH).copied().map_err(|_| truncated)?,
            ))
        } else {
            None
        };
        if flg & 0x01 != 0 {
            return Err(corrupt("frames with a dictionary are not supported"));
        }
        let block_max = match (bd >> 4) & 0x07 {
            4 => 64 * 1024,
            5 => 256 * 1024,
            6 => 1024 * 1024,
            7 => 4 * 1024 * 1024,
            _ => return Err(corrupt("invalid block maximum size")),
        };
        let described = start
            .len()
            .checked_sub(input.rest().len())
            .and_then(|n| start.get(..n))
            .unwrap_or_default();
        let stored = input.u8(PATH).map_err(|_| truncated)?;
        // Kafka before magic 1 computed the checksum over the magic number as well; Java accepts
        // that on read, and so does this.
        let legacy = frame
            .get(..described.len().saturating_add(MAGIC.len()))
            .map(header_checksum);
        if checksums && stored != header_checksum(described) && Some(stored) != legacy {
            return Err(checksum("frame header checksum mismatch"));
        }
        Ok(Frame {
            independent: flg & 0x20 != 0,
            block_checksum: flg & 0x10 != 0,
            content_checksum: flg & 0x04 != 0,
            content_size,
            block_max,
        })
    }

    /// Decompresses `input`; with `checksums`, the header, block and content checksums must match.
    pub(super) fn decompress(
        input: &[u8],
        output: &mut [u8],
        checksums: bool,
    ) -> Result<usize, CompressionError> {
        let mut input = Reader::new(input);
        let mut out = Output::new(output);
        if input.is_empty() {
            return Err(corrupt("empty stream"));
        }
        while !input.is_empty() {
            let frame_bytes = input.rest();
            let magic = input
                .array::<4>(PATH)
                .copied()
                .map_err(|_| corrupt("truncated magic number"))?;
            let magic_n = u32::from_le_bytes(magic);
            if magic_n & SKIPPABLE_MASK == SKIPPABLE {
                let len = input
                    .array::<4>(PATH)
                    .map(|b| u32::from_le_bytes(*b))
                    .map_err(|_| corrupt("truncated skippable frame"))?;
                input
                    .skip(usize_from(len), PATH)
                    .map_err(|_| corrupt("truncated skippable frame"))?;
                continue;
            }
            if magic != MAGIC {
                return Err(corrupt("not an LZ4 frame"));
            }
            let frame = descriptor(&mut input, frame_bytes, checksums)?;
            let frame_start = out.len;
            loop {
                let size = input
                    .array::<4>(PATH)
                    .map(|b| u32::from_le_bytes(*b))
                    .map_err(|_| corrupt("truncated block size"))?;
                if size == 0 {
                    break;
                }
                let stored = size & UNCOMPRESSED != 0;
                let len = usize_from(size & !UNCOMPRESSED);
                if len > frame.block_max {
                    return Err(corrupt("block larger than the frame's maximum"));
                }
                let block = input
                    .take(len, PATH)
                    .map_err(|_| corrupt("truncated block"))?;
                if frame.block_checksum {
                    let sum = input
                        .array::<4>(PATH)
                        .map(|b| u32::from_le_bytes(*b))
                        .map_err(|_| corrupt("truncated block checksum"))?;
                    if checksums && sum != xxh32(block) {
                        return Err(checksum("block checksum mismatch"));
                    }
                }
                let available = out.capacity();
                let too_small = CompressionError::OutputTooSmall {
                    available,
                    needed: frame
                        .content_size
                        .and_then(|n| usize::try_from(n).ok())
                        .and_then(|n| n.checked_add(frame_start))
                        .filter(|&n| n > available),
                };
                if stored {
                    if !out.put(block) {
                        return Err(too_small);
                    }
                    continue;
                }
                let (done, spare) = out.split();
                let dict = if frame.independent {
                    &[][..]
                } else {
                    let frame_output = done.get(frame_start..).unwrap_or_default();
                    frame_output
                        .get(frame_output.len().saturating_sub(WINDOW)..)
                        .unwrap_or_default()
                };
                let spare_len = spare.len();
                // At most one block's worth, so that a block over the maximum is an error.
                let dst = spare
                    .get_mut(..spare_len.min(frame.block_max))
                    .unwrap_or_default();
                match decompress_into_with_dict(block, dst, dict) {
                    Ok(n) => out.advance(n),
                    Err(DecompressError::OutputTooSmall { .. }) if spare_len < frame.block_max => {
                        return Err(too_small);
                    }
                    Err(_) => return Err(corrupt("invalid LZ4 block")),
                }
            }
            let content = out.written().get(frame_start..).unwrap_or_default();
            if let Some(size) = frame.content_size
                && u64::try_from(content.len()).ok() != Some(size)
            {
                return Err(corrupt("content size mismatch"));
            }
            if frame.content_checksum {
                let sum = input
                    .array::<4>(PATH)
                    .map(|b| u32::from_le_bytes(*b))
                    .map_err(|_| corrupt("truncated content checksum"))?;
                if checksums && sum != xxh32(content) {
                    return Err(checksum("content checksum mismatch"));
                }
            }
        }
        Ok(out.len)
    }

    pub(super) fn compress(input: &[u8], output: &mut [u8]) -> Result<usize, CompressionError> {
        let too_small = CompressionError::OutputTooSmall {
            available: output.len(),
            needed: Some(max_compressed_len(input.len())),
        };
        let mut out = Output::new(output);
        if !out.put(&MAGIC) || !out.put(&[FLG, BD, header_checksum(&[FLG, BD])]) {
            return Err(too_small);
        }
        for chunk in input.chunks(BLOCK) {
            let spare = out.spare();
            let Some((size, rest)) = spare.split_at_mut_checked(4) else {
                return Err(too_small);
            };
            let n = match compress_into(chunk, rest) {
                Ok(n) if n < chunk.len() => n,
                Ok(_) => {
                    // Incompressible: store the block as it is.
                    let dst = rest.get_mut(..chunk.len()).ok_or(too_small)?;
                    dst.copy_from_slice(chunk);
                    chunk.len()
                }
                Err(CompressError::OutputTooSmall) => return Err(too_small),
                Err(_) => return Err(corrupt("LZ4 compression failed")),
            };
            let mut word = u32::try_from(n).map_err(|_| corrupt("block too large"))?;
            if n == chunk.len() {
                word |= UNCOMPRESSED;
            }
            size.copy_from_slice(&word.to_le_bytes());
            out.advance(n.saturating_add(4));
        }
        if !out.put(&[0; 4]) {
            return Err(too_small);
        }
        Ok(out.len)
    }

    /// Header and end mark, plus for each 64 KiB block its size and `lz4_flex`'s worst case.
    pub(super) fn max_compressed_len(n: usize) -> usize {
        let blocks = n.div_ceil(BLOCK);
        let full = get_maximum_output_size(BLOCK).saturating_add(4);
        full.saturating_mul(blocks).saturating_add(7 + 4)
    }
}

#[cfg(feature = "zstd")]
mod zstd {
    //! Zstandard with `ruzstd`.

    use ruzstd::decoding::FrameDecoder;
    use ruzstd::decoding::errors::FrameDecoderError;
    use ruzstd::encoding::{CompressionLevel, compress_to_vec};

    use super::{Compression, CompressionError};

    const CODEC: Compression = Compression::ZSTD;

    /// Decompresses `input`; a frame's optional content checksum is not checked, whatever
    /// `_checksums` says.
    pub(super) fn decompress(
        input: &[u8],
        output: &mut [u8],
        _checksums: bool,
    ) -> Result<usize, CompressionError> {
        if input.is_empty() {
            return Err(CompressionError::Codec {
                codec: CODEC,
                reason: "empty stream",
            });
        }
        let available = output.len();
        FrameDecoder::new()
            .decode_all(input, output)
            .map_err(|err| match err {
                FrameDecoderError::TargetTooSmall => CompressionError::OutputTooSmall {
                    available,
                    needed: None,
                },
                _ => CompressionError::Codec {
                    codec: CODEC,
                    reason: "invalid zstd stream",
                },
            })
    }

    pub(super) fn compress(input: &[u8], output: &mut [u8]) -> Result<usize, CompressionError> {
        let compressed = compress_to_vec(input, CompressionLevel::Fastest);
        let available = output.len();
        let Some(dst) = output.get_mut(..compressed.len()) else {
            return Err(CompressionError::OutputTooSmall {
                available,
                needed: Some(compressed.len()),
            });
        };
        dst.copy_from_slice(&compressed);
        Ok(compressed.len())
    }

    /// zstd's bound (`ZSTD_COMPRESSBOUND`): the input, 1/256 of it, and a margin for small
    /// inputs, plus room for a frame header and checksum.
    pub(super) fn max_compressed_len(n: usize) -> usize {
        let margin = (128 * 1024_usize).saturating_sub(n) / 2048;
        n.saturating_add(n >> 8)
            .saturating_add(margin)
            .saturating_add(32)
    }
}
