//! The durable match log, which is also the replay file.
//!
//! A file starts with the 8-byte magic [`LOG_MAGIC`], then an append-only sequence of records,
//! each framed as
//! `len u32 ‖ lsn u64 ‖ prev_lsn u64 ‖ kind u8 ‖ prefix_check u32 ‖ payload ‖ check u64`
//! (little-endian). `prefix_check` is the low half of xxh3 over the 21 bytes before it, so the
//! length is checked before it is trusted; `check` is xxh3 over everything before it. LSNs
//! count up from 1 and every record names its predecessor, so a reader knows when anything is
//! missing or out of place:
//!
//! - a header (log format version first, then engine and state-format versions, the rules —
//!   their hash and their full text —, the match seed, the players, the mode, the bots' seed and
//!   where the run was to stop);
//! - one record per confirmed tick: every player's input and the resulting state hash;
//! - a full snapshot checkpoint at the first tick and every `checkpoint_every` ticks;
//! - an end record on a clean exit.
//!
//! New record kinds join [`Record`], `encode_payload` and `decode_payload` (one match arm each)
//! and the format version goes up.
//!
//! Reading is strict: a record whose prefix check, checksum, LSN, predecessor or content (tick
//! order, player count, a checkpoint's snapshot) does not match stops the read with an error
//! naming its byte offset and LSN — a record is never skipped. Only two tails are different,
//! and both are cut at the last whole record and reported ([`MatchLog::torn_bytes`]):
//!
//! - a *torn* tail: less than one record (its prefix checks out, the file ends before the
//!   record does, or the file ends inside a prefix) — the writer died mid-write;
//! - a *zero-filled* tail: nothing but zero bytes from the end of the last whole record, or from
//!   inside the next record's prefix, or from inside a record whose check field is zero, to the
//!   end of the file — space the file system allocated but whose data never reached the disk
//!   before a power loss.
//!
//! Anything else at the end (a damaged prefix followed by non-zero bytes) is an error: more than
//! one partial record is never cut.
//!
//! # Durability
//!
//! - Records go through a buffer handed to the OS at least once a second, at every checkpoint
//!   and on exit. What the OS holds survives the process being killed (even `kill -9`): a killed
//!   match loses at most the last second of ticks, and its log ends at most in a torn tail.
//! - The file is `fsync`ed (data) when it is created, at every checkpoint, when a resume cuts a
//!   tail and at the end record. A power loss or OS crash loses at most what was written since
//!   the last checkpoint (5 s of ticks at the default) — the log then ends in a torn or
//!   zero-filled tail, both read as above.
//! - The writer holds an exclusive lock on the file (`File::try_lock`, advisory: `flock` on
//!   Unix) from creation or resume until it is dropped, so a second writer — a `resume` of a
//!   match that is still running — is refused instead of interleaving records.

use crate::error::Error;
use bincode::Options;
use engine::{Rules, StateHash, Tick, WireInput, World, WorldSnapshot};
use serde::{Deserialize, Serialize};
use std::fs::{File, OpenOptions};
use std::io::{BufWriter, Seek, Write};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// Version of this log format; a log of another version is refused.
pub const LOG_FORMAT_VERSION: u32 = 2;
/// The first bytes of every match log (since format version 2).
pub const LOG_MAGIC: &[u8; 8] = b"DUELMLOG";
/// Bytes of framing before a record's payload: len, lsn, prev_lsn, kind, prefix check.
const PREFIX_LEN: usize = 4 + 8 + 8 + 1 + 4;
/// The prefix bytes covered by the prefix check.
const PREFIX_CHECKED: usize = PREFIX_LEN - 4;
/// Bytes of framing after it.
const SUFFIX_LEN: usize = 8;
/// Largest payload a record may declare.
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
    /// The tick the run was to stop at, when it had one (a resume plays on to it).
    pub target_tick: Option<Tick>,
    /// Whether the run was to stop as soon as the match was decided.
    pub stop_at_match_end: bool,
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
            target_tick: None,
            stop_at_match_end: false,
        }
    }

    /// The same header, recording where the run will stop: at `target_tick`, or earlier when
    /// `stop_at_match_end` and the match is decided.
    #[must_use]
    pub fn with_stop(mut self, target_tick: Tick, stop_at_match_end: bool) -> LogHeader {
        self.target_tick = Some(target_tick);
        self.stop_at_match_end = stop_at_match_end;
        self
    }

    /// The rules in the header, checked against the header's hash.
    ///
    /// # Errors
    /// [`Error::LogRulesMismatch`] if the text does not hash to the recorded hash;
    /// [`Error::LogRules`] if the text does not parse or validate.
    pub fn rules(&self) -> Result<Rules, Error> {
        let rules = Rules::from_toml_str(&self.rules_toml).map_err(|e| Error::LogRules {
            reason: match e {
                engine::Error::RulesFile { message } => message,
                other => other.to_string(),
            },
        })?;
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

/// The check over a record's first 21 bytes (length, LSNs, kind): the low half of their xxh3.
fn prefix_check(prefix: &[u8]) -> u32 {
    checksum(prefix) as u32
}

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

/// Appends records to a match log. Holds the file's exclusive lock while it lives.
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
    /// Creates `path` (truncating it) with the magic, the header and the checkpoint of `world`,
    /// and syncs it to disk.
    ///
    /// # Errors
    /// [`Error::LogLocked`] if another writer holds the file; [`Error::Io`].
    pub fn create(
        path: &Path,
        header: &LogHeader,
        world: &World,
        checkpoint_every: Tick,
    ) -> Result<MatchLogWriter, Error> {
        let file = open_locked(path, true)?;
        file.set_len(0).map_err(|e| Error::io(path, e))?;
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
        w.out.write_all(LOG_MAGIC).map_err(|e| Error::io(path, e))?;
        w.len = LOG_MAGIC.len() as u64;
        w.append(&Record::Header(header.clone()))?;
        w.append(&Record::Checkpoint {
            tick: world.tick(),
            snapshot: world.state().to_bytes(),
        })?;
        w.sync()?;
        Ok(w)
    }

    /// Reopens a log that was read with [`read_log`] to continue it: takes the lock, checks the
    /// file still holds what was read, cuts it at the last whole record (dropping a torn or
    /// zero-filled tail), syncs the cut, and appending resumes with the next LSN.
    ///
    /// # Errors
    /// [`Error::LogFinished`] if the log already has an end record; [`Error::LogLocked`] if
    /// another writer holds it; [`Error::LogChanged`] if the file no longer holds `log`;
    /// [`Error::Io`].
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
        let file = open_locked(path, false)?;
        // Read again under the lock: the log must not have moved on since the caller read it.
        let now = read_log(path)?;
        if now.last_lsn != log.last_lsn || now.valid_len != log.valid_len {
            return Err(Error::LogChanged {
                path: path.to_owned(),
                read_lsn: log.last_lsn,
                now_lsn: now.last_lsn,
            });
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

impl Drop for MatchLogWriter {
    fn drop(&mut self) {
        let _ = self.out.flush();
        // Release the lock now rather than when the last copy of the descriptor closes: a child
        // process forked meanwhile (by another thread) holds a copy until it execs.
        let _ = self.out.get_ref().unlock();
    }
}

/// A log read back, strictly.
#[derive(Debug, Clone)]
pub struct MatchLog {
    /// The header.
    pub header: LogHeader,
    /// Every tick record, in order (ticks consecutive from the first checkpoint's tick + 1).
    pub ticks: Vec<TickRecord>,
    /// Every checkpoint: `(tick, snapshot bytes)`, in order; each snapshot decodes and is of
    /// its tick.
    pub checkpoints: Vec<(Tick, Vec<u8>)>,
    /// The end record, if the match ended cleanly: `(tick, reason)`.
    pub end: Option<(Tick, String)>,
    /// Bytes of the magic and the whole records; anything after is the tail that was cut.
    pub valid_len: u64,
    /// Length of the tail cut off (0 if none): torn, or zero-filled if `zeroed_tail`.
    pub torn_bytes: u64,
    /// Whether the tail cut off was zero bytes (never written to disk) rather than torn.
    pub zeroed_tail: bool,
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

    /// What was cut at the end, in words (`None` if nothing was).
    #[must_use]
    pub fn tail_report(&self) -> Option<String> {
        (self.torn_bytes > 0).then(|| {
            let what = if self.zeroed_tail {
                "zero-filled tail (space never written to disk, e.g. a power loss)"
            } else {
                "torn tail (a record cut short: the writer died mid-write)"
            };
            format!(
                "{what}: {} bytes after byte {} (LSN {}, tick {}) ignored",
                self.torn_bytes,
                self.valid_len,
                self.last_lsn,
                self.last_tick()
            )
        })
    }
}

/// Reads a whole log strictly (see the module documentation).
///
/// # Errors
/// [`Error::Io`]; [`Error::NotALog`] for a file without the magic; [`Error::LogVersion`] for
/// another format version; [`Error::LogCorrupt`] naming the offset and LSN of the first bad
/// record.
pub fn read_log(path: &Path) -> Result<MatchLog, Error> {
    let bytes = std::fs::read(path).map_err(|e| Error::io(path, e))?;
    parse_log(path, &bytes)
}

/// One framed record found at an offset, or why there is none.
enum Frame<'a> {
    /// A whole record whose prefix check and checksum hold.
    Whole {
        lsn: u64,
        prev: u64,
        kind: u8,
        payload: &'a [u8],
        total: usize,
    },
    /// The end of the log: a torn or zero-filled tail (`zeroed`).
    Tail { zeroed: bool },
    /// A damaged record.
    Bad { lsn: u64, reason: String },
}

/// Frames the record at the start of `rest` (the rest of the file), trusting nothing before
/// it is checked: the prefix check before the length, the length limit before the payload.
fn frame(rest: &[u8]) -> Frame<'_> {
    let all_zero = |b: &[u8]| b.iter().all(|&x| x == 0);
    if rest.len() < PREFIX_LEN {
        // Shorter than a prefix: less than one record, whatever it holds.
        return Frame::Tail {
            zeroed: all_zero(rest),
        };
    }
    let u64_at = |at: usize| u64::from_le_bytes(rest[at..at + 8].try_into().expect("8 bytes"));
    let len = u32::from_le_bytes(rest[0..4].try_into().expect("4 bytes"));
    let (lsn, prev, kind) = (u64_at(4), u64_at(12), rest[20]);
    let stated_prefix = u32::from_le_bytes(
        rest[PREFIX_CHECKED..PREFIX_LEN]
            .try_into()
            .expect("4 bytes"),
    );
    if prefix_check(&rest[..PREFIX_CHECKED]) != stated_prefix {
        // Zeros from inside the prefix to the end of the file: the prefix was never wholly
        // written (the zero run of an unwritten block can start anywhere in it).
        if all_zero(&rest[PREFIX_LEN - 1..]) {
            return Frame::Tail { zeroed: true };
        }
        return Frame::Bad {
            lsn,
            reason: format!(
                "record prefix check mismatch: its length ({len}), LSN and kind cannot be \
                 trusted, and {} bytes follow",
                rest.len()
            ),
        };
    }
    if len > MAX_PAYLOAD {
        return Frame::Bad {
            lsn,
            reason: format!("record declares {len} bytes, more than the limit {MAX_PAYLOAD}"),
        };
    }
    let total = PREFIX_LEN + len as usize + SUFFIX_LEN;
    if rest.len() < total {
        // The length checks out: this is one record cut short.
        return Frame::Tail { zeroed: false };
    }
    let stated = u64_at(total - 8);
    if checksum(&rest[..total - 8]) != stated {
        // A record whose end (check field included) and everything after it are zeros was
        // allocated but never written; a real checksum of 0 has odds 2^-64.
        if stated == 0 && all_zero(&rest[total..]) {
            return Frame::Tail { zeroed: true };
        }
        return Frame::Bad {
            lsn,
            reason: "checksum mismatch".into(),
        };
    }
    Frame::Whole {
        lsn,
        prev,
        kind,
        payload: &rest[PREFIX_LEN..PREFIX_LEN + len as usize],
        total,
    }
}

/// Why a file without the magic is not a match log, naming what it looks like.
fn not_a_log(path: &Path, bytes: &[u8]) -> Error {
    // A version-1 log (before the magic) starts with a header record: LSN 1 after 0, kind 1,
    // the format version first in its payload.
    if bytes.len() >= 25
        && bytes[4..12] == 1u64.to_le_bytes()
        && bytes[12..20] == 0u64.to_le_bytes()
        && bytes[20] == KIND_HEADER
    {
        return Error::LogVersion {
            path: path.to_owned(),
            found: u32::from_le_bytes(bytes[21..25].try_into().expect("4 bytes")),
            expected: LOG_FORMAT_VERSION,
        };
    }
    let found = if bytes.starts_with(b"# duel hash log") {
        "a hash log".to_owned()
    } else {
        let shown: Vec<String> = bytes.iter().take(8).map(|b| format!("{b:02x}")).collect();
        format!("first bytes {}", shown.join(" "))
    };
    Error::NotALog {
        path: path.to_owned(),
        expected: "match log",
        found,
    }
}

fn parse_log(path: &Path, bytes: &[u8]) -> Result<MatchLog, Error> {
    let corrupt = |offset: usize, lsn: u64, reason: String| Error::LogCorrupt {
        path: path.to_owned(),
        offset: offset as u64,
        lsn,
        reason,
    };
    if !bytes.starts_with(LOG_MAGIC) {
        if LOG_MAGIC.starts_with(bytes) {
            return Err(corrupt(
                0,
                0,
                format!(
                    "no header: the file ends inside the magic ({} bytes)",
                    bytes.len()
                ),
            ));
        }
        return Err(not_a_log(path, bytes));
    }
    let mut offset = LOG_MAGIC.len();
    let mut last_lsn = 0u64;
    let mut header: Option<LogHeader> = None;
    let mut ticks: Vec<TickRecord> = Vec::new();
    let mut checkpoints = Vec::new();
    let mut end: Option<(Tick, String)> = None;
    let mut last_tick: Option<Tick> = None;
    let mut tail = None;
    while offset < bytes.len() {
        let (lsn, prev, kind, payload, total) = match frame(&bytes[offset..]) {
            Frame::Whole {
                lsn,
                prev,
                kind,
                payload,
                total,
            } => (lsn, prev, kind, payload, total),
            Frame::Tail { zeroed } => {
                tail = Some(zeroed);
                break;
            }
            Frame::Bad { lsn, reason } => return Err(corrupt(offset, lsn, reason)),
        };
        if prev != last_lsn || Some(lsn) != last_lsn.checked_add(1) {
            return Err(corrupt(
                offset,
                lsn,
                format!(
                    "record says LSN {lsn} after {prev}, but the previous record is LSN {last_lsn}"
                ),
            ));
        }
        if header.is_none() && kind == KIND_HEADER && payload.len() >= 4 {
            let version = u32::from_le_bytes(payload[..4].try_into().expect("4 bytes"));
            if version != LOG_FORMAT_VERSION {
                return Err(Error::LogVersion {
                    path: path.to_owned(),
                    found: version,
                    expected: LOG_FORMAT_VERSION,
                });
            }
        }
        let record =
            decode_payload(kind, payload).map_err(|reason| corrupt(offset, lsn, reason))?;
        let bad = |reason: String| Err(corrupt(offset, lsn, reason));
        match (record, &header) {
            (Record::Header(h), None) => header = Some(h),
            (_, None) => return bad("the first record is not a header".into()),
            (Record::Header(_), Some(_)) => return bad("a second header".into()),
            (_, Some(_)) if end.is_some() => return bad("a record after the end".into()),
            (Record::Checkpoint { tick, snapshot }, Some(_)) => {
                if last_tick.is_some_and(|t| t != tick) {
                    return bad(format!(
                        "checkpoint of tick {tick} after tick {}",
                        last_tick.unwrap_or_default()
                    ));
                }
                // A checkpoint is where replays and resumes restart: its snapshot must decode
                // and be of its own tick, or a seek would never arrive.
                let state = WorldSnapshot::from_bytes(&snapshot)
                    .map_err(|e| corrupt(offset, lsn, format!("checkpoint of tick {tick}: {e}")))?;
                if state.tick != tick {
                    return bad(format!(
                        "checkpoint of tick {tick} holds a snapshot of tick {}",
                        state.tick
                    ));
                }
                last_tick = Some(tick);
                checkpoints.push((tick, snapshot));
            }
            (Record::Tick(t), Some(h)) => {
                let Some(prev_tick) = last_tick else {
                    return bad("a tick before the first checkpoint".into());
                };
                if prev_tick.checked_add(1) != Some(t.tick) {
                    return bad(format!("tick {} follows tick {prev_tick}", t.tick));
                }
                if t.inputs.len() != usize::from(h.players) {
                    return bad(format!(
                        "tick {} holds {} inputs for {} players",
                        t.tick,
                        t.inputs.len(),
                        h.players
                    ));
                }
                last_tick = Some(t.tick);
                ticks.push(t);
            }
            (Record::End { tick, reason }, Some(_)) => {
                if last_tick != Some(tick) {
                    return bad(format!(
                        "end at tick {tick}, but the last tick recorded is {last_tick:?}"
                    ));
                }
                end = Some((tick, reason));
            }
        }
        last_lsn = lsn;
        offset += total;
    }
    let header = header.ok_or_else(|| {
        corrupt(
            LOG_MAGIC.len(),
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
        torn_bytes: (bytes.len() - offset) as u64,
        zeroed_tail: tail == Some(true),
        last_lsn,
    })
}
