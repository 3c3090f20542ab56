//! Player motion against the maze: one axis at a time, then the pushbox between players.
//!
//! A player collides with walls as a square of half-side `player_radius` (the half-open box
//! `[x − r, x + r) × [y − r, y + r)`). Moving along one axis sweeps the leading edge across
//! every tile column (or row) it passes, so even a displacement of several tiles cannot skip a
//! wall. Moving X first and then Y is a rule: it is what lets a player slide along a wall.

use crate::fx::{fx_bits, tile_of, Fx, FxVec, HALF, ZERO};
use crate::maze::Maze;

/// Which axis a move is along.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Axis {
    X,
    Y,
}

/// Moves the box centred at `pos` by `delta` along `axis`, stopping flush against the first
/// solid tile. Returns whether it was stopped.
fn move_axis(maze: &Maze, pos: &mut FxVec, r: Fx, delta: Fx, axis: Axis) -> bool {
    if delta == ZERO {
        return false;
    }
    let (along, across) = match axis {
        Axis::X => (pos.x, pos.y),
        Axis::Y => (pos.y, pos.x),
    };
    let last = fx_bits(1);
    // Tiles the box spans across the move.
    let (first_row, last_row) = (tile_of(across - r), tile_of(across + r - last));
    let solid_in_line = |line: i32| {
        (first_row..=last_row).any(|k| match axis {
            Axis::X => maze.get_i(line, k).is_solid(),
            Axis::Y => maze.get_i(k, line).is_solid(),
        })
    };
    let target = along + delta;
    let mut result = target;
    let mut blocked = false;
    if delta > ZERO {
        // Lines newly covered by the leading edge [.., along + r).
        for line in (tile_of(along + r - last) + 1)..=tile_of(target + r - last) {
            if solid_in_line(line) {
                result = Fx::from_num(line) - r; // flush: the edge stops at the line's near side
                blocked = true;
                break;
            }
        }
    } else {
        for line in (tile_of(target - r)..tile_of(along - r)).rev() {
            if solid_in_line(line) {
                result = Fx::from_num(line + 1) + r;
                blocked = true;
                break;
            }
        }
    }
    match axis {
        Axis::X => pos.x = result,
        Axis::Y => pos.y = result,
    }
    blocked
}

/// Moves a player box by `delta`, X first then Y, each against the walls. Returns which axes
/// were stopped, so the caller can zero that velocity component.
pub(crate) fn move_box(maze: &Maze, pos: &mut FxVec, r: Fx, delta: FxVec) -> (bool, bool) {
    let bx = move_axis(maze, pos, r, delta.x, Axis::X);
    let by = move_axis(maze, pos, r, delta.y, Axis::Y);
    (bx, by)
}

/// How far apart two overlapping pushbox circles must each move, and which way: returns the
/// displacement for the *second* circle (the first moves by its negation), or `None` if they
/// do not overlap. Coincident centres separate along x, the lower slot to the left, so the
/// result never depends on anything but the two positions.
#[must_use]
pub(crate) fn pushbox_separation(a: FxVec, b: FxVec, radius: Fx) -> Option<FxVec> {
    let reach = radius + radius;
    let d = b - a;
    if d.x.abs() >= reach || d.y.abs() >= reach {
        return None; // cheap reject, and keeps the squared length small
    }
    let dist_sq = d.length_squared();
    if dist_sq >= reach * reach {
        return None;
    }
    let dist = dist_sq.sqrt();
    let dir = if dist == ZERO {
        FxVec::new(Fx::from_num(1), ZERO)
    } else {
        FxVec::new(d.x / dist, d.y / dist)
    };
    Some(dir.scale((reach - dist) * HALF))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::maze::Tile;

    fn corridor() -> Maze {
        // 7×3: walls around a 5-tile corridor at y = 1.
        let (w, h) = (7u32, 3u32);
        let mut tiles = vec![Tile::WALL; (w * h) as usize];
        for x in 1..6 {
            tiles[(w + x) as usize] = Tile::FLOOR;
        }
        Maze {
            width: w,
            height: h,
            tiles,
        }
    }

    fn fx(v: f64) -> Fx {
        Fx::from_num(v)
    }

    #[test]
    fn stops_flush_against_a_wall_even_from_a_huge_step() {
        let maze = corridor();
        let r = fx(0.3);
        let mut pos = FxVec::new(fx(1.5), fx(1.5));
        let (bx, by) = move_box(&maze, &mut pos, r, FxVec::new(fx(20.0), ZERO));
        assert!(bx && !by);
        assert_eq!(pos.x, fx(6.0) - r);
        let (bx, _) = move_box(&maze, &mut pos, r, FxVec::new(fx(-20.0), ZERO));
        assert!(bx);
        assert_eq!(pos.x, fx(1.0) + r);
        assert!(!maze.box_overlaps_solid(pos, r));
    }

    /// A move that ends exactly flush against a wall was not stopped: it went all the way.
    #[test]
    fn ending_exactly_flush_against_a_wall_is_not_being_stopped() {
        let maze = corridor();
        let r = fx(0.25);
        let mut pos = FxVec::new(fx(5.5), fx(1.5));
        assert_eq!(
            move_box(&maze, &mut pos, r, FxVec::new(fx(0.25), ZERO)),
            (false, false)
        );
        assert_eq!(pos.x, fx(6.0) - r);
        let mut pos = FxVec::new(fx(1.5), fx(1.5));
        assert_eq!(
            move_box(&maze, &mut pos, r, FxVec::new(fx(-0.25), ZERO)),
            (false, false)
        );
        assert_eq!(pos.x, fx(1.0) + r);
        assert_eq!(
            move_box(&maze, &mut pos, r, FxVec::new(fx(-0.25), ZERO)),
            (true, false)
        );
        assert_eq!(
            pos.x,
            fx(1.0) + r,
            "a further step is stopped where it stands"
        );
    }

    #[test]
    fn slides_along_a_wall_when_moving_diagonally() {
        let maze = corridor();
        let r = fx(0.3);
        let mut pos = FxVec::new(fx(2.5), fx(1.5));
        let (bx, by) = move_box(&maze, &mut pos, r, FxVec::new(fx(0.25), fx(0.25)));
        assert!(!bx && by, "x is free, y hits the corridor wall");
        assert_eq!(pos, FxVec::new(fx(2.75), fx(2.0) - r));
    }

    #[test]
    fn coincident_pushboxes_separate_along_x() {
        let p = FxVec::new(fx(3.0), fx(3.0));
        let push = pushbox_separation(p, p, fx(0.3)).expect("overlap");
        assert_eq!(push, FxVec::new(fx(0.3), ZERO));
        assert!(pushbox_separation(p, p + FxVec::new(fx(0.6), ZERO), fx(0.3)).is_none());
    }
}
