//! The ring race's tuning: every value declared once, with its default and range.

use crate::{Fx, RingError};
use bincode::Options as _;
use serde::{Deserialize, Serialize};

/// The tuning of a race. Peers compare its hash at the handshake.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RingRules {
    /// Length of the track in units (positions wrap at it).
    pub track_length: u16,
    /// Speed gained per tick at full thrust, in 1/256 unit per tick.
    pub accel: u16,
    /// Share of the speed drag takes every tick, in 1/256.
    pub drag: u8,
    /// Fastest a racer moves, in units per tick.
    pub max_speed: u8,
    /// Speed a dash adds, in units per tick.
    pub dash_boost: u8,
    /// Ticks between dashes.
    pub dash_cooldown: u16,
    /// Two racers closer than this (in units) bump.
    pub racer_size: u8,
    /// A racer this close to the coin (in units) takes it.
    pub pickup_radius: u8,
    /// Coins that win the race.
    pub coins_to_win: u8,
}

impl Default for RingRules {
    fn default() -> Self {
        RingRules {
            track_length: 1024,
            accel: 40,
            drag: 6,
            max_speed: 12,
            dash_boost: 10,
            dash_cooldown: 90,
            racer_size: 16,
            pickup_radius: 12,
            coins_to_win: 10,
        }
    }
}

impl RingRules {
    /// Checks every rule against its range.
    ///
    /// # Errors
    /// [`RingError::RuleOutOfRange`] naming the first rule out of range.
    pub fn validate(&self) -> Result<(), RingError> {
        let checks: [(&'static str, i64, i64, i64); 9] = [
            ("track_length", self.track_length.into(), 64, 16_384),
            ("accel", self.accel.into(), 1, 2_048),
            ("drag", self.drag.into(), 0, 128),
            ("max_speed", self.max_speed.into(), 1, 64),
            ("dash_boost", self.dash_boost.into(), 0, 64),
            ("dash_cooldown", self.dash_cooldown.into(), 1, 3_600),
            ("racer_size", self.racer_size.into(), 1, 64),
            ("pickup_radius", self.pickup_radius.into(), 1, 64),
            ("coins_to_win", self.coins_to_win.into(), 1, 255),
        ];
        match checks
            .into_iter()
            .find(|&(_, v, lo, hi)| !(lo..=hi).contains(&v))
        {
            Some((field, value, min, max)) => Err(RingError::RuleOutOfRange {
                field,
                value,
                min,
                max,
            }),
            None => Ok(()),
        }
    }

    /// The canonical encoding: bincode, fixed-width little-endian, in declaration order.
    #[must_use]
    pub fn canonical_bytes(&self) -> Vec<u8> {
        options().serialize(self).expect("rules always encode")
    }

    /// Reads [`RingRules::canonical_bytes`]: `None` unless `bytes` are exactly one encoding.
    #[must_use]
    pub fn from_canonical_bytes(bytes: &[u8]) -> Option<RingRules> {
        options().deserialize(bytes).ok()
    }

    /// xxh3 of the canonical bytes.
    #[must_use]
    pub fn hash(&self) -> u64 {
        xxhash_rust::xxh3::xxh3_64(&self.canonical_bytes())
    }

    /// The rules in which `self` and `other` differ, as `(name, ours, theirs)`, in
    /// declaration order.
    #[must_use]
    pub fn differences(&self, other: &RingRules) -> Vec<(&'static str, String, String)> {
        let fields: [(&'static str, u16, u16); 9] = [
            ("track_length", self.track_length, other.track_length),
            ("accel", self.accel, other.accel),
            ("drag", self.drag.into(), other.drag.into()),
            ("max_speed", self.max_speed.into(), other.max_speed.into()),
            (
                "dash_boost",
                self.dash_boost.into(),
                other.dash_boost.into(),
            ),
            ("dash_cooldown", self.dash_cooldown, other.dash_cooldown),
            (
                "racer_size",
                self.racer_size.into(),
                other.racer_size.into(),
            ),
            (
                "pickup_radius",
                self.pickup_radius.into(),
                other.pickup_radius.into(),
            ),
            (
                "coins_to_win",
                self.coins_to_win.into(),
                other.coins_to_win.into(),
            ),
        ];
        (fields.into_iter())
            .filter(|(_, a, b)| a != b)
            .map(|(name, a, b)| (name, a.to_string(), b.to_string()))
            .collect()
    }

    pub(crate) fn length(&self) -> Fx {
        Fx::from_num(self.track_length)
    }
}

fn options() -> impl bincode::Options {
    bincode::DefaultOptions::new()
        .with_fixint_encoding()
        .with_little_endian()
        .reject_trailing_bytes()
        .with_limit(256)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Contract: every rule edited alone is named alone, with both values, ours first; equal
    /// rules name none.
    #[test]
    fn each_rule_edited_alone_is_named_alone() {
        let ours = RingRules::default();
        assert!(ours.differences(&ours.clone()).is_empty());
        type Edit = (&'static str, fn(&mut RingRules));
        let edits: [Edit; 9] = [
            ("track_length", |r| r.track_length += 1),
            ("accel", |r| r.accel += 1),
            ("drag", |r| r.drag += 1),
            ("max_speed", |r| r.max_speed += 1),
            ("dash_boost", |r| r.dash_boost += 1),
            ("dash_cooldown", |r| r.dash_cooldown += 1),
            ("racer_size", |r| r.racer_size += 1),
            ("pickup_radius", |r| r.pickup_radius += 1),
            ("coins_to_win", |r| r.coins_to_win += 1),
        ];
        for (name, edit) in edits {
            let mut theirs = ours.clone();
            edit(&mut theirs);
            let named = ours.differences(&theirs);
            assert_eq!(named.len(), 1, "{name}: {named:?}");
            assert_eq!(named[0].0, name);
            assert_eq!(
                named[0].2.parse::<u32>().ok(),
                named[0].1.parse::<u32>().ok().map(|v| v + 1),
                "{name}"
            );
        }
    }
}
