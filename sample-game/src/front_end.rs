//! The front end: the title menu in the window, and what its choices start — a local match, a
//! match against the bot, hosting or joining online (with the waiting and connecting screens),
//! a replay. Every match started here comes back here when it ends (Esc, or a disconnect shown
//! with its reason); closing the window leaves the game.
//!
//! SDL events become [`MenuInput`]s in [`menu_inputs`]: the keyboard and a game controller
//! give the same inputs, and the [`Menu`] state machine never sees SDL.

use crate::app::App;
use crate::config::Config;
use crate::matches::local_match::{mode_for, LocalLogs, LocalMatch};
use crate::matches::match_source::MatchSource;
use crate::matches::net_match::NetMatch;
use crate::matches::replay_match::ReplayMatch;
use crate::menu::online::{Connection, Poll, Side, Stage};
use crate::menu::view::{draw_menu, draw_status, StatusScreen};
use crate::menu::{list_replays, Choice, Menu, MenuInput};
use anyhow::anyhow;
use client::logs::peer_logs::LogPaths;
use client::net::wire::Role;
use client::session::netplay::NetConfig;
use engine::Rules;
use engine::World;
use sdl2::controller::Button;
use sdl2::event::Event;
use sdl2::keyboard::Scancode;
use std::path::PathBuf;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

/// How long a joiner waits for the host to answer.
pub const JOIN_TIMEOUT: Duration = Duration::from_secs(30);

/// What the menu's matches are played with.
#[derive(Clone, Debug)]
pub struct FrontEnd {
    /// The rules every match plays by.
    pub rules: Rules,
    /// The next match's seed (each match takes the next).
    pub seed: u64,
    /// Where the settings are saved (`None`: nowhere to save; changes last until exit).
    pub config_path: Option<PathBuf>,
    /// Whether the settings file was unreadable: the first save moves it aside first.
    pub config_was_bad: bool,
    /// Where match logs are written and replays listed; `None`: no logs are written.
    pub log_dir: Option<PathBuf>,
}

/// Draws what `phase` shows: the menu, or where a connection or rejoin stands.
fn draw_phase(app: &mut App, menu: &Menu, phase: &Phase) -> anyhow::Result<()> {
    match phase {
        Phase::Menu => draw_menu(&mut app.canvas, app.renderer.font(), menu),
        Phase::Connecting(c) => draw_status(&mut app.canvas, app.renderer.font(), &status_of(c)),
        Phase::Rejoining(r, log) => draw_status(
            &mut app.canvas,
            app.renderer.font(),
            &rejoin_status(r.rejoining(), log),
        ),
    }
    .map_err(|e| anyhow!("drawing the menu: {e}"))
}

/// What the window shows between matches.
enum Phase {
    Menu,
    Connecting(Box<Connection>),
    /// Taking the slot back in an unfinished match, from its log.
    Rejoining(Box<client::runs::RejoinFromLog>, PathBuf),
}

impl FrontEnd {
    /// Runs the menu until the player quits (the Quit item, Esc on the title screen, or
    /// closing the window).
    ///
    /// # Errors
    /// If SDL cannot draw, or a match fails outside its ticks.
    pub fn run(&mut self, app: &mut App, menu: &mut Menu) -> anyhow::Result<()> {
        self.frames(app, menu, false)
    }

    /// Runs frames as [`FrontEnd::run`] does until one finds no event waiting (or the player
    /// quits); a connection still under way is dropped. Tests and automation push events
    /// ([`App::push_event`]) and call this to have them carried out.
    ///
    /// # Errors
    /// As [`FrontEnd::run`].
    pub fn run_until_idle(&mut self, app: &mut App, menu: &mut Menu) -> anyhow::Result<()> {
        self.frames(app, menu, true)
    }

    fn frames(&mut self, app: &mut App, menu: &mut Menu, until_idle: bool) -> anyhow::Result<()> {
        self.apply(app, &menu.config)?;
        let mut phase = Phase::Menu;
        let mut last_present = Instant::now();
        loop {
            let events: Vec<Event> = app.events.poll_iter().collect();
            if until_idle && events.is_empty() {
                return Ok(());
            }
            for event in &events {
                app.input.handle_event(event, app.controllers.as_ref());
                if matches!(event, Event::Quit { .. }) {
                    return Ok(());
                }
                match &mut phase {
                    Phase::Menu => {
                        for input in menu_inputs(event, menu.wants_key(), menu.wants_text()) {
                            if let Some(sfx) = input.sound() {
                                app.play_ui(sfx);
                            }
                            let Some(choice) = menu.handle(input) else {
                                continue;
                            };
                            match self.carry_out(choice, app, menu)? {
                                Next::Stay => {}
                                Next::Connect(c) => phase = Phase::Connecting(c),
                                Next::Rejoin(r, log) => phase = Phase::Rejoining(r, log),
                                Next::Quit => return Ok(()),
                            }
                        }
                    }
                    Phase::Connecting(_) | Phase::Rejoining(..) => {
                        if menu_inputs(event, false, false).contains(&MenuInput::Back) {
                            // Dropping the connection closes its socket.
                            phase = Phase::Menu;
                            menu.to_main();
                        }
                    }
                }
            }
            if self.poll_connection(app, menu, &mut phase)? {
                return Ok(());
            }
            draw_phase(app, menu, &phase)?;
            app.canvas.present();
            std::thread::sleep(frame_rest(app.min_frame, last_present.elapsed()));
            last_present = Instant::now();
        }
    }

    /// Moves a connection or rejoin under way on: into the match once it is ready, back to
    /// the menu with a notice when it fails. Returns whether the player quit from the match.
    fn poll_connection(
        &mut self,
        app: &mut App,
        menu: &mut Menu,
        phase: &mut Phase,
    ) -> anyhow::Result<bool> {
        match phase {
            Phase::Menu => {}
            Phase::Connecting(connection) => match connection.poll() {
                Poll::Pending => {}
                Poll::Refused(reason) => {
                    menu.notice("REFUSED", reason);
                    *phase = Phase::Menu;
                }
                Poll::Failed(reason) => {
                    menu.notice("CONNECTION FAILED", reason);
                    *phase = Phase::Menu;
                }
                Poll::Ready(peer) => {
                    let side = connection.side();
                    *phase = Phase::Menu;
                    menu.to_main();
                    return self.play_online(app, menu, *peer, side);
                }
            },
            Phase::Rejoining(rejoin, _) => match rejoin.poll() {
                Ok(None) => {}
                Ok(Some((peer, logs))) => {
                    *phase = Phase::Menu;
                    menu.to_main();
                    let delay = usize::from(menu.config.input_delay);
                    let mut m = NetMatch::with_logs(peer, delay, logs)
                        .with_remote_view(menu.config.remote_view);
                    return Ok(matches!(self.play(app, menu, &mut m)?, Next::Quit));
                }
                Err(e) => {
                    menu.notice("REJOIN FAILED", e.to_string());
                    *phase = Phase::Menu;
                }
            },
        }
        Ok(false)
    }

    /// Applies the settings to the window: volume, fullscreen, keys.
    fn apply(&self, app: &mut App, config: &Config) -> anyhow::Result<()> {
        app.set_volume(config.volume);
        if app.is_fullscreen() != config.fullscreen {
            app.set_fullscreen(config.fullscreen)?;
        }
        app.set_bindings(config.bindings.clone());
        Ok(())
    }

    fn carry_out(
        &mut self,
        choice: Choice,
        app: &mut App,
        menu: &mut Menu,
    ) -> anyhow::Result<Next> {
        match choice {
            Choice::Quit => return Ok(Next::Quit),
            Choice::ListReplays => {
                let entries = self
                    .log_dir
                    .as_deref()
                    .map(list_replays)
                    .unwrap_or_default();
                menu.show_replays(entries);
            }
            Choice::SaveConfig => self.save_config(app, menu),
            Choice::Local => return self.play_local(app, menu, &[], engine::Difficulty::Hard),
            Choice::VsBot(d) => return self.play_local(app, menu, &[1], d),
            Choice::Training => {
                let seed = self.next_seed();
                let logs = LocalLogs::to(self.log_path("training", seed)?, None);
                match crate::matches::training::TrainingMatch::new(self.rules.clone(), seed, logs) {
                    Ok(mut room) => return self.play(app, menu, &mut room),
                    Err(e) => menu.notice("CANNOT START", format!("{e:#}")),
                }
            }
            Choice::Replay(path) => {
                let replay = client::logs::matchlog::read_log::<engine::World>(&path)
                    .map_err(anyhow::Error::from)
                    .and_then(ReplayMatch::new);
                match replay {
                    Ok(mut replay) => return self.play(app, menu, &mut replay),
                    // The reading error names the file.
                    Err(e) => menu.notice("CANNOT PLAY THIS REPLAY", format!("{e:#}")),
                }
            }
            Choice::Host => {
                let mut config = self.net_config(&menu.config);
                // A host from the menu admits only whoever it gives the invitation to.
                config.invite = client::net::seal::InviteCode::random().ok();
                match Connection::host(config) {
                    Ok(c) => {
                        let port = c.local_addr().port();
                        println!("maze-duel: hosting on port {port}; waiting for a player");
                        return Ok(Next::Connect(Box::new(c)));
                    }
                    Err(e) => menu.notice("CANNOT HOST", e.to_string()),
                }
            }
            Choice::RejoinLast => return Ok(self.rejoin_last(menu)),
            Choice::Join(address) => return Ok(self.connect(&address, Role::Player, menu)),
            Choice::Spectate(address) => return Ok(self.connect(&address, Role::Spectator, menu)),
        }
        Ok(Next::Stay)
    }

    /// Applies the settings and saves them to the config file, if there is one; what went
    /// wrong, or a note on the save, is shown on the menu.
    fn save_config(&mut self, app: &mut App, menu: &mut Menu) {
        if let Err(e) = self.apply(app, &menu.config) {
            menu.note = Some(format!("{e:#}"));
        }
        if let Some(path) = &self.config_path {
            match menu.config.save(path, self.config_was_bad) {
                Ok(note) => {
                    self.config_was_bad = false;
                    if let Some(note) = note {
                        println!("maze-duel: {note}");
                        menu.note = Some(note);
                    }
                }
                Err(e) => menu.note = Some(format!("settings not saved: {e:#}")),
            }
        }
    }

    /// Plays a match on this machine, `bots` playing those slots at `difficulty`, logged.
    fn play_local(
        &mut self,
        app: &mut App,
        menu: &mut Menu,
        bots: &[engine::PlayerId],
        difficulty: engine::Difficulty,
    ) -> anyhow::Result<Next> {
        let seed = self.next_seed();
        let mode = mode_for(bots.len(), difficulty);
        let logs = LocalLogs::to(self.log_path(mode, seed)?, None);
        let source = LocalMatch::new(self.rules.clone(), seed).and_then(|m| {
            m.with_bots(bots)
                .with_difficulty(difficulty)
                .with_logs(logs)
        });
        match source {
            Ok(mut m) => self.play(app, menu, &mut m),
            Err(e) => {
                menu.notice("CANNOT START", format!("{e:#}"));
                Ok(Next::Stay)
            }
        }
    }

    /// Starts taking the slot back in the newest unfinished online match logged in the log
    /// folder; a notice if there is none, or its log cannot be continued.
    fn rejoin_last(&mut self, menu: &mut Menu) -> Next {
        let Some(log) = self.log_dir.as_deref().and_then(last_unfinished_match) else {
            let where_ = self
                .log_dir
                .as_deref()
                .map_or("(no log folder)".to_string(), |d| d.display().to_string());
            menu.notice(
                "NOTHING TO REJOIN",
                format!("no unfinished online match of a player is logged in {where_}"),
            );
            return Next::Stay;
        };
        let mut start = || -> Result<client::runs::RejoinFromLog, client::Error> {
            let read = client::logs::matchlog::read_log::<engine::World>(&log)?;
            let peer = client::runs::rejoin_peer(&read, &log)?;
            // The menu's join timeout is the client's default handshake timeout: a rejoin
            // waits as long as a join (pinned by a test, should the default change).
            let config = self.net_config(&menu.config);
            let bind = client::net::transport::default_bind_for(peer);
            let link = client::session::netplay::open_link(bind, config.conditioner)?;
            let paths = LogPaths {
                hash_log: None,
                match_log: Some(log.clone()),
                dump_dir: None,
            };
            client::runs::RejoinFromLog::start(link, &config, &paths, None)
        };
        match start() {
            Ok(r) => {
                println!("maze-duel: rejoining from {}", log.display());
                Next::Rejoin(Box::new(r), log)
            }
            Err(e) => {
                menu.notice("CANNOT REJOIN", e.to_string());
                Next::Stay
            }
        }
    }

    /// Starts contacting the host at `address` as `role`; a bad address is noted under the
    /// field, a socket that cannot be bound is a notice.
    fn connect(&mut self, address: &str, role: Role, menu: &mut Menu) -> Next {
        if crate::menu::is_room_link(address) {
            let config = self.net_config(&menu.config);
            let ice = menu.config.ice_servers();
            match Connection::room(address, role, ice, config, JOIN_TIMEOUT) {
                Ok(c) => return Next::Connect(Box::new(c)),
                Err(e) => menu.note = Some(e.to_string()),
            }
            return Next::Stay;
        }
        let resolved = client::net::seal::split_invitation(address).and_then(|(addr, code)| {
            client::net::transport::resolve(addr).map(|host| (host, code))
        });
        match resolved {
            Err(e) => menu.note = Some(e),
            Ok((host, code)) => {
                let mut config = self.net_config(&menu.config);
                config.invite = code;
                match Connection::join(host, role, config, JOIN_TIMEOUT) {
                    Ok(c) => return Next::Connect(Box::new(c)),
                    Err(e) => menu.notice("CONNECTION FAILED", e.to_string()),
                }
            }
        }
        Next::Stay
    }

    /// Plays a match, then back to the menu (or out, if the window was closed).
    fn play(
        &mut self,
        app: &mut App,
        menu: &mut Menu,
        source: &mut dyn MatchSource,
    ) -> anyhow::Result<Next> {
        app.options.controls_at_start = !source.local_players().is_empty();
        println!("maze-duel: seed {}", source.current().match_seed);
        let end = app.run_match(source, true)?;
        menu.to_main();
        if let Some(e) = &end.ended {
            println!("maze-duel: the match ended early: {e:#}");
        }
        let title = format!("{} — menu", app.options.title);
        let _ = app.canvas.window_mut().set_title(&title);
        Ok(if end.window_closed {
            Next::Quit
        } else {
            Next::Stay
        })
    }

    /// Plays an online match on a synchronized peer; returns whether the window was closed.
    fn play_online(
        &mut self,
        app: &mut App,
        menu: &mut Menu,
        peer: client::session::netplay::NetPeer<World>,
        side: Side,
    ) -> anyhow::Result<bool> {
        let mode = match side {
            Side::Host => "host",
            Side::Join(_, Role::Player) => "join",
            Side::Join(_, Role::Spectator) => "spectate",
            Side::Room(Role::Player) => "online",
            Side::Room(Role::Spectator) => "online-spectate",
        };
        let logs = LogPaths {
            hash_log: None,
            match_log: self.log_path(mode, peer.agreement().match_seed)?,
            dump_dir: None,
        };
        let delay = usize::from(menu.config.input_delay);
        let source =
            NetMatch::new(peer, delay, &logs).map(|m| m.with_remote_view(menu.config.remote_view));
        match source {
            Ok(mut m) => Ok(matches!(self.play(app, menu, &mut m)?, Next::Quit)),
            Err(e) => {
                menu.notice("CANNOT START", format!("{e:#}"));
                Ok(false)
            }
        }
    }

    fn next_seed(&mut self) -> u64 {
        let seed = self.seed;
        self.seed = self.seed.wrapping_add(1);
        seed
    }

    fn net_config(&mut self, config: &Config) -> NetConfig<World> {
        NetConfig::<World> {
            rules: self.rules.clone(),
            seed: self.next_seed(),
            input_delay: usize::from(config.input_delay),
            ..NetConfig::<World>::default()
        }
    }

    /// `<log_dir>/<mode>-seed<seed>-<time>.duellog`, creating the folder; `None` without one.
    fn log_path(&self, mode: &str, seed: u64) -> anyhow::Result<Option<PathBuf>> {
        let Some(dir) = &self.log_dir else {
            return Ok(None);
        };
        std::fs::create_dir_all(dir).map_err(|e| anyhow!("creating {}: {e}", dir.display()))?;
        let stamp = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |d| d.as_secs());
        Ok(Some(dir.join(format!("{mode}-seed{seed}-{stamp}.duellog"))))
    }
}

/// How long the menu rests after a frame that took `spent`, so it draws no more often than
/// one frame per `min_frame` (none once a frame took that long).
fn frame_rest(min_frame: Duration, spent: Duration) -> Duration {
    min_frame.saturating_sub(spent)
}

/// What to do after a choice.
enum Next {
    Stay,
    Connect(Box<Connection>),
    Rejoin(Box<client::runs::RejoinFromLog>, PathBuf),
    Quit,
}

/// The newest match log in `dir` of an online match this side played and that never ended
/// (no end record: the game closed or crashed mid-match), if any.
#[must_use]
pub fn last_unfinished_match(dir: &std::path::Path) -> Option<PathBuf> {
    list_replays(dir).into_iter().map(|e| e.path).find(|path| {
        client::logs::matchlog::read_log::<engine::World>(path)
            .is_ok_and(|log| log.header.rejoin.is_some() && log.end.is_none())
    })
}

/// The status screen while a rejoin is under way.
#[must_use]
pub fn rejoin_status(
    r: &client::session::netplay::rejoin::Rejoining<World>,
    log: &std::path::Path,
) -> StatusScreen {
    let name = log
        .file_name()
        .map_or(String::new(), |n| n.to_string_lossy().into_owned());
    let mut lines = vec![
        format!(
            "Taking the slot back from {}",
            r.peer()
                .map_or("the other player".to_string(), |p| p.to_string())
        ),
        format!("with {name}"),
        String::new(),
        format!(
            "{} ({} s, giving up after {} s)",
            r.stage_name(),
            r.waited().as_secs(),
            r.gives_up_after().as_secs()
        ),
    ];
    lines.push(format!(
        "The other player waits {} s at most",
        client::session::netplay::DEFAULT_RECONNECT_GRACE.as_secs()
    ));
    status_screen("REJOINING", lines, None)
}

/// The status screen for a connection under way.
#[must_use]
pub fn status_of(c: &Connection) -> StatusScreen {
    let waited = c.waited().as_secs();
    let mut lines = Vec::new();
    let title = match (c.side(), &c.stage, c.room_host()) {
        (_, Stage::Synchronizing { .. }, _) => "SYNCHRONIZING",
        (Side::Host, Stage::Handshake, _) | (Side::Room(_), _, Some(true)) => {
            "WAITING FOR OPPONENT"
        }
        (Side::Join(..), Stage::Handshake, _) | (Side::Room(_), _, Some(false)) => "CONNECTING",
        (Side::Room(_), Stage::Handshake, None) => "ENTERING ROOM",
    };
    match c.side() {
        Side::Host => {
            lines.push("Share this address with the other player:".to_string());
            lines.extend(c.share.iter().map(|a| format!("  {a}")));
            lines.push(String::new());
            lines.push(format!("Waiting for {waited} s"));
        }
        Side::Room(_) => {
            lines.push("Room (give the other player this link):".to_string());
            lines.extend(c.share.iter().map(|a| format!("  {a}")));
            lines.push(String::new());
            lines.push(match c.room_host() {
                None => "Meeting in the room".to_string(),
                Some(true) => "This computer hosts the room's match".to_string(),
                Some(false) => "Joining the room's host".to_string(),
            });
            let limit = c.timeout().map_or(0, |t| t.as_secs());
            lines.push(format!("{waited} s (giving up after {limit} s)"));
        }
        Side::Join(host, role) => {
            let what = match role {
                Role::Player => "to play",
                Role::Spectator => "to watch",
            };
            if c.stage == Stage::Handshake {
                lines.push(format!("Contacting {host} {what}"));
                let limit = c.timeout().map_or(0, |t| t.as_secs());
                lines.push(format!("{waited} s (giving up after {limit} s)"));
            } else {
                lines.push(format!("{host} let us in {what}."));
                lines.push("The match starts once everyone has arrived.".to_string());
            }
        }
    }
    if let Some(note) = &c.note {
        lines.push(note.clone());
    }
    let progress = match c.stage {
        Stage::Synchronizing { done, total } => Some((done, total.max(done))),
        Stage::Handshake => None,
    };
    status_screen(title, lines, progress)
}

/// A status screen with the cancel hint.
#[must_use]
pub fn status_screen(
    title: &str,
    lines: Vec<String>,
    progress: Option<(u32, u32)>,
) -> StatusScreen {
    StatusScreen {
        title: title.to_string(),
        lines,
        progress,
        hint: "Esc or B: cancel and back to the menu".to_string(),
    }
}

/// The menu inputs an SDL event gives. While a key is being bound (`wants_key`) any key
/// press is that key; while an address is typed (`wants_text`) typed text arrives as
/// characters and only the arrows, Enter, Esc and Backspace steer. Otherwise arrows and WASD
/// move, Enter and Space pick, Esc and Backspace go back. A controller's D-pad moves, A or
/// Start picks, B or Back goes back.
#[must_use]
pub fn menu_inputs(event: &Event, wants_key: bool, wants_text: bool) -> Vec<MenuInput> {
    use MenuInput as M;
    match event {
        Event::KeyDown {
            scancode: Some(k),
            repeat,
            ..
        } => {
            if wants_key {
                return if *repeat {
                    Vec::new()
                } else {
                    vec![M::Key(*k)]
                };
            }
            let input = match k {
                Scancode::Up => Some(M::Up),
                Scancode::Down => Some(M::Down),
                Scancode::Left => Some(M::Left),
                Scancode::Right => Some(M::Right),
                Scancode::Return | Scancode::KpEnter => Some(M::Enter),
                Scancode::Escape => Some(M::Back),
                Scancode::Backspace if wants_text => Some(M::Backspace),
                _ if wants_text => None,
                Scancode::W => Some(M::Up),
                Scancode::S => Some(M::Down),
                Scancode::A => Some(M::Left),
                Scancode::D => Some(M::Right),
                Scancode::Space => Some(M::Enter),
                Scancode::Backspace => Some(M::Back),
                _ => None,
            };
            // Held arrows repeat (scrolling a long list); picking and leaving do not.
            match input {
                Some(M::Enter | M::Back) if *repeat => Vec::new(),
                Some(i) => vec![i],
                None => Vec::new(),
            }
        }
        Event::TextInput { text, .. } if wants_text => text.chars().map(M::Char).collect(),
        Event::ControllerButtonDown { button, .. } => {
            let input = match button {
                Button::DPadUp => M::Up,
                Button::DPadDown => M::Down,
                Button::DPadLeft => M::Left,
                Button::DPadRight => M::Right,
                Button::A | Button::Start => M::Enter,
                Button::B | Button::Back => M::Back,
                _ => return Vec::new(),
            };
            vec![input]
        }
        _ => Vec::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use sdl2::keyboard::Mod;

    fn key(k: Scancode, repeat: bool) -> Event {
        Event::KeyDown {
            timestamp: 0,
            window_id: 0,
            keycode: None,
            scancode: Some(k),
            keymod: Mod::NOMOD,
            repeat,
        }
    }

    fn pad(button: Button) -> Event {
        Event::ControllerButtonDown {
            timestamp: 0,
            which: 0,
            button,
        }
    }

    fn front_end(log_dir: Option<PathBuf>) -> FrontEnd {
        FrontEnd {
            rules: Rules {
                block_hp: 6,
                ..Rules::default()
            },
            seed: u64::MAX - 1,
            config_path: None,
            config_was_bad: false,
            log_dir,
        }
    }

    /// Each match takes the next seed (wrapping past the largest); an online one plays by
    /// the front end's rules, that seed and the settings' input delay.
    #[test]
    fn matches_take_seeds_in_turn_and_online_ones_the_settings_delay() {
        let mut f = front_end(None);
        assert_eq!(f.next_seed(), u64::MAX - 1);
        let config = Config {
            input_delay: 5,
            ..Config::default()
        };
        let net = f.net_config(&config);
        assert_eq!((net.seed, net.input_delay), (u64::MAX, 5));
        assert_eq!(net.rules, f.rules);
        assert_eq!(f.next_seed(), 0, "wraps");
    }

    /// Rejoining the last match gives up after the menu's join timeout (a rejoin is a
    /// join), whatever the client's default, and its status says when.
    #[test]
    fn a_rejoin_from_the_menu_gives_up_after_the_join_timeout() {
        use client::logs::matchlog::{LogHeader, MatchLogWriter, RejoinKey};
        let dir =
            std::env::temp_dir().join(format!("maze-duel-rejoin-wait-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let mut f = front_end(Some(dir.clone()));
        let world = World::new(f.rules.clone(), 3, 2).unwrap();
        let header = LogHeader {
            rejoin: Some(RejoinKey {
                slot: 1,
                // Nobody answers here: the rejoin only starts.
                peer: "127.0.0.1:9".into(),
                secret: client::net::seal::MatchSecret::from_bytes([7; 32]),
            }),
            ..LogHeader::for_game(&world, "join", None)
        };
        let cut = dir.join("join.duellog");
        MatchLogWriter::create(&cut, &header, &world, 300)
            .unwrap()
            .sync()
            .unwrap();
        let mut menu = Menu::new(Config::default());
        let Next::Rejoin(rejoin, log) = f.rejoin_last(&mut menu) else {
            panic!("no rejoin started: {:?}", menu.screen);
        };
        assert_eq!(log, cut);
        assert_eq!(rejoin.rejoining().gives_up_after(), JOIN_TIMEOUT);
        let status = rejoin_status(rejoin.rejoining(), &log);
        assert_eq!(status.lines[1], "with join.duellog");
        assert!(
            status.lines[3].ends_with(" s, giving up after 30 s)"),
            "{:?}",
            status.lines
        );
        let _ = std::fs::remove_dir_all(&dir);
    }

    /// Logs go to `<log_dir>/<mode>-seed<seed>-<time>.duellog`, the folder made on the way;
    /// without a folder there is no log.
    #[test]
    fn match_logs_are_named_for_mode_and_seed_in_their_folder() {
        assert_eq!(front_end(None).log_path("host", 3).unwrap(), None);
        let dir = std::env::temp_dir().join(format!("maze-duel-logs-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let folder = dir.join("logs");
        let path = front_end(Some(folder.clone()))
            .log_path("vs-bot", 42)
            .unwrap()
            .expect("a path");
        assert!(folder.is_dir(), "made");
        assert_eq!(path.parent(), Some(folder.as_path()));
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let stamp = name
            .strip_prefix("vs-bot-seed42-")
            .and_then(|rest| rest.strip_suffix(".duellog"))
            .unwrap_or_else(|| panic!("{name}"));
        assert!(
            stamp.parse::<u64>().is_ok_and(|s| s > 1_600_000_000),
            "{name}"
        );
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn the_menu_rests_out_the_rest_of_its_frame() {
        let ms = Duration::from_millis;
        assert_eq!(frame_rest(ms(16), ms(10)), ms(6));
        assert_eq!(frame_rest(ms(16), ms(16)), Duration::ZERO);
        assert_eq!(frame_rest(ms(16), ms(40)), Duration::ZERO);
    }

    /// The keyboard and a controller give the same menu inputs.
    #[test]
    fn keys_and_pad_buttons_map_to_the_same_inputs() {
        let pairs = [
            (Scancode::Up, Button::DPadUp, MenuInput::Up),
            (Scancode::Down, Button::DPadDown, MenuInput::Down),
            (Scancode::Left, Button::DPadLeft, MenuInput::Left),
            (Scancode::Right, Button::DPadRight, MenuInput::Right),
            (Scancode::Return, Button::A, MenuInput::Enter),
            (Scancode::Escape, Button::B, MenuInput::Back),
        ];
        for (k, b, want) in pairs {
            assert_eq!(menu_inputs(&key(k, false), false, false), [want], "{k:?}");
            assert_eq!(menu_inputs(&pad(b), false, false), [want], "{b:?}");
        }
        // The other keys and buttons for the same inputs: WASD, Space, Backspace, keypad
        // Enter, Start and Back.
        let keys = [
            (Scancode::W, MenuInput::Up),
            (Scancode::S, MenuInput::Down),
            (Scancode::A, MenuInput::Left),
            (Scancode::D, MenuInput::Right),
            (Scancode::Space, MenuInput::Enter),
            (Scancode::KpEnter, MenuInput::Enter),
            (Scancode::Backspace, MenuInput::Back),
        ];
        for (k, want) in keys {
            assert_eq!(menu_inputs(&key(k, false), false, false), [want], "{k:?}");
        }
        for (b, want) in [
            (Button::Start, MenuInput::Enter),
            (Button::Back, MenuInput::Back),
        ] {
            assert_eq!(menu_inputs(&pad(b), false, false), [want], "{b:?}");
        }
        assert_eq!(menu_inputs(&key(Scancode::Q, false), false, false), []);
        assert_eq!(menu_inputs(&pad(Button::X), false, false), []);
    }

    #[test]
    fn held_keys_repeat_moves_but_not_picks() {
        assert_eq!(
            menu_inputs(&key(Scancode::Down, true), false, false),
            [MenuInput::Down]
        );
        assert_eq!(menu_inputs(&key(Scancode::Return, true), false, false), []);
    }

    #[test]
    fn typing_and_binding_take_the_keys_for_themselves() {
        // Typing an address: letters are text (from TextInput), not moves or picks.
        assert_eq!(menu_inputs(&key(Scancode::W, false), false, true), []);
        assert_eq!(menu_inputs(&key(Scancode::Space, false), false, true), []);
        assert_eq!(
            menu_inputs(&key(Scancode::Backspace, false), false, true),
            [MenuInput::Backspace]
        );
        let text = Event::TextInput {
            timestamp: 0,
            window_id: 0,
            text: "a:1".into(),
        };
        assert_eq!(
            menu_inputs(&text, false, true),
            [
                MenuInput::Char('a'),
                MenuInput::Char(':'),
                MenuInput::Char('1')
            ]
        );
        assert_eq!(
            menu_inputs(&text, false, false),
            [],
            "text only while typing"
        );
        // Binding: any key is the key, Esc included (the menu reads it as cancel).
        assert_eq!(
            menu_inputs(&key(Scancode::Up, false), true, false),
            [MenuInput::Key(Scancode::Up)]
        );
        assert_eq!(
            menu_inputs(&key(Scancode::Escape, false), true, false),
            [MenuInput::Key(Scancode::Escape)]
        );
    }
}
