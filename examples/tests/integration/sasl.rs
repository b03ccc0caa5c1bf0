//! The mini broker with SASL required, and kwire's blocking connection as its client: PLAIN and
//! both SCRAM mechanisms authenticate and then produce and fetch; a wrong password is refused
//! with the broker's message and the connection closed; a request before authentication closes
//! the connection.

use std::io::{Read, Write};
use std::net::TcpStream;

use kwire::ErrorCode;
use kwire::io::{self, Error};
use kwire::messages::metadata_request::MetadataRequestTopic;
use kwire::messages::{MetadataRequest, MetadataResponse};
use kwire::session::sasl::{AuthError, Credentials};
use kwire::session::{Client, SessionError};
use kwire_examples::mini_broker::broker::Broker;

const USERS: &[(&str, &str)] = &[("alice", "alice-secret"), ("bob", "b:o=b,secret")];

/// The error code of a Metadata request's topic (created if missing) on `conn`.
pub fn metadata<S: Read + Write>(conn: &mut io::Connection<'_, S>) -> i16 {
    let topics = [MetadataRequestTopic::default().with_name(Some("sasl-topic"))];
    let request = MetadataRequest::default()
        .with_topics(Some((&topics[..]).into()))
        .with_allow_auto_topic_creation(true);
    let answer = conn.call(&request).unwrap();
    let body: MetadataResponse<'_> = answer.decode_as().unwrap();
    body.topics.iter().next().unwrap().error_code
}

#[test]
fn plain_and_scram_users_reach_the_broker() {
    let addr = Broker::spawn_sasl(1, USERS);
    let nonce = b"rOprNGfwEbeRWgbNEkqO";
    for (user, password) in USERS {
        for credentials in [
            Credentials::plain(user, password),
            Credentials::scram_sha256(user, password, nonce),
            Credentials::scram_sha512(user, password, nonce),
        ] {
            let client: Client<'_, 8> =
                Client::negotiating(Some("sasl-test")).with_sasl(credentials);
            let mut conn = io::connect(addr, client)
                .unwrap_or_else(|e| panic!("{user} with {}: {e}", credentials.mechanism()));
            assert_eq!(metadata(&mut conn), 0);
        }
    }
}

#[test]
fn a_wrong_password_is_refused_and_the_connection_closed() {
    let addr = Broker::spawn_sasl(1, USERS);
    for credentials in [
        Credentials::plain("alice", "guess"),
        Credentials::scram_sha512("alice", "guess", b"n0nce"),
        Credentials::scram_sha256("mallory", "guess", b"n0nce"),
    ] {
        let client: Client<'_, 8> = Client::negotiating(None).with_sasl(credentials);
        let e = io::connect(addr, client).unwrap_err();
        let Error::Session(SessionError::Auth(AuthError::Refused { code, .. })) = &e else {
            panic!("refused, not {e:?}");
        };
        assert_eq!(*code, ErrorCode::SASL_AUTHENTICATION_FAILED);
        let text = e.to_string();
        assert!(
            text.contains("SASL authentication failed: Authentication failed during"),
            "{text}"
        );
        assert!(!text.contains("guess"), "{text}");
    }
}

#[test]
fn a_request_before_authentication_closes_the_connection() {
    let addr = Broker::spawn_sasl(1, USERS);
    let client: Client<'_, 8> = Client::negotiating(None);
    let mut conn = io::connect(addr, client).unwrap();
    let request = MetadataRequest::default();
    assert!(
        conn.call(&request).is_err(),
        "no answer before authentication"
    );

    // Without kwire's client: a Metadata request as the first bytes gets no answer either.
    let mut out = [0u8; 64];
    let header = kwire::messages::RequestHeader::new(kwire::ApiKey::METADATA, 12, 7);
    let n = kwire::frame::encode_request(&header, &request, &mut out).unwrap();
    let mut stream = TcpStream::connect(addr).unwrap();
    stream.write_all(&out[..n]).unwrap();
    let mut buf = [0u8; 16];
    assert_eq!(
        stream.read(&mut buf).unwrap_or(0),
        0,
        "closed without an answer"
    );
}

/// KIP-368 against the mini broker: the connection authenticates again as the same user and
/// goes on; as another user it is refused and closed.
#[test]
fn a_connection_authenticates_again() {
    let addr = Broker::spawn_sasl(1, USERS);
    let client: Client<'_, 8> = Client::negotiating(None).with_sasl(Credentials::scram_sha512(
        "alice",
        "alice-secret",
        b"nonce-1",
    ));
    let mut conn = io::connect(addr, client).unwrap();
    assert_eq!(metadata(&mut conn), 0);
    let again = Credentials::scram_sha256("alice", "alice-secret", b"nonce-2");
    conn.reauthenticate(again).unwrap();
    assert_eq!(metadata(&mut conn), 0);

    let other = Credentials::plain("bob", "b:o=b,secret");
    let e = conn.reauthenticate(other).unwrap_err();
    assert!(e.to_string().contains("Cannot change principals"), "{e}");
}

#[test]
fn scram_credentials_are_managed_over_the_protocol() {
    use kwire::messages::alter_user_scram_credentials_request::{
        ScramCredentialDeletion, ScramCredentialUpsertion,
    };
    use kwire::messages::{
        AlterUserScramCredentialsRequest, AlterUserScramCredentialsResponse,
        DescribeUserScramCredentialsRequest, DescribeUserScramCredentialsResponse,
    };
    use kwire::session::sasl::ScramHash;

    let addr = Broker::spawn_sasl(1, USERS);
    let admin: Client<'_, 8> =
        Client::negotiating(None).with_sasl(Credentials::plain("alice", "alice-secret"));
    let mut admin = io::connect(addr, admin).unwrap();
    let mut out = [0u8; 64];
    let salted = ScramHash::Sha512.salted_password(b"carol-secret", b"carol-salt", 8192, &mut out);
    let upsert = [ScramCredentialUpsertion::default()
        .with_name("carol")
        .with_mechanism(2)
        .with_iterations(8192)
        .with_salt(b"carol-salt")
        .with_salted_password(salted)];
    let alter = AlterUserScramCredentialsRequest::default().with_upsertions(&upsert);
    let answer = admin.call(&alter).unwrap();
    let body: AlterUserScramCredentialsResponse<'_> = answer.decode_as().unwrap();
    let result = body.results.iter().next().unwrap();
    assert_eq!(
        (result.user.to_string(), result.error_code),
        ("carol".into(), 0)
    );

    // Carol now authenticates with SCRAM-SHA-512, and with nothing else.
    let carol = |credentials| {
        let client: Client<'_, 8> = Client::negotiating(None).with_sasl(credentials);
        io::connect(addr, client).map(drop)
    };
    carol(Credentials::scram_sha512("carol", "carol-secret", b"n0nce")).unwrap();
    carol(Credentials::scram_sha256("carol", "carol-secret", b"n0nce")).unwrap_err();
    carol(Credentials::plain("carol", "carol-secret")).unwrap_err();
    carol(Credentials::scram_sha512("carol", "guess", b"n0nce")).unwrap_err();

    // Described by mechanism and iterations; file users have both mechanisms.
    let answer = admin
        .call(&DescribeUserScramCredentialsRequest::default())
        .unwrap();
    let body: DescribeUserScramCredentialsResponse<'_> = answer.decode_as().unwrap();
    let described: Vec<(String, Vec<(i8, i32)>)> = body
        .results
        .iter()
        .map(|r| {
            let infos = r
                .credential_infos
                .iter()
                .map(|c| (c.mechanism, c.iterations));
            (r.user.to_string(), infos.collect())
        })
        .collect();
    assert_eq!(
        described,
        [
            ("alice".into(), vec![(1, 4096), (2, 4096)]),
            ("bob".into(), vec![(1, 4096), (2, 4096)]),
            ("carol".into(), vec![(2, 8192)]),
        ]
    );

    // A deletion, then one of a credential that is gone; an unknown mechanism.
    let delete = [ScramCredentialDeletion::default()
        .with_name("carol")
        .with_mechanism(2)];
    let codes = |admin: &mut io::Connection<'_, TcpStream>,
                 r: &AlterUserScramCredentialsRequest<'_>| {
        let answer = admin.call(r).unwrap();
        let body: AlterUserScramCredentialsResponse<'_> = answer.decode_as().unwrap();
        body.results
            .iter()
            .map(|r| r.error_code)
            .collect::<Vec<_>>()
    };
    let deletion = AlterUserScramCredentialsRequest::default().with_deletions(&delete);
    assert_eq!(codes(&mut admin, &deletion), [0]);
    assert_eq!(
        codes(&mut admin, &deletion),
        [ErrorCode::RESOURCE_NOT_FOUND.0]
    );
    carol(Credentials::scram_sha512("carol", "carol-secret", b"n0nce")).unwrap_err();
    let odd = [ScramCredentialDeletion::default()
        .with_name("alice")
        .with_mechanism(7)];
    let odd = AlterUserScramCredentialsRequest::default().with_deletions(&odd);
    assert_eq!(
        codes(&mut admin, &odd),
        [ErrorCode::UNSUPPORTED_SASL_MECHANISM.0]
    );
}

/// A broker of Kafka's before 1.0 advertises SaslHandshake v0 alone: the session sends the
/// handshake at v0 and then the mechanism's messages raw, each mechanism logs in, and a wrong
/// password ends with the broker closing the connection.
#[test]
fn raw_tokens_after_a_handshake_v0() {
    let addr = Broker::spawn_sasl_v0(1, USERS);
    for credentials in [
        Credentials::plain("alice", "alice-secret"),
        Credentials::scram_sha256("alice", "alice-secret", b"raw-nonce"),
        Credentials::scram_sha512("bob", "b:o=b,secret", b"raw-nonce"),
    ] {
        let client: Client<'_, 8> = Client::negotiating(Some("raw")).with_sasl(credentials);
        let mut conn = io::connect(addr, client)
            .unwrap_or_else(|e| panic!("{}: {e}", credentials.mechanism()));
        assert_eq!(conn.version(kwire::ApiKey::SASL_HANDSHAKE).unwrap(), 0);
        assert_eq!(metadata(&mut conn), 0);
    }
    let client: Client<'_, 8> =
        Client::negotiating(None).with_sasl(Credentials::scram_sha512("alice", "guess", b"n0nce"));
    let e = io::connect(addr, client).unwrap_err();
    assert!(
        matches!(e, Error::Session(SessionError::Unanswered { .. })),
        "{e:?}"
    );
}
