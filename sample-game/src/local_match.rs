//! `LocalMatch`: both players on this machine (keyboard, controllers, or the engine's bot), the
//! `World` stepped right here.

use crate::match_source::MatchSource;
use crate::net_view::NetView;
use anyhow::{ensure, Context as _};
use engine::{Bot, Event, InputCmd, PlayerId, Rules, World, WorldSnapshot};

/// Players in a local match.
const PLAYERS: usize = 2;

/// A local two-player match. Each slot is played by a human (inputs passed to
/// [`MatchSource::advance`]) or by an [`engine::Bot`].
#[derive(Debug)]
pub struct LocalMatch {
    world: World,
    /// The state before the last step, for interpolation. Saved into, never reallocated.
    previous: WorldSnapshot,
    seed: u64,
    humans: Vec<PlayerId>,
    bots: Vec<Bot>,
    inputs: Vec<InputCmd>,
}

impl LocalMatch {
    /// A match between two humans on `seed`'s maze.
    ///
    /// # Errors
    /// If the rules do not validate.
    pub fn new(rules: Rules, seed: u64) -> anyhow::Result<LocalMatch> {
        let world = World::new(rules, seed, PLAYERS).context("setting up the match")?;
        Ok(LocalMatch {
            previous: world.snapshot(),
            world,
            seed,
            humans: (0..PLAYERS as PlayerId).collect(),
            bots: Vec::new(),
            inputs: Vec::with_capacity(PLAYERS),
        })
    }

    /// Hands the given slots to bots (seeded from the match seed, so a bot match replays).
    #[must_use]
    pub fn with_bots(mut self, slots: &[PlayerId]) -> LocalMatch {
        self.humans.retain(|slot| !slots.contains(slot));
        self.bots = slots
            .iter()
            .filter(|&&slot| usize::from(slot) < PLAYERS)
            .map(|&slot| Bot::new(slot, bot_seed(self.seed, slot)))
            .collect();
        self
    }

    /// The live world.
    #[must_use]
    pub fn world(&self) -> &World {
        &self.world
    }

    /// The seed of the current match.
    #[must_use]
    pub fn seed(&self) -> u64 {
        self.seed
    }
}

/// A bot's seed: the match seed mixed with its slot.
fn bot_seed(match_seed: u64, slot: PlayerId) -> u64 {
    engine::splitmix64(match_seed ^ (u64::from(slot) + 1).wrapping_mul(0x9E37_79B9_7F4A_7C15))
}

impl MatchSource for LocalMatch {
    fn local_players(&self) -> &[PlayerId] {
        &self.humans
    }

    fn advance(&mut self, local: &[InputCmd]) -> anyhow::Result<Vec<Event>> {
        ensure!(
            local.len() == self.humans.len(),
            "expected {} local inputs, got {}",
            self.humans.len(),
            local.len()
        );
        let tick = self.world.tick();
        self.inputs.clear();
        for slot in 0..PLAYERS as PlayerId {
            let input = match self.bots.iter_mut().find(|b| b.player() == slot) {
                Some(bot) => bot.think(&self.world),
                None => {
                    let k = self.humans.iter().position(|&h| h == slot);
                    k.map_or(InputCmd::idle(tick), |k| local[k])
                }
            };
            self.inputs.push(InputCmd { tick, ..input });
        }
        self.world.save_into(&mut self.previous);
        let events = self.world.step(&self.inputs)?;
        Ok(events.to_vec())
    }

    fn current(&self) -> &WorldSnapshot {
        self.world.state()
    }

    fn previous(&self) -> &WorldSnapshot {
        &self.previous
    }

    fn rules(&self) -> &Rules {
        self.world.rules()
    }

    fn net_view(&self) -> NetView {
        NetView::local(self.world.tick(), self.world.state_hash())
    }

    fn can_pause(&self) -> bool {
        true
    }

    fn rematch(&mut self) -> anyhow::Result<bool> {
        let seed = self.seed.wrapping_add(1);
        let bot_slots: Vec<PlayerId> = self.bots.iter().map(Bot::player).collect();
        let rules = self.world.rules().clone();
        *self = LocalMatch::new(rules, seed)?.with_bots(&bot_slots);
        Ok(true)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn inputs_are_stamped_and_previous_trails_by_one_tick() {
        let mut m = LocalMatch::new(Rules::default(), 3).unwrap();
        let stale = InputCmd {
            tick: 999,
            ..InputCmd::idle(0)
        };
        for expected in 1..=5 {
            m.advance(&[stale, stale]).unwrap();
            assert_eq!(m.current().tick, expected);
            assert_eq!(m.previous().tick, expected - 1);
        }
    }

    #[test]
    fn the_wrong_number_of_inputs_is_an_error() {
        let mut m = LocalMatch::new(Rules::default(), 3)
            .unwrap()
            .with_bots(&[1]);
        assert_eq!(m.local_players(), &[0]);
        assert!(m.advance(&[InputCmd::idle(0); 2]).is_err());
        assert!(m.advance(&[InputCmd::idle(0)]).is_ok());
    }

    #[test]
    fn rematch_starts_the_next_seed_and_keeps_the_bots() {
        let mut m = LocalMatch::new(Rules::default(), 41)
            .unwrap()
            .with_bots(&[0, 1]);
        for _ in 0..10 {
            m.advance(&[]).unwrap();
        }
        assert!(m.rematch().unwrap());
        assert_eq!((m.seed(), m.current().tick), (42, 0));
        assert!(m.local_players().is_empty());
    }

    #[test]
    fn a_bot_match_is_reproducible() {
        let run = || {
            let mut m = LocalMatch::new(Rules::default(), 9)
                .unwrap()
                .with_bots(&[0, 1]);
            for _ in 0..600 {
                m.advance(&[]).unwrap();
            }
            m.world().state_hash()
        };
        assert_eq!(run(), run());
    }
}
