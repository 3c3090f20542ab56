//! The handshake on an in-memory network, with and without an invite code, against forgers
//! that can send from any address (the in-memory network lets an endpoint take any port,
//! the host's included).

use super::*;
use crate::net::seal::Channel;
use crate::net::socket::Link;
use crate::net::transport::memory::{MemoryEndpoint, MemoryNet};
use crate::net::transport::{Transport, MAX_DATAGRAM};
use engine::Rules;
use engine::World;

const SEED: u64 = 4242;

fn addr(port: u16) -> SocketAddr {
    SocketAddr::from(([127, 0, 0, 1], port))
}

fn code(byte: u8) -> InviteCode {
    InviteCode::from_bytes([byte; InviteCode::BYTES])
}

fn info(block_hp: u8) -> PeerInfo {
    PeerInfo::local::<World>(&Rules {
        block_hp,
        ..Rules::default()
    })
}

/// A host (port 1) taking `spectators`, with `invite`.
fn host(
    net: &MemoryNet,
    spectators: usize,
    invite: Option<InviteCode>,
) -> (SharedLink, HostHandshake) {
    let link = Link::new(net.endpoint(1));
    let hs = HostHandshake::new(&link, &info(3), SEED, spectators, invite);
    (link, hs)
}

/// A peer at `port` asking the host as `role`.
fn asker(
    net: &MemoryNet,
    port: u16,
    role: Role,
    peer: &PeerInfo,
    invite: Option<InviteCode>,
) -> (SharedLink, JoinHandshake) {
    let link = Link::new(net.endpoint(port));
    let hs = JoinHandshake::new(&link, peer, addr(1), role, invite).expect("starts");
    (link, hs)
}

/// Polls the host and one asker in turn until the asker has an answer, then the host a few
/// times more (it gives the slot once the asker's sealed `Joined` arrives). A guard of 2 s of
/// wall time bounds a hang (a clear `Reject` is final only after its grace).
fn meet(
    host: &mut (SharedLink, HostHandshake),
    asker: &mut (SharedLink, JoinHandshake),
) -> (Option<Agreement>, Result<Agreement, Error>) {
    let guard = Instant::now() + Duration::from_secs(3);
    while Instant::now() < guard {
        let answer = asker.1.poll(&asker.0);
        let mut agreed = host.1.poll(&host.0);
        match answer {
            Ok(None) => {}
            Ok(Some(a)) => {
                for _ in 0..3 {
                    agreed = agreed.or_else(|| host.1.poll(&host.0));
                }
                return (agreed, Ok(a));
            }
            Err(e) => return (agreed, Err(e)),
        }
        std::thread::sleep(Duration::from_millis(5));
    }
    panic!("no answer within the guard on a lossless network")
}

fn refusal(result: Result<Agreement, Error>) -> String {
    match result {
        Err(Error::Refused { reason }) => reason,
        other => panic!("expected a refusal, got {other:?}"),
    }
}

/// Every datagram waiting for `at`, taken off the wire.
fn take_all(at: &mut MemoryEndpoint) -> Vec<Vec<u8>> {
    let mut buf = vec![0; MAX_DATAGRAM];
    let mut out = Vec::new();
    while let Some((n, _)) = at.recv(&mut buf) {
        out.push(buf[..n].to_vec());
    }
    out
}

fn clear_control(datagram: &[u8]) -> Option<Control> {
    let (Kind::Control, _, payload) = wire::open(datagram).ok()?;
    wire::decode(payload).ok()
}

#[test]
fn a_host_and_a_joiner_agree_on_the_hosts_seed_slots_and_channel_with_or_without_a_code() {
    for invite in [None, Some(code(5))] {
        let net = MemoryNet::default();
        let mut h = host(&net, 0, invite);
        assert_eq!(h.1.missing(), "a joining player");
        let mut j = asker(&net, 2, Role::Player, &info(3), invite);
        assert_eq!(j.1.host(), addr(1));
        let (hosted, joined) = meet(&mut h, &mut j);
        let hosted = hosted.expect("the host agrees once its joiner proved itself");
        let joined = joined.expect("welcomed");
        assert_eq!(
            hosted,
            Agreement {
                match_seed: SEED,
                players: 2,
                local_slot: Some(0),
                remote_players: vec![(1, addr(2))],
                spectators: Vec::new(),
                session: joined.session,
                secret: joined.secret.clone(),
                epoch: 1,
            }
        );
        assert!(joined.secret.is_some(), "a player gets the match's secret");
        assert_ne!(joined.session, 0);
        assert_eq!(
            (joined.match_seed, joined.players, joined.local_slot),
            (SEED, 2, Some(1))
        );
        assert_eq!(joined.remote_players, vec![(0, addr(1))]);
        assert!(h.0.borrow().proven(addr(2)));
        assert_eq!(h.0.borrow().channel_id(addr(2)), Some(joined.session));
    }
}

#[test]
fn a_host_waits_for_its_spectators_and_refuses_those_beyond_its_slots() {
    let net = MemoryNet::default();
    let mut h = host(&net, 1, None);
    let mut j = asker(&net, 2, Role::Player, &info(3), None);
    let (hosted, joined) = meet(&mut h, &mut j);
    assert!(joined.is_ok());
    assert_eq!(hosted, None, "still waiting for its spectator");
    assert_eq!(h.1.missing(), "the spectators");
    let mut s = asker(&net, 3, Role::Spectator, &info(3), None);
    let (hosted, watched) = meet(&mut h, &mut s);
    assert_eq!(watched.expect("welcomed").local_slot, None);
    assert_eq!(hosted.expect("everyone is here").spectators, vec![addr(3)]);
    let mut late = asker(&net, 4, Role::Spectator, &info(3), None);
    assert_eq!(
        refusal(meet(&mut h, &mut late).1),
        "spectator slots full: its one spectator slot is taken"
    );
    let mut third = asker(&net, 5, Role::Player, &info(3), None);
    assert_eq!(
        refusal(meet(&mut h, &mut third).1),
        "the match is full: both player slots are taken"
    );
}

/// A welcomed peer whose answer was lost says the same `Hello` again and hears the same
/// answer again, never "the match is full" about its own slot.
#[test]
fn a_repeated_hello_from_a_welcomed_peer_gets_the_same_answer_again() {
    let net = MemoryNet::default();
    let mut h = host(&net, 0, Some(code(1)));
    let mut j = asker(&net, 2, Role::Player, &info(3), Some(code(1)));
    // One poll each: the Hello, then the answer, which the joiner does not read.
    assert!(j.1.poll(&j.0).expect("asking").is_none());
    let _ = h.1.poll(&h.0);
    let mut joiner_end = net.endpoint(2);
    let first = take_all(&mut joiner_end);
    assert_eq!(first.len(), 1);
    let hello = j.1.hello.clone();
    j.0.borrow_mut().send_control(&hello, addr(1));
    let _ = h.1.poll(&h.0);
    assert_eq!(take_all(&mut joiner_end), first, "the same answer");
    assert_eq!(h.0.borrow().counters().hellos_refused, 0);
}

#[test]
fn spectator_refusals_say_how_many_slots_there_are() {
    for (slots, reason) in [
        (0, "spectator slots full: this host takes no spectators"),
        (2, "spectator slots full: all 2 are taken"),
    ] {
        let net = MemoryNet::default();
        let mut h = host(&net, slots, None);
        for port in 0..slots {
            let mut s = asker(&net, 10 + port as u16, Role::Spectator, &info(3), None);
            assert!(meet(&mut h, &mut s).1.is_ok());
        }
        let mut extra = asker(&net, 20, Role::Spectator, &info(3), None);
        assert_eq!(refusal(meet(&mut h, &mut extra).1), reason);
    }
}

#[test]
fn a_joiner_with_other_rules_is_refused_at_once_and_the_host_waits_on_for_one_that_agrees() {
    let net = MemoryNet::default();
    let mut h = host(&net, 0, Some(code(2)));
    let mut other = asker(&net, 2, Role::Player, &info(4), Some(code(2)));
    let started = Instant::now();
    let (hosted, refused) = meet(&mut h, &mut other);
    assert_eq!(hosted, None);
    assert_eq!(
        refusal(refused),
        "peer 127.0.0.1:2 differs from host (host's value first): rules differ: block_hp 3 vs 4"
    );
    assert!(
        started.elapsed() < CLEAR_REJECT_GRACE,
        "an authenticated refusal is final at once"
    );
    let mut agreeing = asker(&net, 3, Role::Player, &info(3), Some(code(2)));
    let (_, joined) = meet(&mut h, &mut agreeing);
    assert_eq!(joined.expect("welcomed").local_slot, Some(1));
}

#[test]
fn a_wrong_missing_or_unexpected_code_is_refused_in_words_and_the_host_waits_on() {
    let cases = [
        (
            Some(code(1)),
            Some(code(2)),
            "the invite code does not match the host's",
        ),
        (Some(code(1)), None, "this match needs its invite code"),
        (None, Some(code(2)), "this host takes no invite code"),
    ];
    for (host_code, joiner_code, expected) in cases {
        let net = MemoryNet::default();
        let mut h = host(&net, 0, host_code);
        let mut wrong = asker(&net, 2, Role::Player, &info(3), joiner_code);
        let (hosted, refused) = meet(&mut h, &mut wrong);
        assert_eq!(hosted, None);
        let reason = refusal(refused);
        assert!(reason.contains(expected), "{reason}");
        assert!(h.0.borrow().counters().hellos_refused > 0);
        let mut right = asker(&net, 3, Role::Player, &info(3), host_code);
        let (hosted, joined) = meet(&mut h, &mut right);
        assert!(joined.is_ok() && hosted.is_some());
    }
}

/// The joiner answers the host's `Hello` as a Noise responder itself: what a fake host (or a
/// forger at the host's address) can make the joiner read.
fn answer_as_host(net: &MemoryNet, invite: Option<&InviteCode>, answer: &HostAnswer) -> Channel {
    let mut fake = net.endpoint(1);
    let mut hello = None;
    for d in take_all(&mut fake) {
        if let Some(msg @ Control::Hello { .. }) = clear_control(&d) {
            hello = Some(msg);
        }
    }
    let Some(Control::Hello {
        info,
        role,
        invite: with_code,
        noise,
    }) = hello
    else {
        panic!("no Hello waiting at the host's address")
    };
    let prologue = wire::hello_prologue(&info, role, with_code);
    let (noise, channel) = Responder::read_hello(&prologue, invite, &noise)
        .expect("opens")
        .answer(&wire::encode_payload(answer))
        .expect("answer");
    fake.send(
        &wire::encode(Kind::Control, 0, &Control::Answer { noise }),
        addr(2),
    );
    channel
}

/// The joiner checks the host's side too, and only takes a welcome it can play: two
/// players, the slot it asked for.
#[test]
fn a_joiner_refuses_a_host_that_differs_or_welcomes_it_impossibly() {
    let welcome = |info: PeerInfo, players: u8, slot: Option<u8>| HostAnswer::Welcome {
        info,
        match_seed: 1,
        players,
        slot,
        secret: None,
    };
    let cases = [
        (
            Role::Player,
            welcome(info(4), 2, Some(1)),
            "differs (our value first): rules differ: block_hp 3 vs 4",
        ),
        (
            Role::Player,
            welcome(info(3), 3, Some(1)),
            "invalid welcome (3 players",
        ),
        (
            Role::Player,
            welcome(info(3), 2, Some(0)),
            "invalid welcome (2 players, slot Some(0)",
        ),
        (
            Role::Player,
            welcome(info(3), 2, None),
            "invalid welcome (2 players, slot None",
        ),
        (
            Role::Spectator,
            welcome(info(3), 2, Some(1)),
            "invalid welcome (2 players, slot Some(1)",
        ),
    ];
    for (role, answer, expected) in cases {
        let net = MemoryNet::default();
        let mut j = asker(&net, 2, role, &info(3), None);
        assert!(j.1.poll(&j.0).expect("asking").is_none());
        let _ = answer_as_host(&net, None, &answer);
        let reason = refusal(j.1.poll(&j.0).map(|a| a.expect("an answer")));
        assert!(reason.contains(expected), "{reason}");
    }
    // A welcome it can play, as a spectator: taken, with a channel whose id both sides share.
    let net = MemoryNet::default();
    let mut s = asker(&net, 2, Role::Spectator, &info(3), None);
    assert!(s.1.poll(&s.0).expect("asking").is_none());
    let host_channel = answer_as_host(&net, None, &welcome(info(3), 2, None));
    let agreed = s.1.poll(&s.0).expect("welcomed").expect("an answer");
    assert_eq!(
        (agreed.local_slot, agreed.session),
        (None, host_channel.id())
    );
}

/// A forger who saw the `Hello` but lacks the code answers first, from the host's own
/// address, with a clear `Reject` and with an `Answer` of its own: neither ends the join, and
/// the real host's answer is taken.
#[test]
fn a_forgers_reject_and_answer_racing_the_host_lose_to_the_real_answer() {
    let net = MemoryNet::default();
    let mut h = host(&net, 0, Some(code(7)));
    let mut j = asker(&net, 2, Role::Player, &info(3), Some(code(7)));
    assert!(j.1.poll(&j.0).expect("asking").is_none());
    // The forger at the host's address: a clear Reject, and an Answer made with another code.
    let mut forger = net.endpoint(1);
    let hello = take_all(&mut forger)
        .iter()
        .find_map(|d| clear_control(d))
        .expect("the Hello");
    forger.send(
        &wire::encode(
            Kind::Control,
            0,
            &Control::Reject {
                reason: "forged: go away".into(),
            },
        ),
        addr(2),
    );
    let Control::Hello {
        info: i,
        role,
        invite,
        ..
    } = &hello
    else {
        panic!("{hello:?}")
    };
    let other = Initiator::new(&wire::hello_prologue(i, *role, *invite), Some(&code(8)))
        .expect("initiator");
    let fake = Responder::read_hello(
        &wire::hello_prologue(i, *role, *invite),
        Some(&code(8)),
        other.message(),
    )
    .expect("its own hello")
    .answer(b"forged")
    .expect("answer")
    .0;
    forger.send(
        &wire::encode(Kind::Control, 0, &Control::Answer { noise: fake }),
        addr(2),
    );
    assert!(j.1.poll(&j.0).expect("not final yet").is_none());
    let c = j.0.borrow().counters();
    assert_eq!(c.dropped_unauthenticated, 1, "{c:?}");
    assert_eq!(c.datagrams_received, 1, "the clear Reject only: {c:?}");
    // The real host sees the Hello again (the joiner repeats it) and answers.
    std::thread::sleep(HELLO_INTERVAL);
    let (hosted, joined) = meet(&mut h, &mut j);
    assert!(joined.is_ok(), "{joined:?}");
    assert!(hosted.is_some());
}

/// With no authenticated answer, a clear `Reject` is final after its grace.
#[test]
fn a_clear_reject_is_final_after_its_grace() {
    let net = MemoryNet::default();
    let mut j = asker(&net, 2, Role::Player, &info(3), Some(code(7)));
    assert!(j.1.poll(&j.0).expect("asking").is_none());
    net.endpoint(1).send(
        &wire::encode(
            Kind::Control,
            0,
            &Control::Reject {
                reason: "protocol version 3 vs 9".into(),
            },
        ),
        addr(2),
    );
    let started = Instant::now();
    let reason = loop {
        match j.1.poll(&j.0) {
            Ok(None) => std::thread::sleep(Duration::from_millis(10)),
            Ok(Some(a)) => panic!("welcomed by nobody: {a:?}"),
            Err(e) => break refusal(Err(e)),
        }
    };
    assert!(started.elapsed() >= CLEAR_REJECT_GRACE);
    assert_eq!(reason, "protocol version 3 vs 9");
}

/// Hellos from many ports, every one acceptable, that never prove they read their answer
/// (spoofed sources, or a flooder that never listens) take no slot: the real joiner, who
/// comes after all of them, gets it.
#[test]
fn a_flood_of_hellos_that_never_prove_themselves_takes_no_slot() {
    let net = MemoryNet::default();
    let mut h = host(&net, 0, None);
    let template = asker(&net, 999, Role::Player, &info(3), None).1.hello;
    for port in 100..100 + 3 * MAX_CANDIDATES as u16 {
        let mut at = net.endpoint(port);
        at.send(&wire::encode(Kind::Control, 0, &template), addr(1));
        let _ = h.1.poll(&h.0);
    }
    assert_eq!(h.1.missing(), "a joining player");
    std::thread::sleep(Duration::from_millis(250)); // the answer budget refills
    let mut j = asker(&net, 2, Role::Player, &info(3), None);
    let (hosted, joined) = meet(&mut h, &mut j);
    assert!(joined.is_ok(), "{joined:?}");
    assert_eq!(hosted.expect("agreed").remote_players, vec![(1, addr(2))]);
}

/// A burst of Hellos beyond the answer budget is dropped unanswered and counted, and the
/// budget refills.
#[test]
fn answers_beyond_the_budget_are_dropped_and_counted() {
    let net = MemoryNet::default();
    let mut h = host(&net, 0, None);
    let template = asker(&net, 999, Role::Player, &info(4), None).1.hello;
    let burst = ANSWER_BURST as u16 + 10;
    for port in 100..100 + burst {
        net.endpoint(port)
            .send(&wire::encode(Kind::Control, 0, &template), addr(1));
    }
    let _ = h.1.poll(&h.0);
    let c = h.0.borrow().counters();
    assert!(c.hellos_rate_limited >= 10, "{c:?}");
    assert!(c.hellos_refused <= u64::from(ANSWER_BURST), "{c:?}");
    let mut budget = AnswerBudget::new();
    let now = Instant::now();
    for _ in 0..ANSWER_BURST {
        assert!(budget.take(now));
    }
    assert!(!budget.take(now));
    assert!(
        budget.take(now + Duration::from_millis(10)),
        "2 earned in 10 ms"
    );
}

/// A joiner says `Hello` at once and then only every interval, however often it is polled.
#[test]
fn hellos_are_repeated_at_the_interval_not_at_every_poll() {
    let net = MemoryNet::default();
    let mut j = asker(&net, 2, Role::Player, &info(3), None);
    for _ in 0..5 {
        assert!(j.1.poll(&j.0).expect("asking").is_none());
    }
    assert_eq!(net.waiting_for(addr(1)), 1, "one Hello so far");
    std::thread::sleep(HELLO_INTERVAL);
    assert!(j.1.poll(&j.0).expect("asking").is_none());
    assert_eq!(net.waiting_for(addr(1)), 2, "the next, after the interval");
}

/// The blocking forms meet, each on its own thread... here on one thread: the host's
/// answer is computed when the joiner's Hello is already waiting.
#[test]
fn the_blocking_forms_agree() {
    let net = MemoryNet::default();
    let mut j = asker(&net, 2, Role::Player, &info(3), None);
    assert!(j.1.poll(&j.0).expect("asking").is_none());
    let mut h = host(&net, 0, None);
    let _ = h.1.poll(&h.0); // answers
    let joined = j.1.poll(&j.0).expect("welcomed").expect("an answer");
    let link = h.0.clone();
    let hosted = super::host(&link, &info(3), SEED, 0, None, Duration::from_secs(10));
    // A fresh handshake on the same link keeps the proven channel but has no candidate: it
    // waits in vain and times out, naming who is missing.
    assert!(matches!(hosted, Err(Error::HandshakeTimeout { .. })) || hosted.is_ok());
    assert_ne!(joined.session, 0);
}

#[test]
fn a_blocking_join_times_out_naming_the_host_and_whole_seconds() {
    let net = MemoryNet::default();
    let link = Link::new(net.endpoint(2));
    let err = join(
        &link,
        &info(3),
        addr(1),
        Role::Player,
        None,
        Duration::from_millis(30),
    )
    .expect_err("nobody answers");
    assert!(
        matches!(&err, Error::HandshakeTimeout { peer, seconds: 1, .. } if peer == "127.0.0.1:1"),
        "{err:?}"
    );
    let link = Link::new(MemoryNet::default().endpoint(1));
    let err = super::host(&link, &info(3), SEED, 0, None, Duration::from_millis(30))
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

/// After the handshake the two links talk only sealed: a control message between them is
/// sealed, opens once, and a clear copy of it is dropped as forged.
#[test]
fn after_the_handshake_control_messages_are_sealed_and_clear_ones_refused() {
    let net = MemoryNet::default();
    let mut h = host(&net, 0, None);
    let mut j = asker(&net, 2, Role::Player, &info(3), None);
    let (hosted, joined) = meet(&mut h, &mut j);
    assert!(hosted.is_some());
    let joined = joined.expect("welcomed");
    j.0.borrow_mut()
        .send_control(&Control::Finish { confirmed: 9 }, addr(1));
    let mut host_end = net.endpoint(1);
    let sealed = take_all(&mut host_end);
    assert_eq!(sealed.len(), 1);
    assert_eq!(
        crate::net::seal::sealed_id(&sealed[0]),
        Some(joined.session)
    );
    let mut joiner_end = net.endpoint(2);
    for d in &sealed {
        joiner_end.send(d, addr(1));
        joiner_end.send(d, addr(1)); // a replay
    }
    joiner_end.send(
        &wire::encode(Kind::Control, 0, &Control::Finish { confirmed: 9 }),
        addr(1),
    );
    h.0.borrow_mut().pump(false);
    let inbox = h.0.borrow_mut().take_control();
    assert_eq!(inbox, vec![(addr(2), Control::Finish { confirmed: 9 })]);
    let c = h.0.borrow().counters();
    assert_eq!(
        (c.dropped_replayed, c.dropped_unauthenticated),
        (1, 1),
        "{c:?}"
    );
}

/// Over plain UDP an unanswered handshake says what a player behind a router needs: the
/// joiner, that the host must forward the port it tried; the host, that its router must
/// forward its own port. Over any other transport, no port forward is suggested.
#[test]
fn an_unanswered_handshake_over_udp_names_the_port_to_forward() {
    use crate::net::transport::UdpTransport;
    let udp =
        || Link::new(UdpTransport::bind("127.0.0.1:0".parse().expect("addr")).expect("a socket"));
    // Nobody listens there: the port of a socket we bound and closed.
    let closed = UdpTransport::bind("127.0.0.1:0".parse().expect("addr"))
        .expect("a socket")
        .local_addr();
    let limit = Duration::from_millis(30);
    let joined = super::join(&udp(), &info(3), closed, Role::Player, None, limit)
        .expect_err("nobody answers");
    let text = joined.to_string();
    assert!(
        text.contains(&format!(
            "forward UDP port {} to the host's machine",
            closed.port()
        )) && text.contains("--room"),
        "{text}"
    );
    let host_link = udp();
    let port = host_link.borrow().local_addr().port();
    let hosted = super::host(&host_link, &info(3), SEED, 0, None, limit).expect_err("nobody");
    let text = hosted.to_string();
    assert!(
        text.contains(&format!("forwards UDP port {port} to it")) && text.contains("--room"),
        "{text}"
    );
    let memory = Link::new(MemoryNet::default().endpoint(1));
    let text = super::host(&memory, &info(3), SEED, 0, None, limit)
        .expect_err("nobody")
        .to_string();
    assert!(!text.contains("forward"), "{text}");
}
