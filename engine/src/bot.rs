//! A deterministic bot that produces inputs, for headless matches, tests and benchmarks.
//!
//! The bot is not part of the simulation: it reads the world like a player reads the screen and
//! answers with an [`InputCmd`]. Its answer is a pure function of its seed, the tick and the
//! world state — it keeps no memory between ticks — so a seeded bot match is reproducible
//! anywhere, and a match resumed from a log mid-way continues exactly as the original did.

use crate::fx::{tile_of, Fx, FxVec, HALF};
use crate::geom::segment_grid_toi;
use crate::input::{buttons, InputCmd};
use crate::player::{Player, PlayerId};
use crate::rng::DetRng;
use crate::world::World;

/// How well a bot plays. Every level is deterministic and seeded like the bot itself.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Difficulty {
    /// Sees the opponent 20 ticks (333 ms) late, aims up to 0.8 tile off, attacks a quarter
    /// as often, never melee, rail or early reload, and keeps its distance instead of rushing
    /// in: a player who only shoots beats it (measured in `tests/determinism/bots.rs`).
    Beginner,
    /// Sees the opponent 12 ticks (200 ms) late, aims up to 0.7 tile off, attacks a third as
    /// often, never uses the rail or reloads early: a first-time player can beat it.
    Easy,
    /// Sees the opponent 6 ticks (100 ms) late, aims up to 0.35 tile off, attacks two thirds
    /// as often.
    Normal,
    /// Sees the present, aims true, attacks at every chance (the bot tests and benches use).
    #[default]
    Hard,
}

impl Difficulty {
    /// Every level, easiest first.
    pub const ALL: [Difficulty; 4] = [
        Difficulty::Beginner,
        Difficulty::Easy,
        Difficulty::Normal,
        Difficulty::Hard,
    ];

    /// The next level up (`None` from the hardest).
    #[must_use]
    pub fn harder(self) -> Option<Difficulty> {
        let at = Difficulty::ALL.iter().position(|&d| d == self)?;
        Difficulty::ALL.get(at + 1).copied()
    }

    /// The next level down (`None` from the easiest).
    #[must_use]
    pub fn easier(self) -> Option<Difficulty> {
        let at = Difficulty::ALL.iter().position(|&d| d == self)?;
        at.checked_sub(1).map(|below| Difficulty::ALL[below])
    }
}

/// What a bot can do: the knobs its levels set, public so tools and tests can model other
/// players (a player who only shoots, with a human's reaction time).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Skill {
    /// How late it sees the opponent, in ticks (read from the pose history: 0 to its window).
    pub reaction_ticks: u8,
    /// How far off it aims, at most, in 1/256 tile.
    pub aim_error: u16,
    /// Attacks it carries out, per 256 chances.
    pub attacks_kept: u16,
    /// Whether it swings in melee when close.
    pub melee: bool,
    /// Whether it fires the rail and reloads before its magazine is empty.
    pub full_kit: bool,
    /// Whether it keeps its distance (backs off when close, never walks up to a visible
    /// opponent) instead of rushing in.
    pub keeps_distance: bool,
}

impl Difficulty {
    /// The knobs of this level.
    #[must_use]
    pub fn skill(self) -> Skill {
        let (reaction_ticks, aim_error, attacks_kept, melee, full_kit, keeps_distance) = match self
        {
            Difficulty::Beginner => (20, 205, 64, false, false, true),
            Difficulty::Easy => (12, 180, 85, true, false, false),
            Difficulty::Normal => (6, 90, 170, true, true, false),
            Difficulty::Hard => (0, 0, 256, true, true, false),
        };
        Skill {
            reaction_ticks,
            aim_error,
            attacks_kept,
            melee,
            full_kit,
            keeps_distance,
        }
    }
}

impl std::str::FromStr for Difficulty {
    type Err = String;
    fn from_str(s: &str) -> Result<Difficulty, String> {
        match s {
            "beginner" => Ok(Difficulty::Beginner),
            "easy" => Ok(Difficulty::Easy),
            "normal" => Ok(Difficulty::Normal),
            "hard" => Ok(Difficulty::Hard),
            other => Err(format!(
                "difficulty `{other}`: expected beginner, easy, normal or hard"
            )),
        }
    }
}

/// A seeded bot controlling one player slot.
#[derive(Debug, Clone)]
pub struct Bot {
    me: PlayerId,
    seed: u64,
    skill: Skill,
    /// Scratch: distance field over tiles, and the BFS queue (rebuilt every call).
    dist: Vec<u16>,
    queue: Vec<u32>,
}

/// Ticks in one strafe window: the bot decides once per window whether to strafe.
const STRAFE_WINDOW: u32 = 16;
/// How near a bot that keeps its distance lets a visible opponent come, in tiles.
const KEEP_AWAY_TILES: i32 = 4;
/// The buttons of an attack, which a bot's skill thins out.
const ATTACKS: u8 = buttons::SHOOT | buttons::MELEE | buttons::RAIL;

impl Bot {
    /// A bot for slot `me`, seeded.
    #[must_use]
    pub fn new(me: PlayerId, seed: u64) -> Bot {
        Bot {
            me,
            seed,
            skill: Difficulty::Hard.skill(),
            dist: Vec::new(),
            queue: Vec::new(),
        }
    }

    /// The same bot at another level.
    #[must_use]
    pub fn with_difficulty(self, difficulty: Difficulty) -> Bot {
        self.with_skill(difficulty.skill())
    }

    /// The same bot with these knobs (a level's, or a model of some player).
    #[must_use]
    pub fn with_skill(mut self, skill: Skill) -> Bot {
        self.skill = skill;
        self
    }

    /// The slot this bot plays.
    #[must_use]
    pub fn player(&self) -> PlayerId {
        self.me
    }

    /// The bot's input for the world's current tick.
    pub fn think(&mut self, world: &World) -> InputCmd {
        let tick = world.tick();
        // Fresh randomness per tick, and per strafe window, from the seed alone. The order of
        // draws from each generator is part of the bot's pinned decisions.
        let mut rng = DetRng::from_seed(self.seed ^ u64::from(tick).wrapping_mul(0x9E37_79B9));
        let mut window = DetRng::from_seed(self.seed ^ u64::from(tick / STRAFE_WINDOW) << 32);
        let mut skill_rng = DetRng::from_seed(self.seed ^ u64::from(tick / 8) << 40 ^ 0x5EE);
        let strafing = window.below(10) == 0;
        let state = world.state();
        let me = state.players[usize::from(self.me)];
        let mut cmd = InputCmd::idle(tick);
        let Some(target) = self.target_as_seen(world, &mut skill_rng) else {
            return cmd;
        };
        if !state.round.is_fighting() || !me.is_alive() {
            return cmd;
        }
        if strafing {
            let dirs = [(127, 0), (-127, 0), (0, 127), (0, -127)];
            (cmd.move_x, cmd.move_y) = dirs[window.below(4) as usize];
        }
        let to_target = target - me.pos;
        let manhattan = to_target.x.abs() + to_target.y.abs();
        let visible = manhattan < Fx::from_num(12)
            && segment_grid_toi(&state.maze, me.pos, to_target).is_none();
        if visible {
            if self.skill.keeps_distance {
                // Out of reach of a swing, and never closer: back off when near, else hold.
                if manhattan < Fx::from_num(KEEP_AWAY_TILES) {
                    (cmd.move_x, cmd.move_y) = stick_towards(-to_target);
                } else if !strafing {
                    (cmd.move_x, cmd.move_y) = (0, 0);
                }
            } else if !strafing {
                (cmd.move_x, cmd.move_y) = stick_towards(to_target);
            }
            self.attack(
                (world, &me),
                manhattan,
                (&mut rng, &mut skill_rng),
                &mut cmd,
            );
        } else if !strafing {
            if let Some(step) = self.next_tile_towards(world, me.pos, target) {
                (cmd.move_x, cmd.move_y) = stick_towards(step - me.pos);
            }
            if self.skill.full_kit && me.ammo < world.rules().magazine && rng.below(90) == 0 {
                cmd.buttons |= buttons::RELOAD;
            }
        }
        cmd
    }

    /// Where the bot sees its nearest living opponent: `reaction_ticks` late (read from the pose
    /// history in the state, so the bot stays a pure function of seed, tick and world), and off
    /// by up to `aim_error`. `None` when no opponent is alive.
    fn target_as_seen(&self, world: &World, skill_rng: &mut DetRng) -> Option<FxVec> {
        let state = world.state();
        let me = state.players[usize::from(self.me)];
        let target = state
            .players
            .iter()
            .filter(|p| p.id != self.me && p.is_alive())
            .min_by_key(|p| (p.pos - me.pos).x.abs() + (p.pos - me.pos).y.abs())?;
        // A reaction of 0 ticks reads the pose recorded now: where the target stands.
        let view = crate::pose_history::ViewTime {
            ticks_back: self.skill.reaction_ticks,
            frac: 0,
        };
        let window = world.rules().pose_history_ticks;
        let slot = usize::from(target.id);
        let mut seen = state
            .pose_history
            .pose_at(slot, world.tick(), view, window)
            .pose
            .pos;
        let aim_error = u32::from(self.skill.aim_error);
        if aim_error > 0 {
            let off = |r: &mut DetRng| Fx::from_num(r.symmetric(aim_error)) / Fx::from_num(256);
            let jitter = FxVec::new(off(skill_rng), off(skill_rng));
            seen += jitter;
        }
        Some(seen)
    }

    /// Presses the attack for an opponent in sight `manhattan` tiles away: a swing when close,
    /// the rail now and then, else mostly shots — then limited to the bot's kit and thinned to
    /// the attacks its skill keeps.
    fn attack(
        &self,
        (world, me): (&World, &Player),
        manhattan: Fx,
        (rng, skill_rng): (&mut DetRng, &mut DetRng),
        cmd: &mut InputCmd,
    ) {
        let rules = world.rules();
        let mut pressed = cmd.buttons;
        let close = manhattan < rules.melee_reach + rules.melee_radius + rules.pushbox_radius;
        let rail_ready = me.rail_charges > 0 && me.rail_cooldown == 0;
        if close && rng.below(3) == 0 {
            // A bot that does not swing shoots instead.
            pressed |= if self.skill.melee {
                buttons::MELEE
            } else {
                buttons::SHOOT
            };
        } else if rail_ready && rng.below(8) == 0 {
            pressed |= buttons::RAIL;
            // Any view, as a remote peer may send: now, within the pose window, beyond
            // it, or "from the future" — the simulation must take every one.
            cmd.view_ticks = rng.below(20) as u8;
            cmd.view_frac = rng.below(256) as u8;
        } else if rng.below(4) != 0 {
            pressed |= buttons::SHOOT;
        }
        if !self.skill.full_kit {
            pressed &= !buttons::RAIL;
        }
        // The last draw from `skill_rng` this tick: at 256 (every attack kept) it changes
        // nothing.
        if skill_rng.below(256) >= u32::from(self.skill.attacks_kept) {
            pressed &= !ATTACKS;
        }
        cmd.buttons = pressed;
    }

    /// Centre of the next floor tile on a shortest path from `from` to `to`.
    fn next_tile_towards(&mut self, world: &World, from: FxVec, to: FxVec) -> Option<FxVec> {
        let maze = &world.state().maze;
        let (w, h) = (maze.width as i32, maze.height as i32);
        self.dist.clear();
        self.dist.resize((w * h) as usize, u16::MAX);
        self.queue.clear();
        let (gx, gy) = (tile_of(to.x), tile_of(to.y));
        let (mx, my) = (tile_of(from.x), tile_of(from.y));
        let inside = |x: i32, y: i32| x >= 0 && y >= 0 && x < w && y < h;
        if !inside(gx, gy) || !inside(mx, my) {
            return None; // only a damaged state puts anyone on the border line
        }
        let index = |x: i32, y: i32| (y * w + x) as usize;
        self.dist[index(gx, gy)] = 0;
        self.queue.push(index(gx, gy) as u32);
        let mut head = 0;
        while head < self.queue.len() {
            let i = self.queue[head] as i32;
            head += 1;
            let (x, y) = (i % w, i / w);
            for (nx, ny) in [(x, y - 1), (x + 1, y), (x, y + 1), (x - 1, y)] {
                if maze.get_i(nx, ny).is_solid() || self.dist[index(nx, ny)] != u16::MAX {
                    continue;
                }
                self.dist[index(nx, ny)] = self.dist[i as usize] + 1;
                self.queue.push(index(nx, ny) as u32);
            }
        }
        let here = self.dist[index(mx, my)];
        if here == u16::MAX || here == 0 {
            return None;
        }
        [(mx, my - 1), (mx + 1, my), (mx, my + 1), (mx - 1, my)]
            .into_iter()
            .find(|&(x, y)| !maze.get_i(x, y).is_solid() && self.dist[index(x, y)] < here)
            .map(|(x, y)| FxVec::new(Fx::from_num(x) + HALF, Fx::from_num(y) + HALF))
    }
}

/// A full-deflection stick pointing along `v` (the larger axis at ±127); `(0, 0)` for the
/// zero vector. Bots and tools aim with it.
#[must_use]
pub fn stick_towards(v: FxVec) -> (i8, i8) {
    let big = v.x.abs().max(v.y.abs());
    if big == Fx::ZERO {
        return (0, 0);
    }
    let axis = |c: Fx| {
        (c * Fx::from_num(127) / big)
            .to_num::<i32>()
            .clamp(-127, 127) as i8
    };
    (axis(v.x), axis(v.y))
}

#[cfg(test)]
mod tests {
    use super::Difficulty as D;
    use super::*;
    use crate::rules::Rules;
    use std::collections::VecDeque;

    /// What two bots of `level` chose over `ticks` ticks of a match from `seed`: the xxh3 of
    /// every input in order, and how many inputs held each button.
    fn play(level: D, seed: u64, ticks: u32) -> (u64, [u32; 8]) {
        play_skill(level.skill(), seed, ticks)
    }

    /// [`play`] with bots of `skill`.
    fn play_skill(skill: Skill, seed: u64, ticks: u32) -> (u64, [u32; 8]) {
        let mut world = World::new(Rules::default(), seed, 2).expect("world");
        let mut bots = [
            Bot::new(0, seed ^ 1).with_skill(skill),
            Bot::new(1, seed ^ 2).with_skill(skill),
        ];
        let mut hasher = xxhash_rust::xxh3::Xxh3::new();
        let mut held = [0u32; 8];
        for _ in 0..ticks {
            let inputs = [bots[0].think(&world), bots[1].think(&world)];
            for cmd in &inputs {
                let w = cmd.to_wire();
                hasher.update(&bincode::serialize(&w).expect("encodes"));
                for (bit, count) in held.iter_mut().enumerate() {
                    *count += u32::from(cmd.buttons >> bit & 1);
                }
            }
            world.step(&inputs).expect("step");
        }
        (hasher.digest(), held)
    }

    /// The bots' decisions are pinned: bot matches, the training dummy, the sync tests and the
    /// golden logs replay them, so any change to how a bot decides (aim, strafing windows,
    /// reaction, the attack, reload and path choices) shows here first. Re-record only with a
    /// reason, as for the golden match.
    #[test]
    fn every_level_decides_exactly_as_recorded() {
        let got: Vec<(D, u64)> = D::ALL.iter().map(|&d| (d, play(d, 31, 1500).0)).collect();
        let want = [
            (D::Beginner, 0x19c6_b3ee_4a83_628d),
            (D::Easy, 0x2989_7561_d537_9bda),
            (D::Normal, 0x5031_6b92_5ce7_0ddf),
            (D::Hard, 0x1e2c_1c13_f2b4_6e5a),
        ];
        assert_eq!(got, want, "{got:x?}");
    }

    /// Four bots of every level, seeded with high bits set, in one match: which of several
    /// targets a bot picks and every seed's bits count, so they are pinned too.
    #[test]
    fn four_bots_of_every_level_decide_exactly_as_recorded() {
        let mut world = World::new(Rules::default(), 0xA5A5_0000_0000_0007, 4).expect("world");
        let mut bots: Vec<Bot> = D::ALL
            .iter()
            .enumerate()
            .map(|(i, &d)| {
                Bot::new(i as PlayerId, 0xDEAD_BEEF_0000_0000 | i as u64).with_difficulty(d)
            })
            .collect();
        let mut hasher = xxhash_rust::xxh3::Xxh3::new();
        for _ in 0..2000 {
            let inputs: Vec<InputCmd> = bots.iter_mut().map(|b| b.think(&world)).collect();
            for cmd in &inputs {
                hasher.update(&bincode::serialize(&cmd.to_wire()).expect("encodes"));
            }
            world.step(&inputs).expect("step");
        }
        assert_eq!(
            hasher.digest(),
            0x3907_cc5c_cd9c_2e15,
            "{:x}",
            hasher.digest()
        );
    }

    /// Levels use the kit the menu says: a beginner never swings, only a full kit fires the
    /// rail, and the others swing and fire it.
    #[test]
    fn levels_use_their_kit() {
        let bit = |b: u8| b.trailing_zeros() as usize;
        let held: Vec<[u32; 8]> = D::ALL.iter().map(|&d| play(d, 5, 2400).1).collect();
        let [beginner, easy, normal, hard] = [&held[0], &held[1], &held[2], &held[3]];
        assert_eq!(beginner[bit(buttons::MELEE)], 0, "a beginner never swings");
        for low in [beginner, easy] {
            assert_eq!(low[bit(buttons::RAIL)], 0, "{low:?}");
            assert!(low[bit(buttons::SHOOT)] > 0, "{low:?}");
        }
        for full in [easy, normal, hard] {
            assert!(full[bit(buttons::MELEE)] > 0, "{full:?}");
        }
        for full in [normal, hard] {
            assert!(full[bit(buttons::RAIL)] > 0, "{full:?}");
        }
    }

    /// A bot keeping a quarter of its attacks attacks on about a quarter as many ticks as the
    /// same bot keeping them all.
    #[test]
    fn a_bot_keeps_the_share_of_its_attacks_its_skill_says() {
        let all = D::Hard.skill();
        let quarter = Skill {
            attacks_kept: 64,
            ..all
        };
        let attacks = |h: [u32; 8]| h[0] + h[1] + h[3];
        let (full, kept) = (
            attacks(play_skill(all, 5, 2400).1),
            attacks(play_skill(quarter, 5, 2400).1),
        );
        assert!(kept > 0 && kept * 2 < full, "{kept} of {full}");
    }

    #[test]
    fn a_bot_plays_the_slot_it_was_given() {
        assert_eq!(Bot::new(3, 9).player(), 3);
        assert_eq!(Bot::new(1, 9).with_difficulty(D::Easy).player(), 1);
    }

    /// Tile distances to `to` by breadth-first search (`u32::MAX` where unreachable).
    fn distances(maze: &crate::maze::Maze, to: (i32, i32)) -> Vec<u32> {
        let (w, h) = (maze.width as i32, maze.height as i32);
        let mut dist = vec![u32::MAX; (w * h) as usize];
        let mut queue = VecDeque::from([to]);
        dist[(to.1 * w + to.0) as usize] = 0;
        while let Some((x, y)) = queue.pop_front() {
            let d = dist[(y * w + x) as usize];
            for (nx, ny) in [(x + 1, y), (x - 1, y), (x, y + 1), (x, y - 1)] {
                let i = (ny * w + nx) as usize;
                if !maze.get_i(nx, ny).is_solid() && dist[i] == u32::MAX {
                    dist[i] = d + 1;
                    queue.push_back((nx, ny));
                }
            }
        }
        dist
    }

    /// Following the bot's next tile from any floor tile reaches the target's tile in exactly
    /// as many steps as the shortest path has, each step to a neighbouring tile's centre; on
    /// the target's tile there is no next tile.
    #[test]
    fn the_next_tile_is_a_step_along_a_shortest_path_from_anywhere() {
        let world = World::new(Rules::default(), 12, 2).expect("world");
        let maze = &world.state().maze;
        let (w, h) = (maze.width as i32, maze.height as i32);
        let floor: Vec<(i32, i32)> = (0..h)
            .flat_map(|y| (0..w).map(move |x| (x, y)))
            .filter(|&(x, y)| !maze.get_i(x, y).is_solid())
            .collect();
        let centre =
            |(x, y): (i32, i32)| FxVec::new(Fx::from_num(x) + HALF, Fx::from_num(y) + HALF);
        let mut bot = Bot::new(0, 1);
        for &goal in floor.iter().step_by(7) {
            let dist = distances(maze, goal);
            for &start in floor.iter().step_by(5) {
                let shortest = dist[(start.1 * w + start.0) as usize];
                if shortest == u32::MAX {
                    continue;
                }
                let (mut at, mut steps) = (start, 0);
                while at != goal {
                    let next = bot
                        .next_tile_towards(&world, centre(at), centre(goal))
                        .expect("a next tile while not there");
                    let (nx, ny) = (tile_of(next.x), tile_of(next.y));
                    assert_eq!(next, centre((nx, ny)), "a tile centre");
                    assert_eq!(nx.abs_diff(at.0) + ny.abs_diff(at.1), 1, "a neighbour");
                    at = (nx, ny);
                    steps += 1;
                    assert!(steps <= shortest, "{start:?} to {goal:?}");
                }
                assert_eq!(steps, shortest, "{start:?} to {goal:?}");
                assert_eq!(
                    bot.next_tile_towards(&world, centre(at), centre(goal)),
                    None
                );
            }
        }
    }

    /// A world fighting in an open walled room 18 × 5 tiles, player 0 at `me` and 1 at
    /// `them` (the pose history filled with where they stand).
    fn room(me: FxVec, them: FxVec) -> World {
        let (w, h) = (18u32, 5u32);
        let wall = |x: u32, y: u32| x == 0 || y == 0 || x == w - 1 || y == h - 1;
        grid(w, h, wall, me, them)
    }

    /// A world fighting on a `w` × `h` grid whose solid tiles are those `solid` names, player
    /// 0 at `me` and 1 at `them`.
    fn grid(w: u32, h: u32, solid: impl Fn(u32, u32) -> bool, me: FxVec, them: FxVec) -> World {
        use crate::maze::{Maze, Tile};
        use crate::pose_history::HitboxHistory as _;
        let rules = Rules::default();
        let mut world = World::new(rules.clone(), 5, 2).expect("world");
        let mut snap = world.snapshot();
        snap.maze = Maze {
            width: w,
            height: h,
            tiles: (0..h)
                .flat_map(|y| (0..w).map(move |x| (x, y)))
                .map(|(x, y)| if solid(x, y) { Tile::WALL } else { Tile::FLOOR })
                .collect(),
        };
        snap.players[0].pos = me;
        snap.players[1].pos = them;
        snap.round.phase = crate::round::RoundPhase::Fighting;
        snap.round.phase_timer = 0;
        let (radius, window) = (rules.pushbox_radius, rules.pose_history_ticks);
        snap.pose_history.reset(&snap.players, radius, window);
        world.restore(&snap).expect("a valid room");
        world
    }

    /// What 64 bots of `skill` (seeds 0 to 63) press as player 0 in `world`'s tick.
    fn choices(world: &World, skill: Skill) -> Vec<InputCmd> {
        (0..64)
            .map(|seed| Bot::new(0, seed).with_skill(skill).think(world))
            .collect()
    }

    /// A bot that sees exactly: no reaction delay, no aim error, every attack kept.
    const EXACT: Skill = Skill {
        reaction_ticks: 0,
        aim_error: 0,
        attacks_kept: 256,
        melee: true,
        full_kit: false,
        keeps_distance: false,
    };

    /// The thresholds a bot decides by are strict: an opponent 12 tiles away is out of sight
    /// (no attack) and one a step of `Fx` nearer is attacked; at exactly the swing's reach
    /// a bot never swings, a step nearer it does; a bot that keeps its distance backs off
    /// from an opponent nearer than 4 tiles, and not from one at exactly 4.
    #[test]
    fn distances_decide_at_their_exact_bounds() {
        let me = FxVec::new(Fx::from_num(2) + HALF, Fx::from_num(2) + HALF);
        let at = |dx: Fx, dy: Fx| room(me, FxVec::new(me.x + dx, me.y + dy));
        let pressing = |cmds: &[InputCmd], bits: u8| cmds.iter().any(|c| c.buttons & bits != 0);
        let attack = buttons::SHOOT | buttons::MELEE;

        let twelve = Fx::from_num(12);
        assert!(!pressing(&choices(&at(twelve, Fx::ZERO), EXACT), attack));
        assert!(pressing(
            &choices(&at(twelve - Fx::DELTA, Fx::ZERO), EXACT),
            attack
        ));

        let rules = Rules::default();
        let swing = rules.melee_reach + rules.melee_radius + rules.pushbox_radius;
        assert!(!pressing(
            &choices(&at(swing, Fx::ZERO), EXACT),
            buttons::MELEE
        ));
        let near = choices(&at(swing - Fx::DELTA, Fx::ZERO), EXACT);
        assert!(pressing(&near, buttons::MELEE));

        let wary = Skill {
            keeps_distance: true,
            ..EXACT
        };
        let (three, one) = (Fx::from_num(3), Fx::from_num(1));
        let away = stick_towards(FxVec::new(-three, -one));
        assert!(
            away.0 != 0 && away.1 != 0,
            "{away:?} is no strafing direction"
        );
        let backs_off = |w: &World| {
            choices(w, wary)
                .iter()
                .filter(|c| (c.move_x, c.move_y) == away)
                .count()
        };
        assert_eq!(backs_off(&at(three, one)), 0, "at exactly 4 tiles it holds");
        assert!(
            backs_off(&at(three - Fx::DELTA, one)) > 32,
            "nearer, it backs off"
        );
    }

    /// A path runs only between floor tiles inside the grid: on a grid with no border wall
    /// every edge tile is reached and reaches, while from or to a tile one past any edge, or
    /// from inside a solid tile, there is no next tile (and no index outside the grid is read).
    #[test]
    fn a_path_joins_only_floor_tiles_inside_the_grid() {
        let c = |x: i32, y: i32| FxVec::new(Fx::from_num(x) + HALF, Fx::from_num(y) + HALF);
        let world = grid(6, 5, |x, y| (x, y) == (3, 1), c(1, 2), c(4, 2));
        let mut bot = Bot::new(0, 1);
        let centre = c(2, 2);
        for (x, y) in [
            (0, 0),
            (5, 0),
            (0, 4),
            (5, 4),
            (0, 1),
            (5, 2),
            (2, 0),
            (2, 4),
        ] {
            let edge = c(x, y);
            assert!(
                bot.next_tile_towards(&world, edge, centre).is_some(),
                "from {x},{y}"
            );
            assert!(
                bot.next_tile_towards(&world, centre, edge).is_some(),
                "to {x},{y}"
            );
        }
        for (x, y) in [
            (-1, 0),
            (-1, 2),
            (6, 0),
            (6, 1),
            (6, 4),
            (2, -1),
            (0, 5),
            (5, 5),
        ] {
            let outside = c(x, y);
            assert_eq!(
                bot.next_tile_towards(&world, outside, centre),
                None,
                "from {x},{y}"
            );
            assert_eq!(
                bot.next_tile_towards(&world, centre, outside),
                None,
                "to {x},{y}"
            );
        }
        assert_eq!(
            bot.next_tile_towards(&world, c(3, 1), centre),
            None,
            "from a wall"
        );
    }

    /// Every level parses from its name (the command line's words) and anything else is
    /// refused naming the choices.
    #[test]
    fn levels_parse_by_name_and_other_words_are_refused() {
        let names = ["beginner", "easy", "normal", "hard"];
        for (name, &level) in names.iter().zip(&D::ALL) {
            assert_eq!(name.parse::<D>(), Ok(level));
        }
        for other in ["", "Hard", "hard ", "expert"] {
            let refusal = other.parse::<D>().expect_err("not a level");
            assert!(refusal.contains(&format!("`{other}`")), "{refusal}");
            assert!(
                refusal.contains("beginner, easy, normal or hard"),
                "{refusal}"
            );
        }
    }

    #[test]
    fn levels_step_up_and_down_and_stop_at_the_ends() {
        assert_eq!(D::Beginner.easier(), None);
        assert_eq!(D::Hard.harder(), None);
        for pair in D::ALL.windows(2) {
            assert_eq!(pair[0].harder(), Some(pair[1]));
            assert_eq!(pair[1].easier(), Some(pair[0]));
        }
    }
}
