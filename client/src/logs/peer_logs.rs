//! The logs a networked peer keeps of its final ticks: the hash log, the durable match log,
//! and snapshot dumps when a desync is detected. Shared by headless runs and the game.

use crate::error::Error;
use crate::forensics::{write_phase_trace, DesyncNotice, PhaseTrace};
use crate::logs::hashlog::{inputs_of, HashLogWriter, MatchIdentity};
use crate::logs::matchlog::{
    EpochRecord, LogHeader, MatchLogWriter, OutageRecord, Record, RejoinKey, ResyncRecord,
    StateTransfer, DEFAULT_CHECKPOINT_EVERY,
};
use crate::logs::tick_logs::TickLogs;
use crate::session::netplay::{EpochCause, NetPeer};
use game_api::{Game, Tick};
use std::net::SocketAddr;
use std::path::{Path, PathBuf};

/// Most desynced ticks whose snapshots are dumped in one match (each later tick differs too).
const MAX_DESYNC_DUMPS: usize = 3;

/// Where a peer's logs go; every part optional.
#[derive(Debug, Clone, Default)]
pub struct LogPaths {
    /// Per-tick hash log.
    pub hash_log: Option<PathBuf>,
    /// Durable match log.
    pub match_log: Option<PathBuf>,
    /// Directory for desync dumps (default: `<hash log>.dumps`).
    pub dump_dir: Option<PathBuf>,
}

/// The dump directory that belongs to a log: `<log>.dumps`.
#[must_use]
pub fn dumps_next_to(log: &Path) -> PathBuf {
    let mut name = log.as_os_str().to_owned();
    name.push(".dumps");
    PathBuf::from(name)
}

/// Writes a peer's final ticks, in order, to its logs.
#[derive(Debug)]
pub struct PeerLogs<G: Game> {
    role: &'static str,
    logs: TickLogs<G>,
    dump_dir: Option<PathBuf>,
    paths: LogPaths,
    dumped: Vec<Tick>,
    /// The earliest desynced tick a notice was returned for.
    noticed: Option<Tick>,
    logged: Tick,
    /// The peer's outages and epochs already recorded.
    outages_logged: usize,
    epochs_logged: usize,
}

/// What a player's match log keeps for `--rejoin`: its slot, the other player and the match's
/// secret (`None` for a spectator, or a match without a secret).
fn rejoin_key<G: Game>(peer: &NetPeer<G>) -> Option<RejoinKey> {
    let agreement = peer.agreement();
    Some(RejoinKey {
        slot: agreement.local_slot?,
        peer: agreement.remote_players.first()?.1.to_string(),
        secret: agreement.secret.clone()?,
    })
}

/// Writes the snapshots from the last agreeing check before `tick` through `tick`, each with
/// the per-phase hashes of the step that reached it. Returns the directory and the ticks dumped.
///
/// GGRS compares checksums every `interval` confirmed ticks, so the previous check was
/// normally `tick - interval` and agreed: the first divergent tick is among those dumped. (GGRS
/// may check a later frame than due when the due one is no longer saved; the hash logs, which
/// hold every tick, still name the first divergent tick then.)
fn dump_around<G: Game>(
    peer: &NetPeer<G>,
    dir: &Path,
    role: &str,
    tick: Tick,
) -> Result<(PathBuf, Tick, Tick), Error> {
    std::fs::create_dir_all(dir).map_err(|e| Error::io(dir, e))?;
    let driver = peer.driver();
    let back = peer.desync_interval().max(3);
    let mut first = tick;
    for t in tick.saturating_sub(back)..=tick {
        let Ok(snapshot) = driver.snapshot_at(t) else {
            continue;
        };
        first = first.min(t);
        let stem = format!("{role}-tick-{t}");
        if t + 3 >= tick {
            crate::session::synctest::write_snapshot::<G>(dir, &stem, snapshot)?;
        } else {
            // Older ticks (a long checksum interval): the bytes only, `duel-cli state` prints
            // them; the 25 KB text dumps are for the last few.
            let bin = dir.join(format!("{stem}.snapshot"));
            crate::forensics::dumps::write_snapshot_file::<G>(&bin, snapshot)?;
        }
        if let (Ok(hashes), Some(before)) = (driver.trace_tick(t), t.checked_sub(1)) {
            let trace = PhaseTrace::<G>::new(hashes, driver.inputs_at(before)?);
            write_phase_trace(dir, &stem, &trace)?;
        }
    }
    Ok((dir.to_owned(), first, tick))
}

/// `host`, `join` or `spectate`.
#[must_use]
pub fn role_of<G: Game>(peer: &NetPeer<G>) -> &'static str {
    match peer.local_slot() {
        Some(0) => "host",
        Some(_) => "join",
        None => "spectate",
    }
}

impl<G: Game> PeerLogs<G> {
    /// Opens the logs for `peer` (before its first tick). `bot_seed` is recorded when a bot plays.
    ///
    /// # Errors
    /// [`Error::Io`] creating the files.
    pub fn open(
        peer: &NetPeer<G>,
        paths: &LogPaths,
        bot_seed: Option<u64>,
    ) -> Result<PeerLogs<G>, Error> {
        let role = role_of(peer);
        // The logs start where the session did (the peer may have played, and predicted past
        // its final tick, already: those ticks are still in its history).
        let start = peer.driver().frame_base();
        let mut world = peer.world().clone();
        world
            .restore(peer.driver().snapshot_at(start)?)
            .map_err(Error::game)?;
        let world = &world;
        let hash_log = match &paths.hash_log {
            Some(path) => Some(HashLogWriter::create(
                path,
                &MatchIdentity::of_game(world, inputs_of(role, bot_seed)),
                role,
            )?),
            None => None,
        };
        let match_log = match &paths.match_log {
            Some(path) => Some(MatchLogWriter::create(
                path,
                &LogHeader {
                    rejoin: rejoin_key(peer),
                    ..LogHeader::for_game(world, role, bot_seed)
                },
                world,
                DEFAULT_CHECKPOINT_EVERY,
            )?),
            None => None,
        };
        let dump_dir = paths
            .dump_dir
            .clone()
            .or_else(|| paths.hash_log.as_deref().map(dumps_next_to))
            .or_else(|| paths.match_log.as_deref().map(dumps_next_to));
        Ok(PeerLogs {
            role,
            logs: TickLogs::new(hash_log, match_log),
            dump_dir,
            paths: paths.clone(),
            dumped: Vec::new(),
            noticed: None,
            logged: start,
            outages_logged: 0,
            epochs_logged: 0,
        })
    }

    /// The logs of a player that rejoined from its match log: that log continued by `writer`
    /// (reopened where it ended, at `logged`), and the hash log at `paths.hash_log` written
    /// afresh by `hash_log` (the caller fills in the ticks the match log already holds).
    #[must_use]
    pub fn rejoined(
        peer: &NetPeer<G>,
        paths: &LogPaths,
        hash_log: Option<HashLogWriter<G>>,
        writer: MatchLogWriter<G>,
        logged: Tick,
    ) -> PeerLogs<G> {
        let dump_dir = (paths.dump_dir.clone())
            .or_else(|| paths.hash_log.as_deref().map(dumps_next_to))
            .or_else(|| paths.match_log.as_deref().map(dumps_next_to));
        PeerLogs {
            role: role_of(peer),
            logs: TickLogs::new(hash_log, Some(writer)),
            dump_dir,
            paths: paths.clone(),
            dumped: Vec::new(),
            noticed: None,
            logged,
            outages_logged: 0,
            epochs_logged: 0,
        }
    }

    /// Logs every final tick not yet logged, up to `limit`.
    ///
    /// # Errors
    /// I/O errors, or a tick no longer in the peer's history (cannot happen while the logs are
    /// caught up every frame).
    pub fn catch_up(&mut self, peer: &NetPeer<G>, limit: Tick) -> Result<(), Error> {
        let upto = peer.final_tick().min(limit);
        self.note_happenings(peer)?;
        while self.logged < upto {
            let tick = self.logged + 1;
            let driver = peer.driver();
            let inputs = driver.inputs_at(tick - 1)?;
            let events = driver.events_at(tick - 1)?;
            // A resync replaced this tick's state by the host's after it was reached: the log
            // keeps this side's own state here, and the resync record after it.
            let replaced = peer.epochs().iter().find_map(|e| match &e.cause {
                EpochCause::Resync(detail) if e.tick == tick => Some(detail),
                _ => None,
            });
            let hash = match replaced {
                Some(detail) => detail.replaced,
                None => driver.hash_at(tick)?,
            };
            self.logs
                .record(tick, inputs, hash, events, || match replaced {
                    Some(detail) => Ok(&detail.replaced_state),
                    None => driver.snapshot_at(tick),
                })?;
            self.logged = tick;
            self.note_happenings(peer)?;
        }
        self.logs.flush_if_due()
    }

    /// Records the peer's outages and epochs that happened at the last tick logged (each
    /// follows the tick it happened after; one that happened earlier is recorded at once,
    /// after the last tick logged).
    fn note_happenings(&mut self, peer: &NetPeer<G>) -> Result<(), Error> {
        let logged = self.logged;
        while let Some(o) = peer.outages().get(self.outages_logged) {
            if o.tick > logged {
                break;
            }
            self.logs.note(&Record::Outage(OutageRecord {
                tick: logged,
                silent_ms: o.silent.as_millis() as u64,
            }))?;
            self.outages_logged += 1;
        }
        while let Some(e) = peer.epochs().get(self.epochs_logged) {
            // A transfer follows the log's last tick, and the log goes on from the epoch's.
            let after = match &e.cause {
                EpochCause::Transferred(t) => t.from,
                _ => e.tick,
            };
            if after > self.logged {
                break;
            }
            let record = match &e.cause {
                EpochCause::Rejoin | EpochCause::Followed => Record::Epoch(EpochRecord {
                    epoch: e.epoch,
                    tick: e.tick,
                    hash: e.hash,
                    peer: e.peer.to_string(),
                    transfer: None,
                }),
                EpochCause::Transferred(t) => {
                    self.logged = e.tick;
                    Record::Epoch(EpochRecord {
                        epoch: e.epoch,
                        tick: e.tick,
                        hash: e.hash,
                        peer: e.peer.to_string(),
                        transfer: Some(StateTransfer {
                            from: t.from,
                            snapshot: t.snapshot.clone(),
                        }),
                    })
                }
                EpochCause::Resync(detail) => Record::Resync(ResyncRecord {
                    epoch: e.epoch,
                    tick: e.tick,
                    desync: detail.desync,
                    replaced: detail.replaced,
                    hash: e.hash,
                    dumps: (!self.dumped.is_empty())
                        .then(|| self.dump_dir.as_ref().map(|d| d.display().to_string()))
                        .flatten(),
                    snapshot: detail.snapshot.clone(),
                }),
            };
            self.logs.note(&record)?;
            self.epochs_logged += 1;
        }
        Ok(())
    }

    /// Dumps what a desync at `tick` needs to be explained, and says so: the snapshots of every
    /// tick since the last agreeing checksum (at least the three before `tick`) and, beside
    /// each, the per-phase hashes of the step that reached it (see [`crate::forensics`]), named
    /// by role, for `duel-cli desync`. Only the first few desynced ticks are dumped; a notice is
    /// returned for the first detection, and again only for a tick earlier than every one
    /// noticed (every later tick differs too; an earlier one can be reported second).
    ///
    /// # Errors
    /// [`Error::Io`].
    pub fn on_desync(
        &mut self,
        peer: &NetPeer<G>,
        tick: Tick,
        local: u64,
        remote: u64,
        from: SocketAddr,
    ) -> Result<Option<DesyncNotice>, Error> {
        let first = self.noticed.is_none_or(|noticed| tick < noticed);
        if first {
            self.noticed = Some(tick);
        }
        let mut dumps = None;
        if let Some(dir) = &self.dump_dir {
            if !self.dumped.contains(&tick) && self.dumped.len() < MAX_DESYNC_DUMPS {
                self.dumped.push(tick);
                dumps = Some(dump_around(peer, dir, self.role, tick)?);
            }
        }
        Ok(first.then(|| DesyncNotice {
            tick,
            interval: peer.desync_interval(),
            local,
            remote,
            peer: from,
            dumps,
            hash_log: self.paths.hash_log.clone(),
            match_log: self.paths.match_log.clone(),
        }))
    }

    /// The last tick logged.
    #[must_use]
    pub fn logged(&self) -> Tick {
        self.logged
    }

    /// Flushes everything; a completed match gets its end record, an interrupted one is left
    /// open-ended (it reads as cut, not finished).
    ///
    /// # Errors
    /// [`Error::Io`].
    pub fn close(&mut self, completed: bool) -> Result<(), Error> {
        self.logs.close(completed)
    }
}
