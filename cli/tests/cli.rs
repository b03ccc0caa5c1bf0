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
