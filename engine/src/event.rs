//! What happened on a tick, for presentation and for the prediction journal.
//!
//! Events are outputs, not state: a rolled-back tick produces its events again, possibly
//! different ones. Each event therefore has a stable identity, [`EventKey`], built from the
//! tick, the kind and the ids involved, so a journal can tell "the same shot, re-simulated"
//! from "a different shot".

use crate::player::PlayerId;
use crate::projectile::ProjectileId;
use crate::rail::ShotRecord;
use crate::Tick;
use serde::{Deserialize, Serialize};

/// How a hit was delivered.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum HitSource {
    /// A projectile, by id.
    Projectile(ProjectileId),
    /// A melee swing.
    Melee,
    /// A rail shot (one per shooter per tick: the event's tick and attacker identify it).
    Rail,
}

/// The kinds of event a step can emit.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum EventKind {
    /// A projectile was fired.
    ShotFired {
        /// Shooter.
        player: PlayerId,
        /// The new projectile.
        projectile: ProjectileId,
    },
    /// A melee swing began its startup.
    MeleeStarted {
        /// Attacker.
        player: PlayerId,
    },
    /// A player took damage.
    Hit {
        /// Credited attacker (stable id, even if KO'd since).
        attacker: PlayerId,
        /// The attacker's life generation when the attack was launched.
        attacker_generation: u32,
        /// Who was hit.
        victim: PlayerId,
        /// Hit points removed.
        damage: u16,
        /// Projectile or melee.
        source: HitSource,
    },
    /// A player was knocked out.
    Ko {
        /// Who fell.
        victim: PlayerId,
        /// Credited attacker.
        by: PlayerId,
    },
    /// A projectile chipped a destructible block.
    BlockDamaged {
        /// Tile x.
        x: u8,
        /// Tile y.
        y: u8,
        /// Hit points the block has left.
        hp_left: u8,
        /// The projectile.
        projectile: ProjectileId,
    },
    /// A projectile destroyed a block; the tile is floor now.
    BlockBroken {
        /// Tile x.
        x: u8,
        /// Tile y.
        y: u8,
        /// The projectile.
        projectile: ProjectileId,
    },
    /// A projectile struck an indestructible wall.
    WallHit {
        /// The projectile.
        projectile: ProjectileId,
    },
    /// A projectile ran out of life in the air.
    Expired {
        /// The projectile.
        projectile: ProjectileId,
    },
    /// A player started reloading.
    ReloadStarted {
        /// Who.
        player: PlayerId,
    },
    /// A player's magazine is full again.
    Reloaded {
        /// Who.
        player: PlayerId,
    },
    /// A new round's maze was built and players respawned; the countdown begins.
    RoundReset {
        /// Round number, from 1.
        round: u8,
    },
    /// The countdown ended: players may act.
    FightStarted {
        /// Round number.
        round: u8,
    },
    /// A round was decided.
    RoundWon {
        /// Round number.
        round: u8,
        /// Winner, or `None` for a draw (double KO, or equal hit points at the time limit).
        winner: Option<PlayerId>,
    },
    /// The match was decided.
    MatchWon {
        /// The winner.
        winner: PlayerId,
    },
    /// A rail shot was fired and resolved: the full shot record. Its identity is the tick and
    /// the shooter (a player fires at most one rail shot per tick).
    RailShot(ShotRecord),
}

/// One event: its tick and what happened.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Event {
    /// The tick whose step produced it.
    pub tick: Tick,
    /// What happened.
    pub kind: EventKind,
}

/// An event's stable identity: tick, kind code and up to two ids. Two events with equal keys
/// are "the same happening" even if a re-simulation changed a detail (the damage, the hp left).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct EventKey {
    /// Tick.
    pub tick: Tick,
    /// Kind, as a small code stable across versions of this enum.
    pub kind: u8,
    /// Main subject (player or projectile id, or tile index).
    pub a: u32,
    /// Secondary subject (victim, projectile), 0 when unused.
    pub b: u32,
}

impl Event {
    /// This event's stable identity.
    #[must_use]
    pub fn key(&self) -> EventKey {
        use EventKind as K;
        let tile = |x: u8, y: u8| u32::from(y) << 8 | u32::from(x);
        let (kind, a, b) = match self.kind {
            K::ShotFired { player, projectile } => (1, u32::from(player), projectile),
            K::MeleeStarted { player } => (2, u32::from(player), 0),
            K::Hit {
                attacker,
                victim,
                source,
                ..
            } => {
                let via = match source {
                    HitSource::Projectile(id) => id,
                    HitSource::Melee => u32::MAX,
                    HitSource::Rail => u32::MAX - 1,
                };
                (3, u32::from(attacker) << 8 | u32::from(victim), via)
            }
            K::Ko { victim, by } => (4, u32::from(victim), u32::from(by)),
            K::BlockDamaged {
                x, y, projectile, ..
            } => (5, tile(x, y), projectile),
            K::BlockBroken { x, y, projectile } => (6, tile(x, y), projectile),
            K::WallHit { projectile } => (7, projectile, 0),
            K::Expired { projectile } => (8, projectile, 0),
            K::ReloadStarted { player } => (9, u32::from(player), 0),
            K::Reloaded { player } => (10, u32::from(player), 0),
            K::RoundReset { round } => (11, u32::from(round), 0),
            K::FightStarted { round } => (12, u32::from(round), 0),
            K::RoundWon { round, .. } => (13, u32::from(round), 0),
            K::MatchWon { winner } => (14, u32::from(winner), 0),
            K::RailShot(shot) => (15, u32::from(shot.shooter), 0),
        };
        EventKey {
            tick: self.tick,
            kind,
            a,
            b,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Contract: distinct happenings have distinct keys (the journal matches events by key
    /// across a rollback): tiles in one row or one column, hits either way between two
    /// players, and hits by melee, rail and projectile.
    #[test]
    fn keys_tell_every_distinct_happening_apart() {
        let at = |kind| Event { tick: 5, kind };
        let mut events = Vec::new();
        for (x, y) in [(1, 1), (2, 1), (1, 2), (2, 2), (0, 3), (3, 0)] {
            events.push(at(EventKind::BlockBroken {
                x,
                y,
                projectile: 7,
            }));
        }
        for (attacker, victim) in [(0, 1), (1, 0), (1, 2), (2, 1)] {
            for source in [HitSource::Melee, HitSource::Rail, HitSource::Projectile(9)] {
                events.push(at(EventKind::Hit {
                    attacker,
                    attacker_generation: 1,
                    victim,
                    damage: 10,
                    source,
                }));
            }
        }
        let keys: std::collections::BTreeSet<EventKey> = events.iter().map(Event::key).collect();
        assert_eq!(keys.len(), events.len());
    }
}
