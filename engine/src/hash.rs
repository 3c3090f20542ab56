//! `StateHash`: xxh3 over the canonical encoding of a state, whole and by section.
//!
//! The canonical encoding of a section is exactly its bincode encoding with the engine's
//! options (fixed-width little-endian integers, `Vec` lengths as `u64`), so it is the same on
//! every platform and profile. It is streamed into the hasher through a small stack buffer:
//! hashing never allocates. When two peers disagree, the section hashes say which part of the
//! state diverged first.

use crate::snapshot::{canonical, WorldSnapshot};
use bincode::Options;
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
    /// Everything else: tick, rules hash, seed, RNG, id counter, round state.
    Rest,
}

impl Section {
    /// All sections, in the order they are combined.
    pub const ALL: [Section; 4] = [
        Section::Players,
        Section::Projectiles,
        Section::Maze,
        Section::Rest,
    ];

    /// The section's name as it appears in hash logs.
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            Section::Players => "players",
            Section::Projectiles => "projectiles",
            Section::Maze => "maze",
            Section::Rest => "rest",
        }
    }
}

/// The hash of a state: the combined value and one per section.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct StateHash {
    /// xxh3 of the four section hashes (little-endian, in [`Section::ALL`] order).
    pub combined: u64,
    /// xxh3 of the canonical encoding of `players`.
    pub players: u64,
    /// xxh3 of the canonical encoding of `projectiles`.
    pub projectiles: u64,
    /// xxh3 of the canonical encoding of `maze`.
    pub maze: u64,
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

    /// Combines four section hashes.
    #[must_use]
    pub fn from_sections(players: u64, projectiles: u64, maze: u64, rest: u64) -> StateHash {
        let mut bytes = [0u8; 32];
        for (chunk, h) in bytes
            .chunks_exact_mut(8)
            .zip([players, projectiles, maze, rest])
        {
            chunk.copy_from_slice(&h.to_le_bytes());
        }
        StateHash {
            combined: xxh3_64(&bytes),
            players,
            projectiles,
            maze,
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
    /// `combined players projectiles maze rest`, each as 16 hex digits: the hash-log format.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{:016x} {:016x} {:016x} {:016x} {:016x}",
            self.combined, self.players, self.projectiles, self.maze, self.rest
        )
    }
}

/// An `io::Write` that feeds xxh3 through a stack buffer, so bincode's many small writes cost
/// one hasher update per 512 bytes.
struct HashSink {
    hasher: Xxh3,
    buf: [u8; 512],
    len: usize,
}

impl HashSink {
    fn new() -> HashSink {
        HashSink {
            hasher: Xxh3::new(),
            buf: [0; 512],
            len: 0,
        }
    }

    fn finish(mut self) -> u64 {
        self.hasher.update(&self.buf[..self.len]);
        self.hasher.digest()
    }
}

impl std::io::Write for HashSink {
    #[inline]
    fn write(&mut self, data: &[u8]) -> std::io::Result<usize> {
        if self.len + data.len() > self.buf.len() {
            self.hasher.update(&self.buf[..self.len]);
            self.len = 0;
            if data.len() > self.buf.len() {
                self.hasher.update(data);
                return Ok(data.len());
            }
        }
        self.buf[self.len..self.len + data.len()].copy_from_slice(data);
        self.len += data.len();
        Ok(data.len())
    }

    #[inline]
    fn write_all(&mut self, data: &[u8]) -> std::io::Result<()> {
        self.write(data).map(|_| ())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// xxh3 of a value's canonical encoding, without allocating.
pub(crate) fn hash_canonical<T: Serialize + ?Sized>(value: &T) -> u64 {
    let mut sink = HashSink::new();
    canonical()
        .serialize_into(&mut sink, value)
        .expect("hashing never fails to encode");
    sink.finish()
}

/// The fields of the `rest` section, borrowed, in their canonical order.
#[derive(Serialize)]
struct RestSection<'a> {
    tick: &'a crate::Tick,
    rules_hash: &'a u64,
    match_seed: &'a u64,
    rng: &'a crate::rng::DetRng,
    next_projectile_id: &'a u32,
    round: &'a crate::round::RoundState,
}

impl WorldSnapshot {
    /// The hash of the `maze` section alone.
    #[must_use]
    pub fn maze_hash(&self) -> u64 {
        hash_canonical(&self.maze)
    }

    /// Hashes this state; `maze` is the maze section's hash if the caller already has it.
    pub(crate) fn hash_with_maze(&self, maze: u64) -> StateHash {
        // Exhaustive on purpose: a new snapshot field does not compile until it is hashed.
        let WorldSnapshot {
            tick,
            rules_hash,
            match_seed,
            rng,
            next_projectile_id,
            round,
            players,
            projectiles,
            maze: _,
        } = self;
        let rest = RestSection {
            tick,
            rules_hash,
            match_seed,
            rng,
            next_projectile_id,
            round,
        };
        StateHash::from_sections(
            hash_canonical(players),
            hash_canonical(projectiles),
            maze,
            hash_canonical(&rest),
        )
    }

    /// The state hash of this snapshot, every section computed afresh.
    #[must_use]
    pub fn hash(&self) -> StateHash {
        self.hash_with_maze(self.maze_hash())
    }
}
