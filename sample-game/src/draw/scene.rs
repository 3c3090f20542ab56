//! `Scene`: everything one frame shows, gathered so the renderer is a pure function of it.

use crate::input::key_bindings::KeyBindings;
use crate::matches::net_view::NetView;
use crate::present::effects::Effects;
use crate::present::remote_view::ShownView;
use engine::{PlayerId, Rules, WorldSnapshot};

/// What covers the arena, if anything.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Overlay {
    /// Nothing: play.
    None,
    /// The controls screen; `at_start` while waiting for the first key press.
    Controls {
        /// Whether this is the screen shown before the first match starts.
        at_start: bool,
    },
    /// Local play is paused.
    Paused,
}

/// One frame's worth of things to draw.
#[derive(Clone, Copy, Debug)]
pub struct Scene<'a> {
    /// The newest simulated state.
    pub current: &'a WorldSnapshot,
    /// The state one tick earlier.
    pub previous: &'a WorldSnapshot,
    /// How far between `previous` (0) and `current` (1) to draw moving things.
    pub alpha: f32,
    /// The match's rules (radii, magazine size, timers to scale bars and banners by).
    pub rules: &'a Rules,
    /// How far in the past remote players are drawn (`ShownView::default()`: not at all;
    /// its `tick` is `current`'s).
    pub shown: ShownView,
    /// The players this machine plays: always drawn predicted.
    pub local_players: &'a [PlayerId],
    /// Whether to draw the rail debug overlay (rewound hitboxes, the last rail ray).
    pub rail_debug: bool,
    /// The netcode overlay's contents, when it is shown.
    pub net: Option<&'a NetView>,
    /// The netcode state for the compact one-line indicator shown online while the panel
    /// is closed.
    pub net_line: Option<&'a NetView>,
    /// Transient effects.
    pub effects: &'a Effects,
    /// What covers the arena.
    pub overlay: Overlay,
    /// The keys, for the controls screen.
    pub bindings: &'a KeyBindings,
    /// Connected controllers' names, for the controls screen.
    pub controllers: &'a [String],
    /// What the result offers once the match is decided (rematch, another bot level).
    pub after_match: crate::matches::match_source::AfterMatch,
    /// Offsets that glide rollback corrections (`None`: draw the true positions).
    pub smoothing: Option<&'a crate::present::smoothing::Smoother>,
    /// Why the match ended early (a peer left or refused, the session failed): drawn over the
    /// arena with the way out, instead of the window closing silently.
    pub ended: Option<&'a str>,
    /// A replay's position: draws the REPLAY/PAUSED label and the timeline.
    pub timeline: Option<crate::matches::match_source::Timeline>,
    /// The match was started from the menu: Esc goes back there (the banners say so).
    pub from_menu: bool,
    /// The training room's panel (frame meter, input, dummy), when this is one.
    pub training: Option<&'a crate::matches::training::TrainingView>,
}
