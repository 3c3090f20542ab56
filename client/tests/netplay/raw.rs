//! Hand-made peers for hostile tests: a bare UDP socket on 127.0.0.1 speaking our framing and
//! GGRS's real message layout, and an on-path relay between a joiner and its host that can
//! inject crafted datagrams into either direction.

use client::ggrs_message::{Body, GgrsMessage};
use client::wire::{self, Control, Kind, PeerInfo, Role};
use std::net::{SocketAddr, UdpSocket};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// A bare socket that speaks the protocol by hand.
pub struct RawPeer {
    pub socket: UdpSocket,
}

impl RawPeer {
    pub fn bind() -> RawPeer {
        let socket = UdpSocket::bind("127.0.0.1:0").expect("bind raw peer");
        socket
            .set_read_timeout(Some(Duration::from_millis(20)))
            .expect("timeout");
        RawPeer { socket }
    }

    pub fn addr(&self) -> SocketAddr {
        self.socket.local_addr().expect("addr")
    }

    pub fn send_control(&self, msg: &Control, to: SocketAddr) {
        let bytes = wire::encode(Kind::Control, 0, msg);
        self.socket.send_to(&bytes, to).expect("send");
    }

    pub fn hello(&self, info: &PeerInfo, to: SocketAddr) {
        self.send_control(
            &Control::Hello {
                info: info.clone(),
                role: Role::Player,
            },
            to,
        );
    }

    pub fn send_ggrs(&self, session: u32, msg: &GgrsMessage, to: SocketAddr) {
        self.socket
            .send_to(&ggrs_datagram(session, msg), to)
            .expect("send");
    }

    /// The next datagram that opens as ours, until `deadline` (a bound on a hang, not a
    /// threshold the test depends on).
    pub fn recv(&self, deadline: Instant) -> Option<(SocketAddr, Kind, u32, Vec<u8>)> {
        let mut buf = [0u8; 8192];
        while Instant::now() < deadline {
            if let Ok((len, from)) = self.socket.recv_from(&mut buf) {
                if let Ok((kind, session, payload)) = wire::open(&buf[..len]) {
                    return Some((from, kind, session, payload.to_vec()));
                }
            }
        }
        None
    }

    /// The next control message, until `deadline`.
    pub fn recv_control(&self, deadline: Instant) -> Option<(SocketAddr, Control)> {
        while let Some((from, kind, _, payload)) = self.recv(deadline) {
            if kind == Kind::Control {
                if let Ok(msg) = wire::decode::<Control>(&payload) {
                    return Some((from, msg));
                }
            }
        }
        None
    }
}

/// A GGRS message in our framing, as a peer of `session` sends it.
pub fn ggrs_datagram(session: u32, msg: &GgrsMessage) -> Vec<u8> {
    let payload = wire::encode_payload(msg);
    frame(Kind::Ggrs, session, &payload)
}

/// Frames raw payload bytes (which need not be a valid message).
pub fn frame(kind: Kind, session: u32, payload: &[u8]) -> Vec<u8> {
    // `wire::encode` frames a serializable value; a `Vec<u8>` would gain a length prefix, so
    // frame by hand the way `wire` documents it.
    let mut h = xxhash_check(kind as u8, session, payload);
    let mut out = Vec::with_capacity(wire::HEADER_LEN + payload.len());
    out.extend_from_slice(&wire::MAGIC);
    out.push(kind as u8);
    out.extend_from_slice(&session.to_le_bytes());
    out.append(&mut h);
    out.extend_from_slice(payload);
    out
}

fn xxhash_check(kind: u8, session: u32, payload: &[u8]) -> Vec<u8> {
    let mut bytes = vec![kind];
    bytes.extend_from_slice(&session.to_le_bytes());
    bytes.extend_from_slice(payload);
    (xxhash_rust::xxh3::xxh3_64(&bytes) as u32)
        .to_le_bytes()
        .to_vec()
}

/// What the relay has seen of the match so far.
#[derive(Debug, Clone, Default)]
pub struct Seen {
    /// The session id (read from the host's `Welcome`).
    pub session: u32,
    /// Each side's GGRS `magic` (GGRS ignores messages with another once synchronized).
    pub joiner_magic: u16,
    pub host_magic: u16,
    /// The latest `Input` start frame each side sent.
    pub joiner_start: i32,
    pub host_start: i32,
    /// `Input` messages forwarded from the joiner to the host.
    pub joiner_inputs: u64,
}

/// Where an injected datagram goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum To {
    /// To the host, as if from the joiner.
    Host,
    /// To the joiner, as if from the host.
    Joiner,
}

pub type Injector = Box<dyn FnMut(&Seen) -> Vec<(To, Vec<u8>)> + Send>;

/// An on-path relay: the joiner talks to it as if it were the host.
pub struct Relay {
    pub addr: SocketAddr,
    stop: Arc<AtomicBool>,
    thread: Option<JoinHandle<u64>>,
}

impl Relay {
    /// Relays between whoever sends to it and `host`, calling `inject` after every datagram
    /// forwarded; what it returns is sent at once.
    pub fn start(host: SocketAddr, mut inject: Injector) -> Relay {
        let socket = UdpSocket::bind("127.0.0.1:0").expect("bind relay");
        socket
            .set_read_timeout(Some(Duration::from_millis(5)))
            .expect("timeout");
        let addr = socket.local_addr().expect("addr");
        let stop = Arc::new(AtomicBool::new(false));
        let seen = Arc::new(Mutex::new(Seen::default()));
        let stop2 = stop.clone();
        let thread = std::thread::spawn(move || {
            let mut joiner: Option<SocketAddr> = None;
            let mut buf = [0u8; 8192];
            let mut injected = 0;
            while !stop2.load(Ordering::Relaxed) {
                let Ok((len, from)) = socket.recv_from(&mut buf) else {
                    continue;
                };
                let datagram = &buf[..len];
                let from_host = from == host;
                if !from_host {
                    joiner = Some(from);
                }
                let to = if from_host { joiner } else { Some(host) };
                if let Some(to) = to {
                    let _ = socket.send_to(datagram, to);
                }
                let snapshot = {
                    let mut s = seen.lock().expect("seen");
                    observe(&mut s, datagram, from_host);
                    s.clone()
                };
                for (dir, bytes) in inject(&snapshot) {
                    let target = match dir {
                        To::Host => Some(host),
                        To::Joiner => joiner,
                    };
                    if let Some(t) = target {
                        let _ = socket.send_to(&bytes, t);
                        injected += 1;
                    }
                }
            }
            injected
        });
        Relay {
            addr,
            stop,
            thread: Some(thread),
        }
    }

    /// Stops relaying; returns how many datagrams were injected.
    pub fn stop(mut self) -> u64 {
        self.stop.store(true, Ordering::Relaxed);
        self.thread
            .take()
            .expect("running")
            .join()
            .expect("relay thread")
    }
}

fn observe(seen: &mut Seen, datagram: &[u8], from_host: bool) {
    let Ok((kind, _, payload)) = wire::open(datagram) else {
        return;
    };
    match kind {
        Kind::Control => {
            if let Ok(Control::Welcome { session, .. }) = wire::decode::<Control>(payload) {
                seen.session = session;
            }
        }
        Kind::Ggrs => {
            let Ok(msg) = wire::decode::<GgrsMessage>(payload) else {
                return;
            };
            if from_host {
                seen.host_magic = msg.magic;
            } else {
                seen.joiner_magic = msg.magic;
            }
            if let Body::Input(input) = msg.body {
                if from_host {
                    seen.host_start = input.start_frame;
                } else {
                    seen.joiner_start = input.start_frame;
                    seen.joiner_inputs += 1;
                }
            }
        }
    }
}
