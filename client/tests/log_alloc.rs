//! Writing a final tick to the logs allocates nothing once warm: `TickLogs::record` (a hash-log
//! line and a match-log tick record, the record and its audited events reused) for the duel and
//! for the ring race, through the same generic code.
//!
//! `stats_alloc` counts allocations on every thread, so this file is its own test binary
//! without the libtest harness (`harness = false`), as `engine/tests/alloc.rs` is.

use client::logs::hashlog::{inputs_of, HashLogWriter, MatchIdentity};
use client::logs::matchlog::{LogHeader, MatchLogWriter};
use client::logs::tick_logs::TickLogs;
use client::Game;
use stats_alloc::{Region, StatsAlloc, INSTRUMENTED_SYSTEM};
use std::alloc::System;
use std::path::Path;

#[global_allocator]
static GLOBAL: &StatsAlloc<System> = &INSTRUMENTED_SYSTEM;

fn main() {
    let dir = std::env::temp_dir().join(format!("log-alloc-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("dir");
    let mut bots = [engine::Bot::new(0, 5), engine::Bot::new(1, 6)];
    let duel = engine::World::new(engine::Rules::default(), 7, 2).expect("duel");
    let (ticks, audited) = logged_without_allocating(&dir.join("duel"), duel, |world| {
        bots.iter_mut().map(|b| b.think(world).to_wire()).collect()
    });
    assert!(
        audited > 0,
        "the duel's bots fired the rail: {audited} shots logged"
    );
    println!(
        "log_alloc: the duel's {ticks} ticks logged ({audited} rail shots) without allocating"
    );
    let race = ring_race::RingRace::new(ring_race::RingRules::default(), 7, 3).expect("race");
    let (ticks, audited) = logged_without_allocating(&dir.join("race"), race, |race| {
        (0..3u32)
            .map(|slot| ring_race::RingInput {
                thrust: if (race.tick() / 60 + slot) % 3 == 0 {
                    -100
                } else {
                    127
                },
                buttons: u8::from((race.tick() + slot * 17) % 90 == 0),
            })
            .collect()
    });
    assert!(audited > 0, "the racers took coins: {audited} logged");
    println!(
        "log_alloc: the ring race's {ticks} ticks logged ({audited} coins) without allocating"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// Plays `game` with `inputs` for 300 ticks to warm up, then 3000 more, counting the
/// allocations of `TickLogs::record` alone (no checkpoint falls in the counted ticks): the ticks
/// counted and the audited events logged.
fn logged_without_allocating<G: Game>(
    stem: &Path,
    mut game: G,
    mut inputs: impl FnMut(&G) -> Vec<G::Input>,
) -> (u32, usize) {
    let identity = MatchIdentity::of_game(&game, inputs_of("alloc", None));
    let header = LogHeader::for_game(&game, "alloc", None);
    let mut logs = TickLogs::new(
        Some(
            HashLogWriter::create(&stem.with_extension("hashlog"), &identity, "alloc")
                .expect("hash log"),
        ),
        Some(
            MatchLogWriter::create(&stem.with_extension("mlog"), &header, &game, u32::MAX)
                .expect("match log"),
        ),
    );
    let state = game.snapshot();
    let (mut allocations, mut audited, mut audit) = (0, 0, Vec::new());
    for tick in 0..3300u32 {
        let step = inputs(&game);
        game.step(&step).expect("step");
        audit.clear();
        G::audit(game.last_events(), &mut audit);
        let region = Region::new(GLOBAL);
        logs.record(
            game.tick(),
            &step,
            game.state_hash(),
            game.last_events(),
            || Ok(&state),
        )
        .expect("record");
        let change = region.change();
        if tick >= 300 {
            allocations += change.allocations + change.reallocations;
            audited += audit.len();
        }
    }
    logs.close(true).expect("close");
    assert_eq!(
        allocations, 0,
        "{} allocations logging 3000 ticks",
        allocations
    );
    (3000, audited)
}
