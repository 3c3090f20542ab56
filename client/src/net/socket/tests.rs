//! The datagram gate on an in-memory network: which datagram goes where (control inbox,
//! GGRS, the held queue, a reply, a counter), from whom (a peer with a channel, a peer
//! without one, a stranger), in which state of the link; and what a sealed datagram must be
//! to reach GGRS (opened once, under the sender's own keys, within the match's limits, and
//! acknowledging no input frame never sent to it).

use super::*;
use crate::ggrs_message::{Body, ConnectionStatus, GgrsMessage, Input};
use crate::net::seal::{Initiator, Responder, SEALED_HEADER_LEN};
use crate::transport::memory::MemoryNet;
use crate::GgrsConfig;
use engine::Rules;
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
    Limits::for_match::<GgrsConfig>(2, 8)
}

fn info(block_hp: u8) -> PeerInfo {
    PeerInfo::local(&Rules {
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

fn ggrs_payload(body: Body) -> Vec<u8> {
    wire::encode_payload(&GgrsMessage { magic: 7, body })
}

/// A real `ggrs::Message` of `body`, as GGRS would hand it to the socket.
fn message(body: Body) -> Message {
    wire::decode_own(&ggrs_payload(body)).expect("a GGRS message")
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
        bytes: crate::ggrs_message::literal_run(&raw),
    })
}

/// The mirror of what GGRS was handed.
fn mirror(msg: &Message) -> GgrsMessage {
    wire::decode_own(&wire::encode_payload(msg)).expect("a GGRS message")
}

/// Reads one counter.
type Counter = fn(&SocketCounters) -> u64;

/// Every refusal counter by name.
fn drop_counters() -> [(&'static str, Counter); 9] {
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
    ]
}

#[test]
fn every_refusal_counts_once_in_dropped_and_traffic_and_handshake_tallies_do_not() {
    let c = SocketCounters {
        bytes_sent: 1 << 20,
        bytes_received: 1 << 21,
        datagrams_sent: 1 << 22,
        datagrams_received: 1 << 23,
        dropped_unknown_sender: 1,
        dropped_damaged: 2,
        dropped_undecodable: 4,
        dropped_wrong_session: 8,
        dropped_unauthenticated: 16,
        dropped_replayed: 32,
        dropped_invalid: 64,
        disconnect_claims: 128,
        dropped_early: 256,
        late_hellos_refused: 1 << 24,
        hellos_refused: 1 << 25,
        hellos_rate_limited: 1 << 26,
    };
    assert_eq!(c.dropped(), 511);
    // Each counter the names above list is one bit of it.
    let bits: u64 = drop_counters().iter().map(|(_, get)| get(&c)).sum();
    assert_eq!(bits, 511);
}

#[test]
fn peers_are_listed_once_and_the_link_shows_its_state() {
    let mut n = net();
    n.link.borrow_mut().add_peer(addr(PEER));
    n.link.borrow_mut().add_peer(addr(STRANGER));
    n.link.borrow_mut().add_peer(addr(PEER));
    n.connect(CLEAR_PEER);
    n.connect(PEER);
    assert_eq!(
        n.link.borrow().peers(),
        &[addr(PEER), addr(STRANGER), addr(CLEAR_PEER)]
    );
    assert_eq!(n.link.borrow().local_addr(), addr(LINK));
    assert_eq!(n.link.borrow().channel_id(addr(STRANGER)), None);
    assert_eq!(
        n.link.borrow().channel_id(addr(PEER)),
        Some(n.keys[&PEER].id())
    );
    let shown = format!("{:?}", n.link.borrow());
    assert!(
        shown.contains("127.0.0.1:1") && shown.contains("127.0.0.1:3"),
        "{shown}"
    );
}

#[test]
fn a_peer_with_a_channel_is_sent_sealed_datagrams_and_one_without_clear_control_only() {
    let mut n = net();
    let finish = Control::Finish { confirmed: 5 };
    let clear_len = clear(&finish).len() as u64;
    n.link.borrow_mut().send_control(&finish, addr(CLEAR_PEER));
    assert_eq!(n.control_to(CLEAR_PEER), vec![finish.clone()]);
    // GGRS has nothing to say to a peer without keys: nothing is sent.
    n.send_ggrs(CLEAR_PEER, Body::KeepAlive);
    assert!(n.sent_to(CLEAR_PEER).is_empty());
    let c = n.counters();
    assert_eq!((c.datagrams_sent, c.bytes_sent), (1, clear_len));

    n.connect(PEER);
    n.link.borrow_mut().send_control(&finish, addr(PEER));
    n.send_ggrs(PEER, Body::KeepAlive);
    let sent = n.sent_to(PEER);
    assert!(sent.iter().all(|d| clear_control(d).is_none()));
    let sent_bytes: u64 = sent.iter().map(|d| d.len() as u64).sum();
    let keys = n.keys.get_mut(&PEER).expect("connected");
    let opened: Vec<_> = sent.iter().map(|d| keys.open(d).expect("opens")).collect();
    assert_eq!(
        opened,
        vec![
            (Inner::Control, wire::encode_payload(&finish)),
            (Inner::Ggrs, ggrs_payload(Body::KeepAlive)),
        ]
    );
    // A Hello is the handshake's own, clear even to a peer with keys.
    n.link
        .borrow_mut()
        .send_control(&hello(Role::Player), addr(PEER));
    assert_eq!(n.control_to(PEER), vec![hello(Role::Player)]);
    let c = n.counters();
    assert_eq!(c.datagrams_sent, 4);
    assert_eq!(
        c.bytes_sent,
        clear_len + sent_bytes + clear(&hello(Role::Player)).len() as u64
    );
}

/// Where one datagram went.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Fate {
    /// Handed to GGRS.
    Ggrs,
    /// Into the control inbox.
    Inbox,
    /// Held until the limits are set.
    Held,
    /// Refused, under this counter.
    Dropped(&'static str),
}

/// Sends `datagram` from `from`, pumps once, and says where it went, checking that it went
/// exactly one way and that only what was taken is counted as received.
fn fate(n: &Net, from: u16, datagram: &[u8]) -> Fate {
    let before = n.counters();
    let held = n.held();
    n.send(from, datagram);
    let ggrs = n.pump(false);
    let inbox = n.inbox();
    let after = n.counters();
    let dropped: Vec<_> = drop_counters()
        .into_iter()
        .filter(|(_, get)| get(&after) != get(&before))
        .map(|(name, get)| (name, get(&after) - get(&before)))
        .collect();
    let received = after.datagrams_received - before.datagrams_received;
    let received_bytes = after.bytes_received - before.bytes_received;
    let fates: Vec<Fate> = [
        (!ggrs.is_empty()).then_some(Fate::Ggrs),
        (!inbox.is_empty()).then_some(Fate::Inbox),
        (n.held() > held).then_some(Fate::Held),
    ]
    .into_iter()
    .flatten()
    .chain(dropped.iter().map(|(name, _)| Fate::Dropped(name)))
    .collect();
    assert_eq!(fates.len(), 1, "one datagram, one fate: {fates:?}");
    assert!(dropped.iter().all(|(_, by)| *by == 1), "{dropped:?}");
    let taken = matches!(fates[0], Fate::Ggrs | Fate::Inbox);
    assert_eq!(ggrs.len() + inbox.len(), usize::from(taken));
    assert_eq!(received, u64::from(taken), "{fates:?}");
    assert_eq!(
        received_bytes,
        if taken { datagram.len() as u64 } else { 0 },
        "{fates:?}"
    );
    if let Some((from_addr, _)) = ggrs.first().map(|(a, m)| (*a, m)) {
        assert_eq!(from_addr, addr(from));
    }
    if let Some((from_addr, _)) = inbox.first() {
        assert_eq!(*from_addr, addr(from));
    }
    fates[0]
}

/// A datagram as made for one case of the table: sealed ones by the peer's keys.
type Maker = fn(&mut Net) -> Vec<u8>;

/// The datagrams of the routing table, by name.
fn table_datagrams() -> Vec<(&'static str, Maker)> {
    vec![
        ("sealed GGRS keep-alive", |n| n.ggrs(PEER, Body::KeepAlive)),
        ("sealed Finish", |n| {
            n.sealed_control(PEER, &Control::Finish { confirmed: 3 })
        }),
        ("sealed Joined", |n| {
            n.sealed_control(PEER, &Control::Joined)
        }),
        ("sealed Hello", |n| {
            n.sealed_control(PEER, &hello(Role::Player))
        }),
        ("sealed, not a GGRS message", |n| {
            n.sealed(PEER, Inner::Ggrs, &[200, 0, 0])
        }),
        ("sealed, not a control message", |n| {
            n.sealed(PEER, Inner::Control, &[200, 0, 0])
        }),
        ("sealed, opened before", |n| {
            let d = n.sealed_control(PEER, &Control::Joined);
            n.send(PEER, &d);
            n.pump(false);
            n.inbox();
            d
        }),
        ("sealed, one bit flipped", |n| {
            let mut d = n.ggrs(PEER, Body::KeepAlive);
            d[SEALED_HEADER_LEN + 2] ^= 4;
            d
        }),
        ("sealed, its counter changed", |n| {
            let mut d = n.ggrs(PEER, Body::KeepAlive);
            d[SEALED_HEADER_LEN - 1] ^= 1;
            d
        }),
        ("sealed under other keys, with the channel's id", |n| {
            let (_, mut other) = pair();
            let mut d = other
                .seal(Inner::Ggrs, &ggrs_payload(Body::KeepAlive))
                .expect("seal");
            let id = n.keys[&PEER].id();
            d[3..7].copy_from_slice(&id.to_le_bytes());
            d
        }),
        ("sealed by the link itself, reflected", |n| {
            n.link
                .borrow_mut()
                .send_control(&Control::Joined, addr(PEER));
            n.sent_to(PEER).pop().expect("sent")
        }),
        ("sealed under another channel", |_| {
            let (_, mut other) = pair();
            other
                .seal(Inner::Ggrs, &ggrs_payload(Body::KeepAlive))
                .expect("seal")
        }),
        ("sealed, truncated after its header", |n| {
            n.ggrs(PEER, Body::KeepAlive)[..SEALED_HEADER_LEN + 4].to_vec()
        }),
        ("clear Hello", |_| clear(&hello(Role::Player))),
        ("clear Finish", |_| clear(&Control::Finish { confirmed: 3 })),
        ("clear Joined", |_| clear(&Control::Joined)),
        ("clear Answer", |_| {
            clear(&Control::Answer { noise: vec![1; 48] })
        }),
        ("clear Reject", |_| {
            clear(&Control::Reject {
                reason: "no".into(),
            })
        }),
        ("clear kind 2 (GGRS before protocol 3)", |_| {
            clear_frame(2, &ggrs_payload(Body::KeepAlive))
        }),
        ("clear, undecodable", |_| clear_frame(1, &[9, 0, 0, 0])),
        ("clear, damaged", |_| {
            let mut d = clear(&Control::Joined);
            *d.last_mut().expect("payload") ^= 1;
            d
        }),
        ("noise", |_| vec![0x5a; 40]),
    ]
}

/// Contract: the fate of every kind of datagram from each kind of sender, before and after
/// the limits are set (GGRS started). Columns: the peer with a channel without a policy, the
/// same with one, a peer without a channel, a stranger (these two alike in both states).
#[test]
fn each_datagram_goes_exactly_one_way_by_sender_and_link_state() {
    use Fate::{Dropped as D, Ggrs, Held, Inbox};
    let unknown = D("unknown_sender");
    let expected: [[Fate; 4]; 22] = [
        [Held, Ggrs, unknown, unknown],
        [Inbox, Inbox, unknown, unknown],
        [Inbox, Inbox, unknown, unknown],
        [D("undecodable"), D("undecodable"), unknown, unknown],
        [Held, D("undecodable"), unknown, unknown],
        [D("undecodable"), D("undecodable"), unknown, unknown],
        [D("replayed"), D("replayed"), unknown, unknown],
        [D("unauthenticated"), D("unauthenticated"), unknown, unknown],
        [D("unauthenticated"), D("unauthenticated"), unknown, unknown],
        [D("unauthenticated"), D("unauthenticated"), unknown, unknown],
        [D("unauthenticated"), D("unauthenticated"), unknown, unknown],
        [D("wrong_session"), D("wrong_session"), unknown, unknown],
        [D("damaged"), D("damaged"), unknown, unknown],
        [Inbox, Inbox, Inbox, unknown],
        [
            D("unauthenticated"),
            D("unauthenticated"),
            D("unauthenticated"),
            unknown,
        ],
        [
            D("unauthenticated"),
            D("unauthenticated"),
            D("unauthenticated"),
            unknown,
        ],
        [unknown, unknown, Inbox, unknown],
        [unknown, unknown, Inbox, unknown],
        [D("damaged"), D("damaged"), D("damaged"), unknown],
        [
            D("undecodable"),
            D("undecodable"),
            D("undecodable"),
            unknown,
        ],
        [D("damaged"), D("damaged"), D("damaged"), unknown],
        [D("damaged"), D("damaged"), D("damaged"), unknown],
    ];
    let datagrams = table_datagrams();
    assert_eq!(datagrams.len(), expected.len());
    for ((name, make), row) in datagrams.into_iter().zip(expected) {
        for (column, want) in row.into_iter().enumerate() {
            let from = [PEER, PEER, CLEAR_PEER, STRANGER][column];
            let policies: &[bool] = match column {
                0 => &[false],
                1 => &[true],
                _ => &[false, true],
            };
            for &policy in policies {
                let mut n = if policy { running() } else { connected() };
                n.link.borrow_mut().add_peer(addr(CLEAR_PEER));
                let d = make(&mut n);
                assert_eq!(
                    fate(&n, from, &d),
                    want,
                    "{name} from port {from}, policy {policy}"
                );
                // Nothing but a Hello from a known peer with an answer is ever answered, and
                // none of these has one.
                assert!(n.sent_to(from).is_empty(), "{name}: answered");
            }
        }
    }
}

#[test]
fn control_from_peers_reaches_the_inbox_and_from_strangers_only_while_accepted() {
    let mut n = connected();
    let finish = n.sealed_control(PEER, &Control::Finish { confirmed: 3 });
    n.send(PEER, &finish);
    n.send(STRANGER, &clear(&hello(Role::Player)));
    assert!(n.pump(false).is_empty());
    let c = n.counters();
    assert_eq!(
        (c.datagrams_received, c.bytes_received),
        (1, finish.len() as u64)
    );
    assert_eq!(c.dropped_unknown_sender, 1);
    assert_eq!(
        n.inbox(),
        vec![(addr(PEER), Control::Finish { confirmed: 3 })]
    );
    assert!(n.inbox().is_empty(), "the inbox is taken once");

    // While strangers are accepted, their Hellos reach the inbox; nothing else of theirs does.
    n.send(STRANGER, &clear(&hello(Role::Spectator)));
    n.send(STRANGER, &clear(&Control::Finish { confirmed: 1 }));
    n.send(STRANGER, &clear(&Control::Answer { noise: vec![0; 48] }));
    let mut damaged = clear(&hello(Role::Player));
    damaged[wire::HEADER_LEN] ^= 1;
    n.send(STRANGER, &damaged);
    n.pump(true);
    assert_eq!(n.inbox(), vec![(addr(STRANGER), hello(Role::Spectator))]);
    let c = n.counters();
    assert_eq!(c.datagrams_received, 2);
    assert_eq!(
        (c.dropped_unknown_sender, c.dropped_damaged),
        (3, 1),
        "{c:?}"
    );
    // GGRS's socket never accepts strangers.
    n.send(STRANGER, &clear(&hello(Role::Player)));
    assert!(GameSocket::new(n.link.clone())
        .receive_all_messages()
        .is_empty());
    assert!(n.inbox().is_empty());
    assert_eq!(n.counters().dropped_unknown_sender, 4);
}

#[test]
fn an_undecodable_control_is_counted_and_an_old_hello_is_told_both_versions() {
    let n = net();
    n.link.borrow_mut().add_peer(addr(CLEAR_PEER));
    n.send(CLEAR_PEER, &clear_frame(1, &[9, 0, 0, 0]));
    n.pump(false);
    assert_eq!(n.counters().dropped_undecodable, 1);
    assert!(n.sent_to(CLEAR_PEER).is_empty(), "garbage gets no answer");
    assert!(n.inbox().is_empty());

    for from in [CLEAR_PEER, STRANGER] {
        n.send(from, &old_hello());
        // A stranger is heard while strangers are accepted (a host waiting for joiners).
        n.pump(true);
        assert_eq!(
            n.rejection_to(from),
            format!(
                "protocol version {} vs 1: the host runs another version of the game",
                wire::PROTOCOL_VERSION
            )
        );
    }
    let c = n.counters();
    assert_eq!((c.dropped_undecodable, c.datagrams_sent), (3, 2));
    assert!(n.inbox().is_empty());
}

#[test]
fn a_hello_again_is_answered_again_with_the_latest_answer_for_that_peer_only() {
    let mut n = connected();
    n.link.borrow_mut().add_peer(addr(CLEAR_PEER));
    let answer = |reason: &str| {
        clear(&Control::Reject {
            reason: reason.into(),
        })
    };
    let latest = answer("latest");
    n.link
        .borrow_mut()
        .answer_hellos_with(addr(PEER), answer("first"));
    n.link
        .borrow_mut()
        .answer_hellos_with(addr(CLEAR_PEER), answer("other"));
    n.link
        .borrow_mut()
        .answer_hellos_with(addr(PEER), latest.clone());
    // The joiner lost the answer: it says Hello again, in clear, though the host holds keys.
    n.send(PEER, &clear(&hello(Role::Player)));
    let joined = n.sealed_control(PEER, &Control::Joined);
    n.send(PEER, &joined);
    n.pump(false);
    assert_eq!(n.sent_to(PEER), vec![latest.clone()]);
    assert!(n.sent_to(CLEAR_PEER).is_empty());
    let c = n.counters();
    assert_eq!((c.datagrams_sent, c.bytes_sent), (1, latest.len() as u64));
    // The Hello itself still reaches the inbox; only a Hello is answered.
    assert_eq!(
        n.inbox(),
        vec![
            (addr(PEER), hello(Role::Player)),
            (addr(PEER), Control::Joined)
        ]
    );
    n.send(CLEAR_PEER, &clear(&hello(Role::Spectator)));
    n.pump(false);
    assert_eq!(n.sent_to(CLEAR_PEER), vec![answer("other")]);
}

#[test]
fn without_refusals_a_strangers_hello_of_any_version_is_dropped_unanswered() {
    let n = net();
    n.send(STRANGER, &clear(&hello(Role::Player)));
    n.pump(false);
    assert_eq!(n.counters().dropped_unknown_sender, 1);
    n.send(STRANGER, &old_hello());
    n.pump(false);
    let c = n.counters();
    assert_eq!((c.dropped_unknown_sender, c.dropped_undecodable), (2, 0));
    assert!(n.sent_to(STRANGER).is_empty());
    assert_eq!(c.datagrams_sent, 0);
}

#[test]
fn once_under_way_every_strangers_hello_is_refused_saying_why() {
    let n = running();
    n.link
        .borrow_mut()
        .refuse_hellos(info(Rules::default().block_hp), Refusing::UnderWay);
    n.send(STRANGER, &clear(&hello(Role::Player)));
    n.pump(false);
    assert_eq!(
        n.rejection_to(STRANGER),
        "the match is full (already under way)"
    );
    n.send(STRANGER, &clear(&hello(Role::Spectator)));
    n.pump(false);
    assert_eq!(
        n.rejection_to(STRANGER),
        "spectator slots full: the match is already under way"
    );
    let other_rules = hello_with(info(Rules::default().block_hp + 1), Role::Player);
    n.send(STRANGER, &clear(&other_rules));
    n.pump(false);
    let reason = n.rejection_to(STRANGER);
    assert!(
        reason.starts_with("peer 127.0.0.1:3 differs from host (host's value first):")
            && reason.contains("block_hp"),
        "{reason}"
    );
    let c = n.counters();
    assert_eq!((c.late_hellos_refused, c.datagrams_sent), (3, 3));
    assert_eq!(c.hellos_refused, 0, "the handshake's tally, not the link's");
    assert!(n.inbox().is_empty());

    // Another version is told so; anything else from a stranger is dropped unanswered.
    n.send(STRANGER, &old_hello());
    n.pump(false);
    assert!(n
        .rejection_to(STRANGER)
        .starts_with("protocol version 3 vs 1"));
    n.send(STRANGER, &clear(&Control::Finish { confirmed: 1 }));
    n.send(STRANGER, &clear_frame(1, &[7; 3]));
    n.pump(false);
    assert!(n.sent_to(STRANGER).is_empty());
    let c = n.counters();
    assert_eq!((c.late_hellos_refused, c.dropped_undecodable), (3, 2));
    assert_eq!(c.dropped_unknown_sender, 1);
}

#[test]
fn while_synchronizing_only_hellos_that_could_never_be_accepted_are_refused() {
    for takes_spectators in [false, true] {
        let n = running();
        n.link.borrow_mut().refuse_hellos(
            info(Rules::default().block_hp),
            Refusing::WhileSynchronizing { takes_spectators },
        );
        n.send(STRANGER, &clear(&hello(Role::Player)));
        n.pump(false);
        assert!(n.sent_to(STRANGER).is_empty(), "a slot may free up");
        assert_eq!(n.counters().dropped_unknown_sender, 1);
        n.send(STRANGER, &clear(&hello(Role::Spectator)));
        n.pump(false);
        if takes_spectators {
            assert!(n.sent_to(STRANGER).is_empty());
            assert_eq!(n.counters().late_hellos_refused, 0);
        } else {
            assert_eq!(
                n.rejection_to(STRANGER),
                "spectator slots full: this host takes no spectators"
            );
            assert_eq!(n.counters().late_hellos_refused, 1);
        }
        let other_rules = hello_with(info(Rules::default().block_hp + 1), Role::Player);
        n.send(STRANGER, &clear(&other_rules));
        n.pump(false);
        assert!(n.rejection_to(STRANGER).contains("block_hp"));
    }
}

#[test]
fn ggrs_datagrams_are_held_until_the_limits_are_set_and_read_once() {
    let mut n = connected();
    let keep_alive = n.ggrs(PEER, Body::KeepAlive);
    n.send(PEER, &keep_alive);
    let sync = n.ggrs(PEER, Body::SyncRequest { random_request: 11 });
    n.send(PEER, &sync);
    assert!(n.pump(false).is_empty());
    assert_eq!(n.held(), 2);
    let c = n.counters();
    assert_eq!(
        (c.datagrams_received, c.bytes_received, c.dropped()),
        (0, 0, 0)
    );
    n.link
        .borrow_mut()
        .set_limits(limits(), vec![(addr(PEER), Sender::Player { slots: 1 })]);
    let got = n.pump(false);
    let bodies: Vec<Body> = got.iter().map(|(_, m)| mirror(m).body).collect();
    assert_eq!(
        bodies,
        vec![Body::KeepAlive, Body::SyncRequest { random_request: 11 }],
        "in the order they came"
    );
    assert!(got.iter().all(|(from, _)| *from == addr(PEER)));
    let c = n.counters();
    assert_eq!(
        (c.datagrams_received, c.bytes_received),
        (2, (keep_alive.len() + sync.len()) as u64)
    );
    assert!(n.pump(false).is_empty(), "held datagrams are read once");
    assert_eq!((n.held(), n.counters().dropped()), (0, 0));
}

#[test]
fn at_most_16_ggrs_datagrams_are_held_per_peer_and_32_in_all() {
    let mut n = connected();
    n.connect(CLEAR_PEER);
    n.connect(5);
    for _ in 0..MAX_EARLY_PER_PEER + 1 {
        let d = n.ggrs(PEER, Body::KeepAlive);
        n.send(PEER, &d);
    }
    n.pump(false);
    assert_eq!((n.held(), n.counters().dropped_early), (16, 1));
    for port in [CLEAR_PEER, 5] {
        for _ in 0..MAX_EARLY_PER_PEER {
            let d = n.ggrs(port, Body::KeepAlive);
            n.send(port, &d);
        }
    }
    n.pump(false);
    assert_eq!(n.held(), MAX_EARLY);
    assert_eq!(n.counters().dropped_early, 1 + 16, "port 5 came last");
    // A stranger's are never held, whatever it sends.
    let d = n.ggrs(PEER, Body::KeepAlive);
    n.send(STRANGER, &d);
    n.pump(false);
    assert_eq!(n.counters().dropped_unknown_sender, 1);
    n.link.borrow_mut().set_limits(
        limits(),
        vec![
            (addr(PEER), Sender::Player { slots: 1 }),
            (addr(CLEAR_PEER), Sender::Spectator),
        ],
    );
    let got = n.pump(false);
    assert_eq!(got.len(), MAX_EARLY);
    assert_eq!(
        got.iter().filter(|(from, _)| *from == addr(PEER)).count(),
        16
    );
    assert_eq!(n.counters().datagrams_received, 32);
}

#[test]
fn held_datagrams_of_a_peer_without_a_role_are_dropped_as_unknown_when_read() {
    let mut n = connected();
    let d = n.ggrs(PEER, Body::KeepAlive);
    n.send(PEER, &d);
    n.pump(false);
    n.link.borrow_mut().set_limits(limits(), Vec::new());
    assert!(n.pump(false).is_empty());
    let c = n.counters();
    assert_eq!((c.dropped_unknown_sender, c.datagrams_received), (1, 0));
}

/// Regression (found by the property test): a peer that held GGRS datagrams and then
/// connected again had them handed to GGRS under its new keys, before it proved it holds them.
#[test]
fn new_keys_drop_what_was_held_under_the_old_ones() {
    let mut n = connected();
    n.connect(CLEAR_PEER);
    for port in [PEER, CLEAR_PEER] {
        let d = n.ggrs(port, Body::KeepAlive);
        n.send(port, &d);
    }
    n.pump(false);
    assert_eq!(n.held(), 2);
    n.connect(PEER);
    assert_eq!(n.held(), 1, "the other peer's stays held");
    assert!(!n.link.borrow().proven(addr(PEER)));
    n.link.borrow_mut().set_limits(
        limits(),
        vec![
            (addr(PEER), Sender::Player { slots: 1 }),
            (addr(CLEAR_PEER), Sender::Player { slots: 1 }),
        ],
    );
    let got = n.pump(false);
    assert_eq!(got.len(), 1);
    assert_eq!(got[0].0, addr(CLEAR_PEER));
}

#[test]
fn sealed_ggrs_from_the_peer_passes_only_once_under_its_keys_within_its_limits() {
    let mut n = running();
    n.connect(CLEAR_PEER); // a channel, but no role in the match
    let ack = n.ggrs(PEER, Body::InputAck { ack_frame: -1 });
    n.send(PEER, &ack);
    let got = n.pump(false);
    assert_eq!(got.len(), 1);
    assert_eq!(mirror(&got[0].1).body, Body::InputAck { ack_frame: -1 });
    let c = n.counters();
    assert_eq!(
        (c.datagrams_received, c.bytes_received),
        (1, ack.len() as u64)
    );

    n.send(PEER, &ack);
    assert!(n.pump(false).is_empty());
    assert_eq!(n.counters().dropped_replayed, 1);

    let mut flipped = n.ggrs(PEER, Body::KeepAlive);
    *flipped.last_mut().expect("tag") ^= 0x80;
    n.send(PEER, &flipped);
    // Sealed under the keys of another peer of this match, sent from the peer's address.
    let other = n.ggrs(CLEAR_PEER, Body::KeepAlive);
    n.send(PEER, &other);
    assert!(n.pump(false).is_empty());
    assert_eq!(n.counters().dropped_wrong_session, 1);
    assert_eq!(n.counters().dropped_unauthenticated, 1);

    // The other peer holds keys but is not among GGRS's senders.
    let d = n.ggrs(CLEAR_PEER, Body::KeepAlive);
    n.send(CLEAR_PEER, &d);
    let d = n.sealed(PEER, Inner::Ggrs, &[200, 0, 0]);
    n.send(PEER, &d);
    let d = n.ggrs(PEER, Body::InputAck { ack_frame: -2 });
    n.send(PEER, &d);
    assert!(n.pump(false).is_empty());
    let c = n.counters();
    assert_eq!(
        (
            c.dropped_unknown_sender,
            c.dropped_undecodable,
            c.dropped_invalid
        ),
        (1, 1, 1)
    );
    assert_eq!(
        (c.datagrams_received, c.bytes_received),
        (1, ack.len() as u64),
        "only what reached GGRS is received"
    );
    // The refusals opened under the keys: the window moved past them, a fresh one passes.
    let d = n.ggrs(PEER, Body::KeepAlive);
    n.send(PEER, &d);
    assert_eq!(n.pump(false).len(), 1);
}

/// Regression: GGRS 0.13 drops every pending input up to whatever frame an acknowledgement
/// names, so one forged `InputAck` for a frame never sent hung both peers. An acknowledgement
/// (alone or inside an `Input`) passes only for a frame the link sent that very peer.
#[test]
fn an_acknowledgement_of_a_frame_never_sent_to_that_peer_is_refused() {
    let mut n = running();
    n.connect(CLEAR_PEER);
    n.link.borrow_mut().set_limits(
        limits(),
        vec![
            (addr(PEER), Sender::Player { slots: 1 }),
            (addr(CLEAR_PEER), Sender::Player { slots: 1 }),
        ],
    );
    let passes = |n: &mut Net, from: u16, body: Body| {
        let d = n.ggrs(from, body);
        n.send(from, &d);
        let before = n.counters().dropped_invalid;
        let got = n.pump(false);
        let refused = n.counters().dropped_invalid - before;
        assert_eq!(got.len() as u64 + refused, 1);
        !got.is_empty()
    };
    // Nothing sent yet: no frame may be acknowledged.
    assert!(!passes(&mut n, PEER, Body::InputAck { ack_frame: 0 }));
    assert!(passes(&mut n, PEER, Body::InputAck { ack_frame: -1 }));
    // Frames 0..=4 sent, then a resend of frame 2 and a keep-alive: still through 4.
    n.send_ggrs(PEER, input(0, 5, -1, false));
    n.send_ggrs(PEER, input(2, 1, -1, false));
    n.send_ggrs(PEER, Body::KeepAlive);
    assert_eq!(n.opened_by(PEER).len(), 3);
    assert!(!passes(&mut n, PEER, Body::InputAck { ack_frame: 5 }));
    assert!(!passes(
        &mut n,
        PEER,
        Body::InputAck {
            ack_frame: i32::MAX
        }
    ));
    assert!(passes(&mut n, PEER, Body::InputAck { ack_frame: 4 }));
    assert!(passes(&mut n, PEER, Body::InputAck { ack_frame: 2 }));
    assert!(!passes(&mut n, PEER, input(0, 1, 5, false)));
    assert!(passes(&mut n, PEER, input(0, 1, 4, false)));
    // What was sent to one peer is no acknowledgement for another.
    assert!(!passes(&mut n, CLEAR_PEER, Body::InputAck { ack_frame: 0 }));
    assert!(!passes(&mut n, CLEAR_PEER, input(0, 1, 4, false)));
    // Held acknowledgements are weighed when read, against what was sent by then.
    let mut n = connected();
    let d = n.ggrs(PEER, Body::InputAck { ack_frame: 1 });
    n.send(PEER, &d);
    let d = n.ggrs(PEER, Body::InputAck { ack_frame: 2 });
    n.send(PEER, &d);
    n.pump(false);
    n.send_ggrs(PEER, input(0, 2, -1, false));
    n.link
        .borrow_mut()
        .set_limits(limits(), vec![(addr(PEER), Sender::Player { slots: 1 })]);
    let got = n.pump(false);
    assert_eq!(got.len(), 1);
    assert_eq!(mirror(&got[0].1).body, Body::InputAck { ack_frame: 1 });
    assert_eq!(n.counters().dropped_invalid, 1);
}

#[test]
fn heard_through_follows_the_last_input_frame_accepted_and_no_refused_one() {
    let mut n = running();
    let heard = |n: &Net| n.link.borrow().heard_through(addr(PEER));
    assert_eq!(heard(&n), -1);
    let deliver = |n: &mut Net, body: Body| {
        let d = n.ggrs(PEER, body);
        n.send(PEER, &d);
        n.pump(false).len()
    };
    assert_eq!(deliver(&mut n, input(0, 3, -1, false)), 1);
    assert_eq!(heard(&n), 2);
    assert_eq!(deliver(&mut n, input(1, 1, -1, false)), 1, "a resend");
    assert_eq!(heard(&n), 2, "never backwards");
    assert_eq!(deliver(&mut n, input(3, 0, -1, false)), 1, "no frames");
    assert_eq!(heard(&n), 2);
    let lead = limits().max_lead;
    assert_eq!(
        deliver(&mut n, input(lead, 5, -1, false)),
        0,
        "too far ahead"
    );
    assert_eq!(
        deliver(&mut n, input(3, 4, 0, false)),
        0,
        "acks a frame not sent"
    );
    assert_eq!(
        deliver(&mut n, input(3, 4, -1, true)),
        0,
        "a disconnect claim"
    );
    assert_eq!(heard(&n), 2);
    assert_eq!(deliver(&mut n, input(3, 4, -1, false)), 1);
    assert_eq!(heard(&n), 6);
    // Only the peer's own inputs count, and only while it has a channel.
    assert_eq!(n.link.borrow().heard_through(addr(STRANGER)), -1);
    n.connect(PEER);
    assert_eq!(heard(&n), -1, "new keys, a new peer");
}

#[test]
fn a_remote_player_may_run_ahead_only_as_far_as_the_local_frame_allows() {
    let mut n = running();
    let lead = limits().max_lead;
    let d = n.ggrs(PEER, input(lead + 5, 1, -1, false));
    n.send(PEER, &d);
    assert!(n.pump(false).is_empty());
    assert_eq!(n.counters().dropped_invalid, 1);
    n.link.borrow_mut().set_local_frame(10);
    let d = n.ggrs(PEER, input(lead + 5, 1, -1, false));
    n.send(PEER, &d);
    assert_eq!(n.pump(false).len(), 1);
}

#[test]
fn a_disconnect_claim_is_counted_every_time_and_its_sender_listed_once() {
    let mut n = running();
    for start in [0, 1] {
        let d = n.ggrs(PEER, input(start, 1, -1, true));
        n.send(PEER, &d);
    }
    assert!(n.pump(false).is_empty(), "a claim never reaches GGRS");
    assert_eq!(n.counters().disconnect_claims, 2);
    assert_eq!(
        n.link.borrow_mut().take_disconnect_claims(),
        vec![addr(PEER)]
    );
    assert!(n.link.borrow_mut().take_disconnect_claims().is_empty());
}

#[test]
fn a_peer_is_proven_by_its_first_sealed_datagram_that_opens_and_never_by_a_forged_one() {
    let mut n = connected();
    let proven = |n: &Net| n.link.borrow().proven(addr(PEER));
    assert!(!proven(&n));
    let mut forgeries = Vec::new();
    let mut flipped = n.sealed_control(PEER, &Control::Joined);
    flipped[SEALED_HEADER_LEN] ^= 1;
    forgeries.push(flipped);
    let (_, mut other) = pair();
    let mut other_keys = other.seal(Inner::Control, &[4]).expect("seal");
    other_keys[3..7].copy_from_slice(&n.keys[&PEER].id().to_le_bytes());
    forgeries.push(other_keys);
    forgeries.push(other.seal(Inner::Control, &[4]).expect("seal"));
    n.link
        .borrow_mut()
        .send_control(&Control::Joined, addr(PEER));
    forgeries.push(n.sent_to(PEER).remove(0));
    forgeries.push(clear(&Control::Joined));
    forgeries.push(clear(&hello(Role::Player)));
    for d in &forgeries {
        n.send(PEER, d);
    }
    // Sealed by the peer, but from another address.
    let d = n.sealed_control(PEER, &Control::Joined);
    n.send(STRANGER, &d);
    n.pump(false);
    assert!(!proven(&n), "{:?}", n.counters());
    assert_eq!(n.inbox(), vec![(addr(PEER), hello(Role::Player))]);
    // The peer's first real datagram proves it, whatever it carries (here a GGRS message,
    // held since GGRS has not started).
    let d = n.ggrs(PEER, Body::KeepAlive);
    n.send(PEER, &d);
    n.pump(false);
    assert!(proven(&n));
    assert!(!n.link.borrow().proven(addr(STRANGER)));
    // New keys must be proven again.
    n.connect(PEER);
    assert!(!proven(&n));
}

#[test]
fn dropping_a_peer_forgets_its_channel_answer_and_held_datagrams_and_nothing_else() {
    let mut n = connected();
    n.connect(CLEAR_PEER);
    for port in [PEER, CLEAR_PEER] {
        let d = n.sealed_control(port, &Control::Joined);
        n.send(port, &d);
        let d = n.ggrs(port, Body::KeepAlive);
        n.send(port, &d);
        n.link.borrow_mut().answer_hellos_with(
            addr(port),
            clear(&Control::Finish {
                confirmed: u32::from(port),
            }),
        );
    }
    n.send_ggrs(PEER, input(0, 3, -1, false));
    n.sent_to(PEER);
    n.pump(false);
    assert_eq!(n.inbox().len(), 2);
    assert_eq!(n.held(), 2);

    n.link.borrow_mut().drop_peer(addr(PEER));
    assert_eq!(n.link.borrow().peers(), &[addr(CLEAR_PEER)]);
    let link = n.link.borrow();
    assert_eq!(
        (
            link.channel_id(addr(PEER)),
            link.proven(addr(PEER)),
            link.heard_through(addr(PEER))
        ),
        (None, false, -1)
    );
    assert!(link.proven(addr(CLEAR_PEER)));
    drop(link);
    assert_eq!(n.held(), 1);
    // Its Hello is a stranger's now: unanswered; the other peer's still is.
    n.send(PEER, &clear(&hello(Role::Player)));
    n.send(CLEAR_PEER, &clear(&hello(Role::Player)));
    let d = n.ggrs(PEER, Body::KeepAlive);
    n.send(PEER, &d);
    n.pump(false);
    assert!(n.sent_to(PEER).is_empty());
    assert_eq!(
        n.control_to(CLEAR_PEER),
        vec![Control::Finish { confirmed: 4 }]
    );
    assert_eq!(n.counters().dropped_unknown_sender, 2);
    // Its held datagram is gone; the other's is read.
    n.link.borrow_mut().set_limits(
        limits(),
        vec![
            (addr(PEER), Sender::Player { slots: 1 }),
            (addr(CLEAR_PEER), Sender::Player { slots: 1 }),
        ],
    );
    let got = n.pump(false);
    assert_eq!(got.len(), 1);
    assert_eq!(got[0].0, addr(CLEAR_PEER));
    // Back with new keys, nothing of what was sent to it before counts.
    n.connect(PEER);
    let d = n.ggrs(PEER, Body::InputAck { ack_frame: 0 });
    n.send(PEER, &d);
    assert!(n.pump(false).is_empty());
    assert_eq!(n.counters().dropped_invalid, 1);
}

#[test]
fn forgetting_the_peers_returns_the_link_to_a_fresh_one() {
    let mut n = running();
    {
        let mut link = n.link.borrow_mut();
        link.set_local_frame(10);
        link.answer_hellos_with(addr(PEER), clear(&Control::Finish { confirmed: 0 }));
        link.refuse_hellos(info(3), Refusing::UnderWay);
    }
    let lead = limits().max_lead;
    let d = n.ggrs(PEER, input(0, 1, -1, true));
    n.send(PEER, &d);
    let d = n.sealed_control(PEER, &Control::Finish { confirmed: 2 });
    n.send(PEER, &d);
    n.pump(false);
    n.link.borrow_mut().forget_peers();
    {
        let link = n.link.borrow();
        assert!(link.peers().is_empty());
        assert_eq!(
            (link.channel_id(addr(PEER)), link.proven(addr(PEER))),
            (None, false)
        );
    }
    assert!(n.link.borrow_mut().take_disconnect_claims().is_empty());
    assert!(n.inbox().is_empty());
    // No refusals: a stranger's Hello is dropped unanswered.
    n.send(STRANGER, &clear(&hello(Role::Player)));
    n.pump(false);
    assert!(n.sent_to(STRANGER).is_empty());
    // No answers: a Hello from the old peer (now a stranger, accepted) is not answered.
    n.send(PEER, &clear(&hello(Role::Player)));
    n.pump(true);
    assert!(n.sent_to(PEER).is_empty());
    // No channel: what it sends under its old keys is a stranger's, and it is sent clear.
    let d = n.sealed_control(PEER, &Control::Joined);
    n.send(PEER, &d);
    n.pump(true);
    assert_eq!(n.counters().dropped_unknown_sender, 2);
    n.link
        .borrow_mut()
        .send_control(&Control::Finish { confirmed: 0 }, addr(PEER));
    assert_eq!(n.control_to(PEER), vec![Control::Finish { confirmed: 0 }]);
    // No limits: a connected peer's GGRS datagram is held again, and nothing held before
    // returns.
    n.connect(PEER);
    let d = n.ggrs(PEER, input(lead + 5, 1, -1, false));
    n.send(PEER, &d);
    assert!(n.pump(false).is_empty());
    n.link
        .borrow_mut()
        .set_limits(limits(), vec![(addr(PEER), Sender::Player { slots: 1 })]);
    // Local frame 0 again: the held input is too far ahead.
    assert!(n.pump(false).is_empty());
    assert_eq!(n.counters().dropped_invalid, 1);
}

#[test]
fn forgetting_the_peers_discards_what_was_held() {
    let mut n = connected();
    let d = n.ggrs(PEER, Body::KeepAlive);
    n.send(PEER, &d);
    n.pump(false);
    assert_eq!(n.held(), 1);
    n.link.borrow_mut().forget_peers();
    assert_eq!(n.held(), 0);
    n.connect(PEER);
    n.link
        .borrow_mut()
        .set_limits(limits(), vec![(addr(PEER), Sender::Player { slots: 1 })]);
    assert!(n.pump(false).is_empty());
    assert_eq!(n.counters().datagrams_received, 0);
}

mod properties;
