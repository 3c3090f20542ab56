//! The step order is part of the rules; each test pins one ordering decision by its effect.

use crate::common::{arena, centre, cmd, step_p0, ROOM, SHOOT};
use engine::{EventKind, Fx, FxVec, Projectile, Rules, World};

fn fx(v: f64) -> Fx {
    Fx::from_num(v)
}

/// Movement resolves X before Y: at a convex corner a diagonal mover slides past on X and is
/// stopped on Y (Y first would stop it on X instead).
#[test]
fn movement_is_x_then_y() {
    let rows = [
        "#######", "#.....#", "#.....#", "#....##", "#.....#", "#.....#", "#######",
    ];
    // The lone wall tile is (5, 3). The player's box touches neither its column nor its row.
    let mut world = arena(&rows, &[(4, 4), (1, 1)]);
    let mut snap = world.snapshot();
    snap.players[0].pos = FxVec::new(fx(4.69), fx(4.31));
    snap.players[0].vel = FxVec::new(fx(0.1), fx(-0.1));
    world.restore(&snap).expect("restore");
    step_p0(&mut world, 0, 0, 0);
    let p = world.state().players[0];
    let r = Rules::default().player_radius;
    assert!(p.pos.x > fx(4.69) + fx(0.05), "x moved on: {:?}", p.pos);
    assert_eq!(p.pos.y, fx(4.0) + r, "y stopped flush under the wall tile");
}

/// Aim and fire run after movement, and projectiles after that: a shot spawns at the shooter's
/// moved position and flies its first step on the tick it is fired.
#[test]
fn shot_spawns_after_movement_and_moves_the_same_tick() {
    let mut world = arena(&ROOM, &[(2, 4), (6, 7)]);
    step_p0(&mut world, SHOOT, 127, 0);
    let player = world.state().players[0];
    let proj: Projectile = world.state().projectiles[0];
    assert!(player.pos.x > centre(2, 4).x, "the shooter moved this tick");
    assert_eq!(
        proj.pos,
        player.pos + proj.vel,
        "spawned at the moved position, then flew one step"
    );
}

/// Timers run before firing: a cooldown of 1 has expired by the time the trigger is read.
#[test]
fn cooldown_ticks_down_before_the_trigger_is_read() {
    let mut world = arena(&ROOM, &[(2, 4), (6, 7)]);
    let mut snap = world.snapshot();
    snap.players[0].shot_cooldown = 1;
    world.restore(&snap).expect("restore");
    step_p0(&mut world, SHOOT, 0, 0);
    assert_eq!(world.state().projectiles.len(), 1);
}

/// Melee resolves before projectiles: when both would knock out the same player on one tick,
/// the swing gets the KO.
#[test]
fn melee_resolves_before_projectiles() {
    // P0 swings at P1 from the left; P2's shot arrives from below on the same tick.
    let mut world = arena(&ROOM, &[(3, 4), (4, 4), (4, 6)]);
    let mut snap = world.snapshot();
    snap.players[0].action = engine::Action::MeleeStartup;
    snap.players[0].action_timer = 1; // becomes active this tick
    snap.players[1].hp = 1;
    snap.next_projectile_id = 1;
    snap.projectiles.push(Projectile {
        id: 0,
        owner: 2,
        wall_clear: 0,
        owner_generation: snap.players[2].generation,
        pos: FxVec::new(fx(4.5), fx(5.0)),
        vel: FxVec::new(fx(0.0), fx(-0.3)),
        life: 10,
    });
    world.restore(&snap).expect("restore");
    let t = world.tick();
    let events = world
        .step(&[cmd(t, 0, 0, 0), cmd(t, 0, 0, 0), cmd(t, 0, 0, 0)])
        .expect("step");
    let ko = events.iter().find_map(|e| match e.kind {
        EventKind::Ko { by, .. } => Some(by),
        _ => None,
    });
    assert_eq!(ko, Some(0), "{events:?}");
}

/// Hits come before round logic: the round is decided on the very tick of the KO.
#[test]
fn round_is_decided_on_the_ko_tick() {
    let mut world = arena(&ROOM, &[(1, 4), (6, 4)]);
    let mut snap = world.snapshot();
    snap.players[1].hp = 1;
    world.restore(&snap).expect("restore");
    let mut ko_tick = None;
    for _ in 0..40 {
        step_p0(&mut world, SHOOT, 0, 0);
        for e in world.events() {
            match e.kind {
                EventKind::Ko { .. } => ko_tick = Some(e.tick),
                EventKind::RoundWon { winner, .. } => {
                    assert_eq!(Some(e.tick), ko_tick);
                    assert_eq!(winner, Some(0));
                    return;
                }
                _ => {}
            }
        }
    }
    panic!("no KO");
}

/// Removal keeps the survivors' order: projectile order decides who is hit first.
#[test]
fn removal_preserves_projectile_order() {
    let mut world = arena(&ROOM, &[(1, 1), (7, 1)]);
    let mut snap = world.snapshot();
    let mk = |id: u32, x: f64, vx: f64| Projectile {
        id,
        owner: 0,
        wall_clear: 0,
        owner_generation: 1,
        pos: FxVec::new(fx(x), fx(5.5)),
        vel: FxVec::new(fx(vx), fx(0.0)),
        life: 50,
    };
    // The middle one is about to hit the east wall; the others fly on.
    snap.projectiles = vec![
        mk(0, 3.5, 0.1),
        mk(1, 7.9, 0.3),
        mk(2, 4.5, 0.1),
        mk(3, 2.5, -0.1),
    ];
    snap.next_projectile_id = 4;
    world.restore(&snap).expect("restore");
    step_p0(&mut world, 0, 0, 0);
    let ids: Vec<u32> = world.state().projectiles.iter().map(|p| p.id).collect();
    assert_eq!(ids, vec![0, 2, 3]);
}

/// The pushbox runs after movement and its pushes are re-constrained by walls: two players
/// pressed together against a wall end up apart, both clear of it.
#[test]
fn pushbox_after_movement_respects_walls() {
    let mut world: World = arena(&ROOM, &[(1, 4), (1, 4)]);
    let mut snap = world.snapshot();
    snap.players[0].pos = FxVec::new(fx(1.3), fx(4.5));
    snap.players[1].pos = FxVec::new(fx(1.4), fx(4.5));
    world.restore(&snap).expect("restore");
    step_p0(&mut world, 0, -127, 0);
    let s = world.state();
    let r = Rules::default().player_radius;
    assert_eq!(
        s.players[0].pos.x,
        fx(1.0) + r,
        "pinned flush, not pushed into the wall"
    );
    assert!(
        s.players[1].pos.x > fx(1.4),
        "the other one was pushed away"
    );
    for p in &s.players {
        assert!(!s.maze.box_overlaps_solid(p.pos, r));
    }
}

/// The rail resolves after movement and before projectiles: its ray starts at the shooter's
/// moved position, and on a tick where a rail shot and a projectile both hit, the rail's hit
/// comes first.
#[test]
fn rail_resolves_after_movement_and_before_projectiles() {
    let mut world = arena(&ROOM, &[(2, 4), (6, 4)]);
    let mut snap = world.snapshot();
    // A projectile of player 0's about to hit player 1.
    snap.projectiles.push(Projectile {
        id: snap.next_projectile_id,
        owner: 0,
        wall_clear: 0,
        owner_generation: snap.players[0].generation,
        pos: FxVec::new(fx(5.9), fx(4.5)),
        vel: FxVec::new(fx(0.3), fx(0.0)),
        life: 10,
    });
    snap.next_projectile_id += 1;
    world.restore(&snap).expect("restore");
    let tick = world.tick();
    let rail = engine::InputCmd {
        buttons: engine::buttons::RAIL,
        move_x: 127,
        ..engine::InputCmd::idle(tick)
    };
    let events: Vec<EventKind> = world
        .step(&[rail, engine::InputCmd::idle(tick)])
        .expect("step")
        .iter()
        .map(|e| e.kind)
        .collect();
    let shot = events
        .iter()
        .find_map(|k| match k {
            EventKind::RailShot(s) => Some(*s),
            _ => None,
        })
        .expect("rail shot");
    assert!(shot.origin.x > centre(2, 4).x, "from the moved position");
    assert_eq!(shot.origin, world.state().players[0].pos);
    let sources: Vec<engine::HitSource> = events
        .iter()
        .filter_map(|k| match k {
            EventKind::Hit { source, .. } => Some(*source),
            _ => None,
        })
        .collect();
    assert_eq!(
        sources,
        vec![engine::HitSource::Rail, engine::HitSource::Projectile(0)]
    );
}
