//! TCP segments out of captured packets, and each direction's bytes put back in order.

use std::net::{IpAddr, SocketAddr};

use etherparse::{EtherType, NetSlice, SlicedPacket, TransportSlice};
use pcap_parser::Linktype;

/// The TCP part of a packet.
#[derive(Debug, Clone, Copy)]
pub struct Segment<'a> {
    /// Where it comes from.
    pub src: SocketAddr,
    /// Where it goes.
    pub dst: SocketAddr,
    /// The sequence number of its first byte (of the SYN, on a SYN).
    pub seq: u32,
    /// Opens a connection.
    pub syn: bool,
    /// Acknowledges (with `syn`: the server's half of the handshake).
    pub ack: bool,
    /// Ends its direction.
    pub fin: bool,
    /// Aborts the connection.
    pub rst: bool,
    /// The bytes it carries.
    pub payload: &'a [u8],
}

/// The TCP segment a packet carries, or `None` for anything else (ARP, UDP, an IP fragment, a
/// packet cut short by the snapshot length, a link type not handled).
pub fn segment(link: Linktype, data: &[u8]) -> Option<Segment<'_>> {
    let sliced = match link {
        Linktype::ETHERNET => SlicedPacket::from_ethernet(data).ok()?,
        Linktype::LINUX_SLL => SlicedPacket::from_linux_sll(data).ok()?,
        // Linux cooked v2 (`tcpdump -i any`): the protocol first, 20 bytes in all.
        Linktype::LINUX_SLL2 => {
            let (proto, _) = data.split_first_chunk::<2>()?;
            let rest = data.get(20..)?;
            SlicedPacket::from_ether_type(EtherType(u16::from_be_bytes(*proto)), rest).ok()?
        }
        // BSD loopback: a four-byte address family, then the IP packet.
        Linktype::NULL | Linktype::LOOP => SlicedPacket::from_ip(data.get(4..)?).ok()?,
        Linktype::RAW | Linktype::IPV4 | Linktype::IPV6 => SlicedPacket::from_ip(data).ok()?,
        _ => return None,
    };
    if sliced.is_ip_payload_fragmented() {
        return None;
    }
    let (src, dst): (IpAddr, IpAddr) = match &sliced.net {
        Some(NetSlice::Ipv4(ip)) => (
            ip.header().source_addr().into(),
            ip.header().destination_addr().into(),
        ),
        Some(NetSlice::Ipv6(ip)) => (
            ip.header().source_addr().into(),
            ip.header().destination_addr().into(),
        ),
        _ => return None,
    };
    let Some(TransportSlice::Tcp(tcp)) = &sliced.transport else {
        return None;
    };
    Some(Segment {
        src: SocketAddr::new(src, tcp.source_port()),
        dst: SocketAddr::new(dst, tcp.destination_port()),
        seq: tcp.sequence_number(),
        syn: tcp.syn(),
        ack: tcp.ack(),
        fin: tcp.fin(),
        rst: tcp.rst(),
        payload: tcp.payload(),
    })
}

/// Out-of-order bytes held at most, per direction, before the missing ones are given up on.
const MAX_HELD: usize = 64 << 20;

/// One direction of a connection: puts the payloads of its segments in sequence order, drops
/// what was already delivered (retransmissions, overlaps), holds segments that arrive early
/// until the gap before them fills.
#[derive(Debug, Default)]
pub struct Reassembler {
    /// The sequence number of the next byte to deliver; `None` before the first segment.
    next: Option<u32>,
    /// Segments ahead of `next`: (sequence number, bytes).
    held: Vec<(u32, Vec<u8>)>,
    held_bytes: usize,
}

/// What a segment gave.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Delivered {
    /// Bytes now in order, to append to the stream.
    pub bytes: Vec<u8>,
    /// Bytes given up on before them (missing from the capture), when a gap was skipped.
    pub lost: usize,
}

/// How far `seq` is ahead of `base` (negative: behind), in sequence space.
fn ahead(seq: u32, base: u32) -> i64 {
    // Two's complement of the difference: within 2 GiB either way, as TCP assumes.
    i64::from(seq.wrapping_sub(base).cast_signed())
}

impl Reassembler {
    /// Takes a segment: its sequence number (of the SYN, on a SYN) and payload.
    pub fn push(&mut self, seq: u32, syn: bool, payload: &[u8]) -> Delivered {
        let mut out = Delivered::default();
        // The SYN takes one sequence number; data (rare on a SYN) follows it.
        let seq = if syn { seq.wrapping_add(1) } else { seq };
        // A capture that starts inside a connection: its first segment is where it begins.
        let next = *self.next.get_or_insert(seq);
        if payload.is_empty() {
            return out;
        }
        if ahead(seq, next) > 0 {
            self.hold(seq, payload);
            if self.held_bytes > MAX_HELD {
                out.lost = self.skip();
            }
        } else {
            self.deliver(seq, payload, &mut out.bytes);
        }
        self.drain(&mut out.bytes);
        out
    }

    /// Gives up on the bytes missing before the earliest held segment, and delivers from
    /// there: what a capture's end does to a direction still waiting for them.
    pub fn skip_gap(&mut self) -> Delivered {
        let mut out = Delivered {
            bytes: Vec::new(),
            lost: self.skip(),
        };
        self.drain(&mut out.bytes);
        out
    }

    /// Appends what of `payload` (starting at `seq`, at or before the next byte expected) is
    /// new to `bytes`, and moves past it.
    fn deliver(&mut self, seq: u32, payload: &[u8], bytes: &mut Vec<u8>) {
        let Some(next) = self.next else {
            return;
        };
        let behind = usize::try_from(-ahead(seq, next)).unwrap_or(0);
        if let Some(new) = payload.get(behind..).filter(|b| !b.is_empty()) {
            bytes.extend_from_slice(new);
            self.next = Some(next.wrapping_add(u32::try_from(new.len()).unwrap_or(u32::MAX)));
        }
    }

    /// Delivers every held segment the stream has reached.
    fn drain(&mut self, bytes: &mut Vec<u8>) {
        while let Some(next) = self.next
            && let Some(i) = self.held.iter().position(|(s, _)| ahead(*s, next) <= 0)
        {
            let (seq, data) = self.held.swap_remove(i);
            self.held_bytes = self.held_bytes.saturating_sub(data.len());
            self.deliver(seq, &data, bytes);
        }
    }

    /// Holds a segment that starts beyond the next byte expected.
    fn hold(&mut self, seq: u32, payload: &[u8]) {
        match self.held.iter_mut().find(|(s, _)| *s == seq) {
            // A retransmission of a held segment: keep the longer copy.
            Some((_, held)) if held.len() < payload.len() => {
                self.held_bytes = self.held_bytes.saturating_add(payload.len() - held.len());
                *held = payload.to_vec();
            }
            Some(_) => {}
            None => {
                self.held_bytes = self.held_bytes.saturating_add(payload.len());
                self.held.push((seq, payload.to_vec()));
            }
        }
    }

    /// Moves the next byte expected to the earliest held segment; returns the bytes skipped.
    fn skip(&mut self) -> usize {
        let Some(next) = self.next else {
            return 0;
        };
        let Some(gap) = self.held.iter().map(|(s, _)| ahead(*s, next)).min() else {
            return 0;
        };
        let gap = u32::try_from(gap).unwrap_or(0);
        self.next = Some(next.wrapping_add(gap));
        usize::try_from(gap).unwrap_or(0)
    }

    /// Whether bytes are held behind a gap.
    pub fn has_gap(&self) -> bool {
        !self.held.is_empty()
    }
}
