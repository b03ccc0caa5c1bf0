//! The commands of `kwire`, the command-line tool of the kwire codec, that read traffic or
//! talk to brokers: `capture` (pcap and pcapng files), `tap` (a live proxy) and `probe` (a
//! conformance check of a broker). The binary parses the command line and calls them; the fuzz
//! target of the capture path calls [`capture::read`] directly.

use std::io;

use kwire::ApiKey;

pub mod capture;
pub mod probe;
pub mod security;
pub mod tap;

/// An API by name (any ASCII case) or by numeric key.
pub fn parse_api(arg: &str) -> Result<ApiKey, String> {
    let key = match arg.parse::<i16>() {
        Ok(n) => ApiKey(n),
        Err(_) => ApiKey::from_name(arg).ok_or_else(|| format!("unknown API {arg}"))?,
    };
    if key.info().is_none() {
        return Err(format!("unknown API key {}", key.0));
    }
    Ok(key)
}

/// Why a command failed.
#[derive(Debug)]
pub enum Error {
    /// A message for the user; exit code 1.
    Failed(String),
    /// Output failed.
    Io(io::Error),
}

impl From<io::Error> for Error {
    fn from(e: io::Error) -> Self {
        Self::Io(e)
    }
}

impl From<std::fmt::Error> for Error {
    fn from(_: std::fmt::Error) -> Self {
        Self::Failed("formatting failed".into())
    }
}
