//! Every colour the game draws with, in one place. Public so tests can look for them.
//!
//! Player and shot colours are chosen to be told apart at a glance (and by colour-blind
//! players: blue against orange), and to differ from every maze colour, so a test can find a
//! player or a projectile by its exact colour.

use sdl2::pixels::Color;

/// Outside the arena (letterbox bars).
pub const BACKGROUND: Color = Color::RGB(11, 13, 20);
/// Floor tiles.
pub const FLOOR: Color = Color::RGB(28, 32, 44);
/// Every other floor tile, a shade apart, so distances can be read off the grid.
pub const FLOOR_ALT: Color = Color::RGB(32, 36, 49);
/// The shadow a wall casts on the floor tile below it.
pub const FLOOR_SHADOW: Color = Color::RGB(20, 23, 33);
/// Top face of an indestructible wall.
pub const WALL_TOP: Color = Color::RGB(72, 82, 112);
/// Lit rim of a wall's top face.
pub const WALL_RIM: Color = Color::RGB(98, 110, 146);
/// Front face of a wall (seen where floor lies below it).
pub const WALL_FRONT: Color = Color::RGB(45, 51, 72);
/// A destructible block at full strength.
pub const BLOCK: Color = Color::RGB(176, 112, 64);
/// A block that has lost some hit points.
pub const BLOCK_WORN: Color = Color::RGB(150, 92, 52);
/// A block about to break.
pub const BLOCK_FAILING: Color = Color::RGB(118, 70, 42);
/// Mortar between a block's bricks.
pub const MORTAR: Color = Color::RGB(96, 60, 36);
/// Cracks in a damaged block.
pub const CRACK: Color = Color::RGB(40, 24, 14);

/// Body colour per player slot.
pub const PLAYER: [Color; 4] = [
    Color::RGB(70, 170, 255),
    Color::RGB(255, 120, 60),
    Color::RGB(110, 220, 110),
    Color::RGB(235, 90, 210),
];
/// A darker rim per player slot.
pub const PLAYER_RIM: [Color; 4] = [
    Color::RGB(24, 74, 130),
    Color::RGB(140, 52, 20),
    Color::RGB(36, 110, 40),
    Color::RGB(120, 30, 104),
];
/// Projectile colour per owner slot: a pale tint of the owner's colour.
pub const SHOT: [Color; 4] = [
    Color::RGB(190, 240, 255),
    Color::RGB(255, 226, 130),
    Color::RGB(210, 255, 190),
    Color::RGB(255, 200, 245),
];
/// A player flashing in hitstun.
pub const HITSTUN_FLASH: Color = Color::RGB(255, 255, 255);
/// A knocked-out player's body.
pub const KO_BODY: Color = Color::RGB(86, 90, 102);
/// Eyes, visor, outlines.
pub const INK: Color = Color::RGB(14, 16, 24);

/// Main text.
pub const TEXT: Color = Color::RGB(236, 239, 246);
/// Secondary text (labels, hints).
pub const TEXT_DIM: Color = Color::RGB(150, 158, 182);
/// Highlights (titles, the countdown).
pub const ACCENT: Color = Color::RGB(255, 214, 80);
/// Warnings (desync, low health).
pub const DANGER: Color = Color::RGB(255, 76, 76);
/// Good news (in sync, full health).
pub const GOOD: Color = Color::RGB(110, 230, 130);
/// The rail debug overlay (rewound hitboxes, the last ray).
pub const DEBUG: Color = Color::RGB(236, 96, 255);

/// The HUD strip along the top.
pub const HUD_BACK: Color = Color::RGB(18, 21, 31);
/// Panels drawn over the arena (translucent).
pub const PANEL: Color = Color::RGBA(10, 12, 20, 200);
/// Panel borders.
pub const PANEL_EDGE: Color = Color::RGB(70, 80, 110);
/// Empty part of a bar.
pub const BAR_BACK: Color = Color::RGB(44, 48, 62);

/// A colour with its alpha replaced.
#[must_use]
pub fn with_alpha(color: Color, alpha: u8) -> Color {
    Color::RGBA(color.r, color.g, color.b, alpha)
}

/// Linear blend of two colours, `t` in `0..=1` (0 gives `a`).
#[must_use]
pub fn mix(a: Color, b: Color, t: f32) -> Color {
    let t = t.clamp(0.0, 1.0);
    let lerp = |x: u8, y: u8| (f32::from(x) + (f32::from(y) - f32::from(x)) * t).round() as u8;
    Color::RGBA(
        lerp(a.r, b.r),
        lerp(a.g, b.g),
        lerp(a.b, b.b),
        lerp(a.a, b.a),
    )
}

/// The colour of slot `id`'s player (slots beyond the palette reuse it).
#[must_use]
pub fn player(id: u8) -> Color {
    PLAYER[usize::from(id) % PLAYER.len()]
}

/// The colour of slot `id`'s projectiles.
#[must_use]
pub fn shot(id: u8) -> Color {
    SHOT[usize::from(id) % SHOT.len()]
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each slot has its own player and shot colour; slots past the palette reuse it.
    #[test]
    fn each_slot_has_its_colours_and_later_slots_reuse_them() {
        for (colours, of) in [(&PLAYER[..], player as fn(u8) -> Color), (&SHOT[..], shot)] {
            let n = colours.len() as u8;
            let first: Vec<Color> = (0..n).map(of).collect();
            assert_eq!(first, colours);
            for id in 0..n {
                assert_eq!(of(id + n), of(id));
            }
        }
        assert_ne!(shot(0), shot(1));
    }
}
