//! The controls screen: shown when the game starts (until a key is pressed) and on F1.

use crate::draw::font::{BitmapFont, CELL_H, CELL_W};
use crate::draw::layout::Layout;
use crate::draw::palette;
use crate::draw::shapes::frame;
use crate::input::key_bindings::{key_names, KeyBindings, PlayerKeys};
use sdl2::pixels::Color;
use sdl2::rect::Rect;
use sdl2::render::{Canvas, RenderTarget};

/// Everything the controls screen says, as lines of (text, colour). Columns are padded with
/// spaces, which the fixed-width font keeps aligned. `leave` is what the quit key does
/// ("quit", or "menu" for a match started from the menu).
pub(crate) fn lines(
    bindings: &KeyBindings,
    controllers: &[String],
    rounds_to_win: u8,
    footer: &str,
    leave: &str,
) -> Vec<(String, Color)> {
    let movement = |k: &PlayerKeys| {
        let names = [&k.up, &k.left, &k.down, &k.right].map(|keys| key_names(keys));
        names.join(" ")
    };
    let [p1, p2] = &bindings.players;
    let row = |label: &str, a: String, b: String| format!("{label:<15}{a:<22}{b}");
    let pads = if controllers.is_empty() {
        "none".to_string()
    } else {
        controllers
            .iter()
            .enumerate()
            .map(|(i, name)| format!("P{}: {name}", i + 1))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let global = format!(
        "{} pause   {} controls   {} netcode   {} rematch   {} {leave}",
        key_names(&[bindings.pause]),
        key_names(&[bindings.controls]),
        key_names(&bindings.net_hud),
        key_names(&bindings.rematch[..1]),
        key_names(&[bindings.quit]),
    );
    vec![
        (
            row("", "PLAYER 1".into(), "PLAYER 2".into()),
            palette::TEXT_DIM,
        ),
        (row("move / aim", movement(p1), movement(p2)), palette::TEXT),
        (
            row("shoot (hold)", key_names(&p1.shoot), key_names(&p2.shoot)),
            palette::TEXT,
        ),
        (
            row("melee", key_names(&p1.melee), key_names(&p2.melee)),
            palette::TEXT,
        ),
        (
            row("reload", key_names(&p1.reload), key_names(&p2.reload)),
            palette::TEXT,
        ),
        (
            row("rail", key_names(&p1.rail), key_names(&p2.rail)),
            palette::TEXT,
        ),
        (String::new(), palette::TEXT),
        (
            "Controllers: left stick or D-pad moves, A or RT shoots,".into(),
            palette::TEXT,
        ),
        (
            "B, X or RB swings, Y or LB reloads, LT or R3 fires the rail.".into(),
            palette::TEXT,
        ),
        (format!("Controllers connected: {pads}"), palette::TEXT_DIM),
        (String::new(), palette::TEXT),
        (global, palette::TEXT_DIM),
        (
            format!(
                "{} rail debug: the hitboxes your rail is judged against, the last ray",
                key_names(&[bindings.rail_debug])
            ),
            palette::TEXT_DIM,
        ),
        (
            format!(
                "Shoot, rail or slash your rival down to 0 HP. First to {rounds_to_win} rounds wins."
            ),
            palette::TEXT_DIM,
        ),
        (String::new(), palette::TEXT),
        (footer.to_string(), palette::ACCENT),
    ]
}

/// Draws the controls screen centred over everything.
///
/// # Errors
/// SDL drawing errors.
pub(crate) fn draw_controls<T: RenderTarget>(
    canvas: &mut Canvas<T>,
    layout: &Layout,
    font: &BitmapFont,
    lines: &[(String, Color)],
) -> Result<(), String> {
    let s = layout.text_scale;
    let title = "MAZE DUEL";
    let title_scale = s * 3;
    let widest = lines
        .iter()
        .map(|(t, _)| t.chars().count() as u32)
        .max()
        .unwrap_or(0);
    let width = ((widest + 4) * CELL_W * s).max(BitmapFont::text_width(title, title_scale) + 8 * s);
    let line = (CELL_H + 3) * s;
    let height = CELL_H * title_scale + 6 * s + lines.len() as u32 * line + 6 * s;
    let (width, height) = (width.min(layout.width), height.min(layout.height));
    let panel = Rect::new(
        (layout.width as i32 - width as i32) / 2,
        (layout.height as i32 - height as i32) / 2,
        width,
        height,
    );
    canvas.set_draw_color(palette::with_alpha(palette::PANEL, 240));
    canvas.fill_rect(panel)?;
    frame(canvas, panel, s, palette::PANEL_EDGE)?;
    let mut y = panel.y() + (3 * s) as i32;
    let tw = BitmapFont::text_width(title, title_scale) as i32;
    font.draw_shadowed(
        canvas,
        title,
        (panel.x() + (width as i32 - tw) / 2, y),
        title_scale,
        palette::ACCENT,
    )?;
    y += (CELL_H * title_scale + 3 * s) as i32;
    let left = panel.x() + (2 * CELL_W * s) as i32;
    for (text, color) in lines {
        font.draw(canvas, text, (left, y), s, *color)?;
        y += line as i32;
    }
    Ok(())
}
