//! The handshake before tick 0, over the same socket the match will use.
//!
//! A joiner (or spectator) says `Hello` with its protocol version, engine version, state format
//! and rules hash, repeating it until the host answers. The host compares them with its own:
//! on any difference it answers `Reject` naming what differs (and waits on); otherwise it answers
//! `Welcome` with the match seed, the number of players, the joiner's slot and a session id.
//! The joiner checks the host's side too. Both sides therefore agree on everything that makes
//! two simulations identical before the first input is exchanged.
//!
//! A host refuses a peer and keeps waiting: one stranger's datagram must not end it. Every
//! repeated `Hello` from a refused peer is answered again, so a lost `Reject` costs one `Hello`
//! interval, not the joiner's whole timeout.

use crate::error::Error;
use crate::socket::SharedLink;
use crate::wire::{self, Control, Kind, PeerInfo, Role};
use std::net::SocketAddr;
use std::time::{Duration, Instant};

/// How often a `Hello` is repeated until the host answers.
const HELLO_INTERVAL: Duration = Duration::from_millis(150);
/// Pause between socket polls while waiting.
const POLL: Duration = Duration::from_millis(2);

/// The match as agreed at the handshake.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Agreement {
    /// Match seed.
    pub match_seed: u64,
    /// Number of players.
    pub players: u8,
    /// The local slot (`None` for a spectator).
    pub local_slot: Option<u8>,
    /// Remote players: `(slot, address)`.
    pub remote_players: Vec<(u8, SocketAddr)>,
    /// Spectators the host will relay to (host only).
    pub spectators: Vec<SocketAddr>,
    /// The session id.
    pub session: u32,
}

/// The host's side of the handshake, one poll at a time: waits for one joining player and
/// `spectators` spectators, as the host of slot 0. [`host`] drives it to the end; a window
/// polls it once per frame so it keeps drawing (and can give up whenever it likes).
///
/// A peer whose build or rules differ is answered with a `Reject` naming the difference (again
/// at each of its `Hello`s) and the host keeps waiting, as it does for a peer when the match is
/// full.
#[derive(Debug)]
pub struct HostHandshake {
    info: PeerInfo,
    match_seed: u64,
    spectators: usize,
    session: u32,
    joiner: Option<SocketAddr>,
    watchers: Vec<SocketAddr>,
}

impl HostHandshake {
    /// Starts waiting on `link` with session id `session`.
    #[must_use]
    pub fn new(
        link: &SharedLink,
        info: &PeerInfo,
        match_seed: u64,
        spectators: usize,
        session: u32,
    ) -> HostHandshake {
        // Set at once, so the joiner's first GGRS datagrams (sent as soon as it is welcomed)
        // are not dropped as coming from another session while spectators are still awaited.
        link.borrow_mut().set_session(session);
        HostHandshake {
            info: info.clone(),
            match_seed,
            spectators,
            session,
            joiner: None,
            watchers: Vec::new(),
        }
    }

    /// Who is still awaited, in words (for a timeout or a waiting screen).
    #[must_use]
    pub fn missing(&self) -> &'static str {
        if self.joiner.is_none() {
            "a joining player"
        } else {
            "the spectators"
        }
    }

    /// Answers every `Hello` waiting on the link; the agreement once everyone has arrived.
    pub fn poll(&mut self, link: &SharedLink) -> Option<Agreement> {
        link.borrow_mut().pump(true);
        let inbox = link.borrow_mut().take_control();
        for (from, msg) in inbox {
            let Control::Hello { info: theirs, role } = msg else {
                continue;
            };
            if self.joiner == Some(from) || self.watchers.contains(&from) {
                continue; // a repeat; the Welcome was re-sent by the link
            }
            if let Some(diff) = self.info.differences(&theirs) {
                let reason = format!("peer {from} differs from host (host's value first): {diff}");
                link.borrow_mut()
                    .send_control(&Control::Reject { reason }, from);
                continue;
            }
            let slot = match role {
                Role::Player if self.joiner.is_none() => Some(1),
                Role::Spectator if self.watchers.len() < self.spectators => None,
                Role::Player => {
                    let reason = "the match is full: both player slots are taken".to_string();
                    link.borrow_mut()
                        .send_control(&Control::Reject { reason }, from);
                    continue;
                }
                Role::Spectator => {
                    let reason = match self.spectators {
                        0 => "spectator slots full: this host takes no spectators".to_string(),
                        1 => "spectator slots full: its one spectator slot is taken".to_string(),
                        n => format!("spectator slots full: all {n} are taken"),
                    };
                    link.borrow_mut()
                        .send_control(&Control::Reject { reason }, from);
                    continue;
                }
            };
            let welcome = Control::Welcome {
                info: self.info.clone(),
                match_seed: self.match_seed,
                players: 2,
                slot,
                session: self.session,
            };
            let bytes = wire::encode(Kind::Control, 0, &welcome);
            let mut l = link.borrow_mut();
            l.add_peer(from);
            l.send_control(&welcome, from);
            l.answer_hellos_with(from, bytes);
            match slot {
                Some(_) => self.joiner = Some(from),
                None => self.watchers.push(from),
            }
        }
        let joiner = self.joiner?;
        (self.watchers.len() >= self.spectators).then(|| Agreement {
            match_seed: self.match_seed,
            players: 2,
            local_slot: Some(0),
            remote_players: vec![(1, joiner)],
            spectators: self.watchers.clone(),
            session: self.session,
        })
    }
}

/// Waits for one joining player and `spectators` spectators, as the host of slot 0 (a
/// [`HostHandshake`] polled until it agrees).
///
/// # Errors
/// [`Error::HandshakeTimeout`] if not everyone arrives within `timeout`.
pub fn host(
    link: &SharedLink,
    info: &PeerInfo,
    match_seed: u64,
    spectators: usize,
    session: u32,
    timeout: Duration,
) -> Result<Agreement, Error> {
    let deadline = Instant::now() + timeout;
    let mut handshake = HostHandshake::new(link, info, match_seed, spectators, session);
    loop {
        if Instant::now() > deadline {
            return Err(Error::HandshakeTimeout {
                peer: handshake.missing().into(),
                seconds: whole_seconds(timeout),
            });
        }
        if let Some(agreement) = handshake.poll(link) {
            return Ok(agreement);
        }
        std::thread::sleep(POLL);
    }
}

/// The joining side of the handshake (a player or a spectator), one poll at a time: says
/// `Hello` every 150 ms until the host welcomes or refuses it.
#[derive(Debug)]
pub struct JoinHandshake {
    info: PeerInfo,
    host_addr: SocketAddr,
    role: Role,
    next_hello: Instant,
}

impl JoinHandshake {
    /// Starts asking the host at `host_addr`.
    #[must_use]
    pub fn new(link: &SharedLink, info: &PeerInfo, host_addr: SocketAddr, role: Role) -> Self {
        link.borrow_mut().add_peer(host_addr);
        JoinHandshake {
            info: info.clone(),
            host_addr,
            role,
            next_hello: Instant::now(),
        }
    }

    /// The host being asked.
    #[must_use]
    pub fn host(&self) -> SocketAddr {
        self.host_addr
    }

    /// Says `Hello` when it is time and reads the answers: the agreement once welcomed.
    ///
    /// # Errors
    /// [`Error::Refused`] with the host's reason (or ours, if the host's build differs or its
    /// welcome is impossible).
    pub fn poll(&mut self, link: &SharedLink) -> Result<Option<Agreement>, Error> {
        let host_addr = self.host_addr;
        let now = Instant::now();
        if now >= self.next_hello {
            let hello = Control::Hello {
                info: self.info.clone(),
                role: self.role,
            };
            link.borrow_mut().send_control(&hello, host_addr);
            self.next_hello = now + HELLO_INTERVAL;
        }
        link.borrow_mut().pump(false);
        let inbox = link.borrow_mut().take_control();
        for (_, msg) in inbox {
            match msg {
                Control::Reject { reason } => {
                    return Err(Error::Refused {
                        reason: wire::printable(&reason, 300),
                    })
                }
                Control::Welcome {
                    info: theirs,
                    match_seed,
                    players,
                    slot,
                    session,
                } => {
                    if let Some(diff) = self.info.differences(&theirs) {
                        return Err(Error::Refused {
                            reason: format!("host {host_addr} differs (our value first): {diff}"),
                        });
                    }
                    // Only what this build can play: two players, the slot we asked for, a
                    // session id (0 means "none yet"). Anything else would reach GGRS's builder.
                    let expected_slot = match self.role {
                        Role::Player => Some(1),
                        Role::Spectator => None,
                    };
                    if players != 2 || slot != expected_slot || session == 0 {
                        return Err(Error::Refused {
                            reason: format!(
                                "host {host_addr} sent an invalid welcome ({players} players, slot {slot:?}, session {session})"
                            ),
                        });
                    }
                    link.borrow_mut().set_session(session);
                    return Ok(Some(Agreement {
                        match_seed,
                        players,
                        local_slot: slot,
                        remote_players: vec![(0, host_addr)],
                        spectators: Vec::new(),
                        session,
                    }));
                }
                Control::Hello { .. } | Control::Finish { .. } => {}
            }
        }
        Ok(None)
    }
}

/// Joins the host at `host_addr` as a player or spectator (a [`JoinHandshake`] polled until
/// it is welcomed or refused).
///
/// # Errors
/// [`Error::Refused`] with the host's reason (or ours, if the host's build differs);
/// [`Error::HandshakeTimeout`] if the host does not answer within `timeout`.
pub fn join(
    link: &SharedLink,
    info: &PeerInfo,
    host_addr: SocketAddr,
    role: Role,
    timeout: Duration,
) -> Result<Agreement, Error> {
    let deadline = Instant::now() + timeout;
    let mut handshake = JoinHandshake::new(link, info, host_addr, role);
    loop {
        if Instant::now() > deadline {
            return Err(Error::HandshakeTimeout {
                peer: host_addr.to_string(),
                seconds: whole_seconds(timeout),
            });
        }
        if let Some(agreement) = handshake.poll(link)? {
            return Ok(agreement);
        }
        std::thread::sleep(POLL);
    }
}

/// A session id that is very unlikely to repeat between matches on the same ports.
#[must_use]
pub fn fresh_session_id() -> u32 {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos() as u64);
    let id = engine::splitmix64(nanos ^ u64::from(std::process::id()).rotate_left(32)) as u32;
    id.max(1)
}

/// `timeout` in whole seconds, rounded up: a host that waited 2.999 s of a 3 s handshake (the
/// rest went to an earlier attempt) says 3, as it was told.
pub(crate) fn whole_seconds(timeout: Duration) -> u64 {
    timeout.as_secs() + u64::from(timeout.subsec_nanos() > 0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_timeout_is_reported_in_whole_seconds_rounded_up() {
        assert_eq!(whole_seconds(Duration::from_millis(2999)), 3);
        assert_eq!(whole_seconds(Duration::from_secs(3)), 3);
        assert_eq!(whole_seconds(Duration::from_millis(1)), 1);
        assert_eq!(whole_seconds(Duration::ZERO), 0);
    }
}
