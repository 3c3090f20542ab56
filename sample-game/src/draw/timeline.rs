//! A replay's label and timeline: "REPLAY" (or "PAUSED") with the tick, over a bar along the
//! bottom of the window that shows where the replay stands and seeks where it is clicked.

use crate::draw::font::BitmapFont;
use crate::draw::layout::Layout;
use crate::draw::palette;
use crate::matches::match_source::Timeline;
use engine::Tick;
use sdl2::rect::Rect;
use sdl2::render::{Canvas, RenderTarget};

/// The bar's rectangle in a layout: along the bottom of the window, inset from the sides.
#[must_use]
pub fn bar(layout: &Layout) -> Rect {
    let margin = (layout.width / 20).max(4);
    let height = (layout.text_scale * 3).max(4);
    let y = layout.height.saturating_sub(height + layout.text_scale * 2);
    Rect::new(
        margin as i32,
        y as i32,
        layout.width.saturating_sub(2 * margin).max(1),
        height,
    )
}

/// The tick a click at `(x, y)` seeks to, if it is on (or just around) the bar.
#[must_use]
pub fn seek_target(layout: &Layout, timeline: &Timeline, (x, y): (i32, i32)) -> Option<Tick> {
    let bar = bar(layout);
    let slack = bar.height() as i32;
    let on = y >= bar.top() - slack && y <= bar.bottom() + slack;
    if !on || timeline.last == 0 {
        return None;
    }
    let along = (x - bar.left()).clamp(0, bar.width() as i32) as u64;
    Some((along * u64::from(timeline.last) / u64::from(bar.width())) as Tick)
}

/// Draws the label and the bar.
///
/// # Errors
/// SDL drawing errors.
pub(crate) fn draw_timeline<T: RenderTarget>(
    canvas: &mut Canvas<T>,
    layout: &Layout,
    font: &BitmapFont,
    timeline: &Timeline,
) -> Result<(), String> {
    let bar = bar(layout);
    canvas.set_draw_color(palette::with_alpha(palette::INK, 200));
    canvas.fill_rect(bar)?;
    let done = if timeline.last == 0 {
        bar.width()
    } else {
        (u64::from(bar.width()) * u64::from(timeline.tick.min(timeline.last))
            / u64::from(timeline.last)) as u32
    };
    canvas.set_draw_color(palette::ACCENT);
    canvas.fill_rect(Rect::new(bar.x(), bar.y(), done.max(1), bar.height()))?;
    let s = layout.text_scale;
    let label = format!(
        "{}  {} / {}",
        if timeline.paused { "PAUSED" } else { "REPLAY" },
        timeline.tick,
        timeline.last
    );
    let y = bar.top() - (8 * s) as i32;
    font.draw_shadowed(canvas, &label, (bar.left(), y), s, palette::TEXT)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_click_on_the_bar_seeks_in_proportion_and_elsewhere_does_nothing() {
        let layout = Layout::new((1000, 700), (21, 15));
        let t = Timeline {
            tick: 10,
            last: 3000,
            paused: false,
        };
        let strip = bar(&layout);
        let mid = (strip.left() + strip.width() as i32 / 2, strip.top());
        let got = seek_target(&layout, &t, mid).unwrap();
        assert!((1490..=1510).contains(&got), "{got}");
        assert_eq!(
            seek_target(&layout, &t, (strip.left() - 50, strip.top())),
            Some(0)
        );
        assert_eq!(
            seek_target(&layout, &t, (strip.right() + 50, strip.top())),
            Some(3000)
        );
        assert_eq!(seek_target(&layout, &t, (mid.0, 5)), None, "not on the bar");
        for size in [(1, 1), (64, 64), (5000, 3000)] {
            let l = Layout::new(size, (21, 15));
            let _ = seek_target(&l, &t, (0, 0)); // every window size is safe
            assert!(bar(&l).width() >= 1);
        }
    }

    /// The bar sits a twentieth of the width in from each side, two text pixels above the
    /// bottom, three text pixels tall; a click seeks exactly in proportion, and counts as on
    /// the bar up to one bar height above or below it.
    #[test]
    fn the_bar_and_its_clicks_to_the_pixel() {
        let layout = Layout::new((1000, 700), (21, 15));
        assert_eq!(layout.text_scale, 2);
        let strip = bar(&layout);
        assert_eq!(strip, Rect::new(50, 690, 900, 6));
        let t = Timeline {
            tick: 0,
            last: 3000,
            paused: true,
        };
        let seek = |x, y| seek_target(&layout, &t, (x, y));
        assert_eq!(seek(50 + 450, 690), Some(1500));
        assert_eq!(seek(50 + 300, 690), Some(1000));
        assert_eq!(seek(strip.right(), 690), Some(3000));
        let slack = strip.height() as i32;
        assert_eq!(seek(500, strip.bottom() + slack), Some(1500));
        assert_eq!(seek(500, strip.bottom() + slack + 1), None);
        assert_eq!(seek(500, strip.top() - slack), Some(1500));
        assert_eq!(seek(500, strip.top() - slack - 1), None);
        let empty = Timeline { last: 0, ..t };
        assert_eq!(
            seek_target(&layout, &empty, (500, 690)),
            None,
            "nothing to seek"
        );
    }
}
