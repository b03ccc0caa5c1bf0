//! The `kwire` binary end to end: output, exit codes and error messages.

use std::io::Write;
use std::process::{Command, Output, Stdio};

fn run(args: &[&str], stdin: Option<&[u8]>) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_kwire"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut input = child.stdin.take().unwrap();
    input.write_all(stdin.unwrap_or_default()).unwrap();
    drop(input);
    child.wait_with_output().unwrap()
}

fn stdout(o: &Output) -> String {
    String::from_utf8(o.stdout.clone()).unwrap()
}

fn stderr(o: &Output) -> String {
    String::from_utf8(o.stderr.clone()).unwrap()
}

#[test]
fn page_prints_facts_layout_and_trees() {
    let o = run(&["page", "renewdelegationtoken"], None);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let text = stdout(&o);
    assert!(text.starts_with("RenewDelegationToken\n\nAPI key            39\n"));
    assert!(text.contains("Request size       25 bytes\n"));
    assert!(text.contains("0000  00 00 00 15 00 27 00 02 00 00 00 00 00 00 00 01\n"));
    assert_eq!(text.matches("object tree").count(), 2);
    assert!(text.contains("+-- RenewPeriodMs            int64            = 0"));
    // By key, at another version.
    let o = run(&["page", "39", "--version", "1"], None);
    assert_eq!(o.status.code(), Some(0));
    assert!(stdout(&o).contains("Encoded at         v1\n"));
}

#[test]
fn page_hex_is_one_line() {
    let o = run(
        &["page", "RenewDelegationToken", "--request", "--hex"],
        None,
    );
    assert_eq!(
        stdout(&o),
        "00000015002700020000000000000001000000000000000000\n"
    );
    let o = run(
        &["page", "RenewDelegationToken", "--response", "--hex"],
        None,
    );
    assert_eq!(stdout(&o).trim().len(), 48);
}

#[test]
fn bad_requests_exit_1_with_a_reason() {
    let o = run(&["page", "RenewDelegationToken", "--version", "9"], None);
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains("has no version 9"), "{}", stderr(&o));
    let o = run(&["page", "LeaderAndIsr", "--version", "8"], None);
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains("has no version 8"), "{}", stderr(&o));
}

#[test]
fn usage_errors_exit_2() {
    assert_eq!(run(&["page"], None).status.code(), Some(2));
    assert_eq!(run(&["page", "NoSuchApi"], None).status.code(), Some(2));
    assert_eq!(run(&["frobnicate"], None).status.code(), Some(2));
    assert_eq!(run(&["dissect"], None).status.code(), Some(2));
    assert_eq!(run(&["--help"], None).status.code(), Some(0));
    assert_eq!(run(&["dissect", "--help"], None).status.code(), Some(0));
}

#[test]
fn catalog_and_list_cover_every_api() {
    let o = run(&["catalog"], None);
    assert_eq!(o.status.code(), Some(0));
    let text = stdout(&o);
    let lines: Vec<&str> = text.lines().collect();
    assert!(lines.len() > 600, "{} lines", lines.len());
    assert!(lines.contains(
        &"39 RenewDelegationToken 2 request 00000015002700020000000000000001000000000000000000"
    ));
    for l in &lines {
        let f: Vec<&str> = l.split(' ').collect();
        assert_eq!(f.len(), 5, "{l}");
        assert!(f[3] == "request" || f[3] == "response");
        assert!(
            f[4].chars()
                .all(|c| c.is_ascii_hexdigit() && !c.is_ascii_uppercase())
        );
    }
    let o = run(&["list"], None);
    let text = stdout(&o);
    let renew = text
        .lines()
        .find(|l| l.contains(" RenewDelegationToken "))
        .unwrap();
    assert_eq!(
        renew.split_whitespace().collect::<Vec<_>>(),
        [
            "39",
            "RenewDelegationToken",
            "0-2",
            "2+",
            "0-2",
            "2+",
            "2/1",
            "25",
            "24"
        ]
    );
}

#[test]
fn dissect_shows_credentials_only_when_asked() {
    // A SaslAuthenticate v0 request carrying PLAIN credentials: user "u", password "secret!".
    let auth = b"\0u\0secret!";
    let mut frame = vec![0, 0, 0, 0, 0, 36, 0, 0, 0, 0, 0, 7, 0xff, 0xff, 0, 0, 0];
    frame.push(u8::try_from(auth.len()).unwrap());
    frame.extend_from_slice(auth);
    frame[3] = u8::try_from(frame.len() - 4).unwrap();
    let hex: String = auth.iter().map(|b| format!("{b:02x}")).collect();

    let o = run(&["dissect", "--request"], Some(&frame));
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let hidden = stdout(&o);
    assert!(
        hidden.contains("<PLAIN credentials, 10 bytes, not shown>"),
        "{hidden}"
    );
    assert!(
        !hidden.contains(&hex) && !hidden.contains("secret"),
        "{hidden}"
    );

    let o = run(&["dissect", "--request", "--show-secrets"], Some(&frame));
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(
        stdout(&o).contains(&format!("= 0x{hex} (int32 len=10)")),
        "{}",
        stdout(&o)
    );

    // An OAUTHBEARER initial response: its token in neither the tree nor a hex form.
    let auth = b"n,,\x01auth=Bearer eyJ0b2tlbiI6InNlY3JldCJ9\x01\x01";
    let mut frame = vec![0, 0, 0, 0, 0, 36, 0, 0, 0, 0, 0, 8, 0xff, 0xff, 0, 0, 0];
    frame.push(u8::try_from(auth.len()).unwrap());
    frame.extend_from_slice(auth);
    frame[3] = u8::try_from(frame.len() - 4).unwrap();
    let o = run(&["dissect", "--request"], Some(&frame));
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let hidden = stdout(&o);
    let step = format!(
        "<OAUTHBEARER initial response, {} bytes, not shown>",
        auth.len()
    );
    assert!(hidden.contains(&step), "{hidden}");
    let token_hex: String = b"eyJ0b2tl".iter().map(|b| format!("{b:02x}")).collect();
    assert!(
        !hidden.contains("eyJ0b2tl") && !hidden.contains(&token_hex),
        "{hidden}"
    );
}

#[test]
fn dissect_reads_hex_or_binary_and_reports_damage() {
    let hex = stdout(&run(&["page", "39", "--request", "--hex"], None));
    let o = run(&["dissect", "--request"], Some(hex.as_bytes()));
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(stdout(&o).contains("= 39 (RenewDelegationToken)"));
    let bytes: Vec<u8> = (0..hex.trim().len() / 2)
        .map(|i| u8::from_str_radix(&hex[2 * i..2 * i + 2], 16).unwrap())
        .collect();
    let o = run(&["dissect", "--request"], Some(&bytes));
    assert_eq!(o.status.code(), Some(0));
    // Cut short: the tree so far, the error with its offset, exit 1.
    let o = run(&["dissect", "--request"], Some(&bytes[..20]));
    assert_eq!(o.status.code(), Some(1));
    assert!(stdout(&o).contains("error: "), "{}", stdout(&o));
    assert!(stderr(&o).contains("at byte 16"), "{}", stderr(&o));
    // A response needs its API and version.
    let resp = stdout(&run(&["page", "39", "--response", "--hex"], None));
    let o = run(
        &[
            "dissect",
            "--response",
            "--api-key",
            "RenewDelegationToken",
            "--version",
            "2",
        ],
        Some(resp.as_bytes()),
    );
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(stdout(&o).contains("+-- ExpiryTimestampMs"));
}

#[test]
fn dissect_shows_strings_that_are_not_utf8_escaped() {
    // Heartbeat v4: client id "\xff", group id "g\xff", member id "m".
    let mut frame = vec![0, 0, 0, 0, 0, 12, 0, 4, 0, 0, 0, 7, 0, 1, 0xff, 0];
    frame.extend_from_slice(&[3, b'g', 0xff, 0, 0, 0, 1, 2, b'm', 0, 0]);
    let size = u32::try_from(frame.len() - 4).unwrap();
    frame[..4].copy_from_slice(&size.to_be_bytes());
    let o = run(&["dissect", "-", "--request"], Some(&frame));
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let out = stdout(&o);
    assert!(out.contains(r#"= "\xff" (int16 len=1)"#), "{out}");
    assert!(out.contains(r#"= "g\xff" (compact, len+1=3)"#), "{out}");
    assert!(out.contains(r#"= "m" (compact, len+1=2)"#), "{out}");
}

#[test]
fn dash_reads_standard_input() {
    let hex = stdout(&run(&["page", "Heartbeat", "--request", "--hex"], None));
    let from_stdin = run(&["dissect", "-", "--request"], Some(hex.as_bytes()));
    assert_eq!(from_stdin.status.code(), Some(0), "{}", stderr(&from_stdin));
    assert!(stdout(&from_stdin).contains("= 12 (Heartbeat)"));
    // The same as with no file at all.
    let implicit = run(&["dissect", "--request"], Some(hex.as_bytes()));
    assert_eq!(stdout(&implicit), stdout(&from_stdin));
}

#[test]
fn help_shows_examples() {
    for args in [
        &["--help"][..],
        &["page", "--help"],
        &["list", "--help"],
        &["catalog", "--help"],
        &["dissect", "--help"],
    ] {
        let o = run(args, None);
        assert_eq!(o.status.code(), Some(0), "{args:?}");
        let text = stdout(&o);
        let examples = text
            .split_once("Example")
            .unwrap_or_else(|| panic!("{args:?} shows no example:\n{text}"))
            .1;
        assert!(examples.contains("kwire "), "{args:?}:\n{text}");
    }
}

/// A Produce v9 request whose partition holds, in order: a plain batch (text and binary keys,
/// values and headers, a long value), an lz4 and a gzip batch, a transaction's commit marker.
fn produce_with_records() -> Vec<u8> {
    use kwire::records::compression::BuiltinCodecs;
    use kwire::records::{BatchBuilder, Compression, NewHeader, NewRecord, TxnMarker};
    let long = "x".repeat(100);
    let headers = [NewHeader::new(b"trace", &[0xff, 0x00])];
    let plain = [
        NewRecord::new(b"hello")
            .with_key(b"k1")
            .with_headers(&headers)
            .with_timestamp(1_796_217_659_128),
        NewRecord::new(long.as_bytes()).with_timestamp(1_796_217_659_129),
    ];
    let squeezed = [NewRecord::new(b"squeezed squeezed squeezed").with_timestamp(0)];
    let mut records = vec![0u8; 4096];
    let mut n = BatchBuilder::new().write(&plain, &mut records).unwrap();
    let mut scratch = [0u8; 1024];
    for (i, codec) in [Compression::LZ4, Compression::GZIP]
        .into_iter()
        .enumerate()
    {
        n += BatchBuilder::new()
            .with_base_offset(2 + i64::try_from(i).unwrap())
            .write_compressed(
                &squeezed,
                codec,
                &mut BuiltinCodecs::new(),
                &mut scratch,
                &mut records[n..],
            )
            .unwrap();
    }
    n += BatchBuilder::new()
        .with_base_offset(4)
        .with_producer(7, 0, -1)
        .with_transactional(true)
        .with_control(true)
        .write_txn_marker(
            true,
            TxnMarker {
                version: 0,
                coordinator_epoch: 3,
            },
            5,
            &mut records[n..],
        )
        .unwrap();
    records.truncate(n);

    use kwire::messages::produce_request::{PartitionProduceData, TopicProduceData};
    use kwire::messages::{ProduceRequest, RequestHeader};
    let partitions = [PartitionProduceData::default()
        .with_index(2)
        .with_records(Some(kwire::records::Records::from(&records[..])))];
    let topics = [TopicProduceData::default()
        .with_name("orders")
        .with_partition_data(&partitions[..])];
    let body = ProduceRequest::default()
        .with_acks(-1)
        .with_topic_data(&topics[..]);
    let header = RequestHeader::new(kwire::ApiKey::PRODUCE, 9, 1);
    let mut frame = vec![0u8; 8192];
    let n = kwire::frame::encode_request(&header, &body, &mut frame).unwrap();
    frame.truncate(n);
    frame
}

#[test]
fn dissect_expands_records() {
    let frame = produce_with_records();
    let o = run(&["dissect", "-", "--request", "--records"], Some(&frame));
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let text = stdout(&o);
    let records = &text[text.find("\nrecords of").unwrap() + 1..];
    let (head, rest) = records.split_once(":\n").unwrap();
    assert!(
        head.starts_with("records of topic \"orders\" partition 2 ("),
        "{head}"
    );
    let expected = format!(
        "  batch offsets 0..=1, 2 records, none
    offset 0  2026-12-02T13:20:59.128Z  key \"k1\"  value \"hello\"  headers \"trace\"=0xff00
    offset 1  2026-12-02T13:20:59.129Z  key null  value \"{}\"... (100 bytes)
  batch offsets 2..=2, 1 record, lz4
    offset 2  1970-01-01T00:00:00.000Z  key null  value \"squeezed squeezed squeezed\"
  batch offsets 3..=3, 1 record, gzip
    offset 3  1970-01-01T00:00:00.000Z  key null  value \"squeezed squeezed squeezed\"
  batch offsets 4..=4, 1 record, none, producer 7 epoch 0 sequence -1, transactional, control
    offset 4  1970-01-01T00:00:00.005Z  control COMMIT
",
        "x".repeat(64)
    );
    assert_eq!(rest, expected);
    // Without the flag, only the tree.
    let o = run(&["dissect", "-", "--request"], Some(&frame));
    assert!(!stdout(&o).contains("records of topic"));
}

#[test]
fn damaged_records_are_named() {
    let mut frame = produce_with_records();
    // A byte of the lz4 batch's compressed payload: its CRC no longer matches.
    let at = frame
        .windows(4)
        .rposition(|w| w == [0x04, 0x22, 0x4d, 0x18])
        .unwrap()
        + 8;
    frame[at] ^= 0x55;
    let o = run(&["dissect", "-", "--request", "--records"], Some(&frame));
    let text = stdout(&o);
    assert!(
        text.contains("  batch offsets 2..=2, 1 record, lz4\n"),
        "{text}"
    );
    assert!(text.contains(": CRC mismatch: stored 0x"), "{text}");
    assert!(text.contains("    records not read: lz4: "), "{text}");
    // The batches after it are read.
    assert!(
        text.contains("  batch offsets 3..=3, 1 record, gzip\n"),
        "{text}"
    );
    assert!(text.contains("control COMMIT"), "{text}");
    // The command fails on damaged records, with or without --records.
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert!(
        stderr(&o).contains(
            "damaged records: records of topic \"orders\" partition 2: batch at offset 2: "
        ),
        "{}",
        stderr(&o)
    );
    let o = run(&["dissect", "-", "--request"], Some(&frame));
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert!(!stdout(&o).contains("records of topic"));
}

#[test]
fn a_payload_failing_its_own_checksum_is_named_and_its_records_shown() {
    use kwire::records::crc::crc32c;
    use kwire::records::{CRC_OFFSET, CRC_START, HEADER_LEN};
    let mut frame = produce_with_records();
    // The gzip batch: its payload is one gzip member, right after the batch header.
    let start = frame
        .windows(3)
        .rposition(|w| w == [0x1f, 0x8b, 0x08])
        .unwrap()
        - HEADER_LEN;
    let length = i32::from_be_bytes(frame[start + 8..start + 12].try_into().unwrap());
    let end = start + 12 + usize::try_from(length).unwrap();
    // The member's CRC-32 (8 bytes before its end) damaged, the batch's CRC-32C made good again.
    frame[end - 8] ^= 0x55;
    let crc = crc32c(&frame[start + CRC_START..end]);
    frame[start + CRC_OFFSET..start + CRC_START].copy_from_slice(&crc.to_be_bytes());
    let o = run(&["dissect", "-", "--request", "--records"], Some(&frame));
    let text = stdout(&o);
    assert!(
        text.contains(
            "  batch offsets 3..=3, 1 record, gzip\n    batch at offset 3: gzip: CRC-32 mismatch; \
             its records are shown as they are\n    offset 3  1970-01-01T00:00:00.000Z  key null  \
             value \"squeezed squeezed squeezed\"\n"
        ),
        "{text}"
    );
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
}

#[test]
fn a_fetch_cut_at_its_size_limit_is_said_in_words() {
    use kwire::messages::fetch_response::{FetchableTopicResponse, PartitionData};
    use kwire::messages::{FetchResponse, ResponseHeader};
    use kwire::records::{BatchBuilder, NewRecord, Records};
    let plain = [NewRecord::new(b"hello"), NewRecord::new(b"world")];
    let mut records = vec![0u8; 256];
    let n = BatchBuilder::new().write(&plain, &mut records).unwrap();
    // A whole batch, then the first 30 bytes of the same batch: a fetch cut at its size limit.
    let mut cut = records[..n].to_vec();
    cut.extend_from_slice(&records[..30]);
    let partitions = [PartitionData::default().with_records(Some(Records::from(&cut[..])))];
    let topics = [FetchableTopicResponse::default()
        .with_topic("orders")
        .with_partitions(&partitions[..])];
    let body = FetchResponse::default().with_responses(&topics[..]);
    let mut frame = vec![0u8; 1024];
    let len =
        kwire::frame::encode_response(&ResponseHeader::default(), &body, 11, &mut frame).unwrap();
    frame.truncate(len);
    let o = run(
        &[
            "dissect",
            "-",
            "--response",
            "--api-key",
            "1",
            "--version",
            "11",
            "--records",
        ],
        Some(&frame),
    );
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let text = stdout(&o);
    let more = n - 30;
    assert!(
        text.contains(&format!(
            "  a partial entry at the end: 30 of its bytes are here, {more} more were needed, as a \
             broker cuts a fetch at its size limit\n"
        )),
        "{text}"
    );
    assert!(!text.contains("PartialBatch"), "{text}");
}

#[test]
fn schemas_that_are_not_there_are_an_error() {
    let missing = std::env::temp_dir().join("kwire-no-such-schemas-dir");
    let empty = std::env::temp_dir().join(format!("kwire-empty-schemas-{}", std::process::id()));
    std::fs::create_dir_all(&empty).unwrap();
    for dir in [&missing, &empty] {
        let dir = dir.to_str().unwrap();
        let o = run(&["page", "39", "--schemas", dir], None);
        assert_eq!(o.status.code(), Some(1), "{}", stdout(&o));
        assert!(
            stderr(&o).contains(&format!("--schemas {dir}: ")),
            "{}",
            stderr(&o)
        );
        let out = std::env::temp_dir().join(format!("kwire-site-{}", std::process::id()));
        let o = run(&["site", out.to_str().unwrap(), "--schemas", dir], None);
        assert_eq!(o.status.code(), Some(1), "{}", stdout(&o));
        assert!(stderr(&o).contains("--schemas "), "{}", stderr(&o));
    }
    let _ = std::fs::remove_dir(&empty);
}
