//! Spectators who arrive after the start: caught up by snapshot, then fed the confirmed inputs.
//!
//! A GGRS session takes its spectators when it is built, so a spectator welcomed later follows
//! the match outside GGRS. The host answers its `Hello` as at the start (the same Noise
//! handshake, the invite code if the match has one; never the match's secret), then sends its
//! final state ([`Control::CatchUp`], in [`Control::SnapshotChunk`]s, checked as every
//! snapshot from the network is: [`super::transfer`]) and from then on every confirmed tick's
//! inputs ([`Control::Relay`]), with its state hash at the last tick of each batch. The
//! spectator acknowledges what it holds ([`Control::RelayAck`]); what is unacknowledged is
//! sent again, so a lost datagram delays the spectator and loses nothing. A spectator further
//! behind than [`super::NetConfig::max_frames_behind`] simulates
//! [`super::NetConfig::catchup_speed`] ticks per frame ([`NetPeer::catching_up`]) until it
//! follows live. Its logs begin at the tick it joined, with a checkpoint of that state; a
//! hash that differs from the host's is a desync, reported as any other. A spectator that
//! drops and comes back (a new process, or the same after the host gave it up) simply joins
//! again the same way.
//!
//! When the players go on in a new epoch (a rejoin, a resync), the host's new GGRS session
//! has no spectators: those of the old one are carried over as late spectators that go on
//! from their own last tick (they say which in their first [`Control::RelayAck`]; what they
//! lack is in the host's history), and every spectator is told the new epoch and its tick
//! ([`Control::CatchUp`] again, repeated until its acknowledgement names that epoch: one that
//! already holds the tick must still hear of it). A spectator marks the epoch where the
//! players do, after comparing its state there with the host's.

use super::transfer::{self, Assembly};
use super::{NetEvent, NetPeer, Session};
use crate::error::Error;
use crate::net::handshake::AnswerBudget;
use crate::net::seal::Responder;
use crate::net::socket::SharedLink;
use crate::net::wire::{self, Control, HostAnswer, InputRun, Kind, PeerInfo, Role, SnapshotOffer};
use crate::session::driver::Driver;
use game_api::{Game, SectionHash, Tick};
use std::collections::VecDeque;
use std::net::SocketAddr;
use std::time::{Duration, Instant};

/// Most ticks of inputs relayed in one datagram (2 players × 5 bytes each: 600 bytes).
pub const MAX_RELAY_TICKS: usize = 60;
/// Most relayed ticks a spectator holds ahead of its world.
const MAX_QUEUED_TICKS: usize = 3600;
/// How often what is unacknowledged is sent again.
const REPEAT: Duration = Duration::from_millis(150);
/// How long a welcomed spectator may take to prove it holds its keys (a sealed datagram)
/// before it is forgotten. Nothing but the handshake's answer goes to it before: a `Hello`
/// from a spoofed address cannot make the host send a snapshot to someone else.
const UNPROVEN_FOR: Duration = Duration::from_secs(5);

/// A spectator welcomed after the start, as the host keeps it.
#[derive(Debug)]
struct Watcher {
    addr: SocketAddr,
    /// The snapshot it starts from, the epoch that snapshot is in, and its bytes.
    offer: SnapshotOffer,
    offer_epoch: u32,
    bytes: Vec<u8>,
    /// The last tick it said it holds (`None`: not even the snapshot yet).
    acked: Option<Tick>,
    /// The last tick sent to it.
    sent_through: Tick,
    /// When the snapshot's parts went out whole (once; then only on request).
    parts_sent: bool,
    /// When it may next be sent parts it asks for (a request is answered once per
    /// [`REPEAT`]: asking cannot multiply what the host sends).
    parts_due: Instant,
    next: Instant,
    heard: Instant,
    welcomed: Instant,
    /// A spectator of the old GGRS session, carried into a new epoch: its first ack may say
    /// any tick it holds (it goes on from its own state, not from `offer`).
    carried: bool,
    /// The last epoch it says it was told of.
    epoch_acked: u32,
    /// A new epoch to tell it of (its epoch and its state at its first tick), repeated until
    /// it says it was told (`epoch_acked`): holding the epoch's first tick is not enough, it
    /// marks the epoch there only once told. Meanwhile no tick after that one is relayed to
    /// it, so it cannot step past the mark before hearing of it.
    announce: Option<(u32, SnapshotOffer)>,
}

/// Why a late spectator is forgotten.
enum Forget {
    /// Unproven for too long, or silent for the reconnect grace.
    Silent,
    /// So far behind that the history no longer holds this next tick of its.
    Behind(Tick),
}

/// What the relay to every late spectator shares in one frame.
struct RelayNow {
    now: Instant,
    grace: Duration,
    players: usize,
    final_tick: Tick,
}

impl Watcher {
    /// A spectator followed from `tick`, offered `offer` of `epoch` (whose bytes are
    /// `bytes`). A `carried` one (of the old GGRS session, into a new epoch) has its own
    /// state: the snapshot's parts go to it only if it asks for them.
    fn new(
        addr: SocketAddr,
        (epoch, offer): (u32, SnapshotOffer),
        bytes: Vec<u8>,
        tick: Tick,
        carried: bool,
    ) -> Watcher {
        let now = Instant::now();
        Watcher {
            addr,
            offer,
            offer_epoch: epoch,
            bytes,
            acked: None,
            sent_through: tick,
            parts_sent: carried,
            parts_due: now,
            next: now,
            heard: now,
            welcomed: now,
            carried,
            epoch_acked: 0,
            announce: None,
        }
    }

    /// Sends this spectator what it lacks: the snapshot until it has it, then the ticks it
    /// has not acknowledged. `Some` when it is to be forgotten.
    fn relay<G: Game>(
        &mut self,
        link: &SharedLink,
        driver: &Driver<G>,
        at: &RelayNow,
    ) -> Option<Forget> {
        let now = at.now;
        if !link.borrow().proven(self.addr) {
            return (now.saturating_duration_since(self.welcomed) > UNPROVEN_FOR)
                .then_some(Forget::Silent);
        }
        if now.saturating_duration_since(self.heard) > at.grace {
            return Some(Forget::Silent);
        }
        let fresh = self.relayable_through(at.final_tick) > self.sent_through;
        if now < self.next && !fresh {
            return None;
        }
        let Some(acked) = self.acked else {
            self.send_snapshot(link, now);
            return None;
        };
        self.announce_epoch(link, now);
        self.send_ticks(acked, link, driver, at)
    }

    /// The snapshot's offer when due; its parts go whole once, after that only those asked
    /// for.
    ///
    /// The offer names the snapshot's own epoch, not the host's now: a spectator welcomed
    /// just before the players went on in a new epoch starts in the old one and is then told
    /// the new one, as the others are.
    fn send_snapshot(&mut self, link: &SharedLink, now: Instant) {
        if now < self.next {
            return;
        }
        self.next = now + REPEAT;
        let mut link = link.borrow_mut();
        let offer = Control::CatchUp {
            epoch: self.offer_epoch,
            snapshot: self.offer,
        };
        link.send_control(&offer, self.addr);
        if self.parts_sent {
            return;
        }
        self.parts_sent = true;
        let all = transfer::all_parts(self.offer.len);
        for chunk in transfer::part_messages(self.offer.tick, &self.bytes, all) {
            link.send_control(&chunk, self.addr);
        }
    }

    /// The last tick it may be relayed: the final one, or a new epoch's first until it was
    /// told of that epoch.
    fn relayable_through(&self, final_tick: Tick) -> Tick {
        self.announce
            .map_or(final_tick, |(_, offer)| final_tick.min(offer.tick))
    }

    /// A new epoch, told at the relay's pace until the spectator says it was told.
    fn announce_epoch(&mut self, link: &SharedLink, now: Instant) {
        match self.announce {
            Some((epoch, _)) if self.epoch_acked >= epoch => self.announce = None,
            Some((epoch, snapshot)) if now >= self.next => {
                (link.borrow_mut()).send_control(&Control::CatchUp { epoch, snapshot }, self.addr);
            }
            _ => {}
        }
    }

    /// New ticks at once; unacknowledged ones again after a while; none past a new epoch's
    /// first tick until it was told of that epoch. `Some` when the history no longer holds
    /// the first tick it needs.
    fn send_ticks<G: Game>(
        &mut self,
        acked: Tick,
        link: &SharedLink,
        driver: &Driver<G>,
        at: &RelayNow,
    ) -> Option<Forget> {
        let now = at.now;
        let from = if now >= self.next {
            acked + 1
        } else {
            self.sent_through + 1
        };
        let through =
            (self.relayable_through(at.final_tick)).min(from + MAX_RELAY_TICKS as Tick - 1);
        if through < from {
            self.next = now + REPEAT;
            return None;
        }
        let ticks = (through - from + 1) as usize;
        let mut inputs = Vec::with_capacity(ticks * at.players);
        for t in from..=through {
            match driver.inputs_at(t - 1) {
                Ok(i) => inputs.extend(i.iter().copied()),
                Err(_) => break,
            }
        }
        let (Ok(hash), true) = (driver.hash_at(through), inputs.len() == ticks * at.players) else {
            return Some(Forget::Behind(from));
        };
        let relay = Control::Relay {
            from,
            inputs: InputRun::encode(&inputs),
            hash: hash.combined(),
        };
        link.borrow_mut().send_control(&relay, self.addr);
        self.sent_through = self.sent_through.max(through);
        if now >= self.next {
            self.next = now + REPEAT;
        }
        None
    }
}

/// A late spectator's side: the snapshot arriving, then the relayed ticks.
#[derive(Debug)]
pub(super) struct Relayed<G: Game> {
    /// Inputs of the ticks after the world's, oldest first.
    queue: VecDeque<Vec<G::Input>>,
    /// The host's hashes still to compare, `(tick, hash)`, oldest first.
    expected: VecDeque<(Tick, u64)>,
    heard: Instant,
    next_ack: Instant,
}

impl<G: Game> Relayed<G> {
    fn new() -> Relayed<G> {
        let now = Instant::now();
        Relayed {
            queue: VecDeque::new(),
            expected: VecDeque::new(),
            heard: now,
            next_ack: now,
        }
    }

    /// Relayed ticks not yet simulated.
    pub(super) fn queued(&self) -> usize {
        self.queue.len()
    }
}

/// Both sides' state of late spectators.
#[derive(Debug, Default)]
pub(super) struct Watch {
    watchers: Vec<Watcher>,
    budget: Option<AnswerBudget>,
    /// The spectator's: the host's epoch and its snapshot arriving.
    catch_up: Option<(u32, Assembly, Instant)>,
    /// Late `Hello`s refused (other build or rules, no invite code, too many spectators).
    pub(super) refused: u64,
    /// Whether the host takes late spectators' `Hello`s (from the session's first running
    /// frame: while GGRS synchronizes, a spectator is refused as before).
    open: bool,
    /// The spectator's: a new epoch of the players to mark where it begins, `(epoch, tick,
    /// the host's hash there)`.
    mark: Option<(u32, Tick, u64)>,
}

impl<G: Game> NetPeer<G> {
    /// A spectator's `Hello` at a running host: welcomed as a late spectator, or refused.
    pub(super) fn answer_late_hello(&mut self, from: SocketAddr, hello: &Control) {
        let Control::Hello {
            info,
            role: Role::Spectator,
            invite,
            noise,
        } = hello
        else {
            return;
        };
        // A peer already (a late spectator repeating its `Hello`, a spectator of the start):
        // the link answered it again.
        if self.link.borrow().peers().contains(&from) {
            return;
        }
        let budget = self.watch.budget.get_or_insert_with(AnswerBudget::new);
        if !budget.take(Instant::now()) {
            self.link.borrow_mut().count_rate_limited();
            return;
        }
        let refuse = |link: &crate::net::socket::SharedLink, reason: &str| {
            let bytes = wire::encode(
                Kind::Control,
                0,
                &Control::Reject {
                    reason: reason.to_owned(),
                },
            );
            link.borrow_mut().send_raw(&bytes, from);
        };
        if *invite != self.config.invite.is_some() {
            self.watch.refused += 1;
            return refuse(
                &self.link,
                if *invite {
                    "this host takes no invite code: join with its address alone"
                } else {
                    "this match needs its invite code: ask the host for the whole invitation"
                },
            );
        }
        let prologue = wire::hello_prologue(info, Role::Spectator, *invite);
        let Ok(responder) = Responder::read_hello(&prologue, self.config.invite.as_ref(), noise)
        else {
            self.watch.refused += 1;
            return refuse(&self.link, "the invite code does not match the host's");
        };
        let answer = self.late_answer(from, info);
        let welcomed = matches!(answer, HostAnswer::Welcome { .. });
        let Ok((noise, channel)) = responder.answer(&wire::encode_payload(&answer)) else {
            return;
        };
        let datagram = wire::encode(Kind::Control, 0, &Control::Answer { noise });
        let mut link = self.link.borrow_mut();
        link.send_raw(&datagram, from);
        if !welcomed {
            self.watch.refused += 1;
            return;
        }
        link.add_channel(from, channel);
        link.answer_hellos_with(from, datagram);
        drop(link);
        self.follow_late_spectator(from);
    }

    /// The host's answer to a late spectator whose `Hello` opened: welcome, unless its build
    /// or rules differ or every late spectator slot is taken.
    fn late_answer(&self, from: SocketAddr, info: &PeerInfo) -> HostAnswer {
        let ours = PeerInfo::local::<G>(&self.config.rules);
        if let Some(diff) = ours.differences(info) {
            HostAnswer::Reject {
                reason: format!("peer {from} differs from host (host's value first): {diff}"),
            }
        } else if self.watch.watchers.len() >= self.config.late_spectators {
            HostAnswer::Reject {
                reason: format!(
                    "spectator slots full: all {} are taken",
                    self.config.late_spectators
                ),
            }
        } else {
            HostAnswer::Welcome {
                info: ours,
                match_seed: self.agreement.match_seed,
                players: self.agreement.players,
                slot: None,
                secret: None,
            }
        }
    }

    /// A welcomed late spectator is followed from the last final tick: its snapshot is offered
    /// (and its parts sent) by [`NetPeer::relay_to_watchers`].
    fn follow_late_spectator(&mut self, from: SocketAddr) {
        let tick = self.final_tick;
        let (Ok(snapshot), Ok(hash)) = (self.driver.snapshot_at(tick), self.driver.hash_at(tick))
        else {
            return;
        };
        let bytes = G::snapshot_to_bytes(snapshot);
        let offer = transfer::offer(tick, &bytes, hash.combined());
        let epoch = self.agreement.epoch;
        let watcher = Watcher::new(from, (epoch, offer), bytes, tick, false);
        self.watch.watchers.push(watcher);
    }

    /// The players went on in `epoch` from `tick`: the spectators of the old GGRS session
    /// (`old`) are followed outside GGRS from their own last tick, and every spectator is
    /// told the new epoch.
    ///
    /// # Errors
    /// [`Error::Ggrs`] if the state at `tick` is no longer held (cannot happen: it was just
    /// reached).
    pub(super) fn carry_spectators(
        &mut self,
        old: &[SocketAddr],
        epoch: u32,
        tick: Tick,
    ) -> Result<(), Error> {
        if old.is_empty() && self.watch.watchers.is_empty() {
            return Ok(());
        }
        let bytes = G::snapshot_to_bytes(self.driver.snapshot_at(tick)?);
        let offer = transfer::offer(tick, &bytes, self.driver.hash_at(tick)?.combined());
        let now = Instant::now();
        for w in &mut self.watch.watchers {
            w.announce = Some((epoch, offer));
            w.next = now;
        }
        for &addr in old {
            if self.is_watcher(addr) {
                continue;
            }
            let watcher = Watcher::new(addr, (epoch, offer), bytes.clone(), tick, true);
            self.watch.watchers.push(watcher);
        }
        Ok(())
    }

    /// Once the host's session runs, spectators' `Hello`s reach it (if it takes late ones).
    pub(super) fn open_to_late_spectators(&mut self) {
        if !self.watch.open
            && self.local_handle == Some(0)
            && self.config.late_spectators > 0
            && self.running()
        {
            self.watch.open = true;
            self.link.borrow_mut().accept_late_spectators(true);
        }
    }

    /// Whether `from` is a spectator welcomed after the start.
    pub(super) fn is_watcher(&self, from: SocketAddr) -> bool {
        self.watch.watchers.iter().any(|w| w.addr == from)
    }

    /// Spectators welcomed after the start, still followed.
    #[must_use]
    pub fn late_spectators(&self) -> usize {
        self.watch.watchers.len()
    }

    /// Late spectators' `Hello`s refused: another build or rules, an invite code missing,
    /// unwanted or wrong, or every late spectator slot taken.
    #[must_use]
    pub fn refused_late_spectators(&self) -> u64 {
        self.watch.refused
    }

    /// Sends each late spectator what it lacks: the snapshot until it has it, then the ticks
    /// it has not acknowledged; forgets one silent for the reconnect grace, or so far behind
    /// that the history no longer holds its next tick.
    pub(super) fn relay_to_watchers(&mut self) {
        if self.watch.watchers.is_empty() {
            return;
        }
        let at = RelayNow {
            now: Instant::now(),
            grace: self.config.disconnect_timeout,
            players: usize::from(self.agreement.players),
            final_tick: self.final_tick,
        };
        let mut gone = Vec::new();
        for w in &mut self.watch.watchers {
            if let Some(why) = w.relay(&self.link, &self.driver, &at) {
                gone.push((w.addr, why));
            }
        }
        for (addr, why) in gone {
            let mut link = self.link.borrow_mut();
            match why {
                // Told again at each acknowledgement it still sends, should this be lost.
                Forget::Behind(from) => link.turn_away(
                    addr,
                    &format!(
                        "you fell too far behind: tick {from} is no longer held here; watch again"
                    ),
                ),
                Forget::Silent => link.drop_peer(addr),
            }
            self.watch.watchers.retain(|w| w.addr != addr);
        }
    }

    /// A late spectator says it holds every tick through `through` and was told of the
    /// players' epochs through `epoch`.
    pub(crate) fn take_relay_ack(&mut self, from: SocketAddr, through: Tick, epoch: u32) {
        let final_tick = self.final_tick;
        if let Some(w) = self.watch.watchers.iter_mut().find(|w| w.addr == from) {
            w.heard = Instant::now();
            // A spectator naming an epoch it was not told of only keeps the notice from
            // itself (it is sealed: nobody else can say so for it).
            w.epoch_acked = w.epoch_acked.max(epoch);
            // Never past what it was sent: an ack of more is a lie and moves nothing. A carried
            // spectator's first says where its own state is.
            let own_state = w.carried && w.acked.is_none();
            if (through >= w.offer.tick || own_state) && through <= w.sent_through.min(final_tick) {
                w.acked = Some(w.acked.map_or(through, |a| a.max(through)));
            }
        }
    }

    /// A late spectator asks again for parts of its snapshot.
    pub(crate) fn resend_catch_up(&mut self, from: SocketAddr, tick: Tick, missing: &[u16]) {
        let Some(w) = self.watch.watchers.iter_mut().find(|w| w.addr == from) else {
            return;
        };
        let now = Instant::now();
        w.heard = now;
        if w.offer.tick != tick || now < w.parts_due {
            return;
        }
        w.parts_due = now + REPEAT;
        let mut link = self.link.borrow_mut();
        for chunk in transfer::part_messages(tick, &w.bytes, missing.iter().copied()) {
            link.send_control(&chunk, from);
        }
    }

    // The spectator's side.

    /// The host's `CatchUp`: for a spectator not yet following anything, the state to start
    /// from; for one following already, the players' new epoch.
    pub(crate) fn take_catch_up(&mut self, from: SocketAddr, epoch: u32, offer: SnapshotOffer) {
        let host = self.agreement.remote_players.first().map(|&(_, a)| a);
        if self.local_handle.is_some() || host != Some(from) {
            return;
        }
        let following = self.running() || matches!(self.session, Session::Relay(_));
        if following {
            if epoch > self.agreement.epoch {
                self.follow_epoch(from, epoch, offer);
            }
            return;
        }
        let waiting =
            matches!(self.session, Session::Spectator(_)) && self.watch.catch_up.is_none();
        if !waiting {
            return;
        }
        match Assembly::new(offer) {
            Ok(assembly) => self.watch.catch_up = Some((epoch, assembly, Instant::now())),
            Err(e) => {
                self.failure = Some(Error::CatchUpFailed {
                    reason: e.to_string(),
                })
            }
        }
    }

    /// A part of the host's snapshot for a late spectator; `false` if none is awaited.
    pub(crate) fn take_catch_up_part(&mut self, tick: Tick, index: u16, bytes: &[u8]) -> bool {
        let Some((_, assembly, _)) = &mut self.watch.catch_up else {
            return false;
        };
        if assembly.add(tick, index, bytes).is_err() {
            self.resync.refused_parts += 1;
        }
        true
    }

    /// The tick of the snapshot a late spectator is gathering, and the parts it misses.
    #[cfg(test)]
    pub(crate) fn gathering(&self) -> Option<(Tick, Vec<u16>)> {
        let (_, assembly, _) = self.watch.catch_up.as_ref()?;
        Some((assembly.offer().tick, assembly.missing()))
    }

    /// A late spectator whose snapshot is complete starts following from it: a driver at the
    /// snapshot's tick, the relay instead of GGRS. Asks for missing parts meanwhile.
    pub(super) fn finish_catch_up(&mut self) {
        let Some((epoch, assembly, next)) = &mut self.watch.catch_up else {
            return;
        };
        let host = self.agreement.remote_players[0].1;
        let missing = assembly.missing();
        if !missing.is_empty() {
            if Instant::now() >= *next {
                *next = Instant::now() + REPEAT;
                let tick = assembly.offer().tick;
                self.link
                    .borrow_mut()
                    .send_control(&Control::SnapshotNeed { tick, missing }, host);
            }
            return;
        }
        let epoch = *epoch;
        let result = assembly.finish::<G>(self.driver.world().rules());
        self.watch.catch_up = None;
        let world = match result {
            Ok((world, _)) => world,
            Err(e) => {
                self.failure = Some(Error::CatchUpFailed {
                    reason: format!("the host's state was refused: {e}"),
                });
                return;
            }
        };
        let tick = world.tick();
        let mut driver = Driver::with_history(world, super::peer_history(&self.config));
        driver.start_frames_here();
        self.driver = driver;
        self.final_tick = tick;
        self.progress = (tick, Instant::now());
        self.agreement.epoch = epoch;
        self.session = Session::Relay(Box::new(Relayed::new()));
        self.link.borrow_mut().send_control(
            &Control::RelayAck {
                through: tick,
                epoch,
            },
            host,
        );
    }

    /// The players went on in `epoch` from `offer.tick`: a spectator of the old GGRS session
    /// follows the host's relay from its own last tick; every spectator marks the epoch once
    /// it reaches that tick (comparing its state there with the host's).
    fn follow_epoch(&mut self, host: SocketAddr, epoch: u32, offer: SnapshotOffer) {
        let tick = self.driver.world().tick();
        if tick > offer.tick {
            self.failure = Some(Error::CatchUpFailed {
                reason: format!(
                    "the players went on in epoch {epoch} from tick {}, before this \
                     spectator's tick {tick}",
                    offer.tick
                ),
            });
            return;
        }
        self.agreement.epoch = epoch;
        self.watch.mark = Some((epoch, offer.tick, offer.hash));
        if let Session::Spectator(_) = self.session {
            // The old epoch's GGRS session sends nothing more: the relay goes on from here,
            // once the host hears where (a relayed spectator acknowledges as it always does).
            self.driver.start_frames_here();
            self.final_tick = tick;
            self.progress = (tick, Instant::now());
            self.session = Session::Relay(Box::new(Relayed::new()));
            self.link.borrow_mut().send_control(
                &Control::RelayAck {
                    through: tick,
                    epoch,
                },
                host,
            );
        }
        self.mark_epoch_if_there();
    }

    /// Marks the players' new epoch once this spectator's world has reached its first tick
    /// (its logs record it after that tick's line, as the players' do).
    fn mark_epoch_if_there(&mut self) {
        let Some((epoch, tick, hash)) = self.watch.mark else {
            return;
        };
        if self.driver.world().tick() < tick {
            return;
        }
        self.watch.mark = None;
        let Ok(ours) = self.driver.hash_at(tick) else {
            return;
        };
        let host = self.agreement.remote_players[0].1;
        if ours.combined() != hash {
            self.events.push(NetEvent::DesyncDetected {
                tick,
                local: ours.combined(),
                remote: hash,
                peer: host,
            });
        }
        self.epochs.push(super::EpochChange {
            epoch,
            tick,
            hash: ours,
            peer: host,
            cause: super::EpochCause::Followed,
        });
    }

    /// Relayed ticks from the host: the part after what this spectator holds is queued.
    pub(crate) fn take_relay(
        &mut self,
        from: SocketAddr,
        first: Tick,
        inputs: &[G::Input],
        hash: u64,
    ) {
        let players = usize::from(self.agreement.players);
        let host = self.agreement.remote_players.first().map(|&(_, a)| a);
        let world_tick = self.driver.world().tick();
        let Session::Relay(relay) = &mut self.session else {
            return;
        };
        if host != Some(from) || players == 0 || !inputs.len().is_multiple_of(players) {
            return;
        }
        relay.heard = Instant::now();
        let next = world_tick + 1 + relay.queue.len() as Tick;
        let n = inputs.len() / players;
        let Some(last) = (first + n as Tick).checked_sub(1) else {
            return;
        };
        if first > next || last < next || n == 0 || n > MAX_RELAY_TICKS {
            return; // a gap before it (sent again later), nothing new, or more than is sent
        }
        let skip = (next - first) as usize;
        for tick in inputs.chunks(players).skip(skip) {
            if relay.queue.len() >= MAX_QUEUED_TICKS {
                break;
            }
            relay.queue.push_back(tick.to_vec());
        }
        if relay.expected.back().is_none_or(|&(t, _)| t < last) {
            relay.expected.push_back((last, hash));
        }
        relay.next_ack = Instant::now();
    }

    /// Simulates relayed ticks: one per frame when following live, `catchup_speed` when
    /// further behind than `max_frames_behind`; compares the host's hashes on the way.
    pub(super) fn advance_relayed(&mut self) -> Result<bool, Error> {
        let host = self.agreement.remote_players[0].1;
        let (behind, catchup) = (self.config.max_frames_behind, self.config.catchup_speed);
        let Session::Relay(relay) = &mut self.session else {
            return Ok(false);
        };
        let steps = if relay.queue.len() > behind {
            catchup
        } else {
            1
        };
        let mut stepped = false;
        for _ in 0..steps {
            let Some(inputs) = relay.queue.pop_front() else {
                break;
            };
            self.driver.step_confirmed(&inputs)?;
            stepped = true;
            let tick = self.driver.world().tick();
            while let Some(&(t, hash)) = relay.expected.front() {
                if t > tick {
                    break;
                }
                relay.expected.pop_front();
                // Every tick stepped this frame is compared, not only the last (catching up
                // steps several).
                let Ok(ours) = self.driver.hash_at(t).map(|h| h.combined()) else {
                    continue;
                };
                if ours != hash {
                    self.events.push(NetEvent::DesyncDetected {
                        tick: t,
                        local: ours,
                        remote: hash,
                        peer: host,
                    });
                }
            }
        }
        self.final_tick = self.driver.world().tick();
        self.mark_epoch_if_there();
        Ok(stepped)
    }

    /// A late spectator's housekeeping each poll: acknowledges what it holds, and gives the
    /// host up after the reconnect grace of silence.
    pub(super) fn poll_relayed(&mut self) {
        let host = self.agreement.remote_players[0].1;
        let (held, epoch) = (self.final_tick, self.agreement.epoch);
        let grace = self.config.disconnect_timeout;
        let Session::Relay(relay) = &mut self.session else {
            return;
        };
        let now = Instant::now();
        if now.saturating_duration_since(relay.heard) > grace {
            if !self.timed_out.contains(&host) {
                self.timed_out.push(host);
            }
            self.report_gone(host);
            return;
        }
        if now >= relay.next_ack {
            relay.next_ack = now + REPEAT;
            let through = held + relay.queue.len() as Tick;
            self.link
                .borrow_mut()
                .send_control(&Control::RelayAck { through, epoch }, host);
        }
    }

    /// How many relayed ticks a late spectator has yet to simulate, while it catches up
    /// (more than `max_frames_behind`); `None` when following live, or not a late spectator.
    #[must_use]
    pub fn catching_up(&self) -> Option<usize> {
        match &self.session {
            Session::Relay(r) if r.queue.len() > self.config.max_frames_behind => {
                Some(r.queue.len())
            }
            _ => None,
        }
    }
}
