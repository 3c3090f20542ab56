//! Worlds under a known load, for benchmarks (engine's and client's) — not part of the API a
//! game uses.

use crate::fx::{Fx, FxVec};
use crate::geom::wall_clear_ticks;
use crate::input::{buttons, InputCmd};
use crate::maze::Tile;
use crate::projectile::Projectile;
use crate::rng::DetRng;
use crate::round::RoundPhase;
use crate::rules::Rules;
use crate::world::World;
use crate::Tick;

/// Ticks a [`loaded_world`] is proven to stay a fight for: longer than any benchmark runs it
/// (a rollback window of 8; a sync test's warm-up, which fills a driver's 64-tick rings so that
/// the frames timed are the steady state, then its timed run).
pub const FIGHT_TICKS: u32 = 160;

/// Ticks [`fight_inputs`] runs player 0 one way before turning back, so that it stays well
/// inside its clear square for [`FIGHT_TICKS`].
const RUN_LEG_TICKS: u32 = 24;

/// The loaded projectiles' speed in tiles per tick, 1/2^`DRIFT_SHIFT`: slower than any the
/// rules allow a shot, so that from a tile centre none reaches a wall within [`FIGHT_TICKS`].
const DRIFT_SHIFT: u32 = 9;

/// Tiles around each player (in either axis) where no projectile starts, so that none reaches
/// a player within [`FIGHT_TICKS`] even when player 0 runs.
const CLEAR_RADIUS: u32 = 5;

/// A 2-player world in the Fighting phase with `n` projectiles spread over the maze's floor
/// tiles away from the players, each at a tile centre drifting in its own direction at 1/512
/// tile per tick, with a pose window of `window` ticks.
///
/// It stays a fight at every `n`: for [`FIGHT_TICKS`] ticks, with both players idle or with
/// player 0 running and firing, the round goes on, both players keep their health and no
/// projectile ends (so every step pays for every projectile, the tests against the players
/// included). This is checked here by simulating those ticks; a load that broke it would
/// measure a lighter workload than it claims, so it panics instead.
///
/// # Panics
/// If `n` exceeds 8192, `window` is outside the rule's range, or the world would not stay a
/// fight.
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
        .filter(|&(x, y)| {
            snap.players.iter().all(|p| {
                let (px, py) = (p.pos.x.to_num::<u32>(), p.pos.y.to_num::<u32>());
                x.abs_diff(px) > CLEAR_RADIUS || y.abs_diff(py) > CLEAR_RADIUS
            })
        })
        .collect();
    let mut rng = DetRng::from_seed(11);
    let sixteenth = |v: i32| Fx::from_num(v) / Fx::from_num(16);
    for id in 0..n as u32 {
        let (x, y) = floor[rng.below(floor.len() as u32) as usize];
        let dir = FxVec::new(sixteenth(rng.symmetric(16)), sixteenth(rng.symmetric(16)));
        let dir = dir
            .normalized()
            .unwrap_or(FxVec::new(Fx::from_num(1), Fx::ZERO));
        let pos = FxVec::new(
            Fx::from_num(x) + sixteenth(8),
            Fx::from_num(y) + sixteenth(8),
        );
        let vel = dir.scale(Fx::from_num(1) >> DRIFT_SHIFT);
        snap.projectiles.push(Projectile {
            id,
            owner: (id % 2) as u8,
            // Counted as a world that had been stepping them would have (a rollback restores
            // states whose projectiles are in flight, not all fired that tick).
            wall_clear: wall_clear_ticks(&snap.maze, pos, vel, rules.projectile_life),
            owner_generation: 1,
            pos,
            vel,
            life: rules.projectile_life,
        });
    }
    snap.next_projectile_id = n as u32;
    world.restore(&snap).expect("a valid loaded world");
    for runs in [false, true] {
        if let Err(broken) = stays_a_fight(&world, runs) {
            panic!("a loaded world of {n} projectiles is no fight: {broken}");
        }
    }
    world
}

/// The benches' inputs for `tick`: player 0 runs and fires, right for 24 ticks (`RUN_LEG_TICKS`)
/// then left as long, and so on; player 1 idles.
#[must_use]
pub fn fight_inputs(tick: Tick) -> [InputCmd; 2] {
    let right = (tick / RUN_LEG_TICKS).is_multiple_of(2);
    let run = InputCmd {
        buttons: buttons::SHOOT,
        move_x: if right { 127 } else { -127 },
        ..InputCmd::idle(tick)
    };
    [run, InputCmd::idle(tick)]
}

/// Steps a copy of `world` for [`FIGHT_TICKS`] ticks (player 0 running right and firing if
/// `runs`, else idle) and says what stopped it being a full fight, if anything did.
fn stays_a_fight(world: &World, runs: bool) -> Result<(), String> {
    let mut w = world.clone();
    let start = world.state();
    for _ in 0..FIGHT_TICKS {
        let tick = w.tick();
        let inputs = if runs {
            fight_inputs(tick)
        } else {
            [InputCmd::idle(tick); 2]
        };
        w.step(&inputs).map_err(|e| format!("step failed: {e}"))?;
        let s = w.state();
        if s.round.phase != RoundPhase::Fighting {
            return Err(format!("tick {}: round phase {:?}", s.tick, s.round.phase));
        }
        for (now, before) in s.players.iter().zip(&start.players) {
            if now.hp != before.hp {
                return Err(format!("tick {}: player {} was hit", s.tick, now.id));
            }
        }
        // Player 0's own shots join the load; none of the loaded ones may end.
        if s.projectiles.len() < start.projectiles.len() {
            return Err(format!(
                "tick {}: {} of {} projectiles left",
                s.tick,
                s.projectiles.len(),
                start.projectiles.len()
            ));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every load the benchmarks use is a fight (the check inside panics otherwise), and the
    /// check itself sees a player hit: a world with one projectile starting on a player is refused.
    #[test]
    fn loaded_worlds_stay_a_fight_and_the_check_sees_a_hit() {
        for n in [32, 1024, 4096] {
            let world = loaded_world(n, 12);
            assert_eq!(world.state().projectiles.len(), n);
        }
        let world = loaded_world(32, 12);
        let mut snap = world.snapshot();
        snap.projectiles[0].pos = snap.players[1].pos;
        let mut hit = world.clone();
        hit.restore(&snap).expect("restore");
        let broken = stays_a_fight(&hit, false).expect_err("a hit is seen");
        assert!(broken.contains("player 1 was hit"), "{broken}");
    }

    /// The clear squares around the players hold no projectile, and the load spreads over
    /// every other floor tile (4096 projectiles leave none out), so the load is the same
    /// shape at every size.
    #[test]
    fn projectiles_start_on_every_floor_tile_outside_the_clear_squares_and_only_there() {
        let world = loaded_world(4096, 12);
        let s = world.state();
        let tile = |v: FxVec| (v.x.to_num::<u32>(), v.y.to_num::<u32>());
        let clear = |(x, y): (u32, u32)| {
            s.players.iter().any(|p| {
                let (px, py) = tile(p.pos);
                x.abs_diff(px) <= CLEAR_RADIUS && y.abs_diff(py) <= CLEAR_RADIUS
            })
        };
        let used: std::collections::BTreeSet<(u32, u32)> =
            s.projectiles.iter().map(|p| tile(p.pos)).collect();
        let candidates: std::collections::BTreeSet<(u32, u32)> = (0..s.maze.height)
            .flat_map(|y| (0..s.maze.width).map(move |x| (x, y)))
            .filter(|&(x, y)| s.maze.get(x, y) == Tile::FLOOR && !clear((x, y)))
            .collect();
        assert!(
            used.iter().all(|&t| !clear(t)),
            "a projectile in a clear square"
        );
        assert_eq!(used, candidates);
    }

    /// The benches' fight inputs make player 0 run and fire: it moves right and its shots
    /// are in the air, while player 1 stays where it was.
    #[test]
    fn the_fight_inputs_make_player_0_run_and_fire() {
        let mut w = loaded_world(32, 12);
        let start = w.snapshot();
        let x0 = start.players[0].pos.x;
        let (mut furthest_right, mut furthest_left) = (x0, x0);
        let mut turned_back = false;
        for _ in 0..FIGHT_TICKS {
            let before = w.state().players[0].pos.x;
            w.step(&fight_inputs(w.tick())).expect("step");
            let x = w.state().players[0].pos.x;
            turned_back |= x < before;
            furthest_right = furthest_right.max(x);
            furthest_left = furthest_left.min(x);
        }
        let s = w.state();
        let tiles = |v: Fx| v.to_num::<i32>();
        // Whole legs: a tile or more each way, not a step back and forth every tick.
        assert!(tiles(furthest_right - x0) >= 1, "player 0 ran right");
        assert!(turned_back, "player 0 turned back");
        // Within its clear square: no loaded projectile is ever near it.
        assert!(
            tiles(furthest_right - x0) < CLEAR_RADIUS as i32 - 1
                && tiles(x0 - furthest_left) < CLEAR_RADIUS as i32 - 1,
            "player 0 ran from {x0} to {furthest_left}..{furthest_right}"
        );
        assert_eq!(s.players[1].pos, start.players[1].pos, "player 1 idled");
        let fired = s.projectiles.iter().filter(|p| p.id >= 32).count();
        assert!(fired > 0 && s.projectiles.iter().all(|p| p.id < 32 || p.owner == 0));
    }
}
