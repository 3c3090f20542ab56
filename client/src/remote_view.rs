//! How remote players are shown, and the view a local input carries for the rail.
//!
//! In rollback the world a peer draws is *predicted*: remote players stand where their last
//! known input would take them. A rail shot aimed at such a prediction can land on the
//! shooter's screen and vanish after the rollback. The alternative is to draw remote players
//! from **confirmed history** — their poses at the last final tick, read from the world's own
//! pose history — and to send with every input how far back that was ([`input_view`], which
//! adds the input delay: an input sampled at tick `T` is simulated at `T + delay`). The
//! simulation then
//! judges the shot against exactly those poses (see [`ViewTime`]), so every peer
//! reaches the verdict the shooter saw. The local player is always drawn predicted.
//!
//! [`ViewDelay`] keeps the distance to the past steady: it jumps up at once when confirmation
//! falls further behind (nothing unconfirmed is ever shown) and eases back down one tick at a
//! time, so remote players move smoothly instead of stuttering with every late datagram.

use game_api::lag::{LagCompensated, Rewound, ViewTime};
use game_api::Tick;
use std::fmt;
use std::str::FromStr;

/// How remote players are drawn.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum RemoteView {
    /// Where prediction puts them now (no lag compensation: a rail shot is judged against
    /// wherever they truly were at the tick it was fired).
    Predicted,
    /// Where they were at the last final tick, interpolated in the pose history; rail shots
    /// carry that view and are judged against what was drawn.
    #[default]
    Past,
}

impl FromStr for RemoteView {
    type Err = String;
    fn from_str(s: &str) -> Result<RemoteView, String> {
        match s {
            "predicted" => Ok(RemoteView::Predicted),
            "past" => Ok(RemoteView::Past),
            other => Err(format!(
                "remote view `{other}`: expected `predicted` or `past`"
            )),
        }
    }
}

impl fmt::Display for RemoteView {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            RemoteView::Predicted => "predicted",
            RemoteView::Past => "past",
        })
    }
}

/// Frames a lower delay must be seen before the shown past moves one tick closer to now.
const EASE_FRAMES: u32 = 20;

/// The steady distance, in ticks, between the predicted present and the past that remote
/// players are shown at.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ViewDelay {
    back: u8,
    lower_for: u32,
}

impl ViewDelay {
    /// Ticks back that remote players are shown at, updated for a world at tick `now` whose
    /// last final tick is `final_tick`, within a pose window of `window` ticks. Never less than
    /// the distance to the final tick (while the window allows), so only confirmed poses show.
    pub fn update(&mut self, mode: RemoteView, now: Tick, final_tick: Tick, window: u8) -> u8 {
        if mode == RemoteView::Predicted {
            *self = ViewDelay::default();
            return 0;
        }
        let lag = now.saturating_sub(final_tick).min(u32::from(window)) as u8;
        if lag >= self.back {
            self.back = lag;
            self.lower_for = 0;
        } else {
            self.lower_for += 1;
            if self.lower_for >= EASE_FRAMES {
                self.back -= 1;
                self.lower_for = 0;
            }
        }
        self.back.min(window)
    }
}

/// The view for `back` ticks in the past, `alpha` of the way (0..1, in 1/256 steps) toward
/// the next tick: what a renderer interpolating between frames shows.
#[must_use]
pub fn view_at(back: u8, alpha_256: u8) -> ViewTime {
    if back == 0 {
        ViewTime::default()
    } else {
        ViewTime {
            ticks_back: back,
            frac: alpha_256,
        }
    }
}

/// The view a local input sampled while remote players were shown at `shown` must carry: an
/// input sampled at tick `T` is simulated at `T + input_delay`, so the view reaches that much
/// further back. With [`RemoteView::Predicted`] there is no lag compensation: the view is 0.
#[must_use]
pub fn input_view(mode: RemoteView, shown: ViewTime, input_delay: usize) -> ViewTime {
    match mode {
        RemoteView::Predicted => ViewTime::default(),
        RemoteView::Past => ViewTime {
            ticks_back: shown
                .ticks_back
                .saturating_add(input_delay.min(usize::from(u8::MAX)) as u8),
            frac: shown.frac,
        },
    }
}

/// Where player `slot` is shown at `view`: its pose read from the game's pose ring, exactly
/// as the simulation will read it for a hit check carrying that view.
///
/// # Panics
/// If `slot` is not a player of `game`.
#[must_use]
pub fn shown_pose<G: LagCompensated>(game: &G, slot: usize, view: ViewTime) -> Rewound<G::Pose> {
    game.pose_seen(slot, view)
}

#[cfg(test)]
mod tests {
    use super::*;
    use engine::World;

    #[test]
    fn the_delay_jumps_up_at_once_and_eases_down_slowly() {
        let mut d = ViewDelay::default();
        assert_eq!(d.update(RemoteView::Past, 100, 96, 12), 4);
        assert_eq!(d.update(RemoteView::Past, 101, 100, 12), 4, "holds");
        for _ in 0..EASE_FRAMES - 2 {
            assert_eq!(d.update(RemoteView::Past, 101, 100, 12), 4);
        }
        assert_eq!(
            d.update(RemoteView::Past, 101, 100, 12),
            3,
            "one tick closer"
        );
        assert_eq!(
            d.update(RemoteView::Past, 140, 100, 12),
            12,
            "capped by the window"
        );
        assert_eq!(d.update(RemoteView::Predicted, 140, 100, 12), 0);
    }

    #[test]
    fn views_parse_and_print() {
        for v in [RemoteView::Predicted, RemoteView::Past] {
            assert_eq!(v.to_string().parse::<RemoteView>(), Ok(v));
        }
        assert!("future".parse::<RemoteView>().is_err());
        assert_eq!(view_at(0, 200), ViewTime::default());
        assert_eq!(
            view_at(3, 64),
            ViewTime {
                ticks_back: 3,
                frac: 64
            }
        );
    }

    /// An input sampled while remote players were shown `shown` ago is simulated `input_delay`
    /// ticks later, so its view reaches back exactly that much further (the fraction kept);
    /// without lag compensation it carries no view; a delay past the byte's range saturates.
    #[test]
    fn an_input_view_reaches_back_the_shown_delay_plus_the_input_delay() {
        let shown = view_at(3, 64);
        assert_eq!(input_view(RemoteView::Past, shown, 2), view_at(5, 64));
        assert_eq!(input_view(RemoteView::Past, shown, 0), shown);
        assert_eq!(
            input_view(RemoteView::Predicted, shown, 2),
            ViewTime::default()
        );
        assert_eq!(
            input_view(RemoteView::Past, ViewTime::default(), 1000),
            view_at(255, 0)
        );
        assert_eq!(
            input_view(RemoteView::Past, view_at(250, 1), 7),
            view_at(255, 1)
        );
    }

    /// What is shown is what the simulation judges: a shown remote pose is the pose the rail
    /// trace reads for the same view.
    #[test]
    fn shown_remote_poses_come_from_the_pose_history() {
        let mut world = World::new(engine::Rules::default(), 3, 2).expect("world");
        let mut bots = [engine::Bot::new(0, 1), engine::Bot::new(1, 2)];
        for _ in 0..200 {
            let inputs = [bots[0].think(&world), bots[1].think(&world)];
            world.step(&inputs).expect("step");
        }
        let view = view_at(5, 128);
        let shown = shown_pose(&world, 1, view);
        let state = world.state();
        let direct = state.pose_history.pose_at(1, state.tick, view, 12);
        assert_eq!(shown, direct);
        assert_eq!(
            shown_pose(&world, 1, ViewTime::default()).pose.pos,
            state.players[1].pos
        );
    }
}
