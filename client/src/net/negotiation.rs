//! How far the WebRTC negotiations with a room's peers got: when one stalls, the room is
//! entered again with a fresh connection; when nothing connects, which stage failed and what
//! fixes it.
//!
//! A negotiation goes through stages, each of which fails for its own reasons:
//!
//! 1. **Met**: the signalling server introduced the peers and they exchange offers, answers and
//!    ICE candidates through it. Without this, nobody else came to the room.
//! 2. **Path**: ICE found a pair of addresses that reach each other. Without it, the candidates
//!    tell why: no STUN server (only local addresses were tried), public addresses that still
//!    do not reach each other (a symmetric NAT: only a TURN relay crosses it), no relay although
//!    a TURN server was given (it refused our credentials, or did not answer).
//! 3. **Secure**: DTLS opened the encrypted channel over that path.
//! 4. **Open**: the data channels are open; the room can settle who hosts.
//!
//! Stages 3 and 4 ride on UDP datagrams that routers drop now and then. The WebRTC stack resends
//! them, but a negotiation can still stall for good (webrtc-rs 0.21 did so whenever one DTLS
//! flight was lost, before our patch in `vendor/rtc-dtls`), and one stalled negotiation would
//! cost the whole match. So a negotiation that makes no progress for a while is abandoned: the
//! peer that *accepted* it (the one that arrived second; the other made the offer) enters the room
//! again with a new connection, and the other, told it left, offers to its new self. The offering
//! side abandons too, but only after a grace, in case the other side does not.
//!
//! This module is pure bookkeeping: the transport feeds it what the signalling server and the
//! WebRTC stack report, with the time, and asks it what to do.

use matchbox_socket::{NegotiationEvent, PeerId};
use std::fmt;
use std::time::{Duration, Instant};

/// How long peers that met may go without ICE finding a path before the negotiation is tried
/// again. A TURN relay is the slowest path to be found (about 5 s in the NAT lab: ICE tries the
/// direct pairs first), so this leaves room for it.
pub(crate) const PATH_WAIT: Duration = Duration::from_secs(10);
/// How long a path may go without the encrypted channel and the data channels opening (they
/// take a few round trips, plus a second per DTLS flight or SCTP packet lost).
pub(crate) const OPEN_WAIT: Duration = Duration::from_secs(5);
/// How much longer the offering side waits before abandoning a stalled negotiation itself.
pub(crate) const OFFERER_GRACE: Duration = Duration::from_secs(4);
/// Entries that found no path at all after which the room gives up before its deadline: the
/// same network will not find one on a third try.
pub(crate) const NO_PATH_ENTRIES: u32 = 2;

/// The kinds of ICE candidates seen (RFC 8445 §5.1.1: host, server reflexive, relayed).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct CandidateKinds {
    /// An address of a network interface.
    pub(crate) host: bool,
    /// A public address a STUN server saw (`srflx`, or `prflx` learned from a peer).
    pub(crate) public: bool,
    /// An address on a TURN relay.
    pub(crate) relay: bool,
}

impl CandidateKinds {
    /// The kinds of the candidates named in `text` (an ICE candidate's JSON, or an SDP with
    /// `a=candidate` lines): each `typ KIND` counts.
    pub(crate) fn in_text(text: &str) -> CandidateKinds {
        let mut kinds = CandidateKinds::default();
        let mut words = text.split(|c: char| c.is_whitespace() || c == '"');
        while let Some(word) = words.next() {
            if word == "typ" {
                match words.next() {
                    Some("host") => kinds.host = true,
                    Some("srflx" | "prflx") => kinds.public = true,
                    Some("relay") => kinds.relay = true,
                    _ => {}
                }
            }
        }
        kinds
    }

    fn add(&mut self, other: CandidateKinds) {
        self.host |= other.host;
        self.public |= other.public;
        self.relay |= other.relay;
    }
}

/// What the signaller saw pass, for the transport to take in order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum SignalNote {
    /// The server introduced a newcomer to us: we make the offer.
    NewPeer(PeerId),
    /// A peer left the room.
    PeerLeft(PeerId),
    /// A signal came from a peer (the first one, from a peer we were not introduced to, is its
    /// offer); the kinds of the candidates it carried.
    From(PeerId, CandidateKinds),
    /// We sent a signal to a peer, with the kinds of our candidates in it.
    To(PeerId, CandidateKinds),
}

/// How far a negotiation got.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum Stage {
    /// Introduced: offers, answers and candidates go through the signalling server.
    Met,
    /// ICE found a path.
    Path,
    /// DTLS is up over it.
    Secure,
    /// The data channels are open.
    Open,
}

/// One negotiation of this entry into the room.
#[derive(Debug, Clone)]
struct Negotiation {
    peer: PeerId,
    /// We were introduced to it and made the offer (it accepted).
    we_offer: bool,
    stage: Stage,
    /// When it reached its stage.
    since: Instant,
    /// ICE or the connection reported failure.
    failed: bool,
}

/// A negotiation that made no progress for too long.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Stall {
    /// With whom.
    pub(crate) peer: PeerId,
    /// How far it got.
    pub(crate) stage: Stage,
}

/// Every negotiation of a room's entries, and what they add up to.
#[derive(Debug, Clone, Default)]
pub(crate) struct Negotiations {
    /// This entry's negotiations.
    current: Vec<Negotiation>,
    /// The furthest any negotiation got, over all entries (`None`: nobody came).
    best: Option<Stage>,
    /// Candidates we sent and received, over all entries.
    local: CandidateKinds,
    remote: CandidateKinds,
    /// Entries into the room so far.
    entries: u32,
    /// Negotiations begun so far (every entry's, with every peer: ours and the other side's
    /// entries again alike).
    begun: u32,
    /// Entries abandoned with no path found (ours, and the other peers' seen leaving after
    /// trying for a while), and after a path (the channel never opened).
    no_path: u32,
    no_channel: u32,
    /// Peers no negotiation may begin with again: those that left (a signal of theirs relayed
    /// late would begin a phantom one) and our own former entries (still in the room for a
    /// moment after we enter again, and offering to our new self). The newest [`GONE_KEPT`].
    gone: Vec<PeerId>,
}

/// Peers that left remembered by [`Negotiations`] (ids are never reused: UUIDs).
const GONE_KEPT: usize = 64;

impl Negotiations {
    /// Bookkeeping for a room entered once.
    pub(crate) fn new() -> Negotiations {
        Negotiations {
            entries: 1,
            ..Negotiations::default()
        }
    }

    /// Takes what the signaller saw.
    pub(crate) fn note_signal(&mut self, note: SignalNote, now: Instant) {
        match note {
            SignalNote::NewPeer(peer) => {
                self.meet(peer, true, now);
            }
            SignalNote::PeerLeft(peer) => {
                // A peer that leaves after trying for a while without a path has given up on
                // it (and enters again, or tells its player): the same news as our own stall.
                let gave_up = self.current.iter().any(|n| {
                    n.peer == peer
                        && n.stage == Stage::Met
                        && now.saturating_duration_since(n.since) >= PATH_WAIT / 2
                });
                self.no_path += u32::from(gave_up);
                self.current.retain(|n| n.peer != peer);
                self.forget(peer);
            }
            SignalNote::From(peer, kinds) => {
                self.meet(peer, false, now);
                self.remote.add(kinds);
            }
            SignalNote::To(peer, kinds) => {
                self.meet(peer, true, now);
                self.local.add(kinds);
            }
        }
    }

    /// Begins the negotiation with `peer` now, unless it is under way (`we_offer`: we were
    /// introduced).
    fn meet(&mut self, peer: PeerId, we_offer: bool, now: Instant) {
        if self.gone.contains(&peer) {
            return;
        }
        self.best = self.best.max(Some(Stage::Met));
        if !self.current.iter().any(|n| n.peer == peer) {
            self.begun = self.begun.saturating_add(1);
            self.current.push(Negotiation {
                peer,
                we_offer,
                stage: Stage::Met,
                since: now,
                failed: false,
            });
        }
    }

    /// Takes what the WebRTC stack reported of the negotiation with `peer`.
    pub(crate) fn note_progress(&mut self, peer: PeerId, event: NegotiationEvent, now: Instant) {
        match event {
            NegotiationEvent::IceConnected => self.reach(peer, Stage::Path, now),
            NegotiationEvent::Connected => self.reach(peer, Stage::Secure, now),
            NegotiationEvent::IceFailed | NegotiationEvent::Failed => {
                if let Some(n) = self.current.iter_mut().find(|n| n.peer == peer) {
                    n.failed = true;
                }
            }
            _ => {}
        }
    }

    /// The data channels with `peer` are open.
    pub(crate) fn note_open(&mut self, peer: PeerId, now: Instant) {
        self.reach(peer, Stage::Open, now);
        if let Some(n) = self.current.iter_mut().find(|n| n.peer == peer) {
            n.failed = false;
        }
    }

    /// The connection with `peer` closed (its channels or its peer connection ended) while it
    /// is still in the room: a negotiation to do again, so it counts as stalled.
    pub(crate) fn note_closed(&mut self, peer: PeerId, now: Instant) {
        if let Some(n) = self.current.iter_mut().find(|n| n.peer == peer) {
            n.failed = true;
            if n.stage == Stage::Open {
                n.stage = Stage::Secure;
                n.since = now;
            }
        }
    }

    /// Only negotiations the signalling server began are followed: the WebRTC stack reports on
    /// a peer that left, or an entry we left, a moment after (a negotiation already forgotten
    /// is not begun again by its late news).
    fn reach(&mut self, peer: PeerId, stage: Stage, now: Instant) {
        let Some(n) = self.current.iter_mut().find(|n| n.peer == peer) else {
            return;
        };
        if stage > n.stage {
            n.stage = stage;
            n.since = now;
        }
        self.best = self.best.max(Some(stage));
    }

    /// A negotiation of this entry that has stalled at `now`, if any: one that reported failure,
    /// or made no progress for [`PATH_WAIT`] (to a path) or [`OPEN_WAIT`] (from a path to open
    /// channels) — plus [`OFFERER_GRACE`] when we made the offer.
    pub(crate) fn stalled(&self, now: Instant) -> Option<Stall> {
        self.current.iter().find_map(|n| {
            let wait = match n.stage {
                Stage::Open => return None,
                _ if n.failed => Duration::ZERO,
                Stage::Met => PATH_WAIT,
                Stage::Path | Stage::Secure => OPEN_WAIT,
            };
            let grace = if n.we_offer {
                OFFERER_GRACE
            } else {
                Duration::ZERO
            };
            (now.saturating_duration_since(n.since) >= wait + grace).then_some(Stall {
                peer: n.peer,
                stage: n.stage,
            })
        })
    }

    /// `peer` is gone for good: nothing about it begins a negotiation again. The transport
    /// calls it with its own former id when it enters the room again.
    pub(crate) fn forget(&mut self, peer: PeerId) {
        if !self.gone.contains(&peer) {
            if self.gone.len() == GONE_KEPT {
                self.gone.remove(0);
            }
            self.gone.push(peer);
        }
    }

    /// Whether `peer` left (or was our own former entry).
    pub(crate) fn is_gone(&self, peer: PeerId) -> bool {
        self.gone.contains(&peer)
    }

    /// The room is entered again after `stall`: this entry's negotiations are over.
    pub(crate) fn reenter(&mut self, stall: Stall) {
        if stall.stage == Stage::Met {
            self.no_path += 1;
        } else {
            self.no_channel += 1;
        }
        self.entries += 1;
        self.current.clear();
    }

    /// Whether waiting longer is pointless: [`NO_PATH_ENTRIES`] entries (ours or the other
    /// side's) found no path, and no negotiation ever found one.
    pub(crate) fn hopeless(&self) -> bool {
        self.no_path >= NO_PATH_ENTRIES && self.best < Some(Stage::Path)
    }

    /// Entries into the room so far.
    pub(crate) fn entries(&self) -> u32 {
        self.entries
    }

    /// Why the room connected nobody: the furthest stage reached and what the candidates say.
    /// `ice` is what the user gave; `turn` is what a TURN server said to our credentials, asked
    /// when no relay candidate came although one was given (see [`Negotiations::needs_turn_probe`]).
    pub(crate) fn failure(&self, ice: IceGiven, turn: Option<TurnAnswer>) -> RoomFailure {
        match self.best {
            None => RoomFailure::NoPeer,
            Some(Stage::Met) => RoomFailure::NoPath(self.no_path_cause(ice, turn)),
            Some(Stage::Path | Stage::Secure) => {
                RoomFailure::ChannelNeverOpened { tries: self.begun }
            }
            Some(Stage::Open) => RoomFailure::NobodyToPlayWith,
        }
    }

    /// Whether asking the TURN server would tell why no path was found: one was given, peers
    /// met, and we never had a relay candidate.
    pub(crate) fn needs_turn_probe(&self, ice: IceGiven) -> bool {
        ice.turn && self.best == Some(Stage::Met) && !self.local.relay
    }

    fn no_path_cause(&self, ice: IceGiven, turn: Option<TurnAnswer>) -> NoPathCause {
        if ice.turn && !self.local.relay {
            return match turn {
                Some(TurnAnswer::Refused(reason)) => NoPathCause::TurnRefused(reason),
                Some(TurnAnswer::Silent) => NoPathCause::TurnSilent,
                // Probed fine (or not probed): the relay came too late, or not at all.
                _ => NoPathCause::RelayFailed,
            };
        }
        if self.local.relay || self.remote.relay {
            return NoPathCause::RelayFailed;
        }
        if !ice.stun && !ice.turn {
            return NoPathCause::NoIceServers;
        }
        if !self.local.public {
            return NoPathCause::StunSilent;
        }
        NoPathCause::SymmetricNat
    }
}

/// Which ICE servers the user gave.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct IceGiven {
    /// A `stun:` or `stuns:` server (a TURN server answers STUN too, but is counted below).
    pub(crate) stun: bool,
    /// A `turn:` or `turns:` server.
    pub(crate) turn: bool,
}

/// What a TURN server said to our credentials, when asked.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum TurnAnswer {
    /// It refused them, saying this.
    Refused(String),
    /// It did not answer.
    Silent,
    /// It gave a relay.
    Allocated,
}

/// Why nobody was connected to in a room, with what fixes it (its `Display` says both).
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum RoomFailure {
    /// Nobody else came to the room.
    NoPeer,
    /// Peers connected, but none to play with: spectators only, or players already in a match.
    NobodyToPlayWith,
    /// The peers met through the signalling server, but ICE found no network path between them.
    NoPath(NoPathCause),
    /// ICE found a path, but the encrypted channel (DTLS) and the data channels over it never
    /// opened, in this many negotiations.
    ChannelNeverOpened {
        /// Negotiations tried (the first, and one per entry again, ours or the other side's).
        tries: u32,
    },
}

/// Why ICE found no path.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum NoPathCause {
    /// No STUN or TURN server: only addresses of the peers' own networks were tried.
    NoIceServers,
    /// STUN servers were given, but none told us our public address (none answered).
    StunSilent,
    /// Public addresses were exchanged and still do not reach each other: a symmetric NAT (one
    /// that gives every destination another port), which only a TURN relay crosses.
    SymmetricNat,
    /// The TURN server refused our credentials, saying this.
    TurnRefused(String),
    /// The TURN server did not answer.
    TurnSilent,
    /// Not even through the TURN relay.
    RelayFailed,
}

impl fmt::Display for RoomFailure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RoomFailure::NoPeer => write!(
                f,
                "nobody else came to the room (give the other player the room link; both \
                 must use the same signalling server)"
            ),
            RoomFailure::NobodyToPlayWith => write!(
                f,
                "nobody there to play with (the peers in the room are spectators, or players \
                 already in a match)"
            ),
            RoomFailure::NoPath(cause) => write!(
                f,
                "the players met through the signalling server, but ICE found no network path \
                 between them: {cause}"
            ),
            RoomFailure::ChannelNeverOpened { tries } => write!(
                f,
                "a network path was found, but the encrypted channel over it never opened \
                 (tried {tries} time{}; heavy packet loss on the way?)",
                if *tries == 1 { "" } else { "s" }
            ),
        }
    }
}

impl fmt::Display for NoPathCause {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        const TURN_FIX: &str = "add a TURN relay: --ice turn:HOST:PORT --ice-user USER \
                                --ice-password PASSWORD (docs/online-rooms.md: run your own STUN/TURN)";
        match self {
            NoPathCause::NoIceServers => write!(
                f,
                "with no STUN server only addresses on the players' own networks are tried; \
                 across routers add one (--ice stun:HOST:PORT, or leave out --no-ice for the \
                 default list)"
            ),
            NoPathCause::StunSilent => write!(
                f,
                "no STUN server told us our public address (are they reachable? check --ice)"
            ),
            NoPathCause::SymmetricNat => write!(
                f,
                "their public addresses do not reach each other, so at least one of them is \
                 behind a symmetric NAT (some mobile and corporate networks), which only a \
                 TURN relay crosses; {TURN_FIX}"
            ),
            NoPathCause::TurnRefused(reason) => write!(
                f,
                "the TURN server refused our credentials ({reason}): check --ice-user and \
                 --ice-password"
            ),
            NoPathCause::TurnSilent => write!(
                f,
                "the TURN server did not answer (is it running, and is its UDP port open?)"
            ),
            NoPathCause::RelayFailed => write!(
                f,
                "not even through the TURN relay (is UDP to the relay's ports blocked?)"
            ),
        }
    }
}

#[cfg(test)]
mod tests;
