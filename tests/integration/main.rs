//! The library's integration tests, one binary: each file of this directory is a module, so
//! that the library and the dependencies are linked once, and the tests of every file run in
//! parallel. `cargo test -p kwire --test integration roundtrip::` runs one file's tests.
//!
//! `tests/api_features.rs` is a binary of its own: CI also builds it with two APIs only.

mod address;
mod arrays;
mod bad_input;
mod compression;
mod corpus_replay;
mod debug_tree;
mod defmt_format;
mod describe;
mod differential;
mod error_code;
mod error_messages;
mod frame_helpers;
mod ignorable;
#[cfg(feature = "in-place")]
mod in_place;
mod kafka_python;
mod layers;
mod legacy;
mod malformed;
mod negotiate;
mod primitives;
mod records;
mod records_differential;
mod records_prop;
mod reference_pages;
mod relay;
mod roundtrip;
mod sasl;
mod session;
mod setters;
mod uuids;
mod zero_alloc;
