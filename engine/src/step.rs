//! `World::step`: one tick of the simulation, as a fixed list of named phases.
//!
//! The order of the phases is part of the rules — two peers that ran them in another order
//! would disagree — so it is written down once, in [`STEP_PHASES`], and [`World::step`] runs
//! exactly that list. Within a phase, players are visited in slot order and projectiles in
//! spawn order; pairs of players in `(i, j)`, `i < j` order.

use crate::clearance::{Target, Window};
use crate::error::Error;
use crate::event::{Event, EventKind, HitSource};
use crate::fx::{Fx, FxVec, ZERO};
use crate::geom::{
    point_at, segment_circle_toi, segment_grid_toi, swept_circle_margin, wall_clear_ticks,
};
use crate::hash::StateHash;
use crate::input::{buttons, InputCmd, WireInput, STICK_MAX};
use crate::maze::Tile;
use crate::movement::{move_box, pushbox_separation};
use crate::player::MAX_PLAYERS;
use crate::player::{Action, Player, PlayerId};
use crate::pose_history::{HitboxHistory, ViewTime};
use crate::projectile::Projectile;
use crate::rail::{ShotOutcome, ShotTarget};
use crate::round::{everyone, RoundPhase};
use crate::world::World;
use crate::Tick;
use game_api::{Perturb, PhaseTracer, StepObserver};

/// The phases of a step, in the order they run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Phase {
    /// One input per player, all stamped with the tick being simulated; then sanitized.
    Validate,
    /// Hit-stop counts down (a frozen player sits out the movement and aim-and-fire phases
    /// too); action timers, cooldowns, reloads; target velocity from the stick; friction.
    Timers,
    /// Each player moves by its velocity, X then Y, stopped by walls.
    Movement,
    /// Aim follows the stick; reload, melee and rail presses; shots spawn and rail shots are
    /// accepted (ammo and charges spent on acceptance).
    AimAndFire,
    /// Overlapping players push each other apart; each push is re-constrained by the walls.
    Pushbox,
    /// Every rail shot accepted this tick is resolved, in shooter-id order, against the pose
    /// history at its view time (lag compensation; see `rail.rs`).
    Rail,
    /// Melee hitboxes on their active frames (a hit freezes attacker and victim for the
    /// hit-stop), then every projectile swept along its step.
    ProjectilesAndHits,
    /// Spent projectiles are removed, keeping the order of the rest.
    Removal,
    /// KO and time limit decide the round; round and match transitions.
    RoundLogic,
    /// The tick counter advances and every player's hitbox pose is recorded in the pose
    /// history for the new time; the step's events are final.
    Events,
}

/// The step order. [`World::step`] runs these and nothing else.
pub const STEP_PHASES: [Phase; 10] = [
    Phase::Validate,
    Phase::Timers,
    Phase::Movement,
    Phase::AimAndFire,
    Phase::Pushbox,
    Phase::Rail,
    Phase::ProjectilesAndHits,
    Phase::Removal,
    Phase::RoundLogic,
    Phase::Events,
];

impl Phase {
    /// The phase's name as tools print it (`aim-and-fire`).
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            Phase::Validate => "validate",
            Phase::Timers => "timers",
            Phase::Movement => "movement",
            Phase::AimAndFire => "aim-and-fire",
            Phase::Pushbox => "pushbox",
            Phase::Rail => "rail",
            Phase::ProjectilesAndHits => "projectiles-and-hits",
            Phase::Removal => "removal",
            Phase::RoundLogic => "round-logic",
            Phase::Events => "events",
        }
    }

    /// The phase named `name` (as [`Phase::name`] prints it).
    #[must_use]
    pub fn from_name(name: &str) -> Option<Phase> {
        STEP_PHASES.into_iter().find(|p| p.name() == name)
    }
}

/// The state hash right after every phase of one step: `after()[i]` follows `STEP_PHASES[i]`.
pub type PhaseHashes = game_api::PhaseHashes<StateHash>;

/// A player a projectile may hit this step, as the projectile phase reads it.
#[derive(Clone, Copy, Default)]
struct Victim {
    slot: usize,
    id: PlayerId,
    generation: u32,
    pos: FxVec,
}

/// The players projectiles can hit this step (the living ones, in slot order; none outside a
/// fight), read once for the whole projectile loop and again after each hit. Tested as
/// locals, most projectiles cost a few comparisons.
struct Victims {
    list: [Victim; MAX_PLAYERS],
    len: usize,
}

impl Victims {
    fn of(players: &[Player], fighting: bool) -> Victims {
        let mut victims = Victims {
            list: [Victim::default(); MAX_PLAYERS],
            len: 0,
        };
        if fighting {
            for (slot, p) in players.iter().enumerate().filter(|(_, p)| p.is_alive()) {
                victims.list[victims.len] = Victim {
                    slot,
                    id: p.id,
                    generation: p.generation,
                    pos: p.pos,
                };
                victims.len += 1;
            }
        }
        victims
    }

    /// The victims `proj` can hit: all but its owner's life that fired it.
    fn hittable_by<'a>(&'a self, proj: &'a Projectile) -> impl Iterator<Item = &'a Victim> + 'a {
        self.list[..self.len]
            .iter()
            .filter(|v| v.id != proj.owner || v.generation != proj.owner_generation)
    }

    /// The victims as the clearance cache tracks them.
    fn targets(&self) -> ([Target; MAX_PLAYERS], usize) {
        let mut targets = [Target::default(); MAX_PLAYERS];
        for (t, v) in targets.iter_mut().zip(&self.list[..self.len]) {
            *t = Target {
                slot: v.slot as u32,
                generation: v.generation,
                x: v.pos.x.to_bits(),
                y: v.pos.y.to_bits(),
            };
        }
        (targets, self.len)
    }

    /// By how much `proj` is far from every victim it can hit this step, or `None` if it may
    /// touch one (the box test of `swept_circle_far` for each: far is exact, no contact). The margin is the
    /// least of their [`swept_circle_margin`]s, raw 16.16 bits; `u64::MAX` when there is none
    /// to hit.
    #[inline(always)]
    fn far_margin(&self, proj: &Projectile, hurt_radius: Fx) -> Option<u64> {
        let mut least = u64::MAX;
        for v in self.hittable_by(proj) {
            let margin = swept_circle_margin(proj.pos, proj.vel, v.pos, hurt_radius);
            // Not above 0: not far on either axis, it may touch.
            least = least.min(u64::try_from(margin).ok().filter(|&m| m > 0)?);
        }
        Some(least)
    }

    /// Steps the leading projectiles of `projectiles` whose step is only a move — in flight,
    /// known clear of walls this step, far from every victim (known from `clearance`, or
    /// tested and then kept there), not at the end of their life — and returns how many it
    /// stepped: the next one (if any) needs the full sweep, or has ended.
    fn move_while_clear(
        &self,
        projectiles: &mut [Projectile],
        mut clearance: Window<'_>,
        hurt_radius: Fx,
    ) -> usize {
        for (moved, p) in projectiles.iter_mut().enumerate() {
            if p.wall_clear == 0 || p.life <= 1 {
                return moved;
            }
            if !clearance.known_far(moved) {
                let Some(margin) = self.far_margin(p, hurt_radius) else {
                    return moved;
                };
                let step = (i64::from(p.vel.x.to_bits()), i64::from(p.vel.y.to_bits()));
                clearance.found_far(moved, margin, step);
            }
            p.pos += p.vel;
            p.life -= 1;
            p.wall_clear -= 1;
        }
        projectiles.len()
    }
}

/// Where a projectile's sweep ended this tick.
enum Impact {
    Tile(i32, i32),
    Player(usize),
}

impl World {
    /// Simulates the tick [`World::tick`] with one input per player (in slot order), all
    /// stamped with that tick, and advances to the next tick. Returns the tick's events.
    ///
    /// Inputs are sanitized first (see [`InputCmd::sanitized`]), so any value is safe. Once the
    /// world's buffers have grown to the match's needs, a step does not allocate.
    ///
    /// # Errors
    /// [`Error::WrongInputCount`] or [`Error::WrongInputTick`]; [`Error::TickLimit`] at tick
    /// `Tick::MAX`, which has no next tick. The world is then unchanged.
    pub fn step(&mut self, inputs: &[InputCmd]) -> Result<&[Event], Error> {
        self.run_phases(inputs, &mut ())?;
        Ok(&self.events)
    }

    /// [`World::step`], also hashing the state right after every phase into `trace` (one
    /// [`StateHash`] per entry of [`STEP_PHASES`]). The step itself is the same: the state and
    /// events that come out are those of [`World::step`]. Never allocates once warm.
    ///
    /// Two peers that disagree after a tick but held the same state and inputs before it can
    /// compare their traces: the first phase whose hashes differ is where the divergence
    /// began ([`PhaseHashes::first_difference`]).
    ///
    /// # Errors
    /// As [`World::step`]; `trace` is then left as it was.
    pub fn step_traced(
        &mut self,
        inputs: &[InputCmd],
        trace: &mut PhaseHashes,
    ) -> Result<&[Event], Error> {
        let mut tracer = PhaseTracer::new(self.state.tick);
        self.run_phases(inputs, &mut tracer)?;
        *trace = tracer.finish();
        Ok(&self.events)
    }

    /// Test hook for the desync tools, never used in play: a step that nudges
    /// `players[1].pos.x` by the smallest step right after phase `after`, so two peers diverge
    /// in exactly that phase. Traced into `trace` when given.
    ///
    /// # Errors
    /// As [`World::step`].
    #[doc(hidden)]
    pub fn debug_step_perturbed(
        &mut self,
        inputs: &[InputCmd],
        after: Phase,
        trace: Option<&mut PhaseHashes>,
    ) -> Result<&[Event], Error> {
        let after = STEP_PHASES.iter().position(|&p| p == after).unwrap_or(0);
        match trace {
            Some(trace) => {
                let mut perturb = Perturb {
                    after,
                    inner: PhaseTracer::new(self.state.tick),
                };
                self.run_phases(inputs, &mut perturb)?;
                *trace = perturb.inner.finish();
            }
            None => self.run_phases(inputs, &mut Perturb { after, inner: () })?,
        }
        Ok(&self.events)
    }

    /// [`World::step`] from inputs in their wire form, each stamped with the tick simulated:
    /// the step the netcode layer runs (see [`game_api::Game::step_observed`]).
    ///
    /// # Errors
    /// As [`World::step`].
    pub(crate) fn step_wire<O: StepObserver<World>>(
        &mut self,
        inputs: &[WireInput],
        observer: &mut O,
    ) -> Result<&[Event], Error> {
        let tick = self.state.tick;
        if inputs.len() > MAX_PLAYERS {
            return Err(Error::WrongInputCount {
                tick,
                expected: self.state.players.len(),
                got: inputs.len(),
            });
        }
        let mut stamped = [InputCmd::idle(tick); MAX_PLAYERS];
        for (cmd, wire) in stamped.iter_mut().zip(inputs) {
            *cmd = wire.at(tick);
        }
        self.run_phases(&stamped[..inputs.len()], observer)?;
        Ok(&self.events)
    }

    /// The one phase loop: [`STEP_PHASES`] in order, `observer` called after each. Plain
    /// [`World::step`] passes `()`, whose call compiles to nothing.
    #[inline(always)]
    fn run_phases<O: StepObserver<World>>(
        &mut self,
        inputs: &[InputCmd],
        observer: &mut O,
    ) -> Result<(), Error> {
        // `STEP_PHASES` in order, one call per entry: a loop over the array compiled to an
        // indirect jump per phase, a tenth of a step without projectiles. The indices must
        // cover the list exactly (checked at compile time below).
        macro_rules! run_in_order {
            ($($index:literal)*) => {
                const _: () = {
                    let order = [$($index),*];
                    assert!(order.len() == STEP_PHASES.len());
                    let mut i = 0;
                    while i < order.len() {
                        assert!(order[i] == i);
                        i += 1;
                    }
                };
                $( self.run_phase(STEP_PHASES[$index], inputs)?;
                   observer.after_phase($index, self); )*
            };
        }
        run_in_order!(0 1 2 3 4 5 6 7 8 9);
        Ok(())
    }

    /// Runs one phase; inlined into [`World::run_phases`], where `phase` is a constant.
    #[inline(always)]
    fn run_phase(&mut self, phase: Phase, inputs: &[InputCmd]) -> Result<(), Error> {
        match phase {
            Phase::Validate => self.validate(inputs)?,
            Phase::Timers => self.phase_timers(),
            Phase::Movement => self.phase_movement(),
            Phase::AimAndFire => self.phase_aim_and_fire(),
            Phase::Pushbox => self.phase_pushbox(),
            Phase::Rail => self.phase_rail(),
            Phase::ProjectilesAndHits => self.phase_hits(),
            Phase::Removal => self.phase_removal(),
            Phase::RoundLogic => self.phase_round(),
            Phase::Events => self.phase_events(),
        }
        Ok(())
    }

    fn validate(&mut self, inputs: &[InputCmd]) -> Result<(), Error> {
        let tick = self.state.tick;
        // A restored or very long match can stand at the last tick: refuse it, do not overflow.
        if tick == Tick::MAX {
            return Err(Error::TickLimit { tick });
        }
        let expected = self.state.players.len();
        if inputs.len() != expected {
            return Err(Error::WrongInputCount {
                tick,
                expected,
                got: inputs.len(),
            });
        }
        if let Some((player, bad)) = inputs.iter().enumerate().find(|(_, i)| i.tick != tick) {
            return Err(Error::WrongInputTick {
                expected: tick,
                got: bad.tick,
                player,
            });
        }
        for (slot, input) in self.inputs.iter_mut().zip(inputs) {
            *slot = input.sanitized();
        }
        self.events.clear();
        self.rails_accepted = 0;
        self.frozen = 0;
        Ok(())
    }

    fn emit(&mut self, kind: EventKind) {
        self.events.push(Event {
            tick: self.state.tick,
            kind,
        });
    }

    /// The stick as a direction scaled to `0..=1`, or `None` inside the deadzone.
    fn stick(&self, input: InputCmd) -> Option<FxVec> {
        let (x, y) = (i32::from(input.move_x), i32::from(input.move_y));
        let magnitude = (x * x + y * y).cast_unsigned().isqrt() as i32;
        if magnitude <= i32::from(self.rules.stick_deadzone) || magnitude == 0 {
            return None;
        }
        // Beyond full deflection (a diagonal of two full axes) the direction is normalized.
        let scale = Fx::from_num(magnitude.max(i32::from(STICK_MAX)));
        Some(FxVec::new(Fx::from_num(x) / scale, Fx::from_num(y) / scale))
    }

    fn phase_timers(&mut self) {
        let fighting = self.state.round.is_fighting();
        for i in 0..self.state.players.len() {
            let input = self.inputs[i];
            let stick = self.stick(input);
            let rules = &self.rules;
            let p = &mut self.state.players[i];
            if p.hitstop > 0 {
                // Frozen: nothing of this player's advances this tick.
                p.hitstop -= 1;
                self.frozen |= 1 << i;
                continue;
            }
            if p.action_timer > 0 {
                p.action_timer -= 1;
                if p.action_timer == 0 {
                    match p.action {
                        Action::MeleeStartup => {
                            p.action = Action::MeleeActive;
                            p.action_timer = rules.melee_active;
                            p.melee_hits = 0;
                        }
                        Action::MeleeActive if rules.melee_recovery > 0 => {
                            p.action = Action::MeleeRecovery;
                            p.action_timer = rules.melee_recovery;
                        }
                        Action::MeleeActive | Action::MeleeRecovery | Action::Hitstun => {
                            p.action = Action::Idle;
                        }
                        Action::Idle | Action::Move | Action::Ko => {}
                    }
                }
            }
            p.shot_cooldown = p.shot_cooldown.saturating_sub(1);
            p.rail_cooldown = p.rail_cooldown.saturating_sub(1);
            if p.rail_recharge > 0 {
                p.rail_recharge -= 1;
                if p.rail_recharge == 0 && p.rail_charges < rules.rail_charges {
                    p.rail_charges += 1;
                    if p.rail_charges < rules.rail_charges {
                        p.rail_recharge = rules.rail_recharge_ticks;
                    }
                }
            }
            let mut reloaded = false;
            if p.reload_timer > 0 {
                p.reload_timer -= 1;
                if p.reload_timer == 0 {
                    p.ammo = rules.magazine;
                    reloaded = true;
                }
            }
            let control = fighting && p.action.is_free();
            let target = match stick {
                Some(dir) if control => dir.scale(rules.max_speed),
                _ => FxVec::ZERO,
            };
            p.vel += (target - p.vel).scale(rules.acceleration);
            if p.action.is_free() {
                p.action = if control && stick.is_some() {
                    Action::Move
                } else {
                    Action::Idle
                };
            }
            if reloaded {
                let player = p.id;
                self.emit(EventKind::Reloaded { player });
            }
        }
    }

    fn phase_movement(&mut self) {
        let r = self.rules.player_radius;
        for (i, p) in self.state.players.iter_mut().enumerate() {
            if self.frozen & (1 << i) != 0 {
                continue;
            }
            let (bx, by) = move_box(&self.state.maze, &mut p.pos, r, p.vel);
            if bx {
                p.vel.x = ZERO;
            }
            if by {
                p.vel.y = ZERO;
            }
        }
    }

    fn phase_aim_and_fire(&mut self) {
        let fighting = self.state.round.is_fighting();
        for i in 0..self.state.players.len() {
            if self.frozen & (1 << i) != 0 {
                // Presses made while frozen are not lost: the edge is seen when it ends.
                continue;
            }
            let input = self.inputs[i];
            let stick = self.stick(input);
            let p = self.state.players[i];
            let pressed = input.buttons & !p.prev_buttons;
            // A rematch ask is no edge anyone reads: kept out, it changes no state before the
            // match is decided (then the round state records it).
            self.state.players[i].prev_buttons = input.buttons & !buttons::REMATCH;
            if !fighting || !p.action.is_free() {
                continue;
            }
            if let Some(aim) = stick.and_then(FxVec::normalized) {
                self.state.players[i].aim = aim;
            }
            if pressed & buttons::RELOAD != 0 && p.ammo < self.rules.magazine && p.reload_timer == 0
            {
                self.state.players[i].reload_timer = self.rules.reload_ticks;
                self.emit(EventKind::ReloadStarted { player: p.id });
            }
            if pressed & buttons::MELEE != 0 {
                let p = &mut self.state.players[i];
                p.action = Action::MeleeStartup;
                p.action_timer = self.rules.melee_startup;
                p.melee_hits = 0;
                let player = p.id;
                self.emit(EventKind::MeleeStarted { player });
            } else if pressed & buttons::RAIL != 0 {
                self.try_rail(i);
            } else if input.held(buttons::SHOOT) {
                self.try_fire(i);
            }
        }
    }

    /// Accepts a rail shot if the rail is ready: the charge is spent now, hit or miss, and the
    /// shot is resolved in [`Phase::Rail`].
    fn try_rail(&mut self, i: usize) {
        let rules = &self.rules;
        let p = &mut self.state.players[i];
        if p.rail_cooldown > 0 || p.rail_charges == 0 {
            return;
        }
        p.rail_charges -= 1;
        p.rail_cooldown = rules.rail_cooldown;
        if p.rail_recharge == 0 {
            p.rail_recharge = rules.rail_recharge_ticks;
        }
        self.rails_accepted |= 1 << i;
    }

    /// Resolves this tick's accepted rail shots in shooter-id order. Every shot was accepted
    /// before any resolves, so a shooter hit by an earlier shot still fires.
    fn phase_rail(&mut self) {
        for i in 0..self.state.players.len() {
            if self.rails_accepted & (1 << i) == 0 {
                continue;
            }
            let input = self.inputs[i];
            let view = ViewTime {
                ticks_back: input.view_ticks,
                frac: input.view_frac,
            };
            let record = self.rail_trace(i, view);
            self.emit(EventKind::RailShot(record));
            if let (ShotOutcome::Hit { .. }, ShotTarget::Player { id, .. }) =
                (record.outcome, record.target)
            {
                let source = HitSource::Rail;
                let (shooter, generation) = (record.shooter, record.shooter_generation);
                self.apply_hit(shooter, generation, usize::from(id), source, record.dir);
            }
        }
    }

    /// The tick is done: advance the counter and record the poses of the new time.
    fn phase_events(&mut self) {
        self.state.tick += 1;
        let (radius, window) = (self.rules.pushbox_radius, self.rules.pose_history_ticks);
        let state = &mut self.state;
        state
            .pose_history
            .record(state.tick, &state.players, radius, window);
    }

    /// Fires if the weapon is ready. Ammo is spent only when the shot is accepted. Pulling the
    /// trigger on an empty magazine that is not reloading starts the reload.
    fn try_fire(&mut self, i: usize) {
        let rules = &self.rules;
        let p = self.state.players[i];
        if p.ammo == 0 && p.reload_timer == 0 {
            self.state.players[i].reload_timer = rules.reload_ticks;
            self.emit(EventKind::ReloadStarted { player: p.id });
            return;
        }
        let ready = p.shot_cooldown == 0 && p.ammo > 0 && p.reload_timer == 0;
        if !ready || self.state.projectiles.len() >= usize::from(rules.max_projectiles) {
            return;
        }
        // Ids are never reused: once the counter is spent (4 billion shots into a match) a
        // shot is refused like one beyond `max_projectiles`, and costs no ammo.
        let id = self.state.next_projectile_id;
        let Some(next_id) = id.checked_add(1) else {
            return;
        };
        // Spread: a sideways offset drawn from the world RNG, so the RNG is part of the closure.
        let jitter = self.state.rng.symmetric(256);
        let side = rules.shot_spread * Fx::from_num(jitter) / Fx::from_num(256);
        let dir = (p.aim + p.aim.perp().scale(side))
            .normalized()
            .unwrap_or(p.aim);
        self.state.next_projectile_id = next_id;
        self.state.projectiles.push(Projectile {
            id,
            owner: p.id,
            wall_clear: 0,
            owner_generation: p.generation,
            pos: p.pos,
            vel: dir.scale(rules.projectile_speed),
            life: rules.projectile_life,
        });
        self.clearance.spawned();
        let p = &mut self.state.players[i];
        p.ammo -= 1;
        p.shot_cooldown = rules.shot_cooldown;
        p.stats.shots = p.stats.shots.saturating_add(1);
        let empty = p.ammo == 0;
        if empty {
            p.reload_timer = rules.reload_ticks;
        }
        let player = p.id;
        self.emit(EventKind::ShotFired {
            player,
            projectile: id,
        });
        if empty {
            self.emit(EventKind::ReloadStarted { player });
        }
    }

    fn phase_pushbox(&mut self) {
        let n = self.state.players.len();
        let (radius, r) = (self.rules.pushbox_radius, self.rules.player_radius);
        for i in 0..n {
            for j in i + 1..n {
                let (a, b) = (self.state.players[i], self.state.players[j]);
                if !a.is_alive() || !b.is_alive() {
                    continue;
                }
                if let Some(push) = pushbox_separation(a.pos, b.pos, radius) {
                    // Each push goes through the wall-aware move: nobody is shoved into a wall.
                    let maze = &self.state.maze;
                    move_box(maze, &mut self.state.players[i].pos, r, -push);
                    move_box(maze, &mut self.state.players[j].pos, r, push);
                }
            }
        }
    }

    /// Drops the projectiles the projectile phase ended (keeping the others in spawn order).
    fn phase_removal(&mut self) {
        if self.projectiles_ended {
            self.clearance.retain_with(&mut self.state.projectiles);
        }
    }

    fn phase_hits(&mut self) {
        self.projectiles_ended = false;
        self.full_sweeps = 0;
        let fighting = self.state.round.is_fighting();
        if fighting {
            self.melee_hits();
        }
        let hurt_radius = self.rules.pushbox_radius + self.rules.projectile_radius;
        let walk_every_step = self.exact_walls;
        let mut victims = Victims::of(&self.state.players, fighting);
        let (targets, len) = victims.targets();
        self.clearance.begin_phase(&targets[..len]);
        let mut k = 0;
        while k < self.state.projectiles.len() {
            // Most projectiles, most steps, go no further than this loop: known clear of walls
            // (`wall_clear`; with `exact_walls` every step walks, for the tests), far from every
            // player they could hit and not at the end of their life. Such a step only moves
            // the projectile; the full sweep below would find no contact and do the same.
            if !walk_every_step {
                k += victims.move_while_clear(
                    &mut self.state.projectiles[k..],
                    self.clearance.from(k),
                    hurt_radius,
                );
                if k == self.state.projectiles.len() {
                    break;
                }
            }
            let proj = self.state.projectiles[k];
            k += 1;
            if proj.life == 0 {
                // Ended before this step (a restored state may hold one): removed below.
                self.projectiles_ended = true;
                continue;
            }
            self.full_sweeps += 1;
            // Earliest contact wins; at equal times a tile beats a player, and a lower slot
            // beats a higher one.
            let mut best = if proj.wall_clear == 0 || walk_every_step {
                segment_grid_toi(&self.state.maze, proj.pos, proj.vel)
                    .map(|(t, x, y)| (t, Impact::Tile(x, y)))
            } else {
                None
            };
            for victim in victims.hittable_by(&proj) {
                if let Some(t) = segment_circle_toi(proj.pos, proj.vel, victim.pos, hurt_radius) {
                    if best.as_ref().is_none_or(|(bt, _)| t < *bt) {
                        best = Some((t, Impact::Player(victim.slot)));
                    }
                }
            }
            let p = &mut self.state.projectiles[k - 1];
            match best {
                None => {
                    p.pos += p.vel;
                    p.life -= 1;
                    p.wall_clear = match proj.wall_clear {
                        0 => wall_clear_ticks(&self.state.maze, p.pos, p.vel, p.life),
                        n => n - 1,
                    };
                    if p.life == 0 {
                        self.projectiles_ended = true;
                        self.emit(EventKind::Expired {
                            projectile: proj.id,
                        });
                    }
                }
                Some((t, impact)) => {
                    p.pos = point_at(proj.pos, proj.vel, t);
                    p.life = 0;
                    self.projectiles_ended = true;
                    match impact {
                        Impact::Tile(x, y) => self.strike_tile(x, y, proj.id),
                        Impact::Player(slot) => {
                            let knock = proj.vel.normalized().unwrap_or(FxVec::ZERO);
                            let source = HitSource::Projectile(proj.id);
                            self.apply_hit(proj.owner, proj.owner_generation, slot, source, knock);
                            // A hit may KO or push its victim: later projectiles see that.
                            victims = Victims::of(&self.state.players, fighting);
                        }
                    }
                }
            }
        }
    }

    fn strike_tile(&mut self, x: i32, y: i32, projectile: u32) {
        // Only tiles inside the grid can be hit: the border is solid and traversal starts inside.
        let (ux, uy) = (x as u32, y as u32);
        let tile = self.state.maze.get(ux, uy);
        let (bx, by) = (x as u8, y as u8);
        match tile.block_hp() {
            None => self.emit(EventKind::WallHit { projectile }),
            Some(1) => {
                self.state.maze.set(ux, uy, Tile::FLOOR);
                self.maze_hash = self.state.maze_hash();
                self.emit(EventKind::BlockBroken {
                    x: bx,
                    y: by,
                    projectile,
                });
            }
            Some(hp) => {
                self.state.maze.set(ux, uy, Tile::block(hp - 1));
                self.maze_hash = self.state.maze_hash();
                self.emit(EventKind::BlockDamaged {
                    x: bx,
                    y: by,
                    hp_left: hp - 1,
                    projectile,
                });
            }
        }
    }

    fn melee_hits(&mut self) {
        let reach = self.rules.pushbox_radius + self.rules.melee_radius;
        for a in 0..self.state.players.len() {
            let attacker = self.state.players[a];
            if attacker.action != Action::MeleeActive {
                continue;
            }
            let centre = attacker.pos + attacker.aim.scale(self.rules.melee_reach);
            for v in 0..self.state.players.len() {
                let victim = self.state.players[v];
                let already = attacker.melee_hits & (1 << v) != 0;
                if v == a || already || !victim.is_alive() {
                    continue;
                }
                if segment_circle_toi(centre, FxVec::ZERO, victim.pos, reach).is_some() {
                    self.state.players[a].melee_hits |= 1 << v;
                    let stop = self.rules.melee_hitstop;
                    self.state.players[a].hitstop = stop;
                    self.state.players[v].hitstop = stop;
                    let (id, generation) = (attacker.id, attacker.generation);
                    self.apply_hit(id, generation, v, HitSource::Melee, attacker.aim);
                }
            }
        }
    }

    /// Damages the player in `slot`, crediting `attacker` (by stable id, alive or not).
    fn apply_hit(
        &mut self,
        attacker: PlayerId,
        attacker_generation: u32,
        slot: usize,
        source: HitSource,
        knock_dir: FxVec,
    ) {
        let rules = &self.rules;
        let (damage, hitstun, knockback) = match source {
            HitSource::Melee => (
                rules.melee_damage,
                rules.melee_hitstun,
                rules.melee_knockback,
            ),
            HitSource::Projectile(_) => (
                rules.projectile_damage,
                rules.projectile_hitstun,
                rules.projectile_knockback,
            ),
            HitSource::Rail => (rules.rail_damage, rules.rail_hitstun, rules.rail_knockback),
        };
        let victim = &mut self.state.players[slot];
        let dealt = damage.min(victim.hp);
        victim.hp -= dealt;
        victim.vel = knock_dir.scale(knockback);
        let knocked_out = victim.hp == 0;
        if knocked_out {
            victim.action = Action::Ko;
            victim.action_timer = 0;
        } else if hitstun > 0 {
            victim.action = Action::Hitstun;
            victim.action_timer = hitstun;
        }
        let victim_id = victim.id;
        let credited = &mut self.state.players[usize::from(attacker)].stats;
        // Totals for the result screen: saturate rather than panic in an endless match.
        credited.damage_dealt = credited.damage_dealt.saturating_add(u32::from(dealt));
        if knocked_out {
            credited.kos = credited.kos.saturating_add(1);
        }
        self.emit(EventKind::Hit {
            attacker,
            attacker_generation,
            victim: victim_id,
            damage: dealt,
            source,
        });
        if knocked_out {
            self.emit(EventKind::Ko {
                victim: victim_id,
                by: attacker,
            });
        }
    }

    fn phase_round(&mut self) {
        let round = self.state.round.round;
        match self.state.round.phase {
            RoundPhase::Countdown => {
                self.state.round.phase_timer = self.state.round.phase_timer.saturating_sub(1);
                if self.state.round.phase_timer == 0 {
                    self.state.round.phase = RoundPhase::Fighting;
                    self.emit(EventKind::FightStarted { round });
                }
            }
            RoundPhase::Fighting => {
                self.state.round.phase_timer += 1;
                let players = &self.state.players;
                let alive = players.iter().filter(|p| p.is_alive()).count();
                let timed_out = self.state.round.phase_timer >= self.rules.round_time_limit;
                if alive <= 1 || timed_out {
                    // Most hit points among those standing wins; a tie (or nobody) is a draw.
                    let top = players.iter().filter(|p| p.is_alive()).map(|p| p.hp).max();
                    let mut leaders = players.iter().filter(|p| p.is_alive() && Some(p.hp) == top);
                    let winner = match (leaders.next(), leaders.next()) {
                        (Some(p), None) => Some(p.id),
                        _ => None,
                    };
                    self.decide_round(winner);
                }
            }
            RoundPhase::RoundOver => {
                self.state.round.phase_timer = self.state.round.phase_timer.saturating_sub(1);
                if self.state.round.phase_timer == 0 {
                    // Saturates: after 254 draws the match stays in round 255 (restore
                    // accepts it, so rollback goes on).
                    self.start_round(round.saturating_add(1));
                }
            }
            RoundPhase::MatchOver => {
                let players = self.state.players.len();
                for (slot, input) in self.inputs[..players].iter().enumerate() {
                    if input.held(buttons::REMATCH) {
                        self.state.round.phase_timer |= 1 << slot;
                    }
                }
                if self.state.round.phase_timer == everyone(players) {
                    self.start_match();
                }
            }
        }
    }

    fn decide_round(&mut self, winner: Option<PlayerId>) {
        let round = &mut self.state.round;
        round.last_winner = winner;
        let number = round.round;
        let mut champion = None;
        if let Some(w) = winner {
            round.wins[usize::from(w)] += 1;
            if round.wins[usize::from(w)] >= self.rules.rounds_to_win {
                champion = Some(w);
            }
        }
        if champion.is_some() {
            round.phase = RoundPhase::MatchOver;
            round.phase_timer = 0;
        } else {
            round.phase = RoundPhase::RoundOver;
            round.phase_timer = u32::from(self.rules.round_end_ticks);
        }
        self.emit(EventKind::RoundWon {
            round: number,
            winner,
        });
        if let Some(winner) = champion {
            self.emit(EventKind::MatchWon { winner });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fx::fx_bits;
    use crate::Rules;

    /// The projectiles as the projectile phase left them (what the phase trace hashes).
    struct AfterProjectiles(Vec<Projectile>);

    impl StepObserver<World> for AfterProjectiles {
        fn after_phase(&mut self, index: usize, world: &mut World) {
            if STEP_PHASES[index] == Phase::ProjectilesAndHits {
                self.0.clone_from(&world.state.projectiles);
            }
        }
    }

    /// Contract: a projectile that strikes is left where it struck, spent, until the removal
    /// phase takes it (so a phase trace shows the impact, not the path beyond it).
    #[test]
    fn a_projectile_that_strikes_a_wall_stops_at_the_point_of_impact() {
        let mut world = World::new(Rules::default(), 1, 2).expect("world");
        let mut snap = world.snapshot();
        let y = snap.players[0].pos.y;
        // Half a tick from the outer wall (tile column 0 ends at x = 1).
        snap.projectiles.push(Projectile {
            id: snap.next_projectile_id,
            owner_generation: snap.players[0].generation,
            pos: FxVec::new(Fx::from_num(1.25), y),
            vel: FxVec::new(-fx_bits(1 << 15), ZERO),
            life: 10,
            owner: 0,
            wall_clear: 0,
        });
        snap.next_projectile_id += 1;
        snap.round.phase = RoundPhase::Fighting;
        world.restore(&snap).expect("restore");
        let mut seen = AfterProjectiles(Vec::new());
        let tick = world.tick();
        world
            .run_phases(&[InputCmd::idle(tick), InputCmd::idle(tick)], &mut seen)
            .expect("step");
        assert_eq!(seen.0.len(), 1);
        assert_eq!(seen.0[0].pos, FxVec::new(Fx::from_num(1), y));
        assert_eq!(seen.0[0].life, 0);
        assert!(world.state().projectiles.is_empty(), "removed after");
    }

    /// Contract: a projectile ends in the step that ends it, whichever way, and is gone from
    /// the state that step leaves: one whose life runs out in the air (the step only moved it
    /// until then), and one a restored state holds already spent (life 0). The others stay,
    /// in spawn order.
    #[test]
    fn a_spent_projectile_is_gone_after_the_step_that_ends_it() {
        let mut world = World::new(Rules::default(), 1, 2).expect("world");
        let mut snap = world.snapshot();
        snap.round.phase = RoundPhase::Fighting;
        let y = snap.players[0].pos.y;
        let slow = FxVec::new(fx_bits(1 << 8), ZERO);
        let mut shot = |life: u16, x: f64| {
            let p = Projectile {
                id: snap.next_projectile_id,
                owner_generation: snap.players[0].generation,
                pos: FxVec::new(Fx::from_num(x), y),
                vel: slow,
                life,
                owner: 0,
                wall_clear: 0,
            };
            snap.next_projectile_id += 1;
            p
        };
        // Beside player 0 (its owner), which it never hits: the step only moves it.
        let x = snap.players[0].pos.x.to_num::<f64>();
        let (lasting, expiring, spent) = (shot(9, x), shot(3, x), shot(0, x));
        snap.projectiles = vec![lasting, expiring, spent];
        world.restore(&snap).expect("restore");
        let ids = |w: &World| {
            w.state()
                .projectiles
                .iter()
                .map(|p| p.id)
                .collect::<Vec<_>>()
        };
        let tick = world.tick();
        world.step(&[InputCmd::idle(tick); 2]).expect("step");
        assert_eq!(
            ids(&world),
            [lasting.id, expiring.id],
            "the spent one is gone"
        );
        for _ in 0..2 {
            let tick = world.tick();
            world.step(&[InputCmd::idle(tick); 2]).expect("step");
        }
        assert!(world.events().iter().any(|e| e.kind
            == EventKind::Expired {
                projectile: expiring.id
            }));
        assert_eq!(ids(&world), [lasting.id], "the expired one is gone");
    }

    /// Contract: a projectile's step is only a move exactly where no sweep could find
    /// anything: clear of walls by its count, alive past this step, and outside the box that
    /// every player it can hit must enter to be touched — on both axes, so one level with a
    /// player but far along the other only moves. Near a player, at the end of its life, or
    /// with no wall count it is swept in full. (That the two ways agree is
    /// `a_match_plays_the_same_with_the_wall_counts_ignored`; this proves the shortcut is
    /// taken.)
    #[test]
    fn only_a_projectile_near_a_player_a_wall_or_its_end_is_swept_in_full() {
        let mut world = World::new(Rules::default(), 1, 2).expect("world");
        let mut snap = world.snapshot();
        snap.round.phase = RoundPhase::Fighting;
        let target = snap.players[1].pos;
        // Offsets point towards the middle of the arena, so every position is inside it.
        let inward = |at: Fx, size: u32| {
            if at > Fx::from_num(size / 2) {
                -1.0
            } else {
                1.0
            }
        };
        let (sx, sy) = (
            inward(target.x, snap.maze.width),
            inward(target.y, snap.maze.height),
        );
        let tiles =
            |x: f64, y: f64| target + FxVec::new(Fx::from_num(x * sx), Fx::from_num(y * sy));
        let slow = FxVec::new(fx_bits(1 << 8), ZERO);
        let shot = |id: u32, pos: FxVec, vel: FxVec, life: u16, wall_clear: u8| Projectile {
            id,
            owner_generation: snap.players[0].generation,
            pos,
            vel,
            life,
            owner: 0,
            wall_clear,
        };
        snap.projectiles = vec![
            shot(0, tiles(3.0, 3.0), slow, 100, 10),
            shot(1, tiles(3.0, 0.0), slow, 100, 10),
            shot(2, tiles(0.0, 3.0), slow, 100, 10),
            shot(3, tiles(3.0, 3.0), slow, 100, 0),
            shot(4, tiles(3.0, 3.0), slow, 1, 10),
            // Half a tile right of the player and moving away: inside the box, never
            // touching (the full sweep finds no contact).
            shot(
                5,
                tiles(0.5, 0.0),
                FxVec::new(Fx::from_num(0.125 * sx), ZERO),
                100,
                10,
            ),
        ];
        snap.next_projectile_id = 6;
        world.restore(&snap).expect("restore");
        let tick = world.tick();
        let events = world
            .step(&[InputCmd::idle(tick); 2])
            .expect("step")
            .to_vec();
        assert!(
            events
                .iter()
                .all(|e| !matches!(e.kind, EventKind::Hit { .. })),
            "{events:?}"
        );
        assert_eq!(world.full_sweeps, 3, "the last three only");
    }
}
