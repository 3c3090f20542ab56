//! Desync forensics: what a peer leaves behind when a desync is detected, and reading it back.
//!
//! Beside each dumped snapshot `<role>-tick-<t>.snapshot` a peer writes `<role>-tick-<t>.phases`:
//! the inputs of the step that reached tick `t` and the state hash right after each of
//! [`STEP_PHASES`]. Both peers held the same state before the first divergent tick, so the first
//! phase whose hashes differ between their files is where the divergence began; equal phase
//! hashes with different inputs point at input delivery instead.
//!
//! The files come from another machine: they are read with a size limit and parsed strictly
//! (every phase once, in order; 16-digit hex hashes), and a bad file is a clear error.

use crate::error::Error;
use crate::matchlog::MatchLog;
use engine::{InputCmd, PhaseHashes, StateHash, Tick, STEP_PHASES};
use std::fmt::{self, Write as _};
use std::net::SocketAddr;
use std::path::{Path, PathBuf};

/// Largest `.phases` file read (a real one is about 1.3 KB).
const MAX_TRACE_BYTES: u64 = 64 * 1024;

/// The per-phase hashes of one step, with the inputs it was simulated with.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PhaseTrace {
    /// The hashes after every phase of the step from `hashes.tick` to `hashes.tick + 1`.
    pub hashes: PhaseHashes,
    /// Every player's input, in slot order, as written (`buttons=.. move=x,y view=t+f`).
    pub inputs: Vec<String>,
}

/// One input as `.phases` files and reports print it.
#[must_use]
pub fn describe_input(input: &InputCmd) -> String {
    format!(
        "buttons={:#04x} move={},{} view={}+{}",
        input.buttons, input.move_x, input.move_y, input.view_ticks, input.view_frac
    )
}

impl PhaseTrace {
    /// A trace of `hashes` from `inputs`.
    #[must_use]
    pub fn new(hashes: PhaseHashes, inputs: &[InputCmd]) -> PhaseTrace {
        PhaseTrace {
            hashes,
            inputs: inputs.iter().map(describe_input).collect(),
        }
    }

    /// The file's text: `step <tick>`, one `input <slot> ...` line per player, then one
    /// `<phase> <combined> <players> <projectiles> <maze> <history> <rest>` line per phase.
    #[must_use]
    pub fn to_text(&self) -> String {
        let mut out = format!(
            "# state hashes after each phase of the step from tick {} to {}\nstep {}\n",
            self.hashes.tick,
            u64::from(self.hashes.tick) + 1,
            self.hashes.tick
        );
        for (slot, input) in self.inputs.iter().enumerate() {
            let _ = writeln!(out, "input {slot} {input}");
        }
        for (phase, hash) in STEP_PHASES.iter().zip(&self.hashes.after) {
            let _ = writeln!(out, "{} {hash}", phase.name());
        }
        out
    }

    /// Parses [`PhaseTrace::to_text`] output strictly.
    ///
    /// # Errors
    /// [`Error::PhaseTraceSyntax`] naming the line.
    pub fn parse(path: &Path, text: &str) -> Result<PhaseTrace, Error> {
        let bad = |line: usize, reason: String| Error::PhaseTraceSyntax {
            path: path.to_owned(),
            line,
            reason,
        };
        let mut tick = None;
        let mut inputs = Vec::new();
        let mut after = [StateHash::default(); STEP_PHASES.len()];
        let mut phases = 0;
        for (index, line) in text.lines().enumerate() {
            let n = index + 1;
            if line.starts_with('#') || line.trim().is_empty() {
                continue;
            }
            let (key, rest) = line.split_once(' ').unwrap_or((line, ""));
            match key {
                "step" if tick.is_none() => {
                    tick = Some(
                        rest.parse::<Tick>()
                            .map_err(|e| bad(n, format!("tick `{rest}`: {e}")))?,
                    );
                }
                "input" if phases == 0 && inputs.len() < engine::MAX_PLAYERS => {
                    let (slot, input) = rest.split_once(' ').unwrap_or((rest, ""));
                    if slot != inputs.len().to_string() || input.len() > 80 {
                        return Err(bad(n, format!("input line for slot `{slot}` out of order")));
                    }
                    inputs.push(input.to_owned());
                }
                name if phases < STEP_PHASES.len() && name == STEP_PHASES[phases].name() => {
                    after[phases] = parse_hash(rest).map_err(|reason| bad(n, reason))?;
                    phases += 1;
                }
                other => {
                    let expected = STEP_PHASES.get(phases).map_or("nothing more", |p| p.name());
                    return Err(bad(
                        n,
                        format!("unexpected `{other}` (expected {expected})"),
                    ));
                }
            }
        }
        let Some(tick) = tick else {
            return Err(bad(0, "no `step` line".into()));
        };
        if phases < STEP_PHASES.len() {
            return Err(bad(0, format!("{phases} of {} phases", STEP_PHASES.len())));
        }
        Ok(PhaseTrace {
            hashes: PhaseHashes { tick, after },
            inputs,
        })
    }
}

fn parse_hash(text: &str) -> Result<StateHash, String> {
    let words: Vec<&str> = text.split(' ').collect();
    let mut values = [0u64; 6];
    if words.len() != values.len() {
        return Err(format!("expected 6 hashes, found {}", words.len()));
    }
    for (value, word) in values.iter_mut().zip(&words) {
        if word.len() != 16 {
            return Err(format!("hash `{word}` is not 16 hex digits"));
        }
        *value = u64::from_str_radix(word, 16).map_err(|e| format!("hash `{word}`: {e}"))?;
    }
    let [combined, players, projectiles, maze, history, rest] = values;
    Ok(StateHash {
        combined,
        players,
        projectiles,
        maze,
        history,
        rest,
    })
}

/// Writes `<stem>.phases` into `dir`.
///
/// # Errors
/// [`Error::Io`].
pub fn write_phase_trace(dir: &Path, stem: &str, trace: &PhaseTrace) -> Result<(), Error> {
    let path = dir.join(format!("{stem}.phases"));
    std::fs::write(&path, trace.to_text()).map_err(|e| Error::io(&path, e))
}

/// Reads a `.phases` file (at most 64 KiB).
///
/// # Errors
/// [`Error::Io`], [`Error::LogTooLarge`], [`Error::PhaseTraceSyntax`].
pub fn read_phase_trace(path: &Path) -> Result<PhaseTrace, Error> {
    let bytes = crate::matchlog::read_limited(path, MAX_TRACE_BYTES)?;
    let text = String::from_utf8(bytes).map_err(|_| Error::PhaseTraceSyntax {
        path: path.to_owned(),
        line: 0,
        reason: "not UTF-8 text".into(),
    })?;
    PhaseTrace::parse(path, &text)
}

/// What a peer says when a desync is detected: the tick, both checksums, the dumps and the
/// command to run next.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DesyncNotice {
    /// The checked tick whose checksums differ.
    pub tick: Tick,
    /// Checksums are compared every this many ticks.
    pub interval: u32,
    /// Our checksum of `tick`.
    pub local: u64,
    /// The peer's.
    pub remote: u64,
    /// The peer.
    pub peer: SocketAddr,
    /// Where the snapshots and phase hashes went, and the ticks dumped.
    pub dumps: Option<(PathBuf, Tick, Tick)>,
    /// This peer's hash log.
    pub hash_log: Option<PathBuf>,
    /// This peer's match log.
    pub match_log: Option<PathBuf>,
}

impl fmt::Display for DesyncNotice {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let tick = self.tick;
        if self.interval <= 1 {
            writeln!(
                f,
                "DESYNC at tick {tick}: the first tick whose checksums differ"
            )?;
        } else {
            let from = tick.saturating_sub(self.interval - 1);
            writeln!(
                f,
                "DESYNC at tick {tick} (checksums compared every {} ticks: the first divergent \
                 tick is one of {from}–{tick})",
                self.interval
            )?;
        }
        writeln!(
            f,
            "  checksums: ours {:016x}, peer {} {:016x}",
            self.local, self.peer, self.remote
        )?;
        match &self.dumps {
            Some((dir, from, to)) => writeln!(
                f,
                "  dumps: {} (ticks {from}–{to}: .snapshot and .phases per-phase hashes each, \
                 .txt for the last 4)",
                dir.display()
            )?,
            None => writeln!(f, "  dumps: none (no dump directory)")?,
        }
        let ours = self
            .hash_log
            .as_ref()
            .map_or("<this peer's hash log>".into(), |p| p.display().to_string());
        write!(
            f,
            "  next: duel-cli desync {ours} <the other peer's hash log>"
        )?;
        if let Some(log) = &self.match_log {
            write!(
                f,
                " --match-a {} --match-b <the other peer's match log>",
                log.display()
            )?;
        }
        Ok(())
    }
}

/// What the per-phase hashes of the step to the first divergent tick say, in one line.
#[must_use]
pub fn phase_verdict(a: &PhaseTrace, b: &PhaseTrace) -> String {
    let tick = u64::from(a.hashes.tick) + 1;
    match a.hashes.first_difference(&b.hashes) {
        Some((phase, section)) => format!(
            "first phase that differs in the step to tick {tick}: {} (section {})",
            phase.name(),
            section.map_or("combined only", |s| s.name())
        ),
        None => format!(
            "every phase agrees in the step to tick {tick}: re-simulated from each peer's state \
             and inputs, the step is the same on both; the difference came from outside the step"
        ),
    }
}

/// The inputs of the step to `tick` in two match logs, compared: `Ok(true)` if they agree.
///
/// # Errors
/// A line saying which log lacks the tick.
pub fn inputs_agree(
    a: (&Path, &MatchLog),
    b: (&Path, &MatchLog),
    tick: Tick,
    out: &mut Vec<String>,
) -> Result<bool, String> {
    fn record<'l>(
        (path, log): (&Path, &'l MatchLog),
        tick: Tick,
    ) -> Result<&'l crate::matchlog::TickRecord, String> {
        log.tick_record(tick)
            .ok_or_else(|| format!("{} holds no inputs for tick {tick}", path.display()))
    }
    let (ra, rb) = (record(a, tick)?, record(b, tick)?);
    let describe = |w: &engine::WireInput| describe_input(&w.at(tick - 1));
    let mut agree = ra.inputs.len() == rb.inputs.len();
    for (slot, (ia, ib)) in ra.inputs.iter().zip(&rb.inputs).enumerate() {
        if ia != ib {
            agree = false;
            out.push(format!(
                "  slot {slot}: {} vs {}",
                describe(ia),
                describe(ib)
            ));
        }
    }
    Ok(agree)
}

/// Re-simulates a match log from its start: `None` if every logged state follows from its
/// inputs, else the first tick that does not and a description.
#[must_use]
pub fn first_unfollowed_tick(log: &MatchLog) -> Option<(Tick, String)> {
    match crate::replay::verify(log, None) {
        Ok(_) => None,
        Err(Error::VerifyMismatch {
            tick,
            section,
            logged,
            got,
        }) => Some((
            tick,
            format!("section {section}: logged {logged:016x}, its inputs give {got:016x}"),
        )),
        Err(other) => Some((log.last_tick(), format!("does not replay: {other}"))),
    }
}

/// Re-simulates one step here, from a dumped state and the logged inputs, tracing every phase:
/// compared with the trace the peer wrote, it says whether that peer's step followed from its
/// own state and inputs.
///
/// # Errors
/// Rules or snapshot errors (a dumped state the rules refuse), or an engine error stepping.
pub fn retrace(
    rules: &engine::Rules,
    before: &engine::WorldSnapshot,
    inputs: &[engine::WireInput],
) -> Result<PhaseHashes, Error> {
    let mut world = engine::World::from_snapshot(rules.clone(), before)?;
    let tick = world.tick();
    let inputs: Vec<InputCmd> = inputs.iter().map(|w| w.at(tick)).collect();
    let mut trace = PhaseHashes::default();
    world.step_traced(&inputs, &mut trace)?;
    Ok(trace)
}

#[cfg(test)]
mod tests {
    use super::*;
    use engine::{Rules, World};

    fn trace() -> PhaseTrace {
        let mut world = World::new(Rules::default(), 3, 2).expect("world");
        let inputs = [InputCmd::idle(0), InputCmd::idle(0)];
        let mut hashes = PhaseHashes::default();
        world.step_traced(&inputs, &mut hashes).expect("step");
        PhaseTrace::new(hashes, &inputs)
    }

    #[test]
    fn a_phase_trace_reads_back_as_written() {
        let t = trace();
        let back = PhaseTrace::parse(Path::new("t.phases"), &t.to_text()).expect("parse");
        assert_eq!(back, t);
    }

    #[test]
    fn damaged_phase_traces_are_refused_with_their_line() {
        let text = trace().to_text();
        let cases = [
            text.replace("movement", "moving"),
            text.replace("step 0", "step x"),
            text.lines().take(8).collect::<Vec<_>>().join("\n"),
            text.replace("validate ", "validate 0 "),
            format!("{text}events {}\n", "0".repeat(16)),
            text.replace("input 1", "input 7"),
        ];
        for bad in cases {
            let err = PhaseTrace::parse(Path::new("t.phases"), &bad).expect_err(&bad);
            assert!(matches!(err, Error::PhaseTraceSyntax { .. }), "{err}");
        }
    }

    proptest::proptest! {
        #[test]
        fn any_text_parses_or_is_refused_without_panicking(text in ".{0,400}") {
            let _ = PhaseTrace::parse(Path::new("t.phases"), &text);
        }
    }
}
