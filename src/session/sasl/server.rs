//! The server's side of PLAIN and SCRAM: what a broker built on kwire checks before it serves
//! a connection.
//!
//! A SCRAM server keeps, per user, what Kafka keeps ([`ScramCredential`]: the salt, the
//! iteration count, `StoredKey` and `ServerKey`), never the password. [`ScramServer`] reads the
//! client's two messages and writes the server's; a wrong password is
//! [`SaslError::Rejected`] with the reason RFC 5802 names (`invalid-proof`), as is an unknown
//! user (`unknown-user`). The caller answers the SaslAuthenticate request with Kafka's error
//! code for it (`SASL_AUTHENTICATION_FAILED`) and the broker's message.

use crate::session::buffer::copy;
use core::fmt;

use super::scram::{self, Key, base64_decode, keys, nonce_ok, put_base64, sign_both};
use super::{Out, SaslError, ScramHash, ServerReason};

/// The longest SCRAM salt a credential holds, in bytes.
pub const MAX_SALT: usize = 64;

/// A user's SCRAM credential as Kafka stores it (`salt`, `iterations`, `StoredKey`,
/// `ServerKey`): enough to check a client's proof and to prove the server's knowledge, not to
/// recover the password.
///
/// `Debug` shows the hash and the iteration count only.
#[derive(Clone, Copy)]
pub struct ScramCredential {
    hash: ScramHash,
    salt: [u8; MAX_SALT],
    salt_len: usize,
    iterations: u32,
    stored_key: Key,
    server_key: Key,
}

impl ScramCredential {
    /// The credential `password` gives with `salt` and `iterations`, for `hash`.
    ///
    /// # Errors
    ///
    /// [`SaslError::InvalidCredentials`] for an empty salt or one over [`MAX_SALT`] bytes, or
    /// fewer iterations than [`MIN_ITERATIONS`](super::MIN_ITERATIONS).
    pub fn derive(
        hash: ScramHash,
        password: &[u8],
        salt: &[u8],
        iterations: u32,
    ) -> Result<Self, SaslError> {
        let mut credential = Self::checked(hash, salt, iterations)?;
        let keys = keys(hash, password, salt, iterations);
        credential.stored_key = keys.stored;
        credential.server_key = keys.server;
        Ok(credential)
    }

    /// [`ScramCredential::derive`] for SCRAM-SHA-256.
    ///
    /// # Errors
    ///
    /// As [`ScramCredential::derive`].
    pub fn sha256(password: &[u8], salt: &[u8], iterations: u32) -> Result<Self, SaslError> {
        Self::derive(ScramHash::Sha256, password, salt, iterations)
    }

    /// [`ScramCredential::derive`] for SCRAM-SHA-512.
    ///
    /// # Errors
    ///
    /// As [`ScramCredential::derive`].
    pub fn sha512(password: &[u8], salt: &[u8], iterations: u32) -> Result<Self, SaslError> {
        Self::derive(ScramHash::Sha512, password, salt, iterations)
    }

    /// The credential of a `SaltedPassword` ([`ScramHash::salted_password`]), as Kafka's
    /// AlterUserScramCredentials request carries it with its salt and iterations.
    ///
    /// # Errors
    ///
    /// [`SaslError::InvalidCredentials`] as for [`ScramCredential::derive`], and for a salted
    /// password whose length is not the hash's.
    pub fn from_salted_password(
        hash: ScramHash,
        salt: &[u8],
        iterations: u32,
        salted_password: &[u8],
    ) -> Result<Self, SaslError> {
        let mut credential = Self::checked(hash, salt, iterations)?;
        if salted_password.len() != hash.output_len() {
            return Err(SaslError::InvalidCredentials(
                "a salted password whose length is not the hash's",
            ));
        }
        let keys = super::scram::keys_of_salted(hash, salted_password);
        credential.stored_key = keys.stored;
        credential.server_key = keys.server;
        Ok(credential)
    }

    /// A credential from its stored parts, as Kafka keeps them (the salt and the salted
    /// password's keys).
    ///
    /// # Errors
    ///
    /// [`SaslError::InvalidCredentials`] as for [`ScramCredential::derive`], and for a key
    /// whose length is not the hash's.
    pub fn from_parts(
        hash: ScramHash,
        salt: &[u8],
        iterations: u32,
        stored_key: &[u8],
        server_key: &[u8],
    ) -> Result<Self, SaslError> {
        let mut credential = Self::checked(hash, salt, iterations)?;
        let bad = SaslError::InvalidCredentials("a key whose length is not the hash's");
        if stored_key.len() != hash.output_len() || server_key.len() != hash.output_len() {
            return Err(bad);
        }
        credential.stored_key = Key::new(stored_key).ok_or(bad)?;
        credential.server_key = Key::new(server_key).ok_or(bad)?;
        Ok(credential)
    }

    /// A credential without keys yet, its salt and iterations checked.
    fn checked(hash: ScramHash, salt: &[u8], iterations: u32) -> Result<Self, SaslError> {
        if iterations < super::MIN_ITERATIONS {
            return Err(SaslError::InvalidCredentials(
                "fewer than 4096 SCRAM iterations",
            ));
        }
        let mut bytes = [0u8; MAX_SALT];
        match bytes.get_mut(..salt.len()) {
            Some(to) if !salt.is_empty() => copy(to, salt),
            _ => {
                return Err(SaslError::InvalidCredentials(
                    "a SCRAM salt that is empty or over 64 bytes",
                ));
            }
        }
        Ok(Self {
            hash,
            salt: bytes,
            salt_len: salt.len(),
            iterations,
            stored_key: Key::EMPTY,
            server_key: Key::EMPTY,
        })
    }

    /// The mechanism's hash.
    #[must_use]
    pub const fn hash(&self) -> ScramHash {
        self.hash
    }

    /// The salt.
    #[must_use]
    pub fn salt(&self) -> &[u8] {
        self.salt.get(..self.salt_len).unwrap_or_default()
    }

    /// The PBKDF2 iteration count.
    #[must_use]
    pub const fn iterations(&self) -> u32 {
        self.iterations
    }

    /// `StoredKey`: the hash of the client key.
    #[must_use]
    pub fn stored_key(&self) -> &[u8] {
        self.stored_key.as_slice()
    }

    /// `ServerKey`: what the server signs with.
    #[must_use]
    pub fn server_key(&self) -> &[u8] {
        self.server_key.as_slice()
    }
}

impl fmt::Debug for ScramCredential {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ScramCredential")
            .field("hash", &self.hash)
            .field("iterations", &self.iterations)
            .finish_non_exhaustive()
    }
}

/// The longest combined nonce (the client's and the server's) a [`ScramServer`] keeps.
const MAX_NONCE: usize = 192;

/// A SCRAM exchange on the server's side, between the client's first message and its last.
///
/// It keeps the two first messages (at most 768 bytes), which the AuthMessage both sides sign
/// starts with.
#[derive(Clone)]
pub struct ScramServer {
    credential: ScramCredential,
    nonce: heapless::Vec<u8, MAX_NONCE>,
    /// The GS2 header's flag: `n` or `y`, which the final message's channel binding repeats.
    binding: u8,
    token: bool,
    /// The client-first message without its GS2 header, and the server-first message, as the
    /// AuthMessage's start: hashed again with the final message.
    first: FirstMessages,
}

/// The two first messages of an exchange, kept to sign the AuthMessage.
#[derive(Clone)]
struct FirstMessages {
    bytes: heapless::Vec<u8, 768>,
}

impl fmt::Debug for ScramServer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ScramServer")
            .field("credential", &self.credential)
            .field("token", &self.token)
            .finish_non_exhaustive()
    }
}

/// Returned on a failed check: the exchange is over.
fn rejected(reason: &str) -> SaslError {
    SaslError::Rejected(ServerReason::new(reason.as_bytes()))
}

impl ScramServer {
    /// Reads the client-first message `client`, finds the user's credential with `lookup`
    /// (given the user name, `=2C` and `=3D` unescaped), and writes the server-first message
    /// into `out`, with `server_nonce` (printable ASCII but `,`, fresh and unpredictable)
    /// appended to the client's nonce. Returns the exchange and the message's length.
    ///
    /// # Errors
    ///
    /// [`SaslError::Malformed`] for a message that is not a client-first message, or asks for
    /// channel binding; [`SaslError::Rejected`] (`unknown-user`) when `lookup` finds no
    /// credential; [`SaslError::InvalidCredentials`] for a bad `server_nonce`;
    /// [`SaslError::BufferTooSmall`].
    pub fn start(
        client: &[u8],
        lookup: impl FnOnce(&str) -> Option<ScramCredential>,
        server_nonce: &[u8],
        out: &mut [u8],
    ) -> Result<(Self, usize), SaslError> {
        if !nonce_ok(server_nonce) {
            return Err(SaslError::InvalidCredentials(
                "a SCRAM nonce that is empty or holds a character other than printable ASCII but ','",
            ));
        }
        let first = read_client_first(client)?;
        let mut name = [0u8; 256];
        let user = unescape(first.username, &mut name)?;
        let credential = lookup(user).ok_or_else(|| rejected("unknown-user"))?;
        let mut nonce = heapless::Vec::new();
        nonce
            .extend_from_slice(first.nonce)
            .and_then(|()| nonce.extend_from_slice(server_nonce))
            .map_err(|_| SaslError::Malformed("a nonce over 192 bytes"))?;
        let mut w = Out::new(out);
        w.put(b"r=");
        w.put(&nonce);
        w.put(b",s=");
        put_base64(&mut w, credential.salt());
        w.put(b",i=");
        let mut digits = [0u8; 10];
        w.put(decimal(credential.iterations, &mut digits));
        let n = w.finish()?;
        let mut bytes = heapless::Vec::new();
        for part in [first.bare, b",", out.get(..n).unwrap_or_default(), b","] {
            bytes
                .extend_from_slice(part)
                .map_err(|_| SaslError::Malformed("first messages over 768 bytes"))?;
        }
        Ok((
            Self {
                credential,
                nonce,
                binding: first.binding,
                token: first.token,
                first: FirstMessages { bytes },
            },
            n,
        ))
    }

    /// Whether the client asked for Kafka's `tokenauth` extension: the user name is a
    /// delegation token's id, and the credential looked up must be the token's.
    #[must_use]
    pub const fn token_auth(&self) -> bool {
        self.token
    }

    /// Reads the client-final message `client`, checks its proof against the stored key, and
    /// writes the server-final message (the server's signature) into `out`: its length.
    ///
    /// # Errors
    ///
    /// [`SaslError::Rejected`] (`invalid-proof`) for a wrong password;
    /// [`SaslError::Malformed`] for a message that is not a client-final message, or whose
    /// nonce or channel binding is not this exchange's; [`SaslError::BufferTooSmall`].
    pub fn finish(&self, client: &[u8], out: &mut [u8]) -> Result<usize, SaslError> {
        let at = client
            .windows(3)
            .rposition(|w| w == b",p=")
            .ok_or(SaslError::Malformed("the proof (p=)"))?;
        let (without_proof, proof) = client.split_at_checked(at).unwrap_or_default();
        let proof = proof.get(3..).unwrap_or_default();
        let mut attrs = without_proof.split(|&b| b == b',');
        let binding = attrs.next().and_then(|a| a.strip_prefix(b"c="));
        let expected: &[u8] = if self.binding == b'y' {
            b"eSws"
        } else {
            b"biws"
        };
        if binding != Some(expected) {
            return Err(SaslError::Malformed("the channel binding (c=)"));
        }
        // The nonce must end with this exchange's, as Kafka's broker checks it: librdkafka 2.0
        // sends its own nonce again before the one the server sent. The proof covers the
        // message as it came.
        let nonce = attrs.next().and_then(|a| a.strip_prefix(b"r="));
        if !nonce.is_some_and(|n| n.ends_with(&self.nonce)) {
            return Err(SaslError::Malformed("the nonce (r=)"));
        }
        let mut proof_bytes = [0u8; 96];
        let n =
            base64_decode(proof, &mut proof_bytes).ok_or(SaslError::Malformed("the proof (p=)"))?;
        let proof = proof_bytes.get(..n).unwrap_or_default();
        let c = &self.credential;
        let (client_signature, server_signature) =
            sign_both(c.hash, &c.stored_key, &c.server_key, |put| {
                put(&self.first.bytes);
                put(without_proof);
            });
        if proof.len() != c.hash.output_len() {
            return Err(rejected("invalid-proof"));
        }
        // ClientKey = ClientProof XOR ClientSignature; its hash must be StoredKey.
        let mut client_key = [0u8; 64];
        for ((k, p), s) in client_key
            .iter_mut()
            .zip(proof)
            .zip(client_signature.as_slice())
        {
            *k = p ^ s;
        }
        let client_key = client_key.get(..proof.len()).unwrap_or_default();
        if !c
            .stored_key
            .same(scram::digest(c.hash, client_key).as_slice())
        {
            return Err(rejected("invalid-proof"));
        }
        let mut w = Out::new(out);
        w.put(b"v=");
        put_base64(&mut w, server_signature.as_slice());
        w.finish()
    }
}

/// What a client-first message says.
struct ClientFirstMessage<'m> {
    binding: u8,
    bare: &'m [u8],
    username: &'m [u8],
    nonce: &'m [u8],
    token: bool,
}

/// Reads a client-first message: a GS2 header without channel binding (`n` or `y`) and with an
/// authorization identity only if it is the user's, `n=`, `r=`, then extensions, of which
/// `tokenauth=true` is Kafka's.
fn read_client_first(message: &[u8]) -> Result<ClientFirstMessage<'_>, SaslError> {
    let malformed = SaslError::Malformed("the client-first message");
    let (&binding, rest) = message.split_first().ok_or(malformed)?;
    if !matches!(binding, b'n' | b'y') {
        return Err(SaslError::Malformed(
            "a channel binding the server does not offer",
        ));
    }
    let rest = rest.strip_prefix(b",").ok_or(malformed)?;
    let comma = rest.iter().position(|&b| b == b',').ok_or(malformed)?;
    let (authzid, bare) = rest.split_at_checked(comma).ok_or(malformed)?;
    let bare = bare.get(1..).unwrap_or_default();
    let mut attrs = bare.split(|&b| b == b',');
    let username = attrs
        .next()
        .and_then(|a| a.strip_prefix(b"n="))
        .ok_or(SaslError::Malformed("the user name (n=)"))?;
    let nonce = attrs
        .next()
        .and_then(|a| a.strip_prefix(b"r="))
        .filter(|n| nonce_ok(n))
        .ok_or(SaslError::Malformed("the nonce (r=)"))?;
    let token = attrs.any(|a| a == b"tokenauth=true");
    if let Some(id) = authzid.strip_prefix(b"a=")
        && id != username
    {
        return Err(rejected("an authorization identity other than the user"));
    }
    Ok(ClientFirstMessage {
        binding,
        bare,
        username,
        nonce,
        token,
    })
}

/// `name` with `=2C` and `=3D` turned back into `,` and `=`, in `out`, as UTF-8.
fn unescape<'o>(name: &[u8], out: &'o mut [u8]) -> Result<&'o str, SaslError> {
    let bad = SaslError::Malformed("the user name (n=)");
    let mut len = 0usize;
    let mut rest = name;
    while let Some((&b, tail)) = rest.split_first() {
        let (byte, tail) = match (b, tail) {
            (b'=', [b'2', b'C', tail @ ..]) => (b',', tail),
            (b'=', [b'3', b'D', tail @ ..]) => (b'=', tail),
            (b'=' | b',', _) => return Err(bad),
            (b, tail) => (b, tail),
        };
        *out.get_mut(len).ok_or(bad)? = byte;
        len = len.saturating_add(1);
        rest = tail;
    }
    core::str::from_utf8(out.get(..len).unwrap_or_default()).map_err(|_| bad)
}

/// `n` in decimal, in `digits`.
fn decimal(mut n: u32, digits: &mut [u8; 10]) -> &[u8] {
    let mut at = digits.len();
    loop {
        at = at.saturating_sub(1);
        if let Some(d) = digits.get_mut(at) {
            // A digit: below 10.
            *d = b'0'.saturating_add(u8::try_from(n % 10).unwrap_or(0));
        }
        n /= 10;
        if n == 0 || at == 0 {
            break;
        }
    }
    digits.get(at..).unwrap_or_default()
}

/// A PLAIN message (RFC 4616): the identity to act as (empty for the user's own), the user name
/// and the password.
#[derive(Clone, Copy, PartialEq, Eq)]
pub struct Plain<'m> {
    /// The authorization identity: empty, or the user's own (Kafka refuses another).
    pub authzid: &'m str,
    /// The user name.
    pub username: &'m str,
    /// The password.
    pub password: &'m str,
}

impl fmt::Debug for Plain<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Plain")
            .field("authzid", &self.authzid)
            .field("username", &self.username)
            .finish_non_exhaustive()
    }
}

impl<'m> Plain<'m> {
    /// Reads a PLAIN message.
    ///
    /// # Errors
    ///
    /// [`SaslError::Malformed`] for a message that is not three NUL-separated UTF-8 fields with
    /// a user name and a password, or whose authorization identity is another user's.
    pub fn read(message: &'m [u8]) -> Result<Self, SaslError> {
        let bad = SaslError::Malformed("the PLAIN message");
        let text = core::str::from_utf8(message).map_err(|_| bad)?;
        let mut fields = text.split('\0');
        let (Some(authzid), Some(username), Some(password), None) =
            (fields.next(), fields.next(), fields.next(), fields.next())
        else {
            return Err(bad);
        };
        if username.is_empty() || password.is_empty() {
            return Err(bad);
        }
        if !authzid.is_empty() && authzid != username {
            return Err(rejected("an authorization identity other than the user"));
        }
        Ok(Self {
            authzid,
            username,
            password,
        })
    }

    /// Whether the password is `expected`, compared in time that does not depend on where they
    /// differ.
    #[must_use]
    pub fn password_is(&self, expected: &str) -> bool {
        use subtle::ConstantTimeEq;
        self.password.as_bytes().ct_eq(expected.as_bytes()).into()
    }
}

#[cfg(test)]
mod tests {
    use super::super::{Credentials, SaslClient};
    use super::*;

    #[test]
    fn a_salted_password_gives_the_credential_the_password_does() {
        for hash in [ScramHash::Sha256, ScramHash::Sha512] {
            let mut out = [0u8; 64];
            let salted = hash.salted_password(b"pencil", b"salt-of-the-earth", 4096, &mut out);
            assert_eq!(salted.len(), hash.output_len());
            let of_salted =
                ScramCredential::from_salted_password(hash, b"salt-of-the-earth", 4096, salted)
                    .unwrap();
            let derived =
                ScramCredential::derive(hash, b"pencil", b"salt-of-the-earth", 4096).unwrap();
            assert_eq!(of_salted.stored_key(), derived.stored_key());
            assert_eq!(of_salted.server_key(), derived.server_key());
            assert!(ScramCredential::from_salted_password(hash, b"s", 4096, &salted[1..]).is_err());
        }
    }

    fn exchange(
        hash: ScramHash,
        client_password: &str,
        stored: ScramCredential,
    ) -> Result<bool, SaslError> {
        let credentials = Credentials::scram(hash, "al=ce,", client_password, b"c-nonce");
        let mut client = SaslClient::new(credentials);
        let (mut out, mut answer) = ([0u8; 512], [0u8; 512]);
        let n = client.start(&mut out)?;
        let (server, m) = ScramServer::start(
            &out[..n],
            |user| (user == "al=ce,").then_some(stored),
            b"s-nonce",
            &mut answer,
        )?;
        let n = client.step(&answer[..m], &mut out)?.unwrap();
        let m = server.finish(&out[..n], &mut answer)?;
        Ok(client.step(&answer[..m], &mut out)?.is_none() && client.is_done())
    }

    #[test]
    fn clients_and_servers_agree() {
        for hash in [ScramHash::Sha256, ScramHash::Sha512] {
            let stored = ScramCredential::derive(hash, b"pw", b"salty", 4096).unwrap();
            assert_eq!(exchange(hash, "pw", stored), Ok(true), "{hash:?}");
            let error = exchange(hash, "wrong", stored).unwrap_err();
            assert_eq!(
                std::format!("{error}"),
                "SASL authentication failed: invalid-proof"
            );
        }
    }

    /// SCRAM-SHA-512 keys for password `pencil`, salt `salt`, 4096 iterations, as Python's
    /// `hashlib.pbkdf2_hmac` and `hmac` compute them.
    #[test]
    fn sha512_keys_match_an_independent_implementation() {
        let c = ScramCredential::sha512(b"pencil", b"salt", 4096).unwrap();
        let hex = |b: &[u8]| {
            b.iter()
                .map(|x| std::format!("{x:02x}"))
                .collect::<std::string::String>()
        };
        assert_eq!(hex(c.stored_key()), STORED_512);
        assert_eq!(hex(c.server_key()), SERVER_512);
    }

    const STORED_512: &str = "ff41e86c08f2e525a87285eda3d634d669bae8ab6c2e5b3e09ad0014a691fab9eb26557062ff978ee011d9b23e6b87437df366cf7cd4c8747df9277d067fd330";
    const SERVER_512: &str = "a20870894973d9c760b240b7a95060f1e63512b5f21b81f15ecfe996c163b648d1af4132eaa2e63b3e89b46bb1592beee5f536c2e1005954521cf37278199629";

    #[test]
    fn unknown_users_and_bad_messages_are_refused() {
        let mut out = [0u8; 256];
        let none = |_: &str| None;
        assert!(matches!(
            ScramServer::start(b"n,,n=bob,r=abc", none, b"xyz", &mut out),
            Err(SaslError::Rejected(_))
        ));
        let stored = ScramCredential::sha256(b"pw", b"salt", 4096).unwrap();
        let some = |_: &str| Some(stored);
        for bad in [
            &b"p=tls-unique,,n=bob,r=abc"[..],
            b"n,,r=abc",
            b"n,,n=bob",
            b"n,,n=b=4Fob,r=abc",
            b"n,a=eve,n=bob,r=abc",
        ] {
            assert!(
                ScramServer::start(bad, some, b"xyz", &mut out).is_err(),
                "{:?}",
                core::str::from_utf8(bad)
            );
        }
        let (server, _) = ScramServer::start(b"n,,n=bob,r=abc", some, b"xyz", &mut out).unwrap();
        for bad in [
            &b"c=biws,r=abcxyz"[..],
            b"c=eSws,r=abcxyz,p=AAAA",
            b"c=biws,r=abcxyq,p=AAAA",
            b"c=biws,r=abcxy,p=AAAA",
        ] {
            assert!(matches!(
                server.finish(bad, &mut out),
                Err(SaslError::Malformed(_))
            ));
        }
        assert!(matches!(
            server.finish(b"c=biws,r=abcxyz,p=AAAA", &mut out),
            Err(SaslError::Rejected(_))
        ));
    }

    /// librdkafka 2.0 repeats its nonce in the final message (`r=` its nonce, then the
    /// server's, which starts with it again); Kafka's broker accepts a nonce that ends with the
    /// exchange's, and so does this one, the proof signing the message as sent.
    #[test]
    fn a_final_nonce_that_ends_with_the_exchanges_is_accepted() {
        let stored = ScramCredential::sha256(b"pw", b"salt", 4096).unwrap();
        let (mut out, mut answer) = ([0u8; 256], [0u8; 256]);
        let (server, n) = ScramServer::start(
            b"n,,n=bob,r=cnonce",
            |_| Some(stored),
            b"snonce",
            &mut answer,
        )
        .unwrap();
        let server_first = &answer[..n];
        let keys = scram::keys(ScramHash::Sha256, b"pw", b"salt", 4096);
        let without_proof = b"c=biws,r=cnoncecnoncesnonce";
        let (signature, _) = sign_both(ScramHash::Sha256, &keys.stored, &keys.server, |put| {
            put(b"n=bob,r=cnonce,");
            put(server_first);
            put(b",");
            put(without_proof);
        });
        let proof: std::vec::Vec<u8> = keys
            .client
            .as_slice()
            .iter()
            .zip(signature.as_slice())
            .map(|(k, s)| k ^ s)
            .collect();
        let mut message = without_proof.to_vec();
        message.extend_from_slice(b",p=");
        let mut b64 = [0u8; 64];
        let m = scram::base64_encode(&proof, &mut b64).unwrap();
        message.extend_from_slice(&b64[..m]);
        assert!(server.finish(&message, &mut out).is_ok());
    }

    #[test]
    fn plain_messages() {
        let p = Plain::read(b"\0alice\0pw").unwrap();
        assert_eq!(
            (p.username, p.password_is("pw"), p.password_is("px")),
            ("alice", true, false)
        );
        assert!(Plain::read(b"alice\0alice\0pw").is_ok());
        assert!(Plain::read(b"eve\0alice\0pw").is_err());
        assert!(Plain::read(b"\0alice\0").is_err());
        assert!(Plain::read(b"\0alice").is_err());
        assert!(!std::format!("{p:?}").contains("pw"));
    }

    #[test]
    fn iteration_counts_are_written_in_decimal() {
        let mut d = [0u8; 10];
        assert_eq!(decimal(0, &mut d), b"0");
        assert_eq!(decimal(4096, &mut d), b"4096");
        assert_eq!(decimal(u32::MAX, &mut d), b"4294967295");
    }
}
