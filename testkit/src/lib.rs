//! Test support for kwire, outside the published library: the round-trip and differential
//! oracles shared by the fuzz targets in `fuzz/` and the tests (which replay the fuzz corpus
//! through exactly the same checks), and seeded random instances of any message, which
//! `kwire probe --fuzz` also sends to brokers. With the feature `pki`, certificates made at
//! test time for TLS tests.
//!
//! Not published. It depends on kwire with the dissector (`describe`) and `ApiVersions`; every
//! other API is whatever the build that uses it enables.

#![no_std]

extern crate alloc;
#[cfg(any(test, feature = "pki"))]
extern crate std;

pub mod oracles;
#[cfg(feature = "pki")]
pub mod pki;
pub mod random;

pub use random::{
    Populated, Random, Strings, populated_instance, random_instance, random_instance_named,
    write_random,
};
