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

/// A rollback's load of its own save (`restore_saved`, which skips re-checking the state):
/// states saved into reused slots, as a driver's ring does, and loaded into a world that
/// played another match, replay tick by tick like the uninterrupted run.
#[test]
fn a_world_loading_its_own_saves_replays_identically() {
    let mut world = World::new(Rules::default(), 77, 2).expect("world");
    let mut bots = [Bot::new(0, 3), Bot::new(1, 4)];
    let mut inputs = Vec::new();
    let mut states = vec![world.snapshot()];
    // A ring of 8 slots, each saved over again every 8 ticks.
    let mut ring = vec![world.snapshot(); 8];
    let mut saved_at = [0usize; 8];
    for t in 0..1200 {
        let tick_inputs = vec![bots[0].think(&world), bots[1].think(&world)];
        world.step(&tick_inputs).expect("step");
        inputs.push(tick_inputs);
        states.push(world.snapshot());
        let slot = (t + 1) % 8;
        world.save_into(&mut ring[slot]);
        saved_at[slot] = t + 1;
        if (t + 1) % 50 == 0 {
            // Another match's world, moved on, loads the slot saved 3 ticks ago.
            let back = (slot + 5) % 8;
            let k = saved_at[back];
            let mut other = World::new(Rules::default(), 5, 2).expect("world");
            other.step(&[InputCmd::default(); 2]).expect("step");
            other.restore_saved(&ring[back]).expect("own save");
            assert_eq!(other.state(), &states[k], "loaded at {k}");
            assert_eq!(other.state_hash(), states[k].hash(), "hash at {k}");
            for (i, tick_inputs) in inputs.iter().enumerate().skip(k) {
                other.step(tick_inputs).expect("replay step");
                assert_eq!(other.state(), &states[i + 1], "after loading at {k}");
            }
            assert_eq!(other.state_hash(), world.state_hash());
        }
    }
    assert!(world.state().round.round >= 2, "the match reaches round 2");
}

/// A restore into a used world keeps its cached maze hash only when the restored grid is the
/// live one, and rehashes it otherwise: after restoring grids that differ in one tile, then in
/// size, then the same grid again, the world's hash is always the one a fresh world computes
/// from the snapshot, and the world plays on like a fresh restore.
#[test]
fn a_restore_rehashes_the_maze_exactly_when_it_differs() {
    let mut world = World::new(Rules::default(), 11, 2).expect("world");
    let idle = |t| [InputCmd::idle(t), InputCmd::idle(t)];
    for t in 0..200 {
        world.step(&idle(t)).expect("step");
    }
    let base = world.snapshot();
    let width = base.maze.width as usize;
    let far_from_players = |i: usize| {
        let (x, y) = ((i % width) as i32, (i / width) as i32);
        (base.players.iter()).all(|p| {
            let (px, py) = (p.pos.x.to_num::<i32>(), p.pos.y.to_num::<i32>());
            (x - px).abs() > 2 || (y - py).abs() > 2
        })
    };
    let floor = (0..base.maze.tiles.len())
        .find(|&i| !base.maze.tiles[i].is_solid() && far_from_players(i))
        .expect("a floor tile away from the players");
    let mut one_tile = base.clone();
    one_tile.maze.tiles[floor] = engine::Tile::block(3);
    let mut other_round = base.clone();
    other_round.maze = engine::Maze::generate(&Rules::default(), 99);
    other_round.pose_history = base.pose_history.clone();
    let mut used = World::from_snapshot(Rules::default(), &base).expect("restore");
    for snapshot in [&one_tile, &base, &base, &one_tile, &one_tile, &base] {
        used.restore(snapshot).expect("restore");
        let fresh = World::from_snapshot(Rules::default(), snapshot).expect("fresh");
        assert_eq!(used.state_hash(), fresh.state_hash());
        assert_eq!(used.state_hash(), snapshot.hash());
    }
    // A grid of another seed: refused if a player would stand in a wall, else rehashed.
    if used.restore(&other_round).is_ok() {
        assert_eq!(used.state_hash(), other_round.hash());
    }
    used.restore(&one_tile).expect("restore");
    let mut fresh = World::from_snapshot(Rules::default(), &one_tile).expect("fresh");
    for t in 200..260 {
        used.step(&idle(t)).expect("step");
        fresh.step(&idle(t)).expect("step");
        assert_eq!(used.state_hash(), fresh.state_hash(), "tick {t}");
    }
}
