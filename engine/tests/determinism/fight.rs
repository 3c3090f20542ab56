//! Fairness of the fight: a melee string can be escaped, and hit-stop freezes both fighters
//! equally, so it changes the feel of a hit but not who acts first afterwards.

use crate::common::{arena, ROOM};
use engine::HitboxHistory;
use engine::{buttons, stick_towards, Action, EventKind, InputCmd, Rules, World};

/// Two fighters side by side against the east wall of the room: the attacker (player 0) mashes
/// melee and chases; from tick 3 the victim (player 1) mashes melee back, facing it. Returns the
/// hits each landed in `ticks` ticks.
fn exchange(rules: &Rules, ticks: u32) -> [u32; 2] {
    let mut world = World::new(rules.clone(), 99, 2).expect("world");
    let mut snap = world.snapshot();
    let arena = arena(&ROOM, &[(6, 4), (7, 4)]).snapshot();
    snap.maze = arena.maze.clone();
    snap.round = arena.round;
    for (p, placed) in snap.players.iter_mut().zip(&arena.players) {
        p.pos = placed.pos;
    }
    snap.pose_history.reset(
        &snap.players,
        rules.pushbox_radius,
        rules.pose_history_ticks,
    );
    world.restore(&snap).expect("restore");
    let mut hits = [0; 2];
    for t in 0..ticks {
        let tick = world.tick();
        let ps = world.state().players.clone();
        let press = |on: bool| if on { buttons::MELEE } else { 0 };
        let toward = |from: usize, to: usize| stick_towards(ps[to].pos - ps[from].pos);
        let (ax, ay) = toward(0, 1);
        let (vx, vy) = toward(1, 0);
        let attacker = InputCmd {
            buttons: press(t % 2 == 0),
            move_x: ax,
            move_y: ay,
            ..InputCmd::idle(tick)
        };
        let victim = InputCmd {
            buttons: press(t % 2 == 1 && t > 2),
            move_x: vx,
            move_y: vy,
            ..InputCmd::idle(tick)
        };
        for e in world.step(&[attacker, victim]).expect("step") {
            if let EventKind::Hit { attacker, .. } = e.kind {
                hits[usize::from(attacker)] += 1;
            }
        }
    }
    hits
}

/// Contract: with the shipped rules a victim caught by a melee string recovers in time to
/// swing back before the next hit; with the old hitstun (20, the whole 5 + 3 + 12 swing) the
/// attacker could loop it to a KO without the victim ever acting.
#[test]
fn a_melee_string_can_be_escaped() {
    let rules = Rules::default();
    let [attacker, victim] = exchange(&rules, 600);
    assert!(
        attacker >= 1 && victim >= 1,
        "both land hits: {attacker} / {victim}"
    );
    let old = Rules {
        melee_hitstun: 20,
        ..Rules::default()
    };
    assert_eq!(
        exchange(&old, 600)[1],
        0,
        "the old hitstun was an inescapable loop"
    );
    // The frame data behind it: after a hit on the first active frame the victim is free
    // `recovery + active - 1 + startup - hitstun` ticks before the next swing is active.
    let window = rules.melee_recovery + rules.melee_active - 1 + rules.melee_startup;
    assert!(
        rules.melee_hitstun + rules.melee_startup < window + 1,
        "room to swing back"
    );
}

/// Contract: hit-stop freezes attacker and victim for the same ticks — their timers stand
/// still and neither moves — while the rest of the world goes on.
#[test]
fn hit_stop_freezes_both_fighters_equally() {
    let rules = Rules::default();
    let mut world = arena(&ROOM, &[(6, 4), (7, 4)]);
    let tick = world.tick();
    let swing = InputCmd {
        buttons: buttons::MELEE,
        ..InputCmd::idle(tick)
    };
    world.step(&[swing, InputCmd::idle(tick)]).expect("step");
    let mut hit_at = None;
    for _ in 0..20 {
        let tick = world.tick();
        let events = world
            .step(&[InputCmd::idle(tick), InputCmd::idle(tick)])
            .expect("step");
        if events
            .iter()
            .any(|e| matches!(e.kind, EventKind::Hit { .. }))
        {
            hit_at = Some(world.tick());
            break;
        }
    }
    assert!(hit_at.is_some(), "the swing connected");
    let frozen = world.state().players.clone();
    assert!(frozen.iter().all(|p| p.hitstop == rules.melee_hitstop));
    assert_eq!(frozen[1].action, Action::Hitstun);
    for _ in 0..rules.melee_hitstop {
        let tick = world.tick();
        world
            .step(&[InputCmd::idle(tick), InputCmd::idle(tick)])
            .expect("step");
    }
    let after = world.state().players.clone();
    for (p, q) in frozen.iter().zip(&after) {
        assert_eq!((p.pos, p.action_timer), (q.pos, q.action_timer), "frozen");
        assert_eq!(q.hitstop, 0);
    }
    let tick = world.tick();
    world
        .step(&[InputCmd::idle(tick), InputCmd::idle(tick)])
        .expect("step");
    let moving = &world.state().players;
    assert_ne!(
        moving[1].pos, after[1].pos,
        "the knockback starts once the stop ends"
    );
    assert_eq!(moving[1].action_timer, after[1].action_timer - 1);
}
