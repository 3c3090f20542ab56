//! Field-level differences between two snapshots: `players[1].pos.x: 19.50000 vs 19.50002`.
//!
//! The snapshot is walked through its `Serialize` implementation by a small serializer that
//! records every leaf value under its path, so the diff never falls behind the snapshot's
//! fields. It serves any game: whatever a game's snapshot serializes, the diff walks. Fixed-point
//! numbers (serialized by `fixed` as a struct holding `bits`) are shown as 16.16 decimals.

use fixed::types::I16F16;
use serde::ser::{self, Serialize};
use std::fmt;

/// One differing field.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FieldDiff {
    /// Path from the snapshot root, e.g. `players[1].pos.x`.
    pub path: String,
    /// Value in the first snapshot (`<absent>` if the field does not exist there).
    pub left: String,
    /// Value in the second.
    pub right: String,
}

impl fmt::Display for FieldDiff {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {} vs {}", self.path, self.left, self.right)
    }
}

/// Every leaf of a snapshot (or any serializable value) as `(path, value)`, in serialization
/// order.
#[must_use]
pub fn flatten<S: Serialize + ?Sized>(snapshot: &S) -> Vec<(String, String)> {
    let mut out = Flattener {
        path: Vec::new(),
        leaves: Vec::new(),
    };
    snapshot
        .serialize(&mut out)
        .expect("flattening cannot fail");
    out.leaves
}

/// The fields that differ between two snapshots, in the first snapshot's order, then fields
/// only the second has.
#[must_use]
pub fn diff<S: Serialize + ?Sized>(a: &S, b: &S) -> Vec<FieldDiff> {
    let (fa, fb) = (flatten(a), flatten(b));
    let mut out = Vec::new();
    for (path, left) in &fa {
        match fb.iter().find(|(p, _)| p == path) {
            Some((_, right)) if right == left => {}
            Some((_, right)) => out.push(FieldDiff {
                path: path.clone(),
                left: left.clone(),
                right: right.clone(),
            }),
            None => out.push(FieldDiff {
                path: path.clone(),
                left: left.clone(),
                right: "<absent>".into(),
            }),
        }
    }
    for (path, right) in &fb {
        if !fa.iter().any(|(p, _)| p == path) {
            out.push(FieldDiff {
                path: path.clone(),
                left: "<absent>".into(),
                right: right.clone(),
            });
        }
    }
    out
}

#[derive(Debug)]
struct Flattener {
    path: Vec<String>,
    leaves: Vec<(String, String)>,
}

#[derive(Debug)]
struct Never;

impl fmt::Display for Never {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("unreachable")
    }
}

impl std::error::Error for Never {}

impl ser::Error for Never {
    fn custom<T: fmt::Display>(_: T) -> Never {
        Never
    }
}

impl Flattener {
    fn leaf(&mut self, value: String) -> Result<(), Never> {
        let mut path = String::new();
        for part in &self.path {
            if !part.starts_with('[') && !path.is_empty() {
                path.push('.');
            }
            path.push_str(part);
        }
        self.leaves.push((path, value));
        Ok(())
    }

    fn nested<T: ?Sized + Serialize>(&mut self, part: String, value: &T) -> Result<(), Never> {
        self.path.push(part);
        value.serialize(&mut *self)?;
        self.path.pop();
        Ok(())
    }
}

/// Collects a fixed-point number's `bits` field.
struct Seq<'a> {
    f: &'a mut Flattener,
    index: usize,
}

struct Fields<'a> {
    f: &'a mut Flattener,
    fixed: bool,
}

macro_rules! leaf_as_display {
    ($($name:ident: $t:ty),*) => {$(
        fn $name(self, v: $t) -> Result<(), Never> { self.leaf(v.to_string()) }
    )*};
}

impl<'a> ser::Serializer for &'a mut Flattener {
    type Ok = ();
    type Error = Never;
    type SerializeSeq = Seq<'a>;
    type SerializeTuple = Seq<'a>;
    type SerializeTupleStruct = Seq<'a>;
    type SerializeTupleVariant = Seq<'a>;
    type SerializeMap = Seq<'a>;
    type SerializeStruct = Fields<'a>;
    type SerializeStructVariant = Fields<'a>;

    leaf_as_display!(serialize_bool: bool, serialize_i8: i8, serialize_i16: i16, serialize_i32: i32,
        serialize_i64: i64, serialize_u8: u8, serialize_u16: u16, serialize_u32: u32,
        serialize_u64: u64, serialize_char: char, serialize_str: &str);

    fn serialize_f32(self, v: f32) -> Result<(), Never> {
        self.leaf(v.to_string())
    }
    fn serialize_f64(self, v: f64) -> Result<(), Never> {
        self.leaf(v.to_string())
    }
    fn serialize_bytes(self, v: &[u8]) -> Result<(), Never> {
        self.leaf(format!("{v:?}"))
    }
    fn serialize_none(self) -> Result<(), Never> {
        self.leaf("None".into())
    }
    fn serialize_some<T: ?Sized + Serialize>(self, value: &T) -> Result<(), Never> {
        value.serialize(self)
    }
    fn serialize_unit(self) -> Result<(), Never> {
        self.leaf("()".into())
    }
    fn serialize_unit_struct(self, name: &'static str) -> Result<(), Never> {
        self.leaf(name.into())
    }
    fn serialize_unit_variant(
        self,
        _: &'static str,
        _: u32,
        variant: &'static str,
    ) -> Result<(), Never> {
        self.leaf(variant.into())
    }
    fn serialize_newtype_struct<T: ?Sized + Serialize>(
        self,
        _: &'static str,
        value: &T,
    ) -> Result<(), Never> {
        value.serialize(self)
    }
    fn serialize_newtype_variant<T: ?Sized + Serialize>(
        self,
        _: &'static str,
        _: u32,
        variant: &'static str,
        value: &T,
    ) -> Result<(), Never> {
        self.nested(variant.into(), value)
    }
    fn serialize_seq(self, _: Option<usize>) -> Result<Seq<'a>, Never> {
        Ok(Seq { f: self, index: 0 })
    }
    fn serialize_tuple(self, _: usize) -> Result<Seq<'a>, Never> {
        Ok(Seq { f: self, index: 0 })
    }
    fn serialize_tuple_struct(self, _: &'static str, _: usize) -> Result<Seq<'a>, Never> {
        Ok(Seq { f: self, index: 0 })
    }
    fn serialize_tuple_variant(
        self,
        _: &'static str,
        _: u32,
        variant: &'static str,
        _: usize,
    ) -> Result<Seq<'a>, Never> {
        self.path.push(variant.into());
        Ok(Seq { f: self, index: 0 })
    }
    fn serialize_map(self, _: Option<usize>) -> Result<Seq<'a>, Never> {
        Ok(Seq { f: self, index: 0 })
    }
    fn serialize_struct(self, name: &'static str, _: usize) -> Result<Fields<'a>, Never> {
        // `fixed` serializes its numbers as a struct named after the type with one `bits` field.
        Ok(Fields {
            f: self,
            fixed: name.starts_with("FixedI"),
        })
    }
    fn serialize_struct_variant(
        self,
        _: &'static str,
        _: u32,
        variant: &'static str,
        _: usize,
    ) -> Result<Fields<'a>, Never> {
        self.path.push(variant.into());
        Ok(Fields {
            f: self,
            fixed: false,
        })
    }
}

impl ser::SerializeSeq for Seq<'_> {
    type Ok = ();
    type Error = Never;
    fn serialize_element<T: ?Sized + Serialize>(&mut self, value: &T) -> Result<(), Never> {
        self.f.nested(format!("[{}]", self.index), value)?;
        self.index += 1;
        Ok(())
    }
    fn end(self) -> Result<(), Never> {
        Ok(())
    }
}

impl ser::SerializeTuple for Seq<'_> {
    type Ok = ();
    type Error = Never;
    fn serialize_element<T: ?Sized + Serialize>(&mut self, value: &T) -> Result<(), Never> {
        ser::SerializeSeq::serialize_element(self, value)
    }
    fn end(self) -> Result<(), Never> {
        Ok(())
    }
}

impl ser::SerializeTupleStruct for Seq<'_> {
    type Ok = ();
    type Error = Never;
    fn serialize_field<T: ?Sized + Serialize>(&mut self, value: &T) -> Result<(), Never> {
        ser::SerializeSeq::serialize_element(self, value)
    }
    fn end(self) -> Result<(), Never> {
        Ok(())
    }
}

impl ser::SerializeTupleVariant for Seq<'_> {
    type Ok = ();
    type Error = Never;
    fn serialize_field<T: ?Sized + Serialize>(&mut self, value: &T) -> Result<(), Never> {
        ser::SerializeSeq::serialize_element(self, value)
    }
    fn end(self) -> Result<(), Never> {
        self.f.path.pop();
        Ok(())
    }
}

impl ser::SerializeMap for Seq<'_> {
    type Ok = ();
    type Error = Never;
    fn serialize_key<T: ?Sized + Serialize>(&mut self, _: &T) -> Result<(), Never> {
        Ok(())
    }
    fn serialize_value<T: ?Sized + Serialize>(&mut self, value: &T) -> Result<(), Never> {
        ser::SerializeSeq::serialize_element(self, value)
    }
    fn end(self) -> Result<(), Never> {
        Ok(())
    }
}

impl ser::SerializeStruct for Fields<'_> {
    type Ok = ();
    type Error = Never;
    fn serialize_field<T: ?Sized + Serialize>(
        &mut self,
        key: &'static str,
        value: &T,
    ) -> Result<(), Never> {
        if self.fixed {
            // The one field is the raw bits: show the number instead.
            let mut probe = Flattener {
                path: Vec::new(),
                leaves: Vec::new(),
            };
            value.serialize(&mut probe)?;
            let bits: i32 = probe
                .leaves
                .first()
                .and_then(|(_, v)| v.parse().ok())
                .unwrap_or(0);
            return self.f.leaf(format!("{:.5}", I16F16::from_bits(bits)));
        }
        self.f.nested(key.into(), value)
    }
    fn end(self) -> Result<(), Never> {
        Ok(())
    }
}

impl ser::SerializeStructVariant for Fields<'_> {
    type Ok = ();
    type Error = Never;
    fn serialize_field<T: ?Sized + Serialize>(
        &mut self,
        key: &'static str,
        value: &T,
    ) -> Result<(), Never> {
        ser::SerializeStruct::serialize_field(self, key, value)
    }
    fn end(self) -> Result<(), Never> {
        self.f.path.pop();
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use engine::{Rules, World};

    #[test]
    fn names_the_exact_field_and_both_values() {
        let world = World::new(Rules::default(), 1, 2).expect("world");
        let a = world.snapshot();
        let mut b = a.clone();
        b.players[1].pos.x += engine::fx_bits(1);
        let d = diff(&a, &b);
        assert_eq!(d.len(), 1, "{d:?}");
        assert_eq!(d[0].path, "players[1].pos.x");
        assert_eq!(d[0].to_string(), "players[1].pos.x: 19.50000 vs 19.50002");
    }

    #[test]
    fn covers_nested_and_optional_fields() {
        let world = World::new(Rules::default(), 1, 2).expect("world");
        let a = world.snapshot();
        let mut b = a.clone();
        b.round.last_winner = Some(1);
        b.rng.state ^= 1;
        b.maze.tiles[0] = engine::Tile::FLOOR;
        let paths: Vec<String> = diff(&a, &b).into_iter().map(|d| d.path).collect();
        assert!(paths.contains(&"rng.state".to_string()), "{paths:?}");
        assert!(
            paths.contains(&"round.last_winner".to_string()),
            "{paths:?}"
        );
        assert!(paths.contains(&"maze.tiles[0]".to_string()), "{paths:?}");
        assert_eq!(flatten(&a).len(), flatten(&b).len());
    }

    #[derive(serde::Serialize)]
    struct Unit;

    #[derive(serde::Serialize)]
    struct Newtype(u8);

    #[derive(serde::Serialize)]
    struct Pair(u8, i16);

    #[derive(serde::Serialize)]
    enum Kind {
        Idle,
        Wrapped(u8),
        Both(u8, u8),
        Named { a: u8 },
    }

    /// Serializes as bytes (a `&[u8]` field would serialize as a sequence).
    struct Bytes(&'static [u8]);

    impl Serialize for Bytes {
        fn serialize<S: ser::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
            s.serialize_bytes(self.0)
        }
    }

    /// One field of every kind serde has, then a plain one.
    #[derive(serde::Serialize)]
    struct Every {
        flag: bool,
        single: f32,
        double: f64,
        bytes: Bytes,
        none: Option<u8>,
        some: Option<u8>,
        unit: (),
        unit_struct: Unit,
        newtype: Newtype,
        idle: Kind,
        wrapped: Kind,
        tuple: (u8, u8),
        pair: Pair,
        both: Kind,
        named: Kind,
        last: u8,
    }

    /// Whatever a game's snapshot is made of, every leaf is listed under its path (fields
    /// joined by `.`, elements by `[i]`, an enum's variant named), with its value; the path of
    /// a field after a variant is not changed by it. A map's values are listed, in order.
    #[test]
    fn every_kind_of_serde_value_is_a_leaf_under_its_path() {
        let every = Every {
            flag: true,
            single: 1.5,
            double: -0.25,
            bytes: Bytes(&[1, 2]),
            none: None,
            some: Some(3),
            unit: (),
            unit_struct: Unit,
            newtype: Newtype(9),
            idle: Kind::Idle,
            wrapped: Kind::Wrapped(7),
            tuple: (4, 5),
            pair: Pair(1, -2),
            both: Kind::Both(8, 6),
            named: Kind::Named { a: 6 },
            last: 0,
        };
        let leaves = flatten(&every);
        let leaves: Vec<(&str, &str)> = leaves.iter().map(|(p, v)| (&**p, &**v)).collect();
        assert_eq!(
            leaves,
            [
                ("flag", "true"),
                ("single", "1.5"),
                ("double", "-0.25"),
                ("bytes", "[1, 2]"),
                ("none", "None"),
                ("some", "3"),
                ("unit", "()"),
                ("unit_struct", "Unit"),
                ("newtype", "9"),
                ("idle", "Idle"),
                ("wrapped.Wrapped", "7"),
                ("tuple[0]", "4"),
                ("tuple[1]", "5"),
                ("pair[0]", "1"),
                ("pair[1]", "-2"),
                ("both.Both[0]", "8"),
                ("both.Both[1]", "6"),
                ("named.Named.a", "6"),
                ("last", "0"),
            ]
        );
        // A map's values are leaves too, in the map's order.
        let map: std::collections::BTreeMap<u8, u8> = [(2, 20), (1, 10)].into_iter().collect();
        let values: Vec<String> = flatten(&map).into_iter().map(|(_, v)| v).collect();
        assert_eq!(values, ["10", "20"]);
    }

    /// A field only one side has is named, `<absent>` on the other side: the first side's
    /// fields come first, in order, then those only the second has.
    #[test]
    fn a_field_only_one_side_has_is_named_absent_on_the_other() {
        let (short, long) = (vec![1u8, 2], vec![1u8, 3, 4]);
        let lines = |a: &Vec<u8>, b: &Vec<u8>| -> Vec<String> {
            diff(a, b).iter().map(ToString::to_string).collect()
        };
        assert_eq!(lines(&short, &long), ["[1]: 2 vs 3", "[2]: <absent> vs 4"]);
        assert_eq!(lines(&long, &short), ["[1]: 3 vs 2", "[2]: 4 vs <absent>"]);
    }
}
