//! The game's match sources without a window: online host and joiner agree on every confirmed
//! tick, the sync-test source plays without mismatch, and a local match's log replays and
//! resumes.

use client::netplay::open_link;
use client::peer_logs::LogPaths;
use client::wire::Role;
use client::{NetConfig, NetPeer};
use engine::{buttons, InputCmd, Rules};
use sample_game::{
    LocalLogs, LocalMatch, MatchSource, NetMatch, ReplayMatch, SourceCommand, SyncTestMatch,
};
use std::time::Duration;

fn scratch(name: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("duel-sources-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("dir");
    dir
}

/// Somebody pressing things: a different pattern per player.
fn input(player: u32, t: u32) -> InputCmd {
    let phase = (t / 20 + player * 3) % 6;
    let (x, y) = [(127, 0), (0, 127), (-127, 0), (0, -127), (90, 90), (0, 0)][phase as usize];
    let b = if t.is_multiple_of(7) {
        buttons::SHOOT
    } else if t.is_multiple_of(50) {
        buttons::MELEE
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

fn config() -> NetConfig {
    NetConfig {
        disconnect_timeout: Duration::from_secs(10),
        handshake_timeout: Duration::from_secs(20),
        ..NetConfig::default()
    }
}

#[test]
fn online_host_and_joiner_agree_on_every_confirmed_tick() {
    let dir = scratch("online");
    let (tx, rx) = std::sync::mpsc::channel();
    let host_log = dir.join("host.hashlog");
    let join_log = dir.join("join.hashlog");
    let paths = |hash: &std::path::Path| LogPaths {
        hash_log: Some(hash.to_owned()),
        match_log: None,
        dump_dir: None,
    };
    let run = |mut source: NetMatch, player: u32| -> anyhow::Result<u32> {
        let mut t = 0;
        while source.peer().final_tick() < 400 {
            source.advance(&[input(player, t)])?;
            t += 1;
            std::thread::sleep(Duration::from_millis(16));
        }
        // Keep serving the peer a moment so it can confirm its last ticks too.
        for _ in 0..60 {
            source.advance(&[input(player, t)])?;
            std::thread::sleep(Duration::from_millis(16));
        }
        source.close()?;
        Ok(source.peer().final_tick())
    };
    let (hp, jp) = (paths(&host_log), paths(&join_log));
    let host = std::thread::spawn(move || {
        let link = open_link("127.0.0.1:0".parse().unwrap(), Default::default()).unwrap();
        tx.send(link.borrow().local_addr()).unwrap();
        let peer = NetPeer::host_on(link, &config()).unwrap();
        run(NetMatch::new(peer, 2, &hp).unwrap(), 0)
    });
    let addr = rx.recv().unwrap();
    let joiner = std::thread::spawn(move || {
        let link = open_link("127.0.0.1:0".parse().unwrap(), Default::default()).unwrap();
        let mut source = NetMatch::new(
            NetPeer::join_on(link, addr, Role::Player, &config()).unwrap(),
            2,
            &jp,
        )
        .unwrap();
        source.command(SourceCommand::MoreInputDelay).unwrap(); // changed at run time
        run(source, 1)
    });
    let h = host.join().unwrap().unwrap();
    let j = joiner.join().unwrap().unwrap();
    assert!(h >= 400 && j >= 400);
    let a = client::hashlog::read_hash_log(&host_log).unwrap();
    let b = client::hashlog::read_hash_log(&join_log).unwrap();
    let common = a.len().min(b.len());
    assert!(common >= 400);
    assert_eq!(a[..common], b[..common]);
}

#[test]
fn the_sync_test_source_plays_without_mismatch() {
    let dir = scratch("synctest");
    let mut m = SyncTestMatch::new(Rules::default(), 3, 7, dir.join("dump")).unwrap();
    for t in 0..1200 {
        m.advance(&[input(0, t), input(1, t)]).unwrap();
    }
    assert_eq!(m.current().tick, 1200);
    assert_eq!(m.previous().tick, 1199);
}

#[test]
fn a_local_match_log_replays_and_resumes() {
    let dir = scratch("local");
    let path = dir.join("local.duellog");
    let mut m = LocalMatch::new(Rules::default(), 8)
        .unwrap()
        .with_logs(LocalLogs::to(Some(path.clone()), None))
        .unwrap();
    for t in 0..700 {
        m.advance(&[input(0, t), input(1, t)]).unwrap();
    }
    let at = m.current().clone();
    drop(m); // the game was closed without finishing the match
    let log = client::matchlog::read_log(&path).unwrap();
    client::replay::verify(&log, None).unwrap();
    let mut replay = ReplayMatch::new(log).unwrap();
    replay.command(SourceCommand::Seek(700)).unwrap();
    assert_eq!(*replay.current(), at, "the replay reaches the played state");
    let mut resumed = LocalMatch::resume(&path).unwrap();
    assert_eq!(
        *resumed.current(),
        at,
        "resuming restores the state the match was left in"
    );
    for t in 700..800 {
        resumed.advance(&[input(0, t), input(1, t)]).unwrap();
    }
    resumed.close().unwrap();
    let log = client::matchlog::read_log(&path).unwrap();
    assert_eq!(log.last_tick(), 800);
    client::replay::verify(&log, None).unwrap();
}
