//! Rail fairness, measured: a networked peer whose bot fires the rail at the opponent *it
//! sees*, and counts how the verdicts it saw fare once history is confirmed.
//!
//! Each peer's bot walks like the ordinary bot (dodging at random while in sight of the
//! opponent, which is what prediction cannot foresee) but fires only the rail, aiming at a
//! random point across the opponent's hitbox as it is shown — predicted now ([`RemoteView::Predicted`], the input's view is 0) or at
//! the confirmed past ([`RemoteView::Past`], the input carries that view). The prediction
//! journal tells which rail shots were first seen as hits and which ended confirmed as hits.
//! On the victim's side, a confirmed hit counts as "behind cover" when, in the state the victim
//! itself had for that tick, the ray from the shooter's muzzle to the victim crossed a wall.
//!
//! The measurement rules ([`fairness_rules`]) make shots frequent and keep one hit from
//! changing the other player's ability to fire (no hitstun, no knockback, no KO within the
//! run), so the figures isolate what the view does.

use crate::error::Error;
use crate::journal::{JournalAction, PredictionJournal};
use crate::remote_view::{input_view, shown_pose, view_at, RemoteView, ViewDelay};
use crate::session::netplay::{NetEvent, NetPeer};
use crate::session::pacing::{FrameDecision, FramePacer};
use engine::{
    buttons, stick_towards, EventKey, EventKind, Fx, FxVec, Rules, ShotOutcome, ShotRecord,
    ShotTarget, Tick, WireInput, World,
};
use std::collections::BTreeMap;
use std::fmt;
use std::time::{Duration, Instant};

/// The rules fairness runs play: the rail every 12 ticks, 1 damage, no hitstun or knockback,
/// hit points no run exhausts.
#[must_use]
pub fn fairness_rules() -> Rules {
    Rules {
        max_hp: 10_000,
        rail_damage: 1,
        rail_hitstun: 0,
        rail_knockback: Fx::ZERO,
        rail_cooldown: 12,
        rail_charges: 9,
        rail_recharge_ticks: 12,
        round_time_limit: 216_000,
        ..Rules::default()
    }
}

/// What a fairness run plays.
#[derive(Debug, Clone)]
pub struct FairnessPlan {
    /// Final ticks to reach.
    pub ticks: Tick,
    /// Seed of the local bot's walk.
    pub bot_seed: u64,
    /// How the bot sees the opponent.
    pub view: RemoteView,
    /// Frames per second.
    pub fps: u32,
    /// The session's input delay in frames (the view an input carries reaches back this much
    /// further).
    pub input_delay: usize,
    /// Longest the run may take before it stops where it is.
    pub deadline: Duration,
}

/// What one peer saw. Only shots on final ticks are counted.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct FairnessReport {
    /// Final ticks reached.
    pub ticks: Tick,
    /// Rollbacks served.
    pub rollbacks: u64,
    /// Rail shots this peer's bot fired (as first simulated).
    pub shots: u64,
    /// Of those, the ones first seen as hits.
    pub seen_hits: u64,
    /// Of those, the ones that ended confirmed as hits.
    pub seen_hits_confirmed: u64,
    /// Seen hits lost although the shooter's side of the shot was unchanged (same muzzle,
    /// direction and view used): only the target's pose at that moment changed. With the past
    /// view this must be 0 — the poses judged are confirmed ones.
    pub seen_hits_lost_same_aim: u64,
    /// Confirmed rail hits this peer fired that it had not seen as hits.
    pub unseen_hits_confirmed: u64,
    /// Confirmed rail hits taken by this peer's player.
    pub hits_taken: u64,
    /// Of those, the ones where this peer's player was behind cover in its own state for
    /// that tick.
    pub hits_taken_behind_cover: u64,
}

impl FairnessReport {
    /// Share of shots seen as hits that were confirmed as hits (1 when none was seen).
    #[must_use]
    pub fn agreement(&self) -> f64 {
        if self.seen_hits == 0 {
            1.0
        } else {
            self.seen_hits_confirmed as f64 / self.seen_hits as f64
        }
    }

    /// Parses the `key=value` line [`fmt::Display`] writes.
    ///
    /// # Errors
    /// A message naming the missing or malformed field.
    pub fn parse(line: &str) -> Result<FairnessReport, String> {
        let mut r = FairnessReport::default();
        let fields: BTreeMap<&str, &str> = line
            .split_whitespace()
            .filter_map(|kv| kv.split_once('='))
            .collect();
        let get = |k: &str| -> Result<u64, String> {
            fields
                .get(k)
                .ok_or_else(|| format!("fairness report lacks `{k}`"))?
                .parse()
                .map_err(|e| format!("fairness report `{k}`: {e}"))
        };
        r.ticks = get("ticks")? as Tick;
        r.rollbacks = get("rollbacks")?;
        r.shots = get("shots")?;
        r.seen_hits = get("seen_hits")?;
        r.seen_hits_confirmed = get("seen_hits_confirmed")?;
        r.seen_hits_lost_same_aim = get("seen_hits_lost_same_aim")?;
        r.unseen_hits_confirmed = get("unseen_hits_confirmed")?;
        r.hits_taken = get("hits_taken")?;
        r.hits_taken_behind_cover = get("hits_taken_behind_cover")?;
        Ok(r)
    }
}

impl fmt::Display for FairnessReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "ticks={} rollbacks={} shots={} seen_hits={} seen_hits_confirmed={} seen_hits_lost_same_aim={} unseen_hits_confirmed={} hits_taken={} hits_taken_behind_cover={}",
            self.ticks,
            self.rollbacks,
            self.shots,
            self.seen_hits,
            self.seen_hits_confirmed,
            self.seen_hits_lost_same_aim,
            self.unseen_hits_confirmed,
            self.hits_taken,
            self.hits_taken_behind_cover
        )
    }
}

/// One rail shot as this peer saw it first and as it stands now.
#[derive(Debug, Clone, Copy)]
struct ShotTrack {
    tick: Tick,
    first: ShotRecord,
    /// `None` once retracted (the confirmed history has no such shot).
    now: Option<ShotRecord>,
    /// For a hit on this peer's player: behind cover in this peer's own state for the tick.
    behind_cover: bool,
}

/// The fairness bot: the ordinary bot's walk out of sight, dodging in sight, the rail fired at
/// the opponent as shown.
struct RailBot {
    walk: engine::Bot,
    seed: u64,
    me: usize,
    delay: ViewDelay,
    pressed: bool,
}

impl RailBot {
    fn input(&mut self, world: &World, final_tick: Tick, plan: &FairnessPlan) -> WireInput {
        let mode = plan.view;
        let state = world.state();
        let rules = world.rules();
        let mut cmd = self.walk.think(world);
        cmd.buttons &= !(buttons::SHOOT | buttons::MELEE | buttons::RAIL);
        // The press is applied input-delay ticks later; the moment shown must still be in
        // the pose window then, or the simulation would clamp it to one never shown.
        let delay = plan.input_delay.min(usize::from(u8::MAX)) as u8;
        let reach = rules.pose_history_ticks.saturating_sub(delay);
        let back = self.delay.update(mode, state.tick, final_tick, reach);
        let view = view_at(back, 0);
        let me = &state.players[self.me];
        let target = (0..state.players.len()).find(|&s| s != self.me);
        // In sight of the opponent, dodge: a new random direction every 6 ticks, as a player
        // under fire would (the part of a walk that prediction cannot foresee).
        let in_sight =
            target.is_some_and(|s| state.maze.line_of_sight(me.pos, state.players[s].pos));
        if in_sight {
            let mut rng = engine::DetRng::from_seed(self.seed ^ u64::from(state.tick / 6) << 20);
            const DIRS: [(i8, i8); 8] = [
                (127, 0),
                (90, 90),
                (0, 127),
                (-90, 90),
                (-127, 0),
                (-90, -90),
                (0, -127),
                (90, -90),
            ];
            (cmd.move_x, cmd.move_y) = DIRS[rng.below(8) as usize];
        }
        let ready = state.round.is_fighting()
            && me.action.is_free()
            && me.rail_charges > 0
            && me.rail_cooldown == 0;
        if let (Some(slot), true, false) = (target, ready, self.pressed) {
            let seen = shown_pose(world, slot, view).pose;
            // Aim like a person: somewhere across the shown hitbox, not always at its centre
            // (an edge shot is where a wrong prediction flips the verdict).
            let mut rng = engine::DetRng::from_seed(self.seed ^ u64::from(state.tick) << 24);
            let spread = Fx::from_num(rng.symmetric(256)) / Fx::from_num(256) * seen.radius;
            let across = (seen.pos - me.pos)
                .normalized()
                .map_or(FxVec::ZERO, FxVec::perp);
            let to = seen.pos + across.scale(spread) - me.pos;
            let in_range = to.x.abs() + to.y.abs() < rules.rail_range;
            if seen.alive() && in_range && state.maze.line_of_sight(me.pos, seen.pos) {
                (cmd.move_x, cmd.move_y) = stick_towards(to);
                cmd.buttons |= buttons::RAIL;
                let carried = input_view(mode, view, plan.input_delay);
                (cmd.view_ticks, cmd.view_frac) = (carried.ticks_back, carried.frac);
            }
        }
        self.pressed = cmd.held(buttons::RAIL);
        cmd.to_wire()
    }
}

/// Whether `victim` stood behind cover from `shot`'s muzzle in `peer`'s own state for `tick`.
fn behind_cover(peer: &NetPeer<World>, tick: Tick, shot: &ShotRecord, victim: usize) -> bool {
    peer.driver()
        .snapshot_at(tick)
        .map(|s| !s.maze.line_of_sight(shot.origin, s.players[victim].pos))
        .unwrap_or(false)
}

/// Plays `peer` (a player, not a spectator) with the fairness bot until `plan.ticks` are final
/// or the deadline passes, and reports what it saw.
///
/// # Errors
/// [`Error::NotAPlayer`] for a spectator; engine, GGRS or I/O errors.
pub fn run_fairness_peer(
    mut peer: NetPeer<World>,
    plan: &FairnessPlan,
) -> Result<FairnessReport, Error> {
    let me = peer.local_slot().ok_or(Error::NotAPlayer {
        what: "a fairness run",
    })?;
    let mut bot = RailBot {
        walk: engine::Bot::new(me as u8, plan.bot_seed),
        seed: plan.bot_seed,
        me,
        delay: ViewDelay::default(),
        pressed: false,
    };
    let mut journal = PredictionJournal::<World>::new();
    let mut shots: BTreeMap<EventKey, ShotTrack> = BTreeMap::new();
    let mut pacer = FramePacer::new(plan.fps);
    let deadline = Instant::now() + plan.deadline;
    while peer.final_tick() < plan.ticks && Instant::now() < deadline {
        peer.poll();
        let mut gone = false;
        for event in peer.take_events() {
            match event {
                NetEvent::Disconnected { peer: who } if peer.is_remote_player(who) => gone = true,
                NetEvent::WaitRecommendation { frames } => pacer.recommend_wait(frames),
                _ => {}
            }
        }
        if gone {
            break;
        }
        match pacer.frame_due(Instant::now(), peer.frames_ahead()) {
            FrameDecision::Run => {
                let input = bot.input(peer.world(), peer.final_tick(), plan);
                peer.advance(input)?;
            }
            FrameDecision::Skip => {}
            FrameDecision::NotYet(wait) => std::thread::sleep(wait.min(Duration::from_millis(1))),
        }
        let driver = peer.driver();
        let actions = journal.reconcile(
            driver.events(),
            driver.resimulated_from(),
            peer.final_tick(),
        );
        track_shots(&peer, me, actions, &mut shots);
        peer.update_stats();
    }
    let final_tick = peer.final_tick();
    Ok(tally(
        &shots,
        me,
        final_tick,
        peer.driver().counters().rollbacks,
    ))
}

/// Follows every rail shot the journal plays, corrects or retracts into `shots`: how it was
/// first seen, how it stands now, and whether a hit on `me` came from behind cover.
fn track_shots(
    peer: &NetPeer<World>,
    me: usize,
    actions: impl IntoIterator<Item = JournalAction<engine::Event>>,
    shots: &mut BTreeMap<EventKey, ShotTrack>,
) {
    for action in actions {
        let (event, now) = match action {
            JournalAction::Play(e) => (e, Some(e)),
            JournalAction::Correct { new, .. } => (new, Some(new)),
            JournalAction::Retract(e) => (e, None),
        };
        let EventKind::RailShot(first) = event.kind else {
            continue;
        };
        let now = now.and_then(|e| match e.kind {
            EventKind::RailShot(s) => Some(s),
            _ => None,
        });
        let cover = now.is_some_and(|s| hit_on(&s, me) && behind_cover(peer, event.tick, &s, me));
        shots
            .entry(event.key())
            .and_modify(|t| {
                t.now = now;
                t.behind_cover = cover;
            })
            .or_insert(ShotTrack {
                tick: event.tick,
                first,
                now,
                behind_cover: cover,
            });
    }
}

/// The report of `me`'s side over the shots fired before `final_tick`.
fn tally(
    shots: &BTreeMap<EventKey, ShotTrack>,
    me: usize,
    final_tick: Tick,
    rollbacks: u64,
) -> FairnessReport {
    let mut report = FairnessReport {
        ticks: final_tick,
        rollbacks,
        ..FairnessReport::default()
    };
    let is_hit = |s: &ShotRecord| matches!(s.outcome, ShotOutcome::Hit { .. });
    for t in shots.values().filter(|t| t.tick < final_tick) {
        if usize::from(t.first.shooter) == me {
            report.shots += 1;
            let seen = is_hit(&t.first);
            let confirmed = t.now.as_ref().is_some_and(is_hit);
            report.seen_hits += u64::from(seen);
            report.seen_hits_confirmed += u64::from(seen && confirmed);
            let same_aim = t.now.is_some_and(|n| {
                (n.origin, n.dir, n.used) == (t.first.origin, t.first.dir, t.first.used)
            });
            report.seen_hits_lost_same_aim += u64::from(seen && !confirmed && same_aim);
            report.unseen_hits_confirmed += u64::from(!seen && confirmed);
        }
        if t.now.is_some_and(|s| hit_on(&s, me)) {
            report.hits_taken += 1;
            report.hits_taken_behind_cover += u64::from(t.behind_cover);
        }
    }
    report
}

fn hit_on(shot: &ShotRecord, me: usize) -> bool {
    matches!(shot.outcome, ShotOutcome::Hit { .. })
        && matches!(shot.target, ShotTarget::Player { id, .. } if usize::from(id) == me)
}

/// One side of a fairness run between OS processes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FairnessRole {
    /// Binds `addr` and hosts (slot 0).
    Host,
    /// Joins the host at `addr` (slot 1).
    Join,
}

/// Runs one side of a fairness run in this process over UDP, the link impaired by
/// `conditioner` (its seed is varied per side).
///
/// # Errors
/// Bind, handshake, GGRS or engine errors.
pub fn run_fairness_side(
    role: FairnessRole,
    addr: std::net::SocketAddr,
    conditioner: crate::net::conditioner::ConditionerConfig,
    plan: &FairnessPlan,
) -> Result<FairnessReport, Error> {
    let side = u64::from(role == FairnessRole::Join);
    let config = crate::session::netplay::NetConfig {
        rules: fairness_rules(),
        input_delay: plan.input_delay,
        fps: plan.fps,
        disconnect_timeout: Duration::from_secs(10),
        conditioner: crate::net::conditioner::ConditionerConfig {
            seed: conditioner.seed.wrapping_add(side),
            ..conditioner
        },
        ..crate::session::netplay::NetConfig::default()
    };
    let plan = FairnessPlan {
        bot_seed: plan.bot_seed.wrapping_add(side),
        ..plan.clone()
    };
    let peer = match role {
        FairnessRole::Host => NetPeer::host_on(
            crate::session::netplay::open_link(addr, config.conditioner)?,
            &config,
        )?,
        FairnessRole::Join => {
            let bind = std::net::SocketAddr::new(addr.ip(), 0);
            let link = crate::session::netplay::open_link(bind, config.conditioner)?;
            NetPeer::join_on(link, addr, crate::net::wire::Role::Player, &config)?
        }
    };
    run_fairness_peer(peer, &plan)
}
