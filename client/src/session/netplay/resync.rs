//! Resync after a desync: the host's confirmed state is authoritative, the joiner loads it, and
//! play goes on under a new epoch.
//!
//! A desync means the two sides simulated the same confirmed inputs to different states. The
//! forensic dumps are written as before (the caller's, at [`NetEvent::DesyncDetected`]); then,
//! unless [`super::NetConfig::resync`] is off:
//!
//! 1. Whoever detects it first says so, sealed ([`Control::Resync`]), and stops its session:
//!    nothing of the old epoch goes out from then on. The host (slot 0) *leads*; the joiner
//!    *follows*: it says where it stands with the rejoin's [`Control::Resume`] (its last final
//!    tick and the inputs of its last ticks), repeated until answered.
//! 2. A host with spectators of the start first plays its old session on (the joiner has
//!    stopped, so only confirmed frames become final) until its final tick reaches the last
//!    tick GGRS relayed to them: its input delay confirms frames its world has not reached,
//!    and a spectator steps those at once; an epoch beginning before them would strand it.
//!    The host takes the resume tick `R` as the later of both last final ticks (stepping its
//!    own state through the joiner's inputs if the joiner was ahead, its own inputs there
//!    checked as in a rejoin; the states are not compared, they differ), and answers
//!    [`Control::ResyncAt`]: the new epoch, `R`, the inputs of the ticks the joiner lacks
//!    (its log misses none), and the offer of its own snapshot at `R`, sent in
//!    [`Control::SnapshotChunk`]s. Then it starts the new epoch's session.
//! 3. The joiner asks again for what is missing ([`Control::SnapshotNeed`]), checks the whole
//!    ([`super::transfer`]: checksum, `Game::snapshot_from_bytes`, tick, rules, hash), steps
//!    its own state through the gap, replaces its state at `R` by the host's and starts the
//!    new epoch's session too. Its logs keep its own state up to `R` and record the resync
//!    after it, with the host's snapshot, so `verify` goes straight through.
//!
//! The state is replaced only in [`NetPeer::advance`], never in `poll`: the caller has read
//! the `DesyncDetected` event (and written its dumps from the joiner's own states) by then.

use super::transfer::{self, Assembly};
use super::{EpochCause, EpochChange, NetEvent, NetPeer};
use crate::error::Error;
use crate::net::wire::{Control, InputRun};
use game_api::{Game, SectionHash, Tick};
use std::net::SocketAddr;
use std::time::{Duration, Instant};

/// Most resyncs one match goes through; a desync after that ends nothing but is no longer
/// repaired (a build that diverges every few seconds is better shown than hidden).
pub const MAX_RESYNCS: u32 = 8;
/// How often a message of the resync is repeated while unanswered.
const REPEAT: Duration = Duration::from_millis(150);

/// What a resync replaced, kept with the epoch it began.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ResyncDetail<G: Game> {
    /// The tick the desync was detected at.
    pub desync: Tick,
    /// This side's own state hash at the resume tick, before it was replaced (the host's
    /// equals the new one).
    pub replaced: G::Hash,
    /// This side's own state at the resume tick, before it was replaced (what its logs hold
    /// for that tick).
    pub replaced_state: G::Snapshot,
    /// The authoritative snapshot at the resume tick, as sent ([`Game::snapshot_to_bytes`]).
    pub snapshot: Vec<u8>,
    /// From the desync seen to the new epoch started, on this side.
    pub took: Duration,
}

/// The joiner's side of a resync under way.
#[derive(Debug)]
struct Following<G: Game> {
    desync: Tick,
    since: Instant,
    next: Instant,
    /// Its `Resume`, repeated until the host answers.
    resume: Control,
    /// The host's answer, once it came: the new epoch, the resume tick, the gap's inputs and
    /// the snapshot arriving.
    answer: Option<(u32, Tick, Vec<G::Input>, Assembly)>,
}

/// The host's side of a resync under way: a desync at `desync` seen, the joiner's `Resume`
/// awaited.
#[derive(Debug)]
struct Leading {
    desync: Tick,
    since: Instant,
    next: Instant,
}

/// Both sides' resync state.
#[derive(Debug)]
pub(super) struct Resyncs<G: Game> {
    /// Resyncs started in this match.
    started: u32,
    leading: Option<Leading>,
    following: Option<Following<G>>,
    /// The host's last answer and the snapshot it offers, to send again when asked.
    answered: Option<(SocketAddr, Control, Vec<u8>)>,
    /// Snapshot parts refused (of another tick, out of range, of the wrong length).
    pub(super) refused_parts: u64,
    /// When parts asked for may next be sent.
    parts_due: Option<Instant>,
}

impl<G: Game> Default for Resyncs<G> {
    fn default() -> Resyncs<G> {
        Resyncs {
            started: 0,
            leading: None,
            following: None,
            answered: None,
            refused_parts: 0,
            parts_due: None,
        }
    }
}

impl<G: Game> NetPeer<G> {
    /// Whether a resync holds the old session still (it is not polled meanwhile).
    pub(super) fn resync_holds(&self) -> bool {
        self.resync.leading.is_some() || self.resync.following.is_some()
    }

    /// Snapshot parts refused so far (of another tick, out of range, of the wrong length).
    #[must_use]
    pub fn refused_snapshot_parts(&self) -> u64 {
        self.resync.refused_parts
    }

    /// A desync detected at `tick` (by GGRS on this side, or said by the other player):
    /// starts a resync if this match does them and has not done too many.
    pub(crate) fn begin_resync(&mut self, tick: Tick, said_by_other: bool) {
        let now = Instant::now();
        let Some(remote) = self.remote_player() else {
            return;
        };
        if !self.config.resync || self.resync_holds() || self.resync.started >= MAX_RESYNCS {
            return;
        }
        self.resync.started += 1;
        // The answer to an earlier resync (or a rejoin's state sent whole) is obsolete: the
        // joiner's `Resume` now asks for this one.
        self.resync.answered = None;
        if self.agreement.local_slot == Some(0) {
            self.resync.leading = Some(Leading {
                desync: tick,
                since: now,
                next: now + REPEAT,
            });
            let hash = self.own_checksum(tick);
            self.link
                .borrow_mut()
                .send_control(&Control::Resync { tick, hash }, remote);
            return;
        }
        let resume = self.own_resume();
        let hash = self.own_checksum(tick);
        let mut link = self.link.borrow_mut();
        if !said_by_other {
            link.send_control(&Control::Resync { tick, hash }, remote);
        }
        link.send_control(&resume, remote);
        drop(link);
        self.resync.following = Some(Following {
            desync: tick,
            since: now,
            next: now + REPEAT,
            resume,
            answer: None,
        });
    }

    /// The other player says the states differ at `tick` (its hash there: `hash`): the
    /// desync is reported as if detected here (so this side dumps its states too, as it
    /// would have at its own detection), and the resync starts.
    pub(super) fn desync_said_by(&mut self, from: SocketAddr, tick: Tick, hash: u64) {
        if !self.config.resync || self.resync_holds() || self.resync.started >= MAX_RESYNCS {
            return;
        }
        self.events.push(NetEvent::DesyncDetected {
            tick,
            local: self.own_checksum(tick),
            remote: hash,
            peer: from,
        });
        self.begin_resync(tick, true);
    }

    /// This side's checksum at `tick` (0 if it is no longer kept).
    fn own_checksum(&self, tick: Tick) -> u64 {
        self.driver.hash_at(tick).map_or(0, |h| h.combined())
    }

    /// Whether a `Resume` from `from` belongs to a resync (led now, or answered already).
    pub(super) fn resync_answers(&self, from: SocketAddr) -> bool {
        self.resync.leading.is_some()
            || (self.resync.answered.as_ref()).is_some_and(|(to, ..)| *to == from)
    }

    /// Whether `from` is the remote player of a two-player match.
    pub(super) fn remote_player_is(&self, from: SocketAddr) -> bool {
        self.remote_player() == Some(from)
    }

    /// Forgets the last resync's answer (a rejoin starts an epoch of its own).
    pub(super) fn forget_resync_answer(&mut self) {
        self.resync.answered = None;
    }

    /// The remote player of a two-player match (the only kind a resync repairs).
    fn remote_player(&self) -> Option<SocketAddr> {
        match (self.local_handle, self.agreement.remote_players.as_slice()) {
            (Some(_), [(_, addr)]) => Some(*addr),
            _ => None,
        }
    }

    /// The joiner's `Resume`: its last final tick, its hash, and every player's inputs of its
    /// last ticks (those the host may not have confirmed).
    fn own_resume(&self) -> Control {
        let through = self.final_tick;
        // `MAX_RECENT_TICKS` ticks ending at `through`.
        let first = (through + 1)
            .saturating_sub(super::rejoin::MAX_RECENT_TICKS as Tick)
            .max(1);
        let mut recent = Vec::new();
        // The inputs of the ticks the history still holds, oldest first, up to `through`.
        let held = (first..=through).find(|&t| self.driver.inputs_at(t - 1).is_ok());
        if let Some(from) = held {
            for t in from..=through {
                match self.driver.inputs_at(t - 1) {
                    Ok(inputs) => recent.extend(inputs.iter().copied()),
                    Err(_) => {
                        recent.clear();
                        break;
                    }
                }
            }
        }
        Control::Resume {
            through,
            hash: self.driver.hash_at(through).map_or(0, |h| h.combined()),
            recent: InputRun::encode(&recent),
        }
    }

    /// Repeats what is unanswered, and gives up after the reconnect grace.
    pub(super) fn drive_resync(&mut self) {
        let now = Instant::now();
        let Some(remote) = self.remote_player() else {
            return;
        };
        let grace = self.config.disconnect_timeout;
        if let Some(lead) = &mut self.resync.leading {
            if now.saturating_duration_since(lead.since) > grace {
                self.resync.leading = None;
                self.failure = Some(resync_failed(format!(
                    "the other player did not take part in the resync within {} s",
                    crate::net::handshake::whole_seconds(grace)
                )));
            } else if now >= lead.next {
                lead.next = now + REPEAT;
                let tick = lead.desync;
                let hash = self.own_checksum(tick);
                self.link
                    .borrow_mut()
                    .send_control(&Control::Resync { tick, hash }, remote);
            }
        }
        if let Some(follow) = &mut self.resync.following {
            if now.saturating_duration_since(follow.since) > grace {
                self.resync.following = None;
                self.failure = Some(resync_failed(format!(
                    "the host did not send its state within {} s",
                    crate::net::handshake::whole_seconds(grace)
                )));
            } else if now >= follow.next {
                follow.next = now + REPEAT;
                let message = match &follow.answer {
                    None => follow.resume.clone(),
                    Some((_, _, _, assembly)) => Control::SnapshotNeed {
                        tick: assembly.offer().tick,
                        missing: assembly.missing(),
                    },
                };
                self.link.borrow_mut().send_control(&message, remote);
            }
        }
    }

    /// The host's answer to the joiner's `Resume` during a resync (or the same answer again).
    pub(crate) fn answer_resync(&mut self, from: SocketAddr, through: Tick, recent: &[G::Input]) {
        if let Some((to, answer, _)) = &self.resync.answered {
            // The answer again, not the parts: those go when asked for.
            if *to == from {
                let answer = answer.clone();
                self.link.borrow_mut().send_control(&answer, from);
                return;
            }
        }
        if self.spectators_ahead() {
            // Answered once the old session reached what its spectators hold (the joiner
            // repeats its `Resume` meanwhile).
            return;
        }
        let Some(lead) = self.resync.leading.take() else {
            return;
        };
        if self.remote_player() != Some(from) {
            self.resync.leading = Some(lead);
            return;
        }
        let agreed = match self.agree_resume(through, 0, recent, false) {
            Ok(agreed) => agreed,
            Err(reason) => {
                let reason = format!("the resync cannot go on from the joiner's state: {reason}");
                self.link.borrow_mut().send_control(
                    &Control::Reject {
                        reason: reason.clone(),
                    },
                    from,
                );
                self.failure = Some(resync_failed(reason));
                return;
            }
        };
        if let Err(e) = self.lead_epoch(from, agreed, lead) {
            self.failure = Some(e);
        }
    }

    /// The host's new epoch after a desync: steps to the resume tick, sends the answer and
    /// its snapshot there, and starts the session.
    fn lead_epoch(
        &mut self,
        to: SocketAddr,
        agreed: super::rejoin::Agreed<G>,
        lead: Leading,
    ) -> Result<(), Error> {
        let super::rejoin::Agreed {
            resume: tick,
            gap,
            ahead,
            ..
        } = agreed;
        let hash = self.step_to_resume(&ahead, tick)?;
        let state = self.driver.snapshot_at(tick)?.clone();
        let bytes = G::snapshot_to_bytes(&state);
        let epoch = self.agreement.epoch + 1;
        let answer = Control::ResyncAt {
            epoch,
            tick,
            gap: InputRun::encode(&gap),
            snapshot: transfer::offer(tick, &bytes, hash.combined()),
        };
        self.offer_snapshot(to, answer, bytes.clone());
        let detail = ResyncDetail {
            desync: lead.desync,
            replaced: hash,
            replaced_state: state,
            snapshot: bytes,
            took: lead.since.elapsed(),
        };
        self.resync_epoch(epoch, tick, hash, detail)
    }

    /// Sends `answer` (a `ResyncAt`: a resync's, or a rejoin's whose log ended too early) and
    /// every part of the snapshot `bytes` it offers to `to`, and keeps both to send again when
    /// asked for.
    pub(super) fn offer_snapshot(&mut self, to: SocketAddr, answer: Control, bytes: Vec<u8>) {
        self.send_snapshot(to, &answer, &bytes, None);
        self.resync.answered = Some((to, answer, bytes));
    }

    /// Sends `answer` and then the snapshot's parts: all of them, or those in `only`.
    fn send_snapshot(&self, to: SocketAddr, answer: &Control, bytes: &[u8], only: Option<&[u16]>) {
        let Control::ResyncAt { tick, .. } = *answer else {
            return;
        };
        let mut link = self.link.borrow_mut();
        if only.is_none() {
            link.send_control(answer, to);
        }
        let indexes: Vec<u16> = match only {
            Some(asked) => asked.to_vec(),
            None => transfer::all_parts(bytes.len() as u32).collect(),
        };
        for chunk in transfer::part_messages(tick, bytes, indexes) {
            link.send_control(&chunk, to);
        }
    }

    /// The joiner asks again for parts of the snapshot (answered once per [`REPEAT`]: asking
    /// cannot multiply what the host sends). Only the joiner's requests for its own snapshot
    /// count towards the pace: anyone else asking cannot hold its answer back.
    pub(crate) fn resend_parts(&mut self, from: SocketAddr, tick: Tick, missing: &[u16]) {
        let ours = |(to, answer, _): &(SocketAddr, Control, Vec<u8>)| {
            *to == from && matches!(answer, Control::ResyncAt { tick: t, .. } if *t == tick)
        };
        let now = Instant::now();
        if !self.resync.answered.as_ref().is_some_and(ours)
            || self.resync.parts_due.is_some_and(|due| now < due)
        {
            return;
        }
        self.resync.parts_due = Some(now + REPEAT);
        if let Some((_, answer, bytes)) = &self.resync.answered {
            self.send_snapshot(from, answer, bytes, Some(missing));
        }
    }

    /// The host's `ResyncAt`, for a joiner following a resync.
    pub(crate) fn take_resync_answer(
        &mut self,
        from: SocketAddr,
        epoch: u32,
        tick: Tick,
        gap: Vec<G::Input>,
        offer: crate::net::wire::SnapshotOffer,
    ) {
        if self.remote_player() != Some(from) || self.agreement.local_slot == Some(0) {
            return;
        }
        let players = usize::from(self.agreement.players);
        let through = self.final_tick;
        let waiting = matches!(&self.resync.following, Some(f) if f.answer.is_none());
        if !waiting {
            return;
        }
        let fits = epoch > self.agreement.epoch
            && tick >= through
            && offer.tick == tick
            && gap.len() == (tick - through) as usize * players;
        if !fits {
            self.resync.following = None;
            self.failure = Some(resync_failed(format!(
                "the host's answer does not fit: epoch {epoch} from tick {tick} with {} inputs \
                 and a snapshot of tick {}; this side is in epoch {} at tick {through}",
                gap.len(),
                offer.tick,
                self.agreement.epoch
            )));
            return;
        }
        match Assembly::new(offer) {
            Ok(assembly) => {
                if let Some(follow) = &mut self.resync.following {
                    follow.answer = Some((epoch, tick, gap, assembly));
                }
            }
            Err(e) => {
                self.resync.following = None;
                self.failure = Some(resync_failed(e.to_string()));
            }
        }
    }

    /// A part of the host's snapshot.
    pub(crate) fn take_snapshot_part(
        &mut self,
        from: SocketAddr,
        tick: Tick,
        index: u16,
        bytes: &[u8],
    ) {
        if self.remote_player() != Some(from) {
            return;
        }
        let Some(Following {
            answer: Some((_, _, _, assembly)),
            ..
        }) = &mut self.resync.following
        else {
            return;
        };
        if assembly.add(tick, index, bytes).is_err() {
            self.resync.refused_parts += 1;
        }
    }

    /// The joiner, once the whole snapshot is there: checks it, steps through the gap,
    /// replaces its state and starts the new epoch. Called from `advance` only.
    pub(super) fn finish_following(&mut self) -> Result<(), Error> {
        let complete = matches!(
            &self.resync.following,
            Some(Following { answer: Some((_, _, _, a)), .. }) if a.missing().is_empty()
        );
        if !complete {
            return Ok(());
        }
        let Some(Following {
            desync,
            since,
            answer: Some((epoch, tick, gap, assembly)),
            ..
        }) = self.resync.following.take()
        else {
            return Ok(());
        };
        let (world, bytes) = assembly
            .finish::<G>(self.driver.world().rules())
            .map_err(|e| resync_failed(format!("the host's state was refused: {e}")))?;
        self.driver.rewind_to(self.final_tick)?;
        for inputs in gap.chunks(usize::from(self.agreement.players)) {
            self.driver.step_confirmed(inputs)?;
        }
        let replaced_state = self.driver.snapshot_at(tick)?.clone();
        let replaced = self.driver.adopt(&world)?;
        let detail = ResyncDetail {
            desync,
            replaced,
            replaced_state,
            snapshot: bytes,
            took: since.elapsed(),
        };
        self.resync_epoch(epoch, tick, world.state_hash(), detail)
    }

    /// Starts epoch `epoch` from `tick` with the same player on the same channel.
    fn resync_epoch(
        &mut self,
        epoch: u32,
        tick: Tick,
        hash: G::Hash,
        detail: ResyncDetail<G>,
    ) -> Result<(), Error> {
        let mut agreement = self.agreement.clone();
        // The spectators of the old session follow the new one outside GGRS.
        let spectators = std::mem::take(&mut agreement.spectators);
        agreement.epoch = epoch;
        let peer = agreement.remote_players[0].1;
        let desync = detail.desync;
        self.restart(agreement, tick)?;
        self.carry_spectators(&spectators, epoch, tick)?;
        self.epochs.push(EpochChange {
            epoch,
            tick,
            hash,
            peer,
            cause: EpochCause::Resync(Box::new(detail)),
        });
        self.events.push(NetEvent::Resynced {
            epoch,
            tick,
            desync,
        });
        Ok(())
    }
}

fn resync_failed(reason: String) -> Error {
    Error::ResyncFailed { reason }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::transport::memory::MemoryNet;
    use crate::session::netplay::NetConfig;

    /// A host and a joiner just connected on the in-memory network under `config`.
    fn pair(config: &NetConfig<engine::World>) -> (NetPeer<engine::World>, NetPeer<engine::World>) {
        let net = MemoryNet::default();
        crate::runs::connected_pair_over(net.endpoint(1), net.endpoint(2), config)
    }

    /// The desyncs `peer` reported since its events were last taken.
    fn said_desyncs(peer: &mut NetPeer<engine::World>) -> usize {
        (peer.take_events().iter())
            .filter(|e| matches!(e, NetEvent::DesyncDetected { .. }))
            .count()
    }

    /// A desync the other player says is reported here, with both sides' hashes at its
    /// tick, and starts the resync.
    #[test]
    fn a_desync_the_other_player_says_is_reported_and_repaired() {
        let (mut host, mut joiner) = pair(&NetConfig::default());
        let guard = Instant::now() + Duration::from_secs(20);
        while host.final_tick().min(joiner.final_tick()) < 10 {
            assert!(Instant::now() < guard, "the match does not get going");
            let _ = host.advance(engine::WireInput::default());
            let _ = joiner.advance(engine::WireInput::default());
        }
        let ours = host.driver.hash_at(5).expect("kept").combined();
        let _ = host.take_events();
        let other = host.remote_player().expect("joiner");
        host.desync_said_by(other, 5, 77);
        let events = host.take_events();
        let said: Vec<_> = (events.iter())
            .filter_map(|e| match *e {
                NetEvent::DesyncDetected {
                    tick,
                    local,
                    remote,
                    peer,
                } => Some((tick, local, remote, peer)),
                _ => None,
            })
            .collect();
        assert_eq!(said, [(5, ours, 77, other)]);
        assert!(host.resync_holds());
        assert_eq!(host.resync.started, 1);
    }

    /// A resync's messages are repeated once their time comes, not before; past the
    /// reconnect grace without an answer the resync fails, on either side.
    #[test]
    fn a_resync_repeats_when_due_and_fails_past_the_grace() {
        let config = NetConfig::<engine::World>::default();
        let grace = config.disconnect_timeout;
        let (mut host, mut joiner) = pair(&config);
        host.begin_resync(5, false);
        joiner.begin_resync(5, false);
        let lead = |p: &NetPeer<engine::World>| p.resync.leading.as_ref().map(|l| l.next);
        let follow = |p: &NetPeer<engine::World>| p.resync.following.as_ref().map(|f| f.next);
        let (led, followed) = (lead(&host), follow(&joiner));
        host.drive_resync();
        joiner.drive_resync();
        assert_eq!(
            (lead(&host), follow(&joiner)),
            (led, followed),
            "not due yet"
        );

        let due = Instant::now();
        host.resync.leading.as_mut().expect("leads").next = due;
        joiner.resync.following.as_mut().expect("follows").next = due;
        host.drive_resync();
        joiner.drive_resync();
        let later = |next: Option<Instant>| next.is_some_and(|n| n >= due + REPEAT);
        assert!(later(lead(&host)), "repeated, and due again a REPEAT later");
        assert!(later(follow(&joiner)));
        assert!(host.failure.is_none() && joiner.failure.is_none());

        let long_ago = Instant::now() - grace - Duration::from_millis(1);
        host.resync.leading.as_mut().expect("leads").since = long_ago;
        joiner.resync.following.as_mut().expect("follows").since = long_ago;
        host.drive_resync();
        joiner.drive_resync();
        assert!(!host.resync_holds() && !joiner.resync_holds());
        for (peer, says) in [
            (&host, "did not take part"),
            (&joiner, "did not send its state"),
        ] {
            let failure = peer.failure.as_ref().map(ToString::to_string);
            assert!(
                failure.as_deref().is_some_and(|f| f.contains(says)),
                "{failure:?}"
            );
        }
    }

    /// A `Resume` belongs to a resync led now, or to the one answered, from the address
    /// answered only.
    #[test]
    fn a_resume_answers_a_resync_only_from_the_one_answered() {
        let (mut host, _joiner) = pair(&NetConfig::default());
        let joiner = host.remote_player().expect("joiner");
        let stranger = SocketAddr::from(([127, 0, 0, 1], 9));
        assert!(!host.resync_answers(joiner));
        let answer = Control::Reject {
            reason: "an answer".into(),
        };
        host.resync.answered = Some((joiner, answer, Vec::new()));
        assert!(host.resync_answers(joiner));
        assert!(!host.resync_answers(stranger));
        host.resync.answered = None;
        host.begin_resync(5, false);
        assert!(
            host.resync_answers(stranger),
            "while leading, any: the lead checks who"
        );
    }

    /// A match played with resyncs off starts none, on either side, whoever detects it (the
    /// other player saying so included).
    #[test]
    fn a_match_without_resyncs_starts_none() {
        let config = NetConfig::<engine::World> {
            resync: false,
            ..NetConfig::default()
        };
        let (mut host, mut joiner) = pair(&config);
        for peer in [&mut host, &mut joiner] {
            peer.begin_resync(5, false);
            peer.begin_resync(5, true);
            let other = peer.remote_player().expect("a two-player match");
            peer.desync_said_by(other, 5, 0);
            assert_eq!(
                said_desyncs(peer),
                0,
                "nothing to report: no resync follows"
            );
            assert!(!peer.resync_holds());
            assert_eq!(peer.resync.started, 0);
        }
    }

    /// A desync detected while a resync runs starts no second one (counted once, led once).
    #[test]
    fn a_desync_during_a_resync_starts_no_second_one() {
        let (mut host, mut joiner) = pair(&NetConfig::default());
        host.begin_resync(5, false);
        assert!(host.resync_holds());
        let lead = host.resync.leading.as_ref().expect("the host leads");
        assert_eq!(
            lead.next,
            lead.since + REPEAT,
            "sent now, repeated a REPEAT later"
        );
        let since = host.resync.leading.as_ref().map(|l| (l.desync, l.since));
        host.begin_resync(9, false);
        let _ = host.take_events();
        host.desync_said_by(host.remote_player().expect("joiner"), 9, 0);
        assert_eq!(said_desyncs(&mut host), 0, "the resync running repairs it");
        assert_eq!(host.resync.started, 1);
        assert_eq!(
            host.resync.leading.as_ref().map(|l| (l.desync, l.since)),
            since,
            "the first resync goes on"
        );
        joiner.begin_resync(5, false);
        joiner.begin_resync(9, true);
        assert_eq!(joiner.resync.started, 1);
        let follow = joiner
            .resync
            .following
            .as_ref()
            .expect("the joiner follows");
        assert_eq!(follow.desync, 5);
        assert_eq!(
            follow.next,
            follow.since + REPEAT,
            "sent now, repeated a REPEAT later"
        );
    }

    /// A match does at most [`MAX_RESYNCS`] resyncs: the last is started and counted, the
    /// next is not.
    #[test]
    fn a_match_starts_at_most_its_resyncs() {
        let (mut host, _joiner) = pair(&NetConfig::default());
        for started in 0..MAX_RESYNCS {
            host.begin_resync(5, false);
            assert_eq!(host.resync.started, started + 1);
            assert!(host.resync_holds());
            host.resync.leading = None;
        }
        host.begin_resync(5, false);
        let _ = host.take_events();
        host.desync_said_by(host.remote_player().expect("joiner"), 5, 0);
        assert_eq!(said_desyncs(&mut host), 0);
        assert_eq!(host.resync.started, MAX_RESYNCS);
        assert!(!host.resync_holds(), "one past the most: none started");
    }

    /// A peer whose history begins mid-match (a rejoiner that took the other player's state
    /// whole, a few ticks before a resync) says the inputs of every tick it holds, not none:
    /// its history's first tick is found exactly.
    #[test]
    fn a_resume_from_a_history_begun_mid_match_carries_every_tick_held() {
        use crate::session::driver::Driver;
        let config = NetConfig::<engine::World>::default();
        let (_, mut joiner) = pair(&config);
        let mut world = engine::World::new(engine::Rules::default(), 3, 2).expect("world");
        while world.tick() < 300 {
            let t = world.tick();
            (world.step(&[engine::InputCmd::idle(t), engine::InputCmd::idle(t)])).expect("step");
        }
        joiner.driver = Driver::with_history(world, super::super::peer_history(&config));
        let pressed = |t: u8| engine::WireInput {
            buttons: t & 1,
            ..engine::WireInput::default()
        };
        for t in 0..10u8 {
            (joiner.driver.step_confirmed(&[pressed(t), pressed(t + 1)])).expect("step");
        }
        joiner.final_tick = 310;
        let Control::Resume {
            through, recent, ..
        } = joiner.own_resume()
        else {
            panic!("a resume");
        };
        assert_eq!(through, 310);
        let recent: Vec<engine::WireInput> = recent.decode().expect("the duel's inputs");
        let sent: Vec<_> = (0..10u8)
            .flat_map(|t| [pressed(t), pressed(t + 1)])
            .collect();
        assert_eq!(recent, sent, "the ten ticks held, oldest first");
    }
}
