//! Ring buffers of past ticks: inputs to replay from, snapshots to roll back to.
//!
//! A ring of capacity `n` stores tick `t` in slot `t % n`, so tick `t` and tick `t + n` share a
//! slot. Every slot therefore remembers the full tick it holds and whether it holds anything;
//! asking for a tick whose slot has since been reused is an error, never another tick's data.

use crate::{Game, Tick};

/// Why a ring has nothing for the tick asked for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum RingError {
    /// A slot that once held the tick asked for has been reused for a newer tick.
    #[error("tick {requested} is no longer in history (its slot now holds tick {held})")]
    Overwritten {
        /// The tick asked for.
        requested: Tick,
        /// The tick now in that slot.
        held: Tick,
    },
    /// A tick that was never recorded (or was forgotten after a rollback).
    #[error("tick {requested} was never recorded in history")]
    NotRecorded {
        /// The tick asked for.
        requested: Tick,
    },
}

#[derive(Debug, Clone)]
struct Slot<T> {
    tick: Tick,
    valid: bool,
    value: T,
}

/// A fixed-capacity ring of values keyed by tick.
#[derive(Debug, Clone)]
pub struct TickRing<T> {
    slots: Vec<Slot<T>>,
}

impl<T: Clone + Default> TickRing<T> {
    /// A ring holding the last `capacity` ticks.
    ///
    /// # Panics
    /// If `capacity` is zero.
    #[must_use]
    pub fn new(capacity: usize) -> TickRing<T> {
        assert!(capacity > 0, "a tick ring needs at least one slot");
        TickRing {
            slots: vec![
                Slot {
                    tick: 0,
                    valid: false,
                    value: T::default()
                };
                capacity
            ],
        }
    }
}

impl<T> TickRing<T> {
    /// How many ticks the ring holds.
    #[must_use]
    pub fn capacity(&self) -> usize {
        self.slots.len()
    }

    fn index(&self, tick: Tick) -> usize {
        let len = self.slots.len();
        // Every lookup of a rollback frame comes here, several per tick: a power-of-two
        // capacity (the drivers' default) takes a mask instead of a division.
        if len.is_power_of_two() {
            tick as usize & (len - 1)
        } else {
            (u64::from(tick) % len as u64) as usize
        }
    }

    /// The slot for `tick`, marked as holding it, for the caller to fill in place (so a value
    /// with buffers, like a snapshot, is overwritten without allocating).
    pub fn slot_mut(&mut self, tick: Tick) -> &mut T {
        let i = self.index(tick);
        let slot = &mut self.slots[i];
        slot.tick = tick;
        slot.valid = true;
        &mut slot.value
    }

    /// Stores `value` for `tick`, replacing whatever shared its slot.
    pub fn insert(&mut self, tick: Tick, value: T) {
        *self.slot_mut(tick) = value;
    }

    /// The value recorded for `tick`.
    ///
    /// # Errors
    /// [`RingError::Overwritten`] if the slot now holds another tick,
    /// [`RingError::NotRecorded`] if it never held one.
    pub fn get(&self, tick: Tick) -> Result<&T, RingError> {
        let slot = &self.slots[self.index(tick)];
        match (slot.valid, slot.tick == tick) {
            (true, true) => Ok(&slot.value),
            (true, false) => Err(RingError::Overwritten {
                requested: tick,
                held: slot.tick,
            }),
            (false, _) => Err(RingError::NotRecorded { requested: tick }),
        }
    }

    /// The value recorded for `tick`, to change in place.
    ///
    /// # Errors
    /// As [`TickRing::get`].
    pub fn get_mut(&mut self, tick: Tick) -> Result<&mut T, RingError> {
        self.get(tick)?;
        let i = self.index(tick);
        Ok(&mut self.slots[i].value)
    }

    /// Forgets every tick after `tick` (after a rollback they are no longer true history).
    pub fn invalidate_after(&mut self, tick: Tick) {
        for slot in &mut self.slots {
            if slot.valid && slot.tick > tick {
                slot.valid = false;
            }
        }
    }
}

/// Snapshots of a game's recent ticks, to roll back to and to compare predicted with
/// confirmed states. Each slot's snapshot is overwritten in place ([`Game::save_into`]), so
/// once every slot has been filled saving does not allocate.
#[derive(Debug, Clone)]
pub struct StateHistory<G: Game> {
    ring: TickRing<Option<G::Snapshot>>,
}

impl<G: Game> StateHistory<G> {
    /// A history of the last `capacity` ticks.
    ///
    /// # Panics
    /// If `capacity` is zero.
    #[must_use]
    pub fn new(capacity: usize) -> StateHistory<G> {
        StateHistory {
            ring: TickRing::new(capacity),
        }
    }

    /// Saves the game's current state under its tick, reusing the slot's buffers.
    pub fn save(&mut self, game: &G) {
        match self.ring.slot_mut(game.tick()) {
            Some(snapshot) => game.save_into(snapshot),
            empty => *empty = Some(game.snapshot()),
        }
    }

    /// The snapshot saved for `tick`.
    ///
    /// # Errors
    /// As [`TickRing::get`].
    pub fn get(&self, tick: Tick) -> Result<&G::Snapshot, RingError> {
        self.ring
            .get(tick)
            .and_then(|s| s.as_ref().ok_or(RingError::NotRecorded { requested: tick }))
    }

    /// The snapshot saved for `tick`, to change in place (or to exchange with another, which
    /// copies nothing).
    ///
    /// # Errors
    /// As [`TickRing::get`].
    pub fn get_mut(&mut self, tick: Tick) -> Result<&mut G::Snapshot, RingError> {
        self.ring
            .get_mut(tick)?
            .as_mut()
            .ok_or(RingError::NotRecorded { requested: tick })
    }

    /// Forgets every tick after `tick`.
    pub fn invalidate_after(&mut self, tick: Tick) {
        self.ring.invalidate_after(tick);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn overwritten_slot_is_an_error_not_another_ticks_data() {
        let mut ring: TickRing<u32> = TickRing::new(4);
        ring.insert(5, 50);
        assert_eq!(ring.get(5), Ok(&50));
        ring.insert(9, 90); // same slot as 5
        assert_eq!(ring.get(9), Ok(&90));
        for requested in [5, 13] {
            assert_eq!(
                ring.get(requested),
                Err(RingError::Overwritten { requested, held: 9 })
            );
        }
    }

    #[test]
    fn a_value_changed_in_place_is_read_back_and_only_for_its_tick() {
        let mut ring: TickRing<u32> = TickRing::new(4);
        ring.insert(5, 50);
        *ring.get_mut(5).expect("recorded") += 1;
        assert_eq!(ring.get(5), Ok(&51));
        assert_eq!(
            ring.get_mut(9),
            Err(RingError::Overwritten {
                requested: 9,
                held: 5
            })
        );
        assert_eq!(
            ring.get_mut(6),
            Err(RingError::NotRecorded { requested: 6 })
        );
    }

    #[test]
    fn never_recorded_tick_is_an_error() {
        let ring: TickRing<u32> = TickRing::new(4);
        assert_eq!(ring.get(0), Err(RingError::NotRecorded { requested: 0 }));
    }

    #[test]
    fn invalidate_after_forgets_the_future_only() {
        let mut ring: TickRing<u32> = TickRing::new(8);
        for t in 0..6 {
            ring.insert(t, t * 10);
        }
        ring.invalidate_after(3);
        assert_eq!(ring.get(3), Ok(&30));
        assert_eq!(ring.get(4), Err(RingError::NotRecorded { requested: 4 }));
    }

    /// Powers of two (indexed by a mask) and other capacities (by a division) alike, from
    /// tick 0 and up to the last tick there is.
    #[test]
    fn a_ring_holds_as_many_ticks_as_its_capacity() {
        for capacity in [1, 2, 3, 5, 8, 64, 66] {
            let span = capacity as Tick * 3;
            for first in [0, Tick::MAX - span] {
                let mut ring: TickRing<u32> = TickRing::new(capacity);
                assert_eq!(ring.capacity(), capacity);
                let last = first + span;
                for t in first..=last {
                    ring.insert(t, t);
                    assert_eq!(ring.index(t), (t % capacity as Tick) as usize);
                }
                let oldest = last - (capacity as Tick - 1);
                for t in oldest..=last {
                    assert_eq!(ring.get(t), Ok(&t));
                }
                assert!(ring.get(oldest - 1).is_err());
            }
        }
    }
}
