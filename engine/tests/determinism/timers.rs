//! The timers and action phases at their boundaries (found by mutation testing of `step.rs`):
//! the stick's deadzone, Idle and Move only while fighting, a swing with no recovery frames,
//! the rail's recharge (one charge at a time up to the rule's number, never past it, even from
//! a restored state that is already full) and the reload button's conditions.

use crate::common::{arena_with, centre, step_p0, ROOM};
use engine::{buttons, Action, EventKind, RoundPhase, Rules, World};

/// `rules`, on the open room, player 0 at (4, 4) and player 1 far away at (1, 1).
fn room(rules: &Rules) -> World {
    arena_with(rules, &ROOM, &[(4, 4), (1, 1)])
}

#[test]
fn a_stick_inside_the_deadzone_does_not_move_a_player() {
    let rules = Rules::default();
    let dz = i8::try_from(rules.stick_deadzone).expect("small");
    let mut world = room(&rules);
    let start = world.state().players[0].pos;
    // At the deadzone exactly, along an axis and on a diagonal of the same length (17² + 17²
    // rounds down to 24²).
    for (x, y) in [(dz, 0), (0, -dz), (17, 17), (-17, 17)] {
        for _ in 0..10 {
            step_p0(&mut world, 0, x, y);
        }
        assert_eq!(world.state().players[0].pos, start, "stick ({x}, {y})");
    }
    step_p0(&mut world, 0, dz + 1, 0);
    assert!(
        world.state().players[0].pos.x > start.x,
        "one past the deadzone moves"
    );
}

#[test]
fn with_no_recovery_frames_a_swing_ends_after_its_active_frames() {
    let rules = Rules {
        melee_recovery: 0,
        ..Rules::default()
    };
    let mut world = room(&rules);
    step_p0(&mut world, buttons::MELEE, 0, 0);
    assert_eq!(world.state().players[0].action, Action::MeleeStartup);
    for _ in 0..(rules.melee_startup + rules.melee_active) {
        step_p0(&mut world, 0, 0, 0);
    }
    let p = &world.state().players[0];
    assert_eq!((p.action, p.action_timer), (Action::Idle, 0));
    step_p0(&mut world, buttons::MELEE, 0, 0);
    assert_eq!(
        world.state().players[0].action,
        Action::MeleeStartup,
        "free to swing again"
    );
    assert_eq!(world.state().players[0].pos, centre(4, 4));
}

#[test]
fn rail_charges_come_back_one_at_a_time_up_to_the_rule_and_no_further() {
    let rules = Rules {
        rail_charges: 3,
        rail_recharge_ticks: 10,
        ..Rules::default()
    };
    let mut snap = room(&rules).snapshot();
    snap.players[0].rail_charges = 0;
    snap.players[0].rail_recharge = 1;
    let mut world = World::new(rules.clone(), 99, 2).expect("world");
    world.restore(&snap).expect("restore");
    let mut seen = Vec::new();
    for _ in 0..40 {
        step_p0(&mut world, 0, 0, 0);
        let p = &world.state().players[0];
        seen.push((p.rail_charges, p.rail_recharge));
    }
    assert_eq!(seen[0], (1, 10), "the first charge back restarts the timer");
    assert_eq!(seen[10], (2, 10), "and so does the second");
    assert_eq!(seen[20], (3, 0), "full: the timer stops");
    assert_eq!(seen[39], (3, 0), "and stays stopped");
    // A restored state that is full but still counting down (reachable only by hand) does
    // not overfill.
    snap.players[0].rail_charges = rules.rail_charges;
    snap.players[0].rail_recharge = 1;
    let mut world = World::new(rules.clone(), 99, 2).expect("world");
    world.restore(&snap).expect("restore");
    step_p0(&mut world, 0, 0, 0);
    let p = &world.state().players[0];
    assert_eq!((p.rail_charges, p.rail_recharge), (3, 0));
}

#[test]
fn a_fighter_moves_only_while_fighting_and_stands_idle_without_a_stick() {
    let rules = Rules::default();
    let mut world = room(&rules);
    step_p0(&mut world, 0, 0, 0);
    assert_eq!(world.state().players[0].action, Action::Idle, "no stick");
    step_p0(&mut world, 0, 127, 0);
    assert_eq!(world.state().players[0].action, Action::Move, "stick");
    // The same stick during a countdown: the fighter stands.
    let mut snap = room(&rules).snapshot();
    snap.round.phase = RoundPhase::Countdown;
    snap.round.phase_timer = 30;
    let mut counting = World::new(rules.clone(), 99, 2).expect("world");
    counting.restore(&snap).expect("restore");
    step_p0(&mut counting, 0, 127, 0);
    let p = &counting.state().players[0];
    assert_eq!((p.action, p.pos), (Action::Idle, centre(4, 4)));
}

/// Reload on demand starts only with ammo missing and no reload under way, and a reload under
/// way is not restarted by pressing again.
#[test]
fn the_reload_button_starts_a_reload_only_when_one_is_needed_and_none_runs() {
    let rules = Rules::default();
    let started = |world: &mut World, ammo: u16, timer: u16| {
        let mut snap = world.snapshot();
        snap.players[0].ammo = ammo;
        snap.players[0].reload_timer = timer;
        let mut fresh = World::new(rules.clone(), 99, 2).expect("world");
        fresh.restore(&snap).expect("restore");
        let tick = fresh.tick();
        let mut inputs = vec![engine::InputCmd::idle(tick); 2];
        inputs[0].buttons = buttons::RELOAD;
        let events = fresh.step(&inputs).expect("step");
        let reloading = events
            .iter()
            .any(|e| matches!(e.kind, EventKind::ReloadStarted { player: 0 }));
        (reloading, fresh.state().players[0].reload_timer)
    };
    let mut world = room(&rules);
    assert_eq!(started(&mut world, rules.magazine, 0), (false, 0), "full");
    assert_eq!(
        started(&mut world, rules.magazine - 1, 0),
        (true, rules.reload_ticks),
        "one missing"
    );
    assert_eq!(
        started(&mut world, 0, 0),
        (true, rules.reload_ticks),
        "empty"
    );
    assert_eq!(
        started(&mut world, 2, 30),
        (false, 29),
        "already reloading: it runs on"
    );
}
