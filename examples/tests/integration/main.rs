//! The examples' integration tests, one binary (each file a module).

mod connection;
mod mini_broker;
mod proxy;
mod readme;
mod sasl;
mod tls;
