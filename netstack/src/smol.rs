//! The user-space transport: smoltcp's TCP over Ethernet frames read from and written to a TAP
//! device, with every buffer made before the first byte moves.

use std::io;
use std::net::SocketAddrV4;
use std::os::unix::io::{AsRawFd, RawFd};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use smoltcp::iface::{Config, Interface, SocketHandle, SocketSet, SocketStorage};
use smoltcp::phy::{self, Device, DeviceCapabilities, Medium, TunTapInterface};
use smoltcp::socket::tcp;
use smoltcp::time::{Duration as StackDuration, Instant};
use smoltcp::wire::{EthernetAddress, HardwareAddress, IpAddress, IpCidr, Ipv4Cidr};

use crate::error::Error;
use crate::transport::Transport;

/// Bytes of an Ethernet header: a TAP device's frames are its IP MTU plus these.
const ETHERNET_HEADER: usize = 14;
/// The largest frame an IPv4 packet makes (its length field is 16 bits): the transmit buffer's
/// size, so that any frame smoltcp asks for fits.
const LARGEST_FRAME: usize = 65_535 + ETHERNET_HEADER;
/// The longest the transport sleeps on the device at once, so that the caller checks its
/// deadlines.
const MAX_WAIT: StackDuration = StackDuration::from_millis(100);
/// The MAC address smoltcp's interface uses: locally administered, unicast.
pub const MAC: EthernetAddress = EthernetAddress([0x02, 0x6b, 0x77, 0x00, 0x00, 0x02]);

/// A device smoltcp can drive, and whose descriptor the transport waits on.
pub trait Phy: Device + AsRawFd {
    /// The device's last I/O failure, taken (smoltcp's `Device` has no way to report one).
    fn take_error(&mut self) -> Option<io::Error>;
}

/// A TAP device, read and written a frame at a time through buffers made when it is opened:
/// nothing is allocated per frame, and a failed read or write is kept as a value for the
/// transport to report, not a panic.
#[derive(Debug)]
pub struct Tap {
    /// The device, attached.
    iface: tun_tap::Iface,
    /// The frame read last.
    rx: Vec<u8>,
    /// The frame being written.
    tx: Vec<u8>,
    /// The device's MTU, Ethernet header included: the largest frame smoltcp is told to send.
    mtu: usize,
    /// The last failure, until the transport takes it.
    error: Option<io::Error>,
}

impl Tap {
    /// Attaches to the TAP device `name` (created beforehand, or created now, which needs
    /// `CAP_NET_ADMIN`), non-blocking, with frames as large as its MTU.
    ///
    /// # Errors
    ///
    /// [`Error::Setup`] when it cannot be opened.
    pub fn open(name: &str) -> Result<Self, Error> {
        let iface = tun_tap::Iface::without_packet_info(name, tun_tap::Mode::Tap)
            .map_err(|e| Error::Setup(format!("cannot open the TAP device {name}: {e}")))?;
        iface.set_non_blocking()?;
        let mtu = ip_mtu(name).unwrap_or(1500).saturating_add(ETHERNET_HEADER);
        Ok(Self {
            iface,
            rx: vec![0; LARGEST_FRAME],
            tx: vec![0; LARGEST_FRAME],
            mtu: mtu.min(LARGEST_FRAME),
            error: None,
        })
    }
}

/// The IP MTU of the network device `name`, from sysfs.
fn ip_mtu(name: &str) -> Option<usize> {
    let text = std::fs::read_to_string(format!("/sys/class/net/{name}/mtu")).ok()?;
    text.trim().parse().ok()
}

impl AsRawFd for Tap {
    fn as_raw_fd(&self) -> RawFd {
        self.iface.as_raw_fd()
    }
}

impl Phy for Tap {
    fn take_error(&mut self) -> Option<io::Error> {
        self.error.take()
    }
}

/// A frame read from the TAP device.
#[derive(Debug)]
pub struct TapRx<'a> {
    /// The frame.
    frame: &'a [u8],
}

/// Room for a frame to write to the TAP device.
#[derive(Debug)]
pub struct TapTx<'a> {
    /// The device written to.
    iface: &'a tun_tap::Iface,
    /// The device's transmit buffer.
    buf: &'a mut [u8],
    /// Where a failed write is kept.
    error: &'a mut Option<io::Error>,
}

impl phy::RxToken for TapRx<'_> {
    fn consume<R, F: FnOnce(&[u8]) -> R>(self, f: F) -> R {
        f(self.frame)
    }
}

impl phy::TxToken for TapTx<'_> {
    fn consume<R, F: FnOnce(&mut [u8]) -> R>(self, len: usize, f: F) -> R {
        // The buffer holds the largest frame an IPv4 packet makes, so `len` always fits; if it
        // did not, smoltcp would get the whole buffer and nothing would be sent.
        let Some(frame) = self.buf.get_mut(..len) else {
            *self.error = Some(io::ErrorKind::InvalidInput.into());
            return f(self.buf);
        };
        let r = f(frame);
        match self.iface.send(frame) {
            // A full queue drops the frame, as a wire would: TCP sends it again.
            Err(e) if e.kind() != io::ErrorKind::WouldBlock => *self.error = Some(e),
            _ => {}
        }
        r
    }
}

impl Device for Tap {
    type RxToken<'a> = TapRx<'a>;
    type TxToken<'a> = TapTx<'a>;

    fn receive(&mut self, _timestamp: Instant) -> Option<(TapRx<'_>, TapTx<'_>)> {
        match self.iface.recv(&mut self.rx) {
            Ok(n) => {
                let frame = self.rx.get(..n)?;
                let tx = TapTx {
                    iface: &self.iface,
                    buf: &mut self.tx,
                    error: &mut self.error,
                };
                Some((TapRx { frame }, tx))
            }
            Err(e)
                if matches!(
                    e.kind(),
                    io::ErrorKind::WouldBlock | io::ErrorKind::Interrupted
                ) =>
            {
                None
            }
            Err(e) => {
                self.error = Some(e);
                None
            }
        }
    }

    fn transmit(&mut self, _timestamp: Instant) -> Option<TapTx<'_>> {
        Some(TapTx {
            iface: &self.iface,
            buf: &mut self.tx,
            error: &mut self.error,
        })
    }

    fn capabilities(&self) -> DeviceCapabilities {
        let mut caps = DeviceCapabilities::default();
        caps.medium = Medium::Ethernet;
        caps.max_transmission_unit = self.mtu;
        caps
    }
}

/// smoltcp's own TAP device, for comparison: it allocates a buffer for every frame it reads
/// and every frame it writes, and panics when a read or a write fails.
impl Phy for TunTapInterface {
    fn take_error(&mut self) -> Option<io::Error> {
        None
    }
}

/// Where smoltcp's interface sits, and how large its socket's buffers are.
#[derive(Debug, Clone, Copy)]
pub struct Setup {
    /// The interface's address and subnet.
    pub address: Ipv4Cidr,
    /// The broker.
    pub broker: SocketAddrV4,
    /// The connection's local port.
    pub local_port: u16,
    /// Bytes of the TCP socket's receive buffer (its window).
    pub rx_buffer: usize,
    /// Bytes of the TCP socket's send buffer.
    pub tx_buffer: usize,
    /// How long the connection may take to open.
    pub timeout: Duration,
}

/// smoltcp's interface over a device, with one TCP connection to the broker.
pub struct Smoltcp<'s, D> {
    /// The device the interface sends and receives frames on.
    device: D,
    /// smoltcp's interface: its addresses, its ARP cache.
    iface: Interface,
    /// The sockets, in storage made before the data path.
    sockets: SocketSet<'s>,
    /// The connection to the broker.
    handle: SocketHandle,
}

impl<'s, D: Phy> Smoltcp<'s, D> {
    /// Builds the interface over `device` (the MAC address [`MAC`]) and the socket set in
    /// `storage`, and opens the TCP connection: ARP for the broker, then the handshake.
    ///
    /// # Errors
    ///
    /// [`Error::Setup`] for an address the interface cannot take or a socket the set cannot
    /// hold; [`Error::Reset`] when the broker refuses the connection; [`Error::Timeout`].
    pub fn connect(
        mut device: D,
        setup: Setup,
        storage: &'s mut [SocketStorage<'s>],
    ) -> Result<Self, Error> {
        let mut config = Config::new(HardwareAddress::Ethernet(MAC));
        config.random_seed = seed();
        let mut iface = Interface::new(config, &mut device, Instant::now());
        let mut added = true;
        iface.update_ip_addrs(|addrs| added = addrs.push(IpCidr::Ipv4(setup.address)).is_ok());
        if !added {
            return Err(Error::Setup(
                "the interface has no room for its address".into(),
            ));
        }
        if storage.is_empty() {
            return Err(Error::Setup("no storage for the socket".into()));
        }
        let mut sockets = SocketSet::new(storage);
        let mut socket = tcp::Socket::new(
            tcp::SocketBuffer::new(vec![0; setup.rx_buffer]),
            tcp::SocketBuffer::new(vec![0; setup.tx_buffer]),
        );
        // Requests go out as soon as they are written; the session pipelines them itself.
        socket.set_nagle_enabled(false);
        let remote = (IpAddress::Ipv4(*setup.broker.ip()), setup.broker.port());
        socket
            .connect(iface.context(), remote, setup.local_port)
            .map_err(|e| Error::Setup(format!("cannot connect to {}: {e}", setup.broker)))?;
        let handle = sockets.add(socket);
        let mut stack = Self {
            device,
            iface,
            sockets,
            handle,
        };
        let deadline = std::time::Instant::now() + setup.timeout;
        loop {
            stack.poll()?;
            match stack.socket().state() {
                tcp::State::Established => return Ok(stack),
                tcp::State::Closed => return Err(Error::Reset),
                _ => {}
            }
            if std::time::Instant::now() > deadline {
                return Err(Error::Timeout {
                    what: "TCP connection",
                    secs: setup.timeout.as_secs(),
                });
            }
            stack.wait()?;
        }
    }

    /// The connection's socket.
    fn socket(&mut self) -> &mut tcp::Socket<'s> {
        self.sockets.get_mut::<tcp::Socket<'s>>(self.handle)
    }

    /// One round of the interface: frames in, segments out, timers.
    fn poll(&mut self) -> Result<(), Error> {
        self.iface
            .poll(Instant::now(), &mut self.device, &mut self.sockets);
        match self.device.take_error() {
            Some(e) => Err(Error::Io(e)),
            None => Ok(()),
        }
    }

    /// Waits for a frame on the device, or until smoltcp's next timer, or [`MAX_WAIT`].
    fn wait(&mut self) -> Result<(), Error> {
        let delay = self
            .iface
            .poll_delay(Instant::now(), &self.sockets)
            .map_or(MAX_WAIT, |d| d.min(MAX_WAIT));
        if delay == StackDuration::ZERO {
            return Ok(());
        }
        match phy::wait(self.device.as_raw_fd(), Some(delay)) {
            Err(e) if e.kind() != io::ErrorKind::Interrupted => Err(Error::Io(e)),
            _ => Ok(()),
        }
    }
}

/// A seed for smoltcp's initial sequence numbers and ports: the clock and the process id.
fn seed() -> u64 {
    let nanos = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos());
    (nanos as u64) ^ (u64::from(std::process::id()) << 32)
}

impl<D: Phy> Transport for Smoltcp<'_, D> {
    fn send(&mut self, bytes: &[u8]) -> Result<usize, Error> {
        let socket = self.socket();
        if !socket.may_send() {
            return Err(Error::Closed);
        }
        socket.send_slice(bytes).map_err(|_| Error::Closed)
    }

    fn recv(&mut self, buf: &mut [u8]) -> Result<usize, Error> {
        let socket = self.socket();
        if socket.can_recv() {
            return socket.recv_slice(buf).map_err(|_| Error::Closed);
        }
        match socket.state() {
            tcp::State::Closed | tcp::State::TimeWait => Err(Error::Reset),
            _ if !socket.may_recv() => Err(Error::Closed),
            _ => Ok(0),
        }
    }

    fn drive(&mut self, sending: bool) -> Result<(), Error> {
        self.poll()?;
        let socket = self.socket();
        if socket.can_recv() || (sending && socket.can_send()) {
            return Ok(());
        }
        self.wait()
    }

    fn close(&mut self, timeout: Duration) -> Result<(), Error> {
        self.socket().close();
        let deadline = std::time::Instant::now() + timeout;
        while std::time::Instant::now() < deadline {
            self.poll()?;
            if matches!(
                self.socket().state(),
                tcp::State::Closed | tcp::State::TimeWait
            ) {
                return Ok(());
            }
            self.wait()?;
        }
        self.socket().abort();
        self.poll()
    }
}
