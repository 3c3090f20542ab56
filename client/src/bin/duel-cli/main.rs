//! `duel-cli`: headless tools around the maze duel engine: bot matches, networked peers
//! (host, join, spectate) driven by bots, and sync tests.

use anyhow::{Context, Result};
use clap::{Args, Parser, Subcommand};
use client::conditioner::ConditionerConfig;
use client::fielddiff::diff;
use client::forensics::dumps::{dump_file, dump_files, read_snapshot_file, state_at};
use client::forensics::{
    first_unfollowed_tick, inputs_agree, phase_verdict, read_phase_trace, retrace,
};
use client::hashlog::{
    compare_logs, format_ranges, header_differences, read_hash_log_file, Divergence, HashLog,
};
use client::matchlog::read_log;
use client::netplay::open_link;
use client::replay::verify_logging;
use client::synctest::{run_sync_test, SyncTest};
use client::transport::{default_bind_for, resolve};
use client::wire::Role;
use client::{
    dumps_next_to, load_rules, resume_logged_bot_match, run_bot_match, run_net_peer, BotMatch,
    NetConfig, NetPeer, NetRun, Resume,
};
use engine::{Phase, Tick};
use std::net::SocketAddr;
use std::path::Path;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

/// Exit statuses, shown by `--help`.
const EXIT_CODES: &str = "\
Exit status:
  0  done (host/join/spectate: every final tick reached)
  1  error: bad arguments, I/O, refused at the handshake, no answer from the host,
     no GGRS synchronization after the handshake
  2  desync detected (host/join/spectate), two hash logs diverge (desync), or two
     states differ (state --diff)
  3  host/join/spectate: the other side disconnected before the end";

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
        #[arg(long)]
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
        #[arg(long)]
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
        #[arg(long, default_value_t = 0)]
        spectators: usize,
        /// Match seed.
        #[arg(long, default_value_t = 1)]
        seed: u64,
        #[command(flatten)]
        net: NetArgs,
    },
    /// Join a match hosted at HOST:PORT as player 2, played by a bot.
    Join {
        /// The host's address.
        host: String,
        /// Address to bind (default: any port on the interface facing the host).
        #[arg(long)]
        bind: Option<SocketAddr>,
        #[command(flatten)]
        net: NetArgs,
    },
    /// Watch a match hosted at HOST:PORT.
    Spectate {
        /// The host's address.
        host: String,
        /// Address to bind.
        #[arg(long)]
        bind: Option<SocketAddr>,
        #[command(flatten)]
        net: NetArgs,
    },
    /// Run a GGRS sync test: roll back and re-simulate every frame, compare checksums.
    SyncTest {
        /// Frames re-simulated each frame.
        #[arg(long, default_value_t = 7)]
        check_distance: usize,
        /// Frames to run.
        #[arg(long, default_value_t = 10_000)]
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
        #[arg(long, hide = true)]
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
        #[arg(long, default_value_t = 3600)]
        ticks: u32,
        /// Impairment of each side's outgoing datagrams.
        #[arg(long, default_value = "latency=40,jitter=10,loss=5,burst=2,seed=1")]
        conditioner: String,
        /// Loopback port the host binds.
        #[arg(long, default_value_t = 7460)]
        port: u16,
        /// Frames of input delay.
        #[arg(long, default_value_t = 2)]
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
        #[arg(long)]
        ticks: u32,
        #[arg(long, value_parser = ConditionerConfig::parse)]
        conditioner: ConditionerConfig,
        #[arg(long)]
        input_delay: usize,
    },
}

/// Options shared by host, join and spectate.
#[derive(Args)]
struct NetArgs {
    /// Final (confirmed) ticks to reach before finishing.
    #[arg(long, default_value_t = 3600)]
    ticks: u32,
    /// Seed of the local bot.
    #[arg(long, default_value_t = 7)]
    bot_seed: u64,
    /// Rules file (TOML); the built-in defaults when absent.
    #[arg(long)]
    rules: Option<PathBuf>,
    /// Per-tick hash log of confirmed ticks.
    #[arg(long)]
    hash_log: Option<PathBuf>,
    /// Durable match log of confirmed ticks (a replay file).
    #[arg(long)]
    match_log: Option<PathBuf>,
    /// Frames of input delay.
    #[arg(long, default_value_t = 2)]
    input_delay: usize,
    /// Compare checksums with the peer every N confirmed frames.
    #[arg(long, default_value_t = 1)]
    desync_interval: u32,
    /// Simulation frames per second.
    #[arg(long, default_value_t = 60)]
    fps: u32,
    /// Impair outgoing datagrams: `latency=40,jitter=10,loss=5,burst=2,dup=1,reorder=2,seed=1`
    /// (milliseconds one way; loss/dup/reorder in percent).
    #[arg(long, value_parser = ConditionerConfig::parse)]
    conditioner: Option<ConditionerConfig>,
    /// Seconds to wait for the other side at the handshake.
    #[arg(long, default_value_t = 30)]
    handshake_timeout: u64,
    /// Seconds GGRS may take to synchronize after the handshake (a host whose peers do not
    /// synchronize in time forgets them and waits for a joiner again).
    #[arg(long, default_value_t = 5)]
    sync_timeout: u64,
    /// Milliseconds of silence after which the other side counts as disconnected.
    #[arg(long, default_value_t = 2000)]
    disconnect_timeout_ms: u64,
    /// Where snapshots are dumped when a desync is detected (default: `<hash log>.dumps`, or
    /// `desync-dump` without a hash log).
    #[arg(long)]
    dump_dir: Option<PathBuf>,
    /// Debugging aid: perturb this peer's state at the given tick, to see the desync found.
    #[arg(long, hide = true)]
    debug_inject_desync: Option<u32>,
    /// Debugging aid: the phase of that tick's step after which to perturb (`movement`, ...;
    /// default: after the whole step).
    #[arg(long, hide = true, value_parser = parse_phase)]
    debug_inject_phase: Option<Phase>,
}

fn parse_phase(name: &str) -> Result<Phase, String> {
    Phase::from_name(name).ok_or_else(|| {
        let names: Vec<&str> = engine::STEP_PHASES.iter().map(|p| p.name()).collect();
        format!("`{name}`: expected one of {}", names.join(", "))
    })
}

impl NetArgs {
    fn config(&self, seed: u64, spectators: usize) -> Result<NetConfig> {
        Ok(NetConfig {
            rules: load_rules(self.rules.as_deref())?,
            seed,
            input_delay: self.input_delay,
            desync_interval: self.desync_interval,
            fps: self.fps,
            handshake_timeout: Duration::from_secs(self.handshake_timeout),
            sync_timeout: Duration::from_secs(self.sync_timeout),
            disconnect_timeout: Duration::from_millis(self.disconnect_timeout_ms),
            disconnect_notify: Duration::from_millis((self.disconnect_timeout_ms / 4).max(100)),
            spectators,
            conditioner: self.conditioner.unwrap_or_default(),
            ..NetConfig::default()
        })
    }

    fn plan(&self) -> NetRun {
        NetRun {
            ticks: self.ticks,
            bot_seed: self.bot_seed,
            hash_log: self.hash_log.clone(),
            finish_timeout: Duration::from_secs(10),
            fps: self.fps,
            inject_desync: self.debug_inject_desync,
            inject_after: self.debug_inject_phase,
            dump_dir: self.dump_dir.clone().or_else(|| {
                self.hash_log
                    .is_none()
                    .then(|| PathBuf::from("desync-dump"))
            }),
            match_log: self.match_log.clone(),
        }
    }
}

fn main() -> ExitCode {
    match run() {
        Ok(code) => code,
        Err(e) => {
            eprintln!("duel-cli: {e:#}");
            ExitCode::from(1)
        }
    }
}

/// Exit status of a networked run: 0 clean, 2 desync detected, 3 a peer disconnected.
fn net_exit(summary: &client::NetRunSummary) -> ExitCode {
    println!("{summary}");
    if summary.desyncs > 0 {
        let at = summary
            .first_desync
            .map_or(String::new(), |t| format!(" first at tick {t},"));
        eprintln!(
            "duel-cli: desync detected{at} {} checks differed (the dumps and next command are \
             printed above); exiting with status 2",
            summary.desyncs
        );
        ExitCode::from(2)
    } else if let Some(peer) = summary.disconnected {
        eprintln!(
            "duel-cli: peer {peer} disconnected after {} final ticks; the match ended early (exit status 3)",
            summary.ticks
        );
        ExitCode::from(3)
    } else {
        ExitCode::SUCCESS
    }
}

fn run() -> Result<ExitCode> {
    match Cli::parse().command {
        Command::BotMatch {
            seed,
            bot_seed,
            ticks,
            players,
            no_stop,
            rules,
            hash_log,
            match_log,
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
                match_log,
            })?;
            println!(
                "ticks={} round={} wins={:?} hash={:016x}",
                summary.ticks, summary.round, summary.wins, summary.final_hash.combined
            );
        }
        Command::Host {
            bind,
            spectators,
            seed,
            net,
        } => {
            let config = net.config(seed, spectators)?;
            let link = open_link(bind, config.conditioner)?;
            let local = link.borrow().local_addr();
            println!("listening on {local}");
            let peer = NetPeer::host_on(link, &config)?;
            return Ok(net_exit(&run_net_peer(peer, &net.plan())?));
        }
        Command::Join { host, bind, net } => {
            return join(&host, bind, &net, Role::Player);
        }
        Command::Spectate { host, bind, net } => {
            return join(&host, bind, &net, Role::Spectator);
        }
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
        } => {
            let summary = run_sync_test(&SyncTest {
                rules: load_rules(rules.as_deref())?,
                seed,
                bot_seed,
                check_distance,
                ticks,
                dump_dir,
                hash_log,
                inject: debug_inject_desync,
                inject_after: debug_inject_phase,
            })?;
            println!(
                "ticks={} rollbacks={} mismatches=0 hash={:016x}",
                summary.ticks, summary.rollbacks, summary.final_hash.combined
            );
        }
        Command::Resume {
            log,
            ticks,
            hash_log,
        } => {
            let resumed = resume_logged_bot_match(&Resume {
                log: log.clone(),
                ticks,
                hash_log,
            })?;
            println!("{}: {resumed}", log.display());
            let summary = &resumed.played;
            println!(
                "resumed: ticks={} round={} wins={:?} hash={:016x}",
                summary.ticks, summary.round, summary.wins, summary.final_hash.combined
            );
        }
        Command::Verify {
            log,
            rules,
            hash_log,
        } => {
            let rules = rules.as_deref().map(|p| load_rules(Some(p))).transpose()?;
            let read = read_log(&log)?;
            if let Some(tail) = read.tail_report() {
                println!("{tail}, not verified");
            }
            let mut out = match &hash_log {
                Some(p) => Some(client::hashlog::HashLogWriter::create(
                    p,
                    &format!(
                        "seed={} rules={:016x} players={} source=replay",
                        read.header.match_seed, read.header.rules_hash, read.header.players
                    ),
                )?),
                None => None,
            };
            let report = verify_logging(&read, rules.as_ref(), out.as_mut())?;
            println!(
                "verified: ticks={} checkpoints={} ended={} (mode {}, seed {}, rules {:016x})",
                report.ticks,
                report.checkpoints,
                if report.ended { "cleanly" } else { "cut" },
                read.header.mode,
                read.header.match_seed,
                read.header.rules_hash
            );
        }
        Command::Desync {
            a,
            b,
            dumps_a,
            dumps_b,
            match_a,
            match_b,
        } => {
            let dumps_a = dumps_a.unwrap_or_else(|| dumps_next_to(&a));
            let dumps_b = dumps_b.unwrap_or_else(|| dumps_next_to(&b));
            let matches = match_a.zip(match_b);
            return desync_report(&a, &b, &dumps_a, &dumps_b, matches.as_ref());
        }
        Command::State { log, tick, diff } => return state(&log, tick, diff.as_deref()),
        Command::DefaultRules => print!("{}", engine::Rules::default().to_toml_string()),
        Command::RailFairness {
            ticks,
            conditioner,
            port,
            input_delay,
        } => rail_fairness(ticks, &conditioner, port, input_delay)?,
        Command::RailFairnessPeer {
            role,
            addr,
            view,
            ticks,
            conditioner,
            input_delay,
        } => {
            use client::rail_fairness::{run_fairness_side, FairnessPlan, FairnessRole};
            let role = match role.as_str() {
                "host" => FairnessRole::Host,
                "join" => FairnessRole::Join,
                other => anyhow::bail!("role `{other}`: expected host or join"),
            };
            let plan = FairnessPlan {
                ticks,
                bot_seed: 11,
                view,
                fps: 60,
                input_delay,
                deadline: Duration::from_secs(u64::from(ticks) / 15 + 60),
            };
            println!("{}", run_fairness_side(role, addr, conditioner, &plan)?);
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// Runs both sides of a fairness run as child processes for each view and prints the table.
fn rail_fairness(ticks: u32, conditioner: &str, port: u16, input_delay: usize) -> Result<()> {
    use client::rail_fairness::FairnessReport;
    use std::process::{Command as Process, Stdio};
    ConditionerConfig::parse(conditioner).map_err(anyhow::Error::msg)?;
    let exe = std::env::current_exe()?;
    println!("rail fairness: {ticks} ticks per run, link {conditioner} each way, input delay {input_delay}");
    for view in ["predicted", "past"] {
        let addr = format!("127.0.0.1:{port}");
        let side = |role: &str| {
            Process::new(&exe)
                .args(["rail-fairness-peer", role, &addr, view])
                .args(["--ticks", &ticks.to_string(), "--conditioner", conditioner])
                .args(["--input-delay", &input_delay.to_string()])
                .stdout(Stdio::piped())
                .spawn()
        };
        let host = side("host")?;
        let join = side("join")?;
        let report = |child: std::process::Child, role: &str| -> Result<FairnessReport> {
            let out = child.wait_with_output()?;
            let text = String::from_utf8_lossy(&out.stdout);
            let line = text.lines().last().unwrap_or_default();
            anyhow::ensure!(
                out.status.success(),
                "{role} side failed ({}): {text}",
                out.status
            );
            FairnessReport::parse(line).map_err(anyhow::Error::msg)
        };
        let (h, j) = (report(host, "host")?, report(join, "join")?);
        let sum = |f: fn(&FairnessReport) -> u64| f(&h) + f(&j);
        let seen = sum(|r| r.seen_hits);
        let confirmed = sum(|r| r.seen_hits_confirmed);
        let taken = sum(|r| r.hits_taken);
        let cover = sum(|r| r.hits_taken_behind_cover);
        println!(
            "view={view}: shots={} seen_hits={seen} confirmed={confirmed} agreement={:.2}% \
             lost_same_aim={} hits_taken={taken} behind_cover={cover} ({:.2}%) rollbacks={}",
            sum(|r| r.shots),
            sum(|r| r.seen_hits_lost_same_aim),
            100.0 * confirmed as f64 / seen.max(1) as f64,
            100.0 * cover as f64 / taken.max(1) as f64,
            sum(|r| r.rollbacks),
        );
    }
    Ok(())
}

fn join(host: &str, bind: Option<SocketAddr>, net: &NetArgs, role: Role) -> Result<ExitCode> {
    let host = resolve(host).map_err(anyhow::Error::msg)?;
    let bind = bind.unwrap_or_else(|| default_bind_for(host));
    let config = net.config(0, 0)?;
    let link = open_link(bind, config.conditioner)?;
    let peer =
        NetPeer::join_on(link, host, role, &config).with_context(|| format!("joining {host}"))?;
    Ok(net_exit(&run_net_peer(peer, &net.plan())?))
}

/// Prints where two hash logs diverge and, when both dump directories hold a snapshot of that
/// tick (or the nearest later dumped tick), the fields that differ, and the ticks only one log
/// holds. Exit 0 if they agree, 2 if they diverge; an error (exit 1) if they are not of the same
/// match, have no tick in common, or agree but one has gaps inside the other's span.
fn desync_report(
    a: &Path,
    b: &Path,
    dumps_a: &Path,
    dumps_b: &Path,
    matches: Option<&(PathBuf, PathBuf)>,
) -> Result<ExitCode> {
    let (la, lb) = (read_hash_log_file(a)?, read_hash_log_file(b)?);
    for (path, log) in [(a, &la), (b, &lb)] {
        if let Some((line, bytes)) = log.torn_line {
            println!(
                "{}: torn last line {line} ({bytes} bytes) ignored",
                path.display()
            );
        }
    }
    let differences = header_differences(&la, &lb);
    anyhow::ensure!(
        differences.is_empty(),
        "{} and {} are not logs of the same match: {}",
        a.display(),
        b.display(),
        differences.join(", ")
    );
    let cmp = compare_logs(&la.entries, &lb.entries);
    let span = |log: &HashLog| match (log.entries.first(), log.entries.last()) {
        (Some(f), Some(l)) => format!("ticks {}–{}", f.tick, l.tick),
        _ => "no ticks".to_owned(),
    };
    anyhow::ensure!(
        cmp.common > 0,
        "no tick in common, nothing compared: {} holds {}, {} holds {}",
        a.display(),
        span(&la),
        b.display(),
        span(&lb)
    );
    for (path, only) in [(a, &cmp.only_in_a), (b, &cmp.only_in_b)] {
        if !only.is_empty() {
            println!("ticks only in {}: {}", path.display(), format_ranges(only));
        }
    }
    let Some(Divergence { tick, section }) = cmp.divergence else {
        println!("no divergence: {} common ticks agree", cmp.common);
        anyhow::ensure!(
            !cmp.has_gaps(&la.entries, &lb.entries),
            "the logs have gaps the other does not (listed above): ticks left unchecked"
        );
        return Ok(ExitCode::SUCCESS);
    };
    let section = section.map_or("combined (the section hashes agree)", |s| s.name());
    println!("first divergence at tick {tick}, section {section}");
    dump_report(tick, dumps_a, dumps_b)?;
    if let Some((ma, mb)) = matches {
        match_log_report([(ma, dumps_a), (mb, dumps_b)], tick)?;
    }
    Ok(ExitCode::from(2))
}

/// The fields that differ at the first tick both peers dumped at or after `tick`, and the
/// first phase whose hashes differ in the step to `tick`.
fn dump_report(tick: Tick, dumps_a: &Path, dumps_b: &Path) -> Result<()> {
    let (da, db) = (
        dump_files(dumps_a, "snapshot"),
        dump_files(dumps_b, "snapshot"),
    );
    let common = da
        .iter()
        .filter(|(t, _)| *t >= tick && db.iter().any(|(u, _)| u == t))
        .min_by_key(|(t, _)| *t);
    let Some((at, path_a)) = common else {
        println!(
            "no snapshot dumps of tick {tick} or later on both sides ({} / {})",
            dumps_a.display(),
            dumps_b.display()
        );
        return Ok(());
    };
    let path_b = &db.iter().find(|(u, _)| u == at).expect("common tick").1;
    let (sa, sb) = (read_snapshot_file(path_a)?, read_snapshot_file(path_b)?);
    println!("fields that differ at tick {at}:");
    for d in diff(&sa, &sb) {
        println!("  {d}");
    }
    match (
        dump_file(dumps_a, "phases", tick),
        dump_file(dumps_b, "phases", tick),
    ) {
        (Some(pa), Some(pb)) => {
            let (ta, tb) = (read_phase_trace(&pa)?, read_phase_trace(&pb)?);
            println!("{}", phase_verdict(&ta, &tb));
        }
        _ => println!("no per-phase hashes of tick {tick} on both sides"),
    }
    Ok(())
}

/// Inputs to the divergent tick in both match logs, which log does not re-simulate, and
/// whether each peer's own traced step to that tick re-simulates here from its dumped state.
fn match_log_report(sides: [(&Path, &Path); 2], tick: Tick) -> Result<()> {
    let [(a, dumps_a), (b, dumps_b)] = sides;
    let (la, lb) = (read_log(a)?, read_log(b)?);
    let mut slots = Vec::new();
    match inputs_agree((a, &la), (b, &lb), tick, &mut slots) {
        Ok(true) => println!(
            "inputs to tick {tick} agree in both match logs: same inputs, different states \
             (non-determinism, not input delivery)"
        ),
        Ok(false) => {
            println!("inputs to tick {tick} DIFFER between the match logs (input delivery bug):");
            for line in slots {
                println!("{line}");
            }
        }
        Err(why) => println!("inputs not compared: {why}"),
    }
    let mut faulty = Vec::new();
    for (path, log, dumps) in [(a, &la, dumps_a), (b, &lb, dumps_b)] {
        let who = format!("{} ({})", log.header.mode, path.display());
        match first_unfollowed_tick(log) {
            None => println!(
                "{who}: re-simulates through tick {}: its states follow from its inputs",
                log.last_tick()
            ),
            Some((t, why)) => {
                println!(
                    "{who}: its state at tick {t} does not follow from its own inputs ({why})"
                );
                faulty.push(who.clone());
            }
        }
        if let Some(line) = retrace_report(log, dumps, tick)? {
            println!("{}: {line}", log.header.mode);
        }
    }
    if let [who] = faulty.as_slice() {
        println!("=> the faulty peer is {who}");
    }
    Ok(())
}

/// The peer's dumped state before `tick` and its logged inputs, stepped here with a trace,
/// against the trace the peer wrote: `None` when the dumps lack either file.
fn retrace_report(
    log: &client::matchlog::MatchLog,
    dumps: &Path,
    tick: Tick,
) -> Result<Option<String>> {
    let (Some(before), Some(phases), Some(record)) = (
        tick.checked_sub(1)
            .and_then(|t| dump_file(dumps, "snapshot", t)),
        dump_file(dumps, "phases", tick),
        log.tick_record(tick),
    ) else {
        return Ok(None);
    };
    let rules = client::replay::log_rules(log, None)?;
    let here = retrace(&rules, &read_snapshot_file(&before)?, &record.inputs)?;
    let theirs = read_phase_trace(&phases)?;
    Ok(Some(match theirs.hashes.first_difference(&here) {
        None => format!(
            "its step to tick {tick}, re-simulated here from its dumped state and logged inputs, \
             matches its own per-phase hashes"
        ),
        Some((phase, _)) => format!(
            "its step to tick {tick}, re-simulated here from its dumped state and logged inputs, \
             differs from its own per-phase hashes after phase {}: that peer's step did not \
             follow from its state and inputs",
            phase.name()
        ),
    }))
}

/// `duel-cli state`: prints a state, or its differences from another (exit 2 if any).
fn state(path: &Path, tick: Option<Tick>, other: Option<&Path>) -> Result<ExitCode> {
    let a = state_at(path, tick)?;
    let Some(other) = other else {
        println!("state at tick {} (hash {})", a.tick, a.hash());
        for (field, value) in client::fielddiff::flatten(&a) {
            println!("{field}: {value}");
        }
        return Ok(ExitCode::SUCCESS);
    };
    let b = state_at(other, Some(a.tick))?;
    let diffs = diff(&a, &b);
    if diffs.is_empty() {
        println!("identical at tick {} (hash {})", a.tick, a.hash());
        return Ok(ExitCode::SUCCESS);
    }
    println!("fields that differ at tick {}:", a.tick);
    for d in diffs {
        println!("  {d}");
    }
    Ok(ExitCode::from(2))
}
