//! The maze duel as a [`game_api::Game`]: what the netcode layer sees of it.

use crate::error::Error;
use crate::event::{Event, EventKey, EventKind};
use crate::hash::{Section, StateHash};
use crate::input::WireInput;
use crate::player::MAX_PLAYERS;
use crate::rail::ShotRecord;
use crate::rules::Rules;
use crate::saved::{saved_from_bytes, SavedWorld};
use crate::snapshot::{MAX_SNAPSHOT_BYTES, SNAPSHOT_FORMAT_VERSION};
use crate::step::{Phase, STEP_PHASES};
use crate::world::World;
use crate::Tick;
use game_api::{Game, SectionHash, StepObserver};

impl SectionHash for StateHash {
    const SECTIONS: &'static [&'static str] =
        &["players", "projectiles", "maze", "history", "rest"];

    fn combined(&self) -> u64 {
        self.combined
    }

    fn section(&self, index: usize) -> u64 {
        Section::ALL
            .get(index)
            .map_or(0, |&s| StateHash::section(self, s))
    }

    fn from_sections(sections: &[u64]) -> Option<StateHash> {
        sections.try_into().ok().map(StateHash::from_sections)
    }
}

impl Game for World {
    const NAME: &'static str = "maze-duel";
    const VERSION: &'static str = crate::ENGINE_VERSION;
    const SNAPSHOT_FORMAT: u32 = SNAPSHOT_FORMAT_VERSION;
    const MAX_SNAPSHOT_BYTES: u64 = MAX_SNAPSHOT_BYTES;
    const MAX_PLAYERS: usize = MAX_PLAYERS;
    const PHASES: &'static [Phase] = &STEP_PHASES;

    type Input = WireInput;
    type Rules = Rules;
    type Snapshot = SavedWorld;
    type Event = Event;
    type Audit = ShotRecord;
    type EventKey = EventKey;
    type Hash = StateHash;
    type Phase = Phase;
    type Error = Error;

    fn new(rules: Rules, seed: u64, players: usize) -> Result<World, Error> {
        World::new(rules, seed, players)
    }

    fn from_snapshot(rules: Rules, snapshot: &SavedWorld) -> Result<World, Error> {
        World::from_snapshot(rules, &snapshot.to_snapshot())
    }

    /// Checked as any state from outside, through the [`WorldSnapshot`] the image holds
    /// (only the rollback's own load, [`Game::restore_saved`], skips the checks).
    ///
    /// [`WorldSnapshot`]: crate::WorldSnapshot
    fn restore(&mut self, snapshot: &SavedWorld) -> Result<(), Error> {
        World::restore_image_checked(self, snapshot)
    }

    fn restore_saved(&mut self, snapshot: &SavedWorld) -> Result<(), Error> {
        World::restore_image(self, snapshot)
    }

    fn save_into(&self, out: &mut SavedWorld) {
        World::save_image(self, out);
    }

    fn snapshot(&self) -> SavedWorld {
        World::image(self)
    }

    fn state_equals(&self, snapshot: &SavedWorld) -> bool {
        snapshot.holds(self.state())
    }

    fn tick(&self) -> Tick {
        World::tick(self)
    }

    fn seed(&self) -> u64 {
        self.state.match_seed
    }

    fn player_count(&self) -> usize {
        World::player_count(self)
    }

    fn rules(&self) -> &Rules {
        World::rules(self)
    }

    fn state_hash(&self) -> StateHash {
        World::state_hash(self)
    }

    #[inline]
    fn step_observed<O: StepObserver<World>>(
        &mut self,
        inputs: &[WireInput],
        observer: &mut O,
    ) -> Result<&[Event], Error> {
        self.step_wire(inputs, observer)
    }

    fn last_events(&self) -> &[Event] {
        World::events(self)
    }

    fn debug_perturb(&mut self) {
        // One bit of the second player's x: the smallest change there is.
        if let Some(p) = self.state.players.get_mut(1) {
            p.pos.x += crate::fx::fx_bits(1);
        }
    }

    fn phase_name(phase: Phase) -> &'static str {
        phase.name()
    }

    fn event_key(event: &Event) -> EventKey {
        event.key()
    }

    fn event_tick(event: &Event) -> Tick {
        event.tick
    }

    /// The rail shots, as judged (view, clamp, hit): a log shows exactly how each shot was
    /// decided, and a replay must decide it the same way.
    fn audit(events: &[Event], out: &mut Vec<ShotRecord>) {
        out.extend(events.iter().filter_map(|e| match e.kind {
            EventKind::RailShot(shot) => Some(shot),
            _ => None,
        }));
    }

    fn rules_to_bytes(rules: &Rules) -> Vec<u8> {
        rules.canonical_bytes()
    }

    fn rules_from_bytes(bytes: &[u8]) -> Option<Rules> {
        Rules::from_canonical_bytes(bytes)
    }

    fn rules_hash(rules: &Rules) -> u64 {
        rules.hash()
    }

    fn rules_differences(ours: &Rules, theirs: &Rules) -> Vec<(&'static str, String, String)> {
        ours.differences(theirs)
    }

    fn snapshot_tick(snapshot: &SavedWorld) -> Tick {
        snapshot.tick()
    }

    fn snapshot_hash(snapshot: &SavedWorld) -> StateHash {
        snapshot.hash()
    }

    fn snapshot_to_bytes(snapshot: &SavedWorld) -> Vec<u8> {
        snapshot.to_bytes()
    }

    fn snapshot_from_bytes(bytes: &[u8]) -> Result<SavedWorld, Error> {
        saved_from_bytes(bytes)
    }
}

/// The rail's lag compensation: the duel's hitbox ring, for presentation to show remote players
/// exactly as a rail shot carrying the same view is judged.
impl game_api::lag::LagCompensated for World {
    type Pose = crate::pose_history::PoseSample;

    fn pose_ring(&self) -> &crate::pose_history::PoseHistory {
        &self.state().pose_history
    }

    fn pose_window(&self) -> u8 {
        self.rules().pose_history_ticks
    }

    fn pose_now(&self) -> Tick {
        self.state().tick
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::input::InputCmd;
    use game_api::{RingError, StateHistory};

    /// The duel tells its own state equal (so a sync test skips the copy) and any other
    /// not: a state one tick before, or of another seed.
    #[test]
    fn the_duel_tells_its_own_state_from_another() {
        let mut history = StateHistory::new(8);
        let world = stepped(&mut history, 3);
        assert!(Game::state_equals(&world, &world.image()));
        let before = history.get(2).expect("kept");
        assert!(!Game::state_equals(&world, before));
        let other = World::new(Rules::default(), 2, 2).expect("world");
        let mut same_tick = other.snapshot();
        same_tick.tick = world.tick();
        assert!(!Game::state_equals(&world, &SavedWorld::of(&same_tick)));
    }

    fn stepped(history: &mut StateHistory<World>, ticks: Tick) -> World {
        let mut world = World::new(Rules::default(), 1, 2).expect("world");
        history.save(&world);
        for t in 0..ticks {
            world
                .step(&[InputCmd::idle(t), InputCmd::idle(t)])
                .expect("step");
            history.save(&world);
        }
        world
    }

    #[test]
    fn state_history_forgets_the_future_after_a_rollback() {
        let mut history = StateHistory::new(8);
        stepped(&mut history, 3);
        history.invalidate_after(1);
        assert_eq!(history.get(1).map(SavedWorld::tick), Ok(1));
        for requested in 2..=3 {
            assert_eq!(
                history.get(requested),
                Err(RingError::NotRecorded { requested })
            );
        }
    }

    #[test]
    fn state_history_refuses_an_overwritten_tick() {
        let mut history = StateHistory::new(2);
        let world = stepped(&mut history, 2);
        assert_eq!(history.get(2), Ok(&world.image()));
        assert_eq!(
            history.get(0),
            Err(RingError::Overwritten {
                requested: 0,
                held: 2
            })
        );
    }

    /// The wire step stamps every input with the tick simulated: it is the plain step of the
    /// same inputs, and too many inputs are refused, not sliced past the player table.
    #[test]
    fn the_wire_step_is_the_step_of_the_stamped_inputs() {
        let mut plain = World::new(Rules::default(), 5, 2).expect("world");
        let mut wire = plain.clone();
        for t in 0..120u32 {
            let w = [
                WireInput {
                    buttons: crate::input::buttons::SHOOT,
                    move_x: 90,
                    ..WireInput::default()
                },
                WireInput {
                    move_y: (t % 256) as u8 as i8,
                    ..WireInput::default()
                },
            ];
            let a = plain
                .step(&[w[0].at(t), w[1].at(t)])
                .expect("step")
                .to_vec();
            let b = Game::step(&mut wire, &w).expect("wire step").to_vec();
            assert_eq!((a, plain.state()), (b, wire.state()), "tick {t}");
        }
        let too_many = [WireInput::default(); MAX_PLAYERS + 1];
        assert!(matches!(
            Game::step(&mut wire, &too_many),
            Err(Error::WrongInputCount { got, .. }) if got == MAX_PLAYERS + 1
        ));
        assert_eq!(Game::tick(&wire), 120, "a refused step changes nothing");
    }

    /// The duel's answers to the netcode layer are the engine's own: rules bytes and hash, the
    /// players, one bit of perturbation, a full table of inputs.
    #[test]
    fn the_duel_answers_with_the_engines_own_values() {
        let rules = Rules {
            block_hp: 7,
            ..Rules::default()
        };
        let mut world = World::new(rules.clone(), 3, MAX_PLAYERS).expect("world");
        assert_eq!(<World as Game>::rules_hash(&rules), rules.hash());
        assert_ne!(<World as Game>::rules_hash(&rules), Rules::default().hash());
        assert_eq!(
            <World as Game>::rules_to_bytes(&rules),
            rules.canonical_bytes()
        );
        assert_eq!(
            <World as Game>::rules_from_bytes(&rules.canonical_bytes()),
            Some(rules.clone())
        );
        assert_eq!(Game::rules(&world), &rules);
        assert_eq!(Game::player_count(&world), MAX_PLAYERS);
        let before = world.state().players[1].pos.x;
        world.debug_perturb();
        assert_eq!(
            world.state().players[1].pos.x - before,
            crate::fx::fx_bits(1)
        );
        Game::step(&mut world, &[WireInput::default(); MAX_PLAYERS]).expect("one input each");
        let snapshot = world.image();
        let mut other = World::new(rules, 3, MAX_PLAYERS).expect("world");
        Game::restore(&mut other, &snapshot).expect("restore");
        assert_eq!(other.state(), &snapshot.to_snapshot());
    }

    #[test]
    fn section_hashes_are_the_duels_sections() {
        let world = World::new(Rules::default(), 5, 2).expect("world");
        let hash = world.state_hash();
        let sections: Vec<u64> = (0..5).map(|i| SectionHash::section(&hash, i)).collect();
        assert_eq!(
            <StateHash as SectionHash>::from_sections(&sections),
            Some(hash)
        );
        assert_eq!(SectionHash::section(&hash, 5), 0);
        assert_eq!(SectionHash::combined(&hash), hash.combined);
    }

    /// The duel's other answers to the layer are the engine's own: rules named by field, an
    /// event's tick its own, its rail shots (and nothing else) audited as judged, and the pose
    /// ring, window and time the rail reads.
    #[test]
    fn the_duel_names_rules_ticks_audits_and_poses_as_the_engine_does() {
        use crate::event::EventKind;
        use crate::rail::ShotRecord;
        use game_api::lag::{LagCompensated, ViewTime};
        let theirs = Rules {
            block_hp: 5,
            ..Rules::default()
        };
        assert_eq!(
            <World as Game>::rules_differences(&Rules::default(), &theirs),
            vec![("block_hp", "3".to_owned(), "5".to_owned())]
        );
        let shot = ShotRecord {
            distance: crate::fx::ONE,
            ..ShotRecord::default()
        };
        let events = [
            Event {
                tick: 9,
                kind: EventKind::ShotFired {
                    player: 0,
                    projectile: 1,
                },
            },
            Event {
                tick: 7,
                kind: EventKind::RailShot(shot),
            },
        ];
        assert_eq!(events.map(|e| World::event_tick(&e)), [9, 7]);
        let mut audited = vec![ShotRecord::default()];
        World::audit(&events, &mut audited);
        assert_eq!(
            audited,
            [ShotRecord::default(), shot],
            "appended, rail shots only"
        );
        let rules = Rules {
            pose_history_ticks: 5,
            ..Rules::default()
        };
        let mut world = World::new(rules, 4, 2).expect("world");
        for t in 0..40 {
            world
                .step(&[InputCmd::idle(t), InputCmd::idle(t)])
                .expect("step");
        }
        assert!(std::ptr::eq(world.pose_ring(), &world.state().pose_history));
        assert_eq!((world.pose_window(), world.pose_now()), (5, 40));
        let view = ViewTime {
            ticks_back: 3,
            frac: 0,
        };
        assert_eq!(
            world.pose_seen(1, view),
            world.state().pose_history.pose_at(1, 40, view, 5)
        );
    }
}
