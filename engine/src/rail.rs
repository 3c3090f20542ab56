//! The rail: a hitscan weapon judged against what its shooter saw (lag compensation).
//!
//! A rail press is *accepted* in the aim-and-fire phase when the shooter is free to act, its
//! cooldown has run out and it has a charge; acceptance spends the charge, hit or miss. Every
//! accepted shot of a tick is then *resolved* in the rail phase, in shooter-id order, after all
//! players have moved — so a shot resolves even if its shooter is hit later in the same tick.
//!
//! Resolution is [`World::rail_trace`], a pure read of the world: a ray from the shooter's
//! centre along its aim, `rail_range` long, against
//! - every other player's hitbox as it was at the shooter's view time (the input's view,
//!   clamped and interpolated by the pose history — see `pose_history.rs`), and
//! - the maze's solid tiles **as they are now**. Cover is current, not historical, because
//!   cover in this game only ever disappears (blocks break, nothing is built during a round):
//!   the current maze is the least cover anyone saw, so a shot the shooter saw go clear is
//!   never blocked by a block that was already broken on its screen, and a shot through a
//!   block it saw standing can only pass if that block has since broken for everyone.
//!
//! The nearest intersection wins. At equal distances an occluder beats a player, and a lower
//! stable player id beats a higher one; container order never decides. Damage then applies
//! only if the target's *current* life generation is the one that was hit and the target is
//! alive now: a respawned player is never hit through its previous life. Damage is credited
//! to the shooter's stable id. Every rail shot produces a [`ShotRecord`] event.

use crate::fx::{Fx, FxVec, ONE};
use crate::geom::{segment_circle_toi, segment_grid_toi};
use crate::player::PlayerId;
use crate::pose_history::{ViewClamp, ViewTime};
use crate::world::World;
use serde::{Deserialize, Serialize};

/// What a rail ray met first.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum ShotTarget {
    /// Nothing within range.
    #[default]
    Nothing,
    /// A player's historical hitbox.
    Player {
        /// Stable id.
        id: PlayerId,
        /// The life generation of the hitbox that was met.
        generation: u32,
    },
    /// A solid tile (wall or block) of the current maze.
    Tile {
        /// Tile x.
        x: u8,
        /// Tile y.
        y: u8,
    },
}

/// What a rail shot did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum ShotOutcome {
    /// The ray met nothing.
    #[default]
    Miss,
    /// The ray met a wall or block first.
    Blocked,
    /// The target was hit; hit points removed.
    Hit {
        /// Damage dealt.
        damage: u16,
    },
    /// The hitbox met belonged to a life that has ended since (respawn): no damage.
    StaleLife,
    /// The target is knocked out now: no damage.
    TargetDown,
}

/// The record of one rail shot: who fired, what view was asked for and used, what was met,
/// how far, and what came of it. Emitted as an event, so the prediction journal tracks it and
/// a match log reproduces it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct ShotRecord {
    /// Shooter (stable id).
    pub shooter: PlayerId,
    /// Shooter's life generation when the shot was accepted.
    pub shooter_generation: u32,
    /// Ray origin (the shooter's centre after this tick's movement).
    pub origin: FxVec,
    /// Unit ray direction (the shooter's aim).
    pub dir: FxVec,
    /// View as the input asked for it.
    pub requested: ViewTime,
    /// View actually used.
    pub used: ViewTime,
    /// Whether and why the view was clamped.
    pub clamp: ViewClamp,
    /// What the ray met first.
    pub target: ShotTarget,
    /// Distance from the origin to that intersection (`rail_range` when nothing was met).
    pub distance: Fx,
    /// What the shot did.
    pub outcome: ShotOutcome,
}

impl World {
    /// Traces a rail shot of the player in slot `shooter` seen at `view`, against the pose
    /// history and the current maze, as the rail phase does — without changing anything (the
    /// state hash is the same before and after). The outcome is what would happen now:
    /// [`ShotOutcome::Hit`] carries the damage the target would take.
    ///
    /// # Panics
    /// If `shooter` is not a slot of this world.
    #[must_use]
    pub fn rail_trace(&self, shooter: usize, view: ViewTime) -> ShotRecord {
        let rules = &self.rules;
        let state = &self.state;
        let me = &state.players[shooter];
        let ray = me.aim.scale(rules.rail_range);
        let window = rules.pose_history_ticks;
        // (t, rank, target): the smallest wins; rank 0 is an occluder, 1 a player.
        let mut best: Option<(Fx, u8, ShotTarget)> = segment_grid_toi(&state.maze, me.pos, ray)
            .map(|(t, x, y)| {
                // The grid is at most 63 tiles a side and the walk starts inside it.
                let tile = ShotTarget::Tile {
                    x: x as u8,
                    y: y as u8,
                };
                (t, 0, tile)
            });
        // The view used and its clamp depend only on the view, now and the window.
        let used = state
            .pose_history
            .pose_at(shooter, state.tick, view, window);
        for (slot, target) in state.players.iter().enumerate() {
            let rewound = state.pose_history.pose_at(slot, state.tick, view, window);
            if slot == shooter || !rewound.pose.alive() {
                continue;
            }
            let Some(t) = segment_circle_toi(me.pos, ray, rewound.pose.pos, rewound.pose.radius)
            else {
                continue;
            };
            let hit = ShotTarget::Player {
                id: target.id,
                generation: rewound.pose.generation,
            };
            // Slots are visited in id order, so `<` keeps the lower id at equal times.
            if best.is_none_or(|(bt, _, _)| t < bt) {
                best = Some((t, 1, hit));
            }
        }
        let (t, target) = best.map_or((ONE, ShotTarget::Nothing), |(t, _, tg)| (t, tg));
        let outcome = match target {
            ShotTarget::Nothing => ShotOutcome::Miss,
            ShotTarget::Tile { .. } => ShotOutcome::Blocked,
            ShotTarget::Player { id, generation } => {
                let now = &state.players[usize::from(id)];
                if now.generation != generation {
                    ShotOutcome::StaleLife
                } else if !now.is_alive() {
                    ShotOutcome::TargetDown
                } else {
                    ShotOutcome::Hit {
                        damage: rules.rail_damage.min(now.hp),
                    }
                }
            }
        };
        ShotRecord {
            shooter: me.id,
            shooter_generation: me.generation,
            origin: me.pos,
            dir: me.aim,
            requested: view,
            used: used.used,
            clamp: used.clamp,
            target,
            distance: t * rules.rail_range,
            outcome,
        }
    }
}
