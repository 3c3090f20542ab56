//! The range of every numeric option, in one table: each option's value parser is built from
//! it (so a typo is refused up front, with the range in the message, instead of a panic inside
//! GGRS or past `Instant`'s range), and the test beside it feeds every numeric option of every
//! subcommand values at, inside and outside its range, and fails on an option the table lacks.

use clap::builder::RangedU64ValueParser;
use client::session::netplay::{
    DISCONNECT_TIMEOUT_RANGE, MAX_DESYNC_INTERVAL, MAX_FPS, MAX_HANDSHAKE_TIMEOUT, MAX_INPUT_DELAY,
    MAX_SPECTATORS, MAX_SYNC_TIMEOUT,
};

/// What an option's value may be, inclusive.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Range {
    pub min: u64,
    pub max: u64,
}

/// Ticks to play, and a tick to stop at or show.
pub(crate) const TICKS: Range = Range {
    min: 1,
    max: client::runs::MAX_TICKS as u64,
};
/// A tick of a log (0: its first).
pub(crate) const TICK: Range = Range {
    min: 0,
    max: client::runs::MAX_TICKS as u64,
};
pub(crate) const PLAYERS: Range = Range {
    min: 2,
    max: engine::MAX_PLAYERS as u64,
};
pub(crate) const SPECTATORS: Range = Range {
    min: 0,
    max: MAX_SPECTATORS as u64,
};
pub(crate) const INPUT_DELAY: Range = Range {
    min: 0,
    max: MAX_INPUT_DELAY as u64,
};
pub(crate) const DESYNC_INTERVAL: Range = Range {
    min: 1,
    max: MAX_DESYNC_INTERVAL as u64,
};
pub(crate) const FPS: Range = Range {
    min: 1,
    max: MAX_FPS as u64,
};
/// Seconds.
pub(crate) const HANDSHAKE_TIMEOUT: Range = Range {
    min: 1,
    max: MAX_HANDSHAKE_TIMEOUT.as_secs(),
};
/// Seconds.
pub(crate) const SYNC_TIMEOUT: Range = Range {
    min: 1,
    max: MAX_SYNC_TIMEOUT.as_secs(),
};
/// Milliseconds.
pub(crate) const DISCONNECT_TIMEOUT_MS: Range = Range {
    min: DISCONNECT_TIMEOUT_RANGE.0.as_millis() as u64,
    max: DISCONNECT_TIMEOUT_RANGE.1.as_millis() as u64,
};
pub(crate) const CHECK_DISTANCE: Range = Range {
    min: 1,
    max: client::session::synctest::MAX_CHECK_DISTANCE as u64,
};
/// A loopback port to bind (0 would let the OS pick one the other side cannot know).
pub(crate) const PORT: Range = Range {
    min: 1,
    max: u16::MAX as u64,
};

/// The value parser of an option in `range`, producing `T`.
pub(crate) fn parser<T>(range: Range) -> RangedU64ValueParser<T>
where
    T: TryFrom<u64> + Clone + Send + Sync + 'static,
    <T as TryFrom<u64>>::Error: std::error::Error + Send + Sync + 'static,
{
    RangedU64ValueParser::<T>::new().range(range.min..=range.max)
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::{CommandFactory, Parser};
    use proptest::prelude::*;

    /// Every numeric option: `(subcommand, option, range)`.
    const NUMERIC: &[(&str, &str, Range)] = &[
        ("bot-match", "ticks", TICKS),
        ("bot-match", "players", PLAYERS),
        ("resume", "ticks", TICKS),
        ("state", "tick", TICK),
        ("host", "spectators", SPECTATORS),
        ("online", "spectators", SPECTATORS),
        ("sync-test", "check-distance", CHECK_DISTANCE),
        ("sync-test", "ticks", TICKS),
        ("sync-test", "debug-inject-desync", TICK),
        ("rail-fairness", "ticks", TICKS),
        ("rail-fairness", "port", PORT),
        ("rail-fairness", "input-delay", INPUT_DELAY),
        ("rail-fairness-peer", "ticks", TICKS),
        ("rail-fairness-peer", "input-delay", INPUT_DELAY),
    ];
    /// The numeric options every networked subcommand shares (`NetArgs`).
    const NET_NUMERIC: &[(&str, Range)] = &[
        ("ticks", TICKS),
        ("input-delay", INPUT_DELAY),
        ("desync-interval", DESYNC_INTERVAL),
        ("fps", FPS),
        ("handshake-timeout", HANDSHAKE_TIMEOUT),
        ("sync-timeout", SYNC_TIMEOUT),
        ("disconnect-timeout-ms", DISCONNECT_TIMEOUT_MS),
        ("debug-inject-desync", TICK),
    ];
    const NET_COMMANDS: [&str; 5] = ["host", "join", "spectate", "online", "rejoin"];
    /// Options whose values are not numbers in a range, each parsed (and checked) by its own
    /// parser: paths, addresses, names, codes; and seeds, which take every `u64`.
    const OTHER: &[&str] = &[
        "seed",
        "bot-seed",
        "rules",
        "hash-log",
        "match-log",
        "log",
        "a",
        "b",
        "dumps-a",
        "dumps-b",
        "match-a",
        "match-b",
        "diff",
        "bind",
        "host",
        "room",
        "room-secret",
        "signal",
        "ice",
        "ice-user",
        "ice-password",
        "dump-dir",
        "code",
        "conditioner",
        "debug-inject-phase",
        "role",
        "addr",
        "view",
    ];

    /// Every `(subcommand, option, range)`, the shared ones included.
    fn all() -> Vec<(&'static str, &'static str, Range)> {
        let mut out = NUMERIC.to_vec();
        for command in NET_COMMANDS {
            out.extend(NET_NUMERIC.iter().map(|&(o, r)| (command, o, r)));
        }
        out
    }

    /// Arguments that make `command` parse, without `skip` (the option under test).
    fn base(command: &str, skip: &str) -> Vec<String> {
        let mut args = vec!["duel-cli".to_owned(), command.to_owned()];
        let positional: &[&str] = match command {
            "join" | "spectate" => &["127.0.0.1:9"],
            "resume" | "state" | "verify" | "rejoin" => &["x.log"],
            "rail-fairness-peer" => &["host", "127.0.0.1:9", "past"],
            _ => &[],
        };
        args.extend(positional.iter().map(|s| (*s).to_owned()));
        if command == "online" {
            args.extend(["--room".into(), "friday".into()]);
        }
        if command == "rail-fairness-peer" {
            for (option, value) in [
                ("ticks", "10"),
                ("conditioner", "latency=0"),
                ("input-delay", "2"),
            ] {
                if option != skip {
                    args.extend([format!("--{option}"), value.to_owned()]);
                }
            }
        }
        args
    }

    fn parses(command: &str, option: &str, value: &str) -> Result<(), String> {
        let mut args = base(command, option);
        args.extend([format!("--{option}"), value.to_owned()]);
        crate::Cli::try_parse_from(args)
            .map(drop)
            .map_err(|e| e.to_string())
    }

    /// Contract: the table names every option of every subcommand that takes a value, and each
    /// name it gives exists (a new option without a range fails here).
    #[test]
    fn every_option_is_in_the_table() {
        let cli = crate::Cli::command();
        let numeric = all();
        for sub in cli.get_subcommands() {
            for arg in sub.get_arguments() {
                let id = arg.get_id().as_str().replace('_', "-");
                if !arg.get_action().takes_values() || id == "help" || id == "version" {
                    continue;
                }
                let known = numeric
                    .iter()
                    .any(|&(c, o, _)| c == sub.get_name() && o == id)
                    || OTHER.contains(&id.as_str());
                assert!(known, "{} --{id} has no range in the table", sub.get_name());
            }
        }
        for other in OTHER {
            assert!(
                cli.get_subcommands().any(|s| s.get_arguments().any(|a| a
                    .get_id()
                    .as_str()
                    .replace('_', "-")
                    == *other)),
                "no subcommand has --{other}"
            );
        }
        for (command, option, _) in numeric {
            let sub = cli
                .get_subcommands()
                .find(|s| s.get_name() == command)
                .unwrap_or_else(|| panic!("no subcommand {command}"));
            assert!(
                sub.get_arguments()
                    .any(|a| a.get_id().as_str().replace('_', "-") == option),
                "{command} has no --{option}"
            );
        }
    }

    /// Contract: at both ends of its range an option parses; one past either end, and far past
    /// (`u64::MAX`, a negative number, a fraction), it is refused with the range in the message.
    #[test]
    fn every_option_takes_its_ends_and_refuses_one_past_them() {
        for (command, option, r) in all() {
            for inside in [r.min, r.max, r.min + (r.max - r.min) / 2] {
                parses(command, option, &inside.to_string())
                    .unwrap_or_else(|e| panic!("{command} --{option} {inside}: {e}"));
            }
            let range = format!("{}..={}", r.min, r.max);
            let mut outside = vec![
                (r.max + 1).to_string(),
                u64::MAX.to_string(),
                "18446744073709551616".into(),
                "-1".into(),
                "1.5".into(),
                String::new(),
            ];
            if r.min > 0 {
                outside.push((r.min - 1).to_string());
            }
            for value in outside {
                let err = parses(command, option, &value)
                    .expect_err(&format!("{command} --{option} {value:?} is refused"));
                let numeric = value.parse::<u64>().is_ok();
                assert!(
                    !numeric || err.contains(&range),
                    "{command} --{option} {value}: {err}"
                );
            }
        }
    }

    proptest! {
        /// Any value of any numeric option parses exactly when it is inside its range.
        #[test]
        fn any_value_parses_exactly_inside_its_range(
            pick in any::<usize>(),
            value in prop_oneof![0u64..1000, any::<u64>(), 0u64..20_000_000],
        ) {
            let options = all();
            let (command, option, r) = options[pick % options.len()];
            let inside = (r.min..=r.max).contains(&value);
            let result = parses(command, option, &value.to_string());
            prop_assert_eq!(result.is_ok(), inside, "{} --{} {}: {:?}", command, option, value, result);
        }
    }
}
