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

/// Waits for one joining player and `spectators` spectators, as the host of slot 0.
///
/// A peer whose build or rules differ is answered with a `Reject` naming the difference (again
/// at each of its `Hello`s) and the host keeps waiting, as it does for a peer when the match is
/// full.
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
    // Set at once, so the joiner's first GGRS datagrams (sent as soon as it is welcomed) are
    // not dropped as coming from another session while spectators are still awaited.
    link.borrow_mut().set_session(session);
    let mut joiner: Option<SocketAddr> = None;
    let mut watchers: Vec<SocketAddr> = Vec::new();
    while joiner.is_none() || watchers.len() < spectators {
        if Instant::now() > deadline {
            let missing = if joiner.is_none() {
                "a joining player"
            } else {
                "the spectators"
            };
            return Err(Error::HandshakeTimeout {
                peer: missing.into(),
                seconds: whole_seconds(timeout),
            });
        }
        link.borrow_mut().pump(true);
        let inbox = link.borrow_mut().take_control();
        for (from, msg) in inbox {
            let Control::Hello { info: theirs, role } = msg else {
                continue;
            };
            if joiner == Some(from) || watchers.contains(&from) {
                continue; // a repeat; the Welcome was re-sent by the link
            }
            if let Some(diff) = info.differences(&theirs) {
                let reason = format!("peer {from} differs from host (host's value first): {diff}");
                link.borrow_mut()
                    .send_control(&Control::Reject { reason }, from);
                continue;
            }
            let slot = match role {
                Role::Player if joiner.is_none() => Some(1),
                Role::Spectator if watchers.len() < spectators => None,
                Role::Player => {
                    let reason = "the match is full: both player slots are taken".to_string();
                    link.borrow_mut()
                        .send_control(&Control::Reject { reason }, from);
                    continue;
                }
                Role::Spectator => {
                    let reason = match spectators {
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
                info: info.clone(),
                match_seed,
                players: 2,
                slot,
                session,
            };
            let bytes = wire::encode(Kind::Control, 0, &welcome);
            let mut l = link.borrow_mut();
            l.add_peer(from);
            l.send_control(&welcome, from);
            l.answer_hellos_with(from, bytes);
            match slot {
                Some(_) => joiner = Some(from),
                None => watchers.push(from),
            }
        }
        std::thread::sleep(POLL);
    }
    let joiner = joiner.expect("loop ends with a joiner");
    Ok(Agreement {
        match_seed,
        players: 2,
        local_slot: Some(0),
        remote_players: vec![(1, joiner)],
        spectators: watchers,
        session,
    })
}

/// Joins the host at `host_addr` as a player or spectator.
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
    link.borrow_mut().add_peer(host_addr);
    let hello = Control::Hello {
        info: info.clone(),
        role,
    };
    let mut next_hello = Instant::now();
    loop {
        let now = Instant::now();
        if now > deadline {
            return Err(Error::HandshakeTimeout {
                peer: host_addr.to_string(),
                seconds: whole_seconds(timeout),
            });
        }
        if now >= next_hello {
            link.borrow_mut().send_control(&hello, host_addr);
            next_hello = now + HELLO_INTERVAL;
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
                    if let Some(diff) = info.differences(&theirs) {
                        return Err(Error::Refused {
                            reason: format!("host {host_addr} differs (our value first): {diff}"),
                        });
                    }
                    // Only what this build can play: two players, the slot we asked for, a
                    // session id (0 means "none yet"). Anything else would reach GGRS's builder.
                    let expected_slot = match role {
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
                    return Ok(Agreement {
                        match_seed,
                        players,
                        local_slot: slot,
                        remote_players: vec![(0, host_addr)],
                        spectators: Vec::new(),
                        session,
                    });
                }
                Control::Hello { .. } | Control::Finish { .. } => {}
            }
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
fn whole_seconds(timeout: Duration) -> u64 {
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
