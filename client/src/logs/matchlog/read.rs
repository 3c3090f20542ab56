//! Reading a match log back, strictly: every check before anything is trusted, and only a torn
//! or zero-filled tail cut (see the [module](super) documentation).

use super::record::{
    checksum, decode_header, decode_payload, prefix_check, KIND_HEADER, MAX_PAYLOAD,
    PREFIX_CHECKED, PREFIX_LEN, SUFFIX_LEN,
};
use super::{
    EpochRecord, LogHeader, OutageRecord, Record, ResyncRecord, StateTransfer, TickRecord,
    LOG_FORMAT_VERSION, LOG_MAGIC,
};
use crate::error::Error;
use game_api::{Game, SectionHash, Tick};
use std::path::Path;

/// Largest match log read (a day of 60 Hz play is about 0.5 GiB).
const MAX_LOG_BYTES: u64 = 1 << 30;

/// A log of a `G` match read back, strictly.
#[derive(Debug, Clone)]
pub struct MatchLog<G: Game> {
    /// The header (its game is `G`).
    pub header: LogHeader,
    /// Every tick record, in order: ticks consecutive from the first checkpoint's tick + 1,
    /// except across an epoch's state transfer (which skips from its `from` to its tick).
    pub ticks: Vec<TickRecord<G>>,
    /// Every checkpoint: `(tick, snapshot bytes)`, in order; each snapshot decodes and is of
    /// its tick.
    pub checkpoints: Vec<(Tick, Vec<u8>)>,
    /// The end record, if the match ended cleanly: `(tick, reason)`.
    pub end: Option<(Tick, String)>,
    /// Every new epoch, in order (each after the tick it resumed from).
    pub epochs: Vec<EpochRecord<G>>,
    /// Every outage the match came through, in order.
    pub outages: Vec<OutageRecord>,
    /// Its resyncs after a desync, in order.
    pub resyncs: Vec<ResyncRecord<G>>,
    /// Bytes of the magic and the whole records; anything after is the tail that was cut.
    pub valid_len: u64,
    /// Length of the tail cut off (0 if none): torn, or zero-filled if `zeroed_tail`.
    pub torn_bytes: u64,
    /// Whether the tail cut off was zero bytes (never written to disk) rather than torn.
    pub zeroed_tail: bool,
    /// LSN of the last whole record.
    pub last_lsn: u64,
    /// A power-loss hole the read stopped at, if any: the log is cut before it, and the
    /// `torn_bytes` cut include the hole and everything written after it.
    pub hole: Option<Hole>,
}

/// A run of zero bytes inside a log with written bytes after it, as out-of-order writeback
/// leaves when the power fails: blocks written after the hole reached the disk, the hole's did
/// not. Only a damaged record that a whole zero block (512 bytes, aligned in the file) starts
/// inside is read as one; any other damage is an error.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Hole {
    /// Byte offset of the first zero byte.
    pub offset: u64,
    /// Length of the zero run.
    pub len: u64,
    /// Bytes written after it, lost with it (they follow records that are gone).
    pub after: u64,
}

/// The smallest unit a disk writes: a hole is at least one such block of zeros, aligned.
const HOLE_BLOCK: usize = 512;

impl<G: Game> MatchLog<G> {
    /// The last tick recorded (the first checkpoint's tick if no tick records): the last
    /// tick record's, or the tick a later state transfer went on from.
    #[must_use]
    pub fn last_tick(&self) -> Tick {
        let recorded = (self.ticks.last())
            .map(|t| t.tick)
            .unwrap_or_else(|| self.checkpoints.first().map_or(0, |c| c.0));
        let transferred = self.transfers().map(|(e, _)| e.tick).max();
        transferred.map_or(recorded, |t| t.max(recorded))
    }

    /// The latest state the log holds whole at or before `tick`: a checkpoint, the snapshot
    /// of a resync (which, at the same tick, is the later: it replaced the state the
    /// checkpoint holds), or the state of a transfer.
    #[must_use]
    pub fn checkpoint_before(&self, tick: Tick) -> Option<(Tick, &[u8])> {
        // Ranked by tick, then by what replaced what at one tick.
        let checkpoints = (self.checkpoints.iter()).map(|c| ((c.0, 0), c.1.as_slice()));
        let transfers = self
            .transfers()
            .map(|(e, t)| ((e.tick, 1), t.snapshot.as_slice()));
        let resyncs = (self.resyncs.iter()).map(|r| ((r.tick, 2), r.snapshot.as_slice()));
        (checkpoints.chain(transfers).chain(resyncs))
            .filter(|((at, _), _)| *at <= tick)
            .max_by_key(|(rank, _)| *rank)
            .map(|((at, _), bytes)| (at, bytes))
    }

    /// Every epoch that went on from a state sent whole, with that transfer.
    pub fn transfers(&self) -> impl Iterator<Item = (&EpochRecord<G>, &StateTransfer)> {
        (self.epochs.iter()).filter_map(|e| e.transfer.as_ref().map(|t| (e, t)))
    }

    /// The epoch whose state transfer went on from `tick` (the last tick recorded before it).
    #[must_use]
    pub fn transfer_from(&self, tick: Tick) -> Option<(&EpochRecord<G>, &StateTransfer)> {
        self.transfers().find(|(_, t)| t.from == tick)
    }

    /// The resync after `tick`, if one replaced its state.
    #[must_use]
    pub fn resync_at(&self, tick: Tick) -> Option<&ResyncRecord<G>> {
        self.resyncs.iter().find(|r| r.tick == tick)
    }

    /// The tick record for `tick`.
    #[must_use]
    pub fn tick_record(&self, tick: Tick) -> Option<&TickRecord<G>> {
        // Ticks increase strictly (consecutive but for transfers, which skip).
        let at = self.ticks.binary_search_by_key(&tick, |t| t.tick).ok()?;
        self.ticks.get(at)
    }

    /// What was cut at the end, in words (`None` if nothing was).
    #[must_use]
    pub fn tail_report(&self) -> Option<String> {
        if let Some(hole) = &self.hole {
            return Some(format!(
                "power-loss hole: {} zero bytes at byte {} with {} written bytes after them; \
                 the log is recovered to its last whole record before the hole (byte {}, LSN \
                 {}, tick {}) and the {} bytes from there on are lost",
                hole.len,
                hole.offset,
                hole.after,
                self.valid_len,
                self.last_lsn,
                self.last_tick(),
                self.torn_bytes
            ));
        }
        (self.torn_bytes > 0).then(|| {
            let what = if self.zeroed_tail {
                "zero-filled tail (space never written to disk, e.g. a power loss)"
            } else {
                "torn tail (a record cut short: the writer died mid-write)"
            };
            format!(
                "{what}: {} bytes after byte {} (LSN {}, tick {})",
                self.torn_bytes,
                self.valid_len,
                self.last_lsn,
                self.last_tick()
            )
        })
    }
}

/// Reads a whole log of a `G` match strictly (see the module documentation).
///
/// # Errors
/// [`Error::Io`]; [`Error::NotALog`] for a file without the magic; [`Error::LogVersion`] for
/// another format version; [`Error::OtherGame`] for a log of another game (named, with `G`'s),
/// before any record after the header is decoded; [`Error::LogCorrupt`] naming the offset and
/// LSN of the first bad record; [`Error::LogTooLarge`] for a file over the 1 GiB limit.
pub fn read_log<G: Game>(path: &Path) -> Result<MatchLog<G>, Error> {
    let bytes = read_limited(path, MAX_LOG_BYTES)?;
    parse_log::<G>(path, &bytes)
}

/// The bytes of `path`, refusing a file longer than `limit` before reading it into memory.
pub(crate) fn read_limited(path: &Path, limit: u64) -> Result<Vec<u8>, Error> {
    use std::io::Read;
    let file = std::fs::File::open(path).map_err(|e| Error::io(path, e))?;
    let too_large = || Error::LogTooLarge {
        path: path.to_owned(),
        limit,
    };
    let len = file.metadata().map_err(|e| Error::io(path, e))?.len();
    if len > limit {
        return Err(too_large());
    }
    let mut bytes = Vec::with_capacity(len as usize);
    file.take(limit + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| Error::io(path, e))?;
    if bytes.len() as u64 > limit {
        return Err(too_large()); // it grew while being read
    }
    Ok(bytes)
}

/// The power-loss hole that damaged the record at `offset`, if one did: the first zero block
/// aligned in the file that starts inside the record (`span` bytes from `offset`: the whole
/// record when its length is trusted, its prefix when not), with written bytes after the run.
fn hole_at(bytes: &[u8], offset: usize, span: usize) -> Option<Hole> {
    let first_block = offset.next_multiple_of(HOLE_BLOCK);
    let block = (first_block..offset.saturating_add(span))
        .step_by(HOLE_BLOCK)
        .take_while(|b| b + HOLE_BLOCK <= bytes.len())
        .find(|&b| bytes[b..b + HOLE_BLOCK].iter().all(|&x| x == 0))?;
    // The run reaches back to the record's start at most (what came before was checked).
    let start = offset
        + bytes[offset..block]
            .iter()
            .rposition(|&x| x != 0)
            .map_or(0, |p| p + 1);
    let end = block + bytes[block..].iter().position(|&x| x != 0)?;
    Some(Hole {
        offset: start as u64,
        len: (end - start) as u64,
        after: (bytes.len() - end) as u64,
    })
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
    /// A damaged record, with its LSN and length (`total`) when its prefix can be trusted.
    Bad {
        lsn: Option<u64>,
        total: Option<usize>,
        reason: String,
    },
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
            lsn: None,
            total: None,
            reason: format!(
                "record prefix check mismatch: its length ({len}), LSN ({lsn}) and kind cannot \
                 be trusted, and {} bytes follow",
                rest.len()
            ),
        };
    }
    if len > MAX_PAYLOAD {
        return Frame::Bad {
            lsn: Some(lsn),
            total: None,
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
            lsn: Some(lsn),
            total: Some(total),
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

/// A match log starts with [`LOG_MAGIC`]; a file cut inside it is a torn log, anything else
/// is not a match log.
fn check_magic(path: &Path, bytes: &[u8]) -> Result<(), Error> {
    if bytes.starts_with(LOG_MAGIC) {
        return Ok(());
    }
    if LOG_MAGIC.starts_with(bytes) {
        return Err(Error::LogCorrupt {
            path: path.to_owned(),
            offset: 0,
            lsn: 0,
            reason: format!(
                "no header: the file ends inside the magic ({} bytes)",
                bytes.len()
            ),
        });
    }
    Err(not_a_log(path, bytes))
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

fn parse_log<G: Game>(path: &Path, bytes: &[u8]) -> Result<MatchLog<G>, Error> {
    let corrupt = |offset: usize, lsn: u64, reason: String| Error::LogCorrupt {
        path: path.to_owned(),
        offset: offset as u64,
        lsn,
        reason,
    };
    check_magic(path, bytes)?;
    let mut offset = LOG_MAGIC.len();
    let mut last_lsn = 0u64;
    let mut read = Reading::<G>::default();
    let mut tail = None;
    let mut hole = None;
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
            Frame::Bad { lsn, total, reason } => {
                // A power loss that left a hole loses what came after it, loudly; nothing
                // else is cut.
                if let Some(h) = hole_at(bytes, offset, total.unwrap_or(PREFIX_LEN)) {
                    hole = Some(h);
                    break;
                }
                // An untrusted prefix is named by the LSN expected there.
                let lsn = lsn.unwrap_or(last_lsn.saturating_add(1));
                return Err(corrupt(offset, lsn, reason));
            }
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
        read.take_payload(path, kind, payload)
            .map_err(|e| match e {
                RecordError::Refused(e) => e,
                RecordError::Corrupt(reason) => corrupt(offset, lsn, reason),
            })?;
        last_lsn = lsn;
        offset += total;
    }
    let header = read.header.ok_or_else(|| {
        corrupt(
            LOG_MAGIC.len(),
            0,
            "no header (empty or torn before the first record)".into(),
        )
    })?;
    Ok(MatchLog {
        header,
        ticks: read.ticks,
        checkpoints: read.checkpoints,
        end: read.end,
        epochs: read.epochs,
        outages: read.outages,
        resyncs: read.resyncs,
        valid_len: offset as u64,
        torn_bytes: (bytes.len() - offset) as u64,
        zeroed_tail: tail == Some(true),
        last_lsn,
        hole,
    })
}

/// Why a record was not taken.
enum RecordError {
    /// Another format version or another game: said as such.
    Refused(Error),
    /// It does not decode.
    Corrupt(String),
}

/// The header record: its format version first, then the whole, which must name `G`. It is
/// read before the log is known to be `G`'s: a log of another game is refused by name before
/// any of its records is decoded as this game's.
fn read_header<G: Game>(path: &Path, payload: &[u8]) -> Result<LogHeader, RecordError> {
    if let Some(version) = payload.first_chunk::<4>().map(|b| u32::from_le_bytes(*b)) {
        if version != LOG_FORMAT_VERSION {
            return Err(RecordError::Refused(Error::LogVersion {
                path: path.to_owned(),
                found: version,
                expected: LOG_FORMAT_VERSION,
            }));
        }
    }
    let header = decode_header(payload).map_err(RecordError::Corrupt)?;
    if header.game != G::NAME {
        return Err(RecordError::Refused(Error::other_game::<G>(
            path,
            &header.game,
        )));
    }
    Ok(header)
}

/// What the records read so far hold, and where they stand: each record after the header is
/// checked against it ([`Reading::take`]) and kept, or refused with the reason.
struct Reading<G: Game> {
    header: Option<LogHeader>,
    ticks: Vec<TickRecord<G>>,
    checkpoints: Vec<(Tick, Vec<u8>)>,
    end: Option<(Tick, String)>,
    epochs: Vec<EpochRecord<G>>,
    outages: Vec<OutageRecord>,
    resyncs: Vec<ResyncRecord<G>>,
    /// Epoch and resync records share one count: each begins the next epoch.
    last_epoch: u32,
    last_tick: Option<Tick>,
}

impl<G: Game> Default for Reading<G> {
    fn default() -> Reading<G> {
        Reading {
            header: None,
            ticks: Vec::new(),
            checkpoints: Vec::new(),
            end: None,
            epochs: Vec::new(),
            outages: Vec::new(),
            resyncs: Vec::new(),
            last_epoch: 1,
            last_tick: None,
        }
    }
}

impl<G: Game> Reading<G> {
    /// Takes one whole record's payload: the header first (refused by version or game as
    /// such), then records of `G`'s log.
    fn take_payload(&mut self, path: &Path, kind: u8, payload: &[u8]) -> Result<(), RecordError> {
        if self.header.is_none() && kind == KIND_HEADER {
            self.header = Some(read_header::<G>(path, payload)?);
            return Ok(());
        }
        let record = decode_payload::<G>(kind, payload).map_err(RecordError::Corrupt)?;
        self.take(record).map_err(RecordError::Corrupt)
    }

    /// Takes the next record after the header, or says why it cannot follow what came before.
    fn take(&mut self, record: Record<G>) -> Result<(), String> {
        let Some(header) = &self.header else {
            return Err("the first record is not a header".into());
        };
        if matches!(record, Record::Header(_)) {
            return Err("a second header".into());
        }
        if self.end.is_some() {
            return Err("a record after the end".into());
        }
        let players = usize::from(header.players);
        let last_tick = self.last_tick;
        match record {
            Record::Header(_) => unreachable!("refused above"),
            Record::Checkpoint { tick, snapshot } => self.take_checkpoint(tick, snapshot),
            Record::Tick(t) => {
                let Some(prev_tick) = last_tick else {
                    return Err("a tick before the first checkpoint".into());
                };
                if prev_tick.checked_add(1) != Some(t.tick) {
                    return Err(format!("tick {} follows tick {prev_tick}", t.tick));
                }
                if t.inputs.len() != players {
                    return Err(format!(
                        "tick {} holds {} inputs for {players} players",
                        t.tick,
                        t.inputs.len(),
                    ));
                }
                self.last_tick = Some(t.tick);
                self.ticks.push(t);
                Ok(())
            }
            Record::Epoch(e) => self.take_epoch(e),
            Record::Resync(r) => self.take_resync(r),
            Record::Outage(o) => {
                if last_tick != Some(o.tick) {
                    return Err(format!(
                        "outage at tick {}, but the last tick recorded is {last_tick:?}",
                        o.tick
                    ));
                }
                self.outages.push(o);
                Ok(())
            }
            Record::End { tick, reason } => {
                if last_tick != Some(tick) {
                    return Err(format!(
                        "end at tick {tick}, but the last tick recorded is {last_tick:?}"
                    ));
                }
                self.end = Some((tick, reason));
                Ok(())
            }
        }
    }

    /// A checkpoint is where replays and resumes restart: its snapshot must decode and be of
    /// its own tick, or a seek would never arrive.
    fn take_checkpoint(&mut self, tick: Tick, snapshot: Vec<u8>) -> Result<(), String> {
        if let Some(last) = self.last_tick.filter(|&t| t != tick) {
            return Err(format!("checkpoint of tick {tick} after tick {last}"));
        }
        let state = G::snapshot_from_bytes(&snapshot)
            .map_err(|e| format!("checkpoint of tick {tick}: {e}"))?;
        if G::snapshot_tick(&state) != tick {
            return Err(format!(
                "checkpoint of tick {tick} holds a snapshot of tick {}",
                G::snapshot_tick(&state)
            ));
        }
        self.last_tick = Some(tick);
        self.checkpoints.push((tick, snapshot));
        Ok(())
    }

    /// A transfer goes on from a later tick than the last one recorded; any other epoch from
    /// that very tick.
    fn take_epoch(&mut self, e: EpochRecord<G>) -> Result<(), String> {
        let last_tick = self.last_tick;
        let from = e.transfer.as_ref().map_or(e.tick, |t| t.from);
        if last_tick != Some(from) {
            return Err(format!(
                "epoch {} from tick {from}, but the last tick recorded is {last_tick:?}",
                e.epoch
            ));
        }
        if e.epoch <= self.last_epoch {
            return Err(format!("epoch {} after epoch {}", e.epoch, self.last_epoch));
        }
        if let Some(t) = &e.transfer {
            if t.from >= e.tick {
                return Err(format!(
                    "epoch {} transfers the state of tick {} after tick {}",
                    e.epoch, e.tick, t.from
                ));
            }
            // Replays and resumes go on from its snapshot, as from a resync's.
            let state = G::snapshot_from_bytes(&t.snapshot)
                .map_err(|err| format!("epoch {} transfer: {err}", e.epoch))?;
            let (at, hash) = (G::snapshot_tick(&state), G::snapshot_hash(&state));
            if at != e.tick || hash != e.hash {
                return Err(format!(
                    "epoch {} from tick {} transfers a snapshot of tick {at} hashing {:016x}, \
                     not {:016x}",
                    e.epoch,
                    e.tick,
                    hash.combined(),
                    e.hash.combined()
                ));
            }
            self.last_tick = Some(e.tick);
        }
        self.last_epoch = e.epoch;
        self.epochs.push(e);
        Ok(())
    }

    /// Replays and resumes go on from a resync's snapshot: it must decode, be of its own tick
    /// and be the state it names.
    fn take_resync(&mut self, r: ResyncRecord<G>) -> Result<(), String> {
        let last_tick = self.last_tick;
        if last_tick != Some(r.tick) {
            return Err(format!(
                "resync from tick {}, but the last tick recorded is {last_tick:?}",
                r.tick
            ));
        }
        if r.epoch <= self.last_epoch {
            return Err(format!("epoch {} after epoch {}", r.epoch, self.last_epoch));
        }
        if self.resyncs.last().is_some_and(|p| p.tick == r.tick) {
            return Err(format!("a second resync from tick {}", r.tick));
        }
        let state = G::snapshot_from_bytes(&r.snapshot)
            .map_err(|e| format!("resync at tick {}: {e}", r.tick))?;
        let (at, hash) = (G::snapshot_tick(&state), G::snapshot_hash(&state));
        if at != r.tick || hash != r.hash {
            return Err(format!(
                "the resync at tick {} holds a snapshot of tick {at} hashing {:016x}, not {:016x}",
                r.tick,
                hash.combined(),
                r.hash.combined()
            ));
        }
        self.last_epoch = r.epoch;
        self.resyncs.push(r);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Contract: a file of exactly the limit is read whole; one byte more is refused by its
    /// length; a file that grows past the limit while it is read (here a device without a
    /// length) is refused after `limit + 1` bytes instead of being read on.
    #[test]
    fn read_limited_takes_exactly_the_limit_and_refuses_one_byte_more() {
        let path = std::env::temp_dir().join(format!("duel-read-limited-{}", std::process::id()));
        std::fs::write(&path, [7u8; 16]).expect("write");
        assert_eq!(read_limited(&path, 16).expect("at the limit"), [7u8; 16]);
        assert_eq!(read_limited(&path, 17).expect("under the limit"), [7u8; 16]);
        let err = read_limited(&path, 15).unwrap_err();
        assert!(matches!(err, Error::LogTooLarge { limit: 15, .. }), "{err}");
        std::fs::remove_file(&path).expect("remove");
        #[cfg(unix)]
        {
            let err = read_limited(Path::new("/dev/zero"), 16).unwrap_err();
            assert!(matches!(err, Error::LogTooLarge { limit: 16, .. }), "{err}");
        }
    }
}
