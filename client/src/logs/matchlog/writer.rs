//! Appending to a match log: framing, timed flushes, `fsync` at checkpoints and the end, and
//! the writer's exclusive lock (see the durability notes of the [module](super)).

use super::read::{read_log, MatchLog};
use super::record::{
    checksum, encode_payload, prefix_check, RecordRef, PREFIX_CHECKED, PREFIX_LEN,
};
use super::{LogHeader, Record, TickRecord, LOG_MAGIC};
use crate::error::Error;
use game_api::{Game, Tick};
use std::fs::{File, OpenOptions};
use std::io::{BufWriter, Seek, Write};
use std::marker::PhantomData;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// Longest time a written record may stay in the buffer.
const FLUSH_INTERVAL: Duration = Duration::from_secs(1);

/// Opens `path` for writing and takes the writer's exclusive lock (nothing is truncated before
/// the lock is held).
fn open_locked(path: &Path, create: bool) -> Result<File, Error> {
    let file = OpenOptions::new()
        .write(true)
        .create(create)
        .truncate(false)
        .open(path)
        .map_err(|e| Error::io(path, e))?;
    match file.try_lock() {
        Ok(()) => Ok(file),
        Err(std::fs::TryLockError::WouldBlock) => Err(Error::LogLocked {
            path: path.to_owned(),
        }),
        Err(std::fs::TryLockError::Error(e)) => Err(Error::io(path, e)),
    }
}

/// Syncs the directory holding `path`, so a power loss cannot take the new file's name away
/// with it (Unix; elsewhere the file system does not let a directory be opened for this).
fn sync_directory_of(path: &Path) -> Result<(), Error> {
    #[cfg(unix)]
    {
        let dir = match path.parent() {
            Some(p) if !p.as_os_str().is_empty() => p,
            _ => Path::new("."),
        };
        File::open(dir)
            .and_then(|d| d.sync_all())
            .map_err(|e| Error::io(dir, e))?;
    }
    #[cfg(not(unix))]
    let _ = path;
    Ok(())
}

/// Where [`MatchLogWriter::resume`] keeps the bytes it cuts from `path` at `valid_len` when
/// they follow a power-loss hole: `<path>.lost-at-<valid_len>`.
#[must_use]
pub fn lost_bytes_path(path: &Path, valid_len: u64) -> PathBuf {
    let mut name = path.as_os_str().to_owned();
    name.push(format!(".lost-at-{valid_len}"));
    PathBuf::from(name)
}

/// Copies the bytes of `path` from `valid_len` on to [`lost_bytes_path`], synced, refusing to
/// overwrite a file already there.
fn save_lost_bytes(path: &Path, valid_len: u64) -> Result<(), Error> {
    let bytes = std::fs::read(path).map_err(|e| Error::io(path, e))?;
    let lost = lost_bytes_path(path, valid_len);
    let tail = bytes.get(valid_len as usize..).unwrap_or_default();
    let mut out = OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(&lost)
        .map_err(|e| Error::io(&lost, e))?;
    out.write_all(tail)
        .and_then(|()| out.sync_all())
        .map_err(|e| Error::io(&lost, e))?;
    sync_directory_of(&lost)
}

/// Appends records to a match log of a `G` match. Holds the file's exclusive lock while it
/// lives.
#[derive(Debug)]
pub struct MatchLogWriter<G: Game> {
    path: PathBuf,
    out: BufWriter<File>,
    lsn: u64,
    last_tick: Tick,
    checkpoint_every: Tick,
    last_flush: Instant,
    buf: Vec<u8>,
    /// Bytes written so far (the file's length once flushed).
    len: u64,
    game: PhantomData<fn() -> G>,
}

impl<G: Game> MatchLogWriter<G> {
    /// Creates `path` (truncating it once the lock is held) with the magic, the header and the
    /// checkpoint of `game`, and syncs it and its directory entry to disk.
    ///
    /// # Errors
    /// [`Error::OtherGame`] if `header` names another game than `G` (nothing is touched);
    /// [`Error::LogLocked`] if another writer holds the file; [`Error::Io`].
    pub fn create(
        path: &Path,
        header: &LogHeader,
        game: &G,
        checkpoint_every: Tick,
    ) -> Result<MatchLogWriter<G>, Error> {
        if header.game != G::NAME {
            return Err(Error::other_game::<G>(path, &header.game));
        }
        let file = open_locked(path, true)?;
        file.set_len(0).map_err(|e| Error::io(path, e))?;
        let mut w = MatchLogWriter {
            path: path.to_owned(),
            out: BufWriter::new(file),
            lsn: 0,
            last_tick: game.tick(),
            checkpoint_every: checkpoint_every.max(1),
            last_flush: Instant::now(),
            buf: Vec::with_capacity(1024),
            len: 0,
            game: PhantomData,
        };
        w.out.write_all(LOG_MAGIC).map_err(|e| Error::io(path, e))?;
        w.len = LOG_MAGIC.len() as u64;
        w.append(&Record::Header(header.clone()))?;
        w.append(&Record::Checkpoint {
            tick: game.tick(),
            snapshot: G::snapshot_to_bytes(&game.snapshot()),
        })?;
        w.sync()?;
        sync_directory_of(path)?;
        Ok(w)
    }

    /// Reopens a log that was read with [`read_log`] to continue it: takes the lock, checks the
    /// file still holds what was read, cuts it at the last whole record (dropping a torn or
    /// zero-filled tail), syncs the cut, and appending resumes with the next LSN. After a
    /// power-loss hole ([`MatchLog::hole`]) the bytes cut are first kept in
    /// [`lost_bytes_path`].
    ///
    /// # Errors
    /// [`Error::LogFinished`] if the log already has an end record; [`Error::LogLocked`] if
    /// another writer holds it; [`Error::LogChanged`] if the file no longer holds `log`;
    /// [`Error::Io`] (also when the file for the bytes lost after a hole exists already).
    pub fn resume(
        path: &Path,
        log: &MatchLog<G>,
        checkpoint_every: Tick,
    ) -> Result<MatchLogWriter<G>, Error> {
        if let Some(end) = &log.end {
            return Err(Error::LogFinished {
                path: path.to_owned(),
                tick: end.0,
            });
        }
        let file = open_locked(path, false)?;
        // Read again under the lock: the log must not have moved on since the caller read it.
        let now = read_log::<G>(path)?;
        if now.last_lsn != log.last_lsn || now.valid_len != log.valid_len {
            return Err(Error::LogChanged {
                path: path.to_owned(),
                read_lsn: log.last_lsn,
                now_lsn: now.last_lsn,
            });
        }
        if log.hole.is_some() {
            // Whole records may follow a power-loss hole: they cannot be continued from (the
            // ticks in the hole are gone) but are kept, beside the log, before the cut.
            save_lost_bytes(path, log.valid_len)?;
        }
        file.set_len(log.valid_len)
            .map_err(|e| Error::io(path, e))?;
        file.sync_data().map_err(|e| Error::io(path, e))?;
        let mut out = BufWriter::new(file);
        out.seek(std::io::SeekFrom::End(0))
            .map_err(|e| Error::io(path, e))?;
        Ok(MatchLogWriter {
            path: path.to_owned(),
            out,
            lsn: log.last_lsn,
            last_tick: log.last_tick(),
            checkpoint_every: checkpoint_every.max(1),
            last_flush: Instant::now(),
            buf: Vec::with_capacity(1024),
            len: log.valid_len,
            game: PhantomData,
        })
    }

    /// Appends one record; an epoch that went on from a state transfer moves the log to its
    /// tick (the next tick record follows it). Placement is the reader's to check, as for
    /// every record appended here.
    ///
    /// # Errors
    /// [`Error::Io`].
    pub fn append(&mut self, record: &Record<G>) -> Result<(), Error> {
        self.append_ref(RecordRef::Record(record))?;
        if let Record::Epoch(super::EpochRecord {
            tick,
            transfer: Some(_),
            ..
        }) = record
        {
            self.last_tick = *tick;
        }
        Ok(())
    }

    fn append_ref(&mut self, record: RecordRef<'_, G>) -> Result<(), Error> {
        self.buf.clear();
        self.buf.extend_from_slice(&[0; PREFIX_LEN]);
        let kind = encode_payload(record, &mut self.buf);
        let payload_len = (self.buf.len() - PREFIX_LEN) as u32;
        let lsn = self.lsn + 1;
        self.buf[0..4].copy_from_slice(&payload_len.to_le_bytes());
        self.buf[4..12].copy_from_slice(&lsn.to_le_bytes());
        self.buf[12..20].copy_from_slice(&self.lsn.to_le_bytes());
        self.buf[20] = kind;
        let prefix = prefix_check(&self.buf[..PREFIX_CHECKED]);
        self.buf[PREFIX_CHECKED..PREFIX_LEN].copy_from_slice(&prefix.to_le_bytes());
        let check = checksum(&self.buf);
        self.buf.extend_from_slice(&check.to_le_bytes());
        self.out
            .write_all(&self.buf)
            .map_err(|e| Error::io(&self.path, e))?;
        self.len += self.buf.len() as u64;
        self.lsn = lsn;
        Ok(())
    }

    /// Appends the record of a confirmed tick (which must follow the last one), then a
    /// checkpoint of `state` when the tick is a checkpoint tick; flushes if a second has passed,
    /// and flushes and syncs if a checkpoint was written.
    ///
    /// # Errors
    /// [`Error::HashLogOrder`] for a tick out of order; [`Error::Io`].
    pub fn record_tick(
        &mut self,
        record: &TickRecord<G>,
        state: Option<&G::Snapshot>,
    ) -> Result<(), Error> {
        if self.last_tick.checked_add(1) != Some(record.tick) {
            return Err(Error::HashLogOrder {
                last: self.last_tick,
                got: record.tick,
            });
        }
        self.last_tick = record.tick;
        self.append_ref(RecordRef::Tick(record))?;
        if record.tick.is_multiple_of(self.checkpoint_every) {
            if let Some(state) = state {
                debug_assert_eq!(G::snapshot_tick(state), record.tick);
                self.append(&Record::Checkpoint {
                    tick: record.tick,
                    snapshot: G::snapshot_to_bytes(state),
                })?;
                return self.sync();
            }
        }
        self.flush_if_due()
    }

    /// Flushes if the last flush is a second old or more (call it regularly: a stalled match
    /// records no ticks, and what it recorded before must still reach the disk).
    ///
    /// # Errors
    /// [`Error::Io`].
    pub fn flush_if_due(&mut self) -> Result<(), Error> {
        if self.last_flush.elapsed() >= FLUSH_INTERVAL {
            self.flush()?;
        }
        Ok(())
    }

    /// Whether `tick` is a checkpoint tick (callers supply the state then).
    #[must_use]
    pub fn is_checkpoint_tick(&self, tick: Tick) -> bool {
        tick.is_multiple_of(self.checkpoint_every)
    }

    /// Hands buffered records to the OS (they then survive the process being killed).
    ///
    /// # Errors
    /// [`Error::Io`].
    pub fn flush(&mut self) -> Result<(), Error> {
        self.last_flush = Instant::now();
        self.out.flush().map_err(|e| Error::io(&self.path, e))
    }

    /// Flushes and syncs the file's data to disk (it then survives a power loss).
    ///
    /// # Errors
    /// [`Error::Io`].
    pub fn sync(&mut self) -> Result<(), Error> {
        self.flush()?;
        self.out
            .get_ref()
            .sync_data()
            .map_err(|e| Error::io(&self.path, e))
    }

    /// Appends the end record, flushes and syncs.
    ///
    /// # Errors
    /// [`Error::Io`].
    pub fn finish(&mut self, reason: &str) -> Result<(), Error> {
        self.append(&Record::End {
            tick: self.last_tick,
            reason: reason.to_owned(),
        })?;
        self.sync()
    }

    /// The last tick recorded.
    #[must_use]
    pub fn last_tick(&self) -> Tick {
        self.last_tick
    }

    /// Bytes written so far.
    #[must_use]
    pub fn len(&self) -> u64 {
        self.len
    }

    /// Whether nothing was written (never true after `create`).
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
}

impl<G: Game> Drop for MatchLogWriter<G> {
    fn drop(&mut self) {
        let _ = self.out.flush();
        // Release the lock now rather than when the last copy of the descriptor closes: a child
        // process forked meanwhile (by another thread) holds a copy until it execs.
        let _ = self.out.get_ref().unlock();
    }
}
