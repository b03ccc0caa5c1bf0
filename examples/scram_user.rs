//! Manages the SCRAM credentials a broker stores (AlterUserScramCredentials and
//! DescribeUserScramCredentials), as `kafka-configs --alter --add-config 'SCRAM-SHA-512=[...]'`
//! does:
//!
//! ```text
//! cargo run -p kwire-examples --example scram_user -- HOST:PORT [TLS and SASL options] \
//!     set NAME --mechanism SCRAM-SHA-256|SCRAM-SHA-512 [--iterations N]
//! cargo run -p kwire-examples --example scram_user -- HOST:PORT [...] delete NAME --mechanism M
//! cargo run -p kwire-examples --example scram_user -- HOST:PORT [...] describe [NAME...]
//! ```
//!
//! `set` derives the salted password from a random salt (32 bytes) and the new user's password,
//! read from the environment variable `KWIRE_NEW_PASSWORD` (never the command line), and sends
//! only that: the broker never sees the password. The connection itself takes the options of
//! the `client` example: `--tls`, `--ca-file`, `--cert`/`--key`, and `--sasl-mechanism` with
//! `--sasl-user` (password from `KWIRE_SASL_PASSWORD` or `--sasl-password-file`) for a broker
//! that requires SASL. Exits 1 when the broker refuses a change.

use std::io::Read;
use std::process::ExitCode;

use kwire::messages::alter_user_scram_credentials_request::{
    ScramCredentialDeletion, ScramCredentialUpsertion,
};
use kwire::messages::describe_user_scram_credentials_request::UserName;
use kwire::messages::{
    AlterUserScramCredentialsRequest, AlterUserScramCredentialsResponse,
    DescribeUserScramCredentialsRequest, DescribeUserScramCredentialsResponse,
};
use kwire::session::Client;
use kwire::session::sasl::ScramHash;
use kwire::{ErrorCode, io::tls};
use kwire_examples::security::{self, Security, SecurityArgs};

type Error = Box<dyn std::error::Error>;

/// The environment variable the new password comes from.
const NEW_PASSWORD: &str = "KWIRE_NEW_PASSWORD";

enum Command {
    Set {
        name: String,
        hash: ScramHash,
        iterations: i32,
    },
    Delete {
        name: String,
        hash: ScramHash,
    },
    Describe {
        names: Vec<String>,
    },
}

fn main() -> ExitCode {
    let (broker, security, command) = match parse_args() {
        Ok(parsed) => parsed,
        Err(e) => {
            eprintln!("scram_user: {e}");
            eprintln!(
                "usage: scram_user HOST:PORT {} \
                 (set NAME --mechanism SCRAM-SHA-256|SCRAM-SHA-512 [--iterations N] \
                 | delete NAME --mechanism M | describe [NAME...])  \
                 (the new password from {NEW_PASSWORD})",
                security::USAGE
            );
            return ExitCode::from(2);
        }
    };
    match run(&broker, &security, &command) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("scram_user: {e}");
            ExitCode::FAILURE
        }
    }
}

fn parse_args() -> Result<(String, Security, Command), Error> {
    let mut args = std::env::args().skip(1);
    let mut security = SecurityArgs::default();
    let mut positional = Vec::new();
    let (mut mechanism, mut iterations) = (None, 8192);
    while let Some(arg) = args.next() {
        let mut value = || args.next().ok_or(format!("{arg} needs a value"));
        if security.take(&arg, &mut value)? {
            continue;
        }
        match arg.as_str() {
            "--mechanism" => mechanism = Some(value()?),
            "--iterations" => iterations = value()?.parse()?,
            a if !a.starts_with('-') => positional.push(a.to_owned()),
            a => return Err(format!("unexpected argument {a}").into()),
        }
    }
    let mut positional = positional.into_iter();
    let broker = positional.next().ok_or("no broker address")?;
    let hash = || {
        let m = mechanism.as_deref().ok_or("--mechanism is needed")?;
        ScramHash::from_mechanism(m).ok_or_else(|| format!("{m} is no SCRAM mechanism"))
    };
    let command = match positional.next().as_deref() {
        Some("set") => Command::Set {
            name: positional.next().ok_or("set: no user name")?,
            hash: hash()?,
            iterations,
        },
        Some("delete") => Command::Delete {
            name: positional.next().ok_or("delete: no user name")?,
            hash: hash()?,
        },
        Some("describe") => Command::Describe {
            names: positional.by_ref().collect(),
        },
        Some(other) => return Err(format!("unknown command {other}").into()),
        None => return Err("no command".into()),
    };
    if positional.next().is_some() {
        return Err("too many arguments".into());
    }
    Ok((broker, security.finish()?, command))
}

/// Kafka's number for a SCRAM mechanism in these APIs.
fn mechanism_number(hash: ScramHash) -> i8 {
    match hash {
        ScramHash::Sha256 => 1,
        ScramHash::Sha512 => 2,
    }
}

fn run(broker: &str, security: &Security, command: &Command) -> Result<(), Error> {
    let client: Client<'_, 1> = Client::negotiating(Some("kwire-scram-user"));
    let mut conn: kwire::io::Connection<'_, tls::Stream, Vec<u8>, 1> =
        security.connect(broker, client)?;
    match command {
        Command::Describe { names } => {
            let users: Vec<UserName<'_>> = names
                .iter()
                .map(|n| UserName::default().with_name(n.as_str()))
                .collect();
            let request = DescribeUserScramCredentialsRequest::default()
                .with_users((!names.is_empty()).then_some((&users[..]).into()));
            let answer = conn.call(&request)?;
            let body: DescribeUserScramCredentialsResponse<'_> = answer.decode_as()?;
            if body.error_code != 0 {
                return Err(refused(body.error_code, body.error_message));
            }
            let mut failed = false;
            for user in body.results.iter() {
                let infos: Vec<String> = user
                    .credential_infos
                    .iter()
                    .map(|c| {
                        let name = match c.mechanism {
                            1 => "SCRAM-SHA-256",
                            2 => "SCRAM-SHA-512",
                            _ => "unknown mechanism",
                        };
                        format!("{name} ({} iterations)", c.iterations)
                    })
                    .collect();
                if user.error_code == 0 {
                    println!("{}: {}", user.user, infos.join(", "));
                } else {
                    failed = true;
                    println!(
                        "{}: {}",
                        user.user,
                        refused(user.error_code, user.error_message)
                    );
                }
            }
            if failed {
                return Err("the broker described no credential of some users".into());
            }
        }
        Command::Set {
            name,
            hash,
            iterations,
        } => {
            let password = std::env::var(NEW_PASSWORD)
                .map_err(|_| format!("set: no password for {name} in {NEW_PASSWORD}"))?;
            let mut salt = [0u8; 32];
            std::fs::File::open("/dev/urandom")?.read_exact(&mut salt)?;
            let mut out = [0u8; 64];
            let rounds = u32::try_from(*iterations)?;
            let salted = hash.salted_password(password.as_bytes(), &salt, rounds, &mut out);
            let upsertion = [ScramCredentialUpsertion::default()
                .with_name(name.as_str())
                .with_mechanism(mechanism_number(*hash))
                .with_iterations(*iterations)
                .with_salt(&salt)
                .with_salted_password(salted)];
            let request = AlterUserScramCredentialsRequest::default().with_upsertions(&upsertion);
            alter(&mut conn, &request)?;
            println!("{name}: {} set ({iterations} iterations)", hash.mechanism());
        }
        Command::Delete { name, hash } => {
            let deletion = [ScramCredentialDeletion::default()
                .with_name(name.as_str())
                .with_mechanism(mechanism_number(*hash))];
            let request = AlterUserScramCredentialsRequest::default().with_deletions(&deletion);
            alter(&mut conn, &request)?;
            println!("{name}: {} deleted", hash.mechanism());
        }
    }
    Ok(())
}

fn alter(
    conn: &mut kwire::io::Connection<'_, tls::Stream, Vec<u8>, 1>,
    request: &AlterUserScramCredentialsRequest<'_>,
) -> Result<(), Error> {
    let answer = conn.call(request)?;
    let body: AlterUserScramCredentialsResponse<'_> = answer.decode_as()?;
    for result in body.results.iter() {
        if result.error_code != 0 {
            return Err(format!(
                "{}: {}",
                result.user,
                refused(result.error_code, result.error_message)
            )
            .into());
        }
    }
    Ok(())
}

/// The broker's refusal in words: its message and the code's name.
fn refused(code: i16, message: Option<kwire::codec::Str<'_>>) -> Error {
    let message = message.map(|m| m.to_string()).unwrap_or_default();
    format!("{message} ({:?})", ErrorCode(code)).into()
}
