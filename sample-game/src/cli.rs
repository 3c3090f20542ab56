//! The command line.

use clap::Parser;
use std::path::PathBuf;

/// A top-down maze duel for two players on one keyboard (and game controllers).
///
/// With no arguments a local match starts at once. Online play (`host`, `join <addr>`,
/// `spectate <addr>`) will come as subcommands, each another match source.
#[derive(Parser, Debug, Clone, PartialEq)]
#[command(name = "maze-duel", version, about, long_about = None)]
pub struct Cli {
    /// Match seed: picks the mazes. Default: from the clock (printed at start). Each rematch
    /// uses the next seed.
    #[arg(long)]
    pub seed: Option<u64>,

    /// Rules file (TOML; every field required, see assets/rules.toml). Default: built-in rules.
    #[arg(long, value_name = "FILE")]
    pub rules: Option<PathBuf>,

    /// Play alone: player 2 is the built-in bot.
    #[arg(long)]
    pub vs_bot: bool,

    /// Use SDL's software renderer even when an accelerated one is available.
    #[arg(long)]
    pub software: bool,

    /// Initial window size, WIDTHxHEIGHT.
    #[arg(long, value_name = "WxH", default_value = "1280x800", value_parser = parse_size)]
    pub size: (u32, u32),

    /// Render a bot match at --at-tick to this PNG and exit (needs no display).
    #[arg(long, value_name = "PNG", requires = "at_tick")]
    pub screenshot: Option<PathBuf>,

    /// The tick --screenshot captures.
    #[arg(long, value_name = "N", requires = "screenshot")]
    pub at_tick: Option<u32>,

    /// Run the real window loop with both players on bots for this many seconds, then print
    /// the simulation tick rate and frame times.
    #[arg(long, value_name = "SECONDS", conflicts_with = "screenshot", value_parser = parse_seconds)]
    pub measure_pacing: Option<f64>,
}

/// `WIDTHxHEIGHT`, each at least 64.
fn parse_size(text: &str) -> Result<(u32, u32), String> {
    let (w, h) = text
        .split_once(['x', 'X'])
        .ok_or_else(|| format!("`{text}` is not WIDTHxHEIGHT, e.g. 1280x800"))?;
    let parse = |v: &str| {
        v.trim()
            .parse::<u32>()
            .ok()
            .filter(|n| (64..=16384).contains(n))
            .ok_or_else(|| format!("`{v}` is not a size between 64 and 16384"))
    };
    Ok((parse(w)?, parse(h)?))
}

/// A positive number of seconds.
fn parse_seconds(text: &str) -> Result<f64, String> {
    text.parse::<f64>()
        .ok()
        .filter(|s| s.is_finite() && *s > 0.0 && *s <= 86_400.0)
        .ok_or_else(|| format!("`{text}` is not a number of seconds between 0 and 86400"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn no_arguments_is_a_local_match() {
        let cli = Cli::try_parse_from(["maze-duel"]).unwrap();
        assert_eq!((cli.seed, cli.rules, cli.vs_bot), (None, None, false));
        assert_eq!(cli.size, (1280, 800));
    }

    #[test]
    fn bad_input_is_refused_with_a_message() {
        let unknown = Cli::try_parse_from(["maze-duel", "--sed", "3"]).unwrap_err();
        assert!(unknown.to_string().contains("--sed"));
        let size = Cli::try_parse_from(["maze-duel", "--size", "big"]).unwrap_err();
        assert!(size.to_string().contains("WIDTHxHEIGHT"));
        let lone = Cli::try_parse_from(["maze-duel", "--screenshot", "a.png"]).unwrap_err();
        assert!(lone.to_string().contains("--at-tick"));
        assert!(Cli::try_parse_from(["maze-duel", "--measure-pacing", "-1"]).is_err());
    }

    #[test]
    fn options_parse() {
        let cli = Cli::try_parse_from([
            "maze-duel",
            "--seed",
            "9",
            "--rules",
            "r.toml",
            "--size",
            "800x600",
        ])
        .unwrap();
        assert_eq!(cli.seed, Some(9));
        assert_eq!(cli.rules, Some(PathBuf::from("r.toml")));
        assert_eq!(cli.size, (800, 600));
    }
}
