//! Spectators keep watching when the players go on in a new epoch: a spectator of the start
//! (in the host's first GGRS session, which a new epoch replaces) and one that joined late
//! both follow the host across a resync, their hash logs the players' line for line with the
//! epoch marked where the players mark it, and their match logs verify through it.

use crate::common::*;
use client::logs::hashlog::read_hash_log_file;
use client::logs::matchlog::read_log;
use client::logs::replay::verify;
use client::net::wire::Role;
use client::session::netplay::NetConfig;
use engine::World;
use std::path::Path;
use std::time::{Duration, Instant};

const TICKS: u32 = 2400;
/// The joiner's step to this tick is nudged: a desync, then a resync into epoch 2.
const FAULT: u32 = 1500;

fn fast() -> NetConfig<World> {
    NetConfig::<World> {
        fps: 240,
        spectators: 1,
        ..test_config(Default::default())
    }
}

fn fast_plan(bot: u64, log: &Path) -> client::runs::NetRun {
    client::runs::NetRun {
        fps: 240,
        match_log: Some(log.with_extension("mlog")),
        ..plan(TICKS, bot, log)
    }
}

/// Waits until the hash log at `path` holds `tick`; a guard against hanging, not a measure.
fn wait_for_tick(path: &Path, tick: u32) {
    let guard = Instant::now() + Duration::from_secs(120);
    while read_hash_log_file::<engine::World>(path).map_or(0, |l| l.entries.len()) < tick as usize {
        assert!(Instant::now() < guard, "the match never reaches {tick}");
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[test]
fn spectators_of_the_start_and_late_ones_follow_the_players_through_a_resync() {
    let dir = scratch_dir("spectators-across-epochs");
    let paths: Vec<_> = ["host", "join", "start", "late"]
        .iter()
        .map(|n| dir.join(format!("{n}.log")))
        .collect();
    let (addr, host) = spawn_loopback_host(fast(), fast_plan(1, &paths[0]));
    let mut join_plan = fast_plan(2, &paths[1]);
    join_plan.inject_desync = Some(FAULT);
    let joiner = spawn_loopback_joiner(addr, Role::Player, fast(), join_plan);
    let start = spawn_loopback_joiner(addr, Role::Spectator, fast(), fast_plan(3, &paths[2]));
    wait_for_tick(&paths[0], 300);
    let late = spawn_loopback_joiner(addr, Role::Spectator, fast(), fast_plan(4, &paths[3]));
    let summaries: Vec<_> = [host, joiner, start, late]
        .into_iter()
        .map(|t| t.join().expect("thread").expect("run"))
        .collect();
    for s in &summaries {
        println!("{s}");
        assert_eq!(s.ticks, TICKS);
        assert_eq!(s.final_hash, summaries[0].final_hash);
    }
    assert_eq!(summaries[0].resyncs.len(), 1, "one resync");
    let (_, resumed) = summaries[0].resyncs[0];
    assert_eq!((summaries[2].desyncs, summaries[3].desyncs), (0, 0));

    let players = read_hash_log_file::<engine::World>(&paths[0]).expect("host hash log");
    assert_eq!(players.epochs, vec![(2, resumed)]);
    for (name, path) in [("start", &paths[2]), ("late", &paths[3])] {
        let watched = read_hash_log_file::<engine::World>(path).expect("spectator hash log");
        let first = watched.entries.first().expect("lines").tick;
        assert!(
            first < resumed,
            "{name} watched from tick {first}, before the resync"
        );
        assert_eq!(
            watched.entries.len(),
            (TICKS + 1 - first) as usize,
            "{name}"
        );
        for e in &watched.entries {
            assert_eq!(
                *e,
                players.entries[e.tick as usize - 1],
                "{name}: tick {}",
                e.tick
            );
        }
        assert_eq!(watched.epochs, players.epochs, "{name} marks the new epoch");
        let log =
            read_log::<engine::World>(&path.with_extension("mlog")).expect("spectator match log");
        let epochs: Vec<_> = log.epochs.iter().map(|e| (e.epoch, e.tick)).collect();
        assert_eq!(epochs, vec![(2, resumed)], "{name}");
        assert_eq!(verify(&log, None).expect("verifies").ticks, TICKS, "{name}");
    }
    let start = read_hash_log_file::<engine::World>(&paths[2]).expect("reads");
    assert_eq!(
        start.entries.first().map(|e| e.tick),
        Some(1),
        "from the start"
    );
}
