//! Rounds and the match score.

use crate::player::{PlayerId, MAX_PLAYERS};
use serde::{Deserialize, Serialize};

/// The [`RoundState::phase_timer`] of a decided match once all `players` asked for a rematch.
pub(crate) fn everyone(players: usize) -> u32 {
    (1 << players) - 1
}

/// Where the current round stands.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum RoundPhase {
    /// Players are placed but cannot act; [`RoundState::phase_timer`] counts down.
    #[default]
    Countdown,
    /// The round is on; [`RoundState::phase_timer`] counts the ticks played.
    Fighting,
    /// The round is decided; projectiles still fly but hurt nobody. The timer counts down to
    /// the next round.
    RoundOver,
    /// The match is decided. Nothing but leftover projectiles moves any more.
    MatchOver,
}

/// Round number, phase and score.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct RoundState {
    /// Round number, from 1.
    pub round: u8,
    /// Phase of the round.
    pub phase: RoundPhase,
    /// Countdown (Countdown, RoundOver) or elapsed ticks (Fighting). A decided match keeps no
    /// time: there it holds the players who asked for a rematch, bit `1 << slot` each (see
    /// [`RoundState::rematch_asked`]), so the agreement needs no field of its own.
    pub phase_timer: u32,
    /// Rounds won, per player slot.
    pub wins: [u8; MAX_PLAYERS],
    /// Winner of the last decided round (`None`: a draw, or no round decided yet).
    pub last_winner: Option<PlayerId>,
    /// The seed the current round's maze was generated from (drawn from the world RNG).
    pub round_seed: u64,
}

impl RoundState {
    /// Whether players can act and be hurt.
    #[must_use]
    pub fn is_fighting(&self) -> bool {
        self.phase == RoundPhase::Fighting
    }

    /// Whether `player` has asked for another match (only ever true once the match is over).
    #[must_use]
    pub fn rematch_asked(&self, player: PlayerId) -> bool {
        self.phase == RoundPhase::MatchOver
            && u32::from(player) < u32::BITS
            && self.phase_timer & (1 << player) != 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn asks_are_read_per_player_and_only_once_the_match_is_over() {
        let mut r = RoundState {
            phase: RoundPhase::MatchOver,
            phase_timer: 0b10,
            ..RoundState::default()
        };
        assert!(!r.rematch_asked(0) && r.rematch_asked(1) && !r.rematch_asked(2));
        // Any id is safe to ask about, however large.
        assert!(!r.rematch_asked(31) && !r.rematch_asked(32) && !r.rematch_asked(u8::MAX));
        r.phase = RoundPhase::RoundOver;
        assert!(
            !r.rematch_asked(1),
            "a timer, not asks, outside a decided match"
        );
        assert_eq!(everyone(2), 0b11);
        assert_eq!(everyone(4), 0b1111);
    }
}
