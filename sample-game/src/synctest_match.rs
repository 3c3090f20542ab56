//! `SyncTestMatch`: local play through a GGRS sync-test session. Every frame is rolled back
//! `check_distance` frames and re-simulated, and the checksums compared, so determinism is
//! proven while people play; a mismatch stops the game with the frames and the dumped
//! snapshots.

use crate::match_source::{present, MatchSource};
use crate::net_view::{DesyncStatus, NetMode, NetView};
use anyhow::Context as _;
use client::journal::PredictionJournal;
use client::synctest::SyncTester;
use engine::{Event, InputCmd, PlayerId, Rules, WorldSnapshot};
use std::path::PathBuf;

/// A local two-player match under a sync test.
#[derive(Debug)]
pub struct SyncTestMatch {
    tester: SyncTester,
    previous: WorldSnapshot,
    check_distance: usize,
    journal: PredictionJournal,
    retracted: Vec<Event>,
    local: [PlayerId; 2],
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
        let tester =
            SyncTester::new(rules, seed, 2, check_distance, dump_dir).with_context(|| {
                format!("starting a sync test with check distance {check_distance}")
            })?;
        Ok(SyncTestMatch {
            previous: tester.driver().world().snapshot(),
            tester,
            check_distance,
            journal: PredictionJournal::new(),
            retracted: Vec::new(),
            local: [0, 1],
        })
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
            self.previous.clone_from(previous);
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
        let fresh = present(actions, &mut self.retracted);
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
}
