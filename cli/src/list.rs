//! `kwire list`: every API with its versions, header versions and smallest frame sizes.

use std::fmt::Write as _;
use std::io::Write;

use clap::Args;
use kwire::ApiKey;
use kwire::api::API_TABLE;
use kwire_schema::describe::{self, Side};

use crate::{Error, SCRATCH};

/// The command line of `kwire list`: it takes no options.
#[derive(Debug, Args)]
pub struct ListArgs {}

/// Runs `kwire list`.
///
/// # Errors
///
/// `Io` when writing to `out` fails.
pub fn run(_: &ListArgs, out: &mut dyn Write) -> Result<(), Error> {
    let mut scratch = vec![0u8; SCRATCH];
    let width = API_TABLE.iter().map(|i| i.name.len()).max().unwrap_or(0);
    let mut text = String::new();
    writeln!(
        text,
        "key  {:<width$}  {:<9} {:<9} {:<9} {:<9} {:<7} {:>8} {:>9}",
        "name", "request", "flexible", "response", "flexible", "headers", "req size", "resp size"
    )?;
    for info in API_TABLE {
        let top = info.request_versions.max;
        let (headers, req, resp) = if info.request_versions.is_empty() {
            ("-".to_string(), "-".to_string(), "-".to_string())
        } else {
            (
                format!(
                    "{}/{}",
                    Side::Request.header_version(info.key, top),
                    Side::Response.header_version(info.key, top)
                ),
                minimal_len(info.key, top, Side::Request, &mut scratch),
                minimal_len(info.key, top, Side::Response, &mut scratch),
            )
        };
        writeln!(
            text,
            "{:>3}  {:<width$}  {:<9} {:<9} {:<9} {:<9} {:<7} {:>8} {:>9}",
            info.key.0,
            info.name,
            info.request_versions.to_string(),
            info.request_flexible.to_string(),
            info.response_versions.to_string(),
            info.response_flexible.to_string(),
            headers,
            req,
            resp,
        )?;
    }
    out.write_all(text.as_bytes())?;
    Ok(())
}

fn minimal_len(api: ApiKey, version: i16, side: Side, scratch: &mut [u8]) -> String {
    describe::write_minimal_frame(api, version, side, scratch)
        .map_or_else(|_| "-".into(), |n| n.to_string())
}
