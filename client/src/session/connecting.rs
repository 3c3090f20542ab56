//! Setting up a networked peer without blocking: the handshake, then GGRS's synchronization,
//! one short poll at a time, so a window keeps drawing a waiting screen and can give up at any
//! moment. [`NetPeer::host_on`] and [`NetPeer::join_on`] are this, polled to the end.
//!
//! The stages, and what a host does at each:
//! 1. **Handshake** ([`HostHandshake`] / [`JoinHandshake`]): `Hello`s answered with a
//!    `Welcome` or a `Reject` naming why.
//! 2. **Synchronizing**: GGRS's round trips with every welcomed peer. Every slot is taken, so
//!    a stranger's `Hello` that could never be accepted (other rules, a spectator at a host
//!    that takes none) is refused at once; others get no answer and keep asking, because a
//!    welcomed peer that does not synchronize within `sync_timeout` (it vanished, or a
//!    stranger's `Hello` took the slot) is forgotten and the host waits again, under a fresh
//!    session id, within its handshake time.
//! 3. **Running**: every `Hello` is refused, saying the match is under way.

use crate::error::Error;
use crate::net::handshake::{HostHandshake, JoinHandshake};
use crate::net::socket::{Refusing, SharedLink};
use crate::net::transport::PortProbe;
use crate::net::wire::{PeerInfo, Role};
use crate::session::netplay::{NetConfig, NetPeer};
use game_api::Game;
use std::net::SocketAddr;
use std::time::{Duration, Instant};

/// Where a connection stands, for a waiting screen.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ConnectStage {
    /// A host waiting for a joining player (`true`) or for its spectators (`false`).
    Waiting {
        /// Whether the player is what is missing.
        for_player: bool,
    },
    /// A joiner or spectator saying `Hello` until the host answers.
    Asking,
    /// Agreed; GGRS is synchronizing: `done` of `total` round trips with the slowest peer.
    Synchronizing {
        /// Round trips done.
        done: u32,
        /// Round trips needed.
        total: u32,
    },
}

enum Stage<G: Game> {
    Host(Box<HostHandshake>),
    Join(Box<JoinHandshake>),
    Synchronizing {
        peer: Box<NetPeer<G>>,
        deadline: Instant,
        allowed: Duration,
        synced: Vec<SocketAddr>,
        progress: (u32, u32),
    },
    /// Handed over (or failed): polling again is an error.
    Over,
    /// Could not start (the reason); the first poll says so.
    Failed(String),
}

/// A networked peer being set up; see the module documentation.
pub struct Connecting<G: Game> {
    link: SharedLink,
    config: NetConfig<G>,
    info: PeerInfo,
    role: Option<Role>,
    /// When the handshake gives up (`None`: a host waits until the caller stops polling).
    handshake_deadline: Option<Instant>,
    stage: Stage<G>,
    /// A joiner over plain UDP: whether the OS says nothing listens at the host.
    probe: Option<PortProbe>,
}

impl<G: Game> std::fmt::Debug for Connecting<G> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Connecting")
            .field("stage", &self.stage())
            .finish_non_exhaustive()
    }
}

impl<G: Game> Connecting<G> {
    /// Hosts on `link` as player 0: waits for a joiner and `config.spectators` spectators for
    /// up to `config.handshake_timeout`.
    #[must_use]
    pub fn host(link: SharedLink, config: &NetConfig<G>) -> Connecting<G> {
        let info = PeerInfo::local::<G>(&config.rules);
        let stage = match config.check() {
            Ok(()) => Stage::Host(Box::new(HostHandshake::new(
                &link,
                &info,
                config.seed,
                config.spectators,
                config.invite,
            ))),
            Err(problem) => Stage::Failed(problem),
        };
        Connecting {
            handshake_deadline: Instant::now().checked_add(config.handshake_timeout),
            link,
            config: config.clone(),
            info,
            role: None,
            stage,
            probe: None,
        }
    }

    /// Joins (as a player or a spectator) the host at `host` over `link`, giving the handshake
    /// up to `config.handshake_timeout`.
    #[must_use]
    pub fn join(link: SharedLink, host: SocketAddr, role: Role, config: &NetConfig<G>) -> Self {
        let info = PeerInfo::local::<G>(&config.rules);
        let stage = match config.check().and_then(|()| {
            JoinHandshake::new(&link, &info, host, role, config.invite).map_err(|e| e.to_string())
        }) {
            Ok(handshake) => Stage::Join(Box::new(handshake)),
            Err(problem) => Stage::Failed(problem),
        };
        let probe = if link.borrow().is_plain_udp() {
            PortProbe::new(host)
        } else {
            None
        };
        Connecting {
            handshake_deadline: Instant::now().checked_add(config.handshake_timeout),
            link,
            config: config.clone(),
            info,
            role: Some(role),
            stage,
            probe,
        }
    }

    /// A host that waits for its joiner until the caller stops polling (a window with a cancel
    /// key), instead of for `handshake_timeout`.
    #[must_use]
    pub fn waiting_indefinitely(mut self) -> Connecting<G> {
        if self.role.is_none() {
            self.handshake_deadline = None;
        }
        self
    }

    /// The link the connection runs on (its local address, its counters).
    #[must_use]
    pub fn link(&self) -> &SharedLink {
        &self.link
    }

    /// Where the connection stands.
    #[must_use]
    pub fn stage(&self) -> ConnectStage {
        match &self.stage {
            Stage::Host(h) => ConnectStage::Waiting {
                for_player: h.missing() == "a joining player",
            },
            Stage::Join(_) | Stage::Over | Stage::Failed(_) => ConnectStage::Asking,
            Stage::Synchronizing {
                progress: (done, total),
                ..
            } => ConnectStage::Synchronizing {
                done: *done,
                total: *total,
            },
        }
    }

    /// Does what is due without blocking: the peer once GGRS runs, `Ok(None)` meanwhile.
    ///
    /// # Errors
    /// [`Error::HandshakeTimeout`], [`Error::Refused`], [`Error::SyncTimeout`], GGRS setup
    /// errors; after an error or once the peer was handed over, polling again is
    /// [`Error::Refused`] saying so.
    pub fn poll(&mut self) -> Result<Option<NetPeer<G>>, Error> {
        let result = self.step();
        if result.is_err() {
            self.stage = Stage::Over;
        }
        result
    }

    fn step(&mut self) -> Result<Option<NetPeer<G>>, Error> {
        let now = Instant::now();
        let handshake_over = self.handshake_deadline.is_some_and(|d| passed(d, now));
        match &mut self.stage {
            Stage::Host(handshake) => {
                if handshake_over {
                    let missing = handshake.missing().to_string();
                    return Err(self.handshake_timeout(missing, None));
                }
                if let Some(agreement) = handshake.poll(&self.link) {
                    let peer = NetPeer::start_agreed(self.link.clone(), agreement, &self.config)?;
                    // Every slot is taken: refuse what could never be accepted, at once.
                    self.link.borrow_mut().refuse_hellos(
                        self.info.clone(),
                        Refusing::WhileSynchronizing {
                            takes_spectators: self.config.spectators > 0,
                        },
                    );
                    self.synchronize(peer, self.config.sync_timeout);
                }
                Ok(None)
            }
            Stage::Join(handshake) => {
                if handshake_over {
                    let host = handshake.host();
                    return Err(self.handshake_timeout(host.to_string(), Some(host)));
                }
                if self.probe.as_mut().is_some_and(PortProbe::refused) {
                    return Err(Error::PortClosed {
                        host: handshake.host(),
                    });
                }
                if let Some(agreement) = handshake.poll(&self.link)? {
                    let peer = NetPeer::start_agreed(self.link.clone(), agreement, &self.config)?;
                    // The host starts GGRS only once everyone has arrived (it may still be
                    // waiting for spectators), so a welcomed peer allows it what is left of the
                    // handshake time too.
                    let left = self
                        .handshake_deadline
                        .map_or(Duration::ZERO, |d| d.saturating_duration_since(now));
                    self.synchronize(peer, left + self.config.sync_timeout);
                }
                Ok(None)
            }
            Stage::Synchronizing { .. } => self.step_synchronizing(now, handshake_over),
            Stage::Over => Err(Error::Refused {
                reason: "this connection is over (already handed over or failed)".into(),
            }),
            Stage::Failed(reason) => Err(Error::Refused {
                reason: reason.clone(),
            }),
        }
    }

    /// GGRS synchronizing: the peer once it is in sync (and, for a host, every player sent
    /// input); a joiner turned away asks again; past the deadline a host within its
    /// handshake time waits again, anyone else fails.
    fn step_synchronizing(
        &mut self,
        now: Instant,
        handshake_over: bool,
    ) -> Result<Option<NetPeer<G>>, Error> {
        let Stage::Synchronizing {
            peer,
            deadline,
            allowed,
            synced,
            progress,
        } = &mut self.stage
        else {
            unreachable!("called while synchronizing")
        };
        // A host hands over only once every player also sent input: one that synchronizes
        // and then sends nothing does not keep the slot.
        if peer.poll_synchronizing(synced, progress)
            && (self.role.is_some() || peer.heard_every_player())
        {
            let Stage::Synchronizing { peer, .. } = std::mem::replace(&mut self.stage, Stage::Over)
            else {
                unreachable!("matched above")
            };
            if self.role.is_none() {
                self.link
                    .borrow_mut()
                    .refuse_hellos(self.info.clone(), Refusing::UnderWay);
            }
            return Ok(Some(*peer));
        }
        // A joiner whose slot went to a peer that proved itself first asks again: it gets the
        // slot should that peer never start.
        if self.role.is_some() && peer.turned_away().is_some() {
            let host = peer.agreement().remote_players[0].1;
            self.ask_again(host);
            return Ok(None);
        }
        if !passed(*deadline, now) {
            return Ok(None);
        }
        match self.role {
            // A host still within its handshake time: whoever took the slots never
            // synchronized, so it forgets them and waits again, and a stranger's `Hello` (or
            // a joiner that vanished) cannot hold the match hostage.
            None if !handshake_over => {
                self.wait_again();
                Ok(None)
            }
            _ => Err(Error::SyncTimeout {
                peers: peer.unsynchronized(synced),
                millis: allowed.as_millis() as u64,
            }),
        }
    }

    /// A joiner starts its handshake with `host` over.
    fn ask_again(&mut self, host: std::net::SocketAddr) {
        self.stage = Stage::Over; // drops the session before its link is reset
        self.link.borrow_mut().forget_peers();
        self.stage = match JoinHandshake::new(
            &self.link,
            &self.info,
            host,
            self.role.unwrap_or(Role::Player),
            self.config.invite,
        ) {
            Ok(handshake) => Stage::Join(Box::new(handshake)),
            Err(e) => Stage::Failed(e.to_string()),
        };
    }

    /// A host forgets whoever took the slots and waits for players again.
    fn wait_again(&mut self) {
        self.stage = Stage::Over; // drops the session before its link is reset
        self.link.borrow_mut().forget_peers();
        self.stage = Stage::Host(Box::new(HostHandshake::new(
            &self.link,
            &self.info,
            self.config.seed,
            self.config.spectators,
            self.config.invite,
        )));
    }

    fn synchronize(&mut self, peer: NetPeer<G>, allowed: Duration) {
        self.stage = Stage::Synchronizing {
            peer: Box::new(peer),
            deadline: Instant::now() + allowed,
            allowed,
            synced: Vec::new(),
            progress: (0, 0),
        };
    }

    /// `host`: the host a joiner waited for; `None` for a host.
    fn handshake_timeout(&self, peer: String, host: Option<std::net::SocketAddr>) -> Error {
        Error::HandshakeTimeout {
            peer,
            seconds: crate::net::handshake::whole_seconds(self.config.handshake_timeout),
            hint: crate::net::handshake::unanswered_hint(&self.link, host),
        }
    }
}

/// Whether `deadline` has come at `now`.
fn passed(deadline: Instant, now: Instant) -> bool {
    now >= deadline
}

#[cfg(test)]
mod tests;
