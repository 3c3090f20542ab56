//! `InputCmd`: what a player *wants* on one tick — never what happened.
//!
//! An input carries button bits and a stick direction. Positions, hits and damage are computed by
//! `World::step` from the rules; a peer cannot send a result, only an intent. Inputs come from
//! the network, so every value is sanitized before use: unknown button bits are dropped and the
//! stick is clamped to `-127..=127` per axis. Sanitizing is a pure function of the input, so a
//! hostile value can neither crash the simulation nor make two peers disagree.

use crate::Tick;
use serde::{Deserialize, Serialize};

/// Button bits of an [`InputCmd`].
pub mod buttons {
    /// Fire a projectile along the aim (held: fires again whenever the cooldown allows).
    pub const SHOOT: u8 = 1 << 0;
    /// Start a melee swing (on the press, not while held).
    pub const MELEE: u8 = 1 << 1;
    /// Start reloading before the magazine is empty (on the press).
    pub const RELOAD: u8 = 1 << 2;
    /// Every bit the game knows; the rest are cleared by sanitizing.
    pub const KNOWN: u8 = SHOOT | MELEE | RELOAD;
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
        }
    }

    /// The input with unknown button bits cleared and the stick clamped to `-127..=127`.
    #[must_use]
    pub fn sanitized(self) -> InputCmd {
        InputCmd {
            tick: self.tick,
            buttons: self.buttons & buttons::KNOWN,
            move_x: self.move_x.max(-STICK_MAX),
            move_y: self.move_y.max(-STICK_MAX),
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
        }
    }
}

/// The compact form of an [`InputCmd`] that crosses the network: 3 bytes. The tick is implied by
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
        };
        let clean = hostile.sanitized();
        assert_eq!(clean.buttons, buttons::KNOWN);
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
        };
        assert_eq!(cmd.to_wire().at(77), cmd);
        assert_eq!(
            bincode::serialize(&cmd.to_wire()).expect("encodes").len(),
            3
        );
    }
}
