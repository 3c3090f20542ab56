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
    use crate::socket::Link;
    use crate::transport::memory::MemoryNet;
    use engine::Rules;

    const SEED: u64 = 4242;
    const SESSION: u32 = 77;

    fn info(block_hp: u8) -> PeerInfo {
        PeerInfo::local(&Rules {
            block_hp,
            ..Rules::default()
        })
    }

    /// A host (port 1) taking `spectators`, on an in-memory network.
    fn host(net: &MemoryNet, spectators: usize) -> (SharedLink, HostHandshake) {
        let link = Link::new(net.endpoint(1));
        let hs = HostHandshake::new(&link, &info(3), SEED, spectators, SESSION);
        (link, hs)
    }

    /// A peer at `port` asking the host as `role`.
    fn asker(
        net: &MemoryNet,
        port: u16,
        role: Role,
        peer: &PeerInfo,
    ) -> (SharedLink, JoinHandshake) {
        let link = Link::new(net.endpoint(port));
        let host = SocketAddr::from(([127, 0, 0, 1], 1));
        let hs = JoinHandshake::new(&link, peer, host, role);
        (link, hs)
    }

    /// Polls the host and one asker in turn until the asker has an answer.
    fn meet(
        host: &mut (SharedLink, HostHandshake),
        asker: &mut (SharedLink, JoinHandshake),
    ) -> (Option<Agreement>, Result<Agreement, Error>) {
        for _ in 0..10 {
            let answer = asker.1.poll(&asker.0);
            let agreed = host.1.poll(&host.0);
            match answer {
                Ok(None) => {}
                Ok(Some(a)) => return (agreed, Ok(a)),
                Err(e) => return (agreed, Err(e)),
            }
        }
        panic!("no answer in 10 rounds on a lossless network")
    }

    fn refusal(result: Result<Agreement, Error>) -> String {
        match result {
            Err(Error::Refused { reason }) => reason,
            other => panic!("expected a refusal, got {other:?}"),
        }
    }

    #[test]
    fn a_host_and_a_joiner_agree_on_the_hosts_seed_slots_and_session() {
        let net = MemoryNet::default();
        let mut h = host(&net, 0);
        assert_eq!(h.1.missing(), "a joining player");
        let mut j = asker(&net, 2, Role::Player, &info(3));
        assert_eq!(j.1.host(), SocketAddr::from(([127, 0, 0, 1], 1)));
        let (hosted, joined) = meet(&mut h, &mut j);
        let hosted = match hosted {
            Some(a) => a,
            None => {
                h.1.poll(&h.0)
                    .expect("the host agrees once its joiner is welcomed")
            }
        };
        let joined = joined.expect("welcomed");
        let joiner = SocketAddr::from(([127, 0, 0, 1], 2));
        assert_eq!(
            hosted,
            Agreement {
                match_seed: SEED,
                players: 2,
                local_slot: Some(0),
                remote_players: vec![(1, joiner)],
                spectators: Vec::new(),
                session: SESSION,
            }
        );
        assert_eq!(
            (
                joined.match_seed,
                joined.players,
                joined.local_slot,
                joined.session
            ),
            (SEED, 2, Some(1), SESSION)
        );
        assert_eq!(joined.remote_players, vec![(0, j.1.host())]);
    }

    #[test]
    fn a_host_waits_for_its_spectators_and_refuses_those_beyond_its_slots() {
        let net = MemoryNet::default();
        let mut h = host(&net, 1);
        let mut j = asker(&net, 2, Role::Player, &info(3));
        let (hosted, joined) = meet(&mut h, &mut j);
        assert!(joined.is_ok());
        assert_eq!(hosted, None, "still waiting for its spectator");
        assert_eq!(h.1.missing(), "the spectators");
        let mut s = asker(&net, 3, Role::Spectator, &info(3));
        let (hosted, watched) = meet(&mut h, &mut s);
        let watched = watched.expect("welcomed");
        assert_eq!((watched.local_slot, watched.session), (None, SESSION));
        let hosted = hosted.or_else(|| h.1.poll(&h.0)).expect("everyone is here");
        assert_eq!(
            hosted.spectators,
            vec![SocketAddr::from(([127, 0, 0, 1], 3))]
        );
        let mut late = asker(&net, 4, Role::Spectator, &info(3));
        assert_eq!(
            refusal(meet(&mut h, &mut late).1),
            "spectator slots full: its one spectator slot is taken"
        );
        let mut third = asker(&net, 5, Role::Player, &info(3));
        assert_eq!(
            refusal(meet(&mut h, &mut third).1),
            "the match is full: both player slots are taken"
        );
    }

    /// A welcomed peer whose `Welcome` was lost says `Hello` again: it hears the `Welcome`
    /// again, never "the match is full" about its own slot.
    #[test]
    fn a_repeated_hello_from_a_welcomed_peer_gets_the_welcome_again() {
        let net = MemoryNet::default();
        let mut h = host(&net, 1);
        let mut j = asker(&net, 2, Role::Player, &info(3));
        let mut s = asker(&net, 3, Role::Spectator, &info(3));
        assert!(meet(&mut h, &mut j).1.is_ok());
        assert!(meet(&mut h, &mut s).1.is_ok());
        let host_addr = j.1.host();
        for (link, role) in [(&j.0, Role::Player), (&s.0, Role::Spectator)] {
            let hello = Control::Hello {
                info: info(3),
                role,
            };
            link.borrow_mut().send_control(&hello, host_addr);
            let _ = h.1.poll(&h.0);
            link.borrow_mut().pump(false);
            let answers: Vec<Control> = (link.borrow_mut().take_control().into_iter())
                .map(|(_, c)| c)
                .collect();
            assert!(
                answers.iter().all(|c| matches!(c, Control::Welcome { .. })) && !answers.is_empty(),
                "{role:?}: {answers:?}"
            );
        }
    }

    #[test]
    fn spectator_refusals_say_how_many_slots_there_are() {
        for (slots, reason) in [
            (0, "spectator slots full: this host takes no spectators"),
            (2, "spectator slots full: all 2 are taken"),
        ] {
            let net = MemoryNet::default();
            let mut h = host(&net, slots);
            for port in 0..slots {
                let mut s = asker(&net, 10 + port as u16, Role::Spectator, &info(3));
                assert!(meet(&mut h, &mut s).1.is_ok());
            }
            let mut extra = asker(&net, 20, Role::Spectator, &info(3));
            assert_eq!(refusal(meet(&mut h, &mut extra).1), reason);
        }
    }

    #[test]
    fn a_joiner_with_other_rules_is_refused_and_the_host_waits_on_for_one_that_agrees() {
        let net = MemoryNet::default();
        let mut h = host(&net, 0);
        let mut other = asker(&net, 2, Role::Player, &info(4));
        let (hosted, refused) = meet(&mut h, &mut other);
        assert_eq!(hosted, None);
        assert_eq!(
            refusal(refused),
            "peer 127.0.0.1:2 differs from host (host's value first): rules differ: block_hp 3 vs 4"
        );
        let mut agreeing = asker(&net, 3, Role::Player, &info(3));
        let (_, joined) = meet(&mut h, &mut agreeing);
        assert_eq!(joined.expect("welcomed").local_slot, Some(1));
    }

    /// The joiner checks the host's side too, and only takes a welcome it can play: two
    /// players, the slot it asked for, a session id.
    #[test]
    fn a_joiner_refuses_a_host_that_differs_or_welcomes_it_impossibly() {
        let welcome =
            |info: PeerInfo, players: u8, slot: Option<u8>, session: u32| Control::Welcome {
                info,
                match_seed: 1,
                players,
                slot,
                session,
            };
        let cases = [
            (
                Role::Player,
                welcome(info(4), 2, Some(1), 5),
                "differs (our value first): rules differ: block_hp 3 vs 4",
            ),
            (
                Role::Player,
                welcome(info(3), 3, Some(1), 5),
                "invalid welcome (3 players",
            ),
            (
                Role::Player,
                welcome(info(3), 2, Some(0), 5),
                "invalid welcome (2 players, slot Some(0)",
            ),
            (
                Role::Player,
                welcome(info(3), 2, None, 5),
                "invalid welcome (2 players, slot None",
            ),
            (
                Role::Spectator,
                welcome(info(3), 2, Some(1), 5),
                "invalid welcome (2 players, slot Some(1)",
            ),
            (Role::Player, welcome(info(3), 2, Some(1), 0), "session 0)"),
        ];
        for (role, answer, expected) in cases {
            let net = MemoryNet::default();
            let fake_host = Link::new(net.endpoint(1));
            let mut j = asker(&net, 2, role, &info(3));
            assert!(j.1.poll(&j.0).expect("asking").is_none());
            fake_host
                .borrow_mut()
                .send_control(&answer, SocketAddr::from(([127, 0, 0, 1], 2)));
            let reason = refusal(j.1.poll(&j.0).map(|a| a.expect("an answer")));
            assert!(reason.contains(expected), "{reason}");
        }
        // A welcome it can play, as a spectator: taken, and its session kept.
        let net = MemoryNet::default();
        let fake_host = Link::new(net.endpoint(1));
        let mut s = asker(&net, 2, Role::Spectator, &info(3));
        fake_host.borrow_mut().send_control(
            &welcome(info(3), 2, None, 9),
            SocketAddr::from(([127, 0, 0, 1], 2)),
        );
        let agreed = s.1.poll(&s.0).expect("welcomed").expect("an answer");
        assert_eq!((agreed.local_slot, agreed.session), (None, 9));
    }

    /// A joiner says `Hello` at once and then only every interval, however often it is polled.
    #[test]
    fn hellos_are_repeated_at_the_interval_not_at_every_poll() {
        let net = MemoryNet::default();
        let host_addr = SocketAddr::from(([127, 0, 0, 1], 1));
        let mut j = asker(&net, 2, Role::Player, &info(3));
        for _ in 0..5 {
            assert!(j.1.poll(&j.0).expect("asking").is_none());
        }
        assert_eq!(net.waiting_for(host_addr), 1, "one Hello so far");
        std::thread::sleep(HELLO_INTERVAL);
        assert!(j.1.poll(&j.0).expect("asking").is_none());
        assert_eq!(
            net.waiting_for(host_addr),
            2,
            "the next, after the interval"
        );
    }

    /// The blocking forms agree as soon as the answer is there (here, already waiting when they
    /// start), well inside their time.
    #[test]
    fn the_blocking_forms_agree_when_the_answer_is_waiting() {
        let net = MemoryNet::default();
        let host_addr = SocketAddr::from(([127, 0, 0, 1], 1));
        let joiner_addr = SocketAddr::from(([127, 0, 0, 1], 2));
        let fake_host = Link::new(net.endpoint(1));
        let welcome = Control::Welcome {
            info: info(3),
            match_seed: SEED,
            players: 2,
            slot: Some(1),
            session: SESSION,
        };
        fake_host.borrow_mut().send_control(&welcome, joiner_addr);
        let link = Link::new(net.endpoint(2));
        let joined = join(
            &link,
            &info(3),
            host_addr,
            Role::Player,
            Duration::from_secs(10),
        )
        .expect("welcomed at once");
        assert_eq!(joined.session, SESSION);

        let net = MemoryNet::default();
        let joiner = Link::new(net.endpoint(2));
        let hello = Control::Hello {
            info: info(3),
            role: Role::Player,
        };
        joiner.borrow_mut().send_control(&hello, host_addr);
        let link = Link::new(net.endpoint(1));
        let hosted = super::host(&link, &info(3), SEED, 0, SESSION, Duration::from_secs(10))
            .expect("agreed at once");
        assert_eq!(hosted.remote_players, vec![(1, joiner_addr)]);
    }

    /// Session ids are never 0 (which a joiner refuses as "none yet") and differ from one match
    /// to the next.
    #[test]
    fn fresh_session_ids_are_nonzero_and_differ() {
        let a = fresh_session_id();
        std::thread::sleep(Duration::from_millis(2));
        let b = fresh_session_id();
        assert!(a != 0 && b != 0 && a != b, "{a} {b}");
    }

    #[test]
    fn a_blocking_join_times_out_naming_the_host_and_whole_seconds() {
        let net = MemoryNet::default();
        let link = Link::new(net.endpoint(2));
        let host_addr = SocketAddr::from(([127, 0, 0, 1], 1));
        let err = join(
            &link,
            &info(3),
            host_addr,
            Role::Player,
            Duration::from_millis(30),
        )
        .expect_err("nobody answers");
        assert!(
            matches!(&err, Error::HandshakeTimeout { peer, seconds: 1 } if peer == "127.0.0.1:1"),
            "{err:?}"
        );
        // On a network of its own: the joiner's Hellos above are still waiting on this one.
        let link = Link::new(MemoryNet::default().endpoint(1));
        let err = super::host(&link, &info(3), SEED, 0, SESSION, Duration::from_millis(30))
            .expect_err("nobody comes");
        assert!(
            matches!(&err, Error::HandshakeTimeout { peer, .. } if peer == "a joining player"),
            "{err:?}"
        );
    }

    #[test]
    fn a_timeout_is_reported_in_whole_seconds_rounded_up() {
        assert_eq!(whole_seconds(Duration::from_millis(2999)), 3);
        assert_eq!(whole_seconds(Duration::from_secs(3)), 3);
        assert_eq!(whole_seconds(Duration::from_millis(1)), 1);
        assert_eq!(whole_seconds(Duration::ZERO), 0);
    }
}
