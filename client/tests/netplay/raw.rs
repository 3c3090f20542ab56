//! Hand-made peers for hostile tests: a bare UDP socket on 127.0.0.1 speaking our framing by
//! hand (and, to be a peer, the real Noise handshake through `client::net::seal`, sealing
//! GGRS's real message layout under its channel), and an on-path relay between a joiner and its
//! host that sees every datagram, may drop one, and injects datagrams of its own into either
//! direction. The relay holds no keys: all it can send is clear datagrams, copies of real
//! ones (replays, mutations) and sealed-looking ones with random ciphertext.

use client::net::ggrs_message::GgrsMessage;
use client::net::seal::{self, Channel, Initiator, Inner, InviteCode, Responder};
use client::net::wire::{self, Control, HostAnswer, Kind, PeerInfo, Role};
use engine::World;
use engine::{DetRng, Rules};
use std::net::{SocketAddr, UdpSocket};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

pub fn our_info() -> PeerInfo {
    PeerInfo::local::<World>(&Rules::default())
}

/// Bounds a hang: generous, never a threshold the outcome depends on.
pub fn soon() -> Instant {
    Instant::now() + Duration::from_secs(10)
}

/// A bare socket that speaks the protocol by hand.
pub struct RawPeer {
    pub socket: UdpSocket,
}

/// A `Hello` as this build says it, and the Noise initiator that made its first message.
pub fn hello_for(info: &PeerInfo, role: Role, invite: Option<&InviteCode>) -> (Control, Initiator) {
    let prologue = wire::hello_prologue(info, role, invite.is_some());
    let initiator = Initiator::new(&prologue, invite).expect("noise starts");
    let hello = Control::Hello {
        info: info.clone(),
        role,
        invite: invite.is_some(),
        noise: initiator.message().to_vec(),
    };
    (hello, initiator)
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

    pub fn send_raw(&self, bytes: &[u8], to: SocketAddr) {
        let _ = self.socket.send_to(bytes, to);
    }

    /// A control message in clear framing (the handshake's, or a forgery of the others).
    pub fn send_control(&self, msg: &Control, to: SocketAddr) {
        self.send_raw(&wire::encode(Kind::Control, 0, msg), to);
    }

    /// Says a real `Hello` (with a fresh Noise message) to `to`; the initiator to read the
    /// answer with.
    pub fn hello(
        &self,
        info: &PeerInfo,
        role: Role,
        invite: Option<&InviteCode>,
        to: SocketAddr,
    ) -> Initiator {
        let (hello, initiator) = hello_for(info, role, invite);
        self.send_control(&hello, to);
        initiator
    }

    /// The next datagram of any kind, until `deadline`.
    pub fn recv_datagram(&self, deadline: Instant) -> Option<(SocketAddr, Vec<u8>)> {
        let mut buf = [0u8; 8192];
        while Instant::now() < deadline {
            if let Ok((len, from)) = self.socket.recv_from(&mut buf) {
                return Some((from, buf[..len].to_vec()));
            }
        }
        None
    }

    /// The next clear control message, until `deadline` (sealed datagrams are skipped).
    pub fn recv_control(&self, deadline: Instant) -> Option<(SocketAddr, Control)> {
        while let Some((from, datagram)) = self.recv_datagram(deadline) {
            if let Some(msg) = clear_control(&datagram) {
                return Some((from, msg));
            }
        }
        None
    }

    /// A stranger with real keys: binds a socket, completes the handshake with the host at
    /// `to` as `role` (no invite code), and must be welcomed.
    pub fn welcomed(to: SocketAddr, role: Role) -> SealedPeer {
        match RawPeer::bind().handshake(&our_info(), role, None, to) {
            Ok((HostAnswer::Welcome { .. }, Some(peer))) => peer,
            Ok((answer, _)) => panic!("the stranger was not welcomed: {answer:?}"),
            Err(e) => panic!("the stranger was not welcomed: {e}"),
        }
    }

    /// Says `Hello` every 150 ms until the host at `to` answers under keys, then reads the
    /// answer: the host's authenticated answer and, if welcomed, the channel (proven to the
    /// host at once with a sealed `Joined`, as a real joiner does). A clear `Reject` comes
    /// back as `Err` with its words.
    pub fn handshake(
        self,
        info: &PeerInfo,
        role: Role,
        invite: Option<&InviteCode>,
        to: SocketAddr,
    ) -> Result<(HostAnswer, Option<SealedPeer>), String> {
        let (hello, mut initiator) = hello_for(info, role, invite);
        let deadline = soon();
        let mut next_hello = Instant::now();
        while Instant::now() < deadline {
            if Instant::now() >= next_hello {
                self.send_control(&hello, to);
                next_hello = Instant::now() + Duration::from_millis(150);
            }
            let Some((from, msg)) = self.recv_control(Instant::now() + Duration::from_millis(50))
            else {
                continue;
            };
            if from != to {
                continue;
            }
            match msg {
                Control::Reject { reason } => return Err(reason),
                Control::Answer { noise } => {
                    let payload = initiator.read_answer(&noise).expect("the host's answer");
                    let answer: HostAnswer = wire::decode(&payload).expect("decodes");
                    if !matches!(answer, HostAnswer::Welcome { .. }) {
                        return Ok((answer, None));
                    }
                    let channel = initiator.into_channel().expect("channel");
                    let mut peer = SealedPeer {
                        raw: self,
                        channel,
                        remote: to,
                    };
                    peer.send_control(&Control::Joined);
                    return Ok((answer, Some(peer)));
                }
                _ => {}
            }
        }
        panic!("no answer from {to} within the guard")
    }

    /// Plays a host: waits for a `Hello`, answers it under Noise with `answer`, and returns
    /// the joiner's address and the channel to it.
    pub fn answer_hello(self, answer: &HostAnswer) -> (SealedPeer, Control) {
        let Some((joiner, hello)) = self.recv_control(soon()) else {
            panic!("no Hello")
        };
        let Control::Hello {
            info,
            role,
            invite,
            noise,
        } = &hello
        else {
            panic!("not a Hello: {hello:?}")
        };
        let prologue = wire::hello_prologue(info, *role, *invite);
        let responder = Responder::read_hello(&prologue, None, noise).expect("reads the Hello");
        let (noise, channel) = responder
            .answer(&wire::encode_payload(answer))
            .expect("answers");
        self.send_control(&Control::Answer { noise }, joiner);
        (
            SealedPeer {
                raw: self,
                channel,
                remote: joiner,
            },
            hello,
        )
    }
}

/// A raw peer holding a real channel with one remote peer: everything it sends is sealed.
pub struct SealedPeer {
    pub raw: RawPeer,
    pub channel: Channel,
    pub remote: SocketAddr,
}

impl SealedPeer {
    pub fn send_ggrs(&mut self, msg: &GgrsMessage) {
        self.send_ggrs_payload(&wire::encode_payload(msg));
    }

    /// Raw payload bytes sealed as a GGRS message of the first epoch (they need not decode).
    pub fn send_ggrs_payload(&mut self, payload: &[u8]) {
        let mut tagged = 1u32.to_le_bytes().to_vec();
        tagged.extend_from_slice(payload);
        let bytes = self.channel.seal(Inner::Ggrs, &tagged).expect("seals");
        self.raw.send_raw(&bytes, self.remote);
    }

    pub fn send_control(&mut self, msg: &Control) {
        let bytes = self
            .channel
            .seal(Inner::Control, &wire::encode_payload(msg))
            .expect("seals");
        self.raw.send_raw(&bytes, self.remote);
    }

    /// The next GGRS message from the remote peer that opens, until `deadline`.
    pub fn recv_ggrs(&mut self, deadline: Instant) -> Option<GgrsMessage> {
        while let Some((from, datagram)) = self.raw.recv_datagram(deadline) {
            if from != self.remote {
                continue;
            }
            if let Ok((Inner::Ggrs, payload)) = self.channel.open(&datagram) {
                // After the epoch it was sent in.
                if let Ok(msg) = wire::decode::<GgrsMessage>(payload.get(4..).unwrap_or(&[])) {
                    return Some(msg);
                }
            }
        }
        None
    }
}

pub fn clear_control(datagram: &[u8]) -> Option<Control> {
    let (Kind::Control, _, payload) = wire::open(datagram).ok()?;
    wire::decode(payload).ok()
}

/// Frames raw payload bytes (which need not be a valid message) the way `wire` documents it,
/// with any kind byte: 1 is a clear control datagram, 2 the clear GGRS kind of protocol 2.
pub fn frame(kind: u8, session: u32, payload: &[u8]) -> Vec<u8> {
    let mut check = vec![kind];
    check.extend_from_slice(&session.to_le_bytes());
    check.extend_from_slice(payload);
    let mut out = Vec::with_capacity(wire::HEADER_LEN + payload.len());
    out.extend_from_slice(&wire::MAGIC);
    out.push(kind);
    out.extend_from_slice(&session.to_le_bytes());
    out.extend_from_slice(&(xxhash_rust::xxh3::xxh3_64(&check) as u32).to_le_bytes());
    out.extend_from_slice(payload);
    out
}

/// A GGRS message in the clear framing of protocol 2 (kind 2): what an attacker sent before
/// everything was sealed, and what GGRS took then.
pub fn clear_ggrs(session: u32, msg: &GgrsMessage) -> Vec<u8> {
    frame(2, session, &wire::encode_payload(msg))
}

/// A datagram that looks sealed: the header (channel id, counter) of a real one with the
/// counter moved `ahead`, and random ciphertext of the same length. Nobody without the keys
/// can do better.
pub fn sealed_lookalike(real: &[u8], ahead: u64, rng: &mut DetRng) -> Vec<u8> {
    let mut out = real[..seal::SEALED_HEADER_LEN].to_vec();
    let counter = u64::from_le_bytes(out[7..15].try_into().expect("8 bytes"));
    out[7..15].copy_from_slice(&counter.wrapping_add(ahead).to_le_bytes());
    out.extend((seal::SEALED_HEADER_LEN..real.len()).map(|_| rng.next_u32() as u8));
    out
}

/// A real sealed datagram whose header says another counter (`ahead` of its own): the same
/// ciphertext under another nonce, so it does not authenticate.
pub fn recountered(real: &[u8], ahead: u64) -> Vec<u8> {
    let mut out = real.to_vec();
    let counter = u64::from_le_bytes(out[7..15].try_into().expect("8 bytes"));
    out[7..15].copy_from_slice(&counter.wrapping_add(ahead).to_le_bytes());
    out
}

/// What the relay has seen of the match so far: only what travels in clear.
#[derive(Debug, Clone, Default)]
pub struct Seen {
    /// The channel id of the sealed datagrams (the session id; `None` before the first).
    pub channel: Option<u32>,
    /// Sealed datagrams seen from each side, before this one.
    pub from_joiner: u64,
    pub from_host: u64,
    /// A sample of earlier real sealed datagrams from each side, to replay.
    pub joiner_sample: Vec<Vec<u8>>,
    pub host_sample: Vec<Vec<u8>>,
}

/// Where an injected datagram goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum To {
    /// To the host, as if from the joiner.
    Host,
    /// To the joiner, as if from the host.
    Joiner,
}

/// What the relay does with one datagram it read: forward it or not, and what to inject.
pub struct Verdict {
    pub forward: bool,
    pub inject: Vec<(To, Vec<u8>)>,
}

/// Decides, for each datagram read (from the host if the flag says so), what the relay does.
pub type Injector = Box<dyn FnMut(&Seen, bool, &[u8]) -> Verdict + Send>;

/// An on-path relay: the joiner talks to it as if it were the host.
pub struct Relay {
    pub addr: SocketAddr,
    stop: Arc<AtomicBool>,
    thread: Option<JoinHandle<(u64, u64)>>,
}

impl Relay {
    /// Relays between whoever sends to it and `host`, asking `inject` about every datagram
    /// before forwarding it.
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
            let (mut injected, mut dropped) = (0, 0);
            while !stop2.load(Ordering::Relaxed) {
                let Ok((len, from)) = socket.recv_from(&mut buf) else {
                    continue;
                };
                let datagram = &buf[..len];
                let from_host = from == host;
                if !from_host {
                    joiner = Some(from);
                }
                let snapshot = seen.lock().expect("seen").clone();
                let verdict = inject(&snapshot, from_host, datagram);
                let to = if from_host { joiner } else { Some(host) };
                if let (true, Some(to)) = (verdict.forward, to) {
                    let _ = socket.send_to(datagram, to);
                } else {
                    dropped += 1;
                }
                observe(&mut seen.lock().expect("seen"), datagram, from_host);
                for (dir, bytes) in verdict.inject {
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
            (injected, dropped)
        });
        Relay {
            addr,
            stop,
            thread: Some(thread),
        }
    }

    /// Stops relaying; returns how many datagrams were injected and dropped.
    pub fn stop(mut self) -> (u64, u64) {
        self.stop.store(true, Ordering::Relaxed);
        self.thread
            .take()
            .expect("running")
            .join()
            .expect("relay thread")
    }
}

fn observe(seen: &mut Seen, datagram: &[u8], from_host: bool) {
    let Some(id) = seal::sealed_id(datagram) else {
        return;
    };
    seen.channel = Some(id);
    let (count, sample) = if from_host {
        (&mut seen.from_host, &mut seen.host_sample)
    } else {
        (&mut seen.from_joiner, &mut seen.joiner_sample)
    };
    *count += 1;
    if sample.len() < 64 {
        sample.push(datagram.to_vec());
    }
}
