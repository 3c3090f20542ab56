//! A committed golden `(snapshot size, final hash)` for a scripted multi-round bot match. The
//! same values must come out of debug and release builds (CI runs this test in both).
//!
//! If a rules or engine change moves these values on purpose, update them in the same commit
//! and say why in its message: every recorded match and replay is invalidated by it.

use engine::{Bot, RoundPhase, Rules, World};
use xxhash_rust::xxh3::xxh3_64;

struct Golden {
    ticks: u32,
    rounds: u8,
    snapshot_len: u64,
    final_hash: u64,
    /// xxh3 over every tick's combined hash, so any intermediate divergence shows too.
    trajectory: u64,
}

fn play_scripted_match(seed: u64) -> Golden {
    let mut world = World::new(Rules::default(), seed, 2).expect("world");
    let mut bots = [Bot::new(0, seed ^ 0xA), Bot::new(1, seed ^ 0xB)];
    let mut trail = Vec::new();
    while world.state().round.phase != RoundPhase::MatchOver && world.tick() < 20_000 {
        let inputs = [bots[0].think(&world), bots[1].think(&world)];
        world.step(&inputs).expect("step");
        trail.extend_from_slice(&world.state_hash().combined.to_le_bytes());
    }
    Golden {
        ticks: world.tick(),
        rounds: world.state().round.round,
        snapshot_len: world.state().encoded_len(),
        final_hash: world.state_hash().combined,
        trajectory: xxh3_64(&trail),
    }
}

#[test]
fn scripted_match_golden() {
    let g = play_scripted_match(0x5EED);
    let got = (
        g.ticks,
        g.rounds,
        g.snapshot_len,
        g.final_hash,
        g.trajectory,
    );
    let expected = (1189, 3, 1090, 0x1606_28b8_8cc3_323c, 0x3c1c_1132_1c6d_81c8);
    assert_eq!(
        got, expected,
        "golden moved: (ticks, rounds, size, hash, trajectory) = {got:x?}"
    );
    assert!(g.rounds >= 2, "the scripted match spans several rounds");
}
