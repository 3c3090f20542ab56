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
    use client::wire::Role;
    use std::time::{Duration, Instant};
    let exe = env!("CARGO_BIN_EXE_duel-cli");
    let mut host = KillOnDrop(
        Command::new(exe)
            .args(["host", "--bind", "127.0.0.1:0", "--ticks", "3600"])
            .args(["--disconnect-timeout-ms", "1000"])
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("spawn host"),
    );
    let lines = stdout_lines(&mut host);
    let first = lines.recv_timeout(CHILD_LIMIT).expect("address line");
    let addr = first
        .strip_prefix("listening on ")
        .expect("listening line")
        .parse()
        .expect("address");
    // A joiner that plays a little, then vanishes without a word.
    let config = crate::common::test_config(Default::default());
    let mut peer = client::NetPeer::join_on(
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

/// Issue 17: a joiner whose invite code differs from the host's is refused in words (exit 1),
/// and a malformed code is an error before anything connects.
#[test]
fn a_joiner_with_another_invite_code_is_refused_in_words() {
    let exe = env!("CARGO_BIN_EXE_duel-cli");
    let mut host = KillOnDrop(
        Command::new(exe)
            .args(["host", "--bind", "127.0.0.1:0", "--ticks", "60"])
            .args(["--code", "aaaa-bbbb-cccc-dddd", "--handshake-timeout", "20"])
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("spawn host"),
    );
    let lines = stdout_lines(&mut host);
    let first = lines.recv_timeout(CHILD_LIMIT).expect("address line");
    let addr = first.strip_prefix("listening on ").expect("listening line");
    let wrong = output_within(
        Command::new(exe).args([
            "join",
            &format!("{addr}#aaaa-bbbb-cccc-eeee"),
            "--ticks",
            "60",
        ]),
        CHILD_LIMIT,
    );
    let stderr = String::from_utf8_lossy(&wrong.stderr);
    assert_eq!(wrong.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains("the invite code does not match"),
        "{stderr}"
    );
    let none = output_within(
        Command::new(exe).args(["join", addr, "--ticks", "60"]),
        CHILD_LIMIT,
    );
    let stderr = String::from_utf8_lossy(&none.stderr);
    assert_eq!(none.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("needs its invite code"), "{stderr}");
    let malformed = output_within(
        Command::new(exe).args(["join", &format!("{addr}#l0l0"), "--ticks", "60"]),
        CHILD_LIMIT,
    );
    let stderr = String::from_utf8_lossy(&malformed.stderr);
    assert_eq!(malformed.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("invite code"), "{stderr}");
    let right = output_within(
        Command::new(exe).args([
            "join",
            &format!("{addr}#AAAA BBBB CCCC DDDD"),
            "--ticks",
            "60",
        ]),
        CHILD_LIMIT,
    );
    assert!(
        right.status.success(),
        "{}",
        String::from_utf8_lossy(&right.stderr)
    );
    assert!(wait_within(&mut host, CHILD_LIMIT, "host").success());
}
