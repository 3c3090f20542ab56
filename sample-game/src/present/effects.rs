//! Short-lived visual effects spawned by events: sparks where a shot lands, debris from broken
//! blocks, muzzle flashes, damage numbers. They are presentation only: the simulation never
//! sees them, they age in simulation ticks (so they freeze with a pause and a replay looks the
//! same every time), and their randomness is a private generator, not the world's.

use crate::draw::font::{BitmapFont, GLYPH_ROWS};
use crate::draw::label_stack::LabelStack;
use crate::draw::layout::Layout;
use crate::draw::palette;
use crate::draw::shapes::{fill_circle, fill_ring, thick_line};
use crate::present::interpolate::vec2;
use engine::{Event, EventKey, EventKind, HitSource, ShotOutcome, ShotRecord, WorldSnapshot};
use glam::Vec2;
use sdl2::pixels::Color;
use sdl2::rect::Rect;
use sdl2::render::{Canvas, RenderTarget};

/// A speck flying outwards and fading.
#[derive(Clone, Debug)]
struct Particle {
    /// Tiles.
    pos: Vec2,
    /// Tiles per tick.
    vel: Vec2,
    age: u16,
    life: u16,
    /// Side, in tiles.
    size: f32,
    color: Color,
    /// The event that spawned it, so a retracted event takes its effects with it.
    origin: EventKey,
}

/// A disc of light that shrinks away (muzzle flash, impact, KO shockwave).
#[derive(Clone, Debug)]
struct Flash {
    pos: Vec2,
    radius: f32,
    age: u16,
    life: u16,
    color: Color,
    origin: EventKey,
}

/// A rail beam: a line that narrows and fades (the rail's shot record gives its ends).
#[derive(Clone, Debug)]
struct Beam {
    from: Vec2,
    to: Vec2,
    age: u16,
    life: u16,
    color: Color,
    /// A hit marker (a ring at `to`) when the shot hit someone.
    marker: bool,
    origin: EventKey,
}

/// A shake of the arena after a solid hit: it decays over its life.
#[derive(Clone, Debug)]
struct Shake {
    /// Largest offset, in tiles.
    strength: f32,
    age: u16,
    life: u16,
    origin: EventKey,
}

/// Ticks a damage number keeps taking in new hits on its victim.
const MERGE_TICKS: u16 = 20;

/// Text rising from where something happened (damage dealt, "RELOADED").
#[derive(Clone, Debug)]
struct Popup {
    pos: Vec2,
    text: String,
    /// For a damage number: the damage it adds up, so quick hits on one victim merge.
    damage: Option<u32>,
    /// For a damage number: whose damage it counts.
    victim: Option<u8>,
    age: u16,
    life: u16,
    color: Color,
    /// The events it shows, with the damage each added (0 for a text popup).
    origins: Vec<(EventKey, u32)>,
}

/// The effects alive now.
#[derive(Clone, Debug)]
pub struct Effects {
    particles: Vec<Particle>,
    flashes: Vec<Flash>,
    popups: Vec<Popup>,
    beams: Vec<Beam>,
    /// The newest rail shot presented, for the debug overlay (taken back with its event).
    last_rail: Option<(EventKey, ShotRecord)>,
    shakes: Vec<Shake>,
    rng: u64,
}

impl Default for Effects {
    fn default() -> Effects {
        Effects {
            particles: Vec::new(),
            flashes: Vec::new(),
            popups: Vec::new(),
            beams: Vec::new(),
            last_rail: None,
            shakes: Vec::new(),
            rng: 0x5EED_F0E1_FEC7,
        }
    }
}

/// The arena's shake for a hit, in tiles: light for a projectile, heavier for the rail and
/// melee, and growing with the damage dealt, so a heavy hit is felt (a full melee swing shakes
/// about 6 px at a typical 30 px tile; every hit was 1 to 3 px before).
fn shake_strength(source: HitSource, damage: u16) -> f32 {
    let base = match source {
        HitSource::Melee => 0.14,
        HitSource::Rail => 0.10,
        HitSource::Projectile(_) => 0.04,
    };
    base * (1.0 + (f32::from(damage) / 20.0).min(1.0))
}

impl Effects {
    /// No effects.
    #[must_use]
    pub fn new() -> Effects {
        Effects::default()
    }

    /// How many effects are alive (for tests and the curious).
    #[must_use]
    pub fn len(&self) -> usize {
        self.particles.len() + self.flashes.len() + self.popups.len() + self.beams.len()
    }

    /// The newest rail shot presented (and not taken back), for the debug overlay.
    #[must_use]
    pub fn last_rail_shot(&self) -> Option<&ShotRecord> {
        self.last_rail.as_ref().map(|(_, shot)| shot)
    }

    /// Whether no effect is alive.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Removes every effect (a new match).
    pub fn clear(&mut self) {
        self.particles.clear();
        self.flashes.clear();
        self.popups.clear();
        self.beams.clear();
        self.last_rail = None;
        self.shakes.clear();
    }

    /// How far to shift the arena this frame, in tiles, for the shakes alive (a retracted
    /// hit takes its shake with it). Deterministic: a function of the shakes' ages.
    #[must_use]
    pub fn shake_offset(&self, alpha: f32) -> Vec2 {
        self.shakes.iter().fold(Vec2::ZERO, |sum, s| {
            let t = (f32::from(s.age) + alpha) / f32::from(s.life);
            let amplitude = s.strength * (1.0 - t).max(0.0).powi(2);
            let phase = (f32::from(s.age) + alpha) * 2.1;
            sum + Vec2::new(phase.sin(), (phase * 1.3).cos()) * amplitude
        })
    }

    /// Ages every effect by one tick, then spawns the effects of `events`, the events of the
    /// step that went from `previous` to `current`.
    pub fn on_tick(&mut self, events: &[Event], previous: &WorldSnapshot, current: &WorldSnapshot) {
        for p in &mut self.particles {
            p.age += 1;
            p.pos += p.vel;
            p.vel *= 0.86;
        }
        self.particles.retain(|p| p.age < p.life);
        for f in &mut self.flashes {
            f.age += 1;
        }
        self.flashes.retain(|f| f.age < f.life);
        for p in &mut self.popups {
            p.age += 1;
            p.pos.y -= 0.02;
        }
        self.popups.retain(|p| p.age < p.life);
        for b in &mut self.beams {
            b.age += 1;
        }
        self.beams.retain(|b| b.age < b.life);
        for s in &mut self.shakes {
            s.age += 1;
        }
        self.shakes.retain(|s| s.age < s.life);
        for event in events {
            self.spawn(event, previous, current);
        }
    }

    /// Removes the effects of an event that rollback found never happened (or happened
    /// differently: the corrected event is then spawned anew). A merged damage number loses
    /// just that hit's share.
    pub fn retract(&mut self, key: &EventKey) {
        self.particles.retain(|p| p.origin != *key);
        self.flashes.retain(|f| f.origin != *key);
        self.beams.retain(|b| b.origin != *key);
        self.shakes.retain(|s| s.origin != *key);
        if self.last_rail.is_some_and(|(k, _)| k == *key) {
            self.last_rail = None;
        }
        for p in &mut self.popups {
            if let Some(i) = p.origins.iter().position(|(k, _)| k == key) {
                let (_, damage) = p.origins.remove(i);
                if let Some(total) = &mut p.damage {
                    *total -= damage;
                    p.text = format!("-{total}");
                }
            }
        }
        self.popups.retain(|p| !p.origins.is_empty());
    }

    fn spawn(&mut self, event: &Event, previous: &WorldSnapshot, current: &WorldSnapshot) {
        let (kind, origin) = (event.kind, event.key());
        let player = |id: u8| current.players.get(usize::from(id));
        // A projectile removed this tick: where it was, one step on (close to where it ended).
        let last_seen = |id: u32| {
            previous
                .projectiles
                .iter()
                .find(|p| p.id == id)
                .map(|p| vec2(p.pos) + vec2(p.vel) * 0.5)
        };
        match kind {
            EventKind::ShotFired { player: id, .. } => {
                if let Some(p) = player(id) {
                    let muzzle = vec2(p.pos) + vec2(p.aim) * 0.45;
                    self.flash(origin, muzzle, 0.22, 4, palette::shot(id));
                }
            }
            EventKind::Hit {
                attacker,
                victim,
                damage,
                source,
                ..
            } => {
                if let Some(v) = player(victim) {
                    self.hit(origin, (attacker, victim), vec2(v.pos), (damage, source));
                }
            }
            EventKind::Ko { victim, .. } => {
                if let Some(v) = player(victim) {
                    let at = vec2(v.pos);
                    self.shake(origin, 0.3, 24);
                    self.burst(origin, at, 28, 0.16, 36, palette::player(victim));
                    self.flash(origin, at, 1.2, 14, palette::with_alpha(palette::TEXT, 140));
                }
            }
            EventKind::BlockDamaged { x, y, .. } => {
                let at = Vec2::new(f32::from(x) + 0.5, f32::from(y) + 0.5);
                self.burst(origin, at, 6, 0.07, 16, palette::BLOCK);
            }
            EventKind::BlockBroken { x, y, .. } => {
                let at = Vec2::new(f32::from(x) + 0.5, f32::from(y) + 0.5);
                self.burst(origin, at, 22, 0.12, 30, palette::BLOCK_WORN);
                self.burst(origin, at, 10, 0.05, 40, palette::MORTAR);
            }
            EventKind::WallHit { projectile } | EventKind::Expired { projectile } => {
                if let Some(at) = last_seen(projectile) {
                    self.burst(origin, at, 4, 0.05, 10, palette::TEXT_DIM);
                }
            }
            EventKind::Reloaded { player: id } => {
                if let Some(p) = player(id) {
                    let at = vec2(p.pos) - Vec2::new(0.0, 0.6);
                    self.popup(origin, at, "RELOADED".into(), palette::shot(id));
                }
            }
            EventKind::RailShot(shot) => self.rail(origin, shot),
            EventKind::RoundReset { .. } => self.clear(),
            EventKind::MeleeStarted { .. }
            | EventKind::ReloadStarted { .. }
            | EventKind::FightStarted { .. }
            | EventKind::RoundWon { .. }
            | EventKind::MatchWon { .. } => {}
        }
    }

    /// A hit on `victim` at `at`: shake, sparks and a flash in the attack's colour, and the
    /// damage popped up above.
    fn hit(
        &mut self,
        origin: EventKey,
        (attacker, victim): (u8, u8),
        at: Vec2,
        (damage, source): (u16, HitSource),
    ) {
        let color = match source {
            HitSource::Melee => palette::HITSTUN_FLASH,
            HitSource::Projectile(_) | HitSource::Rail => palette::shot(attacker),
        };
        let n = if source == HitSource::Melee { 14 } else { 8 };
        self.shake(origin, shake_strength(source, damage), 12);
        self.burst(origin, at, n, 0.09, 18, color);
        self.flash(origin, at, 0.45, 6, palette::with_alpha(color, 160));
        let above = at - Vec2::new(0.0, 0.5);
        self.damage_popup(origin, victim, above, u32::from(damage));
    }

    /// A rail shot's beam (a hit marker when it hit), and dust where a miss ends.
    fn rail(&mut self, origin: EventKey, shot: ShotRecord) {
        let from = vec2(shot.origin);
        let to = from + vec2(shot.dir) * shot.distance.to_num::<f32>();
        let marker = matches!(shot.outcome, ShotOutcome::Hit { .. });
        self.beams.push(Beam {
            from,
            to,
            age: 0,
            life: if marker { 24 } else { 14 },
            color: palette::shot(shot.shooter),
            marker,
            origin,
        });
        self.last_rail = Some((origin, shot));
        if !marker {
            self.burst(origin, to, 5, 0.06, 12, palette::TEXT_DIM);
        }
    }

    /// A private xorshift generator in `0..1`.
    fn random(&mut self) -> f32 {
        self.rng ^= self.rng << 13;
        self.rng ^= self.rng >> 7;
        self.rng ^= self.rng << 17;
        (self.rng >> 40) as f32 / (1u64 << 24) as f32
    }

    fn burst(&mut self, origin: EventKey, at: Vec2, n: usize, speed: f32, life: u16, color: Color) {
        for _ in 0..n {
            let dir = Vec2::from_angle(self.random() * std::f32::consts::TAU);
            let v = speed * (0.4 + 0.6 * self.random());
            // Under 40 % of the life (`random` is below 1): every spark lives at least a tick.
            let jitter = (self.random() * f32::from(life) * 0.4) as u16;
            let size = 0.06 + self.random() * 0.06;
            self.particles.push(Particle {
                pos: at,
                vel: dir * v,
                age: 0,
                life: life - jitter,
                size,
                color,
                origin,
            });
        }
    }

    /// Starts a shake of `strength` tiles that decays over `life` ticks.
    fn shake(&mut self, origin: EventKey, strength: f32, life: u16) {
        self.shakes.push(Shake {
            strength,
            age: 0,
            life,
            origin,
        });
    }

    fn flash(&mut self, origin: EventKey, pos: Vec2, radius: f32, life: u16, color: Color) {
        self.flashes.push(Flash {
            pos,
            radius,
            age: 0,
            life,
            color,
            origin,
        });
    }

    /// A damage number; hits on the same victim while its number is fresh add up in one
    /// (however far the victim was knocked meanwhile), so a string reads as one total.
    fn damage_popup(&mut self, origin: EventKey, victim: u8, pos: Vec2, damage: u32) {
        let recent = self
            .popups
            .iter_mut()
            .rev()
            .find(|p| p.victim == Some(victim) && p.age < MERGE_TICKS);
        if let Some(p) = recent {
            let total = p.damage.unwrap_or(0) + damage;
            p.damage = Some(total);
            p.text = format!("-{total}");
            p.age = 0;
            p.origins.push((origin, damage));
            return;
        }
        self.popups.push(Popup {
            pos,
            text: format!("-{damage}"),
            damage: Some(damage),
            victim: Some(victim),
            age: 0,
            life: 40,
            color: palette::TEXT,
            origins: vec![(origin, damage)],
        });
    }

    fn popup(&mut self, origin: EventKey, pos: Vec2, text: String, color: Color) {
        self.popups.push(Popup {
            pos,
            text,
            damage: None,
            victim: None,
            age: 0,
            life: 40,
            color,
            origins: vec![(origin, 0)],
        });
    }

    /// Draws every effect, `alpha` of the way into the next tick.
    ///
    /// # Errors
    /// SDL drawing errors.
    pub(crate) fn draw<T: RenderTarget>(
        &self,
        canvas: &mut Canvas<T>,
        layout: &Layout,
        font: &BitmapFont,
        alpha: f32,
        labels: &mut LabelStack,
    ) -> Result<(), String> {
        for b in &self.beams {
            let t = (f32::from(b.age) + alpha) / f32::from(b.life);
            let fade = ((1.0 - t) * 255.0).clamp(0.0, 255.0) as u8;
            let color = palette::with_alpha(b.color, fade);
            let (from, to) = (layout.to_screen(b.from), layout.to_screen(b.to));
            let width = (layout.px(0.12) * (1.0 - t)).max(1.0);
            thick_line(canvas, from, to, width, color)?;
            if b.marker {
                let r = layout.px(0.42);
                fill_ring(canvas, to, r, r - layout.px(0.07).max(1.0), color)?;
            }
        }
        for f in &self.flashes {
            let t = (f32::from(f.age) + alpha) / f32::from(f.life);
            let fade = ((1.0 - t) * f32::from(f.color.a)).clamp(0.0, 255.0) as u8;
            let radius = layout.px(f.radius) * (0.6 + 0.4 * (1.0 - t));
            let color = palette::with_alpha(f.color, fade);
            fill_circle(canvas, layout.to_screen(f.pos), radius, color)?;
        }
        for p in &self.particles {
            let t = (f32::from(p.age) + alpha) / f32::from(p.life);
            let at = layout.to_screen(p.pos + p.vel * alpha);
            let side = layout.px(p.size).max(1.0);
            let fade = ((1.0 - t) * 255.0).clamp(0.0, 255.0) as u8;
            canvas.set_draw_color(palette::with_alpha(p.color, fade));
            canvas.fill_rect(Rect::new(
                (at.x - side / 2.0) as i32,
                (at.y - side / 2.0) as i32,
                side as u32,
                side as u32,
            ))?;
        }
        let s = layout.text_scale;
        for (p, place) in self
            .popups
            .iter()
            .zip(self.place_popups(layout, alpha, labels))
        {
            let t = (f32::from(p.age) + alpha) / f32::from(p.life);
            let fade = ((1.0 - t * t) * 255.0).clamp(0.0, 255.0) as u8;
            let pos = (place.x(), place.y());
            font.draw_shadowed(canvas, &p.text, pos, s, palette::with_alpha(p.color, fade))?;
        }
        Ok(())
    }

    /// Where each popup's text goes this frame, in the order of `self.popups` (oldest first,
    /// so a number keeps its place while newer ones stack above it), clear of `labels`.
    pub(crate) fn place_popups(
        &self,
        layout: &Layout,
        alpha: f32,
        labels: &mut LabelStack,
    ) -> Vec<Rect> {
        let s = layout.text_scale;
        let h = (GLYPH_ROWS + 1) * s;
        self.popups
            .iter()
            .map(|p| {
                let at = layout.to_screen(p.pos - Vec2::new(0.0, 0.02 * alpha));
                let w = BitmapFont::text_width(&p.text, s) + s;
                // The text stands on its point (above the victim), so it never covers the body.
                let (x, y) = ((at.x - w as f32 / 2.0) as i32, at.y as i32 - h as i32);
                let wanted = Rect::new(x, y, w, h);
                labels.place(wanted, 0)
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use engine::{Rules, World};

    /// An origin for effects made by hand.
    fn origin() -> EventKey {
        Event {
            tick: 0,
            kind: EventKind::Hit {
                attacker: 0,
                attacker_generation: 1,
                victim: 1,
                damage: 8,
                source: HitSource::Melee,
            },
        }
        .key()
    }

    /// One particle, two flashes, three popups and four beams, each of `life` ticks, the
    /// particle at the origin moving one tile a tick, the popups at height 0.
    fn made(life: u16) -> Effects {
        let origin = origin();
        let color = Color::RGB(1, 2, 3);
        let mut fx = Effects::new();
        fx.particles.push(Particle {
            pos: Vec2::ZERO,
            vel: Vec2::new(1.0, 0.0),
            age: 0,
            life,
            size: 0.1,
            color,
            origin,
        });
        for _ in 0..2 {
            fx.flashes.push(Flash {
                pos: Vec2::ZERO,
                radius: 1.0,
                age: 0,
                life,
                color,
                origin,
            });
        }
        for _ in 0..3 {
            fx.popups.push(Popup {
                pos: Vec2::ZERO,
                text: "RELOADED".into(),
                damage: None,
                victim: None,
                age: 0,
                life,
                color,
                origins: vec![(origin, 0)],
            });
        }
        for _ in 0..4 {
            fx.beams.push(Beam {
                from: Vec2::ZERO,
                to: Vec2::ONE,
                age: 0,
                life,
                color,
                marker: false,
                origin,
            });
        }
        fx.shakes.push(Shake {
            strength: 0.1,
            age: 0,
            life,
            origin,
        });
        fx
    }

    /// Every kind of effect counts, and clearing (a new match) leaves nothing, the shake and
    /// the rail shot of the debug overlay included.
    #[test]
    fn every_effect_counts_and_clearing_leaves_none() {
        assert!(Effects::new().is_empty());
        let mut fx = made(5);
        assert_eq!(fx.len(), 10);
        assert!(!fx.is_empty());
        fx.last_rail = Some((origin(), ShotRecord::default()));
        fx.clear();
        assert!(fx.is_empty());
        assert!(fx.shakes.is_empty() && fx.last_rail.is_none());
        assert_eq!(fx.shake_offset(0.0), Vec2::ZERO);
    }

    /// Taking an event back removes its effects of every kind and its rail shot, and
    /// nothing of another event's.
    #[test]
    fn a_retraction_takes_only_its_own_events_effects() {
        let kept = EventKey {
            tick: 9,
            ..origin()
        };
        let mut fx = made(5);
        let mut other = made(5);
        for p in &mut other.particles {
            p.origin = kept;
        }
        for f in &mut other.flashes {
            f.origin = kept;
        }
        for p in &mut other.popups {
            p.origins = vec![(kept, 0)];
        }
        for b in &mut other.beams {
            b.origin = kept;
        }
        for s in &mut other.shakes {
            s.origin = kept;
        }
        fx.particles.append(&mut other.particles);
        fx.flashes.append(&mut other.flashes);
        fx.popups.append(&mut other.popups);
        fx.beams.append(&mut other.beams);
        fx.shakes.append(&mut other.shakes);
        fx.last_rail = Some((kept, ShotRecord::default()));
        fx.retract(&origin());
        assert_eq!((fx.len(), fx.shakes.len()), (10, 1));
        assert!(fx.particles.iter().all(|p| p.origin == kept));
        assert!(fx.flashes.iter().all(|f| f.origin == kept));
        assert!(fx.beams.iter().all(|b| b.origin == kept));
        assert!(fx.shakes.iter().all(|s| s.origin == kept));
        assert!(
            fx.last_rail_shot().is_some(),
            "another event's rail shot stays"
        );
        fx.retract(&kept);
        assert!(fx.is_empty() && fx.shakes.is_empty() && fx.last_rail_shot().is_none());
    }

    /// Each event's effects appear where it happened: a muzzle flash ahead of the shooter,
    /// a hit's sparks, flash and shake on the victim with its number above, a KO's heavier
    /// shake, a block's debris at the tile's centre, "RELOADED" above the player.
    #[test]
    fn each_event_spawns_its_effects_where_it_happened() {
        let world = World::new(Rules::default(), 1, 2).unwrap();
        let state = world.state();
        let (p0, p1) = (&state.players[0], &state.players[1]);
        let spawned = |kind| {
            let mut fx = Effects::new();
            fx.on_tick(&[Event { tick: 5, kind }], state, state);
            fx
        };
        let near = |a: Vec2, b: Vec2| (a - b).length() < 1e-5;
        let fx = spawned(EventKind::ShotFired {
            player: 0,
            projectile: 1,
        });
        assert_eq!(fx.len(), 1);
        assert!(near(fx.flashes[0].pos, vec2(p0.pos) + vec2(p0.aim) * 0.45));
        let hit = |source| EventKind::Hit {
            attacker: 0,
            attacker_generation: 1,
            victim: 1,
            damage: 20,
            source,
        };
        for (source, sparks) in [(HitSource::Melee, 14), (HitSource::Projectile(3), 8)] {
            let fx = spawned(hit(source));
            assert_eq!(
                (fx.particles.len(), fx.flashes.len(), fx.popups.len()),
                (sparks, 1, 1),
                "{source:?}"
            );
            assert!(fx.particles.iter().all(|p| p.pos == vec2(p1.pos)));
            assert!(near(fx.flashes[0].pos, vec2(p1.pos)));
            assert!(near(fx.popups[0].pos, vec2(p1.pos) - Vec2::new(0.0, 0.5)));
            assert_eq!(fx.popups[0].text, "-20");
            assert_eq!(fx.shakes[0].strength, shake_strength(source, 20));
        }
        let fx = spawned(EventKind::Ko { victim: 1, by: 0 });
        assert_eq!((fx.particles.len(), fx.flashes.len()), (28, 1));
        assert_eq!((fx.shakes[0].strength, fx.shakes[0].life), (0.3, 24));
        let centre = Vec2::new(3.5, 4.5);
        let fx = spawned(EventKind::BlockDamaged {
            x: 3,
            y: 4,
            hp_left: 1,
            projectile: 2,
        });
        assert_eq!(fx.particles.len(), 6);
        assert!(fx.particles.iter().all(|p| p.pos == centre));
        let fx = spawned(EventKind::BlockBroken {
            x: 3,
            y: 4,
            projectile: 2,
        });
        assert_eq!(fx.particles.len(), 32);
        assert!(fx.particles.iter().all(|p| p.pos == centre));
        // A projectile that ended this tick: its dust half a step on from where it was.
        let mut before = state.clone();
        before.projectiles.push(engine::Projectile {
            id: 7,
            owner_generation: 1,
            pos: engine::FxVec::new(engine::fx_int(2), engine::fx_int(3)),
            vel: engine::FxVec::new(engine::fx_int(1), engine::fx_int(-2)),
            life: 1,
            owner: 0,
            wall_clear: 0,
        });
        for kind in [
            EventKind::WallHit { projectile: 7 },
            EventKind::Expired { projectile: 7 },
        ] {
            let mut fx = Effects::new();
            fx.on_tick(&[Event { tick: 5, kind }], &before, state);
            assert_eq!(fx.particles.len(), 4, "{kind:?}");
            assert!(fx.particles.iter().all(|p| p.pos == Vec2::new(2.5, 2.0)));
            let mut none = Effects::new();
            none.on_tick(&[Event { tick: 5, kind }], state, state);
            assert!(none.is_empty(), "a projectile never seen leaves nothing");
        }
        let fx = spawned(EventKind::Reloaded { player: 1 });
        assert_eq!(fx.popups[0].text, "RELOADED");
        assert!(near(fx.popups[0].pos, vec2(p1.pos) - Vec2::new(0.0, 0.6)));
    }

    /// A burst's sparks fly at 40 to 100 % of its speed, live 60 to 100 % of its life (at
    /// least a tick), and are 0.06 to 0.12 tiles wide.
    #[test]
    fn a_bursts_sparks_stay_within_their_ranges() {
        let mut fx = Effects::new();
        for life in [1, 2, 30] {
            fx.burst(origin(), Vec2::ZERO, 200, 0.1, life, Color::RGB(0, 0, 0));
            for p in fx.particles.drain(..) {
                let speed = p.vel.length();
                assert!((0.04 - 1e-6..=0.1 + 1e-6).contains(&speed), "{speed}");
                assert!(p.life >= 1 && p.life <= life, "{} of {life}", p.life);
                assert!(
                    f32::from(p.life) >= f32::from(life) * 0.6 - 1.0,
                    "{}",
                    p.life
                );
                assert!((0.06..=0.12).contains(&p.size), "{}", p.size);
            }
        }
    }

    /// A burst scatters: its sparks fly off in every direction (each quadrant gets some), and
    /// their lives spread over the whole range, so they do not all end on one tick.
    #[test]
    fn a_bursts_sparks_scatter_all_around_and_end_apart() {
        let mut fx = Effects::new();
        fx.burst(origin(), Vec2::ZERO, 200, 0.1, 30, Color::RGB(0, 0, 0));
        let mut quadrants = [0; 4];
        for p in &fx.particles {
            quadrants[usize::from(p.vel.x < 0.0) * 2 + usize::from(p.vel.y < 0.0)] += 1;
        }
        assert!(quadrants.iter().all(|&n| n >= 25), "{quadrants:?}");
        let lives = fx.particles.iter().map(|p| p.life);
        let (shortest, longest) = (lives.clone().min().unwrap(), lives.max().unwrap());
        assert!(shortest <= 20 && longest >= 29, "{shortest}..{longest}");
    }

    /// A rail shot draws its beam from the shooter's origin along its direction for its
    /// distance: a hit's with a marker, living longer; a miss's without, and with dust where
    /// it ends. Either is the last rail shot.
    #[test]
    fn a_rail_beam_runs_the_shots_length_and_a_miss_leaves_dust() {
        let state = World::new(Rules::default(), 1, 2).unwrap().state().clone();
        let shot = |outcome| ShotRecord {
            shooter: 1,
            origin: engine::FxVec::new(engine::fx_int(2), engine::fx_int(3)),
            dir: engine::FxVec::new(engine::fx_int(0), engine::fx_int(1)),
            distance: engine::fx_int(4),
            outcome,
            ..ShotRecord::default()
        };
        for (outcome, marker, life, dust) in [
            (ShotOutcome::Hit { damage: 30 }, true, 24, 0),
            (ShotOutcome::Miss, false, 14, 5),
        ] {
            let mut fx = Effects::new();
            let event = Event {
                tick: 5,
                kind: EventKind::RailShot(shot(outcome)),
            };
            fx.on_tick(&[event], &state, &state);
            let beam = &fx.beams[0];
            assert_eq!(
                (beam.from, beam.to),
                (Vec2::new(2.0, 3.0), Vec2::new(2.0, 7.0))
            );
            assert_eq!((beam.marker, beam.life), (marker, life), "{outcome:?}");
            assert_eq!(fx.particles.len(), dust, "{outcome:?}");
            assert!(fx.particles.iter().all(|p| p.pos == beam.to));
            assert_eq!(fx.last_rail_shot(), Some(&shot(outcome)));
        }
    }

    /// A hit on a victim whose number is still fresh (under 20 ticks) adds to it and freshens
    /// it; an older number is left to fade and a new one starts; another victim's is its own.
    #[test]
    fn damage_numbers_merge_only_while_fresh_and_per_victim() {
        let mut fx = Effects::new();
        let key = origin();
        fx.damage_popup(key, 1, Vec2::ZERO, 5);
        fx.popups[0].age = MERGE_TICKS - 1;
        fx.damage_popup(key, 1, Vec2::ZERO, 7);
        assert_eq!(fx.popups.len(), 1);
        assert_eq!((fx.popups[0].text.as_str(), fx.popups[0].age), ("-12", 0));
        fx.damage_popup(key, 0, Vec2::ZERO, 3);
        assert_eq!(fx.popups.len(), 2, "another victim");
        fx.popups[0].age = MERGE_TICKS;
        fx.damage_popup(key, 1, Vec2::ZERO, 4);
        let texts: Vec<&str> = fx.popups.iter().map(|p| p.text.as_str()).collect();
        assert_eq!(texts, ["-12", "-3", "-4"]);
    }

    /// The effects' private generator is a fixed sequence from its seed (a replay sparks the
    /// same way every time): its first draws, in 24-bit steps.
    #[test]
    fn the_private_generator_draws_a_fixed_sequence() {
        let mut fx = Effects::new();
        let draws: Vec<u32> = (0..3)
            .map(|_| (fx.random() * 16_777_216.0) as u32)
            .collect();
        assert_eq!(draws, [12_429_826, 13_812_852, 7_934_538]);
    }

    /// An effect of `life` ticks is there for `life - 1` ticks after its own and gone at the
    /// `life`th; a particle moves by its speed, which then slows by 14 %; a popup rises 0.02
    /// tiles a tick.
    #[test]
    fn effects_age_move_and_end_at_their_life() {
        let state = World::new(Rules::default(), 1, 2).unwrap().state().clone();
        let mut fx = made(3);
        fx.on_tick(&[], &state, &state);
        assert_eq!(fx.particles[0].pos, Vec2::new(1.0, 0.0));
        assert_eq!(fx.particles[0].vel, Vec2::new(0.86, 0.0));
        assert_eq!(fx.popups[0].pos.y, -0.02);
        fx.on_tick(&[], &state, &state);
        assert_eq!(fx.particles[0].pos, Vec2::new(1.86, 0.0));
        assert_eq!((fx.len(), fx.shakes.len()), (10, 1), "alive at age 2 of 3");
        fx.on_tick(&[], &state, &state);
        assert_eq!((fx.len(), fx.shakes.len()), (0, 0), "gone at age 3 of 3");
    }

    /// The arena's shake is a fixed function of each shake's age (a replay shakes the same):
    /// two shakes add up; one at the end of its life is still.
    #[test]
    fn the_shake_is_a_function_of_the_shakes_ages() {
        let shake = |strength, age, life| Shake {
            strength,
            age,
            life,
            origin: origin(),
        };
        let near = |got: Vec2, x: f32, y: f32| (got - Vec2::new(x, y)).length() < 1e-6;
        let mut fx = Effects::new();
        fx.shakes = vec![shake(0.14, 3, 20)];
        let one = fx.shake_offset(0.5);
        assert!(near(one, 0.083_440_09, -0.094_480_71), "{one}");
        fx.shakes = vec![shake(0.2, 2, 10)];
        let other = fx.shake_offset(0.5);
        assert!(near(other, -0.096_630_13, 0.096_387_11), "{other}");
        fx.shakes = vec![shake(0.14, 3, 20), shake(0.2, 2, 10)];
        let both = fx.shake_offset(0.5);
        assert!(near(both, one.x + other.x, one.y + other.y), "{both}");
        fx.shakes = vec![shake(0.2, 12, 12)];
        assert_eq!(fx.shake_offset(0.0), Vec2::ZERO);
    }

    #[test]
    fn quick_hits_on_one_victim_add_up_in_one_number() {
        let world = World::new(Rules::default(), 1, 2).unwrap();
        let state = world.state();
        let hit = |tick| Event {
            tick,
            kind: EventKind::Hit {
                attacker: 0,
                attacker_generation: 1,
                victim: 1,
                damage: 8,
                source: HitSource::Projectile(tick),
            },
        };
        let mut fx = Effects::new();
        fx.on_tick(&[hit(0)], state, state);
        fx.on_tick(&[hit(1)], state, state);
        let numbers: Vec<&str> = fx.popups.iter().map(|p| p.text.as_str()).collect();
        assert_eq!(numbers, ["-16"]);
        for _ in 0..200 {
            fx.on_tick(&[], state, state);
        }
        assert!(fx.is_empty(), "effects die out");
    }

    #[test]
    fn a_retracted_hit_takes_its_sparks_and_its_share_of_the_number() {
        let world = World::new(Rules::default(), 1, 2).unwrap();
        let state = world.state();
        let hit = |tick, damage| Event {
            tick,
            kind: EventKind::Hit {
                attacker: 0,
                attacker_generation: 1,
                victim: 1,
                damage,
                source: HitSource::Projectile(tick),
            },
        };
        let mut fx = Effects::new();
        fx.on_tick(&[hit(0, 8)], state, state);
        let after_first = fx.len();
        fx.on_tick(&[hit(1, 18)], state, state);
        fx.retract(&hit(1, 18).key());
        let numbers: Vec<&str> = fx.popups.iter().map(|p| p.text.as_str()).collect();
        assert_eq!(numbers, ["-8"], "only the hit that happened is counted");
        assert_eq!(
            fx.len(),
            after_first,
            "the retracted hit's sparks are gone too"
        );
        fx.retract(&hit(0, 8).key());
        assert!(fx.is_empty());
    }

    /// Issue 10: when fighters touch, their bars and damage numbers piled into one smear.
    /// Two fighters on the very same spot trading hits (some while reloading) for a second:
    /// at every tick no two bars or numbers overlap, and each victim has one number at a time
    /// while hits keep coming.
    #[test]
    fn numbers_and_bars_of_touching_fighters_never_overlap() {
        use crate::draw::fighter_view::place_bars;
        let rules = Rules::default();
        let world = World::new(rules.clone(), 1, 2).unwrap();
        let mut state = world.state().clone();
        state.players[1].pos = state.players[0].pos;
        state.players[1].reload_timer = 30;
        let layout = Layout::new((960, 600), (state.maze.width, state.maze.height));
        let mut fx = Effects::new();
        for tick in 0..60u32 {
            let hit = |victim: u8| Event {
                tick,
                kind: EventKind::Hit {
                    attacker: 1 - victim,
                    attacker_generation: 1,
                    victim,
                    damage: 5,
                    source: HitSource::Projectile(tick * 2 + u32::from(victim)),
                },
            };
            let events = match tick % 7 {
                0 => vec![hit(0), hit(1)],
                3 => vec![hit(1)],
                _ => vec![],
            };
            fx.on_tick(&events, &state, &state);
            let mut labels = LabelStack::new();
            let shown: Vec<(&engine::Player, Vec2)> = (state.players.iter())
                .map(|p| (p, layout.to_screen(vec2(p.pos))))
                .collect();
            let mut rects: Vec<Rect> = place_bars(&layout, &rules, &shown, &mut labels)
                .into_iter()
                .map(|(_, r)| r)
                .collect();
            rects.extend(fx.place_popups(&layout, 0.5, &mut labels));
            assert!(rects.len() >= 3, "tick {tick}: bars and numbers: {rects:?}");
            for (i, a) in rects.iter().enumerate() {
                for b in &rects[i + 1..] {
                    assert!(!a.has_intersection(*b), "tick {tick}: {a:?} overlaps {b:?}");
                }
            }
            for victim in 0..2 {
                let numbers = fx.popups.iter().filter(|p| p.victim == Some(victim));
                assert!(
                    numbers.count() <= 2,
                    "tick {tick}: victim {victim}'s numbers pile up"
                );
            }
        }
    }

    /// A solid hit shakes the arena for a while; a retracted one takes its shake with it.
    #[test]
    fn a_hit_shakes_the_arena_until_it_fades_or_is_retracted() {
        let world = World::new(Rules::default(), 1, 2).unwrap();
        let state = world.state();
        let hit = Event {
            tick: 3,
            kind: EventKind::Hit {
                attacker: 0,
                attacker_generation: 1,
                victim: 1,
                damage: 18,
                source: HitSource::Melee,
            },
        };
        let mut fx = Effects::new();
        assert_eq!(fx.shake_offset(0.0), Vec2::ZERO);
        fx.on_tick(&[hit], state, state);
        assert!(fx.shake_offset(0.5).length() > 0.01, "shaking");
        fx.retract(&hit.key());
        assert_eq!(fx.shake_offset(0.5), Vec2::ZERO, "taken back");
        fx.on_tick(&[hit], state, state);
        for _ in 0..30 {
            fx.on_tick(&[], state, state);
        }
        assert_eq!(fx.shake_offset(0.5), Vec2::ZERO, "faded");
    }

    /// Heavier hits shake harder: melee over the rail over a projectile, and more damage more.
    #[test]
    fn heavy_hits_shake_harder() {
        let melee = shake_strength(HitSource::Melee, 18);
        let rail = shake_strength(HitSource::Rail, 18);
        let shot = shake_strength(HitSource::Projectile(0), 18);
        assert!(melee > rail && rail > shot, "{melee} {rail} {shot}");
        assert!(shake_strength(HitSource::Melee, 30) > shake_strength(HitSource::Melee, 5));
        assert!(
            melee >= 0.2,
            "a full melee hit shakes at least a fifth of a tile: {melee}"
        );
        assert_eq!(
            shake_strength(HitSource::Melee, 255),
            0.28,
            "capped at twice the base"
        );
    }

    /// The debug overlay's "last rail shot" goes with its event when a rollback takes it back.
    #[test]
    fn a_retracted_rail_shot_is_no_longer_the_last() {
        let world = World::new(Rules::default(), 1, 2).unwrap();
        let state = world.state();
        let shot = |tick, shooter| Event {
            tick,
            kind: EventKind::RailShot(ShotRecord {
                shooter,
                ..ShotRecord::default()
            }),
        };
        let mut fx = Effects::new();
        fx.on_tick(&[shot(5, 1)], state, state);
        fx.on_tick(&[shot(6, 0)], state, state);
        assert_eq!(fx.last_rail_shot().map(|s| s.shooter), Some(0));
        fx.retract(&shot(5, 1).key());
        assert_eq!(
            fx.last_rail_shot().map(|s| s.shooter),
            Some(0),
            "another shot"
        );
        fx.retract(&shot(6, 0).key());
        assert_eq!(fx.last_rail_shot(), None);
    }
}
