//! Getting online from the menu without freezing the window: the handshake runs in short
//! slices (a few milliseconds each) between frames, then GGRS's synchronization is polled once
//! per frame, so the waiting screen keeps drawing and Esc cancels at any moment.
//!
//! The stages are those of `NetPeer::host_on` / `NetPeer::join_on`, taken apart:
//! [`handshake::host`] or [`handshake::join`] until an agreement, [`NetPeer::start_agreed`],
//! then [`NetPeer::wait_synchronized`] with a zero timeout until the session runs. A host
//! whose joiner never synchronizes forgets it and waits again, as `host_on` does.

use client::handshake::{self, Agreement};
use client::netplay::open_link;
use client::socket::SharedLink;
use client::transport::default_bind_for;
use client::wire::{PeerInfo, Role};
use client::{Error, NetConfig, NetEvent, NetPeer};
use std::net::{Ipv4Addr, SocketAddr, UdpSocket};
use std::time::{Duration, Instant};

/// The port a host from the menu listens on, if it is free (else any free port).
pub const HOST_PORT: u16 = 7000;
/// How long one handshake slice may take out of a frame.
const SLICE: Duration = Duration::from_millis(3);
/// How often a joiner repeats its `Hello` (the handshake's own interval).
const HELLO_EVERY: Duration = Duration::from_millis(150);

/// Which side this machine takes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Side {
    /// Hosting: waiting for a player.
    Host,
    /// Joining the host at this address as a player or a spectator.
    Join(SocketAddr, Role),
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
    Ready(Box<NetPeer>),
    /// The other side turned us away (different rules or build, the match is full), with its
    /// reason.
    Refused(String),
    /// Failed otherwise (no answer, no synchronization, a socket error), with the reason.
    Failed(String),
}

/// A connection being made, polled by the window loop.
pub struct Connection {
    link: SharedLink,
    config: NetConfig,
    info: PeerInfo,
    side: Side,
    session: u32,
    started: Instant,
    /// Give up after this long (`None`: a host waits until cancelled).
    timeout: Option<Duration>,
    next_hello: Instant,
    syncing: Option<(NetPeer, Instant)>,
    /// Where it stands.
    pub stage: Stage,
    /// What to tell the other player (a host's addresses).
    pub share: Vec<String>,
    /// A passing note (a joiner that arrived but vanished).
    pub note: Option<String>,
}

impl Connection {
    /// Starts hosting: binds [`HOST_PORT`] (or any free port when it is taken).
    ///
    /// # Errors
    /// If no UDP port can be bound at all.
    pub fn host(config: NetConfig) -> Result<Connection, Error> {
        let any = SocketAddr::from((Ipv4Addr::UNSPECIFIED, HOST_PORT));
        let link = open_link(any, config.conditioner).or_else(|_| {
            open_link(
                SocketAddr::from((Ipv4Addr::UNSPECIFIED, 0)),
                config.conditioner,
            )
        })?;
        let port = link.borrow().local_addr().port();
        Ok(Connection::new(
            link,
            config,
            Side::Host,
            None,
            share_addresses(port),
        ))
    }

    /// Starts contacting `host` as `role`; gives up after `timeout`.
    ///
    /// # Errors
    /// If no UDP port can be bound.
    pub fn join(
        host: SocketAddr,
        role: Role,
        config: NetConfig,
        timeout: Duration,
    ) -> Result<Connection, Error> {
        let link = open_link(default_bind_for(host), config.conditioner)?;
        Ok(Connection::new(
            link,
            config,
            Side::Join(host, role),
            Some(timeout),
            Vec::new(),
        ))
    }

    fn new(
        link: SharedLink,
        config: NetConfig,
        side: Side,
        timeout: Option<Duration>,
        share: Vec<String>,
    ) -> Connection {
        let now = Instant::now();
        Connection {
            info: PeerInfo::local(config.rules.hash()),
            link,
            config,
            side,
            session: handshake::fresh_session_id(),
            started: now,
            timeout,
            next_hello: now,
            syncing: None,
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

    /// The local address bound.
    #[must_use]
    pub fn local_addr(&self) -> SocketAddr {
        self.link.borrow().local_addr()
    }

    /// The give-up time, if any.
    #[must_use]
    pub fn timeout(&self) -> Option<Duration> {
        self.timeout
    }

    /// Does a few milliseconds of work. Call once per frame.
    pub fn poll(&mut self) -> Poll {
        if let Some((peer, since)) = self.syncing.take() {
            return self.poll_sync(peer, since);
        }
        if let (Side::Join(host, _), Some(limit)) = (self.side, self.timeout) {
            if self.started.elapsed() > limit {
                return Poll::Failed(format!(
                    "no answer from {host} within {} s (is the host running and reachable?)",
                    limit.as_secs()
                ));
            }
        }
        let agreed = match self.side {
            Side::Host => handshake::host(
                &self.link,
                &self.info,
                self.config.seed,
                0,
                self.session,
                SLICE,
            ),
            Side::Join(host, role) => {
                // Each slice starts with a Hello: slice only as often as Hellos are due.
                if Instant::now() < self.next_hello {
                    return Poll::Pending;
                }
                self.next_hello = Instant::now() + HELLO_EVERY;
                handshake::join(&self.link, &self.info, host, role, SLICE)
            }
        };
        match agreed {
            Ok(agreement) => self.start(agreement),
            Err(Error::HandshakeTimeout { .. }) => Poll::Pending,
            Err(Error::Refused { reason }) => Poll::Refused(reason),
            Err(e) => Poll::Failed(e.to_string()),
        }
    }

    fn start(&mut self, agreement: Agreement) -> Poll {
        match NetPeer::start_agreed(self.link.clone(), agreement, &self.config) {
            Ok(peer) => {
                self.stage = Stage::Synchronizing { done: 0, total: 0 };
                self.syncing = Some((peer, Instant::now()));
                Poll::Pending
            }
            Err(e) => Poll::Failed(e.to_string()),
        }
    }

    fn poll_sync(&mut self, mut peer: NetPeer, since: Instant) -> Poll {
        let synced = peer.wait_synchronized(Duration::ZERO).is_ok();
        for event in peer.take_events() {
            if let NetEvent::Synchronizing { count, total, .. } = event {
                self.stage = Stage::Synchronizing { done: count, total };
            }
        }
        if synced {
            if self.side == Side::Host {
                self.link.borrow_mut().refuse_hellos(self.info.clone());
            }
            return Poll::Ready(Box::new(peer));
        }
        // A host gives a welcomed joiner the sync time. A joiner also allows what is left of
        // its own time limit, as `NetPeer::join_on` does: the host starts GGRS only once
        // everyone has arrived (it may still be waiting for spectators).
        let deadline = match self.side {
            Side::Host => since + self.config.sync_timeout,
            Side::Join(..) => {
                self.started + self.timeout.unwrap_or_default() + self.config.sync_timeout
            }
        };
        if Instant::now() < deadline {
            self.syncing = Some((peer, since));
            return Poll::Pending;
        }
        drop(peer);
        match self.side {
            Side::Host => {
                // The joiner never synchronized (it vanished, or a stranger took the slot):
                // forget it and wait for another.
                self.link.borrow_mut().forget_peers();
                self.stage = Stage::Handshake;
                self.session = handshake::fresh_session_id();
                self.note = Some("a player arrived but did not synchronize; waiting again".into());
                Poll::Pending
            }
            Side::Join(host, _) => Poll::Failed(format!(
                "{host} welcomed us but the match did not start within {} s",
                (deadline - since).as_secs()
            )),
        }
    }
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
        .filter(|ip| !ip.is_unspecified() && !ip.is_loopback());
    if let Some(ip) = lan {
        out.push(format!("{ip}:{port}"));
    }
    out.push(format!("127.0.0.1:{port} (this computer)"));
    out
}
