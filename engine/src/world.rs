//! `World`: the live simulation, its construction, save and restore.

use crate::clearance::Clearance;
use crate::error::Error;
use crate::event::{Event, EventKind};
use crate::fx::{Fx, FxVec, HALF, ONE, ZERO};
use crate::hash::StateHash;
use crate::input::InputCmd;
use crate::maze::{Maze, MazeScratch};
use crate::player::{Action, Player, PlayerStats, MAX_PLAYERS};
use crate::pose_history::{HitboxHistory, PoseHistory};
use crate::rng::DetRng;
use crate::round::{everyone, RoundPhase, RoundState};
use crate::rules::Rules;
use crate::saved::SavedWorld;
use crate::snapshot::WorldSnapshot;
use crate::Tick;

/// The deterministic simulation of one match.
///
/// All state that can influence a future tick lives in one [`WorldSnapshot`]; beside it the
/// world keeps only the rules, things rebuilt from the state (the maze hash cache), a cache
/// that every restore empties and that never changes an outcome (the projectiles' clearance
/// from the players) and things cleared every step (scratch buffers, the event list). See [`World::step`] for the phases.
#[derive(Debug, Clone)]
pub struct World {
    pub(crate) rules: Rules,
    pub(crate) rules_hash: u64,
    pub(crate) state: WorldSnapshot,
    /// Cache: hash of `state.maze`. Rebuilt on restore, refreshed whenever a tile changes.
    pub(crate) maze_hash: u64,
    /// Cache: how long each projectile stays far from the players (see `clearance.rs`).
    /// Emptied on restore; it never changes an outcome, only spares player tests.
    pub(crate) clearance: Clearance,
    /// Scratch: the events of the last step.
    pub(crate) events: Vec<Event>,
    /// Scratch: the sanitized inputs of the step in progress.
    pub(crate) inputs: [InputCmd; MAX_PLAYERS],
    /// Scratch: buffers for maze generation.
    pub(crate) maze_scratch: MazeScratch,
    /// Scratch: a saved image from outside, decoded to be checked before it is loaded (see
    /// [`World::restore_image_checked`]); its buffers are kept for the next one.
    pub(crate) decoded: WorldSnapshot,
    /// Scratch: bit per slot whose rail shot was accepted in the step in progress.
    pub(crate) rails_accepted: u8,
    /// Scratch: bit per slot frozen by hit-stop in the step in progress.
    pub(crate) frozen: u8,
    /// Scratch: whether a projectile ended (or was found ended) in the projectile phase of the
    /// step in progress; the removal phase has nothing to remove otherwise. Only that phase
    /// ends projectiles.
    pub(crate) projectiles_ended: bool,
    /// Scratch: how many projectiles the projectile phase of the last step swept in full (the
    /// others only moved), for the tests that prove the shortcut is taken where it can be.
    pub(crate) full_sweeps: u32,
    /// A check, not state: sweep every projectile in full on every step — the grid walk, as
    /// if no projectile's `wall_clear` count were known, and the test against every player,
    /// as if none were known to be far (see [`World::debug_walk_every_step`]).
    pub(crate) exact_walls: bool,
}

impl World {
    /// A new match: round 1's maze generated from `match_seed`, players in their corners,
    /// countdown running.
    ///
    /// # Errors
    /// [`Error::RuleOutOfRange`] if the rules do not validate, [`Error::PlayerCount`] for fewer
    /// than 2 or more than [`MAX_PLAYERS`] players.
    pub fn new(rules: Rules, match_seed: u64, players: usize) -> Result<World, Error> {
        rules.validate()?;
        if !(2..=MAX_PLAYERS).contains(&players) {
            return Err(Error::PlayerCount {
                got: players,
                min: 2,
                max: MAX_PLAYERS,
            });
        }
        let rules_hash = rules.hash();
        let blank = Player {
            id: 0,
            generation: 0,
            pos: FxVec::ZERO,
            vel: FxVec::ZERO,
            aim: FxVec::ZERO,
            hp: 0,
            action: Action::Idle,
            action_timer: 0,
            shot_cooldown: 0,
            ammo: 0,
            reload_timer: 0,
            prev_buttons: 0,
            melee_hits: 0,
            rail_charges: 0,
            rail_cooldown: 0,
            rail_recharge: 0,
            hitstop: 0,
            stats: PlayerStats::default(),
        };
        let state = WorldSnapshot {
            tick: 0,
            rules_hash,
            match_seed,
            rng: DetRng::from_seed(match_seed),
            next_projectile_id: 0,
            round: RoundState::default(),
            players: (0..players as u8)
                .map(|id| Player { id, ..blank })
                .collect(),
            projectiles: Vec::with_capacity(64),
            maze: Maze::empty(),
            pose_history: PoseHistory::default(),
        };
        let mut world = World {
            rules,
            rules_hash,
            state,
            maze_hash: 0,
            clearance: Clearance::default(),
            events: Vec::with_capacity(64),
            inputs: [InputCmd::default(); MAX_PLAYERS],
            maze_scratch: MazeScratch::default(),
            decoded: WorldSnapshot::placeholder(),
            rails_accepted: 0,
            frozen: 0,
            projectiles_ended: false,
            full_sweeps: 0,
            exact_walls: false,
        };
        world.start_round(1);
        world.events.clear(); // the first RoundReset is not a step's event
        let (radius, window) = (world.rules.pushbox_radius, world.rules.pose_history_ticks);
        world
            .state
            .pose_history
            .reset(&world.state.players, radius, window);
        Ok(world)
    }

    /// For tests: with `on`, every projectile takes the full sweep every step: it walks the
    /// grid even where its `wall_clear` count says the step is clear, and is tested against
    /// every player even where the box test or the clearance cache says all are far (the
    /// step that only moves a projectile is never taken). The counts are kept exactly as
    /// usual, so a world stepped
    /// this way must stay bit-identical to one that takes the shortcuts; if a count ever
    /// claimed a step clear that is not, or a projectile that only moved should have hit a
    /// player or ended, the two diverge. Not part of the state (a snapshot does not carry it).
    #[doc(hidden)]
    pub fn debug_walk_every_step(&mut self, on: bool) {
        self.exact_walls = on;
    }

    /// A fresh world restored from `snapshot`: the way to resume, replay or roll back.
    ///
    /// # Errors
    /// As [`World::restore`], plus rules validation errors.
    pub fn from_snapshot(rules: Rules, snapshot: &WorldSnapshot) -> Result<World, Error> {
        let mut world = World::new(rules, snapshot.match_seed, snapshot.players.len())?;
        world.restore(snapshot)?;
        // After `restore` checked the maze and the ranges the walk relies on.
        snapshot.check_wall_counts()?;
        Ok(world)
    }

    /// Replaces this world's state with `snapshot` and rebuilds every cache from it. Reuses
    /// this world's buffers: no allocation once their capacity suffices. Meant for snapshots
    /// a world saved (a rollback): it checks every invariant but the projectiles' wall counts,
    /// which a snapshot from outside gets from [`WorldSnapshot::from_bytes`] or
    /// [`World::from_snapshot`] (or [`WorldSnapshot::check_wall_counts`] directly).
    ///
    /// # Errors
    /// [`Error::RulesMismatch`] if the snapshot was taken under other rules;
    /// [`Error::SnapshotCorrupt`] if it breaks an invariant (the world is left unchanged).
    pub fn restore(&mut self, snapshot: &WorldSnapshot) -> Result<(), Error> {
        self.check_rules_hash(snapshot.rules_hash)?;
        snapshot.check()?;
        self.check_against_rules(snapshot)?;
        self.load(snapshot);
        Ok(())
    }

    /// [`World::restore`] of a state a world under these rules saved ([`World::save_into`],
    /// [`World::snapshot`]) and nothing changed since: the rollback's load of its own
    /// history. Unchecked: the world was in that very state and stepped on from it, so
    /// loading it again is safe even if a desync (or the desync test hook's nudge) left it
    /// outside what [`World::restore`] accepts from outside. A snapshot from anywhere else
    /// goes through [`World::restore`].
    ///
    /// # Errors
    /// [`Error::RulesMismatch`] if the snapshot was taken under other rules (the world is
    /// then unchanged).
    pub fn restore_saved(&mut self, snapshot: &WorldSnapshot) -> Result<(), Error> {
        self.check_rules_hash(snapshot.rules_hash)?;
        self.load(snapshot);
        Ok(())
    }

    /// [`World::restore_saved`] of a saved image ([`World::save_image`]): the duel's
    /// rollback load. Copies the image back into this world's buffers, against which it was
    /// placed.
    ///
    /// # Errors
    /// [`Error::RulesMismatch`] if the state was saved under other rules (the world is then
    /// unchanged).
    pub fn restore_image(&mut self, saved: &SavedWorld) -> Result<(), Error> {
        let head = saved.head();
        self.check_rules_hash(head.rules_hash)?;
        // As in `load`: the maze is nearly always the live one, and its hash stays; any
        // other maze's hash the image kept from its save.
        let same_maze = saved.same_maze(&head, &self.state.maze);
        saved.copy_with(&head, &mut self.state);
        self.after_load((!same_maze).then(|| saved.maze_hash()));
        Ok(())
    }

    /// [`World::restore`] of a saved image from outside (a file, a peer, a tool): decoded
    /// into a snapshot this world keeps for the purpose, checked as any state from outside,
    /// then loaded. No allocation once that snapshot has grown to the match's size.
    ///
    /// # Errors
    /// As [`World::restore`] (the world is then unchanged).
    pub fn restore_image_checked(&mut self, saved: &SavedWorld) -> Result<(), Error> {
        let mut decoded = std::mem::replace(&mut self.decoded, WorldSnapshot::placeholder());
        // Room for as many projectiles as the live state has room for, so a state from
        // outside that a live one would fit in does not allocate either.
        decoded.projectiles.clear();
        decoded
            .projectiles
            .reserve_exact(self.state.projectiles.capacity());
        saved.copy_into(&mut decoded);
        let restored = self.restore(&decoded);
        self.decoded = decoded;
        restored
    }

    /// Saves the state as one image placed against it ([`SavedWorld`]), reusing `out`'s
    /// buffer: the duel's rollback save. No allocation once warm.
    pub fn save_image(&self, out: &mut SavedWorld) {
        out.save_with_maze_hash(&self.state, self.maze_hash);
    }

    /// The state as a new image ([`World::save_image`]).
    #[must_use]
    pub fn image(&self) -> SavedWorld {
        SavedWorld::of(&self.state)
    }

    /// A snapshot taken under other rules is refused by every restore.
    fn check_rules_hash(&self, found: u64) -> Result<(), Error> {
        if found != self.rules_hash {
            return Err(Error::RulesMismatch {
                found,
                expected: self.rules_hash,
            });
        }
        Ok(())
    }

    /// Puts `snapshot` in place of the state: checked by `restore`, or a state this world
    /// was in (`restore_saved`).
    fn load(&mut self, snapshot: &WorldSnapshot) {
        // A rollback restores a state whose maze is nearly always the live one: comparing the
        // tiles (a `memcmp`) then spares rehashing them. The cached hash is always the live
        // maze's, so an equal maze keeps it.
        let same_maze = self.state.maze.same_tiles(&snapshot.maze);
        self.state.clone_from(snapshot);
        self.after_load((!same_maze).then(|| self.state.maze_hash()));
    }

    /// What every load does once the state is in place: the caches emptied or rebuilt, no
    /// events. `new_maze_hash` is the loaded maze's hash when the maze changed (`None`: the
    /// cached one is still the maze's).
    fn after_load(&mut self, new_maze_hash: Option<u64>) {
        self.clearance.reset(&self.state.projectiles);
        if let Some(hash) = new_maze_hash {
            self.maze_hash = hash;
        }
        self.events.clear();
    }

    /// The invariants that depend on the rules: a crafted or damaged snapshot must be refused
    /// here, not make a later step overflow.
    fn check_against_rules(&self, snapshot: &WorldSnapshot) -> Result<(), Error> {
        let corrupt = |reason: String| Err(Error::SnapshotCorrupt { reason });
        // A win that reaches `rounds_to_win` ends the match, so only a finished match holds one
        // (one more win in another phase would leave the range this check accepts).
        let most_wins = match snapshot.round.phase {
            RoundPhase::MatchOver => self.rules.rounds_to_win,
            _ => self.rules.rounds_to_win - 1,
        };
        if snapshot.round.wins.iter().any(|&w| w > most_wins) {
            return corrupt(format!(
                "round wins {:?} exceed {most_wins} in phase {:?}",
                snapshot.round.wins, snapshot.round.phase
            ));
        }
        // Any round number is accepted: the count saturates at `u8::MAX` (a match of endless
        // draws stays in its last round), and every value steps.
        if snapshot.round.phase == RoundPhase::MatchOver {
            let asked = snapshot.round.phase_timer;
            if asked & !everyone(snapshot.players.len()) != 0 {
                return corrupt(format!(
                    "rematch asked by players {asked:#b}, of {} players",
                    snapshot.players.len()
                ));
            }
        } else if snapshot.round.phase_timer > self.rules.round_time_limit.max(600) {
            return corrupt("round timer out of range".into());
        }
        if snapshot.projectiles.len() > usize::from(self.rules.max_projectiles) {
            return corrupt(format!(
                "{} projectiles, the rules allow {}",
                snapshot.projectiles.len(),
                self.rules.max_projectiles
            ));
        }
        if let Some(p) = snapshot
            .players
            .iter()
            .find(|p| p.hitstop > self.rules.melee_hitstop)
        {
            return corrupt(format!(
                "players[{}] is frozen for {} ticks, the rules' hit-stop is {}",
                p.id, p.hitstop, self.rules.melee_hitstop
            ));
        }
        if let Some(p) = snapshot
            .players
            .iter()
            .find(|p| p.rail_charges > self.rules.rail_charges)
        {
            return corrupt(format!(
                "players[{}] holds {} rail charges, the rules allow {}",
                p.id, p.rail_charges, self.rules.rail_charges
            ));
        }
        // Stepping never puts a player's box in a wall (rounds start in open cells, blocks only
        // ever break), and motion relies on it: it scans only the tiles a move newly covers.
        let r = self.rules.player_radius;
        if let Some(p) =
            (snapshot.players.iter()).find(|p| snapshot.maze.box_overlaps_solid(p.pos, r))
        {
            return corrupt(format!(
                "players[{}] at ({}, {}) is inside a wall",
                p.id, p.pos.x, p.pos.y
            ));
        }
        let (w, h) = (
            Fx::from_num(snapshot.maze.width),
            Fx::from_num(snapshot.maze.height),
        );
        snapshot
            .pose_history
            .check(snapshot.players.len(), self.rules.pose_history_ticks, w, h)
            .or_else(corrupt)?;
        Ok(())
    }

    /// Copies the state into `out`, reusing its buffers (no allocation once warmed up).
    pub fn save_into(&self, out: &mut WorldSnapshot) {
        out.clone_from(&self.state);
    }

    /// A copy of the state.
    #[must_use]
    pub fn snapshot(&self) -> WorldSnapshot {
        self.state.clone()
    }

    /// The live state, read-only (for presentation and bots).
    #[must_use]
    pub fn state(&self) -> &WorldSnapshot {
        &self.state
    }

    /// The hash of the current state; the maze section comes from the cache. Never allocates.
    #[must_use]
    pub fn state_hash(&self) -> StateHash {
        self.state.hash_with_maze(self.maze_hash)
    }

    /// The rules this world plays by.
    #[must_use]
    pub fn rules(&self) -> &Rules {
        &self.rules
    }

    /// Ticks simulated so far, which is also the tick the next inputs must be stamped with.
    #[must_use]
    pub fn tick(&self) -> Tick {
        self.state.tick
    }

    /// Number of players.
    #[must_use]
    pub fn player_count(&self) -> usize {
        self.state.players.len()
    }

    /// The events of the last step (empty after construction or restore).
    #[must_use]
    pub fn events(&self) -> &[Event] {
        &self.events
    }

    /// Begins a new match once everyone asked for one: the score and the players' totals start
    /// from nothing, then round 1 as any round (its maze seed drawn from the same RNG, which
    /// goes on, as do the tick, ids and pose history).
    pub(crate) fn start_match(&mut self) {
        let r = &mut self.state.round;
        r.wins = [0; MAX_PLAYERS];
        r.last_winner = None;
        for p in &mut self.state.players {
            p.stats = PlayerStats::default();
        }
        self.start_round(1);
    }

    /// Begins round `round`: draws its seed from the world RNG, generates the maze into the
    /// existing grid, respawns everyone with a new life generation, clears projectiles.
    pub(crate) fn start_round(&mut self, round: u8) {
        let seed = self.state.rng.next_u64();
        self.state
            .maze
            .generate_into(&self.rules, seed, &mut self.maze_scratch);
        self.maze_hash = self.state.maze_hash();
        self.state.projectiles.clear();
        self.clearance.reset(&self.state.projectiles);
        let (cw, ch) = (
            u32::from(self.rules.maze_cells_w),
            u32::from(self.rules.maze_cells_h),
        );
        let corners = [(0, 0), (cw - 1, ch - 1), (cw - 1, 0), (0, ch - 1)];
        let rules = &self.rules;
        for p in &mut self.state.players {
            let (cx, cy) = corners[usize::from(p.id)];
            let (tx, ty) = Maze::cell_tile(cx, cy);
            p.generation = p.generation.wrapping_add(1); // only ever compared for equality
            p.pos = FxVec::new(Fx::from_num(tx) + HALF, Fx::from_num(ty) + HALF);
            p.vel = FxVec::ZERO;
            // Face the far side of the arena.
            p.aim = FxVec::new(if cx == 0 { ONE } else { -ONE }, ZERO);
            p.hp = rules.max_hp;
            p.action = Action::Idle;
            p.action_timer = 0;
            p.shot_cooldown = 0;
            p.ammo = rules.magazine;
            p.reload_timer = 0;
            p.melee_hits = 0;
            p.rail_charges = rules.rail_charges;
            p.rail_cooldown = 0;
            p.rail_recharge = 0;
            p.hitstop = 0;
        }
        let r = &mut self.state.round;
        r.round = round;
        r.round_seed = seed;
        r.phase = if rules.round_start_ticks == 0 {
            RoundPhase::Fighting
        } else {
            RoundPhase::Countdown
        };
        r.phase_timer = u32::from(rules.round_start_ticks);
        let tick = self.state.tick;
        self.events.push(Event {
            tick,
            kind: EventKind::RoundReset { round },
        });
        if r.phase == RoundPhase::Fighting {
            self.events.push(Event {
                tick,
                kind: EventKind::FightStarted { round },
            });
        }
    }
}
