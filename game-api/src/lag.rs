//! Lag compensation, generic over what a hitbox is: the pose-history ring, interpolation that
//! never crosses a cut, and view clamping.
//!
//! A lag-compensated hit check is judged against the targets' poses at the moment the shooter
//! was looking at (the input's [`ViewTime`]), not at the simulated tick. That moment lies up to
//! `window` ticks in the past, so the game keeps, per player, the pose of each of the last
//! `window + 1` world times (now included) in a [`PoseRing`] indexed by `time % (window + 1)`.
//! The ring is simulation state — a rolled-back game must judge the same shot the same way —
//! so it belongs in the game's snapshot and hash.
//!
//! [`PoseRing::pose_at`] is a pure read. A view time between two samples is interpolated by
//! the game's [`Pose::between`] (the factor a multiple of 1/[`VIEW_FRAC_UNITS`] tick), never
//! across a *cut* — a sample that may not be reached from the previous one (a respawn, a
//! teleport, whatever the game says): there the nearer real sample is used (at exactly half a
//! tick, the newer one), so no pose is ever invented. A view older than the window is clamped
//! to the oldest sample (or to time 0 early in a match), a view "from the future" to now; the
//! answer says which ([`ViewClamp`]).
//!
//! The maze duel's hitbox circles (`engine::PoseSample`) are one [`Pose`].

use crate::Tick;
use serde::{Deserialize, Serialize};
use std::fmt::Debug;

/// Sub-tick units per tick in a view time.
pub const VIEW_FRAC_UNITS: u32 = 256;
// A fraction is one byte, and `pose_at` takes it mod 256 by keeping the low byte.
const _: () = assert!(VIEW_FRAC_UNITS == 1 << u8::BITS);

/// A view time relative to a tick `T`: `T − ticks_back + frac / 256`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct ViewTime {
    /// Whole ticks back from `T`.
    pub ticks_back: u8,
    /// 1/256 tick forward from `T − ticks_back`.
    pub frac: u8,
}

/// How a requested view was changed before use.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum ViewClamp {
    /// Used as requested.
    #[default]
    None,
    /// Older than the history window (or than the match): the oldest sample was used.
    TooOld,
    /// Later than now: now was used.
    Future,
}

/// One player's hitbox at one world time, as a game defines it.
pub trait Pose: Copy + Debug + Default + PartialEq {
    /// Whether this sample may not be interpolated from the previous one (a respawn, a
    /// teleport): [`PoseRing::pose_at`] then uses the nearer real sample.
    fn cut(&self) -> bool;

    /// The pose `num / den` of the way from `a` to `b` (`0 < num < den`), for a `b` that is not
    /// [`Pose::cut`]. Integers or fixed point only: this runs inside the simulation.
    #[must_use]
    fn between(a: &Self, b: &Self, num: u32, den: u32) -> Self;
}

/// A pose read from history.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Rewound<P> {
    /// The pose (interpolated, or a real sample).
    pub pose: P,
    /// The view time actually used, relative to now.
    pub used: ViewTime,
    /// Whether and why the requested view was clamped.
    pub clamp: ViewClamp,
}

/// Every player's recent poses: `depth = window + 1` samples per player, player-major.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct PoseRing<P> {
    /// `samples[player * depth + time % depth]`.
    pub samples: Vec<P>,
}

impl<P: Pose> PoseRing<P> {
    /// Samples kept per player for a window of `window` ticks.
    #[must_use]
    pub fn depth(window: u8) -> usize {
        usize::from(window) + 1
    }

    fn index(player: usize, time: u64, depth: usize) -> usize {
        player * depth + (time % depth as u64) as usize
    }

    /// Fills the whole ring with each player's pose, `poses` in slot order (as a new game
    /// does). Reuses the buffer.
    pub fn fill(&mut self, poses: impl IntoIterator<Item = P>, window: u8) {
        let depth = PoseRing::<P>::depth(window);
        self.samples.clear();
        for pose in poses {
            self.samples.extend(std::iter::repeat_n(pose, depth));
        }
    }

    /// The sample of `player` at `time` (one of the last `window + 1` times recorded).
    ///
    /// # Panics
    /// If `player` has no samples.
    #[must_use]
    pub fn sample(&self, player: usize, time: Tick, window: u8) -> P {
        let depth = PoseRing::<P>::depth(window);
        self.samples[PoseRing::<P>::index(player, u64::from(time), depth)]
    }

    /// Records `pose` as `player`'s at `time`, replacing the sample of `time − window − 1`.
    ///
    /// # Panics
    /// If `player` has no samples.
    pub fn set(&mut self, player: usize, time: Tick, window: u8, pose: P) {
        let depth = PoseRing::<P>::depth(window);
        self.samples[PoseRing::<P>::index(player, u64::from(time), depth)] = pose;
    }

    /// Checks the ring's length against `players` players and `window` (for a ring read from
    /// an untrusted snapshot; the game checks each sample's values).
    ///
    /// # Errors
    /// What does not fit.
    pub fn check_len(&self, players: usize, window: u8) -> Result<(), String> {
        let depth = PoseRing::<P>::depth(window);
        if self.samples.len() == players * depth {
            Ok(())
        } else {
            Err(format!(
                "pose history holds {} samples, {players} players × {depth} expected",
                self.samples.len()
            ))
        }
    }

    /// The pose of `player` at `view` relative to `now`, for a window of `window` ticks:
    /// clamped into `[max(now − window, 0), now]`, then interpolated (see the module
    /// documentation for the policy). A pure read.
    ///
    /// # Panics
    /// If `player` has no samples (the caller passes a slot of the game).
    #[must_use]
    pub fn pose_at(&self, player: usize, now: Tick, view: ViewTime, window: u8) -> Rewound<P> {
        let depth = PoseRing::<P>::depth(window);
        let units = u64::from(VIEW_FRAC_UNITS);
        let now_u = u64::from(now) * units;
        let oldest = u64::from(now).saturating_sub(u64::from(window)) * units;
        // Requested time in 1/256 tick, as a signed value (it may precede time 0).
        let requested =
            now_u as i64 - i64::from(view.ticks_back) * units as i64 + i64::from(view.frac);
        let (at, clamp) = if requested > now_u as i64 {
            (now_u, ViewClamp::Future)
        } else if requested < oldest as i64 {
            (oldest, ViewClamp::TooOld)
        } else {
            (requested as u64, ViewClamp::None)
        };
        let (t0, part) = (at / units, (at % units) as u32);
        let sample = |t: u64| self.samples[PoseRing::<P>::index(player, t, depth)];
        let s0 = sample(t0);
        let pose = if part == 0 {
            s0
        } else {
            let s1 = sample(t0 + 1);
            if !s1.cut() {
                P::between(&s0, &s1, part, VIEW_FRAC_UNITS)
            } else if part < VIEW_FRAC_UNITS / 2 {
                s0
            } else {
                s1
            }
        };
        let back = now_u - at;
        let used = ViewTime {
            ticks_back: back.div_ceil(units) as u8,
            // Forward from the whole ticks back: (−back) mod 256, the low byte negated.
            frac: (back as u8).wrapping_neg(),
        };
        Rewound { pose, used, clamp }
    }
}

/// A game with lag-compensated hit checks: where its pose ring is, so the presentation layer
/// can show remote players exactly as the simulation will judge a shot carrying that view.
pub trait LagCompensated {
    /// What one player's hitbox is.
    type Pose: Pose;

    /// The ring of recent poses.
    fn pose_ring(&self) -> &PoseRing<Self::Pose>;

    /// Ticks of history the ring covers (its window).
    fn pose_window(&self) -> u8;

    /// The current tick (the ring's newest time).
    fn pose_now(&self) -> Tick;

    /// Where player `slot` is at `view`: exactly what a hit check carrying that view reads.
    ///
    /// # Panics
    /// If `slot` is not a player of the game.
    #[must_use]
    fn pose_seen(&self, slot: usize, view: ViewTime) -> Rewound<Self::Pose> {
        (self.pose_ring()).pose_at(slot, self.pose_now(), view, self.pose_window())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A point on a line, in whole units, and whether it jumped there.
    #[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
    struct Dot {
        x: i64,
        jumped: bool,
    }

    impl Pose for Dot {
        fn cut(&self) -> bool {
            self.jumped
        }
        fn between(a: &Dot, b: &Dot, num: u32, den: u32) -> Dot {
            Dot {
                x: a.x + (b.x - a.x) * i64::from(num) / i64::from(den),
                jumped: false,
            }
        }
    }

    /// A ring of window 4 with `x = 10·t` recorded for times 0..=now, the sample at `cut`
    /// (if any) a jump.
    fn ring(now: Tick, cut: Option<Tick>) -> PoseRing<Dot> {
        let mut r = PoseRing::default();
        r.fill([Dot::default()], 4);
        for t in 0..=now {
            let jumped = Some(t) == cut;
            r.set(
                0,
                t,
                4,
                Dot {
                    x: 10 * i64::from(t),
                    jumped,
                },
            );
        }
        r
    }

    fn view(ticks_back: u8, frac: u8) -> ViewTime {
        ViewTime { ticks_back, frac }
    }

    #[test]
    fn a_view_between_samples_is_interpolated_by_the_game() {
        let r = ring(8, None);
        let got = r.pose_at(0, 8, view(2, 64), 4);
        assert_eq!(got.pose.x, 62, "a quarter of the way from 60 to 70");
        assert_eq!((got.used, got.clamp), (view(2, 64), ViewClamp::None));
        assert_eq!(r.pose_at(0, 8, view(3, 0), 4).pose.x, 50);
    }

    #[test]
    fn no_interpolation_across_a_cut_the_nearer_sample_at_half_the_newer() {
        let r = ring(8, Some(7));
        assert_eq!(r.pose_at(0, 8, view(2, 127), 4).pose.x, 60);
        assert_eq!(r.pose_at(0, 8, view(2, 128), 4).pose.x, 70);
        // Past the cut, interpolation is allowed again.
        assert_eq!(r.pose_at(0, 8, view(1, 128), 4).pose.x, 75);
    }

    #[test]
    fn views_outside_the_window_are_clamped_and_say_so() {
        let r = ring(20, None);
        let old = r.pose_at(0, 20, view(9, 0), 4);
        assert_eq!(
            (old.pose.x, old.used, old.clamp),
            (160, view(4, 0), ViewClamp::TooOld)
        );
        let future = r.pose_at(0, 20, view(0, 1), 4);
        assert_eq!((future.pose.x, future.clamp), (200, ViewClamp::Future));
        let early = ring(2, None).pose_at(0, 2, view(4, 0), 4);
        assert_eq!(
            (early.pose.x, early.used, early.clamp),
            (0, view(2, 0), ViewClamp::TooOld)
        );
        let exact = r.pose_at(0, 20, view(4, 0), 4);
        assert_eq!((exact.pose.x, exact.clamp), (160, ViewClamp::None));
    }

    #[test]
    fn a_ring_is_player_major_and_its_length_is_checked() {
        let mut r = PoseRing::default();
        r.fill(
            [
                Dot {
                    x: 1,
                    jumped: false,
                },
                Dot {
                    x: 2,
                    jumped: false,
                },
            ],
            3,
        );
        assert_eq!(r.samples.len(), 8);
        r.set(1, 6, 3, Dot { x: 9, jumped: true });
        assert_eq!(
            (
                r.sample(1, 6, 3).x,
                r.sample(1, 2, 3).x,
                r.sample(0, 6, 3).x
            ),
            (9, 9, 1)
        );
        assert!(r.check_len(2, 3).is_ok());
        assert!(r.check_len(3, 3).is_err() && r.check_len(2, 4).is_err());
    }
}
