//! Smooth rollback corrections: when a rollback moves a fighter or a projectile that was
//! already drawn, the drawn position glides from where it was shown to where it truly is over
//! a few frames instead of snapping. Presentation only — the simulation never sees it.
//!
//! On a frame whose ticks re-simulated history (a rollback), each fighter's new position is
//! compared with where its state before was heading (its old position plus its old velocity
//! for the ticks since); the difference becomes an offset added to the drawing, which fades by
//! a fixed share per frame. Projectiles are matched by id *and* owner (a mispredicted shot can
//! leave its id to another player's real one, which must not glide out of the wrong muzzle);
//! one that is new after the rollback simply appears. A new life or a jump of more than a tile
//! snaps at once; so does everything with the toggle (F4) off. The corrections are counted for
//! the netcode panel.

use crate::present::interpolate::vec2;
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
    /// Every projectile at the tick last seen, in the state's order: id, owner, position,
    /// velocity.
    last_projectiles: Vec<(u32, u8, Vec2, Vec2)>,
    /// Projectiles with an offset: id and offset (only live ones, only non-zero ones), in
    /// ascending id order.
    projectile_offsets: Vec<(u32, Vec2)>,
    /// The buffer the next frame's offsets are built in (kept to avoid an allocation a frame).
    spare_offsets: Vec<(u32, Vec2)>,
}

/// The offset after one more frame: `carried` faded, plus the correction between where the
/// thing was heading (`was` + `was_vel` × `ticks`) and where it is (`now`) when the frame
/// rolled back; `None` means snap (off, or a jump too long to be a correction).
fn next_offset(
    enabled: bool,
    carried: Vec2,
    heading: Vec2,
    now: Vec2,
    rolled_back: bool,
) -> (Vec2, bool) {
    let error = heading - now;
    if !enabled || error.length() > SNAP {
        return (Vec2::ZERO, false);
    }
    let mut offset = carried * KEEP;
    let corrected = rolled_back && error.length() > NOTICE;
    if corrected {
        offset += error;
    }
    if offset.length() < 0.002 {
        offset = Vec2::ZERO;
    }
    (offset, corrected)
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
            let pos = vec2(p.pos);
            let mut offset = Vec2::ZERO;
            if let Some(&(was, was_vel, generation)) = self.last.get(i) {
                if generation == p.generation {
                    let heading = was + was_vel * ticks;
                    let (next, corrected) =
                        next_offset(self.enabled, self.offsets[i], heading, pos, rolled_back);
                    offset = next;
                    self.corrections += u64::from(corrected);
                }
            }
            self.offsets[i] = offset;
        }
        self.last.clear();
        self.last
            .extend((state.players.iter()).map(|p| (vec2(p.pos), vec2(p.vel), p.generation)));
        // Both lists are in the state's order, which is spawn order: ids ascend, so lookups are
        // binary searches (thousands of projectiles would make linear ones quadratic per frame).
        // The previous frame's offsets are read while this frame's are built into the spare.
        let mut offsets = std::mem::take(&mut self.spare_offsets);
        offsets.clear();
        for shot in &state.projectiles {
            let was = (self.last_projectiles)
                .binary_search_by_key(&shot.id, |&(id, ..)| id)
                .ok()
                .map(|at| self.last_projectiles[at])
                .filter(|&(_, owner, ..)| owner == shot.owner);
            let Some((_, _, was, was_vel)) = was else {
                continue; // new: it appears where it is
            };
            let carried = self.projectile_offset(shot.id);
            let heading = was + was_vel * ticks;
            let (offset, corrected) =
                next_offset(self.enabled, carried, heading, vec2(shot.pos), rolled_back);
            self.corrections += u64::from(corrected);
            if offset != Vec2::ZERO {
                offsets.push((shot.id, offset));
            }
        }
        self.spare_offsets = std::mem::replace(&mut self.projectile_offsets, offsets);
        self.last_projectiles.clear();
        self.last_projectiles
            .extend((state.projectiles.iter()).map(|p| (p.id, p.owner, vec2(p.pos), vec2(p.vel))));
        self.last_tick = state.tick;
    }

    /// What to add to where projectile `id` is drawn (zero for most).
    #[must_use]
    pub fn projectile_offset(&self, id: u32) -> Vec2 {
        (self.projectile_offsets)
            .binary_search_by_key(&id, |&(p, _)| p)
            .map_or(Vec2::ZERO, |at| self.projectile_offsets[at].1)
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

    fn with_shot(s: &mut WorldSnapshot, id: u32, owner: u8, x: f64, vx: f64) {
        let shot = engine::Projectile {
            id,
            owner_generation: 1,
            pos: FxVec::new(Fx::from_num(x), Fx::from_num(4)),
            vel: FxVec::new(Fx::from_num(vx), Fx::ZERO),
            life: 60,
            owner,
            wall_clear: 0,
        };
        s.projectiles.retain(|p| p.id != id);
        s.projectiles.push(shot);
        s.projectiles.sort_by_key(|p| p.id); // spawn order, as in a real state
    }

    /// The offset glides down over frames instead of vanishing at once.
    #[test]
    fn a_projectile_offset_fades_over_frames_not_at_once() {
        let mut s = World::new(Rules::default(), 1, 2).unwrap().snapshot();
        s.projectiles.clear();
        with_shot(&mut s, 3, 1, 5.0, 0.25);
        with_shot(&mut s, 7, 1, 5.0, 0.25);
        let mut smoother = Smoother::new();
        smoother.update(&s, false);
        s.tick += 1;
        with_shot(&mut s, 3, 1, 5.25, 0.25);
        with_shot(&mut s, 7, 1, 5.55, 0.25);
        smoother.update(&s, true);
        s.tick += 1;
        with_shot(&mut s, 3, 1, 5.5, 0.25);
        with_shot(&mut s, 7, 1, 5.8, 0.25);
        smoother.update(&s, false);
        let o = smoother.projectile_offset(7).x;
        assert!((o + 0.3 * KEEP).abs() < 0.01, "faded by one share: {o}");
        assert_eq!(smoother.projectile_offset(3), Vec2::ZERO);
    }

    /// A rollback that moves a projectile already drawn (the remote shot was fired a tick
    /// earlier than predicted) eases it over; its owner's other shots and a shot that only
    /// took a mispredicted shot's id are not touched.
    #[test]
    fn a_corrected_projectile_glides_and_one_with_another_owner_does_not() {
        let mut s = World::new(Rules::default(), 1, 2).unwrap().snapshot();
        s.projectiles.clear();
        with_shot(&mut s, 7, 1, 5.0, 0.25);
        with_shot(&mut s, 8, 0, 2.0, 0.25);
        let mut smoother = Smoother::new();
        smoother.update(&s, false);
        s.tick += 1;
        // The truth: shot 7 is 0.3 tiles further on; shot 8 is now another player's shot.
        with_shot(&mut s, 7, 1, 5.55, 0.25);
        with_shot(&mut s, 8, 1, 9.0, 0.25);
        smoother.update(&s, true);
        let o = smoother.projectile_offset(7);
        assert!((o - Vec2::new(-0.3, 0.0)).length() < 0.01, "{o}");
        assert_eq!(smoother.projectile_offset(8), Vec2::ZERO, "another owner");
        assert_eq!(smoother.corrections, 1);
        let mut was = o.length();
        for x in 1..40 {
            s.tick += 1;
            with_shot(&mut s, 7, 1, 5.55 + 0.25 * f64::from(x), 0.25);
            smoother.update(&s, false);
            let now = smoother.projectile_offset(7).length();
            assert!(now <= was, "fades");
            was = now;
        }
        assert_eq!(was, 0.0, "arrives");
        assert_eq!(smoother.corrections, 1);
        // Gone: its offset goes with it.
        s.projectiles.clear();
        smoother.update(&s, true);
        assert_eq!(smoother.projectile_offset(7), Vec2::ZERO);
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

    /// Something moving as its state said it would, over several ticks between two frames,
    /// gets no offset from a rollback: where it was heading is its position plus its
    /// velocity for every tick since.
    #[test]
    fn motion_as_predicted_over_several_ticks_is_no_correction() {
        let mut s = World::new(Rules::default(), 1, 2).unwrap().snapshot();
        s.projectiles.clear();
        at(&mut s, 0, 3.0, 3.0);
        s.players[0].vel = FxVec::new(Fx::from_num(0.125), Fx::ZERO);
        with_shot(&mut s, 4, 0, 5.0, 0.125);
        let mut smoother = Smoother::new();
        smoother.update(&s, false);
        s.tick += 3;
        s.players[0].pos = FxVec::new(Fx::from_num(3.375), Fx::from_num(3));
        with_shot(&mut s, 4, 0, 5.375, 0.125);
        smoother.update(&s, true);
        let p = Vec2::new(3.375, 3.0);
        assert_eq!(smoother.apply(&[p])[0], p);
        assert_eq!(smoother.projectile_offset(4), Vec2::ZERO);
        assert_eq!(smoother.corrections, 0);
    }

    /// The thresholds, exactly: a correction of exactly a tile still glides, more snaps; one
    /// of exactly `NOTICE` is not worth smoothing, just above it is; an offset fading to
    /// exactly the cut-off is still drawn, below it is dropped.
    #[test]
    fn corrections_at_the_thresholds() {
        let here = Vec2::ZERO;
        let heading = |x: f32| Vec2::new(x, 0.0);
        assert_eq!(heading(SNAP).length(), SNAP, "the lengths below are exact");
        assert_eq!(
            next_offset(true, Vec2::ZERO, heading(SNAP), here, true),
            (heading(SNAP), true)
        );
        assert_eq!(
            next_offset(true, Vec2::ZERO, heading(1.5), here, true),
            (Vec2::ZERO, false)
        );
        assert_eq!(heading(NOTICE).length(), NOTICE);
        assert_eq!(
            next_offset(true, Vec2::ZERO, heading(NOTICE), here, true),
            (Vec2::ZERO, false)
        );
        let above = heading(NOTICE * 1.01);
        assert_eq!(
            next_offset(true, Vec2::ZERO, above, here, true),
            (above, true)
        );
        let carried = Vec2::new(0.0025, 0.0);
        assert_eq!(
            (carried * KEEP).length(),
            0.002,
            "fades to exactly the cut-off"
        );
        assert_eq!(
            next_offset(true, carried, here, here, false),
            (carried * KEEP, false)
        );
        assert_eq!(
            next_offset(true, carried * 0.99, here, here, false),
            (Vec2::ZERO, false)
        );
    }
}
