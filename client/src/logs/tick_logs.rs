//! The two logs of final ticks, written together: the hash log and the durable match log. Every
//! mode that produces final ticks (bot matches, local play, networked peers) records through
//! this one type.

use crate::error::Error;
use crate::logs::hashlog::HashLogWriter;
use crate::logs::matchlog::{MatchLogWriter, TickRecord};
use engine::{Event, EventKind, ShotRecord, StateHash, Tick, WireInput, WorldSnapshot};

/// A hash log and a match log, either optional, fed the same final ticks in order.
#[derive(Debug, Default)]
pub struct TickLogs {
    /// The per-tick hash log.
    pub hash_log: Option<HashLogWriter>,
    /// The durable match log.
    pub match_log: Option<MatchLogWriter>,
}

impl TickLogs {
    /// Logs writing to these writers.
    #[must_use]
    pub fn new(hash_log: Option<HashLogWriter>, match_log: Option<MatchLogWriter>) -> TickLogs {
        TickLogs {
            hash_log,
            match_log,
        }
    }

    /// Records final tick `tick`: its state `hash`, the `inputs` that led to it, the rail shots
    /// among the `events` of that step, and — when the match log wants a checkpoint at this
    /// tick — the state from `state_at`.
    ///
    /// # Errors
    /// I/O errors, ticks out of order, or the error of `state_at`.
    pub fn record<'a>(
        &mut self,
        tick: Tick,
        inputs: &[WireInput],
        hash: StateHash,
        events: &[Event],
        state_at: impl FnOnce() -> Result<&'a WorldSnapshot, Error>,
    ) -> Result<(), Error> {
        if let Some(log) = &mut self.hash_log {
            log.record(tick, &hash)?;
        }
        if let Some(writer) = &mut self.match_log {
            let record = TickRecord {
                tick,
                inputs: inputs.to_vec(),
                hash,
                shots: rail_shots(events).collect(),
            };
            let state = if writer.is_checkpoint_tick(tick) {
                Some(state_at()?)
            } else {
                None
            };
            writer.record_tick(&record, state)?;
        }
        Ok(())
    }

    /// Appends `record` (an outage, an epoch or a resync) to the match log, if there is one;
    /// a new epoch (either of the last two) is marked in the hash log too.
    ///
    /// # Errors
    /// [`Error::Io`].
    pub fn note(&mut self, record: &crate::logs::matchlog::Record) -> Result<(), Error> {
        if let Some(log) = &mut self.hash_log {
            match record {
                crate::logs::matchlog::Record::Epoch(e) if e.transfer.is_some() => {
                    log.mark_transfer(e.epoch, e.tick)?;
                }
                crate::logs::matchlog::Record::Epoch(e) => log.mark_epoch(e.epoch, e.tick)?,
                crate::logs::matchlog::Record::Resync(r) => log.mark_epoch(r.epoch, r.tick)?,
                _ => {}
            }
        }
        match &mut self.match_log {
            Some(writer) => writer.append(record),
            None => Ok(()),
        }
    }

    /// Flushes each log if a second has passed since it was last flushed.
    ///
    /// # Errors
    /// [`Error::Io`].
    pub fn flush_if_due(&mut self) -> Result<(), Error> {
        if let Some(log) = &mut self.hash_log {
            log.flush_if_due()?;
        }
        match &mut self.match_log {
            Some(writer) => writer.flush_if_due(),
            None => Ok(()),
        }
    }

    /// Flushes and syncs both; a completed match gets its end record, an interrupted one is
    /// left open-ended (it reads as cut, and can be resumed).
    ///
    /// # Errors
    /// [`Error::Io`].
    pub fn close(&mut self, completed: bool) -> Result<(), Error> {
        if let Some(log) = &mut self.hash_log {
            log.sync()?;
        }
        if let Some(writer) = &mut self.match_log {
            if completed {
                writer.finish("completed")?;
            } else {
                writer.sync()?;
            }
        }
        Ok(())
    }
}

/// The rail shot records among `events`, in order.
pub fn rail_shots(events: &[Event]) -> impl Iterator<Item = ShotRecord> + '_ {
    events.iter().filter_map(|e| match e.kind {
        EventKind::RailShot(shot) => Some(shot),
        _ => None,
    })
}
