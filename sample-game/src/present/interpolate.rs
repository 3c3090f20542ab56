//! Positions to draw between two ticks. The simulation runs at 60 Hz and the display at its own
//! rate, so each frame draws the world a fraction `alpha` of the way from the previous tick to
//! the current one. Fixed point goes in, `f32` comes out; nothing flows back.

use engine::{FxVec, Player, Projectile, WorldSnapshot};
use glam::Vec2;

/// A fixed-point vector as an `f32` one, in tiles.
#[must_use]
pub(crate) fn vec2(v: FxVec) -> Vec2 {
    Vec2::new(v.x.to_num::<f32>(), v.y.to_num::<f32>())
}

/// Where to draw player `current`: between its position in `previous` and now. A player who
/// respawned in between (new round: another life generation) is drawn where it is now rather
/// than sliding across the arena.
#[must_use]
pub(crate) fn player_pos(previous: &WorldSnapshot, current: &Player, alpha: f32) -> Vec2 {
    let now = vec2(current.pos);
    match previous.players.get(usize::from(current.id)) {
        Some(before) if before.generation == current.generation => {
            vec2(before.pos).lerp(now, alpha.clamp(0.0, 1.0))
        }
        _ => now,
    }
}

/// Where to draw a projectile of the current tick. Projectiles fly straight at constant
/// velocity, so one tick earlier it was at `pos - vel` (for a new one: the muzzle it left).
#[must_use]
pub(crate) fn projectile_pos(p: &Projectile, alpha: f32) -> Vec2 {
    vec2(p.pos) - vec2(p.vel) * (1.0 - alpha.clamp(0.0, 1.0))
}

#[cfg(test)]
mod tests {
    use super::*;
    use engine::{InputCmd, Rules, World};

    #[test]
    fn alpha_one_is_the_current_tick_and_zero_the_previous() {
        let mut world = World::new(Rules::default(), 5, 2).unwrap();
        let mut previous = world.snapshot();
        // Run (and fire) until a shot is in flight, after the countdown.
        for tick in 0..200 {
            if tick > 70 && !world.state().projectiles.is_empty() {
                break;
            }
            previous = world.snapshot();
            let run = InputCmd {
                buttons: engine::buttons::SHOOT,
                move_x: 127,
                move_y: 40,
                ..InputCmd::idle(tick)
            };
            world.step(&[run, InputCmd::idle(tick)]).unwrap();
        }
        let me = &world.state().players[0];
        assert_eq!(player_pos(&previous, me, 1.0), vec2(me.pos));
        assert_eq!(
            player_pos(&previous, me, 0.0),
            vec2(previous.players[0].pos)
        );
        let shot = world.state().projectiles.first().expect("a shot in flight");
        assert_eq!(projectile_pos(shot, 1.0), vec2(shot.pos));
    }

    /// Between two ticks, exactly: a player part of the way from where it was (clamped to the
    /// two ticks), a respawned one where it is now, a projectile back along its velocity.
    #[test]
    fn positions_between_two_ticks() {
        use engine::{Fx, FxVec};
        let at = |x: f32, y: f32| FxVec::new(Fx::from_num(x), Fx::from_num(y));
        let mut previous = World::new(Rules::default(), 5, 2).unwrap().snapshot();
        previous.players[0].pos = at(2.0, 3.0);
        let mut me = previous.players[0];
        me.pos = at(4.0, 2.0);
        assert_eq!(player_pos(&previous, &me, 0.25), Vec2::new(2.5, 2.75));
        assert_eq!(
            player_pos(&previous, &me, 2.0),
            Vec2::new(4.0, 2.0),
            "clamped"
        );
        assert_eq!(
            player_pos(&previous, &me, -1.0),
            Vec2::new(2.0, 3.0),
            "clamped"
        );
        me.generation += 1;
        assert_eq!(
            player_pos(&previous, &me, 0.25),
            Vec2::new(4.0, 2.0),
            "respawned"
        );
        let shot = Projectile {
            id: 1,
            owner_generation: 1,
            pos: at(6.0, 1.0),
            vel: at(0.5, -0.25),
            life: 9,
            owner: 0,
            wall_clear: 0,
        };
        assert_eq!(projectile_pos(&shot, 0.0), Vec2::new(5.5, 1.25));
        assert_eq!(projectile_pos(&shot, 0.75), Vec2::new(5.875, 1.0625));
        assert_eq!(projectile_pos(&shot, 3.0), Vec2::new(6.0, 1.0), "clamped");
        assert_eq!(vec2(at(-1.5, 0.125)), Vec2::new(-1.5, 0.125));
    }
}
