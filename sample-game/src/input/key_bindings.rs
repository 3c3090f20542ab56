//! Which keys do what. Keys are physical positions (scancodes), so WASD stays WASD on AZERTY or
//! Dvorak keyboards; the controls screen shows SDL's names for them.

use sdl2::keyboard::Scancode;

/// One player's keys. Each action may have several keys; any of them works.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PlayerKeys {
    /// Move up.
    pub up: Vec<Scancode>,
    /// Move down.
    pub down: Vec<Scancode>,
    /// Move left.
    pub left: Vec<Scancode>,
    /// Move right.
    pub right: Vec<Scancode>,
    /// Fire (held: fires whenever the cooldown allows).
    pub shoot: Vec<Scancode>,
    /// Melee swing (on the press).
    pub melee: Vec<Scancode>,
    /// Reload (on the press).
    pub reload: Vec<Scancode>,
    /// Fire the rail, the hitscan weapon (on the press).
    pub rail: Vec<Scancode>,
}

impl PlayerKeys {
    /// Every key this player uses.
    pub fn all(&self) -> impl Iterator<Item = Scancode> + '_ {
        [
            &self.up,
            &self.down,
            &self.left,
            &self.right,
            &self.shoot,
            &self.melee,
            &self.reload,
            &self.rail,
        ]
        .into_iter()
        .flatten()
        .copied()
    }
}

/// The keyboard layout of a local match: player 1 on the left of the keyboard, player 2 on the
/// right, and the keys that drive the game itself.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct KeyBindings {
    /// Keys per local player, in local-player order.
    pub players: [PlayerKeys; 2],
    /// Pause / resume (local play only).
    pub pause: Scancode,
    /// Show / hide the controls screen.
    pub controls: Scancode,
    /// Show / hide the netcode overlay.
    pub net_hud: [Scancode; 2],
    /// Show / hide the rail debug overlay (rewound hitboxes, the last rail ray).
    pub rail_debug: Scancode,
    /// Start the next match once this one is decided.
    pub rematch: [Scancode; 2],
    /// After a match against the bot: play the level offered (harder after a win, easier
    /// after a loss).
    pub other_level: Scancode,
    /// Leave the game.
    pub quit: Scancode,
}

impl Default for KeyBindings {
    fn default() -> KeyBindings {
        use Scancode as S;
        KeyBindings {
            players: [
                PlayerKeys {
                    up: vec![S::W],
                    down: vec![S::S],
                    left: vec![S::A],
                    right: vec![S::D],
                    shoot: vec![S::F],
                    melee: vec![S::G],
                    reload: vec![S::R],
                    rail: vec![S::E],
                },
                PlayerKeys {
                    up: vec![S::Up],
                    down: vec![S::Down],
                    left: vec![S::Left],
                    right: vec![S::Right],
                    shoot: vec![S::Period, S::RCtrl],
                    melee: vec![S::Slash, S::Comma],
                    reload: vec![S::RShift],
                    rail: vec![S::Semicolon, S::RAlt],
                },
            ],
            pause: S::P,
            controls: S::F1,
            net_hud: [S::Tab, S::H],
            rail_debug: S::F3,
            rematch: [S::Return, S::KpEnter],
            other_level: S::L,
            quit: S::Escape,
        }
    }
}

/// SDL's names for `keys`, joined with " or ".
#[must_use]
pub fn key_names(keys: &[Scancode]) -> String {
    keys.iter()
        .map(|k| match k.name() {
            "" => format!("{k:?}"),
            name => name.to_string(),
        })
        .collect::<Vec<_>>()
        .join(" or ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn no_key_is_bound_twice() {
        let b = KeyBindings::default();
        let mut keys: Vec<Scancode> = b.players.iter().flat_map(PlayerKeys::all).collect();
        keys.extend([b.pause, b.controls, b.rail_debug, b.other_level, b.quit]);
        keys.extend(b.net_hud);
        keys.extend(b.rematch);
        let n = keys.len();
        keys.sort_by_key(|k| *k as i32);
        keys.dedup();
        assert_eq!(keys.len(), n, "a key is bound to two things");
    }

    /// A player's keys are every key of every action, several per action where bound so.
    #[test]
    fn a_players_keys_are_those_of_all_eight_actions() {
        use Scancode as S;
        let b = KeyBindings::default();
        assert_eq!(
            b.players[0].all().collect::<Vec<_>>(),
            [S::W, S::S, S::A, S::D, S::F, S::G, S::R, S::E]
        );
        assert_eq!(b.players[1].all().count(), 11);
    }

    /// Keys read by SDL's names, joined with "or"; a key SDL has no name for reads as its
    /// scancode.
    #[test]
    fn keys_read_by_their_names() {
        use Scancode as S;
        assert_eq!(key_names(&[S::W]), "W");
        assert_eq!(key_names(&[S::Period, S::RCtrl]), ". or Right Ctrl");
        assert_eq!(key_names(&[]), "");
        let unnamed = S::International3;
        assert_eq!(unnamed.name(), "", "SDL names no such key");
        assert_eq!(key_names(&[unnamed, S::A]), "International3 or A");
    }
}
