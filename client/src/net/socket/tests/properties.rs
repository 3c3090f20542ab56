//! Arbitrary traffic from peers with and without channels and from strangers, genuine and
//! forged (random bytes after a valid sealed header, replays of real datagrams, datagrams
//! sealed under other keys or reflected back at the link), in every state of the link:
//! nothing panics, every datagram is accounted for exactly once, GGRS and the control inbox
//! hear only whom they may, no acknowledgement reaches GGRS for a frame not sent to its
//! sender, a peer is proven only by a datagram sealed under its keys, and the link answers
//! only with intact clear control datagrams or sealed GGRS messages, all counted.

use super::*;
use crate::net::seal::SEALED_KIND;
use proptest::prelude::*;

/// How the test makes a datagram when it is sent.
#[derive(Debug, Clone)]
enum Made {
    /// These bytes.
    Clear(Vec<u8>),
    /// `payload` sealed as `inner` under the keys `by` holds (a channel the link never had if
    /// `by` never connected).
    Sealed {
        by: u16,
        inner: Inner,
        payload: Vec<u8>,
    },
    /// A sealed header naming `by`'s channel (and its next counter, or any), then `tail`.
    Junk {
        by: u16,
        counter: Option<u64>,
        tail: Vec<u8>,
    },
    /// The chosen one of the sealed datagrams seen so far (sent by peers or by the link).
    Replay(prop::sample::Index),
}

#[derive(Debug, Clone)]
enum Damage {
    Intact,
    Flip(prop::sample::Index, u8),
    Truncate(prop::sample::Index),
}

#[derive(Debug, Clone)]
enum Op {
    /// `copies` times the same datagram.
    Send {
        from: u16,
        made: Made,
        damage: Damage,
        copies: u8,
    },
    /// `count` GGRS keep-alives, each sealed afresh under `by`'s keys, sent from `by`.
    Flood {
        by: u16,
        count: u8,
    },
    Pump {
        accept_strangers: bool,
    },
    AddPeer(u16),
    Connect(u16),
    DropPeer(u16),
    SetLimits(Vec<(u16, Sender)>),
    SetLocalFrame(i32),
    RefuseHellos(Refusing),
    AnswerHellos(u16),
    /// Lets `Rejoin`s from anyone into the inbox, or not.
    AcceptRejoins(bool),
    /// The link sends a GGRS message through GGRS's socket.
    SendGgrs {
        to: u16,
        body: Body,
    },
    Forget,
    TakeClaims,
    /// The link refuses the peer under its keys and forgets it, keeping the keys to say it
    /// again.
    TurnAway(u16),
}

fn port() -> impl Strategy<Value = u16> {
    prop_oneof![4 => Just(PEER), 1 => Just(STRANGER), 2 => Just(CLEAR_PEER)]
}

fn peer_info() -> impl Strategy<Value = PeerInfo> {
    let ours = info(Rules::default().block_hp);
    prop_oneof![
        3 => Just(ours),
        1 => (1u8..=20).prop_map(info),
        1 => (
            any::<u32>(),
            prop_oneof![Just("maze-duel".to_owned()), ".{0,80}"],
            ".{0,80}",
            any::<u32>(),
            any::<u64>(),
            proptest::collection::vec(any::<u8>(), 0..200)
        )
            .prop_map(
                |(protocol, game, game_version, state_format, rules_hash, rules)| {
                    let mut forged = info(Rules::default().block_hp);
                    forged.protocol = protocol;
                    forged.game = game;
                    forged.game_version = game_version;
                    forged.state_format = state_format;
                    forged.rules_hash = rules_hash;
                    forged.rules = rules;
                    forged
                }
            ),
    ]
}

fn control_msg() -> impl Strategy<Value = Control> {
    let role = prop_oneof![Just(Role::Player), Just(Role::Spectator)];
    prop_oneof![
        3 => (peer_info(), role, any::<bool>(), proptest::collection::vec(any::<u8>(), 0..64))
            .prop_map(|(info, role, invite, noise)| Control::Hello { info, role, invite, noise }),
        1 => any::<u32>().prop_map(|confirmed| Control::Finish { confirmed }),
        1 => Just(Control::Joined),
        1 => ".{0,40}".prop_map(|reason| Control::Reject { reason }),
        1 => proptest::collection::vec(any::<u8>(), 0..80).prop_map(|noise| Control::Answer { noise }),
        1 => (peer_info(), any::<u8>(), proptest::collection::vec(any::<u8>(), 0..64))
            .prop_map(|(info, slot, noise)| Control::Rejoin { info, slot, noise }),
        1 => (any::<u32>(), any::<u64>(), wire_inputs())
            .prop_map(|(through, hash, recent)| Control::Resume { through, hash, recent }),
        1 => (any::<u32>(), any::<u32>(), any::<u64>(), wire_inputs())
            .prop_map(|(epoch, tick, hash, gap)| Control::ResumeAt { epoch, tick, hash, gap }),
        1 => any::<(u32, u64)>().prop_map(|(tick, hash)| Control::Resync { tick, hash }),
        1 => (any::<u32>(), any::<u32>(), wire_inputs(), any::<(u32, u32, u64, u64)>())
            .prop_map(|(epoch, tick, gap, (t, len, checksum, hash))| Control::ResyncAt {
                epoch,
                tick,
                gap,
                snapshot: wire::SnapshotOffer { tick: t, len, checksum, hash },
            }),
        1 => (any::<u32>(), any::<u16>(), proptest::collection::vec(any::<u8>(), 0..64))
            .prop_map(|(tick, index, bytes)| Control::SnapshotChunk { tick, index, bytes }),
        1 => (any::<u32>(), proptest::collection::vec(any::<u16>(), 0..8))
            .prop_map(|(tick, missing)| Control::SnapshotNeed { tick, missing }),
        1 => (any::<u32>(), any::<(u32, u32, u64, u64)>())
            .prop_map(|(epoch, (tick, len, checksum, hash))| Control::CatchUp {
                epoch,
                snapshot: wire::SnapshotOffer { tick, len, checksum, hash },
            }),
        1 => (any::<u32>(), wire_inputs(), any::<u64>())
            .prop_map(|(from, inputs, hash)| Control::Relay { from, inputs, hash }),
        1 => (any::<u32>(), any::<u32>())
            .prop_map(|(through, epoch)| Control::RelayAck { through, epoch }),
    ]
}

/// A run of the duel's inputs, or of bytes that are no game's inputs.
fn wire_inputs() -> impl Strategy<Value = wire::InputRun> {
    let inputs = proptest::collection::vec(any::<[u8; 5]>(), 0..12).prop_map(|raw| {
        let inputs: Vec<engine::WireInput> = (raw.into_iter())
            .map(|b| engine::WireInput {
                buttons: b[0],
                move_x: b[1] as i8,
                move_y: b[2] as i8,
                view_ticks: b[3],
                view_frac: b[4],
            })
            .collect();
        wire::InputRun::encode(&inputs)
    });
    let bytes =
        proptest::collection::vec(any::<u8>(), 0..40).prop_map(|b| wire::InputRun::encode(&b));
    prop_oneof![3 => inputs, 1 => bytes]
}

fn ggrs_body() -> impl Strategy<Value = Body> {
    prop_oneof![
        1 => Just(Body::KeepAlive),
        1 => any::<i32>().prop_map(|ack_frame| Body::InputAck { ack_frame }),
        2 => (-2..40i32).prop_map(|ack_frame| Body::InputAck { ack_frame }),
        1 => any::<u32>().prop_map(|random_request| Body::SyncRequest { random_request }),
        3 => (-2..40i32, 0usize..12, -2..40i32, prop::bool::weighted(0.2))
            .prop_map(|(start, frames, ack, claim)| input(start, frames, ack, claim)),
        1 => (-2..150i32, 0usize..140, any::<i32>(), any::<bool>())
            .prop_map(|(start, frames, ack, claim)| input(start, frames, ack, claim)),
        1 => any::<u128>().prop_map(|pong| Body::QualityReply { pong }),
        1 => (any::<i16>(), any::<u128>()).prop_map(|(frame_advantage, ping)| Body::QualityReport {
            frame_advantage,
            ping
        }),
    ]
}

/// What a link sends GGRS peers: inputs mostly, so that acknowledgements can pass.
fn outgoing_body() -> impl Strategy<Value = Body> {
    prop_oneof![
        4 => (0..40i32, 1usize..12).prop_map(|(start, frames)| input(start, frames, -1, false)),
        1 => Just(Body::KeepAlive),
        1 => (-1..40i32).prop_map(|ack_frame| Body::InputAck { ack_frame }),
    ]
}

/// Clear datagrams: real ones, payloads of any bytes inside a real frame, and noise.
fn clear_datagram() -> impl Strategy<Value = Vec<u8>> {
    prop_oneof![
        4 => control_msg().prop_map(|m| clear(&m)),
        2 => ggrs_body().prop_map(|b| clear_frame(2, &ggrs_payload(b))),
        1 => Just(old_hello()),
        1 => (prop_oneof![Just(1u8), Just(2), Just(SEALED_KIND), any::<u8>()],
              proptest::collection::vec(any::<u8>(), 0..64))
            .prop_map(|(kind, p)| clear_frame(kind, &p)),
        1 => proptest::collection::vec(any::<u8>(), 0..40),
        1 => proptest::collection::vec(any::<u8>(), MAX_DATAGRAM - 2..MAX_DATAGRAM + 40),
    ]
}

fn sealed_payload() -> impl Strategy<Value = (Inner, Vec<u8>)> {
    prop_oneof![
        6 => ggrs_body().prop_map(|b| (Inner::Ggrs, ggrs_payload(b))),
        3 => control_msg().prop_map(|m| (Inner::Control, wire::encode_payload(&m))),
        1 => (any::<bool>(), proptest::collection::vec(any::<u8>(), 0..64)).prop_map(|(g, p)| {
            (if g { Inner::Ggrs } else { Inner::Control }, p)
        }),
    ]
}

fn made() -> impl Strategy<Value = Made> {
    let by = prop_oneof![4 => Just(PEER), 2 => Just(CLEAR_PEER), 1 => Just(STRANGER)];
    prop_oneof![
        4 => clear_datagram().prop_map(Made::Clear),
        8 => (by.clone(), sealed_payload())
            .prop_map(|(by, (inner, payload))| Made::Sealed { by, inner, payload }),
        2 => (by, any::<Option<u64>>(), proptest::collection::vec(any::<u8>(), 0..120))
            .prop_map(|(by, counter, tail)| Made::Junk { by, counter, tail }),
        3 => any::<prop::sample::Index>().prop_map(Made::Replay),
    ]
}

fn damage() -> impl Strategy<Value = Damage> {
    prop_oneof![
        10 => Just(Damage::Intact),
        1 => (any::<prop::sample::Index>(), 1u8..).prop_map(|(at, x)| Damage::Flip(at, x)),
        1 => any::<prop::sample::Index>().prop_map(Damage::Truncate),
    ]
}

fn sender() -> impl Strategy<Value = Sender> {
    prop_oneof![
        3 => Just(Sender::Player { slots: 1 }),
        1 => Just(Sender::Spectator),
        1 => Just(Sender::Host),
    ]
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        14 => (port(), made(), damage(), prop_oneof![8 => Just(1u8), 1 => 2u8..40])
            .prop_map(|(from, made, damage, copies)| Op::Send { from, made, damage, copies }),
        1 => (port(), 10u8..40).prop_map(|(by, count)| Op::Flood { by, count }),
        5 => any::<bool>().prop_map(|accept_strangers| Op::Pump { accept_strangers }),
        1 => port().prop_map(Op::AddPeer),
        2 => port().prop_map(Op::Connect),
        1 => port().prop_map(Op::DropPeer),
        2 => proptest::collection::vec((port(), sender()), 0..3).prop_map(Op::SetLimits),
        1 => prop_oneof![Just(0), -5..200i32, any::<i32>()].prop_map(Op::SetLocalFrame),
        1 => prop_oneof![
            Just(Refusing::UnderWay),
            any::<bool>().prop_map(|takes_spectators| Refusing::WhileSynchronizing { takes_spectators }),
        ].prop_map(Op::RefuseHellos),
        1 => port().prop_map(Op::AnswerHellos),
        1 => any::<bool>().prop_map(Op::AcceptRejoins),
        3 => (port(), outgoing_body()).prop_map(|(to, body)| Op::SendGgrs { to, body }),
        1 => Just(Op::Forget),
        1 => Just(Op::TakeClaims),
        1 => port().prop_map(Op::TurnAway),
    ]
}

/// A sealed datagram seen on the wire: whose keys sealed it (`None`: the link's, towards a
/// peer), and in which generation of that peer's keys.
struct Seen {
    bytes: Vec<u8>,
    by: Option<u16>,
    generation: u32,
}

/// What the test knows of the link's state, to say what it may do.
#[derive(Default)]
struct Model {
    /// Ports the link holds a channel with, and the generation of its keys.
    linked: BTreeMap<u16, u32>,
    /// Generation of the keys each port holds (bumped at every connect).
    generation: BTreeMap<u16, u32>,
    /// Ports that sent from their own address a datagram sealed under the keys the link holds.
    may_prove: BTreeMap<u16, bool>,
    /// Addresses each peer may be heard from now: its own, and any it sent a datagram sealed
    /// under the link's keys from once proven (it may have moved there).
    paths: BTreeMap<u16, Vec<u16>>,
    /// Whether the link lets `Rejoin`s in.
    accept_rejoins: bool,
    /// The highest input frame the link sent each port under its current keys.
    sent_through: BTreeMap<u16, i32>,
    senders: Vec<(SocketAddr, Sender)>,
    /// Every address that was a remote player since the link was last reset.
    players: Vec<SocketAddr>,
    seen: Vec<Seen>,
    /// Datagrams sent to the link, and those it threw away unread (held ones it forgot).
    sent: u64,
    discarded: u64,
    /// Clear control datagrams the link sent, and sealed GGRS ones.
    replies: u64,
    sealed_sent: u64,
    bytes_out: u64,
    /// Peers turned away, oldest first.
    turned: Vec<Turned>,
    /// Intact sealed datagrams sent since the last pump: `(from, by, generation, bytes)`.
    in_flight: Vec<(u16, u16, u32, Vec<u8>)>,
}

/// A peer turned away, and how many refusals it may yet hear again: one for each distinct
/// intact datagram it sealed under the keys it was turned away with and sent from its path.
#[derive(Debug)]
struct Turned {
    path: u16,
    port: u16,
    generation: u32,
    id: u32,
    allowance: u64,
    credited: Vec<Vec<u8>>,
}

impl Turned {
    fn credit(&mut self, from: u16, by: u16, generation: u32, bytes: &[u8]) {
        let ours = (from, by, generation) == (self.path, self.port, self.generation);
        if ours && !self.credited.iter().any(|c| c == bytes) {
            self.credited.push(bytes.to_vec());
            self.allowance += 1;
        }
    }
}

/// The refusal [`Op::TurnAway`] says, as sealed.
fn refusal() -> (Inner, Vec<u8>) {
    let reject = Control::Reject {
        reason: "taken".into(),
    };
    (Inner::Control, wire::encode_payload(&reject))
}

impl Model {
    /// Notes an intact datagram sealed by `by` under keys of `generation`, sent from `from`:
    /// from one of its paths it may prove the peer; from elsewhere, once the peer is proven,
    /// it may move the peer there.
    fn heard(&mut self, from: u16, by: Option<u16>, generation: u32) {
        let Some(by) = by else { return };
        if self.linked.get(&by) != Some(&generation) {
            return;
        }
        let paths = self.paths.entry(by).or_insert_with(|| vec![by]);
        if paths.contains(&from) {
            self.may_prove.insert(by, true);
        } else if self.may_prove.get(&by) == Some(&true) {
            paths.push(from);
        }
    }

    /// Notes an intact datagram sealed by `by` under keys of `generation` and sent from `from`,
    /// which a peer turned away under those keys may be answered for.
    fn sent_sealed(&mut self, from: u16, by: u16, generation: u32, bytes: &[u8]) {
        for t in &mut self.turned {
            t.credit(from, by, generation, bytes);
        }
        self.in_flight.push((from, by, generation, bytes.to_vec()));
    }

    /// A fresh channel with `p` (or none): heard from its own address only.
    fn reset_path(&mut self, p: u16) {
        self.paths.insert(p, vec![p]);
    }
}

/// A channel the link never holds, for peers that never connected.
fn foreign() -> Channel {
    pair().1
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(1024))]

    #[test]
    fn arbitrary_traffic_is_accounted_for_and_heard_only_from_whom_it_may(
        start in 0..3u8,
        ops in proptest::collection::vec(op(), 1..60)
    ) {
        let mut n = match start { 0 => net(), 1 => connected(), _ => running() };
        let mut m = Model::default();
        let mut stranger_keys = foreign();
        if start > 0 {
            m.linked.insert(PEER, 0);
            m.generation.insert(PEER, 0);
        }
        if start == 2 {
            m.senders.push((addr(PEER), Sender::Player { slots: 1 }));
            m.players.push(addr(PEER));
        }
        for op in ops {
            match op {
                Op::Send { from, made, damage, copies } => {
                    let (mut bytes, by, generation) = match made {
                        Made::Clear(bytes) => (bytes, None, 0),
                        Made::Sealed { by, inner, payload } => {
                            let generation = m.generation.get(&by).copied().unwrap_or(0);
                            let keys = n.keys.get_mut(&by).unwrap_or(&mut stranger_keys);
                            let bytes = keys.seal(inner, &payload).expect("seal");
                            m.seen.push(Seen { bytes: bytes.clone(), by: Some(by), generation });
                            (bytes, Some(by), generation)
                        }
                        Made::Junk { by, counter, tail } => {
                            let keys = n.keys.get(&by).unwrap_or(&stranger_keys);
                            let mut d = wire::MAGIC.to_vec();
                            d.push(SEALED_KIND);
                            d.extend_from_slice(&keys.id().to_le_bytes());
                            d.extend_from_slice(&counter.unwrap_or(keys.sent()).to_le_bytes());
                            d.extend_from_slice(&tail);
                            (d, None, 0)
                        }
                        Made::Replay(i) if !m.seen.is_empty() => {
                            let s = &m.seen[i.index(m.seen.len())];
                            (s.bytes.clone(), s.by, s.generation)
                        }
                        Made::Replay(_) => (vec![0; 3], None, 0),
                    };
                    let intact = match damage {
                        Damage::Intact => true,
                        Damage::Flip(at, x) => {
                            let i = at.index(bytes.len().max(1)).min(bytes.len().saturating_sub(1));
                            if let Some(b) = bytes.get_mut(i) {
                                *b ^= x;
                            }
                            false
                        }
                        Damage::Truncate(at) => {
                            bytes.truncate(at.index(bytes.len().max(1)));
                            false
                        }
                    };
                    if intact {
                        m.heard(from, by, generation);
                        if let Some(by) = by {
                            m.sent_sealed(from, by, generation, &bytes);
                        }
                    }
                    let at = &mut n.net.endpoint(from);
                    for _ in 0..copies {
                        at.send(&bytes, addr(LINK));
                    }
                    m.sent += u64::from(copies);
                }
                Op::Flood { by, count } => {
                    for _ in 0..count {
                        let keys = n.keys.get_mut(&by).unwrap_or(&mut stranger_keys);
                        let d = keys.seal(Inner::Ggrs, &ggrs_payload(Body::KeepAlive)).expect("seal");
                        n.send(by, &d);
                        if n.keys.contains_key(&by) {
                            let generation = m.generation.get(&by).copied().unwrap_or(0);
                            m.sent_sealed(by, by, generation, &d);
                        }
                    }
                    if n.keys.contains_key(&by) && count > 0 {
                        let generation = m.generation.get(&by).copied().unwrap_or(0);
                        m.heard(by, Some(by), generation);
                    }
                    m.sent += u64::from(count);
                }
                Op::Pump { accept_strangers } => {
                    let peers = n.link.borrow().peers().to_vec();
                    let pumped = n.pump(accept_strangers);
                    m.in_flight.clear();
                    for (from, msg) in pumped {
                        let port = from.port();
                        prop_assert!(peers.contains(&from), "{from}");
                        prop_assert!(m.senders.iter().any(|(a, _)| *a == from), "{from}");
                        prop_assert!(m.linked.contains_key(&port), "{from} has no channel");
                        prop_assert_eq!(m.may_prove.get(&port), Some(&true), "unproven {}", from);
                        // What GGRS is handed is a well-formed GGRS message that acknowledges
                        // nothing never sent to its sender.
                        let body = mirror(&msg).body;
                        let sent = m.sent_through.get(&port).copied().unwrap_or(-1);
                        match &body {
                            Body::InputAck { ack_frame } => prop_assert!(*ack_frame <= sent, "{body:?} sent {sent}"),
                            Body::Input(i) => prop_assert!(i.ack_frame <= sent, "{body:?} sent {sent}"),
                            _ => {}
                        }
                        if let Some(last) = crate::net::ggrs_message::last_input_frame(&wire::encode_payload(&msg)) {
                            prop_assert!(n.link.borrow().heard_through(from) >= last);
                        }
                    }
                    for (from, msg) in n.inbox() {
                        let port = from.port();
                        let rejoin = matches!(msg, Control::Rejoin { .. });
                        prop_assert!(accept_strangers || peers.contains(&from) || rejoin, "{from}");
                        match msg {
                            Control::Finish { .. } | Control::Joined | Control::Resume { .. } | Control::ResumeAt { .. }
                            | Control::Resync { .. } | Control::ResyncAt { .. } | Control::SnapshotChunk { .. }
                            | Control::SnapshotNeed { .. } | Control::CatchUp { .. } | Control::Relay { .. }
                            | Control::RelayAck { .. } => {
                                prop_assert!(m.linked.contains_key(&port), "clear {msg:?} from {from}");
                                prop_assert_eq!(m.may_prove.get(&port), Some(&true));
                            }
                            // Sealed from a peer with a channel (a host turning away a joiner
                            // whose slot went to another), or clear from one without.
                            Control::Reject { .. } if m.linked.contains_key(&port) => {
                                prop_assert_eq!(m.may_prove.get(&port), Some(&true));
                            }
                            Control::Answer { .. } | Control::Reject { .. } => {
                                prop_assert!(peers.contains(&from) && !m.linked.contains_key(&port));
                            }
                            Control::Hello { .. } => {}
                            // Only a link that takes rejoins lets one in (clear, from anyone).
                            Control::Rejoin { .. } => prop_assert!(m.accept_rejoins, "a Rejoin from {from}"),
                        }
                    }
                }
                Op::AddPeer(p) => n.link.borrow_mut().add_peer(addr(p)),
                Op::Connect(p) => {
                    m.discarded += n.link.borrow().early.iter().filter(|e| e.0 == addr(p)).count() as u64;
                    n.connect(p);
                    // The address holds a channel again: no refusal is said from there.
                    m.turned.retain(|t| t.path != p);
                    let generation = m.generation.entry(p).or_insert(0);
                    *generation += 1;
                    m.linked.insert(p, *generation);
                    m.may_prove.insert(p, false);
                    m.sent_through.insert(p, -1);
                    m.reset_path(p);
                }
                Op::DropPeer(p) => {
                    m.discarded += n.link.borrow().early.iter().filter(|e| e.0 == addr(p)).count() as u64;
                    n.link.borrow_mut().drop_peer(addr(p));
                    m.linked.remove(&p);
                    m.may_prove.insert(p, false);
                    m.sent_through.insert(p, -1);
                    m.reset_path(p);
                }
                Op::SetLimits(s) => {
                    m.senders = s.into_iter().map(|(p, r)| (addr(p), r)).collect();
                    m.players.extend(m.senders.iter().filter(|(_, r)| matches!(r, Sender::Player { .. })).map(|(a, _)| *a));
                    n.link.borrow_mut().set_limits(limits(), m.senders.clone());
                }
                Op::SetLocalFrame(f) => n.link.borrow_mut().set_local_frame(f),
                Op::RefuseHellos(r) => n.link.borrow_mut().refuse_hellos(info(Rules::default().block_hp), r),
                Op::AcceptRejoins(accept) => {
                    m.accept_rejoins = accept;
                    n.link.borrow_mut().accept_rejoins(accept);
                }
                Op::AnswerHellos(p) => n.link.borrow_mut().answer_hellos_with(
                    addr(p),
                    clear(&Control::Finish { confirmed: u32::from(p) }),
                ),
                Op::SendGgrs { to, body } => {
                    let last = crate::net::ggrs_message::last_input_frame(&ggrs_message_bytes(body.clone()));
                    n.send_ggrs(to, body.clone());
                    // A peer that moved is sent to where it is heard from now, and nowhere
                    // it was never heard from.
                    let path = n.link.borrow().path(addr(to)).map_or(to, |a| a.port());
                    let paths = m.paths.get(&to).cloned().unwrap_or_else(|| vec![to]);
                    prop_assert!(paths.contains(&path), "{} moved to {}, never heard there", to, path);
                    let sent = n.sent_to(path);
                    if let Some(&generation) = m.linked.get(&to) {
                        prop_assert_eq!(sent.len(), 1);
                        let opened = n.keys.get_mut(&to).expect("keys").open(&sent[0]);
                        prop_assert_eq!(opened, Ok((Inner::Ggrs, ggrs_payload(body))));
                        if let Some(last) = last {
                            let through = m.sent_through.entry(to).or_insert(-1);
                            *through = (*through).max(last);
                        }
                        m.sealed_sent += 1;
                        m.bytes_out += sent[0].len() as u64;
                        m.seen.push(Seen { bytes: sent[0].clone(), by: None, generation });
                    } else {
                        prop_assert!(sent.is_empty(), "GGRS sent to {to} without keys");
                    }
                }
                Op::Forget => {
                    m.discarded += n.held() as u64;
                    n.link.borrow_mut().forget_peers();
                    m.senders.clear();
                    m.players.clear();
                    m.linked.clear();
                    m.may_prove.clear();
                    m.sent_through.clear();
                    m.paths.clear();
                }
                Op::TurnAway(p) => {
                    m.discarded += n.link.borrow().early.iter().filter(|e| e.0 == addr(p)).count() as u64;
                    let path = n.link.borrow().path(addr(p)).map(|a| a.port());
                    n.link.borrow_mut().turn_away(addr(p), "taken");
                    if let (Some(path), Some(&generation)) = (path, m.linked.get(&p)) {
                        let sent = n.sent_to(path);
                        prop_assert_eq!(sent.len(), 1, "one refusal to {}", path);
                        let keys = n.keys.get_mut(&p).expect("keys");
                        prop_assert_eq!(keys.open(&sent[0]), Ok(refusal()));
                        if m.turned.len() >= MAX_TURNED_AWAY {
                            m.turned.remove(0);
                        }
                        let mut turned = Turned { path, port: p, generation, id: keys.id(), allowance: 0, credited: Vec::new() };
                        for (from, by, generation, bytes) in &m.in_flight {
                            turned.credit(*from, *by, *generation, bytes);
                        }
                        m.turned.push(turned);
                        m.sealed_sent += 1;
                        m.bytes_out += sent[0].len() as u64;
                        m.seen.push(Seen { bytes: sent[0].clone(), by: None, generation });
                    }
                    m.linked.remove(&p);
                    m.may_prove.insert(p, false);
                    m.sent_through.insert(p, -1);
                    m.reset_path(p);
                }
                Op::TakeClaims => {
                    for from in n.link.borrow_mut().take_disconnect_claims() {
                        prop_assert!(m.players.contains(&from), "{from}");
                    }
                }
            }
            for p in [PEER, STRANGER, CLEAR_PEER] {
                for d in n.sent_to(p) {
                    m.bytes_out += d.len() as u64;
                    if clear_control(&d).is_some() {
                        m.replies += 1;
                        continue;
                    }
                    // Else only a refusal said again, to where a peer was turned away from,
                    // under that peer's keys.
                    let id = seal::sealed_id(&d);
                    let turned = m.turned.iter_mut().find(|t| t.path == p && Some(t.id) == id);
                    let Some(t) = turned else {
                        return Err(TestCaseError::fail(format!("not a clear control reply nor a refusal again: {d:?}")));
                    };
                    prop_assert!(t.allowance > 0, "a refusal again to {} for no datagram of its own", p);
                    t.allowance -= 1;
                    let (port, generation) = (t.port, t.generation);
                    if m.generation.get(&port) == Some(&generation) {
                        prop_assert_eq!(n.keys.get_mut(&port).expect("keys").open(&d), Ok(refusal()));
                    }
                    m.sealed_sent += 1;
                    m.seen.push(Seen { bytes: d, by: None, generation });
                }
                let link = n.link.borrow();
                prop_assert!(!link.proven(addr(p)) || m.may_prove.get(&p) == Some(&true), "{p} proven");
                prop_assert_eq!(link.channel_id(addr(p)).is_some(), m.linked.contains_key(&p));
                let held = link.early.iter().filter(|e| e.0 == addr(p)).count();
                prop_assert!(held <= MAX_EARLY_PER_PEER);
            }
            let c = n.counters();
            let held = n.held() as u64;
            let waiting = n.net.waiting_for(addr(LINK)) as u64;
            prop_assert_eq!(
                m.sent,
                c.datagrams_received + c.dropped() + c.late_hellos_refused + held + m.discarded + waiting,
                "{:?}", c
            );
            prop_assert!(held as usize <= MAX_EARLY);
            prop_assert_eq!((c.hellos_refused, c.hellos_rate_limited), (0, 0));
            prop_assert_eq!(
                (c.datagrams_sent, c.bytes_sent),
                (m.replies + m.sealed_sent, m.bytes_out)
            );
        }
    }
}
