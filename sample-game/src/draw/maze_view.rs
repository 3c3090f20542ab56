//! Drawing the arena: floor, indestructible walls in a slight top-down 3/4 view, and
//! destructible blocks whose cracks show how many hit points they have left.

use crate::draw::layout::Layout;
use crate::draw::palette;
use crate::draw::shapes::{fill, thick_line};
use engine::{Maze, Tile};
use glam::Vec2;
use sdl2::rect::Rect;
use sdl2::render::{Canvas, RenderTarget};

/// How worn a block looks, from its hit points left out of `full`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum BlockWear {
    /// Untouched.
    Intact,
    /// Above a third of its hit points left.
    Cracked,
    /// A third or less left: one or two more hits.
    Failing,
}

impl BlockWear {
    /// The wear of a block with `hp` of `full` hit points.
    pub(crate) fn of(hp: u8, full: u8) -> BlockWear {
        let (hp, full) = (u32::from(hp), u32::from(full.max(1)));
        if hp >= full {
            BlockWear::Intact
        } else if hp * 3 > full {
            BlockWear::Cracked
        } else {
            BlockWear::Failing
        }
    }
}

/// Draws `maze`; `full_block_hp` is a fresh block's hit points (from the rules).
///
/// # Errors
/// SDL drawing errors.
pub(crate) fn draw_maze<T: RenderTarget>(
    canvas: &mut Canvas<T>,
    layout: &Layout,
    maze: &Maze,
    full_block_hp: u8,
) -> Result<(), String> {
    let t = layout.tile;
    let strip = |r: Rect, from_top: u32, h: u32| {
        Rect::new(r.x(), r.y() + from_top as i32, r.width(), h.max(1))
    };
    let mut floor_alt = Vec::new();
    let mut shadows = Vec::new();
    let mut wall_tops = Vec::new();
    let mut wall_rims = Vec::new();
    let mut wall_fronts = Vec::new();
    let front = (t * 3 / 10).max(1);
    for y in 0..maze.height {
        for x in 0..maze.width {
            let tile = maze.get(x, y);
            let r = layout.tile_rect(x, y);
            let above = y.checked_sub(1).map_or(Tile::WALL, |ya| maze.get(x, ya));
            let below = maze.get(x, y + 1);
            if tile == Tile::FLOOR {
                if (x + y) % 2 == 1 {
                    floor_alt.push(r);
                }
                if above.is_solid() {
                    shadows.push(strip(r, 0, t / 5));
                }
            } else if tile == Tile::WALL {
                wall_tops.push(r);
                if above != Tile::WALL {
                    wall_rims.push(strip(r, 0, t / 12));
                }
                if below != Tile::WALL && y + 1 < maze.height {
                    wall_fronts.push(strip(r, t - front, front));
                }
            }
        }
    }
    fill(canvas, &[layout.maze_rect()], palette::FLOOR)?;
    fill(canvas, &floor_alt, palette::FLOOR_ALT)?;
    fill(canvas, &shadows, palette::FLOOR_SHADOW)?;
    fill(canvas, &wall_tops, palette::WALL_TOP)?;
    fill(canvas, &wall_rims, palette::WALL_RIM)?;
    fill(canvas, &wall_fronts, palette::WALL_FRONT)?;
    for y in 0..maze.height {
        for x in 0..maze.width {
            if let Some(hp) = maze.get(x, y).block_hp() {
                let wear = BlockWear::of(hp, full_block_hp);
                let face = maze.get(x, y + 1) == Tile::FLOOR;
                draw_block(canvas, layout.tile_rect(x, y), wear, face, x * 7 + y * 3)?;
            }
        }
    }
    Ok(())
}

/// One destructible block: a crate of bricks, cracking and chipping as it wears. `variant`
/// varies the cracks from block to block.
fn draw_block<T: RenderTarget>(
    canvas: &mut Canvas<T>,
    r: Rect,
    wear: BlockWear,
    front: bool,
    variant: u32,
) -> Result<(), String> {
    let t = r.width();
    let base = match wear {
        BlockWear::Intact => palette::BLOCK,
        BlockWear::Cracked => palette::BLOCK_WORN,
        BlockWear::Failing => palette::BLOCK_FAILING,
    };
    let shape = BlockShape::new(r, front);
    fill(canvas, &[shape.face], base)?;
    fill(canvas, &shape.mortar, palette::MORTAR)?;
    if wear == BlockWear::Intact {
        return Ok(());
    }
    let (x0, y0) = (r.x(), r.y());
    let at = |fx: f32, fy: f32| Vec2::new(x0 as f32 + fx * t as f32, y0 as f32 + fy * t as f32);
    let w = (t as f32 / 14.0).max(1.0);
    let mirror = variant % 2 == 1;
    let px = |f: f32| if mirror { 1.0 - f } else { f };
    let crack = [
        at(px(0.2), 0.1),
        at(px(0.42), 0.38),
        at(px(0.34), 0.6),
        at(px(0.55), 0.9),
    ];
    for pair in crack.windows(2) {
        thick_line(canvas, pair[0], pair[1], w, palette::CRACK)?;
    }
    if wear == BlockWear::Failing {
        let second = [at(px(0.9), 0.2), at(px(0.62), 0.45), at(px(0.75), 0.72)];
        for pair in second.windows(2) {
            thick_line(canvas, pair[0], pair[1], w, palette::CRACK)?;
        }
        thick_line(
            canvas,
            at(px(0.42), 0.38),
            at(px(0.62), 0.45),
            w,
            palette::CRACK,
        )?;
        // Chipped corners show the floor through.
        fill(canvas, &shape.chips, palette::FLOOR)?;
    }
    Ok(())
}

/// The rectangles of a block drawn in the tile rectangle `r`: pure arithmetic on the tile
/// size, so every size the window can take is tested without SDL. Tiles can be a single pixel
/// (a small window, a large maze): no length here may go below zero.
#[derive(Debug)]
pub(crate) struct BlockShape {
    /// The brick face, inset from the tile's edge.
    pub(crate) face: Rect,
    /// Mortar lines: two courses of bricks, the middle one offset by half a brick, and the
    /// front edge when the block faces the floor below it.
    pub(crate) mortar: Vec<Rect>,
    /// The two corners chipped off a failing block.
    pub(crate) chips: [Rect; 2],
}

impl BlockShape {
    pub(crate) fn new(r: Rect, front: bool) -> BlockShape {
        let t = r.width();
        let inset = (t / 16).max(1).min(t / 2);
        let inner = t.saturating_sub(2 * inset);
        let m = (t / 16).max(1);
        let (x0, y0, ti) = (r.x(), r.y(), t as i32);
        let (xi, yi) = (x0 + inset as i32, y0 + inset as i32);
        let third = t / 3;
        let mut mortar = vec![
            Rect::new(xi, y0 + ti / 3, inner, m),
            Rect::new(xi, y0 + 2 * ti / 3, inner, m),
            Rect::new(x0 + ti / 2, yi, m, third),
            Rect::new(x0 + ti / 4, y0 + ti / 3, m, third),
            Rect::new(x0 + 3 * ti / 4, y0 + ti / 3, m, third),
            Rect::new(x0 + ti / 2, y0 + 2 * ti / 3, m, third.saturating_sub(inset)),
        ];
        if front {
            let f = (t / 6).max(1);
            mortar.push(Rect::new(xi, y0 + ti - (f + inset) as i32, inner, f));
        }
        let c = (t / 4).max(1);
        BlockShape {
            face: Rect::new(xi, yi, inner, inner),
            mortar,
            chips: [
                Rect::new(x0, y0, c, c),
                Rect::new(x0 + ti - c as i32, y0 + ti - c as i32, c, c),
            ],
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wear_goes_intact_cracked_failing_as_hit_points_drop() {
        assert_eq!(BlockWear::of(3, 3), BlockWear::Intact);
        assert_eq!(BlockWear::of(2, 3), BlockWear::Cracked);
        assert_eq!(BlockWear::of(1, 3), BlockWear::Failing);
        assert_eq!(BlockWear::of(1, 1), BlockWear::Intact);
        assert_eq!(BlockWear::of(60, 100), BlockWear::Cracked);
        assert_eq!(BlockWear::of(30, 100), BlockWear::Failing);
    }

    /// A block draws inside its tile at every tile size, down to one pixel (regression: tiles of
    /// 1 or 2 pixels, as in a 64x64 or 200x70 window, underflowed a `u32`).
    #[test]
    fn block_shape_stays_inside_its_tile_at_every_tile_size() {
        for t in 1..=4096 {
            let tile = Rect::new(-3, 7, t, t);
            let shape = BlockShape::new(tile, true);
            for r in shape.mortar.iter().chain(&shape.chips).chain([&shape.face]) {
                assert!(tile.contains_rect(*r), "tile {t}: {r:?} outside {tile:?}");
            }
        }
    }

    /// Every window size, from 1x1 to a few thousand pixels, with every maze size the rules
    /// allow, lays out whole tiles of at least one pixel that a block can be drawn in.
    #[test]
    fn every_window_size_lays_out_drawable_tiles() {
        let sides = 1..=3000u32;
        let mazes = [(5, 5), (21, 15), (63, 5), (5, 63), (63, 63)];
        for maze in mazes {
            for side in sides.clone() {
                for size in [
                    (side, 1),
                    (1, side),
                    (side, 64),
                    (200, side),
                    (side, 70),
                    (side, side),
                ] {
                    let layout = Layout::new(size, maze);
                    assert!(layout.tile >= 1, "{size:?} {maze:?}");
                    let last = layout.tile_rect(maze.0 - 1, maze.1 - 1);
                    let shape = BlockShape::new(last, false);
                    assert!(last.contains_rect(shape.face), "{size:?} {maze:?}");
                    assert_eq!(layout.maze_rect().bottom_right(), last.bottom_right());
                }
            }
        }
    }
}
