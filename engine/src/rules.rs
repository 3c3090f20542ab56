//! The tuning of the game: every speed, timer, size and amount in one [`Rules`] struct.
//!
//! Each field is declared once below with its documentation, default and allowed range; the
//! struct, its defaults, validation, TOML loading and TOML writing are all generated from that
//! one list. Two peers prove they play by the same rules by comparing [`Rules::hash`].
//!
//! Units: distances in tiles, speeds in tiles per tick, durations in ticks (60 per second).
//! The bounds are not arbitrary: they keep every value in range of [`Fx`] arithmetic (see
//! `fx.rs`) and keep per-tick displacements below one tile.

use crate::error::Error;
use crate::fx::Fx;
use crate::pose_history::MAX_POSE_WINDOW;
use fixed::types::I16F16;
use fixed::Strict;
use serde::{Deserialize, Deserializer, Serialize};
use std::fmt::Write as _;

/// A fixed-point literal usable in `const` context, e.g. `lit("0.25")`.
const fn lit(s: &str) -> Fx {
    Strict(I16F16::lit(s))
}

/// A rule value: how it is read from a rules file and shown in messages.
trait RuleValue: Copy + PartialOrd + std::fmt::Display {
    /// The form the value takes in a TOML file before range checking.
    type File: for<'de> Deserialize<'de>;
    /// Converts the file form, or explains why it cannot be this type; a value that does not
    /// even fit the type is reported against the rule's range `min ..= max`.
    fn from_file(v: Self::File, field: &'static str, min: Self, max: Self) -> Result<Self, Error>;
    /// The value written exactly, for messages: a bound and a value one step past it must
    /// never print the same.
    fn exact(&self) -> String {
        self.to_string()
    }
}

macro_rules! int_rule_value {
    ($($t:ty),*) => {$(
        impl RuleValue for $t {
            type File = i64;
            fn from_file(v: i64, field: &'static str, min: $t, max: $t) -> Result<Self, Error> {
                <$t>::try_from(v).map_err(|_| Error::RuleOutOfRange {
                    field,
                    value: v.to_string(),
                    min: min.to_string(),
                    max: max.to_string(),
                })
            }
        }
    )*};
}
int_rule_value!(u8, u16, u32);

/// A fixed-point value as written in a rules file: a decimal string (`"0.25"`), an integer, or
/// a TOML float. Floats are converted through their shortest decimal form, so `0.25` and
/// `"0.25"` always give the same bits.
#[derive(Debug)]
struct FxLiteral(Result<Fx, String>);

impl<'de> Deserialize<'de> for FxLiteral {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        #[derive(Deserialize)]
        #[serde(untagged)]
        enum Raw {
            Int(i64),
            Float(f64),
            Text(String),
        }
        let text = match Raw::deserialize(d)? {
            Raw::Int(i) => i.to_string(),
            Raw::Float(f) => f.to_string(),
            Raw::Text(s) => s,
        };
        // Parse the inner type: `Strict`'s `FromStr` panics on bad text instead of failing.
        Ok(FxLiteral(
            text.trim()
                .parse::<I16F16>()
                .map(Strict)
                .map_err(|e| format!("`{text}` is not a fixed-point number ({e})")),
        ))
    }
}

impl RuleValue for Fx {
    type File = FxLiteral;
    /// Every digit: 16 fractional bits are exactly 16 decimal places, trailing zeros dropped.
    /// (`Display` gives the shortest text that reads back as the same value: `0.1` for
    /// 0.0999908447265625, which then looked equal to a bound of `0.1`.)
    fn exact(&self) -> String {
        let bits = i64::from(self.0.to_bits());
        let (sign, magnitude) = if bits < 0 { ("-", -bits) } else { ("", bits) };
        // frac / 2^16 = frac * 5^16 / 10^16: exactly sixteen decimal digits.
        let fraction = (magnitude & 0xFFFF) * 152_587_890_625;
        let digits = format!("{fraction:016}");
        let digits = digits.trim_end_matches('0');
        if digits.is_empty() {
            format!("{sign}{}", magnitude >> 16)
        } else {
            format!("{sign}{}.{digits}", magnitude >> 16)
        }
    }
    fn from_file(v: FxLiteral, field: &'static str, min: Fx, max: Fx) -> Result<Self, Error> {
        v.0.map_err(|reason| Error::RulesFile {
            message: format!("field `{field}`: {reason}; its range is {min} ..= {max}"),
        })
    }
}

macro_rules! define_rules {
    ($(
        $(#[doc = $doc:literal])+
        $field:ident : $ty:ty = $default:expr, [$min:expr, $max:expr];
    )+) => {
        /// The game's tuning. See each field for its unit, default and allowed range.
        ///
        /// Construct with [`Rules::default`] or [`Rules::from_toml_str`]; both yield validated
        /// rules. A hand-built value should be checked with [`Rules::validate`] (the `World`
        /// constructor does so).
        #[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
        pub struct Rules {
            $( $(#[doc = $doc])+ pub $field: $ty, )+
        }

        impl Default for Rules {
            fn default() -> Rules {
                Rules { $( $field: $default, )+ }
            }
        }

        /// The rules file with every field still in its file form.
        #[derive(Deserialize)]
        #[serde(deny_unknown_fields)]
        struct RulesFile {
            $( $field: <$ty as RuleValue>::File, )+
        }

        impl Rules {
            /// The names of every rule, in declaration (and hashing) order.
            pub const FIELDS: &'static [&'static str] = &[$(stringify!($field)),+];

            /// Every rule whose value differs between `self` and `other`, in declaration
            /// order: `(name, our value, their value)`, values as a rules file writes them.
            /// Used to tell a player *which* rules a peer plays by differently.
            #[must_use]
            pub fn differences(&self, other: &Rules) -> Vec<(&'static str, String, String)> {
                let mut out = Vec::new();
                $(
                    if self.$field != other.$field {
                        out.push((
                            stringify!($field),
                            self.$field.to_string(),
                            other.$field.to_string(),
                        ));
                    }
                )+
                out
            }

            /// Checks every field against its documented range, then the cross-field limits.
            ///
            /// # Errors
            /// [`Error::RuleOutOfRange`] naming the first field outside its range.
            pub fn validate(&self) -> Result<(), Error> {
                $(
                    let (min, max): ($ty, $ty) = ($min, $max);
                    if !(min..=max).contains(&self.$field) {
                        return Err(Error::RuleOutOfRange {
                            field: stringify!($field),
                            value: RuleValue::exact(&self.$field),
                            min: RuleValue::exact(&min),
                            max: RuleValue::exact(&max),
                        });
                    }
                )+
                self.validate_cross_field()
            }

            /// Parses a rules file. Every field must be present exactly once; unknown fields are
            /// refused, as are values outside their range.
            ///
            /// # Errors
            /// [`Error::RulesFile`] for TOML syntax, a missing or unknown field (the message
            /// names it) or a value of the wrong type; [`Error::RuleOutOfRange`] for a value
            /// outside its range.
            pub fn from_toml_str(text: &str) -> Result<Rules, Error> {
                let file: RulesFile = toml::from_str(text)
                    .map_err(|e| Error::RulesFile { message: e.to_string() })?;
                let rules = Rules {
                    $( $field: <$ty as RuleValue>::from_file(
                        file.$field, stringify!($field), $min, $max,
                    )?, )+
                };
                rules.validate()?;
                Ok(rules)
            }

            /// Writes these rules as a TOML file that [`Rules::from_toml_str`] reads back
            /// unchanged, each field preceded by its documentation and range.
            #[must_use]
            pub fn to_toml_string(&self) -> String {
                let mut out = String::from(
                    "# Maze duel rules. Distances in tiles, speeds in tiles per tick, durations in\n\
                     # ticks (60 per second). Every field is required; ranges are inclusive.\n",
                );
                $(
                    out.push('\n');
                    $( let _ = writeln!(out, "#{}", $doc); )+
                    let (min, max): ($ty, $ty) = ($min, $max);
                    let _ = writeln!(out, "# range: {min} ..= {max}");
                    let _ = writeln!(out, "{} = {}", stringify!($field), toml_value(&self.$field));
                )+
                out
            }
        }
    };
}

/// How a value is written into the TOML file: fixed-point values as quoted decimals so they
/// round-trip exactly.
fn toml_value<T: RuleValue + 'static>(v: &T) -> String {
    if std::any::TypeId::of::<T>() == std::any::TypeId::of::<Fx>() {
        format!("\"{v}\"")
    } else {
        v.to_string()
    }
}

define_rules! {
    /// Maze width in cells (the tile grid is `2 * cells + 1` wide, walls included).
    maze_cells_w: u8 = 10, [2, 31];
    /// Maze height in cells (the tile grid is `2 * cells + 1` tall).
    maze_cells_h: u8 = 7, [2, 31];
    /// Percent of the interior walls left standing by the perfect maze that are knocked out
    /// to make loops.
    extra_openings_percent: u8 = 12, [0, 100];
    /// Percent of the remaining interior walls that are destructible blocks instead.
    block_percent: u8 = 18, [0, 100];
    /// Hit points of a destructible block; each projectile impact removes one.
    block_hp: u8 = 3, [1, 200];
    /// Half the side of a player's square wall-collision box.
    player_radius: Fx = lit("0.30"), [lit("0.10"), lit("0.45")];
    /// Radius of the circle players use to push each other apart (and to be hit).
    pushbox_radius: Fx = lit("0.30"), [lit("0.10"), lit("0.45")];
    /// Top running speed.
    max_speed: Fx = lit("0.10"), [lit("0.01"), lit("0.45")];
    /// Fraction of the gap between current and target velocity closed each tick.
    acceleration: Fx = lit("0.25"), [lit("0.01"), lit("1")];
    /// Stick magnitude (of 127) below which movement input is ignored.
    stick_deadzone: u8 = 24, [0, 120];
    /// Hit points at the start of a round.
    max_hp: u16 = 100, [1, 10000];
    /// Projectile speed. Collision is swept, so any speed in range is safe.
    projectile_speed: Fx = lit("0.30"), [lit("0.02"), lit("2")];
    /// Projectile radius (added to the pushbox radius for player hits).
    projectile_radius: Fx = lit("0.08"), [lit("0"), lit("0.25")];
    /// Ticks a projectile lives before it fizzles.
    projectile_life: u16 = 90, [1, 600];
    /// Damage a projectile deals.
    projectile_damage: u16 = 8, [0, 10000];
    /// Hitstun a projectile hit causes, in ticks.
    projectile_hitstun: u16 = 8, [0, 240];
    /// Speed a projectile hit knocks the victim back with.
    projectile_knockback: Fx = lit("0.08"), [lit("0"), lit("0.45")];
    /// Largest sideways deviation of a shot, as a fraction of its speed, drawn from the world RNG.
    shot_spread: Fx = lit("0.04"), [lit("0"), lit("0.5")];
    /// Ticks between two shots.
    shot_cooldown: u16 = 8, [1, 600];
    /// Shots in a full magazine.
    magazine: u16 = 6, [1, 255];
    /// Ticks a reload takes (starts automatically when the magazine is empty, or on demand).
    reload_ticks: u16 = 60, [1, 600];
    /// Melee startup frames (no hitbox yet).
    melee_startup: u16 = 5, [1, 60];
    /// Melee active frames (the hitbox is live).
    melee_active: u16 = 3, [1, 60];
    /// Melee recovery frames (no hitbox, cannot act).
    melee_recovery: u16 = 12, [0, 120];
    /// Distance from the attacker's centre to the centre of the melee hitbox, along the aim.
    melee_reach: Fx = lit("0.45"), [lit("0"), lit("1.5")];
    /// Radius of the melee hitbox.
    melee_radius: Fx = lit("0.35"), [lit("0.05"), lit("1")];
    /// Damage a melee hit deals.
    melee_damage: u16 = 18, [0, 10000];
    /// Hitstun a melee hit causes, in ticks. Shorter than the rest of the attacker's swing
    /// plus a new startup (2 + 12 + 5 by default), so a victim recovers with time to act before
    /// the next swing can land: a melee string can be escaped (tests/determinism/fight.rs).
    melee_hitstun: u16 = 12, [0, 240];
    /// Speed a melee hit knocks the victim back with.
    melee_knockback: Fx = lit("0.25"), [lit("0"), lit("0.45")];
    /// Hit-stop: ticks both fighters freeze when a melee hit lands (their timers, movement and
    /// actions pause; projectiles and everyone else go on). It gives a hit its weight without
    /// changing who acts first afterwards: both freeze equally.
    melee_hitstop: u16 = 6, [0, 30];
    /// Round wins needed to win the match.
    rounds_to_win: u8 = 2, [1, 9];
    /// Countdown before a round starts, in ticks (players cannot act).
    round_start_ticks: u16 = 60, [0, 600];
    /// Pause after a round is decided, in ticks, before the next one begins.
    round_end_ticks: u16 = 120, [1, 600];
    /// Longest a round may last, in ticks; at the limit the player with the most hit points
    /// wins it (equal hit points: a draw).
    round_time_limit: u32 = 3600, [60, 216_000];
    /// Most projectiles alive at once; a shot beyond it is refused and costs no ammo.
    max_projectiles: u16 = 4096, [1, 8192];
    /// Damage a rail (hitscan) hit deals.
    rail_damage: u16 = 30, [0, 10000];
    /// Hitstun a rail hit causes, in ticks.
    rail_hitstun: u16 = 10, [0, 240];
    /// Speed a rail hit knocks the victim back with.
    rail_knockback: Fx = lit("0.12"), [lit("0"), lit("0.45")];
    /// Length of the rail's ray from the shooter's centre.
    rail_range: Fx = lit("24"), [lit("1"), lit("62")];
    /// Ticks between two rail shots.
    rail_cooldown: u16 = 45, [1, 600];
    /// Rail charges when full; a shot spends one when it is accepted, hit or miss.
    rail_charges: u8 = 2, [1, 9];
    /// Ticks to regain one rail charge while not full.
    rail_recharge_ticks: u16 = 240, [1, 3600];
    /// How far back a rail shot may look, in ticks (12 = 200 ms): the snapshot keeps this many
    /// ticks (+ the present) of every player's hitbox pose, and an older view is clamped to
    /// the oldest pose kept. A longer window accepts older views but lets a victim be hit for
    /// longer after reaching cover on its own screen.
    pose_history_ticks: u8 = 12, [1, MAX_POSE_WINDOW];
}

impl Rules {
    fn validate_cross_field(&self) -> Result<(), Error> {
        // Melee never consults the tiles, so it must be unable to reach through one: a victim
        // behind a wall tile is at least `1 + 2 * player_radius` from the attacker's centre,
        // and the swing connects below `melee_reach + melee_radius + pushbox_radius`.
        let swing = self.melee_reach + self.melee_radius + self.pushbox_radius;
        let wall_gap = Strict(I16F16::ONE) + self.player_radius + self.player_radius;
        if swing > wall_gap {
            return Err(Error::RuleOutOfRange {
                field: "melee_reach",
                value: format!(
                    "{} (+ melee_radius {} + pushbox_radius {} = {swing})",
                    self.melee_reach, self.melee_radius, self.pushbox_radius
                ),
                min: "0".into(),
                max: format!("a total of 1 + 2 * player_radius = {wall_gap}"),
            });
        }
        Ok(())
    }

    /// A 64-bit hash of the rules (xxh3 over [`Rules::canonical_bytes`]). Two peers with
    /// equal hashes simulate identically.
    #[must_use]
    pub fn hash(&self) -> u64 {
        xxhash_rust::xxh3::xxh3_64(&self.canonical_bytes())
    }

    /// The canonical encoding of the rules (bincode: fixed-size little-endian integers, in
    /// declaration order): what [`Rules::hash`] hashes and what a peer sends at the handshake
    /// so a mismatch can name the rules that differ.
    #[must_use]
    pub fn canonical_bytes(&self) -> Vec<u8> {
        bincode::serialize(self).expect("Rules always serialize")
    }

    /// Reads [`Rules::canonical_bytes`] from an untrusted peer: `None` unless `bytes` is
    /// exactly one encoding of this build's rules (a peer with another engine may lay them out
    /// differently). The values are *not* range-checked: they are only for comparing.
    #[must_use]
    pub fn from_canonical_bytes(bytes: &[u8]) -> Option<Rules> {
        use bincode::Options as _;
        bincode::DefaultOptions::new()
            .with_fixint_encoding()
            .with_little_endian()
            .with_limit(1024)
            .deserialize(bytes)
            .ok()
    }
}

#[cfg(test)]
mod tests {

    /// Issue 18 item 9: a fixed-point value one step below its bound was refused as
    /// "0.1 is outside its range 0.1 ..= 0.45". Values and bounds are written exactly.
    #[test]
    fn a_value_just_past_a_fixed_point_bound_is_written_exactly() {
        let text = Rules::default().to_toml_string().replace(
            "player_radius = \"0.3\"",
            "player_radius = \"0.0999908447265625\"",
        );
        assert!(
            text.contains("0.0999908447265625"),
            "the rules file names the field"
        );
        let err = Rules::from_toml_str(&text)
            .expect_err("below the bound")
            .to_string();
        assert!(
            err.contains("0.0999908447265625") && err.contains("0.100006103515625"),
            "{err}"
        );
        assert_eq!(RuleValue::exact(&lit("0.25")), "0.25");
        assert_eq!(RuleValue::exact(&lit("3")), "3");
        assert_eq!(RuleValue::exact(&lit("-1.5")), "-1.5");
        assert_eq!(
            RuleValue::exact(&Strict(I16F16::from_bits(1))),
            "0.0000152587890625"
        );
    }

    use super::*;
    use crate::fx::fx_bits;

    #[test]
    fn canonical_bytes_round_trip_and_differences_name_each_changed_rule() {
        let ours = Rules::default();
        let theirs = Rules {
            melee_damage: 30,
            max_speed: lit("0.2"),
            pose_history_ticks: 3,
            ..Rules::default()
        };
        let bytes = theirs.canonical_bytes();
        assert_eq!(Rules::from_canonical_bytes(&bytes), Some(theirs.clone()));
        assert_eq!(Rules::from_canonical_bytes(&bytes[..bytes.len() - 1]), None);
        let mut longer = bytes.clone();
        longer.push(0);
        assert_eq!(Rules::from_canonical_bytes(&longer), None);
        assert_eq!(xxhash_rust::xxh3::xxh3_64(&bytes), theirs.hash());
        assert_eq!(
            ours.differences(&theirs),
            vec![
                ("max_speed", "0.1".to_string(), "0.2".to_string()),
                ("melee_damage", "18".to_string(), "30".to_string()),
                ("pose_history_ticks", "12".to_string(), "3".to_string()),
            ]
        );
        assert!(ours.differences(&ours.clone()).is_empty());
    }

    #[test]
    fn defaults_are_valid_and_round_trip_through_toml() {
        let rules = Rules::default();
        rules.validate().expect("defaults validate");
        let text = rules.to_toml_string();
        assert_eq!(Rules::from_toml_str(&text).expect("parses"), rules);
    }

    #[test]
    fn shipped_rules_file_equals_defaults() {
        let text = include_str!("../../assets/rules.toml");
        assert_eq!(
            Rules::from_toml_str(text).expect("shipped file parses"),
            Rules::default()
        );
        assert_eq!(
            text,
            Rules::default().to_toml_string(),
            "regenerate assets/rules.toml"
        );
    }

    #[test]
    fn missing_field_is_named() {
        let text = Rules::default()
            .to_toml_string()
            .replace("max_speed = \"0.1\"\n", "");
        let err = Rules::from_toml_str(&text).unwrap_err().to_string();
        assert!(err.contains("max_speed"), "{err}");
    }

    #[test]
    fn unknown_field_is_named() {
        let text = Rules::default().to_toml_string() + "gravity = 3\n";
        let err = Rules::from_toml_str(&text).unwrap_err().to_string();
        assert!(err.contains("gravity"), "{err}");
    }

    #[test]
    fn out_of_range_field_is_named() {
        let text = Rules::default()
            .to_toml_string()
            .replace("rounds_to_win = 2", "rounds_to_win = 12");
        let err = Rules::from_toml_str(&text).unwrap_err();
        assert!(
            matches!(
                err,
                Error::RuleOutOfRange {
                    field: "rounds_to_win",
                    ..
                }
            ),
            "{err}"
        );
        let text = Rules::default()
            .to_toml_string()
            .replace("block_hp = 3", "block_hp = -3");
        let err = Rules::from_toml_str(&text).unwrap_err();
        assert!(
            matches!(
                err,
                Error::RuleOutOfRange {
                    field: "block_hp",
                    ..
                }
            ),
            "{err}"
        );
        let text = Rules::default()
            .to_toml_string()
            .replace("max_speed = \"0.1\"", "max_speed = 0.9");
        let err = Rules::from_toml_str(&text).unwrap_err();
        assert!(
            matches!(
                err,
                Error::RuleOutOfRange {
                    field: "max_speed",
                    ..
                }
            ),
            "{err}"
        );
    }

    /// A malformed fixed-point value in a rules file is an error naming the field, never a panic.
    #[test]
    fn malformed_fixed_point_rule_is_an_error_not_a_panic() {
        let base = Rules::default().to_toml_string();
        for bad in [
            "\"fast\"",
            "nan",
            "inf",
            "-inf",
            "\"nan\"",
            "\"0x10\"",
            "40000",
            "-40000",
            "\"40000\"",
            "\"1e400\"",
            "1e300",
            "\"\"",
            "\"-\"",
            "\"0.1.2\"",
            "\" \"",
        ] {
            let text = base.replace("max_speed = \"0.1\"", &format!("max_speed = {bad}"));
            assert_ne!(text, base);
            let err = Rules::from_toml_str(&text).expect_err(bad).to_string();
            assert!(err.contains("max_speed"), "{bad}: {err}");
        }
    }

    /// An integer that does not even fit a rule's type is reported against the rule's range.
    #[test]
    fn integer_beyond_its_type_reports_the_rules_range() {
        let text = Rules::default()
            .to_toml_string()
            .replace("block_hp = 3", "block_hp = 300");
        let err = Rules::from_toml_str(&text).unwrap_err();
        assert_eq!(
            err,
            Error::RuleOutOfRange {
                field: "block_hp",
                value: "300".into(),
                min: "1".into(),
                max: "200".into(),
            }
        );
    }

    /// Fixed-point values decoded through serde (bincode, TOML) are raw bits or an error, never
    /// a panic; out-of-range bits are then refused by validation.
    #[test]
    fn fixed_point_through_serde_is_an_error_not_a_panic() {
        for bits in [i32::MIN, -1, i32::MAX] {
            let rules = Rules {
                max_speed: fx_bits(bits),
                ..Rules::default()
            };
            let bytes = bincode::serialize(&rules).expect("encodes");
            let back: Rules = bincode::deserialize(&bytes).expect("any bits decode");
            assert_eq!(back, rules);
            assert!(back.validate().is_err());
        }
        for text in ["v = \"fast\"", "v = nan", "v = \"\"", "v = 40000"] {
            #[derive(Debug, Deserialize)]
            #[allow(dead_code)]
            struct One {
                v: Fx,
            }
            assert!(toml::from_str::<One>(text).is_err(), "{text}");
        }
    }

    #[test]
    fn float_and_string_literals_agree() {
        let a = Rules::default()
            .to_toml_string()
            .replace("max_speed = \"0.1\"", "max_speed = 0.1");
        assert_eq!(Rules::from_toml_str(&a).expect("parses"), Rules::default());
    }

    /// A swing that could reach a victim behind a wall tile is refused: accepted exactly at
    /// `1 + 2 * player_radius`, refused one bit beyond, and the refusal names `melee_reach`.
    #[test]
    fn a_melee_that_could_reach_through_a_wall_is_refused() {
        let base = Rules::default();
        let wall_gap = Strict(I16F16::ONE) + base.player_radius + base.player_radius;
        let at_the_wall = Rules {
            melee_reach: wall_gap - base.melee_radius - base.pushbox_radius,
            ..base.clone()
        };
        at_the_wall
            .validate()
            .expect("a swing that just reaches the wall's far side");
        let through = Rules {
            melee_reach: at_the_wall.melee_reach + fx_bits(1),
            ..base
        };
        match through.validate() {
            Err(Error::RuleOutOfRange { field, .. }) => assert_eq!(field, "melee_reach"),
            other => panic!("a swing through the wall was not refused: {other:?}"),
        }
    }

    /// Every field, not a sample of them, is in the hash: each is set (through the rules file,
    /// so no field can be skipped) to the end of its range that differs from the default and
    /// still validates, and the hash must change.
    #[test]
    fn hash_changes_with_any_field() {
        let base = Rules::default();
        let text = base.to_toml_string();
        let lines: Vec<&str> = text.lines().collect();
        for field in Rules::FIELDS {
            let at = lines
                .iter()
                .position(|l| l.starts_with(&format!("{field} = ")))
                .unwrap_or_else(|| panic!("{field} is in the rules file"));
            let range = lines[at - 1]
                .strip_prefix("# range: ")
                .unwrap_or_else(|| panic!("{field} has its range above it"));
            let (min, max) = range.split_once(" ..= ").expect("min ..= max");
            let quoted = lines[at].ends_with('"');
            let changed = [min, max].into_iter().find_map(|v| {
                let value = if quoted {
                    format!("\"{v}\"")
                } else {
                    v.to_string()
                };
                let mut edited = lines.clone();
                let line = format!("{field} = {value}");
                edited[at] = &line;
                Rules::from_toml_str(&edited.join("\n"))
                    .ok()
                    .filter(|r| *r != base)
            });
            let changed = changed.unwrap_or_else(|| {
                panic!("{field}: neither end of its range ({range}) is another valid value")
            });
            assert_ne!(base.hash(), changed.hash(), "{field} is not in the hash");
            let named: Vec<&str> = base.differences(&changed).iter().map(|d| d.0).collect();
            assert_eq!(
                named,
                [*field],
                "differences names exactly the changed rule"
            );
        }
        assert!(Rules::FIELDS.len() >= 42, "the loop above saw every rule");
    }
}
