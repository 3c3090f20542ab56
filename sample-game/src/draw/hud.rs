//! The HUD strip along the top: each player's name, health and magazine (or reload progress)
//! on their side, the round, the clock and the score in the middle.

use crate::draw::fighter_view::{bar, hp_color};
use crate::draw::font::{BitmapFont, CELL_H, CELL_W};
use crate::draw::layout::Layout;
use crate::draw::palette;
use engine::{Player, RoundPhase, Rules, WorldSnapshot, TICKS_PER_SECOND};
use sdl2::rect::Rect;
use sdl2::render::{Canvas, RenderTarget};

/// Draws the HUD strip for the first two players.
///
/// # Errors
/// SDL drawing errors.
pub(crate) fn draw_hud<T: RenderTarget>(
    canvas: &mut Canvas<T>,
    layout: &Layout,
    font: &BitmapFont,
    rules: &Rules,
    state: &WorldSnapshot,
) -> Result<(), String> {
    let s = layout.text_scale;
    canvas.set_draw_color(palette::HUD_BACK);
    canvas.fill_rect(layout.hud_rect())?;
    canvas.set_draw_color(palette::PANEL_EDGE);
    canvas.fill_rect(Rect::new(0, layout.hud_height as i32 - 1, layout.width, 1))?;
    // Middle: round and clock, then the score.
    let centre = layout.width as i32 / 2;
    let row1 = (2 * s) as i32;
    let row2 = row1 + ((CELL_H + 3) * s) as i32;
    let r = &state.round;
    let clock = match r.phase {
        RoundPhase::Fighting => {
            let left = rules.round_time_limit.saturating_sub(r.phase_timer);
            let secs = left.div_ceil(TICKS_PER_SECOND);
            Some(format!("{}:{:02}", secs / 60, secs % 60))
        }
        _ => None,
    };
    let fit = hud_fit(layout.width, s, r.round, clock.as_deref());
    let title = fit.title;
    let w = BitmapFont::text_width(&title, s) as i32;
    // Each side's panel stops short of the title, however narrow the window.
    let side_room = centre - w / 2 - (TITLE_GAP * s) as i32;
    for (side, p) in state.players.iter().take(2).enumerate() {
        draw_player_panel(
            canvas,
            layout,
            font,
            rules,
            p,
            side == 1,
            side_room,
            fit.numbers,
        )?;
    }
    font.draw(canvas, &title, (centre - w / 2, row1), s, palette::ACCENT)?;
    let parts = [
        (r.wins[0].to_string(), palette::player(0)),
        (" - ".to_string(), palette::TEXT_DIM),
        (r.wins[1].to_string(), palette::player(1)),
    ];
    let total: u32 = parts.iter().map(|(t, _)| t.chars().count() as u32).sum();
    let mut x = centre - (total * CELL_W * s) as i32 / 2;
    for (text, color) in parts {
        font.draw(canvas, &text, (x, row2), s, color)?;
        x += (text.chars().count() as u32 * CELL_W * s) as i32;
    }
    Ok(())
}

/// The narrowest health bar worth drawing, in font pixels.
const MIN_BAR: u32 = 8;
/// The space kept between a side panel and the middle title, in font pixels: two characters,
/// so that a health number never reads as part of the title.
const TITLE_GAP: u32 = 2 * CELL_W;

/// What of the HUD fits a window `width` pixels wide at text scale `s`.
#[derive(Debug, PartialEq, Eq)]
struct HudFit {
    /// The middle title: `ROUND 1  0:38`, or `R1 0:38` when the side panels would not fit.
    title: String,
    /// Whether the side panels show the health number next to the bar.
    numbers: bool,
}

/// The widest title and side panels that leave each side's name, bar (at least [`MIN_BAR`])
/// and number [`TITLE_GAP`] clear of the title; the number goes last (regression: at 200 px
/// the HUD read "100ROUND 1 0:38100", a number a pixel from the title).
fn hud_fit(width: u32, s: u32, round: u8, clock: Option<&str>) -> HudFit {
    let long = match clock {
        Some(clock) => format!("ROUND {round}  {clock}"),
        None => format!("ROUND {round}"),
    };
    let short = match clock {
        Some(clock) => format!("R{round} {clock}"),
        None => format!("R{round}"),
    };
    let fits = |title: &str, numbers: bool| {
        let room =
            width as i32 / 2 - BitmapFont::text_width(title, s) as i32 / 2 - (TITLE_GAP * s) as i32;
        let (pad, gap) = ((4 * s) as i32, (2 * s) as i32);
        let name = BitmapFont::text_width("P1", s) as i32;
        let number = if numbers {
            gap + BitmapFont::text_width("100", s) as i32
        } else {
            0
        };
        pad + name + gap + (MIN_BAR * s) as i32 + number <= room
    };
    for (title, numbers) in [(&long, true), (&short, true), (&short, false)] {
        if fits(title, numbers) {
            return HudFit {
                title: title.clone(),
                numbers,
            };
        }
    }
    HudFit {
        title: short,
        numbers: false,
    }
}

/// The health bar's width: 27 % of the window, but never so wide that name, bar and number
/// reach into `room` (the pixels from the window's edge to the middle title); at least 1.
fn panel_bar_width(width: u32, room: i32, pad: i32, name_w: i32, hp_w: i32, gap: i32) -> u32 {
    let fits = room - pad - name_w - hp_w - 2 * gap;
    (width * 27 / 100).min(fits.max(1) as u32).max(1)
}

/// One player's panel: `P1`, a health bar with the number (unless `numbers` is false: too
/// narrow), and ammo pips or reload progress. `right` mirrors it against the right edge.
#[allow(clippy::too_many_arguments)]
fn draw_player_panel<T: RenderTarget>(
    canvas: &mut Canvas<T>,
    layout: &Layout,
    font: &BitmapFont,
    rules: &Rules,
    p: &Player,
    right: bool,
    room: i32,
    numbers: bool,
) -> Result<(), String> {
    let s = layout.text_scale;
    let (w, pad) = (layout.width as i32, (4 * s) as i32);
    let row1 = (2 * s) as i32;
    let row2 = row1 + ((CELL_H + 3) * s) as i32;
    let name = format!("P{}", p.id + 1);
    let name_w = BitmapFont::text_width(&name, s) as i32;
    let hp_text = if numbers {
        format!("{:>3}", p.hp)
    } else {
        String::new()
    };
    let hp_w = BitmapFont::text_width(&hp_text, s) as i32;
    let gap = (2 * s) as i32;
    let bar_w = panel_bar_width(layout.width, room, pad, name_w, hp_w, gap);
    let bar_h = 7 * s;
    // Left to right: name, bar, number; mirrored on the right.
    let (name_x, bar_x, hp_x) = if right {
        let name_x = w - pad - name_w;
        let bar_x = name_x - gap - bar_w as i32;
        (name_x, bar_x, bar_x - gap - hp_w)
    } else {
        let bar_x = pad + name_w + gap;
        (pad, bar_x, bar_x + bar_w as i32 + gap)
    };
    font.draw(canvas, &name, (name_x, row1), s, palette::player(p.id))?;
    let hp = f32::from(p.hp) / f32::from(rules.max_hp.max(1));
    bar(
        canvas,
        Rect::new(bar_x, row1, bar_w, bar_h),
        hp,
        hp_color(hp),
    )?;
    font.draw(canvas, &hp_text, (hp_x, row1), s, palette::TEXT)?;
    let under_bar = Rect::new(bar_x, row2, bar_w, 7 * s);
    draw_ammo_row(canvas, font, rules, p, under_bar, right, s)
}

/// The row under a player's health bar (`under`, as wide as the bar): reload progress while
/// reloading, else the magazine as pips, or as a count when too many for pips. `right` fills
/// it from the right edge.
fn draw_ammo_row<T: RenderTarget>(
    canvas: &mut Canvas<T>,
    font: &BitmapFont,
    rules: &Rules,
    p: &Player,
    under: Rect,
    right: bool,
    s: u32,
) -> Result<(), String> {
    let (bar_x, bar_w, row2) = (under.x(), under.width(), under.y());
    let gap = (2 * s) as i32;
    if p.reload_timer > 0 {
        let label = "RELOADING";
        let label_w = BitmapFont::text_width(label, s) as i32;
        let done = 1.0 - f32::from(p.reload_timer) / f32::from(rules.reload_ticks.max(1));
        let track_w = (bar_w as i32 - label_w - gap).max(8) as u32;
        let (label_x, track_x) = if right {
            (bar_x + bar_w as i32 - label_w, bar_x)
        } else {
            (bar_x, bar_x + label_w + gap)
        };
        font.draw(canvas, label, (label_x, row2), s, palette::ACCENT)?;
        let track = Rect::new(track_x, row2 + s as i32, track_w, 5 * s);
        bar(canvas, track, done, palette::ACCENT)?;
    } else if rules.magazine > 24 {
        // Too many rounds for pips: a count instead.
        let text = format!("AMMO {}/{}", p.ammo, rules.magazine);
        let x = if right {
            bar_x + bar_w as i32 - BitmapFont::text_width(&text, s) as i32
        } else {
            bar_x
        };
        font.draw(canvas, &text, (x, row2), s, palette::shot(p.id))?;
    } else {
        let magazine = u32::from(rules.magazine);
        let pip_w = (3 * s)
            .min((bar_w / magazine.max(1)).saturating_sub(1))
            .max(1);
        let step = (pip_w + s) as i32;
        let mut pips = Vec::new();
        let mut spent = Vec::new();
        for i in 0..magazine as i32 {
            let x = if right {
                bar_x + bar_w as i32 - pip_w as i32 - i * step
            } else {
                bar_x + i * step
            };
            let rect = Rect::new(x, row2, pip_w, 7 * s);
            if i < i32::from(p.ammo) {
                pips.push(rect);
            } else {
                spent.push(rect);
            }
        }
        canvas.set_draw_color(palette::shot(p.id));
        canvas.fill_rects(&pips)?;
        canvas.set_draw_color(palette::BAR_BACK);
        canvas.fill_rects(&spent)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// At every window width from 160 px up, every round and every clock, what the HUD draws
    /// fits with two characters to spare: the left panel (name, a bar of at least MIN_BAR, the
    /// number if shown) ends two character cells before the title begins; and it is the most
    /// that fits (the long title with numbers, else the short one with, else without); from
    /// 200 px the numbers stay; wide windows keep the long title (regression: at 200 px it
    /// read "100ROUND 1 0:38100").
    #[test]
    fn the_hud_fits_every_width() {
        for width in 160..=2000u32 {
            let s = Layout::new((width, width * 2 / 3), (21, 15)).text_scale;
            for (round, clock) in [(1, None), (9, Some("9:59")), (255, Some("59:59"))] {
                // The left panel's width (pad, name, gap, the narrowest bar, the number) and
                // whether it ends two characters before `title` begins.
                let (pad, gap) = ((4 * s) as i32, (2 * s) as i32);
                let panel = |numbers: bool| {
                    let number = if numbers {
                        gap + BitmapFont::text_width("100", s) as i32
                    } else {
                        0
                    };
                    pad + BitmapFont::text_width("P1", s) as i32
                        + gap
                        + (MIN_BAR * s) as i32
                        + number
                };
                let title_starts =
                    |title: &str| width as i32 / 2 - BitmapFont::text_width(title, s) as i32 / 2;
                let two_chars = (2 * CELL_W * s) as i32;
                let clear =
                    |title: &str, numbers| panel(numbers) + two_chars <= title_starts(title);
                let fit = hud_fit(width, s, round, clock);
                let (long, short) = match clock {
                    Some(clock) => (
                        format!("ROUND {round}  {clock}"),
                        format!("R{round} {clock}"),
                    ),
                    None => (format!("ROUND {round}"), format!("R{round}")),
                };
                let most = [(&long, true), (&short, true), (&short, false)]
                    .into_iter()
                    .find(|&(title, numbers)| clear(title, numbers))
                    .unwrap_or((&short, false));
                assert_eq!((&fit.title, fit.numbers), most, "{width} px, round {round}");
                assert!(
                    clear(&fit.title, fit.numbers),
                    "{width} px, {fit:?}: the panel needs {} px, the title starts at {}",
                    panel(fit.numbers),
                    title_starts(&fit.title)
                );
                if width >= 200 && round < 100 {
                    assert!(fit.numbers, "{width}: {fit:?}");
                }
                if width >= 480 {
                    assert!(fit.title.starts_with("ROUND"), "{width}: {fit:?}");
                }
            }
        }
    }

    /// At every window width, the left panel's number ends before the middle title begins
    /// (regression: below 640 px they ran together) unless the bar is already down to its one
    /// pixel; and the bar is as wide as that allows, up to 27 % of the window.
    #[test]
    fn the_side_panels_never_reach_the_title() {
        for width in 1..=2000u32 {
            let layout = Layout::new((width, width * 2 / 3), (21, 15));
            let s = layout.text_scale;
            let title_w = BitmapFont::text_width("ROUND 9  9:59", s) as i32;
            let room = width as i32 / 2 - title_w / 2 - (2 * s) as i32;
            let (pad, gap) = ((4 * s) as i32, (2 * s) as i32);
            let name_w = BitmapFont::text_width("P1", s) as i32;
            let hp_w = BitmapFont::text_width("100", s) as i32;
            let bar = panel_bar_width(width, room, pad, name_w, hp_w, gap) as i32;
            let hp_end = pad + name_w + gap + bar + gap + hp_w;
            assert!(
                hp_end <= room || bar == 1,
                "{width} px: the number ends at {hp_end}, the title starts after {room}"
            );
            // As wide as allowed: 27 % of the window, or up to the title, or the 1 px floor.
            let share = (width * 27 / 100) as i32;
            assert!((1..=share.max(1)).contains(&bar), "{width} px: {bar}");
            let no_room = room - (pad + name_w + gap + gap + hp_w) <= 1;
            assert!(
                bar == share || hp_end == room || (bar == 1 && no_room),
                "{width} px: a bar of {bar} px, 27 % is {share}, it ends {} px short",
                room - hp_end
            );
        }
    }
}
