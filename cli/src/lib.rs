//! The commands of `kwire`, the command-line tool of the kwire codec: a module per command,
//! each with its command line (`PageArgs`, `CaptureArgs`, ...) and its `run`.
//!
//! - [`page`], [`list`], [`catalog`]: the reference of every API, from the codec's tables;
//! - [`dissect`]: the object tree of one frame;
//! - [`site`]: the catalogue as a static web site;
//! - [`capture`]: the Kafka exchanges of a pcap or pcapng file;
//! - [`tap`]: a live proxy printing the exchanges it relays;
//! - [`probe`]: a conformance check of a broker.
//!
//! The binary parses the command line and calls them; the fuzz target of the capture path
//! calls [`capture::read`] directly.

use std::io;
use std::path::PathBuf;

use kwire::ApiKey;
use kwire_schema::describe::DescribeError;

pub mod capture;
pub mod catalog;
pub mod dissect;
pub mod list;
pub mod page;
pub mod probe;
pub mod security;
pub mod site;
pub mod tap;

/// Scratch space for one minimal frame (the largest is a few hundred bytes).
const SCRATCH: usize = 1 << 16;

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

/// Why the dissector could not describe `api` at `version`, in words for the user.
fn describe_error(api: ApiKey, version: Option<i16>, e: DescribeError) -> Error {
    match e {
        DescribeError::UnknownApi => {
            let Some(info) = api.info() else {
                return Error::Failed(format!("unknown API key {}", api.0));
            };
            Error::Failed(format!(
                "{} has no version {} (requests {}, responses {})",
                info.name,
                version.map_or_else(|| "?".into(), |v| v.to_string()),
                info.request_versions,
                info.response_versions
            ))
        }
        other => Error::Failed(other.to_string()),
    }
}

/// Fails unless each of `dirs` is a directory that holds JSON files: a `--schemas` that names
/// nothing would otherwise leave the descriptions out without a word.
fn schema_dirs(dirs: &[PathBuf]) -> Result<(), Error> {
    for dir in dirs {
        let entries = std::fs::read_dir(dir)
            .map_err(|e| Error::Failed(format!("--schemas {}: {e}", dir.display())))?;
        let json = entries
            .filter_map(Result::ok)
            .any(|e| e.path().extension().is_some_and(|x| x == "json"));
        if !json {
            return Err(Error::Failed(format!(
                "--schemas {}: the directory holds no message schemas (no .json files)",
                dir.display()
            )));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn apis_by_name_or_key() {
        assert_eq!(
            parse_api("renewdelegationtoken"),
            Ok(ApiKey::RENEW_DELEGATION_TOKEN)
        );
        assert_eq!(parse_api("1"), Ok(ApiKey::FETCH));
        assert!(parse_api("NoSuchApi").is_err());
        assert!(parse_api("9999").is_err());
    }
}
