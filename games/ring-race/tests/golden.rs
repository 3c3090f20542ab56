//! A fixed scripted race under non-default rules, pinned: its final state hash, scores, coin and
//! winner. Any change to a phase, the hash, the RNG or the rules' encoding moves it (then the
//! change is a new version of the game: update the numbers here knowingly).

use game_api::{conformance, Game, SectionHash};
use ring_race::{buttons, Fx, RingInput, RingRace, RingRules, RingSnapshot};

fn rules() -> RingRules {
    RingRules {
        track_length: 700,
        accel: 55,
        drag: 5,
        dash_cooldown: 60,
        coins_to_win: 40,
        ..RingRules::default()
    }
}

fn script(tick: u32, slot: usize) -> RingInput {
    let turn = (tick / 37 + slot as u32 * 5) % 6;
    RingInput {
        thrust: [127, 80, -60, -127, 20, 0][turn as usize],
        buttons: if (tick + slot as u32 * 13).is_multiple_of(71) {
            buttons::DASH
        } else {
            0
        },
    }
}

fn race() -> RingRace {
    let mut race = RingRace::new(rules(), 77, 3).expect("race");
    for tick in 0..3000 {
        let inputs: Vec<RingInput> = (0..3).map(|slot| script(tick, slot)).collect();
        race.step(&inputs).expect("step");
    }
    race
}

#[test]
fn the_scripted_race_ends_where_it_always_has() {
    let race = race();
    let state = race.state();
    let scores: Vec<u8> = state.racers.iter().map(|r| r.score).collect();
    assert_eq!(
        (
            race.state_hash().combined(),
            scores,
            state.coin.serial,
            state.winner
        ),
        (
            GOLDEN_HASH,
            GOLDEN_SCORES.to_vec(),
            GOLDEN_SERIAL,
            GOLDEN_WINNER
        )
    );
    assert_eq!(state.to_bytes().len(), GOLDEN_BYTES);
}

#[test]
fn the_contract_holds_under_other_rules_too() {
    conformance::check_all::<RingRace>(rules(), 5, 3, 900, script).expect("contract");
    let race = RingRace::new(rules(), 5, 2).expect("race");
    assert_eq!(race.rules(), &rules());
    assert_eq!(RingRace::rules_hash(&rules()), rules().hash());
    assert_ne!(RingRace::rules_hash(&rules()), RingRules::default().hash());
}

/// Saving into a slot that held another state leaves exactly this one there.
#[test]
fn saving_overwrites_a_used_slot() {
    let race = race();
    let mut slot = RingRace::new(rules(), 1, 2).expect("race").snapshot();
    race.save_into(&mut slot);
    assert_eq!(slot, race.snapshot());
}

/// The perturbation is one bit of the second racer's position, kept on the track.
#[test]
fn the_perturbation_is_one_bit_on_the_track() {
    let mut race = RingRace::new(rules(), 1, 2).expect("race");
    let before = race.state().racers[1].pos;
    race.debug_perturb();
    assert_eq!(race.state().racers[1].pos - before, Fx::DELTA);
    let mut snapshot = race.snapshot();
    snapshot.racers[1].pos = Fx::from_num(700) - Fx::DELTA;
    race.restore(&snapshot).expect("on the track");
    race.debug_perturb();
    assert_eq!(
        race.state().racers[1].pos,
        Fx::ZERO,
        "wrapped at the track's end"
    );
}

/// Snapshot bytes of an impossible shape are refused: too few or too many racers, a winner who
/// is no racer, a racer at the track's end or faster than the limit.
#[test]
fn impossible_snapshots_are_refused() {
    let race = RingRace::new(rules(), 1, 2).expect("race");
    let good = race.snapshot();
    let refused = |s: &RingSnapshot| RingSnapshot::from_bytes(&s.to_bytes()).is_err();
    assert!(!refused(&good));
    let mut one = good.clone();
    one.racers.truncate(1);
    assert!(refused(&one), "one racer");
    let mut five = good.clone();
    five.racers.resize(5, five.racers[0]);
    assert!(refused(&five), "five racers");
    let mut four = good.clone();
    four.racers.resize(4, four.racers[0]);
    assert!(!refused(&four), "four racers");
    let mut winner = good.clone();
    winner.winner = Some(2);
    assert!(refused(&winner), "winner 2 of 2 racers");
    winner.winner = Some(1);
    assert!(!refused(&winner), "winner 1");
    let restore = |s: &RingSnapshot| RingRace::from_snapshot(rules(), s).is_ok();
    let mut at_end = good.clone();
    at_end.racers[0].pos = Fx::from_num(700);
    assert!(!restore(&at_end), "at the track's end");
    at_end.racers[0].pos = Fx::from_num(700) - Fx::DELTA;
    assert!(restore(&at_end), "just before it");
    let mut fast = good.clone();
    fast.racers[0].speed = Fx::from_num(rules().max_speed);
    assert!(restore(&fast), "at the limit");
    fast.racers[0].speed = -Fx::from_num(rules().max_speed) - Fx::DELTA;
    assert!(!restore(&fast), "past it");
    let mut coin = good;
    coin.coin.pos = 700;
    assert!(!restore(&coin), "a coin off the track");
}

// Recorded on 2026-12-02 (ring-race 0.2.0, snapshot format 1).
const GOLDEN_HASH: u64 = 0x347c_6468_1f6f_08ef;
const GOLDEN_SCORES: [u8; 3] = [27, 40, 23];
const GOLDEN_SERIAL: u32 = 90;
const GOLDEN_WINNER: Option<u8> = Some(1);
const GOLDEN_BYTES: usize = 81;
