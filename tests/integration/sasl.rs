//! The session's SASL authentication against a broker of the test's that requires it: the
//! handshake and the mechanism's messages after the ApiVersions exchange, PLAIN and SCRAM
//! accepted, a wrong password and a mechanism the broker does not offer refused with the
//! broker's words, a server that cannot prove it knows the password refused by the client, and
//! no secret in any error or `Debug` output.

use kwire::api::ErrorCode;
use kwire::messages::api_versions_response::ApiVersion;
use kwire::messages::{
    ApiVersionsResponse, HeartbeatRequest, HeartbeatResponse, SaslAuthenticateResponse,
    SaslHandshakeResponse,
};
use kwire::session::sasl::server::{Plain, ScramCredential, ScramServer};
use kwire::session::sasl::{AuthError, Credentials, SaslError, ScramHash};
use kwire::session::{Client, Event, FrameBuffer, SessionError, server};
use kwire::{ApiKey, Request, codec::Str};

const USER: &str = "alice";
const PASSWORD: &str = "alice-secret";

/// What the test broker does besides serving correctly.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Twist {
    None,
    /// Sends a server-final message signed with another password's key.
    ForgedSignature,
}

/// A broker that requires SASL: it offers PLAIN and the two SCRAM mechanisms, knows one user,
/// and answers a request other than ApiVersions or SASL's before authentication with nothing
/// (Kafka closes the connection).
struct Broker {
    mechanism: Option<String>,
    scram: Option<ScramServer>,
    authenticated: bool,
    twist: Twist,
}

impl Broker {
    fn new(twist: Twist) -> Self {
        Self {
            mechanism: None,
            scram: None,
            authenticated: false,
            twist,
        }
    }

    fn credential(hash: ScramHash, password: &str) -> ScramCredential {
        ScramCredential::derive(hash, password.as_bytes(), b"NaCl-of-alice", 4096).unwrap()
    }

    /// The answers to the request frames in `requests`.
    fn serve(&mut self, requests: &[u8]) -> Vec<u8> {
        let mut storage = vec![0u8; 1 << 16];
        let mut rx = FrameBuffer::new(&mut storage);
        assert_eq!(rx.push(requests), requests.len());
        let mut answers = Vec::new();
        let mut out = vec![0u8; 4096];
        while let Some(request) = server::next_request(&mut rx).unwrap() {
            let (_, body) = request.decode().unwrap();
            let n = match body {
                Request::ApiVersions(_) => {
                    let keys: Vec<_> = [(17, 0, 1), (36, 0, 2), (12, 0, 4)]
                        .iter()
                        .map(|&(k, min, max)| {
                            ApiVersion::default()
                                .with_api_key(k)
                                .with_min_version(min)
                                .with_max_version(max)
                        })
                        .collect();
                    let body = ApiVersionsResponse::default().with_api_keys(&keys[..]);
                    server::respond_api_versions(&request.info, &body, &mut out).unwrap()
                }
                Request::SaslHandshake(h) => {
                    let offered = [
                        Str::new("PLAIN"),
                        Str::new("SCRAM-SHA-256"),
                        Str::new("SCRAM-SHA-512"),
                    ];
                    let known = offered.contains(&h.mechanism);
                    self.mechanism = Some(h.mechanism.to_str().unwrap().to_string());
                    let code = if known {
                        ErrorCode::NONE
                    } else {
                        ErrorCode::UNSUPPORTED_SASL_MECHANISM
                    };
                    let body = SaslHandshakeResponse::default()
                        .with_error_code(code.0)
                        .with_mechanisms(&offered);
                    server::respond(&request.info, &body, &mut out).unwrap()
                }
                Request::SaslAuthenticate(a) => {
                    let mut answer = [0u8; 512];
                    let result = self.authenticate(a.auth_bytes, &mut answer);
                    let body = match result {
                        Ok(m) => SaslAuthenticateResponse::default()
                            .with_auth_bytes(&answer[..m])
                            .with_session_lifetime_ms(if self.authenticated { 3_600_000 } else { 0 }),
                        Err(_) => SaslAuthenticateResponse::default()
                            .with_error_code(ErrorCode::SASL_AUTHENTICATION_FAILED.0)
                            .with_error_message(Some(
                                "Authentication failed during authentication due to invalid credentials",
                            )),
                    };
                    server::respond(&request.info, &body, &mut out).unwrap()
                }
                Request::Heartbeat(_) if self.authenticated => {
                    server::respond(&request.info, &HeartbeatResponse::default(), &mut out).unwrap()
                }
                other => panic!("served {:?} before authentication", other.api_key()),
            };
            answers.extend_from_slice(&out[..n]);
        }
        answers
    }

    /// One SaslAuthenticate request's message: the answer's length in `answer`.
    fn authenticate(&mut self, message: &[u8], answer: &mut [u8]) -> Result<usize, SaslError> {
        let mechanism = self.mechanism.clone().unwrap();
        if mechanism == "PLAIN" {
            let plain = Plain::read(message)?;
            self.authenticated = plain.username == USER && plain.password_is(PASSWORD);
            return if self.authenticated {
                Ok(0)
            } else {
                Err(SaslError::State)
            };
        }
        let hash = ScramHash::from_mechanism(&mechanism).unwrap();
        match self.scram.take() {
            None => {
                let stored = Self::credential(hash, PASSWORD);
                let (scram, m) = ScramServer::start(
                    message,
                    |user| (user == USER).then_some(stored),
                    b"server-nonce-3rfcNHYJY1ZVvWVs7j",
                    answer,
                )?;
                self.scram = Some(scram);
                Ok(m)
            }
            Some(scram) => {
                let m = scram.finish(message, answer)?;
                self.authenticated = true;
                if self.twist == Twist::ForgedSignature {
                    // The same exchange signed with a key the password does not give.
                    let forged = b"v=AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=";
                    answer[..forged.len()].copy_from_slice(forged);
                    return Ok(forged.len());
                }
                Ok(m)
            }
        }
    }
}

/// Runs the client's own exchanges against `broker` until it is ready or fails, feeding the
/// answers back in chunks of three bytes; returns the events it saw.
fn drive(client: &mut Client<'_, 4>, broker: &mut Broker) -> Result<Vec<String>, SessionError> {
    drive_from(client, broker, Vec::new())
}

/// [`drive`], with `sent` (requests the caller sent) going out first.
fn drive_from(
    client: &mut Client<'_, 4>,
    broker: &mut Broker,
    sent: Vec<u8>,
) -> Result<Vec<String>, SessionError> {
    let mut tx = vec![0u8; 1024];
    let mut storage = vec![0u8; 4096];
    let mut rx = FrameBuffer::new(&mut storage);
    let mut events = Vec::new();
    let mut sent = Some(sent);
    while !client.is_ready() {
        let mut wire = sent.take().unwrap_or_default();
        while let Some(n) = client.poll_transmit(&mut tx)? {
            wire.extend_from_slice(&tx[..n]);
        }
        assert!(!wire.is_empty(), "the session has a request to send");
        let answers = broker.serve(&wire);
        for chunk in answers.chunks(3) {
            rx.push(chunk);
            while let Some(event) = client.receive(&mut rx)? {
                events.push(match event {
                    Event::Response(answer) => format!("{:?}", answer.request().api_key),
                    other => format!("{other:?}"),
                });
            }
        }
    }
    Ok(events)
}

fn heartbeat(client: &mut Client<'_, 4>, broker: &mut Broker) {
    let mut tx = vec![0u8; 256];
    let sent = client.send(&HeartbeatRequest::default(), &mut tx).unwrap();
    assert_eq!(sent.version, 4);
    let answer = broker.serve(&tx[..sent.len]);
    let mut storage = vec![0u8; 1024];
    let mut rx = FrameBuffer::new(&mut storage);
    rx.push(&answer);
    let Some(Event::Response(answer)) = client.receive(&mut rx).unwrap() else {
        panic!("the heartbeat's answer");
    };
    let body: HeartbeatResponse<'_> = answer.decode_as().unwrap();
    assert_eq!(body.error_code, 0);
}

#[test]
fn scram_and_plain_authenticate_before_any_request() {
    let nonce = b"fyko+d2lbbFgONRv9qkxdawL";
    for credentials in [
        Credentials::scram_sha512(USER, PASSWORD, nonce),
        Credentials::scram_sha256(USER, PASSWORD, nonce),
        Credentials::plain(USER, PASSWORD),
    ] {
        let mut broker = Broker::new(Twist::None);
        let mut client: Client<'_, 4> = Client::negotiating(Some("app")).with_sasl(credentials);
        let mut tx = [0u8; 256];
        assert!(client.send(&HeartbeatRequest::default(), &mut tx).is_err());
        let events = drive(&mut client, &mut broker).unwrap();
        let steps = if credentials.mechanism() == "PLAIN" {
            2
        } else {
            3
        };
        let mut expected = vec!["Authenticating".to_string(); steps];
        expected.push("Ready".into());
        assert_eq!(events, expected, "{}", credentials.mechanism());
        assert!(broker.authenticated);
        assert_eq!(client.session_lifetime_ms(), Some(3_600_000));
        heartbeat(&mut client, &mut broker);
    }
}

#[test]
fn a_wrong_password_is_refused_with_the_brokers_message() {
    for credentials in [
        Credentials::scram_sha512(USER, "guess", b"n0nce"),
        Credentials::plain(USER, "guess"),
    ] {
        let mut client: Client<'_, 4> = Client::negotiating(None).with_sasl(credentials);
        let e = drive(&mut client, &mut Broker::new(Twist::None)).unwrap_err();
        let SessionError::Auth(AuthError::Refused { code, reason }) = e else {
            panic!("refused, not {e:?}");
        };
        assert_eq!(code, ErrorCode::SASL_AUTHENTICATION_FAILED);
        let text = e.to_string();
        assert!(
            text.starts_with("SASL authentication failed: Authentication failed during"),
            "{text}"
        );
        assert!(!text.contains("guess") && !format!("{e:?} {client:?}").contains("guess"));
        assert!(reason.as_bytes().starts_with(b"Authentication failed"));
        assert!(!client.is_ready());
    }
}

#[test]
fn a_mechanism_the_broker_lacks_names_those_it_offers() {
    let credentials = Credentials::oauth_bearer("header.payload.signature");
    let mut client: Client<'_, 4> = Client::negotiating(None).with_sasl(credentials);
    let e = drive(&mut client, &mut Broker::new(Twist::None)).unwrap_err();
    assert!(matches!(
        e,
        SessionError::Auth(AuthError::Mechanism { asked: "OAUTHBEARER", offered, code })
            if offered.contains("SCRAM-SHA-512") && code == ErrorCode::UNSUPPORTED_SASL_MECHANISM
    ));
    assert_eq!(
        e.to_string(),
        "the broker refused SASL mechanism OAUTHBEARER (UNSUPPORTED_SASL_MECHANISM); it offers \
         PLAIN, SCRAM-SHA-256, SCRAM-SHA-512"
    );
}

#[test]
fn a_server_that_cannot_sign_is_not_trusted() {
    let credentials = Credentials::scram_sha512(USER, PASSWORD, b"n0nce");
    let mut client: Client<'_, 4> = Client::negotiating(None).with_sasl(credentials);
    let e = drive(&mut client, &mut Broker::new(Twist::ForgedSignature)).unwrap_err();
    assert_eq!(
        e,
        SessionError::Auth(AuthError::Exchange(SaslError::ServerSignature))
    );
    assert!(!client.is_ready());
    let mut tx = [0u8; 64];
    assert!(client.send(&HeartbeatRequest::default(), &mut tx).is_err());
}

#[test]
fn a_buffer_too_short_for_a_token_says_what_it_needs() {
    let token = "t".repeat(600);
    let credentials = Credentials::oauth_bearer(&token);
    // A client that does not negotiate starts with the handshake.
    let mut client: Client<'_, 4> = Client::new(Some("app")).with_sasl(credentials);
    let mut tx = vec![0u8; 256];
    assert!(client.poll_transmit(&mut tx).unwrap().is_some());
    let mut out = [0u8; 64];
    let info = kwire::frame::RequestInfo {
        api_key: ApiKey::SASL_HANDSHAKE,
        api_version: 1,
        correlation_id: 0,
        client_id: None,
    };
    let n = server::respond(&info, &SaslHandshakeResponse::default(), &mut out).unwrap();
    let mut storage = vec![0u8; 1024];
    let mut rx = FrameBuffer::new(&mut storage);
    rx.push(&out[..n]);
    assert!(matches!(
        client.receive(&mut rx),
        Ok(Some(Event::Authenticating))
    ));
    let e = client.poll_transmit(&mut tx).unwrap_err();
    let SessionError::Encode(kwire::EncodeError::BufferTooSmall {
        required,
        available,
    }) = e
    else {
        panic!("too small, not {e:?}");
    };
    assert_eq!(available, 256);
    // The message and the request that copies it, with room for the length's encoding.
    let message = format!("n,,\x01auth=Bearer {token}\x01\x01");
    assert!(
        (2 * message.len()..2 * message.len() + 64).contains(&required),
        "{required}"
    );
    // The failed step is taken again with the length asked for: the same first message.
    tx.resize(required, 0);
    let n = client.poll_transmit(&mut tx).unwrap().unwrap();
    let (header, request) = kwire::frame::decode_request(&tx[..n]).unwrap();
    assert_eq!(header.request_api_key, ApiKey::SASL_AUTHENTICATE.0);
    let Request::SaslAuthenticate(request) = request else {
        panic!("a SaslAuthenticate request, not {request:?}");
    };
    assert_eq!(request.auth_bytes, message.as_bytes());
    assert_eq!(
        client.in_flight(),
        1,
        "the token's request alone: the refused one left none"
    );
}

/// KIP-368: a session authenticates again on its connection before the broker's lifetime ends,
/// a request in flight answered in the middle, and no request sent until it is done.
#[test]
fn a_session_authenticates_again_with_a_request_in_flight() {
    let mut broker = Broker::new(Twist::None);
    let credentials = Credentials::scram_sha512(USER, PASSWORD, b"first-nonce");
    let mut client: Client<'_, 4> = Client::negotiating(Some("app")).with_sasl(credentials);
    assert_eq!(
        client.reauthenticate(credentials),
        Err(SessionError::NotNegotiated),
        "not before the first authentication"
    );
    assert_eq!(client.handle_timeout(1_000), None);
    drive(&mut client, &mut broker).unwrap();
    // Nine tenths of the hour the broker gave, from the clock when it accepted.
    assert_eq!(client.reauthenticate_at(), Some(1_000 + 3_240_000));

    let mut tx = [0u8; 256];
    let sent = client.send(&HeartbeatRequest::default(), &mut tx).unwrap();
    let in_flight = tx[..sent.len].to_vec();
    let again = Credentials::scram_sha512(USER, PASSWORD, b"second-nonce");
    client.reauthenticate(again).unwrap();
    assert!(!client.is_ready());
    assert!(client.send(&HeartbeatRequest::default(), &mut tx).is_err());
    assert_eq!(client.in_flight(), 1);
    client.handle_timeout(2_000_000);
    let events = drive_from(&mut client, &mut broker, in_flight).unwrap();
    assert_eq!(
        events,
        ["Heartbeat(12)", "Authenticating", "Authenticating", "Ready"],
        "the heartbeat's answer, then the handshake's and the SCRAM exchange's"
    );
    assert_eq!(client.reauthenticate_at(), Some(2_000_000 + 3_240_000));
    heartbeat(&mut client, &mut broker);
}
