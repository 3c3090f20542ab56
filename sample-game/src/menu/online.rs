//! Getting online from the menu without freezing the window: the connection is
//! [`client::session::connecting::Connecting`] (the handshake, then GGRS's synchronization, with the same
//! refusals, restarts and timeouts as `NetPeer::host_on` / `NetPeer::join_on`, which are the
//! same machine polled to the end), polled once per frame, so the waiting screen keeps drawing
//! and Esc cancels at any moment.

use client::net::conditioner::LinkConditioner;
use client::net::room::RoomPart;
use client::net::socket::{Link, SharedLink};
use client::net::transport::default_bind_for;
use client::net::webrtc::{IceServers, RoomConfig, WebRtcTransport};
use client::net::wire::Role;
use client::session::connecting::{ConnectStage, Connecting};
use client::session::netplay::open_link;
use client::session::netplay::{NetConfig, NetPeer};
use client::Error;
use engine::World;
use std::net::{IpAddr, Ipv4Addr, SocketAddr, UdpSocket};
use std::sync::mpsc;
use std::time::{Duration, Instant};

/// The port a host from the menu listens on, if it is free (else any free port).
pub const HOST_PORT: u16 = 7000;

/// Which side this machine takes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Side {
    /// Hosting: waiting for a player.
    Host,
    /// Joining the host at this address as a player or a spectator.
    Join(SocketAddr, Role),
    /// Meeting in a WebRTC room (a `ws://HOST:PORT/ROOM` link) as a player or a spectator;
    /// the room decides who hosts.
    Room(Role),
}

/// A room being entered on a background thread (connecting to the signalling server and
/// settling who hosts both wait), so the window keeps drawing.
type Opening = mpsc::Receiver<Result<(WebRtcTransport, RoomPart<SocketAddr>), Error>>;

enum Inner {
    Opening(Opening, Box<NetConfig<World>>),
    Connecting(Box<Connecting<World>>),
}

/// Where a connection stands, for the status screen.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Stage {
    /// Waiting for the handshake (the host for a joiner, a joiner for the host).
    Handshake,
    /// Agreed; GGRS is synchronizing: `done` of `total` round trips.
    Synchronizing {
        /// Round trips done.
        done: u32,
        /// Round trips needed.
        total: u32,
    },
}

/// What one poll gave.
pub enum Poll {
    /// Still going.
    Pending,
    /// Synchronized: the match can start.
    Ready(Box<NetPeer<World>>),
    /// The other side turned us away (different rules or build, the match is full), with its
    /// reason.
    Refused(String),
    /// Failed otherwise (no answer, no synchronization, a socket error), with the reason.
    Failed(String),
}

/// A connection being made, polled by the window loop.
pub struct Connection {
    inner: Inner,
    side: Side,
    started: Instant,
    /// Give up after this long (`None`: a host waits until cancelled).
    timeout: Option<Duration>,
    /// Where it stands.
    pub stage: Stage,
    /// What to tell the other player (a host's addresses).
    pub share: Vec<String>,
    /// A passing note (a joiner that arrived but vanished).
    pub note: Option<String>,
}

impl Connection {
    /// Starts hosting: binds [`HOST_PORT`] (or any free port when it is taken) and waits until
    /// cancelled, for a player holding `config.invite` when there is one (the addresses to
    /// share then carry it).
    ///
    /// # Errors
    /// If no UDP port can be bound at all.
    pub fn host(config: NetConfig<World>) -> Result<Connection, Error> {
        let any = SocketAddr::from((Ipv4Addr::UNSPECIFIED, HOST_PORT));
        let link = open_link(any, config.conditioner).or_else(|_| {
            open_link(
                SocketAddr::from((Ipv4Addr::UNSPECIFIED, 0)),
                config.conditioner,
            )
        })?;
        let port = link.borrow().local_addr().port();
        // With an invite code, what to share is the whole invitation, ADDRESS#CODE.
        let share = share_addresses(port)
            .into_iter()
            .map(|a| match config.invite {
                Some(code) => format!("{a}#{code}"),
                None => a,
            })
            .collect();
        Ok(Connection::new(
            Inner::Connecting(Box::new(
                Connecting::<World>::host(link, &config).waiting_indefinitely(),
            )),
            Side::Host,
            None,
            share,
        ))
    }

    /// Starts contacting `host` as `role`; the handshake gives up after `timeout`.
    ///
    /// # Errors
    /// If no UDP port can be bound.
    pub fn join(
        host: SocketAddr,
        role: Role,
        config: NetConfig<World>,
        timeout: Duration,
    ) -> Result<Connection, Error> {
        let link = open_link(default_bind_for(host), config.conditioner)?;
        let config = within(config, timeout);
        Ok(Connection::new(
            Inner::Connecting(Box::new(Connecting::<World>::join(
                link, host, role, &config,
            ))),
            Side::Join(host, role),
            Some(timeout),
            Vec::new(),
        ))
    }

    /// Enters the WebRTC room of `link` (`ws://HOST:PORT/ROOM`) as `role`, with the STUN/TURN
    /// servers `ice`; the signalling server and the room together get `timeout` to find
    /// someone to play with.
    ///
    /// # Errors
    /// A malformed link or ICE server.
    pub fn room(
        link: &str,
        role: Role,
        ice: IceServers,
        config: NetConfig<World>,
        timeout: Duration,
    ) -> Result<Connection, Error> {
        let room = RoomConfig::from_link(link)?.with_ice(ice);
        let (tx, rx) = mpsc::channel();
        std::thread::spawn(move || {
            let deadline = Instant::now() + timeout;
            let opened = WebRtcTransport::connect(&room, role, timeout).and_then(|mut t| {
                let part = t.settle(deadline.saturating_duration_since(Instant::now()))?;
                Ok((t, part))
            });
            // The window may have given up and dropped the receiver: nothing to tell.
            let _ = tx.send(opened);
        });
        let config = within(config, timeout);
        Ok(Connection::new(
            Inner::Opening(rx, Box::new(config)),
            Side::Room(role),
            Some(timeout),
            vec![link.to_string()],
        ))
    }

    fn new(inner: Inner, side: Side, timeout: Option<Duration>, share: Vec<String>) -> Connection {
        Connection {
            inner,
            side,
            started: Instant::now(),
            timeout,
            stage: Stage::Handshake,
            share,
            note: None,
        }
    }

    /// Which side this is.
    #[must_use]
    pub fn side(&self) -> Side {
        self.side
    }

    /// How long it has been going.
    #[must_use]
    pub fn waited(&self) -> Duration {
        self.started.elapsed()
    }

    /// The local address bound (unspecified while a room is still being entered).
    #[must_use]
    pub fn local_addr(&self) -> SocketAddr {
        match &self.inner {
            Inner::Connecting(c) => c.link().borrow().local_addr(),
            Inner::Opening(..) => SocketAddr::from((Ipv4Addr::UNSPECIFIED, 0)),
        }
    }

    /// In a room: whether the room made this peer its host (`None` until it has decided, and
    /// outside rooms).
    #[must_use]
    pub fn room_host(&self) -> Option<bool> {
        match (&self.inner, self.side) {
            (Inner::Connecting(c), Side::Room(_)) => {
                Some(matches!(c.stage(), ConnectStage::Waiting { .. }))
                    .filter(|_| !matches!(self.stage, Stage::Synchronizing { .. }))
            }
            _ => None,
        }
    }

    /// The give-up time, if any.
    #[must_use]
    pub fn timeout(&self) -> Option<Duration> {
        self.timeout
    }

    /// Does what is due without blocking. Call once per frame.
    pub fn poll(&mut self) -> Poll {
        let was_syncing = matches!(self.stage, Stage::Synchronizing { .. });
        let connecting = match &mut self.inner {
            Inner::Connecting(c) => c,
            Inner::Opening(rx, config) => match rx.try_recv() {
                Err(mpsc::TryRecvError::Empty) => return Poll::Pending,
                Err(mpsc::TryRecvError::Disconnected) => {
                    return Poll::Failed("the room could not be entered".into())
                }
                Ok(Err(Error::Refused { reason })) => return Poll::Refused(reason),
                Ok(Err(e)) => return Poll::Failed(e.to_string()),
                Ok(Ok((transport, part))) => {
                    let link = room_link(transport, config);
                    let connecting = match part {
                        RoomPart::Host => {
                            Connecting::<World>::host(link, config).waiting_indefinitely()
                        }
                        RoomPart::Join(host) => {
                            Connecting::<World>::join(link, host, Role::Player, config)
                        }
                        RoomPart::Spectate(host) => {
                            Connecting::<World>::join(link, host, Role::Spectator, config)
                        }
                    };
                    self.inner = Inner::Connecting(Box::new(connecting));
                    let Inner::Connecting(c) = &mut self.inner else {
                        unreachable!("just set")
                    };
                    c
                }
            },
        };
        match connecting.poll() {
            Ok(Some(peer)) => Poll::Ready(Box::new(peer)),
            Ok(None) => {
                self.stage = match connecting.stage() {
                    ConnectStage::Synchronizing { done, total } => {
                        Stage::Synchronizing { done, total }
                    }
                    ConnectStage::Waiting { .. } | ConnectStage::Asking => Stage::Handshake,
                };
                if was_syncing && self.stage == Stage::Handshake {
                    // The host forgot a welcomed joiner that never synchronized.
                    self.note =
                        Some("a player arrived but did not synchronize; waiting again".into());
                }
                Poll::Pending
            }
            Err(Error::Refused { reason }) => Poll::Refused(reason),
            Err(e) => Poll::Failed(e.to_string()),
        }
    }
}

/// `config` with its handshake limited to `timeout`: a joiner's or a room's give-up time.
fn within(config: NetConfig<World>, timeout: Duration) -> NetConfig<World> {
    NetConfig::<World> {
        handshake_timeout: timeout,
        ..config
    }
}

/// A room's transport as a link, through the conditioner when one is configured (as
/// `client::session::online::open_room` does).
fn room_link(transport: WebRtcTransport, config: &NetConfig<World>) -> SharedLink {
    if config.conditioner.is_active() {
        Link::new(LinkConditioner::new(transport, config.conditioner))
    } else {
        Link::new(transport)
    }
}

/// Whether another machine could reach this one at `ip`: not the unspecified address, not
/// loopback.
fn reachable_from_elsewhere(ip: IpAddr) -> bool {
    !ip.is_unspecified() && !ip.is_loopback()
}

/// The addresses a host should share: this machine's address on its network (the one its
/// default route leaves from; asking needs no traffic) and loopback, for a second window on
/// the same computer.
#[must_use]
pub fn share_addresses(port: u16) -> Vec<String> {
    let mut out = Vec::new();
    // `connect` on UDP only picks a route; nothing is sent.
    let lan = UdpSocket::bind((Ipv4Addr::UNSPECIFIED, 0))
        .and_then(|s| s.connect((Ipv4Addr::new(192, 0, 2, 1), 9)).map(|()| s))
        .and_then(|s| s.local_addr())
        .ok()
        .map(|a| a.ip())
        .filter(|&ip| reachable_from_elsewhere(ip));
    if let Some(ip) = lan {
        out.push(format!("{ip}:{port}"));
    }
    out.push(format!("127.0.0.1:{port} (this computer)"));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A host shares loopback last, for a second window here, and before it at most one
    /// address another machine could reach.
    #[test]
    fn a_host_shares_an_address_others_can_reach_and_loopback() {
        let shared = share_addresses(7123);
        assert_eq!(
            shared.last().map(String::as_str),
            Some("127.0.0.1:7123 (this computer)")
        );
        assert!(shared.len() <= 2, "{shared:?}");
        for lan in &shared[..shared.len() - 1] {
            let addr: SocketAddr = lan.parse().expect("an address and the port");
            assert!(reachable_from_elsewhere(addr.ip()), "{lan}");
            assert_eq!(addr.port(), 7123);
        }
        let no = ["0.0.0.0", "127.0.0.1", "127.3.2.1", "::", "::1"];
        let yes = ["192.168.1.20", "10.0.0.5", "203.0.113.9", "fe80::1"];
        for ip in no {
            assert!(!reachable_from_elsewhere(ip.parse().unwrap()), "{ip}");
        }
        for ip in yes {
            assert!(reachable_from_elsewhere(ip.parse().unwrap()), "{ip}");
        }
    }

    /// A host whose welcomed joiner vanishes while synchronizing waits again, with a note
    /// saying so; no note before that, nor while the joiner synchronizes.
    #[test]
    fn a_host_notes_a_joiner_that_vanished_while_synchronizing() {
        let config = NetConfig::<World> {
            sync_timeout: Duration::from_millis(300),
            ..NetConfig::default()
        };
        let mut hosting = Connection::host(config.clone()).expect("a port to host on");
        let at = SocketAddr::from((Ipv4Addr::LOCALHOST, hosting.local_addr().port()));
        let link = open_link(default_bind_for(at), config.conditioner).expect("a socket");
        let mut joiner = Connecting::<World>::join(link, at, Role::Player, &config);
        let guard = Instant::now() + Duration::from_secs(10);
        while hosting.stage == Stage::Handshake {
            assert!(matches!(hosting.poll(), Poll::Pending));
            assert!(joiner.poll().expect("the joiner is welcomed").is_none());
            assert_eq!(hosting.note, None, "nobody has vanished yet");
            assert!(Instant::now() < guard, "the joiner was never welcomed");
            std::thread::sleep(Duration::from_millis(1));
        }
        drop(joiner);
        while hosting.stage != Stage::Handshake {
            assert_eq!(hosting.note, None, "the joiner may still synchronize");
            assert!(matches!(hosting.poll(), Poll::Pending));
            assert!(Instant::now() < guard, "the host never gave the joiner up");
            std::thread::sleep(Duration::from_millis(2));
        }
        assert_eq!(
            hosting.note.as_deref(),
            Some("a player arrived but did not synchronize; waiting again")
        );
    }

    /// A joiner or a room gives up after its own time; the rest of the config stays.
    #[test]
    fn the_give_up_time_limits_the_handshake_only() {
        let config = NetConfig::<World> {
            input_delay: 4,
            ..NetConfig::default()
        };
        let limited = within(config.clone(), Duration::from_millis(1500));
        assert_eq!(limited.handshake_timeout, Duration::from_millis(1500));
        assert_eq!(limited.input_delay, 4);
        assert_eq!(limited.sync_timeout, config.sync_timeout);
    }

    /// A joiner whose host never answers fails after its give-up time, saying so, and its
    /// waiting time counts from the start.
    #[test]
    fn a_join_nobody_answers_fails_after_its_give_up_time() {
        let silent = UdpSocket::bind((Ipv4Addr::LOCALHOST, 0)).expect("a socket");
        let host = silent.local_addr().expect("its address");
        let started = Instant::now();
        let mut joining = Connection::join(
            host,
            Role::Player,
            NetConfig::default(),
            Duration::from_secs(1),
        )
        .expect("a socket to join from");
        assert_eq!(joining.side(), Side::Join(host, Role::Player));
        assert_eq!(joining.timeout(), Some(Duration::from_secs(1)));
        let failed = loop {
            match joining.poll() {
                Poll::Pending => {}
                Poll::Failed(why) => break why,
                Poll::Ready(_) | Poll::Refused(_) => panic!("nobody answered"),
            }
            assert!(started.elapsed() < Duration::from_secs(20), "never gave up");
            std::thread::sleep(Duration::from_millis(5));
        };
        assert!(failed.contains("within 1 s"), "{failed}");
        assert!(joining.waited() >= Duration::from_secs(1));
        assert!(joining.waited() <= started.elapsed());
    }
}
