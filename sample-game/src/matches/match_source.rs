//! `MatchSource`: where the snapshots the game draws come from.
//!
//! The window loop does not care whether the world is stepped right here ([`crate::LocalMatch`])
//! or by a rollback session that predicts, rolls back and re-simulates: it hands over the local
//! players' inputs once per 60 Hz tick and draws what [`MatchSource::current`] and
//! [`MatchSource::previous`] say.

use crate::matches::net_view::NetView;
use engine::{Difficulty, Event, InputCmd, PlayerId, Rules, Tick, WorldSnapshot};

/// Something the player asks of the match source itself (not of the game): online play's input
/// delay, a replay's transport controls.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SourceCommand {
    /// One frame less input delay (online).
    LessInputDelay,
    /// One frame more input delay (online).
    MoreInputDelay,
    /// Pause or resume a replay.
    TogglePause,
    /// Advance a paused replay by one tick.
    Step,
    /// Play a replay faster.
    Faster,
    /// Play a replay slower.
    Slower,
    /// Jump a replay by this many seconds (negative: back).
    Seek(i32),
    /// Jump a replay to its start.
    Restart,
    /// Jump a replay to this tick (a click on its timeline).
    SeekTo(Tick),
    /// The training dummy's next mode (F10).
    CycleDummy,
    /// Start a recording of your inputs, or end it and have the dummy play it back (F11).
    Record,
    /// Training: back to the start of the same maze (F12).
    ResetPositions,
}

/// A running match the game can feed inputs to and draw.
pub trait MatchSource {
    /// The player slots whose inputs this machine supplies, in the order
    /// [`MatchSource::advance`] expects them (local play: both; online: one; spectating: none).
    fn local_players(&self) -> &[PlayerId];

    /// Runs one tick of the local 60 Hz clock with one input per [`local_players`] slot.
    ///
    /// The source stamps the inputs with the tick they are for, so callers may leave `tick` at
    /// anything. A local source simulates exactly one tick; a networked one may simulate none
    /// (waiting for a peer) or several (a rollback and its re-simulation). Returns the events to
    /// present, each happening once; see [`MatchSource::take_retractions`] for the ones a
    /// rollback took back.
    ///
    /// # Errors
    /// If the simulation refuses the inputs, or the session fails (a peer disconnects, a
    /// desync is fatal for this source).
    ///
    /// [`local_players`]: MatchSource::local_players
    fn advance(&mut self, local: &[InputCmd]) -> anyhow::Result<Vec<Event>>;

    /// Keeps the match alive without playing: what a networked source does while its player
    /// reads the controls before the first tick. It answers the network and plays no more
    /// than the match's first tick, with no input (so the other side knows it is there),
    /// and sends no inputs past it, so the other side — which cannot run more than its
    /// prediction window ahead without them — cannot start the round either: the countdown
    /// begins only once both players are ready. A local source does nothing (it is paused
    /// instead).
    ///
    /// # Errors
    /// As [`MatchSource::advance`] (a peer that left, a session that failed).
    fn hold(&mut self) -> anyhow::Result<()> {
        Ok(())
    }

    /// Events presented earlier that the last [`MatchSource::advance`] found never happened
    /// (or happened differently; the corrected event is then among the events it returned).
    /// Their effects should be undone. A rollback source fills this from its prediction
    /// journal; a source that never re-simulates has none.
    fn take_retractions(&mut self) -> Vec<Event> {
        Vec::new()
    }

    /// The newest simulated state (predicted, for a rollback session).
    fn current(&self) -> &WorldSnapshot;

    /// The state one tick before [`MatchSource::current`], for interpolating between the two.
    /// Equal to the current state before the first tick.
    fn previous(&self) -> &WorldSnapshot;

    /// The rules the match plays by.
    fn rules(&self) -> &Rules;

    /// Ticks further back than everyone else that remote players are drawn this frame (see
    /// `remote_view.rs`); called once per drawn frame, so a source can keep the distance
    /// steady. 0 (the default): they are drawn predicted, like everyone else.
    fn remote_view_back(&mut self) -> u8 {
        0
    }

    /// The tick the next local inputs are for (online: input-delay ticks after the current
    /// one), so their rail view can be stated relative to it.
    fn input_tick(&self) -> Tick {
        self.current().tick
    }

    /// The netcode state for the overlay.
    fn net_view(&self) -> NetView;

    /// The training room's meter, dummy and input display, when this is one.
    fn training(&self) -> Option<crate::matches::training::TrainingView> {
        None
    }

    /// Whether the match may be paused here (only when no remote peer is waiting on us).
    fn can_pause(&self) -> bool {
        false
    }

    /// Carries out a [`SourceCommand`]; sources ignore the ones that mean nothing to them.
    ///
    /// # Errors
    /// If the command fails (e.g. a replay cannot seek because its log does not re-simulate).
    fn command(&mut self, _command: SourceCommand) -> anyhow::Result<()> {
        Ok(())
    }

    /// Called when the window closes: flush logs, say goodbye to peers.
    ///
    /// # Errors
    /// If a log cannot be written.
    fn close(&mut self) -> anyhow::Result<()> {
        Ok(())
    }

    /// Whether the last [`MatchSource::advance`] re-simulated history (a rollback that may
    /// have moved things already drawn).
    fn rolled_back(&self) -> bool {
        false
    }

    /// Where a replay stands, for its timeline; `None` for a live match.
    fn timeline(&self) -> Option<Timeline> {
        None
    }

    /// What the result screen offers once the match is decided: what
    /// [`MatchSource::rematch`] does here, and the other bot level
    /// [`MatchSource::play_level`] can start.
    fn after_match(&self) -> AfterMatch {
        AfterMatch::default()
    }

    /// Asks for a new match after this one is over. A local source starts it at once; an
    /// online one records the ask in its inputs, and the simulation starts the match on the
    /// tick every player has asked (the banner shows who has). Returns whether a new match
    /// started now.
    ///
    /// # Errors
    /// If a new match could not be set up.
    fn rematch(&mut self) -> anyhow::Result<bool> {
        Ok(false)
    }

    /// Starts a new match against the bot at `level` (a match against the bot only). Returns
    /// whether it did.
    ///
    /// # Errors
    /// If a new match could not be set up.
    fn play_level(&mut self, _level: Difficulty) -> anyhow::Result<bool> {
        Ok(false)
    }
}

/// How a decided match can go on.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Rematch {
    /// It cannot (a replay, a spectator).
    #[default]
    No,
    /// The next match starts when asked (local play).
    AtOnce,
    /// Every player must ask; each sees who has (online: the asks are in the match state).
    WhenAllAsk,
}

/// What the result screen offers.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct AfterMatch {
    /// Whether and how a rematch starts.
    pub rematch: Rematch,
    /// Against a bot: the level offered next (harder after the player's win, easier after a
    /// loss), if there is one.
    pub other_level: Option<Difficulty>,
}

/// A replay's position, for the label and timeline drawn over it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Timeline {
    /// The tick shown.
    pub tick: Tick,
    /// The log's last tick.
    pub last: Tick,
    /// Whether playback is paused (by the viewer, or at the end of the match).
    pub paused: bool,
}

/// Splits journal actions into the events to present now and the ones to take back (a
/// correction is both: the old version goes, the new one comes).
pub fn split_journal_actions(
    actions: Vec<client::journal::JournalAction<engine::Event>>,
    retracted: &mut Vec<Event>,
) -> Vec<Event> {
    use client::journal::JournalAction;
    let mut play = Vec::new();
    for action in actions {
        match action {
            JournalAction::Play(e) => play.push(e),
            JournalAction::Correct { old, new } => {
                retracted.push(old);
                play.push(new);
            }
            JournalAction::Retract(e) => retracted.push(e),
        }
    }
    play
}

#[cfg(test)]
mod tests {
    use super::*;
    use client::journal::JournalAction;
    use engine::{EventKind, World};

    /// A source that implements only what it must: a world that stands still.
    struct Bare {
        world: World,
        rules: Rules,
    }

    impl MatchSource for Bare {
        fn local_players(&self) -> &[PlayerId] {
            &[0, 1]
        }
        fn advance(&mut self, _local: &[InputCmd]) -> anyhow::Result<Vec<Event>> {
            Ok(Vec::new())
        }
        fn current(&self) -> &WorldSnapshot {
            self.world.state()
        }
        fn previous(&self) -> &WorldSnapshot {
            self.world.state()
        }
        fn rules(&self) -> &Rules {
            &self.rules
        }
        fn net_view(&self) -> NetView {
            NetView::local(self.world.tick(), self.world.state_hash())
        }
    }

    /// What a source gets without saying otherwise is a plain local match that cannot be
    /// paused: nothing to take back, drawn predicted, inputs for the current tick, no
    /// rollback, no timeline, no training view, no rematch or other bot level, and every
    /// command accepted as doing nothing.
    #[test]
    fn a_source_that_says_nothing_is_a_plain_unpausable_match() {
        let rules = Rules::default();
        let mut world = World::new(rules.clone(), 5, 2).expect("default rules");
        for tick in 0..3 {
            world.step(&[InputCmd::idle(tick); 2]).expect("a step");
        }
        let mut source = Bare { world, rules };
        assert_eq!(source.input_tick(), 3);
        assert_eq!(source.take_retractions(), Vec::<Event>::new());
        assert_eq!(source.remote_view_back(), 0);
        assert!(source.training().is_none());
        assert!(!source.can_pause());
        assert!(!source.rolled_back());
        assert_eq!(source.timeline(), None);
        assert_eq!(source.after_match(), AfterMatch::default());
        assert!(!source.rematch().expect("no rematch"));
        assert!(!source.play_level(Difficulty::Hard).expect("no bot"));
        assert!(source.hold().is_ok() && source.close().is_ok());
        assert!(source.command(SourceCommand::Restart).is_ok());
    }

    /// Played events are presented; a corrected one is presented anew and its old version
    /// taken back; a retracted one only taken back; order is kept.
    #[test]
    fn journal_actions_split_into_events_to_play_and_to_take_back() {
        let event = |tick, player| Event {
            tick,
            kind: EventKind::MeleeStarted { player },
        };
        let mut retracted = vec![event(1, 9)];
        let play = split_journal_actions(
            vec![
                JournalAction::Play(event(4, 0)),
                JournalAction::Correct {
                    old: event(5, 0),
                    new: event(5, 1),
                },
                JournalAction::Retract(event(6, 1)),
                JournalAction::Play(event(7, 1)),
            ],
            &mut retracted,
        );
        assert_eq!(play, [event(4, 0), event(5, 1), event(7, 1)]);
        assert_eq!(retracted, [event(1, 9), event(5, 0), event(6, 1)]);
    }
}
