//! The TLS and SASL options of the example programs that connect to brokers, parsed once:
//! `--tls`, `--ca-file PEM`, `--cert PEM --key PEM`, and `--sasl-mechanism MECHANISM
//! --sasl-user NAME [--sasl-password-file FILE]` (the password from `KWIRE_SASL_PASSWORD`
//! otherwise, never from the command line).

use std::path::Path;
use std::sync::Arc;

use kwire::io::{self, SaslConfig, tls};
use kwire::session::Client;

/// The options' usage line.
pub const USAGE: &str = "[--tls] [--ca-file PEM] [--cert PEM --key PEM] \
     [--sasl-mechanism PLAIN|SCRAM-SHA-256|SCRAM-SHA-512|OAUTHBEARER --sasl-user NAME \
     [--sasl-password-file FILE]]";

/// The options as given.
#[derive(Debug, Default)]
pub struct SecurityArgs {
    tls: bool,
    ca_file: Option<String>,
    cert: Option<String>,
    key: Option<String>,
    mechanism: Option<String>,
    user: Option<String>,
    password_file: Option<String>,
}

impl SecurityArgs {
    /// Takes `arg`, and its value from `value`, when it is one of these options: whether it
    /// was.
    ///
    /// # Errors
    ///
    /// An option without its value.
    pub fn take(
        &mut self,
        arg: &str,
        value: &mut dyn FnMut() -> Result<String, String>,
    ) -> Result<bool, String> {
        let slot = match arg {
            "--tls" => {
                self.tls = true;
                return Ok(true);
            }
            "--ca-file" => &mut self.ca_file,
            "--cert" => &mut self.cert,
            "--key" => &mut self.key,
            "--sasl-mechanism" => &mut self.mechanism,
            "--sasl-user" => &mut self.user,
            "--sasl-password-file" => &mut self.password_file,
            _ => return Ok(false),
        };
        *slot = Some(value()?);
        Ok(true)
    }

    /// The TLS configuration and SASL login the options ask for.
    ///
    /// # Errors
    ///
    /// Options that go together given alone, files that cannot be read, no password.
    pub fn finish(self) -> Result<Security, String> {
        let identity = match (&self.cert, &self.key) {
            (Some(cert), Some(key)) => Some((Path::new(cert), Path::new(key))),
            (None, None) => None,
            _ => return Err("--cert and --key go together".into()),
        };
        let tls = if self.tls || self.ca_file.is_some() || identity.is_some() {
            let ca_file = self.ca_file.as_deref().map(Path::new);
            Some(tls::client_config(ca_file, identity).map_err(|e| format!("TLS: {e}"))?)
        } else {
            None
        };
        let sasl = match (&self.mechanism, &self.user) {
            (Some(mechanism), Some(user)) => {
                let file = self.password_file.as_deref().map(Path::new);
                Some(SaslConfig::load(mechanism, user, file)?)
            }
            (None, None) => None,
            _ => return Err("--sasl-mechanism and --sasl-user go together".into()),
        };
        Ok(Security { tls, sasl })
    }
}

/// How a program connects: TLS or not, SASL or not.
#[derive(Debug, Default)]
pub struct Security {
    /// TLS for every connection.
    pub tls: Option<Arc<tls::rustls::ClientConfig>>,
    /// The SASL login every connection authenticates with.
    pub sasl: Option<SaslConfig>,
}

impl Security {
    /// Connects to `addr` with `client` as the session, authenticating it first when there is
    /// a login (with fresh credentials).
    ///
    /// # Errors
    ///
    /// As [`tls::connect`], and no random bytes for a SCRAM nonce.
    pub fn connect<'a, const N: usize>(
        &'a self,
        addr: &str,
        mut client: Client<'a, N>,
    ) -> Result<io::Connection<'a, tls::Stream, Vec<u8>, N>, Box<dyn std::error::Error>> {
        if let Some(sasl) = &self.sasl {
            client = client.with_sasl(sasl.credentials()?);
        }
        Ok(tls::connect(addr, self.tls.as_ref(), client)?)
    }
}
