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
fn blocks<'a>(input: &'a [u8]) -> impl Iterator<Item = Result<&'a [u8], CompressionError>> + 'a {
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
