//! The game's match sources without a window: online host and joiner (drawing each other in
//! the past and firing lag-compensated rails) agree on every confirmed tick, the sync-test
//! source rolls back every frame, catches an injected mismatch and records a match log that
//! verifies, and a local match's log replays and resumes (with a hash log of the resumed ticks).

use client::logs::peer_logs::LogPaths;
use client::net::conditioner::ConditionerConfig;
use client::net::wire::Role;
use client::session::netplay::open_link;
use client::session::netplay::{NetConfig, NetPeer};
use engine::World;
use engine::{buttons, EventKind, InputCmd, Rules, ViewClamp};
use sample_game::{
    DesyncStatus, LocalLogs, LocalMatch, MatchSource, NetMatch, NetMode, Rematch, ReplayMatch,
    ShownView, SourceCommand, SyncTestMatch,
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

/// Plays `player`'s pattern from input `from` at about 60 Hz until the final tick reaches
/// `final_tick`, then a second more so the peer can confirm its last ticks too.
fn play_past(source: &mut NetMatch, player: u32, from: u32, final_tick: u32) -> anyhow::Result<()> {
    let mut t = from;
    while source.peer().final_tick() < final_tick {
        source.advance(&[input(player, t)])?;
        // What the window interpolates from is always the tick before the newest.
        let now = source.current().tick;
        assert_eq!(
            source.previous().tick,
            now.saturating_sub(1),
            "at tick {now}"
        );
        t += 1;
        std::thread::sleep(Duration::from_millis(16));
    }
    for _ in 0..60 {
        source.advance(&[input(player, t)])?;
        std::thread::sleep(Duration::from_millis(16));
    }
    Ok(())
}

fn config() -> NetConfig<World> {
    NetConfig::<World> {
        disconnect_timeout: Duration::from_secs(10),
        handshake_timeout: Duration::from_secs(20),
        ..NetConfig::<World>::default()
    }
}

/// Both peers draw the other in the past (`--remote-view past`, the default) and fire rails
/// carrying that view; they still agree on every confirmed tick. Event-driven, not timed: a
/// rail is asked for every 45 frames and pressed on the first frame after that drew the remote
/// player in the past (how far back depends on how confirmation trails, which a loaded machine
/// changes), and both peers play on until each has seen 400 final ticks and one of its own
/// compensated rail shots.
#[test]
fn online_host_and_joiner_agree_on_every_confirmed_tick() {
    use std::sync::atomic::{AtomicU8, Ordering};
    use std::sync::Arc;
    let dir = scratch("online");
    let (tx, rx) = std::sync::mpsc::channel();
    let host_log = dir.join("host.hashlog");
    let join_log = dir.join("join.hashlog");
    let paths = |hash: &std::path::Path| LogPaths {
        hash_log: Some(hash.to_owned()),
        match_log: None,
        dump_dir: None,
    };
    // How many peers have seen enough; each plays on until both have.
    let satisfied = Arc::new(AtomicU8::new(0));
    // Every frame: the past the remote player is drawn at, and on a rail press that view,
    // relative to the input's own tick — as the window loop does.
    let run = move |mut source: NetMatch,
                    player: u32,
                    satisfied: Arc<AtomicU8>|
          -> anyhow::Result<(u32, u8, u32)> {
        let (mut t, mut widest, mut compensated) = (0, 0u8, 0u32);
        let window = source.rules().pose_history_ticks;
        let mut shown = ShownView::default();
        let (mut want_rail, mut pressed_last) = (false, false);
        // Frames whose advance re-simulated history (the renderer's cue to smooth).
        let mut rolled = 0_u64;
        // The ticks our rail presses were to be applied at, as the source said.
        let mut pressed_for = std::collections::BTreeSet::new();
        let mut frame = |source: &mut NetMatch, t: u32| -> anyhow::Result<u32> {
            let mut compensated = 0;
            let mut cmd = input(player, t);
            want_rail |= t % 45 == 20;
            // The rail fires on a press edge, so never two frames running.
            pressed_last = want_rail && shown.back > 0 && !pressed_last;
            if pressed_last {
                cmd.buttons |= buttons::RAIL;
                let view = shown.for_input(source.input_tick());
                (cmd.view_ticks, cmd.view_frac) = (view.ticks_back, view.frac);
                pressed_for.insert(source.input_tick());
            }
            let events = source.advance(&[cmd])?;
            rolled += u64::from(source.rolled_back());
            for e in events {
                if let EventKind::RailShot(shot) = e.kind {
                    let mine = u32::from(shot.shooter) == player;
                    compensated += u32::from(mine && shot.requested.ticks_back > 0);
                    if mine {
                        want_rail = false;
                        assert_eq!(shot.clamp, ViewClamp::None, "judged at the moment drawn");
                        assert!(
                            pressed_for.contains(&e.tick),
                            "a shot at tick {}, presses for {pressed_for:?}",
                            e.tick
                        );
                    }
                }
            }
            let back = source.remote_view_back();
            assert!(back <= window, "drawn {back} ticks back, window {window}");
            widest = widest.max(back);
            shown = ShownView {
                tick: source.current().tick,
                back,
                alpha_256: (t * 37 % 256) as u8,
            };
            Ok(compensated)
        };
        let mut counted = false;
        while satisfied.load(Ordering::SeqCst) < 2 {
            compensated += frame(&mut source, t)?;
            t += 1;
            if !counted && source.peer().final_tick() >= 400 && compensated > 0 {
                counted = true;
                satisfied.fetch_add(1, Ordering::SeqCst);
            }
            anyhow::ensure!(
                t < 60 * 120,
                "player {player}: two minutes of frames, final tick {}, widest view {widest}, \
                 {compensated} compensated rail shots",
                source.peer().final_tick()
            );
            std::thread::sleep(Duration::from_millis(16));
        }
        // Keep serving the peer a moment so it can confirm its last ticks too.
        for _ in 0..60 {
            compensated += frame(&mut source, t)?;
            std::thread::sleep(Duration::from_millis(16));
        }
        // 60 ms each way makes rollbacks: some frames say they had one, not every frame.
        let rollbacks = source.peer().driver().counters().rollbacks;
        anyhow::ensure!(
            rolled > 0 && rolled < u64::from(t),
            "player {player}: {rolled} of {t} frames said they rolled back, the session did \
             {rollbacks} times"
        );
        // The panel says how far the hashes were compared, and that they agreed.
        let logged = source.peer().final_tick();
        anyhow::ensure!(
            matches!(source.net_view().desync, DesyncStatus::InSync { checked } if checked >= 400),
            "player {player}'s panel: {:?} at final tick {logged}",
            source.net_view().desync
        );
        source.close()?;
        Ok((source.peer().final_tick(), widest, compensated))
    };
    // 60 ms each way: confirmation trails prediction by a few ticks.
    let lag = || ConditionerConfig::parse("latency=60,seed=3").unwrap();
    let (hp, jp) = (paths(&host_log), paths(&join_log));
    let host_satisfied = Arc::clone(&satisfied);
    let host = std::thread::spawn(move || {
        let link = open_link("127.0.0.1:0".parse().unwrap(), lag()).unwrap();
        tx.send(link.borrow().local_addr()).unwrap();
        let peer = NetPeer::<World>::host_on(link, &config()).unwrap();
        run(NetMatch::new(peer, 2, &hp).unwrap(), 0, host_satisfied)
    });
    let addr = rx.recv().unwrap();
    let joiner = std::thread::spawn(move || {
        let link = open_link("127.0.0.1:0".parse().unwrap(), lag()).unwrap();
        let mut source = NetMatch::new(
            NetPeer::<World>::join_on(link, addr, Role::Player, &config()).unwrap(),
            2,
            &jp,
        )
        .unwrap();
        source.command(SourceCommand::MoreInputDelay).unwrap(); // changed at run time
        run(source, 1, satisfied)
    });
    let (h, h_back, h_rails) = host.join().unwrap().unwrap();
    let (j, j_back, j_rails) = joiner.join().unwrap().unwrap();
    assert!(h >= 400 && j >= 400);
    // 60 ms each way: confirmation trails by several ticks, and past mode draws that far back.
    assert!(
        h_back >= 3 && j_back >= 3,
        "past mode drew the remote player in the past: {h_back}, {j_back} ticks at most"
    );
    assert!(
        h_rails > 0 && j_rails > 0,
        "lag-compensated rail shots were fired ({h_rails}, {j_rails})"
    );
    let a = client::logs::hashlog::read_hash_log::<engine::World>(&host_log).unwrap();
    let b = client::logs::hashlog::read_hash_log::<engine::World>(&join_log).unwrap();
    let common = a.len().min(b.len());
    assert!(common >= 400);
    assert_eq!(a[..common], b[..common]);
}

/// A fair start online: while one player still reads the controls (its source holds: it answers
/// the network and plays only the first tick, idle), the other cannot run the round — it
/// stops within its prediction window, the countdown barely begun, and is told it waits for
/// the other player; the holder has simulated that one tick. Once both play, both run the same
/// match. Event-driven: the holder holds until the other side says it waits (or 20 s pass).
#[test]
fn neither_player_can_start_the_round_before_both_are_ready() {
    use std::sync::atomic::{AtomicBool, Ordering};
    use std::sync::Arc;
    let dir = scratch("fair-start");
    let (host_log, join_log) = (dir.join("host.hashlog"), dir.join("join.hashlog"));
    let paths = |hash: &std::path::Path| LogPaths {
        hash_log: Some(hash.to_owned()),
        match_log: None,
        dump_dir: None,
    };
    let (tx, rx) = std::sync::mpsc::channel();
    let host_ready = Arc::new(AtomicBool::new(false));
    let joiner_waits = Arc::new(AtomicBool::new(false));
    let limit = Duration::from_secs(20);
    // Rules other than the default's, which each side's source must play by.
    let config = || NetConfig::<World> {
        rules: Rules {
            max_hp: 150,
            ..Rules::default()
        },
        ..config()
    };
    let play_to = |source: &mut NetMatch, player: u32, from: u32| -> anyhow::Result<()> {
        play_past(source, player, from, 300)?;
        source.close()
    };
    let hp = paths(&host_log);
    let (ready, waits) = (Arc::clone(&host_ready), Arc::clone(&joiner_waits));
    let host = std::thread::spawn(move || -> anyhow::Result<u32> {
        let link = open_link("127.0.0.1:0".parse().unwrap(), ConditionerConfig::default()).unwrap();
        tx.send(link.borrow().local_addr()).unwrap();
        let mut source =
            NetMatch::new(NetPeer::<World>::host_on(link, &config()).unwrap(), 2, &hp)?;
        assert_eq!(source.local_players(), &[0], "the host plays slot 0");
        assert_eq!(source.rules(), &config().rules);
        let start = std::time::Instant::now();
        while !waits.load(Ordering::SeqCst) && start.elapsed() < limit {
            source.hold()?;
            std::thread::sleep(Duration::from_millis(16));
        }
        let held_at = source.current().tick;
        ready.store(true, Ordering::SeqCst);
        play_to(&mut source, 0, 0)?;
        Ok(held_at)
    });
    let addr = rx.recv().unwrap();
    let jp = paths(&join_log);
    let (ready, waits) = (Arc::clone(&host_ready), Arc::clone(&joiner_waits));
    let joiner = std::thread::spawn(move || -> anyhow::Result<(u32, u32, bool)> {
        let link = open_link("127.0.0.1:0".parse().unwrap(), ConditionerConfig::default()).unwrap();
        let peer = NetPeer::<World>::join_on(link, addr, Role::Player, &config()).unwrap();
        let mut source = NetMatch::new(peer, 2, &jp)?;
        // What a debugger or a log line shows of it: its mode and its peer.
        let shown = format!("{source:?}");
        assert!(
            shown.starts_with("NetMatch { mode: ") && shown.contains(", peer: "),
            "{shown}"
        );
        assert_eq!(source.local_players(), &[1], "the joiner plays slot 1");
        assert_eq!(source.after_match().rematch, Rematch::WhenAllAsk);
        let countdown = source.rules().round_start_ticks;
        let (mut t, mut furthest, mut least_left) = (0, 0, u32::MAX);
        let start = std::time::Instant::now();
        while !ready.load(Ordering::SeqCst) && start.elapsed() < limit {
            source.advance(&[input(1, t)])?;
            t += 1;
            let state = source.current();
            furthest = furthest.max(state.tick);
            assert_eq!(
                state.round.phase,
                engine::RoundPhase::Countdown,
                "the round began while the other player was not ready"
            );
            least_left = least_left.min(state.round.phase_timer);
            if source.net_view().waiting_to_start {
                waits.store(true, Ordering::SeqCst);
            }
            std::thread::sleep(Duration::from_millis(16));
        }
        let waited = waits.load(Ordering::SeqCst);
        play_to(&mut source, 1, t)?;
        Ok((
            furthest,
            u32::from(countdown).saturating_sub(least_left),
            waited,
        ))
    });
    let held_at = host.join().unwrap().unwrap();
    let (furthest, counted_down, waited) = joiner.join().unwrap().unwrap();
    assert_eq!(
        held_at, 1,
        "the player reading the controls simulated its first tick only"
    );
    assert!(waited, "the ready player was told it waits for the other");
    let window = client::session::netplay::NetConfig::<World>::default().max_prediction as u32;
    assert!(
        furthest <= window + 4,
        "the ready player ran {furthest} ticks alone (prediction window {window})"
    );
    assert!(
        counted_down <= window + 4,
        "{counted_down} ticks of countdown ran alone"
    );
    let a = client::logs::hashlog::read_hash_log::<engine::World>(&host_log).unwrap();
    let b = client::logs::hashlog::read_hash_log::<engine::World>(&join_log).unwrap();
    let common = a.len().min(b.len());
    assert!(common >= 300);
    assert_eq!(a[..common], b[..common]);
}

/// Every frame past the check distance is rolled back and re-simulated, the match log it
/// records verifies, and the hash log holds every tick.
#[test]
fn the_sync_test_source_plays_without_mismatch() {
    let dir = scratch("synctest");
    let (log_path, hash_path) = (dir.join("synctest.duellog"), dir.join("synctest.hashlog"));
    let rules = Rules {
        max_hp: 150,
        ..Rules::default()
    };
    let mut m = SyncTestMatch::new(rules.clone(), 3, 7, dir.join("dump"))
        .unwrap()
        .with_logs(LocalLogs::to(
            Some(log_path.clone()),
            Some(hash_path.clone()),
        ))
        .unwrap();
    assert_eq!(m.rules(), &rules);
    for t in 0..1200 {
        m.advance(&[input(0, t), input(1, t)]).unwrap();
    }
    assert_eq!(m.current().tick, 1200);
    assert_eq!(m.previous().tick, 1199);
    assert_eq!(
        m.local_players(),
        &[0, 1],
        "both players are at this keyboard"
    );
    // Its panel: the mode, every rollback the check distance deep, the hashes compared up to
    // the last settled tick, and the rollbacks so far.
    let view = m.net_view();
    assert_eq!(view.mode, NetMode::SyncTest);
    assert_eq!(view.rollback_depths, vec![7; 8]);
    assert_eq!(view.desync, DesyncStatus::InSync { checked: 1200 - 7 });
    assert_eq!(
        view.status.as_deref(),
        Some(format!("{} rollbacks, depth 7", m.counters().rollbacks).as_str())
    );
    let counters = m.counters().clone();
    assert!(
        counters.rollbacks >= 1200 - 7 - 1,
        "a rollback every frame once 7 are in hand: {counters:?}"
    );
    assert_eq!(counters.max_depth, 7, "each one the check distance deep");
    assert!(
        counters.advances >= 8 * (1200 - 8),
        "every rolled-back frame re-simulated: {counters:?}"
    );
    assert!(m.can_pause(), "a sync test runs on this machine alone");
    let at = m.current().clone();
    m.close().unwrap();
    let log = client::logs::matchlog::read_log::<engine::World>(&log_path).unwrap();
    assert_eq!(log.header.mode, "sync-test");
    // Closed as completed only if decided.
    let decided = at.round.phase == engine::RoundPhase::MatchOver;
    assert_eq!(log.end.is_some(), decided, "{:?}", at.round);
    assert_eq!(log.last_tick(), 1200);
    client::logs::replay::verify(&log, None).expect("the sync test's match log re-simulates");
    let mut replay = ReplayMatch::new(log).unwrap();
    replay.command(SourceCommand::Seek(1200)).unwrap();
    assert_eq!(*replay.current(), at, "the log replays to the state played");
    let hashes = client::logs::hashlog::read_hash_log::<engine::World>(&hash_path).unwrap();
    assert_eq!(
        hashes.iter().map(|e| e.tick).collect::<Vec<_>>(),
        (1..=1200).collect::<Vec<_>>(),
        "the hash log holds every tick once"
    );
}

/// The sync test really compares: a state perturbed the first time tick 300 is reached makes
/// a later frame fail with a mismatch naming it.
#[test]
fn the_sync_test_source_stops_on_an_injected_mismatch() {
    let dir = scratch("synctest-inject");
    let mut m = SyncTestMatch::new(Rules::default(), 3, 7, dir.join("dump")).unwrap();
    m.inject_desync(300);
    let mut failure = None;
    for t in 0..400 {
        if let Err(e) = m.advance(&[input(0, t), input(1, t)]) {
            failure = Some((t, e));
            break;
        }
    }
    let (t, e) = failure.expect("the perturbed frame was caught");
    assert!(t < 300 + 8, "caught within the check distance (at {t})");
    match e.downcast_ref::<client::Error>() {
        Some(client::Error::SyncTestMismatch { frames, .. }) => {
            assert!(frames.contains(&300), "names frame 300: {frames:?}");
        }
        other => panic!("a sync-test mismatch, not {other:?} ({e:#})"),
    }
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
    let log = client::logs::matchlog::read_log::<engine::World>(&path).unwrap();
    client::logs::replay::verify(&log, None).unwrap();
    let mut replay = ReplayMatch::new(log).unwrap();
    replay.command(SourceCommand::Seek(700)).unwrap();
    assert_eq!(*replay.current(), at, "the replay reaches the played state");
    let hash_path = dir.join("resumed.hashlog");
    let mut resumed = LocalMatch::resume(&path)
        .unwrap()
        .with_hash_log(Some(hash_path.clone()))
        .unwrap();
    assert_eq!(
        *resumed.current(),
        at,
        "resuming restores the state the match was left in"
    );
    for t in 700..800 {
        resumed.advance(&[input(0, t), input(1, t)]).unwrap();
    }
    resumed.close().unwrap();
    let log = client::logs::matchlog::read_log::<engine::World>(&path).unwrap();
    assert_eq!(log.last_tick(), 800);
    client::logs::replay::verify(&log, None).unwrap();
    // --hash-log applies to a resumed match too: the ticks played after resuming, with the
    // hashes the match log holds for them.
    let hashes = client::logs::hashlog::read_hash_log::<engine::World>(&hash_path).unwrap();
    let logged: Vec<_> = log
        .ticks
        .iter()
        .filter(|t| t.tick > 700)
        .map(|t| (t.tick, t.hash))
        .collect();
    assert_eq!(logged.len(), 100);
    assert_eq!(
        hashes.iter().map(|e| (e.tick, e.hash)).collect::<Vec<_>>(),
        logged
    );
}

/// An online rematch needs both players: once the match is decided, one player's ask is seen
/// by both (in the match state) but starts nothing, however long it waits; the other's ask
/// starts the new match, and both machines play the same one (equal hash logs throughout).
/// Event-driven: each side waits for what the other did, within 30 s.
#[test]
fn an_online_rematch_starts_only_when_both_players_ask() {
    use engine::{Bot, RoundPhase};
    use std::sync::atomic::{AtomicBool, Ordering};
    use std::sync::Arc;
    let dir = scratch("rematch");
    let (host_log, join_log) = (dir.join("host.hashlog"), dir.join("join.hashlog"));
    let paths = |hash: &std::path::Path| LogPaths {
        hash_log: Some(hash.to_owned()),
        match_log: None,
        dump_dir: None,
    };
    // One round, one hit decides it, in a small open maze: the host's bot soon wins.
    let rules = Rules {
        rounds_to_win: 1,
        max_hp: 8,
        maze_cells_w: 3,
        maze_cells_h: 2,
        block_percent: 0,
        round_start_ticks: 10,
        ..Rules::default()
    };
    let config = NetConfig::<World> { rules, ..config() };
    let host_asked = Arc::new(AtomicBool::new(false));
    let joiner_asked = Arc::new(AtomicBool::new(false));
    // Advances with `input` until `done` (or the limit); `check` sees every state.
    fn run(
        source: &mut NetMatch,
        mut input: impl FnMut(&NetMatch) -> InputCmd,
        mut check: impl FnMut(&NetMatch),
        mut done: impl FnMut(&NetMatch) -> bool,
    ) -> anyhow::Result<()> {
        let start = std::time::Instant::now();
        while !done(source) {
            anyhow::ensure!(start.elapsed() < Duration::from_secs(30), "timed out");
            let i = input(source);
            source.advance(&[i])?;
            check(source);
            std::thread::sleep(Duration::from_millis(4));
        }
        Ok(())
    }
    fn over(s: &NetMatch) -> bool {
        s.current().round.phase == RoundPhase::MatchOver
    }
    fn idle(_: &NetMatch) -> InputCmd {
        InputCmd::idle(0)
    }
    // Plays (each state seen by `check`) until the new match began and 120 ticks of it are
    // confirmed, then closes; says how the new match stands.
    fn into_the_new_match(
        source: &mut NetMatch,
        check: impl FnMut(&NetMatch),
    ) -> anyhow::Result<String> {
        run(source, idle, check, |s| !over(s))?;
        let tick = source.current().tick;
        run(source, idle, |_| {}, |s| s.peer().final_tick() > tick + 120)?;
        let round = &source.current().round;
        let said = format!(
            "new match: round {}, wins {:?}",
            round.round,
            &round.wins[..2]
        );
        source.close()?;
        Ok(said)
    }
    let (tx, rx) = std::sync::mpsc::channel();
    let hp = paths(&host_log);
    let host_config = config.clone();
    let (mine, theirs) = (Arc::clone(&host_asked), Arc::clone(&joiner_asked));
    let host = std::thread::spawn(move || -> anyhow::Result<Vec<String>> {
        let link = open_link("127.0.0.1:0".parse().unwrap(), ConditionerConfig::default())?;
        tx.send(link.borrow().local_addr()).unwrap();
        let peer = NetPeer::<World>::host_on(link, &host_config)?;
        let mut source = NetMatch::new(peer, 2, &hp)?;
        let mut bot = Bot::new(0, 7);
        run(&mut source, |s| bot.think(s.peer().world()), |_| {}, over)?;
        let mut seen = vec![format!("won by {:?}", source.current().round.last_winner)];
        source.rematch()?;
        // Asked, and shown so; nothing starts while the other has not asked.
        let mut waited = 0;
        let alone = |s: &NetMatch| {
            if !theirs.load(Ordering::SeqCst) {
                assert!(over(s), "a new match began on one player's ask");
            }
        };
        run(&mut source, idle, alone, |s| {
            waited += 1;
            s.current().round.rematch_asked(0) && waited > 180
        })?;
        seen.push(format!(
            "asked, other asked: {}",
            source.current().round.rematch_asked(1)
        ));
        mine.store(true, Ordering::SeqCst);
        seen.push(into_the_new_match(&mut source, alone)?);
        Ok(seen)
    });
    let addr = rx.recv().unwrap();
    let jp = paths(&join_log);
    let (mine, theirs) = (joiner_asked, host_asked);
    let joiner = std::thread::spawn(move || -> anyhow::Result<Vec<String>> {
        let link = open_link("127.0.0.1:0".parse().unwrap(), ConditionerConfig::default())?;
        let peer = NetPeer::<World>::join_on(link, addr, Role::Player, &config)?;
        let mut source = NetMatch::new(peer, 2, &jp)?;
        run(&mut source, idle, |_| {}, over)?;
        // The other's ask shows here too, and starts nothing.
        run(
            &mut source,
            idle,
            |s| assert!(over(s)),
            |s| s.current().round.rematch_asked(0) && theirs.load(Ordering::SeqCst),
        )?;
        let mut seen = vec![format!(
            "other asked, I asked: {}",
            source.current().round.rematch_asked(1)
        )];
        mine.store(true, Ordering::SeqCst);
        source.rematch()?;
        seen.push(into_the_new_match(&mut source, |_| {})?);
        Ok(seen)
    });
    let host = host.join().unwrap().unwrap();
    let joiner = joiner.join().unwrap().unwrap();
    assert_eq!(
        host,
        [
            "won by Some(0)",
            "asked, other asked: false",
            "new match: round 1, wins [0, 0]"
        ]
    );
    assert_eq!(
        joiner,
        [
            "other asked, I asked: false",
            "new match: round 1, wins [0, 0]"
        ]
    );
    let a = client::logs::hashlog::read_hash_log::<engine::World>(&host_log).unwrap();
    let b = client::logs::hashlog::read_hash_log::<engine::World>(&join_log).unwrap();
    let common = a.len().min(b.len());
    assert!(common > 200, "{common} ticks in common");
    assert_eq!(a[..common], b[..common], "both played the same matches");
}

/// A desync detected by the session reaches the window: with resync off, both players' net
/// panels say the states differ from the perturbed tick on (not "in sync").
#[test]
fn a_detected_desync_reaches_both_net_panels() {
    use client::session::driver::Injection;
    let dir = scratch("desync-panel");
    let (tx, rx) = std::sync::mpsc::channel();
    let no_resync = || NetConfig::<World> {
        resync: false,
        ..config()
    };
    let paths = |name: &str| LogPaths {
        hash_log: Some(dir.join(name)),
        match_log: None,
        dump_dir: None,
    };
    let run = |mut source: NetMatch, player: u32| -> anyhow::Result<DesyncStatus> {
        play_past(&mut source, player, 0, 200)?;
        let seen = source.net_view().desync;
        source.close()?;
        Ok(seen)
    };
    let host_paths = paths("host.hashlog");
    let host = std::thread::spawn(move || {
        let link = open_link("127.0.0.1:0".parse().unwrap(), ConditionerConfig::default())?;
        tx.send(link.borrow().local_addr()).unwrap();
        let peer = NetPeer::<World>::host_on(link, &no_resync())?;
        run(NetMatch::new(peer, 2, &host_paths)?, 0)
    });
    let addr = rx.recv().unwrap();
    let join_paths = paths("join.hashlog");
    let joiner = std::thread::spawn(move || {
        let link = open_link("127.0.0.1:0".parse().unwrap(), ConditionerConfig::default())?;
        let mut peer = NetPeer::<World>::join_on(link, addr, Role::Player, &no_resync())?;
        // The joiner's state differs from tick 100 on, every time it is reached.
        peer.driver_mut().inject(Injection {
            tick: 100,
            first_pass_only: false,
            after: engine::Phase::Events,
        });
        run(NetMatch::new(peer, 2, &join_paths)?, 1)
    });
    let host: anyhow::Result<DesyncStatus> = host.join().unwrap();
    let joiner: anyhow::Result<DesyncStatus> = joiner.join().unwrap();
    for (who, seen) in [("host", host), ("joiner", joiner)] {
        assert_eq!(
            seen.expect("the match runs"),
            DesyncStatus::Desynced { tick: 100 },
            "{who}'s panel"
        );
    }
}

/// A desync the session repairs (resync on, the default) reaches the window as a notice that
/// says which tick differed and which state both sides took, shown for three seconds of the
/// window's calls (180) and then gone; the panel keeps saying the match was resynchronized.
#[test]
fn a_repaired_desync_is_noticed_for_three_seconds_of_calls() {
    use client::session::driver::Injection;
    let dir = scratch("resync-notice");
    let (tx, rx) = std::sync::mpsc::channel();
    let paths = |name: &str| LogPaths {
        hash_log: Some(dir.join(name)),
        match_log: None,
        dump_dir: None,
    };
    let host_paths = paths("host.hashlog");
    let (done_tx, done_rx) = std::sync::mpsc::channel::<()>();
    let host = std::thread::spawn(move || -> anyhow::Result<()> {
        let link = open_link("127.0.0.1:0".parse().unwrap(), ConditionerConfig::default())?;
        tx.send(link.borrow().local_addr()).unwrap();
        let peer = NetPeer::<World>::host_on(link, &config())?;
        let mut source = NetMatch::new(peer, 2, &host_paths)?;
        // Plays until the joiner has seen what it waits for (or 60 s).
        let start = std::time::Instant::now();
        let mut t = 0;
        while done_rx.try_recv().is_err() && start.elapsed() < Duration::from_secs(60) {
            source.advance(&[input(0, t)])?;
            t += 1;
            std::thread::sleep(Duration::from_millis(16));
        }
        source.close()
    });
    let addr = rx.recv().unwrap();
    let join_paths = paths("join.hashlog");
    let joiner = std::thread::spawn(move || -> anyhow::Result<(Option<usize>, DesyncStatus)> {
        let link = open_link("127.0.0.1:0".parse().unwrap(), ConditionerConfig::default())?;
        let mut peer = NetPeer::<World>::join_on(link, addr, Role::Player, &config())?;
        // The joiner's state differs at tick 100, the first time it is reached only: the
        // repair holds.
        peer.driver_mut().inject(Injection {
            tick: 100,
            first_pass_only: true,
            after: engine::Phase::Events,
        });
        let mut source = NetMatch::new(peer, 2, &join_paths)?;
        let (mut t, mut shown_for) = (0, None::<usize>);
        let start = std::time::Instant::now();
        while start.elapsed() < Duration::from_secs(50) {
            source.advance(&[input(1, t)])?;
            t += 1;
            if source.net_view().resynced.is_some() {
                // Counts the calls it stays up, from the first that shows it.
                let mut calls = 1;
                while calls < 400 {
                    source.advance(&[input(1, t)])?;
                    t += 1;
                    if source.net_view().resynced.is_none() {
                        break;
                    }
                    calls += 1;
                    std::thread::sleep(Duration::from_millis(16));
                }
                shown_for = Some(calls);
                break;
            }
            std::thread::sleep(Duration::from_millis(16));
        }
        let status = source.net_view().desync;
        done_tx.send(()).ok();
        source.close()?;
        Ok((shown_for, status))
    });
    let joined = joiner.join().unwrap();
    host.join().unwrap().expect("the host plays");
    let (shown_for, status) = joined.expect("the joiner plays");
    let shown_for = shown_for.expect("the repair was noticed");
    // Set on the call that handled the repair, at that call's count or the one before.
    assert!(
        (179..=180).contains(&shown_for),
        "the notice stayed up {shown_for} calls"
    );
    assert!(
        matches!(status, DesyncStatus::Resynced { desync: 100, .. }),
        "{status:?}"
    );
}
