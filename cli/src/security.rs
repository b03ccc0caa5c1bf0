//! How a command connects to a broker: TLS and SASL, the options `kwire probe` and `kwire tap`
//! (towards its upstream) share.

use std::path::PathBuf;
use std::sync::Arc;

use kwire::io::SaslConfig;
use kwire::io::tls;

/// TLS and SASL towards a broker. The password or token comes from a file or the environment
/// variable `KWIRE_SASL_PASSWORD`, never from the command line.
#[derive(Debug, Clone, Default, clap::Args)]
pub struct Security {
    /// Connect over TLS, the broker's certificate checked against the system's roots (or only
    /// the CAs of --ca-file) for the host named.
    #[arg(long)]
    pub tls: bool,
    /// Trust only the CAs of this PEM file (implies --tls).
    #[arg(long, value_name = "PEM")]
    pub ca_file: Option<PathBuf>,
    /// Show this client certificate, a PEM chain (mutual TLS; implies --tls).
    #[arg(long, value_name = "PEM", requires = "key")]
    pub cert: Option<PathBuf>,
    /// The private key of --cert, PEM.
    #[arg(long, value_name = "PEM", requires = "cert")]
    pub key: Option<PathBuf>,
    /// Authenticate with SASL: PLAIN, SCRAM-SHA-256, SCRAM-SHA-512 or OAUTHBEARER (the secret
    /// is then the token).
    #[arg(long, value_name = "MECHANISM", requires = "sasl_user")]
    pub sasl_mechanism: Option<String>,
    /// The SASL user (for OAUTHBEARER, the authorization id; may be empty).
    #[arg(long, value_name = "NAME", requires = "sasl_mechanism")]
    pub sasl_user: Option<String>,
    /// Read the SASL password or token from the first line of this file instead of
    /// `KWIRE_SASL_PASSWORD`.
    #[arg(long, value_name = "FILE", requires = "sasl_mechanism")]
    pub sasl_password_file: Option<PathBuf>,
}

impl Security {
    /// The TLS configuration, when TLS is asked for.
    ///
    /// # Errors
    ///
    /// A message naming the file that cannot be read or the configuration rustls refused.
    pub fn tls(&self) -> Result<Option<Arc<tls::rustls::ClientConfig>>, String> {
        if !self.tls && self.ca_file.is_none() && self.cert.is_none() {
            return Ok(None);
        }
        let identity = self.cert.as_deref().zip(self.key.as_deref());
        tls::client_config(self.ca_file.as_deref(), identity)
            .map(Some)
            .map_err(|e| format!("TLS: {e}"))
    }

    /// The SASL login, when SASL is asked for: it lives as long as the program, which its
    /// connections borrow from.
    ///
    /// # Errors
    ///
    /// A message when no password can be read or the mechanism is not one of Kafka's.
    pub fn sasl(&self) -> Result<Option<&'static SaslConfig>, String> {
        let (Some(mechanism), Some(user)) = (&self.sasl_mechanism, &self.sasl_user) else {
            return Ok(None);
        };
        let login = SaslConfig::load(mechanism, user, self.sasl_password_file.as_deref())?;
        Ok(Some(Box::leak(Box::new(login))))
    }
}
