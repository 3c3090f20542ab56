//! The maze duel's SDL2 front end: turns keyboards and controllers into [`engine::InputCmd`]s
//! and draws [`engine::WorldSnapshot`]s and [`engine::Event`]s. It never decides anything the
//! simulation decides: positions, hits, rounds and scores all come from the engine, and no
//! float ever flows back into it (`f32`/`glam` appear only on the drawing side).
//!
//! - A [`MatchSource`] supplies the snapshots to draw: [`LocalMatch`] steps a [`engine::World`]
//!   itself; a networked source (GGRS) implements the same trait and reports its state in a
//!   [`NetView`].
//! - With no arguments the game opens the title [`Menu`] (a pure state machine of screens and
//!   [`MenuInput`]s); [`FrontEnd`] runs it in the window and starts what it picks — local and
//!   bot matches, hosting and joining online without freezing the window, replays — and comes
//!   back to it when a match ends. Its settings are a small TOML file ([`Config`]).
//! - [`App`] runs the window: a fixed 60 Hz simulation fed by an accumulator, rendering at the
//!   display's rate and interpolating between the previous and the current tick.
//! - [`Renderer`] draws one [`Scene`] onto any SDL canvas (a window, or a software surface for
//!   tests and screenshots); text comes from the hand-drawn [`BitmapFont`] embedded in the
//!   binary, so nothing beyond SDL2 itself is needed.
//!
//! # Quick start
//! ```
//! use sample_game::{LocalMatch, MatchSource};
//!
//! let mut source = LocalMatch::new(engine::Rules::default(), 7)?;
//! let idle = [engine::InputCmd::idle(0); 2];
//! source.advance(&idle)?;
//! assert_eq!(source.current().tick, 1);
//! assert_eq!(source.previous().tick, 0);
//! # Ok::<(), anyhow::Error>(())
//! ```
#![forbid(unsafe_code)]
#![deny(missing_docs)]

mod app;
pub mod cli;
pub mod config;
pub mod draw;
mod front_end;
mod input;
pub mod launch;
pub mod matches;
pub mod menu;
pub mod present;

pub use app::{App, AppOptions, MatchEnd};
pub use cli::Cli;
pub use config::Config;
pub use draw::font::{
    BitmapFont, Glyph, CELL_H, CELL_W, GLYPH_DESCENT, GLYPH_H, GLYPH_ROWS, GLYPH_W,
};
pub use draw::frame_meter::{FrameKind, FrameMeter, METER_TICKS};
pub use draw::layout::Layout;
pub use draw::renderer::Renderer;
pub use draw::scene::{Overlay, Scene};
pub use draw::screenshot::{
    render_menu_to_rgba, render_status_to_rgba, render_to_rgba, write_png, Screenshot,
};
pub use draw::training_view::{frame_color, input_text};
pub use front_end::{
    last_unfinished_match, menu_inputs, rejoin_status, status_of, status_screen, FrontEnd,
};
pub use input::key_bindings::{KeyBindings, PlayerKeys};
pub use input::local_input::{LocalInput, Pad};
pub use matches::local_match::{mode_for, LocalLogs, LocalMatch};
pub use matches::match_source::{
    split_journal_actions, AfterMatch, MatchSource, Rematch, SourceCommand, Timeline,
};
pub use matches::net_match::NetMatch;
pub use matches::net_view::{waiting_to_start_lines, DesyncStatus, NetMode, NetView, Waiting};
pub use matches::pacing::PacingReport;
pub use matches::replay_match::ReplayMatch;
pub use matches::synctest_match::SyncTestMatch;
pub use matches::training::{Dummy, DummyMode, TrainingMatch, TrainingView};
pub use menu::{Menu, MenuInput};
pub use present::effects::Effects;
pub use present::remote_view::{alpha_256, fighter_positions, rewound, ShownView};
