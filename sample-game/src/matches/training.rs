//! The training room: you (player 1) against a dummy (player 2) that stands, walks, fights
//! back (the beginner bot), or plays back what you recorded, with a frame meter read from the state, an input display and the
//! hitbox view (F3). Everything here is presentation or local inputs: the simulation is the
//! match's own, and the session records a match log like any other (mode `training`).
//!
//! Keys (read by the window loop, reserved from the bindings): F10 changes what the dummy does,
//! F11 starts a recording of your inputs and, pressed again, has the dummy play it back (in a
//! loop), F12 resets the positions (the same maze from its start).

use crate::draw::frame_meter::FrameMeter;
use crate::matches::local_match::{LocalLogs, LocalMatch};
use crate::matches::match_source::{MatchSource, SourceCommand};
use crate::matches::net_view::NetView;
use engine::{Bot, Difficulty, Event, InputCmd, PlayerId, Rules, Tick, World, WorldSnapshot};

/// The longest recording, in ticks (ten seconds).
pub const MAX_RECORDING: usize = 600;
/// Ticks the walking dummy goes one way before it turns.
const WALK_TICKS: Tick = 60;

/// What the dummy does.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DummyMode {
    /// Stands still.
    Stand,
    /// Walks left and right.
    Walk,
    /// Fights back as the beginner bot. (The rules have no block or guard to hold: defence is
    /// moving out of reach, which this dummy does when you come close.)
    Fight,
    /// Plays back your recording in a loop (stands while there is none).
    Playback,
}

impl DummyMode {
    /// How the training line names it.
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            DummyMode::Stand => "stands",
            DummyMode::Walk => "walks",
            DummyMode::Fight => "fights back",
            DummyMode::Playback => "plays back your recording",
        }
    }
}

/// The dummy's controller: a pure function of its mode, the tick and the recording.
#[derive(Clone, Debug)]
pub struct Dummy {
    mode: DummyMode,
    recording: Vec<InputCmd>,
    recording_on: bool,
    played: usize,
    /// What plays the dummy when it fights back.
    bot: Bot,
}

impl Default for Dummy {
    fn default() -> Dummy {
        Dummy {
            mode: DummyMode::Stand,
            recording: Vec::new(),
            recording_on: false,
            played: 0,
            bot: Bot::new(DUMMY, 0x7EA1).with_difficulty(Difficulty::Beginner),
        }
    }
}

impl Dummy {
    /// The dummy's input for `tick`, having seen `yours` (recorded while recording).
    pub fn input(&mut self, tick: Tick, yours: InputCmd) -> InputCmd {
        if self.recording_on && self.recording.len() < MAX_RECORDING {
            self.recording.push(yours);
        }
        let mut cmd = InputCmd::idle(tick);
        match self.mode {
            DummyMode::Stand => {}
            DummyMode::Walk => {
                cmd.move_x = if (tick / WALK_TICKS).is_multiple_of(2) {
                    127
                } else {
                    -127
                };
            }
            DummyMode::Playback if !self.recording.is_empty() && !self.recording_on => {
                cmd = self.recording[self.played % self.recording.len()];
                self.played += 1;
            }
            DummyMode::Playback | DummyMode::Fight => {}
        }
        InputCmd { tick, ..cmd }
    }

    /// The dummy's input for `world`'s next tick: as [`Dummy::input`], and when it fights
    /// back, what its bot makes of the world (deterministic: the bot is seeded).
    pub fn input_in(&mut self, world: &World, yours: InputCmd) -> InputCmd {
        let cmd = self.input(world.tick(), yours);
        match self.mode {
            // The bot's input is for the world's current tick, as the dummy's must be.
            DummyMode::Fight => self.bot.think(world),
            _ => cmd,
        }
    }

    /// The next mode (F10).
    pub fn cycle(&mut self) {
        self.mode = match self.mode {
            DummyMode::Stand => DummyMode::Walk,
            DummyMode::Walk => DummyMode::Fight,
            DummyMode::Fight => DummyMode::Playback,
            DummyMode::Playback => DummyMode::Stand,
        };
        self.played = 0;
    }

    /// F11: starts a new recording, or ends the one under way and plays it back.
    pub fn record(&mut self) {
        if self.recording_on {
            self.recording_on = false;
            self.mode = DummyMode::Playback;
            self.played = 0;
        } else {
            self.recording.clear();
            self.recording_on = true;
        }
    }

    /// What it does now.
    #[must_use]
    pub fn mode(&self) -> DummyMode {
        self.mode
    }

    /// Ticks recorded, and whether recording goes on.
    #[must_use]
    pub fn recorded(&self) -> (usize, bool) {
        (self.recording.len(), self.recording_on)
    }
}

/// What the window draws of the training room.
#[derive(Clone, Debug)]
pub struct TrainingView {
    /// The frame meter.
    pub meter: FrameMeter,
    /// The line of the dummy's mode and the recording.
    pub dummy: String,
    /// Your input on the last tick.
    pub input: InputCmd,
}

/// The training room as a match source.
#[derive(Debug)]
pub struct TrainingMatch {
    inner: LocalMatch,
    dummy: Dummy,
    meter: FrameMeter,
    last_input: InputCmd,
    resets: u32,
}

/// The player you control.
const YOU: [PlayerId; 1] = [0];
/// The dummy's slot.
const DUMMY: PlayerId = 1;

impl TrainingMatch {
    /// A training room on `seed`'s maze, logging to `logs`.
    ///
    /// # Errors
    /// If the rules do not validate or a log cannot be created.
    pub fn new(rules: Rules, seed: u64, logs: LocalLogs) -> anyhow::Result<TrainingMatch> {
        let inner = LocalMatch::new(rules, seed)?.training().with_logs(logs)?;
        Ok(TrainingMatch {
            inner,
            dummy: Dummy::default(),
            meter: FrameMeter::new(),
            last_input: InputCmd::idle(0),
            resets: 0,
        })
    }

    /// The dummy (tests).
    #[must_use]
    pub fn dummy(&self) -> &Dummy {
        &self.dummy
    }
}

impl MatchSource for TrainingMatch {
    fn local_players(&self) -> &[PlayerId] {
        &YOU
    }

    fn advance(&mut self, local: &[InputCmd]) -> anyhow::Result<Vec<Event>> {
        let yours = local.first().copied().unwrap_or_default();
        let dummy = self.dummy.input_in(self.inner.world(), yours);
        let events = self.inner.advance(&[yours, dummy])?;
        self.meter.on_tick(self.inner.current());
        self.last_input = yours;
        Ok(events)
    }

    fn current(&self) -> &WorldSnapshot {
        self.inner.current()
    }

    fn previous(&self) -> &WorldSnapshot {
        self.inner.previous()
    }

    fn rules(&self) -> &Rules {
        self.inner.rules()
    }

    fn net_view(&self) -> NetView {
        self.inner.net_view()
    }

    fn can_pause(&self) -> bool {
        true
    }

    fn command(&mut self, command: SourceCommand) -> anyhow::Result<()> {
        match command {
            SourceCommand::CycleDummy => self.dummy.cycle(),
            SourceCommand::Record => self.dummy.record(),
            SourceCommand::ResetPositions => {
                self.resets += 1;
                self.inner.restart(self.resets)?;
                self.meter = FrameMeter::new();
            }
            _ => {}
        }
        Ok(())
    }

    fn training(&self) -> Option<TrainingView> {
        let (ticks, on) = self.dummy.recorded();
        let recording = match (on, ticks) {
            (true, _) => format!("RECORDING {:.1} s (F11 to stop)", ticks as f32 / 60.0),
            (false, 0) => "F11: record".into(),
            (false, _) => format!("recorded {:.1} s (F11: again)", ticks as f32 / 60.0),
        };
        Some(TrainingView {
            meter: self.meter.clone(),
            dummy: format!(
                "dummy {} (F10)   {recording}   F12: reset   F3: hitboxes",
                self.dummy.mode().name()
            ),
            input: self.last_input,
        })
    }

    fn close(&mut self) -> anyhow::Result<()> {
        self.inner.close()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use engine::buttons;

    fn pressing(move_x: i8, b: u8) -> InputCmd {
        InputCmd {
            move_x,
            buttons: b,
            ..InputCmd::idle(0)
        }
    }

    /// The dummy stands, walks both ways, and plays back what was recorded, in a loop.
    #[test]
    fn the_dummy_stands_walks_and_plays_back() {
        let mut d = Dummy::default();
        assert_eq!(d.input(5, pressing(127, buttons::SHOOT)), InputCmd::idle(5));
        d.cycle();
        assert_eq!(d.mode(), DummyMode::Walk);
        assert_eq!(d.input(0, InputCmd::idle(0)).move_x, 127);
        assert_eq!(d.input(WALK_TICKS, InputCmd::idle(0)).move_x, -127);
        d.cycle();
        assert_eq!(d.mode(), DummyMode::Fight);
        d.cycle();
        assert_eq!(d.mode(), DummyMode::Playback);
        assert_eq!(
            d.input(1, InputCmd::idle(1)),
            InputCmd::idle(1),
            "nothing recorded"
        );
        d.record();
        let recorded = [
            pressing(127, 0),
            pressing(-127, buttons::MELEE),
            pressing(0, buttons::SHOOT),
        ];
        for (t, r) in recorded.iter().enumerate() {
            // While recording the dummy waits.
            assert_eq!(d.input(t as Tick, *r), InputCmd::idle(t as Tick));
        }
        assert_eq!(d.recorded(), (3, true));
        d.record();
        assert_eq!(d.recorded(), (3, false));
        assert_eq!(d.mode(), DummyMode::Playback);
        for round in 0..2u32 {
            for (i, r) in recorded.iter().enumerate() {
                let tick = 100 + round * 3 + i as Tick;
                assert_eq!(d.input(tick, InputCmd::idle(tick)), InputCmd { tick, ..*r });
            }
        }
        d.cycle();
        assert_eq!(d.mode(), DummyMode::Stand);
    }

    /// Fighting back, the dummy plays the beginner bot: it moves and attacks on its own, and
    /// the same room played twice gives the same match.
    #[test]
    fn the_dummy_fights_back_as_the_beginner_bot() {
        let play = || {
            let logs = LocalLogs::to(None, None);
            let mut room = TrainingMatch::new(Rules::default(), 11, logs).expect("room");
            for _ in 0..2 {
                room.command(SourceCommand::CycleDummy).expect("cycle");
            }
            assert_eq!(room.dummy().mode(), DummyMode::Fight);
            let start = room.current().players[1];
            let mut shots = 0;
            for _ in 0..1800 {
                room.advance(&[InputCmd::idle(0)]).expect("tick");
                shots = room.current().players[1].stats.shots;
            }
            assert_ne!(room.current().players[1].pos, start.pos, "it moved");
            (shots, room.inner.world().state_hash().combined)
        };
        let (shots, hash) = play();
        assert!(shots > 0, "it attacked");
        assert_eq!(play(), (shots, hash));
    }

    /// The room plays by the rules it was given, can pause, and F11 (the `Record` command)
    /// records your inputs and, pressed again, has the dummy play them back.
    #[test]
    fn the_room_keeps_its_rules_pauses_and_records_by_command() {
        let rules = Rules {
            rounds_to_win: 5,
            ..Rules::default()
        };
        let mut room =
            TrainingMatch::new(rules.clone(), 3, LocalLogs::to(None, None)).expect("room");
        assert_eq!(room.rules(), &rules);
        assert!(room.can_pause());
        room.command(SourceCommand::Record).expect("record");
        assert_eq!(room.dummy().recorded(), (0, true));
        let yours = pressing(-127, 0);
        for _ in 0..4 {
            room.advance(&[yours]).expect("tick");
        }
        room.command(SourceCommand::Record).expect("stop");
        assert_eq!(room.dummy().recorded(), (4, false));
        assert_eq!(room.dummy().mode(), DummyMode::Playback);
        let view = room.training().expect("a training view");
        assert!(view.dummy.contains("plays back"), "{}", view.dummy);
    }

    /// A recording stops growing at its limit.
    #[test]
    fn a_recording_is_bounded() {
        let mut d = Dummy::default();
        d.record();
        for t in 0..(MAX_RECORDING as Tick + 50) {
            d.input(t, pressing(1, 0));
        }
        assert_eq!(d.recorded(), (MAX_RECORDING, true));
    }

    /// The room plays one human against the dummy, feeds the meter every tick, and a reset
    /// starts the same maze again.
    #[test]
    fn the_room_runs_the_dummy_and_the_meter_and_resets() {
        let dir = std::env::temp_dir().join(format!("maze-duel-training-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("dir");
        let log = dir.join("training.duellog");
        let logs = LocalLogs::to(Some(log.clone()), None);
        let mut room = TrainingMatch::new(Rules::default(), 7, logs).expect("room");
        assert_eq!(room.local_players(), [0]);
        let start = room.current().clone();
        room.command(SourceCommand::CycleDummy).expect("walk");
        for _ in 0..300 {
            room.advance(&[InputCmd::idle(0)]).expect("tick");
        }
        let view = room.training().expect("a training view");
        assert_eq!(
            view.meter.row(0).len(),
            crate::draw::frame_meter::METER_TICKS
        );
        assert!(view.dummy.contains("walks"), "{}", view.dummy);
        assert_ne!(
            room.current().players[1].pos,
            start.players[1].pos,
            "the dummy walked"
        );
        room.command(SourceCommand::ResetPositions).expect("reset");
        assert_eq!(room.current().players, start.players, "back to the start");
        assert_eq!(room.current().maze, start.maze, "the same maze");
        let written =
            client::logs::matchlog::read_log::<World>(&log).expect("the first session's log");
        assert_eq!(written.header.mode, "training");
        assert_eq!(written.last_tick(), 300);
        // Each reset logs on in a file of its own, numbered; closing the room closes the
        // log of the last one with every tick played in it.
        for _ in 0..20 {
            room.advance(&[InputCmd::idle(0)]).expect("tick");
        }
        room.command(SourceCommand::ResetPositions)
            .expect("second reset");
        for _ in 0..30 {
            room.advance(&[InputCmd::idle(0)]).expect("tick");
        }
        room.close().expect("close");
        for (name, ticks) in [("training-reset1", 20), ("training-reset2", 30)] {
            let path = dir.join(format!("{name}.duellog"));
            let written = client::logs::matchlog::read_log::<World>(&path).expect(name);
            assert_eq!(written.header.mode, "training", "{name}");
            assert_eq!(written.last_tick(), ticks, "{name}");
        }
    }
}
