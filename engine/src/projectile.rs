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
/// A projectile is its own canonical bytes: `repr(C)`, fields in encoding order, no padding
/// (the `Pod` derive refuses to compile otherwise), so its 28 bytes in memory are exactly its
/// bincode encoding on a little-endian machine and the state hash reads them as they are.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[repr(C)]
#[derive(bytemuck::Pod, bytemuck::Zeroable)]
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
    /// How many of its next steps are sure to meet no solid tile (0: not known, walk the grid
    /// this step). Computed by the projectile phase when it reaches 0 and counted down each
    /// step; solid tiles only become floor within a round, so it stays a safe lower bound. It
    /// spares a flying projectile the wall walk on most steps and changes nothing else: with
    /// every count forced to 0 a match plays exactly the same
    /// (`a_match_plays_the_same_with_the_wall_counts_ignored`). It is state like the rest (in
    /// the snapshot and the hash), so a peer that restored reaches the same counts.
    pub wall_clear: u8,
}
