//! `World::step`, `World::step_traced`, `World::state_hash`, `World::save_into`, the
//! rollback's save and load of an image (`World::save_image`, `World::restore_image`) and the
//! checked load of one (`Game::restore`) do not allocate once warmed up.
//!
//! `stats_alloc` instruments the global allocator; a `Region` counts what happens between its
//! creation and `change()`, on every thread. So this file is its own test binary without the
//! libtest harness (`harness = false` in `Cargo.toml`): its `main` is the only thread. Under
//! libtest, the harness's main thread sometimes still allocated while the test counted (4
//! allocations in some runs on a loaded machine), which made the test flaky.

use engine::{Bot, Game, PhaseHashes, RoundPhase, Rules, World};
use stats_alloc::{Region, StatsAlloc, INSTRUMENTED_SYSTEM};
use std::alloc::System;

#[global_allocator]
static GLOBAL: &StatsAlloc<System> = &INSTRUMENTED_SYSTEM;

fn main() {
    step_hash_and_save_do_not_allocate_once_warm();
    println!(
        "alloc: step, step_traced, state_hash, save_into, save_image, restore_image and the \
         checked restore allocate nothing once warm"
    );
}

fn step_hash_and_save_do_not_allocate_once_warm() {
    let mut world = World::new(Rules::default(), 31337, 2).expect("world");
    let mut bots = [Bot::new(0, 5), Bot::new(1, 6)];
    let mut saved = world.snapshot();
    let mut image = world.image();
    // Warm up through the first round, up to its decision.
    while world.state().round.phase != RoundPhase::RoundOver {
        let inputs = [bots[0].think(&world), bots[1].think(&world)];
        world.step(&inputs).expect("step");
        world.save_image(&mut image);
    }
    // The checked load's decoding buffers, grown once.
    Game::restore(&mut world, &image).expect("checked load");
    let (mut steps, mut rounds_seen, mut shots) = (0u32, world.state().round.round, 0usize);
    let mut allocations = 0;
    let mut trace = PhaseHashes::default();
    while world.state().round.phase != RoundPhase::MatchOver && steps < 20_000 {
        let inputs = [bots[0].think(&world), bots[1].think(&world)];
        let region = Region::new(GLOBAL);
        let events = if steps % 2 == 0 {
            world.step(&inputs).expect("step").len()
        } else {
            world
                .step_traced(&inputs, &mut trace)
                .expect("traced")
                .len()
        };
        let hash = world.state_hash();
        world.save_into(&mut saved);
        world.save_image(&mut image);
        if steps % 8 == 0 {
            // The rollback's load of the state just saved, and the checked load of it.
            world.restore_image(&image).expect("load");
            Game::restore(&mut world, &image).expect("checked load");
        }
        let change = region.change();
        allocations += change.allocations + change.reallocations;
        std::hint::black_box((events, hash));
        shots += world.state().projectiles.len();
        rounds_seen = rounds_seen.max(world.state().round.round);
        steps += 1;
    }
    assert!(
        rounds_seen >= 2,
        "the counted stretch includes a round transition"
    );
    assert!(shots > 0, "and projectiles");
    assert_eq!(allocations, 0, "allocations during {steps} warm steps");
}
