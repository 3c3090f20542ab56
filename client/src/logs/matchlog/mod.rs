//! The durable match log of any [`Game`], which is also the replay file.
//!
//! Every type that holds a game's inputs, hashes or audited events is generic over the game
//! (`TickRecord<G>`, `MatchLog<G>`, `MatchLogWriter<G>`); the header names the game, and a log
//! read as another game is refused before any record is decoded as that game's
//! ([`Error::OtherGame`], naming both).
//!
//! A file starts with the 8-byte magic [`LOG_MAGIC`], then an append-only sequence of records,
//! each framed as
//! `len u32 ‖ lsn u64 ‖ prev_lsn u64 ‖ kind u8 ‖ prefix_check u32 ‖ payload ‖ check u64`
//! (little-endian). `prefix_check` is the low half of xxh3 over the 21 bytes before it, so the
//! length is checked before it is trusted; `check` is xxh3 over everything before it. LSNs
//! count up from 1 and every record names its predecessor, so a reader knows when anything is
//! missing or out of place:
//!
//! - a header (log format version first, then the game's name, version and snapshot format,
//!   the rules — their hash and their bytes ([`Game::rules_to_bytes`]) —, the match seed, the
//!   players, the mode, the bots' seed and where the run was to stop);
//! - one record per confirmed tick: every player's input, the resulting state hash and the
//!   step's audited events ([`Game::Audit`]: what a replay must reproduce exactly);
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
use game_api::{Game, Tick};
use serde::{Deserialize, Serialize};

/// Version of this log format; a log of another version is refused.
///
/// 3: rejoin keys, epoch and outage records. 4: resync records. 5: an epoch record may carry
/// the other player's state (a rejoin whose log ended before the other side's history).
/// 6: the header names the game and holds its rules as bytes; tick records hold the game's
/// inputs, hash and audited events.
pub const LOG_FORMAT_VERSION: u32 = 6;
/// The first bytes of every match log (since format version 2).
pub const LOG_MAGIC: &[u8; 8] = b"DUELMLOG";
/// Default distance between checkpoints, in ticks (5 s).
pub const DEFAULT_CHECKPOINT_EVERY: Tick = 300;

/// What a log is about. `format_version` comes first so it can be read before anything else.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LogHeader {
    /// [`LOG_FORMAT_VERSION`] of the writer.
    pub format_version: u32,
    /// The game played ([`Game::NAME`]).
    pub game: String,
    /// The game's version in the writer ([`Game::VERSION`]).
    pub game_version: String,
    /// The game's snapshot format in the writer ([`Game::SNAPSHOT_FORMAT`]).
    pub state_format: u32,
    /// Hash of the rules played ([`Game::rules_hash`]).
    pub rules_hash: u64,
    /// The rules played, as [`Game::rules_to_bytes`], so the log replays without any other
    /// file.
    pub rules: Vec<u8>,
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
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(bound = "")]
pub struct EpochRecord<G: Game> {
    /// The new epoch (the first session is epoch 1).
    pub epoch: u32,
    /// The resume tick: the last tick recorded before this record, unless a `transfer`
    /// skipped to it.
    pub tick: Tick,
    /// The state hash at `tick`, agreed by both sides.
    pub hash: G::Hash,
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
    /// The state at the epoch's tick, as [`Game::snapshot_to_bytes`].
    pub snapshot: Vec<u8>,
}

/// A desync repaired: after `tick` (recorded last, with this side's own state), the state is
/// the host's `snapshot`, and play went on from it under `epoch`.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(bound = "")]
pub struct ResyncRecord<G: Game> {
    /// The new epoch.
    pub epoch: u32,
    /// The resume tick: the last tick recorded before this record.
    pub tick: Tick,
    /// The tick the desync was detected at.
    pub desync: Tick,
    /// This side's own state hash at `tick` (the tick record's), replaced.
    pub replaced: G::Hash,
    /// The hash of the state that replaced it.
    pub hash: G::Hash,
    /// Where this side wrote its forensic dumps of the desync, if it did.
    pub dumps: Option<String>,
    /// The host's state at `tick`, as [`Game::snapshot_to_bytes`].
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
    /// A header for a match of `game` in `mode`.
    #[must_use]
    pub fn for_game<G: Game>(game: &G, mode: &str, bot_seed: Option<u64>) -> LogHeader {
        LogHeader {
            format_version: LOG_FORMAT_VERSION,
            game: G::NAME.to_owned(),
            game_version: G::VERSION.to_owned(),
            state_format: G::SNAPSHOT_FORMAT,
            rules_hash: G::rules_hash(game.rules()),
            rules: G::rules_to_bytes(game.rules()),
            match_seed: game.seed(),
            players: game.player_count() as u8,
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

    /// The rules in the header, as `G`'s, checked against the header's hash.
    ///
    /// # Errors
    /// [`Error::LogRules`] if the bytes are not `G`'s encoding of valid rules;
    /// [`Error::LogRulesMismatch`] if they do not hash to the recorded hash.
    pub fn rules<G: Game>(&self) -> Result<G::Rules, Error> {
        let rules = G::rules_from_bytes(&self.rules).ok_or_else(|| Error::LogRules {
            reason: format!(
                "{} bytes that are not the encoding of valid {} rules",
                self.rules.len(),
                G::NAME
            ),
        })?;
        let actual = G::rules_hash(&rules);
        if actual != self.rules_hash {
            return Err(Error::LogRulesMismatch {
                recorded: self.rules_hash,
                actual,
            });
        }
        Ok(rules)
    }
}

/// One confirmed tick: the inputs that produced the state at `tick`, its hash, and what the
/// step audited.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(bound = "")]
pub struct TickRecord<G: Game> {
    /// The state's tick (its inputs are those of the step from `tick - 1`).
    pub tick: Tick,
    /// Every player's input, in slot order.
    pub inputs: Vec<G::Input>,
    /// The state hash at `tick`.
    pub hash: G::Hash,
    /// The audited events of the step that led to `tick` ([`Game::audit`]: the duel's rail
    /// shots as judged, view and clamp included; the ring race's coins taken), in order
    /// (usually none). Verification re-simulates them and compares every field.
    pub audit: Vec<G::Audit>,
}

/// Equality field by field (the game itself need not be comparable).
macro_rules! eq_by_fields {
    ($ty:ident { $($field:ident),* }) => {
        impl<G: Game> PartialEq for $ty<G> {
            fn eq(&self, other: &Self) -> bool {
                $(self.$field == other.$field)&&*
            }
        }
    };
}
eq_by_fields!(TickRecord {
    tick,
    inputs,
    hash,
    audit
});
eq_by_fields!(EpochRecord {
    epoch,
    tick,
    hash,
    peer,
    transfer
});
eq_by_fields!(ResyncRecord {
    epoch,
    tick,
    desync,
    replaced,
    hash,
    dumps,
    snapshot
});

/// A record's payload.
#[derive(Debug, Clone)]
pub enum Record<G: Game> {
    /// The header (always the first record).
    Header(LogHeader),
    /// A confirmed tick.
    Tick(TickRecord<G>),
    /// The full state at `tick`, as [`Game::snapshot_to_bytes`].
    Checkpoint {
        /// Its tick.
        tick: Tick,
        /// The snapshot bytes.
        snapshot: Vec<u8>,
    },
    /// A new epoch began after this tick (see [`EpochRecord`]).
    Epoch(EpochRecord<G>),
    /// An outage the match came through (see [`OutageRecord`]).
    Outage(OutageRecord),
    /// A desync repaired after this tick (see [`ResyncRecord`]).
    Resync(ResyncRecord<G>),
    /// The match ended cleanly.
    End {
        /// Last tick.
        tick: Tick,
        /// Why.
        reason: String,
    },
}

impl<G: Game> PartialEq for Record<G> {
    fn eq(&self, other: &Self) -> bool {
        match (self, other) {
            (Record::Header(a), Record::Header(b)) => a == b,
            (Record::Tick(a), Record::Tick(b)) => a == b,
            (
                Record::Checkpoint { tick, snapshot },
                Record::Checkpoint {
                    tick: t,
                    snapshot: s,
                },
            ) => tick == t && snapshot == s,
            (Record::Epoch(a), Record::Epoch(b)) => a == b,
            (Record::Outage(a), Record::Outage(b)) => a == b,
            (Record::Resync(a), Record::Resync(b)) => a == b,
            (Record::End { tick, reason }, Record::End { tick: t, reason: r }) => {
                tick == t && reason == r
            }
            _ => false,
        }
    }
}
