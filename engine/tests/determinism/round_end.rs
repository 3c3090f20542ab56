//! How a round is decided (docs/the-game.md, on rounds): at the time limit the player with more hit points
//! wins it, equal hit points are a draw; a double KO is a draw (`rail.rs` covers the rail case,
//! this the projectile case).

use crate::common::{arena, idle, ROOM};
use engine::{EventKind, PlayerId, Rules, World};

/// Steps until the round is decided (at most `limit` ticks) and returns its winner.
fn decision(world: &mut World, limit: u32) -> Option<PlayerId> {
    for _ in 0..limit {
        idle(world, 1);
        for e in world.events() {
            if let EventKind::RoundWon { round: 1, winner } = e.kind {
                return winner;
            }
        }
    }
    panic!("round 1 was not decided within {limit} ticks");
}

/// A fighting world 3 ticks before the time limit, with these hit points.
fn near_the_limit(hp: [u16; 2]) -> World {
    let mut world = arena(&ROOM, &[(1, 4), (6, 4)]);
    let mut snap = world.snapshot();
    snap.round.phase_timer = Rules::default().round_time_limit - 3;
    for (p, hp) in snap.players.iter_mut().zip(hp) {
        p.hp = hp;
    }
    world.restore(&snap).expect("restore");
    world
}

#[test]
fn at_the_time_limit_more_hit_points_win_the_round() {
    assert_eq!(decision(&mut near_the_limit([40, 70]), 10), Some(1));
    assert_eq!(decision(&mut near_the_limit([70, 40]), 10), Some(0));
}

#[test]
fn at_the_time_limit_equal_hit_points_are_a_draw() {
    let mut world = near_the_limit([55, 55]);
    assert_eq!(decision(&mut world, 10), None);
    assert_eq!(world.state().round.wins, [0; 4], "nobody scores");
}

#[test]
fn a_double_ko_by_crossing_projectiles_is_a_draw() {
    // Each fires at the other on the same tick; both shots land on the same tick and each
    // takes the last hit points.
    let mut world = arena(&ROOM, &[(1, 4), (6, 4)]);
    let mut snap = world.snapshot();
    for p in &mut snap.players {
        p.hp = 1;
    }
    snap.players[1].aim = engine::FxVec::new(engine::Fx::from_num(-1), engine::Fx::from_num(0));
    world.restore(&snap).expect("restore");
    let tick = world.tick();
    let fire = engine::InputCmd {
        buttons: engine::buttons::SHOOT,
        ..engine::InputCmd::idle(tick)
    };
    world.step(&[fire, fire]).expect("step");
    let mut kos = 0;
    let mut winner = Some(PlayerId::MAX);
    for _ in 0..60 {
        idle(&mut world, 1);
        for e in world.events() {
            match e.kind {
                EventKind::Ko { .. } => kos += 1,
                EventKind::RoundWon { winner: w, .. } => winner = w,
                _ => {}
            }
        }
        if winner != Some(PlayerId::MAX) {
            break;
        }
    }
    assert_eq!(kos, 2, "both fell");
    assert_eq!(winner, None, "a double KO is a draw");
}

/// A round after a decided one starts with its countdown, or, with no countdown in the rules,
/// fighting at once: `FightStarted` on the very tick of `RoundReset`, and only then.
#[test]
fn the_next_round_starts_fighting_at_once_only_without_a_countdown() {
    for countdown in [0u16, 60] {
        let rules = Rules {
            round_start_ticks: countdown,
            ..Rules::default()
        };
        let mut world = World::new(rules.clone(), 3, 2).expect("world");
        let mut snap = world.snapshot();
        snap.round.phase = engine::RoundPhase::Fighting;
        snap.round.phase_timer = rules.round_time_limit - 3;
        world.restore(&snap).expect("restore");
        let limit = 3 + u32::from(rules.round_end_ticks) + 2;
        let kinds = (0..limit)
            .find_map(|_| {
                idle(&mut world, 1);
                let kinds: Vec<EventKind> = world.events().iter().map(|e| e.kind).collect();
                kinds
                    .contains(&EventKind::RoundReset { round: 2 })
                    .then_some(kinds)
            })
            .expect("round 2 starts");
        assert_eq!(
            kinds.contains(&EventKind::FightStarted { round: 2 }),
            countdown == 0,
            "countdown {countdown}: {kinds:?}"
        );
        let fighting = world.state().round.phase == engine::RoundPhase::Fighting;
        assert_eq!(fighting, countdown == 0);
    }
}
