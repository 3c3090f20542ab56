//! Fixed-rate frame pacing with smooth slow-down when ahead of the remote peer.
//!
//! Frames are due every `1/fps`. When GGRS reports this peer ahead of the other, each frame is
//! stretched a little (up to 10 %) instead of stopping, so the peers converge without a visible
//! hitch; a `WaitRecommendation` of `n` frames is honoured by skipping `n` frames spread one
//! every few frames, never several in a row in the middle of a motion.

use std::time::{Duration, Instant};

/// Decides when the next simulation frame is due.
#[derive(Debug, Clone)]
pub struct FramePacer {
    frame: Duration,
    next: Instant,
    skip_debt: u32,
    since_skip: u32,
}

/// Frames between two recommended skips.
const SKIP_SPACING: u32 = 6;
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
            skip_debt: 0,
            since_skip: 0,
        }
    }

    /// Adds `frames` to skip (from `GgrsEvent::WaitRecommendation`).
    pub fn recommend_wait(&mut self, frames: u32) {
        self.skip_debt = self.skip_debt.max(frames);
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
        self.since_skip += 1;
        if self.skip_debt > 0 && self.since_skip >= SKIP_SPACING {
            self.skip_debt -= 1;
            self.since_skip = 0;
            return FrameDecision::Skip;
        }
        FrameDecision::Run
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
}
