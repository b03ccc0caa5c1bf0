//! Kafka's UUIDs: topic ids, directory ids, incarnation ids.

use core::fmt::{self, Write as _};
use core::str::FromStr;

/// A 16-byte UUID, stored in wire order. The all-zero UUID is Kafka's "no UUID".
///
/// It prints (`Display`) as Kafka's own tools print it: the 16 bytes in URL-safe base64 without
/// padding, 22 characters (`kafka-topics --describe` shows topic ids so). [`Uuid::hyphenated`]
/// gives the RFC 4122 form. Both forms parse (`FromStr`), and a UUID converts to and from the
/// `u128` of its bytes read big-endian.
///
/// ```
/// use kwire::codec::Uuid;
///
/// let id: Uuid = "a2c5d1f0-3c4b-4a0e-9e2f-61d7b0c4e8a1".parse()?;
/// assert_eq!(id.to_string(), "osXR8DxLSg6eL2HXsMTooQ");
/// assert_eq!("osXR8DxLSg6eL2HXsMTooQ".parse::<Uuid>()?, id);
/// assert_eq!(id.hyphenated().to_string(), "a2c5d1f0-3c4b-4a0e-9e2f-61d7b0c4e8a1");
/// assert_eq!(Uuid::from_u128(id.to_u128()), id);
/// assert_eq!(Uuid::ZERO.to_string(), "AAAAAAAAAAAAAAAAAAAAAA");
/// # Ok::<(), kwire::codec::ParseUuidError>(())
/// ```
#[derive(Clone, Copy, PartialEq, Eq, Hash, Default, PartialOrd, Ord)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct Uuid(pub [u8; 16]);

/// URL-safe base64, as Kafka's `Uuid.toString` writes it.
const BASE64: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
/// Characters of the base64 form: 21 of six bits and one of two.
const BASE64_LEN: usize = 22;
/// Characters of the hyphenated form.
const HYPHENATED_LEN: usize = 36;

impl Uuid {
    /// The all-zero UUID.
    pub const ZERO: Self = Self([0; 16]);

    /// Builds a UUID from its most and least significant 64 bits (Java's `Uuid` halves).
    #[must_use]
    pub const fn from_u64_pair(most: u64, least: u64) -> Self {
        let m = most.to_be_bytes();
        let l = least.to_be_bytes();
        Self([
            m[0], m[1], m[2], m[3], m[4], m[5], m[6], m[7], l[0], l[1], l[2], l[3], l[4], l[5],
            l[6], l[7],
        ])
    }

    /// The UUID whose bytes are `value` in big-endian order.
    #[must_use]
    pub const fn from_u128(value: u128) -> Self {
        Self(value.to_be_bytes())
    }

    /// The bytes read as one big-endian number.
    #[must_use]
    pub const fn to_u128(self) -> u128 {
        u128::from_be_bytes(self.0)
    }

    /// Whether this is [`Uuid::ZERO`].
    #[must_use]
    pub const fn is_zero(self) -> bool {
        self.to_u128() == 0
    }

    /// The RFC 4122 form for printing: 32 lowercase hex digits in groups of 8-4-4-4-12.
    #[must_use]
    pub const fn hyphenated(self) -> Hyphenated {
        Hyphenated(self)
    }

    /// Parses the base64 form (22 characters, URL-safe alphabet, no padding, as Kafka prints
    /// it) or the hyphenated form (36 characters, hex digits in either case).
    ///
    /// # Errors
    ///
    /// [`ParseUuidError`] saying which: a length of neither form, a character that does not
    /// belong where it stands, or a base64 form whose last character has bits set that no byte
    /// holds.
    pub fn parse(text: &str) -> Result<Self, ParseUuidError> {
        match text.len() {
            BASE64_LEN => parse_base64(text.as_bytes()),
            HYPHENATED_LEN => parse_hyphenated(text.as_bytes()),
            other => Err(ParseUuidError::Length(other)),
        }
    }
}

fn parse_base64(text: &[u8]) -> Result<Uuid, ParseUuidError> {
    let mut value = 0u128;
    let mut chars = text.iter().enumerate();
    for (at, &c) in chars.by_ref().take(BASE64_LEN - 1) {
        let six = base64_value(c).ok_or(ParseUuidError::Character { at })?;
        value = value.wrapping_shl(6) | u128::from(six);
    }
    // The last character carries the last two bits, in its high bits.
    let (at, &c) = chars.next().ok_or(ParseUuidError::Length(text.len()))?;
    let six = base64_value(c).ok_or(ParseUuidError::Character { at })?;
    if six & 0x0f != 0 {
        return Err(ParseUuidError::NonCanonical);
    }
    Ok(Uuid::from_u128(
        value.wrapping_shl(2) | u128::from(six.wrapping_shr(4)),
    ))
}

fn base64_value(c: u8) -> Option<u8> {
    BASE64
        .iter()
        .position(|&a| a == c)
        .and_then(|i| u8::try_from(i).ok())
}

fn parse_hyphenated(text: &[u8]) -> Result<Uuid, ParseUuidError> {
    let mut value = 0u128;
    for (at, &c) in text.iter().enumerate() {
        if matches!(at, 8 | 13 | 18 | 23) {
            if c != b'-' {
                return Err(ParseUuidError::Character { at });
            }
            continue;
        }
        let digit = char::from(c)
            .to_digit(16)
            .ok_or(ParseUuidError::Character { at })?;
        value = value.wrapping_shl(4) | u128::from(digit);
    }
    Ok(Uuid::from_u128(value))
}

impl FromStr for Uuid {
    type Err = ParseUuidError;

    fn from_str(text: &str) -> Result<Self, ParseUuidError> {
        Self::parse(text)
    }
}

impl From<u128> for Uuid {
    fn from(value: u128) -> Self {
        Self::from_u128(value)
    }
}

impl From<Uuid> for u128 {
    fn from(id: Uuid) -> Self {
        id.to_u128()
    }
}

impl From<[u8; 16]> for Uuid {
    fn from(bytes: [u8; 16]) -> Self {
        Self(bytes)
    }
}

/// Kafka's form: URL-safe base64 of the 16 bytes, no padding, 22 characters.
impl fmt::Display for Uuid {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let value = self.to_u128();
        // 21 characters of six bits from the top, then the last two bits.
        let mut shift = 122u32;
        for _ in 0..BASE64_LEN - 1 {
            base64_char(f, value.wrapping_shr(shift))?;
            shift = shift.saturating_sub(6);
        }
        base64_char(f, value.wrapping_shl(4))
    }
}

/// Writes the base64 character of the low six bits of `bits`.
fn base64_char(f: &mut fmt::Formatter<'_>, bits: u128) -> fmt::Result {
    let index = usize::try_from(bits & 0x3f).unwrap_or(0);
    f.write_char(char::from(BASE64.get(index).copied().unwrap_or(b'A')))
}

/// The hyphenated form, as in `Uuid(a2c5d1f0-3c4b-4a0e-9e2f-61d7b0c4e8a1)`.
impl fmt::Debug for Uuid {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Uuid({})", self.hyphenated())
    }
}

/// A [`Uuid`] printed in the RFC 4122 form (`a2c5d1f0-3c4b-4a0e-9e2f-61d7b0c4e8a1`), from
/// [`Uuid::hyphenated`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Hyphenated(Uuid);

impl fmt::Display for Hyphenated {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, b) in self.0.0.iter().enumerate() {
            if matches!(i, 4 | 6 | 8 | 10) {
                f.write_char('-')?;
            }
            write!(f, "{b:02x}")?;
        }
        Ok(())
    }
}

/// Why a text is not a UUID ([`Uuid::parse`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum ParseUuidError {
    /// The text is this many bytes long: neither 22 (base64) nor 36 (hyphenated).
    Length(usize),
    /// The character at this byte offset does not belong there.
    Character {
        /// The byte offset in the text.
        at: usize,
    },
    /// A base64 form whose last character sets bits below the two the UUID's last byte ends
    /// with: no UUID prints so.
    NonCanonical,
}

impl fmt::Display for ParseUuidError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Length(n) => write!(
                f,
                "a UUID is 22 characters (base64) or 36 (hyphenated), not {n}"
            ),
            Self::Character { at } => write!(f, "unexpected character at byte {at} of the UUID"),
            Self::NonCanonical => {
                f.write_str("the last base64 character of the UUID sets bits no byte holds")
            }
        }
    }
}

impl core::error::Error for ParseUuidError {}
