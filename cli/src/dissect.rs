//! `kwire dissect`: the object tree of one frame read from a file or standard input.

use std::io::{self, Read, Write};
use std::path::PathBuf;

use clap::Args;
use kwire::ApiKey;
use kwire_schema::describe::DescribeError;
use kwire_site::records;

use crate::{Error, capture, parse_api};

/// The command line of `kwire dissect`.
#[derive(Debug, Args)]
pub struct DissectArgs {
    /// The file holding the frame; `-` or none reads standard input.
    pub file: Option<PathBuf>,
    /// The frame is a request (its header names the API and version).
    #[arg(
        long,
        conflicts_with = "response",
        required_unless_present = "response"
    )]
    pub request: bool,
    /// The frame is a response (give --api-key and --version).
    #[arg(long, requires_all = ["api_key", "version"])]
    pub response: bool,
    /// The API of a response: name or key.
    #[arg(long, value_parser = parse_api)]
    pub api_key: Option<ApiKey>,
    /// The version of a response.
    #[arg(long, short = 'v')]
    pub version: Option<i16>,
    /// After the tree, every record of every records field: offset, time, key, value and
    /// headers (compressed batches decompressed, control records named).
    #[arg(long)]
    pub records: bool,
    /// Show SaslAuthenticate's auth bytes (passwords, SCRAM proofs, tokens), which the tree
    /// otherwise shows as their length and mechanism step only.
    #[arg(long)]
    pub show_secrets: bool,
}

/// Runs `kwire dissect`.
///
/// # Errors
///
/// `Failed` when the input cannot be read, or the frame or its records do not decode (after
/// printing what could be read).
pub fn run(args: &DissectArgs, out: &mut dyn Write) -> Result<(), Error> {
    let mut input = Vec::new();
    match args.file.as_deref().filter(|p| p.as_os_str() != "-") {
        Some(path) => {
            input = std::fs::read(path)
                .map_err(|e| Error::Failed(format!("reading {}: {e}", path.display())))?;
        }
        None => {
            io::stdin()
                .read_to_end(&mut input)
                .map_err(|e| Error::Failed(format!("reading stdin: {e}")))?;
        }
    }
    let frame = frame_bytes(&input)?;
    let mut text = String::new();
    // The records are read whether or not they are shown: a damaged batch fails the command.
    let mut report = if args.records {
        records::Report::printed()
    } else {
        records::Report::checked()
    };
    let result = match (args.response, args.api_key, args.version) {
        (true, Some(api), Some(version)) => {
            let response = Some((api, version));
            let result = capture::print::write_tree(&frame, response, args.show_secrets, &mut text);
            records::response_records(&frame, api, version, &|_| None, &mut report);
            result
        }
        _ => {
            let result = capture::print::write_tree(&frame, None, args.show_secrets, &mut text);
            records::request_records(&frame, &|_| None, &mut report);
            result
        }
    };
    let damaged = report.summary();
    text.push_str(&report.into_text());
    out.write_all(text.as_bytes())?;
    if result.is_ok()
        && let Some(summary) = damaged
    {
        return Err(Error::Failed(format!("damaged records: {summary}")));
    }
    match result {
        Ok(()) => Ok(()),
        Err(DescribeError::Decode(e)) => Err(Error::Failed(format!("malformed frame: {e}"))),
        Err(DescribeError::UnknownApi) => Err(Error::Failed(
            "the frame names an API key or version this tool has no schema for".into(),
        )),
        Err(e) => Err(Error::Failed(e.to_string())),
    }
}

/// The frame bytes: hex when the input is only hex digits and whitespace, else binary.
fn frame_bytes(input: &[u8]) -> Result<Vec<u8>, Error> {
    let text = input
        .iter()
        .all(|b| b.is_ascii_hexdigit() || b.is_ascii_whitespace());
    if !text || input.iter().all(u8::is_ascii_whitespace) {
        return Ok(input.to_vec());
    }
    let digits: Vec<u8> = input
        .iter()
        .copied()
        .filter(u8::is_ascii_hexdigit)
        .collect();
    if !digits.len().is_multiple_of(2) {
        return Err(Error::Failed(format!(
            "the hex input has an odd number of digits ({})",
            digits.len()
        )));
    }
    Ok(digits
        .chunks(2)
        .map(|pair| {
            let hi = (pair[0] as char).to_digit(16).unwrap_or(0);
            let lo = (pair[1] as char).to_digit(16).unwrap_or(0);
            u8::try_from(hi * 16 + lo).unwrap_or(0)
        })
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hex_or_binary_input() {
        assert_eq!(frame_bytes(b"00 01\n0a FF").unwrap(), [0, 1, 10, 255]);
        assert_eq!(frame_bytes(&[0, 0, 0, 1, 7]).unwrap(), [0, 0, 0, 1, 7]);
        assert!(frame_bytes(b"abc").is_err());
    }
}
