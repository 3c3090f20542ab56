//! Ring race: a second, deliberately different game on the rollback netcode layer.
//!
//! Two to four racers ride a circular track of `track_length` units. The stick's x thrusts
//! (with momentum: speed carries over and drag takes a share every tick), a button dashes.
//! Racers that touch bump: their speeds are exchanged, as in an elastic collision of equal
//! masses. One coin lies on the track; whoever reaches it scores, and the next coin is placed
//! by the game's random generator. The first to `coins_to_win` coins wins, and the race stands
//! still from then on.
//!
//! Its state has nothing of the maze duel's shape (no grid, no projectiles, no pose history):
//! positions wrap around a ring, the RNG places coins, and the score ends the match. It
//! implements [`game_api::Game`] and nothing else of the netcode layer; the same sync tests,
//! sessions, logs and desync tools serve it as serve the duel.
//!
//! ```
//! use game_api::Game;
//! use ring_race::{RingInput, RingRace, RingRules};
//!
//! let mut race = RingRace::new(RingRules::default(), 7, 2)?;
//! let rollback_point = race.snapshot();
//! let go = [RingInput { thrust: 127, buttons: 0 }, RingInput::default()];
//! for _ in 0..100 {
//!     race.step(&go)?;
//! }
//! let mut replay = RingRace::from_snapshot(RingRules::default(), &rollback_point)?;
//! for _ in 0..100 {
//!     replay.step(&go)?;
//! }
//! assert_eq!(replay.state_hash(), race.state_hash());
//! # Ok::<(), ring_race::RingError>(())
//! ```
#![forbid(unsafe_code)]
#![deny(missing_docs)]
#![deny(clippy::float_arithmetic)]

mod game;
mod rules;
mod state;
mod step;

pub use rules::RingRules;
pub use state::{Coin, Racer, RingHash, RingSnapshot, SNAPSHOT_FORMAT};
pub use step::{RingEvent, RingEventKey, RingPhase, PHASES};

use game_api::Tick;
use serde::{Deserialize, Serialize};

/// Fixed point with 16 fractional bits. Positions stay below 16 384 and speeds below 64, far
/// inside its range.
pub type Fx = fixed::types::I16F16;

/// The most racers on a ring.
pub const MAX_RACERS: usize = 4;

/// Button bits of [`RingInput::buttons`].
pub mod buttons {
    /// Dash: a burst of speed in the direction of the thrust (or of travel), then a cooldown.
    pub const DASH: u8 = 0b1;
    /// Every bit the game reads; others are dropped.
    pub const KNOWN: u8 = DASH;
}

/// One racer's intent for one tick: 2 bytes on the wire. Every value is valid.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct RingInput {
    /// Thrust along the ring, `-127..=127` (−128 counts as −127); forward is positive.
    pub thrust: i8,
    /// Button bits (see [`buttons`]); unknown bits are ignored.
    pub buttons: u8,
}

impl RingInput {
    /// Unknown bits cleared, the thrust clamped to `-127..=127`.
    #[must_use]
    pub fn sanitized(self) -> RingInput {
        RingInput {
            thrust: self.thrust.max(-127),
            buttons: self.buttons & buttons::KNOWN,
        }
    }
}

/// What the ring race refuses.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum RingError {
    /// A number of inputs other than the number of racers.
    #[error("tick {tick}: expected {expected} inputs (one per racer), got {got}")]
    WrongInputCount {
        /// The tick being simulated.
        tick: Tick,
        /// Racers.
        expected: usize,
        /// Inputs given.
        got: usize,
    },
    /// A racer count outside 2 to [`MAX_RACERS`].
    #[error("{0} racers: a race holds 2 to 4")]
    RacerCount(usize),
    /// A rule outside its range.
    #[error("rule `{field}` = {value} is outside its range {min} ..= {max}")]
    RuleOutOfRange {
        /// The rule.
        field: &'static str,
        /// Its value.
        value: i64,
        /// Smallest allowed.
        min: i64,
        /// Largest allowed.
        max: i64,
    },
    /// Snapshot bytes of another format, or that do not decode to a reachable state.
    #[error("ring snapshot: {0}")]
    Snapshot(String),
    /// A snapshot taken under other rules.
    #[error("snapshot was taken under rules {found:016x}, this race plays rules {expected:016x}")]
    RulesMismatch {
        /// The snapshot's rules hash.
        found: u64,
        /// This race's.
        expected: u64,
    },
    /// The tick counter is at its maximum.
    #[error("tick {0}: the tick counter is at its maximum")]
    TickLimit(Tick),
}

/// A race in progress: the state, the rules, and the events of the last step.
#[derive(Debug, Clone)]
pub struct RingRace {
    rules: RingRules,
    rules_hash: u64,
    state: RingSnapshot,
    events: Vec<RingEvent>,
    /// Scratch: the sanitized inputs of the step in progress.
    inputs: [RingInput; MAX_RACERS],
}

impl RingRace {
    /// The live state, read-only (for drawing).
    #[must_use]
    pub fn state(&self) -> &RingSnapshot {
        &self.state
    }
}
