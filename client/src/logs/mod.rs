//! What a match leaves on disk and how it is read back: per-tick hash logs, the durable match log
//! format, the logs a networked peer keeps of its final ticks, and re-simulation of match logs
//! (verification, replays, resuming after a crash).
//!
//! Everything but [`peer_logs`] (which follows the duel's networked peer) is generic over the
//! game ([`game_api::Game`]): each log names its game, and is refused when read as another.

pub mod hashlog;
pub mod matchlog;
pub mod peer_logs;
pub mod replay;
pub mod tick_logs;
