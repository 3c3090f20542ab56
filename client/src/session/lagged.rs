//! A rollback peer with no network: each remote player's input for a tick arrives a scripted
//! number of ticks late, and the run issues the GGRS requests a P2P session would — predict a
//! missing input as the last one received, and when the real one arrives and differs, load
//! the first mispredicted tick and re-simulate — into a [`Driver`].
//!
//! Over a real link the rollbacks a test sees depend on timing: one run mispredicts a shot and
//! takes it back, the next does not. A [`LaggedRun`] mispredicts exactly where its script says,
//! every time, so whatever sits on the prediction journal (sounds, effects, hit markers) can be
//! tested for retractions and corrections deterministically. A sync test
//! ([`crate::session::synctest`]) rolls back with the same inputs and so never mispredicts.

use crate::error::Error;
use crate::session::driver::{Driver, HISTORY_TICKS};
use crate::session::GgrsConfig;
use game_api::{Game, Tick};
use ggrs::{GameStateCell, GgrsRequest, InputStatus};
use std::collections::{BTreeMap, VecDeque};

/// The most ticks a remote input may arrive late: a rollback then stays well inside the
/// driver's history ([`HISTORY_TICKS`]), as GGRS's prediction window keeps it.
pub const MAX_LAG: u32 = (HISTORY_TICKS / 2) as u32;

/// One tick of the script: every player's true input and when each arrives.
#[derive(Debug, Clone)]
struct Sent<I> {
    inputs: Vec<I>,
    /// The tick at whose frame each player's input is known (the local player's: its own).
    arrives: Vec<Tick>,
    /// The inputs the last simulation of this tick used (predictions included).
    used: Vec<I>,
}

/// A peer of a game `G` whose remote inputs arrive late by a script. Deterministic: the same
/// inputs and lags give the same requests, rollbacks, events and final ticks.
#[derive(Debug)]
pub struct LaggedRun<G: Game> {
    driver: Driver<G>,
    local: usize,
    /// Ticks from `base` on whose inputs are still needed (for predictions and rollbacks).
    sent: VecDeque<Sent<G::Input>>,
    base: Tick,
    /// Per player, the first tick whose input has not arrived (inputs arrive in order, as GGRS
    /// confirms them).
    confirmed: Vec<Tick>,
    cells: BTreeMap<Tick, GameStateCell<Tick>>,
    final_tick: Tick,
}

impl<G: Game> LaggedRun<G> {
    /// A run from `game`'s current tick, played from slot `local`.
    ///
    /// # Errors
    /// [`Error::LaggedScript`] if `local` is not a slot of `game`.
    pub fn new(game: G, local: usize) -> Result<LaggedRun<G>, Error> {
        let players = game.player_count();
        if local >= players {
            return Err(Error::LaggedScript(format!(
                "slot {local} is not a player of a {players}-player game"
            )));
        }
        let start = game.tick();
        let mut driver = Driver::new(game);
        driver.start_frames_here();
        let mut run = LaggedRun {
            driver,
            local,
            sent: VecDeque::new(),
            base: start,
            confirmed: vec![start; players],
            cells: BTreeMap::new(),
            final_tick: start,
        };
        // As a session does before its first advance: the start is saved, to be loaded by a
        // rollback to it; every advance then saves the tick it reaches.
        let mut requests = Vec::new();
        run.push_save(start, &mut requests);
        run.driver.handle(requests)?;
        Ok(run)
    }

    /// Plays the current tick: `inputs` are every player's true input for it (slot order),
    /// `lags` how many ticks later each remote player's input arrives (0: in time; the local
    /// player's is ignored). First serves whatever arrived by now — a rollback if a prediction
    /// was wrong — then advances one tick, predicting the inputs still missing.
    ///
    /// # Errors
    /// [`Error::LaggedScript`] if `inputs` or `lags` are not one per player, or a lag exceeds
    /// [`MAX_LAG`]; an error of the driver (the game refusing a step).
    pub fn advance(&mut self, inputs: &[G::Input], lags: &[u32]) -> Result<(), Error> {
        let players = self.confirmed.len();
        if inputs.len() != players || lags.len() != players {
            return Err(Error::LaggedScript(format!(
                "{} inputs and {} lags for {players} players",
                inputs.len(),
                lags.len()
            )));
        }
        if let Some(lag) = lags.iter().find(|&&l| l > MAX_LAG) {
            return Err(Error::LaggedScript(format!(
                "a lag of {lag} ticks (at most {MAX_LAG})"
            )));
        }
        let now = self.driver.world().tick();
        self.sent.push_back(Sent {
            inputs: inputs.to_vec(),
            arrives: (0..players)
                .map(|p| {
                    if p == self.local {
                        now
                    } else {
                        now.saturating_add(lags[p])
                    }
                })
                .collect(),
            used: inputs.to_vec(),
        });
        let mut requests = self.catch_up(now);
        self.push_advance(now, &mut requests);
        self.serve(requests)
    }

    /// Lets every input still on its way arrive, and re-simulates if a prediction was wrong:
    /// afterwards every tick played is final.
    ///
    /// # Errors
    /// An error of the driver.
    pub fn settle(&mut self) -> Result<(), Error> {
        let now = self.driver.world().tick();
        for sent in &mut self.sent {
            for arrives in &mut sent.arrives {
                *arrives = (*arrives).min(now);
            }
        }
        let requests = self.catch_up(now);
        self.serve(requests)
    }

    /// The driver: the world as predicted, the last update's events and the tick it
    /// re-simulated from, for the prediction journal.
    #[must_use]
    pub fn driver(&self) -> &Driver<G> {
        &self.driver
    }

    /// The first tick whose inputs are not all known: states up to it, and events before it,
    /// can no longer change.
    #[must_use]
    pub fn final_tick(&self) -> Tick {
        self.final_tick
    }

    /// Takes in the inputs that arrived by tick `now` and returns the requests that repair
    /// the prediction: a load of the first tick simulated with a wrong input and the
    /// re-simulation up to `now`, or just the save of `now`.
    fn catch_up(&mut self, now: Tick) -> Vec<GgrsRequest<GgrsConfig<G>>> {
        let mut wrong_from: Option<Tick> = None;
        for p in 0..self.confirmed.len() {
            while let Some(sent) = self.sent_at(self.confirmed[p]) {
                if sent.arrives[p] > now {
                    break;
                }
                let tick = self.confirmed[p];
                // Was the tick simulated with another input? (`now`'s own, not yet simulated,
                // holds its true inputs as used.)
                if sent.used[p] != sent.inputs[p] {
                    wrong_from = Some(wrong_from.map_or(tick, |w| w.min(tick)));
                }
                self.confirmed[p] += 1;
            }
        }
        // Nothing wrong: `now` was saved when the last advance reached it (or the run began).
        let mut requests = Vec::new();
        if let Some(from) = wrong_from {
            requests.push(GgrsRequest::LoadGameState {
                cell: self.cells.get(&from).cloned().unwrap_or_default(),
                frame: self.frame(from),
            });
            for tick in from..now {
                self.push_advance(tick, &mut requests);
            }
        }
        requests
    }

    /// An advance of `tick` with what is known of its inputs, then the save of the next.
    fn push_advance(&mut self, tick: Tick, requests: &mut Vec<GgrsRequest<GgrsConfig<G>>>) {
        let players = self.confirmed.len();
        let mut inputs = Vec::with_capacity(players);
        for p in 0..players {
            let known = tick < self.confirmed[p];
            let input = if known {
                self.sent_at(tick).map(|s| s.inputs[p])
            } else {
                // As GGRS predicts: the last input received, or none before the first.
                self.confirmed[p]
                    .checked_sub(1)
                    .and_then(|last| self.sent_at(last))
                    .map(|s| s.inputs[p])
            }
            .unwrap_or_default();
            let status = if known {
                InputStatus::Confirmed
            } else {
                InputStatus::Predicted
            };
            inputs.push((input, status));
        }
        let index = (tick - self.base) as usize;
        if let Some(sent) = self.sent.get_mut(index) {
            for (used, (input, _)) in sent.used.iter_mut().zip(&inputs) {
                *used = *input;
            }
        }
        requests.push(GgrsRequest::AdvanceFrame { inputs });
        self.push_save(tick + 1, requests);
    }

    fn push_save(&mut self, tick: Tick, requests: &mut Vec<GgrsRequest<GgrsConfig<G>>>) {
        let cell = self.cells.entry(tick).or_default().clone();
        requests.push(GgrsRequest::SaveGameState {
            cell,
            frame: self.frame(tick),
        });
    }

    /// Serves `requests`, seals what became final and forgets what no longer matters.
    fn serve(&mut self, requests: Vec<GgrsRequest<GgrsConfig<G>>>) -> Result<(), Error> {
        self.driver.handle(requests)?;
        let known = self.confirmed.iter().copied().min().unwrap_or(self.base);
        self.final_tick = known.min(self.driver.world().tick());
        self.driver.seal_final(self.final_tick)?;
        // The last arrived input is still the prediction for later ticks: keep its tick.
        let keep_from = self.final_tick.saturating_sub(1).max(self.base);
        while self.base < keep_from && !self.sent.is_empty() {
            self.sent.pop_front();
            self.base += 1;
        }
        self.cells = self.cells.split_off(&keep_from);
        Ok(())
    }

    fn sent_at(&self, tick: Tick) -> Option<&Sent<G::Input>> {
        tick.checked_sub(self.base)
            .and_then(|i| self.sent.get(i as usize))
    }

    fn frame(&self, tick: Tick) -> ggrs::Frame {
        i32::try_from(tick - self.driver.frame_base()).unwrap_or(i32::MAX)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use engine::{Rules, WireInput, World};
    use proptest::prelude::*;

    fn world() -> World {
        World::new(Rules::default(), 7, 2).expect("world")
    }

    fn moving(x: i8) -> WireInput {
        WireInput {
            move_x: x,
            ..WireInput::default()
        }
    }

    /// The inputs of tick `t`: the local player runs right, the remote one turns at tick 10.
    fn script(t: Tick) -> [WireInput; 2] {
        [moving(100), moving(if t < 10 { 60 } else { -60 })]
    }

    /// The same ticks played with every input in time, in a fresh world.
    fn plain(ticks: Tick, inputs: impl Fn(Tick) -> [WireInput; 2]) -> World {
        let mut w = world();
        for t in 0..ticks {
            let step: Vec<_> = inputs(t).iter().map(|i| i.at(t)).collect();
            w.step(&step).expect("step");
        }
        w
    }

    /// Inputs in time: nothing predicted, nothing rolled back, every tick final at once.
    #[test]
    fn inputs_in_time_are_never_rolled_back() {
        let mut run = LaggedRun::new(world(), 0).expect("run");
        for t in 0..30 {
            run.advance(&script(t), &[0, 0]).expect("advance");
            assert_eq!(run.final_tick(), t + 1);
            assert_eq!(run.driver().resimulated_from(), None);
        }
        assert_eq!(run.driver().counters().rollbacks, 0);
        assert_eq!(run.driver().world().state(), plain(30, script).state());
    }

    /// What the run keeps is bounded by the lag, not the match's length: the inputs and the
    /// saves of ticks that are final are forgotten, but the last arrived input (the prediction).
    #[test]
    fn a_long_run_keeps_only_the_ticks_still_open() {
        let mut run = LaggedRun::new(world(), 0).expect("run");
        for t in 0..300 {
            run.advance(&script(t), &[0, t % 6]).expect("advance");
            let open = (run.driver().world().tick() - run.final_tick()) as usize;
            assert!(
                run.sent.len() <= open + 1,
                "tick {t}: {} kept",
                run.sent.len()
            );
            assert!(
                run.cells.len() <= open + 2,
                "tick {t}: {} cells",
                run.cells.len()
            );
        }
        assert_eq!(run.base + 1, run.final_tick().max(1));
    }

    /// A change of input that arrives three ticks late is predicted wrong for three ticks,
    /// then rolled back to where it happened: once, three deep, and the state is the true one.
    /// (Late inputs the prediction got right, ticks 8 and 9, cost nothing.)
    #[test]
    fn a_late_change_rolls_back_to_its_tick() {
        let mut run = LaggedRun::new(world(), 0).expect("run");
        for t in 0..20 {
            let lag = if t < 8 { 0 } else { 3 };
            run.advance(&script(t), &[0, lag]).expect("advance");
            let expected = if t == 13 { Some(10) } else { None };
            assert_eq!(run.driver().resimulated_from(), expected, "frame {t}");
            let known = if t < 8 { t + 1 } else { (t - 2).max(8) };
            assert_eq!(run.final_tick(), known, "frame {t}");
        }
        assert_eq!(run.driver().counters().rollbacks, 1);
        assert_eq!(run.driver().counters().max_depth, 3);
        run.settle().expect("settle");
        assert_eq!(run.final_tick(), 20);
        assert_eq!(run.driver().world().state(), plain(20, script).state());
    }

    /// A late input the prediction got right costs nothing; the first remote input is
    /// predicted as none.
    #[test]
    fn a_late_input_predicted_right_is_not_rolled_back() {
        let steady = |_| [moving(100), moving(60)];
        let mut run = LaggedRun::new(world(), 1).expect("run");
        run.advance(&steady(0), &[2, 0]).expect("advance");
        assert_eq!(
            run.driver().inputs_at(0).expect("kept"),
            &[WireInput::default(), moving(60)],
            "player 0's first input predicted as none"
        );
        for t in 1..12 {
            run.advance(&steady(t), &[2, 0]).expect("advance");
        }
        assert_eq!(
            run.driver().counters().rollbacks,
            1,
            "only the first input was predicted wrong"
        );
        run.settle().expect("settle");
        assert_eq!(run.driver().world().state(), plain(12, steady).state());
    }

    /// Inputs are confirmed in order: one held up holds up the final tick behind it, though
    /// later ones already arrived.
    #[test]
    fn a_held_up_input_holds_up_the_final_tick() {
        let mut run = LaggedRun::new(world(), 0).expect("run");
        for t in 0..5 {
            run.advance(&script(t), &[0, 0]).expect("advance");
        }
        run.advance(&script(5), &[0, 4]).expect("advance");
        for t in 6..9 {
            run.advance(&script(t), &[0, 0]).expect("advance");
            assert_eq!(run.final_tick(), 5, "frame {t}");
        }
        run.advance(&script(9), &[0, 0]).expect("advance");
        assert_eq!(run.final_tick(), 10);
    }

    /// A script that does not fit the game is refused, and nothing is played.
    #[test]
    fn a_script_that_does_not_fit_is_refused() {
        assert!(LaggedRun::new(world(), 2).is_err(), "no slot 2 in a duel");
        let mut run = LaggedRun::new(world(), 0).expect("run");
        let two = script(0);
        for (inputs, lags) in [
            (&two[..1], &[0, 0][..]),
            (&two[..], &[0][..]),
            (&two[..], &[0, MAX_LAG + 1][..]),
        ] {
            let refused = run.advance(inputs, lags).expect_err("refused");
            assert!(matches!(refused, Error::LaggedScript(_)), "{refused}");
        }
        assert_eq!(run.driver().world().tick(), 0);
        run.advance(&two, &[0, MAX_LAG]).expect("the longest lag");
    }

    /// A run started mid-match counts its frames from there.
    #[test]
    fn a_run_starts_at_the_games_tick() {
        let mut run = LaggedRun::new(plain(40, script), 0).expect("run");
        for t in 40..50 {
            run.advance(&script(t), &[0, 2]).expect("advance");
        }
        run.settle().expect("settle");
        assert_eq!(run.final_tick(), 50);
        assert_eq!(run.driver().world().state(), plain(50, script).state());
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(32))]
        /// Whatever the lags, once everything arrived the state is the one every input in time
        /// gives, the final tick never goes back, and no event before it is ever re-simulated.
        #[test]
        fn any_lags_end_in_the_true_state(
            moves in proptest::collection::vec((any::<i8>(), any::<i8>(), 0u32..=MAX_LAG), 1..80),
        ) {
            let inputs = |t: Tick| {
                let (a, b, _) = moves[t as usize];
                [moving(a), moving(b)]
            };
            let mut run = LaggedRun::new(world(), 0).expect("run");
            let mut last_final = 0;
            for (t, &(_, _, lag)) in moves.iter().enumerate() {
                let t = t as Tick;
                run.advance(&inputs(t), &[0, lag]).expect("advance");
                prop_assert!(run.final_tick() >= last_final);
                prop_assert!(run.final_tick() <= t + 1);
                if let Some(from) = run.driver().resimulated_from() {
                    prop_assert!(from >= last_final, "re-simulated final tick {from}");
                }
                last_final = run.final_tick();
            }
            run.settle().expect("settle");
            let ticks = moves.len() as Tick;
            prop_assert_eq!(run.final_tick(), ticks);
            let truth = plain(ticks, inputs);
            prop_assert_eq!(run.driver().world().state(), truth.state());
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(16))]
        /// The run knows only the game trait: a three-racer ring race played from the middle
        /// slot, two remote racers late by their own scripts, ends in the true state too.
        #[test]
        fn another_game_with_two_late_players_ends_in_the_true_state(
            moves in proptest::collection::vec(
                (any::<[i8; 3]>(), any::<[u8; 3]>(), 0u32..=MAX_LAG, 0u32..=MAX_LAG),
                1..60,
            ),
        ) {
            use ring_race::{RingInput, RingRace, RingRules};
            let inputs = |t: usize| -> Vec<RingInput> {
                let (thrust, buttons, _, _) = moves[t];
                (0..3).map(|p| RingInput { thrust: thrust[p], buttons: buttons[p] }).collect()
            };
            let race = RingRace::new(RingRules::default(), 3, 3).expect("race");
            let mut truth = race.clone();
            let mut run = LaggedRun::new(race, 1).expect("run");
            for (t, &(_, _, lag0, lag2)) in moves.iter().enumerate() {
                run.advance(&inputs(t), &[lag0, 0, lag2]).expect("advance");
                truth.step(&inputs(t)).expect("step");
            }
            run.settle().expect("settle");
            prop_assert_eq!(run.final_tick(), moves.len() as Tick);
            prop_assert_eq!(run.driver().world().snapshot(), truth.snapshot());
        }
    }
}
