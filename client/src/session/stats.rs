//! Network and rollback statistics, gathered once a second.

use crate::net::socket::SocketCounters;
use crate::session::driver::{RollbackCounters, MAX_TRACKED_DEPTH};
use game_api::Tick;
use std::time::{Duration, Instant};

/// One second's view of the connection and of rollback, for HUDs, logs and summaries.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct NetStats {
    /// Round-trip time to the remote peer, as GGRS measures it.
    pub ping_ms: Option<u32>,
    /// Frames this peer is behind the remote (GGRS's estimate; negative = ahead).
    pub local_frames_behind: Option<i32>,
    /// Frames the remote is behind this peer.
    pub remote_frames_behind: Option<i32>,
    /// Datagrams awaiting acknowledgement.
    pub send_queue_len: Option<usize>,
    /// Frames ahead of the remote, as `P2PSession::frames_ahead` reports.
    pub frames_ahead: i32,
    /// Bytes sent per second, headers included, counted at our socket.
    pub bytes_sent_per_sec: u64,
    /// Bytes received per second from known peers.
    pub bytes_received_per_sec: u64,
    /// Rollbacks per second.
    pub rollbacks_per_sec: u64,
    /// Frames that could not advance in the last second (prediction threshold, waiting).
    pub stalls_per_sec: u64,
    /// The world's tick (predicted).
    pub predicted_tick: Tick,
    /// The last confirmed tick.
    pub confirmed_tick: Tick,
    /// Rollback depth distribution since the start (index = depth; last bucket = deeper).
    pub depth_histogram: [u64; MAX_TRACKED_DEPTH + 1],
    /// Depths of the rollbacks in the last second, most recent last (for sparklines).
    pub recent_depths: Vec<u32>,
    /// Datagrams dropped at the socket since the start (unknown sender, damaged, undecodable).
    pub dropped_datagrams: u64,
}

/// Turns running counters into per-second rates.
#[derive(Debug)]
pub struct StatsClock {
    window_start: Instant,
    last_socket: SocketCounters,
    last_rollbacks: u64,
    stalls_in_window: u64,
    depths_in_window: Vec<u32>,
    /// Total stalls since the start.
    pub total_stalls: u64,
    latest: NetStats,
}

impl Default for StatsClock {
    fn default() -> Self {
        StatsClock::new()
    }
}

impl StatsClock {
    /// A clock starting now.
    #[must_use]
    pub fn new() -> StatsClock {
        let now = Instant::now();
        StatsClock {
            window_start: now,
            last_socket: SocketCounters::default(),
            last_rollbacks: 0,
            stalls_in_window: 0,
            depths_in_window: Vec::new(),
            total_stalls: 0,
            latest: NetStats::default(),
        }
    }

    /// Notes a frame that could not advance.
    pub fn stall(&mut self) {
        self.stalls_in_window += 1;
        self.total_stalls += 1;
    }

    /// Notes a rollback of `depth` frames.
    pub fn rollback(&mut self, depth: u32) {
        self.depths_in_window.push(depth);
    }

    /// Closes the window if a second has passed, returning the fresh statistics.
    /// `fill` adds what only the session knows (ping, frames behind, ticks).
    pub fn tick(
        &mut self,
        socket: SocketCounters,
        rollbacks: &RollbackCounters,
        fill: impl FnOnce(&mut NetStats),
    ) -> Option<&NetStats> {
        let now = Instant::now();
        let window = now.duration_since(self.window_start);
        if window < Duration::from_secs(1) {
            return None;
        }
        let per_sec = |delta: u64| delta * 1000 / (window.as_millis().max(1) as u64);
        let mut stats = NetStats {
            bytes_sent_per_sec: per_sec(socket.bytes_sent - self.last_socket.bytes_sent),
            bytes_received_per_sec: per_sec(
                socket.bytes_received - self.last_socket.bytes_received,
            ),
            rollbacks_per_sec: per_sec(rollbacks.rollbacks - self.last_rollbacks),
            stalls_per_sec: per_sec(self.stalls_in_window),
            depth_histogram: rollbacks.depth_histogram,
            recent_depths: std::mem::take(&mut self.depths_in_window),
            dropped_datagrams: socket.dropped(),
            ..NetStats::default()
        };
        fill(&mut stats);
        self.last_socket = socket;
        self.last_rollbacks = rollbacks.rollbacks;
        self.stalls_in_window = 0;
        self.window_start = now;
        self.latest = stats;
        Some(&self.latest)
    }

    /// The statistics of the last complete second.
    #[must_use]
    pub fn latest(&self) -> &NetStats {
        &self.latest
    }
}
