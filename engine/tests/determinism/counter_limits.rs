//! Every state `step` can reach restores, and every state restore accepts steps without
//! panicking — also for counters at their limits (tick, round, projectile ids, wins, life
//! generations, stats). Counters are jumped near their limits with a crafted snapshot instead
//! of simulating hours.

use crate::common::{arena, step_p0, ROOM, SHOOT};
use engine::{Bot, Error, InputCmd, RoundPhase, Rules, Tick, World, WorldSnapshot};
use proptest::prelude::*;

/// Encodes, decodes and restores `snap` into a fresh world, as rollback, sync-test and resume do.
fn round_trip(rules: &Rules, snap: &WorldSnapshot) -> Result<World, Error> {
    let decoded = WorldSnapshot::from_bytes(&snap.to_bytes())?;
    assert_eq!(&decoded, snap, "bytes round-trip");
    World::from_snapshot(rules.clone(), &decoded)
}

/// Steps `world` with bots for `ticks` ticks; after every step its state must round-trip and
/// the restored world must take the same next step.
fn step_and_restore_every_tick(world: &mut World, ticks: u32) {
    let rules = world.rules().clone();
    let mut bots: Vec<Bot> = (0..world.player_count() as u8)
        .map(|id| Bot::new(id, u64::from(id) + 7))
        .collect();
    for _ in 0..ticks {
        let inputs: Vec<InputCmd> = bots.iter_mut().map(|b| b.think(world)).collect();
        let mut restored = round_trip(&rules, world.state()).unwrap_or_else(|e| {
            panic!(
                "tick {}: a state step produced is refused: {e}",
                world.tick()
            )
        });
        match world.step(&inputs) {
            Ok(_) => {}
            Err(Error::TickLimit { tick }) => {
                assert_eq!(tick, Tick::MAX);
                return;
            }
            Err(e) => panic!("step: {e}"),
        }
        restored.step(&inputs).expect("restored step");
        assert_eq!(restored.state(), world.state(), "restored world diverged");
    }
    round_trip(&rules, world.state()).expect("the last state restores");
}

/// The reproduction rules: nobody can be hurt, so every round is a draw at the limit.
fn endless_draws() -> Rules {
    Rules {
        projectile_damage: 0,
        melee_damage: 0,
        round_time_limit: 60,
        round_end_ticks: 1,
        round_start_ticks: 0,
        rounds_to_win: 9,
        ..Rules::default()
    }
}

/// After 254 draws the round counter saturates at 255; that state restores and keeps stepping.
#[test]
fn round_255_after_endless_draws_restores_and_steps() {
    let rules = endless_draws();
    let world = World::new(rules.clone(), 900_778, 2).expect("world");
    let mut snap = world.snapshot();
    snap.round.round = 252;
    let mut world = World::from_snapshot(rules, &snap).expect("round 252");
    // Three rounds of 61 ticks (60 fighting + 1 pause) and then some, at and past the limit.
    step_and_restore_every_tick(&mut world, 400);
    assert_eq!(world.state().round.round, u8::MAX);
    assert_ne!(world.state().round.phase, RoundPhase::MatchOver);
}

/// A snapshot at the last tick restores (step can reach it) and stepping it is an error, not an
/// overflow panic; the world is left unchanged.
#[test]
fn tick_max_snapshot_steps_to_an_error_not_an_overflow() {
    let world = World::new(Rules::default(), 3, 2).expect("world");
    let mut snap = world.snapshot();
    snap.tick = Tick::MAX - 3;
    let mut world = World::from_snapshot(Rules::default(), &snap).expect("restore");
    step_and_restore_every_tick(&mut world, 10);
    assert_eq!(world.tick(), Tick::MAX);
    let before = world.state_hash();
    let idle = [InputCmd::idle(Tick::MAX), InputCmd::idle(Tick::MAX)];
    assert_eq!(
        world.step(&idle).map(<[_]>::len),
        Err(Error::TickLimit { tick: Tick::MAX })
    );
    assert_eq!(world.state_hash(), before);
}

/// When the projectile id counter is spent, shots are refused (ids are never reused) and every
/// state on the way restores.
#[test]
fn spent_projectile_ids_refuse_shots_and_every_state_restores() {
    let mut world = arena(&ROOM, &[(1, 4), (7, 4)]);
    let mut snap = world.snapshot();
    snap.next_projectile_id = u32::MAX - 2;
    world.restore(&snap).expect("restore");
    let rules = world.rules().clone();
    for _ in 0..60 {
        step_p0(&mut world, SHOOT, 0, 0);
        round_trip(&rules, world.state()).expect("every state restores");
    }
    let state = world.state();
    assert_eq!(state.next_projectile_id, u32::MAX);
    assert_eq!(state.players[0].stats.shots, 2, "two ids left, two shots");
    assert_eq!(
        state.players[0].ammo,
        rules.magazine - 2,
        "refused shots cost no ammo"
    );
}

/// A score that has reached `rounds_to_win` only exists in a finished match: restore refuses it
/// in any other phase (one more win would leave the accepted range), and accepts the final win.
#[test]
fn match_winning_score_restores_only_when_the_match_is_over() {
    let world = World::new(Rules::default(), 5, 2).expect("world");
    let to_win = Rules::default().rounds_to_win;
    let mut snap = world.snapshot();
    snap.round.wins[0] = to_win;
    snap.round.phase = RoundPhase::Fighting;
    let err = World::from_snapshot(Rules::default(), &snap).unwrap_err();
    assert!(matches!(err, Error::SnapshotCorrupt { .. }), "{err}");
    snap.round.phase = RoundPhase::MatchOver;
    snap.round.phase_timer = 0;
    World::from_snapshot(Rules::default(), &snap).expect("a won match restores");
    // Match point, then player 1 knocked out: the final win is a state restore accepts.
    let mut snap = world.snapshot();
    snap.round.wins[0] = to_win - 1;
    snap.round.phase = RoundPhase::Fighting;
    snap.players[1].hp = 0;
    snap.players[1].action = engine::Action::Ko;
    let mut world = World::from_snapshot(Rules::default(), &snap).expect("match point");
    step_and_restore_every_tick(&mut world, 3);
    assert_eq!(world.state().round.phase, RoundPhase::MatchOver);
}

/// One counter of a snapshot set to a boundary value.
#[derive(Clone, Debug)]
enum Boundary {
    Tick(Tick),
    Round(u8),
    PhaseTimer(u32),
    Phase(u8),
    Wins(usize, u8),
    NextProjectileId(u32),
    Generation(usize, u32),
    Hp(usize, u16),
    ActionTimer(usize, u16),
    ShotCooldown(usize, u16),
    Ammo(usize, u16),
    ReloadTimer(usize, u16),
    MeleeHits(usize, u8),
    Stats(usize, u32),
    ProjectileId(usize, u32),
    ProjectileLife(usize, u16),
    ProjectileGeneration(usize, u32),
}

impl Boundary {
    fn apply(&self, s: &mut WorldSnapshot) {
        let n = s.players.len();
        let np = s.projectiles.len().max(1);
        match *self {
            Boundary::Tick(v) => s.tick = v,
            Boundary::Round(v) => s.round.round = v,
            Boundary::PhaseTimer(v) => s.round.phase_timer = v,
            Boundary::Phase(v) => {
                s.round.phase = [
                    RoundPhase::Countdown,
                    RoundPhase::Fighting,
                    RoundPhase::RoundOver,
                    RoundPhase::MatchOver,
                ][usize::from(v % 4)];
            }
            Boundary::Wins(i, v) => s.round.wins[i % 4] = v,
            Boundary::NextProjectileId(v) => s.next_projectile_id = v,
            Boundary::Generation(i, v) => s.players[i % n].generation = v,
            Boundary::Hp(i, v) => s.players[i % n].hp = v,
            Boundary::ActionTimer(i, v) => s.players[i % n].action_timer = v,
            Boundary::ShotCooldown(i, v) => s.players[i % n].shot_cooldown = v,
            Boundary::Ammo(i, v) => s.players[i % n].ammo = v,
            Boundary::ReloadTimer(i, v) => s.players[i % n].reload_timer = v,
            Boundary::MeleeHits(i, v) => s.players[i % n].melee_hits = v,
            Boundary::Stats(i, v) => {
                let stats = &mut s.players[i % n].stats;
                (stats.damage_dealt, stats.kos, stats.shots) = (v, v, v);
            }
            Boundary::ProjectileId(k, v) => {
                if let Some(p) = s.projectiles.get_mut(k % np) {
                    p.id = v;
                }
            }
            Boundary::ProjectileLife(k, v) => {
                if let Some(p) = s.projectiles.get_mut(k % np) {
                    p.life = v;
                }
            }
            Boundary::ProjectileGeneration(k, v) => {
                if let Some(p) = s.projectiles.get_mut(k % np) {
                    p.owner_generation = v;
                }
            }
        }
    }
}

/// A value at or next to a boundary of an unsigned counter.
macro_rules! edge {
    ($t:ty) => {
        prop_oneof![
            Just(0 as $t),
            Just(1 as $t),
            Just(<$t>::MAX / 2),
            Just(<$t>::MAX - 1),
            Just(<$t>::MAX),
            any::<$t>(),
        ]
    };
}

fn boundary() -> impl Strategy<Value = Boundary> {
    let i = 0usize..4;
    prop_oneof![
        edge!(u32).prop_map(Boundary::Tick),
        edge!(u8).prop_map(Boundary::Round),
        edge!(u32).prop_map(Boundary::PhaseTimer),
        any::<u8>().prop_map(Boundary::Phase),
        (i.clone(), edge!(u8)).prop_map(|(i, v)| Boundary::Wins(i, v)),
        edge!(u32).prop_map(Boundary::NextProjectileId),
        (i.clone(), edge!(u32)).prop_map(|(i, v)| Boundary::Generation(i, v)),
        (i.clone(), edge!(u16)).prop_map(|(i, v)| Boundary::Hp(i, v)),
        (i.clone(), edge!(u16)).prop_map(|(i, v)| Boundary::ActionTimer(i, v)),
        (i.clone(), edge!(u16)).prop_map(|(i, v)| Boundary::ShotCooldown(i, v)),
        (i.clone(), edge!(u16)).prop_map(|(i, v)| Boundary::Ammo(i, v)),
        (i.clone(), edge!(u16)).prop_map(|(i, v)| Boundary::ReloadTimer(i, v)),
        (i.clone(), edge!(u8)).prop_map(|(i, v)| Boundary::MeleeHits(i, v)),
        (i.clone(), edge!(u32)).prop_map(|(i, v)| Boundary::Stats(i, v)),
        (0usize..64, edge!(u32)).prop_map(|(k, v)| Boundary::ProjectileId(k, v)),
        (0usize..64, edge!(u16)).prop_map(|(k, v)| Boundary::ProjectileLife(k, v)),
        (0usize..64, edge!(u32)).prop_map(|(k, v)| Boundary::ProjectileGeneration(k, v)),
    ]
}

/// A bot match some way into its first fight, with projectiles in flight.
fn mid_match(players: usize, seed: u64, ticks: u32) -> World {
    let mut world = World::new(Rules::default(), seed, players).expect("world");
    let mut bots: Vec<Bot> = (0..players as u8)
        .map(|id| Bot::new(id, seed ^ u64::from(id)))
        .collect();
    for _ in 0..ticks {
        let inputs: Vec<InputCmd> = bots.iter_mut().map(|b| b.think(&world)).collect();
        world.step(&inputs).expect("step");
    }
    world
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 96, ..ProptestConfig::default() })]

    /// A snapshot with any counters at their boundaries is refused, or restores to a world
    /// whose every next state steps without panicking and restores in turn.
    #[test]
    fn boundary_counters_are_refused_or_step(
        players in 2usize..=4,
        seed in any::<u64>(),
        warmup in 0u32..240,
        edits in prop::collection::vec(boundary(), 1..6),
    ) {
        let world = mid_match(players, seed, warmup);
        let mut snap = world.snapshot();
        for edit in &edits {
            edit.apply(&mut snap);
        }
        // Through the bytes, as a resumed log or a peer's state arrives.
        let Ok(decoded) = WorldSnapshot::from_bytes(&snap.to_bytes()) else {
            return Ok(());
        };
        let Ok(mut restored) = World::from_snapshot(Rules::default(), &decoded) else {
            return Ok(());
        };
        step_and_restore_every_tick(&mut restored, 150);
    }
}
