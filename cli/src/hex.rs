//! The hex layout of a frame: 16 bytes a row, rows labelled by their offset.

use std::io::{self, Write};

/// Bytes per row.
pub(crate) const ROW: usize = 16;

/// Writes the column header and one row per 16 bytes:
///
/// ```text
///       0  1  2  3  4  5  6  7  8  9  A  B  C  D  E  F
/// 0000  00 00 00 15 00 27 00 02 00 00 00 00 00 00 00 00
/// 0010  00 00 00 00 00 00 00 00 00
/// ```
pub(crate) fn write(out: &mut dyn Write, bytes: &[u8]) -> io::Result<()> {
    write!(out, "     ")?;
    for column in 0..ROW {
        write!(out, " {column:>2X}")?;
    }
    writeln!(out)?;
    for (i, row) in bytes.chunks(ROW).enumerate() {
        write!(out, "{:04x} ", i * ROW)?;
        for b in row {
            write!(out, " {b:02x}")?;
        }
        writeln!(out)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_of_sixteen_labelled_by_offset() {
        let bytes: Vec<u8> = (0..=17).collect();
        let mut out = Vec::new();
        write(&mut out, &bytes).unwrap();
        let text = String::from_utf8(out).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), 3);
        assert_eq!(
            lines[0],
            "       0  1  2  3  4  5  6  7  8  9  A  B  C  D  E  F"
        );
        assert_eq!(
            lines[1],
            "0000  00 01 02 03 04 05 06 07 08 09 0a 0b 0c 0d 0e 0f"
        );
        assert_eq!(lines[2], "0010  10 11");
    }
}
