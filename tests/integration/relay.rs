//! `io::relay`: frames cut out of both directions whatever the chunks, replaced or passed on,
//! frames larger than the storage it starts with, and which side ended.

#![cfg(feature = "std")]

use std::io::{ErrorKind, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::Mutex;
use std::thread;

use kwire::io::relay::{self, Closed, Frames};

/// A connected pair of sockets on loopback.
fn pair() -> (TcpStream, TcpStream) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let a = TcpStream::connect(listener.local_addr().unwrap()).unwrap();
    let (b, _) = listener.accept().unwrap();
    (a, b)
}

fn frame(payload: &[u8]) -> Vec<u8> {
    let mut f = u32::try_from(payload.len()).unwrap().to_be_bytes().to_vec();
    f.extend_from_slice(payload);
    f
}

/// Requests pass as they came, responses get a byte appended; every frame is seen.
#[derive(Default)]
struct Marks {
    seen: Mutex<Vec<(bool, usize)>>,
}

impl Frames for Marks {
    fn request(&self, f: &[u8], _: &mut Vec<u8>) {
        self.seen.lock().unwrap().push((true, f.len()));
    }

    fn response(&self, f: &[u8], out: &mut Vec<u8>) {
        self.seen.lock().unwrap().push((false, f.len()));
        out.extend_from_slice(&frame(&[&f[4..], b"!"].concat()));
    }
}

/// Runs a relay between a client socket and a broker socket the test drives.
fn relayed(
    frames: &Marks,
    test: impl FnOnce(TcpStream, TcpStream) + Send,
) -> (Closed, std::io::Result<()>) {
    let (client, client_end) = pair();
    let (broker_end, broker) = pair();
    thread::scope(|s| {
        let driver = s.spawn(move || test(client, broker));
        let ends = (client_end.try_clone().unwrap(), client_end);
        let result = relay::run(ends, (broker_end.try_clone().unwrap(), broker_end), frames);
        driver.join().unwrap();
        result
    })
}

#[test]
fn frames_in_any_chunks_pass_or_are_replaced() {
    let marks = Marks::default();
    let big = vec![7u8; 200_000];
    let (closed, result) = relayed(&marks, |mut client, mut broker| {
        // Two requests, the second larger than the relay's first storage, a byte at a time
        // for the first, then in two writes that cut across the frames.
        let mut sent = frame(b"req");
        sent.extend(frame(&big));
        for b in &sent[..7] {
            client.write_all(&[*b]).unwrap();
        }
        client.write_all(&sent[7..100]).unwrap();
        client.write_all(&sent[100..]).unwrap();
        let mut got = vec![0; sent.len()];
        broker.read_exact(&mut got).unwrap();
        assert!(got == sent, "requests are relayed as they came");
        broker.write_all(&frame(b"resp")).unwrap();
        let mut answer = [0; 9];
        client.read_exact(&mut answer).unwrap();
        assert_eq!(answer, frame(b"resp!")[..]);
        drop(broker);
        // The relay closes the client's connection once the broker has closed its own.
        assert_eq!(client.read(&mut [0; 1]).unwrap(), 0);
    });
    assert_eq!(closed, Closed::ByBroker);
    result.unwrap();
    let seen = marks.seen.into_inner().unwrap();
    assert_eq!(seen, [(true, 7), (true, 200_004), (false, 8)]);
}

#[test]
fn the_client_closing_first_is_reported() {
    let marks = Marks::default();
    let (closed, result) = relayed(&marks, |client, mut broker| {
        drop(client);
        assert_eq!(broker.read(&mut [0; 1]).unwrap(), 0);
    });
    assert_eq!(closed, Closed::ByClient);
    result.unwrap();
}

#[test]
fn bytes_that_are_not_frames_end_the_relay() {
    let marks = Marks::default();
    let (_, result) = relayed(&marks, |mut client, mut broker| {
        client.write_all(&[0xff, 0xff, 0xff, 0xff, 0]).unwrap();
        let _ = broker.read(&mut [0; 1]);
    });
    assert_eq!(result.unwrap_err().kind(), ErrorKind::InvalidData);

    let (_, result) = relayed(&marks, |mut client, mut broker| {
        client.write_all(&[0, 0, 0, 9, 1, 2]).unwrap();
        drop(client);
        let _ = broker.read(&mut [0; 1]);
    });
    assert_eq!(result.unwrap_err().kind(), ErrorKind::UnexpectedEof);
}
