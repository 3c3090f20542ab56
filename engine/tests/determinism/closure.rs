//! One regression test per closure field: restoring the snapshot into a fresh world carries
//! the field (the replay equals the uninterrupted run), and a snapshot with that field left at
//! its default changes what happens next (so the field really is part of the future). The
//! fields the step only writes (`last_winner`, `round_seed`, `stats`) cannot change the future;
//! their tests prove restore and the hash carry them and that changing them changes nothing else.

use crate::common::{arena, centre, cmd, idle, step_p0, MELEE, ROOM, SHOOT};
use engine::{
    Action, DetRng, Event, EventKind, Fx, FxVec, InputCmd, Player, RoundPhase, Rules, Tile, World,
    WorldSnapshot,
};

/// What a run produced: its final state and every event.
#[derive(Debug)]
struct Outcome {
    state: WorldSnapshot,
    events: Vec<Event>,
}

/// A per-tick script: inputs for every player as `(buttons, x, y)`.
type Script = Vec<Vec<(u8, i8, i8)>>;

fn p0_script(ticks: usize, buttons: u8, x: i8, y: i8, players: usize) -> Script {
    (0..ticks)
        .map(|_| {
            let mut row = vec![(0, 0, 0); players];
            row[0] = (buttons, x, y);
            row
        })
        .collect()
}

fn play(world: &mut World, script: &Script) -> Outcome {
    let mut events = Vec::new();
    for row in script {
        let tick = world.tick();
        let inputs: Vec<InputCmd> = row.iter().map(|&(b, x, y)| cmd(tick, b, x, y)).collect();
        events.extend_from_slice(world.step(&inputs).expect("step"));
    }
    Outcome {
        state: world.snapshot(),
        events,
    }
}

/// The closure check: continue `world` uninterrupted; replay from its snapshot in a fresh world
/// (must be identical); replay from a snapshot with the field broken (the observation must
/// differ). Returns the uninterrupted and broken observations for extra assertions.
fn check_field<T: PartialEq + std::fmt::Debug>(
    mut world: World,
    script: &Script,
    break_field: impl Fn(&mut WorldSnapshot),
    observe: impl Fn(&Outcome) -> T,
) -> (T, T) {
    let snapshot = world.snapshot();
    let uninterrupted = play(&mut world, script);
    let mut fresh = World::from_snapshot(Rules::default(), &snapshot).expect("restore");
    let restored = play(&mut fresh, script);
    assert_eq!(
        restored.state, uninterrupted.state,
        "restore did not carry the state"
    );
    assert_eq!(
        restored.events, uninterrupted.events,
        "restore did not carry the events"
    );
    let mut broken = snapshot.clone();
    break_field(&mut broken);
    let mut fresh = World::from_snapshot(Rules::default(), &broken).expect("restore broken");
    let broken_run = play(&mut fresh, script);
    let (good, bad) = (observe(&uninterrupted), observe(&broken_run));
    assert_ne!(
        good, bad,
        "leaving the field out changed nothing observable"
    );
    (good, bad)
}

fn shots(o: &Outcome) -> Vec<u32> {
    o.events
        .iter()
        .filter(|e| matches!(e.kind, EventKind::ShotFired { .. }))
        .map(|e| e.tick)
        .collect()
}

fn count(o: &Outcome, pred: impl Fn(&EventKind) -> bool) -> usize {
    o.events.iter().filter(|e| pred(&e.kind)).count()
}

fn p0(world: &World) -> Player {
    world.state().players[0]
}

const FAR: (u32, u32) = (7, 7);

/// The seed article's bug: move left at t, release and shoot at t+1, roll back to t: the shot
/// must still fly left although the stick is centred.
#[test]
fn aim_persists_while_idle() {
    let mut world = arena(&ROOM, &[(4, 4), FAR]);
    step_p0(&mut world, 0, -127, 0); // tick t: move left
    let (good, bad) = check_field(
        world,
        &p0_script(1, SHOOT, 0, 0, 2), // tick t+1: stick released, shoot
        |s| s.players[0].aim = FxVec::default(),
        |o| o.state.projectiles.first().map(|p| p.vel.x.signum()),
    );
    assert_eq!(good, Some(Fx::from_num(-1)), "the shot flies left");
    assert_ne!(bad, good);
}

#[test]
fn shot_cooldown() {
    let mut world = arena(&ROOM, &[(4, 4), FAR]);
    step_p0(&mut world, SHOOT, 0, 0);
    assert!(p0(&world).shot_cooldown > 0);
    let (good, bad) = check_field(
        world,
        &p0_script(12, SHOOT, 0, 0, 2),
        |s| s.players[0].shot_cooldown = 0,
        shots,
    );
    assert_eq!(
        good.len(),
        1,
        "one more shot once the cooldown has run out: {good:?}"
    );
    assert_eq!(bad.len(), 2, "{bad:?}");
}

#[test]
fn ammo() {
    let mut world = arena(&ROOM, &[(4, 4), FAR]);
    for _ in 0..5 {
        step_p0(&mut world, SHOOT, 0, 0);
        idle(&mut world, 10);
    }
    assert_eq!(p0(&world).ammo, 1);
    let (good, bad) = check_field(
        world,
        &p0_script(40, SHOOT, 0, 0, 2),
        |s| s.players[0].ammo = 0,
        |o| shots(o).len(),
    );
    assert_eq!((good, bad), (1, 0));
}

#[test]
fn reload_timer() {
    let mut world = arena(&ROOM, &[(4, 4), FAR]);
    for _ in 0..6 {
        step_p0(&mut world, SHOOT, 0, 0);
        idle(&mut world, 10);
    }
    assert!(p0(&world).ammo == 0 && p0(&world).reload_timer > 0);
    let (good, bad) = check_field(
        world,
        &p0_script(80, SHOOT, 0, 0, 2),
        |s| s.players[0].reload_timer = 0,
        |o| shots(o).len(),
    );
    assert!(
        good > bad,
        "an early finished reload shoots more: {good} vs {bad}"
    );
}

#[test]
fn melee_action_timer() {
    let mut world = arena(&ROOM, &[(3, 4), (4, 4)]);
    step_p0(&mut world, MELEE, 0, 0);
    step_p0(&mut world, 0, 0, 0);
    assert_eq!(p0(&world).action, Action::MeleeStartup);
    let hits = |o: &Outcome| count(o, |k| matches!(k, EventKind::Hit { .. }));
    let (good, bad) = check_field(
        world,
        &p0_script(30, 0, 0, 0, 2),
        |s| s.players[0].action_timer = 0,
        hits,
    );
    assert_eq!((good, bad), (1, 0));
}

#[test]
fn action_state() {
    let mut world = arena(&ROOM, &[(3, 4), (4, 4)]);
    step_p0(&mut world, MELEE, 0, 0);
    let hits = |o: &Outcome| count(o, |k| matches!(k, EventKind::Hit { .. }));
    let (good, bad) = check_field(
        world,
        &p0_script(30, 0, 0, 0, 2),
        |s| s.players[0].action = Action::Idle,
        hits,
    );
    assert_eq!((good, bad), (1, 0));
}

#[test]
fn hitstun_timer() {
    let mut world = arena(&ROOM, &[(3, 4), (4, 4)]);
    step_p0(&mut world, MELEE, 0, 0);
    while world.state().players[1].action != Action::Hitstun {
        step_p0(&mut world, 0, 0, 0);
    }
    // The victim tries to walk down while in hitstun.
    let script: Script = (0..40).map(|_| vec![(0, 0, 0), (0, 0, 127)]).collect();
    check_field(
        world,
        &script,
        |s| s.players[1].action_timer = 0,
        |o| o.state.players[1].pos,
    );
}

#[test]
fn projectile_life() {
    let mut world = arena(&ROOM, &[(1, 4), FAR]);
    step_p0(&mut world, SHOOT, 0, 0);
    assert_eq!(world.state().projectiles.len(), 1);
    let wall_hits = |o: &Outcome| count(o, |k| matches!(k, EventKind::WallHit { .. }));
    let (good, bad) = check_field(
        world,
        &p0_script(40, 0, 0, 0, 2),
        |s| s.projectiles[0].life = 1,
        wall_hits,
    );
    assert_eq!((good, bad), (1, 0));
}

#[test]
fn projectile_velocity_and_position() {
    let mut world = arena(&ROOM, &[(1, 4), FAR]);
    step_p0(&mut world, SHOOT, 0, 0);
    check_field(
        world.clone(),
        &p0_script(3, 0, 0, 0, 2),
        |s| s.projectiles[0].vel = FxVec::default(),
        |o| o.state.projectiles.first().map(|p| p.pos),
    );
    check_field(
        world,
        &p0_script(3, 0, 0, 0, 2),
        |s| {
            // Moved, its wall count must be recounted (0: unknown) or the snapshot is refused.
            s.projectiles[0].pos = centre(4, 1);
            s.projectiles[0].wall_clear = 0;
        },
        |o| o.state.projectiles.first().map(|p| p.pos),
    );
}

/// A projectile's wall count (how many steps it is sure to meet no wall) only spares the wall
/// walk: restore and the hash carry it, and a snapshot with every count at 0 (unknown) plays
/// the same future, events and state alike once the counts are put back. So it is a record in
/// the sense of `check_record_field` although the step reads it (to skip work, not to decide).
#[test]
fn projectile_wall_counts_are_carried_and_change_nothing_else() {
    let mut world = arena(&ROOM, &[(1, 4), FAR]);
    step_p0(&mut world, SHOOT, 0, 0);
    step_p0(&mut world, 0, 0, 0);
    let counted = world.state().projectiles[0].wall_clear;
    assert!(
        counted > 1,
        "a shot across the room is clear for a while ({counted})"
    );
    check_record_field(
        world,
        &p0_script(12, 0, 0, 0, 2),
        |s| s.projectiles[0].wall_clear = 0,
        |good, other| {
            for (o, g) in other.projectiles.iter_mut().zip(&good.projectiles) {
                o.wall_clear = g.wall_clear;
            }
        },
    );
}

const BLOCK_ROOM: [&str; 9] = [
    "#########",
    "#.......#",
    "#.......#",
    "#.......#",
    "#.....3.#",
    "#.......#",
    "#.......#",
    "#.......#",
    "#########",
];

#[test]
fn maze_damage() {
    let mut world = arena(&BLOCK_ROOM, &[(1, 4), FAR]);
    for _ in 0..2 {
        step_p0(&mut world, SHOOT, 0, 0);
        idle(&mut world, 30);
    }
    assert_eq!(world.state().maze.get(6, 4), Tile::block(1));
    let broken_blocks = |o: &Outcome| count(o, |k| matches!(k, EventKind::BlockBroken { .. }));
    let mut script = p0_script(1, SHOOT, 0, 0, 2);
    script.extend(p0_script(30, 0, 0, 0, 2));
    let (good, bad) = check_field(
        world,
        &script,
        |s| s.maze.tiles[4 * 9 + 6] = Tile::block(3), // as a regenerated-from-seed maze would be
        broken_blocks,
    );
    assert_eq!((good, bad), (1, 0));
}

#[test]
fn rng_state() {
    let mut world = arena(&ROOM, &[(4, 4), FAR]);
    step_p0(&mut world, SHOOT, 0, 0);
    idle(&mut world, 10);
    check_field(
        world,
        &p0_script(1, SHOOT, 0, 0, 2),
        |s| s.rng = DetRng::from_seed(s.match_seed),
        |o| o.state.projectiles.last().map(|p| p.vel),
    );
}

#[test]
fn previous_buttons_for_press_edges() {
    let mut world = arena(&ROOM, &[(4, 4), FAR]);
    for _ in 0..30 {
        step_p0(&mut world, MELEE, 0, 0); // pressed once, then held through the whole swing
    }
    let swings = |o: &Outcome| count(o, |k| matches!(k, EventKind::MeleeStarted { .. }));
    let (good, bad) = check_field(
        world,
        &p0_script(5, MELEE, 0, 0, 2),
        |s| s.players[0].prev_buttons = 0,
        swings,
    );
    assert_eq!((good, bad), (0, 1));
}

const POCKET: [&str; 5] = ["#####", "#...#", "#...#", "#...#", "#####"];

#[test]
fn melee_hit_mask() {
    // The victim is pinned against the east wall so it stays inside the hitbox.
    let mut world = arena(&POCKET, &[(2, 2), (3, 2)]);
    let mut snap = world.snapshot();
    snap.players[0].pos.x = Fx::from_num(3);
    snap.players[1].pos.x = Fx::from_num(3.7);
    world.restore(&snap).expect("restore");
    step_p0(&mut world, MELEE, 0, 0);
    while world.state().players[1].action != Action::Hitstun {
        step_p0(&mut world, 0, 0, 0);
    }
    assert_eq!(p0(&world).action, Action::MeleeActive);
    let hits = |o: &Outcome| count(o, |k| matches!(k, EventKind::Hit { .. }));
    let (good, bad) = check_field(
        world,
        &p0_script(20, 0, 0, 0, 2),
        |s| s.players[0].melee_hits = 0,
        hits,
    );
    assert_eq!((good, bad), (0, 1));
}

#[test]
fn next_projectile_id() {
    let mut world = arena(&ROOM, &[(4, 4), FAR]);
    step_p0(&mut world, SHOOT, 0, 0);
    idle(&mut world, 40);
    assert!(world.state().projectiles.is_empty());
    check_field(
        world,
        &p0_script(1, SHOOT, 0, 0, 2),
        |s| s.next_projectile_id = 0,
        |o| o.state.projectiles.first().map(|p| p.id),
    );
}

#[test]
fn player_velocity() {
    let mut world = arena(&ROOM, &[(2, 4), FAR]);
    for _ in 0..10 {
        step_p0(&mut world, 0, 127, 0);
    }
    check_field(
        world,
        &p0_script(2, 0, 0, 0, 2),
        |s| s.players[0].vel = FxVec::default(),
        |o| o.state.players[0].pos,
    );
}

#[test]
fn life_generation() {
    // A shot starts inside its owner's hurt circle: only the owner's generation keeps it from
    // hitting its own shooter.
    let mut world = arena(&ROOM, &[(4, 4), FAR]);
    step_p0(&mut world, SHOOT, 0, 0);
    let self_hits = |o: &Outcome| count(o, |k| matches!(k, EventKind::Hit { victim: 0, .. }));
    let (good, bad) = check_field(
        world,
        &p0_script(1, 0, 0, 0, 2),
        |s| s.players[0].generation = 0,
        self_hits,
    );
    assert_eq!((good, bad), (0, 1));
}

#[test]
fn hit_points() {
    let mut world = arena(&ROOM, &[(1, 4), (6, 4)]);
    let mut snap = world.snapshot();
    snap.players[1].hp = 5;
    world.restore(&snap).expect("restore");
    let kos = |o: &Outcome| count(o, |k| matches!(k, EventKind::Ko { .. }));
    let (good, bad) = check_field(
        world,
        &p0_script(30, SHOOT, 0, 0, 2),
        |s| s.players[1].hp = Rules::default().max_hp,
        kos,
    );
    assert_eq!((good, bad), (1, 0));
}

#[test]
fn round_score() {
    let mut world = arena(&ROOM, &[(1, 4), (6, 4)]);
    let mut snap = world.snapshot();
    snap.players[1].hp = 5;
    snap.round.wins[0] = 1;
    world.restore(&snap).expect("restore");
    let match_won = |o: &Outcome| count(o, |k| matches!(k, EventKind::MatchWon { .. }));
    let (good, bad) = check_field(
        world,
        &p0_script(30, SHOOT, 0, 0, 2),
        |s| s.round.wins = [0; 4],
        match_won,
    );
    assert_eq!((good, bad), (1, 0));
}

#[test]
fn round_phase_and_timer() {
    let mut world = arena(&ROOM, &[(1, 4), (6, 4)]);
    let mut snap = world.snapshot();
    snap.round.phase_timer = Rules::default().round_time_limit - 5; // nearly out of time
    world.restore(&snap).expect("restore");
    let decided = |o: &Outcome| count(o, |k| matches!(k, EventKind::RoundWon { .. }));
    let script = p0_script(10, 0, 0, 0, 2);
    let (good, bad) = check_field(world.clone(), &script, |s| s.round.phase_timer = 0, decided);
    assert_eq!((good, bad), (1, 0));
    check_field(
        world,
        &script,
        |s| s.round.phase = RoundPhase::Countdown,
        decided,
    );
}

#[test]
fn tick_counter() {
    let mut world = arena(&ROOM, &[(1, 4), (6, 4)]);
    idle(&mut world, 3);
    let snapshot = world.snapshot();
    let mut fresh = World::from_snapshot(Rules::default(), &snapshot).expect("restore");
    assert_eq!(fresh.tick(), world.tick());
    let mut broken = snapshot.clone();
    broken.tick = 0;
    let mut wrong = World::from_snapshot(Rules::default(), &broken).expect("restore");
    let inputs = [InputCmd::idle(world.tick()), InputCmd::idle(world.tick())];
    assert!(fresh.step(&inputs).is_ok());
    assert!(
        wrong.step(&inputs).is_err(),
        "inputs are stamped for the restored tick"
    );
}

/// A script where player 0 taps the rail (press, release) every other tick for `ticks` ticks.
fn rail_pulses(ticks: usize) -> Script {
    (0..ticks)
        .map(|t| {
            let b = if t % 2 == 0 { engine::buttons::RAIL } else { 0 };
            vec![(b, 0, 0), (0, 0, 0)]
        })
        .collect()
}

fn rail_shot_ticks(o: &Outcome) -> Vec<u32> {
    o.events
        .iter()
        .filter(|e| matches!(e.kind, EventKind::RailShot(_)))
        .map(|e| e.tick)
        .collect()
}

#[test]
fn rail_cooldown() {
    let mut world = arena(&ROOM, &[(1, 4), FAR]);
    step_p0(&mut world, engine::buttons::RAIL, 0, 0);
    assert!(p0(&world).rail_cooldown > 0);
    let (good, bad) = check_field(
        world,
        &rail_pulses(60),
        |s| s.players[0].rail_cooldown = 0,
        |o| rail_shot_ticks(o).first().copied(),
    );
    assert!(bad < good, "no cooldown fires sooner: {bad:?} vs {good:?}");
}

#[test]
fn rail_charges() {
    let mut world = arena(&ROOM, &[(1, 4), FAR]);
    for _ in 0..Rules::default().rail_charges {
        step_p0(&mut world, engine::buttons::RAIL, 0, 0);
        idle(&mut world, u32::from(Rules::default().rail_cooldown));
    }
    assert_eq!(p0(&world).rail_charges, 0);
    let (good, bad) = check_field(
        world,
        &rail_pulses(60),
        |s| s.players[0].rail_charges = Rules::default().rail_charges,
        |o| rail_shot_ticks(o).len(),
    );
    assert_eq!((good, bad), (0, 2));
}

#[test]
fn rail_recharge_timer() {
    let mut world = arena(&ROOM, &[(1, 4), FAR]);
    step_p0(&mut world, engine::buttons::RAIL, 0, 0);
    let full = Rules::default().rail_charges;
    assert_eq!(p0(&world).rail_charges, full - 1);
    assert!(p0(&world).rail_recharge > 0);
    let (good, bad) = check_field(
        world,
        &p0_script(300, 0, 0, 0, 2),
        |s| s.players[0].rail_recharge = 0,
        |o| o.state.players[0].rail_charges,
    );
    assert_eq!(
        (good, bad),
        (full, full - 1),
        "the charge comes back only on the timer"
    );
}

#[test]
fn hit_stop_timer() {
    let mut world = arena(&ROOM, &[(3, 4), (4, 4)]);
    step_p0(&mut world, MELEE, 0, 0);
    while world.state().players[1].hitstop == 0 {
        step_p0(&mut world, 0, 0, 0);
        assert!(world.tick() < 30, "the swing connects");
    }
    let (good, bad) = check_field(
        world,
        &p0_script(3, 0, 0, 0, 2),
        |s| {
            for p in &mut s.players {
                p.hitstop = 0;
            }
        },
        |o| o.state.players[1].pos,
    );
    assert_ne!(good, bad, "without the stop the knockback starts at once");
}

#[test]
fn projectile_owner_generation() {
    // A shot starts inside its owner's hurt circle: the generation it carries is what lets it
    // pass through the life that fired it.
    let mut world = arena(&ROOM, &[(4, 4), FAR]);
    step_p0(&mut world, SHOOT, 0, 0);
    assert_eq!(world.state().projectiles.len(), 1, "the shot is in flight");
    let self_hits = |o: &Outcome| count(o, |k| matches!(k, EventKind::Hit { victim: 0, .. }));
    let (good, bad) = check_field(
        world,
        &p0_script(1, 0, 0, 0, 2),
        |s| s.projectiles[0].owner_generation += 1,
        self_hits,
    );
    assert_eq!(
        (good, bad),
        (0, 1),
        "a stale generation hits its own shooter"
    );
}

/// The check for a field the step only writes (a record of what happened, never read back):
/// restore carries it and continues identically; the hash covers it (a peer that differs in
/// it is a desync); and a snapshot with the field changed plays exactly the same future —
/// every event, and the final state once the field is put back (if the script has not
/// overwritten it already) — which is why it has no
/// `check_field` test. If the step ever starts reading it, this fails: give it one then.
fn check_record_field(
    mut world: World,
    script: &Script,
    change: impl Fn(&mut WorldSnapshot),
    copy_back: impl Fn(&WorldSnapshot, &mut WorldSnapshot),
) {
    let snapshot = world.snapshot();
    let uninterrupted = play(&mut world, script);
    let bytes = WorldSnapshot::from_bytes(&snapshot.to_bytes()).expect("reads back");
    assert_eq!(bytes, snapshot, "the snapshot bytes carry the field");
    let mut fresh = World::from_snapshot(Rules::default(), &bytes).expect("restore");
    assert_eq!(*fresh.state(), snapshot, "restore carries the field");
    let restored = play(&mut fresh, script);
    assert_eq!(
        restored.state, uninterrupted.state,
        "restore did not carry the state"
    );
    assert_eq!(
        restored.events, uninterrupted.events,
        "restore did not carry the events"
    );
    let mut changed = snapshot.clone();
    change(&mut changed);
    assert_ne!(changed, snapshot, "the change is a change");
    assert_ne!(
        changed.hash().combined,
        snapshot.hash().combined,
        "the hash covers the field"
    );
    let mut fresh = World::from_snapshot(Rules::default(), &changed).expect("restore changed");
    let mut other = play(&mut fresh, script);
    assert_eq!(
        other.events, uninterrupted.events,
        "the field changed what happened"
    );
    copy_back(&uninterrupted.state, &mut other.state);
    assert_eq!(
        other.state, uninterrupted.state,
        "the field changed the state's future"
    );
}

#[test]
fn last_winner_is_a_record_carried_by_restore() {
    // Round 1 went to player 1; player 0 then takes round 2 halfway through the script, which
    // overwrites the record: the future is the same either way.
    let mut world = arena(&ROOM, &[(1, 4), (6, 4)]);
    let mut snap = world.snapshot();
    snap.round.last_winner = Some(1);
    snap.round.wins[1] = 1;
    snap.players[1].hp = 5;
    world.restore(&snap).expect("restore");
    let script = p0_script(30, SHOOT, 0, 0, 2);
    check_record_field(
        world.clone(),
        &p0_script(10, 0, 0, 0, 2),
        |s| s.round.last_winner = None,
        |good, other| other.round.last_winner = good.round.last_winner,
    );
    // Through a decision too: the round is decided by the hit points, not the record.
    let mut run = world.clone();
    let decided = play(&mut run, &script);
    assert_eq!(decided.state.round.last_winner, Some(0));
    let mut fresh = world.snapshot();
    fresh.round.last_winner = None;
    let mut other = World::from_snapshot(Rules::default(), &fresh).expect("restore");
    assert_eq!(play(&mut other, &script).events, decided.events);
}

#[test]
fn round_seed_is_a_record_carried_by_restore() {
    // The next round's maze is drawn from the world RNG, not from this record.
    let mut world = arena(&ROOM, &[(1, 4), (6, 4)]);
    let mut snap = world.snapshot();
    snap.players[1].hp = 5;
    snap.round.phase_timer = 0;
    world.restore(&snap).expect("restore");
    // The KO ends round 1 and round 2 starts (with a new seed) within the script.
    let script = p0_script(
        30 + Rules::default().round_end_ticks as usize + 2,
        SHOOT,
        0,
        0,
        2,
    );
    let mut probe = world.clone();
    let outcome = play(&mut probe, &script);
    assert!(
        outcome
            .events
            .iter()
            .any(|e| matches!(e.kind, EventKind::RoundReset { round: 2 })),
        "a new round began"
    );
    check_record_field(world, &script, |s| s.round.round_seed ^= 0x5eed, |_, _| {});
}

#[test]
fn player_stats_are_a_record_carried_by_restore() {
    // Player 0 has already shot, hit and knocked out; the totals only ever count up.
    let mut world = arena(&ROOM, &[(1, 4), (6, 4)]);
    let mut snap = world.snapshot();
    snap.players[0].stats = engine::PlayerStats {
        damage_dealt: 40,
        kos: 1,
        shots: 9,
    };
    world.restore(&snap).expect("restore");
    check_record_field(
        world,
        &p0_script(30, SHOOT, 0, 0, 2),
        |s| s.players[0].stats = engine::PlayerStats::default(),
        |good, other| {
            assert_eq!(
                other.players[0].stats.shots + 9,
                good.players[0].stats.shots,
                "counted from the restored totals"
            );
            other.players[0].stats = good.players[0].stats;
        },
    );
}
