//! Drawing the training room's panel along the bottom of the window: the frame meter (one row
//! of cells per fighter, one cell per tick, newest on the right), the last exchange's frames
//! and advantage, your input on the last tick, and the dummy's line.

use crate::draw::font::{BitmapFont, CELL_H};
use crate::draw::frame_meter::{FrameKind, METER_TICKS};
use crate::draw::layout::Layout;
use crate::draw::palette;
use crate::matches::training::TrainingView;
use engine::{buttons, InputCmd};
use sdl2::pixels::Color;
use sdl2::rect::Rect;
use sdl2::render::{Canvas, RenderTarget};

/// The colour of a frame cell.
#[must_use]
pub fn frame_color(kind: FrameKind) -> Color {
    match kind {
        FrameKind::Free => Color::RGB(52, 58, 76),
        FrameKind::Startup => Color::RGB(80, 200, 120),
        FrameKind::Active => Color::RGB(235, 70, 70),
        FrameKind::Recovery => Color::RGB(70, 130, 235),
        FrameKind::Hitstun => Color::RGB(240, 200, 60),
        FrameKind::HitStop => Color::RGB(240, 240, 250),
        FrameKind::Ko => Color::RGB(100, 100, 110),
    }
}

/// Your input as the panel shows it: the stick's direction and the buttons held.
#[must_use]
pub fn input_text(input: &InputCmd) -> String {
    let dir = |v: i8, neg: &'static str, pos: &'static str| match v {
        v if v < -40 => neg,
        v if v > 40 => pos,
        _ => "",
    };
    let stick = format!(
        "{}{}",
        dir(input.move_y, "up", "down"),
        dir(input.move_x, "left", "right")
    );
    let mut parts = vec![if stick.is_empty() {
        "-".to_owned()
    } else {
        stick
    }];
    for (bit, name) in [
        (buttons::SHOOT, "SHOOT"),
        (buttons::MELEE, "MELEE"),
        (buttons::RELOAD, "RELOAD"),
        (buttons::RAIL, "RAIL"),
    ] {
        if input.buttons & bit != 0 {
            parts.push(name.to_owned());
        }
    }
    format!("input {}", parts.join(" "))
}

/// The panel's rows: where each meter row and text line goes, for `layout`.
struct PanelLayout {
    panel: Rect,
    cell: u32,
    rows_y: [i32; 2],
    text_y: [i32; 3],
    x: i32,
}

/// How tall the panel is in a window of `layout`: the arena is laid out above it.
#[must_use]
pub(crate) fn panel_height(layout: &Layout) -> u32 {
    panel_layout(layout).panel.height()
}

fn panel_layout(layout: &Layout) -> PanelLayout {
    let s = layout.text_scale;
    let line = ((CELL_H + 2) * s) as i32;
    let cell = ((layout.width.saturating_sub(8 * s)) / METER_TICKS as u32).clamp(1, 6 * s);
    let row_h = (cell + s) as i32;
    let height = 2 * row_h + 3 * line + (6 * s) as i32;
    let top = layout.height as i32 - height;
    let x = (4 * s) as i32;
    let rows_y = [top + (3 * s) as i32, top + (3 * s) as i32 + row_h];
    let text0 = rows_y[1] + row_h + s as i32;
    PanelLayout {
        panel: Rect::new(0, top, layout.width, height.max(1) as u32),
        cell,
        rows_y,
        text_y: [text0, text0 + line, text0 + 2 * line],
        x,
    }
}

/// Draws the training panel.
///
/// # Errors
/// SDL drawing errors.
pub(crate) fn draw_training<T: RenderTarget>(
    canvas: &mut Canvas<T>,
    layout: &Layout,
    font: &BitmapFont,
    view: &TrainingView,
) -> Result<(), String> {
    let s = layout.text_scale;
    let p = panel_layout(layout);
    canvas.set_draw_color(palette::PANEL);
    canvas.fill_rect(p.panel)?;
    for (slot, y) in p.rows_y.iter().enumerate() {
        let row = view.meter.row(slot);
        // Newest on the right: the row ends at the panel's right edge of the meter.
        let start = p.x + ((METER_TICKS - row.len()) as u32 * p.cell) as i32;
        for (i, kind) in row.iter().enumerate() {
            canvas.set_draw_color(frame_color(*kind));
            let x = start + (i as u32 * p.cell) as i32;
            canvas.fill_rect(Rect::new(x, *y, p.cell.saturating_sub(1).max(1), p.cell))?;
        }
    }
    let lines = [
        (view.meter.summary(), palette::ACCENT),
        (input_text(&view.input), palette::TEXT),
        (view.dummy.clone(), palette::TEXT_DIM),
    ];
    for ((text, color), y) in lines.iter().zip(p.text_y) {
        font.draw(canvas, text, (p.x, y), s, *color)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_input_reads_as_directions_and_buttons() {
        let mut input = InputCmd::idle(0);
        assert_eq!(input_text(&input), "input -");
        input.move_x = 127;
        input.move_y = -127;
        input.buttons = buttons::SHOOT | buttons::RAIL;
        assert_eq!(input_text(&input), "input upright SHOOT RAIL");
        input.move_x = -20;
        input.move_y = 90;
        input.buttons = buttons::MELEE | buttons::RELOAD;
        assert_eq!(input_text(&input), "input down MELEE RELOAD"); // A stick reads as a direction only past 40 either way.
        input.buttons = 0;
        for (x, shown) in [(40, "-"), (41, "right"), (-40, "-"), (-41, "left")] {
            input.move_x = x;
            input.move_y = 0;
            assert_eq!(input_text(&input), format!("input {shown}"), "x {x}");
        }
    }

    /// Every frame kind has its own colour, and the panel fits the window at every size.
    #[test]
    fn the_panel_fits_and_tells_kinds_apart() {
        use FrameKind::*;
        let kinds = [Free, Startup, Active, Recovery, Hitstun, HitStop, Ko];
        for (i, a) in kinds.iter().enumerate() {
            for b in &kinds[i + 1..] {
                assert_ne!(frame_color(*a), frame_color(*b), "{a:?} {b:?}");
            }
        }
        for (w, h) in [(320, 240), (640, 400), (1280, 800), (3840, 2160)] {
            let layout = Layout::new((w, h), (21, 15));
            let p = panel_layout(&layout);
            assert!(p.panel.y() >= 0, "{w}x{h}");
            assert!(
                p.x + (METER_TICKS as u32 * p.cell) as i32 <= w as i32,
                "{w}x{h}"
            );
            assert!(
                p.text_y[2] + (CELL_H * layout.text_scale) as i32 <= h as i32,
                "{w}x{h}"
            );
        }
    }

    /// The panel to the pixel at 1280x800 (text scale 2): cells of 10 pixels for the 120
    /// ticks, two meter rows a cell and a text pixel apart, three text lines under them, the
    /// whole resting on the window's bottom edge and as tall as `panel_height` says.
    #[test]
    fn the_panel_to_the_pixel() {
        let layout = Layout::new((1280, 800), (21, 15));
        assert_eq!(layout.text_scale, 2);
        let p = panel_layout(&layout);
        let line = ((CELL_H + 2) * 2) as i32;
        assert_eq!(p.cell, 10);
        assert_eq!(panel_height(&layout), (2 * 12 + 3 * line + 12) as u32);
        assert_eq!(p.panel.height(), panel_height(&layout));
        assert_eq!(
            (p.panel.x(), p.panel.width(), p.panel.bottom()),
            (0, 1280, 800)
        );
        let top = p.panel.y();
        assert_eq!(p.rows_y, [top + 6, top + 18]);
        assert_eq!(p.text_y, [top + 32, top + 32 + line, top + 32 + 2 * line]);
        assert_eq!(p.x, 8);
    }
}
