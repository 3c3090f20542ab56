//! The big messages across the arena: the countdown, "FIGHT!", "K.O." or "TIME" with the round's
//! winner, and the match result. All of them are read off the snapshot (phase and timers), not
//! from events, so they are right after a rollback or when joining mid-match.

use crate::font::{BitmapFont, CELL_H};
use crate::layout::Layout;
use crate::palette;
use engine::{Action, RoundPhase, Rules, WorldSnapshot};
use sdl2::pixels::Color;
use sdl2::rect::Rect;
use sdl2::render::{Canvas, RenderTarget};

/// Ticks "FIGHT!" stays up after a round starts.
const FIGHT_TICKS: u32 = 40;

/// One line of a banner.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct BannerLine {
    pub(crate) text: String,
    pub(crate) color: Color,
    /// Text scale relative to the layout's.
    pub(crate) size: u32,
}

fn line(text: impl Into<String>, color: Color, size: u32) -> BannerLine {
    BannerLine {
        text: text.into(),
        color,
        size,
    }
}

/// The banner for this state, if any. `can_rematch` adds the rematch hint to the match result
/// (its way out says "menu" when `from_menu`).
pub(crate) fn banner_lines(
    state: &WorldSnapshot,
    rules: &Rules,
    can_rematch: bool,
    from_menu: bool,
) -> Vec<BannerLine> {
    let r = &state.round;
    let name = |id: u8| format!("PLAYER {}", id + 1);
    match r.phase {
        RoundPhase::Countdown => {
            let total = u32::from(rules.round_start_ticks.max(1));
            let count = (r.phase_timer * 3).div_ceil(total).clamp(1, 3);
            vec![
                line(format!("ROUND {}", r.round), palette::TEXT, 2),
                line(count.to_string(), palette::ACCENT, 5),
            ]
        }
        RoundPhase::Fighting if r.phase_timer < FIGHT_TICKS => {
            vec![line("FIGHT!", palette::ACCENT, 5)]
        }
        RoundPhase::Fighting => Vec::new(),
        RoundPhase::RoundOver | RoundPhase::MatchOver => {
            let knocked_out = state.players.iter().any(|p| p.action == Action::Ko);
            let how = if knocked_out { "K.O." } else { "TIME" };
            let mut lines = vec![line(how, palette::DANGER, 5)];
            if r.phase == RoundPhase::MatchOver {
                if let Some(w) = r.last_winner {
                    lines.push(line(
                        format!("{} WINS THE MATCH", name(w)),
                        palette::player(w),
                        3,
                    ));
                    let score: Vec<String> = state
                        .players
                        .iter()
                        .map(|p| r.wins[usize::from(p.id)].to_string())
                        .collect();
                    lines.push(line(
                        format!("final score {}", score.join(" - ")),
                        palette::TEXT_DIM,
                        1,
                    ));
                }
                if can_rematch {
                    let text = if from_menu {
                        "Enter: rematch    Esc: menu"
                    } else {
                        "Enter: rematch    Esc: quit"
                    };
                    lines.push(line(text, palette::TEXT, 1));
                } else if from_menu {
                    lines.push(line("Esc: back to the menu", palette::TEXT, 1));
                }
            } else {
                lines.push(match r.last_winner {
                    Some(w) => line(
                        format!("{} WINS ROUND {}", name(w), r.round),
                        palette::player(w),
                        2,
                    ),
                    None => line(format!("ROUND {} IS A DRAW", r.round), palette::TEXT, 2),
                });
            }
            lines
        }
    }
}

/// Draws the banner for this state over the arena.
///
/// # Errors
/// SDL drawing errors.
pub(crate) fn draw_banner<T: RenderTarget>(
    canvas: &mut Canvas<T>,
    layout: &Layout,
    font: &BitmapFont,
    lines: &[BannerLine],
) -> Result<(), String> {
    if lines.is_empty() {
        return Ok(());
    }
    let s = layout.text_scale;
    let gap = 3 * s;
    let height: u32 = lines.iter().map(|l| CELL_H * s * l.size + gap).sum::<u32>() + gap;
    let maze = layout.maze_rect();
    let top = maze.y() + (maze.height() as i32 - height as i32) / 2;
    canvas.set_draw_color(palette::PANEL);
    canvas.fill_rect(Rect::new(maze.x(), top, maze.width(), height))?;
    let mut y = top + gap as i32;
    for l in lines {
        let scale = s * l.size;
        let w = BitmapFont::text_width(&l.text, scale) as i32;
        let x = maze.x() + (maze.width() as i32 - w) / 2;
        font.draw_shadowed(canvas, &l.text, (x, y), scale, l.color)?;
        y += (CELL_H * scale + gap) as i32;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use engine::{InputCmd, World};

    fn texts(lines: &[BannerLine]) -> Vec<&str> {
        lines.iter().map(|l| l.text.as_str()).collect()
    }

    #[test]
    fn the_countdown_counts_three_two_one_then_fight() {
        let rules = Rules::default();
        let mut world = World::new(rules.clone(), 1, 2).unwrap();
        let mut seen = Vec::new();
        for tick in 0..120 {
            let lines = banner_lines(world.state(), &rules, true, false);
            let last = texts(&lines)
                .last()
                .map(|s| s.to_string())
                .unwrap_or_default();
            if seen.last() != Some(&last) {
                seen.push(last);
            }
            world.step(&[InputCmd::idle(tick); 2]).unwrap();
        }
        assert_eq!(seen, ["3", "2", "1", "FIGHT!", ""]);
    }
}
