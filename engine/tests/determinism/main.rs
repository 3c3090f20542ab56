//! Determinism harness: restore/replay equivalence, the snapshot closure field by field, golden
//! hashes, input validation and the step order.

mod closure;
mod common;
mod golden;
mod inputs;
mod invariants;
mod rail;
mod restore_replay;
mod step_order;
