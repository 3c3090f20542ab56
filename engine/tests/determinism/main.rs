//! Determinism harness: restore/replay equivalence, the snapshot closure field by field, golden
//! hashes, input validation and the step order.

mod bots;
mod clearance;
mod closure;
mod common;
mod counter_limits;
mod fight;
mod golden;
mod impacts;
mod inputs;
mod invariants;
mod phase_trace;
mod rail;
mod rematch;
mod restore_replay;
mod round_end;
mod rules_extremes;
mod snapshot_check;
mod step_order;
mod timers;
mod wall_counts;
