//! A player's process killed mid-match (`kill -9`) and started again with `duel-cli rejoin
//! LOG` within the other player's reconnect grace: the slot is its own again (proven by the
//! match secret in its log), both go on from the same tick in a new epoch, the match finishes,
//! the confirmed hash logs agree from tick 1 to the end, and both match logs verify through the
//! epoch change.

use crate::child::{output_within, stdout_lines, wait_until, wait_within, KillOnDrop, CHILD_LIMIT};
use crate::common::{assert_logs_identical, scratch_dir};
use client::logs::matchlog::read_log;
use engine::World;
use std::path::Path;
use std::process::{Command, Stdio};

const TICKS: &str = "1800";

/// Ticks in the match log at `path` so far (0 while it cannot be read).
fn logged(path: &Path) -> usize {
    read_log::<engine::World>(path).map_or(0, |log| log.ticks.len())
}

/// A `duel-cli host` and `join` of [`TICKS`] ticks on loopback, each writing the logs named
/// (`(option, path)`): the host, its stdout lines after the address, and the joiner.
fn host_and_joiner<const H: usize, const J: usize>(
    host_logs: [(&str, &Path); H],
    join_logs: [(&str, &Path); J],
) -> (KillOnDrop, std::sync::mpsc::Receiver<String>, KillOnDrop) {
    let exe = env!("CARGO_BIN_EXE_duel-cli");
    let with_logs = |command: &mut Command, logs: &[(&str, &Path)]| {
        for (option, path) in logs {
            command.arg(option).arg(path);
        }
    };
    let mut command = Command::new(exe);
    command.args(["host", "--bind", "127.0.0.1:0", "--ticks", TICKS]);
    with_logs(&mut command, &host_logs);
    let mut host = KillOnDrop(
        command
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("spawn host"),
    );
    let lines = stdout_lines(&mut host);
    let first = lines
        .recv_timeout(CHILD_LIMIT)
        .expect("host prints its address");
    let addr = first
        .strip_prefix("listening on ")
        .expect("listening line")
        .to_owned();
    let mut command = Command::new(exe);
    command.args(["join", &addr, "--ticks", TICKS, "--bot-seed", "9"]);
    with_logs(&mut command, &join_logs);
    let joiner = KillOnDrop(
        command
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("spawn joiner"),
    );
    (host, lines, joiner)
}

/// A joiner of the host at `addr` in a thread that logs its final ticks to `log` up to
/// `logged` (then closes the log, as if the rest never reached the disk), plays on to tick
/// `played`, and "dies": everything dropped, no word sent. Its last final tick and the last
/// tick it logged.
fn dying_joiner(
    addr: std::net::SocketAddr,
    config: &client::session::netplay::NetConfig<World>,
    log: &Path,
    logged: u32,
    played: u32,
) -> std::thread::JoinHandle<(u32, u32)> {
    use client::logs::peer_logs::{LogPaths, PeerLogs};
    use std::time::{Duration, Instant};
    let (config, log) = (config.clone(), log.to_owned());
    std::thread::spawn(move || {
        let link = crate::common::loopback_link(Default::default());
        let mut peer = client::session::netplay::NetPeer::join_on(
            link,
            addr,
            client::net::wire::Role::Player,
            &config,
        )
        .expect("join");
        let paths = LogPaths {
            match_log: Some(log),
            ..LogPaths::default()
        };
        let mut logs = PeerLogs::open(&peer, &paths, Some(3)).expect("logs");
        let mut bot = engine::Bot::new(1, 3);
        let deadline = Instant::now() + Duration::from_secs(120);
        while (peer.final_tick() < played || logs.logged() < logged) && Instant::now() < deadline {
            peer.poll();
            let input = bot.think(peer.world()).to_wire();
            peer.advance(input).expect("advance");
            if logs.logged() < logged {
                logs.catch_up(&peer, logged).expect("log");
                if logs.logged() == logged {
                    logs.close(false).expect("close");
                }
            }
            std::thread::sleep(Duration::from_millis(4));
        }
        (peer.final_tick(), logs.logged())
    })
}

#[test]
fn a_killed_joiner_rejoins_from_its_log_and_the_match_finishes_identically() {
    let dir = scratch_dir("rejoin");
    let exe = env!("CARGO_BIN_EXE_duel-cli");
    let (hh, hm) = (dir.join("host.hashes"), dir.join("host.duel"));
    let (jh, jm, jh2) = (
        dir.join("join.hashes"),
        dir.join("join.duel"),
        dir.join("rejoin.hashes"),
    );
    let (mut host, lines, mut joiner) = host_and_joiner(
        [("--hash-log", &hh), ("--match-log", &hm)],
        [("--hash-log", &jh), ("--match-log", &jm)],
    );
    // Mid-match, without a word to anyone: as a crash or a closed laptop would.
    wait_until(&mut joiner, CHILD_LIMIT, "joiner", || logged(&jm) >= 600);
    joiner.kill().expect("kill the joiner");
    joiner.wait().expect("reap the joiner");
    let cut = logged(&jm);
    let rejoin = output_within(
        Command::new(exe)
            .args(["rejoin"])
            .arg(&jm)
            .args(["--ticks", TICKS, "--bot-seed", "9"])
            .arg("--hash-log")
            .arg(&jh2),
        CHILD_LIMIT,
    );
    let host_status = wait_within(&mut host, CHILD_LIMIT, "host");
    let host_out: Vec<String> = lines.iter().collect();
    println!(
        "cut at {cut}\nhost: {host_out:?}\nrejoin: {}\n{}",
        String::from_utf8_lossy(&rejoin.stdout),
        String::from_utf8_lossy(&rejoin.stderr)
    );
    assert!(rejoin.status.success(), "rejoin exit {}", rejoin.status);
    assert!(host_status.success(), "host exit {host_status}");
    assert!(host_out
        .iter()
        .any(|l| l.contains("finish=clean") && l.contains("desyncs=0")));
    // The rejoined player's hash log runs from tick 1, as if it had never left, and both mark
    // where the new epoch began.
    assert_logs_identical(&[&hh, &jh2], 1800);
    let marks = |p: &Path| {
        client::logs::hashlog::read_hash_log_file::<engine::World>(p)
            .expect("reads")
            .epochs
    };
    assert_eq!(marks(&hh), marks(&jh2));
    assert_eq!(marks(&hh).len(), 1);
    for log in [&hm, &jm] {
        let read = read_log::<engine::World>(log).expect("reads");
        assert_eq!(read.epochs.len(), 1, "{}: one epoch change", log.display());
        let epoch = &read.epochs[0];
        println!("{}: {epoch:?}", log.display());
        assert_eq!(epoch.epoch, 2);
        assert!(
            epoch.tick as usize >= cut,
            "resumed at {} before the cut {cut}",
            epoch.tick
        );
        let report = client::logs::replay::verify(&read, None).expect("verifies through the epoch");
        assert_eq!(report.ticks, 1800);
    }
    let (h, j) = (
        read_log::<engine::World>(&hm).expect("host"),
        read_log::<engine::World>(&jm).expect("join"),
    );
    assert_eq!(h.epochs, {
        let mut e = j.epochs.clone();
        e[0].peer = h.epochs[0].peer.clone();
        e
    });
    assert_eq!(h.ticks, j.ticks, "both logs hold the same confirmed ticks");
}

/// A rejoin that comes after the other player gave up (its grace ran out, or it died too):
/// told that nobody took it, in words that say why, and the log it came from is kept whole.
#[test]
fn a_rejoin_after_the_grace_is_told_the_match_may_be_over_and_keeps_its_log() {
    use crate::common::{loopback_link, plan, spawn_loopback_host, test_config};
    use client::Error;
    use std::time::Duration;

    let dir = scratch_dir("rejoin-late");
    let mut config = test_config(Default::default());
    config.disconnect_timeout = Duration::from_millis(1500);
    config.disconnect_notify = Duration::from_millis(300);
    let (addr, host) = spawn_loopback_host(config.clone(), plan(3600, 1, &dir.join("host.log")));
    let log = dir.join("join.duel");
    // The joiner plays a while, then its process "dies": everything dropped, no word sent.
    let joiner = dying_joiner(addr, &config, &log, 200, 200);
    let (_, logged) = joiner.join().expect("joiner");
    let host = host
        .join()
        .expect("host thread")
        .expect("host ends cleanly");
    assert!(
        host.disconnected.is_some(),
        "the host gave up after its grace"
    );
    let before = read_log::<engine::World>(&log).expect("the joiner's log");
    assert_eq!(before.ticks.len() as u32, logged);
    // Now the rejoin: nobody waits any more.
    config.handshake_timeout = Duration::from_secs(2);
    let mut again = plan(3600, 3, &dir.join("rejoin.log"));
    again.match_log = Some(log.clone());
    let err = client::runs::rejoin_logged_match(loopback_link(Default::default()), &config, &again)
        .expect_err("nobody takes the rejoin");
    assert!(matches!(err, Error::RejoinTimeout { .. }), "{err:?}");
    assert!(err.to_string().contains("the match may be over"), "{err}");
    let after = read_log::<engine::World>(&log).expect("still reads");
    assert_eq!(after.ticks, before.ticks, "nothing recorded is lost");
    client::logs::replay::verify(&after, None).expect("still verifies");
}

/// `duel-cli rejoin` on a log that is no networked player's (a bot match's, garbage, none):
/// a clear refusal naming the file, and the file as it was.
#[test]
fn a_rejoin_from_a_log_that_is_no_players_is_refused_and_the_log_untouched() {
    let dir = scratch_dir("rejoin-not-a-player");
    let exe = env!("CARGO_BIN_EXE_duel-cli");
    let bot = dir.join("bots.duel");
    let made = output_within(
        Command::new(exe)
            .args(["bot-match", "--ticks", "120", "--match-log"])
            .arg(&bot),
        CHILD_LIMIT,
    );
    assert!(made.status.success());
    let garbage = dir.join("garbage.duel");
    std::fs::write(&garbage, b"not a match log at all").expect("write");
    for (log, says) in [
        (bot.clone(), "holds no rejoin key"),
        (garbage.clone(), "match log"),
        (dir.join("missing.duel"), "missing.duel"),
    ] {
        let before = std::fs::read(&log).ok();
        let out = output_within(Command::new(exe).arg("rejoin").arg(&log), CHILD_LIMIT);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success(), "{}", log.display());
        assert!(stderr.contains(says), "{}: {stderr}", log.display());
        assert!(!stderr.contains("panicked"), "{stderr}");
        assert_eq!(
            std::fs::read(&log).ok(),
            before,
            "{} untouched",
            log.display()
        );
    }
}

/// Issue 19: a rejoin from a log that ends long before the other player's last final tick
/// (further back than the history it keeps: here the joiner stopped logging at tick 200 and
/// played on to tick 900 before it died). The other player's state is sent whole instead,
/// checked, and the match goes on from it and finishes: both hash logs agree on every tick
/// both hold, the rejoiner's lacks exactly the ticks the transfer skipped (and says so), and
/// its match log verifies across them. The spectator of the start watches throughout: its
/// hash log is the host's, the new epoch marked where the host marks it.
#[test]
fn a_rejoin_from_a_log_that_ends_before_the_others_history_goes_on_from_its_state_sent_whole() {
    use crate::common::{
        entries, loopback_link, plan, spawn_loopback_host, spawn_loopback_joiner, test_config,
    };
    use client::net::wire::Role;

    const LOGGED: u32 = 200;
    let dir = scratch_dir("rejoin-transfer");
    let config = test_config(Default::default());
    let (hh, hm) = (dir.join("host.hashes"), dir.join("host.duel"));
    let mut host_plan = plan(1800, 1, &hh);
    host_plan.match_log = Some(hm.clone());
    let host_config = client::session::netplay::NetConfig::<World> {
        spectators: 1,
        ..config.clone()
    };
    let (addr, host) = spawn_loopback_host(host_config, host_plan);
    let sh = dir.join("spectator.hashes");
    let mut watch_plan = plan(1800, 4, &sh);
    watch_plan.match_log = Some(dir.join("spectator.duel"));
    let spectator = spawn_loopback_joiner(addr, Role::Spectator, config.clone(), watch_plan);
    let log = dir.join("join.duel");
    let joiner = dying_joiner(addr, &config, &log, LOGGED, 900);
    let (played, _) = joiner.join().expect("joiner");
    assert!(played >= 900, "the joiner played to {played}");
    assert_eq!(
        read_log::<engine::World>(&log).expect("reads").last_tick(),
        LOGGED
    );
    let jh = dir.join("rejoin.hashes");
    let mut again = plan(1800, 3, &jh);
    again.match_log = Some(log.clone());
    let rejoined =
        client::runs::rejoin_logged_match(loopback_link(Default::default()), &config, &again)
            .expect("the rejoin goes on from the state sent");
    let host = host.join().expect("host thread").expect("host ends");
    println!("host: {host}\nrejoin: {rejoined}");
    assert!(host.disconnected.is_none() && host.clean_finish, "{host}");
    assert_eq!((host.desyncs, rejoined.desyncs), (0, 0));
    let (h, j) = (
        read_log::<engine::World>(&hm).expect("host"),
        read_log::<engine::World>(&log).expect("join"),
    );
    assert_eq!(h.epochs.len(), 1);
    let resume = h.epochs[0].tick;
    assert!(h.epochs[0].transfer.is_none(), "the host's log is whole");
    assert!(resume >= played.min(900), "resumed at {resume}");
    let (epoch, transfer) = j.transfer_from(LOGGED).expect("the joiner's transfer");
    assert_eq!(
        (epoch.epoch, epoch.tick, epoch.hash),
        (2, resume, h.epochs[0].hash)
    );
    assert_eq!(transfer.from, LOGGED);
    let skipped = |t: u32| t > LOGGED && t <= resume;
    let host_kept: Vec<_> = h.ticks.iter().filter(|t| !skipped(t.tick)).collect();
    assert_eq!(host_kept, j.ticks.iter().collect::<Vec<_>>());
    assert_eq!(
        client::logs::replay::verify(&j, None)
            .expect("verifies")
            .ticks,
        1800
    );
    let host_lines: Vec<_> = entries(&hh)
        .into_iter()
        .filter(|e| !skipped(e.tick))
        .collect();
    assert_eq!(host_lines.len(), 1800 - (resume - LOGGED) as usize);
    assert_eq!(entries(&jh), host_lines);
    let marks = |p: &Path| {
        client::logs::hashlog::read_hash_log_file::<engine::World>(p)
            .expect("reads")
            .epochs
    };
    assert_eq!(marks(&hh), marks(&jh));
    let watched = spectator
        .join()
        .expect("spectator thread")
        .expect("spectator run");
    println!("spectator: {watched}");
    assert_eq!((watched.ticks, watched.final_hash), (1800, host.final_hash));
    assert_eq!(
        entries(&sh),
        entries(&hh),
        "the spectator saw every tick the host did"
    );
    assert_eq!(marks(&sh), marks(&hh));
    let spectator_log = read_log::<engine::World>(&dir.join("spectator.duel")).expect("reads");
    assert_eq!(
        client::logs::replay::verify(&spectator_log, None)
            .expect("verifies")
            .ticks,
        1800
    );
}

/// Both players' processes killed at once (a shared power cut): nobody is left waiting, so
/// both rejoins, started together, are told that nobody took them and that the match may be
/// over, each within its handshake timeout, and both logs keep every record and still
/// verify.
#[test]
fn both_players_killed_at_once_are_each_told_nobody_waits_and_keep_their_logs() {
    let dir = scratch_dir("rejoin-both-killed");
    let exe = env!("CARGO_BIN_EXE_duel-cli");
    let (hm, jm) = (dir.join("host.duel"), dir.join("join.duel"));
    let (mut host, _lines, mut joiner) =
        host_and_joiner([("--match-log", &hm)], [("--match-log", &jm)]);
    wait_until(&mut joiner, CHILD_LIMIT, "joiner", || logged(&jm) >= 300);
    host.kill().expect("kill the host");
    joiner.kill().expect("kill the joiner");
    host.wait().expect("reap the host");
    joiner.wait().expect("reap the joiner");
    let before = [
        read_log::<engine::World>(&hm).expect("host log"),
        read_log::<engine::World>(&jm).expect("join log"),
    ];
    let rejoin = |log: &Path| {
        Command::new(exe)
            .arg("rejoin")
            .arg(log)
            .args(["--ticks", TICKS, "--handshake-timeout", "3"])
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("spawn rejoin")
    };
    let (a, b) = (KillOnDrop(rejoin(&hm)), KillOnDrop(rejoin(&jm)));
    for (mut child, log) in [(a, &hm), (b, &jm)] {
        let status = wait_within(&mut child, CHILD_LIMIT, "rejoin");
        let mut err = String::new();
        use std::io::Read;
        child
            .0
            .stderr
            .take()
            .expect("stderr")
            .read_to_string(&mut err)
            .expect("read");
        println!("{}: {status}\n{err}", log.display());
        assert!(!status.success(), "{}: nobody took it", log.display());
        assert!(err.contains("the match may be over"), "{err}");
    }
    for (log, was) in [&hm, &jm].into_iter().zip(&before) {
        let read = read_log::<engine::World>(log).expect("reads");
        // (A rejoin writes the checkpoint a cut left missing before it asks anyone.)
        assert_eq!(read.ticks, was.ticks, "{} keeps every tick", log.display());
        assert!(read.checkpoints.starts_with(&was.checkpoints));
        client::logs::replay::verify(&read, None).expect("still verifies");
    }
}
