//! Worlds under a known load, for benchmarks (engine's and client's) — not part of the API a
//! game uses.

use crate::fx::{Fx, FxVec};
use crate::maze::Tile;
use crate::projectile::Projectile;
use crate::rng::DetRng;
use crate::round::RoundPhase;
use crate::rules::Rules;
use crate::world::World;

/// A 2-player world in the Fighting phase with `n` projectiles spread over the maze's floor
/// tiles, each at a tile centre flying in its own direction at 1/40 tile per tick (none
/// reaches a wall for 20 ticks: the load holds through a rollback window),
/// with a pose window of `window` ticks.
///
/// # Panics
/// If `n` exceeds 8192 or `window` is outside the rule's range.
#[must_use]
pub fn loaded_world(n: usize, window: u8) -> World {
    let rules = Rules {
        max_projectiles: 8192,
        projectile_life: 600,
        projectile_speed: Fx::from_num(1) / Fx::from_num(40),
        pose_history_ticks: window,
        ..Rules::default()
    };
    let mut world = World::new(rules.clone(), 7, 2).expect("bench rules are valid");
    let mut snap = world.snapshot();
    snap.round.phase = RoundPhase::Fighting;
    let floor: Vec<(u32, u32)> = (0..snap.maze.height)
        .flat_map(|y| (0..snap.maze.width).map(move |x| (x, y)))
        .filter(|&(x, y)| snap.maze.get(x, y) == Tile::FLOOR)
        .collect();
    let mut rng = DetRng::from_seed(11);
    let sixteenth = |v: i32| Fx::from_num(v) / Fx::from_num(16);
    for id in 0..n as u32 {
        let (x, y) = floor[rng.below(floor.len() as u32) as usize];
        let dir = FxVec::new(sixteenth(rng.symmetric(16)), sixteenth(rng.symmetric(16)));
        let dir = dir
            .normalized()
            .unwrap_or(FxVec::new(Fx::from_num(1), Fx::ZERO));
        snap.projectiles.push(Projectile {
            id,
            owner: (id % 2) as u8,
            owner_generation: 1,
            pos: FxVec::new(
                Fx::from_num(x) + sixteenth(8),
                Fx::from_num(y) + sixteenth(8),
            ),
            vel: dir.scale(rules.projectile_speed),
            life: rules.projectile_life,
        });
    }
    snap.next_projectile_id = n as u32;
    world.restore(&snap).expect("a valid loaded world");
    world
}
