//! `Renderer`: draws a [`Scene`] onto any SDL canvas — the game window, or a software surface
//! for tests and screenshots. Layers, bottom to top: letterbox, arena, melee swings, players,
//! projectiles, effects, the rail debug overlay, banners, the HUD strip, the netcode panel, overlays.

use crate::draw::banner::{banner_lines, draw_banner};
use crate::draw::fighter_view::draw_fighters;
use crate::draw::font::BitmapFont;
use crate::draw::hud::draw_hud;
use crate::draw::layout::Layout;
use crate::draw::maze_view::draw_maze;
use crate::draw::net_hud::draw_net_hud;
use crate::draw::palette;
use crate::draw::rail_debug::draw_rail_debug;
use crate::draw::scene::{Overlay, Scene};
use crate::menu::controls_screen::{draw_controls, lines as control_lines};
use crate::present::remote_view::fighter_positions;
use sdl2::render::{BlendMode, Canvas, RenderTarget};

/// Draws scenes. Holds the font; everything else comes with each scene.
#[derive(Clone, Debug)]
pub struct Renderer {
    font: BitmapFont,
}

/// The banner of a match that ended early: what happened, wrapped to short lines, and the way
/// out.
#[must_use]
pub fn ended_lines(reason: &str, from_menu: bool) -> Vec<crate::draw::banner::BannerLine> {
    let line = |text: String, color, size| crate::draw::banner::BannerLine { text, color, size };
    let mut lines = vec![line("MATCH ENDED".into(), palette::DANGER, 3)];
    let mut current = String::new();
    for word in reason.split_whitespace() {
        if !current.is_empty() && current.len() + 1 + word.len() > 48 {
            lines.push(line(std::mem::take(&mut current), palette::TEXT, 1));
        }
        if !current.is_empty() {
            current.push(' ');
        }
        current.push_str(word);
    }
    if !current.is_empty() {
        lines.push(line(current, palette::TEXT, 1));
    }
    let way_out = if from_menu {
        "Esc: back to the menu"
    } else {
        "Esc to quit"
    };
    lines.push(line(way_out.into(), palette::TEXT_DIM, 1));
    lines
}

impl Renderer {
    /// A renderer drawing text with `font`.
    #[must_use]
    pub fn new(font: BitmapFont) -> Renderer {
        Renderer { font }
    }

    /// The font text is drawn with.
    #[must_use]
    pub fn font(&self) -> &BitmapFont {
        &self.font
    }

    /// The layout a scene gets on `canvas` (what [`Renderer::draw`] uses).
    ///
    /// # Errors
    /// If SDL cannot report the canvas size.
    pub fn layout<T: RenderTarget>(
        canvas: &Canvas<T>,
        scene: &Scene<'_>,
    ) -> Result<Layout, String> {
        let maze = &scene.current.maze;
        let (size, tiles) = (canvas.output_size()?, (maze.width, maze.height));
        let full = Layout::new(size, tiles);
        if scene.training.is_none() {
            return Ok(full);
        }
        // The training panel takes the bottom of the window: the arena fits above it.
        let panel = crate::draw::training_view::panel_height(&full);
        let above = Layout::new((size.0, size.1.saturating_sub(panel).max(1)), tiles);
        Ok(Layout {
            height: full.height,
            ..above
        })
    }

    /// Draws `scene` over the whole canvas (without presenting it): the arena (shaken after
    /// solid hits), then over it, steady, the notice banner, the panels and any overlay.
    ///
    /// # Errors
    /// SDL drawing errors.
    pub fn draw<T: RenderTarget>(
        &self,
        canvas: &mut Canvas<T>,
        scene: &Scene<'_>,
    ) -> Result<Layout, String> {
        let layout = Renderer::layout(canvas, scene)?;
        canvas.set_blend_mode(BlendMode::Blend);
        canvas.set_draw_color(palette::BACKGROUND);
        canvas.clear();
        // The arena shakes after solid hits (presentation only); the HUD stays put.
        let shake = scene.effects.shake_offset(scene.alpha) * layout.tile as f32;
        let shaken = Layout {
            origin: (
                layout.origin.0 + shake.x.round() as i32,
                layout.origin.1 + shake.y.round() as i32,
            ),
            ..layout
        };
        self.draw_arena(canvas, &shaken, scene)?;
        self.draw_notice(canvas, &layout, scene)?;
        self.draw_panels(canvas, &layout, scene)?;
        self.draw_overlay(canvas, &layout, scene)?;
        Ok(layout)
    }

    /// The maze, the fighters (the local one marked when there are others), the effects and
    /// the rail debug view.
    fn draw_arena<T: RenderTarget>(
        &self,
        canvas: &mut Canvas<T>,
        layout: &Layout,
        scene: &Scene<'_>,
    ) -> Result<(), String> {
        let font = &self.font;
        let state = scene.current;
        draw_maze(canvas, layout, &state.maze, scene.rules.block_hp)?;
        let positions = fighter_positions(
            scene.previous,
            state,
            scene.rules,
            scene.shown,
            scene.local_players,
            scene.alpha,
        );
        let positions = match scene.smoothing {
            Some(smoother) => smoother.apply(&positions),
            None => positions,
        };
        let mut labels = draw_fighters(
            canvas,
            layout,
            scene.rules,
            state,
            &positions,
            scene.smoothing,
            scene.alpha,
        )?;
        // With one local player among others (online, or against the bot), mark it.
        if let [me] = scene.local_players {
            if let Some(&at) = positions.get(usize::from(*me)) {
                let s = layout.text_scale;
                let below = layout.to_screen(at + glam::Vec2::new(0.0, 0.42));
                let w = crate::draw::font::BitmapFont::text_width("YOU", s) as f32;
                let pos = ((below.x - w / 2.0) as i32, below.y as i32);
                font.draw_shadowed(canvas, "YOU", pos, s, palette::player(*me))?;
            }
        }
        scene
            .effects
            .draw(canvas, layout, font, scene.alpha, &mut labels)?;
        if scene.rail_debug {
            let last = scene.effects.last_rail_shot();
            draw_rail_debug(canvas, layout, font, scene, last)?;
        }
        Ok(())
    }

    /// The one banner the moment calls for, most pressing first: the match ended, a peer is
    /// being waited for, the start waits for the other player, a resync, catching up, else
    /// the round's own banner (countdown, round won) unless an overlay covers it.
    fn draw_notice<T: RenderTarget>(
        &self,
        canvas: &mut Canvas<T>,
        layout: &Layout,
        scene: &Scene<'_>,
    ) -> Result<(), String> {
        let font = &self.font;
        let net = scene.net.or(scene.net_line);
        let waiting = net.and_then(|v| v.reconnecting.as_ref());
        if let Some(reason) = scene.ended {
            draw_banner(canvas, layout, font, &ended_lines(reason, scene.from_menu))
        } else if let Some(waiting) = waiting {
            draw_banner(canvas, layout, font, &notice_lines(waiting.lines()))
        } else if net.is_some_and(|v| v.waiting_to_start) {
            let lines = notice_lines(crate::matches::net_view::waiting_to_start_lines());
            draw_banner(canvas, layout, font, &lines)
        } else if let Some((desync, tick)) = net.and_then(|v| v.resynced) {
            let lines = notice_lines(crate::matches::net_view::resynced_lines(desync, tick));
            draw_banner(canvas, layout, font, &lines)
        } else if let Some(behind) = net.and_then(|v| v.catching_up) {
            let lines = notice_lines(crate::matches::net_view::catching_up_lines(behind));
            draw_banner(canvas, layout, font, &lines)
        } else if scene.overlay == Overlay::None || scene.overlay == Overlay::Paused {
            let me = match scene.local_players {
                [me] => Some(*me),
                _ => None,
            };
            let lines = banner_lines(
                scene.current,
                scene.rules,
                me,
                scene.after_match,
                scene.from_menu,
            );
            draw_banner(canvas, layout, font, &lines)
        } else {
            Ok(())
        }
    }

    /// The HUD, the replay timeline, the training panel and the network panel (or line).
    fn draw_panels<T: RenderTarget>(
        &self,
        canvas: &mut Canvas<T>,
        layout: &Layout,
        scene: &Scene<'_>,
    ) -> Result<(), String> {
        let font = &self.font;
        draw_hud(canvas, layout, font, scene.rules, scene.current)?;
        if let Some(timeline) = &scene.timeline {
            crate::draw::timeline::draw_timeline(canvas, layout, font, timeline)?;
        }
        if let Some(training) = scene.training {
            crate::draw::training_view::draw_training(canvas, layout, font, training)?;
        }
        if let Some(view) = scene.net {
            draw_net_hud(canvas, layout, font, view)?;
        } else if let Some(view) = scene.net_line {
            crate::draw::net_hud::draw_net_line(canvas, layout, font, view)?;
        }
        Ok(())
    }

    /// The pause banner or the controls screen, over everything.
    fn draw_overlay<T: RenderTarget>(
        &self,
        canvas: &mut Canvas<T>,
        layout: &Layout,
        scene: &Scene<'_>,
    ) -> Result<(), String> {
        let font = &self.font;
        match scene.overlay {
            Overlay::None => Ok(()),
            Overlay::Paused => {
                let lines = [
                    crate::draw::banner::BannerLine {
                        text: "PAUSED".into(),
                        color: palette::ACCENT,
                        size: 4,
                    },
                    crate::draw::banner::BannerLine {
                        text: "P to resume, F1 for controls".into(),
                        color: palette::TEXT,
                        size: 1,
                    },
                ];
                draw_banner(canvas, layout, font, &lines)
            }
            Overlay::Controls { at_start } => {
                let footer = if at_start {
                    "Press any key to start"
                } else {
                    "Press any key to return"
                };
                let lines = control_lines(
                    scene.bindings,
                    scene.controllers,
                    scene.rules.rounds_to_win,
                    footer,
                    if scene.from_menu { "menu" } else { "quit" },
                );
                draw_controls(canvas, layout, font, &lines)
            }
        }
    }
}

impl Default for Renderer {
    fn default() -> Renderer {
        Renderer::new(BitmapFont::embedded())
    }
}

/// A notice over the arena (RECONNECTING, RESYNCED): a large title and a line of detail.
fn notice_lines([title, detail]: [String; 2]) -> [crate::draw::banner::BannerLine; 2] {
    [
        crate::draw::banner::BannerLine {
            text: title,
            color: palette::ACCENT,
            size: 3,
        },
        crate::draw::banner::BannerLine {
            text: detail,
            color: palette::TEXT,
            size: 1,
        },
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A match that ended early says why, in lines short enough for the banner, and the way out.
    #[test]
    fn an_early_end_says_why_and_how_to_leave() {
        let reason = "the other player (127.0.0.1:43469) disconnected at tick 903; the \
                      confirmed part of the match is in the logs";
        let lines = ended_lines(reason, false);
        let texts: Vec<&str> = lines.iter().map(|l| l.text.as_str()).collect();
        assert_eq!(texts[0], "MATCH ENDED");
        assert_eq!(*texts.last().unwrap(), "Esc to quit");
        let body = texts[1..texts.len() - 1].join(" ");
        assert_eq!(
            body,
            reason.split_whitespace().collect::<Vec<_>>().join(" ")
        );
        assert!(texts.iter().all(|t| t.len() <= 48), "{texts:?}");
        assert!(texts.iter().all(|t| !t.is_empty()), "{texts:?}");
        // A word longer than a line stands alone on its own line, whole.
        let long = "x".repeat(60);
        let lines = ended_lines(&format!("a {long} b"), false);
        let texts: Vec<&str> = lines.iter().map(|l| l.text.as_str()).collect();
        assert_eq!(texts[1..4], ["a", long.as_str(), "b"]);
        // A line holds 48 characters, not 49.
        let (a, b) = ("a".repeat(23), "b".repeat(24));
        let texts = |reason: &str| -> Vec<String> {
            let lines = ended_lines(reason, false);
            lines[1..lines.len() - 1]
                .iter()
                .map(|l| l.text.clone())
                .collect()
        };
        assert_eq!(texts(&format!("{a} {b}")), [format!("{a} {b}")]);
        assert_eq!(texts(&format!("{a} {b}b")), [a.clone(), format!("{b}b")]);
        let menu = ended_lines(reason, true);
        assert_eq!(menu.last().unwrap().text, "Esc: back to the menu");
    }
}
