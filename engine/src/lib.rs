//! The deterministic core of the maze duel: a fixed-point simulation whose snapshot is the
//! complete closure of its future.
//!
//! - [`World`] steps at a fixed 60 Hz from one [`InputCmd`] per player (intent only: buttons and
//!   a stick), in the phase order of [`STEP_PHASES`], and reports the tick's [`Event`]s.
//! - [`WorldSnapshot`] holds every field that can change a future tick. Restoring it into a
//!   fresh `World` and replaying the same inputs gives bit-identical states.
//! - [`StateHash`] is xxh3 over the canonical little-endian encoding of a state, whole and per
//!   section, for desync detection.
//! - [`Rules`] is the tuning, loadable from TOML and hashed so peers can prove they agree.
//!
//! The simulation computes with [`Fx`] (16.16 fixed point, panicking on overflow in every build
//! profile) and integers only; it reads no clock, file, socket or ambient RNG, and iterates only
//! `Vec`s in a defined order.
//!
//! # Quick start
//! ```
//! use engine::{InputCmd, Rules, World, buttons};
//!
//! let mut world = World::new(Rules::default(), 42, 2)?;
//! let rollback_point = world.snapshot();
//! for tick in 0..120 {
//!     let shoot = InputCmd { buttons: buttons::SHOOT, move_x: 127, ..InputCmd::idle(tick) };
//!     world.step(&[shoot, InputCmd::idle(tick)])?;
//! }
//! // Roll back: a fresh world restored from the snapshot replays to the same state.
//! let mut replay = World::from_snapshot(Rules::default(), &rollback_point)?;
//! for tick in 0..120 {
//!     let shoot = InputCmd { buttons: buttons::SHOOT, move_x: 127, ..InputCmd::idle(tick) };
//!     replay.step(&[shoot, InputCmd::idle(tick)])?;
//! }
//! assert_eq!(replay.state_hash(), world.state_hash());
//! # Ok::<(), engine::Error>(())
//! ```
#![forbid(unsafe_code)]
#![deny(missing_docs)]
#![deny(clippy::float_arithmetic)]

// The hash reads the projectiles and pose samples in memory as their canonical little-endian
// bytes (`hash.rs`); on a big-endian machine those bytes would differ from every other peer's.
#[cfg(target_endian = "big")]
compile_error!("the engine's state hash reads its records' memory as little-endian bytes");

#[doc(hidden)]
pub mod bench_support;
mod bot;
mod clearance;
mod error;
mod event;
mod fx;
mod game;
mod geom;
mod hash;
mod input;
mod maze;
mod movement;
mod player;
mod pose_history;
mod projectile;
mod rail;
mod rng;
mod round;
mod rules;
mod saved;
mod snapshot;
mod step;
mod world;

/// A simulation tick: the number of steps taken since the match began (60 per second).
pub use game_api::Tick;

/// Version of this engine crate, exchanged at the handshake.
pub const ENGINE_VERSION: &str = env!("CARGO_PKG_VERSION");

/// Simulation rate in ticks per second.
pub const TICKS_PER_SECOND: u32 = 60;

pub use bot::{stick_towards, Bot, Difficulty, Skill};
pub use error::Error;
pub use event::{Event, EventKey, EventKind, HitSource};
pub use fx::{fx_bits, fx_int, tile_of, Fx, FxVec};
pub use game_api::{Game, SectionHash};
pub use hash::{Section, StateHash};
pub use input::{buttons, InputCmd, WireInput, STICK_MAX};
pub use maze::{Maze, Tile};
pub use player::{Action, Player, PlayerId, PlayerStats, MAX_PLAYERS};
pub use pose_history::{
    lerp_fx, pose_flags, HitboxHistory, PoseHistory, PoseSample, RewoundPose, ViewClamp, ViewTime,
    VIEW_FRAC_UNITS,
};
pub use projectile::{Projectile, ProjectileId};
pub use rail::{ShotOutcome, ShotRecord, ShotTarget};
pub use rng::{splitmix64, DetRng};
pub use round::{RoundPhase, RoundState};
pub use rules::Rules;
pub use saved::SavedWorld;
pub use snapshot::{WorldSnapshot, MAX_SNAPSHOT_BYTES, SNAPSHOT_FORMAT_VERSION};
pub use step::{Phase, PhaseHashes, STEP_PHASES};
pub use world::World;
