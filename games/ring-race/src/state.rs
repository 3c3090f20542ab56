//! `RingSnapshot`: everything that can change a future tick of a race, its bytes and its hash.

use crate::{Fx, RingError, RingRules, MAX_RACERS};
use bincode::Options as _;
use game_api::{SectionHash, Tick};
use serde::{Deserialize, Serialize};
use xxhash_rust::xxh3::{xxh3_64, Xxh3};

/// Version of the snapshot's byte format.
pub const SNAPSHOT_FORMAT: u32 = 1;

/// Largest snapshot encoding read.
pub(crate) const MAX_SNAPSHOT_BYTES: u64 = 4096;

/// One racer.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Racer {
    /// Position on the track, `0 <= pos < track_length`.
    pub pos: Fx,
    /// Speed along the track, units per tick (negative: backwards).
    pub speed: Fx,
    /// Ticks until the next dash.
    pub dash_cooldown: u16,
    /// Coins taken.
    pub score: u8,
}

/// The coin on the track.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Coin {
    /// Its position, a whole unit of the track.
    pub pos: u16,
    /// How many coins were placed before it (its stable id).
    pub serial: u32,
}

/// Everything that can change the future of a race.
#[derive(Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RingSnapshot {
    /// Ticks simulated so far.
    pub tick: Tick,
    /// Hash of the rules; a snapshot restores only under the same rules.
    pub rules_hash: u64,
    /// The seed the race began from.
    pub seed: u64,
    /// The random generator's whole state (SplitMix64): where the next coin goes.
    pub rng: u64,
    /// Racers, in slot order.
    pub racers: Vec<Racer>,
    /// The coin on the track.
    pub coin: Coin,
    /// The winner's slot, once someone has won.
    pub winner: Option<u8>,
}

impl Clone for RingSnapshot {
    fn clone(&self) -> Self {
        let mut copy = RingSnapshot {
            tick: 0,
            rules_hash: 0,
            seed: 0,
            rng: 0,
            racers: Vec::with_capacity(MAX_RACERS),
            coin: Coin::default(),
            winner: None,
        };
        copy.clone_from(self);
        copy
    }

    /// Every field named, so a new one cannot be forgotten; the racers' buffer is reused.
    fn clone_from(&mut self, source: &Self) {
        let RingSnapshot {
            tick,
            rules_hash,
            seed,
            rng,
            racers,
            coin,
            winner,
        } = source;
        self.tick = *tick;
        self.rules_hash = *rules_hash;
        self.seed = *seed;
        self.rng = *rng;
        self.racers.clone_from(racers);
        self.coin = *coin;
        self.winner = *winner;
    }
}

fn options() -> impl bincode::Options {
    bincode::DefaultOptions::new()
        .with_fixint_encoding()
        .with_little_endian()
        .reject_trailing_bytes()
        .with_limit(MAX_SNAPSHOT_BYTES)
}

impl RingSnapshot {
    /// `format version ‖ bincode(snapshot)`.
    #[must_use]
    pub fn to_bytes(&self) -> Vec<u8> {
        options()
            .serialize(&(SNAPSHOT_FORMAT, self))
            .expect("a snapshot always encodes")
    }

    /// Reads [`RingSnapshot::to_bytes`] and checks the state is reachable.
    ///
    /// # Errors
    /// [`RingError::Snapshot`] for another version, bytes that do not decode, or an impossible
    /// state.
    pub fn from_bytes(bytes: &[u8]) -> Result<RingSnapshot, RingError> {
        let bad = |reason: String| RingError::Snapshot(reason);
        let version = bytes
            .get(..4)
            .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
            .ok_or_else(|| bad("shorter than its version".into()))?;
        if version != SNAPSHOT_FORMAT {
            return Err(bad(format!(
                "format version {version}, this build reads {SNAPSHOT_FORMAT}"
            )));
        }
        let (_, snapshot): (u32, RingSnapshot) = options()
            .deserialize(bytes)
            .map_err(|e| bad(e.to_string()))?;
        snapshot.check_shape()?;
        Ok(snapshot)
    }

    /// The invariants that hold whatever the rules: 2 to 4 racers, a winner among them.
    pub(crate) fn check_shape(&self) -> Result<(), RingError> {
        let bad = |reason: String| Err(RingError::Snapshot(reason));
        if !(2..=MAX_RACERS).contains(&self.racers.len()) {
            return bad(format!("{} racers", self.racers.len()));
        }
        if self
            .winner
            .is_some_and(|w| usize::from(w) >= self.racers.len())
        {
            return bad(format!("winner {:?} is no racer", self.winner));
        }
        Ok(())
    }

    /// The invariants under `rules`: every position on the track, speeds within the limit.
    pub(crate) fn check_against(&self, rules: &RingRules) -> Result<(), RingError> {
        self.check_shape()?;
        let length = rules.length();
        let max = Fx::from_num(rules.max_speed);
        for (slot, r) in self.racers.iter().enumerate() {
            if r.pos < Fx::ZERO || r.pos >= length || r.speed.abs() > max {
                return Err(RingError::Snapshot(format!(
                    "racer {slot} at {} moving {} is off the track or too fast",
                    r.pos, r.speed
                )));
            }
        }
        if self.coin.pos >= rules.track_length {
            return Err(RingError::Snapshot(format!(
                "coin at {} is off the track",
                self.coin.pos
            )));
        }
        Ok(())
    }

    /// The state hash: one xxh3 per section, streamed field by field (no allocation).
    #[must_use]
    pub fn hash(&self) -> RingHash {
        let mut racers = Xxh3::new();
        racers.update(&(self.racers.len() as u64).to_le_bytes());
        for r in &self.racers {
            racers.update(&r.pos.to_bits().to_le_bytes());
            racers.update(&r.speed.to_bits().to_le_bytes());
            racers.update(&r.dash_cooldown.to_le_bytes());
            racers.update(&[r.score]);
        }
        let mut coin = [0u8; 6];
        coin[..2].copy_from_slice(&self.coin.pos.to_le_bytes());
        coin[2..].copy_from_slice(&self.coin.serial.to_le_bytes());
        let mut rest = [0u8; 30];
        rest[..4].copy_from_slice(&self.tick.to_le_bytes());
        rest[4..12].copy_from_slice(&self.rules_hash.to_le_bytes());
        rest[12..20].copy_from_slice(&self.seed.to_le_bytes());
        rest[20..28].copy_from_slice(&self.rng.to_le_bytes());
        rest[28] = u8::from(self.winner.is_some());
        rest[29] = self.winner.unwrap_or(0);
        RingHash::from_parts([racers.digest(), xxh3_64(&coin), xxh3_64(&rest)])
    }
}

/// The state hash of a race: combined, and per section (racers, coin, rest).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct RingHash {
    /// xxh3 of the three section hashes, little-endian, in order.
    pub combined: u64,
    /// The section hashes: racers, coin, rest.
    pub sections: [u64; 3],
}

impl RingHash {
    fn from_parts(sections: [u64; 3]) -> RingHash {
        let mut bytes = [0u8; 24];
        for (chunk, h) in bytes.chunks_exact_mut(8).zip(sections) {
            chunk.copy_from_slice(&h.to_le_bytes());
        }
        RingHash {
            combined: xxh3_64(&bytes),
            sections,
        }
    }
}

impl SectionHash for RingHash {
    const SECTIONS: &'static [&'static str] = &["racers", "coin", "rest"];

    fn combined(&self) -> u64 {
        self.combined
    }

    fn section(&self, index: usize) -> u64 {
        self.sections.get(index).copied().unwrap_or(0)
    }

    fn from_sections(sections: &[u64]) -> Option<RingHash> {
        sections.try_into().ok().map(RingHash::from_parts)
    }
}
