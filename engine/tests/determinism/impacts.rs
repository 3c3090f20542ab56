//! Where a projectile's step ends (found by mutation testing of `step.rs`): the nearest of the
//! walls and players its segment meets this tick, a wall before a player behind it, a player
//! before the wall behind them, a tie between two players to the lower slot; a block loses one
//! hit point per impact; a projectile that meets nothing expires once, when its life runs out.

use crate::common::{arena_with, idle};
use engine::{buttons, EventKind, Fx, FxVec, InputCmd, Rules, World};

/// Fast, straight shots: a projectile covers 2 tiles a tick, so one segment can meet a wall
/// and a player both.
fn fast() -> Rules {
    Rules {
        projectile_speed: Fx::from_num(2),
        shot_spread: Fx::ZERO,
        ..Rules::default()
    }
}

/// A 9×9 room with one wall tile at (`wall_x`, 4) (none if `None`).
fn room_with_wall(wall_x: Option<usize>) -> Vec<String> {
    (0..9)
        .map(|y| {
            (0..9)
                .map(|x| {
                    let border = x == 0 || y == 0 || x == 8 || y == 8;
                    if border || (y == 4 && Some(x) == wall_x) {
                        '#'
                    } else {
                        '.'
                    }
                })
                .collect()
        })
        .collect()
}

/// Player 0 fires once, facing east, then everyone idles until no projectile is left; the
/// events of the whole run.
fn fire_east(world: &mut World) -> Vec<EventKind> {
    let mut snap = world.snapshot();
    snap.players[0].aim = FxVec::new(Fx::from_num(1), Fx::ZERO);
    let mut fresh = World::new(world.rules().clone(), 99, snap.players.len()).expect("world");
    fresh.restore(&snap).expect("restore");
    *world = fresh;
    let mut events = Vec::new();
    for t in 0..200 {
        let tick = world.tick();
        let mut inputs = vec![InputCmd::idle(tick); world.player_count()];
        inputs[0].buttons = if t == 0 { buttons::SHOOT } else { 0 };
        events.extend(world.step(&inputs).expect("step").iter().map(|e| e.kind));
        if t > 0 && world.state().projectiles.is_empty() {
            return events;
        }
    }
    panic!("the projectile never ended");
}

fn hp(world: &World, slot: usize) -> u16 {
    world.state().players[slot].hp
}

#[test]
fn a_wall_stops_a_projectile_before_a_player_behind_it_in_the_same_step() {
    let rows = room_with_wall(Some(5));
    let rows: Vec<&str> = rows.iter().map(String::as_str).collect();
    let mut world = arena_with(&fast(), &rows, &[(4, 4), (6, 4)]);
    let events = fire_east(&mut world);
    assert!(events
        .iter()
        .any(|e| matches!(e, EventKind::WallHit { .. })));
    assert_eq!(
        hp(&world, 1),
        world.rules().max_hp,
        "not hit through the wall"
    );
}

#[test]
fn a_player_in_front_of_a_wall_is_hit_before_the_wall_in_the_same_step() {
    let rows = room_with_wall(Some(3));
    let rows: Vec<&str> = rows.iter().map(String::as_str).collect();
    let mut world = arena_with(&fast(), &rows, &[(1, 4), (2, 4)]);
    let events = fire_east(&mut world);
    assert!(!events
        .iter()
        .any(|e| matches!(e, EventKind::WallHit { .. })));
    assert_eq!(
        hp(&world, 1),
        world.rules().max_hp - world.rules().projectile_damage
    );
}

#[test]
fn two_players_met_at_the_same_instant_go_to_the_lower_slot() {
    let rows = room_with_wall(None);
    let rows: Vec<&str> = rows.iter().map(String::as_str).collect();
    let mut world = arena_with(&fast(), &rows, &[(1, 4), (3, 4), (3, 4)]);
    // Mirror images across the shot's line, just apart (0.625 > two pushbox radii): the
    // projectile meets both circles at exactly the same fraction of its step.
    let mut snap = world.snapshot();
    let x = Fx::from_num(3.5);
    snap.players[1].pos = FxVec::new(x, Fx::from_num(4.5 - 0.3125));
    snap.players[2].pos = FxVec::new(x, Fx::from_num(4.5 + 0.3125));
    world.restore(&snap).expect("restore");
    fire_east(&mut world);
    let max = world.rules().max_hp;
    assert_eq!(
        (hp(&world, 1), hp(&world, 2)),
        (max - world.rules().projectile_damage, max)
    );
}

#[test]
fn a_block_loses_one_hit_point_per_impact_until_it_breaks() {
    let mut rows: Vec<String> = room_with_wall(None);
    rows[4].replace_range(5..6, "3");
    let rows: Vec<&str> = rows.iter().map(String::as_str).collect();
    let mut world = arena_with(&Rules::default(), &rows, &[(2, 4), (2, 7)]);
    let mut seen = Vec::new();
    for _ in 0..3 {
        let events = fire_east(&mut world);
        idle(&mut world, 20);
        seen.push((
            world.state().maze.get(5, 4).block_hp(),
            events.iter().find_map(|e| match *e {
                EventKind::BlockDamaged { hp_left, .. } => Some(Some(hp_left)),
                EventKind::BlockBroken { .. } => Some(None),
                _ => None,
            }),
        ));
    }
    assert_eq!(
        seen,
        [
            (Some(2), Some(Some(2))),
            (Some(1), Some(Some(1))),
            (None, Some(None))
        ]
    );
}

#[test]
fn a_projectile_that_meets_nothing_expires_once_when_its_life_runs_out() {
    let rules = Rules {
        projectile_life: 4,
        ..Rules::default()
    };
    let rows = room_with_wall(None);
    let rows: Vec<&str> = rows.iter().map(String::as_str).collect();
    let mut world = arena_with(&rules, &rows, &[(1, 4), (1, 7)]);
    let events = fire_east(&mut world);
    let expired = events
        .iter()
        .filter(|e| matches!(e, EventKind::Expired { .. }))
        .count();
    assert_eq!(expired, 1, "{events:?}");
}

#[test]
fn a_hit_without_hitstun_leaves_the_victim_free_to_act() {
    let rules = Rules {
        projectile_hitstun: 0,
        ..fast()
    };
    let rows = room_with_wall(None);
    let rows: Vec<&str> = rows.iter().map(String::as_str).collect();
    let mut world = arena_with(&rules, &rows, &[(1, 4), (3, 4)]);
    fire_east(&mut world);
    let victim = &world.state().players[1];
    assert_eq!(victim.hp, rules.max_hp - rules.projectile_damage, "hit");
    assert!(victim.action.is_free(), "{:?}", victim.action);
    let tick = world.tick();
    let mut inputs = vec![InputCmd::idle(tick); 2];
    inputs[1].buttons = buttons::MELEE;
    world.step(&inputs).expect("step");
    assert_eq!(
        world.state().players[1].action,
        engine::Action::MeleeStartup,
        "swings at once"
    );
}
