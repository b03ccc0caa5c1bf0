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
//! * [`RecordBatch::decompress_into`](super::RecordBatch::decompress_into) decompresses a batch's payload into a caller buffer and
//!   iterates its records;
//! * [`BatchBuilder::write_compressed`](super::BatchBuilder::write_compressed) writes a compressed batch, CRC included.
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

use core::fmt;

use super::batch::Compression;
use crate::error::{DecodeError, EncodeError};

#[cfg(feature = "gzip")]
mod gzip;
#[cfg(feature = "lz4")]
mod lz4;
#[cfg(feature = "snappy")]
mod snappy;
#[cfg(feature = "zstd")]
mod zstd;

/// Why compressing or decompressing failed.
///
/// The [`Compressor`] and [`Decompressor`] traits return the first four variants; the batch
/// helpers ([`RecordBatch::decompress_into`](super::RecordBatch::decompress_into), [`BatchBuilder::write_compressed`](super::BatchBuilder::write_compressed)) also return
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
