//! `App`: the SDL window and its loop.
//!
//! The simulation runs at a fixed 60 Hz off an accumulator: each frame adds the wall time it
//! took, and whole ticks are run while a tick's worth is banked. Rendering happens once per
//! frame at the display's rate (vsync, or SDL's simulated vsync where there is none), drawing
//! moving things `alpha = banked / tick` of the way from the previous tick to the current one.
//! Wall time only decides *when* ticks run, never what they compute.

use crate::draw::layout::Layout;
use crate::draw::renderer::Renderer;
use crate::draw::scene::{Overlay, Scene};
use crate::draw::timeline::seek_target;
use crate::input::key_bindings::KeyBindings;
use crate::input::local_input::LocalInput;
use crate::matches::match_source::{MatchSource, SourceCommand};
use crate::matches::pacing::{PacingRecorder, PacingReport};
use crate::present::effects::Effects;
use crate::present::remote_view::{alpha_256, ShownView};
use crate::present::smoothing::Smoother;
use crate::present::sound::{AudioOut, Mixer, SoundDirector};
use anyhow::anyhow;
use engine::{InputCmd, RoundPhase, TICKS_PER_SECOND};
use sdl2::controller::Button;
use sdl2::event::Event;
use sdl2::keyboard::Scancode;
use sdl2::render::WindowCanvas;
use sdl2::{EventPump, GameControllerSubsystem, Sdl, VideoSubsystem};
use std::time::{Duration, Instant};

/// The most wall time one frame may bank. After a stall (a dragged window, a debugger) the game
/// skips ahead at most this much instead of fast-forwarding through seconds of ticks.
const MAX_CATCH_UP: Duration = Duration::from_millis(250);

/// `SDL_RENDERER_PRESENTVSYNC`.
const PRESENT_VSYNC_FLAG: u32 = 0x0000_0004;

/// How the window loop behaves.
#[derive(Clone, Debug, PartialEq)]
pub struct AppOptions {
    /// Window title.
    pub title: String,
    /// Initial window size.
    pub window_size: (u32, u32),
    /// Force the software renderer.
    pub software: bool,
    /// Show the controls screen until the first key press.
    pub controls_at_start: bool,
    /// Stop after this much wall time (pacing runs); `None`: run until the player quits.
    pub run_for: Option<Duration>,
    /// Start the next match by itself this many ticks after one is decided (unattended runs).
    pub auto_rematch_after: Option<u32>,
    /// Show the rail debug overlay from the start (F3 toggles it).
    pub rail_debug: bool,
    /// Sound volume, 0..=100 (0: no audio device is opened at all).
    pub volume: u8,
    /// The keys.
    pub bindings: KeyBindings,
}

impl Default for AppOptions {
    fn default() -> AppOptions {
        AppOptions {
            title: "Maze Duel".into(),
            window_size: (1280, 800),
            software: false,
            controls_at_start: true,
            run_for: None,
            auto_rematch_after: None,
            rail_debug: false,
            volume: 70,
            bindings: KeyBindings::default(),
        }
    }
}

/// How a match run by [`App::run_match`] ended.
#[derive(Debug)]
pub struct MatchEnd {
    /// The frame pacing measured.
    pub report: PacingReport,
    /// Why the match ended early (a peer left or refused, the session failed), if it did.
    pub ended: Option<anyhow::Error>,
    /// Whether the player closed the window (rather than leaving with Esc).
    pub window_closed: bool,
}

/// What one match's window loop carries from frame to frame.
struct MatchLoop {
    window_closed: bool,
    /// One tick of wall time, and the wall time banked toward the next.
    tick: Duration,
    banked: Duration,
    last: Instant,
    last_present: Instant,
    effects: Effects,
    overlay: Overlay,
    show_net: bool,
    rail_debug: bool,
    /// Ticks since the match was decided.
    decided_for: u32,
    pacing: PacingRecorder,
    director: SoundDirector,
    smoother: Smoother,
    rolled_back: bool,
    /// Why the match ended early (a peer left, refused, or the session failed): shown in the
    /// window until the player closes it, then returned as the run's error.
    ended: Option<anyhow::Error>,
    /// What the last presented frame showed of the remote players: what a rail press sampled
    /// now was aimed at.
    shown: ShownView,
    bindings: KeyBindings,
    /// A new match began from the result screen: the window title names it.
    retitle: bool,
}

impl MatchLoop {
    fn new(options: &AppOptions) -> MatchLoop {
        let now = Instant::now();
        MatchLoop {
            window_closed: false,
            tick: Duration::from_secs(1) / TICKS_PER_SECOND,
            banked: Duration::ZERO,
            last: now,
            last_present: now,
            effects: Effects::new(),
            overlay: if options.controls_at_start {
                Overlay::Controls { at_start: true }
            } else {
                Overlay::None
            },
            show_net: false,
            rail_debug: options.rail_debug,
            decided_for: 0,
            pacing: PacingRecorder::new(),
            director: SoundDirector::default(),
            smoother: Smoother::new(),
            rolled_back: false,
            ended: None,
            shown: ShownView::default(),
            bindings: options.bindings.clone(),
            retitle: false,
        }
    }

    /// A rematch or another level began: effects of the last match cleared, the title renewed.
    fn new_match(&mut self) {
        self.effects.clear();
        self.decided_for = 0;
        self.retitle = true;
    }
}

/// Whether SDL's renderer flags `flags` include presenting with vsync.
fn presents_with_vsync(flags: u32) -> bool {
    flags & PRESENT_VSYNC_FLAG != 0
}

/// The game window: SDL, the canvas, input devices and the renderer.
pub struct App {
    pub(crate) options: AppOptions,
    /// The shortest interval between two presents: where vsync is missing (some headless
    /// drivers), this cap keeps the loop at the display's rate instead of spinning.
    pub(crate) min_frame: Duration,
    sdl: Sdl,
    _video: VideoSubsystem,
    pub(crate) controllers: Option<GameControllerSubsystem>,
    pub(crate) canvas: WindowCanvas,
    pub(crate) events: EventPump,
    pub(crate) renderer: Renderer,
    pub(crate) input: LocalInput,
    /// Sound (silent without an audio device, or at volume 0).
    audio: Option<AudioOut>,
}

impl App {
    /// Opens the window.
    ///
    /// # Errors
    /// If SDL cannot start its video subsystem (no display), open a window, or make a renderer;
    /// the message says how to run headless.
    pub fn new(options: AppOptions, renderer: Renderer) -> anyhow::Result<App> {
        let no_display = |e: String| {
            anyhow!(
                "cannot open a window: {e}\n(no display? run it under a desktop session or \
                 `xvfb-run -a`, or set SDL_VIDEODRIVER=offscreen for a headless run)"
            )
        };
        let sdl = sdl2::init().map_err(no_display)?;
        let video = sdl.video().map_err(no_display)?;
        let driver = video.current_video_driver();
        if invisible_fallback(driver, std::env::var("SDL_VIDEODRIVER").ok().as_deref()) {
            return Err(no_display(format!(
                "no display found (SDL could only start its invisible `{driver}` video driver)"
            )));
        }
        // Render at the display's rate; 60 Hz where the driver does not say.
        let refresh = video
            .current_display_mode(0)
            .map_or(0, |mode| mode.refresh_rate);
        let refresh = if (24..=1000).contains(&refresh) {
            refresh as u32
        } else {
            60
        };
        // Slightly shorter than a refresh, so the cap never fights a real vsync.
        let min_frame = Duration::from_secs(1) / refresh * 19 / 20;
        // Controllers are optional: without joystick support the keyboard still works.
        let controllers = sdl.game_controller().ok();
        let canvas = make_canvas(&video, &options).map_err(no_display)?;
        let events = sdl
            .event_pump()
            .map_err(|e| anyhow!("SDL event pump: {e}"))?;
        let input = LocalInput::new(options.bindings.clone());
        let audio = (options.volume > 0).then(|| AudioOut::open(&sdl, options.volume));
        Ok(App {
            min_frame,
            options,
            sdl,
            _video: video,
            controllers,
            canvas,
            events,
            renderer,
            input,
            audio,
        })
    }

    /// SDL's name for the renderer in use, and whether it presents with vsync.
    #[must_use]
    pub fn renderer_info(&self) -> (String, bool) {
        let info = self.canvas.info();
        (info.name.to_string(), presents_with_vsync(info.flags))
    }

    /// Runs the window loop on `source` until the player quits (Esc, closing the window) or
    /// [`AppOptions::run_for`] has passed. Returns the frame pacing it measured.
    ///
    /// # Errors
    /// If the match source fails or SDL cannot draw.
    pub fn run(&mut self, source: &mut dyn MatchSource) -> anyhow::Result<PacingReport> {
        let end = self.run_match(source, false)?;
        match end.ended {
            Some(e) => Err(e),
            None => Ok(end.report),
        }
    }

    /// Runs one match in the window, as [`App::run`] does; `from_menu` says the player came
    /// from the menu and goes back there: the screens say "Esc: back to the menu" instead of
    /// "quit". A match that ends early is reported in [`MatchEnd::ended`] (after the player
    /// has read the reason in the window), not as an error.
    ///
    /// # Errors
    /// If the match source fails outside a tick (a rematch cannot be set up, a log cannot be
    /// closed) or SDL cannot draw.
    pub fn run_match(
        &mut self,
        source: &mut dyn MatchSource,
        from_menu: bool,
    ) -> anyhow::Result<MatchEnd> {
        let mut run = MatchLoop::new(&self.options);
        self.set_title(source);
        loop {
            if self.take_events(&mut run, source)? {
                break;
            }
            if std::mem::take(&mut run.retitle) {
                self.set_title(source);
            }
            self.run_ticks(&mut run, source)?;
            self.present(&mut run, source, from_menu)?;
            if self
                .options
                .run_for
                .is_some_and(|d| run.pacing.elapsed() >= d)
            {
                break;
            }
        }
        let (name, vsync) = self.renderer_info();
        let report = run.pacing.report(&name, vsync);
        if run.ended.is_some() {
            // The logs are flushed; a goodbye to a peer that is gone may fail, and that is
            // not the news.
            let _ = source.close();
        } else {
            source.close()?;
        }
        Ok(MatchEnd {
            report,
            ended: run.ended,
            window_closed: run.window_closed,
        })
    }

    /// Handles the window's events: input, source commands (seek, pause), overlays, sound
    /// keys, rematches. Whether the player quit.
    fn take_events(
        &mut self,
        run: &mut MatchLoop,
        source: &mut dyn MatchSource,
    ) -> anyhow::Result<bool> {
        let size = self.canvas.output_size().map_err(|e| anyhow!(e))?;
        for event in self.events.poll_iter() {
            self.input.handle_event(&event, self.controllers.as_ref());
            let action = menu_action(&event, &run.bindings, run.overlay, decided(source));
            let mixer = self.audio.as_ref().map(|a| &*a.mixer);
            if on_event(run, source, (&event, action), size, mixer)? {
                return Ok(true);
            }
        }
        Ok(false)
    }

    /// Banks the wall time since the last frame and runs every whole tick banked: inputs
    /// sampled, the source advanced, retractions, sounds and effects, an automatic rematch.
    /// A failing source ends the match (kept in `run.ended`, shown until the window closes).
    fn run_ticks(
        &mut self,
        run: &mut MatchLoop,
        source: &mut dyn MatchSource,
    ) -> anyhow::Result<()> {
        let now = Instant::now();
        let elapsed = (now - run.last).min(MAX_CATCH_UP);
        run.last = now;
        let clock = clock(run.overlay, source.can_pause());
        hold_if_asked(run, source, clock);
        if clock == Clock::Run {
            run.banked += elapsed;
        }
        while run.banked >= run.tick {
            run.banked -= run.tick;
            if run.ended.is_some() {
                run.banked = Duration::ZERO;
                break;
            }
            let locals = source.local_players().len();
            let inputs = if plays_input(run.overlay) {
                let keys = self.events.keyboard_state();
                let view = run.shown.for_input(source.input_tick());
                self.input
                    .sample(locals, |k: Scancode| keys.is_scancode_pressed(k), view)
            } else {
                vec![InputCmd::idle(0); locals]
            };
            let happened = match source.advance(&inputs) {
                Ok(happened) => happened,
                Err(e) => {
                    eprintln!("maze-duel: {e:#}");
                    run.ended = Some(e);
                    break;
                }
            };
            let mixer = self.audio.as_ref().map(|a| &*a.mixer);
            let auto_rematch_after = self.options.auto_rematch_after;
            after_tick(run, source, &happened, mixer, auto_rematch_after)?;
        }
        Ok(())
    }

    /// Draws the frame `alpha` of the way from the previous tick to the current one, presents
    /// it, and waits out the shortest frame time.
    fn present(
        &mut self,
        run: &mut MatchLoop,
        source: &mut dyn MatchSource,
        from_menu: bool,
    ) -> anyhow::Result<()> {
        let alpha = tick_fraction(run.banked, run.tick);
        run.shown = ShownView {
            tick: source.current().tick,
            back: source.remote_view_back(),
            alpha_256: alpha_256(run.banked.as_nanos(), run.tick.as_nanos()),
        };
        let mut net_view = source.net_view();
        if net_view.ping_ms.is_some() {
            net_view.smoothed = Some((run.smoother.corrections, run.smoother.enabled));
        }
        let net = run.show_net.then_some(&net_view);
        let controllers = self.input.controller_names();
        run.smoother
            .update(source.current(), std::mem::take(&mut run.rolled_back));
        let timeline = source.timeline();
        let training = source.training();
        let ended_text = run.ended.as_ref().map(|e| format!("{e:#}"));
        let scene = Scene {
            current: source.current(),
            previous: source.previous(),
            alpha,
            rules: source.rules(),
            shown: run.shown,
            local_players: source.local_players(),
            rail_debug: run.rail_debug,
            net,
            net_line: Some(&net_view),
            effects: &run.effects,
            overlay: run.overlay,
            bindings: &run.bindings,
            controllers: &controllers,
            after_match: source.after_match(),
            smoothing: Some(&run.smoother),
            ended: ended_text.as_deref(),
            timeline,
            from_menu,
            training: training.as_ref(),
        };
        let drawing = Instant::now();
        self.renderer
            .draw(&mut self.canvas, &scene)
            .map_err(|e| anyhow!("drawing: {e}"))?;
        self.canvas.present();
        run.pacing.drew(drawing.elapsed());
        std::thread::sleep(frame_rest(run.last_present.elapsed(), self.min_frame));
        run.last_present = Instant::now();
        run.pacing.frame();
        Ok(())
    }

    /// Sets the sound volume (0..=100), opening the audio device if it was not open.
    pub fn set_volume(&mut self, volume: u8) {
        self.options.volume = volume.min(100);
        match &self.audio {
            Some(audio) => {
                if let Ok(mut mixer) = audio.mixer.lock() {
                    mixer.volume = self.options.volume;
                }
            }
            None if volume > 0 => self.audio = Some(AudioOut::open(&self.sdl, self.options.volume)),
            None => {}
        }
    }

    /// What `read` makes of the sound's mixer (its volume, what it started), or `None` while
    /// the window is silent (volume 0 from the start, or no audio device).
    pub fn with_mixer<R>(&self, read: impl FnOnce(&Mixer) -> R) -> Option<R> {
        let audio = self.audio.as_ref()?;
        let mixer = audio.mixer.lock().ok()?;
        Some(read(&mixer))
    }

    /// The window's title now.
    #[must_use]
    pub fn title(&self) -> &str {
        self.canvas.window().title()
    }

    /// Covers the screen (desktop resolution) or goes back to a window.
    ///
    /// # Errors
    /// If SDL refuses the change.
    pub fn set_fullscreen(&mut self, on: bool) -> anyhow::Result<()> {
        use sdl2::video::FullscreenType;
        let kind = if on {
            FullscreenType::Desktop
        } else {
            FullscreenType::Off
        };
        self.canvas
            .window_mut()
            .set_fullscreen(kind)
            .map_err(|e| anyhow!("fullscreen: {e}"))
    }

    /// Plays a menu sound (nothing without an audio device).
    pub fn play_ui(&self, sfx: crate::present::sound::Sfx) {
        if let Some(mut mixer) = self.audio.as_ref().and_then(|a| a.mixer.lock().ok()) {
            mixer.play_ui(sfx);
        }
    }

    /// Puts `event` on SDL's queue as if it came from a device (tests and automation drive
    /// the window this way, without a display).
    ///
    /// # Errors
    /// If SDL has no event subsystem or refuses the event.
    pub fn push_event(&self, event: Event) -> anyhow::Result<()> {
        self.sdl
            .event()
            .and_then(|events| events.push_event(event))
            .map_err(|e| anyhow!("pushing an event: {e}"))
    }

    /// A handle that puts events on this window's queue from any thread: tests and automation
    /// drive a front end running in its own loop ([`crate::FrontEnd::run`]) this way.
    ///
    /// # Errors
    /// If SDL has no event subsystem.
    pub fn event_sender(&self) -> anyhow::Result<sdl2::event::EventSender> {
        self.sdl
            .event()
            .map(|events| events.event_sender())
            .map_err(|e| anyhow!("the event subsystem: {e}"))
    }

    /// Ends the matches started from now on after `run_for` ([`AppOptions::run_for`]); `None`
    /// leaves it to the player.
    pub fn set_run_for(&mut self, run_for: Option<Duration>) {
        self.options.run_for = run_for;
    }

    /// Uses `bindings` from the next match on.
    pub fn set_bindings(&mut self, bindings: KeyBindings) {
        self.input.set_bindings(bindings.clone());
        self.options.bindings = bindings;
    }

    /// The options the window runs with now (the volume and keys as last set).
    #[must_use]
    pub fn options(&self) -> &AppOptions {
        &self.options
    }

    /// Whether the window covers the screen.
    #[must_use]
    pub fn is_fullscreen(&self) -> bool {
        self.canvas.window().fullscreen_state() != sdl2::video::FullscreenType::Off
    }

    fn set_title(&mut self, source: &dyn MatchSource) {
        let title = format!(
            "{} — seed {}",
            self.options.title,
            source.current().match_seed
        );
        if self.canvas.window().title() != title {
            // A title with a NUL byte cannot be set; the old one stays, which is harmless.
            let _ = self.canvas.window_mut().set_title(&title);
        }
    }
}

/// A change to the sound: F7/F8 volume down/up, F9 mute.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum SoundKey {
    Quieter,
    Louder,
    Mute,
}

impl SoundKey {
    fn apply(self, mixer: &mut Mixer) {
        match self {
            SoundKey::Quieter => mixer.volume = mixer.volume.saturating_sub(10),
            SoundKey::Louder => mixer.volume = (mixer.volume + 10).min(100),
            SoundKey::Mute => mixer.muted = !mixer.muted,
        }
    }
}

fn sound_key(event: &Event) -> Option<SoundKey> {
    match *event {
        Event::KeyDown {
            scancode: Some(k),
            repeat: false,
            ..
        } => match k {
            Scancode::F7 => Some(SoundKey::Quieter),
            Scancode::F8 => Some(SoundKey::Louder),
            Scancode::F9 => Some(SoundKey::Mute),
            _ => None,
        },
        _ => None,
    }
}

/// Keys that talk to the match source: F5/F6 change the input delay online; while watching
/// (spectating, replaying, so no local player needs the keys) Space pauses, N steps, +/- change
/// the speed, Left/Right seek five seconds, Home restarts.
fn source_command(event: &Event, watching: bool) -> Option<SourceCommand> {
    let Event::KeyDown {
        scancode: Some(k),
        repeat,
        ..
    } = *event
    else {
        return None;
    };
    match k {
        Scancode::F5 if !repeat => Some(SourceCommand::LessInputDelay),
        Scancode::F6 if !repeat => Some(SourceCommand::MoreInputDelay),
        Scancode::F10 if !repeat => Some(SourceCommand::CycleDummy),
        Scancode::F11 if !repeat => Some(SourceCommand::Record),
        Scancode::F12 if !repeat => Some(SourceCommand::ResetPositions),
        _ if !watching => None,
        Scancode::Space if !repeat => Some(SourceCommand::TogglePause),
        Scancode::N => Some(SourceCommand::Step),
        Scancode::Equals | Scancode::KpPlus if !repeat => Some(SourceCommand::Faster),
        Scancode::Minus | Scancode::KpMinus if !repeat => Some(SourceCommand::Slower),
        Scancode::Left => Some(SourceCommand::Seek(-5)),
        Scancode::Right => Some(SourceCommand::Seek(5)),
        Scancode::Home if !repeat => Some(SourceCommand::Restart),
        _ => None,
    }
}

/// Whether SDL ended up on a video driver that shows nothing (`offscreen`, `dummy`) without
/// being asked for it through `SDL_VIDEODRIVER`: then there is no display, and an invisible
/// window would only confuse.
fn invisible_fallback(driver: &str, asked: Option<&str>) -> bool {
    let invisible = matches!(driver, "offscreen" | "dummy");
    let requested = asked.is_some_and(|list| {
        list.split(',')
            .any(|d| d.trim().eq_ignore_ascii_case(driver))
    });
    invisible && !requested
}

/// What the match clock does this frame.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Clock {
    /// Ticks run.
    Run,
    /// A local match stands still (paused, or the controls shown).
    Stopped,
    /// An online match before its first tick while the controls are read: it answers the
    /// network but sends no input, so the other side cannot start the round without this
    /// player either (a fair start; [`MatchSource::hold`]).
    Hold,
}

/// The clock for `overlay` on a source that can (local) or cannot (online) pause: an online
/// match cannot stop for us once it runs, only hold before it starts.
fn clock(overlay: Overlay, can_pause: bool) -> Clock {
    match (overlay, can_pause) {
        (Overlay::None, _) => Clock::Run,
        (_, true) => Clock::Stopped,
        (Overlay::Controls { at_start: true }, false) => Clock::Hold,
        (_, false) => Clock::Run,
    }
}

/// Holds `source` on a [`Clock::Hold`] frame (an online match before its first tick, the
/// controls read) unless the match has already ended; a failing hold ends it.
fn hold_if_asked(run: &mut MatchLoop, source: &mut dyn MatchSource, clock: Clock) {
    if clock == Clock::Hold && run.ended.is_none() {
        if let Err(e) = source.hold() {
            eprintln!("maze-duel: {e:#}");
            run.ended = Some(e);
        }
    }
}

/// How far into the next tick `banked` time is, as a fraction of a `tick` (what the frame
/// interpolates by).
fn tick_fraction(banked: Duration, tick: Duration) -> f32 {
    banked.as_secs_f32() / tick.as_secs_f32()
}

/// What is left of the shortest frame `min_frame` when `since` has passed since the last
/// present (nothing once it is over).
fn frame_rest(since: Duration, min_frame: Duration) -> Duration {
    min_frame.saturating_sub(since)
}

/// Whether a tick takes the players' input under `overlay` (else everyone idles: the
/// controls, a pause or a notice is up).
fn plays_input(overlay: Overlay) -> bool {
    overlay == Overlay::None
}

/// What follows a tick of `source` in which `happened` happened: rollbacks noted, retracted
/// events taken back from the effects and sounds, the new ones played, the tick counted; the
/// time a match has been decided counted (a match that began again online clears the last
/// one's effects) and, with `auto_rematch_after`, a rematch asked after that many ticks.
fn after_tick(
    run: &mut MatchLoop,
    source: &mut dyn MatchSource,
    happened: &[engine::Event],
    mixer: Option<&std::sync::Mutex<Mixer>>,
    auto_rematch_after: Option<u32>,
) -> anyhow::Result<()> {
    run.rolled_back |= source.rolled_back();
    let retracted = source.take_retractions();
    for gone in &retracted {
        run.effects.retract(&gone.key());
    }
    if let Some(mut mixer) = mixer.and_then(|m| m.lock().ok()) {
        run.director.frame(happened, &retracted, &mut mixer);
    }
    run.effects
        .on_tick(happened, source.previous(), source.current());
    run.pacing.tick();
    if !decided(source) && run.decided_for > 0 {
        // Online, the match agreed on by both players began in the simulation.
        run.effects.clear();
        run.decided_for = 0;
    }
    if decided(source) {
        run.decided_for += 1;
        if auto_rematch_after.is_some_and(|t| run.decided_for >= t) && source.rematch()? {
            run.new_match();
        }
    }
    Ok(())
}

/// Whether `source`'s match is decided (its last round over, the result shown).
fn decided(source: &dyn MatchSource) -> bool {
    source.current().round.phase == RoundPhase::MatchOver
}

/// What one window event does in a match (`action`: what [`menu_action`] made of it; a
/// window of `size` pixels; the sound's `mixer`, if there is sound): a source command, a
/// seek on the replay's timeline, the smoothing toggle (F4), a sound key when it is no menu
/// key; else the overlay, panels, pause, rematch or other bot level it asks for. Whether the
/// player quit.
fn on_event(
    run: &mut MatchLoop,
    source: &mut dyn MatchSource,
    (event, action): (&Event, MenuAction),
    size: (u32, u32),
    mixer: Option<&std::sync::Mutex<Mixer>>,
) -> anyhow::Result<bool> {
    if action == MenuAction::None {
        if let (Some(mixer), Some(change)) = (mixer, sound_key(event)) {
            if let Ok(mut mixer) = mixer.lock() {
                change.apply(&mut mixer);
            }
        }
        let watching = source.local_players().is_empty();
        if let Some(command) = source_command(event, watching) {
            source.command(command)?;
        }
        if let (Event::MouseButtonDown { x, y, .. }, Some(timeline)) = (event, source.timeline()) {
            let maze = &source.current().maze;
            let layout = Layout::new(size, (maze.width, maze.height));
            if let Some(tick) = seek_target(&layout, &timeline, (*x, *y)) {
                source.command(SourceCommand::SeekTo(tick))?;
            }
        }
        if let Event::KeyDown {
            scancode: Some(Scancode::F4),
            repeat: false,
            ..
        } = event
        {
            run.smoother.enabled = !run.smoother.enabled;
        }
    }
    match action {
        MenuAction::None => {}
        MenuAction::Quit => {
            run.window_closed = matches!(event, Event::Quit { .. });
            return Ok(true);
        }
        MenuAction::Dismiss => run.overlay = Overlay::None,
        MenuAction::Controls => run.overlay = Overlay::Controls { at_start: false },
        MenuAction::Pause => {
            if source.can_pause() {
                run.overlay = match run.overlay {
                    Overlay::Paused => Overlay::None,
                    _ => Overlay::Paused,
                };
            }
        }
        MenuAction::NetHud => run.show_net = !run.show_net,
        MenuAction::RailDebug => run.rail_debug = !run.rail_debug,
        MenuAction::Rematch => {
            if decided(source) && source.rematch()? {
                run.new_match();
            }
        }
        MenuAction::OtherLevel => {
            if let Some(level) = source.after_match().other_level {
                if decided(source) && source.play_level(level)? {
                    run.new_match();
                }
            }
        }
    }
    Ok(false)
}

/// What a key or button press means outside the game itself.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum MenuAction {
    None,
    Quit,
    Dismiss,
    Controls,
    Pause,
    NetHud,
    RailDebug,
    Rematch,
    OtherLevel,
}

/// Decodes menu keys: Esc and closing the window quit; while the controls screen is up any key
/// (or a controller's A or Start) dismisses it. On a controller, Start pauses, or asks for a
/// rematch once the match is decided; Back shows the controls.
fn menu_action(
    event: &Event,
    keys: &KeyBindings,
    overlay: Overlay,
    match_over: bool,
) -> MenuAction {
    match *event {
        Event::Quit { .. } => MenuAction::Quit,
        Event::KeyDown {
            scancode: Some(k),
            repeat: false,
            ..
        } => {
            if k == keys.quit {
                MenuAction::Quit
            } else if matches!(overlay, Overlay::Controls { .. }) {
                MenuAction::Dismiss
            } else if k == keys.controls {
                MenuAction::Controls
            } else if k == keys.pause {
                MenuAction::Pause
            } else if keys.net_hud.contains(&k) {
                MenuAction::NetHud
            } else if k == keys.rail_debug {
                MenuAction::RailDebug
            } else if keys.rematch.contains(&k) {
                MenuAction::Rematch
            } else if k == keys.other_level && match_over {
                MenuAction::OtherLevel
            } else {
                MenuAction::None
            }
        }
        Event::ControllerButtonDown { button, .. } => match (button, overlay) {
            (Button::A | Button::Start, Overlay::Controls { .. }) => MenuAction::Dismiss,
            (Button::Start, _) if match_over => MenuAction::Rematch,
            (Button::Y, _) if match_over => MenuAction::OtherLevel,
            (Button::Start, _) => MenuAction::Pause,
            (Button::Back, _) => MenuAction::Controls,
            _ => MenuAction::None,
        },
        _ => MenuAction::None,
    }
}

/// A resizable window with a vsynced renderer: accelerated if possible (unless `software` is
/// asked for), else SDL's software renderer, which works on any video driver, `offscreen` and
/// `dummy` included.
fn make_canvas(video: &VideoSubsystem, options: &AppOptions) -> Result<WindowCanvas, String> {
    let window = || {
        let (w, h) = options.window_size;
        video
            .window(&options.title, w, h)
            .position_centered()
            .resizable()
            .allow_highdpi()
            .build()
            .map_err(|e| e.to_string())
    };
    if !options.software {
        if let Ok(canvas) = window()?
            .into_canvas()
            .accelerated()
            .present_vsync()
            .build()
        {
            return Ok(canvas);
        }
    }
    window()?
        .into_canvas()
        .software()
        .present_vsync()
        .build()
        .map_err(|e| format!("no renderer: {e}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The clock: a local match stops under any overlay; an online one holds (answers the
    /// network, sends nothing) only under the controls shown at its start, and otherwise runs
    /// — it cannot stop for one player once both play.
    #[test]
    fn an_online_match_holds_only_while_its_start_controls_are_read() {
        let start = Overlay::Controls { at_start: true };
        let later = Overlay::Controls { at_start: false };
        for overlay in [Overlay::None, Overlay::Paused, start, later] {
            let local = clock(overlay, true);
            let online = clock(overlay, false);
            match overlay {
                Overlay::None => assert_eq!((local, online), (Clock::Run, Clock::Run)),
                _ if overlay == start => assert_eq!((local, online), (Clock::Stopped, Clock::Hold)),
                _ => assert_eq!((local, online), (Clock::Stopped, Clock::Run), "{overlay:?}"),
            }
        }
    }
    use sdl2::keyboard::Mod;

    pub(super) fn key_event(k: Scancode, repeat: bool) -> Event {
        Event::KeyDown {
            timestamp: 0,
            window_id: 0,
            keycode: None,
            scancode: Some(k),
            keymod: Mod::NOMOD,
            repeat,
        }
    }

    fn key(k: Scancode) -> Event {
        key_event(k, false)
    }

    /// The same key held down (a repeat).
    fn held(k: Scancode) -> Event {
        key_event(k, true)
    }

    #[test]
    fn any_key_dismisses_the_controls_screen_but_esc_quits() {
        let keys = KeyBindings::default();
        let start = Overlay::Controls { at_start: true };
        assert_eq!(
            menu_action(&key(Scancode::W), &keys, start, false),
            MenuAction::Dismiss
        );
        assert_eq!(
            menu_action(&key(Scancode::Escape), &keys, start, false),
            MenuAction::Quit
        );
    }

    fn button(button: Button) -> Event {
        Event::ControllerButtonDown {
            timestamp: 0,
            which: 0,
            button,
        }
    }

    /// F7 and F8 move the volume by ten within 0–100, F9 mutes and unmutes; a held key
    /// repeats nothing.
    #[test]
    fn sound_keys_step_the_volume_and_mute() {
        assert_eq!(sound_key(&key(Scancode::F7)), Some(SoundKey::Quieter));
        assert_eq!(sound_key(&key(Scancode::F8)), Some(SoundKey::Louder));
        assert_eq!(sound_key(&key(Scancode::F9)), Some(SoundKey::Mute));
        assert_eq!(sound_key(&key(Scancode::F6)), None);
        assert_eq!(sound_key(&held(Scancode::F8)), None);
        assert_eq!(sound_key(&button(Button::A)), None);
        let mut mixer = Mixer::default();
        mixer.volume = 95;
        SoundKey::Louder.apply(&mut mixer);
        assert_eq!(mixer.volume, 100);
        SoundKey::Quieter.apply(&mut mixer);
        SoundKey::Quieter.apply(&mut mixer);
        assert_eq!(mixer.volume, 80);
        SoundKey::Louder.apply(&mut mixer);
        assert_eq!(mixer.volume, 90);
        mixer.volume = 5;
        SoundKey::Quieter.apply(&mut mixer);
        assert_eq!(mixer.volume, 0);
        let muted = mixer.muted;
        SoundKey::Mute.apply(&mut mixer);
        assert_eq!(mixer.muted, !muted);
        SoundKey::Mute.apply(&mut mixer);
        assert_eq!(mixer.muted, muted);
    }

    /// The keys that talk to the source: the online and training ones always, the replay
    /// ones only while watching; held down, only stepping and seeking repeat.
    #[test]
    fn source_keys_reach_the_source_and_replay_keys_only_while_watching() {
        use SourceCommand as C;
        let always = [
            (Scancode::F5, C::LessInputDelay),
            (Scancode::F6, C::MoreInputDelay),
            (Scancode::F10, C::CycleDummy),
            (Scancode::F11, C::Record),
            (Scancode::F12, C::ResetPositions),
        ];
        let watching = [
            (Scancode::Space, C::TogglePause, false),
            (Scancode::N, C::Step, true),
            (Scancode::Equals, C::Faster, false),
            (Scancode::KpPlus, C::Faster, false),
            (Scancode::Minus, C::Slower, false),
            (Scancode::KpMinus, C::Slower, false),
            (Scancode::Left, C::Seek(-5), true),
            (Scancode::Right, C::Seek(5), true),
            (Scancode::Home, C::Restart, false),
        ];
        for watch in [false, true] {
            for (k, command) in always {
                assert_eq!(source_command(&key(k), watch), Some(command), "{k:?}");
                assert_eq!(source_command(&held(k), watch), None, "{k:?} held");
            }
            for (k, command, repeats) in watching {
                let expected = watch.then_some(command);
                assert_eq!(source_command(&key(k), watch), expected, "{k:?}");
                let held_expected = expected.filter(|_| repeats);
                assert_eq!(source_command(&held(k), watch), held_expected, "{k:?} held");
            }
            assert_eq!(source_command(&key(Scancode::W), watch), None);
            assert_eq!(source_command(&button(Button::A), watch), None);
        }
    }

    /// A controller: A or Start dismisses the controls screen; Start pauses, or asks for a
    /// rematch once the match is decided, when Y asks for the other level; Back shows the
    /// controls. The level key too works only once the match is decided; closing quits.
    #[test]
    fn controller_buttons_and_the_level_key_mean_what_the_match_allows() {
        let keys = KeyBindings::default();
        let play = Overlay::None;
        let controls = Overlay::Controls { at_start: false };
        let act = |e: &Event, overlay, over| menu_action(e, &keys, overlay, over);
        for over in [false, true] {
            assert_eq!(act(&button(Button::A), controls, over), MenuAction::Dismiss);
            assert_eq!(
                act(&button(Button::Start), controls, over),
                MenuAction::Dismiss
            );
            assert_eq!(act(&button(Button::A), play, over), MenuAction::None);
            assert_eq!(act(&button(Button::Back), play, over), MenuAction::Controls);
            assert_eq!(
                act(&Event::Quit { timestamp: 0 }, play, over),
                MenuAction::Quit
            );
        }
        assert_eq!(act(&button(Button::Start), play, false), MenuAction::Pause);
        assert_eq!(act(&button(Button::Start), play, true), MenuAction::Rematch);
        assert_eq!(act(&button(Button::Y), play, false), MenuAction::None);
        assert_eq!(act(&button(Button::Y), play, true), MenuAction::OtherLevel);
        assert_eq!(act(&key(Scancode::L), play, false), MenuAction::None);
        assert_eq!(act(&key(Scancode::L), play, true), MenuAction::OtherLevel);
        assert_eq!(
            act(&key(Scancode::KpEnter), play, true),
            MenuAction::Rematch
        );
        assert_eq!(act(&held(Scancode::P), play, false), MenuAction::None);
    }

    /// A rematch or another level starts the loop's match afresh: the decided time is
    /// forgotten and the title is renewed (the window names the match's seed).
    #[test]
    fn a_new_match_forgets_the_decided_time_and_renews_the_title() {
        let mut run = MatchLoop::new(&AppOptions::default());
        run.decided_for = 200;
        run.new_match();
        assert_eq!(run.decided_for, 0);
        assert!(run.retitle);
        assert!(run.effects.is_empty());
    }

    #[test]
    fn vsync_is_its_own_flag_among_the_renderers() {
        assert!(presents_with_vsync(PRESENT_VSYNC_FLAG));
        assert!(presents_with_vsync(PRESENT_VSYNC_FLAG | 0b1011));
        assert!(!presents_with_vsync(0));
        assert!(!presents_with_vsync(!PRESENT_VSYNC_FLAG));
        assert!(!presents_with_vsync(0b1011 & !PRESENT_VSYNC_FLAG));
    }

    #[test]
    fn an_unrequested_invisible_driver_means_no_display() {
        assert!(invisible_fallback("offscreen", None));
        assert!(invisible_fallback("dummy", Some("x11")));
        assert!(!invisible_fallback("offscreen", Some("offscreen")));
        assert!(!invisible_fallback("dummy", Some("x11,dummy")));
        assert!(!invisible_fallback("x11", None));
    }

    #[test]
    fn menu_keys_in_play() {
        let keys = KeyBindings::default();
        let play = Overlay::None;
        assert_eq!(
            menu_action(&key(Scancode::P), &keys, play, false),
            MenuAction::Pause
        );
        assert_eq!(
            menu_action(&key(Scancode::F1), &keys, play, false),
            MenuAction::Controls
        );
        assert_eq!(
            menu_action(&key(Scancode::Tab), &keys, play, false),
            MenuAction::NetHud
        );
        assert_eq!(
            menu_action(&key(Scancode::H), &keys, play, false),
            MenuAction::NetHud
        );
        assert_eq!(
            menu_action(&key(Scancode::Return), &keys, play, false),
            MenuAction::Rematch
        );
        assert_eq!(
            menu_action(&key(Scancode::F3), &keys, play, false),
            MenuAction::RailDebug
        );
        assert_eq!(
            menu_action(&key(Scancode::W), &keys, play, false),
            MenuAction::None
        );
    }
}

/// [`on_event`] on a source that records what it is asked.
#[cfg(test)]
mod event_tests {
    use super::*;
    use crate::matches::match_source::{AfterMatch, Rematch};
    use crate::matches::net_view::NetView;
    use engine::{Difficulty, Event as SimEvent, PlayerId, Rules, World, WorldSnapshot};

    struct Recorder {
        state: WorldSnapshot,
        rules: Rules,
        can_pause: bool,
        watching: bool,
        rematch_starts: bool,
        other_level: Option<Difficulty>,
        commands: Vec<SourceCommand>,
        rematches: u32,
        levels: Vec<Difficulty>,
        holds: u32,
        hold_fails: bool,
        rolled_back: bool,
    }

    impl Recorder {
        fn new(decided: bool) -> Recorder {
            let rules = Rules::default();
            let mut state = World::new(rules.clone(), 5, 2).expect("world").snapshot();
            if decided {
                state.round.phase = RoundPhase::MatchOver;
            }
            Recorder {
                state,
                rules,
                can_pause: true,
                watching: false,
                rematch_starts: true,
                other_level: None,
                commands: Vec::new(),
                rematches: 0,
                levels: Vec::new(),
                holds: 0,
                hold_fails: false,
                rolled_back: false,
            }
        }
    }

    impl MatchSource for Recorder {
        fn local_players(&self) -> &[PlayerId] {
            if self.watching {
                &[]
            } else {
                &[0]
            }
        }
        fn advance(&mut self, _local: &[InputCmd]) -> anyhow::Result<Vec<SimEvent>> {
            Ok(Vec::new())
        }
        fn current(&self) -> &WorldSnapshot {
            &self.state
        }
        fn previous(&self) -> &WorldSnapshot {
            &self.state
        }
        fn rules(&self) -> &Rules {
            &self.rules
        }
        fn net_view(&self) -> NetView {
            NetView::local(0, Default::default())
        }
        fn can_pause(&self) -> bool {
            self.can_pause
        }
        fn command(&mut self, command: SourceCommand) -> anyhow::Result<()> {
            self.commands.push(command);
            Ok(())
        }
        fn after_match(&self) -> AfterMatch {
            AfterMatch {
                rematch: Rematch::No,
                other_level: self.other_level,
            }
        }
        fn rematch(&mut self) -> anyhow::Result<bool> {
            self.rematches += 1;
            Ok(self.rematch_starts)
        }
        fn play_level(&mut self, level: Difficulty) -> anyhow::Result<bool> {
            self.levels.push(level);
            Ok(self.rematch_starts)
        }
        fn rolled_back(&self) -> bool {
            self.rolled_back
        }
        fn hold(&mut self) -> anyhow::Result<()> {
            self.holds += 1;
            if self.hold_fails {
                anyhow::bail!("the host is gone");
            }
            Ok(())
        }
    }

    use super::tests::key_event as key;

    const SIZE: (u32, u32) = (960, 600);

    fn act(run: &mut MatchLoop, source: &mut Recorder, event: &Event, action: MenuAction) -> bool {
        on_event(run, source, (event, action), SIZE, None).expect("handled")
    }

    /// [`act`] on key `k`.
    fn press(
        run: &mut MatchLoop,
        source: &mut Recorder,
        k: Scancode,
        held: bool,
        action: MenuAction,
    ) {
        act(run, source, &key(k, held), action);
    }

    fn fresh() -> MatchLoop {
        MatchLoop::new(&AppOptions {
            controls_at_start: false,
            ..AppOptions::default()
        })
    }

    #[test]
    fn menu_actions_set_the_overlay_and_panels_and_quit() {
        let mut run = fresh();
        let mut source = Recorder::new(false);
        let any = key(Scancode::F1, false);
        assert!(!act(&mut run, &mut source, &any, MenuAction::Controls));
        assert_eq!(run.overlay, Overlay::Controls { at_start: false });
        assert!(!act(&mut run, &mut source, &any, MenuAction::Dismiss));
        assert_eq!(run.overlay, Overlay::None);
        let (net, rail) = (run.show_net, run.rail_debug);
        act(&mut run, &mut source, &any, MenuAction::NetHud);
        assert_eq!((run.show_net, run.rail_debug), (!net, rail));
        act(&mut run, &mut source, &any, MenuAction::RailDebug);
        assert_eq!((run.show_net, run.rail_debug), (!net, !rail));
        act(&mut run, &mut source, &any, MenuAction::NetHud);
        act(&mut run, &mut source, &any, MenuAction::RailDebug);
        assert_eq!(
            (run.show_net, run.rail_debug),
            (net, rail),
            "each toggles back"
        );
        assert!(source.commands.is_empty(), "a menu key is no source key");

        assert!(act(
            &mut run,
            &mut source,
            &key(Scancode::Escape, false),
            MenuAction::Quit
        ));
        assert!(
            !run.window_closed,
            "quit by key: the window stays for the menu"
        );
        let closed = Event::Quit { timestamp: 0 };
        assert!(act(&mut run, &mut source, &closed, MenuAction::Quit));
        assert!(run.window_closed);
    }

    #[test]
    fn pause_toggles_only_where_the_source_can_pause() {
        let mut run = fresh();
        let mut source = Recorder::new(false);
        let start = key(Scancode::Return, false);
        act(&mut run, &mut source, &start, MenuAction::Pause);
        assert_eq!(run.overlay, Overlay::Paused);
        act(&mut run, &mut source, &start, MenuAction::Pause);
        assert_eq!(run.overlay, Overlay::None, "paused again: resumed");
        run.overlay = Overlay::Controls { at_start: false };
        act(&mut run, &mut source, &start, MenuAction::Pause);
        assert_eq!(run.overlay, Overlay::Paused, "from the controls: paused");
        let mut online = Recorder::new(false);
        online.can_pause = false;
        run.overlay = Overlay::None;
        act(&mut run, &mut online, &start, MenuAction::Pause);
        assert_eq!(run.overlay, Overlay::None, "an online match does not pause");
    }

    #[test]
    fn a_rematch_or_another_level_is_asked_only_once_the_match_is_decided() {
        let start = key(Scancode::Return, false);
        let mut run = fresh();
        let mut playing = Recorder::new(false);
        playing.other_level = Some(Difficulty::Hard);
        run.decided_for = 7;
        act(&mut run, &mut playing, &start, MenuAction::Rematch);
        act(&mut run, &mut playing, &start, MenuAction::OtherLevel);
        assert_eq!((playing.rematches, playing.levels.len()), (0, 0));
        assert_eq!(run.decided_for, 7, "no new match");

        let mut decided = Recorder::new(true);
        act(&mut run, &mut decided, &start, MenuAction::Rematch);
        assert_eq!(decided.rematches, 1);
        assert_eq!((run.decided_for, run.retitle), (0, true), "a new match");

        let mut refused = Recorder::new(true);
        refused.rematch_starts = false;
        refused.other_level = Some(Difficulty::Easy);
        run.decided_for = 7;
        run.retitle = false;
        act(&mut run, &mut refused, &start, MenuAction::Rematch);
        act(&mut run, &mut refused, &start, MenuAction::OtherLevel);
        assert_eq!(
            (refused.rematches, refused.levels.as_slice()),
            (1, &[Difficulty::Easy][..])
        );
        assert_eq!(
            (run.decided_for, run.retitle),
            (7, false),
            "asked, not started yet"
        );

        let mut no_bot = Recorder::new(true);
        act(&mut run, &mut no_bot, &start, MenuAction::OtherLevel);
        assert!(no_bot.levels.is_empty(), "no other level offered");

        let mut bot = Recorder::new(true);
        bot.other_level = Some(Difficulty::Beginner);
        act(&mut run, &mut bot, &start, MenuAction::OtherLevel);
        assert_eq!(bot.levels, [Difficulty::Beginner]);
        assert_eq!((run.decided_for, run.retitle), (0, true));
    }

    #[test]
    fn keys_no_menu_key_takes_reach_the_source_and_f4_toggles_smoothing() {
        let mut run = fresh();
        let mut source = Recorder::new(false);
        let smoothing = run.smoother.enabled;
        press(&mut run, &mut source, Scancode::F4, false, MenuAction::None);
        assert_eq!(run.smoother.enabled, !smoothing);
        press(&mut run, &mut source, Scancode::F4, true, MenuAction::None);
        assert_eq!(run.smoother.enabled, !smoothing, "a held F4 toggles once");
        press(
            &mut run,
            &mut source,
            Scancode::F4,
            false,
            MenuAction::Dismiss,
        );
        assert_eq!(run.smoother.enabled, !smoothing, "a key a menu action took");

        press(&mut run, &mut source, Scancode::F6, false, MenuAction::None);
        assert_eq!(source.commands, [SourceCommand::MoreInputDelay]);
        press(
            &mut run,
            &mut source,
            Scancode::F6,
            false,
            MenuAction::Dismiss,
        );
        press(
            &mut run,
            &mut source,
            Scancode::Home,
            false,
            MenuAction::None,
        );
        assert_eq!(
            source.commands,
            [SourceCommand::MoreInputDelay],
            "a menu key is not also a source key; replay keys only while watching"
        );
        let mut replay = Recorder::new(false);
        replay.watching = true;
        press(
            &mut run,
            &mut replay,
            Scancode::Home,
            false,
            MenuAction::None,
        );
        assert_eq!(replay.commands, [SourceCommand::Restart]);
    }

    #[test]
    fn sound_keys_reach_the_mixer_unless_a_menu_action_took_them() {
        let mut run = fresh();
        let mut source = Recorder::new(false);
        let mixer = std::sync::Mutex::new(Mixer::default());
        let volume = mixer.lock().expect("mixer").volume;
        let quieter = key(Scancode::F7, false);
        on_event(
            &mut run,
            &mut source,
            (&quieter, MenuAction::None),
            SIZE,
            Some(&mixer),
        )
        .expect("handled");
        assert_eq!(mixer.lock().expect("mixer").volume, volume - 10);
        on_event(
            &mut run,
            &mut source,
            (&quieter, MenuAction::Dismiss),
            SIZE,
            Some(&mixer),
        )
        .expect("handled");
        assert_eq!(
            mixer.lock().expect("mixer").volume,
            volume - 10,
            "the menu's key"
        );
        assert!(source.commands.is_empty(), "a sound key is no source key");
    }

    /// A source is held on hold frames only, until a hold fails: that ends the match.
    #[test]
    fn a_source_is_held_on_hold_frames_until_the_match_ends() {
        let mut run = fresh();
        let mut source = Recorder::new(false);
        hold_if_asked(&mut run, &mut source, Clock::Run);
        hold_if_asked(&mut run, &mut source, Clock::Stopped);
        assert_eq!(source.holds, 0);
        hold_if_asked(&mut run, &mut source, Clock::Hold);
        assert_eq!(source.holds, 1);
        assert!(run.ended.is_none());
        source.hold_fails = true;
        hold_if_asked(&mut run, &mut source, Clock::Hold);
        assert_eq!(source.holds, 2);
        let ended = run.ended.as_ref().map(ToString::to_string);
        assert_eq!(ended.as_deref(), Some("the host is gone"));
        hold_if_asked(&mut run, &mut source, Clock::Hold);
        assert_eq!(source.holds, 2, "an ended match is not held");
    }

    #[test]
    fn a_frame_interpolates_by_the_banked_share_of_a_tick_and_rests_out_the_shortest_frame() {
        let tick = Duration::from_millis(16);
        assert!((tick_fraction(Duration::from_millis(4), tick) - 0.25).abs() < 1e-6);
        assert!(tick_fraction(Duration::ZERO, tick).abs() < 1e-9);
        assert!((tick_fraction(Duration::from_millis(12), tick) - 0.75).abs() < 1e-6);
        let min = Duration::from_millis(16);
        assert_eq!(
            frame_rest(Duration::from_millis(5), min),
            Duration::from_millis(11)
        );
        assert_eq!(frame_rest(min, min), Duration::ZERO);
        assert_eq!(frame_rest(Duration::from_millis(40), min), Duration::ZERO);
    }

    #[test]
    fn only_a_tick_with_no_overlay_takes_the_players_input() {
        assert!(plays_input(Overlay::None));
        for overlay in [Overlay::Paused, Overlay::Controls { at_start: true }] {
            assert!(!plays_input(overlay), "{overlay:?}");
        }
    }

    /// After each tick: a rollback seen is remembered, the tick counted, and a decided
    /// match's time counted up to the automatic rematch, which starts a new match; a match
    /// no longer decided (begun again online) forgets the count.
    #[test]
    fn after_a_tick_rollbacks_ticks_and_the_decided_time_are_counted() {
        let mut run = fresh();
        let mut source = Recorder::new(false);
        after_tick(&mut run, &mut source, &[], None, Some(3)).expect("a tick");
        assert!(!run.rolled_back);
        source.rolled_back = true;
        after_tick(&mut run, &mut source, &[], None, Some(3)).expect("a tick");
        source.rolled_back = false;
        after_tick(&mut run, &mut source, &[], None, Some(3)).expect("a tick");
        assert!(run.rolled_back, "one rollback in the frame is kept");
        assert_eq!(run.decided_for, 0);
        assert_eq!(source.rematches, 0);

        let mut decided = Recorder::new(true);
        decided.rematch_starts = false;
        after_tick(&mut run, &mut decided, &[], None, Some(3)).expect("a tick");
        after_tick(&mut run, &mut decided, &[], None, Some(3)).expect("a tick");
        assert_eq!((run.decided_for, decided.rematches), (2, 0));
        after_tick(&mut run, &mut decided, &[], None, Some(3)).expect("a tick");
        assert_eq!((run.decided_for, decided.rematches), (3, 1), "asked at 3");
        assert!(!run.retitle, "asked, not started");
        decided.rematch_starts = true;
        after_tick(&mut run, &mut decided, &[], None, Some(3)).expect("a tick");
        assert_eq!((run.decided_for, decided.rematches), (0, 2));
        assert!(run.retitle, "a new match");

        let mut unattended = fresh();
        for _ in 0..500 {
            after_tick(&mut unattended, &mut decided, &[], None, None).expect("a tick");
        }
        assert_eq!(unattended.decided_for, 500);
        assert_eq!(
            decided.rematches, 2,
            "no automatic rematch unless asked for"
        );
        after_tick(&mut unattended, &mut source, &[], None, None).expect("a tick");
        assert_eq!(
            unattended.decided_for, 0,
            "begun again: the count forgotten"
        );
        after_tick(&mut unattended, &mut source, &[], None, None).expect("a tick");
        assert_eq!(unattended.decided_for, 0);
    }

    /// A tick's events make their effects, kept over the next ticks of a match in play;
    /// a match that begins again (after a decided one) starts with none.
    #[test]
    fn a_ticks_effects_stay_until_a_match_begins_again() {
        let shot = engine::Event {
            tick: 1,
            kind: engine::EventKind::ShotFired {
                player: 0,
                projectile: 1,
            },
        };
        let mut run = fresh();
        let mut playing = Recorder::new(false);
        after_tick(&mut run, &mut playing, &[shot], None, None).expect("a tick");
        assert!(!run.effects.is_empty(), "the shot's flash");
        after_tick(&mut run, &mut playing, &[], None, None).expect("a tick");
        assert!(!run.effects.is_empty(), "kept in play");
        let mut decided = Recorder::new(true);
        after_tick(&mut run, &mut decided, &[shot], None, None).expect("a tick");
        assert!(!run.effects.is_empty(), "kept while the result shows");
        after_tick(&mut run, &mut playing, &[], None, None).expect("a tick");
        assert!(run.effects.is_empty(), "a new match begins clean");
    }

    #[test]
    fn a_match_is_decided_when_its_last_round_is_over() {
        assert!(decided(&Recorder::new(true)));
        assert!(!decided(&Recorder::new(false)));
    }
}
