//! `kwire catalog`: the smallest legal frame of every API key, version and direction, one hex
//! line each.

use std::fmt::Write as _;
use std::io::Write;

use clap::Args;
use kwire::api::API_TABLE;
use kwire_schema::describe::{self, Side};

use crate::{Error, SCRATCH, describe_error};

/// The command line of `kwire catalog`: it takes no options.
#[derive(Debug, Args)]
pub struct CatalogArgs {}

/// Runs `kwire catalog`.
///
/// # Errors
///
/// `Failed` when a frame cannot be written, `Io` when writing to `out` fails.
pub fn run(_: &CatalogArgs, out: &mut dyn Write) -> Result<(), Error> {
    let mut scratch = vec![0u8; SCRATCH];
    let mut text = String::new();
    for info in API_TABLE {
        for version in info.request_versions.min..=info.request_versions.max {
            if info.request_versions.is_empty() {
                break;
            }
            for side in [Side::Request, Side::Response] {
                let n = describe::write_minimal_frame(info.key, version, side, &mut scratch)
                    .map_err(|e| describe_error(info.key, Some(version), e))?;
                write!(
                    text,
                    "{} {} {version} {} ",
                    info.key.0,
                    info.name,
                    side.name()
                )?;
                describe::write_hex(&scratch[..n], &mut text)?;
                text.push('\n');
            }
        }
    }
    out.write_all(text.as_bytes())?;
    Ok(())
}
