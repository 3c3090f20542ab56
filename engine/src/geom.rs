//! Swept collision: where along a step a moving point first meets a circle or a solid tile.
//!
//! Times are fractions of the step in 16.16 (`0` = start, `ONE` = end). The arithmetic runs on
//! the raw bits in `i64`/`i128`, where every product is exact, so there is no rounding except
//! the final floor division that produces the time — and that is the same on every machine.
//! A point is never tested only at its end position, so nothing tunnels at any speed.

use crate::fx::{fx_bits, tile_of, Fx, FxVec};
use crate::maze::Maze;

const ONE_RAW: i64 = 1 << 16;

fn raw(v: Fx) -> i64 {
    i64::from(v.to_bits())
}

/// The first time in `[0, 1]` at which the point `p + t·d` is within `r` of `c`.
/// Starting inside (or on) the circle is a hit at `t = 0`.
#[must_use]
pub(crate) fn segment_circle_toi(p: FxVec, d: FxVec, c: FxVec, r: Fx) -> Option<Fx> {
    let (fx, fy) = (raw(p.x) - raw(c.x), raw(p.y) - raw(c.y)); // Q16
    let (dx, dy) = (raw(d.x), raw(d.y)); // Q16
    let r = raw(r);
    // Early out, exact: along an axis the point never comes closer to the centre than
    // |f| − |d|, so beyond r + |d| on either axis there is no contact at any t in [0, 1].
    // Most projectile/player pairs are far apart; this spares them the 128-bit arithmetic.
    if fx.abs() > r + dx.abs() || fy.abs() > r + dy.abs() {
        return None;
    }
    let c_term = i128::from(fx * fx + fy * fy - r * r); // Q32: |f|² − r²
    if c_term <= 0 {
        return Some(fx_bits(0));
    }
    let b = i128::from(fx * dx + fy * dy); // Q32: f·d
    if b >= 0 {
        return None; // moving away from (or tangent to) the circle
    }
    let a = i128::from(dx * dx + dy * dy); // Q32: |d|², > 0 because b < 0
    let disc = b * b - a * c_term; // Q64
    if disc < 0 {
        return None;
    }
    let root = disc.cast_unsigned().isqrt().cast_signed(); // Q32
    let t = ((-b - root) << 16) / a; // Q16, ≥ 0 since root < |b| when c_term > 0
    (t <= i128::from(ONE_RAW)).then(|| fx_bits(t as i32))
}

/// The first solid tile the point `p + t·d`, `t ∈ (0, 1]`, enters, with the time it enters.
///
/// Walks the tile boundaries in the order the point crosses them (a digital differential
/// analyser). Crossing times are compared exactly by cross-multiplication; when an x and a y
/// boundary are crossed at the same instant (through a corner) the x crossing is taken first.
/// A tile is entered when the point moves strictly past its near edge, so the tile holding the
/// end point is always the last tile walked: a point that is not stopped ends on open floor.
#[must_use]
pub(crate) fn segment_grid_toi(maze: &Maze, p: FxVec, d: FxVec) -> Option<(Fx, i32, i32)> {
    let (px, py, dx, dy) = (raw(p.x), raw(p.y), raw(d.x), raw(d.y));
    let (ex, ey) = (px + dx, py + dy);
    let (mut tx, mut ty) = (tile_of(p.x), tile_of(p.y));
    let end = (tile_of(fx_bits(ex as i32)), tile_of(fx_bits(ey as i32)));
    if maze.get_i(tx, ty).is_solid() {
        return Some((fx_bits(0), tx, ty));
    }
    let (sx, sy) = (dx.signum() as i32, dy.signum() as i32);
    while (tx, ty) != end {
        // Distance from the start to the next x and y boundaries, along each axis (Q16, ≥ 0).
        let next_bx = i64::from(if sx > 0 { tx + 1 } else { tx }) << 16;
        let next_by = i64::from(if sy > 0 { ty + 1 } else { ty }) << 16;
        let dist_x = (next_bx - px).abs();
        let dist_y = (next_by - py).abs();
        let x_pending = tx != end.0;
        let y_pending = ty != end.1;
        // t_x ≤ t_y  ⇔  dist_x / |dx| ≤ dist_y / |dy|  ⇔  dist_x·|dy| ≤ dist_y·|dx|.
        let take_x = x_pending && (!y_pending || dist_x * dy.abs() <= dist_y * dx.abs());
        let (dist, speed) = if take_x {
            tx += sx;
            (dist_x, dx.abs())
        } else {
            ty += sy;
            (dist_y, dy.abs())
        };
        if maze.get_i(tx, ty).is_solid() {
            let t = ((dist << 16) / speed).min(ONE_RAW);
            return Some((fx_bits(t as i32), tx, ty));
        }
    }
    None
}

/// The point reached after the fraction `t` of the step.
#[must_use]
pub(crate) fn point_at(p: FxVec, d: FxVec, t: Fx) -> FxVec {
    p + d.scale(t)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fx::{fx_int, HALF, ONE, ZERO};
    use crate::maze::Tile;

    fn v(x: f64, y: f64) -> FxVec {
        FxVec::new(Fx::from_num(x), Fx::from_num(y))
    }

    fn open_room() -> Maze {
        let (w, h) = (9u32, 9u32);
        let mut tiles = vec![Tile::FLOOR; (w * h) as usize];
        for y in 0..h {
            for x in 0..w {
                if x == 0 || y == 0 || x == w - 1 || y == h - 1 {
                    tiles[(y * w + x) as usize] = Tile::WALL;
                }
            }
        }
        Maze {
            width: w,
            height: h,
            tiles,
        }
    }

    #[test]
    fn circle_hit_time_is_where_the_edge_is_met() {
        // From x=0 moving 4 to the right, circle at x=3 radius 1: contact at x=2, t=0.5.
        let t = segment_circle_toi(v(0.0, 0.0), v(4.0, 0.0), v(3.0, 0.0), ONE);
        assert_eq!(t, Some(HALF));
    }

    #[test]
    fn a_fast_point_cannot_tunnel_through_a_circle() {
        // Passes clean through a small circle between its start and end points.
        let t = segment_circle_toi(v(0.0, 0.0), v(2.0, 0.0), v(1.0, 0.05), Fx::from_num(0.1));
        assert!(t.is_some());
        assert!(
            segment_circle_toi(v(0.0, 0.0), v(2.0, 0.0), v(1.0, 0.2), Fx::from_num(0.1)).is_none()
        );
    }

    /// Contact exactly at the end of the step, and a graze exactly at the radius, are hits:
    /// "within r" includes r. Both sit exactly on the early out's bound as well.
    #[test]
    fn touching_at_the_very_end_or_grazing_the_edge_is_a_hit() {
        // From x=-3 moving 2 to the right, circle at 0 radius 1: reaches its edge at t = 1.
        let end = segment_circle_toi(v(-3.0, 0.0), v(2.0, 0.0), v(0.0, 0.0), ONE);
        assert_eq!(end, Some(ONE));
        // The same along y.
        let end = segment_circle_toi(v(0.0, -3.0), v(0.0, 2.0), v(0.0, 0.0), ONE);
        assert_eq!(end, Some(ONE));
        // Passing one radius above the centre touches it once, halfway (a zero discriminant).
        let graze = segment_circle_toi(v(-2.0, 1.0), v(4.0, 0.0), v(0.0, 0.0), ONE);
        assert_eq!(graze, Some(HALF));
        // A hair further out is a miss.
        let above = v(-2.0, 1.0) + FxVec::new(ZERO, fx_bits(1));
        assert_eq!(
            segment_circle_toi(above, v(4.0, 0.0), v(0.0, 0.0), ONE),
            None
        );
    }

    #[test]
    fn moving_away_or_short_is_a_miss_and_inside_is_immediate() {
        assert_eq!(
            segment_circle_toi(v(0.0, 0.0), v(-1.0, 0.0), v(3.0, 0.0), ONE),
            None
        );
        assert_eq!(
            segment_circle_toi(v(0.0, 0.0), v(1.0, 0.0), v(3.0, 0.0), ONE),
            None
        );
        assert_eq!(
            segment_circle_toi(v(2.5, 0.0), v(1.0, 0.0), v(3.0, 0.0), ONE),
            Some(ZERO)
        );
    }

    #[test]
    fn grid_walk_stops_at_the_first_solid_tile_even_when_fast() {
        let mut maze = open_room();
        maze.set(5, 4, Tile::block(3));
        // From (1.5, 4.5) moving 6 tiles right in one step: stops entering tile 5 at t = 3.5/6.
        let hit = segment_grid_toi(&maze, v(1.5, 4.5), v(6.0, 0.0));
        let (t, x, y) = hit.expect("hits the block");
        assert_eq!((x, y), (5, 4));
        assert_eq!(t, fx_bits(((35i64 << 16) / 60) as i32));
    }

    #[test]
    fn grid_walk_checks_tiles_on_a_diagonal() {
        let mut maze = open_room();
        maze.set(3, 2, Tile::WALL);
        // A shallow diagonal that clips tile (3, 2) on its way from (2.9, 2.9) to (3.9, 1.9).
        let hit = segment_grid_toi(&maze, v(2.9, 2.9), v(1.0, -1.0));
        assert_eq!(hit.map(|(_, x, y)| (x, y)), Some((3, 2)));
    }

    #[test]
    fn unobstructed_walk_ends_on_floor() {
        let maze = open_room();
        assert_eq!(segment_grid_toi(&maze, v(1.5, 1.5), v(3.0, 2.0)), None);
        assert_eq!(segment_grid_toi(&maze, v(4.0, 4.0), FxVec::ZERO), None);
        // Landing exactly on the left edge of a tile is inside it; leaving leftward to x = 1.0
        // stays in tile 1.
        assert_eq!(segment_grid_toi(&maze, v(2.5, 4.5), v(-1.5, 0.0)), None);
        let (t, x, _) = segment_grid_toi(&maze, v(2.5, 4.5), FxVec::new(-fx_int(2), ZERO))
            .expect("enters the border");
        assert_eq!(x, 0);
        assert_eq!(t, Fx::from_num(0.75));
    }
}
