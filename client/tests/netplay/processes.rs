//! Two peers and a spectator as separate OS processes (`duel-cli host` / `join` / `spectate`)
//! through the link conditioner, invited with the host's code: all exit cleanly with identical
//! confirmed hash logs.

use crate::child::{output_of, output_within, stdout_lines, wait_within, KillOnDrop, CHILD_LIMIT};
use crate::common::scratch_dir;
use std::process::{Command, Stdio};

const CONDITIONS: &str = "latency=40,jitter=10,loss=5,burst=2,dup=1,reorder=2";

#[test]
fn host_join_and_spectator_processes_agree_on_every_confirmed_tick() {
    let dir = scratch_dir("processes");
    let exe = env!("CARGO_BIN_EXE_duel-cli");
    let (h, j, s) = (
        dir.join("host.log"),
        dir.join("join.log"),
        dir.join("spectator.log"),
    );
    let ticks = "3600";
    let mut host = KillOnDrop(
        Command::new(exe)
            .args([
                "host",
                "--bind",
                "127.0.0.1:0",
                "--ticks",
                ticks,
                "--spectators",
                "1",
                "--disconnect-timeout-ms",
                "10000",
                "--code",
                "random",
            ])
            .args(["--conditioner", &format!("{CONDITIONS},seed=1")])
            .arg("--hash-log")
            .arg(&h)
            .stdout(Stdio::piped())
            .spawn()
            .expect("spawn host"),
    );
    let lines = stdout_lines(&mut host);
    let first = lines
        .recv_timeout(CHILD_LIMIT)
        .expect("host prints its address");
    first.strip_prefix("listening on ").expect("listening line");
    // The host with `--code random` prints the invitation to share: ADDRESS#CODE.
    let invite = lines
        .recv_timeout(CHILD_LIMIT)
        .expect("host prints its invitation");
    let addr = invite
        .strip_prefix("invite: ")
        .and_then(|rest| rest.split_whitespace().next())
        .expect("invite line")
        .to_string();
    assert!(addr.contains('#'), "{invite}");
    let mut spectator = KillOnDrop(
        Command::new(exe)
            .args([
                "spectate",
                &addr,
                "--ticks",
                ticks,
                "--disconnect-timeout-ms",
                "10000",
            ])
            .args(["--conditioner", &format!("{CONDITIONS},seed=3")])
            .arg("--hash-log")
            .arg(&s)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("spawn spectator"),
    );
    let join = output_within(
        Command::new(exe)
            .args([
                "join",
                &addr,
                "--ticks",
                ticks,
                "--bot-seed",
                "9",
                "--disconnect-timeout-ms",
                "10000",
            ])
            .args(["--conditioner", &format!("{CONDITIONS},seed=2")])
            .arg("--hash-log")
            .arg(&j),
        CHILD_LIMIT,
    );
    let host_status = wait_within(&mut host, CHILD_LIMIT, "host");
    let host_rest: Vec<String> = lines.iter().collect();
    let spectator = output_of(&mut spectator, CHILD_LIMIT, "spectator");
    assert!(
        spectator.status.success(),
        "spectator exit {}: {}",
        spectator.status,
        String::from_utf8_lossy(&spectator.stderr)
    );
    println!(
        "host: {host_rest:?}\njoin: {}",
        String::from_utf8_lossy(&join.stdout)
    );
    eprintln!("{}", String::from_utf8_lossy(&join.stderr));
    assert!(host_status.success(), "host exit {host_status}");
    assert!(join.status.success(), "join exit {}", join.status);
    assert!(host_rest
        .iter()
        .any(|l| l.contains("desyncs=0") && l.contains("finish=clean")));
    crate::common::assert_logs_identical(&[&h, &j, &s], 3600);
}

/// Item 17: `duel-cli --help` lists what each exit status means.
#[test]
fn help_lists_the_exit_codes() {
    let out = output_within(
        Command::new(env!("CARGO_BIN_EXE_duel-cli")).arg("--help"),
        CHILD_LIMIT,
    );
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("Exit status:"), "{text}");
    for code in [
        "0  done",
        "1  error",
        "2  desync",
        "3  host/join/spectate/online: the other side disconnected",
    ] {
        assert!(text.contains(code), "{code} missing from\n{text}");
    }
}

/// Item 17: a disconnect showed only as `disconnected=… finish=timeout` and exit 3. It is said
/// in plain words on stderr, and the summary no longer claims a finish wait that never happened.
#[test]
fn a_disconnect_is_said_in_plain_words_with_exit_status_3() {
    use client::net::wire::Role;
    use std::time::{Duration, Instant};
    let mut host = spawn_piped(&[
        "host",
        "--bind",
        "127.0.0.1:0",
        "--ticks",
        "3600",
        "--disconnect-timeout-ms",
        "1000",
    ]);
    let lines = stdout_lines(&mut host);
    let first = lines.recv_timeout(CHILD_LIMIT).expect("address line");
    let addr = first
        .strip_prefix("listening on ")
        .expect("listening line")
        .parse()
        .expect("address");
    // A joiner that plays a little, then vanishes without a word.
    let config = crate::common::test_config(Default::default());
    let mut peer = client::session::netplay::NetPeer::join_on(
        crate::common::loopback_link(Default::default()),
        addr,
        Role::Player,
        &config,
    )
    .expect("join");
    let deadline = Instant::now() + Duration::from_secs(60);
    while peer.world().tick() < 120 && Instant::now() < deadline {
        peer.poll();
        peer.advance(engine::WireInput::default()).expect("advance");
        std::thread::sleep(Duration::from_millis(16));
    }
    drop(peer);
    let out = output_of(&mut host, CHILD_LIMIT, "host");
    let rest: Vec<String> = lines.iter().collect();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(3), "{rest:?} {stderr}");
    assert!(
        stderr.contains("disconnected") && stderr.contains("ended early"),
        "{stderr}"
    );
    assert!(
        rest.iter().any(|l| l.contains("finish=skipped")),
        "{rest:?}"
    );
}

/// `duel-cli ARGS`, its output piped, killed if the test ends first.
fn spawn_piped(args: &[&str]) -> KillOnDrop {
    KillOnDrop(
        Command::new(env!("CARGO_BIN_EXE_duel-cli"))
            .args(args)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("spawn duel-cli"),
    )
}

/// `duel-cli join ADDRESS --ticks 60`: its exit status and stderr.
fn join_once(address: &str) -> (Option<i32>, String) {
    let out = output_within(
        Command::new(env!("CARGO_BIN_EXE_duel-cli")).args(["join", address, "--ticks", "60"]),
        CHILD_LIMIT,
    );
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// Issue 17: a joiner whose invite code differs from the host's, or who has none, is refused
/// in words (exit 1), a malformed code is an error before anything connects, and the right
/// code in any case and spacing joins.
#[test]
fn a_joiner_with_another_invite_code_is_refused_in_words() {
    let mut host = spawn_piped(&[
        "host",
        "--bind",
        "127.0.0.1:0",
        "--ticks",
        "60",
        "--code",
        "aaaa-bbbb-cccc-dddd",
        "--handshake-timeout",
        "20",
    ]);
    let lines = stdout_lines(&mut host);
    let first = lines.recv_timeout(CHILD_LIMIT).expect("address line");
    let addr = first.strip_prefix("listening on ").expect("listening line");
    for (address, words) in [
        (
            format!("{addr}#aaaa-bbbb-cccc-eeee"),
            "the invite code does not match",
        ),
        (addr.to_string(), "needs its invite code"),
        (format!("{addr}#l0l0"), "invite code"),
    ] {
        let (code, stderr) = join_once(&address);
        assert_eq!(code, Some(1), "{address}: {stderr}");
        assert!(stderr.contains(words), "{address}: {stderr}");
    }
    let (code, stderr) = join_once(&format!("{addr}#AAAA BBBB CCCC DDDD"));
    assert_eq!(code, Some(0), "{stderr}");
    assert!(wait_within(&mut host, CHILD_LIMIT, "host").success());
}

/// Issue 18: an option value outside its range is refused up front, naming the range, with
/// exit status 1 (not clap's 2, which here means a desync), never a panic inside GGRS or the
/// conditioner.
#[test]
fn option_values_outside_their_range_are_refused_naming_it() {
    for (args, words) in [
        (&["host", "--input-delay", "120"][..], "0..=30"),
        (
            &["join", "127.0.0.1:9", "--input-delay", "31"][..],
            "0..=30",
        ),
        (&["host", "--fps", "0"][..], "1..=240"),
        (&["host", "--desync-interval", "0"][..], "1..=600"),
        (&["host", "--conditioner", "loss=999999999"][..], "0 to 100"),
        (
            &["host", "--conditioner", "jitter=3000000000"][..],
            "0 to 60000",
        ),
        (
            &["host", "--conditioner", "loss=1,burst=5000000"][..],
            "0 to 1000",
        ),
        (&["host", "--code", "nope"][..], "invite code"),
        (
            &["host", "--handshake-timeout", "18446744073709551615"][..],
            "1..=3600",
        ),
        (&["host", "--spectators", "9"][..], "0..=8"),
        (
            &["sync-test", "--check-distance", "18446744073709551615"][..],
            "1..=15",
        ),
        (&["bot-match", "--ticks", "4294967295"][..], "1..=10368000"),
    ] {
        let out = output_within(
            Command::new(env!("CARGO_BIN_EXE_duel-cli")).args(args),
            CHILD_LIMIT,
        );
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{args:?}: {stderr}");
        assert!(stderr.contains(words), "{args:?}: {stderr}");
        assert!(!stderr.contains("panicked"), "{args:?}: {stderr}");
    }
}

/// Issue 18 item 2: every subcommand that prints ends quietly when its reader goes away
/// (`duel-cli state LOG | head -1` used to exit 101 with a panic): standard output is closed
/// before the command writes anything, and it must exit with its own status, not a panic.
#[test]
fn every_subcommand_ends_quietly_on_a_closed_pipe() {
    let exe = env!("CARGO_BIN_EXE_duel-cli");
    let dir = scratch_dir("closed-pipe");
    let (log, hashes) = (dir.join("m.mlog"), dir.join("h.txt"));
    let made = output_within(
        Command::new(exe)
            .args(["bot-match", "--seed", "3", "--ticks", "300"])
            .arg("--match-log")
            .arg(&log)
            .arg("--hash-log")
            .arg(&hashes),
        CHILD_LIMIT,
    );
    assert!(made.status.success(), "{made:?}");
    let (log, hashes) = (
        log.to_str().expect("utf-8"),
        hashes.to_str().expect("utf-8"),
    );
    // Each with the status it ends with when nothing goes wrong but the pipe (`signal`, a
    // server, runs until stopped and is left out; `rail-fairness` spawns peers for minutes).
    let runs: [(&[&str], i32); 13] = [
        (&["--help"], 0),
        (&["default-rules"], 0),
        (&["bot-match", "--seed", "3", "--ticks", "120"], 0),
        (&["sync-test", "--ticks", "120"], 0),
        (&["verify", log], 0),
        (&["resume", log], 1), // the log ended cleanly: nothing to resume
        (&["state", log, "--tick", "200"], 0),
        (&["state", log, "--tick", "200", "--diff", log], 0),
        (&["desync", hashes, hashes], 0),
        (
            &["host", "--bind", "127.0.0.1:0", "--handshake-timeout", "1"],
            1,
        ),
        (&["join", "127.0.0.1:9", "--handshake-timeout", "1"], 1),
        (&["spectate", "127.0.0.1:9", "--handshake-timeout", "1"], 1),
        (
            &["online", "--room", "r", "--signal", "ws://127.0.0.1:9"],
            1,
        ),
    ];
    for (args, expected) in runs {
        let mut child = Command::new(exe)
            .args(args)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("spawn");
        drop(child.stdout.take()); // the reader is gone before anything is written
        let out = output_of(&mut child, CHILD_LIMIT, "closed pipe");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(!stderr.contains("panicked"), "{args:?}: {stderr}");
        assert_ne!(out.status.code(), Some(101), "{args:?}: {stderr}");
        assert_eq!(out.status.code(), Some(expected), "{args:?}: {stderr}");
    }
}
