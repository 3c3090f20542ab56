//! The rail debug overlay (F3): what a rail shot from this machine is judged against, and what
//! the last one did. Presentation only — it reads the snapshot's pose history and the last
//! rail shot's [`ShotRecord`]; nothing flows back.
//!
//! - **Rewound hitboxes**: for each remote player, an outline of the hitbox circle (the pose
//!   sample's radius) at the view a rail press would carry now. In `past` mode it sits on the
//!   body drawn; in `predicted` mode it shows the present the shot is judged at. In local play
//!   (everyone local) every player's present hitbox is shown.
//! - **The last ray**: from the record's origin along its direction for its distance, the
//!   target met marked (a cross on a player hit point, the outline of a tile), and a line of
//!   text with the view asked for, the view used, any clamp and the outcome.

use crate::draw::font::{BitmapFont, CELL_H};
use crate::draw::layout::Layout;
use crate::draw::palette;
use crate::draw::scene::Scene;
use crate::draw::shapes::{fill_ring, frame, thick_line};
use crate::present::interpolate::vec2;
use crate::present::remote_view::rewound;
use engine::{ShotOutcome, ShotRecord, ShotTarget, ViewClamp, ViewTime};
use glam::Vec2;
use sdl2::rect::Rect;
use sdl2::render::{Canvas, RenderTarget};

/// Draws the overlay for `scene`.
///
/// # Errors
/// SDL drawing errors.
pub(crate) fn draw_rail_debug<T: RenderTarget>(
    canvas: &mut Canvas<T>,
    layout: &Layout,
    font: &BitmapFont,
    scene: &Scene<'_>,
    last: Option<&ShotRecord>,
) -> Result<(), String> {
    let state = scene.current;
    let view = scene.shown.remote().unwrap_or_default();
    let everyone_local = state
        .players
        .iter()
        .all(|p| scene.local_players.contains(&p.id));
    let line = layout.px(0.05).max(1.0);
    for (slot, p) in state.players.iter().enumerate() {
        if scene.local_players.contains(&p.id) && !everyone_local {
            continue;
        }
        let pose = rewound(state, scene.rules, slot, view);
        let centre = layout.to_screen(vec2(pose.pos));
        let r = layout.px(pose.radius.to_num::<f32>());
        let color = if pose.alive() {
            palette::DEBUG
        } else {
            palette::TEXT_DIM
        };
        fill_ring(canvas, centre, r, r - line.max(2.0), color)?;
    }
    let mut lines = vec![if everyone_local {
        "RAIL DEBUG  all players local: judged at the present".to_string()
    } else {
        match scene.shown.remote() {
            Some(v) => format!(
                "RAIL DEBUG  remote drawn {} ticks back, view {}",
                scene.shown.back,
                describe(v)
            ),
            None => "RAIL DEBUG  remote drawn predicted: judged at the present".into(),
        }
    }];
    match last {
        None => lines.push("no rail shot yet".into()),
        Some(shot) => {
            draw_ray(canvas, layout, shot, line.max(2.0))?;
            lines.extend(shot_lines(shot));
        }
    }
    draw_text_panel(canvas, layout, font, &lines)
}

/// The ray of `shot`, and a mark on what it met: a cross on a player hit, the outline of a
/// tile, a bar across the end of a miss.
fn draw_ray<T: RenderTarget>(
    canvas: &mut Canvas<T>,
    layout: &Layout,
    shot: &ShotRecord,
    w: f32,
) -> Result<(), String> {
    let from = vec2(shot.origin);
    let to = from + vec2(shot.dir) * shot.distance.to_num::<f32>();
    let (a, b) = (layout.to_screen(from), layout.to_screen(to));
    thick_line(canvas, a, b, w, palette::with_alpha(palette::DEBUG, 220))?;
    let mark = layout.px(0.18).max(4.0);
    match shot.target {
        ShotTarget::Player { .. } => {
            thick_line(
                canvas,
                b - Vec2::splat(mark),
                b + Vec2::splat(mark),
                w,
                palette::DEBUG,
            )?;
            let (d1, d2) = (Vec2::new(mark, -mark), Vec2::new(-mark, mark));
            thick_line(canvas, b + d1, b + d2, w, palette::DEBUG)
        }
        ShotTarget::Tile { x, y } => {
            let rect = layout.tile_rect(u32::from(x), u32::from(y));
            frame(canvas, rect, w as u32, palette::DEBUG)
        }
        ShotTarget::Nothing => {
            let across = vec2(shot.dir).perp() * mark;
            thick_line(canvas, b - across, b + across, w, palette::DEBUG)
        }
    }
}

/// Lines of text on a panel in the arena's bottom-left corner (the netcode panel takes the
/// top right).
fn draw_text_panel<T: RenderTarget>(
    canvas: &mut Canvas<T>,
    layout: &Layout,
    font: &BitmapFont,
    lines: &[String],
) -> Result<(), String> {
    let s = layout.text_scale;
    let arena = layout.maze_rect();
    let step = ((CELL_H + 2) * s) as i32;
    let widest = lines.iter().map(|l| BitmapFont::text_width(l, s)).max();
    let (w, h) = (
        widest.unwrap_or(0) + 8 * s,
        lines.len() as u32 * step as u32 + 6 * s,
    );
    let panel = Rect::new(
        arena.x() + (4 * s) as i32,
        arena.bottom() - h as i32 - (4 * s) as i32,
        w.min(arena.width()),
        h,
    );
    canvas.set_draw_color(palette::PANEL);
    canvas.fill_rect(panel)?;
    frame(canvas, panel, 1, palette::with_alpha(palette::DEBUG, 160))?;
    let mut y = panel.y() + (3 * s) as i32;
    for line in lines {
        font.draw_shadowed(
            canvas,
            line,
            (panel.x() + (4 * s) as i32, y),
            s,
            palette::DEBUG,
        )?;
        y += step;
    }
    Ok(())
}

/// A view relative to a tick `T`, as the engine reads it: `T-3+64/256`, `T-3`, or `T`.
fn describe(v: ViewTime) -> String {
    if v == ViewTime::default() {
        "T".into()
    } else if v.frac == 0 {
        format!("T-{}", v.ticks_back)
    } else {
        format!("T-{}+{}/256", v.ticks_back, v.frac)
    }
}

/// The last shot in two lines: who, the view asked for and used, the clamp; what it met and
/// what came of it.
pub(crate) fn shot_lines(shot: &ShotRecord) -> [String; 2] {
    let clamp = match shot.clamp {
        ViewClamp::None => "",
        ViewClamp::TooOld => " (clamped: too old)",
        ViewClamp::Future => " (clamped: future)",
    };
    let met = match shot.target {
        ShotTarget::Nothing => "nothing".to_string(),
        ShotTarget::Player { id, generation } => format!("P{} life {generation}", id + 1),
        ShotTarget::Tile { x, y } => format!("tile {x},{y}"),
    };
    let outcome = match shot.outcome {
        ShotOutcome::Miss => "miss".to_string(),
        ShotOutcome::Blocked => "blocked".to_string(),
        ShotOutcome::Hit { damage } => format!("hit for {damage}"),
        ShotOutcome::StaleLife => "stale life, no damage".to_string(),
        ShotOutcome::TargetDown => "target down, no damage".to_string(),
    };
    [
        format!(
            "last rail P{}: view {} asked, {} used{clamp}",
            shot.shooter + 1,
            describe(shot.requested),
            describe(shot.used),
        ),
        format!(
            "met {met} at {:.2} tiles: {outcome}",
            shot.distance.to_num::<f32>()
        ),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_shot_line_says_what_was_asked_used_and_met() {
        let shot = ShotRecord {
            shooter: 0,
            requested: ViewTime {
                ticks_back: 20,
                frac: 0,
            },
            used: ViewTime {
                ticks_back: 12,
                frac: 0,
            },
            clamp: ViewClamp::TooOld,
            target: ShotTarget::Player {
                id: 1,
                generation: 2,
            },
            distance: engine::fx_int(3),
            outcome: ShotOutcome::Hit { damage: 30 },
            ..ShotRecord::default()
        };
        assert_eq!(
            shot_lines(&shot),
            [
                "last rail P1: view T-20 asked, T-12 used (clamped: too old)",
                "met P2 life 2 at 3.00 tiles: hit for 30"
            ]
        );
        assert_eq!(describe(ViewTime::default()), "T");
        assert_eq!(
            describe(ViewTime {
                ticks_back: 3,
                frac: 64
            }),
            "T-3+64/256"
        );
    }
}
