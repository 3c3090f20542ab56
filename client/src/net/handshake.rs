//! The handshake before tick 0, over the same socket the match will use: a Noise handshake
//! ([`crate::net::seal`]) that also settles the match.
//!
//! A joiner (or spectator) says `Hello` with its protocol version, engine version, state format,
//! rules and role in clear, and the first Noise message, repeating the same `Hello` until the
//! host answers. The host compares the clear part with its own and answers with the second
//! Noise message, whose encrypted payload is a `Welcome` (the match seed, the number of players,
//! the joiner's slot) or a `Reject` naming what differs. The joiner checks the host's side too.
//! Both sides therefore agree on everything that makes two simulations identical, and hold keys
//! only they share, before the first input is exchanged.
//!
//! With an [`InviteCode`] the code is Noise's pre-shared key: a `Hello` made without it is
//! refused before any costly work, with a clear `Reject`, and nobody without it can answer a
//! joiner as if it were the host.
//!
//! A `Hello` takes no slot. A host answers every acceptable `Hello` and the slot goes to the
//! first peer that proves it read its answer, by sending a datagram sealed under the new keys
//! (its first GGRS sync request): a flood of `Hello`s, from any number of ports or spoofed
//! addresses, cannot hold a slot. A host refuses a peer and keeps waiting: one stranger's
//! datagram must not end it. A refused `Hello` repeated is answered again from a cache, so a
//! lost `Reject` costs one `Hello` interval and a repeat costs no Diffie–Hellman.

use crate::error::Error;
use crate::net::seal::{Initiator, InviteCode, MatchSecret, Responder};
use crate::net::socket::SharedLink;
use crate::net::wire::{self, Control, HostAnswer, Kind, PeerInfo, Role};
use std::net::SocketAddr;
use std::time::{Duration, Instant};

/// How often a `Hello` is repeated until the host answers.
const HELLO_INTERVAL: Duration = Duration::from_millis(150);
/// Pause between socket polls while waiting.
const POLL: Duration = Duration::from_millis(2);
/// How long a joiner holding a clear (unauthenticated) `Reject` keeps asking, in case an
/// authenticated answer from the real host is on its way and the `Reject` was forged.
pub const CLEAR_REJECT_GRACE: Duration = Duration::from_millis(1000);
/// How long a host keeps an answered peer that has not yet proven itself (sent a sealed
/// datagram) as a candidate for the slot.
pub const CANDIDATE_LIFETIME: Duration = Duration::from_secs(10);
/// Most candidates a host keeps at once; beyond, the oldest is dropped.
pub const MAX_CANDIDATES: usize = 16;
/// Refused `Hello`s whose answers are kept to repeat.
const MAX_CACHED_REFUSALS: usize = 64;
/// Handshake answers (each a Diffie–Hellman) a host computes per second at most, in bursts
/// of up to [`ANSWER_BURST`]; beyond, `Hello`s are dropped unanswered and counted (the real
/// joiner repeats its own).
pub const ANSWERS_PER_SECOND: u32 = 200;
/// See [`ANSWERS_PER_SECOND`].
pub const ANSWER_BURST: u32 = 40;

/// The match as agreed at the handshake.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Agreement {
    /// Match seed.
    pub match_seed: u64,
    /// Number of players.
    pub players: u8,
    /// The local slot (`None` for a spectator).
    pub local_slot: Option<u8>,
    /// Remote players: `(slot, address)`.
    pub remote_players: Vec<(u8, SocketAddr)>,
    /// Spectators the host will relay to (host only).
    pub spectators: Vec<SocketAddr>,
    /// The id of the sealed channel with the (first) remote player, or with the host for a
    /// spectator: both sides of that channel see the same id.
    pub session: u32,
    /// The match's secret, held by its players (the host made it, the welcome carried it):
    /// the key that lets a player whose process died take its slot back. `None` for a
    /// spectator.
    pub secret: Option<MatchSecret>,
    /// The epoch: 1 for the first session of a match, one more at every resume after a
    /// rejoin. Datagrams of an older epoch are never read (their keys are gone).
    pub epoch: u32,
}

/// A token bucket bounding the handshake work a flood can cause.
#[derive(Debug, Clone)]
pub(crate) struct AnswerBudget {
    tokens: u32,
    refilled: Instant,
}

impl AnswerBudget {
    pub(crate) fn new() -> AnswerBudget {
        AnswerBudget {
            tokens: ANSWER_BURST,
            refilled: Instant::now(),
        }
    }

    pub(crate) fn take(&mut self, now: Instant) -> bool {
        let elapsed = now.saturating_duration_since(self.refilled);
        let earned = (elapsed.as_millis() * u128::from(ANSWERS_PER_SECOND) / 1000) as u64;
        if earned > 0 {
            self.tokens = (u64::from(self.tokens) + earned).min(u64::from(ANSWER_BURST)) as u32;
            self.refilled = now;
        }
        if self.tokens == 0 {
            return false;
        }
        self.tokens -= 1;
        true
    }
}

/// A peer answered with a `Welcome` that has not yet sent a sealed datagram.
#[derive(Debug, Clone)]
struct Candidate {
    addr: SocketAddr,
    role: Role,
    since: Instant,
}

/// The host's side of the handshake, one poll at a time: waits for one joining player and
/// `spectators` spectators, as the host of slot 0. [`host`] drives it to the end; a window
/// polls it once per frame so it keeps drawing (and can give up whenever it likes).
///
/// A peer whose build or rules differ is answered with a `Reject` naming the difference (again
/// at each of its `Hello`s) and the host keeps waiting, as it does for a peer when the match is
/// full.
#[derive(Debug)]
pub struct HostHandshake {
    info: PeerInfo,
    match_seed: u64,
    spectators: usize,
    invite: Option<InviteCode>,
    joiner: Option<SocketAddr>,
    watchers: Vec<SocketAddr>,
    candidates: Vec<Candidate>,
    /// `(from, hash of its Hello, the answer)` of refused `Hello`s.
    refused: Vec<(SocketAddr, u64, Vec<u8>)>,
    budget: AnswerBudget,
    /// The match's secret, given to the players in their welcome.
    secret: Option<MatchSecret>,
}

impl HostHandshake {
    /// Starts waiting on `link`, for peers holding `invite` (or anyone, without one).
    #[must_use]
    pub fn new(
        _link: &SharedLink,
        info: &PeerInfo,
        match_seed: u64,
        spectators: usize,
        invite: Option<InviteCode>,
    ) -> HostHandshake {
        HostHandshake {
            info: info.clone(),
            match_seed,
            spectators,
            invite,
            joiner: None,
            watchers: Vec::new(),
            candidates: Vec::new(),
            refused: Vec::new(),
            budget: AnswerBudget::new(),
            // Without randomness there is no Noise handshake either; no secret, no rejoin.
            secret: MatchSecret::random().ok(),
        }
    }

    /// Who is still awaited, in words (for a timeout or a waiting screen).
    #[must_use]
    pub fn missing(&self) -> &'static str {
        if self.joiner.is_none() {
            "a joining player"
        } else {
            "the spectators"
        }
    }

    /// Answers every `Hello` waiting on the link, gives slots to the peers that proved they
    /// hold their keys; the agreement once everyone has arrived.
    pub fn poll(&mut self, link: &SharedLink) -> Option<Agreement> {
        link.borrow_mut().pump(true);
        let now = Instant::now();
        let inbox = link.borrow_mut().take_control();
        for (from, msg) in inbox {
            if let Control::Hello { .. } = msg {
                self.answer_hello(link, from, &msg, now);
            }
        }
        self.settle_candidates(link, now);
        let joiner = self.joiner?;
        if self.watchers.len() >= self.spectators {
            // Every slot is taken: candidates still unproven get none and are no peers of
            // the match (a host would otherwise wait its finish timeout for them).
            let mut l = link.borrow_mut();
            for c in self.candidates.drain(..) {
                turn_away(&mut l, c.addr);
            }
        }
        (self.watchers.len() >= self.spectators).then(|| Agreement {
            match_seed: self.match_seed,
            players: 2,
            local_slot: Some(0),
            remote_players: vec![(1, joiner)],
            spectators: self.watchers.clone(),
            session: link.borrow().channel_id(joiner).unwrap_or(0),
            secret: self.secret.clone(),
            epoch: 1,
        })
    }

    /// Gives the slots to candidates that proved themselves, in the order they did; drops
    /// those that waited too long or can no longer get a slot.
    fn settle_candidates(&mut self, link: &SharedLink, now: Instant) {
        let mut link = link.borrow_mut();
        let mut i = 0;
        while i < self.candidates.len() {
            let c = self.candidates[i].clone();
            let slot_free = match c.role {
                Role::Player => self.joiner.is_none(),
                Role::Spectator => self.watchers.len() < self.spectators,
            };
            if slot_free && link.proven(c.addr) {
                match c.role {
                    Role::Player => self.joiner = Some(c.addr),
                    Role::Spectator => self.watchers.push(c.addr),
                }
                self.candidates.remove(i);
            } else if !slot_free {
                turn_away(&mut link, c.addr);
                self.candidates.remove(i);
            } else if now.saturating_duration_since(c.since) > CANDIDATE_LIFETIME {
                link.drop_peer(c.addr);
                self.candidates.remove(i);
            } else {
                i += 1;
            }
        }
    }

    /// Answers a `Hello` from `from`: a repeat is ignored (or gets its cached refusal), a
    /// wrong or missing invite code is refused in the clear, and one whose keys read is
    /// decided and sealed, within the answer budget.
    fn answer_hello(&mut self, link: &SharedLink, from: SocketAddr, hello: &Control, now: Instant) {
        let Control::Hello {
            info: theirs,
            role,
            invite,
            noise,
        } = hello
        else {
            return;
        };
        let (role, invite) = (*role, *invite);
        if self.joiner == Some(from)
            || self.watchers.contains(&from)
            || self.candidates.iter().any(|c| c.addr == from)
        {
            return; // a repeat; the link sent the answer again
        }
        let key = xxhash_rust::xxh3::xxh3_64(&wire::encode_payload(hello));
        if let Some((_, _, answer)) = self
            .refused
            .iter()
            .find(|(a, k, _)| *a == from && *k == key)
        {
            let answer = answer.clone();
            link.borrow_mut().send_raw(&answer, from);
            return;
        }
        let refuse_clear = |reason: String| {
            let mut l = link.borrow_mut();
            l.count_refused_hello();
            l.send_control(&Control::Reject { reason }, from);
        };
        match (self.invite.is_some(), invite) {
            (true, false) => {
                return refuse_clear(
                    "this match needs its invite code: ask the host for the whole invitation \
                     (ADDRESS#CODE or the room link)"
                        .into(),
                )
            }
            (false, true) => {
                return refuse_clear(
                    "this host takes no invite code: join with its address alone".into(),
                )
            }
            _ => {}
        }
        let prologue = wire::hello_prologue(theirs, role, invite);
        let Ok(responder) = Responder::read_hello(&prologue, self.invite.as_ref(), noise) else {
            return refuse_clear(
                "the invite code does not match the host's (check the code you were given)".into(),
            );
        };
        if !self.budget.take(now) {
            link.borrow_mut().count_rate_limited();
            return;
        }
        let answer = self.decide(from, theirs, role);
        self.send_answer(link, (from, role, key), responder, &answer, now);
    }

    /// Seals `answer` to the `Hello` (keyed `key`) that `from` sent as `role`, and sends it. A
    /// welcome opens the channel and makes `from` a candidate (the oldest one gives way when
    /// there are too many); a refusal is cached, so a repeated `Hello` gets the same datagram.
    fn send_answer(
        &mut self,
        link: &SharedLink,
        (from, role, key): (SocketAddr, Role, u64),
        responder: Responder,
        answer: &HostAnswer,
        now: Instant,
    ) {
        let welcomed = matches!(answer, HostAnswer::Welcome { .. });
        let Ok((noise, channel)) = responder.answer(&wire::encode_payload(answer)) else {
            return;
        };
        let datagram = wire::encode(Kind::Control, 0, &Control::Answer { noise });
        let mut l = link.borrow_mut();
        l.send_raw(&datagram, from);
        if welcomed {
            l.add_channel(from, channel);
            l.answer_hellos_with(from, datagram);
            if self.candidates.len() >= MAX_CANDIDATES {
                let oldest = self.candidates.remove(0);
                l.drop_peer(oldest.addr);
            }
            self.candidates.push(Candidate {
                addr: from,
                role,
                since: now,
            });
        } else {
            l.count_refused_hello();
            if self.refused.len() >= MAX_CACHED_REFUSALS {
                self.refused.remove(0);
            }
            self.refused.push((from, key, datagram));
        }
    }

    /// What the host answers a `Hello` whose keys it could read.
    fn decide(&self, from: SocketAddr, theirs: &PeerInfo, role: Role) -> HostAnswer {
        if let Some(diff) = self.info.differences(theirs) {
            return HostAnswer::Reject {
                reason: format!("peer {from} differs from host (host's value first): {diff}"),
            };
        }
        let reject = |reason: String| HostAnswer::Reject { reason };
        let slot = match role {
            Role::Player if self.joiner.is_none() => Some(1),
            Role::Spectator if self.watchers.len() < self.spectators => None,
            Role::Player => {
                return reject("the match is full: both player slots are taken".to_string())
            }
            Role::Spectator => {
                return reject(match self.spectators {
                    0 => "spectator slots full: this host takes no spectators".to_string(),
                    1 => "spectator slots full: its one spectator slot is taken".to_string(),
                    n => format!("spectator slots full: all {n} are taken"),
                })
            }
        };
        HostAnswer::Welcome {
            info: self.info.clone(),
            match_seed: self.match_seed,
            players: 2,
            slot,
            secret: slot.and(self.secret.clone()),
        }
    }
}

/// What a welcomed candidate that lost its slot to a peer that proved itself first hears,
/// sealed (so only the host can say it): it asks again with a fresh `Hello`, and gets the slot
/// should the other never start.
pub const SLOT_TAKEN: &str = "the slot went to another peer first";

/// Tells a welcomed candidate that lost its slot, under its keys (again whenever it sends
/// under them), and forgets it as a peer.
fn turn_away(link: &mut crate::net::socket::Link, peer: SocketAddr) {
    link.turn_away(peer, SLOT_TAKEN);
}

/// Waits for one joining player and `spectators` spectators, as the host of slot 0 (a
/// [`HostHandshake`] polled until it agrees).
///
/// # Errors
/// [`Error::HandshakeTimeout`] if not everyone arrives within `timeout`.
pub fn host(
    link: &SharedLink,
    info: &PeerInfo,
    match_seed: u64,
    spectators: usize,
    invite: Option<InviteCode>,
    timeout: Duration,
) -> Result<Agreement, Error> {
    let deadline = Instant::now() + timeout;
    let mut handshake = HostHandshake::new(link, info, match_seed, spectators, invite);
    loop {
        if Instant::now() > deadline {
            return Err(Error::HandshakeTimeout {
                peer: handshake.missing().into(),
                seconds: whole_seconds(timeout),
                hint: unanswered_hint(link, None),
            });
        }
        if let Some(agreement) = handshake.poll(link) {
            return Ok(agreement);
        }
        std::thread::sleep(POLL);
    }
}

/// The joining side of the handshake (a player or a spectator), one poll at a time: says
/// the same `Hello` every 150 ms until the host welcomes or refuses it.
#[derive(Debug)]
pub struct JoinHandshake {
    info: PeerInfo,
    host_addr: SocketAddr,
    role: Role,
    next_hello: Instant,
    hello: Control,
    initiator: Option<Initiator>,
    /// A clear `Reject` and when it came: final once [`CLEAR_REJECT_GRACE`] has passed with no
    /// authenticated answer.
    clear_reject: Option<(String, Instant)>,
}

impl JoinHandshake {
    /// Starts asking the host at `host_addr`, with the host's invite code if it gave one.
    ///
    /// # Errors
    /// [`Error::Refused`] if the handshake cannot start (the OS gives no randomness).
    pub fn new(
        link: &SharedLink,
        info: &PeerInfo,
        host_addr: SocketAddr,
        role: Role,
        invite: Option<InviteCode>,
    ) -> Result<Self, Error> {
        link.borrow_mut().add_peer(host_addr);
        let prologue = wire::hello_prologue(info, role, invite.is_some());
        let initiator = Initiator::new(&prologue, invite.as_ref()).map_err(|e| Error::Refused {
            reason: format!("cannot start the handshake: {e}"),
        })?;
        let hello = Control::Hello {
            info: info.clone(),
            role,
            invite: invite.is_some(),
            noise: initiator.message().to_vec(),
        };
        Ok(JoinHandshake {
            info: info.clone(),
            host_addr,
            role,
            next_hello: Instant::now(),
            hello,
            initiator: Some(initiator),
            clear_reject: None,
        })
    }

    /// The host being asked.
    #[must_use]
    pub fn host(&self) -> SocketAddr {
        self.host_addr
    }

    /// Says `Hello` when it is time and reads the answers: the agreement once welcomed.
    ///
    /// # Errors
    /// [`Error::Refused`] with the host's reason (or ours, if the host's build differs or its
    /// welcome is impossible).
    pub fn poll(&mut self, link: &SharedLink) -> Result<Option<Agreement>, Error> {
        let host_addr = self.host_addr;
        let now = Instant::now();
        if now >= self.next_hello {
            link.borrow_mut().send_control(&self.hello, host_addr);
            self.next_hello = now + HELLO_INTERVAL;
        }
        link.borrow_mut().pump(false);
        let inbox = link.borrow_mut().take_control();
        for (from, msg) in inbox {
            if from != host_addr {
                continue;
            }
            match msg {
                Control::Reject { reason } if self.clear_reject.is_none() => {
                    self.clear_reject = Some((wire::printable(&reason, 300), now));
                }
                Control::Answer { noise } => {
                    if let Some(agreement) = self.read_answer(link, &noise)? {
                        return Ok(Some(agreement));
                    }
                }
                _ => {}
            }
        }
        match &self.clear_reject {
            Some((reason, since))
                if now.saturating_duration_since(*since) >= CLEAR_REJECT_GRACE =>
            {
                Err(Error::Refused {
                    reason: reason.clone(),
                })
            }
            _ => Ok(None),
        }
    }

    /// Reads an `Answer`: `None` if it does not open (a forgery, or a stale answer) and the
    /// handshake goes on.
    fn read_answer(&mut self, link: &SharedLink, noise: &[u8]) -> Result<Option<Agreement>, Error> {
        let host_addr = self.host_addr;
        let Some(initiator) = self.initiator.as_mut() else {
            return Ok(None);
        };
        let Ok(payload) = initiator.read_answer(noise) else {
            let answer = Control::Answer {
                noise: noise.to_vec(),
            };
            let len = wire::HEADER_LEN + wire::encode_payload(&answer).len();
            link.borrow_mut().count_forged_answer(len);
            return Ok(None);
        };
        let channel = self
            .initiator
            .take()
            .map(crate::net::seal::Initiator::into_channel);
        let answer = wire::decode::<HostAnswer>(&payload).map_err(|_| Error::Refused {
            reason: format!("host {host_addr} sent an answer this build cannot read"),
        })?;
        let (theirs, match_seed, players, slot, secret) = match answer {
            HostAnswer::Reject { reason } => {
                return Err(Error::Refused {
                    reason: wire::printable(&reason, 300),
                })
            }
            HostAnswer::Welcome {
                info,
                match_seed,
                players,
                slot,
                secret,
            } => (info, match_seed, players, slot, secret),
        };
        if let Some(diff) = self.info.differences(&theirs) {
            return Err(Error::Refused {
                reason: format!("host {host_addr} differs (our value first): {diff}"),
            });
        }
        // Only what this build can play: two players, the slot we asked for. Anything else
        // would reach GGRS's builder.
        let expected_slot = match self.role {
            Role::Player => Some(1),
            Role::Spectator => None,
        };
        if players != 2 || slot != expected_slot {
            return Err(Error::Refused {
                reason: format!(
                    "host {host_addr} sent an invalid welcome ({players} players, slot {slot:?})"
                ),
            });
        }
        let Some(Ok(channel)) = channel else {
            return Err(Error::Refused {
                reason: "the handshake did not finish".into(),
            });
        };
        let session = channel.id();
        let mut l = link.borrow_mut();
        l.add_channel(host_addr, channel);
        l.send_control(&Control::Joined, host_addr);
        Ok(Some(Agreement {
            match_seed,
            players,
            local_slot: slot,
            remote_players: vec![(0, host_addr)],
            spectators: Vec::new(),
            session,
            // A spectator holds no secret, whatever a host sends it.
            secret: slot.and(secret),
            epoch: 1,
        }))
    }
}

/// Joins the host at `host_addr` as a player or spectator (a [`JoinHandshake`] polled until
/// it is welcomed or refused).
///
/// # Errors
/// [`Error::Refused`] with the host's reason (or ours, if the host's build differs);
/// [`Error::HandshakeTimeout`] if the host does not answer within `timeout`.
pub fn join(
    link: &SharedLink,
    info: &PeerInfo,
    host_addr: SocketAddr,
    role: Role,
    invite: Option<InviteCode>,
    timeout: Duration,
) -> Result<Agreement, Error> {
    let deadline = Instant::now() + timeout;
    let mut handshake = JoinHandshake::new(link, info, host_addr, role, invite)?;
    loop {
        if Instant::now() > deadline {
            return Err(Error::HandshakeTimeout {
                peer: host_addr.to_string(),
                seconds: whole_seconds(timeout),
                hint: unanswered_hint(link, Some(host_addr)),
            });
        }
        if let Some(agreement) = handshake.poll(link)? {
            return Ok(agreement);
        }
        std::thread::sleep(POLL);
    }
}

/// `timeout` in whole seconds, rounded up: a host that waited 2.999 s of a 3 s handshake (the
/// rest went to an earlier attempt) says 3, as it was told.
/// What to tell a player whose handshake went unanswered ([`Error::HandshakeTimeout`]'s hint):
/// over plain UDP, the port forward a host behind a router needs (for a joiner, `host` is the
/// host it tried); over a room, that the other peer may have left.
pub(crate) fn unanswered_hint(link: &SharedLink, host: Option<SocketAddr>) -> String {
    if !link.borrow().is_plain_udp() {
        return " (did the other player leave the room?)".into();
    }
    const ROOM: &str = "or play through an online room instead (`--room`)";
    match host {
        Some(host) => format!(
            ": the host is not running, or not reachable from here — a host behind a router \
             must have it forward UDP port {} to the host's machine (docs/online-rooms.md: port forwarding), \
             {ROOM}",
            host.port()
        ),
        None => format!(
            ": players behind another router reach this machine only if its router forwards \
             UDP port {} to it (docs/online-rooms.md: port forwarding), {ROOM}",
            link.borrow().local_addr().port()
        ),
    }
}

pub(crate) fn whole_seconds(timeout: Duration) -> u64 {
    timeout.as_secs() + u64::from(timeout.subsec_nanos() > 0)
}

#[cfg(test)]
mod tests;
