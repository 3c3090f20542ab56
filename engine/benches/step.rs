//! Step, snapshot and hash costs at standard and stress loads.
//!
//! - `step/projectiles/N`: one `World::step` with 2 players and N projectiles in flight
//!   (N = 32 is the standard load, 1024 the stress load; 512→1024→2048 shows linearity).
//! - `snapshot/*`: save into a used snapshot, restore into a used world, hash, at 1024
//!   projectiles; `baseline/memcpy+xxh3` does a plain copy plus xxh3 of as many bytes as the
//!   snapshot encodes to, for comparison with `snapshot/save+hash`.

use criterion::{criterion_group, criterion_main, BatchSize, BenchmarkId, Criterion, Throughput};
use engine::{
    DetRng, Fx, FxVec, InputCmd, Projectile, RoundPhase, Rules, Tile, World, WorldSnapshot,
};
use std::hint::black_box;

/// A world in the Fighting phase with `n` projectiles spread over the maze's floor tiles, flying
/// in all directions with a long life.
fn loaded(n: usize) -> World {
    let rules = Rules {
        max_projectiles: 8192,
        projectile_life: 600,
        ..Rules::default()
    };
    let mut world = World::new(rules.clone(), 7, 2).expect("world");
    let mut snap = world.snapshot();
    snap.round.phase = RoundPhase::Fighting;
    let floor: Vec<(u32, u32)> = (0..snap.maze.height)
        .flat_map(|y| (0..snap.maze.width).map(move |x| (x, y)))
        .filter(|&(x, y)| snap.maze.get(x, y) == Tile::FLOOR)
        .collect();
    let mut rng = DetRng::from_seed(11);
    let sixteenth = |v: i32| Fx::from_num(v) / Fx::from_num(16);
    for id in 0..n as u32 {
        let (x, y) = floor[rng.below(floor.len() as u32) as usize];
        let dir = FxVec::new(sixteenth(rng.symmetric(16)), sixteenth(rng.symmetric(16)));
        let dir = dir
            .normalized()
            .unwrap_or(FxVec::new(Fx::from_num(1), Fx::ZERO));
        snap.projectiles.push(Projectile {
            id,
            owner: (id % 2) as u8,
            owner_generation: 1,
            pos: FxVec::new(
                Fx::from_num(x) + sixteenth(8),
                Fx::from_num(y) + sixteenth(8),
            ),
            vel: dir.scale(rules.projectile_speed),
            life: rules.projectile_life,
        });
    }
    snap.next_projectile_id = n as u32;
    world.restore(&snap).expect("restore");
    world
}

fn idle_inputs(world: &World) -> [InputCmd; 2] {
    [InputCmd::idle(world.tick()), InputCmd::idle(world.tick())]
}

fn step(c: &mut Criterion) {
    let mut group = c.benchmark_group("step/projectiles");
    for n in [32usize, 512, 1024, 2048] {
        let world = loaded(n);
        group.throughput(Throughput::Elements(n as u64));
        group.bench_with_input(BenchmarkId::from_parameter(n), &world, |b, world| {
            b.iter_batched_ref(
                || world.clone(),
                |w| {
                    let inputs = idle_inputs(w);
                    black_box(w.step(&inputs).expect("step").len())
                },
                BatchSize::SmallInput,
            );
        });
    }
    group.finish();
}

fn snapshot(c: &mut Criterion) {
    let world = loaded(1024);
    let bytes = world.state().encoded_len() as usize;
    let mut group = c.benchmark_group("snapshot");
    group.throughput(Throughput::Bytes(bytes as u64));
    let mut saved: WorldSnapshot = world.snapshot();
    group.bench_function("save", |b| {
        b.iter(|| world.save_into(black_box(&mut saved)))
    });
    group.bench_function("hash", |b| b.iter(|| black_box(world.state_hash())));
    group.bench_function("save+hash", |b| {
        b.iter(|| {
            world.save_into(black_box(&mut saved));
            black_box(world.state_hash())
        })
    });
    let mut target = loaded(1024);
    let source = world.snapshot();
    group.bench_function("restore", |b| {
        b.iter(|| target.restore(black_box(&source)).expect("restore"))
    });
    group.bench_function("to_bytes", |b| b.iter(|| black_box(source.to_bytes())));
    let src = vec![0x5Au8; bytes];
    let mut dst = vec![0u8; bytes];
    group.bench_function("baseline/memcpy+xxh3", |b| {
        b.iter(|| {
            dst.copy_from_slice(black_box(&src));
            black_box(xxhash_rust::xxh3::xxh3_64(&dst))
        })
    });
    group.finish();
}

criterion_group!(benches, step, snapshot);
criterion_main!(benches);
