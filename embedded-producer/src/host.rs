//! The producer on a host: the recorded responses, or a live broker over TCP.

use std::io::{Read, Write};
use std::net::TcpStream;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use crate::producer::{Canned, NAMES, RECORDED, Summary, Transport, run};

/// A socket to a live broker, optionally saving every response frame.
struct Socket {
    stream: TcpStream,
    saved: Vec<Vec<u8>>,
}

impl Transport for Socket {
    type Error = std::io::Error;

    fn exchange(&mut self, request: &[u8], response: &mut [u8]) -> std::io::Result<usize> {
        self.stream.write_all(request)?;
        let mut size = [0u8; 4];
        self.stream.read_exact(&mut size)?;
        let len = usize::try_from(i32::from_be_bytes(size))
            .map_err(|_| std::io::Error::other("negative frame size"))?
            + 4;
        let frame = response
            .get_mut(..len)
            .ok_or_else(|| std::io::Error::other(format!("a {len}-byte response frame")))?;
        frame[..4].copy_from_slice(&size);
        self.stream.read_exact(&mut frame[4..])?;
        self.saved.push(frame.to_vec());
        Ok(len)
    }
}

/// A transport that keeps a copy of every request frame sent through it.
struct Recording<T> {
    inner: T,
    requests: Vec<Vec<u8>>,
}

impl<T> Recording<T> {
    fn new(inner: T) -> Self {
        Self {
            inner,
            requests: Vec::new(),
        }
    }
}

impl<T: Transport> Transport for Recording<T> {
    type Error = T::Error;

    fn exchange(&mut self, request: &[u8], response: &mut [u8]) -> Result<usize, T::Error> {
        self.requests.push(request.to_vec());
        self.inner.exchange(request, response)
    }
}

/// Runs the producer over `transport`, then has `kafka-protocol` read back every request
/// frame it sent.
fn run_checked<T: Transport>(transport: T) -> Result<(Summary, T), String>
where
    T::Error: std::fmt::Debug,
{
    let mut recording = Recording::new(transport);
    let summary = run(&mut recording).map_err(|e| e.to_string())?;
    crate::peer::check_requests(&recording.requests, &summary)
        .map_err(|e| format!("a request frame, as kafka-protocol reads it: {e}"))?;
    Ok((summary, recording.inner))
}

pub fn main() -> ExitCode {
    let mut broker = None;
    let mut save: Option<PathBuf> = None;
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        match (a.as_str(), args.next()) {
            ("--broker", Some(v)) => broker = Some(v),
            ("--save", Some(v)) => save = Some(v.into()),
            _ => {
                eprintln!("usage: embedded-producer [--broker HOST:PORT [--save DIR]]");
                return ExitCode::from(2);
            }
        }
    }
    let result = match &broker {
        None => run_checked(Canned::new(&RECORDED)).map(|(summary, _)| summary),
        Some(addr) => live(addr, save.as_deref()),
    };
    match result {
        Ok(summary) => {
            report(
                broker.as_deref().unwrap_or("the recorded responses"),
                &summary,
            );
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("embedded-producer: FAILED: {e}");
            ExitCode::FAILURE
        }
    }
}

fn live(addr: &str, save: Option<&std::path::Path>) -> Result<Summary, String> {
    let stream = TcpStream::connect(addr).map_err(|e| format!("{addr}: {e}"))?;
    stream
        .set_read_timeout(Some(Duration::from_secs(10)))
        .map_err(|e| e.to_string())?;
    let socket = Socket {
        stream,
        saved: Vec::new(),
    };
    let (summary, socket) = run_checked(socket)?;
    if let Some(dir) = save {
        for (name, frame) in NAMES.iter().zip(&socket.saved) {
            let path = dir.join(format!("{name}.bin"));
            std::fs::write(&path, frame).map_err(|e| format!("{}: {e}", path.display()))?;
        }
    }
    Ok(summary)
}

fn report(source: &str, s: &Summary) {
    let [m, p, f] = s.versions;
    println!("embedded-producer against {source}:");
    println!("  negotiated Metadata v{m}, Produce v{p}, Fetch v{f}");
    println!(
        "  topic {} (id {:?}), partition {} led by node {}",
        crate::producer::TOPIC,
        s.topic_id,
        crate::producer::PARTITION,
        s.leader
    );
    println!(
        "  produced a {}-byte batch of {} records at offset {}",
        s.batch_len,
        crate::producer::RECORDS,
        s.base_offset
    );
    println!(
        "  fetched {} records back (high watermark {}), each as sent",
        s.records_read, s.high_watermark
    );
    #[cfg(feature = "sasl")]
    println!(
        "  logged in as {} with SCRAM-SHA-256, the broker's signature verified",
        crate::producer::SASL_USER
    );
    println!("  kafka-protocol read every field of the four request frames as they were set");
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The recorded run: everything the device build does, checked, and the request frames it
    /// sent read back by `kafka-protocol`.
    #[test]
    fn recorded_run() {
        let (s, _) = run_checked(Canned::new(&RECORDED)).expect("the recorded run succeeds");
        assert_eq!(s.records_read, crate::producer::RECORDS);
        assert_eq!(s.leader, 1);
        assert_ne!(s.topic_id, kwire::codec::Uuid::ZERO);
        assert!(s.high_watermark > s.base_offset);
    }

    /// The check is not vacuous: one byte changed in a record's value, or in the client id of
    /// a header, is caught.
    #[test]
    fn a_changed_request_is_caught() {
        fn find(frame: &[u8], what: &[u8]) -> usize {
            frame
                .windows(what.len())
                .position(|w| w == what)
                .expect("present")
        }
        let mut recording = Recording::new(Canned::new(&RECORDED));
        let summary = run(&mut recording).expect("the recorded run succeeds");
        crate::peer::check_requests(&recording.requests, &summary).expect("as sent");

        let mut changed = recording.requests.clone();
        let produce = 2 + crate::producer::SASL_EXCHANGES;
        let at = find(&changed[produce], b"temperature=21");
        changed[produce][at] = b'T';
        let e = crate::peer::check_requests(&changed, &summary).unwrap_err();
        assert!(e.contains("Produce batch"), "{e}");

        let mut changed = recording.requests.clone();
        let at = find(&changed[0], crate::producer::CLIENT_ID.as_bytes());
        changed[0][at] = b'E';
        let e = crate::peer::check_requests(&changed, &summary).unwrap_err();
        assert!(e.contains("header"), "{e}");
    }

    /// The versions this build kept are the ones `KWIRE_VERSIONS` named when it was built
    /// (from `.cargo/config.toml` when built in this directory), or every valid one without
    /// it; versions left out are refused, both ways.
    #[test]
    fn the_build_speaks_the_versions_it_names() {
        use kwire::codec::{Encode, Message, VersionRange};
        use kwire::messages::{
            ApiVersionsRequest, FetchRequest, MetadataRequest, MetadataResponse, ProduceRequest,
        };
        use kwire::{ApiKey, DecodeErrorKind, EncodeError, frame};

        // Entries as the build script reads them; each range in the schemas' notation, which
        // `VersionRange` parses.
        let named: Vec<(String, VersionRange)> = option_env!("KWIRE_VERSIONS")
            .unwrap_or("")
            .split(|c: char| c == ',' || c.is_whitespace())
            .filter(|e| !e.is_empty())
            .map(|e| {
                let (name, range) = e.split_once('=').expect("NAME=RANGE");
                (name.to_string(), range.parse().expect("a version range"))
            })
            .collect();
        let ranges = [
            (ApiKey::API_VERSIONS, ApiVersionsRequest::BUILT_VERSIONS),
            (ApiKey::METADATA, MetadataRequest::BUILT_VERSIONS),
            (ApiKey::PRODUCE, ProduceRequest::BUILT_VERSIONS),
            (ApiKey::FETCH, FetchRequest::BUILT_VERSIONS),
        ];
        for (key, built) in ranges {
            let expected = named
                .iter()
                .find(|(n, _)| key.name().is_some_and(|k| k.eq_ignore_ascii_case(n)))
                .map_or(key.request_versions(), |&(_, range)| {
                    range.intersect(key.request_versions())
                });
            assert_eq!(built, expected, "{key}");
            assert_eq!(key.built_versions(), expected, "{key}");
        }
        let valid = MetadataRequest::VALID_VERSIONS;
        let built = MetadataRequest::BUILT_VERSIONS;
        let mut refused = 0;
        for v in valid.min..=valid.max {
            let encoded = MetadataRequest::default().encoded_len(v);
            if built.contains(v) {
                assert!(encoded.is_ok(), "v{v}");
                continue;
            }
            refused += 1;
            assert!(
                matches!(encoded, Err(EncodeError::UnsupportedVersion { version, .. }) if version == v),
                "v{v}: {encoded:?}"
            );
            let decoded = frame::decode_response_as::<MetadataResponse<'_>>(
                RECORDED[1 + crate::producer::SASL_EXCHANGES],
                v,
            );
            assert!(
                matches!(
                    decoded.map_err(|e| e.kind),
                    Err(DecodeErrorKind::UnsupportedVersion { .. })
                ),
                "v{v}"
            );
        }
        assert_eq!(
            refused,
            usize::try_from(valid.max - valid.min + 1 - (built.max - built.min + 1)).unwrap()
        );
    }

    /// A response missing at the end is an error, not a panic.
    #[test]
    fn exhausted_transport() {
        let r = run(&mut Canned::new(&RECORDED[..3]));
        assert!(matches!(
            r,
            Err(crate::producer::Error::Transport(
                crate::producer::CannedError::Exhausted
            ))
        ));
    }

    /// Every truncation of every recorded response is an error, not a panic.
    #[test]
    fn truncated_responses() {
        for i in 0..RECORDED.len() {
            for len in 0..RECORDED[i].len() {
                let mut responses = RECORDED;
                responses[i] = &RECORDED[i][..len];
                assert!(
                    run(&mut Canned::new(&responses)).is_err(),
                    "response {i} cut at {len}"
                );
            }
        }
    }
}
