//! A spectator may join at any time: one that arrives at tick 1500 of a running match is
//! caught up by snapshot, follows the relayed confirmed inputs, and its hash log is the
//! players' line for line from the tick it joined; its match log starts with a checkpoint
//! there and verifies.

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

/// Four times real time, so the match is long but the test is not.
fn fast() -> NetConfig<World> {
    NetConfig::<World> {
        fps: 240,
        ..test_config(Default::default())
    }
}

fn fast_plan(bot: u64, log: &Path) -> client::runs::NetRun {
    client::runs::NetRun {
        fps: 240,
        ..plan(TICKS, bot, log)
    }
}

/// Waits until the hash log at `path` holds `tick` (it reaches the disk at least once a
/// second); a guard against hanging, not a measure.
fn wait_for_tick(path: &Path, tick: u32) {
    let guard = Instant::now() + Duration::from_secs(120);
    loop {
        let held = read_hash_log_file::<engine::World>(path).map_or(0, |l| l.entries.len());
        if held >= tick as usize {
            return;
        }
        assert!(
            Instant::now() < guard,
            "the match never reaches tick {tick}"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[test]
fn a_spectator_joining_at_tick_1500_follows_and_its_hash_log_is_the_players_from_its_join() {
    let dir = scratch_dir("late-spectator");
    let (h, j, s) = (
        dir.join("host.log"),
        dir.join("join.log"),
        dir.join("spect.log"),
    );
    let (addr, host) = spawn_loopback_host(fast(), fast_plan(1, &h));
    let joiner = spawn_loopback_joiner(addr, Role::Player, fast(), fast_plan(2, &j));
    wait_for_tick(&h, 1500);
    let mut spect_plan = fast_plan(3, &s);
    spect_plan.match_log = Some(dir.join("spect.mlog"));
    let spectator = spawn_loopback_joiner(addr, Role::Spectator, fast(), spect_plan);
    let host = host.join().expect("host thread").expect("host run");
    let joiner = joiner.join().expect("joiner thread").expect("joiner run");
    let spectator = spectator
        .join()
        .expect("spectator thread")
        .expect("spectator run");
    println!("{host}\n{joiner}\n{spectator}");
    assert_eq!(
        (host.ticks, joiner.ticks, spectator.ticks),
        (TICKS, TICKS, TICKS)
    );
    assert_eq!(spectator.final_hash, host.final_hash);
    assert_eq!(spectator.desyncs, 0);

    let players = read_hash_log_file::<engine::World>(&h).expect("host hash log");
    assert_eq!(
        players.entries,
        read_hash_log_file::<engine::World>(&j)
            .expect("join")
            .entries
    );
    let watched = read_hash_log_file::<engine::World>(&s).expect("spectator hash log");
    let joined_at = watched.entries.first().expect("lines").tick - 1;
    assert!(joined_at >= 1500, "joined at tick {joined_at}");
    assert_eq!(watched.entries.len(), (TICKS - joined_at) as usize);
    for e in &watched.entries {
        assert_eq!(*e, players.entries[e.tick as usize - 1], "tick {}", e.tick);
    }

    let log = read_log::<engine::World>(&dir.join("spect.mlog")).expect("spectator match log");
    assert_eq!(log.checkpoints.first().map(|c| c.0), Some(joined_at));
    let report = verify(&log, None).expect("the spectator's log verifies from its join tick");
    assert_eq!(report.ticks, TICKS);
}
