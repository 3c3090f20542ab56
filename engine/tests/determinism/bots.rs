//! Bot difficulty: every level is deterministic, and the levels are ordered — a stand-in for
//! a first-time player beats the easy bot, the hard bot beats the easy one, and a player who
//! only shoots, with a human's reaction time, beats the beginner bot nine times in ten.

use engine::{buttons, Bot, Difficulty, RoundPhase, Rules, Skill, World};

/// Plays seeded matches of `a` (slot 0) against `b` (slot 1); returns slot 0's match wins
/// among the decided matches, and how many were decided.
fn series(a: impl Fn(u64) -> Bot, b: impl Fn(u64) -> Bot, first_timer: bool) -> (u32, u32) {
    series_of(16, a, b, first_timer)
}

/// [`series`] over `matches` seeds.
fn series_of(
    matches: u64,
    a: impl Fn(u64) -> Bot,
    b: impl Fn(u64) -> Bot,
    first_timer: bool,
) -> (u32, u32) {
    let (mut wins, mut decided) = (0, 0);
    for seed in 0..matches {
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

/// A scripted player who only shoots: it sees the opponent 15 ticks (250 ms) late, aims up to
/// half a tile off, walks towards it and holds the trigger — no melee, no rail, no early
/// reload (its other buttons are masked off too).
fn shoot_only_player(seed: u64) -> Bot {
    Bot::new(0, seed).with_skill(Skill {
        reaction_ticks: 15,
        aim_error: 128,
        attacks_kept: 256,
        melee: false,
        full_kit: false,
        keeps_distance: false,
    })
}

/// Matches (of 40 seeded ones) the shoot-only player wins against each level, and how many
/// were decided; the table in docs/the-game.md. The beginner level must lose ≥ 90 % of them.
#[test]
fn a_shoot_only_player_beats_the_beginner_bot_nine_times_in_ten() {
    let mut rows = Vec::new();
    for level in [
        Difficulty::Beginner,
        Difficulty::Easy,
        Difficulty::Normal,
        Difficulty::Hard,
    ] {
        let bot = move |s| Bot::new(1, s).with_difficulty(level);
        let (wins, decided) = series_of(40, shoot_only_player, bot, true);
        println!("shoot-only player vs {level:?}: won {wins} of {decided} decided (of 40)");
        rows.push((level, wins, decided));
    }
    let (_, wins, decided) = rows[0];
    assert!(
        decided >= 36 && wins * 10 >= decided * 9,
        "the beginner bot lost only {wins} of {decided}"
    );
    // The levels are ordered: the shooter wins less against each harder one.
    for pair in rows.windows(2) {
        assert!(pair[0].1 >= pair[1].1, "{rows:?}");
    }
}

#[test]
fn every_difficulty_is_deterministic() {
    for d in [
        Difficulty::Beginner,
        Difficulty::Easy,
        Difficulty::Normal,
        Difficulty::Hard,
    ] {
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
    assert_eq!("beginner".parse(), Ok(Difficulty::Beginner));
    assert!("impossible".parse::<Difficulty>().is_err());
}
