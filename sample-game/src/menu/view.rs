//! Drawing the menu and the status screens (waiting for an opponent, connecting,
//! synchronizing) onto any SDL canvas. Pure functions of what they are given, like the match
//! renderer, so the off-screen tests can read them back.

use super::{Menu, Screen, MAIN_ITEMS};
use crate::draw::font::{BitmapFont, CELL_H, CELL_W};
use crate::draw::layout::text_scale;
use crate::draw::palette;
use crate::draw::shapes::frame;
use sdl2::pixels::Color;
use sdl2::rect::Rect;
use sdl2::render::{BlendMode, Canvas, RenderTarget};

/// The hint shown under every list.
pub const NAV_HINT: &str = "Arrows or D-pad: choose   Enter or A: pick   Esc or B: back";

/// A screen that only reports: a title, some lines, an optional progress bar, the way out.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StatusScreen {
    /// The headline ("WAITING FOR OPPONENT").
    pub title: String,
    /// What to read (addresses to share, who is being contacted).
    pub lines: Vec<String>,
    /// `(done, total)` for a progress bar.
    pub progress: Option<(u32, u32)>,
    /// The way out ("Esc: cancel").
    pub hint: String,
}

/// The backdrop: the arena's floor in a checker with a wall rim around the window.
fn backdrop<T: RenderTarget>(canvas: &mut Canvas<T>, s: u32) -> Result<(u32, u32), String> {
    let (w, h) = canvas.output_size()?;
    canvas.set_blend_mode(BlendMode::Blend);
    canvas.set_draw_color(palette::BACKGROUND);
    canvas.clear();
    let tile = 16 * s;
    for ty in 0..h.div_ceil(tile) {
        for tx in 0..w.div_ceil(tile) {
            let edge =
                tx == 0 || ty == 0 || tx + 1 == w.div_ceil(tile) || ty + 1 == h.div_ceil(tile);
            let color = if edge {
                palette::WALL_FRONT
            } else if (tx + ty) % 2 == 0 {
                palette::FLOOR
            } else {
                palette::FLOOR_ALT
            };
            canvas.set_draw_color(color);
            canvas.fill_rect(Rect::new(
                (tx * tile) as i32,
                (ty * tile) as i32,
                tile,
                tile,
            ))?;
        }
    }
    Ok((w, h))
}

/// Draws `text` centred on `cx`.
fn centred<T: RenderTarget>(
    canvas: &mut Canvas<T>,
    font: &BitmapFont,
    text: &str,
    (cx, y): (i32, i32),
    scale: u32,
    color: Color,
) -> Result<(), String> {
    let w = BitmapFont::text_width(text, scale) as i32;
    font.draw_shadowed(canvas, text, (cx - w / 2, y), scale, color)
}

/// Splits `text` into lines of at most `width` characters at spaces.
#[must_use]
pub fn wrap(text: &str, width: usize) -> Vec<String> {
    let mut lines = Vec::new();
    let mut current = String::new();
    for word in text.split_whitespace() {
        if !current.is_empty() && current.len() + 1 + word.len() > width {
            lines.push(std::mem::take(&mut current));
        }
        if !current.is_empty() {
            current.push(' ');
        }
        current.push_str(word);
    }
    if !current.is_empty() {
        lines.push(current);
    }
    lines
}

/// A panel of rows under a title, `selected` highlighted, then a note and a hint.
struct Page<'a> {
    title: std::borrow::Cow<'a, str>,
    title_color: Color,
    /// A dim line under the title.
    subtitle: Option<&'a str>,
    rows: Vec<(String, Color)>,
    selected: Option<usize>,
    note: Option<&'a str>,
    hint: &'a str,
    /// Row text scale relative to the base scale, in halves (3: one and a half).
    row_halves: u32,
}

fn draw_page<T: RenderTarget>(
    canvas: &mut Canvas<T>,
    font: &BitmapFont,
    page: &Page<'_>,
) -> Result<(), String> {
    let (w, h) = canvas.output_size()?;
    let s = text_scale(w, h);
    backdrop(canvas, s)?;
    let cx = (w / 2) as i32;
    // As large as four times the text, as long as the title fits across.
    let fit = (w.saturating_sub(8 * s) / BitmapFont::text_width(&page.title, 1).max(1)).max(1);
    let title_scale = (s * 4).min(fit);
    let row_scale = (s * page.row_halves / 2).max(1);
    let row_h = (CELL_H + 4) * row_scale;
    // Show at most what fits, scrolled to keep the selection in view.
    let room = h.saturating_sub(CELL_H * title_scale + 40 * s) / row_h.max(1);
    let visible = (room as usize).clamp(1, page.rows.len().max(1));
    let first = page.selected.map_or(0, |sel| {
        sel.saturating_sub(visible - 1)
            .min(page.rows.len().saturating_sub(visible))
    });
    let widest = page
        .rows
        .iter()
        .map(|(t, _)| t.chars().count() as u32)
        .max()
        .unwrap_or(0)
        .max(16);
    let panel_w = ((widest + 6) * CELL_W * row_scale).min(w - 2 * s);
    let panel_h = visible as u32 * row_h + 4 * row_scale;
    let title_y = (16 * s + 6 * s) as i32;
    centred(
        canvas,
        font,
        &page.title,
        (cx, title_y),
        title_scale,
        page.title_color,
    )?;
    let mut top = title_y + (CELL_H * title_scale + 8 * s) as i32;
    if let Some(sub) = page.subtitle {
        centred(
            canvas,
            font,
            sub,
            (cx, top - (4 * s) as i32),
            s,
            palette::TEXT_DIM,
        )?;
        top += ((CELL_H + 8) * s) as i32;
    }
    let panel = Rect::new(cx - panel_w as i32 / 2, top, panel_w, panel_h);
    canvas.set_draw_color(palette::with_alpha(palette::PANEL, 230));
    canvas.fill_rect(panel)?;
    frame(canvas, panel, s, palette::PANEL_EDGE)?;
    let shown = page.rows.iter().enumerate().skip(first).take(visible);
    draw_rows(canvas, font, page, shown, panel, (row_scale, s))?;
    draw_note_and_hint(canvas, font, page, panel.bottom() + (6 * s) as i32)
}

/// Draws the `shown` rows of `page` inside `panel`, the selected one marked, at `row_scale`
/// (the base scale `s` for the marking's margin).
fn draw_rows<'r, T: RenderTarget>(
    canvas: &mut Canvas<T>,
    font: &BitmapFont,
    page: &Page<'_>,
    shown: impl Iterator<Item = (usize, &'r (String, Color))>,
    panel: Rect,
    (row_scale, s): (u32, u32),
) -> Result<(), String> {
    let row_h = (CELL_H + 4) * row_scale;
    let left = panel.x() + (2 * CELL_W * row_scale) as i32;
    let mut y = panel.y() + (2 * row_scale) as i32;
    for (i, (text, color)) in shown {
        if page.selected == Some(i) {
            canvas.set_draw_color(palette::with_alpha(palette::ACCENT, 40));
            canvas.fill_rect(Rect::new(
                panel.x() + s as i32,
                y - row_scale as i32,
                panel.width() - 2 * s,
                row_h,
            ))?;
            font.draw_shadowed(
                canvas,
                ">",
                (panel.x() + (CELL_W * row_scale / 2) as i32, y),
                row_scale,
                palette::ACCENT,
            )?;
            font.draw_shadowed(canvas, text, (left, y), row_scale, palette::ACCENT)?;
        } else {
            font.draw_shadowed(canvas, text, (left, y), row_scale, *color)?;
        }
        y += row_h as i32;
    }
    Ok(())
}

/// Draws `page`'s note, wrapped, from `y` down, and its hint line near the bottom (below the
/// note, if the note reaches that far).
fn draw_note_and_hint<T: RenderTarget>(
    canvas: &mut Canvas<T>,
    font: &BitmapFont,
    page: &Page<'_>,
    mut y: i32,
) -> Result<(), String> {
    let (w, h) = canvas.output_size()?;
    let s = text_scale(w, h);
    let cx = (w / 2) as i32;
    if let Some(note) = page.note {
        for line in wrap(
            note,
            ((w / (CELL_W * s)) as usize).saturating_sub(4).max(10),
        ) {
            centred(canvas, font, &line, (cx, y), s, palette::DANGER)?;
            y += ((CELL_H + 3) * s) as i32;
        }
    }
    let hint_y = h as i32 - (16 * s + (CELL_H + 6) * s) as i32;
    centred(
        canvas,
        font,
        page.hint,
        (cx, hint_y.max(y)),
        s,
        palette::TEXT_DIM,
    )
}

/// Draws `menu` as it stands over the whole canvas (without presenting it). `footer` is a dim
/// line under the title screen's list (the connected controllers, a saved-settings note).
///
/// # Errors
/// SDL drawing errors.
pub fn draw_menu<T: RenderTarget>(
    canvas: &mut Canvas<T>,
    font: &BitmapFont,
    menu: &Menu,
) -> Result<(), String> {
    draw_page(canvas, font, &page_of(menu))
}

/// What the menu's current screen shows.
fn page_of(menu: &Menu) -> Page<'_> {
    let plain = |rows: Vec<String>| -> Vec<(String, Color)> {
        rows.into_iter().map(|r| (r, palette::TEXT)).collect()
    };
    let page = |title: &'static str, rows, selected, hint, row_halves| Page {
        title: title.into(),
        title_color: palette::ACCENT,
        subtitle: None,
        rows,
        selected,
        note: menu.note.as_deref(),
        hint,
        row_halves,
    };
    match &menu.screen {
        Screen::Main => Page {
            subtitle: Some("Two fighters, one maze, rollback netcode"),
            ..page(
                "MAZE DUEL",
                plain((0..MAIN_ITEMS.len()).map(|r| menu.main_label(r)).collect()),
                Some(menu.main_row),
                NAV_HINT,
                3,
            )
        },
        Screen::Options => page(
            "OPTIONS",
            plain(menu.option_labels()),
            Some(menu.options_row),
            "Left/Right: change (saved at once)   Esc: back",
            3,
        ),
        Screen::Keys => page(
            "KEYS",
            plain(menu.key_labels()),
            Some(menu.keys_row),
            "Enter: press a new key for the action   Esc: back",
            2,
        ),
        Screen::Binding { player, action } => Page {
            title: format!(
                "KEY FOR P{} {}",
                player + 1,
                crate::config::ACTIONS[*action].to_uppercase()
            )
            .into(),
            note: Some("press the new key (Esc: keep the old one)"),
            ..page(
                "",
                plain(menu.key_labels()),
                Some(player * crate::config::ACTIONS.len() + action),
                "Esc: cancel",
                2,
            )
        },
        Screen::Replays if menu.replays.is_empty() => page(
            "REPLAYS",
            vec![(
                "No match logs yet: play a match first".to_string(),
                palette::TEXT_DIM,
            )],
            None,
            "Enter: watch (newest first)   Esc: back",
            2,
        ),
        Screen::Replays => page(
            "REPLAYS",
            plain(menu.replays.iter().map(|r| r.label().to_owned()).collect()),
            Some(menu.replay_row),
            "Enter: watch (newest first)   Esc: back",
            2,
        ),
        Screen::Address { spectate } => page(
            if *spectate { "SPECTATE" } else { "JOIN ONLINE" },
            vec![
                ("Host address (HOST:PORT):".to_string(), palette::TEXT_DIM),
                (format!("{}_", menu.address), palette::ACCENT),
            ],
            None,
            "Type the address   Enter: connect   Esc: back",
            3,
        ),
        Screen::Notice { title, text } => Page {
            title: title.as_str().into(),
            title_color: palette::DANGER,
            note: None,
            ..page(
                "",
                wrap(text, 52)
                    .into_iter()
                    .map(|l| (l, palette::TEXT))
                    .collect(),
                None,
                "Enter or Esc: back to the menu",
                2,
            )
        },
    }
}

/// A 20-cell text bar for `done` of `total` (a total of 0 counts as 1), and the count.
fn progress_bar(done: u32, total: u32) -> String {
    let total = total.max(1);
    // In 64 bits: `done * 20` overflows 32 from a total of 215 million.
    let filled = (u64::from(done.min(total)) * 20 / u64::from(total)) as usize;
    format!(
        "[{}{}] {done}/{total}",
        "#".repeat(filled),
        ".".repeat(20 - filled)
    )
}

/// Draws a status screen over the whole canvas.
///
/// # Errors
/// SDL drawing errors.
pub fn draw_status<T: RenderTarget>(
    canvas: &mut Canvas<T>,
    font: &BitmapFont,
    status: &StatusScreen,
) -> Result<(), String> {
    let mut rows: Vec<(String, Color)> = status
        .lines
        .iter()
        .map(|l| (l.clone(), palette::TEXT))
        .collect();
    if let Some((done, total)) = status.progress {
        rows.push((progress_bar(done, total), palette::GOOD));
    }
    draw_page(
        canvas,
        font,
        &Page {
            title: std::borrow::Cow::Borrowed(&status.title),
            title_color: palette::ACCENT,
            subtitle: None,
            rows,
            selected: None,
            note: None,
            hint: &status.hint,
            row_halves: 3,
        },
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::{Config, ACTIONS};

    /// Contract: words fill a line up to exactly its width; a longer word stands alone;
    /// runs of spaces and line breaks count as one space; nothing gives no line.
    #[test]
    fn text_wraps_at_exactly_the_width() {
        assert_eq!(wrap("aaa bbb", 7), ["aaa bbb"]);
        assert_eq!(wrap("aaa bbb", 6), ["aaa", "bbb"]);
        assert_eq!(wrap("aaa  bbb\n cc", 10), ["aaa bbb cc"]);
        assert_eq!(wrap("a verylongword b", 4), ["a", "verylongword", "b"]);
        assert_eq!(wrap("one two three four", 9), ["one two", "three", "four"]);
        assert!(wrap("   ", 5).is_empty());
        assert!(wrap("", 5).is_empty());
    }

    /// Contract: the bar has 20 cells filled in proportion, clamped at full; a total of 0
    /// reads as 1.
    #[test]
    fn the_progress_bar_fills_in_twentieths() {
        assert_eq!(progress_bar(0, 10), "[....................] 0/10");
        assert_eq!(progress_bar(5, 10), "[##########..........] 5/10");
        assert_eq!(progress_bar(1, 3), "[######..............] 1/3");
        assert_eq!(progress_bar(10, 10), "[####################] 10/10");
        assert_eq!(progress_bar(15, 10), "[####################] 15/10");
        assert_eq!(progress_bar(0, 0), "[....................] 0/1");
        assert_eq!(progress_bar(2, 0), "[####################] 2/1");
        let most = u32::MAX;
        assert_eq!(
            progress_bar(most / 2, most),
            format!("[#########...........] {}/{most}", most / 2)
        );
        assert_eq!(
            progress_bar(most, most),
            format!("[####################] {most}/{most}")
        );
    }

    fn texts(page: &Page<'_>) -> Vec<String> {
        page.rows.iter().map(|(t, _)| t.clone()).collect()
    }

    /// Contract: each screen's page has its own title, rows, highlighted row, hint and row
    /// spacing; the menu's note shows under every page but a notice's.
    #[test]
    fn every_screen_has_its_own_page() {
        let mut menu = Menu::new(Config::default());
        menu.note = Some("a note".into());
        menu.main_row = 2;
        let main = page_of(&menu);
        assert_eq!(main.title, "MAZE DUEL");
        assert_eq!(main.title_color, palette::ACCENT);
        assert_eq!(
            main.subtitle,
            Some("Two fighters, one maze, rollback netcode")
        );
        assert_eq!(
            texts(&main),
            (0..MAIN_ITEMS.len())
                .map(|r| menu.main_label(r))
                .collect::<Vec<_>>()
        );
        assert_eq!(
            (main.selected, main.hint, main.row_halves, main.note),
            (Some(2), NAV_HINT, 3, Some("a note"))
        );

        menu.screen = Screen::Options;
        menu.options_row = 1;
        let options = page_of(&menu);
        assert_eq!(options.title, "OPTIONS");
        assert_eq!(options.subtitle, None);
        assert_eq!(texts(&options), menu.option_labels());
        assert_eq!((options.selected, options.row_halves), (Some(1), 3));
        assert!(options.hint.starts_with("Left/Right: change"));

        menu.screen = Screen::Keys;
        menu.keys_row = 4;
        let keys = page_of(&menu);
        assert_eq!(keys.title, "KEYS");
        assert_eq!(texts(&keys), menu.key_labels());
        assert_eq!((keys.selected, keys.row_halves), (Some(4), 2));

        menu.screen = Screen::Binding {
            player: 1,
            action: 2,
        };
        let binding = page_of(&menu);
        assert_eq!(
            binding.title,
            format!("KEY FOR P2 {}", ACTIONS[2].to_uppercase())
        );
        assert_eq!(binding.selected, Some(ACTIONS.len() + 2));
        assert_eq!(
            binding.note,
            Some("press the new key (Esc: keep the old one)")
        );
        assert_eq!((binding.hint, binding.row_halves), ("Esc: cancel", 2));

        menu.screen = Screen::Replays;
        let replays = page_of(&menu);
        assert_eq!(replays.title, "REPLAYS");
        assert_eq!(
            replays.rows,
            [(
                "No match logs yet: play a match first".to_string(),
                palette::TEXT_DIM
            )]
        );
        assert_eq!(replays.selected, None);
        let entry = |name: &str, line: Option<&str>| crate::menu::replays::ReplayEntry {
            path: name.into(),
            name: name.into(),
            modified: std::time::SystemTime::UNIX_EPOCH,
            line: line.map(Into::into),
        };
        menu.replays = vec![entry("a.log", Some("12-02 vs bot")), entry("b.log", None)];
        menu.replay_row = 1;
        let listed = page_of(&menu);
        assert_eq!(listed.title, "REPLAYS");
        assert_eq!(texts(&listed), ["12-02 vs bot", "b.log"]);
        assert_eq!((listed.selected, listed.row_halves), (Some(1), 2));

        for (spectate, title) in [(false, "JOIN ONLINE"), (true, "SPECTATE")] {
            menu.screen = Screen::Address { spectate };
            menu.address = "host:9".into();
            let address = page_of(&menu);
            assert_eq!(address.title, title);
            assert_eq!(texts(&address), ["Host address (HOST:PORT):", "host:9_"]);
            assert_eq!((address.selected, address.row_halves), (None, 3));
        }

        let text = "a long refusal that has to be wrapped onto more than one line of the \
                    notice, word by word";
        menu.screen = Screen::Notice {
            title: "REFUSED".into(),
            text: text.into(),
        };
        let notice = page_of(&menu);
        assert_eq!(notice.title, "REFUSED");
        assert_eq!(notice.title_color, palette::DANGER);
        assert_eq!(notice.note, None, "a notice hides the menu's note");
        assert_eq!(texts(&notice), wrap(text, 52));
        assert!(texts(&notice).len() > 1);
        assert_eq!(
            (notice.selected, notice.hint, notice.row_halves),
            (None, "Enter or Esc: back to the menu", 2)
        );
    }
}
