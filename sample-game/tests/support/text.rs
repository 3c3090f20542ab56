//! Finding drawn text in a frame read back from SDL, shared by the pixel tests.

use sample_game::{BitmapFont, CELL_W, GLYPH_ROWS, GLYPH_W};
use sdl2::pixels::Color;

/// Where `text` is drawn in colour `c`, at an integer scale up to `max_scale`, in an image of
/// `size` whose pixel test is `is`: every lit font pixel (descent rows included) is `c`, every
/// unlit one is not. Returns the top-left corner and the scale.
pub fn find_text(
    font: &BitmapFont,
    text: &str,
    c: Color,
    max_scale: u32,
    size: (u32, u32),
    is: impl Fn(i32, i32, Color) -> bool,
) -> Option<(i32, i32, u32)> {
    for scale in 1..=max_scale {
        let s = scale as i32;
        for y in 0..size.1 as i32 {
            for x in 0..size.0 as i32 {
                let matches = text.chars().enumerate().all(|(i, ch)| {
                    let glyph = font.glyph(ch);
                    (0..GLYPH_ROWS).all(|gy| {
                        (0..GLYPH_W).all(|gx| {
                            let px = x + (i as i32 * CELL_W as i32 + gx as i32) * s + s / 2;
                            let py = y + gy as i32 * s + s / 2;
                            is(px, py, c) == glyph.lit(gx, gy)
                        })
                    })
                });
                if matches {
                    return Some((x, y, scale));
                }
            }
        }
    }
    None
}
