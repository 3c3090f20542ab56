//! A networked peer: host, joiner or spectator, from the handshake to the last confirmed tick.

use crate::error::Error;
use crate::net::conditioner::{ConditionerConfig, LinkConditioner};
use crate::net::ggrs_message::{Limits, Sender};
use crate::net::handshake::Agreement;
use crate::net::seal::InviteCode;
use crate::net::socket::{GameSocket, Link, SharedLink, SocketCounters};
use crate::net::transport::UdpTransport;
use crate::net::wire::{Control, InputRun, Role};
use crate::session::connecting::Connecting;
use crate::session::driver::{Driver, HISTORY_TICKS};
use crate::session::stats::{NetStats, StatsClock};
use crate::session::GgrsConfig;
use game_api::{Game, Tick};
use ggrs::{
    DesyncDetection, GgrsError, GgrsEvent, GgrsRequest, InputStatus, P2PSession, PlayerType,
    SessionBuilder, SessionState, SpectatorSession,
};
use std::net::SocketAddr;
use std::time::{Duration, Instant};

/// One frame's requests from a GGRS session.
type Requests<G> = Vec<GgrsRequest<GgrsConfig<G>>>;

pub mod rejoin;
pub mod resync;
pub mod transfer;
pub mod watch;
use resync::ResyncDetail;

/// Most frames of input delay a session takes: half a second at 60 Hz, far inside GGRS's
/// 128-frame input queue (at 119 neither peer finishes; at 120 GGRS panics).
pub const MAX_INPUT_DELAY: usize = 30;
/// Most spectators a host waits for.
pub const MAX_SPECTATORS: usize = 8;
/// Longest handshake wait: an hour (a deadline further off is a typo, and past `Instant`'s
/// range a panic).
pub const MAX_HANDSHAKE_TIMEOUT: Duration = Duration::from_secs(3600);
/// Longest GGRS synchronization wait.
pub const MAX_SYNC_TIMEOUT: Duration = Duration::from_secs(600);
/// Shortest and longest silence before a peer counts as disconnected (the reconnect grace):
/// ten minutes at most, far past any router restart.
pub const DISCONNECT_TIMEOUT_RANGE: (Duration, Duration) =
    (Duration::from_millis(100), Duration::from_secs(600));
/// The default reconnect grace: long enough for a home router to restart.
pub const DEFAULT_RECONNECT_GRACE: Duration = Duration::from_secs(30);
/// The default silence before the reconnecting state shows.
pub const DEFAULT_DISCONNECT_NOTIFY: Duration = Duration::from_millis(500);
/// Fastest simulation rate a session runs at.
pub const MAX_FPS: u32 = 240;
/// Longest distance between checksum comparisons, in confirmed frames.
pub const MAX_DESYNC_INTERVAL: u32 = 600;
/// Most frames predicted ahead of confirmed input (GGRS keeps 128 frames of inputs).
pub const MAX_PREDICTION: usize = 30;
/// How long a peer keeps answering after everyone has said `Finish`: longer than any delay the
/// link conditioner adds (latency, jitter and reordering of a few hundred milliseconds at most).
pub(crate) const FINISH_LINGER: Duration = Duration::from_millis(600);

/// How a networked session is set up.
#[derive(Debug, Clone)]
pub struct NetConfig<G: Game> {
    /// G::Rules; must hash the same on every peer.
    pub rules: G::Rules,
    /// Match seed (chosen by the host; ignored when joining).
    pub seed: u64,
    /// Frames of input delay (default 2); changeable at run time.
    pub input_delay: usize,
    /// Most frames predicted ahead of confirmed input (default 8).
    pub max_prediction: usize,
    /// Compare checksums every this many confirmed frames (1 = every frame).
    pub desync_interval: u32,
    /// The reconnect grace: how long a remote player (or, for a spectator, the host) may stay
    /// silent before it counts as gone and the match ends. Until then the match waits for it,
    /// frozen at most `max_prediction` ticks past the last confirmed one, and resumes where it
    /// stopped when the peer is heard again, from the same address or a new one (a restarted
    /// router maps a new port; only a datagram that opens under the peer's keys, newer than
    /// any before, moves it). Default [`DEFAULT_RECONNECT_GRACE`].
    pub disconnect_timeout: Duration,
    /// Silence after which the peer counts as interrupted ([`NetEvent::Interrupted`],
    /// [`NetPeer::reconnecting`]).
    pub disconnect_notify: Duration,
    /// Simulation rate.
    pub fps: u32,
    /// How long the handshake waits.
    pub handshake_timeout: Duration,
    /// How long GGRS may take to synchronize with the peers once the handshake is done (GGRS
    /// alone would wait forever). A host whose welcomed peers do not synchronize in time (they
    /// vanished, or a stranger's `Hello` took the slot) forgets them all and waits for a joiner
    /// again, within `handshake_timeout`. A joiner or spectator allows what is left of its
    /// `handshake_timeout` plus this (the host starts GGRS only once everyone has arrived), then
    /// fails with [`Error::SyncTimeout`].
    pub sync_timeout: Duration,
    /// Spectators the host waits for before starting.
    pub spectators: usize,
    /// Spectators a running host welcomes after the start, caught up by snapshot and fed the
    /// confirmed inputs (see [`watch`]); 0 refuses them. Default [`MAX_SPECTATORS`].
    pub late_spectators: usize,
    /// A spectator further behind than this catches up...
    pub max_frames_behind: usize,
    /// ...at this many frames per frame.
    pub catchup_speed: usize,
    /// Impairment of outgoing datagrams.
    pub conditioner: ConditionerConfig,
    /// The invite code the host shares with its address (the handshake's pre-shared key): a
    /// host with one admits only peers holding it, a joiner with one trusts only a host holding
    /// it. `None`: an open match (still encrypted, but anyone who reaches the host may join,
    /// and an attacker on the path during the handshake could stand in between).
    pub invite: Option<InviteCode>,
    /// How long a running match may go without a newly confirmed tick before it ends with
    /// [`Error::MatchFrozen`] (a peer that keeps its connection alive but sends no usable
    /// input would otherwise hold both sides forever). Time while a peer is silent does not
    /// count: the reconnect grace (`disconnect_timeout`) rules it.
    pub freeze_timeout: Duration,
    /// Whether a detected desync is repaired (default) rather than only reported: the host's
    /// state becomes the joiner's and play goes on under a new epoch (see [`resync`]). The
    /// forensic dumps are written either way. Off for tests that study a desync as it grows.
    pub resync: bool,
}

impl<G: Game> NetConfig<G> {
    /// Checks every value against its range (the constants above), so a typo is an error
    /// naming the field instead of a panic inside GGRS or a deadline past `Instant`'s range.
    ///
    /// # Errors
    /// What is out of range, with the range.
    pub fn check(&self) -> Result<(), String> {
        let secs = |d: Duration| d.as_secs_f64();
        let (min_disconnect, max_disconnect) = DISCONNECT_TIMEOUT_RANGE;
        let problems = [
            (self.input_delay > MAX_INPUT_DELAY).then(|| {
                format!(
                    "input delay {} frames is beyond the {MAX_INPUT_DELAY} a session takes",
                    self.input_delay
                )
            }),
            (!(1..=MAX_PREDICTION).contains(&self.max_prediction)).then(|| {
                format!(
                    "max prediction {} frames is outside 1..={MAX_PREDICTION}",
                    self.max_prediction
                )
            }),
            (!(1..=MAX_DESYNC_INTERVAL).contains(&self.desync_interval)).then(|| {
                format!(
                    "desync interval {} is outside 1..={MAX_DESYNC_INTERVAL}",
                    self.desync_interval
                )
            }),
            (!(1..=MAX_FPS).contains(&self.fps))
                .then(|| format!("fps {} is outside 1..={MAX_FPS}", self.fps)),
            (self.spectators > MAX_SPECTATORS).then(|| {
                format!(
                    "{} spectators: a host takes at most {MAX_SPECTATORS}",
                    self.spectators
                )
            }),
            (self.late_spectators > MAX_SPECTATORS).then(|| {
                format!(
                    "{} late spectators: a host takes at most {MAX_SPECTATORS}",
                    self.late_spectators
                )
            }),
            (self.handshake_timeout > MAX_HANDSHAKE_TIMEOUT).then(|| {
                format!(
                    "handshake timeout {} s is beyond {} s",
                    secs(self.handshake_timeout),
                    MAX_HANDSHAKE_TIMEOUT.as_secs()
                )
            }),
            (self.sync_timeout > MAX_SYNC_TIMEOUT).then(|| {
                format!(
                    "sync timeout {} s is beyond {} s",
                    secs(self.sync_timeout),
                    MAX_SYNC_TIMEOUT.as_secs()
                )
            }),
            (!(min_disconnect..=max_disconnect).contains(&self.disconnect_timeout)).then(|| {
                format!(
                    "disconnect timeout {} ms is outside {}..={} ms",
                    self.disconnect_timeout.as_millis(),
                    min_disconnect.as_millis(),
                    max_disconnect.as_millis()
                )
            }),
            (self.disconnect_notify > self.disconnect_timeout)
                .then(|| "the disconnect notice comes after the disconnect timeout".to_owned()),
            (self.freeze_timeout.is_zero() || self.freeze_timeout > MAX_HANDSHAKE_TIMEOUT).then(
                || {
                    format!(
                        "freeze timeout {} s is outside (0, {}] s",
                        secs(self.freeze_timeout),
                        MAX_HANDSHAKE_TIMEOUT.as_secs()
                    )
                },
            ),
            (self.max_frames_behind == 0 || self.catchup_speed == 0).then(|| {
                "a spectator's catch-up needs frames behind and a speed of 1 or more".into()
            }),
        ];
        match problems.into_iter().flatten().next() {
            Some(problem) => Err(problem),
            None => Ok(()),
        }
    }
}

impl<G: Game> Default for NetConfig<G>
where
    G::Rules: Default,
{
    fn default() -> NetConfig<G> {
        NetConfig {
            rules: G::Rules::default(),
            seed: 1,
            input_delay: 2,
            max_prediction: 8,
            desync_interval: 1,
            disconnect_timeout: DEFAULT_RECONNECT_GRACE,
            disconnect_notify: DEFAULT_DISCONNECT_NOTIFY,
            fps: 60,
            handshake_timeout: Duration::from_secs(30),
            sync_timeout: Duration::from_secs(5),
            spectators: 0,
            max_frames_behind: 10,
            catchup_speed: 2,
            conditioner: ConditionerConfig::default(),
            invite: None,
            freeze_timeout: Duration::from_secs(10),
            resync: true,
            late_spectators: MAX_SPECTATORS,
        }
    }
}

/// Session events, typed for the game and the logs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum NetEvent {
    /// Synchronizing with a peer: `count` of `total` round trips done.
    Synchronizing {
        /// The peer.
        peer: SocketAddr,
        /// Done.
        count: u32,
        /// Needed.
        total: u32,
    },
    /// Synchronized with a peer.
    Synchronized {
        /// The peer.
        peer: SocketAddr,
    },
    /// Nothing heard from a peer for a while; it will be dropped after `timeout_ms`.
    Interrupted {
        /// The peer.
        peer: SocketAddr,
        /// Milliseconds until disconnection.
        timeout_ms: u64,
    },
    /// A peer is heard from again.
    Resumed {
        /// The peer.
        peer: SocketAddr,
    },
    /// A peer is gone; its inputs are "no input" from now on.
    Disconnected {
        /// The peer.
        peer: SocketAddr,
    },
    /// The peers' states differ at a confirmed frame.
    DesyncDetected {
        /// The frame (tick) compared.
        tick: Tick,
        /// Our checksum.
        local: u64,
        /// Theirs.
        remote: u64,
        /// The peer.
        peer: SocketAddr,
    },
    /// A player whose process died took its slot back: the match goes on from `tick` under
    /// `epoch`, with that player heard at `peer`.
    Rejoined {
        /// Where the player is heard from now.
        peer: SocketAddr,
        /// The new epoch.
        epoch: u32,
        /// The resume tick.
        tick: Tick,
    },
    /// A desync detected at `desync` was repaired: the host's state at `tick` is this side's
    /// too, and play goes on from there under `epoch`.
    Resynced {
        /// The new epoch.
        epoch: u32,
        /// The resume tick.
        tick: Tick,
        /// The tick the desync was detected at.
        desync: Tick,
    },
    /// GGRS recommends waiting this many frames for the others to catch up.
    WaitRecommendation {
        /// Frames.
        frames: u32,
    },
}

impl<G: Game> From<GgrsEvent<GgrsConfig<G>>> for NetEvent {
    fn from(e: GgrsEvent<GgrsConfig<G>>) -> NetEvent {
        match e {
            GgrsEvent::Synchronizing { addr, total, count } => NetEvent::Synchronizing {
                peer: addr,
                count,
                total,
            },
            GgrsEvent::Synchronized { addr } => NetEvent::Synchronized { peer: addr },
            GgrsEvent::Disconnected { addr } => NetEvent::Disconnected { peer: addr },
            GgrsEvent::NetworkInterrupted {
                addr,
                disconnect_timeout,
            } => NetEvent::Interrupted {
                peer: addr,
                timeout_ms: disconnect_timeout as u64,
            },
            GgrsEvent::NetworkResumed { addr } => NetEvent::Resumed { peer: addr },
            GgrsEvent::WaitRecommendation { skip_frames } => NetEvent::WaitRecommendation {
                frames: skip_frames,
            },
            GgrsEvent::DesyncDetected {
                frame,
                local_checksum,
                remote_checksum,
                addr,
            } => NetEvent::DesyncDetected {
                tick: frame.max(0) as Tick,
                local: local_checksum as u64,
                remote: remote_checksum as u64,
                peer: addr,
            },
        }
    }
}

/// Puts the desyncs among `events` in tick order, in the places desyncs held, the other
/// events where they were. GGRS compares the checksums it holds in a `HashMap`'s order, so
/// one poll can report tick 101 before tick 100; whoever takes the first report as the
/// first differing tick (the net panel, the notice, a resync) must see tick 100 first.
fn desyncs_in_tick_order(events: &mut [NetEvent]) {
    let tick_of = |event: &NetEvent| match event {
        NetEvent::DesyncDetected { tick, .. } => Some(*tick),
        _ => None,
    };
    let places: Vec<usize> = (0..events.len())
        .filter(|&i| tick_of(&events[i]).is_some())
        .collect();
    let mut desyncs: Vec<NetEvent> = places.iter().map(|&i| events[i].clone()).collect();
    desyncs.sort_by_key(|event| tick_of(event));
    for (place, desync) in places.into_iter().zip(desyncs) {
        events[place] = desync;
    }
}

/// Most ticks of extra history kept for desync dumps (10 s at 60 Hz): with a longer checksum
/// interval, the ticks right after the last agreeing check may be gone when a desync is found.
pub const MAX_DESYNC_HISTORY: usize = 600;

/// Extra ticks of history a peer keeps so that a desync dump reaches back to the last agreeing
/// checksum: the interval, up to [`MAX_DESYNC_HISTORY`].
fn desync_history<G: Game>(config: &NetConfig<G>) -> usize {
    (config.desync_interval.max(1) as usize).min(MAX_DESYNC_HISTORY)
}

/// Ticks of history a networked peer keeps: what GGRS and the logs need, the ticks since the
/// last agreeing checksum (for desync dumps), and the ticks a rejoining player's log may lack
/// (a killed process loses up to its last second of log; the survivor sends the inputs of the
/// gap and checks the rejoiner's state where its log ends, both from this history).
fn peer_history<G: Game>(config: &NetConfig<G>) -> usize {
    HISTORY_TICKS + desync_history(config) + rejoin::MAX_GAP_TICKS
}

enum Session<G: Game> {
    P2P(Box<P2PSession<GgrsConfig<G>>>),
    Spectator(Box<SpectatorSession<GgrsConfig<G>>>),
    /// A spectator welcomed after the start, following the host's relayed inputs.
    Relay(Box<watch::Relayed<G>>),
}

/// What one call to [`NetPeer::advance`] did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Advance {
    /// Frames were simulated (re-simulations not counted).
    Advanced,
    /// Still synchronizing with the peers.
    Synchronizing,
    /// Running, but no new frame: the prediction window is full (waiting for the remote).
    Stalled,
}

/// A remote peer the match is waiting for: silent past the notice delay, not yet past the
/// reconnect grace ([`NetConfig::disconnect_timeout`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Reconnecting {
    /// The silent peer, as known at the handshake.
    pub peer: SocketAddr,
    /// Whether it is the host (seen from a spectator) rather than the other player.
    pub host: bool,
    /// How long nothing has been heard from it.
    pub silent: Duration,
    /// How long it has left to come back before the match ends.
    pub left: Duration,
    /// The last final tick: the match stands there (predicted at most `max_prediction` ticks
    /// past it) until the peer is back.
    pub tick: Tick,
}

impl std::fmt::Display for Reconnecting {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let who = if self.host {
            "the host"
        } else {
            "the other player"
        };
        write!(
            f,
            "reconnecting: nothing from {who} for {:.1} s; waiting {} s more (tick {})",
            self.silent.as_secs_f64(),
            self.left.as_secs_f64().ceil(),
            self.tick
        )
    }
}

/// An interruption the match came through: the peer was heard again within the grace.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Outage {
    /// The peer that went silent.
    pub peer: SocketAddr,
    /// The last final tick when it was heard again.
    pub tick: Tick,
    /// How long nothing was heard from it.
    pub silent: Duration,
}

/// A remote peer gone silent: since when, and when the grace runs out.
#[derive(Debug, Clone, Copy)]
struct Silence {
    peer: SocketAddr,
    since: Instant,
    deadline: Instant,
}

/// A peer in a networked match.
pub struct NetPeer<G: Game> {
    link: SharedLink,
    session: Session<G>,
    driver: Driver<G>,
    agreement: Agreement,
    local_handle: Option<usize>,
    events: Vec<NetEvent>,
    clock: StatsClock,
    /// Highest tick whose state is final (all inputs before it confirmed and simulated).
    final_tick: Tick,
    finished_peers: Vec<SocketAddr>,
    /// Remote players reported as disconnected (each is reported once).
    gone: Vec<SocketAddr>,
    desync_interval: u32,
    /// The last final tick and when it was reached, for the freeze watchdog.
    progress: (Tick, Instant),
    freeze_timeout: Duration,
    /// A joiner's: the host's sealed word that the slot went to another peer.
    turned_away: Option<String>,
    /// When `advance` was last called, for the freeze watchdog.
    last_advance: Instant,
    /// Remote players (or the host, for a spectator) silent past the notice delay.
    silent: Vec<Silence>,
    /// Interruptions the match came through.
    outages: Vec<Outage>,
    /// Peers dropped because the grace ran out while they were silent.
    timed_out: Vec<SocketAddr>,
    /// The configuration, to start the session again after a rejoin.
    config: NetConfig<G>,
    /// A player coming back from a new process (see `rejoin.rs`).
    rejoin: rejoin::Survivor,
    /// Every resume since the start: the epoch and its first tick.
    epochs: Vec<EpochChange<G>>,
    /// An error met between calls (starting a new epoch), returned by the next `advance`.
    failure: Option<Error>,
    /// How this player's own rejoin went, if it came back by one.
    rejoined: Option<rejoin::RejoinReport>,
    /// When the session of a new epoch started, until it runs.
    resyncing_since: Option<Instant>,
    /// A resync after a desync (see `resync.rs`).
    resync: resync::Resyncs<G>,
    /// Spectators welcomed after the start (see `watch.rs`).
    watch: watch::Watch,
}

/// Why a new epoch began.
#[derive(Debug, Clone, PartialEq)]
pub enum EpochCause<G: Game> {
    /// A player whose process died took its slot back.
    Rejoin,
    /// This player took its slot back from a log that ended before the other side's history:
    /// the other side's state was sent whole.
    Transferred(Box<rejoin::Transferred>),
    /// This spectator followed the players into their new epoch (a rejoin's or a resync's),
    /// its own state at the epoch's tick the host's.
    Followed,
    /// A desync was repaired: the host's state replaced the joiner's.
    Resync(Box<ResyncDetail<G>>),
}

/// A new epoch of the match: a player took its slot back, or a desync was repaired, and play
/// went on from `tick`.
#[derive(Debug, Clone, PartialEq)]
pub struct EpochChange<G: Game> {
    /// The new epoch.
    pub epoch: u32,
    /// The tick both sides resumed from (GGRS frame 0 of the new session).
    pub tick: Tick,
    /// The state hash both hold at `tick`.
    pub hash: G::Hash,
    /// Where the other player is heard from now.
    pub peer: SocketAddr,
    /// Why.
    pub cause: EpochCause<G>,
}

impl<G: Game> std::fmt::Debug for NetPeer<G> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("NetPeer")
            .field("agreement", &self.agreement)
            .field("tick", &self.driver.world().tick())
            .field("final_tick", &self.final_tick)
            .finish_non_exhaustive()
    }
}

/// Adds the peers `events` say synchronized to `synced` (each once, however often it is
/// said) and the last progress they report to `progress`.
fn note_synchronizing(
    events: &[NetEvent],
    synced: &mut Vec<SocketAddr>,
    progress: &mut (u32, u32),
) {
    for e in events {
        match *e {
            NetEvent::Synchronized { peer } if !synced.contains(&peer) => synced.push(peer),
            NetEvent::Synchronizing { count, total, .. } => *progress = (count, total),
            _ => {}
        }
    }
}

/// Binds `bind` and wraps it in the conditioner when one is configured.
///
/// # Errors
/// [`Error::Bind`] (e.g. the port is in use).
pub fn open_link(bind: SocketAddr, conditioner: ConditionerConfig) -> Result<SharedLink, Error> {
    let udp = UdpTransport::bind(bind).map_err(|cause| Error::Bind { addr: bind, cause })?;
    Ok(if conditioner.is_active() {
        Link::new(LinkConditioner::new(udp, conditioner))
    } else {
        Link::new(udp)
    })
}

impl<G: Game> NetPeer<G> {
    /// Hosts a match on `bind` as player 0: waits for a joiner (and `config.spectators`
    /// spectators), then starts the session.
    ///
    /// # Errors
    /// Bind errors (port in use), handshake refusal or timeout, GGRS setup errors.
    pub fn host(bind: SocketAddr, config: &NetConfig<G>) -> Result<NetPeer<G>, Error> {
        Self::host_on(open_link(bind, config.conditioner)?, config)
    }

    /// As [`NetPeer::host`], on an already opened link (tests wrap the transport).
    ///
    /// # Errors
    /// As [`NetPeer::host`].
    pub fn host_on(link: SharedLink, config: &NetConfig<G>) -> Result<NetPeer<G>, Error> {
        Self::connect(Connecting::host(link, config))
    }

    /// Polls `connecting` until it hands over the peer or fails.
    fn connect(mut connecting: Connecting<G>) -> Result<NetPeer<G>, Error> {
        loop {
            if let Some(peer) = connecting.poll()? {
                return Ok(peer);
            }
            std::thread::sleep(Duration::from_millis(2));
        }
    }

    /// Joins the host at `host` as player 1, binding `bind`.
    ///
    /// # Errors
    /// As [`NetPeer::host`].
    pub fn join(
        host: SocketAddr,
        bind: SocketAddr,
        config: &NetConfig<G>,
    ) -> Result<NetPeer<G>, Error> {
        Self::join_on(
            open_link(bind, config.conditioner)?,
            host,
            Role::Player,
            config,
        )
    }

    /// Watches the match hosted at `host`, binding `bind`.
    ///
    /// # Errors
    /// As [`NetPeer::host`].
    pub fn spectate(
        host: SocketAddr,
        bind: SocketAddr,
        config: &NetConfig<G>,
    ) -> Result<NetPeer<G>, Error> {
        Self::join_on(
            open_link(bind, config.conditioner)?,
            host,
            Role::Spectator,
            config,
        )
    }

    /// As [`NetPeer::join`] / [`NetPeer::spectate`], on an already opened link.
    ///
    /// # Errors
    /// As [`NetPeer::host`].
    pub fn join_on(
        link: SharedLink,
        host: SocketAddr,
        role: Role,
        config: &NetConfig<G>,
    ) -> Result<NetPeer<G>, Error> {
        Self::connect(Connecting::join(link, host, role, config))
    }

    /// One poll while GGRS synchronizes: adds the peers it synchronized with to `synced` and
    /// the round trips of the slowest peer still synchronizing to `progress` (`done`,
    /// `total`); whether the session runs. The events stay for the caller.
    pub(crate) fn poll_synchronizing(
        &mut self,
        synced: &mut Vec<SocketAddr>,
        progress: &mut (u32, u32),
    ) -> bool {
        let seen = self.events.len();
        self.poll();
        note_synchronizing(&self.events[seen..], synced, progress);
        self.running()
    }

    /// Whether the session runs (a late spectator's relay always does).
    pub(super) fn running(&self) -> bool {
        match &self.session {
            Session::P2P(s) => s.current_state() == SessionState::Running,
            Session::Spectator(s) => s.current_state() == SessionState::Running,
            Session::Relay(_) => true,
        }
    }

    /// The peers still holding up the start, by role, for a sync timeout's message: those not
    /// in `synced`, and remote players that synchronized but sent no input.
    pub(crate) fn unsynchronized(&self, synced: &[SocketAddr]) -> String {
        let link = self.link.borrow();
        let spectators = &self.agreement.spectators;
        let peers: Vec<String> = (link.peers().iter())
            .filter_map(|&p| {
                let role = if spectators.contains(&p) {
                    "spectator"
                } else if self.agreement.local_slot == Some(0) {
                    "player"
                } else {
                    "host"
                };
                if !synced.contains(&p) {
                    Some(format!("{role} {p}"))
                } else if role == "player" && link.heard_through(p) < 0 {
                    Some(format!("{role} {p} (synchronized, but sent no input)"))
                } else {
                    None
                }
            })
            .collect();
        peers.join(", ")
    }

    /// Starts the session on an `agreement` reached with [`crate::net::handshake::host`] or
    /// [`crate::net::handshake::join`] (or their polled forms); [`Connecting`] does this and then polls
    /// GGRS's synchronization.
    ///
    /// # Errors
    /// GGRS setup errors, or a world the agreement's seed cannot build.
    pub fn start_agreed(
        link: SharedLink,
        agreement: Agreement,
        config: &NetConfig<G>,
    ) -> Result<NetPeer<G>, Error> {
        Self::start(link, agreement, config)
    }

    fn start(
        link: SharedLink,
        agreement: Agreement,
        config: &NetConfig<G>,
    ) -> Result<NetPeer<G>, Error> {
        if let Err(info) = config.check() {
            return Err(Error::Ggrs(GgrsError::InvalidRequest { info }));
        }
        let players = usize::from(agreement.players);
        let world =
            G::new(config.rules.clone(), agreement.match_seed, players).map_err(Error::game)?;
        let driver = Driver::with_history(world, peer_history(config));
        Self::start_with(link, agreement, config, driver)
    }

    /// Starts a GGRS session on `agreement` from the driver's current tick (frame 0 there).
    fn start_with(
        link: SharedLink,
        agreement: Agreement,
        config: &NetConfig<G>,
        mut driver: Driver<G>,
    ) -> Result<NetPeer<G>, Error> {
        driver.start_frames_here();
        let agreement_epoch = agreement.epoch;
        let (session, local_handle) = Self::session_for(&link, &agreement, config)?;
        link.borrow_mut()
            .accept_rejoins(local_handle.is_some() && agreement.secret.is_some());

        let final_tick = driver.world().tick();
        Ok(NetPeer {
            link,
            session,
            driver,
            desync_interval: config.desync_interval.max(1),
            agreement,
            local_handle,
            events: Vec::new(),
            clock: StatsClock::new(),
            final_tick,
            finished_peers: Vec::new(),
            gone: Vec::new(),
            progress: (final_tick, Instant::now()),
            freeze_timeout: config.freeze_timeout,
            turned_away: None,
            last_advance: Instant::now(),
            silent: Vec::new(),
            outages: Vec::new(),
            timed_out: Vec::new(),
            config: config.clone(),
            rejoin: rejoin::Survivor::default(),
            epochs: Vec::new(),
            failure: None,
            rejoined: None,
            resyncing_since: (agreement_epoch > 1).then(Instant::now),
            resync: resync::Resyncs::default(),
            watch: watch::Watch::default(),
        })
    }

    /// A GGRS session for `agreement` over `link`, and the local player's handle.
    fn session_for(
        link: &SharedLink,
        agreement: &Agreement,
        config: &NetConfig<G>,
    ) -> Result<(Session<G>, Option<usize>), Error> {
        let players = usize::from(agreement.players);
        let mut builder = SessionBuilder::<GgrsConfig<G>>::new()
            .with_num_players(players)?
            .with_max_prediction_window(config.max_prediction)
            .with_input_delay(config.input_delay)
            .with_fps(config.fps as usize)?
            .with_disconnect_timeout(config.disconnect_timeout)
            .with_disconnect_notify_delay(config.disconnect_notify)
            .with_desync_detection_mode(DesyncDetection::On {
                interval: config.desync_interval.max(1),
            })
            .with_max_frames_behind(config.max_frames_behind)?
            .with_catchup_speed(config.catchup_speed)?;
        let limits = Limits::for_match::<GgrsConfig<G>>(players, config.max_prediction);
        let senders: Vec<(SocketAddr, Sender)> = match agreement.local_slot {
            Some(_) => agreement
                .remote_players
                .iter()
                .map(|&(_, a)| (a, Sender::Player { slots: 1 }))
                .chain(agreement.spectators.iter().map(|&a| (a, Sender::Spectator)))
                .collect(),
            None => agreement
                .remote_players
                .iter()
                .map(|&(_, a)| (a, Sender::Host))
                .collect(),
        };
        link.borrow_mut().begin_epoch(agreement.epoch);
        link.borrow_mut().set_limits(limits, senders);
        let socket = GameSocket::new(link.clone());
        let (session, local_handle) = match agreement.local_slot {
            Some(slot) => {
                builder = builder.add_player(PlayerType::Local, usize::from(slot))?;
                for &(remote_slot, addr) in &agreement.remote_players {
                    builder =
                        builder.add_player(PlayerType::Remote(addr), usize::from(remote_slot))?;
                }
                for (i, &addr) in agreement.spectators.iter().enumerate() {
                    builder = builder.add_player(PlayerType::Spectator(addr), players + i)?;
                }
                (
                    Session::P2P(Box::new(builder.start_p2p_session(socket)?)),
                    Some(usize::from(slot)),
                )
            }
            None => {
                let host = agreement.remote_players[0].1;
                (
                    Session::Spectator(Box::new(builder.start_spectator_session(host, socket))),
                    None,
                )
            }
        };
        Ok((session, local_handle))
    }

    /// Exchanges datagrams without advancing (call this between frames too).
    pub fn poll(&mut self) {
        if self.rejoin_pending() || self.resync_holds() {
            // The old session stands still while a rejoin or a resync is agreed: nothing of
            // the old epoch goes out, and what the other side says is read.
            drop(self.link.borrow_mut().pump(false));
            self.take_control_messages();
            self.drive_resync();
            self.relay_to_watchers();
            return;
        }
        match &mut self.session {
            Session::P2P(s) => s.poll_remote_clients(),
            Session::Spectator(s) => s.poll_remote_clients(),
            Session::Relay(_) => {
                drop(self.link.borrow_mut().pump(false));
                self.take_control_messages();
                self.poll_relayed();
                return;
            }
        }
        self.collect_events();
    }

    fn collect_events(&mut self) {
        let drained: Vec<GgrsEvent<GgrsConfig<G>>> = match &mut self.session {
            Session::P2P(s) => s.events().collect(),
            Session::Spectator(s) => s.events().collect(),
            Session::Relay(_) => Vec::new(),
        };
        let mut drained: Vec<NetEvent> = drained.into_iter().map(NetEvent::from).collect();
        desyncs_in_tick_order(&mut drained);
        for mut event in drained {
            if let NetEvent::DesyncDetected { tick, .. } = &mut event {
                *tick += self.driver.frame_base();
            }
            self.note_silence(&event);
            if let NetEvent::Disconnected { peer } = event {
                if self.gone.contains(&peer) {
                    continue; // already reported (a claim or "disconnected" inputs came first)
                }
                self.gone.push(peer);
            }
            let desync = match event {
                NetEvent::DesyncDetected { tick, .. } => Some(tick),
                _ => None,
            };
            self.events.push(event);
            if let Some(tick) = desync {
                self.begin_resync(tick, false);
            }
        }
        // A remote player declaring someone disconnected: GGRS would drop that player without
        // an event and play on alone; the socket kept the message from GGRS, and the match
        // ends here as a disconnect of that peer.
        let claims = self.link.borrow_mut().take_disconnect_claims();
        for peer in claims {
            self.report_gone(peer);
        }
        let frame = match &self.session {
            Session::P2P(s) => s.current_frame(),
            Session::Spectator(s) => s.current_frame(),
            Session::Relay(_) => 0,
        };
        self.link.borrow_mut().set_local_frame(frame);
        self.take_control_messages();
        self.open_to_late_spectators();
        // After every poll and every frame: a late spectator's snapshot may be complete, and
        // the host's late spectators are owed the ticks confirmed since.
        self.finish_catch_up();
        self.relay_to_watchers();
    }

    /// Reads the control messages the link took in.
    fn take_control_messages(&mut self) {
        let inbox = self.link.borrow_mut().take_control();
        for (from, msg) in inbox {
            self.take_control(from, msg);
        }
    }

    /// Acts on one control message from `from`; a message this side has no use for in its
    /// present state is dropped.
    fn take_control(&mut self, from: SocketAddr, msg: Control) {
        match msg {
            Control::Finish { .. } if !self.finished_peers.contains(&from) => {
                self.finished_peers.push(from);
            }
            Control::Reject { reason } => self.take_reject(from, &reason),
            Control::Rejoin { info, slot, noise } => {
                self.answer_rejoin(from, &info, slot, &noise);
            }
            Control::Resume {
                through,
                hash,
                recent,
            } => self.take_resume(from, through, hash, &recent),
            // A desync the other player saw (one of an epoch already left is stale).
            Control::Resync { tick, hash }
                if self.remote_player_is(from)
                    && (self.epochs.is_empty() || tick > self.driver.frame_base()) =>
            {
                self.desync_said_by(from, tick, hash);
            }
            Control::ResyncAt {
                epoch,
                tick,
                gap,
                snapshot,
            } => {
                if let Ok(gap) = gap.decode::<G::Input>() {
                    self.take_resync_answer(from, epoch, tick, gap, snapshot);
                }
            }
            Control::SnapshotChunk { tick, index, bytes } => {
                let host = self.agreement.remote_players.first().map(|&(_, a)| a);
                if host != Some(from) || !self.take_catch_up_part(tick, index, &bytes) {
                    self.take_snapshot_part(from, tick, index, &bytes);
                }
            }
            Control::SnapshotNeed { tick, missing } if self.is_watcher(from) => {
                self.resend_catch_up(from, tick, &missing);
            }
            Control::SnapshotNeed { tick, missing } => {
                self.resend_parts(from, tick, &missing);
            }
            msg @ Control::Hello { .. } if self.local_handle == Some(0) => {
                self.answer_late_hello(from, &msg);
            }
            Control::CatchUp { epoch, snapshot } => self.take_catch_up(from, epoch, snapshot),
            Control::Relay {
                from: first,
                inputs,
                hash,
            } => {
                if let Ok(inputs) = inputs.decode::<G::Input>() {
                    self.take_relay(from, first, &inputs, hash);
                }
            }
            Control::RelayAck { through, epoch } => self.take_relay_ack(from, through, epoch),
            _ => {}
        }
    }

    /// A refusal from `from`: of a resync, of this late spectator, or of this rejoin's slot —
    /// each taken only from the peer that can send it.
    fn take_reject(&mut self, from: SocketAddr, reason: &str) {
        if self.resync_holds() && self.remote_player_is(from) {
            // Sealed, so from the other player itself (a late spectator holds keys too, and
            // is no party to a resync): it cannot resync from our state.
            self.failure = Some(Error::ResyncFailed {
                reason: crate::net::wire::printable(reason, 300),
            });
        } else if matches!(self.session, Session::Relay(_)) {
            // Sealed, so from the host itself (its only channel): it gave this late
            // spectator up.
            self.failure = Some(Error::CatchUpFailed {
                reason: crate::net::wire::printable(reason, 300),
            });
        } else if self.agreement.local_slot != Some(0) {
            // Sealed, so from the host itself: the slot went to another peer.
            self.turned_away = Some(reason.to_owned());
        }
    }

    /// A `Resume` from `from`: its answer to our resync, or a rejoiner's resume. Inputs that
    /// do not decode as this game's are a message no peer of ours sends: dropped like any other
    /// impossible message.
    fn take_resume(&mut self, from: SocketAddr, through: Tick, hash: u64, recent: &InputRun) {
        let Ok(recent) = recent.decode::<G::Input>() else {
            return;
        };
        if self.resync_answers(from) {
            self.answer_resync(from, through, &recent);
        } else {
            self.resume_for(from, through, hash, &recent);
        }
    }

    /// Keeps the list of silent peers that hold the match up (a silent spectator holds
    /// nothing up: GGRS drops it once it falls too far behind).
    fn note_silence(&mut self, event: &NetEvent) {
        let now = Instant::now();
        match *event {
            NetEvent::Interrupted { peer, timeout_ms } if self.is_remote_player(peer) => {
                self.silent.retain(|s| s.peer != peer);
                self.silent.push(Silence {
                    peer,
                    since: now
                        .checked_sub(self.config.disconnect_notify)
                        .unwrap_or(now),
                    deadline: now + Duration::from_millis(timeout_ms),
                });
            }
            NetEvent::Resumed { peer } => {
                if let Some(at) = self.silent.iter().position(|s| s.peer == peer) {
                    let silence = self.silent.remove(at);
                    self.outages.push(Outage {
                        peer,
                        tick: self.final_tick,
                        silent: now.saturating_duration_since(silence.since),
                    });
                }
            }
            NetEvent::Disconnected { peer } => {
                if self.silent.iter().any(|s| s.peer == peer) && !self.timed_out.contains(&peer) {
                    self.timed_out.push(peer);
                }
                self.silent.retain(|s| s.peer != peer);
            }
            _ => {}
        }
    }

    /// Why `peer` is gone, for a player to read: it stayed silent through the whole reconnect
    /// grace, or it left (quit, or said the match was over for it).
    #[must_use]
    pub fn gone_reason(&self, peer: SocketAddr) -> String {
        let who = if self.local_handle.is_none() {
            "the host"
        } else {
            "the other player"
        };
        if self.timed_out.contains(&peer) {
            format!(
                "{who} was silent for {} s, the whole reconnect grace",
                crate::net::handshake::whole_seconds(self.config.disconnect_timeout)
            )
        } else {
            format!("{who} left the match")
        }
    }

    /// The peer the match is waiting for, if one has gone silent: who, for how long, and how
    /// long it has left to come back (the one with the least time left, if several).
    #[must_use]
    pub fn reconnecting(&self) -> Option<Reconnecting> {
        let now = Instant::now();
        let silence = self.silent.iter().min_by_key(|s| s.deadline)?;
        Some(Reconnecting {
            peer: silence.peer,
            host: self.local_handle.is_none(),
            silent: now.saturating_duration_since(silence.since),
            left: silence.deadline.saturating_duration_since(now),
            tick: self.final_tick,
        })
    }

    /// The interruptions the match came through so far, oldest first.
    #[must_use]
    pub fn outages(&self) -> &[Outage] {
        &self.outages
    }

    /// Why the host turned this joiner away after welcoming it (its slot went to a peer that
    /// proved itself first), if it did.
    pub(crate) fn turned_away(&self) -> Option<&str> {
        self.turned_away.as_deref()
    }

    /// Simulates the next frame with `local` as this peer's input (ignored when spectating).
    ///
    /// # Errors
    /// GGRS errors other than "not synchronized" and "prediction threshold", engine errors,
    /// [`Error::SpectatorTooFarBehind`].
    pub fn advance(&mut self, local: G::Input) -> Result<Advance, Error> {
        if let Some(failure) = self.failure.take() {
            return Err(failure);
        }
        if let Some(held) = self.held()? {
            return Ok(held);
        }
        self.watch_for_freeze()?;
        let before = self.driver.counters().new_frames;
        if let Session::Relay(_) = self.session {
            self.poll();
            return if self.advance_relayed()? {
                Ok(Advance::Advanced)
            } else {
                self.clock.stall();
                Ok(Advance::Stalled)
            };
        }
        let requests = match self.session_requests(local)? {
            Ok(requests) => requests,
            Err(not_advanced) => return Ok(not_advanced),
        };
        self.watch_for_silent_disconnects(&requests);
        self.driver.handle(requests)?;
        for &depth in self.driver.last_rollback_depths() {
            self.clock.rollback(depth);
        }
        self.final_tick = self.final_tick_now();
        // Final states get their checksums now, before GGRS looks for them at the next
        // frame's desync check; predictions are never hashed.
        self.driver.seal_final(self.final_tick)?;
        self.collect_events();
        if self.driver.counters().new_frames > before {
            Ok(Advance::Advanced)
        } else {
            self.clock.stall();
            Ok(Advance::Stalled)
        }
    }

    /// `Stalled` while a rejoin or a resync holds the match (polling meanwhile), else `None`.
    fn held(&mut self) -> Result<Option<Advance>, Error> {
        if self.rejoin_pending() {
            self.poll();
            self.clock.stall();
            return Ok(Some(Advance::Stalled));
        }
        if self.resync_holds() {
            if self.spectators_ahead() {
                // The host (spectators watch only the host, which leads every resync) plays
                // its old session on to the last tick relayed to them (the joiner has
                // stopped: only confirmed frames are final), so the new epoch can begin
                // there.
                return Ok(None);
            }
            self.poll();
            // Only here, never in `poll`: the caller has read the desync event by now.
            self.finish_following()?;
            if let Some(failure) = self.failure.take() {
                return Err(failure);
            }
            self.clock.stall();
            return Ok(Some(Advance::Stalled));
        }
        Ok(None)
    }

    /// This frame's requests from the GGRS session (`local` added first for a player), or
    /// why there are none (`Err`: synchronizing or stalled).
    fn session_requests(&mut self, local: G::Input) -> Result<Result<Requests<G>, Advance>, Error> {
        let result = match &mut self.session {
            Session::P2P(s) => {
                if s.current_state() != SessionState::Running {
                    s.poll_remote_clients();
                    self.collect_events();
                    // The session of a new epoch synchronizes with a peer that just proved it
                    // is back; one that vanishes again is given up after the grace, as a
                    // silent peer is (GGRS alone would wait forever).
                    if let Some(since) = self.resyncing_since {
                        if since.elapsed() > self.config.disconnect_timeout {
                            return Err(Error::SyncTimeout {
                                peers: "the other player of the new epoch".into(),
                                millis: self.config.disconnect_timeout.as_millis() as u64,
                            });
                        }
                    }
                    return Ok(Err(Advance::Synchronizing));
                }
                self.resyncing_since = None;
                if let Some(handle) = self.local_handle {
                    s.add_local_input(handle, local)?;
                }
                s.advance_frame()
            }
            Session::Spectator(s) => match s.advance_frame() {
                Err(GgrsError::SpectatorTooFarBehind) => {
                    return Err(Error::SpectatorTooFarBehind {
                        tick: self.driver.world().tick(),
                    });
                }
                // `PredictionThreshold`: the host has not relayed the next confirmed frame yet.
                other => other,
            },
            Session::Relay(_) => return Ok(Err(Advance::Stalled)),
        };
        match result {
            Ok(requests) => Ok(Ok(requests)),
            Err(GgrsError::PredictionThreshold) => {
                self.clock.stall();
                self.collect_events();
                Ok(Err(Advance::Stalled))
            }
            Err(GgrsError::NotSynchronized) => {
                self.collect_events();
                Ok(Err(Advance::Synchronizing))
            }
            Err(e) => Err(e.into()),
        }
    }

    /// Whether GGRS relayed this host's spectators (those of the start) inputs of ticks past
    /// its final one: its own input delay confirms frames its world has not reached, and a
    /// spectator steps each confirmed frame at once. A new epoch must not begin before them.
    pub(super) fn spectators_ahead(&self) -> bool {
        let Session::P2P(s) = &self.session else {
            return false;
        };
        s.num_spectators() > 0
            && self
                .driver
                .tick_of(s.confirmed_frame())
                .is_some_and(|c| c + 1 > self.final_tick)
    }

    /// The last tick whose state can no longer change.
    fn final_tick_now(&self) -> Tick {
        match &self.session {
            // States up to confirmed + 1 follow from confirmed inputs only, and the requests
            // just served re-simulated everything received so far.
            Session::P2P(s) => match self.driver.tick_of(s.confirmed_frame()) {
                Some(confirmed) => (confirmed + 1).min(self.driver.world().tick()),
                None => self.driver.frame_base(),
            },
            // A spectator only ever receives confirmed inputs.
            Session::Spectator(_) | Session::Relay(_) => self.driver.world().tick(),
        }
    }

    /// Ends a running match whose final tick has not moved for the freeze timeout.
    fn watch_for_freeze(&mut self) -> Result<(), Error> {
        let now = Instant::now();
        // Time the caller spent not advancing at all (a window between matches, a test that
        // only polls) is nobody's freeze: the clock starts again.
        let paused = now.saturating_duration_since(self.last_advance) > Duration::from_secs(1);
        self.last_advance = now;
        // Nor is a peer's silence: the reconnect grace decides how long that may last.
        if paused || !self.silent.is_empty() {
            self.progress.1 = now;
        }
        let running = self.running();
        if !running || self.final_tick > self.progress.0 {
            self.progress = (self.final_tick, now);
            return Ok(());
        }
        let still = now.saturating_duration_since(self.progress.1);
        if still >= self.freeze_timeout {
            return Err(Error::MatchFrozen {
                tick: self.final_tick,
                seconds: crate::net::handshake::whole_seconds(self.freeze_timeout),
            });
        }
        Ok(())
    }

    /// Reports a remote player as disconnected, once.
    fn report_gone(&mut self, peer: SocketAddr) {
        if self.is_remote_player(peer) && !self.gone.contains(&peer) {
            self.gone.push(peer);
            self.events.push(NetEvent::Disconnected { peer });
        }
    }

    /// GGRS feeding "disconnected" inputs for a remote player it never reported gone (however
    /// it came to drop the player) is reported as that player's disconnect.
    fn watch_for_silent_disconnects(&mut self, requests: &[GgrsRequest<GgrsConfig<G>>]) {
        if !matches!(self.session, Session::P2P(_)) {
            return;
        }
        for request in requests {
            let GgrsRequest::AdvanceFrame { inputs } = request else {
                continue;
            };
            for (slot, (_, status)) in inputs.iter().enumerate() {
                if *status != InputStatus::Disconnected {
                    continue;
                }
                let addr = self
                    .agreement
                    .remote_players
                    .iter()
                    .find(|&&(s, _)| usize::from(s) == slot)
                    .map(|&(_, a)| a);
                if let Some(addr) = addr {
                    self.report_gone(addr);
                }
            }
        }
    }

    /// Events since the last call.
    pub fn take_events(&mut self) -> Vec<NetEvent> {
        std::mem::take(&mut self.events)
    }

    /// The world (at the predicted tick).
    #[must_use]
    pub fn world(&self) -> &G {
        self.driver.world()
    }

    /// Checksums are compared with the peers every this many confirmed ticks.
    #[must_use]
    pub fn desync_interval(&self) -> u32 {
        self.desync_interval
    }

    /// The driver (history, hashes, counters).
    #[must_use]
    pub fn driver(&self) -> &Driver<G> {
        &self.driver
    }

    /// Mutable driver, for deliberate perturbation in desync tooling.
    pub fn driver_mut(&mut self) -> &mut Driver<G> {
        &mut self.driver
    }

    /// The highest tick whose state is final on this peer.
    #[must_use]
    pub fn final_tick(&self) -> Tick {
        self.final_tick
    }

    /// What was agreed at the handshake.
    #[must_use]
    pub fn agreement(&self) -> &Agreement {
        &self.agreement
    }

    /// Whether `addr` is a remote *player* (not a spectator) of this match.
    #[must_use]
    pub fn is_remote_player(&self, addr: SocketAddr) -> bool {
        self.agreement
            .remote_players
            .iter()
            .any(|&(_, a)| a == addr)
    }

    /// The local player's slot, if playing.
    #[must_use]
    pub fn local_slot(&self) -> Option<usize> {
        self.local_handle
    }

    /// Frames this peer runs ahead of the remote (0 for a spectator).
    #[must_use]
    pub fn frames_ahead(&self) -> i32 {
        match &self.session {
            Session::P2P(s) => s.frames_ahead(),
            Session::Spectator(_) | Session::Relay(_) => 0,
        }
    }

    /// Changes the local input delay from the next frame on.
    ///
    /// # Errors
    /// GGRS refuses (e.g. when spectating).
    pub fn set_input_delay(&mut self, frames: usize) -> Result<(), Error> {
        if frames > MAX_INPUT_DELAY {
            return Err(Error::Ggrs(GgrsError::InvalidRequest {
                info: format!("input delay {frames} frames is beyond {MAX_INPUT_DELAY}"),
            }));
        }
        match (&mut self.session, self.local_handle) {
            (Session::P2P(s), Some(handle)) => Ok(s.set_input_delay(handle, frames)?),
            _ => Err(Error::Ggrs(GgrsError::InvalidRequest {
                info: "no local player".into(),
            })),
        }
    }

    /// Socket counters so far.
    #[must_use]
    pub fn socket_counters(&self) -> SocketCounters {
        self.link.borrow().counters()
    }

    /// The local address.
    #[must_use]
    pub fn local_addr(&self) -> SocketAddr {
        self.link.borrow().local_addr()
    }

    /// Refreshes the once-a-second statistics if a second has passed; returns them if so.
    pub fn update_stats(&mut self) -> Option<NetStats> {
        let socket = self.link.borrow().counters();
        let predicted = self.driver.world().tick();
        let confirmed = self.final_tick;
        let frames_ahead = self.frames_ahead();
        let remote = match &self.session {
            Session::P2P(s) => s
                .remote_player_handles()
                .first()
                .and_then(|&h| s.network_stats(h).ok()),
            Session::Spectator(s) => s.network_stats().ok(),
            Session::Relay(_) => None,
        };
        self.clock
            .tick(socket, self.driver.counters(), |st| {
                st.predicted_tick = predicted;
                st.confirmed_tick = confirmed;
                st.frames_ahead = frames_ahead;
                if let Some(ns) = remote {
                    st.ping_ms = Some(ns.ping as u32);
                    st.local_frames_behind = Some(ns.local_frames_behind);
                    st.remote_frames_behind = Some(ns.remote_frames_behind);
                    st.send_queue_len = Some(ns.send_queue_len);
                }
            })
            .cloned()
    }

    /// How many frames a spectator is behind the last frame the host relayed (beyond
    /// [`NetConfig::max_frames_behind`] it catches up at [`NetConfig::catchup_speed`] frames per
    /// advance); `None` for a player.
    #[must_use]
    pub fn frames_behind_host(&self) -> Option<usize> {
        match &self.session {
            Session::P2P(_) => None,
            Session::Spectator(s) => Some(s.frames_behind_host()),
            Session::Relay(r) => Some(r.queued()),
        }
    }

    /// The latest complete second of statistics.
    #[must_use]
    pub fn stats(&self) -> &NetStats {
        self.clock.latest()
    }

    /// Total stalls since the start.
    #[must_use]
    pub fn total_stalls(&self) -> u64 {
        self.clock.total_stalls
    }

    /// Tells every peer we are done (confirmed up to `confirmed`).
    pub fn send_finish(&mut self, confirmed: Tick) {
        let mut link = self.link.borrow_mut();
        let peers: Vec<SocketAddr> = link.peers().to_vec();
        for peer in peers {
            link.send_control(&Control::Finish { confirmed }, peer);
        }
    }

    /// Whether every peer has said it is done, or is gone (a spectator that left is not
    /// waited for).
    #[must_use]
    pub fn all_peers_finished(&self) -> bool {
        let link = self.link.borrow();
        link.peers()
            .iter()
            .all(|p| self.finished_peers.contains(p) || self.gone.contains(p))
    }

    /// Ends the match cleanly once this side has logged its last tick, `confirmed`: says
    /// `Finish` until every peer has said it too (or is gone), then lingers a moment still
    /// answering. Whether every peer finished within `timeout`.
    pub fn finish(&mut self, confirmed: Tick, timeout: Duration) -> bool {
        let deadline = Instant::now() + timeout;
        let mut next = Instant::now();
        while Instant::now() < deadline {
            if Instant::now() >= next {
                self.send_finish(confirmed);
                next = Instant::now() + Duration::from_millis(100);
            }
            self.poll();
            if self.all_peers_finished() {
                // Linger a moment, still answering and polling: the peers may be waiting for
                // our `Finish`, and a link conditioner only releases the datagrams it holds
                // back while it is polled (leaving at once would drop everything still in its
                // queue).
                let linger = Instant::now() + FINISH_LINGER;
                while Instant::now() < linger {
                    self.send_finish(confirmed);
                    std::thread::sleep(Duration::from_millis(25));
                    self.poll();
                }
                return true;
            }
            std::thread::sleep(Duration::from_millis(2));
        }
        false
    }

    /// Whether every remote player has sent at least one frame of input (a peer that
    /// synchronizes and then sends none does not hold a host's slot).
    pub(crate) fn heard_every_player(&self) -> bool {
        let link = self.link.borrow();
        (self.agreement.remote_players.iter()).all(|&(_, a)| link.heard_through(a) >= 0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::transport::memory::MemoryNet;
    use proptest::prelude::*;

    /// A desync at `tick` (its checksums tell the events apart), or another event when
    /// `tick` is `None`.
    fn event(tick: Option<Tick>, n: u64) -> NetEvent {
        let peer: SocketAddr = "127.0.0.1:2".parse().unwrap();
        match tick {
            Some(tick) => NetEvent::DesyncDetected {
                tick,
                local: n,
                remote: !n,
                peer,
            },
            None => NetEvent::WaitRecommendation { frames: n as u32 },
        }
    }

    proptest! {
        /// Whatever order GGRS reports desyncs in, they are taken in tick order (the
        /// earliest first, equal ticks as reported); every other event keeps its place, and
        /// nothing is lost or added.
        #[test]
        fn desyncs_are_taken_in_tick_order_and_other_events_keep_their_places(
            ticks in proptest::collection::vec(proptest::option::of(0u32..6), 0..12)
        ) {
            let events: Vec<NetEvent> = (0u64..)
                .zip(&ticks)
                .map(|(n, &tick)| event(tick, n))
                .collect();
            let mut ordered = events.clone();
            desyncs_in_tick_order(&mut ordered);
            let mut desyncs: Vec<NetEvent> =
                events.iter().filter(|e| matches!(e, NetEvent::DesyncDetected { .. })).cloned().collect();
            desyncs.sort_by_key(|e| match e {
                NetEvent::DesyncDetected { tick, .. } => *tick,
                _ => unreachable!(),
            });
            let mut next = desyncs.into_iter();
            for (before, after) in events.iter().zip(&ordered) {
                match before {
                    NetEvent::DesyncDetected { .. } => {
                        prop_assert_eq!(Some(after.clone()), next.next());
                    }
                    other => prop_assert_eq!(other, after),
                }
            }
            prop_assert_eq!(events.len(), ordered.len());
        }
    }

    #[test]
    fn a_later_tick_reported_first_is_taken_second() {
        let mut events = vec![event(Some(101), 0), event(None, 1), event(Some(100), 2)];
        desyncs_in_tick_order(&mut events);
        assert_eq!(
            events,
            [event(Some(100), 2), event(None, 1), event(Some(101), 0)]
        );
    }

    /// A host at port 1 and a player at port 2 on `net`, both past tick 30 (the player's
    /// final tick, so both sides hold final states there).
    fn playing(
        net: &MemoryNet,
        config: &NetConfig<engine::World>,
    ) -> (NetPeer<engine::World>, NetPeer<engine::World>) {
        let (mut host, mut joiner) =
            crate::runs::connected_pair_over(net.endpoint(1), net.endpoint(2), config);
        let guard = Instant::now() + Duration::from_secs(20);
        while host.final_tick().min(joiner.final_tick()) < 30 {
            assert!(Instant::now() < guard, "the match does not get going");
            let _ = host.advance(engine::WireInput::default());
            let _ = joiner.advance(engine::WireInput::default());
        }
        (host, joiner)
    }

    /// [`playing`], then a resync the joiner asks for, until both run epoch 2.
    fn resynced(
        net: &MemoryNet,
        config: &NetConfig<engine::World>,
    ) -> (NetPeer<engine::World>, NetPeer<engine::World>) {
        let (mut host, mut joiner) = playing(net, config);
        let guard = Instant::now() + Duration::from_secs(20);
        joiner.begin_resync(joiner.final_tick(), false);
        let in_epoch_2 = |p: &NetPeer<engine::World>| p.agreement.epoch == 2 && p.running();
        while !(in_epoch_2(&host) && in_epoch_2(&joiner)) {
            assert!(Instant::now() < guard, "the resync never ends");
            let _ = host.advance(engine::WireInput::default());
            let _ = joiner.advance(engine::WireInput::default());
        }
        (host, joiner)
    }

    /// A peer saying `Finish` again and again (it repeats it until it hears ours, and a
    /// forged stream could repeat it forever) is counted once: the list of finished peers
    /// never outgrows the peers.
    #[test]
    fn a_repeated_finish_is_counted_once() {
        let net = MemoryNet::default();
        let config = NetConfig::<engine::World>::default();
        let (mut host, mut joiner) =
            crate::runs::connected_pair_over(net.endpoint(1), net.endpoint(2), &config);
        for confirmed in 0..50 {
            joiner.send_finish(confirmed);
            host.poll();
        }
        assert!(host.all_peers_finished());
        assert_eq!(host.finished_peers, [SocketAddr::from(([127, 0, 0, 1], 2))]);
    }

    /// After a resync, a `Resync` for a tick up to the new epoch's first is the old epoch's
    /// (stale: dropped); one for a later tick is a new desync.
    #[test]
    fn a_desync_said_for_a_tick_before_the_epoch_is_stale() {
        let net = MemoryNet::default();
        let config = NetConfig::<engine::World>::default();
        let (mut host, _joiner) = resynced(&net, &config);
        let player = SocketAddr::from(([127, 0, 0, 1], 2));
        let base = host.driver.frame_base();
        let desyncs = |p: &mut NetPeer<engine::World>| {
            (p.take_events().into_iter())
                .filter(|e| matches!(e, NetEvent::DesyncDetected { .. }))
                .count()
        };
        desyncs(&mut host);
        host.take_control(
            player,
            Control::Resync {
                tick: base,
                hash: 1,
            },
        );
        assert_eq!(desyncs(&mut host), 0, "a tick of the old epoch");
        host.take_control(
            player,
            Control::Resync {
                tick: base + 1,
                hash: 1,
            },
        );
        assert_eq!(desyncs(&mut host), 1, "a tick of this epoch");
    }

    /// Only a remote player's silence holds the match up: a spectator's (or anyone else's)
    /// is not waited for, and a player heard again is an outage of the match.
    #[test]
    fn only_a_players_silence_is_waited_for() {
        let net = MemoryNet::default();
        let config = NetConfig::<engine::World>::default();
        let (mut host, _joiner) =
            crate::runs::connected_pair_over(net.endpoint(1), net.endpoint(2), &config);
        let (player, other) = (
            SocketAddr::from(([127, 0, 0, 1], 2)),
            SocketAddr::from(([127, 0, 0, 1], 9)),
        );
        let silent = |peer| NetEvent::Interrupted {
            peer,
            timeout_ms: 5_000,
        };
        host.note_silence(&silent(other));
        assert!(host.reconnecting().is_none(), "not a player");
        host.note_silence(&silent(player));
        host.note_silence(&silent(player)); // said again: still one silence
        let waiting = host.reconnecting().expect("the player is waited for");
        assert_eq!(waiting.peer, player);
        // The grace counts from now (the test takes far less than the second of slack).
        assert!(waiting.left <= Duration::from_millis(5_000));
        assert!(
            waiting.left >= Duration::from_millis(4_000),
            "{:?}",
            waiting.left
        );
        host.note_silence(&NetEvent::Resumed { peer: player });
        assert!(host.reconnecting().is_none());
        assert_eq!(host.outages().len(), 1);
        assert_eq!(host.outages()[0].peer, player);
        // Gone after a silence: timed out; gone without one: it left.
        host.note_silence(&silent(player));
        host.note_silence(&NetEvent::Disconnected { peer: player });
        host.note_silence(&NetEvent::Disconnected { peer: other });
        assert!(host.gone_reason(player).contains("was silent for"));
        assert!(host.gone_reason(other).contains("left the match"));
    }

    /// A late spectator missing parts of the state it was sent asks for them, and the host
    /// sends exactly those again (from the catch-up it holds for that spectator).
    #[test]
    fn a_late_spectator_asking_for_missing_parts_is_sent_them() {
        let net = MemoryNet::default();
        let config = NetConfig::<engine::World>::default();
        let (mut host, mut joiner) = playing(&net, &config);
        let guard = Instant::now() + Duration::from_secs(20);
        let host_addr = SocketAddr::from(([127, 0, 0, 1], 1));
        let link = crate::net::socket::Link::new(net.endpoint(5));
        let mut watching = Connecting::join(link, host_addr, Role::Spectator, &config);
        let spectator = loop {
            assert!(Instant::now() < guard, "the spectator is never caught up");
            let _ = host.advance(engine::WireInput::default());
            let _ = joiner.advance(engine::WireInput::default());
            if let Some(peer) = watching.poll().expect("welcomed") {
                break peer;
            }
            std::thread::sleep(Duration::from_millis(1));
        };
        let (at, tick) = (spectator.local_addr(), spectator.driver.frame_base());
        // Past the pause between two answers to one spectator.
        std::thread::sleep(Duration::from_millis(200));
        let before = net.waiting_for(at);
        host.take_control(
            at,
            Control::SnapshotNeed {
                tick,
                missing: vec![0],
            },
        );
        assert_eq!(net.waiting_for(at), before + 1, "the one part asked for");
    }

    /// A peer keeps every state a rejoin's gap and a desync dump may ask for: the last
    /// `HISTORY_TICKS` + the desync interval + `MAX_GAP_TICKS` ticks, and no more. The
    /// interval's share is bounded whatever the interval.
    #[test]
    fn a_peer_keeps_the_ticks_a_rejoin_and_a_desync_dump_need() {
        let net = MemoryNet::default();
        let config = NetConfig::<engine::World> {
            desync_interval: 7,
            ..NetConfig::<engine::World>::default()
        };
        let kept = (HISTORY_TICKS + 7 + rejoin::MAX_GAP_TICKS) as Tick;
        let (mut host, mut joiner) =
            crate::runs::connected_pair_over(net.endpoint(1), net.endpoint(2), &config);
        let guard = Instant::now() + Duration::from_secs(60);
        while host.driver.world().tick() < kept + 20 {
            assert!(Instant::now() < guard, "the match does not get going");
            let _ = host.advance(engine::WireInput::default());
            let _ = joiner.advance(engine::WireInput::default());
        }
        let now = host.driver.world().tick();
        assert!(
            host.driver.snapshot_at(now + 1 - kept).is_ok(),
            "the oldest kept"
        );
        assert!(
            host.driver.snapshot_at(now - kept).is_err(),
            "one more is not"
        );
        let far = NetConfig::<engine::World> {
            desync_interval: u32::MAX,
            ..NetConfig::<engine::World>::default()
        };
        assert_eq!(
            peer_history(&far),
            HISTORY_TICKS + MAX_DESYNC_HISTORY + rejoin::MAX_GAP_TICKS
        );
    }

    /// A peer's debug form says what it agreed to and where it is.
    #[test]
    fn a_peer_debugs_as_its_agreement_and_ticks() {
        let net = MemoryNet::default();
        let config = NetConfig::<engine::World>::default();
        let (host, joiner) = playing(&net, &config);
        let shown = format!("{joiner:?}");
        let tick = joiner.driver.world().tick();
        for part in [
            "NetPeer".to_string(),
            "agreement".to_string(),
            format!("tick: {tick}"),
            format!("final_tick: {}", joiner.final_tick()),
        ] {
            assert!(shown.contains(&part), "{part} in {shown}");
        }
        drop(host);
    }

    /// A peer said synchronized twice is listed once; progress is the last reported.
    #[test]
    fn a_peer_synchronized_twice_is_listed_once() {
        let (a, b) = (
            SocketAddr::from(([127, 0, 0, 1], 2)),
            SocketAddr::from(([127, 0, 0, 1], 3)),
        );
        let (mut synced, mut progress) = (Vec::new(), (0, 0));
        let synchronizing = |count| NetEvent::Synchronizing {
            peer: b,
            count,
            total: 5,
        };
        note_synchronizing(
            &[
                NetEvent::Synchronized { peer: a },
                synchronizing(2),
                NetEvent::Synchronized { peer: a },
                synchronizing(3),
                NetEvent::Disconnected { peer: b },
            ],
            &mut synced,
            &mut progress,
        );
        assert_eq!((synced.as_slice(), progress), (&[a][..], (3, 5)));
        note_synchronizing(
            &[NetEvent::Synchronized { peer: b }],
            &mut synced,
            &mut progress,
        );
        assert_eq!((synced.as_slice(), progress), (&[a, b][..], (3, 5)));
    }

    /// Only a player holding the match's secret lets `Rejoin`s through: a spectator does not,
    /// even one a forged welcome handed a secret.
    #[test]
    fn only_a_player_with_the_secret_accepts_rejoins() {
        use crate::net::handshake::Agreement;
        use crate::net::seal::MatchSecret;
        let net = MemoryNet::default();
        let config = NetConfig::<engine::World>::default();
        let (host, joiner) = playing(&net, &config);
        assert!(host.link.borrow().accepts_rejoins());
        assert!(joiner.link.borrow().accepts_rejoins());
        let host_addr = SocketAddr::from(([127, 0, 0, 1], 1));
        let forged = Agreement {
            match_seed: 7,
            players: 2,
            local_slot: None,
            remote_players: vec![(0, host_addr), (1, SocketAddr::from(([127, 0, 0, 1], 2)))],
            spectators: Vec::new(),
            session: 1,
            secret: Some(MatchSecret::random().expect("secret")),
            epoch: 1,
        };
        let world = engine::World::new(config.rules.clone(), 7, 2).expect("world");
        let link = crate::net::socket::Link::new(net.endpoint(5));
        let spectator =
            NetPeer::start_with(link, forged, &config, Driver::new(world)).expect("spectator");
        assert!(!spectator.link.borrow().accepts_rejoins());
    }

    /// After a resync agreed a new epoch, a partner that vanishes before the new session
    /// runs is given up after the disconnect timeout (GGRS alone would wait forever).
    #[test]
    fn a_partner_vanishing_during_a_resync_is_given_up() {
        let net = MemoryNet::default();
        let config = NetConfig::<engine::World> {
            // Long enough that a test machine under load never makes the live pair look gone.
            disconnect_timeout: Duration::from_secs(5),
            disconnect_notify: Duration::from_secs(2),
            ..NetConfig::<engine::World>::default()
        };
        let (mut host, mut joiner) =
            crate::runs::connected_pair_over(net.endpoint(1), net.endpoint(2), &config);
        let guard = Instant::now() + Duration::from_secs(20);
        while host.final_tick().min(joiner.final_tick()) < 30 {
            assert!(Instant::now() < guard, "the match does not get going");
            let _ = host.advance(engine::WireInput::default());
            let _ = joiner.advance(engine::WireInput::default());
        }
        joiner.begin_resync(joiner.final_tick(), false);
        while joiner.agreement.epoch < 2 {
            assert!(Instant::now() < guard, "the resync is never agreed");
            let _ = host.advance(engine::WireInput::default());
            let _ = joiner.advance(engine::WireInput::default());
        }
        assert!(!joiner.running(), "the new session still synchronizes");
        drop(host);
        let given_up = loop {
            assert!(
                Instant::now() < guard,
                "the vanished partner is waited for forever"
            );
            match joiner.advance(engine::WireInput::default()) {
                Err(e) => break e,
                Ok(_) => std::thread::sleep(Duration::from_millis(5)),
            }
        };
        assert!(matches!(given_up, Error::SyncTimeout { .. }), "{given_up}");
    }

    /// In a later epoch (GGRS counting frames from the epoch's first tick) a desync is
    /// reported at the match's own tick: not before the state that differs, not before the
    /// epoch.
    #[test]
    fn a_desync_in_a_later_epoch_is_reported_at_the_matchs_tick() {
        use crate::session::driver::Injection;
        let net = MemoryNet::default();
        let config = NetConfig::<engine::World>::default();
        let (mut host, mut joiner) = resynced(&net, &config);
        let base = host.driver.frame_base();
        assert!(base > 30, "the epoch starts mid-match: {base}");
        let nudged = joiner.driver.world().tick() + 10;
        joiner.driver_mut().inject(Injection {
            tick: nudged,
            first_pass_only: false,
            after: engine::Phase::Validate,
        });
        host.take_events();
        let guard = Instant::now() + Duration::from_secs(20);
        let reported = loop {
            assert!(Instant::now() < guard, "the desync is never found");
            let _ = host.advance(engine::WireInput::default());
            let _ = joiner.advance(engine::WireInput::default());
            let found = host.take_events().into_iter().find_map(|e| match e {
                NetEvent::DesyncDetected { tick, .. } => Some(tick),
                _ => None,
            });
            if let Some(tick) = found {
                break tick;
            }
        };
        assert!(
            (nudged..nudged + 8).contains(&reported),
            "nudged at {nudged}, reported at {reported} (epoch from {base})"
        );
    }

    /// A remote player is reported gone once however often it is found gone, and a peer that
    /// is no remote player (a spectator's address, a stranger's) never.
    #[test]
    fn a_player_is_reported_gone_once_and_nobody_else_ever() {
        let net = MemoryNet::default();
        let config = NetConfig::<engine::World>::default();
        let (mut host, _joiner) =
            crate::runs::connected_pair_over(net.endpoint(1), net.endpoint(2), &config);
        let player = SocketAddr::from(([127, 0, 0, 1], 2));
        let _ = host.take_events();
        host.report_gone(SocketAddr::from(([127, 0, 0, 1], 5)));
        host.report_gone(player);
        host.report_gone(player);
        let gone: Vec<_> = (host.take_events().into_iter())
            .filter(|e| matches!(e, NetEvent::Disconnected { .. }))
            .collect();
        assert_eq!(gone, vec![NetEvent::Disconnected { peer: player }]);
    }

    /// GGRS feeding "disconnected" inputs for the remote player's slot (however it came to
    /// drop the player) is that player's disconnect; for the own slot it is nobody's.
    #[test]
    fn disconnected_inputs_for_the_remote_slot_report_that_player_gone() {
        let net = MemoryNet::default();
        let config = NetConfig::<engine::World>::default();
        let (mut host, _joiner) =
            crate::runs::connected_pair_over(net.endpoint(1), net.endpoint(2), &config);
        let _ = host.take_events();
        let frame = |own, remote| GgrsRequest::AdvanceFrame {
            inputs: vec![
                (engine::WireInput::default(), own),
                (engine::WireInput::default(), remote),
            ],
        };
        host.watch_for_silent_disconnects(&[
            frame(InputStatus::Disconnected, InputStatus::Confirmed),
            frame(InputStatus::Confirmed, InputStatus::Predicted),
        ]);
        let gone = |p: &mut NetPeer<engine::World>| {
            (p.take_events().into_iter())
                .filter(|e| matches!(e, NetEvent::Disconnected { .. }))
                .count()
        };
        assert_eq!(gone(&mut host), 0);
        host.watch_for_silent_disconnects(&[frame(
            InputStatus::Confirmed,
            InputStatus::Disconnected,
        )]);
        assert!(host.take_events().contains(&NetEvent::Disconnected {
            peer: SocketAddr::from(([127, 0, 0, 1], 2))
        }));
    }
}
