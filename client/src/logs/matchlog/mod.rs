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
//! - in a networked match, a record of each outage it came through, and of each new epoch (a
//!   player took its slot back after its process died: play went on from the tick recorded
//!   last, whose state hash the epoch record holds and `verify` checks), and of each resync
//!   after a desync (the host's snapshot that replaced the state of the tick recorded last:
//!   `verify`, replays and resumes go on from it);
//! - an end record on a clean exit.
//!
//! New record kinds join [`Record`] and the kind dispatch in `record.rs` (one kind byte, one
//! match arm each in `encode_payload` and `decode_payload`), and the format version goes up.
//! The writer is in `writer.rs`, the strict reader in `read.rs`.
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
//! - a *power-loss hole*: a record damaged by a run of zeros that holds a whole 512-byte block
//!   aligned in the file, with written bytes after it — out-of-order writeback wrote later
//!   blocks but not the hole's. The log is cut before the damaged record, the hole is reported
//!   ([`MatchLog::hole`]), and a resume keeps the cut bytes beside the log.
//!
//! Anything else (a damaged record with no such hole) is an error: a record is never skipped.
//!
//! # Durability
//!
//! - Records go through a buffer handed to the OS at least once a second, at every checkpoint
//!   and on exit. What the OS holds survives the process being killed (even `kill -9`): a killed
//!   match loses at most the last second of ticks, and its log ends at most in a torn tail.
//! - The file is `fsync`ed (data) when it is created (its directory entry too, on Unix), at
//!   every checkpoint, when a resume cuts a tail and at the end record. A power loss or OS crash loses at most what was written since
//!   the last checkpoint (5 s of ticks at the default) — the log then ends in a torn or
//!   zero-filled tail, both read as above.
//! - The writer holds an exclusive lock on the file (`File::try_lock`, advisory: `flock` on
//!   Unix) from creation or resume until it is dropped, so a second writer — a `resume` of a
//!   match that is still running — is refused instead of interleaving records.

mod read;
mod record;
mod writer;

pub(crate) use read::read_limited;
pub use read::{read_log, Hole, MatchLog};
pub use writer::{lost_bytes_path, MatchLogWriter};

use crate::error::Error;
use engine::{Rules, ShotRecord, StateHash, Tick, WireInput, World};
use serde::{Deserialize, Serialize};

/// Version of this log format; a log of another version is refused.
///
/// 3: rejoin keys, epoch and outage records. 4: resync records. 5: an epoch record may carry
/// the other player's state (a rejoin whose log ended before the other side's history).
pub const LOG_FORMAT_VERSION: u32 = 5;
/// The first bytes of every match log (since format version 2).
pub const LOG_MAGIC: &[u8; 8] = b"DUELMLOG";
/// Default distance between checkpoints, in ticks (5 s).
pub const DEFAULT_CHECKPOINT_EVERY: Tick = 300;

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
    /// A networked player's slot, the other player's address as this side knew it, and the
    /// match's secret (the key of a rejoin, never sent in clear): what `--rejoin` needs.
    pub rejoin: Option<RejoinKey>,
}

/// What a player's log keeps to take its slot back after its process died.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RejoinKey {
    /// The slot this side played.
    pub slot: u8,
    /// The other player's address, as this side knew it.
    pub peer: String,
    /// The match's secret.
    pub secret: crate::net::seal::MatchSecret,
}

/// A new epoch of a networked match: a player whose process died took its slot back, and
/// play went on from `tick` (whose state both sides held, with hash `hash`) in a new session.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct EpochRecord {
    /// The new epoch (the first session is epoch 1).
    pub epoch: u32,
    /// The resume tick: the last tick recorded before this record, unless a `transfer`
    /// skipped to it.
    pub tick: Tick,
    /// The state hash at `tick`, agreed by both sides.
    pub hash: StateHash,
    /// Where the other player is heard from in the new epoch.
    pub peer: String,
    /// The other player's state at `tick`, when this side's log ended before the history the
    /// other side keeps (its process died long before it came back).
    pub transfer: Option<StateTransfer>,
}

/// A state sent whole by the other player: this side's log ends at `from`, the ticks after it
/// up to the epoch's tick are in no record of this log, and play went on from `snapshot`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct StateTransfer {
    /// The last tick this side recorded before the transfer (before the epoch's tick).
    pub from: Tick,
    /// The state at the epoch's tick, as `WorldSnapshot::to_bytes`.
    pub snapshot: Vec<u8>,
}

/// A desync repaired: after `tick` (recorded last, with this side's own state), the state is
/// the host's `snapshot`, and play went on from it under `epoch`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ResyncRecord {
    /// The new epoch.
    pub epoch: u32,
    /// The resume tick: the last tick recorded before this record.
    pub tick: Tick,
    /// The tick the desync was detected at.
    pub desync: Tick,
    /// This side's own state hash at `tick` (the tick record's), replaced.
    pub replaced: StateHash,
    /// The hash of the state that replaced it.
    pub hash: StateHash,
    /// Where this side wrote its forensic dumps of the desync, if it did.
    pub dumps: Option<String>,
    /// The host's state at `tick`, as `WorldSnapshot::to_bytes`.
    pub snapshot: Vec<u8>,
}

/// An outage the match came through without a new epoch: the other side went silent and was
/// heard again within the reconnect grace.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct OutageRecord {
    /// The last final tick when the other side was heard again (the last tick recorded before
    /// this record).
    pub tick: Tick,
    /// How long it was silent, in milliseconds.
    pub silent_ms: u64,
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
            rejoin: None,
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
    /// The rail shots resolved by the step that led to `tick`, in resolution order (usually
    /// none). Verification re-simulates them and compares every field, view and clamp
    /// included, so a log shows exactly how each shot was judged.
    pub shots: Vec<ShotRecord>,
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
    /// A new epoch began after this tick (see [`EpochRecord`]).
    Epoch(EpochRecord),
    /// An outage the match came through (see [`OutageRecord`]).
    Outage(OutageRecord),
    /// A desync repaired after this tick (see [`ResyncRecord`]).
    Resync(ResyncRecord),
    /// The match ended cleanly.
    End {
        /// Last tick.
        tick: Tick,
        /// Why.
        reason: String,
    },
}
