//! Ring buffers of past ticks: inputs to replay from, snapshots to roll back to.
//!
//! A ring of capacity `n` stores tick `t` in slot `t % n`, so tick `t` and tick `t + n` share a
//! slot. Every slot therefore remembers the full tick it holds and whether it holds anything;
//! asking for a tick whose slot has since been reused is an error, never another tick's data.

use crate::error::Error;
use crate::input::InputCmd;
use crate::player::MAX_PLAYERS;
use crate::snapshot::WorldSnapshot;
use crate::world::World;
use crate::Tick;

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
        (u64::from(tick) % self.slots.len() as u64) as usize
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
    /// [`Error::Overwritten`] if the slot now holds another tick, [`Error::NotRecorded`] if it
    /// never held one.
    pub fn get(&self, tick: Tick) -> Result<&T, Error> {
        let slot = &self.slots[self.index(tick)];
        match (slot.valid, slot.tick == tick) {
            (true, true) => Ok(&slot.value),
            (true, false) => Err(Error::Overwritten {
                requested: tick,
                held: slot.tick,
            }),
            (false, _) => Err(Error::NotRecorded { requested: tick }),
        }
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

/// All players' inputs for one tick.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct TickInputs {
    /// Inputs in slot order; only the first `count` are meaningful.
    pub inputs: [InputCmd; MAX_PLAYERS],
    /// Number of players.
    pub count: u8,
}

impl TickInputs {
    /// Wraps a slice of one input per player.
    ///
    /// # Panics
    /// If there are more than [`MAX_PLAYERS`] inputs.
    #[must_use]
    pub fn from_slice(inputs: &[InputCmd]) -> TickInputs {
        let mut all = [InputCmd::default(); MAX_PLAYERS];
        all[..inputs.len()].copy_from_slice(inputs);
        TickInputs {
            inputs: all,
            count: inputs.len() as u8,
        }
    }

    /// The inputs as a slice, ready for `World::step`.
    #[must_use]
    pub fn as_slice(&self) -> &[InputCmd] {
        &self.inputs[..usize::from(self.count)]
    }
}

/// Inputs of recent ticks, to re-simulate from a rollback point.
pub type InputBuffer = TickRing<TickInputs>;

/// Snapshots of recent ticks, to roll back to and to compare predicted with confirmed states.
#[derive(Debug, Clone)]
pub struct StateHistory {
    ring: TickRing<Option<WorldSnapshot>>,
}

impl StateHistory {
    /// A history of the last `capacity` ticks.
    #[must_use]
    pub fn new(capacity: usize) -> StateHistory {
        StateHistory {
            ring: TickRing::new(capacity),
        }
    }

    /// Saves the world's current state under its tick, reusing the slot's buffers.
    pub fn save(&mut self, world: &World) {
        match self.ring.slot_mut(world.tick()) {
            Some(snapshot) => world.save_into(snapshot),
            empty => *empty = Some(world.snapshot()),
        }
    }

    /// The snapshot saved for `tick`.
    ///
    /// # Errors
    /// As [`TickRing::get`].
    pub fn get(&self, tick: Tick) -> Result<&WorldSnapshot, Error> {
        self.ring
            .get(tick)
            .map(|s| s.as_ref().expect("a valid slot always holds a snapshot"))
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
        assert_eq!(
            ring.get(5),
            Err(Error::Overwritten {
                requested: 5,
                held: 9
            })
        );
        assert_eq!(
            ring.get(13),
            Err(Error::Overwritten {
                requested: 13,
                held: 9
            })
        );
    }

    #[test]
    fn never_recorded_tick_is_an_error() {
        let ring: TickRing<u32> = TickRing::new(4);
        assert_eq!(ring.get(0), Err(Error::NotRecorded { requested: 0 }));
    }

    #[test]
    fn invalidate_after_forgets_the_future_only() {
        let mut ring: TickRing<u32> = TickRing::new(8);
        for t in 0..6 {
            ring.insert(t, t * 10);
        }
        ring.invalidate_after(3);
        assert_eq!(ring.get(3), Ok(&30));
        assert_eq!(ring.get(4), Err(Error::NotRecorded { requested: 4 }));
    }

    #[test]
    fn a_ring_holds_as_many_ticks_as_its_capacity() {
        for capacity in [1, 2, 8] {
            let mut ring: TickRing<u32> = TickRing::new(capacity);
            assert_eq!(ring.capacity(), capacity);
            let last = capacity as Tick * 3;
            for t in 0..=last {
                ring.insert(t, t);
            }
            let oldest = last + 1 - capacity as Tick;
            for t in oldest..=last {
                assert_eq!(ring.get(t), Ok(&t));
            }
            assert!(ring.get(oldest - 1).is_err());
        }
    }

    #[test]
    fn tick_inputs_give_back_exactly_the_inputs_they_wrap() {
        let inputs: Vec<InputCmd> = (0..3)
            .map(|slot| InputCmd {
                buttons: slot + 1,
                move_x: 10 * slot as i8 - 5,
                ..InputCmd::idle(7)
            })
            .collect();
        let wrapped = TickInputs::from_slice(&inputs);
        assert_eq!(wrapped.count, 3);
        assert_eq!(wrapped.as_slice(), inputs.as_slice());
        assert!(TickInputs::from_slice(&[]).as_slice().is_empty());
    }

    #[test]
    fn state_history_forgets_the_future_after_a_rollback() {
        let mut world = World::new(crate::Rules::default(), 1, 2).expect("world");
        let mut history = StateHistory::new(8);
        history.save(&world);
        for t in 0..3 {
            world
                .step(&[InputCmd::idle(t), InputCmd::idle(t)])
                .expect("step");
            history.save(&world);
        }
        history.invalidate_after(1);
        assert_eq!(history.get(1).map(|s| s.tick), Ok(1));
        for t in 2..=3 {
            assert_eq!(history.get(t), Err(Error::NotRecorded { requested: t }));
        }
    }

    #[test]
    fn state_history_refuses_an_overwritten_tick() {
        let mut world = World::new(crate::Rules::default(), 1, 2).expect("world");
        let mut history = StateHistory::new(2);
        history.save(&world);
        for t in 0..2 {
            world
                .step(&[InputCmd::idle(t), InputCmd::idle(t)])
                .expect("step");
            history.save(&world);
        }
        assert_eq!(history.get(2).map(|s| s.tick), Ok(2));
        assert_eq!(
            history.get(0).unwrap_err(),
            Error::Overwritten {
                requested: 0,
                held: 2
            }
        );
    }
}
