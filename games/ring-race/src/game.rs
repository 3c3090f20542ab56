//! The ring race as a [`game_api::Game`].

use crate::state::MAX_SNAPSHOT_BYTES;
use crate::{
    Fx, RingError, RingEvent, RingEventKey, RingHash, RingInput, RingPhase, RingRace, RingRules,
    RingSnapshot, MAX_RACERS, PHASES, SNAPSHOT_FORMAT,
};
use game_api::{Game, StepObserver, Tick};

impl Game for RingRace {
    const NAME: &'static str = "ring-race";
    const VERSION: &'static str = env!("CARGO_PKG_VERSION");
    const SNAPSHOT_FORMAT: u32 = SNAPSHOT_FORMAT;
    const MAX_SNAPSHOT_BYTES: u64 = MAX_SNAPSHOT_BYTES;
    const MAX_PLAYERS: usize = MAX_RACERS;
    const PHASES: &'static [RingPhase] = &PHASES;

    type Input = RingInput;
    type Rules = RingRules;
    type Snapshot = RingSnapshot;
    type Event = RingEvent;
    type Audit = RingEvent;
    type EventKey = RingEventKey;
    type Hash = RingHash;
    type Phase = RingPhase;
    type Error = RingError;

    fn new(rules: RingRules, seed: u64, players: usize) -> Result<RingRace, RingError> {
        rules.validate()?;
        if !(2..=MAX_RACERS).contains(&players) {
            return Err(RingError::RacerCount(players));
        }
        let rules_hash = rules.hash();
        let mut race = RingRace {
            rules,
            rules_hash,
            state: RingSnapshot {
                tick: 0,
                rules_hash,
                seed,
                rng: seed,
                racers: Vec::with_capacity(MAX_RACERS),
                coin: crate::Coin::default(),
                winner: None,
            },
            events: Vec::with_capacity(8),
            inputs: [RingInput::default(); MAX_RACERS],
        };
        let racers = race.starting_racers(players);
        race.state.racers.extend_from_slice(&racers[..players]);
        race.place_coin();
        race.state.coin.serial = 0;
        Ok(race)
    }

    fn from_snapshot(rules: RingRules, snapshot: &RingSnapshot) -> Result<RingRace, RingError> {
        let mut race = RingRace::new(rules, snapshot.seed, snapshot.racers.len().clamp(2, 4))?;
        race.restore(snapshot)?;
        Ok(race)
    }

    fn restore(&mut self, snapshot: &RingSnapshot) -> Result<(), RingError> {
        if snapshot.rules_hash != self.rules_hash {
            return Err(RingError::RulesMismatch {
                found: snapshot.rules_hash,
                expected: self.rules_hash,
            });
        }
        snapshot.check_against(&self.rules)?;
        self.state.clone_from(snapshot);
        self.events.clear();
        Ok(())
    }

    fn save_into(&self, out: &mut RingSnapshot) {
        out.clone_from(&self.state);
    }

    fn snapshot(&self) -> RingSnapshot {
        self.state.clone()
    }

    fn tick(&self) -> Tick {
        self.state.tick
    }

    fn seed(&self) -> u64 {
        self.state.seed
    }

    fn player_count(&self) -> usize {
        self.state.racers.len()
    }

    fn rules(&self) -> &RingRules {
        &self.rules
    }

    fn state_hash(&self) -> RingHash {
        self.state.hash()
    }

    fn step_observed<O: StepObserver<RingRace>>(
        &mut self,
        inputs: &[RingInput],
        observer: &mut O,
    ) -> Result<&[RingEvent], RingError> {
        self.run_phases(inputs, observer)?;
        Ok(&self.events)
    }

    fn last_events(&self) -> &[RingEvent] {
        &self.events
    }

    fn debug_perturb(&mut self) {
        // One bit of the second racer's position (kept on the track).
        if let Some(r) = self.state.racers.get_mut(1) {
            let nudged = r.pos + Fx::DELTA;
            r.pos = if nudged < self.rules.length() {
                nudged
            } else {
                Fx::ZERO
            };
        }
    }

    fn phase_name(phase: RingPhase) -> &'static str {
        phase.name()
    }

    fn event_key(event: &RingEvent) -> RingEventKey {
        event.key()
    }

    fn event_tick(event: &RingEvent) -> Tick {
        event.key().tick
    }

    /// The coins taken and the win: the score is what a replay must reproduce exactly.
    fn audit(events: &[RingEvent], out: &mut Vec<RingEvent>) {
        out.extend(
            (events.iter())
                .filter(|e| matches!(e, RingEvent::CoinTaken { .. } | RingEvent::Won { .. })),
        );
    }

    fn rules_to_bytes(rules: &RingRules) -> Vec<u8> {
        rules.canonical_bytes()
    }

    fn rules_from_bytes(bytes: &[u8]) -> Option<RingRules> {
        RingRules::from_canonical_bytes(bytes)
    }

    fn rules_hash(rules: &RingRules) -> u64 {
        rules.hash()
    }

    fn rules_differences(
        ours: &RingRules,
        theirs: &RingRules,
    ) -> Vec<(&'static str, String, String)> {
        ours.differences(theirs)
    }

    fn snapshot_tick(snapshot: &RingSnapshot) -> Tick {
        snapshot.tick
    }

    fn snapshot_hash(snapshot: &RingSnapshot) -> RingHash {
        snapshot.hash()
    }

    fn snapshot_to_bytes(snapshot: &RingSnapshot) -> Vec<u8> {
        snapshot.to_bytes()
    }

    fn snapshot_from_bytes(bytes: &[u8]) -> Result<RingSnapshot, RingError> {
        RingSnapshot::from_bytes(bytes)
    }
}
