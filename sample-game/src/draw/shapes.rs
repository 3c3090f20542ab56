//! Filled shapes SDL's renderer lacks (circles, rings, thick lines, arcs), rasterised into
//! horizontal spans and drawn with one `fill_rects` call each. Screen space, `f32`: drawing only.
//!
//! A pixel `(x, y)` covers `[x, x + 1) × [y, y + 1)` and is filled when its centre is inside the
//! shape, so a shape centred at a point always covers the pixel containing that point once its
//! radius reaches about 0.7 px.

use glam::Vec2;
use sdl2::pixels::Color;
use sdl2::rect::Rect;
use sdl2::render::{Canvas, RenderTarget};

/// A filled disc.
///
/// # Errors
/// SDL drawing errors.
pub(crate) fn fill_circle<T: RenderTarget>(
    canvas: &mut Canvas<T>,
    centre: Vec2,
    radius: f32,
    color: Color,
) -> Result<(), String> {
    fill_ring(canvas, centre, radius, 0.0, color)
}

/// A filled annulus between `inner` and `outer` radii (`inner` 0: a disc).
///
/// # Errors
/// SDL drawing errors.
pub(crate) fn fill_ring<T: RenderTarget>(
    canvas: &mut Canvas<T>,
    centre: Vec2,
    outer: f32,
    inner: f32,
    color: Color,
) -> Result<(), String> {
    if outer <= 0.0 {
        return Ok(());
    }
    let mut rects = Vec::new();
    let top = (centre.y - outer).floor() as i32;
    let bottom = (centre.y + outer).ceil() as i32;
    for y in top..=bottom {
        let dy = y as f32 + 0.5 - centre.y;
        let Some(half) = half_chord(outer, dy) else {
            continue;
        };
        let (l, r) = span(centre.x - half, centre.x + half);
        match half_chord(inner, dy).filter(|_| inner > 0.0) {
            Some(hole) => {
                let (hl, hr) = span(centre.x - hole, centre.x + hole);
                push_span(&mut rects, l, hl.min(r), y);
                push_span(&mut rects, hr.max(l), r, y);
            }
            None => push_span(&mut rects, l, r, y),
        }
    }
    fill(canvas, &rects, color)
}

/// A filled convex polygon (vertices in order, either winding).
///
/// # Errors
/// SDL drawing errors.
pub(crate) fn fill_convex<T: RenderTarget>(
    canvas: &mut Canvas<T>,
    points: &[Vec2],
    color: Color,
) -> Result<(), String> {
    if points.len() < 3 {
        return Ok(());
    }
    let (min_y, max_y) = points.iter().fold((f32::MAX, f32::MIN), |(lo, hi), p| {
        (lo.min(p.y), hi.max(p.y))
    });
    let mut rects = Vec::new();
    for y in min_y.floor() as i32..=max_y.ceil() as i32 {
        let cy = y as f32 + 0.5;
        let mut lo = f32::MAX;
        let mut hi = f32::MIN;
        for (i, a) in points.iter().enumerate() {
            let b = points[(i + 1) % points.len()];
            if (a.y <= cy && b.y > cy) || (b.y <= cy && a.y > cy) {
                let x = a.x + (cy - a.y) / (b.y - a.y) * (b.x - a.x);
                lo = lo.min(x);
                hi = hi.max(x);
            }
        }
        if lo <= hi {
            let (l, r) = span(lo, hi);
            push_span(&mut rects, l, r, y);
        }
    }
    fill(canvas, &rects, color)
}

/// A straight stroke of `width` pixels from `a` to `b` with square ends.
///
/// # Errors
/// SDL drawing errors.
pub(crate) fn thick_line<T: RenderTarget>(
    canvas: &mut Canvas<T>,
    a: Vec2,
    b: Vec2,
    width: f32,
    color: Color,
) -> Result<(), String> {
    let along = (b - a).normalize_or_zero();
    if along == Vec2::ZERO {
        return fill_circle(canvas, a, width / 2.0, color);
    }
    let side = along.perp() * (width / 2.0);
    fill_convex(canvas, &[a + side, b + side, b - side, a - side], color)
}

/// A band between radii `inner` and `outer` around `centre`, from angle `from` to `to`
/// (radians, screen convention: +y is down), as a fan of convex quads.
///
/// # Errors
/// SDL drawing errors.
pub(crate) fn fill_arc<T: RenderTarget>(
    canvas: &mut Canvas<T>,
    centre: Vec2,
    (inner, outer): (f32, f32),
    (from, to): (f32, f32),
    color: Color,
) -> Result<(), String> {
    let steps = (((to - from).abs() * outer / 6.0).ceil() as usize).clamp(2, 32);
    for i in 0..steps {
        let a0 = from + (to - from) * i as f32 / steps as f32;
        let a1 = from + (to - from) * (i + 1) as f32 / steps as f32;
        let (d0, d1) = (Vec2::from_angle(a0), Vec2::from_angle(a1));
        let quad = [
            centre + d0 * inner,
            centre + d0 * outer,
            centre + d1 * outer,
            centre + d1 * inner,
        ];
        fill_convex(canvas, &quad, color)?;
    }
    Ok(())
}

/// An axis-aligned rectangle outline `thickness` pixels wide, inside `rect`.
///
/// # Errors
/// SDL drawing errors.
pub(crate) fn frame<T: RenderTarget>(
    canvas: &mut Canvas<T>,
    rect: Rect,
    thickness: u32,
    color: Color,
) -> Result<(), String> {
    let t = thickness
        .min(rect.width() / 2)
        .min(rect.height() / 2)
        .max(1);
    let (x, y, w, h) = (rect.x(), rect.y(), rect.width(), rect.height());
    let rects = [
        Rect::new(x, y, w, t),
        Rect::new(x, y + (h - t) as i32, w, t),
        Rect::new(x, y, t, h),
        Rect::new(x + (w - t) as i32, y, t, h),
    ];
    fill(canvas, &rects, color)
}

/// Half the chord of a circle of `radius` at height `dy` from its centre.
fn half_chord(radius: f32, dy: f32) -> Option<f32> {
    let sq = radius * radius - dy * dy;
    (sq >= 0.0).then(|| sq.sqrt())
}

/// The pixel columns whose centres lie in `[left, right]`, as a half-open range.
fn span(left: f32, right: f32) -> (i32, i32) {
    ((left - 0.5).ceil() as i32, (right - 0.5).floor() as i32 + 1)
}

fn push_span(rects: &mut Vec<Rect>, l: i32, r: i32, y: i32) {
    if r > l {
        rects.push(Rect::new(l, y, (r - l) as u32, 1));
    }
}

/// Fills `rects` in `color` (nothing to do for none).
pub(crate) fn fill<T: RenderTarget>(
    canvas: &mut Canvas<T>,
    rects: &[Rect],
    color: Color,
) -> Result<(), String> {
    if rects.is_empty() {
        return Ok(());
    }
    canvas.set_draw_color(color);
    canvas.fill_rects(rects)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spans_cover_pixel_centres_inside() {
        // Pixels 2, 3, 4 have centres 2.5, 3.5, 4.5, all inside [2.2, 4.6].
        assert_eq!(span(2.2, 4.6), (2, 5));
        // Nothing has its centre in [2.6, 3.4].
        let (l, r) = span(2.6, 3.4);
        assert!(r <= l);
    }

    /// An empty span draws nothing (SDL would make a zero-wide rectangle one pixel wide).
    #[test]
    fn only_a_span_with_pixels_becomes_a_rectangle() {
        let mut rects = Vec::new();
        push_span(&mut rects, 3, 3, 7);
        push_span(&mut rects, 4, 3, 7);
        assert!(rects.is_empty());
        push_span(&mut rects, 3, 5, 7);
        assert_eq!(rects, [Rect::new(3, 7, 2, 1)]);
    }

    #[test]
    fn chords_are_absent_outside_the_circle() {
        assert_eq!(half_chord(2.0, 0.0), Some(2.0));
        assert!(half_chord(2.0, 2.5).is_none());
    }
}
