//! Desync forensics: what a peer leaves behind when a desync is detected, and the tools' reading
//! of it. Everything here is generic over the game ([`game_api::Game`]): the duel and the ring
//! race leave the same kinds of files and are read by the same code.
//!
//! - [`DesyncNotice`]: what a peer prints at detection (tick, both checksums, dumps, the command
//!   to run next).
//! - [`PhaseTrace`] (`.phases` files): the inputs of the step to a dumped tick and the state
//!   hash after each of the game's `Game::PHASES`. Both peers held the same state before the first
//!   divergent tick, so the first phase whose hashes differ between their files is where the
//!   divergence began; equal phase hashes with different inputs point at input delivery instead.
//! - [`dumps`]: finding dump files, reading snapshots and states from dumps or match logs, within
//!   limits.
//! - The verdicts ([`phase_verdict`], [`inputs_agree`], [`first_unfollowed_tick`], [`retrace`]).
//! - [`fielddiff`]: field-level differences between two snapshots.
//! - [`desync_report`]: all of the above for two peers' files, as a tool prints it.

pub mod dumps;
pub mod fielddiff;
mod notice;
mod phase_trace;
mod report;
mod verdict;

pub use notice::DesyncNotice;
pub use phase_trace::{describe_input, read_phase_trace, write_phase_trace, PhaseTrace};
pub use report::{desync_report, PeerFiles};
pub use verdict::{first_unfollowed_tick, inputs_agree, phase_verdict, retrace};
