//! The executable part of the [`Game`] contract: checks a game's own tests run on scripted
//! inputs. Each returns `Err` with a sentence naming the tick and what broke.
//!
//! ```ignore
//! game_api::conformance::check_all::<MyGame>(MyRules::default(), 7, 2, 600, |tick, slot| {
//!     MyInput::scripted(tick, slot)
//! })
//! .unwrap();
//! ```

use crate::{Game, PhaseHashes, SectionHash, Tick};

/// Scripted inputs: the input of player `slot` at `tick`.
pub trait Script<G: Game>: Fn(Tick, usize) -> G::Input {}
impl<G: Game, F: Fn(Tick, usize) -> G::Input> Script<G> for F {}

fn inputs_at<G: Game>(script: &impl Script<G>, tick: Tick, players: usize) -> Vec<G::Input> {
    (0..players).map(|slot| script(tick, slot)).collect()
}

fn fail(e: impl std::fmt::Display) -> String {
    e.to_string()
}

/// Every check below, on one match of `ticks` ticks (restored from its start and from its
/// middle).
///
/// # Errors
/// The first check that fails.
pub fn check_all<G: Game>(
    rules: G::Rules,
    seed: u64,
    players: usize,
    ticks: Tick,
    script: impl Script<G>,
) -> Result<(), String> {
    phases_are_named_once::<G>()?;
    sections_are_named_once::<G>()?;
    rules_players_and_restore_hold::<G>(rules.clone(), seed, players, &script)?;
    for restore_at in [0, ticks / 2] {
        restore_replays_bit_identically::<G>(
            rules.clone(),
            seed,
            players,
            ticks,
            restore_at,
            &script,
        )?;
    }
    traced_steps_are_plain_steps::<G>(rules.clone(), seed, players, ticks, &script)?;
    every_perturbation_is_seen::<G>(rules, seed, players, &script)
}

/// A new game has the players and rules it was given; the rules read back from their bytes
/// (and not from one byte less); `restore` puts a game that has moved on back into the
/// snapshot's state, and `restore_saved` into the state it saved.
///
/// # Errors
/// What does not hold.
pub fn rules_players_and_restore_hold<G: Game>(
    rules: G::Rules,
    seed: u64,
    players: usize,
    script: &impl Script<G>,
) -> Result<(), String> {
    let mut game = G::new(rules.clone(), seed, players).map_err(fail)?;
    if game.player_count() != players {
        return Err(format!(
            "{players} players asked for, player_count says {}",
            game.player_count()
        ));
    }
    if game.rules() != &rules {
        return Err("rules() is not the rules the game was made with".into());
    }
    let bytes = G::rules_to_bytes(&rules);
    if G::rules_from_bytes(&bytes).as_ref() != Some(&rules) {
        return Err("the rules do not read back from their bytes".into());
    }
    if !bytes.is_empty() && G::rules_from_bytes(&bytes[..bytes.len() - 1]).is_some() {
        return Err("the rules read back from their bytes less one".into());
    }
    if game.seed() != seed {
        return Err(format!("seed {seed} given, seed() says {}", game.seed()));
    }
    let start = game.snapshot();
    for tick in 0..10 {
        game.step(&inputs_at(script, tick, players)).map_err(fail)?;
    }
    // What logs read of a snapshot without a game: its tick and hash, the game's own.
    let later = game.snapshot();
    if G::snapshot_tick(&later) != game.tick() || G::snapshot_hash(&later) != game.state_hash() {
        return Err("snapshot_tick or snapshot_hash is not the game's tick or state hash".into());
    }
    game.restore(&start).map_err(fail)?;
    if game.snapshot() != start {
        return Err("restore does not put the game back in the snapshot's state".into());
    }
    if game.seed() != seed {
        return Err("seed() is not kept through a restore".into());
    }
    // A rollback's load of its own save, into a slot that held another state.
    let mut saved = later;
    game.save_into(&mut saved);
    for tick in 0..10 {
        game.step(&inputs_at(script, tick, players)).map_err(fail)?;
    }
    game.restore_saved(&saved).map_err(fail)?;
    if saved != start || game.snapshot() != start {
        return Err("restore_saved does not put the game back in its saved state".into());
    }
    Ok(())
}

/// Phase names are unique, at most [`crate::MAX_PHASES`], and read back by name.
///
/// # Errors
/// The phase that breaks it.
pub fn phases_are_named_once<G: Game>() -> Result<(), String> {
    if G::PHASES.is_empty() || G::PHASES.len() > crate::MAX_PHASES {
        return Err(format!(
            "{} phases (1 to {})",
            G::PHASES.len(),
            crate::MAX_PHASES
        ));
    }
    for (i, &phase) in G::PHASES.iter().enumerate() {
        let name = G::phase_name(phase);
        if G::phase_named(name) != Some(phase) || G::phase_index(phase) != Some(i) {
            return Err(format!("phase {i} `{name}` is not found by its name"));
        }
    }
    Ok(())
}

/// Section names are unique and non-empty, and a hash is rebuilt from its sections.
///
/// # Errors
/// The section that breaks it.
pub fn sections_are_named_once<G: Game>() -> Result<(), String> {
    let names = <G::Hash as SectionHash>::SECTIONS;
    for (i, name) in names.iter().enumerate() {
        if name.is_empty() || name.contains(char::is_whitespace) || names[..i].contains(name) {
            return Err(format!(
                "section {i} `{name}` is empty, spaced or named twice"
            ));
        }
    }
    let sections: Vec<u64> = (0..names.len() as u64).map(|i| i * 0x9e37 + 1).collect();
    let hash = G::Hash::from_sections(&sections).ok_or("from_sections refused its sections")?;
    if (0..names.len()).any(|i| hash.section(i) != sections[i]) {
        return Err("from_sections does not keep the sections given".into());
    }
    if G::Hash::from_sections(&sections[1..]).is_some() {
        return Err("from_sections took one section too few".into());
    }
    Ok(())
}

/// A match stepped to `restore_at`, snapshotted through its bytes and restored into a fresh
/// game, steps on bit-identically to the original: the same hash, snapshot and events at every
/// tick up to `ticks`.
///
/// # Errors
/// The first tick where the two differ.
pub fn restore_replays_bit_identically<G: Game>(
    rules: G::Rules,
    seed: u64,
    players: usize,
    ticks: Tick,
    restore_at: Tick,
    script: &impl Script<G>,
) -> Result<(), String> {
    let mut original = G::new(rules.clone(), seed, players).map_err(fail)?;
    while original.tick() < restore_at {
        original
            .step(&inputs_at(script, original.tick(), players))
            .map_err(fail)?;
    }
    let bytes = G::snapshot_to_bytes(&original.snapshot());
    let snapshot = G::snapshot_from_bytes(&bytes).map_err(fail)?;
    if snapshot != original.snapshot() {
        return Err(format!(
            "tick {restore_at}: the snapshot changes through its bytes"
        ));
    }
    let mut restored = G::from_snapshot(rules, &snapshot).map_err(fail)?;
    while original.tick() < ticks {
        let tick = original.tick();
        let inputs = inputs_at(script, tick, players);
        let before = original.snapshot();
        let a = original.step(&inputs).map_err(fail)?.to_vec();
        let mut nudged = original.clone();
        nudged.debug_perturb();
        // `state_equals` may say "not known" (`false`) but never "equal" for another state:
        // the tick before, or the same tick one perturbation away.
        for (what, state) in [
            ("the tick before", before),
            ("a perturbed copy", nudged.snapshot()),
        ] {
            if original.state_equals(&state) && original.snapshot() != state {
                return Err(format!(
                    "tick {}: state_equals calls the state of {what} equal",
                    original.tick()
                ));
            }
        }
        let b = restored.step(&inputs).map_err(fail)?.to_vec();
        if a != b {
            return Err(format!(
                "restored at {restore_at}: the events of the step from tick {tick} differ"
            ));
        }
        if original.state_hash() != restored.state_hash()
            || original.snapshot() != restored.snapshot()
        {
            return Err(format!(
                "restored at {restore_at}: the states differ after the step from tick {tick}"
            ));
        }
    }
    Ok(())
}

/// A traced step is the same step: the same state and events, and its last phase's hash is the
/// state's hash.
///
/// # Errors
/// The first tick where tracing changes something.
pub fn traced_steps_are_plain_steps<G: Game>(
    rules: G::Rules,
    seed: u64,
    players: usize,
    ticks: Tick,
    script: &impl Script<G>,
) -> Result<(), String> {
    let mut plain = G::new(rules.clone(), seed, players).map_err(fail)?;
    let mut traced = G::new(rules, seed, players).map_err(fail)?;
    let mut trace = PhaseHashes::default();
    while plain.tick() < ticks {
        let tick = plain.tick();
        let inputs = inputs_at(script, tick, players);
        let a = plain.step(&inputs).map_err(fail)?.to_vec();
        let b = traced
            .step_traced(&inputs, &mut trace)
            .map_err(fail)?
            .to_vec();
        let last = trace.after().last().copied();
        if a != b || plain.snapshot() != traced.snapshot() {
            return Err(format!(
                "tick {tick}: the traced step differs from the plain one"
            ));
        }
        if trace.tick != tick || trace.after().len() != G::PHASES.len() {
            return Err(format!("tick {tick}: the trace does not cover every phase"));
        }
        if last != Some(plain.state_hash()) {
            return Err(format!(
                "tick {tick}: the last phase's hash is not the state's"
            ));
        }
    }
    Ok(())
}

/// [`Game::debug_perturb`] after any phase changes the state hash (so an injected desync is
/// always seen), and the traces of the perturbed and the plain step first differ at that phase.
///
/// # Errors
/// The phase whose perturbation went unseen.
pub fn every_perturbation_is_seen<G: Game>(
    rules: G::Rules,
    seed: u64,
    players: usize,
    script: &impl Script<G>,
) -> Result<(), String> {
    let start = G::new(rules, seed, players).map_err(fail)?;
    let inputs = inputs_at(script, 0, players);
    let mut plain = start.clone();
    let mut expected = PhaseHashes::default();
    plain.step_traced(&inputs, &mut expected).map_err(fail)?;
    for (index, &phase) in G::PHASES.iter().enumerate() {
        let mut perturbed = start.clone();
        let mut perturb = crate::Perturb {
            after: index,
            inner: crate::PhaseTracer::new(0),
        };
        perturbed
            .step_observed(&inputs, &mut perturb)
            .map_err(fail)?;
        let name = G::phase_name(phase);
        if perturbed.state_hash() == plain.state_hash() {
            return Err(format!(
                "a perturbation after `{name}` leaves the hash unchanged"
            ));
        }
        let trace = perturb.inner.finish();
        if expected.first_difference(&trace).map(|(i, _)| i) != Some(index) {
            return Err(format!(
                "a perturbation after `{name}` is traced to another phase"
            ));
        }
    }
    Ok(())
}
