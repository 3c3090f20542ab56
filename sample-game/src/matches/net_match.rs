//! `NetMatch`: an online match (host, join or spectate) on a GGRS rollback session.
//!
//! The window's 60 Hz clock calls [`MatchSource::advance`] once per tick; the session may
//! simulate one new frame, none (waiting for the peer), or roll back and re-simulate several.
//! Events go through a prediction journal: each happening is presented once, and when a
//! rollback rewrites history the journal says which presented events to correct or take back. The hash log and the match log record only final (confirmed) ticks.

use crate::matches::match_source::{
    split_journal_actions, AfterMatch, MatchSource, Rematch, SourceCommand,
};
use crate::matches::net_view::{DesyncStatus, NetMode, NetView, Waiting};
use anyhow::{anyhow, Context as _};
use client::journal::PredictionJournal;
use client::logs::peer_logs::{LogPaths, PeerLogs};
use client::remote_view::{RemoteView, ViewDelay};
use client::session::netplay::{Advance, NetEvent, NetPeer};
use client::session::pacing::{FrameDecision, FrameSkipper};
use engine::World;
use engine::{Event, InputCmd, PlayerId, Rules, Tick, WorldSnapshot};

/// Input delay bounds offered by F5/F6.
const MAX_INPUT_DELAY: usize = 8;
/// How long the window says a desync was repaired: three seconds of 60 Hz calls.
const RESYNC_NOTICE_CALLS: u32 = 180;

/// An online match seen from this machine.
pub struct NetMatch {
    peer: NetPeer<World>,
    mode: NetMode,
    local: Vec<PlayerId>,
    previous: WorldSnapshot,
    /// What has been presented, to reconcile with re-simulated history.
    journal: PredictionJournal<World>,
    /// Presented events the last update took back.
    retracted: Vec<Event>,
    logs: PeerLogs<World>,
    desync: DesyncStatus,
    input_delay: usize,
    /// How remote players are drawn, and the steady distance to the past they are drawn at.
    remote_view: RemoteView,
    view_delay: ViewDelay,
    /// Which calls simulate: the window's frames cannot stretch, so when ahead one passes now
    /// and then, and wait recommendations are honoured one frame at a time (the pacing
    /// headless runs use, tested once in `client`).
    pacer: FrameSkipper,
    calls: u32,
    /// The last desync repaired, and the call until which the window says so.
    resynced: Option<(Tick, Tick, u32)>,
    /// Our player is ready, but the session stalled at the start for want of the other's
    /// inputs: it is still reading the controls ([`MatchSource::hold`]).
    waiting_to_start: bool,
    /// Our player asked for a rematch: its inputs carry the ask until the new match starts.
    asked_rematch: bool,
    /// Events of the first tick, played while holding ([`MatchSource::hold`]), for the next
    /// [`MatchSource::advance`] to hand over.
    early: Vec<Event>,
}

impl std::fmt::Debug for NetMatch {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("NetMatch")
            .field("mode", &self.mode)
            .field("peer", &self.peer)
            .finish_non_exhaustive()
    }
}

impl NetMatch {
    /// Wraps a peer whose handshake is done.
    ///
    /// # Errors
    /// If the logs cannot be created.
    pub fn new(
        peer: NetPeer<World>,
        input_delay: usize,
        logs: &LogPaths,
    ) -> anyhow::Result<NetMatch> {
        let logs = PeerLogs::open(&peer, logs, None).context("opening the match logs")?;
        Ok(NetMatch::with_logs(peer, input_delay, logs))
    }

    /// Wraps a peer whose logs are open already (a rejoin continues the log it came from).
    #[must_use]
    pub fn with_logs(peer: NetPeer<World>, input_delay: usize, logs: PeerLogs<World>) -> NetMatch {
        let (mode, local) = match peer.local_slot() {
            Some(0) => (NetMode::Host, vec![0]),
            Some(slot) => (NetMode::Join, vec![slot as PlayerId]),
            None => (NetMode::Spectate, Vec::new()),
        };
        NetMatch {
            previous: peer.world().snapshot(),
            peer,
            mode,
            local,
            journal: PredictionJournal::new(),
            retracted: Vec::new(),
            logs,
            desync: DesyncStatus::Unchecked,
            input_delay,
            remote_view: RemoteView::default(),
            view_delay: ViewDelay::default(),
            pacer: FrameSkipper::default(),
            calls: 0,
            resynced: None,
            waiting_to_start: false,
            asked_rematch: false,
            early: Vec::new(),
        }
    }

    /// One call of the window's tick loop: polls, paces, and plays a tick with `local` when
    /// the pacer and the session let it; the events it presents.
    fn play_tick(&mut self, local: &[InputCmd]) -> anyhow::Result<Vec<Event>> {
        self.peer.poll();
        self.handle_net_events()?;
        self.calls += 1;
        // Slow down smoothly when ahead, and honour wait recommendations one frame at a time.
        if self.pacer.next_slot(self.peer.frames_ahead()) == FrameDecision::Skip {
            return Ok(Vec::new());
        }
        let over = self.current().round.phase == engine::RoundPhase::MatchOver;
        self.asked_rematch &= over;
        let input = local.first().map(|&i| {
            let mut i = i;
            if self.asked_rematch {
                i.buttons |= engine::buttons::REMATCH;
            }
            i.to_wire()
        });
        let input = input.unwrap_or_default();
        let advanced = self.peer.advance(input)?;
        // Nothing confirmed past the ticks the input delay fills by itself: the other side
        // has sent no input yet.
        self.waiting_to_start = !self.local.is_empty()
            && advanced == Advance::Stalled
            && self.peer.final_tick() <= self.input_delay as Tick + 1;
        self.handle_net_events()?;
        // What the window interpolates from: the tick before the newest (none before tick 1).
        let before = (self.peer.world().tick().checked_sub(1))
            .and_then(|tick| self.peer.driver().snapshot_at(tick).ok());
        if let Some(before) = before {
            before.copy_into(&mut self.previous);
        }
        let driver = self.peer.driver();
        let actions = self.journal.reconcile(
            driver.events(),
            driver.resimulated_from(),
            self.peer.final_tick(),
        );
        let fresh = split_journal_actions(actions, &mut self.retracted);
        self.logs.catch_up(&self.peer, Tick::MAX)?;
        self.desync = self.desync.compared_through(self.logs.logged());
        self.peer.update_stats();
        Ok(fresh)
    }

    /// Draws remote players `mode`'s way ([`RemoteView::Past`] by default).
    #[must_use]
    pub fn with_remote_view(mut self, mode: RemoteView) -> NetMatch {
        self.remote_view = mode;
        self
    }

    /// The session.
    #[must_use]
    pub fn peer(&self) -> &NetPeer<World> {
        &self.peer
    }

    fn handle_net_events(&mut self) -> anyhow::Result<()> {
        for event in self.peer.take_events() {
            self.on_net_event(event)?;
        }
        Ok(())
    }

    /// What one session event does to the match: a remote player gone ends it (its confirmed
    /// part logged), a desync or resync reaches the panel, a wait recommendation the pacer.
    fn on_net_event(&mut self, event: NetEvent) -> anyhow::Result<()> {
        match event {
            NetEvent::Disconnected { peer } if self.peer.is_remote_player(peer) => {
                self.logs.close(false)?;
                return Err(anyhow!(
                    "{}: the match ended at tick {}; its confirmed part is in the logs",
                    self.peer.gone_reason(peer),
                    self.logs.logged()
                ));
            }
            NetEvent::DesyncDetected {
                tick,
                local,
                remote,
                peer,
            } => {
                self.desync = self.desync.desynced_at(tick);
                if let Some(notice) = self.logs.on_desync(&self.peer, tick, local, remote, peer)? {
                    eprintln!("{notice}");
                }
            }
            NetEvent::Resynced { tick, desync, .. } => {
                self.desync = DesyncStatus::Resynced { desync, tick };
                self.resynced = Some((desync, tick, self.calls + RESYNC_NOTICE_CALLS));
                eprintln!(
                    "resynchronized: states differed at tick {desync}; the host's state at \
                     tick {tick} is both sides' now"
                );
            }
            NetEvent::WaitRecommendation { frames } => self.pacer.recommend_wait(frames),
            _ => {}
        }
        Ok(())
    }
}

/// The most ticks back remote players may be drawn for a rail press made now to be judged at
/// the moment drawn: `back + 1 + input_delay ≤ window`.
fn max_back(window: u8, input_delay: usize) -> u8 {
    let delay = u8::try_from(input_delay).unwrap_or(u8::MAX);
    window.saturating_sub(delay.saturating_add(1))
}

impl MatchSource for NetMatch {
    fn local_players(&self) -> &[PlayerId] {
        &self.local
    }

    fn advance(&mut self, local: &[InputCmd]) -> anyhow::Result<Vec<Event>> {
        let mut events = self.play_tick(local)?;
        // The first tick's events, if it was played while holding, come first (once a match).
        events.splice(0..0, std::mem::take(&mut self.early));
        Ok(events)
    }

    fn after_match(&self) -> AfterMatch {
        AfterMatch {
            rematch: if self.local.is_empty() {
                Rematch::No
            } else {
                Rematch::WhenAllAsk
            },
            other_level: None,
        }
    }

    /// Asks in our next inputs; the simulation starts the match once the other player has
    /// asked too, on the same tick on both machines. An ask before the match is decided is
    /// dropped by the next tick (a spectator has no inputs to ask in).
    fn rematch(&mut self) -> anyhow::Result<bool> {
        self.asked_rematch = true;
        Ok(false)
    }

    /// Plays the first tick, idle, and holds there. A host hands the match over only once it
    /// has heard input from every player (one that synchronized and fell silent must not keep
    /// the slot), so a player that held at tick 0 kept a host that had not started yet
    /// waiting until it gave up on it; one idle tick says it is here, and the other side
    /// still cannot run past its prediction window.
    fn hold(&mut self) -> anyhow::Result<()> {
        if !self.local.is_empty() && self.peer.world().tick() == 0 {
            let idle = vec![InputCmd::idle(0); self.local.len()];
            let events = self.play_tick(&idle)?;
            self.early.extend(events);
            return Ok(());
        }
        self.peer.poll();
        self.handle_net_events()?;
        self.peer.update_stats();
        Ok(())
    }

    fn rolled_back(&self) -> bool {
        self.peer.driver().resimulated_from().is_some()
    }

    fn take_retractions(&mut self) -> Vec<Event> {
        std::mem::take(&mut self.retracted)
    }

    fn current(&self) -> &WorldSnapshot {
        self.peer.world().state()
    }

    fn previous(&self) -> &WorldSnapshot {
        &self.previous
    }

    fn rules(&self) -> &Rules {
        self.peer.world().rules()
    }

    fn remote_view_back(&mut self) -> u8 {
        let world = self.peer.world();
        let window = world.rules().pose_history_ticks;
        let back = self.view_delay.update(
            self.remote_view,
            world.tick(),
            self.peer.final_tick(),
            window,
        );
        // Remote players are drawn `back + 1 − alpha` ticks before the current tick, and a rail
        // press is applied `input_delay` ticks after it: the view it carries must stay within
        // the pose window, or the simulation would clamp it and judge a moment that was not
        // drawn. Past that, the freshest moment the window still covers is drawn instead.
        back.min(max_back(window, self.input_delay))
    }

    fn input_tick(&self) -> Tick {
        // GGRS applies an input added now `input_delay` frames later.
        self.peer.world().tick() + self.input_delay as Tick
    }

    fn net_view(&self) -> NetView {
        let stats = self.peer.stats();
        let confirmed = self.peer.final_tick();
        NetView {
            mode: self.mode,
            ping_ms: stats.ping_ms,
            frames_ahead: Some(self.peer.frames_ahead()),
            rollbacks_per_second: Some(stats.rollbacks_per_sec as f32),
            rollback_depths: stats
                .recent_depths
                .iter()
                .map(|&d| d.min(255) as u8)
                .collect(),
            predicted_tick: self.peer.world().tick(),
            confirmed_tick: confirmed,
            bytes_sent_per_second: Some(stats.bytes_sent_per_sec as u32),
            bytes_received_per_second: Some(stats.bytes_received_per_sec as u32),
            desync: self.desync,
            confirmed_hash: self.peer.driver().hash_at(confirmed).ok(),
            input_delay: (!self.local.is_empty()).then_some(self.input_delay as u8),
            // A spectator that joined late simulates faster until it follows live.
            status: (self.peer.catching_up())
                .map(|n| format!("CATCHING UP: {n} ticks behind the host")),
            catching_up: self.peer.catching_up(),
            waiting_to_start: self.waiting_to_start,
            smoothed: None,
            resynced: (self.resynced)
                .filter(|&(.., until)| self.calls < until)
                .map(|(desync, tick, _)| (desync, tick)),
            reconnecting: self.peer.reconnecting().map(|r| Waiting {
                who: if r.host {
                    "the host"
                } else {
                    "the other player"
                },
                seconds_left: r.left.as_secs_f64().ceil() as u64,
            }),
        }
    }

    fn command(&mut self, command: SourceCommand) -> anyhow::Result<()> {
        let delay = match command {
            SourceCommand::LessInputDelay => self.input_delay.saturating_sub(1),
            SourceCommand::MoreInputDelay => (self.input_delay + 1).min(MAX_INPUT_DELAY),
            _ => return Ok(()),
        };
        if delay != self.input_delay && !self.local.is_empty() {
            self.peer.set_input_delay(delay)?;
            self.input_delay = delay;
        }
        Ok(())
    }

    fn close(&mut self) -> anyhow::Result<()> {
        let confirmed = self.logs.logged();
        self.peer.send_finish(confirmed);
        let over = self.current().round.phase == engine::RoundPhase::MatchOver;
        self.logs.close(over)?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::present::remote_view::ShownView;

    /// A host, a joined player and a joined spectator over loopback UDP, all handed over
    /// (the others play idle ticks until the host, which waits for their input, is).
    fn trio() -> [NetPeer<World>; 3] {
        use client::net::conditioner::ConditionerConfig;
        use client::net::wire::Role;
        use client::session::netplay::{open_link, NetConfig};
        use std::sync::atomic::{AtomicBool, Ordering};
        use std::sync::Arc;
        let config = NetConfig::<World> {
            spectators: 1,
            ..NetConfig::<World>::default()
        };
        let open = || open_link(([127, 0, 0, 1], 0).into(), ConditionerConfig::default());
        let link = open().expect("binds");
        let addr = link.borrow().local_addr();
        let hosted = Arc::new(AtomicBool::new(false));
        let join = |role: Role| {
            let (config, done) = (config.clone(), Arc::clone(&hosted));
            std::thread::spawn(move || {
                let link = open().expect("binds");
                let mut peer = NetPeer::<World>::join_on(link, addr, role, &config)?;
                while !done.load(Ordering::SeqCst) {
                    peer.poll();
                    if peer.local_slot().is_some() {
                        peer.advance(engine::WireInput::default())?;
                    }
                    std::thread::sleep(std::time::Duration::from_millis(2));
                }
                Ok::<_, client::Error>(peer)
            })
        };
        let (player, spectator) = (join(Role::Player), join(Role::Spectator));
        let host = NetPeer::<World>::host_on(link, &config).expect("hosts");
        hosted.store(true, Ordering::SeqCst);
        [
            host,
            player.join().unwrap().expect("joins"),
            spectator.join().unwrap().expect("watches"),
        ]
    }

    #[test]
    fn a_wait_recommendation_reaches_the_pacer_and_a_departure_ends_the_match() {
        let [host, joiner, spectator] = trio();
        let (gone, watcher) = (joiner.local_addr(), spectator.local_addr());
        let mut source = NetMatch::new(host, 2, &LogPaths::default()).expect("no logs");
        source
            .on_net_event(NetEvent::WaitRecommendation { frames: 3 })
            .expect("paced");
        assert_eq!(source.pacer.owed(), 3);
        // A spectator's departure is not the opponent's.
        let other = NetEvent::Disconnected { peer: watcher };
        source.on_net_event(other).expect("goes on");
        let left = NetEvent::Disconnected { peer: gone };
        let err = source.on_net_event(left).expect_err("ends");
        assert!(
            err.to_string()
                .ends_with("the match ended at tick 0; its confirmed part is in the logs"),
            "{err}"
        );
    }

    /// A player's input delay moves one frame a command, within 0..=MAX_INPUT_DELAY, and its
    /// panel shows it; a spectator has none to change, shows none, offers no rematch and
    /// plays no slot.
    #[test]
    fn input_delay_commands_move_a_players_delay_and_leave_a_spectator_alone() {
        let [host, _joiner, spectator] = trio();
        let mut player = NetMatch::new(host, 2, &LogPaths::default()).expect("no logs");
        let delay = |s: &NetMatch| (s.net_view().input_delay, s.input_tick());
        assert_eq!(delay(&player), (Some(2), 2));
        player.command(SourceCommand::MoreInputDelay).expect("more");
        assert_eq!(delay(&player), (Some(3), 3));
        player.command(SourceCommand::LessInputDelay).expect("less");
        player.command(SourceCommand::LessInputDelay).expect("less");
        assert_eq!(delay(&player), (Some(1), 1));
        for _ in 0..3 {
            player.command(SourceCommand::LessInputDelay).expect("less");
        }
        assert_eq!(delay(&player), (Some(0), 0), "not below 0");
        for _ in 0..=MAX_INPUT_DELAY {
            player.command(SourceCommand::MoreInputDelay).expect("more");
        }
        let most = Some(MAX_INPUT_DELAY as u8);
        assert_eq!(delay(&player).0, most, "not beyond the session's most");
        let mut watcher = NetMatch::new(spectator, 2, &LogPaths::default()).expect("no logs");
        for command in [SourceCommand::MoreInputDelay, SourceCommand::LessInputDelay] {
            watcher
                .command(command)
                .expect("a spectator's command changes nothing");
        }
        assert_eq!(watcher.net_view().input_delay, None);
        assert!(watcher.local_players().is_empty());
        assert_eq!(watcher.after_match().rematch, crate::Rematch::No);
    }

    /// Closing an undecided match leaves its match log synced and open-ended (it reads as cut,
    /// resumable), with every confirmed tick in it.
    #[test]
    fn closing_an_undecided_match_leaves_its_log_cut_with_every_confirmed_tick() {
        let [host, mut joiner, _spectator] = trio();
        let dir = std::env::temp_dir().join(format!("net-match-close-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("scratch folder");
        let path = dir.join("host.mlog");
        let paths = LogPaths {
            match_log: Some(path.clone()),
            ..LogPaths::default()
        };
        let mut source = NetMatch::new(host, 2, &paths).expect("logs open");
        for t in 0..60 {
            source.advance(&[InputCmd::idle(t)]).expect("plays");
            joiner.poll();
            joiner.advance(engine::WireInput::default()).expect("plays");
            std::thread::sleep(std::time::Duration::from_millis(2));
        }
        let logged = source.logs.logged();
        assert!(logged > 10, "{logged} ticks confirmed");
        source.close().expect("closes");
        let log = client::logs::matchlog::read_log::<World>(&path).expect("reads");
        assert_eq!(log.ticks.len() as Tick, logged);
        assert_eq!(log.end, None, "not decided: cut, not completed");
        drop(source);
        let _ = std::fs::remove_dir_all(&dir);
    }

    /// At the deepest past allowed, a rail press carries a view the pose window still covers,
    /// whatever the phase of the frame: what is drawn is what is judged.
    #[test]
    fn the_deepest_past_drawn_is_still_inside_the_window() {
        for delay in 0..=8 {
            let back = max_back(12, delay);
            for alpha_256 in [0, 1, 128, 255] {
                let shown = ShownView {
                    tick: 500,
                    back,
                    alpha_256,
                };
                let view = shown.for_input(500 + delay as Tick);
                let back_256 = u32::from(view.ticks_back) * 256 - u32::from(view.frac);
                assert!(
                    back_256 <= 12 * 256,
                    "delay {delay}, back {back}, alpha {alpha_256}: {view:?}"
                );
            }
        }
        assert_eq!(max_back(12, 2), 9);
        assert_eq!(max_back(3, 8), 0);
    }
}
