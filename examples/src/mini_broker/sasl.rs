//! SASL for the broker (`--sasl USERS_FILE`): the users, and one connection's authentication
//! with PLAIN, SCRAM-SHA-256 or SCRAM-SHA-512, as Kafka's broker runs it. Before a connection is
//! authenticated it serves ApiVersions, SaslHandshake and SaslAuthenticate only, and closes on
//! anything else; a refused authentication is answered with `SASL_AUTHENTICATION_FAILED` and
//! Kafka's message, then the connection is closed.

use std::collections::HashMap;
use std::fmt;
use std::sync::{PoisonError, RwLock};

use kwire::ErrorCode;
use kwire::codec::Str;
use kwire::messages::alter_user_scram_credentials_response::AlterUserScramCredentialsResult;
use kwire::messages::describe_user_scram_credentials_response::{
    CredentialInfo, DescribeUserScramCredentialsResult,
};
use kwire::messages::{
    AlterUserScramCredentialsRequest, AlterUserScramCredentialsResponse,
    DescribeUserScramCredentialsRequest, DescribeUserScramCredentialsResponse,
    SaslAuthenticateRequest, SaslAuthenticateResponse, SaslHandshakeRequest, SaslHandshakeResponse,
};
use kwire::session::sasl::server::{Plain, ScramCredential, ScramServer};
use kwire::session::sasl::{SaslError, ScramHash};

use super::broker::encode;

/// The mechanisms offered, in the order the SaslHandshake answer lists them.
pub const MECHANISMS: [&str; 3] = ["PLAIN", "SCRAM-SHA-256", "SCRAM-SHA-512"];

/// PBKDF2 iterations of the SCRAM credentials derived from the users' passwords (Kafka's
/// default).
const ITERATIONS: u32 = 4096;

/// The users a broker that requires SASL knows: each name with its password (for PLAIN) and the
/// SCRAM credentials it gives, as Kafka stores them (salt, iterations, StoredKey, ServerKey).
/// Authenticated clients manage the SCRAM credentials with AlterUserScramCredentials and read
/// them with DescribeUserScramCredentials (the mini broker has no ACLs: any user may).
pub struct Users {
    by_name: RwLock<HashMap<String, User>>,
}

struct User {
    /// The file's password, for PLAIN; none for a user made by AlterUserScramCredentials.
    password: Option<String>,
    /// SCRAM-SHA-256's credential, then SCRAM-SHA-512's.
    scram: [Option<ScramCredential>; 2],
}

/// The mechanism numbers of the SCRAM credential APIs: 1 is SCRAM-SHA-256, 2 SCRAM-SHA-512.
fn hash_of(mechanism: i8) -> Option<ScramHash> {
    match mechanism {
        1 => Some(ScramHash::Sha256),
        2 => Some(ScramHash::Sha512),
        _ => None,
    }
}

impl fmt::Debug for Users {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let by_name = self.read();
        let mut names: Vec<&str> = by_name.keys().map(String::as_str).collect();
        names.sort_unstable();
        f.debug_struct("Users")
            .field("names", &names)
            .finish_non_exhaustive()
    }
}

impl Users {
    /// Reads a users file: one `name:password` per line (the password is the rest of the line
    /// after the first `:`); empty lines and lines starting with `#` are skipped.
    ///
    /// # Errors
    ///
    /// A line without `:` or with an empty name or password (its number), or a file that
    /// cannot be read.
    pub fn load(path: &str) -> Result<Self, String> {
        let text = std::fs::read_to_string(path).map_err(|e| format!("{path}: {e}"))?;
        let mut pairs = Vec::new();
        for (i, line) in text.lines().enumerate() {
            let line = line.trim_end_matches('\r');
            if line.trim().is_empty() || line.starts_with('#') {
                continue;
            }
            match line.split_once(':') {
                Some((name, password)) if !name.is_empty() && !password.is_empty() => {
                    pairs.push((name.to_owned(), password.to_owned()));
                }
                _ => return Err(format!("{path}:{}: not `name:password`", i + 1)),
            }
        }
        Self::new(pairs)
    }

    /// The users `pairs` of a name and a password.
    ///
    /// # Errors
    ///
    /// A name that cannot hold a SCRAM credential (none can fail today).
    pub fn new(pairs: Vec<(String, String)>) -> Result<Self, String> {
        let mut by_name = HashMap::new();
        for (name, password) in pairs {
            // A salt of the user's own: the name and a counter (a broker that stores
            // credentials makes it random).
            let salt = format!("kwire-mini-broker-salt-{name}-{}", by_name.len());
            let salt = &salt.as_bytes()[..salt.len().min(64)];
            let derive = |hash| {
                ScramCredential::derive(hash, password.as_bytes(), salt, ITERATIONS)
                    .map_err(|e| format!("user {name}: {e}"))
            };
            let scram = [
                Some(derive(ScramHash::Sha256)?),
                Some(derive(ScramHash::Sha512)?),
            ];
            let password = Some(password);
            by_name.insert(name, User { password, scram });
        }
        Ok(Self {
            by_name: RwLock::new(by_name),
        })
    }

    fn read(&self) -> std::sync::RwLockReadGuard<'_, HashMap<String, User>> {
        self.by_name.read().unwrap_or_else(PoisonError::into_inner)
    }

    /// How many users there are.
    #[must_use]
    pub fn len(&self) -> usize {
        self.read().len()
    }

    /// Whether there are none.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.read().is_empty()
    }

    fn scram(&self, name: &str, hash: ScramHash) -> Option<ScramCredential> {
        self.read().get(name)?.scram[usize::from(hash == ScramHash::Sha512)]
    }

    fn plain_ok(&self, plain: &Plain<'_>) -> bool {
        self.read()
            .get(plain.username)
            .and_then(|u| u.password.as_deref())
            .is_some_and(|p| plain.password_is(p))
    }

    /// Answers an AlterUserScramCredentials request: each deletion and upsertion applied, one
    /// result per user named, the first error of the user's changes in it (a user with an error
    /// is left as it was), as Kafka answers.
    ///
    /// # Errors
    ///
    /// An answer that cannot be encoded.
    pub fn alter(
        &self,
        id: i32,
        r: &AlterUserScramCredentialsRequest<'_>,
        v: i16,
    ) -> Result<Vec<u8>, String> {
        // Each user's changes: (mechanism, the new credential or None to delete), or an error.
        type Changes = Result<Vec<(ScramHash, Option<ScramCredential>)>, (ErrorCode, String)>;
        let mut order: Vec<String> = Vec::new();
        let mut changes: HashMap<String, Changes> = HashMap::new();
        let mut note = |name: String,
                        change: Result<
            (ScramHash, Option<ScramCredential>),
            (ErrorCode, String),
        >| {
            if !changes.contains_key(&name) {
                order.push(name.clone());
            }
            let entry = changes.entry(name).or_insert_with(|| Ok(Vec::new()));
            let error = match (&mut *entry, change) {
                (Err(_), _) => None,
                (Ok(_), Err(e)) => Some(e),
                (Ok(list), Ok((hash, _))) if list.iter().any(|(h, _)| *h == hash) => Some((
                    ErrorCode::DUPLICATE_RESOURCE,
                    format!("{} twice for one user", hash.mechanism()),
                )),
                (Ok(list), Ok(change)) => {
                    list.push(change);
                    None
                }
            };
            if let Some(e) = error {
                *entry = Err(e);
            }
        };
        let unknown = |m: i8| {
            (
                ErrorCode::UNSUPPORTED_SASL_MECHANISM,
                format!("unknown SCRAM mechanism {m}"),
            )
        };
        for d in r.deletions.iter() {
            let name = d.name.to_string_lossy().into_owned();
            note(
                name,
                hash_of(d.mechanism)
                    .map(|h| (h, None))
                    .ok_or_else(|| unknown(d.mechanism)),
            );
        }
        for u in r.upsertions.iter() {
            let name = u.name.to_string_lossy().into_owned();
            let change = hash_of(u.mechanism)
                .ok_or_else(|| unknown(u.mechanism))
                .and_then(|hash| {
                    let iterations = u32::try_from(u.iterations).unwrap_or(0);
                    ScramCredential::from_salted_password(
                        hash,
                        u.salt,
                        iterations,
                        u.salted_password,
                    )
                    .map(|c| (hash, Some(c)))
                    .map_err(|e| (ErrorCode::UNACCEPTABLE_CREDENTIAL, e.to_string()))
                });
            note(name, change);
        }
        let mut by_name = self.by_name.write().unwrap_or_else(PoisonError::into_inner);
        let mut results = Vec::new();
        for name in order {
            let outcome = match changes.remove(&name) {
                Some(Ok(list)) => apply(&mut by_name, &name, &list),
                Some(Err(e)) => Err(e),
                None => Ok(()),
            };
            results.push((name, outcome));
        }
        drop(by_name);
        let rows: Vec<AlterUserScramCredentialsResult<'_>> = results
            .iter()
            .map(|(name, outcome)| {
                let (code, message) = match outcome {
                    Ok(()) => (ErrorCode::NONE, None),
                    Err((code, why)) => (*code, Some(why.as_str())),
                };
                AlterUserScramCredentialsResult::default()
                    .with_user(name.as_str())
                    .with_error_code(code.0)
                    .with_error_message(message)
            })
            .collect();
        let body = AlterUserScramCredentialsResponse::default().with_results(&rows[..]);
        encode(id, &body, v)
    }

    /// Answers a DescribeUserScramCredentials request: the mechanisms and iteration counts of
    /// the users named (every user with a SCRAM credential when none is, as for a null or empty
    /// list in Kafka), never a secret.
    ///
    /// # Errors
    ///
    /// An answer that cannot be encoded.
    pub fn describe(
        &self,
        id: i32,
        r: &DescribeUserScramCredentialsRequest<'_>,
        v: i16,
    ) -> Result<Vec<u8>, String> {
        let by_name = self.read();
        // Null or empty: every user.
        let names: Vec<String> = match r.users.as_ref().filter(|u| !u.is_empty()) {
            Some(users) => users
                .iter()
                .map(|u| u.name.to_string_lossy().into_owned())
                .collect(),
            None => {
                let mut all: Vec<String> = by_name
                    .iter()
                    .filter(|(_, u)| u.scram.iter().any(Option::is_some))
                    .map(|(n, _)| n.clone())
                    .collect();
                all.sort_unstable();
                all
            }
        };
        let infos: Vec<Vec<CredentialInfo<'_>>> = names
            .iter()
            .map(|name| {
                let user = by_name.get(name);
                [(1, 0), (2, 1)]
                    .into_iter()
                    .filter_map(|(mechanism, slot)| {
                        let c = user?.scram[slot]?;
                        Some(
                            CredentialInfo::default()
                                .with_mechanism(mechanism)
                                .with_iterations(i32::try_from(c.iterations()).unwrap_or(i32::MAX)),
                        )
                    })
                    .collect()
            })
            .collect();
        let rows: Vec<DescribeUserScramCredentialsResult<'_>> = names
            .iter()
            .zip(&infos)
            .map(|(name, infos)| {
                let row = DescribeUserScramCredentialsResult::default().with_user(name.as_str());
                if infos.is_empty() {
                    row.with_error_code(ErrorCode::RESOURCE_NOT_FOUND.0)
                        .with_error_message(Some(
                            "Attempt to describe a user credential that does not exist",
                        ))
                } else {
                    row.with_credential_infos(&infos[..])
                }
            })
            .collect();
        let body = DescribeUserScramCredentialsResponse::default().with_results(&rows[..]);
        encode(id, &body, v)
    }
}

/// Applies one user's checked changes; a deletion of a credential the user does not have is
/// `RESOURCE_NOT_FOUND`, and nothing of that user changes.
fn apply(
    by_name: &mut HashMap<String, User>,
    name: &str,
    changes: &[(ScramHash, Option<ScramCredential>)],
) -> Result<(), (ErrorCode, String)> {
    let mut user = match by_name.get(name) {
        Some(u) => User {
            password: u.password.clone(),
            scram: u.scram,
        },
        None => User {
            password: None,
            scram: [None, None],
        },
    };
    for (hash, credential) in changes {
        let slot = &mut user.scram[usize::from(*hash == ScramHash::Sha512)];
        if credential.is_none() && slot.is_none() {
            return Err((
                ErrorCode::RESOURCE_NOT_FOUND,
                "Attempt to delete a user credential that does not exist".into(),
            ));
        }
        *slot = *credential;
    }
    by_name.insert(name.to_owned(), user);
    Ok(())
}

/// The mechanism a connection's handshake chose.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Mechanism {
    Plain,
    Scram(ScramHash),
}

impl Mechanism {
    fn name(self) -> &'static str {
        match self {
            Self::Plain => "PLAIN",
            Self::Scram(hash) => hash.mechanism(),
        }
    }
}

/// One connection's authentication.
#[derive(Debug, Default)]
pub struct Session {
    mechanism: Option<Mechanism>,
    /// A SCRAM exchange between its two messages, with the user it is for.
    scram: Option<(ScramServer, String)>,
    /// The authenticated user.
    user: Option<String>,
    /// The handshake was version 0: the mechanism's messages come as raw tokens, each a
    /// size-prefixed frame without a request header, and are answered alike.
    raw: bool,
    /// A handshake opened an exchange that has not ended in success yet.
    open: bool,
}

/// What the connection does after an answer of the authentication.
#[derive(Debug, PartialEq, Eq)]
pub enum Then {
    /// Goes on.
    Continue,
    /// Closes, after the answer is sent: the authentication failed, for this reason (which
    /// names no secret).
    Close(String),
}

impl Session {
    /// The authenticated user, once there is one.
    #[must_use]
    pub fn user(&self) -> Option<&str> {
        self.user.as_deref()
    }

    /// Whether the next frame is a raw token (after a SaslHandshake v0) rather than a request.
    #[must_use]
    pub fn raw_tokens(&self) -> bool {
        self.raw && self.user.is_none()
    }

    /// Answers a raw token (`frame`, size prefix included) after a SaslHandshake v0: the
    /// mechanism's next message as a size-prefixed frame, or nothing and the connection closed
    /// when the authentication fails (v0 has no way to say why).
    pub fn raw_token(&mut self, users: &Users, frame: &[u8]) -> (Option<Vec<u8>>, Then) {
        let Some(mechanism) = self.mechanism.filter(|_| self.open) else {
            return (None, Then::Close("a token before the handshake".into()));
        };
        let token = frame.get(kwire::frame::SIZE_LEN..).unwrap_or_default();
        let mut answer = [0u8; 512];
        match self.step(users, mechanism, token, &mut answer) {
            Ok(n) => {
                let mut reply = u32::try_from(n).unwrap_or(0).to_be_bytes().to_vec();
                reply.extend_from_slice(&answer[..n]);
                (Some(reply), Then::Continue)
            }
            Err(e) => (None, Then::Close(e.to_string())),
        }
    }

    /// Answers a SaslHandshake request: the mechanisms offered, and
    /// `UNSUPPORTED_SASL_MECHANISM` for one of others. Once authenticated, a handshake (v1)
    /// starts a re-authentication (KIP-368), which must end as the same user; a v0 one is
    /// `ILLEGAL_SASL_STATE`.
    ///
    /// # Errors
    ///
    /// An answer that cannot be encoded.
    pub fn handshake(
        &mut self,
        id: i32,
        r: &SaslHandshakeRequest<'_>,
        v: i16,
    ) -> Result<Vec<u8>, String> {
        let asked = r.mechanism.as_bytes();
        let mechanism = match asked {
            b"PLAIN" => Some(Mechanism::Plain),
            _ => core::str::from_utf8(asked)
                .ok()
                .and_then(ScramHash::from_mechanism)
                .map(Mechanism::Scram),
        };
        let code = match (mechanism, &self.user) {
            (_, Some(_)) if v == 0 => ErrorCode::ILLEGAL_SASL_STATE,
            (None, _) => ErrorCode::UNSUPPORTED_SASL_MECHANISM,
            (Some(_), _) => ErrorCode::NONE,
        };
        if code == ErrorCode::NONE {
            self.mechanism = mechanism;
            self.scram = None;
            self.raw = v == 0;
            self.open = true;
        }
        let offered = MECHANISMS.map(Str::new);
        let body = SaslHandshakeResponse::default()
            .with_error_code(code.0)
            .with_mechanisms(&offered);
        encode(id, &body, v)
    }

    /// Answers a SaslAuthenticate request: the mechanism's next message, or
    /// `SASL_AUTHENTICATION_FAILED` with Kafka's message, after which the connection closes.
    ///
    /// # Errors
    ///
    /// An answer that cannot be encoded.
    pub fn authenticate(
        &mut self,
        users: &Users,
        id: i32,
        r: &SaslAuthenticateRequest<'_>,
        v: i16,
    ) -> Result<(Vec<u8>, Then), String> {
        let Some(mechanism) = self.mechanism.filter(|_| self.open) else {
            // Once authenticated, Kafka answers a stray one and keeps the connection; before,
            // its authenticator closes it.
            let (message, then) = match self.user {
                Some(_) => (
                    "SaslAuthenticate request received after successful authentication",
                    Then::Continue,
                ),
                None => (
                    "SaslAuthenticate before SaslHandshake",
                    Then::Close("SaslAuthenticate before SaslHandshake".into()),
                ),
            };
            let body = SaslAuthenticateResponse::default()
                .with_error_code(ErrorCode::ILLEGAL_SASL_STATE.0)
                .with_error_message(Some(message));
            return Ok((encode(id, &body, v)?, then));
        };
        let mut answer = [0u8; 512];
        let before = self.user.clone();
        match self.step(users, mechanism, r.auth_bytes, &mut answer) {
            Ok(_) if before.is_some() && self.user.is_some() && self.user != before => {
                let body = SaslAuthenticateResponse::default()
                    .with_error_code(ErrorCode::SASL_AUTHENTICATION_FAILED.0)
                    .with_error_message(Some("Cannot change principals during re-authentication"));
                let why = "re-authenticated as another user".into();
                Ok((encode(id, &body, v)?, Then::Close(why)))
            }
            Ok(n) => {
                let body = SaslAuthenticateResponse::default().with_auth_bytes(&answer[..n]);
                Ok((encode(id, &body, v)?, Then::Continue))
            }
            Err(e) => {
                let message = format!(
                    "Authentication failed during authentication due to invalid credentials \
                     with SASL mechanism {}",
                    mechanism.name()
                );
                let body = SaslAuthenticateResponse::default()
                    .with_error_code(ErrorCode::SASL_AUTHENTICATION_FAILED.0)
                    .with_error_message(Some(&message));
                Ok((encode(id, &body, v)?, Then::Close(e.to_string())))
            }
        }
    }

    /// One message of the mechanism: the answer's length in `answer`.
    fn step(
        &mut self,
        users: &Users,
        mechanism: Mechanism,
        message: &[u8],
        answer: &mut [u8],
    ) -> Result<usize, SaslError> {
        let hash = match mechanism {
            Mechanism::Plain => {
                let plain = Plain::read(message)?;
                if !users.plain_ok(&plain) {
                    return Err(SaslError::State);
                }
                self.user = Some(plain.username.to_owned());
                self.open = false;
                return Ok(0);
            }
            Mechanism::Scram(hash) => hash,
        };
        match self.scram.take() {
            None => {
                let mut name = String::new();
                let nonce = server_nonce();
                let (scram, n) = ScramServer::start(
                    message,
                    |user| {
                        user.clone_into(&mut name);
                        users.scram(user, hash)
                    },
                    nonce.as_bytes(),
                    answer,
                )?;
                self.scram = Some((scram, name));
                Ok(n)
            }
            Some((scram, name)) => {
                let n = scram.finish(message, answer)?;
                self.user = Some(name);
                self.open = false;
                Ok(n)
            }
        }
    }
}

/// A fresh server nonce: printable, from the process's hasher seeds and the clock. Enough for a
/// test broker; a broker that guards anything takes it from a cryptographic source.
fn server_nonce() -> String {
    use std::collections::hash_map::RandomState;
    use std::hash::{BuildHasher, Hasher};
    let mut h = RandomState::new().build_hasher();
    h.write_u128(
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos()),
    );
    let a = h.finish();
    let b = RandomState::new().hash_one(a);
    format!("{a:016x}{b:016x}")
}
