//! The size prefix every frame starts with: the one rule for reading it, which the frame
//! decoders, the ApiVersions reply reader and the dissector share.

use super::{Failed, Reader};
use crate::error::{DecodeError, DecodeErrorKind};

/// Bytes in the size prefix.
pub const SIZE_LEN: usize = 4;

/// A size prefix as a length: `NegativeFrameSize` (at offset 0, where the prefix is) when it is
/// negative.
pub(crate) fn announced_len(size: i32) -> Result<usize, DecodeError> {
    usize::try_from(size)
        .map_err(|_| DecodeError::new(0, DecodeErrorKind::NegativeFrameSize(size), "Frame.size"))
}

/// Reads a frame's size prefix as a length (see [`announced_len`]).
pub(crate) fn size_prefix(r: &mut Reader<'_>) -> Result<usize, Failed> {
    let size = r.i32("Frame.size")?;
    announced_len(size).map_err(|e| r.fail_with(e))
}

/// Reads the size prefix of `frame` and returns a reader over exactly the bytes it announces.
pub(crate) fn payload(frame: &[u8]) -> Result<Reader<'_>, DecodeError> {
    let mut r = Reader::new(frame);
    let body = r.decode_with(|r| {
        let size = size_prefix(r)?;
        r.sub(size, "Frame")
    })?;
    r.finish("Frame")?;
    Ok(body)
}

/// A reader over the part of a frame's payload that `frame` holds: from after the size prefix
/// to the frame's end, or to the end of `frame` if that comes first.
pub(crate) fn header_start(frame: &[u8]) -> Result<Reader<'_>, DecodeError> {
    let mut r = Reader::new(frame);
    r.decode_with(|r| {
        let size = size_prefix(r)?;
        let available = r.remaining().min(size);
        r.sub(available, "Frame")
    })
}
