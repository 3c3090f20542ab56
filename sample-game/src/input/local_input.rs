//! Turning this machine's keyboard and game controllers into one [`InputCmd`] per local
//! player, once per simulation tick.
//!
//! The keyboard is sampled as a state (what is held now), but a press and release that both
//! fall between two ticks would be lost, and melee and reload act on presses. So key and button
//! presses are also latched from events and count as held on the next tick.

use crate::input::key_bindings::{KeyBindings, PlayerKeys};
use engine::{buttons, InputCmd, ViewTime, STICK_MAX};
use sdl2::controller::{Axis, Button, GameController};
use sdl2::event::Event;
use sdl2::keyboard::Scancode;
use sdl2::GameControllerSubsystem;

/// Stick deflection (of 32767) below which a controller stick counts as centred, so the
/// keyboard and D-pad can take over.
const STICK_DEADZONE: i32 = 8000;
/// Trigger travel (of 32767) beyond which a trigger counts as pulled.
const TRIGGER_THRESHOLD: i16 = 12000;

/// What input reads of a game controller: SDL's [`GameController`] is one; the tests use a
/// made-up one, so that the code that follows controllers runs without a device.
pub trait Pad {
    /// The instance id SDL's events name it by (their `which`).
    fn instance_id(&self) -> u32;
    /// Its name, for the controls screen.
    fn name(&self) -> String;
    /// Whether `button` is held.
    fn button(&self, button: Button) -> bool;
    /// Where `axis` is, from −32768 to 32767.
    fn axis(&self, axis: Axis) -> i16;
}

impl Pad for GameController {
    fn instance_id(&self) -> u32 {
        GameController::instance_id(self)
    }

    fn name(&self) -> String {
        GameController::name(self)
    }

    fn button(&self, button: Button) -> bool {
        GameController::button(self, button)
    }

    fn axis(&self, axis: Axis) -> i16 {
        GameController::axis(self, axis)
    }
}

/// Keyboard and controller state for the local players.
pub struct LocalInput<P: Pad = GameController> {
    bindings: KeyBindings,
    /// Open controllers, in the order they were connected; controller `k` plays local player
    /// `k`.
    controllers: Vec<P>,
    /// Buttons pressed since the last sample, per local player.
    latched: [u8; 2],
    /// How many local players the current match has (1: one player gets every key).
    local_players: usize,
}

impl LocalInput {
    /// Input with these key bindings and no controller yet (they arrive as
    /// `ControllerDeviceAdded` events, including those plugged in before start).
    #[must_use]
    pub fn new(bindings: KeyBindings) -> LocalInput {
        LocalInput::with_pads(bindings)
    }

    /// Takes note of one SDL event: latches presses, opens and closes controllers (through
    /// `subsystem`; without one, none is opened).
    pub fn handle_event(&mut self, event: &Event, subsystem: Option<&GameControllerSubsystem>) {
        self.take_event(event, |which| subsystem.and_then(|s| s.open(which).ok()));
    }
}

impl<P: Pad> LocalInput<P> {
    /// [`LocalInput::new`] for any kind of controller.
    fn with_pads(bindings: KeyBindings) -> LocalInput<P> {
        LocalInput {
            bindings,
            controllers: Vec::new(),
            latched: [0; 2],
            local_players: 2,
        }
    }

    /// The key bindings.
    #[must_use]
    pub fn bindings(&self) -> &KeyBindings {
        &self.bindings
    }

    /// Changes the key bindings.
    pub fn set_bindings(&mut self, bindings: KeyBindings) {
        self.bindings = bindings;
    }

    /// Names of the connected controllers, in player order.
    #[must_use]
    pub fn controller_names(&self) -> Vec<String> {
        self.controllers.iter().map(Pad::name).collect()
    }

    /// [`LocalInput::handle_event`], opening a controller that arrives with `open`.
    fn take_event(&mut self, event: &Event, open: impl FnOnce(u32) -> Option<P>) {
        match *event {
            Event::KeyDown {
                scancode: Some(key),
                repeat: false,
                ..
            } => {
                for local in 0..self.local_players.min(2) {
                    let bits = self
                        .keys_of(local)
                        .map(|keys| key_buttons(keys, key))
                        .fold(0, |a, b| a | b);
                    self.latched[local] |= bits;
                }
            }
            Event::ControllerButtonDown { which, button, .. } => {
                if let Some(k) = self
                    .controllers
                    .iter()
                    .position(|c| c.instance_id() == which)
                {
                    let local = self.controller_player(k);
                    self.latched[local] |= pad_buttons(button);
                }
            }
            Event::ControllerDeviceAdded { which, .. } => {
                if let Some(pad) = open(which) {
                    let id = pad.instance_id();
                    if !self.controllers.iter().any(|c| c.instance_id() == id) {
                        self.controllers.push(pad);
                    }
                }
            }
            Event::ControllerDeviceRemoved { which, .. } => {
                self.controllers.retain(|c| c.instance_id() != which);
            }
            _ => {}
        }
    }

    /// The local player a controller plays: controllers go to players in order; with one
    /// local player, every controller plays them.
    fn controller_player(&self, k: usize) -> usize {
        if self.local_players <= 1 {
            0
        } else {
            k.min(1)
        }
    }

    /// The key sets local player `local` uses: their own, or both when they are alone.
    fn keys_of(&self, local: usize) -> impl Iterator<Item = &PlayerKeys> {
        let alone = self.local_players == 1;
        self.bindings
            .players
            .iter()
            .enumerate()
            .filter(move |(i, _)| alone || *i == local)
            .map(|(_, keys)| keys)
    }

    /// One input per local player for the coming tick (`local_players` of them, at most 2),
    /// from the keys `is_down` reports held, the controllers, and latched presses, which it
    /// clears. The tick stamp is left at 0 for the match source to set.
    ///
    /// An input with the rail pressed carries `view`, the moment the remote players were
    /// drawn at (relative to the input's tick), so the shot is judged against what was seen;
    /// every other input carries view 0, which only the rail reads — zeros keep the wire
    /// input small.
    pub fn sample(
        &mut self,
        local_players: usize,
        is_down: impl Fn(Scancode) -> bool,
        view: ViewTime,
    ) -> Vec<InputCmd> {
        self.local_players = local_players.min(2);
        let mut out = Vec::with_capacity(self.local_players);
        for local in 0..self.local_players {
            let mut cmd = InputCmd::idle(0);
            let (mut kx, mut ky) = (0i32, 0i32);
            for keys in self.keys_of(local) {
                let any = |list: &[Scancode]| list.iter().any(|&k| is_down(k));
                kx += i32::from(any(&keys.right)) - i32::from(any(&keys.left));
                ky += i32::from(any(&keys.down)) - i32::from(any(&keys.up));
                for (list, bit) in [
                    (&keys.shoot, buttons::SHOOT),
                    (&keys.melee, buttons::MELEE),
                    (&keys.reload, buttons::RELOAD),
                    (&keys.rail, buttons::RAIL),
                ] {
                    if any(list) {
                        cmd.buttons |= bit;
                    }
                }
            }
            let mut stick = (kx.signum(), ky.signum());
            for (k, pad) in self.controllers.iter().enumerate() {
                if self.controller_player(k) != local {
                    continue;
                }
                cmd.buttons |= pad_state(pad);
                if let Some(s) = pad_stick(pad) {
                    stick = s;
                }
            }
            cmd.move_x = axis(stick.0);
            cmd.move_y = axis(stick.1);
            cmd.buttons |= self.latched[local];
            self.latched[local] = 0;
            if cmd.held(buttons::RAIL) {
                cmd.view_ticks = view.ticks_back;
                cmd.view_frac = view.frac;
            }
            out.push(cmd);
        }
        out
    }
}

/// Scales a direction component (−1, 0, 1, or a controller value already in stick units) to
/// the engine's stick range.
fn axis(v: i32) -> i8 {
    let max = i32::from(STICK_MAX);
    (if v.abs() <= 1 { v * max } else { v }).clamp(-max, max) as i8
}

/// The buttons bound to `key` in `keys`.
fn key_buttons(keys: &PlayerKeys, key: Scancode) -> u8 {
    let mut bits = 0;
    for (list, bit) in [
        (&keys.shoot, buttons::SHOOT),
        (&keys.melee, buttons::MELEE),
        (&keys.reload, buttons::RELOAD),
        (&keys.rail, buttons::RAIL),
    ] {
        if list.contains(&key) {
            bits |= bit;
        }
    }
    bits
}

/// The game buttons a controller button maps to: A shoots; B, X or the right shoulder swing;
/// Y or the left shoulder reload; a right-stick click fires the rail (as does the left trigger,
/// read in [`pad_state`]).
fn pad_buttons(button: Button) -> u8 {
    match button {
        Button::A => buttons::SHOOT,
        Button::B | Button::X | Button::RightShoulder => buttons::MELEE,
        Button::Y | Button::LeftShoulder => buttons::RELOAD,
        Button::RightStick => buttons::RAIL,
        _ => 0,
    }
}

/// Buttons held on a controller (the right trigger also shoots, the left trigger fires the
/// rail).
fn pad_state(pad: &impl Pad) -> u8 {
    held_buttons(
        |b| pad.button(b),
        pad.axis(Axis::TriggerRight),
        pad.axis(Axis::TriggerLeft),
    )
}

/// [`pad_state`] for what a controller reports: its buttons held, its right and left
/// triggers' travel.
fn held_buttons(held: impl Fn(Button) -> bool, right_trigger: i16, left_trigger: i16) -> u8 {
    let mut bits = 0;
    for b in [
        Button::A,
        Button::B,
        Button::X,
        Button::Y,
        Button::LeftShoulder,
        Button::RightShoulder,
        Button::RightStick,
    ] {
        if held(b) {
            bits |= pad_buttons(b);
        }
    }
    if right_trigger > TRIGGER_THRESHOLD {
        bits |= buttons::SHOOT;
    }
    if left_trigger > TRIGGER_THRESHOLD {
        bits |= buttons::RAIL;
    }
    bits
}

/// The controller's movement: the left stick outside its deadzone, else the D-pad, else
/// `None` (the keyboard decides).
fn pad_stick(pad: &impl Pad) -> Option<(i32, i32)> {
    let dpad = |plus, minus| i32::from(pad.button(plus)) - i32::from(pad.button(minus));
    stick_of(
        (pad.axis(Axis::LeftX), pad.axis(Axis::LeftY)),
        (
            dpad(Button::DPadRight, Button::DPadLeft),
            dpad(Button::DPadDown, Button::DPadUp),
        ),
    )
}

/// [`pad_stick`] for a left stick at `(x, y)` and a D-pad held towards `(dx, dy)` (each −1,
/// 0 or 1).
fn stick_of((x, y): (i16, i16), (dx, dy): (i32, i32)) -> Option<(i32, i32)> {
    let (x, y) = (i32::from(x), i32::from(y));
    if x * x + y * y > STICK_DEADZONE * STICK_DEADZONE {
        // 32767 / 258 = 127: full deflection is a full engine stick.
        return Some((x / 258, y / 258));
    }
    (dx != 0 || dy != 0).then_some((dx, dy))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn held(keys: &'static [Scancode]) -> impl Fn(Scancode) -> bool {
        move |k| keys.contains(&k)
    }

    #[test]
    fn each_player_reads_their_own_side_of_the_keyboard() {
        let mut input = LocalInput::new(KeyBindings::default());
        let cmds = input.sample(
            2,
            held(&[Scancode::D, Scancode::W, Scancode::F, Scancode::Left]),
            ViewTime::default(),
        );
        assert_eq!((cmds[0].move_x, cmds[0].move_y), (127, -127));
        assert_eq!(cmds[0].buttons, buttons::SHOOT);
        assert_eq!(
            (cmds[1].move_x, cmds[1].move_y, cmds[1].buttons),
            (-127, 0, 0)
        );
    }

    /// New bindings take over from the next sample: the old key no longer moves, the new one
    /// does, and the bindings read back as set. No controller is open without one plugged in.
    #[test]
    fn changed_bindings_take_over_from_the_next_sample() {
        let mut input = LocalInput::new(KeyBindings::default());
        let mut swapped = KeyBindings::default();
        swapped.players[0].right = vec![Scancode::L];
        assert_ne!(input.bindings(), &swapped);
        input.set_bindings(swapped.clone());
        assert_eq!(input.bindings(), &swapped);
        let old = input.sample(2, held(&[Scancode::D]), ViewTime::default());
        assert_eq!(old[0].move_x, 0, "the old key moves no more");
        let new = input.sample(2, held(&[Scancode::L]), ViewTime::default());
        assert_eq!(new[0].move_x, 127);
        assert!(input.controller_names().is_empty());
    }

    #[test]
    fn opposite_keys_cancel() {
        let mut input = LocalInput::new(KeyBindings::default());
        let cmds = input.sample(2, held(&[Scancode::A, Scancode::D]), ViewTime::default());
        assert_eq!(cmds[0].move_x, 0);
    }

    #[test]
    fn a_press_between_two_ticks_is_not_lost() {
        let mut input = LocalInput::new(KeyBindings::default());
        input.handle_event(
            &Event::KeyDown {
                timestamp: 0,
                window_id: 0,
                keycode: None,
                scancode: Some(Scancode::Slash),
                keymod: sdl2::keyboard::Mod::NOMOD,
                repeat: false,
            },
            None,
        );
        let first = input.sample(2, held(&[]), ViewTime::default());
        assert_eq!(
            first[1].buttons,
            buttons::MELEE,
            "latched press is seen once"
        );
        assert_eq!(first[0].buttons, 0);
        let second = input.sample(2, held(&[]), ViewTime::default());
        assert_eq!(second[1].buttons, 0, "and then released");
    }

    #[test]
    fn a_lone_local_player_gets_both_key_sets() {
        let mut input = LocalInput::new(KeyBindings::default());
        let cmds = input.sample(
            1,
            held(&[Scancode::Down, Scancode::RCtrl]),
            ViewTime::default(),
        );
        assert_eq!(cmds.len(), 1);
        assert_eq!((cmds[0].move_y, cmds[0].buttons), (127, buttons::SHOOT));
    }

    #[test]
    fn each_player_has_a_rail_key() {
        let mut input = LocalInput::new(KeyBindings::default());
        let cmds = input.sample(
            2,
            held(&[Scancode::E, Scancode::Semicolon]),
            ViewTime::default(),
        );
        assert_eq!(
            (cmds[0].buttons, cmds[1].buttons),
            (buttons::RAIL, buttons::RAIL)
        );
        let cmds = input.sample(2, held(&[Scancode::RAlt]), ViewTime::default());
        assert_eq!((cmds[0].buttons, cmds[1].buttons), (0, buttons::RAIL));
        assert_eq!(pad_buttons(Button::RightStick), buttons::RAIL);
    }

    /// The view goes with a rail press and nothing else: the simulation judges the shot
    /// against what the player saw, and every other input stays all zeros past the stick.
    #[test]
    fn only_a_rail_press_carries_the_view() {
        let mut input = LocalInput::new(KeyBindings::default());
        let seen = ViewTime {
            ticks_back: 6,
            frac: 64,
        };
        let cmds = input.sample(2, held(&[Scancode::E, Scancode::F, Scancode::Period]), seen);
        assert_eq!(
            (cmds[0].view_ticks, cmds[0].view_frac),
            (6, 64),
            "rail pressed"
        );
        assert_eq!(
            (cmds[1].view_ticks, cmds[1].view_frac),
            (0, 0),
            "only shooting"
        );
        // A press latched between two ticks carries it too.
        input.handle_event(
            &Event::KeyDown {
                timestamp: 0,
                window_id: 0,
                keycode: None,
                scancode: Some(Scancode::Semicolon),
                keymod: sdl2::keyboard::Mod::NOMOD,
                repeat: false,
            },
            None,
        );
        let cmds = input.sample(2, held(&[]), seen);
        assert_eq!(cmds[1].buttons, buttons::RAIL);
        assert_eq!((cmds[1].view_ticks, cmds[1].view_frac), (6, 64));
        assert_eq!(cmds[0], InputCmd::idle(0), "nothing pressed: nothing sent");
    }

    /// A controller's buttons and triggers: A or the right trigger shoot; B, X or the right
    /// shoulder swing; Y or the left shoulder reload; a right-stick click or the left trigger
    /// fire the rail; a trigger counts past its threshold, not at it.
    #[test]
    fn controller_buttons_and_triggers_map_to_game_buttons() {
        let only = |button: Button| move |b: Button| b == button;
        let none = |_: Button| false;
        for (button, bit) in [
            (Button::A, buttons::SHOOT),
            (Button::B, buttons::MELEE),
            (Button::X, buttons::MELEE),
            (Button::RightShoulder, buttons::MELEE),
            (Button::Y, buttons::RELOAD),
            (Button::LeftShoulder, buttons::RELOAD),
            (Button::RightStick, buttons::RAIL),
        ] {
            assert_eq!(pad_buttons(button), bit, "{button:?}");
            assert_eq!(held_buttons(only(button), 0, 0), bit, "{button:?} held");
        }
        assert_eq!(pad_buttons(Button::Start), 0);
        assert_eq!(held_buttons(only(Button::Start), 0, 0), 0);
        assert_eq!(held_buttons(|_| true, 0, 0), 0b1111, "every button at once");
        let pull = TRIGGER_THRESHOLD + 1;
        assert_eq!(held_buttons(none, pull, 0), buttons::SHOOT);
        assert_eq!(held_buttons(none, 0, pull), buttons::RAIL);
        assert_eq!(held_buttons(none, TRIGGER_THRESHOLD, TRIGGER_THRESHOLD), 0);
    }

    /// The left stick past its deadzone (a circle) moves in engine stick units; inside it the
    /// D-pad decides; with neither, the keyboard does.
    #[test]
    fn the_stick_then_the_dpad_then_nothing() {
        assert_eq!(stick_of((32767, 0), (0, 0)), Some((127, 0)));
        assert_eq!(stick_of((-32768, 32767), (1, 1)), Some((-127, 127)));
        let edge = STICK_DEADZONE as i16;
        assert_eq!(stick_of((edge, 0), (0, 0)), None, "at the deadzone: inside");
        assert_eq!(stick_of((edge + 1, 0), (0, 0)), Some((31, 0)));
        assert_eq!(
            stick_of((6000, 6000), (0, 0)),
            Some((23, 23)),
            "a circle, not a square"
        );
        assert_eq!(
            stick_of((5000, 5000), (-1, 0)),
            Some((-1, 0)),
            "inside: the D-pad"
        );
        assert_eq!(stick_of((100, -100), (0, 1)), Some((0, 1)));
        assert_eq!(stick_of((100, -100), (0, 0)), None);
        assert_eq!(axis(1), 127);
        assert_eq!(axis(-1), -127);
        assert_eq!(axis(0), 0);
        assert_eq!(axis(64), 64, "stick units pass through");
        assert_eq!(axis(-400), -127, "clamped");
    }

    /// Controllers go to local players in order (the third and later to the second); with
    /// one local player every controller plays them.
    /// A controller made up for the tests: an id, a name, and what is held, shared with the
    /// test so it can press and release while the input holds the pad.
    struct FakePad {
        id: u32,
        name: String,
        held: std::rc::Rc<std::cell::RefCell<Vec<Button>>>,
    }

    impl Pad for FakePad {
        fn instance_id(&self) -> u32 {
            self.id
        }
        fn name(&self) -> String {
            self.name.clone()
        }
        fn button(&self, button: Button) -> bool {
            self.held.borrow().contains(&button)
        }
        fn axis(&self, _axis: Axis) -> i16 {
            0
        }
    }

    /// Controllers join as they are plugged in (once each, however often SDL says so), play
    /// players in that order, press buttons by their own id, and leave when unplugged — the
    /// next one then plays the first player.
    #[test]
    fn controllers_come_and_go_by_their_events() {
        let mut input = LocalInput::<FakePad>::with_pads(KeyBindings::default());
        let held: Vec<_> = (0..2)
            .map(|_| std::rc::Rc::new(std::cell::RefCell::new(Vec::new())))
            .collect();
        // SDL names a new controller by its device index; opened, it has an instance id.
        let open = |index: u32| {
            Some(FakePad {
                id: 10 + index,
                name: format!("pad {index}"),
                held: held[index as usize].clone(),
            })
        };
        let added = |which| Event::ControllerDeviceAdded {
            timestamp: 0,
            which,
        };
        input.take_event(&added(0), open);
        input.take_event(&added(1), open);
        input.take_event(&added(0), open); // the same controller again
        input.take_event(&added(1), |_| None); // one that cannot be opened
        assert_eq!(input.controller_names(), ["pad 0", "pad 1"]);
        // Held buttons: the second controller plays the second player only; its D-pad moves
        // them, and the first player's keys move the first (an idle controller leaves the
        // keyboard to decide).
        held[1].borrow_mut().extend([Button::A, Button::DPadLeft]);
        let right = KeyBindings::default().players[0].right[0];
        let cmds = input.sample(2, |k| k == right, ViewTime::default());
        assert_eq!((cmds[0].buttons, cmds[1].buttons), (0, buttons::SHOOT));
        assert_eq!((cmds[0].move_x, cmds[1].move_x), (127, -127));
        held[1].borrow_mut().clear();
        // A press between two ticks, by instance id; an unknown id presses nothing.
        let press = |which, button| Event::ControllerButtonDown {
            timestamp: 0,
            which,
            button,
        };
        input.take_event(&press(11, Button::X), open);
        input.take_event(&press(12, Button::A), open);
        let cmds = input.sample(2, |_| false, ViewTime::default());
        assert_eq!((cmds[0].buttons, cmds[1].buttons), (0, buttons::MELEE));
        // Unplugging the first: the second now plays the first player.
        input.take_event(
            &Event::ControllerDeviceRemoved {
                timestamp: 0,
                which: 10,
            },
            open,
        );
        assert_eq!(input.controller_names(), ["pad 1"]);
        held[1].borrow_mut().push(Button::Y);
        let cmds = input.sample(2, |_| false, ViewTime::default());
        assert_eq!((cmds[0].buttons, cmds[1].buttons), (buttons::RELOAD, 0));
    }

    /// A lone player gets both key sets; a key both sets bind for one action still presses it
    /// (the sets' bits are joined, not toggled).
    #[test]
    fn a_key_both_sets_bind_presses_once_for_a_lone_player() {
        let mut bindings = KeyBindings::default();
        bindings.players[1].shoot = bindings.players[0].shoot.clone();
        let key = bindings.players[0].shoot[0];
        let mut input = LocalInput::new(bindings);
        input.sample(1, |_| false, ViewTime::default());
        input.handle_event(
            &Event::KeyDown {
                timestamp: 0,
                window_id: 0,
                keycode: None,
                scancode: Some(key),
                keymod: sdl2::keyboard::Mod::NOMOD,
                repeat: false,
            },
            None,
        );
        let cmds = input.sample(1, |_| false, ViewTime::default());
        assert_eq!(cmds[0].buttons, buttons::SHOOT);
    }

    #[test]
    fn controllers_go_to_players_in_order() {
        let mut input = LocalInput::new(KeyBindings::default());
        input.sample(2, |_| false, ViewTime::default());
        let players: Vec<usize> = (0..4).map(|k| input.controller_player(k)).collect();
        assert_eq!(players, [0, 1, 1, 1]);
        input.sample(1, |_| false, ViewTime::default());
        assert!((0..4).all(|k| input.controller_player(k) == 0));
    }
}
