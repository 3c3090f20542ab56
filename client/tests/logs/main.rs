//! Durable match logs: a recorded match verifies; damaged logs each give their own clear error
//! (a flipped byte, a missing record, a torn tail, another format version, other rules); a
//! match killed with SIGKILL resumes from its log and continues exactly as the uninterrupted
//! run.

use child::{output_within, wait_until, wait_within, KillOnDrop, CHILD_LIMIT};
use client::logs::hashlog::read_hash_log;
use client::logs::matchlog::{read_log, LogHeader, MatchLogWriter, LOG_FORMAT_VERSION};
use client::logs::replay::{verify, Replay};
use client::runs::{run_bot_match, BotMatch};
use client::Error;
use engine::{Rules, World};
use std::path::{Path, PathBuf};
use std::process::Command;

/// The duel's audited events (its rail shots, as judged) among one step's `events`.
fn audited(events: &[engine::Event]) -> Vec<engine::ShotRecord> {
    let mut out = Vec::new();
    <World as client::Game>::audit(events, &mut out);
    out
}

#[path = "../support/child.rs"]
mod child;
mod epochs;
mod framing;
mod fuzz;
mod hashlogs;
mod holes;
mod limits;
mod outputs;
mod resume;
mod writing;

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("duel-logs-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("dir");
    dir
}

/// Records a complete multi-round bot match.
fn record(dir: &Path) -> PathBuf {
    let path = dir.join("match.log");
    let summary = run_bot_match(&BotMatch {
        rules: Rules::default(),
        seed: 3,
        bot_seed: 8,
        players: 2,
        ticks: 20_000,
        stop_at_match_end: true,
        hash_log: None,
        match_log: Some(path.clone()),
    })
    .expect("match");
    assert!(summary.round >= 2, "several rounds");
    path
}

/// Bytes of a record's framing before its payload: len u32, lsn, prev, kind, prefix check.
const PREFIX: usize = 25;

/// Byte offsets of every record (walking the framing after the 8-byte magic: len u32, lsn,
/// prev, kind, prefix check, payload, check).
fn record_offsets(bytes: &[u8]) -> Vec<usize> {
    let mut offsets = Vec::new();
    let mut at = client::logs::matchlog::LOG_MAGIC.len();
    while at + 4 <= bytes.len() {
        offsets.push(at);
        let len = u32::from_le_bytes(bytes[at..at + 4].try_into().expect("4")) as usize;
        at += PREFIX + len + 8;
    }
    offsets
}

fn xxh3(bytes: &[u8]) -> u64 {
    xxhash_rust::xxh3::xxh3_64(bytes)
}

/// Frames a record as the writer does: prefix with its check, payload, checksum.
fn frame(lsn: u64, kind: u8, payload: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(PREFIX + payload.len() + 8);
    out.extend_from_slice(&(payload.len() as u32).to_le_bytes());
    out.extend_from_slice(&lsn.to_le_bytes());
    out.extend_from_slice(&(lsn - 1).to_le_bytes());
    out.push(kind);
    let prefix = xxh3(&out) as u32;
    out.extend_from_slice(&prefix.to_le_bytes());
    out.extend_from_slice(payload);
    let check = xxh3(&out);
    out.extend_from_slice(&check.to_le_bytes());
    out
}

/// Runs `f` on another thread and fails if it has not returned within a minute: a hang
/// becomes a failure instead of a stuck test run (the bound is a watchdog, not a measurement).
fn within_a_minute<T: Send + 'static>(f: impl FnOnce() -> T + Send + 'static) -> T {
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(f());
    });
    rx.recv_timeout(std::time::Duration::from_secs(60))
        .expect("returned (no hang)")
}

#[test]
fn a_recorded_multi_round_match_verifies() {
    let dir = scratch("verify");
    let log = read_log::<World>(&record(&dir)).expect("reads");
    assert!(log.end.is_some());
    let report = verify(&log, None).expect("verifies");
    assert_eq!(report.ticks, log.last_tick());
    assert!(
        report.checkpoints >= 3,
        "checkpoints compared: {}",
        report.checkpoints
    );
}

/// A state asked past a log's last tick is refused as that, naming both ticks (it used to be
/// a "verify mismatch" with hashes 0 and 0).
#[test]
fn a_state_past_the_logs_end_is_refused_naming_its_last_tick() {
    let dir = scratch("past-end");
    let log = read_log::<World>(&record(&dir)).expect("reads");
    let last = log.last_tick();
    let state = client::logs::replay::verified_state_at(&log, last).expect("the last tick");
    assert_eq!(state.tick(), last);
    let err = client::logs::replay::verified_state_at(&log, last + 1).expect_err("past the end");
    assert!(
        matches!(err, Error::LogEndsBefore { tick, last: l } if tick == last + 1 && l == last),
        "{err:?}"
    );
    assert!(
        err.to_string().contains(&format!("ends at tick {last}")),
        "{err}"
    );
}

#[test]
fn a_flipped_byte_in_a_middle_record_names_its_offset_and_lsn() {
    let dir = scratch("flip");
    let path = record(&dir);
    let mut bytes = std::fs::read(&path).expect("read");
    let offsets = record_offsets(&bytes);
    let victim = offsets.len() / 2;
    bytes[offsets[victim] + PREFIX + 9] ^= 0x01;
    std::fs::write(&path, &bytes).expect("write");
    match read_log::<World>(&path) {
        Err(Error::LogCorrupt {
            offset,
            lsn,
            reason,
            ..
        }) => {
            assert_eq!(offset as usize, offsets[victim]);
            assert_eq!(lsn, victim as u64 + 1);
            assert!(reason.contains("checksum"), "{reason}");
        }
        other => panic!("expected a corrupt record error, got {other:?}"),
    }
}

#[test]
fn a_missing_record_breaks_the_lsn_chain_and_is_not_skipped() {
    let dir = scratch("gap");
    let path = record(&dir);
    let bytes = std::fs::read(&path).expect("read");
    let offsets = record_offsets(&bytes);
    let victim = offsets.len() / 2;
    let mut cut = bytes[..offsets[victim]].to_vec();
    cut.extend_from_slice(&bytes[offsets[victim + 1]..]);
    std::fs::write(&path, &cut).expect("write");
    let err = read_log::<World>(&path).unwrap_err();
    let Error::LogCorrupt {
        offset,
        lsn,
        reason,
        ..
    } = &err
    else {
        panic!("{err}")
    };
    assert_eq!(*offset as usize, offsets[victim], "{err}");
    assert_eq!(*lsn, victim as u64 + 2, "{err}");
    assert!(reason.contains("previous record is LSN"), "{err}");
}

#[test]
fn a_torn_tail_is_cut_at_the_last_whole_record_and_still_replays() {
    let dir = scratch("torn");
    let path = record(&dir);
    let full = read_log::<World>(&path).expect("reads");
    let bytes = std::fs::read(&path).expect("read");
    let offsets = record_offsets(&bytes);
    let keep = offsets[offsets.len() * 2 / 3] + 17; // in the middle of a record
    std::fs::write(&path, &bytes[..keep]).expect("truncate");
    let log = read_log::<World>(&path).expect("a torn tail is not an error");
    assert_eq!(log.torn_bytes, 17);
    assert!(log.end.is_none());
    assert!(log.last_tick() < full.last_tick());
    let report = verify(&log, None).expect("verifies up to the cut");
    assert_eq!(report.ticks, log.last_tick());
    let mut replay = Replay::new(log.clone()).expect("replay");
    replay.seek(log.last_tick()).expect("seeks to the cut");
    assert_eq!(
        replay.world().state_hash(),
        log.ticks.last().expect("ticks").hash
    );
}

#[test]
fn another_format_version_is_refused_by_name() {
    let dir = scratch("version");
    let path = dir.join("future.log");
    let world = World::new(Rules::default(), 1, 2).expect("world");
    let mut header = LogHeader::for_game(&world, "local", None);
    header.format_version = LOG_FORMAT_VERSION + 1;
    drop(MatchLogWriter::create(&path, &header, &world, 300).expect("write"));
    let err = read_log::<World>(&path).unwrap_err();
    assert!(
        matches!(err, Error::LogVersion { found, .. } if found == LOG_FORMAT_VERSION + 1),
        "{err}"
    );
}

#[test]
fn another_rules_hash_is_refused_by_name() {
    let dir = scratch("rules");
    let path = dir.join("tampered.log");
    let world = World::new(Rules::default(), 1, 2).expect("world");
    let mut header = LogHeader::for_game(&world, "local", None);
    header.rules_hash ^= 0xFF;
    drop(MatchLogWriter::create(&path, &header, &world, 300).expect("write"));
    let log = read_log::<World>(&path).expect("the framing is intact");
    let err = verify(&log, None).unwrap_err();
    assert!(matches!(err, Error::LogRulesMismatch { .. }), "{err}");
    // And an intact log verified against other rules.
    let good = read_log::<World>(&record(&dir)).expect("reads");
    let other = Rules {
        max_hp: 90,
        ..Rules::default()
    };
    assert!(matches!(
        verify(&good, Some(&other)),
        Err(Error::LogRulesMismatch { .. })
    ));
}

#[test]
fn a_match_killed_with_sigkill_resumes_and_matches_the_uninterrupted_run() {
    let dir = scratch("kill");
    let exe = env!("CARGO_BIN_EXE_duel-cli");
    let log = dir.join("killed.log");
    let mut child = KillOnDrop(
        Command::new(exe)
            .args([
                "bot-match",
                "--seed",
                "11",
                "--bot-seed",
                "12",
                "--no-stop",
                "--ticks",
                "10000000",
            ])
            .arg("--match-log")
            .arg(&log)
            .spawn()
            .expect("spawn"),
    );
    // Kill it at whatever moment it has written some checkpoints' worth of ticks.
    wait_until(&mut child, CHILD_LIMIT, "150 kB of match log", || {
        std::fs::metadata(&log).map_or(0, |m| m.len()) >= 150_000
    });
    child.kill().expect("SIGKILL");
    wait_within(&mut child, CHILD_LIMIT, "the killed bot match");
    let cut = read_log::<World>(&log).expect("a killed log reads (torn tail cut)");
    let killed_at = cut.last_tick();
    let target = killed_at + 2000;
    let resumed = output_within(
        Command::new(exe)
            .arg("resume")
            .arg(&log)
            .args(["--ticks", &target.to_string()])
            .arg("--hash-log")
            .arg(dir.join("resumed.hashlog")),
        CHILD_LIMIT,
    );
    assert!(
        resumed.status.success(),
        "{}",
        String::from_utf8_lossy(&resumed.stderr)
    );
    let straight = output_within(
        Command::new(exe)
            .args([
                "bot-match",
                "--seed",
                "11",
                "--bot-seed",
                "12",
                "--no-stop",
                "--ticks",
                &target.to_string(),
            ])
            .arg("--hash-log")
            .arg(dir.join("straight.hashlog")),
        CHILD_LIMIT,
    );
    assert!(straight.status.success());
    let after: Vec<_> = read_hash_log::<World>(&dir.join("resumed.hashlog")).expect("resumed log");
    let all: Vec<_> = read_hash_log::<World>(&dir.join("straight.hashlog")).expect("straight log");
    assert_eq!(after.len() as u32, target - killed_at);
    assert_eq!(
        after[..],
        all[killed_at as usize..],
        "every tick after the resume matches"
    );
    // The continued log replays from the start, through the resume point, to the end.
    let whole = read_log::<World>(&log).expect("continued log reads");
    assert_eq!(whole.last_tick(), target);
    verify(&whole, None).expect("the resumed log verifies end to end");
}

/// A log whose embedded rules bytes are malformed (cut, one byte longer, garbage) is refused
/// with an error by verify, replay and resume (a malformed value once panicked inside the
/// rules parser).
#[test]
fn malformed_rules_in_a_log_are_an_error_not_a_panic() {
    let dir = scratch("bad-rules");
    let world = World::new(Rules::default(), 1, 2).expect("world");
    let good = LogHeader::for_game(&world, "bot-match", Some(4)).rules;
    let mut longer = good.clone();
    longer.push(0);
    for bad in [
        Vec::new(),
        good[..good.len() - 1].to_vec(),
        longer,
        vec![0xff; good.len()],
        vec![0; good.len()],
    ] {
        let path = dir.join("bad-rules.log");
        let mut header = LogHeader::for_game(&world, "bot-match", Some(4));
        let bad = {
            header.rules = bad;
            header.rules.len()
        };
        drop(MatchLogWriter::create(&path, &header, &world, 300).expect("write"));
        let log = read_log::<World>(&path).expect("the framing is intact");
        assert!(verify(&log, None).is_err(), "verify {bad}");
        assert!(Replay::new(log.clone()).is_err(), "replay {bad}");
        assert!(client::logs::replay::recover(log).is_err(), "resume {bad}");
    }
}

/// A crafted log with a checkpoint at the last tick reads, replays and resumes with errors or
/// at its end, never with an overflow panic (the state at `Tick::MAX` restores).
#[test]
fn a_checkpoint_at_the_last_tick_is_handled_without_overflow() {
    use client::logs::matchlog::{Record, TickRecord};
    let dir = scratch("last-tick");
    let fresh = World::new(Rules::default(), 1, 2).expect("world");
    let mut snap = fresh.snapshot();
    snap.tick = engine::Tick::MAX;
    let world = World::from_snapshot(Rules::default(), &snap).expect("the last tick restores");
    let header = LogHeader::for_game(&world, "bot-match", Some(4));
    let path = dir.join("last.log");
    let mut writer = MatchLogWriter::create(&path, &header, &world, 300).expect("write");
    let next = TickRecord {
        tick: 0,
        inputs: Vec::new(),
        hash: world.state_hash(),
        audit: Vec::new(),
    };
    assert!(matches!(
        writer.record_tick(&next, None),
        Err(Error::HashLogOrder { .. })
    ));
    writer.flush().expect("flush");
    drop(writer);
    let mut replay = Replay::new(read_log::<World>(&path).expect("reads")).expect("replays");
    assert!(!replay.step().expect("the end of the log"));
    client::logs::replay::recover(read_log::<World>(&path).expect("reads")).expect("resumes");
    // A tick record after it cannot follow the last tick.
    let mut writer = MatchLogWriter::create(&path, &header, &world, 300).expect("write");
    writer.append(&Record::Tick(next)).expect("append");
    writer.flush().expect("flush");
    drop(writer);
    assert!(matches!(
        read_log::<World>(&path),
        Err(Error::LogCorrupt { .. })
    ));
}
