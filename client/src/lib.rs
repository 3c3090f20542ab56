//! What a playing peer needs around the deterministic core: GGRS sessions (sync test, two-peer
//! P2P over UDP, spectators) behind a handshake, a link conditioner, per-tick hash logs,
//! headless runs, and rules files.
#![forbid(unsafe_code)]
#![deny(missing_docs)]

pub mod conditioner;
mod config;
pub mod driver;
mod error;
pub mod handshake;
pub mod hashlog;
mod headless;
pub mod netplay;
pub mod pacing;
mod rules_file;
pub mod socket;
pub mod stats;
pub mod synctest;
pub mod transport;
pub mod wire;

pub use config::GgrsConfig;
pub use driver::Driver;
pub use error::Error;
pub use headless::{run_bot_match, run_net_peer, BotMatch, BotMatchSummary, NetRun, NetRunSummary};
pub use netplay::{Advance, NetConfig, NetEvent, NetPeer};
pub use rules_file::load_rules;
