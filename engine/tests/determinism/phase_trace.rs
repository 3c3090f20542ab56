//! `World::step_traced` is `World::step` plus a hash after every phase: same states and events,
//! the last phase hash is the state's hash, and a nudge after one phase shows up first in
//! exactly that phase.

use engine::{Bot, Phase, PhaseHashes, Rules, World, STEP_PHASES};

fn bot_inputs(world: &World, bots: &mut [Bot; 2]) -> [engine::InputCmd; 2] {
    [bots[0].think(world), bots[1].think(world)]
}

#[test]
fn traced_step_gives_the_same_states_and_events_as_step() {
    let mut plain = World::new(Rules::default(), 9, 2).expect("world");
    let mut traced = plain.clone();
    let mut bots = [Bot::new(0, 3), Bot::new(1, 4)];
    let mut trace = PhaseHashes::default();
    for _ in 0..900 {
        let inputs = bot_inputs(&plain, &mut bots);
        let tick = plain.tick();
        let events = plain.step(&inputs).expect("step").to_vec();
        let traced_events = traced.step_traced(&inputs, &mut trace).expect("traced");
        assert_eq!(traced_events, events.as_slice(), "events at tick {tick}");
        assert_eq!(traced.state(), plain.state(), "state after tick {tick}");
        assert_eq!(trace.tick, tick, "the trace names the tick simulated");
        assert_eq!(
            trace.after_phase(STEP_PHASES.len() - 1),
            plain.state_hash(),
            "the last phase's hash is the state's"
        );
    }
}

#[test]
fn a_nudge_after_one_phase_is_the_first_phase_difference() {
    let mut world = World::new(Rules::default(), 9, 2).expect("world");
    let mut bots = [Bot::new(0, 3), Bot::new(1, 4)];
    for _ in 0..300 {
        let inputs = bot_inputs(&world, &mut bots);
        world.step(&inputs).expect("step");
    }
    let inputs = bot_inputs(&world, &mut bots);
    let mut clean = PhaseHashes::default();
    world
        .clone()
        .step_traced(&inputs, &mut clean)
        .expect("clean");
    for phase in STEP_PHASES {
        let mut nudged = PhaseHashes::default();
        let mut copy = world.clone();
        copy.debug_step_perturbed(&inputs, phase, Some(&mut nudged))
            .expect("nudged");
        let (first, section) = clean.first_difference(&nudged).expect("they differ");
        assert_eq!(STEP_PHASES[first], phase, "nudged after {phase:?}");
        assert_eq!(
            section.map(|s| engine::Section::ALL[s]),
            Some(engine::Section::Players)
        );
        assert_eq!(Phase::from_name(phase.name()), Some(phase));
    }
}

#[test]
fn a_refused_step_leaves_the_trace_untouched() {
    let mut world = World::new(Rules::default(), 9, 2).expect("world");
    let mut trace = PhaseHashes::default();
    let wrong_tick = [engine::InputCmd::idle(5), engine::InputCmd::idle(5)];
    assert!(world.step_traced(&wrong_tick, &mut trace).is_err());
    assert_eq!(trace, PhaseHashes::default());
}

/// The duel keeps the whole `Game` contract: phases and sections named once, a snapshot
/// restored (through its bytes) into a fresh world replays bit-identically, a traced step is a
/// plain one, and a perturbation after any phase is seen in exactly that phase.
#[test]
fn the_duel_keeps_the_game_contract() {
    let script = |tick: engine::Tick, slot: usize| {
        let turn = (tick / 40 + slot as u32) % 4;
        engine::WireInput {
            buttons: if tick.is_multiple_of(7) {
                engine::buttons::SHOOT
            } else {
                0
            },
            move_x: [127, 0, -127, 0][turn as usize],
            move_y: [0, 127, 0, -127][turn as usize],
            ..engine::WireInput::default()
        }
    };
    game_api::conformance::check_all::<World>(Rules::default(), 11, 2, 600, script)
        .expect("the duel keeps the contract");
    assert_eq!(
        <World as game_api::Game>::phase_named("rail"),
        Some(Phase::Rail)
    );
}
