//! Sync tests: 10 000 ticks of bot inputs at check distance 7 find no mismatch; an injected
//! non-determinism is found, named, and both snapshots are written for `duel-cli state --diff`.

use crate::common::scratch_dir;
use client::session::synctest::{run_sync_test, SyncTest};
use client::Error;
use engine::Rules;

fn spec(dir: &std::path::Path, ticks: u32, inject: Option<u32>) -> SyncTest {
    SyncTest {
        rules: Rules::default(),
        seed: 3,
        bot_seed: 4,
        check_distance: 7,
        ticks,
        dump_dir: dir.join("dump"),
        hash_log: Some(dir.join("synctest.log")),
        inject,
        inject_after: None,
    }
}

#[test]
fn ten_thousand_ticks_without_mismatch() {
    let dir = scratch_dir("synctest");
    let summary = run_sync_test(&spec(&dir, 10_000, None)).expect("no mismatch");
    assert_eq!(summary.ticks, 10_000);
    assert_eq!(
        summary.rollbacks,
        10_000 - 8,
        "a rollback every frame after the check distance"
    );
    assert_eq!(
        client::logs::hashlog::read_hash_log::<engine::World>(&dir.join("synctest.log"))
            .expect("log")
            .len(),
        10_000
    );
}

#[test]
fn injected_nondeterminism_is_caught_with_both_snapshots_dumped() {
    let dir = scratch_dir("synctest-inject");
    let err = run_sync_test(&spec(&dir, 400, Some(150))).unwrap_err();
    let Error::SyncTestMismatch { frames, dump, .. } = err else {
        panic!("{err}")
    };
    assert_eq!(frames, vec![150]);
    let original = std::fs::read_to_string(dump.join("tick-150-original.txt")).expect("original");
    let resimulated =
        std::fs::read_to_string(dump.join("tick-150-resimulated.txt")).expect("resim");
    assert_ne!(original, resimulated);
    assert!(dump.join("tick-150-original.snapshot").exists());

    // The dumps are read by the same tool as desync dumps and match logs.
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_duel-cli"))
        .arg("state")
        .arg(dump.join("tick-150-original.snapshot"))
        .arg("--diff")
        .arg(dump.join("tick-150-resimulated.snapshot"))
        .output()
        .expect("run state tool");
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(
        out.status.code(),
        Some(2),
        "differing states exit 2: {text}"
    );
    assert!(text.contains("fields that differ at tick 150:"), "{text}");
    assert!(text.contains("players[1].pos.x: "), "{text}");
}

/// A non-determinism in one phase of a tick's first pass is traced to that phase: the original
/// and re-simulated steps are written as `.phases` files and the error names the phase.
#[test]
fn injected_nondeterminism_is_traced_to_its_phase() {
    let dir = scratch_dir("synctest-phase");
    let mut spec = spec(&dir, 400, Some(150));
    spec.inject_after = Some(engine::Phase::Pushbox);
    let err = run_sync_test(&spec).unwrap_err();
    let text = err.to_string();
    let Error::SyncTestMismatch { dump, phases, .. } = err else {
        panic!("{err}")
    };
    let phases = phases.as_deref().unwrap_or_default();
    assert!(
        phases.starts_with(
            "first phase that differs in the step to tick 150: pushbox (section players); \
             first field that differs: players[1].pos.x: "
        ),
        "{text}"
    );
    assert!(text.contains("pushbox"), "{text}");
    for label in ["original", "resimulated"] {
        let path = dump.join(format!("tick-150-{label}.phases"));
        client::forensics::read_phase_trace::<engine::World>(&path).expect("a readable trace");
    }
}
