//! `StateHash`: xxh3 over the canonical encoding of a state, whole and by section.
//!
//! The canonical encoding of a section is exactly its bincode encoding with the engine's
//! options (fixed-width little-endian integers, `Vec` lengths as `u64`, enums as their `u32`
//! variant index), so it is the same on every platform and profile, and a tool can recompute
//! a hash from snapshot bytes. It is written into stack buffers: hashing never allocates. When two peers disagree, the section hashes say which part of the
//! state diverged first.

use crate::fx::FxVec;
use crate::maze::Maze;
use crate::player::{Player, PlayerStats, MAX_PLAYERS};
use crate::pose_history::{PoseHistory, PoseSample};
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
    fn u16(&mut self, v: u16) {
        self.bytes(v.to_le_bytes());
    }

    #[inline(always)]
    fn u32(&mut self, v: u32) {
        self.bytes(v.to_le_bytes());
    }

    #[inline(always)]
    fn u64(&mut self, v: u64) {
        self.bytes(v.to_le_bytes());
    }

    #[inline(always)]
    fn vec(&mut self, v: FxVec) {
        self.bytes(v.x.to_bits().to_le_bytes());
        self.bytes(v.y.to_bits().to_le_bytes());
    }

    /// Writes `N` little-endian 64-bit words in one bounds check and one wide store, then
    /// advances by `len` (≤ 8·N): the bytes past `len` are scratch the next write overwrites,
    /// so the buffer needs `8·N − len` bytes of slack after the last record.
    #[inline(always)]
    fn words<const N: usize>(&mut self, words: [u64; N], len: usize) {
        let at = self.at;
        let out = &mut self.buf[at..at + 8 * N];
        for (chunk, word) in out.chunks_exact_mut(8).zip(words) {
            chunk.copy_from_slice(&word.to_le_bytes());
        }
        self.at = at + len;
    }

    fn written(&self) -> &[u8] {
        &self.buf[..self.at]
    }
}

// The canonical encoding of each section is byte-identical to its bincode encoding with the
// engine's options (the tests below hold them together); it is written by hand because the
// hash runs every tick and bincode's per-field calls cost several times more.

/// Bytes of one player in the canonical encoding.
const PLAYER_LEN: usize = 64;
/// Bytes of one pose sample in the canonical encoding.
const POSE_LEN: usize = 17;
/// Bytes of one projectile in the canonical encoding.
const PROJECTILE_LEN: usize = 27;

fn encode_player(p: &Player, w: &mut Le<'_>) {
    let Player {
        id,
        generation,
        pos,
        vel,
        aim,
        hp,
        action,
        action_timer,
        shot_cooldown,
        ammo,
        reload_timer,
        prev_buttons,
        melee_hits,
        rail_charges,
        rail_cooldown,
        rail_recharge,
        hitstop,
        stats: PlayerStats {
            damage_dealt,
            kos,
            shots,
        },
    } = *p;
    w.u8(id);
    w.u32(generation);
    w.vec(pos);
    w.vec(vel);
    w.vec(aim);
    w.u16(hp);
    w.u32(action as u32); // serde's variant index: the declaration order
    w.u16(action_timer);
    w.u16(shot_cooldown);
    w.u16(ammo);
    w.u16(reload_timer);
    w.u8(prev_buttons);
    w.u8(melee_hits);
    w.u8(rail_charges);
    w.u16(rail_cooldown);
    w.u16(rail_recharge);
    w.u16(hitstop);
    w.u32(damage_dealt);
    w.u32(kos);
    w.u32(shots);
}

/// Writes one projectile as four 64-bit words (32 bytes) and advances by its 27: the next
/// projectile overwrites the 5 spare bytes. Four wide stores instead of eight narrow ones; the
/// buffer needs 5 bytes of slack after the last projectile.
#[inline(always)]
fn encode_projectile(p: &Projectile, w: &mut Le<'_>) {
    let Projectile {
        id,
        owner_generation,
        pos,
        vel,
        life,
        owner,
    } = *p;
    w.words(
        [
            pair(id, owner_generation),
            pair(bits(pos.x), bits(pos.y)),
            pair(bits(vel.x), bits(vel.y)),
            u64::from(life) | u64::from(owner) << 16,
        ],
        PROJECTILE_LEN,
    );
}

fn hash_players(players: &[Player]) -> u64 {
    let mut buf = [0u8; 8 + PLAYER_LEN * MAX_PLAYERS];
    let mut w = Le::new(&mut buf);
    w.u64(players.len() as u64);
    for p in players {
        encode_player(p, &mut w);
    }
    xxh3_64(w.written())
}

/// Bytes of the stack buffer a growing section is encoded into. Kept small because the
/// buffer is zeroed on every hash: at 7 KB the zeroing cost more than hashing 32 projectiles.
const CHUNK_BYTES: usize = 1024;

/// xxh3 of `items.len()` (as `u64`) followed by every item's `LEN`-byte encoding, which is
/// the section's bincode encoding: one xxh3 call over one stack buffer when it all fits (the
/// usual case: a streaming hasher's setup costs more than a few hundred bytes do), streamed
/// buffer by buffer otherwise. Both give the same value.
///
/// `encode` writes exactly `LEN` bytes, and may use up to `SLACK` more as scratch space that
/// the next item overwrites.
#[inline(always)]
fn hash_records<T, const LEN: usize, const SLACK: usize>(
    items: &[T],
    encode: impl Fn(&T, &mut Le<'_>),
) -> u64 {
    let mut buf = [0u8; CHUNK_BYTES];
    let per_buffer = (CHUNK_BYTES - 8 - SLACK) / LEN;
    if items.len() <= per_buffer {
        let mut w = Le::new(&mut buf);
        w.u64(items.len() as u64);
        for item in items {
            encode(item, &mut w);
        }
        return xxh3_64(w.written());
    }
    let mut hasher = Xxh3::new();
    hasher.update(&(items.len() as u64).to_le_bytes());
    for chunk in items.chunks(per_buffer) {
        let mut w = Le::new(&mut buf);
        for item in chunk {
            encode(item, &mut w);
        }
        hasher.update(w.written());
    }
    hasher.digest()
}

/// Projectiles are the part of the state that grows (5 bytes of slack: see
/// [`encode_projectile`]).
fn hash_projectiles(projectiles: &[Projectile]) -> u64 {
    hash_records::<_, PROJECTILE_LEN, 5>(projectiles, encode_projectile)
}

/// The pose history (hashed every rollback frame; one buffer for any window up to 4
/// players at the default depth, streamed beyond). 7 bytes of slack: see [`encode_pose`].
fn hash_history(history: &PoseHistory) -> u64 {
    hash_records::<_, POSE_LEN, 7>(&history.samples, encode_pose)
}

/// Writes one pose sample as three 64-bit words (24 bytes) and advances by its 17, like
/// [`encode_projectile`]: the buffer needs 7 bytes of slack after the last sample.
#[inline(always)]
fn encode_pose(s: &PoseSample, w: &mut Le<'_>) {
    let PoseSample {
        pos,
        radius,
        generation,
        flags,
    } = *s;
    w.words(
        [
            pair(bits(pos.x), bits(pos.y)),
            pair(bits(radius), generation),
            u64::from(flags),
        ],
        POSE_LEN,
    );
}

/// Two 32-bit values as one little-endian 64-bit word, `lo` first.
#[inline(always)]
fn pair(lo: u32, hi: u32) -> u64 {
    u64::from(hi) << 32 | u64::from(lo)
}

/// A fixed-point value's raw bits.
#[inline(always)]
fn bits(v: crate::fx::Fx) -> u32 {
    v.to_bits().cast_unsigned()
}

fn hash_maze(maze: &Maze) -> u64 {
    let mut hasher = Xxh3::new();
    let mut head = [0u8; 16];
    let mut w = Le::new(&mut head);
    w.u32(maze.width);
    w.u32(maze.height);
    w.u64(maze.tiles.len() as u64);
    hasher.update(w.written());
    let mut buf = [0u8; 1024];
    for chunk in maze.tiles.chunks(buf.len()) {
        for (b, t) in buf.iter_mut().zip(chunk) {
            *b = t.0;
        }
        hasher.update(&buf[..chunk.len()]);
    }
    hasher.digest()
}

fn hash_rest(s: &WorldSnapshot) -> u64 {
    let mut buf = [0u8; 64];
    let mut w = Le::new(&mut buf);
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
    xxh3_64(w.written())
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

    /// The hand-written encoders give exactly the bincode bytes, for states from a real match
    /// (both `last_winner` variants, every action, projectiles in flight, damaged blocks).
    #[test]
    fn hand_written_sections_equal_their_bincode_encoding() {
        let mut world = World::new(Rules::default(), 77, 3).expect("world");
        let mut bots = [Bot::new(0, 1), Bot::new(1, 2), Bot::new(2, 3)];
        let mut checked = 0;
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
            assert_eq!(hash_players(&s.players), bincode_hash(&s.players));
            assert_eq!(
                hash_projectiles(&s.projectiles),
                bincode_hash(&s.projectiles)
            );
            assert_eq!(hash_maze(&s.maze), bincode_hash(&s.maze));
            assert_eq!(hash_history(&s.pose_history), bincode_hash(&s.pose_history));
            assert_eq!(hash_rest(s), bincode_hash(&rest));
            checked += 1;
        }
        assert_eq!(checked, 3000);
        assert!(
            world.state().round.last_winner.is_some(),
            "both Option variants were seen"
        );
    }

    /// One buffer and the streamed buffers agree with the encoding on either side of the
    /// buffer's size, up to more samples than any window holds (a damaged snapshot), and
    /// neither panics.
    #[test]
    fn pose_histories_hash_like_their_encoding_at_any_length() {
        let sample = PoseSample {
            pos: FxVec::new(crate::fx::fx_bits(-3), crate::fx::fx_bits(90_000)),
            radius: crate::fx::fx_bits(19_661),
            generation: 7,
            flags: 1,
        };
        let per_buffer = (CHUNK_BYTES - 8 - 7) / POSE_LEN;
        let full = MAX_PLAYERS * PoseHistory::depth(crate::pose_history::MAX_POSE_WINDOW);
        for n in [0, 1, per_buffer, per_buffer + 1, full, 2 * full + 1] {
            let history = PoseHistory {
                samples: vec![sample; n],
            };
            assert_eq!(
                hash_history(&history),
                bincode_hash(&history),
                "{n} samples"
            );
        }
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

    #[test]
    fn projectile_chunks_hash_like_one_encoding() {
        let p = Projectile {
            id: 9,
            owner_generation: 2,
            pos: FxVec::new(crate::fx::fx_bits(-5), crate::fx::fx_bits(70_000)),
            vel: FxVec::ZERO,
            life: 3,
            owner: 1,
        };
        let per_buffer = (CHUNK_BYTES - 8 - 5) / PROJECTILE_LEN;
        for n in [
            0usize,
            1,
            per_buffer,
            per_buffer + 1,
            2 * per_buffer + 1,
            600,
        ] {
            let list = vec![p; n];
            assert_eq!(
                hash_projectiles(&list),
                bincode_hash(&list),
                "{n} projectiles"
            );
        }
    }
}
