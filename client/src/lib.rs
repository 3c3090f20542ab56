//! What a playing peer needs around the deterministic core: GGRS sessions (sync test, two-peer
//! P2P over UDP, spectators) behind a handshake, a link conditioner, per-tick hash logs,
//! headless runs, and rules files.
#![forbid(unsafe_code)]
#![deny(missing_docs)]

pub mod conditioner;
mod config;
pub mod driver;
mod error;
pub mod fielddiff;
pub mod forensics;
pub mod ggrs_message;
pub mod handshake;
pub mod hashlog;
mod headless;
pub mod journal;
pub mod matchlog;
pub mod netplay;
mod netrun;
pub mod pacing;
pub mod peer_logs;
pub mod rail_fairness;
pub mod remote_view;
pub mod replay;
mod rules_file;
pub mod socket;
pub mod stats;
pub mod synctest;
pub mod tick_logs;
pub mod transport;
pub mod wire;

pub use config::GgrsConfig;
pub use driver::Driver;
pub use error::Error;
pub use headless::{
    resume_bot_match, resume_logged_bot_match, run_bot_match, BotMatch, BotMatchSummary, Resume,
    ResumeSummary,
};
pub use netplay::{Advance, NetConfig, NetEvent, NetPeer};
pub use netrun::{run_net_peer, NetRun, NetRunSummary};
pub use peer_logs::dumps_next_to;
pub use rules_file::load_rules;
