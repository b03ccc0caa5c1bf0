//! `kwire probe` against the mini broker (in this process), which must conform at every version
//! it serves and refuse the others, and against a fake broker that misbehaves in a different way
//! at each API version, each of which must be reported with its verdict.

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::process::{Command, Output};

use kwire::ApiKey;
use kwire::api::API_TABLE;
use kwire::codec::VersionRange;
use kwire::header::response_header_version;
use kwire::messages::api_versions_response::ApiVersion;
use kwire::messages::{ApiVersionsResponse, HeartbeatResponse};
use kwire::session::{FrameBuffer, server};
use kwire_schema::describe::{self, Side};

use kwire_examples::mini_broker::broker::{Broker, served_versions};

fn kwire(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_kwire"))
        .args(args)
        .output()
        .expect("kwire runs")
}

fn text(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn mini_broker() -> SocketAddr {
    Broker::spawn(1)
}

/// The verdict runs the table prints for an API: `0-2 not advertised, 3-13 ok`.
fn runs(known: VersionRange, served: VersionRange) -> String {
    let mut parts = Vec::new();
    let span = |a: i16, b: i16, what: &str| {
        if a == b {
            format!("{a} {what}")
        } else {
            format!("{a}-{b} {what}")
        }
    };
    if served.is_empty() {
        return span(known.min, known.max, "not advertised");
    }
    if served.min > known.min {
        parts.push(span(known.min, served.min - 1, "not advertised"));
    }
    parts.push(span(served.min, served.max, "ok"));
    if served.max < known.max {
        parts.push(span(served.max + 1, known.max, "not advertised"));
    }
    parts.join(", ")
}

#[test]
fn the_mini_broker_conforms_at_every_version() {
    let addr = mini_broker().to_string();
    let o = kwire(&[
        "probe",
        &addr,
        "--versions",
        "all",
        "--allow-writes",
        "--timeout",
        "5000",
    ]);
    let out = text(&o);
    assert!(
        o.status.success(),
        "{out}\n{}",
        String::from_utf8_lossy(&o.stderr)
    );
    assert!(
        out.starts_with(&format!("broker {addr}: ApiVersions v")),
        "{out}"
    );
    let mut checked = 0;
    for info in API_TABLE {
        if info.request_versions.is_empty() {
            continue;
        }
        let served = served_versions(info.key);
        let line = out
            .lines()
            .find(|l| l.split_whitespace().nth(1) == Some(info.name))
            .unwrap_or_else(|| panic!("no line for {}:\n{out}", info.name));
        let want = runs(info.request_versions, served);
        assert!(
            line.ends_with(&want),
            "{}: want {want}, got\n{line}",
            info.name
        );
        checked += 1;
    }
    assert_eq!(
        checked,
        API_TABLE
            .iter()
            .filter(|i| !i.request_versions.is_empty())
            .count()
    );
    assert!(out.contains("The broker conforms."), "{out}");
    assert!(!out.contains("answered though not advertised"), "{out}");
}

#[test]
fn writes_are_skipped_unless_allowed() {
    let addr = mini_broker().to_string();
    let o = kwire(&["probe", &addr, "--api", "CreateTopics", "--api", "Metadata"]);
    let out = text(&o);
    assert!(o.status.success(), "{out}");
    assert!(
        out.contains(" 19  CreateTopics  2-7         2-7 skipped (writes)"),
        "{out}"
    );
    assert!(
        out.contains("  3  Metadata      0-13        0-13 ok"),
        "{out}"
    );
    assert!(out.contains("14 ok, 6 skipped (writes)"), "{out}");
}

#[test]
fn the_json_document_holds_every_verdict() {
    let addr = mini_broker().to_string();
    let o = kwire(&[
        "probe",
        &addr,
        "--json",
        "--api",
        "Heartbeat",
        "--versions",
        "all",
    ]);
    assert!(o.status.success(), "{}", text(&o));
    let doc: serde_json::Value = serde_json::from_slice(&o.stdout).expect("a JSON document");
    assert_eq!(doc["findings"], 0);
    assert_eq!(doc["api_versions"]["asked"][0], 5);
    let apis = doc["apis"].as_array().expect("apis");
    assert_eq!(apis.len(), 1);
    assert_eq!(apis[0]["name"], "Heartbeat");
    assert_eq!(apis[0]["advertised"]["max"], 4);
    let verdicts: Vec<_> = apis[0]["results"]
        .as_array()
        .expect("results")
        .iter()
        .map(|r| r["verdict"].as_str().unwrap_or("").to_string())
        .collect();
    assert_eq!(verdicts, ["ok"; 5]);
}

// --- a misbehaving broker ------------------------------------------------------------------

/// What the fake broker does with a request.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Act {
    /// The smallest legal response.
    Answer,
    /// A Heartbeat response with this error code.
    Code(i16),
    /// The right body after the other response header version.
    OtherHeader,
    /// The right frame with a byte more.
    Trailing,
    /// The right correlation id, then eight 0xff bytes.
    Garbage,
    /// The right frame with the next correlation id.
    OtherCorrelation,
    /// Nothing, the connection left open.
    Silence,
    /// The connection closed.
    Close,
}

/// The advertised versions of the fake broker, and what it does with each request.
const ADVERTISED: &[(ApiKey, i16, i16)] = &[
    (ApiKey::HEARTBEAT, 0, 4),
    (ApiKey::LIST_GROUPS, 1, 5),
    (ApiKey::METADATA, 1, 1),
    (ApiKey::DESCRIBE_CLUSTER, 0, 2),
    (ApiKey::API_VERSIONS, 0, 4),
];

fn act(key: ApiKey, version: i16) -> Act {
    match (key, version) {
        (ApiKey::HEARTBEAT, 1) => Act::Code(35),
        (ApiKey::HEARTBEAT, 2) => Act::Code(9999),
        // v3 answers after header v1 where v0 is due, v4 after v0 where v1 is.
        (ApiKey::HEARTBEAT, 3 | 4) => Act::OtherHeader,
        // Version 0 is not advertised, yet answered.
        (ApiKey::LIST_GROUPS, 0) => Act::Answer,
        (ApiKey::LIST_GROUPS, 2) => Act::Trailing,
        (ApiKey::LIST_GROUPS, 3) => Act::Garbage,
        (ApiKey::LIST_GROUPS, 5) => Act::OtherCorrelation,
        (ApiKey::METADATA, 1) => Act::Silence,
        (ApiKey::DESCRIBE_CLUSTER, 1) => Act::Close,
        _ => {
            let advertised = ADVERTISED
                .iter()
                .any(|&(k, a, b)| k == key && (a..=b).contains(&version));
            if advertised { Act::Answer } else { Act::Close }
        }
    }
}

/// `frame` with its size prefix set to its length.
fn sized(mut frame: Vec<u8>) -> Vec<u8> {
    let size = i32::try_from(frame.len() - 4).expect("small");
    frame[..4].copy_from_slice(&size.to_be_bytes());
    frame
}

fn minimal_response(key: ApiKey, version: i16, correlation_id: i32) -> Vec<u8> {
    let mut out = vec![0u8; 4096];
    let n = describe::write_minimal_frame(key, version, Side::Response, &mut out).expect("minimal");
    out.truncate(n);
    out[4..8].copy_from_slice(&correlation_id.to_be_bytes());
    out
}

/// The fake broker's answer to one request frame; `None`: close the connection.
fn answer(request: &[u8]) -> Option<Option<Vec<u8>>> {
    let info = kwire::frame::request_info(request).ok()?;
    let (key, version, id) = (info.api_key, info.api_version, info.correlation_id);
    let mut out = vec![0u8; 4096];
    if key == ApiKey::API_VERSIONS {
        let n = if version > 4 {
            server::reject_api_versions(&info, VersionRange::new(0, 4), &mut out).ok()?
        } else {
            let rows: Vec<_> = ADVERTISED
                .iter()
                .map(|&(k, a, b)| {
                    ApiVersion::default()
                        .with_api_key(k.0)
                        .with_min_version(a)
                        .with_max_version(b)
                })
                .collect();
            let body = ApiVersionsResponse::default().with_api_keys(&rows[..]);
            server::respond_api_versions(&info, &body, &mut out).ok()?
        };
        out.truncate(n);
        return Some(Some(out));
    }
    let right = minimal_response(key, version, id);
    let reply = match act(key, version) {
        Act::Answer => right,
        Act::Code(code) => {
            let body = HeartbeatResponse::default().with_error_code(code);
            let n = server::respond(&info, &body, &mut out).ok()?;
            out.truncate(n);
            out
        }
        Act::OtherHeader => {
            let mut f = right;
            if response_header_version(key, version) == 1 {
                f.remove(8);
            } else {
                f.insert(8, 0);
            }
            sized(f)
        }
        Act::Trailing => {
            let mut f = right;
            f.push(7);
            sized(f)
        }
        Act::Garbage => {
            let mut f = right[..8].to_vec();
            f.extend_from_slice(&[0xff; 8]);
            sized(f)
        }
        Act::OtherCorrelation => {
            let mut f = right;
            f[4..8].copy_from_slice(&(id + 1).to_be_bytes());
            f
        }
        Act::Silence => return Some(None),
        Act::Close => return None,
    };
    Some(Some(reply))
}

fn fake_connection(mut stream: TcpStream) {
    let mut rx = FrameBuffer::new(vec![0u8; 1 << 16]);
    loop {
        let reply = match server::next_request(&mut rx) {
            Ok(Some(request)) => answer(request.frame),
            Ok(None) => {
                match stream.read(rx.spare()) {
                    Ok(0) | Err(_) => return,
                    Ok(n) => rx.filled(n),
                }
                continue;
            }
            Err(_) => return,
        };
        match reply {
            Some(Some(bytes)) => {
                if stream.write_all(&bytes).is_err() {
                    return;
                }
            }
            Some(None) => {}
            None => return,
        }
    }
}

fn fake_broker() -> SocketAddr {
    let listener = TcpListener::bind("127.0.0.1:0").expect("bind");
    let addr = listener.local_addr().expect("local addr");
    std::thread::spawn(move || {
        for stream in listener.incoming().flatten() {
            std::thread::spawn(move || fake_connection(stream));
        }
    });
    addr
}

/// The verdict line of `name` in the table.
fn line<'a>(out: &'a str, name: &str) -> &'a str {
    out.lines()
        .find(|l| l.split_whitespace().nth(1) == Some(name))
        .unwrap_or_else(|| panic!("no line for {name}:\n{out}"))
}

#[test]
fn every_misbehaviour_is_reported() {
    let addr = fake_broker().to_string();
    let o = kwire(&[
        "probe",
        &addr,
        "--versions",
        "all",
        "--timeout",
        "1000",
        "--api",
        "Heartbeat",
        "--api",
        "ListGroups",
        "--api",
        "Metadata",
        "--api",
        "DescribeCluster",
        "--api",
        "ApiVersions",
    ]);
    let out = text(&o);
    assert_eq!(o.status.code(), Some(1), "{out}");
    // ApiVersions v5 is refused in the v0 layout, as Kafka refuses a version it does not know.
    assert!(
        line(&out, "ApiVersions").ends_with("0-4 ok, 5 not advertised"),
        "{out}"
    );
    assert!(
        out.contains("ApiVersions v5 refused, the session fell back to v4, which was answered"),
        "{out}"
    );
    assert!(
        line(&out, "Heartbeat")
            .ends_with("0 ok, 1 refused, 2 unknown error code, 3-4 wrong header version"),
        "{out}"
    );
    assert!(
        line(&out, "ListGroups").ends_with(
            "0 answered though not advertised, 1 ok, 2-3 undecodable, 4 ok, \
             5 wrong correlation id"
        ),
        "{out}"
    );
    assert!(
        line(&out, "Metadata").ends_with("0 not advertised, 1 timeout, 2-13 not advertised"),
        "{out}"
    );
    assert!(
        line(&out, "DescribeCluster").ends_with("0 ok, 1 connection closed, 2 ok"),
        "{out}"
    );
    assert!(
        out.contains("v2: unknown error code: error code 9999"),
        "{out}"
    );
    assert!(
        out.contains("v3: wrong header version: the body follows a response header v1"),
        "{out}"
    );
    assert!(
        out.contains("v4: wrong header version: the body follows a response header v0"),
        "{out}"
    );
    assert!(out.contains("10 findings."), "{out}");
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert!(stderr.contains("does not conform: 10 findings"), "{stderr}");

    let o = kwire(&[
        "probe",
        &addr,
        "--versions",
        "all",
        "--timeout",
        "1000",
        "--api",
        "Heartbeat",
        "--json",
    ]);
    assert_eq!(o.status.code(), Some(1));
    let doc: serde_json::Value = serde_json::from_slice(&o.stdout).expect("a JSON document");
    assert_eq!(doc["findings"], 4);
    assert_eq!(doc["api_versions"]["asked"], serde_json::json!([5, 4]));
    assert_eq!(
        doc["apis"][0]["results"][4]["verdict"],
        "wrong header version"
    );
    assert_eq!(doc["apis"][0]["results"][4]["finding"], true);
}

#[test]
fn an_unreachable_broker_is_a_plain_failure() {
    // A port just released: nothing listens there.
    let addr = TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .expect("a port")
        .to_string();
    let o = kwire(&["probe", &addr, "--timeout", "500"]);
    assert_eq!(o.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert!(stderr.starts_with("kwire: connecting to"), "{stderr}");
}

// --- fuzzing -------------------------------------------------------------------------------

fn temp_dir(name: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("kwire-probe-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

#[test]
fn fuzzing_the_mini_broker_finds_nothing_and_is_reproducible() {
    let addr = mini_broker().to_string();
    let dir = temp_dir("mini");
    let out = dir.to_str().expect("a UTF-8 path");
    let run = || kwire(&["probe", &addr, "--fuzz", "150", "--seed", "5", "--out", out]);
    let (a, b) = (run(), run());
    let text_a = text(&a);
    assert!(
        a.status.success(),
        "{text_a}\n{}",
        String::from_utf8_lossy(&a.stderr)
    );
    assert!(
        text_a.starts_with("fuzz: 150 requests sent (seed 5, "),
        "{text_a}"
    );
    assert!(text_a.contains(" 0 findings."), "{text_a}");
    // The same seed sends the same requests: the same answers and closes.
    assert_eq!(text_a, text(&b));
    assert!(!dir.exists(), "no finding, no file");
}

#[test]
fn fuzz_findings_are_written_and_replayed() {
    let addr = fake_broker().to_string();
    let dir = temp_dir("fake");
    let out = dir.to_str().expect("a UTF-8 path");
    // The fake broker never answers Metadata v1, its only advertised version.
    let o = kwire(&[
        "probe",
        &addr,
        "--fuzz",
        "3",
        "--seed",
        "1",
        "--timeout",
        "1000",
        "--out",
        out,
        "--api",
        "Metadata",
        "--allow-writes",
    ]);
    let report = text(&o);
    assert_eq!(o.status.code(), Some(1), "{report}");
    assert!(
        report.contains("neither an answer nor a close within the timeout"),
        "{report}"
    );
    assert!(report.contains(" 3 findings."), "{report}");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .expect("the findings directory")
        .map(|e| e.expect("an entry").path())
        .collect();
    files.sort();
    assert_eq!(files.len(), 3, "{files:?}");
    let file = files[0].to_str().expect("a UTF-8 path");
    assert!(file.contains("-Metadata-v1.bin"), "{file}");

    let o = kwire(&["probe", &addr, "--replay", file, "--timeout", "1000"]);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    assert!(
        text(&o).contains("(Metadata v1, ") && text(&o).contains("neither an answer nor a close"),
        "{}",
        text(&o)
    );
    // The same frame against a broker that answers it: no finding.
    let mini = mini_broker().to_string();
    let o = kwire(&["probe", &mini, "--replay", file]);
    assert!(o.status.success(), "{}", text(&o));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_broker_that_stops_answering_ends_the_run() {
    let listener = TcpListener::bind("127.0.0.1:0").expect("bind");
    let addr = listener.local_addr().expect("local addr").to_string();
    // Two connections (the first ApiVersions exchange, the first request), then nothing
    // listens any more.
    std::thread::spawn(move || {
        let mut served = Vec::new();
        for stream in listener.incoming().take(2).flatten() {
            served.push(std::thread::spawn(move || fake_connection(stream)));
        }
    });
    let dir = temp_dir("dead");
    let out = dir.to_str().expect("a UTF-8 path");
    let o = kwire(&[
        "probe",
        &addr,
        "--fuzz",
        "20",
        "--timeout",
        "1000",
        "--out",
        out,
        "--api",
        "DescribeCluster",
    ]);
    let report = text(&o);
    assert_eq!(o.status.code(), Some(1), "{report}");
    assert!(
        report.contains("the broker no longer answers ApiVersions"),
        "{report}"
    );
    assert!(
        report.contains("The broker stopped answering: the run ends here."),
        "{report}"
    );
    assert!(report.contains(" 1 finding."), "{report}");
    let _ = std::fs::remove_dir_all(&dir);
}

// --- hostile brokers ---------------------------------------------------------------------

/// A broker that answers the first bytes of every connection with `reply`, then closes (or,
/// with `hold`, keeps the connection open without a word more).
fn canned_broker(reply: Vec<u8>, hold: bool) -> SocketAddr {
    let listener = TcpListener::bind("127.0.0.1:0").expect("bind");
    let addr = listener.local_addr().expect("local addr");
    std::thread::spawn(move || {
        for mut stream in listener.incoming().flatten() {
            let reply = reply.clone();
            std::thread::spawn(move || {
                let mut buf = [0u8; 512];
                let _ = stream.read(&mut buf);
                let _ = stream.write_all(&reply);
                if hold {
                    let _ = stream.read(&mut buf);
                }
            });
        }
    });
    addr
}

#[test]
fn a_hostile_api_versions_answer_is_a_plain_failure() {
    let cases: [(&str, Vec<u8>, bool); 6] = [
        ("a negative size", vec![0xff; 16], false),
        (
            "a 2 GB size",
            vec![0x7f, 0xff, 0xff, 0xff, 0, 0, 0, 0],
            true,
        ),
        (
            "no room for a correlation id",
            vec![0, 0, 0, 2, 0, 0],
            false,
        ),
        (
            "a garbage body",
            vec![0, 0, 0, 8, 0, 0, 0, 0, 0xff, 0xff, 0xff, 0xff],
            false,
        ),
        ("a close", Vec::new(), false),
        ("silence", Vec::new(), true),
    ];
    for (what, reply, hold) in cases {
        let addr = canned_broker(reply, hold).to_string();
        let o = kwire(&["probe", &addr, "--timeout", "1000"]);
        let stderr = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(1), "{what}: {stderr}");
        assert!(
            stderr.starts_with("kwire: the ApiVersions exchange failed: "),
            "{what}: {stderr}"
        );
        assert!(!stderr.contains("panicked"), "{what}: {stderr}");
    }
}

#[test]
fn a_broker_that_stops_taking_connections_ends_the_probe() {
    let listener = TcpListener::bind("127.0.0.1:0").expect("bind");
    let addr = listener.local_addr().expect("local addr").to_string();
    // One connection: DescribeCluster v1 closes it, and nothing listens any more. The listener
    // is closed before the connection is served, so no later connection can reach its backlog.
    std::thread::spawn(move || {
        let accepted = listener.accept();
        drop(listener);
        if let Ok((stream, _)) = accepted {
            fake_connection(stream);
        }
    });
    let o = kwire(&[
        "probe",
        &addr,
        "--versions",
        "all",
        "--timeout",
        "1000",
        "--api",
        "DescribeCluster",
    ]);
    let out = text(&o);
    assert_eq!(o.status.code(), Some(1), "{out}");
    assert!(
        line(&out, "DescribeCluster").ends_with("0 ok, 1 connection closed"),
        "{out}"
    );
    assert!(
        out.contains(
            "The probe ended early: after DescribeCluster v1, the broker takes no new connection"
        ),
        "{out}"
    );
    assert!(out.contains("2 findings."), "{out}");
}

// --- the results on the site ---------------------------------------------------------------

#[test]
fn the_site_shows_each_brokers_matrix() {
    let dir = temp_dir("site");
    std::fs::create_dir_all(&dir).expect("temp dir");
    // The mini broker: ok, not advertised, and a write skipped.
    let mini = mini_broker().to_string();
    let o = kwire(&[
        "probe",
        &mini,
        "--json",
        "--versions",
        "all",
        "--api",
        "Produce",
        "--api",
        "Heartbeat",
        "--api",
        "CreateTopics",
    ]);
    assert!(o.status.success(), "{}", text(&o));
    let mini_json = dir.join("mini.json");
    std::fs::write(&mini_json, &o.stdout).expect("write");
    // The fake broker: findings.
    let fake = fake_broker().to_string();
    let o = kwire(&[
        "probe",
        &fake,
        "--json",
        "--versions",
        "all",
        "--timeout",
        "1000",
        "--api",
        "Heartbeat",
    ]);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    let fake_json = dir.join("fake.json");
    std::fs::write(&fake_json, &o.stdout).expect("write");

    let site = dir.join("site");
    let site_arg = site.to_str().expect("utf-8 path");
    let o = kwire(&[
        "site",
        site_arg,
        "--probe",
        mini_json.to_str().expect("utf-8 path"),
        "--probe",
        fake_json.to_str().expect("utf-8 path"),
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let index = std::fs::read_to_string(site.join("index.html")).expect("index");
    assert!(
        index.contains("<a href=\"probe.html\">Probe results</a>"),
        "{index}"
    );
    let html = std::fs::read_to_string(site.join("probe.html")).expect("probe.html");
    let row = |section: &str, name: &str| -> String {
        let start = section
            .find(&format!("<a href=\"{name}.html\">{name}</a>"))
            .unwrap_or_else(|| panic!("no row for {name}:\n{section}"));
        let line = &section[section[..start].rfind("<tr>").expect("row")..];
        line[..line.find("</tr>").expect("row end")].to_string()
    };
    let (first, second) =
        html.split_at(html.find("<section id=\"probe-2\">").expect("two sections"));
    assert!(
        first.contains(&format!("<h2>{mini}: ApiVersions v5 answered</h2>")),
        "{first}"
    );
    assert!(
        second.contains(&format!("<h2>{fake}: ApiVersions v5 refused")),
        "{second}"
    );

    let produce = row(first, "Produce");
    assert!(produce.starts_with("<tr><td>0</td>"), "{produce}");
    assert_eq!(
        produce.matches("class=\"v-not-advertised quiet\"").count(),
        3,
        "{produce}"
    );
    assert_eq!(
        produce.matches("class=\"v-ok pass\"").count(),
        11,
        "{produce}"
    );
    let heartbeat = row(first, "Heartbeat");
    assert_eq!(
        heartbeat.matches("class=\"v-ok pass\"").count(),
        5,
        "{heartbeat}"
    );
    let create = row(first, "CreateTopics");
    assert!(
        create.contains("class=\"v-skipped-writes quiet\""),
        "{create}"
    );
    assert!(
        !create.contains("pass") && !create.contains("finding"),
        "{create}"
    );
    assert!(!first.contains("<h3>Findings</h3>"), "{first}");
    assert!(first.contains("The broker conforms."), "{first}");

    let heartbeat = row(second, "Heartbeat");
    assert!(
        heartbeat.contains("<td class=\"v-ok pass\" title=\"v0: ok\">ok</td>"),
        "{heartbeat}"
    );
    assert!(
        heartbeat.contains("class=\"v-refused finding\""),
        "{heartbeat}"
    );
    assert!(
        heartbeat.contains(
            "<td class=\"v-unknown-error-code finding\" title=\"v2: unknown error code: error \
             code 9999"
        ),
        "{heartbeat}"
    );
    assert_eq!(
        heartbeat
            .matches("class=\"v-wrong-header-version finding\"")
            .count(),
        2,
        "{heartbeat}"
    );
    assert!(second.contains("<h3>Findings</h3>"), "{second}");
    assert!(
        second.contains(
            "<li><span class=\"finding\">Heartbeat v3: wrong header version</span>: the body \
             follows a response header v1"
        ),
        "{second}"
    );
    assert!(second.contains("4 findings."), "{second}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_malformed_results_file_is_an_error_naming_it() {
    let dir = temp_dir("site-bad");
    std::fs::create_dir_all(&dir).expect("temp dir");
    let site = dir.join("site");
    let site_arg = site.to_str().expect("utf-8 path");
    for (name, content) in [
        ("garbage.json", "not json at all"),
        (
            "partial.json",
            "{\"broker\":\"b:1\",\"apis\":[{\"key\":\"x\"}]}",
        ),
    ] {
        let file = dir.join(name);
        std::fs::write(&file, content).expect("write");
        let o = kwire(&[
            "site",
            site_arg,
            "--probe",
            file.to_str().expect("utf-8 path"),
        ]);
        assert_eq!(o.status.code(), Some(1));
        let stderr = String::from_utf8_lossy(&o.stderr);
        assert!(
            stderr.contains(&format!(
                "{}: not the results of kwire probe --json",
                file.display()
            )),
            "{stderr}"
        );
        assert!(!site.exists(), "nothing is written");
    }
    let missing = dir.join("missing.json");
    let o = kwire(&[
        "site",
        site_arg,
        "--probe",
        missing.to_str().expect("utf-8 path"),
    ]);
    assert_eq!(o.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert!(
        stderr.contains(&format!("reading {}", missing.display())),
        "{stderr}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn the_probe_reaches_a_broker_over_tls_with_scram() {
    let pki = kwire_testkit::pki::Pki::new("probe");
    let tls = pki.server(&["127.0.0.1"]).config().unwrap();
    let addr = Broker::spawn_tls(1, &[("alice", "alice-secret")], tls).to_string();
    let ca = pki.ca_file();
    let probe = |password: &str, extra: &[&str]| {
        let mut args = vec![
            "probe",
            &addr,
            "--ca-file",
            ca.to_str().unwrap(),
            "--sasl-mechanism",
            "SCRAM-SHA-512",
            "--sasl-user",
            "alice",
        ];
        args.extend_from_slice(extra);
        Command::new(env!("CARGO_BIN_EXE_kwire"))
            .args(&args)
            .env("KWIRE_SASL_PASSWORD", password)
            .output()
            .expect("kwire runs")
    };
    // The advertised versions conform; every refusal is followed by a fresh connection, which
    // authenticates again.
    let o = probe("alice-secret", &["--versions", "all"]);
    let out = text(&o);
    assert!(
        o.status.success(),
        "{out}\n{}",
        String::from_utf8_lossy(&o.stderr)
    );
    assert!(out.contains("The broker conforms."), "{out}");
    // Each fuzz request goes on a fresh, authenticated connection.
    let dir = pki.dir.join("findings");
    let o = probe(
        "alice-secret",
        &["--fuzz", "8", "--seed", "7", "--out", dir.to_str().unwrap()],
    );
    assert!(
        o.status.success(),
        "{}\n{}",
        text(&o),
        String::from_utf8_lossy(&o.stderr)
    );
    // A wrong password: the broker's refusal, and no matrix.
    let o = probe("guess", &[]);
    assert_eq!(o.status.code(), Some(1));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("SASL authentication failed"), "{err}");
    assert!(!err.contains("guess"), "{err}");
}
