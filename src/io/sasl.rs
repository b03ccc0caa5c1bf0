//! SASL credentials a program holds for all its connections (features `std` and `sasl`).

use alloc::borrow::ToOwned;
use alloc::string::String;
use core::fmt;

use crate::session::sasl::{Credentials, SaslError, ScramHash, nonce_from_random};

extern crate std;

/// The environment variable [`SaslConfig::load`] reads the password or token from when no
/// file is named.
pub const PASSWORD_VAR: &str = "KWIRE_SASL_PASSWORD";

/// A program's SASL login: the mechanism, the user and the password (or OAUTHBEARER token),
/// from which [`SaslConfig::credentials`] makes each connection's credentials, with a fresh
/// SCRAM nonce from the system's random source. The password comes from a file or the
/// environment, never from a command line, where other users of the machine see it; `Debug`
/// does not show it.
#[derive(Clone)]
pub struct SaslConfig {
    mechanism: Mechanism,
    user: String,
    secret: String,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Mechanism {
    Plain,
    Scram(ScramHash),
    OAuthBearer,
}

impl fmt::Debug for SaslConfig {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("SaslConfig")
            .field("mechanism", &self.mechanism())
            .field("user", &self.user)
            .finish_non_exhaustive()
    }
}

impl SaslConfig {
    /// A login with `mechanism` (`PLAIN`, `SCRAM-SHA-256`, `SCRAM-SHA-512` or `OAUTHBEARER`,
    /// as Kafka names them; for OAUTHBEARER `secret` is the token and `user`, when not empty,
    /// the authorization id).
    ///
    /// # Errors
    ///
    /// [`SaslError::InvalidCredentials`] for another mechanism.
    pub fn new(mechanism: &str, user: &str, secret: String) -> Result<Self, SaslError> {
        let mechanism = match mechanism {
            "PLAIN" => Mechanism::Plain,
            "OAUTHBEARER" => Mechanism::OAuthBearer,
            m => Mechanism::Scram(ScramHash::from_mechanism(m).ok_or(
                SaslError::InvalidCredentials(
                    "a mechanism other than PLAIN, SCRAM-SHA-256, SCRAM-SHA-512 and OAUTHBEARER",
                ),
            )?),
        };
        Ok(Self {
            mechanism,
            user: user.to_owned(),
            secret,
        })
    }

    /// [`SaslConfig::new`] with the password or token read from `file` (its first line), or
    /// else from the environment variable [`PASSWORD_VAR`].
    ///
    /// # Errors
    ///
    /// A message naming the file or the variable when neither gives a password, or the
    /// mechanism when it is not one of Kafka's.
    pub fn load(
        mechanism: &str,
        user: &str,
        file: Option<&std::path::Path>,
    ) -> Result<Self, String> {
        let secret = match file {
            Some(path) => std::fs::read_to_string(path)
                .map_err(|e| alloc::format!("{}: {e}", path.display()))?
                .lines()
                .next()
                .unwrap_or_default()
                .to_owned(),
            None => std::env::var(PASSWORD_VAR).map_err(|_| {
                alloc::format!("no SASL password: set {PASSWORD_VAR} or name a password file")
            })?,
        };
        Self::new(mechanism, user, secret).map_err(|e| alloc::format!("SASL: {e}"))
    }

    /// The mechanism, as Kafka names it.
    #[must_use]
    pub const fn mechanism(&self) -> &'static str {
        match self.mechanism {
            Mechanism::Plain => "PLAIN",
            Mechanism::Scram(hash) => hash.mechanism(),
            Mechanism::OAuthBearer => "OAUTHBEARER",
        }
    }

    /// The user name.
    #[must_use]
    pub fn user(&self) -> &str {
        &self.user
    }

    /// The credentials for one connection ([`Client::with_sasl`](crate::session::Client::with_sasl)),
    /// with a fresh SCRAM nonce: 18 bytes of the system's random source, base64-encoded.
    ///
    /// # Errors
    ///
    /// [`SaslError::InvalidCredentials`] when the system has no random bytes to give.
    pub fn credentials(&self) -> Result<Credentials<'_>, SaslError> {
        let (user, secret) = (self.user.as_str(), self.secret.as_str());
        Ok(match self.mechanism {
            Mechanism::Plain => Credentials::plain(user, secret),
            Mechanism::Scram(hash) => {
                let mut random = [0u8; 18];
                getrandom::getrandom(&mut random)
                    .map_err(|_| SaslError::InvalidCredentials("no random bytes for a nonce"))?;
                let mut nonce = [0u8; 24];
                Credentials::scram(hash, user, secret, nonce_from_random(&random, &mut nonce)?)
            }
            Mechanism::OAuthBearer if user.is_empty() => Credentials::oauth_bearer(secret),
            Mechanism::OAuthBearer => Credentials::oauth_bearer(secret).with_authzid(user),
        })
    }
}

#[cfg(test)]
mod tests {
    use alloc::format;
    use alloc::vec::Vec;

    use super::SaslConfig;

    #[test]
    fn each_connection_gets_a_fresh_nonce() {
        let login = SaslConfig::new("SCRAM-SHA-512", "alice", "pw".into()).unwrap();
        assert_eq!(login.mechanism(), "SCRAM-SHA-512");
        let (a, b) = (login.credentials().unwrap(), login.credentials().unwrap());
        let first = |c: crate::session::sasl::Credentials<'_>| -> Vec<u8> {
            let mut out = [0u8; 128];
            let mut client = crate::session::sasl::SaslClient::new(c);
            let n = client.start(&mut out).unwrap();
            out[..n].to_vec()
        };
        assert_ne!(first(a), first(b));
        assert!(!format!("{login:?}").contains("pw"));
        assert!(SaslConfig::new("GSSAPI", "alice", "pw".into()).is_err());
        let token = SaslConfig::new("OAUTHBEARER", "", "t0ken".into()).unwrap();
        assert_eq!(token.credentials().unwrap().mechanism(), "OAUTHBEARER");
    }
}
