//! The tools that read what a match left on disk: `resume`, `verify`, `desync` (and its
//! reports on dumps and match logs) and `state`.

use anyhow::Result;
use client::forensics::dumps::state_at;
use client::forensics::fielddiff::diff;
use client::forensics::{desync_report, PeerFiles};
use client::load_rules;
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
/// compared only when both are given. Prints where two hash logs diverge and, when both dump
/// directories hold a snapshot of that tick (or the nearest later dumped tick), the fields that
/// differ, and the ticks only one log holds ([`desync_report`]). Exit 0 if they agree, 2 if
/// they diverge; an error (exit 1) if they are not of the same match, have no tick in common,
/// or agree but one has gaps inside the other's span.
pub(crate) fn desync(
    a: &Path,
    b: &Path,
    dumps_a: Option<PathBuf>,
    dumps_b: Option<PathBuf>,
    matches: Option<(PathBuf, PathBuf)>,
) -> Result<ExitCode> {
    let (match_a, match_b) = matches.unzip();
    let side = |hash_log: &Path, dumps: Option<PathBuf>, match_log| PeerFiles {
        hash_log: hash_log.to_owned(),
        dumps: dumps.unwrap_or_else(|| dumps_next_to(hash_log)),
        match_log,
    };
    let mut lines = Vec::new();
    let found = desync_report::<World>(
        &side(a, dumps_a, match_a),
        &side(b, dumps_b, match_b),
        &mut lines,
    );
    // What the report said before an error is printed all the same.
    for line in &lines {
        out!("{line}");
    }
    Ok(match found? {
        Some(_) => ExitCode::from(2),
        None => ExitCode::SUCCESS,
    })
}

/// `duel-cli state`: prints a state, or its differences from another (exit 2 if any).
pub(crate) fn state(path: &Path, tick: Option<Tick>, other: Option<&Path>) -> Result<ExitCode> {
    let a = state_at::<World>(path, tick)?;
    let Some(other) = other else {
        out!("state at tick {} (hash {})", a.tick(), a.hash());
        for (field, value) in client::forensics::fielddiff::flatten(&a) {
            out!("{field}: {value}");
        }
        return Ok(ExitCode::SUCCESS);
    };
    let b = state_at::<World>(other, Some(a.tick()))?;
    let diffs = diff(&a, &b);
    if diffs.is_empty() {
        out!("identical at tick {} (hash {})", a.tick(), a.hash());
        return Ok(ExitCode::SUCCESS);
    }
    out!("fields that differ at tick {}:", a.tick());
    for d in diffs {
        out!("  {d}");
    }
    Ok(ExitCode::from(2))
}
