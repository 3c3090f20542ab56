//! Headless runs, the work behind the command-line tools: bot matches (and their resumption from
//! a match log), networked peers driven by bots to a number of final ticks, and the rail
//! fairness measurement.

mod headless;
mod netrun;
pub mod rail_fairness;

pub use headless::{
    resume_bot_match, resume_logged_bot_match, run_bot_match, BotMatch, BotMatchSummary, Resume,
    ResumeSummary, MAX_TICKS,
};
pub use netrun::{
    rejoin_from_log, rejoin_logged_match, rejoin_peer, run_net_peer, run_with_logs, NetRun,
    NetRunSummary, RejoinFromLog,
};
