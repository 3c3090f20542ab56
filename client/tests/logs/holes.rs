//! Issue 18 item 4: a power-loss hole (a zeroed, block-aligned run with written bytes after
//! it, as out-of-order writeback leaves) after the last checkpoint no longer makes the log
//! unusable: `verify` and `resume` recover to the last whole record before the hole and say
//! so; the resume keeps the bytes it cuts beside the log, and plays on to the uninterrupted
//! run's end. Zeros that are not such a hole are still corruption.

use super::{record_offsets, scratch};
use crate::child::{output_within, CHILD_LIMIT};
use client::logs::matchlog::{lost_bytes_path, read_log};
use client::logs::replay::verify;
use client::runs::{run_bot_match, BotMatch};
use client::Error;
use engine::Rules;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The block a hole is made of, in the reader's terms.
const BLOCK: usize = 512;

fn bot_match(path: &Path) -> client::runs::BotMatchSummary {
    run_bot_match(&BotMatch {
        rules: Rules::default(),
        seed: 4,
        bot_seed: 9,
        players: 2,
        ticks: 1300,
        stop_at_match_end: false,
        hash_log: None,
        match_log: Some(path.to_owned()),
    })
    .expect("match")
}

/// Zeroes `blocks` aligned blocks of `bytes` starting at the first aligned offset after
/// `after`; returns where the zeros start: the punched block, or before it when the bytes
/// there were zeros already (a record may end in zeros).
fn punch_hole(bytes: &mut [u8], after: usize, blocks: usize) -> usize {
    let mut start = after.div_ceil(BLOCK) * BLOCK;
    bytes[start..start + blocks * BLOCK].fill(0);
    while bytes[start - 1] == 0 {
        start -= 1;
    }
    start
}

/// The offset of the last checkpoint record (kind 3) in a log's bytes.
fn last_checkpoint(bytes: &[u8]) -> usize {
    *record_offsets(bytes)
        .iter()
        .rev()
        .find(|&&o| bytes[o + 20] == 3)
        .expect("a checkpoint")
}

fn duel_cli(args: &[&std::ffi::OsStr]) -> (bool, String, String) {
    let out = output_within(
        Command::new(env!("CARGO_BIN_EXE_duel-cli")).args(args),
        CHILD_LIMIT,
    );
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// A log of 1300 ticks with a 4 KiB hole a few hundred bytes after its last checkpoint.
fn holed_log(dir: &Path) -> (PathBuf, client::runs::BotMatchSummary, Vec<u8>, usize) {
    let path = dir.join("holed.log");
    let straight = bot_match(&path);
    let mut bytes = std::fs::read(&path).expect("read");
    let at = last_checkpoint(&bytes);
    let checkpoint_len = record_offsets(&bytes)
        .into_iter()
        .find(|&o| o > at)
        .expect("ticks after the last checkpoint")
        - at;
    // Cut as a killed writer would: no end record (a resume must play on). The records are
    // found before the hole is punched: walking lengths through zeros lands anywhere.
    let offsets = record_offsets(&bytes);
    let hole = punch_hole(&mut bytes, at + checkpoint_len + 300, 8);
    bytes.truncate(offsets[offsets.len() - 1]);
    assert!(
        hole + 8 * BLOCK < bytes.len(),
        "written bytes after the hole"
    );
    std::fs::write(&path, &bytes).expect("write");
    (path, straight, bytes, hole)
}

/// Contract: the hole is read as a cut before the record it damaged, named with its offset
/// and length, and what is before it verifies.
#[test]
fn a_hole_after_the_last_checkpoint_is_recovered_to_the_record_before_it() {
    let dir = scratch("hole-read");
    let (path, _, bytes, start) = holed_log(&dir);
    let log = read_log::<engine::World>(&path).expect("a holed log reads");
    let hole = log.hole.expect("the hole is reported");
    assert_eq!(
        hole.offset as usize, start,
        "the zeros start at the punched block (or the zeros just before it)"
    );
    assert!(hole.len as usize >= 8 * BLOCK);
    assert_eq!(
        (hole.offset + hole.len + hole.after) as usize,
        bytes.len(),
        "the hole and what follows it reach the end"
    );
    let offsets = record_offsets(&bytes);
    let damaged = *offsets.iter().rev().find(|&&o| o <= start).expect("record");
    assert_eq!(log.valid_len as usize, damaged, "cut at the damaged record");
    assert_eq!(log.torn_bytes as usize, bytes.len() - damaged);
    let report = log.tail_report().expect("reported");
    assert!(report.contains("power-loss hole"), "{report}");
    assert!(report.contains(&format!("at byte {start}")), "{report}");
    verify(&log, None).expect("the recovered log verifies");
}

/// Contract (through the binary): `verify` exits 0 for what precedes the hole and warns on
/// stderr; `resume` keeps the cut bytes in `<log>.lost-at-<offset>`, says so, and ends with
/// the uninterrupted run's hash; the resumed log verifies end to end.
#[test]
fn verify_and_resume_recover_from_a_hole_loudly_and_keep_what_they_cut() {
    let dir = scratch("hole-cli");
    let (path, straight, bytes, _) = holed_log(&dir);
    let (ok, stdout, stderr) = duel_cli(&["verify".as_ref(), path.as_os_str()]);
    assert!(ok, "verify recovers: {stdout}{stderr}");
    assert!(stdout.contains("power-loss hole"), "{stdout}");
    assert!(stderr.contains("warning: power-loss hole"), "{stderr}");
    assert!(
        std::fs::read(&path).expect("read") == bytes,
        "verify cuts nothing"
    );

    let valid_len = read_log::<engine::World>(&path).expect("reads").valid_len;
    let (ok, stdout, stderr) = duel_cli(&["resume".as_ref(), path.as_os_str()]);
    assert!(ok, "resume recovers: {stdout}{stderr}");
    let lost = lost_bytes_path(&path, valid_len);
    assert!(
        stdout.contains(&format!("kept in {}", lost.display())),
        "{stdout}"
    );
    assert!(
        std::fs::read(&lost).expect("the cut bytes are kept") == bytes[valid_len as usize..],
        "the kept bytes are exactly what was cut"
    );
    assert!(
        stdout.contains(&format!("hash={:016x}", straight.final_hash.combined)),
        "the resumed run ends as the uninterrupted one: {stdout}"
    );
    let resumed = read_log::<engine::World>(&path).expect("reads");
    assert!(resumed.hole.is_none() && resumed.torn_bytes == 0);
    verify(&resumed, None).expect("verifies end to end");
}

/// Contract: a second resume of a log holed at the same place does not overwrite the bytes
/// the first one kept; it is refused, and the log is untouched.
#[test]
fn a_resume_never_overwrites_bytes_kept_from_an_earlier_hole() {
    let dir = scratch("hole-twice");
    let (path, _, bytes, _) = holed_log(&dir);
    let valid_len = read_log::<engine::World>(&path).expect("reads").valid_len;
    let lost = lost_bytes_path(&path, valid_len);
    std::fs::write(&lost, b"kept earlier").expect("write");
    let err = client::runs::resume_logged_bot_match(&client::runs::Resume {
        log: path.clone(),
        ticks: None,
        hash_log: None,
    })
    .unwrap_err();
    assert!(matches!(err, Error::Io { .. }), "{err}");
    assert_eq!(std::fs::read(&lost).expect("read"), b"kept earlier");
    assert!(std::fs::read(&path).expect("read") == bytes, "nothing cut");
}

/// Contract: zeros that are not a power-loss hole stay corruption: a run shorter than one
/// block, or one holding no whole aligned block, with written bytes after it.
#[test]
fn zeros_without_a_whole_aligned_block_are_corruption_not_a_hole() {
    let dir = scratch("hole-not");
    let path = dir.join("m.log");
    bot_match(&path);
    let original = std::fs::read(&path).expect("read");
    let at = last_checkpoint(&original) + 1000;
    let aligned = at.div_ceil(BLOCK) * BLOCK;
    for (from, len) in [
        (aligned, BLOCK - 1),
        (aligned + 1, BLOCK),
        (aligned + 7, 900),
    ] {
        let mut bytes = original.clone();
        bytes[from..from + len].fill(0);
        // The run is exactly these zeros: the data around them may hold zeros of its own.
        bytes[from - 1] = 0xA5;
        bytes[from + len] = 0xA5;
        std::fs::write(&path, &bytes).expect("write");
        let err = read_log::<engine::World>(&path).unwrap_err();
        assert!(
            matches!(err, Error::LogCorrupt { .. }),
            "{len} zeros at {from}: {err}"
        );
    }
}

/// Contract: a damaged prefix followed by zeros, then written bytes, with the file ending less
/// than one block past the next aligned offset, holds no whole block: it is corruption, read
/// without looking past the end of the file.
#[test]
fn zeros_to_an_end_short_of_a_whole_block_are_corruption_not_a_hole() {
    let dir = scratch("hole-short");
    let path = dir.join("m.log");
    bot_match(&path);
    let original = std::fs::read(&path).expect("read");
    let offsets = record_offsets(&original);
    let (at, aligned) = offsets
        .iter()
        .map(|&o| (o, o.div_ceil(BLOCK) * BLOCK))
        .find(|&(o, a)| a > o && a < o + super::PREFIX && o > offsets[1])
        .expect("a record prefix across an aligned offset");
    let mut bytes = original[..aligned + 100].to_vec();
    bytes[at] ^= 1; // the length: the prefix check fails
    bytes[aligned..aligned + 50].fill(0);
    bytes[aligned + 99] = 0xff; // written bytes after the zeros
    std::fs::write(&path, &bytes).expect("write");
    let err = read_log::<engine::World>(&path).map(|_| ()).unwrap_err();
    assert!(matches!(err, Error::LogCorrupt { .. }), "{err}");
}
