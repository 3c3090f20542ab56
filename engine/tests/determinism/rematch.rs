//! A rematch agreed inside the match: once it is decided, each player's `REMATCH` button is
//! recorded in the state, and the tick every player has asked, the world starts a new match
//! itself (score and totals from nothing, round 1, the RNG and tick going on).

use engine::{buttons, InputCmd, RoundPhase, Rules, World};

/// A two-player world whose match player 0 wins within a few ticks (one round from the match,
/// more hit points at the time limit).
fn deciding() -> World {
    let rules = Rules::default();
    let mut world = World::new(rules.clone(), 0xD0E, 2).expect("world");
    let mut snap = world.snapshot();
    snap.round.phase = RoundPhase::Fighting;
    snap.round.phase_timer = rules.round_time_limit - 3;
    snap.round.wins[0] = rules.rounds_to_win - 1;
    snap.players[0].hp = 70;
    snap.players[1].hp = 40;
    snap.players[0].stats.shots = 9;
    world.restore(&snap).expect("restore");
    world
}

/// Steps with player `p` holding `REMATCH` where `asks[p]`.
fn step(world: &mut World, asks: [bool; 2]) {
    let tick = world.tick();
    let inputs = asks.map(|ask| InputCmd {
        buttons: if ask { buttons::REMATCH } else { 0 },
        ..InputCmd::idle(tick)
    });
    world.step(&inputs).expect("step");
}

fn decided() -> World {
    let mut world = deciding();
    // Asking while the match goes on, up to the tick that decides it, counts for nothing.
    for _ in 0..10 {
        step(&mut world, [true, true]);
        if world.state().round.phase == RoundPhase::MatchOver {
            break;
        }
    }
    assert_eq!(world.state().round.phase, RoundPhase::MatchOver);
    assert!(!world.state().round.rematch_asked(0), "asked too early");
    world
}

#[test]
fn one_ask_waits_for_the_other() {
    let mut world = decided();
    for _ in 0..200 {
        step(&mut world, [true, false]);
    }
    let round = &world.state().round;
    assert_eq!(round.phase, RoundPhase::MatchOver);
    assert!(round.rematch_asked(0) && !round.rematch_asked(1));
    // Letting go does not take it back.
    step(&mut world, [false, false]);
    assert!(world.state().round.rematch_asked(0));
}

#[test]
fn when_both_ask_a_new_match_starts_on_that_tick() {
    let mut world = decided();
    step(&mut world, [false, true]);
    let before = world.snapshot();
    step(&mut world, [true, false]);
    let state = world.state();
    let round = &state.round;
    assert_eq!(state.tick, before.tick + 1, "the tick goes on");
    assert_eq!(round.phase, RoundPhase::Countdown);
    assert_eq!(
        (round.round, round.wins, round.last_winner),
        (1, [0; 4], None)
    );
    assert_ne!(round.round_seed, before.round.round_seed, "a new maze");
    assert_ne!(state.maze, before.maze);
    assert!(state.players.iter().all(|p| p.stats == Default::default()));
    assert!(state
        .players
        .iter()
        .all(|p| p.hp == Rules::default().max_hp));
    assert!(!round.rematch_asked(0) && !round.rematch_asked(1));
    assert!(world
        .events()
        .iter()
        .any(|e| e.kind == engine::EventKind::RoundReset { round: 1 }));
    // The new match plays on: its countdown runs out into a fight.
    for _ in 0..Rules::default().round_start_ticks {
        step(&mut world, [false, false]);
    }
    assert_eq!(world.state().round.phase, RoundPhase::Fighting);
}

/// The ask is in the snapshot: restored into a fresh world, the other's ask starts the match
/// there exactly as in the uninterrupted world; restored without it, it does not.
#[test]
fn an_ask_survives_restore_into_a_fresh_world() {
    let mut world = decided();
    step(&mut world, [true, false]);
    let snap = world.snapshot();
    let mut fresh = World::from_snapshot(Rules::default(), &snap).expect("restore");
    for _ in 0..3 {
        step(&mut world, [false, true]);
        step(&mut fresh, [false, true]);
    }
    assert_eq!(world.state_hash(), fresh.state_hash());
    assert_eq!(fresh.state().round.phase, RoundPhase::Countdown);

    let mut forgotten = snap.clone();
    forgotten.round.phase_timer = 0;
    let mut without = World::from_snapshot(Rules::default(), &forgotten).expect("restore");
    step(&mut without, [false, true]);
    assert_eq!(without.state().round.phase, RoundPhase::MatchOver);
}

#[test]
fn the_rematch_button_is_ignored_while_the_match_goes_on() {
    let (mut asking, mut quiet) = (deciding(), deciding());
    step(&mut asking, [true, true]);
    step(&mut quiet, [false, false]);
    assert_eq!(asking.state_hash(), quiet.state_hash());
}

#[test]
fn restore_refuses_asks_of_players_who_are_not_there() {
    let mut snap = decided().snapshot();
    snap.round.phase_timer = 0b100;
    let err = World::from_snapshot(Rules::default(), &snap).unwrap_err();
    assert!(err.to_string().contains("rematch asked"), "{err}");
    snap.round.phase_timer = 0b10;
    World::from_snapshot(Rules::default(), &snap).expect("player 1's ask is fine");
}
