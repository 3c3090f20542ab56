//! The contract checks can fail: a toy game with one deliberate flaw at a time is refused by
//! the check that names that flaw, and the flawless toy passes every check.

use game_api::{conformance, Game, SectionHash, StepObserver, Tick};
use serde::{Deserialize, Serialize};

/// The defect a toy is built with (its rules: they reach `new`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Flaw {
    None,
    /// A field that changes the future is not in the snapshot.
    HiddenState,
    /// `restore` keeps the current state.
    RestoreIgnores,
    /// `restore_saved` keeps the current state.
    RestoreSavedIgnores,
    /// The observer is not called after the second phase.
    TraceSkipsPhase,
    /// `debug_perturb` changes nothing.
    PerturbUnseen,
    /// The perturbation lands in a field the next phase resets.
    PerturbOverwritten,
    /// The events of a restored game differ from the original's.
    EventsDiffer,
    /// `player_count` says one player too many.
    PlayerCount,
    /// `rules()` answers other rules than those given.
    OtherRules,
    /// `rules_from_bytes` does not read `rules_to_bytes`.
    RulesBytes,
    /// The step refuses tick 5.
    StepRefuses,
    /// `state_equals` calls every state equal.
    StateEqualsLies,
    /// `state_equals` compares the ticks only.
    StateEqualsTickOnly,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
struct ToyState {
    tick: Tick,
    totals: Vec<i64>,
    /// Reset by the second phase every step.
    scratch: i64,
    /// Set by a restore: a restored toy with `EventsDiffer` reports other events.
    restored: bool,
}

/// `NAMES`: 1 names two phases alike; 2 has no phases; 3 has one phase too many, 4 as many
/// as allowed. `S`: 1 names two sections alike, 2 builds a hash from too few sections, 3 has a
/// section name with a space; 4 reads a snapshot's tick one late, 5 its hash without the
/// clock (what a log reader sees without a game).
#[derive(Clone, Debug)]
struct Toy<const NAMES: u8, const S: u8> {
    flaw: Flaw,
    state: ToyState,
    hidden: i64,
    events: Vec<(Tick, u8)>,
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
struct ToyHash<const S: u8>(u64, [u64; 2]);

impl<const S: u8> SectionHash for ToyHash<S> {
    const SECTIONS: &'static [&'static str] = match S {
        1 => &["totals", "totals"],
        3 => &["totals", "the clock"],
        _ => &["totals", "clock"],
    };
    fn combined(&self) -> u64 {
        self.0
    }
    fn section(&self, i: usize) -> u64 {
        self.1.get(i).copied().unwrap_or(0)
    }
    fn from_sections(s: &[u64]) -> Option<ToyHash<S>> {
        let s: [u64; 2] = match (S, s) {
            (2, [a]) => [*a, 0],
            _ => s.try_into().ok()?,
        };
        Some(ToyHash(s[0].rotate_left(7) ^ s[1], s))
    }
}

/// The toy's state hash; `clock: false` leaves the tick out.
fn toy_hash<const S: u8>(state: &ToyState, clock: bool) -> ToyHash<S> {
    let totals = state.totals.iter().fold(0u64, |h, &t| mix(h ^ t as u64));
    let tick = if clock { u64::from(state.tick) } else { 0 };
    let rest = mix(tick) ^ mix(state.scratch as u64);
    ToyHash::from_sections(&[totals, rest]).expect("two")
}

fn mix(x: u64) -> u64 {
    let x = (x ^ (x >> 31)).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    x ^ (x >> 29)
}

impl<const NAMES: u8, const S: u8> Game for Toy<NAMES, S> {
    const NAME: &'static str = "toy";
    const VERSION: &'static str = "1";
    const SNAPSHOT_FORMAT: u32 = 1;
    const MAX_SNAPSHOT_BYTES: u64 = 1024;
    const MAX_PLAYERS: usize = 4;
    const PHASES: &'static [&'static str] = match NAMES {
        1 => &["push", "push"],
        2 => &[],
        3 => &[
            "a", "b", "c", "d", "e", "f", "g", "h", "i", "j", "k", "l", "m", "n", "o", "p", "q",
        ],
        4 => &[
            "a", "b", "c", "d", "e", "f", "g", "h", "i", "j", "k", "l", "m", "n", "o", "p",
        ],
        _ => &["push", "clock"],
    };
    type Input = i8;
    type Rules = Flaw;
    type Snapshot = ToyState;
    type Event = (Tick, u8);
    type Audit = (Tick, u8);
    type EventKey = (Tick, u8);
    type Hash = ToyHash<S>;
    type Phase = &'static str;
    type Error = std::fmt::Error;

    fn new(flaw: Flaw, _: u64, players: usize) -> Result<Self, std::fmt::Error> {
        let state = ToyState {
            tick: 0,
            totals: vec![0; players],
            scratch: 0,
            restored: false,
        };
        Ok(Toy {
            flaw,
            state,
            hidden: 0,
            events: Vec::new(),
        })
    }
    fn from_snapshot(flaw: Flaw, s: &ToyState) -> Result<Self, std::fmt::Error> {
        let mut toy = Toy::new(flaw, 0, s.totals.len())?;
        toy.restore(s)?;
        Ok(toy)
    }
    fn restore(&mut self, s: &ToyState) -> Result<(), std::fmt::Error> {
        if self.flaw != Flaw::RestoreIgnores {
            self.state.clone_from(s);
            self.state.restored = true;
        }
        Ok(())
    }
    fn restore_saved(&mut self, s: &ToyState) -> Result<(), std::fmt::Error> {
        if self.flaw == Flaw::RestoreSavedIgnores {
            return Ok(());
        }
        self.restore(s)
    }
    fn save_into(&self, out: &mut ToyState) {
        out.clone_from(&self.state);
        out.restored = false;
    }
    fn snapshot(&self) -> ToyState {
        let mut s = self.state.clone();
        s.restored = false;
        s
    }
    fn state_equals(&self, snapshot: &ToyState) -> bool {
        match self.flaw {
            Flaw::StateEqualsLies => true,
            Flaw::StateEqualsTickOnly => self.state.tick == snapshot.tick,
            _ => self.snapshot() == *snapshot,
        }
    }
    fn tick(&self) -> Tick {
        self.state.tick
    }
    fn player_count(&self) -> usize {
        self.state.totals.len() + usize::from(self.flaw == Flaw::PlayerCount)
    }
    fn rules(&self) -> &Flaw {
        if self.flaw == Flaw::OtherRules {
            &Flaw::None
        } else {
            &self.flaw
        }
    }
    fn state_hash(&self) -> ToyHash<S> {
        toy_hash(&self.state, true)
    }
    fn snapshot_hash(state: &ToyState) -> ToyHash<S> {
        toy_hash(state, S != 5)
    }
    fn snapshot_tick(state: &ToyState) -> Tick {
        state.tick + u32::from(S == 4)
    }
    fn step_observed<O: StepObserver<Self>>(
        &mut self,
        inputs: &[i8],
        observer: &mut O,
    ) -> Result<&[(Tick, u8)], std::fmt::Error> {
        if inputs.len() != self.state.totals.len()
            || (self.flaw == Flaw::StepRefuses && self.state.tick == 5)
        {
            return Err(std::fmt::Error);
        }
        self.events.clear();
        for (slot, (total, &push)) in self.state.totals.iter_mut().zip(inputs).enumerate() {
            *total += i64::from(push) + self.hidden;
            if push != 0 {
                self.events.push((self.state.tick, slot as u8));
            }
        }
        if self.flaw == Flaw::EventsDiffer && self.state.restored {
            self.events.push((self.state.tick, 9));
        }
        if self.flaw == Flaw::HiddenState {
            self.hidden += 1;
        }
        observer.after_phase(0, self);
        self.state.scratch = 0;
        self.state.tick += 1;
        if self.flaw != Flaw::TraceSkipsPhase {
            observer.after_phase(1, self);
        }
        Ok(&self.events)
    }
    fn last_events(&self) -> &[(Tick, u8)] {
        &self.events
    }
    fn debug_perturb(&mut self) {
        match self.flaw {
            Flaw::PerturbUnseen => {}
            Flaw::PerturbOverwritten => self.state.scratch += 1,
            _ => self.state.totals[0] += 1,
        }
    }
    fn phase_name(phase: &'static str) -> &'static str {
        phase
    }
    fn event_key(event: &(Tick, u8)) -> (Tick, u8) {
        *event
    }
    fn event_tick(event: &(Tick, u8)) -> Tick {
        event.0
    }
    fn audit(events: &[(Tick, u8)], out: &mut Vec<(Tick, u8)>) {
        out.extend_from_slice(events);
    }
    fn seed(&self) -> u64 {
        0
    }
    fn rules_to_bytes(flaw: &Flaw) -> Vec<u8> {
        vec![*flaw as u8]
    }
    fn rules_from_bytes(bytes: &[u8]) -> Option<Flaw> {
        // In declaration order: a flaw's byte is its discriminant.
        const ALL: [Flaw; 14] = [
            Flaw::None,
            Flaw::HiddenState,
            Flaw::RestoreIgnores,
            Flaw::RestoreSavedIgnores,
            Flaw::TraceSkipsPhase,
            Flaw::PerturbUnseen,
            Flaw::PerturbOverwritten,
            Flaw::EventsDiffer,
            Flaw::PlayerCount,
            Flaw::OtherRules,
            Flaw::RulesBytes,
            Flaw::StepRefuses,
            Flaw::StateEqualsLies,
            Flaw::StateEqualsTickOnly,
        ];
        match bytes {
            [b] if *b == Flaw::RulesBytes as u8 => None,
            [b] => ALL.get(usize::from(*b)).copied(),
            _ => None,
        }
    }
    fn rules_hash(flaw: &Flaw) -> u64 {
        *flaw as u64
    }
    fn snapshot_to_bytes(s: &ToyState) -> Vec<u8> {
        // (The scratch field is always 0 between steps.)
        let mut bytes = s.tick.to_le_bytes().to_vec();
        bytes.push(s.totals.len() as u8);
        for t in &s.totals {
            bytes.extend_from_slice(&t.to_le_bytes());
        }
        bytes
    }
    fn snapshot_from_bytes(bytes: &[u8]) -> Result<ToyState, std::fmt::Error> {
        let tick = Tick::from_le_bytes(bytes.get(..4).ok_or(std::fmt::Error)?.try_into().unwrap());
        let n = usize::from(*bytes.get(4).ok_or(std::fmt::Error)?);
        let totals = (0..n)
            .map(|i| {
                let at = 5 + 8 * i;
                let b = bytes.get(at..at + 8).ok_or(std::fmt::Error)?;
                Ok(i64::from_le_bytes(b.try_into().unwrap()))
            })
            .collect::<Result<Vec<_>, std::fmt::Error>>()?;
        Ok(ToyState {
            tick,
            totals,
            scratch: 0,
            restored: false,
        })
    }
}

fn check<const N: u8, const S: u8>(flaw: Flaw) -> Result<(), String> {
    conformance::check_all::<Toy<N, S>>(flaw, 0, 2, 90, |t, slot| (t % 7) as i8 - slot as i8)
}

#[test]
fn the_flawless_toy_passes() {
    check::<0, 0>(Flaw::None).expect("no flaw");
}

#[test]
fn each_flaw_is_refused_by_its_check() {
    let cases = [
        (Flaw::HiddenState, "states differ"),
        (Flaw::RestoreIgnores, "restore does not"),
        (Flaw::RestoreSavedIgnores, "restore_saved does not"),
        (Flaw::EventsDiffer, "events"),
        (Flaw::TraceSkipsPhase, "every phase"),
        (
            Flaw::PerturbUnseen,
            "after `push` leaves the hash unchanged",
        ),
        (
            Flaw::PerturbOverwritten,
            "after `push` leaves the hash unchanged",
        ),
        (Flaw::PlayerCount, "player_count"),
        (Flaw::OtherRules, "rules()"),
        (Flaw::RulesBytes, "bytes"),
        // The game's own error, as it says it.
        (Flaw::StepRefuses, &std::fmt::Error.to_string()),
        (Flaw::StateEqualsLies, "state_equals"),
        (Flaw::StateEqualsTickOnly, "a perturbed copy"),
    ];
    for (flaw, said) in cases {
        let err = check::<0, 0>(flaw).expect_err(&format!("{flaw:?} is refused"));
        assert!(err.contains(said), "{flaw:?}: {err}");
    }
}

#[test]
fn badly_named_phases_and_sections_are_refused() {
    let twice = check::<1, 0>(Flaw::None).expect_err("a phase named twice");
    assert!(twice.contains("phase 1 `push`"), "{twice}");
    let none = check::<2, 0>(Flaw::None).expect_err("no phases");
    assert!(none.contains("0 phases"), "{none}");
    let sections = check::<0, 1>(Flaw::None).expect_err("a section named twice");
    assert!(sections.contains("section 1 `totals`"), "{sections}");
    let short = check::<0, 2>(Flaw::None).expect_err("too few sections taken");
    assert!(short.contains("too few"), "{short}");
    for wrong in [
        check::<0, 4>(Flaw::None).expect_err("a snapshot's tick read one late"),
        check::<0, 5>(Flaw::None).expect_err("a snapshot's hash without the clock"),
    ] {
        assert!(wrong.contains("snapshot_tick or snapshot_hash"), "{wrong}");
    }
    let spaced = check::<0, 3>(Flaw::None).expect_err("a section name with a space");
    assert!(spaced.contains("section 1 `the clock`"), "{spaced}");
    assert!(
        conformance::phases_are_named_once::<Toy<4, 0>>().is_ok(),
        "16 phases"
    );
    let many = conformance::phases_are_named_once::<Toy<3, 0>>().expect_err("17 phases");
    assert!(many.contains("17 phases"), "{many}");
}

#[test]
fn the_first_differing_section_is_named_by_index() {
    let a = ToyHash::<0>::from_sections(&[1, 2]).expect("two");
    let b = ToyHash::<0>::from_sections(&[1, 3]).expect("two");
    assert_eq!(a.first_difference(&b), Some(1));
    assert_eq!(a.first_difference(&a), None);
    assert_eq!(
        b.first_difference(&ToyHash::<0>::from_sections(&[0, 3]).expect("two")),
        Some(0)
    );
}

/// Contract: a game that does not name its rules' differences names none (a refusal then
/// shows the two hashes only).
#[test]
fn rules_differences_name_none_by_default() {
    assert!(<Toy<0, 0> as Game>::rules_differences(&Flaw::None, &Flaw::HiddenState).is_empty());
}
