//! The match-log writer's own promises: its length is the file's, what `sync` and a due flush
//! hand to the OS is readable while it is still open, a log named without a directory is
//! created (its directory synced) in the working directory, and `resume` refuses a file that
//! moved on in either its last LSN or its length.

use super::scratch;
use crate::child::{output_within, CHILD_LIMIT};
use client::logs::matchlog::{read_log, LogHeader, MatchLogWriter, TickRecord};
use client::Error;
use engine::{Bot, Rules, World};
use std::path::Path;
use std::process::Command;

/// Steps `world` once with `bots` and returns the tick record.
fn step(world: &mut World, bots: &mut [Bot]) -> TickRecord<World> {
    let inputs: Vec<_> = bots.iter_mut().map(|b| b.think(world)).collect();
    world.step(&inputs).expect("step");
    TickRecord {
        tick: world.tick(),
        inputs: inputs.iter().map(|i| i.to_wire()).collect(),
        hash: world.state_hash(),
        audit: Vec::new(),
    }
}

/// A log of `ticks` bot ticks whose header says `mode`, closed (no end record).
fn log_with_mode(path: &Path, mode: &str, ticks: u32) {
    let mut world = World::new(Rules::default(), 1, 2).expect("world");
    let header = LogHeader::for_game(&world, mode, Some(1));
    let mut log = MatchLogWriter::create(path, &header, &world, 1000).expect("create");
    let mut bots = [Bot::new(0, 1), Bot::new(1, 2)];
    for _ in 0..ticks {
        let record = step(&mut world, &mut bots);
        log.record_tick(&record, None).expect("record");
    }
}

/// Contract: `len` counts every byte written (the file's length once flushed), a created log is
/// never empty, checkpoint ticks are the multiples of `checkpoint_every`, and a checkpoint
/// (flush and sync) reaches the file while the writer is still open.
#[test]
fn the_writer_length_is_the_file_length_and_a_checkpoint_reaches_the_file() {
    let dir = scratch("writing-len");
    let path = dir.join("len.log");
    let mut world = World::new(Rules::default(), 1, 2).expect("world");
    let header = LogHeader::for_game(&world, "bot-match", Some(1));
    let mut log = MatchLogWriter::create(&path, &header, &world, 3).expect("create");
    let file_len = || std::fs::metadata(&path).expect("metadata").len();
    assert!(!log.is_empty());
    assert_eq!(log.len(), file_len(), "create syncs");
    assert_eq!(
        (0..7)
            .map(|t| log.is_checkpoint_tick(t))
            .collect::<Vec<_>>(),
        [true, false, false, true, false, false, true]
    );
    let mut bots = [Bot::new(0, 1), Bot::new(1, 2)];
    let mut lens = vec![log.len()];
    for _ in 0..3 {
        let record = step(&mut world, &mut bots);
        let state = log.is_checkpoint_tick(record.tick).then(|| world.image());
        log.record_tick(&record, state.as_ref()).expect("record");
        lens.push(log.len());
    }
    assert!(lens.windows(2).all(|w| w[0] < w[1]), "{lens:?}");
    assert_eq!(log.len(), file_len(), "the checkpoint at tick 3 flushed");
    let read = read_log::<World>(&path).expect("reads while the writer is open");
    assert_eq!((read.last_tick(), read.valid_len), (3, log.len()));
    assert_eq!(read.checkpoints.last().map(|c| c.0), Some(3));
    log.sync().expect("sync");
    assert_eq!(log.len(), file_len());
}

/// Contract: records buffered for a second or more reach the file at the next record or
/// `flush_if_due`, and not before (the sleeps only make sure the second has passed; nothing
/// is timed).
#[test]
fn a_due_flush_hands_buffered_records_to_the_file() {
    let dir = scratch("writing-due");
    let path = dir.join("due.log");
    let mut world = World::new(Rules::default(), 1, 2).expect("world");
    let header = LogHeader::for_game(&world, "bot-match", Some(1));
    let mut log = MatchLogWriter::create(&path, &header, &world, 1000).expect("create");
    let mut bots = [Bot::new(0, 1), Bot::new(1, 2)];
    let second = std::time::Duration::from_millis(1100);
    std::thread::sleep(second);
    // A second after the last flush: this record is flushed with it.
    log.record_tick(&step(&mut world, &mut bots), None)
        .expect("record");
    assert_eq!(read_log::<World>(&path).expect("reads").last_tick(), 1);
    assert_eq!(log.last_tick(), 1);
    log.record_tick(&step(&mut world, &mut bots), None)
        .expect("record");
    std::thread::sleep(second);
    log.flush_if_due().expect("flush");
    assert_eq!(read_log::<World>(&path).expect("reads").last_tick(), 2);
    assert_eq!(log.last_tick(), 2);
}

/// Contract: a match log named without a directory is written to (and its directory entry
/// synced in) the working directory.
#[test]
fn a_match_log_named_without_a_directory_is_created_in_the_working_directory() {
    let dir = scratch("writing-relative");
    let out = output_within(
        Command::new(env!("CARGO_BIN_EXE_duel-cli"))
            .current_dir(&dir)
            .args(["bot-match", "--ticks", "30", "--match-log", "bare.log"]),
        CHILD_LIMIT,
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(
        read_log::<World>(&dir.join("bare.log"))
            .expect("reads")
            .last_tick(),
        30
    );
}

/// Contract: `resume` refuses a log that changed since it was read when either its last LSN or
/// its length differs, even if the other is unchanged.
#[test]
fn resume_refuses_a_log_whose_lsn_or_length_alone_changed() {
    let dir = scratch("writing-changed");
    let path = dir.join("a.log");
    log_with_mode(&path, "bot-match", 12);
    let read = read_log::<World>(&path).expect("reads");
    // Same records, a longer header: the same last LSN at another length.
    let longer = dir.join("longer.log");
    log_with_mode(&longer, "bot-match-with-a-longer-mode", 12);
    let l = read_log::<World>(&longer).expect("reads");
    assert_eq!(l.last_lsn, read.last_lsn);
    assert_ne!(l.valid_len, read.valid_len);
    // One tick fewer, the header longer by one tick record: another LSN at the same length.
    let eleven = dir.join("eleven.log");
    log_with_mode(&eleven, "bot-match", 11);
    let tick_len = read.valid_len - read_log::<World>(&eleven).expect("reads").valid_len;
    let shorter = dir.join("shorter.log");
    log_with_mode(
        &shorter,
        &format!("bot-match{}", "x".repeat(tick_len as usize)),
        11,
    );
    let s = read_log::<World>(&shorter).expect("reads");
    assert_eq!(s.valid_len, read.valid_len);
    assert_ne!(s.last_lsn, read.last_lsn);
    for (what, changed) in [("length", &longer), ("LSN", &shorter)] {
        std::fs::copy(changed, &path).expect("copy");
        let err = MatchLogWriter::resume(&path, &read, 1000).unwrap_err();
        assert!(matches!(err, Error::LogChanged { .. }), "{what}: {err}");
    }
}
