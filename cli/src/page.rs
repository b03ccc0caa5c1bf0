//! `kwire page`: the reference page of an API, or its smallest frame as one hex line.

use std::io::Write;
use std::path::PathBuf;

use clap::Args;
use kwire::ApiKey;
use kwire_schema::describe::{self, Side};

use crate::{Error, SCRATCH, describe_error, parse_api, schema_dirs};

/// The command line of `kwire page`.
#[derive(Debug, Args)]
pub struct PageArgs {
    /// The API: its name in any case (`RenewDelegationToken`, `fetch`) or its key (`39`).
    #[arg(value_parser = parse_api)]
    pub api: ApiKey,
    /// The version to encode at (default: the highest).
    #[arg(long, short = 'v')]
    pub version: Option<i16>,
    /// With --hex: the request frame.
    #[arg(long, conflicts_with = "response", requires = "hex")]
    pub request: bool,
    /// With --hex: the response frame.
    #[arg(long, requires = "hex")]
    pub response: bool,
    /// Print only the frame, as one line of lowercase hex.
    #[arg(long)]
    pub hex: bool,
    /// A directory of Kafka's JSON message schemas: the trees then carry each field's
    /// description, as the reference pages and the site show them. May be repeated.
    #[arg(long, conflicts_with = "hex")]
    pub schemas: Vec<PathBuf>,
}

/// Runs `kwire page`.
///
/// # Errors
///
/// `Failed` when the API has no such version or a `--schemas` directory holds no schemas.
pub fn run(args: &PageArgs, out: &mut dyn Write) -> Result<(), Error> {
    let mut scratch = vec![0u8; SCRATCH];
    let mut text = String::new();
    if args.hex {
        let (_, version) = describe::page_version(args.api, args.version)
            .map_err(|e| describe_error(args.api, args.version, e))?;
        let side = if args.response {
            Side::Response
        } else {
            Side::Request
        };
        let n = describe::write_minimal_frame(args.api, version, side, &mut scratch)
            .map_err(|e| describe_error(args.api, Some(version), e))?;
        describe::write_hex(&scratch[..n], &mut text)?;
        text.push('\n');
    } else if args.schemas.is_empty() {
        describe::page(args.api, args.version, &mut scratch, &mut text)
            .map_err(|e| describe_error(args.api, args.version, e))?;
    } else {
        schema_dirs(&args.schemas)?;
        describe::page_version(args.api, args.version)
            .map_err(|e| describe_error(args.api, args.version, e))?;
        text =
            kwire_site::page_text(args.api, args.version, &args.schemas).map_err(Error::Failed)?;
    }
    out.write_all(text.as_bytes())?;
    Ok(())
}
