//! The generator's golden fixtures (`src/testdata/*.rs`, generated from Kafka's own generator
//! test schemas) compiled into the crate and exercised: every version of every test
//! schema is encoded and decoded back, and the byte layouts of defaults, nulls, nullable-struct
//! markers and tagged fields are checked against hand-computed vectors.
//!
//! The fixtures are refreshed with
//! `UPDATE_GOLDEN=1 cargo test -p kwire-codegen --test integration golden::`; a generator change that
//! breaks the generated code for these schemas fails here.

/// Declares the fixture modules, each allowed to leave generated items unused.
macro_rules! fixtures {
    ($($fixture:ident),* $(,)?) => {
        $(
            #[allow(
                unreachable_pub,
                dead_code,
                reason = "generated test types, only partly used"
            )]
            mod $fixture;
        )*
    };
}

fixtures!(
    all_type_message,
    nullable_struct_message,
    simple_arrays_message,
    simple_example_message,
    simple_records_message,
);

use std::vec;
use std::vec::Vec;

use crate::codec::{Decode, Encode, Message, RawTaggedField, Reader, Str, TaggedFields, Uuid};
use crate::error::{DecodeErrorKind, EncodeError};
use crate::records::Records;

/// Filler for the bytes of an output buffer that encoding must not touch.
const JUNK: u8 = 0xa5;

/// Encodes `value` at `version`, checking the sizing contract: `encoded_len` equals the bytes
/// written, nothing past them is touched, and a buffer one byte short is refused with the length
/// needed (what the encode wrote into it is unspecified).
fn encode<T: Encode>(value: &T, version: i16) -> Vec<u8> {
    let len = value.encoded_len(version);
    assert!(len.is_ok(), "encoded_len at v{version}: {len:?}");
    let len = len.unwrap();
    let mut buf = vec![JUNK; len + 8];
    let written = value.encode(version, &mut buf).unwrap();
    assert_eq!(written, len, "encoded_len != written at v{version}");
    assert!(
        buf[written..].iter().all(|&b| b == JUNK),
        "bytes after the encoding were touched at v{version}"
    );
    if len > 0 {
        let mut short = vec![JUNK; len - 1];
        assert_eq!(
            value.encode(version, &mut short),
            Err(EncodeError::BufferTooSmall {
                required: len,
                available: len - 1
            })
        );
    }
    buf.truncate(written);
    buf
}

/// Decodes all of `bytes` at `version`.
fn decode<'a, T: Decode<'a>>(bytes: &'a [u8], version: i16) -> T {
    let r = T::decode_exact(bytes, version);
    assert!(r.is_ok(), "decode at v{version}: {:?}", r.err());
    r.unwrap()
}

/// Decodes all of `bytes` as the type of `_like`.
fn decode_result<'a, T: Decode<'a>>(
    _like: &T,
    bytes: &'a [u8],
    version: i16,
) -> Result<T, crate::error::DecodeError> {
    T::decode_exact(bytes, version)
}

/// Returns `decoded`, typed as `original` (ties the decoded type to the value's type).
fn same_type<T>(_original: &T, decoded: T) -> T {
    decoded
}

/// `round_trip!(value, version)`: encode, decode back, assert equality and byte-identical
/// re-encoding; evaluates to the encoded bytes.
macro_rules! round_trip {
    ($value:expr, $version:expr) => {{
        let value = $value;
        let version: i16 = $version;
        let bytes = encode(&value, version);
        let decoded = same_type(&value, decode(&bytes, version));
        assert_eq!(value, decoded, "round trip at v{version}");
        assert_eq!(
            encode(&decoded, version),
            bytes,
            "re-encoding the decoded value at v{version}"
        );
        // Every strict prefix of the encoding is refused (never decoded as a shorter message).
        for cut in 0..bytes.len() {
            assert!(
                decode_result(&value, &bytes[..cut], version).is_err(),
                "a {cut}-byte prefix of {} bytes decoded at v{version}",
                bytes.len()
            );
        }
        bytes
    }};
}

/// Asserts that encoding `value` at `version` fails with `FieldNotInVersion` for `path`.
fn assert_not_in_version<T: Encode>(value: &T, version: i16, path: &'static str) {
    let refused = |e: Result<usize, EncodeError>| {
        matches!(
            e,
            Err(EncodeError::FieldNotInVersion { path: p, version: v, ignorable: false, versions })
                if p == path && v == version && !versions.contains(version)
        )
    };
    assert!(refused(value.encoded_len(version)), "{path} at v{version}");
    let mut buf = [JUNK; 512];
    assert!(
        refused(value.encode(version, &mut buf)),
        "{path} at v{version}"
    );
    assert!(
        refused(value.encode_lenient(version, &mut buf)),
        "{path} at v{version}, leniently"
    );
    // With no room at all, the value is refused all the same.
    assert!(
        refused(value.encode(version, &mut [])),
        "{path} at v{version}, into no buffer"
    );
}

/// Hex text (whitespace ignored) to bytes.
fn hex(s: &str) -> Vec<u8> {
    let digits: Vec<u8> = s.bytes().filter(|b| !b.is_ascii_whitespace()).collect();
    assert!(digits.len().is_multiple_of(2), "odd hex length");
    digits
        .chunks(2)
        .map(|p| u8::from_str_radix(core::str::from_utf8(p).unwrap(), 16).unwrap())
        .collect()
}

/// The UUID `H3KKO4NTRPaCWtEmm3vW7A` (base64url) used as a default by the test schemas.
const SCHEMA_UUID: Uuid = Uuid([
    0x1f, 0x72, 0x8a, 0x3b, 0x83, 0x53, 0x44, 0xf6, 0x82, 0x5a, 0xd1, 0x26, 0x9b, 0x7b, 0xd6, 0xec,
]);
const SOME_UUID: Uuid = Uuid::from_u64_pair(0x0102_0304_0506_0708, 0x090a_0b0c_0d0e_0f10);

/// The fixed-width prefix of `AllTypeMessage` at its defaults (identical in v0 and v1).
const ALL_TYPE_FIXED_DEFAULTS: &str = "
    00                          myBoolean false
    0c                          myInt8 12
    00 7b                       myInt16 123
    80 e8                       myUint16 33000
    00 00 04 d2                 myInt32 1234
    00 12 d6 87                 myUint32 1234567
    0c af ca ca fc ac af ca     myUint64 0xcafcacafcacafca
    1f 72 8a 3b 83 53 44 f6 82 5a d1 26 9b 7b d6 ec   myUuid
    40 28 ae 14 7a e1 47 ae     myFloat64 12.34
";

/// Bytes from an annotated hex listing: on each line, the leading hex groups (even-length runs
/// of hex digits) are the bytes and the rest of the line is a comment.
fn annotated_hex(s: &str) -> Vec<u8> {
    let mut out = Vec::new();
    for line in s.lines() {
        for tok in line.split_whitespace() {
            if tok.len().is_multiple_of(2) && tok.bytes().all(|b| b.is_ascii_hexdigit()) {
                out.extend(hex(tok));
            } else {
                break;
            }
        }
    }
    out
}

mod all_types {
    use super::all_type_message::{AllTypeMessage, TestCommonStruct};
    use super::*;

    #[test]
    fn message_constants() {
        assert_eq!(AllTypeMessage::NAME, "AllTypeMessage");
        assert_eq!(
            AllTypeMessage::VALID_VERSIONS,
            crate::codec::VersionRange::new(0, 1)
        );
        assert_eq!(
            AllTypeMessage::FLEXIBLE_VERSIONS,
            crate::codec::VersionRange::from(1)
        );
    }

    #[test]
    fn defaults_take_the_schema_values() {
        let m = AllTypeMessage::default();
        assert!(!m.my_boolean);
        assert_eq!(m.my_int8, 12);
        assert_eq!(m.my_int16, 123);
        assert_eq!(m.my_uint16, 33000);
        assert_eq!(m.my_int32, 1234);
        assert_eq!(m.my_uint32, 1_234_567);
        assert_eq!(m.my_uint64, 0x0caf_caca_fcac_afca);
        assert_eq!(m.my_uuid, SCHEMA_UUID);
        assert_eq!(m.my_float64.to_bits(), 12.34f64.to_bits());
        assert_eq!(m.my_string, "string");
        assert_eq!(m.my_nullable_string, None);
        assert_eq!(m.my_compact_string, "compact string");
        assert_eq!(m.my_nullable_bytes, None);
        assert_eq!(m.my_nullable_records, None, "records default to null");
        assert_eq!(m.my_nullable_int_array, None);
        assert_eq!(m.my_common_struct, Some(TestCommonStruct::default()));
        let s = TestCommonStruct::default();
        assert_eq!((s.foo, s.bar), (123, 123));
        assert!(m.is_default());
    }

    #[test]
    fn defaults_encode_exactly_at_v0() {
        let mut want = annotated_hex(ALL_TYPE_FIXED_DEFAULTS);
        want.extend(annotated_hex(
            "
            00 06 73 74 72 69 6e 67     myString \"string\"
            ff ff                       myNullableString null
            00 00 00 00                 myBytes empty
            ff ff ff ff                 myNullableBytes null
            00 00 00 00                 myRecords empty
            ff ff ff ff                 myNullableRecords null
            00 00 00 00                 myIntArray empty
            ff ff ff ff                 myNullableIntArray null
            00 00 00 7b 00 00 00 7b     myCommonStruct (not nullable at v0: no marker)
            ",
        ));
        let bytes = round_trip!(AllTypeMessage::default(), 0);
        assert_eq!(bytes, want);
    }

    #[test]
    fn defaults_encode_exactly_at_v1() {
        let mut want = annotated_hex(ALL_TYPE_FIXED_DEFAULTS);
        want.extend(annotated_hex(
            "
            0f 63 6f 6d 70 61 63 74 20 73 74 72 69 6e 67   myCompactString \"compact string\"
            00                          myCompactNullableString null
            01                          myCompactBytes empty
            00                          myCompactNullableBytes null
            01                          myCompactRecords empty
            00                          myCompactNullableRecords null
            01                          myIntArray empty
            00                          myNullableIntArray null
            01 00 00 00 7b 00 00 00 7b 00   myCommonStruct: int8 marker, fields, tagged section
            00                          tagged section
            ",
        ));
        let bytes = round_trip!(AllTypeMessage::default(), 1);
        assert_eq!(bytes, want);
    }

    #[test]
    fn non_default_values_round_trip_at_v0() {
        let ints = [1, -2, i32::MAX];
        let m = AllTypeMessage::default()
            .with_my_boolean(true)
            .with_my_int8(-128)
            .with_my_int16(-300)
            .with_my_uint16(u16::MAX)
            .with_my_int32(i32::MIN)
            .with_my_uint32(u32::MAX)
            .with_my_uint64(-1)
            .with_my_uuid(SOME_UUID)
            .with_my_float64(-0.5)
            .with_my_string("héllo")
            .with_my_nullable_string(Some(""))
            .with_my_bytes(b"\x00\x01")
            .with_my_nullable_bytes(Some(b"nb"))
            .with_my_records(Records::new(b"rec"))
            .with_my_nullable_records(Some(Records::new(b"")))
            .with_my_int_array(&ints)
            .with_my_nullable_int_array(Some((&[7][..]).into()))
            .with_my_common_struct(Some(TestCommonStruct::default().with_foo(-1).with_bar(0)));
        assert!(!m.is_default());
        let bytes = round_trip!(m, 0);
        // uint16 and uint32 above the signed range travel as raw big-endian bits.
        assert_eq!(bytes[..14], hex("01 80 fed4 ffff 80000000 ffffffff"));
        let decoded: AllTypeMessage<'_> = decode(&bytes, 0);
        assert_eq!(decoded.my_uint16, 65535);
        assert_eq!(decoded.my_uint32, 4_294_967_295);
        assert_eq!(decoded.my_float64, -0.5);
        assert_eq!(decoded.my_nullable_records, Some(Records::new(b"")));
        assert_eq!(decoded.my_int_array.iter().collect::<Vec<_>>(), ints);
    }

    #[test]
    fn non_default_values_round_trip_at_v1() {
        let m = AllTypeMessage::default()
            .with_my_boolean(true)
            .with_my_uint32(3_000_000_000)
            .with_my_float64(f64::MAX)
            .with_my_uuid(Uuid::ZERO)
            .with_my_compact_string("")
            .with_my_compact_nullable_string(Some("x"))
            .with_my_compact_bytes(b"cb")
            .with_my_compact_nullable_bytes(Some(b""))
            .with_my_compact_records(Records::new(b"r"))
            .with_my_compact_nullable_records(Some(Records::new(b"rr")))
            .with_my_int_array(&[5, 6][..])
            .with_my_nullable_int_array(Some(crate::codec::Array::Slice(&[])))
            .with_my_common_struct(Some(TestCommonStruct::default().with_foo(9)));
        round_trip!(m, 1);
    }

    #[test]
    fn positional_nullable_struct_uses_an_int8_marker() {
        let m = AllTypeMessage::default().with_my_common_struct(None);
        let bytes = round_trip!(m, 1);
        // The struct's marker is the byte before the last (the message's tagged section).
        assert_eq!(bytes[bytes.len() - 2..], [0xff, 0x00]);
        let present = round_trip!(AllTypeMessage::default(), 1);
        assert_eq!(present.len(), bytes.len() + 9);

        // Java reads any non-negative marker as present and any negative one as null.
        let at = present.len() - 11;
        assert_eq!(present[at], 0x01);
        let mut zero_marker = present.clone();
        zero_marker[at] = 0x00;
        let d: AllTypeMessage<'_> = decode(&zero_marker, 1);
        assert_eq!(d.my_common_struct, Some(TestCommonStruct::default()));
        let mut other_negative = bytes.clone();
        other_negative[bytes.len() - 2] = 0x80;
        let d: AllTypeMessage<'_> = decode(&other_negative, 1);
        assert_eq!(d.my_common_struct, None);
    }

    #[test]
    fn null_where_not_nullable_is_refused() {
        let m = AllTypeMessage::default().with_my_common_struct(None);
        assert_eq!(
            m.encoded_len(0),
            Err(EncodeError::NullNotAllowed {
                path: "AllTypeMessage.myCommonStruct",
                version: 0
            })
        );
    }

    #[test]
    fn non_ignorable_fields_outside_their_versions() {
        let base = AllTypeMessage::default();
        // v0-only fields holding a non-default value cannot be encoded at v1.
        assert_not_in_version(&base.with_my_string("other"), 1, "AllTypeMessage.myString");
        assert_not_in_version(
            &base.with_my_nullable_string(Some("")),
            1,
            "AllTypeMessage.myNullableString",
        );
        assert_not_in_version(&base.with_my_bytes(b"x"), 1, "AllTypeMessage.myBytes");
        assert_not_in_version(
            &base.with_my_nullable_bytes(Some(b"")),
            1,
            "AllTypeMessage.myNullableBytes",
        );
        assert_not_in_version(
            &base.with_my_records(Records::new(b"x")),
            1,
            "AllTypeMessage.myRecords",
        );
        assert_not_in_version(
            &base.with_my_nullable_records(Some(Records::new(b""))),
            1,
            "AllTypeMessage.myNullableRecords",
        );
        // v1-only fields at v0.
        assert_not_in_version(
            &base.with_my_compact_string(""),
            0,
            "AllTypeMessage.myCompactString",
        );
        assert_not_in_version(
            &base.with_my_compact_nullable_string(Some("")),
            0,
            "AllTypeMessage.myCompactNullableString",
        );
        assert_not_in_version(
            &base.with_my_compact_bytes(b"x"),
            0,
            "AllTypeMessage.myCompactBytes",
        );
        assert_not_in_version(
            &base.with_my_compact_nullable_bytes(Some(b"")),
            0,
            "AllTypeMessage.myCompactNullableBytes",
        );
        assert_not_in_version(
            &base.with_my_compact_records(Records::new(b"x")),
            0,
            "AllTypeMessage.myCompactRecords",
        );
        assert_not_in_version(
            &base.with_my_compact_nullable_records(Some(Records::new(b""))),
            0,
            "AllTypeMessage.myCompactNullableRecords",
        );
        // Holding the default is fine: the field is silently absent.
        round_trip!(base.with_my_string("string"), 1);
        round_trip!(base.with_my_compact_string("compact string"), 0);
    }

    #[test]
    fn versions_outside_the_valid_range() {
        let m = AllTypeMessage::default();
        assert!(matches!(
            m.encoded_len(2),
            Err(EncodeError::UnsupportedVersion { version: 2, .. })
        ));
        assert!(matches!(
            m.encoded_len(-1),
            Err(EncodeError::UnsupportedVersion { version: -1, .. })
        ));
        let bytes = encode(&m, 1);
        let err = AllTypeMessage::decode(&mut Reader::new(&bytes), 2).unwrap_err();
        assert!(matches!(
            err.kind,
            DecodeErrorKind::UnsupportedVersion { version: 2, .. }
        ));
    }

    #[test]
    fn unknown_tagged_fields_only_in_flexible_versions() {
        let unknown = [RawTaggedField {
            tag: 0,
            data: b"\x2a",
        }];
        let m =
            AllTypeMessage::default().with_unknown_tagged_fields(TaggedFields::from(&unknown[..]));
        let bytes = round_trip!(m, 1);
        assert_eq!(bytes[bytes.len() - 4..], [0x01, 0x00, 0x01, 0x2a]);
        assert_eq!(
            m.encoded_len(0),
            Err(EncodeError::TaggedFieldsNotInVersion {
                path: "AllTypeMessage",
                version: 0
            })
        );
    }
}

mod nullable_structs {
    use super::nullable_struct_message::{
        MyStruct, MyStruct2, MyStruct3, MyStruct4, NullableStructMessage,
    };
    use super::*;

    fn s1() -> MyStruct<'static> {
        MyStruct::default().with_my_string("a").with_my_int(1)
    }
    fn s2() -> MyStruct2<'static> {
        MyStruct2::default().with_my_string("bb").with_my_int(-2)
    }
    fn s3() -> MyStruct3<'static> {
        MyStruct3::default().with_my_string("ab").with_my_int(5)
    }
    fn s4() -> MyStruct4<'static> {
        MyStruct4::default().with_my_int(0x0102_0304)
    }

    #[test]
    fn defaults() {
        let m = NullableStructMessage::default();
        assert_eq!(m.nullable_struct, None, "explicit null default");
        assert_eq!(m.nullable_struct2, Some(MyStruct2::default()));
        assert_eq!(m.nullable_struct3, None, "explicit null default");
        assert_eq!(m.nullable_struct4, Some(MyStruct4::default()));
    }

    #[test]
    fn every_version_and_combination_round_trips() {
        for v in 0..=2 {
            for ns in [None, Some(s1()), Some(MyStruct::default())] {
                let m = NullableStructMessage::default()
                    .with_nullable_struct(ns)
                    .with_nullable_struct2(Some(s2()));
                round_trip!(m, v);
            }
        }
        for v in 1..=2 {
            for ns2 in [None, Some(s2())] {
                for ns3 in [None, Some(s3()), Some(MyStruct3::default())] {
                    for ns4 in [None, Some(s4()), Some(MyStruct4::default())] {
                        let m = NullableStructMessage::default()
                            .with_nullable_struct(Some(s1()))
                            .with_nullable_struct2(ns2)
                            .with_nullable_struct3(ns3)
                            .with_nullable_struct4(ns4);
                        round_trip!(m, v);
                    }
                }
            }
        }
    }

    #[test]
    fn positional_markers_at_v0() {
        let m = NullableStructMessage::default()
            .with_nullable_struct(Some(s1()))
            .with_nullable_struct2(Some(s2()));
        let bytes = round_trip!(m, 0);
        assert_eq!(
            bytes,
            annotated_hex(
                "
                01                   NullableStruct present (int8 marker)
                00 01 61             MyString \"a\"
                00 00 00 01          MyInt 1
                00 02 62 62          NullableStruct2 (not nullable at v0: no marker) \"bb\"
                ff ff ff fe          MyInt -2
                "
            )
        );
        let bytes = round_trip!(NullableStructMessage::default(), 0);
        assert_eq!(bytes, hex("ff 0000 00000000"));
    }

    #[test]
    fn null_positional_and_tagged_markers_at_v1() {
        let m = NullableStructMessage::default()
            .with_nullable_struct(None)
            .with_nullable_struct2(None)
            .with_nullable_struct3(Some(s3()))
            .with_nullable_struct4(None);
        let bytes = round_trip!(m, 1);
        assert_eq!(
            bytes,
            annotated_hex(
                "
                ff                   NullableStruct null (int8 marker, also in flexible versions)
                ff                   NullableStruct2 null
                02                   two tagged fields
                00 09                tag 0, size 9
                01                   uvarint marker: present
                03 61 62             MyString \"ab\"
                00 00 00 05          MyInt 5
                00                   MyStruct3 tagged section
                01 01                tag 1, size 1
                00                   uvarint marker: null (the default is not null)
                "
            )
        );
    }

    #[test]
    fn tagged_structs_at_their_default_are_not_written() {
        let bytes = round_trip!(NullableStructMessage::default(), 1);
        // NullableStruct null, NullableStruct2 present and empty, no tagged fields.
        assert_eq!(bytes, hex("ff 01 01 00000000 00 00"));
        let m = NullableStructMessage::default().with_nullable_struct4(Some(s4()));
        let bytes = round_trip!(m, 2);
        assert_eq!(
            bytes,
            hex("ff 01 01 00000000 00   01 01 07 01 01 01020304 00")
        );
    }

    #[test]
    fn tagged_null_marker_decodes() {
        // NullableStruct3 sent explicitly as null: tag 0, size 1, marker 0.
        let bytes = hex("ff 01 01 00000000 00  01 00 01 00");
        let m: NullableStructMessage<'_> = decode(&bytes, 1);
        assert_eq!(m.nullable_struct3, None);
        assert_eq!(m.nullable_struct4, Some(MyStruct4::default()));
        // A struct sent as present but at its default decodes as present.
        let bytes = hex("ff 01 01 00000000 00  01 01 07 01 01 00000000 00");
        let m: NullableStructMessage<'_> = decode(&bytes, 2);
        assert_eq!(m.nullable_struct4, Some(MyStruct4::default()));
    }

    #[test]
    fn non_ignorable_rules_at_v0() {
        assert_not_in_version(
            &NullableStructMessage::default().with_nullable_struct3(Some(MyStruct3::default())),
            0,
            "NullableStructMessage.NullableStruct3",
        );
        // Null differs from NullableStruct4's non-null default.
        assert_not_in_version(
            &NullableStructMessage::default().with_nullable_struct4(None),
            0,
            "NullableStructMessage.NullableStruct4",
        );
        assert_not_in_version(
            &NullableStructMessage::default().with_nullable_struct4(Some(s4())),
            0,
            "NullableStructMessage.NullableStruct4",
        );
        assert_eq!(
            NullableStructMessage::default()
                .with_nullable_struct2(None)
                .encoded_len(0),
            Err(EncodeError::NullNotAllowed {
                path: "NullableStructMessage.NullableStruct2",
                version: 0
            })
        );
    }
}

mod arrays {
    use super::simple_arrays_message::{SimpleArraysMessage, StructArray};
    use super::*;

    #[test]
    fn every_version_round_trips() {
        let sheep = [1, -1, i32::MAX];
        round_trip!(SimpleArraysMessage::default(), 0);
        let bytes = round_trip!(SimpleArraysMessage::default().with_sheep(&sheep), 0);
        assert_eq!(bytes, hex("00000003 00000001 ffffffff 7fffffff"));

        let goats_v1 = [
            StructArray::default().with_color(3),
            StructArray::default().with_color(-4),
        ];
        let m = SimpleArraysMessage::default()
            .with_goats(&goats_v1)
            .with_sheep(&sheep[..1]);
        let bytes = round_trip!(m, 1);
        assert_eq!(bytes, hex("03 03 00 fc 00 02 00000001 00"));

        let goats_v2 = [
            StructArray::default().with_color(3).with_name("g"),
            StructArray::default(),
        ];
        let m = SimpleArraysMessage::default().with_goats(&goats_v2);
        let bytes = round_trip!(m, 2);
        assert_eq!(bytes, hex("03 03 02 67 00 00 01 00 01 00"));
        let decoded: SimpleArraysMessage<'_> = decode(&bytes, 2);
        let names: Vec<Str<'_>> = decoded.goats.iter().map(|g| g.name).collect();
        assert_eq!(names, ["g", ""]);
    }

    #[test]
    fn fields_outside_their_versions() {
        let goats = [StructArray::default().with_color(1)];
        assert_not_in_version(
            &SimpleArraysMessage::default().with_goats(&goats),
            0,
            "SimpleArraysMessage.Goats",
        );
        let named = [StructArray::default().with_name("n")];
        assert_not_in_version(
            &SimpleArraysMessage::default().with_goats(&named),
            1,
            "SimpleArraysMessage.Goats.Name",
        );
    }
}

mod simple_example {
    use super::simple_example_message::{
        MyStruct, SimpleExampleMessage, StructArray, TaggedStruct, TestCommonStruct,
    };
    use super::*;

    /// `SimpleExampleMessage` at its defaults, v1, without its tagged-field section.
    const V1_DEFAULT_BODY: &str = "
        00000000 00000000 00000000 00000000   processId zero UUID
        01                                    zeroCopyByteBuffer empty
        01                                    nullableZeroCopyByteBuffer empty (default)
        0000007b 0000007b 00                  myCommonStruct
        0000007b 0000007b 00                  myOtherCommonStruct
        80 e8                                 myUint16 33000
        00 12 d6 87                           myUint32 1234567
    ";

    fn v1_with_tags(tags: &str) -> Vec<u8> {
        let mut v = annotated_hex(V1_DEFAULT_BODY);
        v.extend(hex(tags));
        v
    }

    #[test]
    fn defaults() {
        let m = SimpleExampleMessage::default();
        assert_eq!(m.my_int16, 123);
        assert_eq!(m.my_float64.to_bits(), 12.34f64.to_bits());
        assert_eq!(m.tagged_uuid, SCHEMA_UUID);
        assert_eq!(m.tagged_long, 0x0caf_caca_fcac_afca);
        assert_eq!(m.my_nullable_string, None);
        assert_eq!(
            m.my_bytes,
            Some(&b""[..]),
            "implicit bytes default is empty, not null"
        );
        assert_eq!(m.my_uint16, 33000);
        assert_eq!(m.my_uint32, 1_234_567);
        assert_eq!(m.process_id, Uuid::ZERO);
        assert!(m.is_default());
    }

    #[test]
    fn v0_has_only_the_common_structs() {
        let bytes = round_trip!(SimpleExampleMessage::default(), 0);
        assert_eq!(bytes, hex("0000007b 0000007b 0000007b 0000007b"));
        let m = SimpleExampleMessage::default()
            .with_my_common_struct(TestCommonStruct::default().with_foo(1))
            .with_my_other_common_struct(TestCommonStruct::default().with_bar(-1));
        let bytes = round_trip!(m, 0);
        assert_eq!(bytes, hex("00000001 0000007b 0000007b ffffffff"));
    }

    #[test]
    fn unset_tagged_fields_are_not_written() {
        let bytes = round_trip!(SimpleExampleMessage::default(), 1);
        assert_eq!(bytes, v1_with_tags("00"));
        let bytes = round_trip!(SimpleExampleMessage::default(), 2);
        let mut want = hex("00000000000000000000000000000000");
        // v2: no zero-copy buffers; myStruct (structId, empty arrayInStruct, tagged section).
        want.extend(hex("00000000 01 00"));
        want.extend(hex(
            "0000007b 0000007b 00 0000007b 0000007b 00 80e8 0012d687 00",
        ));
        assert_eq!(bytes, want);
    }

    #[test]
    fn tagged_fields_set_to_non_defaults_are_written_in_tag_order() {
        let ints = [1, 2];
        let m = SimpleExampleMessage::default()
            .with_my_tagged_int_array(&ints)
            .with_my_nullable_string(Some(""))
            .with_my_int16(5)
            .with_my_float64(0.0)
            .with_my_string("s")
            .with_my_bytes(None)
            .with_tagged_uuid(Uuid::ZERO)
            .with_tagged_long(0);
        let bytes = round_trip!(m, 1);
        let want = v1_with_tags(
            "08
             00 09 03 00000001 00000002
             01 01 01
             02 02 0005
             03 08 0000000000000000
             04 02 02 73
             05 01 00
             06 10 00000000000000000000000000000000
             07 08 0000000000000000",
        );
        assert_eq!(bytes, want);
    }

    #[test]
    fn a_single_tagged_field() {
        let bytes = round_trip!(SimpleExampleMessage::default().with_my_int16(5), 1);
        assert_eq!(bytes, v1_with_tags("01 02 02 0005"));
        // Values equal to the (hex, float, uuid) defaults are omitted.
        let m = SimpleExampleMessage::default()
            .with_my_float64(12.34)
            .with_tagged_long(0x0caf_caca_fcac_afca)
            .with_tagged_uuid(SCHEMA_UUID)
            .with_my_bytes(Some(b""));
        assert_eq!(round_trip!(m, 1), v1_with_tags("00"));
    }

    #[test]
    fn every_field_round_trips_at_v1_and_v2() {
        let ints = [i32::MIN];
        let base = SimpleExampleMessage::default()
            .with_process_id(SOME_UUID)
            .with_my_tagged_int_array(&ints)
            .with_my_nullable_string(Some("ns"))
            .with_my_int16(-1)
            .with_my_float64(f64::MIN_POSITIVE)
            .with_my_string("str")
            .with_my_bytes(Some(b"\xff"))
            .with_tagged_uuid(SOME_UUID)
            .with_tagged_long(i64::MIN)
            .with_my_common_struct(TestCommonStruct::default().with_foo(0))
            .with_my_other_common_struct(TestCommonStruct::default().with_bar(0))
            .with_my_uint16(0)
            .with_my_uint32(u32::MAX);

        let v1 = base
            .with_zero_copy_byte_buffer(b"zc")
            .with_nullable_zero_copy_byte_buffer(None);
        round_trip!(v1, 1);
        round_trip!(v1.with_nullable_zero_copy_byte_buffer(Some(b"x")), 1);

        let elements = [
            StructArray::default().with_array_field_id(7),
            StructArray::default().with_array_field_id(-7),
        ];
        let v2 = base
            .with_my_struct(
                MyStruct::default()
                    .with_struct_id(42)
                    .with_array_in_struct(&elements),
            )
            .with_my_tagged_struct(TaggedStruct::default().with_struct_id("t"))
            .with_tagged_long_flexible_version_subset(99);
        let bytes = round_trip!(v2, 2);
        let decoded: SimpleExampleMessage<'_> = decode(&bytes, 2);
        assert_eq!(decoded.my_struct.array_in_struct.len(), 2);
        assert_eq!(decoded.my_tagged_struct.struct_id, "t");
        assert_eq!(decoded.tagged_long_flexible_version_subset, 99);
    }

    #[test]
    fn tagged_struct_is_written_only_when_not_default() {
        let m = SimpleExampleMessage::default()
            .with_my_tagged_struct(TaggedStruct::default().with_struct_id("id"));
        let bytes = round_trip!(m, 2);
        assert_eq!(bytes[bytes.len() - 7..], hex("01 08 04 03 69 64 00"));
    }

    #[test]
    fn ignorable_field_is_refused_or_left_out_outside_its_versions() {
        let m = SimpleExampleMessage::default().with_tagged_long_flexible_version_subset(7);
        // taggedLongFlexibleVersionSubset is tagged in 2+ and ignorable: refused at v1 and v0,
        // left out by the lenient encode.
        for version in [0, 1] {
            assert_eq!(
                m.encode(version, &mut [JUNK; 64]),
                Err(EncodeError::FieldNotInVersion {
                    path: "SimpleExampleMessage.taggedLongFlexibleVersionSubset",
                    version,
                    versions: crate::codec::VersionRange::from(2),
                    ignorable: true,
                })
            );
        }
        let mut buf = [JUNK; 64];
        let n = m.encode_lenient(1, &mut buf).unwrap();
        assert_eq!(buf[..n], v1_with_tags("00"));
        let decoded: SimpleExampleMessage<'_> = decode(&buf[..n], 1);
        assert_eq!(decoded, SimpleExampleMessage::default());
        let bytes = round_trip!(m, 2);
        assert_eq!(bytes[bytes.len() - 11..], hex("01 09 08 0000000000000007"));
    }

    #[test]
    fn non_ignorable_fields_outside_their_versions() {
        let d = SimpleExampleMessage::default();
        let ints = [1];
        for (m, path) in [
            (
                d.with_process_id(SOME_UUID),
                "SimpleExampleMessage.processId",
            ),
            (
                d.with_my_tagged_int_array(&ints),
                "SimpleExampleMessage.myTaggedIntArray",
            ),
            (
                d.with_my_nullable_string(Some("")),
                "SimpleExampleMessage.myNullableString",
            ),
            (d.with_my_int16(0), "SimpleExampleMessage.myInt16"),
            (d.with_my_float64(0.0), "SimpleExampleMessage.myFloat64"),
            (d.with_my_string("x"), "SimpleExampleMessage.myString"),
            (d.with_my_bytes(None), "SimpleExampleMessage.myBytes"),
            (
                d.with_tagged_uuid(Uuid::ZERO),
                "SimpleExampleMessage.taggedUuid",
            ),
            (d.with_tagged_long(1), "SimpleExampleMessage.taggedLong"),
            (
                d.with_zero_copy_byte_buffer(b"x"),
                "SimpleExampleMessage.zeroCopyByteBuffer",
            ),
            (
                d.with_nullable_zero_copy_byte_buffer(None),
                "SimpleExampleMessage.nullableZeroCopyByteBuffer",
            ),
            (d.with_my_uint16(1), "SimpleExampleMessage.myUint16"),
            (d.with_my_uint32(1), "SimpleExampleMessage.myUint32"),
        ] {
            assert_not_in_version(&m, 0, path);
        }
        // v1-only positional fields at v2.
        assert_not_in_version(
            &d.with_zero_copy_byte_buffer(b"x"),
            2,
            "SimpleExampleMessage.zeroCopyByteBuffer",
        );
        assert_not_in_version(
            &d.with_nullable_zero_copy_byte_buffer(Some(b"x")),
            2,
            "SimpleExampleMessage.nullableZeroCopyByteBuffer",
        );
        // v2+ fields at v1.
        assert_not_in_version(
            &d.with_my_struct(MyStruct::default().with_struct_id(1)),
            1,
            "SimpleExampleMessage.myStruct",
        );
        assert_not_in_version(
            &d.with_my_tagged_struct(TaggedStruct::default().with_struct_id("x")),
            1,
            "SimpleExampleMessage.myTaggedStruct",
        );
    }

    #[test]
    fn a_tag_outside_its_tagged_versions_is_refused() {
        // Tag 8 (myTaggedStruct) exists only from v2.
        let bytes = v1_with_tags("01 08 02 01 00");
        let err = SimpleExampleMessage::decode_exact(&bytes, 1).unwrap_err();
        assert_eq!(
            err.kind,
            DecodeErrorKind::TagNotInVersion { tag: 8, version: 1 }
        );
        let ok = v1_with_tags("01 07 08 0000000000000001");
        let m: SimpleExampleMessage<'_> = decode(&ok, 1);
        assert_eq!(m.tagged_long, 1);
    }

    #[test]
    fn unknown_tags_round_trip_after_the_known_ones() {
        let unknown = [
            RawTaggedField {
                tag: 10,
                data: b"\x01",
            },
            RawTaggedField {
                tag: 200,
                data: b"",
            },
        ];
        let m = SimpleExampleMessage::default()
            .with_my_int16(5)
            .with_unknown_tagged_fields(TaggedFields::from(&unknown[..]));
        let bytes = round_trip!(m, 1);
        assert_eq!(bytes, v1_with_tags("03 02 02 0005 0a 01 01 c8 01 00"));
        let decoded: SimpleExampleMessage<'_> = decode(&bytes, 1);
        assert_eq!(decoded.unknown_tagged_fields.len(), 2);

        // A caller-supplied tag the struct defines is refused.
        let clash = [RawTaggedField { tag: 9, data: b"" }];
        assert_eq!(
            SimpleExampleMessage::default()
                .with_unknown_tagged_fields(TaggedFields::from(&clash[..]))
                .encoded_len(2),
            Err(EncodeError::InvalidUnknownTag {
                path: "SimpleExampleMessage",
                tag: 9
            })
        );
    }
}

mod records {
    use super::simple_records_message::SimpleRecordsMessage;
    use super::*;

    #[test]
    fn null_and_present_records_in_both_versions() {
        let m = SimpleRecordsMessage::default().with_topic("t");
        assert_eq!(m.record_set, None, "records default to null");
        assert_eq!(round_trip!(m, 0), hex("0001 74 ffffffff"));
        assert_eq!(round_trip!(m, 1), hex("02 74 00 00"));
        let m = m.with_record_set(Some(Records::new(b"abc")));
        assert_eq!(round_trip!(m, 0), hex("0001 74 00000003 616263"));
        assert_eq!(round_trip!(m, 1), hex("02 74 04 616263 00"));
        let m = m.with_record_set(Some(Records::new(b"")));
        assert_eq!(round_trip!(m, 1), hex("02 74 01 00"));
    }
}
