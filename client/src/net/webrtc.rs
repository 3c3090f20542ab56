//! Play across the internet without port forwarding: a [`Transport`] over WebRTC data channels,
//! with peers met in a room of a signalling server (matchbox).
//!
//! `matchbox_socket` does the WebRTC: it asks the signalling server at `URL/ROOM` to introduce
//! it to the others in the room, negotiates a peer-to-peer connection with each (ICE crosses
//! NATs, with STUN, or TURN as a relay, when configured), and opens two data channels per peer:
//!
//! - channel 0, reliable and ordered, carries the room messages that settle who hosts
//!   ([`crate::net::room`]);
//! - channel 1, unreliable and unordered like UDP, carries our datagrams (handshake, GGRS).
//!
//! Each peer is given a stable synthetic [`SocketAddr`]: its peer id (a UUID) as an IPv6
//! address, port 0. Everything above the transport — framing and checks, the handshake, the
//! link conditioner, the counters — is the UDP code, unchanged.
//!
//! matchbox's message loop is a future; it runs on a thread of its own (a blocking executor;
//! the WebRTC stack spawns its tasks on smol's). The sim thread only moves packets through
//! channels, so it never blocks on the network.
//!
//! matchbox 0.15 `unwrap`s much of what goes wrong, which would end every connection of this
//! peer, its match included. So what can be known before is checked before anything connects
//! (the room link with its secret, [`crate::net::room_secret`]; the ICE servers,
//! [`IceServers::check`]), matchbox talks to the server through our own signaller
//! (`net::signaller`: signals that would not parse are dropped before matchbox sees them, and a
//! refusal's reason is kept for [`Error::RoomRefused`]), our build of matchbox does without
//! mDNS (which needs an IPv4 default route) and ends only the negotiation that panics, and a
//! panic of its loop that still happens becomes an error.
//!
//! Until the room settles, a negotiation that stalls is abandoned and the room entered again
//! (`net::negotiation`); a room that connects nobody says which stage failed ([`RoomFailure`]).

use crate::error::Error;
use crate::net::ice_probe::{probe_turn, turn_udp_server, TurnProbe};
use crate::net::negotiation::{IceGiven, Negotiations, Stall, TurnAnswer};
pub use crate::net::negotiation::{NoPathCause, RoomFailure};
use crate::net::room::{self, RoomIntro, RoomPart, RoomState};
use crate::net::room_peers::RoomPeers;
use crate::net::room_secret::{self, RoomSecret, SECRET_PARAM};
use crate::net::signaller::{GuardedSignallerBuilder, SignalReport};
use crate::net::transport::Transport;
use crate::net::wire::Role;
use matchbox_socket::{ChannelConfig, PeerId, PeerState, RtcIceServerConfig, WebRtcSocket};
use std::collections::VecDeque;
use std::net::{IpAddr, Ipv6Addr, SocketAddr};
use std::sync::{mpsc, Arc};
use std::time::{Duration, Instant};

/// Port of the signalling server `signal-server` starts by default.
pub const DEFAULT_SIGNAL_PORT: u16 = 3536;
/// Where the game looks for a signalling server unless told otherwise.
pub const DEFAULT_SIGNAL_URL: &str = "ws://127.0.0.1:3536";

/// The reliable channel of room messages.
const ROOM_CHANNEL: usize = 0;
/// The unreliable channel of our datagrams.
const GAME_CHANNEL: usize = 1;
/// Datagrams kept between two reads; a peer flooding beyond this loses the excess (counted in
/// [`WebRtcTransport::dropped`]).
pub const MAX_INBOX: usize = 4096;
/// Pause between polls while waiting.
const POLL: Duration = Duration::from_millis(2);
/// How often our intro is said again to every connected peer while the room settles.
const INTRO_AGAIN: Duration = Duration::from_millis(500);

/// The public STUN servers the game and `duel-cli` use unless told otherwise (`--ice` replaces
/// them, `--no-ice` turns them off): Google's and Cloudflare's, free and without credentials.
/// A STUN server only tells a peer its public address; no game traffic goes through it.
pub const DEFAULT_STUN: [&str; 2] = [
    "stun:stun.l.google.com:19302",
    "stun:stun.cloudflare.com:3478",
];

/// STUN and TURN servers ICE uses to find a path between peers behind NATs.
///
/// Empty (`IceServers::default()`, what the library's tests use) means host candidates only:
/// peers on one machine or one LAN connect, peers behind different routers usually do not. A
/// STUN server lets most home routers be crossed ([`IceServers::public_stun`] is the binaries'
/// default); a TURN server relays the traffic when nothing else works (it needs credentials).
///
/// Both binaries take it as command-line options of their own (`--ice`, `--ice-user`,
/// `--ice-password`, `--no-ice`); the library has no command line.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct IceServers {
    /// A STUN or TURN server for crossing NATs (`stun:stun.example.org:3478`,
    /// `turn:turn.example.org:3478`); repeat for several. Default: the public STUN servers
    /// stun.l.google.com:19302 and stun.cloudflare.com:3478 (`--no-ice`: none, LAN only).
    pub urls: Vec<String>,
    /// User name for the TURN server.
    pub username: Option<String>,
    /// Password for the TURN server.
    pub credential: Option<String>,
}

impl IceServers {
    /// The public STUN servers of [`DEFAULT_STUN`].
    #[must_use]
    pub fn public_stun() -> IceServers {
        IceServers {
            urls: DEFAULT_STUN.iter().map(|u| (*u).to_owned()).collect(),
            ..IceServers::default()
        }
    }

    /// What a command line's ICE options mean: these servers if any were given, none with
    /// `off` (`--no-ice`: same machine or LAN only), otherwise [`IceServers::public_stun`]
    /// (keeping a TURN user and password given without a server, for [`IceServers::check`] to
    /// refuse).
    #[must_use]
    pub fn or_public_stun(self, off: bool) -> IceServers {
        if off {
            IceServers::default()
        } else if self.urls.is_empty() {
            IceServers {
                urls: IceServers::public_stun().urls,
                ..self
            }
        } else {
            self
        }
    }

    /// Checks the servers before anything connects (matchbox 0.15 `unwrap`s what it cannot
    /// use, in the middle of a handshake): every URL is `stun:`, `stuns:`, `turn:` or `turns:`
    /// with a host, and a TURN server comes with a user name and a password.
    ///
    /// # Errors
    /// A message naming the URL and what is wrong with it.
    pub fn check(&self) -> Result<(), String> {
        const MAX_URL: usize = 512;
        const MAX_SERVERS: usize = 8;
        const MAX_CREDENTIAL: usize = 256;
        if self.urls.len() > MAX_SERVERS {
            return Err(format!(
                "{} ICE servers; at most {MAX_SERVERS}",
                self.urls.len()
            ));
        }
        for (what, value) in [
            ("user name", &self.username),
            ("password", &self.credential),
        ] {
            if value.as_deref().is_some_and(|v| v.len() > MAX_CREDENTIAL) {
                return Err(format!(
                    "the TURN {what} is longer than {MAX_CREDENTIAL} bytes"
                ));
            }
        }
        let mut turn = false;
        for url in &self.urls {
            let shown = url.escape_debug();
            if url.len() > MAX_URL {
                return Err(format!(
                    "the ICE server URL `{shown:.40}…` is longer than {MAX_URL} bytes"
                ));
            }
            let Some((scheme, rest)) = url.split_once(':') else {
                return Err(format!(
                    "`{shown}` is not an ICE server URL: write stun:HOST:PORT or turn:HOST:PORT"
                ));
            };
            match scheme {
                "stun" | "stuns" => {}
                "turn" | "turns" => turn = true,
                _ => {
                    return Err(format!(
                        "`{shown}`: an ICE server URL starts with stun:, stuns:, turn: or turns:"
                    ))
                }
            }
            let host = rest.split(['?', ':']).next().unwrap_or_default();
            let host = host.trim_start_matches('[');
            if host.is_empty() || host.starts_with('/') || url.chars().any(char::is_whitespace) {
                return Err(format!("`{shown}` names no host"));
            }
        }
        let given = |v: &Option<String>| v.as_deref().is_some_and(|v| !v.is_empty());
        if !turn && (given(&self.username) || given(&self.credential)) {
            return Err(
                "--ice-user and --ice-password are for a TURN server: give one with --ice \
                 turn:HOST:PORT"
                    .into(),
            );
        }
        if turn && !(given(&self.username) && given(&self.credential)) {
            return Err(
                "a TURN server needs a user name and a password (--ice-user, --ice-password)"
                    .into(),
            );
        }
        Ok(())
    }

    /// Which kinds of server were given.
    pub(crate) fn given(&self) -> IceGiven {
        let scheme = |url: &String| url.split(':').next().unwrap_or_default().to_owned();
        IceGiven {
            stun: self
                .urls
                .iter()
                .any(|u| matches!(scheme(u).as_str(), "stun" | "stuns")),
            turn: self
                .urls
                .iter()
                .any(|u| matches!(scheme(u).as_str(), "turn" | "turns")),
        }
    }
}

/// A room on a signalling server.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RoomConfig {
    /// The signalling server, `ws://HOST:PORT` or `wss://HOST`.
    pub signal_url: String,
    /// The room's name: everyone giving the same name (and secret) meets.
    pub room: String,
    /// The room's secret ([`crate::net::room_secret`]); `None` enters a room opened without one.
    pub secret: Option<RoomSecret>,
    /// STUN/TURN servers.
    pub ice: IceServers,
}

impl RoomConfig {
    /// A room `room` on the signalling server at `signal_url`, with no secret (an open room)
    /// and no STUN/TURN server.
    #[must_use]
    pub fn new(signal_url: impl Into<String>, room: impl Into<String>) -> RoomConfig {
        RoomConfig {
            signal_url: signal_url.into(),
            room: room.into(),
            secret: None,
            ice: IceServers::default(),
        }
    }

    /// Parses a room link, `ws://HOST:PORT/ROOM[?secret=SECRET]` or
    /// `wss://HOST/PATH/ROOM[?secret=SECRET]` — what [`RoomConfig::link`] gives, and what a
    /// player passes to a friend: the last path segment is the room, the rest the signalling
    /// server, the query the room's secret.
    ///
    /// # Errors
    /// [`Error::Address`] when the link has no room, any part is malformed, or its query is
    /// anything but a valid secret.
    pub fn from_link(link: &str) -> Result<RoomConfig, Error> {
        let (link, query) = match link.split_once('?') {
            Some((link, query)) => (link, Some(query)),
            None => (link, None),
        };
        let secret = room_secret::parse_query(query).map_err(Error::Address)?;
        let link = link.trim_end_matches('/');
        let scheme_end = link.find("://").map_or(0, |i| i + 3);
        let Some((signal, room)) = link
            .rsplit_once('/')
            .filter(|(signal, _)| signal.len() > scheme_end && !signal.ends_with('/'))
        else {
            return Err(Error::Address(format!(
                "`{}` is not a room link: write ws://HOST:PORT/ROOM",
                link.escape_debug()
            )));
        };
        let config = RoomConfig {
            secret,
            ..RoomConfig::new(signal, room)
        };
        config.room_url()?;
        Ok(config)
    }

    /// With this secret.
    #[must_use]
    pub fn with_secret(mut self, secret: RoomSecret) -> RoomConfig {
        self.secret = Some(secret);
        self
    }

    /// With these STUN/TURN servers.
    #[must_use]
    pub fn with_ice(mut self, ice: IceServers) -> RoomConfig {
        self.ice = ice;
        self
    }

    /// The room without its secret, `SIGNAL_URL/ROOM`: what messages and errors name.
    ///
    /// # Errors
    /// [`Error::Address`] when the URL or the room name is malformed.
    pub fn room_url(&self) -> Result<String, Error> {
        let base = room::check_signal_url(&self.signal_url).map_err(Error::Address)?;
        room::check_room_name(&self.room).map_err(Error::Address)?;
        Ok(format!("{base}/{}", self.room))
    }

    /// The room link, `SIGNAL_URL/ROOM?secret=SECRET` (no query without a secret): what
    /// matchbox connects to, and what a player gives the others.
    ///
    /// # Errors
    /// [`Error::Address`] when the URL or the room name is malformed.
    pub fn link(&self) -> Result<String, Error> {
        let url = self.room_url()?;
        Ok(match &self.secret {
            Some(secret) => format!("{url}?{SECRET_PARAM}={}", secret.as_str()),
            None => url,
        })
    }
}

/// What matchbox's message loop ended with, sent by its thread.
type LoopEnd = Result<(), String>;

/// The name of the threads matchbox's message loops run on; a panic there is caught and
/// becomes an error (or a dropped negotiation), so it is not printed as a crash.
const WEBRTC_THREAD: &str = "webrtc";

/// One entry into the room: a matchbox socket, the thread running its message loop, and what
/// its signaller reports. The room is entered again, with a new entry, when a negotiation
/// stalls (`net::negotiation`).
struct Entry {
    /// `None` only once closed or handed to the linger thread.
    socket: Option<WebRtcSocket>,
    /// Our peer id in the room for this entry.
    me: PeerId,
    loop_end: mpsc::Receiver<LoopEnd>,
    /// What the signaller reports: the server's reason for closing, signals dropped, what passed.
    signals: SignalReport,
}

impl Entry {
    /// Enters the room at `link` and waits (until `deadline`) for the server to assign us an id.
    fn open(room: &RoomConfig, url: &str, link: &str, deadline: Instant) -> Result<Entry, Error> {
        let signals = SignalReport::default();
        let ice = RtcIceServerConfig {
            urls: room.ice.urls.clone(),
            username: room.ice.username.clone(),
            credential: room.ice.credential.clone(),
        };
        let (mut socket, message_loop) = WebRtcSocket::builder(link)
            .signaller_builder(Arc::new(GuardedSignallerBuilder(signals.clone())))
            .ice_server(ice)
            // One attempt: an unreachable server is reported at once, not after retries.
            .reconnect_attempts(Some(1))
            .add_channel(ChannelConfig::reliable())
            .add_channel(ChannelConfig::unreliable())
            .build();
        let (end_tx, loop_end) = mpsc::channel();
        let unreachable = |reason: String| Error::SignalUnreachable {
            url: url.to_owned(),
            reason,
        };
        std::thread::Builder::new()
            .name(WEBRTC_THREAD.into())
            .spawn(move || {
                // matchbox unwraps some WebRTC errors inside its loop (e.g. no usable network
                // interface); that panic ends this thread, and becomes an error for the peer.
                let run =
                    std::panic::AssertUnwindSafe(|| futures::executor::block_on(message_loop));
                let end = match std::panic::catch_unwind(run) {
                    Ok(Ok(())) => Ok(()),
                    // matchbox's error does not chain its cause; say it (e.g. "connection
                    // refused"; the cause's text already holds its own causes).
                    Ok(Err(
                        matchbox_socket::Error::ConnectionFailed(cause)
                        | matchbox_socket::Error::Disconnected(cause),
                    )) => Err(cause.to_string()),
                    Err(panic) => Err(format!(
                        "the WebRTC stack failed: {}",
                        panic
                            .downcast_ref::<String>()
                            .map(String::as_str)
                            .or_else(|| panic.downcast_ref::<&str>().copied())
                            .unwrap_or("panic")
                    )),
                };
                let _ = end_tx.send(end);
            })
            .map_err(|e| unreachable(format!("cannot start the WebRTC thread: {e}")))?;
        let me = loop {
            if let Some(id) = socket.id() {
                break id;
            }
            match loop_end.try_recv() {
                Ok(end) => {
                    if let Some(reason) = signals.refusal() {
                        return Err(Error::RoomRefused {
                            url: url.to_owned(),
                            reason,
                        });
                    }
                    return Err(unreachable(
                        end.err().unwrap_or_else(|| "the socket closed".into()),
                    ));
                }
                Err(mpsc::TryRecvError::Disconnected) => {
                    return Err(unreachable("the WebRTC thread stopped".into()))
                }
                Err(mpsc::TryRecvError::Empty) => {}
            }
            if Instant::now() >= deadline {
                return Err(unreachable("no peer id assigned in time".into()));
            }
            std::thread::sleep(POLL);
        };
        Ok(Entry {
            socket: Some(socket),
            me,
            loop_end,
            signals,
        })
    }

    fn socket_mut(&mut self) -> &mut WebRtcSocket {
        self.socket
            .as_mut()
            .expect("the socket is only taken when the entry ends")
    }
}

/// A WebRTC room as a datagram [`Transport`].
///
/// Until the room settles who hosts ([`WebRtcTransport::settle`]), a negotiation with a peer
/// that stalls (a datagram of its handshake lost for good, ICE finding no path) is abandoned
/// and the room entered again with a fresh connection, within the time given — so a lost
/// datagram costs seconds, not the match (`net::negotiation`). When nobody could be connected
/// to, the error names the stage that failed and the fix ([`RoomFailure`]).
pub struct WebRtcTransport {
    room: RoomConfig,
    /// The room's link (with its secret): what each entry connects to.
    link: String,
    url: String,
    entry: Entry,
    /// Our synthetic address (from the current entry's peer id).
    local: SocketAddr,
    role: Role,
    state: RoomState,
    /// Connected peers with their latest intros, and intros heard before their sender was
    /// reported connected.
    peers: RoomPeers,
    /// When our intro was last said again to the connected peers.
    intro_resent: Instant,
    inbox: VecDeque<(SocketAddr, Vec<u8>)>,
    /// Set once the message loop has ended (signalling lost, socket closed).
    ended: Option<String>,
    /// How the negotiations went, over every entry.
    negotiations: Negotiations,
    /// When the room was first entered.
    entered: Instant,
    /// Signals dropped by the signallers of earlier entries.
    earlier_signals_dropped: u64,
    /// Datagrams matchbox refused to send, or sent to an address that is no connected peer.
    pub send_errors: u64,
    /// Room messages that are not intros (or came from peers not yet connected past the
    /// number kept for them), and datagrams dropped because the inbox was full or they were
    /// larger than the buffer read into.
    pub dropped: u64,
}

impl std::fmt::Debug for WebRtcTransport {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("WebRtcTransport")
            .field("url", &self.url)
            .field("local", &self.local)
            .field("role", &self.role)
            .field("state", &self.state)
            .field("peers", &self.peers.len())
            .field("entries", &self.negotiations.entries())
            .finish_non_exhaustive()
    }
}

/// Keeps the panics that matchbox and webrtc-rs raise on our WebRTC threads from being printed
/// as crashes: each is caught (a negotiation's by our matchbox patch, which drops that peer;
/// the loop's by [`Entry::open`]'s thread, which reports it as an error), and the user is told
/// what failed in words instead. Panics anywhere else go to the hook that was there before.
fn quiet_webrtc_panics() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            if printed_from(std::thread::current().name()) {
                previous(info);
            }
        }));
    });
}

/// A time in whole seconds, rounded to the nearest (what a message says was waited).
fn whole_seconds(time: Duration) -> u64 {
    u64::try_from((time.as_millis() + 500) / 1000).unwrap_or(u64::MAX)
}

/// Whether a panic on the thread of this name goes to the hook that was there before: all
/// but those of our WebRTC threads, which are caught and told in words.
fn printed_from(thread: Option<&str>) -> bool {
    thread != Some(WEBRTC_THREAD)
}

/// The synthetic address of a peer: its id as an IPv6 address, port 0.
#[must_use]
pub fn peer_addr(id: PeerId) -> SocketAddr {
    SocketAddr::new(IpAddr::V6(Ipv6Addr::from(id.0.as_u128())), 0)
}

/// Whether `addr` is a room peer's synthetic address ([`peer_addr`]: IPv6, port 0), which
/// means nothing to a player, rather than a real one (a UDP peer always has a port).
#[must_use]
pub fn is_room_peer(addr: SocketAddr) -> bool {
    addr.is_ipv6() && addr.port() == 0
}

/// How long a TURN server is given to answer the probe that tells why no relay came.
const TURN_PROBE: Duration = Duration::from_secs(3);

impl WebRtcTransport {
    /// Enters `room` as `role`: connects to the signalling server and waits (up to `timeout`)
    /// for it to assign this peer an id.
    ///
    /// # Errors
    /// [`Error::Address`] for a malformed URL, room name or ICE server (checked before anything
    /// connects); [`Error::RoomRefused`] when the server refuses this peer the room
    /// (another secret holds it); [`Error::SignalUnreachable`] when the signalling server does
    /// not answer (not running, wrong address) within `timeout`.
    pub fn connect(
        room: &RoomConfig,
        role: Role,
        timeout: Duration,
    ) -> Result<WebRtcTransport, Error> {
        let entered = Instant::now();
        let url = room.room_url()?;
        let link = room.link()?;
        room.ice.check().map_err(Error::Address)?;
        quiet_webrtc_panics();
        let entry = Entry::open(room, &url, &link, entered + timeout)?;
        Ok(WebRtcTransport {
            room: room.clone(),
            link,
            url,
            local: peer_addr(entry.me),
            entry,
            role,
            state: RoomState::Open,
            peers: RoomPeers::default(),
            intro_resent: entered,
            inbox: VecDeque::new(),
            ended: None,
            negotiations: Negotiations::new(),
            entered,
            earlier_signals_dropped: 0,
            send_errors: 0,
            dropped: 0,
        })
    }

    /// The room URL this transport entered.
    #[must_use]
    pub fn url(&self) -> &str {
        &self.url
    }

    /// Signals from the signalling server dropped before matchbox saw them: events that do
    /// not parse, and SDP or ICE candidates that fail `net::signal_check`.
    #[must_use]
    pub fn signals_dropped(&self) -> u64 {
        self.earlier_signals_dropped + self.entry.signals.dropped()
    }

    /// How many times the room was entered: 1, plus one for every negotiation that stalled
    /// before the room settled.
    #[must_use]
    pub fn entries(&self) -> u32 {
        self.negotiations.entries()
    }

    /// Peers with an open data channel, by synthetic address.
    #[must_use]
    pub fn connected(&self) -> Vec<SocketAddr> {
        self.peers.addrs()
    }

    /// Waits until the room settles what this peer does (see [`crate::net::room`]): host, join the
    /// host, or watch it. Datagrams that arrive meanwhile are kept for the handshake. A
    /// negotiation that stalls meanwhile is tried again with a fresh entry into the room.
    ///
    /// # Errors
    /// [`Error::RoomNotConnected`] when nobody to play with (or, for a spectator, no host) is
    /// connected within `timeout`, or sooner once the entries show no path will be found, with
    /// the stage that failed and the fix; [`Error::RoomLost`] when the signalling server goes
    /// away first (or the WebRTC stack fails).
    pub fn settle(&mut self, timeout: Duration) -> Result<RoomPart<SocketAddr>, Error> {
        let deadline = Instant::now() + timeout;
        loop {
            self.pump();
            if let Some(reason) = &self.ended {
                return Err(Error::RoomLost {
                    url: self.url.clone(),
                    reason: reason.clone(),
                });
            }
            let heard = self.peers.intros();
            if let Some(part) = room::decide(self.entry.me, self.role, &heard) {
                self.announce(match part {
                    RoomPart::Host => RoomState::Hosting,
                    RoomPart::Join(_) | RoomPart::Spectate(_) => RoomState::Settled,
                });
                return Ok(match part {
                    RoomPart::Host => RoomPart::Host,
                    RoomPart::Join(id) => RoomPart::Join(peer_addr(id)),
                    RoomPart::Spectate(id) => RoomPart::Spectate(peer_addr(id)),
                });
            }
            let now = Instant::now();
            if now >= deadline || self.negotiations.hopeless() {
                return Err(self.not_connected());
            }
            // The room channel is reliable, but an intro sent as soon as our side of a
            // connection opened is dropped by a peer whose side is not open yet (webrtc-rs
            // delivers nothing before that; seen in the NAT lab when the peer's SCTP handshake
            // lost a packet), and nothing else would make us say it again: until the room
            // settles, ours is said again to every connected peer (7 bytes).
            if now.saturating_duration_since(self.intro_resent) >= INTRO_AGAIN {
                self.intro_resent = now;
                self.announce(self.state);
            }
            // Only before anyone is connected: an entry again would cut a working connection.
            if let Some(stall) = self
                .negotiations
                .stalled(now)
                .filter(|_| self.peers.len() == 0)
            {
                self.reenter(stall, deadline)?;
            }
            std::thread::sleep(POLL);
        }
    }

    /// Leaves the room and enters it again after `stall`: the other peers, told we left, offer
    /// to our new self.
    fn reenter(&mut self, stall: Stall, deadline: Instant) -> Result<(), Error> {
        self.negotiations.reenter(stall);
        let entry = Entry::open(&self.room, &self.url, &self.link, deadline).map_err(|e| {
            Error::RoomLost {
                url: self.url.clone(),
                reason: format!("entering it again after a stalled negotiation failed: {e}"),
            }
        })?;
        let mut old = std::mem::replace(&mut self.entry, entry);
        if let Some(mut socket) = old.socket.take() {
            // At once, not lingering: the other side must learn we left to offer again.
            socket.close();
        }
        self.earlier_signals_dropped += old.signals.dropped();
        // Our old self lingers in the room a moment and offers to our new self: no peer.
        self.negotiations.forget(old.me);
        self.local = peer_addr(self.entry.me);
        self.peers.clear();
        self.inbox.clear();
        Ok(())
    }

    /// The error for a room that connected nobody to play with: what failed, asking the TURN
    /// server why no relay came when that is the question.
    fn not_connected(&self) -> Error {
        let ice = self.room.ice.given();
        let turn = self
            .negotiations
            .needs_turn_probe(ice)
            .then(|| self.probe_turn())
            .flatten();
        Error::RoomNotConnected {
            url: self.url.clone(),
            seconds: whole_seconds(self.entered.elapsed()),
            failure: self.negotiations.failure(ice, turn),
        }
    }

    /// What the first TURN server we can ask over UDP says to our credentials.
    fn probe_turn(&self) -> Option<TurnAnswer> {
        let server = self.room.ice.urls.iter().find_map(|u| turn_udp_server(u))?;
        let user = self.room.ice.username.as_deref().unwrap_or_default();
        let password = self.room.ice.credential.as_deref().unwrap_or_default();
        match probe_turn(&server, user, password, TURN_PROBE) {
            TurnProbe::Allocated => Some(TurnAnswer::Allocated),
            TurnProbe::Refused(reason) => Some(TurnAnswer::Refused(reason)),
            TurnProbe::Silent => Some(TurnAnswer::Silent),
            TurnProbe::NotProbed(_) => None,
        }
    }

    /// Changes this peer's state and tells every connected peer.
    fn announce(&mut self, state: RoomState) {
        self.state = state;
        let intro = self.intro();
        for id in self.peers.ids() {
            self.send_on(ROOM_CHANNEL, intro.to_vec(), Some(id));
        }
    }

    /// Sends `bytes` to `to` on `channel`, counting what is not sent: to nobody connected, or
    /// refused by matchbox (which refuses once its message loop has ended).
    fn send_on(&mut self, channel: usize, bytes: Vec<u8>, to: Option<PeerId>) {
        let channel = self.entry.socket_mut().channel_mut(channel);
        let sent = to.is_some_and(|id| channel.try_send(bytes.into(), id).is_ok());
        if !sent {
            self.send_errors += 1;
        }
    }

    fn intro(&self) -> [u8; RoomIntro::LEN] {
        RoomIntro {
            role: self.role,
            state: self.state,
        }
        .encode()
    }

    /// Takes in what matchbox has: peers that came and went (newcomers are told who we are),
    /// how the negotiations got on, room messages, datagrams, and the end of the message loop.
    fn pump(&mut self) {
        if self.ended.is_none() {
            match self.entry.loop_end.try_recv() {
                Ok(end) => {
                    let reason = end.err().unwrap_or_else(|| "the socket closed".into());
                    self.ended = Some(match self.entry.signals.refusal() {
                        Some(said) => format!("the signalling server closed: {said}"),
                        None => reason,
                    });
                }
                Err(mpsc::TryRecvError::Disconnected) => {
                    self.ended = Some("the WebRTC thread stopped".into());
                }
                Err(mpsc::TryRecvError::Empty) => {}
            }
        }
        let now = Instant::now();
        for note in self.entry.signals.take_notes() {
            self.negotiations.note_signal(note, now);
        }
        for (id, event) in self.entry.socket_mut().negotiation_events() {
            self.negotiations.note_progress(id, event, now);
        }
        // Once the loop has ended its channels are closed: nothing more will come.
        let Ok(changes) = self.entry.socket_mut().try_update_peers() else {
            return;
        };
        for (id, state) in changes {
            match state {
                // Late news of a peer that left, or of our own former entry: nobody to play.
                PeerState::Connected => {
                    if self.peers.open(id, self.negotiations.is_gone(id)) {
                        self.negotiations.note_open(id, now);
                        self.send_on(ROOM_CHANNEL, self.intro().to_vec(), Some(id));
                    }
                }
                // GGRS notices the silence and reports the disconnect, as over UDP.
                PeerState::Disconnected => {
                    self.negotiations.note_closed(id, now);
                    self.peers.closed(id);
                }
            }
        }
        for (id, packet) in self.entry.socket_mut().channel_mut(ROOM_CHANNEL).receive() {
            // Not an intro, or past the bound of intros kept for peers not yet connected.
            let taken = RoomIntro::parse(&packet).is_some_and(|intro| self.peers.heard(id, intro));
            if !taken {
                self.dropped += 1;
            }
        }
        for (id, packet) in self.entry.socket_mut().channel_mut(GAME_CHANNEL).receive() {
            if self.inbox.len() >= MAX_INBOX {
                self.dropped += 1;
            } else {
                self.inbox.push_back((peer_addr(id), packet.to_vec()));
            }
        }
    }
}

impl Transport for WebRtcTransport {
    fn send(&mut self, bytes: &[u8], to: SocketAddr) {
        let to = self.peers.at(to);
        self.send_on(GAME_CHANNEL, bytes.to_vec(), to);
    }

    fn recv(&mut self, buf: &mut [u8]) -> Option<(usize, SocketAddr)> {
        if self.inbox.is_empty() {
            self.pump();
        }
        while let Some((from, packet)) = self.inbox.pop_front() {
            // A datagram larger than any of ours is not passed on cut short.
            if let Some(dest) = buf.get_mut(..packet.len()) {
                dest.copy_from_slice(&packet);
                return Some((packet.len(), from));
            }
            self.dropped += 1;
        }
        None
    }

    fn local_addr(&self) -> SocketAddr {
        self.local
    }
}

/// How long a dropped transport's connections stay up before they are closed.
const LINGER: Duration = Duration::from_secs(3);

impl Drop for WebRtcTransport {
    fn drop(&mut self) {
        // matchbox 0.15 panics in the message loop of a peer whose negotiation with us is cut
        // short (a data channel closing before it opened: "Sender closed before channel was
        // ready"), which ends every connection of that peer — its match too. A peer that
        // leaves right after entering a room (refused: the room is full, the rules differ)
        // may still be negotiated with by the others, so its socket is kept open a few
        // seconds, off this thread, before it is closed. Closing the channels ends the message
        // loop, which closes the peer connections.
        if let Some(mut socket) = self.entry.socket.take() {
            let lingered = std::thread::Builder::new()
                .name("webrtc-linger".into())
                .spawn(move || {
                    std::thread::sleep(LINGER);
                    socket.close();
                });
            // Without a thread the closure, and the socket in it, is dropped at once.
            drop(lingered);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn a_room_link_splits_into_server_and_room() {
        let room = RoomConfig::from_link("ws://10.0.0.5:3536/friday").expect("link");
        assert_eq!(
            (room.signal_url.as_str(), room.room.as_str()),
            ("ws://10.0.0.5:3536", "friday")
        );
        let room = RoomConfig::from_link("wss://match.example.org/duel/friday/").expect("link");
        assert_eq!(
            room.room_url().expect("url"),
            "wss://match.example.org/duel/friday"
        );
        for bad in [
            "ws://10.0.0.5:3536",
            "ws://10.0.0.5:3536/",
            "friday",
            "ws://h/a b",
            "",
        ] {
            assert!(
                matches!(RoomConfig::from_link(bad), Err(Error::Address(_))),
                "{bad:?}"
            );
        }
    }

    #[test]
    fn a_room_link_carries_its_secret() {
        let secret = "abcdefghijklmnopqrstuvwx";
        let link = format!("ws://10.0.0.5:3536/friday?secret={secret}");
        let room = RoomConfig::from_link(&link).expect("link");
        assert_eq!(room.secret.as_ref().map(RoomSecret::as_str), Some(secret));
        assert_eq!(room.room_url().expect("url"), "ws://10.0.0.5:3536/friday");
        assert_eq!(room.link().expect("link"), link);
        let slash = RoomConfig::from_link(&format!("ws://h:1/r/?secret={secret}")).expect("/");
        assert_eq!(slash.room, "r");
        for bad in [
            "ws://h:1/r?secret=short",
            "ws://h:1/r?secret=",
            "ws://h:1/r?room=x",
            "ws://h:1/r?secret=abcdefghijklmnopqrstuvwx&x=1",
            "ws://h:1?secret=abcdefghijklmnopqrstuvwx",
            "ws://h:1/?secret=abcdefghijklmnopqrstuvwx",
            "ws://h:1/r?secret=abcdefghijklmnopqrstuvwx#x",
        ] {
            assert!(
                matches!(RoomConfig::from_link(bad), Err(Error::Address(_))),
                "{bad:?}"
            );
        }
    }

    #[test]
    fn ice_servers_are_checked_before_anything_connects() {
        let ice = |urls: &[&str], user: Option<&str>, password: Option<&str>| IceServers {
            urls: urls.iter().map(|u| (*u).to_owned()).collect(),
            username: user.map(str::to_owned),
            credential: password.map(str::to_owned),
        };
        for good in [
            ice(&[], None, None),
            ice(&["stun:stun.l.google.com:19302"], None, None),
            ice(&["stuns:stun.example.org"], None, None),
            ice(
                &["turn:turn.example.org:3478?transport=tcp"],
                Some("u"),
                Some("p"),
            ),
            ice(
                &["turns:[2001:db8::1]:5349", "stun:h"],
                Some("u"),
                Some("p"),
            ),
        ] {
            assert_eq!(good.check(), Ok(()), "{good:?}");
        }
        for (bad, why) in [
            (ice(&["http://x"], None, None), "starts with"),
            (ice(&["stun.l.google.com:19302"], None, None), "starts with"),
            (ice(&["stun"], None, None), "not an ICE server URL"),
            (ice(&["stun:"], None, None), "no host"),
            (ice(&["stun: h"], None, None), "no host"),
            (
                ice(&["turn:turn.example.org"], None, None),
                "user name and a password",
            ),
            (
                ice(&["turn:turn.example.org"], Some("u"), None),
                "user name and a password",
            ),
            (
                ice(&["turns:t"], Some(""), Some("p")),
                "user name and a password",
            ),
            (
                ice(&["stun:h"], Some("u"), Some("p")),
                "are for a TURN server",
            ),
            (ice(&["stun:h"; 9], None, None), "at most 8"),
            (
                ice(&["turn:h"], Some(&"u".repeat(257)), Some("p")),
                "longer than 256",
            ),
        ] {
            let e = bad.check().expect_err(why);
            assert!(e.contains(why), "{bad:?}: {e}");
        }
        // Refused by connect itself, before any socket exists: no server listens at port 1.
        let room = RoomConfig::new("ws://127.0.0.1:1", "r").with_ice(ice(&["turn:t"], None, None));
        match WebRtcTransport::connect(&room, Role::Player, Duration::from_secs(5)) {
            Err(Error::Address(e)) => assert!(e.contains("TURN"), "{e}"),
            other => panic!("expected the ICE servers refused, got {other:?}"),
        }
    }

    /// Each limit of the check takes its exact size and refuses one more: eight servers, a
    /// URL of 512 bytes, a user name and a password of 256.
    #[test]
    fn ice_servers_pass_at_each_limit_and_not_one_past_it() {
        let turn = |urls: Vec<String>, user: usize, password: usize| IceServers {
            urls,
            username: Some("u".repeat(user)),
            credential: Some("p".repeat(password)),
        };
        let url = |len: usize| format!("turn:{}", "h".repeat(len - 5));
        assert_eq!(url(512).len(), 512);
        for (servers, url_len, user, password, fine) in [
            (8, 20, 1, 1, true),
            (9, 20, 1, 1, false),
            (1, 512, 1, 1, true),
            (1, 513, 1, 1, false),
            (1, 20, 256, 256, true),
            (1, 20, 257, 1, false),
            (1, 20, 1, 257, false),
        ] {
            let ice = turn(vec![url(url_len); servers], user, password);
            assert_eq!(
                ice.check().is_ok(),
                fine,
                "{servers} servers, a URL of {url_len}, credentials of {user} and {password}"
            );
        }
    }

    /// A link's server part must be a whole server address: a scheme and a host before the
    /// room's slash, not a bare scheme, nothing, or a path ending in a slash.
    #[test]
    fn a_link_names_a_server_before_its_room() {
        for (link, signal) in [
            ("ws://h/r", "ws://h"),
            ("wss://h/r", "wss://h"),
            ("wss://h/a/r", "wss://h/a"),
        ] {
            let room = RoomConfig::from_link(link).expect(link);
            assert_eq!(
                (room.signal_url.as_str(), room.room.as_str()),
                (signal, "r")
            );
        }
        for bad in ["/r", "ws:///r", "ws://h//r", "wss://h/a//r", "//r"] {
            match RoomConfig::from_link(bad) {
                Err(Error::Address(e)) => assert!(e.contains("is not a room link"), "{bad}: {e}"),
                other => panic!("{bad}: {other:?}"),
            }
        }
    }

    /// Waited time is said in seconds rounded to the nearest, half a second up.
    #[test]
    fn waited_time_is_said_in_rounded_seconds() {
        for (millis, seconds) in [
            (0, 0),
            (499, 0),
            (500, 1),
            (1499, 1),
            (1500, 2),
            (61_000, 61),
        ] {
            assert_eq!(
                whole_seconds(Duration::from_millis(millis)),
                seconds,
                "{millis} ms"
            );
        }
        assert_eq!(whole_seconds(Duration::MAX), u64::MAX);
    }

    /// Only the panics of the WebRTC threads are kept quiet: the main thread's, an unnamed
    /// thread's and the linger thread's are printed as before.
    #[test]
    fn only_the_webrtc_threads_panics_are_kept_quiet() {
        assert!(!printed_from(Some(WEBRTC_THREAD)));
        for other in [None, Some("main"), Some("webrtc-linger"), Some("")] {
            assert!(printed_from(other), "{other:?}");
        }
    }

    /// A room peer's synthetic address is told apart from a real one, so messages can say
    /// "the other peer in the room" instead of a made-up IPv6 address.
    #[test]
    fn a_room_peer_address_is_not_a_real_one() {
        let id: PeerId =
            serde_json::from_str("\"4ca6084a-0000-4000-8000-000000000001\"").expect("a uuid");
        assert!(is_room_peer(peer_addr(id)));
        for real in ["127.0.0.1:7000", "[::1]:7000", "203.0.113.2:1"] {
            assert!(!is_room_peer(real.parse().expect("addr")), "{real}");
        }
    }

    /// The command line's ICE options: given servers stay, `--no-ice` means none, nothing
    /// given means the public STUN servers; which kinds were given is read off the schemes.
    #[test]
    fn the_public_stun_servers_are_the_default_unless_replaced_or_turned_off() {
        let given = IceServers {
            urls: vec!["turn:t:1".into()],
            username: Some("u".into()),
            credential: Some("p".into()),
        };
        assert_eq!(given.clone().or_public_stun(false), given);
        assert_eq!(given.clone().or_public_stun(true), IceServers::default());
        let default = IceServers::default().or_public_stun(false);
        assert_eq!(default.urls, DEFAULT_STUN.map(str::to_owned).to_vec());
        assert_eq!(default.check(), Ok(()));
        assert_eq!(
            default.given(),
            IceGiven {
                stun: true,
                turn: false
            }
        );
        assert_eq!(
            given.given(),
            IceGiven {
                stun: false,
                turn: true
            }
        );
        assert_eq!(IceServers::default().given(), IceGiven::default());
        // A user name with no TURN server still reaches the check, which refuses it.
        let stray = IceServers {
            username: Some("u".into()),
            ..IceServers::default()
        };
        assert!(stray.or_public_stun(false).check().is_err());
    }

    proptest! {
        /// Any text is a room link or an error, never a panic; a link that parses gives back
        /// its own link, and parses again to the same room.
        #[test]
        fn any_link_parses_or_is_refused(link in "\\PC{0,60}") {
            if let Ok(room) = RoomConfig::from_link(&link) {
                let again = room.link().expect("checked");
                if !link.contains('?') {
                    prop_assert_eq!(&again, link.trim_end_matches('/'));
                }
                prop_assert_eq!(RoomConfig::from_link(&again).expect("round trip"), room);
            }
        }

        /// The same for text that looks like a link with a secret.
        #[test]
        fn any_link_with_a_query_parses_or_is_refused(
            room in "[A-Za-z0-9._/-]{0,12}",
            query in "\\PC{0,40}",
        ) {
            let link = format!("ws://h:1/{room}?{query}");
            if let Ok(parsed) = RoomConfig::from_link(&link) {
                prop_assert!(parsed.secret.is_some());
                prop_assert_eq!(RoomConfig::from_link(&parsed.link().expect("checked")).expect("again"), parsed);
            }
        }

        /// Round trip: a valid server, room and secret make a link that parses back to them.
        #[test]
        fn a_room_link_parses_back(
            host in "[a-z]{1,10}",
            port in 1u16..,
            room in "[A-Za-z0-9_-]{1,20}",
            secret in proptest::option::of("[A-Za-z0-9_-]{16,64}"),
        ) {
            let mut config = RoomConfig::new(format!("ws://{host}:{port}"), room);
            if let Some(secret) = secret {
                config = config.with_secret(RoomSecret::parse(&secret).expect("valid"));
            }
            let parsed = RoomConfig::from_link(&config.link().expect("valid")).expect("parses");
            prop_assert_eq!(parsed, config);
        }
    }
}
