//! `NetView`: what the netcode overlay shows, as plain data a match source fills in.
//!
//! Local play has no network, so most fields are `None` (drawn as "—"); a rollback session
//! fills them from its own statistics.

use engine::{StateHash, Tick};

/// How this machine takes part in the match.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NetMode {
    /// Both players on this machine; no network.
    Local,
    /// Hosting an online match.
    Host,
    /// Joined an online match.
    Join,
    /// Watching an online match.
    Spectate,
    /// Rolling back and re-simulating locally every frame to check determinism.
    SyncTest,
    /// Watching a recorded match log.
    Replay,
}

impl NetMode {
    /// Short label for the overlay.
    #[must_use]
    pub fn label(self) -> &'static str {
        match self {
            NetMode::Local => "local",
            NetMode::Host => "host",
            NetMode::Join => "join",
            NetMode::Spectate => "spectate",
            NetMode::SyncTest => "sync test",
            NetMode::Replay => "replay",
        }
    }
}

/// Whether peers agree on the confirmed states.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DesyncStatus {
    /// Nothing to compare with (local play), or no comparison yet.
    Unchecked,
    /// Every compared tick agreed; the latest compared tick.
    InSync {
        /// The latest tick whose hashes were compared.
        checked: Tick,
    },
    /// Hashes differed at this tick.
    Desynced {
        /// The first tick found to differ.
        tick: Tick,
    },
    /// Hashes differed at `desync`, and the host's state at `tick` repaired it: the peers
    /// agree again from there.
    Resynced {
        /// The tick found to differ.
        desync: Tick,
        /// The tick play went on from.
        tick: Tick,
    },
}

impl DesyncStatus {
    /// The status once the confirmed ticks through `logged` were compared: a desync or a
    /// repair stays said; otherwise in sync through `logged`, or unchecked while no tick is
    /// (tick 0 is the agreed start, nothing compared).
    #[must_use]
    pub fn compared_through(self, logged: Tick) -> DesyncStatus {
        match self {
            DesyncStatus::Unchecked | DesyncStatus::InSync { .. } if logged > 0 => {
                DesyncStatus::InSync { checked: logged }
            }
            other => other,
        }
    }

    /// The status once a desync at `tick` is reported: desynced from the earliest tick
    /// reported (a report can come after one of a later tick, when the two were compared in
    /// one poll or their checksums arrived out of order).
    #[must_use]
    pub fn desynced_at(self, tick: Tick) -> DesyncStatus {
        match self {
            DesyncStatus::Desynced { tick: earlier } => DesyncStatus::Desynced {
                tick: earlier.min(tick),
            },
            _ => DesyncStatus::Desynced { tick },
        }
    }
}

/// The netcode state shown by the overlay (Tab / H).
#[derive(Clone, Debug, PartialEq)]
pub struct NetView {
    /// Local, host, join, spectate or sync test.
    pub mode: NetMode,
    /// Round-trip time to the remote peer, in milliseconds.
    pub ping_ms: Option<u32>,
    /// How many frames this peer runs ahead of the remote one (negative: behind).
    pub frames_ahead: Option<i32>,
    /// Rollbacks per second, averaged over the last second or so.
    pub rollbacks_per_second: Option<f32>,
    /// Depths (ticks re-simulated) of recent rollbacks, oldest first; empty when there are none.
    pub rollback_depths: Vec<u8>,
    /// The newest tick simulated, with predicted inputs where real ones are missing.
    pub predicted_tick: Tick,
    /// The newest tick whose inputs are all confirmed.
    pub confirmed_tick: Tick,
    /// Bytes per second sent.
    pub bytes_sent_per_second: Option<u32>,
    /// Bytes per second received.
    pub bytes_received_per_second: Option<u32>,
    /// Whether the peers' confirmed states agree.
    pub desync: DesyncStatus,
    /// Hash of the state at [`NetView::confirmed_tick`].
    pub confirmed_hash: Option<StateHash>,
    /// Frames of input delay (online play).
    pub input_delay: Option<u8>,
    /// A line of status: replay speed, an interrupted peer, a sync test's check distance.
    pub status: Option<String>,
    /// Rollback corrections smoothed on screen so far, and whether smoothing is on.
    pub smoothed: Option<(u64, bool)>,
    /// The peer the match is waiting for, while one is silent (drawn over the arena).
    pub reconnecting: Option<Waiting>,
    /// A desync just repaired, said over the arena for a few seconds: `(detected at, resumed
    /// from)`.
    pub resynced: Option<(Tick, Tick)>,
    /// A spectator that joined late and is simulating faster until it follows live: the
    /// relayed ticks it has yet to simulate (drawn over the arena).
    pub catching_up: Option<usize>,
    /// This player is ready but the other is still reading the controls: the match cannot
    /// run past its first few ticks until they press a key (drawn over the arena).
    pub waiting_to_start: bool,
}

/// The banner's lines while the other player is still reading the controls.
#[must_use]
pub fn waiting_to_start_lines() -> [String; 2] {
    [
        "WAITING FOR THE OTHER PLAYER".to_owned(),
        "the round starts when both players have pressed a key".to_owned(),
    ]
}

/// A silent peer the match waits for, as the window says it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Waiting {
    /// Who: "the other player" or "the host" (never a transport address).
    pub who: &'static str,
    /// Whole seconds left before the match ends without it.
    pub seconds_left: u64,
}

/// The banner's lines while a late spectator catches up, `behind` ticks from live.
#[must_use]
pub fn catching_up_lines(behind: usize) -> [String; 2] {
    [
        "CATCHING UP".to_owned(),
        format!("{behind} ticks behind the host: playing faster until live"),
    ]
}

/// The banner's lines after a desync was repaired at `tick` (detected at `desync`).
#[must_use]
pub fn resynced_lines(desync: Tick, tick: Tick) -> [String; 2] {
    [
        "RESYNCED".to_owned(),
        format!(
            "states differed at tick {desync}: the host's state at tick {tick} is both sides' now"
        ),
    ]
}

impl Waiting {
    /// The banner's lines: RECONNECTING, who is missing, the time left.
    #[must_use]
    pub fn lines(&self) -> [String; 2] {
        [
            "RECONNECTING".to_owned(),
            format!("waiting for {}: {} s left", self.who, self.seconds_left),
        ]
    }
}

impl NetView {
    /// The view for local play at `tick`: nothing is predicted, so the confirmed tick is the
    /// current one and its hash is the current state's.
    #[must_use]
    pub fn local(tick: Tick, hash: StateHash) -> NetView {
        NetView {
            mode: NetMode::Local,
            ping_ms: None,
            frames_ahead: None,
            rollbacks_per_second: None,
            rollback_depths: Vec::new(),
            predicted_tick: tick,
            confirmed_tick: tick,
            bytes_sent_per_second: None,
            bytes_received_per_second: None,
            desync: DesyncStatus::Unchecked,
            confirmed_hash: Some(hash),
            input_delay: None,
            status: None,
            smoothed: None,
            reconnecting: None,
            resynced: None,
            catching_up: None,
            waiting_to_start: false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_status_moves_with_the_ticks_compared_until_a_desync_is_said() {
        use DesyncStatus::*;
        assert_eq!(Unchecked.compared_through(0), Unchecked);
        assert_eq!(Unchecked.compared_through(1), InSync { checked: 1 });
        assert_eq!(
            InSync { checked: 3 }.compared_through(9),
            InSync { checked: 9 }
        );
        assert_eq!(
            Desynced { tick: 5 }.compared_through(9),
            Desynced { tick: 5 }
        );
        let repaired = Resynced { desync: 5, tick: 7 };
        assert_eq!(repaired.compared_through(9), repaired);
    }

    #[test]
    fn a_desync_is_said_from_the_earliest_tick_reported() {
        use DesyncStatus::*;
        // (status, tick reported, status after); a desync after a repair is a new one.
        let cases = [
            (Unchecked, 7, 7),
            (InSync { checked: 9 }, 7, 7),
            (Desynced { tick: 101 }, 100, 100),
            (Desynced { tick: 100 }, 101, 100),
            (Resynced { desync: 5, tick: 7 }, 9, 9),
        ];
        for (status, reported, earliest) in cases {
            assert_eq!(
                status.desynced_at(reported),
                Desynced { tick: earliest },
                "{status:?} told of {reported}"
            );
        }
    }

    #[test]
    fn every_mode_has_its_label() {
        let labels = [
            NetMode::Local,
            NetMode::Host,
            NetMode::Join,
            NetMode::Spectate,
            NetMode::SyncTest,
            NetMode::Replay,
        ]
        .map(NetMode::label);
        assert_eq!(
            labels,
            ["local", "host", "join", "spectate", "sync test", "replay"]
        );
    }

    /// What the banners say, word for word (the window draws these lines as they are).
    #[test]
    fn the_banners_say_what_the_match_waits_for() {
        assert_eq!(
            waiting_to_start_lines(),
            [
                "WAITING FOR THE OTHER PLAYER",
                "the round starts when both players have pressed a key"
            ]
        );
        assert_eq!(
            catching_up_lines(90),
            [
                "CATCHING UP",
                "90 ticks behind the host: playing faster until live"
            ]
        );
        assert_eq!(
            resynced_lines(40, 44),
            [
                "RESYNCED",
                "states differed at tick 40: the host's state at tick 44 is both sides' now"
            ]
        );
        let waiting = Waiting {
            who: "the host",
            seconds_left: 7,
        };
        assert_eq!(
            waiting.lines(),
            ["RECONNECTING", "waiting for the host: 7 s left"]
        );
    }

    /// Local play predicts nothing: the confirmed tick is the current one, its hash the
    /// current state's, and nothing about a network is shown.
    #[test]
    fn local_play_confirms_every_tick_it_shows() {
        let world = engine::World::new(engine::Rules::default(), 3, 2).unwrap();
        let hash = world.state_hash();
        let view = NetView::local(12, hash);
        assert_eq!(view.mode, NetMode::Local);
        assert_eq!((view.predicted_tick, view.confirmed_tick), (12, 12));
        assert_eq!(view.confirmed_hash, Some(hash));
        assert_eq!(view.desync, DesyncStatus::Unchecked);
        assert_eq!(
            (view.ping_ms, view.input_delay, view.status),
            (None, None, None)
        );
        assert!(!view.waiting_to_start && view.rollback_depths.is_empty());
    }
}
