//! The mini broker's TLS listener and kwire's TLS connection, with certificates made here: SCRAM
//! and PLAIN over TLS (SASL_SSL) produce and fetch back; a certificate from another CA, one for
//! another name, and a missing client certificate where the listener requires one are refused
//! in the handshake.

use kwire::io::Error;
use kwire::io::tls::{self, ClientTls, ServerTls};
use kwire::messages::{MetadataRequest, MetadataResponse};
use kwire::session::Client;
use kwire::session::sasl::Credentials;
use kwire_examples::mini_broker::broker::Broker;
use kwire_testkit::pki::Pki;

const USERS: &[(&str, &str)] = &[("alice", "alice-secret")];

use super::sasl::metadata;

/// Why a connection to `addr` that trusts `trust` fails in the handshake.
fn refused(addr: &str, trust: &std::sync::Arc<tls::rustls::ClientConfig>) -> String {
    let e = tls::connect(addr, Some(trust), Client::<8>::negotiating(None)).unwrap_err();
    handshake_error(&e)
}

/// The handshake's failure, as the connection reports it.
fn handshake_error(e: &Error) -> String {
    let Error::Io(e) = e else {
        panic!("a failed handshake, not {e:?}");
    };
    e.to_string()
}

#[test]
fn sasl_over_tls_reaches_the_broker() {
    let pki = Pki::new("sasl");
    let server = pki.server(&["localhost", "127.0.0.1"]).config().unwrap();
    let addr = Broker::spawn_tls(1, USERS, server);
    let trust = ClientTls::ca_file(pki.ca_file()).unwrap().config().unwrap();
    for credentials in [
        Credentials::plain("alice", "alice-secret"),
        Credentials::scram_sha256("alice", "alice-secret", b"tls-nonce"),
        Credentials::scram_sha512("alice", "alice-secret", b"tls-nonce"),
    ] {
        for host in ["127.0.0.1", "localhost"] {
            let client: Client<'_, 8> =
                Client::negotiating(Some("tls-test")).with_sasl(credentials);
            let at = format!("{host}:{}", addr.port());
            let mut conn = tls::connect(&at, Some(&trust), client)
                .unwrap_or_else(|e| panic!("{at} with {}: {e}", credentials.mechanism()));
            assert!(matches!(conn.get_ref(), tls::Stream::Tls(_)));
            assert_eq!(metadata(&mut conn), 0);
        }
    }
}

#[test]
fn a_certificate_from_another_ca_is_refused() {
    let (pki, other) = (Pki::new("issuer"), Pki::new("other"));
    let addr = Broker::spawn_tls(1, &[], pki.server(&["127.0.0.1"]).config().unwrap());
    let trust = ClientTls::ca_file(other.ca_file())
        .unwrap()
        .config()
        .unwrap();
    let why = refused(&addr.to_string(), &trust);
    assert!(why.contains("UnknownIssuer"), "{why}");
}

#[test]
fn a_certificate_for_another_name_is_refused() {
    let pki = Pki::new("name");
    let addr = Broker::spawn_tls(1, &[], pki.server(&["broker.test"]).config().unwrap());
    let trust = ClientTls::ca_file(pki.ca_file()).unwrap().config().unwrap();
    let why = refused(&addr.to_string(), &trust);
    assert!(why.contains("not valid for name"), "{why}");
}

#[test]
fn a_listener_that_requires_a_client_certificate() {
    let pki = Pki::new("mtls");
    let server = pki
        .server(&["127.0.0.1"])
        .with_client_ca_file(pki.ca_file())
        .unwrap()
        .config()
        .unwrap();
    let addr = Broker::spawn_tls(1, &[], server).to_string();
    let trust = ClientTls::ca_file(pki.ca_file()).unwrap();

    let anonymous = trust.clone().config().unwrap();
    refused(&addr, &anonymous);

    let (cert, key) = pki.issue("client", &["client.test"]);
    let shown = trust.with_client_cert(cert, key).unwrap().config().unwrap();
    let mut conn = tls::connect(&addr, Some(&shown), Client::<8>::negotiating(None)).unwrap();
    assert_eq!(metadata(&mut conn), 0);
}

#[test]
fn plain_tcp_through_the_same_call() {
    let addr = Broker::spawn(1).to_string();
    let mut conn = tls::connect(&addr, None, Client::<8>::negotiating(None)).unwrap();
    assert!(matches!(conn.get_ref(), tls::Stream::Tcp(_)));
    assert_eq!(metadata(&mut conn), 0);
}

#[test]
fn files_that_hold_no_certificate_or_key() {
    let pki = Pki::new("files");
    let empty = pki.dir.join("empty.pem");
    std::fs::write(&empty, "").unwrap();
    assert!(matches!(
        ClientTls::ca_file(&empty),
        Err(tls::TlsError::NoCertificate { .. })
    ));
    assert!(matches!(
        ClientTls::ca_file(pki.dir.join("missing.pem")),
        Err(tls::TlsError::File { .. })
    ));
    let (cert, _) = pki.issue("lone", &["lone.test"]);
    assert!(matches!(
        ServerTls::new(&cert, &empty),
        Err(tls::TlsError::File { .. })
    ));
    // A key of another certificate is refused when the configuration is built.
    let (_, other_key) = pki.issue("other", &["other.test"]);
    let mismatch = ServerTls::new(&cert, &other_key).unwrap().config();
    assert!(
        matches!(mismatch, Err(tls::TlsError::Config(_))),
        "{mismatch:?}"
    );
}

#[test]
fn a_listener_that_does_not_speak_tls_is_named_in_time() {
    let pki = Pki::new("silent");
    let trust = ClientTls::ca_file(pki.ca_file()).unwrap().config().unwrap();
    // Accepts, reads, never answers: a plain listener waiting for the rest of a frame.
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap().to_string();
    std::thread::spawn(move || {
        let (mut s, _) = listener.accept().unwrap();
        let mut sink = Vec::new();
        let _ = std::io::Read::read_to_end(&mut s, &mut sink);
    });
    let client = Client::<8>::negotiating(None).with_request_timeout(300);
    let started = std::time::Instant::now();
    let e = tls::connect(&addr, Some(&trust), client).unwrap_err();
    let Error::Io(io) = &e else {
        panic!("a timed-out handshake, not {e:?}");
    };
    assert_eq!(io.kind(), std::io::ErrorKind::TimedOut, "{e}");
    assert!(e.to_string().contains("is the listener TLS?"), "{e}");
    assert!(started.elapsed() < std::time::Duration::from_secs(5));
}

#[test]
fn the_proxy_ends_tls_on_both_sides() {
    use kwire_examples::proxy;

    let pki = Pki::new("proxy");
    let server = pki.server(&["127.0.0.1"]);
    let broker = Broker::spawn_tls(1, USERS, server.clone().config().unwrap());
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let local = listener.local_addr().unwrap();
    let config = proxy::Config {
        upstream: broker.to_string(),
        client_id: None,
        quiet: true,
        host: local.ip().to_string(),
        port: i32::from(local.port()),
        listen_tls: Some(server.config().unwrap()),
        upstream_tls: Some(ClientTls::ca_file(pki.ca_file()).unwrap().config().unwrap()),
    };
    std::thread::spawn(move || proxy::serve(&listener, config));

    let trust = ClientTls::ca_file(pki.ca_file()).unwrap().config().unwrap();
    let credentials = Credentials::scram_sha512("alice", "alice-secret", b"proxy-nonce");
    let client: Client<'_, 8> = Client::negotiating(Some("via-proxy")).with_sasl(credentials);
    let mut conn = tls::connect(&local.to_string(), Some(&trust), client).unwrap();
    assert_eq!(metadata(&mut conn), 0);
    // The broker the client is told is the proxy.
    let answer = conn.call(&MetadataRequest::default()).unwrap();
    let body: MetadataResponse<'_> = answer.decode_as().unwrap();
    let told = body.brokers.iter().next().unwrap();
    assert_eq!(told.port, i32::from(local.port()));
}
