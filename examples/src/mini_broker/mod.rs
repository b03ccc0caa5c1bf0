//! A single-node, in-memory Kafka broker (see the `mini_broker` example for what it serves).
//!
//! Batches are kept byte for byte as producers sent them; the broker only assigns their base
//! offset and partition leader epoch, as Kafka does. Nothing is written to disk.

pub mod admin;
pub mod broker;
pub mod fallback;
pub mod groups;
pub mod log;
pub mod sasl;
