//! The two logs of final ticks, written together: the hash log and the durable match log. Every
//! mode that produces final ticks (bot matches, local play, networked peers) records through
//! this one type, for any [`Game`].

use crate::error::Error;
use crate::logs::hashlog::HashLogWriter;
use crate::logs::matchlog::{MatchLogWriter, Record, TickRecord};
use game_api::{Game, Tick};

/// A hash log and a match log of a `G` match, either optional, fed the same final ticks in
/// order.
#[derive(Debug)]
pub struct TickLogs<G: Game> {
    /// The per-tick hash log.
    pub hash_log: Option<HashLogWriter<G>>,
    /// The durable match log.
    pub match_log: Option<MatchLogWriter<G>>,
    /// The tick record being written, reused: no allocation per tick once its inputs and
    /// audit have grown to the match's size.
    record: TickRecord<G>,
}

impl<G: Game> Default for TickLogs<G> {
    fn default() -> TickLogs<G> {
        TickLogs::new(None, None)
    }
}

impl<G: Game> TickLogs<G> {
    /// Logs writing to these writers.
    #[must_use]
    pub fn new(
        hash_log: Option<HashLogWriter<G>>,
        match_log: Option<MatchLogWriter<G>>,
    ) -> TickLogs<G> {
        TickLogs {
            hash_log,
            match_log,
            record: TickRecord {
                tick: 0,
                inputs: Vec::with_capacity(G::MAX_PLAYERS),
                hash: G::Hash::default(),
                audit: Vec::new(),
            },
        }
    }

    /// Records final tick `tick`: its state `hash`, the `inputs` that led to it, what the game
    /// audits among the `events` of that step ([`Game::audit`]), and — when the match log wants
    /// a checkpoint at this tick — the state from `state_at`.
    ///
    /// # Errors
    /// I/O errors, ticks out of order, or the error of `state_at`.
    pub fn record<'a>(
        &mut self,
        tick: Tick,
        inputs: &[G::Input],
        hash: G::Hash,
        events: &[G::Event],
        state_at: impl FnOnce() -> Result<&'a G::Snapshot, Error>,
    ) -> Result<(), Error> {
        if let Some(log) = &mut self.hash_log {
            log.record(tick, &hash)?;
        }
        if let Some(writer) = &mut self.match_log {
            let record = &mut self.record;
            record.tick = tick;
            record.inputs.clear();
            record.inputs.extend_from_slice(inputs);
            record.hash = hash;
            record.audit.clear();
            G::audit(events, &mut record.audit);
            let state = if writer.is_checkpoint_tick(tick) {
                Some(state_at()?)
            } else {
                None
            };
            writer.record_tick(record, state)?;
        }
        Ok(())
    }

    /// Appends `record` (an outage, an epoch or a resync) to the match log, if there is one;
    /// a new epoch (either of the last two) is marked in the hash log too.
    ///
    /// # Errors
    /// [`Error::Io`].
    pub fn note(&mut self, record: &Record<G>) -> Result<(), Error> {
        if let Some(log) = &mut self.hash_log {
            match record {
                Record::Epoch(e) if e.transfer.is_some() => log.mark_transfer(e.epoch, e.tick)?,
                Record::Epoch(e) => log.mark_epoch(e.epoch, e.tick)?,
                Record::Resync(r) => log.mark_epoch(r.epoch, r.tick)?,
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
