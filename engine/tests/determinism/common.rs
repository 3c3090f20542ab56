//! Shared helpers: scripted arenas, input shorthands, uninterrupted runs.

use engine::HitboxHistory;
use engine::{buttons, Fx, FxVec, InputCmd, Maze, RoundPhase, Rules, Tile, World, WorldSnapshot};

/// A world in the Fighting phase on a hand-drawn arena (`#` wall, `.` floor, `1`–`9` block),
/// with player `i` standing at tile-centre coordinates `spots[i]` (e.g. `(2, 3)` → (2.5, 3.5)).
pub fn arena(rows: &[&str], spots: &[(u32, u32)]) -> World {
    arena_with(&Rules::default(), rows, spots)
}

/// [`arena`] under other rules.
pub fn arena_with(rules: &Rules, rows: &[&str], spots: &[(u32, u32)]) -> World {
    let mut world = World::new(rules.clone(), 99, spots.len()).expect("world");
    let mut snap = world.snapshot();
    let width = rows[0].len() as u32;
    let tiles = rows
        .iter()
        .flat_map(|r| r.bytes())
        .map(|c| match c {
            b'#' => Tile::WALL,
            b'.' => Tile::FLOOR,
            d @ b'1'..=b'9' => Tile::block(d - b'0'),
            other => panic!("unknown tile {other}"),
        })
        .collect();
    snap.maze = Maze {
        width,
        height: rows.len() as u32,
        tiles,
    };
    for (p, &(x, y)) in snap.players.iter_mut().zip(spots) {
        p.pos = centre(x, y);
    }
    snap.round.phase = RoundPhase::Fighting;
    snap.round.phase_timer = 0;
    snap.pose_history.reset(
        &snap.players,
        rules.pushbox_radius,
        rules.pose_history_ticks,
    );
    world.restore(&snap).expect("valid arena");
    world
}

/// The centre of tile `(x, y)`.
pub fn centre(x: u32, y: u32) -> FxVec {
    let half = Fx::from_num(1) / Fx::from_num(2);
    FxVec::new(Fx::from_num(x) + half, Fx::from_num(y) + half)
}

/// An open 9×9 room with a wall border.
pub const ROOM: [&str; 9] = [
    "#########",
    "#.......#",
    "#.......#",
    "#.......#",
    "#.......#",
    "#.......#",
    "#.......#",
    "#.......#",
    "#########",
];

/// An input for `tick` with the given buttons and stick.
pub fn cmd(tick: u32, buttons: u8, move_x: i8, move_y: i8) -> InputCmd {
    InputCmd {
        buttons,
        move_x,
        move_y,
        ..InputCmd::idle(tick)
    }
}

/// Player 0 does `p0`, everyone else idles, for the world's current tick.
pub fn step_p0(world: &mut World, buttons: u8, move_x: i8, move_y: i8) {
    let tick = world.tick();
    let mut inputs = vec![InputCmd::idle(tick); world.player_count()];
    inputs[0] = cmd(tick, buttons, move_x, move_y);
    world.step(&inputs).expect("step");
}

/// Steps `a` and `b` with `cmds`, asserting that they produce the same events and reach the
/// same state hash (a world that takes a shortcut beside one that does not); returns the
/// events' kinds.
pub fn step_alike(a: &mut World, b: &mut World, cmds: &[InputCmd]) -> Vec<engine::EventKind> {
    let kinds = |w: &mut World| -> Vec<engine::EventKind> {
        w.step(cmds).expect("step").iter().map(|e| e.kind).collect()
    };
    let (ka, kb) = (kinds(a), kinds(b));
    assert_eq!(ka, kb, "events at tick {}", a.tick());
    assert_eq!(a.state_hash(), b.state_hash(), "state at tick {}", a.tick());
    ka
}

/// Everyone idles for `n` ticks.
pub fn idle(world: &mut World, n: u32) {
    for _ in 0..n {
        step_p0(world, 0, 0, 0);
    }
}

/// One input per player per tick, from a compact script: each entry is held for `hold` ticks.
#[derive(Clone, Debug)]
pub struct Segment {
    pub player: u8,
    pub buttons: u8,
    pub move_x: i8,
    pub move_y: i8,
    /// The rail's view (any value: the simulation clamps it).
    pub view: (u8, u8),
    pub hold: u8,
}

/// Random input segments for property tests: any button bits (unknown ones included, the
/// rail's too), any stick values (`i8::MIN` included), any view, held 1–39 ticks, for any of
/// 4 player slots.
pub fn segment() -> impl proptest::strategy::Strategy<Value = Segment> {
    use proptest::prelude::*;
    (
        0u8..4,
        any::<u8>(),
        any::<i8>(),
        any::<i8>(),
        any::<(u8, u8)>(),
        1u8..40,
    )
        .prop_map(|(player, buttons, move_x, move_y, view, hold)| Segment {
            player,
            buttons,
            move_x,
            move_y,
            view,
            hold,
        })
}

/// Expands scripted segments into per-tick inputs starting at `start`: each player keeps its
/// last segment's input until its next one begins.
pub fn expand(players: usize, start: u32, segments: &[Segment], ticks: u32) -> Vec<Vec<InputCmd>> {
    let mut per_player: Vec<Vec<InputCmd>> = vec![Vec::new(); players];
    for s in segments {
        let lane = &mut per_player[usize::from(s.player) % players];
        for _ in 0..s.hold {
            lane.push(InputCmd {
                view_ticks: s.view.0,
                view_frac: s.view.1,
                ..cmd(0, s.buttons, s.move_x, s.move_y)
            });
        }
    }
    (0..ticks)
        .map(|t| {
            (0..players)
                .map(|p| {
                    let lane = &per_player[p];
                    let mut c = lane.get(t as usize).copied().unwrap_or_default();
                    c.tick = start + t;
                    c
                })
                .collect()
        })
        .collect()
}

/// Runs `inputs` from `world`, returning the snapshot after every tick (index 0 = before the
/// first step).
pub fn run_recording(world: &mut World, inputs: &[Vec<InputCmd>]) -> Vec<WorldSnapshot> {
    let mut states = vec![world.snapshot()];
    for tick_inputs in inputs {
        world.step(tick_inputs).expect("step");
        states.push(world.snapshot());
    }
    states
}

/// Shoot + stick shorthand.
pub const SHOOT: u8 = buttons::SHOOT;
/// Melee shorthand.
pub const MELEE: u8 = buttons::MELEE;
