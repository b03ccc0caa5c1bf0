//! Writing a pcapng capture of relayed traffic: each connection's bytes as the TCP segments of
//! a connection between its two addresses, opened and closed by handshakes, so that `kwire
//! capture` and Wireshark read it as they read a real capture.

use std::fs::File;
use std::io::{self, BufWriter, Write};
use std::net::{IpAddr, SocketAddr};
use std::path::Path;

use etherparse::PacketBuilder;
use pcap_parser::pcapng::{EnhancedPacketBlock, InterfaceDescriptionBlock, SectionHeaderBlock};
use pcap_parser::{Linktype, ToVec};

use super::source::Time;

/// Payload bytes per synthetic segment: an IPv4 packet holds at most 65535 bytes.
const SEGMENT: usize = 60_000;

/// A pcapng file of Ethernet packets with nanosecond timestamps.
#[derive(Debug)]
pub struct PcapWriter {
    out: BufWriter<File>,
}

fn invalid(e: impl std::fmt::Display) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidData, e.to_string())
}

impl PcapWriter {
    /// Creates `path` and writes the section and interface headers.
    ///
    /// # Errors
    ///
    /// The file cannot be created or written.
    pub fn create(path: &Path) -> io::Result<Self> {
        let mut out = BufWriter::new(File::create(path)?);
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
        out.write_all(&shb.to_vec().map_err(invalid)?)?;
        let mut idb = InterfaceDescriptionBlock {
            block_type: 0,
            block_len1: 0,
            linktype: Linktype::ETHERNET,
            reserved: 0,
            snaplen: 0,
            options: Vec::new(),
            block_len2: 0,
            if_tsresol: 9,
            if_tsoffset: 0,
        };
        out.write_all(&idb.to_vec().map_err(invalid)?)?;
        out.flush()?;
        Ok(Self { out })
    }

    fn packet(&mut self, time: Time, data: &[u8]) -> io::Result<()> {
        let len = u32::try_from(data.len()).map_err(invalid)?;
        let mut epb = EnhancedPacketBlock {
            block_type: 0,
            block_len1: 0,
            if_id: 0,
            ts_high: u32::try_from(time.0 >> 32).unwrap_or(u32::MAX),
            ts_low: u32::try_from(time.0 & 0xffff_ffff).unwrap_or(0),
            caplen: len,
            origlen: len,
            data,
            options: Vec::new(),
            block_len2: 0,
        };
        self.out.write_all(&epb.to_vec().map_err(invalid)?)?;
        // Flushed at once: a tap stopped by a signal leaves a readable file.
        self.out.flush()
    }
}

/// One connection as segments: its two addresses and next sequence numbers.
#[derive(Debug)]
pub struct Flow {
    client: SocketAddr,
    server: SocketAddr,
    seq: (u32, u32),
}

/// Both addresses in one family: IPv4 ones mapped into IPv6 when the other is IPv6.
fn same_family(a: SocketAddr, b: SocketAddr) -> (SocketAddr, SocketAddr) {
    let v6 = |s: SocketAddr| match s.ip() {
        IpAddr::V4(ip) => SocketAddr::new(IpAddr::V6(ip.to_ipv6_mapped()), s.port()),
        IpAddr::V6(_) => s,
    };
    if a.is_ipv4() == b.is_ipv4() {
        (a, b)
    } else {
        (v6(a), v6(b))
    }
}

/// TCP flags of a synthetic segment.
#[derive(Debug, Clone, Copy, Default)]
struct Flags {
    syn: bool,
    ack: bool,
    fin: bool,
}

impl Flow {
    /// A connection from `client` to `server`, opened (its handshake written) at `time`.
    ///
    /// # Errors
    ///
    /// Writing failed.
    pub fn open(
        w: &mut PcapWriter,
        time: Time,
        client: SocketAddr,
        server: SocketAddr,
    ) -> io::Result<Self> {
        let (client, server) = same_family(client, server);
        let mut flow = Self {
            client,
            server,
            seq: (1_000, 2_000),
        };
        let syn = Flags {
            syn: true,
            ..Flags::default()
        };
        flow.segment(w, time, true, syn, &[])?;
        flow.segment(w, time, false, Flags { ack: true, ..syn }, &[])?;
        flow.seq = (flow.seq.0.wrapping_add(1), flow.seq.1.wrapping_add(1));
        let ack = Flags {
            ack: true,
            ..Flags::default()
        };
        flow.segment(w, time, true, ack, &[])?;
        Ok(flow)
    }

    /// Bytes sent one way.
    ///
    /// # Errors
    ///
    /// Writing failed.
    pub fn data(
        &mut self,
        w: &mut PcapWriter,
        time: Time,
        from_client: bool,
        bytes: &[u8],
    ) -> io::Result<()> {
        let ack = Flags {
            ack: true,
            ..Flags::default()
        };
        for chunk in bytes.chunks(SEGMENT) {
            self.segment(w, time, from_client, ack, chunk)?;
        }
        Ok(())
    }

    /// The connection closed, both ways.
    ///
    /// # Errors
    ///
    /// Writing failed.
    pub fn close(&mut self, w: &mut PcapWriter, time: Time) -> io::Result<()> {
        let fin = Flags {
            ack: true,
            fin: true,
            ..Flags::default()
        };
        self.segment(w, time, true, fin, &[])?;
        self.segment(w, time, false, fin, &[])
    }

    fn segment(
        &mut self,
        w: &mut PcapWriter,
        time: Time,
        from_client: bool,
        flags: Flags,
        payload: &[u8],
    ) -> io::Result<()> {
        let (src, dst) = if from_client {
            (self.client, self.server)
        } else {
            (self.server, self.client)
        };
        let (seq, peer) = if from_client {
            (&mut self.seq.0, self.seq.1)
        } else {
            (&mut self.seq.1, self.seq.0)
        };
        let link = PacketBuilder::ethernet2([2, 0, 0, 0, 0, 1], [2, 0, 0, 0, 0, 2]);
        let ip = match (src.ip(), dst.ip()) {
            (IpAddr::V4(s), IpAddr::V4(d)) => link.ipv4(s.octets(), d.octets(), 64),
            (IpAddr::V6(s), IpAddr::V6(d)) => link.ipv6(s.octets(), d.octets(), 64),
            _ => return Err(invalid("addresses of two families")),
        };
        let mut tcp = ip.tcp(src.port(), dst.port(), *seq, 65_535);
        if flags.syn {
            tcp = tcp.syn();
        }
        if flags.ack {
            tcp = tcp.ack(peer);
        }
        if flags.fin {
            tcp = tcp.fin();
        }
        let mut packet = Vec::with_capacity(tcp.size(payload.len()));
        tcp.write(&mut packet, payload).map_err(invalid)?;
        *seq = seq.wrapping_add(u32::try_from(payload.len()).map_err(invalid)?);
        w.packet(time, &packet)
    }
}
