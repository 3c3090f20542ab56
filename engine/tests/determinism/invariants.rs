//! Properties every reachable state has, checked over random input streams.

use crate::common::{expand, segment};
use engine::{Error, Rules, World, WorldSnapshot, SNAPSHOT_FORMAT_VERSION};
use proptest::prelude::*;

proptest! {
    #![proptest_config(ProptestConfig { cases: 32, ..ProptestConfig::default() })]

    /// No player is ever inside a wall (pushbox included), no projectile ends a tick inside a
    /// solid tile, the cached hash equals a fresh one, and the snapshot survives its bytes.
    #[test]
    fn reachable_states_are_well_formed(
        players in 2usize..=4,
        seed in any::<u64>(),
        segments in prop::collection::vec(segment(), 10..120),
    ) {
        let rules = Rules::default();
        let mut world = World::new(rules.clone(), seed, players).expect("world");
        for (t, inputs) in expand(players, 0, &segments, 700).iter().enumerate() {
            world.step(inputs).expect("step");
            let state = world.state();
            for p in &state.players {
                prop_assert!(!state.maze.box_overlaps_solid(p.pos, rules.player_radius),
                    "tick {t}: player {} in a wall at {:?}", p.id, p.pos);
            }
            for p in &state.projectiles {
                let tile = state.maze.get_i(engine::tile_of(p.pos.x), engine::tile_of(p.pos.y));
                prop_assert!(!tile.is_solid(), "tick {t}: projectile {} in a wall", p.id);
            }
            prop_assert_eq!(world.state_hash(), state.hash(), "tick {}: stale hash cache", t);
            if t % 97 == 0 {
                let back = WorldSnapshot::from_bytes(&state.to_bytes()).unwrap_or_else(|e| panic!("{e}: {:?}", state.players));
                prop_assert_eq!(&back, state);
            }
        }
    }
}

/// Damaged snapshot bytes (as from a corrupt log) are refused with an error or restore to a
/// state that then steps without panicking: nothing a file says can crash the engine. A test
/// where every damaged case is refused would prove nothing about stepping, so the cases are
/// counted: a healthy share must get past both checks and step.
#[test]
fn damaged_snapshots_never_crash() {
    use proptest::test_runner::{Config, RngAlgorithm, TestRng, TestRunner};
    use std::cell::Cell;

    let cases = 512;
    let (unreadable, refused, stepped) = (Cell::new(0u32), Cell::new(0u32), Cell::new(0u32));
    let strategy = (
        prop::collection::vec((any::<prop::sample::Index>(), any::<u8>()), 1..6),
        prop::collection::vec(segment(), 1..10),
    );
    // A fixed seed: the same cases every run, so the share asserted below cannot flicker.
    let mut runner = TestRunner::new_with_rng(
        Config {
            cases,
            // Replays the failures proptest saved for this file first.
            source_file: Some(file!()),
            ..Config::default()
        },
        TestRng::deterministic_rng(RngAlgorithm::ChaCha),
    );
    runner
        .run(&strategy, |(flips, segments)| {
            let mut world = World::new(Rules::default(), 17, 2).expect("world");
            for inputs in expand(2, 0, &segments, 90) {
                world.step(&inputs).expect("step");
            }
            let mut bytes = world.state().to_bytes();
            for (at, value) in flips {
                let i = at.index(bytes.len());
                bytes[i] ^= value;
            }
            let Ok(snapshot) = WorldSnapshot::from_bytes(&bytes) else {
                unreadable.set(unreadable.get() + 1);
                return Ok(());
            };
            let Ok(mut damaged) = World::from_snapshot(Rules::default(), &snapshot) else {
                refused.set(refused.get() + 1);
                return Ok(());
            };
            for inputs in expand(2, 0, &segments, 300) {
                // Stamped here: the damaged tick may be anywhere up to `Tick::MAX`.
                let tick = damaged.tick();
                let inputs: Vec<_> = inputs
                    .into_iter()
                    .map(|i| engine::InputCmd { tick, ..i })
                    .collect();
                match damaged.step(&inputs) {
                    Ok(_) => {}
                    // The last tick has no next one: an error, not an overflow.
                    Err(Error::TickLimit { .. }) => break,
                    Err(e) => panic!("a restored world steps: {e}"),
                }
            }
            stepped.set(stepped.get() + 1);
            Ok(())
        })
        .unwrap_or_else(|e| panic!("{e}"));
    let (unreadable, refused, stepped) = (unreadable.get(), refused.get(), stepped.get());
    println!("unreadable {unreadable} refused {refused} restored and stepped {stepped}");
    // The saved failures run on top of the `cases` new ones.
    assert!(
        unreadable + refused + stepped >= cases,
        "every case counted"
    );
    assert!(
        stepped >= cases / 4,
        "only {stepped} of {cases} damaged snapshots restored and stepped \
         ({unreadable} unreadable, {refused} refused): the property is close to vacuous"
    );
}

/// Players crowd into one dead end from both sides; the pushbox never shoves anyone into a
/// wall (regression guard for the re-constraint after pushbox).
#[test]
fn crowding_in_a_corner_never_enters_a_wall() {
    let rules = Rules::default();
    let mut world = crate::common::arena(
        &["#####", "#...#", "#.#.#", "#...#", "#####"],
        &[(1, 1), (2, 1), (3, 1), (1, 3)],
    );
    for t in 0..300u32 {
        let pull = |x: i8, y: i8| crate::common::cmd(t, 0, x, y);
        world
            .step(&[
                pull(-127, -127),
                pull(-127, -127),
                pull(-127, 0),
                pull(0, -127),
            ])
            .expect("step");
        for p in &world.state().players {
            assert!(
                !world
                    .state()
                    .maze
                    .box_overlaps_solid(p.pos, rules.player_radius),
                "tick {t}"
            );
        }
    }
}

#[test]
fn snapshot_bytes_reject_other_versions_and_corruption() {
    let world = World::new(Rules::default(), 1, 2).expect("world");
    let mut bytes = world.state().to_bytes();
    assert_eq!(bytes.len() as u64, world.state().encoded_len());
    let mut other = bytes.clone();
    other[..4].copy_from_slice(&(SNAPSHOT_FORMAT_VERSION + 1).to_le_bytes());
    assert_eq!(
        WorldSnapshot::from_bytes(&other).unwrap_err(),
        Error::SnapshotVersion {
            found: SNAPSHOT_FORMAT_VERSION + 1,
            expected: SNAPSHOT_FORMAT_VERSION
        }
    );
    assert!(matches!(
        WorldSnapshot::from_bytes(&bytes[..bytes.len() - 3]),
        Err(Error::SnapshotCorrupt { .. })
    ));
    bytes.push(0);
    assert!(matches!(
        WorldSnapshot::from_bytes(&bytes),
        Err(Error::SnapshotCorrupt { .. })
    ));
    assert!(matches!(
        WorldSnapshot::from_bytes(&[1, 0]),
        Err(Error::SnapshotCorrupt { .. })
    ));
}

#[test]
fn restore_refuses_a_snapshot_from_other_rules() {
    let world = World::new(Rules::default(), 1, 2).expect("world");
    let other_rules = Rules {
        block_hp: 4,
        ..Rules::default()
    };
    let err = World::from_snapshot(other_rules.clone(), world.state()).unwrap_err();
    assert!(matches!(err, Error::RulesMismatch { .. }), "{err}");
    // Nor does a rollback's load of a save (which skips the other checks) take it.
    let mut other = World::new(other_rules, 1, 2).expect("world");
    let before = other.snapshot();
    let err = other.restore_saved(world.state()).unwrap_err();
    assert!(matches!(err, Error::RulesMismatch { .. }), "{err}");
    assert_eq!(other.state(), &before, "the world is unchanged");
}

#[test]
fn restore_refuses_impossible_states() {
    let world = World::new(Rules::default(), 1, 2).expect("world");
    let mut snap = world.snapshot();
    snap.players[1].id = 0;
    assert!(matches!(
        World::from_snapshot(Rules::default(), &snap),
        Err(Error::SnapshotCorrupt { .. })
    ));
    let mut snap = world.snapshot();
    snap.maze.tiles.pop();
    assert!(matches!(
        World::from_snapshot(Rules::default(), &snap),
        Err(Error::SnapshotCorrupt { .. })
    ));
    let mut snap = world.snapshot();
    snap.round.wins[0] = 200; // one more win would overflow the counter
    assert!(matches!(
        World::from_snapshot(Rules::default(), &snap),
        Err(Error::SnapshotCorrupt { .. })
    ));
    let mut snap = world.snapshot();
    snap.players[0].pos.x = engine::fx_int(30000);
    assert!(matches!(
        World::from_snapshot(Rules::default(), &snap),
        Err(Error::SnapshotCorrupt { .. })
    ));
}

#[test]
fn per_section_hashes_name_the_part_that_differs() {
    let world = World::new(Rules::default(), 1, 2).expect("world");
    let base = world.state().hash();
    let mut snap = world.snapshot();
    snap.players[1].hp -= 1;
    assert_eq!(
        base.first_difference(&snap.hash()),
        Some(engine::Section::Players)
    );
    let mut snap = world.snapshot();
    snap.maze.tiles[0] = engine::Tile::FLOOR;
    assert_eq!(
        base.first_difference(&snap.hash()),
        Some(engine::Section::Maze)
    );
    let mut snap = world.snapshot();
    snap.rng.state ^= 1;
    assert_eq!(
        base.first_difference(&snap.hash()),
        Some(engine::Section::Rest)
    );
    assert_ne!(snap.hash().combined, base.combined);
}
