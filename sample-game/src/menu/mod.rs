//! The title menu as a pure state machine: screens, the highlighted item, the address being
//! typed, the settings being changed. It knows nothing of SDL events or drawing: the window
//! loop turns keys and controller buttons into [`MenuInput`]s (see `front_end.rs`), and
//! `menu/view.rs` draws a [`Menu`] as it stands. What the player picks comes back from
//! [`Menu::handle`] as a [`Choice`] for the front end to carry out.

pub(crate) mod controls_screen;
pub mod online;
pub mod replays;
pub mod view;

use crate::config::{self, Config, IceChoice, ACTIONS, MAX_INPUT_DELAY};
use client::remote_view::RemoteView;
use engine::Difficulty;
use sdl2::keyboard::Scancode;
use std::path::PathBuf;

pub use replays::{list_replays, ReplayEntry};

/// Longest address the join field takes.
const MAX_ADDRESS: usize = 100;

/// What the player did, in the menu's terms. Keyboard arrows and a controller's D-pad give the
/// directions; Enter and the A button confirm; Esc and the B button go back.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MenuInput {
    /// Previous item.
    Up,
    /// Next item.
    Down,
    /// Lower the highlighted setting.
    Left,
    /// Raise the highlighted setting.
    Right,
    /// Pick the highlighted item.
    Enter,
    /// Leave this screen (or cancel).
    Back,
    /// A character typed into the address field.
    Char(char),
    /// Delete the last typed character.
    Backspace,
    /// A key pressed while the menu waits for one to bind ([`Menu::wants_key`]).
    Key(Scancode),
}

impl MenuInput {
    /// The sound it makes: a tick when the highlight or a value moves, a chime when a choice
    /// is taken, a lower one going back; typing is silent.
    #[must_use]
    pub fn sound(self) -> Option<crate::present::sound::Sfx> {
        use crate::present::sound::Sfx;
        match self {
            MenuInput::Up | MenuInput::Down | MenuInput::Left | MenuInput::Right => {
                Some(Sfx::MenuMove)
            }
            MenuInput::Enter | MenuInput::Key(_) => Some(Sfx::MenuSelect),
            MenuInput::Back => Some(Sfx::MenuBack),
            MenuInput::Char(_) | MenuInput::Backspace => None,
        }
    }
}

/// Something for the front end to do.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Choice {
    /// A local match, two players at one keyboard.
    Local,
    /// A local match against the bot.
    VsBot(Difficulty),
    /// Host an online match and wait for a player.
    Host,
    /// Join the match hosted at this address (checked to have a port).
    Join(String),
    /// Watch the match hosted at this address.
    Spectate(String),
    /// Take the slot back in the newest online match whose log ends unfinished (the game was
    /// closed or crashed mid-match), from that log.
    RejoinLast,
    /// Play this match log.
    Replay(PathBuf),
    /// Fill the replay list ([`Menu::show_replays`]); asked when the replay screen opens.
    ListReplays,
    /// The training room: you against a dummy, with the frame meter.
    Training,
    /// The settings changed: apply them (volume, fullscreen, keys) and save them.
    SaveConfig,
    /// Leave the game.
    Quit,
}

/// The screens of the menu.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Screen {
    /// The title screen and main list.
    Main,
    /// Typing a host's address, to join (or to watch, when `spectate`).
    Address {
        /// Watch instead of play.
        spectate: bool,
    },
    /// The match logs to replay.
    Replays,
    /// Settings.
    Options,
    /// The key list.
    Keys,
    /// Waiting for the key to give `player`'s action `ACTIONS[action]`.
    Binding {
        /// Local player (0 or 1).
        player: usize,
        /// Index into [`ACTIONS`].
        action: usize,
    },
    /// A message with a way back (a refusal, a failed connection, an unreadable replay).
    Notice {
        /// The headline.
        title: String,
        /// What happened.
        text: String,
    },
}

/// The main list, top to bottom.
pub const MAIN_ITEMS: [&str; 10] = [
    "Local: 2 players",
    "Vs bot",
    "Host online",
    "Join online",
    "Spectate",
    "Rejoin last match",
    "Replays",
    "Training",
    "Options",
    "Quit",
];

/// The options list, top to bottom.
pub const OPTION_ITEMS: [&str; 7] = [
    "Input delay",
    "Remote view",
    "Volume",
    "Fullscreen",
    "ICE servers",
    "Key bindings",
    "Back",
];

/// What the ICE servers row shows: which servers online rooms use.
fn ice_label(config: &Config) -> String {
    match config.ice {
        IceChoice::PublicStun => "public STUN".into(),
        IceChoice::Off => "off (LAN only)".into(),
        IceChoice::Custom => {
            let urls = &config.ice_custom.urls;
            let first = urls.first().map_or("", String::as_str);
            let first: String = first.chars().take(24).collect();
            match urls.len() {
                0 | 1 => format!("custom: {first}"),
                n => format!("custom: {first} +{}", n - 1),
            }
        }
    }
}

/// Rows of the key screen after the 2 × 8 actions.
const KEY_EXTRA: [&str; 2] = ["Reset to defaults", "Back"];

/// The menu's whole state.
#[derive(Clone, Debug, PartialEq)]
pub struct Menu {
    /// The screen shown.
    pub screen: Screen,
    /// The highlighted row of each list screen.
    pub main_row: usize,
    /// The highlighted row of the options.
    pub options_row: usize,
    /// The highlighted row of the key list.
    pub keys_row: usize,
    /// The highlighted replay.
    pub replay_row: usize,
    /// The address field (kept between visits).
    pub address: String,
    /// A one-line note under the list (a bad address, a key conflict, a save failure).
    pub note: Option<String>,
    /// The settings being shown and changed.
    pub config: Config,
    /// The replays found when the replay screen opened, newest first.
    pub replays: Vec<ReplayEntry>,
    /// Whether the settings changed since the options screen opened.
    changed: bool,
}

impl Menu {
    /// The title screen with these settings.
    #[must_use]
    pub fn new(config: Config) -> Menu {
        Menu {
            screen: Screen::Main,
            main_row: 0,
            options_row: 0,
            keys_row: 0,
            replay_row: 0,
            address: String::new(),
            note: None,
            config,
            replays: Vec::new(),
            changed: false,
        }
    }

    /// Whether the next key press should come as [`MenuInput::Key`] (binding a key).
    #[must_use]
    pub fn wants_key(&self) -> bool {
        matches!(self.screen, Screen::Binding { .. })
    }

    /// Whether typed characters should come as [`MenuInput::Char`] (the address field).
    #[must_use]
    pub fn wants_text(&self) -> bool {
        matches!(self.screen, Screen::Address { .. })
    }

    /// Shows a message screen; any confirm or back returns to the main list.
    pub fn notice(&mut self, title: impl Into<String>, text: impl Into<String>) {
        self.screen = Screen::Notice {
            title: title.into(),
            text: text.into(),
        };
    }

    /// Opens the replay list with `entries` (newest first).
    pub fn show_replays(&mut self, entries: Vec<ReplayEntry>) {
        self.replays = entries;
        self.replay_row = 0;
        self.screen = Screen::Replays;
    }

    /// Back to the main list (after a match, a cancelled connection).
    pub fn to_main(&mut self) {
        self.screen = Screen::Main;
    }

    /// The Vs-bot item's label with its level.
    #[must_use]
    pub fn main_label(&self, row: usize) -> String {
        match row {
            1 => format!(
                "Vs bot: < {} >",
                config::difficulty_name(self.config.bot_difficulty)
            ),
            _ => MAIN_ITEMS[row].to_string(),
        }
    }

    /// The options rows with their values.
    #[must_use]
    pub fn option_labels(&self) -> Vec<String> {
        let c = &self.config;
        let on = |b: bool| if b { "on" } else { "off" };
        vec![
            format!("Input delay: < {} frames >", c.input_delay),
            format!("Remote view: < {} >", c.remote_view),
            format!("Volume: < {} >", c.volume),
            format!("Fullscreen: < {} >", on(c.fullscreen)),
            format!("ICE servers: < {} >", ice_label(c)),
            OPTION_ITEMS[5].to_string(),
            OPTION_ITEMS[6].to_string(),
        ]
    }

    /// The rows of the key screen: "P1 up      W", ..., then the extra rows.
    #[must_use]
    pub fn key_labels(&self) -> Vec<String> {
        let mut rows = Vec::new();
        for (p, keys) in self.config.bindings.players.iter().enumerate() {
            for (action, bound) in ACTIONS.iter().zip(config::actions(keys)) {
                rows.push(format!(
                    "P{} {action:<8}{}",
                    p + 1,
                    crate::input::key_bindings::key_names(bound)
                ));
            }
        }
        rows.extend(KEY_EXTRA.iter().map(ToString::to_string));
        rows
    }

    /// Takes one input; returns what the front end should do, if anything.
    pub fn handle(&mut self, input: MenuInput) -> Option<Choice> {
        if !matches!(input, MenuInput::Char(_) | MenuInput::Backspace) {
            self.note = None;
        }
        match self.screen.clone() {
            Screen::Main => self.on_main(input),
            Screen::Address { spectate } => self.on_address(input, spectate),
            Screen::Replays => self.on_replays(input),
            Screen::Options => self.on_options(input),
            Screen::Keys => self.on_keys(input),
            Screen::Binding { player, action } => self.on_binding(input, player, action),
            Screen::Notice { .. } => {
                if matches!(input, MenuInput::Enter | MenuInput::Back) {
                    self.screen = Screen::Main;
                }
                None
            }
        }
    }

    fn on_main(&mut self, input: MenuInput) -> Option<Choice> {
        match input {
            MenuInput::Up | MenuInput::Down => {
                self.main_row = step(self.main_row, MAIN_ITEMS.len(), input == MenuInput::Down);
                None
            }
            MenuInput::Left | MenuInput::Right if self.main_row == 1 => {
                let levels = [
                    Difficulty::Beginner,
                    Difficulty::Easy,
                    Difficulty::Normal,
                    Difficulty::Hard,
                ];
                let at = levels
                    .iter()
                    .position(|d| *d == self.config.bot_difficulty)
                    .unwrap_or(2);
                let next = if input == MenuInput::Right {
                    (at + 1).min(levels.len() - 1)
                } else {
                    at.saturating_sub(1)
                };
                if levels[next] != self.config.bot_difficulty {
                    self.config.bot_difficulty = levels[next];
                    return Some(Choice::SaveConfig);
                }
                None
            }
            MenuInput::Enter => match self.main_row {
                0 => Some(Choice::Local),
                1 => Some(Choice::VsBot(self.config.bot_difficulty)),
                2 => Some(Choice::Host),
                3 | 4 => {
                    self.screen = Screen::Address {
                        spectate: self.main_row == 4,
                    };
                    None
                }
                5 => Some(Choice::RejoinLast),
                6 => Some(Choice::ListReplays),
                7 => Some(Choice::Training),
                8 => {
                    self.screen = Screen::Options;
                    self.changed = false;
                    None
                }
                _ => Some(Choice::Quit),
            },
            MenuInput::Back => {
                if self.main_row == MAIN_ITEMS.len() - 1 {
                    Some(Choice::Quit)
                } else {
                    self.main_row = MAIN_ITEMS.len() - 1;
                    None
                }
            }
            _ => None,
        }
    }

    fn on_address(&mut self, input: MenuInput, spectate: bool) -> Option<Choice> {
        match input {
            MenuInput::Char(c) => {
                if (c.is_ascii_graphic()) && self.address.len() < MAX_ADDRESS {
                    self.address.push(c);
                }
                None
            }
            MenuInput::Backspace => {
                self.address.pop();
                None
            }
            MenuInput::Back => {
                self.screen = Screen::Main;
                None
            }
            MenuInput::Enter => {
                let address = self.address.trim().to_string();
                if let Some(problem) = address_problem(&address) {
                    self.note = Some(problem);
                    return None;
                }
                Some(if spectate {
                    Choice::Spectate(address)
                } else {
                    Choice::Join(address)
                })
            }
            _ => None,
        }
    }

    fn on_replays(&mut self, input: MenuInput) -> Option<Choice> {
        match input {
            MenuInput::Up | MenuInput::Down if !self.replays.is_empty() => {
                self.replay_row = step(
                    self.replay_row,
                    self.replays.len(),
                    input == MenuInput::Down,
                );
                None
            }
            MenuInput::Enter => match self.replays.get(self.replay_row) {
                Some(entry) => Some(Choice::Replay(entry.path.clone())),
                None => {
                    self.screen = Screen::Main;
                    None
                }
            },
            MenuInput::Back => {
                self.screen = Screen::Main;
                None
            }
            _ => None,
        }
    }

    fn on_options(&mut self, input: MenuInput) -> Option<Choice> {
        let c = &mut self.config;
        let more = input == MenuInput::Right;
        let before = c.clone();
        match (input, self.options_row) {
            (MenuInput::Up | MenuInput::Down, _) => {
                self.options_row = step(
                    self.options_row,
                    OPTION_ITEMS.len(),
                    input == MenuInput::Down,
                );
            }
            (MenuInput::Left | MenuInput::Right, 0) => {
                c.input_delay = if more {
                    (c.input_delay + 1).min(MAX_INPUT_DELAY)
                } else {
                    c.input_delay.saturating_sub(1)
                };
            }
            (MenuInput::Left | MenuInput::Right | MenuInput::Enter, 1) => {
                c.remote_view = match c.remote_view {
                    RemoteView::Past => RemoteView::Predicted,
                    RemoteView::Predicted => RemoteView::Past,
                };
            }
            (MenuInput::Left | MenuInput::Right, 2) => {
                c.volume = if more {
                    (c.volume + 10).min(100)
                } else {
                    c.volume.saturating_sub(10)
                };
            }
            (MenuInput::Left | MenuInput::Right | MenuInput::Enter, 3) => {
                c.fullscreen = !c.fullscreen;
            }
            (MenuInput::Left | MenuInput::Right | MenuInput::Enter, 4) => {
                c.cycle_ice(input != MenuInput::Left);
            }
            (MenuInput::Enter, 5) => {
                self.screen = Screen::Keys;
                self.keys_row = 0;
            }
            (MenuInput::Enter, 6) | (MenuInput::Back, _) => {
                self.screen = Screen::Main;
            }
            _ => {}
        }
        // Settings apply (and are saved) as they change, so what is shown is what is in force.
        (self.config != before).then_some(Choice::SaveConfig)
    }

    fn on_keys(&mut self, input: MenuInput) -> Option<Choice> {
        let rows = 2 * ACTIONS.len() + KEY_EXTRA.len();
        match input {
            MenuInput::Up | MenuInput::Down => {
                self.keys_row = step(self.keys_row, rows, input == MenuInput::Down);
                None
            }
            MenuInput::Enter if self.keys_row < 2 * ACTIONS.len() => {
                self.screen = Screen::Binding {
                    player: self.keys_row / ACTIONS.len(),
                    action: self.keys_row % ACTIONS.len(),
                };
                None
            }
            MenuInput::Enter if self.keys_row == 2 * ACTIONS.len() => {
                let defaults = crate::KeyBindings::default();
                if self.config.bindings != defaults {
                    self.config.bindings = defaults;
                    self.note = Some("keys reset to the defaults".into());
                    return Some(Choice::SaveConfig);
                }
                None
            }
            MenuInput::Enter | MenuInput::Back => {
                self.screen = Screen::Options;
                None
            }
            _ => None,
        }
    }

    fn on_binding(&mut self, input: MenuInput, player: usize, action: usize) -> Option<Choice> {
        match input {
            MenuInput::Key(Scancode::Escape) | MenuInput::Back => {
                self.screen = Screen::Keys;
                None
            }
            MenuInput::Key(key) => {
                self.screen = Screen::Keys;
                match rebind(&mut self.config.bindings, player, action, key) {
                    Ok(note) => {
                        self.note = note;
                        Some(Choice::SaveConfig)
                    }
                    Err(refusal) => {
                        self.note = Some(refusal);
                        None
                    }
                }
            }
            _ => None,
        }
    }
}

/// Moves a highlight one row, wrapping around.
fn step(row: usize, rows: usize, down: bool) -> usize {
    if down {
        (row + 1) % rows
    } else {
        (row + rows - 1) % rows
    }
}

/// Whether typed text is a WebRTC room link (`ws://HOST:PORT/ROOM`) rather than a host's
/// address.
#[must_use]
pub fn is_room_link(text: &str) -> bool {
    text.starts_with("ws://") || text.starts_with("wss://")
}

/// What is wrong with a typed host address or room link, before any lookup: nothing typed, no
/// port (the same message the command line gives), or a malformed room link.
#[must_use]
pub fn address_problem(address: &str) -> Option<String> {
    if address.is_empty() {
        return Some(
            "type the host's invitation (192.168.1.20:7000#CODE) or a room link (ws://HOST:3536/ROOM)"
                .into(),
        );
    }
    if is_room_link(address) {
        return client::net::webrtc::RoomConfig::from_link(address)
            .err()
            .map(|e| e.to_string());
    }
    // An invitation: ADDRESS#CODE.
    let address = match client::net::seal::split_invitation(address) {
        Ok((address, _)) => address,
        Err(e) => return Some(e),
    };
    client::net::transport::port_of(address).err()
}

/// Gives `player`'s action `action` the single key `key`.
///
/// A key the game reserves (Esc, Enter, P, F1, ...) is refused. A key another action has is
/// taken from it; if that leaves the other action without a key, it gets this action's old
/// keys (the two swap). Returns a note saying what else changed.
///
/// # Errors
/// A message when `key` is reserved or out of range.
pub fn rebind(
    bindings: &mut crate::KeyBindings,
    player: usize,
    action: usize,
    key: Scancode,
) -> Result<Option<String>, String> {
    if player > 1 || action >= ACTIONS.len() {
        return Err("no such action".into());
    }
    if config::reserved(bindings).contains(&key) {
        return Err(format!("{} is one of the game's own keys", key.name()));
    }
    let old = config::actions(&bindings.players[player])[action].clone();
    let mut note = None;
    for p in 0..2 {
        for (a, name) in ACTIONS.iter().enumerate() {
            if (p, a) == (player, action) {
                continue;
            }
            let keys = &mut *config::actions_mut(&mut bindings.players[p])[a];
            if keys.contains(&key) {
                keys.retain(|k| *k != key);
                let what = format!("P{} {name}", p + 1);
                if keys.is_empty() {
                    keys.extend(old.iter().copied().filter(|k| *k != key));
                    note = Some(format!(
                        "{} moved here from {what}, which now has {}",
                        key.name(),
                        crate::input::key_bindings::key_names(keys)
                    ));
                } else {
                    note = Some(format!("{} moved here from {what}", key.name()));
                }
            }
        }
    }
    *config::actions_mut(&mut bindings.players[player])[action] = vec![key];
    Ok(note)
}

#[cfg(test)]
mod tests;
