//! Cross-crate scenarios: the client's layers around the engine (headless runner, GGRS sync
//! test with a rollback every frame, match log and replay) reproduce exactly the states of a
//! plain engine loop fed the same inputs.

use client::logs::hashlog::read_hash_log;
use client::logs::matchlog::read_log;
use client::logs::replay::{verify, Replay};
use client::runs::{run_bot_match, BotMatch};
use client::session::synctest::{run_sync_test, SyncTest};
use engine::{Bot, InputCmd, Rules, StateHash, World};

fn scratch(name: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("duel-cross-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("dir");
    dir
}

/// The plain loop: the same bots `client` uses for a bot match (slot p seeded
/// `splitmix64(bot_seed ^ p)`), every tick's hash.
fn plain_run(seed: u64, bot_seed: u64, ticks: u32) -> Vec<StateHash> {
    let mut world = World::new(Rules::default(), seed, 2).expect("world");
    let mut bots: Vec<Bot> = (0..2u8)
        .map(|p| Bot::new(p, engine::splitmix64(bot_seed ^ u64::from(p))))
        .collect();
    let mut hashes = Vec::new();
    let mut inputs: Vec<InputCmd> = Vec::new();
    for _ in 0..ticks {
        inputs.clear();
        inputs.extend(bots.iter_mut().map(|b| b.think(&world)));
        world.step(&inputs).expect("step");
        hashes.push(world.state_hash());
    }
    hashes
}

#[test]
fn headless_runner_and_match_log_reproduce_the_plain_loop() {
    let dir = scratch("runner");
    let ticks = 2500;
    let summary = run_bot_match(&BotMatch {
        rules: Rules::default(),
        seed: 21,
        bot_seed: 22,
        players: 2,
        ticks,
        stop_at_match_end: false,
        hash_log: Some(dir.join("run.hashlog")),
        match_log: Some(dir.join("run.log")),
    })
    .expect("bot match");
    let plain = plain_run(21, 22, ticks);
    let logged: Vec<StateHash> = read_hash_log::<World>(&dir.join("run.hashlog"))
        .expect("hash log")
        .iter()
        .map(|e| e.hash)
        .collect();
    assert_eq!(logged, plain);
    assert_eq!(summary.final_hash, *plain.last().expect("ticks"));
    let log = read_log::<World>(&dir.join("run.log")).expect("match log");
    verify(&log, None).expect("verifies");
    let mut replay = Replay::new(log).expect("replay");
    for target in [1234, 300, ticks, 1] {
        replay.seek(target).expect("seek");
        assert_eq!(
            replay.world().state_hash(),
            plain[target as usize - 1],
            "seek to {target}"
        );
    }
}

/// The GGRS sync test's bots are seeded directly (`bot_seed`, `splitmix64(bot_seed)`); with a
/// rollback of 7 frames on every frame it must end where a plain loop with those bots ends.
#[test]
fn rolling_back_every_frame_changes_nothing() {
    let dir = scratch("synctest");
    let ticks = 3000;
    let summary = run_sync_test(&SyncTest {
        rules: Rules::default(),
        seed: 5,
        bot_seed: 6,
        check_distance: 7,
        ticks,
        dump_dir: dir.join("dump"),
        hash_log: Some(dir.join("sync.hashlog")),
        inject: None,
        inject_after: None,
    })
    .expect("sync test");
    let mut world = World::new(Rules::default(), 5, 2).expect("world");
    let mut bots = [Bot::new(0, 6), Bot::new(1, engine::splitmix64(6))];
    for _ in 0..ticks {
        let inputs = [bots[0].think(&world), bots[1].think(&world)];
        world.step(&inputs).expect("step");
    }
    assert_eq!(summary.final_hash, world.state_hash());
    assert_eq!(summary.rollbacks, u64::from(ticks) - 8);
}
