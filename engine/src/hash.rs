//! `StateHash`: xxh3 over the canonical encoding of a state, whole and by section.
//!
//! The canonical encoding of a section is its bincode encoding with the engine's options
//! (fixed-width little-endian integers, `Vec` lengths as `u64`, enums as their `u32` variant
//! index), so it is the same on every platform and profile, and a tool can recompute a hash
//! from snapshot bytes. The sections of records — players, projectiles and pose samples — are
//! laid out as their own encoding (`repr(C)`, no padding, checked by `bytemuck` derives), so
//! their hash is one xxh3 over the records' memory, without their `u64` count (xxh3 mixes in
//! the length): no copy, no encoding pass. The rest is a few fields, encoded by hand into a
//! stack buffer. Hashing never allocates. When two peers disagree, the section hashes say
//! which part of the state diverged first.

use crate::maze::{Maze, Tile};
use crate::player::Player;
use crate::pose_history::PoseHistory;
use crate::projectile::Projectile;
use crate::round::RoundState;
use crate::snapshot::WorldSnapshot;
use serde::{Deserialize, Serialize};
use std::fmt;
use xxhash_rust::xxh3::{xxh3_64, Xxh3};

/// The parts of a state hashed separately.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Section {
    /// `players`.
    Players,
    /// `projectiles`.
    Projectiles,
    /// `maze`.
    Maze,
    /// `pose_history`.
    History,
    /// Everything else: tick, rules hash, seed, RNG, id counter, round state.
    Rest,
}

impl Section {
    /// All sections, in the order they are combined.
    pub const ALL: [Section; 5] = [
        Section::Players,
        Section::Projectiles,
        Section::Maze,
        Section::History,
        Section::Rest,
    ];

    /// The section's name as it appears in hash logs.
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            Section::Players => "players",
            Section::Projectiles => "projectiles",
            Section::Maze => "maze",
            Section::History => "history",
            Section::Rest => "rest",
        }
    }
}

/// The hash of a state: the combined value and one per section.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct StateHash {
    /// xxh3 of the five section hashes (little-endian, in [`Section::ALL`] order).
    pub combined: u64,
    /// xxh3 of the canonical encoding of `players`.
    pub players: u64,
    /// xxh3 of the canonical encoding of `projectiles`.
    pub projectiles: u64,
    /// xxh3 of the canonical encoding of `maze`.
    pub maze: u64,
    /// xxh3 of the canonical encoding of `pose_history`.
    pub history: u64,
    /// xxh3 of the canonical encoding of every other field.
    pub rest: u64,
}

impl StateHash {
    /// Hash of one section.
    #[must_use]
    pub fn section(&self, section: Section) -> u64 {
        match section {
            Section::Players => self.players,
            Section::Projectiles => self.projectiles,
            Section::Maze => self.maze,
            Section::History => self.history,
            Section::Rest => self.rest,
        }
    }

    /// The first section (in [`Section::ALL`] order) whose hash differs, if any.
    #[must_use]
    pub fn first_difference(&self, other: &StateHash) -> Option<Section> {
        Section::ALL
            .into_iter()
            .find(|&s| self.section(s) != other.section(s))
    }

    /// Combines the section hashes, given in [`Section::ALL`] order.
    #[must_use]
    pub fn from_sections(sections: [u64; 5]) -> StateHash {
        let mut bytes = [0u8; 40];
        for (chunk, h) in bytes.chunks_exact_mut(8).zip(sections) {
            chunk.copy_from_slice(&h.to_le_bytes());
        }
        let [players, projectiles, maze, history, rest] = sections;
        StateHash {
            combined: xxh3_64(&bytes),
            players,
            projectiles,
            maze,
            history,
            rest,
        }
    }

    /// The first 8 hex digits of the combined hash, for HUDs and summaries.
    #[must_use]
    pub fn short(&self) -> String {
        format!("{:08x}", self.combined >> 32)
    }
}

impl fmt::Display for StateHash {
    /// `combined players projectiles maze history rest`, each as 16 hex digits: the hash-log
    /// format.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:016x}", self.combined)?;
        for section in Section::ALL {
            write!(f, " {:016x}", self.section(section))?;
        }
        Ok(())
    }
}

/// A little-endian writer over a stack buffer. Every write has a size known at compile time,
/// so encoding compiles to plain stores.
struct Le<'a> {
    buf: &'a mut [u8],
    at: usize,
}

impl<'a> Le<'a> {
    fn new(buf: &'a mut [u8]) -> Le<'a> {
        Le { buf, at: 0 }
    }

    #[inline(always)]
    fn bytes<const N: usize>(&mut self, b: [u8; N]) {
        self.buf[self.at..self.at + N].copy_from_slice(&b);
        self.at += N;
    }

    #[inline(always)]
    fn u8(&mut self, v: u8) {
        self.bytes([v]);
    }

    #[inline(always)]
    fn u32(&mut self, v: u32) {
        self.bytes(v.to_le_bytes());
    }

    #[inline(always)]
    fn u64(&mut self, v: u64) {
        self.bytes(v.to_le_bytes());
    }

    fn written(&self) -> &[u8] {
        &self.buf[..self.at]
    }
}

/// xxh3 of the players' bytes as they lie in memory (see [`hash_projectiles`]).
fn hash_players(players: &[Player]) -> u64 {
    xxh3_64(bytemuck::cast_slice(players))
}

/// xxh3 of the projectiles' bytes as they lie in memory: one call, no copy, no encoding.
/// Those bytes are the section's bincode encoding after its `u64` length, which xxh3 needs
/// no more (it mixes in the input's length).
fn hash_projectiles(projectiles: &[Projectile]) -> u64 {
    xxh3_64(bytemuck::cast_slice(projectiles))
}

/// xxh3 of the pose samples' bytes as they lie in memory, like [`hash_projectiles`].
fn hash_history(history: &PoseHistory) -> u64 {
    xxh3_64(bytemuck::cast_slice(&history.samples))
}

fn hash_maze(maze: &Maze) -> u64 {
    hash_maze_parts(maze.width, maze.height, &maze.tiles)
}

/// The maze section's hash from its parts (a saved image holds them apart).
pub(crate) fn hash_maze_parts(width: u32, height: u32, tiles: &[Tile]) -> u64 {
    let mut head = [0u8; 16];
    let mut w = Le::new(&mut head);
    w.u32(width);
    w.u32(height);
    w.u64(tiles.len() as u64);
    let mut hasher = Xxh3::new();
    hasher.update(w.written());
    hasher.update(bytemuck::cast_slice(tiles));
    hasher.digest()
}

// The rest's encoding is byte-identical to its bincode encoding with the engine's options (the
// tests below hold them together); it is written by hand because the hash runs every tick and
// bincode's per-field calls cost several times more. (It holds an `Option`, which has no
// fixed bytes in memory.)

fn hash_rest(s: &WorldSnapshot) -> u64 {
    let mut buf = [0u8; REST_BYTES];
    let len = encode_rest(s, &mut buf);
    xxh3_64(&buf[..len])
}

/// Most bytes [`encode_rest`] writes (54 with no last winner, 55 with one).
pub(crate) const REST_BYTES: usize = 56;

/// Writes the rest section's canonical bytes (its bincode encoding) to the front of `out`
/// and returns how many: what its hash covers, and what a saved image keeps of those fields.
#[inline]
pub(crate) fn encode_rest(s: &WorldSnapshot, out: &mut [u8; REST_BYTES]) -> usize {
    let mut w = Le::new(out);
    let RoundState {
        round,
        phase,
        phase_timer,
        wins,
        last_winner,
        round_seed,
    } = s.round;
    w.u32(s.tick);
    w.u64(s.rules_hash);
    w.u64(s.match_seed);
    w.u64(s.rng.state);
    w.u32(s.next_projectile_id);
    w.u8(round);
    w.u32(phase as u32);
    w.u32(phase_timer);
    w.bytes(wins);
    match last_winner {
        None => w.u8(0),
        Some(id) => {
            w.u8(1);
            w.u8(id);
        }
    }
    w.u64(round_seed);
    w.at
}

impl WorldSnapshot {
    /// The hash of the `maze` section alone.
    #[must_use]
    pub fn maze_hash(&self) -> u64 {
        hash_maze(&self.maze)
    }

    /// Hashes this state; `maze` is the maze section's hash if the caller already has it.
    pub(crate) fn hash_with_maze(&self, maze: u64) -> StateHash {
        // Exhaustive on purpose: a new snapshot field does not compile until it is hashed.
        let WorldSnapshot {
            tick: _,
            rules_hash: _,
            match_seed: _,
            rng: _,
            next_projectile_id: _,
            round: _,
            players,
            projectiles,
            maze: _,
            pose_history,
        } = self;
        StateHash::from_sections([
            hash_players(players),
            hash_projectiles(projectiles),
            maze,
            hash_history(pose_history),
            hash_rest(self),
        ])
    }

    /// The state hash of this snapshot, every section computed afresh.
    #[must_use]
    pub fn hash(&self) -> StateHash {
        self.hash_with_maze(self.maze_hash())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fx::FxVec;
    use crate::player::{Action, PlayerStats};
    use crate::pose_history::PoseSample;
    use crate::snapshot::canonical;
    use crate::{Bot, Rules, World};
    use bincode::Options;

    /// The rest section as bincode sees it, for the equality test.
    #[derive(serde::Serialize)]
    struct RestSection<'a> {
        tick: &'a crate::Tick,
        rules_hash: &'a u64,
        match_seed: &'a u64,
        rng: &'a crate::rng::DetRng,
        next_projectile_id: &'a u32,
        round: &'a RoundState,
    }

    fn bincode_hash<T: serde::Serialize + ?Sized>(v: &T) -> u64 {
        xxh3_64(&canonical().serialize(v).expect("encodes"))
    }

    /// xxh3 of a list's bincode encoding after its `u64` count: what a tool computes from
    /// snapshot bytes for the projectile and pose sections.
    fn bincode_items_hash<T: serde::Serialize>(items: &[T]) -> u64 {
        let bytes = canonical().serialize(items).expect("encodes");
        assert_eq!(bytes[..8], (items.len() as u64).to_le_bytes());
        xxh3_64(&bytes[8..])
    }

    /// The hand-written encoders give exactly the bincode bytes, and the records hashed as they
    /// lie in memory are exactly their bincode bytes, for states from a real match (both
    /// `last_winner` variants, every action, projectiles in flight, damaged blocks).
    #[test]
    fn hand_written_sections_equal_their_bincode_encoding() {
        let mut world = World::new(Rules::default(), 77, 3).expect("world");
        let mut bots = [Bot::new(0, 1), Bot::new(1, 2), Bot::new(2, 3)];
        let (mut checked, mut seen_projectiles) = (0, false);
        for _ in 0..3000 {
            let inputs = [
                bots[0].think(&world),
                bots[1].think(&world),
                bots[2].think(&world),
            ];
            world.step(&inputs).expect("step");
            let s = world.state();
            let rest = RestSection {
                tick: &s.tick,
                rules_hash: &s.rules_hash,
                match_seed: &s.match_seed,
                rng: &s.rng,
                next_projectile_id: &s.next_projectile_id,
                round: &s.round,
            };
            assert_eq!(hash_players(&s.players), bincode_items_hash(&s.players));
            assert_eq!(
                hash_projectiles(&s.projectiles),
                bincode_items_hash(&s.projectiles)
            );
            assert_eq!(hash_maze(&s.maze), bincode_hash(&s.maze));
            assert_eq!(
                hash_history(&s.pose_history),
                bincode_items_hash(&s.pose_history.samples)
            );
            seen_projectiles |= !s.projectiles.is_empty();
            assert_eq!(hash_rest(s), bincode_hash(&rest));
            checked += 1;
        }
        assert_eq!(checked, 3000);
        assert!(seen_projectiles, "projectiles were in flight");
        assert!(
            world.state().round.last_winner.is_some(),
            "both Option variants were seen"
        );
    }

    proptest::proptest! {
        /// Any player's, projectile's and pose sample's memory is exactly its bincode
        /// encoding (every field at every value, every action, the reserved bytes included):
        /// hashing the memory is hashing the canonical encoding.
        #[test]
        fn a_records_memory_is_its_encoding(
            words in proptest::array::uniform6(proptest::num::u32::ANY),
            life in proptest::num::u16::ANY,
            small in proptest::array::uniform4(proptest::num::u8::ANY),
        ) {
            let fx = |w: u32| crate::fx::fx_bits(w.cast_signed());
            let p = Projectile {
                id: words[0],
                owner_generation: words[1],
                pos: FxVec::new(fx(words[2]), fx(words[3])),
                vel: FxVec::new(fx(words[4]), fx(words[5])),
                life,
                owner: small[0],
                wall_clear: small[1],
            };
            let encoded = canonical().serialize(&p).expect("encodes");
            proptest::prop_assert_eq!(bytemuck::bytes_of(&p), &encoded[..]);
            let s = PoseSample {
                pos: FxVec::new(fx(words[0]), fx(words[1])),
                radius: fx(words[2]),
                generation: words[3],
                flags: small[0],
                reserved: [small[1], small[2], small[3]],
            };
            let encoded = canonical().serialize(&s).expect("encodes");
            proptest::prop_assert_eq!(bytemuck::bytes_of(&s), &encoded[..]);
            let actions = [
                Action::Idle,
                Action::Move,
                Action::MeleeStartup,
                Action::MeleeActive,
                Action::MeleeRecovery,
                Action::Hitstun,
                Action::Ko,
            ];
            let p = Player {
                generation: words[0],
                pos: FxVec::new(fx(words[1]), fx(words[2])),
                vel: FxVec::new(fx(words[3]), fx(words[4])),
                aim: FxVec::new(fx(words[5]), fx(words[0] ^ words[1])),
                action: actions[usize::from(small[0]) % actions.len()],
                stats: PlayerStats {
                    damage_dealt: words[2] ^ words[3],
                    kos: words[4].rotate_left(7),
                    shots: words[5].rotate_right(3),
                },
                hp: life,
                action_timer: life.rotate_left(1),
                shot_cooldown: life.rotate_left(2),
                ammo: life.rotate_left(3),
                reload_timer: life.rotate_left(4),
                rail_cooldown: life.rotate_left(5),
                rail_recharge: life.rotate_left(6),
                hitstop: life.rotate_left(7),
                id: small[1],
                prev_buttons: small[2],
                melee_hits: small[3],
                rail_charges: small[0] ^ small[3],
            };
            let encoded = canonical().serialize(&p).expect("encodes");
            proptest::prop_assert_eq!(bytemuck::bytes_of(&p), &encoded[..]);
        }
    }

    /// Every byte of a record counts: one bit flipped anywhere in the memory of any projectile
    /// or pose sample of a list changes the section hash.
    #[test]
    fn every_byte_of_every_record_is_hashed() {
        let p = Projectile {
            id: 9,
            owner_generation: 2,
            pos: FxVec::new(crate::fx::fx_bits(-5), crate::fx::fx_bits(70_000)),
            vel: FxVec::ZERO,
            life: 3,
            owner: 1,
            wall_clear: 0,
        };
        let list = vec![p; 5];
        let base = hash_projectiles(&list);
        for byte in 0..5 * size_of::<Projectile>() {
            let mut changed = list.clone();
            bytemuck::cast_slice_mut::<Projectile, u8>(&mut changed)[byte] ^= 1;
            assert_ne!(hash_projectiles(&changed), base, "byte {byte}");
        }
        let history = PoseHistory {
            samples: vec![PoseSample::default(); 3],
        };
        let base = hash_history(&history);
        for byte in 0..3 * size_of::<PoseSample>() {
            let mut changed = history.clone();
            bytemuck::cast_slice_mut::<PoseSample, u8>(&mut changed.samples)[byte] ^= 1;
            assert_ne!(hash_history(&changed), base, "byte {byte}");
        }
        assert_eq!(size_of::<Player>(), 64);
        assert_eq!(size_of::<Projectile>(), 28);
        assert_eq!(size_of::<PoseSample>(), 20);
    }

    /// The names and the text form are what hash logs, `desync` and `verify` print and parse.
    #[test]
    fn sections_are_named_and_printed_in_the_hash_log_format() {
        let names: Vec<_> = Section::ALL.iter().map(|s| s.name()).collect();
        assert_eq!(names, ["players", "projectiles", "maze", "history", "rest"]);
        let h = StateHash::from_sections([1, 2, 3, 4, 5]);
        let text = h.to_string();
        let fields: Vec<u64> = text
            .split(' ')
            .map(|f| {
                assert_eq!(f.len(), 16, "16 hex digits: {text}");
                u64::from_str_radix(f, 16).expect("hex")
            })
            .collect();
        assert_eq!(fields, [h.combined, 1, 2, 3, 4, 5]);
        assert_eq!(h.short(), format!("{:08x}", h.combined >> 32));
        assert_eq!(h.short(), text[..8], "the first 8 hex digits");
    }
}
