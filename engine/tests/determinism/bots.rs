//! Bot difficulty: every level is deterministic, and the levels are ordered — a stand-in for
//! a first-time player beats the easy bot, and the hard bot beats the easy one.

use engine::{buttons, Bot, Difficulty, RoundPhase, Rules, World};

/// Plays seeded matches of `a` (slot 0) against `b` (slot 1); returns slot 0's match wins
/// among the decided matches, and how many were decided.
fn series(a: impl Fn(u64) -> Bot, b: impl Fn(u64) -> Bot, first_timer: bool) -> (u32, u32) {
    let (mut wins, mut decided) = (0, 0);
    for seed in 0..16u64 {
        let mut world = World::new(Rules::default(), 1000 + seed, 2).expect("world");
        let mut bots = [a(seed * 2 + 1), b(seed * 2 + 2)];
        while world.state().round.phase != RoundPhase::MatchOver && world.tick() < 30_000 {
            let mut inputs = [bots[0].think(&world), bots[1].think(&world)];
            if first_timer {
                // A newcomer: holds the trigger, never melee, rail or an early reload.
                inputs[0].buttons &= buttons::SHOOT;
            }
            world.step(&inputs).expect("step");
        }
        let round = &world.state().round;
        if round.phase == RoundPhase::MatchOver {
            decided += 1;
            wins += u32::from(round.wins[0] > round.wins[1]);
        }
    }
    (wins, decided)
}

#[test]
fn a_first_timer_beats_the_easy_bot_and_hard_beats_easy() {
    let easy = |s| Bot::new(1, s).with_difficulty(Difficulty::Easy);
    let newcomer = |s| Bot::new(0, s).with_difficulty(Difficulty::Normal);
    let (wins, decided) = series(newcomer, easy, true);
    println!("first-timer vs easy: {wins}/{decided}");
    assert!(decided >= 12 && wins * 3 >= decided * 2, "{wins}/{decided}");
    let hard = |s| Bot::new(0, s);
    let (wins, decided) = series(hard, easy, false);
    println!("hard vs easy: {wins}/{decided}");
    assert!(decided >= 12 && wins * 4 >= decided * 3, "{wins}/{decided}");
}

#[test]
fn every_difficulty_is_deterministic() {
    for d in [Difficulty::Easy, Difficulty::Normal, Difficulty::Hard] {
        let run = || {
            let mut world = World::new(Rules::default(), 9, 2).expect("world");
            let mut bots = [
                Bot::new(0, 3).with_difficulty(d),
                Bot::new(1, 4).with_difficulty(d),
            ];
            for _ in 0..1500 {
                let inputs = [bots[0].think(&world), bots[1].think(&world)];
                world.step(&inputs).expect("step");
            }
            world.state_hash()
        };
        assert_eq!(run(), run(), "{d:?}");
    }
    assert_eq!("easy".parse(), Ok(Difficulty::Easy));
    assert!("impossible".parse::<Difficulty>().is_err());
}
