//! `SavedWorld`: a saved state as one image of its canonical bytes, in one buffer, placed
//! against the live state it was copied from. It is the duel's [`game_api::Game::Snapshot`]:
//! what a rollback saves after every advance and loads once a frame.
//!
//! Why one image. A save copies every section of the live state; a [`WorldSnapshot`] keeps
//! each in a buffer of its own, wherever the allocator put it, and how long the copy takes
//! depends on where those buffers lie modulo 4 KiB: the CPU matches a load against the
//! stores in flight by their low 12 address bits, so a copy whose loads fall on the page
//! offsets of its recent stores waits for them (4 KiB aliasing). Over 1,000 slots at
//! standard load the slowest hundredth of `WorldSnapshot` saves took 1.2–1.6× the median,
//! the same slots in any order (`benches/placement.rs`). With the whole state in one buffer a
//! save chooses where every part of its copy lies: each part goes where no byte of it is
//! within a cache line (modulo 4 KiB) of a byte the save reads, the live struct's fields
//! included, so no store of a save or a load (which reads the same pairs the other way)
//! stands in the way of a later access. Where the state reads from too much of a page for
//! that (a thousand projectiles span several pages), each part goes half a page past its
//! own source instead, which keeps a copy's stores off the loads that follow them. A slot is
//! placed on its first save and again only when the live record buffers move or outgrow its
//! room; a world that moves keeps its buffers, so its slots keep their places.
//!
//! The image holds the state's canonical bytes, so nothing but placement is new: the rest
//! section as its hash encodes it (its bincode bytes), the maze's size, then the players,
//! tiles, pose samples and projectiles as they lie in memory (each record's bytes are its
//! bincode encoding, see [`Projectile`]). Hashing a saved state is xxh3 over its parts as
//! they lie (the maze section's hash is kept from the save, as the world caches it),
//! comparing two is `memcmp`, and it serialises, prints and hashes exactly as the
//! [`WorldSnapshot`] it holds. Where the parts lie is not state: no hash, encoding or
//! comparison sees it.

use crate::error::Error;
use crate::hash::{encode_rest, StateHash, REST_BYTES};
use crate::maze::{Maze, Tile};
use crate::player::{Player, MAX_PLAYERS};
use crate::pose_history::PoseSample;
use crate::projectile::Projectile;
use crate::rng::DetRng;
use crate::round::{RoundPhase, RoundState};
use crate::snapshot::WorldSnapshot;
use crate::Tick;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::fmt;
use std::mem::size_of;
use xxhash_rust::xxh3::xxh3_64;

/// The span of addresses 4 KiB aliasing compares.
const PAGE: usize = 4096;
const _: () = assert!(
    PAGE.is_power_of_two(),
    "`near` takes offsets modulo PAGE by wrapping"
);
/// How far apart (modulo a page) a part of the image and a byte the save reads stay at
/// least: a cache line, so no access to one line waits on the other.
const LINE: usize = 64;
/// Where a part may start in the image: every record's alignment divides it.
const ALIGN: usize = 16;

/// The head: the rest section's canonical bytes (zero-padded to [`REST_BYTES`]), then the
/// maze's width and height.
const HEAD_BYTES: usize = REST_BYTES + 8;

/// The parts of the image, in the order they lie in it and are copied.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Part {
    Head,
    Players,
    Tiles,
    Pose,
    Projectiles,
}

impl Part {
    const ALL: [Part; 5] = [
        Part::Head,
        Part::Players,
        Part::Tiles,
        Part::Pose,
        Part::Projectiles,
    ];
}

/// Where a part lies in the image: `len` bytes from byte `at`, with room for `room`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Span {
    at: usize,
    len: usize,
    room: usize,
}

/// A saved state: the canonical bytes of a [`WorldSnapshot`] in one buffer, each part
/// placed clear of the page offsets its save read from (see the module doc). Made only from
/// a state ([`SavedWorld::of`], [`SavedWorld::save_from`], or by deserialising a
/// [`WorldSnapshot`]), so its bytes always decode.
pub struct SavedWorld {
    /// The image, in `u64`s so that every record in it is aligned.
    image: Vec<u64>,
    /// Where each part lies, in [`Part::ALL`] order.
    spans: [Span; 5],
    /// What the spans were placed against: the addresses of the live state's four record
    /// buffers and of the image (all zero before the first placement). While they hold and
    /// the records fit, a save copies without choosing again.
    against: [usize; 5],
    /// How many times the parts were placed: once per slot while the live state stays put.
    placements: u32,
    /// The maze section's hash, taken with the tiles: a cache like the world's (not state,
    /// made from the tiles alone), so hashing a saved state never hashes its tiles again.
    maze_hash: u64,
}

/// Bytes in memory: an address and a length.
type Range = (usize, usize);

/// The byte range of each thing a save reads, by part (the head reads the live struct).
fn sources(live: &WorldSnapshot) -> [Range; 5] {
    let range = |bytes: &[u8]| (bytes.as_ptr() as usize, bytes.len());
    [
        (
            std::ptr::from_ref(live) as usize,
            size_of::<WorldSnapshot>(),
        ),
        range(bytemuck::cast_slice(&live.players)),
        range(bytemuck::cast_slice(&live.maze.tiles)),
        range(bytemuck::cast_slice(&live.pose_history.samples)),
        range(bytemuck::cast_slice(&live.projectiles)),
    ]
}

/// Whether `len` bytes at `at` come within a cache line, modulo a page, of `other_len`
/// bytes at `other` (ranges longer than a page reach every offset).
fn near(at: usize, len: usize, other: usize, other_len: usize) -> bool {
    // The distance from the other range's start to this one's, modulo a page (a power of
    // two, so the wrapped difference has it): they are apart if this one starts a line after
    // the other ends and ends a line before the other starts again, which no two ranges
    // reaching round a page can.
    let from_other = at.wrapping_sub(other) % PAGE;
    !(from_other >= other_len + LINE && from_other + len + LINE <= PAGE)
}

/// The first offset at or after `from` in an image whose first byte is at address `base`
/// where `len` bytes lie clear of every range in `reads`; else the one at which they lie
/// half a page past `own` (the part's own source), so at least the copy's stores stay off
/// the loads that follow them. Either lies less than a page past `from`.
fn choose(base: usize, from: usize, len: usize, reads: &[Range; 5], own: usize) -> usize {
    let from = from.next_multiple_of(ALIGN);
    (from..from + PAGE)
        .step_by(ALIGN)
        .find(|&at| {
            reads
                .iter()
                .all(|&(other, other_len)| !near(base + at, len, other, other_len))
        })
        .unwrap_or_else(|| {
            // How far past `from` the address half a page past `own` comes round, modulo a
            // page (wrapping, as in `near`), rounded down to the alignment.
            let gap = (own + PAGE / 2).wrapping_sub(base + from) % PAGE;
            from + gap / ALIGN * ALIGN
        })
}

impl SavedWorld {
    /// An image of `live`, placed against it.
    #[must_use]
    pub fn of(live: &WorldSnapshot) -> SavedWorld {
        let mut saved = SavedWorld {
            image: Vec::new(),
            spans: [Span::default(); 5],
            against: [0; 5],
            placements: 0,
            maze_hash: 0,
        };
        saved.save_from(live);
        saved
    }

    /// Copies `live` into this image, reusing its buffer (no allocation once it has room for
    /// the state). Places the parts anew when the live state's buffers moved or outgrew the
    /// room (see the module doc); otherwise five copies. Hashes the maze's tiles, which
    /// [`World::save_image`](crate::World::save_image) takes from the world's cache instead.
    pub fn save_from(&mut self, live: &WorldSnapshot) {
        self.save_with_maze_hash(live, live.maze_hash());
    }

    /// [`SavedWorld::save_from`] with the maze section's hash given: it must be `live`'s
    /// (the world's cache always is).
    pub(crate) fn save_with_maze_hash(&mut self, live: &WorldSnapshot, maze_hash: u64) {
        let WorldSnapshot {
            tick: _,
            rules_hash: _,
            match_seed: _,
            rng: _,
            next_projectile_id: _,
            round: _,
            players,
            projectiles,
            maze,
            pose_history,
        } = live;
        let parts: [&[u8]; 4] = [
            bytemuck::cast_slice(players),
            bytemuck::cast_slice(&maze.tiles),
            bytemuck::cast_slice(&pose_history.samples),
            bytemuck::cast_slice(projectiles),
        ];
        // Placed against these very buffers (one test of all five addresses, no call), and
        // each part has the room: the steady state of a rollback's saves. Where the live
        // struct lies counts only when the parts are placed: a world that moved (a session
        // returned by value) keeps its buffers, and placing every slot again after a move
        // would cost more than the head's 64 bytes can lose.
        let here = [
            parts[0].as_ptr() as usize,
            parts[1].as_ptr() as usize,
            parts[2].as_ptr() as usize,
            parts[3].as_ptr() as usize,
            self.image.as_ptr() as usize,
        ];
        let moved = (here.iter().zip(&self.against)).any(|(a, b)| a != b);
        let fits = (parts.iter().zip(&self.spans[1..])).all(|(part, span)| part.len() <= span.room);
        if moved || !fits {
            self.place(live, &sources(live));
        }
        // The head, built whole and stored in one copy: the rest section's canonical bytes,
        // zero-padded, then the maze's size.
        let mut head = [0u8; HEAD_BYTES];
        let (rest, size) = head.split_at_mut(REST_BYTES);
        let rest_len = encode_rest(live, rest.try_into().expect("REST_BYTES"));
        size[..4].copy_from_slice(&maze.width.to_le_bytes());
        size[4..].copy_from_slice(&maze.height.to_le_bytes());
        let bytes: &mut [u8] = bytemuck::cast_slice_mut(&mut self.image);
        let head_span = &mut self.spans[Part::Head as usize];
        bytes[head_span.at..head_span.at + HEAD_BYTES].copy_from_slice(&head);
        // The head's length is the rest section's: what its hash covers.
        head_span.len = rest_len;
        self.maze_hash = maze_hash;
        for (part, span) in parts.iter().zip(&mut self.spans[1..]) {
            bytes[span.at..span.at + part.len()].copy_from_slice(part);
            span.len = part.len();
        }
    }

    /// Chooses where each part lies against `live` (whose reads are `reads`), growing the
    /// image when it lacks the room: for the live buffers' capacities, and a page in front
    /// of each part for the placement.
    #[cold]
    #[inline(never)]
    fn place(&mut self, live: &WorldSnapshot, reads: &[Range; 5]) {
        let rooms = [
            HEAD_BYTES,
            size_of_val::<[Player]>(&live.players),
            live.maze.tiles.len(),
            size_of_val::<[PoseSample]>(&live.pose_history.samples),
            live.projectiles.capacity() * size_of::<Projectile>(),
        ];
        let bytes = rooms.iter().sum::<usize>() + Part::ALL.len() * (PAGE + ALIGN);
        let words = bytes.div_ceil(size_of::<u64>());
        if self.image.len() < words {
            self.image = vec![0; words];
        }
        let base = self.image.as_ptr() as usize;
        let mut from = 0;
        for (part, room) in Part::ALL.into_iter().zip(rooms) {
            let (own, len) = reads[part as usize];
            let len = if part == Part::Head { HEAD_BYTES } else { len };
            let at = choose(base, from, len, reads, own);
            self.spans[part as usize] = Span { at, len: 0, room };
            from = at + room;
        }
        self.placements = self.placements.wrapping_add(1);
        self.against = [reads[1].0, reads[2].0, reads[3].0, reads[4].0, base];
    }

    /// The bytes of `part` (all of the head, padding and maze size included).
    fn part(&self, part: Part) -> &[u8] {
        let span = self.spans[part as usize];
        let len = if part == Part::Head {
            HEAD_BYTES
        } else {
            span.len
        };
        &bytemuck::cast_slice(&self.image)[span.at..span.at + len]
    }

    /// The rest section's canonical bytes: the front of the head.
    fn rest(&self) -> &[u8] {
        let span = self.spans[Part::Head as usize];
        &bytemuck::cast_slice(&self.image)[span.at..span.at + span.len]
    }

    /// The records of `part`, made from its bytes.
    fn records<T: bytemuck::AnyBitPattern>(&self, part: Part) -> &[T] {
        bytemuck::cast_slice(self.part(part))
    }

    /// The head's fields (the rest section and the maze's size).
    pub(crate) fn head(&self) -> Head {
        Head::decode(self.part(Part::Head).try_into().expect("the head's size"))
            .expect("an image is only ever made from a state")
    }

    /// The players, made from their bytes (each action's variant checked).
    fn players(&self) -> &[Player] {
        bytemuck::checked::try_cast_slice(self.part(Part::Players))
            .expect("an image is only ever made from a state")
    }

    /// The tick the saved state is at.
    #[must_use]
    pub fn tick(&self) -> Tick {
        self.head().tick
    }

    /// The hash of the rules the state was saved under.
    #[must_use]
    pub fn rules_hash(&self) -> u64 {
        self.head().rules_hash
    }

    /// The saved state's canonical bytes, [`WorldSnapshot::to_bytes`] of the state it holds.
    #[must_use]
    pub fn to_bytes(&self) -> Vec<u8> {
        self.to_snapshot().to_bytes()
    }

    /// The saved state as a [`WorldSnapshot`] (a new one: for tools, logs and checks).
    #[must_use]
    pub fn to_snapshot(&self) -> WorldSnapshot {
        let mut state = WorldSnapshot::placeholder();
        self.copy_into(&mut state);
        state
    }

    /// Copies the saved state into `live`, reusing its buffers (no allocation once they
    /// have the room): the rollback's load, and a presentation's copy of a past state. The
    /// parts lie clear of `live`'s buffers when `live` is what they were placed against (a
    /// world's own state), so the rollback's load waits on nothing either.
    pub fn copy_into(&self, live: &mut WorldSnapshot) {
        self.copy_with(&self.head(), live);
    }

    /// [`SavedWorld::copy_into`] with the head already decoded.
    pub(crate) fn copy_with(&self, head: &Head, live: &mut WorldSnapshot) {
        head.set_rest(live);
        live.players.clear();
        live.players.extend_from_slice(self.players());
        live.maze.width = head.width;
        live.maze.height = head.height;
        live.maze.tiles.clear();
        live.maze.tiles.extend_from_slice(self.records(Part::Tiles));
        live.pose_history.samples.clear();
        live.pose_history
            .samples
            .extend_from_slice(self.records(Part::Pose));
        live.projectiles.clear();
        live.projectiles
            .extend_from_slice(self.records(Part::Projectiles));
    }

    /// Whether the saved maze (whose head is `head`) is `maze`, tile for tile.
    pub(crate) fn same_maze(&self, head: &Head, maze: &Maze) -> bool {
        (head.width, head.height) == (maze.width, maze.height)
            && self.part(Part::Tiles) == bytemuck::cast_slice::<Tile, u8>(&maze.tiles)
    }

    /// Whether `live` is exactly the saved state (what `SavedWorld::of(live) == *self`
    /// says), told without copying it.
    #[must_use]
    pub fn holds(&self, live: &WorldSnapshot) -> bool {
        let mut rest = [0u8; REST_BYTES];
        encode_rest(live, &mut rest);
        let head = self.part(Part::Head);
        head[..REST_BYTES] == rest
            && head[REST_BYTES..REST_BYTES + 4] == live.maze.width.to_le_bytes()
            && head[REST_BYTES + 4..] == live.maze.height.to_le_bytes()
            && self.part(Part::Players) == bytemuck::cast_slice::<Player, u8>(&live.players)
            && self.part(Part::Tiles) == bytemuck::cast_slice::<Tile, u8>(&live.maze.tiles)
            && self.part(Part::Pose)
                == bytemuck::cast_slice::<PoseSample, u8>(&live.pose_history.samples)
            && self.part(Part::Projectiles)
                == bytemuck::cast_slice::<Projectile, u8>(&live.projectiles)
    }

    /// The state hash of the saved state: each section's xxh3 over its part of the image
    /// (the maze's kept from the save), the same value [`WorldSnapshot::hash`] gives the
    /// state. Nothing is decoded or encoded: four xxh3 calls over the parts as they lie,
    /// and one over the five hashes.
    #[must_use]
    pub fn hash(&self) -> StateHash {
        StateHash::from_sections([
            xxh3_64(self.part(Part::Players)),
            xxh3_64(self.part(Part::Projectiles)),
            self.maze_hash,
            xxh3_64(self.part(Part::Pose)),
            xxh3_64(self.rest()),
        ])
    }

    /// The maze section's hash (kept from the save).
    pub(crate) fn maze_hash(&self) -> u64 {
        self.maze_hash
    }
}

/// The head's fields, decoded.
pub(crate) struct Head {
    tick: Tick,
    pub(crate) rules_hash: u64,
    match_seed: u64,
    rng: DetRng,
    next_projectile_id: u32,
    round: RoundState,
    width: u32,
    height: u32,
}

impl Head {
    /// Puts the rest section's fields (all but the maze's size) into `state`.
    fn set_rest(&self, state: &mut WorldSnapshot) {
        state.tick = self.tick;
        state.rules_hash = self.rules_hash;
        state.match_seed = self.match_seed;
        state.rng = self.rng;
        state.next_projectile_id = self.next_projectile_id;
        state.round = self.round;
    }

    /// Reads what `encode_rest` and the save wrote; `None` for bytes no state encodes to (a
    /// round phase or a winner tag out of range).
    fn decode(bytes: &[u8; HEAD_BYTES]) -> Option<Head> {
        let mut at = 0;
        let mut take = |n: usize| {
            let taken = &bytes[at..at + n];
            at += n;
            taken
        };
        let u8_at = |b: &[u8]| b[0];
        let u32_at = |b: &[u8]| u32::from_le_bytes(b.try_into().expect("4 bytes"));
        let u64_at = |b: &[u8]| u64::from_le_bytes(b.try_into().expect("8 bytes"));
        let tick = u32_at(take(4));
        let rules_hash = u64_at(take(8));
        let match_seed = u64_at(take(8));
        let rng = DetRng {
            state: u64_at(take(8)),
        };
        let next_projectile_id = u32_at(take(4));
        let round = u8_at(take(1));
        let phase = match u32_at(take(4)) {
            0 => RoundPhase::Countdown,
            1 => RoundPhase::Fighting,
            2 => RoundPhase::RoundOver,
            3 => RoundPhase::MatchOver,
            _ => return None,
        };
        let phase_timer = u32_at(take(4));
        let wins: [u8; MAX_PLAYERS] = take(MAX_PLAYERS).try_into().expect("MAX_PLAYERS");
        let last_winner = match u8_at(take(1)) {
            0 => None,
            1 => Some(u8_at(take(1))),
            _ => return None,
        };
        let round_seed = u64_at(take(8));
        Some(Head {
            tick,
            rules_hash,
            match_seed,
            rng,
            next_projectile_id,
            round: RoundState {
                round,
                phase,
                phase_timer,
                wins,
                last_winner,
                round_seed,
            },
            width: u32_at(&bytes[REST_BYTES..REST_BYTES + 4]),
            height: u32_at(&bytes[REST_BYTES + 4..]),
        })
    }
}

impl Clone for SavedWorld {
    /// A copy of the image (placed against nothing: the first save into it places it).
    fn clone(&self) -> SavedWorld {
        SavedWorld {
            image: self.image.clone(),
            spans: self.spans,
            against: [0; 5],
            placements: 0,
            maze_hash: self.maze_hash,
        }
    }
}

impl PartialEq for SavedWorld {
    /// Part by part, as bytes: equal bytes are equal states (every part is canonical, the
    /// head's padding always zero).
    fn eq(&self, other: &SavedWorld) -> bool {
        Part::ALL
            .into_iter()
            .all(|part| self.part(part) == other.part(part))
    }
}

impl Eq for SavedWorld {}

impl PartialEq<WorldSnapshot> for SavedWorld {
    /// Whether this is an image of exactly that state ([`SavedWorld::holds`]).
    fn eq(&self, state: &WorldSnapshot) -> bool {
        self.holds(state)
    }
}

impl PartialEq<SavedWorld> for WorldSnapshot {
    /// Whether `saved` is an image of exactly this state ([`SavedWorld::holds`]).
    fn eq(&self, saved: &SavedWorld) -> bool {
        saved.holds(self)
    }
}

impl fmt::Debug for SavedWorld {
    /// As the [`WorldSnapshot`] it holds.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.to_snapshot().fmt(f)
    }
}

impl Serialize for SavedWorld {
    /// As the [`WorldSnapshot`] it holds: the same bytes, the same field-by-field form.
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.to_snapshot().serialize(serializer)
    }
}

impl<'de> Deserialize<'de> for SavedWorld {
    /// From a [`WorldSnapshot`]'s form.
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<SavedWorld, D::Error> {
        WorldSnapshot::deserialize(deserializer).map(|state| SavedWorld::of(&state))
    }
}

/// Snapshot bytes to a saved image: [`WorldSnapshot::from_bytes`], then [`SavedWorld::of`].
///
/// # Errors
/// As [`WorldSnapshot::from_bytes`].
pub(crate) fn saved_from_bytes(bytes: &[u8]) -> Result<SavedWorld, Error> {
    WorldSnapshot::from_bytes(bytes).map(|state| SavedWorld::of(&state))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bench_support::{fight_inputs, loaded_world};
    use crate::hash::Section;
    use crate::{Bot, Rules, World};

    /// States from a real three-player match, every `every` ticks: every action, both
    /// `last_winner` variants, projectiles in flight, damaged blocks, round changes.
    fn match_states(every: usize) -> Vec<WorldSnapshot> {
        let mut world = World::new(Rules::default(), 77, 3).expect("world");
        let mut bots = [Bot::new(0, 1), Bot::new(1, 2), Bot::new(2, 3)];
        let mut states = vec![world.snapshot()];
        for n in 1..=3000 {
            let inputs = [
                bots[0].think(&world),
                bots[1].think(&world),
                bots[2].think(&world),
            ];
            world.step(&inputs).expect("step");
            if n % every == 0 {
                states.push(world.snapshot());
            }
        }
        assert!(states.iter().any(|s| s.round.last_winner.is_some()));
        assert!(states.iter().any(|s| s.projectiles.len() > 3));
        states
    }

    /// An image holds its state exactly: it decodes to it, tells it equal, hashes, encodes
    /// and prints as it does.
    #[test]
    fn an_image_is_its_state() {
        for state in match_states(97) {
            let image = SavedWorld::of(&state);
            assert_eq!(image.to_snapshot(), state);
            assert!(image.holds(&state));
            assert_eq!(image, state);
            assert_eq!(state, image);
            assert_eq!(image.hash(), state.hash());
            assert_eq!(image.to_bytes(), state.to_bytes());
            assert_eq!(image.tick(), state.tick);
            assert_eq!(image.rules_hash(), state.rules_hash);
            assert_eq!(format!("{image:?}"), format!("{state:?}"));
            assert_eq!(image.clone(), image);
        }
    }

    /// One changed bit in any section, or any field of the rest, makes another image, one that
    /// holds the changed state and not the first, and hashes differently in that section.
    #[test]
    fn a_change_anywhere_is_another_image() {
        let state = loaded_world(8, 12).snapshot();
        let image = SavedWorld::of(&state);
        type Edit = fn(&mut WorldSnapshot);
        let edits: [(Section, Edit); 10] = [
            (Section::Players, |s| {
                s.players[1].pos.x += crate::fx::fx_bits(1)
            }),
            (Section::Players, |s| {
                s.players[0].action = crate::Action::Ko
            }),
            (Section::Projectiles, |s| s.projectiles[7].wall_clear ^= 1),
            (Section::Projectiles, |s| {
                s.projectiles.pop();
            }),
            (Section::Maze, |s| s.maze.tiles[40] = Tile::block(2)),
            (Section::Maze, |s| s.maze.width += 1),
            (Section::History, |s| {
                s.pose_history.samples[3].pos.y += crate::fx::fx_bits(1)
            }),
            (Section::Rest, |s| s.rng.state ^= 1 << 63),
            (Section::Rest, |s| s.round.last_winner = Some(1)),
            (Section::Rest, |s| s.round.phase = RoundPhase::MatchOver),
        ];
        for (n, (section, edit)) in edits.into_iter().enumerate() {
            let mut changed = state.clone();
            edit(&mut changed);
            let other = SavedWorld::of(&changed);
            assert_ne!(other, image, "edit {n}");
            assert!(!image.holds(&changed) && !other.holds(&state), "edit {n}");
            assert!(other.holds(&changed), "edit {n}");
            assert_ne!(image, changed, "edit {n}");
            assert_ne!(changed, image, "edit {n}");
            assert_eq!(other.to_snapshot(), changed, "edit {n}");
            assert_eq!(
                image.hash().first_difference(&other.hash()),
                Some(section),
                "edit {n}"
            );
        }
    }

    /// Saving into a used image gives the image a fresh one would be, tick after tick, after
    /// the live projectiles outgrow their buffer, and after the world itself moves.
    #[test]
    fn a_used_image_saves_as_a_fresh_one() {
        let mut world = Box::new(loaded_world(32, 12));
        let mut image = world.image();
        for tick in 0..40 {
            world.step(&fight_inputs(tick)).expect("step");
            world.save_image(&mut image);
            assert_eq!(image, world.image(), "tick {tick}");
            assert!(image.holds(world.state()), "tick {tick}");
        }
        assert_eq!(
            image.placements, 1,
            "placed once while the live state stayed put"
        );
        // The image holds the live buffers' room and a page (and the alignment) in front of
        // each part, no more.
        let live = world.state();
        let room = HEAD_BYTES
            + size_of_val::<[Player]>(&live.players)
            + live.maze.tiles.len()
            + size_of_val::<[PoseSample]>(&live.pose_history.samples)
            + live.projectiles.capacity() * size_of::<Projectile>();
        let bytes = image.image.len() * size_of::<u64>();
        assert_eq!(bytes, (room + 5 * (PAGE + ALIGN)).next_multiple_of(8));
        // More projectiles than the live buffer holds: it moves, the image is placed again.
        let before = world.state().projectiles.as_ptr();
        let extra = world.state().projectiles[0];
        let room = world.state().projectiles.capacity();
        for _ in 0..=room {
            world.state.projectiles.push(extra);
        }
        assert_ne!(world.state().projectiles.as_ptr(), before);
        world.save_image(&mut image);
        assert_eq!(image.to_snapshot(), *world.state());
        assert_eq!(image.placements, 2);
        // The world itself moves (out of its box): its buffers stay, and so does the image.
        let moved: World = *world;
        moved.save_image(&mut image);
        assert_eq!(image.to_snapshot(), *moved.state());
        assert_eq!(image.placements, 2, "a moved world keeps its buffers");
        assert_eq!(image.against[0], moved.state().players.as_ptr() as usize);
        // A world whose buffers are elsewhere (a clone) gets placed against anew.
        let copy = moved.clone();
        copy.save_image(&mut image);
        assert_eq!(image.to_snapshot(), *copy.state());
        assert_eq!(image.placements, 3);
        // Placed again against the state it was made for, the buffer has exactly the room:
        // it stays.
        let mut image = copy.image();
        let buffer = image.image.as_ptr();
        image.against = [0; 5];
        copy.save_image(&mut image);
        assert_eq!(image.placements, 2);
        assert_eq!(
            image.image.as_ptr(),
            buffer,
            "no new buffer when the room is there"
        );
    }

    /// The load keeps the live maze's cached hash only for the very same maze: an image of
    /// a damaged or another maze is loaded with its own hash.
    #[test]
    fn an_image_tells_its_maze_from_another() {
        let mut world = loaded_world(32, 12);
        let image = world.image();
        let head = image.head();
        assert!(image.same_maze(&head, &world.state().maze));
        let mut damaged = world.snapshot();
        let wall = (damaged.maze.tiles.iter()).position(|&t| t == Tile::WALL);
        damaged.maze.tiles[wall.expect("a wall")] = Tile::block(1);
        assert!(!image.same_maze(&head, &damaged.maze));
        let mut wider = world.snapshot();
        wider.maze.width += 1;
        wider.maze.height -= 1;
        assert!(
            !image.same_maze(&head, &wider.maze),
            "the same tiles, other sizes"
        );
        let mut taller = world.snapshot();
        taller.maze.height += 1;
        assert!(!image.same_maze(&head, &taller.maze));
        // Loaded over a world whose maze was damaged since, the hash is the saved maze's.
        world.restore(&damaged).expect("a valid state");
        assert_ne!(world.state_hash(), image.hash());
        world.restore_image(&image).expect("same rules");
        assert_eq!(world.state_hash(), image.hash());
        assert_eq!(world.state_hash(), world.state().hash());
    }

    /// A save keeps the maze section's hash with the tiles: a used slot saved again after the
    /// maze changed (a new round) hashes as the new state, never with the old maze's hash,
    /// and so does a world loaded from it.
    #[test]
    fn a_used_slot_hashes_the_maze_it_saved_last() {
        let mut world = loaded_world(32, 12);
        let mut slot = world.image();
        let first = world.state_hash();
        assert_eq!(slot.hash(), first);
        world.start_round(2);
        assert_ne!(world.state().maze, slot.to_snapshot().maze, "a new maze");
        world.save_image(&mut slot);
        assert_eq!(slot.hash(), world.state().hash());
        assert_ne!(slot.hash().maze, first.maze);
        let mut other = loaded_world(32, 12);
        other.restore_image(&slot).expect("same rules");
        assert_eq!(other.state_hash(), world.state().hash());
        // A copy keeps it too.
        assert_eq!(slot.clone().hash(), slot.hash());
    }

    /// The rollback's load: a fresh world restored from an image replays bit-identically to
    /// the world that saved it, and an image of other rules is refused, the world unchanged.
    #[test]
    fn a_fresh_world_restored_from_an_image_replays_identically() {
        let mut world = loaded_world(32, 12);
        for tick in 0..10 {
            world.step(&fight_inputs(tick)).expect("step");
        }
        let image = world.image();
        let mut fresh = loaded_world(0, 12);
        fresh.restore_image(&image).expect("same rules");
        assert_eq!(fresh.state(), world.state());
        for tick in 10..60 {
            world.step(&fight_inputs(tick)).expect("step");
            fresh.step(&fight_inputs(tick)).expect("step");
            assert_eq!(fresh.state_hash(), world.state_hash(), "tick {tick}");
            assert_eq!(fresh.state(), world.state(), "tick {tick}");
        }
        let rules = Rules {
            block_hp: 7,
            ..Rules::default()
        };
        let mut other = World::new(rules, 3, 2).expect("world");
        let unchanged = other.snapshot();
        assert!(matches!(
            other.restore_image(&image),
            Err(Error::RulesMismatch { .. })
        ));
        assert_eq!(*other.state(), unchanged);
    }

    /// A checked restore of an image (`Game::restore`, a state from outside) refuses what a
    /// snapshot's check refuses, leaving the world unchanged, and loads a valid one.
    #[test]
    fn a_checked_restore_of_an_image_refuses_a_broken_state() {
        use game_api::Game;
        let world = loaded_world(32, 12);
        let mut broken = world.snapshot();
        broken.players[1].id = 0;
        let mut other = loaded_world(0, 12);
        let before = other.snapshot();
        assert!(matches!(
            Game::restore(&mut other, &SavedWorld::of(&broken)),
            Err(Error::SnapshotCorrupt { .. })
        ));
        assert_eq!(*other.state(), before);
        Game::restore(&mut other, &world.image()).expect("a valid state");
        assert_eq!(other.state(), world.state());
        assert_eq!(other.state_hash(), world.state_hash());
    }

    /// The ranges a save reads and an image's parts, by part, as (address, length).
    fn parts_and_reads(image: &SavedWorld, live: &WorldSnapshot) -> ([Range; 5], [Range; 5]) {
        let base = image.image.as_ptr() as usize;
        let parts = Part::ALL.map(|part| {
            let span = image.spans[part as usize];
            (base + span.at, image.part(part).len().max(span.len))
        });
        (parts, sources(live))
    }

    /// Whether `at` lies half a page past `own`, modulo a page, to within the image's
    /// alignment (at or just below it: the placement rounds down).
    fn half_a_page_past(at: usize, own: usize) -> bool {
        let want = (own + PAGE / 2) % PAGE;
        (want + PAGE - at % PAGE) % PAGE < ALIGN
    }

    /// Every part of every image lies at least a cache line, modulo a page, from every byte
    /// its save reads (the live struct and its four record buffers) wherever the page has
    /// such a place for it; where it has none (the reads leave no gap that wide, which the
    /// heap's layout decides), the part lies half a page past its own source. Images at
    /// standard load, allocated between fillers of many sizes.
    #[test]
    fn every_part_lies_clear_of_what_the_save_reads_where_the_page_has_room() {
        let world = Box::new(loaded_world(32, 12));
        let mut fillers = Vec::new();
        let mut seed = 1u64;
        for _ in 0..64 {
            seed = crate::splitmix64(seed);
            fillers.push(vec![0u8; (seed % 9000) as usize]);
            let image = world.image();
            let (parts, reads) = parts_and_reads(&image, world.state());
            for (part, (&(at, len), &(own, _))) in Part::ALL.iter().zip(parts.iter().zip(&reads)) {
                let clear =
                    |addr: usize| reads.iter().all(|&(o, o_len)| !near(addr, len, o, o_len));
                if clear(at) {
                    continue;
                }
                // Every place the image's alignment allows, modulo a page.
                assert!(
                    (0..PAGE / ALIGN).all(|k| !clear(at + k * ALIGN)),
                    "{part:?} at {} ({len} bytes) is near a read, though the page has room",
                    at % PAGE
                );
                assert!(
                    half_a_page_past(at, own),
                    "{part:?} at {}: not half a page past its source at {}",
                    at % PAGE,
                    own % PAGE
                );
            }
        }
    }

    /// Where the save reads from more than a page (a thousand projectiles), every part lies
    /// half a page past its own source instead, to within the image's alignment.
    #[test]
    fn a_state_over_a_page_places_each_part_half_a_page_past_its_source() {
        let world = Box::new(loaded_world(1024, 12));
        for _ in 0..8 {
            let image = world.image();
            let (parts, reads) = parts_and_reads(&image, world.state());
            for (part, (&(at, _), &(own, _))) in Part::ALL.iter().zip(parts.iter().zip(&reads)) {
                assert!(
                    half_a_page_past(at, own),
                    "{part:?}: {} for {}",
                    at % PAGE,
                    (own + PAGE / 2) % PAGE
                );
            }
            assert_eq!(image.to_snapshot(), *world.state());
        }
    }

    /// The closeness test is modular: a line apart on either side is clear, a byte less is
    /// not, across the page's end too, and ranges that fill a page are near everything.
    #[test]
    fn near_is_a_cache_line_modulo_a_page() {
        assert!(!near(1000 + 100 + LINE, 10, 1000, 100));
        assert!(near(1000 + 100 + LINE - 1, 10, 1000, 100));
        assert!(!near(1000 - LINE - 10, 10, 1000, 100));
        assert!(near(1000 - LINE - 9, 10, 1000, 100));
        assert!(!near(PAGE * 7 + 30, 10, PAGE * 3 + PAGE - 200, 100));
        assert!(near(PAGE * 7 + 30, 10, PAGE * 3 + PAGE - 30, 100));
        assert!(near(5, PAGE - 2 * LINE - 10, 3000, 10));
        assert!(!near(5, 10, 5 + PAGE / 2, 10));
        // Exactly a line either side of a range that fills the rest of the page: clear, and a
        // byte longer is not.
        let fill = PAGE - 100 - 2 * LINE;
        assert!(!near(1000 + 100 + LINE, fill, 1000, 100));
        assert!(near(1000 + 100 + LINE, fill + 1, 1000, 100));
        // Ranges longer than a page reach every offset.
        assert!(near(0, PAGE + 1, PAGE / 2, 1));
        assert!(near(PAGE / 2, 1, 0, PAGE + 1));
    }

    /// The head decodes only bytes a state encodes to: a round phase or a winner tag out of
    /// range is refused, not read as something.
    #[test]
    fn the_head_refuses_what_no_state_encodes() {
        let image = SavedWorld::of(&loaded_world(1, 12).snapshot());
        let head: [u8; HEAD_BYTES] = image.part(Part::Head).try_into().expect("size");
        assert!(Head::decode(&head).is_some());
        // The phase is the u32 after tick, three u64s, the projectile id and the round.
        let phase_at = 4 + 8 + 8 + 8 + 4 + 1;
        for phase in [4u32, u32::MAX] {
            let mut bad = head;
            bad[phase_at..phase_at + 4].copy_from_slice(&phase.to_le_bytes());
            assert!(Head::decode(&bad).is_none(), "phase {phase}");
        }
        let tag_at = phase_at + 4 + 4 + MAX_PLAYERS;
        let mut bad = head;
        bad[tag_at] = 2;
        assert!(Head::decode(&bad).is_none());
    }

    proptest::proptest! {
        /// Any bytes in the head decode or are refused, never panic; and what decodes is
        /// exactly what a state with those fields encodes to (its rest re-encodes to the
        /// same bytes).
        #[test]
        fn any_head_decodes_or_is_refused(bytes in proptest::collection::vec(proptest::num::u8::ANY, HEAD_BYTES)) {
            let head: [u8; HEAD_BYTES] = bytes.try_into().expect("size");
            if let Some(decoded) = Head::decode(&head) {
                let mut state = WorldSnapshot::placeholder();
                decoded.set_rest(&mut state);
                let mut rest = [0u8; REST_BYTES];
                let written = encode_rest(&state, &mut rest);
                proptest::prop_assert_eq!(&rest[..written], &head[..written]);
            }
        }

        /// Snapshot bytes from outside (a log, a peer's transfer), a real state's with bytes
        /// overwritten anywhere, the maze's tiles included: whatever decodes is an image that
        /// hashes as the state those bytes hold, its maze hashed from the tiles it was given,
        /// and that stays true after the image is cloned and saved into again.
        #[test]
        fn snapshot_bytes_make_an_image_that_hashes_as_their_state(
            edits in proptest::collection::vec((proptest::num::usize::ANY, proptest::num::u8::ANY), 1..8),
        ) {
            let mut bytes = loaded_world(4, 12).snapshot().to_bytes();
            let len = bytes.len();
            for (at, value) in edits {
                bytes[at % len] = value;
            }
            if let Ok(state) = WorldSnapshot::from_bytes(&bytes) {
                let image = saved_from_bytes(&bytes).expect("decodes as the snapshot does");
                proptest::prop_assert_eq!(image.hash(), state.hash());
                proptest::prop_assert_eq!(image.clone().hash(), state.hash());
                let mut used = loaded_world(4, 12).image();
                used.save_from(&state);
                proptest::prop_assert_eq!(used.hash(), state.hash());
            }
        }
    }

    /// An image serialises as its state (the same bytes in any serde format, the field-by-
    /// field form the desync tools diff), and reads back from them.
    #[test]
    fn an_image_serialises_as_its_state() {
        use bincode::Options;
        let state = loaded_world(32, 12).snapshot();
        let image = SavedWorld::of(&state);
        let options = crate::snapshot::canonical;
        let bytes = options().serialize(&image).expect("encodes");
        assert_eq!(bytes, options().serialize(&state).expect("encodes"));
        let back: SavedWorld = options().deserialize(&bytes).expect("decodes");
        assert_eq!(back, image);
        assert_eq!(saved_from_bytes(&image.to_bytes()).expect("reads"), image);
    }
}
