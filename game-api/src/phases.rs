//! A step traced phase by phase: the state hash right after every phase, and the observers that
//! take it or inject a difference into one phase.

use crate::{Game, SectionHash, StepObserver, Tick};

/// The most phases a step may have ([`Game::PHASES`]).
pub const MAX_PHASES: usize = 16;

/// The state hash right after every phase of one step: `after[i]` follows `G::PHASES[i]`. A
/// fixed array, so tracing a step never allocates.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PhaseHashes<H> {
    /// The tick simulated (the state before the step was at this tick; after it, `tick + 1`).
    pub tick: Tick,
    after: [H; MAX_PHASES],
    len: u8,
}

impl<H: SectionHash> Default for PhaseHashes<H> {
    fn default() -> Self {
        PhaseHashes {
            tick: 0,
            after: [H::default(); MAX_PHASES],
            len: 0,
        }
    }
}

impl<H: SectionHash> PhaseHashes<H> {
    /// A trace of the step from `tick` with the hashes `after` (one per phase, in order).
    ///
    /// # Panics
    /// If there are more than [`MAX_PHASES`] hashes.
    #[must_use]
    pub fn new(tick: Tick, after: &[H]) -> PhaseHashes<H> {
        assert!(after.len() <= MAX_PHASES, "{} phases", after.len());
        let mut trace = PhaseHashes {
            tick,
            ..PhaseHashes::default()
        };
        trace.after[..after.len()].copy_from_slice(after);
        trace.len = after.len() as u8;
        trace
    }

    /// The hashes, one per phase in step order.
    #[must_use]
    pub fn after(&self) -> &[H] {
        &self.after[..usize::from(self.len)]
    }

    /// The hash right after phase `index` (the default hash past the last phase traced).
    #[must_use]
    pub fn after_phase(&self, index: usize) -> H {
        self.after().get(index).copied().unwrap_or_default()
    }

    /// The first phase (by index, in step order) after which the two traces differ, with the
    /// first section that differs then (`None` when only the combined hashes differ).
    #[must_use]
    pub fn first_difference(&self, other: &PhaseHashes<H>) -> Option<(usize, Option<usize>)> {
        let len = self.after().len().max(other.after().len());
        (0..len)
            .map(|i| (i, self.after_phase(i), other.after_phase(i)))
            .find(|(_, a, b)| a != b)
            .map(|(i, a, b)| (i, a.first_difference(&b)))
    }
}

/// Hashes the state after every phase (see [`Game::step_traced`]).
#[derive(Debug)]
pub struct PhaseTracer<H> {
    trace: PhaseHashes<H>,
}

impl<H: SectionHash> PhaseTracer<H> {
    /// A tracer for the step from `tick`.
    #[must_use]
    pub fn new(tick: Tick) -> PhaseTracer<H> {
        PhaseTracer {
            trace: PhaseHashes {
                tick,
                ..PhaseHashes::default()
            },
        }
    }

    /// The hashes taken.
    #[must_use]
    pub fn finish(self) -> PhaseHashes<H> {
        self.trace
    }
}

impl<G: Game> StepObserver<G> for PhaseTracer<G::Hash> {
    fn after_phase(&mut self, index: usize, game: &mut G) {
        if let Some(slot) = self.trace.after.get_mut(index) {
            *slot = game.state_hash();
            self.trace.len = self.trace.len.max(index as u8 + 1);
        }
    }
}

/// The desync tools' injection: [`Game::debug_perturb`] right after phase `after` (an index
/// into [`Game::PHASES`]), then whatever `inner` observes.
#[derive(Debug)]
pub struct Perturb<O> {
    /// The phase after which the game is perturbed.
    pub after: usize,
    /// The observer that runs after the perturbation (a tracer, or `()`).
    pub inner: O,
}

impl<G: Game, O: StepObserver<G>> StepObserver<G> for Perturb<O> {
    fn after_phase(&mut self, index: usize, game: &mut G) {
        if index == self.after {
            game.debug_perturb();
        }
        self.inner.after_phase(index, game);
    }
}
