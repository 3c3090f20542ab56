//! What a match leaves on disk and how it is read back: per-tick hash logs, the durable match log
//! format, the logs a networked peer keeps of its final ticks, and re-simulation of match logs
//! (verification, replays, resuming after a crash).

pub mod hashlog;
pub mod matchlog;
pub mod peer_logs;
pub mod replay;
pub mod tick_logs;
