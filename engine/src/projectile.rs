//! A projectile in flight.

use crate::fx::FxVec;
use crate::player::PlayerId;
use serde::{Deserialize, Serialize};

/// A projectile's stable identity: allocated from a counter in the snapshot, never reused in a
/// match.
pub type ProjectileId = u32;

/// One projectile. Projectiles live in a `Vec` in spawn order; that order is part of the rules
/// (it decides who is hit first when two projectiles arrive on the same tick) and removal keeps
/// it.
///
/// `repr(C)` with the fields declared in encoding order: the in-memory layout then starts with
/// exactly the canonical encoding's 27 bytes, so hashing a projectile is a near-straight copy.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[repr(C)]
pub struct Projectile {
    /// Stable id.
    pub id: ProjectileId,
    /// The owner's life generation at the time of firing. The projectile passes through its
    /// owner only while that life lasts.
    pub owner_generation: u32,
    /// Centre, in tiles.
    pub pos: FxVec,
    /// Velocity, in tiles per tick.
    pub vel: FxVec,
    /// Ticks left to live; 0 marks it for removal at the end of the projectile phase.
    pub life: u16,
    /// Who fired it; damage and KOs are credited to this id even if that player is KO'd.
    pub owner: PlayerId,
}
