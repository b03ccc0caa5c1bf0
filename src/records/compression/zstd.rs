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
