//! The menu state machine, driven by inputs alone (no SDL).

use super::*;
use crate::KeyBindings;
use proptest::prelude::*;
use MenuInput as M;

fn menu() -> Menu {
    Menu::new(Config::default())
}

fn press(menu: &mut Menu, inputs: &[MenuInput]) -> Vec<Choice> {
    inputs.iter().filter_map(|i| menu.handle(*i)).collect()
}

fn typed(text: &str) -> Vec<MenuInput> {
    text.chars().map(M::Char).collect()
}

/// Moving and changing values tick, a choice chimes, going back sounds lower; typing is
/// silent.
#[test]
fn menu_inputs_make_their_sounds() {
    use crate::present::sound::Sfx;
    for (input, sound) in [
        (M::Up, Some(Sfx::MenuMove)),
        (M::Down, Some(Sfx::MenuMove)),
        (M::Left, Some(Sfx::MenuMove)),
        (M::Right, Some(Sfx::MenuMove)),
        (M::Enter, Some(Sfx::MenuSelect)),
        (M::Key(sdl2::keyboard::Scancode::Q), Some(Sfx::MenuSelect)),
        (M::Back, Some(Sfx::MenuBack)),
        (M::Char('a'), None),
        (M::Backspace, None),
    ] {
        assert_eq!(input.sound(), sound, "{input:?}");
    }
}

#[test]
fn the_main_list_starts_each_mode() {
    let mut m = menu();
    assert_eq!(press(&mut m, &[M::Enter]), [Choice::Local]);
    assert_eq!(
        press(&mut m, &[M::Down, M::Right, M::Enter]),
        [Choice::SaveConfig, Choice::VsBot(Difficulty::Hard)]
    );
    assert_eq!(m.config.bot_difficulty, Difficulty::Hard);
    assert_eq!(press(&mut m, &[M::Right]), [], "hard is the top level");
    for level in [Difficulty::Normal, Difficulty::Easy, Difficulty::Beginner] {
        assert_eq!(press(&mut m, &[M::Left]), [Choice::SaveConfig]);
        assert_eq!(m.config.bot_difficulty, level);
    }
    assert_eq!(
        press(&mut m, &[M::Left]),
        [],
        "beginner is the bottom level"
    );
    assert!(m.main_label(1).contains("beginner"), "{}", m.main_label(1));
    for _ in 0..3 {
        press(&mut m, &[M::Right]);
    }
    assert_eq!(m.config.bot_difficulty, Difficulty::Hard);
    assert_eq!(press(&mut m, &[M::Down, M::Enter]), [Choice::Host]);
    assert_eq!(
        press(&mut m, &[M::Down, M::Down, M::Down, M::Enter]),
        [Choice::RejoinLast]
    );
    assert_eq!(press(&mut m, &[M::Down, M::Enter]), [Choice::ListReplays]);
    m.to_main();
    assert_eq!(press(&mut m, &[M::Down, M::Enter]), [Choice::Training]);
    assert_eq!(press(&mut m, &[M::Up]), []);
    assert_eq!(
        press(&mut m, &[M::Up, M::Up, M::Up, M::Up, M::Up, M::Up, M::Up]),
        []
    );
    assert_eq!(
        m.main_row,
        MAIN_ITEMS.len() - 1,
        "wraps from the top to Quit"
    );
    assert_eq!(press(&mut m, &[M::Enter]), [Choice::Quit]);
}

#[test]
fn esc_on_the_title_goes_to_quit_then_quits() {
    let mut m = menu();
    assert_eq!(press(&mut m, &[M::Back]), []);
    assert_eq!(m.main_row, MAIN_ITEMS.len() - 1);
    assert_eq!(press(&mut m, &[M::Back]), [Choice::Quit]);
}

/// Issue 17: a host's invitation (ADDRESS#CODE) is a valid address to join; a code that does
/// not read is named at once.
#[test]
fn an_invitation_with_its_code_is_an_address_to_join() {
    assert_eq!(
        crate::menu::address_problem("10.0.0.2:7000#aaaa-bbbb-cccc-dddd"),
        None
    );
    let problem = crate::menu::address_problem("10.0.0.2:7000#zz").expect("refused");
    assert!(problem.contains("invite code"), "{problem}");
    let problem = crate::menu::address_problem("10.0.0.2#aaaa-bbbb-cccc-dddd").expect("no port");
    assert!(problem.contains("has no port"), "{problem}");
}

#[test]
fn join_takes_a_typed_address_with_a_port() {
    let mut m = menu();
    press(&mut m, &[M::Down, M::Down, M::Down, M::Enter]);
    assert_eq!(m.screen, Screen::Address { spectate: false });
    assert!(m.wants_text());
    assert_eq!(press(&mut m, &[M::Enter]), []);
    assert!(m
        .note
        .as_deref()
        .unwrap()
        .contains("type the host's invitation"));
    assert_eq!(press(&mut m, &typed("10.0.0.2")), []);
    assert_eq!(press(&mut m, &[M::Enter]), []);
    assert_eq!(
        m.note.as_deref(),
        Some("`10.0.0.2` has no port: write HOST:PORT, e.g. 10.0.0.2:7000")
    );
    let mut inputs = typed(":70001");
    inputs.extend([M::Backspace, M::Enter]);
    assert_eq!(
        press(&mut m, &inputs),
        [Choice::Join("10.0.0.2:7000".into())]
    );
    // Back to the title and into Spectate: the address is remembered.
    press(&mut m, &[M::Back, M::Down, M::Enter]);
    assert_eq!(m.screen, Screen::Address { spectate: true });
    assert_eq!(
        press(&mut m, &[M::Enter]),
        [Choice::Spectate("10.0.0.2:7000".into())]
    );
}

#[test]
fn address_problems() {
    assert_eq!(address_problem("host.lan:7000"), None);
    assert_eq!(address_problem("[::1]:7000"), None);
    assert!(address_problem("host.lan").unwrap().contains("has no port"));
    assert!(address_problem("host.lan:")
        .unwrap()
        .contains("has no port"));
    assert!(address_problem(":7000").unwrap().contains("has no port"));
    assert!(address_problem("h:99999")
        .unwrap()
        .contains("port 99999 is out of range (a port is 1 to 65535)"));
    assert!(address_problem("h:0").unwrap().contains("port 0"));
}

#[test]
fn options_change_and_ask_to_save() {
    let mut m = menu();
    for _ in 0..8 {
        m.handle(M::Down);
    }
    assert_eq!(press(&mut m, &[M::Enter]), []);
    assert_eq!(m.screen, Screen::Options);
    // Input delay: up to the limit and no further.
    let more = vec![M::Right; 10];
    assert_eq!(press(&mut m, &more).len(), usize::from(MAX_INPUT_DELAY - 2));
    assert_eq!(m.config.input_delay, MAX_INPUT_DELAY);
    assert_eq!(press(&mut m, &[M::Down, M::Enter]), [Choice::SaveConfig]);
    assert_eq!(m.config.remote_view, RemoteView::Predicted);
    press(&mut m, &[M::Down]);
    for _ in 0..10 {
        m.handle(M::Left);
    }
    assert_eq!(m.config.volume, 0);
    assert_eq!(press(&mut m, &[M::Down, M::Right]), [Choice::SaveConfig]);
    assert!(m.config.fullscreen);
    assert!(m.option_labels()[3].contains("on"));
    // ICE servers: public STUN by default, off (LAN only) a press away, saved like the rest.
    assert!(m.option_labels()[4].contains("public STUN"));
    assert_eq!(press(&mut m, &[M::Down, M::Right]), [Choice::SaveConfig]);
    assert_eq!(m.config.ice, crate::config::IceChoice::Off);
    assert!(m.option_labels()[4].contains("off (LAN only)"));
    assert_eq!(
        m.config.ice_servers(),
        client::net::webrtc::IceServers::default()
    );
    assert_eq!(press(&mut m, &[M::Back]), []);
    assert_eq!(m.screen, Screen::Main);
}

fn to_keys(m: &mut Menu) {
    m.main_row = 8;
    m.handle(M::Enter);
    m.options_row = 5;
    m.handle(M::Enter);
    assert_eq!(m.screen, Screen::Keys);
}

#[test]
fn a_key_is_bound_by_pressing_it() {
    let mut m = menu();
    to_keys(&mut m);
    // P1 shoot is row 4.
    press(&mut m, &[M::Down, M::Down, M::Down, M::Down, M::Enter]);
    assert_eq!(
        m.screen,
        Screen::Binding {
            player: 0,
            action: 4
        }
    );
    assert!(m.wants_key());
    assert_eq!(
        press(&mut m, &[M::Key(Scancode::Space)]),
        [Choice::SaveConfig]
    );
    assert_eq!(m.config.bindings.players[0].shoot, vec![Scancode::Space]);
    assert_eq!(m.screen, Screen::Keys);
    // Esc while binding keeps the old key.
    press(&mut m, &[M::Enter, M::Key(Scancode::Escape)]);
    assert_eq!(m.config.bindings.players[0].shoot, vec![Scancode::Space]);
    // A reserved key is refused with a note.
    assert_eq!(press(&mut m, &[M::Enter, M::Key(Scancode::P)]), []);
    assert!(m.note.as_deref().unwrap().contains("game's own keys"));
    // Reset.
    m.keys_row = 16;
    assert_eq!(press(&mut m, &[M::Enter]), [Choice::SaveConfig]);
    assert_eq!(m.config.bindings, KeyBindings::default());
}

#[test]
fn a_key_taken_from_another_action_swaps_when_it_must() {
    let mut b = KeyBindings::default();
    // P1 up takes D from P1 right, which had only D: right gets W.
    let note = rebind(&mut b, 0, 0, Scancode::D).unwrap().unwrap();
    assert_eq!(
        (b.players[0].up.clone(), b.players[0].right.clone()),
        (vec![Scancode::D], vec![Scancode::W])
    );
    assert!(note.contains("now has W"), "{note}");
    // P1 shoot takes RCtrl from P2 shoot, which keeps Period.
    rebind(&mut b, 0, 4, Scancode::RCtrl).unwrap();
    assert_eq!(b.players[1].shoot, vec![Scancode::Period]);
    assert_eq!(crate::config::conflict(&b), None);
    assert!(rebind(&mut b, 2, 0, Scancode::K).is_err());
    assert!(rebind(&mut b, 0, 8, Scancode::K).is_err());
}

#[test]
fn notices_lead_back_to_the_title() {
    let mut m = menu();
    m.notice("REFUSED", "the match is full");
    assert_eq!(press(&mut m, &[M::Down, M::Left]), []);
    assert!(matches!(m.screen, Screen::Notice { .. }));
    press(&mut m, &[M::Enter]);
    assert_eq!(m.screen, Screen::Main);
}

#[test]
fn replays_pick_the_highlighted_log() {
    let mut m = menu();
    let entry = |name: &str| ReplayEntry {
        path: PathBuf::from(format!("matches/{name}")),
        name: name.into(),
        modified: std::time::SystemTime::UNIX_EPOCH,
        line: None,
    };
    m.show_replays(vec![entry("b.duellog"), entry("a.duellog")]);
    assert_eq!(
        press(&mut m, &[M::Down, M::Enter]),
        [Choice::Replay(PathBuf::from("matches/a.duellog"))]
    );
    m.show_replays(Vec::new());
    assert_eq!(press(&mut m, &[M::Down, M::Enter]), []);
    assert_eq!(m.screen, Screen::Main, "an empty list leads back");
}

/// Keys to press at random: letters, game keys, reserved keys, Esc.
const KEYS: [Scancode; 24] = {
    use Scancode as S;
    [
        S::A,
        S::D,
        S::E,
        S::F,
        S::G,
        S::K,
        S::R,
        S::S,
        S::W,
        S::Space,
        S::Up,
        S::Down,
        S::Left,
        S::Right,
        S::Period,
        S::RCtrl,
        S::Slash,
        S::Semicolon,
        S::Escape,
        S::Return,
        S::P,
        S::F1,
        S::F5,
        S::Tab,
    ]
};

fn any_input() -> impl Strategy<Value = MenuInput> {
    prop_oneof![
        Just(M::Up),
        Just(M::Down),
        Just(M::Left),
        Just(M::Right),
        Just(M::Enter),
        Just(M::Back),
        Just(M::Backspace),
        any::<char>().prop_map(M::Char),
        proptest::sample::select(KEYS.to_vec()).prop_map(M::Key),
    ]
}

proptest! {
    /// Any sequence of inputs: nothing panics, the highlight stays on a row, the settings stay
    /// in range with no key bound twice, and the address stays short and printable.
    #[test]
    fn any_inputs_keep_the_menu_consistent(inputs in proptest::collection::vec(any_input(), 0..200)) {
        let mut m = menu();
        m.show_replays(vec![ReplayEntry {
            path: PathBuf::from("x.duellog"),
            name: "x.duellog".into(),
            modified: std::time::SystemTime::UNIX_EPOCH,
            line: None,
        }]);
        m.to_main();
        for input in inputs {
            let choice = m.handle(input);
            if choice == Some(Choice::ListReplays) {
                m.show_replays(m.replays.clone());
            }
            prop_assert!(m.main_row < MAIN_ITEMS.len());
            prop_assert!(m.options_row < OPTION_ITEMS.len());
            prop_assert!(m.keys_row < 18);
            prop_assert!(m.config.volume <= 100 && m.config.input_delay <= MAX_INPUT_DELAY);
            prop_assert_eq!(crate::config::conflict(&m.config.bindings), None);
            prop_assert!(m.address.len() <= MAX_ADDRESS);
            prop_assert!(m.address.chars().all(|c| c.is_ascii_graphic()));
        }
    }
}

proptest! {
    /// Any typed address: the check never panics, and what it lets through ends in a port
    /// 1..=65535 after a non-empty host.
    #[test]
    fn the_address_check_accepts_only_host_and_port(address in ".{0,40}") {
        if address_problem(&address).is_none() {
            let (host, port) = address.rsplit_once(':').expect("a colon");
            prop_assert!(!host.is_empty());
            prop_assert!(port.parse::<u16>().is_ok_and(|p| p > 0));
        }
    }
}

/// Keys come as keys only while one is being bound, characters as text only in the address
/// field: on every other screen the front end sends them as menu moves.
#[test]
fn only_binding_wants_keys_and_only_the_address_field_wants_text() {
    let mut m = menu();
    let screens = [
        Screen::Main,
        Screen::Address { spectate: false },
        Screen::Address { spectate: true },
        Screen::Replays,
        Screen::Options,
        Screen::Keys,
        Screen::Binding {
            player: 1,
            action: 7,
        },
        Screen::Notice {
            title: "t".into(),
            text: "x".into(),
        },
    ];
    for screen in screens {
        m.screen = screen.clone();
        assert_eq!(
            m.wants_key(),
            matches!(screen, Screen::Binding { .. }),
            "{screen:?}"
        );
        assert_eq!(
            m.wants_text(),
            matches!(screen, Screen::Address { .. }),
            "{screen:?}"
        );
        m.to_main();
        assert_eq!(m.screen, Screen::Main, "from {screen:?}");
    }
}

/// The key screen lists both players' eight actions with their keys, then its two rows.
#[test]
fn the_key_rows_name_every_action_and_its_keys() {
    let rows = menu().key_labels();
    assert_eq!(
        rows,
        [
            "P1 up      W",
            "P1 down    S",
            "P1 left    A",
            "P1 right   D",
            "P1 shoot   F",
            "P1 melee   G",
            "P1 reload  R",
            "P1 rail    E",
            "P2 up      Up",
            "P2 down    Down",
            "P2 left    Left",
            "P2 right   Right",
            "P2 shoot   . or Right Ctrl",
            "P2 melee   / or ,",
            "P2 reload  Right Shift",
            "P2 rail    ; or Right Alt",
            "Reset to defaults",
            "Back",
        ]
    );
}

/// A note stays while the address is typed and edited (it says what is wrong with it), and
/// goes with the next move.
#[test]
fn a_note_stays_while_typing_and_goes_with_the_next_move() {
    let mut m = menu();
    m.main_row = 3;
    press(&mut m, &[M::Enter]);
    press(&mut m, &typed("nowhere"));
    press(&mut m, &[M::Enter]);
    let note = m
        .note
        .clone()
        .expect("an address without a port has a note");
    press(&mut m, &[M::Char(':'), M::Backspace]);
    assert_eq!(m.note.as_deref(), Some(note.as_str()));
    press(&mut m, &[M::Up]);
    assert_eq!(m.note, None);
}

/// Left and right change the bot's level on its row only.
#[test]
fn left_and_right_change_nothing_on_the_other_main_rows() {
    let mut m = menu();
    let level = m.config.bot_difficulty;
    for row in (0..MAIN_ITEMS.len()).filter(|&r| r != 1) {
        m.main_row = row;
        assert_eq!(
            press(&mut m, &[M::Left, M::Right, M::Right]),
            [],
            "row {row}"
        );
        assert_eq!(m.config.bot_difficulty, level, "row {row}");
        assert_eq!((m.main_row, &m.screen), (row, &Screen::Main));
    }
}

/// The address field takes up to its limit of characters and no more.
#[test]
fn the_address_field_takes_up_to_its_limit() {
    let mut m = menu();
    m.main_row = 3;
    press(&mut m, &[M::Enter]);
    press(&mut m, &typed(&"a".repeat(MAX_ADDRESS - 1)));
    press(&mut m, &typed("bc"));
    assert_eq!(m.address.len(), MAX_ADDRESS);
    assert!(m.address.ends_with("ab"), "{}", m.address);
}

/// Down and up move through the replays, wrapping; Esc leaves the list.
#[test]
fn the_replay_list_moves_both_ways_and_esc_leaves_it() {
    let mut m = menu();
    let entry = |name: &str| ReplayEntry {
        path: PathBuf::from(name),
        name: name.into(),
        modified: std::time::SystemTime::UNIX_EPOCH,
        line: None,
    };
    m.show_replays(vec![entry("a"), entry("b"), entry("c")]);
    press(&mut m, &[M::Down]);
    assert_eq!(m.replay_row, 1);
    press(&mut m, &[M::Up, M::Up]);
    assert_eq!(m.replay_row, 2);
    assert_eq!(press(&mut m, &[M::Back]), []);
    assert_eq!(m.screen, Screen::Main);
}

/// The volume moves by tens both ways; the ICE servers' row cycles forward with right and
/// back with left through every choice there is.
#[test]
fn volume_steps_by_ten_and_the_ice_row_cycles_both_ways() {
    use crate::config::IceChoice;
    let mut m = Menu::new(Config {
        volume: 50,
        ice_custom: client::net::webrtc::IceServers {
            urls: vec!["stun:example.org:3478".into()],
            ..Default::default()
        },
        ..Config::default()
    });
    m.screen = Screen::Options;
    m.options_row = 2;
    assert_eq!(press(&mut m, &[M::Right]), [Choice::SaveConfig]);
    assert_eq!(m.config.volume, 60);
    press(&mut m, &[M::Left, M::Left]);
    assert_eq!(m.config.volume, 40);
    m.options_row = 4;
    assert_eq!(m.config.ice, IceChoice::PublicStun);
    press(&mut m, &[M::Right]);
    assert_eq!(m.config.ice, IceChoice::Off);
    press(&mut m, &[M::Left, M::Left]);
    assert_eq!(m.config.ice, IceChoice::Custom);
    press(&mut m, &[M::Enter]);
    assert_eq!(m.config.ice, IceChoice::PublicStun, "enter goes forward");
}

/// The key list's 18 rows wrap both ways; each of the 16 action rows opens its binding, the
/// reset row resets, the back row and Esc go back to the options.
#[test]
fn every_key_row_does_its_own_thing() {
    let mut m = menu();
    to_keys(&mut m);
    press(&mut m, &[M::Up]);
    assert_eq!(m.keys_row, 17, "up from the top is the last row");
    press(&mut m, &[M::Down]);
    assert_eq!(m.keys_row, 0, "down from the last row is the top");
    for row in 0..16 {
        m.keys_row = row;
        assert_eq!(press(&mut m, &[M::Enter]), []);
        assert_eq!(
            m.screen,
            Screen::Binding {
                player: row / 8,
                action: row % 8
            }
        );
        // Back, or Esc, while binding keeps the key and says nothing.
        let out = if row % 2 == 0 {
            M::Back
        } else {
            M::Key(Scancode::Escape)
        };
        assert_eq!(press(&mut m, &[out]), []);
        assert_eq!((&m.screen, &m.note), (&Screen::Keys, &None), "row {row}");
    }
    assert_eq!(m.config.bindings, KeyBindings::default());
    // Back (row 17) with a key changed leaves it changed.
    m.keys_row = 4;
    press(&mut m, &[M::Enter, M::Key(Scancode::Space)]);
    m.keys_row = 17;
    assert_eq!(press(&mut m, &[M::Enter]), []);
    assert_eq!(m.screen, Screen::Options);
    assert_eq!(m.config.bindings.players[0].shoot, vec![Scancode::Space]);
    press(&mut m, &[M::Enter]);
    assert_eq!(m.screen, Screen::Keys);
    assert_eq!(press(&mut m, &[M::Back]), []);
    assert_eq!(m.screen, Screen::Options);
}

/// A room link is told from an invitation by its scheme, either one, and checked as a link.
#[test]
fn room_links_of_either_scheme_are_links_to_check_as_such() {
    for link in ["ws://h:3536/r", "wss://h/r"] {
        assert!(is_room_link(link), "{link}");
        assert_eq!(address_problem(link), None, "{link}");
    }
    for other in ["192.168.1.20:7000#CODE", "http://h/r", "ws:/h/r", "wss:h/r"] {
        assert!(!is_room_link(other), "{other}");
    }
    let problem = address_problem("ws://h:3536").expect("no room");
    assert!(problem.contains("not a room link"), "{problem}");
}

/// Player 2's keys are bound like player 1's; there is no third player.
#[test]
fn the_second_players_keys_bind_too() {
    let mut b = KeyBindings::default();
    assert_eq!(rebind(&mut b, 1, 7, Scancode::K), Ok(None));
    assert_eq!(b.players[1].rail, vec![Scancode::K]);
    assert_eq!(
        rebind(&mut b, 1, 8, Scancode::K),
        Err("no such action".into())
    );
    assert_eq!(
        rebind(&mut b, 2, 7, Scancode::K),
        Err("no such action".into())
    );
}
