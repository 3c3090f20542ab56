//! The durable match log, which is also the replay file.
//!
//! An append-only sequence of records, each framed as
//! `len u32 ‖ lsn u64 ‖ prev_lsn u64 ‖ kind u8 ‖ payload ‖ check u64` (little-endian), where
//! `check` is xxh3 over everything before it. LSNs count up from 1 and every record names its
//! predecessor, so a reader knows when anything is missing or out of place:
//!
//! - a header (log format version first, then engine and state-format versions, the rules —
//!   their hash and their full text —, the match seed, the players, the mode);
//! - one record per confirmed tick: every player's input and the resulting state hash;
//! - a full snapshot checkpoint at tick 0 and every `checkpoint_every` ticks;
//! - an end record on a clean exit.
//!
//! Reading is strict: a record whose checksum, LSN or predecessor does not match stops the read
//! with an error naming its byte offset and LSN — a record is never skipped. Only a record cut
//! short by the end of the file is different: that is a torn tail (the writer died mid-write),
//! and the log is cut at the last whole record.
//!
//! Writes go through a buffer flushed at least once a second, at every checkpoint and on exit.

use crate::error::Error;
use bincode::Options;
use engine::{Rules, StateHash, Tick, WireInput, World, WorldSnapshot};
use serde::{Deserialize, Serialize};
use std::fs::{File, OpenOptions};
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// Version of this log format; a log of another version is refused.
pub const LOG_FORMAT_VERSION: u32 = 1;
/// Bytes of framing before a record's payload.
const PREFIX_LEN: usize = 4 + 8 + 8 + 1;
/// Bytes of framing after it.
const SUFFIX_LEN: usize = 8;
/// Largest payload a record may declare (a corrupt length must not look like a torn tail of
/// gigabytes).
const MAX_PAYLOAD: u32 = 16 << 20;
/// Default distance between checkpoints, in ticks (5 s).
pub const DEFAULT_CHECKPOINT_EVERY: Tick = 300;
/// Longest time a written record may stay in the buffer.
const FLUSH_INTERVAL: Duration = Duration::from_secs(1);

/// What a log is about. `format_version` comes first so it can be read before anything else.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LogHeader {
    /// [`LOG_FORMAT_VERSION`] of the writer.
    pub format_version: u32,
    /// Engine crate version of the writer.
    pub engine_version: String,
    /// `engine::SNAPSHOT_FORMAT_VERSION` of the writer.
    pub state_format: u32,
    /// Hash of the rules played.
    pub rules_hash: u64,
    /// The rules played, as TOML, so the log replays without any other file.
    pub rules_toml: String,
    /// Match seed.
    pub match_seed: u64,
    /// Number of players.
    pub players: u8,
    /// How the match was played (`local`, `host`, `join`, `spectate`, `bot-match`).
    pub mode: String,
    /// Seed of the bots, when bots played (lets a headless match be resumed).
    pub bot_seed: Option<u64>,
}

impl LogHeader {
    /// A header for a match of `world` in `mode`.
    #[must_use]
    pub fn for_world(world: &World, mode: &str, bot_seed: Option<u64>) -> LogHeader {
        LogHeader {
            format_version: LOG_FORMAT_VERSION,
            engine_version: engine::ENGINE_VERSION.to_owned(),
            state_format: engine::SNAPSHOT_FORMAT_VERSION,
            rules_hash: world.rules().hash(),
            rules_toml: world.rules().to_toml_string(),
            match_seed: world.state().match_seed,
            players: world.player_count() as u8,
            mode: mode.to_owned(),
            bot_seed,
        }
    }

    /// The rules in the header, checked against the header's hash.
    ///
    /// # Errors
    /// [`Error::LogRulesMismatch`] if the text does not hash to the recorded hash; rules
    /// errors if the text does not parse.
    pub fn rules(&self) -> Result<Rules, Error> {
        let rules = Rules::from_toml_str(&self.rules_toml)?;
        if rules.hash() != self.rules_hash {
            return Err(Error::LogRulesMismatch {
                recorded: self.rules_hash,
                actual: rules.hash(),
            });
        }
        Ok(rules)
    }
}

/// One confirmed tick: the inputs that produced the state at `tick`, and its hash.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TickRecord {
    /// The state's tick (its inputs are stamped `tick - 1`).
    pub tick: Tick,
    /// Every player's input, in slot order.
    pub inputs: Vec<WireInput>,
    /// The state hash at `tick`.
    pub hash: StateHash,
}

/// A record's payload.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Record {
    /// The header (always the first record).
    Header(LogHeader),
    /// A confirmed tick.
    Tick(TickRecord),
    /// The full state at `tick`, as `WorldSnapshot::to_bytes`.
    Checkpoint {
        /// Its tick.
        tick: Tick,
        /// The snapshot bytes.
        snapshot: Vec<u8>,
    },
    /// The match ended cleanly.
    End {
        /// Last tick.
        tick: Tick,
        /// Why.
        reason: String,
    },
}

const KIND_HEADER: u8 = 1;
const KIND_TICK: u8 = 2;
const KIND_CHECKPOINT: u8 = 3;
const KIND_END: u8 = 4;

fn options() -> impl Options {
    bincode::DefaultOptions::new()
        .with_fixint_encoding()
        .with_little_endian()
        .reject_trailing_bytes()
        .with_limit(u64::from(MAX_PAYLOAD))
}

/// A record borrowed for writing (a tick record is written every tick: no clone).
enum RecordRef<'a> {
    Record(&'a Record),
    Tick(&'a TickRecord),
}

fn encode_payload(record: RecordRef<'_>, out: &mut Vec<u8>) -> u8 {
    let opts = options();
    let record = match record {
        RecordRef::Tick(t) => {
            return opts
                .serialize_into(&mut *out, t)
                .map(|()| KIND_TICK)
                .expect("records always encode");
        }
        RecordRef::Record(r) => r,
    };
    let result = match record {
        Record::Header(h) => opts.serialize_into(&mut *out, h).map(|()| KIND_HEADER),
        Record::Tick(t) => opts.serialize_into(&mut *out, t).map(|()| KIND_TICK),
        Record::Checkpoint { tick, snapshot } => opts
            .serialize_into(&mut *out, &(tick, snapshot))
            .map(|()| KIND_CHECKPOINT),
        Record::End { tick, reason } => opts
            .serialize_into(&mut *out, &(tick, reason))
            .map(|()| KIND_END),
    };
    result.expect("records always encode")
}

fn decode_payload(kind: u8, payload: &[u8]) -> Result<Record, String> {
    let opts = options();
    let err = |e: bincode::Error| e.to_string();
    match kind {
        KIND_HEADER => opts.deserialize(payload).map(Record::Header).map_err(err),
        KIND_TICK => opts.deserialize(payload).map(Record::Tick).map_err(err),
        KIND_CHECKPOINT => opts
            .deserialize::<(Tick, Vec<u8>)>(payload)
            .map(|(tick, snapshot)| Record::Checkpoint { tick, snapshot })
            .map_err(err),
        KIND_END => opts
            .deserialize::<(Tick, String)>(payload)
            .map(|(tick, reason)| Record::End { tick, reason })
            .map_err(err),
        other => Err(format!("unknown record kind {other}")),
    }
}

fn checksum(framed: &[u8]) -> u64 {
    xxhash_rust::xxh3::xxh3_64(framed)
}

/// Appends records to a match log.
#[derive(Debug)]
pub struct MatchLogWriter {
    path: PathBuf,
    out: BufWriter<File>,
    lsn: u64,
    last_tick: Tick,
    checkpoint_every: Tick,
    last_flush: Instant,
    buf: Vec<u8>,
    /// Bytes written so far (the file's length once flushed).
    len: u64,
}

impl MatchLogWriter {
    /// Creates `path` (truncating it) with the header and the tick-0 checkpoint of `world`.
    ///
    /// # Errors
    /// [`Error::Io`].
    pub fn create(
        path: &Path,
        header: &LogHeader,
        world: &World,
        checkpoint_every: Tick,
    ) -> Result<MatchLogWriter, Error> {
        let file = File::create(path).map_err(|e| Error::io(path, e))?;
        let mut w = MatchLogWriter {
            path: path.to_owned(),
            out: BufWriter::new(file),
            lsn: 0,
            last_tick: world.tick(),
            checkpoint_every: checkpoint_every.max(1),
            last_flush: Instant::now(),
            buf: Vec::with_capacity(1024),
            len: 0,
        };
        w.append(&Record::Header(header.clone()))?;
        w.append(&Record::Checkpoint {
            tick: world.tick(),
            snapshot: world.state().to_bytes(),
        })?;
        w.flush()?;
        Ok(w)
    }

    /// Reopens a log that was read with [`read_log`] to continue it: the file is cut at the last
    /// whole record (dropping a torn tail) and appending resumes with the next LSN.
    ///
    /// # Errors
    /// [`Error::Io`]; [`Error::LogFinished`] if the log already has an end record.
    pub fn resume(
        path: &Path,
        log: &MatchLog,
        checkpoint_every: Tick,
    ) -> Result<MatchLogWriter, Error> {
        if let Some(end) = &log.end {
            return Err(Error::LogFinished {
                path: path.to_owned(),
                tick: end.0,
            });
        }
        let file = OpenOptions::new()
            .write(true)
            .open(path)
            .map_err(|e| Error::io(path, e))?;
        file.set_len(log.valid_len)
            .map_err(|e| Error::io(path, e))?;
        let mut out = BufWriter::new(file);
        use std::io::Seek;
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
        })
    }

    /// Appends one record.
    ///
    /// # Errors
    /// [`Error::Io`].
    pub fn append(&mut self, record: &Record) -> Result<(), Error> {
        self.append_ref(RecordRef::Record(record))
    }

    fn append_ref(&mut self, record: RecordRef<'_>) -> Result<(), Error> {
        self.buf.clear();
        self.buf.extend_from_slice(&[0; PREFIX_LEN]);
        let kind = encode_payload(record, &mut self.buf);
        let payload_len = (self.buf.len() - PREFIX_LEN) as u32;
        let lsn = self.lsn + 1;
        self.buf[0..4].copy_from_slice(&payload_len.to_le_bytes());
        self.buf[4..12].copy_from_slice(&lsn.to_le_bytes());
        self.buf[12..20].copy_from_slice(&self.lsn.to_le_bytes());
        self.buf[20] = kind;
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
    /// checkpoint of `state` when the tick is a checkpoint tick; flushes if a second has passed
    /// or a checkpoint was written.
    ///
    /// # Errors
    /// [`Error::HashLogOrder`] for a tick out of order; [`Error::Io`].
    pub fn record_tick(
        &mut self,
        record: &TickRecord,
        state: Option<&WorldSnapshot>,
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
                debug_assert_eq!(state.tick, record.tick);
                self.append(&Record::Checkpoint {
                    tick: record.tick,
                    snapshot: state.to_bytes(),
                })?;
                return self.flush();
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

    /// Writes buffered records to the file.
    ///
    /// # Errors
    /// [`Error::Io`].
    pub fn flush(&mut self) -> Result<(), Error> {
        self.last_flush = Instant::now();
        self.out.flush().map_err(|e| Error::io(&self.path, e))
    }

    /// Appends the end record and flushes.
    ///
    /// # Errors
    /// [`Error::Io`].
    pub fn finish(&mut self, reason: &str) -> Result<(), Error> {
        self.append(&Record::End {
            tick: self.last_tick,
            reason: reason.to_owned(),
        })?;
        self.flush()
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

impl Drop for MatchLogWriter {
    fn drop(&mut self) {
        let _ = self.out.flush();
    }
}

/// A log read back, strictly.
#[derive(Debug, Clone)]
pub struct MatchLog {
    /// The header.
    pub header: LogHeader,
    /// Every tick record, in order (ticks consecutive from the first checkpoint's tick + 1).
    pub ticks: Vec<TickRecord>,
    /// Every checkpoint: `(tick, snapshot bytes)`, in order.
    pub checkpoints: Vec<(Tick, Vec<u8>)>,
    /// The end record, if the match ended cleanly: `(tick, reason)`.
    pub end: Option<(Tick, String)>,
    /// Bytes of whole records; anything after is a torn tail.
    pub valid_len: u64,
    /// Length of the torn tail cut off (0 if none).
    pub torn_bytes: u64,
    /// LSN of the last whole record.
    pub last_lsn: u64,
}

impl MatchLog {
    /// The last tick recorded (the first checkpoint's tick if no tick records).
    #[must_use]
    pub fn last_tick(&self) -> Tick {
        self.ticks
            .last()
            .map(|t| t.tick)
            .unwrap_or_else(|| self.checkpoints.first().map_or(0, |c| c.0))
    }

    /// The latest checkpoint at or before `tick`.
    #[must_use]
    pub fn checkpoint_before(&self, tick: Tick) -> Option<&(Tick, Vec<u8>)> {
        self.checkpoints.iter().rev().find(|c| c.0 <= tick)
    }

    /// The tick record for `tick`.
    #[must_use]
    pub fn tick_record(&self, tick: Tick) -> Option<&TickRecord> {
        let first = self.ticks.first()?.tick;
        self.ticks.get(tick.checked_sub(first)? as usize)
    }
}

/// Reads a whole log strictly (see the module documentation).
///
/// # Errors
/// [`Error::Io`]; [`Error::LogCorrupt`] naming the offset and LSN of the first bad record;
/// [`Error::LogVersion`] for another format version.
pub fn read_log(path: &Path) -> Result<MatchLog, Error> {
    let bytes = std::fs::read(path).map_err(|e| Error::io(path, e))?;
    parse_log(path, &bytes)
}

fn parse_log(path: &Path, bytes: &[u8]) -> Result<MatchLog, Error> {
    let corrupt = |offset: usize, lsn: u64, reason: String| Error::LogCorrupt {
        path: path.to_owned(),
        offset: offset as u64,
        lsn,
        reason,
    };
    let mut offset = 0usize;
    let mut last_lsn = 0u64;
    let mut header: Option<LogHeader> = None;
    let mut ticks: Vec<TickRecord> = Vec::new();
    let mut checkpoints = Vec::new();
    let mut end = None;
    let mut last_tick: Option<Tick> = None;
    let mut torn_bytes = 0;
    while offset < bytes.len() {
        let rest = &bytes[offset..];
        if rest.len() < PREFIX_LEN {
            torn_bytes = rest.len() as u64;
            break;
        }
        let len = u32::from_le_bytes(rest[0..4].try_into().expect("4 bytes"));
        let lsn = u64::from_le_bytes(rest[4..12].try_into().expect("8 bytes"));
        let prev = u64::from_le_bytes(rest[12..20].try_into().expect("8 bytes"));
        let kind = rest[20];
        if len > MAX_PAYLOAD {
            return Err(corrupt(offset, lsn, format!("record declares {len} bytes")));
        }
        let total = PREFIX_LEN + len as usize + SUFFIX_LEN;
        if rest.len() < total {
            torn_bytes = rest.len() as u64;
            break;
        }
        let stated = u64::from_le_bytes(rest[total - 8..total].try_into().expect("8 bytes"));
        if checksum(&rest[..total - 8]) != stated {
            return Err(corrupt(offset, lsn, "checksum mismatch".into()));
        }
        if prev != last_lsn || lsn != last_lsn + 1 {
            return Err(corrupt(
                offset,
                lsn,
                format!(
                    "record says LSN {lsn} after {prev}, but the previous record is LSN {last_lsn}"
                ),
            ));
        }
        if header.is_none() && kind == KIND_HEADER && len >= 4 {
            let version = u32::from_le_bytes(
                rest[PREFIX_LEN..PREFIX_LEN + 4]
                    .try_into()
                    .expect("4 bytes"),
            );
            if version != LOG_FORMAT_VERSION {
                return Err(Error::LogVersion {
                    path: path.to_owned(),
                    found: version,
                    expected: LOG_FORMAT_VERSION,
                });
            }
        }
        let record = decode_payload(kind, &rest[PREFIX_LEN..PREFIX_LEN + len as usize])
            .map_err(|reason| corrupt(offset, lsn, reason))?;
        match (record, &header) {
            (Record::Header(h), None) => header = Some(h),
            (_, None) => {
                return Err(corrupt(
                    offset,
                    lsn,
                    "the first record is not a header".into(),
                ))
            }
            (Record::Header(_), Some(_)) => {
                return Err(corrupt(offset, lsn, "a second header".into()))
            }
            (_, Some(_)) if end.is_some() => {
                return Err(corrupt(offset, lsn, "a record after the end".into()))
            }
            (Record::Checkpoint { tick, snapshot }, Some(_)) => {
                if last_tick.is_some_and(|t| t != tick) {
                    return Err(corrupt(
                        offset,
                        lsn,
                        format!("checkpoint of tick {tick} after tick {last_tick:?}"),
                    ));
                }
                last_tick = Some(tick);
                checkpoints.push((tick, snapshot));
            }
            (Record::Tick(t), Some(_)) => {
                let Some(prev_tick) = last_tick else {
                    return Err(corrupt(
                        offset,
                        lsn,
                        "a tick before the first checkpoint".into(),
                    ));
                };
                if prev_tick.checked_add(1) != Some(t.tick) {
                    return Err(corrupt(
                        offset,
                        lsn,
                        format!("tick {} follows tick {prev_tick}", t.tick),
                    ));
                }
                last_tick = Some(t.tick);
                ticks.push(t);
            }
            (Record::End { tick, reason }, Some(_)) => end = Some((tick, reason)),
        }
        last_lsn = lsn;
        offset += total;
    }
    let header = header.ok_or_else(|| {
        corrupt(
            0,
            0,
            "no header (empty or torn before the first record)".into(),
        )
    })?;
    Ok(MatchLog {
        header,
        ticks,
        checkpoints,
        end,
        valid_len: offset as u64,
        torn_bytes,
        last_lsn,
    })
}
