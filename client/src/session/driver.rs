//! The session driver: serves GGRS's save/load/advance requests, in order, on one game.
//!
//! Generic over the [`Game`]: monomorphised for each game, nothing dynamic and nothing
//! allocated per frame once the rings are warm.

use crate::error::Error;
use crate::session::GgrsConfig;
use game_api::{Game, Perturb, PhaseHashes, PhaseTracer, StateHistory, Tick, TickRing};
use ggrs::{GameStateCell, GgrsRequest, InputStatus};
use std::cell::Cell;

/// How many past ticks the driver keeps snapshots and hashes for. GGRS never rolls back further
/// than its prediction window (8) or a sync test's check distance (< 16); 64 leaves room for a
/// hash log that trails the confirmed frame.
pub const HISTORY_TICKS: usize = 64;

/// How many past ticks a sync test rolling back `check_distance` frames keeps: the ticks it
/// re-simulates and compares, the one it loads (`check_distance` back), the one before it (a
/// mismatch's re-trace starts from there) and the next, with one to spare, rounded up to a
/// power of two (the rings index by a mask then). 16 for a check distance of 7.
#[must_use]
pub(crate) fn sync_test_history(check_distance: usize) -> usize {
    check_distance.saturating_add(4).next_power_of_two()
}

/// Deepest rollback tracked individually in [`RollbackCounters::depth_histogram`].
pub const MAX_TRACKED_DEPTH: usize = 16;

/// Counters of what the driver did since it started.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RollbackCounters {
    /// `AdvanceFrame` requests served (including re-simulated frames).
    pub advances: u64,
    /// Frames advanced for the first time (the world's furthest tick).
    pub new_frames: u64,
    /// `LoadGameState` requests served.
    pub rollbacks: u64,
    /// Rollbacks by depth (frames re-simulated); the last bucket counts all deeper ones.
    pub depth_histogram: [u64; MAX_TRACKED_DEPTH + 1],
    /// Deepest rollback seen.
    pub max_depth: u32,
    /// Re-simulated frames of a sync test that reached their tick's first state again, kept
    /// without a copy (see [`Driver::keep_first_saves`]): in a deterministic game, every
    /// re-simulated frame.
    pub first_states_again: u64,
}

/// Owns the game and everything needed to serve GGRS: snapshot history, per-tick hashes,
/// the events of the frames advanced, rollback counters.
#[derive(Debug)]
pub struct Driver<G: Game> {
    world: G,
    history: StateHistory<G>,
    /// Hash of the state at each tick, computed at most once per time the tick is reached, and
    /// only where it is compared: when the tick is final ([`Driver::seal_final`]: hash logs,
    /// desync detection), when a sync test's re-simulated save differs from the tick's first
    /// save, or when a caller asks ([`Driver::hash_at`]). `None` until then; reset whenever
    /// the tick is reached again. Predicted and re-simulated states that are never compared
    /// are never hashed.
    hashes: TickRing<Cell<Option<G::Hash>>>,
    /// GGRS cells saved without a checksum (the state was not final yet), with their frame:
    /// [`Driver::seal_final`] fills in the checksum once the tick is final, before GGRS reads
    /// it for desync detection (it reads only confirmed frames, and waits for a checksum).
    unsealed: Vec<(Tick, ggrs::Frame, GameStateCell<Tick>)>,
    /// States hashed since the driver started (see [`Driver::states_hashed`]).
    hashed: Cell<u64>,
    /// The first snapshot saved for each tick, before any re-simulation (sync tests compare
    /// it with the re-simulation).
    first_saves: TickRing<Option<G::Snapshot>>,
    /// Whether the history's snapshot of each tick is (still) equal to its first save: a
    /// re-simulation that reaches that state again need not copy it (see `record_reached`).
    history_is_first: TickRing<bool>,
    /// The per-phase hashes of the step that first reached each tick (kept with first saves).
    first_traces: TickRing<PhaseHashes<G::Hash>>,
    keep_first_saves: bool,
    /// Trace the first pass of every tick phase by phase (with first saves only).
    trace_first_passes: bool,
    furthest: Tick,
    counters: RollbackCounters,
    /// Events of every frame advanced by the last `handle` call, in order. A re-simulated
    /// frame reports its events again.
    events: Vec<G::Event>,
    /// Inputs each tick was last simulated with (each slot's buffer reused).
    inputs: TickRing<Vec<G::Input>>,
    /// The events each tick's step produced, last pass (see [`Driver::events_at`]).
    tick_events: TickRing<Vec<G::Event>>,
    /// Depths of the rollbacks served by the last `handle` call.
    last_depths: Vec<u32>,
    /// The earliest tick the last `handle` call rolled back to.
    resimulated_from: Option<Tick>,
    /// Ticks GGRS has asked to save at least once.
    ggrs_saved: TickRing<()>,
    /// A deliberate perturbation, for proving the desync tools (never set in play).
    injection: Option<Injection<G::Phase>>,
    /// The tick of GGRS frame 0: 0 for a match's first session, the resume tick for one
    /// started again after a reconnect (GGRS sessions always count frames from 0).
    frame_base: Tick,
}

/// A deliberate desync: [`Game::debug_perturb`] (the smallest change to the state) right after
/// phase `after` of the step that reaches `tick` (after the last phase is after the whole
/// step). Tools and tests use it to prove that a desync is found and named, down to the phase;
/// play never does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Injection<P> {
    /// The tick whose state is perturbed.
    pub tick: Tick,
    /// Perturb only until the state of that tick has been saved once (so the first save and
    /// later re-simulations differ, which a sync test catches), or every time the tick is
    /// reached (so this peer consistently differs from the others).
    pub first_pass_only: bool,
    /// The phase after which the nudge happens.
    pub after: P,
}

impl<G: Game> Driver<G> {
    /// A driver around `world` (usually fresh from [`Game::new`]).
    #[must_use]
    pub fn new(world: G) -> Driver<G> {
        Driver::with_history(world, HISTORY_TICKS)
    }

    /// A driver keeping `ticks` past ticks (at least [`HISTORY_TICKS`]): a peer whose
    /// checksums are compared every `n` ticks keeps `HISTORY_TICKS + n`, so that when a desync
    /// is detected every tick since the last agreeing check can still be dumped.
    #[must_use]
    pub fn with_history(world: G, ticks: usize) -> Driver<G> {
        Driver::keeping(world, ticks.max(HISTORY_TICKS))
    }

    /// A driver for a sync test that rolls back `check_distance` frames, keeping its first
    /// saves ([`Driver::keep_first_saves`]) and only the ticks such a test loads, compares or
    /// dumps: [`sync_test_history`] of them, not [`HISTORY_TICKS`]. A sync test saves a whole
    /// state every frame and keeps it twice over (history and first saves), so the depth is
    /// what its memory traffic scales with: 64 ticks of a 115 KB state span 15 MB, which no
    /// core's cache holds, while the 16 a check distance of 7 needs fit in a few. Only for
    /// [`SyncTester`](crate::session::synctest::SyncTester), which takes check distances up
    /// to [`MAX_CHECK_DISTANCE`](crate::session::synctest::MAX_CHECK_DISTANCE) and no more.
    #[must_use]
    pub(crate) fn for_sync_test(world: G, check_distance: usize) -> Driver<G> {
        let mut driver = Driver::keeping(world, sync_test_history(check_distance));
        driver.keep_first_saves(true);
        driver
    }

    /// How many past ticks this driver keeps states, hashes and inputs for.
    #[must_use]
    pub fn history_ticks(&self) -> usize {
        self.hashes.capacity()
    }

    fn keeping(world: G, ticks: usize) -> Driver<G> {
        let mut hashes = TickRing::new(ticks);
        hashes.insert(world.tick(), Cell::new(Some(world.state_hash())));
        let mut history = StateHistory::new(ticks);
        history.save(&world);
        let furthest = world.tick();
        Driver {
            world,
            history,
            hashes,
            unsealed: Vec::with_capacity(ticks),
            hashed: Cell::new(1),
            first_saves: TickRing::new(ticks),
            history_is_first: TickRing::new(ticks),
            first_traces: TickRing::new(ticks),
            keep_first_saves: false,
            trace_first_passes: true,
            furthest,
            counters: RollbackCounters::default(),
            events: Vec::with_capacity(64),
            inputs: TickRing::new(ticks),
            tick_events: TickRing::new(ticks),
            last_depths: Vec::new(),
            resimulated_from: None,
            ggrs_saved: TickRing::new(ticks),
            injection: None,
            frame_base: 0,
        }
    }

    /// Makes the world's current tick GGRS's frame 0, for a session started mid-match (after
    /// a reconnect, from the agreed resume tick).
    pub fn start_frames_here(&mut self) {
        self.frame_base = self.world.tick();
    }

    /// The tick of GGRS frame 0.
    #[must_use]
    pub fn frame_base(&self) -> Tick {
        self.frame_base
    }

    /// The tick of GGRS frame `frame` (`None` before frame 0 or past the tick range).
    #[must_use]
    pub fn tick_of(&self, frame: ggrs::Frame) -> Option<Tick> {
        u32::try_from(frame)
            .ok()
            .and_then(|f| self.frame_base.checked_add(f))
    }

    /// Puts the world back at `tick` (kept in the history), dropping what was predicted after
    /// it: the next step there is the first again.
    ///
    /// # Errors
    /// If `tick` is no longer in the history.
    pub fn rewind_to(&mut self, tick: Tick) -> Result<(), Error> {
        self.restore_kept(tick)?;
        self.furthest = tick;
        Ok(())
    }

    /// Replaces the state at the current tick by `world`'s, of the same tick (the
    /// authoritative state a resync brought): the world, its hash and its kept snapshot, so
    /// that a session started here saves and loads the new state. Returns the hash replaced.
    ///
    /// # Errors
    /// [`Error::ResyncFailed`] for a world of another tick; engine errors restoring it.
    pub fn adopt(&mut self, world: &G) -> Result<G::Hash, Error> {
        let tick = self.world.tick();
        if world.tick() != tick {
            return Err(Error::ResyncFailed {
                reason: format!(
                    "a state of tick {} cannot replace the state of tick {tick}",
                    world.tick()
                ),
            });
        }
        let replaced = self.hash_at(tick)?;
        self.world.restore(&world.snapshot()).map_err(Error::game)?;
        self.hashes
            .insert(tick, Cell::new(Some(self.world.state_hash())));
        self.hashed.set(self.hashed.get() + 1);
        self.history.save(&self.world);
        self.history_is_first.insert(tick, false);
        Ok(replaced)
    }

    /// Steps the world once with `inputs` known to be final (a gap of confirmed ticks another
    /// peer sent on a reconnect), keeping its state, hash and inputs like any advanced frame.
    ///
    /// # Errors
    /// An engine error while stepping.
    pub fn step_confirmed(&mut self, inputs: &[G::Input]) -> Result<(), Error> {
        let tick = self.world.tick();
        let kept = self.inputs.slot_mut(tick);
        kept.clear();
        kept.extend_from_slice(inputs);
        let events = self.world.step(inputs).map_err(Error::game)?;
        keep_events(&mut self.tick_events, tick, events);
        self.record_reached();
        Ok(())
    }

    /// Keeps the state just reached: its hash, its snapshot, the counters.
    fn record_reached(&mut self) {
        let now = self.world.tick();
        // Keep every reached state, not only those GGRS asks to save: spectators are never
        // asked, and logs checkpoint and dump from here. Its hash waits until it is compared.
        // A sync test's re-simulation nearly always reaches the state of the tick's first
        // save again, which the history still holds: then nothing is copied.
        self.hashes.insert(now, Cell::new(None));
        if self.first_state_again(now) {
            self.counters.first_states_again += 1;
        } else {
            self.history.save(&self.world);
            self.history_is_first.insert(now, false);
        }
        self.counters.advances += 1;
        if now > self.furthest {
            self.furthest = now;
            self.counters.new_frames += 1;
        }
    }

    /// The state kept for `tick`: the history's, or the tick's first save where the history
    /// gave its snapshot to it (a sync test's first save; see `sync_test_checksum`).
    fn kept(&self, tick: Tick) -> Result<&G::Snapshot, Error> {
        kept(
            &self.history,
            &self.first_saves,
            &self.history_is_first,
            tick,
        )
    }

    /// Puts the world back in the state kept for `tick`. The history holds only this
    /// world's own saves, so it is loaded unchecked ([`Game::restore_saved`]).
    fn restore_kept(&mut self, tick: Tick) -> Result<(), Error> {
        let snapshot = kept(
            &self.history,
            &self.first_saves,
            &self.history_is_first,
            tick,
        )?;
        self.world.restore_saved(snapshot).map_err(Error::game)
    }

    /// Whether the world is at tick `now` in the state of that tick's first save, and the
    /// history's reads of the tick still go to that save.
    fn first_state_again(&self, now: Tick) -> bool {
        self.keep_first_saves
            && self.history_is_first.get(now) == Ok(&true)
            && matches!(self.first_saves.get(now), Ok(Some(first)) if self.world.state_equals(first))
    }

    /// Arms a deliberate desync (see [`Injection`]).
    pub fn inject(&mut self, injection: Injection<G::Phase>) {
        self.injection = Some(injection);
    }

    /// The earliest tick the last [`Driver::handle`] call rolled back to, if it rolled back:
    /// every tick from there on was simulated again and [`Driver::events`] holds their events.
    #[must_use]
    pub fn resimulated_from(&self) -> Option<Tick> {
        self.resimulated_from
    }

    /// Depths of the rollbacks served by the last [`Driver::handle`] call.
    #[must_use]
    pub fn last_rollback_depths(&self) -> &[u32] {
        &self.last_depths
    }

    /// Also keep the first snapshot saved for every tick, and the per-phase hashes of the step
    /// that first reached it, so a sync-test mismatch can show the original next to the
    /// re-simulated state, down to the phase; and give every save a checksum, since a sync
    /// test compares them all (a re-simulated save equal to the first takes its hash).
    pub fn keep_first_saves(&mut self, keep: bool) {
        self.keep_first_saves = keep;
    }

    /// With first saves kept: whether the step that first reaches each tick is also traced
    /// phase by phase (on by default). Tracing hashes the state after every phase, which
    /// costs more than the rest of a sync-test frame together; without it, a mismatch still
    /// names the tick, the section and the field, but not the phase.
    pub fn trace_first_passes(&mut self, trace: bool) {
        self.trace_first_passes = trace;
    }

    /// Serves `requests` in order. Events of the advanced frames are available from
    /// [`Driver::events`] until the next call.
    ///
    /// # Errors
    /// A request for a frame other than the world's ([`Error::FrameMismatch`]), a load of a
    /// cell not saved at its frame ([`Error::LoadOfUnsavedFrame`]) or of a tick no longer in
    /// history, or an engine error while stepping.
    pub fn handle(&mut self, requests: Vec<GgrsRequest<GgrsConfig<G>>>) -> Result<(), Error> {
        self.events.clear();
        self.last_depths.clear();
        self.resimulated_from = None;
        for request in requests {
            match request {
                GgrsRequest::SaveGameState { cell, frame } => {
                    let tick = self.expect_frame(frame)?;
                    // The world's current state is already in the history (kept there by `new`,
                    // every advance and every load): saving copies nothing. A sync test
                    // compares every save's checksum (see `sync_test_checksum`); a peer's GGRS
                    // compares only final frames, so a save there waits for `seal_final`
                    // unless its hash is already known.
                    let sum = if self.keep_first_saves {
                        Some(self.sync_test_checksum(tick)?)
                    } else {
                        self.hashes.get(tick)?.get().map(|hash| checksum(&hash))
                    };
                    self.ggrs_saved.insert(tick, ());
                    match sum {
                        Some(sum) => cell.save(frame, Some(tick), Some(sum)),
                        None => {
                            cell.save(frame, Some(tick), None);
                            self.wait_for_seal(tick, frame, cell);
                        }
                    }
                }
                GgrsRequest::LoadGameState { cell, frame } => {
                    let tick = self.tick_of(frame).ok_or(Error::FrameMismatch {
                        expected: self.world.tick(),
                        requested: frame,
                    })?;
                    // GGRS loads only cells it had the driver save, which hold their tick.
                    if cell.load() != Some(tick) {
                        return Err(Error::LoadOfUnsavedFrame { frame });
                    }
                    let depth = self.world.tick().saturating_sub(tick);
                    self.restore_kept(tick)?;
                    self.counters.rollbacks += 1;
                    let bucket = (depth as usize).min(MAX_TRACKED_DEPTH);
                    self.counters.depth_histogram[bucket] += 1;
                    self.counters.max_depth = self.counters.max_depth.max(depth);
                    self.last_depths.push(depth);
                    self.resimulated_from =
                        Some(self.resimulated_from.map_or(tick, |t| t.min(tick)));
                }
                GgrsRequest::AdvanceFrame { inputs } => self.advance(&inputs)?,
            }
        }
        Ok(())
    }

    /// The checksum GGRS gets for a sync test's save of `tick` (the world's current state).
    /// The first save of a tick is kept; a later save, re-simulated from a rollback, is
    /// compared with it byte for byte. A save in the state of the tick's first save gets
    /// [`first_state_checksum`], the same for all of them, and no hash is computed (a sync
    /// test saves each tick once per frame of its check distance, and in a deterministic game
    /// every re-simulated state is the first again). A save in any other state gets its own
    /// state's checksum, which is never that one, so GGRS sees the checksums differ exactly
    /// when the states do; the forensics that follow hash both states.
    fn sync_test_checksum(&mut self, tick: Tick) -> Result<u128, Error> {
        if let Ok(Some(first)) = self.first_saves.get(tick) {
            // Reached again without a copy (the history's reads of the tick go to the first
            // save), or copied into the history in that state.
            if *self.history_is_first.get(tick)? || first == self.history.get(tick)? {
                return Ok(first_state_checksum(tick));
            }
            return Ok(checksum(&self.hash_at(tick)?));
        }
        // The history holds this state: it becomes the first save by exchanging the two
        // slots' snapshots (no copy), and the history's reads of the tick go to the first
        // save while `history_is_first` says so (see `kept`). The history slot's snapshot,
        // another tick's, is overwritten only if a re-simulation reaches another state.
        let kept = self.history.get_mut(tick)?;
        match self.first_saves.slot_mut(tick) {
            Some(first) => std::mem::swap(first, kept),
            empty => *empty = Some(kept.clone()),
        }
        self.history_is_first.insert(tick, true);
        Ok(first_state_checksum(tick))
    }

    /// Serves one `AdvanceFrame`: the step, its events, its trace in a sync test, and the
    /// state it reached.
    fn advance(&mut self, inputs: &[(G::Input, InputStatus)]) -> Result<(), Error> {
        let tick = self.world.tick();
        let kept = self.inputs.slot_mut(tick);
        kept.clear();
        kept.extend(inputs.iter().map(|&(input, status)| match status {
            // A disconnected player's input is "no input".
            InputStatus::Disconnected => G::Input::default(),
            InputStatus::Confirmed | InputStatus::Predicted => input,
        }));
        let inputs = &kept[..];
        // A deliberate desync nudges the state inside the step that reaches its tick (only the
        // first time in a sync test, so the re-simulation differs).
        let reach = tick.wrapping_add(1);
        let nudge = self
            .injection
            .filter(|inj| {
                inj.tick == reach && (!inj.first_pass_only || self.ggrs_saved.get(reach).is_err())
            })
            .and_then(|inj| G::phase_index(inj.after));
        // A sync test traces every tick's first pass, to compare phase by phase.
        let first_pass = self.keep_first_saves && self.trace_first_passes && reach > self.furthest;
        let events = match (nudge, first_pass) {
            (Some(after), traced) => {
                let mut perturb = Perturb {
                    after,
                    inner: PhaseTracer::new(tick),
                };
                let events = self
                    .world
                    .step_observed(inputs, &mut perturb)
                    .map_err(Error::game)?;
                if traced {
                    self.first_traces.insert(reach, perturb.inner.finish());
                }
                events
            }
            (None, true) => {
                let mut tracer = PhaseTracer::new(tick);
                self.world
                    .step_observed(inputs, &mut tracer)
                    .map_err(Error::game)?;
                self.first_traces.insert(reach, tracer.finish());
                self.world.last_events()
            }
            (None, false) => self.world.step(inputs).map_err(Error::game)?,
        };
        self.events.extend_from_slice(events);
        keep_events(&mut self.tick_events, tick, events);
        self.record_reached();
        Ok(())
    }

    /// Re-simulates the step that reached `tick` (from the kept state of `tick - 1` and the
    /// inputs it was simulated with) and returns the state hash after every phase. An armed
    /// [`Injection`] for `tick` that fires on every pass is applied again, as in play.
    ///
    /// # Errors
    /// If `tick - 1` is no longer in the history, or an engine error while stepping.
    pub fn trace_tick(&self, tick: Tick) -> Result<PhaseHashes<G::Hash>, Error> {
        let before = tick.checked_sub(1).ok_or(Error::NoStepBefore { tick })?;
        let mut world = self.world.clone();
        world
            // Checked: forensics re-traces states a desync (or its test hook) may have left
            // outside the invariants, and must refuse them rather than trust them.
            .restore(self.kept(before)?)
            .map_err(Error::game)?;
        let inputs = self.inputs_at(before)?;
        let mut tracer = PhaseTracer::new(before);
        let perturb_after = self
            .injection
            .filter(|inj| inj.tick == tick && !inj.first_pass_only)
            .and_then(|inj| G::phase_index(inj.after));
        match perturb_after {
            Some(after) => {
                let mut perturb = Perturb {
                    after,
                    inner: tracer,
                };
                world
                    .step_observed(inputs, &mut perturb)
                    .map_err(Error::game)?;
                tracer = perturb.inner;
            }
            None => {
                world
                    .step_observed(inputs, &mut tracer)
                    .map_err(Error::game)?;
            }
        }
        Ok(tracer.finish())
    }

    fn expect_frame(&self, frame: ggrs::Frame) -> Result<Tick, Error> {
        let tick = self.world.tick();
        if self.tick_of(frame) != Some(tick) {
            return Err(Error::FrameMismatch {
                expected: tick,
                requested: frame,
            });
        }
        Ok(tick)
    }

    /// The world as of the last frame advanced (possibly predicted).
    #[must_use]
    pub fn world(&self) -> &G {
        &self.world
    }

    /// Events of the frames advanced by the last [`Driver::handle`].
    #[must_use]
    pub fn events(&self) -> &[G::Event] {
        &self.events
    }

    /// The hash recorded for the state at `tick`.
    ///
    /// # Errors
    /// If `tick` is not (or no longer) in the history.
    pub fn hash_at(&self, tick: Tick) -> Result<G::Hash, Error> {
        let kept = self.hashes.get(tick)?;
        if let Some(hash) = kept.get() {
            return Ok(hash);
        }
        // The live world hashes cheapest (a game may cache parts of its hash).
        let hash = if tick == self.world.tick() {
            self.world.state_hash()
        } else {
            G::snapshot_hash(self.kept(tick)?)
        };
        kept.set(Some(hash));
        self.hashed.set(self.hashed.get() + 1);
        Ok(hash)
    }

    /// How many states the driver has hashed since it started (the first state included): one
    /// per final tick, and in a sync test one per re-simulated save that differs from its
    /// tick's first save; never one per predicted or re-simulated frame.
    #[must_use]
    pub fn states_hashed(&self) -> u64 {
        self.hashed.get()
    }

    /// Keeps a save without checksum for [`Driver::seal_final`]. The list is bounded by the
    /// history: saves of ticks that left it are dropped (a caller that never seals them has
    /// no desync detection to feed), so it stops growing and never reallocates.
    fn wait_for_seal(&mut self, tick: Tick, frame: ggrs::Frame, cell: GameStateCell<Tick>) {
        if self.unsealed.len() == self.unsealed.capacity() {
            let history = &self.history;
            self.unsealed.retain(|(t, _, _)| history.get(*t).is_ok());
        }
        if self.unsealed.len() < self.unsealed.capacity() {
            self.unsealed.push((tick, frame, cell));
        }
    }

    /// Declares every tick up to `tick` final (its state follows from confirmed inputs only,
    /// and everything received so far has been simulated): fills in the checksum of every
    /// GGRS save of those ticks still waiting for one, so GGRS's desync detection can send
    /// and compare it. A peer calls this after serving each frame's requests; each final
    /// state is hashed once.
    ///
    /// # Errors
    /// If a waiting tick is no longer in the history (it fell out before becoming final,
    /// which a GGRS prediction window shorter than the history never allows).
    pub fn seal_final(&mut self, tick: Tick) -> Result<(), Error> {
        let mut i = 0;
        while i < self.unsealed.len() {
            let (saved, frame, _) = self.unsealed[i];
            if saved > tick {
                i += 1;
                continue;
            }
            let (_, _, cell) = self.unsealed.swap_remove(i);
            // GGRS reuses its cells frame after frame: seal only one still holding this save.
            if cell.load() == Some(saved) {
                let hash = self.hash_at(saved)?;
                cell.save(frame, Some(saved), Some(checksum(&hash)));
            }
        }
        Ok(())
    }

    /// The events of the step from `tick` (to `tick + 1`) as it was last simulated: for a
    /// final tick, what really happened. The logs audit them ([`Game::audit`]).
    ///
    /// # Errors
    /// If `tick` is not (or no longer) in the history.
    pub fn events_at(&self, tick: Tick) -> Result<&[G::Event], Error> {
        Ok(self.tick_events.get(tick)?.as_slice())
    }

    /// The inputs `tick` was last simulated with.
    ///
    /// # Errors
    /// If `tick` is not (or no longer) in the history.
    pub fn inputs_at(&self, tick: Tick) -> Result<&[G::Input], Error> {
        Ok(self.inputs.get(tick)?.as_slice())
    }

    /// The snapshot saved for `tick` (the latest save, after any re-simulation).
    ///
    /// # Errors
    /// If `tick` is not (or no longer) in the history.
    pub fn snapshot_at(&self, tick: Tick) -> Result<&G::Snapshot, Error> {
        self.kept(tick)
    }

    /// The first snapshot saved for `tick`, if first saves are kept.
    #[must_use]
    pub fn first_snapshot_at(&self, tick: Tick) -> Option<&G::Snapshot> {
        self.first_saves.get(tick).ok().and_then(Option::as_ref)
    }

    /// The per-phase hashes of the step that first reached `tick`, if first saves are kept.
    #[must_use]
    pub fn first_trace_at(&self, tick: Tick) -> Option<&PhaseHashes<G::Hash>> {
        self.first_traces.get(tick).ok()
    }

    /// Counters since the driver started.
    #[must_use]
    pub fn counters(&self) -> &RollbackCounters {
        &self.counters
    }
}

/// [`Driver::kept`] over the driver's fields, so the world can be restored from it while
/// they are borrowed.
fn kept<'a, G: Game>(
    history: &'a StateHistory<G>,
    first_saves: &'a TickRing<Option<G::Snapshot>>,
    history_is_first: &TickRing<bool>,
    tick: Tick,
) -> Result<&'a G::Snapshot, Error> {
    if history_is_first.get(tick) == Ok(&true) {
        if let Ok(Some(first)) = first_saves.get(tick) {
            return Ok(first);
        }
    }
    Ok(history.get(tick)?)
}

/// The checksum GGRS compares: the combined state hash.
fn checksum<H: game_api::SectionHash>(hash: &H) -> u128 {
    u128::from(hash.combined())
}

/// The checksum of every sync-test save of `tick` in the state of the tick's first save:
/// bit 64 set, which no state's [`checksum`] (a 64-bit hash) has.
fn first_state_checksum(tick: Tick) -> u128 {
    1 << 64 | u128::from(tick)
}

/// Keeps the events of the step from `tick` in its slot, the slot's buffer reused: a final
/// tick's events are its last pass's.
fn keep_events<E: Clone>(ring: &mut TickRing<Vec<E>>, tick: Tick, events: &[E]) {
    let kept = ring.slot_mut(tick);
    kept.clear();
    kept.extend_from_slice(events);
}

#[cfg(test)]
mod tests {
    use super::*;
    use engine::{Rules, StateHash, WireInput, World};
    use game_api::SectionHash as _;

    fn driver() -> Driver<World> {
        Driver::new(World::new(Rules::default(), 7, 2).expect("world"))
    }

    fn inputs(x: i8) -> [WireInput; 2] {
        [
            WireInput {
                move_x: x,
                ..WireInput::default()
            },
            WireInput::default(),
        ]
    }

    /// A confirmed advance with player 0's stick at `x`.
    fn advance(x: i8) -> GgrsRequest<GgrsConfig<World>> {
        GgrsRequest::AdvanceFrame {
            inputs: vec![(inputs(x)[0], ggrs::InputStatus::Confirmed); 2],
        }
    }

    /// A sync test's driver (first saves kept) on a fight that has begun, served six frames
    /// (save, advance with the stick at 50): its start, the driver and the six save cells.
    fn sync_test_of_six_frames() -> (
        engine::WorldSnapshot,
        Driver<World>,
        Vec<GameStateCell<Tick>>,
    ) {
        let mut fighting = World::new(Rules::default(), 7, 2)
            .expect("world")
            .snapshot();
        fighting.round.phase = engine::RoundPhase::Fighting;
        fighting.round.phase_timer = 0;
        let world = World::from_snapshot(Rules::default(), &fighting).expect("fighting");
        let mut d = Driver::new(world);
        d.keep_first_saves(true);
        let mut cells = Vec::new();
        for frame in 0..6 {
            let cell = GameStateCell::default();
            cells.push(cell.clone());
            d.handle(vec![
                GgrsRequest::SaveGameState { cell, frame },
                advance(50),
            ])
            .expect("advance");
        }
        (fighting, d, cells)
    }

    /// A session started mid-match (after a rejoin) counts GGRS frames from its first tick.
    #[test]
    fn frames_count_from_the_tick_the_session_started_at() {
        let mut d = driver();
        assert_eq!(
            (d.frame_base(), d.tick_of(0), d.tick_of(-1)),
            (0, Some(0), None)
        );
        for _ in 0..5 {
            d.step_confirmed(&inputs(40)).expect("step");
        }
        d.start_frames_here();
        assert_eq!(d.frame_base(), 5);
        assert_eq!(
            (d.tick_of(0), d.tick_of(3), d.tick_of(-1)),
            (Some(5), Some(8), None)
        );
        assert_eq!(d.tick_of(i32::MAX), Some(5 + i32::MAX as u32));
        let cell = ggrs::GameStateCell::default();
        let save = |frame| GgrsRequest::SaveGameState {
            cell: cell.clone(),
            frame,
        };
        assert!(d.handle(vec![save(0)]).is_ok(), "frame 0 is tick 5");
        assert!(matches!(
            d.handle(vec![save(5)]),
            Err(Error::FrameMismatch {
                expected: 5,
                requested: 5
            })
        ));
    }

    /// A load must name a cell the driver saved that frame into, as GGRS's always do: an
    /// empty cell, or one saved at another frame, is refused and the world stays where it is.
    #[test]
    fn a_load_of_a_cell_never_saved_at_its_frame_is_refused() {
        let mut d = driver();
        let saved: Vec<_> = (0..3).map(|_| ggrs::GameStateCell::default()).collect();
        for (frame, cell) in (0..).zip(&saved) {
            let save = GgrsRequest::SaveGameState {
                cell: cell.clone(),
                frame,
            };
            let advance = GgrsRequest::AdvanceFrame {
                inputs: vec![(inputs(20)[0], ggrs::InputStatus::Confirmed); 2],
            };
            d.handle(vec![save, advance]).expect("advance");
        }
        let load = |cell: &ggrs::GameStateCell<Tick>, frame| {
            vec![GgrsRequest::LoadGameState {
                cell: cell.clone(),
                frame,
            }]
        };
        for (cell, frame) in [(&ggrs::GameStateCell::default(), 1), (&saved[2], 1)] {
            assert!(matches!(
                d.handle(load(cell, frame)),
                Err(Error::LoadOfUnsavedFrame { frame: 1 })
            ));
            assert_eq!((d.world().tick(), d.counters().rollbacks), (3, 0));
        }
        d.handle(load(&saved[1], 1)).expect("a saved frame loads");
        assert_eq!((d.world().tick(), d.counters().rollbacks), (1, 1));
    }

    /// A confirmed step keeps what an advance keeps: the state, its hash, the inputs
    /// (in their wire form) and the counters.
    #[test]
    fn a_confirmed_step_keeps_state_hash_and_inputs_like_an_advance() {
        let mut d = driver();
        let mut world = World::new(Rules::default(), 7, 2).expect("world");
        for t in 0..4 {
            let step = inputs(10 * t as i8);
            d.step_confirmed(&step).expect("step");
            let cmds: Vec<_> = step.iter().map(|i| i.at(t)).collect();
            world.step(&cmds).expect("step");
            assert_eq!(d.inputs_at(t).expect("kept"), step.as_slice());
            assert_eq!(d.hash_at(t + 1).expect("kept"), world.state_hash());
            assert_eq!(d.snapshot_at(t + 1).expect("kept"), world.state());
        }
        assert_eq!(d.world().state(), world.state());
        assert_eq!((d.counters().advances, d.counters().new_frames), (4, 4));
    }

    /// Rewinding drops the prediction: the world is back at that tick, and stepping on from
    /// there counts as the first time again.
    #[test]
    fn a_rewind_goes_back_to_a_kept_tick_and_forgets_what_came_after() {
        let mut d = driver();
        for _ in 0..10 {
            d.step_confirmed(&inputs(60)).expect("step");
        }
        let kept = d.hash_at(6).expect("kept");
        d.rewind_to(6).expect("rewind");
        assert_eq!((d.world().tick(), d.world().state_hash()), (6, kept));
        d.step_confirmed(&inputs(-60)).expect("step");
        assert_eq!(
            d.counters().new_frames,
            11,
            "tick 7 reached anew after the rewind"
        );
        assert!(d.rewind_to(10_000).is_err(), "a tick never kept");
    }
    /// A peer hashes a state once, when its tick is final: predicted and re-simulated frames
    /// are saved for GGRS without a checksum, and sealing fills it in from the kept snapshot,
    /// equal to the hash of a plain run.
    #[test]
    fn a_peer_hashes_each_final_state_once_and_never_a_prediction() {
        let mut d = driver();
        let advance = |x| GgrsRequest::AdvanceFrame {
            inputs: vec![(inputs(x)[0], ggrs::InputStatus::Predicted); 2],
        };
        let mut cells = Vec::new();
        for frame in 0..10 {
            let cell = ggrs::GameStateCell::default();
            cells.push(cell.clone());
            d.handle(vec![
                GgrsRequest::SaveGameState { cell, frame },
                advance(30),
            ])
            .expect("advance");
        }
        let mut again = vec![GgrsRequest::LoadGameState {
            cell: cells[4].clone(),
            frame: 4,
        }];
        for frame in 4..10 {
            again.push(GgrsRequest::SaveGameState {
                cell: cells[frame as usize].clone(),
                frame,
            });
            again.push(advance(-30));
        }
        d.handle(again).expect("rollback");
        assert_eq!(d.states_hashed(), 1, "only the first state, at the start");
        d.seal_final(7).expect("seal");
        assert_eq!(d.states_hashed(), 8, "ticks 1 to 7, once each");
        d.seal_final(7).expect("seal again");
        d.seal_final(3).expect("seal earlier");
        assert_eq!(d.states_hashed(), 8, "nothing hashed twice");
        let mut plain = World::new(Rules::default(), 7, 2).expect("world");
        for t in 0..10u32 {
            if t > 0 {
                assert_eq!(d.hash_at(t).expect("kept"), plain.state_hash(), "tick {t}");
            }
            let x = if t < 4 { 30 } else { -30 };
            let cmd = inputs(x)[0].at(t);
            plain.step(&[cmd, cmd]).expect("step");
        }
        assert_eq!(
            d.states_hashed(),
            10,
            "ticks 8 and 9 when asked, tick 10 never"
        );
        for (frame, cell) in cells.iter().enumerate() {
            assert_eq!(cell.load(), Some(frame as Tick), "saves hold their tick");
        }
    }

    /// A sync test compares every save with its tick's first save, byte for byte: while the
    /// re-simulations match, no save is hashed (only the first state, when the driver was
    /// made), and every save of a tick gets the same checksum, which no state's hash is.
    #[test]
    fn a_sync_test_hashes_no_save_while_the_states_match() {
        let mut d = driver();
        d.keep_first_saves(true);
        let advance = || GgrsRequest::AdvanceFrame {
            inputs: vec![(WireInput::default(), ggrs::InputStatus::Confirmed); 2],
        };
        for frame in 0..6 {
            let cell = ggrs::GameStateCell::default();
            d.handle(vec![GgrsRequest::SaveGameState { cell, frame }, advance()])
                .expect("advance");
        }
        assert_eq!(d.states_hashed(), 1, "the first state only");
        // Saved again in the same state: the first save's checksum, not a hash.
        assert_eq!(
            d.sync_test_checksum(6).expect("first save"),
            first_state_checksum(6)
        );
        assert_eq!(
            d.sync_test_checksum(6).expect("again"),
            first_state_checksum(6)
        );
        assert_ne!(first_state_checksum(6), first_state_checksum(5));
        assert_eq!(d.states_hashed(), 1, "still the first state only");
        // Asked for, a tick's hash is its state's, computed then.
        assert_eq!(d.hash_at(6).expect("kept"), d.world().state_hash());
        assert_eq!(d.states_hashed(), 2);
    }

    /// No state's checksum is a first save's: a 64-bit hash leaves bit 64 clear.
    #[test]
    fn no_states_checksum_is_a_first_saves() {
        for combined in [0, 1, 6, u64::MAX] {
            let hash = StateHash::from_sections([combined; 5]);
            for tick in [0, 6, Tick::MAX] {
                assert_ne!(checksum(&hash), first_state_checksum(tick));
            }
            assert_eq!(checksum(&hash), u128::from(hash.combined()));
        }
        assert_eq!(first_state_checksum(6) >> 64, 1);
        assert_eq!(first_state_checksum(6) as u64, 6);
    }

    /// Every tick of `ticks` is saved in its first save's state: GGRS gets the first state's
    /// checksum for it.
    fn gets_first_state_checksums(d: &mut Driver<World>, ticks: std::ops::Range<Tick>) {
        for t in ticks {
            assert_eq!(
                d.sync_test_checksum(t).expect("kept"),
                first_state_checksum(t),
                "tick {t}"
            );
        }
    }

    /// A sync test's re-simulated save equal to the tick's first save gets its checksum
    /// without hashing; one that differs is hashed, and its checksum is its own state's hash,
    /// so GGRS sees the mismatch.
    #[test]
    fn a_sync_test_hashes_a_re_simulated_save_only_when_it_differs_from_the_first() {
        let (fighting, mut d, cells) = sync_test_of_six_frames();
        let hashed = d.states_hashed();
        // Re-simulate ticks 3 to 6 with the same inputs, saving 3 to 5 again.
        let resimulate = |x| {
            let mut again = vec![GgrsRequest::LoadGameState {
                cell: cells[3].clone(),
                frame: 3,
            }];
            for frame in 3..6 {
                let cell = ggrs::GameStateCell::default();
                again.push(GgrsRequest::SaveGameState { cell, frame });
                again.push(advance(x));
            }
            again
        };
        d.handle(resimulate(50)).expect("rollback");
        assert_eq!(d.states_hashed(), hashed, "equal saves are not hashed");
        // Ticks 4 and 5 reached again in their first states, kept without a copy (tick 6
        // was only reached, never saved: it has no first save).
        assert_eq!(d.counters().first_states_again, 2);
        // The checksums handed to GGRS are the first saves'.
        gets_first_state_checksums(&mut d, 3..6);
        assert_eq!(d.states_hashed(), hashed, "nor are they when asked again");
        let first: Vec<_> = (0..6).map(|t| d.hash_at(t).expect("kept")).collect();
        let hashed = d.states_hashed();
        // Re-simulated with other inputs, tick 3 is the loaded state, 4 and 5 differ.
        d.handle(resimulate(-50)).expect("rollback");
        assert_eq!(d.states_hashed(), hashed + 2, "ticks 4 and 5 hashed");
        for t in 4..6 {
            let own = checksum(&d.hash_at(t).expect("kept"));
            assert_eq!(d.sync_test_checksum(t).expect("kept"), own, "tick {t}");
            assert_ne!(own, first_state_checksum(t), "tick {t}");
        }
        let mut plain = World::from_snapshot(Rules::default(), &fighting).expect("fighting");
        for t in 0..6u32 {
            let x = if t < 3 { 50 } else { -50 };
            if t >= 3 {
                assert_eq!(d.hash_at(t).expect("kept"), plain.state_hash(), "tick {t}");
            }
            let cmd = inputs(x)[0].at(t);
            plain.step(&[cmd, cmd]).expect("step");
        }
        assert_ne!(d.hash_at(4).expect("kept"), first[4]);
        // Back to the first inputs: the history holds the other states, so they are replaced
        // (a copy skipped here would leave tick 4's snapshot at the other state), and their
        // checksums are the first saves' again, without hashing.
        let hashed = d.states_hashed();
        d.handle(resimulate(50)).expect("rollback");
        assert_eq!(d.states_hashed(), hashed, "equal to the first saves");
        assert_eq!(
            d.counters().first_states_again,
            2,
            "copied: the history differed"
        );
        gets_first_state_checksums(&mut d, 3..6);
        assert_eq!(d.states_hashed(), hashed, "equal to the first saves");
        for t in 3..6 {
            let kept = d.snapshot_at(t).expect("kept");
            assert_eq!(Some(kept), d.first_snapshot_at(t), "tick {t}");
            assert_eq!(d.hash_at(t).expect("kept"), first[t as usize], "tick {t}");
            assert_eq!(World::snapshot_hash(kept), first[t as usize], "tick {t}");
        }
    }

    /// A rollback re-simulates up to the furthest tick again: those frames are advances, not
    /// new frames.
    #[test]
    fn re_simulated_frames_are_advances_but_not_new_frames() {
        let mut d = driver();
        let advance = || GgrsRequest::AdvanceFrame {
            inputs: vec![(WireInput::default(), ggrs::InputStatus::Confirmed); 2],
        };
        let mut cells = Vec::new();
        for frame in 0..10 {
            let cell = ggrs::GameStateCell::default();
            cells.push(cell.clone());
            d.handle(vec![GgrsRequest::SaveGameState { cell, frame }, advance()])
                .expect("advance");
        }
        let mut again = vec![GgrsRequest::LoadGameState {
            cell: cells[5].clone(),
            frame: 5,
        }];
        again.extend((0..5).map(|_| advance()));
        d.handle(again).expect("rollback");
        let c = d.counters();
        assert_eq!((c.advances, c.new_frames, c.rollbacks), (15, 10, 1));
        assert_eq!(d.world().tick(), 10);
    }

    /// An adopted state replaces the kept one, hash and all, and is hashed once (the state it
    /// replaces once too, if it was not yet).
    #[test]
    fn an_adopted_state_is_kept_and_hashed_once() {
        let mut d = driver();
        for _ in 0..5 {
            d.step_confirmed(&inputs(40)).expect("step");
        }
        let mut other = World::new(Rules::default(), 8, 2).expect("world");
        for t in 0..5 {
            other.step(&[inputs(-40)[0].at(t); 2]).expect("step");
        }
        let own = d.hash_at(5).expect("kept");
        let before = d.states_hashed();
        assert_eq!(
            d.adopt(&other).expect("adopt"),
            own,
            "returns what it replaced"
        );
        assert_eq!(d.states_hashed(), before + 1, "the adopted state, once");
        assert_eq!(d.hash_at(5).expect("kept"), other.state_hash());
        assert_eq!(d.snapshot_at(5).expect("kept"), other.state());
        assert_eq!(d.states_hashed(), before + 1, "asking again hashes nothing");
    }

    /// Saves never sealed for longer than the history are dropped, not the newest: the
    /// waiting list stays within its first allocation and always holds the latest save
    /// still without a checksum.
    #[test]
    fn saves_waiting_past_the_history_make_room_for_the_newest() {
        let mut d = driver();
        let capacity = d.unsealed.capacity();
        for frame in 0..HISTORY_TICKS as i32 * 3 {
            d.handle(vec![
                GgrsRequest::SaveGameState {
                    cell: ggrs::GameStateCell::default(),
                    frame,
                },
                GgrsRequest::AdvanceFrame {
                    inputs: vec![(WireInput::default(), ggrs::InputStatus::Predicted); 2],
                },
            ])
            .expect("advance");
            assert_eq!(d.unsealed.capacity(), capacity, "frame {frame}");
            // (Tick 0's hash is known from the start: its save is sealed at once.)
            let newest = d.unsealed.last().map(|&(tick, _, _)| tick);
            assert_eq!(
                newest,
                (frame > 0).then_some(frame as Tick),
                "frame {frame}"
            );
        }
    }

    /// A sync test traces a tick's first pass only: re-simulating up to the furthest tick
    /// with other inputs keeps the first traces, and every tick first reached has one.
    #[test]
    fn only_a_ticks_first_pass_is_traced() {
        let (_, mut d, cells) = sync_test_of_six_frames();
        let first: Vec<_> = (1..=6)
            .map(|t| *d.first_trace_at(t).expect("a first pass is traced"))
            .collect();
        let mut again = vec![GgrsRequest::LoadGameState {
            cell: cells[3].clone(),
            frame: 3,
        }];
        again.extend((0..3).map(|_| advance(-50)));
        d.handle(again).expect("rollback");
        let first_end = *first[5].after().last().expect("phases");
        assert_ne!(
            d.hash_at(6).expect("kept"),
            first_end,
            "the re-simulation differs"
        );
        for t in 1..=6 {
            assert_eq!(
                d.first_trace_at(t),
                Some(&first[t as usize - 1]),
                "tick {t}"
            );
        }
    }
}
