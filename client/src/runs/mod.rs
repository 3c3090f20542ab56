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

/// Test support: a host on `host` (which must be at `127.0.0.1:1`) and a player joined from
/// `joiner`, both handed over; fails after 10 s of wall time (a guard against hanging, not a
/// measure: a lossless network needs no waiting).
#[cfg(test)]
pub(crate) fn connected_pair_over(
    host: impl crate::net::transport::Transport + 'static,
    joiner: impl crate::net::transport::Transport + 'static,
    config: &crate::session::netplay::NetConfig<engine::World>,
) -> (
    crate::session::netplay::NetPeer<engine::World>,
    crate::session::netplay::NetPeer<engine::World>,
) {
    use crate::net::socket::Link;
    use crate::session::connecting::Connecting;
    use std::time::{Duration, Instant};
    let host_addr = std::net::SocketAddr::from(([127, 0, 0, 1], 1));
    let mut sides = [
        Connecting::host(Link::new(host), config),
        Connecting::join(
            Link::new(joiner),
            host_addr,
            crate::net::wire::Role::Player,
            config,
        ),
    ];
    let mut peers: [Option<crate::session::netplay::NetPeer<engine::World>>; 2] = [None, None];
    let guard = Instant::now() + Duration::from_secs(10);
    while peers.iter().any(Option::is_none) {
        for (side, peer) in sides.iter_mut().zip(&mut peers) {
            match peer {
                // A host hands over once it heard input: the handed-over side plays.
                Some(p) => drop(p.advance(engine::WireInput::default())),
                None => *peer = side.poll().expect("connects"),
            }
        }
        assert!(Instant::now() < guard, "not connected");
        std::thread::sleep(Duration::from_millis(1));
    }
    let [host, joiner] = peers;
    (host.expect("host"), joiner.expect("joiner"))
}
