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
