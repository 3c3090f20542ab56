//! Headless bot matches: seeded bots play a local match, with hash and match logs, and a match
//! killed mid-way resumes from its match log.

use crate::error::Error;
use crate::logs::hashlog::{inputs_of, HashLogWriter, MatchIdentity};
use crate::logs::matchlog::{read_log, LogHeader, MatchLogWriter, DEFAULT_CHECKPOINT_EVERY};
use crate::logs::tick_logs::TickLogs;
use engine::{Bot, RoundPhase, Rules, SavedWorld, StateHash, Tick, WireInput, World};
use game_api::Game;
use std::path::{Path, PathBuf};

/// Longest run the tools play: 48 hours at 60 Hz (a match log of that is near the readers'
/// 1 GiB limit; a tick count past it is a typo).
pub const MAX_TICKS: engine::Tick = 48 * 3600 * 60;

/// What to play.
#[derive(Debug, Clone)]
pub struct BotMatch {
    /// Rules.
    pub rules: Rules,
    /// Match seed (maze, spread).
    pub seed: u64,
    /// Seed of the bots' decisions.
    pub bot_seed: u64,
    /// Number of players (all bots).
    pub players: usize,
    /// Ticks to play; the match may end earlier when `stop_at_match_end` is set.
    pub ticks: Tick,
    /// Stop as soon as the match is decided.
    pub stop_at_match_end: bool,
    /// Write a per-tick hash log here.
    pub hash_log: Option<PathBuf>,
    /// Write the durable match log here.
    pub match_log: Option<PathBuf>,
}

/// How it went.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BotMatchSummary {
    /// Ticks simulated.
    pub ticks: Tick,
    /// Final state hash.
    pub final_hash: StateHash,
    /// Round reached.
    pub round: u8,
    /// Rounds won per player.
    pub wins: Vec<u8>,
}

/// The mode a bot match records in its log header; only logs of this mode are resumed.
const BOT_MATCH_MODE: &str = "bot-match";

/// What to resume.
#[derive(Debug, Clone)]
pub struct Resume {
    /// The match log, continued in place.
    pub log: PathBuf,
    /// Play on until this tick; `None` plays to the stop the log's header records.
    pub ticks: Option<Tick>,
    /// Write a hash log of the ticks played after resuming.
    pub hash_log: Option<PathBuf>,
}

/// What a resume found in the log and what it played.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ResumeSummary {
    /// The checkpoint the world was restored from.
    pub checkpoint: Tick,
    /// The last tick in the log, where play went on from.
    pub resumed_at: Tick,
    /// What was cut from the end of the log, in words (`None`: nothing).
    pub cut: Option<String>,
    /// The tick play went on to (unless the match was decided first and the log says to stop).
    pub target: Tick,
    /// How the match went.
    pub played: BotMatchSummary,
}

impl std::fmt::Display for ResumeSummary {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "resumed at tick {} (checkpoint of tick {}, {} logged ticks re-applied), played to \
             tick {} of {}; cut: {}",
            self.resumed_at,
            self.checkpoint,
            self.resumed_at - self.checkpoint,
            self.played.ticks,
            self.target,
            self.cut.as_deref().unwrap_or("nothing")
        )
    }
}

/// The bots of a match: bot `p` plays slot `p` with a seed derived from the match's bot seed.
fn bots_for(players: usize, bot_seed: u64) -> Vec<Bot> {
    (0..players as u8)
        .map(|p| Bot::new(p, engine::splitmix64(bot_seed ^ u64::from(p))))
        .collect()
}

/// Plays a seeded bot match headless.
///
/// # Errors
/// Rules or player-count errors from the engine; I/O errors writing the logs.
pub fn run_bot_match(spec: &BotMatch) -> Result<BotMatchSummary, Error> {
    let world = World::new(spec.rules.clone(), spec.seed, spec.players)?;
    let hash_log = match &spec.hash_log {
        Some(path) => Some(HashLogWriter::<World>::create(
            path,
            &MatchIdentity::of_game(&world, inputs_of("bot-match", Some(spec.bot_seed))),
            "bot-match",
        )?),
        None => None,
    };
    let match_log = match &spec.match_log {
        Some(path) => Some(MatchLogWriter::create(
            path,
            &LogHeader::for_game(&world, BOT_MATCH_MODE, Some(spec.bot_seed))
                .with_stop(spec.ticks, spec.stop_at_match_end),
            &world,
            DEFAULT_CHECKPOINT_EVERY,
        )?),
        None => None,
    };
    play_bots(
        world,
        spec.bot_seed,
        spec.ticks,
        spec.stop_at_match_end,
        hash_log,
        match_log,
    )
}

/// Resumes a bot match up to `ticks` (see [`resume_logged_bot_match`]).
///
/// # Errors
/// As [`resume_logged_bot_match`].
pub fn resume_bot_match(
    path: &Path,
    ticks: Tick,
    hash_log: Option<&Path>,
) -> Result<BotMatchSummary, Error> {
    resume_logged_bot_match(&Resume {
        log: path.to_owned(),
        ticks: Some(ticks),
        hash_log: hash_log.map(Path::to_owned),
    })
    .map(|r| r.played)
}

/// Resumes a bot match from its match log after the process died (even by SIGKILL): locks
/// the log, cuts a torn or zero-filled tail, restores the last checkpoint, re-applies every
/// logged tick after it checking each hash, then plays on with the same bots to the stop the
/// header records (or `spec.ticks`), appending to the same log.
///
/// Only what can be continued honestly is: a `bot-match` log with its bots' seed. A networked
/// or human-played log is refused (its other players' inputs cannot be invented).
///
/// # Errors
/// [`Error::LogNotResumable`] for a log of another mode, without a bot seed or stop tick, or
/// already past `spec.ticks`; log errors (corrupt records, other versions, a finished match, a
/// log another process is writing); [`Error::VerifyMismatch`] if the logged ticks do not
/// re-simulate to their hashes.
pub fn resume_logged_bot_match(spec: &Resume) -> Result<ResumeSummary, Error> {
    let path = spec.log.as_path();
    let log = read_log::<World>(path)?;
    let refuse = |reason: String| Error::LogNotResumable {
        path: path.to_owned(),
        reason,
    };
    let header = &log.header;
    if header.mode != BOT_MATCH_MODE {
        return Err(refuse(format!(
            "it records a `{}` match, and only a `{BOT_MATCH_MODE}` can be continued (the other \
             players' inputs cannot be invented)",
            header.mode
        )));
    }
    let bot_seed = header
        .bot_seed
        .ok_or_else(|| refuse("its header records no bot seed".into()))?;
    let target = spec.ticks.or(header.target_tick).ok_or_else(|| {
        refuse("its header records no stop tick; say how far to play (--ticks)".into())
    })?;
    if target < log.last_tick() {
        return Err(refuse(format!(
            "it already reaches tick {}, past tick {target}",
            log.last_tick()
        )));
    }
    let stop_at_match_end = header.stop_at_match_end;
    let identity = MatchIdentity::of_log(header);
    let cut = log.tail_report().map(|cut| match log.hole {
        Some(_) => format!(
            "{cut} (kept in {})",
            crate::logs::matchlog::lost_bytes_path(path, log.valid_len).display()
        ),
        None => cut,
    });
    let resumed_at = log.last_tick();
    let checkpoint = log.checkpoint_before(resumed_at).map_or(0, |c| c.0);
    // Checked from the header before the file is touched; the missing checkpoint written.
    let (world, writer) =
        crate::logs::replay::reopen_for_resume(path, &log, DEFAULT_CHECKPOINT_EVERY)?;
    let hash_log = match &spec.hash_log {
        Some(p) => Some(HashLogWriter::create(p, &identity, "resume")?),
        None => None,
    };
    let played = play_bots(
        world,
        bot_seed,
        target,
        stop_at_match_end,
        hash_log,
        Some(writer),
    )?;
    Ok(ResumeSummary {
        checkpoint,
        resumed_at,
        cut,
        target,
        played,
    })
}

fn play_bots(
    mut world: World,
    bot_seed: u64,
    ticks: Tick,
    stop_at_match_end: bool,
    hash_log: Option<HashLogWriter<World>>,
    match_log: Option<MatchLogWriter<World>>,
) -> Result<BotMatchSummary, Error> {
    let mut logs = TickLogs::new(hash_log, match_log);
    let mut bots = bots_for(world.player_count(), bot_seed);
    let mut inputs: Vec<WireInput> = Vec::with_capacity(bots.len());
    // The match log's checkpoints, saved into one reused image.
    let mut checkpoint = world.image();
    while world.tick() < ticks {
        if stop_at_match_end && world.state().round.phase == RoundPhase::MatchOver {
            break;
        }
        inputs.clear();
        inputs.extend(bots.iter_mut().map(|b| b.think(&world).to_wire()));
        Game::step(&mut world, &inputs)?;
        let hash = world.state_hash();
        let slot = &mut checkpoint;
        logs.record(world.tick(), &inputs, hash, world.events(), || {
            world.save_image(slot);
            let saved: &SavedWorld = slot;
            Ok(saved)
        })?;
    }
    logs.close(true)?;
    let state = world.state();
    Ok(BotMatchSummary {
        ticks: world.tick(),
        final_hash: world.state_hash(),
        round: state.round.round,
        wins: state.round.wins[..world.player_count()].to_vec(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::logs::matchlog::LogHeader;

    /// A fresh scratch folder for one test's files.
    fn scratch(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("headless-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("scratch folder");
        dir
    }

    /// The longest run the tools play is 48 hours of ticks.
    #[test]
    fn the_longest_run_is_48_hours() {
        assert_eq!(MAX_TICKS % engine::TICKS_PER_SECOND, 0);
        assert_eq!(MAX_TICKS / engine::TICKS_PER_SECOND, 48 * 3600);
    }

    /// Bot `p` of a bot match plays slot `p` seeded `splitmix64(bot_seed ^ p)`: a log's bot
    /// seed is all a resume (by this build or another) needs to go on with the same bots.
    #[test]
    fn a_bot_match_plays_the_bots_its_seed_names() {
        let (seed, bot_seed, players, ticks) = (4, 7, 3, 400);
        let played = run_bot_match(&BotMatch {
            rules: Rules::default(),
            seed,
            bot_seed,
            players,
            ticks,
            stop_at_match_end: false,
            hash_log: None,
            match_log: None,
        })
        .expect("match");
        let mut world = World::new(Rules::default(), seed, players).expect("world");
        let mut bots: Vec<Bot> = (0..players as u8)
            .map(|p| Bot::new(p, engine::splitmix64(bot_seed ^ u64::from(p))))
            .collect();
        while world.tick() < ticks {
            let inputs: Vec<WireInput> =
                bots.iter_mut().map(|b| b.think(&world).to_wire()).collect();
            Game::step(&mut world, &inputs).expect("step");
        }
        assert_eq!(
            (played.ticks, played.final_hash),
            (ticks, world.state_hash())
        );
    }

    /// A match told to stop at its end stops at the tick it is decided; one that is not plays
    /// on past it to its last tick.
    #[test]
    fn only_a_match_told_to_stops_at_its_end() {
        let spec = |ticks, stop_at_match_end| BotMatch {
            rules: Rules::default(),
            seed: 3,
            bot_seed: 8,
            players: 2,
            ticks,
            stop_at_match_end,
            hash_log: None,
            match_log: None,
        };
        let ended = run_bot_match(&spec(20_000, true)).expect("match");
        assert!(ended.ticks > 0 && ended.ticks < 20_000, "{ended:?}");
        assert!(ended.wins.iter().any(|&w| w > 0), "{ended:?}");
        let on = run_bot_match(&spec(ended.ticks + 5, false)).expect("match");
        assert_eq!(on.ticks, ended.ticks + 5);
    }

    /// A bot-match log of `ticks` ticks whose writer died before its end record, stopping at
    /// tick `stop` (the log's last tick is `ticks`).
    fn unfinished_bot_log(path: &Path, ticks: Tick, stop: Tick) {
        let world = World::new(Rules::default(), 5, 2).expect("world");
        let header = LogHeader::for_game(&world, BOT_MATCH_MODE, Some(6)).with_stop(stop, false);
        let writer =
            MatchLogWriter::create(path, &header, &world, DEFAULT_CHECKPOINT_EVERY).expect("log");
        let mut logs = TickLogs::new(None, Some(writer));
        let mut world = world;
        let mut bots = bots_for(2, 6);
        while world.tick() < ticks {
            let inputs: Vec<WireInput> =
                bots.iter_mut().map(|b| b.think(&world).to_wire()).collect();
            Game::step(&mut world, &inputs).expect("step");
            let hash = world.state_hash();
            let image = world.image();
            logs.record(world.tick(), &inputs, hash, world.events(), || Ok(&image))
                .expect("recorded");
        }
        // Dropped unclosed: no end record, as after a kill.
    }

    /// A log can be resumed to its last tick (playing nothing more) or beyond, not to a tick
    /// before it; a resume says where it went on from.
    #[test]
    fn a_log_resumes_to_its_last_tick_or_beyond() {
        let dir = scratch("resume-to");
        let last = 130;
        let resume = |name: &str, ticks: Option<Tick>| {
            let path = dir.join(name);
            unfinished_bot_log(&path, last, last + 20);
            resume_logged_bot_match(&Resume {
                log: path,
                ticks,
                hash_log: None,
            })
        };
        match resume("before.mlog", Some(last - 1)) {
            Err(Error::LogNotResumable { reason, .. }) => {
                assert!(reason.contains("already reaches tick 130"), "{reason}");
            }
            other => panic!("expected a refusal, got {other:?}"),
        }
        let at = resume("at.mlog", Some(last)).expect("resumes at its last tick");
        assert_eq!(
            (at.resumed_at, at.target, at.played.ticks),
            (last, last, last)
        );
        assert_eq!(
            at.to_string(),
            format!(
                "resumed at tick 130 (checkpoint of tick {c}, {n} logged ticks re-applied), \
                 played to tick 130 of 130; cut: nothing",
                c = at.checkpoint,
                n = 130 - at.checkpoint
            )
        );
        let on = resume("on.mlog", None).expect("resumes to the header's stop");
        assert_eq!(
            (on.resumed_at, on.target, on.played.ticks),
            (last, 150, 150)
        );
        let _ = std::fs::remove_dir_all(&dir);
    }
}
