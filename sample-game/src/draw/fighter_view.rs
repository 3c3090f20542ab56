//! Drawing the fighters and what they throw: bodies with an aim barrel, melee wind-ups and
//! swings on their active frames, hitstun flashes, knocked-out players, small health and
//! reload bars, projectiles with a short trail.
//!
//! Every body is a disc of the player's own colour centred exactly on the position it is
//! shown at (interpolated; a remote player's from its pose history, see `remote_view.rs`), and every projectile a disc of its owner's shot colour centred on its position:
//! the render tests look for those colours at those pixels.

use crate::draw::label_stack::LabelStack;
use crate::draw::layout::Layout;
use crate::draw::palette;
use crate::draw::shapes::{fill_arc, fill_circle, thick_line};
use crate::present::interpolate::{projectile_pos, vec2};
use crate::present::smoothing::Smoother;
use engine::{Action, Player, Rules, WorldSnapshot};
use glam::Vec2;
use sdl2::rect::Rect;
use sdl2::render::{Canvas, RenderTarget};

/// Half the angle a melee swing's arc covers on each side of the aim, in radians.
const SWING_HALF_ANGLE: f32 = 1.1;

/// Draws shadows, melee swings, projectiles, then the players on top, each player at its
/// entry of `positions` (tiles, in slot order; projectiles where they are, plus the
/// `smoothing` offset of a rollback correction), then their bars, kept apart (see
/// `label_stack.rs`); returns the labels placed, for the damage numbers to keep clear of.
/// A projectile only
/// overlaps a body on the tick it hits, when the simulation removes it, so nothing is hidden;
/// a shot leaving the barrel slides out from under its shooter.
///
/// # Errors
/// SDL drawing errors.
pub(crate) fn draw_fighters<T: RenderTarget>(
    canvas: &mut Canvas<T>,
    layout: &Layout,
    rules: &Rules,
    current: &WorldSnapshot,
    positions: &[Vec2],
    smoothing: Option<&Smoother>,
    alpha: f32,
) -> Result<LabelStack, String> {
    let shown = || {
        (current.players.iter())
            .zip(positions)
            .map(|(p, &at)| (p, layout.to_screen(at)))
    };
    for (_, at) in shown() {
        draw_shadow(canvas, layout, rules, at)?;
    }
    for (p, at) in shown() {
        draw_melee(canvas, layout, rules, p, at)?;
    }
    for shot in &current.projectiles {
        let offset = smoothing.map_or(Vec2::ZERO, |s| s.projectile_offset(shot.id));
        let at = layout.to_screen(projectile_pos(shot, alpha) + offset);
        let color = palette::shot(shot.owner);
        let trail = at - Vec2::new(layout.px(vec2(shot.vel).x), layout.px(vec2(shot.vel).y)) * 1.2;
        let r = (layout.px(rules.projectile_radius.to_num::<f32>()) * 1.25).max(3.0);
        thick_line(canvas, trail, at, r * 1.2, palette::with_alpha(color, 90))?;
        fill_circle(canvas, at, r + 1.0, palette::with_alpha(palette::INK, 160))?;
        fill_circle(canvas, at, r, color)?;
    }
    // The fallen first, so a knocked-out fighter never hides the one still standing on it.
    let fallen = shown().filter(|(p, _)| !p.is_alive());
    for (p, at) in fallen.chain(shown().filter(|(p, _)| p.is_alive())) {
        draw_player(canvas, layout, rules, current.tick, p, at)?;
    }
    let mut labels = LabelStack::new();
    let standing: Vec<(&Player, Vec2)> = shown().filter(|(p, _)| p.is_alive()).collect();
    for (p, group) in place_bars(layout, rules, &standing, &mut labels) {
        draw_bars(canvas, layout, rules, p, group)?;
    }
    Ok(labels)
}

/// Where each standing fighter's bars go: centred above its body, the lowest fighter on screen
/// first (ties by slot), any bars that would overlap lifted above the ones placed.
pub(crate) fn place_bars<'p>(
    layout: &Layout,
    rules: &Rules,
    standing: &[(&'p Player, Vec2)],
    labels: &mut LabelStack,
) -> Vec<(&'p Player, Rect)> {
    let r = body_radius(layout, rules);
    let (w, h) = bar_size(layout);
    let mut order: Vec<&(&Player, Vec2)> = standing.iter().collect();
    order.sort_by(|a, b| b.1.y.total_cmp(&a.1.y).then(a.0.id.cmp(&b.0.id)));
    order
        .into_iter()
        .map(|&(p, at)| {
            let reload_h = if p.reload_timer > 0 {
                1 + (h / 2).max(1)
            } else {
                0
            };
            let x = (at.x - w as f32 / 2.0) as i32;
            let y = (at.y - r - layout.px(0.22)) as i32 - h as i32;
            let wanted = Rect::new(x, y, w, h + reload_h);
            (p, labels.place(wanted, 1))
        })
        .collect()
}

fn body_radius(layout: &Layout, rules: &Rules) -> f32 {
    layout.px(rules.pushbox_radius.to_num::<f32>()).max(3.0)
}

/// Width and height of a health bar, in pixels.
fn bar_size(layout: &Layout) -> (u32, u32) {
    (layout.px(0.8).max(12.0) as u32, (layout.tile / 12).max(2))
}

/// A soft shadow under a player, so bodies sit on the floor.
fn draw_shadow<T: RenderTarget>(
    canvas: &mut Canvas<T>,
    layout: &Layout,
    rules: &Rules,
    at: Vec2,
) -> Result<(), String> {
    let r = layout.px(rules.pushbox_radius.to_num::<f32>());
    let offset = Vec2::new(r * 0.15, r * 0.35);
    fill_circle(
        canvas,
        at + offset,
        r,
        palette::with_alpha(palette::INK, 110),
    )
}

/// The melee: a faint wedge growing through the startup frames, a bright arc over the hitbox
/// on the active frames, a fading arc through recovery.
fn draw_melee<T: RenderTarget>(
    canvas: &mut Canvas<T>,
    layout: &Layout,
    rules: &Rules,
    p: &Player,
    at: Vec2,
) -> Result<(), String> {
    let aim = vec2(p.aim);
    if aim == Vec2::ZERO {
        return Ok(());
    }
    let angle = aim.y.atan2(aim.x);
    let reach = rules.melee_reach.to_num::<f32>();
    let radius = rules.melee_radius.to_num::<f32>();
    let (inner, outer) = (layout.px(reach - radius * 0.4), layout.px(reach + radius));
    let span = (angle - SWING_HALF_ANGLE, angle + SWING_HALF_ANGLE);
    let color = palette::player(p.id);
    match p.action {
        Action::MeleeStartup => {
            let total = f32::from(rules.melee_startup.max(1));
            let progress = 1.0 - f32::from(p.action_timer) / total;
            let wind = palette::with_alpha(color, (40.0 + 60.0 * progress) as u8);
            let r = inner + (outer - inner) * progress;
            fill_arc(canvas, at, (layout.px(0.2), r), span, wind)?;
        }
        Action::MeleeActive => {
            let hitbox = at + aim * layout.px(reach);
            let glow = palette::with_alpha(palette::HITSTUN_FLASH, 70);
            fill_circle(canvas, hitbox, layout.px(radius), glow)?;
            fill_arc(
                canvas,
                at,
                (inner, outer),
                span,
                palette::with_alpha(color, 230),
            )?;
            let edge = (outer - layout.px(0.08), outer);
            fill_arc(canvas, at, edge, span, palette::HITSTUN_FLASH)?;
        }
        Action::MeleeRecovery => {
            let total = f32::from(rules.melee_recovery.max(1));
            let left = f32::from(p.action_timer) / total;
            let fade = palette::with_alpha(color, (90.0 * left) as u8);
            fill_arc(canvas, at, (inner, outer), span, fade)?;
        }
        _ => {}
    }
    Ok(())
}

/// A body, its aim barrel and visor (the bars come after every body, see `draw_fighters`).
fn draw_player<T: RenderTarget>(
    canvas: &mut Canvas<T>,
    layout: &Layout,
    rules: &Rules,
    tick: u32,
    p: &Player,
    at: Vec2,
) -> Result<(), String> {
    let r = body_radius(layout, rules);
    let aim = vec2(p.aim);
    let id = usize::from(p.id) % palette::PLAYER.len();
    if p.action == Action::Ko {
        fill_circle(canvas, at, r, palette::KO_BODY)?;
        let d = r * 0.45;
        let w = (r / 5.0).max(1.0);
        thick_line(
            canvas,
            at - Vec2::splat(d),
            at + Vec2::splat(d),
            w,
            palette::INK,
        )?;
        thick_line(
            canvas,
            at + Vec2::new(d, -d),
            at + Vec2::new(-d, d),
            w,
            palette::INK,
        )?;
        return Ok(());
    }
    // The barrel sticks out along the aim: the facing indicator.
    let barrel_end = at + aim * (r + layout.px(0.24));
    let barrel_w = (r * 0.5).max(2.0);
    thick_line(canvas, at, barrel_end, barrel_w + 2.0, palette::INK)?;
    thick_line(canvas, at, barrel_end, barrel_w, palette::shot(p.id))?;
    let flashing = p.action == Action::Hitstun && (tick / 3).is_multiple_of(2);
    let (body, rim) = if flashing {
        (palette::HITSTUN_FLASH, palette::DANGER)
    } else {
        (palette::PLAYER[id], palette::PLAYER_RIM[id])
    };
    fill_circle(canvas, at, r, rim)?;
    fill_circle(canvas, at, r - (r / 6.0).max(1.0), body)?;
    // A visor on the aim side; the centre pixel stays the body colour.
    fill_circle(canvas, at + aim * r * 0.55, r * 0.22, palette::INK)?;
    Ok(())
}

/// Health (and, while reloading, reload progress below it) in `group`, the place
/// [`place_bars`] gave them.
fn draw_bars<T: RenderTarget>(
    canvas: &mut Canvas<T>,
    layout: &Layout,
    rules: &Rules,
    p: &Player,
    group: Rect,
) -> Result<(), String> {
    let (x, y) = (group.x(), group.y());
    let (w, h) = bar_size(layout);
    let hp = f32::from(p.hp) / f32::from(rules.max_hp.max(1));
    bar(canvas, Rect::new(x, y, w, h), hp, hp_color(hp))?;
    if p.reload_timer > 0 {
        let done = 1.0 - f32::from(p.reload_timer) / f32::from(rules.reload_ticks.max(1));
        let below = Rect::new(x, y + h as i32 + 1, w, (h / 2).max(1));
        bar(canvas, below, done, palette::ACCENT)?;
    }
    Ok(())
}

/// A horizontal bar filled to `fraction` (0..=1).
pub(crate) fn bar<T: RenderTarget>(
    canvas: &mut Canvas<T>,
    rect: Rect,
    fraction: f32,
    color: sdl2::pixels::Color,
) -> Result<(), String> {
    canvas.set_draw_color(palette::BAR_BACK);
    canvas.fill_rect(rect)?;
    let filled = (rect.width() as f32 * fraction.clamp(0.0, 1.0)).round() as u32;
    if filled > 0 {
        canvas.set_draw_color(color);
        canvas.fill_rect(Rect::new(rect.x(), rect.y(), filled, rect.height()))?;
    }
    Ok(())
}

/// Health colour: green when full, through yellow, to red when low.
pub(crate) fn hp_color(fraction: f32) -> sdl2::pixels::Color {
    if fraction > 0.5 {
        palette::mix(palette::ACCENT, palette::GOOD, (fraction - 0.5) * 2.0)
    } else {
        palette::mix(palette::DANGER, palette::ACCENT, fraction * 2.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each standing fighter's bar is centred over its body, a bar's height clear of the
    /// body's top (a fifth of a tile and more), one pixel taller per reload row; the lowest
    /// fighter is placed first (ties by slot), and a bar that would overlap one placed is lifted
    /// above it.
    #[test]
    fn bars_sit_centred_above_each_body_the_lowest_first() {
        let rules = Rules::default();
        let layout = Layout::new((1280, 800), (21, 15));
        let mut players = engine::World::new(rules.clone(), 1, 4)
            .expect("world")
            .state()
            .players
            .clone();
        players[2].reload_timer = 5;
        let (w, h) = bar_size(&layout);
        let r = body_radius(&layout, &rules);
        assert!(r >= 3.0 && w >= 12 && h >= 2);
        // A bar is four fifths of a tile wide and a twelfth of one high, at least 12 x 2 px.
        for window in [(320, 200), (1280, 800), (3840, 2400)] {
            let layout = Layout::new(window, (21, 15));
            let (w, h) = bar_size(&layout);
            let tile = layout.tile;
            assert_eq!(w, (tile * 4 / 5).max(12), "{window:?}, tile {tile}");
            assert!(
                h == 2 || (h * 12 <= tile && tile < (h + 1) * 12),
                "{window:?}: {h}"
            );
            assert!(tile < 36 || h >= 3, "{window:?}: tile {tile}, {h}");
        }
        // Apart: 1 lowest, then 0 and 2 level (by slot); 3 right under 2's bar.
        let at = [
            Vec2::new(200.0, 300.0),
            Vec2::new(800.0, 500.0),
            Vec2::new(500.0, 300.0),
            Vec2::new(500.0, 298.0),
        ];
        // Given in reverse: the order is the placement's own.
        let standing: Vec<(&Player, Vec2)> = players.iter().zip(at).rev().collect();
        let placed = place_bars(&layout, &rules, &standing, &mut LabelStack::new());
        let order: Vec<u8> = placed.iter().map(|(p, _)| p.id).collect();
        assert_eq!(order, [1, 0, 2, 3]);
        let top_of_body = |i: usize| at[i].y - r;
        for (p, rect) in &placed[..3] {
            let i = usize::from(p.id);
            assert_eq!(rect.width(), w, "{i}");
            let reload = if i == 2 { 1 + (h / 2).max(1) } else { 0 };
            assert_eq!(rect.height(), h + reload, "{i}");
            assert!(
                (rect.x() as f32 + w as f32 / 2.0 - at[i].x).abs() <= 1.0,
                "{i}: {rect:?}"
            );
            let clear = top_of_body(i) - (rect.y() + h as i32) as f32;
            assert!(
                (layout.px(0.2)..=layout.px(0.22) + 1.0).contains(&clear),
                "{i}: {clear} px"
            );
        }
        // Fighter 3's bar would overlap fighter 2's: it goes above it.
        let (two, three) = (placed[2].1, placed[3].1);
        assert!(three.bottom() < two.top(), "{three:?} above {two:?}");
    }

    #[test]
    fn health_colour_runs_from_red_to_green() {
        assert_eq!(hp_color(1.0), palette::GOOD);
        assert_eq!(hp_color(0.0), palette::DANGER);
        assert_eq!(hp_color(0.5), palette::ACCENT);
        // Evenly between: a quarter is halfway from red to yellow, three quarters halfway
        // from yellow to green.
        let half = |a, b| palette::mix(a, b, 0.5);
        assert_eq!(hp_color(0.25), half(palette::DANGER, palette::ACCENT));
        assert_eq!(hp_color(0.75), half(palette::ACCENT, palette::GOOD));
    }

    /// A bar is its back colour, filled from the left to the nearest whole pixel of its
    /// fraction (clamped to 0..=1) in its colour; an empty one shows no fill at all.
    #[test]
    fn a_bar_is_filled_to_its_fraction_over_its_back() {
        let (w, h) = (20u32, 3u32);
        let drawn = |fraction: f32| {
            let rgba = crate::draw::screenshot::render_surface((w, h), |canvas| {
                bar(canvas, Rect::new(0, 0, w, h), fraction, palette::GOOD)
            })
            .expect("draws");
            let rgb = |c: sdl2::pixels::Color| [c.r, c.g, c.b];
            let row: Vec<[u8; 3]> = (0..w as usize)
                .map(|x| [rgba[x * 4], rgba[x * 4 + 1], rgba[x * 4 + 2]])
                .collect();
            let filled = row
                .iter()
                .take_while(|&&px| px == rgb(palette::GOOD))
                .count();
            let back = row
                .iter()
                .filter(|&&px| px == rgb(palette::BAR_BACK))
                .count();
            (filled, back)
        };
        assert_eq!(drawn(0.5), (10, 10));
        assert_eq!(drawn(0.26), (5, 15));
        assert_eq!(drawn(0.0), (0, 20));
        assert_eq!(drawn(1.0), (20, 0));
        assert_eq!(drawn(1.5), (20, 0));
        assert_eq!(drawn(-1.0), (0, 20));
    }
}
