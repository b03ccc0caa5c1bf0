//! The packets of a pcap or pcapng capture, each with its link type and time.

use std::io::Read;

use pcap_parser::pcapng::Block;
use pcap_parser::{Linktype, PcapBlockOwned, PcapError, create_reader};

/// Bytes the reader buffers: a block larger than this cannot be read (tcpdump's largest
/// snapshot length is 256 KiB).
const BUFFER: usize = 16 << 20;

/// When a packet was captured: nanoseconds since the Unix epoch.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, PartialOrd, Ord)]
pub struct Time(pub u64);

impl Time {
    /// Seconds and nanoseconds since `start`, as `12.345678` (microseconds shown).
    pub fn since(self, start: Time) -> String {
        let d = self.0.saturating_sub(start.0);
        format!("{}.{:06}", d / 1_000_000_000, d % 1_000_000_000 / 1_000)
    }

    /// Milliseconds from `self` to `later`, as `1.234ms`.
    pub fn millis_to(self, later: Time) -> String {
        let d = later.0.saturating_sub(self.0);
        format!("{}.{:03}ms", d / 1_000_000, d % 1_000_000 / 1_000)
    }
}

/// One captured packet.
#[derive(Debug)]
pub struct Packet<'a> {
    /// When it was captured.
    pub time: Time,
    /// What its first header is (Ethernet, Linux cooked, loopback, raw IP).
    pub link: Linktype,
    /// Its bytes as captured (perhaps cut at the snapshot length).
    pub data: &'a [u8],
}

/// An interface of a pcapng section: its link type and how its timestamps count.
#[derive(Debug, Clone, Copy)]
struct Interface {
    link: Linktype,
    /// Timestamp units per second.
    units: u64,
    /// Seconds added to every timestamp.
    offset: i64,
}

impl Interface {
    fn time(&self, high: u32, low: u32) -> Time {
        let ts = (u128::from(high) << 32) | u128::from(low);
        let units = u128::from(self.units.max(1));
        let nanos = ts / units * 1_000_000_000 + ts % units * 1_000_000_000 / units;
        let nanos = u64::try_from(nanos).unwrap_or(u64::MAX);
        let shift = self.offset.unsigned_abs().saturating_mul(1_000_000_000);
        Time(if self.offset < 0 {
            nanos.saturating_sub(shift)
        } else {
            nanos.saturating_add(shift)
        })
    }
}

/// A packet block's data without the padding after its captured length.
fn cut(data: &[u8], len: u32) -> &[u8] {
    usize::try_from(len)
        .ok()
        .and_then(|n| data.get(..n))
        .unwrap_or(data)
}

/// Calls `each` with every packet of the capture `input` (pcap in either byte order and
/// precision, or pcapng), in file order.
///
/// # Errors
///
/// A message naming what is wrong and where (the byte offset in the file): not a capture,
/// truncated, a malformed block, a packet of an undeclared interface. The packets before it
/// have been handed to `each`.
pub fn for_each_packet(
    input: impl Read + Send,
    mut each: impl FnMut(Packet<'_>),
) -> Result<(), String> {
    let mut reader = create_reader(BUFFER, input).map_err(|e| match e {
        PcapError::Eof => "the capture is empty".to_string(),
        PcapError::HeaderNotRecognized => {
            "not a pcap or pcapng capture (its first bytes are no capture's header)".to_string()
        }
        PcapError::Incomplete(_) | PcapError::UnexpectedEof => {
            "the capture ends inside its file header".to_string()
        }
        other => format!("reading the capture's header: {other}"),
    })?;
    // Legacy pcap: the link type and whether fractions are nanoseconds.
    let mut legacy: Option<(Linktype, bool)> = None;
    let mut interfaces: Vec<Interface> = Vec::new();
    let mut last = Time::default();
    loop {
        let at = reader.consumed();
        match reader.next() {
            Ok((len, block)) => {
                let packet = match block {
                    PcapBlockOwned::LegacyHeader(h) => {
                        legacy = Some((h.network, h.is_nanosecond_precision()));
                        None
                    }
                    PcapBlockOwned::Legacy(b) => {
                        let (link, nanos) = legacy.ok_or("a packet before the file header")?;
                        let fraction = if nanos {
                            u64::from(b.ts_usec)
                        } else {
                            u64::from(b.ts_usec).saturating_mul(1_000)
                        };
                        let time = u64::from(b.ts_sec)
                            .saturating_mul(1_000_000_000)
                            .saturating_add(fraction);
                        Some(Packet {
                            time: Time(time),
                            link,
                            data: b.data,
                        })
                    }
                    PcapBlockOwned::NG(Block::SectionHeader(_)) => {
                        // Interface ids count from zero again in every section.
                        interfaces.clear();
                        None
                    }
                    PcapBlockOwned::NG(Block::InterfaceDescription(idb)) => {
                        let units = idb.ts_resolution().ok_or_else(|| {
                            format!("the interface block at byte {at} has an invalid timestamp resolution")
                        })?;
                        interfaces.push(Interface {
                            link: idb.linktype,
                            units,
                            offset: idb.ts_offset(),
                        });
                        None
                    }
                    PcapBlockOwned::NG(Block::EnhancedPacket(epb)) => {
                        let interface = usize::try_from(epb.if_id)
                            .ok()
                            .and_then(|i| interfaces.get(i))
                            .ok_or_else(|| {
                                format!(
                                    "the packet block at byte {at} names interface {}, which no \
                                     interface block declared",
                                    epb.if_id
                                )
                            })?;
                        Some(Packet {
                            time: interface.time(epb.ts_high, epb.ts_low),
                            link: interface.link,
                            data: cut(epb.data, epb.caplen),
                        })
                    }
                    PcapBlockOwned::NG(Block::SimplePacket(spb)) => {
                        // No timestamp: the previous packet's time stands for it.
                        let interface = interfaces.first().ok_or_else(|| {
                            format!("the simple packet block at byte {at} comes before any interface block")
                        })?;
                        Some(Packet {
                            time: last,
                            link: interface.link,
                            data: cut(spb.data, spb.origlen),
                        })
                    }
                    // Name resolution, statistics, comments and the like.
                    PcapBlockOwned::NG(_) => None,
                };
                if let Some(p) = packet {
                    last = p.time;
                    each(p);
                }
                reader.consume(len);
            }
            Err(PcapError::Eof) => return Ok(()),
            Err(PcapError::Incomplete(_)) => {
                reader
                    .refill()
                    .map_err(|e| format!("reading the capture: {e}"))?;
            }
            Err(PcapError::UnexpectedEof) => {
                return Err(format!(
                    "the capture is truncated: it ends inside the block at byte {at}"
                ));
            }
            Err(PcapError::BufferTooSmall) => {
                return Err(format!(
                    "the block at byte {at} is larger than {} MiB",
                    BUFFER >> 20
                ));
            }
            Err(PcapError::NomError(_, kind) | PcapError::OwnedNomError(_, kind)) => {
                return Err(format!(
                    "malformed capture: the block at byte {at} does not parse ({})",
                    kind.description()
                ));
            }
            Err(e) => {
                let e = e.to_string();
                return Err(format!("reading the capture at byte {at}: {e}"));
            }
        }
    }
}
