//! The generator's integration tests, one binary (each file a module).
//! `cargo test -p kwire-codegen --test integration golden::` runs the golden tests alone.

mod brokers;
mod golden;
mod header;
mod merge;
mod notes;
mod topics;
