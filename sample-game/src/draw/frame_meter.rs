//! The training room's frame meter: what each fighter did on every tick — free, startup,
//! active, recovery, hitstun, hit-stop — read straight from the deterministic state, so it is
//! exact, and the frame advantage after each exchange.
//!
//! An exchange begins on the first tick either fighter is not free and ends on the first tick
//! both are free again; its advantage is how many ticks earlier one fighter became free than
//! the other (positive: the first player recovered first). A swing that hits nobody is an
//! exchange too: its counts are the swing's startup, active and recovery ticks.

use engine::{Action, Player, WorldSnapshot};
use std::collections::VecDeque;

/// Ticks the meter shows (about two seconds).
pub const METER_TICKS: usize = 120;

/// What a fighter did on one tick.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum FrameKind {
    /// Free to act (standing or running).
    Free,
    /// A swing's wind-up: committed, no hitbox yet.
    Startup,
    /// A swing's active frames: the hitbox is live.
    Active,
    /// A swing's recovery: no hitbox, cannot act.
    Recovery,
    /// Reeling from a hit.
    Hitstun,
    /// Frozen by a melee hit's hit-stop (both fighters).
    HitStop,
    /// Knocked out.
    Ko,
}

impl FrameKind {
    /// What `p` does in this state.
    #[must_use]
    pub fn of(p: &Player) -> FrameKind {
        if p.hitstop > 0 {
            return FrameKind::HitStop;
        }
        match p.action {
            Action::Idle | Action::Move => FrameKind::Free,
            Action::MeleeStartup => FrameKind::Startup,
            Action::MeleeActive => FrameKind::Active,
            Action::MeleeRecovery => FrameKind::Recovery,
            Action::Hitstun => FrameKind::Hitstun,
            Action::Ko => FrameKind::Ko,
        }
    }
}

/// How one exchange went, for the line under the meter.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct Exchange {
    /// Ticks of startup, active and recovery of the first player's last swing in it.
    pub swing: [u16; 3],
    /// Ticks the first player was free before the second (negative: after); `None` when only
    /// one fighter took part (a whiff against a free opponent).
    pub advantage: Option<i32>,
}

/// The meter: the last [`METER_TICKS`] ticks of both fighters, and the last exchange.
#[derive(Clone, Debug, Default)]
pub struct FrameMeter {
    rows: [VecDeque<FrameKind>; 2],
    /// The exchange under way: its counts so far, and the tick each fighter became free.
    current: Option<Building>,
    last: Option<Exchange>,
    tick: u32,
}

#[derive(Clone, Copy, Debug, Default)]
struct Building {
    swing: [u16; 3],
    /// Whether each fighter left the free state during it.
    took_part: [bool; 2],
    /// The tick each fighter was last seen becoming free.
    freed_at: [Option<u32>; 2],
}

impl FrameMeter {
    /// An empty meter.
    #[must_use]
    pub fn new() -> FrameMeter {
        FrameMeter::default()
    }

    /// Takes the state after a tick: each of the first two players' frame, and the exchange.
    pub fn on_tick(&mut self, state: &WorldSnapshot) {
        self.tick += 1;
        let kinds: [FrameKind; 2] =
            [0, 1].map(|i| state.players.get(i).map_or(FrameKind::Free, FrameKind::of));
        for (row, kind) in self.rows.iter_mut().zip(kinds) {
            if row.len() == METER_TICKS {
                row.pop_front();
            }
            row.push_back(kind);
        }
        let busy = kinds.map(|k| k != FrameKind::Free);
        match (&mut self.current, busy) {
            (None, [false, false]) => {}
            (None, _) => {
                let mut building = Building::default();
                building.note(kinds, self.tick);
                self.current = Some(building);
            }
            (Some(building), _) => {
                building.note(kinds, self.tick);
                if busy == [false, false] {
                    self.last = Some(building.finish());
                    self.current = None;
                }
            }
        }
    }

    /// The frames shown for player `slot` (0 or 1), oldest first.
    #[must_use]
    pub fn row(&self, slot: usize) -> Vec<FrameKind> {
        self.rows
            .get(slot)
            .map(|r| r.iter().copied().collect())
            .unwrap_or_default()
    }

    /// The last finished exchange.
    #[must_use]
    pub fn last_exchange(&self) -> Option<Exchange> {
        self.last
    }

    /// The line under the meter: the first player's last swing and the advantage.
    #[must_use]
    pub fn summary(&self) -> String {
        let Some(e) = self.last else {
            return "frame meter: swing or shoot to see your frames".into();
        };
        let [s, a, r] = e.swing;
        let swing = format!("startup {s}  active {a}  recovery {r}");
        match e.advantage {
            Some(adv) => format!("{swing}   advantage {adv:+}"),
            None => swing,
        }
    }
}

impl Building {
    fn note(&mut self, kinds: [FrameKind; 2], tick: u32) {
        // A new swing by the first player starts its counts again.
        if kinds[0] == FrameKind::Startup && self.swing[1] + self.swing[2] > 0 {
            self.swing = [0; 3];
        }
        match kinds[0] {
            FrameKind::Startup => self.swing[0] += 1,
            FrameKind::Active => self.swing[1] += 1,
            FrameKind::Recovery => self.swing[2] += 1,
            _ => {}
        }
        for (i, kind) in kinds.into_iter().enumerate() {
            if kind == FrameKind::Free {
                if self.freed_at[i].is_none() {
                    self.freed_at[i] = Some(tick);
                }
            } else {
                self.took_part[i] = true;
                self.freed_at[i] = None;
            }
        }
    }

    fn finish(self) -> Exchange {
        let advantage = match (self.took_part, self.freed_at) {
            ([true, true], [Some(a), Some(b)]) => {
                Some(i32::try_from(b).unwrap_or(i32::MAX) - i32::try_from(a).unwrap_or(i32::MAX))
            }
            _ => None,
        };
        Exchange {
            swing: self.swing,
            advantage,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use engine::{buttons, InputCmd, RoundPhase, Rules, World};

    /// A world past its countdown with the fighters far apart.
    fn fighting() -> World {
        let mut world = World::new(Rules::default(), 5, 2).expect("world");
        while world.state().round.phase != RoundPhase::Fighting {
            let idle = [InputCmd::idle(world.tick()); 2];
            world.step(&idle).expect("step");
        }
        world
    }

    fn tally(row: &[FrameKind], kind: FrameKind) -> u16 {
        row.iter().filter(|&&k| k == kind).count() as u16
    }

    /// A swing at nobody draws exactly the rules' startup, active and recovery ticks, and
    /// its exchange says so, with no advantage (nobody else took part).
    #[test]
    fn a_melee_whiff_draws_exactly_its_frames() {
        let mut world = fighting();
        let rules = world.rules().clone();
        let mut meter = FrameMeter::new();
        for t in 0..60 {
            let mut swing = InputCmd::idle(world.tick());
            if t == 0 {
                swing.buttons = buttons::MELEE;
            }
            world
                .step(&[swing, InputCmd::idle(world.tick())])
                .expect("step");
            meter.on_tick(world.state());
        }
        let row = meter.row(0);
        assert_eq!(tally(&row, FrameKind::Startup), rules.melee_startup);
        assert_eq!(tally(&row, FrameKind::Active), rules.melee_active);
        assert_eq!(tally(&row, FrameKind::Recovery), rules.melee_recovery);
        assert_eq!(tally(&meter.row(1), FrameKind::Free), 60);
        let exchange = meter.last_exchange().expect("the swing ended");
        assert_eq!(
            exchange.swing,
            [
                rules.melee_startup,
                rules.melee_active,
                rules.melee_recovery
            ]
        );
        assert_eq!(exchange.advantage, None);
        assert_eq!(
            meter.summary(),
            format!(
                "startup {}  active {}  recovery {}",
                rules.melee_startup, rules.melee_active, rules.melee_recovery
            )
        );
    }

    /// The meter keeps the last METER_TICKS ticks, oldest first.
    #[test]
    fn the_meter_keeps_its_window() {
        let mut world = fighting();
        let mut meter = FrameMeter::new();
        for _ in 0..METER_TICKS + 30 {
            world
                .step(&[InputCmd::idle(world.tick()); 2])
                .expect("step");
            meter.on_tick(world.state());
        }
        assert_eq!(meter.row(0).len(), METER_TICKS);
        assert!(meter.row(2).is_empty());
        assert_eq!(meter.last_exchange(), None);
        assert!(meter.summary().contains("swing or shoot"));
    }

    /// Advantage: the fighter freed first is plus by the difference, read off the ticks the
    /// exchange ends on (states made by hand, one per tick).
    #[test]
    fn the_fighter_free_first_is_plus_by_the_difference() {
        let world = World::new(Rules::default(), 5, 2).expect("world");
        let mut state = world.state().clone();
        let mut meter = FrameMeter::new();
        let mut tick = |a: Action, b: Action, meter: &mut FrameMeter| {
            state.players[0].action = a;
            state.players[1].action = b;
            meter.on_tick(&state);
        };
        use Action::{Hitstun, Idle, MeleeActive, MeleeRecovery, MeleeStartup};
        for _ in 0..2 {
            tick(MeleeStartup, Idle, &mut meter);
        }
        tick(MeleeActive, Hitstun, &mut meter);
        for _ in 0..3 {
            tick(MeleeRecovery, Hitstun, &mut meter);
        }
        // The swinger is free first; the victim reels four ticks more.
        for _ in 0..4 {
            tick(Idle, Hitstun, &mut meter);
        }
        tick(Idle, Idle, &mut meter);
        let e = meter.last_exchange().expect("over");
        assert_eq!(e.swing, [2, 1, 3]);
        assert_eq!(e.advantage, Some(4));
        assert!(
            meter.summary().ends_with("advantage +4"),
            "{}",
            meter.summary()
        );
        // The other way round: the swinger recovers after the victim is free: minus.
        for _ in 0..2 {
            tick(MeleeStartup, Idle, &mut meter);
        }
        tick(MeleeActive, Hitstun, &mut meter);
        tick(MeleeRecovery, Idle, &mut meter);
        tick(MeleeRecovery, Idle, &mut meter);
        tick(Idle, Idle, &mut meter);
        assert_eq!(meter.last_exchange().expect("over").advantage, Some(-2));
    }

    /// Within one exchange, a new swing starts the counts again — after a whole swing, and
    /// after one cut short in its active frames (the swinger hit out of it) — so the line
    /// shows the last swing only.
    #[test]
    fn a_new_swing_in_the_same_exchange_counts_afresh() {
        let world = World::new(Rules::default(), 5, 2).expect("world");
        let mut state = world.state().clone();
        let mut meter = FrameMeter::new();
        let mut play = |steps: &[(Action, usize)], meter: &mut FrameMeter| {
            for &(a, n) in steps {
                for _ in 0..n {
                    // The other fighter reels throughout: one exchange.
                    state.players[0].action = a;
                    state.players[1].action = Action::Hitstun;
                    meter.on_tick(&state);
                }
            }
        };
        use Action::{Hitstun, Idle, MeleeActive, MeleeRecovery, MeleeStartup};
        play(
            &[
                (MeleeStartup, 2),
                (MeleeActive, 1),
                (MeleeRecovery, 3),
                (MeleeStartup, 3),
                (MeleeActive, 2),
                (Hitstun, 2),
                (MeleeStartup, 4),
                (MeleeActive, 1),
                (MeleeRecovery, 5),
                (Idle, 1),
            ],
            &mut meter,
        );
        assert_eq!(meter.last_exchange(), None, "the exchange goes on");
        state.players[1].action = Idle;
        meter.on_tick(&state);
        let e = meter.last_exchange().expect("over");
        assert_eq!(e.swing, [4, 1, 5]);
    }

    /// A fighter in hit-stop is drawn as hit-stop, whatever its action.
    #[test]
    fn hit_stop_shows_over_the_action() {
        let world = World::new(Rules::default(), 5, 2).expect("world");
        let mut p = world.state().players[0];
        p.action = Action::MeleeActive;
        assert_eq!(FrameKind::of(&p), FrameKind::Active);
        p.hitstop = 1;
        assert_eq!(FrameKind::of(&p), FrameKind::HitStop);
        p.action = Action::Hitstun;
        assert_eq!(FrameKind::of(&p), FrameKind::HitStop);
    }
}
