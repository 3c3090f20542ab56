//! `maze-duel`: the SDL2 maze duel. See `maze-duel --help`.
#![forbid(unsafe_code)]

use anyhow::Context as _;
use clap::Parser;
use engine::{PlayerId, Rules};
use sample_game::{
    App, AppOptions, BitmapFont, Cli, LocalMatch, MatchSource, Renderer, Screenshot,
};
use std::process::ExitCode;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

fn main() -> ExitCode {
    match run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("maze-duel: {e:#}");
            ExitCode::FAILURE
        }
    }
}

fn run() -> anyhow::Result<()> {
    let cli = Cli::parse();
    let rules = client::load_rules(cli.rules.as_deref()).with_context(|| match &cli.rules {
        Some(path) => format!("rules file {}", path.display()),
        None => "built-in rules".to_string(),
    })?;
    let seed = cli.seed.unwrap_or_else(seed_from_clock);
    let renderer = Renderer::new(BitmapFont::load()?);

    if let (Some(path), Some(at_tick)) = (&cli.screenshot, cli.at_tick) {
        let shot = Screenshot {
            seed,
            at_tick,
            size: cli.size,
            net_hud: true,
        };
        let rgba = sample_game::render_to_rgba(rules, &shot, &renderer)?;
        sample_game::write_png(path, cli.size, &rgba)?;
        println!("wrote {} (seed {seed}, tick {at_tick})", path.display());
        return Ok(());
    }

    let measuring = cli.measure_pacing.map(Duration::from_secs_f64);
    let bots: &[PlayerId] = match (measuring, cli.vs_bot) {
        (Some(_), _) => &[0, 1],
        (None, true) => &[1],
        (None, false) => &[],
    };
    let mut source = match_source(rules, seed, bots)?;
    let options = AppOptions {
        window_size: cli.size,
        software: cli.software,
        controls_at_start: measuring.is_none(),
        run_for: measuring,
        auto_rematch_after: measuring.map(|_| 180),
        ..AppOptions::default()
    };
    let mut app = App::new(options, renderer)?;
    println!("maze-duel: seed {seed}");
    let report = app.run(source.as_mut())?;
    if measuring.is_some() {
        println!("{report}");
    }
    Ok(())
}

/// The match to play. Local play today; the online subcommands (`host`, `join <addr>`,
/// `spectate <addr>`) will each build their own source here from the same rules and seed.
fn match_source(
    rules: Rules,
    seed: u64,
    bots: &[PlayerId],
) -> anyhow::Result<Box<dyn MatchSource>> {
    Ok(Box::new(LocalMatch::new(rules, seed)?.with_bots(bots)))
}

/// A seed for when none is given: the clock's low bits (printed, so a match can be replayed).
fn seed_from_clock() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(1, |d| d.as_secs() ^ u64::from(d.subsec_nanos()))
        % 1_000_000
}
