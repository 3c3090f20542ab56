//! Re-simulating match logs of any [`Game`]: verification, seeking for replays, and resuming
//! after a crash. The game is the log's (`MatchLog<G>`): every function here is the same code
//! for the duel and the ring race.

use crate::error::Error;
use crate::logs::hashlog::HashLogWriter;
use crate::logs::matchlog::{
    EpochRecord, MatchLog, MatchLogWriter, Record, ResyncRecord, TickRecord,
};
use game_api::{Game, SectionHash, Tick};

/// What a verification went through.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct VerifyReport {
    /// Ticks re-simulated and matched.
    pub ticks: Tick,
    /// Checkpoints compared byte for byte.
    pub checkpoints: usize,
    /// Whether the log ended cleanly (else it was cut, possibly with a torn tail).
    pub ended: bool,
    /// Bytes of torn tail ignored.
    pub torn_bytes: u64,
}

/// The rules a log was played under: its own, or `expected` if the caller insists (then the
/// hashes must agree).
///
/// # Errors
/// [`Error::LogRulesMismatch`].
pub fn log_rules<G: Game>(
    log: &MatchLog<G>,
    expected: Option<&G::Rules>,
) -> Result<G::Rules, Error> {
    let rules = log.header.rules::<G>()?;
    if let Some(expected) = expected {
        let actual = G::rules_hash(expected);
        if actual != log.header.rules_hash {
            return Err(Error::LogRulesMismatch {
                recorded: log.header.rules_hash,
                actual,
            });
        }
    }
    Ok(rules)
}

/// A log re-simulates honestly only under the game, game version and snapshot format that
/// wrote it.
///
/// # Errors
/// [`Error::LogBuild`] naming what differs.
pub fn same_build<G: Game>(log: &MatchLog<G>) -> Result<(), Error> {
    let header = &log.header;
    let differs = |what, logged: &str, ours: &str| Error::LogBuild {
        what,
        logged: crate::net::wire::printable(logged, 40),
        ours: ours.to_owned(),
    };
    if header.game != G::NAME {
        return Err(differs("game", &header.game, G::NAME));
    }
    if header.game_version != G::VERSION {
        return Err(differs("game version", &header.game_version, G::VERSION));
    }
    if header.state_format != G::SNAPSHOT_FORMAT {
        let (logged, ours) = (header.state_format, G::SNAPSHOT_FORMAT);
        return Err(differs(
            "state format",
            &logged.to_string(),
            &ours.to_string(),
        ));
    }
    Ok(())
}

fn check<G: Game>(record: &TickRecord<G>, got: G::Hash) -> Result<(), Error> {
    match record.hash.first_difference(&got) {
        // Every section agrees, but a record's combined hash could still be wrong (forged or
        // damaged in a way its checksum does not see): it is compared too.
        None if record.hash.combined() != got.combined() => Err(Error::VerifyMismatch {
            tick: record.tick,
            section: "combined",
            logged: record.hash.combined(),
            got: got.combined(),
        }),
        None => Ok(()),
        Some(section) => Err(Error::VerifyMismatch {
            tick: record.tick,
            section: <G::Hash as SectionHash>::SECTIONS
                .get(section)
                .copied()
                .unwrap_or("section"),
            logged: record.hash.section(section),
            got: got.section(section),
        }),
    }
}

/// The logged audited events of `record` must be exactly the re-simulated ones (`scratch`
/// holds them, reused from tick to tick).
fn check_audit<G: Game>(
    record: &TickRecord<G>,
    events: &[G::Event],
    scratch: &mut Vec<G::Audit>,
) -> Result<(), Error> {
    scratch.clear();
    G::audit(events, scratch);
    if *scratch == record.audit {
        return Ok(());
    }
    Err(Error::AuditMismatch {
        tick: record.tick,
        logged: format!("{:?}", record.audit),
        got: format!("{scratch:?}"),
    })
}

/// Re-simulates the whole log from its header: every recorded hash and every checkpoint must
/// match.
///
/// # Errors
/// [`Error::VerifyMismatch`] at the first tick and section that differ; rules errors.
pub fn verify<G: Game>(log: &MatchLog<G>, rules: Option<&G::Rules>) -> Result<VerifyReport, Error> {
    verify_logging(log, rules, None)
}

/// As [`verify`], also writing every re-simulated tick to a hash log (replays are one of the
/// modes that can produce a hash log comparable with the players' own).
///
/// # Errors
/// As [`verify`], and I/O errors writing the hash log.
pub fn verify_logging<G: Game>(
    log: &MatchLog<G>,
    rules: Option<&G::Rules>,
    hash_log: Option<&mut HashLogWriter<G>>,
) -> Result<VerifyReport, Error> {
    resimulate(log, rules, hash_log, None).map(|(report, _)| report)
}

/// The game at `tick` of a logged match, re-simulated from the header with every record and
/// every checkpoint on the way checked, as [`verify`] does: a checkpoint is never taken on
/// trust (a forged one with a valid checksum would otherwise be believed).
///
/// # Errors
/// As [`verify`]; [`Error::LogEndsBefore`] if the log ends before `tick`.
pub fn verified_state_at<G: Game>(log: &MatchLog<G>, tick: Tick) -> Result<G, Error> {
    let (_, world) = resimulate(log, None, None, Some(tick))?;
    if world.tick() != tick {
        return Err(Error::LogEndsBefore {
            tick,
            last: world.tick(),
        });
    }
    Ok(world)
}

/// Re-simulates `log` from its header up to `until` (or its end), checking every tick record,
/// audited event and checkpoint on the way; the report and the game where it stopped.
fn resimulate<G: Game>(
    log: &MatchLog<G>,
    rules: Option<&G::Rules>,
    mut hash_log: Option<&mut HashLogWriter<G>>,
    until: Option<Tick>,
) -> Result<(VerifyReport, G), Error> {
    let rules = log_rules(log, rules)?;
    same_build(log)?;
    let mut world = log_origin(log, &rules)?;
    let mut marks = Milestones::new(log, &world);
    marks.compare_checkpoint(&world)?;
    marks.check_epochs(&world, hash_log.as_deref_mut())?;
    let mut resyncs = log.resyncs.iter().peekable();
    apply_resyncs(&mut resyncs, &mut world, hash_log.as_deref_mut())?;
    let mut audit = Vec::new();
    for record in &log.ticks {
        if until.is_some_and(|t| world.tick() >= t) {
            break;
        }
        if record.tick != world.tick() + 1 {
            // The reader lets ticks skip only across a transfer, which goes on from here to
            // the tick before this record's.
            apply_transfer(log, &mut world, hash_log.as_deref_mut())?;
            marks.compare_checkpoint(&world)?;
        }
        world.step(&record.inputs).map_err(Error::game)?;
        check(record, world.state_hash())?;
        check_audit(record, world.last_events(), &mut audit)?;
        if let Some(out) = hash_log.as_deref_mut() {
            out.record(world.tick(), &world.state_hash())?;
        }
        marks.compare_checkpoint(&world)?;
        marks.check_epochs(&world, hash_log.as_deref_mut())?;
        apply_resyncs(&mut resyncs, &mut world, hash_log.as_deref_mut())?;
    }
    // A log may end with a transfer (no tick recorded after it).
    if until.is_none_or(|t| world.tick() < t) && log.transfer_from(world.tick()).is_some() {
        apply_transfer(log, &mut world, hash_log)?;
        marks.compare_checkpoint(&world)?;
    }
    let report = VerifyReport {
        ticks: world.tick(),
        checkpoints: marks.compared,
        ended: log.end.is_some(),
        torn_bytes: log.torn_bytes,
    };
    Ok((report, world))
}

/// Where a log begins: its first checkpoint — tick 0 of the match, or the tick a spectator
/// joined a running match at (the state it was sent) — whose seed must be the header's.
fn log_origin<G: Game>(log: &MatchLog<G>, rules: &G::Rules) -> Result<G, Error> {
    match log.checkpoints.first() {
        Some((tick, bytes)) if *tick > 0 => {
            let world = restore::<G>(rules, *tick, bytes)?;
            if world.seed() != log.header.match_seed {
                return Err(Error::VerifyMismatch {
                    tick: *tick,
                    section: "checkpoint seed",
                    logged: log.header.match_seed,
                    got: world.seed(),
                });
            }
            Ok(world)
        }
        _ => start_of(log, rules),
    }
}

/// The log's checkpoints and epochs, each checked once the re-simulation reaches its tick.
struct Milestones<'a, G: Game> {
    checkpoints: std::iter::Peekable<std::slice::Iter<'a, (Tick, Vec<u8>)>>,
    epochs: std::iter::Peekable<std::slice::Iter<'a, EpochRecord<G>>>,
    /// The game's own snapshot, reused: comparing checkpoints allocates nothing per tick.
    ours: G::Snapshot,
    /// Checkpoints compared so far.
    compared: usize,
}

impl<'a, G: Game> Milestones<'a, G> {
    fn new(log: &'a MatchLog<G>, world: &G) -> Self {
        Milestones {
            checkpoints: log.checkpoints.iter().peekable(),
            epochs: log.epochs.iter().peekable(),
            ours: world.snapshot(),
            compared: 0,
        }
    }

    /// The checkpoints up to `world`'s tick: the one at its tick must be its state.
    fn compare_checkpoint(&mut self, world: &G) -> Result<(), Error> {
        while let Some((tick, bytes)) = self.checkpoints.next_if(|c| c.0 <= world.tick()) {
            if *tick == world.tick() {
                let logged = G::snapshot_from_bytes(bytes).map_err(Error::game)?;
                world.save_into(&mut self.ours);
                if logged != self.ours {
                    let (logged, got) = (G::snapshot_hash(&logged), world.state_hash());
                    let section = (logged.first_difference(&got))
                        .and_then(|i| <G::Hash as SectionHash>::SECTIONS.get(i).copied());
                    return Err(Error::VerifyMismatch {
                        tick: *tick,
                        section: section.unwrap_or("snapshot"),
                        logged: logged.combined(),
                        got: got.combined(),
                    });
                }
                self.compared += 1;
            }
        }
        Ok(())
    }

    /// A new epoch resumed from the state both sides held: the log's own state there must be
    /// it (and a hash log written from a replay marks it as the players' do). A transfer's
    /// epoch is applied where its `from` is reached (`apply_transfer`).
    fn check_epochs(
        &mut self,
        world: &G,
        mut out: Option<&mut HashLogWriter<G>>,
    ) -> Result<(), Error> {
        while let Some(epoch) = self.epochs.next_if(|e| e.tick <= world.tick()) {
            if epoch.transfer.is_some() {
                continue;
            }
            if epoch.tick == world.tick() && epoch.hash != world.state_hash() {
                return Err(Error::VerifyMismatch {
                    tick: epoch.tick,
                    section: "epoch",
                    logged: epoch.hash.combined(),
                    got: world.state_hash().combined(),
                });
            }
            if let Some(out) = out.as_deref_mut() {
                out.mark_epoch(epoch.epoch, epoch.tick)?;
            }
        }
        Ok(())
    }
}

/// Replaces `world` by the snapshot of each resync at its tick: the log's own state there
/// must be the one the record says it replaced, and the snapshot the state it names (a hash
/// log written from a replay marks the new epoch as the players' do).
fn apply_resyncs<G: Game>(
    resyncs: &mut std::iter::Peekable<std::slice::Iter<'_, ResyncRecord<G>>>,
    world: &mut G,
    out: Option<&mut HashLogWriter<G>>,
) -> Result<(), Error> {
    let mut out = out;
    while let Some(r) = resyncs.next_if(|r| r.tick <= world.tick()) {
        if r.tick != world.tick() {
            continue;
        }
        if r.replaced != world.state_hash() {
            return Err(Error::VerifyMismatch {
                tick: r.tick,
                section: "resync",
                logged: r.replaced.combined(),
                got: world.state_hash().combined(),
            });
        }
        *world = restore::<G>(world.rules(), r.tick, &r.snapshot)?;
        if world.state_hash() != r.hash {
            return Err(Error::VerifyMismatch {
                tick: r.tick,
                section: "resync snapshot",
                logged: r.hash.combined(),
                got: world.state_hash().combined(),
            });
        }
        if let Some(out) = out.as_deref_mut() {
            out.mark_epoch(r.epoch, r.tick)?;
        }
    }
    Ok(())
}

/// Replaces `world` by the state of the transfer that goes on from its tick, checked to be the
/// state its epoch names (a hash log written from a replay marks the epoch there, after the
/// ticks this log lacks).
///
/// # Errors
/// [`Error::TickRecordMissing`] when no transfer goes on from here (ticks missing from the
/// log); [`Error::VerifyMismatch`] when its state is not the one named; snapshot errors.
fn apply_transfer<G: Game>(
    log: &MatchLog<G>,
    world: &mut G,
    out: Option<&mut HashLogWriter<G>>,
) -> Result<(), Error> {
    let Some((epoch, transfer)) = log.transfer_from(world.tick()) else {
        return Err(Error::TickRecordMissing {
            tick: world.tick() + 1,
        });
    };
    *world = restore::<G>(world.rules(), epoch.tick, &transfer.snapshot)?;
    if world.state_hash() != epoch.hash {
        return Err(Error::VerifyMismatch {
            tick: epoch.tick,
            section: "transfer snapshot",
            logged: epoch.hash.combined(),
            got: world.state_hash().combined(),
        });
    }
    if let Some(out) = out {
        out.mark_transfer(epoch.epoch, epoch.tick)?;
    }
    Ok(())
}

/// A game positioned anywhere in a logged match, for replay viewers.
#[derive(Debug)]
pub struct Replay<G: Game> {
    log: MatchLog<G>,
    rules: G::Rules,
    world: G,
}

impl<G: Game> Replay<G> {
    /// A replay at the log's first checkpoint.
    ///
    /// # Errors
    /// Rules or snapshot errors from the log.
    pub fn new(log: MatchLog<G>) -> Result<Replay<G>, Error> {
        let rules = log_rules(&log, None)?;
        let first = log.checkpoints.first().map(|c| c.0);
        let world = match first.and_then(|t| log.checkpoint_before(t)) {
            Some((tick, bytes)) => restore::<G>(&rules, tick, bytes)?,
            // Torn inside its first checkpoint: the header holds all that tick 0 needs.
            None => start_of(&log, &rules)?,
        };
        Ok(Replay { log, rules, world })
    }

    /// The log.
    #[must_use]
    pub fn log(&self) -> &MatchLog<G> {
        &self.log
    }

    /// The game at the current position.
    #[must_use]
    pub fn world(&self) -> &G {
        &self.world
    }

    /// The last tick that can be shown.
    #[must_use]
    pub fn last_tick(&self) -> Tick {
        self.log.last_tick()
    }

    /// Moves to `tick` (clamped to the log): restores the nearest checkpoint at or before it and
    /// re-applies the logged ticks from there, checking each hash.
    ///
    /// # Errors
    /// [`Error::VerifyMismatch`] if the log does not replay; [`Error::TickRecordMissing`] if
    /// its records do not reach `tick`; snapshot errors.
    pub fn seek(&mut self, tick: Tick) -> Result<(), Error> {
        let tick = tick.min(self.last_tick());
        let now = self.world.tick();
        match self.log.checkpoint_before(tick) {
            Some((from, bytes)) if !(now >= from && now <= tick) => {
                self.world = restore::<G>(&self.rules, from, bytes)?;
            }
            // No checkpoint at or before `tick` (the first one was torn): from the header.
            None if now > tick => self.world = start_of(&self.log, &self.rules)?,
            _ => {}
        }
        while self.world.tick() < tick {
            // A log whose tick records do not reach `tick` from the checkpoint ends the seek
            // with an error rather than a wait for a record that never comes.
            if !self.step()? {
                return Err(Error::TickRecordMissing {
                    tick: self.world.tick() + 1,
                });
            }
        }
        Ok(())
    }

    /// Advances one logged tick, or across the ticks a state transfer skipped (to its tick);
    /// returns false at the end of the log.
    ///
    /// # Errors
    /// [`Error::VerifyMismatch`] if the state differs from the log.
    pub fn step(&mut self) -> Result<bool, Error> {
        if self.log.transfer_from(self.world.tick()).is_some() {
            apply_transfer(&self.log, &mut self.world, None)?;
            return Ok(true);
        }
        // A crafted log can hold a checkpoint at the last tick, which has no next one.
        let next = self.world.tick().checked_add(1);
        let Some(record) = next.and_then(|t| self.log.tick_record(t)) else {
            return Ok(false);
        };
        self.world.step(&record.inputs).map_err(Error::game)?;
        check(record, self.world.state_hash())?;
        // A resync replaced the state of this tick: the match went on from the host's.
        if let Some(r) = self.log.resync_at(self.world.tick()) {
            self.world = restore::<G>(&self.rules, r.tick, &r.snapshot)?;
        }
        Ok(true)
    }
}

/// Reopens a log read with [`crate::logs::matchlog::read_log`] to continue it: the game at its
/// last tick, re-simulated from the header and checked as [`verified_state_at`] does *before*
/// the file is touched (a log that does not replay keeps everything), and its writer, having
/// written the checkpoint a cut left missing at that tick (between a checkpoint tick's record
/// and its checkpoint, or inside the very first one): the continued log is the one the
/// uninterrupted run would have written.
///
/// # Errors
/// As [`verified_state_at`] and [`crate::logs::matchlog::MatchLogWriter::resume`].
pub fn reopen_for_resume<G: Game>(
    path: &std::path::Path,
    log: &MatchLog<G>,
    checkpoint_every: Tick,
) -> Result<(G, MatchLogWriter<G>), Error> {
    let at = log.last_tick();
    let world = verified_state_at(log, at)?;
    let mut writer = MatchLogWriter::resume(path, log, checkpoint_every)?;
    let has_checkpoint = log.checkpoints.last().is_some_and(|c| c.0 == at);
    if writer.is_checkpoint_tick(at) && !has_checkpoint {
        writer.append(&Record::Checkpoint {
            tick: at,
            snapshot: G::snapshot_to_bytes(&world.snapshot()),
        })?;
        writer.sync()?;
    }
    Ok((world, writer))
}

/// The game at tick 0 of the match a log's header describes.
fn start_of<G: Game>(log: &MatchLog<G>, rules: &G::Rules) -> Result<G, Error> {
    let players = usize::from(log.header.players);
    G::new(rules.clone(), log.header.match_seed, players).map_err(Error::game)
}

/// The game of checkpoint `(tick, bytes)`, refusing a snapshot of another tick (a crafted log
/// could otherwise send a seek after a tick it never reaches).
fn restore<G: Game>(rules: &G::Rules, tick: Tick, bytes: &[u8]) -> Result<G, Error> {
    let snapshot = G::snapshot_from_bytes(bytes).map_err(Error::game)?;
    let held = G::snapshot_tick(&snapshot);
    if held != tick {
        return Err(Error::VerifyMismatch {
            tick,
            section: "checkpoint tick",
            logged: u64::from(tick),
            got: u64::from(held),
        });
    }
    G::from_snapshot(rules.clone(), &snapshot).map_err(Error::game)
}

/// Rebuilds the game at the end of a log after a crash: the last checkpoint, then every logged
/// tick after it, checking each hash. The result equals the logged state at every tick.
///
/// # Errors
/// As [`Replay::seek`].
pub fn recover<G: Game>(log: MatchLog<G>) -> Result<G, Error> {
    let last = log.last_tick();
    let mut replay = Replay::new(log)?;
    replay.seek(last)?;
    Ok(replay.world)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::logs::matchlog::{LogHeader, StateTransfer};
    use engine::{Rules, World, WorldSnapshot};

    /// Seeking lands exactly on the tick asked for, in the logged state: forwards, backwards
    /// (from a checkpoint before it, not by staying ahead), to the start, and past the end
    /// (clamped to the last tick, not an error).
    #[test]
    fn seeking_forwards_backwards_and_past_the_end_lands_on_the_logged_state() {
        let (dir, log) = crate::runs::logged_bot_match("replay-seek", 8, 900);
        assert!(log.checkpoints.len() >= 3, "checkpoints to seek between");
        let last = log.last_tick();
        let logged = |t: Tick| log.tick_record(t).expect("record").hash;
        let mut replay = Replay::new(log.clone()).expect("replay");
        let start = replay.world().state_hash();
        for target in [850, 30, 31, 650, 0, 899, 320, 301, 299] {
            replay.seek(target).expect("seek");
            assert_eq!(replay.world().tick(), target, "seek to {target}");
            let want = if target == 0 { start } else { logged(target) };
            assert_eq!(replay.world().state_hash(), want, "state at {target}");
        }
        for beyond in [last + 1, Tick::MAX] {
            replay.seek(beyond).expect("past the end is the end");
            assert_eq!(replay.world().tick(), last);
            assert_eq!(replay.world().state_hash(), logged(last));
        }
        let _ = std::fs::remove_dir_all(&dir);
    }

    /// `log`'s match played from its header to `tick` with its logged inputs, checking nothing
    /// (the fixtures' own re-simulation, independent of the code under test).
    fn played_to(log: &MatchLog<World>, tick: Tick) -> World {
        let mut world = World::new(Rules::default(), log.header.match_seed, 2).expect("world");
        for record in log.ticks.iter().take_while(|r| r.tick <= tick) {
            Game::step(&mut world, &record.inputs).expect("step");
        }
        world
    }

    /// `log`'s ticks after `from` up to `to` cut, and epoch 2 going on from its state at `to`,
    /// sent whole: a rejoiner's log.
    fn transferred(log: &MatchLog<World>, from: Tick, to: Tick) -> MatchLog<World> {
        let sent = played_to(log, to);
        let mut cut = log.clone();
        cut.ticks.retain(|r| r.tick <= from || r.tick > to);
        cut.checkpoints.retain(|c| c.0 <= from || c.0 > to);
        cut.epochs.push(EpochRecord {
            epoch: 2,
            tick: to,
            hash: sent.state_hash(),
            peer: "127.0.0.1:7000".into(),
            transfer: Some(StateTransfer {
                from,
                snapshot: World::snapshot_to_bytes(&Game::snapshot(&sent)),
            }),
        });
        cut
    }

    /// `log` with its state after `at` replaced by a resync (epoch 2) to another state of that
    /// tick (its match's with the random state changed, as a host's may differ), and every later
    /// record and checkpoint as the match went on from there.
    fn resynced(log: &MatchLog<World>, at: Tick) -> MatchLog<World> {
        let own = played_to(log, at);
        let mut host = own.snapshot();
        host.rng.state ^= 2;
        let mut world = World::from_snapshot(Rules::default(), &host).expect("the host's state");
        let mut out = log.clone();
        out.resyncs.push(ResyncRecord {
            epoch: 2,
            tick: at,
            desync: at,
            replaced: own.state_hash(),
            hash: world.state_hash(),
            dumps: None,
            snapshot: host.to_bytes(),
        });
        for record in out.ticks.iter_mut().filter(|r| r.tick > at) {
            Game::step(&mut world, &record.inputs).expect("step");
            record.hash = world.state_hash();
            record.audit.clear();
            World::audit(world.last_events(), &mut record.audit);
            if let Some(c) = out.checkpoints.iter_mut().find(|c| c.0 == record.tick) {
                c.1 = World::snapshot_to_bytes(&Game::snapshot(&world));
            }
        }
        out
    }

    fn refused<T: std::fmt::Debug>(result: Result<T, Error>) -> Error {
        result.expect_err("refused")
    }

    /// Asserts that `result` is a state mismatch at `tick` in `section`.
    fn refused_at<T: std::fmt::Debug>(result: Result<T, Error>, tick: Tick, section: &str) {
        match refused(result) {
            Error::VerifyMismatch {
                tick: at,
                section: named,
                ..
            } => assert_eq!((at, named), (tick, section)),
            e => panic!("{e}"),
        }
    }

    /// A verification may insist on rules: the log's own are taken, any others refused with
    /// both hashes.
    #[test]
    fn rules_insisted_on_must_be_the_logs_own() {
        let (dir, log) = crate::runs::logged_bot_match("replay-rules", 3, 30);
        let own = log_rules(&log, None).expect("the log's rules");
        assert_eq!(log_rules(&log, Some(&own)).expect("its own rules"), own);
        assert_eq!(verify(&log, Some(&own)).expect("verifies").ticks, 30);
        let other = Rules {
            max_hp: 101,
            ..Rules::default()
        };
        match refused(verify(&log, Some(&other))) {
            Error::LogRulesMismatch { recorded, actual } => assert_eq!(
                (recorded, actual),
                (log.header.rules_hash, World::rules_hash(&other))
            ),
            e => panic!("{e}"),
        }
        let _ = std::fs::remove_dir_all(&dir);
    }

    /// A log of another game, game version or snapshot format is refused, naming which.
    #[test]
    fn a_log_of_another_build_is_refused_naming_what_differs() {
        let (dir, log) = crate::runs::logged_bot_match("replay-build", 3, 30);
        type Edit = fn(&mut LogHeader);
        let edits: [(&str, Edit); 3] = [
            ("game", |h| h.game = "ring-race".into()),
            ("game version", |h| h.game_version.push('+')),
            ("state format", |h| h.state_format += 1),
        ];
        for (what, edit) in edits {
            let mut other = log.clone();
            edit(&mut other.header);
            match refused(verify(&other, None)) {
                Error::LogBuild { what: named, .. } => assert_eq!(named, what),
                e => panic!("{what}: {e}"),
            }
        }
        let _ = std::fs::remove_dir_all(&dir);
    }

    /// A record whose combined hash is wrong is refused even though every section agrees.
    #[test]
    fn a_forged_combined_hash_is_refused_though_every_section_agrees() {
        let (dir, log) = crate::runs::logged_bot_match("replay-combined", 3, 30);
        let mut forged = log.clone();
        forged.ticks[19].hash.combined ^= 1;
        match refused(verify(&forged, None)) {
            Error::VerifyMismatch {
                tick,
                section,
                logged,
                got,
            } => {
                assert_eq!((tick, section), (20, "combined"));
                assert_eq!(logged ^ 1, got);
            }
            e => panic!("{e}"),
        }
        let _ = std::fs::remove_dir_all(&dir);
    }

    /// The audited events logged at a tick must be those the re-simulation gives: a rail shot
    /// taken out of its record is named at its tick.
    #[test]
    fn a_logged_audit_that_differs_from_the_re_simulated_one_is_refused() {
        let (dir, log) = crate::runs::logged_bot_match("replay-audit", 8, 900);
        let shot = (log.ticks.iter())
            .position(|r| !r.audit.is_empty())
            .expect("a rail shot");
        let mut forged = log.clone();
        forged.ticks[shot].audit.clear();
        match refused(verify(&forged, None)) {
            Error::AuditMismatch { tick, logged, got } => {
                assert_eq!(tick, log.ticks[shot].tick);
                assert_eq!(logged, "[]");
                assert_eq!(got, format!("{:?}", log.ticks[shot].audit));
            }
            e => panic!("{e}"),
        }
        let _ = std::fs::remove_dir_all(&dir);
    }

    /// Every checkpoint is compared and counted, the first one (tick 0) against the header's
    /// start rather than taken on trust; one changed by a bit is refused at its tick.
    #[test]
    fn every_checkpoint_is_compared_and_a_forged_one_is_refused_at_its_tick() {
        let (dir, log) = crate::runs::logged_bot_match("replay-checkpoints", 5, 600);
        let ticks: Vec<Tick> = log.checkpoints.iter().map(|c| c.0).collect();
        assert_eq!(ticks, [0, 300, 600]);
        let report = verify(&log, None).expect("verifies");
        let expected = VerifyReport {
            ticks: 600,
            checkpoints: 3,
            ended: true,
            torn_bytes: 0,
        };
        assert_eq!(report, expected);
        for at in [0, 1] {
            let mut forged = log.clone();
            let bytes = &mut forged.checkpoints[at].1;
            let mut snapshot = WorldSnapshot::from_bytes(bytes).expect("decodes");
            snapshot.players[0].pos.x += engine::fx_bits(1);
            *bytes = snapshot.to_bytes();
            refused_at(verify(&forged, None), ticks[at], "players");
        }
        let _ = std::fs::remove_dir_all(&dir);
    }

    /// A log that begins at a later checkpoint (a late spectator's) verifies from there, and
    /// only if that checkpoint is of the match its header names.
    #[test]
    fn a_log_that_begins_at_a_later_checkpoint_verifies_from_there_if_its_seed_is_the_headers() {
        let (dir, log) = crate::runs::logged_bot_match("replay-late", 5, 600);
        let mut late = log.clone();
        late.checkpoints.remove(0);
        late.ticks.retain(|r| r.tick > 300);
        let report = verify(&late, None).expect("verifies from 300");
        assert_eq!((report.ticks, report.checkpoints), (600, 2));
        late.header.match_seed ^= 1;
        match refused(verify(&late, None)) {
            Error::VerifyMismatch {
                tick,
                section,
                logged,
                got,
            } => {
                assert_eq!((tick, section), (300, "checkpoint seed"));
                assert_eq!(
                    (logged, got),
                    (log.header.match_seed ^ 1, log.header.match_seed)
                );
            }
            e => panic!("{e}"),
        }
        let _ = std::fs::remove_dir_all(&dir);
    }

    /// The state at any tick of a log is re-simulated to exactly that tick; a tick after the
    /// log's last is refused naming both.
    #[test]
    fn the_verified_state_at_a_tick_is_that_ticks_and_past_the_end_is_refused() {
        let (dir, log) = crate::runs::logged_bot_match("replay-state-at", 5, 600);
        for tick in [0, 1, 299, 300, 301, 450, 600] {
            let world = verified_state_at(&log, tick).expect("a state");
            assert_eq!(world.tick(), tick);
            assert_eq!(world.state_hash(), played_to(&log, tick).state_hash());
        }
        match refused(verified_state_at(&log, 601)) {
            Error::LogEndsBefore { tick, last } => assert_eq!((tick, last), (601, 600)),
            e => panic!("{e}"),
        }
        let _ = std::fs::remove_dir_all(&dir);
    }

    /// An epoch resumed from the state both sides held: verified only if its hash is the
    /// log's state at its tick.
    #[test]
    fn an_epoch_must_name_the_state_at_its_tick() {
        let (dir, log) = crate::runs::logged_bot_match("replay-epoch", 5, 300);
        let mut resumed = log.clone();
        resumed.epochs.push(EpochRecord {
            epoch: 2,
            tick: 150,
            hash: log.ticks[149].hash,
            peer: "127.0.0.1:7000".into(),
            transfer: None,
        });
        assert_eq!(verify(&resumed, None).expect("verifies").ticks, 300);
        resumed.epochs[0].hash = log.ticks[148].hash;
        refused_at(verify(&resumed, None), 150, "epoch");
        let _ = std::fs::remove_dir_all(&dir);
    }

    /// A resync replaces the log's state at its tick by the one it carries, and the log goes
    /// on from that: verified and replayed across, and refused when it claims to replace
    /// another state or carries a state of another hash.
    #[test]
    fn a_resync_goes_on_from_its_state_and_must_replace_the_logs() {
        let (dir, log) = crate::runs::logged_bot_match("replay-resync", 5, 600);
        let honest = resynced(&log, 150);
        assert_ne!(honest.ticks[150].hash, log.ticks[150].hash, "another state");
        assert_eq!(verify(&honest, None).expect("verifies").ticks, 600);
        let mut replay = Replay::new(honest.clone()).expect("replay");
        for target in [160, 149, 150, 151, 600, 150] {
            replay.seek(target).expect("seek");
            let want = match honest.resync_at(target) {
                Some(r) => r.hash,
                None => honest.tick_record(target).expect("record").hash,
            };
            assert_eq!(replay.world().state_hash(), want, "tick {target}");
        }
        let mut replaces_another = honest.clone();
        replaces_another.resyncs[0].replaced = log.ticks[148].hash;
        let mut other_hash = honest.clone();
        other_hash.resyncs[0].hash = log.ticks[149].hash;
        for (forged, named) in [
            (replaces_another, "resync"),
            (other_hash, "resync snapshot"),
        ] {
            refused_at(verify(&forged, None), 150, named);
        }
        let _ = std::fs::remove_dir_all(&dir);
    }

    /// A log whose ticks skip where no transfer goes on from is missing the first of them; one
    /// that ends with a transfer is, at its last tick, the state sent, and at the transfer's
    /// `from` its own; a transfer of a state its epoch does not name is refused.
    #[test]
    fn ticks_skip_only_across_a_transfer_of_the_state_its_epoch_names() {
        let (dir, log) = crate::runs::logged_bot_match("replay-transfer", 5, 300);
        let mut holed = log.clone();
        holed.ticks.retain(|r| !(121..=130).contains(&r.tick));
        match refused(verify(&holed, None)) {
            Error::TickRecordMissing { tick } => assert_eq!(tick, 121),
            e => panic!("{e}"),
        }
        let sent = transferred(&log, 120, 300);
        assert_eq!(sent.last_tick(), 300);
        assert_eq!(verify(&sent, None).expect("verifies").ticks, 300);
        for tick in [120, 300] {
            let world = verified_state_at(&sent, tick).expect("a state");
            assert_eq!(world.tick(), tick);
            assert_eq!(world.state_hash(), log.ticks[tick as usize - 1].hash);
        }
        let mut other = sent.clone();
        other.epochs[0].hash = log.ticks[298].hash;
        refused_at(verify(&other, None), 300, "transfer snapshot");
        let _ = std::fs::remove_dir_all(&dir);
    }

    /// A log that begins at a later checkpoint holds no state before it: seeking there goes
    /// back to the header's start and is refused at the first tick it has no record of, rather
    /// than left at the checkpoint.
    #[test]
    fn seeking_before_a_late_logs_first_checkpoint_is_refused_not_left_ahead() {
        let (dir, log) = crate::runs::logged_bot_match("replay-late-seek", 5, 600);
        let mut late = log.clone();
        late.checkpoints.remove(0);
        late.ticks.retain(|r| r.tick > 300);
        let mut replay = Replay::new(late).expect("replay");
        assert_eq!(replay.world().tick(), 300);
        match refused(replay.seek(100)) {
            Error::TickRecordMissing { tick } => assert_eq!(tick, 1),
            e => panic!("{e}"),
        }
        let _ = std::fs::remove_dir_all(&dir);
    }

    /// Reopening a cut log writes the checkpoint of its last tick exactly when that tick is a
    /// checkpoint tick whose checkpoint the cut left out, and never a second one: a cut after
    /// tick 200's record (every 100), after 250's (no checkpoint due) and after 200's
    /// checkpoint (already there) each reopen to the log the uninterrupted run would hold.
    #[test]
    fn reopening_writes_the_checkpoint_a_cut_left_missing_and_no_second_one() {
        let (dir, log) = crate::runs::logged_bot_match("replay-reopen", 6, 300);
        let every: Tick = 100;
        // (the last tick written, whether its checkpoint was written, the checkpoints after reopening)
        let cuts: [(Tick, bool, &[Tick]); 3] = [
            (200, false, &[0, 100, 200]),
            (250, false, &[0, 100, 200]),
            (200, true, &[0, 100, 200]),
        ];
        for (last, written, want) in cuts {
            let path = dir.join(format!("cut-{last}-{written}.mlog"));
            let mut world = World::new(Rules::default(), log.header.match_seed, 2).expect("world");
            let mut writer =
                MatchLogWriter::create(&path, &log.header, &world, every).expect("create");
            for record in log.ticks.iter().take_while(|r| r.tick <= last) {
                Game::step(&mut world, &record.inputs).expect("step");
                let state = (record.tick < last || written).then(|| Game::snapshot(&world));
                writer.record_tick(record, state.as_ref()).expect("record");
            }
            writer.sync().expect("sync");
            drop(writer);
            let read = crate::logs::matchlog::read_log::<World>(&path).expect("read");
            let before = read.checkpoints.len();
            let (resumed, writer) = reopen_for_resume(&path, &read, every).expect("reopen");
            drop(writer);
            assert_eq!(resumed.state_hash(), world.state_hash(), "cut at {last}");
            let again = crate::logs::matchlog::read_log::<World>(&path).expect("read again");
            let ticks: Vec<Tick> = again.checkpoints.iter().map(|c| c.0).collect();
            assert_eq!(ticks, want, "cut at {last}, checkpoint written: {written}");
            assert_eq!(before + usize::from(!written && last == 200), ticks.len());
            let end = again.checkpoints.last().expect("a checkpoint");
            let state = World::snapshot_to_bytes(&Game::snapshot(&played_to(&log, end.0)));
            assert_eq!(
                end.1, state,
                "the checkpoint at {} is that tick's state",
                end.0
            );
            assert_eq!(again.last_tick(), last);
        }
        let _ = std::fs::remove_dir_all(&dir);
    }
}
