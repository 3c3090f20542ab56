//! Rejoin: a player whose process died takes its slot back from the match log it wrote.
//!
//! The other player (the *survivor*) is frozen, waiting through the reconnect grace. The new
//! process sends a clear [`Control::Rejoin`] whose Noise handshake is made under the match's
//! secret (from the welcome, kept in the log): nobody without it can finish the handshake,
//! whatever it knows of the match. Then the rejoiner says where its log ends
//! ([`Control::Resume`], sealed), with the inputs of its last ticks; the survivor takes the
//! resume tick `R` as the later of that and its own last final tick, steps its state to `R`
//! with the rejoiner's inputs if the rejoiner was ahead (checking that its own recorded inputs
//! are the ones it played), checks the rejoiner's hash where both hold a state, and answers
//! [`Control::ResumeAt`]: the new epoch, `R`, the hash at `R`, and the inputs of the ticks the
//! rejoiner lacks. Both then start a new GGRS session whose frame 0 is tick `R`; the old
//! session, its keys and its datagrams are gone (an old-epoch datagram opens under no channel).
//! Recovery never skips a record: every tick either side had final is kept, and both logs go
//! on from the same `R` with the same state.
//!
//! A log that ends before the history the survivor keeps (or more than [`MAX_GAP_TICKS`]
//! before its last final tick) cannot be stepped to `R`: the survivor then answers with
//! [`Control::ResyncAt`], no inputs, and the offer of its state at `R`, sent in
//! [`Control::SnapshotChunk`]s (the resync's transfer). The rejoiner asks again for what is
//! missing, checks the whole as any untrusted snapshot ([`super::transfer`]) and goes on from
//! it; its log records the ticks it never had as skipped by that transfer
//! ([`crate::logs::matchlog::StateTransfer`]).

use super::transfer::Assembly;
use super::{EpochCause, EpochChange, NetEvent, NetPeer};
use crate::error::Error;
use crate::net::seal::{Initiator, MatchSecret, Psk, Responder};
use crate::net::socket::SharedLink;
use crate::net::wire::{self, Control, InputRun, Kind, PeerInfo, RejoinAnswer};
use crate::session::{driver::Driver, netplay::NetConfig};
use game_api::{Game, SectionHash, Tick};
use std::net::SocketAddr;
use std::time::{Duration, Instant};

/// Most ticks of inputs a rejoiner sends with its `Resume` (the ticks the survivor may lack:
/// what a killed process logged but never sent is at most its last second, plus the
/// prediction window).
pub const MAX_RECENT_TICKS: usize = 120;
/// Most ticks of inputs a survivor sends a rejoiner in its `ResumeAt` (a log cut further back
/// than this cannot be resumed from).
pub const MAX_GAP_TICKS: usize = 300;
/// How long an accepted rejoin may take to say where its log ends before the survivor forgets
/// it (and goes on waiting for the old session).
const ACCEPTED_FOR: Duration = Duration::from_secs(10);
/// How often the rejoiner repeats its current message.
const REPEAT: Duration = Duration::from_millis(150);

/// What a player coming back from a new process needs: where its log ends and what it holds.
#[derive(Debug, Clone)]
pub struct RejoinPlan<G: Game> {
    /// The world at the log's last tick (re-simulated and checked from the log).
    pub world: G,
    /// Every player's inputs of the log's last ticks, oldest first, ending at the world's tick
    /// (at most [`MAX_RECENT_TICKS`] are sent).
    pub recent: Vec<Vec<G::Input>>,
    /// The match's secret, from the log.
    pub secret: MatchSecret,
    /// The match seed, from the log.
    pub match_seed: u64,
    /// The slot this player played.
    pub slot: u8,
    /// The other player's address, from the log.
    pub peer: SocketAddr,
    /// The epoch the log was last in.
    pub epoch: u32,
}

/// How a rejoin went, seen from the player that came back.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RejoinReport {
    /// From the first `Rejoin` sent to the resume agreed (the new session then synchronizes).
    pub took: Duration,
    /// The resume tick.
    pub tick: Tick,
    /// Ticks between the log's end and the resume tick: stepped through with the inputs
    /// received, or skipped by the state sent whole.
    pub gap_ticks: u32,
    /// Bytes of the answer (the resume tick and the gap's inputs, or the snapshot's offer).
    pub answer_bytes: usize,
    /// Bytes of the other side's state sent whole (0 when the log reached its history).
    pub snapshot_bytes: usize,
}

impl std::fmt::Display for RejoinReport {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let took = self.took.as_millis();
        match self.snapshot_bytes {
            0 => write!(
                f,
                "rejoined in {took} ms: the match goes on from tick {}, {} ticks of inputs \
                 received ({} bytes)",
                self.tick, self.gap_ticks, self.answer_bytes
            ),
            n => write!(
                f,
                "rejoined in {took} ms: the match goes on from tick {} from the other player's \
                 state sent whole ({n} bytes); the {} ticks before it are not in this log",
                self.tick, self.gap_ticks
            ),
        }
    }
}

/// The other side's state a rejoiner went on from, its log having ended before that side's
/// history.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Transferred {
    /// The log's last tick (the ticks after it, up to the epoch's, were never this side's).
    pub from: Tick,
    /// The state at the epoch's tick, as sent ([`Game::snapshot_to_bytes`]).
    pub snapshot: Vec<u8>,
}

/// A resume the survivor (or the host of a resync) agreed to.
#[derive(Debug)]
pub(super) struct Agreed<G: Game> {
    /// The resume tick.
    pub(super) resume: Tick,
    /// Every player's inputs of the ticks the other side lacks, flattened.
    pub(super) gap: Vec<G::Input>,
    /// Every player's inputs of the ticks the other side has final past our last final tick.
    pub(super) ahead: Vec<G::Input>,
    /// Whether our state at the resume tick goes whole instead of `gap` (the other side's
    /// log ends before the history this side keeps).
    pub(super) transfer: bool,
}

impl<G: Game> Agreed<G> {
    /// A resume at `resume` from our state there, sent whole.
    fn transfer(resume: Tick) -> Agreed<G> {
        Agreed {
            resume,
            gap: Vec::new(),
            ahead: Vec::new(),
            transfer: true,
        }
    }
}

/// The survivor's side of rejoins.
#[derive(Debug)]
pub(super) struct Survivor {
    /// The answer given to the last Rejoin, to repeat if it comes again: `(from, its noise,
    /// the answer datagram)`.
    answered: Option<(SocketAddr, Vec<u8>, Vec<u8>)>,
    /// A rejoiner whose handshake finished, not yet resumed: `(address, slot, since)`.
    accepted: Option<(SocketAddr, u8, Instant)>,
    /// The last `ResumeAt` sent, to repeat while its `Resume` keeps coming.
    resumed: Option<(SocketAddr, Control)>,
    /// Rejoins refused because the secret did not open them.
    pub(super) refused: u64,
    /// Bounds the work and the answers a flood of rejoins can cause (the handshake's budget:
    /// a spoofed source cannot turn the survivor into a reflector either).
    budget: AnswerBudget,
}

impl Default for Survivor {
    fn default() -> Survivor {
        Survivor {
            answered: None,
            accepted: None,
            resumed: None,
            refused: 0,
            budget: AnswerBudget::new(),
        }
    }
}

impl<G: Game> NetPeer<G> {
    /// Whether an accepted rejoin holds the old session still (it is not polled meanwhile, so
    /// nothing of the old epoch goes to the rejoiner's new address).
    pub(super) fn rejoin_pending(&mut self) -> bool {
        // Never longer than the grace: a rejoiner that proves itself and vanishes holds the
        // match no longer than a silent player does.
        let allowed = ACCEPTED_FOR.min(self.config.disconnect_timeout);
        match self.rejoin.accepted {
            Some((_, _, since)) if since.elapsed() < allowed => true,
            Some(_) => {
                self.rejoin.accepted = None;
                false
            }
            None => false,
        }
    }

    /// How this player's rejoin went, if it came back by one.
    #[must_use]
    pub fn rejoin_report(&self) -> Option<RejoinReport> {
        self.rejoined
    }

    /// Rejoins refused because they were not made under the match's secret.
    #[must_use]
    pub fn refused_rejoins(&self) -> u64 {
        self.rejoin.refused
    }

    /// Every resume so far: the epochs after the first, and where each began.
    #[must_use]
    pub fn epochs(&self) -> &[EpochChange<G>] {
        &self.epochs
    }

    /// Answers a `Rejoin` from `from`: only for the slot of a remote player gone silent, only
    /// under the match's secret.
    pub(super) fn answer_rejoin(
        &mut self,
        from: SocketAddr,
        info: &PeerInfo,
        slot: u8,
        noise: &[u8],
    ) {
        let Some(secret) = self.agreement.secret.clone() else {
            return;
        };
        let missing = (self.agreement.remote_players.iter())
            .find(|&&(s, _)| s == slot)
            .is_some_and(|&(_, a)| self.silent.iter().any(|s| s.peer == a));
        // A slot whose player is still heard is not free: no answer, so a rejoiner that came
        // too early keeps asking until the silence shows.
        if self.local_handle.is_none() || !missing {
            return;
        }
        if let Some((to, seen, datagram)) = &self.rejoin.answered {
            if *to == from && seen == noise {
                let datagram = datagram.clone();
                self.link.borrow_mut().send_raw(&datagram, from);
                return;
            }
        }
        if !self.rejoin.budget.take(Instant::now()) {
            self.rejoin.refused += 1;
            return;
        }
        let prologue = wire::rejoin_prologue(info, slot);
        let Ok(responder) = Responder::read_keyed(&prologue, Some(Psk::Secret(&secret)), noise)
        else {
            self.rejoin.refused += 1;
            let reason = "the rejoin was not made with this match's secret: only the player who \
                          left can take its slot back, from the match log it wrote"
                .to_owned();
            let bytes = wire::encode(Kind::Control, 0, &Control::Reject { reason });
            self.link.borrow_mut().send_raw(&bytes, from);
            return;
        };
        let answer = match PeerInfo::local::<G>(&self.config.rules).differences(info) {
            Some(diff) => RejoinAnswer::Refused {
                reason: format!("the rejoiner differs (our value first): {diff}"),
            },
            None => RejoinAnswer::Accepted,
        };
        let Ok((noise_out, channel)) = responder.answer(&wire::encode_payload(&answer)) else {
            return;
        };
        let datagram = wire::encode(Kind::Control, 0, &Control::Answer { noise: noise_out });
        let mut link = self.link.borrow_mut();
        link.send_raw(&datagram, from);
        if answer == RejoinAnswer::Accepted {
            link.add_channel(from, channel);
            self.rejoin.accepted = Some((from, slot, Instant::now()));
            // An earlier rejoin's answers are not this one's, even from the same address.
            self.rejoin.resumed = None;
        }
        self.rejoin.answered = Some((from, noise.to_vec(), datagram));
        drop(link);
        if answer == RejoinAnswer::Accepted {
            self.forget_resync_answer();
        }
    }

    /// Answers a rejoiner's `Resume`: agrees on the resume tick and starts the next epoch, or
    /// says why not (sealed).
    pub(super) fn resume_for(
        &mut self,
        from: SocketAddr,
        through: Tick,
        hash: u64,
        recent: &[G::Input],
    ) {
        if let Some((to, answer)) = &self.rejoin.resumed {
            if *to == from {
                let answer = answer.clone();
                self.link.borrow_mut().send_control(&answer, from);
                return;
            }
        }
        let Some((_, slot, _)) = self.rejoin.accepted.filter(|a| a.0 == from) else {
            return;
        };
        self.rejoin.accepted = None;
        match self.agree_resume(through, hash, recent, true) {
            Ok(agreed) => {
                if let Err(e) = self.start_epoch(from, slot, agreed) {
                    self.failure = Some(e);
                }
            }
            // Told again at each `Resume` it repeats, should this one be lost.
            Err(reason) => self.link.borrow_mut().turn_away(from, &reason),
        }
    }

    /// The resume tick, the inputs the rejoiner lacks, and the inputs of the ticks it logged
    /// past ours (to step our state there); or why its log cannot go on from here. Nothing
    /// changes here: a refused resume leaves the waiting session as it was. `check_states`:
    /// whether the other side's state at `through` must hash to `hash` (not in a resync,
    /// where the states differ by definition).
    pub(super) fn agree_resume(
        &self,
        through: Tick,
        hash: u64,
        recent: &[G::Input],
        check_states: bool,
    ) -> Result<Agreed<G>, String> {
        let players = usize::from(self.agreement.players);
        let ours = self.final_tick;
        let n = recent.len() / players;
        if !recent.len().is_multiple_of(players)
            || n > MAX_RECENT_TICKS
            || n as u64 > u64::from(through)
        {
            return Err(format!(
                "the rejoin's recent inputs are malformed ({} inputs)",
                recent.len()
            ));
        }
        let failed = |e: Error| e.to_string();
        let mut ahead = Vec::new();
        let theirs = if through > ours {
            Ok(self.step_through_their_log(through, recent, &mut ahead)?)
        } else {
            self.driver.hash_at(through)
        };
        match theirs {
            Ok(_) if !check_states => {}
            Ok(h) if h.combined() == hash => {}
            Ok(h) => {
                return Err(format!(
                    "the states differ at tick {through}: ours {:016x}, yours {hash:016x}",
                    h.combined()
                ))
            }
            // A rejoin from a log that ends before our history: our state goes whole.
            Err(_) if check_states => return Ok(Agreed::transfer(ours)),
            Err(_) => {
                return Err(format!(
                    "your log ends at tick {through}, {} before ours: further back than the \
                     history this side keeps",
                    ours - through
                ))
            }
        }
        let resume = ours.max(through);
        let missing = (resume - through) as usize;
        if missing > MAX_GAP_TICKS {
            if check_states {
                return Ok(Agreed::transfer(ours));
            }
            return Err(format!(
                "your log ends {missing} ticks before ours, more than the {MAX_GAP_TICKS} a rejoin carries"
            ));
        }
        let mut gap = Vec::with_capacity(missing * players);
        for tick in through..resume {
            let inputs = self.driver.inputs_at(tick).map_err(failed)?;
            gap.extend(inputs.iter().copied());
        }
        Ok(Agreed {
            resume,
            gap,
            ahead,
            transfer: false,
        })
    }

    /// Steps a copy of our final state from our final tick to `through` with the last ticks of
    /// the rejoiner's log (`recent`, already checked to be whole ticks), collecting them in
    /// `ahead`; returns the hash there. Refused when the log does not reach back to our final
    /// tick or holds another input of ours than we played.
    fn step_through_their_log(
        &self,
        through: Tick,
        recent: &[G::Input],
        ahead: &mut Vec<G::Input>,
    ) -> Result<G::Hash, String> {
        let players = usize::from(self.agreement.players);
        let ours = self.final_tick;
        let n = recent.len() / players;
        // `n <= through`, so this does not wrap; a `through` far past ours is refused with
        // the rest (no `n` reaches back to us from there).
        let first = u64::from(through) + 1 - n as u64;
        if first > u64::from(ours) + 1 {
            return Err(format!(
                "your log ends at tick {through}, {} past ours, but carries the inputs of only \
                 its last {n}",
                through - ours
            ));
        }
        let local = self.local_handle.unwrap_or(0);
        let mut world = self.driver.world().clone();
        world
            .restore(self.driver.snapshot_at(ours).map_err(|e| e.to_string())?)
            .map_err(|e| e.to_string())?;
        for tick in ours..through {
            let at = (u64::from(tick) + 1 - first) as usize * players;
            let inputs = &recent[at..at + players];
            // Our own input there is the one we played, or the logs disagree.
            if let Ok(played) = self.driver.inputs_at(tick) {
                if played.get(local).copied() != inputs.get(local).copied() {
                    return Err(format!(
                        "your log holds another input of ours at tick {} than we played",
                        tick + 1
                    ));
                }
            }
            world.step(inputs).map_err(|e| e.to_string())?;
            ahead.extend_from_slice(inputs);
        }
        Ok(world.state_hash())
    }

    /// Starts epoch `epoch + 1` from `tick` with the rejoiner at `from` in `slot`: a new GGRS
    /// session, frame 0 at `tick`; the old session and every peer of it are dropped.
    fn start_epoch(&mut self, from: SocketAddr, slot: u8, agreed: Agreed<G>) -> Result<(), Error> {
        let Agreed {
            resume: tick,
            gap,
            ahead,
            transfer,
        } = agreed;
        let hash = self.step_to_resume(&ahead, tick)?;
        let epoch = self.agreement.epoch + 1;
        let mut offered = None;
        let answer = if transfer {
            let bytes = G::snapshot_to_bytes(self.driver.snapshot_at(tick)?);
            let answer = Control::ResyncAt {
                epoch,
                tick,
                gap: InputRun::default(),
                snapshot: super::transfer::offer(tick, &bytes, hash.combined()),
            };
            offered = Some(bytes);
            answer
        } else {
            Control::ResumeAt {
                epoch,
                tick,
                hash: hash.combined(),
                gap: InputRun::encode(&gap),
            }
        };
        let mut agreement = self.agreement.clone();
        {
            let mut link = self.link.borrow_mut();
            if offered.is_none() {
                link.send_control(&answer, from);
            }
            // The player that left, if it came back elsewhere: of the old epoch only.
            for &(_, old) in &agreement.remote_players {
                if old != from {
                    link.drop_peer(old);
                }
            }
            agreement.session = link.channel_id(from).unwrap_or(0);
        }
        agreement.remote_players = vec![(slot, from)];
        // The spectators of the old session follow the new one outside GGRS (below).
        let spectators = std::mem::take(&mut agreement.spectators);
        agreement.epoch = epoch;
        self.forget_resync_answer();
        if let Some(bytes) = offered {
            // Sent, and sent again when asked for, as a resync's snapshot is.
            self.offer_snapshot(from, answer.clone(), bytes);
        }
        self.rejoin.resumed = Some((from, answer));
        self.restart(agreement, tick)?;
        self.carry_spectators(&spectators, epoch, tick)?;
        self.epochs.push(EpochChange {
            epoch,
            tick,
            hash,
            peer: from,
            cause: EpochCause::Rejoin,
        });
        self.events.push(NetEvent::Rejoined {
            peer: from,
            epoch,
            tick,
        });
        Ok(())
    }

    /// Drops what was predicted past our last final tick and steps through `ahead` (the ticks
    /// the other side has final past it, final now too), to the resume tick `tick`; its hash.
    pub(super) fn step_to_resume(
        &mut self,
        ahead: &[G::Input],
        tick: Tick,
    ) -> Result<G::Hash, Error> {
        self.driver.rewind_to(self.final_tick)?;
        for inputs in ahead.chunks(usize::from(self.agreement.players)) {
            self.driver.step_confirmed(inputs)?;
        }
        self.driver.hash_at(tick)
    }

    /// Replaces the GGRS session by a new one on `agreement`, frame 0 at `tick` (the driver's
    /// world is there).
    pub(super) fn restart(&mut self, agreement: Agreement, tick: Tick) -> Result<(), Error> {
        self.driver.start_frames_here();
        let (session, handle) = Self::session_for(&self.link, &agreement, &self.config)?;
        self.session = session;
        self.local_handle = handle;
        self.final_tick = tick;
        self.progress = (tick, Instant::now());
        self.resyncing_since = Some(Instant::now());
        self.silent.clear();
        self.gone.clear();
        self.finished_peers.clear();
        self.agreement = agreement;
        Ok(())
    }

    /// Takes the slot back after this player's process died: proves the match's secret to
    /// the other player (who waits through its reconnect grace), agrees on the resume tick,
    /// steps the plan's world through the ticks its log lacks, and starts the next epoch's
    /// session there. `link` is freshly opened. [`Rejoining`] is the same, one poll at a time.
    ///
    /// # Errors
    /// [`Error::RejoinRefused`] with the other player's reason, or this side's if the answer
    /// does not fit the log; [`Error::RejoinTimeout`] if nobody takes the rejoin within the
    /// handshake timeout; engine and GGRS errors.
    pub fn rejoin(
        link: SharedLink,
        plan: RejoinPlan<G>,
        config: &NetConfig<G>,
    ) -> Result<NetPeer<G>, Error> {
        let mut rejoining = Rejoining::start(link, plan, config)?;
        loop {
            if let Some(peer) = rejoining.poll()? {
                return Ok(peer);
            }
            std::thread::sleep(Duration::from_millis(2));
        }
    }
}

/// Where a rejoin stands.
enum Stage {
    /// Proving the match's secret: the Noise handshake under it.
    Handshake {
        /// Taken when the answer opens.
        initiator: Option<Box<Initiator>>,
        hello: Control,
        /// A clear `Reject` and when it came: final once no real answer follows in time.
        clear_reject: Option<(String, Instant)>,
    },
    /// Saying where the log ends until the other player answers with the resume tick.
    Resume { channel_id: u32, resume: Control },
    /// Receiving the other player's state whole (the log ended before its history).
    Transfer {
        channel_id: u32,
        epoch: u32,
        assembly: Box<Assembly>,
    },
    /// Done (or failed): polling again is an error.
    Over,
}

/// A rejoin under way, polled (a window keeps drawing a status screen meanwhile):
/// [`NetPeer::rejoin`] one step at a time.
pub struct Rejoining<G: Game> {
    link: SharedLink,
    plan: Option<RejoinPlan<G>>,
    config: NetConfig<G>,
    started: Instant,
    deadline: Instant,
    next: Instant,
    stage: Stage,
}

impl<G: Game> std::fmt::Debug for Rejoining<G> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Rejoining")
            .field("stage", &self.stage_name())
            .finish_non_exhaustive()
    }
}

/// What one poll hands the stage the rejoin is in: the link, the peer, whether repeats are
/// due, and the peer's control messages read this time.
struct Turn {
    link: SharedLink,
    peer: SocketAddr,
    due: bool,
    inbox: Vec<Control>,
}

impl<G: Game> Rejoining<G> {
    /// Starts rejoining on a freshly opened `link` with what the log holds.
    ///
    /// # Errors
    /// A configuration out of range; [`Error::RejoinRefused`] if the handshake cannot start.
    pub fn start(
        link: SharedLink,
        plan: RejoinPlan<G>,
        config: &NetConfig<G>,
    ) -> Result<Rejoining<G>, Error> {
        if let Err(info) = config.check() {
            return Err(Error::Ggrs(ggrs::GgrsError::InvalidRequest { info }));
        }
        let info = PeerInfo::local::<G>(&config.rules);
        let prologue = wire::rejoin_prologue(&info, plan.slot);
        let initiator =
            Initiator::keyed(&prologue, Some(Psk::Secret(&plan.secret))).map_err(|e| {
                Error::RejoinRefused {
                    reason: format!("cannot start the handshake: {e}"),
                }
            })?;
        let hello = Control::Rejoin {
            info,
            slot: plan.slot,
            noise: initiator.message().to_vec(),
        };
        link.borrow_mut().add_peer(plan.peer);
        let now = Instant::now();
        Ok(Rejoining {
            link,
            plan: Some(plan),
            config: config.clone(),
            started: now,
            deadline: now + config.handshake_timeout,
            next: now,
            stage: Stage::Handshake {
                initiator: Some(Box::new(initiator)),
                hello,
                clear_reject: None,
            },
        })
    }

    /// The other player being asked.
    #[must_use]
    pub fn peer(&self) -> Option<SocketAddr> {
        self.plan.as_ref().map(|p| p.peer)
    }

    /// How long since the first `Rejoin`.
    #[must_use]
    pub fn waited(&self) -> Duration {
        self.started.elapsed()
    }

    /// How long after its start it gives up ([`NetConfig::handshake_timeout`]).
    #[must_use]
    pub fn gives_up_after(&self) -> Duration {
        self.config.handshake_timeout
    }

    /// What it is doing, in words (for a status screen).
    #[must_use]
    pub fn stage_name(&self) -> &'static str {
        match self.stage {
            Stage::Handshake { .. } => "proving this is the player who left",
            Stage::Resume { .. } => "agreeing where the match goes on",
            Stage::Transfer { .. } => "receiving the other player's state",
            Stage::Over => "done",
        }
    }

    /// Sends what is due and reads the answers: the peer once the new epoch's session starts.
    ///
    /// # Errors
    /// As [`NetPeer::rejoin`]; once it has returned a peer or an error, every poll is an
    /// error.
    pub fn poll(&mut self) -> Result<Option<NetPeer<G>>, Error> {
        let result = self.step();
        if result.as_ref().map_or(true, Option::is_some) {
            self.stage = Stage::Over;
        }
        result
    }

    fn step(&mut self) -> Result<Option<NetPeer<G>>, Error> {
        let Some(peer) = self.peer() else {
            return Err(Error::RejoinRefused {
                reason: "this rejoin is over".into(),
            });
        };
        let now = Instant::now();
        if now >= self.deadline {
            return Err(Error::RejoinTimeout {
                peer,
                seconds: crate::net::handshake::whole_seconds(self.config.handshake_timeout),
            });
        }
        let due = now >= self.next;
        if due {
            self.next = now + REPEAT;
        }
        let link = self.link.clone();
        link.borrow_mut().pump(false);
        let inbox: Vec<Control> = (link.borrow_mut().take_control().into_iter())
            .filter(|(from, _)| *from == peer)
            .map(|(_, m)| m)
            .collect();
        let turn = Turn {
            link,
            peer,
            due,
            inbox,
        };
        match self.stage {
            Stage::Over => Err(Error::RejoinRefused {
                reason: "this rejoin is over".into(),
            }),
            Stage::Handshake { .. } => self.step_handshake(turn),
            Stage::Resume { .. } => self.step_resume(turn),
            Stage::Transfer { .. } => self.step_transfer(turn),
        }
    }

    /// Proving who this is: the hello (again when due) until the Noise answer opens, then on
    /// to [`Stage::Resume`]. A clear `Reject` is final only if no real answer follows.
    fn step_handshake(&mut self, turn: Turn) -> Result<Option<NetPeer<G>>, Error> {
        let (link, peer, due, inbox) = (&turn.link, turn.peer, turn.due, turn.inbox);
        let Stage::Handshake {
            initiator,
            hello,
            clear_reject,
        } = &mut self.stage
        else {
            unreachable!("called in the handshake stage");
        };
        if due {
            link.borrow_mut().send_control(hello, peer);
        }
        for msg in inbox {
            match msg {
                Control::Answer { noise } => {
                    let Some(mut opener) = initiator.take() else {
                        continue;
                    };
                    let Ok(payload) = opener.read_answer(&noise) else {
                        *initiator = Some(opener);
                        continue;
                    };
                    let channel_id = accepted(link, peer, *opener, &payload)?;
                    let resume = self.resume_message();
                    link.borrow_mut().send_control(&resume, peer);
                    self.next = Instant::now() + REPEAT;
                    self.stage = Stage::Resume { channel_id, resume };
                    return Ok(None);
                }
                // Clear, so anyone could have sent it: final only if no real answer follows.
                Control::Reject { reason } => {
                    clear_reject.get_or_insert((wire::printable(&reason, 300), Instant::now()));
                }
                _ => {}
            }
        }
        match clear_reject {
            Some((reason, since))
                if since.elapsed() >= crate::net::handshake::CLEAR_REJECT_GRACE =>
            {
                Err(Error::RejoinRefused {
                    reason: reason.clone(),
                })
            }
            _ => Ok(None),
        }
    }

    /// Agreeing where the match goes on: the resume message (again when due) until the other
    /// player names a tick to resume at, or offers its state whole ([`Stage::Transfer`]).
    fn step_resume(&mut self, turn: Turn) -> Result<Option<NetPeer<G>>, Error> {
        let (link, peer, due, inbox) = (&turn.link, turn.peer, turn.due, turn.inbox);
        let Stage::Resume { channel_id, resume } = &self.stage else {
            unreachable!("called in the resume stage");
        };
        if due {
            link.borrow_mut().send_control(resume, peer);
        }
        let channel_id = *channel_id;
        let mut inbox = inbox.into_iter();
        while let Some(msg) = inbox.next() {
            match msg {
                Control::ResumeAt {
                    epoch,
                    tick,
                    hash,
                    gap,
                } => {
                    let gap = decoded_gap::<G>(&gap)?;
                    return self.resume_at(channel_id, epoch, tick, hash, gap).map(Some);
                }
                Control::ResyncAt {
                    epoch,
                    tick,
                    gap,
                    snapshot,
                } => {
                    let gap = decoded_gap::<G>(&gap)?;
                    let mut assembly = self.transfer_offered(epoch, tick, &gap, snapshot)?;
                    // Its parts came with it, most likely.
                    take_parts(&mut assembly, inbox.by_ref())?;
                    self.stage = Stage::Transfer {
                        channel_id,
                        epoch,
                        assembly: Box::new(assembly),
                    };
                    return Ok(None);
                }
                Control::Reject { reason } => {
                    return Err(Error::RejoinRefused {
                        reason: wire::printable(&reason, 300),
                    })
                }
                _ => {}
            }
        }
        Ok(None)
    }

    /// Receiving the other player's state in parts, asking for the missing ones when due;
    /// once whole, the new epoch starts from it.
    fn step_transfer(&mut self, turn: Turn) -> Result<Option<NetPeer<G>>, Error> {
        let (link, peer, due, inbox) = (&turn.link, turn.peer, turn.due, turn.inbox);
        let Stage::Transfer { assembly, .. } = &mut self.stage else {
            unreachable!("called in the transfer stage");
        };
        let tick = assembly.offer().tick;
        take_parts(assembly, inbox.into_iter())?;
        let missing = assembly.missing();
        if missing.is_empty() {
            let Stage::Transfer {
                channel_id,
                epoch,
                assembly,
            } = std::mem::replace(&mut self.stage, Stage::Over)
            else {
                unreachable!("matched as a transfer above");
            };
            return self.transferred(channel_id, epoch, &assembly).map(Some);
        }
        if due {
            link.borrow_mut()
                .send_control(&Control::SnapshotNeed { tick, missing }, peer);
        }
        Ok(None)
    }

    /// The other player's offer of its state whole: it must go on from after this log's end
    /// in a later epoch, with no inputs.
    fn transfer_offered(
        &self,
        epoch: u32,
        tick: Tick,
        gap: &[G::Input],
        offer: wire::SnapshotOffer,
    ) -> Result<Assembly, Error> {
        let refuse = |reason: String| Error::RejoinRefused { reason };
        let (through, last_epoch) = (self.plan.as_ref())
            .map(|p| (p.world.tick(), p.epoch))
            .ok_or_else(|| refuse("this rejoin is over".into()))?;
        if epoch <= last_epoch || tick <= through || offer.tick != tick || !gap.is_empty() {
            return Err(refuse(format!(
                "the other player offers its state of tick {} to go on from tick {tick} in \
                 epoch {epoch} with {} inputs; this log ends at tick {through} in epoch \
                 {last_epoch}",
                offer.tick,
                gap.len()
            )));
        }
        Assembly::new(offer)
            .map_err(|e| refuse(format!("the other player's state was refused: {e}")))
    }

    /// The other player's state, whole: checked as any untrusted snapshot, and the new
    /// epoch's session started from it.
    fn transferred(
        &mut self,
        channel_id: u32,
        epoch: u32,
        assembly: &Assembly,
    ) -> Result<NetPeer<G>, Error> {
        let plan = self.plan.take().ok_or_else(|| Error::RejoinRefused {
            reason: "this rejoin is over".into(),
        })?;
        let offer = *assembly.offer();
        let (world, snapshot) =
            assembly
                .finish::<G>(plan.world.rules())
                .map_err(|e| Error::RejoinRefused {
                    reason: format!("the other player's state was refused: {e}"),
                })?;
        let through = plan.world.tick();
        let tick = world.tick();
        let report = RejoinReport {
            took: self.started.elapsed(),
            tick,
            gap_ticks: tick - through,
            answer_bytes: wire::encode_payload(&Control::ResyncAt {
                epoch,
                tick,
                gap: InputRun::default(),
                snapshot: offer,
            })
            .len(),
            snapshot_bytes: snapshot.len(),
        };
        let hash = world.state_hash();
        let driver = Driver::with_history(world, super::peer_history(&self.config));
        let cause = EpochCause::Transferred(Box::new(Transferred {
            from: through,
            snapshot,
        }));
        self.start_epoch_peer(plan, channel_id, epoch, driver, hash, report, cause)
    }

    /// The `Resume`: where the log ends, its hash, the inputs of its last ticks.
    fn resume_message(&self) -> Control {
        let Some(plan) = &self.plan else {
            return Control::Joined;
        };
        let recent: Vec<G::Input> = (plan.recent.iter().rev().take(MAX_RECENT_TICKS).rev())
            .flatten()
            .copied()
            .collect();
        Control::Resume {
            through: plan.world.tick(),
            hash: plan.world.state_hash().combined(),
            recent: InputRun::encode(&recent),
        }
    }

    /// The other player's answer: checked against the log, the gap stepped through, the new
    /// epoch's session started.
    fn resume_at(
        &mut self,
        channel_id: u32,
        epoch: u32,
        tick: Tick,
        hash: u64,
        gap: Vec<G::Input>,
    ) -> Result<NetPeer<G>, Error> {
        let plan = self.plan.take().ok_or_else(|| Error::RejoinRefused {
            reason: "this rejoin is over".into(),
        })?;
        let config = &self.config;
        let players = plan.world.player_count();
        let through = plan.world.tick();
        let report = RejoinReport {
            took: self.started.elapsed(),
            tick,
            gap_ticks: tick.saturating_sub(through),
            answer_bytes: wire::encode_payload(&Control::ResumeAt {
                epoch,
                tick,
                hash,
                gap: InputRun::encode(&gap),
            })
            .len(),
            snapshot_bytes: 0,
        };
        let refuse = |reason: String| Error::RejoinRefused { reason };
        if tick < through || epoch <= plan.epoch {
            return Err(refuse(format!(
                "the other player resumes at tick {tick} in epoch {epoch}; this log ends at tick \
                 {through} in epoch {}",
                plan.epoch
            )));
        }
        if gap.len() != (tick - through) as usize * players {
            return Err(refuse(format!(
                "the other player sent {} inputs for the {} ticks this log lacks",
                gap.len(),
                tick - through
            )));
        }
        let mut driver = Driver::with_history(plan.world.clone(), super::peer_history(config));
        for inputs in gap.chunks(players) {
            driver.step_confirmed(inputs)?;
        }
        let ours = driver.hash_at(tick)?;
        if ours.combined() != hash {
            return Err(refuse(format!(
                "the states differ at the resume tick {tick}: ours {:016x}, the other player's {hash:016x}",
                ours.combined()
            )));
        }
        let cause = EpochCause::Rejoin;
        self.start_epoch_peer(plan, channel_id, epoch, driver, ours, report, cause)
    }

    /// The new epoch's session from `driver` (at the resume tick, whose state hashes `hash`).
    #[allow(clippy::too_many_arguments)] // one call per way of coming back, each naming all
    fn start_epoch_peer(
        &self,
        plan: RejoinPlan<G>,
        channel_id: u32,
        epoch: u32,
        driver: Driver<G>,
        hash: G::Hash,
        report: RejoinReport,
        cause: EpochCause<G>,
    ) -> Result<NetPeer<G>, Error> {
        let agreement = Agreement {
            match_seed: plan.match_seed,
            players: plan.world.player_count() as u8,
            local_slot: Some(plan.slot),
            remote_players: vec![(1 - plan.slot.min(1), plan.peer)],
            spectators: Vec::new(),
            session: channel_id,
            secret: Some(plan.secret),
            epoch,
        };
        let tick = driver.world().tick();
        let mut peer = NetPeer::start_with(self.link.clone(), agreement, &self.config, driver)?;
        peer.rejoined = Some(report);
        peer.epochs.push(EpochChange {
            epoch,
            tick,
            hash,
            peer: plan.peer,
            cause,
        });
        Ok(peer)
    }
}

/// Adds the snapshot parts among `messages` to `assembly` (a part that does not fit the offer
/// is dropped, and asked for again); a refusal among them ends the rejoin with its reason.
fn take_parts(
    assembly: &mut Assembly,
    messages: impl Iterator<Item = Control>,
) -> Result<(), Error> {
    for msg in messages {
        match msg {
            Control::SnapshotChunk { tick, index, bytes } => {
                let _ = assembly.add(tick, index, &bytes);
            }
            Control::Reject { reason } => {
                return Err(Error::RejoinRefused {
                    reason: wire::printable(&reason, 300),
                })
            }
            _ => {}
        }
    }
    Ok(())
}

/// The other player's answer to the handshake, opened: the channel id once it accepted.
fn accepted(
    link: &SharedLink,
    peer: SocketAddr,
    initiator: Initiator,
    payload: &[u8],
) -> Result<u32, Error> {
    match wire::decode::<RejoinAnswer>(payload) {
        Ok(RejoinAnswer::Accepted) => match initiator.into_channel() {
            Ok(channel) => {
                let id = channel.id();
                link.borrow_mut().add_channel(peer, channel);
                Ok(id)
            }
            Err(e) => Err(Error::RejoinRefused {
                reason: format!("the handshake did not finish: {e}"),
            }),
        },
        Ok(RejoinAnswer::Refused { reason }) => Err(Error::RejoinRefused {
            reason: wire::printable(&reason, 300),
        }),
        Err(_) => Err(Error::RejoinRefused {
            reason: "the other player sent an answer this build cannot read".into(),
        }),
    }
}

use crate::net::handshake::{Agreement, AnswerBudget};

/// The inputs of an answer's gap, as this game's.
///
/// # Errors
/// [`Error::RejoinRefused`]: they do not decode (no peer of this game sends that).
fn decoded_gap<G: Game>(gap: &wire::InputRun) -> Result<Vec<G::Input>, Error> {
    gap.decode().map_err(|_| Error::RejoinRefused {
        reason: format!("the answer's inputs are not {}'s", G::NAME),
    })
}
