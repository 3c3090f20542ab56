//! Renders scripted matches off-screen — SDL's `offscreen` video driver, a hidden window, the
//! software renderer — reads the pixels back and checks them against the snapshots: every
//! player's body and every projectile is centred on the pixel its position maps to (also
//! between ticks, and at other window sizes), and the HUD text says what the state says. A rail
//! shot's beam runs from the shooter along its aim; with `--remote-view past` a remote player is
//! drawn at its pose-history pose, with the debug overlay's hitbox ring around it.
//!
//! The arena's placement is measured from the image itself (the bounding box of the wall
//! colours), not taken from the game's layout code, so a renderer that put anything in the
//! wrong place would fail here.

#[path = "support/text.rs"]
mod text;

use engine::{
    buttons, Action, EventKind, InputCmd, PlayerId, Rules, ShotRecord, Tile, ViewTime,
    WorldSnapshot,
};
use glam::Vec2;
use sample_game::{
    draw::palette, BitmapFont, Effects, KeyBindings, Layout, LocalMatch, MatchSource, NetMode,
    NetView, Overlay, Renderer, Scene, ShownView, Waiting, CELL_H,
};
use sdl2::pixels::{Color, PixelFormatEnum};
use std::sync::Mutex;

/// SDL allows one context at a time, on one thread: tests take turns.
static SDL: Mutex<()> = Mutex::new(());

/// A frame read back from the renderer.
struct Frame {
    width: u32,
    height: u32,
    rgba: Vec<u8>,
}

impl Frame {
    fn at(&self, x: i32, y: i32) -> Option<Color> {
        if x < 0 || y < 0 || x >= self.width as i32 || y >= self.height as i32 {
            return None;
        }
        let i = (y as usize * self.width as usize + x as usize) * 4;
        let p = &self.rgba[i..i + 4];
        Some(Color::RGBA(p[0], p[1], p[2], p[3]))
    }

    fn at_v(&self, p: Vec2) -> Option<Color> {
        self.at(p.x as i32, p.y as i32)
    }

    fn is_v(&self, p: Vec2, c: Color) -> bool {
        self.is(p.x as i32, p.y as i32, c)
    }

    fn is(&self, x: i32, y: i32, c: Color) -> bool {
        self.at(x, y)
            .is_some_and(|p| (p.r, p.g, p.b) == (c.r, c.g, c.b))
    }

    /// Bounding box `(left, top, right, bottom)` (inclusive) of the pixels of colour `c`
    /// within `radius` pixels of `centre`.
    fn bbox(&self, centre: Vec2, radius: i32, c: Color) -> Option<(i32, i32, i32, i32)> {
        let (cx, cy) = (centre.x as i32, centre.y as i32);
        let mut found: Option<(i32, i32, i32, i32)> = None;
        for y in cy - radius..=cy + radius {
            for x in cx - radius..=cx + radius {
                if self.is(x, y, c) {
                    found = Some(match found {
                        None => (x, y, x, y),
                        Some((l, t, r, b)) => (l.min(x), t.min(y), r.max(x), b.max(y)),
                    });
                }
            }
        }
        found
    }

    /// Where the arena is in the image, measured from the wall colours: its top-left pixel
    /// and the tile size. The arena's outer border is solid wall, so the walls' bounding box
    /// is the arena.
    fn arena(&self, maze_tiles: (u32, u32)) -> (Vec2, f32) {
        let walls = [palette::WALL_TOP, palette::WALL_RIM, palette::WALL_FRONT];
        let (mut l, mut t, mut r, mut b) = (i32::MAX, i32::MAX, i32::MIN, i32::MIN);
        for y in 0..self.height as i32 {
            for x in 0..self.width as i32 {
                if walls.iter().any(|&c| self.is(x, y, c)) {
                    (l, t, r, b) = (l.min(x), t.min(y), r.max(x), b.max(y));
                }
            }
        }
        let (w, h) = ((r - l + 1) as f32, (b - t + 1) as f32);
        let tile = w / maze_tiles.0 as f32;
        assert!(
            (h / maze_tiles.1 as f32 - tile).abs() < 1e-3,
            "arena {w}x{h} px is not {maze_tiles:?} square tiles"
        );
        assert_eq!(tile.fract(), 0.0, "tiles must be whole pixels, got {tile}");
        (Vec2::new(l as f32, t as f32), tile)
    }

    /// Whether `text` appears drawn in colour `c` at text scale `scale`, anywhere: every lit
    /// font pixel is `c`, every unlit one is not.
    fn find_text(&self, font: &BitmapFont, text: &str, c: Color) -> Option<(i32, i32, u32)> {
        text::find_text(font, text, c, 4, (self.width, self.height), |x, y, c| {
            self.is(x, y, c)
        })
    }
}

/// What to draw.
struct Shot<'a> {
    current: &'a WorldSnapshot,
    previous: &'a WorldSnapshot,
    alpha: f32,
    net: Option<&'a NetView>,
    overlay: Overlay,
    size: (u32, u32),
}

impl<'a> Shot<'a> {
    /// The state at `current` (fully interpolated from `previous`), with nothing over it.
    fn plain(
        current: &'a WorldSnapshot,
        previous: &'a WorldSnapshot,
        size: (u32, u32),
    ) -> Shot<'a> {
        Shot {
            current,
            previous,
            alpha: 1.0,
            net: None,
            overlay: Overlay::None,
            size,
        }
    }
}

/// What else a frame may show: effects, remote players in the past, the rail debug overlay.
struct Extras<'a> {
    effects: &'a Effects,
    shown: ShownView,
    local_players: &'a [PlayerId],
    rail_debug: bool,
    timeline: Option<sample_game::Timeline>,
    training: Option<&'a sample_game::TrainingView>,
    /// The one-line netcode summary drawn while the panel is closed.
    net_line: Option<&'a NetView>,
}

impl<'a> Extras<'a> {
    /// Just `effects`: both players local, no overlay, no timeline.
    fn effects(effects: &'a Effects) -> Extras<'a> {
        Extras {
            effects,
            shown: ShownView::default(),
            local_players: &[0, 1],
            rail_debug: false,
            timeline: None,
            training: None,
            net_line: None,
        }
    }
}

/// Draws a scene in a hidden window of SDL's offscreen driver with the software renderer and
/// reads it back.
fn render(shot: &Shot<'_>) -> Frame {
    render_with(shot, &Extras::effects(&Effects::new()))
}

/// [`render`] with effects, a past view of the remote players and the debug overlay.
fn render_with(shot: &Shot<'_>, extras: &Extras<'_>) -> Frame {
    let _turn = SDL.lock().unwrap_or_else(|e| e.into_inner());
    std::env::set_var("SDL_VIDEODRIVER", "offscreen");
    let sdl = sdl2::init().expect("SDL init");
    let video = sdl.video().expect("offscreen video driver");
    let window = video
        .window("render test", shot.size.0, shot.size.1)
        .hidden()
        .build()
        .expect("offscreen window");
    let mut canvas = window
        .into_canvas()
        .software()
        .build()
        .expect("software renderer");
    let rules = Rules::default();
    let bindings = KeyBindings::default();
    let scene = Scene {
        current: shot.current,
        previous: shot.previous,
        alpha: shot.alpha,
        rules: &rules,
        shown: extras.shown,
        local_players: extras.local_players,
        rail_debug: extras.rail_debug,
        net: shot.net,
        net_line: extras.net_line,
        effects: extras.effects,
        overlay: shot.overlay,
        bindings: &bindings,
        controllers: &[],
        after_match: sample_game::AfterMatch {
            rematch: sample_game::Rematch::AtOnce,
            other_level: None,
        },
        smoothing: None,
        ended: None,
        timeline: extras.timeline,
        from_menu: false,
        training: extras.training,
    };
    Renderer::default()
        .draw(&mut canvas, &scene)
        .expect("draws");
    let (width, height) = canvas.output_size().expect("size");
    assert_eq!((width, height), shot.size);
    let rgba = canvas
        .read_pixels(None, PixelFormatEnum::RGBA32)
        .expect("read pixels");
    Frame {
        width,
        height,
        rgba,
    }
}

/// Seed 43's first maze has long straight corridors along both players' starting rows.
const SEED: u64 = 43;

/// A scripted match: through the countdown and up to tick 110 both players stand and fire
/// along their rows (each starts facing the far side); then they run, player 1 right and
/// player 2 left. Returns the (previous, current) snapshots at each tick in `ticks`.
fn scripted(ticks: &[u32]) -> Vec<(WorldSnapshot, WorldSnapshot)> {
    let mut source = LocalMatch::new(Rules::default(), SEED).expect("match");
    let mut out = Vec::new();
    let last = *ticks.iter().max().expect("ticks");
    for tick in 0..last {
        let (p1, p2) = if tick < 110 {
            let fire = InputCmd {
                buttons: buttons::SHOOT,
                ..InputCmd::idle(tick)
            };
            (fire, fire)
        } else {
            let run = |x| InputCmd {
                move_x: x,
                ..InputCmd::idle(tick)
            };
            (run(127), run(-127))
        };
        source.advance(&[p1, p2]).expect("step");
        if ticks.contains(&(tick + 1)) {
            out.push((source.previous().clone(), source.current().clone()));
        }
    }
    out
}

fn pos(v: engine::FxVec) -> Vec2 {
    Vec2::new(v.x.to_num::<f32>(), v.y.to_num::<f32>())
}

/// Asserts the pixels of colour `c` near `expected` form a blob centred there (±1 px).
fn assert_centred(frame: &Frame, expected: Vec2, search: i32, c: Color, what: &str) {
    let (l, t, r, b) = frame
        .bbox(expected, search, c)
        .unwrap_or_else(|| panic!("{what}: no pixel of its colour near {expected}"));
    let centre = Vec2::new((l + r) as f32 / 2.0 + 0.5, (t + b) as f32 / 2.0 + 0.5);
    assert!(
        (centre - expected).abs().max_element() <= 1.0,
        "{what}: drawn centred at {centre}, snapshot says {expected}"
    );
    assert!(
        frame.is(expected.x as i32, expected.y as i32, c),
        "{what}: the pixel at {expected} is {:?}",
        frame.at(expected.x as i32, expected.y as i32)
    );
}

/// Checks every player body and every clear-standing projectile of `current` at `alpha`.
fn check_positions(frame: &Frame, prev: &WorldSnapshot, cur: &WorldSnapshot, alpha: f32) -> usize {
    let (origin, tile) = frame.arena((cur.maze.width, cur.maze.height));
    let rules = Rules::default();
    let body_r = (rules.pushbox_radius.to_num::<f32>() * tile) as i32;
    let to_screen = |v: Vec2| origin + v * tile;
    for p in &cur.players {
        assert!(
            !matches!(p.action, Action::Ko | Action::Hitstun),
            "the script keeps players in plain colours"
        );
        let before = pos(prev.players[usize::from(p.id)].pos);
        let expected = to_screen(before.lerp(pos(p.pos), alpha));
        let what = format!("tick {} alpha {alpha} player {}", cur.tick, p.id + 1);
        assert_centred(frame, expected, body_r + 2, palette::player(p.id), &what);
        for other in cur.players.iter().filter(|o| o.id != p.id) {
            let there = to_screen(pos(other.pos));
            assert!(
                !frame.is(there.x as i32, there.y as i32, palette::player(p.id)),
                "player {}'s colour at player {}'s position",
                p.id + 1,
                other.id + 1
            );
        }
    }
    let mut checked = 0;
    for shot in &cur.projectiles {
        let at = pos(shot.pos) - pos(shot.vel) * (1.0 - alpha);
        let clear = cur.players.iter().all(|p| (pos(p.pos) - at).length() > 1.0)
            && cur
                .projectiles
                .iter()
                .filter(|o| o.id != shot.id)
                .all(|o| (pos(o.pos) - pos(shot.pos)).length() > 0.5);
        if clear {
            let what = format!("tick {} projectile {}", cur.tick, shot.id);
            assert_centred(frame, to_screen(at), 6, palette::shot(shot.owner), &what);
            checked += 1;
        }
    }
    checked
}

#[test]
fn players_and_projectiles_are_drawn_where_the_snapshot_puts_them() {
    let mut projectiles = 0;
    for (prev, cur) in scripted(&[30, 66, 75, 84, 93, 100]) {
        let frame = render(&Shot::plain(&cur, &prev, (1280, 800)));
        projectiles += check_positions(&frame, &prev, &cur, 1.0);
    }
    assert!(
        projectiles >= 10,
        "the script puts shots in flight; checked {projectiles}"
    );
}

#[test]
fn between_ticks_positions_are_interpolated() {
    let (prev, cur) = scripted(&[130]).remove(0);
    let moved = pos(cur.players[0].pos) - pos(prev.players[0].pos);
    assert!(moved.length() > 0.05, "player 1 is running");
    let moved = pos(cur.players[1].pos) - pos(prev.players[1].pos);
    assert!(moved.length() > 0.05, "player 2 is running");
    for alpha in [0.0, 0.5] {
        let frame = render(&Shot {
            current: &cur,
            previous: &prev,
            alpha,
            net: None,
            overlay: Overlay::None,
            size: (1280, 800),
        });
        check_positions(&frame, &prev, &cur, alpha);
    }
}

#[test]
fn positions_hold_at_other_window_sizes() {
    let (prev, cur) = scripted(&[84]).remove(0);
    assert!(!cur.projectiles.is_empty());
    for size in [(640, 400), (1000, 1000), (1920, 1080)] {
        let frame = render(&Shot {
            current: &cur,
            previous: &prev,
            alpha: 1.0,
            net: None,
            overlay: Overlay::None,
            size,
        });
        check_positions(&frame, &prev, &cur, 1.0);
    }
}

#[test]
fn the_hud_shows_the_round_and_the_netcode_panel_the_state_hash() {
    let mut source = LocalMatch::new(Rules::default(), SEED).expect("match");
    for _ in 0..90 {
        source.advance(&[InputCmd::idle(0); 2]).expect("step");
    }
    let net = source.net_view();
    let hash = net
        .confirmed_hash
        .expect("local play hashes every tick")
        .short();
    let frame = render(&Shot {
        current: source.current(),
        previous: source.previous(),
        alpha: 1.0,
        net: Some(&net),
        overlay: Overlay::None,
        size: (1280, 800),
    });
    let font = BitmapFont::embedded();
    assert!(
        frame.find_text(&font, &hash, palette::ACCENT).is_some(),
        "hash {hash} not shown"
    );
    assert!(frame
        .find_text(&font, "90 pred / 90 conf", palette::TEXT)
        .is_some());
    assert!(frame.find_text(&font, "NETCODE", palette::ACCENT).is_some());
    let (_, y, _) = frame
        .find_text(&font, "ROUND 1", palette::ACCENT)
        .expect("round shown");
    assert!(
        y < 40,
        "the round is in the HUD strip at the top, found at y = {y}"
    );
    assert!(frame.find_text(&font, "P1", palette::player(0)).is_some());
    assert!(frame.find_text(&font, "P2", palette::player(1)).is_some());
    // The check can fail: a hash that is not the state's is not found.
    let wrong = if hash == "00000000" {
        "11111111"
    } else {
        "00000000"
    };
    assert!(frame.find_text(&font, wrong, palette::ACCENT).is_none());
}

/// Online with the panel closed, one line at the arena's bottom right says the ping, the
/// rollbacks a second and the input delay; in local play there is no such line.
#[test]
fn online_the_closed_panel_leaves_one_line_of_ping_rollbacks_and_delay() {
    let (prev, cur) = scripted(&[10]).remove(0);
    let font = BitmapFont::embedded();
    let mut net = NetView::local(10, engine::StateHash::default());
    let shot = Shot::plain(&cur, &prev, (1280, 800));
    let line = "ping 42 ms  rb 3/s  delay 2  Tab";
    let local = render_with(
        &shot,
        &Extras {
            net_line: Some(&net),
            ..Extras::effects(&Effects::new())
        },
    );
    assert!(local.find_text(&font, "ping", palette::TEXT_DIM).is_none());
    net.mode = NetMode::Join;
    net.ping_ms = Some(42);
    net.rollbacks_per_second = Some(3.0);
    net.input_delay = Some(2);
    let frame = render_with(
        &shot,
        &Extras {
            net_line: Some(&net),
            ..Extras::effects(&Effects::new())
        },
    );
    let (x, y, scale) = frame
        .find_text(&font, line, palette::TEXT_DIM)
        .expect("the line is drawn");
    let layout = Layout::new(shot.size, (21, 15));
    let maze = layout.maze_rect();
    let right = x + BitmapFont::text_width(line, scale) as i32;
    assert!(
        (maze.right() - 4 * scale as i32..=maze.right()).contains(&right),
        "ends at the arena's right edge: {right} vs {}",
        maze.right()
    );
    assert!(
        (maze.bottom() - 3 * CELL_H as i32 * scale as i32..maze.bottom()).contains(&y),
        "on the arena's last line: {y} vs {}",
        maze.bottom()
    );
}

#[test]
fn a_silent_peer_is_shown_over_the_arena_with_who_is_missing_and_the_time_left() {
    let (prev, cur) = scripted(&[10]).remove(0);
    let font = BitmapFont::embedded();
    let mut net = NetView::local(10, engine::StateHash::default());
    net.reconnecting = Some(Waiting {
        who: "the other player",
        seconds_left: 27,
    });
    let shot = Shot {
        current: &cur,
        previous: &prev,
        alpha: 1.0,
        net: Some(&net),
        overlay: Overlay::None,
        size: (640, 400),
    };
    // A small window, so the title's scale is one the text finder reads.
    let frame = render(&shot);
    assert!(frame
        .find_text(&font, "RECONNECTING", palette::ACCENT)
        .is_some());
    assert!(frame
        .find_text(
            &font,
            "waiting for the other player: 27 s left",
            palette::TEXT
        )
        .is_some());
    // It stands in for the round's banner, and goes once the peer is back.
    assert!(frame.find_text(&font, "ROUND 1", palette::TEXT).is_none());
    let net = NetView {
        reconnecting: None,
        resynced: None,
        catching_up: None,
        ..net.clone()
    };
    let back = render(&Shot {
        net: Some(&net),
        current: &cur,
        previous: &prev,
        alpha: 1.0,
        overlay: Overlay::None,
        size: (640, 400),
    });
    assert!(back
        .find_text(&font, "RECONNECTING", palette::ACCENT)
        .is_none());
    assert!(back.find_text(&font, "ROUND 1", palette::TEXT).is_some());
}

/// A ready player whose match cannot start until the other presses a key is told so over the
/// frozen countdown (a fair start online), instead of the round's banner.
#[test]
fn a_player_waiting_for_the_other_to_be_ready_is_told_so() {
    let (prev, cur) = scripted(&[10]).remove(0);
    let font = BitmapFont::embedded();
    let net = NetView {
        waiting_to_start: true,
        ..NetView::local(10, engine::StateHash::default())
    };
    let frame = render(&Shot {
        current: &cur,
        previous: &prev,
        alpha: 1.0,
        net: Some(&net),
        overlay: Overlay::None,
        size: (640, 400),
    });
    let [title, line] = sample_game::waiting_to_start_lines();
    assert!(frame.find_text(&font, &title, palette::ACCENT).is_some());
    assert!(frame.find_text(&font, &line, palette::TEXT).is_some());
    assert!(frame.find_text(&font, "ROUND 1", palette::TEXT).is_none());
}

/// A repaired desync is said over the arena while the notice lasts, then the round's banner
/// is back; so is a late spectator catching up.
#[test]
fn a_repaired_desync_is_said_over_the_arena() {
    let (prev, cur) = scripted(&[10]).remove(0);
    let font = BitmapFont::embedded();
    let mut net = NetView::local(10, engine::StateHash::default());
    net.resynced = Some((150, 153));
    let shot = |net: &NetView| {
        render(&Shot {
            current: &cur,
            previous: &prev,
            alpha: 1.0,
            net: Some(net),
            overlay: Overlay::None,
            size: (640, 400),
        })
    };
    let frame = shot(&net);
    assert!(frame
        .find_text(&font, "RESYNCED", palette::ACCENT)
        .is_some());
    assert!(frame.find_text(&font, "ROUND 1", palette::TEXT).is_none());
    net.resynced = None;
    let after = shot(&net);
    assert!(after
        .find_text(&font, "RESYNCED", palette::ACCENT)
        .is_none());
    assert!(after.find_text(&font, "ROUND 1", palette::TEXT).is_some());
    // A spectator that joined late, catching up.
    net.catching_up = Some(420);
    let catching = shot(&net);
    assert!(catching
        .find_text(&font, "CATCHING UP", palette::ACCENT)
        .is_some());
    assert!(catching
        .find_text(&font, "ROUND 1", palette::TEXT)
        .is_none());
}

#[test]
fn overlays_and_banners_read_right() {
    let (prev, cur) = scripted(&[10]).remove(0);
    let font = BitmapFont::embedded();
    let base = Shot {
        current: &cur,
        previous: &prev,
        alpha: 1.0,
        net: None,
        overlay: Overlay::Controls { at_start: true },
        size: (1280, 800),
    };
    let controls = render(&base);
    assert!(controls
        .find_text(&font, "Press any key to start", palette::ACCENT)
        .is_some());
    let countdown = render(&Shot {
        overlay: Overlay::None,
        ..base
    });
    assert!(countdown
        .find_text(&font, "ROUND 1", palette::TEXT)
        .is_some());
    let paused = render(&Shot {
        overlay: Overlay::Paused,
        ..base
    });
    assert!(paused
        .find_text(&font, "P to resume, F1 for controls", palette::TEXT)
        .is_some());
}

/// With one local player (online, against the bot) the match result reads YOU WIN or YOU LOSE
/// on that player's screen, and by name where both players are local.
#[test]
fn the_result_is_said_from_the_local_players_side() {
    let (prev, cur) = scripted(&[10]).remove(0);
    let mut over = cur.clone();
    over.round.phase = engine::RoundPhase::MatchOver;
    over.round.last_winner = Some(0);
    over.round.wins = [2, 1, 0, 0];
    let font = BitmapFont::embedded();
    let shot = Shot {
        current: &over,
        previous: &prev,
        alpha: 1.0,
        net: None,
        overlay: Overlay::None,
        // Text scale 1: the result's size-3 line is within what find_text looks for.
        size: (640, 400),
    };
    let effects = Effects::new();
    let seen_by = |local: &'static [PlayerId]| {
        render_with(
            &shot,
            &Extras {
                local_players: local,
                ..Extras::effects(&effects)
            },
        )
    };
    let winner = seen_by(&[0]);
    assert!(winner
        .find_text(&font, "YOU WIN", palette::player(0))
        .is_some());
    assert!(winner
        .find_text(&font, "YOU LOSE", palette::DANGER)
        .is_none());
    let loser = seen_by(&[1]);
    assert!(loser
        .find_text(&font, "YOU LOSE", palette::DANGER)
        .is_some());
    assert!(loser
        .find_text(&font, "YOU WIN", palette::player(0))
        .is_none());
    let both = seen_by(&[0, 1]);
    assert!(both
        .find_text(&font, "PLAYER 1 WINS THE MATCH", palette::player(0))
        .is_some());
}

/// The training room's frame meter, drawn below the arena: a melee whiff after the countdown shows exactly
/// the rules' startup, active and recovery cells (counted as runs of each colour along the
/// swinger's row), the dummy's row only free frames, and the line of the swing's frames.
#[test]
fn the_training_meter_draws_a_whiff_frame_by_frame() {
    use sample_game::{frame_color, FrameKind, MatchSource, TrainingMatch};
    let rules = Rules::default();
    let mut room = TrainingMatch::new(rules.clone(), SEED, sample_game::LocalLogs::default())
        .expect("a training room");
    while room.current().round.phase != engine::RoundPhase::Fighting {
        room.advance(&[InputCmd::idle(0)]).expect("tick");
    }
    let mut swing = InputCmd::idle(0);
    swing.buttons = engine::buttons::MELEE;
    room.advance(&[swing]).expect("swing");
    for _ in 0..40 {
        room.advance(&[InputCmd::idle(0)]).expect("tick");
    }
    let view = room.training().expect("a training view");
    let (cur, prev) = (room.current().clone(), room.previous().clone());
    let effects = Effects::new();
    let frame = render_with(
        &Shot::plain(&cur, &prev, (1280, 800)),
        &Extras {
            local_players: &[0],
            training: Some(&view),
            ..Extras::effects(&effects)
        },
    );
    // The swinger's row: the scanline through its first startup cell.
    let startup = frame_color(FrameKind::Startup);
    let (_, y) = (0..frame.height as i32)
        .flat_map(|y| (0..frame.width as i32).map(move |x| (x, y)))
        .find(|&(x, y)| frame.is(x, y, startup))
        .expect("startup cells drawn");
    // The panel sits below the arena, which fits above it.
    let (origin, tile) = frame.arena((cur.maze.width, cur.maze.height));
    let arena_bottom = origin.y + tile * cur.maze.height as f32;
    assert!(
        y as f32 >= arena_bottom,
        "the meter at {y} px, the arena ends at {arena_bottom}"
    );
    let y = y + 2;
    let runs = |kind: FrameKind| {
        let c = frame_color(kind);
        let mut n = 0;
        let mut inside = false;
        for x in 0..frame.width as i32 {
            let here = frame.is(x, y, c);
            n += u16::from(here && !inside);
            inside = here;
        }
        n
    };
    assert_eq!(runs(FrameKind::Startup), rules.melee_startup);
    assert_eq!(runs(FrameKind::Active), rules.melee_active);
    assert_eq!(runs(FrameKind::Recovery), rules.melee_recovery);
    let font = BitmapFont::embedded();
    let line = format!(
        "startup {}  active {}  recovery {}",
        rules.melee_startup, rules.melee_active, rules.melee_recovery
    );
    assert!(
        frame.find_text(&font, &line, palette::ACCENT).is_some(),
        "the swing's frames are printed"
    );
}

#[test]
fn blocks_show_their_damage() {
    let (prev, mut cur) = scripted(&[5]).remove(0);
    let rules = Rules::default();
    // Three blocks side by side on the top border row: intact, cracked, failing.
    let width = cur.maze.width;
    for (i, hp) in [rules.block_hp, 2, 1].into_iter().enumerate() {
        cur.maze.tiles[2 + i * 2] = Tile::block(hp);
    }
    let frame = render(&Shot::plain(&cur, &prev, (1280, 800)));
    let (origin, tile) = frame.arena((width, cur.maze.height));
    let count = |x: u32, c: Color| {
        let mut n = 0;
        for dy in 0..tile as i32 {
            for dx in 0..tile as i32 {
                let px = origin + Vec2::new(x as f32 * tile, 0.0);
                if frame.is(px.x as i32 + dx, px.y as i32 + dy, c) {
                    n += 1;
                }
            }
        }
        n
    };
    let cracks: Vec<usize> = [2, 4, 6]
        .iter()
        .map(|&x| count(x, palette::CRACK))
        .collect();
    assert_eq!(cracks[0], 0, "an intact block has no cracks");
    assert!(
        cracks[1] > 0 && cracks[2] > cracks[1],
        "cracks grow: {cracks:?}"
    );
    assert!(count(2, palette::BLOCK) > 0 && count(4, palette::BLOCK_WORN) > 0);
    assert!(count(6, palette::BLOCK_FAILING) > 0);
}

/// Every window size draws, down to 1x1, with damaged blocks, the netcode panel and each
/// overlay (regression: 64x64 and 200x70 windows panicked on a `u32` underflow drawing
/// blocks one or two pixels wide).
#[test]
fn small_windows_draw_without_panicking() {
    let mut source = LocalMatch::new(Rules::default(), SEED).expect("match");
    for _ in 0..90 {
        source.advance(&[InputCmd::idle(0); 2]).expect("step");
    }
    let net = source.net_view();
    let mut cur = source.current().clone();
    for (i, hp) in [Rules::default().block_hp, 2, 1].into_iter().enumerate() {
        cur.maze.tiles[2 + i * 2] = Tile::block(hp);
    }
    let overlays = [
        Overlay::None,
        Overlay::Paused,
        Overlay::Controls { at_start: true },
    ];
    for size in [
        (1, 1),
        (2, 2),
        (7, 3),
        (64, 64),
        (200, 70),
        (70, 200),
        (333, 97),
        (4096, 64),
        (64, 4096),
    ] {
        for (i, overlay) in overlays.into_iter().enumerate() {
            render(&Shot {
                current: &cur,
                previous: source.previous(),
                alpha: 0.5,
                net: (i == 0).then_some(&net),
                overlay,
                size,
            });
        }
    }
}

/// Tolerant colour match, for translucent effects blended over the floor.
fn near(c: Option<Color>, want: Color, tolerance: i32) -> bool {
    c.is_some_and(|c| {
        let d = |a: u8, b: u8| (i32::from(a) - i32::from(b)).abs();
        d(c.r, want.r) <= tolerance && d(c.g, want.g) <= tolerance && d(c.b, want.b) <= tolerance
    })
}

/// Seed 43 with player 1 tapping the rail (every other tick, so each fight tick after the
/// countdown has a fresh press) until it fires. Returns the effects and snapshots `after`
/// ticks after the shot's tick, and the shot.
fn rail_shot(after: u32) -> (Effects, WorldSnapshot, WorldSnapshot, ShotRecord) {
    let mut source = LocalMatch::new(Rules::default(), SEED).expect("match");
    let mut effects = Effects::new();
    let mut fired = None;
    for tick in 0..400u32 {
        let press = fired.is_none() && tick.is_multiple_of(2);
        let p1 = InputCmd {
            buttons: if press { buttons::RAIL } else { 0 },
            ..InputCmd::idle(tick)
        };
        let events = source.advance(&[p1, InputCmd::idle(tick)]).expect("step");
        effects.on_tick(&events, source.previous(), source.current());
        for e in &events {
            if let EventKind::RailShot(shot) = e.kind {
                if shot.shooter == 0 && fired.is_none() {
                    fired = Some((e.tick, shot));
                }
            }
        }
        if let Some((at, shot)) = fired {
            if source.current().tick == at + 1 + after {
                let (prev, cur) = (source.previous().clone(), source.current().clone());
                return (effects, prev, cur, shot);
            }
        }
    }
    panic!("player 1's rail never fired");
}

/// The rail beam starts at the shooter and runs along its aim for the shot's distance: on the
/// first frame after the shot's tick its pixels are the shooter's shot colour all along the
/// ray, and not off it.
#[test]
fn a_rail_shot_draws_its_beam_from_the_shooter_along_its_aim() {
    let (effects, prev, cur, shot) = rail_shot(0);
    let me = &cur.players[0];
    assert_eq!(
        pos(shot.origin),
        pos(me.pos),
        "the ray starts at the shooter"
    );
    assert_eq!(pos(shot.dir), pos(me.aim), "along its aim");
    let length = shot.distance.to_num::<f32>();
    assert!(
        length > 3.0,
        "seed 43's long corridor: a long ray ({length})"
    );
    let shot_frame = |effects: &Effects| {
        render_with(
            &Shot {
                current: &cur,
                previous: &prev,
                alpha: 0.0,
                net: None,
                overlay: Overlay::None,
                size: (1280, 800),
            },
            &Extras::effects(effects),
        )
    };
    let frame = shot_frame(&effects);
    let (origin, tile) = frame.arena((cur.maze.width, cur.maze.height));
    let to_screen = |v: Vec2| origin + v * tile;
    let colour = palette::shot(0);
    let (from, dir) = (pos(shot.origin), pos(shot.dir));
    // Along the ray, clear of the shooter's body and of whatever it met.
    let samples: Vec<Vec2> = (0..40)
        .map(|i| from + dir * (0.7 + (length - 1.4) * i as f32 / 39.0))
        .collect();
    let on_ray = samples
        .iter()
        .filter(|&&p| {
            let at = to_screen(p);
            frame.is(at.x as i32, at.y as i32, colour)
        })
        .count();
    assert_eq!(on_ray, samples.len(), "the beam covers the whole ray");
    // Off the ray (half a tile to the side) it does not.
    let side = dir.perp() * 0.5;
    let off = samples
        .iter()
        .filter(|&&p| near(frame.at_v(to_screen(p + side)), colour, 0))
        .count();
    assert_eq!(off, 0, "nothing of the beam's colour half a tile beside it");
    // Without the effect, no such pixels: the beam is the effect's, not the barrel's.
    let bare = shot_frame(&Effects::new());
    let lit = samples
        .iter()
        .filter(|&&p| {
            let at = to_screen(p);
            bare.is(at.x as i32, at.y as i32, colour)
        })
        .count();
    assert!(
        lit < 3,
        "{lit} pixels of the shot colour on the ray without the beam"
    );
}

/// On later ticks the beam fades, but stays on the same line.
#[test]
fn the_beam_fades_along_the_same_ray() {
    let (effects, prev, cur, shot) = rail_shot(2);
    let frame = render_with(
        &Shot {
            current: &cur,
            previous: &prev,
            alpha: 0.5,
            net: None,
            overlay: Overlay::None,
            size: (1280, 800),
        },
        &Extras::effects(&effects),
    );
    let (origin, tile) = frame.arena((cur.maze.width, cur.maze.height));
    let length = shot.distance.to_num::<f32>();
    let (from, dir) = (pos(shot.origin), pos(shot.dir));
    let mid = origin + (from + dir * length * 0.5) * tile;
    let c = frame.at_v(mid).expect("inside");
    assert!(
        near(Some(c), palette::shot(0), 40),
        "the fading beam still reads as the shooter's colour mid-ray: {c:?}"
    );
    assert!(
        !frame.is(mid.x as i32, mid.y as i32, palette::shot(0)),
        "translucent now"
    );
}

/// In past mode the remote body is drawn at its pose-history pose for the view shown (and the
/// debug overlay's hitbox ring around it), the local one where it is.
#[test]
fn past_mode_draws_the_remote_player_from_history() {
    let (prev, cur) = scripted(&[130]).remove(0);
    let rules = Rules::default();
    let shown = ShownView {
        tick: cur.tick,
        back: 8,
        alpha_256: 0,
    };
    let view = ViewTime {
        ticks_back: 9,
        frac: 0,
    };
    let past = cur
        .pose_history
        .pose_at(1, cur.tick, view, rules.pose_history_ticks)
        .pose;
    assert!(
        (pos(past.pos) - pos(cur.players[1].pos)).length() > 0.5,
        "player 2 has been running for 20 ticks"
    );
    let effects = Effects::new();
    let frame = render_with(
        &Shot {
            current: &cur,
            previous: &prev,
            alpha: 0.0,
            net: None,
            overlay: Overlay::None,
            size: (1280, 800),
        },
        &Extras {
            effects: &effects,
            shown,
            local_players: &[0],
            rail_debug: true,
            timeline: None,
            training: None,
            net_line: None,
        },
    );
    let (origin, tile) = frame.arena((cur.maze.width, cur.maze.height));
    let to_screen = |v: Vec2| origin + v * tile;
    let body_r = (rules.pushbox_radius.to_num::<f32>() * tile) as i32;
    let there = to_screen(pos(past.pos));
    assert_centred(
        &frame,
        there,
        body_r + 2,
        palette::player(1),
        "remote, past",
    );
    let now = to_screen(pos(cur.players[1].pos));
    assert!(
        !frame.is(now.x as i32, now.y as i32, palette::player(1)),
        "not predicted"
    );
    let me = to_screen(pos(prev.players[0].pos));
    assert_centred(
        &frame,
        me,
        body_r + 2,
        palette::player(0),
        "local, predicted",
    );
    // The debug ring: the hitbox radius around the past pose.
    let r = past.radius.to_num::<f32>() * tile - 1.0;
    let ring = [Vec2::X, Vec2::NEG_X, Vec2::Y, Vec2::NEG_Y]
        .iter()
        .filter(|&&d| frame.is_v(there + d * r, palette::DEBUG))
        .count();
    assert!(
        ring >= 3,
        "the rewound hitbox ring around the past body ({ring}/4)"
    );
}

/// A replay shows its label and a timeline along the bottom, filled up to where it stands.
#[test]
fn a_replay_draws_its_timeline_filled_to_where_it_stands() {
    let states = scripted(&[60]);
    let (prev, cur) = &states[0];
    let size = (1000, 700);
    let effects = Effects::new();
    let timeline = sample_game::Timeline {
        tick: 750,
        last: 1500,
        paused: true,
    };
    let frame = render_with(
        &Shot {
            current: cur,
            previous: prev,
            alpha: 1.0,
            net: None,
            overlay: Overlay::None,
            size,
        },
        &Extras {
            effects: &effects,
            shown: ShownView::default(),
            local_players: &[0, 1],
            rail_debug: false,
            timeline: Some(timeline),
            training: None,
            net_line: None,
        },
    );
    let layout = sample_game::Layout::new(size, (cur.maze.width, cur.maze.height));
    let bar = sample_game::draw::timeline::bar(&layout);
    let y = bar.y() + bar.height() as i32 / 2;
    let at = |share: f32| bar.x() + (bar.width() as f32 * share) as i32;
    assert!(
        frame.is(at(0.25), y, sample_game::draw::palette::ACCENT),
        "played part"
    );
    assert!(
        !frame.is(at(0.75), y, sample_game::draw::palette::ACCENT),
        "the rest"
    );
}

/// A solid melee hit (issue 10's "feel"): the arena shakes while the HUD stays exactly where
/// it was, and the damage number is drawn, readable, in the text colour. Presentation only:
/// the same snapshot is drawn with and without the hit's effects.
#[test]
fn a_solid_hit_shakes_the_arena_not_the_hud_and_shows_its_damage() {
    let (prev, cur) = scripted(&[120]).remove(0);
    let font = BitmapFont::embedded();
    let hit = engine::Event {
        tick: cur.tick - 1,
        kind: EventKind::Hit {
            attacker: 0,
            attacker_generation: cur.players[0].generation,
            victim: 1,
            damage: 18,
            source: engine::HitSource::Melee,
        },
    };
    let mut effects = Effects::new();
    effects.on_tick(&[hit], &prev, &cur);
    let shot = Shot {
        current: &cur,
        previous: &prev,
        alpha: 0.0,
        net: None,
        overlay: Overlay::None,
        // Room around the arena, so the shaken arena is not clipped by the window's edge.
        size: (960, 760),
    };
    let still = render(&shot);
    let shaken = render_with(&shot, &Extras::effects(&effects));
    let tiles = (cur.maze.width, cur.maze.height);
    let (still_at, tile) = still.arena(tiles);
    let (shaken_at, _) = shaken.arena(tiles);
    assert_ne!(still_at, shaken_at, "the arena moved");
    assert!(
        (shaken_at - still_at).length() <= tile * 0.3,
        "by a shake, not a jump: {still_at} → {shaken_at}"
    );
    // The HUD band above the arena (clear of how far a shake reaches) is pixel-identical.
    let band = (still_at.y - tile * 0.3) as usize;
    assert!(band > 10, "a HUD band to compare");
    let row = still.width as usize * 4;
    assert_eq!(
        still.rgba[..band * row],
        shaken.rgba[..band * row],
        "the HUD stayed put"
    );
    assert!(
        shaken.find_text(&font, "-18", palette::TEXT).is_some(),
        "the damage number is drawn"
    );
    assert!(still.find_text(&font, "-18", palette::TEXT).is_none());
}

/// Issue 18 item 10: `maze-duel --screenshot --at-tick N replay LOG` drew a fresh bot match and
/// ignored the replay. The picture is now the log's tick: two logs of different matches give
/// different pictures, and the command line's seed no longer matters.
#[test]
fn a_screenshot_of_a_replay_draws_the_logged_match() {
    let _sdl = SDL
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    let dir = std::env::temp_dir().join(format!("maze-duel-shot-replay-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("dir");
    let log = |seed: u64| {
        let path = dir.join(format!("m{seed}.log"));
        client::runs::run_bot_match(&client::runs::BotMatch {
            rules: Rules::default(),
            seed,
            bot_seed: 4,
            players: 2,
            ticks: 200,
            stop_at_match_end: false,
            hash_log: None,
            match_log: Some(path.clone()),
        })
        .expect("bot match");
        path
    };
    let (a, b) = (log(11), log(12));
    let renderer = Renderer::new(BitmapFont::load().expect("font"));
    let shot = |seed: u64, replay: &std::path::Path| {
        let shot = sample_game::Screenshot {
            seed,
            at_tick: 150,
            size: (480, 360),
            net_hud: false,
            rail_debug: false,
            remote_back: 0,
        };
        sample_game::render_to_rgba(Rules::default(), &shot, Some(replay), &renderer)
            .expect("renders")
    };
    let a1 = shot(1, &a);
    assert_eq!(
        a1,
        shot(2, &a),
        "the seed on the command line does not matter"
    );
    assert_ne!(a1, shot(1, &b), "another log is another picture");
    let past_the_end = sample_game::Screenshot {
        seed: 1,
        at_tick: 201,
        size: (480, 360),
        net_hud: false,
        rail_debug: false,
        remote_back: 0,
    };
    let err = sample_game::render_to_rgba(Rules::default(), &past_the_end, Some(&a), &renderer)
        .expect_err("past the end of the log");
    assert!(err.to_string().contains("ends at tick 200"), "{err}");
    // The log's last tick itself is there to draw.
    let last = sample_game::Screenshot {
        at_tick: 200,
        ..past_the_end
    };
    sample_game::render_to_rgba(Rules::default(), &last, Some(&a), &renderer)
        .expect("the last tick renders");
    // Player 2 drawn 8 ticks back, as player 1 sees it online: another picture (it moved).
    let back = |remote_back: u8| {
        let shot = sample_game::Screenshot {
            at_tick: 150,
            remote_back,
            ..past_the_end
        };
        sample_game::render_to_rgba(Rules::default(), &shot, Some(&a), &renderer).expect("renders")
    };
    assert_ne!(back(8), a1, "the remote player drawn in the past");
    // Seen as player 1 it is marked YOU; at the present, as a bot match, nobody is.
    let you = |rgba: Vec<u8>| {
        let frame = Frame {
            width: 480,
            height: 360,
            rgba,
        };
        let font = BitmapFont::embedded();
        frame.find_text(&font, "YOU", palette::player(0)).is_some()
    };
    assert!(you(back(8)));
    assert!(!you(back(0)));
}
