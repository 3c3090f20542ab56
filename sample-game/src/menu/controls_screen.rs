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

#[cfg(test)]
mod tests {
    use super::*;
    use sdl2::keyboard::Scancode;

    /// The screen word for word with the default keys: both players' keys in their columns,
    /// what a controller does (as `pad_buttons` maps it), the global keys with what quitting
    /// does, the rounds to win, the footer in the accent colour.
    #[test]
    fn the_controls_screen_says_every_key_word_for_word() {
        let said = lines(&KeyBindings::default(), &[], 3, "press any key", "menu");
        let (dim, text, accent) = (palette::TEXT_DIM, palette::TEXT, palette::ACCENT);
        let expected = [
            ("               PLAYER 1              PLAYER 2", dim),
            (
                "move / aim     W A S D               Up Left Down Right",
                text,
            ),
            ("shoot (hold)   F                     . or Right Ctrl", text),
            ("melee          G                     / or ,", text),
            ("reload         R                     Right Shift", text),
            ("rail           E                     ; or Right Alt", text),
            ("", text),
            (
                "Controllers: left stick or D-pad moves, A or RT shoots,",
                text,
            ),
            (
                "B, X or RB swings, Y or LB reloads, LT or R3 fires the rail.",
                text,
            ),
            ("Controllers connected: none", dim),
            ("", text),
            (
                "P pause   F1 controls   Tab or H netcode   Return rematch   Escape menu",
                dim,
            ),
            (
                "F3 rail debug: the hitboxes your rail is judged against, the last ray",
                dim,
            ),
            (
                "Shoot, rail or slash your rival down to 0 HP. First to 3 rounds wins.",
                dim,
            ),
            ("", text),
            ("press any key", accent),
        ];
        let said: Vec<(&str, Color)> = said.iter().map(|(t, c)| (t.as_str(), *c)).collect();
        assert_eq!(said, expected);
    }

    /// Controllers are listed by the player they play; rebound keys, the rounds and what
    /// quitting does come from what is passed.
    #[test]
    fn controllers_keys_rounds_and_leaving_are_the_ones_given() {
        let mut keys = KeyBindings::default();
        keys.players[1].melee = vec![Scancode::M];
        keys.quit = Scancode::Q;
        let pads = ["Pad One".to_string(), "Pad Two".to_string()];
        let said = lines(&keys, &pads, 5, "", "quit");
        let text = |i: usize| said[i].0.as_str();
        assert_eq!(text(3), "melee          G                     M");
        assert_eq!(text(9), "Controllers connected: P1: Pad One, P2: Pad Two");
        assert!(
            text(11).ends_with("Return rematch   Q quit"),
            "{}",
            text(11)
        );
        assert!(text(13).ends_with("First to 5 rounds wins."));
    }
}
