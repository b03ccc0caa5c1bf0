//! The command-line tool's integration tests, one binary (each file a module): the `kwire`
//! binary is run as a user runs it, and its library parts are called in process.

mod capture;
mod commands;
mod probe;
mod tap;
