//! Raw datagram transports: a UDP socket bound where it is told, and test/inspection wrappers.

use std::io::ErrorKind;
use std::net::{SocketAddr, ToSocketAddrs, UdpSocket};

/// Largest datagram read.
pub const MAX_DATAGRAM: usize = 8192;

/// Sends and receives whole datagrams without blocking. `Send`, so that a peer (and its GGRS
/// session, built with `sync-send`) can be polled from any thread.
pub trait Transport: Send {
    /// Sends one datagram (best effort: UDP may lose it anyway).
    fn send(&mut self, bytes: &[u8], to: SocketAddr);
    /// The next datagram waiting, if any: `(length, sender)`.
    fn recv(&mut self, buf: &mut [u8]) -> Option<(usize, SocketAddr)>;
    /// The address datagrams are received on.
    fn local_addr(&self) -> SocketAddr;
    /// Whether datagrams go straight over UDP between the peers' addresses (a host behind a
    /// router is then reached only through a port forward); `false` for transports that find
    /// their own way (a WebRTC room).
    fn is_plain_udp(&self) -> bool {
        false
    }
}

/// A non-blocking UDP socket bound to exactly the address it was given (GGRS's own binds
/// `0.0.0.0`, which exposes the game on every interface).
#[derive(Debug)]
pub struct UdpTransport {
    socket: UdpSocket,
    local: SocketAddr,
    /// Sends the OS refused (e.g. no route); UDP is best effort, so they are only counted.
    pub send_errors: u64,
}

impl UdpTransport {
    /// Binds `addr` (port 0 picks a free port).
    ///
    /// # Errors
    /// The OS error, e.g. the port is in use or the address is not local.
    pub fn bind(addr: SocketAddr) -> std::io::Result<UdpTransport> {
        let socket = UdpSocket::bind(addr)?;
        socket.set_nonblocking(true)?;
        let local = socket.local_addr()?;
        Ok(UdpTransport {
            socket,
            local,
            send_errors: 0,
        })
    }
}

impl Transport for UdpTransport {
    fn is_plain_udp(&self) -> bool {
        true
    }

    fn send(&mut self, bytes: &[u8], to: SocketAddr) {
        if self.socket.send_to(bytes, to).is_err() {
            self.send_errors += 1;
        }
    }

    fn recv(&mut self, buf: &mut [u8]) -> Option<(usize, SocketAddr)> {
        loop {
            match self.socket.recv_from(buf) {
                Ok(got) => return Some(got),
                Err(e) if e.kind() == ErrorKind::WouldBlock => return None,
                // ICMP "port unreachable" surfaces as a reset on some systems: not a datagram.
                Err(e) if e.kind() == ErrorKind::ConnectionReset => {}
                Err(e) if e.kind() == ErrorKind::Interrupted => {}
                Err(_) => return None,
            }
        }
    }

    fn local_addr(&self) -> SocketAddr {
        self.local
    }
}

/// Asks the OS whether anything listens at a UDP address, for a joiner to give up at once on a
/// host that is not running there instead of waiting out its handshake. A socket of its own,
/// *connected* to the host (the OS reports an ICMP "port unreachable" only to a connected
/// socket), sends an empty datagram now and then; the refusal comes back as an error on it.
/// A listening host reads the empty datagram as garbage and drops it; routers across the
/// internet usually send no such answer, so this helps on a LAN and on one machine.
#[derive(Debug)]
pub struct PortProbe {
    socket: UdpSocket,
    /// When the empty datagram was last sent.
    sent: Option<std::time::Instant>,
}

/// How often a [`PortProbe`] asks again.
const PROBE_EVERY: std::time::Duration = std::time::Duration::from_secs(1);

impl PortProbe {
    /// A probe of `host`; `None` when no socket could be made for it (no probe, no harm).
    #[must_use]
    pub fn new(host: SocketAddr) -> Option<PortProbe> {
        let socket = UdpSocket::bind(default_bind_for(host)).ok()?;
        socket.connect(host).ok()?;
        socket.set_nonblocking(true).ok()?;
        Some(PortProbe { socket, sent: None })
    }

    /// Whether the OS has said nothing listens there (sends the next probe when due).
    pub fn refused(&mut self) -> bool {
        let mut buf = [0u8; 64];
        loop {
            match self.socket.recv(&mut buf) {
                Err(e) if e.kind() == ErrorKind::ConnectionRefused => return true,
                Err(e) if e.kind() == ErrorKind::Interrupted => {}
                // Whatever the host answers to an empty datagram is no refusal.
                Ok(_) => {}
                Err(_) => break,
            }
        }
        let now = std::time::Instant::now();
        if self
            .sent
            .is_none_or(|t| now.saturating_duration_since(t) >= PROBE_EVERY)
        {
            self.sent = Some(now);
            if let Err(e) = self.socket.send(&[]) {
                return e.kind() == ErrorKind::ConnectionRefused;
            }
        }
        false
    }
}

/// The port of `host:port`, checked: a host before it, and a number from 1 to 65535.
///
/// # Errors
/// A message saying what is wrong: no port at all (with an example), a port out of range, or
/// port 0.
pub fn port_of(addr: &str) -> Result<u16, String> {
    let no_port = || {
        format!(
            "`{addr}` has no port: write HOST:PORT, e.g. {}:7000",
            addr.trim_end_matches(':')
        )
    };
    let Some((host, port)) = addr.rsplit_once(':').filter(|(host, _)| !host.is_empty()) else {
        return Err(no_port());
    };
    if port.is_empty() || !port.bytes().all(|b| b.is_ascii_digit()) {
        return Err(no_port());
    }
    match port.parse::<u16>() {
        Ok(0) => Err(format!("`{addr}`: port 0 is not a port to reach")),
        Ok(port) => Ok(port),
        Err(_) => Err(format!(
            "`{addr}`: port {} is out of range (a port is 1 to 65535), e.g. {host}:7000",
            port.trim_start_matches('0')
        )),
    }
}

/// Resolves `host:port` to one socket address, preferring IPv4.
///
/// # Errors
/// A message saying the port is missing or out of range ([`port_of`]), or the address did not
/// resolve.
pub fn resolve(addr: &str) -> Result<SocketAddr, String> {
    port_of(addr)?;
    let all: Vec<SocketAddr> = addr
        .to_socket_addrs()
        .map_err(|e| format!("`{addr}` does not resolve: {e}"))?
        .collect();
    all.iter()
        .find(|a| a.is_ipv4())
        .or_else(|| all.first())
        .copied()
        .ok_or_else(|| format!("`{addr}` resolves to no address"))
}

/// The unspecified address of the same family as `peer`, port 0, or loopback when `peer` is
/// loopback: where a joiner binds by default.
#[must_use]
pub fn default_bind_for(peer: SocketAddr) -> SocketAddr {
    let ip: std::net::IpAddr = match (peer.is_ipv4(), peer.ip().is_loopback()) {
        (true, true) => std::net::Ipv4Addr::LOCALHOST.into(),
        (true, false) => std::net::Ipv4Addr::UNSPECIFIED.into(),
        (false, true) => std::net::Ipv6Addr::LOCALHOST.into(),
        (false, false) => std::net::Ipv6Addr::UNSPECIFIED.into(),
    };
    SocketAddr::new(ip, 0)
}

/// In-process endpoints for fast unit tests of what runs over a [`Transport`]: datagrams
/// are delivered in order and never lost, to whichever endpoint has the address sent to.
#[cfg(test)]
pub(crate) mod memory {
    use super::Transport;
    use std::net::SocketAddr;
    use std::sync::{Arc, Mutex};

    /// Datagrams in flight: `(to, from, bytes)`.
    type Wire = Arc<Mutex<Vec<(SocketAddr, SocketAddr, Vec<u8>)>>>;

    /// A network of endpoints.
    #[derive(Clone, Default)]
    pub(crate) struct MemoryNet {
        wire: Wire,
    }

    impl MemoryNet {
        /// An endpoint at `127.0.0.1:port`.
        pub(crate) fn endpoint(&self, port: u16) -> MemoryEndpoint {
            MemoryEndpoint {
                wire: self.wire.clone(),
                addr: SocketAddr::from(([127, 0, 0, 1], port)),
            }
        }

        /// Loses every datagram in flight to `to` (a burst of loss); how many there were.
        pub(crate) fn lose_all_to(&self, to: SocketAddr) -> usize {
            let mut wire = self.wire.lock().expect("memory net");
            let before = wire.len();
            wire.retain(|(t, ..)| *t != to);
            before - wire.len()
        }

        /// Loses the oldest datagram in flight to `to`; whether there was one.
        pub(crate) fn lose_first_to(&self, to: SocketAddr) -> bool {
            let mut wire = self.wire.lock().expect("memory net");
            let at = wire.iter().position(|(t, ..)| *t == to);
            at.map(|at| wire.remove(at)).is_some()
        }

        /// Datagrams sent so far and not yet read, to `to`.
        pub(crate) fn waiting_for(&self, to: SocketAddr) -> usize {
            self.wire
                .lock()
                .expect("memory net")
                .iter()
                .filter(|(t, ..)| *t == to)
                .count()
        }
    }

    /// One endpoint of a [`MemoryNet`].
    pub(crate) struct MemoryEndpoint {
        wire: Wire,
        addr: SocketAddr,
    }

    impl Transport for MemoryEndpoint {
        fn send(&mut self, bytes: &[u8], to: SocketAddr) {
            self.wire
                .lock()
                .expect("memory net")
                .push((to, self.addr, bytes.to_vec()));
        }

        fn recv(&mut self, buf: &mut [u8]) -> Option<(usize, SocketAddr)> {
            let mut wire = self.wire.lock().expect("memory net");
            let at = wire.iter().position(|(to, ..)| *to == self.addr)?;
            let (_, from, bytes) = wire.remove(at);
            let n = bytes.len().min(buf.len());
            buf[..n].copy_from_slice(&bytes[..n]);
            Some((n, from))
        }

        fn local_addr(&self) -> SocketAddr {
            self.addr
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_address_without_a_port_says_so() {
        for addr in [
            "192.168.1.20",
            "localhost",
            "myhost.lan:",
            "host:http",
            ":7000",
            "h:+7",
        ] {
            let err = resolve(addr).unwrap_err();
            assert!(err.contains("has no port"), "{addr}: {err}");
        }
        for (addr, says) in [
            (
                "127.0.0.1:99999",
                "port 99999 is out of range (a port is 1 to 65535), e.g. 127.0.0.1:7000",
            ),
            ("h:65536", "port 65536 is out of range"),
            ("h:000070000", "port 70000 is out of range"),
            ("h:0", "port 0 is not a port"),
            ("h:00", "port 0 is not a port"),
        ] {
            let err = resolve(addr).unwrap_err();
            assert!(err.contains(says), "{addr}: {err}");
            assert!(!err.contains("has no port"), "{addr}: {err}");
        }
        assert_eq!(port_of("h:65535"), Ok(65535));
        assert_eq!(port_of("[::1]:1"), Ok(1));
        assert_eq!(
            resolve("127.0.0.1:7000"),
            Ok("127.0.0.1:7000".parse().expect("addr"))
        );
        assert!(resolve("no-such-host.invalid:7000")
            .unwrap_err()
            .contains("does not resolve"));
    }
}
