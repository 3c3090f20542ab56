//! The engine's one error type.

use crate::Tick;

/// Everything the engine can refuse, with the tick and the expectation that was not met.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// `World::step` got a number of inputs different from the number of players.
    #[error("tick {tick}: expected {expected} inputs (one per player), got {got}")]
    WrongInputCount {
        /// The tick being simulated.
        tick: Tick,
        /// Number of players.
        expected: usize,
        /// Number of inputs given.
        got: usize,
    },
    /// An input stamped with another tick than the one being simulated.
    #[error("tick {expected}: input for player {player} is stamped tick {got}")]
    WrongInputTick {
        /// The tick being simulated.
        expected: Tick,
        /// The stamp on the input.
        got: Tick,
        /// The player (slot) whose input it is.
        player: usize,
    },
    /// A rules file that could not be read: bad TOML, a missing or unknown field, a wrong type.
    #[error("rules file: {message}")]
    RulesFile {
        /// What is wrong, naming the field where there is one.
        message: String,
    },
    /// A rule outside its allowed range.
    #[error("rule `{field}` = {value} is outside its range {min} ..= {max}")]
    RuleOutOfRange {
        /// The field's name.
        field: &'static str,
        /// The value given.
        value: String,
        /// The smallest allowed value.
        min: String,
        /// The largest allowed value.
        max: String,
    },
    /// A player count the world does not support.
    #[error("{got} players: a world holds {min} to {max}")]
    PlayerCount {
        /// Requested.
        got: usize,
        /// Minimum.
        min: usize,
        /// Maximum.
        max: usize,
    },
    /// Snapshot bytes written by another snapshot format.
    #[error("snapshot format version {found}, this build reads version {expected}")]
    SnapshotVersion {
        /// What the bytes say.
        found: u32,
        /// What this build writes and reads.
        expected: u32,
    },
    /// Snapshot bytes that do not decode, or decode to an impossible state.
    #[error("snapshot is corrupt: {reason}")]
    SnapshotCorrupt {
        /// What was wrong.
        reason: String,
    },
    /// A snapshot taken under other rules than the world it is restored into.
    #[error("snapshot was taken under rules {found:016x}, this world plays rules {expected:016x}")]
    RulesMismatch {
        /// The snapshot's rules hash.
        found: u64,
        /// The world's rules hash.
        expected: u64,
    },
    /// `World::step` at the last tick a [`Tick`] can count: the match cannot go on (after
    /// about 2.27 years of play).
    #[error("tick {tick}: the tick counter is at its maximum, the match cannot go on")]
    TickLimit {
        /// The tick that could not be simulated (`Tick::MAX`).
        tick: Tick,
    },
}
