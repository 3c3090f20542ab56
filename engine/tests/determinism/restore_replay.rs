//! A fresh `World` restored at tick K and replayed is byte-identical, tick by tick, to the
//! uninterrupted run — for random input streams and many rollback points.

use crate::common::{expand, run_recording, segment};
use engine::{Bot, InputCmd, Rules, World};
use proptest::prelude::*;

/// Restores `states[k]` into a fresh world, replays `inputs[k..]` and compares every tick.
fn assert_replay_matches(states: &[engine::WorldSnapshot], inputs: &[Vec<InputCmd>], k: usize) {
    let mut replay = World::from_snapshot(Rules::default(), &states[k]).expect("restore");
    assert_eq!(
        replay.state_hash(),
        states[k].hash(),
        "hash right after restore at {k}"
    );
    for (t, tick_inputs) in inputs.iter().enumerate().skip(k) {
        replay.step(tick_inputs).expect("replay step");
        let expected = &states[t + 1];
        assert_eq!(
            replay.state().to_bytes(),
            expected.to_bytes(),
            "diverged at tick {} after restoring at {k}",
            t + 1
        );
        assert_eq!(
            replay.state_hash(),
            expected.hash(),
            "hash at tick {}",
            t + 1
        );
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, ..ProptestConfig::default() })]

    /// Random (including hostile) input streams for 2–4 players, rollback at random ticks.
    #[test]
    fn restored_world_replays_identically(
        players in 2usize..=4,
        seed in any::<u64>(),
        segments in prop::collection::vec(segment(), 10..80),
        ks in prop::collection::vec(0usize..400, 6),
    ) {
        let mut world = World::new(Rules::default(), seed, players).expect("world");
        let inputs = expand(players, 0, &segments, 400);
        let states = run_recording(&mut world, &inputs);
        for k in ks {
            assert_replay_matches(&states, &inputs, k);
        }
    }
}

/// A whole bot match, rolled back every 37 ticks: covers shooting, melee, KOs, block damage
/// and round transitions.
#[test]
fn bot_match_replays_identically_from_every_37th_tick() {
    let mut world = World::new(Rules::default(), 2024, 2).expect("world");
    let mut bots = [Bot::new(0, 1), Bot::new(1, 2)];
    let mut inputs = Vec::new();
    let mut states = vec![world.snapshot()];
    for _ in 0..2400 {
        let tick_inputs = vec![bots[0].think(&world), bots[1].think(&world)];
        world.step(&tick_inputs).expect("step");
        inputs.push(tick_inputs);
        states.push(world.snapshot());
    }
    assert!(
        states.last().expect("states").round.round >= 2,
        "the match reaches round 2"
    );
    for k in (0..inputs.len()).step_by(37) {
        assert_replay_matches(&states, &inputs, k);
    }
}
