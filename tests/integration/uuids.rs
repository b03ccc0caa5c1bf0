//! `Uuid`'s text forms: Kafka's base64 and RFC 4122, against vectors computed elsewhere
//! (Python's `base64.urlsafe_b64encode`) and a reference encoder that works on a bit string.

use kwire::codec::{ParseUuidError, Uuid};
use proptest::prelude::*;

/// (hex of the 16 bytes, Kafka's base64 form).
const VECTORS: &[(&str, &str)] = &[
    ("00000000000000000000000000000000", "AAAAAAAAAAAAAAAAAAAAAA"),
    ("a2c5d1f03c4b4a0e9e2f61d7b0c4e8a1", "osXR8DxLSg6eL2HXsMTooQ"),
    ("ffffffffffffffffffffffffffffffff", "_____________________w"),
    ("7c874d9a340540f88000000000000001", "fIdNmjQFQPiAAAAAAAAAAQ"),
];

fn from_hex(hex: &str) -> Uuid {
    Uuid::from_u128(u128::from_str_radix(hex, 16).unwrap())
}

/// Base64 by way of a string of bits: six at a time, the last group padded with zeros.
fn reference_base64(id: Uuid) -> String {
    const ALPHABET: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
    let bits: String = id.0.iter().map(|b| format!("{b:08b}")).collect();
    bits.as_bytes()
        .chunks(6)
        .map(|group| {
            let mut six = String::from_utf8(group.to_vec()).unwrap();
            while six.len() < 6 {
                six.push('0');
            }
            char::from(ALPHABET[usize::from_str_radix(&six, 2).unwrap()])
        })
        .collect()
}

fn reference_hyphenated(id: Uuid) -> String {
    let hex: String = id.0.iter().map(|b| format!("{b:02x}")).collect();
    format!(
        "{}-{}-{}-{}-{}",
        &hex[..8],
        &hex[8..12],
        &hex[12..16],
        &hex[16..20],
        &hex[20..]
    )
}

#[test]
fn known_vectors() {
    for &(hex, base64) in VECTORS {
        let id = from_hex(hex);
        assert_eq!(id.to_string(), base64);
        assert_eq!(reference_base64(id), base64);
        assert_eq!(base64.parse::<Uuid>(), Ok(id));
        let hyphenated = reference_hyphenated(id);
        assert_eq!(id.hyphenated().to_string(), hyphenated);
        assert_eq!(hyphenated.parse::<Uuid>(), Ok(id));
        assert_eq!(hyphenated.to_uppercase().parse::<Uuid>(), Ok(id));
        assert_eq!(format!("{id:?}"), format!("Uuid({hyphenated})"));
    }
    assert!(Uuid::ZERO.is_zero());
    assert_eq!(
        Uuid::from_u64_pair(0x7c87_4d9a_3405_40f8, 0x8000_0000_0000_0001),
        from_hex("7c874d9a340540f88000000000000001")
    );
    assert_eq!(u128::from(Uuid::from(5u128)), 5);
    assert_eq!(Uuid::from([1; 16]).0, [1; 16]);
}

#[test]
fn what_does_not_parse() {
    assert_eq!("".parse::<Uuid>(), Err(ParseUuidError::Length(0)));
    assert_eq!(
        "AAAAAAAAAAAAAAAAAAAAA".parse::<Uuid>(),
        Err(ParseUuidError::Length(21))
    );
    // Padding, or the standard alphabet's characters, are not Kafka's form.
    assert_eq!(
        "AAAAAAAAAAAAAAAAAAAA+A".parse::<Uuid>(),
        Err(ParseUuidError::Character { at: 20 })
    );
    assert_eq!(
        "AAAAAAAAAAAAAAAAAAAAA=".parse::<Uuid>(),
        Err(ParseUuidError::Character { at: 21 })
    );
    // The last character holds two bits: "B" sets one of the four below them.
    assert_eq!(
        "AAAAAAAAAAAAAAAAAAAAAB".parse::<Uuid>(),
        Err(ParseUuidError::NonCanonical)
    );
    assert_eq!(
        "a2c5d1f0-3c4b-4a0e-9e2f-61d7b0c4e8ag".parse::<Uuid>(),
        Err(ParseUuidError::Character { at: 35 })
    );
    assert_eq!(
        "a2c5d1f0+3c4b-4a0e-9e2f-61d7b0c4e8a1".parse::<Uuid>(),
        Err(ParseUuidError::Character { at: 8 })
    );
    assert_eq!(
        "a2c5d1f0-3c4b-4a0e-9e2f-61d7b0c4e8a\u{e9}".parse::<Uuid>(),
        Err(ParseUuidError::Length(37))
    );
    assert_eq!(
        "a2c5d1f0-3c4b-4a0e-9e2f-61d7b0c4e8\u{e9}".parse::<Uuid>(),
        Err(ParseUuidError::Character { at: 34 })
    );
}

proptest! {
    #[test]
    fn both_forms_round_trip(value: u128) {
        let id = Uuid::from_u128(value);
        prop_assert_eq!(id.to_u128(), value);
        let base64 = id.to_string();
        prop_assert_eq!(&base64, &reference_base64(id));
        prop_assert_eq!(base64.parse::<Uuid>(), Ok(id));
        let hyphenated = id.hyphenated().to_string();
        prop_assert_eq!(&hyphenated, &reference_hyphenated(id));
        prop_assert_eq!(hyphenated.parse::<Uuid>(), Ok(id));
    }

    #[test]
    fn any_text_parses_or_fails_without_panic(text in "\\PC{0,40}") {
        if let Ok(id) = text.parse::<Uuid>() {
            prop_assert!(id.to_string() == text || id.hyphenated().to_string() == text.to_lowercase());
        }
    }
}
