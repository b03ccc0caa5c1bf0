//! `kafka-wire`: the command-line tool of the kafka-wire codec.
//!
//! ```text
//! kafka-wire list                          every API key with its versions
//! kafka-wire page <Api> [--version N]      the smallest legal request and response of an API
//! ```

mod frames;
mod hex;
mod list;
mod page;

use std::fmt;
use std::io::{self, Write};
use std::process::ExitCode;

use kafka_wire::ApiKey;

const USAGE: &str = "\
usage: kafka-wire <command>

commands:
  list                        every API key with its request and response versions
  page <Api> [--version N]    the smallest legal request and response of an API at a version
                              (default: the highest); <Api> is a name in any case
                              (RenewDelegationToken, fetch) or a numeric key (39)
  help                        this text
";

/// Why a command failed.
#[derive(Debug)]
pub(crate) enum Error {
    /// The command line was wrong.
    Usage(String),
    /// The command could not do its work.
    Failed(String),
    /// Writing the output failed.
    Io(io::Error),
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Usage(msg) | Self::Failed(msg) => f.write_str(msg),
            Self::Io(e) => write!(f, "writing output: {e}"),
        }
    }
}

impl From<io::Error> for Error {
    fn from(e: io::Error) -> Self {
        Self::Io(e)
    }
}

/// A parsed command line.
#[derive(Debug, PartialEq, Eq)]
enum Command {
    Help,
    List,
    Page { api: ApiKey, version: Option<i16> },
}

fn parse(args: &[String]) -> Result<Command, Error> {
    let mut args = args.iter().map(String::as_str);
    let command = match args.next() {
        None | Some("help" | "-h" | "--help") => return Ok(Command::Help),
        Some("list") => Command::List,
        Some("page") => {
            let mut api = None;
            let mut version = None;
            while let Some(arg) = args.next() {
                match arg {
                    "--version" | "-v" => {
                        let value = args
                            .next()
                            .ok_or_else(|| Error::Usage("--version needs a value".into()))?;
                        version = Some(parse_version(value)?);
                    }
                    _ if arg.starts_with("--version=") => {
                        version = Some(parse_version(arg.trim_start_matches("--version="))?);
                    }
                    _ if arg.starts_with('-') && arg.parse::<i16>().is_err() => {
                        return Err(Error::Usage(format!("unknown option {arg}")));
                    }
                    _ if api.is_none() => api = Some(parse_api(arg)?),
                    _ => return Err(Error::Usage(format!("unexpected argument {arg}"))),
                }
            }
            let api = api.ok_or_else(|| Error::Usage("page needs an API name or key".into()))?;
            return Ok(Command::Page { api, version });
        }
        Some(other) => return Err(Error::Usage(format!("unknown command {other}"))),
    };
    match args.next() {
        None => Ok(command),
        Some(extra) => Err(Error::Usage(format!("unexpected argument {extra}"))),
    }
}

fn parse_version(value: &str) -> Result<i16, Error> {
    value
        .parse()
        .map_err(|_| Error::Usage(format!("invalid version {value}")))
}

/// An API by name (any ASCII case) or by numeric key.
fn parse_api(arg: &str) -> Result<ApiKey, Error> {
    let key = match arg.parse::<i16>() {
        Ok(n) => ApiKey(n),
        Err(_) => {
            ApiKey::from_name(arg).ok_or_else(|| Error::Failed(format!("unknown API {arg}")))?
        }
    };
    if key.info().is_none() {
        return Err(Error::Failed(format!("unknown API key {}", key.0)));
    }
    Ok(key)
}

fn run(command: Command, out: &mut dyn Write) -> Result<(), Error> {
    match command {
        Command::Help => out.write_all(USAGE.as_bytes())?,
        Command::List => list::write(out)?,
        Command::Page { api, version } => {
            let page = page::Page::build(api, version)?;
            page.write(out)?;
        }
    }
    out.flush()?;
    Ok(())
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let stdout = io::stdout();
    let result = parse(&args).and_then(|command| run(command, &mut stdout.lock()));
    match result {
        Ok(()) => ExitCode::SUCCESS,
        // A closed pipe (`kafka-wire list | head`) is not an error.
        Err(Error::Io(e)) if e.kind() == io::ErrorKind::BrokenPipe => ExitCode::SUCCESS,
        Err(e @ Error::Usage(_)) => {
            eprintln!("kafka-wire: {e}\n\n{USAGE}");
            ExitCode::from(2)
        }
        Err(e) => {
            eprintln!("kafka-wire: {e}");
            ExitCode::FAILURE
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(s: &str) -> Vec<String> {
        s.split_whitespace().map(String::from).collect()
    }

    #[test]
    fn parses_commands() {
        assert_eq!(parse(&args("")).unwrap(), Command::Help);
        assert_eq!(parse(&args("list")).unwrap(), Command::List);
        assert_eq!(
            parse(&args("page renewdelegationtoken")).unwrap(),
            Command::Page {
                api: ApiKey::RENEW_DELEGATION_TOKEN,
                version: None
            }
        );
        assert_eq!(
            parse(&args("page 1 --version 16")).unwrap(),
            Command::Page {
                api: ApiKey::FETCH,
                version: Some(16)
            }
        );
        assert_eq!(
            parse(&args("page --version=3 ApiVersions")).unwrap(),
            Command::Page {
                api: ApiKey::API_VERSIONS,
                version: Some(3)
            }
        );
    }

    #[test]
    fn rejects_bad_command_lines() {
        assert!(matches!(parse(&args("page")), Err(Error::Usage(_))));
        assert!(matches!(
            parse(&args("page Fetch --version")),
            Err(Error::Usage(_))
        ));
        assert!(matches!(
            parse(&args("page Fetch --version x")),
            Err(Error::Usage(_))
        ));
        assert!(matches!(
            parse(&args("page Fetch Produce")),
            Err(Error::Usage(_))
        ));
        assert!(matches!(parse(&args("list extra")), Err(Error::Usage(_))));
        assert!(matches!(parse(&args("frobnicate")), Err(Error::Usage(_))));
        assert!(matches!(
            parse(&args("page NoSuchApi")),
            Err(Error::Failed(_))
        ));
        assert!(matches!(parse(&args("page 9999")), Err(Error::Failed(_))));
    }
}
