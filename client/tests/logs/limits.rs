//! Every check of the match-log and hash-log readers at its exact boundary: a limit is accepted
//! at the bound and refused one past it, and each part of a compound check is tested alone
//! while the others hold (mutation testing found these untested: see docs/mutation-testing.md).

use super::{scratch, xxh3, PREFIX};
use client::logs::hashlog::{read_hash_log_file, HashLogWriter};
use client::logs::matchlog::{
    read_log, LogHeader, MatchLog, MatchLogWriter, TickRecord, LOG_MAGIC,
};
use client::Error;
use engine::{Bot, Rules, StateHash, World};
use std::path::{Path, PathBuf};

/// The largest payload a record may declare (`record.rs`' `MAX_PAYLOAD`).
const MAX_PAYLOAD: u32 = 16 << 20;

/// A bot match of `ticks` ticks logged with a checkpoint every 5 ticks; `finish` adds the end
/// record. The file ends exactly at its last record.
fn small_log(dir: &Path, ticks: u32, finish: bool) -> PathBuf {
    let path = dir.join("small.log");
    let mut world = World::new(Rules::default(), 1, 2).expect("world");
    let header = LogHeader::for_game(&world, "bot-match", Some(1));
    let mut log = MatchLogWriter::create(&path, &header, &world, 5).expect("create");
    let mut bots = [Bot::new(0, 1), Bot::new(1, 2)];
    for _ in 0..ticks {
        let inputs: Vec<_> = bots.iter_mut().map(|b| b.think(&world)).collect();
        world.step(&inputs).expect("step");
        let record = TickRecord {
            tick: world.tick(),
            inputs: inputs.iter().map(|i| i.to_wire()).collect(),
            hash: world.state_hash(),
            audit: Vec::new(),
        };
        let state = log.is_checkpoint_tick(world.tick()).then(|| world.image());
        log.record_tick(&record, state.as_ref()).expect("record");
    }
    if finish {
        log.finish("completed").expect("finish");
    }
    path
}

/// A record's prefix as the writer frames it: `len`, `lsn`, `prev`, `kind`, prefix check.
fn prefix(len: u32, lsn: u64, prev: u64, kind: u8) -> Vec<u8> {
    let mut out = Vec::with_capacity(PREFIX);
    out.extend_from_slice(&len.to_le_bytes());
    out.extend_from_slice(&lsn.to_le_bytes());
    out.extend_from_slice(&prev.to_le_bytes());
    out.push(kind);
    let check = xxh3(&out) as u32;
    out.extend_from_slice(&check.to_le_bytes());
    out
}

/// A whole record with a valid prefix check and checksum, naming any `prev`.
fn framed(lsn: u64, prev: u64, kind: u8, payload: &[u8]) -> Vec<u8> {
    let mut out = prefix(payload.len() as u32, lsn, prev, kind);
    out.extend_from_slice(payload);
    let check = xxh3(&out);
    out.extend_from_slice(&check.to_le_bytes());
    out
}

/// `(offset, lsn, kind, payload)` of every record of a log file.
fn records(bytes: &[u8]) -> Vec<(usize, u64, u8, Vec<u8>)> {
    super::record_offsets(bytes)
        .into_iter()
        .map(|at| {
            let len = u32::from_le_bytes(bytes[at..at + 4].try_into().expect("4")) as usize;
            let lsn = u64::from_le_bytes(bytes[at + 4..at + 12].try_into().expect("8"));
            (
                at,
                lsn,
                bytes[at + 20],
                bytes[at + PREFIX..at + PREFIX + len].to_vec(),
            )
        })
        .collect()
}

/// Reads `bytes` written to `path`.
fn read_bytes(path: &Path, bytes: &[u8]) -> Result<MatchLog<World>, Error> {
    std::fs::write(path, bytes).expect("write");
    read_log::<World>(path)
}

/// The reason of a `LogCorrupt` error at `offset`, or a panic naming what came instead.
fn corrupt_at(result: Result<MatchLog<World>, Error>, offset: usize) -> String {
    match result {
        Err(Error::LogCorrupt {
            offset: at, reason, ..
        }) if at as usize == offset => reason,
        other => panic!("expected a corrupt record at {offset}, got {other:?}"),
    }
}

/// Contract: a log that ends exactly at a record has no tail: nothing cut, nothing reported,
/// not called zero-filled.
#[test]
fn a_log_ending_at_a_whole_record_has_no_tail() {
    let dir = scratch("limits-clean");
    let path = small_log(&dir, 12, true);
    let len = std::fs::metadata(&path).expect("metadata").len();
    let log = read_log::<World>(&path).expect("reads");
    assert_eq!((log.valid_len, log.torn_bytes), (len, 0));
    assert!(!log.zeroed_tail);
    assert_eq!(log.tail_report(), None);
    assert_eq!(log.end, Some((12, "completed".to_owned())));
}

/// Contract: the tail report says what was cut, how much, and after which byte, LSN and tick.
#[test]
fn the_torn_tail_report_names_its_length_offset_lsn_and_tick() {
    let dir = scratch("limits-report");
    let path = small_log(&dir, 12, false);
    let mut bytes = std::fs::read(&path).expect("read");
    let whole = bytes.len();
    let last_lsn = records(&bytes).last().expect("records").1;
    bytes.extend_from_slice(&prefix(100, last_lsn + 1, last_lsn, 2)[..7]);
    let log = read_bytes(&path, &bytes).expect("a torn tail reads");
    assert_eq!(
        log.tail_report().expect("a report"),
        format!(
            "torn tail (a record cut short: the writer died mid-write): 7 bytes after byte \
             {whole} (LSN {last_lsn}, tick 12)"
        )
    );
    bytes.truncate(whole);
    bytes.extend_from_slice(&[0; 7]);
    let log = read_bytes(&path, &bytes).expect("a zero-filled tail reads");
    assert!(log
        .tail_report()
        .expect("a report")
        .starts_with("zero-filled tail (space never written to disk, e.g. a power loss): 7 bytes"));
}

/// Contract: `checkpoint_before` gives the latest checkpoint at or before a tick, the one at
/// exactly that tick included.
#[test]
fn checkpoint_before_is_the_latest_at_or_before_the_tick() {
    let dir = scratch("limits-checkpoint");
    let log = read_log::<World>(&small_log(&dir, 12, false)).expect("reads");
    let ticks: Vec<u32> = log.checkpoints.iter().map(|c| c.0).collect();
    assert_eq!(ticks, [0, 5, 10]);
    for (tick, expected) in [(0, 0), (4, 0), (5, 5), (9, 5), (10, 10), (12, 10)] {
        let found = log.checkpoint_before(tick).expect("a checkpoint");
        assert_eq!(found.0, expected, "before tick {tick}");
        assert_eq!(
            engine::WorldSnapshot::from_bytes(found.1)
                .expect("decodes")
                .tick,
            expected
        );
    }
}

/// Contract: a record declaring exactly the largest payload is trusted as a record (cut short
/// here: a torn tail); one byte more is corruption named by the limit.
#[test]
fn a_record_length_is_accepted_at_the_limit_and_refused_one_past_it() {
    let dir = scratch("limits-payload");
    let path = small_log(&dir, 12, false);
    let bytes = std::fs::read(&path).expect("read");
    let last_lsn = records(&bytes).last().expect("records").1;
    for (len, refused) in [(MAX_PAYLOAD, false), (MAX_PAYLOAD + 1, true)] {
        let mut grown = bytes.clone();
        grown.extend_from_slice(&prefix(len, last_lsn + 1, last_lsn, 2));
        grown.extend_from_slice(&[0xA5; 100]);
        let result = read_bytes(&path, &grown);
        if refused {
            let reason = corrupt_at(result, bytes.len());
            assert!(reason.contains("more than the limit 16777216"), "{reason}");
        } else {
            let log = result.expect("a record at the limit, cut short, is a torn tail");
            assert_eq!(log.torn_bytes as usize, PREFIX + 100);
            assert!(!log.zeroed_tail);
        }
    }
}

/// Contract: fewer bytes than a prefix at the end are a torn tail whatever they hold; a whole
/// prefix that does not check is corruption.
#[test]
fn damaged_bytes_are_a_torn_tail_below_one_prefix_and_corruption_from_one_prefix() {
    let dir = scratch("limits-prefix");
    let path = small_log(&dir, 12, false);
    let bytes = std::fs::read(&path).expect("read");
    let mut grown = bytes.clone();
    grown.extend_from_slice(&[0xA5; PREFIX - 1]);
    let log = read_bytes(&path, &grown).expect("less than a prefix is a torn tail");
    assert_eq!(
        (log.torn_bytes as usize, log.zeroed_tail),
        (PREFIX - 1, false)
    );
    grown.push(0xA5);
    let reason = corrupt_at(read_bytes(&path, &grown), bytes.len());
    assert!(reason.contains("prefix check mismatch"), "{reason}");
}

/// Contract: zeros count as never written only from inside the prefix: a prefix whose last
/// byte was written, zeros before and after it, is a damaged record, not a zero-filled tail.
#[test]
fn a_prefix_with_its_last_byte_written_is_not_a_zero_filled_tail() {
    let dir = scratch("limits-zeros");
    let path = small_log(&dir, 12, false);
    let bytes = std::fs::read(&path).expect("read");
    let mut grown = bytes.clone();
    grown.extend_from_slice(&[0; PREFIX - 1]);
    grown.push(1);
    grown.extend_from_slice(&[0; 100]);
    let reason = corrupt_at(read_bytes(&path, &grown), bytes.len());
    assert!(reason.contains("prefix check mismatch"), "{reason}");
    // The same length of zeros alone is a zero-filled tail.
    grown[bytes.len() + PREFIX - 1] = 0;
    let log = read_bytes(&path, &grown).expect("zeros read");
    assert!(log.zeroed_tail);
}

/// Contract: a last record whose checksum does not match is corruption, even with nothing
/// after it; only a zero check field with zeros after it is an unwritten tail.
#[test]
fn a_bad_checksum_in_the_last_record_is_corruption_not_a_tail() {
    let dir = scratch("limits-checksum");
    let path = small_log(&dir, 12, true);
    let bytes = std::fs::read(&path).expect("read");
    let last = records(&bytes).last().expect("records").0;
    let mut damaged = bytes.clone();
    damaged[last + PREFIX] ^= 0x40;
    let reason = corrupt_at(read_bytes(&path, &damaged), last);
    assert_eq!(reason, "checksum mismatch");
    // A non-zero check field that is wrong, with zeros after it: still corruption.
    let mut damaged = bytes.clone();
    let end = damaged.len();
    damaged[end - 8..].copy_from_slice(&1u64.to_le_bytes());
    damaged.extend_from_slice(&[0; 64]);
    let reason = corrupt_at(read_bytes(&path, &damaged), last);
    assert_eq!(reason, "checksum mismatch");
}

/// Contract: each half of the LSN chain is checked alone: a record with the right LSN naming
/// the wrong predecessor, and one with the wrong LSN naming the right one, are refused.
#[test]
fn a_record_is_refused_if_either_its_lsn_or_its_predecessor_is_wrong() {
    let dir = scratch("limits-lsn");
    let path = small_log(&dir, 12, false);
    let bytes = std::fs::read(&path).expect("read");
    let all = records(&bytes);
    let (last, last_lsn, _, _) = all.last().expect("records").clone();
    // The last record again, with its LSN right and its predecessor wrong, and the reverse.
    let (_, _, kind, payload) = &all[all.len() - 1];
    for (lsn, prev) in [(last_lsn, last_lsn - 2), (last_lsn + 1, last_lsn - 1)] {
        let mut crafted = bytes[..last].to_vec();
        crafted.extend_from_slice(&framed(lsn, prev, *kind, payload));
        let reason = corrupt_at(read_bytes(&path, &crafted), last);
        assert!(
            reason.contains(&format!("record says LSN {lsn} after {prev}")),
            "{reason}"
        );
    }
}

/// Contract: a log whose first record is not a header says so (its payload is not read as a
/// format version).
#[test]
fn a_first_record_that_is_not_a_header_is_named() {
    let dir = scratch("limits-first");
    let path = small_log(&dir, 12, false);
    let bytes = std::fs::read(&path).expect("read");
    let (_, _, kind, payload) = records(&bytes)
        .into_iter()
        .find(|r| r.2 == 2)
        .expect("a tick record");
    let mut crafted = LOG_MAGIC.to_vec();
    crafted.extend_from_slice(&framed(1, 0, kind, &payload));
    let reason = corrupt_at(read_bytes(&path, &crafted), LOG_MAGIC.len());
    assert_eq!(reason, "the first record is not a header");
}

/// Contract: nothing may follow the end record, not even a record that would otherwise fit
/// (the checkpoint of the last tick again).
#[test]
fn a_record_after_the_end_is_refused() {
    let dir = scratch("limits-after-end");
    let path = small_log(&dir, 10, true);
    let mut bytes = std::fs::read(&path).expect("read");
    let all = records(&bytes);
    let (_, end_lsn, _, _) = all[all.len() - 1];
    let (_, _, kind, checkpoint) = &all[all.len() - 2];
    assert_eq!(*kind, 3, "the last tick's checkpoint precedes the end");
    let at = bytes.len();
    bytes.extend_from_slice(&framed(end_lsn + 1, end_lsn, *kind, checkpoint));
    let reason = corrupt_at(read_bytes(&path, &bytes), at);
    assert_eq!(reason, "a record after the end");
}

/// Contract: a file is refused as a version-1 log only when all of a version-1 header's marks
/// are there (LSN 1, after 0, kind 1, 25 bytes at least); any one missing makes it "not a
/// match log".
#[test]
fn only_a_whole_version_1_header_is_named_version_1() {
    let dir = scratch("limits-v1");
    let path = dir.join("old.log");
    let v1 = |lsn: u64, prev: u64, kind: u8, len: usize| {
        let mut out = vec![0xEE; 4];
        out.extend_from_slice(&lsn.to_le_bytes());
        out.extend_from_slice(&prev.to_le_bytes());
        out.push(kind);
        out.extend_from_slice(&1u32.to_le_bytes());
        out.resize(len, 0xEE);
        out
    };
    for (bytes, version_1) in [
        (v1(1, 0, 1, 25), true),
        (v1(1, 0, 1, 24), false),
        (v1(2, 0, 1, 40), false),
        (v1(1, 7, 1, 40), false),
        (v1(1, 0, 2, 40), false),
    ] {
        std::fs::write(&path, &bytes).expect("write");
        let err = read_log::<World>(&path).unwrap_err();
        if version_1 {
            assert!(
                matches!(err, Error::LogVersion { found: 1, .. }),
                "{bytes:?}: {err}"
            );
        } else {
            assert!(
                matches!(err, Error::NotALog { ref found, .. } if found.starts_with("first bytes ee ee ee ee")),
                "{bytes:?}: {err}"
            );
        }
    }
}

fn identity() -> client::logs::hashlog::MatchIdentity {
    client::logs::hashlog::MatchIdentity {
        game: "maze-duel".into(),
        seed: 1,
        rules: 0,
        players: 2,
        inputs: "test".into(),
        version: engine::ENGINE_VERSION.into(),
        state_format: engine::SNAPSHOT_FORMAT_VERSION,
    }
}

/// Contract: a hash-log line of exactly the longest length is read (and refused as what it
/// holds: here a comment, which the writer never writes); one byte more is refused by its
/// length, naming the line.
#[test]
fn a_hash_log_line_is_accepted_at_the_limit_and_refused_one_past_it() {
    const MAX_LINE: usize = 4096;
    let dir = scratch("limits-line");
    let path = dir.join("long.hashlog");
    drop(HashLogWriter::<World>::create(&path, &identity(), "test").expect("create"));
    let head = std::fs::read_to_string(&path).expect("read");
    for (len, refused) in [(MAX_LINE, false), (MAX_LINE + 1, true)] {
        let comment = format!("#{}\n", "x".repeat(len - 1));
        std::fs::write(&path, format!("{head}{comment}")).expect("write");
        match read_hash_log_file::<World>(&path) {
            Err(Error::HashLogSyntax { line, reason, .. }) if refused => {
                assert_eq!(line, 3);
                assert_eq!(reason, format!("{len} bytes, more than {MAX_LINE}"));
            }
            Err(Error::HashLogSyntax { line, reason, .. }) if !refused => {
                assert_eq!(line, 3);
                assert!(reason.contains("a comment"), "{reason}");
            }
            other => panic!("a {len}-byte line: {other:?}"),
        }
    }
}

/// Contract: the hash-log writer knows its last tick, refuses one not after it, and `sync`
/// hands what it buffered to the file (a reader sees it while the writer is still open).
#[test]
fn the_hash_log_writer_tracks_its_last_tick_and_sync_reaches_the_file() {
    let dir = scratch("limits-hash-writer");
    let path = dir.join("w.hashlog");
    let mut w = HashLogWriter::<World>::create(&path, &identity(), "test").expect("create");
    assert_eq!(w.last_tick(), None);
    let hash = StateHash::from_sections([1, 2, 3, 4, 5]);
    w.record(5, &hash).expect("record");
    assert_eq!(w.last_tick(), Some(5));
    w.record(7, &hash).expect("record");
    assert_eq!(w.last_tick(), Some(7));
    assert!(matches!(
        w.record(7, &hash),
        Err(Error::HashLogOrder { last: 7, got: 7 })
    ));
    w.sync().expect("sync");
    let ticks: Vec<u32> = read_hash_log_file::<World>(&path)
        .expect("reads while open")
        .entries
        .iter()
        .map(|e| e.tick)
        .collect();
    assert_eq!(ticks, [5, 7]);
}

/// Contract: a hash log of its two header lines only (a match that recorded no tick) reads,
/// empty; one whose column line is torn or missing is refused, naming line 2.
#[test]
fn a_hash_log_without_ticks_reads_but_not_without_its_column_line() {
    let dir = scratch("limits-hash-empty");
    let path = dir.join("empty.hashlog");
    drop(HashLogWriter::<World>::create(&path, &identity(), "test").expect("create"));
    let log = read_hash_log_file::<World>(&path).expect("an empty log reads");
    assert!(log.entries.is_empty() && log.torn_line.is_none());
    let text = std::fs::read_to_string(&path).expect("read");
    let first = text.find('\n').expect("a first line") + 1;
    for cut in [first, first + 5] {
        std::fs::write(&path, &text[..cut]).expect("write");
        match read_hash_log_file::<World>(&path) {
            Err(Error::HashLogSyntax { line: 2, .. }) => {}
            other => panic!("cut at {cut}: {other:?}"),
        }
    }
}
