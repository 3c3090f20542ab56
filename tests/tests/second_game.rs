//! The netcode layer is generic: the ring race, a game with nothing of the maze duel's shape,
//! runs through the same sync tester, driver, dumps, phase traces and verdicts as the duel, and
//! an injected desync is named down to its phase, section and field; its logs are written,
//! verified and replayed by the same code as the duel's ([`logs`]).

#[path = "second_game/logs.rs"]
mod logs;

use client::forensics::dumps::read_snapshot_file;
use client::forensics::read_phase_trace;
use client::session::synctest::SyncTester;
use client::Error;
use game_api::Game;
use ring_race::{buttons, RingInput, RingPhase, RingRace, RingRules};
use std::path::PathBuf;

fn script(tick: u32, slot: usize) -> RingInput {
    let phase = (tick / 45 + slot as u32 * 2) % 4;
    RingInput {
        thrust: [127, -90, 50, -127][phase as usize],
        buttons: if (tick + slot as u32 * 31).is_multiple_of(83) {
            buttons::DASH
        } else {
            0
        },
    }
}

fn dump_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("ring-race-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

/// Seven frames rolled back and re-simulated every frame for 900 frames: no mismatch, and the
/// state reached is bit for bit the one an uninterrupted race reaches.
#[test]
fn the_ring_race_passes_the_sync_test_and_ends_where_a_plain_run_ends() {
    let rules = RingRules::default();
    let mut tester =
        SyncTester::<RingRace>::new(rules.clone(), 21, 3, 7, dump_dir("clean")).expect("tester");
    let mut plain = RingRace::new(rules, 21, 3).expect("race");
    let mut events = 0;
    for tick in 0..900 {
        let inputs: Vec<RingInput> = (0..3).map(|slot| script(tick, slot)).collect();
        tester.advance(&inputs).expect("no mismatch");
        events += plain.step(&inputs).expect("step").len();
    }
    let driver = tester.driver();
    assert_eq!(driver.world().tick(), 900);
    assert_eq!(driver.world().state_hash(), plain.state_hash());
    assert_eq!(driver.world().snapshot(), plain.snapshot());
    assert!(
        driver.counters().rollbacks >= 890,
        "{:?}",
        driver.counters()
    );
    assert!(events > 10, "the race did things: {events} events");
}

/// A one-bit nudge after the bumps phase of the step to tick 300 (first pass only) is caught by
/// the sync test and named: the phase, the section and the field; the dumped snapshots and
/// phase traces read back as the ring race's.
#[test]
fn an_injected_desync_in_the_ring_race_is_named_to_its_phase_section_and_field() {
    let dir = dump_dir("injected");
    let mut tester =
        SyncTester::<RingRace>::new(RingRules::default(), 4, 2, 7, dir.clone()).expect("tester");
    tester.inject(300, RingPhase::Bumps);
    let err = (0..400)
        .find_map(|tick| {
            let inputs = [script(tick, 0), script(tick, 1)];
            tester.advance(&inputs).err()
        })
        .expect("the sync test catches the nudge");
    let Error::SyncTestMismatch { frames, phases, .. } = &err else {
        panic!("{err}");
    };
    assert!(frames.contains(&300), "{frames:?}");
    let verdict = phases.as_deref().expect("a verdict");
    assert!(
        verdict.starts_with(
            "first phase that differs in the step to tick 300: bumps (section racers); \
             first field that differs: racers[1].pos"
        ),
        "{verdict}"
    );
    let original = read_snapshot_file::<RingRace>(&dir.join("tick-300-original.snapshot"))
        .expect("the original state reads back");
    let again = read_snapshot_file::<RingRace>(&dir.join("tick-300-resimulated.snapshot"))
        .expect("the re-simulated state reads back");
    assert_eq!(original.tick, 300);
    assert_ne!(original.racers[1].pos, again.racers[1].pos);
    let trace = read_phase_trace::<RingRace>(&dir.join("tick-300-original.phases"))
        .expect("the phase trace reads back");
    assert_eq!(trace.hashes.tick, 299);
    assert_eq!(trace.hashes.after().len(), RingRace::PHASES.len());
    // The duel's reader refuses the ring race's trace: its phases are not the duel's.
    assert!(read_phase_trace::<engine::World>(&dir.join("tick-300-original.phases")).is_err());
    let _ = std::fs::remove_dir_all(&dir);
}
