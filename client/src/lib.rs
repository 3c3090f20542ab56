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
//! Every module keeps its old path as well (`client::socket`, `client::matchlog`, ...), re-exported
//! below.
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

pub use forensics::fielddiff;
pub use logs::{hashlog, matchlog, peer_logs, replay, tick_logs};
pub use net::{
    conditioner, ggrs_message, handshake, room, room_secret, signal, socket, transport, webrtc,
    wire,
};
pub use runs::rail_fairness;
pub use session::{connecting, driver, netplay, online, pacing, stats, synctest};

pub use driver::Driver;
pub use error::Error;
pub use netplay::{Advance, NetConfig, NetEvent, NetPeer, Outage, Reconnecting};
pub use peer_logs::dumps_next_to;
pub use rules_file::load_rules;
pub use runs::{
    rejoin_from_log, rejoin_logged_match, rejoin_peer, resume_bot_match, resume_logged_bot_match,
    run_bot_match, run_net_peer, run_with_logs, BotMatch, BotMatchSummary, NetRun, NetRunSummary,
    RejoinFromLog, Resume, ResumeSummary, MAX_TICKS,
};
pub use session::GgrsConfig;
