//! What a deterministic game gives the rollback netcode layer, and nothing more.
//!
//! The netcode layer (`client`: GGRS sessions, the sealed socket, hash logs, match logs,
//! replays, desync forensics, the prediction journal) is written against the [`Game`] trait
//! alone. A game that implements it — the maze duel's `engine::World`, or the ring race of
//! `games/ring-race` — gets all of it without a line of netcode of its own.
//!
//! The contract, in short (each item is stated on the trait's members):
//!
//! - **Determinism.** The same state, the same inputs and the same rules give the same next
//!   state, bit for bit, on every build and platform: integers and fixed point only, no clock,
//!   file, socket, thread or ambient randomness, iteration in a defined order.
//! - **Intent-only, total inputs.** [`Game::Input`] is a small `Copy` value (a pad's buttons and
//!   stick, never a position); every value of it, however hostile, is a valid input: `step`
//!   sanitizes. `Default` is "no input", also what a disconnected player sends.
//! - **The snapshot is the closure of the future.** [`Game::Snapshot`] holds every field that can
//!   change a future tick: a fresh game restored from it and stepped with the same inputs is
//!   bit-identical to the original at every later tick ([`conformance`] checks it).
//! - **Phases, hashes and events for forensics.** The step runs the named phases of
//!   [`Game::PHASES`] in order, calling a [`StepObserver`] after each; the state hash is
//!   sectioned ([`SectionHash`]); every event has a stable key, so a journal can tell "the same
//!   happening, re-simulated" from a new one.
//!
//! The rings the netcode layer keeps past ticks in ([`TickRing`], [`StateHistory`]) live here
//! too, so a game's own tools can use them, and so does lag compensation ([`lag`]: the
//! pose-history ring over a game's own hitbox type, interpolation with cuts, view clamping).
#![forbid(unsafe_code)]
#![deny(missing_docs)]

pub mod conformance;
pub mod lag;
mod phases;
mod ring;

pub use phases::{Perturb, PhaseHashes, PhaseTracer, MAX_PHASES};
pub use ring::{RingError, StateHistory, TickRing};

use serde::{de::DeserializeOwned, Serialize};
use std::fmt::Debug;
use std::hash::Hash;

/// A simulation tick: the number of steps taken since the match began.
pub type Tick = u32;

/// A state hash that is also one hash per part of the state, so that when two peers disagree
/// the first differing section says where to look.
///
/// The combined value is what peers compare every tick; the sections are what hash logs and
/// desync reports print, in [`SectionHash::SECTIONS`] order.
///
/// Its serde form is what match logs record per tick (bincode): it must carry the combined value
/// and every section, so that a forged or damaged combined value is seen by `verify`.
pub trait SectionHash:
    Copy + Debug + Default + Eq + Serialize + DeserializeOwned + Send + Sync + 'static
{
    /// The sections' names, in order (lower case, no spaces: they are hash-log columns).
    const SECTIONS: &'static [&'static str];

    /// The hash of the whole state.
    fn combined(&self) -> u64;

    /// The hash of section `index` (in [`SectionHash::SECTIONS`] order); 0 past the last.
    fn section(&self, index: usize) -> u64;

    /// The hash whose sections are `sections` (in order), its combined value recomputed the
    /// way the game computes it; `None` unless exactly one value per section is given.
    fn from_sections(sections: &[u64]) -> Option<Self>;

    /// The first section (by index) whose hash differs from `other`'s, if any.
    fn first_difference(&self, other: &Self) -> Option<usize> {
        (0..Self::SECTIONS.len()).find(|&i| self.section(i) != other.section(i))
    }
}

/// What a game's phase loop calls right after each phase of a step: how the netcode layer
/// traces a step phase by phase, and how the desync tools inject a difference into one phase.
pub trait StepObserver<G: ?Sized> {
    /// Called after phase `index` of [`Game::PHASES`] with the game in its state right then.
    fn after_phase(&mut self, index: usize, game: &mut G);
}

impl<G: ?Sized> StepObserver<G> for () {
    #[inline(always)]
    fn after_phase(&mut self, _index: usize, _game: &mut G) {}
}

/// A deterministic game, as the rollback netcode layer needs it.
///
/// Implementations must keep the contract in the crate documentation; the [`conformance`]
/// checks are the executable part of it, and a game's own tests should run them.
pub trait Game: Clone + Debug + Sized + 'static {
    /// The game's name, written into logs and compared at the handshake: a log or a peer of
    /// another game is refused by name. Lower case, no spaces.
    const NAME: &'static str;
    /// The version of the game's simulation code; peers of different versions do not play.
    const VERSION: &'static str;
    /// The version of the snapshot encoding ([`Game::snapshot_to_bytes`]).
    const SNAPSHOT_FORMAT: u32;
    /// The largest snapshot encoding accepted from a file or a peer.
    const MAX_SNAPSHOT_BYTES: u64;
    /// The most players a game holds.
    const MAX_PLAYERS: usize;
    /// The phases of a step, in the order [`Game::step_observed`] runs them. The order is part
    /// of the rules. At most [`MAX_PHASES`].
    const PHASES: &'static [Self::Phase];

    /// One player's input for one tick: intent only, `Copy`, small and bounded on the wire
    /// (GGRS sends it with bincode). Every value is valid (the step sanitizes); `Default` is
    /// "no input".
    type Input: Copy
        + Debug
        + Default
        + PartialEq
        + Eq
        + Hash
        + Serialize
        + DeserializeOwned
        + Send
        + Sync
        + 'static;
    /// The tuning the simulation runs under; peers prove they agree on it by its hash.
    type Rules: Clone + Debug + PartialEq + Send + Sync + 'static;
    /// Every field that can change a future tick. Its serde form is what the field-by-field
    /// diff of the desync tools walks.
    type Snapshot: Clone + Debug + PartialEq + Serialize + DeserializeOwned + Send + Sync + 'static;
    /// Something that happened in a step, for presentation (sounds, effects, the journal).
    type Event: Clone + Debug + PartialEq + Send + Sync + 'static;
    /// What of a step's events a match log keeps and a replay must reproduce exactly (the
    /// duel's rail shots, as judged; the ring race's coins taken): logged per tick, compared
    /// field for field when a log is verified. Keep it small: most ticks audit nothing.
    type Audit: Clone + Debug + PartialEq + Serialize + DeserializeOwned + Send + Sync + 'static;
    /// An event's stable identity (tick, kind, ids): equal keys are the same happening even if a
    /// re-simulation changed a detail.
    type EventKey: Copy + Debug + Eq + Ord + Hash + Send + Sync + 'static;
    /// The sectioned state hash.
    type Hash: SectionHash;
    /// A phase of the step.
    type Phase: Copy + Debug + Eq + Send + Sync + 'static;
    /// What the game refuses (bad rules, a wrong player count, corrupt snapshot bytes).
    type Error: std::error::Error + Send + Sync + 'static;

    /// A new match of `players` players under `rules`, seeded by `seed`.
    ///
    /// # Errors
    /// Rules out of range, an unsupported player count.
    fn new(rules: Self::Rules, seed: u64, players: usize) -> Result<Self, Self::Error>;

    /// A fresh game in the state `snapshot` holds.
    ///
    /// # Errors
    /// A snapshot that is inconsistent or was taken under other rules.
    fn from_snapshot(rules: Self::Rules, snapshot: &Self::Snapshot) -> Result<Self, Self::Error>;

    /// Puts this game in the state `snapshot` holds; afterwards it behaves exactly as
    /// [`Game::from_snapshot`] would.
    ///
    /// # Errors
    /// As [`Game::from_snapshot`]; the game is then unchanged.
    fn restore(&mut self, snapshot: &Self::Snapshot) -> Result<(), Self::Error>;

    /// [`Game::restore`] of a state this game saved itself ([`Game::save_into`] or
    /// [`Game::snapshot`]) under its rules, and that nothing changed since: a rollback's load
    /// of its own history, once a frame. The game was in that very state and stepped on from
    /// it, so a game may skip checking it again; anything from outside (a file, a peer) goes
    /// through [`Game::restore`]. The default is [`Game::restore`].
    ///
    /// # Errors
    /// As [`Game::restore`]; a game that skips the checks may then not notice a snapshot
    /// that breaks its invariants.
    fn restore_saved(&mut self, snapshot: &Self::Snapshot) -> Result<(), Self::Error> {
        self.restore(snapshot)
    }

    /// Writes the current state into `out`, reusing its buffers (a rollback saves every
    /// frame: this must not allocate once `out` has grown to the match's size).
    fn save_into(&self, out: &mut Self::Snapshot);

    /// The current state as a new snapshot.
    fn snapshot(&self) -> Self::Snapshot;

    /// Whether the current state is exactly the one `snapshot` holds (what
    /// `self.snapshot() == *snapshot` says), told without copying the state. A sync test asks
    /// this of every re-simulated tick, to spare copying a state it already holds. `false`
    /// means "not known to be equal": the default always says so, and callers then copy and
    /// compare as they would without it. Never `true` for another state.
    fn state_equals(&self, snapshot: &Self::Snapshot) -> bool {
        let _ = snapshot;
        false
    }

    /// The tick the next step simulates.
    fn tick(&self) -> Tick;

    /// The seed the match was created with ([`Game::new`]'s): part of the state, so a game
    /// restored from a snapshot gives the seed of the match the snapshot is of. Logs record it
    /// as part of the match's identity.
    fn seed(&self) -> u64;

    /// Number of players (one input each per step).
    fn player_count(&self) -> usize;

    /// The rules this game plays.
    fn rules(&self) -> &Self::Rules;

    /// The hash of the current state, whole and by section.
    fn state_hash(&self) -> Self::Hash;

    /// Simulates tick [`Game::tick`] with one input per player (slot order), running
    /// [`Game::PHASES`] in order and calling `observer` after each, then advances the tick.
    /// Returns the step's events.
    ///
    /// # Errors
    /// A wrong number of inputs, or the last tick a [`Tick`] can count. The game is then
    /// unchanged.
    fn step_observed<O: StepObserver<Self>>(
        &mut self,
        inputs: &[Self::Input],
        observer: &mut O,
    ) -> Result<&[Self::Event], Self::Error>;

    /// [`Game::step_observed`] with no observer.
    ///
    /// # Errors
    /// As [`Game::step_observed`].
    #[inline]
    fn step(&mut self, inputs: &[Self::Input]) -> Result<&[Self::Event], Self::Error> {
        self.step_observed(inputs, &mut ())
    }

    /// The test hook of the desync tools, never used in play: the smallest change to the state
    /// a desync finder must notice (one bit of one player's position, say). Tools inject it
    /// after one phase to prove a desync is found and named, down to that phase and field.
    fn debug_perturb(&mut self);

    /// The name of `phase` as tools print it (`aim-and-fire`).
    fn phase_name(phase: Self::Phase) -> &'static str;

    /// The stable key of `event`.
    fn event_key(event: &Self::Event) -> Self::EventKey;

    /// The tick `event` belongs to (as its key holds it): the prediction journal keeps a
    /// presented event until this tick is final, and re-judges it when a rollback re-simulates
    /// from this tick or earlier.
    fn event_tick(event: &Self::Event) -> Tick;

    /// Appends to `out` what of `events` (one step's, in order) is audited: the events a replay
    /// must reproduce exactly, logged per tick ([`Game::Audit`]). Deterministic: the same
    /// events give the same audit. `out` is the caller's, reused (no allocation once warm).
    fn audit(events: &[Self::Event], out: &mut Vec<Self::Audit>);

    /// The rules' canonical bytes: equal rules, equal bytes, on every platform.
    fn rules_to_bytes(rules: &Self::Rules) -> Vec<u8>;

    /// Reads [`Game::rules_to_bytes`] from an untrusted peer or file; `None` unless `bytes`
    /// are exactly the encoding of valid rules.
    fn rules_from_bytes(bytes: &[u8]) -> Option<Self::Rules>;

    /// The 64-bit hash of the rules peers compare at the handshake.
    fn rules_hash(rules: &Self::Rules) -> u64;

    /// The rules in which `ours` and `theirs` differ, as `(name, ours, theirs)`, so that a
    /// handshake refused for other rules can say which. The default names none (a refusal
    /// then shows the two rules hashes only).
    fn rules_differences(
        ours: &Self::Rules,
        theirs: &Self::Rules,
    ) -> Vec<(&'static str, String, String)> {
        let _ = (ours, theirs);
        Vec::new()
    }

    /// The tick of the state `snapshot` holds (a game restored from it is at this tick).
    fn snapshot_tick(snapshot: &Self::Snapshot) -> Tick;

    /// The hash of the state `snapshot` holds, without a game: equal to [`Game::state_hash`]
    /// of a game restored from it. Log readers check a checkpoint or a transferred state
    /// against the hash a record names with it.
    fn snapshot_hash(snapshot: &Self::Snapshot) -> Self::Hash;

    /// The snapshot's canonical bytes (format [`Game::SNAPSHOT_FORMAT`]), for dumps, logs'
    /// checkpoints and snapshot transfers.
    fn snapshot_to_bytes(snapshot: &Self::Snapshot) -> Vec<u8>;

    /// Reads [`Game::snapshot_to_bytes`] from an untrusted file or peer, with the size limit
    /// [`Game::MAX_SNAPSHOT_BYTES`].
    ///
    /// # Errors
    /// Another format version, bytes that do not decode, an impossible state.
    fn snapshot_from_bytes(bytes: &[u8]) -> Result<Self::Snapshot, Self::Error>;

    /// The index of `phase` in [`Game::PHASES`].
    #[must_use]
    fn phase_index(phase: Self::Phase) -> Option<usize> {
        Self::PHASES.iter().position(|&p| p == phase)
    }

    /// The phase named `name` (as [`Game::phase_name`] prints it).
    #[must_use]
    fn phase_named(name: &str) -> Option<Self::Phase> {
        Self::PHASES
            .iter()
            .copied()
            .find(|&p| Self::phase_name(p) == name)
    }

    /// [`Game::step`], also hashing the state right after every phase into `trace`. The state
    /// and events that come out are those of [`Game::step`].
    ///
    /// # Errors
    /// As [`Game::step`]; `trace` is then left as it was.
    fn step_traced(
        &mut self,
        inputs: &[Self::Input],
        trace: &mut PhaseHashes<Self::Hash>,
    ) -> Result<&[Self::Event], Self::Error> {
        let mut tracer = PhaseTracer::new(self.tick());
        // The events borrow `self`; the trace is copied out first.
        self.step_observed(inputs, &mut tracer)?;
        *trace = tracer.finish();
        Ok(self.last_events())
    }

    /// The events of the last step (empty before the first).
    fn last_events(&self) -> &[Self::Event];
}
