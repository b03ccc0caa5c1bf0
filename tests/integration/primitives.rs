//! Wire primitives through the public `Writer`/`Reader` API: varints (unsigned, zig-zag 32 and
//! 64 bit), classic and compact strings and bytes with their null forms, the size functions that
//! mirror the writer, and the documented leniencies and limits of the reader.

use kwire::codec::{
    MAX_STRING_LEN, Reader, Str, Writer, bytes_len, nullable_bytes_len, nullable_string_len,
    string_len, uvarint_len, varint_len, varlong_len,
};
use kwire::{DecodeError, DecodeErrorKind, EncodeError};
use proptest::prelude::*;

const P: &str = "test.field";

fn err(offset: usize, kind: DecodeErrorKind) -> DecodeError {
    DecodeError::new(offset, kind, P)
}

fn truncated(offset: usize, needed: usize) -> DecodeError {
    err(offset, DecodeErrorKind::Truncated { needed })
}

/// Runs `f` on a fresh writer over a 64 KiB buffer and returns the bytes written.
fn written(f: impl FnOnce(&mut Writer<'_>)) -> Vec<u8> {
    let mut buf = vec![0u8; 65_536];
    let mut w = Writer::new(&mut buf);
    f(&mut w);
    assert!(!w.overflowed());
    let n = w.position();
    buf.truncate(n);
    buf
}

/// An independent LEB128 encoder (7 bits a byte, least significant group first, minimal form).
fn leb128(mut v: u64) -> Vec<u8> {
    let mut out = Vec::new();
    loop {
        let low = (v & 0x7f) as u8;
        v >>= 7;
        if v == 0 {
            out.push(low);
            return out;
        }
        out.push(low | 0x80);
    }
}

fn zigzag32(v: i32) -> u32 {
    ((v << 1) ^ (v >> 31)) as u32
}

fn zigzag64(v: i64) -> u64 {
    ((v << 1) ^ (v >> 63)) as u64
}

fn enc_uvarint(v: u32) -> Vec<u8> {
    written(|w| w.uvarint(v))
}

fn enc_varint(v: i32) -> Vec<u8> {
    written(|w| w.varint(v))
}

fn enc_varlong(v: i64) -> Vec<u8> {
    written(|w| w.varlong(v))
}

// ---------------------------------------------------------------------------------------------
// Exact boundary vectors
// ---------------------------------------------------------------------------------------------

#[test]
fn uvarint_boundaries() {
    let cases: &[(u32, &[u8])] = &[
        (0, &[0x00]),
        (1, &[0x01]),
        (127, &[0x7f]),
        (128, &[0x80, 0x01]),
        (8192, &[0x80, 0x40]),
        (16_383, &[0xff, 0x7f]),
        (16_384, &[0x80, 0x80, 0x01]),
        ((1 << 21) - 1, &[0xff, 0xff, 0x7f]),
        (1 << 21, &[0x80, 0x80, 0x80, 0x01]),
        ((1 << 28) - 1, &[0xff, 0xff, 0xff, 0x7f]),
        (1 << 28, &[0x80, 0x80, 0x80, 0x80, 0x01]),
        (i32::MAX as u32, &[0xff, 0xff, 0xff, 0xff, 0x07]),
        (0x8000_0000, &[0x80, 0x80, 0x80, 0x80, 0x08]),
        (u32::MAX, &[0xff, 0xff, 0xff, 0xff, 0x0f]),
    ];
    for &(v, bytes) in cases {
        assert_eq!(enc_uvarint(v), bytes, "uvarint {v}");
        assert_eq!(uvarint_len(v), bytes.len(), "uvarint_len {v}");
        let mut r = Reader::new(bytes);
        assert_eq!(r.decode_with(|r| r.uvarint(P)), Ok(v), "decode uvarint {v}");
        assert_eq!(r.offset(), bytes.len());
        assert!(r.is_empty());
    }
}

#[test]
fn varint_boundaries() {
    let cases: &[(i32, &[u8])] = &[
        (0, &[0x00]),
        (-1, &[0x01]),
        (1, &[0x02]),
        (63, &[0x7e]),
        (-64, &[0x7f]),
        (64, &[0x80, 0x01]),
        (-65, &[0x81, 0x01]),
        (8191, &[0xfe, 0x7f]),
        (-8192, &[0xff, 0x7f]),
        (8192, &[0x80, 0x80, 0x01]),
        (i32::MAX, &[0xfe, 0xff, 0xff, 0xff, 0x0f]),
        (i32::MIN, &[0xff, 0xff, 0xff, 0xff, 0x0f]),
    ];
    for &(v, bytes) in cases {
        assert_eq!(enc_varint(v), bytes, "varint {v}");
        assert_eq!(varint_len(v), bytes.len(), "varint_len {v}");
        let mut r = Reader::new(bytes);
        assert_eq!(r.decode_with(|r| r.varint(P)), Ok(v), "decode varint {v}");
        assert!(r.is_empty());
    }
}

#[test]
fn varlong_boundaries() {
    let cases: &[(i64, &[u8])] = &[
        (0, &[0x00]),
        (-1, &[0x01]),
        (1, &[0x02]),
        (63, &[0x7e]),
        (-64, &[0x7f]),
        (64, &[0x80, 0x01]),
        (-65, &[0x81, 0x01]),
        (i64::from(i32::MAX), &[0xfe, 0xff, 0xff, 0xff, 0x0f]),
        (i64::from(i32::MIN), &[0xff, 0xff, 0xff, 0xff, 0x0f]),
        (i64::from(i32::MAX) + 1, &[0x80, 0x80, 0x80, 0x80, 0x10]),
        (
            i64::MAX,
            &[0xfe, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01],
        ),
        (
            i64::MIN,
            &[0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01],
        ),
        (
            1 << 62,
            &[0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x01],
        ),
        (
            (1 << 62) - 1,
            &[0xfe, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f],
        ),
    ];
    for &(v, bytes) in cases {
        assert_eq!(enc_varlong(v), bytes, "varlong {v}");
        assert_eq!(varlong_len(v), bytes.len(), "varlong_len {v}");
        let mut r = Reader::new(bytes);
        assert_eq!(r.decode_with(|r| r.varlong(P)), Ok(v), "decode varlong {v}");
        assert!(r.is_empty());
    }
}

#[test]
fn len_functions_at_every_group_boundary() {
    for bits in 0..32u32 {
        for v in [
            1u32 << bits,
            (1u32 << bits) - 1,
            (1u32 << bits).wrapping_add(1),
        ] {
            assert_eq!(uvarint_len(v), enc_uvarint(v).len(), "uvarint_len {v}");
            let s = v as i32;
            assert_eq!(varint_len(s), enc_varint(s).len(), "varint_len {s}");
            let n = s.wrapping_neg();
            assert_eq!(varint_len(n), enc_varint(n).len(), "varint_len {n}");
        }
    }
    for bits in 0..64u32 {
        for v in [
            1u64 << bits,
            (1u64 << bits) - 1,
            (1u64 << bits).wrapping_add(1),
        ] {
            let s = v as i64;
            assert_eq!(varlong_len(s), enc_varlong(s).len(), "varlong_len {s}");
            let n = s.wrapping_neg();
            assert_eq!(varlong_len(n), enc_varlong(n).len(), "varlong_len {n}");
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Over-long, truncated and non-minimal varints
// ---------------------------------------------------------------------------------------------

#[test]
fn uvarint_with_continuation_on_fifth_byte_is_too_long() {
    // The varint starts at offset 2 (after a fixed int16), so the error offset is absolute.
    let bytes = [0x00, 0x07, 0x80, 0x80, 0x80, 0x80, 0x80, 0x00];
    let mut r = Reader::new(&bytes);
    assert_eq!(r.decode_with(|r| r.i16(P)), Ok(7));
    assert_eq!(
        r.decode_with(|r| r.uvarint(P)),
        Err(err(2, DecodeErrorKind::VarintTooLong))
    );
    assert_eq!(r.offset(), 2, "a failed varint read does not advance");
    let mut r = Reader::new(&bytes[2..]);
    assert_eq!(
        r.decode_with(|r| r.varint(P)),
        Err(err(0, DecodeErrorKind::VarintTooLong))
    );
    let all_ff = [0xffu8; 5];
    assert_eq!(
        Reader::new(&all_ff).decode_with(|r| r.uvarint(P)),
        Err(err(0, DecodeErrorKind::VarintTooLong))
    );
    assert_eq!(
        Reader::with_offset(&all_ff, 100).decode_with(|r| r.varint(P)),
        Err(err(100, DecodeErrorKind::VarintTooLong))
    );
}

#[test]
fn varlong_with_continuation_on_tenth_byte_is_too_long() {
    let mut bytes = vec![0x01];
    bytes.extend_from_slice(&[0x80; 10]);
    bytes.push(0x00);
    let mut r = Reader::new(&bytes);
    assert_eq!(r.decode_with(|r| r.u8(P)), Ok(1));
    assert_eq!(
        r.decode_with(|r| r.varlong(P)),
        Err(err(1, DecodeErrorKind::VarintTooLong))
    );
    assert_eq!(r.offset(), 1);
    // Nine continuation bytes and a terminating tenth byte is fine (and 10 bytes long).
    let mut ok = vec![0x80; 9];
    ok.push(0x00);
    let mut r = Reader::new(&ok);
    assert_eq!(r.decode_with(|r| r.varlong(P)), Ok(0));
    assert_eq!(r.offset(), 10);
}

#[test]
fn truncated_varints_report_their_start() {
    for bytes in [
        &[][..],
        &[0x80][..],
        &[0xff, 0xff][..],
        &[0x80, 0x80, 0x80, 0x80][..],
    ] {
        let mut r = Reader::with_offset(bytes, 9);
        assert_eq!(
            r.decode_with(|r| r.uvarint(P)),
            Err(truncated(9, 1)),
            "{bytes:02x?}"
        );
        assert_eq!(r.offset(), 9);
        assert_eq!(
            Reader::with_offset(bytes, 9).decode_with(|r| r.varint(P)),
            Err(truncated(9, 1))
        );
        assert_eq!(
            Reader::with_offset(bytes, 9).decode_with(|r| r.varlong(P)),
            Err(truncated(9, 1))
        );
    }
    let nine = [0xffu8; 9];
    assert_eq!(
        Reader::new(&nine).decode_with(|r| r.varlong(P)),
        Err(truncated(0, 1))
    );
}

#[test]
fn non_minimal_varints_are_accepted() {
    // Documented leniency (as Kafka's Java reader): padding groups are accepted.
    let mut r = Reader::new(&[0x80, 0x00]);
    assert_eq!(r.decode_with(|r| r.uvarint(P)), Ok(0));
    assert_eq!(r.offset(), 2);
    let mut r = Reader::new(&[0x81, 0x80, 0x80, 0x80, 0x00]);
    assert_eq!(r.decode_with(|r| r.uvarint(P)), Ok(1));
    assert_eq!(r.offset(), 5);
    let mut r = Reader::new(&[0x82, 0x80, 0x00]);
    assert_eq!(r.decode_with(|r| r.varint(P)), Ok(1));
    let mut r = Reader::new(&[0x81, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x00]);
    assert_eq!(r.decode_with(|r| r.varlong(P)), Ok(-1));
    assert_eq!(r.offset(), 10);
    // Bits of the 5th byte past bit 31 are ignored.
    assert_eq!(
        Reader::new(&[0xff, 0xff, 0xff, 0xff, 0x7f]).decode_with(|r| r.uvarint(P)),
        Ok(u32::MAX)
    );
    assert_eq!(
        Reader::new(&[0xfe, 0xff, 0xff, 0xff, 0x7f]).decode_with(|r| r.varint(P)),
        Ok(i32::MAX)
    );
    // Only bit 0 of a varlong's 10th byte is used.
    assert_eq!(
        Reader::new(&[0xfe, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f])
            .decode_with(|r| r.varlong(P)),
        Ok(i64::MAX)
    );
    // Encoding is always minimal.
    assert_eq!(enc_uvarint(0), [0x00]);
}

// ---------------------------------------------------------------------------------------------
// Strings and bytes: prefixes, nulls, limits
// ---------------------------------------------------------------------------------------------

#[test]
fn string_and_bytes_prefixes() {
    assert_eq!(
        written(|w| w.string(Str::new("abc"), false)),
        b"\x00\x03abc"
    );
    assert_eq!(written(|w| w.string(Str::new("abc"), true)), b"\x04abc");
    assert_eq!(written(|w| w.string(Str::EMPTY, false)), [0x00, 0x00]);
    assert_eq!(written(|w| w.string(Str::EMPTY, true)), [0x01]);
    assert_eq!(written(|w| w.bytes(&[9, 8], false)), [0, 0, 0, 2, 9, 8]);
    assert_eq!(written(|w| w.bytes(&[9, 8], true)), [3, 9, 8]);
    assert_eq!(written(|w| w.bytes(&[], false)), [0, 0, 0, 0]);
    assert_eq!(written(|w| w.bytes(&[], true)), [1]);
    // A compact length of N+1 = 128 needs two varint bytes.
    let s127 = "x".repeat(127);
    let out = written(|w| w.string(Str::new(&s127), true));
    assert_eq!(&out[..2], &[0x80, 0x01]);
    assert_eq!(out.len(), 129);
    assert_eq!(string_len(Str::new(&s127), true, P), Ok(129));
    let s126 = "x".repeat(126);
    assert_eq!(written(|w| w.string(Str::new(&s126), true))[0], 0x7f);
    assert_eq!(string_len(Str::new(&s126), true, P), Ok(127));
    let s300 = "y".repeat(300);
    assert_eq!(
        &written(|w| w.string(Str::new(&s300), false))[..2],
        &[0x01, 0x2c]
    );
}

#[test]
fn null_sentinels() {
    // Writing.
    assert_eq!(written(|w| w.nullable_string(None, false)), [0xff, 0xff]);
    assert_eq!(written(|w| w.nullable_string(None, true)), [0x00]);
    assert_eq!(
        written(|w| w.nullable_bytes(None, false)),
        [0xff, 0xff, 0xff, 0xff]
    );
    assert_eq!(written(|w| w.nullable_bytes(None, true)), [0x00]);
    assert_eq!(nullable_string_len(None, false, P), Ok(2));
    assert_eq!(nullable_string_len(None, true, P), Ok(1));
    assert_eq!(nullable_bytes_len(None, false, P), Ok(4));
    assert_eq!(nullable_bytes_len(None, true, P), Ok(1));
    // Reading the canonical sentinels.
    assert_eq!(
        Reader::new(&[0xff, 0xff]).decode_with(|r| r.nullable_string(false, P)),
        Ok(None)
    );
    assert_eq!(
        Reader::new(&[0x00]).decode_with(|r| r.nullable_string(true, P)),
        Ok(None)
    );
    assert_eq!(
        Reader::new(&[0xff, 0xff, 0xff, 0xff]).decode_with(|r| r.nullable_bytes(false, P)),
        Ok(None)
    );
    assert_eq!(
        Reader::new(&[0x00]).decode_with(|r| r.nullable_bytes(true, P)),
        Ok(None)
    );
    // Empty is not null.
    assert_eq!(
        Reader::new(&[0x00, 0x00]).decode_with(|r| r.nullable_string(false, P)),
        Ok(Some(Str::EMPTY))
    );
    assert_eq!(
        Reader::new(&[0x01]).decode_with(|r| r.nullable_string(true, P)),
        Ok(Some(Str::EMPTY))
    );
    assert_eq!(
        Reader::new(&[0, 0, 0, 0]).decode_with(|r| r.nullable_bytes(false, P)),
        Ok(Some(&[][..]))
    );
    assert_eq!(
        Reader::new(&[0x01]).decode_with(|r| r.nullable_bytes(true, P)),
        Ok(Some(&[][..]))
    );
    // Documented leniency: any negative length in a nullable field is null.
    assert_eq!(
        Reader::new(&[0xff, 0xfe]).decode_with(|r| r.nullable_string(false, P)),
        Ok(None)
    );
    assert_eq!(
        Reader::new(&[0x80, 0x00]).decode_with(|r| r.nullable_string(false, P)),
        Ok(None)
    );
    assert_eq!(
        Reader::new(&[0xff, 0xff, 0xff, 0xfb]).decode_with(|r| r.nullable_bytes(false, P)),
        Ok(None)
    );
    // Compact 0xffffffff is N = -2 in Java's int arithmetic: null too.
    assert_eq!(
        Reader::new(&[0xff, 0xff, 0xff, 0xff, 0x0f]).decode_with(|r| r.nullable_string(true, P)),
        Ok(None)
    );
    // Non-nullable reads of the sentinels.
    assert_eq!(
        Reader::new(&[0xff, 0xff]).decode_with(|r| r.string(false, P)),
        Err(err(0, DecodeErrorKind::UnexpectedNull))
    );
    assert_eq!(
        Reader::new(&[0x00]).decode_with(|r| r.string(true, P)),
        Err(err(0, DecodeErrorKind::UnexpectedNull))
    );
    assert_eq!(
        Reader::new(&[0xff, 0xff, 0xff, 0xff]).decode_with(|r| r.bytes(false, P)),
        Err(err(0, DecodeErrorKind::UnexpectedNull))
    );
    assert_eq!(
        Reader::new(&[0x00]).decode_with(|r| r.bytes(true, P)),
        Err(err(0, DecodeErrorKind::UnexpectedNull))
    );
    assert_eq!(
        Reader::with_offset(&[0xff, 0xfe], 3).decode_with(|r| r.string(false, P)),
        Err(err(3, DecodeErrorKind::NegativeLength(-2)))
    );
    assert_eq!(
        Reader::new(&[0xff, 0xff, 0xff, 0xff, 0x0f]).decode_with(|r| r.string(true, P)),
        Err(err(0, DecodeErrorKind::NegativeLength(-2)))
    );
    assert_eq!(
        Reader::new(&[0x80, 0x00, 0x00, 0x00]).decode_with(|r| r.bytes(false, P)),
        Err(err(0, DecodeErrorKind::NegativeLength(i32::MIN)))
    );
}

#[test]
fn compact_length_0x80000000_is_too_large() {
    // N+1 = 2^31 gives N = i32::MAX, which no input can hold; nullable or not.
    let bytes = [0x80, 0x80, 0x80, 0x80, 0x08, 0x00];
    let kind = DecodeErrorKind::LengthTooLarge {
        length: 0x7fff_ffff,
        limit: 0x7fff_fffe,
    };
    assert_eq!(
        Reader::new(&bytes).decode_with(|r| r.bytes(true, P)),
        Err(err(0, kind))
    );
    assert_eq!(
        Reader::new(&bytes).decode_with(|r| r.nullable_bytes(true, P)),
        Err(err(0, kind))
    );
    assert_eq!(
        Reader::new(&bytes).decode_with(|r| r.string(true, P)),
        Err(err(0, kind))
    );
}

#[test]
fn string_length_limit() {
    let max = "s".repeat(32_767);
    let over = "s".repeat(32_768);
    assert_eq!(MAX_STRING_LEN, 32_767);
    for flexible in [false, true] {
        let prefix = if flexible { 3 } else { 2 };
        assert_eq!(string_len(Str::new(&max), flexible, P), Ok(32_767 + prefix));
        assert_eq!(
            nullable_string_len(Some(Str::new(&max)), flexible, P),
            Ok(32_767 + prefix)
        );
        let out = written(|w| w.string(Str::new(&max), flexible));
        assert_eq!(out.len(), 32_767 + prefix);
        let mut r = Reader::new(&out);
        assert_eq!(r.decode_with(|r| r.string(flexible, P)), Ok(Str::new(&max)));
        assert!(r.is_empty());
        assert_eq!(
            string_len(Str::new(&over), flexible, P),
            Err(EncodeError::LengthOverflow {
                path: P,
                length: 32_768
            })
        );
        assert_eq!(
            nullable_string_len(Some(Str::new(&over)), flexible, P),
            Err(EncodeError::LengthOverflow {
                path: P,
                length: 32_768
            })
        );
    }
    assert_eq!(
        written(|w| w.string(Str::new(&max), false))[..2],
        [0x7f, 0xff]
    );
    assert_eq!(
        written(|w| w.string(Str::new(&max), true))[..3],
        [0x80, 0x80, 0x02]
    );
    // Decoding a compact string of 32768 bytes (N+1 = 32769 = 81 80 02), at an offset.
    let mut input = vec![0xaa];
    input.extend_from_slice(&[0x81, 0x80, 0x02]);
    input.extend_from_slice(over.as_bytes());
    let mut r = Reader::new(&input);
    assert_eq!(r.decode_with(|r| r.u8(P)), Ok(0xaa));
    let too_large = DecodeErrorKind::LengthTooLarge {
        length: 32_768,
        limit: 32_767,
    };
    assert_eq!(
        r.clone().decode_with(|r| r.string(true, P)),
        Err(err(1, too_large))
    );
    assert_eq!(
        r.decode_with(|r| r.nullable_string(true, P)),
        Err(err(1, too_large))
    );
    // A classic int16 length cannot say 32768: 0x8000 is negative.
    assert_eq!(
        Reader::new(&[0x80, 0x00]).decode_with(|r| r.string(false, P)),
        Err(err(0, DecodeErrorKind::NegativeLength(-32_768)))
    );
    // Bytes have no such limit.
    let big = vec![7u8; 40_000];
    assert_eq!(bytes_len(&big, true, P), Ok(40_000 + 3));
    assert_eq!(bytes_len(&big, false, P), Ok(40_000 + 4));
}

#[test]
fn string_and_bytes_past_the_end_are_truncated() {
    // Length 5, 2 bytes present: Truncated at the first content byte, 3 more needed.
    assert_eq!(
        Reader::new(&[0x00, 0x05, b'a', b'b']).decode_with(|r| r.string(false, P)),
        Err(truncated(2, 3))
    );
    assert_eq!(
        Reader::new(&[0x06, b'a', b'b']).decode_with(|r| r.string(true, P)),
        Err(truncated(1, 3))
    );
    assert_eq!(
        Reader::new(&[0x00, 0x00, 0x00, 0x05, 1]).decode_with(|r| r.bytes(false, P)),
        Err(truncated(4, 4))
    );
    assert_eq!(
        Reader::new(&[0x03]).decode_with(|r| r.nullable_bytes(true, P)),
        Err(truncated(1, 2))
    );
    // A truncated prefix reports the prefix.
    assert_eq!(
        Reader::new(&[0x00]).decode_with(|r| r.string(false, P)),
        Err(truncated(0, 1))
    );
    assert_eq!(
        Reader::new(&[0x00, 0x00]).decode_with(|r| r.bytes(false, P)),
        Err(truncated(0, 2))
    );
    assert_eq!(
        Reader::new(&[]).decode_with(|r| r.string(true, P)),
        Err(truncated(0, 1))
    );
}

#[test]
fn strings_that_are_not_utf8_read_and_are_checked_where_asked() {
    // A reader takes the bytes as they are; `to_str` checks them.
    let s = Reader::new(&[0x00, 0x03, b'a', 0xc3, 0x28])
        .decode_with(|r| r.string(false, P))
        .unwrap();
    assert_eq!(s.as_bytes(), b"a\xc3\x28");
    assert_eq!(s.to_str().map_err(|e| e.valid_up_to()), Err(1));
    assert!(!s.is_utf8());
    assert_eq!(s.to_string(), r"a\xc3(");
    #[cfg(feature = "alloc")]
    assert_eq!(s.to_string_lossy(), "a\u{fffd}(");
    let s = Reader::new(&[0x03, 0xff, 0xfe])
        .decode_with(|r| r.nullable_string(true, P))
        .unwrap()
        .unwrap();
    assert_eq!(s.as_bytes(), [0xff, 0xfe]);
    assert_eq!(format!("{s:?}"), r#""\xff\xfe""#);
    // Written back as read.
    assert_eq!(written(|w| w.string(s, true)), [0x03, 0xff, 0xfe]);
    assert_eq!(string_len(s, true, P), Ok(3));
}

#[test]
fn invalid_utf8_reports_the_first_string_byte_when_checked() {
    assert_eq!(
        Reader::new(&[0x00, 0x03, b'a', 0xc3, 0x28])
            .checking_utf8()
            .decode_with(|r| r.string(false, P)),
        Err(err(2, DecodeErrorKind::InvalidUtf8))
    );
    assert_eq!(
        Reader::new(&[0x03, 0xff, 0xfe])
            .checking_utf8()
            .decode_with(|r| r.nullable_string(true, P)),
        Err(err(1, DecodeErrorKind::InvalidUtf8))
    );
    // A null or empty string has nothing to check.
    assert_eq!(
        Reader::new(&[0x00])
            .checking_utf8()
            .decode_with(|r| r.nullable_string(true, P)),
        Ok(None)
    );
    assert_eq!(
        Reader::new(&[0x01])
            .checking_utf8()
            .decode_with(|r| r.string(true, P)),
        Ok(Str::EMPTY)
    );
    // The same bytes are fine as `bytes`.
    assert_eq!(
        Reader::new(&[0x03, 0xff, 0xfe]).decode_with(|r| r.bytes(true, P)),
        Ok(&[0xff, 0xfe][..])
    );
}

// ---------------------------------------------------------------------------------------------
// Property tests
// ---------------------------------------------------------------------------------------------

fn u32_edges() -> impl Strategy<Value = u32> {
    prop_oneof![
        any::<u32>(),
        (0u32..32).prop_map(|b| 1u32 << b),
        (0u32..32).prop_map(|b| (1u32 << b).wrapping_sub(1)),
    ]
}

fn i64_edges() -> impl Strategy<Value = i64> {
    prop_oneof![
        any::<i64>(),
        (0u32..64).prop_map(|b| 1i64 << b),
        (0u32..64).prop_map(|b| (1i64 << b).wrapping_sub(1)),
        (0u32..64).prop_map(|b| (1i64 << b).wrapping_neg()),
    ]
}

/// Signed values whose zig-zag form is at or next to a power of two, so that every varint byte
/// length and both sides of every boundary between lengths come up.
fn i32_zigzag_edges() -> impl Strategy<Value = i32> {
    u32_edges().prop_map(|u| ((u >> 1) as i32) ^ -((u & 1) as i32))
}

fn i64_zigzag_edges() -> impl Strategy<Value = i64> {
    prop_oneof![
        any::<u64>(),
        (0u32..64).prop_map(|b| 1u64 << b),
        (0u32..64).prop_map(|b| (1u64 << b).wrapping_sub(1)),
    ]
    .prop_map(|u| ((u >> 1) as i64) ^ -((u & 1) as i64))
}

/// Element counts and byte lengths whose compact prefix (the length plus one) is on either side
/// of the one-to-two byte edge (127/128) or the two-to-three byte edge (16383/16384).
fn lengths_at_compact_edges() -> impl Strategy<Value = usize> {
    prop_oneof![0usize..4, 122usize..132, 16_378usize..16_390]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    /// Every byte length of a zig-zag varint, and both sides of each boundary, against the
    /// LEB128 definition.
    #[test]
    fn zigzag_varints_at_every_length_boundary(v in i32_zigzag_edges(), l in i64_zigzag_edges()) {
        let out = enc_varint(v);
        prop_assert_eq!(&out, &leb128(u64::from(zigzag32(v))));
        prop_assert_eq!(out.len(), varint_len(v));
        prop_assert_eq!(Reader::new(&out).decode_with(|r| r.varint(P)), Ok(v));
        let out = enc_varlong(l);
        prop_assert_eq!(&out, &leb128(zigzag64(l)));
        prop_assert_eq!(out.len(), varlong_len(l));
        prop_assert_eq!(Reader::new(&out).decode_with(|r| r.varlong(P)), Ok(l));
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    /// Strings, bytes and arrays whose compact length crosses 127/128 and 16383/16384: the
    /// prefix has the LEB128 bytes of the length plus one, the sizes agree, and each reads back.
    #[test]
    fn compact_lengths_across_their_byte_edges(len in lengths_at_compact_edges(), seed in any::<u8>()) {
        let prefix = leb128(len as u64 + 1);
        let text: String = (0..len).map(|i| char::from(b'a' + ((i + usize::from(seed)) % 26) as u8)).collect();
        if len <= 32_767 {
            let out = written(|w| w.string(Str::new(&text), true));
            prop_assert_eq!(&out[..prefix.len()], prefix.as_slice());
            prop_assert_eq!(Ok(out.len()), string_len(Str::new(&text), true, P));
            prop_assert_eq!(Reader::new(&out).decode_with(|r| r.string(true, P)), Ok(Str::new(&text)));
        }
        let bytes: Vec<u8> = (0..len).map(|i| (i as u8) ^ seed).collect();
        let out = written(|w| w.nullable_bytes(Some(&bytes), true));
        prop_assert_eq!(&out[..prefix.len()], prefix.as_slice());
        prop_assert_eq!(Ok(out.len()), bytes_len(&bytes, true, P));
        prop_assert_eq!(Reader::new(&out).decode_with(|r| r.bytes(true, P)), Ok(bytes.as_slice()));

        let ints: Vec<i32> = (0..len as i32).map(|i| i ^ i32::from(seed)).collect();
        let array = kwire::codec::Array::from(&ints[..]);
        let mut buf = vec![0u8; prefix.len() + 4 * len];
        let mut w = Writer::new(&mut buf);
        array.write(&mut w, 0, true);
        prop_assert_eq!(w.position(), buf.len());
        prop_assert_eq!(array.encoded_len(0, true, P), Ok(buf.len()));
        prop_assert_eq!(&buf[..prefix.len()], prefix.as_slice());
        let read = kwire::codec::Array::<i32>::read(&mut Reader::new(&buf), 0, true, P)
            .expect("reads back");
        prop_assert_eq!(read.len(), len);
        prop_assert!(read.iter().eq(ints.iter().copied()));
        let names: Vec<Str<'_>> = (0..len).map(|i| Str::new(if i % 2 == 0 { "ab" } else { "" })).collect();
        let names = kwire::codec::Array::from(&names[..]);
        let mut buf = vec![0u8; names.encoded_len(0, true, P).expect("sized")];
        names.write(&mut Writer::new(&mut buf), 0, true);
        prop_assert_eq!(&buf[..prefix.len()], prefix.as_slice());
        let read = kwire::codec::Array::<Str<'_>>::read(&mut Reader::new(&buf), 0, true, P)
            .expect("reads back");
        prop_assert_eq!(read, names);
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn uvarint_round_trip(v in u32_edges(), pad in 0usize..4) {
        let mut buf = vec![0u8; pad + 5];
        let mut w = Writer::new(&mut buf);
        for _ in 0..pad { w.u8(0xee); }
        w.uvarint(v);
        let end = w.position();
        prop_assert!(!w.overflowed());
        prop_assert_eq!(end - pad, uvarint_len(v));
        let expected = leb128(u64::from(v));
        prop_assert_eq!(&buf[pad..end], expected.as_slice());
        let mut r = Reader::new(&buf[..end]);
        r.decode_with(|r| r.take(pad, P)).unwrap();
        prop_assert_eq!(r.decode_with(|r| r.uvarint(P)), Ok(v));
        prop_assert_eq!(r.offset(), end);
    }

    #[test]
    fn varint_round_trip(v in any::<i32>()) {
        let out = enc_varint(v);
        prop_assert_eq!(&out, &leb128(u64::from(zigzag32(v))));
        prop_assert_eq!(out.len(), varint_len(v));
        let mut r = Reader::new(&out);
        prop_assert_eq!(r.decode_with(|r| r.varint(P)), Ok(v));
        prop_assert!(r.is_empty());
        // A varint is a varlong with the same bytes.
        prop_assert_eq!(Reader::new(&out).decode_with(|r| r.varlong(P)), Ok(i64::from(v)));
    }

    #[test]
    fn varlong_round_trip(v in i64_edges()) {
        let out = enc_varlong(v);
        prop_assert_eq!(&out, &leb128(zigzag64(v)));
        prop_assert_eq!(out.len(), varlong_len(v));
        prop_assert!(out.len() <= 10);
        let mut r = Reader::new(&out);
        prop_assert_eq!(r.decode_with(|r| r.varlong(P)), Ok(v));
        prop_assert!(r.is_empty());
    }

    /// Whatever the bytes, reading a varint never panics; on success it consumed at most 5
    /// (10) bytes and the value re-encodes minimally; on failure the reader has not moved.
    #[test]
    fn varint_reads_of_arbitrary_bytes(bytes in proptest::collection::vec(any::<u8>(), 0..12), at in 0usize..1000) {
        let mut r = Reader::with_offset(&bytes, at);
        match r.decode_with(|r| r.uvarint(P)) {
            Ok(v) => {
                let used = r.offset() - at;
                prop_assert!((1..=5).contains(&used));
                prop_assert!(uvarint_len(v) <= used);
                prop_assert_eq!(bytes[used - 1] & 0x80, 0);
                prop_assert!(bytes[..used - 1].iter().all(|b| b & 0x80 != 0));
            }
            Err(e) => {
                prop_assert_eq!(r.offset(), at);
                prop_assert_eq!(e.offset, at);
                prop_assert_eq!(e.path, P);
                let cont = bytes.iter().take_while(|b| *b & 0x80 != 0).count();
                if cont >= 5 {
                    prop_assert_eq!(e.kind, DecodeErrorKind::VarintTooLong);
                } else {
                    prop_assert_eq!(cont, bytes.len());
                    prop_assert_eq!(e.kind, DecodeErrorKind::Truncated { needed: 1 });
                }
            }
        }
        let mut r = Reader::with_offset(&bytes, at);
        match r.decode_with(|r| r.varlong(P)) {
            Ok(v) => {
                let used = r.offset() - at;
                prop_assert!((1..=10).contains(&used));
                prop_assert!(varlong_len(v) <= used);
            }
            Err(e) => {
                prop_assert_eq!(r.offset(), at);
                prop_assert_eq!(e.offset, at);
                let cont = bytes.iter().take_while(|b| *b & 0x80 != 0).count();
                let kind = if cont >= 10 {
                    DecodeErrorKind::VarintTooLong
                } else {
                    DecodeErrorKind::Truncated { needed: 1 }
                };
                prop_assert_eq!(e.kind, kind);
            }
        }
    }

    #[test]
    fn string_round_trip(s in "\\PC{0,80}", flexible in any::<bool>()) {
        let out = written(|w| w.string(Str::new(&s), flexible));
        prop_assert_eq!(Ok(out.len()), string_len(Str::new(&s), flexible, P));
        let prefix = if flexible {
            leb128(s.len() as u64 + 1)
        } else {
            (s.len() as u16).to_be_bytes().to_vec()
        };
        prop_assert_eq!(&out[..prefix.len()], prefix.as_slice());
        prop_assert_eq!(&out[prefix.len()..], s.as_bytes());
        let mut r = Reader::new(&out);
        prop_assert_eq!(r.decode_with(|r| r.string(flexible, P)), Ok(Str::new(&s)));
        prop_assert!(r.is_empty());
        let mut r = Reader::new(&out);
        prop_assert_eq!(r.decode_with(|r| r.nullable_string(flexible, P)), Ok(Some(Str::new(&s))));
        prop_assert!(r.is_empty());
    }

    #[test]
    fn nullable_string_round_trip(s in proptest::option::of("[a-z0-9._-]{0,200}"), flexible in any::<bool>()) {
        let out = written(|w| w.nullable_string(s.as_deref().map(Str::new), flexible));
        prop_assert_eq!(Ok(out.len()), nullable_string_len(s.as_deref().map(Str::new), flexible, P));
        if s.is_none() {
            let null: &[u8] = if flexible { &[0x00] } else { &[0xff, 0xff] };
            prop_assert_eq!(out.as_slice(), null);
        }
        let mut r = Reader::new(&out);
        prop_assert_eq!(r.decode_with(|r| r.nullable_string(flexible, P)), Ok(s.as_deref().map(Str::new)));
        prop_assert!(r.is_empty());
    }

    #[test]
    fn string_lengths_near_the_limit(len in 32_700usize..32_900, flexible in any::<bool>()) {
        let s = "z".repeat(len);
        let got = string_len(Str::new(&s), flexible, P);
        if len <= 32_767 {
            let prefix = if flexible { uvarint_len(len as u32 + 1) } else { 2 };
            prop_assert_eq!(got, Ok(prefix + len));
        } else {
            prop_assert_eq!(got, Err(EncodeError::LengthOverflow { path: P, length: len }));
        }
    }

    #[test]
    fn bytes_round_trip(b in proptest::option::of(proptest::collection::vec(any::<u8>(), 0..300)), flexible in any::<bool>()) {
        let out = written(|w| w.nullable_bytes(b.as_deref(), flexible));
        prop_assert_eq!(Ok(out.len()), nullable_bytes_len(b.as_deref(), flexible, P));
        match &b {
            None => {
                let null: &[u8] = if flexible { &[0x00] } else { &[0xff; 4] };
                prop_assert_eq!(out.as_slice(), null);
            }
            Some(v) => {
                let prefix = if flexible {
                    leb128(v.len() as u64 + 1)
                } else {
                    (v.len() as u32).to_be_bytes().to_vec()
                };
                prop_assert_eq!(&out[..prefix.len()], prefix.as_slice());
                prop_assert_eq!(&out[prefix.len()..], v.as_slice());
                prop_assert_eq!(Ok(out.len()), bytes_len(v, flexible, P));
                let mut r = Reader::new(&out);
                prop_assert_eq!(r.decode_with(|r| r.bytes(flexible, P)), Ok(v.as_slice()));
                prop_assert!(r.is_empty());
            }
        }
        let mut r = Reader::new(&out);
        prop_assert_eq!(r.decode_with(|r| r.nullable_bytes(flexible, P)), Ok(b.as_deref()));
        prop_assert!(r.is_empty());
    }

    /// A sequence of mixed primitives reads back in order, each at the offset it was written.
    #[test]
    fn mixed_sequence_round_trip(
        a in any::<u32>(),
        b in any::<i32>(),
        c in any::<i64>(),
        s in proptest::option::of("[a-z]{0,140}"),
        d in proptest::collection::vec(any::<u8>(), 0..140),
        flexible in any::<bool>(),
    ) {
        let out = written(|w| {
            w.uvarint(a);
            w.varint(b);
            w.varlong(c);
            w.nullable_string(s.as_deref().map(Str::new), flexible);
            w.bytes(&d, flexible);
            w.i16(-2);
        });
        let expected_len = uvarint_len(a)
            + varint_len(b)
            + varlong_len(c)
            + nullable_string_len(s.as_deref().map(Str::new), flexible, P).unwrap()
            + bytes_len(&d, flexible, P).unwrap()
            + 2;
        prop_assert_eq!(out.len(), expected_len);
        let mut r = Reader::new(&out);
        prop_assert_eq!(r.decode_with(|r| r.uvarint(P)), Ok(a));
        prop_assert_eq!(r.offset(), uvarint_len(a));
        prop_assert_eq!(r.decode_with(|r| r.varint(P)), Ok(b));
        prop_assert_eq!(r.decode_with(|r| r.varlong(P)), Ok(c));
        prop_assert_eq!(r.decode_with(|r| r.nullable_string(flexible, P)), Ok(s.as_deref().map(Str::new)));
        prop_assert_eq!(r.decode_with(|r| r.bytes(flexible, P)), Ok(d.as_slice()));
        prop_assert_eq!(r.decode_with(|r| r.i16(P)), Ok(-2));
        prop_assert_eq!(r.finish(P), Ok(()));
        // Every proper prefix fails with Truncated somewhere inside the prefix, never panics.
        for cut in 0..out.len() {
            let e = read_sequence(&out[..cut], flexible).expect_err("a proper prefix cannot decode");
            prop_assert!(matches!(e.kind, DecodeErrorKind::Truncated { needed } if needed >= 1), "{:?}", e);
            prop_assert!(e.offset <= cut);
        }
    }
}

fn read_sequence(bytes: &[u8], flexible: bool) -> Result<(), DecodeError> {
    let mut r = Reader::new(bytes);
    r.decode_with(|r| r.uvarint(P))?;
    r.decode_with(|r| r.varint(P))?;
    r.decode_with(|r| r.varlong(P))?;
    r.decode_with(|r| r.nullable_string(flexible, P))?;
    r.decode_with(|r| r.bytes(flexible, P))?;
    r.decode_with(|r| r.i16(P))?;
    Ok(())
}

#[test]
fn writer_into_a_short_buffer_counts_but_does_not_write() {
    let mut buf = [0xa5u8; 3];
    let mut w = Writer::new(&mut buf);
    w.uvarint(300);
    w.uvarint(u32::MAX);
    assert!(w.overflowed());
    assert_eq!(w.position(), 2 + 5);
    assert_eq!(
        w.check_capacity(1),
        Err(EncodeError::BufferTooSmall {
            required: 1,
            available: 0
        })
    );
    assert_eq!(buf, [0xac, 0x02, 0xa5]);
    let mut empty: [u8; 0] = [];
    let mut w = Writer::new(&mut empty);
    w.string(Str::new("hello"), true);
    assert_eq!(w.position(), 6);
    assert_eq!(
        Writer::new(&mut [0u8; 4]).check_capacity(5),
        Err(EncodeError::BufferTooSmall {
            required: 5,
            available: 4
        })
    );
}
