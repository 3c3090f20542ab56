//! Hash logs: crash-safe writing, torn last lines, and `desync` comparisons that cannot miss
//! a difference (other matches, no common tick, unsorted lines, the combined column, gaps).

use super::scratch;
use crate::child::{output_within, wait_until, wait_within, KillOnDrop, CHILD_LIMIT};
use client::hashlog::{
    compare_logs, format_ranges, header_differences, read_hash_log_file, HashLog, HashLogEntry,
    HashLogWriter,
};
use client::{run_bot_match, BotMatch, Error};
use engine::{Rules, StateHash};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// A hash log of a 300-tick bot match on `seed`.
fn hash_log(dir: &Path, name: &str, seed: u64) -> PathBuf {
    let path = dir.join(name);
    run_bot_match(&BotMatch {
        rules: Rules::default(),
        seed,
        bot_seed: 8,
        players: 2,
        ticks: 300,
        stop_at_match_end: false,
        hash_log: Some(path.clone()),
        match_log: None,
    })
    .expect("match");
    path
}

/// `path` rewritten with its lines passed through `edit` (line 0 is the first line).
fn edit_lines(path: &Path, to: &Path, edit: impl FnOnce(&mut Vec<String>)) {
    let text = std::fs::read_to_string(path).expect("read");
    let mut lines: Vec<String> = text.lines().map(str::to_owned).collect();
    edit(&mut lines);
    std::fs::write(to, lines.join("\n") + "\n").expect("write");
}

fn desync(a: &Path, b: &Path) -> (Option<i32>, String) {
    let out: Output = output_within(
        Command::new(env!("CARGO_BIN_EXE_duel-cli"))
            .arg("desync")
            .arg(a)
            .arg(b),
        CHILD_LIMIT,
    );
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    (out.status.code(), text)
}

/// Contract: a hash log whose last line was torn by a crash reads up to that line, reports it,
/// and `desync` compares the rest.
#[test]
fn a_torn_last_line_is_reported_and_the_rest_is_used() {
    let dir = scratch("hash-torn");
    let full = hash_log(&dir, "full.hashlog", 3);
    let bytes = std::fs::read(&full).expect("read");
    let torn = dir.join("torn.hashlog");
    std::fs::write(&torn, &bytes[..bytes.len() - 40]).expect("cut mid-line");
    let log = read_hash_log_file(&torn).expect("a torn last line is not an error");
    assert_eq!(log.entries.len(), 299);
    assert_eq!(log.torn_line.map(|t| t.0), Some(302));
    let (code, text) = desync(&full, &torn);
    assert_eq!(code, Some(0), "{text}");
    assert!(text.contains("torn last line 302"), "{text}");
    assert!(text.contains("299 common ticks agree"), "{text}");
}

/// Contract: the hash log writer hands its lines to the OS within a second of the last flush,
/// so a process killed later leaves them readable (it used to hold 8 KiB).
#[test]
fn hash_log_lines_reach_the_file_within_a_second() {
    let dir = scratch("hash-flush");
    let path = dir.join("slow.hashlog");
    let mut log =
        HashLogWriter::create(&path, "seed=1 rules=0 players=2 source=test").expect("log");
    let hash = StateHash::from_sections([1, 2, 3, 4, 5]);
    log.record(1, &hash).expect("record");
    std::thread::sleep(std::time::Duration::from_millis(1100));
    log.record(2, &hash).expect("record");
    let read = read_hash_log_file(&path).expect("reads while the writer is open");
    assert_eq!(read.entries.len(), 2);
    std::mem::forget(log); // as if killed: nothing flushed on drop
}

/// Contract: a hash log killed with SIGKILL mid-match reads (torn last line ignored), and what
/// it holds is the uninterrupted run's.
#[test]
fn a_hash_log_killed_with_sigkill_reads() {
    let dir = scratch("hash-kill");
    let path = dir.join("killed.hashlog");
    let mut child = KillOnDrop(
        Command::new(env!("CARGO_BIN_EXE_duel-cli"))
            .args(["bot-match", "--seed", "3", "--bot-seed", "8", "--no-stop"])
            .args(["--ticks", "100000000", "--hash-log"])
            .arg(&path)
            .spawn()
            .expect("spawn"),
    );
    wait_until(&mut child, CHILD_LIMIT, "100 kB of hash log", || {
        std::fs::metadata(&path).map_or(0, |m| m.len()) >= 100_000
    });
    child.kill().expect("SIGKILL");
    wait_within(&mut child, CHILD_LIMIT, "the killed bot match");
    let killed = read_hash_log_file(&path).expect("a killed hash log reads");
    let n = killed.entries.len();
    assert!(n > 1000, "{n}");
    let straight = hash_log(&dir, "straight.hashlog", 3);
    let straight = read_hash_log_file(&straight).expect("reads");
    let common = n.min(straight.entries.len());
    assert_eq!(killed.entries[..common], straight.entries[..common]);
}

/// Contract: `desync` of two logs without a common tick is an error, not "no divergence".
#[test]
fn desync_without_a_common_tick_is_an_error() {
    let dir = scratch("hash-disjoint");
    let full = hash_log(&dir, "full.hashlog", 3);
    let (early, late) = (dir.join("early.hashlog"), dir.join("late.hashlog"));
    edit_lines(&full, &early, |l| l.truncate(102)); // ticks 1–100
    edit_lines(&full, &late, |l| {
        l.drain(2..202); // ticks 201–300
    });
    let (code, text) = desync(&early, &late);
    assert_eq!(code, Some(1), "{text}");
    assert!(text.contains("no tick in common"), "{text}");
    assert!(
        text.contains("ticks 1–100") && text.contains("ticks 201–300"),
        "{text}"
    );
}

/// Contract: a line out of order or repeated is refused naming its line, so it cannot hide a
/// divergence.
#[test]
fn unsorted_or_duplicated_lines_are_refused_by_line() {
    let dir = scratch("hash-order");
    let full = hash_log(&dir, "full.hashlog", 3);
    let (swapped, doubled) = (dir.join("swapped.hashlog"), dir.join("doubled.hashlog"));
    edit_lines(&full, &swapped, |l| l.swap(50, 60));
    edit_lines(&full, &doubled, |l| {
        let line = l[70].clone();
        l.insert(71, line);
    });
    for (path, line) in [(&swapped, 52), (&doubled, 72)] {
        match read_hash_log_file(path) {
            Err(Error::HashLogSyntax {
                line: at, reason, ..
            }) => {
                assert_eq!(at, line, "{reason}");
                assert!(reason.contains("ticks must increase"), "{reason}");
            }
            other => panic!("expected a syntax error, got {other:?}"),
        }
    }
}

/// Contract: logs of different matches (seed, rules, players) or format versions are refused
/// as such, instead of "diverging at tick 1".
#[test]
fn logs_of_different_matches_are_not_compared() {
    let dir = scratch("hash-headers");
    let a = hash_log(&dir, "a.hashlog", 3);
    let b = hash_log(&dir, "b.hashlog", 4);
    let (code, text) = desync(&a, &b);
    assert_eq!(code, Some(1), "{text}");
    assert!(
        text.contains("not logs of the same match: seed 3 vs 4"),
        "{text}"
    );
    assert!(!text.contains("divergence at tick"), "{text}");
    let future = dir.join("future.hashlog");
    edit_lines(&a, &future, |l| l[0] = l[0].replace(" v2 ", " v3 "));
    let (code, text) = desync(&a, &future);
    assert_eq!(code, Some(1), "{text}");
    assert!(text.contains("format version 3"), "{text}");
}

/// Contract: the combined column is checked: against its sections when read, and between logs
/// (a difference in it alone is a divergence with no section).
#[test]
fn the_combined_column_is_compared() {
    let dir = scratch("hash-combined");
    let a = hash_log(&dir, "a.hashlog", 3);
    let edited = dir.join("edited.hashlog");
    edit_lines(&a, &edited, |l| {
        let mut fields: Vec<String> = l[100].split(' ').map(str::to_owned).collect();
        fields[1] = format!(
            "{:016x}",
            u64::from_str_radix(&fields[1], 16).expect("hex") ^ 1
        );
        l[100] = fields.join(" ");
    });
    let err = read_hash_log_file(&edited).unwrap_err().to_string();
    assert!(
        err.contains(":101:") && err.contains("combined hash"),
        "{err}"
    );
    let hash = StateHash::from_sections([1, 2, 3, 4, 5]);
    let odd = StateHash {
        combined: hash.combined ^ 1,
        ..hash
    };
    let cmp = compare_logs(
        &[HashLogEntry { tick: 1, hash }],
        &[HashLogEntry { tick: 1, hash: odd }],
    );
    let divergence = cmp.divergence.expect("a divergence");
    assert_eq!((divergence.tick, divergence.section), (1, None));
}

/// Contract: ticks only one log holds are listed; gaps inside the other's span fail the
/// comparison, a longer log does not.
#[test]
fn gaps_and_extra_ticks_are_reported() {
    let dir = scratch("hash-gaps");
    let a = hash_log(&dir, "a.hashlog", 3);
    let (gap, short) = (dir.join("gap.hashlog"), dir.join("short.hashlog"));
    edit_lines(&a, &gap, |l| {
        l.drain(51..61); // ticks 50–59
    });
    edit_lines(&a, &short, |l| l.truncate(252)); // ticks 1–250
    let (code, text) = desync(&a, &gap);
    assert_eq!(code, Some(1), "{text}");
    assert!(text.contains("a.hashlog: 50–59"), "{text}");
    let (code, text) = desync(&a, &short);
    assert_eq!(code, Some(0), "{text}");
    assert!(text.contains("a.hashlog: 251–300"), "{text}");
}

/// Contract: `desync` given a match log says so, instead of failing with a UTF-8 error.
#[test]
fn desync_on_a_match_log_names_it() {
    let dir = scratch("hash-matchlog");
    let a = hash_log(&dir, "a.hashlog", 3);
    let match_log = super::record(&dir);
    let (code, text) = desync(&a, &match_log);
    assert_eq!(code, Some(1), "{text}");
    assert!(text.contains("not a hash log (a match log"), "{text}");
    assert!(!text.contains("UTF-8"), "{text}");
}

/// Entries at `ticks`, every hash `hash`.
fn entries(ticks: &[u32], hash: StateHash) -> Vec<HashLogEntry> {
    ticks
        .iter()
        .map(|&tick| HashLogEntry { tick, hash })
        .collect()
}

/// Contract: `compare_logs` counts the common ticks, lists the ticks only one log holds as
/// ranges of consecutive ticks, and reports the first diverging tick (not a later one);
/// identical logs are identical.
#[test]
fn compare_logs_counts_common_ticks_and_lists_the_others_as_ranges() {
    let hash = StateHash::from_sections([1, 2, 3, 4, 5]);
    let a = entries(&[1, 2, 3, 4, 5, 6, 7, 8, 9, 10], hash);
    let same = compare_logs(&a, &a);
    assert!(same.identical());
    assert_eq!(same.common, 10);
    assert!(same.only_in_a.is_empty() && same.only_in_b.is_empty());
    let b = entries(&[0, 1, 2, 5, 6, 9, 11, 12], hash);
    let cmp = compare_logs(&a, &b);
    assert_eq!(cmp.common, 5);
    assert_eq!(cmp.only_in_a, [(3, 4), (7, 8), (10, 10)]);
    assert_eq!(cmp.only_in_b, [(0, 0), (11, 12)]);
    assert_eq!(cmp.divergence, None);
    assert!(!cmp.identical());
    assert_eq!(format_ranges(&cmp.only_in_a), "3–4, 7–8, 10");
    assert_eq!(format_ranges(&[]), "");
    // Only one log has extra ticks, on either side: not identical.
    assert!(!compare_logs(&a, &a[..9]).identical());
    assert!(!compare_logs(&a[..9], &a).identical());
    // Two diverging ticks: the first is reported, with its section.
    let other = StateHash::from_sections([1, 2, 9, 4, 5]);
    let mut c = a.clone();
    c[3].hash = other;
    c[6].hash = StateHash::from_sections([9, 2, 3, 4, 5]);
    let cmp = compare_logs(&a, &c);
    let divergence = cmp.divergence.expect("diverges");
    assert_eq!(
        (divergence.tick, divergence.section),
        (4, Some(engine::Section::Maze))
    );
    assert_eq!(cmp.common, 10);
    assert!(!cmp.identical());
}

/// Contract: ticks one log lacks inside the other's span are gaps; ticks before the other's
/// first or after its last are not.
#[test]
fn gaps_are_ticks_missing_inside_the_other_logs_span() {
    let hash = StateHash::from_sections([1, 2, 3, 4, 5]);
    let a = entries(&[1, 2, 3, 4, 5, 6], hash);
    for (b, gaps) in [
        (vec![1, 2, 3, 4, 5, 6], false),
        (vec![3, 4, 5, 6], false),
        (vec![1, 2, 3, 4], false),
        (vec![0, 1, 2, 3, 4, 5, 6, 7], false),
        (vec![1, 2, 4, 5, 6], true),
        (vec![1, 6], true),
        (vec![0, 2, 7], true),
    ] {
        let b = entries(&b, hash);
        assert_eq!(compare_logs(&a, &b).has_gaps(&a, &b), gaps, "{b:?}");
        assert_eq!(compare_logs(&b, &a).has_gaps(&b, &a), gaps, "{b:?} first");
    }
    assert!(!compare_logs(&a, &[]).has_gaps(&a, &[]));
}

/// Contract: two logs' first lines differ in the format version or in a match field both
/// record; a field only one of them records is no difference.
#[test]
fn header_differences_name_the_version_and_the_match_fields() {
    let log = |version: u32, description: &str| HashLog {
        version,
        description: description.to_owned(),
        entries: Vec::new(),
        torn_line: None,
    };
    let a = log(2, "seed=1 rules=ab players=2 source=host");
    assert_eq!(a.field("seed"), Some("1"));
    assert_eq!(a.field("source"), Some("host"));
    assert_eq!(a.field("see"), None);
    assert!(header_differences(&a, &log(2, "seed=1 rules=ab players=2 source=join")).is_empty());
    assert!(header_differences(&a, &log(2, "seed=1")).is_empty());
    assert_eq!(
        header_differences(&a, &log(3, "seed=2 rules=ab players=3")),
        ["format version 2 vs 3", "seed 1 vs 2", "players 2 vs 3"]
    );
}
