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

/// Test support: the match log of a 2-player bot match of `ticks` ticks (default rules, match
/// seed `seed`, bot seed `seed + 1`), written to a scratch folder named for `name` and read
/// back. The folder is the caller's to remove.
#[cfg(test)]
pub(crate) fn logged_bot_match(
    name: &str,
    seed: u64,
    ticks: engine::Tick,
) -> (
    std::path::PathBuf,
    crate::logs::matchlog::MatchLog<engine::World>,
) {
    let dir = std::env::temp_dir().join(format!("{name}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("scratch folder");
    let path = dir.join("bots.mlog");
    run_bot_match(&BotMatch {
        rules: engine::Rules::default(),
        seed,
        bot_seed: seed + 1,
        players: 2,
        ticks,
        stop_at_match_end: false,
        hash_log: None,
        match_log: Some(path.clone()),
    })
    .expect("bot match");
    let log = crate::logs::matchlog::read_log(&path).expect("log");
    (dir, log)
}
