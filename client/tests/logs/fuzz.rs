//! The log readers under random damage and crafted records: they never panic, never hang, and
//! never report success when content before the tail changed.
//!
//! - Match logs, random damage (bit flips, truncations, insertions, record swaps, zeroed
//!   tails, power-loss holes): a log that reads was cut before the first changed byte, lost at
//!   most one partial record (or a zero-filled tail, or from the record a hole damaged on), and
//!   verifies; a truncation or a hole after the header always reads.
//! - Match logs, crafted records (a payload changed, a tick set, a length changed, with every
//!   check recomputed, so only consistency checks can refuse them): reading, verifying, seeking
//!   and recovering return, with a result or an error.
//! - Match logs, forged checkpoints (a snapshot byte changed, every check recomputed): never
//!   believed by `verify` or by what `state` and `resume` use.
//! - Hash logs (bit flips, truncations, insertions, swapped, repeated and dropped lines): a log
//!   that reads is the original cut short (its check chain refuses every changed line), and
//!   one whose data lines changed is told apart from the original by `desync`'s comparison.

use super::{frame, record_offsets, within_a_minute, PREFIX};
use client::logs::hashlog::{compare_logs, header_differences, read_hash_log_file, HashLog};
use client::logs::matchlog::{read_log, MatchLog, LOG_MAGIC};
use client::logs::replay::{recover, verify, Replay};
use client::runs::{run_bot_match, BotMatch};
use engine::Rules;
use proptest::prelude::*;
use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::OnceLock;

/// Cases per property: enough to hit every record kind, small enough for the debug profile.
const CASES: u32 = 160;

/// The match log and hash log of a short bot match (700 ticks: three checkpoints), made once.
fn originals() -> &'static (Vec<u8>, Vec<u8>) {
    static LOGS: OnceLock<(Vec<u8>, Vec<u8>)> = OnceLock::new();
    LOGS.get_or_init(|| {
        let dir = super::scratch("fuzz-originals");
        let (m, h) = (dir.join("m.log"), dir.join("h.hashlog"));
        run_bot_match(&BotMatch {
            rules: Rules::default(),
            seed: 5,
            bot_seed: 6,
            players: 2,
            ticks: 700,
            stop_at_match_end: false,
            hash_log: Some(h.clone()),
            match_log: Some(m.clone()),
        })
        .expect("match");
        (
            std::fs::read(&m).expect("read"),
            std::fs::read(&h).expect("read"),
        )
    })
}

/// A networked player's match log with an outage, an epoch and a resync record (see
/// `epochs::networked_log`), made once.
fn networked() -> &'static Vec<u8> {
    static LOG: OnceLock<Vec<u8>> = OnceLock::new();
    LOG.get_or_init(|| {
        let path = super::scratch("fuzz-networked").join("n.log");
        super::epochs::networked_log(&path);
        std::fs::read(&path).expect("read")
    })
}

/// The hash log a replay of the networked match log writes: its epoch lines of a rejoin, a
/// resync and a transfer (`epoch 4 from 450 after 400`) among the ticks, made once.
fn networked_hashes() -> &'static Vec<u8> {
    static LOG: OnceLock<Vec<u8>> = OnceLock::new();
    LOG.get_or_init(|| {
        let dir = super::scratch("fuzz-networked-hashes");
        let (m, h) = (dir.join("n.log"), dir.join("n.hashlog"));
        std::fs::write(&m, networked()).expect("write");
        let log = read_log::<engine::World>(&m).expect("reads");
        let world = engine::World::new(Rules::default(), 4, 2).expect("world");
        let identity = client::logs::hashlog::MatchIdentity::of_game(
            &world,
            client::logs::hashlog::inputs_of("join", None),
        );
        let mut out =
            client::logs::hashlog::HashLogWriter::<engine::World>::create(&h, &identity, "replay")
                .expect("create");
        client::logs::replay::verify_logging(&log, None, Some(&mut out)).expect("verifies");
        out.sync().expect("sync");
        std::fs::read(&h).expect("read")
    })
}

/// The bot match's match log, or the networked one.
fn original(networked_one: bool) -> &'static Vec<u8> {
    if networked_one {
        networked()
    } else {
        &originals().0
    }
}

/// A fresh file for one case.
fn case_file(ext: &str) -> PathBuf {
    static N: AtomicUsize = AtomicUsize::new(0);
    let dir = std::env::temp_dir().join(format!("duel-logs-fuzz-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("dir");
    dir.join(format!("{}.{ext}", N.fetch_add(1, Ordering::Relaxed)))
}

#[derive(Debug, Clone)]
enum Damage {
    Flip {
        at: usize,
        bit: u8,
    },
    /// A flip in a record's framing prefix (length, LSNs, kind, prefix check): rare for a
    /// uniform flip, and where a reader that trusts a length goes wrong.
    FlipInPrefix {
        record: usize,
        at: usize,
        bit: u8,
    },
    Truncate {
        at: usize,
    },
    Insert {
        at: usize,
        bytes: Vec<u8>,
    },
    SwapRecords {
        i: usize,
        j: usize,
    },
    ZeroFrom {
        at: usize,
        extra: usize,
    },
    /// A power-loss hole: aligned 512-byte blocks zeroed with written bytes after them.
    Hole {
        at: usize,
        blocks: usize,
    },
}

fn damage() -> impl Strategy<Value = Damage> {
    prop_oneof![
        (any::<usize>(), 0u8..8).prop_map(|(at, bit)| Damage::Flip { at, bit }),
        (any::<usize>(), 0..PREFIX, 0u8..8).prop_map(|(record, at, bit)| Damage::FlipInPrefix {
            record,
            at,
            bit
        }),
        any::<usize>().prop_map(|at| Damage::Truncate { at }),
        (
            any::<usize>(),
            proptest::collection::vec(any::<u8>(), 1..40)
        )
            .prop_map(|(at, bytes)| Damage::Insert { at, bytes }),
        (any::<usize>(), any::<usize>()).prop_map(|(i, j)| Damage::SwapRecords { i, j }),
        (any::<usize>(), 0usize..5000).prop_map(|(at, extra)| Damage::ZeroFrom { at, extra }),
        (any::<usize>(), 1usize..12).prop_map(|(at, blocks)| Damage::Hole { at, blocks }),
    ]
}

fn apply(original: &[u8], damage: &Damage) -> Vec<u8> {
    let mut bytes = original.to_vec();
    let n = bytes.len();
    match damage {
        Damage::Flip { at, bit } => bytes[at % n] ^= 1 << bit,
        Damage::FlipInPrefix { record, at, bit } => {
            let offsets = record_offsets(original);
            bytes[offsets[record % offsets.len()] + at] ^= 1 << bit;
        }
        Damage::Truncate { at } => bytes.truncate(at % (n + 1)),
        Damage::Insert { at, bytes: ins } => {
            let at = at % (n + 1);
            bytes.splice(at..at, ins.iter().copied());
        }
        Damage::SwapRecords { i, j } => {
            let offsets = record_offsets(original);
            let (i, j) = (i % offsets.len(), j % offsets.len());
            let (i, j) = (i.min(j), i.max(j));
            if i == j {
                return bytes;
            }
            let end = |k: usize| offsets.get(k + 1).copied().unwrap_or(n);
            let mut out = original[..offsets[i]].to_vec();
            out.extend_from_slice(&original[offsets[j]..end(j)]);
            out.extend_from_slice(&original[end(i)..offsets[j]]);
            out.extend_from_slice(&original[offsets[i]..end(i)]);
            out.extend_from_slice(&original[end(j)..]);
            return out;
        }
        Damage::Hole { at, blocks } => {
            // Anywhere from the header on, always with written bytes after it.
            let room = (n / 512).saturating_sub(blocks + 1).max(1);
            let start = (at % room) * 512;
            bytes[start..(start + blocks * 512).min(n - 1)].fill(0);
        }
        Damage::ZeroFrom { at, extra } => {
            let at = at % (n + 1);
            bytes[at..].fill(0);
            bytes.resize(n + extra, 0);
        }
    }
    bytes
}

/// Reads, verifies, seeks and recovers `bytes` as a match log, under the watchdog.
fn read_all(bytes: Vec<u8>) -> Result<MatchLog<engine::World>, String> {
    within_a_minute(move || {
        let path = case_file("log");
        std::fs::write(&path, &bytes).expect("write");
        let read = read_log::<engine::World>(&path);
        let _ = std::fs::remove_file(&path);
        let log = read.map_err(|e| e.to_string())?;
        verify(&log, None).map_err(|e| format!("read but does not verify: {e}"))?;
        Ok(log)
    })
}

/// Whatever a crafted log is, reading and replaying it returns (result or error).
fn exercise(bytes: Vec<u8>, seek: u32) {
    within_a_minute(move || {
        let path = case_file("log");
        std::fs::write(&path, &bytes).expect("write");
        let read = read_log::<engine::World>(&path);
        let _ = std::fs::remove_file(&path);
        if let Ok(log) = read {
            let _ = verify(&log, None);
            if let Ok(mut replay) = Replay::new(log.clone()) {
                let _ = replay.seek(seek);
                let _ = replay.seek(0);
            }
            let _ = recover(log);
        }
    });
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: CASES,
        failure_persistence: None,
        ..ProptestConfig::default()
    })]

    /// Random damage to a match log.
    #[test]
    fn damaged_match_logs_never_pass_for_intact(damage in damage(), networked_one in any::<bool>()) {
        let original = original(networked_one);
        let damaged = apply(original, &damage);
        let first_change = original
            .iter()
            .zip(&damaged)
            .position(|(a, b)| a != b)
            .unwrap_or(original.len().min(damaged.len()));
        let header_end = record_offsets(original)[1];
        match read_all(damaged.clone()) {
            Ok(log) => {
                prop_assert!(
                    log.valid_len as usize <= first_change,
                    "read up to byte {} though byte {first_change} changed ({damage:?})",
                    log.valid_len
                );
                let tail = &damaged[log.valid_len as usize..];
                if let Some(hole) = log.hole {
                    // Only a punched hole reads as one, and the cut is the record it damaged.
                    prop_assert!(matches!(damage, Damage::Hole { .. }), "a hole from {damage:?}");
                    // (The run may start before the punched block, on bytes that were zero.)
                    prop_assert!(hole.offset >= log.valid_len);
                    prop_assert!((hole.offset + hole.len) as usize > first_change);
                    let offsets = record_offsets(original);
                    let damaged_record = offsets.iter().rev().find(|&&o| o <= first_change);
                    prop_assert_eq!(damaged_record.copied(), Some(log.valid_len as usize));
                } else if log.zeroed_tail {
                    let end = &tail[tail.len().saturating_sub(8)..];
                    prop_assert!(end.iter().all(|&b| b == 0), "a zeroed tail ends in zeros");
                } else if tail.len() >= PREFIX {
                    // At most one partial record is cut: less than the original record there.
                    let offsets = record_offsets(original);
                    let at = offsets.iter().position(|&o| o == log.valid_len as usize);
                    let whole = at.map_or(PREFIX, |k| {
                        offsets.get(k + 1).copied().unwrap_or(original.len()) - offsets[k]
                    });
                    prop_assert!(tail.len() < whole, "cut {} bytes: more than one record", tail.len());
                }
            }
            Err(e) => {
                let truncated_after_header = matches!(damage, Damage::Truncate { .. })
                    && damaged.len() >= header_end;
                prop_assert!(!truncated_after_header, "a truncation must read: {e}");
                let holed_after_header = matches!(damage, Damage::Hole { .. })
                    && first_change >= header_end;
                prop_assert!(!holed_after_header, "a hole after the header must read: {e}");
                prop_assert!(first_change < original.len() || damaged.len() > original.len());
            }
        }
    }

    /// Crafted, checksum-valid records: a payload bit, a tick field or a length changed.
    #[test]
    fn crafted_match_log_records_never_panic_or_hang(
        record in any::<usize>(),
        edit in 0u8..4,
        at in any::<usize>(),
        value in prop_oneof![Just(u32::MAX), Just(0u32), any::<u32>()],
        seek in 0u32..800,
        networked_one in any::<bool>(),
    ) {
        let original = original(networked_one);
        let offsets = record_offsets(original);
        let k = record % offsets.len();
        let start = offsets[k];
        let end = offsets.get(k + 1).copied().unwrap_or(original.len());
        let lsn = u64::from_le_bytes(original[start + 4..start + 12].try_into().expect("8"));
        let kind = original[start + 20];
        let mut payload = original[start + PREFIX..end - 8].to_vec();
        match edit {
            0 if !payload.is_empty() => {
                let i = at % payload.len();
                payload[i] ^= 1 << (at % 8);
            }
            1 if payload.len() >= 4 => payload[..4].copy_from_slice(&value.to_le_bytes()),
            2 => payload.truncate(at % (payload.len() + 1)),
            _ => payload.extend(std::iter::repeat_n(0xA5, at % 64)),
        }
        let mut crafted = original[..start].to_vec();
        crafted.extend_from_slice(&frame(lsn, kind, &payload));
        crafted.extend_from_slice(&original[end..]);
        exercise(crafted, seek);
    }

    /// Issue 18 item 6, as a property: a checkpoint forged with every check recomputed (one
    /// byte of its snapshot changed) is never believed: the log is refused when read, or
    /// `verify` and `verified_state_at` (what `state` and `resume` use) refuse it at the
    /// checkpoint's tick or before.
    #[test]
    fn forged_checkpoints_are_never_believed(which in any::<usize>(), at in any::<usize>(), bit in 0u8..8) {
        let original = &originals().0;
        let offsets = record_offsets(original);
        let checkpoints: Vec<usize> = offsets
            .iter()
            .copied()
            .filter(|&o| original[o + 20] == 3)
            .collect();
        let start = checkpoints[which % checkpoints.len()];
        let end = offsets.iter().copied().find(|&o| o > start).unwrap_or(original.len());
        let lsn = u64::from_le_bytes(original[start + 4..start + 12].try_into().expect("8"));
        let mut payload = original[start + PREFIX..end - 8].to_vec();
        let tick = u32::from_le_bytes(payload[..4].try_into().expect("4"));
        // Inside the snapshot bytes (after the tick and the length).
        let i = 12 + at % (payload.len() - 12);
        payload[i] ^= 1 << bit;
        let mut forged = original[..start].to_vec();
        forged.extend_from_slice(&frame(lsn, 3, &payload));
        forged.extend_from_slice(&original[end..]);
        let result = within_a_minute(move || {
            let path = case_file("log");
            std::fs::write(&path, &forged).expect("write");
            let read = read_log::<engine::World>(&path);
            let _ = std::fs::remove_file(&path);
            let Ok(log) = read else { return Ok(()) };
            let last = log.last_tick();
            let verified = verify(&log, None);
            match client::logs::replay::verified_state_at(&log, last) {
                Err(client::Error::VerifyMismatch { tick: at, .. })
                    if at <= tick && verified.is_err() =>
                {
                    Ok(())
                }
                other => Err(format!(
                    "a forged checkpoint of tick {tick}: verify {verified:?}, state {:?}",
                    other.map(|w| w.tick())
                )),
            }
        });
        prop_assert!(result.is_ok(), "{}", result.unwrap_err());
    }

    /// Random damage to a hash log.
    #[test]
    fn damaged_hash_logs_are_told_apart_from_the_original(
        edit in 0u8..6,
        at in any::<usize>(),
        other in any::<usize>(),
        bytes in proptest::collection::vec(any::<u8>(), 1..20),
        networked_one in any::<bool>(),
    ) {
        let original = if networked_one { networked_hashes() } else { &originals().1 };
        let n = original.len();
        let mut damaged = original.clone();
        let lines: Vec<&[u8]> = original.split_inclusive(|&b| b == b'\n').collect();
        let (i, j) = (at % lines.len(), other % lines.len());
        match edit {
            0 => damaged[at % n] ^= 1 << (other % 8),
            1 => damaged.truncate(at % (n + 1)),
            2 => {
                let p = at % (n + 1);
                damaged.splice(p..p, bytes);
            }
            3 => {
                let mut l = lines.clone();
                l.swap(i, j);
                damaged = l.concat();
            }
            4 => {
                let mut l = lines.clone();
                l.insert(j, lines[i]);
                damaged = l.concat();
            }
            _ => {
                let mut l = lines.clone();
                l.remove(i);
                damaged = l.concat();
            }
        }
        let path = case_file("hashlog");
        std::fs::write(&path, &damaged).expect("write");
        let read = within_a_minute({
            let path = path.clone();
            move || read_hash_log_file::<engine::World>(&path)
        });
        let _ = std::fs::remove_file(&path);
        let orig_path = case_file("hashlog");
        std::fs::write(&orig_path, original).expect("write");
        let orig: HashLog<engine::StateHash> = read_hash_log_file::<engine::World>(&orig_path).expect("the original reads");
        let _ = std::fs::remove_file(&orig_path);
        if let Ok(log) = read {
            // Every line is checked in a chain: whatever reads is the original cut short (a
            // torn or removed tail), never a changed line.
            prop_assert!(header_differences(&orig, &log).is_empty(), "the header changed");
            prop_assert!(
                orig.entries.starts_with(&log.entries),
                "damage read as other data lines, not as damage"
            );
            let cmp = compare_logs(&orig.entries, &log.entries);
            prop_assert!(cmp.divergence.is_none());
            let changed = data_lines(&damaged) != data_lines(original);
            prop_assert!(!changed || !cmp.identical(), "changed data lines compare as identical");
        }
    }
}

/// The data lines of a hash log (the reader accepts them only in the writer's exact form): no
/// first line, comments or blank lines; a torn last line left out.
fn data_lines(bytes: &[u8]) -> Vec<String> {
    let text = String::from_utf8_lossy(bytes);
    let mut lines: Vec<&str> = text.split('\n').collect();
    lines.pop(); // after the last '\n': empty, or the torn line
    lines
        .iter()
        .skip(1)
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .map(|l| (*l).to_owned())
        .collect()
}

#[test]
fn the_fuzzed_logs_are_what_they_claim() {
    let (m, h) = originals();
    assert!(m.starts_with(LOG_MAGIC));
    assert!(
        record_offsets(m).len() > 700,
        "header, checkpoints, ticks, end"
    );
    // The networked log holds a record of each networked kind (outage 6, epochs 5 with and
    // without a transfer, resync 7) for the properties to damage and craft, and verifies as
    // it is.
    let n = networked();
    let kinds: Vec<u8> = record_offsets(n).iter().map(|&o| n[o + 20]).collect();
    for (kind, count) in [(5, 2), (6, 1), (7, 1)] {
        assert_eq!(
            kinds.iter().filter(|&&k| k == kind).count(),
            count,
            "kind {kind}"
        );
    }
    let read = read_all(n.clone()).expect("reads");
    assert_eq!(read.transfers().count(), 1);
    let hashes = String::from_utf8(networked_hashes().clone()).expect("text");
    assert!(
        hashes.contains("\nepoch 4 from 450 after 400 "),
        "a transfer line"
    );
    let first = format!(
        "# duel hash log v{} ",
        client::logs::hashlog::HASH_LOG_VERSION
    );
    assert!(h.starts_with(first.as_bytes()));
}
