//! The tools that read what a match left on disk: `resume`, `verify`, `desync` (and its
//! reports on dumps and match logs) and `state`.

use anyhow::Result;
use client::forensics::dumps::{dump_file, dump_files, read_snapshot_file, state_at};
use client::forensics::fielddiff::diff;
use client::forensics::{
    first_unfollowed_tick, inputs_agree, phase_verdict, read_phase_trace, retrace,
};
use client::load_rules;
use client::logs::hashlog::{
    compare_logs, format_ranges, header_differences, read_hash_log_file, Divergence, HashLog,
};
use client::logs::matchlog::read_log;
use client::logs::peer_logs::dumps_next_to;
use client::logs::replay::verify_logging;
use client::runs::{resume_logged_bot_match, Resume};
use engine::{Tick, World};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// `duel-cli resume`: continues a bot match from its match log and prints where it got to.
pub(crate) fn resume(plan: &Resume) -> Result<()> {
    let resumed = resume_logged_bot_match(plan)?;
    out!("{}: {resumed}", plan.log.display());
    let summary = &resumed.played;
    out!(
        "resumed: ticks={} round={} wins={:?} hash={:016x}",
        summary.ticks,
        summary.round,
        summary.wins,
        summary.final_hash.combined
    );
    Ok(())
}

/// `duel-cli verify`: re-simulates a match log, optionally writing the hashes as a hash log.
pub(crate) fn verify(log: &Path, rules: Option<&Path>, hash_log: Option<&Path>) -> Result<()> {
    let rules = rules.map(|p| load_rules(Some(p))).transpose()?;
    let read = read_log::<World>(log)?;
    if let Some(tail) = read.tail_report() {
        out!("{tail}, not verified");
        if read.hole.is_some() {
            err_out!("warning: {tail}");
        }
    }
    let mut out = match hash_log {
        Some(p) => Some(client::logs::hashlog::HashLogWriter::create(
            p,
            &client::logs::hashlog::MatchIdentity::of_log(&read.header),
            "replay",
        )?),
        None => None,
    };
    let report = verify_logging(&read, rules.as_ref(), out.as_mut())?;
    out!(
        "verified: ticks={} checkpoints={} ended={} (mode {}, seed {}, rules {:016x})",
        report.ticks,
        report.checkpoints,
        if report.ended { "cleanly" } else { "cut" },
        read.header.mode,
        read.header.match_seed,
        read.header.rules_hash
    );
    Ok(())
}

/// `duel-cli desync`: the dump directories default to `<hash log>.dumps`; the match logs are
/// compared only when both are given.
pub(crate) fn desync(
    a: &Path,
    b: &Path,
    dumps_a: Option<PathBuf>,
    dumps_b: Option<PathBuf>,
    matches: Option<(PathBuf, PathBuf)>,
) -> Result<ExitCode> {
    let dumps_a = dumps_a.unwrap_or_else(|| dumps_next_to(a));
    let dumps_b = dumps_b.unwrap_or_else(|| dumps_next_to(b));
    desync_report(a, b, &dumps_a, &dumps_b, matches.as_ref())
}

/// Prints where two hash logs diverge and, when both dump directories hold a snapshot of that
/// tick (or the nearest later dumped tick), the fields that differ, and the ticks only one log
/// holds. Exit 0 if they agree, 2 if they diverge; an error (exit 1) if they are not of the same
/// match, have no tick in common, or agree but one has gaps inside the other's span.
fn desync_report(
    a: &Path,
    b: &Path,
    dumps_a: &Path,
    dumps_b: &Path,
    matches: Option<&(PathBuf, PathBuf)>,
) -> Result<ExitCode> {
    let (la, lb) = (
        read_hash_log_file::<World>(a)?,
        read_hash_log_file::<World>(b)?,
    );
    for (path, log) in [(a, &la), (b, &lb)] {
        if let Some((line, bytes)) = log.torn_line {
            out!(
                "{}: torn last line {line} ({bytes} bytes) ignored",
                path.display()
            );
        }
    }
    let differences = header_differences(&la, &lb);
    anyhow::ensure!(
        differences.is_empty(),
        "{} and {} are not logs of the same match: {}",
        a.display(),
        b.display(),
        differences.join(", ")
    );
    let cmp = compare_logs(&la.entries, &lb.entries);
    let span = |log: &HashLog<engine::StateHash>| match (log.entries.first(), log.entries.last()) {
        (Some(f), Some(l)) => format!("ticks {}–{}", f.tick, l.tick),
        _ => "no ticks".to_owned(),
    };
    anyhow::ensure!(
        cmp.common > 0,
        "no tick in common, nothing compared: {} holds {}, {} holds {}",
        a.display(),
        span(&la),
        b.display(),
        span(&lb)
    );
    for (path, only) in [(a, &cmp.only_in_a), (b, &cmp.only_in_b)] {
        if !only.is_empty() {
            out!("ticks only in {}: {}", path.display(), format_ranges(only));
        }
    }
    let Some(Divergence { tick, section }) = cmp.divergence else {
        out!("no divergence: {} common ticks agree", cmp.common);
        anyhow::ensure!(
            !cmp.has_gaps(&la.entries, &lb.entries),
            "the logs have gaps the other does not (listed above): ticks left unchecked"
        );
        return Ok(ExitCode::SUCCESS);
    };
    let section = section.unwrap_or("combined (the section hashes agree)");
    out!("first divergence at tick {tick}, section {section}");
    dump_report(tick, dumps_a, dumps_b)?;
    if let Some((ma, mb)) = matches {
        match_log_report([(ma, dumps_a), (mb, dumps_b)], tick)?;
    }
    Ok(ExitCode::from(2))
}

/// The fields that differ at the first tick both peers dumped at or after `tick`, and the
/// first phase whose hashes differ in the step to `tick`.
fn dump_report(tick: Tick, dumps_a: &Path, dumps_b: &Path) -> Result<()> {
    let (da, db) = (
        dump_files(dumps_a, "snapshot"),
        dump_files(dumps_b, "snapshot"),
    );
    let common = da
        .iter()
        .filter(|(t, _)| *t >= tick && db.iter().any(|(u, _)| u == t))
        .min_by_key(|(t, _)| *t);
    let Some((at, path_a)) = common else {
        out!(
            "no snapshot dumps of tick {tick} or later on both sides ({} / {})",
            dumps_a.display(),
            dumps_b.display()
        );
        return Ok(());
    };
    let path_b = &db.iter().find(|(u, _)| u == at).expect("common tick").1;
    let (sa, sb) = (
        read_snapshot_file::<World>(path_a)?,
        read_snapshot_file::<World>(path_b)?,
    );
    out!("fields that differ at tick {at}:");
    for d in diff(&sa, &sb) {
        out!("  {d}");
    }
    match (
        dump_file(dumps_a, "phases", tick),
        dump_file(dumps_b, "phases", tick),
    ) {
        (Some(pa), Some(pb)) => {
            let (ta, tb) = (
                read_phase_trace::<World>(&pa)?,
                read_phase_trace::<World>(&pb)?,
            );
            out!("{}", phase_verdict(&ta, &tb));
        }
        _ => out!("no per-phase hashes of tick {tick} on both sides"),
    }
    Ok(())
}

/// Inputs to the divergent tick in both match logs, which log does not re-simulate, and
/// whether each peer's own traced step to that tick re-simulates here from its dumped state.
fn match_log_report(sides: [(&Path, &Path); 2], tick: Tick) -> Result<()> {
    let [(a, dumps_a), (b, dumps_b)] = sides;
    let (la, lb) = (read_log::<World>(a)?, read_log::<World>(b)?);
    let mut slots = Vec::new();
    match inputs_agree((a, &la), (b, &lb), tick, &mut slots) {
        Ok(true) => out!(
            "inputs to tick {tick} agree in both match logs: same inputs, different states \
             (non-determinism, not input delivery)"
        ),
        Ok(false) => {
            out!("inputs to tick {tick} DIFFER between the match logs (input delivery bug):");
            for line in slots {
                out!("{line}");
            }
        }
        Err(why) => out!("inputs not compared: {why}"),
    }
    let mut faulty = Vec::new();
    for (path, log, dumps) in [(a, &la, dumps_a), (b, &lb, dumps_b)] {
        let who = format!("{} ({})", log.header.mode, path.display());
        match first_unfollowed_tick(log) {
            None => out!(
                "{who}: re-simulates through tick {}: its states follow from its inputs",
                log.last_tick()
            ),
            Some((t, why)) => {
                out!("{who}: its state at tick {t} does not follow from its own inputs ({why})");
                faulty.push(who.clone());
            }
        }
        if let Some(line) = retrace_report(log, dumps, tick)? {
            out!("{}: {line}", log.header.mode);
        }
    }
    if let [who] = faulty.as_slice() {
        out!("=> the faulty peer is {who}");
    }
    Ok(())
}

/// The peer's dumped state before `tick` and its logged inputs, stepped here with a trace,
/// against the trace the peer wrote: `None` when the dumps lack either file.
fn retrace_report(
    log: &client::logs::matchlog::MatchLog<World>,
    dumps: &Path,
    tick: Tick,
) -> Result<Option<String>> {
    let (Some(before), Some(phases), Some(record)) = (
        tick.checked_sub(1)
            .and_then(|t| dump_file(dumps, "snapshot", t)),
        dump_file(dumps, "phases", tick),
        log.tick_record(tick),
    ) else {
        return Ok(None);
    };
    let rules = client::logs::replay::log_rules(log, None)?;
    let before = read_snapshot_file::<World>(&before)?;
    let here = retrace::<World>(&rules, &before, &record.inputs)?;
    let theirs = read_phase_trace::<World>(&phases)?;
    Ok(Some(match theirs.hashes.first_difference(&here) {
        None => format!(
            "its step to tick {tick}, re-simulated here from its dumped state and logged inputs, \
             matches its own per-phase hashes"
        ),
        Some((phase, _)) => format!(
            "its step to tick {tick}, re-simulated here from its dumped state and logged inputs, \
             differs from its own per-phase hashes after phase {}: that peer's step did not \
             follow from its state and inputs",
            engine::STEP_PHASES.get(phase).map_or("?", |p| p.name())
        ),
    }))
}

/// `duel-cli state`: prints a state, or its differences from another (exit 2 if any).
pub(crate) fn state(path: &Path, tick: Option<Tick>, other: Option<&Path>) -> Result<ExitCode> {
    let a = state_at::<World>(path, tick)?;
    let Some(other) = other else {
        out!("state at tick {} (hash {})", a.tick, a.hash());
        for (field, value) in client::forensics::fielddiff::flatten(&a) {
            out!("{field}: {value}");
        }
        return Ok(ExitCode::SUCCESS);
    };
    let b = state_at::<World>(other, Some(a.tick))?;
    let diffs = diff(&a, &b);
    if diffs.is_empty() {
        out!("identical at tick {} (hash {})", a.tick, a.hash());
        return Ok(ExitCode::SUCCESS);
    }
    out!("fields that differ at tick {}:", a.tick);
    for d in diffs {
        out!("  {d}");
    }
    Ok(ExitCode::from(2))
}
