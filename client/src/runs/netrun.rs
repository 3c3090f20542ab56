//! Headless networked runs: a bot plays (or a spectator watches) a real session to a number of
//! final ticks, writing the hash log and the match log of confirmed ticks.

use crate::error::Error;
use crate::logs::hashlog::{inputs_of, HashLogWriter, MatchIdentity};
use crate::logs::matchlog::{read_log, MatchLog, MatchLogWriter, DEFAULT_CHECKPOINT_EVERY};
use crate::logs::peer_logs::{dumps_next_to, LogPaths, PeerLogs};
use crate::logs::replay::{log_rules, reopen_for_resume, verify_logging};
use crate::net::socket::SharedLink;
use crate::session::driver::Injection;
use crate::session::netplay::rejoin::RejoinPlan;
use crate::session::netplay::rejoin::{Rejoining, MAX_RECENT_TICKS};
use crate::session::netplay::{EpochCause, NetConfig, NetEvent, NetPeer, Outage};
use crate::session::pacing::{FrameDecision, FramePacer};
use engine::{Bot, Phase, StateHash, Tick, WireInput, World};
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// A headless networked run: a bot plays (or a spectator watches) until `ticks` are final.
#[derive(Debug, Clone)]
pub struct NetRun {
    /// Final ticks to reach.
    pub ticks: Tick,
    /// Seed of the local bot.
    pub bot_seed: u64,
    /// Per-tick hash log of final (confirmed) ticks.
    pub hash_log: Option<PathBuf>,
    /// How long to wait for the peers' `Finish` once done.
    pub finish_timeout: Duration,
    /// Frames per second.
    pub fps: u32,
    /// Deliberately perturb the state at this tick on this peer (desync tooling).
    pub inject_desync: Option<Tick>,
    /// The phase of that tick's step after which the state is perturbed (default: after the
    /// whole step, [`Phase::Events`]).
    pub inject_after: Option<Phase>,
    /// Where desync snapshots are dumped (default: next to the hash log, `<log>.dumps`).
    pub dump_dir: Option<PathBuf>,
    /// Durable match log of the confirmed ticks (also a replay file).
    pub match_log: Option<PathBuf>,
}

impl NetRun {
    /// Where this run's logs go.
    #[must_use]
    pub fn log_paths(&self) -> LogPaths {
        LogPaths {
            hash_log: self.hash_log.clone(),
            match_log: self.match_log.clone(),
            dump_dir: self.dumps(),
        }
    }

    /// Where this run dumps snapshots on a desync.
    #[must_use]
    pub fn dumps(&self) -> Option<PathBuf> {
        self.dump_dir
            .clone()
            .or_else(|| self.hash_log.as_deref().map(dumps_next_to))
    }
}

/// How a headless networked run went.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NetRunSummary {
    /// Final ticks reached (and logged).
    pub ticks: Tick,
    /// Frames simulated including re-simulations.
    pub advances: u64,
    /// Rollbacks.
    pub rollbacks: u64,
    /// Deepest rollback.
    pub max_depth: u32,
    /// Desync events.
    pub desyncs: u64,
    /// The earliest tick a desync was detected at (reports can come out of tick order).
    pub first_desync: Option<Tick>,
    /// Desyncs repaired: `(detected at, resumed from)` each (see [`NetConfig::resync`]).
    pub resyncs: Vec<(Tick, Tick)>,
    /// Frames that could not advance.
    pub stalls: u64,
    /// Average bytes sent per second.
    pub bytes_sent_per_sec: u64,
    /// Average bytes received per second.
    pub bytes_received_per_sec: u64,
    /// Datagrams dropped at the socket.
    pub dropped: u64,
    /// The socket's counters at the end, by kind of drop.
    pub socket: crate::net::socket::SocketCounters,
    /// A peer disconnected before the end.
    pub disconnected: Option<std::net::SocketAddr>,
    /// Why, for a player to read ([`NetPeer::gone_reason`]).
    pub disconnect_reason: Option<String>,
    /// Whether every peer confirmed the finish (always false after a disconnect: no finish is
    /// exchanged then).
    pub clean_finish: bool,
    /// Hash of the last final tick.
    pub final_hash: StateHash,
    /// Interruptions the match came through (the peer came back within the grace).
    pub outages: Vec<Outage>,
}

impl std::fmt::Display for NetRunSummary {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "ticks={} rollbacks={} max_depth={} desyncs={} resyncs={} stalls={} bytes_sent/s={} bytes_recv/s={} dropped={} outages={} disconnected={} finish={} hash={:016x}",
            self.ticks,
            self.rollbacks,
            self.max_depth,
            self.desyncs,
            self.resyncs.len(),
            self.stalls,
            self.bytes_sent_per_sec,
            self.bytes_received_per_sec,
            self.dropped,
            self.outages.len(),
            self.disconnected.map_or("no".to_string(), |a| a.to_string()),
            match (self.disconnected, self.clean_finish) {
                (Some(_), _) => "skipped",
                (None, true) => "clean",
                (None, false) => "timeout",
            },
            self.final_hash.combined
        )
    }
}

/// Plays `peer` headless with a seeded bot (spectators just watch) until `plan.ticks` are
/// final, writing the hash log of final ticks; then exchanges `Finish` with the peers so nobody
/// leaves while another still needs its datagrams. A disconnect ends the run early, cleanly,
/// with the log flushed and the disconnect in the summary.
///
/// # Errors
/// Engine, GGRS or I/O errors.
pub fn run_net_peer(mut peer: NetPeer<World>, plan: &NetRun) -> Result<NetRunSummary, Error> {
    let slot = peer.local_slot();
    if let Some(tick) = plan.inject_desync {
        peer.driver_mut().inject(Injection {
            tick,
            first_pass_only: false,
            after: plan.inject_after.unwrap_or(Phase::Events),
        });
    }
    let logs = PeerLogs::open(&peer, &plan.log_paths(), slot.map(|_| plan.bot_seed))?;
    run_with_logs(peer, plan, logs)
}

/// What a headless run counts of its session's events, and says of them on stderr.
#[derive(Default)]
struct Tally {
    desyncs: u64,
    first_desync: Option<Tick>,
    resyncs: Vec<(Tick, Tick)>,
    disconnected: Option<SocketAddr>,
    disconnect_reason: Option<String>,
    /// Whether a late spectator said it is catching up and has not yet said it caught up.
    catching_up: bool,
}

impl Tally {
    /// What a spectator that joined late says when it starts and when it stops catching up
    /// (`behind`: [`NetPeer::catching_up`]; `tick`: its final tick), once each time.
    fn on_catch_up(&mut self, behind: Option<usize>, tick: Tick) -> Option<String> {
        if behind.is_some() == self.catching_up {
            return None;
        }
        self.catching_up = behind.is_some();
        Some(match behind {
            Some(n) => format!("catching up: {n} ticks behind the host"),
            None => format!("caught up at tick {tick}: following live"),
        })
    }

    /// Counts `event` and returns what a headless run reports of it at once (on stderr; the
    /// run goes on), if anything.
    fn on_event(
        &mut self,
        peer: &NetPeer<World>,
        logs: &mut PeerLogs<World>,
        pacer: &mut FramePacer,
        event: NetEvent,
    ) -> Result<Option<String>, Error> {
        let said = match event {
            // A spectator leaving does not end the match; a player leaving does.
            NetEvent::Disconnected { peer: who } if peer.is_remote_player(who) => {
                let reason = peer.gone_reason(who);
                self.disconnect_reason = Some(reason.clone());
                self.disconnected = Some(who);
                Some(reason)
            }
            NetEvent::DesyncDetected {
                tick,
                local,
                remote,
                peer: who,
            } => {
                self.desyncs += 1;
                self.first_desync = Some(self.first_desync.map_or(tick, |t| t.min(tick)));
                logs.on_desync(peer, tick, local, remote, who)?
                    .map(|notice| notice.to_string())
            }
            NetEvent::WaitRecommendation { frames } => {
                pacer.recommend_wait(frames);
                None
            }
            NetEvent::Interrupted { .. } => peer.reconnecting().map(|waiting| waiting.to_string()),
            NetEvent::Resynced {
                epoch,
                tick,
                desync,
            } => {
                self.resyncs.push((desync, tick));
                let transfer = peer.epochs().last().and_then(|e| match &e.cause {
                    EpochCause::Resync(d) => Some(format!(
                        " ({} ms from the desync seen, a {}-byte snapshot)",
                        d.took.as_millis(),
                        d.snapshot.len()
                    )),
                    EpochCause::Rejoin | EpochCause::Transferred(_) | EpochCause::Followed => None,
                });
                Some(format!(
                    "resynchronized after the desync at tick {desync}: the host's state at \
                     tick {tick} is both sides' now, epoch {epoch}{}",
                    transfer.unwrap_or_default()
                ))
            }
            NetEvent::Rejoined { epoch, tick, .. } => Some(format!(
                "the other player rejoined: epoch {epoch} goes on from tick {tick}"
            )),
            NetEvent::Resumed { peer: who } => peer
                .outages()
                .iter()
                .rev()
                .find(|o| o.peer == who)
                .map(|outage| {
                    format!(
                        "reconnected after {:.1} s of silence, at tick {}",
                        outage.silent.as_secs_f64(),
                        outage.tick
                    )
                }),
            _ => None,
        };
        Ok(said)
    }
}

/// As [`run_net_peer`], writing to logs already open (a rejoined player's, which continue the
/// match log it wrote before its process died).
///
/// # Errors
/// As [`run_net_peer`].
pub fn run_with_logs(
    mut peer: NetPeer<World>,
    plan: &NetRun,
    mut logs: PeerLogs<World>,
) -> Result<NetRunSummary, Error> {
    let slot = peer.local_slot();
    let mut bot = slot.map(|s| Bot::new(s as u8, plan.bot_seed));
    let mut pacer = FramePacer::new(plan.fps);
    let mut tally = Tally::default();
    let started = Instant::now();
    while logs.logged() < plan.ticks {
        peer.poll();
        for event in peer.take_events() {
            if let Some(line) = tally.on_event(&peer, &mut logs, &mut pacer, event)? {
                eprintln!("{line}");
            }
        }
        if tally.disconnected.is_some() {
            break;
        }
        match pacer.frame_due(Instant::now(), peer.frames_ahead()) {
            FrameDecision::Run => {
                let input = match &mut bot {
                    Some(bot) => bot.think(peer.world()).to_wire(),
                    None => WireInput::default(),
                };
                peer.advance(input)?;
            }
            FrameDecision::Skip => {}
            FrameDecision::NotYet(wait) => std::thread::sleep(wait.min(Duration::from_millis(1))),
        }
        logs.catch_up(&peer, plan.ticks)?;
        if let Some(line) = tally.on_catch_up(peer.catching_up(), peer.final_tick()) {
            eprintln!("{line}");
        }
        peer.update_stats();
    }
    let Tally {
        desyncs,
        first_desync,
        resyncs,
        disconnected,
        disconnect_reason,
        catching_up: _,
    } = tally;
    logs.close(disconnected.is_none())?;
    let logged = logs.logged();
    let clean_finish = disconnected.is_none() && peer.finish(logged, plan.finish_timeout);
    let secs = started.elapsed().as_millis().max(1) as u64;
    let counters = peer.socket_counters();
    let final_hash = peer.driver().hash_at(logged)?;
    Ok(NetRunSummary {
        ticks: logged,
        advances: peer.driver().counters().advances,
        rollbacks: peer.driver().counters().rollbacks,
        max_depth: peer.driver().counters().max_depth,
        desyncs,
        first_desync,
        resyncs,
        stalls: peer.total_stalls(),
        bytes_sent_per_sec: counters.bytes_sent * 1000 / secs,
        bytes_received_per_sec: counters.bytes_received * 1000 / secs,
        dropped: counters.dropped(),
        socket: counters,
        disconnected,
        disconnect_reason,
        clean_finish,
        final_hash,
        outages: peer.outages().to_vec(),
    })
}

/// Takes a player's slot back after its process died, from the match log it wrote
/// (`plan.match_log`), and plays on as [`run_net_peer`] does (see [`rejoin_from_log`]).
///
/// # Errors
/// As [`rejoin_from_log`] and [`run_net_peer`].
pub fn rejoin_logged_match(
    link: SharedLink,
    config: &NetConfig<World>,
    plan: &NetRun,
) -> Result<NetRunSummary, Error> {
    let (peer, logs) = rejoin_from_log(link, config, &plan.log_paths(), Some(plan.bot_seed))?;
    run_with_logs(peer, plan, logs)
}

/// The other player a rejoin from `log` (read from `path`) contacts: where it was heard in
/// the log's last epoch.
///
/// # Errors
/// [`Error::RejoinRefused`]: the log holds no rejoin key (it is no networked player's), or
/// names the other player by something that is not an address.
pub fn rejoin_peer(log: &MatchLog<World>, path: &Path) -> Result<SocketAddr, Error> {
    let refuse = |reason: String| Error::RejoinRefused { reason };
    let key = log.header.rejoin.as_ref().ok_or_else(|| {
        refuse(format!(
            "{} holds no rejoin key: it is not the log of a player of a networked match",
            path.display()
        ))
    })?;
    let text = (log.epochs.last()).map_or(key.peer.as_str(), |e| e.peer.as_str());
    text.parse().map_err(|_| {
        refuse(format!(
            "the log names the other player as {text:?}, not an address"
        ))
    })
}

/// A duel peer that took its slot back, and its logs, continued from the match log it wrote.
pub type Rejoined = (NetPeer<World>, PeerLogs<World>);

/// Takes a player's slot back after its process died, from the match log it wrote
/// (`paths.match_log`): replays and checks the log, rejoins the other player (who waits
/// through its reconnect grace) under the match's secret kept there, and continues the log.
/// The hash log (`paths.hash_log`) is written afresh from tick 1: the ticks the log holds,
/// then the rest of the match. `bot_seed`: the seed of the bot that plays, if one does.
///
/// # Errors
/// [`Error::RejoinRefused`] (no log given, a log without a rejoin key, the other player's
/// refusal), [`Error::RejoinTimeout`], and the errors of reading, verifying and continuing
/// the log.
pub fn rejoin_from_log(
    link: SharedLink,
    config: &NetConfig<World>,
    paths: &LogPaths,
    bot_seed: Option<u64>,
) -> Result<Rejoined, Error> {
    let mut rejoin = RejoinFromLog::start(link, config, paths, bot_seed)?;
    loop {
        if let Some(done) = rejoin.poll()? {
            return Ok(done);
        }
        std::thread::sleep(Duration::from_millis(2));
    }
}

/// [`rejoin_from_log`] one poll at a time, for a window that keeps drawing while the other
/// player answers.
#[derive(Debug)]
pub struct RejoinFromLog {
    rejoining: Rejoining<World>,
    /// What continues the logs once back.
    logs: Option<ContinuedLogs>,
    paths: LogPaths,
}

impl RejoinFromLog {
    /// Reads, replays and checks the log and starts rejoining (see [`rejoin_from_log`]).
    ///
    /// # Errors
    /// As [`rejoin_from_log`], but for the other player's answer and the timeout, which
    /// [`RejoinFromLog::poll`] returns.
    pub fn start(
        link: SharedLink,
        config: &NetConfig<World>,
        paths: &LogPaths,
        bot_seed: Option<u64>,
    ) -> Result<RejoinFromLog, Error> {
        let (plan, config, logs) = plan_rejoin(config, paths, bot_seed)?;
        Ok(RejoinFromLog {
            rejoining: Rejoining::start(link, plan, &config)?,
            logs: Some(logs),
            paths: paths.clone(),
        })
    }

    /// The rejoin under way (who is asked, for how long, at what step).
    #[must_use]
    pub fn rejoining(&self) -> &Rejoining<World> {
        &self.rejoining
    }

    /// Sends what is due and reads the answers: the peer and its continued logs once back.
    ///
    /// # Errors
    /// As [`rejoin_from_log`].
    pub fn poll(&mut self) -> Result<Option<Rejoined>, Error> {
        let Some(peer) = self.rejoining.poll()? else {
            return Ok(None);
        };
        let (hash_log, writer, logged) = self.logs.take().ok_or_else(|| Error::RejoinRefused {
            reason: "this rejoin is over".into(),
        })?;
        if let Some(report) = peer.rejoin_report() {
            eprintln!("{report}");
        }
        let logs = PeerLogs::rejoined(&peer, &self.paths, hash_log, writer, logged);
        Ok(Some((peer, logs)))
    }
}

/// What continues a rejoiner's logs: the hash log, the match log's writer, its last tick.
type ContinuedLogs = (Option<HashLogWriter<World>>, MatchLogWriter<World>, Tick);

/// What a rejoin from `paths.match_log` needs: the plan, the configuration under the log's
/// rules, and the logs to continue (the hash log rewritten from tick 1, the match log
/// reopened where it ends).
fn plan_rejoin(
    config: &NetConfig<World>,
    paths: &LogPaths,
    bot_seed: Option<u64>,
) -> Result<(RejoinPlan<World>, NetConfig<World>, ContinuedLogs), Error> {
    let refuse = |reason: String| Error::RejoinRefused { reason };
    let path = (paths.match_log.as_deref())
        .ok_or_else(|| refuse("a rejoin needs the match log the player wrote".into()))?;
    let log = read_log::<World>(path)?;
    // Checks the log holds a rejoin key, so the key below is there.
    let peer_addr = rejoin_peer(&log, path)?;
    let Some(key) = log.header.rejoin.clone() else {
        return Err(refuse("no rejoin key".into()));
    };
    let rules = log_rules(&log, None)?;
    let (world, writer) = reopen_for_resume(path, &log, DEFAULT_CHECKPOINT_EVERY)?;
    let role = if key.slot == 0 { "host" } else { "join" };
    let hash_log = match &paths.hash_log {
        Some(out) => {
            let identity = MatchIdentity::of_game(&world, inputs_of(role, bot_seed));
            let mut writer = HashLogWriter::create(out, &identity, role)?;
            verify_logging(&log, None, Some(&mut writer))?;
            Some(writer)
        }
        None => None,
    };
    // The last epoch the log was in: a rejoin's or a resync's.
    let epoch = (log.epochs.iter().map(|e| e.epoch))
        .chain(log.resyncs.iter().map(|r| r.epoch))
        .max()
        .unwrap_or(1);
    let recent = (log.ticks.iter().rev().take(MAX_RECENT_TICKS).rev())
        .map(|t| t.inputs.clone())
        .collect();
    let logged = world.tick();
    let rejoin = RejoinPlan {
        world,
        recent,
        secret: key.secret,
        match_seed: log.header.match_seed,
        slot: key.slot,
        peer: peer_addr,
        epoch,
    };
    let config = NetConfig {
        rules,
        ..config.clone()
    };
    Ok((rejoin, config, (hash_log, writer, logged)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_disconnect_does_not_claim_a_finish_timeout() {
        let mut s = NetRunSummary {
            ticks: 10,
            advances: 10,
            rollbacks: 0,
            max_depth: 0,
            desyncs: 0,
            first_desync: None,
            resyncs: Vec::new(),
            stalls: 0,
            bytes_sent_per_sec: 0,
            bytes_received_per_sec: 0,
            dropped: 0,
            socket: crate::net::socket::SocketCounters::default(),
            disconnected: Some("127.0.0.1:9".parse().expect("addr")),
            disconnect_reason: None,
            clean_finish: false,
            final_hash: StateHash::default(),
            outages: Vec::new(),
        };
        let text = s.to_string();
        assert!(
            text.contains("disconnected=127.0.0.1:9 finish=skipped"),
            "{text}"
        );
        s.disconnected = None;
        assert!(s.to_string().contains("finish=timeout"));
        s.clean_finish = true;
        assert!(s.to_string().contains("finish=clean"));
    }

    /// A fresh scratch folder for one test's files.
    fn scratch(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("netrun-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("scratch folder");
        dir
    }

    /// Desync snapshots go to the folder asked for, else next to the hash log, else nowhere;
    /// the run's log paths are its own.
    #[test]
    fn dumps_go_where_asked_or_next_to_the_hash_log() {
        let mut run = NetRun {
            ticks: 1,
            bot_seed: 1,
            hash_log: Some(PathBuf::from("a/h.log")),
            finish_timeout: Duration::ZERO,
            fps: 60,
            inject_desync: None,
            inject_after: None,
            dump_dir: None,
            match_log: Some(PathBuf::from("a/m.mlog")),
        };
        assert_eq!(run.dumps(), Some(PathBuf::from("a/h.log.dumps")));
        let paths = run.log_paths();
        assert_eq!(paths.hash_log, run.hash_log);
        assert_eq!(paths.match_log, run.match_log);
        assert_eq!(paths.dump_dir, Some(PathBuf::from("a/h.log.dumps")));
        run.dump_dir = Some(PathBuf::from("b"));
        assert_eq!(run.dumps(), Some(PathBuf::from("b")));
        run.hash_log = None;
        run.dump_dir = None;
        assert_eq!(run.dumps(), None);
    }

    /// A rejoin contacts the other player the log names; a log without a rejoin key, or naming
    /// it by something that is no address, is refused.
    #[test]
    fn a_rejoin_contacts_the_player_the_log_names() {
        let dir = scratch("rejoin-peer");
        let world = World::new(engine::Rules::default(), 1, 2).expect("world");
        let read = |name: &str, peer: Option<&str>| {
            let path = dir.join(name);
            let mut header = crate::logs::matchlog::LogHeader::for_game(&world, "join", None);
            header.rejoin = peer.map(|peer| crate::logs::matchlog::RejoinKey {
                slot: 1,
                peer: peer.to_owned(),
                secret: crate::net::seal::MatchSecret::from_bytes([7; 32]),
            });
            drop(MatchLogWriter::create(&path, &header, &world, 300).expect("log"));
            (read_log::<World>(&path).expect("reads"), path)
        };
        let (log, path) = read("key.mlog", Some("127.0.0.1:7"));
        assert_eq!(rejoin_peer(&log, &path).ok(), "127.0.0.1:7".parse().ok());
        for (name, peer, says) in [
            ("none.mlog", None, "holds no rejoin key"),
            ("bad.mlog", Some("nowhere"), "not an address"),
        ] {
            let (log, path) = read(name, peer);
            match rejoin_peer(&log, &path) {
                Err(Error::RejoinRefused { reason }) => assert!(reason.contains(says), "{reason}"),
                other => panic!("{name}: expected a refusal, got {other:?}"),
            }
        }
        let _ = std::fs::remove_dir_all(&dir);
    }

    /// A rejoin plays on under the rules its log was written under, whatever the command
    /// line's configuration says, from the log's last tick, in the slot and with the seed
    /// and secret the log names.
    #[test]
    fn a_rejoin_plays_on_under_the_logs_rules_from_its_last_tick() {
        let dir = scratch("rejoin-plan");
        let rules = engine::Rules {
            block_hp: 4,
            ..engine::Rules::default()
        };
        let world = World::new(rules.clone(), 31, 2).expect("world");
        let path = dir.join("join.mlog");
        let mut header = crate::logs::matchlog::LogHeader::for_game(&world, "join", None);
        header.rejoin = Some(crate::logs::matchlog::RejoinKey {
            slot: 1,
            peer: "127.0.0.1:7".to_owned(),
            secret: crate::net::seal::MatchSecret::from_bytes([7; 32]),
        });
        drop(MatchLogWriter::create(&path, &header, &world, 300).expect("log"));
        let paths = LogPaths {
            match_log: Some(path),
            hash_log: Some(dir.join("join.hlog")),
            ..LogPaths::default()
        };
        let config = NetConfig::<World>::default();
        assert_ne!(
            config.rules, rules,
            "the command line's rules are other rules"
        );
        let (plan, config, _logs) = plan_rejoin(&config, &paths, None).expect("a plan");
        assert_eq!(config.rules, rules);
        assert_eq!(plan.world.rules(), &rules);
        assert_eq!((plan.slot, plan.match_seed), (1, 31));
        assert_eq!(plan.peer, SocketAddr::from(([127, 0, 0, 1], 7)));
        assert_eq!(plan.world.tick(), 0);
        // The hash log is rewritten as the joining player's, of this match under its rules.
        let hashes = crate::logs::hashlog::read_hash_log_file::<World>(&dir.join("join.hlog"))
            .expect("hash log");
        assert_eq!(hashes.source, "join");
        assert_eq!(hashes.identity.seed, 31);
        let _ = std::fs::remove_dir_all(&dir);
    }

    /// Two bot-driven peers connected over an in-memory network (host at port 1, joiner at
    /// port 2), each run by `run` on a thread of its own.
    mod in_memory {
        use super::*;
        use crate::net::transport::memory::MemoryNet;

        pub(super) fn config() -> NetConfig<World> {
            NetConfig::<World> {
                seed: 2026,
                fps: crate::session::netplay::MAX_FPS,
                ..NetConfig::<World>::default()
            }
        }

        pub(super) fn plan(ticks: Tick, bot_seed: u64, hash_log: &Path) -> NetRun {
            NetRun {
                ticks,
                bot_seed,
                hash_log: Some(hash_log.to_owned()),
                finish_timeout: Duration::from_secs(15),
                fps: crate::session::netplay::MAX_FPS,
                inject_desync: None,
                inject_after: None,
                dump_dir: None,
                match_log: None,
            }
        }

        /// A host and a joined player, both handed over (see
        /// [`crate::runs::connected_pair_over`]).
        pub(super) fn connected_pair(net: &MemoryNet) -> (NetPeer<World>, NetPeer<World>) {
            connected_pair_with(net, &config())
        }

        /// As [`connected_pair`], under `config`.
        pub(super) fn connected_pair_with(
            net: &MemoryNet,
            config: &NetConfig<World>,
        ) -> (NetPeer<World>, NetPeer<World>) {
            crate::runs::connected_pair_over(net.endpoint(1), net.endpoint(2), config)
        }

        /// Runs both peers' plans to the end, each on its own thread.
        pub(super) fn play(plans: [NetRun; 2]) -> [NetRunSummary; 2] {
            let net = MemoryNet::default();
            let (host, joiner) = connected_pair(&net);
            let [host_plan, join_plan] = plans;
            let host = std::thread::spawn(move || run_net_peer(host, &host_plan));
            let joiner = std::thread::spawn(move || run_net_peer(joiner, &join_plan));
            [
                host.join().expect("host thread").expect("host run"),
                joiner.join().expect("joiner thread").expect("joiner run"),
            ]
        }
    }

    /// Both peers play to the final tick, log every confirmed tick, agree on it, finish
    /// cleanly, and report the hash of that tick and the bytes they sent and received per
    /// second of the run.
    #[test]
    fn two_peers_play_to_the_final_tick_and_report_it() {
        let dir = scratch("play");
        let ticks = 90;
        let logs = [dir.join("host.log"), dir.join("join.log")];
        let started = Instant::now();
        let summaries = in_memory::play([
            in_memory::plan(ticks, 1, &logs[0]),
            in_memory::plan(ticks, 2, &logs[1]),
        ]);
        // Every run lasted at most this long (and at least 1 ms, as the rates count it).
        let outer_ms = started.elapsed().as_millis().max(1) as u64;
        for (summary, log) in summaries.iter().zip(&logs) {
            assert_eq!(summary.ticks, ticks, "{summary}");
            assert!(summary.clean_finish, "{summary}");
            assert_eq!((summary.desyncs, summary.disconnected), (0, None));
            let hashes = crate::logs::hashlog::read_hash_log_file::<World>(log).expect("hash log");
            assert_eq!(hashes.entries.len(), ticks as usize);
            let last = hashes.entries.last().expect("an entry");
            assert_eq!((last.tick, last.hash), (ticks, summary.final_hash));
            let socket = &summary.socket;
            for (rate, bytes) in [
                (summary.bytes_sent_per_sec, socket.bytes_sent),
                (summary.bytes_received_per_sec, socket.bytes_received),
            ] {
                assert!(bytes > 0, "{summary}");
                assert!(
                    rate <= bytes * 1000 && rate >= bytes * 1000 / outer_ms,
                    "{rate} B/s for {bytes} B in at most {outer_ms} ms"
                );
            }
        }
        assert_eq!(summaries[0].final_hash, summaries[1].final_hash);
        let _ = std::fs::remove_dir_all(&dir);
    }

    /// A peer whose partner plays but never says `Finish` reports a finish timeout, not a
    /// clean finish.
    #[test]
    fn a_partner_that_never_finishes_is_a_finish_timeout() {
        let dir = scratch("unfinished");
        let net = crate::net::transport::memory::MemoryNet::default();
        let (host, mut joiner) = in_memory::connected_pair(&net);
        let mut plan = in_memory::plan(30, 1, &dir.join("host.log"));
        plan.finish_timeout = Duration::from_millis(300);
        let done = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
        let host = std::thread::spawn({
            let done = done.clone();
            move || {
                let summary = run_net_peer(host, &plan);
                done.store(true, std::sync::atomic::Ordering::SeqCst);
                summary
            }
        });
        // The joiner plays on, never finishing, until the host's run is over.
        while !done.load(std::sync::atomic::Ordering::SeqCst) {
            joiner.poll();
            let _ = joiner.advance(WireInput::default());
            std::thread::sleep(Duration::from_millis(1));
        }
        let summary = host.join().expect("host thread").expect("host run");
        assert_eq!((summary.ticks, summary.disconnected), (30, None));
        assert!(!summary.clean_finish, "{summary}");
        assert!(summary.to_string().contains("finish=timeout"), "{summary}");
        let _ = std::fs::remove_dir_all(&dir);
    }

    /// A desync injected on one side is counted, from the tick it was detected at, on both
    /// sides, and repaired once: the run goes on to the final tick in sync.
    #[test]
    fn a_desync_is_counted_and_its_resync_reported() {
        let dir = scratch("desync");
        let mut host = in_memory::plan(120, 1, &dir.join("host.log"));
        host.inject_desync = Some(40);
        let join = in_memory::plan(120, 2, &dir.join("join.log"));
        let [host, join] = in_memory::play([host, join]);
        for summary in [&host, &join] {
            assert!(summary.desyncs > 0, "{summary}");
            assert_eq!(summary.resyncs.len(), 1, "{:?}", summary.resyncs);
            let (detected, resumed) = summary.resyncs[0];
            assert!(
                detected >= 40 && resumed >= detected,
                "{:?}",
                summary.resyncs
            );
            assert_eq!(summary.first_desync, Some(detected), "{summary}");
            assert_eq!(summary.ticks, 120);
        }
        assert_eq!(host.resyncs, join.resyncs);
        assert_eq!(host.final_hash, join.final_hash);
        assert!(dir.join("host.log.dumps").is_dir(), "the desync is dumped");
        let _ = std::fs::remove_dir_all(&dir);
    }

    /// A partner that vanishes mid-match ends the run early: the disconnect and its reason are
    /// in the summary, and no finish is claimed.
    #[test]
    fn a_vanished_partner_ends_the_run_with_the_disconnect() {
        let dir = scratch("vanished");
        let net = crate::net::transport::memory::MemoryNet::default();
        let config = NetConfig::<World> {
            disconnect_timeout: Duration::from_millis(300),
            disconnect_notify: Duration::from_millis(100),
            ..in_memory::config()
        };
        let (host, mut joiner) = in_memory::connected_pair_with(&net, &config);
        let plan = in_memory::plan(1_000_000, 1, &dir.join("host.log"));
        let host = std::thread::spawn(move || run_net_peer(host, &plan));
        // The joiner plays a few ticks, then is gone without a word.
        while joiner.world().tick() < 20 {
            joiner.poll();
            let _ = joiner.advance(WireInput::default());
            std::thread::sleep(Duration::from_millis(1));
        }
        std::mem::forget(joiner);
        let summary = host.join().expect("host thread").expect("host run");
        assert_eq!(
            summary.disconnected,
            "127.0.0.1:2".parse().ok(),
            "{summary}"
        );
        assert!(summary.disconnect_reason.is_some(), "{summary}");
        assert!(
            !summary.clean_finish && summary.ticks < 1_000_000,
            "{summary}"
        );
        assert!(summary.to_string().contains("finish=skipped"), "{summary}");
        // The final hash is that of the last tick logged, not of the tick the world predicted
        // on to while its partner was silent.
        let hashes = crate::logs::hashlog::read_hash_log_file::<World>(&dir.join("host.log"))
            .expect("hash log");
        let last = hashes.entries.last().expect("an entry");
        assert_eq!((last.tick, last.hash), (summary.ticks, summary.final_hash));
        let _ = std::fs::remove_dir_all(&dir);
    }

    /// Only a player leaving ends the run: a disconnect from anyone else (a spectator) is not
    /// counted, one from the remote player is, with its reason.
    #[test]
    fn only_a_player_leaving_ends_the_run() {
        let net = crate::net::transport::memory::MemoryNet::default();
        let (host, _joiner) = in_memory::connected_pair(&net);
        let mut logs = PeerLogs::open(&host, &LogPaths::default(), None).expect("no logs");
        let mut pacer = FramePacer::new(60);
        let mut tally = Tally::default();
        let spectator = SocketAddr::from(([127, 0, 0, 1], 3));
        tally
            .on_event(
                &host,
                &mut logs,
                &mut pacer,
                NetEvent::Disconnected { peer: spectator },
            )
            .expect("counted");
        assert_eq!(tally.disconnected, None);
        assert_eq!(tally.disconnect_reason, None);
        let player = SocketAddr::from(([127, 0, 0, 1], 2));
        tally
            .on_event(
                &host,
                &mut logs,
                &mut pacer,
                NetEvent::Disconnected { peer: player },
            )
            .expect("counted");
        assert_eq!(tally.disconnected, Some(player));
        assert!(tally.disconnect_reason.is_some());
    }

    /// What a headless run reports as it goes: a wait it is asked for reaches its pacer, a
    /// silent partner is reported as awaited, and the same partner heard again as an outage
    /// come through.
    #[test]
    fn a_wait_is_paced_and_a_partners_silence_and_return_are_reported() {
        let net = crate::net::transport::memory::MemoryNet::default();
        let config = NetConfig::<World> {
            disconnect_timeout: Duration::from_secs(60),
            disconnect_notify: Duration::from_millis(100),
            ..in_memory::config()
        };
        let (mut host, mut joiner) = in_memory::connected_pair_with(&net, &config);
        let mut logs = PeerLogs::open(&host, &LogPaths::default(), None).expect("no logs");
        let mut pacer = FramePacer::new(60);
        let mut tally = Tally::default();
        let wait = NetEvent::WaitRecommendation { frames: 3 };
        let said = tally.on_event(&host, &mut logs, &mut pacer, wait);
        assert_eq!((said.expect("paced"), pacer.owed()), (None, 3));
        let rejoined = NetEvent::Rejoined {
            peer: SocketAddr::from(([127, 0, 0, 1], 2)),
            epoch: 2,
            tick: 40,
        };
        let said = tally.on_event(&host, &mut logs, &mut pacer, rejoined);
        assert_eq!(
            said.expect("reported").as_deref(),
            Some("the other player rejoined: epoch 2 goes on from tick 40")
        );
        // Polls the host (and the joiner, if it speaks) until `wanted` comes; returns what the
        // run says of it. The guard is against hanging, not a measure.
        let mut until = |wanted: fn(&NetEvent) -> bool, joiner: Option<&mut NetPeer<World>>| {
            let guard = Instant::now() + Duration::from_secs(10);
            let mut joiner = joiner;
            loop {
                if let Some(joiner) = joiner.as_deref_mut() {
                    joiner.poll();
                    let _ = joiner.advance(WireInput::default());
                }
                host.poll();
                let _ = host.advance(WireInput::default());
                for event in host.take_events() {
                    let found = wanted(&event);
                    let said = tally.on_event(&host, &mut logs, &mut pacer, event);
                    if found {
                        return said.expect("reported");
                    }
                }
                assert!(Instant::now() < guard, "the event never came");
                std::thread::sleep(Duration::from_millis(1));
            }
        };
        let silent = until(|e| matches!(e, NetEvent::Interrupted { .. }), None);
        let silent = silent.expect("a silence is reported");
        assert!(
            silent.starts_with("reconnecting: nothing from the other player for"),
            "{silent}"
        );
        let back = until(|e| matches!(e, NetEvent::Resumed { .. }), Some(&mut joiner));
        let back = back.expect("a return is reported");
        assert!(back.starts_with("reconnected after "), "{back}");
        assert!(back.contains(" s of silence, at tick "), "{back}");
        assert_eq!(tally.disconnected, None);
    }

    /// A late spectator says once that it is catching up and once that it caught up.
    #[test]
    fn catching_up_is_said_when_it_starts_and_when_it_ends() {
        let mut tally = Tally::default();
        assert_eq!(
            tally.on_catch_up(None, 3),
            None,
            "following live from the start"
        );
        assert_eq!(
            tally.on_catch_up(Some(90), 4).as_deref(),
            Some("catching up: 90 ticks behind the host")
        );
        assert_eq!(tally.on_catch_up(Some(60), 5), None, "said once");
        assert_eq!(
            tally.on_catch_up(None, 96).as_deref(),
            Some("caught up at tick 96: following live")
        );
        assert_eq!(tally.on_catch_up(None, 97), None);
        assert!(
            tally.on_catch_up(Some(12), 98).is_some(),
            "fell behind again"
        );
    }

    /// A run of no ticks logs none and reports the hash of tick 0, the state both sides
    /// began from, even though connecting already advanced the worlds.
    #[test]
    fn a_run_of_no_ticks_reports_the_starting_state() {
        let dir = scratch("no-ticks");
        let plans = [
            in_memory::plan(0, 1, &dir.join("host.log")),
            in_memory::plan(0, 2, &dir.join("join.log")),
        ];
        let start = World::new(engine::Rules::default(), in_memory::config().seed, 2)
            .expect("default rules")
            .state_hash();
        for summary in in_memory::play(plans) {
            assert_eq!((summary.ticks, summary.final_hash), (0, start), "{summary}");
            assert!(summary.clean_finish, "{summary}");
        }
        let _ = std::fs::remove_dir_all(&dir);
    }
}
