//! `maze-duel`: the SDL2 maze duel. See `maze-duel --help`.
#![forbid(unsafe_code)]

use anyhow::Context as _;
use clap::Parser;
use client::logs::peer_logs::LogPaths;
use client::net::seal::InviteCode;
use client::net::transport::{default_bind_for, resolve};
use client::net::webrtc::{IceServers, RoomConfig};
use client::net::wire::Role;
use client::session::netplay::open_link;
use client::session::netplay::{NetConfig, NetPeer};
use engine::World;
use engine::{PlayerId, Rules};
use sample_game::cli::{InviteChoice, Mode, NetOptions};
use sample_game::{
    App, AppOptions, BitmapFont, Cli, Config, FrontEnd, LocalLogs, LocalMatch, MatchSource, Menu,
    NetMatch, Renderer, ReplayMatch, Screenshot, SyncTestMatch,
};
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
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
    cli.check().map_err(anyhow::Error::msg)?;
    let rules = client::load_rules(cli.rules.as_deref()).with_context(|| match &cli.rules {
        Some(path) => format!("rules file {}", path.display()),
        None => "built-in rules".to_string(),
    })?;
    let seed = cli.seed.unwrap_or_else(seed_from_clock);
    let renderer = Renderer::new(BitmapFont::load()?);

    if let (Some(path), Some(at_tick)) = (&cli.screenshot, cli.at_tick) {
        return write_screenshot(&cli, (path.as_path(), at_tick), rules, seed, &renderer);
    }

    let (config, config_path, config_problems) = load_config(&cli);
    let config_was_bad = config_problems.is_some();
    if let Some(path) = &cli.menu_screenshot {
        let mut menu = Menu::new(config);
        menu.note = config_problems;
        let rgba = sample_game::render_menu_to_rgba(&menu, cli.size, &renderer)?;
        sample_game::write_png(path, cli.size, &rgba)?;
        println!("wrote {}", path.display());
        return Ok(());
    }
    if cli.wants_menu() {
        let front = FrontEnd {
            rules,
            seed,
            config_path,
            config_was_bad,
            log_dir: (!cli.no_match_log).then(|| PathBuf::from("matches")),
        };
        return run_menu(&cli, front, config, config_problems, renderer);
    }

    let measuring = cli.measure_pacing.map(Duration::from_secs_f64);
    let bots: &[PlayerId] = match (measuring, cli.vs_bot) {
        (Some(_), _) => &[0, 1],
        (None, true) => &[1],
        (None, false) => &[],
    };
    let mut source = match_source(&cli, rules, seed, bots, &config.ice_servers())?;
    let options = AppOptions {
        window_size: cli.size,
        software: cli.software,
        controls_at_start: measuring.is_none() && !source.local_players().is_empty(),
        run_for: measuring,
        auto_rematch_after: measuring.map(|_| 180),
        rail_debug: cli.rail_debug,
        volume: cli.volume,
        bindings: config.bindings,
        ..AppOptions::default()
    };
    let mut app = App::new(options, renderer)?;
    println!("maze-duel: seed {}", source.current().match_seed);
    let report = app.run(source.as_mut())?;
    if measuring.is_some() {
        println!("{report}");
    }
    Ok(())
}

/// `--screenshot PATH --at-tick N`: draws a bot match (no mode) or a replay at that tick
/// into a PNG.
fn write_screenshot(
    cli: &Cli,
    (path, at_tick): (&Path, u32),
    rules: Rules,
    seed: u64,
    renderer: &Renderer,
) -> anyhow::Result<()> {
    let shot = Screenshot {
        seed,
        at_tick,
        size: cli.size,
        // The netcode panel would cover the top right, where the debug rays often are.
        net_hud: !cli.rail_debug,
        rail_debug: cli.rail_debug,
        remote_back: cli.remote_back,
    };
    let replay = match &cli.mode {
        None => None,
        Some(Mode::Replay { log }) => Some(log.as_path()),
        Some(_) => anyhow::bail!(
            "--screenshot draws a bot match (no mode) or a replay (`replay LOG`), not this mode"
        ),
    };
    let rgba = sample_game::render_to_rgba(rules, &shot, replay, renderer)?;
    sample_game::write_png(path, cli.size, &rgba)?;
    match replay {
        Some(log) => println!(
            "wrote {} (replay {}, tick {at_tick})",
            path.display(),
            log.display()
        ),
        None => println!("wrote {} (seed {seed}, tick {at_tick})", path.display()),
    }
    Ok(())
}

/// The menu in a window, until the player quits.
fn run_menu(
    cli: &Cli,
    mut front: FrontEnd,
    config: Config,
    config_problems: Option<String>,
    renderer: Renderer,
) -> anyhow::Result<()> {
    let options = AppOptions {
        window_size: cli.size,
        software: cli.software,
        rail_debug: cli.rail_debug,
        volume: config.volume,
        bindings: config.bindings.clone(),
        ..AppOptions::default()
    };
    let mut app = App::new(options, renderer)?;
    let mut menu = Menu::new(config);
    menu.note = config_problems;
    front.run(&mut app, &mut menu)
}

/// The settings (`--config`, else the per-user file), where to save them, and what was wrong
/// with the file (for the menu to show), if anything. Problems are printed; they never stop the game.
fn load_config(cli: &Cli) -> (Config, Option<PathBuf>, Option<String>) {
    let path = cli
        .config
        .clone()
        .or_else(sample_game::config::default_path);
    let Some(path) = path else {
        println!("maze-duel: no HOME or XDG_CONFIG_HOME: settings will not be saved");
        return (Config::default(), None, None);
    };
    let loaded = Config::load(&path);
    for problem in &loaded.problems {
        eprintln!("maze-duel: {problem}");
    }
    let summary = loaded.problems.first().map(|first| {
        eprintln!(
            "maze-duel: saving from the options screen will keep the old file as {}.bad",
            path.display()
        );
        let more = loaded.problems.len() - 1;
        let more = if more > 0 {
            format!(" (and {more} more: see the terminal)")
        } else {
            String::new()
        };
        format!("{first}{more}")
    });
    (loaded.config, Some(path), summary)
}

/// The match to play: local (optionally under a sync test), online, a replay or a resumed
/// local match.
/// `ice` is the settings' STUN/TURN servers, used online unless the command line gives others.
fn match_source(
    cli: &Cli,
    rules: Rules,
    seed: u64,
    bots: &[PlayerId],
    ice: &IceServers,
) -> anyhow::Result<Box<dyn MatchSource>> {
    match &cli.mode {
        None | Some(Mode::Play) => local_source(cli, rules, seed, bots),
        Some(Mode::Resume { log }) => {
            let m = LocalMatch::resume(log)?.with_hash_log(cli.hash_log.clone())?;
            println!(
                "maze-duel: resumed {} at tick {}",
                log.display(),
                m.world().tick()
            );
            Ok(Box::new(m))
        }
        Some(Mode::Replay { log }) => replay_source(cli, log),
        Some(Mode::Host {
            port,
            bind,
            spectators,
            code,
            net,
        }) => {
            let bind = bind.unwrap_or_else(|| SocketAddr::from(([0, 0, 0, 0], *port)));
            host_source(cli, rules, seed, (bind, *spectators, code.as_ref()), net)
        }
        Some(Mode::Join { address, net }) => {
            join_source(cli, rules, seed, address, Role::Player, net)
        }
        Some(Mode::Spectate { address, net }) => {
            join_source(cli, rules, seed, address, Role::Spectator, net)
        }
        Some(Mode::Rejoin { log, net }) => rejoin_source(cli, rules, seed, log, net),
        Some(Mode::Online {
            room,
            signal,
            spectate,
            spectators,
            ice: urls,
            ice_user,
            ice_password,
            no_ice,
            net,
        }) => {
            let given = IceServers {
                urls: urls.clone(),
                username: ice_user.clone(),
                credential: ice_password.clone(),
            };
            let ice = match (given.urls.is_empty(), *no_ice) {
                (_, true) => IceServers::default(),
                (true, false) if given == IceServers::default() => ice.clone(),
                // A user and password alone go with the settings' servers.
                (true, false) => IceServers {
                    urls: ice.urls.clone(),
                    ..given
                },
                (false, false) => given,
            };
            let role = if *spectate {
                Role::Spectator
            } else {
                Role::Player
            };
            let room = room_config(room, signal, ice)?;
            online_source(cli, rules, seed, (room, role, *spectators), net)
        }
    }
}

/// Where a match of `mode` is recorded: `--match-log`, nothing with `--no-match-log`, else a
/// new file in `matches/`.
fn log_for(cli: &Cli, mode: &str, seed: u64) -> anyhow::Result<Option<PathBuf>> {
    if cli.no_match_log {
        return Ok(None);
    }
    if let Some(path) = &cli.match_log {
        return Ok(Some(path.clone()));
    }
    std::fs::create_dir_all("matches").context("creating the matches/ directory")?;
    let stamp = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    Ok(Some(PathBuf::from(format!(
        "matches/{mode}-seed{seed}-{stamp}.duellog"
    ))))
}

fn announce(path: &Option<PathBuf>) {
    if let Some(path) = path {
        println!(
            "maze-duel: recording to {} (replay: maze-duel replay <file>)",
            path.display()
        );
    }
}

/// A match on this machine: a sync test, or players and bots.
fn local_source(
    cli: &Cli,
    rules: Rules,
    seed: u64,
    bots: &[PlayerId],
) -> anyhow::Result<Box<dyn MatchSource>> {
    if let Some(distance) = cli.sync_test {
        let dump = PathBuf::from("synctest-dump");
        println!(
            "maze-duel: sync test, check distance {distance}; mismatches go to {}",
            dump.display()
        );
        let path = log_for(cli, "sync-test", seed)?;
        announce(&path);
        let logs = LocalLogs::to(path, cli.hash_log.clone());
        return Ok(Box::new(
            SyncTestMatch::new(rules, seed, usize::from(distance), dump)?.with_logs(logs)?,
        ));
    }
    // Bots alone (pacing measurements) play hard; a person's opponent plays the level asked
    // for.
    let difficulty = if cli.vs_bot {
        cli.bot_difficulty
    } else {
        engine::Difficulty::Hard
    };
    let path = log_for(cli, sample_game::mode_for(bots.len(), difficulty), seed)?;
    announce(&path);
    let logs = LocalLogs::to(path, cli.hash_log.clone());
    Ok(Box::new(
        LocalMatch::new(rules, seed)?
            .with_bots(bots)
            .with_difficulty(difficulty)
            .with_logs(logs)?,
    ))
}

/// A replay of the match log at `log`, re-hashed into `--hash-log` if asked.
fn replay_source(cli: &Cli, log: &Path) -> anyhow::Result<Box<dyn MatchSource>> {
    let read = client::logs::matchlog::read_log::<engine::World>(log)
        .with_context(|| format!("reading {}", log.display()))?;
    if let Some(cut) = read.tail_report() {
        println!("maze-duel: {}: {cut}", log.display());
    }
    let identity = client::logs::hashlog::MatchIdentity::of_log(&read.header);
    let mut replay = ReplayMatch::new(read)?;
    if let Some(path) = &cli.hash_log {
        let source = format!("replay of {}", log.display());
        replay = replay.with_hash_log(
            client::logs::hashlog::HashLogWriter::<engine::World>::create(
                path, &identity, &source,
            )?,
        );
    }
    Ok(Box::new(replay))
}

/// Hosts on `bind` for a player and `spectators` spectators, with an invite code if asked.
fn host_source(
    cli: &Cli,
    rules: Rules,
    seed: u64,
    (bind, spectators, code): (SocketAddr, usize, Option<&InviteChoice>),
    net: &NetOptions,
) -> anyhow::Result<Box<dyn MatchSource>> {
    let mut config = net_config(net, rules, seed, spectators);
    config.invite = match code {
        None => None,
        Some(InviteChoice::Given(code)) => Some(*code),
        Some(InviteChoice::Random) => Some(InviteCode::random().map_err(anyhow::Error::msg)?),
    };
    let link = open_link(bind, config.conditioner)?;
    let local = link.borrow().local_addr();
    if let Some(code) = config.invite {
        println!("maze-duel: invitation to share: {local}#{code} (the code is the key)");
    }
    println!(
        "maze-duel: hosting on {local}; waiting up to {} s for a player{} (Ctrl-C to cancel)",
        net.timeout,
        if spectators > 0 {
            format!(" and {spectators} spectator(s)")
        } else {
            String::new()
        }
    );
    let peer = NetPeer::<World>::host_on(link, &config)?;
    online(peer, net, "host", cli)
}

/// Joins (or watches) the host at `address` (`HOST:PORT`, or an invitation `HOST:PORT#CODE`).
fn join_source(
    cli: &Cli,
    rules: Rules,
    seed: u64,
    address: &str,
    role: Role,
    net: &NetOptions,
) -> anyhow::Result<Box<dyn MatchSource>> {
    let (address, code) =
        client::net::seal::split_invitation(address).map_err(anyhow::Error::msg)?;
    let host = resolve(address).map_err(anyhow::Error::msg)?;
    let mut config = net_config(net, rules, seed, 0);
    config.invite = code;
    let link = open_link(default_bind_for(host), config.conditioner)?;
    println!(
        "maze-duel: contacting {host} (giving up after {} s)",
        net.timeout
    );
    let peer = NetPeer::<World>::join_on(link, host, role, &config)
        .with_context(|| format!("joining {host}"))?;
    let mode = if role == Role::Player {
        "join"
    } else {
        "spectate"
    };
    online(peer, net, mode, cli)
}

/// Takes this player's slot back from the match log it wrote before its process died.
fn rejoin_source(
    cli: &Cli,
    rules: Rules,
    seed: u64,
    log: &Path,
    net: &NetOptions,
) -> anyhow::Result<Box<dyn MatchSource>> {
    let read = client::logs::matchlog::read_log::<engine::World>(log)
        .with_context(|| format!("the match log {}", log.display()))?;
    let peer = client::runs::rejoin_peer(&read, log)?;
    let config = net_config(net, rules, seed, 0);
    let link = open_link(default_bind_for(peer), config.conditioner)?;
    println!(
        "maze-duel: rejoining {peer} from {} (giving up after {} s)",
        log.display(),
        net.timeout
    );
    let paths = LogPaths {
        hash_log: cli.hash_log.clone(),
        match_log: Some(log.to_owned()),
        dump_dir: None,
    };
    let (peer, logs) = client::runs::rejoin_from_log(link, &config, &paths, None)
        .with_context(|| format!("rejoining from {}", log.display()))?;
    println!(
        "maze-duel: back in the match; recording to {}",
        log.display()
    );
    Ok(Box::new(
        NetMatch::with_logs(peer, usize::from(net.input_delay), logs)
            .with_remote_view(net.remote_view),
    ))
}

/// The room a link (`ws://HOST:PORT/ROOM?secret=…`) names, with its secret; or, for a bare
/// name, that room on `signal` under a fresh secret, whose link the others must be given.
fn room_config(room: &str, signal: &str, ice: IceServers) -> anyhow::Result<RoomConfig> {
    let room = if room.contains("://") {
        RoomConfig::from_link(room)?
    } else {
        let secret =
            client::net::room_secret::RoomSecret::generate().map_err(anyhow::Error::msg)?;
        RoomConfig::new(signal, room).with_secret(secret)
    };
    Ok(room.with_ice(ice))
}

/// Plays through a WebRTC room: the first player in it hosts.
fn online_source(
    cli: &Cli,
    rules: Rules,
    seed: u64,
    (room, role, spectators): (RoomConfig, Role, usize),
    net: &NetOptions,
) -> anyhow::Result<Box<dyn MatchSource>> {
    let url = room.room_url()?;
    println!(
        "maze-duel: room link (give it to the other player and any spectators): {}",
        room.link()?
    );
    let config = net_config(net, rules, seed, spectators);
    println!(
        "maze-duel: entering room {url}; waiting up to {} s for the others (Ctrl-C to cancel)",
        net.timeout
    );
    let peer =
        NetPeer::<World>::online(&room, role, &config).with_context(|| format!("room {url}"))?;
    let mode = match peer.local_slot() {
        Some(0) => "host",
        Some(_) => "join",
        None => "spectate",
    };
    online(peer, net, mode, cli)
}

fn net_config(net: &NetOptions, rules: Rules, seed: u64, spectators: usize) -> NetConfig<World> {
    NetConfig::<World> {
        rules,
        seed,
        input_delay: usize::from(net.input_delay),
        handshake_timeout: Duration::from_secs(net.timeout),
        spectators,
        conditioner: net.conditioner.unwrap_or_default(),
        ..NetConfig::<World>::default()
    }
}

fn online(
    peer: NetPeer<World>,
    net: &NetOptions,
    mode: &str,
    cli: &Cli,
) -> anyhow::Result<Box<dyn MatchSource>> {
    let match_seed = peer.agreement().match_seed;
    println!("maze-duel: connected ({mode}, match seed {match_seed})");
    let match_log = log_for(cli, mode, match_seed)?;
    if let Some(path) = &match_log {
        println!("maze-duel: recording confirmed ticks to {}", path.display());
    }
    let logs = LogPaths {
        hash_log: cli.hash_log.clone(),
        match_log,
        dump_dir: None,
    };
    println!(
        "maze-duel: remote player drawn {} (--remote-view)",
        match net.remote_view {
            client::remote_view::RemoteView::Past => "from confirmed history",
            client::remote_view::RemoteView::Predicted => "predicted",
        }
    );
    Ok(Box::new(
        NetMatch::new(peer, usize::from(net.input_delay), &logs)?.with_remote_view(net.remote_view),
    ))
}

/// A seed for when none is given: the clock's low bits (printed, so a match can be replayed).
fn seed_from_clock() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(1, |d| d.as_secs() ^ u64::from(d.subsec_nanos()))
        % 1_000_000
}
