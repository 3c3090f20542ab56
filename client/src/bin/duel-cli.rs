//! `duel-cli`: headless tools around the maze duel engine.

use anyhow::Result;
use clap::{Parser, Subcommand};
use client::{load_rules, run_bot_match, BotMatch};
use std::path::PathBuf;

#[derive(Parser)]
#[command(
    name = "duel-cli",
    version,
    about = "Headless tools for the maze duel rollback engine"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Play a seeded bot match headless and print the final state hash.
    BotMatch {
        /// Match seed (maze and shot spread).
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// Seed of the bots' decisions.
        #[arg(long, default_value_t = 2)]
        bot_seed: u64,
        /// Ticks to play (60 per second).
        #[arg(long, default_value_t = 3600)]
        ticks: u32,
        /// Number of players, 2 to 4.
        #[arg(long, default_value_t = 2)]
        players: usize,
        /// Keep playing after the match is decided, up to --ticks.
        #[arg(long)]
        no_stop: bool,
        /// Rules file (TOML); the built-in defaults when absent.
        #[arg(long)]
        rules: Option<PathBuf>,
        /// Write a per-tick hash log (`tick combined players projectiles maze rest`).
        #[arg(long)]
        hash_log: Option<PathBuf>,
    },
    /// Print the default rules as a TOML file.
    DefaultRules,
}

fn main() {
    if let Err(e) = run() {
        eprintln!("duel-cli: {e:#}");
        std::process::exit(1);
    }
}

fn run() -> Result<()> {
    match Cli::parse().command {
        Command::BotMatch {
            seed,
            bot_seed,
            ticks,
            players,
            no_stop,
            rules,
            hash_log,
        } => {
            let rules = load_rules(rules.as_deref())?;
            let summary = run_bot_match(&BotMatch {
                rules,
                seed,
                bot_seed,
                players,
                ticks,
                stop_at_match_end: !no_stop,
                hash_log,
            })?;
            println!(
                "ticks={} round={} wins={:?} hash={:016x}",
                summary.ticks, summary.round, summary.wins, summary.final_hash.combined
            );
        }
        Command::DefaultRules => print!("{}", engine::Rules::default().to_toml_string()),
    }
    Ok(())
}
