//! The rollback frame through GGRS, beside GGRS's own cost with a trivial state.
//!
//! - `synctest_frame/engine/N`: one frame of a GGRS sync test (check distance 7: every frame
//!   loads the state 7 frames back and re-simulates 7 frames, saving and hashing each) with
//!   our driver, 2 players and N projectiles — the workload bevy_ggrs is measured with —
//!   with the sync tester's phase tracing (its default: the first pass of every tick hashed
//!   after each phase, so a mismatch names the phase).
//! - `synctest_frame/engine_untraced/N`: the same without phase tracing: the rollback frame
//!   itself (a mismatch is still named down to the tick, section and field).
//! - `synctest_frame/ggrs_u64`: the same GGRS session and check distance with a `u64` as the
//!   whole game state: what GGRS itself costs per frame.
//!
//! Before criterion's runs it prints, for each of these but the traced one, the spread of the
//! frame's cost over 300 fresh sessions (its minimum, 10th percentile and median, each
//! session's frames timed together), the sides' sessions taken in turn: this host moves
//! between a fast and a slow phase for seconds at a time, which moves criterion's medians by
//! half and a side timed after another by as much, while sessions taken in rounds see the
//! same phases. The ratios are given at the 10th percentile and as the median of each
//! round's own ratio.

// A benchmark times itself: the clock is allowed here, never in the simulation.
#![allow(clippy::disallowed_types, clippy::disallowed_methods)]

use client::session::driver::HISTORY_TICKS;
use client::session::synctest::SyncTester;
use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion};
use engine::bench_support::{loaded_world, FIGHT_TICKS};
use engine::{Rules, WireInput, World};
use ggrs::{Config, GgrsRequest, PlayerType, SessionBuilder, SyncTestSession};
use std::hint::black_box;
use std::time::{Duration, Instant};

const CHECK_DISTANCE: usize = 7;
/// Frames run before timing: past the check distance, GGRS is in its steady state, and past
/// the driver's history every ring slot holds a snapshot, so saving into it allocates nothing
/// (as in a match after its first second; a ring still filling allocates on every save). A
/// sync tester keeps fewer ticks than a peer's `HISTORY_TICKS`, so this is past its history.
const WARM_UP: usize = HISTORY_TICKS + CHECK_DISTANCE + 2;
/// Frames timed per fresh tester; with the warm-up, within the bench world's fight.
const RUN: u64 = (FIGHT_TICKS as u64) - WARM_UP as u64 - 1;

struct Trivial;

impl Config for Trivial {
    type Input = u8;
    type InputPredictor = ggrs::PredictRepeatLast;
    type State = u64;
    type Address = std::net::SocketAddr;
}

fn trivial_session() -> SyncTestSession<Trivial> {
    SessionBuilder::<Trivial>::new()
        .with_num_players(2)
        .map(|b| {
            b.with_check_distance(CHECK_DISTANCE)
                .with_max_prediction_window(CHECK_DISTANCE + 1)
        })
        .and_then(|b| b.add_player(PlayerType::Local, 0))
        .and_then(|b| b.add_player(PlayerType::Local, 1))
        .expect("session builder")
        .start_synctest_session()
        .expect("sync test session")
}

fn trivial_frame(session: &mut SyncTestSession<Trivial>, state: &mut u64) {
    session.add_local_input(0, 1).expect("input");
    session.add_local_input(1, 2).expect("input");
    for request in session.advance_frame().expect("advance") {
        match request {
            GgrsRequest::SaveGameState { cell, frame } => {
                cell.save(frame, Some(*state), Some(u128::from(*state)));
            }
            GgrsRequest::LoadGameState { cell, .. } => *state = cell.load().expect("saved"),
            GgrsRequest::AdvanceFrame { inputs } => {
                *state = state.wrapping_add(u64::from(inputs[0].0) + u64::from(inputs[1].0));
            }
        }
    }
}

/// A fresh sync tester on `world`, phase tracing on or off, run past its warm-up.
fn warm_tester(world: &World, traced: bool) -> SyncTester<World> {
    let dump = std::env::temp_dir().join("duel-bench-synctest");
    let mut t = SyncTester::from_world(world.clone(), CHECK_DISTANCE, dump).expect("tester");
    t.trace_phases(traced);
    for _ in 0..WARM_UP {
        t.advance(&[WireInput::default(); 2]).expect("warm up");
    }
    t
}

/// Fresh sessions per side in the spreads.
const SESSIONS: usize = 300;

/// A fresh GGRS session with a `u64` state, warmed up; its frames' cost in ns per frame.
fn ggrs_session() -> f64 {
    let mut session = trivial_session();
    let mut state = 0u64;
    for _ in 0..WARM_UP {
        trivial_frame(&mut session, &mut state);
    }
    let start = Instant::now();
    for _ in 0..RUN {
        trivial_frame(&mut session, black_box(&mut state));
    }
    start.elapsed().as_nanos() as f64 / RUN as f64
}

/// A fresh untraced sync tester on `world`, warmed up; its frames' cost in ns per frame.
fn engine_session(world: &World) -> f64 {
    let idle = [WireInput::default(); 2];
    let mut t = warm_tester(world, false);
    let start = Instant::now();
    for _ in 0..RUN {
        t.advance(black_box(&idle)).expect("frame");
    }
    start.elapsed().as_nanos() as f64 / RUN as f64
}

/// The value at quantile `q` of `values`, sorted here.
fn quantile(values: &[f64], q: f64) -> f64 {
    let mut sorted = values.to_vec();
    sorted.sort_by(f64::total_cmp);
    sorted[((sorted.len() - 1) as f64 * q) as usize]
}

/// The spread of the untraced frame and of GGRS's trivial frame, their ratio and the growth
/// per doubling of projectiles. The sides are timed in rounds — one fresh session of each,
/// in turn, [`SESSIONS`] times — so a phase of the host falls on every side alike: each
/// side's minimum, 10th percentile and median over its sessions, the ratio of the 10th
/// percentiles, and the median over rounds of each round's own ratio (sessions a few
/// milliseconds apart).
fn spreads() {
    let loads = [32usize, 1024, 4096];
    let worlds = loads.map(|n| loaded_world(n, Rules::default().pose_history_ticks));
    let mut trivial = Vec::with_capacity(SESSIONS);
    let mut engine: [Vec<f64>; 3] = std::array::from_fn(|_| Vec::with_capacity(SESSIONS));
    for _ in 0..SESSIONS {
        trivial.push(ggrs_session());
        for (times, world) in engine.iter_mut().zip(&worlds) {
            times.push(engine_session(world));
        }
    }
    let show = |name: &str, times: &[f64]| {
        println!(
            "spread {name}: min {:.0} ns, p10 {:.0} ns, median {:.0} ns per frame",
            quantile(times, 0.0),
            quantile(times, 0.1),
            quantile(times, 0.5)
        );
    };
    show("ggrs_u64", &trivial);
    for (n, times) in loads.iter().zip(&engine) {
        show(&format!("engine_untraced/{n}"), times);
        let per_round: Vec<f64> = times.iter().zip(&trivial).map(|(e, g)| e / g).collect();
        println!(
            "spread engine_untraced/{n}: {:.2}x ggrs_u64 at the 10th percentile; \
             {:.2}x as the median of the rounds' ratios",
            quantile(times, 0.1) / quantile(&trivial, 0.1),
            quantile(&per_round, 0.5)
        );
    }
    // 1024 → 4096 is two doublings.
    let per_round: Vec<f64> = (engine[2].iter().zip(&engine[1]))
        .map(|(big, small)| (big / small).sqrt())
        .collect();
    println!(
        "spread engine_untraced 1024 -> 4096: {:.2}x per doubling at the 10th percentile; \
         {:.2}x as the median of the rounds' ratios",
        (quantile(&engine[2], 0.1) / quantile(&engine[1], 0.1)).sqrt(),
        quantile(&per_round, 0.5)
    );
}

fn bench(c: &mut Criterion) {
    spreads();
    let mut group = c.benchmark_group("synctest_frame");
    let mut session = trivial_session();
    let mut state = 0u64;
    for _ in 0..CHECK_DISTANCE + 2 {
        trivial_frame(&mut session, &mut state);
    }
    group.bench_function("ggrs_u64", |b| {
        b.iter(|| trivial_frame(&mut session, black_box(&mut state)))
    });
    let idle = [WireInput::default(); 2];
    for n in [32usize, 1024, 4096] {
        let world = loaded_world(n, Rules::default().pose_history_ticks);
        for (name, traced) in [("engine", true), ("engine_untraced", false)] {
            let tester = || warm_tester(&world, traced);
            group.bench_function(BenchmarkId::new(name, n), |b| {
                // Runs of consecutive frames, each run on a fresh tester (not timed), so the
                // load stays at n projectiles: the bench world is a fight for FIGHT_TICKS.
                b.iter_custom(|iters| {
                    let mut total = Duration::ZERO;
                    let mut left = iters;
                    while left > 0 {
                        let mut t = tester();
                        let run = left.min(RUN);
                        let start = Instant::now();
                        for _ in 0..run {
                            t.advance(black_box(&idle)).expect("frame");
                        }
                        total += start.elapsed();
                        left -= run;
                    }
                    total
                });
            });
        }
    }
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
