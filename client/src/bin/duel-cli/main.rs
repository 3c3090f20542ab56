//! `duel-cli`: headless tools around the maze duel engine: bot matches, networked peers
//! (host, join, spectate) driven by bots, and sync tests.
//!
//! This file holds the command line (every subcommand's flags and help) and dispatches to one
//! module per concern: [`bot_match`], [`net`] (host, join, spectate), [`logs`] (resume,
//! verify, desync, state), [`sync_test`] and [`fairness`] (rail-fairness).

/// `println!` that never panics: when the reader of standard output has gone away (`| head`),
/// what is left to say is dropped and the command goes on to its end and its exit status.
macro_rules! out {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        let _ = writeln!(std::io::stdout(), $($arg)*);
    }};
}

/// `print!` that never panics (see [`out!`]).
macro_rules! out_raw {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        let _ = write!(std::io::stdout(), $($arg)*);
    }};
}

/// `eprintln!` that never panics (see [`out!`]).
macro_rules! err_out {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        let _ = writeln!(std::io::stderr(), $($arg)*);
    }};
}

mod bot_match;
mod fairness;
mod logs;
mod net;
mod ranges;
mod sync_test;

use anyhow::Result;
use clap::{Parser, Subcommand};
use client::load_rules;
use client::net::conditioner::ConditionerConfig;
use client::net::webrtc::IceServers;
use client::net::wire::Role;
use client::runs::{BotMatch, Resume};
use client::session::synctest::SyncTest;
use engine::Phase;
use net::NetArgs;
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// Exit statuses, shown by `--help`.
const EXIT_CODES: &str = "\
Exit status:
  0  done (host/join/spectate/online: every final tick reached)
  1  error: bad arguments, I/O, refused at the handshake, no answer from the host,
     no GGRS synchronization after the handshake, signalling server unreachable,
     online room refused (held by another secret), WebRTC unavailable on this machine
  2  desync detected (host/join/spectate/online), two hash logs diverge (desync), or
     two states differ (state --diff)
  3  host/join/spectate/online: the other side disconnected before the end";

#[derive(Parser)]
#[command(
    name = "duel-cli",
    version,
    about = "Headless tools for the maze duel rollback engine",
    after_help = EXIT_CODES
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
        #[arg(long, default_value_t = 3600, value_parser = ranges::parser::<u32>(ranges::TICKS))]
        ticks: u32,
        /// Number of players, 2 to 4.
        #[arg(long, default_value_t = 2, value_parser = ranges::parser::<usize>(ranges::PLAYERS))]
        players: usize,
        /// Keep playing after the match is decided, up to --ticks.
        #[arg(long)]
        no_stop: bool,
        /// Rules file (TOML); the built-in defaults when absent.
        #[arg(long)]
        rules: Option<PathBuf>,
        /// Write a per-tick hash log (`tick combined players projectiles maze history rest`).
        #[arg(long)]
        hash_log: Option<PathBuf>,
        /// Write the durable match log (replay file; `resume` continues it after a crash).
        #[arg(long)]
        match_log: Option<PathBuf>,
    },
    /// Resume a bot match from its match log after the process died, and play on.
    Resume {
        /// The match log (it is continued in place).
        log: PathBuf,
        /// Play on until this tick (default: where the original run was to stop, as its log
        /// records).
        #[arg(long, value_parser = ranges::parser::<u32>(ranges::TICKS))]
        ticks: Option<u32>,
        /// Write a hash log of the ticks played after resuming.
        #[arg(long)]
        hash_log: Option<PathBuf>,
    },
    /// Re-simulate a match log headless; every recorded hash and checkpoint must match.
    Verify {
        /// The match log.
        log: PathBuf,
        /// Insist on these rules (the log's own rules are used otherwise).
        #[arg(long)]
        rules: Option<PathBuf>,
        /// Write the re-simulated ticks' hashes as a hash log.
        #[arg(long)]
        hash_log: Option<PathBuf>,
    },
    /// Compare two peers' hash logs: the first divergent tick and section, a field-level diff
    /// and the first phase that differs when both sides dumped that tick; with both match logs,
    /// whether their inputs agree there and which peer's state does not follow from its inputs.
    Desync {
        /// One peer's hash log.
        a: PathBuf,
        /// The other peer's hash log.
        b: PathBuf,
        /// Snapshot dumps of the first peer (default: `<a>.dumps`).
        #[arg(long)]
        dumps_a: Option<PathBuf>,
        /// Snapshot dumps of the second peer (default: `<b>.dumps`).
        #[arg(long)]
        dumps_b: Option<PathBuf>,
        /// The first peer's match log.
        #[arg(long, requires = "match_b")]
        match_a: Option<PathBuf>,
        /// The second peer's match log.
        #[arg(long, requires = "match_a")]
        match_b: Option<PathBuf>,
    },
    /// Print the state at a tick of a match log (or a `.snapshot` dump, desync or sync test),
    /// every field as `path: value`; with --diff, only the fields that differ from another.
    State {
        /// A match log or a `.snapshot` file.
        log: PathBuf,
        /// The tick (required for a match log; checked for a snapshot).
        #[arg(long, value_parser = ranges::parser::<u32>(ranges::TICK))]
        tick: Option<u32>,
        /// Another match log or snapshot to compare with at the same tick.
        #[arg(long)]
        diff: Option<PathBuf>,
    },
    /// Host a networked match as player 1 (slot 0), played by a bot.
    Host {
        /// Address to bind (and receive on).
        #[arg(long, default_value = "0.0.0.0:7000")]
        bind: SocketAddr,
        /// Spectators to wait for before starting.
        #[arg(long, default_value_t = 0, value_parser = ranges::parser::<usize>(ranges::SPECTATORS))]
        spectators: usize,
        /// Match seed.
        #[arg(long, default_value_t = 1)]
        seed: u64,
        #[command(flatten)]
        net: NetArgs,
    },
    /// Join a match hosted at HOST:PORT (or HOST:PORT#CODE, the invitation a host with
    /// `--code` prints) as player 2, played by a bot.
    Join {
        /// The host's address.
        host: String,
        /// Address to bind (default: any port on the interface facing the host).
        #[arg(long)]
        bind: Option<SocketAddr>,
        #[command(flatten)]
        net: NetArgs,
    },
    /// Take your slot back in a networked match after your process died (a crash, a closed
    /// laptop), from the match log it wrote: LOG is checked, replayed and continued, and the
    /// other player, who waits for you through its reconnect grace (30 s by default), takes
    /// you back only if LOG holds the match's secret. The hash log is written afresh from tick 1.
    Rejoin {
        /// The match log the dead process wrote (`--match-log` of its host or join).
        log: PathBuf,
        /// Address to bind (default: any port on the interface facing the other player).
        #[arg(long)]
        bind: Option<SocketAddr>,
        #[command(flatten)]
        net: NetArgs,
    },
    /// Watch a match hosted at HOST:PORT (or HOST:PORT#CODE).
    Spectate {
        /// The host's address.
        host: String,
        /// Address to bind.
        #[arg(long)]
        bind: Option<SocketAddr>,
        #[command(flatten)]
        net: NetArgs,
    },
    /// Play (or watch) a match met in a room of a signalling server, over WebRTC: no port
    /// forwarding needed. Everyone in the room runs the same command; the room decides who
    /// hosts.
    ///
    /// The room is protected by a secret: the first peer to enter it fixes the secret, and the
    /// signalling server refuses anyone presenting another (or none). Without --room-secret or
    /// a link that carries one, a fresh secret is generated and the room's link printed: give
    /// that link to the other player (and any spectators), who pass it as --room.
    #[command(after_help = "Examples:\n  \
        duel-cli online --room friday                      # prints ws://…/friday?secret=…\n  \
        duel-cli online --room 'ws://HOST:3536/friday?secret=…'   # the other player")]
    Online {
        /// The room: its name (players and spectators giving the same name and secret meet),
        /// or a room link `ws://HOST:PORT/ROOM?secret=SECRET` as another peer printed it (its
        /// server is then the signalling server).
        #[arg(long, value_name = "NAME|LINK")]
        room: String,
        /// The room's secret (16 to 64 characters from A-Z a-z 0-9 - _). Default: the
        /// link's, or a new one, printed with the link.
        #[arg(long, value_name = "SECRET")]
        room_secret: Option<String>,
        /// Enter the room without a secret (a room opened without one: anyone who knows its
        /// name can enter it).
        #[arg(long, conflicts_with = "room_secret")]
        no_room_secret: bool,
        /// The signalling server (start one with `./run signal` or `duel-cli signal`)
        /// [default: ws://127.0.0.1:3536, or the server of a --room link].
        #[arg(long, value_name = "URL")]
        signal: Option<String>,
        /// Watch instead of playing.
        #[arg(long)]
        spectate: bool,
        /// Spectators to wait for before starting, should this peer host.
        #[arg(long, default_value_t = 0, value_parser = ranges::parser::<usize>(ranges::SPECTATORS))]
        spectators: usize,
        /// Match seed, should this peer host.
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// A STUN or TURN server for crossing NATs (`stun:stun.example.org:3478`,
        /// `turn:turn.example.org:3478`); repeat for several. Default: the public STUN servers
        /// stun.l.google.com:19302 and stun.cloudflare.com:3478 (`--no-ice`: none, LAN only).
        #[arg(long = "ice", value_name = "URL")]
        ice: Vec<String>,
        /// User name for the TURN server.
        #[arg(long = "ice-user", value_name = "USER")]
        ice_user: Option<String>,
        /// Password for the TURN server.
        #[arg(long = "ice-password", value_name = "PASSWORD")]
        ice_password: Option<String>,
        /// No STUN or TURN server at all: only peers on one machine or one LAN connect.
        #[arg(long, conflicts_with = "ice")]
        no_ice: bool,
        #[command(flatten)]
        net: NetArgs,
    },
    /// Run the signalling server online rooms meet through (it only introduces peers; the
    /// match goes peer to peer).
    Signal {
        /// Address to listen on.
        #[arg(long, default_value = "0.0.0.0:3536")]
        bind: SocketAddr,
    },
    /// Run a GGRS sync test: roll back and re-simulate every frame, compare checksums.
    SyncTest {
        /// Frames re-simulated each frame.
        #[arg(long, default_value_t = 7, value_parser = ranges::parser::<usize>(ranges::CHECK_DISTANCE))]
        check_distance: usize,
        /// Frames to run.
        #[arg(long, default_value_t = 10_000, value_parser = ranges::parser::<u32>(ranges::TICKS))]
        ticks: u32,
        /// Match seed.
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// Seed of the bots.
        #[arg(long, default_value_t = 2)]
        bot_seed: u64,
        /// Rules file.
        #[arg(long)]
        rules: Option<PathBuf>,
        /// Where mismatching snapshots are written.
        #[arg(long, default_value = "synctest-dump")]
        dump_dir: PathBuf,
        /// Per-tick hash log.
        #[arg(long)]
        hash_log: Option<PathBuf>,
        /// Debugging aid: make the given tick simulate differently the first time, to see a
        /// mismatch reported.
        #[arg(long, hide = true, value_parser = ranges::parser::<u32>(ranges::TICK))]
        debug_inject_desync: Option<u32>,
        /// Debugging aid: the phase after which that tick's first pass is perturbed.
        #[arg(long, hide = true, value_parser = parse_phase)]
        debug_inject_phase: Option<Phase>,
    },
    /// Print the default rules as a TOML file.
    DefaultRules,
    /// Measure the rail's fairness: two OS peers on loopback through the link conditioner,
    /// bots firing the rail at the opponent they see, once with remote players shown predicted
    /// and once shown from confirmed history with lag compensation.
    RailFairness {
        /// Final ticks per run.
        #[arg(long, default_value_t = 3600, value_parser = ranges::parser::<u32>(ranges::TICKS))]
        ticks: u32,
        /// Impairment of each side's outgoing datagrams.
        #[arg(long, default_value = "latency=40,jitter=10,loss=5,burst=2,seed=1")]
        conditioner: String,
        /// Loopback port the host binds.
        #[arg(long, default_value_t = 7460, value_parser = ranges::parser::<u16>(ranges::PORT))]
        port: u16,
        /// Frames of input delay (0 to 30).
        #[arg(long, default_value_t = 2, value_parser = ranges::parser::<usize>(ranges::INPUT_DELAY))]
        input_delay: usize,
    },
    /// One side of `rail-fairness` (run by it as a child process).
    #[command(hide = true)]
    RailFairnessPeer {
        /// `host` or `join`.
        role: String,
        /// The host's address (bound by the host).
        addr: SocketAddr,
        /// `predicted` or `past`.
        view: client::remote_view::RemoteView,
        #[arg(long, value_parser = ranges::parser::<u32>(ranges::TICKS))]
        ticks: u32,
        #[arg(long, value_parser = ConditionerConfig::parse)]
        conditioner: ConditionerConfig,
        #[arg(long, value_parser = ranges::parser::<usize>(ranges::INPUT_DELAY))]
        input_delay: usize,
    },
}

/// Files, each with the option (or role) that names it.
pub(crate) type NamedFiles<'a> = Vec<(&'static str, &'a Path)>;

/// The files a command reads and the files it writes.
fn files(command: &Command) -> (NamedFiles<'_>, NamedFiles<'_>) {
    fn opt<'a>(name: &'static str, p: &'a Option<PathBuf>) -> Option<(&'static str, &'a Path)> {
        p.as_deref().map(|p| (name, p))
    }
    match command {
        Command::BotMatch {
            hash_log,
            match_log,
            rules,
            ..
        } => (
            opt("--rules", rules).into_iter().collect(),
            [opt("--hash-log", hash_log), opt("--match-log", match_log)]
                .into_iter()
                .flatten()
                .collect(),
        ),
        // The log is read and continued: another output on it would destroy it.
        Command::Resume { log, hash_log, .. } => (
            vec![("the log to resume", log.as_path())],
            opt("--hash-log", hash_log).into_iter().collect(),
        ),
        Command::Verify {
            log,
            rules,
            hash_log,
        } => (
            [
                Some(("the log to verify", log.as_path())),
                opt("--rules", rules),
            ]
            .into_iter()
            .flatten()
            .collect(),
            opt("--hash-log", hash_log).into_iter().collect(),
        ),
        Command::SyncTest {
            rules,
            dump_dir,
            hash_log,
            ..
        } => (
            opt("--rules", rules).into_iter().collect(),
            [
                Some(("--dump-dir", dump_dir.as_path())),
                opt("--hash-log", hash_log),
            ]
            .into_iter()
            .flatten()
            .collect(),
        ),
        Command::Rejoin { log, net, .. } => {
            let (inputs, mut outputs) = net.files();
            outputs.push(("LOG", log.as_path()));
            (inputs, outputs)
        }
        Command::Host { net, .. }
        | Command::Join { net, .. }
        | Command::Spectate { net, .. }
        | Command::Online { net, .. } => net.files(),
        _ => (Vec::new(), Vec::new()),
    }
}

/// Whether `a` and `b` name one file: the same file when both exist, else the same path once
/// its folder is resolved.
fn same_file(a: &Path, b: &Path) -> bool {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        if let (Ok(x), Ok(y)) = (std::fs::metadata(a), std::fs::metadata(b)) {
            return x.dev() == y.dev() && x.ino() == y.ino();
        }
    }
    let resolved = |p: &Path| {
        let folder = match p.parent() {
            Some(f) if !f.as_os_str().is_empty() => f,
            _ => Path::new("."),
        };
        std::fs::canonicalize(folder)
            .ok()
            .map(|f| f.join(p.file_name().unwrap_or_default()))
    };
    match (resolved(a), resolved(b)) {
        (Some(x), Some(y)) => x == y,
        _ => a == b,
    }
}

/// Refuses, before anything is opened, an output that is also an input or another output
/// (`verify m --hash-log m` used to print "verified" with the log gone).
fn check_paths(command: &Command) -> Result<()> {
    let (inputs, outputs) = files(command);
    for (i, &(name, path)) in outputs.iter().enumerate() {
        let earlier = inputs.iter().chain(&outputs[..i]);
        if let Some((other, _)) = earlier.clone().find(|(_, p)| same_file(p, path)) {
            anyhow::bail!(
                "`{}` is given both as {other} and as {name}: writing it would destroy the other; \
                 give {name} another path",
                path.display()
            );
        }
    }
    Ok(())
}

fn parse_phase(name: &str) -> Result<Phase, String> {
    Phase::from_name(name).ok_or_else(|| {
        let names: Vec<&str> = engine::STEP_PHASES.iter().map(|p| p.name()).collect();
        format!("`{name}`: expected one of {}", names.join(", "))
    })
}

fn main() -> ExitCode {
    match run() {
        Ok(code) => code,
        Err(e) => {
            err_out!("duel-cli: {e:#}");
            ExitCode::from(1)
        }
    }
}

fn run() -> Result<ExitCode> {
    // A bad argument is exit status 1 like every other error (clap's own would be 2, which
    // here means a desync); `--help` and `--version` are 0.
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => {
            let _ = e.print();
            return Ok(ExitCode::from(u8::from(e.use_stderr())));
        }
    };
    check_paths(&cli.command)?;
    match cli.command {
        command @ (Command::Host { .. }
        | Command::Join { .. }
        | Command::Rejoin { .. }
        | Command::Spectate { .. }
        | Command::Online { .. }
        | Command::Signal { .. }
        | Command::RailFairness { .. }
        | Command::RailFairnessPeer { .. }) => network(command),
        command => offline(command),
    }
}

/// The commands that play or measure over a network.
fn network(command: Command) -> Result<ExitCode> {
    match command {
        Command::Host {
            bind,
            spectators,
            seed,
            net,
        } => return net::host(bind, spectators, seed, &net),
        Command::Join { host, bind, net } => {
            return net::join(&host, bind, &net, Role::Player);
        }
        Command::Rejoin { log, bind, net } => {
            return net::rejoin(&log, bind, &net);
        }
        Command::Spectate { host, bind, net } => {
            return net::join(&host, bind, &net, Role::Spectator);
        }
        Command::Online {
            room,
            room_secret,
            no_room_secret,
            signal,
            spectate,
            spectators,
            seed,
            ice,
            ice_user,
            ice_password,
            no_ice,
            net,
        } => {
            let ice = IceServers {
                urls: ice,
                username: ice_user,
                credential: ice_password,
            };
            let role = if spectate {
                Role::Spectator
            } else {
                Role::Player
            };
            let secret = match (room_secret, no_room_secret) {
                (Some(secret), _) => net::RoomSecretArg::Given(secret),
                (None, true) => net::RoomSecretArg::None,
                (None, false) => net::RoomSecretArg::LinkOrNew,
            };
            let room =
                net::room_config(&room, secret, signal.as_deref(), ice.or_public_stun(no_ice))?;
            return net::online(&room, role, spectators, seed, &net);
        }
        Command::Signal { bind } => return net::signal(bind),
        Command::RailFairness {
            ticks,
            conditioner,
            port,
            input_delay,
        } => fairness::rail_fairness(ticks, &conditioner, port, input_delay)?,
        Command::RailFairnessPeer {
            role,
            addr,
            view,
            ticks,
            conditioner,
            input_delay,
        } => fairness::rail_fairness_peer(&role, addr, view, ticks, conditioner, input_delay)?,
        _ => unreachable!("only network commands come here"),
    }
    Ok(ExitCode::SUCCESS)
}

/// The commands that run here alone: bot matches, sync tests, log tools.
fn offline(command: Command) -> Result<ExitCode> {
    match command {
        Command::BotMatch {
            seed,
            bot_seed,
            ticks,
            players,
            no_stop,
            rules,
            hash_log,
            match_log,
        } => bot_match::bot_match(&BotMatch {
            rules: load_rules(rules.as_deref())?,
            seed,
            bot_seed,
            players,
            ticks,
            stop_at_match_end: !no_stop,
            hash_log,
            match_log,
        })?,
        Command::SyncTest {
            check_distance,
            ticks,
            seed,
            bot_seed,
            rules,
            dump_dir,
            hash_log,
            debug_inject_desync,
            debug_inject_phase,
        } => sync_test::sync_test(&SyncTest {
            rules: load_rules(rules.as_deref())?,
            seed,
            bot_seed,
            check_distance,
            ticks,
            dump_dir,
            hash_log,
            inject: debug_inject_desync,
            inject_after: debug_inject_phase,
        })?,
        Command::Resume {
            log,
            ticks,
            hash_log,
        } => logs::resume(&Resume {
            log,
            ticks,
            hash_log,
        })?,
        Command::Verify {
            log,
            rules,
            hash_log,
        } => logs::verify(&log, rules.as_deref(), hash_log.as_deref())?,
        Command::Desync {
            a,
            b,
            dumps_a,
            dumps_b,
            match_a,
            match_b,
        } => return logs::desync(&a, &b, dumps_a, dumps_b, match_a.zip(match_b)),
        Command::State { log, tick, diff } => return logs::state(&log, tick, diff.as_deref()),
        Command::DefaultRules => out_raw!("{}", engine::Rules::default().to_toml_string()),
        _ => unreachable!("network commands go to `network`"),
    }
    Ok(ExitCode::SUCCESS)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// Each subcommand that names files: its arguments before the file slots, and the slots
    /// (option, or `None` for the positional log) with whether each is an output.
    /// A file slot: its option (`None`: the positional log) and whether it is written.
    type Slot = (Option<&'static str>, bool);

    const COMMANDS: &[(&[&str], &[Slot])] = &[
        (
            &["bot-match"],
            &[
                (Some("--rules"), false),
                (Some("--hash-log"), true),
                (Some("--match-log"), true),
            ],
        ),
        (&["resume"], &[(None, false), (Some("--hash-log"), true)]),
        (
            &["verify"],
            &[
                (None, false),
                (Some("--rules"), false),
                (Some("--hash-log"), true),
            ],
        ),
        (
            &["sync-test"],
            &[
                (Some("--rules"), false),
                (Some("--dump-dir"), true),
                (Some("--hash-log"), true),
            ],
        ),
        (
            &["host"],
            &[
                (Some("--rules"), false),
                (Some("--hash-log"), true),
                (Some("--match-log"), true),
                (Some("--dump-dir"), true),
            ],
        ),
        (
            &["join", "127.0.0.1:9"],
            &[
                (Some("--rules"), false),
                (Some("--hash-log"), true),
                (Some("--match-log"), true),
                (Some("--dump-dir"), true),
            ],
        ),
    ];

    fn scratch() -> PathBuf {
        let dir = std::env::temp_dir().join(format!("duel-cli-paths-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("dir");
        dir
    }

    proptest! {
        /// Issue 18 item 1, as a property: for every subcommand and every pair of its file
        /// slots given one file — spelled the same, through `./`, or as a hard link of an
        /// existing file — the command is refused before anything is opened exactly when one
        /// of the two is an output; distinct files always pass.
        #[test]
        fn one_file_in_two_slots_is_refused_exactly_when_one_is_written(
            pick in any::<usize>(),
            pair in any::<(usize, usize)>(),
            collide in any::<bool>(),
            spelling in 0u8..3,
        ) {
            let (before, slots) = COMMANDS[pick % COMMANDS.len()];
            let dir = scratch();
            let n = slots.len();
            let (i, j) = (pair.0 % n, pair.1 % n);
            let collide = collide && i != j;
            let mut paths: Vec<PathBuf> = (0..n).map(|k| dir.join(format!("f{pick}-{k}"))).collect();
            if collide {
                paths[j] = match spelling {
                    0 => paths[i].clone(),
                    1 => dir.join(".").join(paths[i].file_name().expect("name")),
                    _ => {
                        std::fs::write(&paths[i], b"x").expect("write");
                        let link = dir.join(format!("link{pick}-{i}-{j}"));
                        let _ = std::fs::remove_file(&link);
                        std::fs::hard_link(&paths[i], &link).expect("link");
                        link
                    }
                };
            }
            let mut args: Vec<std::ffi::OsString> = vec!["duel-cli".into()];
            args.extend(before.iter().map(Into::into));
            for ((option, _), path) in slots.iter().zip(&paths) {
                if let Some(option) = option {
                    args.push(option.into());
                }
                args.push(path.into());
            }
            let cli = Cli::try_parse_from(&args).expect("parses");
            let refused = check_paths(&cli.command).is_err();
            let written = slots[i].1 || slots[j].1;
            prop_assert_eq!(refused, collide && written, "{:?}", args);
        }
    }
}
