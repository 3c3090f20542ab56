//! The netcode overlay (Tab or H): a panel in the arena's top-right corner listing a
//! [`NetView`], with a sparkline of recent rollback depths. Missing values show as "—".

use crate::draw::font::{BitmapFont, CELL_H, CELL_W};
use crate::draw::layout::Layout;
use crate::draw::palette;
use crate::draw::shapes::frame;
use crate::matches::net_view::{DesyncStatus, NetMode, NetView};
use sdl2::pixels::Color;
use sdl2::rect::Rect;
use sdl2::render::{Canvas, RenderTarget};

/// Title line of the panel.
pub(crate) const TITLE: &str = "NETCODE";
/// Rollback depths the sparkline shows (the newest ones).
const SPARK_LEN: usize = 40;
/// Label column width, in characters.
const LABEL_CHARS: u32 = 11;

/// "—" for a missing value.
fn or_dash<T: ToString>(v: Option<T>) -> String {
    v.map_or_else(|| "—".to_string(), |v| v.to_string())
}

/// The panel's rows: label, value, value colour.
pub(crate) fn rows(view: &NetView) -> Vec<(&'static str, String, Color)> {
    let (desync, desync_color) = match view.desync {
        DesyncStatus::Unchecked => ("—".to_string(), palette::TEXT_DIM),
        DesyncStatus::InSync { checked } => (format!("in sync @{checked}"), palette::GOOD),
        DesyncStatus::Desynced { tick } => (format!("DESYNC @{tick}"), palette::DANGER),
        DesyncStatus::Resynced { desync, tick } => (
            format!("resynced @{tick} (desync @{desync})"),
            palette::ACCENT,
        ),
    };
    let rate = |v: Option<u32>| v.map_or_else(|| "—".to_string(), |b| format!("{b}"));
    let mut rows = vec![
        ("mode", view.mode.label().to_string(), palette::TEXT),
        (
            "ping",
            view.ping_ms
                .map_or_else(|| "—".into(), |p| format!("{p} ms")),
            palette::TEXT,
        ),
        ("ahead", or_dash(view.frames_ahead), palette::TEXT),
        (
            "rollbacks",
            view.rollbacks_per_second
                .map_or_else(|| "—".into(), |r| format!("{r:.1}/s")),
            palette::TEXT,
        ),
        ("depth", String::new(), palette::TEXT),
        (
            "tick",
            format!(
                "{} pred / {} conf",
                view.predicted_tick, view.confirmed_tick
            ),
            palette::TEXT,
        ),
        (
            "bytes/s",
            format!(
                "{} up / {} down",
                rate(view.bytes_sent_per_second),
                rate(view.bytes_received_per_second)
            ),
            palette::TEXT,
        ),
        ("desync", desync, desync_color),
        (
            "hash",
            or_dash(view.confirmed_hash.map(|h| h.short())),
            palette::ACCENT,
        ),
    ];
    if let Some(delay) = view.input_delay {
        rows.push(("delay", format!("{delay} frames (F5/F6)"), palette::TEXT));
    }
    if let Some(status) = &view.status {
        rows.push(("status", status.clone(), palette::TEXT));
    }
    if let Some((count, on)) = view.smoothed {
        let state = if on { "on" } else { "off (F4)" };
        rows.push(("smoothed", format!("{count} {state}"), palette::TEXT));
    }
    rows
}

/// Draws the overlay.
///
/// # Errors
/// SDL drawing errors.
pub(crate) fn draw_net_hud<T: RenderTarget>(
    canvas: &mut Canvas<T>,
    layout: &Layout,
    font: &BitmapFont,
    view: &NetView,
) -> Result<(), String> {
    let s = layout.text_scale;
    let rows = rows(view);
    let line = ((CELL_H + 2) * s) as i32;
    let value_chars = rows
        .iter()
        .map(|r| r.1.chars().count() as u32)
        .max()
        .unwrap_or(0)
        .max(SPARK_LEN as u32 / 2 + 4);
    let width = (LABEL_CHARS + value_chars + 2) * CELL_W * s;
    let height = (rows.len() as u32 + 1) * line as u32 + 4 * s;
    let maze = layout.maze_rect();
    // Top-right: the one corner of a two-player arena nobody spawns in.
    let panel = Rect::new(
        maze.right() - (2 * s) as i32 - width as i32,
        maze.y() + (2 * s) as i32,
        width,
        height,
    );
    canvas.set_draw_color(palette::PANEL);
    canvas.fill_rect(panel)?;
    frame(canvas, panel, 1, palette::PANEL_EDGE)?;
    let left = panel.x() + (CELL_W * s) as i32;
    let value_x = left + (LABEL_CHARS * CELL_W * s) as i32;
    let mut y = panel.y() + (2 * s) as i32;
    font.draw(canvas, TITLE, (left, y), s, palette::ACCENT)?;
    font.draw(canvas, "Tab", (value_x, y), s, palette::TEXT_DIM)?;
    for (label, value, color) in &rows {
        y += line;
        font.draw(canvas, label, (left, y), s, palette::TEXT_DIM)?;
        if *label == "depth" {
            draw_sparkline(
                canvas,
                &view.rollback_depths,
                Rect::new(value_x, y, (SPARK_LEN as u32) * 2 * s, CELL_H * s - s),
                s,
            )?;
        } else {
            font.draw(canvas, value, (value_x, y), s, *color)?;
        }
    }
    Ok(())
}

/// The one-line summary shown online while the panel is closed: ping, rollbacks per second,
/// input delay; `None` where there is no network.
#[must_use]
pub fn compact_line(view: &NetView) -> Option<String> {
    if !matches!(view.mode, NetMode::Host | NetMode::Join | NetMode::Spectate) {
        return None;
    }
    let ping = view
        .ping_ms
        .map_or("ping -".to_string(), |p| format!("ping {p} ms"));
    let rollbacks = view
        .rollbacks_per_second
        .map_or("rb -".to_string(), |r| format!("rb {r:.0}/s"));
    let delay = view
        .input_delay
        .map_or(String::new(), |d| format!("  delay {d}"));
    Some(format!("{ping}  {rollbacks}{delay}  Tab"))
}

/// Draws [`compact_line`] along the bottom-right corner of the arena.
///
/// # Errors
/// SDL drawing errors.
pub(crate) fn draw_net_line<T: RenderTarget>(
    canvas: &mut Canvas<T>,
    layout: &Layout,
    font: &BitmapFont,
    view: &NetView,
) -> Result<(), String> {
    let Some(line) = compact_line(view) else {
        return Ok(());
    };
    let s = layout.text_scale;
    let maze = layout.maze_rect();
    let w = BitmapFont::text_width(&line, s) as i32;
    let at = (
        maze.right() - w - (2 * s) as i32,
        maze.bottom() - ((CELL_H + 2) * s) as i32,
    );
    font.draw_shadowed(canvas, &line, at, s, palette::TEXT_DIM)
}

/// Bars for the newest rollback depths, scaled to the deepest shown; a dash when there are none.
fn draw_sparkline<T: RenderTarget>(
    canvas: &mut Canvas<T>,
    depths: &[u8],
    area: Rect,
    s: u32,
) -> Result<(), String> {
    canvas.set_draw_color(palette::BAR_BACK);
    canvas.fill_rect(Rect::new(
        area.x(),
        area.bottom() - s as i32,
        area.width(),
        s,
    ))?;
    let recent = &depths[depths.len().saturating_sub(SPARK_LEN)..];
    let deepest = recent.iter().copied().max().unwrap_or(0).max(1);
    let bar_w = (2 * s).saturating_sub(1).max(1);
    let mut bars = Vec::new();
    let mut deep = Vec::new();
    for (i, &d) in recent.iter().enumerate() {
        if d == 0 {
            continue;
        }
        let h = (u32::from(d) * area.height() / u32::from(deepest)).max(1);
        let rect = Rect::new(
            area.x() + (i as u32 * 2 * s) as i32,
            area.bottom() - h as i32,
            bar_w,
            h,
        );
        if d >= 8 {
            deep.push(rect);
        } else {
            bars.push(rect);
        }
    }
    canvas.set_draw_color(palette::ACCENT);
    canvas.fill_rects(&bars)?;
    canvas.set_draw_color(palette::DANGER);
    canvas.fill_rects(&deep)
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_compact_line_shows_only_online() {
        let mut view = NetView::local(10, engine::StateHash::default());
        assert_eq!(compact_line(&view), None);
        view.mode = NetMode::Join;
        view.ping_ms = Some(42);
        view.rollbacks_per_second = Some(3.0);
        view.input_delay = Some(2);
        assert_eq!(
            compact_line(&view).as_deref(),
            Some("ping 42 ms  rb 3/s  delay 2  Tab")
        );
    }

    use super::*;
    use engine::StateHash;

    #[test]
    fn local_play_shows_dashes_and_the_hash() {
        let hash = StateHash::from_sections([1, 2, 3, 4, 5]);
        let view = NetView::local(77, hash);
        let rows = rows(&view);
        let value = |name: &str| rows.iter().find(|r| r.0 == name).unwrap().1.clone();
        assert_eq!(value("mode"), "local");
        assert_eq!(value("ping"), "—");
        assert_eq!(value("tick"), "77 pred / 77 conf");
        assert_eq!(value("hash"), hash.short());
    }
}
