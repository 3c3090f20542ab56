//! The datagram gate on an in-memory network: which datagram goes where (control inbox,
//! GGRS, a held queue, a reply, a counter), from whom, in which state of the link.

use super::*;
use crate::ggrs_message::{Body, ConnectionStatus, GgrsMessage, Input};
use crate::transport::memory::{MemoryEndpoint, MemoryNet};
use crate::GgrsConfig;
use engine::Rules;
use serde::ser::{Serialize, SerializeTuple, Serializer};

const SESSION: u32 = 9;

fn addr(port: u16) -> SocketAddr {
    SocketAddr::from(([127, 0, 0, 1], port))
}

/// The link under test at port 1, a peer at port 2 and a stranger at port 3.
struct Net {
    net: MemoryNet,
    link: SharedLink,
    peer: MemoryEndpoint,
    stranger: MemoryEndpoint,
}

fn net() -> Net {
    let net = MemoryNet::default();
    let link = Link::new(net.endpoint(1));
    Net {
        link,
        peer: net.endpoint(2),
        stranger: net.endpoint(3),
        net,
    }
}

impl Net {
    fn pump(&self, accept_strangers: bool) -> Vec<(SocketAddr, Message)> {
        self.link.borrow_mut().pump(accept_strangers)
    }

    fn counters(&self) -> SocketCounters {
        self.link.borrow().counters()
    }

    /// A link that knows the peer and passes its GGRS messages as a one-slot player's.
    fn running(self) -> Net {
        {
            let mut link = self.link.borrow_mut();
            link.add_peer(addr(2));
            link.set_session(SESSION);
            link.set_limits(limits(), vec![(addr(2), Sender::Player { slots: 1 })]);
        }
        self
    }

    /// Everything sent to `port`, taken off the wire.
    fn sent_to(&self, port: u16) -> Vec<Vec<u8>> {
        let mut at = self.net.endpoint(port);
        let mut buf = vec![0; MAX_DATAGRAM];
        let mut out = Vec::new();
        while let Some((n, from)) = at.recv(&mut buf) {
            assert_eq!(from, addr(1));
            out.push(buf[..n].to_vec());
        }
        out
    }

    /// The control messages sent to `port`.
    fn control_to(&self, port: u16) -> Vec<Control> {
        self.sent_to(port)
            .iter()
            .map(|d| match wire::open(d) {
                Ok((Kind::Control, _, payload)) => wire::decode(payload).expect("control"),
                other => panic!("not a control datagram: {other:?}"),
            })
            .collect()
    }

    /// The one `Reject` reason sent to `port`.
    fn rejection_to(&self, port: u16) -> String {
        match self.control_to(port).as_slice() {
            [Control::Reject { reason }] => reason.clone(),
            other => panic!("expected one Reject, got {other:?}"),
        }
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

fn hello(role: Role) -> Control {
    Control::Hello {
        info: info(Rules::default().block_hp),
        role,
    }
}

fn ggrs(session: u32, body: Body) -> Vec<u8> {
    wire::encode(Kind::Ggrs, session, &GgrsMessage { magic: 7, body })
}

fn control(msg: &Control) -> Vec<u8> {
    wire::encode(Kind::Control, SESSION, msg)
}

/// Bytes serialized as themselves (a bincode tuple has no length prefix): a framed datagram
/// around any payload.
struct Raw<'a>(&'a [u8]);

impl Serialize for Raw<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut t = s.serialize_tuple(self.0.len())?;
        for b in self.0 {
            t.serialize_element(b)?;
        }
        t.end()
    }
}

fn framed(kind: Kind, payload: &[u8]) -> Vec<u8> {
    wire::encode(kind, SESSION, &Raw(payload))
}

/// A `Hello` of protocol version 1 (only its first 8 bytes are read).
fn old_hello() -> Vec<u8> {
    let mut p = 0u32.to_le_bytes().to_vec();
    p.extend_from_slice(&1u32.to_le_bytes());
    p.extend_from_slice(&[0xff; 3]);
    framed(Kind::Control, &p)
}

/// One player's input for `frames` frames from `start`, as GGRS sends it.
fn input(start: i32, frames: usize, disconnected: bool) -> Body {
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
        ack_frame: start - 1,
        bytes: crate::ggrs_message::literal_run(&raw),
    })
}

/// The mirror of what GGRS was handed.
fn mirror(msg: &Message) -> GgrsMessage {
    wire::decode_own(&wire::encode_payload(msg)).expect("a GGRS message")
}

#[test]
fn every_refusal_counts_once_in_dropped_and_traffic_does_not() {
    let c = SocketCounters {
        bytes_sent: 1 << 20,
        bytes_received: 1 << 21,
        datagrams_sent: 1 << 22,
        datagrams_received: 1 << 23,
        dropped_unknown_sender: 1,
        dropped_damaged: 2,
        dropped_undecodable: 4,
        dropped_wrong_session: 8,
        dropped_invalid: 16,
        disconnect_claims: 32,
        dropped_early: 64,
        late_hellos_refused: 1 << 24,
    };
    assert_eq!(c.dropped(), 127);
}

#[test]
fn peers_are_listed_once_and_the_link_shows_its_state() {
    let n = net();
    n.link.borrow_mut().add_peer(addr(2));
    n.link.borrow_mut().add_peer(addr(3));
    n.link.borrow_mut().add_peer(addr(2));
    assert_eq!(n.link.borrow().peers(), &[addr(2), addr(3)]);
    assert_eq!(n.link.borrow().local_addr(), addr(1));
    n.link.borrow_mut().set_session(4321);
    let shown = format!("{:?}", n.link.borrow());
    assert!(
        shown.contains("4321") && shown.contains("127.0.0.1:3"),
        "{shown}"
    );
}

#[test]
fn sending_counts_every_datagram_and_byte_and_stamps_the_session() {
    let n = net();
    n.link.borrow_mut().set_session(SESSION);
    let finish = Control::Finish { confirmed: 5 };
    let len = control(&finish).len() as u64;
    n.link.borrow_mut().send_control(&finish, addr(2));
    n.link.borrow_mut().send_control(&finish, addr(2));
    let c = n.counters();
    assert_eq!((c.datagrams_sent, c.bytes_sent), (2, 2 * len));
    for d in n.sent_to(2) {
        assert_eq!(wire::open(&d).expect("intact").1, SESSION);
    }
    // GGRS's own sends go through the same counters, stamped the same way.
    let mut socket = GameSocket::new(n.link.clone());
    let keep_alive: Message = wire::decode(&wire::encode_payload(&GgrsMessage {
        magic: 1,
        body: Body::KeepAlive,
    }))
    .expect("a GGRS message");
    socket.send_to(&keep_alive, &addr(2));
    assert_eq!(n.counters().datagrams_sent, 3);
    let sent = n.sent_to(2);
    let (kind, session, payload) = wire::open(&sent[0]).expect("intact");
    assert_eq!((kind, session), (Kind::Ggrs, SESSION));
    assert_eq!(
        wire::decode::<GgrsMessage>(payload).expect("ggrs").body,
        Body::KeepAlive
    );
    assert_eq!(n.counters().bytes_sent, 2 * len + sent[0].len() as u64);
}

#[test]
fn control_from_peers_reaches_the_inbox_and_from_strangers_only_while_accepted() {
    let mut n = net();
    n.link.borrow_mut().add_peer(addr(2));
    let msg = control(&Control::Finish { confirmed: 3 });
    n.peer.send(&msg, addr(1));
    n.stranger.send(&msg, addr(1));
    assert!(n.pump(false).is_empty());
    let c = n.counters();
    assert_eq!(
        (c.datagrams_received, c.bytes_received),
        (1, msg.len() as u64)
    );
    assert_eq!(c.dropped_unknown_sender, 1);
    assert_eq!(
        n.link.borrow_mut().take_control(),
        vec![(addr(2), Control::Finish { confirmed: 3 })]
    );
    assert!(n.link.borrow_mut().take_control().is_empty());

    n.stranger.send(&msg, addr(1));
    n.pump(true);
    assert_eq!(n.counters().datagrams_received, 2);
    assert_eq!(n.counters().bytes_received, 2 * msg.len() as u64);
    assert_eq!(
        n.link.borrow_mut().take_control(),
        vec![(addr(3), Control::Finish { confirmed: 3 })]
    );
    // GGRS's socket never accepts strangers.
    n.stranger.send(&msg, addr(1));
    assert!(GameSocket::new(n.link.clone())
        .receive_all_messages()
        .is_empty());
    assert!(n.link.borrow_mut().take_control().is_empty());
    assert_eq!(n.counters().dropped_unknown_sender, 2);
}

#[test]
fn damaged_datagrams_count_as_damaged_only_from_those_who_may_speak() {
    let mut n = net();
    n.link.borrow_mut().add_peer(addr(2));
    let mut bad = control(&Control::Finish { confirmed: 3 });
    *bad.last_mut().expect("payload") ^= 1;
    let dropped = |n: &Net| {
        let c = n.counters();
        (c.dropped_damaged, c.dropped_unknown_sender)
    };
    n.peer.send(&bad, addr(1));
    n.pump(false);
    assert_eq!(dropped(&n), (1, 0));
    n.stranger.send(&bad, addr(1));
    n.pump(false);
    assert_eq!(dropped(&n), (1, 1));
    n.stranger.send(&bad, addr(1));
    n.pump(true);
    assert_eq!(n.counters().dropped_damaged, 2);
    assert_eq!(n.counters().datagrams_received, 0);
}

#[test]
fn an_undecodable_control_is_counted_and_an_old_hello_is_told_both_versions() {
    let mut n = net();
    n.link.borrow_mut().add_peer(addr(2));
    n.peer.send(&framed(Kind::Control, &[9, 0, 0, 0]), addr(1));
    n.pump(false);
    assert_eq!(n.counters().dropped_undecodable, 1);
    assert!(n.sent_to(2).is_empty(), "garbage gets no answer");
    assert!(n.link.borrow_mut().take_control().is_empty());

    n.peer.send(&old_hello(), addr(1));
    n.pump(false);
    assert_eq!(n.counters().dropped_undecodable, 2);
    assert_eq!(
        n.rejection_to(2),
        format!(
            "protocol version {} vs 1: the host runs another version of the game",
            wire::PROTOCOL_VERSION
        )
    );
    assert_eq!(n.counters().datagrams_sent, 1);
}

#[test]
fn a_hello_again_is_answered_again_with_the_latest_answer_for_that_peer_only() {
    let mut n = net();
    n.link.borrow_mut().add_peer(addr(2));
    n.link.borrow_mut().add_peer(addr(3));
    let first = control(&Control::Reject {
        reason: "first".into(),
    });
    let latest = control(&Control::Reject {
        reason: "latest".into(),
    });
    let other = control(&Control::Reject {
        reason: "other".into(),
    });
    n.link.borrow_mut().answer_hellos_with(addr(2), first);
    n.link
        .borrow_mut()
        .answer_hellos_with(addr(3), other.clone());
    n.link
        .borrow_mut()
        .answer_hellos_with(addr(2), latest.clone());
    n.peer.send(&control(&hello(Role::Player)), addr(1));
    n.peer
        .send(&control(&Control::Finish { confirmed: 1 }), addr(1));
    n.pump(false);
    assert_eq!(n.sent_to(2), vec![latest.clone()]);
    assert!(n.sent_to(3).is_empty());
    let c = n.counters();
    assert_eq!((c.datagrams_sent, c.bytes_sent), (1, latest.len() as u64));
    // The Hello itself still reaches the inbox.
    assert_eq!(n.link.borrow_mut().take_control().len(), 2);
    n.stranger.send(&control(&hello(Role::Spectator)), addr(1));
    n.pump(false);
    assert_eq!(n.sent_to(3), vec![other]);
}

#[test]
fn without_refusals_a_strangers_hello_of_any_version_is_dropped_unanswered() {
    let mut n = net();
    n.stranger.send(&control(&hello(Role::Player)), addr(1));
    n.pump(false);
    assert_eq!(n.counters().dropped_unknown_sender, 1);
    n.stranger.send(&old_hello(), addr(1));
    n.pump(false);
    let c = n.counters();
    assert_eq!((c.dropped_unknown_sender, c.dropped_undecodable), (2, 0));
    assert!(n.sent_to(3).is_empty());
    assert_eq!(c.datagrams_sent, 0);
}

#[test]
fn once_under_way_every_strangers_hello_is_refused_saying_why() {
    let mut n = net();
    n.link
        .borrow_mut()
        .refuse_hellos(info(Rules::default().block_hp), Refusing::UnderWay);
    n.stranger.send(&control(&hello(Role::Player)), addr(1));
    n.pump(false);
    assert_eq!(n.rejection_to(3), "the match is full (already under way)");
    n.stranger.send(&control(&hello(Role::Spectator)), addr(1));
    n.pump(false);
    assert_eq!(
        n.rejection_to(3),
        "spectator slots full: the match is already under way"
    );
    let other_rules = Control::Hello {
        info: info(Rules::default().block_hp + 1),
        role: Role::Player,
    };
    n.stranger.send(&control(&other_rules), addr(1));
    n.pump(false);
    let reason = n.rejection_to(3);
    assert!(
        reason.starts_with("peer 127.0.0.1:3 differs from host (host's value first):")
            && reason.contains("block_hp"),
        "{reason}"
    );
    assert_eq!(n.counters().late_hellos_refused, 3);
    assert_eq!(n.counters().datagrams_sent, 3);
    assert!(n.link.borrow_mut().take_control().is_empty());

    // Another version is told so; anything else from a stranger is dropped unanswered.
    n.stranger.send(&old_hello(), addr(1));
    n.pump(false);
    assert!(n.rejection_to(3).starts_with("protocol version"));
    n.stranger
        .send(&control(&Control::Finish { confirmed: 1 }), addr(1));
    n.stranger.send(&framed(Kind::Control, &[7; 3]), addr(1));
    n.pump(false);
    assert!(n.sent_to(3).is_empty());
    let c = n.counters();
    assert_eq!((c.late_hellos_refused, c.dropped_undecodable), (3, 1));
    assert_eq!(c.dropped_unknown_sender, 2);
}

#[test]
fn while_synchronizing_only_hellos_that_could_never_be_accepted_are_refused() {
    for takes_spectators in [false, true] {
        let mut n = net();
        n.link.borrow_mut().refuse_hellos(
            info(Rules::default().block_hp),
            Refusing::WhileSynchronizing { takes_spectators },
        );
        n.stranger.send(&control(&hello(Role::Player)), addr(1));
        n.pump(false);
        assert!(n.sent_to(3).is_empty(), "a slot may free up");
        assert_eq!(n.counters().dropped_unknown_sender, 1);
        n.stranger.send(&control(&hello(Role::Spectator)), addr(1));
        n.pump(false);
        if takes_spectators {
            assert!(n.sent_to(3).is_empty());
            assert_eq!(n.counters().late_hellos_refused, 0);
        } else {
            assert_eq!(
                n.rejection_to(3),
                "spectator slots full: this host takes no spectators"
            );
            assert_eq!(n.counters().late_hellos_refused, 1);
        }
        let other_rules = Control::Hello {
            info: info(Rules::default().block_hp + 1),
            role: Role::Player,
        };
        n.stranger.send(&control(&other_rules), addr(1));
        n.pump(false);
        assert!(n.rejection_to(3).contains("block_hp"));
    }
}

#[test]
fn ggrs_datagrams_are_held_until_the_session_and_limits_are_set() {
    let mut n = net();
    n.link.borrow_mut().add_peer(addr(2));
    let keep_alive = ggrs(SESSION, Body::KeepAlive);
    n.peer.send(&keep_alive, addr(1));
    assert!(n.pump(false).is_empty());
    n.link.borrow_mut().set_session(SESSION);
    n.peer.send(&keep_alive, addr(1));
    assert!(n.pump(false).is_empty(), "a session but no limits: held");
    n.link.borrow_mut().set_session(0);
    n.link
        .borrow_mut()
        .set_limits(limits(), vec![(addr(2), Sender::Player { slots: 1 })]);
    n.peer.send(&keep_alive, addr(1));
    assert!(n.pump(false).is_empty(), "limits but no session: held");
    assert_eq!(n.counters().datagrams_received, 0);
    n.link.borrow_mut().set_session(SESSION);
    let got = n.pump(false);
    assert_eq!(got.len(), 3);
    assert!(got
        .iter()
        .all(|(from, m)| *from == addr(2) && mirror(m).body == Body::KeepAlive));
    let c = n.counters();
    assert_eq!(
        (c.datagrams_received, c.bytes_received),
        (3, 3 * keep_alive.len() as u64)
    );
    assert!(n.pump(false).is_empty(), "held datagrams are read once");
    assert_eq!(c.dropped(), 0);
}

#[test]
fn at_most_32_ggrs_datagrams_are_held_and_a_held_one_of_another_session_is_dropped() {
    let mut n = net();
    n.link.borrow_mut().add_peer(addr(2));
    n.peer.send(&ggrs(SESSION + 1, Body::KeepAlive), addr(1));
    for _ in 0..MAX_EARLY + 1 {
        n.peer.send(&ggrs(SESSION, Body::KeepAlive), addr(1));
    }
    n.pump(false);
    assert_eq!(n.counters().dropped_early, 2);
    n.stranger.send(&ggrs(SESSION, Body::KeepAlive), addr(1));
    n.pump(false);
    assert_eq!(
        n.counters().dropped_unknown_sender,
        1,
        "strangers are not held"
    );
    let n = n.running();
    assert_eq!(n.pump(false).len(), MAX_EARLY - 1);
    assert_eq!(n.counters().dropped_wrong_session, 1);
}

#[test]
fn ggrs_from_a_peer_passes_only_in_its_session_within_its_limits() {
    let mut n = net().running();
    n.link.borrow_mut().add_peer(addr(3));
    n.peer.send(&ggrs(SESSION + 1, Body::KeepAlive), addr(1));
    n.peer.send(&ggrs(0, Body::KeepAlive), addr(1));
    n.pump(false);
    assert_eq!(n.counters().dropped_wrong_session, 2);
    // A known peer with no role in the match (not among the GGRS senders).
    n.stranger.send(&ggrs(SESSION, Body::KeepAlive), addr(1));
    n.pump(false);
    assert_eq!(n.counters().dropped_unknown_sender, 1);
    n.peer.send(&framed(Kind::Ggrs, &[200, 0, 0]), addr(1));
    n.pump(false);
    assert_eq!(n.counters().dropped_undecodable, 1);
    n.peer
        .send(&ggrs(SESSION, Body::InputAck { ack_frame: -2 }), addr(1));
    n.pump(false);
    assert_eq!(n.counters().dropped_invalid, 1);
    assert_eq!(n.counters().datagrams_received, 0);
    assert_eq!(n.counters().bytes_received, 0);
    let ack = ggrs(SESSION, Body::InputAck { ack_frame: 4 });
    n.peer.send(&ack, addr(1));
    let got = n.pump(false);
    assert_eq!(got.len(), 1);
    assert_eq!(mirror(&got[0].1).body, Body::InputAck { ack_frame: 4 });
    assert_eq!(n.counters().bytes_received, ack.len() as u64);
}

#[test]
fn a_remote_player_may_run_ahead_only_as_far_as_the_local_frame_allows() {
    let mut n = net().running();
    let lead = limits().max_lead;
    n.peer
        .send(&ggrs(SESSION, input(lead + 5, 1, false)), addr(1));
    assert!(n.pump(false).is_empty());
    assert_eq!(n.counters().dropped_invalid, 1);
    n.link.borrow_mut().set_local_frame(10);
    n.peer
        .send(&ggrs(SESSION, input(lead + 5, 1, false)), addr(1));
    assert_eq!(n.pump(false).len(), 1);
}

#[test]
fn a_disconnect_claim_is_counted_every_time_and_its_sender_listed_once() {
    let mut n = net().running();
    n.peer.send(&ggrs(SESSION, input(0, 1, true)), addr(1));
    n.peer.send(&ggrs(SESSION, input(1, 1, true)), addr(1));
    assert!(n.pump(false).is_empty(), "a claim never reaches GGRS");
    assert_eq!(n.counters().disconnect_claims, 2);
    assert_eq!(n.link.borrow_mut().take_disconnect_claims(), vec![addr(2)]);
    assert!(n.link.borrow_mut().take_disconnect_claims().is_empty());
}

#[test]
fn forgetting_the_peers_returns_the_link_to_a_fresh_one() {
    let mut n = net().running();
    {
        let mut link = n.link.borrow_mut();
        link.set_local_frame(10);
        link.answer_hellos_with(addr(2), control(&Control::Finish { confirmed: 0 }));
        link.refuse_hellos(info(3), Refusing::UnderWay);
    }
    let lead = limits().max_lead;
    n.peer.send(&ggrs(SESSION, input(0, 1, true)), addr(1));
    n.peer
        .send(&control(&Control::Finish { confirmed: 2 }), addr(1));
    n.pump(false);
    n.link.borrow_mut().set_limits(limits(), Vec::new());
    n.link.borrow_mut().set_session(0);
    n.peer.send(&ggrs(SESSION, Body::KeepAlive), addr(1));
    n.pump(false); // held

    n.link.borrow_mut().forget_peers();
    assert!(n.link.borrow().peers().is_empty());
    assert!(n.link.borrow_mut().take_disconnect_claims().is_empty());
    assert!(n.link.borrow_mut().take_control().is_empty());
    // No refusals: a stranger's Hello is dropped unanswered.
    n.stranger.send(&control(&hello(Role::Player)), addr(1));
    n.pump(false);
    assert!(n.sent_to(3).is_empty());
    // No answers: a Hello from the old peer (now a stranger, accepted) is not answered.
    n.peer.send(&control(&hello(Role::Player)), addr(1));
    n.pump(true);
    assert!(n.sent_to(2).is_empty());
    // Session 0 on what it sends.
    n.link
        .borrow_mut()
        .send_control(&Control::Finish { confirmed: 0 }, addr(2));
    assert_eq!(wire::open(&n.sent_to(2)[0]).expect("intact").1, 0);
    // No limits: a known peer's GGRS datagram is held again, and nothing held before returns.
    n.link.borrow_mut().add_peer(addr(2));
    n.link.borrow_mut().set_session(SESSION);
    n.peer
        .send(&ggrs(SESSION, input(lead + 5, 1, false)), addr(1));
    assert!(n.pump(false).is_empty());
    n.link
        .borrow_mut()
        .set_limits(limits(), vec![(addr(2), Sender::Player { slots: 1 })]);
    // Local frame 0 again: the held input is too far ahead.
    assert!(n.pump(false).is_empty());
    assert_eq!(n.counters().dropped_invalid, 1);
}

/// Arbitrary traffic from peers, strangers and known addresses without a GGRS role, in every
/// state of the link: nothing panics, every datagram is accounted for exactly once, GGRS and
/// the control inbox hear only whom they may, and the link answers only with intact control
/// datagrams it counted.
mod properties {
    use super::*;
    use proptest::prelude::*;

    #[derive(Debug, Clone)]
    enum Op {
        /// `copies` times the same datagram.
        Send {
            from: u16,
            datagram: Vec<u8>,
            copies: u8,
        },
        Pump {
            accept_strangers: bool,
        },
        AddPeer(u16),
        SetSession(u32),
        SetLimits(Vec<(u16, Sender)>),
        SetLocalFrame(i32),
        RefuseHellos(Refusing),
        AnswerHellos(u16),
        Forget,
        TakeClaims,
    }

    fn port() -> impl Strategy<Value = u16> {
        prop_oneof![4 => Just(2u16), 1 => Just(3), 1 => Just(4)]
    }

    fn session() -> impl Strategy<Value = u32> {
        prop_oneof![1 => Just(0), 6 => Just(SESSION), 1 => Just(SESSION + 1), 1 => any::<u32>()]
    }

    fn peer_info() -> impl Strategy<Value = PeerInfo> {
        let ours = info(Rules::default().block_hp);
        prop_oneof![
            Just(ours.clone()),
            (1u8..=20).prop_map(info),
            (
                any::<u32>(),
                ".{0,80}",
                any::<u32>(),
                any::<u64>(),
                proptest::collection::vec(any::<u8>(), 0..200)
            )
                .prop_map(
                    |(protocol, engine_version, state_format, rules_hash, rules)| PeerInfo {
                        protocol,
                        engine_version,
                        state_format,
                        rules_hash,
                        rules,
                    }
                ),
        ]
    }

    fn control_msg() -> impl Strategy<Value = Control> {
        let role = prop_oneof![Just(Role::Player), Just(Role::Spectator)];
        prop_oneof![
            3 => (peer_info(), role).prop_map(|(info, role)| Control::Hello { info, role }),
            1 => any::<u32>().prop_map(|confirmed| Control::Finish { confirmed }),
            1 => ".{0,40}".prop_map(|reason| Control::Reject { reason }),
            1 => (peer_info(), any::<u64>(), any::<u8>(), any::<Option<u8>>(), any::<u32>())
                .prop_map(|(info, match_seed, players, slot, session)| Control::Welcome {
                    info, match_seed, players, slot, session,
                }),
        ]
    }

    fn ggrs_body() -> impl Strategy<Value = Body> {
        prop_oneof![
            1 => Just(Body::KeepAlive),
            1 => any::<i32>().prop_map(|ack_frame| Body::InputAck { ack_frame }),
            1 => (-2..40i32).prop_map(|ack_frame| Body::InputAck { ack_frame }),
            1 => any::<u32>().prop_map(|random_request| Body::SyncRequest { random_request }),
            3 => (-2..40i32, 0usize..12, prop::bool::weighted(0.2))
                .prop_map(|(start, frames, claim)| input(start, frames, claim)),
            1 => (-2..150i32, 0usize..140, any::<bool>())
                .prop_map(|(start, frames, claim)| input(start, frames, claim)),
            1 => any::<u128>().prop_map(|pong| Body::QualityReply { pong }),
            1 => (any::<i16>(), any::<u128>()).prop_map(|(frame_advantage, ping)| Body::QualityReport {
                frame_advantage,
                ping
            }),
        ]
    }

    /// Real datagrams, the same damaged, payloads of any bytes inside a real frame, and noise.
    fn datagram() -> impl Strategy<Value = Vec<u8>> {
        let real = prop_oneof![
            2 => (session(), control_msg()).prop_map(|(s, m)| wire::encode(Kind::Control, s, &m)),
            4 => (session(), ggrs_body()).prop_map(|(s, b)| ggrs(s, b)),
            1 => Just(old_hello()),
            1 => (any::<bool>(), proptest::collection::vec(any::<u8>(), 0..64))
                .prop_map(|(c, p)| { framed(if c { Kind::Control } else { Kind::Ggrs }, &p) }),
        ];
        prop_oneof![
            12 => real.clone(),
            2 => (real.clone(), any::<prop::sample::Index>(), any::<u8>()).prop_map(|(mut d, at, x)| {
                let i = at.index(d.len());
                d[i] ^= x.max(1);
                d
            }),
            1 => (real, any::<prop::sample::Index>()).prop_map(|(d, at)| d[..at.index(d.len())].to_vec()),
            1 => proptest::collection::vec(any::<u8>(), 0..40),
            1 => proptest::collection::vec(any::<u8>(), MAX_DATAGRAM - 2..MAX_DATAGRAM + 40),
        ]
    }

    fn sender() -> impl Strategy<Value = Sender> {
        prop_oneof![
            Just(Sender::Player { slots: 1 }),
            Just(Sender::Spectator),
            Just(Sender::Host),
        ]
    }

    fn op() -> impl Strategy<Value = Op> {
        prop_oneof![
            12 => (port(), datagram(), prop_oneof![8 => Just(1u8), 1 => 2u8..40])
                .prop_map(|(from, datagram, copies)| Op::Send { from, datagram, copies }),
            4 => any::<bool>().prop_map(|accept_strangers| Op::Pump { accept_strangers }),
            2 => port().prop_map(Op::AddPeer),
            1 => session().prop_map(Op::SetSession),
            1 => proptest::collection::vec((port(), sender()), 0..3).prop_map(Op::SetLimits),
            1 => prop_oneof![Just(0), -5..200i32, any::<i32>()].prop_map(Op::SetLocalFrame),
            1 => prop_oneof![
                Just(Refusing::UnderWay),
                any::<bool>().prop_map(|takes_spectators| Refusing::WhileSynchronizing { takes_spectators }),
            ].prop_map(Op::RefuseHellos),
            1 => port().prop_map(Op::AnswerHellos),
            1 => Just(Op::Forget),
            1 => Just(Op::TakeClaims),
        ]
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(256))]

        #[test]
        fn arbitrary_traffic_is_accounted_for_and_heard_only_from_whom_it_may(
            running in any::<bool>(),
            ops in proptest::collection::vec(op(), 1..60)
        ) {
            let mut n = if running { net().running() } else { net() };
            let (mut sent, mut discarded) = (0u64, 0u64);
            let (mut replies, mut reply_bytes) = (0u64, 0u64);
            let mut senders: Vec<(SocketAddr, Sender)> = Vec::new();
            // Every address that was a remote player since the link was last reset.
            let mut players: Vec<SocketAddr> = Vec::new();
            if running {
                senders.push((addr(2), Sender::Player { slots: 1 }));
                players.push(addr(2));
            }
            for op in ops {
                match op {
                    Op::Send { from, datagram, copies } => {
                        let at = match from { 2 => &mut n.peer, 3 => &mut n.stranger, _ => &mut n.net.endpoint(4) };
                        for _ in 0..copies {
                            at.send(&datagram, addr(1));
                        }
                        sent += u64::from(copies);
                    }
                    Op::Pump { accept_strangers } => {
                        let peers = n.link.borrow().peers().to_vec();
                        for (from, msg) in n.pump(accept_strangers) {
                            prop_assert!(peers.contains(&from));
                            prop_assert!(senders.iter().any(|(a, _)| *a == from));
                            // What GGRS is handed is a well-formed GGRS message (the mirror reads it back).
                            let _ = mirror(&msg);
                        }
                        for (from, _) in n.link.borrow_mut().take_control() {
                            prop_assert!(accept_strangers || peers.contains(&from), "{from}");
                        }
                    }
                    Op::AddPeer(p) => n.link.borrow_mut().add_peer(addr(p)),
                    Op::SetSession(s) => n.link.borrow_mut().set_session(s),
                    Op::SetLimits(s) => {
                        senders = s.into_iter().map(|(p, r)| (addr(p), r)).collect();
                        players.extend(senders.iter().filter(|(_, r)| matches!(r, Sender::Player { .. })).map(|(a, _)| *a));
                        n.link.borrow_mut().set_limits(limits(), senders.clone());
                    }
                    Op::SetLocalFrame(f) => n.link.borrow_mut().set_local_frame(f),
                    Op::RefuseHellos(r) => n.link.borrow_mut().refuse_hellos(info(Rules::default().block_hp), r),
                    Op::AnswerHellos(p) => n.link.borrow_mut().answer_hellos_with(
                        addr(p),
                        control(&Control::Finish { confirmed: u32::from(p) }),
                    ),
                    Op::Forget => {
                        discarded += n.link.borrow().early.len() as u64;
                        n.link.borrow_mut().forget_peers();
                        senders.clear();
                        players.clear();
                    }
                    Op::TakeClaims => {
                        for from in n.link.borrow_mut().take_disconnect_claims() {
                            prop_assert!(players.contains(&from), "{from}");
                        }
                    }
                }
                for p in 2..=4 {
                    for d in n.sent_to(p) {
                        prop_assert!(matches!(wire::open(&d), Ok((Kind::Control, ..))));
                        replies += 1;
                        reply_bytes += d.len() as u64;
                    }
                }
                let c = n.counters();
                let held = n.link.borrow().early.len() as u64;
                let waiting = n.net.waiting_for(addr(1)) as u64;
                prop_assert_eq!(
                    sent,
                    c.datagrams_received + c.dropped() + c.late_hellos_refused + held + discarded + waiting,
                    "{:?}", c
                );
                prop_assert!(held as usize <= MAX_EARLY);
                prop_assert_eq!((c.datagrams_sent, c.bytes_sent), (replies, reply_bytes));
            }
        }
    }
}
