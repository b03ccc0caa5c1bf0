//! `kwire site`: the catalogue as a static web site, written by `kwire-site`.

use std::io::Write;
use std::path::PathBuf;

use clap::Args;

use crate::{Error, probe, schema_dirs};

/// The command line of `kwire site`.
#[derive(Debug, Args)]
pub struct SiteArgs {
    /// The directory to write the site into (created if missing).
    pub out_dir: PathBuf,
    /// A directory of Kafka's JSON message schemas (its `message` directory). The pages then
    /// also show each field's description and the message's schema. May be repeated; the
    /// first directory holding a message's file is used.
    #[arg(long)]
    pub schemas: Vec<PathBuf>,
    /// The dissector built for the browser (`cargo build --release -p kwire-wasm --target
    /// wasm32-unknown-unknown`): the site then has a page that dissects a pasted frame.
    #[arg(long)]
    pub wasm: Option<PathBuf>,
    /// A JSON document of `kwire probe --json`: the site then has `probe.html`, the matrix of
    /// each broker's verdicts. May be repeated.
    #[arg(long, value_name = "RESULTS.json")]
    pub probe: Vec<PathBuf>,
}

/// Runs `kwire site`.
///
/// # Errors
///
/// `Failed` when a `--schemas` directory holds no schemas, a `--probe` document cannot be
/// read, or the site cannot be written.
pub fn run(args: &SiteArgs, out: &mut dyn Write) -> Result<(), Error> {
    schema_dirs(&args.schemas)?;
    let probe = args
        .probe
        .iter()
        .map(|path| {
            let text = std::fs::read_to_string(path)
                .map_err(|e| Error::Failed(format!("reading {}: {e}", path.display())))?;
            probe::parse_json(&text).map_err(|e| {
                Error::Failed(format!(
                    "{}: not the results of kwire probe --json: {e}",
                    path.display()
                ))
            })
        })
        .collect::<Result<Vec<_>, Error>>()?;
    let summary = kwire_site::write_site(&kwire_site::Options {
        out: args.out_dir.clone(),
        schemas: args.schemas.clone(),
        wasm: args.wasm.clone(),
        probe,
    })
    .map_err(Error::Failed)?;
    writeln!(
        out,
        "wrote {} pages to {} ({} message schemas found); open {}",
        summary.pages,
        args.out_dir.display(),
        summary.schemas,
        args.out_dir.join("index.html").display()
    )?;
    Ok(())
}
