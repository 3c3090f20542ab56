//! Resuming: only what can be continued honestly, to where the original run would have
//! stopped, under an exclusive lock, saying where it resumed and what it cut.

use super::{frame, record_offsets, scratch, PREFIX};
use crate::child::{output_within, CHILD_LIMIT};
use client::logs::matchlog::{read_log, LogHeader, MatchLogWriter};
use client::logs::replay::verify;
use client::runs::{resume_logged_bot_match, run_bot_match, BotMatch, Resume};
use client::Error;
use engine::{Rules, World};
use std::path::{Path, PathBuf};
use std::process::Command;

fn bot_match(path: &Path, ticks: u32, stop_at_match_end: bool) -> client::runs::BotMatchSummary {
    run_bot_match(&BotMatch {
        rules: Rules::default(),
        seed: 3,
        bot_seed: 8,
        players: 2,
        ticks,
        stop_at_match_end,
        hash_log: None,
        match_log: Some(path.to_owned()),
    })
    .expect("match")
}

/// Cuts `path` as a kill would: the end record and some ticks gone, a torn record at the end.
fn kill_at_two_thirds(path: &Path) {
    let bytes = std::fs::read(path).expect("read");
    let offsets = record_offsets(&bytes);
    std::fs::write(path, &bytes[..offsets[offsets.len() * 2 / 3] + 30]).expect("cut");
}

fn resume(path: &Path, ticks: Option<u32>) -> Result<client::runs::ResumeSummary, Error> {
    resume_logged_bot_match(&Resume {
        log: path.to_owned(),
        ticks,
        hash_log: None,
    })
}

/// Contract: a networked or human-played log is refused by `resume` (its other players'
/// inputs cannot be invented), and nothing in it is cut.
#[test]
fn resume_refuses_a_networked_log_instead_of_inventing_inputs() {
    let dir = scratch("resume-net");
    let world = World::new(Rules::default(), 1, 2).expect("world");
    for mode in ["host", "join", "spectate", "local"] {
        let path = dir.join(format!("{mode}.log"));
        let header = LogHeader::for_game(&world, mode, Some(7)).with_stop(3600, false);
        drop(MatchLogWriter::create(&path, &header, &world, 300).expect("write"));
        let mut bytes = std::fs::read(&path).expect("read");
        bytes.extend_from_slice(&[1, 2, 3]); // a torn tail
        std::fs::write(&path, &bytes).expect("write");
        let err = resume(&path, None).unwrap_err();
        assert!(
            matches!(err, Error::LogNotResumable { .. }),
            "{mode}: {err}"
        );
        assert!(err.to_string().contains(mode), "{err}");
        assert!(
            std::fs::read(&path).expect("read") == bytes,
            "{mode}: nothing cut"
        );
        assert!(
            read_log::<World>(&path).expect("reads").end.is_none(),
            "not marked ended"
        );
    }
}

/// Contract: `resume` without `--ticks` plays to the stop the log's header records — the
/// original target, or the end of the match when the run stopped there — and the result is
/// the uninterrupted run's.
#[test]
fn resume_with_defaults_stops_where_the_original_run_would_have() {
    let dir = scratch("resume-stop");
    for (ticks, stop) in [(700, false), (20_000, true)] {
        let path = dir.join(format!("{ticks}.log"));
        let straight = bot_match(&path, ticks, stop);
        kill_at_two_thirds(&path);
        let resumed = resume(&path, None).expect("resumes");
        assert_eq!(resumed.target, ticks);
        assert_eq!(resumed.played, straight, "ticks={ticks} stop={stop}");
        let log = read_log::<World>(&path).expect("reads");
        assert_eq!(log.end.as_ref().map(|e| e.0), Some(straight.ticks));
        verify(&log, None).expect("verifies end to end");
    }
}

/// Contract: a log another writer holds (the match still running) is neither resumed nor
/// recreated over; the running writer's records stay intact.
#[test]
fn a_log_being_written_cannot_be_resumed_or_recreated() {
    let dir = scratch("resume-lock");
    let path = dir.join("running.log");
    let world = World::new(Rules::default(), 1, 2).expect("world");
    let header = LogHeader::for_game(&world, "bot-match", Some(2)).with_stop(3600, false);
    let running = MatchLogWriter::create(&path, &header, &world, 300).expect("write");
    let before = std::fs::read(&path).expect("read");
    let err = resume(&path, None).unwrap_err();
    assert!(matches!(err, Error::LogLocked { .. }), "{err}");
    let again = MatchLogWriter::create(&path, &header, &world, 300).unwrap_err();
    assert!(matches!(again, Error::LogLocked { .. }), "{again}");
    assert!(
        std::fs::read(&path).expect("read") == before,
        "nothing truncated"
    );
    drop(running);
    resume(&path, Some(10)).expect("resumes once the writer is gone");
}

/// Contract: `duel-cli resume` says where it resumed from (tick, checkpoint) and what it cut.
#[test]
fn resume_says_where_it_resumed_from_and_what_it_cut() {
    let dir = scratch("resume-say");
    let path: PathBuf = dir.join("said.log");
    bot_match(&path, 1000, false);
    kill_at_two_thirds(&path);
    let cut = read_log::<World>(&path).expect("reads");
    let out = output_within(
        Command::new(env!("CARGO_BIN_EXE_duel-cli"))
            .arg("resume")
            .arg(&path),
        CHILD_LIMIT,
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    let checkpoint = cut
        .checkpoint_before(cut.last_tick())
        .expect("checkpoint")
        .0;
    assert!(
        stdout.contains(&format!(
            "resumed at tick {} (checkpoint of tick {checkpoint},",
            cut.last_tick()
        )),
        "{stdout}"
    );
    assert!(
        stdout.contains(&format!(
            "torn tail (a record cut short: the writer died mid-write): {} bytes",
            cut.torn_bytes
        )),
        "{stdout}"
    );
    assert!(stdout.contains("played to tick 1000 of 1000"), "{stdout}");
}

/// Contract: a log whose ticks do not re-simulate is refused by `resume` before anything in
/// the file is touched (its torn tail included).
#[test]
fn resume_of_a_log_that_does_not_replay_cuts_nothing() {
    let dir = scratch("resume-mismatch");
    let path = dir.join("bad.log");
    bot_match(&path, 700, false);
    kill_at_two_thirds(&path);
    let mut bytes = std::fs::read(&path).expect("read");
    let offsets = record_offsets(&bytes);
    // The last whole record before the torn one: a tick record; change its state hash (just
    // before its rail-shot list, here empty: a zero 8-byte count ends the payload) and frame
    // it again so every check holds.
    let (start, end) = (offsets[offsets.len() - 2], offsets[offsets.len() - 1]);
    assert_eq!(bytes[start + 20], 2, "a tick record");
    let lsn = u64::from_le_bytes(bytes[start + 4..start + 12].try_into().expect("8"));
    let mut payload = bytes[start + PREFIX..end - 8].to_vec();
    let shots_at = payload.len() - 8;
    assert_eq!(payload[shots_at..], [0; 8], "a record without rail shots");
    payload[shots_at - 1] ^= 1;
    bytes.splice(start..end, frame(lsn, 2, &payload));
    std::fs::write(&path, &bytes).expect("write");
    let err = resume(&path, None).unwrap_err();
    assert!(matches!(err, Error::VerifyMismatch { .. }), "{err}");
    assert!(std::fs::read(&path).expect("read") == bytes, "nothing cut");
}

/// Issue 18 item 3: a log torn inside its first checkpoint (the header written, the checkpoint
/// not) verifies as an empty cut log; `state --tick 0` and `resume` used to call it
/// non-deterministic ("differs from the log in section `checkpoint` (logged 0, got 0)"). The
/// header holds all that tick 0 needs: both work from it, and the resumed log verifies and ends
/// where the uninterrupted run does.
#[test]
fn a_log_torn_inside_its_first_checkpoint_resumes_from_its_header() {
    let dir = scratch("torn-first-checkpoint");
    let whole = dir.join("whole.log");
    let uninterrupted = bot_match(&whole, 600, false);
    let path = dir.join("torn.log");
    let bytes = std::fs::read(&whole).expect("read");
    let offsets = record_offsets(&bytes);
    // The header record, and the checkpoint's first 40 bytes.
    std::fs::write(&path, &bytes[..offsets[1] + 40]).expect("cut");
    let log = read_log::<World>(&path).expect("reads as a cut log");
    assert!(log.checkpoints.is_empty() && log.ticks.is_empty());
    let state = output_within(
        Command::new(env!("CARGO_BIN_EXE_duel-cli"))
            .arg("state")
            .arg(&path)
            .args(["--tick", "0"]),
        CHILD_LIMIT,
    );
    let text = String::from_utf8_lossy(&state.stdout);
    assert!(
        state.status.success(),
        "{}",
        String::from_utf8_lossy(&state.stderr)
    );
    assert!(text.contains("tick: 0"), "{text}");
    let resumed = resume(&path, Some(600)).expect("resumes from the header");
    assert_eq!(resumed.played.final_hash, uninterrupted.final_hash);
    let report = verify(&read_log::<World>(&path).expect("read"), None).expect("verifies");
    assert_eq!(report.ticks, 600);
    assert_eq!(
        std::fs::read(&path).expect("read"),
        bytes,
        "the resumed log is the uninterrupted one, byte for byte"
    );
}

/// Issue 18 item 5: a cut between a checkpoint tick's record and its checkpoint used to
/// resume without ever writing that checkpoint (the final hash right, one checkpoint fewer).
/// The resumed log is now the uninterrupted one, byte for byte.
#[test]
fn a_cut_before_a_checkpoint_resumes_writing_that_checkpoint() {
    let dir = scratch("cut-before-checkpoint");
    let whole = dir.join("whole.log");
    bot_match(&whole, 900, false);
    let bytes = std::fs::read(&whole).expect("read");
    let log = read_log::<World>(&whole).expect("read");
    let (at, _) = log.checkpoints[1].clone();
    assert!(at > 0, "a checkpoint after the first");
    // Cut right before that checkpoint's record: its tick's record is the last one kept.
    let offsets = record_offsets(&bytes);
    let cut = (offsets.iter().copied())
        .find(|&o| read_log_prefix_ends_at_tick(&bytes[..o], at))
        .expect("the offset of the checkpoint record");
    let path = dir.join("cut.log");
    std::fs::write(&path, &bytes[..cut]).expect("cut");
    let cut_log = read_log::<World>(&path).expect("reads");
    assert_eq!(cut_log.last_tick(), at);
    assert_eq!(cut_log.checkpoints.len(), 1);
    resume(&path, Some(900)).expect("resumes");
    assert_eq!(std::fs::read(&path).expect("read"), bytes);
}

/// Whether the log prefix `bytes` reads with its last tick record at `tick` and no checkpoint
/// for it yet.
fn read_log_prefix_ends_at_tick(bytes: &[u8], tick: engine::Tick) -> bool {
    let dir = std::env::temp_dir().join(format!("duel-logs-prefix-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("dir");
    let path = dir.join("prefix.log");
    std::fs::write(&path, bytes).expect("write");
    read_log::<World>(&path)
        .is_ok_and(|l| l.last_tick() == tick && l.checkpoints.last().is_none_or(|c| c.0 < tick))
}
