//! The command line.

use clap::{Parser, Subcommand};
use client::net::conditioner::ConditionerConfig;
use client::remote_view::RemoteView;
use std::net::SocketAddr;
use std::path::PathBuf;

/// A top-down maze duel for two players on one keyboard (and game controllers), or over the
/// network with rollback netcode.
///
/// With no arguments the title menu opens; `maze-duel play` (or any mode or match option below)
/// starts a match at once, for scripts.
#[derive(Parser, Debug, Clone, PartialEq)]
#[command(name = "maze-duel", version, about, long_about = None)]
pub struct Cli {
    /// Online play, spectating, replays; the menu when absent (a local match at once with
    /// --vs-bot, --sync-test, --measure-pacing, --match-log or --hash-log).
    #[command(subcommand)]
    pub mode: Option<Mode>,

    /// Match seed: picks the mazes. Default: from the clock (printed at start). Each rematch
    /// uses the next seed.
    #[arg(long, global = true)]
    pub seed: Option<u64>,

    /// Rules file (TOML; every field required, see assets/rules.toml). Default: built-in rules.
    #[arg(long, global = true, value_name = "FILE")]
    pub rules: Option<PathBuf>,

    /// Sound volume 0..100 (0: silent, no audio device opened). F7/F8 change it, F9 mutes.
    #[arg(long, global = true, default_value_t = 70, value_parser = clap::value_parser!(u8).range(0..=100))]
    pub volume: u8,

    /// Play alone: player 2 is the built-in bot.
    #[arg(long, global = true)]
    pub vs_bot: bool,

    /// How well the bot plays: beginner (reacts 333 ms late, keeps its distance, only
    /// shoots), easy (reacts 200 ms late, aims loosely, no rail), normal, hard.
    #[arg(long, global = true, value_name = "LEVEL", default_value = "normal")]
    pub bot_difficulty: engine::Difficulty,

    /// Use SDL's software renderer even when an accelerated one is available.
    #[arg(long, global = true)]
    pub software: bool,

    /// Initial window size, WIDTHxHEIGHT.
    #[arg(long, global = true, value_name = "WxH", default_value = "1280x800", value_parser = parse_size)]
    pub size: (u32, u32),

    /// Render a bot match at --at-tick to this PNG and exit (needs no display).
    #[arg(long, global = true, value_name = "PNG", requires = "at_tick")]
    pub screenshot: Option<PathBuf>,

    /// Show the rail debug overlay (F3) from the start, also on a --screenshot: the hitboxes
    /// a rail shot is judged against and the last shot's ray.
    #[arg(long, global = true)]
    pub rail_debug: bool,

    /// On a --screenshot, draw player 2 as player 1 would see them online with
    /// `--remote-view past`, this many ticks back.
    #[arg(long, global = true, value_name = "TICKS", requires = "screenshot", default_value_t = 0,
          value_parser = clap::value_parser!(u8).range(0..=12))]
    pub remote_back: u8,

    /// Render the title menu to this PNG and exit (needs no display).
    #[arg(long, global = true, value_name = "PNG", conflicts_with = "screenshot")]
    pub menu_screenshot: Option<PathBuf>,

    /// The tick --screenshot captures.
    #[arg(long, global = true, value_name = "N", requires = "screenshot",
          value_parser = clap::value_parser!(u32).range(0..=i64::from(client::runs::MAX_TICKS)))]
    pub at_tick: Option<u32>,

    /// Run the real window loop with both players on bots for this many seconds, then print
    /// the simulation tick rate and frame times.
    #[arg(long, global = true, value_name = "SECONDS", conflicts_with = "screenshot", value_parser = parse_seconds)]
    pub measure_pacing: Option<f64>,

    /// Local play under a GGRS sync test: every frame is rolled back this many frames and
    /// re-simulated, proving determinism while you play (a mismatch stops the game).
    #[arg(long, global = true, value_name = "FRAMES", value_parser = clap::value_parser!(u8).range(2..=15))]
    pub sync_test: Option<u8>,

    /// Write the durable match log (also the replay file) here. Default:
    /// `matches/<mode>-seed<seed>-<time>.duellog`.
    #[arg(long, global = true, value_name = "FILE")]
    pub match_log: Option<PathBuf>,

    /// Do not write a match log.
    #[arg(long, global = true, conflicts_with = "match_log")]
    pub no_match_log: bool,

    /// Write a per-tick hash log of confirmed ticks (`tick combined players projectiles maze
    /// rest`).
    #[arg(long, global = true, value_name = "FILE")]
    pub hash_log: Option<PathBuf>,

    /// Settings file (volume, input delay, remote view, fullscreen, keys), written by the
    /// menu's options. Default: `$XDG_CONFIG_HOME/maze-duel/config.toml` or
    /// `~/.config/maze-duel/config.toml`. Matches started from the command line use only its
    /// keys.
    #[arg(long, global = true, value_name = "FILE")]
    pub config: Option<PathBuf>,
}

/// Ways to play besides a local match.
#[derive(Subcommand, Debug, Clone, PartialEq)]
pub enum Mode {
    /// A local match (the same as giving no mode): `maze-duel play`.
    Play,
    /// Host an online match: wait for a player (and spectators) to join.
    Host {
        /// Port to listen on (all interfaces); see --bind for one address.
        #[arg(long, default_value_t = 7000, value_parser = clap::value_parser!(u16).range(1..))]
        port: u16,
        /// Exact address to listen on, e.g. 192.168.1.20:7000 (overrides --port).
        #[arg(long)]
        bind: Option<SocketAddr>,
        /// Spectators to wait for before starting (at most 8).
        #[arg(long, default_value_t = 0, value_parser = spectators())]
        spectators: usize,
        /// Admit only players holding this invite code (`random`: a fresh one), printed as
        /// the invitation to share, `ADDRESS#CODE`.
        #[arg(long, value_name = "CODE|random", value_parser = parse_code)]
        code: Option<InviteChoice>,
        /// Online options.
        #[command(flatten)]
        net: NetOptions,
    },
    /// Join an online match hosted at HOST:PORT (or HOST:PORT#CODE, the host's invitation).
    Join {
        /// The host's address, e.g. 192.168.1.20:7000 or myhost.lan:7000, with `#CODE` when
        /// the host gave one.
        address: String,
        /// Online options.
        #[command(flatten)]
        net: NetOptions,
    },
    /// Watch an online match hosted at HOST:PORT.
    Spectate {
        /// The host's address.
        address: String,
        /// Online options.
        #[command(flatten)]
        net: NetOptions,
    },
    /// Play across the internet without port forwarding: meet the other player (and any
    /// spectators) in a room of a signalling server and play over WebRTC. Both players run the
    /// same command; the room decides who hosts.
    Online {
        /// The room: a name opens it under a fresh secret and prints its link; the link
        /// (`ws://HOST:PORT/ROOM?secret=…`) enters it. Everyone with the link meets.
        #[arg(long, value_name = "NAME|LINK")]
        room: String,
        /// The signalling server (start one with `./run signal`).
        #[arg(long, default_value = client::net::webrtc::DEFAULT_SIGNAL_URL)]
        signal: String,
        /// Watch instead of playing.
        #[arg(long)]
        spectate: bool,
        /// Spectators to wait for before starting, should this player host (at most 8).
        #[arg(long, default_value_t = 0, value_parser = spectators())]
        spectators: usize,
        /// A STUN or TURN server for crossing NATs (`stun:stun.example.org:3478`,
        /// `turn:turn.example.org:3478`); repeat for several. Default: the options screen's
        /// choice, public STUN (stun.l.google.com:19302, stun.cloudflare.com:3478) unless changed (`--no-ice`: none, LAN only).
        #[arg(long = "ice", value_name = "URL")]
        ice: Vec<String>,
        /// User name for the TURN server.
        #[arg(long = "ice-user", value_name = "USER")]
        ice_user: Option<String>,
        /// Password for the TURN server.
        #[arg(long = "ice-password", value_name = "PASSWORD")]
        ice_password: Option<String>,
        /// No STUN or TURN server at all: only players on one machine or one LAN meet.
        #[arg(long, conflicts_with = "ice")]
        no_ice: bool,
        /// Online options.
        #[command(flatten)]
        net: NetOptions,
    },
    /// Take your slot back in an online match after the game closed or crashed, from the
    /// match log it wrote (under `matches/` by default): the other player waits for you
    /// through its reconnect grace (30 s), and takes you back only if the log holds the
    /// match's secret. The log is continued in place.
    Rejoin {
        /// The match log of the match you left.
        log: PathBuf,
        /// Online options.
        #[command(flatten)]
        net: NetOptions,
    },
    /// Watch a recorded match log: Space pauses, N steps, +/- speed, Left/Right seek 5 s.
    Replay {
        /// The match log.
        log: PathBuf,
    },
    /// Continue a local match from its match log (after the game was closed or crashed).
    Resume {
        /// The match log; it is continued in place.
        log: PathBuf,
    },
}

/// `--code`: a given invite code, or one to make.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum InviteChoice {
    /// This code.
    Given(client::net::seal::InviteCode),
    /// A fresh one from the OS.
    Random,
}

fn parse_code(text: &str) -> Result<InviteChoice, String> {
    if text == "random" {
        return Ok(InviteChoice::Random);
    }
    client::net::seal::InviteCode::parse(text).map(InviteChoice::Given)
}

/// Options of online play.
#[derive(clap::Args, Debug, Clone, PartialEq)]
pub struct NetOptions {
    /// Frames of input delay (F5/F6 change it while playing).
    #[arg(long, default_value_t = 2, value_parser = clap::value_parser!(u8).range(0..=8))]
    pub input_delay: u8,
    /// Impair outgoing datagrams for testing:
    /// `latency=40,jitter=10,loss=5,burst=2,dup=1,reorder=2,seed=1` (ms one way; percent).
    #[arg(long, value_parser = ConditionerConfig::parse)]
    pub conditioner: Option<ConditionerConfig>,
    /// Seconds to wait for the other side before giving up (1 to 3600).
    #[arg(long, default_value_t = 60, value_parser = clap::value_parser!(u64)
        .range(1..=client::session::netplay::MAX_HANDSHAKE_TIMEOUT.as_secs()))]
    pub timeout: u64,
    /// How the other player is drawn: `past` (from confirmed history, a few ticks behind; a
    /// rail shot is judged against exactly that) or `predicted` (where prediction puts them
    /// now; a rail shot is judged against where they truly were on its tick).
    #[arg(long, value_name = "VIEW", default_value_t = RemoteView::Past)]
    pub remote_view: RemoteView,
}

impl Cli {
    /// Combinations clap cannot express: `resume` continues the match log it resumes, so
    /// `--match-log` and `--no-match-log` would be silently ignored there; they are refused.
    ///
    /// # Errors
    /// A message naming the option that does not apply.
    pub fn check(&self) -> Result<(), String> {
        if matches!(self.mode, Some(Mode::Resume { .. })) {
            if self.match_log.is_some() {
                return Err(
                    "resume continues the log it resumes; --match-log does not apply".into(),
                );
            }
            if self.no_match_log {
                return Err(
                    "resume continues the log it resumes; --no-match-log does not apply".into(),
                );
            }
        }
        Ok(())
    }
}

impl Cli {
    /// Whether this command line opens the title menu: no mode, and none of the options that
    /// start a match by themselves (`--vs-bot`, `--sync-test`, `--measure-pacing`,
    /// `--screenshot`, `--match-log`, `--hash-log`).
    #[must_use]
    pub fn wants_menu(&self) -> bool {
        self.mode.is_none()
            && !self.vs_bot
            && self.sync_test.is_none()
            && self.measure_pacing.is_none()
            && self.screenshot.is_none()
            && self.menu_screenshot.is_none()
            && self.match_log.is_none()
            && self.hash_log.is_none()
    }
}

/// `--spectators`: up to what a host takes.
fn spectators() -> clap::builder::RangedU64ValueParser<usize> {
    clap::builder::RangedU64ValueParser::<usize>::new()
        .range(0..=client::session::netplay::MAX_SPECTATORS as u64)
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

    /// Deliberately changed with the menu (issue 10): no arguments opens the title menu;
    /// `play` and every mode or match option still start at once, for scripts.
    #[test]
    fn no_arguments_opens_the_menu() {
        let cli = Cli::try_parse_from(["maze-duel"]).unwrap();
        assert_eq!(
            (cli.seed, cli.rules.clone(), cli.vs_bot, cli.mode.clone()),
            (None, None, false, None)
        );
        assert_eq!(cli.size, (1280, 800));
        assert!(cli.wants_menu());
        let tuned = Cli::try_parse_from(["maze-duel", "--seed", "3", "--size", "800x600"]);
        assert!(
            tuned.unwrap().wants_menu(),
            "window and seed options keep the menu"
        );
        let cfg = Cli::try_parse_from(["maze-duel", "--config", "/tmp/c.toml"]).unwrap();
        assert_eq!(cfg.config, Some(PathBuf::from("/tmp/c.toml")));
        assert!(cfg.wants_menu());
    }

    #[test]
    fn play_and_match_options_start_a_match_at_once() {
        let cli = Cli::try_parse_from(["maze-duel", "play", "--seed", "4"]).unwrap();
        assert_eq!((cli.seed, cli.mode.clone()), (Some(4), Some(Mode::Play)));
        assert!(!cli.wants_menu());
        for args in [
            &["--vs-bot"][..],
            &["--sync-test", "4"],
            &["--measure-pacing", "2"],
            &["--screenshot", "a.png", "--at-tick", "3"],
            &["--match-log", "m.duellog"],
            &["replay", "m.duellog"],
            &["host"],
            &["join", "h:1"],
        ] {
            let mut all = vec!["maze-duel"];
            all.extend_from_slice(args);
            assert!(!Cli::try_parse_from(&all).unwrap().wants_menu(), "{args:?}");
        }
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
        let cond = Cli::try_parse_from(["maze-duel", "join", "h:1", "--conditioner", "lag=3"])
            .unwrap_err();
        assert!(cond.to_string().contains("unknown key `lag`"), "{cond}");
        assert!(Cli::try_parse_from(["maze-duel", "--sync-test", "1"]).is_err());
        assert!(Cli::try_parse_from(["maze-duel", "host", "--input-delay", "20"]).is_err());
    }

    #[test]
    fn online_takes_a_room_and_defaults_to_the_local_signalling_server() {
        let cli = Cli::try_parse_from(["maze-duel", "online", "--room", "duel"]).unwrap();
        let Some(Mode::Online {
            room,
            signal,
            spectate,
            ..
        }) = cli.mode
        else {
            panic!("online mode");
        };
        assert_eq!(
            (room.as_str(), signal.as_str(), spectate),
            ("duel", client::net::webrtc::DEFAULT_SIGNAL_URL, false)
        );
        assert!(
            Cli::try_parse_from(["maze-duel", "online"]).is_err(),
            "--room is required"
        );
        let args = [
            "maze-duel",
            "online",
            "--room",
            "duel",
            "--ice",
            "stun:a:1",
            "--ice",
            "turn:b:2",
            "--ice-user",
            "u",
            "--ice-password",
            "p",
        ];
        let Some(Mode::Online {
            ice,
            ice_user,
            ice_password,
            ..
        }) = Cli::try_parse_from(args).unwrap().mode
        else {
            panic!("online mode");
        };
        assert_eq!(ice, ["stun:a:1", "turn:b:2"]);
        assert_eq!(
            (ice_user.as_deref(), ice_password.as_deref()),
            (Some("u"), Some("p"))
        );
    }

    #[test]
    fn resume_refuses_match_log_options_it_would_ignore() {
        let ok =
            Cli::try_parse_from(["maze-duel", "resume", "m.duellog", "--hash-log", "h"]).unwrap();
        assert_eq!(ok.check(), Ok(()), "--hash-log applies to a resumed match");
        for flag in [
            &["--match-log", "other.duellog"][..],
            &["--no-match-log"][..],
        ] {
            let mut args = vec!["maze-duel", "resume", "m.duellog"];
            args.extend_from_slice(flag);
            let err = Cli::try_parse_from(args).unwrap().check().unwrap_err();
            assert!(err.contains(flag[0]), "{err}");
        }
        let local =
            Cli::try_parse_from(["maze-duel", "--sync-test", "7", "--match-log", "s"]).unwrap();
        assert_eq!(local.check(), Ok(()), "--sync-test records a match log");
    }

    /// Issue 17: a host may admit only holders of an invite code, given or fresh; a malformed
    /// one is refused by the parser, naming the problem.
    #[test]
    fn a_host_takes_an_invite_code_or_makes_one() {
        let code = |args: &[&str]| match Cli::try_parse_from(args).map(|c| c.mode) {
            Ok(Some(Mode::Host { code, .. })) => Ok(code),
            Ok(other) => panic!("{other:?}"),
            Err(e) => Err(e.to_string()),
        };
        assert_eq!(code(&["maze-duel", "host"]), Ok(None));
        assert_eq!(
            code(&["maze-duel", "host", "--code", "random"]),
            Ok(Some(InviteChoice::Random))
        );
        let given = client::net::seal::InviteCode::from_bytes([0; 10]);
        assert_eq!(
            code(&["maze-duel", "host", "--code", "AAAA-aaaa-aaaa-aaaa"]),
            Ok(Some(InviteChoice::Given(given)))
        );
        let err = code(&["maze-duel", "host", "--code", "l0l"]).unwrap_err();
        assert!(err.contains("invite code"), "{err}");
    }

    #[test]
    fn online_modes_parse() {
        let cli = Cli::try_parse_from(["maze-duel", "join", "10.0.0.2:7000", "--input-delay", "3"])
            .unwrap();
        let Some(Mode::Join { address, net }) = cli.mode else {
            panic!()
        };
        assert_eq!((address.as_str(), net.input_delay), ("10.0.0.2:7000", 3));
        assert_eq!(net.remote_view, RemoteView::Past, "the default");
        let cli = Cli::try_parse_from(["maze-duel", "host", "--port", "7100", "--spectators", "1"])
            .unwrap();
        assert!(matches!(
            cli.mode,
            Some(Mode::Host {
                port: 7100,
                spectators: 1,
                ..
            })
        ));
        let cli = Cli::try_parse_from(["maze-duel", "host", "--remote-view", "predicted"]).unwrap();
        let Some(Mode::Host { net, .. }) = cli.mode else {
            panic!()
        };
        assert_eq!(net.remote_view, RemoteView::Predicted);
        let bad = Cli::try_parse_from(["maze-duel", "join", "h:1", "--remote-view", "future"])
            .unwrap_err();
        assert!(
            bad.to_string().contains("expected `predicted` or `past`"),
            "{bad}"
        );
        let cli = Cli::try_parse_from(["maze-duel", "replay", "m.duellog"]).unwrap();
        assert!(matches!(cli.mode, Some(Mode::Replay { .. })));
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

    /// The window size and the pacing measurement's seconds at every edge: the smallest and
    /// largest accepted, one past each, the separators, and values that are not numbers.
    #[test]
    fn sizes_and_seconds_take_their_edges_and_refuse_past_them() {
        for (text, want) in [
            ("64x64", Some((64, 64))),
            ("16384X16384", Some((16384, 16384))),
            (" 800 x 600 ", Some((800, 600))),
            ("63x600", None),
            ("800x63", None),
            ("16385x600", None),
            ("800x16385", None),
            ("800", None),
            ("x600", None),
            ("-800x600", None),
        ] {
            assert_eq!(parse_size(text).ok(), want, "--size {text}");
        }
        assert!(parse_size("8x600")
            .unwrap_err()
            .contains("between 64 and 16384"));
        for (text, want) in [
            ("0.5", Some(0.5)),
            ("86400", Some(86_400.0)),
            ("1e-9", Some(1e-9)),
            ("0", None),
            ("-0.5", None),
            ("86400.01", None),
            ("NaN", None),
            ("inf", None),
            ("-inf", None),
            ("two", None),
        ] {
            assert_eq!(parse_seconds(text).ok(), want, "--measure-pacing {text}");
        }
        let cli = Cli::try_parse_from(["maze-duel", "--measure-pacing", "2.5"]).unwrap();
        assert_eq!(cli.measure_pacing, Some(2.5));
    }

    /// Every option that takes a number: `(args before it, option, min, max)`.
    const NUMERIC: &[(&[&str], &str, u64, u64)] = &[
        (&[], "volume", 0, 100),
        (
            &["--screenshot", "a.png"],
            "at-tick",
            0,
            client::runs::MAX_TICKS as u64,
        ),
        (
            &["--screenshot", "a.png", "--at-tick", "1"],
            "remote-back",
            0,
            12,
        ),
        (&[], "sync-test", 2, 15),
        (&["host"], "port", 1, 65535),
        (
            &["host"],
            "spectators",
            0,
            client::session::netplay::MAX_SPECTATORS as u64,
        ),
        (
            &["online", "--room", "r"],
            "spectators",
            0,
            client::session::netplay::MAX_SPECTATORS as u64,
        ),
        (&["host"], "input-delay", 0, 8),
        (&["join", "h:1"], "timeout", 1, 3600),
        (&["spectate", "h:1"], "timeout", 1, 3600),
    ];
    /// Options whose values are not plain numbers, each with its own parser (or any `u64`).
    const OTHER: &[&str] = &[
        "seed",
        "rules",
        "bot-difficulty",
        "size",
        "screenshot",
        "menu-screenshot",
        "measure-pacing",
        "match-log",
        "hash-log",
        "config",
        "bind",
        "code",
        "conditioner",
        "remote-view",
        "address",
        "room",
        "signal",
        "ice",
        "ice-user",
        "ice-password",
        "log",
    ];

    fn parses(before: &[&str], option: &str, value: &str) -> bool {
        let mut args = vec!["maze-duel"];
        args.extend_from_slice(before);
        let flag = format!("--{option}");
        args.extend([flag.as_str(), value]);
        Cli::try_parse_from(args).is_ok()
    }

    /// Contract (issue 18): every option that takes a value is either a number with its range
    /// in the table above or parsed by its own parser; each numeric one parses at both ends of
    /// its range and is refused one past either end and far past (`u64::MAX`, negative).
    #[test]
    fn every_numeric_option_takes_its_range_and_refuses_the_rest() {
        use clap::CommandFactory;
        let cli = Cli::command();
        let mut commands = vec![&cli];
        commands.extend(cli.get_subcommands());
        for command in commands {
            for arg in command.get_arguments() {
                let id = arg.get_id().as_str().replace('_', "-");
                if !arg.get_action().takes_values() || id == "help" || id == "version" {
                    continue;
                }
                assert!(
                    NUMERIC.iter().any(|n| n.1 == id) || OTHER.contains(&id.as_str()),
                    "{} --{id} is in neither table",
                    command.get_name()
                );
            }
        }
        for &(before, option, min, max) in NUMERIC {
            for inside in [min, max, min + (max - min) / 2] {
                assert!(
                    parses(before, option, &inside.to_string()),
                    "--{option} {inside}"
                );
            }
            let mut outside = vec![(max + 1).to_string(), u64::MAX.to_string(), "-1".into()];
            if min > 0 {
                outside.push((min - 1).to_string());
            }
            for value in outside {
                assert!(
                    !parses(before, option, &value),
                    "--{option} {value} is refused"
                );
            }
        }
    }
}
