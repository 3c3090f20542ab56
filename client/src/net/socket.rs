//! The socket GGRS talks through: our framing over any [`Transport`], with a list of known
//! peers, a session id, and counters for everything it sends, receives and drops.
//!
//! Every GGRS message is checked against the match's hard limits ([`crate::ggrs_message`])
//! before GGRS sees it. GGRS datagrams that arrive before the session is set up (the host's
//! first sync request travels right behind its `Welcome`) are held, a few at most, and read
//! once it is.

use crate::ggrs_message::{self, Limits, Refusal, Sender};
use crate::transport::{Transport, MAX_DATAGRAM};
use crate::wire::{self, Control, Kind, PeerInfo, Role};
use ggrs::{Message, NonBlockingSocket};
use std::cell::RefCell;
use std::net::SocketAddr;
use std::rc::Rc;

/// What crossed (or was refused at) the socket.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct SocketCounters {
    /// Bytes handed to the transport (headers included).
    pub bytes_sent: u64,
    /// Bytes received from known peers (headers included).
    pub bytes_received: u64,
    /// Datagrams sent.
    pub datagrams_sent: u64,
    /// Datagrams accepted.
    pub datagrams_received: u64,
    /// Datagrams from an address that is not a peer of this match.
    pub dropped_unknown_sender: u64,
    /// Datagrams that are not intact datagrams of ours (random bytes, truncated, corrupted).
    pub dropped_damaged: u64,
    /// Intact datagrams whose payload does not decode.
    pub dropped_undecodable: u64,
    /// GGRS datagrams carrying another session id (a stale match).
    pub dropped_wrong_session: u64,
    /// GGRS messages outside the match's limits (see [`crate::ggrs_message::check`]).
    pub dropped_invalid: u64,
    /// GGRS messages from a remote player declaring a player disconnected; each ends the match
    /// as a disconnect instead of reaching GGRS.
    pub disconnect_claims: u64,
    /// GGRS datagrams that arrived before the session was set up, beyond the few held.
    pub dropped_early: u64,
    /// `Hello`s answered with a `Reject` once the match was under way.
    pub late_hellos_refused: u64,
}

impl SocketCounters {
    /// Every datagram refused, whatever the reason.
    #[must_use]
    pub fn dropped(&self) -> u64 {
        self.dropped_unknown_sender
            + self.dropped_damaged
            + self.dropped_undecodable
            + self.dropped_wrong_session
            + self.dropped_invalid
            + self.disconnect_claims
            + self.dropped_early
    }
}

/// The transport and the state shared by the handshake, the GGRS socket and the peer loop.
pub struct Link {
    transport: Box<dyn Transport>,
    session: u32,
    peers: Vec<SocketAddr>,
    counters: SocketCounters,
    control: Vec<(SocketAddr, Control)>,
    /// Control datagrams to repeat to a peer whenever it sends a `Hello` again (the host's
    /// `Welcome`, in case the first one was lost).
    answers: Vec<(SocketAddr, Vec<u8>)>,
    buf: Vec<u8>,
    /// What GGRS messages must respect, and who may send which; `None` until the session starts.
    policy: Option<Policy>,
    /// The local session's current frame (remote players may run only so far ahead of it).
    local_frame: i32,
    /// Intact GGRS datagrams from peers that arrived before the policy was set.
    early: Vec<(SocketAddr, Vec<u8>)>,
    /// Peers that declared a player disconnected, not yet taken.
    claims: Vec<SocketAddr>,
    /// Once every slot is taken: this side's info, to answer a stranger's `Hello` with a
    /// `Reject`, and whether the match is already under way.
    refuse_hellos: Option<(PeerInfo, Refusing)>,
}

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

/// GGRS datagrams held while the session is being set up.
const MAX_EARLY: usize = 32;

impl std::fmt::Debug for Link {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Link")
            .field("local", &self.transport.local_addr())
            .field("session", &self.session)
            .field("peers", &self.peers)
            .field("counters", &self.counters)
            .finish_non_exhaustive()
    }
}

/// A shared handle to a [`Link`]; the GGRS session owns one, the peer loop another.
pub type SharedLink = Rc<RefCell<Link>>;

impl Link {
    /// A link over `transport`, with no peers yet and session 0 (handshake only).
    pub fn new(transport: impl Transport + 'static) -> SharedLink {
        Rc::new(RefCell::new(Link {
            transport: Box::new(transport),
            session: 0,
            peers: Vec::new(),
            counters: SocketCounters::default(),
            control: Vec::new(),
            answers: Vec::new(),
            buf: vec![0; MAX_DATAGRAM],
            policy: None,
            local_frame: 0,
            early: Vec::new(),
            claims: Vec::new(),
            refuse_hellos: None,
        }))
    }

    /// The address datagrams arrive on.
    #[must_use]
    pub fn local_addr(&self) -> SocketAddr {
        self.transport.local_addr()
    }

    /// Accepts datagrams from `peer` from now on.
    pub fn add_peer(&mut self, peer: SocketAddr) {
        if !self.peers.contains(&peer) {
            self.peers.push(peer);
        }
    }

    /// The peers whose datagrams are accepted.
    #[must_use]
    pub fn peers(&self) -> &[SocketAddr] {
        &self.peers
    }

    /// Sets the session id GGRS datagrams carry.
    pub fn set_session(&mut self, session: u32) {
        self.session = session;
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

    /// Forgets every peer, answer, limit and held datagram, and the session id: back to the
    /// state of a fresh link (a host whose welcomed peers never synchronized starts over).
    pub fn forget_peers(&mut self) {
        self.peers.clear();
        self.answers.clear();
        self.policy = None;
        self.early.clear();
        self.claims.clear();
        self.control.clear();
        self.session = 0;
        self.local_frame = 0;
        self.refuse_hellos = None;
    }

    /// From now on answers `Hello`s from addresses that are not peers with a `Reject` saying
    /// why (how its build or rules differ from `info`, or that the slots are full), as far as
    /// `refusing` says.
    pub fn refuse_hellos(&mut self, info: PeerInfo, refusing: Refusing) {
        self.refuse_hellos = Some((info, refusing));
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

    fn send_raw(&mut self, bytes: &[u8], to: SocketAddr) {
        self.counters.bytes_sent += bytes.len() as u64;
        self.counters.datagrams_sent += 1;
        self.transport.send(bytes, to);
    }

    /// Sends a control message.
    pub fn send_control(&mut self, msg: &Control, to: SocketAddr) {
        let bytes = wire::encode(Kind::Control, self.session, msg);
        self.send_raw(&bytes, to);
    }

    /// Reads everything waiting: control messages go to the control inbox (from any sender
    /// while `accept_strangers`, else from peers only), GGRS messages that pass the match's
    /// limits are returned.
    pub fn pump(&mut self, accept_strangers: bool) -> Vec<(SocketAddr, Message)> {
        let mut ggrs_messages = Vec::new();
        if self.policy.is_some() && self.session != 0 {
            for (from, datagram) in std::mem::take(&mut self.early) {
                if let Ok((Kind::Ggrs, session, payload)) = wire::open(&datagram) {
                    self.take_ggrs(from, session, payload, datagram.len(), &mut ggrs_messages);
                }
            }
        }
        let mut buf = std::mem::take(&mut self.buf);
        while let Some((len, from)) = self.transport.recv(&mut buf) {
            let known = self.peers.contains(&from);
            let opened = wire::open(&buf[..len]);
            match opened {
                Err(_) if !known && !accept_strangers => self.counters.dropped_unknown_sender += 1,
                Err(_) => self.counters.dropped_damaged += 1,
                Ok((Kind::Control, _, payload)) if known || accept_strangers => {
                    match wire::decode::<Control>(payload) {
                        Ok(msg) => {
                            self.counters.bytes_received += len as u64;
                            self.counters.datagrams_received += 1;
                            if matches!(msg, Control::Hello { .. }) {
                                self.repeat_answer(from);
                            }
                            self.control.push((from, msg));
                        }
                        Err(_) => self.refuse_other_protocol(from, payload),
                    }
                }
                Ok((Kind::Control, _, payload)) if self.refuse_hellos.is_some() => {
                    match wire::decode::<Control>(payload) {
                        Ok(Control::Hello { info, role }) => {
                            self.refuse_late_hello(from, &info, role)
                        }
                        Err(_) if wire::hello_protocol(payload).is_some() => {
                            self.refuse_other_protocol(from, payload)
                        }
                        _ => self.counters.dropped_unknown_sender += 1,
                    }
                }
                Ok((Kind::Ggrs, _, _)) if known && (self.policy.is_none() || self.session == 0) => {
                    if self.early.len() < MAX_EARLY {
                        self.early.push((from, buf[..len].to_vec()));
                    } else {
                        self.counters.dropped_early += 1;
                    }
                }
                Ok((Kind::Ggrs, session, payload)) if known => {
                    self.take_ggrs(from, session, payload, len, &mut ggrs_messages);
                }
                Ok(_) => self.counters.dropped_unknown_sender += 1,
            }
        }
        self.buf = buf;
        ggrs_messages
    }

    /// Checks one intact GGRS datagram from a peer and, if it passes, queues it for GGRS.
    fn take_ggrs(
        &mut self,
        from: SocketAddr,
        session: u32,
        payload: &[u8],
        len: usize,
        out: &mut Vec<(SocketAddr, Message)>,
    ) {
        if session != self.session || self.session == 0 {
            self.counters.dropped_wrong_session += 1;
            return;
        }
        let Some(policy) = &self.policy else {
            return;
        };
        let Some(&(_, sender)) = policy.senders.iter().find(|(a, _)| *a == from) else {
            self.counters.dropped_unknown_sender += 1;
            return;
        };
        let now_ms = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_millis());
        match ggrs_message::check(payload, sender, self.local_frame, &policy.limits, now_ms) {
            Ok(msg) => {
                self.counters.bytes_received += len as u64;
                self.counters.datagrams_received += 1;
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
            self.send_control(&Control::Reject { reason }, from);
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
        self.send_control(&Control::Reject { reason }, from);
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
        let mut link = self.link.borrow_mut();
        let bytes = wire::encode(Kind::Ggrs, link.session, msg);
        link.send_raw(&bytes, *addr);
    }

    fn receive_all_messages(&mut self) -> Vec<(SocketAddr, Message)> {
        self.link.borrow_mut().pump(false)
    }
}

#[cfg(test)]
mod tests;
