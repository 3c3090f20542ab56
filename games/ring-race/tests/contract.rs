//! The ring race keeps the `Game` contract and its own rules: a restored race replays
//! bit-identically, every phase is traced, racers bump and score, and hostile bytes are refused.

use game_api::{conformance, Game};
use ring_race::{buttons, Fx, RingError, RingEvent, RingInput, RingRace, RingRules, RingSnapshot};

/// Inputs that make things happen: thrusts that change sign, dashes now and then.
fn script(tick: u32, slot: usize) -> RingInput {
    let phase = (tick / 50 + slot as u32 * 3) % 5;
    RingInput {
        thrust: [127, 60, -127, 0, -40][phase as usize],
        buttons: if (tick + slot as u32 * 17).is_multiple_of(97) {
            buttons::DASH
        } else {
            0
        },
    }
}

#[test]
fn the_ring_race_keeps_the_game_contract() {
    for players in 2..=4 {
        conformance::check_all::<RingRace>(RingRules::default(), 3, players, 1200, script)
            .unwrap_or_else(|e| panic!("{players} racers: {e}"));
    }
}

/// A scripted race has bumps, coins, dashes and a winner, after which it stands still.
#[test]
fn racers_bump_take_coins_and_one_wins() {
    let rules = RingRules {
        coins_to_win: 3,
        ..RingRules::default()
    };
    let mut race = RingRace::new(rules, 5, 2).expect("race");
    let mut seen = [0usize; 4];
    for _ in 0..20_000 {
        let inputs = [script(race.tick(), 0), script(race.tick(), 1)];
        for event in race.step(&inputs).expect("step") {
            let kind = match event {
                RingEvent::Dash { .. } => 0,
                RingEvent::Bump { .. } => 1,
                RingEvent::CoinTaken { .. } => 2,
                RingEvent::Won { .. } => 3,
            };
            seen[kind] += 1;
        }
        if race.state().winner.is_some() {
            break;
        }
    }
    assert!(
        seen.iter().all(|&n| n > 0),
        "dash, bump, coin, win: {seen:?}"
    );
    let winner = race.state().winner.expect("a winner");
    assert_eq!(race.state().racers[usize::from(winner)].score, 3);
    let frozen = race.snapshot();
    race.step(&[script(0, 0), script(0, 1)]).expect("step");
    assert_eq!(
        (race.state().racers.clone(), race.state().coin),
        (frozen.racers, frozen.coin),
        "a decided race stands still"
    );
}

#[test]
fn hostile_inputs_are_sanitized_and_wrong_counts_refused() {
    let mut a = RingRace::new(RingRules::default(), 1, 2).expect("race");
    let mut b = a.clone();
    let hostile = [RingInput {
        thrust: i8::MIN,
        buttons: 0xFF,
    }; 2];
    let clean = [RingInput {
        thrust: -127,
        buttons: buttons::DASH,
    }; 2];
    a.step(&hostile).expect("any input is valid");
    b.step(&clean).expect("step");
    assert_eq!(a.state_hash(), b.state_hash());
    assert!(matches!(
        a.step(&[RingInput::default(); 3]),
        Err(RingError::WrongInputCount { got: 3, .. })
    ));
}

#[test]
fn snapshots_off_the_track_or_of_other_rules_are_refused() {
    let race = RingRace::new(RingRules::default(), 1, 2).expect("race");
    let mut off = race.snapshot();
    off.racers[0].pos = Fx::from_num(5000);
    assert!(RingRace::from_snapshot(RingRules::default(), &off).is_err());
    let other = RingRules {
        drag: 9,
        ..RingRules::default()
    };
    assert!(matches!(
        RingRace::from_snapshot(other, &race.snapshot()),
        Err(RingError::RulesMismatch { .. })
    ));
    assert!(RingRace::new(
        RingRules {
            track_length: 1,
            ..RingRules::default()
        },
        1,
        2
    )
    .is_err());
    assert!(RingRace::new(RingRules::default(), 1, 5).is_err());
    let bytes = RingRules::default().canonical_bytes();
    assert_eq!(
        RingRules::from_canonical_bytes(&bytes),
        Some(RingRules::default())
    );
    assert_eq!(RingRules::from_canonical_bytes(&bytes[1..]), None);
}

proptest::proptest! {
    /// Any bytes, and any damage to real snapshot bytes, are read or refused: never a panic,
    /// and what is read is a shape a race can restore or refuse by name.
    #[test]
    fn any_snapshot_bytes_are_read_or_refused(
        noise in proptest::collection::vec(proptest::prelude::any::<u8>(), 0..200),
        at in proptest::prelude::any::<usize>(),
        bit in 0u8..8,
    ) {
        let _ = RingSnapshot::from_bytes(&noise);
        let mut race = RingRace::new(RingRules::default(), 9, 3).expect("race");
        for t in 0..50 {
            race.step(&[script(t, 0), script(t, 1), script(t, 2)]).expect("step");
        }
        let mut bytes = race.snapshot().to_bytes();
        let i = at % bytes.len();
        bytes[i] ^= 1 << bit;
        if let Ok(snapshot) = RingSnapshot::from_bytes(&bytes) {
            if let Ok(mut restored) = RingRace::from_snapshot(RingRules::default(), &snapshot) {
                restored.step(&[RingInput::default(); 3]).expect("a restored race steps");
            }
        }
    }
}

/// Contract: an event's tick is its key's, and a replay audits the coins taken and the win —
/// appended in order, nothing else.
#[test]
fn events_name_their_tick_and_the_audit_keeps_coins_and_wins() {
    let events = [
        RingEvent::Dash { tick: 4, racer: 1 },
        RingEvent::CoinTaken {
            tick: 5,
            racer: 0,
            coin: 2,
        },
        RingEvent::Bump {
            tick: 6,
            a: 0,
            b: 1,
        },
        RingEvent::Won { tick: 7, racer: 0 },
    ];
    assert_eq!(events.map(|e| RingRace::event_tick(&e)), [4, 5, 6, 7]);
    let mut audited = vec![events[0]];
    RingRace::audit(&events, &mut audited);
    assert_eq!(audited, [events[0], events[1], events[3]]);
}

/// Contract: the handshake names differing rules through the game: the race's own names.
#[test]
fn the_race_names_the_rules_that_differ() {
    let theirs = RingRules {
        coins_to_win: 9,
        ..RingRules::default()
    };
    let named = RingRace::rules_differences(&RingRules::default(), &theirs);
    assert_eq!(named.len(), 1, "{named:?}");
    assert_eq!((named[0].0, named[0].2.as_str()), ("coins_to_win", "9"));
    assert!(RingRace::rules_differences(&theirs, &theirs.clone()).is_empty());
}
