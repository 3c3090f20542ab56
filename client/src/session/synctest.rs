//! Sync-test sessions: every frame GGRS rolls back `check_distance` frames and re-simulates;
//! any checksum that comes out different proves non-determinism.

use crate::error::Error;
use crate::forensics::{phase_verdict, write_phase_trace, PhaseTrace};
use crate::logs::hashlog::{HashLogWriter, MatchIdentity};
use crate::session::driver::{Driver, Injection};
use crate::session::GgrsConfig;
use engine::{Bot, Phase, Rules, StateHash, World};
use game_api::{Game, Tick};
use ggrs::{GgrsError, PlayerType, SessionBuilder, SyncTestSession};
use std::path::{Path, PathBuf};

/// Most frames a sync test rolls back each frame (GGRS's prediction window follows it).
pub const MAX_CHECK_DISTANCE: usize = 15;
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
    /// The phase of that tick's step after which it strikes (default: after the whole step).
    pub inject_after: Option<Phase>,
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

/// A running sync-test session of the game `G`: any source of inputs (bots, keyboards) can
/// drive it frame by frame, e.g. the game's sync-test mode that proves determinism while people
/// play.
pub struct SyncTester<G: Game> {
    session: SyncTestSession<GgrsConfig<G>>,
    driver: Driver<G>,
    dump_dir: PathBuf,
}

impl<G: Game> std::fmt::Debug for SyncTester<G> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SyncTester")
            .field("tick", &self.driver.world().tick())
            .finish_non_exhaustive()
    }
}

impl<G: Game> SyncTester<G> {
    /// A sync test of `players` local players on a fresh game.
    ///
    /// # Errors
    /// Rules or GGRS setup errors (GGRS needs a check distance of at least 2 for comparisons).
    pub fn new(
        rules: G::Rules,
        seed: u64,
        players: usize,
        check_distance: usize,
        dump_dir: PathBuf,
    ) -> Result<SyncTester<G>, Error> {
        let game = G::new(rules, seed, players).map_err(Error::game)?;
        SyncTester::from_world(game, check_distance, dump_dir)
    }

    /// A sync test of every player of `world` as a local player, starting from its state.
    ///
    /// # Errors
    /// GGRS setup errors (GGRS needs a check distance of at least 2 for comparisons).
    pub fn from_world(
        world: G,
        check_distance: usize,
        dump_dir: PathBuf,
    ) -> Result<SyncTester<G>, Error> {
        if !(1..=MAX_CHECK_DISTANCE).contains(&check_distance) {
            return Err(Error::Ggrs(ggrs::GgrsError::InvalidRequest {
                info: format!(
                    "check distance {check_distance} frames is outside 1..={MAX_CHECK_DISTANCE}"
                ),
            }));
        }
        let players = world.player_count();
        let driver = Driver::for_sync_test(world, check_distance);
        let mut builder = SessionBuilder::<GgrsConfig<G>>::new()
            .with_num_players(players)?
            .with_check_distance(check_distance)
            .with_max_prediction_window(check_distance.max(7) + 1);
        for handle in 0..players {
            builder = builder.add_player(PlayerType::Local, handle)?;
        }
        Ok(SyncTester {
            session: builder.start_synctest_session()?,
            driver,
            dump_dir,
        })
    }

    /// Arms a deliberate non-determinism in the first pass of the step to `tick`, right after
    /// phase `after` (to prove mismatches are caught and traced to the phase).
    pub fn inject(&mut self, tick: Tick, after: G::Phase) {
        self.driver.inject(Injection {
            tick,
            first_pass_only: true,
            after,
        });
    }

    /// Whether the first pass of every tick is traced phase by phase, so a mismatch names
    /// the first phase that differs (on by default). Off, a frame costs about half as much
    /// and a mismatch is still named down to the tick, section and field.
    pub fn trace_phases(&mut self, trace: bool) {
        self.driver.trace_first_passes(trace);
    }

    /// Simulates one frame with one input per player (re-simulating the check distance first).
    ///
    /// # Errors
    /// [`Error::SyncTestMismatch`] naming the frames, after writing the original and the
    /// re-simulated snapshots to the dump directory; GGRS or engine errors.
    pub fn advance(&mut self, inputs: &[G::Input]) -> Result<(), Error> {
        for (handle, &input) in inputs.iter().enumerate() {
            self.session.add_local_input(handle, input)?;
        }
        match self.session.advance_frame() {
            Ok(requests) => self.driver.handle(requests),
            Err(GgrsError::MismatchedChecksum {
                current_frame,
                mismatched_frames,
            }) => {
                let (dump, phases) =
                    dump_mismatch(&self.dump_dir, &self.driver, &mismatched_frames)?;
                Err(Error::SyncTestMismatch {
                    at: current_frame,
                    frames: mismatched_frames,
                    dump,
                    phases,
                })
            }
            Err(e) => Err(e.into()),
        }
    }

    /// The driver (world, history, hashes, counters).
    #[must_use]
    pub fn driver(&self) -> &Driver<G> {
        &self.driver
    }
}

/// Runs a sync test of two bot players.
///
/// # Errors
/// [`Error::SyncTestMismatch`] naming the frames and the dump directory; GGRS or engine errors.
pub fn run_sync_test(spec: &SyncTest) -> Result<SyncTestSummary, Error> {
    let mut tester = SyncTester::<World>::new(
        spec.rules.clone(),
        spec.seed,
        2,
        spec.check_distance,
        spec.dump_dir.clone(),
    )?;
    if let Some(tick) = spec.inject {
        tester.inject(tick, spec.inject_after.unwrap_or(Phase::Events));
    }
    let mut bots = [
        Bot::new(0, spec.bot_seed),
        Bot::new(1, engine::splitmix64(spec.bot_seed)),
    ];
    let mut log = match &spec.hash_log {
        Some(path) => Some(HashLogWriter::<World>::create(
            path,
            &MatchIdentity::of_game(
                tester.driver().world(),
                format!("sync-test-bots-{:016x}", spec.bot_seed),
            ),
            "sync-test",
        )?),
        None => None,
    };
    while tester.driver().world().tick() < spec.ticks {
        let world = tester.driver().world();
        let inputs = [
            bots[0].think(world).to_wire(),
            bots[1].think(world).to_wire(),
        ];
        tester.advance(&inputs)?;
        if let Some(log) = &mut log {
            // Local inputs are final at once: every tick reached for the first time is logged.
            let now = tester.driver().world().tick();
            if log.last_tick().is_none_or(|t| now > t) {
                log.record(now, &tester.driver().hash_at(now)?)?;
            }
        }
    }
    let driver = tester.driver();
    Ok(SyncTestSummary {
        ticks: driver.world().tick(),
        rollbacks: driver.counters().rollbacks,
        final_hash: driver.world().state_hash(),
    })
}

/// Writes, for each mismatched frame, the original and the re-simulated snapshot, both as
/// snapshot bytes and as an indented text dump a person can `diff`, and the per-phase hashes of
/// both steps to it (`.phases`). Returns the directory and, for the first frame, which phase
/// the two steps first differ in.
fn dump_mismatch<G: Game>(
    dir: &Path,
    driver: &Driver<G>,
    frames: &[i32],
) -> Result<(PathBuf, Option<String>), Error> {
    std::fs::create_dir_all(dir).map_err(|e| Error::io(dir, e))?;
    let mut verdict = None;
    for &frame in frames {
        let tick = frame.max(0) as Tick;
        let pairs: [(&str, Option<&G::Snapshot>); 2] = [
            ("original", driver.first_snapshot_at(tick)),
            ("resimulated", driver.snapshot_at(tick).ok()),
        ];
        for (label, snapshot) in pairs {
            let Some(snapshot) = snapshot else { continue };
            write_snapshot::<G>(dir, &format!("tick-{tick}-{label}"), snapshot)?;
        }
        // The first field that differs, named through the snapshot's serde form.
        let field = match pairs {
            [(_, Some(a)), (_, Some(b))] => {
                crate::forensics::fielddiff::diff(a, b).into_iter().next()
            }
            _ => None,
        };
        let inputs = tick.checked_sub(1).and_then(|t| driver.inputs_at(t).ok());
        let original = driver.first_trace_at(tick).copied();
        let resimulated = driver.trace_tick(tick).ok();
        if let (Some(inputs), Some(original), Some(resimulated)) = (inputs, original, resimulated) {
            let (a, b) = (
                PhaseTrace::<G>::new(original, inputs),
                PhaseTrace::<G>::new(resimulated, inputs),
            );
            write_phase_trace(dir, &format!("tick-{tick}-original"), &a)?;
            write_phase_trace(dir, &format!("tick-{tick}-resimulated"), &b)?;
            verdict = verdict.or_else(|| {
                let phases = phase_verdict(&a, &b);
                Some(match &field {
                    Some(diff) => format!("{phases}; first field that differs: {diff}"),
                    None => phases,
                })
            });
        }
    }
    Ok((dir.to_owned(), verdict))
}

/// Writes `<stem>.snapshot` (bytes) and `<stem>.txt` (one `field: value` per line).
///
/// # Errors
/// [`Error::Io`].
pub fn write_snapshot<G: Game>(
    dir: &Path,
    stem: &str,
    snapshot: &G::Snapshot,
) -> Result<(), Error> {
    crate::forensics::dumps::write_snapshot_file::<G>(
        &dir.join(format!("{stem}.snapshot")),
        snapshot,
    )?;
    let txt = dir.join(format!("{stem}.txt"));
    std::fs::write(&txt, format!("{snapshot:#?}\n")).map_err(|e| Error::io(&txt, e))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A tester's debug form names its type and the tick it stands at.
    #[test]
    fn a_tester_debugs_as_its_tick() {
        let mut tester =
            SyncTester::<World>::new(Rules::default(), 1, 2, 2, PathBuf::from("unused"))
                .expect("tester");
        assert_eq!(format!("{tester:?}"), "SyncTester { tick: 0, .. }");
        let idle = [engine::WireInput::default(); 2];
        tester.advance(&idle).expect("advance");
        assert_eq!(format!("{tester:?}"), "SyncTester { tick: 1, .. }");
    }

    /// Contract: a sync test takes check distances 1 to [`MAX_CHECK_DISTANCE`] and refuses
    /// 0 and one past it by name (a huge one used to overflow building the session).
    #[test]
    fn the_check_distance_is_taken_in_its_range_and_refused_past_it() {
        let tester =
            |d| SyncTester::<World>::new(Rules::default(), 1, 2, d, PathBuf::from("unused"));
        for d in [1, MAX_CHECK_DISTANCE] {
            assert!(tester(d).is_ok(), "{d}");
        }
        for d in [0, MAX_CHECK_DISTANCE + 1, usize::MAX] {
            let err = tester(d).expect_err("refused").to_string();
            assert!(err.contains("check distance"), "{d}: {err}");
        }
    }

    /// Past the length of its history (where the driver's history hands its snapshots to
    /// the first saves instead of copying them), a sync test keeps and rolls back to the true
    /// states: every kept tick is the state a plain run of the same inputs reaches, and the
    /// re-simulations reach them again without a copy.
    #[test]
    fn a_sync_test_past_its_history_keeps_and_restores_the_true_states() {
        let mut tester =
            SyncTester::<World>::new(Rules::default(), 3, 2, 7, PathBuf::from("unused"))
                .expect("tester");
        let kept_ticks = tester.driver().history_ticks();
        tester.trace_phases(false);
        let mut bots = [Bot::new(0, 8), Bot::new(1, 9)];
        let mut plain = World::new(Rules::default(), 3, 2).expect("world");
        let mut states = vec![plain.snapshot()];
        for _ in 0..kept_ticks * 3 {
            let world = tester.driver().world();
            let inputs = [
                bots[0].think(world).to_wire(),
                bots[1].think(world).to_wire(),
            ];
            tester.advance(&inputs).expect("no mismatch");
            let tick = plain.tick();
            plain
                .step(&[inputs[0].at(tick), inputs[1].at(tick)])
                .expect("step");
            states.push(plain.snapshot());
        }
        let driver = tester.driver();
        let now = driver.world().tick();
        assert_eq!(driver.world().state(), plain.state());
        for tick in now - kept_ticks as Tick + 1..=now {
            let kept = driver.snapshot_at(tick).expect("kept");
            assert_eq!(kept, &states[tick as usize], "tick {tick}");
            assert_eq!(
                driver.hash_at(tick).expect("hash"),
                kept.hash(),
                "tick {tick}"
            );
        }
        assert!(driver.counters().first_states_again > 6 * (now as u64 - kept_ticks as u64));
    }

    /// Without phase traces a sync test still catches a non-determinism and dumps both
    /// snapshots, naming no phase; with them (the default) it names the phase.
    #[test]
    fn an_untraced_sync_test_still_catches_and_dumps_a_mismatch_without_a_phase() {
        let dir = std::env::temp_dir().join(format!("synctest-untraced-{}", std::process::id()));
        for traced in [false, true] {
            let mut tester =
                SyncTester::<World>::new(Rules::default(), 1, 2, 7, dir.clone()).expect("tester");
            tester.trace_phases(traced);
            tester.inject(40, Phase::Movement);
            let idle = [engine::WireInput::default(); 2];
            // Bounded by frames, not ticks: a tester that stopped advancing fails, not hangs.
            let err = (0..100)
                .find_map(|_| tester.advance(&idle).err())
                .expect("the mismatch is caught within 100 frames");
            let Error::SyncTestMismatch { dump, phases, .. } = err else {
                panic!("{err}")
            };
            assert_eq!(
                tester.driver().first_trace_at(40).is_some(),
                traced,
                "traced: {traced}"
            );
            match phases {
                Some(p) => assert!(traced && p.contains("movement"), "{p}"),
                None => assert!(!traced, "a traced test names the phase"),
            }
            for label in ["original", "resimulated"] {
                assert!(dump.join(format!("tick-40-{label}.snapshot")).is_file());
            }
        }
        let _ = std::fs::remove_dir_all(&dir);
    }

    /// A sync test keeps only the ticks it can load, compare or dump (16 at a check distance
    /// of 7), where a peer keeps [`HISTORY_TICKS`](crate::session::driver::HISTORY_TICKS):
    /// every frame saves a whole state into that history, so its depth is the memory a
    /// large state's sync test streams through.
    #[test]
    fn a_sync_test_keeps_the_ticks_it_rolls_back_over_not_a_peers_history() {
        use crate::session::driver::{sync_test_history, Driver, HISTORY_TICKS};
        let world = || World::new(Rules::default(), 1, 2).expect("world");
        assert_eq!(Driver::new(world()).history_ticks(), HISTORY_TICKS);
        for (check_distance, kept) in [(1, 8), (2, 8), (4, 8), (5, 16), (7, 16), (12, 16)] {
            assert_eq!(sync_test_history(check_distance), kept, "{check_distance}");
        }
        assert_eq!(sync_test_history(MAX_CHECK_DISTANCE), 32);
        let tester = SyncTester::<World>::new(Rules::default(), 1, 2, 7, PathBuf::from("unused"))
            .expect("tester");
        assert_eq!(tester.driver().history_ticks(), 16);
    }

    /// At every check distance, a mismatch is dumped whole from the shorter history: for
    /// every frame named, both snapshots and both steps' phase traces, and the phase named.
    /// (A history one tick too short loses the re-trace's starting state first.)
    #[test]
    fn every_check_distance_dumps_a_mismatch_whole() {
        let dir = std::env::temp_dir().join(format!("synctest-depths-{}", std::process::id()));
        let idle = [engine::WireInput::default(); 2];
        for check_distance in 2..=MAX_CHECK_DISTANCE {
            let at = 40;
            let dump_dir = dir.join(check_distance.to_string());
            let mut tester =
                SyncTester::<World>::new(Rules::default(), 1, 2, check_distance, dump_dir)
                    .expect("tester");
            tester.inject(at, Phase::Movement);
            let err = (0..100)
                .find_map(|_| tester.advance(&idle).err())
                .expect("the mismatch is caught within 100 frames");
            let Error::SyncTestMismatch {
                frames,
                dump,
                phases,
                ..
            } = err
            else {
                panic!("{err}")
            };
            assert_eq!(frames, vec![at as i32], "check distance {check_distance}");
            let phases = phases.unwrap_or_default();
            assert!(phases.contains("movement"), "{check_distance}: {phases}");
            for label in ["original", "resimulated"] {
                for file in ["snapshot", "txt", "phases"] {
                    let path = dump.join(format!("tick-{at}-{label}.{file}"));
                    assert!(path.is_file(), "check distance {check_distance}: {path:?}");
                }
            }
        }
        let _ = std::fs::remove_dir_all(&dir);
    }
}
