//! The menu, the waiting screen and the disconnect screen, rendered off-screen (a software
//! surface) and read back: the words are where they should be, in the colours that say what
//! they are (the highlighted item in the accent colour, a refusal in red). And the menu's
//! online path, host and joiner polled frame by frame as the window does: they meet, and a
//! refusal comes back with its reason.
//!
//! Set `MENU_PNG_DIR` to also write each rendered screen there as a PNG, to look at.

#[path = "support/text.rs"]
mod text;

use client::net::wire::Role;
use client::session::netplay::NetConfig;
use engine::Rules;
use engine::World;
use sample_game::menu::online::{Connection, Poll};
use sample_game::menu::Screen;
use sample_game::{
    draw::palette, render_menu_to_rgba, render_status_to_rgba, status_of, App, AppOptions,
    BitmapFont, Config, Effects, FrontEnd, KeyBindings, LocalMatch, MatchSource, Menu, MenuInput,
    Overlay, Renderer, Scene, ShownView,
};
use sdl2::pixels::{Color, PixelFormatEnum};
use sdl2::surface::Surface;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

const SIZE: (u32, u32) = (960, 600);

struct Frame {
    width: u32,
    height: u32,
    rgba: Vec<u8>,
}

impl Frame {
    fn new(rgba: Vec<u8>, name: &str) -> Frame {
        if let Some(dir) = std::env::var_os("MENU_PNG_DIR") {
            let path = std::path::Path::new(&dir).join(format!("{name}.png"));
            sample_game::write_png(&path, SIZE, &rgba).expect("png");
        }
        Frame {
            width: SIZE.0,
            height: SIZE.1,
            rgba,
        }
    }

    fn is(&self, x: i32, y: i32, c: Color) -> bool {
        if x < 0 || y < 0 || x >= self.width as i32 || y >= self.height as i32 {
            return false;
        }
        let i = (y as usize * self.width as usize + x as usize) * 4;
        self.rgba[i..i + 3] == [c.r, c.g, c.b]
    }

    /// Where `text` is drawn in colour `c` (every lit font pixel `c`, every unlit one not).
    fn find_text(&self, text: &str, c: Color) -> Option<(i32, i32, u32)> {
        let font = BitmapFont::embedded();
        text::find_text(&font, text, c, 8, (self.width, self.height), |x, y, c| {
            self.is(x, y, c)
        })
    }

    fn has(&self, text: &str, c: Color) -> bool {
        self.find_text(text, c).is_some()
    }
}

fn menu_frame(menu: &Menu, name: &str) -> Frame {
    Frame::new(
        render_menu_to_rgba(menu, SIZE, &Renderer::default()).expect("renders"),
        name,
    )
}

#[test]
fn the_title_menu_lists_every_mode_and_highlights_the_choice() {
    let mut menu = Menu::new(Config::default());
    let frame = menu_frame(&menu, "menu");
    assert!(frame.has("MAZE DUEL", palette::ACCENT));
    assert!(
        frame.has("Local: 2 players", palette::ACCENT),
        "highlighted"
    );
    for item in [
        "Vs bot: < normal >",
        "Host online",
        "Join online",
        "Spectate",
        "Replays",
    ] {
        assert!(frame.has(item, palette::TEXT), "{item}");
    }
    menu.handle(MenuInput::Down);
    menu.handle(MenuInput::Left);
    let frame = menu_frame(&menu, "menu-vs-bot");
    assert!(frame.has("Local: 2 players", palette::TEXT));
    assert!(frame.has("Vs bot: < easy >", palette::ACCENT));
}

#[test]
fn options_keys_and_the_address_field_show_their_values() {
    let mut menu = Menu::new(Config::default());
    menu.screen = Screen::Options;
    menu.handle(MenuInput::Right);
    let frame = menu_frame(&menu, "options");
    assert!(frame.has("Input delay: < 3 frames >", palette::ACCENT));
    assert!(frame.has("Fullscreen: < off >", palette::TEXT));
    assert!(frame.has("ICE servers: < public STUN >", palette::TEXT));
    menu.screen = Screen::Keys;
    menu.keys_row = 4;
    let frame = menu_frame(&menu, "keys");
    assert!(frame.has("P1 shoot   F", palette::ACCENT));
    assert!(frame.has("P2 up      Up", palette::TEXT));
    menu.screen = Screen::Address { spectate: false };
    for c in "10.0.0.2".chars() {
        menu.handle(MenuInput::Char(c));
    }
    menu.handle(MenuInput::Enter);
    let frame = menu_frame(&menu, "address");
    assert!(frame.has("10.0.0.2_", palette::ACCENT));
    assert!(frame.has("has no port", palette::DANGER));
}

#[test]
fn a_refusal_is_shown_in_red_with_the_way_back() {
    let mut menu = Menu::new(Config::default());
    menu.notice("REFUSED", "the match is full");
    let frame = menu_frame(&menu, "refused");
    assert!(frame.has("REFUSED", palette::DANGER));
    assert!(frame.has("the match is full", palette::TEXT));
    assert!(frame.has("Enter or Esc: back to the menu", palette::TEXT_DIM));
}

#[test]
fn the_waiting_screen_shows_the_address_to_share() {
    let host = Connection::host(NetConfig::<World>::default()).expect("binds a port");
    let port = host.local_addr().port();
    let status = status_of(&host);
    let frame = Frame::new(
        render_status_to_rgba(&status, SIZE, &Renderer::default()).expect("renders"),
        "waiting",
    );
    assert!(frame.has("WAITING FOR OPPONENT", palette::ACCENT));
    assert!(frame.has("Share this address with the other player:", palette::TEXT));
    let local = format!("127.0.0.1:{port} (this computer)");
    assert!(frame.has(&local, palette::TEXT), "{local}");
    assert!(frame.has("Esc or B: cancel and back to the menu", palette::TEXT_DIM));
}

#[test]
fn the_disconnect_screen_says_why_and_leads_back_to_the_menu() {
    let mut source = LocalMatch::new(Rules::default(), 7)
        .expect("match")
        .with_bots(&[0, 1]);
    for _ in 0..30 {
        source.advance(&[]).expect("steps");
    }
    let effects = Effects::new();
    let bindings = KeyBindings::default();
    let reason = "the other player (10.0.0.2:7000) disconnected at tick 903";
    let scene = Scene {
        current: source.current(),
        previous: source.previous(),
        alpha: 1.0,
        rules: source.rules(),
        shown: ShownView::default(),
        local_players: &[0],
        rail_debug: false,
        net: None,
        net_line: None,
        effects: &effects,
        overlay: Overlay::None,
        bindings: &bindings,
        controllers: &[],
        after_match: Default::default(),
        smoothing: None,
        ended: Some(reason),
        timeline: None,
        from_menu: true,
        training: None,
    };
    let surface = Surface::new(SIZE.0, SIZE.1, PixelFormatEnum::RGBA32).expect("surface");
    let mut canvas = surface.into_canvas().expect("canvas");
    Renderer::default()
        .draw(&mut canvas, &scene)
        .expect("draws");
    let rgba = canvas
        .read_pixels(None, PixelFormatEnum::RGBA32)
        .expect("pixels");
    let frame = Frame::new(rgba, "disconnected");
    assert!(frame.has("MATCH ENDED", palette::DANGER));
    assert!(frame.has("tick 903", palette::TEXT));
    assert!(frame.has("Esc: back to the menu", palette::TEXT_DIM));
    assert!(!frame.has("Esc to quit", palette::TEXT_DIM));
}

/// One frame of a peer that is ready: it plays its first frames (with no input) and then
/// only exchanges datagrams, so its history holds everything a later run would log.
fn play_on(peer: &mut client::session::netplay::NetPeer<World>) {
    if peer.world().tick() < 2 {
        let _ = peer.advance(engine::WireInput::default());
    } else {
        peer.poll();
    }
}

/// Polls until `done` gives a result, as the window does once per frame. The deadline is a
/// hang guard: passing it fails loudly.
fn poll_until<T>(what: &str, mut step: impl FnMut() -> Option<T>) -> T {
    let guard = Instant::now() + Duration::from_secs(30);
    loop {
        if let Some(out) = step() {
            return out;
        }
        assert!(Instant::now() < guard, "{what}: no result after 30 s");
        std::thread::sleep(Duration::from_millis(4));
    }
}

/// A host on this machine for a menu in the window to join, played from its own thread as
/// another player's window would: it answers the joiner, then advances with no input every
/// few milliseconds. Through `sender` it presses F12 until its world runs (any key dismisses
/// the controls shown at the start of the joiner's match, which holds the match until then),
/// puts `at_tick_20` on the joiner's queue once its world reaches tick 20, and closes the
/// window (an SDL `Quit`) once it has heard the joiner finish if `quit_after`. It ends when the
/// joiner has finished; `Err` says what never came within 30 s (the window is closed then
/// too, so the front end under test returns).
fn menu_host(
    seed: u64,
    at_tick_20: sdl2::event::Event,
    quit_after: bool,
    sender: sdl2::event::EventSender,
) -> (
    std::net::SocketAddr,
    std::thread::JoinHandle<Result<(), String>>,
) {
    use sdl2::event::Event;
    let mut host = Connection::host(NetConfig::<World> {
        seed,
        ..NetConfig::<World>::default()
    })
    .expect("host");
    let addr = std::net::SocketAddr::from(([127, 0, 0, 1], host.local_addr().port()));
    let push = move |event: Event| {
        let _ = sender.push_event(event);
    };
    let thread = std::thread::spawn(move || {
        let guard = Instant::now() + Duration::from_secs(30);
        let mut peer = loop {
            match host.poll() {
                Poll::Pending => {}
                Poll::Ready(peer) => break peer,
                Poll::Failed(e) | Poll::Refused(e) => {
                    push(Event::Quit { timestamp: 0 });
                    return Err(format!("hosting failed: {e}"));
                }
            }
            if Instant::now() > guard {
                push(Event::Quit { timestamp: 0 });
                return Err("no joiner came".to_string());
            }
            std::thread::sleep(Duration::from_millis(4));
        };
        let mut pressed = Instant::now() - Duration::from_secs(1);
        let mut end = Some(at_tick_20);
        loop {
            let _ = peer.advance(engine::WireInput::default());
            let tick = peer.world().tick();
            if tick < 10 && pressed.elapsed() > Duration::from_millis(100) {
                push(Event::KeyDown {
                    timestamp: 0,
                    window_id: 0,
                    keycode: None,
                    scancode: Some(sdl2::keyboard::Scancode::F12),
                    keymod: sdl2::keyboard::Mod::NOMOD,
                    repeat: false,
                });
                pressed = Instant::now();
            }
            if tick >= 20 {
                if let Some(event) = end.take() {
                    push(event);
                }
            }
            if peer.all_peers_finished() {
                if quit_after {
                    push(Event::Quit { timestamp: 0 });
                }
                return Ok(());
            }
            if Instant::now() > guard {
                push(Event::Quit { timestamp: 0 });
                return Err(format!("the joiner never finished (tick {tick})"));
            }
            std::thread::sleep(Duration::from_millis(4));
        }
    });
    (addr, thread)
}

#[test]
fn a_menu_host_and_a_menu_joiner_meet_polling_frame_by_frame() {
    let mut host = Connection::host(NetConfig::<World> {
        seed: 77,
        ..NetConfig::<World>::default()
    })
    .expect("host");
    let addr = std::net::SocketAddr::from(([127, 0, 0, 1], host.local_addr().port()));
    let mut joiner = Connection::join(
        addr,
        Role::Player,
        NetConfig::<World>::default(),
        Duration::from_secs(20),
    )
    .expect("joiner");
    let contacting = status_of(&joiner);
    assert_eq!(contacting.title, "CONNECTING");
    assert_eq!(contacting.lines[0], format!("Contacting {addr} to play"));
    assert!(
        contacting.lines[1].ends_with("s (giving up after 20 s)"),
        "{contacting:?}"
    );
    let (mut hosted, mut joined) = (None, None);
    let (a, b) = poll_until("host and joiner", || {
        for (c, slot) in [(&mut host, &mut hosted), (&mut joiner, &mut joined)] {
            match slot {
                None => match c.poll() {
                    Poll::Pending => {}
                    Poll::Ready(peer) => *slot = Some(peer),
                    Poll::Failed(e) | Poll::Refused(e) => panic!("failed: {e}"),
                },
                // A peer that is ready plays, as the window does (a host starts only once it
                // has heard the joiner's input).
                Some(peer) => play_on(peer),
            }
        }
        match (&hosted, &joined) {
            (Some(_), Some(_)) => Some((hosted.take().unwrap(), joined.take().unwrap())),
            _ => None,
        }
    });
    assert_eq!(a.agreement().match_seed, 77);
    assert_eq!(
        b.agreement().match_seed,
        77,
        "the joiner plays the host's seed"
    );
    assert_eq!((a.local_slot(), b.local_slot()), (Some(0), Some(1)));
}

#[test]
fn refusals_come_back_with_their_reason() {
    let mut host = Connection::host(NetConfig::<World>::default()).expect("host");
    let addr = std::net::SocketAddr::from(([127, 0, 0, 1], host.local_addr().port()));
    // Different rules: refused, naming the rules.
    let mut rules = Rules::default();
    rules.rounds_to_win += 1;
    let other = NetConfig::<World> {
        rules,
        ..NetConfig::<World>::default()
    };
    let mut joiner =
        Connection::join(addr, Role::Player, other, Duration::from_secs(20)).expect("joiner");
    let reason = poll_until("a rules mismatch", || {
        let _ = host.poll();
        match joiner.poll() {
            Poll::Refused(e) => Some(e),
            Poll::Pending => None,
            Poll::Failed(e) => panic!("failed instead of refused: {e}"),
            Poll::Ready(_) => panic!("joined with different rules"),
        }
    });
    assert!(
        reason.ends_with("rules differ: rounds_to_win 2 vs 3"),
        "{reason}"
    );
    // A menu host takes no spectators: refused at once, saying so.
    let mut watcher = Connection::join(
        addr,
        Role::Spectator,
        NetConfig::<World>::default(),
        Duration::from_secs(20),
    )
    .expect("spectator");
    let reason = poll_until("a spectator", || {
        let _ = host.poll();
        match watcher.poll() {
            Poll::Refused(e) => Some(e),
            Poll::Pending => None,
            Poll::Failed(e) => panic!("failed instead of refused: {e}"),
            Poll::Ready(_) => panic!("a full match took a spectator"),
        }
    });
    assert_eq!(
        reason,
        "spectator slots full: this host takes no spectators"
    );
    // Nobody there: the OS says so (port unreachable), and the joiner gives up at once,
    // naming the port, well before its 20 s.
    drop(host);
    let mut lonely = Connection::join(
        addr,
        Role::Player,
        NetConfig::<World>::default(),
        Duration::from_secs(20),
    )
    .expect("joiner");
    let reason = poll_until("no host", || match lonely.poll() {
        Poll::Failed(e) => Some(e),
        Poll::Pending => None,
        Poll::Refused(e) => panic!("refused by nobody: {e}"),
        Poll::Ready(_) => panic!("joined nobody"),
    });
    assert!(
        reason.contains(&format!("nothing listens on UDP port {}", addr.port())),
        "{reason}"
    );
}

/// The whole window loop, driven by pushed events on SDL's offscreen driver: a controller
/// hosts and cancels, the keyboard opens the replays and picks a corrupt log (an error screen,
/// not a crash), the controller lowers the volume in the options (saved to the settings file),
/// and closing the window ends the loop.
#[test]
fn the_window_runs_the_menu_from_keys_and_a_controller() {
    use sdl2::controller::Button;
    use sdl2::event::Event;
    use sdl2::keyboard::{Mod, Scancode};
    std::env::set_var("SDL_VIDEODRIVER", "offscreen");
    std::env::set_var("SDL_AUDIODRIVER", "dummy");
    let dir = std::env::temp_dir().join(format!("maze-duel-front-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("matches")).expect("dir");
    std::fs::write(dir.join("matches/bad.duellog"), "not a log").expect("log");
    let options = AppOptions {
        window_size: SIZE,
        software: true,
        volume: 0,
        // A match started from the menu ends after this (its length is not what is tested).
        run_for: Some(Duration::from_millis(200)),
        ..AppOptions::default()
    };
    let mut app = App::new(options, Renderer::default()).expect("offscreen window");
    let mut front = FrontEnd {
        rules: Rules::default(),
        seed: 1,
        config_path: Some(dir.join("config.toml")),
        config_was_bad: false,
        log_dir: Some(dir.join("matches")),
    };
    let key = |k| Event::KeyDown {
        timestamp: 0,
        window_id: 0,
        keycode: None,
        scancode: Some(k),
        keymod: Mod::NOMOD,
        repeat: false,
    };
    let pad = |button| Event::ControllerButtonDown {
        timestamp: 0,
        which: 0,
        button,
    };
    // The window takes the settings it opens the menu with: sound on, the screen covered,
    // the first player's keys swapped.
    let mut settings = Config {
        fullscreen: true,
        ..Config::default()
    };
    let keys = &mut settings.bindings.players[0];
    std::mem::swap(&mut keys.up, &mut keys.down);
    let window = |app: &App| {
        let options = app.options();
        (
            options.volume,
            app.is_fullscreen(),
            options.bindings.clone(),
        )
    };
    assert_ne!(
        window(&app),
        (70, true, settings.bindings.clone()),
        "not yet"
    );
    let mut menu = Menu::new(settings.clone());
    front.run_until_idle(&mut app, &mut menu).expect("runs");
    assert_eq!(window(&app), (70, true, settings.bindings.clone()));
    menu.config.fullscreen = false;
    front.run_until_idle(&mut app, &mut menu).expect("runs");
    assert!(!app.is_fullscreen(), "back to a window");
    let script = [
        pad(Button::DPadDown),
        pad(Button::DPadDown),
        pad(Button::A), // Host: the waiting screen...
        pad(Button::B), // ...cancelled.
        key(Scancode::Down),
        key(Scancode::Down),
        key(Scancode::Down),
        key(Scancode::Down),
        key(Scancode::Return), // Replays...
        key(Scancode::Return), // ...the corrupt log.
    ];
    for event in script {
        app.push_event(event).expect("push");
    }
    front.run_until_idle(&mut app, &mut menu).expect("runs");
    let Screen::Notice { title, text } = &menu.screen else {
        panic!("expected the error screen, got {:?}", menu.screen)
    };
    assert_eq!(title, "CANNOT PLAY THIS REPLAY");
    assert!(
        text.contains("bad.duellog") && text.contains("not a match log"),
        "{text}"
    );
    // Rejoin last match: the folder holds no unfinished online match of a player.
    let script = [
        pad(Button::B), // back to the title
        key(Scancode::Up),
        key(Scancode::Return), // Rejoin last match
    ];
    for event in script {
        app.push_event(event).expect("push");
    }
    front.run_until_idle(&mut app, &mut menu).expect("runs");
    let Screen::Notice { title, text } = &menu.screen else {
        panic!("expected the notice, got {:?}", menu.screen)
    };
    assert_eq!(title, "NOTHING TO REJOIN");
    assert!(text.contains("no unfinished online match"), "{text}");
    let script = [
        pad(Button::B), // back to the title
        pad(Button::DPadDown),
        pad(Button::DPadDown),
        pad(Button::DPadDown),
        pad(Button::A), // Options (past Replays and Training)
        pad(Button::DPadDown),
        pad(Button::DPadDown),
        pad(Button::DPadLeft), // volume 70 -> 60
        Event::Quit { timestamp: 0 },
    ];
    for event in script {
        app.push_event(event).expect("push");
    }
    front
        .run(&mut app, &mut menu)
        .expect("runs until the window closes");
    assert_eq!(menu.screen, Screen::Options);
    let saved = std::fs::read_to_string(dir.join("config.toml")).expect("settings saved");
    assert!(saved.contains("volume = 60"), "{saved}");
    assert_eq!(Config::load(&dir.join("config.toml")).config.volume, 60);
    // Vs bot from the title: a match against the bot (it ends after `run_for`), logged under
    // the bot's level, then back to the title.
    let mut script = vec![pad(Button::B)]; // back to the title, on Options
    script.extend(std::iter::repeat_n(key(Scancode::Up), 7)); // up to Vs bot
    script.push(key(Scancode::Return));
    for event in script {
        app.push_event(event).expect("push");
    }
    front.run_until_idle(&mut app, &mut menu).expect("runs");
    assert_eq!(menu.screen, Screen::Main);
    let logs: Vec<String> = std::fs::read_dir(dir.join("matches"))
        .expect("logs")
        .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
        .filter(|name| name != "bad.duellog")
        .collect();
    assert_eq!(logs.len(), 1, "{logs:?}");
    assert!(logs[0].starts_with("local-vs-bot-normal-seed"), "{logs:?}");
    assert!(
        app.options().controls_at_start,
        "a match with a local player shows them"
    );
    // Its replay, the newest in the list: nobody plays, so no controls at the start.
    let mut script = vec![key(Scancode::Down); 5]; // down to Replays
    script.extend([key(Scancode::Return), key(Scancode::Return)]);
    for event in script {
        app.push_event(event).expect("push");
    }
    front.run_until_idle(&mut app, &mut menu).expect("runs");
    assert_eq!(menu.screen, Screen::Main, "the replay played and ended");
    assert!(
        !app.options().controls_at_start,
        "a replay has no local player"
    );
    // Online through the front end's own loop (`run`), against a host on this machine that
    // plays from another thread. A watchdog closes the window if `run` has not returned after
    // a minute, so a front end that would go on for ever fails the test instead of hanging it.
    let sender = app.event_sender().expect("event sender");
    let done = Arc::new(AtomicBool::new(false));
    let fired = Arc::new(AtomicBool::new(false));
    let watchdog = {
        let (done, fired, sender) = (
            done.clone(),
            fired.clone(),
            app.event_sender().expect("sender"),
        );
        std::thread::spawn(move || {
            let start = Instant::now();
            while !done.load(Ordering::SeqCst) {
                std::thread::sleep(Duration::from_millis(20));
                if start.elapsed() > Duration::from_secs(60) {
                    fired.store(true, Ordering::SeqCst);
                    let _ = sender.push_event(Event::Quit { timestamp: 0 });
                    std::thread::sleep(Duration::from_millis(500));
                }
            }
        })
    };
    let join_logs = || {
        let mut names: Vec<String> = std::fs::read_dir(dir.join("matches"))
            .expect("logs")
            .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
            .filter(|name| name.starts_with("join-"))
            .collect();
        names.sort();
        names
    };
    // Matches end only as the host's thread makes them end, not after `run_for`.
    app.set_run_for(None);
    assert_eq!(app.options().run_for, None);
    // 1. A match left with the quit key (the window stays open) leads back to the menu,
    // which goes on: the host closes the window only once it has heard the joiner finish,
    // so that `Quit` reaches the menu, and `run` returns on it.
    let (addr, host) = menu_host(
        77,
        key(Scancode::Escape),
        true,
        app.event_sender().expect("sender"),
    );
    menu.address = addr.to_string();
    menu.main_row = 3; // Join online
    for event in [key(Scancode::Return), key(Scancode::Return)] {
        app.push_event(event).expect("push");
    }
    front
        .run(&mut app, &mut menu)
        .expect("runs until the window closes");
    assert_eq!(
        host.join().expect("host"),
        Ok(()),
        "the host heard the joiner finish"
    );
    assert!(
        !fired.load(Ordering::SeqCst),
        "the menu returned on the host's Quit"
    );
    let logs = join_logs();
    assert_eq!(logs.len(), 1, "{logs:?}");
    assert!(logs[0].starts_with("join-seed77"), "{logs:?}");
    assert_eq!(menu.screen, Screen::Main);
    // The `Quit` was taken by the menu, not left on the queue: the next key is the menu's.
    app.push_event(key(Scancode::Down)).expect("push");
    front.run_until_idle(&mut app, &mut menu).expect("runs");
    assert_eq!(menu.main_row, 4, "the key after the Quit moved the menu");
    // 2. Closing the window during an online match closes the game.
    let (addr, host) = menu_host(78, Event::Quit { timestamp: 0 }, false, sender);
    menu.address = addr.to_string();
    menu.main_row = 3;
    for event in [key(Scancode::Return), key(Scancode::Return)] {
        app.push_event(event).expect("push");
    }
    front
        .run(&mut app, &mut menu)
        .expect("runs until the window closes");
    done.store(true, Ordering::SeqCst);
    watchdog.join().expect("watchdog");
    assert!(
        !fired.load(Ordering::SeqCst),
        "closing the window in an online match closed the game"
    );
    assert_eq!(
        host.join().expect("host"),
        Ok(()),
        "the joiner finished its match"
    );
    let logs = join_logs();
    assert_eq!(logs.len(), 2, "{logs:?}");
    assert!(logs[1].starts_with("join-seed78"), "{logs:?}");
    std::fs::remove_dir_all(&dir).expect("clean up");
}

/// A joiner that is welcomed and then vanishes (or a stranger's `Hello` that takes the slot)
/// does not hold a menu host hostage: once synchronization times out the host says so, waits
/// again, and a real joiner gets in.
#[test]
fn a_host_whose_joiner_vanishes_waits_for_another() {
    use sample_game::menu::online::Stage;
    let config = NetConfig::<World> {
        sync_timeout: Duration::from_millis(300),
        ..NetConfig::<World>::default()
    };
    let mut host = Connection::host(config.clone()).expect("host");
    let addr = std::net::SocketAddr::from(([127, 0, 0, 1], host.local_addr().port()));
    let ghost = std::thread::spawn(move || {
        let link = client::session::netplay::open_link(
            std::net::SocketAddr::from(([127, 0, 0, 1], 0)),
            Default::default(),
        )
        .expect("ghost link");
        let info = client::net::wire::PeerInfo::local::<World>(&Rules::default());
        client::net::handshake::join(
            &link,
            &info,
            addr,
            Role::Player,
            None,
            Duration::from_secs(20),
        )
        .expect("the ghost is welcomed")
        // ...and its socket closes here.
    });
    poll_until("the ghost's welcome", || {
        assert!(matches!(host.poll(), Poll::Pending));
        ghost.is_finished().then_some(())
    });
    ghost.join().expect("ghost thread");
    poll_until("the host to give up on the ghost", || {
        assert!(matches!(host.poll(), Poll::Pending));
        (host.stage == Stage::Handshake && host.note.is_some()).then_some(())
    });
    assert!(host
        .note
        .as_deref()
        .unwrap()
        .contains("did not synchronize"));
    let mut joiner =
        Connection::join(addr, Role::Player, config, Duration::from_secs(20)).expect("joiner");
    let (mut hosted, mut joined) = (false, None);
    poll_until("a real joiner", || {
        if !hosted {
            match host.poll() {
                Poll::Ready(_) => hosted = true,
                Poll::Failed(e) | Poll::Refused(e) => panic!("host failed: {e}"),
                Poll::Pending => {}
            }
        }
        match &mut joined {
            None => match joiner.poll() {
                Poll::Ready(peer) => joined = Some(peer),
                Poll::Failed(e) | Poll::Refused(e) => panic!("joiner failed: {e}"),
                Poll::Pending => {}
            },
            Some(peer) => play_on(peer),
        }
        (hosted && joined.is_some()).then_some(())
    });
}

/// A welcomed spectator waits for the host to start as long as its own time limit allows, not
/// just the sync timeout: a host waiting for its player starts GGRS only once everyone has
/// arrived (as `NetPeer::join_on` allows for the command line).
#[test]
fn a_welcomed_spectator_waits_for_the_player_to_arrive() {
    use sample_game::menu::online::Stage;
    let sync = Duration::from_millis(300);
    let (port_tx, port_rx) = std::sync::mpsc::channel();
    let host = std::thread::spawn(move || {
        let link = client::session::netplay::open_link(
            std::net::SocketAddr::from(([127, 0, 0, 1], 0)),
            Default::default(),
        )
        .expect("host link");
        port_tx.send(link.borrow().local_addr()).expect("port");
        let config = NetConfig::<World> {
            spectators: 1,
            handshake_timeout: Duration::from_secs(20),
            ..NetConfig::<World>::default()
        };
        let mut peer = client::session::netplay::NetPeer::host_on(link, &config).expect("host");
        // Keep answering until the others are surely running too.
        let until = Instant::now() + Duration::from_secs(2);
        while Instant::now() < until {
            peer.poll();
            std::thread::sleep(Duration::from_millis(2));
        }
    });
    let addr = port_rx.recv().expect("host address");
    let config = NetConfig::<World> {
        sync_timeout: sync,
        ..NetConfig::<World>::default()
    };
    let mut watcher = Connection::join(
        addr,
        Role::Spectator,
        config.clone(),
        Duration::from_secs(20),
    )
    .expect("spectator");
    poll_until("the spectator's welcome", || match watcher.poll() {
        Poll::Pending => (watcher.stage != Stage::Handshake).then_some(()),
        _ => panic!("the spectator finished before the player arrived"),
    });
    // Longer than the sync timeout, with nobody else there yet: still waiting.
    let past = Instant::now() + sync * 3;
    while Instant::now() < past {
        assert!(matches!(watcher.poll(), Poll::Pending), "gave up too early");
        std::thread::sleep(Duration::from_millis(4));
    }
    assert_eq!(status_of(&watcher).title, "SYNCHRONIZING");
    let mut player =
        Connection::join(addr, Role::Player, config, Duration::from_secs(20)).expect("player");
    let (mut watching, mut playing) = (None, None);
    poll_until("the player and the spectator", || {
        for (c, done) in [(&mut watcher, &mut watching), (&mut player, &mut playing)] {
            if done.is_none() {
                match c.poll() {
                    Poll::Ready(peer) => *done = Some(peer),
                    Poll::Pending => {}
                    Poll::Failed(e) | Poll::Refused(e) => panic!("{e}"),
                }
            }
        }
        (watching.is_some() && playing.is_some()).then_some(())
    });
    // Keep both answering until the host has synchronized with them too.
    let (mut watching, mut playing) = (watching.unwrap(), playing.unwrap());
    poll_until("the host", || {
        watching.poll();
        play_on(&mut playing);
        host.is_finished().then_some(())
    });
    host.join().expect("the host synchronized with both");
}

/// Issue 11 in the menu: two players type the same room link (`ws://HOST:PORT/ROOM?secret=S`) into the
/// join field; polled frame by frame, the room makes one of them host, their screens say so,
/// and both get a running peer of the same match. A malformed link is refused under the field.
#[test]
fn two_menu_players_meet_in_a_webrtc_room_by_its_link() {
    let server = client::net::signal::SignalServer::start("127.0.0.1:0".parse().expect("addr"))
        .expect("signalling server");
    // A link with its room's secret, as `duel-cli online` prints it (issue 17).
    let secret = client::net::room_secret::RoomSecret::generate().expect("random");
    let link = format!("{}/menu-room?secret={}", server.url(), secret.as_str());
    assert_eq!(sample_game::menu::address_problem(&link), None, "{link}");
    assert!(sample_game::menu::address_problem("ws://127.0.0.1:3536/").is_some());
    assert!(sample_game::menu::address_problem("ws://127.0.0.1:3536/r?secret=short").is_some());
    let timeout = Duration::from_secs(60);
    let open = || {
        let ice = client::net::webrtc::IceServers::default();
        Connection::room(
            &link,
            Role::Player,
            ice,
            NetConfig::<World>::default(),
            timeout,
        )
        .expect("room link")
    };
    let (mut a, mut b) = (open(), open());
    assert_eq!(status_of(&a).title, "ENTERING ROOM");
    let (mut peer_a, mut peer_b) = (None, None);
    let mut titles = Vec::new();
    poll_until("two players in a room", || {
        for (c, peer) in [(&mut a, &mut peer_a), (&mut b, &mut peer_b)] {
            match peer {
                None => match c.poll() {
                    Poll::Pending => titles.push(status_of(c).title),
                    Poll::Ready(p) => *peer = Some(p),
                    Poll::Refused(e) | Poll::Failed(e) => panic!("{e}"),
                },
                Some(p) => play_on(p),
            }
        }
        (peer_a.is_some() && peer_b.is_some()).then_some(())
    });
    let (pa, pb) = (peer_a.expect("a"), peer_b.expect("b"));
    let mut slots = [pa.local_slot(), pb.local_slot()];
    slots.sort();
    assert_eq!(slots, [Some(0), Some(1)], "one host, one joiner");
    assert_eq!(pa.agreement().match_seed, pb.agreement().match_seed);
    assert!(
        titles.contains(&"WAITING FOR OPPONENT".to_string()),
        "{titles:?}"
    );
}

/// "Rejoin last match" takes the newest log of an online match this side played that never
/// ended: not a finished one, not a bot match's.
#[test]
fn rejoin_last_match_finds_the_newest_unfinished_log_of_an_online_player() {
    use client::logs::matchlog::{LogHeader, MatchLogWriter, RejoinKey};
    let dir = std::env::temp_dir().join(format!("maze-duel-rejoin-last-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("dir");
    client::runs::run_bot_match(&client::runs::BotMatch {
        rules: Rules::default(),
        seed: 3,
        bot_seed: 4,
        players: 2,
        ticks: 30,
        stop_at_match_end: false,
        hash_log: None,
        match_log: Some(dir.join("bot.duellog")),
    })
    .expect("bot match");
    assert_eq!(sample_game::last_unfinished_match(&dir), None);
    let world = engine::World::new(Rules::default(), 3, 2).expect("world");
    // A local match cut short has no rejoin key: there is no one to rejoin.
    let local = LogHeader::for_game(&world, "local", None);
    let mut writer =
        MatchLogWriter::create(&dir.join("local.duellog"), &local, &world, 300).expect("create");
    writer.sync().expect("sync");
    drop(writer);
    assert_eq!(sample_game::last_unfinished_match(&dir), None);
    let header = LogHeader {
        rejoin: Some(RejoinKey {
            slot: 1,
            peer: "127.0.0.1:7000".into(),
            secret: client::net::seal::MatchSecret::from_bytes([7; 32]),
        }),
        ..LogHeader::for_game(&world, "join", None)
    };
    let cut = dir.join("join.duellog");
    let mut writer = MatchLogWriter::create(&cut, &header, &world, 300).expect("create");
    writer.sync().expect("sync");
    drop(writer);
    assert_eq!(sample_game::last_unfinished_match(&dir), Some(cut.clone()));
    let _ = std::fs::remove_dir_all(&dir);
}
