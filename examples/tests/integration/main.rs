//! The examples' integration tests, one binary (each file a module).

mod mini_broker;
mod proxy;
mod readme;
