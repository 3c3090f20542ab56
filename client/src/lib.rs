//! What a playing peer needs around the deterministic core: GGRS sessions (sync test, two-peer
//! P2P over UDP or WebRTC rooms, spectators) behind a handshake, matches that survive the
//! internet (the reconnect grace, a rejoin from the match log, a resync after a desync,
//! spectators who join late), a link conditioner, per-tick hash logs, headless runs, and rules
//! files.
//!
//! The modules are grouped by concern:
//!
//! - [`net`]: transports (UDP, and WebRTC rooms with their signalling server), framing, the
//!   handshake, the socket GGRS talks through, GGRS's messages and the link conditioner.
//! - [`session`]: the GGRS configuration and driver, sync tests, networked peers (with their
//!   rejoin, resync, snapshot transfer and late spectators), pacing and statistics.
//! - [`logs`]: hash logs, match logs, a peer's logs of its final ticks, and replays.
//! - [`forensics`]: what a peer leaves behind at a desync, and the tools' reading of it.
//! - [`runs`]: headless bot matches, networked runs and the rail fairness measurement.
//! - At the top: the [`Error`] type, the [`journal`] of presentation effects, the
//!   [`remote_view`] and rules files ([`load_rules`]).
//!
//! # Bring your own game
//!
//! The netcode layer is written against [`game_api::Game`] (re-exported here as [`Game`]): a
//! game that implements it runs through the same [`session::synctest::SyncTester`], [`session::driver::Driver`], phase
//! traces, dumps, verdicts, hash logs, match logs and replays as the maze duel (`engine::World`) and the ring race
//! (`games/ring-race`). The smallest game there is — two tallies pushed by the players'
//! inputs — plugs in like this:
//!
//! ```
//! use client::session::synctest::SyncTester;
//! use client::{Game, SectionHash, StepObserver, Tick};
//! use serde::{Deserialize, Serialize};
//!
//! #[derive(Clone, Debug)]
//! struct Tally {
//!     state: TallyState,
//!     events: Vec<(Tick, u8)>,
//! }
//!
//! /// The whole future of a tally: the snapshot.
//! #[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
//! struct TallyState {
//!     tick: Tick,
//!     totals: Vec<i64>,
//! }
//!
//! /// Combined hash, then one per section.
//! #[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
//! struct TallyHash(u64, [u64; 2]);
//!
//! impl SectionHash for TallyHash {
//!     const SECTIONS: &'static [&'static str] = &["totals", "clock"];
//!     fn combined(&self) -> u64 {
//!         self.0
//!     }
//!     fn section(&self, i: usize) -> u64 {
//!         self.1.get(i).copied().unwrap_or(0)
//!     }
//!     fn from_sections(s: &[u64]) -> Option<TallyHash> {
//!         let s: [u64; 2] = s.try_into().ok()?;
//!         Some(TallyHash(xxhash_rust::xxh3::xxh3_64(&[s[0].to_le_bytes(), s[1].to_le_bytes()].concat()), s))
//!     }
//! }
//!
//! impl Game for Tally {
//!     const NAME: &'static str = "tally";
//!     const VERSION: &'static str = "1";
//!     const SNAPSHOT_FORMAT: u32 = 1;
//!     const MAX_SNAPSHOT_BYTES: u64 = 1024;
//!     const MAX_PLAYERS: usize = 4;
//!     const PHASES: &'static [&'static str] = &["push", "clock"];
//!     type Input = i8;
//!     type Rules = ();
//!     type Snapshot = TallyState;
//!     type Event = (Tick, u8);
//!     type Audit = (Tick, u8);
//!     type EventKey = (Tick, u8);
//!     type Hash = TallyHash;
//!     type Phase = &'static str;
//!     type Error = std::fmt::Error;
//!
//!     fn new(_: (), _seed: u64, players: usize) -> Result<Tally, std::fmt::Error> {
//!         let state = TallyState { tick: 0, totals: vec![0; players] };
//!         Ok(Tally { state, events: Vec::new() })
//!     }
//!     fn from_snapshot(_: (), s: &TallyState) -> Result<Tally, std::fmt::Error> {
//!         Ok(Tally { state: s.clone(), events: Vec::new() })
//!     }
//!     fn restore(&mut self, s: &TallyState) -> Result<(), std::fmt::Error> {
//!         self.state.clone_from(s);
//!         Ok(())
//!     }
//!     fn save_into(&self, out: &mut TallyState) {
//!         out.clone_from(&self.state);
//!     }
//!     fn snapshot(&self) -> TallyState {
//!         self.state.clone()
//!     }
//!     fn tick(&self) -> Tick {
//!         self.state.tick
//!     }
//!     fn player_count(&self) -> usize {
//!         self.state.totals.len()
//!     }
//!     fn rules(&self) -> &() {
//!         &()
//!     }
//!     fn state_hash(&self) -> TallyHash {
//!         Tally::snapshot_hash(&self.state)
//!     }
//!     fn snapshot_hash(state: &TallyState) -> TallyHash {
//!         let totals: Vec<u8> = state.totals.iter().flat_map(|t| t.to_le_bytes()).collect();
//!         let sections = [
//!             xxhash_rust::xxh3::xxh3_64(&totals),
//!             xxhash_rust::xxh3::xxh3_64(&state.tick.to_le_bytes()),
//!         ];
//!         TallyHash::from_sections(&sections).expect("two sections")
//!     }
//!     fn snapshot_tick(state: &TallyState) -> Tick {
//!         state.tick
//!     }
//!     fn step_observed<O: StepObserver<Tally>>(
//!         &mut self,
//!         inputs: &[i8],
//!         observer: &mut O,
//!     ) -> Result<&[(Tick, u8)], std::fmt::Error> {
//!         if inputs.len() != self.state.totals.len() || self.state.tick == Tick::MAX {
//!             return Err(std::fmt::Error);
//!         }
//!         self.events.clear();
//!         for (slot, (total, &push)) in self.state.totals.iter_mut().zip(inputs).enumerate() {
//!             *total += i64::from(push);
//!             if push != 0 {
//!                 self.events.push((self.state.tick, slot as u8));
//!             }
//!         }
//!         observer.after_phase(0, self);
//!         self.state.tick += 1;
//!         observer.after_phase(1, self);
//!         Ok(&self.events)
//!     }
//!     fn last_events(&self) -> &[(Tick, u8)] {
//!         &self.events
//!     }
//!     fn debug_perturb(&mut self) {
//!         self.state.totals[0] += 1;
//!     }
//!     fn phase_name(phase: &'static str) -> &'static str {
//!         phase
//!     }
//!     fn event_key(event: &(Tick, u8)) -> (Tick, u8) {
//!         *event
//!     }
//!     fn event_tick(event: &(Tick, u8)) -> Tick {
//!         event.0
//!     }
//!     fn audit(events: &[(Tick, u8)], out: &mut Vec<(Tick, u8)>) {
//!         out.extend_from_slice(events);
//!     }
//!     fn seed(&self) -> u64 {
//!         0
//!     }
//!     fn rules_to_bytes(_: &()) -> Vec<u8> {
//!         Vec::new()
//!     }
//!     fn rules_from_bytes(bytes: &[u8]) -> Option<()> {
//!         bytes.is_empty().then_some(())
//!     }
//!     fn rules_hash(_: &()) -> u64 {
//!         0
//!     }
//!     fn snapshot_to_bytes(s: &TallyState) -> Vec<u8> {
//!         bincode::serialize(s).expect("encodes")
//!     }
//!     fn snapshot_from_bytes(bytes: &[u8]) -> Result<TallyState, std::fmt::Error> {
//!         bincode::deserialize(bytes).map_err(|_| std::fmt::Error)
//!     }
//! }
//!
//! // The contract's executable checks, then a sync test through the netcode layer: every
//! // frame rolls back 4 frames and re-simulates them, comparing checksums.
//! game_api::conformance::check_all::<Tally>((), 0, 2, 120, |t, slot| (t % 5) as i8 - slot as i8)
//!     .expect("the contract holds");
//! let dumps = std::env::temp_dir().join("tally-sync-test");
//! let mut sync_test = SyncTester::<Tally>::new((), 0, 2, 4, dumps)?;
//! for t in 0..120 {
//!     sync_test.advance(&[(t % 5) as i8, -1])?;
//! }
//! assert_eq!(sync_test.driver().world().state.totals, vec![240, -120]);
//! # Ok::<(), client::Error>(())
//! ```
//!
//! Every item has one path, its concern's (`client::net::wire`, `client::session::netplay::NetPeer`);
//! only the error type and the game trait (with what it needs) sit at the top.
#![forbid(unsafe_code)]
#![deny(missing_docs)]

mod error;
pub mod forensics;
pub mod journal;
pub mod logs;
pub mod net;
pub mod remote_view;
mod rules_file;
pub mod runs;
pub mod session;

pub use error::Error;
pub use game_api::{Game, SectionHash, StepObserver, Tick};
pub use rules_file::load_rules;
