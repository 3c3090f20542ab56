//! Hash logs: crash-safe writing, torn last lines, damage told apart from divergence (the
//! per-line check chain), and `desync` comparisons that cannot miss a difference (other
//! matches, no common tick, unsorted lines, the combined column, gaps).

use super::scratch;
use crate::child::{output_within, wait_until, wait_within, KillOnDrop, CHILD_LIMIT};
use client::logs::hashlog::{
    compare_logs, format_ranges, header_differences, inputs_of, read_hash_log_file, HashLog,
    HashLogEntry, HashLogWriter, MatchIdentity, HASH_LOG_VERSION,
};
use client::runs::{run_bot_match, BotMatch};
use client::Error;
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

/// `path` rewritten with its lines passed through `edit` (line 0 is the first line), as
/// damage does: the checks are left as they were.
fn edit_lines(path: &Path, to: &Path, edit: impl FnOnce(&mut Vec<String>)) {
    let text = std::fs::read_to_string(path).expect("read");
    let mut lines: Vec<String> = text.lines().map(str::to_owned).collect();
    edit(&mut lines);
    std::fs::write(to, lines.join("\n") + "\n").expect("write");
}

/// `path` rewritten through `edit` as a forger would: every check recomputed afterwards, so
/// only the reader's other checks can refuse it.
fn forge_lines(path: &Path, to: &Path, edit: impl FnOnce(&mut Vec<String>)) {
    edit_lines(path, to, |lines| {
        edit(lines);
        let check = |prev: Option<u32>, text: &str| {
            let mut bytes = prev.map_or(Vec::new(), |p| p.to_le_bytes().to_vec());
            bytes.extend_from_slice(text.as_bytes());
            super::xxh3(&bytes) as u32
        };
        let (text, _) = lines[0].rsplit_once(" check=").expect("a check");
        let mut prev = check(None, text);
        lines[0] = format!("{text} check={prev:08x}");
        for line in &mut lines[2..] {
            let (text, _) = line.rsplit_once(' ').expect("a check");
            prev = check(Some(prev), text);
            *line = format!("{text} {prev:08x}");
        }
    });
}

/// A log of `path`'s match with only the ticks `keep` picks, written by the writer (as a
/// resumed run or a late spectator writes one): every check holds.
fn keep_ticks(path: &Path, to: &Path, keep: impl Fn(u32) -> bool) {
    let log = read_hash_log_file::<engine::World>(path).expect("reads");
    let mut w =
        HashLogWriter::<engine::World>::create(to, &log.identity, &log.source).expect("create");
    for e in log.entries.iter().filter(|e| keep(e.tick)) {
        w.record(e.tick, &e.hash).expect("record");
    }
}

/// The reason of the syntax error reading `path` gives, and its line.
fn syntax_error(path: &Path) -> (usize, String) {
    match read_hash_log_file::<engine::World>(path) {
        Err(Error::HashLogSyntax { line, reason, .. }) => (line, reason),
        other => panic!("expected a syntax error, got {other:?}"),
    }
}

fn identity(seed: u64) -> MatchIdentity {
    MatchIdentity {
        game: "maze-duel".into(),
        seed,
        rules: 0,
        players: 2,
        inputs: "test".into(),
        version: engine::ENGINE_VERSION.into(),
        state_format: engine::SNAPSHOT_FORMAT_VERSION,
    }
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
    let log = read_hash_log_file::<engine::World>(&torn).expect("a torn last line is not an error");
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
    let mut log = HashLogWriter::<engine::World>::create(&path, &identity(1), "test").expect("log");
    let hash = StateHash::from_sections([1, 2, 3, 4, 5]);
    log.record(1, &hash).expect("record");
    std::thread::sleep(std::time::Duration::from_millis(1100));
    log.record(2, &hash).expect("record");
    let read = read_hash_log_file::<engine::World>(&path).expect("reads while the writer is open");
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
            .args(["--ticks", "10000000", "--hash-log"])
            .arg(&path)
            .spawn()
            .expect("spawn"),
    );
    wait_until(&mut child, CHILD_LIMIT, "150 kB of hash log", || {
        std::fs::metadata(&path).map_or(0, |m| m.len()) >= 150_000
    });
    child.kill().expect("SIGKILL");
    wait_within(&mut child, CHILD_LIMIT, "the killed bot match");
    let killed = read_hash_log_file::<engine::World>(&path).expect("a killed hash log reads");
    let n = killed.entries.len();
    assert!(n > 1000, "{n}");
    let straight = hash_log(&dir, "straight.hashlog", 3);
    let straight = read_hash_log_file::<engine::World>(&straight).expect("reads");
    let common = n.min(straight.entries.len());
    assert_eq!(killed.entries[..common], straight.entries[..common]);
}

/// Contract: `desync` of two logs without a common tick is an error, not "no divergence".
#[test]
fn desync_without_a_common_tick_is_an_error() {
    let dir = scratch("hash-disjoint");
    let full = hash_log(&dir, "full.hashlog", 3);
    let (early, late) = (dir.join("early.hashlog"), dir.join("late.hashlog"));
    keep_ticks(&full, &early, |t| t <= 100);
    keep_ticks(&full, &late, |t| t > 200);
    let (code, text) = desync(&early, &late);
    assert_eq!(code, Some(1), "{text}");
    assert!(text.contains("no tick in common"), "{text}");
    assert!(
        text.contains("ticks 1–100") && text.contains("ticks 201–300"),
        "{text}"
    );
}

/// Contract: a line out of order or repeated is refused naming its line, so it cannot hide a
/// divergence: as damage by its check, and forged (checks recomputed) by its tick.
#[test]
fn unsorted_or_duplicated_lines_are_refused_by_line() {
    let dir = scratch("hash-order");
    let full = hash_log(&dir, "full.hashlog", 3);
    let (swapped, doubled) = (dir.join("swapped.hashlog"), dir.join("doubled.hashlog"));
    let swap = |l: &mut Vec<String>| l.swap(50, 60);
    let double = |l: &mut Vec<String>| {
        let line = l[70].clone();
        l.insert(71, line);
    };
    edit_lines(&full, &swapped, swap);
    edit_lines(&full, &doubled, double);
    for (path, line) in [(&swapped, 51), (&doubled, 72)] {
        let (at, reason) = syntax_error(path);
        assert_eq!(at, line, "{reason}");
        assert!(reason.contains("does not hold"), "{reason}");
    }
    forge_lines(&full, &swapped, swap);
    forge_lines(&full, &doubled, double);
    for (path, line) in [(&swapped, 52), (&doubled, 72)] {
        let (at, reason) = syntax_error(path);
        assert_eq!(at, line, "{reason}");
        assert!(reason.contains("ticks must increase"), "{reason}");
    }
}

/// An edit of a log's lines.
type Edit = dyn Fn(&mut Vec<String>);

/// Contract (issue 18 item 7): one flipped bit, a line dropped, or a data line turned into a
/// comment or a blank line — at the first data line, in the middle or at the last — is damage
/// named by its line, never a log that reads with a tick fewer (`#` lines were skipped).
#[test]
fn damaged_lines_are_refused_by_their_check_not_skipped() {
    let dir = scratch("hash-damage");
    let full = hash_log(&dir, "full.hashlog", 3);
    let last = 301; // 0-based index of tick 300's line
    let damaged = dir.join("damaged.hashlog");
    let cases: Vec<(&str, Box<Edit>, usize)> = vec![
        ("first line a comment", Box::new(|l| l[2].insert(0, '#')), 3),
        ("first line blank", Box::new(|l| l[2].clear()), 3),
        (
            "a middle line a comment",
            Box::new(|l| l[150].replace_range(0..1, "#")),
            151,
        ),
        (
            "last line a comment",
            Box::new(move |l| l[last].insert(0, '#')),
            302,
        ),
        ("last line blank", Box::new(move |l| l[last].clear()), 302),
        (
            "a comment added",
            Box::new(|l| l.insert(2, "# note".into())),
            3,
        ),
        ("a line dropped", Box::new(|l| drop(l.remove(100))), 101),
        (
            "a bit flipped in a hash",
            Box::new(|l| {
                let at = l[200].len() - 12;
                let flipped = if l[200].as_bytes()[at] == b'0' {
                    "1"
                } else {
                    "0"
                };
                l[200].replace_range(at..at + 1, flipped);
            }),
            201,
        ),
        (
            "a check letter made upper case (one bit: the same number)",
            Box::new(|l| {
                let k = (2..l.len())
                    .find(|&k| {
                        l[k].rsplit(' ')
                            .next()
                            .is_some_and(|c| c.bytes().any(|b| b.is_ascii_lowercase()))
                    })
                    .expect("a check with a letter");
                let (text, check) = l[k].rsplit_once(' ').expect("check");
                l[k] = format!("{text} {}", check.to_ascii_uppercase());
                l.truncate(k + 1);
            }),
            0,
        ),
        (
            "a bit flipped in the header",
            Box::new(|l| l[0] = l[0].replace("seed=3", "seed=2")),
            1,
        ),
    ];
    for (what, edit, line) in cases {
        edit_lines(&full, &damaged, edit);
        let (at, reason) = syntax_error(&damaged);
        // (0: the line the edit picked, the last one left.)
        let line = if line == 0 {
            std::fs::read_to_string(&damaged)
                .expect("read")
                .lines()
                .count()
        } else {
            line
        };
        assert_eq!(at, line, "{what}: {reason}");
        let (code, text) = desync(&full, &damaged);
        assert_eq!(
            code,
            Some(1),
            "{what}: damage is an error, not a divergence: {text}"
        );
        assert!(!text.contains("divergence"), "{what}: {text}");
    }
}

/// Contract: logs of different matches (seed, bot seed, rules, players, game version) or format
/// versions are refused as such, instead of "diverging at tick 61"; a header lacking a field
/// is refused by name.
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
    // Two bot matches that differ only in their bot seed.
    let other_bots = dir.join("bots.hashlog");
    run_bot_match(&BotMatch {
        rules: Rules::default(),
        seed: 3,
        bot_seed: 9,
        players: 2,
        ticks: 300,
        stop_at_match_end: false,
        hash_log: Some(other_bots.clone()),
        match_log: None,
    })
    .expect("match");
    let (code, text) = desync(&a, &other_bots);
    assert_eq!(code, Some(1), "{text}");
    assert!(
        text.contains(&format!(
            "inputs {} vs {}",
            inputs_of("bot-match", Some(8)),
            inputs_of("bot-match", Some(9))
        )),
        "{text}"
    );
    assert!(!text.contains("divergence at tick"), "{text}");
    let future = dir.join("future.hashlog");
    let (now, next) = (HASH_LOG_VERSION, HASH_LOG_VERSION + 1);
    edit_lines(&a, &future, |l| {
        l[0] = l[0].replace(&format!(" v{now} "), &format!(" v{next} "));
    });
    let (code, text) = desync(&a, &future);
    assert_eq!(code, Some(1), "{text}");
    assert!(text.contains(&format!("version {next}")), "{text}");
    for key in [
        "game", "seed", "rules", "players", "inputs", "version", "format",
    ] {
        let lacking = dir.join("lacking.hashlog");
        forge_lines(&a, &lacking, |l| {
            let kept: Vec<&str> = l[0]
                .split(' ')
                .filter(|kv| !kv.starts_with(&format!("{key}=")))
                .collect();
            l[0] = kept.join(" ");
        });
        let (line, reason) = syntax_error(&lacking);
        assert_eq!(line, 1);
        assert!(reason.contains(&format!("lacks `{key}`")), "{reason}");
    }
}

/// Contract: the combined column is checked: against its sections when read, and between logs
/// (a difference in it alone is a divergence with no section).
#[test]
fn the_combined_column_is_compared() {
    let dir = scratch("hash-combined");
    let a = hash_log(&dir, "a.hashlog", 3);
    let edited = dir.join("edited.hashlog");
    forge_lines(&a, &edited, |l| {
        let mut fields: Vec<String> = l[100].split(' ').map(str::to_owned).collect();
        fields[1] = format!(
            "{:016x}",
            u64::from_str_radix(&fields[1], 16).expect("hex") ^ 1
        );
        l[100] = fields.join(" ");
    });
    let err = read_hash_log_file::<engine::World>(&edited)
        .unwrap_err()
        .to_string();
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
    keep_ticks(&a, &gap, |t| !(50..60).contains(&t));
    keep_ticks(&a, &short, |t| t <= 250);
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
fn entries(ticks: &[u32], hash: StateHash) -> Vec<HashLogEntry<StateHash>> {
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
    assert_eq!((divergence.tick, divergence.section), (4, Some("maze")));
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

/// Contract: two logs' first lines differ in the format version or in any field of the match
/// identity, each named; the source (who wrote the log) is no difference.
#[test]
fn header_differences_name_the_version_and_the_match_fields() {
    let log = |version: u32, identity: MatchIdentity, source: &str| HashLog::<StateHash> {
        version,
        identity,
        source: source.into(),
        entries: Vec::new(),
        epochs: Vec::new(),
        torn_line: None,
    };
    let a = log(3, identity(1), "host");
    assert!(header_differences(&a, &log(3, identity(1), "join")).is_empty());
    let other = MatchIdentity {
        players: 3,
        inputs: "peers".into(),
        version: "9.9.9".into(),
        state_format: 0,
        game: "ring-race".into(),
        rules: 0xab,
        ..identity(2)
    };
    assert_eq!(
        header_differences(&a, &log(4, other, "host")),
        [
            "format version 3 vs 4".to_owned(),
            "game maze-duel vs ring-race".into(),
            "seed 1 vs 2".into(),
            "rules 0000000000000000 vs 00000000000000ab".into(),
            "players 2 vs 3".into(),
            "inputs test vs peers".into(),
            format!("version {} vs 9.9.9", engine::ENGINE_VERSION),
            format!("format {} vs 0", engine::SNAPSHOT_FORMAT_VERSION),
        ]
    );
}

/// Issue 19: the line of a new epoch follows the line of the tick it went on from, on both
/// players' logs alike; a forged one out of place (its checks recomputed) is refused naming
/// the line, and the writer refuses to put one anywhere but after the last tick.
#[test]
fn epoch_lines_follow_their_tick_and_are_refused_out_of_place() {
    let dir = scratch("hashlog-epochs");
    let plain = hash_log(&dir, "plain.hashlog", 3);
    let log = read_hash_log_file::<engine::World>(&plain).expect("reads");
    let marked = dir.join("marked.hashlog");
    let mut w = HashLogWriter::<engine::World>::create(&marked, &log.identity, &log.source)
        .expect("create");
    for e in &log.entries {
        w.record(e.tick, &e.hash).expect("record");
        if e.tick == 100 {
            w.mark_epoch(2, 100).expect("after its tick");
            assert!(w.mark_epoch(3, 99).is_err(), "not after another tick");
        }
    }
    drop(w);
    let read = read_hash_log_file::<engine::World>(&marked).expect("reads");
    assert_eq!(read.epochs, vec![(2, 100)]);
    assert_eq!(read.entries, log.entries, "the ticks are the ticks");
    // Line 0 is the first line, 1 the columns, 2 tick 1: tick 100 is line 101, the epoch 102.
    type Edit = fn(&mut Vec<String>);
    let cases: [(&str, Edit, &str); 5] = [
        (
            "another tick",
            |l| l[102] = "epoch 2 from 99 00000000".into(),
            "after the line of tick 100",
        ),
        (
            "counting down",
            // Index 201 is right after the line of tick 198 (the epoch line shifts them one).
            |l| l.insert(201, "epoch 1 from 198 00000000".into()),
            "epoch 1 after epoch 2",
        ),
        (
            "spaced",
            |l| l[102] = "epoch 2 from  100 00000000".into(),
            "epoch line",
        ),
        (
            "zero-padded",
            |l| l[102] = "epoch 2 from 0100 00000000".into(),
            "not in the writer's form",
        ),
        (
            "no number",
            |l| l[102] = "epoch two from 100 00000000".into(),
            "epoch line",
        ),
    ];
    for (name, edit, says) in cases {
        let forged = dir.join(format!("{}.hashlog", name.replace(' ', "-")));
        forge_lines(&marked, &forged, edit);
        let (line, reason) = syntax_error(&forged);
        assert!(reason.contains(says), "{name}: line {line}: {reason}");
    }
}

/// Issue 19: a player sent the other side's state whole lacks the ticks between its last one
/// and the epoch's; its epoch line says so (`after LAST`) right after the line of `LAST`, and
/// the ticks after it come after the epoch's tick. Forged ones out of place are refused
/// naming the line, and the writer refuses a transfer to a tick not after the last.
#[test]
fn transfer_epoch_lines_skip_the_ticks_they_say_and_are_refused_out_of_place() {
    let dir = scratch("hashlog-transfers");
    let plain = hash_log(&dir, "plain.hashlog", 3);
    let log = read_hash_log_file::<engine::World>(&plain).expect("reads");
    let marked = dir.join("marked.hashlog");
    let mut w = HashLogWriter::<engine::World>::create(&marked, &log.identity, &log.source)
        .expect("create");
    for e in log.entries.iter().filter(|e| e.tick <= 100 || e.tick > 150) {
        w.record(e.tick, &e.hash).expect("record");
        if e.tick == 100 {
            assert!(w.mark_transfer(2, 100).is_err(), "not to the last tick");
            w.mark_transfer(2, 150).expect("to a later tick");
            assert!(
                w.record(150, &e.hash).is_err(),
                "the epoch's tick is written"
            );
        }
    }
    drop(w);
    let read = read_hash_log_file::<engine::World>(&marked).expect("reads");
    assert_eq!(read.epochs, vec![(2, 150)]);
    assert_eq!(read.entries.len(), log.entries.len() - 50);
    // Tick 100 is line 101, the epoch 102, tick 151 line 103.
    type Edit = fn(&mut Vec<String>);
    let cases: [(&str, Edit, &str); 4] = [
        (
            "after another tick",
            |l| l[102] = "epoch 2 from 150 after 99 00000000".into(),
            "but the last tick written is 100",
        ),
        (
            "to a tick not after it",
            |l| l[102] = "epoch 2 from 100 after 100 00000000".into(),
            "epoch 2 from tick 100 after 100",
        ),
        (
            "a tick before the epoch's after it",
            |l| {
                let before = l[101].clone();
                l.insert(103, before);
            },
            "tick 100 after tick 150",
        ),
        (
            "zero-padded",
            |l| l[102] = "epoch 2 from 150 after 0100 00000000".into(),
            "not in the writer's form",
        ),
    ];
    for (name, edit, says) in cases {
        let forged = dir.join(format!("{}.hashlog", name.replace(' ', "-")));
        forge_lines(&marked, &forged, edit);
        let (line, reason) = syntax_error(&forged);
        assert!(reason.contains(says), "{name}: line {line}: {reason}");
    }
}
