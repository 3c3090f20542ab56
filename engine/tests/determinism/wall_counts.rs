//! A projectile's `wall_clear` count (snapshot format 4) and the step that only moves a
//! projectile far from every player only spare work: a world that sweeps every projectile in
//! full on every step (the grid walk, as if no count were known, and the test against every
//! player) plays exactly the same match, tick by tick, hash for hash, event for event (the
//! counts are state, kept alike in both). If a count ever claimed a step clear that is not, or
//! a projectile only moved where it should have hit a player or ended its life, the walking
//! world would part from the other. And a snapshot from outside that claims more than is true
//! is refused.

use crate::common::{expand, segment, step_alike};
use engine::{Bot, EventKind, Fx, HitSource, Rules, World, WorldSnapshot};
use proptest::prelude::*;

/// What a side-by-side run met, so callers can show the shortcuts were taken where they
/// matter: counts above 0, walls reached, players hit by projectiles, projectiles that ended
/// their life in the air.
#[derive(Default)]
struct Met {
    most: u8,
    walls: u32,
    shot_hits: u32,
    expired: u32,
}

/// Steps a trusting and a walking world on the same inputs, asserting that every tick's hash
/// and events agree; returns what the run met.
fn side_by_side(
    rules: &Rules,
    seed: u64,
    inputs: &mut dyn FnMut(&World) -> Vec<engine::InputCmd>,
    ticks: u32,
    players: usize,
) -> Met {
    let mut trusting = World::new(rules.clone(), seed, players).expect("world");
    let mut walking = World::new(rules.clone(), seed, players).expect("world");
    walking.debug_walk_every_step(true);
    let mut met = Met::default();
    for _ in 0..ticks {
        let cmds = inputs(&trusting);
        let a = step_alike(&mut trusting, &mut walking, &cmds);
        let count = |is: fn(&EventKind) -> bool| a.iter().filter(|k| is(k)).count() as u32;
        met.shot_hits += count(|k| {
            matches!(
                k,
                EventKind::Hit {
                    source: HitSource::Projectile(_),
                    ..
                }
            )
        });
        met.expired += count(|k| matches!(k, EventKind::Expired { .. }));
        met.walls += a
            .iter()
            .filter(|k| {
                matches!(
                    k,
                    EventKind::WallHit { .. }
                        | EventKind::BlockDamaged { .. }
                        | EventKind::BlockBroken { .. }
                )
            })
            .count() as u32;
        let counts = trusting.state().projectiles.iter().map(|p| p.wall_clear);
        met.most = met.most.max(counts.max().unwrap_or(0));
    }
    met
}

fn bots(seed: u64, players: usize) -> impl FnMut(&World) -> Vec<engine::InputCmd> {
    let mut bots: Vec<Bot> = (0..players)
        .map(|i| Bot::new(i as u8, seed ^ i as u64))
        .collect();
    move |world| bots.iter_mut().map(|b| b.think(world)).collect()
}

/// Bot matches at the default projectile speed, at the slowest and the fastest the rules
/// allow, and with the longest life: the same play whether or not the shortcuts are taken,
/// with walls met and counts seen (above 1 where a step is under 2 tiles), and players hit by
/// shots and shots ending in the air along the way.
#[test]
fn a_match_plays_the_same_with_the_wall_counts_ignored() {
    let speeds = [Fx::from_num(0.30), Fx::from_num(0.02), Fx::from_num(2)];
    let (mut shot_hits, mut expired) = (0, 0);
    for (i, speed) in speeds.into_iter().enumerate() {
        let rules = Rules {
            projectile_speed: speed,
            projectile_life: if i == 1 { 600 } else { 90 },
            ..Rules::default()
        };
        for (seed, players) in [(0x5EED, 2), (7, 4)] {
            let Met {
                most,
                walls,
                shot_hits: hits,
                expired: ended,
            } = side_by_side(&rules, seed, &mut bots(seed, players), 1500, players);
            assert!(walls > 0, "speed {speed}, seed {seed}: no wall was met");
            shot_hits += hits;
            expired += ended;
            // The count looks 2 tiles ahead: at 2 tiles a step it can say 1 at most.
            let want = if i == 2 { 1 } else { 2 };
            assert!(
                most >= want,
                "speed {speed}, seed {seed}: counts reach {most}"
            );
        }
    }
    assert!(
        shot_hits > 0 && expired > 0,
        "{shot_hits} shot hits, {expired} expired"
    );
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, ..ProptestConfig::default() })]

    /// Random (hostile included) inputs for 2–4 players: the trusting and the walking world
    /// never part.
    #[test]
    fn random_play_is_the_same_with_the_wall_counts_ignored(
        players in 2usize..=4,
        seed in any::<u64>(),
        segments in prop::collection::vec(segment(), 10..80),
    ) {
        let inputs = expand(players, 0, &segments, 600);
        let mut at = 0usize;
        let mut next = |_: &World| {
            at += 1;
            inputs[at - 1].clone()
        };
        side_by_side(&Rules::default(), seed, &mut next, 600, players);
    }
}

/// A snapshot taken in flight, with a count raised above what its path allows: refused from
/// bytes and into a fresh world, naming the projectile; at the true count it is accepted.
/// (A world restoring its own saves trusts them; see `World::restore`.)
#[test]
fn a_snapshot_claiming_more_steps_clear_than_true_is_refused() {
    let rules = Rules::default();
    let mut world = World::new(rules.clone(), 0x5EED, 2).expect("world");
    let mut play = bots(0x5EED, 2);
    let mut snap: Option<WorldSnapshot> = None;
    for _ in 0..3000 {
        let cmds = play(&world);
        world.step(&cmds).expect("step");
        let s = world.snapshot();
        if s.projectiles.iter().any(|p| p.wall_clear < 255) {
            snap = Some(s);
            break;
        }
    }
    let snap = snap.expect("a projectile in flight");
    let k = snap
        .projectiles
        .iter()
        .position(|p| p.wall_clear < 255)
        .expect("one");
    assert!(WorldSnapshot::from_bytes(&snap.to_bytes()).is_ok());
    assert!(World::from_snapshot(rules.clone(), &snap).is_ok());
    let mut forged = snap.clone();
    forged.projectiles[k].wall_clear += 1;
    // Raising it by one may still be true (the count was computed a step or more ago, and
    // blocks may have broken since); raise it until it is not.
    while forged.check_wall_counts().is_ok() && forged.projectiles[k].wall_clear < 255 {
        forged.projectiles[k].wall_clear += 1;
    }
    let err = WorldSnapshot::from_bytes(&forged.to_bytes()).expect_err("refused");
    let id = forged.projectiles[k].id;
    assert!(
        err.to_string().contains(&format!("projectile {id} claims")),
        "{err}"
    );
    assert!(World::from_snapshot(rules, &forged).is_err());
}

/// The check above can fail: with a count forged to claim a step that is not clear (restored
/// with `restore`, which trusts a world's own saves), the walking world finds the wall the
/// trusting one flies through.
#[test]
fn the_walking_world_finds_the_wall_a_forged_count_hides() {
    let mut world = World::new(Rules::default(), 0x5EED, 2).expect("world");
    let mut play = bots(0x5EED, 2);
    let mut snap = None;
    // A projectile whose next step meets a wall (it has counted 0 clear steps).
    for _ in 0..3000 {
        let cmds = play(&world);
        world.step(&cmds).expect("step");
        let s = world.snapshot();
        if s.projectiles
            .iter()
            .any(|p| p.wall_clear == 0 && p.life > 1)
        {
            snap = Some(s);
            break;
        }
    }
    let mut snap = snap.expect("a projectile at a wall");
    for p in &mut snap.projectiles {
        p.wall_clear = 255;
    }
    let walls = |walk: bool| {
        let mut w = World::new(Rules::default(), 0x5EED, 2).expect("world");
        w.restore(&snap).expect("restore trusts the counts");
        w.debug_walk_every_step(walk);
        let idle = [
            engine::InputCmd::idle(snap.tick),
            engine::InputCmd::idle(snap.tick),
        ];
        let events = w.step(&idle).expect("step");
        events
            .iter()
            .filter(|e| {
                matches!(
                    e.kind,
                    EventKind::WallHit { .. }
                        | EventKind::BlockDamaged { .. }
                        | EventKind::BlockBroken { .. }
                )
            })
            .count()
    };
    assert_eq!(walls(false), 0, "the forged count hides the wall");
    assert!(walls(true) > 0, "walking every step finds it");
}
