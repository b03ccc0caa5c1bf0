//! The text notations of Kafka's message schemas, written once for everything in kwire that
//! reads them: the library (`VersionRange`'s `FromStr` and `Display`), its build script (the
//! `KWIRE_VERSIONS` variable), the generator, which reads the schema files, and the catalogue,
//! which shows them.
//!
//! # Version ranges
//!
//! A range of versions is written as Kafka's schemas write `validVersions`, `versions`,
//! `flexibleVersions`, `nullableVersions` and `taggedVersions`:
//!
//! | text   | versions                       |
//! |--------|--------------------------------|
//! | `N`    | `N` alone                      |
//! | `N-M`  | `N` to `M`, both included      |
//! | `N+`   | `N` and every later version    |
//! | `none` | no version                     |
//!
//! A version is a decimal number from 0 to 32767 (`i16::MAX`), digits only; `M` is not below
//! `N`. Spaces around the whole text are ignored, not within it. `N+` reaches `i16::MAX`, and
//! `none` is the empty range `(0, -1)`. [`write_range`] writes a range in the same notation,
//! so that parsing what it wrote gives the range back (any empty range is written `none`).
//!
//! # Primitive types
//!
//! A field's `type` is a [`Primitive`] by its schema name (`int32`, `string`, ...), a struct's
//! name, or either after `[]` for an array.
//!
//! # Comments
//!
//! Kafka's schema files are JSON with `//` line comments; [`uncommented`] yields the text
//! without them.
//!
//! ```
//! assert_eq!(kwire_notation::parse_range("3-9"), Ok((3, 9)));
//! assert_eq!(kwire_notation::parse_range("12+"), Ok((12, i16::MAX)));
//!
//! let json: String = kwire_notation::uncommented("// licence\n{\"a\": \"x//y\"} // note").collect();
//! assert_eq!(json, "\n{\"a\": \"x//y\"} ");
//! ```

#![no_std]

use core::fmt;

/// Why a text is not a version range (see the [crate] docs for the notation).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum ParseVersionRangeError {
    /// The text is blank.
    Blank,
    /// A version is not a decimal number from 0 to 32767, or the text is not one of the forms.
    NotAVersion,
    /// The range ends before it starts (`5-2`).
    Reversed,
}

impl fmt::Display for ParseVersionRangeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Self::Blank => "a version range is written `N`, `N-M`, `N+` or `none`, not left blank",
            Self::NotAVersion => {
                "a version range is written `N`, `N-M`, `N+` or `none`, each version a number \
                 from 0 to 32767"
            }
            Self::Reversed => {
                "the range ends before it starts (the range of no version is written `none`)"
            }
        })
    }
}

impl core::error::Error for ParseVersionRangeError {}

/// The lowest and highest version `text` names, in the notation of the [crate] docs.
///
/// # Errors
///
/// When `text` is blank, is not one of the forms, names a version outside 0 to 32767, or a
/// range whose end is below its start.
pub fn parse_range(text: &str) -> Result<(i16, i16), ParseVersionRangeError> {
    let text = text.trim();
    if text.is_empty() {
        return Err(ParseVersionRangeError::Blank);
    }
    if text == "none" {
        return Ok((0, -1));
    }
    let (min, max) = if let Some(min) = text.strip_suffix('+') {
        (version(min)?, i16::MAX)
    } else if let Some((min, max)) = text.split_once('-') {
        (version(min)?, version(max)?)
    } else {
        let v = version(text)?;
        (v, v)
    };
    if min > max {
        return Err(ParseVersionRangeError::Reversed);
    }
    Ok((min, max))
}

/// One version: digits only, at most `i16::MAX`.
fn version(text: &str) -> Result<i16, ParseVersionRangeError> {
    if text.is_empty() || !text.bytes().all(|b| b.is_ascii_digit()) {
        return Err(ParseVersionRangeError::NotAVersion);
    }
    text.parse()
        .map_err(|_| ParseVersionRangeError::NotAVersion)
}

/// Writes the range `min..=max` in the notation of the [crate] docs: `none` when it is empty,
/// `N+` when it reaches `i16::MAX`, `N` for one version, else `N-M`.
///
/// # Errors
///
/// Only those of `out`.
pub fn write_range(out: &mut impl fmt::Write, min: i16, max: i16) -> fmt::Result {
    if min > max {
        out.write_str("none")
    } else if max == i16::MAX {
        write!(out, "{min}+")
    } else if min == max {
        write!(out, "{min}")
    } else {
        write!(out, "{min}-{max}")
    }
}

/// A primitive type of Kafka's message schemas, as a field's `type` names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum Primitive {
    /// `bool`.
    Bool,
    /// `int8`.
    Int8,
    /// `int16`.
    Int16,
    /// `uint16`.
    Uint16,
    /// `int32`.
    Int32,
    /// `uint32`.
    Uint32,
    /// `int64`.
    Int64,
    /// `float64`.
    Float64,
    /// `uuid`.
    Uuid,
    /// `string`.
    String,
    /// `bytes`.
    Bytes,
    /// `records`.
    Records,
}

impl Primitive {
    /// Every primitive type, in the order of the enum.
    pub const ALL: [Self; 12] = [
        Self::Bool,
        Self::Int8,
        Self::Int16,
        Self::Uint16,
        Self::Int32,
        Self::Uint32,
        Self::Int64,
        Self::Float64,
        Self::Uuid,
        Self::String,
        Self::Bytes,
        Self::Records,
    ];

    /// The schema's name for the type.
    #[must_use]
    pub const fn name(self) -> &'static str {
        match self {
            Self::Bool => "bool",
            Self::Int8 => "int8",
            Self::Int16 => "int16",
            Self::Uint16 => "uint16",
            Self::Int32 => "int32",
            Self::Uint32 => "uint32",
            Self::Int64 => "int64",
            Self::Float64 => "float64",
            Self::Uuid => "uuid",
            Self::String => "string",
            Self::Bytes => "bytes",
            Self::Records => "records",
        }
    }

    /// The type the schema's name `name` names (`"int32"`), if it is a primitive one.
    #[must_use]
    pub fn from_name(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|p| p.name() == name)
    }

    /// The fixed wire width, for fixed-width types.
    #[must_use]
    pub const fn width(self) -> Option<usize> {
        match self {
            Self::Bool | Self::Int8 => Some(1),
            Self::Int16 | Self::Uint16 => Some(2),
            Self::Int32 | Self::Uint32 => Some(4),
            Self::Int64 | Self::Float64 => Some(8),
            Self::Uuid => Some(16),
            Self::String | Self::Bytes | Self::Records => None,
        }
    }

    /// True for the integer and floating-point types.
    #[must_use]
    pub const fn is_number(self) -> bool {
        matches!(
            self,
            Self::Int8
                | Self::Int16
                | Self::Uint16
                | Self::Int32
                | Self::Uint32
                | Self::Int64
                | Self::Float64
        )
    }
}

impl fmt::Display for Primitive {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// The pieces of `src` outside its `//` comments, in order: a comment runs from `//` outside a
/// string literal to the end of its line, whose line break is kept, so that positions reported
/// in the remaining JSON still name the file's lines.
pub fn uncommented(src: &str) -> Uncommented<'_> {
    Uncommented { rest: src }
}

/// The iterator of [`uncommented`]: slices of the source, none empty.
#[derive(Debug, Clone)]
pub struct Uncommented<'a> {
    rest: &'a str,
}

impl<'a> Iterator for Uncommented<'a> {
    type Item = &'a str;

    fn next(&mut self) -> Option<&'a str> {
        // Each piece starts outside a string: at the start, or at the line break ending a
        // comment. Only ASCII bytes are compared, so every cut falls between characters.
        while !self.rest.is_empty() {
            let bytes = self.rest.as_bytes();
            let mut in_string = false;
            let mut i = 0;
            let mut comment = None;
            while i < bytes.len() {
                match bytes[i] {
                    b'\\' if in_string => i += 1,
                    b'"' => in_string = !in_string,
                    b'/' if !in_string && bytes.get(i + 1) == Some(&b'/') => {
                        comment = Some(i);
                        break;
                    }
                    _ => {}
                }
                i += 1;
            }
            let Some(at) = comment else {
                return Some(core::mem::take(&mut self.rest));
            };
            let piece = &self.rest[..at];
            let after = &self.rest[at..];
            self.rest = after.find('\n').map_or("", |n| &after[n..]);
            if !piece.is_empty() {
                return Some(piece);
            }
        }
        None
    }
}

#[cfg(test)]
mod tests {
    extern crate std;

    use std::string::{String, ToString};

    use super::*;

    fn strip(src: &str) -> String {
        uncommented(src).collect()
    }

    fn shown(min: i16, max: i16) -> String {
        let mut s = String::new();
        write_range(&mut s, min, max).unwrap();
        s
    }

    #[test]
    fn ranges() {
        assert_eq!(parse_range("none"), Ok((0, -1)));
        assert_eq!(parse_range("3"), Ok((3, 3)));
        assert_eq!(parse_range("0"), Ok((0, 0)));
        assert_eq!(parse_range("1-4"), Ok((1, 4)));
        assert_eq!(parse_range("2+"), Ok((2, i16::MAX)));
        assert_eq!(parse_range(" 5+ "), Ok((5, i16::MAX)));
        assert_eq!(parse_range("32767"), Ok((i16::MAX, i16::MAX)));
        assert_eq!(parse_range("4-4"), Ok((4, 4)));
        assert_eq!(parse_range(""), Err(ParseVersionRangeError::Blank));
        assert_eq!(parse_range("  "), Err(ParseVersionRangeError::Blank));
        assert_eq!(parse_range("5-2"), Err(ParseVersionRangeError::Reversed));
        for bad in [
            "x", "1-", "-1", "+", "+5", "1.5", "32768", "40000", "2-x", "1 - 4", "1-4+", "None",
            "0x1", "1--2", "++",
        ] {
            assert_eq!(
                parse_range(bad),
                Err(ParseVersionRangeError::NotAVersion),
                "{bad:?}"
            );
        }
    }

    #[test]
    fn written_ranges_read_back() {
        for (min, max, text) in [
            (0, -1, "none"),
            (3, 3, "3"),
            (1, 4, "1-4"),
            (2, i16::MAX, "2+"),
            (i16::MAX, i16::MAX, "32767+"),
        ] {
            assert_eq!(shown(min, max), text);
            assert_eq!(parse_range(text), Ok((min, max)), "{text}");
        }
        assert_eq!(shown(7, 2), "none");
    }

    #[test]
    fn errors_are_sentences_naming_the_notation() {
        for e in [
            ParseVersionRangeError::Blank,
            ParseVersionRangeError::NotAVersion,
        ] {
            assert!(e.to_string().contains("`N-M`"), "{e}");
        }
        assert!(
            ParseVersionRangeError::Reversed
                .to_string()
                .contains("none")
        );
    }

    #[test]
    fn comments_go_outside_strings_only() {
        let src = "// licence header\n{ \"about\": \"see https://kafka.apache.org//x\", // trailing\n  \"a\": \"q\\\"//still string\" }\n// end";
        let out = strip(src);
        assert!(!out.contains("licence"), "{out}");
        assert!(!out.contains("trailing"), "{out}");
        assert!(!out.contains("end"), "{out}");
        assert!(out.contains("\"see https://kafka.apache.org//x\""), "{out}");
        assert!(out.contains("\"q\\\"//still string\""), "{out}");
        // Line breaks are kept, so JSON error positions still match the file.
        assert_eq!(out.matches('\n').count(), src.matches('\n').count());
        assert!(uncommented(src).all(|piece| !piece.is_empty()));
    }

    #[test]
    fn a_single_slash_is_not_a_comment() {
        assert_eq!(strip("{\"a\": 1 / 2}"), "{\"a\": 1 / 2}");
        assert_eq!(strip("{}// x"), "{}");
        assert_eq!(strip("//"), "");
        assert_eq!(strip("// a\n// b\n"), "\n\n");
        assert_eq!(strip("\"é//\" // ü\n"), "\"é//\" \n");
        assert_eq!(strip("\"\\\\\" // x"), "\"\\\\\" ");
    }

    #[test]
    fn a_primitive_reads_back_from_its_name() {
        for p in Primitive::ALL {
            assert_eq!(Primitive::from_name(p.name()), Some(p));
        }
        assert_eq!(Primitive::from_name("int32"), Some(Primitive::Int32));
        assert_eq!(Primitive::from_name("Int32"), None);
        assert_eq!(Primitive::from_name("[]int32"), None);
        assert_eq!(Primitive::Uuid.width(), Some(16));
        assert_eq!(Primitive::String.width(), None);
        assert!(Primitive::Float64.is_number() && !Primitive::Bool.is_number());
    }
}
