//! `WorldSnapshot`: the complete closure of everything that can change a future tick.
//!
//! The live `World` keeps its state *in* a `WorldSnapshot`, so there is no second copy of a
//! field that could be forgotten: whatever is not in this struct cannot survive from one tick to
//! the next, except the caches `World::restore` rebuilds. Adding a field here is the only way
//! to add simulation state, and every field gets a restore/replay test (tests/closure.rs).

use crate::error::Error;
use crate::fx::{fx_int, Fx, FxVec, ONE, ZERO};
use crate::maze::Maze;
use crate::player::{Player, MAX_PLAYERS};
use crate::pose_history::{PoseHistory, MAX_POSE_WINDOW};
use crate::projectile::Projectile;
use crate::rng::DetRng;
use crate::round::RoundState;
use crate::Tick;
use bincode::Options;
use serde::{Deserialize, Serialize};

/// Version of the snapshot's byte format; bumped whenever a field or its encoding changes.
/// 3 (issue 23): projectiles and pose samples carry their reserved bytes (28 and 20 bytes,
/// their memory layout), and those two sections are hashed as their bytes alone.
/// 4 (issue 23): a projectile's last byte, reserved in 3, is its `wall_clear` count.
pub const SNAPSHOT_FORMAT_VERSION: u32 = 4;

/// Largest snapshot [`WorldSnapshot::from_bytes`] accepts (a corrupt length prefix must not
/// make it allocate gigabytes).
pub const MAX_SNAPSHOT_BYTES: u64 = 16 << 20;

/// Everything that can change the future of a world.
#[derive(Debug, Serialize, Deserialize)]
pub struct WorldSnapshot {
    /// Ticks simulated so far; the next `step` consumes inputs stamped with this tick.
    pub tick: Tick,
    /// Hash of the rules the world plays by; a snapshot only restores under the same rules.
    pub rules_hash: u64,
    /// The match seed the world was created from (kept for logs and tooling).
    pub match_seed: u64,
    /// The world's random generator (shot spread, round seeds).
    pub rng: DetRng,
    /// Next projectile id to hand out.
    pub next_projectile_id: u32,
    /// Round, phase and score.
    pub round: RoundState,
    /// Players, in slot order (`players[i].id == i`).
    pub players: Vec<Player>,
    /// Projectiles, in spawn order.
    pub projectiles: Vec<Projectile>,
    /// The arena, with its current block damage.
    pub maze: Maze,
    /// Every player's hitbox pose over the last `pose_history_ticks` ticks, for rail shots
    /// judged at their shooter's view time: a rolled-back world must judge them the same way.
    pub pose_history: PoseHistory,
}

impl WorldSnapshot {
    /// An empty state with no buffers, to copy a state into.
    pub(crate) fn placeholder() -> WorldSnapshot {
        WorldSnapshot {
            tick: 0,
            rules_hash: 0,
            match_seed: 0,
            rng: DetRng { state: 0 },
            next_projectile_id: 0,
            round: RoundState::default(),
            players: Vec::new(),
            projectiles: Vec::new(),
            maze: Maze::empty(),
            pose_history: PoseHistory {
                samples: Vec::new(),
            },
        }
    }
}

impl Clone for WorldSnapshot {
    /// A copy whose buffers have the source's capacity, so that saving into it later (as
    /// rollback does every frame) does not allocate while the world stays within that size.
    fn clone(&self) -> WorldSnapshot {
        let mut copy = WorldSnapshot {
            tick: 0,
            rules_hash: 0,
            match_seed: 0,
            rng: self.rng,
            next_projectile_id: 0,
            round: RoundState::default(),
            players: Vec::with_capacity(self.players.capacity()),
            projectiles: Vec::with_capacity(self.projectiles.capacity()),
            maze: Maze::empty(),
            pose_history: PoseHistory {
                samples: Vec::with_capacity(self.pose_history.samples.capacity()),
            },
        };
        copy.clone_from(self);
        copy
    }

    /// Field by field, so the `Vec`s keep their buffers: saving into a used snapshot (every
    /// rollback frame does) does not allocate. Exhaustive, so a new field cannot be skipped.
    fn clone_from(&mut self, source: &WorldSnapshot) {
        let WorldSnapshot {
            tick,
            rules_hash,
            match_seed,
            rng,
            next_projectile_id,
            round,
            players,
            projectiles,
            maze,
            pose_history,
        } = source;
        self.tick = *tick;
        self.rules_hash = *rules_hash;
        self.match_seed = *match_seed;
        self.rng = *rng;
        self.next_projectile_id = *next_projectile_id;
        self.round = *round;
        self.players.clone_from(players);
        self.projectiles.clone_from(projectiles);
        self.maze.clone_from(maze);
        self.pose_history.samples.clone_from(&pose_history.samples);
    }
}

impl PartialEq for WorldSnapshot {
    /// Field by field, each record section (players, projectiles, tiles, pose samples) as
    /// its bytes: one `memcmp` each, where a derived comparison walks every field of every
    /// record. A sync test compares every re-simulated save with the first save of its tick,
    /// so this runs seven times a frame. Every byte of a record is a field (`Pod`, no
    /// padding), so equal bytes are equal records. Exhaustive, so a new field cannot be
    /// skipped.
    fn eq(&self, other: &WorldSnapshot) -> bool {
        let WorldSnapshot {
            tick,
            rules_hash,
            match_seed,
            rng,
            next_projectile_id,
            round,
            players,
            projectiles,
            maze,
            pose_history,
        } = self;
        let bytes_eq = |a: &[u8], b: &[u8]| a == b;
        *tick == other.tick
            && *rules_hash == other.rules_hash
            && *match_seed == other.match_seed
            && *rng == other.rng
            && *next_projectile_id == other.next_projectile_id
            && *round == other.round
            && bytes_eq(
                bytemuck::cast_slice(players),
                bytemuck::cast_slice(&other.players),
            )
            && bytes_eq(
                bytemuck::cast_slice(projectiles),
                bytemuck::cast_slice(&other.projectiles),
            )
            && maze.width == other.maze.width
            && maze.height == other.maze.height
            && bytes_eq(
                bytemuck::cast_slice(&maze.tiles),
                bytemuck::cast_slice(&other.maze.tiles),
            )
            && bytes_eq(
                bytemuck::cast_slice(&pose_history.samples),
                bytemuck::cast_slice(&other.pose_history.samples),
            )
    }
}

impl Eq for WorldSnapshot {}

/// The bincode options of every canonical encoding in the engine: fixed-width little-endian
/// integers, no trailing bytes, a size limit.
pub(crate) fn canonical() -> impl Options {
    bincode::DefaultOptions::new()
        .with_fixint_encoding()
        .with_little_endian()
        .reject_trailing_bytes()
        .with_limit(MAX_SNAPSHOT_BYTES)
}

impl WorldSnapshot {
    /// Encodes as `format version ‖ bincode(snapshot)`, little-endian, fixed-width integers.
    #[must_use]
    pub fn to_bytes(&self) -> Vec<u8> {
        canonical()
            .serialize(&(SNAPSHOT_FORMAT_VERSION, self))
            .expect("a snapshot always encodes")
    }

    /// Encoded size in bytes, without encoding.
    #[must_use]
    pub fn encoded_len(&self) -> u64 {
        canonical()
            .serialized_size(&(SNAPSHOT_FORMAT_VERSION, self))
            .expect("a snapshot always encodes")
    }

    /// Decodes bytes written by [`WorldSnapshot::to_bytes`] and checks the result is a state a
    /// world can be in.
    ///
    /// # Errors
    /// [`Error::SnapshotVersion`] for another format version; [`Error::SnapshotCorrupt`] for
    /// bytes that do not decode or a state that breaks an invariant.
    pub fn from_bytes(bytes: &[u8]) -> Result<WorldSnapshot, Error> {
        let version_bytes: [u8; 4] =
            bytes
                .get(..4)
                .and_then(|b| b.try_into().ok())
                .ok_or_else(|| Error::SnapshotCorrupt {
                    reason: "shorter than its version".into(),
                })?;
        let found = u32::from_le_bytes(version_bytes);
        if found != SNAPSHOT_FORMAT_VERSION {
            return Err(Error::SnapshotVersion {
                found,
                expected: SNAPSHOT_FORMAT_VERSION,
            });
        }
        let (_, snapshot): (u32, WorldSnapshot) =
            canonical()
                .deserialize(bytes)
                .map_err(|e| Error::SnapshotCorrupt {
                    reason: e.to_string(),
                })?;
        snapshot.check()?;
        snapshot.check_wall_counts()?;
        Ok(snapshot)
    }

    /// Checks what [`WorldSnapshot::check`] leaves out because it costs a grid walk per
    /// projectile: that no projectile's `wall_clear` count claims a step clear of walls that
    /// is not (such a projectile would fly through a wall). A world only ever saves true
    /// counts, so restoring its own saves (a rollback) skips this; every snapshot from outside
    /// gets it: [`WorldSnapshot::from_bytes`] and [`World::from_snapshot`] call it.
    ///
    /// [`World::from_snapshot`]: crate::World::from_snapshot
    ///
    /// # Errors
    /// [`Error::SnapshotCorrupt`] naming the projectile and its count.
    pub fn check_wall_counts(&self) -> Result<(), Error> {
        for p in &self.projectiles {
            let most = crate::geom::wall_clear_ticks(&self.maze, p.pos, p.vel, u16::MAX);
            if p.wall_clear > most {
                return Err(Error::SnapshotCorrupt {
                    reason: format!(
                        "projectile {} claims {} steps clear of walls, at most {most} are",
                        p.id, p.wall_clear
                    ),
                });
            }
        }
        Ok(())
    }

    /// Checks the invariants any reachable state holds: 2–4 players in slot order, projectile
    /// owners that exist, a well-formed maze.
    ///
    /// # Errors
    /// [`Error::SnapshotCorrupt`] naming the broken invariant.
    pub fn check(&self) -> Result<(), Error> {
        let corrupt = |reason: String| Err(Error::SnapshotCorrupt { reason });
        if !(2..=MAX_PLAYERS).contains(&self.players.len()) {
            return corrupt(format!("{} players", self.players.len()));
        }
        self.maze.check().or_else(corrupt)?;
        let most_samples = self.players.len() * PoseHistory::depth(MAX_POSE_WINDOW);
        if self.pose_history.samples.len() > most_samples {
            return corrupt(format!(
                "pose history holds {} samples, at most {most_samples} fit",
                self.pose_history.samples.len()
            ));
        }
        // Every byte of a record is defined: the hash reads them all (see `hash.rs`).
        if let Some(i) = (self.pose_history.samples.iter()).position(|s| s.reserved != [0; 3]) {
            return corrupt(format!("pose history sample {i} has a reserved byte set"));
        }
        // Positions inside the grid and bounded speeds keep every later product in Fx range.
        let (w, h) = (
            Fx::from_num(self.maze.width),
            Fx::from_num(self.maze.height),
        );
        let inside = |v: FxVec| v.x >= ZERO && v.y >= ZERO && v.x <= w && v.y <= h;
        // (No `abs`: the most negative value has none, and this is where damaged values arrive.)
        let within = |c: Fx, limit: Fx| c >= -limit && c <= limit;
        let bounded = |v: FxVec, limit: Fx| within(v.x, limit) && within(v.y, limit);
        for (i, p) in self.players.iter().enumerate() {
            if usize::from(p.id) != i {
                return corrupt(format!("players[{i}] has id {}", p.id));
            }
            if !inside(p.pos) || !bounded(p.vel, ONE) || !bounded(p.aim, ONE) {
                return corrupt(format!(
                    "players[{i}] position, velocity or aim out of range"
                ));
            }
        }
        for p in &self.projectiles {
            if !inside(p.pos) || !bounded(p.vel, fx_int(4)) {
                return corrupt(format!(
                    "projectile {} position or velocity out of range",
                    p.id
                ));
            }
            if usize::from(p.owner) >= self.players.len() {
                return corrupt(format!(
                    "projectile {} owned by missing player {}",
                    p.id, p.owner
                ));
            }
            if p.id >= self.next_projectile_id {
                return corrupt(format!("projectile id {} not yet allocated", p.id));
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fx::fx_bits;
    use crate::{Bot, Rules, World};

    /// A state from a real match: projectiles in flight, pose history filled.
    fn played() -> WorldSnapshot {
        let mut world = World::new(Rules::default(), 5, 2).expect("world");
        let mut bots = [Bot::new(0, 3), Bot::new(1, 4)];
        for _ in 0..2000 {
            let inputs = [bots[0].think(&world), bots[1].think(&world)];
            world.step(&inputs).expect("step");
            if world.state().projectiles.len() >= 2 && world.tick() > 400 {
                break;
            }
        }
        let s = world.snapshot();
        assert!(s.projectiles.len() >= 2, "projectiles in flight");
        s
    }

    /// The hand-written comparison says "equal" exactly when the canonical bytes are equal:
    /// for a copy, and for a change of each field (every section's records included), one at
    /// a time. A comparison that skipped a field would call the changed state equal.
    #[test]
    fn snapshots_are_equal_exactly_when_their_bytes_are() {
        let base = played();
        assert_eq!(base, base.clone());
        assert_eq!(base.to_bytes(), base.clone().to_bytes());
        let nudge = |v: Fx| fx_bits(v.to_bits() ^ 1);
        type Change = (&'static str, fn(&mut WorldSnapshot));
        let changes: [Change; 17] = [
            ("tick", |s| s.tick += 1),
            ("rules hash", |s| s.rules_hash ^= 1),
            ("match seed", |s| s.match_seed ^= 1),
            ("rng", |s| s.rng.state ^= 1),
            ("next projectile id", |s| s.next_projectile_id += 1),
            ("round timer", |s| s.round.phase_timer += 1),
            ("round seed", |s| s.round.round_seed ^= 1),
            ("last player's hit points", |s| {
                let p = s.players.last_mut().expect("players");
                p.hp = p.hp.wrapping_add(1);
            }),
            ("a player more", |s| s.players.push(s.players[0])),
            ("last projectile's life", |s| {
                let p = s.projectiles.last_mut().expect("projectiles");
                p.life -= 1;
            }),
            ("last projectile's wall count", |s| {
                let p = s.projectiles.last_mut().expect("projectiles");
                p.wall_clear ^= 1;
            }),
            ("a projectile fewer", |s| {
                s.projectiles.pop();
            }),
            ("maze width", |s| s.maze.width += 1),
            ("maze height", |s| s.maze.height += 1),
            ("last tile", |s| {
                let t = s.maze.tiles.last_mut().expect("tiles");
                t.0 ^= 1;
            }),
            ("last pose sample", |s| {
                let p = s.pose_history.samples.last_mut().expect("samples");
                p.generation ^= 1;
            }),
            ("first pose sample's radius", |s| {
                let p = &mut s.pose_history.samples[0];
                p.radius = fx_bits(p.radius.to_bits() ^ 1);
            }),
        ];
        for (name, change) in changes {
            let mut changed = base.clone();
            change(&mut changed);
            assert_ne!(changed.to_bytes(), base.to_bytes(), "{name}: bytes");
            assert_ne!(changed, base, "{name}");
            assert_ne!(base, changed, "{name}, the other way");
        }
        let mut moved = base.clone();
        moved.players[0].pos.x = nudge(moved.players[0].pos.x);
        assert_ne!(moved, base, "first player's position");
    }
}
