//! The prediction journal keeps presentation true to history: through a rough link (many
//! rollbacks), the events a peer ends up presenting — plays, minus retractions, with
//! corrections applied — are exactly the events of the confirmed match, re-simulated from the
//! match log.

use crate::common::*;
use client::journal::{JournalAction, PredictionJournal};
use client::matchlog::read_log;
use client::peer_logs::{LogPaths, PeerLogs};
use client::replay::Replay;
use client::wire::Role;
use client::NetPeer;
use engine::{Bot, Event};
use std::time::{Duration, Instant};

#[test]
fn presented_events_equal_the_confirmed_history() {
    let dir = scratch_dir("journal");
    let ticks = 900;
    let (addr, host) = spawn_host(
        || loopback_link(rough_link(7)),
        test_config(rough_link(7)),
        plan(ticks + 200, 1, &dir.join("host.log")),
    );
    let log_path = dir.join("join.duellog");
    let config = test_config(rough_link(8));
    let mut peer =
        NetPeer::join_on(loopback_link(rough_link(8)), addr, Role::Player, &config).expect("join");
    let paths = LogPaths {
        hash_log: None,
        match_log: Some(log_path.clone()),
        dump_dir: None,
    };
    let mut logs = PeerLogs::open(&peer, &paths, None).expect("logs");
    let mut journal = PredictionJournal::new();
    let mut presented: Vec<Event> = Vec::new();
    let mut bot = Bot::new(1, 3);
    let (mut corrections, mut retractions) = (0, 0);
    let deadline = Instant::now() + Duration::from_secs(120);
    while peer.final_tick() < ticks && Instant::now() < deadline {
        peer.poll();
        peer.advance(bot.think(peer.world()).to_wire())
            .expect("advance");
        let driver = peer.driver();
        for action in journal.reconcile(
            driver.events(),
            driver.resimulated_from(),
            peer.final_tick(),
        ) {
            match action {
                JournalAction::Play(e) => presented.push(e),
                JournalAction::Correct { old, new } => {
                    corrections += 1;
                    let at = presented
                        .iter()
                        .position(|p| *p == old)
                        .expect("corrects a presented event");
                    presented[at] = new;
                }
                JournalAction::Retract(e) => {
                    retractions += 1;
                    let at = presented
                        .iter()
                        .position(|p| *p == e)
                        .expect("retracts a presented event");
                    presented.remove(at);
                }
            }
        }
        logs.catch_up(&peer, ticks).expect("log");
        std::thread::sleep(Duration::from_millis(16));
    }
    logs.close(false).expect("close");
    let final_tick = peer.final_tick().min(ticks);
    assert!(
        peer.driver().counters().rollbacks > 20,
        "the link forced rollbacks"
    );
    println!(
        "rollbacks {} corrections {corrections} retractions {retractions}",
        peer.driver().counters().rollbacks
    );
    drop(peer); // the host notices, ends on its own
    let _ = host.join();

    // The truth: re-simulate the confirmed match from the log and collect its events.
    let log = read_log(&log_path).expect("log");
    // The peer logged each final tick's rail shots (re-stepped from its history) exactly as a
    // re-simulation judges them.
    client::replay::verify(&log, None).expect("the networked log verifies, rail shots included");
    let logged_shots: usize = log.ticks.iter().map(|t| t.shots.len()).sum();
    assert!(logged_shots > 0, "the bots' rail shots are in the log");
    let mut replay = Replay::new(log).expect("replay");
    let mut truth = Vec::new();
    while replay.world().tick() < final_tick {
        assert!(replay.step().expect("replays"));
        truth.extend_from_slice(replay.world().events());
    }
    let mut shown: Vec<Event> = presented
        .into_iter()
        .filter(|e| e.tick < final_tick)
        .collect();
    let key = |e: &Event| e.key();
    shown.sort_by_key(key);
    truth.sort_by_key(key);
    assert_eq!(
        shown.len(),
        truth.len(),
        "as many happenings shown as happened"
    );
    assert_eq!(shown, truth, "and exactly those");
}
