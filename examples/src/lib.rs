//! Programs built on kwire, to run and to read: a single-node broker that real Kafka clients
//! produce to and consume from, a proxy that re-encodes every frame and points the broker
//! addresses clients are told at itself, and the TLS and SASL options of the programs that
//! connect to brokers. The `client`, `mini_broker` and `proxy` examples of this package are
//! their command lines (`scram_user` manages SCRAM credentials):
//!
//! ```text
//! cargo run -p kwire-examples --example mini_broker -- 127.0.0.1:19092
//! cargo run -p kwire-examples --example client -- 127.0.0.1:19092
//! cargo run -p kwire-examples --example proxy -- --listen 127.0.0.1:19093 --upstream 127.0.0.1:19092
//! ```
//!
//! The package's build is only what they use: kwire with its default features and the four
//! compression codecs, and the standard library.

pub mod mini_broker;
pub mod proxy;
pub mod security;
