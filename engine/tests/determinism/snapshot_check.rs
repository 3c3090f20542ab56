//! `WorldSnapshot::check`, limit by limit: every invariant is refused one step past its bound
//! and accepted exactly at it, so a check that is too strict fails as surely as one too lax
//! (each `<`/`<=`, `&&`/`||` of the check is pinned by a pair of cases).

use engine::{fx_bits, Fx, FxVec, PoseHistory, Projectile, Rules, World, WorldSnapshot};

/// A named way to set one value of a snapshot or projectile.
type Setter<T> = (&'static str, fn(&mut T, Fx));

/// The longest pose window the rules accept (`pose_history_ticks`'s upper bound).
const MAX_POSE_WINDOW: u8 = 30;

fn base(players: usize) -> WorldSnapshot {
    World::new(Rules::default(), 1, players)
        .expect("world")
        .snapshot()
}

fn accepted(s: &WorldSnapshot) -> bool {
    s.check().is_ok()
}

/// `edit` at the bound is accepted, one unit past it refused.
fn bound(what: &str, at: impl Fn(&mut WorldSnapshot), past: impl Fn(&mut WorldSnapshot)) {
    let mut s = base(2);
    at(&mut s);
    assert!(
        accepted(&s),
        "{what}: the bound itself is accepted: {:?}",
        s.check()
    );
    let mut s = base(2);
    past(&mut s);
    assert!(!accepted(&s), "{what}: one past the bound is refused");
}

#[test]
fn pose_window_constant_is_the_rules_bound() {
    let rules = |ticks| Rules {
        pose_history_ticks: ticks,
        ..Rules::default()
    };
    assert!(rules(MAX_POSE_WINDOW).validate().is_ok());
    assert!(rules(MAX_POSE_WINDOW + 1).validate().is_err());
}

#[test]
fn two_to_four_players_in_slot_order() {
    assert!(accepted(&base(2)) && accepted(&base(4)));
    let mut one = base(2);
    one.players.truncate(1);
    assert!(!accepted(&one), "1 player");
    let mut five = base(4);
    let mut extra = five.players[3];
    extra.id = 4;
    five.players.push(extra);
    assert!(!accepted(&five), "5 players");
    let mut swapped = base(2);
    swapped.players.swap(0, 1);
    assert!(!accepted(&swapped), "ids out of slot order");
}

#[test]
fn the_pose_history_holds_at_most_a_full_window_per_player() {
    let full = 2 * PoseHistory::depth(MAX_POSE_WINDOW);
    let sample = base(2).pose_history.samples[0];
    bound(
        "pose samples",
        |s| s.pose_history.samples = vec![sample; full],
        |s| s.pose_history.samples = vec![sample; full + 1],
    );
}

#[test]
fn positions_lie_on_the_grid_edges_included() {
    let bit = fx_bits(1);
    let (w, h) = {
        let s = base(2);
        (Fx::from_num(s.maze.width), Fx::from_num(s.maze.height))
    };
    let zero = Fx::from_num(0);
    bound(
        "x at 0",
        |s| s.players[0].pos.x = zero,
        |s| s.players[0].pos.x = zero - bit,
    );
    bound(
        "y at 0",
        |s| s.players[0].pos.y = zero,
        |s| s.players[0].pos.y = zero - bit,
    );
    bound(
        "x at width",
        |s| s.players[1].pos.x = w,
        |s| s.players[1].pos.x = w + bit,
    );
    bound(
        "y at height",
        |s| s.players[1].pos.y = h,
        |s| s.players[1].pos.y = h + bit,
    );
}

#[test]
fn speeds_and_aims_stay_within_one_tile_per_tick() {
    let bit = fx_bits(1);
    let one = Fx::from_num(1);
    let cases: [Setter<WorldSnapshot>; 4] = [
        ("vel.x", |s, v| s.players[0].vel.x = v),
        ("vel.y", |s, v| s.players[0].vel.y = v),
        ("aim.x", |s, v| s.players[1].aim.x = v),
        ("aim.y", |s, v| s.players[1].aim.y = v),
    ];
    for (what, set) in cases {
        bound(what, |s| set(s, one), |s| set(s, one + bit));
        bound(what, |s| set(s, -one), |s| set(s, -one - bit));
    }
}

#[test]
fn projectiles_are_inside_bounded_owned_and_allocated() {
    let bit = fx_bits(1);
    let four = Fx::from_num(4);
    let shot = |s: &mut WorldSnapshot| -> usize {
        let pos = s.players[0].pos;
        s.projectiles.push(Projectile {
            id: s.next_projectile_id,
            owner_generation: s.players[0].generation,
            pos,
            vel: FxVec::new(Fx::from_num(0), Fx::from_num(0)),
            life: 10,
            owner: 1,
            wall_clear: 0,
        });
        s.next_projectile_id += 1;
        s.projectiles.len() - 1
    };
    let cases: [Setter<Projectile>; 4] = [
        ("projectile vel.x", |p, v| p.vel.x = v),
        ("projectile vel.y", |p, v| p.vel.y = v),
        ("projectile -vel.x", |p, v| p.vel.x = -v),
        ("projectile -vel.y", |p, v| p.vel.y = -v),
    ];
    for (what, set) in cases {
        bound(
            what,
            |s| {
                let i = shot(s);
                set(&mut s.projectiles[i], four);
            },
            |s| {
                let i = shot(s);
                set(&mut s.projectiles[i], four + bit);
            },
        );
    }
    let zero = Fx::from_num(0);
    bound(
        "projectile x",
        |s| {
            let i = shot(s);
            s.projectiles[i].pos.x = zero;
        },
        |s| {
            let i = shot(s);
            s.projectiles[i].pos.x = zero - bit;
        },
    );
    bound(
        "projectile y",
        |s| {
            let i = shot(s);
            s.projectiles[i].pos.y = Fx::from_num(s.maze.height);
        },
        |s| {
            let i = shot(s);
            s.projectiles[i].pos.y = Fx::from_num(s.maze.height) + bit;
        },
    );
    bound(
        "projectile owner",
        |s| {
            let i = shot(s);
            s.projectiles[i].owner = 1;
        },
        |s| {
            let i = shot(s);
            s.projectiles[i].owner = 2;
        },
    );
    bound(
        "projectile id",
        |s| {
            let i = shot(s);
            s.projectiles[i].id = s.next_projectile_id - 1;
        },
        |s| {
            let i = shot(s);
            s.projectiles[i].id = s.next_projectile_id;
        },
    );
}

/// The bytes that make records their own encoding (issue 23) hold nothing: one set bit in a
/// pose sample's reserved bytes is a corrupt snapshot, so two states are equal exactly when
/// their bytes are, and a forged snapshot cannot hide data there. Through the bytes too: a
/// snapshot whose reserved byte is set in its encoding does not decode. (A projectile's last
/// byte, reserved in format 3, is its wall count since format 4: `wall_counts.rs`.)
#[test]
fn reserved_bytes_are_zero() {
    let with_shot = |s: &mut WorldSnapshot| {
        let pos = s.players[0].pos;
        s.projectiles.push(Projectile {
            id: s.next_projectile_id,
            owner_generation: 1,
            pos,
            vel: FxVec::new(fx_bits(0), fx_bits(0)),
            life: 10,
            owner: 0,
            wall_clear: 0,
        });
        s.next_projectile_id += 1;
    };
    let mut s = base(2);
    with_shot(&mut s);
    assert!(accepted(&s));
    let bytes = s.to_bytes();
    assert!(WorldSnapshot::from_bytes(&bytes).is_ok());
    for bit in 0..8 {
        for byte in 0..3 {
            let mut forged = s.clone();
            forged.pose_history.samples[1].reserved[byte] = 1 << bit;
            assert!(!accepted(&forged), "pose reserved byte {byte} bit {bit}");
            assert!(WorldSnapshot::from_bytes(&forged.to_bytes()).is_err());
        }
    }
}

/// Whether a snapshot of a fresh world under `rules`, edited, restores into a fresh world that
/// then steps.
fn restores(rules: &Rules, edit: &dyn Fn(&mut WorldSnapshot)) -> Result<(), engine::Error> {
    let mut s = World::new(rules.clone(), 1, 2).expect("world").snapshot();
    edit(&mut s);
    World::from_snapshot(rules.clone(), &s).map(|mut w| {
        let idle = [
            engine::InputCmd::idle(s.tick),
            engine::InputCmd::idle(s.tick),
        ];
        w.step(&idle).expect("a restored world steps");
    })
}

/// `at` restores, `past` is refused as corrupt.
fn pair(
    what: &str,
    rules: &Rules,
    at: &dyn Fn(&mut WorldSnapshot),
    past: &dyn Fn(&mut WorldSnapshot),
) {
    if let Err(e) = restores(rules, at) {
        panic!("{what}: the bound itself is accepted, got {e}");
    }
    match restores(rules, past) {
        Err(engine::Error::SnapshotCorrupt { .. }) => {}
        other => panic!("{what}: one past the bound is refused, got {other:?}"),
    }
}

/// The limits `World::restore` adds from the rules, each accepted exactly at its bound (the
/// restored world then steps) and refused one past it.
#[test]
fn restore_checks_the_rules_limits_at_their_bounds() {
    // The round timer: the longer of the time limit and 600 ticks (no phase lasts longer).
    for limit in [60, 3600] {
        let rules = Rules {
            round_time_limit: limit,
            ..Rules::default()
        };
        let most = limit.max(600);
        pair(
            &format!("phase timer with a {limit}-tick limit"),
            &rules,
            &|s| s.round.phase_timer = most,
            &|s| s.round.phase_timer = most + 1,
        );
    }
    // Projectiles: as many as the rules allow.
    let rules = Rules {
        max_projectiles: 3,
        ..Rules::default()
    };
    let shots = |n: usize| {
        move |s: &mut WorldSnapshot| {
            for _ in 0..n {
                s.projectiles.push(Projectile {
                    id: s.next_projectile_id,
                    owner_generation: s.players[0].generation,
                    pos: s.players[0].pos,
                    vel: FxVec::new(Fx::from_num(0), Fx::from_num(0)),
                    life: 10,
                    owner: 0,
                    wall_clear: 0,
                });
                s.next_projectile_id += 1;
            }
        }
    };
    pair("projectiles", &rules, &shots(3), &shots(4));
    let rules = Rules::default();
    pair(
        "hit-stop",
        &rules,
        &|s| s.players[1].hitstop = Rules::default().melee_hitstop,
        &|s| s.players[1].hitstop = Rules::default().melee_hitstop + 1,
    );
    pair(
        "rail charges",
        &rules,
        &|s| s.players[1].rail_charges = Rules::default().rail_charges,
        &|s| s.players[1].rail_charges = Rules::default().rail_charges + 1,
    );
    // A player's box may touch a wall and not overlap it (the arena's outer wall is tile 0).
    let r = Rules::default().player_radius;
    pair(
        "a player against the wall",
        &rules,
        &|s| s.players[0].pos.x = Fx::from_num(1) + r,
        &|s| s.players[0].pos.x = Fx::from_num(1) + r - fx_bits(1),
    );
    pair(
        "wins before the match is over",
        &rules,
        &|s| s.round.wins[1] = Rules::default().rounds_to_win - 1,
        &|s| s.round.wins[1] = Rules::default().rounds_to_win,
    );
}

/// Every pose sample is checked at restore, each value alone: a position on the grid (its edges
/// included), a radius in `[0, 1]`, only known flags; and the ring holds exactly one window per
/// player.
#[test]
fn restore_checks_every_pose_sample_at_its_bounds() {
    let rules = Rules::default();
    let bit = fx_bits(1);
    let last = |s: &mut WorldSnapshot| s.pose_history.samples.len() - 1;
    let width = |s: &WorldSnapshot| Fx::from_num(s.maze.width);
    let height = |s: &WorldSnapshot| Fx::from_num(s.maze.height);
    let zero = Fx::from_num(0);
    pair(
        "sample x at 0",
        &rules,
        &|s| s.pose_history.samples[0].pos.x = zero,
        &|s| s.pose_history.samples[0].pos.x = zero - bit,
    );
    pair(
        "sample y at 0",
        &rules,
        &|s| s.pose_history.samples[0].pos.y = zero,
        &|s| s.pose_history.samples[0].pos.y = zero - bit,
    );
    pair(
        "sample x at the width",
        &rules,
        &|s| {
            let i = last(s);
            s.pose_history.samples[i].pos.x = width(s);
        },
        &|s| {
            let i = last(s);
            s.pose_history.samples[i].pos.x = width(s) + bit;
        },
    );
    pair(
        "sample y at the height",
        &rules,
        &|s| {
            let i = last(s);
            s.pose_history.samples[i].pos.y = height(s);
        },
        &|s| {
            let i = last(s);
            s.pose_history.samples[i].pos.y = height(s) + bit;
        },
    );
    pair(
        "radius 0",
        &rules,
        &|s| s.pose_history.samples[1].radius = zero,
        &|s| s.pose_history.samples[1].radius = zero - bit,
    );
    let one = Fx::from_num(1);
    pair(
        "radius 1",
        &rules,
        &|s| s.pose_history.samples[1].radius = one,
        &|s| s.pose_history.samples[1].radius = one + bit,
    );
    pair(
        "known flags",
        &rules,
        &|s| s.pose_history.samples[2].flags = engine::pose_flags::KNOWN,
        &|s| s.pose_history.samples[2].flags = engine::pose_flags::KNOWN + 1,
    );
    let one_more = |s: &mut WorldSnapshot| {
        let extra = s.pose_history.samples[0];
        s.pose_history.samples.push(extra);
    };
    match restores(&rules, &one_more) {
        Err(engine::Error::SnapshotCorrupt { .. }) => {}
        other => panic!("one sample too many: {other:?}"),
    }
    match restores(&rules, &|s| {
        s.pose_history.samples.pop();
    }) {
        Err(engine::Error::SnapshotCorrupt { .. }) => {}
        other => panic!("one sample too few: {other:?}"),
    }
}
