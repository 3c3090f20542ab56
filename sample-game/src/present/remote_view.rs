//! Where remote players are drawn, and the view a local input carries so the rail is judged
//! against that picture (see `client::remote_view` for the policy).
//!
//! Every moving thing is drawn `alpha` of the way from the previous tick to the current one,
//! so a frame shows world time `now − 1 + alpha`. In [`RemoteView::Past`] mode remote players
//! are drawn `back` ticks further in the past, at `now − back − 1 + alpha`, read from the pose
//! history: that lies before the last final tick (`back` is never less than the distance to
//! it), so nothing unconfirmed is shown — and with `back = 0` it is exactly the interpolation
//! everyone else gets. A rail press then carries that moment, expressed relative to the tick
//! the input is for (which is input-delay ticks ahead of the world drawn), so the simulation
//! reads the same poses the player saw. Online, `back` is capped so that moment is still
//! inside the pose window when the input is applied (see `NetMatch::remote_view_back`); only
//! under that cap can a drawn pose be a predicted one: the shot is judged at the same moment,
//! but against that moment's confirmed pose, which late inputs may still have moved.
//!
//! This is integer arithmetic on ticks and 1/256 ticks; only the final positions become `f32`.
//!
//! [`RemoteView::Past`]: client::remote_view::RemoteView::Past

use crate::present::interpolate::{player_pos, vec2};
use engine::{PlayerId, Rules, Tick, ViewTime, WorldSnapshot, VIEW_FRAC_UNITS};
use glam::Vec2;

/// What one frame showed of the remote players.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ShownView {
    /// The tick of the snapshot drawn ([`WorldSnapshot::tick`] of the current one).
    pub tick: Tick,
    /// Ticks further back than everyone else that remote players were drawn (0: they were
    /// drawn like everyone else, no lag compensation).
    pub back: u8,
    /// How far between the previous and the current tick the frame was drawn, in 1/256 tick.
    pub alpha_256: u8,
}

impl ShownView {
    /// The view, relative to [`ShownView::tick`], that remote players are drawn at; `None`
    /// when they are drawn like everyone else (`back` 0).
    #[must_use]
    pub fn remote(&self) -> Option<ViewTime> {
        (self.back > 0).then(|| client::remote_view::view_at(self.back + 1, self.alpha_256))
    }

    /// The view a local input for tick `input_tick` carries to be judged against the remote
    /// players this frame showed: the same moment, relative to the input's own tick. Without
    /// a past view (`back` 0) the view is "now" (0). A moment further back than a `u8` can
    /// say is sent as the oldest (the simulation clamps it to its window anyway).
    #[must_use]
    pub fn for_input(&self, input_tick: Tick) -> ViewTime {
        let Some(view) = self.remote() else {
            return ViewTime::default();
        };
        let units = i64::from(VIEW_FRAC_UNITS);
        // The moment shown, in 1/256 tick (it may precede time 0 early in a match).
        let shown = i64::from(self.tick) * units - i64::from(view.ticks_back) * units
            + i64::from(view.frac);
        let back = i64::from(input_tick) * units - shown;
        if back <= 0 {
            return ViewTime::default();
        }
        let ticks_back = (back + units - 1) / units;
        if ticks_back > i64::from(u8::MAX) {
            return ViewTime {
                ticks_back: u8::MAX,
                frac: 0,
            };
        }
        ViewTime {
            ticks_back: ticks_back as u8,
            // The part of the last tick back that is not reached: 0 up to a tick.
            frac: u8::try_from(ticks_back * units - back).expect("less than a tick"),
        }
    }
}

/// `alpha` (0..1 of a tick) in 1/256 tick, from the integer durations the window loop
/// measures (banked time and the tick length, in nanoseconds), so no float reaches an input.
#[must_use]
pub fn alpha_256(banked_nanos: u128, tick_nanos: u128) -> u8 {
    (banked_nanos * 256 / tick_nanos.max(1)).min(255) as u8
}

/// Where each player of `current` is drawn, in tiles: local players (and everyone, without a
/// past view) interpolated between `previous` and `current` at `alpha`; remote players at
/// their pose-history pose at `shown`'s view — the pose a rail shot carrying that view is
/// judged against.
#[must_use]
pub fn fighter_positions(
    previous: &WorldSnapshot,
    current: &WorldSnapshot,
    rules: &Rules,
    shown: ShownView,
    local: &[PlayerId],
    alpha: f32,
) -> Vec<Vec2> {
    current
        .players
        .iter()
        .enumerate()
        .map(|(slot, p)| match shown.remote() {
            Some(view) if !local.contains(&p.id) => vec2(rewound(current, rules, slot, view).pos),
            _ => player_pos(previous, p, alpha),
        })
        .collect()
}

/// Player `slot`'s hitbox at `view` relative to `current`'s tick, read from its pose history
/// exactly as `client::remote_view::shown_pose` and the rail phase read it.
#[must_use]
pub fn rewound(
    current: &WorldSnapshot,
    rules: &Rules,
    slot: usize,
    view: ViewTime,
) -> engine::PoseSample {
    current
        .pose_history
        .pose_at(slot, current.tick, view, rules.pose_history_ticks)
        .pose
}

#[cfg(test)]
mod tests {
    use super::*;
    use engine::{Bot, World};

    fn view(ticks_back: u8, frac: u8) -> ViewTime {
        ViewTime { ticks_back, frac }
    }

    #[test]
    fn the_input_carries_the_moment_shown_relative_to_its_own_tick() {
        let shown = ShownView {
            tick: 100,
            back: 3,
            alpha_256: 64,
        };
        // Drawn at 100 − 3 − 1 + 64/256 = 96.25.
        assert_eq!(shown.remote(), Some(view(4, 64)));
        // An input for the drawn tick says the same; with 2 ticks of input delay, 2 more back.
        assert_eq!(shown.for_input(100), view(4, 64));
        assert_eq!(shown.for_input(102), view(6, 64));
        let whole = ShownView {
            alpha_256: 0,
            ..shown
        };
        assert_eq!(whole.for_input(102), view(6, 0));
        // No past view: the present.
        let predicted = ShownView { back: 0, ..shown };
        assert_eq!(
            (predicted.remote(), predicted.for_input(102)),
            (None, view(0, 0))
        );
        // Far beyond a u8: the oldest, which the simulation clamps.
        assert_eq!(shown.for_input(100_000), view(255, 0));
        // The oldest a u8 says, and its fraction: 96.25 seen from 351 is 254.75 back.
        assert_eq!(shown.for_input(351), view(255, 64));
        assert_eq!(shown.for_input(352), view(255, 0));
        // One beyond it: the oldest.
        assert_eq!(whole.for_input(352), view(255, 0));
        assert_eq!(whole.for_input(353), view(255, 0));
    }

    #[test]
    fn alpha_is_measured_in_whole_256ths() {
        assert_eq!(alpha_256(0, 16_666_666), 0);
        assert_eq!(alpha_256(8_333_333, 16_666_666), 128);
        assert_eq!(alpha_256(1, 16_666_666), 0, "rounded down");
        assert_eq!(alpha_256(16_666_666, 16_666_666), 255, "never a whole tick");
    }

    /// In past mode a remote fighter is drawn at its pose-history pose for the view shown —
    /// where it was, not where prediction has it — and the local one where it is.
    #[test]
    fn a_remote_fighter_is_drawn_at_its_history_pose_in_past_mode() {
        let rules = Rules::default();
        let mut world = World::new(rules.clone(), 3, 2).expect("world");
        let mut bots = [Bot::new(0, 1), Bot::new(1, 2)];
        let mut previous = world.snapshot();
        for _ in 0..240 {
            previous = world.snapshot();
            let inputs = [bots[0].think(&world), bots[1].think(&world)];
            world.step(&inputs).expect("step");
        }
        let current = world.snapshot();
        let shown = ShownView {
            tick: current.tick,
            back: 5,
            alpha_256: 128,
        };
        let at = fighter_positions(&previous, &current, &rules, shown, &[0], 0.5);
        let history = vec2(rewound(&current, &rules, 1, view(6, 128)).pos);
        let via_client = client::remote_view::shown_pose(&world, 1, view(6, 128));
        assert_eq!(history, vec2(via_client.pose.pos), "what the rail reads");
        assert_eq!(at[1], history, "remote: from the pose history");
        let predicted = player_pos(&previous, &current.players[1], 0.5);
        assert!(
            (at[1] - predicted).length() > 0.05,
            "the bots keep moving, so the past differs from the prediction ({predicted})"
        );
        assert_eq!(at[0], player_pos(&previous, &current.players[0], 0.5), "me");
        // No past view: everyone interpolated as usual.
        let now = ShownView { back: 0, ..shown };
        let at = fighter_positions(&previous, &current, &rules, now, &[0], 0.5);
        assert_eq!(at[1], predicted);
    }
}
