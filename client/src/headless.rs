//! Headless bot matches: seeded bots play a local match, with hash and match logs, and a match
//! killed mid-way resumes from its match log.

use crate::error::Error;
use crate::hashlog::HashLogWriter;
use crate::matchlog::{read_log, LogHeader, MatchLogWriter, DEFAULT_CHECKPOINT_EVERY};
use crate::replay::recover;
use crate::tick_logs::TickLogs;
use engine::{Bot, InputCmd, RoundPhase, Rules, StateHash, Tick, World};
use std::path::{Path, PathBuf};

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
        Some(path) => Some(HashLogWriter::create(
            path,
            &format!(
                "seed={} rules={:016x} players={} source=bot-match",
                spec.seed,
                spec.rules.hash(),
                spec.players
            ),
        )?),
        None => None,
    };
    let match_log = match &spec.match_log {
        Some(path) => Some(MatchLogWriter::create(
            path,
            &LogHeader::for_world(&world, "bot-match", Some(spec.bot_seed)),
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

/// Resumes a bot match from its match log after the process died (even by SIGKILL): cuts a
/// torn tail, restores the last checkpoint, re-applies every logged tick after it checking each
/// hash, then plays on with the same bots up to `ticks`, appending to the same log.
///
/// # Errors
/// Log errors (corrupt records, other versions, a finished match), [`Error::VerifyMismatch`] if
/// the logged ticks do not re-simulate to their hashes.
pub fn resume_bot_match(
    path: &Path,
    ticks: Tick,
    hash_log: Option<&Path>,
) -> Result<BotMatchSummary, Error> {
    let log = read_log(path)?;
    let bot_seed = log.header.bot_seed.ok_or_else(|| Error::LogCorrupt {
        path: path.to_owned(),
        offset: 0,
        lsn: 1,
        reason: format!("a `{}` log has no bot seed to resume with", log.header.mode),
    })?;
    let writer = MatchLogWriter::resume(path, &log, DEFAULT_CHECKPOINT_EVERY)?;
    let world = recover(log)?;
    let hash_log = match hash_log {
        Some(p) => Some(HashLogWriter::create(
            p,
            &format!("resumed from {} at tick {}", path.display(), world.tick()),
        )?),
        None => None,
    };
    play_bots(world, bot_seed, ticks, false, hash_log, Some(writer))
}

fn play_bots(
    mut world: World,
    bot_seed: u64,
    ticks: Tick,
    stop_at_match_end: bool,
    hash_log: Option<HashLogWriter>,
    match_log: Option<MatchLogWriter>,
) -> Result<BotMatchSummary, Error> {
    let mut logs = TickLogs::new(hash_log, match_log);
    let mut bots = bots_for(world.player_count(), bot_seed);
    let mut inputs: Vec<InputCmd> = Vec::with_capacity(bots.len());
    while world.tick() < ticks {
        if stop_at_match_end && world.state().round.phase == RoundPhase::MatchOver {
            break;
        }
        inputs.clear();
        inputs.extend(bots.iter_mut().map(|b| b.think(&world)));
        world.step(&inputs)?;
        let hash = world.state_hash();
        logs.record(world.tick(), &inputs, hash, || Ok(world.state()))?;
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
