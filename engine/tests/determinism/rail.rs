//! The rail's lag compensation: a shot is judged against the targets' poses at its shooter's
//! view time, never across a discontinuity, clamped to the window, nearest hit first with the
//! documented tie-breaks, only against the target's current life, without changing the state.

use crate::common::{arena, centre, ROOM};
use engine::HitboxHistory;
use engine::{
    buttons, EventKind, Fx, FxVec, InputCmd, PoseSample, Rules, ShotOutcome, ShotRecord,
    ShotTarget, ViewClamp, ViewTime, World,
};

fn fx(v: f64) -> Fx {
    Fx::from_num(v)
}

/// One tick: player 0 presses the rail with the given view; player 1 holds `p1_stick` (y).
fn rail_tick(world: &mut World, view: ViewTime, p1_y: i8) -> Vec<EventKind> {
    let tick = world.tick();
    let mut inputs = vec![InputCmd::idle(tick); world.player_count()];
    inputs[0] = InputCmd {
        buttons: buttons::RAIL,
        view_ticks: view.ticks_back,
        view_frac: view.frac,
        ..InputCmd::idle(tick)
    };
    inputs[1].move_y = p1_y;
    let events = world.step(&inputs).expect("step");
    events.iter().map(|e| e.kind).collect()
}

fn idle_tick(world: &mut World, p1_y: i8) {
    let tick = world.tick();
    let mut inputs = vec![InputCmd::idle(tick); world.player_count()];
    inputs[1].move_y = p1_y;
    world.step(&inputs).expect("step");
}

fn shot_of(events: &[EventKind]) -> ShotRecord {
    events
        .iter()
        .find_map(|k| match k {
            EventKind::RailShot(s) => Some(*s),
            _ => None,
        })
        .expect("a rail shot was resolved")
}

fn view(ticks_back: u8, frac: u8) -> ViewTime {
    ViewTime { ticks_back, frac }
}

/// A fresh world restored from `world`'s snapshot (branches never share an object).
fn branch(world: &World) -> World {
    World::from_snapshot(world.rules().clone(), &world.snapshot()).expect("restore")
}

/// Player 0 at (1.5, 4.5) aiming right along y = 4.5; player 1 runs down across that line at
/// x = 5.5 until it is well past it. Returns the world and how many ticks back the target was
/// centred on the ray.
fn crossing() -> (World, u8) {
    let mut world = arena(&ROOM, &[(1, 4), (5, 1)]);
    assert_eq!(world.state().players[0].aim, FxVec::new(fx(1.0), fx(0.0)));
    let line = fx(4.5);
    let mut crossed_at = None;
    for _ in 0..60 {
        idle_tick(&mut world, 127);
        let y = world.state().players[1].pos.y;
        if crossed_at.is_none() && y >= line {
            crossed_at = Some(world.tick());
        }
        if y > line + fx(1.2) {
            break;
        }
    }
    let crossed_at = crossed_at.expect("the target crossed the ray");
    let back = world.tick() - crossed_at;
    assert!((1..=Rules::default().pose_history_ticks as u32).contains(&back));
    (world, back as u8)
}

/// The seed's central promise: the same shot hits where the shooter saw the target and misses
/// where the target has since moved.
#[test]
fn a_crossing_target_is_hit_where_it_was_seen_and_missed_where_it_is_now() {
    let (world, back) = crossing();
    let mut seen = branch(&world);
    let hp = seen.state().players[1].hp;
    let shot = shot_of(&rail_tick(&mut seen, view(back, 0), 127));
    assert_eq!(shot.clamp, ViewClamp::None);
    assert_eq!(shot.used, view(back, 0));
    let generation = world.state().players[1].generation;
    assert_eq!(shot.target, ShotTarget::Player { id: 1, generation });
    let damage = Rules::default().rail_damage;
    assert_eq!(shot.outcome, ShotOutcome::Hit { damage });
    assert_eq!(seen.state().players[1].hp, hp - damage);
    assert_eq!(
        seen.state().players[0].stats.damage_dealt,
        u32::from(damage)
    );
    // The hit lies about 5.5 − 1.5 − radius along the ray.
    let expected = fx(4.0) - Rules::default().pushbox_radius;
    assert!(
        (shot.distance - expected).abs() < fx(0.05),
        "{}",
        shot.distance
    );

    let mut now = branch(&world);
    let shot = shot_of(&rail_tick(&mut now, view(0, 0), 127));
    assert!(
        matches!(shot.target, ShotTarget::Tile { x: 8, y: 4 }),
        "{shot:?}"
    );
    assert_eq!(shot.outcome, ShotOutcome::Blocked);
    assert_eq!(now.state().players[1].hp, hp);
}

/// The charge is spent when the shot is accepted, hit or miss, and the cooldown holds off a
/// second press.
#[test]
fn a_charge_is_spent_on_acceptance_hit_or_miss() {
    let (world, _) = crossing();
    let mut w = branch(&world);
    let full = w.state().players[0].rail_charges;
    let shot = shot_of(&rail_tick(&mut w, view(0, 0), 0));
    assert_eq!(shot.outcome, ShotOutcome::Blocked);
    assert_eq!(w.state().players[0].rail_charges, full - 1);
    idle_tick(&mut w, 0);
    let again = rail_tick(&mut w, view(0, 0), 0);
    assert!(
        !again.iter().any(|k| matches!(k, EventKind::RailShot(_))),
        "cooling down"
    );
    assert_eq!(w.state().players[0].rail_charges, full - 1);
}

/// A view before the window is clamped to the oldest pose kept, one after now to now, and the
/// record says which.
#[test]
fn views_beyond_the_window_are_clamped_and_recorded() {
    let (world, _) = crossing();
    let window = Rules::default().pose_history_ticks;
    let mut old = branch(&world);
    let shot = shot_of(&rail_tick(&mut old, view(200, 17), 127));
    assert_eq!(
        (shot.clamp, shot.used),
        (ViewClamp::TooOld, view(window, 0))
    );
    assert_eq!(shot.requested, view(200, 17));
    let mut future = branch(&world);
    let shot = shot_of(&rail_tick(&mut future, view(0, 200), 127));
    assert_eq!((shot.clamp, shot.used), (ViewClamp::Future, view(0, 0)));
}

/// Replaces player `slot`'s whole history with one pose (a crafted world for geometry tests).
fn set_history(world: &mut World, slot: usize, pos: FxVec, radius: Fx, generation: u32) {
    let mut snap = world.snapshot();
    let depth = snap.pose_history.samples.len() / snap.players.len();
    for s in &mut snap.pose_history.samples[slot * depth..(slot + 1) * depth] {
        *s = PoseSample {
            pos,
            radius,
            generation,
            flags: engine::pose_flags::ALIVE,
            reserved: [0; 3],
        };
    }
    world.restore(&snap).expect("crafted history is valid");
}

/// At equal distances along the ray an occluder beats a player: the wall at x = 5 and a
/// hitbox of radius 0.5 centred at x = 5.5 are both met at exactly 3.5 tiles.
#[test]
fn occluder_beats_target_at_equal_distance() {
    let rows = [
        "#########",
        "#.......#",
        "#.......#",
        "#.......#",
        "#....#..#",
        "#.......#",
        "#.......#",
        "#.......#",
        "#########",
    ];
    let mut world = arena(&rows, &[(1, 4), (6, 7)]);
    let generation = world.state().players[1].generation;
    set_history(&mut world, 1, centre(5, 4), fx(0.5), generation);
    let shot = world.rail_trace(0, view(0, 0));
    assert_eq!(shot.target, ShotTarget::Tile { x: 5, y: 4 });
    let wall_distance = shot.distance;
    assert!((wall_distance - fx(3.5)).abs() < fx(1.0 / 256.0));
    // Without the wall the same hitbox is met at the same distance.
    let mut open = arena(&ROOM, &[(1, 4), (6, 7)]);
    set_history(&mut open, 1, centre(5, 4), fx(0.5), generation);
    let shot = open.rail_trace(0, view(0, 0));
    assert_eq!(shot.target, ShotTarget::Player { id: 1, generation });
    assert_eq!(shot.distance, wall_distance, "a true tie");
}

/// A target that was down at the view time is not in the way: the ray passes where it lay.
#[test]
fn a_target_down_at_the_view_time_is_passed_through() {
    let mut world = arena(&ROOM, &[(1, 4), (6, 7)]);
    let generation = world.state().players[1].generation;
    set_history(&mut world, 1, centre(5, 4), fx(0.5), generation);
    let standing = world.rail_trace(0, view(0, 0));
    assert_eq!(standing.target, ShotTarget::Player { id: 1, generation });
    let mut snap = world.snapshot();
    for s in &mut snap.pose_history.samples {
        if s.pos == centre(5, 4) {
            s.flags &= !engine::pose_flags::ALIVE;
        }
    }
    world.restore(&snap).expect("restore");
    let down = world.rail_trace(0, view(0, 0));
    assert!(
        matches!(down.target, ShotTarget::Tile { .. }),
        "{:?}",
        down.target
    );
    assert_eq!(down.outcome, ShotOutcome::Blocked);
}

/// Two hitboxes met at the same distance: the lower stable id wins, whichever side each is on.
#[test]
fn lower_id_wins_at_equal_distance() {
    for (above, below) in [(1usize, 2usize), (2, 1)] {
        let mut world = arena(&ROOM, &[(1, 4), (6, 7), (7, 7)]);
        let off = |dy: f64| FxVec::new(fx(5.5), fx(4.5 + dy));
        let gen = |w: &World, s: usize| w.state().players[s].generation;
        let (ga, gb) = (gen(&world, above), gen(&world, below));
        set_history(&mut world, above, off(-0.25), fx(0.5), ga);
        set_history(&mut world, below, off(0.25), fx(0.5), gb);
        let shot = world.rail_trace(0, view(0, 0));
        let generation = gen(&world, 1);
        assert_eq!(shot.target, ShotTarget::Player { id: 1, generation });
    }
}

/// A hitbox from a life that has ended is never damaged through: the target respawned (new
/// generation) since the moment the shooter saw.
#[test]
fn a_respawned_target_is_not_hit_through_its_previous_life() {
    let (world, back) = crossing();
    let mut snap = world.snapshot();
    let old = snap.players[1].generation;
    snap.players[1].generation = old.wrapping_add(1);
    let mut respawned = World::from_snapshot(Rules::default(), &snap).expect("restore");
    let hp = respawned.state().players[1].hp;
    let shot = shot_of(&rail_tick(&mut respawned, view(back, 0), 0));
    assert_eq!(
        shot.target,
        ShotTarget::Player {
            id: 1,
            generation: old
        }
    );
    assert_eq!(shot.outcome, ShotOutcome::StaleLife);
    assert_eq!(respawned.state().players[1].hp, hp);
}

/// A real respawn (a round reset) cuts the history: a view across it takes a real sample of
/// one life or the other, never a blend of the two positions.
#[test]
fn a_round_reset_marks_a_discontinuity() {
    let rules = Rules {
        round_end_ticks: 1,
        round_start_ticks: 0,
        ..Rules::default()
    };
    let mut world = World::new(rules, 5, 2).expect("world");
    let mut snap = world.snapshot();
    snap.round.phase = engine::RoundPhase::Fighting;
    snap.players[1].hp = 0;
    snap.players[1].action = engine::Action::Ko;
    // Knocked out away from its spawn corner, so the respawn is a jump as well.
    snap.players[1].pos = snap.players[0].pos;
    let rules = world.rules().clone();
    snap.pose_history.reset(
        &snap.players,
        rules.pushbox_radius,
        rules.pose_history_ticks,
    );
    world.restore(&snap).expect("restore");
    let before = world.state().players[1].pos;
    let mut cut_seen = false;
    for _ in 0..5 {
        let tick = world.tick();
        world
            .step(&[InputCmd::idle(tick), InputCmd::idle(tick)])
            .expect("step");
        if world.state().round.round == 2 {
            let now = world.tick();
            let history = &world.state().pose_history;
            let newest = history.pose_at(1, now, view(0, 0), 12);
            assert_ne!(newest.pose.pos, before, "respawned elsewhere");
            cut_seen = newest.pose.cut();
            for frac in [1, 127, 128, 255] {
                let between = history.pose_at(1, now, view(1, frac), 12).pose.pos;
                assert!(
                    between == newest.pose.pos || between == before,
                    "no invented pose across the respawn: {between:?}"
                );
            }
            break;
        }
    }
    assert!(cut_seen, "the respawn sample is marked as a discontinuity");
}

/// The rewind query is a pure read: the state (and its hash) is unchanged by it.
#[test]
fn the_query_leaves_the_state_unchanged() {
    let (world, back) = crossing();
    let before = (world.snapshot(), world.state_hash());
    for v in [
        view(back, 0),
        view(0, 0),
        view(255, 255),
        view(0, 255),
        view(3, 77),
    ] {
        let _ = world.rail_trace(0, v);
        let _ = world.rail_trace(1, v);
    }
    assert_eq!((world.snapshot(), world.state_hash()), before);
}

/// Two players rail each other on the same tick with lethal damage: both shots were accepted
/// before either resolved, so both resolve — a double KO, which is a draw.
#[test]
fn an_accepted_shot_resolves_even_if_its_shooter_is_knocked_out_that_tick() {
    let mut world = arena(&ROOM, &[(1, 4), (6, 4)]);
    let mut snap = world.snapshot();
    for p in &mut snap.players {
        p.hp = 5;
    }
    world.restore(&snap).expect("restore");
    let tick = world.tick();
    let fire = InputCmd {
        buttons: buttons::RAIL,
        ..InputCmd::idle(tick)
    };
    let events: Vec<EventKind> = world
        .step(&[fire, fire])
        .expect("step")
        .iter()
        .map(|e| e.kind)
        .collect();
    let outcomes: Vec<(u8, ShotOutcome)> = events
        .iter()
        .filter_map(|k| match k {
            EventKind::RailShot(s) => Some((s.shooter, s.outcome)),
            _ => None,
        })
        .collect();
    let hit = ShotOutcome::Hit { damage: 5 };
    assert_eq!(outcomes, vec![(0, hit), (1, hit)]);
    assert!(events.contains(&EventKind::RoundWon {
        round: 1,
        winner: None
    }));
    for p in &world.state().players {
        assert_eq!(p.stats.damage_dealt, 5, "credited to the shooter's id");
    }
}

/// The pose history is part of the closure: a fresh world restored from the snapshot judges
/// the rewound shot exactly as the uninterrupted one does, and a snapshot whose history was
/// replaced by the present poses judges it differently.
#[test]
fn pose_history_is_part_of_the_snapshot_closure() {
    let (mut world, back) = crossing();
    let snapshot = world.snapshot();
    let mut fresh = World::from_snapshot(Rules::default(), &snapshot).expect("restore");
    let uninterrupted = shot_of(&rail_tick(&mut world, view(back, 0), 127));
    let restored = shot_of(&rail_tick(&mut fresh, view(back, 0), 127));
    assert_eq!(restored, uninterrupted);
    assert_eq!(fresh.snapshot(), world.snapshot());
    assert!(matches!(uninterrupted.outcome, ShotOutcome::Hit { .. }));

    let mut broken = snapshot.clone();
    let rules = Rules::default();
    broken.pose_history.reset(
        &broken.players,
        rules.pushbox_radius,
        rules.pose_history_ticks,
    );
    let mut without = World::from_snapshot(Rules::default(), &broken).expect("restore");
    let shot = shot_of(&rail_tick(&mut without, view(back, 0), 127));
    assert_eq!(shot.outcome, ShotOutcome::Blocked, "{shot:?}");
}

/// A bot match whose every input carries an arbitrary view: rail shots of every clamp kind
/// happen, hits among them, and a fresh world restored every 50 ticks replays every shot
/// record and every state byte for byte.
#[test]
fn bot_match_with_arbitrary_views_replays_every_shot() {
    use engine::{Bot, DetRng};
    let rules = Rules {
        rounds_to_win: 9,
        ..Rules::default()
    };
    let mut world = World::new(rules.clone(), 31, 2).expect("world");
    let mut bots = [Bot::new(0, 7), Bot::new(1, 8)];
    let mut rng = DetRng::from_seed(99);
    let mut inputs = Vec::new();
    let mut states = vec![world.snapshot()];
    let mut shots = Vec::new();
    for _ in 0..4000 {
        let mut tick_inputs = vec![bots[0].think(&world), bots[1].think(&world)];
        for input in &mut tick_inputs {
            input.view_ticks = rng.below(16) as u8;
            input.view_frac = rng.below(256) as u8;
            if rng.below(5) == 0 {
                input.buttons |= buttons::RAIL;
            }
        }
        for e in world.step(&tick_inputs).expect("step") {
            if let EventKind::RailShot(s) = e.kind {
                shots.push((e.tick, s));
            }
        }
        inputs.push(tick_inputs);
        states.push(world.snapshot());
    }
    let kinds = |c: ViewClamp| shots.iter().filter(|(_, s)| s.clamp == c).count();
    let counts = [ViewClamp::None, ViewClamp::TooOld, ViewClamp::Future].map(kinds);
    assert!(counts.iter().all(|&n| n > 0), "{counts:?}");
    assert!(
        shots
            .iter()
            .any(|(_, s)| matches!(s.outcome, ShotOutcome::Hit { .. })),
        "{} shots, none hit",
        shots.len()
    );
    for k in (0..inputs.len()).step_by(50) {
        let mut replay = World::from_snapshot(rules.clone(), &states[k]).expect("restore");
        for (t, tick_inputs) in inputs.iter().enumerate().skip(k) {
            for e in replay.step(tick_inputs).expect("step") {
                if let EventKind::RailShot(s) = e.kind {
                    assert!(
                        shots.contains(&(e.tick, s)),
                        "shot at tick {} differs",
                        e.tick
                    );
                }
            }
            assert_eq!(
                replay.state().to_bytes(),
                states[t + 1].to_bytes(),
                "tick {}",
                t + 1
            );
        }
    }
}
