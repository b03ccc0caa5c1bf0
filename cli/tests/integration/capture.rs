//! `kwire capture` on synthetic captures: every link type and file format it reads, TCP
//! segments in every order and shape, and damaged files and payloads.

use std::io::Write;
use std::net::Ipv6Addr;
use std::process::{Command, Output, Stdio};

use etherparse::PacketBuilder;
use kwire::ApiKey;
use kwire::frame;
use kwire::messages::metadata_response::MetadataResponseTopic;
use kwire::messages::{
    HeartbeatRequest, HeartbeatResponse, MetadataRequest, MetadataResponse, ProduceRequest,
    RequestHeader, ResponseHeader,
};
use pcap_parser::pcapng::{EnhancedPacketBlock, InterfaceDescriptionBlock, SectionHeaderBlock};
use pcap_parser::{LegacyPcapBlock, Linktype, PcapHeader, ToVec};

fn run(args: &[&str], stdin: &[u8]) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_kwire"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut input = child.stdin.take().unwrap();
    // The tool may stop reading early (a bad header): a closed pipe is not a failure here.
    let _ = input.write_all(stdin);
    drop(input);
    child.wait_with_output().unwrap()
}

/// `kwire capture - ARGS...` on `capture`: (exit code, stdout, stderr).
fn capture(capture: &[u8], args: &[&str]) -> (i32, String, String) {
    let mut all = vec!["capture", "-"];
    all.extend_from_slice(args);
    let o = run(&all, capture);
    (
        o.status.code().unwrap_or(-1),
        String::from_utf8(o.stdout).unwrap(),
        String::from_utf8(o.stderr).unwrap(),
    )
}

// --- Kafka frames --------------------------------------------------------------------------

fn metadata_request(correlation_id: i32) -> Vec<u8> {
    let header = RequestHeader::new(ApiKey::METADATA, 12, correlation_id).with_client_id(Some("t"));
    let mut buf = vec![0u8; 256];
    let n = frame::encode_request(&header, &MetadataRequest::default(), &mut buf).unwrap();
    buf.truncate(n);
    buf
}

fn metadata_response(correlation_id: i32, error_code: i16) -> Vec<u8> {
    let topics = [MetadataResponseTopic::default()
        .with_name(Some("orders"))
        .with_error_code(error_code)];
    let body = MetadataResponse::default().with_topics(&topics[..]);
    let header = ResponseHeader::default().with_correlation_id(correlation_id);
    let mut buf = vec![0u8; 256];
    let n = frame::encode_response(&header, &body, 12, &mut buf).unwrap();
    buf.truncate(n);
    buf
}

fn heartbeat_request(correlation_id: i32) -> Vec<u8> {
    let header = RequestHeader::new(ApiKey::HEARTBEAT, 4, correlation_id).with_client_id(Some("t"));
    let body = HeartbeatRequest::default().with_group_id("g");
    let mut buf = vec![0u8; 256];
    let n = frame::encode_request(&header, &body, &mut buf).unwrap();
    buf.truncate(n);
    buf
}

fn heartbeat_response(correlation_id: i32) -> Vec<u8> {
    let header = ResponseHeader::default().with_correlation_id(correlation_id);
    let mut buf = vec![0u8; 256];
    let n = frame::encode_response(&header, &HeartbeatResponse::default(), 4, &mut buf).unwrap();
    buf.truncate(n);
    buf
}

// --- TCP over IP ---------------------------------------------------------------------------

const CLIENT: u16 = 40000;
const BROKER: u16 = 9092;
/// Initial sequence numbers, near the wrap so that the arithmetic is tested.
const CLIENT_ISN: u32 = 0xffff_fff0;
const BROKER_ISN: u32 = 1000;

#[derive(Clone, Copy)]
enum Ip {
    V4,
    V6,
}

/// A packet: Ethernet, IP, TCP.
#[derive(Clone)]
struct Seg {
    from_client: bool,
    /// The client's port.
    client: u16,
    seq: u32,
    syn: bool,
    ack: bool,
    fin: bool,
    payload: Vec<u8>,
}

fn ether(ip: Ip, s: &Seg) -> Vec<u8> {
    let (sport, dport) = if s.from_client {
        (s.client, BROKER)
    } else {
        (BROKER, s.client)
    };
    let b = PacketBuilder::ethernet2([2, 0, 0, 0, 0, 1], [2, 0, 0, 0, 0, 2]);
    let b = match ip {
        Ip::V4 => {
            let (c, k) = ([10, 0, 0, 1], [10, 0, 0, 2]);
            let (src, dst) = if s.from_client { (c, k) } else { (k, c) };
            b.ipv4(src, dst, 64)
        }
        Ip::V6 => {
            let c = Ipv6Addr::new(0xfd00, 0, 0, 0, 0, 0, 0, 1).octets();
            let k = Ipv6Addr::new(0xfd00, 0, 0, 0, 0, 0, 0, 2).octets();
            let (src, dst) = if s.from_client { (c, k) } else { (k, c) };
            b.ipv6(src, dst, 64)
        }
    };
    let mut b = b.tcp(sport, dport, s.seq, 65535);
    if s.syn {
        b = b.syn();
    }
    if s.ack {
        b = b.ack(1);
    }
    if s.fin {
        b = b.fin();
    }
    let mut out = Vec::with_capacity(b.size(s.payload.len()));
    b.write(&mut out, &s.payload).unwrap();
    out
}

/// A connection's segments, as a client and broker send them.
struct Conn {
    segs: Vec<Seg>,
    /// Next sequence numbers, client and broker.
    next: (u32, u32),
    /// The client's port.
    client: u16,
}

impl Conn {
    /// Opened with a handshake.
    fn opened() -> Self {
        Self::opened_from(CLIENT)
    }

    /// Opened with a handshake from the client's port `client`.
    fn opened_from(client: u16) -> Self {
        let mut c = Self {
            segs: Vec::new(),
            next: (CLIENT_ISN, BROKER_ISN),
            client,
        };
        c.raw(true, true, false, false, &[]);
        c.raw(false, true, true, false, &[]);
        c.next = (CLIENT_ISN.wrapping_add(1), BROKER_ISN.wrapping_add(1));
        c.raw(true, false, true, false, &[]);
        c
    }

    fn raw(&mut self, from_client: bool, syn: bool, ack: bool, fin: bool, payload: &[u8]) {
        let seq = if from_client {
            self.next.0
        } else {
            self.next.1
        };
        self.segs.push(Seg {
            from_client,
            client: self.client,
            seq,
            syn,
            ack,
            fin,
            payload: payload.to_vec(),
        });
        let n = u32::try_from(payload.len()).unwrap();
        if from_client {
            self.next.0 = self.next.0.wrapping_add(n);
        } else {
            self.next.1 = self.next.1.wrapping_add(n);
        }
    }

    /// Sends `bytes` in segments cut at `cuts` (offsets into `bytes`).
    fn send(&mut self, from_client: bool, bytes: &[u8], cuts: &[usize]) -> &mut Self {
        let mut start = 0;
        for &end in cuts.iter().chain([bytes.len()].iter()) {
            if end > start {
                self.raw(from_client, false, true, false, &bytes[start..end]);
                start = end;
            }
        }
        self
    }

    /// Both FINs, then the client's last ACK (which comes after the connection is over).
    fn close(&mut self) -> &mut Self {
        self.raw(true, false, true, true, &[]);
        self.raw(false, false, true, true, &[]);
        self.raw(true, false, true, false, &[]);
        self
    }
}

// --- capture files -------------------------------------------------------------------------

/// A legacy pcap of Ethernet packets, a millisecond apart.
fn pcap(packets: &[Vec<u8>]) -> Vec<u8> {
    let mut header = PcapHeader::new();
    header.network = Linktype::ETHERNET;
    let mut out = header.to_vec().unwrap();
    for (i, p) in packets.iter().enumerate() {
        let len = u32::try_from(p.len()).unwrap();
        let mut b = LegacyPcapBlock {
            ts_sec: 1_700_000_000,
            ts_usec: u32::try_from(i).unwrap() * 1000,
            caplen: len,
            origlen: len,
            data: p,
        };
        out.extend(b.to_vec().unwrap());
    }
    out
}

/// A pcapng of packets of `link`, nanosecond timestamps a millisecond apart.
fn pcapng(link: Linktype, packets: &[Vec<u8>]) -> Vec<u8> {
    let mut shb = SectionHeaderBlock {
        block_type: 0,
        block_len1: 0,
        bom: 0x1a2b_3c4d,
        major_version: 1,
        minor_version: 0,
        section_len: -1,
        options: Vec::new(),
        block_len2: 0,
    };
    let mut out = shb.to_vec().unwrap();
    let mut idb = InterfaceDescriptionBlock {
        block_type: 0,
        block_len1: 0,
        linktype: link,
        reserved: 0,
        snaplen: 262_144,
        options: Vec::new(),
        block_len2: 0,
        if_tsresol: 9,
        if_tsoffset: 0,
    };
    out.extend(idb.to_vec().unwrap());
    for (i, p) in packets.iter().enumerate() {
        let ts = 1_700_000_000_000_000_000u64 + u64::try_from(i).unwrap() * 1_000_000;
        let len = u32::try_from(p.len()).unwrap();
        let mut epb = EnhancedPacketBlock {
            block_type: 0,
            block_len1: 0,
            if_id: 0,
            ts_high: u32::try_from(ts >> 32).unwrap(),
            ts_low: u32::try_from(ts & 0xffff_ffff).unwrap(),
            caplen: len,
            origlen: len,
            data: p,
            options: Vec::new(),
            block_len2: 0,
        };
        out.extend(epb.to_vec().unwrap());
    }
    out
}

fn packets(ip: Ip, segs: &[Seg]) -> Vec<Vec<u8>> {
    segs.iter().map(|s| ether(ip, s)).collect()
}

/// One exchange of each kind on an opened connection: Metadata with an error code in its
/// response, a Heartbeat, then a close.
fn conversation(cuts_request: &[usize], cuts_response: &[usize]) -> Conn {
    let mut c = Conn::opened();
    c.send(true, &metadata_request(7), cuts_request)
        .send(false, &metadata_response(7, 3), cuts_response)
        .send(true, &heartbeat_request(8), &[])
        .send(false, &heartbeat_response(8), &[])
        .close();
    c
}

fn assert_pairs_both(out: &str) {
    assert!(
        out.contains("10.0.0.1:40000 > 10.0.0.2:9092  Metadata v12  corr 7  client \"t\"  20B > "),
        "{out}"
    );
    assert!(
        out.contains("errors: UNKNOWN_TOPIC_OR_PARTITION (3)"),
        "{out}"
    );
    assert!(out.contains("Heartbeat v4  corr 8  client \"t\""), "{out}");
    assert!(
        out.contains("2 requests on 1 connection: 2 answered, 0 with acks=0, 0 left waiting; 0 unanswered, 0 malformed, 0 with damaged records, 0 responses without a request, 0 stream problems"),
        "{out}"
    );
}

#[test]
fn pairs_requests_and_responses() {
    let c = conversation(&[], &[]);
    let (code, out, err) = capture(&pcap(&packets(Ip::V4, &c.segs)), &["--check"]);
    assert_eq!(code, 0, "{err}");
    assert_pairs_both(&out);
    // The first request is sent 3 ms in (after the handshake), answered a millisecond later.
    assert!(out.starts_with("0.003000  10.0.0.1:40000"), "{out}");
    assert!(out.contains("  1.000ms  errors:"), "{out}");
}

#[test]
fn frames_split_anywhere_and_several_in_a_segment() {
    let req = metadata_request(7);
    // Cut inside the size prefix, inside the header, one byte at a time at the end.
    let n = req.len();
    let c = conversation(&[1, 3, 9, n - 2, n - 1], &[4, 5]);
    let (code, out, err) = capture(&pcap(&packets(Ip::V4, &c.segs)), &["--check"]);
    assert_eq!(code, 0, "{err}");
    assert_pairs_both(&out);

    // Two requests in one segment, their responses in one segment too.
    let mut c = Conn::opened();
    let mut two = heartbeat_request(1);
    two.extend(heartbeat_request(2));
    let mut answers = heartbeat_response(1);
    answers.extend(heartbeat_response(2));
    c.send(true, &two, &[]).send(false, &answers, &[]).close();
    let (code, out, err) = capture(&pcap(&packets(Ip::V4, &c.segs)), &["--check"]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("corr 1") && out.contains("corr 2"), "{out}");
    assert!(
        out.contains("2 requests on 1 connection: 2 answered"),
        "{out}"
    );
}

#[test]
fn retransmitted_and_out_of_order_segments() {
    let req = metadata_request(7);
    let c = conversation(&[5, 12, 16], &[10]);
    let mut segs = c.segs.clone();
    // The request's four segments are at 3..7: send them 3, 1, 0, 2 (as ordered before),
    // with the first sent twice and an overlapping retransmission of bytes 3..15.
    let request: Vec<Seg> = segs[3..7].to_vec();
    let overlap = Seg {
        payload: req[3..15].to_vec(),
        seq: request[0].seq.wrapping_add(3),
        ..request[0].clone()
    };
    let shuffled = vec![
        request[3].clone(),
        request[1].clone(),
        request[0].clone(),
        request[0].clone(),
        overlap,
        request[2].clone(),
    ];
    segs.splice(3..7, shuffled);
    let (code, out, err) = capture(&pcap(&packets(Ip::V4, &segs)), &["--check"]);
    assert_eq!(code, 0, "{err}");
    assert_pairs_both(&out);
}

#[test]
fn ipv6_pcapng_with_nanoseconds() {
    let c = conversation(&[7], &[]);
    let (code, out, err) = capture(
        &pcapng(Linktype::ETHERNET, &packets(Ip::V6, &c.segs)),
        &["--check"],
    );
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains("[fd00::1]:40000 > [fd00::2]:9092  Metadata v12  corr 7"),
        "{out}"
    );
    // The request's second segment, a millisecond after its first, completes it.
    assert!(out.starts_with("0.004000  "), "{out}");
}

#[test]
fn linux_cooked_loopback_and_raw_ip_links() {
    let c = conversation(&[], &[]);
    let ip_packets: Vec<Vec<u8>> = packets(Ip::V4, &c.segs)
        .into_iter()
        .map(|p| p[14..].to_vec())
        .collect();
    // Linux cooked v1: 16 bytes, the protocol last; v2: 20 bytes, the protocol first.
    let sll: Vec<Vec<u8>> = ip_packets
        .iter()
        .map(|p| {
            let mut h = vec![0, 0, 0, 1, 0, 6, 2, 0, 0, 0, 0, 1, 0, 0, 0x08, 0x00];
            h.extend(p);
            h
        })
        .collect();
    let sll2: Vec<Vec<u8>> = ip_packets
        .iter()
        .map(|p| {
            let mut h = vec![
                0x08, 0, 0, 0, 0, 0, 0, 1, 0, 1, 0, 6, 2, 0, 0, 0, 0, 1, 0, 0,
            ];
            h.extend(p);
            h
        })
        .collect();
    // BSD loopback: the address family in the host's byte order (2: IPv4).
    let null: Vec<Vec<u8>> = ip_packets
        .iter()
        .map(|p| {
            let mut h = 2u32.to_le_bytes().to_vec();
            h.extend(p);
            h
        })
        .collect();
    for (link, packets) in [
        (Linktype::LINUX_SLL, sll),
        (Linktype::LINUX_SLL2, sll2),
        (Linktype::NULL, null),
        (Linktype::RAW, ip_packets.clone()),
        (Linktype::IPV4, ip_packets.clone()),
    ] {
        let (code, out, err) = capture(&pcapng(link, &packets), &["--check"]);
        assert_eq!(code, 0, "{link:?}: {err}");
        assert_pairs_both(&out);
    }
}

#[test]
fn ports_and_api_filter() {
    let c = conversation(&[], &[]);
    let file = pcap(&packets(Ip::V4, &c.segs));
    let (code, out, _) = capture(&file, &["--port", "19092"]);
    assert_eq!(code, 0);
    assert!(out.contains("0 requests on 0 connections"), "{out}");
    assert!(out.contains("name the brokers' ports with --port"), "{out}");
    let (code, out, _) = capture(
        &file,
        &["--port", "19092", "--port", "9092", "--api", "heartbeat"],
    );
    assert_eq!(code, 0);
    assert!(
        out.contains("Heartbeat v4") && !out.contains("Metadata v12"),
        "{out}"
    );
    assert!(
        out.contains("1 request on 1 connection: 1 answered"),
        "{out}"
    );
}

#[test]
fn trees_below_the_line() {
    let c = conversation(&[], &[]);
    let (code, out, _) = capture(&pcap(&packets(Ip::V4, &c.segs)), &["--tree", "--api", "12"]);
    assert_eq!(code, 0);
    let mut lines = out.lines();
    assert!(lines.next().unwrap().contains("Heartbeat v4  corr 8"));
    assert_eq!(lines.next(), Some("request:"));
    assert!(lines.next().unwrap().starts_with("HeartbeatRequest "));
    assert!(out.contains("\nresponse:\nHeartbeatResponse "), "{out}");
    assert!(out.contains("+-- GroupId "), "{out}");
}

#[test]
fn unanswered_acks_zero_and_orphans() {
    let produce = {
        let header = RequestHeader::new(ApiKey::PRODUCE, 9, 5).with_client_id(Some("t"));
        let mut buf = vec![0u8; 256];
        let body = ProduceRequest::default().with_acks(0);
        let n = frame::encode_request(&header, &body, &mut buf).unwrap();
        buf.truncate(n);
        buf
    };
    let mut c = Conn::opened();
    c.send(true, &produce, &[])
        .send(true, &heartbeat_request(6), &[])
        .send(true, &heartbeat_request(7), &[])
        .send(true, &heartbeat_request(8), &[])
        .send(false, &heartbeat_response(7), &[])
        .send(false, &heartbeat_response(99), &[])
        .close();
    let file = pcap(&packets(Ip::V4, &c.segs));
    let (code, out, err) = capture(&file, &["--check"]);
    assert!(out.contains("Produce v9  corr 5  client \"t\""), "{out}");
    assert!(out.contains("(acks=0: no response)"), "{out}");
    assert!(
        out.contains(
            "corr 6  client \"t\"  25B  (no response: the broker answered a later request first)"
        ),
        "{out}"
    );
    assert!(
        out.contains("Heartbeat v4  corr 7  client \"t\"  25B > 16B"),
        "{out}"
    );
    assert!(out.contains("response corr 99"), "{out}");
    assert!(
        out.contains("corr 8  client \"t\"  25B  (no response: the client closed the connection)"),
        "{out}"
    );
    assert!(out.contains("4 requests on 1 connection: 1 answered, 1 with acks=0, 1 left waiting; 1 unanswered, 0 malformed, 0 with damaged records, 1 response without"));
    assert_eq!(code, 1);
    assert!(err.contains("--check"), "{err}");
    // Without --check the same capture is a success: it was read.
    assert_eq!(capture(&file, &[]).0, 0);
}

#[test]
fn a_malformed_frame_is_shown_and_the_stream_goes_on() {
    let mut bad = metadata_response(7, 0);
    // The topic name's compact length, past the end of the frame.
    let at = bad.windows(6).position(|w| w == b"orders").unwrap() - 1;
    bad[at] = 0x7f;
    let mut c = Conn::opened();
    c.send(true, &metadata_request(7), &[])
        .send(false, &bad, &[])
        .send(true, &heartbeat_request(8), &[])
        .send(false, &heartbeat_response(8), &[])
        .close();
    let (code, out, _) = capture(&pcap(&packets(Ip::V4, &c.segs)), &["--check"]);
    assert_eq!(code, 1);
    assert!(out.contains("Metadata v12  corr 7"), "{out}");
    assert!(out.contains("response malformed: "), "{out}");
    assert!(out.contains("at byte "), "{out}");
    assert!(
        out.contains("Heartbeat v4  corr 8") && out.contains("  ok\n"),
        "{out}"
    );
    assert!(out.contains("2 requests on 1 connection: 2 answered, 0 with acks=0, 0 left waiting; 0 unanswered, 1 malformed"));
}

/// A Produce v9 request of one uncompressed batch of two records, and the offset of the batch's
/// CRC in the frame.
fn produce_with_a_batch(correlation_id: i32) -> (Vec<u8>, usize) {
    use kwire::messages::produce_request::{PartitionProduceData, TopicProduceData};
    use kwire::records::{BatchBuilder, NewRecord, Records};
    let plain = [NewRecord::new(b"hello"), NewRecord::new(b"world")];
    let mut records = vec![0u8; 256];
    let n = BatchBuilder::new().write(&plain, &mut records).unwrap();
    records.truncate(n);
    let partitions = [PartitionProduceData::default()
        .with_index(0)
        .with_records(Some(Records::from(&records[..])))];
    let topics = [TopicProduceData::default()
        .with_name("orders")
        .with_partition_data(&partitions[..])];
    let body = ProduceRequest::default()
        .with_acks(-1)
        .with_topic_data(&topics[..]);
    let header = RequestHeader::new(ApiKey::PRODUCE, 9, correlation_id).with_client_id(Some("t"));
    let mut frame = vec![0u8; 1024];
    let n = frame::encode_request(&header, &body, &mut frame).unwrap();
    frame.truncate(n);
    // The batch is the last thing in the frame but the tagged sections of its partition, topic
    // and request; its CRC is 17 bytes into it.
    let batch = frame
        .windows(records.len())
        .position(|w| w == records)
        .unwrap();
    (frame, batch + 17)
}

fn produce_response(correlation_id: i32) -> Vec<u8> {
    let header = ResponseHeader::default().with_correlation_id(correlation_id);
    let mut buf = vec![0u8; 256];
    let body = kwire::messages::ProduceResponse::default();
    let n = frame::encode_response(&header, &body, 9, &mut buf).unwrap();
    buf.truncate(n);
    buf
}

#[test]
fn a_damaged_batch_marks_its_exchange_and_fails_the_check() {
    let (good, crc) = produce_with_a_batch(3);
    let mut bad = good.clone();
    bad[crc] ^= 0x01;
    let conn = |request: &[u8]| {
        let mut c = Conn::opened();
        c.send(true, request, &[])
            .send(false, &produce_response(3), &[])
            .close();
        pcap(&packets(Ip::V4, &c.segs))
    };
    let (code, out, err) = capture(&conn(&good), &["--check"]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(
        out.contains("Produce v9  corr 3") && out.contains("  ok\n"),
        "{out}"
    );

    // Without --records the line says what is wrong, and --check fails.
    let (code, out, err) = capture(&conn(&bad), &["--check"]);
    assert_eq!(code, 1, "{out}");
    assert!(err.contains("--check"), "{err}");
    assert!(!out.contains("  ok"), "{out}");
    assert!(
        out.contains(
            "  damaged records: records of topic \"orders\" partition 0: batch at offset 0: "
        ),
        "{out}"
    );
    assert!(out.contains("CRC mismatch"), "{out}");
    assert!(out.contains("0 malformed, 1 with damaged records"), "{out}");
    // With --records, the records are shown below it as they are.
    let (code, out, _) = capture(&conn(&bad), &["--check", "--records"]);
    assert_eq!(code, 1, "{out}");
    assert!(out.contains("  damaged records: "), "{out}");
    assert!(out.contains("value \"world\""), "{out}");
    // Without --check the capture was read: a success.
    assert_eq!(capture(&conn(&bad), &[]).0, 0);
}

#[test]
fn lines_are_in_request_order_unless_asked_otherwise() {
    // Connection A asks first and is answered last; connection B asks second, answered first.
    let mut a = Conn::opened_from(40001);
    a.send(true, &metadata_request(7), &[]);
    let mut b = Conn::opened_from(40002);
    b.send(true, &heartbeat_request(8), &[])
        .send(false, &heartbeat_response(8), &[]);
    let mut segs = a.segs.clone();
    segs.extend(b.segs.iter().cloned());
    let asked = a.segs.len();
    a.send(false, &metadata_response(7, 0), &[]);
    segs.extend(a.segs[asked..].iter().cloned());
    let file = pcap(&packets(Ip::V4, &segs));
    let first = |out: &str| {
        let m = out.find("Metadata v12").unwrap();
        let h = out.find("Heartbeat v4").unwrap();
        if m < h { "Metadata" } else { "Heartbeat" }
    };
    let (code, out, err) = capture(&file, &["--check"]);
    assert_eq!(code, 0, "{out}{err}");
    assert_eq!(first(&out), "Metadata", "{out}");
    let times: Vec<f64> = out
        .lines()
        .filter(|l| l.contains(" > "))
        .map(|l| l.split_whitespace().next().unwrap().parse().unwrap())
        .collect();
    assert!(times.windows(2).all(|w| w[0] <= w[1]), "{out}");
    let (code, out, _) = capture(&file, &["--check", "--order", "completion"]);
    assert_eq!(code, 0, "{out}");
    assert_eq!(first(&out), "Heartbeat", "{out}");
}

#[test]
fn a_capture_that_starts_inside_a_connection() {
    let mut c = Conn::opened();
    c.send(true, &metadata_request(7), &[20])
        .send(false, &metadata_response(7, 0), &[])
        .send(true, &heartbeat_request(8), &[])
        .send(false, &heartbeat_response(8), &[]);
    // Without the handshake and the first request's first segment: its second half and the
    // orphaned response are skipped over, the heartbeat is found.
    let late = &c.segs[4..];
    let (code, out, _) = capture(&pcap(&packets(Ip::V4, late)), &[]);
    assert_eq!(code, 0);
    assert!(out.contains("skipped to the next frame"), "{out}");
    assert!(out.contains("Heartbeat v4  corr 8"), "{out}");
    assert!(
        out.contains("1 request on 1 connection: 1 answered"),
        "{out}"
    );
}

#[test]
fn lost_bytes_are_reported_and_skipped() {
    let mut c = Conn::opened();
    c.send(true, &metadata_request(7), &[10])
        .send(false, &metadata_response(7, 0), &[])
        .send(true, &heartbeat_request(8), &[])
        .send(false, &heartbeat_response(8), &[]);
    // The request's first segment never captured: its bytes are missing.
    let mut segs = c.segs.clone();
    segs.remove(3);
    let (code, out, _) = capture(&pcap(&packets(Ip::V4, &segs)), &["--check"]);
    assert_eq!(code, 1);
    assert!(out.contains("10 bytes missing from the capture"), "{out}");
    assert!(out.contains("Heartbeat v4  corr 8"), "{out}");
}

#[test]
fn damaged_captures_fail_with_a_message() {
    let c = conversation(&[], &[]);
    let file = pcap(&packets(Ip::V4, &c.segs));
    let (code, _, err) = capture(b"", &[]);
    assert_eq!((code, err.trim()), (1, "kwire: the capture is empty"));
    let (code, _, err) = capture(b"GET / HTTP/1.1\r\n\r\n and more bytes after it", &[]);
    assert_eq!(code, 1);
    assert!(err.contains("not a pcap or pcapng capture"), "{err}");
    let (code, _, err) = capture(&file[..10], &[]);
    assert_eq!(code, 1);
    assert!(err.contains("ends inside its file header"), "{err}");
    // Cut inside the ninth packet: the exchanges before it are printed, then the error.
    let cut = 24
        + (0..8)
            .map(|i| 16 + ether(Ip::V4, &c.segs[i]).len())
            .sum::<usize>()
        + 20;
    let (code, out, err) = capture(&file[..cut], &[]);
    assert_eq!(code, 1);
    assert!(out.contains("Metadata v12  corr 7"), "{out}");
    assert!(
        err.contains("truncated: it ends inside the block at byte"),
        "{err}"
    );
    // pcapng: a packet of an interface no block declared.
    let mut ng = pcapng(Linktype::ETHERNET, &packets(Ip::V4, &c.segs));
    let first_epb = pcapng(Linktype::ETHERNET, &[]).len();
    ng[first_epb + 8] = 5;
    let (code, _, err) = capture(&ng, &[]);
    assert_eq!(code, 1);
    assert!(err.contains("names interface 5"), "{err}");
}

#[test]
fn garbage_payloads_and_mutated_captures_never_panic() {
    // Garbage on the Kafka port, in both directions.
    let mut c = Conn::opened();
    let noise: Vec<u8> = (0..3000u32)
        .map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8)
        .collect();
    c.send(true, &noise, &[100, 1000])
        .send(false, &noise, &[7])
        .close();
    let (code, out, err) = capture(&pcap(&packets(Ip::V4, &c.segs)), &[]);
    assert_eq!(code, 0, "{err}");
    // The noise reads as the start of a frame larger than all of it, in both directions.
    for ends in [
        "10.0.0.1:40000 > 10.0.0.2:9092",
        "10.0.0.2:9092 > 10.0.0.1:40000",
    ] {
        let line =
            format!("{ends}: the connection ends inside a frame: 3000 bytes at stream byte 0");
        assert!(out.contains(&line), "{out}");
    }
    assert!(
        out.contains(
            "0 malformed, 0 with damaged records, 0 responses without a request, 2 stream problems"
        ),
        "{out}"
    );

    // Every byte of a small capture changed in turn: the tool answers 0 or 1, never panics.
    let mut small = Conn::opened();
    small
        .send(true, &heartbeat_request(1), &[9])
        .send(false, &heartbeat_response(1), &[]);
    for file in [
        pcap(&packets(Ip::V4, &small.segs)),
        pcapng(Linktype::ETHERNET, &packets(Ip::V6, &small.segs)),
    ] {
        for i in (0..file.len()).step_by(3) {
            let mut m = file.clone();
            m[i] ^= 0xa5;
            let (code, _, err) = capture(&m, &["--tree"]);
            assert!(code == 0 || code == 1, "byte {i}: exit {code}: {err}");
            assert!(!err.contains("panicked"), "byte {i}: {err}");
        }
    }
}

#[test]
fn reads_a_file_by_path() {
    let c = conversation(&[], &[]);
    let path = std::env::temp_dir().join(format!("kwire-capture-{}.pcap", std::process::id()));
    std::fs::write(&path, pcap(&packets(Ip::V4, &c.segs))).unwrap();
    let o = run(&["capture", path.to_str().unwrap(), "--check"], b"");
    std::fs::remove_file(&path).unwrap();
    assert_eq!(o.status.code(), Some(0));
    assert_pairs_both(&String::from_utf8(o.stdout).unwrap());
    let o = run(&["capture", "/nonexistent/k.pcap"], b"");
    assert_eq!(o.status.code(), Some(1));
    assert!(
        String::from_utf8(o.stderr)
            .unwrap()
            .contains("opening /nonexistent/k.pcap")
    );
}

// --- --lint --------------------------------------------------------------------------------

/// `frame` with the one-byte uvarint at `at` written in two bytes (the same value).
fn widen_varint(frame: &[u8], at: usize) -> Vec<u8> {
    assert!(frame[at] < 0x80);
    let mut out = frame[..at].to_vec();
    out.extend_from_slice(&[frame[at] | 0x80, 0]);
    out.extend_from_slice(&frame[at + 1..]);
    resize(out)
}

/// `frame` with `n` bytes at `at` replaced by `with`, its size prefix made to agree.
fn splice(frame: &[u8], at: usize, n: usize, with: &[u8]) -> Vec<u8> {
    let mut out = frame[..at].to_vec();
    out.extend_from_slice(with);
    out.extend_from_slice(&frame[at + n..]);
    resize(out)
}

fn resize(mut frame: Vec<u8>) -> Vec<u8> {
    let size = u32::try_from(frame.len() - 4).unwrap();
    frame[..4].copy_from_slice(&size.to_be_bytes());
    frame
}

/// `kwire capture --check --lint` on one connection of `frames` (request when `true`).
fn lint(frames: &[(bool, Vec<u8>)]) -> (i32, String) {
    let mut c = Conn::opened();
    for (from_client, f) in frames {
        c.send(*from_client, f, &[]);
    }
    c.close();
    let (code, out, _) = capture(&pcap(&packets(Ip::V4, &c.segs)), &["--check", "--lint"]);
    (code, out)
}

fn api_versions_exchange(correlation_id: i32, metadata: (i16, i16)) -> [(bool, Vec<u8>); 2] {
    use kwire::messages::api_versions_response::ApiVersion;
    use kwire::messages::{ApiVersionsRequest, ApiVersionsResponse};
    let header =
        RequestHeader::new(ApiKey::API_VERSIONS, 3, correlation_id).with_client_id(Some("t"));
    let mut req = vec![0u8; 256];
    let n = frame::encode_request(&header, &ApiVersionsRequest::default(), &mut req).unwrap();
    req.truncate(n);
    let keys = [
        ApiVersion::default()
            .with_api_key(ApiKey::METADATA.0)
            .with_min_version(metadata.0)
            .with_max_version(metadata.1),
        ApiVersion::default()
            .with_api_key(ApiKey::API_VERSIONS.0)
            .with_max_version(4),
        ApiVersion::default()
            .with_api_key(ApiKey::HEARTBEAT.0)
            .with_max_version(4),
    ];
    let body = ApiVersionsResponse::default().with_api_keys(&keys[..]);
    let header = ResponseHeader::default().with_correlation_id(correlation_id);
    let mut resp = vec![0u8; 256];
    let n = frame::encode_response(&header, &body, 3, &mut resp).unwrap();
    resp.truncate(n);
    [(true, req), (false, resp)]
}

#[test]
fn lint_passes_what_kafka_writes() {
    let [v_req, v_resp] = api_versions_exchange(1, (0, 13));
    let (code, out) = lint(&[
        v_req,
        v_resp,
        (true, metadata_request(2)),
        (false, metadata_response(2, 0)),
        (true, heartbeat_request(3)),
        (false, heartbeat_response(3)),
    ]);
    assert_eq!(code, 0, "{out}");
    assert!(!out.contains("lint "), "{out}");
    assert!(out.contains("; lint: 0 errors, 0 warnings"), "{out}");
}

#[test]
fn lint_finds_varints_longer_than_needed() {
    // Metadata v12: size, key, version, correlation id, client id "t", then the header's
    // tagged-field count at byte 15.
    let request = widen_varint(&metadata_request(2), 15);
    let (code, out) = lint(&[(true, request), (false, metadata_response(2, 0))]);
    assert!(
        out.contains("lint warning [varint-not-minimal] request byte 15: a uvarint holding 0 takes 2 bytes where 1 suffices"),
        "{out}"
    );
    // A warning: the exchange still passes the check.
    assert_eq!(code, 0, "{out}");
    assert!(out.contains("; lint: 0 errors, 1 warning"), "{out}");
}

/// An ApiVersions v3 response whose top-level tagged section (its last byte) is `tags`.
fn api_versions_response_with_tags(correlation_id: i32, tags: &[u8]) -> Vec<u8> {
    let [_, (_, resp)] = api_versions_exchange(correlation_id, (0, 13));
    splice(&resp, resp.len() - 1, 1, tags)
}

#[test]
fn lint_finds_tagged_fields_at_their_default_and_out_of_order() {
    let [req, _] = api_versions_exchange(1, (0, 13));
    // ZkMigrationReady (tag 3) sent as false, its default.
    let at_default = api_versions_response_with_tags(1, &[1, 3, 1, 0]);
    let (code, out) = lint(&[req.clone(), (false, at_default.clone())]);
    assert_eq!(code, 0, "{out}");
    // The entry starts after the section's count.
    let at = at_default.len() - 3;
    assert!(
        out.contains(&format!("lint warning [tagged-field-default] response byte {at}: tagged field ZkMigrationReady (tag 3) is sent with its default value")),
        "{out}"
    );
    // Tag 3 before tag 1.
    let mut tags = vec![2, 3, 1, 1, 1, 8];
    tags.extend_from_slice(&5i64.to_be_bytes());
    let (code, out) = lint(&[req, (false, api_versions_response_with_tags(1, &tags))]);
    assert_eq!(code, 1, "{out}");
    assert!(
        out.contains("lint error [tagged-field-order] response byte ")
            && out.contains("tag 1 follows tag 3"),
        "{out}"
    );
}

#[test]
fn lint_finds_header_versions_that_do_not_match_the_api_version() {
    // Metadata v12 takes request header v2: drop its tagged-field count.
    let request = splice(&metadata_request(2), 15, 1, &[]);
    let (code, out) = lint(&[(true, request), (false, metadata_response(2, 0))]);
    assert_eq!(code, 1, "{out}");
    assert!(
        out.contains("lint error [request-header-version] request byte 4: the request header is v1, but Metadata v12 takes request header v2"),
        "{out}"
    );
    // Heartbeat v4 takes response header v1: drop its tagged-field count.
    let response = splice(&heartbeat_response(3), 8, 1, &[]);
    let (code, out) = lint(&[(true, heartbeat_request(3)), (false, response)]);
    assert_eq!(code, 1, "{out}");
    assert!(
        out.contains("lint error [response-header-version] response byte 4: the response header is v0, but a response to Heartbeat v4 takes response header v1"),
        "{out}"
    );
}

#[test]
fn lint_finds_versions_the_broker_did_not_advertise_and_removed_ones() {
    let [v_req, v_resp] = api_versions_exchange(1, (0, 11));
    let (code, out) = lint(&[
        v_req,
        v_resp,
        (true, metadata_request(2)),
        (false, metadata_response(2, 0)),
    ]);
    assert_eq!(code, 1, "{out}");
    assert!(
        out.contains("lint error [version-not-advertised] request byte 6: Metadata v12 sent, but the broker advertised 0-11 on this connection"),
        "{out}"
    );
    // Fetch v3 is a version Kafka 4.0 removed.
    let header = RequestHeader::new(ApiKey::FETCH, 3, 4).with_client_id(Some("t"));
    let mut request = vec![0u8; 256];
    let n = frame::encode_request(
        &header,
        &kwire::messages::FetchRequest::default(),
        &mut request,
    )
    .unwrap();
    request.truncate(n);
    let (_, out) = lint(&[(true, request)]);
    assert!(
        out.contains(
            "lint warning [removed-version] request byte 6: Fetch v3 was removed in Kafka 4.0"
        ),
        "{out}"
    );
}

#[test]
fn lint_finds_reused_correlation_ids_size_prefixes_and_unknown_error_codes() {
    let (code, out) = lint(&[
        (true, heartbeat_request(3)),
        (true, heartbeat_request(3)),
        (false, heartbeat_response(3)),
    ]);
    assert_eq!(code, 1, "{out}");
    assert!(
        out.contains(
            "lint error [correlation-id-reused] request byte 8: correlation id 3 was used again"
        ),
        "{out}"
    );
    // One byte more than the message: the size prefix disagrees with it.
    let mut request = heartbeat_request(4);
    request.push(0);
    let (code, out) = lint(&[(true, resize(request)), (false, heartbeat_response(4))]);
    assert_eq!(code, 1, "{out}");
    assert!(
        out.contains("lint error [size-prefix] request byte ")
            && out.contains("but the message ends 1 bytes before them"),
        "{out}"
    );
    let (code, out) = lint(&[
        (true, metadata_request(5)),
        (false, metadata_response(5, 9999)),
    ]);
    assert_eq!(code, 0, "{out}");
    assert!(
        out.contains("lint warning [unknown-error-code] response byte ")
            && out.contains("error code 9999 is not one the protocol defines"),
        "{out}"
    );
}

#[test]
fn lint_finds_strings_that_are_not_utf8() {
    // Metadata v12 with the client id "t" (byte 14) made 0xff; Heartbeat v4 with the group id
    // "g" (byte 17, after the header's tagged fields and the compact length) made 0xff.
    let metadata = splice(&metadata_request(2), 14, 1, &[0xff]);
    let heartbeat = splice(&heartbeat_request(3), 17, 1, &[0xff]);
    let (code, out) = lint(&[
        (true, metadata),
        (false, metadata_response(2, 0)),
        (true, heartbeat),
        (false, heartbeat_response(3)),
    ]);
    assert!(
        out.contains(r#"lint warning [string-not-utf8] request byte 14: string client_id "\xff" is not UTF-8"#),
        "{out}"
    );
    assert!(
        out.contains(
            r#"lint warning [string-not-utf8] request byte 17: string GroupId "\xff" is not UTF-8"#
        ),
        "{out}"
    );
    // Both frames decode; the line names the client as Kafka reads its id.
    assert!(out.contains("client \"\u{fffd}\""), "{out}");
    assert_eq!(code, 0, "{out}");
    assert!(out.contains("; lint: 0 errors, 2 warnings"), "{out}");
}

#[test]
fn lint_finds_leader_endpoints_that_disagree_with_the_metadata() {
    use kwire::messages::metadata_response::MetadataResponseBroker;
    use kwire::messages::produce_response::NodeEndpoint;
    let brokers = [MetadataResponseBroker::default()
        .with_node_id(1)
        .with_host("broker-1")
        .with_port(9092)];
    let body = MetadataResponse::default().with_brokers(&brokers[..]);
    let header = ResponseHeader::default().with_correlation_id(2);
    let mut metadata = vec![0u8; 256];
    let n = frame::encode_response(&header, &body, 12, &mut metadata).unwrap();
    metadata.truncate(n);
    let produce = |port| {
        let header = RequestHeader::new(ApiKey::PRODUCE, 11, 3).with_client_id(Some("t"));
        let mut req = vec![0u8; 256];
        let n = frame::encode_request(&header, &ProduceRequest::default().with_acks(-1), &mut req)
            .unwrap();
        req.truncate(n);
        let endpoints = [NodeEndpoint::default()
            .with_node_id(1)
            .with_host("broker-1")
            .with_port(port)];
        let body = kwire::messages::ProduceResponse::default().with_node_endpoints(&endpoints[..]);
        let header = ResponseHeader::default().with_correlation_id(3);
        let mut resp = vec![0u8; 256];
        let n = frame::encode_response(&header, &body, 11, &mut resp).unwrap();
        resp.truncate(n);
        [(true, req), (false, resp)]
    };
    let exchange = |port| {
        let mut frames = vec![(true, metadata_request(2)), (false, metadata.clone())];
        frames.extend(produce(port));
        lint(&frames)
    };
    let (code, out) = exchange(9092);
    assert_eq!(code, 0, "{out}");
    let (code, out) = exchange(9093);
    assert_eq!(code, 1, "{out}");
    assert!(
        out.contains("lint error [leader-endpoint] response byte ")
            && out.contains("the leader endpoint of node 1 is broker-1:9093, but the Metadata response gave broker-1:9092"),
        "{out}"
    );
}

#[test]
fn topic_ids_are_shown_with_the_names_metadata_gave() {
    use kwire::codec::Uuid;
    use kwire::messages::FetchRequest;
    use kwire::messages::fetch_request::{FetchPartition, FetchTopic};
    let id = Uuid::from(0x0123_4567_89ab_cdef_0123_4567_89ab_cdef_u128);
    let topics = [MetadataResponseTopic::default()
        .with_name(Some("orders"))
        .with_topic_id(id)];
    let body = MetadataResponse::default().with_topics(&topics[..]);
    let header = ResponseHeader::default().with_correlation_id(2);
    let mut metadata = vec![0u8; 256];
    let n = frame::encode_response(&header, &body, 12, &mut metadata).unwrap();
    metadata.truncate(n);
    let partitions = [FetchPartition::default()];
    let fetch_topics = [FetchTopic::default()
        .with_topic_id(id)
        .with_partitions(&partitions[..])];
    let header = RequestHeader::new(ApiKey::FETCH, 13, 3).with_client_id(Some("t"));
    let mut fetch = vec![0u8; 256];
    let n = frame::encode_request(
        &header,
        &FetchRequest::default().with_topics(&fetch_topics[..]),
        &mut fetch,
    )
    .unwrap();
    fetch.truncate(n);
    let mut c = Conn::opened();
    c.send(true, &metadata_request(2), &[])
        .send(false, &metadata, &[])
        .send(true, &fetch, &[])
        .close();
    let (_, out, _) = capture(&pcap(&packets(Ip::V4, &c.segs)), &["--tree"]);
    // Kafka's form of the id, everywhere; the name where the capture gave it.
    assert!(!out.contains(&id.hyphenated().to_string()), "{out}");
    let lines: Vec<&str> = out
        .lines()
        .filter(|l| l.contains(&id.to_string()))
        .collect();
    assert_eq!(lines.len(), 2, "{out}");
    // The Metadata response that names it, and the Fetch request that uses it.
    assert!(
        lines.iter().all(|l| l.ends_with("  (topic \"orders\")")),
        "{out}"
    );
}

#[test]
fn a_batch_whose_last_offset_delta_disagrees_with_its_records_is_damaged() {
    let (mut request, crc) = produce_with_a_batch(3);
    // The two records are at deltas 0 and 1; say 4. The CRC, over the attributes on, is made
    // to agree.
    let delta = crc + 4 + 2;
    request[delta..delta + 4].copy_from_slice(&4i32.to_be_bytes());
    let batch_len = i32::from_be_bytes(request[crc - 9..crc - 5].try_into().unwrap());
    let end = crc - 5 + usize::try_from(batch_len).unwrap();
    let sum = kwire::records::crc::crc32c(&request[crc + 4..end]);
    request[crc..crc + 4].copy_from_slice(&sum.to_be_bytes());
    let mut c = Conn::opened();
    c.send(true, &request, &[])
        .send(false, &produce_response(3), &[])
        .close();
    let (code, out, _) = capture(&pcap(&packets(Ip::V4, &c.segs)), &["--check"]);
    assert_eq!(code, 1, "{out}");
    assert!(
        out.contains("damaged records: records of topic \"orders\" partition 0: batch at offset 0: its last offset delta 4 puts its last record at offset 4, but that record is at offset 1"),
        "{out}"
    );
}

/// The corpus of the `capture` fuzz target, replayed: every file reads without a panic, with
/// everything printed. `WRITE_CAPTURE_SEEDS=1` (re)writes its seeds from the captures these
/// tests build.
#[test]
fn the_capture_fuzz_corpus_reads_without_a_panic() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../fuzz/corpus/capture");
    if std::env::var_os("WRITE_CAPTURE_SEEDS").is_some() {
        let (produce, _) = produce_with_a_batch(9);
        let [v_req, v_resp] = api_versions_exchange(1, (0, 11));
        let mut lints = Conn::opened();
        lints
            .send(true, &v_req.1, &[])
            .send(false, &v_resp.1, &[])
            .send(true, &widen_varint(&metadata_request(2), 15), &[3])
            .send(false, &metadata_response(2, 9999), &[])
            .send(true, &produce, &[40])
            .send(false, &produce_response(9), &[])
            .send(true, &heartbeat_request(4), &[])
            .send(true, &heartbeat_request(4), &[])
            .close();
        let seeds = [
            (
                "seed-pcap",
                pcap(&packets(Ip::V4, &conversation(&[5], &[9]).segs)),
            ),
            (
                "seed-pcapng-ipv6",
                pcapng(
                    Linktype::ETHERNET,
                    &packets(Ip::V6, &conversation(&[], &[]).segs),
                ),
            ),
            ("seed-lint", pcap(&packets(Ip::V4, &lints.segs))),
        ];
        std::fs::create_dir_all(&dir).unwrap();
        for (name, bytes) in seeds {
            std::fs::write(dir.join(name), bytes).unwrap();
        }
    }
    let mut files = 0;
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        let data = std::fs::read(&path).unwrap();
        let (code, out, err) = capture(&data, &["--tree", "--records", "--lint"]);
        assert!(
            (code == 0 || code == 1) && !err.contains("panicked"),
            "{}: exit {code}\n{out}{err}",
            path.display()
        );
        files += 1;
    }
    assert!(files >= 3, "the capture corpus has {files} files");
}
