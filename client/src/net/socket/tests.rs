//! The datagram gate on an in-memory network: which datagram goes where (control inbox,
//! GGRS, the held queue, a reply, a counter), from whom (a peer with a channel, a peer
//! without one, a stranger), in which state of the link; and what a sealed datagram must be
//! to reach GGRS (opened once, under the sender's own keys, within the match's limits, and
//! acknowledging no input frame never sent to it).

use super::*;
use crate::net::ggrs_message::{Body, ConnectionStatus, GgrsMessage, Input};
use crate::net::seal::{Initiator, Responder, SEALED_HEADER_LEN};
use crate::net::transport::memory::MemoryNet;
use crate::session::GgrsConfig;
use engine::Rules;
use engine::World;
use std::collections::BTreeMap;

/// The link under test listens here.
const LINK: u16 = 1;

/// A peer that holds a channel with the link (once [`Net::connect`]ed).
const PEER: u16 = 2;

/// An address the link knows nothing of.
const STRANGER: u16 = 3;

/// A peer the link knows (`add_peer`) but holds no channel with: a joiner's host before its
/// answer, in the handshake's terms.
const CLEAR_PEER: u16 = 4;

fn addr(port: u16) -> SocketAddr {
    SocketAddr::from(([127, 0, 0, 1], port))
}

/// A finished Noise handshake: (the link's end, the peer's end).
fn pair() -> (Channel, Channel) {
    let mut joiner = Initiator::new(b"socket tests", None).expect("initiator");
    let (answer, link_end) = Responder::read_hello(b"socket tests", None, joiner.message())
        .expect("hello opens")
        .answer(b"")
        .expect("answer");
    joiner.read_answer(&answer).expect("answer opens");
    (link_end, joiner.into_channel().expect("finished"))
}

/// The link at port 1 on an in-memory network, and the peers' ends of their channels.
struct Net {
    net: MemoryNet,
    link: SharedLink,
    keys: BTreeMap<u16, Channel>,
}

fn net() -> Net {
    let net = MemoryNet::default();
    Net {
        link: Link::new(net.endpoint(LINK)),
        net,
        keys: BTreeMap::new(),
    }
}

/// The peer connected, with no policy yet (the handshake is done, GGRS not yet started).
fn connected() -> Net {
    let mut n = net();
    n.connect(PEER);
    n
}

/// The peer connected and passing its GGRS messages as a one-slot player's.
fn running() -> Net {
    let n = connected();
    n.link
        .borrow_mut()
        .set_limits(limits(), vec![(addr(PEER), Sender::Player { slots: 1 })]);
    n
}

impl Net {
    /// A fresh channel between the link and `port` (replacing any before).
    fn connect(&mut self, port: u16) {
        let (link_end, peer_end) = pair();
        self.link.borrow_mut().add_channel(addr(port), link_end);
        self.keys.insert(port, peer_end);
    }

    fn send(&self, from: u16, datagram: &[u8]) {
        self.net.endpoint(from).send(datagram, addr(LINK));
    }

    fn pump(&self, accept_strangers: bool) -> Vec<(SocketAddr, Message)> {
        self.link.borrow_mut().pump(accept_strangers)
    }

    fn counters(&self) -> SocketCounters {
        self.link.borrow().counters()
    }

    fn held(&self) -> usize {
        self.link.borrow().early.len()
    }

    fn inbox(&self) -> Vec<(SocketAddr, Control)> {
        self.link.borrow_mut().take_control()
    }

    /// `payload` sealed under `port`'s keys, as that peer would send it.
    fn sealed(&mut self, port: u16, inner: Inner, payload: &[u8]) -> Vec<u8> {
        self.keys
            .get_mut(&port)
            .expect("a connected port")
            .seal(inner, payload)
            .expect("seal")
    }

    /// A GGRS message sealed by `port`.
    fn ggrs(&mut self, port: u16, body: Body) -> Vec<u8> {
        self.sealed(port, Inner::Ggrs, &ggrs_payload(body))
    }

    /// A control message sealed by `port`.
    fn sealed_control(&mut self, port: u16, msg: &Control) -> Vec<u8> {
        self.sealed(port, Inner::Control, &wire::encode_payload(msg))
    }

    /// The link sends `body` to `port` through GGRS's socket.
    fn send_ggrs(&self, port: u16, body: Body) {
        GameSocket::new(self.link.clone()).send_to(&message(body), &addr(port));
    }

    /// Everything sent to `port`, taken off the wire.
    fn sent_to(&self, port: u16) -> Vec<Vec<u8>> {
        let mut at = self.net.endpoint(port);
        let mut buf = vec![0; MAX_DATAGRAM];
        let mut out = Vec::new();
        while let Some((n, from)) = at.recv(&mut buf) {
            assert_eq!(from, addr(LINK));
            out.push(buf[..n].to_vec());
        }
        out
    }

    /// The clear control messages sent to `port` (panics on anything else).
    fn control_to(&self, port: u16) -> Vec<Control> {
        self.sent_to(port)
            .iter()
            .map(|d| clear_control(d).unwrap_or_else(|| panic!("not clear control: {d:?}")))
            .collect()
    }

    /// The one `Reject` reason sent to `port`.
    fn rejection_to(&self, port: u16) -> String {
        match self.control_to(port).as_slice() {
            [Control::Reject { reason }] => reason.clone(),
            other => panic!("expected one Reject, got {other:?}"),
        }
    }

    /// What `port` opens of what was sent to it (panics on anything that does not open).
    fn opened_by(&mut self, port: u16) -> Vec<(Inner, Vec<u8>)> {
        let sent = self.sent_to(port);
        let keys = self.keys.get_mut(&port).expect("a connected port");
        sent.iter()
            .map(|d| keys.open(d).expect("opens at the peer"))
            .collect()
    }
}

fn clear_control(datagram: &[u8]) -> Option<Control> {
    match wire::open(datagram) {
        Ok((Kind::Control, _, payload)) => wire::decode(payload).ok(),
        Err(_) => None,
    }
}

fn limits() -> Limits {
    Limits::for_match::<GgrsConfig<engine::World>>(2, 8)
}

fn info(block_hp: u8) -> PeerInfo {
    PeerInfo::local::<World>(&Rules {
        block_hp,
        ..Rules::default()
    })
}

fn hello_with(info: PeerInfo, role: Role) -> Control {
    Control::Hello {
        info,
        role,
        invite: false,
        noise: vec![0; 32],
    }
}

fn hello(role: Role) -> Control {
    hello_with(info(Rules::default().block_hp), role)
}

/// A clear control datagram, as the handshake sends it.
fn clear(msg: &Control) -> Vec<u8> {
    wire::encode(Kind::Control, 0, msg)
}

/// A clear datagram of any kind byte around any payload, with a correct check: intact as
/// far as the framing goes.
fn clear_frame(kind: u8, payload: &[u8]) -> Vec<u8> {
    let mut h = xxhash_rust::xxh3::Xxh3::new();
    h.update(&[kind]);
    h.update(&0u32.to_le_bytes());
    h.update(payload);
    let mut d = wire::MAGIC.to_vec();
    d.push(kind);
    d.extend_from_slice(&0u32.to_le_bytes());
    d.extend_from_slice(&(h.digest() as u32).to_le_bytes());
    d.extend_from_slice(payload);
    d
}

/// A `Hello` of protocol version 1 (only its first 8 bytes are read).
fn old_hello() -> Vec<u8> {
    let mut p = 0u32.to_le_bytes().to_vec();
    p.extend_from_slice(&1u32.to_le_bytes());
    p.extend_from_slice(&[0xff; 3]);
    clear_frame(1, &p)
}

/// A sealed GGRS payload of `body` as the socket sends it: the epoch (the first), then the
/// message.
fn ggrs_payload(body: Body) -> Vec<u8> {
    let mut payload = 1u32.to_le_bytes().to_vec();
    payload.extend_from_slice(&ggrs_message_bytes(body));
    payload
}

/// The GGRS message of `body` alone, as encoded.
fn ggrs_message_bytes(body: Body) -> Vec<u8> {
    wire::encode_payload(&GgrsMessage { magic: 7, body })
}

/// A real `ggrs::Message` of `body`, as GGRS would hand it to the socket.
fn message(body: Body) -> Message {
    wire::decode_own(&ggrs_message_bytes(body)).expect("a GGRS message")
}

/// One player's input for `frames` frames from `start`, acknowledging `ack`, as GGRS sends it;
/// `disconnected` declares both players disconnected.
fn input(start: i32, frames: usize, ack: i32, disconnected: bool) -> Body {
    let size = limits().input_size;
    let mut raw = Vec::new();
    for _ in 0..frames {
        raw.extend_from_slice(&(size as u16).to_le_bytes());
        raw.extend(std::iter::repeat_n(0u8, size));
    }
    Body::Input(Input {
        peer_connect_status: vec![
            ConnectionStatus {
                disconnected,
                last_frame: start - 1,
            };
            2
        ],
        disconnect_requested: false,
        start_frame: start,
        ack_frame: ack,
        bytes: crate::net::ggrs_message::literal_run(&raw),
    })
}

/// The mirror of what GGRS was handed.
fn mirror(msg: &Message) -> GgrsMessage {
    wire::decode_own(&wire::encode_payload(msg)).expect("a GGRS message")
}

/// Reads one counter.
type Counter = fn(&SocketCounters) -> u64;

/// Every refusal counter by name.
fn drop_counters() -> [(&'static str, Counter); 10] {
    [
        ("unknown_sender", |c| c.dropped_unknown_sender),
        ("damaged", |c| c.dropped_damaged),
        ("undecodable", |c| c.dropped_undecodable),
        ("wrong_session", |c| c.dropped_wrong_session),
        ("unauthenticated", |c| c.dropped_unauthenticated),
        ("replayed", |c| c.dropped_replayed),
        ("invalid", |c| c.dropped_invalid),
        ("disconnect_claim", |c| c.disconnect_claims),
        ("early", |c| c.dropped_early),
        ("other_epoch", |c| c.dropped_other_epoch),
    ]
}

mod hellos;
mod peers;
mod properties;
mod roaming;
mod routing;
mod sealed_ggrs;
mod sending;
