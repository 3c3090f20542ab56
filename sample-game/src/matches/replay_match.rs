//! `ReplayMatch`: watches a recorded match log, with pause, single-step, speed and seek (seeks
//! restore the nearest checkpoint and re-simulate from it, checking every logged hash).

use crate::matches::match_source::{MatchSource, SourceCommand, Timeline};
use crate::matches::net_view::{DesyncStatus, NetMode, NetView};
use client::logs::hashlog::HashLogWriter;
use client::logs::matchlog::MatchLog;
use client::logs::replay::Replay;
use engine::{
    Event, InputCmd, PlayerId, RoundPhase, Rules, Tick, World, WorldSnapshot, TICKS_PER_SECOND,
};

/// Playback speeds, in eighths of real time.
const SPEEDS: [u32; 7] = [1, 2, 4, 8, 16, 32, 64];
/// Index of 1× in [`SPEEDS`].
const NORMAL: usize = 3;

/// A replay viewer.
#[derive(Debug)]
pub struct ReplayMatch {
    replay: Replay<World>,
    previous: WorldSnapshot,
    paused: bool,
    speed: usize,
    /// Eighths of a tick owed at the current speed.
    owed: u32,
    step_once: bool,
    hash_log: Option<HashLogWriter<World>>,
}

impl ReplayMatch {
    /// A viewer at the start of `log`.
    ///
    /// # Errors
    /// If the log's rules or first checkpoint cannot be used.
    pub fn new(log: MatchLog<World>) -> anyhow::Result<ReplayMatch> {
        let replay = Replay::new(log)?;
        Ok(ReplayMatch {
            previous: replay.world().snapshot(),
            replay,
            paused: false,
            speed: NORMAL,
            owed: 0,
            step_once: false,
            hash_log: None,
        })
    }

    /// Also writes a hash log of the ticks played (each tick once, the first time it is shown).
    #[must_use]
    pub fn with_hash_log(mut self, log: HashLogWriter<World>) -> ReplayMatch {
        self.hash_log = Some(log);
        self
    }

    /// The replay.
    #[must_use]
    pub fn replay(&self) -> &Replay<World> {
        &self.replay
    }

    fn step(&mut self, events: &mut Vec<Event>) -> anyhow::Result<bool> {
        self.replay.world().save_into(&mut self.previous);
        if !self.replay.step()? {
            return Ok(false);
        }
        events.extend_from_slice(self.replay.world().events());
        if let Some(log) = &mut self.hash_log {
            let world = self.replay.world();
            if log.last_tick().is_none_or(|t| world.tick() > t) {
                log.record(world.tick(), &world.state_hash())?;
            }
        }
        Ok(true)
    }

    fn seek(&mut self, tick: Tick) -> anyhow::Result<()> {
        self.replay.seek(tick)?;
        self.replay.world().save_into(&mut self.previous);
        Ok(())
    }
}

impl MatchSource for ReplayMatch {
    fn local_players(&self) -> &[PlayerId] {
        &[]
    }

    fn advance(&mut self, _local: &[InputCmd]) -> anyhow::Result<Vec<Event>> {
        let mut events = Vec::new();
        if self.paused {
            if std::mem::take(&mut self.step_once) {
                self.step(&mut events)?;
            } else {
                self.replay.world().save_into(&mut self.previous);
            }
            return Ok(events);
        }
        self.owed += SPEEDS[self.speed];
        while self.owed >= 8 {
            self.owed -= 8;
            let decided = self.replay.world().state().round.phase == RoundPhase::MatchOver;
            if decided || !self.step(&mut events)? {
                // The match is decided (or the log ends): stop there rather than play the idle
                // ticks recorded after it; seeking or stepping still goes anywhere.
                self.owed = 0;
                self.paused = true;
                break;
            }
        }
        Ok(events)
    }

    fn current(&self) -> &WorldSnapshot {
        self.replay.world().state()
    }

    fn previous(&self) -> &WorldSnapshot {
        &self.previous
    }

    fn rules(&self) -> &Rules {
        self.replay.world().rules()
    }

    fn net_view(&self) -> NetView {
        let world = self.replay.world();
        let speed = SPEEDS[self.speed];
        let speed = if speed >= 8 {
            format!("{}x", speed / 8)
        } else {
            format!("1/{}x", 8 / speed)
        };
        let state = if self.paused { "paused" } else { "playing" };
        NetView {
            mode: NetMode::Replay,
            desync: DesyncStatus::InSync {
                checked: world.tick(),
            },
            status: Some(format!(
                "{state} {speed} of {} ticks",
                self.replay.last_tick()
            )),
            ..NetView::local(world.tick(), world.state_hash())
        }
    }

    fn can_pause(&self) -> bool {
        true
    }

    fn timeline(&self) -> Option<Timeline> {
        Some(Timeline {
            tick: self.replay.world().tick(),
            last: self.replay.last_tick(),
            paused: self.paused,
        })
    }

    fn close(&mut self) -> anyhow::Result<()> {
        if let Some(log) = &mut self.hash_log {
            log.flush()?;
        }
        Ok(())
    }

    fn command(&mut self, command: SourceCommand) -> anyhow::Result<()> {
        let seconds = |s: i32| s.unsigned_abs() * TICKS_PER_SECOND;
        match command {
            SourceCommand::TogglePause => self.paused = !self.paused,
            SourceCommand::Step => {
                self.paused = true;
                self.step_once = true;
            }
            SourceCommand::Faster => self.speed = (self.speed + 1).min(SPEEDS.len() - 1),
            SourceCommand::Slower => self.speed = self.speed.saturating_sub(1),
            SourceCommand::Seek(s) if s < 0 => {
                self.seek(self.replay.world().tick().saturating_sub(seconds(s)))?
            }
            SourceCommand::Seek(s) => self.seek(self.replay.world().tick() + seconds(s))?,
            SourceCommand::Restart => self.seek(0)?,
            SourceCommand::SeekTo(tick) => self.seek(tick)?,
            SourceCommand::LessInputDelay
            | SourceCommand::MoreInputDelay
            | SourceCommand::CycleDummy
            | SourceCommand::Record
            | SourceCommand::ResetPositions => {}
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use client::logs::matchlog::read_log;

    fn scratch() -> std::path::PathBuf {
        let dir = std::env::temp_dir().join(format!("duel-replay-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }

    /// A recorded bot match, in a file of its own per test (the writer locks its file).
    fn recorded(name: &str) -> MatchLog<World> {
        recorded_under(name, Rules::default())
    }

    fn recorded_under(name: &str, rules: Rules) -> MatchLog<World> {
        let path = scratch().join(format!("{name}.log"));
        client::runs::run_bot_match(&client::runs::BotMatch {
            rules,
            seed: 4,
            bot_seed: 5,
            players: 2,
            ticks: 1500,
            stop_at_match_end: false,
            hash_log: None,
            match_log: Some(path.clone()),
        })
        .unwrap();
        read_log::<World>(&path).unwrap()
    }

    #[test]
    fn plays_pauses_steps_speeds_and_seeks() {
        let log = recorded("seek");
        let mut m = ReplayMatch::new(log).unwrap();
        m.advance(&[]).unwrap();
        assert_eq!(m.current().tick, 1);
        m.command(SourceCommand::Faster).unwrap(); // 2x
        m.advance(&[]).unwrap();
        assert_eq!(m.current().tick, 3);
        m.command(SourceCommand::TogglePause).unwrap();
        m.advance(&[]).unwrap();
        assert_eq!(m.current().tick, 3, "paused");
        m.command(SourceCommand::Step).unwrap();
        m.advance(&[]).unwrap();
        assert_eq!((m.previous().tick, m.current().tick), (3, 4));
        m.command(SourceCommand::Seek(10)).unwrap();
        assert_eq!(m.current().tick, 604);
        m.command(SourceCommand::Seek(-5)).unwrap();
        assert_eq!(m.current().tick, 304);
        m.command(SourceCommand::Seek(1000)).unwrap();
        assert_eq!(m.current().tick, 1500, "clamped to the end of the log");
        m.command(SourceCommand::Restart).unwrap();
        assert_eq!(m.current().tick, 0);
        m.command(SourceCommand::SeekTo(777)).unwrap();
        assert_eq!(m.timeline().map(|t| (t.tick, t.last)), Some((777, 1500)));
    }

    /// Playback stops where the match is decided instead of playing the idle ticks after it.
    #[test]
    fn playback_stops_at_the_match_end() {
        let mut m = ReplayMatch::new(recorded("end")).unwrap();
        m.command(SourceCommand::Faster).unwrap();
        m.command(SourceCommand::Faster).unwrap();
        m.command(SourceCommand::Faster).unwrap(); // 8x
        for _ in 0..400 {
            m.advance(&[]).unwrap();
        }
        let t = m.timeline().unwrap();
        assert!(t.paused && t.tick < t.last, "{t:?}");
        assert_eq!(m.current().round.phase, RoundPhase::MatchOver);
        let at = t.tick;
        m.advance(&[]).unwrap();
        assert_eq!(m.current().tick, at, "stays there");
        m.command(SourceCommand::Step).unwrap();
        m.advance(&[]).unwrap();
        assert_eq!(m.current().tick, at + 1, "stepping still goes on");
    }

    /// A replay is watched, not played: no local players, pausable, under the log's rules;
    /// its panel says it is a replay, in sync up to the tick shown, and how it plays.
    #[test]
    fn a_replay_is_watched_under_its_logs_rules_and_says_how_it_plays() {
        let rules = Rules {
            block_hp: 5,
            ..Rules::default()
        };
        let mut m = ReplayMatch::new(recorded_under("view", rules.clone())).unwrap();
        assert!(m.local_players().is_empty());
        assert!(m.can_pause());
        assert_eq!(m.rules(), &rules);
        m.advance(&[]).unwrap();
        let view = m.net_view();
        assert_eq!(view.mode, NetMode::Replay);
        assert_eq!(view.desync, DesyncStatus::InSync { checked: 1 });
        assert_eq!(view.status.as_deref(), Some("playing 1x of 1500 ticks"));
        m.command(SourceCommand::Slower).unwrap();
        m.command(SourceCommand::TogglePause).unwrap();
        let status = m.net_view().status;
        assert_eq!(status.as_deref(), Some("paused 1/2x of 1500 ticks"));
        for _ in 0..9 {
            m.command(SourceCommand::Faster).unwrap();
        }
        let status = m.net_view().status;
        assert_eq!(status.as_deref(), Some("paused 8x of 1500 ticks"));
    }

    /// The hash log of a replay holds each tick once, the first time it is shown, however
    /// the viewer seeks back and plays it again; closing the viewer writes it out.
    #[test]
    fn a_replays_hash_log_holds_each_tick_once_and_is_written_on_close() {
        let log = recorded("hashes");
        let identity = client::logs::hashlog::MatchIdentity::of_log(&log.header);
        let path = scratch().join("hashes.hlog");
        let writer = HashLogWriter::<World>::create(&path, &identity, "replay").unwrap();
        let mut m = ReplayMatch::new(log).unwrap().with_hash_log(writer);
        let mut hashes = Vec::new();
        for _ in 0..6 {
            m.advance(&[]).unwrap();
            hashes.push((m.current().tick, m.replay().world().state_hash()));
        }
        m.command(SourceCommand::SeekTo(2)).unwrap();
        for _ in 0..7 {
            m.advance(&[]).unwrap();
        }
        hashes.push((m.current().tick, m.replay().world().state_hash()));
        assert_eq!(m.current().tick, 9);
        m.close().unwrap();
        let read = client::logs::hashlog::read_hash_log_file::<World>(&path).unwrap();
        let got: Vec<_> = read.entries.iter().map(|e| e.tick).collect();
        assert_eq!(got, (1..=9).collect::<Vec<Tick>>());
        for (tick, hash) in hashes {
            let entry = read.entries.iter().find(|e| e.tick == tick).unwrap();
            assert_eq!(entry.hash, hash, "tick {tick}");
        }
    }
}
