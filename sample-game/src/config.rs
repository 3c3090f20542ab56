//! The settings the options screen changes, kept in a small TOML file:
//! `$XDG_CONFIG_HOME/maze-duel/config.toml` (or `~/.config/maze-duel/config.toml`), or the file
//! `--config` names.
//!
//! The file is read leniently: a missing file means defaults; a file that is not TOML, or has a
//! field of the wrong type or out of range, gives a message naming the problem, and the fields
//! concerned (all of them, when the file does not parse) fall back to their defaults. It is
//! never a reason not to start. A file that was bad is not overwritten silently: before the
//! options screen saves, the old one is moved aside to `config.toml.bad` and the game says so.

use crate::input::key_bindings::{KeyBindings, PlayerKeys};
use client::net::webrtc::IceServers;
use client::remote_view::RemoteView;
use engine::Difficulty;
use sdl2::keyboard::Scancode;
use std::ffi::OsString;
use std::path::{Path, PathBuf};

/// Largest input delay the options offer (the command line's limit too).
pub const MAX_INPUT_DELAY: u8 = 8;
/// Largest config file read; anything longer is not a settings file.
const MAX_FILE_BYTES: u64 = 64 * 1024;

/// The settings.
#[derive(Clone, Debug, PartialEq)]
pub struct Config {
    /// Frames of input delay online, 0..=[`MAX_INPUT_DELAY`].
    pub input_delay: u8,
    /// How the remote player is drawn online.
    pub remote_view: RemoteView,
    /// Sound volume, 0..=100.
    pub volume: u8,
    /// Whether the window covers the screen.
    pub fullscreen: bool,
    /// The bot's level in "vs bot".
    pub bot_difficulty: Difficulty,
    /// The keys.
    pub bindings: KeyBindings,
    /// Which STUN/TURN servers online rooms use.
    pub ice: IceChoice,
    /// The servers of [`IceChoice::Custom`] (kept while another choice is in force).
    pub ice_custom: IceServers,
}

/// Which STUN/TURN servers online rooms use (the options screen cycles through them).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum IceChoice {
    /// The public STUN servers (`client::net::webrtc::DEFAULT_STUN`): most home routers are crossed.
    PublicStun,
    /// None: only players on one machine or one LAN meet.
    Off,
    /// The servers of the file's `ice_servers` (with `ice_user`/`ice_password` for TURN).
    Custom,
}

impl IceChoice {
    /// The name the file and the options screen use.
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            IceChoice::PublicStun => "public-stun",
            IceChoice::Off => "off",
            IceChoice::Custom => "custom",
        }
    }
}

impl Default for Config {
    fn default() -> Config {
        Config {
            input_delay: 2,
            remote_view: RemoteView::Past,
            volume: 70,
            fullscreen: false,
            bot_difficulty: Difficulty::Normal,
            bindings: KeyBindings::default(),
            ice: IceChoice::PublicStun,
            ice_custom: IceServers::default(),
        }
    }
}

/// What reading a config file gave: the settings to use, and what was wrong with the file.
#[derive(Clone, Debug, PartialEq)]
pub struct Loaded {
    /// The settings (defaults wherever the file had nothing usable).
    pub config: Config,
    /// One message per problem; empty when the file was fine or absent.
    pub problems: Vec<String>,
}

/// The default config path: `$XDG_CONFIG_HOME/maze-duel/config.toml`, else
/// `$HOME/.config/maze-duel/config.toml`; `None` when neither variable is set.
#[must_use]
pub fn default_path() -> Option<PathBuf> {
    path_under(
        std::env::var_os("XDG_CONFIG_HOME"),
        std::env::var_os("HOME"),
    )
}

/// [`default_path`] for given values of `XDG_CONFIG_HOME` and `HOME` (an empty one counts
/// as unset, as the XDG specification says).
fn path_under(xdg_config_home: Option<OsString>, home: Option<OsString>) -> Option<PathBuf> {
    let base = xdg_config_home
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
        .or_else(|| {
            home.filter(|v| !v.is_empty())
                .map(|home| PathBuf::from(home).join(".config"))
        })?;
    Some(base.join("maze-duel").join("config.toml"))
}

impl Config {
    /// Reads `path`. A missing file gives the defaults without a problem; an unreadable,
    /// oversized or malformed one gives the defaults (for what could not be used) and
    /// messages naming the file and what is wrong.
    #[must_use]
    pub fn load(path: &Path) -> Loaded {
        let shown = path.display();
        let text = match std::fs::metadata(path) {
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                return Loaded {
                    config: Config::default(),
                    problems: Vec::new(),
                }
            }
            Ok(meta) if meta.len() > MAX_FILE_BYTES => Err(format!(
                "{} bytes is too long for a settings file",
                meta.len()
            )),
            _ => std::fs::read_to_string(path).map_err(|e| e.to_string()),
        };
        match text {
            Ok(text) => {
                let mut loaded = Config::parse(&text);
                for p in &mut loaded.problems {
                    *p = format!("config {shown}: {p}");
                }
                loaded
            }
            Err(e) => Loaded {
                config: Config::default(),
                problems: vec![format!("config {shown}: {e}; using the defaults")],
            },
        }
    }

    /// Parses a config file's text. Never fails: see [`Config::load`].
    #[must_use]
    pub fn parse(text: &str) -> Loaded {
        let mut config = Config::default();
        let mut problems = Vec::new();
        let table: toml::Table = match text.parse() {
            Ok(t) => t,
            Err(e) => {
                let first = e.message().lines().next().unwrap_or("").to_string();
                let at = e
                    .span()
                    .map(|s| format!(" (line {})", line_of(text, s.start)))
                    .unwrap_or_default();
                problems.push(format!("not valid TOML{at}: {first}; using the defaults"));
                return Loaded { config, problems };
            }
        };
        for (key, value) in &table {
            let result = match key.as_str() {
                "input_delay" => int_in(value, 0, i64::from(MAX_INPUT_DELAY))
                    .map(|v| config.input_delay = v as u8),
                "volume" => int_in(value, 0, 100).map(|v| config.volume = v as u8),
                "fullscreen" => value
                    .as_bool()
                    .map(|v| config.fullscreen = v)
                    .ok_or_else(|| "expected true or false".to_string()),
                "remote_view" => text_of(value)
                    .and_then(|s| s.parse::<RemoteView>())
                    .map(|v| config.remote_view = v),
                "bot_difficulty" => text_of(value)
                    .and_then(|s| s.parse::<Difficulty>())
                    .map(|v| config.bot_difficulty = v),
                "keys" => {
                    parse_keys(value, &mut config.bindings, &mut problems);
                    Ok(())
                }
                "ice" => text_of(value)
                    .and_then(|s| match s {
                        "public-stun" => Ok(IceChoice::PublicStun),
                        "off" => Ok(IceChoice::Off),
                        "custom" => Ok(IceChoice::Custom),
                        _ => Err("expected \"public-stun\", \"off\" or \"custom\"".to_string()),
                    })
                    .map(|choice| config.ice = choice),
                "ice_servers" => value
                    .as_array()
                    .and_then(|urls| {
                        urls.iter()
                            .map(|u| u.as_str().map(str::to_owned))
                            .collect::<Option<Vec<String>>>()
                    })
                    .map(|urls| config.ice_custom.urls = urls)
                    .ok_or_else(|| "expected a list of quoted URLs".to_string()),
                "ice_user" => {
                    text_of(value).map(|s| config.ice_custom.username = Some(s.to_owned()))
                }
                "ice_password" => {
                    text_of(value).map(|s| config.ice_custom.credential = Some(s.to_owned()))
                }
                _ => Err("unknown setting, ignored".to_string()),
            };
            if let Err(e) = result {
                problems.push(format!("`{key}`: {e}"));
            }
        }
        config.settle_ice(&mut problems);
        if let Some(clash) = conflict(&config.bindings) {
            problems.push(format!("keys: {clash}; using the default keys"));
            config.bindings = KeyBindings::default();
        }
        Loaded { config, problems }
    }

    /// Falls back to the public STUN servers when the custom ICE servers are invalid, or
    /// chosen but not given, saying so in `problems`.
    fn settle_ice(&mut self, problems: &mut Vec<String>) {
        if let Err(e) = self.ice_custom.check() {
            problems.push(format!("ice_servers: {e}; using the public STUN servers"));
            self.ice_custom = IceServers::default();
            self.ice = IceChoice::PublicStun;
        }
        if self.ice == IceChoice::Custom && self.ice_custom.urls.is_empty() {
            problems.push(
                "ice = \"custom\" but no ice_servers are given; using the public STUN servers"
                    .into(),
            );
            self.ice = IceChoice::PublicStun;
        }
    }

    /// The file's text: every setting, player keys by SDL's key names.
    ///
    /// Laid out here rather than by `toml`'s serializer because the file is for people too: it
    /// carries comments (what `ice` may be) and an order a serializer would not keep. Every
    /// string goes through `toml`'s own quoting, so any value reads back as written.
    #[must_use]
    pub fn to_toml(&self) -> String {
        use toml::{Table, Value};
        let text = |s: &str| Value::String(s.to_owned());
        let mut root = Table::new();
        root.insert(
            "input_delay".into(),
            Value::Integer(self.input_delay.into()),
        );
        root.insert("remote_view".into(), text(&self.remote_view.to_string()));
        root.insert("volume".into(), Value::Integer(self.volume.into()));
        root.insert("fullscreen".into(), Value::Boolean(self.fullscreen));
        root.insert(
            "bot_difficulty".into(),
            text(difficulty_name(self.bot_difficulty)),
        );
        root.insert("ice".into(), text(self.ice.name()));
        if !self.ice_custom.urls.is_empty() {
            let urls = self.ice_custom.urls.iter().map(|u| text(u)).collect();
            root.insert("ice_servers".into(), Value::Array(urls));
        }
        if let Some(user) = &self.ice_custom.username {
            root.insert("ice_user".into(), text(user));
        }
        if let Some(password) = &self.ice_custom.credential {
            root.insert("ice_password".into(), text(password));
        }
        let mut keys = Table::new();
        for (i, bound) in self.bindings.players.iter().enumerate() {
            let mut player = Table::new();
            for (action, scancodes) in ACTIONS.iter().zip(actions(bound)) {
                let names = scancodes.iter().map(|k| text(k.name())).collect();
                player.insert((*action).into(), Value::Array(names));
            }
            keys.insert(format!("player{}", i + 1), Value::Table(player));
        }
        root.insert("keys".into(), Value::Table(keys));
        let body = toml::to_string(&root).expect("a table of plain values always serializes");
        format!(
            "# maze-duel settings (the options screen writes this file)\n\
             # ice: STUN/TURN servers for online rooms: \"public-stun\", \"off\" (LAN only) or \
             \"custom\" (with ice_servers)\n{body}"
        )
    }

    /// The STUN/TURN servers online rooms use.
    #[must_use]
    pub fn ice_servers(&self) -> IceServers {
        match self.ice {
            IceChoice::PublicStun => IceServers::public_stun(),
            IceChoice::Off => IceServers::default(),
            IceChoice::Custom => self.ice_custom.clone(),
        }
    }

    /// The next ICE choice on the options screen (custom only when the file gives servers).
    pub fn cycle_ice(&mut self, forward: bool) {
        let mut choices = vec![IceChoice::PublicStun, IceChoice::Off];
        if !self.ice_custom.urls.is_empty() {
            choices.push(IceChoice::Custom);
        }
        let at = choices.iter().position(|c| *c == self.ice).unwrap_or(0);
        let n = choices.len();
        self.ice = choices[if forward {
            (at + 1) % n
        } else {
            (at + n - 1) % n
        }];
    }

    /// Writes the settings to `path` (creating its folder). When `set_aside_bad` is true the
    /// file there is first renamed to `<name>.bad`; the returned message says so.
    ///
    /// # Errors
    /// If the folder or file cannot be written.
    pub fn save(&self, path: &Path, set_aside_bad: bool) -> anyhow::Result<Option<String>> {
        use anyhow::Context as _;
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
        }
        let mut note = None;
        if set_aside_bad && path.exists() {
            let mut bad = path.as_os_str().to_owned();
            bad.push(".bad");
            let bad = PathBuf::from(bad);
            std::fs::rename(path, &bad)
                .with_context(|| format!("moving the bad {} aside", path.display()))?;
            note = Some(format!(
                "the unreadable settings file was kept as {}",
                bad.display()
            ));
        }
        std::fs::write(path, self.to_toml())
            .with_context(|| format!("writing {}", path.display()))?;
        Ok(note)
    }
}

/// The game actions a player's keys are stored under, in file and screen order.
pub const ACTIONS: [&str; 8] = [
    "up", "down", "left", "right", "shoot", "melee", "reload", "rail",
];

/// A player's keys in [`ACTIONS`] order.
#[must_use]
pub fn actions(keys: &PlayerKeys) -> [&Vec<Scancode>; 8] {
    [
        &keys.up,
        &keys.down,
        &keys.left,
        &keys.right,
        &keys.shoot,
        &keys.melee,
        &keys.reload,
        &keys.rail,
    ]
}

/// A player's keys in [`ACTIONS`] order, to change.
pub fn actions_mut(keys: &mut PlayerKeys) -> [&mut Vec<Scancode>; 8] {
    [
        &mut keys.up,
        &mut keys.down,
        &mut keys.left,
        &mut keys.right,
        &mut keys.shoot,
        &mut keys.melee,
        &mut keys.reload,
        &mut keys.rail,
    ]
}

/// The lower-case name of a difficulty, as the command line spells it.
#[must_use]
pub fn difficulty_name(d: Difficulty) -> &'static str {
    match d {
        Difficulty::Beginner => "beginner",
        Difficulty::Easy => "easy",
        Difficulty::Normal => "normal",
        Difficulty::Hard => "hard",
    }
}

/// The keys the game itself uses (pause, controls, netcode panel, rail debug, rematch, quit):
/// no player action may take them.
#[must_use]
pub fn reserved(bindings: &KeyBindings) -> Vec<Scancode> {
    let mut keys = vec![
        bindings.pause,
        bindings.controls,
        bindings.rail_debug,
        bindings.other_level,
        bindings.quit,
    ];
    keys.extend(bindings.net_hud);
    keys.extend(bindings.rematch);
    // F4 (smoothing), F5/F6 (input delay), F7-F9 (sound) and F10-F12 (the training room) are
    // read directly by the window loop.
    keys.extend([
        Scancode::F4,
        Scancode::F5,
        Scancode::F6,
        Scancode::F7,
        Scancode::F8,
        Scancode::F9,
        Scancode::F10,
        Scancode::F11,
        Scancode::F12,
    ]);
    keys
}

/// The first key bound twice (to two actions, or to an action and a reserved key), described.
#[must_use]
pub fn conflict(bindings: &KeyBindings) -> Option<String> {
    let reserved = reserved(bindings);
    let mut seen: Vec<(Scancode, String)> = Vec::new();
    for (p, keys) in bindings.players.iter().enumerate() {
        for (action, bound) in ACTIONS.iter().zip(actions(keys)) {
            if bound.is_empty() {
                return Some(format!("player {} {action} has no key", p + 1));
            }
            for &k in bound {
                let what = format!("player {} {action}", p + 1);
                if reserved.contains(&k) {
                    return Some(format!("{} is reserved by the game ({what})", k.name()));
                }
                if let Some((_, other)) = seen.iter().find(|(s, _)| *s == k) {
                    if *other != what {
                        return Some(format!("{} is bound to {other} and {what}", k.name()));
                    }
                }
                seen.push((k, what));
            }
        }
    }
    None
}

fn line_of(text: &str, byte: usize) -> usize {
    text.get(..byte).map_or(1, |t| t.matches('\n').count() + 1)
}

fn int_in(value: &toml::Value, min: i64, max: i64) -> Result<i64, String> {
    let v = value
        .as_integer()
        .ok_or_else(|| format!("expected a whole number {min}..={max}"))?;
    if (min..=max).contains(&v) {
        Ok(v)
    } else {
        Err(format!(
            "{v} is out of range {min}..={max}; using the default"
        ))
    }
}

fn text_of(value: &toml::Value) -> Result<&str, String> {
    value
        .as_str()
        .ok_or_else(|| "expected a quoted word".to_string())
}

/// Reads `[keys.player1]` / `[keys.player2]`: each action a list of SDL key names. A bad entry
/// keeps that action's default key and says why.
fn parse_keys(value: &toml::Value, bindings: &mut KeyBindings, problems: &mut Vec<String>) {
    let Some(table) = value.as_table() else {
        problems.push("`keys`: expected a table ([keys.player1], [keys.player2])".into());
        return;
    };
    for (name, player) in table {
        let slot = match name.as_str() {
            "player1" => 0,
            "player2" => 1,
            _ => {
                problems.push(format!(
                    "`keys.{name}`: unknown player (player1 or player2), ignored"
                ));
                continue;
            }
        };
        let Some(player) = player.as_table() else {
            problems.push(format!("`keys.{name}`: expected a table"));
            continue;
        };
        for (action, list) in player {
            let Some(i) = ACTIONS.iter().position(|a| a == action) else {
                problems.push(format!("`keys.{name}.{action}`: unknown action, ignored"));
                continue;
            };
            match key_list(list) {
                Ok(keys) => *actions_mut(&mut bindings.players[slot])[i] = keys,
                Err(e) => problems.push(format!(
                    "`keys.{name}.{action}`: {e}; keeping the default key"
                )),
            }
        }
    }
}

/// A list of 1 to 4 SDL key names.
fn key_list(value: &toml::Value) -> Result<Vec<Scancode>, String> {
    let list = value
        .as_array()
        .ok_or_else(|| "expected a list of key names, e.g. [\"W\"]".to_string())?;
    if list.is_empty() || list.len() > 4 {
        return Err(format!("{} keys (1 to 4 allowed)", list.len()));
    }
    let mut keys = Vec::new();
    for item in list {
        let name = item
            .as_str()
            .ok_or_else(|| "key names must be quoted".to_string())?;
        let key = scancode_named(name).ok_or_else(|| format!("no key is called {name:?}"))?;
        if !keys.contains(&key) {
            keys.push(key);
        }
    }
    Ok(keys)
}

/// The key SDL calls `name` (case-insensitive), if any. Any text is safe to ask about: SDL's
/// lookup answers `None` for an empty name, an unknown one and one with a NUL byte.
#[must_use]
pub fn scancode_named(name: &str) -> Option<Scancode> {
    Scancode::from_name(name)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// The ICE choice and custom servers round-trip (quotes and backslashes included); a bad
    /// server list or a custom choice without servers falls back to the public STUN servers,
    /// saying why.
    #[test]
    fn ice_servers_round_trip_and_bad_ones_fall_back() {
        let config = Config {
            ice: IceChoice::Custom,
            ice_custom: IceServers {
                urls: vec!["turn:relay.example.org:3478".into(), "stun:h".into()],
                username: Some("us\"er".into()),
                credential: Some("p\\w = [x]".into()),
            },
            ..Config::default()
        };
        let loaded = Config::parse(&config.to_toml());
        assert_eq!(loaded.problems, Vec::<String>::new());
        assert_eq!(loaded.config, config);
        assert_eq!(loaded.config.ice_servers(), config.ice_custom);
        assert_eq!(Config::default().ice_servers(), IceServers::public_stun());
        let off = Config::parse("ice = \"off\"").config;
        assert_eq!(off.ice_servers(), IceServers::default());
        for (text, says) in [
            ("ice = \"custom\"", "no ice_servers"),
            (
                "ice = \"custom\"\nice_servers = [\"http://x\"]",
                "ice_servers",
            ),
            ("ice_servers = [\"turn:x\"]", "user name and a password"),
            ("ice_servers = \"stun:x\"", "list of quoted URLs"),
            ("ice_servers = [1]", "list of quoted URLs"),
            ("ice = \"sometimes\"", "public-stun"),
        ] {
            let loaded = Config::parse(text);
            assert_eq!(loaded.config.ice, IceChoice::PublicStun, "{text}");
            assert!(
                loaded.problems.iter().any(|p| p.contains(says)),
                "{text}: {:?}",
                loaded.problems
            );
        }
    }

    /// The options screen cycles public STUN, off, and custom only when servers are given.
    #[test]
    fn the_ice_choice_cycles_through_what_exists() {
        let mut config = Config::default();
        config.cycle_ice(true);
        assert_eq!(config.ice, IceChoice::Off);
        config.cycle_ice(true);
        assert_eq!(config.ice, IceChoice::PublicStun);
        config.cycle_ice(false);
        assert_eq!(config.ice, IceChoice::Off);
        config.ice_custom.urls = vec!["stun:h".into()];
        config.cycle_ice(true);
        assert_eq!(config.ice, IceChoice::Custom);
        config.cycle_ice(true);
        assert_eq!(config.ice, IceChoice::PublicStun);
        config.cycle_ice(false);
        assert_eq!(config.ice, IceChoice::Custom, "backwards wraps to the last");
        config.cycle_ice(false);
        assert_eq!(config.ice, IceChoice::Off);
    }

    /// The file a person may edit: the two comment lines, one `key = value` line per
    /// setting, then one table of key names per player.
    #[test]
    fn the_written_file_reads_as_settings_then_a_table_per_player() {
        let text = Config::default().to_toml();
        let lines: Vec<&str> = text.lines().collect();
        assert!(lines[0].starts_with("# maze-duel settings"));
        assert!(lines[1].starts_with("# ice: "));
        for line in [
            "input_delay = ",
            "volume = ",
            "fullscreen = ",
            "ice = \"public-stun\"",
        ] {
            assert!(lines.iter().any(|l| l.starts_with(line)), "{line}: {text}");
        }
        let player1 = lines.iter().position(|l| *l == "[keys.player1]");
        let player2 = lines.iter().position(|l| *l == "[keys.player2]");
        assert!(
            matches!((player1, player2), (Some(a), Some(b)) if a < b),
            "{text}"
        );
    }

    #[test]
    fn the_defaults_round_trip_through_the_file() {
        let mut config = Config {
            input_delay: 5,
            remote_view: RemoteView::Predicted,
            volume: 0,
            fullscreen: true,
            bot_difficulty: Difficulty::Hard,
            ..Config::default()
        };
        config.bindings.players[0].shoot = vec![Scancode::Space];
        let loaded = Config::parse(&config.to_toml());
        assert_eq!(loaded.problems, Vec::<String>::new());
        assert_eq!(loaded.config, config);
        assert_eq!(
            Config::parse(&Config::default().to_toml()).config,
            Config::default()
        );
    }

    #[test]
    fn bad_values_are_named_and_fall_back_to_defaults() {
        let loaded = Config::parse(
            "volume = 300\ninput_delay = \"two\"\nremote_view = \"future\"\nfullscreen = true\n\
             colour = 3\n[keys.player1]\nup = [\"NoSuchKey\"]\ndown = [\"K\"]\n",
        );
        let c = &loaded.config;
        assert_eq!((c.volume, c.input_delay, c.fullscreen), (70, 2, true));
        assert_eq!(c.remote_view, RemoteView::Past);
        assert_eq!(c.bindings.players[0].up, vec![Scancode::W]);
        assert_eq!(c.bindings.players[0].down, vec![Scancode::K]);
        let all = loaded.problems.join("\n");
        for needle in [
            "`volume`: 300 is out of range",
            "`input_delay`: expected a whole number",
            "`remote_view`: remote view `future`",
            "`colour`: unknown setting",
            "no key is called \"NoSuchKey\"",
        ] {
            assert!(all.contains(needle), "{needle:?} missing from:\n{all}");
        }
    }

    #[test]
    fn a_file_that_is_not_toml_gives_the_defaults_and_says_where() {
        let loaded = Config::parse("volume = 40\nthis is not toml\n");
        assert_eq!(loaded.config, Config::default());
        assert_eq!(loaded.problems.len(), 1);
        assert!(
            loaded.problems[0].contains("not valid TOML (line 2)"),
            "{:?}",
            loaded.problems
        );
    }

    #[test]
    fn clashing_keys_in_the_file_give_the_default_keys() {
        let loaded = Config::parse("[keys.player2]\nshoot = [\"W\"]\n");
        assert_eq!(loaded.config.bindings, KeyBindings::default());
        assert!(loaded.problems[0].contains("W is bound to player 1 up and player 2 shoot"));
        let reserved = Config::parse("[keys.player1]\nrail = [\"Escape\"]\n");
        assert!(reserved.problems[0].contains("reserved"), "{reserved:?}");
    }

    #[test]
    fn load_and_save_keep_a_bad_file_aside() {
        let dir = std::env::temp_dir().join(format!("maze-duel-config-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let path = dir.join("sub").join("config.toml");
        assert_eq!(Config::load(&path).problems, Vec::<String>::new(), "absent");
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, "volume = [").unwrap();
        let loaded = Config::load(&path);
        assert!(loaded.problems[0].contains("config.toml: not valid TOML"));
        let note = Config::default().save(&path, true).unwrap().unwrap();
        assert!(note.contains("config.toml.bad"), "{note}");
        let bad = std::fs::read_to_string(path.with_extension("toml.bad")).unwrap();
        assert_eq!(bad, "volume = [");
        assert_eq!(Config::load(&path).config, Config::default());
        assert_eq!(Config::default().save(&path, false).unwrap(), None);
        let deeper = dir.join("new").join("folders").join("config.toml");
        assert_eq!(
            Config::default().save(&deeper, false).unwrap(),
            None,
            "folders made"
        );
        assert_eq!(
            Config::load(&deeper),
            Config::parse(&Config::default().to_toml())
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn an_oversized_or_unreadable_file_gives_the_defaults_and_says_why() {
        let dir = std::env::temp_dir().join(format!("maze-duel-big-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        // A file of exactly the largest size is read; one byte more is refused.
        let setting = "volume = 7\n";
        let padding = MAX_FILE_BYTES as usize - setting.len();
        let mut text = "#".repeat(padding - 1) + "\n" + setting;
        assert_eq!(text.len() as u64, MAX_FILE_BYTES);
        let big = dir.join("big.toml");
        std::fs::write(&big, &text).unwrap();
        let loaded = Config::load(&big);
        assert_eq!((loaded.config.volume, loaded.problems), (7, vec![]));
        text.insert(0, '#');
        std::fs::write(&big, &text).unwrap();
        let loaded = Config::load(&big);
        assert_eq!(loaded.config, Config::default());
        assert!(
            loaded.problems[0].contains("65537 bytes is too long"),
            "{:?}",
            loaded.problems
        );
        let missing = Config::load(&dir.join("absent.toml"));
        assert_eq!(
            (missing.config, missing.problems),
            (Config::default(), vec![])
        );
        let under_a_file = Config::load(&big.join("config.toml"));
        assert_eq!(under_a_file.config, Config::default());
        assert!(
            under_a_file.problems[0].contains("using the defaults"),
            "a path that cannot exist is not taken for a missing file: {:?}",
            under_a_file.problems
        );
        let folder = Config::load(&dir);
        assert_eq!(folder.config, Config::default());
        assert!(
            folder.problems[0].contains("using the defaults"),
            "{:?}",
            folder.problems
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn the_config_lives_under_xdg_config_home_else_under_home() {
        let some = |s: &str| Some(OsString::from(s));
        let file = |s: &str| Some(PathBuf::from(s));
        assert_eq!(
            path_under(some("/x"), some("/h")),
            file("/x/maze-duel/config.toml")
        );
        assert_eq!(
            path_under(some(""), some("/h")),
            file("/h/.config/maze-duel/config.toml"),
            "an empty XDG_CONFIG_HOME is unset"
        );
        assert_eq!(
            path_under(None, some("/h")),
            file("/h/.config/maze-duel/config.toml")
        );
        assert_eq!(path_under(None, some("")), None);
        assert_eq!(path_under(None, None), None);
        assert_eq!(
            default_path(),
            path_under(
                std::env::var_os("XDG_CONFIG_HOME"),
                std::env::var_os("HOME")
            ),
            "the game reads this process's environment"
        );
    }

    #[test]
    fn key_names_are_sdls_in_any_case_and_anything_else_is_none() {
        assert_eq!(scancode_named("w"), Some(Scancode::W));
        assert_eq!(scancode_named("Left Shift"), Some(Scancode::LShift));
        for name in [
            "",
            "W\0",
            "\0",
            "NoSuchKey",
            &"W".repeat(33),
            &"x".repeat(70_000),
        ] {
            assert_eq!(scancode_named(name), None, "{name:?}");
        }
    }

    /// A key list holds 1 to 4 keys; a key named twice counts once.
    #[test]
    fn a_key_list_holds_one_to_four_keys() {
        let list = |names: &[&str]| {
            let items = names.iter().map(|n| format!("{n:?}")).collect::<Vec<_>>();
            key_list(
                &format!("[{}]", items.join(", "))
                    .parse::<toml::Value>()
                    .unwrap(),
            )
        };
        assert_eq!(list(&["A"]), Ok(vec![Scancode::A]));
        assert_eq!(
            list(&["A", "B", "C", "D"]),
            Ok(vec![Scancode::A, Scancode::B, Scancode::C, Scancode::D])
        );
        assert_eq!(list(&["A", "a"]), Ok(vec![Scancode::A]));
        assert_eq!(list(&[]), Err("0 keys (1 to 4 allowed)".into()));
        assert_eq!(
            list(&["A", "B", "C", "D", "E"]),
            Err("5 keys (1 to 4 allowed)".into())
        );
        let not_a_list = key_list(&toml::Value::Integer(3)).unwrap_err();
        assert!(
            not_a_list.starts_with("expected a list of key names"),
            "{not_a_list}"
        );
    }

    fn value() -> impl Strategy<Value = String> {
        prop_oneof![
            any::<i64>().prop_map(|v| v.to_string()),
            any::<bool>().prop_map(|v| v.to_string()),
            "[a-zA-Z0-9 ]{0,12}".prop_map(|s| format!("{s:?}")),
            proptest::collection::vec("[A-Za-z0-9 ]{0,8}", 0..6).prop_map(|v| format!("{v:?}")),
            ".{0,12}",
        ]
    }

    proptest! {
        /// Any text at all: parsing never panics, and what it returns is within range and free
        /// of key conflicts.
        #[test]
        fn any_text_parses_to_usable_settings(text in ".{0,300}") {
            check(&Config::parse(&text).config);
        }

        /// Config-shaped files with random values in random places.
        #[test]
        fn random_settings_parse_to_usable_settings(
            entries in proptest::collection::vec(
                (prop_oneof![
                    Just("input_delay"), Just("volume"), Just("fullscreen"),
                    Just("remote_view"), Just("bot_difficulty"), Just("keys.player1.up"),
                    Just("keys.player2.rail"), Just("keys.player1.shoot"), Just("keys"),
                    Just("other"),
                ], value()),
                0..8,
            )
        ) {
            let text: String =
                entries.iter().map(|(k, v)| format!("{k} = {v}\n")).collect();
            let loaded = Config::parse(&text);
            check(&loaded.config);
            // Whatever was kept survives a save and a load unchanged.
            let again = Config::parse(&loaded.config.to_toml());
            prop_assert!(again.problems.is_empty(), "{:?}", again.problems);
            prop_assert_eq!(again.config, loaded.config);
        }
    }

    fn check(c: &Config) {
        assert!(c.volume <= 100 && c.input_delay <= MAX_INPUT_DELAY);
        assert_eq!(conflict(&c.bindings), None);
    }
}
