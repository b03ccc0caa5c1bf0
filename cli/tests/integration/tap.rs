//! `kwire tap` between a client and two brokers written here: frames relayed byte for byte,
//! broker addresses pointed at the tap (one port per broker), exchanges printed, the traffic
//! written to a capture that `kwire capture` reads back.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};

use kwire::ApiKey;
use kwire::frame;
use kwire::messages::metadata_response::MetadataResponseBroker;
use kwire::messages::{
    HeartbeatRequest, HeartbeatResponse, MetadataRequest, MetadataResponse, RequestHeader,
    ResponseHeader,
};

/// The frames a broker read and wrote.
type Log = Arc<Mutex<Vec<(Vec<u8>, Vec<u8>)>>>;

/// A broker that answers Metadata (naming `brokers`) and Heartbeat (with `error_code`, which
/// tells the brokers apart), and logs every frame.
fn broker(brokers: Arc<Mutex<Vec<SocketAddr>>>, error_code: i16) -> (SocketAddr, Log) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap();
    let log: Log = Arc::default();
    let seen = Arc::clone(&log);
    std::thread::spawn(move || {
        for conn in listener.incoming() {
            let (mut conn, brokers, seen) =
                (conn.unwrap(), Arc::clone(&brokers), Arc::clone(&seen));
            std::thread::spawn(move || {
                while let Some(request) = read_frame(&mut conn) {
                    let info = frame::request_info(&request).unwrap();
                    let header = ResponseHeader::default().with_correlation_id(info.correlation_id);
                    let mut out = vec![0u8; 1024];
                    let n = if info.api_key == ApiKey::METADATA {
                        let hosts: Vec<String> =
                            lock(&brokers).iter().map(|a| a.ip().to_string()).collect();
                        let rows: Vec<MetadataResponseBroker<'_>> = lock(&brokers)
                            .iter()
                            .zip(&hosts)
                            .enumerate()
                            .map(|(i, (a, host))| {
                                MetadataResponseBroker::default()
                                    .with_node_id(i32::try_from(i).unwrap() + 1)
                                    .with_host(host)
                                    .with_port(i32::from(a.port()))
                            })
                            .collect();
                        let body = MetadataResponse::default().with_brokers(&rows[..]);
                        frame::encode_response(&header, &body, info.api_version, &mut out)
                    } else {
                        let body = HeartbeatResponse::default().with_error_code(error_code);
                        frame::encode_response(&header, &body, info.api_version, &mut out)
                    }
                    .unwrap();
                    out.truncate(n);
                    // Logged before it is sent: the test reads the log once the answer is in.
                    lock(&seen).push((request, out.clone()));
                    conn.write_all(&out).unwrap();
                }
            });
        }
    });
    (addr, log)
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap()
}

fn read_frame(s: &mut TcpStream) -> Option<Vec<u8>> {
    let mut size = [0u8; 4];
    s.read_exact(&mut size).ok()?;
    let mut frame = size.to_vec();
    frame.resize(4 + usize::try_from(i32::from_be_bytes(size)).unwrap(), 0);
    s.read_exact(&mut frame[4..]).ok()?;
    Some(frame)
}

fn request<B: frame::Body>(api: ApiKey, version: i16, correlation_id: i32, body: &B) -> Vec<u8> {
    let header = RequestHeader::new(api, version, correlation_id).with_client_id(Some("tapped"));
    let mut out = vec![0u8; 256];
    let n = frame::encode_request(&header, body, &mut out).unwrap();
    out.truncate(n);
    out
}

/// Stops the tap when the test ends, passing or not.
struct Tap(Child);

impl Drop for Tap {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

#[test]
fn relays_reroutes_prints_and_writes() {
    let brokers: Arc<Mutex<Vec<SocketAddr>>> = Arc::default();
    let (first, first_log) = broker(Arc::clone(&brokers), 0);
    let (second, second_log) = broker(Arc::clone(&brokers), 27);
    lock(&brokers).extend([first, second]);

    let file = std::env::temp_dir().join(format!("kwire-tap-{}.pcapng", std::process::id()));
    let mut child = Command::new(env!("CARGO_BIN_EXE_kwire"))
        .args(["tap", "--listen", "127.0.0.1:0", "--upstream"])
        .arg(first.to_string())
        .arg("--write")
        .arg(&file)
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    let tap = Tap(child);
    let banner = lines.next().unwrap().unwrap();
    let listen: SocketAddr = banner
        .strip_prefix("kwire tap: listening on ")
        .and_then(|rest| rest.split(',').next())
        .unwrap()
        .parse()
        .unwrap();

    // Metadata through the tap: both brokers are the tap, the first at its listening port.
    let mut client = TcpStream::connect(listen).unwrap();
    let metadata = request(ApiKey::METADATA, 12, 1, &MetadataRequest::default());
    client.write_all(&metadata).unwrap();
    let reply = read_frame(&mut client).unwrap();
    let (_, body) = frame::decode_response_as::<MetadataResponse<'_>>(&reply, 12).unwrap();
    let told: Vec<(String, i32)> = body
        .brokers
        .iter()
        .map(|b| (b.host.to_string(), b.port))
        .collect();
    assert_eq!(told[0], ("127.0.0.1".to_string(), i32::from(listen.port())));
    assert_eq!(told[1].0, "127.0.0.1");
    assert_ne!(told[1].1, i32::from(listen.port()));
    assert_ne!(told[1].1, i32::from(second.port()));

    // A Heartbeat through the tap: request and response byte for byte.
    let heartbeat = request(
        ApiKey::HEARTBEAT,
        4,
        2,
        &HeartbeatRequest::default().with_group_id("g"),
    );
    client.write_all(&heartbeat).unwrap();
    let answer = read_frame(&mut client).unwrap();
    {
        let log = lock(&first_log);
        assert_eq!(log[0].0, metadata);
        assert_eq!(log[1], (heartbeat.clone(), answer.clone()));
    }
    drop(client);

    // The second broker, at the port the tap told: its Heartbeat says so (error code 27).
    let mut to_second =
        TcpStream::connect(("127.0.0.1", u16::try_from(told[1].1).unwrap())).unwrap();
    let heartbeat = request(
        ApiKey::HEARTBEAT,
        4,
        3,
        &HeartbeatRequest::default().with_group_id("g"),
    );
    to_second.write_all(&heartbeat).unwrap();
    let answer = read_frame(&mut to_second).unwrap();
    let (_, body) = frame::decode_response_as::<HeartbeatResponse<'_>>(&answer, 4).unwrap();
    assert_eq!(body.error_code, 27);
    assert_eq!(lock(&second_log)[0], (heartbeat, answer));
    drop(to_second);

    // One line per exchange, as kwire capture prints them.
    let mut printed = Vec::new();
    for line in lines.by_ref() {
        let line = line.unwrap();
        printed.push(line);
        if printed.len() == 3 {
            break;
        }
    }
    let text = printed.join("\n");
    assert!(
        text.contains(&format!(
            "> {first}  Metadata v12  corr 1  client \"tapped\""
        )),
        "{text}"
    );
    assert!(
        text.contains(&format!("> {first}  Heartbeat v4  corr 2")),
        "{text}"
    );
    assert!(
        text.contains(&format!("> {second}  Heartbeat v4  corr 3")),
        "{text}"
    );
    assert!(
        text.contains("errors: REBALANCE_IN_PROGRESS (27)"),
        "{text}"
    );
    drop(tap);

    // The written capture holds the three exchanges, as the brokers sent them.
    let o = Command::new(env!("CARGO_BIN_EXE_kwire"))
        .args(["capture"])
        .arg(&file)
        .args(["--check", "--port", &first.port().to_string()])
        .args(["--port", &second.port().to_string()])
        .output()
        .unwrap();
    std::fs::remove_file(&file).unwrap();
    let out = String::from_utf8(o.stdout).unwrap();
    assert_eq!(o.status.code(), Some(0), "{out}");
    assert!(
        out.contains("3 requests on 2 connections: 3 answered"),
        "{out}"
    );
    assert!(
        out.contains(&format!("> {first}  Metadata v12  corr 1")),
        "{out}"
    );
}

#[test]
fn ends_tls_on_both_sides_and_hides_credentials() {
    use kwire::io::tls::{self, ClientTls};
    use kwire::messages::MetadataRequest;
    use kwire::session::Client;
    use kwire::session::sasl::Credentials;

    let pki = kwire_testkit::pki::Pki::new("tap");
    let server = pki.server(&["127.0.0.1"]);
    let broker = kwire_examples::mini_broker::broker::Broker::spawn_tls(
        1,
        &[("alice", "tap-secret-42")],
        server.clone().config().unwrap(),
    );
    let (cert, key) = (pki.dir.join("broker.pem"), pki.dir.join("broker.key"));
    let mut child = Command::new(env!("CARGO_BIN_EXE_kwire"))
        .args(["tap", "--listen", "127.0.0.1:0", "--tree", "--upstream"])
        .arg(broker.to_string())
        .arg("--tls-cert")
        .arg(&cert)
        .arg("--tls-key")
        .arg(&key)
        .arg("--upstream-ca-file")
        .arg(pki.ca_file())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let stdout = child.stdout.take().unwrap();
    let tap = Tap(child);
    let mut lines = BufReader::new(stdout).lines();
    let banner = lines.next().unwrap().unwrap();
    assert!(banner.contains("over TLS, relaying to"), "{banner}");
    let listen = banner
        .strip_prefix("kwire tap: listening on ")
        .and_then(|rest| rest.split(' ').next())
        .unwrap()
        .to_owned();

    let trust = ClientTls::ca_file(pki.ca_file()).unwrap().config().unwrap();
    let credentials = Credentials::scram_sha256("alice", "tap-secret-42", b"tap-nonce");
    let client: Client<'_, 8> = Client::negotiating(Some("tap-tls")).with_sasl(credentials);
    let mut conn = tls::connect(&listen, Some(&trust), client).unwrap();
    let answer = conn.call(&MetadataRequest::default()).unwrap();
    let metadata: MetadataResponse<'_> = answer.decode_as().unwrap();
    // The broker is told as the tap, which it reaches over TLS too.
    let told = metadata.brokers.iter().next().unwrap();
    assert_eq!(told.port.to_string(), listen.rsplit(':').next().unwrap());
    // The tap prints an exchange after it relayed the response: read up to the Metadata one,
    // for ten seconds at most.
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for line in lines.map_while(Result::ok) {
            if tx.send(line).is_err() {
                break;
            }
        }
    });
    let mut printed = Vec::new();
    while let Ok(line) = rx.recv_timeout(std::time::Duration::from_secs(10)) {
        let done = line.contains("  Metadata v");
        printed.push(line);
        if done {
            break;
        }
    }
    drop(conn);
    drop(tap);
    let text = printed.join("\n");
    assert!(text.contains("  Metadata v"), "{text}");
    assert!(text.contains("SaslAuthenticate v2"), "{text}");
    assert!(text.contains("SCRAM client-final"), "{text}");
    assert!(!text.contains("tap-secret-42"), "{text}");
}
