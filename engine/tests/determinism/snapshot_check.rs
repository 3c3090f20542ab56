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
