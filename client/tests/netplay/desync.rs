//! An injected desync in a two-peer headless match is found: `duel-cli desync` names the exact
//! tick and field from the two peers' hash logs and snapshot dumps.

use crate::child::{output_within, CHILD_LIMIT};
use crate::common::*;
use client::net::wire::Role;
use std::process::Command;

#[test]
fn injected_desync_is_named_down_to_the_field() {
    let dir = scratch_dir("desync");
    let (h, j) = (dir.join("host.log"), dir.join("join.log"));
    let mut host_plan = plan(300, 1, &h);
    host_plan.inject_desync = Some(150);
    let (addr, host) = spawn_loopback_host(test_config(Default::default()), host_plan);
    let joiner = spawn_loopback_joiner(
        addr,
        Role::Player,
        test_config(Default::default()),
        plan(300, 2, &j),
    );
    let host = host.join().expect("host thread").expect("host run");
    let joiner = joiner.join().expect("joiner thread").expect("joiner run");
    assert!(
        host.desyncs > 0 && joiner.desyncs > 0,
        "both peers detect it: {host} / {joiner}"
    );
    let out = output_within(
        Command::new(env!("CARGO_BIN_EXE_duel-cli"))
            .arg("desync")
            .arg(&h)
            .arg(&j),
        CHILD_LIMIT,
    );
    let text = String::from_utf8_lossy(&out.stdout);
    println!("{text}");
    assert_eq!(out.status.code(), Some(2), "divergence exits 2");
    assert!(
        text.contains("first divergence at tick 150, section players"),
        "{text}"
    );
    assert!(text.contains("fields that differ at tick 150:"), "{text}");
    assert!(text.contains("players[1].pos.x: "), "{text}");
}

/// A desync injected after one phase of one tick on the host is traced to that phase, that
/// field and that peer: the match logs show equal inputs and that only the host's state does
/// not follow from its own inputs.
#[test]
fn phase_injected_desync_names_the_phase_field_and_peer() {
    let dir = scratch_dir("desync-phase");
    let (h, j) = (dir.join("host.log"), dir.join("join.log"));
    let (hm, jm) = (dir.join("host.mlog"), dir.join("join.mlog"));
    let mut host_plan = plan(300, 1, &h);
    host_plan.inject_desync = Some(150);
    host_plan.inject_after = Some(engine::Phase::Movement);
    host_plan.match_log = Some(hm.clone());
    let mut join_plan = plan(300, 2, &j);
    join_plan.match_log = Some(jm.clone());
    let (addr, host) = spawn_loopback_host(test_config(Default::default()), host_plan);
    let joiner = spawn_loopback_joiner(
        addr,
        Role::Player,
        test_config(Default::default()),
        join_plan,
    );
    let host = host.join().expect("host thread").expect("host run");
    let joiner = joiner.join().expect("joiner thread").expect("joiner run");
    assert!(host.desyncs > 0 && joiner.desyncs > 0, "{host} / {joiner}");
    let out = Command::new(env!("CARGO_BIN_EXE_duel-cli"))
        .arg("desync")
        .args([&h, &j])
        .arg("--match-a")
        .arg(&hm)
        .arg("--match-b")
        .arg(&jm)
        .output()
        .expect("run desync tool");
    let text = String::from_utf8_lossy(&out.stdout);
    println!("{text}{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(out.status.code(), Some(2), "divergence exits 2");
    assert!(
        text.contains("first divergence at tick 150, section players"),
        "{text}"
    );
    assert!(text.contains("players[1].pos.x: "), "{text}");
    assert!(
        text.contains(
            "first phase that differs in the step to tick 150: movement (section players)"
        ),
        "{text}"
    );
    assert!(text.contains("inputs to tick 150 agree"), "{text}");
    assert!(
        text.contains("host (")
            && text.contains("its state at tick 150 does not follow from its own inputs"),
        "{text}"
    );
    assert!(text.contains("=> the faulty peer is host ("), "{text}");
    assert!(
        text.contains("host: its step to tick 150, re-simulated here from its dumped state and logged inputs, differs from its own per-phase hashes after phase movement"),
        "{text}"
    );
    assert!(
        text.contains("join: its step to tick 150, re-simulated here from its dumped state and logged inputs, matches its own per-phase hashes"),
        "{text}"
    );
    assert!(text.contains("join ("), "{text}");

    // `state` reads a dump and diffs it against the other peer's match log at that tick.
    let dump = dir.join("host.log.dumps").join("host-tick-150.snapshot");
    let out = Command::new(env!("CARGO_BIN_EXE_duel-cli"))
        .arg("state")
        .arg(&dump)
        .arg("--diff")
        .arg(&jm)
        .output()
        .expect("run state tool");
    let text = String::from_utf8_lossy(&out.stdout);
    println!("{text}{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(out.status.code(), Some(2), "differing states exit 2");
    assert!(text.contains("fields that differ at tick 150:"), "{text}");
    assert!(text.contains("players[1].pos.x: "), "{text}");

    // Issue 18 item 8: one flipped bit in a dump or a `.phases` file is damage, refused by
    // name (exit 1), never read as a state or a phase that differs.
    for file in ["host-tick-150.snapshot", "host-tick-150.phases"] {
        let path = dir.join("host.log.dumps").join(file);
        let mut bytes = std::fs::read(&path).expect("dump");
        let at = bytes.len() / 2;
        bytes[at] ^= 0x04;
        std::fs::write(&path, &bytes).expect("write");
    }
    let out = Command::new(env!("CARGO_BIN_EXE_duel-cli"))
        .arg("state")
        .arg(&dump)
        .output()
        .expect("run state tool");
    let text = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{text}");
    assert!(
        text.contains("host-tick-150.snapshot") && text.contains("damaged"),
        "{text}"
    );
    let out = Command::new(env!("CARGO_BIN_EXE_duel-cli"))
        .arg("desync")
        .args([&h, &j])
        .output()
        .expect("run desync tool");
    let text = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{text}");
    assert!(text.contains("damaged"), "{text}");
}

/// With checksums compared only every 50 ticks, a desync injected at tick 130 is detected at
/// tick 150, yet tick 130 is dumped with its per-phase hashes, so the tools still name it.
#[test]
fn sparse_checksums_still_dump_the_first_divergent_tick() {
    let dir = scratch_dir("desync-interval");
    let (h, j) = (dir.join("host.log"), dir.join("join.log"));
    let mut host_plan = plan(300, 1, &h);
    host_plan.inject_desync = Some(130);
    host_plan.inject_after = Some(engine::Phase::AimAndFire);
    let config = || client::session::netplay::NetConfig {
        desync_interval: 50,
        ..test_config(Default::default())
    };
    let (addr, host) = spawn_loopback_host(config(), host_plan);
    let joiner = spawn_loopback_joiner(addr, Role::Player, config(), plan(300, 2, &j));
    let host = host.join().expect("host thread").expect("host run");
    let joiner = joiner.join().expect("joiner thread").expect("joiner run");
    assert!(host.desyncs > 0 && joiner.desyncs > 0, "{host} / {joiner}");
    for side in ["host", "join"] {
        let dumps = dir.join(format!("{side}.log.dumps"));
        assert!(dumps.join(format!("{side}-tick-130.snapshot")).exists());
        assert!(dumps.join(format!("{side}-tick-130.phases")).exists());
    }
    let out = Command::new(env!("CARGO_BIN_EXE_duel-cli"))
        .arg("desync")
        .args([&h, &j])
        .output()
        .expect("run desync tool");
    let text = String::from_utf8_lossy(&out.stdout);
    println!("{text}{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(out.status.code(), Some(2), "divergence exits 2");
    assert!(text.contains("first divergence at tick 130"), "{text}");
    assert!(text.contains("fields that differ at tick 130:"), "{text}");
    assert!(text.contains("players[1].pos.x: "), "{text}");
    assert!(
        text.contains("first phase that differs in the step to tick 130: aim-and-fire"),
        "{text}"
    );
}

/// Damaged forensics files are refused with the file named, never trusted or panicked on.
#[test]
fn damaged_dumps_and_logs_are_refused_with_a_clear_error() {
    let dir = scratch_dir("desync-garbage");
    let garbage = dir.join("x-tick-5.snapshot");
    std::fs::write(&garbage, b"\x07not a snapshot at all").expect("write");
    let log = dir.join("not.mlog");
    std::fs::write(&log, b"DUELMLOG\xff\xff\xff\xff").expect("write");
    for (args, needle) in [
        (vec![garbage.as_os_str()], "x-tick-5.snapshot"),
        (
            vec![log.as_os_str(), "--tick".as_ref(), "3".as_ref()],
            "not.mlog",
        ),
    ] {
        let out = Command::new(env!("CARGO_BIN_EXE_duel-cli"))
            .arg("state")
            .args(args)
            .output()
            .expect("run state tool");
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{err}");
        assert!(err.contains(needle), "{err}");
    }
}
