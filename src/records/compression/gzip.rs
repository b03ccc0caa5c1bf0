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
