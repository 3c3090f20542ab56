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
///
/// Inlined where it is called: most projectile/player pairs are far apart and end at the
/// first test, without a call.
#[must_use]
#[inline]
pub(crate) fn segment_circle_toi(p: FxVec, d: FxVec, c: FxVec, r: Fx) -> Option<Fx> {
    if swept_circle_far(p, d, c, r) {
        return None;
    }
    let (fx, fy) = (raw(p.x) - raw(c.x), raw(p.y) - raw(c.y)); // Q16
    circle_toi_near(fx, fy, raw(d.x), raw(d.y), raw(r))
}

/// Whether the point `p + t·d`, `t ∈ [0, 1]`, surely stays more than `r` from `c`: exact when
/// `true` (no contact), a box test. Along an axis the point never comes closer to the centre
/// than |f| − |d|, so beyond r + |d| on either axis there is no contact. Most
/// projectile/player pairs are far apart; this spares them the 128-bit arithmetic.
#[must_use]
#[inline]
pub(crate) fn swept_circle_far(p: FxVec, d: FxVec, c: FxVec, r: Fx) -> bool {
    swept_circle_margin(p, d, c, r) > 0
}

/// By how much the point `p + t·d`, `t ∈ [0, 1]`, clears [`swept_circle_far`]'s test: the
/// larger over the two axes of |f| − r − |d| (raw 16.16 bits, `f = p − c`). Above 0 exactly
/// when the test says far; the amount is how much the offset may still shrink, on that axis,
/// before it would not (the projectiles' clearance from the players counts on it).
#[must_use]
#[inline]
pub(crate) fn swept_circle_margin(p: FxVec, d: FxVec, c: FxVec, r: Fx) -> i64 {
    let (fx, fy) = (raw(p.x) - raw(c.x), raw(p.y) - raw(c.y)); // Q16
    let (dx, dy) = (raw(d.x), raw(d.y)); // Q16
    let r = raw(r);
    (fx.abs() - r - dx.abs()).max(fy.abs() - r - dy.abs())
}

/// [`segment_circle_toi`] past its early out: `f` is the start relative to the centre, all
/// Q16.
#[inline(never)]
fn circle_toi_near(fx: i64, fy: i64, dx: i64, dy: i64, r: i64) -> Option<Fx> {
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

/// A time along a ray as an exact fraction `num / den` of steps (`num ≥ 0`, `den > 0`).
#[derive(Clone, Copy)]
struct Time {
    num: i64,
    den: i64,
}

impl Time {
    fn lt(self, other: Time) -> bool {
        self.num * other.den < other.num * self.den
    }

    fn beyond(self, steps: i64) -> bool {
        self.num > steps * self.den
    }
}

/// One axis of a ray walked boundary by boundary: the tile lines it touches while between
/// boundaries, and the next boundary it reaches.
struct Axis {
    /// Where the point starts (Q16) and its speed per step (Q16).
    start: i64,
    speed: i64,
    /// The lines of tiles touched between boundaries, `lo..=hi` (two where the point runs
    /// along a tile edge without moving on this axis).
    lo: i32,
    hi: i32,
    /// The next boundary ahead (Q16), if the point moves on this axis.
    next: Option<i64>,
    /// Whether it moves toward higher lines.
    forward: bool,
}

impl Axis {
    fn new(start: i64, speed: i64) -> Axis {
        let line = (start >> 16) as i32;
        let on_edge = start & (ONE_RAW - 1) == 0;
        let (lo, hi, next) = match speed.signum() {
            0 if on_edge => (line - 1, line, None),
            0 => (line, line, None),
            1 => (line, line, Some(i64::from(line + 1) << 16)),
            _ if on_edge => (line - 1, line - 1, Some(i64::from(line - 1) << 16)),
            _ => (line, line, Some(i64::from(line) << 16)),
        };
        Axis {
            start,
            speed,
            lo,
            hi,
            next,
            forward: speed > 0,
        }
    }

    /// When the point reaches the next boundary.
    fn next_time(&self) -> Option<Time> {
        self.next.map(|b| Time {
            num: (b - self.start).abs(),
            den: self.speed.abs(),
        })
    }

    /// The lines touched at the instant of crossing the next boundary: both beside it.
    fn at_crossing(&self) -> (i32, i32) {
        let line = (self.next.unwrap_or(0) >> 16) as i32;
        (line - 1, line)
    }

    /// Past the next boundary: into the next line, with the boundary after it ahead.
    fn cross(&mut self) {
        let Some(b) = self.next else { return };
        let line = (b >> 16) as i32;
        let (into, after) = if self.forward {
            (line, b + ONE_RAW)
        } else {
            (line - 1, b - ONE_RAW)
        };
        (self.lo, self.hi, self.next) = (into, into, Some(after));
    }
}

/// How many of the next steps (at most `most`, at most 255) of a point at `p` moving `d` per
/// step are sure to meet no solid tile: the steps whose whole segment, ends included, stays off
/// every solid tile's closed square. For those [`segment_grid_toi`] is certainly `None` (it
/// only walks tiles the segment touches), so the projectile phase may skip it; the step after
/// them is walked exactly.
///
/// Walks the whole ray once, boundary by boundary: the closed squares a point touches change
/// only where it reaches a tile edge, and there it touches the tiles on both sides, so the
/// first solid square met is met at the start or at such a crossing; crossings on both axes at
/// one instant (a corner) are taken together. Times are exact fractions compared by
/// cross-multiplication. Solid tiles only ever become floor within a round (the maze is
/// regenerated only with the projectiles cleared), so a count stays a safe lower bound while
/// blocks break around it.
#[must_use]
pub(crate) fn wall_clear_ticks(maze: &Maze, p: FxVec, d: FxVec, most: u16) -> u8 {
    let limit = i64::from(most.min(u16::from(u8::MAX)));
    let solid = |(x0, x1): (i32, i32), (y0, y1): (i32, i32)| {
        (y0..=y1).any(|y| (x0..=x1).any(|x| maze.get_i(x, y).is_solid()))
    };
    let (mut x, mut y) = (Axis::new(raw(p.x), raw(d.x)), Axis::new(raw(p.y), raw(d.y)));
    let span = |v: i64| {
        let line = (v >> 16) as i32;
        if v & (ONE_RAW - 1) == 0 {
            (line - 1, line)
        } else {
            (line, line)
        }
    };
    if solid(span(raw(p.x)), span(raw(p.y))) {
        return 0;
    }
    loop {
        let (tx, ty) = (x.next_time(), y.next_time());
        let (at, on_x, on_y) = match (tx, ty) {
            (None, None) => return limit as u8,
            (Some(t), None) => (t, true, false),
            (None, Some(t)) => (t, false, true),
            (Some(a), Some(b)) if a.lt(b) => (a, true, false),
            (Some(a), Some(b)) if b.lt(a) => (b, false, true),
            (Some(a), Some(_)) => (a, true, true),
        };
        if at.beyond(limit) {
            return limit as u8;
        }
        let cols = if on_x { x.at_crossing() } else { (x.lo, x.hi) };
        let rows = if on_y { y.at_crossing() } else { (y.lo, y.hi) };
        if solid(cols, rows) {
            // Steps i with i + 1 < at: ⌈at⌉ − 1 of them (at > 0 here).
            return ((at.num + at.den - 1) / at.den - 1) as u8;
        }
        if on_x {
            x.cross();
        }
        if on_y {
            y.cross();
        }
    }
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

    const ALL: u16 = u16::MAX;

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

    /// The count is the largest safe one where a wall lies ahead: steps that end short of the
    /// wall's square are counted, the step that reaches it is not (the exact walk enters it).
    #[test]
    fn wall_clear_counts_the_steps_that_end_short_of_a_wall() {
        let maze = open_room(); // border walls: tile x = 8 starts at x = 8
        let cases = [(6.5, 0.5, 2), (6.5, 0.4, 3), (7.5, 0.25, 1), (7.9, 0.5, 0)];
        for (x, speed, clear) in cases {
            let (p, d) = (v(x, 4.5), v(speed, 0.0));
            assert_eq!(
                wall_clear_ticks(&maze, p, d, ALL),
                clear,
                "from {x} at {speed}"
            );
            for i in 0..clear {
                let at = p + d.scale(fx_int(i32::from(i)));
                assert_eq!(segment_grid_toi(&maze, at, d), None, "step {i} is clear");
            }
            let last = p + d.scale(fx_int(i32::from(clear)));
            assert!(
                segment_grid_toi(&maze, last, d).is_some(),
                "step {clear} hits"
            );
        }
    }

    /// Nothing ahead but the far wall: every step up to it, at most 255 or as many as asked.
    #[test]
    fn wall_clear_runs_to_the_far_wall_or_the_limit() {
        let maze = open_room(); // floor from 1 to 8 on both axes
        let clear = |p, d, most| wall_clear_ticks(&maze, p, d, most);
        assert_eq!(clear(v(3.5, 4.5), v(0.5, 0.0), ALL), 8);
        assert_eq!(clear(v(3.5, 4.5), v(0.5, 0.0), 3), 3);
        // The limit at the very step that reaches the wall: that step is not clear.
        assert_eq!(clear(v(3.5, 4.5), v(0.5, 0.0), 9), 8);
        assert_eq!(clear(v(3.5, 4.5), v(0.5, 0.0), 8), 8);
        assert_eq!(clear(v(3.5, 4.5), v(0.5, 0.0), 300), 8);
        // x reaches 8 after 15 steps, y reaches 1 after 17.5.
        assert_eq!(clear(v(3.5, 4.5), v(0.3, -0.2), ALL), 14);
        assert_eq!(clear(v(4.5, 4.5), v(1.0 / 128.0, 0.0), ALL), 255);
        assert_eq!(clear(v(4.5, 4.5), FxVec::ZERO, ALL), 255);
        assert_eq!(clear(v(4.5, 4.5), FxVec::ZERO, 7), 7);
        // Fast: 2.25 steps to the wall.
        assert_eq!(clear(v(3.5, 4.5), v(2.0, 0.0), ALL), 2);
    }

    /// A square met only at its corner counts, and so does one grazed along its side: both
    /// are where the exact walk may enter it.
    #[test]
    fn wall_clear_stops_at_a_corner_or_an_edge_touched() {
        let mut maze = open_room();
        maze.set(5, 5, Tile::WALL);
        let clear = |p, d| wall_clear_ticks(&maze, p, d, ALL);
        // Diagonal through the corner (5, 5) at step 3.
        assert_eq!(clear(v(3.5, 3.5), v(0.5, 0.5)), 2);
        // Through the same corner with each of the other three squares at it solid instead:
        // crossings on both axes at one instant touch all four.
        for (x, y) in [(4, 4), (5, 4), (4, 5)] {
            let mut maze = open_room();
            maze.set(x, y, Tile::WALL);
            let (p, d) = (v(3.5, 3.5), v(0.5, 0.5));
            let clear = wall_clear_ticks(&maze, p, d, ALL);
            assert_eq!(
                clear,
                if (x, y) == (4, 4) { 0 } else { 2 },
                "solid ({x}, {y})"
            );
        }
        // Along y = 5, the top edge of tile (5, 5), reached at x = 5 after 3 steps.
        assert_eq!(clear(v(3.5, 5.0), v(0.5, 0.0)), 2);
        // Along y = 4.9, just clear of it: on to the far wall.
        assert_eq!(clear(v(3.5, 4.9), v(0.5, 0.0)), 8);
        // Standing on a solid square's edge: no step is sure.
        assert_eq!(clear(v(5.0, 5.5), v(0.0, 0.1)), 0);
        // Below it on its left edge, moving up: its square is met after 5 steps.
        assert_eq!(clear(v(5.0, 4.5), v(0.0, 0.1)), 4);
        // Leftward and upward through edges and corners of the border.
        assert_eq!(clear(v(2.5, 4.5), v(-0.5, 0.0)), 2);
        assert_eq!(clear(v(2.0, 2.0), v(-0.25, -0.25)), 3);
        assert_eq!(clear(v(1.0, 4.5), v(0.0, -0.5)), 0);
    }

    proptest::proptest! {
        /// Over generated mazes, every step a count claims clear is clear to the exact walk
        /// (the property the projectile phase relies on to skip it).
        #[test]
        fn every_step_counted_clear_meets_no_wall(
            seed in 0u64..64,
            tile in 0usize..10_000,
            frac in (0i32..65_536, 0i32..65_536),
            vel in (-131_072i32..=131_072, -131_072i32..=131_072),
        ) {
            let maze = Maze::generate(&crate::Rules::default(), seed);
            let floor: Vec<usize> =
                (0..maze.tiles.len()).filter(|&i| !maze.tiles[i].is_solid()).collect();
            let i = floor[tile % floor.len()] as u32;
            let (tx, ty) = ((i % maze.width) as i32, (i / maze.width) as i32);
            let p = FxVec::new(fx_bits((tx << 16) + frac.0), fx_bits((ty << 16) + frac.1));
            let d = FxVec::new(fx_bits(vel.0), fx_bits(vel.1));
            let clear = wall_clear_ticks(&maze, p, d, ALL);
            let mut at = p;
            for step in 0..clear {
                proptest::prop_assert_eq!(
                    segment_grid_toi(&maze, at, d), None, "step {} of {}", step, clear
                );
                at += d;
            }
        }
    }
}
