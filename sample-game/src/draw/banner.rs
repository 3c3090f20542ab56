//! The big messages across the arena: the countdown, "FIGHT!", "K.O." or "TIME" with the round's
//! winner, and the match result. All of them are read off the snapshot (phase and timers), not
//! from events, so they are right after a rollback or when joining mid-match.

use crate::config::difficulty_name;
use crate::draw::font::{BitmapFont, CELL_H};
use crate::draw::layout::Layout;
use crate::draw::palette;
use crate::matches::match_source::{AfterMatch, Rematch};
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

/// The banner for this state, if any. `me` is the one local player when there is exactly one
/// (online, against the bot): results are then said from its side, YOU WIN / YOU LOSE.
/// `after` adds what the match result offers (its way out says "menu" when `from_menu`): a
/// rematch, said from this player's side where every player must ask, and another bot level.
pub(crate) fn banner_lines(
    state: &WorldSnapshot,
    rules: &Rules,
    me: Option<u8>,
    after: AfterMatch,
    from_menu: bool,
) -> Vec<BannerLine> {
    let r = &state.round;
    let name = |id: u8| format!("PLAYER {}", id + 1);
    // Who won, as the one who reads it: from its side when it plays, by name otherwise.
    let result = |w: u8, what: &str| match me {
        Some(me) if me == w => (format!("YOU WIN{what}"), palette::player(w)),
        Some(_) => (format!("YOU LOSE{what}"), palette::DANGER),
        None => (format!("{} WINS{what}", name(w)), palette::player(w)),
    };
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
                    let (text, color) = match me {
                        Some(_) => result(w, ""),
                        None => result(w, " THE MATCH"),
                    };
                    lines.push(line(text, color, 3));
                    let score = match me.map(usize::from) {
                        // Yours first.
                        Some(me) if me < r.wins.len() => {
                            let theirs: u32 = (0..r.wins.len())
                                .filter(|&i| i != me)
                                .map(|i| u32::from(r.wins[i]))
                                .sum();
                            format!("final score {} - {theirs} (you first)", r.wins[me])
                        }
                        _ => {
                            let score: Vec<String> = state
                                .players
                                .iter()
                                .map(|p| r.wins[usize::from(p.id)].to_string())
                                .collect();
                            format!("final score {}", score.join(" - "))
                        }
                    };
                    lines.push(line(score, palette::TEXT_DIM, 1));
                }
                lines.extend(offers(state, me, after, from_menu));
            } else {
                lines.push(match r.last_winner {
                    Some(w) => {
                        let (text, color) = result(w, &format!(" ROUND {}", r.round));
                        line(text, color, 2)
                    }
                    None => line(format!("ROUND {} IS A DRAW", r.round), palette::TEXT, 2),
                });
            }
            lines
        }
    }
}

/// The ways on from a decided match, each a line: the rematch (online, who has asked), the
/// other bot level, the way out.
fn offers(
    state: &WorldSnapshot,
    me: Option<u8>,
    after: AfterMatch,
    from_menu: bool,
) -> Vec<BannerLine> {
    let out = if from_menu { "Esc: menu" } else { "Esc: quit" };
    let mut lines = Vec::new();
    let asked = |p: u8| state.round.rematch_asked(p);
    let others_asked = |me: u8| state.players.iter().any(|p| p.id != me && asked(p.id));
    match (after.rematch, me) {
        (Rematch::No, _) => {
            if from_menu {
                lines.push(line("Esc: back to the menu", palette::TEXT, 1));
            }
            return lines;
        }
        (Rematch::WhenAllAsk, Some(me)) if asked(me) => {
            lines.push(line(
                "rematch asked: waiting for the other player",
                palette::ACCENT,
                1,
            ));
        }
        (Rematch::WhenAllAsk, Some(me)) if others_asked(me) => {
            lines.push(line(
                "the other player asks for a rematch: Enter to accept",
                palette::ACCENT,
                1,
            ));
        }
        (Rematch::WhenAllAsk, _) => {
            lines.push(line(
                "Enter: ask for a rematch (both players must)",
                palette::TEXT,
                1,
            ));
        }
        (Rematch::AtOnce, _) => lines.push(line("Enter: rematch", palette::TEXT, 1)),
    }
    if let Some(level) = after.other_level {
        let text = format!("L: play the {} bot", difficulty_name(level));
        lines.push(line(text, palette::TEXT, 1));
    }
    lines.push(line(out, palette::TEXT, 1));
    lines
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

    fn local(other_level: Option<engine::Difficulty>) -> AfterMatch {
        AfterMatch {
            rematch: Rematch::AtOnce,
            other_level,
        }
    }

    /// A two-player match player 1 (slot 0) won 2-0.
    fn won_by_the_first_player() -> WorldSnapshot {
        let mut state = World::new(Rules::default(), 1, 2).unwrap().state().clone();
        state.round.phase = RoundPhase::MatchOver;
        state.round.last_winner = Some(0);
        state.round.wins = [2, 0, 0, 0];
        state
    }

    /// Online, each side reads who has asked for the rematch from the match state itself.
    #[test]
    fn an_online_rematch_says_who_has_asked() {
        let rules = Rules::default();
        let mut state = won_by_the_first_player();
        let online = AfterMatch {
            rematch: Rematch::WhenAllAsk,
            other_level: None,
        };
        let offer = |state: &WorldSnapshot, me| {
            let lines = banner_lines(state, &rules, Some(me), online, true);
            texts(&lines)[3..]
                .iter()
                .map(|s| s.to_string())
                .collect::<Vec<_>>()
        };
        assert_eq!(
            offer(&state, 0),
            ["Enter: ask for a rematch (both players must)", "Esc: menu"]
        );
        state.round.phase_timer = 0b10; // player 1 asked
        assert_eq!(
            offer(&state, 0),
            [
                "the other player asks for a rematch: Enter to accept",
                "Esc: menu"
            ]
        );
        assert_eq!(
            offer(&state, 1),
            ["rematch asked: waiting for the other player", "Esc: menu"]
        );
    }

    #[test]
    fn a_bot_match_offers_the_other_level_and_a_replay_only_the_way_out() {
        let rules = Rules::default();
        let state = won_by_the_first_player();
        let lines = banner_lines(
            &state,
            &rules,
            Some(0),
            local(engine::Difficulty::Normal.into()),
            false,
        );
        assert_eq!(
            texts(&lines)[3..],
            ["Enter: rematch", "L: play the normal bot", "Esc: quit"]
        );
        let lines = banner_lines(&state, &rules, None, AfterMatch::default(), true);
        assert_eq!(texts(&lines)[3..], ["Esc: back to the menu"]);
    }

    #[test]
    fn the_countdown_counts_three_two_one_then_fight() {
        let rules = Rules::default();
        let mut world = World::new(rules.clone(), 1, 2).unwrap();
        let mut seen = Vec::new();
        for tick in 0..120 {
            let lines = banner_lines(world.state(), &rules, None, local(None), false);
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

    /// "FIGHT!" stays up for exactly its ticks; a round ends in "K.O." when a player is
    /// knocked out and "TIME" otherwise.
    #[test]
    fn fight_is_said_for_its_ticks_and_a_round_ends_by_ko_or_time() {
        let rules = Rules::default();
        let mut state = won_by_the_first_player();
        let first = |state: &WorldSnapshot| {
            let lines = banner_lines(state, &rules, None, AfterMatch::default(), false);
            texts(&lines).first().map(|s| s.to_string())
        };
        state.round.phase = RoundPhase::Fighting;
        state.round.phase_timer = FIGHT_TICKS - 1;
        assert_eq!(first(&state).as_deref(), Some("FIGHT!"));
        state.round.phase_timer = FIGHT_TICKS;
        assert_eq!(first(&state), None);
        for phase in [RoundPhase::RoundOver, RoundPhase::MatchOver] {
            state.round.phase = phase;
            state.players[0].action = Action::Idle;
            state.players[1].action = Action::Idle;
            assert_eq!(first(&state).as_deref(), Some("TIME"), "{phase:?}");
            state.players[1].action = Action::Ko;
            assert_eq!(first(&state).as_deref(), Some("K.O."), "{phase:?}");
        }
    }

    /// A local player id with no score of its own (beyond the four slots) is not indexed: the
    /// score is said by name, as for no local player.
    #[test]
    fn a_local_id_past_the_scores_is_said_by_name() {
        let rules = Rules::default();
        let state = won_by_the_first_player();
        let wins = state.round.wins.len() as u8;
        let lines = banner_lines(&state, &rules, Some(wins), AfterMatch::default(), false);
        assert_eq!(texts(&lines)[1..3], ["YOU LOSE", "final score 2 - 0"]);
        let lines = banner_lines(&state, &rules, Some(wins - 1), AfterMatch::default(), false);
        assert_eq!(texts(&lines)[2], "final score 0 - 2 (you first)");
    }

    /// With one local player the result is said from its side (YOU WIN / YOU LOSE, its score
    /// first); with both players local (or none), by name.
    #[test]
    fn results_are_said_from_the_local_players_side() {
        let rules = Rules::default();
        let world = World::new(rules.clone(), 1, 2).unwrap();
        let mut state = world.state().clone();
        state.round.phase = RoundPhase::MatchOver;
        state.round.last_winner = Some(1);
        state.round.wins = [1, 2, 0, 0];
        let said = |state: &WorldSnapshot, me| {
            let lines = banner_lines(state, &rules, me, AfterMatch::default(), false);
            texts(&lines)
                .iter()
                .map(|s| s.to_string())
                .collect::<Vec<_>>()
        };
        assert_eq!(
            said(&state, Some(1))[1..],
            ["YOU WIN", "final score 2 - 1 (you first)"]
        );
        assert_eq!(
            said(&state, Some(0))[1..],
            ["YOU LOSE", "final score 1 - 2 (you first)"]
        );
        assert_eq!(
            said(&state, None)[1..],
            ["PLAYER 2 WINS THE MATCH", "final score 1 - 2"]
        );
        state.round.phase = RoundPhase::RoundOver;
        state.round.round = 2;
        assert_eq!(said(&state, Some(1))[1], "YOU WIN ROUND 2");
        assert_eq!(said(&state, Some(0))[1], "YOU LOSE ROUND 2");
        assert_eq!(said(&state, None)[1], "PLAYER 2 WINS ROUND 2");
    }
}
