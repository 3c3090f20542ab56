//! What `maze-duel` does with its command line: the menu, a match of the mode asked for, or a
//! screenshot. `main.rs` only parses the line and reports an error; everything it starts is
//! here, where tests can reach it.

use crate::cli::{InviteChoice, Mode, NetOptions};
use crate::{
    App, AppOptions, BitmapFont, Cli, Config, FrontEnd, LocalLogs, LocalMatch, MatchSource, Menu,
    NetMatch, Renderer, ReplayMatch, Screenshot, SyncTestMatch,
};
use anyhow::Context as _;
use client::logs::peer_logs::LogPaths;
use client::net::seal::InviteCode;
use client::net::transport::{default_bind_for, resolve};
use client::net::webrtc::{IceServers, RoomConfig};
use client::net::wire::Role;
use client::session::netplay::open_link;
use client::session::netplay::{NetConfig, NetPeer};
use engine::World;
use engine::{PlayerId, Rules};
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

/// Where match logs go unless `--match-log` names a file (relative to the working directory).
pub const MATCH_DIR: &str = "matches";

/// Runs what `cli` asks for, until the player quits (or the screenshot is written).
///
/// # Errors
/// A command line that does not hold together, rules that do not load, a match that cannot
/// start, or a window or file that cannot be opened.
pub fn run(cli: &Cli) -> anyhow::Result<()> {
    cli.check().map_err(anyhow::Error::msg)?;
    let rules = client::load_rules(cli.rules.as_deref()).with_context(|| match &cli.rules {
        Some(path) => format!("rules file {}", path.display()),
        None => "built-in rules".to_string(),
    })?;
    let seed = cli.seed.unwrap_or_else(seed_from_clock);
    let renderer = Renderer::new(BitmapFont::load()?);

    if let (Some(path), Some(at_tick)) = (&cli.screenshot, cli.at_tick) {
        return write_screenshot(cli, (path.as_path(), at_tick), rules, seed, &renderer);
    }

    let (config, config_path, config_problems) = load_config(cli);
    let config_was_bad = config_problems.is_some();
    if let Some(path) = &cli.menu_screenshot {
        let mut menu = Menu::new(config);
        menu.note = config_problems;
        let rgba = crate::render_menu_to_rgba(&menu, cli.size, &renderer)?;
        crate::write_png(path, cli.size, &rgba)?;
        println!("wrote {}", path.display());
        return Ok(());
    }
    if cli.wants_menu() {
        let front = FrontEnd {
            rules,
            seed,
            config_path,
            config_was_bad,
            log_dir: log_dir(cli),
        };
        return run_menu(cli, front, config, config_problems, renderer);
    }

    let measuring = cli.measure_pacing.map(Duration::from_secs_f64);
    let mut source = match_source(
        cli,
        rules,
        seed,
        bots(measuring, cli.vs_bot),
        &config.ice_servers(),
    )?;
    let options = match_options(cli, &config, source.local_players());
    let mut app = App::new(options, renderer)?;
    println!("maze-duel: seed {}", source.current().match_seed);
    let report = app.run(source.as_mut())?;
    if measuring.is_some() {
        println!("{report}");
    }
    Ok(())
}

/// Where the menu's matches are logged and its replays listed: [`MATCH_DIR`], or nowhere with
/// `--no-match-log`.
fn log_dir(cli: &Cli) -> Option<PathBuf> {
    (!cli.no_match_log).then(|| PathBuf::from(MATCH_DIR))
}

/// The players bots play: both while measuring the pacing, player 2 against a person who
/// asked for a bot, none otherwise.
fn bots(measuring: Option<Duration>, vs_bot: bool) -> &'static [PlayerId] {
    match (measuring, vs_bot) {
        (Some(_), _) => &[0, 1],
        (None, true) => &[1],
        (None, false) => &[],
    }
}

/// How the window plays a match started from the command line: its size, renderer, overlay
/// and volume from the command line, its keys from the settings; the controls shown first
/// to a person who plays (`local_players`: the players this machine's people play), and a pacing measurement (`--measure-pacing`) run unattended for
/// its time, a rematch three seconds after each decided match.
fn match_options(cli: &Cli, config: &Config, local_players: &[PlayerId]) -> AppOptions {
    let measuring = cli.measure_pacing.map(Duration::from_secs_f64);
    AppOptions {
        window_size: cli.size,
        software: cli.software,
        controls_at_start: measuring.is_none() && !local_players.is_empty(),
        run_for: measuring,
        auto_rematch_after: measuring.map(|_| 180),
        rail_debug: cli.rail_debug,
        volume: cli.volume,
        bindings: config.bindings.clone(),
        ..AppOptions::default()
    }
}

/// How the window shows the menu: size, renderer and overlay from the command line, the
/// volume and keys from the settings (the menu changes them).
fn menu_options(cli: &Cli, config: &Config) -> AppOptions {
    AppOptions {
        window_size: cli.size,
        software: cli.software,
        rail_debug: cli.rail_debug,
        volume: config.volume,
        bindings: config.bindings.clone(),
        ..AppOptions::default()
    }
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
    let rgba = crate::render_to_rgba(rules, &shot, replay, renderer)?;
    crate::write_png(path, cli.size, &rgba)?;
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
    let mut app = App::new(menu_options(cli, &config), renderer)?;
    match &front.config_path {
        Some(path) => println!("maze-duel: menu open; settings save to {}", path.display()),
        None => println!("maze-duel: menu open; settings are not saved"),
    }
    let mut menu = Menu::new(config);
    menu.note = config_problems;
    front.run(&mut app, &mut menu)
}

/// The settings (`--config`, else the per-user file), where to save them, and what was wrong
/// with the file (for the menu to show), if anything. Problems are printed; they never stop the game.
fn load_config(cli: &Cli) -> (Config, Option<PathBuf>, Option<String>) {
    let path = cli.config.clone().or_else(crate::config::default_path);
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
            let ice = ice_for(given, *no_ice, ice);
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

/// The STUN/TURN servers of an online match: none with `--no-ice`; the command line's if it
/// names any; the settings' servers otherwise, under the command line's user and password
/// if it gives those alone.
fn ice_for(given: IceServers, no_ice: bool, settings: &IceServers) -> IceServers {
    match (given.urls.is_empty(), no_ice) {
        (_, true) => IceServers::default(),
        (true, false) if given == IceServers::default() => settings.clone(),
        (true, false) => IceServers {
            urls: settings.urls.clone(),
            ..given
        },
        (false, false) => given,
    }
}

/// Where a match of `mode` is recorded: `--match-log`, nothing with `--no-match-log`, else a
/// new file in [`MATCH_DIR`].
fn log_for(cli: &Cli, mode: &str, seed: u64) -> anyhow::Result<Option<PathBuf>> {
    let stamp = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    log_in(
        cli,
        Path::new(MATCH_DIR),
        &format!("{mode}-seed{seed}-{stamp}"),
    )
}

/// [`log_for`] with the folder and the file's stem given: `--match-log`, nothing with
/// `--no-match-log`, else `dir/stem.duellog`, the folder made if it is missing.
fn log_in(cli: &Cli, dir: &Path, stem: &str) -> anyhow::Result<Option<PathBuf>> {
    if cli.no_match_log {
        return Ok(None);
    }
    if let Some(path) = &cli.match_log {
        return Ok(Some(path.clone()));
    }
    std::fs::create_dir_all(dir)
        .with_context(|| format!("creating the {} directory", dir.display()))?;
    Ok(Some(dir.join(format!("{stem}.duellog"))))
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
    let path = log_for(cli, crate::mode_for(bots.len(), difficulty), seed)?;
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
    online(peer, net, join_mode(role), cli)
}

/// How a match joined as `role` is named in its log's file name.
fn join_mode(role: Role) -> &'static str {
    if role == Role::Player {
        "join"
    } else {
        "spectate"
    }
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
    seed_from(SystemTime::now().duration_since(UNIX_EPOCH).ok())
}

/// The seed [`seed_from_clock`] takes from the time since the epoch (1 for a clock before it).
fn seed_from(since_epoch: Option<Duration>) -> u64 {
    since_epoch.map_or(1, |d| d.as_secs() ^ u64::from(d.subsec_nanos())) % 1_000_000
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser as _;

    fn cli(args: &[&str]) -> Cli {
        let mut line = vec!["maze-duel"];
        line.extend_from_slice(args);
        Cli::try_parse_from(line).expect("a valid command line")
    }

    /// A folder of this test's own under the system's temporary folder, emptied.
    fn scratch(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("launch-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("scratch folder");
        dir
    }

    #[test]
    fn the_menu_logs_to_the_match_folder_unless_told_not_to() {
        assert_eq!(log_dir(&cli(&[])), Some(PathBuf::from("matches")));
        assert_eq!(log_dir(&cli(&["--no-match-log"])), None);
    }

    #[test]
    fn bots_play_both_sides_while_measuring_and_player_2_against_a_person() {
        let second = Some(Duration::from_secs(1));
        assert_eq!(bots(second, false), [0, 1]);
        assert_eq!(bots(second, true), [0, 1]);
        assert_eq!(bots(None, true), [1]);
        assert!(bots(None, false).is_empty());
    }

    #[test]
    fn a_matchs_window_takes_the_command_line_and_the_settings_keys() {
        let mut config = Config {
            volume: 11,
            ..Config::default()
        };
        config.bindings.players[0].shoot = vec![sdl2::keyboard::Scancode::Q];
        let line = cli(&[
            "--size",
            "640x480",
            "--software",
            "--rail-debug",
            "--volume",
            "33",
        ]);
        let options = match_options(&line, &config, &[0]);
        assert_eq!(options.window_size, (640, 480));
        assert!(options.software);
        assert!(options.rail_debug);
        assert_eq!(options.volume, 33, "the command line's volume");
        assert_eq!(options.bindings, config.bindings, "the settings' keys");
        assert!(options.controls_at_start, "a person plays: controls first");
        assert_eq!(options.run_for, None);
        assert_eq!(options.auto_rematch_after, None);
        assert_eq!(options.title, AppOptions::default().title);

        let plain = match_options(&cli(&[]), &Config::default(), &[0, 1]);
        assert_eq!(plain.window_size, (1280, 800));
        assert!(!plain.software);
        assert!(!plain.rail_debug);
        assert_eq!(plain.volume, 70);

        let nobody = match_options(&cli(&[]), &Config::default(), &[]);
        assert!(!nobody.controls_at_start, "nobody to show the controls to");

        let measuring = match_options(&cli(&["--measure-pacing", "2.5"]), &config, &[0]);
        assert_eq!(measuring.run_for, Some(Duration::from_millis(2500)));
        assert_eq!(measuring.auto_rematch_after, Some(180));
        assert!(!measuring.controls_at_start, "a measurement is unattended");
    }

    #[test]
    fn the_menus_window_takes_the_volume_and_keys_from_the_settings() {
        let mut config = Config {
            volume: 11,
            ..Config::default()
        };
        config.bindings.players[1].up = vec![sdl2::keyboard::Scancode::I];
        let line = cli(&[
            "--size",
            "800x600",
            "--software",
            "--rail-debug",
            "--volume",
            "33",
        ]);
        let options = menu_options(&line, &config);
        assert_eq!(options.window_size, (800, 600));
        assert!(options.software);
        assert!(options.rail_debug);
        assert_eq!(
            options.volume, 11,
            "the settings' volume: the menu changes it"
        );
        assert_eq!(options.bindings, config.bindings);
        let plain = menu_options(&cli(&[]), &Config::default());
        assert!(!plain.software);
        assert!(!plain.rail_debug);
        assert_eq!(plain.window_size, (1280, 800));
    }

    #[test]
    fn the_settings_problems_are_summed_up_by_the_first_and_counted() {
        let dir = scratch("config");
        let path = dir.join("config.toml");
        let load = |text: Option<&str>| {
            if let Some(text) = text {
                std::fs::write(&path, text).expect("write");
            }
            load_config(&cli(&["--config", path.to_str().expect("utf-8")]))
        };
        let (config, at, note) = load(None);
        assert_eq!(
            (config, at.as_deref(), note),
            (Config::default(), Some(path.as_path()), None)
        );

        let (config, _, note) = load(Some("volume = 40\n"));
        assert_eq!(config.volume, 40);
        assert_eq!(note, None, "a good file has nothing to say");

        let one = Config::load(&path_with(&path, "volume = 500\n")).problems;
        assert_eq!(one.len(), 1);
        let (_, _, note) = load(Some("volume = 500\n"));
        assert_eq!(
            note.as_deref(),
            Some(one[0].as_str()),
            "one problem: itself alone"
        );

        let text = "volume = 500\ninput_delay = 99\nfullscreen = 3\n";
        let three = Config::load(&path_with(&path, text)).problems;
        assert_eq!(three.len(), 3, "{three:?}");
        let (_, _, note) = load(Some(text));
        assert_eq!(
            note,
            Some(format!("{} (and 2 more: see the terminal)", three[0]))
        );
        let _ = std::fs::remove_dir_all(dir);
    }

    /// `path` with `text` written to it.
    fn path_with(path: &Path, text: &str) -> PathBuf {
        std::fs::write(path, text).expect("write");
        path.to_owned()
    }

    #[test]
    fn online_servers_come_from_the_command_line_else_the_settings() {
        let settings = IceServers {
            urls: vec!["turn:settings.example:3478".into()],
            username: Some("saved".into()),
            credential: Some("saved-pass".into()),
        };
        let given = IceServers {
            urls: vec!["stun:line.example:3478".into()],
            username: None,
            credential: None,
        };
        assert_eq!(ice_for(given.clone(), false, &settings), given);
        assert_eq!(ice_for(given, true, &settings), IceServers::default());
        assert_eq!(
            ice_for(IceServers::default(), false, &settings),
            settings,
            "nothing given: the settings' servers, user and password"
        );
        assert_eq!(
            ice_for(IceServers::default(), true, &settings),
            IceServers::default()
        );
        let login = IceServers {
            urls: Vec::new(),
            username: Some("me".into()),
            credential: Some("pass".into()),
        };
        assert_eq!(
            ice_for(login, false, &settings),
            IceServers {
                urls: settings.urls.clone(),
                username: Some("me".into()),
                credential: Some("pass".into()),
            },
            "a user and password alone go with the settings' servers"
        );
    }

    #[test]
    fn a_match_is_logged_where_the_command_line_says_else_in_a_new_file_of_the_folder() {
        let dir = scratch("logs");
        let folder = dir.join("not-yet").join("matches");
        assert_eq!(
            log_in(&cli(&["--no-match-log"]), &folder, "x").expect("ok"),
            None
        );
        assert!(!folder.exists(), "no folder made for no log");
        let named = dir.join("mine.duellog");
        let line = cli(&["--match-log", named.to_str().expect("utf-8")]);
        assert_eq!(log_in(&line, &folder, "x").expect("ok"), Some(named));
        assert!(!folder.exists());
        assert_eq!(
            log_in(&cli(&[]), &folder, "host-seed5-99").expect("ok"),
            Some(folder.join("host-seed5-99.duellog"))
        );
        assert!(folder.is_dir(), "the folder is made");
        let blocked = dir.join("a-file");
        std::fs::write(&blocked, "").expect("write");
        let error = log_in(&cli(&[]), &blocked.join("matches"), "x").expect_err("not a folder");
        assert!(format!("{error:#}").contains("creating the"), "{error:#}");
        let _ = std::fs::remove_dir_all(dir);
    }

    #[test]
    fn a_match_log_named_or_refused_on_the_command_line_is_used_as_said() {
        assert_eq!(
            log_for(&cli(&["--no-match-log"]), "host", 5).expect("ok"),
            None
        );
        let line = cli(&["--match-log", "elsewhere/mine.duellog"]);
        assert_eq!(
            log_for(&line, "host", 5).expect("ok"),
            Some(PathBuf::from("elsewhere/mine.duellog"))
        );
    }

    #[test]
    fn a_room_is_its_link_or_a_bare_name_on_the_signal_server_under_a_fresh_secret() {
        let ice = IceServers {
            urls: vec!["stun:ice.example:3478".into()],
            username: None,
            credential: None,
        };
        let secret = client::net::room_secret::RoomSecret::generate().expect("secret");
        let link = format!("ws://signal.example:3536/duel?secret={}", secret.as_str());
        let room = room_config(&link, "ws://unused:1", ice.clone()).expect("a link");
        assert_eq!(room.link().expect("link"), link);
        assert_eq!(room.ice, ice);

        let a = room_config("duel", "ws://signal.example:3536", ice.clone()).expect("a name");
        assert_eq!(a.room_url().expect("url"), "ws://signal.example:3536/duel");
        assert_eq!(a.ice, ice);
        let b = room_config("duel", "ws://signal.example:3536", ice).expect("a name");
        let (Some(a), Some(b)) = (a.secret, b.secret) else {
            panic!("a room made here has a secret");
        };
        assert_ne!(a.as_str(), b.as_str(), "each a fresh secret");

        assert!(room_config(
            "ws://signal.example:3536/",
            "ws://x:1",
            IceServers::default()
        )
        .is_err());
    }

    #[test]
    fn a_seed_from_the_clock_mixes_seconds_and_nanoseconds_under_a_million() {
        assert_eq!(seed_from(None), 1, "a clock before the epoch");
        assert_eq!(seed_from(Some(Duration::new(5, 3))), 6);
        assert_eq!(seed_from(Some(Duration::new(12, 10))), 6);
        assert_eq!(
            seed_from(Some(Duration::new(1_764_900_000, 123_456_789))),
            (1_764_900_000 ^ 123_456_789) % 1_000_000
        );
        assert_eq!(seed_from(Some(Duration::new(2_000_000, 0))), 0);
        let seeds: Vec<u64> = (0..100).map(|_| seed_from_clock()).collect();
        assert!(seeds.iter().all(|&s| s < 1_000_000));
        assert!(
            seeds.iter().any(|&s| s != seeds[0]),
            "the nanoseconds move the seed: {seeds:?}"
        );
    }

    #[test]
    fn an_online_config_takes_every_network_option() {
        let line = cli(&[
            "join",
            "127.0.0.1:7000",
            "--input-delay",
            "4",
            "--timeout",
            "9",
            "--conditioner",
            "loss=5",
        ]);
        let Some(Mode::Join { net, .. }) = &line.mode else {
            panic!("a join");
        };
        let rules = Rules {
            max_hp: 77,
            ..Rules::default()
        };
        let config = net_config(net, rules.clone(), 42, 3);
        assert_eq!(config.rules, rules);
        assert_eq!(config.seed, 42);
        assert_eq!(config.input_delay, 4);
        assert_eq!(config.handshake_timeout, Duration::from_secs(9));
        assert_eq!(config.spectators, 3);
        assert_eq!(config.conditioner, net.conditioner.expect("given"));
        assert!(config.conditioner.is_active());
        let defaults = NetConfig::<World>::default();
        assert_eq!(
            config.sync_timeout, defaults.sync_timeout,
            "the rest: defaults"
        );
    }

    #[test]
    fn a_joined_match_is_named_by_its_role() {
        assert_eq!(join_mode(Role::Player), "join");
        assert_eq!(join_mode(Role::Spectator), "spectate");
    }

    /// The PNG at `path`, as RGBA bytes.
    fn read_png(path: &Path) -> Vec<u8> {
        let decoder = png::Decoder::new(std::io::BufReader::new(
            std::fs::File::open(path).expect("the PNG"),
        ));
        let mut reader = decoder.read_info().expect("a PNG");
        let mut pixels = vec![0; reader.output_buffer_size()];
        let info = reader.next_frame(&mut pixels).expect("a frame");
        pixels.truncate(info.buffer_size());
        pixels
    }

    #[test]
    fn a_screenshot_is_the_bot_match_at_its_tick_with_the_net_panel_unless_rail_debug() {
        let dir = scratch("shot");
        let renderer = Renderer::new(BitmapFont::load().expect("font"));
        let size = (320, 200);
        for rail_debug in [false, true] {
            let path = dir.join(format!("shot-{rail_debug}.png"));
            let mut args = vec!["--size", "320x200"];
            if rail_debug {
                args.push("--rail-debug");
            }
            write_screenshot(&cli(&args), (&path, 90), Rules::default(), 5, &renderer)
                .expect("written");
            let shot = Screenshot {
                seed: 5,
                at_tick: 90,
                size,
                net_hud: !rail_debug,
                rail_debug,
                remote_back: 0,
            };
            let expected =
                crate::render_to_rgba(Rules::default(), &shot, None, &renderer).expect("drawn");
            assert!(read_png(&path) == expected, "rail debug {rail_debug}");
            let other = Screenshot {
                net_hud: rail_debug,
                ..shot
            };
            let without =
                crate::render_to_rgba(Rules::default(), &other, None, &renderer).expect("drawn");
            assert!(
                without != expected,
                "the panel shows (rail debug {rail_debug})"
            );
        }
        let path = dir.join("host.png");
        let error = write_screenshot(&cli(&["host"]), (&path, 90), Rules::default(), 5, &renderer)
            .expect_err("not a mode a screenshot draws");
        assert!(error.to_string().contains("not this mode"), "{error}");
        assert!(!path.exists());
        let _ = std::fs::remove_dir_all(dir);
    }
}
