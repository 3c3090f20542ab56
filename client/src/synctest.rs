//! Sync-test sessions: every frame GGRS rolls back `check_distance` frames and re-simulates;
//! any checksum that comes out different proves non-determinism.

use crate::config::GgrsConfig;
use crate::driver::{Driver, Injection};
use crate::error::Error;
use crate::hashlog::HashLogWriter;
use engine::{Bot, Rules, StateHash, Tick, World, WorldSnapshot};
use ggrs::{GgrsError, PlayerType, SessionBuilder};
use std::path::{Path, PathBuf};

/// A sync test to run.
#[derive(Debug, Clone)]
pub struct SyncTest {
    /// Rules.
    pub rules: Rules,
    /// Match seed.
    pub seed: u64,
    /// Seed of the bots providing the inputs.
    pub bot_seed: u64,
    /// Frames re-simulated every frame (GGRS needs at least 2).
    pub check_distance: usize,
    /// Frames to run.
    pub ticks: Tick,
    /// Where mismatching snapshots are written.
    pub dump_dir: PathBuf,
    /// Per-tick hash log.
    pub hash_log: Option<PathBuf>,
    /// A deliberate non-determinism, to prove the test catches one.
    pub inject: Option<Tick>,
}

/// A completed sync test.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SyncTestSummary {
    /// Frames simulated.
    pub ticks: Tick,
    /// Rollbacks performed (one per frame once past the check distance).
    pub rollbacks: u64,
    /// Final state hash.
    pub final_hash: StateHash,
}

/// Runs a sync test of two bot players.
///
/// # Errors
/// [`Error::SyncTestMismatch`] naming the frames and the dump directory; GGRS or engine errors.
pub fn run_sync_test(spec: &SyncTest) -> Result<SyncTestSummary, Error> {
    let world = World::new(spec.rules.clone(), spec.seed, 2)?;
    let mut driver = Driver::new(world);
    driver.keep_first_saves(true);
    if let Some(tick) = spec.inject {
        driver.inject(Injection {
            tick,
            first_pass_only: true,
        });
    }
    let mut session = SessionBuilder::<GgrsConfig>::new()
        .with_num_players(2)?
        .with_check_distance(spec.check_distance)
        .with_max_prediction_window(spec.check_distance.max(7) + 1)
        .add_player(PlayerType::Local, 0)?
        .add_player(PlayerType::Local, 1)?
        .start_synctest_session()?;
    let mut bots = [
        Bot::new(0, spec.bot_seed),
        Bot::new(1, engine::splitmix64(spec.bot_seed)),
    ];
    let mut log = match &spec.hash_log {
        Some(path) => Some(HashLogWriter::create(
            path,
            &format!(
                "seed={} rules={:016x} players=2 source=sync-test",
                spec.seed,
                spec.rules.hash()
            ),
        )?),
        None => None,
    };
    while driver.world().tick() < spec.ticks {
        for (handle, bot) in bots.iter_mut().enumerate() {
            session.add_local_input(handle, bot.think(driver.world()).to_wire())?;
        }
        match session.advance_frame() {
            Ok(requests) => driver.handle(requests)?,
            Err(GgrsError::MismatchedChecksum {
                current_frame,
                mismatched_frames,
            }) => {
                let dump = dump_mismatch(&spec.dump_dir, &driver, &mismatched_frames)?;
                return Err(Error::SyncTestMismatch {
                    at: current_frame,
                    frames: mismatched_frames,
                    dump,
                });
            }
            Err(e) => return Err(e.into()),
        }
        if let Some(log) = &mut log {
            // Local inputs are final at once: every tick reached for the first time is logged.
            let now = driver.world().tick();
            if log.last_tick().is_none_or(|t| now > t) {
                log.record(now, &driver.hash_at(now)?)?;
            }
        }
    }
    Ok(SyncTestSummary {
        ticks: driver.world().tick(),
        rollbacks: driver.counters().rollbacks,
        final_hash: driver.world().state_hash(),
    })
}

/// Writes, for each mismatched frame, the original and the re-simulated snapshot, both as
/// snapshot bytes and as an indented text dump a person can `diff`.
fn dump_mismatch(dir: &Path, driver: &Driver, frames: &[i32]) -> Result<PathBuf, Error> {
    std::fs::create_dir_all(dir).map_err(|e| Error::io(dir, e))?;
    for &frame in frames {
        let tick = frame.max(0) as Tick;
        let pairs: [(&str, Option<&WorldSnapshot>); 2] = [
            ("original", driver.first_snapshot_at(tick)),
            ("resimulated", driver.snapshot_at(tick).ok()),
        ];
        for (label, snapshot) in pairs {
            let Some(snapshot) = snapshot else { continue };
            write_snapshot(dir, &format!("tick-{tick}-{label}"), snapshot)?;
        }
    }
    Ok(dir.to_owned())
}

/// Writes `<stem>.snapshot` (bytes) and `<stem>.txt` (one `field: value` per line).
///
/// # Errors
/// [`Error::Io`].
pub fn write_snapshot(dir: &Path, stem: &str, snapshot: &WorldSnapshot) -> Result<(), Error> {
    let bin = dir.join(format!("{stem}.snapshot"));
    std::fs::write(&bin, snapshot.to_bytes()).map_err(|e| Error::io(&bin, e))?;
    let txt = dir.join(format!("{stem}.txt"));
    std::fs::write(&txt, format!("{snapshot:#?}\n")).map_err(|e| Error::io(&txt, e))
}
