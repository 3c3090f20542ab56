//! Headless bot matches: the simplest reproducible run of the engine.

use crate::error::Error;
use crate::hashlog::HashLogWriter;
use engine::{Bot, InputCmd, RoundPhase, Rules, StateHash, Tick, World};
use std::path::PathBuf;

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

/// Plays a seeded bot match headless.
///
/// # Errors
/// Rules or player-count errors from the engine; I/O errors writing the hash log.
pub fn run_bot_match(spec: &BotMatch) -> Result<BotMatchSummary, Error> {
    let mut world = World::new(spec.rules.clone(), spec.seed, spec.players)?;
    let mut bots: Vec<Bot> = (0..spec.players as u8)
        .map(|p| Bot::new(p, engine::splitmix64(spec.bot_seed ^ u64::from(p))))
        .collect();
    let mut log = match &spec.hash_log {
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
    let mut inputs: Vec<InputCmd> = Vec::with_capacity(spec.players);
    while world.tick() < spec.ticks {
        if spec.stop_at_match_end && world.state().round.phase == RoundPhase::MatchOver {
            break;
        }
        inputs.clear();
        inputs.extend(bots.iter_mut().map(|b| b.think(&world)));
        world.step(&inputs)?;
        if let Some(log) = &mut log {
            log.record(world.tick(), &world.state_hash())?;
        }
    }
    if let Some(log) = &mut log {
        log.flush()?;
    }
    let state = world.state();
    Ok(BotMatchSummary {
        ticks: world.tick(),
        final_hash: world.state_hash(),
        round: state.round.round,
        wins: state.round.wins[..spec.players].to_vec(),
    })
}
