//! `Clearance`: how long each projectile is known to stay far from every player it can hit.
//!
//! A cache, not state: it only spares work, never changes an outcome, so it is not in the
//! snapshot; every restore empties it, and a world with an empty one plays exactly as one
//! with a full one (tests/determinism/wall_counts.rs steps both side by side, and a world
//! that tests every projectile against every player every step).
//!
//! The projectile phase tests each projectile against the players it can hit with a box test
//! (`swept_circle_far`): along one axis, far means `|f| > r + |d|`, with `f` the projectile's
//! offset from the player, `r` the reach and `d` the projectile's step. The amount by which
//! a far projectile clears that test, its *margin*, can only shrink by how much the offset
//! changes: by the projectile's own step and by how far the player moves. So the cache keeps
//! one running total, `travel`, that grows at every projectile phase by
//! - the most any player that can be hit moved since the last projectile phase, measured
//!   (not bounded by the rules: a push, a knock-back, a respawn or a debug nudge are counted
//!   as they happened), and
//! - `fastest`, at least the step of every projectile holding a clearance;
//!
//! and a projectile far by margin `m` when `travel` was `T` stays far while `travel < T + m`.
//! Until then its step is only a move and no player test is run.
//!
//! Whenever the set of players that can be hit changes (a KO, a respawn, a fight starting),
//! every clearance is dropped: they are recomputed at the next test.

use crate::player::MAX_PLAYERS;
use crate::projectile::Projectile;

/// A player that can be hit, as the cache remembers it between projectile phases.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Target {
    /// Slot and life generation: which player, which life.
    pub(crate) slot: u32,
    pub(crate) generation: u32,
    /// Centre, raw 16.16 bits.
    pub(crate) x: i32,
    pub(crate) y: i32,
}

/// The cache (see the module documentation).
#[derive(Clone, Debug, Default)]
pub(crate) struct Clearance {
    /// Parallel to the state's projectiles: the value of `travel` below which each is known
    /// far from every player it can hit (0: not known).
    until: Vec<u64>,
    travel: u64,
    fastest: u64,
    /// The players that could be hit at the last projectile phase (the first `last_len`),
    /// if `known`.
    last: [Target; MAX_PLAYERS],
    last_len: usize,
    known: bool,
}

impl Clearance {
    /// Forgets everything, for `projectiles` none of which is known far. Holds room for as
    /// many as their buffer does, so a step that spawns into that room does not allocate.
    pub(crate) fn reset(&mut self, projectiles: &Vec<Projectile>) {
        self.until.clear();
        self.until.reserve(projectiles.capacity());
        self.until.resize(projectiles.len(), 0);
        self.travel = 0;
        self.fastest = 0;
        self.known = false;
    }

    /// A projectile was appended to the state's list.
    pub(crate) fn spawned(&mut self) {
        self.until.push(0);
    }

    /// The state's projectiles were filtered by `keep`, in order (the removal phase): the
    /// same filter, over the same list, keeps the clearances in step with them.
    pub(crate) fn retain_with(&mut self, projectiles: &mut Vec<Projectile>) {
        debug_assert_eq!(self.until.len(), projectiles.len());
        let mut kept = 0;
        for i in 0..projectiles.len() {
            if projectiles[i].life > 0 {
                projectiles[kept] = projectiles[i];
                self.until[kept] = self.until[i];
                kept += 1;
            }
        }
        projectiles.truncate(kept);
        self.until.truncate(kept);
    }

    /// Starts a projectile phase against `targets`, the players that can be hit now: grows
    /// `travel` by what they moved since the last phase and by `fastest`, or drops every
    /// clearance if they are not the same players as then.
    pub(crate) fn begin_phase(&mut self, targets: &[Target]) {
        let mut same = self.known && self.last_len == targets.len();
        let mut moved = 0u64;
        for (last, now) in self.last.iter_mut().zip(targets) {
            same &= (last.slot, last.generation) == (now.slot, now.generation);
            let step = last.x.abs_diff(now.x).max(last.y.abs_diff(now.y));
            moved = moved.max(u64::from(step));
            *last = *now;
        }
        if !same {
            self.until.fill(0);
            moved = 0;
        }
        self.last_len = targets.len();
        self.known = true;
        self.travel = self
            .travel
            .saturating_add(moved)
            .saturating_add(self.fastest);
    }

    /// The clearances of the projectiles from index `from` on.
    pub(crate) fn from(&mut self, from: usize) -> Window<'_> {
        Window {
            until: &mut self.until[from..],
            travel: self.travel,
            fastest: &mut self.fastest,
        }
    }
}

/// The clearances of a run of projectiles, as the projectile loop reads them.
pub(crate) struct Window<'a> {
    until: &'a mut [u64],
    travel: u64,
    fastest: &'a mut u64,
}

impl Window<'_> {
    /// Whether projectile `i` of the run is known far from every player it can hit.
    #[inline(always)]
    pub(crate) fn known_far(&self, i: usize) -> bool {
        self.travel < self.until[i]
    }

    /// Projectile `i` of the run, stepping by `step` (raw bits, each axis), was just found
    /// far from every player it can hit by `margin` (> 0, raw 16.16; `u64::MAX` when there
    /// is none to hit).
    #[inline(always)]
    pub(crate) fn found_far(&mut self, i: usize, margin: u64, step: (i64, i64)) {
        self.until[i] = self.travel.saturating_add(margin);
        let speed = step.0.unsigned_abs().max(step.1.unsigned_abs());
        *self.fastest = (*self.fastest).max(speed);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn target(slot: u32, generation: u32, x: i32, y: i32) -> Target {
        Target {
            slot,
            generation,
            x,
            y,
        }
    }

    fn projectile(id: u32, life: u16) -> Projectile {
        Projectile {
            id,
            life,
            ..bytemuck::Zeroable::zeroed()
        }
    }

    /// A cache for one projectile stepping `speed` (raw) on its larger axis, found far by
    /// `margin` in a first phase against `targets`.
    fn holding(targets: &[Target], margin: u64, speed: i64) -> Clearance {
        let mut c = Clearance::default();
        c.reset(&vec![projectile(0, 5)]);
        c.begin_phase(targets);
        let mut w = c.from(0);
        assert!(!w.known_far(0), "nothing is known after a reset");
        w.found_far(0, margin, (speed, speed / 2));
        assert!(w.known_far(0));
        c
    }

    /// Travel grows by the most any target moved (on its larger axis) plus the fastest
    /// step: a margin of 100 lasts while that sum stays below it.
    #[test]
    fn travel_grows_by_the_largest_move_and_the_fastest_step() {
        let still = [target(0, 1, 0, 0), target(1, 1, 500, 500)];
        let mut c = holding(&still, 100, -30);
        c.begin_phase(&still);
        assert!(c.from(0).known_far(0), "30 of 100");
        c.begin_phase(&[target(0, 1, 0, 39), target(1, 1, 500, 500)]);
        assert!(c.from(0).known_far(0), "30 + 39 + 30 = 99 of 100");
        c.begin_phase(&[target(0, 1, 0, 39), target(1, 1, 499, 500)]);
        assert!(!c.from(0).known_far(0), "99 + 1 + 30 = 130");
    }

    /// Another player, another life, one more or one fewer: every clearance is dropped,
    /// however little anyone moved; so after a reset, which forgets the targets.
    #[test]
    fn a_change_of_who_can_be_hit_drops_every_clearance() {
        let two = [target(0, 1, 0, 0), target(1, 1, 500, 500)];
        let changes: [&[Target]; 5] = [
            &[target(0, 1, 0, 0), target(2, 1, 500, 500)],
            &[target(0, 1, 0, 0), target(1, 2, 500, 500)],
            &[target(0, 2, 0, 0), target(1, 1, 500, 500)],
            &[target(0, 1, 0, 0)],
            &[
                target(0, 1, 0, 0),
                target(1, 1, 500, 500),
                target(2, 1, 900, 900),
            ],
        ];
        for now in changes {
            let mut c = holding(&two, 1 << 20, 0);
            c.begin_phase(now);
            assert!(!c.from(0).known_far(0), "{now:?}");
        }
        // From none to the same two again (the entries kept from before match them).
        let mut c = holding(&two, 1 << 20, 0);
        c.begin_phase(&[]);
        c.from(0).found_far(0, 1 << 20, (0, 0));
        c.begin_phase(&two);
        assert!(!c.from(0).known_far(0), "the fight starting again");
        // A reset, then the same two.
        let mut c = holding(&two, 1 << 20, 0);
        c.reset(&vec![projectile(0, 5)]);
        c.from(0).found_far(0, 1 << 20, (0, 0));
        c.begin_phase(&two);
        assert!(
            !c.from(0).known_far(0),
            "after a reset the targets are unknown"
        );
    }

    /// The removal phase's filter keeps each clearance with its projectile; a projectile
    /// spawned after is not known far.
    #[test]
    fn clearances_follow_their_projectiles_through_a_removal() {
        let mut c = Clearance::default();
        let mut projectiles: Vec<Projectile> = (0..4)
            .map(|id| projectile(id, if id == 1 { 0 } else { 5 }))
            .collect();
        c.reset(&projectiles);
        c.until.copy_from_slice(&[10, 11, 12, 13]);
        c.retain_with(&mut projectiles);
        let ids: Vec<u32> = projectiles.iter().map(|p| p.id).collect();
        assert_eq!(ids, [0, 2, 3]);
        assert_eq!(c.until, [10, 12, 13]);
        c.spawned();
        assert_eq!(c.until, [10, 12, 13, 0]);
    }
}
