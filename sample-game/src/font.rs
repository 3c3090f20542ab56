//! The bitmap font: hand-drawn 5x7 glyphs parsed from `assets/font5x7.txt`.
//!
//! The file is embedded with `include_str!`, so the game runs without its assets folder; a file
//! at `assets/font5x7.txt` next to the executable replaces it (handy for tweaking glyphs
//! without rebuilding). Text is drawn as filled rectangles, one per horizontal run of lit
//! pixels, at an integer scale, so it stays crisp at any size.

use anyhow::{bail, Context as _};
use sdl2::pixels::Color;
use sdl2::rect::Rect;
use sdl2::render::{Canvas, RenderTarget};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// Glyph width in font pixels.
pub const GLYPH_W: u32 = 5;
/// Glyph height in font pixels.
pub const GLYPH_H: u32 = 7;
/// Horizontal advance per character (one column of spacing).
pub const CELL_W: u32 = GLYPH_W + 1;
/// Line height (one row of spacing).
pub const CELL_H: u32 = GLYPH_H + 1;

/// The font file shipped in `assets/`, compiled into the binary.
const EMBEDDED: &str = include_str!("../../assets/font5x7.txt");

/// One 5x7 glyph: a row per byte, bit 4 the leftmost column.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct Glyph {
    rows: [u8; GLYPH_H as usize],
}

impl Glyph {
    /// Whether the pixel at column `x` (`0..5`), row `y` (`0..7`) is lit; outside is unlit.
    #[must_use]
    pub fn lit(&self, x: u32, y: u32) -> bool {
        x < GLYPH_W && y < GLYPH_H && self.rows[y as usize] & (1 << (GLYPH_W - 1 - x)) != 0
    }
}

/// A parsed bitmap font. Characters it lacks are drawn as `?`.
#[derive(Clone, Debug)]
pub struct BitmapFont {
    glyphs: BTreeMap<char, Glyph>,
    fallback: Glyph,
}

impl BitmapFont {
    /// The font embedded in the binary.
    ///
    /// # Panics
    /// Never in a built game: the embedded file is parsed by a unit test.
    #[must_use]
    pub fn embedded() -> BitmapFont {
        BitmapFont::parse(EMBEDDED).expect("the embedded font parses (unit-tested)")
    }

    /// The font at `assets/font5x7.txt` next to the executable if there is one, else the
    /// embedded font.
    ///
    /// # Errors
    /// If an override file exists but cannot be read or parsed (naming the file and line).
    pub fn load() -> anyhow::Result<BitmapFont> {
        match override_path() {
            Some(path) if path.is_file() => BitmapFont::from_file(&path),
            _ => Ok(BitmapFont::embedded()),
        }
    }

    /// Reads and parses a font file.
    ///
    /// # Errors
    /// I/O errors, or a syntax error naming the line.
    pub fn from_file(path: &Path) -> anyhow::Result<BitmapFont> {
        let text = std::fs::read_to_string(path)
            .with_context(|| format!("reading font {}", path.display()))?;
        BitmapFont::parse(&text).with_context(|| format!("font {}", path.display()))
    }

    /// Parses the text format described at the top of `assets/font5x7.txt`.
    ///
    /// # Errors
    /// A header that is not `[c]`, a row that is not 5 of `#`/`.`, a glyph with fewer than 7
    /// rows, a character defined twice, or a font without `?`.
    pub fn parse(text: &str) -> anyhow::Result<BitmapFont> {
        let mut glyphs = BTreeMap::new();
        let mut lines = text.lines().enumerate();
        while let Some((i, line)) = lines.next() {
            if line.trim().is_empty() || line.starts_with('#') {
                continue;
            }
            let mut chars = line.chars();
            let (Some('['), Some(c), Some(']'), None) =
                (chars.next(), chars.next(), chars.next(), chars.next())
            else {
                bail!(
                    "line {}: expected a glyph header `[c]`, found `{line}`",
                    i + 1
                );
            };
            let mut glyph = Glyph::default();
            for row in &mut glyph.rows {
                let Some((j, bits)) = lines.next() else {
                    bail!("glyph `{c}` (line {}): fewer than {GLYPH_H} rows", i + 1);
                };
                if bits.len() != GLYPH_W as usize || !bits.chars().all(|b| b == '#' || b == '.') {
                    bail!(
                        "line {}: a row of glyph `{c}` must be {GLYPH_W} of `#` and `.`",
                        j + 1
                    );
                }
                *row = bits
                    .bytes()
                    .fold(0, |acc, b| (acc << 1) | u8::from(b == b'#'));
            }
            if glyphs.insert(c, glyph).is_some() {
                bail!("line {}: glyph `{c}` defined twice", i + 1);
            }
        }
        let Some(&fallback) = glyphs.get(&'?') else {
            bail!("the font has no `?`, which stands in for missing characters");
        };
        Ok(BitmapFont { glyphs, fallback })
    }

    /// The glyph drawn for `c` (`?` if the font lacks it).
    #[must_use]
    pub fn glyph(&self, c: char) -> Glyph {
        self.glyphs.get(&c).copied().unwrap_or(self.fallback)
    }

    /// Whether the font defines `c`.
    #[must_use]
    pub fn has(&self, c: char) -> bool {
        self.glyphs.contains_key(&c)
    }

    /// Width in pixels of `text` at `scale` (no trailing spacing column).
    #[must_use]
    pub fn text_width(text: &str, scale: u32) -> u32 {
        let n = text.chars().count() as u32;
        (n * CELL_W).saturating_sub(1) * scale
    }

    /// Draws `text` with its top-left corner at `(x, y)`, each font pixel a `scale`-sided
    /// square, in `color`.
    ///
    /// # Errors
    /// SDL drawing errors.
    pub fn draw<T: RenderTarget>(
        &self,
        canvas: &mut Canvas<T>,
        text: &str,
        (x, y): (i32, i32),
        scale: u32,
        color: Color,
    ) -> Result<(), String> {
        let s = scale.max(1) as i32;
        let mut rects = Vec::with_capacity(text.len() * 12);
        for (n, c) in text.chars().enumerate() {
            let glyph = self.glyph(c);
            let left = x + n as i32 * CELL_W as i32 * s;
            for row in 0..GLYPH_H {
                let top = y + row as i32 * s;
                let mut col = 0;
                while col < GLYPH_W {
                    if !glyph.lit(col, row) {
                        col += 1;
                        continue;
                    }
                    let start = col;
                    while col < GLYPH_W && glyph.lit(col, row) {
                        col += 1;
                    }
                    let run = (col - start) as i32;
                    rects.push(Rect::new(
                        left + start as i32 * s,
                        top,
                        (run * s) as u32,
                        s as u32,
                    ));
                }
            }
        }
        if rects.is_empty() {
            return Ok(());
        }
        canvas.set_draw_color(color);
        canvas.fill_rects(&rects)
    }

    /// Draws `text` over a one-font-pixel drop shadow, for legibility on any background.
    ///
    /// # Errors
    /// SDL drawing errors.
    pub fn draw_shadowed<T: RenderTarget>(
        &self,
        canvas: &mut Canvas<T>,
        text: &str,
        (x, y): (i32, i32),
        scale: u32,
        color: Color,
    ) -> Result<(), String> {
        let s = scale.max(1) as i32;
        let shadow = Color::RGBA(0, 0, 0, 170);
        self.draw(canvas, text, (x + s, y + s), scale, shadow)?;
        self.draw(canvas, text, (x, y), scale, color)
    }
}

/// `assets/font5x7.txt` beside the running executable.
fn override_path() -> Option<PathBuf> {
    let exe = std::env::current_exe().ok()?;
    Some(exe.parent()?.join("assets").join("font5x7.txt"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn embedded_font_covers_printable_ascii() {
        let font = BitmapFont::embedded();
        for c in ' '..='~' {
            assert!(font.has(c), "missing glyph for {c:?}");
        }
        assert!(font.has('—'));
    }

    #[test]
    fn glyph_bits_read_left_to_right_top_to_bottom() {
        let font = BitmapFont::embedded();
        let l = font.glyph('L');
        assert!(l.lit(0, 0) && !l.lit(1, 0));
        assert!((0..GLYPH_W).all(|x| l.lit(x, GLYPH_H - 1)));
        assert!(!l.lit(GLYPH_W, 0), "outside the glyph is unlit");
    }

    #[test]
    fn distinct_characters_have_distinct_glyphs() {
        let font = BitmapFont::embedded();
        let chars: Vec<char> = ('!'..='~').collect();
        for (i, a) in chars.iter().enumerate() {
            for b in &chars[i + 1..] {
                assert_ne!(font.glyph(*a), font.glyph(*b), "{a:?} and {b:?} look alike");
            }
        }
    }

    #[test]
    fn malformed_fonts_are_refused_with_the_line() {
        let short_row = "[?]\n.###.\n#...#\n....#\n..#\n..#..\n.....\n..#..\n";
        let err = BitmapFont::parse(short_row).unwrap_err().to_string();
        assert!(err.contains("line 5"), "{err}");
        let no_fallback = "[A]\n.....\n.....\n.....\n.....\n.....\n.....\n.....\n";
        assert!(BitmapFont::parse(no_fallback).is_err());
        let missing_rows = "[?]\n.....\n";
        assert!(BitmapFont::parse(missing_rows).is_err());
    }

    #[test]
    fn unknown_characters_fall_back_to_the_question_mark() {
        let font = BitmapFont::embedded();
        assert_eq!(font.glyph('é'), font.glyph('?'));
        assert_eq!(BitmapFont::text_width("ab", 2), 22);
        assert_eq!(BitmapFont::text_width("", 3), 0);
    }
}
