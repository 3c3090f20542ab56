//! Rendering a frame without a window: a bot match played to a chosen tick, drawn by the same
//! [`Renderer`] onto a software surface, read back as RGBA and written as a PNG.

use crate::draw::renderer::Renderer;
use crate::draw::scene::{Overlay, Scene};
use crate::input::key_bindings::KeyBindings;
use crate::matches::local_match::LocalMatch;
use crate::matches::match_source::MatchSource;
use crate::present::effects::Effects;
use crate::present::remote_view::ShownView;
use anyhow::{anyhow, Context as _};
use engine::{PlayerId, Rules};
use sdl2::pixels::PixelFormatEnum;
use sdl2::surface::Surface;
use std::fs::File;
use std::io::BufWriter;
use std::path::Path;

/// What to capture.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Screenshot {
    /// Match seed of the bot match.
    pub seed: u64,
    /// The tick to capture (the state after that many steps).
    pub at_tick: u32,
    /// Image size in pixels.
    pub size: (u32, u32),
    /// Whether to show the netcode overlay.
    pub net_hud: bool,
    /// Whether to show the rail debug overlay.
    pub rail_debug: bool,
    /// Draw the match as player 1 would see it online with `--remote-view past`, player 2
    /// drawn this many ticks back (0: as a bot match, everyone at the present).
    pub remote_back: u8,
}

/// Plays a bot match to `shot.at_tick` (or, given `replay_log`, replays that match log to it)
/// and renders that tick (no interpolation: `alpha` 1).
/// Returns the pixels as RGBA rows, top to bottom.
///
/// # Errors
/// Bad rules, or SDL failing to make a software surface or draw.
pub fn render_to_rgba(
    rules: Rules,
    shot: &Screenshot,
    replay_log: Option<&Path>,
    renderer: &Renderer,
) -> anyhow::Result<Vec<u8>> {
    let mut local;
    let mut replay;
    let source: &mut dyn MatchSource = match replay_log {
        Some(path) => {
            let log = client::logs::matchlog::read_log::<engine::World>(path)
                .with_context(|| format!("the replay {}", path.display()))?;
            replay = crate::matches::replay_match::ReplayMatch::new(log)?;
            &mut replay
        }
        None => {
            local = LocalMatch::new(rules, shot.seed)?.with_bots(&[0, 1]);
            &mut local
        }
    };
    let effects = play_to(source, shot.at_tick)?;
    let net = source.net_view();
    let bindings = KeyBindings::default();
    let (shown, local_players): (ShownView, &[PlayerId]) = if shot.remote_back > 0 {
        let tick = source.current().tick;
        (
            ShownView {
                tick,
                back: shot.remote_back,
                alpha_256: u8::MAX,
            },
            &[0],
        )
    } else {
        (ShownView::default(), source.local_players())
    };
    let scene = Scene {
        current: source.current(),
        previous: source.previous(),
        alpha: 1.0,
        rules: source.rules(),
        shown,
        local_players,
        rail_debug: shot.rail_debug,
        net: shot.net_hud.then_some(&net),
        net_line: None,
        effects: &effects,
        overlay: Overlay::None,
        bindings: &bindings,
        controllers: &[],
        after_match: crate::matches::match_source::AfterMatch {
            rematch: crate::matches::match_source::Rematch::AtOnce,
            other_level: None,
        },
        smoothing: None,
        ended: None,
        from_menu: false,
        training: None,
        timeline: None,
    };
    draw_to_rgba(renderer, &scene, shot.size)
}

/// Advances `source` (with no local input) to `at_tick`, the effects following its events.
fn play_to(source: &mut dyn MatchSource, at_tick: u32) -> anyhow::Result<Effects> {
    let mut effects = Effects::new();
    while source.current().tick < at_tick {
        let before = source.current().tick;
        let events = source.advance(&[])?;
        if source.current().tick == before {
            return Err(anyhow!(
                "the match ends at tick {before}, before tick {at_tick}"
            ));
        }
        effects.on_tick(&events, source.previous(), source.current());
    }
    Ok(effects)
}

/// `scene` drawn by `renderer` on a software canvas of `(w, h)`, read back as RGBA pixels.
fn draw_to_rgba(
    renderer: &Renderer,
    scene: &Scene<'_>,
    (w, h): (u32, u32),
) -> anyhow::Result<Vec<u8>> {
    let surface =
        Surface::new(w, h, PixelFormatEnum::RGBA32).map_err(|e| anyhow!("SDL surface: {e}"))?;
    let mut canvas = surface
        .into_canvas()
        .map_err(|e| anyhow!("SDL software renderer: {e}"))?;
    renderer
        .draw(&mut canvas, scene)
        .map_err(|e| anyhow!("drawing: {e}"))?;
    canvas
        .read_pixels(None, PixelFormatEnum::RGBA32)
        .map_err(|e| anyhow!("reading pixels back: {e}"))
}

/// Writes RGBA pixels as an 8-bit RGBA PNG.
///
/// # Errors
/// I/O or encoding errors, naming the file.
pub fn write_png(path: &Path, (width, height): (u32, u32), rgba: &[u8]) -> anyhow::Result<()> {
    let file = File::create(path).with_context(|| format!("creating {}", path.display()))?;
    let mut encoder = png::Encoder::new(BufWriter::new(file), width, height);
    encoder.set_color(png::ColorType::Rgba);
    encoder.set_depth(png::BitDepth::Eight);
    encoder.set_compression(png::Compression::Best);
    let mut writer = encoder
        .write_header()
        .with_context(|| format!("writing {}", path.display()))?;
    writer
        .write_image_data(rgba)
        .with_context(|| format!("writing {}", path.display()))?;
    writer
        .finish()
        .with_context(|| format!("writing {}", path.display()))
}

/// Draws with `draw` onto a software surface of `size` and reads the pixels back as RGBA.
pub(crate) fn render_surface(
    (w, h): (u32, u32),
    draw: impl FnOnce(&mut sdl2::render::Canvas<Surface<'static>>) -> Result<(), String>,
) -> anyhow::Result<Vec<u8>> {
    let surface =
        Surface::new(w, h, PixelFormatEnum::RGBA32).map_err(|e| anyhow!("SDL surface: {e}"))?;
    let mut canvas = surface
        .into_canvas()
        .map_err(|e| anyhow!("SDL software renderer: {e}"))?;
    draw(&mut canvas).map_err(|e| anyhow!("drawing: {e}"))?;
    canvas
        .read_pixels(None, PixelFormatEnum::RGBA32)
        .map_err(|e| anyhow!("reading pixels back: {e}"))
}

/// Renders `menu` as the window would show it, without a window. Returns RGBA rows.
///
/// # Errors
/// SDL failing to make a software surface or draw.
pub fn render_menu_to_rgba(
    menu: &crate::menu::Menu,
    size: (u32, u32),
    renderer: &Renderer,
) -> anyhow::Result<Vec<u8>> {
    render_surface(size, |canvas| {
        crate::menu::view::draw_menu(canvas, renderer.font(), menu)
    })
}

/// Renders a status screen (waiting for an opponent, connecting) without a window.
///
/// # Errors
/// SDL failing to make a software surface or draw.
pub fn render_status_to_rgba(
    status: &crate::menu::view::StatusScreen,
    size: (u32, u32),
    renderer: &Renderer,
) -> anyhow::Result<Vec<u8>> {
    render_surface(size, |canvas| {
        crate::menu::view::draw_status(canvas, renderer.font(), status)
    })
}
