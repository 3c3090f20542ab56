//! Desync forensics: what a peer leaves behind when a desync is detected, and the tools' reading
//! of it.
//!
//! - [`DesyncNotice`]: what a peer prints at detection (tick, both checksums, dumps, the command
//!   to run next).
//! - [`PhaseTrace`] (`.phases` files): the inputs of the step to a dumped tick and the state
//!   hash after each of `engine::STEP_PHASES`. Both peers held the same state before the first
//!   divergent tick, so the first phase whose hashes differ between their files is where the
//!   divergence began; equal phase hashes with different inputs point at input delivery instead.
//! - [`dumps`]: finding dump files, reading snapshots and states from dumps or match logs, within
//!   limits.
//! - The verdicts ([`phase_verdict`], [`inputs_agree`], [`first_unfollowed_tick`], [`retrace`]).
//! - [`fielddiff`]: field-level differences between two snapshots.

pub mod dumps;
pub mod fielddiff;
mod notice;
mod phase_trace;
mod verdict;

pub use notice::DesyncNotice;
pub use phase_trace::{describe_input, read_phase_trace, write_phase_trace, PhaseTrace};
pub use verdict::{first_unfollowed_tick, inputs_agree, phase_verdict, retrace};
