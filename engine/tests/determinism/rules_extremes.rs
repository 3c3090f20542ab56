//! Every valid rules file plays: with each field at its minimum and at its maximum, and with
//! random combinations of extremes, a bot match steps without panicking and a snapshot taken
//! mid-match round-trips through its bytes and replays to the same state.

use engine::{Bot, InputCmd, Rules, World, WorldSnapshot};
use proptest::prelude::*;

/// One rule as the rules file writes it: its name, its default (as written) and its range.
struct Field {
    name: String,
    default: String,
    min: String,
    max: String,
}

/// The fields of the rules file, read from the file `Rules::to_toml_string` writes (each value
/// is preceded by a `# range: MIN ..= MAX` comment).
fn fields() -> Vec<Field> {
    let text = Rules::default().to_toml_string();
    let mut out = Vec::new();
    let mut range = None;
    for line in text.lines() {
        if let Some(r) = line.strip_prefix("# range: ") {
            let (min, max) = r.split_once(" ..= ").expect("range");
            range = Some((min.to_owned(), max.to_owned()));
        } else if let Some((name, value)) =
            line.split_once(" = ").filter(|_| !line.starts_with('#'))
        {
            let (min, max) = range.take().expect("every field has a range");
            // Fixed-point values are written quoted; their bounds must be too.
            let quote = |v: String| {
                if value.starts_with('"') {
                    format!("\"{v}\"")
                } else {
                    v
                }
            };
            out.push(Field {
                name: name.to_owned(),
                default: value.to_owned(),
                min: quote(min),
                max: quote(max),
            });
        }
    }
    assert_eq!(out.len(), Rules::FIELDS.len());
    out
}

/// The rules with each field set to `pick(field)`, or the validation error.
fn rules_with(
    fields: &[Field],
    pick: impl Fn(usize, &Field) -> String,
) -> Result<Rules, engine::Error> {
    let text: String = fields
        .iter()
        .enumerate()
        .map(|(i, f)| format!("{} = {}\n", f.name, pick(i, f)))
        .collect();
    Rules::from_toml_str(&text)
}

/// Whether `e` is the cross-field limit (melee must not reach through a wall tile), the only
/// way a rules file with every field in its range can be refused.
fn is_melee_reach_limit(e: &engine::Error) -> bool {
    matches!(
        e,
        engine::Error::RuleOutOfRange {
            field: "melee_reach",
            max,
            ..
        } if max.starts_with("a total of")
    )
}

/// A bot match of `ticks` ticks; the state at `ticks / 2` goes through its bytes into a fresh
/// world, which replays the second half to the same final state.
fn bot_match_round_trips(rules: &Rules, seed: u64, players: usize, ticks: u32) {
    let mut world = World::new(rules.clone(), seed, players).expect("valid rules build a world");
    let mut bots: Vec<Bot> = (0..players as u8)
        .map(|id| Bot::new(id, seed ^ u64::from(id)))
        .collect();
    let mut saved = None;
    let mut inputs_after = Vec::new();
    for t in 0..ticks {
        if t == ticks / 2 {
            saved = Some(world.state().to_bytes());
        }
        let inputs: Vec<InputCmd> = bots.iter_mut().map(|b| b.think(&world)).collect();
        world.step(&inputs).expect("step");
        if saved.is_some() {
            inputs_after.push(inputs);
        }
    }
    let snap = WorldSnapshot::from_bytes(&saved.expect("saved")).expect("decodes");
    let mut replay = World::from_snapshot(rules.clone(), &snap).expect("restores");
    for inputs in &inputs_after {
        replay.step(inputs).expect("replay step");
    }
    assert_eq!(replay.state(), world.state(), "replay diverged");
    WorldSnapshot::from_bytes(&world.state().to_bytes()).expect("final state decodes");
    World::from_snapshot(rules.clone(), world.state()).expect("final state restores");
}

/// Each field alone at its minimum, then at its maximum (where the cross-field limit allows).
#[test]
fn every_rule_at_its_min_and_max_plays_and_round_trips() {
    let fields = fields();
    for (k, field) in fields.iter().enumerate() {
        for bound in [&field.min, &field.max] {
            let rules = rules_with(&fields, |i, f| {
                if i == k {
                    bound.clone()
                } else {
                    f.default.clone()
                }
            });
            match rules {
                Ok(rules) => bot_match_round_trips(&rules, k as u64, 2, 900),
                Err(e) => assert!(is_melee_reach_limit(&e), "{} = {bound}: {e}", field.name),
            }
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 32, ..ProptestConfig::default() })]

    /// Random combinations of minimum, default and maximum values, 2–4 players.
    #[test]
    fn random_extreme_rules_play_and_round_trip(
        picks in prop::collection::vec(0u8..3, Rules::FIELDS.len()),
        seed in any::<u64>(),
        players in 2usize..=4,
    ) {
        let fields = fields();
        let rules = rules_with(&fields, |i, f| match picks[i] {
            0 => f.min.clone(),
            1 => f.default.clone(),
            _ => f.max.clone(),
        });
        match rules {
            Ok(rules) => bot_match_round_trips(&rules, seed, players, 700),
            Err(e) => prop_assert!(is_melee_reach_limit(&e), "{}", e),
        }
    }
}
