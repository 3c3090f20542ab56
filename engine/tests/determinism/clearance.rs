//! The projectiles' clearance (a cache of how long each stays far from the players, see
//! `clearance.rs`) only spares work: in each scene below a projectile that was far comes
//! within reach — the player runs into it, it flies into a player standing still, the fight
//! starts around it, or a rollback restores it next to a player — and the hit lands on the
//! same tick as in a world that tests every projectile against every player every step. A
//! clearance that forgot the players' movement, the projectiles' own steps, a change of who
//! can be hit, or the restore would let the projectile pass through.

use crate::common::{arena, centre, cmd, step_alike, ROOM};
use engine::{Bot, EventKind, Fx, FxVec, HitSource, InputCmd, Projectile, RoundPhase, World};

/// `world` with one projectile of player 1's, at `pos` with velocity `vel` (not yet known
/// clear of walls: its first step walks the grid).
fn with_shot(world: &World, pos: FxVec, vel: FxVec) -> World {
    let mut snap = world.snapshot();
    let owner = &snap.players[1];
    snap.projectiles.push(Projectile {
        id: snap.next_projectile_id,
        owner_generation: owner.generation,
        pos,
        vel,
        life: 600,
        owner: 1,
        wall_clear: 0,
    });
    snap.next_projectile_id += 1;
    let mut shot = world.clone();
    shot.restore(&snap).expect("a valid scene");
    shot
}

/// Steps `world` and a copy that tests every projectile against every player every step
/// with `inputs(tick)` until player 0 is hit by a projectile (at most `ticks`), asserting
/// they agree at every tick; returns the tick of the hit.
fn hit_tick(world: &World, inputs: impl Fn(u32) -> Vec<InputCmd>, ticks: u32) -> u32 {
    let mut trusting = world.clone();
    let mut exact = world.clone();
    exact.debug_walk_every_step(true);
    for _ in 0..ticks {
        let cmds = inputs(trusting.tick());
        let a = step_alike(&mut trusting, &mut exact, &cmds);
        let hit = a.iter().any(|k| {
            matches!(
                k,
                EventKind::Hit {
                    victim: 0,
                    source: HitSource::Projectile(_),
                    ..
                }
            )
        });
        if hit {
            return trusting.tick();
        }
    }
    panic!("player 0 was never hit in {ticks} ticks");
}

fn idle(players: usize) -> impl Fn(u32) -> Vec<InputCmd> {
    move |tick| vec![InputCmd::idle(tick); players]
}

/// A nearly still projectile three tiles ahead of player 0, who runs into it: its
/// clearance must shrink with the player's run, not only with its own crawl.
#[test]
fn a_player_running_into_a_far_projectile_is_hit() {
    let world = arena(&ROOM, &[(1, 4), (7, 1)]);
    let crawl = FxVec::new(Fx::ZERO, Fx::from_num(1) >> 9);
    let scene = with_shot(&world, centre(4, 4), crawl);
    let run = |tick: u32| vec![cmd(tick, 0, 127, 0), InputCmd::idle(tick)];
    let at = hit_tick(&scene, run, 120);
    assert!(at > 5, "hit at tick {at}: it was far at first");
}

/// A projectile flying at player 0, who stands still, from six tiles away: its clearance
/// must shrink with its own steps.
#[test]
fn a_projectile_flying_into_a_still_player_is_hit() {
    let world = arena(&ROOM, &[(1, 4), (7, 1)]);
    let toward = FxVec::new(Fx::from_num(-0.25), Fx::ZERO);
    let scene = with_shot(&world, centre(7, 4), toward);
    let at = hit_tick(&scene, idle(2), 120);
    assert!(at > 5, "hit at tick {at}: it was far at first");
}

/// A projectile already flying at player 0 during the countdown, when nobody can be hit,
/// that reaches the player just as the fight starts: it must be tested again then, and hit
/// on the fight's first step.
#[test]
fn a_projectile_in_flight_when_the_fight_starts_is_tested_again() {
    let world = arena(&ROOM, &[(1, 4), (7, 1)]);
    let mut snap = world.snapshot();
    snap.round.phase = RoundPhase::Countdown;
    snap.round.phase_timer = 10;
    let mut countdown = world.clone();
    countdown.restore(&snap).expect("countdown");
    // 10 steps of 1/8 tile bring it a quarter tile from the player's centre.
    let player = snap.players[0].pos;
    let start = FxVec::new(player.x + Fx::from_num(1.5), player.y);
    let toward = FxVec::new(Fx::from_num(-0.125), Fx::ZERO);
    let scene = with_shot(&countdown, start, toward);
    let at = hit_tick(&scene, idle(2), 120);
    assert_eq!(at, scene.tick() + 11, "the first step of the fight");
}

/// A rollback restores, into a world whose clearances say the projectile is far, a state
/// where it flies at player 0 from half a tile away (same players, same count of
/// projectiles): the restored world must hit, on the same tick as a fresh one.
#[test]
fn a_restore_forgets_the_clearances_of_the_state_it_replaces() {
    let world = arena(&ROOM, &[(1, 4), (7, 1)]);
    let crawl = FxVec::new(Fx::ZERO, Fx::from_num(1) >> 9);
    let mut rolled = with_shot(&world, centre(6, 6), crawl);
    for _ in 0..3 {
        let tick = rolled.tick();
        rolled.step(&idle(2)(tick)).expect("step");
    }
    let mut near = rolled.snapshot();
    let player = near.players[0].pos;
    let shot = &mut near.projectiles[0];
    shot.pos = FxVec::new(player.x + Fx::from_num(1), player.y);
    shot.vel = FxVec::new(Fx::from_num(-0.25), Fx::ZERO);
    shot.wall_clear = 0;
    rolled.restore(&near).expect("restore");
    let fresh = World::from_snapshot(rolled.rules().clone(), &near).expect("fresh");
    let at = hit_tick(&rolled, idle(2), 10);
    assert_eq!(
        at,
        hit_tick(&fresh, idle(2), 10),
        "the same tick as a fresh world"
    );
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig { cases: 16, ..Default::default() })]

    /// Bot matches of 2–4 players under rules at the extremes of how fast players run and
    /// get knocked back and how fast shots fly: the world that keeps clearances and the one
    /// that tests every projectile against every player every step never part (shots land
    /// in most of these matches: a clearance that forgot the players' run or the shots'
    /// flight fails here too).
    #[test]
    fn bot_play_at_extreme_speeds_is_the_same_with_clearances_ignored(
        players in 2usize..=4,
        seed in proptest::prelude::any::<u64>(),
        run in proptest::sample::select(vec![0.01, 0.1, 0.45]),
        knock in proptest::sample::select(vec![0.0, 0.45]),
        shot in proptest::sample::select(vec![0.02, 0.3, 2.0]),
    ) {
        let rules = engine::Rules {
            max_speed: Fx::from_num(run),
            melee_knockback: Fx::from_num(knock),
            projectile_knockback: Fx::from_num(knock),
            projectile_speed: Fx::from_num(shot),
            round_start_ticks: 0,
            ..engine::Rules::default()
        };
        let mut trusting = World::new(rules, seed, players).expect("world");
        let mut exact = trusting.clone();
        exact.debug_walk_every_step(true);
        let mut bots: Vec<Bot> = (0..players)
            .map(|i| Bot::new(i as u8, seed.wrapping_add(i as u64)))
            .collect();
        for _ in 0..1500 {
            let cmds: Vec<InputCmd> = bots.iter_mut().map(|b| b.think(&trusting)).collect();
            step_alike(&mut trusting, &mut exact, &cmds);
        }
    }
}

/// A projectile whose step ends exactly at touching distance from player 0 (its offset is
/// the reach plus its step: the box test's margin is 0, not far) touches at the end of its
/// step: it is swept in full and hits, though it is clear of walls and its clearance is
/// being computed.
#[test]
fn a_projectile_that_ends_its_step_touching_is_not_far() {
    let world = arena(&ROOM, &[(1, 4), (7, 1)]);
    let rules = world.rules().clone();
    let reach = rules.pushbox_radius + rules.projectile_radius;
    let step = Fx::from_num(0.25);
    let player = world.state().players[0].pos;
    let mut snap = with_shot(
        &world,
        FxVec::new(player.x + reach + step, player.y),
        FxVec::new(-step, Fx::ZERO),
    )
    .snapshot();
    // Known clear of walls for its next step, so only the player test can stop the move.
    snap.projectiles[0].wall_clear = 1;
    let mut scene = world.clone();
    scene.restore(&snap).expect("scene");
    let at = hit_tick(&scene, idle(2), 1);
    assert_eq!(at, scene.tick() + 1);
}
