//! `SyncTestMatch`: local play through a GGRS sync-test session. Every frame is rolled back
//! `check_distance` frames and re-simulated, and the checksums compared, so determinism is
//! proven while people play; a mismatch stops the game with the frames and the dumped
//! snapshots. Every frame reached is final at once (both players are local), so it is recorded
//! in the match and hash logs as it is reached, like a local match.

use crate::matches::local_match::LocalLogs;
use crate::matches::match_source::{split_journal_actions, MatchSource};
use crate::matches::net_view::{DesyncStatus, NetMode, NetView};
use anyhow::Context as _;
use client::journal::PredictionJournal;
use client::session::driver::RollbackCounters;
use client::session::synctest::SyncTester;
use engine::{Event, InputCmd, PlayerId, RoundPhase, Rules, Tick, World, WorldSnapshot};
use std::path::PathBuf;

/// A local two-player match under a sync test.
#[derive(Debug)]
pub struct SyncTestMatch {
    tester: SyncTester<World>,
    previous: WorldSnapshot,
    check_distance: usize,
    journal: PredictionJournal<World>,
    retracted: Vec<Event>,
    local: [PlayerId; 2],
    logs: LocalLogs,
}

impl SyncTestMatch {
    /// A sync-tested local match; mismatching snapshots go to `dump_dir`.
    ///
    /// # Errors
    /// If the rules do not validate or GGRS refuses the check distance.
    pub fn new(
        rules: Rules,
        seed: u64,
        check_distance: usize,
        dump_dir: PathBuf,
    ) -> anyhow::Result<SyncTestMatch> {
        let tester = SyncTester::<World>::new(rules, seed, 2, check_distance, dump_dir)
            .with_context(|| {
                format!("starting a sync test with check distance {check_distance}")
            })?;
        Ok(SyncTestMatch {
            previous: tester.driver().world().snapshot(),
            tester,
            check_distance,
            journal: PredictionJournal::new(),
            retracted: Vec::new(),
            local: [0, 1],
            logs: LocalLogs::default(),
        })
    }

    /// Records the match to these logs, starting now (mode `sync-test` in the match log).
    ///
    /// # Errors
    /// If a log cannot be created.
    pub fn with_logs(mut self, logs: LocalLogs) -> anyhow::Result<SyncTestMatch> {
        self.logs = logs;
        self.logs.open(self.tester.driver().world(), "sync-test")?;
        Ok(self)
    }

    /// Perturbs the state the first time `tick` is reached, so the re-simulation differs: the
    /// next advance that compares it fails with a mismatch (proves the comparison is live).
    pub fn inject_desync(&mut self, tick: Tick) {
        self.tester.inject(tick, engine::Phase::Events);
    }

    /// Rollbacks and frames simulated so far.
    #[must_use]
    pub fn counters(&self) -> &RollbackCounters {
        self.tester.driver().counters()
    }
}

impl MatchSource for SyncTestMatch {
    fn local_players(&self) -> &[PlayerId] {
        &self.local
    }

    fn advance(&mut self, local: &[InputCmd]) -> anyhow::Result<Vec<Event>> {
        let inputs = [local[0].to_wire(), local[1].to_wire()];
        let before = self.tester.driver().world().tick();
        self.tester.advance(&inputs)?;
        if let Ok(previous) = self.tester.driver().snapshot_at(before) {
            previous.copy_into(&mut self.previous);
        }
        // Both players are local: a frame is final the moment it is first reached.
        let driver = self.tester.driver();
        let world = driver.world();
        if world.tick() > before {
            let inputs = driver.inputs_at(before)?;
            self.logs.record(world, inputs)?;
        }
        // Re-simulated frames repeat their events; present each frame's events once.
        let driver = self.tester.driver();
        let settled = driver
            .world()
            .tick()
            .saturating_sub(self.check_distance as u32);
        let actions = self
            .journal
            .reconcile(driver.events(), driver.resimulated_from(), settled);
        let fresh = split_journal_actions(actions, &mut self.retracted);
        Ok(fresh)
    }

    fn take_retractions(&mut self) -> Vec<Event> {
        std::mem::take(&mut self.retracted)
    }

    fn current(&self) -> &WorldSnapshot {
        self.tester.driver().world().state()
    }

    fn previous(&self) -> &WorldSnapshot {
        &self.previous
    }

    fn rules(&self) -> &Rules {
        self.tester.driver().world().rules()
    }

    fn net_view(&self) -> NetView {
        let world = self.tester.driver().world();
        let counters = self.tester.driver().counters();
        let checked = world.tick().saturating_sub(self.check_distance as u32);
        NetView {
            mode: NetMode::SyncTest,
            rollback_depths: vec![self.check_distance as u8; 8],
            desync: DesyncStatus::InSync { checked },
            status: Some(format!(
                "{} rollbacks, depth {}",
                counters.rollbacks, self.check_distance
            )),
            ..NetView::local(world.tick(), world.state_hash())
        }
    }

    fn can_pause(&self) -> bool {
        true
    }

    fn close(&mut self) -> anyhow::Result<()> {
        let over = self.current().round.phase == RoundPhase::MatchOver;
        self.logs.close(over)
    }
}
