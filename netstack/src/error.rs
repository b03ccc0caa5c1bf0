//! Why a run failed.

use std::fmt;
use std::io;

use kwire::session::SessionError;
use kwire::{ApiKey, DecodeError, EncodeError, ErrorCode};

/// Why a run failed. Made on the data path without allocating: every variant but
/// [`Error::Setup`] holds plain values.
#[derive(Debug)]
pub enum Error {
    /// The operating system refused a call: the socket, the TAP device, the wait.
    Io(io::Error),
    /// The broker closed the connection.
    Closed,
    /// The connection was reset, or smoltcp's socket left the states that carry data.
    Reset,
    /// Nothing came for this long while waiting for `what`.
    Timeout {
        /// What was waited for.
        what: &'static str,
        /// The seconds waited.
        secs: u64,
    },
    /// The session refused a request or a response.
    Session(SessionError),
    /// A request did not encode.
    Encode(EncodeError),
    /// A response or a record batch did not decode.
    Decode(DecodeError),
    /// The broker answered with an error code.
    Kafka(ApiKey, ErrorCode),
    /// A response lacked what was asked for.
    Unexpected(&'static str),
    /// A record read back differs from the record produced at that offset.
    Mismatch {
        /// The record's offset.
        offset: i64,
        /// What differs: `key`, `value`, `headers`, `timestamp`, `offset`.
        field: &'static str,
    },
    /// The program could not start: an argument, the device, the address.
    Setup(String),
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Io(e) => write!(f, "{e}"),
            Self::Closed => f.write_str("the broker closed the connection"),
            Self::Reset => f.write_str("the connection was reset"),
            Self::Timeout { what, secs } => write!(f, "no {what} in {secs} s"),
            Self::Session(e) => write!(f, "{e}"),
            Self::Encode(e) => write!(f, "encoding a request: {e}"),
            Self::Decode(e) => write!(f, "decoding a response: {e}"),
            Self::Kafka(key, code) => write!(f, "{key}: {code}"),
            Self::Unexpected(what) => f.write_str(what),
            Self::Mismatch { offset, field } => {
                write!(
                    f,
                    "the record at offset {offset} came back with another {field}"
                )
            }
            Self::Setup(what) => f.write_str(what),
        }
    }
}

impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Self::Io(e) => Some(e),
            Self::Session(e) => Some(e),
            Self::Encode(e) => Some(e),
            Self::Decode(e) => Some(e),
            _ => None,
        }
    }
}

impl From<io::Error> for Error {
    fn from(e: io::Error) -> Self {
        Self::Io(e)
    }
}

impl From<SessionError> for Error {
    fn from(e: SessionError) -> Self {
        match e {
            SessionError::Encode(e) => Self::Encode(e),
            SessionError::Decode(e) => Self::Decode(e),
            e => Self::Session(e),
        }
    }
}

impl From<EncodeError> for Error {
    fn from(e: EncodeError) -> Self {
        Self::Encode(e)
    }
}

impl From<DecodeError> for Error {
    fn from(e: DecodeError) -> Self {
        Self::Decode(e)
    }
}
