//! The producer on a host: the recorded responses, or a live broker over TCP.

use std::io::{Read, Write};
use std::net::TcpStream;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use crate::producer::{Canned, RECORDED, Summary, Transport, run};

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

const NAMES: [&str; 4] = ["api_versions", "metadata", "produce", "fetch"];

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
        None => run(&mut Canned::new(&RECORDED)).map_err(|e| e.to_string()),
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
    let mut socket = Socket {
        stream,
        saved: Vec::new(),
    };
    let summary = run(&mut socket).map_err(|e| e.to_string())?;
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
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The recorded run: everything the device build does, checked.
    #[test]
    fn recorded_run() {
        let s = run(&mut Canned::new(&RECORDED)).expect("the recorded run succeeds");
        assert_eq!(s.records_read, crate::producer::RECORDS);
        assert_eq!(s.leader, 1);
        assert_ne!(s.topic_id, kwire::codec::Uuid::ZERO);
        assert!(s.high_watermark > s.base_offset);
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
