//! The bitmap font: hand-drawn 5x7 glyphs with 2-row descenders, parsed from
//! `assets/font5x7.txt`.
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
/// Glyph height in font pixels from the top of a capital to the baseline (its last row).
pub const GLYPH_H: u32 = 7;
/// Rows below the baseline for descenders (`g j p q y`); empty in most glyphs.
pub const GLYPH_DESCENT: u32 = 2;
/// Every row a glyph may light: [`GLYPH_H`] plus [`GLYPH_DESCENT`].
pub const GLYPH_ROWS: u32 = GLYPH_H + GLYPH_DESCENT;
/// Horizontal advance per character (one column of spacing).
pub const CELL_W: u32 = GLYPH_W + 1;
/// Line height: the glyph rows, descent included, and one row of spacing.
pub const CELL_H: u32 = GLYPH_ROWS + 1;

/// The font file shipped in `assets/`, compiled into the binary.
const EMBEDDED: &str = include_str!("../../../assets/font5x7.txt");

/// One glyph: [`GLYPH_ROWS`] rows (7 to the baseline, 2 of descent), a row per byte, bit 4
/// the leftmost column.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct Glyph {
    rows: [u8; GLYPH_ROWS as usize],
}

impl Glyph {
    /// Whether the pixel at column `x` (`0..5`), row `y` (`0..9`, rows 7 and 8 below the
    /// baseline) is lit; outside is unlit.
    #[must_use]
    pub fn lit(&self, x: u32, y: u32) -> bool {
        x < GLYPH_W && y < GLYPH_ROWS && self.rows[y as usize] & (1 << (GLYPH_W - 1 - x)) != 0
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
        BitmapFont::load_from(override_path())
    }

    /// The font at `path` if a file is there, else the embedded font.
    fn load_from(path: Option<PathBuf>) -> anyhow::Result<BitmapFont> {
        match path {
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
        let is_row = |line: &str| {
            line.len() == GLYPH_W as usize && line.chars().all(|b| b == '#' || b == '.')
        };
        let mut glyphs = BTreeMap::new();
        let mut lines = text.lines().enumerate().peekable();
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
            for (n, row) in glyph.rows.iter_mut().enumerate() {
                // The descent rows are optional: a glyph ends after 7 rows unless more follow.
                if n >= GLYPH_H as usize && !lines.peek().is_some_and(|(_, l)| is_row(l)) {
                    break;
                }
                let Some((j, bits)) = lines.next() else {
                    bail!("glyph `{c}` (line {}): fewer than {GLYPH_H} rows", i + 1);
                };
                if !is_row(bits) {
                    bail!(
                        "line {}: a row of glyph `{c}` must be {GLYPH_W} of `#` and `.`",
                        j + 1
                    );
                }
                *row = bits
                    .bytes()
                    .fold(0, |acc, b| (acc << 1) | u8::from(b == b'#'));
            }
            if let Some((j, extra)) = lines.peek().filter(|(_, l)| is_row(l)) {
                bail!(
                    "line {}: glyph `{c}` has a row `{extra}` beyond its {GLYPH_ROWS}",
                    j + 1
                );
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
            for row in 0..GLYPH_ROWS {
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
        assert!(!l.lit(0, GLYPH_ROWS), "below the descent is unlit");
    }

    /// Lines a cell apart keep one blank row between the lowest descender and the next line.
    #[test]
    fn a_line_is_the_glyph_rows_and_one_blank_row() {
        let font = BitmapFont::embedded();
        let lit_in_row = |y| ('!'..='~').any(|c| (0..GLYPH_W).any(|x| font.glyph(c).lit(x, y)));
        assert!(
            lit_in_row(CELL_H - 2),
            "the descenders reach the row above the blank one"
        );
        assert!(!lit_in_row(CELL_H - 1));
    }

    /// A font file beside the executable replaces the embedded one; without one the embedded
    /// font is used, and a broken one is an error naming the file.
    #[test]
    fn a_font_file_beside_the_game_replaces_the_embedded_one() {
        let dir = std::env::temp_dir().join(format!("font-override-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("scratch folder");
        let path = dir.join("font5x7.txt");
        let only_a_question_mark = format!("[?]\n{}", "#####\n".repeat(7));
        std::fs::write(&path, &only_a_question_mark).expect("writes");
        let font = BitmapFont::load_from(Some(path.clone())).expect("loads");
        assert!(
            font.has('?') && !font.has('A'),
            "the file's font, not the embedded one"
        );
        let missing = BitmapFont::load_from(Some(dir.join("none.txt"))).expect("embedded");
        assert!(missing.has('A'));
        assert!(BitmapFont::load_from(None).expect("embedded").has('A'));
        std::fs::write(&path, "[?]\n").expect("writes");
        let err = format!(
            "{:#}",
            BitmapFont::load_from(Some(path.clone())).unwrap_err()
        );
        assert!(err.contains(&path.display().to_string()), "{err}");
        let _ = std::fs::remove_dir_all(&dir);
        // Where the game looks: `assets/font5x7.txt` in the executable's folder.
        let exe = std::env::current_exe().expect("exe");
        let beside = exe
            .parent()
            .expect("folder")
            .join("assets")
            .join("font5x7.txt");
        assert_eq!(override_path(), Some(beside));
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
    fn descenders_reach_below_the_baseline_and_nothing_else_does() {
        let font = BitmapFont::embedded();
        let below = |c: char| (0..GLYPH_W).any(|x| font.glyph(c).lit(x, GLYPH_H));
        for c in ' '..='~' {
            assert_eq!(below(c), "gjpqy,;".contains(c), "{c:?}");
        }
        // The bowl of `p` sits on the baseline like `o`, its stem goes on below.
        let (p, o) = (font.glyph('p'), font.glyph('o'));
        assert!(p.lit(0, GLYPH_H - 1) && o.lit(1, GLYPH_H - 1) && p.lit(0, GLYPH_ROWS - 1));
    }

    #[test]
    fn descent_rows_are_optional_and_at_most_two() {
        let seven = "[?]\n.###.\n#...#\n....#\n..##.\n..#..\n.....\n..#..\n";
        let nine = format!("{seven}#....\n.#...\n");
        let font = BitmapFont::parse(&nine).expect("parses");
        assert!(font.glyph('?').lit(0, 7) && font.glyph('?').lit(1, 8));
        let ten = format!("{nine}..#..\n");
        let err = BitmapFont::parse(&ten).unwrap_err().to_string();
        assert!(err.contains("line 11") && err.contains("beyond"), "{err}");
        let next = format!("{seven}\n[A]\n{}", ".....\n".repeat(7));
        assert!(BitmapFont::parse(&next).expect("parses").has('A'));
    }

    proptest::proptest! {
        /// Any text, and the real file with lines dropped, duplicated or garbled, parses or is
        /// refused with a message; never a panic, and a parsed font always has its fallback.
        #[test]
        fn any_font_text_parses_or_is_refused(
            noise in "[\\[\\]#. a-z?\n]{0,200}",
            edits in proptest::collection::vec((0usize..2000, 0u8..3), 0..6),
        ) {
            let _ = BitmapFont::parse(&noise);
            let mut lines: Vec<String> = EMBEDDED.lines().map(str::to_string).collect();
            for (at, kind) in edits {
                let i = at % lines.len();
                match kind {
                    0 => { lines.remove(i); }
                    1 => { let l = lines[i].clone(); lines.insert(i, l); }
                    _ => lines[i].push('#'),
                }
            }
            if let Ok(font) = BitmapFont::parse(&lines.join("\n")) {
                proptest::prop_assert!(font.has('?'));
            }
        }
    }

    #[test]
    fn unknown_characters_fall_back_to_the_question_mark() {
        let font = BitmapFont::embedded();
        assert!(!font.has('é'));
        assert_eq!(font.glyph('é'), font.glyph('?'));
        assert_eq!(BitmapFont::text_width("ab", 2), 22);
        assert_eq!(BitmapFont::text_width("", 3), 0);
    }
}
