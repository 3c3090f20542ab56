//! `InputCmd`: what a player *wants* on one tick — never what happened.
//!
//! An input carries button bits, a stick direction and the shooter's *view*: how far in the
//! past the player was looking when the input was made (see [`InputCmd::view_ticks`]).
//! Positions, hits and damage are computed by `World::step` from the rules; a peer cannot send
//! a result, only an intent. Inputs come from the network, so every value is sanitized before
//! use: unknown button bits are dropped and the stick is clamped to `-127..=127` per axis; a
//! view of any value is a request the simulation clamps to its history window and records.
//! Sanitizing is a pure function of the input, so a hostile value can neither crash the
//! simulation nor make two peers disagree.

use crate::Tick;
use serde::{Deserialize, Serialize};

/// Button bits of an [`InputCmd`].
pub mod buttons {
    /// Fire a projectile along the aim (held: fires again whenever the cooldown allows).
    pub const SHOOT: u8 = 0b0001;
    /// Start a melee swing (on the press, not while held).
    pub const MELEE: u8 = 0b0010;
    /// Start reloading before the magazine is empty (on the press).
    pub const RELOAD: u8 = 0b0100;
    /// Fire the rail, the hitscan weapon, along the aim (on the press). The shot is judged
    /// against the targets' poses at the input's view time (lag compensation).
    pub const RAIL: u8 = 0b1000;
    /// Ask for another match once this one is decided (read only then). When every player
    /// has asked, the world starts a new match itself: the agreement is part of the
    /// deterministic match, so both peers of an online match start it on the same tick.
    pub const REMATCH: u8 = 0b1_0000;
    /// Every bit the game knows; the rest are cleared by sanitizing.
    pub const KNOWN: u8 = SHOOT | MELEE | RELOAD | RAIL | REMATCH;
}

/// Largest stick magnitude on one axis.
pub const STICK_MAX: i8 = 127;

/// One player's intent for one tick.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct InputCmd {
    /// The tick this input is for; `World::step` refuses any other.
    pub tick: Tick,
    /// Button bits (see [`buttons`]).
    pub buttons: u8,
    /// Stick x in `-127..=127` (−128 is clamped); right is positive.
    pub move_x: i8,
    /// Stick y in `-127..=127` (−128 is clamped); down is positive.
    pub move_y: i8,
    /// Whole ticks back from the input's own tick to what the player was looking at: the
    /// shooter viewed time `tick − view_ticks + view_frac / 256`. Only a rail shot reads it.
    /// Any value is safe: the simulation clamps it to its pose history (too old) or to the
    /// present (a view "from the future") and records which happened.
    pub view_ticks: u8,
    /// Sub-tick part of the view, in 1/256 of a tick, forward from `tick − view_ticks`.
    pub view_frac: u8,
}

impl InputCmd {
    /// "No input" for `tick`: no buttons, stick centred.
    #[must_use]
    pub const fn idle(tick: Tick) -> InputCmd {
        InputCmd {
            tick,
            buttons: 0,
            move_x: 0,
            move_y: 0,
            view_ticks: 0,
            view_frac: 0,
        }
    }

    /// The input with unknown button bits cleared and the stick clamped to `-127..=127`. The
    /// view is kept as sent: every value is a valid request (see [`InputCmd::view_ticks`]).
    #[must_use]
    pub fn sanitized(self) -> InputCmd {
        InputCmd {
            buttons: self.buttons & buttons::KNOWN,
            move_x: self.move_x.max(-STICK_MAX),
            move_y: self.move_y.max(-STICK_MAX),
            ..self
        }
    }

    /// Whether a button bit is held.
    #[must_use]
    pub fn held(self, button: u8) -> bool {
        self.buttons & button != 0
    }

    /// The tick-less wire form sent to peers.
    #[must_use]
    pub fn to_wire(self) -> WireInput {
        WireInput {
            buttons: self.buttons,
            move_x: self.move_x,
            move_y: self.move_y,
            view_ticks: self.view_ticks,
            view_frac: self.view_frac,
        }
    }
}

/// The compact form of an [`InputCmd`] that crosses the network: 5 bytes. The tick is implied by
/// the frame it is sent for. `Default` is "no input", which is also what a disconnected player
/// sends.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct WireInput {
    /// Button bits (see [`buttons`]); unknown bits are tolerated and dropped on use.
    pub buttons: u8,
    /// Stick x.
    pub move_x: i8,
    /// Stick y.
    pub move_y: i8,
    /// View, whole ticks back (see [`InputCmd::view_ticks`]).
    pub view_ticks: u8,
    /// View, 1/256 tick forward from there.
    pub view_frac: u8,
}

impl WireInput {
    /// The input for `tick`.
    #[must_use]
    pub fn at(self, tick: Tick) -> InputCmd {
        InputCmd {
            tick,
            buttons: self.buttons,
            move_x: self.move_x,
            move_y: self.move_y,
            view_ticks: self.view_ticks,
            view_frac: self.view_frac,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sanitizing_clears_unknown_bits_and_clamps_the_stick() {
        let hostile = InputCmd {
            tick: 9,
            buttons: 0xFF,
            move_x: i8::MIN,
            move_y: i8::MIN,
            view_ticks: u8::MAX,
            view_frac: u8::MAX,
        };
        let clean = hostile.sanitized();
        assert_eq!(clean.buttons, buttons::KNOWN);
        assert_eq!((clean.view_ticks, clean.view_frac), (255, 255));
        assert_eq!((clean.move_x, clean.move_y), (-127, -127));
        assert_eq!(clean.tick, 9);
        assert_eq!(clean.sanitized(), clean, "sanitizing is idempotent");
    }

    #[test]
    fn wire_round_trip_keeps_everything_but_the_tick() {
        let cmd = InputCmd {
            tick: 77,
            buttons: buttons::SHOOT,
            move_x: -5,
            move_y: 100,
            view_ticks: 7,
            view_frac: 128,
        };
        assert_eq!(cmd.to_wire().at(77), cmd);
        assert_eq!(
            bincode::serialize(&cmd.to_wire()).expect("encodes").len(),
            5
        );
    }
}
