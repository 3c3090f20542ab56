//! The desync report: two peers' hash logs compared, and, where they diverge, what their dumps
//! and match logs say — the tick and section, the fields that differ, the first phase whose
//! hashes differ, whether the inputs agreed, and which peer's states do not follow from its
//! own inputs. Generic over the game: the duel's `duel-cli desync` prints this, and the ring
//! race's tests read the same report.

use super::dumps::{dump_file, dump_files, read_snapshot_file};
use super::fielddiff::diff;
use super::{first_unfollowed_tick, inputs_agree, phase_verdict, read_phase_trace, retrace};
use crate::error::Error;
use crate::logs::hashlog::{
    compare_logs, format_ranges, header_differences, read_hash_log_file, Divergence, HashLog,
};
use crate::logs::matchlog::{read_log, MatchLog};
use crate::logs::replay::log_rules;
use game_api::{Game, PhaseHashes, Tick};
use std::path::{Path, PathBuf};

/// Where one peer's files are: its hash log, its dump directory, and its match log (the match
/// logs are compared only when both peers give one).
#[derive(Debug, Clone)]
pub struct PeerFiles {
    /// The hash log.
    pub hash_log: PathBuf,
    /// The desync dumps (snapshots and per-phase hashes).
    pub dumps: PathBuf,
    /// The match log.
    pub match_log: Option<PathBuf>,
}

/// Compares the hash logs of `a` and `b` (two peers of one match of `G`) and explains the
/// first divergence from their dumps and match logs, line by line into `lines` (what a tool
/// prints, kept also when an error ends the report). The first divergent tick and the section
/// named there; `None` if the logs agree.
///
/// # Errors
/// Logs that do not read as `G`'s, are not of the same match ([`Error::LogsOfOtherMatches`]),
/// have no tick in common ([`Error::NoTickInCommon`]), or agree but one has gaps inside the
/// other's span ([`Error::UncheckedGaps`]); dumps or match logs that do not read.
pub fn desync_report<G: Game>(
    a: &PeerFiles,
    b: &PeerFiles,
    lines: &mut Vec<String>,
) -> Result<Option<(Tick, String)>, Error> {
    let (la, lb) = (
        read_hash_log_file::<G>(&a.hash_log)?,
        read_hash_log_file::<G>(&b.hash_log)?,
    );
    for (path, log) in [(&a.hash_log, &la), (&b.hash_log, &lb)] {
        if let Some((line, bytes)) = log.torn_line {
            lines.push(format!(
                "{}: torn last line {line} ({bytes} bytes) ignored",
                path.display()
            ));
        }
    }
    let differences = header_differences(&la, &lb);
    if !differences.is_empty() {
        return Err(Error::LogsOfOtherMatches {
            a: a.hash_log.clone(),
            b: b.hash_log.clone(),
            differences: differences.join(", "),
        });
    }
    let cmp = compare_logs(&la.entries, &lb.entries);
    if cmp.common == 0 {
        return Err(Error::NoTickInCommon {
            a: a.hash_log.clone(),
            held_a: span(&la),
            b: b.hash_log.clone(),
            held_b: span(&lb),
        });
    }
    for (path, only) in [(&a.hash_log, &cmp.only_in_a), (&b.hash_log, &cmp.only_in_b)] {
        if !only.is_empty() {
            lines.push(format!(
                "ticks only in {}: {}",
                path.display(),
                format_ranges(only)
            ));
        }
    }
    let Some(Divergence { tick, section }) = cmp.divergence else {
        lines.push(format!("no divergence: {} common ticks agree", cmp.common));
        if cmp.has_gaps(&la.entries, &lb.entries) {
            return Err(Error::UncheckedGaps);
        }
        return Ok(None);
    };
    let section = section.unwrap_or("combined (the section hashes agree)");
    lines.push(format!(
        "first divergence at tick {tick}, section {section}"
    ));
    dump_report::<G>(lines, tick, &a.dumps, &b.dumps)?;
    if let (Some(ma), Some(mb)) = (&a.match_log, &b.match_log) {
        match_log_report::<G>(lines, [(ma, &a.dumps), (mb, &b.dumps)], tick)?;
    }
    Ok(Some((tick, section.to_owned())))
}

/// The ticks a hash log holds, for an error.
fn span<H>(log: &HashLog<H>) -> String {
    match (log.entries.first(), log.entries.last()) {
        (Some(f), Some(l)) => format!("ticks {}–{}", f.tick, l.tick),
        _ => "no ticks".to_owned(),
    }
}

/// The fields that differ at the first tick both peers dumped at or after `tick`, and the
/// first phase whose hashes differ in the step to `tick`.
fn dump_report<G: Game>(
    lines: &mut Vec<String>,
    tick: Tick,
    dumps_a: &Path,
    dumps_b: &Path,
) -> Result<(), Error> {
    let (da, db) = (
        dump_files(dumps_a, "snapshot"),
        dump_files(dumps_b, "snapshot"),
    );
    let common = (da.iter())
        .filter(|(t, _)| *t >= tick && db.iter().any(|(u, _)| u == t))
        .min_by_key(|(t, _)| *t);
    let Some((at, path_a)) = common else {
        lines.push(format!(
            "no snapshot dumps of tick {tick} or later on both sides ({} / {})",
            dumps_a.display(),
            dumps_b.display()
        ));
        return Ok(());
    };
    let path_b = &db.iter().find(|(u, _)| u == at).expect("common tick").1;
    let (sa, sb) = (
        read_snapshot_file::<G>(path_a)?,
        read_snapshot_file::<G>(path_b)?,
    );
    lines.push(format!("fields that differ at tick {at}:"));
    lines.extend(diff(&sa, &sb).into_iter().map(|d| format!("  {d}")));
    match (
        dump_file(dumps_a, "phases", tick),
        dump_file(dumps_b, "phases", tick),
    ) {
        (Some(pa), Some(pb)) => {
            let (ta, tb) = (read_phase_trace::<G>(&pa)?, read_phase_trace::<G>(&pb)?);
            lines.push(phase_verdict(&ta, &tb));
        }
        _ => lines.push(format!("no per-phase hashes of tick {tick} on both sides")),
    }
    Ok(())
}

/// Inputs to the divergent tick in both match logs, which log does not re-simulate, and
/// whether each peer's own traced step to that tick re-simulates here from its dumped state.
fn match_log_report<G: Game>(
    lines: &mut Vec<String>,
    sides: [(&Path, &Path); 2],
    tick: Tick,
) -> Result<(), Error> {
    let [(a, dumps_a), (b, dumps_b)] = sides;
    let (la, lb) = (read_log::<G>(a)?, read_log::<G>(b)?);
    let mut slots = Vec::new();
    match inputs_agree((a, &la), (b, &lb), tick, &mut slots) {
        Ok(true) => lines.push(format!(
            "inputs to tick {tick} agree in both match logs: same inputs, different states \
             (non-determinism, not input delivery)"
        )),
        Ok(false) => {
            lines.push(format!(
                "inputs to tick {tick} DIFFER between the match logs (input delivery bug):"
            ));
            lines.extend(slots);
        }
        Err(why) => lines.push(format!("inputs not compared: {why}")),
    }
    let mut faulty = Vec::new();
    for (path, log, dumps) in [(a, &la, dumps_a), (b, &lb, dumps_b)] {
        let who = format!("{} ({})", log.header.mode, path.display());
        match first_unfollowed_tick(log) {
            None => lines.push(format!(
                "{who}: re-simulates through tick {}: its states follow from its inputs",
                log.last_tick()
            )),
            Some((t, why)) => {
                lines.push(format!(
                    "{who}: its state at tick {t} does not follow from its own inputs ({why})"
                ));
                faulty.push(who.clone());
            }
        }
        if let Some(line) = retrace_report(log, dumps, tick)? {
            lines.push(format!("{}: {line}", log.header.mode));
        }
    }
    if let [who] = faulty.as_slice() {
        lines.push(format!("=> the faulty peer is {who}"));
    }
    Ok(())
}

/// The peer's dumped state before `tick` and its logged inputs, stepped here with a trace,
/// against the trace the peer wrote: `None` when the dumps lack either file.
fn retrace_report<G: Game>(
    log: &MatchLog<G>,
    dumps: &Path,
    tick: Tick,
) -> Result<Option<String>, Error> {
    let (Some(before), Some(phases), Some(record)) = (
        (tick.checked_sub(1)).and_then(|t| dump_file(dumps, "snapshot", t)),
        dump_file(dumps, "phases", tick),
        log.tick_record(tick),
    ) else {
        return Ok(None);
    };
    let rules = log_rules(log, None)?;
    let before = read_snapshot_file::<G>(&before)?;
    let here: PhaseHashes<G::Hash> = retrace::<G>(&rules, &before, &record.inputs)?;
    let theirs = read_phase_trace::<G>(&phases)?;
    Ok(Some(match theirs.hashes.first_difference(&here) {
        None => format!(
            "its step to tick {tick}, re-simulated here from its dumped state and logged inputs, \
             matches its own per-phase hashes"
        ),
        Some((phase, _)) => format!(
            "its step to tick {tick}, re-simulated here from its dumped state and logged inputs, \
             differs from its own per-phase hashes after phase {}: that peer's step did not \
             follow from its state and inputs",
            G::PHASES.get(phase).map_or("?", |&p| G::phase_name(p))
        ),
    }))
}
