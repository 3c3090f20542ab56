//! Cost per tick of writing the durable match log, next to the cost of a step.
//!
//! - `matchlog/record_tick`: one tick record through the buffered writer (no checkpoint).
//! - `matchlog/record_tick+checkpoint/300`: the same with a full snapshot checkpoint (and
//!   flush) every 300 ticks, amortized — what a match actually pays per tick.
//! - `matchlog/step` : one simulation step at the same load, for scale.

use client::logs::matchlog::{LogHeader, MatchLogWriter, TickRecord};
use criterion::{criterion_group, criterion_main, Criterion};
use engine::{Bot, Rules, SavedWorld, World};
use std::hint::black_box;

fn warm_world() -> World {
    let mut world = World::new(Rules::default(), 5, 2).expect("world");
    let mut bots = [Bot::new(0, 1), Bot::new(1, 2)];
    for _ in 0..400 {
        let inputs = [bots[0].think(&world), bots[1].think(&world)];
        world.step(&inputs).expect("step");
    }
    world
}

fn bench(c: &mut Criterion) {
    let world = warm_world();
    let dir = std::env::temp_dir().join(format!("duel-bench-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("dir");
    let header = LogHeader::for_game(&world, "bench", None);
    let hash = world.state_hash();
    let inputs = vec![engine::InputCmd::idle(0).to_wire(); 2];
    let mut group = c.benchmark_group("matchlog");
    for (name, every) in [
        ("record_tick", u32::MAX),
        ("record_tick+checkpoint/300", 300),
    ] {
        let mut writer =
            MatchLogWriter::create(&dir.join("bench.log"), &header, &world, every).expect("log");
        let mut tick = writer.last_tick();
        let mut snapshot = world.snapshot();
        let mut record = TickRecord {
            tick,
            inputs: inputs.clone(),
            hash,
            audit: Vec::new(),
        };
        group.bench_function(name, |b| {
            b.iter(|| {
                tick += 1;
                snapshot.tick = tick;
                let image = SavedWorld::of(&snapshot);
                record.tick = tick;
                let state = writer.is_checkpoint_tick(tick).then_some(&image);
                writer
                    .record_tick(black_box(&record), state)
                    .expect("write");
            })
        });
    }
    let mut bots = [Bot::new(0, 1), Bot::new(1, 2)];
    let inputs = [bots[0].think(&world), bots[1].think(&world)];
    group.bench_function("step", |b| {
        b.iter_batched_ref(
            || world.clone(),
            |w| black_box(w.step(&inputs).expect("step").len()),
            criterion::BatchSize::SmallInput,
        )
    });
    group.finish();
    let _ = std::fs::remove_dir_all(&dir);
}

criterion_group!(benches, bench);
criterion_main!(benches);
