//! SCRAM (RFC 5802) with SHA-256 and SHA-512 (RFC 7677): the client's messages and checks, and
//! the key derivation both sides share. The crypto is RustCrypto's (`sha2`, `hmac`, `pbkdf2`);
//! signatures are compared in constant time (`subtle`).

use crate::session::buffer::copy;
use hmac::{Hmac, Mac};
use sha2::{Digest, Sha256, Sha512};
use subtle::ConstantTimeEq;

use super::{Out, SaslError, ServerReason};

/// The hash of a SCRAM mechanism.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum ScramHash {
    /// SCRAM-SHA-256.
    Sha256,
    /// SCRAM-SHA-512.
    Sha512,
}

impl ScramHash {
    /// The mechanism's name: `"SCRAM-SHA-256"` or `"SCRAM-SHA-512"`.
    #[must_use]
    pub const fn mechanism(self) -> &'static str {
        match self {
            Self::Sha256 => "SCRAM-SHA-256",
            Self::Sha512 => "SCRAM-SHA-512",
        }
    }

    /// The mechanism named `name`, if it is one of these.
    #[must_use]
    pub fn from_mechanism(name: &str) -> Option<Self> {
        match name {
            "SCRAM-SHA-256" => Some(Self::Sha256),
            "SCRAM-SHA-512" => Some(Self::Sha512),
            _ => None,
        }
    }

    /// The length of the hash's output, and so of every key and signature: 32 or 64 bytes.
    #[must_use]
    pub const fn output_len(self) -> usize {
        match self {
            Self::Sha256 => 32,
            Self::Sha512 => 64,
        }
    }
}

/// `$body` with `$d` the hash type of `$hash`.
macro_rules! with_hash {
    ($hash:expr, $d:ident => $body:expr) => {
        match $hash {
            ScramHash::Sha256 => {
                type $d = Sha256;
                $body
            }
            ScramHash::Sha512 => {
                type $d = Sha512;
                $body
            }
        }
    };
}

/// A digest, key or signature: the first `len` of 64 bytes.
#[derive(Clone, Copy)]
pub(crate) struct Key {
    bytes: [u8; 64],
    len: usize,
}

/// The signature a SCRAM server must send.
pub(super) type Signature = Key;

impl Key {
    /// No bytes.
    pub(crate) const EMPTY: Self = Self {
        bytes: [0; 64],
        len: 0,
    };

    /// A key of `bytes`, at most 64 of them.
    pub(crate) fn new(bytes: &[u8]) -> Option<Self> {
        let mut key = Self {
            bytes: [0; 64],
            len: bytes.len(),
        };
        copy(key.bytes.get_mut(..bytes.len())?, bytes);
        Some(key)
    }

    pub(crate) fn as_slice(&self) -> &[u8] {
        self.bytes.get(..self.len).unwrap_or_default()
    }

    /// Equality in time that does not depend on where the bytes differ.
    pub(crate) fn same(&self, other: &[u8]) -> bool {
        self.as_slice().ct_eq(other).into()
    }
}

/// HMAC of the concatenation of `parts` keyed with `key`.
pub(crate) fn hmac(hash: ScramHash, key: &[u8], parts: &[&[u8]]) -> Key {
    with_hash!(hash, D => {
        // HMAC takes a key of any length.
        let mut mac = <Hmac<D> as Mac>::new_from_slice(key).unwrap_or_else(|_| {
            <Hmac<D> as Mac>::new(&Default::default())
        });
        for part in parts {
            mac.update(part);
        }
        Key::new(&mac.finalize().into_bytes()).unwrap_or(Key::EMPTY)
    })
}

/// The hash of `data`.
pub(crate) fn digest(hash: ScramHash, data: &[u8]) -> Key {
    with_hash!(hash, D => Key::new(&D::digest(data)).unwrap_or(Key::EMPTY))
}

/// The keys a password, a salt and an iteration count give: the client key, and the stored and
/// server keys a server keeps.
pub(crate) struct Keys {
    pub(crate) client: Key,
    pub(crate) stored: Key,
    pub(crate) server: Key,
}

impl ScramHash {
    /// `SaltedPassword` (RFC 5802 section 3: PBKDF2 with the hash's HMAC), what Kafka's
    /// AlterUserScramCredentials request carries for a user's credential: written into `out`,
    /// whose first [`ScramHash::output_len`] bytes it returns.
    pub fn salted_password<'o>(
        self,
        password: &[u8],
        salt: &[u8],
        iterations: u32,
        out: &'o mut [u8; 64],
    ) -> &'o [u8] {
        let salted = out.get_mut(..self.output_len()).unwrap_or_default();
        with_hash!(self, D => pbkdf2::pbkdf2_hmac::<D>(password, salt, iterations, salted));
        salted
    }
}

/// Derives the [`Keys`] (RFC 5802 section 3): `SaltedPassword` by PBKDF2 with the hash's HMAC.
pub(crate) fn keys(hash: ScramHash, password: &[u8], salt: &[u8], iterations: u32) -> Keys {
    let mut salted = [0u8; 64];
    keys_of_salted(
        hash,
        hash.salted_password(password, salt, iterations, &mut salted),
    )
}

/// The [`Keys`] of a `SaltedPassword`.
pub(crate) fn keys_of_salted(hash: ScramHash, salted: &[u8]) -> Keys {
    let client = hmac(hash, salted, &[b"Client Key"]);
    let server = hmac(hash, salted, &[b"Server Key"]);
    let stored = digest(hash, client.as_slice());
    Keys {
        client,
        stored,
        server,
    }
}

/// The standard base64 alphabet (RFC 4648 section 4), which SCRAM's messages use.
const BASE64: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/// The base64 character of the low six bits of `v`.
fn base64_char(v: u32) -> u8 {
    let i = usize::try_from(v & 0x3f).unwrap_or_default();
    BASE64.get(i).copied().unwrap_or(b'A')
}

/// The six bits a base64 character stands for.
fn base64_value(c: u8) -> Option<u32> {
    let v = match c {
        b'A'..=b'Z' => c.wrapping_sub(b'A'),
        b'a'..=b'z' => c.wrapping_sub(b'a').wrapping_add(26),
        b'0'..=b'9' => c.wrapping_sub(b'0').wrapping_add(52),
        b'+' => 62,
        b'/' => 63,
        _ => return None,
    };
    Some(u32::from(v))
}

/// Base64 of `bytes` into `out` (padded): the length written.
pub(crate) fn base64_encode(bytes: &[u8], out: &mut [u8]) -> Result<usize, SaslError> {
    let needed = bytes.len().div_ceil(3).saturating_mul(4);
    let to = out
        .get_mut(..needed)
        .ok_or(SaslError::BufferTooSmall { needed })?;
    for (chunk, quad) in bytes.chunks(3).zip(to.chunks_mut(4)) {
        let byte = |i: usize| u32::from(chunk.get(i).copied().unwrap_or(0));
        let group = byte(0) << 16 | byte(1) << 8 | byte(2);
        for (k, slot) in quad.iter_mut().enumerate() {
            // A chunk of n bytes gives n + 1 characters, then padding.
            *slot = if k <= chunk.len() {
                let shift = 18u32.saturating_sub(u32::try_from(k).unwrap_or(0).saturating_mul(6));
                base64_char(group >> shift)
            } else {
                b'='
            };
        }
    }
    Ok(needed)
}

/// Appends base64 of `bytes` to `w`.
pub(crate) fn put_base64(w: &mut Out<'_>, bytes: &[u8]) {
    let needed = bytes.len().div_ceil(3).saturating_mul(4);
    if let Some(to) = w.reserve(needed) {
        // The space is exactly the encoding's.
        let _ = base64_encode(bytes, to);
    }
}

/// Base64 `text` decoded into `out`: the length, or `None` when it is not canonical padded
/// base64 (a length not a multiple of 4, a character outside the alphabet, padding anywhere
/// but at the end, bits set after the last byte) or does not fit.
pub(crate) fn base64_decode(text: &[u8], out: &mut [u8]) -> Option<usize> {
    if !text.len().is_multiple_of(4) {
        return None;
    }
    let mut written = 0usize;
    let quads = text.len() / 4;
    for (q, quad) in text.chunks(4).enumerate() {
        let padding = quad.iter().rev().take_while(|&&c| c == b'=').count();
        if padding > 2 || (padding > 0 && q.saturating_add(1) != quads) {
            return None;
        }
        let mut group = 0u32;
        for &c in quad.iter().take(4usize.saturating_sub(padding)) {
            group = group << 6 | base64_value(c)?;
        }
        group <<= 6u32.saturating_mul(u32::try_from(padding).unwrap_or(0));
        // The bits past the last whole byte must be zero, as an encoder writes them.
        let kept = 3usize.saturating_sub(padding);
        let unused = 8u32.saturating_mul(u32::try_from(padding).unwrap_or(0));
        if unused > 0 && group & ((1u32 << unused).wrapping_sub(1)) != 0 {
            return None;
        }
        for k in 0..kept {
            let shift = 16u32.saturating_sub(u32::try_from(k).unwrap_or(0).saturating_mul(8));
            let slot = out.get_mut(written)?;
            *slot = u8::try_from(group >> shift & 0xff).unwrap_or(0);
            written = written.saturating_add(1);
        }
    }
    Some(written)
}

/// What the client-first message says, which the client's last message signs again.
pub(super) struct ClientFirst<'a> {
    pub(super) username: &'a str,
    pub(super) nonce: &'a [u8],
    /// Kafka's `tokenauth` extension: a delegation token.
    pub(super) token: bool,
}

/// A nonce's characters: printable ASCII but `,` (RFC 5802 section 7).
pub(crate) fn nonce_ok(nonce: &[u8]) -> bool {
    !nonce.is_empty()
        && nonce
            .iter()
            .all(|&b| (0x21..=0x7e).contains(&b) && b != b',')
}

/// The client-first message (RFC 5802 section 5.1): the GS2 header (no channel binding, no
/// authorization identity), then the bare message.
pub(super) fn client_first(
    w: &mut Out<'_>,
    username: &str,
    nonce: &[u8],
    token: bool,
) -> Result<(), SaslError> {
    if !nonce_ok(nonce) {
        return Err(SaslError::InvalidCredentials(
            "a SCRAM nonce that is empty, over 64 bytes, or holds a character other than printable ASCII but ','",
        ));
    }
    w.put(GS2_HEADER);
    bare(
        &ClientFirst {
            username,
            nonce,
            token,
        },
        |part| w.put(part),
    );
    Ok(())
}

/// The GS2 header of a client that does not bind the channel: `n,,`.
const GS2_HEADER: &[u8] = b"n,,";

/// The channel binding attribute of the client-final message: `c=` and base64 of `n,,`.
const CHANNEL_BINDING: &[u8] = b"c=biws";

/// The client-first message without its GS2 header, in parts: `n=user,r=nonce` and the
/// extension, the user name's `=` and `,` escaped as `=3D` and `=2C`.
fn bare(first: &ClientFirst<'_>, mut put: impl FnMut(&[u8])) {
    put(b"n=");
    let mut rest = first.username.as_bytes();
    while let Some((head, tail)) = rest
        .iter()
        .position(|&b| b == b',' || b == b'=')
        .and_then(|at| rest.split_at_checked(at))
    {
        put(head);
        let (special, tail) = tail.split_first().unwrap_or((&b'=', tail));
        put(if *special == b',' { b"=2C" } else { b"=3D" });
        rest = tail;
    }
    put(rest);
    put(b",r=");
    put(first.nonce);
    if first.token {
        put(b",tokenauth=true");
    }
}

/// What a server-first message says.
struct ServerFirst<'m> {
    nonce: &'m [u8],
    salt: &'m [u8],
    iterations: u32,
}

/// Reads a server-first message: `r=`, `s=`, `i=`, then extensions, which are ignored; a
/// mandatory extension (`m=` first) is refused.
fn read_server_first(message: &[u8]) -> Result<ServerFirst<'_>, SaslError> {
    let mut attrs = message.split(|&b| b == b',');
    let mut next = |name: &'static [u8], what: &'static str| {
        attrs
            .next()
            .and_then(|a| a.strip_prefix(name))
            .ok_or(SaslError::Malformed(what))
    };
    if message.starts_with(b"m=") {
        return Err(SaslError::Malformed("a mandatory extension (m=)"));
    }
    let nonce = next(b"r=", "the nonce (r=)")?;
    let salt = next(b"s=", "the salt (s=)")?;
    let iterations = next(b"i=", "the iteration count (i=)")?;
    let iterations = core::str::from_utf8(iterations)
        .ok()
        .filter(|t| t.bytes().all(|b| b.is_ascii_digit()))
        .and_then(|t| t.parse::<u32>().ok())
        .ok_or(SaslError::Malformed("the iteration count (i=)"))?;
    Ok(ServerFirst {
        nonce,
        salt,
        iterations,
    })
}

/// Reads the server-first message `server` and writes the client-final message with its proof
/// (RFC 5802 section 3): returns the signature the server's final message must carry.
pub(super) fn client_final(
    w: &mut Out<'_>,
    hash: ScramHash,
    first: &ClientFirst<'_>,
    password: &str,
    server: &[u8],
    (min, max): (u32, u32),
) -> Result<Signature, SaslError> {
    let sf = read_server_first(server)?;
    let extends = sf.nonce.len() > first.nonce.len() && sf.nonce.starts_with(first.nonce);
    if !(extends && nonce_ok(sf.nonce)) {
        return Err(SaslError::Nonce);
    }
    if !(min..=max).contains(&sf.iterations) {
        return Err(SaslError::Iterations {
            asked: sf.iterations,
            min,
            max,
        });
    }
    let mut salt = [0u8; 128];
    let salt = match base64_decode(sf.salt, &mut salt) {
        Some(n) => salt.get(..n).unwrap_or_default(),
        None if sf.salt.len() > 172 => return Err(SaslError::SaltTooLong),
        None => return Err(SaslError::Malformed("the salt (s=)")),
    };
    let keys = keys(hash, password.as_bytes(), salt, sf.iterations);
    // AuthMessage = client-first-bare "," server-first "," client-final-without-proof.
    let without_proof: [&[u8]; 3] = [CHANNEL_BINDING, b",r=", sf.nonce];
    let (client_signature, server_signature) = sign_both(hash, &keys.stored, &keys.server, |put| {
        bare(first, &mut *put);
        put(b",");
        put(server);
        put(b",");
        for part in without_proof {
            put(part);
        }
    });
    let mut proof = keys.client;
    for (p, s) in proof.bytes.iter_mut().zip(client_signature.as_slice()) {
        *p ^= s;
    }
    for part in without_proof {
        w.put(part);
    }
    w.put(b",p=");
    put_base64(w, proof.as_slice());
    Ok(server_signature)
}

/// The two HMACs of the same AuthMessage, keyed with `stored` (the client's signature) and with
/// `server` (the server's), the message given in parts by `message`.
pub(crate) fn sign_both(
    hash: ScramHash,
    stored: &Key,
    server: &Key,
    message: impl FnOnce(&mut dyn FnMut(&[u8])),
) -> (Key, Key) {
    with_hash!(hash, D => {
        let new = |key: &Key| {
            <Hmac<D> as Mac>::new_from_slice(key.as_slice())
                .unwrap_or_else(|_| <Hmac<D> as Mac>::new(&Default::default()))
        };
        let (mut a, mut b) = (new(stored), new(server));
        message(&mut |part: &[u8]| {
            a.update(part);
            b.update(part);
        });
        let done = |mac: Hmac<D>| {
            Key::new(&mac.finalize().into_bytes()).unwrap_or(Key::EMPTY)
        };
        (done(a), done(b))
    })
}

/// Reads the server-final message: the server's signature (`v=`), which must be `expected`, or
/// its error (`e=`).
pub(super) fn server_final(message: &[u8], expected: &Signature) -> Result<(), SaslError> {
    let first = message.split(|&b| b == b',').next().unwrap_or_default();
    if let Some(reason) = first.strip_prefix(b"e=") {
        return Err(SaslError::Rejected(ServerReason::new(reason)));
    }
    let Some(value) = first.strip_prefix(b"v=") else {
        return Err(SaslError::Malformed("the server's signature (v=)"));
    };
    let mut signature = [0u8; 96];
    let n = base64_decode(value, &mut signature)
        .ok_or(SaslError::Malformed("the server's signature (v=)"))?;
    if expected.same(signature.get(..n).unwrap_or_default()) {
        Ok(())
    } else {
        Err(SaslError::ServerSignature)
    }
}

#[cfg(test)]
mod tests {
    use super::super::{Credentials, SaslClient};
    use super::*;

    /// RFC 4648's vectors, every byte value, and what is not canonical padded base64.
    #[test]
    fn base64_as_rfc_4648_writes_it() {
        let vectors: [(&[u8], &[u8]); 7] = [
            (b"", b""),
            (b"f", b"Zg=="),
            (b"fo", b"Zm8="),
            (b"foo", b"Zm9v"),
            (b"foob", b"Zm9vYg=="),
            (b"fooba", b"Zm9vYmE="),
            (b"foobar", b"Zm9vYmFy"),
        ];
        for (plain, coded) in vectors {
            let mut out = [0u8; 16];
            let n = base64_encode(plain, &mut out).unwrap();
            assert_eq!(&out[..n], coded);
            let mut back = [0u8; 16];
            let m = base64_decode(coded, &mut back).unwrap();
            assert_eq!(&back[..m], plain);
        }
        let all: [u8; 256] = core::array::from_fn(|i| u8::try_from(i).unwrap());
        let mut coded = [0u8; 344];
        let n = base64_encode(&all, &mut coded).unwrap();
        let mut back = [0u8; 256];
        assert_eq!(base64_decode(&coded[..n], &mut back), Some(256));
        assert_eq!(back, all);
        let mut small = [0u8; 3];
        assert!(base64_encode(b"foob", &mut small).is_err());
        for bad in [
            &b"Zg="[..],
            b"Zg=a",
            b"Z===",
            b"Zh==",
            b"Zm9\x00",
            b"Zg==Zg==",
            b"Zm8-",
        ] {
            assert_eq!(base64_decode(bad, &mut back), None, "{bad:?}");
        }
        assert_eq!(base64_decode(b"Zm9v", &mut small[..2]), None);
    }

    /// RFC 7677 section 3: user `user`, password `pencil`.
    #[test]
    fn rfc7677_exchange() {
        let mut client = SaslClient::new(Credentials::scram_sha256(
            "user",
            "pencil",
            b"rOprNGfwEbeRWgbNEkqO",
        ));
        let mut out = [0u8; 256];
        let n = client.start(&mut out).unwrap();
        assert_eq!(&out[..n], b"n,,n=user,r=rOprNGfwEbeRWgbNEkqO");
        let server_first = b"r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,s=W22ZaJ0SNY7soEsUEjb6gQ==,i=4096";
        let n = client.step(server_first, &mut out).unwrap().unwrap();
        assert_eq!(
            &out[..n],
            &b"c=biws,r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,p=dHzbZapWIk4jUhN+Ute9ytag9zjfMHgsqmmiz7AndVQ="[..]
        );
        let server_final = b"v=6rriTRBi23WpRR/wtup+mMhUZUn/dB5nLTJRsjl95G4=";
        assert_eq!(client.step(server_final, &mut out), Ok(None));
        assert!(client.is_done());
    }

    /// The same exchange with a server that does not know the password: its signature is
    /// refused, and so is an error, a missing signature, and a step after the failure.
    #[test]
    fn a_server_must_prove_it_knows_the_password() {
        let server_first = b"r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,s=W22ZaJ0SNY7soEsUEjb6gQ==,i=4096";
        let start = || {
            let mut client = SaslClient::new(Credentials::scram_sha256(
                "user",
                "pencil",
                b"rOprNGfwEbeRWgbNEkqO",
            ));
            let mut out = [0u8; 256];
            client.start(&mut out).unwrap();
            client.step(server_first, &mut out).unwrap().unwrap();
            client
        };
        let mut out = [0u8; 64];
        let mut client = start();
        let forged = b"v=7rriTRBi23WpRR/wtup+mMhUZUn/dB5nLTJRsjl95G4=";
        assert_eq!(
            client.step(forged, &mut out),
            Err(SaslError::ServerSignature)
        );
        assert!(!client.is_done());
        assert_eq!(client.step(b"v=", &mut out), Err(SaslError::State));
        for (answer, error) in [
            (
                &b"v=6rriTRBi23"[..],
                SaslError::Malformed("the server's signature (v=)"),
            ),
            (b"v=", SaslError::ServerSignature),
            (b"", SaslError::Malformed("the server's signature (v=)")),
        ] {
            assert_eq!(start().step(answer, &mut out), Err(error), "{answer:?}");
        }
        let error = start().step(b"e=invalid-proof", &mut out).unwrap_err();
        assert_eq!(
            std::format!("{error}"),
            "SASL authentication failed: invalid-proof"
        );
    }

    #[test]
    fn server_first_messages_are_checked() {
        let step = |server: &[u8]| {
            let mut client = SaslClient::new(
                Credentials::scram_sha512("u", "p", b"abc").with_max_iterations(8192),
            );
            let mut out = [0u8; 512];
            client.start(&mut out).unwrap();
            client.step(server, &mut out).map(|_| ())
        };
        assert_eq!(step(b"r=abcdef,s=c2FsdA==,i=4096"), Ok(()));
        assert_eq!(step(b"r=abcdef,s=c2FsdA==,i=4096,x=ext"), Ok(()));
        assert_eq!(step(b"r=abc,s=c2FsdA==,i=4096"), Err(SaslError::Nonce));
        assert_eq!(step(b"r=xbcdef,s=c2FsdA==,i=4096"), Err(SaslError::Nonce));
        assert_eq!(
            step(b"r=abcdef,s=c2FsdA==,i=4095"),
            Err(SaslError::Iterations {
                asked: 4095,
                min: 4096,
                max: 8192
            })
        );
        assert!(matches!(
            step(b"r=abcdef,s=c2FsdA==,i=8193"),
            Err(SaslError::Iterations { .. })
        ));
        assert!(matches!(
            step(b"m=x,r=abcdef,s=c2FsdA==,i=4096"),
            Err(SaslError::Malformed(_))
        ));
        assert!(matches!(
            step(b"r=abcdef,s=!!,i=4096"),
            Err(SaslError::Malformed(_))
        ));
        assert!(matches!(
            step(b"r=abcdef,s=c2FsdA==,i=+4096"),
            Err(SaslError::Malformed(_))
        ));
        assert!(matches!(
            step(b"r=abcdef,i=4096"),
            Err(SaslError::Malformed(_))
        ));
        let long = std::format!("r=abcdef,s={},i=4096", "QUFB".repeat(50));
        assert_eq!(step(long.as_bytes()), Err(SaslError::SaltTooLong));
    }

    #[test]
    fn user_names_escape_comma_and_equals() {
        let mut out = [0u8; 64];
        let mut w = Out::new(&mut out);
        client_first(&mut w, "a,b=c,", b"n0nce", true).unwrap();
        let n = w.finish().unwrap();
        assert_eq!(&out[..n], b"n,,n=a=2Cb=3Dc=2C,r=n0nce,tokenauth=true");
        let mut w = Out::new(&mut out);
        assert!(client_first(&mut w, "u", b"has,comma", false).is_err());
    }
}
