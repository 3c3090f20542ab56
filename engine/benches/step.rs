//! Step, snapshot and hash costs at standard and stress loads.
//!
//! - `step/projectiles/N`: one `World::step` with 2 players and N projectiles in flight
//!   (N = 32 is the standard load, 1024 the stress load; 512→…→4096 shows the growth).
//! - `snapshot/*/N`: save into a used image (the rollback's save, [`engine::SavedWorld`]),
//!   the same into a used [`engine::WorldSnapshot`] (`save_structured`), load the image back
//!   (`load`, the rollback's), restore a snapshot into a used world (checked), hash, at 32,
//!   1024 and 4096 projectiles; `baseline/memcpy+xxh3/N` does a plain copy plus xxh3 of as many
//!   bytes as the snapshot encodes to, for comparison with `snapshot/save+hash/N`.
//!   Before them it prints `spread save+hash/N`: the two timed in turn, batch by batch, with
//!   their ratio at the 10th percentile and at the median, beside the same save with the
//!   hash of the image it wrote and the floor a hash by section puts under both.
//! - `rollback_frame/{engine,memcpy+xxh3}/N`: what one rollback of 8 frames costs — load a
//!   snapshot, then 8 × (advance + save + hash) — at 2 players and N projectiles (pose history
//!   included), beside a plain copy + xxh3 of the same bytes (one load, 8 saves and hashes).
//! - `pose_history/record` and `rail/trace`: the per-tick pose recording and one rail query.

use criterion::{criterion_group, criterion_main, BatchSize, BenchmarkId, Criterion, Throughput};
use engine::bench_support::{fight_inputs, loaded_world};
use engine::HitboxHistory;
use engine::{InputCmd, Rules, SavedWorld, World, WorldSnapshot};
use std::hint::black_box;

/// A world in the Fighting phase with `n` slow projectiles over the floor tiles.
fn loaded(n: usize) -> World {
    loaded_world(n, Rules::default().pose_history_ticks)
}

fn idle_inputs(world: &World) -> [InputCmd; 2] {
    [InputCmd::idle(world.tick()), InputCmd::idle(world.tick())]
}

fn step(c: &mut Criterion) {
    let mut group = c.benchmark_group("step/projectiles");
    for n in [32usize, 512, 1024, 2048, 4096] {
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

/// Runs of each side timed in turn, so the host's fast and slow phases (seconds long on a
/// shared machine) fall on both alike…
const SPREAD_RUNS: usize = 2000;
/// …each of this many operations, so the clock's own cost does not count.
const SPREAD_BATCH: u32 = 64;

/// The 10th percentile and the median, in ns per operation, of each of `sides`, each timed
/// over [`SPREAD_RUNS`] batches taken in turn.
// A benchmark times itself: the clock is allowed here, never in the simulation.
#[allow(clippy::disallowed_types, clippy::disallowed_methods)]
fn interleaved<const N: usize>(mut sides: [&mut dyn FnMut(); N]) -> [(f64, f64); N] {
    let mut times: [Vec<f64>; N] = std::array::from_fn(|_| Vec::with_capacity(SPREAD_RUNS));
    for _ in 0..SPREAD_RUNS {
        for (side, op) in sides.iter_mut().enumerate() {
            let start = std::time::Instant::now();
            for _ in 0..SPREAD_BATCH {
                op();
            }
            times[side].push(start.elapsed().as_secs_f64() * 1e9 / f64::from(SPREAD_BATCH));
        }
    }
    times.map(|mut t| {
        t.sort_unstable_by(f64::total_cmp);
        (t[t.len() / 10], t[t.len() / 2])
    })
}

/// Save + hash beside memcpy + xxh3 of as many bytes, timed in turn (see [`interleaved`]):
/// the goal bounds their ratio at 1.2, and criterion's separate runs of the two
/// land in different phases of a shared host.
///
/// Save + hash is timed two ways: the live world's hash after the save, and the hash of the
/// image just saved ([`SavedWorld::hash`], what a driver computes for a kept save).
///
/// A further side is the floor a state hash by section puts under save + hash: the same
/// plain copy, then xxh3 over runs of each section's length in it — players, projectiles,
/// pose samples, the rest's encoding — and over the five hashes (the maze's is cached, as
/// the world's and an image's are). Those are the library calls the state hash is made of,
/// with nothing else around them: how far save + hash is from it is what the engine adds;
/// how far it is from memcpy + xxh3 is what hashing by section costs (xxh3 has a fixed cost
/// per call).
fn save_hash_spread() {
    use xxhash_rust::xxh3::xxh3_64;
    for n in [32usize, 1024, 4096] {
        let world = loaded(n);
        let state = world.state();
        let bytes = state.encoded_len() as usize;
        let mut saved = world.image();
        let mut kept = world.image();
        let src = vec![0x5Au8; bytes];
        let mut dst = vec![0u8; bytes];
        let mut copy = vec![0u8; bytes];
        // The sections' lengths as the state hash sees them: players, projectiles, pose
        // samples, and the rest section's encoding (54 or 55 bytes, see `engine::hash`).
        // The floor hashes runs of these lengths in the copy it just wrote, so where the
        // live buffers happen to lie against it (4 KiB aliasing) does not count: xxh3's cost
        // depends on the length only.
        let lens = [
            size_of_val(state.players.as_slice()),
            size_of_val(state.projectiles.as_slice()),
            size_of_val(state.pose_history.samples.as_slice()),
            55,
        ];
        let [(ours_p10, ours_median), (image_p10, image_median), (floor_p10, floor_median), (base_p10, base_median)] =
            interleaved([
                &mut || {
                    world.save_image(black_box(&mut saved));
                    black_box(world.state_hash());
                },
                &mut || {
                    world.save_image(black_box(&mut kept));
                    black_box(kept.hash());
                },
                &mut || {
                    copy.copy_from_slice(black_box(&src));
                    // The maze's hash is cached, as the world's and an image's are.
                    let mut five = [0u64; 5];
                    let mut at = 0;
                    for (hash, len) in five.iter_mut().zip(lens) {
                        *hash = xxh3_64(black_box(&copy[at..at + len]));
                        at += len;
                    }
                    black_box(xxh3_64(bytemuck::bytes_of(&five)));
                },
                &mut || {
                    dst.copy_from_slice(black_box(&src));
                    black_box(xxh3_64(&dst));
                },
            ]);
        println!(
            "spread save+hash/{n}: p10 {ours_p10:.1} ns, median {ours_median:.1} ns; \
             memcpy+xxh3 of {bytes} bytes: p10 {base_p10:.1} ns, median {base_median:.1} ns; \
             ratio {:.2} at p10, {:.2} at the median",
            ours_p10 / base_p10,
            ours_median / base_median
        );
        println!(
            "spread save+hash/{n} of the image (the hash of a kept save): p10 {image_p10:.1} ns, \
             median {image_median:.1} ns; ratio {:.2} at p10, {:.2} at the median",
            image_p10 / base_p10,
            image_median / base_median
        );
        println!(
            "spread save+hash/{n} floor (memcpy + xxh3 by section): p10 {floor_p10:.1} ns, \
             median {floor_median:.1} ns; {:.2}x memcpy+xxh3 at p10, {:.2} at the median; \
             save+hash {:.2}x the floor at p10, {:.2} at the median",
            floor_p10 / base_p10,
            floor_median / base_median,
            ours_p10 / floor_p10,
            ours_median / floor_median
        );
    }
}

fn snapshot(c: &mut Criterion) {
    save_hash_spread();
    let mut group = c.benchmark_group("snapshot");
    for n in [32usize, 1024, 4096] {
        let world = loaded(n);
        let bytes = world.state().encoded_len() as usize;
        group.throughput(Throughput::Bytes(bytes as u64));
        let mut saved = world.image();
        group.bench_function(format!("save/{n}"), |b| {
            b.iter(|| world.save_image(black_box(&mut saved)))
        });
        let mut structured: WorldSnapshot = world.snapshot();
        group.bench_function(format!("save_structured/{n}"), |b| {
            b.iter(|| world.save_into(black_box(&mut structured)))
        });
        group.bench_function(format!("hash/{n}"), |b| {
            b.iter(|| black_box(world.state_hash()))
        });
        group.bench_function(format!("save+hash/{n}"), |b| {
            b.iter(|| {
                world.save_image(black_box(&mut saved));
                black_box(world.state_hash())
            })
        });
        let mut own = loaded(n);
        let image = own.image();
        group.bench_function(format!("load/{n}"), |b| {
            b.iter(|| own.restore_image(black_box(&image)).expect("load"))
        });
        let mut target = loaded(n);
        let source = world.snapshot();
        group.bench_function(format!("restore/{n}"), |b| {
            b.iter(|| target.restore(black_box(&source)).expect("restore"))
        });
        group.bench_function(format!("to_bytes/{n}"), |b| {
            b.iter(|| black_box(source.to_bytes()))
        });
        let src = vec![0x5Au8; bytes];
        let mut dst = vec![0u8; bytes];
        group.bench_function(format!("baseline/memcpy+xxh3/{n}"), |b| {
            b.iter(|| {
                dst.copy_from_slice(black_box(&src));
                black_box(xxhash_rust::xxh3::xxh3_64(&dst))
            })
        });
    }
    group.finish();
}

/// Eight frames of inputs for `world`'s next ticks; player 0 runs and fires, player 1 idles.
fn eight_frames(world: &World) -> Vec<[InputCmd; 2]> {
    (0..8).map(|i| fight_inputs(world.tick() + i)).collect()
}

fn rollback_frame(c: &mut Criterion) {
    let mut group = c.benchmark_group("rollback_frame");
    // (n, pose window): the window-1 run against the default one shows what the pose
    // history costs.
    for (n, window) in [(32usize, 12u8), (32, 1), (1024, 12), (4096, 12)] {
        let mut world = loaded_world(n, window);
        let start = world.image();
        let id = if window == 12 {
            n.to_string()
        } else {
            format!("{n}/window{window}")
        };
        let inputs = eight_frames(&world);
        let mut ring: Vec<SavedWorld> = (0..8).map(|_| world.image()).collect();
        group.bench_function(BenchmarkId::new("engine", &id), |b| {
            b.iter(|| {
                world.restore_image(black_box(&start)).expect("restore");
                for (frame, slot) in inputs.iter().zip(ring.iter_mut()) {
                    world.step(frame).expect("step");
                    world.save_image(slot);
                    black_box(world.state_hash());
                }
            });
        });
        let bytes = start.to_snapshot().encoded_len() as usize;
        let src = vec![0x5Au8; bytes];
        let mut live = vec![0u8; bytes];
        let mut saves = vec![vec![0u8; bytes]; 8];
        group.bench_function(BenchmarkId::new("memcpy+xxh3", &id), |b| {
            b.iter(|| {
                live.copy_from_slice(black_box(&src));
                for save in &mut saves {
                    save.copy_from_slice(black_box(&live));
                    black_box(xxhash_rust::xxh3::xxh3_64(save));
                }
            });
        });
    }
    group.finish();
}

fn rail(c: &mut Criterion) {
    let world = loaded(32);
    let view = engine::ViewTime {
        ticks_back: 6,
        frac: 100,
    };
    c.bench_function("rail/trace", |b| {
        b.iter(|| black_box(world.rail_trace(0, black_box(view))))
    });
    let state = world.state();
    let mut history = state.pose_history.clone();
    let rules = world.rules();
    let mut tick = state.tick;
    c.bench_function("pose_history/record", |b| {
        b.iter(|| {
            tick += 1;
            history.record(
                tick,
                black_box(&state.players),
                rules.pushbox_radius,
                rules.pose_history_ticks,
            );
        })
    });
}

criterion_group!(benches, step, snapshot, rollback_frame, rail);
criterion_main!(benches);
