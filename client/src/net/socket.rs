//! The socket GGRS talks through: our framing over any [`Transport`], with a list of known
//! peers, a sealed channel per peer, and counters for everything it sends, receives and drops.
//!
//! Before the handshake only clear handshake datagrams pass ([`crate::net::wire`]); after it, a peer
//! is heard only through its [`Channel`]: anything from it that does not open under its keys,
//! or opens a second time, is dropped and counted before GGRS could see it. Every GGRS message
//! that opens is then checked against the match's hard limits ([`crate::net::ggrs_message`]),
//! including that an acknowledgement names no frame we never sent that peer. GGRS datagrams
//! that arrive before the session is set up (the host's first sync request travels right
//! behind its answer) are held, a few per peer at most, and read once it is.

use crate::net::ggrs_message::{self, Limits, Refusal, Sender};
use crate::net::seal::{self, Channel, Inner, SealError};
use crate::net::transport::{Transport, MAX_DATAGRAM};
use crate::net::wire::{self, Control, Kind, PeerInfo, Role};
use ggrs::{Message, NonBlockingSocket};
use std::net::SocketAddr;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

/// What crossed (or was refused at) the socket.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct SocketCounters {
    /// Bytes handed to the transport (headers included).
    pub bytes_sent: u64,
    /// Bytes of the datagrams accepted (headers included; a held one's once it is read).
    pub bytes_received: u64,
    /// Datagrams sent.
    pub datagrams_sent: u64,
    /// Datagrams accepted: handed to GGRS or put in the control inbox.
    pub datagrams_received: u64,
    /// Datagrams from an address that is not a peer of this match.
    pub dropped_unknown_sender: u64,
    /// Datagrams that are not intact datagrams of ours (random bytes, truncated, corrupted).
    pub dropped_damaged: u64,
    /// Intact datagrams whose payload does not decode.
    pub dropped_undecodable: u64,
    /// Sealed datagrams of another channel id (a stale match on the same ports).
    pub dropped_wrong_session: u64,
    /// Datagrams from a peer that do not open under its keys (forged, changed, or clear where
    /// only sealed ones are taken), and handshake answers that do not open.
    pub dropped_unauthenticated: u64,
    /// Sealed datagrams opened before, or older than the replay window.
    pub dropped_replayed: u64,
    /// GGRS messages outside the match's limits (see [`crate::net::ggrs_message::check`]).
    pub dropped_invalid: u64,
    /// GGRS messages from a remote player declaring a player disconnected; each ends the match
    /// as a disconnect instead of reaching GGRS.
    pub disconnect_claims: u64,
    /// GGRS datagrams that arrived before the session was set up, beyond the few held.
    pub dropped_early: u64,
    /// `Hello`s answered with a `Reject` once the match was under way.
    pub late_hellos_refused: u64,
    /// `Hello`s refused during the handshake (other code, build or rules, or no slot).
    pub hellos_refused: u64,
    /// `Hello`s dropped unanswered because the host's handshake budget was spent (a flood).
    pub hellos_rate_limited: u64,
    /// Times a peer was heard from a new address (its NAT mapped a new port, or it moved
    /// networks): a datagram that opened under its keys, newer than any before. What goes to
    /// the peer goes there from then on.
    pub path_changes: u64,
    /// Sealed GGRS datagrams of another epoch than the link's (a session before a rejoin or
    /// a resync, still in flight).
    pub dropped_other_epoch: u64,
}

impl SocketCounters {
    /// Every datagram refused, whatever the reason.
    #[must_use]
    pub fn dropped(&self) -> u64 {
        self.dropped_unknown_sender
            + self.dropped_damaged
            + self.dropped_undecodable
            + self.dropped_wrong_session
            + self.dropped_unauthenticated
            + self.dropped_replayed
            + self.dropped_other_epoch
            + self.dropped_invalid
            + self.disconnect_claims
            + self.dropped_early
    }
}

/// One peer's keys and what was exchanged with it.
#[derive(Debug)]
struct PeerChannel {
    /// The peer as GGRS and the session know it: its address at the handshake.
    addr: SocketAddr,
    /// Where it is heard from now, and where what goes to it is sent (moves when the peer's
    /// newest authentic datagram comes from elsewhere).
    path: SocketAddr,
    channel: Channel,
    /// Whether a sealed datagram from it has opened (it holds the keys).
    proven: bool,
    /// The highest frame of input sent to it (−1: none): it may acknowledge no later one.
    sent_through: i32,
    /// The highest frame of input received from it (−1: none).
    heard_through: i32,
}

/// The transport and the state shared by the handshake, the GGRS socket and the peer loop.
pub struct Link {
    transport: Box<dyn Transport>,
    peers: Vec<SocketAddr>,
    channels: Vec<PeerChannel>,
    counters: SocketCounters,
    control: Vec<(SocketAddr, Control)>,
    /// Control datagrams to repeat to a peer whenever it sends a `Hello` again (the host's
    /// answer, in case the first one was lost).
    answers: Vec<(SocketAddr, Vec<u8>)>,
    buf: Vec<u8>,
    /// What GGRS messages must respect, and who may send which; `None` until the session starts.
    policy: Option<Policy>,
    /// The local session's current frame (remote players may run only so far ahead of it).
    local_frame: i32,
    /// Opened GGRS payloads from peers that arrived before the policy was set, with the length
    /// of the datagram each came in (counted as received once read).
    early: Vec<(SocketAddr, Vec<u8>, usize)>,
    /// The match's epoch: every sealed GGRS datagram names the epoch it was sent in, and one
    /// of another epoch is dropped (GGRS sessions of two epochs number their frames apart).
    epoch: u32,
    /// Peers that declared a player disconnected, not yet taken.
    claims: Vec<SocketAddr>,
    /// Once every slot is taken: this side's info, to answer a stranger's `Hello` with a
    /// `Reject`, and whether the match is already under way.
    refuse_hellos: Option<(PeerInfo, Refusing)>,
    /// Whether a `Rejoin` from any address reaches the control inbox (a player of a running
    /// match, whose peer may come back from a new process).
    accept_rejoins: bool,
    /// Whether a spectator's `Hello` from any address reaches the control inbox (a host of a
    /// running match that takes late spectators).
    accept_late_spectators: bool,
    /// Welcomed peers turned away since (their slot went to another), oldest first, with the
    /// keys they hold: each sealed datagram of theirs is answered with their refusal again,
    /// so one that missed it (lost, or arrived before its `Answer` was read) asks again
    /// instead of waiting out its timeout.
    turned_away: Vec<TurnedAway>,
}

/// A peer turned away ([`Link::turn_away`]): where it was heard from, its keys, and the
/// sealed payload of its refusal.
#[derive(Debug)]
struct TurnedAway {
    path: SocketAddr,
    channel: Channel,
    refusal: Vec<u8>,
}

/// Turned-away peers whose refusal is repeated; an older one is forgotten.
pub const MAX_TURNED_AWAY: usize = 16;

/// Which strangers' `Hello`s a host answers with a `Reject` once its slots are taken.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Refusing {
    /// GGRS is synchronizing with the welcomed peers; one may yet vanish and free its slot, so
    /// only a `Hello` that could never be accepted is refused: another build or other rules,
    /// or a spectator when the host takes none. Others are left unanswered and keep asking.
    WhileSynchronizing {
        /// Whether the host takes any spectators at all.
        takes_spectators: bool,
    },
    /// The match is under way: every `Hello` is refused.
    UnderWay,
}

/// The limits GGRS messages are checked against, and the role of each peer.
#[derive(Debug, Clone)]
struct Policy {
    limits: Limits,
    senders: Vec<(SocketAddr, Sender)>,
}

/// GGRS datagrams held per peer while the session is being set up.
const MAX_EARLY_PER_PEER: usize = 16;
/// GGRS datagrams held in all while the session is being set up.
const MAX_EARLY: usize = 32;

impl std::fmt::Debug for Link {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Link")
            .field("local", &self.transport.local_addr())
            .field("peers", &self.peers)
            .field("counters", &self.counters)
            .finish_non_exhaustive()
    }
}

/// A shared handle to a [`Link`]; the GGRS session owns one, the peer loop another.
///
/// It is `Send` (a mutex, not a `RefCell`), so a peer can be polled from any thread, not only
/// the window's; the two owners take turns on one thread in practice, so the lock is never
/// contended. A panic while the link is held leaves it usable (the lock is not poisoned for
/// the other owner: every method leaves the link consistent between datagrams).
#[derive(Clone)]
pub struct SharedLink(Arc<Mutex<Link>>);

impl SharedLink {
    /// The link, for reading.
    pub fn borrow(&self) -> MutexGuard<'_, Link> {
        self.0.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// The link, for changing.
    pub fn borrow_mut(&self) -> MutexGuard<'_, Link> {
        self.borrow()
    }
}

impl std::fmt::Debug for SharedLink {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.borrow().fmt(f)
    }
}

impl Link {
    /// A link over `transport`, with no peers yet (handshake only).
    // A link is only ever used shared (the GGRS session and the peer loop both hold it).
    #[allow(clippy::new_ret_no_self)]
    pub fn new(transport: impl Transport + 'static) -> SharedLink {
        SharedLink(Arc::new(Mutex::new(Link {
            transport: Box::new(transport),
            peers: Vec::new(),
            channels: Vec::new(),
            counters: SocketCounters::default(),
            control: Vec::new(),
            answers: Vec::new(),
            buf: vec![0; MAX_DATAGRAM],
            policy: None,
            local_frame: 0,
            early: Vec::new(),
            epoch: 1,
            claims: Vec::new(),
            refuse_hellos: None,
            accept_rejoins: false,
            accept_late_spectators: false,
            turned_away: Vec::new(),
        })))
    }

    /// The address datagrams arrive on.
    #[must_use]
    pub fn local_addr(&self) -> SocketAddr {
        self.transport.local_addr()
    }

    /// Whether the transport is plain UDP ([`Transport::is_plain_udp`]).
    #[must_use]
    pub fn is_plain_udp(&self) -> bool {
        self.transport.is_plain_udp()
    }

    /// Accepts (clear handshake) datagrams from `peer` from now on.
    pub fn add_peer(&mut self, peer: SocketAddr) {
        if !self.peers.contains(&peer) {
            self.peers.push(peer);
        }
    }

    /// Hears `peer` through `channel` from now on, and only through it: GGRS datagrams held
    /// from it under keys it held before are dropped with those keys (a peer that started
    /// over must prove it holds the new ones), and what was sent to it counts no more.
    pub fn add_channel(&mut self, peer: SocketAddr, channel: Channel) {
        self.add_peer(peer);
        self.channels.retain(|c| c.addr != peer);
        self.turned_away.retain(|t| t.path != peer);
        self.early.retain(|(p, ..)| *p != peer);
        self.channels.push(PeerChannel {
            addr: peer,
            path: peer,
            channel,
            proven: false,
            sent_through: -1,
            heard_through: -1,
        });
    }

    /// Forgets one peer: its channel, its answer and what it sent early.
    pub fn drop_peer(&mut self, peer: SocketAddr) {
        self.peers.retain(|p| *p != peer);
        self.channels.retain(|c| c.addr != peer);
        self.answers.retain(|(p, _)| *p != peer);
        self.early.retain(|(p, ..)| *p != peer);
    }

    /// Refuses `peer` under its keys with `reason` and forgets it as a peer, but not its keys:
    /// every sealed datagram it sends from where it was heard is answered with this refusal
    /// again (a refusal is sent once; a peer that missed it would otherwise wait out its
    /// timeout). Kept past [`Link::forget_peers`], for the [`MAX_TURNED_AWAY`] latest, until
    /// the address gets a channel again.
    pub fn turn_away(&mut self, peer: SocketAddr, reason: &str) {
        let refusal = wire::encode_payload(&Control::Reject {
            reason: reason.to_owned(),
        });
        self.send_sealed(Inner::Control, &refusal, peer);
        if let Some(at) = self.channels.iter().position(|c| c.addr == peer) {
            let PeerChannel { path, channel, .. } = self.channels.remove(at);
            if self.turned_away.len() >= MAX_TURNED_AWAY {
                self.turned_away.remove(0);
            }
            self.turned_away.push(TurnedAway {
                path,
                channel,
                refusal,
            });
        }
        self.drop_peer(peer);
    }

    /// A sealed datagram from no peer: if it opens under the keys of a peer turned away from
    /// there, that peer hears its refusal again. Counted as from an unknown sender either way.
    fn refuse_turned_away(&mut self, from: SocketAddr, datagram: &[u8]) {
        self.counters.dropped_unknown_sender += 1;
        let id = seal::sealed_id(datagram);
        let Some(t) = self
            .turned_away
            .iter_mut()
            .find(|t| t.path == from && Some(t.channel.id()) == id)
        else {
            return;
        };
        if t.channel.open(datagram).is_err() {
            return;
        }
        if let Ok(bytes) = t.channel.seal(Inner::Control, &t.refusal) {
            self.send_raw(&bytes, from);
        }
    }

    /// The peers whose datagrams are accepted.
    #[must_use]
    pub fn peers(&self) -> &[SocketAddr] {
        &self.peers
    }

    /// The id of the channel with `peer`, if there is one.
    #[must_use]
    pub fn channel_id(&self, peer: SocketAddr) -> Option<u32> {
        self.channel(peer).map(|c| c.channel.id())
    }

    /// Whether a sealed datagram from `peer` has opened: it holds the keys of its channel.
    #[must_use]
    pub fn proven(&self, peer: SocketAddr) -> bool {
        self.channel(peer).is_some_and(|c| c.proven)
    }

    /// The highest frame of input received from `peer` (−1: none yet).
    #[must_use]
    pub fn heard_through(&self, peer: SocketAddr) -> i32 {
        self.channel(peer).map_or(-1, |c| c.heard_through)
    }

    fn channel(&self, peer: SocketAddr) -> Option<&PeerChannel> {
        self.channels.iter().find(|c| c.addr == peer)
    }

    /// Moves the link to `epoch` (a new GGRS session, frame 0 again): GGRS datagrams of any
    /// other epoch are dropped from now on, what was held early goes, and the frames sent to
    /// and heard from each peer start over.
    pub fn begin_epoch(&mut self, epoch: u32) {
        if epoch == self.epoch {
            return;
        }
        self.epoch = epoch;
        self.early.clear();
        for c in &mut self.channels {
            c.sent_through = -1;
            c.heard_through = -1;
        }
    }

    /// The epoch GGRS datagrams are sent in and taken from.
    #[must_use]
    pub fn epoch(&self) -> u32 {
        self.epoch
    }

    /// Starts passing GGRS messages on, checked against `limits`, each peer in `senders`
    /// speaking in its role. Datagrams held until now are read at the next [`Link::pump`].
    pub fn set_limits(&mut self, limits: Limits, senders: Vec<(SocketAddr, Sender)>) {
        self.policy = Some(Policy { limits, senders });
    }

    /// The local session's current frame; remote players may not run further ahead of it
    /// than [`Limits::max_lead`].
    pub fn set_local_frame(&mut self, frame: i32) {
        self.local_frame = frame;
    }

    /// Forgets every peer, channel, answer, limit and held datagram: back to the state of a
    /// fresh link (a host whose welcomed peers never synchronized starts over), but for the
    /// peers turned away, who still hear their refusal ([`Link::turn_away`]).
    pub fn forget_peers(&mut self) {
        self.peers.clear();
        self.channels.clear();
        self.answers.clear();
        self.policy = None;
        self.early.clear();
        self.claims.clear();
        self.control.clear();
        self.local_frame = 0;
        self.refuse_hellos = None;
    }

    /// From now on answers `Hello`s from addresses that are not peers with a `Reject` saying
    /// why (how its build or rules differ from `info`, or that the slots are full), as far as
    /// `refusing` says.
    pub fn refuse_hellos(&mut self, info: PeerInfo, refusing: Refusing) {
        self.refuse_hellos = Some((info, refusing));
    }

    /// Lets `Rejoin`s from any address through to the control inbox from now on (or not).
    pub fn accept_rejoins(&mut self, accept: bool) {
        self.accept_rejoins = accept;
    }

    /// Whether `Rejoin`s from any address reach the control inbox.
    #[cfg(test)]
    pub(crate) fn accepts_rejoins(&self) -> bool {
        self.accept_rejoins
    }

    /// Lets spectators' `Hello`s from any address through to the control inbox from now on
    /// (or not): the host of a running match welcomes them itself.
    pub fn accept_late_spectators(&mut self, accept: bool) {
        self.accept_late_spectators = accept;
    }

    /// Peers that declared a player disconnected since the last call.
    pub fn take_disconnect_claims(&mut self) -> Vec<SocketAddr> {
        std::mem::take(&mut self.claims)
    }

    /// Repeats `datagram` to `peer` whenever it says `Hello` again.
    pub fn answer_hellos_with(&mut self, peer: SocketAddr, datagram: Vec<u8>) {
        self.answers.retain(|(p, _)| *p != peer);
        self.answers.push((peer, datagram));
    }

    /// Counters so far.
    #[must_use]
    pub fn counters(&self) -> SocketCounters {
        self.counters
    }

    pub(crate) fn count_refused_hello(&mut self) {
        self.counters.hellos_refused += 1;
    }

    pub(crate) fn count_rate_limited(&mut self) {
        self.counters.hellos_rate_limited += 1;
    }

    /// A handshake answer taken as received that then did not open: counted as refused
    /// instead, so every datagram stays counted once.
    pub(crate) fn count_forged_answer(&mut self, len: usize) {
        self.counters.datagrams_received = self.counters.datagrams_received.saturating_sub(1);
        self.counters.bytes_received = self.counters.bytes_received.saturating_sub(len as u64);
        self.counters.dropped_unauthenticated += 1;
    }

    pub(crate) fn send_raw(&mut self, bytes: &[u8], to: SocketAddr) {
        self.counters.bytes_sent += bytes.len() as u64;
        self.counters.datagrams_sent += 1;
        self.transport.send(bytes, to);
    }

    /// Seals `payload` for `to` and sends it where `to` is heard from now; nothing is sent to
    /// a peer without a channel.
    fn send_sealed(&mut self, inner: Inner, payload: &[u8], to: SocketAddr) {
        let Some(c) = self.channels.iter_mut().find(|c| c.addr == to) else {
            return;
        };
        let path = c.path;
        if let Ok(bytes) = c.channel.seal(inner, payload) {
            self.send_raw(&bytes, path);
        }
    }

    /// Where `peer` (as known at the handshake) is heard from now.
    #[must_use]
    pub fn path(&self, peer: SocketAddr) -> Option<SocketAddr> {
        self.channel(peer).map(|c| c.path)
    }

    /// Sends a control message: sealed to a peer with a channel, in clear (the handshake's
    /// own messages) otherwise.
    pub fn send_control(&mut self, msg: &Control, to: SocketAddr) {
        if self.channel(to).is_some() && !matches!(msg, Control::Hello { .. }) {
            self.send_sealed(Inner::Control, &wire::encode_payload(msg), to);
        } else {
            let bytes = wire::encode(Kind::Control, 0, msg);
            self.send_raw(&bytes, to);
        }
    }

    /// Reads everything waiting: handshake messages go to the control inbox (from any sender
    /// while `accept_strangers`, else from peers only), sealed control messages from peers too;
    /// GGRS messages that open and pass the match's limits are returned.
    pub fn pump(&mut self, accept_strangers: bool) -> Vec<(SocketAddr, Message)> {
        let mut ggrs_messages = Vec::new();
        if self.policy.is_some() && !self.early.is_empty() {
            for (from, payload, len) in std::mem::take(&mut self.early) {
                self.take_ggrs(from, &payload, len, &mut ggrs_messages);
            }
        }
        let mut buf = std::mem::take(&mut self.buf);
        while let Some((len, from)) = self.transport.recv(&mut buf) {
            let datagram = &buf[..len];
            if seal::sealed_id(datagram).is_some() {
                self.take_sealed(from, datagram, &mut ggrs_messages);
            } else {
                self.take_clear(from, datagram, accept_strangers);
            }
        }
        self.buf = buf;
        ggrs_messages
    }

    /// A sealed datagram: opened under the sender's channel, or dropped and counted. One from
    /// an address no peer is heard from is tried under the channel its header names: a peer
    /// whose NAT mapped a new port. It moves there if the datagram opens and is the newest
    /// the peer ever sent (a stranger cannot seal one, and a replayed one is not the newest).
    fn take_sealed(
        &mut self,
        from: SocketAddr,
        datagram: &[u8],
        out: &mut Vec<(SocketAddr, Message)>,
    ) {
        let id = seal::sealed_id(datagram);
        let named = |c: &PeerChannel| Some(c.channel.id()) == id;
        let at = (self
            .channels
            .iter()
            .position(|c| c.path == from && named(c)))
        .or_else(|| self.channels.iter().position(|c| c.proven && named(c)))
        // Heard from a peer's address but under no channel of ours: refused under that
        // peer's channel, which says why (damaged, another session).
        .or_else(|| self.channels.iter().position(|c| c.path == from));
        let Some(c) = at.map(|i| &mut self.channels[i]) else {
            self.refuse_turned_away(from, datagram);
            return;
        };
        let moving = c.path != from;
        let newest = c.channel.is_newest(datagram);
        let (inner, payload) = match c.channel.open(datagram) {
            Ok(opened) => opened,
            // Its header names this channel, but it is cut short or overlong.
            Err(SealError::NotSealed) if seal::sealed_id(datagram) == Some(c.channel.id()) => {
                self.counters.dropped_damaged += 1;
                return;
            }
            Err(SealError::NotSealed) => {
                self.counters.dropped_wrong_session += 1;
                return;
            }
            Err(SealError::Replayed) => {
                self.counters.dropped_replayed += 1;
                return;
            }
            Err(_) => {
                self.counters.dropped_unauthenticated += 1;
                return;
            }
        };
        c.proven = true;
        if moving && newest {
            c.path = from;
            self.counters.path_changes += 1;
        }
        // From here on the peer is named as the session knows it.
        let from = c.addr;
        match inner {
            Inner::Control => match wire::decode::<Control>(&payload) {
                // A sealed `Reject` comes only from a host whose slot went to another peer.
                Ok(msg)
                    if msg.sealed_only()
                        || matches!(
                            msg,
                            Control::Finish { .. } | Control::Joined | Control::Reject { .. }
                        ) =>
                {
                    self.counters.bytes_received += datagram.len() as u64;
                    self.counters.datagrams_received += 1;
                    self.control.push((from, msg));
                }
                _ => self.counters.dropped_undecodable += 1,
            },
            Inner::Ggrs => {
                let Some((epoch, message)) = payload.split_first_chunk::<4>() else {
                    self.counters.dropped_undecodable += 1;
                    return;
                };
                if u32::from_le_bytes(*epoch) != self.epoch {
                    self.counters.dropped_other_epoch += 1;
                    return;
                }
                self.take_ggrs_of_epoch(from, message.to_vec(), datagram.len(), out);
            }
        }
    }

    /// A GGRS payload of this epoch: held until the session is set up, else checked and
    /// passed on.
    fn take_ggrs_of_epoch(
        &mut self,
        from: SocketAddr,
        payload: Vec<u8>,
        len: usize,
        out: &mut Vec<(SocketAddr, Message)>,
    ) {
        if self.policy.is_some() {
            self.take_ggrs(from, &payload, len, out);
            return;
        }
        let held = self.early.iter().filter(|(p, ..)| *p == from).count();
        if held < MAX_EARLY_PER_PEER && self.early.len() < MAX_EARLY {
            self.early.push((from, payload, len));
        } else {
            self.counters.dropped_early += 1;
        }
    }

    /// A clear datagram: only the handshake travels so.
    fn take_clear(&mut self, from: SocketAddr, datagram: &[u8], accept_strangers: bool) {
        let known = self.peers.contains(&from);
        let payload = match wire::open(datagram) {
            Ok((Kind::Control, _, payload)) => payload,
            Err(_) if !known && !accept_strangers => {
                self.counters.dropped_unknown_sender += 1;
                return;
            }
            Err(_) => {
                self.counters.dropped_damaged += 1;
                return;
            }
        };
        let msg = match wire::decode::<Control>(payload) {
            Ok(msg) => msg,
            Err(_) if known || accept_strangers || self.refuse_hellos.is_some() => {
                return self.refuse_other_protocol(from, payload)
            }
            Err(_) => {
                self.counters.dropped_unknown_sender += 1;
                return;
            }
        };
        match msg {
            // Only ever sealed: a clear one from a peer is forged (a stranger's is a stranger's).
            Control::Finish { .. } | Control::Joined if known => {
                self.counters.dropped_unauthenticated += 1;
            }
            Control::Hello { .. } if known || accept_strangers => {
                self.counters.bytes_received += datagram.len() as u64;
                self.counters.datagrams_received += 1;
                self.repeat_answer(from);
                self.control.push((from, msg));
            }
            Control::Hello {
                role: Role::Spectator,
                ..
            } if self.accept_late_spectators => {
                self.counters.bytes_received += datagram.len() as u64;
                self.counters.datagrams_received += 1;
                self.control.push((from, msg));
            }
            Control::Hello { info, role, .. } if self.refuse_hellos.is_some() => {
                self.refuse_late_hello(from, &info, role);
            }
            // A player back from a new process: its keys are proven by the handshake it starts.
            Control::Rejoin { .. } if self.accept_rejoins => {
                self.counters.bytes_received += datagram.len() as u64;
                self.counters.datagrams_received += 1;
                self.control.push((from, msg));
            }
            // Sealed only: a clear one is forged.
            ref sealed if known && sealed.sealed_only() => {
                self.counters.dropped_unauthenticated += 1;
            }
            // Handshake answers, for a joiner (the host is its peer); read by the handshake,
            // which opens the `Answer` or weighs the clear `Reject`.
            Control::Answer { .. } | Control::Reject { .. }
                if known && self.channel(from).is_none() =>
            {
                self.counters.bytes_received += datagram.len() as u64;
                self.counters.datagrams_received += 1;
                self.control.push((from, msg));
            }
            // A repeated answer once the keys are set, or answers from a stranger.
            _ => self.counters.dropped_unknown_sender += 1,
        }
    }

    /// Checks one opened GGRS payload from a peer (that came in a datagram of `len` bytes)
    /// and, if it passes, queues it for GGRS.
    fn take_ggrs(
        &mut self,
        from: SocketAddr,
        payload: &[u8],
        len: usize,
        out: &mut Vec<(SocketAddr, Message)>,
    ) {
        let Some(policy) = &self.policy else {
            return;
        };
        let Some(&(_, sender)) = policy.senders.iter().find(|(a, _)| *a == from) else {
            self.counters.dropped_unknown_sender += 1;
            return;
        };
        let Some(c) = self.channels.iter_mut().find(|c| c.addr == from) else {
            self.counters.dropped_unknown_sender += 1;
            return;
        };
        let now_ms = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_millis());
        let heard = ggrs_message::Heard {
            local_frame: self.local_frame,
            sent_through: c.sent_through,
            now_ms,
        };
        match ggrs_message::check(payload, sender, &heard, &policy.limits) {
            Ok(ggrs_message::Checked {
                message: msg,
                last_input,
            }) => {
                if let Some(last) = last_input {
                    c.heard_through = c.heard_through.max(last);
                }
                self.counters.datagrams_received += 1;
                self.counters.bytes_received += len as u64;
                out.push((from, msg));
            }
            Err(Refusal::Undecodable) => self.counters.dropped_undecodable += 1,
            Err(Refusal::DisconnectClaim { .. }) => {
                self.counters.disconnect_claims += 1;
                if !self.claims.contains(&from) {
                    self.claims.push(from);
                }
            }
            Err(_) => self.counters.dropped_invalid += 1,
        }
    }

    /// Sends a GGRS message to a peer, sealed, noting the last frame of input it carries.
    fn send_ggrs(&mut self, msg: &Message, to: SocketAddr) {
        // The epoch, then the message.
        let mut payload = self.epoch.to_le_bytes().to_vec();
        wire::encode_payload_into(msg, &mut payload);
        if let Some(last) = ggrs_message::last_input_frame(&payload[4..]) {
            if let Some(c) = self.channels.iter_mut().find(|c| c.addr == to) {
                c.sent_through = c.sent_through.max(last);
            }
        }
        self.send_sealed(Inner::Ggrs, &payload, to);
    }

    /// A control payload that does not decode: if it is a `Hello` of another protocol
    /// version, the sender is told both versions (it would otherwise wait for its timeout);
    /// anything else is dropped and counted.
    fn refuse_other_protocol(&mut self, from: SocketAddr, payload: &[u8]) {
        self.counters.dropped_undecodable += 1;
        if let Some(theirs) = wire::hello_protocol(payload) {
            let reason = format!(
                "protocol version {} vs {theirs}: the host runs another version of the game",
                wire::PROTOCOL_VERSION
            );
            let bytes = wire::encode(Kind::Control, 0, &Control::Reject { reason });
            self.send_raw(&bytes, from);
        }
    }

    /// Answers a `Hello` from a stranger while the match is under way.
    fn refuse_late_hello(&mut self, from: SocketAddr, theirs: &PeerInfo, role: Role) {
        let Some((ours, refusing)) = &self.refuse_hellos else {
            return;
        };
        let reason = match (ours.differences(theirs), role, *refusing) {
            (Some(diff), _, _) => {
                format!("peer {from} differs from host (host's value first): {diff}")
            }
            (None, Role::Player, Refusing::UnderWay) => {
                "the match is full (already under way)".to_string()
            }
            (None, Role::Spectator, Refusing::UnderWay) => {
                "spectator slots full: the match is already under way".to_string()
            }
            (
                None,
                Role::Spectator,
                Refusing::WhileSynchronizing {
                    takes_spectators: false,
                },
            ) => "spectator slots full: this host takes no spectators".to_string(),
            (None, _, Refusing::WhileSynchronizing { .. }) => {
                // A slot may yet free up: no answer, so the peer keeps asking.
                self.counters.dropped_unknown_sender += 1;
                return;
            }
        };
        self.counters.late_hellos_refused += 1;
        let bytes = wire::encode(Kind::Control, 0, &Control::Reject { reason });
        self.send_raw(&bytes, from);
    }

    fn repeat_answer(&mut self, to: SocketAddr) {
        if let Some(bytes) = self
            .answers
            .iter()
            .find(|(p, _)| *p == to)
            .map(|(_, b)| b.clone())
        {
            self.send_raw(&bytes, to);
        }
    }

    /// Takes the control messages received so far.
    pub fn take_control(&mut self) -> Vec<(SocketAddr, Control)> {
        std::mem::take(&mut self.control)
    }
}

/// The [`NonBlockingSocket`] handed to GGRS: a handle to the shared [`Link`].
#[derive(Debug, Clone)]
pub struct GameSocket {
    link: SharedLink,
}

impl GameSocket {
    /// A GGRS socket over `link`.
    #[must_use]
    pub fn new(link: SharedLink) -> GameSocket {
        GameSocket { link }
    }
}

impl NonBlockingSocket<SocketAddr> for GameSocket {
    fn send_to(&mut self, msg: &Message, addr: &SocketAddr) {
        self.link.borrow_mut().send_ggrs(msg, *addr);
    }

    fn receive_all_messages(&mut self) -> Vec<(SocketAddr, Message)> {
        self.link.borrow_mut().pump(false)
    }
}

#[cfg(test)]
mod tests;
