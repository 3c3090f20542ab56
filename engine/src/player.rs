//! A fighter: motion, aim, weapon state and the action state machine with its frame timers.

use crate::fx::FxVec;
use serde::{Deserialize, Serialize};

/// A player's stable identity: its slot, `0..players`. It never changes during a match, so
/// damage and KOs can be attributed to it even after that player has been knocked out.
pub type PlayerId = u8;

/// Most players a world holds (the sample game uses two).
pub const MAX_PLAYERS: usize = 4;

/// What a player is doing. Timed actions count their remaining frames in
/// [`Player::action_timer`]. Four bytes in memory, its variant index, as in the encoding.
#[derive(
    Clone,
    Copy,
    Debug,
    Default,
    PartialEq,
    Eq,
    Hash,
    Serialize,
    Deserialize,
    bytemuck::NoUninit,
    bytemuck::CheckedBitPattern,
)]
#[repr(u32)]
pub enum Action {
    /// Standing, free to act.
    #[default]
    Idle,
    /// Running, free to act.
    Move,
    /// Melee wind-up: committed, no hitbox yet.
    MeleeStartup,
    /// Melee active frames: the hitbox is live.
    MeleeActive,
    /// Melee recovery: no hitbox, cannot act.
    MeleeRecovery,
    /// Reeling from a hit: no control until the timer runs out.
    Hitstun,
    /// Knocked out for the rest of the round.
    Ko,
}

impl Action {
    /// Whether the player may move, aim, shoot or start a swing.
    #[must_use]
    pub fn is_free(self) -> bool {
        matches!(self, Action::Idle | Action::Move)
    }
}

/// Totals kept for the match result; they never influence the simulation's future.
#[derive(
    Clone,
    Copy,
    Debug,
    Default,
    PartialEq,
    Eq,
    Hash,
    Serialize,
    Deserialize,
    bytemuck::NoUninit,
    bytemuck::CheckedBitPattern,
)]
#[repr(C)]
pub struct PlayerStats {
    /// Damage dealt to others, by projectile and melee, including after this player was KO'd.
    pub damage_dealt: u32,
    /// Opponents knocked out.
    pub kos: u32,
    /// Shots fired.
    pub shots: u32,
}

/// One fighter's complete state. Every field can change a future tick and is in the snapshot.
///
/// Its own canonical bytes, like a [`Projectile`](crate::Projectile): `repr(C)`, the fields
/// ordered by size (4-byte, then 2-byte, then 1-byte) so that there is no padding (the
/// `NoUninit` derive refuses to compile otherwise), 64 bytes that are exactly its bincode
/// encoding and that the state hash reads as they lie. (`NoUninit`, not `Pod`: not every
/// 64 bytes are a player. Made from bytes only with the action's variant checked: by serde,
/// or by `CheckedBitPattern` when a saved image is loaded, see `SavedWorld`.)
#[derive(
    Clone,
    Copy,
    Debug,
    PartialEq,
    Eq,
    Hash,
    Serialize,
    Deserialize,
    bytemuck::NoUninit,
    bytemuck::CheckedBitPattern,
)]
#[repr(C)]
pub struct Player {
    /// Life generation: bumped at every respawn, so a projectile knows which life fired it.
    pub generation: u32,
    /// Centre, in tiles.
    pub pos: FxVec,
    /// Velocity, in tiles per tick.
    pub vel: FxVec,
    /// Unit aim/facing direction. It persists while the stick is released: a shot fired
    /// standing still flies where the player last pointed, so it must be in the snapshot.
    pub aim: FxVec,
    /// Current action.
    pub action: Action,
    /// Match totals.
    pub stats: PlayerStats,
    /// Hit points; 0 means knocked out.
    pub hp: u16,
    /// Frames left in the current timed action.
    pub action_timer: u16,
    /// Ticks until the next shot is allowed.
    pub shot_cooldown: u16,
    /// Shots left in the magazine.
    pub ammo: u16,
    /// Ticks left in a reload (0: not reloading).
    pub reload_timer: u16,
    /// Ticks until the next rail shot is allowed.
    pub rail_cooldown: u16,
    /// Ticks until the next rail charge is regained (0: full, nothing to regain).
    pub rail_recharge: u16,
    /// Ticks left frozen by hit-stop: while > 0 the player's timers, movement and actions
    /// pause (presses made meanwhile count once it ends); the rest of the world goes on.
    pub hitstop: u16,
    /// Stable id (= slot).
    pub id: PlayerId,
    /// Buttons held on the previous tick, to detect presses (melee, reload) as edges.
    pub prev_buttons: u8,
    /// Bit per player already hit by the current swing, so one swing hits each at most once.
    pub melee_hits: u8,
    /// Rail charges left.
    pub rail_charges: u8,
}

impl Player {
    /// Whether this player is still in the round.
    #[must_use]
    pub fn is_alive(&self) -> bool {
        self.action != Action::Ko
    }
}
