//! From what to why: phase traces, inputs and re-simulations compared, each verdict one line.

use super::phase_trace::{describe_input, PhaseTrace};
use crate::error::Error;
use crate::logs::matchlog::MatchLog;
use game_api::{Game, PhaseHashes, SectionHash, Tick};
use std::path::Path;

/// What the per-phase hashes of the step to the first divergent tick say, in one line.
#[must_use]
pub fn phase_verdict<G: Game>(a: &PhaseTrace<G>, b: &PhaseTrace<G>) -> String {
    let tick = u64::from(a.hashes.tick) + 1;
    match a.hashes.first_difference(&b.hashes) {
        Some((phase, section)) => format!(
            "first phase that differs in the step to tick {tick}: {} (section {})",
            G::PHASES.get(phase).map_or("?", |&p| G::phase_name(p)),
            section
                .and_then(|s| <G::Hash as SectionHash>::SECTIONS.get(s))
                .map_or("combined only", |s| s)
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
pub fn inputs_agree<G: Game>(
    a: (&Path, &MatchLog<G>),
    b: (&Path, &MatchLog<G>),
    tick: Tick,
    out: &mut Vec<String>,
) -> Result<bool, String> {
    fn record<'l, G: Game>(
        (path, log): (&Path, &'l MatchLog<G>),
        tick: Tick,
    ) -> Result<&'l crate::logs::matchlog::TickRecord<G>, String> {
        log.tick_record(tick)
            .ok_or_else(|| format!("{} holds no inputs for tick {tick}", path.display()))
    }
    let (ra, rb) = (record(a, tick)?, record(b, tick)?);
    let describe = |w: &G::Input| describe_input(w);
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
pub fn first_unfollowed_tick<G: Game>(log: &MatchLog<G>) -> Option<(Tick, String)> {
    match crate::logs::replay::verify(log, None) {
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
pub fn retrace<G: Game>(
    rules: &G::Rules,
    before: &G::Snapshot,
    inputs: &[G::Input],
) -> Result<PhaseHashes<G::Hash>, Error> {
    let mut game = G::from_snapshot(rules.clone(), before).map_err(Error::game)?;
    let mut trace = PhaseHashes::default();
    game.step_traced(inputs, &mut trace).map_err(Error::game)?;
    Ok(trace)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A log whose states all follow from its inputs names no tick; one whose logged hash
    /// differs names that tick and section; one that does not replay at all (a record with a
    /// player's input missing) is not "fine" either: it names the log's last tick and why.
    #[test]
    fn a_log_that_does_not_replay_is_named_not_taken_as_followed() {
        let (dir, log) = crate::runs::logged_bot_match("verdict", 4, 120);
        assert_eq!(first_unfollowed_tick(&log), None, "a faithful log");

        let mut forged = log.clone();
        forged.ticks[49].hash.projectiles ^= 1;
        let tick = forged.ticks[49].tick;
        let (at, why) = first_unfollowed_tick(&forged).expect("a forged hash is named");
        assert_eq!(at, tick);
        assert!(why.starts_with("section projectiles: logged "), "{why}");

        let mut broken = log.clone();
        broken.ticks[60].inputs.pop();
        let (at, why) = first_unfollowed_tick(&broken).expect("an unreplayable log is named");
        assert_eq!(at, log.last_tick());
        assert!(why.starts_with("does not replay: "), "{why}");
        let _ = std::fs::remove_dir_all(&dir);
    }

    /// The verdict names the step's tick (the trace's + 1), the first phase whose hashes
    /// differ and its first differing section, or "combined only"; traces that agree say so.
    #[test]
    fn the_phase_verdict_names_the_step_the_first_phase_and_its_section() {
        use engine::{StateHash, World};
        let same = StateHash::default();
        let maze = StateHash {
            maze: 1,
            combined: 1,
            ..same
        };
        let combined = StateHash {
            combined: 1,
            ..same
        };
        let trace = |after: &[StateHash]| PhaseTrace::<World> {
            hashes: PhaseHashes::new(41, after),
            inputs: Vec::new(),
        };
        let base = trace(&[same; 10]);
        let mut later = [same; 10];
        later[3..].fill(maze);
        assert_eq!(
            phase_verdict(&base, &trace(&later)),
            "first phase that differs in the step to tick 42: aim-and-fire (section maze)"
        );
        assert_eq!(
            phase_verdict(&base, &trace(&[combined; 10])),
            "first phase that differs in the step to tick 42: validate (section combined only)"
        );
        assert!(phase_verdict(&base, &base.clone())
            .starts_with("every phase agrees in the step to tick 42: "),);
    }

    /// Inputs agree when every slot's does and both logs hold as many; each slot that differs
    /// is a line; a log without the tick is named.
    #[test]
    fn inputs_are_compared_slot_by_slot_and_a_missing_tick_is_named() {
        let (dir, log) = crate::runs::logged_bot_match("verdict-inputs", 4, 60);
        let (pa, pb) = (Path::new("a.mlog"), Path::new("b.mlog"));
        let mut lines = Vec::new();
        assert_eq!(
            inputs_agree((pa, &log), (pb, &log), 30, &mut lines),
            Ok(true)
        );
        assert!(lines.is_empty(), "{lines:?}");

        let mut moved = log.clone();
        moved.ticks[29].inputs[1].move_x ^= 1;
        let (was, now) = (log.ticks[29].inputs[1], moved.ticks[29].inputs[1]);
        assert_eq!(
            inputs_agree((pa, &log), (pb, &moved), 30, &mut lines),
            Ok(false)
        );
        assert_eq!(lines, [format!("  slot 1: {was:?} vs {now:?}")]);

        let mut fewer = log.clone();
        fewer.ticks[29].inputs.pop();
        lines.clear();
        assert_eq!(
            inputs_agree((pa, &log), (pb, &fewer), 30, &mut lines),
            Ok(false)
        );
        assert!(lines.is_empty(), "{lines:?}");

        let missing = inputs_agree((pa, &log), (pb, &log), 61, &mut lines);
        assert_eq!(
            missing,
            Err("a.mlog holds no inputs for tick 61".to_owned())
        );
        fewer.ticks.truncate(10);
        let missing = inputs_agree((pa, &log), (pb, &fewer), 30, &mut lines);
        assert_eq!(
            missing,
            Err("b.mlog holds no inputs for tick 30".to_owned())
        );
        let _ = std::fs::remove_dir_all(&dir);
    }

    /// A retraced step is the logged step: from the state before it and its inputs, the hash
    /// after its last phase is the state the log holds at its tick.
    #[test]
    fn a_retraced_step_ends_in_the_logged_state_of_its_tick() {
        use engine::{Rules, World};
        let (dir, log) = crate::runs::logged_bot_match("verdict-retrace", 4, 60);
        let before = crate::logs::replay::verified_state_at(&log, 29).expect("a state");
        let record = log.tick_record(30).expect("a record");
        let trace = retrace::<World>(&Rules::default(), &Game::snapshot(&before), &record.inputs)
            .expect("retraced");
        assert_eq!(trace.tick, 29);
        assert_eq!(trace.after().len(), World::PHASES.len());
        assert_eq!(trace.after().last(), Some(&record.hash));
        let _ = std::fs::remove_dir_all(&dir);
    }
}
