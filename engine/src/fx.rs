//! Fixed-point scalars and vectors: the only numbers the simulation computes with.
//!
//! # Why `I16F16`
//! World units are maze tiles (one tile = 1.0). The largest arena the rules allow is 63×63 tiles,
//! so coordinates stay below 64 and squared distances between any two points below
//! 2·64² = 8192 — comfortably inside `I16F16`'s ±32768 range. Sixteen fractional bits give a
//! resolution of 1/65536 tile, which at 32 screen pixels per tile is 1/2048 of a pixel: far
//! below anything a player can see, and fine enough that friction converges smoothly.
//! A 32-bit representation keeps snapshots small and multiplication cheap (it widens to `i64`,
//! not `i128` as `I32F32` would).
//!
//! # Why `Strict`
//! `fixed`'s plain operators panic on overflow in debug builds and wrap in release builds: the
//! same overflow would make a debug and a release peer disagree. [`Fx`] is
//! `Strict<I16F16>`, which panics in every profile. The rules bound every speed, radius and
//! arena size so that no overflow is reachable; the property tests would find one if it were.

use fixed::types::I16F16;
use fixed::Strict;
use serde::{Deserialize, Serialize};

/// The simulation's scalar: a signed 16.16 fixed-point number that panics on overflow in every
/// build profile.
pub type Fx = Strict<I16F16>;

/// Builds an [`Fx`] from its raw 16.16 bits in a `const` context.
#[must_use]
pub const fn fx_bits(bits: i32) -> Fx {
    Strict(I16F16::from_bits(bits))
}

/// Builds an [`Fx`] from an integer in a `const` context.
///
/// # Panics
/// If `n` is outside `I16F16`'s integer range (evaluated at compile time for constants).
#[must_use]
pub const fn fx_int(n: i32) -> Fx {
    assert!(n >= -32768 && n < 32768, "integer out of I16F16 range");
    fx_bits(n << 16)
}

/// Zero.
pub const ZERO: Fx = fx_bits(0);
/// One tile.
pub const ONE: Fx = fx_int(1);
/// One half.
pub const HALF: Fx = fx_bits(1 << 15);

/// A 2-D fixed-point vector (position, velocity or direction), in tiles.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[repr(C)]
#[derive(bytemuck::Pod, bytemuck::Zeroable)]
pub struct FxVec {
    /// Horizontal component; +x points right.
    pub x: Fx,
    /// Vertical component; +y points down (screen convention).
    pub y: Fx,
}

impl FxVec {
    /// The zero vector.
    pub const ZERO: FxVec = FxVec { x: ZERO, y: ZERO };

    /// Builds a vector from two components.
    #[must_use]
    pub const fn new(x: Fx, y: Fx) -> FxVec {
        FxVec { x, y }
    }

    /// The vector scaled by a scalar.
    #[must_use]
    pub fn scale(self, s: Fx) -> FxVec {
        FxVec::new(self.x * s, self.y * s)
    }

    /// Dot product.
    #[must_use]
    pub fn dot(self, o: FxVec) -> Fx {
        self.x * o.x + self.y * o.y
    }

    /// Squared length.
    #[must_use]
    pub fn length_squared(self) -> Fx {
        self.dot(self)
    }

    /// Euclidean length (exact integer square root of the 16.16 value, rounded down).
    #[must_use]
    pub fn length(self) -> Fx {
        self.length_squared().sqrt()
    }

    /// The unit vector in this direction, or `None` for the zero vector (or one so short that
    /// its direction cannot be represented). The square root rounds down, so a component can
    /// come out a hair above 1; components are clamped to `-1..=1`.
    #[must_use]
    pub fn normalized(self) -> Option<FxVec> {
        let len = self.length();
        if len == ZERO {
            return None;
        }
        let unit = |c: Fx| (c / len).clamp(-ONE, ONE);
        Some(FxVec::new(unit(self.x), unit(self.y)))
    }

    /// The vector rotated a quarter turn (x, y) → (−y, x).
    #[must_use]
    pub fn perp(self) -> FxVec {
        FxVec::new(-self.y, self.x)
    }
}

impl core::ops::Add for FxVec {
    type Output = FxVec;
    fn add(self, o: FxVec) -> FxVec {
        FxVec::new(self.x + o.x, self.y + o.y)
    }
}

impl core::ops::Sub for FxVec {
    type Output = FxVec;
    fn sub(self, o: FxVec) -> FxVec {
        FxVec::new(self.x - o.x, self.y - o.y)
    }
}

impl core::ops::Neg for FxVec {
    type Output = FxVec;
    fn neg(self) -> FxVec {
        FxVec::new(-self.x, -self.y)
    }
}

impl core::ops::AddAssign for FxVec {
    fn add_assign(&mut self, o: FxVec) {
        *self = *self + o;
    }
}

/// The integer part (floor) of a coordinate, as a tile index that may be negative.
#[must_use]
pub fn tile_of(v: Fx) -> i32 {
    v.to_bits() >> 16
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn normalized_is_unit_length_within_rounding() {
        let v = FxVec::new(fx_int(3), fx_int(-4));
        let n = v.normalized().expect("non-zero");
        assert_eq!(n.x, Fx::from_num(3) / Fx::from_num(5));
        assert_eq!(n.y, Fx::from_num(-4) / Fx::from_num(5));
        assert!(FxVec::ZERO.normalized().is_none());
    }

    #[test]
    fn tile_of_floors_negative_values() {
        assert_eq!(tile_of(fx_bits(-1)), -1);
        assert_eq!(tile_of(fx_int(2)), 2);
        assert_eq!(tile_of(fx_int(2) - fx_bits(1)), 1);
    }

    #[test]
    #[should_panic(expected = "overflow")]
    fn overflow_panics_in_every_profile() {
        let big = fx_int(32000);
        let _ = std::hint::black_box(big) * std::hint::black_box(big);
    }
}
