//! Pose history: the last few ticks of every player's hitbox, for lag-compensated hit checks.
//!
//! A rail shot is judged against the targets' poses at the moment its shooter was looking at
//! (the input's view), not at the simulated tick. That moment lies up to
//! `rules.pose_history_ticks` (N) in the past, so the world keeps, per player, the hitbox pose
//! of each of the last N + 1 world times (now included) in a ring indexed by `time % (N + 1)`.
//! The history is simulation state — a rolled-back world must judge the same shot the same
//! way — so it lives in the snapshot, is hashed as its own section, and is checked on restore.
//!
//! "Time `t`" is the world after `t` steps. [`HitboxHistory::record`] runs at the end of every
//! step (and once when the world is created), so the newest sample is always the current time.
//!
//! The ring, the clamping and the cut policy are generic ([`game_api::lag`]); this module is
//! the duel's instance: its hitbox ([`PoseSample`]), where its cuts are, and what a valid sample
//! is.
//!
//! # Rewinding
//! [`PoseRing::pose_at`] is a pure read. A view time between two samples is interpolated
//! linearly in fixed point (the factor is a multiple of 1/256 tick; the interpolated position
//! is exact to one 16.16 unit, rounded toward −∞). Interpolation never crosses a
//! *discontinuity* — a sample whose player was respawned (new life generation) or moved more
//! than one tile on an axis since the previous sample (a teleport): there the nearer real
//! sample is used (at exactly half a tick, the newer one, the life that exists now), so no
//! pose is ever invented. A view older than the window is clamped to the oldest sample (or to
//! time 0 early in a match), a view "from the future" to now; the answer says which.

use crate::fx::{fx_bits, Fx, FxVec, ONE};
use crate::player::Player;
use crate::Tick;
use game_api::lag::{Pose, PoseRing, Rewound};
pub use game_api::lag::{ViewClamp, ViewTime, VIEW_FRAC_UNITS};
use serde::{Deserialize, Serialize};

/// The largest pose window the rules allow (`pose_history_ticks`' maximum).
pub const MAX_POSE_WINDOW: u8 = 30;

/// Flag bits of a [`PoseSample`].
pub mod pose_flags {
    /// The player was in the round (not knocked out).
    pub const ALIVE: u8 = 0b01;
    /// Interpolation from the previous sample is not allowed (respawn or teleport).
    pub const CUT: u8 = 0b10;
    /// Every defined bit.
    pub const KNOWN: u8 = ALIVE | CUT;
}

/// One player's hitbox at one world time. Its own canonical bytes, like a
/// [`Projectile`](crate::Projectile): `repr(C)`, no padding, 20 bytes hashed as they are.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[repr(C)]
#[derive(bytemuck::Pod, bytemuck::Zeroable)]
pub struct PoseSample {
    /// Centre of the hitbox circle.
    pub pos: FxVec,
    /// Radius of the hitbox circle.
    pub radius: Fx,
    /// The player's life generation at that time.
    pub generation: u32,
    /// [`pose_flags`] bits.
    pub flags: u8,
    /// Always zero: the bytes that would otherwise be padding (a snapshot with anything else
    /// here is refused as corrupt).
    pub reserved: [u8; 3],
}

impl PoseSample {
    /// Whether the player was alive at that time.
    #[must_use]
    pub fn alive(&self) -> bool {
        self.flags & pose_flags::ALIVE != 0
    }

    /// Whether this sample may not be interpolated from the previous one.
    #[must_use]
    pub fn cut(&self) -> bool {
        self.flags & pose_flags::CUT != 0
    }
}

impl Pose for PoseSample {
    fn cut(&self) -> bool {
        PoseSample::cut(self)
    }

    /// Position and radius interpolated on raw 16.16 bits ([`lerp_fx`]); the life of `b`;
    /// alive only if alive at both ends (nobody is hit on the way to a KO).
    fn between(a: &PoseSample, b: &PoseSample, num: u32, den: u32) -> PoseSample {
        let lerp = |x: Fx, y: Fx| lerp_fx(x, y, num, den);
        PoseSample {
            pos: FxVec::new(lerp(a.pos.x, b.pos.x), lerp(a.pos.y, b.pos.y)),
            radius: lerp(a.radius, b.radius),
            generation: b.generation,
            flags: a.flags & b.flags & pose_flags::ALIVE,
            reserved: [0; 3],
        }
    }
}

/// Every player's recent hitbox poses: the generic ring over the duel's [`PoseSample`].
pub type PoseHistory = PoseRing<PoseSample>;

/// A hitbox read from history.
pub type RewoundPose = Rewound<PoseSample>;

/// `a + (b − a) · num / den` on raw 16.16 bits, rounded toward −∞ (`0 < den`, `0 ≤ num ≤ den`).
/// Exact integer arithmetic: the only rounding is the final floor division.
#[must_use]
pub fn lerp_fx(a: Fx, b: Fx, num: u32, den: u32) -> Fx {
    let (a, b) = (i64::from(a.to_bits()), i64::from(b.to_bits()));
    let step = ((b - a) * i64::from(num)).div_euclid(i64::from(den));
    // |step| ≤ |b − a|, so the result lies between a and b: no overflow.
    fx_bits((a + step) as i32)
}

/// The duel's side of the pose ring: which poses are recorded, where a cut is, what a valid
/// sample is.
pub trait HitboxHistory {
    /// Fills the whole ring with each player's current pose (as a new world does; tools and
    /// tests use it after placing players by hand). Reuses the buffer.
    fn reset(&mut self, players: &[Player], radius: Fx, window: u8);

    /// Records every player's pose at time `now`, marking a discontinuity where the player was
    /// respawned or moved more than one tile on an axis since time `now − 1`.
    fn record(&mut self, now: Tick, players: &[Player], radius: Fx, window: u8);

    /// Checks the ring against a world of `players` players and `window`: its length, and
    /// every sample's position, radius and flags in range.
    ///
    /// # Errors
    /// What is out of range.
    fn check(&self, players: usize, window: u8, width: Fx, height: Fx) -> Result<(), String>;
}

impl HitboxHistory for PoseHistory {
    fn reset(&mut self, players: &[Player], radius: Fx, window: u8) {
        self.fill(
            players
                .iter()
                .map(|p| sample_of(p, radius, pose_flags::CUT)),
            window,
        );
    }

    fn record(&mut self, now: Tick, players: &[Player], radius: Fx, window: u8) {
        for (i, p) in players.iter().enumerate() {
            let prev = self.sample(i, now.wrapping_sub(1), window);
            let d = p.pos - prev.pos;
            let jumped = !(-ONE..=ONE).contains(&d.x) || !(-ONE..=ONE).contains(&d.y);
            let cut = now == 0 || prev.generation != p.generation || jumped;
            let flags = if cut { pose_flags::CUT } else { 0 };
            self.set(i, now, window, sample_of(p, radius, flags));
        }
    }

    fn check(&self, players: usize, window: u8, width: Fx, height: Fx) -> Result<(), String> {
        self.check_len(players, window)?;
        let zero = crate::fx::ZERO;
        for (i, s) in self.samples.iter().enumerate() {
            let inside =
                s.pos.x >= zero && s.pos.y >= zero && s.pos.x <= width && s.pos.y <= height;
            if !inside || s.radius < zero || s.radius > ONE || s.flags & !pose_flags::KNOWN != 0 {
                return Err(format!("pose history sample {i} out of range"));
            }
        }
        Ok(())
    }
}

fn sample_of(p: &Player, radius: Fx, flags: u8) -> PoseSample {
    let alive = if p.is_alive() { pose_flags::ALIVE } else { 0 };
    PoseSample {
        pos: p.pos,
        radius,
        generation: p.generation,
        flags: flags | alive,
        reserved: [0; 3],
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fx::fx_int;

    /// Seed 003's worked example: 2.0 at 11.875 s, 2.5 at 11.900 s, asked for 11.880 s →
    /// factor (11.880 − 11.875) / (11.900 − 11.875) = 0.2 → 2.1. With exact integer factors
    /// (milliseconds, 5/25) the result is 2.1 rounded down to 16.16: within 1/65536 of 2.1.
    /// Our views are in 1/256 tick, so the same factor is 51/256 = 0.19921875 and the
    /// position 2.099609375: within |b − a| / 512 + 1/65536 of 2.1.
    #[test]
    fn seed_003_worked_example_interpolates_to_2_1() {
        let (a, b) = (Fx::from_num(2), Fx::from_num(2.5));
        let exact = lerp_fx(a, b, 11_880 - 11_875, 11_900 - 11_875);
        let target = Fx::from_num(2.1);
        let ulp = fx_bits(1);
        assert!(exact <= target && target - exact <= ulp, "{exact}");
        let quantized = lerp_fx(a, b, 51, VIEW_FRAC_UNITS); // round(0.2 · 256) = 51
        let bound = (b - a) / Fx::from_num(512) + ulp;
        assert!((target - quantized).abs() <= bound, "{quantized}");
        assert_eq!(quantized, Fx::from_num(2.099_609_375));
    }

    #[test]
    fn lerp_ends_are_exact_and_rounding_is_toward_minus_infinity() {
        let (a, b) = (fx_int(-3), fx_int(5));
        assert_eq!(lerp_fx(a, b, 0, 256), a);
        assert_eq!(lerp_fx(a, b, 256, 256), b);
        // -1 raw unit · 1/2 → floor(−0.5) = −1.
        assert_eq!(lerp_fx(fx_bits(0), fx_bits(-1), 1, 2), fx_bits(-1));
    }

    fn player_at(x: i32, generation: u32) -> Player {
        Player {
            id: 0,
            generation,
            pos: FxVec::new(fx_int(x), fx_int(1)),
            vel: FxVec::ZERO,
            aim: FxVec::ZERO,
            hp: 1,
            action: crate::player::Action::Idle,
            action_timer: 0,
            shot_cooldown: 0,
            ammo: 0,
            reload_timer: 0,
            prev_buttons: 0,
            melee_hits: 0,
            rail_charges: 0,
            rail_cooldown: 0,
            rail_recharge: 0,
            hitstop: 0,
            stats: crate::player::PlayerStats::default(),
        }
    }

    /// A history of one player at x = 10, 11, … up to `now`, with a teleport or respawn at `cut`.
    fn history(now: Tick, cut_at: Option<(Tick, bool)>) -> PoseHistory {
        let mut h = PoseHistory::default();
        let mut generation = 1;
        h.reset(&[player_at(10, generation)], ONE, 4);
        for t in 1..=now {
            let mut x = 10 + t as i32;
            if let Some((at, respawn)) = cut_at {
                if t >= at {
                    if respawn {
                        generation = 2;
                    } else {
                        x += 20;
                    }
                }
            }
            h.record(t, &[player_at(x, generation)], ONE, 4);
        }
        h
    }

    fn view(ticks_back: u8, frac: u8) -> ViewTime {
        ViewTime { ticks_back, frac }
    }

    #[test]
    fn a_view_between_samples_is_interpolated() {
        let h = history(8, None);
        // Now = 8 (x = 18); 2 back + 64/256 → time 6.25 → x = 16.25.
        let r = h.pose_at(0, 8, view(2, 64), 4);
        assert_eq!(r.pose.pos.x, Fx::from_num(16.25));
        assert_eq!((r.used, r.clamp), (view(2, 64), ViewClamp::None));
    }

    #[test]
    fn no_interpolation_across_a_teleport_or_respawn() {
        for respawn in [false, true] {
            let h = history(8, Some((7, respawn)));
            // Between time 6 (x = 16) and time 7 (cut): the nearer real sample, never a blend.
            let early = h.pose_at(0, 8, view(2, 100), 4);
            assert_eq!(early.pose, h.pose_at(0, 8, view(2, 0), 4).pose);
            let late = h.pose_at(0, 8, view(2, 200), 4);
            assert_eq!(late.pose, h.pose_at(0, 8, view(1, 0), 4).pose);
            let half = h.pose_at(0, 8, view(2, 128), 4);
            assert_eq!(half.pose, late.pose, "a tie takes the newer sample");
            assert!(late.pose.cut());
        }
    }

    /// Between two samples the pose is alive only if alive at both ends, and carries no cut
    /// of its own (the cut belongs to the sample it marks).
    #[test]
    fn an_interpolated_pose_is_alive_only_between_two_alive_samples() {
        let mut h = PoseHistory::default();
        h.reset(&[player_at(10, 1)], ONE, 4);
        h.record(1, &[player_at(11, 1)], ONE, 4);
        let mut down = player_at(11, 1);
        down.hp = 0;
        down.action = crate::player::Action::Ko;
        h.record(2, &[down], ONE, 4);
        let standing = h.pose_at(0, 2, view(1, 128), 4);
        assert_eq!(
            standing.pose.flags, 0,
            "from alive (time 1) to down (time 2)"
        );
        let h = history(3, Some((1, false)));
        assert!(h.pose_at(0, 3, view(2, 0), 4).pose.cut(), "time 1 is cut");
        let between = h.pose_at(0, 3, view(2, 128), 4);
        assert_eq!(
            between.pose.flags,
            pose_flags::ALIVE,
            "time 1.5, after the cut"
        );
    }

    #[test]
    fn views_outside_the_window_are_clamped_and_say_so() {
        let h = history(20, None);
        let old = h.pose_at(0, 20, view(9, 0), 4);
        assert_eq!((old.used, old.clamp), (view(4, 0), ViewClamp::TooOld));
        assert_eq!(old.pose.pos.x, fx_int(26), "the oldest sample, time 16");
        let future = h.pose_at(0, 20, view(0, 1), 4);
        assert_eq!((future.used, future.clamp), (view(0, 0), ViewClamp::Future));
        assert_eq!(future.pose.pos.x, fx_int(30));
        // Both ends of the window are inside it: exactly now, and exactly the oldest sample.
        let now = h.pose_at(0, 20, view(0, 0), 4);
        assert_eq!((now.used, now.clamp), (view(0, 0), ViewClamp::None));
        let oldest = h.pose_at(0, 20, view(4, 0), 4);
        assert_eq!((oldest.used, oldest.clamp), (view(4, 0), ViewClamp::None));
        // Early in a match the window reaches back only to time 0.
        let h = history(2, None);
        let early = h.pose_at(0, 2, view(4, 0), 4);
        assert_eq!((early.used, early.clamp), (view(2, 0), ViewClamp::TooOld));
        assert_eq!(early.pose.pos.x, fx_int(10));
        // The largest request of all is safe.
        let far = h.pose_at(0, 2, view(255, 255), 4);
        assert_eq!(far.clamp, ViewClamp::TooOld);
    }
}
