//! `maze-duel`: the SDL2 maze duel. See `maze-duel --help`.
#![forbid(unsafe_code)]

use clap::Parser;
use std::process::ExitCode;

fn main() -> ExitCode {
    match sample_game::launch::run(&sample_game::Cli::parse()) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("maze-duel: {e:#}");
            ExitCode::FAILURE
        }
    }
}
