//! One tick of a race, as a fixed list of named phases. Racers are visited in slot order,
//! pairs in `(i, j)`, `i < j` order: the order is part of the rules.

use crate::{buttons, Fx, RingError, RingInput, RingRace, MAX_RACERS};
use game_api::{StepObserver, Tick};
use serde::{Deserialize, Serialize};

/// The phases of a step.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum RingPhase {
    /// One input per racer, sanitized.
    Validate,
    /// Dash cooldowns count down; thrust and dashes change speeds; drag; the speed limit.
    Thrust,
    /// Every racer moves by its speed, wrapping around the ring.
    Motion,
    /// Racers that touch while closing in exchange speeds.
    Bumps,
    /// The first racer (in slot order) at the coin takes it; the next coin is placed; a racer
    /// with enough coins wins.
    Coins,
    /// The tick counter advances.
    Clock,
}

/// The step order.
pub const PHASES: [RingPhase; 6] = [
    RingPhase::Validate,
    RingPhase::Thrust,
    RingPhase::Motion,
    RingPhase::Bumps,
    RingPhase::Coins,
    RingPhase::Clock,
];

impl RingPhase {
    /// The phase's name as tools print it.
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            RingPhase::Validate => "validate",
            RingPhase::Thrust => "thrust",
            RingPhase::Motion => "motion",
            RingPhase::Bumps => "bumps",
            RingPhase::Coins => "coins",
            RingPhase::Clock => "clock",
        }
    }
}

/// Something that happened in a step.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum RingEvent {
    /// A racer dashed.
    Dash {
        /// The tick.
        tick: Tick,
        /// The racer.
        racer: u8,
    },
    /// Two racers bumped.
    Bump {
        /// The tick.
        tick: Tick,
        /// The lower slot.
        a: u8,
        /// The higher slot.
        b: u8,
    },
    /// A racer took a coin.
    CoinTaken {
        /// The tick.
        tick: Tick,
        /// The racer.
        racer: u8,
        /// The coin's serial.
        coin: u32,
    },
    /// A racer won.
    Won {
        /// The tick.
        tick: Tick,
        /// The racer.
        racer: u8,
    },
}

/// An event's stable identity: tick, kind, subjects.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct RingEventKey {
    /// The tick.
    pub tick: Tick,
    /// The kind, as a small stable code.
    pub kind: u8,
    /// Main subject.
    pub a: u32,
    /// Second subject.
    pub b: u32,
}

impl RingEvent {
    /// This event's stable key.
    #[must_use]
    pub fn key(&self) -> RingEventKey {
        let (tick, kind, a, b) = match *self {
            RingEvent::Dash { tick, racer } => (tick, 1, racer.into(), 0),
            RingEvent::Bump { tick, a, b } => (tick, 2, a.into(), b.into()),
            RingEvent::CoinTaken { tick, racer, coin } => (tick, 3, racer.into(), coin),
            RingEvent::Won { tick, racer } => (tick, 4, racer.into(), 0),
        };
        RingEventKey { tick, kind, a, b }
    }
}

/// The next draw of a SplitMix64 generator whose whole state is `state`.
pub(crate) fn next_random(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

impl RingRace {
    /// The one phase loop: [`PHASES`] in order, `observer` called after each.
    pub(crate) fn run_phases<O: StepObserver<RingRace>>(
        &mut self,
        inputs: &[RingInput],
        observer: &mut O,
    ) -> Result<(), RingError> {
        for (index, phase) in PHASES.into_iter().enumerate() {
            match phase {
                RingPhase::Validate => self.validate(inputs)?,
                RingPhase::Thrust => self.thrust(),
                RingPhase::Motion => self.motion(),
                RingPhase::Bumps => self.bumps(),
                RingPhase::Coins => self.coins(),
                RingPhase::Clock => self.state.tick += 1,
            }
            observer.after_phase(index, self);
        }
        Ok(())
    }

    fn validate(&mut self, inputs: &[RingInput]) -> Result<(), RingError> {
        let tick = self.state.tick;
        if tick == Tick::MAX {
            return Err(RingError::TickLimit(tick));
        }
        let expected = self.state.racers.len();
        if inputs.len() != expected {
            return Err(RingError::WrongInputCount {
                tick,
                expected,
                got: inputs.len(),
            });
        }
        for (slot, input) in self.inputs.iter_mut().zip(inputs) {
            *slot = input.sanitized();
        }
        self.events.clear();
        Ok(())
    }

    fn thrust(&mut self) {
        if self.state.winner.is_some() {
            return;
        }
        let rules = &self.rules;
        let max = Fx::from_num(rules.max_speed);
        let per_thrust = Fx::from_num(rules.accel) / Fx::from_num(256 * 127);
        for (slot, racer) in self.state.racers.iter_mut().enumerate() {
            let input = self.inputs[slot];
            racer.dash_cooldown = racer.dash_cooldown.saturating_sub(1);
            racer.speed += per_thrust * Fx::from_num(input.thrust);
            if input.buttons & buttons::DASH != 0 && racer.dash_cooldown == 0 {
                let direction = match (input.thrust.signum(), racer.speed < Fx::ZERO) {
                    (0, true) | (-1, _) => -Fx::ONE,
                    _ => Fx::ONE,
                };
                racer.speed += direction * Fx::from_num(rules.dash_boost);
                racer.dash_cooldown = rules.dash_cooldown;
                self.events.push(RingEvent::Dash {
                    tick: self.state.tick,
                    racer: slot as u8,
                });
            }
            racer.speed -= racer.speed * Fx::from_num(rules.drag) / Fx::from_num(256);
            racer.speed = racer.speed.clamp(-max, max);
        }
    }

    fn motion(&mut self) {
        let length = self.rules.length();
        for racer in &mut self.state.racers {
            // |speed| <= max_speed <= 64 <= track_length: one wrap at most.
            let mut pos = racer.pos + racer.speed;
            if pos >= length {
                pos -= length;
            } else if pos < Fx::ZERO {
                pos += length;
            }
            racer.pos = pos;
        }
    }

    /// From `a` to `b` the short way round: positive when `b` is ahead.
    fn offset(&self, a: Fx, b: Fx) -> Fx {
        let length = self.rules.length();
        let mut d = b - a;
        if d > length / 2 {
            d -= length;
        } else if d <= -(length / 2) {
            d += length;
        }
        d
    }

    fn bumps(&mut self) {
        let size = Fx::from_num(self.rules.racer_size);
        let n = self.state.racers.len();
        for i in 0..n {
            for j in i + 1..n {
                let (a, b) = (self.state.racers[i], self.state.racers[j]);
                let off = self.offset(a.pos, b.pos);
                let closing = (off >= Fx::ZERO && a.speed > b.speed)
                    || (off <= Fx::ZERO && b.speed > a.speed);
                if off.abs() < size && closing {
                    self.state.racers[i].speed = b.speed;
                    self.state.racers[j].speed = a.speed;
                    self.events.push(RingEvent::Bump {
                        tick: self.state.tick,
                        a: i as u8,
                        b: j as u8,
                    });
                }
            }
        }
    }

    fn coins(&mut self) {
        if self.state.winner.is_some() {
            return;
        }
        let radius = Fx::from_num(self.rules.pickup_radius);
        let coin = Fx::from_num(self.state.coin.pos);
        let taker = (0..self.state.racers.len())
            .find(|&i| self.offset(self.state.racers[i].pos, coin).abs() <= radius);
        let Some(slot) = taker else { return };
        let tick = self.state.tick;
        let racer = &mut self.state.racers[slot];
        racer.score = racer.score.saturating_add(1);
        let won = racer.score >= self.rules.coins_to_win;
        self.events.push(RingEvent::CoinTaken {
            tick,
            racer: slot as u8,
            coin: self.state.coin.serial,
        });
        self.place_coin();
        if won {
            // The race stands still from here: no thrust (see `thrust`), no speed left.
            for racer in &mut self.state.racers {
                racer.speed = Fx::ZERO;
            }
            self.state.winner = Some(slot as u8);
            self.events.push(RingEvent::Won {
                tick,
                racer: slot as u8,
            });
        }
    }

    pub(crate) fn place_coin(&mut self) {
        let draw = next_random(&mut self.state.rng);
        self.state.coin.pos = (draw % u64::from(self.rules.track_length)) as u16;
        self.state.coin.serial = self.state.coin.serial.wrapping_add(1);
    }

    /// Racers in their starting places: evenly spaced, still.
    pub(crate) fn starting_racers(&self, count: usize) -> [crate::Racer; MAX_RACERS] {
        let mut racers = [crate::Racer::default(); MAX_RACERS];
        let length = u32::from(self.rules.track_length);
        for (slot, racer) in racers.iter_mut().enumerate().take(count) {
            racer.pos = Fx::from_num(length * slot as u32 / count as u32);
        }
        racers
    }
}
