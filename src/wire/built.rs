//! The versions a build compiles: every valid version of every API, unless the build names a
//! version or a range for some APIs in the `KWIRE_VERSIONS` environment variable.
//!
//! `build.rs` checks the variable against the API table and writes the ranges it names; each
//! generated message module holds a [`Built`] for its API, refuses versions outside it and pins
//! the version it decodes and encodes at into it, so that a build naming one version folds every
//! version test of its messages away and links only that version's code.

use crate::wire::{ApiKey, VersionRange};

/// `(API key, lowest, highest)` for every API `KWIRE_VERSIONS` named, in key order; empty
/// without it.
const NAMED: &[(i16, i16, i16)] = include!(concat!(env!("OUT_DIR"), "/kwire_versions.rs"));

/// The range `KWIRE_VERSIONS` named for `key`, if it named one: within the key's valid
/// request versions, which `build.rs` checks.
pub(crate) const fn named_versions(key: ApiKey) -> Option<VersionRange> {
    let mut rest = NAMED;
    while let [(k, min, max), tail @ ..] = rest {
        if *k == key.0 {
            return Some(VersionRange::new(*min, *max));
        }
        rest = tail;
    }
    None
}

/// The versions of `key` this build compiles, out of `valid`: `valid` itself unless
/// `KWIRE_VERSIONS` named `key`.
#[must_use]
pub(crate) const fn built_versions(key: ApiKey, valid: VersionRange) -> VersionRange {
    match named_versions(key) {
        Some(range) => range.intersect(valid),
        None => valid,
    }
}

/// The versions of one message a build compiles, and how a version is held to them.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Built {
    key: ApiKey,
    range: VersionRange,
    /// True when the build narrowed the valid range: only then is a version pinned.
    narrowed: bool,
}

impl Built {
    /// The versions of the message with key `key` (`ApiKey(-1)` for a header or a payload)
    /// and valid range `valid` that this build compiles.
    #[must_use]
    pub(crate) const fn new(key: ApiKey, valid: VersionRange) -> Self {
        Self::kept(key, valid, built_versions(key, valid))
    }

    /// `range` kept of the valid versions `valid`.
    const fn kept(key: ApiKey, valid: VersionRange, range: VersionRange) -> Self {
        Self {
            key,
            range,
            narrowed: range.min != valid.min || range.max != valid.max,
        }
    }

    /// The message's API key.
    #[must_use]
    pub(crate) const fn key(self) -> ApiKey {
        self.key
    }

    /// The versions compiled.
    #[must_use]
    pub(crate) const fn range(self) -> VersionRange {
        self.range
    }

    /// True when the build narrowed the valid range and `version` is outside what it kept: the
    /// test a nested struct's decode and encode make, which folds away in a build that keeps
    /// every version (where the message's own test has already refused the invalid ones).
    #[inline(always)]
    #[must_use]
    pub(crate) const fn refuses(self, version: i16) -> bool {
        self.narrowed && !self.range.contains(version)
    }

    /// `version` held to the compiled range where the build narrowed it, else `version` as it
    /// is. In a build that names versions (`cfg(kwire_narrowed)`), every generated function
    /// that tests the version starts with this: where the range is one version the result is a
    /// constant and the tests fold; where it is narrower than the valid range the compiler
    /// knows the bounds. Every entry point refuses versions outside the range first, so within
    /// the range this changes nothing.
    #[inline(always)]
    #[must_use]
    #[cfg_attr(
        not(any(kwire_narrowed, test)),
        expect(dead_code, reason = "narrowed builds only")
    )]
    pub(crate) const fn pin(self, version: i16) -> i16 {
        if !self.narrowed {
            version
        } else if version < self.range.min {
            self.range.min
        } else if version > self.range.max {
            self.range.max
        } else {
            version
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const VALID: VersionRange = VersionRange::new(0, 18);

    #[test]
    fn a_build_that_names_nothing_keeps_every_version_as_it_is() {
        // Unit tests are built without `KWIRE_VERSIONS`.
        assert!(NAMED.is_empty());
        let built = Built::new(ApiKey::FETCH, VALID);
        assert_eq!(built.range(), VALID);
        assert_eq!(built.key(), ApiKey::FETCH);
        for v in [-1, 0, 7, 18, 19, i16::MAX] {
            assert_eq!(built.pin(v), v);
            assert!(!built.refuses(v));
        }
        assert_eq!(built_versions(ApiKey::FETCH, VALID), VALID);
        assert_eq!(
            ApiKey::FETCH.built_versions(),
            ApiKey::FETCH.request_versions()
        );
    }

    #[test]
    fn a_narrowed_build_refuses_and_pins_what_it_left_out() {
        let one = Built::kept(ApiKey::FETCH, VALID, VersionRange::new(12, 12));
        for v in [-1, 0, 11, 12, 13, 18, 19] {
            assert_eq!(one.pin(v), 12, "{v}");
            assert_eq!(one.refuses(v), v != 12, "{v}");
        }
        let some = Built::kept(ApiKey::FETCH, VALID, VersionRange::new(4, 12));
        assert_eq!(some.pin(2), 4);
        assert_eq!(some.pin(7), 7);
        assert_eq!(some.pin(13), 12);
        assert!(some.refuses(3) && !some.refuses(4) && !some.refuses(12) && some.refuses(13));
        // The top of the range kept is the range itself: not narrowed.
        let all = Built::kept(ApiKey::FETCH, VALID, VALID);
        assert_eq!(all.pin(30), 30);
        assert!(!all.refuses(30));
    }
}
