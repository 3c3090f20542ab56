//! Where things go on screen: the HUD strip, the arena scaled by a whole number of pixels per
//! tile (so tiles stay crisp and equal), letterboxed in what is left, and the text scale.

use crate::draw::font::CELL_H;
use glam::Vec2;
use sdl2::rect::Rect;

/// Screen layout for one output size and one maze size. Recomputed every frame (it is cheap),
/// so resizing the window just works.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Layout {
    /// Output width in pixels.
    pub width: u32,
    /// Output height in pixels.
    pub height: u32,
    /// Integer scale for normal text (each font pixel is `text_scale` screen pixels).
    pub text_scale: u32,
    /// Height of the HUD strip along the top.
    pub hud_height: u32,
    /// Pixels per tile, a whole number, at least 1.
    pub tile: u32,
    /// Top-left pixel of the arena.
    pub origin: (i32, i32),
    /// Arena size in tiles.
    pub maze_tiles: (u32, u32),
}

/// Integer text scale for an output of `width × height` pixels: the whole number of
/// 480 × 300 blocks it holds along its tighter side, from 1 to 8 (the match's HUD and the
/// menu use the same).
#[must_use]
pub fn text_scale(width: u32, height: u32) -> u32 {
    (width / 480).min(height / 300).clamp(1, 8)
}

impl Layout {
    /// The layout for an output of `width × height` pixels and a maze of `maze_tiles`.
    #[must_use]
    pub fn new((width, height): (u32, u32), maze_tiles: (u32, u32)) -> Layout {
        let (width, height) = (width.max(1), height.max(1));
        let text_scale = text_scale(width, height);
        let hud_height = text_scale * (CELL_H * 2 + 6);
        let margin = text_scale * 2;
        let (mw, mh) = (maze_tiles.0.max(1), maze_tiles.1.max(1));
        let avail_w = width.saturating_sub(2 * margin);
        let avail_h = height.saturating_sub(hud_height + 2 * margin);
        let tile = (avail_w / mw).min(avail_h / mh).max(1);
        let (maze_w, maze_h) = (tile * mw, tile * mh);
        let origin = (
            (width as i32 - maze_w as i32) / 2,
            (hud_height + margin) as i32 + (avail_h as i32 - maze_h as i32).max(0) / 2,
        );
        Layout {
            width,
            height,
            text_scale,
            hud_height,
            tile,
            origin,
            maze_tiles: (mw, mh),
        }
    }

    /// The screen point of a world point given in tiles.
    #[must_use]
    pub fn to_screen(&self, tiles: Vec2) -> Vec2 {
        Vec2::new(self.origin.0 as f32, self.origin.1 as f32) + tiles * self.tile as f32
    }

    /// A length in tiles, in pixels.
    #[must_use]
    pub fn px(&self, tiles: f32) -> f32 {
        tiles * self.tile as f32
    }

    /// The screen rectangle of tile `(x, y)`.
    #[must_use]
    pub fn tile_rect(&self, x: u32, y: u32) -> Rect {
        Rect::new(
            self.origin.0 + (x * self.tile) as i32,
            self.origin.1 + (y * self.tile) as i32,
            self.tile,
            self.tile,
        )
    }

    /// The arena's screen rectangle.
    #[must_use]
    pub fn maze_rect(&self) -> Rect {
        Rect::new(
            self.origin.0,
            self.origin.1,
            self.tile * self.maze_tiles.0,
            self.tile * self.maze_tiles.1,
        )
    }

    /// The HUD strip's screen rectangle.
    #[must_use]
    pub fn hud_rect(&self) -> Rect {
        Rect::new(0, 0, self.width, self.hud_height)
    }

    /// The whole output.
    #[must_use]
    pub fn screen_rect(&self) -> Rect {
        Rect::new(0, 0, self.width, self.height)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Contract: the text scale is the whole number of 480 × 300 blocks the canvas holds
    /// along its tighter side, from 1 to 8.
    #[test]
    fn the_text_scale_counts_whole_blocks_of_the_tighter_side() {
        assert_eq!(text_scale(480, 300), 1);
        assert_eq!(text_scale(959, 600), 1);
        assert_eq!(text_scale(960, 600), 2);
        assert_eq!(text_scale(960, 599), 1);
        assert_eq!(text_scale(1920, 1080), 3);
        assert_eq!(text_scale(2880, 1800), 6);
        assert_eq!(text_scale(100, 100), 1);
        assert_eq!(text_scale(0, 0), 1);
        assert_eq!(text_scale(100_000, 100_000), 8);
    }

    #[test]
    fn tiles_are_whole_pixels_and_the_arena_fits() {
        for size in [
            (640, 400),
            (1280, 800),
            (1920, 1080),
            (333, 777),
            (3000, 500),
        ] {
            let l = Layout::new(size, (21, 15));
            let r = l.maze_rect();
            assert!(r.x() >= 0 && r.right() <= size.0 as i32, "{size:?}: {r:?}");
            assert!(r.y() >= l.hud_height as i32 && r.bottom() <= size.1 as i32);
            assert_eq!(r.width(), 21 * l.tile);
        }
    }

    #[test]
    fn the_arena_is_centred_horizontally() {
        let l = Layout::new((1280, 800), (21, 15));
        let r = l.maze_rect();
        assert!((r.x() - (1280 - r.right())).abs() <= 1);
        assert_eq!(
            l.to_screen(Vec2::new(1.0, 2.0)).x,
            (r.x() + l.tile as i32) as f32
        );
    }

    #[test]
    fn degenerate_sizes_do_not_panic() {
        let l = Layout::new((0, 0), (0, 0));
        assert_eq!(l.tile, 1);
    }

    /// A length in tiles is that many tiles' pixels; a point in tiles lands where its tile's
    /// rectangle starts.
    #[test]
    fn lengths_and_points_scale_by_the_tile() {
        let l = Layout::new((1280, 800), (21, 15));
        assert!(l.tile > 1);
        assert_eq!(l.px(2.5), 2.5 * l.tile as f32);
        assert_eq!(l.px(0.0), 0.0);
        let corner = l.tile_rect(3, 4);
        assert_eq!(
            l.to_screen(Vec2::new(3.0, 4.0)),
            Vec2::new(corner.x() as f32, corner.y() as f32)
        );
    }
}
