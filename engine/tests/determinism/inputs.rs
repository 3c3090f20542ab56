//! `World::step` refuses malformed batches and sanitizes hostile values deterministically.

use crate::common::cmd;
use engine::{buttons, Error, InputCmd, Rules, World};

fn world() -> World {
    World::new(Rules::default(), 5, 2).expect("world")
}

#[test]
fn wrong_input_count_is_an_error_and_changes_nothing() {
    let mut w = world();
    let before = w.state_hash();
    let err = w.step(&[InputCmd::idle(0)]).unwrap_err();
    assert_eq!(
        err,
        Error::WrongInputCount {
            tick: 0,
            expected: 2,
            got: 1
        }
    );
    let err = w.step(&[InputCmd::idle(0); 3]).unwrap_err();
    assert_eq!(
        err,
        Error::WrongInputCount {
            tick: 0,
            expected: 2,
            got: 3
        }
    );
    assert_eq!(w.state_hash(), before);
    assert_eq!(w.tick(), 0, "no tick was consumed");
}

#[test]
fn wrong_input_tick_is_an_error_and_changes_nothing() {
    let mut w = world();
    w.step(&[InputCmd::idle(0), InputCmd::idle(0)])
        .expect("tick 0");
    let before = w.state_hash();
    let err = w.step(&[InputCmd::idle(1), InputCmd::idle(0)]).unwrap_err();
    assert_eq!(
        err,
        Error::WrongInputTick {
            expected: 1,
            got: 0,
            player: 1
        }
    );
    let err = w.step(&[InputCmd::idle(2), InputCmd::idle(2)]).unwrap_err();
    assert_eq!(
        err,
        Error::WrongInputTick {
            expected: 1,
            got: 2,
            player: 0
        }
    );
    assert_eq!(w.state_hash(), before);
    assert_eq!(w.tick(), 1);
}

#[test]
fn hostile_values_act_exactly_as_their_sanitized_form() {
    let (mut raw, mut clean) = (world(), world());
    for t in 0..600u32 {
        let wild = [
            cmd(t, 0xFF, i8::MIN, (t as i8).wrapping_mul(37)),
            cmd(t, (t as u8).wrapping_mul(91) | 0xF8, i8::MAX, i8::MIN),
        ];
        let tame = wild.map(InputCmd::sanitized);
        raw.step(&wild).expect("hostile input is accepted");
        clean.step(&tame).expect("sanitized input");
        assert_eq!(raw.state_hash(), clean.state_hash(), "tick {t}");
    }
    assert!(raw
        .state()
        .players
        .iter()
        .all(|p| p.pos != raw.state().players[1 - usize::from(p.id)].pos));
}

#[test]
fn unknown_button_bits_do_nothing() {
    let (mut a, mut b) = (world(), world());
    for t in 0..300u32 {
        let known = [cmd(t, buttons::SHOOT, 100, -20), InputCmd::idle(t)];
        let mut noisy = known;
        noisy[0].buttons |= !buttons::KNOWN;
        noisy[1].buttons |= 0x80;
        a.step(&known).expect("step");
        b.step(&noisy).expect("step");
    }
    assert_eq!(a.state(), b.state());
}
