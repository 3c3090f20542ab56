//! Sound through a rough two-peer link, into a recording mixer: every happening is heard
//! once — a correction does not play it again, a retraction cuts it — however often rollback
//! rewrites history.

use client::logs::peer_logs::LogPaths;
use client::net::conditioner::ConditionerConfig;
use client::net::wire::Role;
use client::session::netplay::open_link;
use client::session::netplay::{NetConfig, NetPeer};
use engine::World;
use engine::{buttons, EventKey, InputCmd};
use sample_game::present::sound::{Mixer, SoundDirector, SAMPLE_RATE};
use sample_game::{MatchSource, NetMatch};
use std::collections::BTreeSet;
use std::time::{Duration, Instant};

/// Somebody fighting: running about, shooting, swinging, firing the rail.
fn input(player: u32, t: u32) -> InputCmd {
    let phase = (t / 15 + player * 3) % 6;
    let (x, y) = [(127, 0), (0, 127), (-127, 0), (0, -127), (90, 90), (0, 0)][phase as usize];
    let b = if t.is_multiple_of(5) {
        buttons::SHOOT
    } else if t.is_multiple_of(23) {
        buttons::MELEE
    } else if t.is_multiple_of(61) {
        buttons::RAIL
    } else {
        0
    };
    InputCmd {
        buttons: b,
        move_x: x,
        move_y: y,
        ..InputCmd::idle(0)
    }
}

fn rough(seed: u64) -> ConditionerConfig {
    ConditionerConfig::parse(&format!(
        "latency=40,jitter=10,loss=5,burst=2,dup=1,reorder=2,seed={seed}"
    ))
    .expect("conditioner")
}

fn config() -> NetConfig<World> {
    NetConfig::<World> {
        disconnect_timeout: Duration::from_secs(10),
        handshake_timeout: Duration::from_secs(20),
        ..NetConfig::<World>::default()
    }
}

fn no_logs() -> LogPaths {
    LogPaths {
        hash_log: None,
        match_log: None,
        dump_dir: None,
    }
}

#[test]
fn every_happening_is_heard_once_through_rollbacks() {
    const TICKS: u32 = 900;
    let (tx, rx) = std::sync::mpsc::channel();
    let host = std::thread::spawn(move || -> anyhow::Result<()> {
        let link = open_link("127.0.0.1:0".parse()?, rough(5))?;
        tx.send(link.borrow().local_addr())?;
        let mut source = NetMatch::new(NetPeer::<World>::host_on(link, &config())?, 2, &no_logs())?;
        let deadline = Instant::now() + Duration::from_secs(120);
        let mut t = 0;
        while source.peer().final_tick() < TICKS && Instant::now() < deadline {
            source.advance(&[input(0, t)])?;
            t += 1;
            std::thread::sleep(Duration::from_millis(16));
        }
        // Serve the joiner a moment so it can confirm its last ticks too; it may leave first.
        for _ in 0..60 {
            if source.advance(&[input(0, t)]).is_err() {
                break;
            }
            std::thread::sleep(Duration::from_millis(16));
        }
        source.close()
    });
    let addr = rx.recv().expect("host address");
    let link = open_link("127.0.0.1:0".parse().expect("addr"), rough(6)).expect("link");
    let peer = NetPeer::<World>::join_on(link, addr, Role::Player, &config()).expect("join");
    let mut source = NetMatch::new(peer, 2, &no_logs()).expect("match");
    let mut mixer = Mixer::default();
    let mut director = SoundDirector::default();
    let mut frame_audio = vec![0i16; (SAMPLE_RATE / 60) as usize];
    // Keys whose sound was started and not cut since (finished or not).
    let mut heard: BTreeSet<EventKey> = BTreeSet::new();
    let (mut retractions, mut t) = (0u64, 0u32);
    let deadline = Instant::now() + Duration::from_secs(120);
    while source.peer().final_tick() < TICKS && Instant::now() < deadline {
        let presented = source.advance(&[input(1, t)]).expect("advance");
        let retracted = source.take_retractions();
        let starts_before = mixer.started.len();
        director.frame(&presented, &retracted, &mut mixer);
        for gone in &retracted {
            let key = gone.key();
            if presented.iter().all(|e| e.key() != key) {
                retractions += 1;
                assert!(
                    !mixer.is_playing(&key),
                    "a retracted sound stopped: {gone:?}"
                );
                heard.remove(&key);
            }
        }
        for (key, sfx) in &mixer.started[starts_before..] {
            assert!(heard.insert(*key), "{sfx:?} of {key:?} played twice");
        }
        mixer.mix(&mut frame_audio);
        t += 1;
        std::thread::sleep(Duration::from_millis(16));
    }
    for _ in 0..60 {
        if source.advance(&[input(1, t)]).is_err() {
            break;
        }
        std::thread::sleep(Duration::from_millis(16));
    }
    source.close().expect("close");
    host.join().expect("host thread").expect("host");
    let final_tick = source.peer().final_tick();
    let rollbacks = source.peer().driver().counters().rollbacks;
    println!(
        "ticks {final_tick} rollbacks {rollbacks} sounds {} cut {} retractions {retractions} corrections {}",
        mixer.started.len(),
        mixer.cut.len(),
        director.corrections
    );
    assert!(
        final_tick >= TICKS,
        "the match went on to tick {TICKS}: {final_tick}"
    );
    assert!(rollbacks > 20, "the link forced rollbacks");
    assert!(mixer.started.len() > 100, "the fight was heard");
    assert!(retractions > 0, "rollback took some happenings back");
}
