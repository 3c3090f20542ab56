//! Frame pacing with smooth slow-down when ahead of the remote peer, one decision for every
//! loop that plays online.
//!
//! [`FrameSkipper`] decides, frame slot by frame slot, whether a slot simulates: a
//! `WaitRecommendation` of `n` frames is honoured by skipping `n` slots spread one every few,
//! never several in a row in the middle of a motion; a loop whose frame slots come from
//! elsewhere (the game's display) also lets one slot in [`SLOWDOWN_EVERY`] pass while it runs
//! more than a frame ahead. [`FramePacer`] is the same skipper inside a fixed-rate clock
//! (headless runs): frames are due every `1/fps`, and when ahead each frame is stretched a
//! little (up to 10 %) instead of skipped, so the peers converge without a visible hitch.

use std::time::{Duration, Instant};

/// Decides when the next simulation frame is due.
#[derive(Debug, Clone)]
pub struct FramePacer {
    frame: Duration,
    next: Instant,
    skipper: FrameSkipper,
}

/// Frames between two recommended skips.
pub const SKIP_SPACING: u32 = 6;
/// While more than a frame ahead, a [`FrameSkipper`] that cannot stretch time lets one frame
/// slot in this many pass (about 10 % slower), so the clocks converge without a visible stop.
pub const SLOWDOWN_EVERY: u32 = 10;

/// Whether each frame slot simulates or passes (see the module documentation).
#[derive(Debug, Clone, Default)]
pub struct FrameSkipper {
    skip_debt: u32,
    since_skip: u32,
    slots: u32,
}

impl FrameSkipper {
    /// Adds `frames` to skip (from a `WaitRecommendation`); recommendations do not add up,
    /// the largest outstanding one holds.
    pub fn recommend_wait(&mut self, frames: u32) {
        self.skip_debt = self.skip_debt.max(frames);
    }

    /// Frames still to skip for wait recommendations.
    #[must_use]
    pub fn owed(&self) -> u32 {
        self.skip_debt
    }

    /// The decision for the next frame slot, `frames_ahead` being how far this peer runs
    /// ahead of the remote (a loop that stretches time when ahead passes 0): a recommended
    /// skip once [`SKIP_SPACING`] slots passed since the last skip, else a slowdown skip
    /// every [`SLOWDOWN_EVERY`]th slot while more than one frame ahead, else run.
    pub fn next_slot(&mut self, frames_ahead: i32) -> FrameDecision {
        self.slots = self.slots.wrapping_add(1);
        self.since_skip = self.since_skip.saturating_add(1);
        if self.skip_debt > 0 && self.since_skip >= SKIP_SPACING {
            self.skip_debt -= 1;
            self.since_skip = 0;
            return FrameDecision::Skip;
        }
        if frames_ahead > 1 && self.slots.is_multiple_of(SLOWDOWN_EVERY) {
            self.since_skip = 0;
            return FrameDecision::Skip;
        }
        FrameDecision::Run
    }
}
/// Most frames the pacer lets pile up before it drops them (after a stall or a debugger pause).
const MAX_BACKLOG: u32 = 4;

impl FramePacer {
    /// A pacer at `fps` frames per second, first frame due now.
    ///
    /// # Panics
    /// If `fps` is zero.
    #[must_use]
    pub fn new(fps: u32) -> FramePacer {
        assert!(fps > 0, "fps must be positive");
        FramePacer {
            frame: Duration::from_secs(1) / fps,
            next: Instant::now(),
            skipper: FrameSkipper::default(),
        }
    }

    /// Adds `frames` to skip (from `GgrsEvent::WaitRecommendation`).
    pub fn recommend_wait(&mut self, frames: u32) {
        self.skipper.recommend_wait(frames);
    }

    /// Frames still to skip for wait recommendations.
    #[must_use]
    pub fn owed(&self) -> u32 {
        self.skipper.owed()
    }

    /// Whether a frame is due at `now`; if so the schedule moves on. `frames_ahead` is how far
    /// this peer runs ahead of the remote (0 or less: on time or behind).
    pub fn frame_due(&mut self, now: Instant, frames_ahead: i32) -> FrameDecision {
        if now < self.next {
            return FrameDecision::NotYet(self.next - now);
        }
        let backlog_limit = self.frame * MAX_BACKLOG;
        if now.duration_since(self.next) > backlog_limit {
            self.next = now; // do not try to catch up on a long pause all at once
        }
        // Stretch by 2.5 % per frame ahead, at most 10 %.
        let stretch = frames_ahead.clamp(0, 4) as u32;
        self.next += self.frame + self.frame * stretch / 40;
        // Being ahead is answered by the stretch: only recommended waits skip.
        self.skipper.next_slot(0)
    }
}

/// What the loop should do now.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FrameDecision {
    /// Simulate a frame.
    Run,
    /// A frame slot passes without simulating (honouring a wait recommendation).
    Skip,
    /// Nothing due for this long.
    NotYet(Duration),
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn frames_come_due_at_the_rate_and_stretch_when_ahead() {
        let mut p = FramePacer::new(60);
        let mut q = FramePacer::new(60);
        let t0 = Instant::now();
        assert_eq!(p.frame_due(t0, 0), FrameDecision::Run);
        assert!(matches!(p.frame_due(t0, 0), FrameDecision::NotYet(_)));
        let normal = p.next - t0;
        assert_eq!(q.frame_due(t0, 4), FrameDecision::Run);
        assert!(q.next - t0 > normal, "ahead: the next frame comes later");
        assert!(q.next - t0 <= normal + normal / 10 + Duration::from_micros(1));
    }

    #[test]
    fn wait_recommendations_are_spread_out() {
        let mut p = FramePacer::new(60);
        p.recommend_wait(2);
        let mut t = Instant::now();
        let mut decisions = Vec::new();
        for _ in 0..20 {
            t += Duration::from_millis(17);
            decisions.push(p.frame_due(t, 0));
        }
        let skips: Vec<usize> = decisions
            .iter()
            .enumerate()
            .filter(|(_, d)| **d == FrameDecision::Skip)
            .map(|(i, _)| i)
            .collect();
        assert_eq!(skips.len(), 2);
        assert!(skips[1] - skips[0] >= SKIP_SPACING as usize, "{skips:?}");
    }

    /// The slots a skipper lets pass among `n`, numbered from 1.
    fn skipped(s: &mut FrameSkipper, n: u32, ahead: impl Fn(u32) -> i32) -> Vec<u32> {
        (1..=n)
            .filter(|&slot| s.next_slot(ahead(slot)) == FrameDecision::Skip)
            .collect()
    }

    /// On time or one frame ahead every slot runs; more than one ahead, every tenth passes.
    #[test]
    fn a_skipper_slows_down_only_when_more_than_a_frame_ahead() {
        let mut s = FrameSkipper::default();
        assert_eq!(skipped(&mut s, 40, |_| 0), Vec::<u32>::new());
        assert_eq!(skipped(&mut s, 40, |_| 1), Vec::<u32>::new());
        let mut s = FrameSkipper::default();
        assert_eq!(skipped(&mut s, 35, |_| 2), [10, 20, 30]);
        let mut s = FrameSkipper::default();
        assert_eq!(
            skipped(&mut s, 25, |slot| if slot < 15 { 3 } else { 0 }),
            [10]
        );
    }

    /// A recommended wait of n is n skipped slots, the first after SKIP_SPACING slots and
    /// the next SKIP_SPACING after it; the largest recommendation holds, they do not add up.
    #[test]
    fn a_skipper_spreads_recommended_waits() {
        let mut s = FrameSkipper::default();
        s.recommend_wait(2);
        s.recommend_wait(1);
        assert_eq!(s.owed(), 2);
        assert_eq!(skipped(&mut s, 30, |_| 0), [6, 12]);
        assert_eq!(s.owed(), 0);
        // A slowdown skip also counts as the spacing's last skip.
        let mut s = FrameSkipper::default();
        assert_eq!(skipped(&mut s, 10, |_| 2), [10]);
        s.recommend_wait(1);
        assert_eq!(skipped(&mut s, 10, |_| 0), [16 - 10]);
    }
}
