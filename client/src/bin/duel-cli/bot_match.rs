//! `bot-match`: a seeded bot match played headless, with optional hash and match logs.

use anyhow::Result;
use client::runs::{run_bot_match, BotMatch};

/// `duel-cli bot-match`: plays the match and prints the final tick, round, wins and hash.
pub(crate) fn bot_match(plan: &BotMatch) -> Result<()> {
    let summary = run_bot_match(plan)?;
    out!(
        "ticks={} round={} wins={:?} hash={:016x}",
        summary.ticks,
        summary.round,
        summary.wins,
        summary.final_hash.combined
    );
    Ok(())
}
