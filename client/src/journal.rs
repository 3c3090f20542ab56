//! The prediction journal: keeps what the player was shown consistent with a history that
//! rollback keeps rewriting.
//!
//! A predicted frame produces events (a shot, a hit, a broken block) that are presented at once
//! — sound, sparks, a damage number. When the real inputs arrive and the session re-simulates,
//! the same frames may produce the same events, slightly different ones (the hit did 8, not
//! 18), none (the shot never happened), or new ones. The journal remembers every presented
//! event by its stable identity ([`Game::EventKey`], [`Game::event_key`]) until its tick is final, and after each
//! re-simulation says what to do:
//!
//! - [`JournalAction::Play`]: an event not presented before;
//! - [`JournalAction::Correct`]: the same happening with other details (replace it);
//! - [`JournalAction::Retract`]: a presented event the new history does not contain (undo it;
//!   retractions come newest first, the reverse of the order they were played);
//!
//! and drops entries once their tick is confirmed. Re-simulating a frame that comes out the
//! same changes nothing: presenting is idempotent per key.

use game_api::{Game, Tick};

/// What presentation should do.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum JournalAction<E> {
    /// Present this event.
    Play(E),
    /// A presented event came out differently: replace `old` with `new`.
    Correct {
        /// What was presented.
        old: E,
        /// What actually happened.
        new: E,
    },
    /// A presented event did not happen after all: undo it.
    Retract(E),
}

/// Presented events of a game `G` not yet final, in tick order.
#[derive(Debug, Clone)]
pub struct PredictionJournal<G: Game> {
    entries: Vec<G::Event>,
    /// Counters: events confirmed unchanged, corrected, retracted.
    confirmed: u64,
    corrected: u64,
    retracted: u64,
}

impl<E: PartialEq> JournalAction<E> {
    /// Applies this action to `shown`, a list of the events presented (a kill feed, a hit
    /// log): a play appends, a correction replaces the old version where it stands, a
    /// retraction removes it. Whether the action could be applied: a correction or retraction
    /// of an event `shown` does not hold changes nothing and is `false`.
    pub fn apply(self, shown: &mut Vec<E>) -> bool {
        match self {
            JournalAction::Play(e) => shown.push(e),
            JournalAction::Correct { old, new } => match shown.iter().position(|p| *p == old) {
                Some(at) => shown[at] = new,
                None => return false,
            },
            JournalAction::Retract(e) => match shown.iter().position(|p| *p == e) {
                Some(at) => drop(shown.remove(at)),
                None => return false,
            },
        }
        true
    }
}

impl<G: Game> Default for PredictionJournal<G> {
    fn default() -> PredictionJournal<G> {
        PredictionJournal {
            entries: Vec::new(),
            confirmed: 0,
            corrected: 0,
            retracted: 0,
        }
    }
}

impl<G: Game> PredictionJournal<G> {
    /// An empty journal.
    #[must_use]
    pub fn new() -> PredictionJournal<G> {
        PredictionJournal::default()
    }

    /// Reconciles one session update. `events` are the events of every frame simulated by the
    /// update, in order; `resimulated_from` is the first tick re-simulated if the update rolled
    /// back (every tick from it on was simulated again, so `events` is the whole truth for
    /// them); entries before `final_tick` can no longer change and are dropped as confirmed.
    pub fn reconcile(
        &mut self,
        events: &[G::Event],
        resimulated_from: Option<Tick>,
        final_tick: Tick,
    ) -> Vec<JournalAction<G::Event>> {
        let mut actions = Vec::new();
        // Entries the update re-simulated are on trial; the rest stay as they are.
        let mut on_trial = match resimulated_from {
            Some(from) => {
                let split = self.entries.partition_point(|e| G::event_tick(e) < from);
                self.entries.split_off(split)
            }
            None => Vec::new(),
        };
        let mut kept = Vec::with_capacity(events.len());
        for event in events {
            let key = G::event_key(event);
            match on_trial.iter().position(|old| G::event_key(old) == key) {
                Some(i) => {
                    let old = on_trial.remove(i);
                    if old != *event {
                        self.corrected += 1;
                        actions.push(JournalAction::Correct {
                            old,
                            new: event.clone(),
                        });
                    }
                }
                // Already shown.
                None if self.entries.iter().any(|e| G::event_key(e) == key) => continue,
                None => actions.push(JournalAction::Play(event.clone())),
            }
            kept.push(event.clone());
        }
        // Whatever is left on trial did not happen in the new history: undo, newest first.
        for old in on_trial.into_iter().rev() {
            self.retracted += 1;
            actions.push(JournalAction::Retract(old));
        }
        self.entries.extend(kept);
        self.entries.sort_by_key(|e| G::event_tick(e)); // stable: keeps same-tick order
        let final_count = self
            .entries
            .partition_point(|e| G::event_tick(e) < final_tick);
        self.confirmed += final_count as u64;
        self.entries.drain(..final_count);
        actions
    }

    /// Events presented and not yet final.
    #[must_use]
    pub fn pending(&self) -> &[G::Event] {
        &self.entries
    }

    /// `(confirmed unchanged, corrected, retracted)` since the start.
    #[must_use]
    pub fn counts(&self) -> (u64, u64, u64) {
        (self.confirmed, self.corrected, self.retracted)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use engine::{Event, EventKind, HitSource, World};

    fn shot(tick: Tick, player: u8, projectile: u32) -> Event {
        Event {
            tick,
            kind: EventKind::ShotFired { player, projectile },
        }
    }

    fn hit(tick: Tick, damage: u16) -> Event {
        Event {
            tick,
            kind: EventKind::Hit {
                attacker: 0,
                attacker_generation: 1,
                victim: 1,
                damage,
                source: HitSource::Projectile(7),
            },
        }
    }

    #[test]
    fn new_frames_play_and_identical_resimulation_changes_nothing() {
        let mut j = PredictionJournal::<World>::new();
        let a = j.reconcile(&[shot(10, 0, 1)], None, 0);
        assert_eq!(a, vec![JournalAction::Play(shot(10, 0, 1))]);
        let b = j.reconcile(&[shot(10, 0, 1), hit(11, 8)], Some(10), 0);
        assert_eq!(
            b,
            vec![JournalAction::Play(hit(11, 8))],
            "the shot is not played twice"
        );
    }

    #[test]
    fn a_changed_detail_is_corrected_and_a_vanished_event_retracted() {
        let mut j = PredictionJournal::<World>::new();
        j.reconcile(&[shot(10, 0, 1), hit(12, 18), shot(13, 1, 2)], None, 0);
        // The real inputs: the hit did 8, and player 1 never fired at 13.
        let actions = j.reconcile(&[shot(10, 0, 1), hit(12, 8)], Some(11), 0);
        assert_eq!(
            actions,
            vec![
                JournalAction::Correct {
                    old: hit(12, 18),
                    new: hit(12, 8)
                },
                JournalAction::Retract(shot(13, 1, 2)),
            ]
        );
        assert_eq!(j.counts(), (0, 1, 1));
        assert_eq!(j.pending(), &[shot(10, 0, 1), hit(12, 8)]);
    }

    #[test]
    fn retractions_come_newest_first_and_final_ticks_leave_the_journal() {
        let mut j = PredictionJournal::<World>::new();
        j.reconcile(&[shot(5, 0, 1), shot(6, 0, 2), shot(7, 0, 3)], None, 0);
        let actions = j.reconcile(&[], Some(5), 0);
        assert_eq!(
            actions,
            vec![
                JournalAction::Retract(shot(7, 0, 3)),
                JournalAction::Retract(shot(6, 0, 2)),
                JournalAction::Retract(shot(5, 0, 1)),
            ]
        );
        j.reconcile(&[shot(8, 0, 4), shot(9, 0, 5)], None, 9);
        assert_eq!(j.pending(), &[shot(9, 0, 5)]);
        assert_eq!(j.counts().0, 1);
    }

    #[test]
    fn a_rollback_only_puts_the_resimulated_ticks_on_trial() {
        let mut j = PredictionJournal::<World>::new();
        j.reconcile(&[shot(3, 0, 1), shot(8, 0, 2)], None, 0);
        // Rolled back to 6: tick 3 is untouched even though the update does not repeat it.
        let actions = j.reconcile(&[shot(8, 0, 2)], Some(6), 0);
        assert!(actions.is_empty());
        assert_eq!(j.pending().len(), 2);
    }

    /// An event at exactly the first re-simulated tick is on trial; one tick earlier is not.
    #[test]
    fn the_first_resimulated_tick_is_on_trial_and_the_one_before_is_not() {
        let mut j = PredictionJournal::<World>::new();
        j.reconcile(&[shot(5, 0, 1), shot(6, 0, 2)], None, 0);
        let actions = j.reconcile(&[], Some(6), 0);
        assert_eq!(actions, vec![JournalAction::Retract(shot(6, 0, 2))]);
        assert_eq!(j.pending(), &[shot(5, 0, 1)]);
        assert_eq!(j.counts(), (0, 0, 1));
    }

    /// An update without a rollback that repeats a presented event does not play it again.
    #[test]
    fn an_event_already_presented_outside_the_rollback_is_not_played_again() {
        let mut j = PredictionJournal::<World>::new();
        j.reconcile(&[shot(3, 0, 1)], None, 0);
        assert!(j.reconcile(&[shot(3, 0, 1)], None, 0).is_empty());
        assert!(j.reconcile(&[shot(3, 0, 1)], Some(5), 0).is_empty());
        assert_eq!(j.pending(), &[shot(3, 0, 1)]);
    }

    /// Entries before the final tick are confirmed and counted; the final tick itself stays.
    #[test]
    fn ticks_before_the_final_tick_are_confirmed_and_counted() {
        let mut j = PredictionJournal::<World>::new();
        j.reconcile(&[shot(1, 0, 1), shot(2, 0, 2), shot(3, 0, 3)], None, 3);
        assert_eq!(j.pending(), &[shot(3, 0, 3)]);
        assert_eq!(j.counts(), (2, 0, 0));
        j.reconcile(&[], None, 4);
        assert_eq!((j.pending().len(), j.counts()), (0, (3, 0, 0)));
    }

    /// Contract: the journal knows events only through the game (`event_key`, `event_tick`):
    /// the ring race's are played, retracted and confirmed like the duel's.
    #[test]
    fn another_games_events_are_played_retracted_and_confirmed_by_their_keys_and_ticks() {
        use ring_race::{RingEvent, RingRace};
        let dash = |tick, racer| RingEvent::Dash { tick, racer };
        let bump = RingEvent::Bump {
            tick: 7,
            a: 0,
            b: 1,
        };
        let mut j = PredictionJournal::<RingRace>::new();
        let played = j.reconcile(&[dash(5, 0), dash(6, 1)], None, 0);
        assert_eq!(
            played,
            vec![
                JournalAction::Play(dash(5, 0)),
                JournalAction::Play(dash(6, 1))
            ]
        );
        // Rolled back to 6: racer 1 never dashed, the racers bumped at 7 instead.
        let actions = j.reconcile(&[bump], Some(6), 0);
        assert_eq!(
            actions,
            vec![
                JournalAction::Play(bump),
                JournalAction::Retract(dash(6, 1))
            ]
        );
        assert_eq!(j.pending(), &[dash(5, 0), bump]);
        j.reconcile(&[], None, 7);
        assert_eq!((j.pending(), j.counts()), (&[bump][..], (1, 0, 1)));
    }

    /// Through a scripted lag (the second bot's inputs 0 to 8 ticks late, the same
    /// mispredictions every run), the events presented — plays, minus retractions, with
    /// corrections applied — are exactly the events of the true history, and getting there
    /// took retractions.
    #[test]
    fn presented_events_equal_the_true_history_through_scripted_rollbacks() {
        use crate::session::lagged::LaggedRun;
        use engine::{Bot, Rules, WireInput};
        let mut truth = World::new(Rules::default(), 5, 2).expect("world");
        let mut run = LaggedRun::new(truth.clone(), 0).expect("run");
        let mut bots = [Bot::new(0, 1), Bot::new(1, 2)];
        let mut journal = PredictionJournal::<World>::new();
        let (mut presented, mut happened) = (Vec::new(), Vec::new());
        let mut show = |run: &LaggedRun<World>, presented: &mut Vec<Event>| {
            let driver = run.driver();
            let final_tick = run.final_tick();
            for action in journal.reconcile(driver.events(), driver.resimulated_from(), final_tick)
            {
                assert!(
                    action.apply(presented),
                    "corrects or retracts a shown event"
                );
            }
        };
        for t in 0..1200 {
            let inputs: Vec<WireInput> =
                bots.iter_mut().map(|b| b.think(&truth).to_wire()).collect();
            let cmds: Vec<_> = inputs.iter().map(|i| i.at(t)).collect();
            happened.extend_from_slice(truth.step(&cmds).expect("step"));
            let lag = [0, 2, 5, 8, 3, 1][(t / 7 % 6) as usize];
            run.advance(&inputs, &[0, lag]).expect("advance");
            show(&run, &mut presented);
        }
        run.settle().expect("settle");
        show(&run, &mut presented);
        assert_eq!(run.driver().world().state(), truth.state());
        let (confirmed, corrected, retracted) = journal.counts();
        println!("confirmed {confirmed} corrected {corrected} retracted {retracted}");
        assert!(retracted > 0, "mispredictions took presented events back");
        let key = |e: &Event| e.key();
        presented.sort_by_key(key);
        happened.sort_by_key(key);
        assert!(happened.len() > 50, "the bots fought: {}", happened.len());
        assert_eq!(presented, happened);
    }

    /// Applied to a list of what was shown, actions keep it in step: a play appends, a
    /// correction replaces in place, a retraction removes; one about an event never shown
    /// changes nothing and says so.
    #[test]
    fn actions_apply_to_a_list_of_what_was_shown() {
        let mut shown = Vec::new();
        assert!(JournalAction::Play(shot(1, 0, 1)).apply(&mut shown));
        assert!(JournalAction::Play(hit(2, 10)).apply(&mut shown));
        assert!(JournalAction::Play(shot(3, 1, 2)).apply(&mut shown));
        let fix = JournalAction::Correct {
            old: hit(2, 10),
            new: hit(2, 4),
        };
        assert!(fix.apply(&mut shown));
        assert_eq!(shown, [shot(1, 0, 1), hit(2, 4), shot(3, 1, 2)]);
        assert!(JournalAction::Retract(shot(1, 0, 1)).apply(&mut shown));
        assert_eq!(shown, [hit(2, 4), shot(3, 1, 2)]);
        let before = shown.clone();
        assert!(!JournalAction::Retract(shot(9, 0, 9)).apply(&mut shown));
        assert!(!JournalAction::Correct {
            old: hit(2, 10),
            new: hit(2, 1)
        }
        .apply(&mut shown));
        assert_eq!(shown, before);
    }
}
