//! The wire's primitive types, at the bottom of the crate: API keys, version ranges, UUIDs and
//! strings. Nothing here names another module of the crate; every other module may use these.
//!
//! The module is private: each type is public where it is used, [`ApiKey`] in [`crate::api`]
//! (and at the crate root, with the other types of `api` that every program names),
//! [`VersionRange`], [`Uuid`] and [`Str`] in [`crate::codec`]. Inside the crate each is named by
//! its path here (`crate::wire::ApiKey`), whichever module re-exports it.

mod built;
mod str;
mod uuid;

use core::fmt;

pub(crate) use built::{Built, named_versions};
pub use kwire_notation::ParseVersionRangeError;
pub use str::Str;
pub(crate) use str::is_utf8;
pub use uuid::{Hyphenated, ParseUuidError, Uuid};

/// A Kafka API key: an open newtype, so keys this crate does not know survive a round trip.
///
/// The associated constants name every key Kafka has assigned, including the ones removed in 4.0
/// (4–7), whose numbers are reserved.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct ApiKey(pub i16);

impl From<i16> for ApiKey {
    fn from(v: i16) -> Self {
        Self(v)
    }
}

impl From<ApiKey> for i16 {
    fn from(k: ApiKey) -> Self {
        k.0
    }
}

/// An inclusive range of versions; empty when `min > max`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct VersionRange {
    /// The lowest version in the range.
    pub min: i16,
    /// The highest version in the range.
    pub max: i16,
}

impl VersionRange {
    /// The empty range (Kafka's `"none"`).
    pub const NONE: Self = Self { min: 0, max: -1 };

    /// The range `min..=max`.
    #[must_use]
    pub const fn new(min: i16, max: i16) -> Self {
        Self { min, max }
    }

    /// The open-ended range `min..` (Kafka's `"N+"`).
    #[must_use]
    pub const fn from(min: i16) -> Self {
        Self { min, max: i16::MAX }
    }

    /// True if `version` is in the range.
    #[must_use]
    pub const fn contains(self, version: i16) -> bool {
        version >= self.min && version <= self.max
    }

    /// True if the range holds no version.
    #[must_use]
    pub const fn is_empty(self) -> bool {
        self.min > self.max
    }

    /// The versions in both ranges.
    #[must_use]
    pub const fn intersect(self, other: Self) -> Self {
        let min = if self.min > other.min {
            self.min
        } else {
            other.min
        };
        let max = if self.max < other.max {
            self.max
        } else {
            other.max
        };
        Self { min, max }
    }
}

/// Written as Kafka's schemas write version ranges: `none` when empty, `N+` when the range
/// reaches `i16::MAX`, `N` for one version, else `N-M` (the notation of the `kwire-notation`
/// crate, which [`FromStr`](core::str::FromStr) reads back).
impl fmt::Display for VersionRange {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        kwire_notation::write_range(f, self.min, self.max)
    }
}

/// Reads a range as Kafka's schemas write them (`validVersions`, `flexibleVersions` and the
/// others), the notation `KWIRE_VERSIONS` uses too: `N`, `N-M` (both included), `N+` (to
/// `i16::MAX`) or `none`, each version a decimal number from 0 to 32767. The notation and its
/// errors are those of the `kwire-notation` crate, the one place the rule is written.
///
/// ```
/// use kwire::codec::{ParseVersionRangeError, VersionRange};
///
/// assert_eq!("3-9".parse(), Ok(VersionRange::new(3, 9)));
/// assert_eq!("12+".parse(), Ok(VersionRange::from(12)));
/// assert_eq!("none".parse(), Ok(VersionRange::NONE));
/// assert_eq!("9-3".parse::<VersionRange>(), Err(ParseVersionRangeError::Reversed));
/// assert_eq!(VersionRange::new(3, 9).to_string(), "3-9");
/// ```
impl core::str::FromStr for VersionRange {
    type Err = ParseVersionRangeError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let (min, max) = kwire_notation::parse_range(s)?;
        Ok(Self { min, max })
    }
}
