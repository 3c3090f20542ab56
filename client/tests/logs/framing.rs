//! Match-log framing under damage: a length is checked before it is trusted, crafted records
//! are refused by name instead of panicking or hanging, a zero-filled tail is cut like a torn
//! one, and a file that is not a match log says so.

use super::{record, record_offsets, scratch, within_a_minute, PREFIX};
use crate::child::{output_within, CHILD_LIMIT};
use client::logs::matchlog::{
    read_log, LogHeader, MatchLog, MatchLogWriter, Record, TickRecord, LOG_FORMAT_VERSION,
    LOG_MAGIC,
};
use client::logs::replay::{recover, verify, Replay};
use client::Error;
use engine::{Bot, Rules, World};
use std::path::Path;
use std::process::Command;

/// A log writer for `world` whose header says `mode` (checkpoints only when asked).
fn writer(path: &Path, world: &World, mode: &str, bot_seed: Option<u64>) -> MatchLogWriter<World> {
    let header = LogHeader::for_game(world, mode, bot_seed).with_stop(10_000, false);
    MatchLogWriter::create(path, &header, world, u32::MAX).expect("create")
}

/// Steps `world` with bots `n` times, appending each tick record to `log` (no checkpoints);
/// returns the records.
fn play(
    world: &mut World,
    bots: &mut [Bot],
    n: u32,
    log: &mut MatchLogWriter<World>,
) -> Vec<TickRecord<World>> {
    let mut records = Vec::new();
    for _ in 0..n {
        let inputs: Vec<_> = bots.iter_mut().map(|b| b.think(world)).collect();
        world.step(&inputs).expect("step");
        let record = TickRecord {
            tick: world.tick(),
            inputs: inputs.iter().map(|i| i.to_wire()).collect(),
            hash: world.state_hash(),
            audit: crate::audited(world.events()),
        };
        log.append(&Record::Tick(record.clone())).expect("append");
        records.push(record);
    }
    records
}

/// A log at `path` holding only the header for `world`, reopened for crafted appends.
fn header_only(path: &Path, world: &World) -> MatchLogWriter<World> {
    drop(writer(path, world, "bot-match", Some(1)));
    let bytes = std::fs::read(path).expect("read");
    std::fs::write(path, &bytes[..record_offsets(&bytes)[1]]).expect("cut");
    let head = read_log::<World>(path).expect("a header-only log reads");
    MatchLogWriter::resume(path, &head, u32::MAX).expect("reopen")
}

fn bots() -> Vec<Bot> {
    vec![Bot::new(0, 1), Bot::new(1, 2)]
}

/// Contract: a flipped bit in a record's length field is corruption named by offset and LSN,
/// never a torn tail that `verify` accepts or `resume` cuts.
#[test]
fn a_flipped_bit_in_a_length_field_is_corruption_not_a_torn_tail() {
    let dir = scratch("length-flip");
    let path = record(&dir);
    let mut bytes = std::fs::read(&path).expect("read");
    let offsets = record_offsets(&bytes);
    let victim = offsets.len() / 3;
    for bit in [17, 3, 37] {
        // A longer length (past the end of the file), a shorter one, and an LSN off by 32
        // (the error names the LSN expected there, not the damaged one).
        let mut damaged = bytes.clone();
        damaged[offsets[victim] + bit / 8] ^= 1 << (bit % 8);
        std::fs::write(&path, &damaged).expect("write");
        match read_log::<World>(&path) {
            Err(Error::LogCorrupt {
                offset,
                lsn,
                reason,
                ..
            }) => {
                assert_eq!(offset as usize, offsets[victim], "bit {bit}");
                assert_eq!(lsn, victim as u64 + 1, "bit {bit}");
                assert!(reason.contains("prefix check"), "{reason}");
            }
            other => panic!("bit {bit}: expected a corrupt record, got {other:?}"),
        }
    }
    bytes[offsets[victim] + 2] ^= 1 << 1;
    std::fs::write(&path, &bytes).expect("write");
    let exe = env!("CARGO_BIN_EXE_duel-cli");
    let verify = output_within(Command::new(exe).arg("verify").arg(&path), CHILD_LIMIT);
    assert_eq!(verify.status.code(), Some(1), "verify must fail");
    let stderr = String::from_utf8_lossy(&verify.stderr);
    assert!(
        stderr.contains(&format!("corrupt record at byte {}", offsets[victim])),
        "{stderr}"
    );
    let resume = output_within(Command::new(exe).arg("resume").arg(&path), CHILD_LIMIT);
    assert!(!resume.status.success(), "resume must refuse");
    assert!(
        std::fs::read(&path).expect("read") == bytes,
        "nothing was cut"
    );
}

/// Contract: a checksum-valid tick record after a checkpoint at tick `u32::MAX` is refused by
/// name (it used to panic with an addition overflow).
#[test]
fn a_tick_after_a_checkpoint_at_the_last_tick_is_refused_not_an_overflow() {
    let dir = scratch("overflow");
    let path = dir.join("crafted.log");
    let world = World::new(Rules::default(), 1, 2).expect("world");
    let mut last = world.state().clone();
    last.tick = u32::MAX;
    let mut log = header_only(&path, &world);
    log.append(&Record::Checkpoint {
        tick: u32::MAX,
        snapshot: last.to_bytes(),
    })
    .expect("append");
    log.append(&Record::Tick(TickRecord {
        tick: 0,
        inputs: vec![engine::InputCmd::idle(0).to_wire(); 2],
        hash: world.state_hash(),
        audit: Vec::new(),
    }))
    .expect("append");
    drop(log);
    let offsets = record_offsets(&std::fs::read(&path).expect("read"));
    match read_log::<World>(&path) {
        Err(Error::LogCorrupt {
            offset,
            lsn,
            reason,
            ..
        }) => {
            assert_eq!(offset as usize, offsets[2]);
            assert_eq!(lsn, 3);
            assert!(reason.contains("follows tick 4294967295"), "{reason}");
        }
        other => panic!("expected a corrupt record, got {other:?}"),
    }
}

/// Contract: a checkpoint whose snapshot is of another tick is refused when read, and a replay
/// of such a log (built by hand) fails instead of spinning forever.
#[test]
fn a_checkpoint_disagreeing_with_its_snapshot_is_refused_not_a_hang() {
    let dir = scratch("ckpt-tick");
    let path = dir.join("crafted.log");
    let mut world = World::new(Rules::default(), 1, 2).expect("world");
    let mut bots = bots();
    let mut scratch_log = writer(&dir.join("scratch.log"), &world, "local", None);
    play(&mut world, &mut bots, 2, &mut scratch_log);
    let early = world.state().to_bytes(); // tick 2
    play(&mut world, &mut bots, 8, &mut scratch_log);
    // A log starting at tick 10 whose second checkpoint claims tick 10 but holds tick 2.
    let mut log = writer(&path, &world, "bot-match", Some(1));
    log.append(&Record::Checkpoint {
        tick: 10,
        snapshot: early.clone(),
    })
    .expect("append");
    let ticks = play(&mut world, &mut bots, 5, &mut log);
    drop(log);
    let bytes = std::fs::read(&path).expect("read");
    let offsets = record_offsets(&bytes);
    match read_log::<World>(&path) {
        Err(Error::LogCorrupt {
            offset,
            lsn,
            reason,
            ..
        }) => {
            assert_eq!(offset as usize, offsets[2]);
            assert_eq!(lsn, 3);
            assert!(reason.contains("holds a snapshot of tick 2"), "{reason}");
        }
        other => panic!("expected a corrupt record, got {other:?}"),
    }
    // The same log assembled in memory, past the reader: replaying it ends in an error.
    std::fs::write(&path, &bytes[..offsets[2]]).expect("keep header and first checkpoint");
    let prefix: MatchLog<World> = read_log::<World>(&path).expect("the prefix reads");
    let mut crafted = prefix.clone();
    crafted.checkpoints = vec![(10, early)];
    crafted.ticks = ticks.clone();
    let result = within_a_minute(move || recover(crafted).map(|w| w.tick()));
    assert!(
        matches!(result, Err(Error::VerifyMismatch { tick: 10, .. })),
        "{result:?}"
    );
    // Tick records that do not start right after the checkpoint: the seek stops at the gap.
    let mut gapped = prefix;
    gapped.ticks = ticks[2..].to_vec();
    let result = within_a_minute(move || recover(gapped).map(|w| w.tick()));
    assert!(
        matches!(result, Err(Error::TickRecordMissing { tick: 11 })),
        "{result:?}"
    );
}

/// Contract: zero bytes at the end of a log (allocated, never written: a power loss) are cut
/// like a torn tail and reported, whether they follow the last whole record or fill the last
/// record's end.
#[test]
fn a_zero_filled_tail_is_cut_like_a_torn_tail() {
    let dir = scratch("zeros");
    let path = record(&dir);
    let full = read_log::<World>(&path).expect("reads");
    let bytes = std::fs::read(&path).expect("read");
    let offsets = record_offsets(&bytes);
    // Whole records, then a page of zeros.
    let mut padded = bytes.clone();
    padded.extend_from_slice(&[0; 4096]);
    std::fs::write(&path, &padded).expect("write");
    let log = read_log::<World>(&path).expect("a zero-filled tail is not an error");
    assert_eq!(log.last_lsn, full.last_lsn);
    assert_eq!((log.torn_bytes, log.zeroed_tail), (4096, true));
    assert!(log.tail_report().expect("reported").contains("zero-filled"));
    // The last two records' bytes zeroed from the middle of the first of them, plus more zeros.
    let victim = offsets[offsets.len() - 2];
    let mut zeroed = bytes[..victim + PREFIX + 3].to_vec();
    zeroed.resize(bytes.len() + 512, 0);
    std::fs::write(&path, &zeroed).expect("write");
    let log = read_log::<World>(&path).expect("zeros through the end of the last records");
    assert_eq!(log.valid_len as usize, victim);
    assert!(log.zeroed_tail);
    verify(&log, None).expect("what is left verifies");
    // Zeros from inside a record's prefix.
    let mut zeroed = bytes[..victim + 10].to_vec();
    zeroed.resize(bytes.len(), 0);
    std::fs::write(&path, &zeroed).expect("write");
    let log = read_log::<World>(&path).expect("zeros from inside a prefix");
    assert_eq!((log.valid_len as usize, log.zeroed_tail), (victim, true));
}

/// Contract: a file that is not a match log is named as such (no magic), a hash log is
/// recognised, and a version-1 log (before the magic) is refused as version 1.
#[test]
fn a_file_without_the_magic_is_not_a_match_log() {
    let dir = scratch("magic");
    let path = dir.join("notes.txt");
    std::fs::write(&path, b"cargo test is great, hello world!").expect("write");
    let err = read_log::<World>(&path).unwrap_err();
    assert!(
        matches!(
            &err,
            Error::NotALog {
                expected: "match log",
                ..
            }
        ),
        "{err}"
    );
    assert!(!err.to_string().contains("declares"), "{err}");
    std::fs::write(&path, b"# duel hash log v1 seed=1\n# tick combined\n").expect("write");
    let err = read_log::<World>(&path).unwrap_err();
    assert!(err.to_string().contains("a hash log"), "{err}");
    // A version-1 file: the old framing (no magic, no prefix check), header first.
    let mut v1 = Vec::new();
    v1.extend_from_slice(&40u32.to_le_bytes());
    v1.extend_from_slice(&1u64.to_le_bytes());
    v1.extend_from_slice(&0u64.to_le_bytes());
    v1.push(1);
    v1.extend_from_slice(&1u32.to_le_bytes());
    v1.extend_from_slice(&[0; 44]);
    std::fs::write(&path, &v1).expect("write");
    let err = read_log::<World>(&path).unwrap_err();
    assert!(
        matches!(
            err,
            Error::LogVersion {
                found: 1,
                expected: LOG_FORMAT_VERSION,
                ..
            }
        ),
        "{err}"
    );
    assert_eq!(LOG_MAGIC, b"DUELMLOG");
}

/// Contract: rules in a log header that do not parse are reported as the log's rules, not as
/// a "rules file".
#[test]
fn invalid_rules_in_a_log_are_named_as_the_logs_rules() {
    let dir = scratch("header-rules");
    let path = dir.join("bad.log");
    let world = World::new(Rules::default(), 1, 2).expect("world");
    let mut header = LogHeader::for_game(&world, "local", None);
    header.rules = b"max_hp = lots".to_vec();
    drop(MatchLogWriter::create(&path, &header, &world, 300).expect("write"));
    let log = read_log::<World>(&path).expect("the framing is intact");
    let err = verify(&log, None).unwrap_err().to_string();
    assert!(err.contains("rules recorded in the log header"), "{err}");
    assert!(!err.contains("rules file"), "{err}");
    let replay = Replay::new(log).unwrap_err().to_string();
    assert!(replay.contains("log header"), "{replay}");
}

/// Contract: a log longer than its reader's limit is refused by its length, before anything is
/// read into memory (a sparse file makes the test cheap).
#[test]
fn a_log_over_the_size_limit_is_refused_before_it_is_read() {
    let dir = scratch("too-large");
    let path = dir.join("huge.log");
    let file = std::fs::File::create(&path).expect("create");
    file.set_len((1 << 30) + 1).expect("sparse length");
    let err = read_log::<World>(&path).unwrap_err();
    assert!(
        matches!(err, Error::LogTooLarge { limit, .. } if limit == 1 << 30),
        "{err}"
    );
    let err = client::logs::hashlog::read_hash_log_file::<World>(&path).unwrap_err();
    assert!(matches!(err, Error::LogTooLarge { .. }), "{err}");
}

/// Contract: a match log carries every rail shot record (view, clamp, target, outcome), and
/// `verify` re-simulates them: a log whose shot record was changed — checksums intact — is a
/// mismatch named by its tick, not a pass.
#[test]
fn rail_shot_records_are_logged_and_verified() {
    let dir = scratch("rail-shots");
    let path = dir.join("rail.log");
    let mut world = World::new(Rules::default(), 5, 2).expect("world");
    let mut log = writer(&path, &world, "bot-match", Some(1));
    let records = play(&mut world, &mut bots(), 3000, &mut log);
    drop(log);
    let shots: Vec<&TickRecord<World>> = records.iter().filter(|r| !r.audit.is_empty()).collect();
    assert!(shots.len() >= 3, "the bots fired the rail: {}", shots.len());
    let read = read_log::<World>(&path).expect("reads");
    assert_eq!(read.ticks, records, "the shot records read back");
    verify(&read, None).expect("the logged shots re-simulate");

    // The same log with one shot's distance changed, written record by record (checksums
    // are valid: only re-simulation can tell).
    let forged_path = dir.join("forged.log");
    let world = World::new(Rules::default(), 5, 2).expect("world");
    let mut forged = writer(&forged_path, &world, "bot-match", Some(1));
    let victim = shots[0].tick;
    for mut r in records.clone() {
        if r.tick == victim {
            r.audit[0].distance += engine::Fx::from_num(1);
        }
        forged.append(&Record::Tick(r)).expect("append");
    }
    drop(forged);
    match verify(&read_log::<World>(&forged_path).expect("reads"), None) {
        Err(Error::AuditMismatch { tick, .. }) => assert_eq!(tick, victim),
        other => panic!("expected an audit mismatch at tick {victim}, got {other:?}"),
    }
}

/// Contract: `verify` re-simulates and reports the first tick whose logged state hash differs,
/// naming the section, and `duel-cli verify` says so and exits 1 — a log whose checksums are
/// intact but whose history is not the one the inputs produce is not a pass.
#[test]
fn verify_names_the_first_tick_whose_state_differs() {
    let dir = scratch("verify-mismatch");
    let path = dir.join("forged.log");
    let mut world = World::new(Rules::default(), 5, 2).expect("world");
    let mut scratch_log = writer(&dir.join("honest.log"), &world, "bot-match", Some(1));
    let records = play(&mut world, &mut bots(), 600, &mut scratch_log);
    drop(scratch_log);
    verify(
        &read_log::<World>(&dir.join("honest.log")).expect("reads"),
        None,
    )
    .expect("honest verifies");
    let world = World::new(Rules::default(), 5, 2).expect("world");
    let mut forged = writer(&path, &world, "bot-match", Some(1));
    for mut r in records {
        if r.tick == 400 {
            r.hash.projectiles ^= 1;
        }
        forged.append(&Record::Tick(r)).expect("append");
    }
    drop(forged);
    match verify(&read_log::<World>(&path).expect("reads"), None) {
        Err(Error::VerifyMismatch { tick, section, .. }) => {
            assert_eq!((tick, section), (400, "projectiles"));
        }
        other => panic!("expected a mismatch at tick 400, got {other:?}"),
    }
    let out = output_within(
        Command::new(env!("CARGO_BIN_EXE_duel-cli"))
            .arg("verify")
            .arg(&path),
        CHILD_LIMIT,
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains("400") && stderr.contains("projectiles"),
        "{stderr}"
    );
}

/// Issue 18 item 6: a tick record whose sections are right but whose combined hash is wrong
/// (forged with a valid checksum) is refused by `verify` naming the combined hash; so is a log
/// whose header names another engine version or state format.
#[test]
fn verify_checks_the_combined_hash_and_the_build_that_wrote_the_log() {
    let dir = scratch("combined-hash");
    let world = World::new(Rules::default(), 5, 2).expect("world");
    let path = dir.join("forged.log");
    {
        let mut log = writer(&path, &world, "bot-match", Some(1));
        let mut w = world.clone();
        let mut records = play(&mut w, &mut bots(), 3, &mut log);
        let mut forged = records.pop().expect("a record");
        forged.tick += 1;
        let inputs: Vec<_> = bots().iter_mut().map(|b| b.think(&w)).collect();
        w.step(&inputs).expect("step");
        forged.inputs = inputs.iter().map(|i| i.to_wire()).collect();
        forged.hash = w.state_hash();
        forged.hash.combined ^= 1;
        forged.audit = Vec::new();
        log.append(&Record::Tick(forged)).expect("append");
        log.flush().expect("flush");
    }
    match verify(&read_log::<World>(&path).expect("reads"), None) {
        Err(Error::VerifyMismatch {
            tick: 4, section, ..
        }) => assert_eq!(section, "combined"),
        other => panic!("expected the combined hash named at tick 4, got {other:?}"),
    }
    for (edit, what) in [
        (
            (|h: &mut LogHeader| h.game_version.push('x')) as fn(&mut LogHeader),
            "game version",
        ),
        (|h: &mut LogHeader| h.state_format += 1, "state format"),
    ] {
        let mut log = read_log::<World>(&record(&dir)).expect("reads");
        edit(&mut log.header);
        let err = verify(&log, None).expect_err("another build");
        assert!(
            matches!(&err, Error::LogBuild { what: w, .. } if *w == what),
            "{err}"
        );
    }
}

/// Issue 18 item 6: `state` and `resume` used to believe a checkpoint on its own: a forged one
/// (a valid checksum over another state, with tick records that follow from it) was taken as
/// the match. Both now re-simulate from the header and refuse it at its tick.
#[test]
fn a_forged_checkpoint_is_refused_by_state_and_resume() {
    let dir = scratch("forged-checkpoint");
    let path = dir.join("forged.log");
    let world = World::new(Rules::default(), 5, 2).expect("world");
    {
        let mut log = writer(&path, &world, "bot-match", Some(1));
        let mut w = world.clone();
        play(&mut w, &mut bots(), 20, &mut log);
        // Another match at the same tick, presented as this one's checkpoint.
        let mut other = World::new(Rules::default(), 6, 2).expect("world");
        let mut other_bots = bots();
        for _ in 0..20 {
            let inputs: Vec<_> = other_bots.iter_mut().map(|b| b.think(&other)).collect();
            other.step(&inputs).expect("step");
        }
        log.append(&Record::Checkpoint {
            tick: 20,
            snapshot: other.state().to_bytes(),
        })
        .expect("append");
        play(&mut other, &mut other_bots, 10, &mut log);
        log.flush().expect("flush");
    }
    let log = read_log::<World>(&path).expect("reads");
    let err = client::forensics::dumps::state_at::<World>(&path, Some(25)).expect_err("forged");
    assert!(
        err.to_string().contains("re-simulating to tick 25"),
        "{err}"
    );
    assert!(
        matches!(
            client::logs::replay::verified_state_at(&log, 25),
            Err(Error::VerifyMismatch { tick: 20, .. })
        ),
        "the forged checkpoint is named at its tick"
    );
    let resumed = client::runs::resume_logged_bot_match(&client::runs::Resume {
        log: path.clone(),
        ticks: Some(100),
        hash_log: None,
    });
    assert!(
        matches!(resumed, Err(Error::VerifyMismatch { tick: 20, .. })),
        "{resumed:?}"
    );
    assert_eq!(
        read_log::<World>(&path).expect("reads").last_tick(),
        30,
        "nothing was cut or appended"
    );
}
