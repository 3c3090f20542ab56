//! Smooth rollback corrections: when a rollback moves a fighter that was already drawn, the
//! drawn position glides from where it was shown to where it truly is over a few frames
//! instead of snapping. Presentation only — the simulation never sees it.
//!
//! On a frame whose ticks re-simulated history (a rollback), each fighter's new position is
//! compared with where its state before was heading (its old position plus its old velocity
//! for the ticks since); the difference becomes an offset added to the drawing, which fades by
//! a fixed share per frame. A new life or a jump of more than a tile snaps at once; so does
//! everything with the toggle (F4) off. The corrections are counted for the netcode panel.

use engine::{Tick, WorldSnapshot};
use glam::Vec2;

/// Below this many tiles a difference is not worth smoothing.
const NOTICE: f32 = 0.02;
/// Beyond this many tiles it is a teleport or respawn: snap.
const SNAP: f32 = 1.0;
/// Share of the offset kept from one frame to the next (≈ 6 frames to fade to a quarter).
const KEEP: f32 = 0.8;

/// Per-fighter drawing offsets that absorb rollback corrections.
#[derive(Clone, Debug, Default)]
pub struct Smoother {
    /// Smoothing on (F4 toggles it).
    pub enabled: bool,
    /// Corrections smoothed so far.
    pub corrections: u64,
    /// Per fighter: position, velocity and life generation at the tick last seen.
    last: Vec<(Vec2, Vec2, u32)>,
    last_tick: Tick,
    offsets: Vec<Vec2>,
}

impl Smoother {
    /// A smoother, on.
    #[must_use]
    pub fn new() -> Smoother {
        Smoother {
            enabled: true,
            ..Smoother::default()
        }
    }

    /// Takes the newest state after a frame's ticks. When `rolled_back` (the frame re-simulated
    /// history), each fighter's new position is compared with where its old state was heading
    /// (old position plus old velocity for the ticks since); a difference becomes an offset
    /// that then fades. Without a rollback the offsets only fade.
    pub fn update(&mut self, state: &WorldSnapshot, rolled_back: bool) {
        let n = state.players.len();
        self.offsets.resize(n, Vec2::ZERO);
        let ticks = state.tick.saturating_sub(self.last_tick) as f32;
        for (i, p) in state.players.iter().enumerate() {
            let pos = crate::interpolate::vec2(p.pos);
            let mut offset = self.offsets[i] * KEEP;
            if let Some(&(was, was_vel, generation)) = self.last.get(i) {
                let error = was + was_vel * ticks - pos;
                let snap = !self.enabled || generation != p.generation || error.length() > SNAP;
                if snap {
                    offset = Vec2::ZERO;
                } else if rolled_back && error.length() > NOTICE {
                    offset += error;
                    self.corrections += 1;
                }
            }
            if offset.length() < 0.002 {
                offset = Vec2::ZERO;
            }
            self.offsets[i] = offset;
        }
        self.last.clear();
        self.last.extend(state.players.iter().map(|p| {
            let at = crate::interpolate::vec2(p.pos);
            (at, crate::interpolate::vec2(p.vel), p.generation)
        }));
        self.last_tick = state.tick;
    }

    /// Where to draw each fighter: its true drawn position plus its offset.
    #[must_use]
    pub fn apply(&self, positions: &[Vec2]) -> Vec<Vec2> {
        positions
            .iter()
            .enumerate()
            .map(|(i, &at)| at + self.offsets.get(i).copied().unwrap_or(Vec2::ZERO))
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use engine::{Fx, FxVec, Rules, World};

    fn at(s: &mut WorldSnapshot, i: usize, x: f64, y: f64) {
        s.players[i].pos = FxVec::new(Fx::from_num(x), Fx::from_num(y));
        s.players[i].vel = FxVec::ZERO;
    }

    #[test]
    fn a_correction_glides_instead_of_snapping_and_is_counted() {
        let mut s = World::new(Rules::default(), 1, 2).unwrap().snapshot();
        at(&mut s, 0, 3.0, 3.0);
        let mut smoother = Smoother::new();
        smoother.update(&s, false);
        // A rollback moved fighter 0 half a tile: drawn where it was, then easing over.
        s.tick += 1;
        at(&mut s, 0, 3.5, 3.0);
        smoother.update(&s, true);
        let truth = Vec2::new(3.5, 3.0);
        let first = smoother.apply(&[truth, Vec2::ZERO])[0];
        assert!(
            (first - Vec2::new(3.0, 3.0)).length() < 0.01,
            "starts where shown: {first}"
        );
        assert_eq!(smoother.corrections, 1);
        let mut was = first;
        for _ in 0..40 {
            s.tick += 1;
            smoother.update(&s, false);
            let next = smoother.apply(&[truth, Vec2::ZERO])[0];
            assert!(
                next.x >= was.x - 1e-6 && next.x <= truth.x + 1e-6,
                "eases over"
            );
            was = next;
        }
        assert!((was - truth).length() < 0.01, "arrives: {was}");
        assert_eq!(smoother.corrections, 1, "easing is not a new correction");
    }

    #[test]
    fn motion_without_rollback_respawns_and_the_toggle_do_not_smooth() {
        let mut s = World::new(Rules::default(), 1, 2).unwrap().snapshot();
        at(&mut s, 0, 3.0, 3.0);
        let mut smoother = Smoother::new();
        smoother.update(&s, false);
        s.tick += 1;
        at(&mut s, 0, 3.3, 3.0);
        smoother.update(&s, false);
        let p = Vec2::new(3.3, 3.0);
        assert_eq!(smoother.apply(&[p])[0], p, "no rollback, no offset");
        // A respawn far away snaps, rollback or not.
        s.tick += 1;
        s.players[0].generation += 1;
        at(&mut s, 0, 15.0, 9.0);
        smoother.update(&s, true);
        assert_eq!(
            smoother.apply(&[Vec2::new(15.0, 9.0)])[0],
            Vec2::new(15.0, 9.0)
        );
        // With the toggle off, a correction snaps too.
        smoother.enabled = false;
        s.tick += 1;
        at(&mut s, 0, 15.4, 9.0);
        smoother.update(&s, true);
        assert_eq!(
            smoother.apply(&[Vec2::new(15.4, 9.0)])[0],
            Vec2::new(15.4, 9.0)
        );
        assert_eq!(smoother.corrections, 0);
    }
}
