//! The arena: a tile grid carved into a maze from a seed, with destructible blocks.
//!
//! The grid is live state: projectiles wear blocks down and break them, so the whole grid is in
//! the snapshot and on the wire, never just its seed. Generation is defined here entirely
//! (a [`DetRng`] and an iterative depth-first carve), so a seed gives the same maze on every
//! platform and library version.
//!
//! Layout: cells sit at odd coordinates `(2i + 1, 2j + 1)`; the tiles between two cells are
//! walls until the carve opens them; the outer border is always indestructible wall.

use crate::fx::{fx_bits, tile_of, Fx, FxVec};
use crate::rng::DetRng;
use crate::rules::Rules;
use serde::{Deserialize, Serialize};

/// One tile of the grid, as stored: `0` floor, `255` indestructible wall, `1..=254` a
/// destructible block with that many hit points left.
/// One byte in memory, as in the encoding: the maze's hash reads the grid as it lies.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[repr(transparent)]
#[derive(bytemuck::Pod, bytemuck::Zeroable)]
pub struct Tile(pub u8);

impl Tile {
    /// Open floor.
    pub const FLOOR: Tile = Tile(0);
    /// Indestructible wall.
    pub const WALL: Tile = Tile(255);

    /// A destructible block with `hp` hit points (clamped to `1..=254`).
    #[must_use]
    pub fn block(hp: u8) -> Tile {
        Tile(hp.clamp(1, 254))
    }

    /// Whether players and projectiles are stopped by this tile.
    #[must_use]
    pub fn is_solid(self) -> bool {
        self.0 != 0
    }

    /// Hit points left if this is a destructible block.
    #[must_use]
    pub fn block_hp(self) -> Option<u8> {
        (self.0 != 0 && self.0 != 255).then_some(self.0)
    }
}

/// The tile grid. Coordinates outside the grid read as wall.
#[derive(Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Maze {
    /// Width in tiles.
    pub width: u32,
    /// Height in tiles.
    pub height: u32,
    /// Row-major tiles, `width * height` of them.
    pub tiles: Vec<Tile>,
}

impl Clone for Maze {
    fn clone(&self) -> Maze {
        Maze {
            width: self.width,
            height: self.height,
            tiles: self.tiles.clone(),
        }
    }

    /// Reuses the tile buffer (a snapshot save must not allocate).
    fn clone_from(&mut self, source: &Maze) {
        self.width = source.width;
        self.height = source.height;
        self.tiles.clone_from(&source.tiles);
    }
}

/// Buffers the carve reuses so that generating a new round's maze does not allocate.
#[derive(Debug, Default, Clone)]
pub(crate) struct MazeScratch {
    stack: Vec<(u32, u32)>,
    walls: Vec<u32>,
}

impl Maze {
    /// An empty grid with no capacity, to be filled by generation or a restore.
    #[must_use]
    pub fn empty() -> Maze {
        Maze {
            width: 0,
            height: 0,
            tiles: Vec::new(),
        }
    }

    /// Generates the maze for `seed` under `rules` into a new grid.
    #[must_use]
    pub fn generate(rules: &Rules, seed: u64) -> Maze {
        let mut maze = Maze::empty();
        maze.generate_into(rules, seed, &mut MazeScratch::default());
        maze
    }

    /// Generates in place, reusing this grid's and the scratch's buffers.
    ///
    /// Steps, all driven by one `DetRng::from_seed(seed)`:
    /// 1. fill with wall; carve a perfect maze by iterative depth-first search from cell (0, 0),
    ///    choosing among unvisited neighbours (order: up, right, down, left) with `below(n)`;
    /// 2. list the interior walls still standing between two cells in row-major order; knock
    ///    out `extra_openings_percent` of them, each picked with `below(remaining)` and removed
    ///    from the list by swap-remove;
    /// 3. turn `block_percent` of those still standing into destructible blocks the same way.
    ///
    /// Every cell is reachable after step 1, and steps 2–3 only open or soften walls, so every
    /// floor tile stays reachable from every other.
    pub(crate) fn generate_into(&mut self, rules: &Rules, seed: u64, scratch: &mut MazeScratch) {
        let mut rng = DetRng::from_seed(seed);
        let (cw, ch) = (u32::from(rules.maze_cells_w), u32::from(rules.maze_cells_h));
        self.width = cw * 2 + 1;
        self.height = ch * 2 + 1;
        self.tiles.clear();
        self.tiles
            .resize((self.width * self.height) as usize, Tile::WALL);

        // 1. Perfect maze: recursive backtracker with an explicit stack.
        let stack = &mut scratch.stack;
        stack.clear();
        self.set(1, 1, Tile::FLOOR);
        stack.push((0, 0));
        while let Some(&(cx, cy)) = stack.last() {
            let mut options = [(0u32, 0u32); 4];
            let mut n = 0;
            for (dx, dy) in [(0i32, -1i32), (1, 0), (0, 1), (-1, 0)] {
                let (nx, ny) = (cx as i32 + dx, cy as i32 + dy);
                if nx < 0 || ny < 0 || nx >= cw as i32 || ny >= ch as i32 {
                    continue;
                }
                let (nx, ny) = (nx as u32, ny as u32);
                if self.get(nx * 2 + 1, ny * 2 + 1) == Tile::WALL {
                    options[n] = (nx, ny);
                    n += 1;
                }
            }
            if n == 0 {
                stack.pop();
                continue;
            }
            let (nx, ny) = options[rng.below(n as u32) as usize];
            self.set(cx + nx + 1, cy + ny + 1, Tile::FLOOR); // the wall between the two cells
            self.set(nx * 2 + 1, ny * 2 + 1, Tile::FLOOR);
            stack.push((nx, ny));
        }

        // 2–3. Interior walls between two cells: odd/even or even/odd coordinates.
        let walls = &mut scratch.walls;
        walls.clear();
        for y in 1..self.height - 1 {
            for x in 1..self.width - 1 {
                let between_cells = (x % 2) != (y % 2);
                if between_cells && self.get(x, y) == Tile::WALL {
                    walls.push(y * self.width + x);
                }
            }
        }
        let openings = walls.len() * usize::from(rules.extra_openings_percent) / 100;
        for _ in 0..openings {
            let pick = rng.below(walls.len() as u32) as usize;
            let index = walls.swap_remove(pick);
            self.tiles[index as usize] = Tile::FLOOR;
        }
        let blocks = walls.len() * usize::from(rules.block_percent) / 100;
        for _ in 0..blocks {
            let pick = rng.below(walls.len() as u32) as usize;
            let index = walls.swap_remove(pick);
            self.tiles[index as usize] = Tile::block(rules.block_hp);
        }
    }

    /// The tile at `(x, y)`; outside the grid is wall.
    #[must_use]
    pub fn get(&self, x: u32, y: u32) -> Tile {
        if x >= self.width || y >= self.height {
            return Tile::WALL;
        }
        self.tiles[(y * self.width + x) as usize]
    }

    /// The tile at signed coordinates; outside the grid (negative included) is wall.
    #[must_use]
    pub fn get_i(&self, x: i32, y: i32) -> Tile {
        match (u32::try_from(x), u32::try_from(y)) {
            (Ok(x), Ok(y)) => self.get(x, y),
            _ => Tile::WALL,
        }
    }

    /// Sets a tile inside the grid.
    pub(crate) fn set(&mut self, x: u32, y: u32, tile: Tile) {
        let w = self.width;
        self.tiles[(y * w + x) as usize] = tile;
    }

    /// The floor tile at the centre of cell `(cx, cy)`.
    #[must_use]
    pub fn cell_tile(cx: u32, cy: u32) -> (u32, u32) {
        (cx * 2 + 1, cy * 2 + 1)
    }

    /// Number of floor tiles reachable from `(x, y)` by 4-neighbour steps (a test and tooling
    /// helper; allocates).
    #[must_use]
    pub fn reachable_floor_from(&self, x: u32, y: u32) -> usize {
        let mut seen = vec![false; self.tiles.len()];
        let mut queue = vec![(x, y)];
        let mut count = 0;
        while let Some((x, y)) = queue.pop() {
            let i = (y * self.width + x) as usize;
            if self.get(x, y).is_solid() || seen[i] {
                continue;
            }
            seen[i] = true;
            count += 1;
            queue.extend([(x + 1, y), (x, y + 1)]);
            if let Some(left) = x.checked_sub(1) {
                queue.push((left, y));
            }
            if let Some(up) = y.checked_sub(1) {
                queue.push((x, up));
            }
        }
        count
    }

    /// Whether the segment from `from` to `to` crosses no solid tile (the same grid walk the
    /// projectiles and the rail use). Tools and bots ask this; the step never does.
    #[must_use]
    pub fn line_of_sight(&self, from: FxVec, to: FxVec) -> bool {
        crate::geom::segment_grid_toi(self, from, to - from).is_none()
    }

    /// Whether a player box centred at `pos` with half-side `r` overlaps a solid tile. A state
    /// reached by stepping never has a player in a wall; tests check it.
    #[must_use]
    pub fn box_overlaps_solid(&self, pos: FxVec, r: Fx) -> bool {
        let last = fx_bits(1);
        (tile_of(pos.y - r)..=tile_of(pos.y + r - last)).any(|y| {
            (tile_of(pos.x - r)..=tile_of(pos.x + r - last)).any(|x| self.get_i(x, y).is_solid())
        })
    }

    /// Whether `other` is the same grid, compared as bytes.
    pub(crate) fn same_tiles(&self, other: &Maze) -> bool {
        (self.width, self.height) == (other.width, other.height)
            && bytemuck::cast_slice::<Tile, u8>(&self.tiles)
                == bytemuck::cast_slice::<Tile, u8>(&other.tiles)
    }

    /// Checks the structural invariants a restored grid must hold.
    pub(crate) fn check(&self) -> Result<(), String> {
        if self.width < 5 || self.height < 5 || self.width > 63 || self.height > 63 {
            return Err(format!("maze is {}x{} tiles", self.width, self.height));
        }
        if self.tiles.len() != (self.width * self.height) as usize {
            return Err(format!(
                "maze has {} tiles for {}x{}",
                self.tiles.len(),
                self.width,
                self.height
            ));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fx::ZERO;

    /// A 5×5 room: floor inside a border of wall (floor spans 1.0 to 4.0 on each axis).
    fn room() -> Maze {
        let mut tiles = vec![Tile::WALL; 25];
        for y in 1..4 {
            for x in 1..4 {
                tiles[y * 5 + x] = Tile::FLOOR;
            }
        }
        Maze {
            width: 5,
            height: 5,
            tiles,
        }
    }

    /// A restored grid is 5 to 63 tiles a side, each side alone at its bound and one past, and
    /// holds exactly one tile per cell.
    #[test]
    fn a_restored_grid_is_5_to_63_tiles_a_side_with_one_tile_each() {
        let grid = |width: u32, height: u32| Maze {
            width,
            height,
            tiles: vec![Tile::WALL; (width * height) as usize],
        };
        for (w, h, ok) in [
            (5, 5, true),
            (63, 63, true),
            (4, 9, false),
            (9, 4, false),
            (64, 9, false),
            (9, 64, false),
        ] {
            assert_eq!(grid(w, h).check().is_ok(), ok, "{w}x{h}");
        }
        let mut short = grid(9, 9);
        short.tiles.pop();
        assert!(short.check().is_err());
        let mut long = grid(9, 9);
        long.tiles.push(Tile::WALL);
        assert!(long.check().is_err());
    }

    /// A box flush against each wall does not overlap it; one bit further on any side does.
    #[test]
    fn a_box_overlaps_a_wall_only_past_its_edge() {
        let maze = room();
        let r = Fx::from_num(0.25);
        let bit = fx_bits(1);
        let (lo, hi, mid) = (Fx::from_num(1) + r, Fx::from_num(4) - r, Fx::from_num(2.5));
        for (x, y, dx, dy) in [
            (lo, mid, -bit, ZERO),
            (hi, mid, bit, ZERO),
            (mid, lo, ZERO, -bit),
            (mid, hi, ZERO, bit),
        ] {
            let flush = FxVec::new(x, y);
            assert!(!maze.box_overlaps_solid(flush, r), "{flush:?}");
            let into = FxVec::new(x + dx, y + dy);
            assert!(maze.box_overlaps_solid(into, r), "{into:?}");
        }
    }

    /// Sight is the grid walk from one point to the other: clear across open floor in either
    /// direction, blocked by a wall between.
    #[test]
    fn line_of_sight_runs_from_one_point_to_the_other() {
        let mut maze = room();
        let (a, b) = (
            FxVec::new(Fx::from_num(1.5), Fx::from_num(2.5)),
            FxVec::new(Fx::from_num(3.5), Fx::from_num(2.5)),
        );
        assert!(maze.line_of_sight(a, b) && maze.line_of_sight(b, a));
        maze.set(2, 2, Tile::block(1));
        assert!(!maze.line_of_sight(a, b) && !maze.line_of_sight(b, a));
        // A wall beyond the target does not block it.
        let short = FxVec::new(Fx::from_num(1.5), Fx::from_num(1.5));
        assert!(maze.line_of_sight(a, short));
    }

    /// Everything outside the grid, on any side and at any distance, reads as wall; inside,
    /// the tile itself, the first row and column included.
    /// A restore keeps its cached maze hash only for the very same grid: equal tiles and
    /// dimensions, not the same bytes read with the sides swapped.
    #[test]
    fn same_tiles_means_same_dimensions_and_bytes() {
        let grid = room();
        assert!(grid.same_tiles(&grid.clone()));
        let mut damaged = grid.clone();
        damaged.set(2, 2, Tile::block(1));
        assert!(!grid.same_tiles(&damaged));
        let wide = Maze {
            width: 5,
            height: 6,
            tiles: vec![Tile::WALL; 30],
        };
        let tall = Maze {
            width: 6,
            height: 5,
            tiles: vec![Tile::WALL; 30],
        };
        assert!(!wide.same_tiles(&tall));
        assert!(wide.same_tiles(&wide.clone()));
    }

    #[test]
    fn outside_the_grid_is_wall_and_inside_is_the_tile() {
        let maze = Maze {
            width: 5,
            height: 5,
            tiles: vec![Tile::FLOOR; 25],
        };
        for (x, y) in [
            (-1, 2),
            (2, -1),
            (-1, -1),
            (5, 2),
            (2, 5),
            (i32::MIN, 0),
            (0, i32::MAX),
        ] {
            assert_eq!(maze.get_i(x, y), Tile::WALL, "({x}, {y})");
        }
        for (x, y) in [(0, 0), (0, 4), (4, 0), (2, 2)] {
            assert_eq!(maze.get_i(x, y), Tile::FLOOR, "({x}, {y})");
        }
    }

    fn ascii(maze: &Maze) -> String {
        let mut s = String::new();
        for y in 0..maze.height {
            for x in 0..maze.width {
                s.push(match maze.get(x, y) {
                    Tile::FLOOR => '.',
                    Tile::WALL => '#',
                    Tile(hp) => char::from(b'0' + hp % 10),
                });
            }
            s.push('\n');
        }
        s
    }

    #[test]
    fn every_floor_tile_is_reachable() {
        let rules = Rules::default();
        for seed in 0..200 {
            let maze = Maze::generate(&rules, seed);
            let floor = maze.tiles.iter().filter(|t| !t.is_solid()).count();
            assert_eq!(maze.reachable_floor_from(1, 1), floor, "seed {seed}");
        }
    }

    #[test]
    fn border_is_indestructible_wall() {
        let maze = Maze::generate(&Rules::default(), 3);
        for x in 0..maze.width {
            assert_eq!(maze.get(x, 0), Tile::WALL);
            assert_eq!(maze.get(x, maze.height - 1), Tile::WALL);
        }
        for y in 0..maze.height {
            assert_eq!(maze.get(0, y), Tile::WALL);
            assert_eq!(maze.get(maze.width - 1, y), Tile::WALL);
        }
    }

    #[test]
    fn regenerating_into_a_used_grid_gives_the_same_maze() {
        let rules = Rules::default();
        let mut maze = Maze::generate(&rules, 5);
        let mut scratch = MazeScratch::default();
        maze.generate_into(&rules, 9, &mut scratch);
        assert_eq!(maze, Maze::generate(&rules, 9));
    }

    /// Golden mazes: if these change, every recorded match and replay breaks.
    #[test]
    fn golden_mazes() {
        let rules = Rules::default();
        for (seed, expected) in [
            (1u64, GOLDEN_1),
            (2, GOLDEN_2),
            (0xDEAD_BEEF, GOLDEN_DEADBEEF),
        ] {
            let got = ascii(&Maze::generate(&rules, seed));
            assert_eq!(got, expected, "seed {seed}:\n{got}");
        }
    }

    const GOLDEN_1: &str = concat!(
        "#####################\n",
        "#.#...#...#.........#\n",
        "#.###.#.#.#.#.###3#.#\n",
        "#...#...#...#...3.#.#\n",
        "###.#.#######3#.#.#.#\n",
        "#.3.......#.....#...#\n",
        "#.#.#.#.#.#.#.#.#.###\n",
        "#...#...3...3.#.3...#\n",
        "#.#####.#####.#.###.#\n",
        "#.#...#.#.....#.....#\n",
        "#.#.#.#.#.###3#.#.#.#\n",
        "#.#.#.#...#...#.#...#\n",
        "#.#.#.#####.#.#####.#\n",
        "#...#.......#.......#\n",
        "#####################\n",
    );
    const GOLDEN_2: &str = concat!(
        "#####################\n",
        "#.#.........#.......#\n",
        "#.#.#####.#.###.###.#\n",
        "#.#...#...#.#...#...#\n",
        "#.#3###.#3#.#.#.#.#.#\n",
        "#.....#.3.#.3.#.....#\n",
        "#.###.#.#.#.#.#.#.#.#\n",
        "#...3...#.#.#...#...#\n",
        "#.#.#3###.#.#.#####.#\n",
        "#.#.....#...#.#...#.#\n",
        "#.#3###.#.###.#.#.#.#\n",
        "#...#...#.......#.#.#\n",
        "#.#.###3#.#######.#.#\n",
        "#.#...............#.#\n",
        "#####################\n",
    );
    const GOLDEN_DEADBEEF: &str = concat!(
        "#####################\n",
        "#.......#...........#\n",
        "#######.#.#.#######.#\n",
        "#.....#.#.......#...#\n",
        "#.#.#.#.#####.#.#.#.#\n",
        "#.3.3.#.......#.#.#.#\n",
        "#.#.#.#######.#.#.#.#\n",
        "#.#.3.......#...3.#.#\n",
        "#.#.###.#3#.#.###.#.#\n",
        "#...#.#...#.....3.#.#\n",
        "#.###.###.###3#.#.#.#\n",
        "#.#...#...#.....#.#.#\n",
        "#.#.#.#.#.#.###3#.#.#\n",
        "#...#...#.........#.#\n",
        "#####################\n",
    );
}
