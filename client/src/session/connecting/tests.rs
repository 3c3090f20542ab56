//! Connections polled on one thread over an in-memory network: every stage, every timeout
//! and what the host answers strangers at each stage.

use super::*;
use crate::net::socket::Link;
use crate::net::transport::memory::{MemoryEndpoint, MemoryNet};
use crate::net::transport::{Transport, MAX_DATAGRAM};
use crate::net::wire::{self, Control, Kind};
use crate::session::netplay::{Advance, NetEvent, MAX_INPUT_DELAY, MAX_SPECTATORS};
use engine::World;
use game_api::Game;

fn addr(port: u16) -> SocketAddr {
    SocketAddr::from(([127, 0, 0, 1], port))
}

fn config(handshake_ms: u64, sync_ms: u64, spectators: usize) -> NetConfig<World> {
    NetConfig::<World> {
        handshake_timeout: Duration::from_millis(handshake_ms),
        sync_timeout: Duration::from_millis(sync_ms),
        spectators,
        ..NetConfig::<World>::default()
    }
}

/// A host at port 1.
fn host<G: Game>(net: &MemoryNet, config: &NetConfig<G>) -> Connecting<G> {
    Connecting::host(Link::new(net.endpoint(1)), config)
}

/// A peer at `port` joining the host as `role`.
fn joiner<G: Game>(net: &MemoryNet, port: u16, role: Role, config: &NetConfig<G>) -> Connecting<G> {
    Connecting::join(Link::new(net.endpoint(port)), addr(1), role, config)
}

/// Polls every side in turn until `done` says so, each side's results and stages kept;
/// fails after 10 s of wall time (a guard against hanging, not a measure: a lossless network
/// needs no waiting).
fn poll_until<G: Game>(
    sides: &mut [&mut Connecting<G>],
    mut done: impl FnMut(&[Option<NetPeer<G>>], &[ConnectStage]) -> bool,
) -> (Vec<Option<NetPeer<G>>>, Vec<Vec<ConnectStage>>) {
    let guard = Instant::now() + Duration::from_secs(10);
    let mut peers: Vec<Option<NetPeer<G>>> = sides.iter().map(|_| None).collect();
    let mut seen: Vec<Vec<ConnectStage>> = sides.iter().map(|s| vec![s.stage()]).collect();
    loop {
        for (i, side) in sides.iter_mut().enumerate() {
            if let Some(peer) = peers[i].as_mut() {
                // A handed-over peer plays on (a host hands over only once it heard input).
                let _ = peer.advance(G::Input::default());
                continue;
            }
            match side.poll() {
                Ok(Some(peer)) => peers[i] = Some(peer),
                Ok(None) => {}
                Err(e) => panic!("side {i}: {e}"),
            }
            let stage = side.stage();
            if peers[i].is_none() && seen[i].last() != Some(&stage) {
                seen[i].push(stage);
            }
        }
        let now: Vec<ConnectStage> = sides.iter().map(|s| s.stage()).collect();
        if done(&peers, &now) {
            return (peers, seen);
        }
        assert!(Instant::now() < guard, "stuck at {now:?}");
        std::thread::sleep(Duration::from_millis(1));
    }
}

/// Polls `side` alone until it fails; panics if it hands over a peer or takes over 10 s.
fn poll_until_error(side: &mut Connecting<World>) -> Error {
    let guard = Instant::now() + Duration::from_secs(10);
    loop {
        match side.poll() {
            Ok(None) => {}
            Ok(Some(_)) => panic!("handed over a peer"),
            Err(e) => return e,
        }
        assert!(Instant::now() < guard, "no error at {:?}", side.stage());
        std::thread::sleep(Duration::from_millis(1));
    }
}

fn all_handed_over<G: Game>(peers: &[Option<NetPeer<G>>], _: &[ConnectStage]) -> bool {
    peers.iter().all(Option::is_some)
}

/// A host at port 1 and a player joined from port 2, both handed over (the match runs).
fn connected_pair<G: Game>(net: &MemoryNet, cfg: &NetConfig<G>) -> (NetPeer<G>, NetPeer<G>) {
    let mut h = host(net, cfg);
    let mut j = joiner(net, 2, Role::Player, cfg);
    let (mut peers, _) = poll_until(&mut [&mut h, &mut j], all_handed_over);
    (
        peers[0].take().expect("host"),
        peers[1].take().expect("joiner"),
    )
}

/// A host at port 1, a player from port 2 and a spectator from port 3, all handed over.
fn connected_trio(net: &MemoryNet, cfg: &NetConfig<World>) -> [NetPeer<World>; 3] {
    let mut h = host(net, cfg);
    let mut j = joiner(net, 2, Role::Player, cfg);
    let mut s = joiner(net, 3, Role::Spectator, cfg);
    let (peers, _) = poll_until(&mut [&mut h, &mut j, &mut s], all_handed_over);
    let mut peers = peers.into_iter().map(|p| p.expect("handed over"));
    std::array::from_fn(|_| peers.next().expect("three sides"))
}

/// Polls a host (which must go on waiting) and its joiner until the joiner is handed over;
/// the joiner's peer has not advanced yet.
fn welcomed(h: &mut Connecting<World>, j: &mut Connecting<World>) -> NetPeer<World> {
    let guard = Instant::now() + Duration::from_secs(10);
    loop {
        assert!(h.poll().expect("the host waits").is_none());
        if let Some(peer) = j.poll().expect("the joiner is welcomed") {
            return peer;
        }
        assert!(Instant::now() < guard, "the joiner never ran");
        std::thread::sleep(Duration::from_millis(1));
    }
}

fn synchronizing(stage: ConnectStage) -> bool {
    matches!(stage, ConnectStage::Synchronizing { .. })
}

/// The control messages waiting at `at`, taken off the wire.
fn control_at(at: &mut MemoryEndpoint) -> Vec<Control> {
    let mut buf = vec![0; MAX_DATAGRAM];
    let mut out = Vec::new();
    while let Some((n, _)) = at.recv(&mut buf) {
        if let Ok((Kind::Control, _, payload)) = wire::open(&buf[..n]) {
            out.push(wire::decode(payload).expect("control"));
        }
    }
    out
}

/// A stranger at `port` says `Hello` to `to` as `role`.
fn stranger_hello(net: &MemoryNet, port: u16, to: u16, role: Role) -> MemoryEndpoint {
    let mut at = net.endpoint(port);
    let info = PeerInfo::local::<World>(&engine::Rules::default());
    let noise = crate::net::seal::Initiator::new(&wire::hello_prologue(&info, role, false), None)
        .expect("initiator")
        .message()
        .to_vec();
    let hello = Control::Hello {
        info,
        role,
        invite: false,
        noise,
    };
    at.send(&wire::encode(Kind::Control, 0, &hello), addr(to));
    at
}

fn over(result: Result<Option<NetPeer<World>>, Error>) -> bool {
    matches!(result, Err(Error::Refused { reason }) if reason.contains("this connection is over"))
}

#[test]
fn a_host_and_a_joiner_go_through_every_stage_and_the_host_then_refuses_strangers() {
    let net = MemoryNet::default();
    let cfg = config(30_000, 5_000, 0);
    let mut h = host(&net, &cfg);
    let mut j = joiner(&net, 2, Role::Player, &cfg);
    assert!(format!("{h:?}").contains("Waiting"), "{h:?}");
    assert_eq!(h.link().borrow().local_addr(), addr(1));
    let (host_link, joiner_link) = (h.link().clone(), j.link().clone());
    let (mut peers, seen) = poll_until(&mut [&mut h, &mut j], all_handed_over);
    assert_eq!(seen[0][0], ConnectStage::Waiting { for_player: true });
    assert_eq!(seen[1][0], ConnectStage::Asking);
    for stages in &seen {
        let sync: Vec<_> = stages.iter().filter(|s| synchronizing(**s)).collect();
        assert!(!sync.is_empty(), "{stages:?}");
        // Progress counts GGRS's round trips as they come back.
        assert!(
            sync.iter().any(
                |s| matches!(s, ConnectStage::Synchronizing { done, total } if *done > 0 && total > done)
            ),
            "{stages:?}"
        );
    }
    let mut joined = peers[1].take().expect("joiner");
    let hosted = peers[0].take().expect("host");
    assert_eq!(
        (hosted.local_slot(), joined.local_slot()),
        (Some(0), Some(1))
    );
    assert_eq!(hosted.agreement().session, joined.agreement().session);
    // Handed over: polling again says so.
    assert!(over(h.poll()) && over(j.poll()));
    assert_eq!(h.stage(), ConnectStage::Asking);

    // The host now refuses every stranger's Hello; the joiner answers none.
    let mut stranger = stranger_hello(&net, 3, 1, Role::Player);
    host_link.borrow_mut().pump(false);
    assert_eq!(
        control_at(&mut stranger),
        vec![Control::Reject {
            reason: "the match is full (already under way)".into()
        }]
    );
    // Neither its link nor the running joiner: only a host takes late spectators.
    let mut stranger = stranger_hello(&net, 4, 2, Role::Spectator);
    joiner_link.borrow_mut().pump(false);
    joined.poll();
    assert!(control_at(&mut stranger).is_empty());
    assert_eq!(joiner_link.borrow().counters().late_hellos_refused, 0);
}

#[test]
fn a_host_waits_for_its_spectators_and_while_synchronizing_refuses_only_what_it_cannot_take() {
    for spectators in [0, 1] {
        let net = MemoryNet::default();
        let cfg = config(30_000, 5_000, spectators);
        let mut h = host(&net, &cfg);
        let mut j = joiner(&net, 2, Role::Player, &cfg);
        let mut s = joiner(&net, 3, Role::Spectator, &cfg);
        if spectators == 1 {
            poll_until(&mut [&mut h, &mut j], |_, st| {
                st[0] == ConnectStage::Waiting { for_player: false }
            });
        }
        let mut sides: Vec<&mut Connecting<World>> = vec![&mut h, &mut j];
        if spectators == 1 {
            sides.push(&mut s);
        }
        poll_until(&mut sides, |_, st| synchronizing(st[0]));
        // Every slot is taken and GGRS is synchronizing.
        let mut late = stranger_hello(&net, 9, 1, Role::Spectator);
        h.poll().expect("the host is still connecting");
        let answers = control_at(&mut late);
        if spectators == 0 {
            assert_eq!(
                answers,
                vec![Control::Reject {
                    reason: "spectator slots full: this host takes no spectators".into()
                }]
            );
        } else {
            assert!(answers.is_empty(), "a slot may yet free up: {answers:?}");
        }
    }
}

#[test]
fn a_handshake_out_of_time_names_who_is_missing_unless_the_host_waits_indefinitely() {
    let net = MemoryNet::default();
    let cfg = config(0, 5_000, 0);
    let mut h = host(&net, &cfg);
    let mut j = joiner(&net, 2, Role::Player, &cfg);
    let mut patient =
        Connecting::<World>::host(Link::new(net.endpoint(5)), &cfg).waiting_indefinitely();
    let mut patient_joiner = joiner(&net, 6, Role::Player, &cfg).waiting_indefinitely();
    std::thread::sleep(Duration::from_millis(2));
    match h.poll() {
        Err(Error::HandshakeTimeout {
            peer, seconds: 0, ..
        }) => assert_eq!(peer, "a joining player"),
        other => panic!("{other:?}"),
    }
    assert!(over(h.poll()), "an error ends the connection");
    match j.poll() {
        Err(Error::HandshakeTimeout { peer, .. }) => assert_eq!(peer, "127.0.0.1:1"),
        other => panic!("{other:?}"),
    }
    assert!(matches!(patient.poll(), Ok(None)));
    assert_eq!(patient.stage(), ConnectStage::Waiting { for_player: true });
    assert!(matches!(
        patient_joiner.poll(),
        Err(Error::HandshakeTimeout { .. })
    ));
}

#[test]
fn a_host_out_of_time_for_spectators_says_they_are_missing() {
    let net = MemoryNet::default();
    let cfg = config(300, 5_000, 1);
    let mut h = host(&net, &cfg);
    let mut j = joiner(&net, 2, Role::Player, &cfg);
    poll_until(&mut [&mut h, &mut j], |_, st| {
        st[0] == ConnectStage::Waiting { for_player: false }
    });
    match poll_until_error(&mut h) {
        Error::HandshakeTimeout { peer, .. } => assert_eq!(peer, "the spectators"),
        other => panic!("{other:?}"),
    }
}

#[test]
fn a_joiner_allows_the_rest_of_its_handshake_time_plus_its_sync_time() {
    let net = MemoryNet::default();
    let mut h = host(&net, &config(30_000, 5_000, 0));
    let mut j = joiner(&net, 2, Role::Player, &config(300, 400, 0));
    poll_until(&mut [&mut h, &mut j], |_, st| synchronizing(st[1]));
    drop(h);
    match poll_until_error(&mut j) {
        Error::SyncTimeout { peers, millis } => {
            assert_eq!(peers, "host 127.0.0.1:1");
            // Handshake time left when welcomed (at most 300 ms) plus the 400 ms.
            assert!((400..=700).contains(&millis), "{millis}");
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn a_host_whose_joiner_vanishes_while_synchronizing_waits_again_for_another() {
    let net = MemoryNet::default();
    let cfg = config(30_000, 50, 0);
    let mut h = host(&net, &cfg);
    let mut gone = joiner(&net, 2, Role::Player, &cfg);
    poll_until(&mut [&mut h, &mut gone], |_, st| synchronizing(st[0]));
    let first_session = h.link().borrow().counters();
    drop(gone);
    poll_until(&mut [&mut h], |_, st| {
        st[0] == ConnectStage::Waiting { for_player: true }
    });
    assert!(h.link().borrow().peers().is_empty());
    let mut next = joiner(&net, 3, Role::Player, &cfg);
    let (peers, _) = poll_until(&mut [&mut h, &mut next], all_handed_over);
    let hosted = peers[0].as_ref().expect("host");
    assert_eq!(hosted.agreement().remote_players, vec![(1, addr(3))]);
    assert!(h.link().borrow().counters().datagrams_sent > first_session.datagrams_sent);
}

#[test]
fn a_host_out_of_handshake_time_when_its_joiner_does_not_synchronize_gives_up_naming_it() {
    let net = MemoryNet::default();
    let cfg = config(300, 400, 0);
    let mut h = host(&net, &cfg);
    let mut gone = joiner(&net, 2, Role::Player, &cfg);
    poll_until(&mut [&mut h, &mut gone], |_, st| synchronizing(st[0]));
    drop(gone);
    // Its sync deadline (welcomed before 300 ms, plus 400 ms) is past its handshake time.
    match poll_until_error(&mut h) {
        Error::SyncTimeout { peers, millis } => {
            assert_eq!((peers.as_str(), millis), ("player 127.0.0.1:2", 400))
        }
        other => panic!("{other:?}"),
    }
    assert!(over(h.poll()));
}

/// Issue 17: a joiner that synchronizes and then sends no input does not get the host to
/// start; after the sync timeout the host forgets it, says who held it up, and plays the
/// next joiner.
#[test]
fn a_joiner_that_synchronizes_but_sends_no_input_loses_the_slot() {
    let net = MemoryNet::default();
    let cfg = config(30_000, 300, 0);
    let mut h = host(&net, &cfg);
    let mut squatter = joiner(&net, 2, Role::Player, &cfg);
    // The squatter is handed over (GGRS runs) but only ever polls: no input.
    let mut squatter = welcomed(&mut h, &mut squatter);
    let guard = Instant::now() + Duration::from_secs(10);
    loop {
        squatter.poll();
        assert!(
            h.poll().expect("the host waits on").is_none(),
            "the host started without a frame of input from its joiner"
        );
        if h.stage() == (ConnectStage::Waiting { for_player: true })
            && h.link().borrow().peers().is_empty()
        {
            break;
        }
        assert!(Instant::now() < guard, "still held at {:?}", h.stage());
        std::thread::sleep(Duration::from_millis(2));
    }
    let mut real = joiner(&net, 3, Role::Player, &cfg);
    let (peers, _) = poll_until(&mut [&mut h, &mut real], all_handed_over);
    let hosted = peers[0].as_ref().expect("host");
    assert_eq!(hosted.agreement().remote_players, vec![(1, addr(3))]);
}

/// Issue 17: a running match whose confirmed tick stops moving while the other side keeps its
/// connection alive (keep-alives, no input) ends with `MatchFrozen` after the freeze timeout,
/// instead of waiting forever.
#[test]
fn a_match_that_confirms_nothing_for_the_freeze_timeout_ends_saying_so() {
    let net = MemoryNet::default();
    let cfg = NetConfig::<World> {
        freeze_timeout: Duration::from_millis(400),
        ..config(30_000, 5_000, 0)
    };
    let (mut hosted, mut joined) = connected_pair(&net, &cfg);
    // A caller that does not advance for a while (longer than the freeze timeout) is not
    // frozen: the clock starts again at its next advance.
    let idle = Instant::now() + Duration::from_millis(1200);
    while Instant::now() < idle {
        hosted.poll();
        joined.poll();
        std::thread::sleep(Duration::from_millis(5));
    }
    assert!(
        hosted.advance(engine::WireInput::default()).is_ok(),
        "a pause of the caller is no freeze"
    );
    // The joiner stops playing but keeps polling (its keep-alives flow); the host plays on.
    let guard = Instant::now() + Duration::from_secs(10);
    let err = loop {
        joined.poll();
        match hosted.advance(engine::WireInput::default()) {
            Ok(_) => {}
            Err(e) => break e,
        }
        assert!(Instant::now() < guard, "no freeze reported");
        std::thread::sleep(Duration::from_millis(2));
    };
    assert!(
        matches!(err, Error::MatchFrozen { seconds: 1, .. }),
        "{err:?}"
    );
    assert!(err.to_string().contains("the match froze at tick"), "{err}");
}

/// Issue 19: a peer that goes silent is waited for through the reconnect grace (the freeze
/// watchdog does not count that time), shown as reconnecting with the time left, remembered
/// as an outage when it is heard again, and, silent past the grace, gone with the reason.
#[test]
fn a_silent_peer_is_waited_for_through_the_grace_and_then_given_up_saying_why() {
    let net = MemoryNet::default();
    let cfg = NetConfig::<World> {
        freeze_timeout: Duration::from_millis(400),
        disconnect_notify: Duration::from_millis(100),
        disconnect_timeout: Duration::from_millis(1500),
        ..config(30_000, 5_000, 0)
    };
    let (mut hosted, mut joined) = connected_pair(&net, &cfg);
    let play = |hosted: &mut NetPeer<World>, joined: Option<&mut NetPeer<World>>, for_ms: u64| {
        let mut joined = joined;
        let until = Instant::now() + Duration::from_millis(for_ms);
        let mut waiting = Vec::new();
        while Instant::now() < until {
            if let Some(j) = joined.as_deref_mut() {
                j.advance(engine::WireInput::default())
                    .expect("joiner plays");
            }
            hosted
                .advance(engine::WireInput::default())
                .expect("a silent peer within the grace is no freeze");
            waiting.extend(hosted.reconnecting());
            std::thread::sleep(Duration::from_millis(2));
        }
        waiting
    };
    assert!(play(&mut hosted, Some(&mut joined), 300).is_empty());
    assert!(hosted.final_tick() > 0);
    // Twice the freeze timeout of silence: waited for, shown with who and the time left.
    let waiting = play(&mut hosted, None, 800);
    let last = *waiting.last().expect("the host shows it is waiting");
    assert!(!last.host, "the missing peer is the other player");
    assert_eq!(last.peer, addr(2));
    assert!(last.silent >= Duration::from_millis(600), "{last:?}");
    assert!(last.left <= Duration::from_millis(900), "{last:?}");
    assert!(last.to_string().contains("nothing from the other player"));
    // Heard again: the wait is over and remembered.
    assert!(play(&mut hosted, Some(&mut joined), 300).is_empty());
    let outages = hosted.outages();
    assert_eq!(outages.len(), 1);
    assert!(
        outages[0].silent >= Duration::from_millis(700),
        "{outages:?}"
    );
    assert_eq!(outages[0].peer, addr(2));
    // Silent past the grace: gone, and why.
    let guard = Instant::now() + Duration::from_secs(10);
    while !hosted
        .take_events()
        .contains(&NetEvent::Disconnected { peer: addr(2) })
    {
        hosted
            .advance(engine::WireInput::default())
            .expect("no freeze");
        assert!(Instant::now() < guard, "never given up");
        std::thread::sleep(Duration::from_millis(2));
    }
    assert_eq!(hosted.reconnecting(), None);
    assert_eq!(
        hosted.gone_reason(addr(2)),
        "the other player was silent for 2 s, the whole reconnect grace"
    );
    // A peer that said it was done is no silent one.
    assert_eq!(
        joined.gone_reason(addr(1)),
        "the other player left the match"
    );
}

/// Contract (issue 18): a configuration out of range — a timeout past `Instant`'s range (it
/// used to panic adding it to now), too many spectators, an input delay GGRS cannot queue — is
/// refused by the host and the joiner at their first poll, naming the value and its range.
#[test]
fn a_config_out_of_range_is_refused_naming_it_not_a_panic() {
    let net = MemoryNet::default();
    let cases = [
        (
            NetConfig::<World> {
                handshake_timeout: Duration::MAX,
                ..NetConfig::<World>::default()
            },
            "handshake timeout",
        ),
        (
            NetConfig::<World> {
                sync_timeout: Duration::from_secs(u64::MAX),
                ..NetConfig::<World>::default()
            },
            "sync timeout",
        ),
        (
            NetConfig::<World> {
                disconnect_timeout: Duration::ZERO,
                ..NetConfig::<World>::default()
            },
            "disconnect timeout",
        ),
        (config(1000, 1000, MAX_SPECTATORS + 1), "spectators"),
        (
            NetConfig::<World> {
                input_delay: MAX_INPUT_DELAY + 1,
                ..NetConfig::<World>::default()
            },
            "input delay",
        ),
    ];
    for (config, words) in cases {
        assert!(config.check().unwrap_err().contains(words), "{words}");
        let mut h = host(&net, &config);
        let err = poll_until_error(&mut h).to_string();
        assert!(err.contains(words), "host: {err}");
        let mut j =
            Connecting::<World>::join(Link::new(net.endpoint(2)), addr(1), Role::Player, &config);
        let err = poll_until_error(&mut j).to_string();
        assert!(err.contains(words), "joiner: {err}");
    }
    assert_eq!(NetConfig::<World>::default().check(), Ok(()));
}

/// Contract: every limit `NetConfig::check` applies takes its own value and refuses one past it.
#[test]
fn every_config_limit_takes_its_value_and_refuses_one_past() {
    use crate::session::netplay::{
        DISCONNECT_TIMEOUT_RANGE, MAX_DESYNC_INTERVAL, MAX_FPS, MAX_HANDSHAKE_TIMEOUT,
        MAX_PREDICTION, MAX_SYNC_TIMEOUT,
    };
    let tick = Duration::from_millis(1);
    let (min_disconnect, max_disconnect) = DISCONNECT_TIMEOUT_RANGE;
    let with = |edit: &dyn Fn(&mut NetConfig<World>)| {
        let mut c = NetConfig::<World>::default();
        edit(&mut c);
        c
    };
    type Edit = Box<dyn Fn(&mut NetConfig<World>)>;
    let cases: Vec<(Edit, Edit, &str)> = vec![
        (
            Box::new(|c| c.input_delay = MAX_INPUT_DELAY),
            Box::new(|c| c.input_delay = MAX_INPUT_DELAY + 1),
            "input delay",
        ),
        (
            Box::new(|c| c.max_prediction = MAX_PREDICTION),
            Box::new(|c| c.max_prediction = MAX_PREDICTION + 1),
            "max prediction",
        ),
        (
            Box::new(|c| c.max_prediction = 1),
            Box::new(|c| c.max_prediction = 0),
            "max prediction",
        ),
        (
            Box::new(|c| c.desync_interval = MAX_DESYNC_INTERVAL),
            Box::new(|c| c.desync_interval = MAX_DESYNC_INTERVAL + 1),
            "desync interval",
        ),
        (
            Box::new(|c| c.desync_interval = 1),
            Box::new(|c| c.desync_interval = 0),
            "desync interval",
        ),
        (
            Box::new(|c| c.fps = MAX_FPS),
            Box::new(|c| c.fps = MAX_FPS + 1),
            "fps",
        ),
        (Box::new(|c| c.fps = 1), Box::new(|c| c.fps = 0), "fps"),
        (
            Box::new(|c| c.spectators = MAX_SPECTATORS),
            Box::new(|c| c.spectators = MAX_SPECTATORS + 1),
            "spectators",
        ),
        (
            Box::new(|c| c.handshake_timeout = MAX_HANDSHAKE_TIMEOUT),
            Box::new(move |c| c.handshake_timeout = MAX_HANDSHAKE_TIMEOUT + tick),
            "handshake timeout",
        ),
        (
            Box::new(|c| c.sync_timeout = MAX_SYNC_TIMEOUT),
            Box::new(move |c| c.sync_timeout = MAX_SYNC_TIMEOUT + tick),
            "sync timeout",
        ),
        (
            Box::new(move |c| c.disconnect_timeout = max_disconnect),
            Box::new(move |c| c.disconnect_timeout = max_disconnect + tick),
            "disconnect timeout",
        ),
        (
            Box::new(move |c| {
                (c.disconnect_timeout, c.disconnect_notify) = (min_disconnect, min_disconnect)
            }),
            Box::new(move |c| {
                (c.disconnect_timeout, c.disconnect_notify) =
                    (min_disconnect - tick, Duration::ZERO)
            }),
            "disconnect timeout",
        ),
        (
            Box::new(|c| c.disconnect_notify = c.disconnect_timeout),
            Box::new(move |c| c.disconnect_notify = c.disconnect_timeout + tick),
            "notice",
        ),
        (
            Box::new(|c| c.freeze_timeout = MAX_HANDSHAKE_TIMEOUT),
            Box::new(move |c| c.freeze_timeout = MAX_HANDSHAKE_TIMEOUT + tick),
            "freeze timeout",
        ),
        (
            Box::new(move |c| c.freeze_timeout = tick),
            Box::new(|c| c.freeze_timeout = Duration::ZERO),
            "freeze timeout",
        ),
        (
            Box::new(|c| c.catchup_speed = 1),
            Box::new(|c| c.catchup_speed = 0),
            "catch-up",
        ),
        (
            Box::new(|c| c.max_frames_behind = 1),
            Box::new(|c| c.max_frames_behind = 0),
            "catch-up",
        ),
    ];
    for (at, past, words) in cases {
        assert_eq!(with(&*at).check(), Ok(()), "{words} at its limit");
        let err = with(&*past).check().expect_err(words);
        assert!(err.contains(words), "{words}: {err}");
    }
}

mod late;
mod rejoin;
mod resync;
mod second_game;
mod stats;

/// A joiner over UDP to a port nothing listens on gives up as soon as the OS says so (ICMP
/// port unreachable, on loopback at once), naming the port, instead of waiting out its 20 s
/// handshake; over another transport there is no such probe.
#[test]
fn a_joiner_to_a_closed_udp_port_is_told_at_once() {
    use crate::net::transport::{Transport as _, UdpTransport};
    let closed = UdpTransport::bind("127.0.0.1:0".parse().expect("addr"))
        .expect("a socket")
        .local_addr();
    let cfg = config(20_000, 5_000, 0);
    let link = Link::new(UdpTransport::bind("127.0.0.1:0".parse().expect("addr")).expect("bind"));
    let mut joining = Connecting::<World>::join(link, closed, Role::Player, &cfg);
    let err = poll_until_error(&mut joining);
    match &err {
        Error::PortClosed { host } => assert_eq!(*host, closed),
        other => panic!("expected the closed port named, got {other:?}"),
    }
    assert!(
        err.to_string()
            .contains(&format!("nothing listens on UDP port {}", closed.port())),
        "{err}"
    );
}

/// A host ends only when every peer has finished: its player finishing is not enough while
/// a spectator still watches, and the spectator finishing alone is not enough either.
#[test]
fn a_host_waits_for_every_peer_to_finish_not_the_first() {
    for spectator_first in [false, true] {
        let net = MemoryNet::default();
        let [mut host, mut player, mut spectator] = connected_trio(&net, &config(30_000, 5_000, 1));
        host.poll();
        assert!(!host.all_peers_finished(), "nobody finished yet");
        let (first, second) = if spectator_first {
            (&mut spectator, &mut player)
        } else {
            (&mut player, &mut spectator)
        };
        first.send_finish(10);
        host.poll();
        assert!(
            !host.all_peers_finished(),
            "one of two finished (spectator first: {spectator_first})"
        );
        second.send_finish(10);
        host.poll();
        assert!(host.all_peers_finished(), "both finished");
    }
}

/// A peer finishing beside a partner that never says `Finish` says its own at its pace (once
/// every 100 ms, not at every poll) and gives up at its timeout.
#[test]
fn finishing_says_finish_at_its_pace_and_gives_up_a_silent_partner() {
    let net = MemoryNet::default();
    let (mut hosted, mut joined) = connected_pair(&net, &config(30_000, 5_000, 0));
    joined.poll();
    let before = joined.socket_counters().datagrams_received;
    let started = Instant::now();
    assert!(
        !hosted.finish(10, Duration::from_millis(300)),
        "the partner never finished"
    );
    let took = started.elapsed();
    assert!(took >= Duration::from_millis(300), "{took:?}");
    joined.poll();
    let received = joined.socket_counters().datagrams_received - before;
    // Its `Finish` at most once every 100 ms, and a little of GGRS's own traffic as it polls.
    let paced = 1 + took.as_millis() as u64 / 100;
    assert!(received <= 2 * paced, "{received} datagrams in {took:?}");
    assert!(joined.all_peers_finished(), "the partner heard it");
}

/// A peer that has heard every peer finish lingers a moment before it leaves, still saying
/// `Finish` and answering, for a partner that may not have heard its own yet.
#[test]
fn a_peer_that_heard_every_finish_lingers_before_it_leaves() {
    let net = MemoryNet::default();
    let (mut hosted, mut joined) = connected_pair(&net, &config(30_000, 5_000, 0));
    joined.send_finish(10);
    joined.poll();
    let before = joined.socket_counters().datagrams_received;
    let started = Instant::now();
    assert!(
        hosted.finish(10, Duration::from_secs(5)),
        "the partner finished"
    );
    let took = started.elapsed();
    assert!(
        took >= crate::session::netplay::FINISH_LINGER,
        "left after {took:?}"
    );
    joined.poll();
    let received = joined.socket_counters().datagrams_received - before;
    // The first `Finish`, and more said while it lingered.
    assert!(received >= 2, "{received} datagrams in {took:?}");
}

/// A host out of handshake time whose joiner synchronized but never sent a frame of input
/// says so: not "unsynchronized", but synchronized without input.
#[test]
fn a_host_out_of_time_names_a_joiner_that_synchronized_but_sent_no_input() {
    let net = MemoryNet::default();
    let cfg = config(300, 400, 0);
    let mut h = host(&net, &cfg);
    let mut squatter = joiner(&net, 2, Role::Player, &cfg);
    let mut squatter = welcomed(&mut h, &mut squatter);
    let guard = Instant::now() + Duration::from_secs(10);
    let err = loop {
        squatter.poll(); // synchronized, polling, never advancing: no input
        match h.poll() {
            Ok(None) => {}
            Ok(Some(_)) => panic!("the host started without input from its joiner"),
            Err(e) => break e,
        }
        assert!(Instant::now() < guard, "still held at {:?}", h.stage());
        std::thread::sleep(Duration::from_millis(2));
    };
    match err {
        Error::SyncTimeout { peers, .. } => assert_eq!(
            peers,
            "player 127.0.0.1:2 (synchronized, but sent no input)"
        ),
        other => panic!("{other:?}"),
    }
}

/// Who holds a start up, by role: a peer not synchronized is named, a spectator that
/// synchronized is not (it sends no input, and needs to send none), nor a player that
/// synchronized and sent input; from the joiner's side its host is named as the host.
#[test]
fn the_peers_holding_up_a_start_are_named_by_role() {
    let net = MemoryNet::default();
    let [mut host, mut player, _spectator] = connected_trio(&net, &config(30_000, 5_000, 1));
    let guard = Instant::now() + Duration::from_secs(10);
    while host.final_tick() < 5 {
        host.advance(Default::default()).expect("host");
        player.advance(Default::default()).expect("player");
        assert!(Instant::now() < guard, "no progress");
    }
    let (p, sp) = (addr(2), addr(3));
    assert_eq!(
        host.unsynchronized(&[]),
        "player 127.0.0.1:2, spectator 127.0.0.1:3"
    );
    assert_eq!(host.unsynchronized(&[sp]), "player 127.0.0.1:2");
    assert_eq!(host.unsynchronized(&[p]), "spectator 127.0.0.1:3");
    assert_eq!(host.unsynchronized(&[sp, p]), "");
    assert_eq!(player.unsynchronized(&[]), "host 127.0.0.1:1");
    assert_eq!(player.unsynchronized(&[addr(1)]), "");
}

/// A player heard through frame 0 has sent input: one frame of it is enough for a host to
/// start and to stop naming it among those holding the start up.
#[test]
fn one_frame_of_input_is_input() {
    let net = MemoryNet::default();
    let cfg = NetConfig::<World> {
        input_delay: 0,
        ..config(30_000, 5_000, 0)
    };
    let mut h = host(&net, &cfg);
    let mut j = joiner(&net, 2, Role::Player, &cfg);
    let mut player = welcomed(&mut h, &mut j);
    let guard = Instant::now() + Duration::from_secs(10);
    // Exactly one frame of input, then only polls.
    while player.advance(Default::default()).expect("advance") != Advance::Advanced {
        assert!(Instant::now() < guard, "the joiner never advanced");
    }
    let host = loop {
        player.poll();
        if let Some(peer) = h.poll().expect("the host starts") {
            break peer;
        }
        assert!(Instant::now() < guard, "the host never started");
        std::thread::sleep(Duration::from_millis(1));
    };
    assert_eq!(
        h.link().borrow().heard_through(addr(2)),
        0,
        "heard through frame 0 only"
    );
    assert_eq!(host.unsynchronized(&[addr(2)]), "");
}

/// A host's sealed refusal reaching a running joiner turns it away (its slot went to another
/// peer) with the host's reason; the same refusal from a player reaching its host means
/// nothing outside a resync.
#[test]
fn a_refusal_turns_a_joiner_away_but_not_a_host() {
    let net = MemoryNet::default();
    let cfg = config(30_000, 5_000, 0);
    let mut h = host(&net, &cfg);
    let mut j = joiner(&net, 2, Role::Player, &cfg);
    let (mut peers, _) = poll_until(&mut [&mut h, &mut j], all_handed_over);
    let (mut hosted, mut joined) = (
        peers[0].take().expect("host"),
        peers[1].take().expect("joiner"),
    );
    let refuse = |link: &crate::net::socket::SharedLink, to| {
        let reason = "the slot went to a peer that proved itself first".to_owned();
        link.borrow_mut()
            .send_control(&Control::Reject { reason }, to);
    };
    refuse(j.link(), addr(1));
    refuse(h.link(), addr(2));
    let guard = Instant::now() + Duration::from_secs(10);
    while joined.turned_away().is_none() {
        hosted.poll();
        joined.poll();
        assert!(Instant::now() < guard, "the refusal never arrived");
        std::thread::sleep(Duration::from_millis(1));
    }
    assert_eq!(
        joined.turned_away(),
        Some("the slot went to a peer that proved itself first")
    );
    for _ in 0..20 {
        hosted.poll();
    }
    assert_eq!(hosted.turned_away(), None);
    assert!(
        hosted.advance(Default::default()).is_ok(),
        "the host plays on"
    );
}

/// A welcomed joiner whose slot went to another that proved itself first, and whose refusal
/// came in the same read as its `Answer` (before it held the keys to open it), hears the
/// refusal again at its first sealed datagram and asks again at once — it does not
/// synchronize with a host that forgot it until its timeout.
#[test]
fn a_joiner_turned_away_before_it_read_its_answer_hears_it_again_and_asks_again() {
    let net = MemoryNet::default();
    let cfg = config(30_000, 30_000, 0);
    let mut h = host(&net, &cfg);
    let mut first = joiner(&net, 2, Role::Player, &cfg);
    let mut second = joiner(&net, 3, Role::Player, &cfg);
    for side in [&mut first, &mut second, &mut h] {
        assert!(side.poll().expect("no failure").is_none());
    }
    // Only the first reads its answer and proves itself: the host takes it and turns the
    // second away while the second's answer still waits to be read.
    assert!(first.poll().expect("welcomed").is_none());
    assert!(h.poll().expect("synchronizing").is_none());
    assert!(synchronizing(h.stage()));
    let waiting = net.waiting_for(addr(3));
    assert!(waiting >= 2, "the answer and the refusal wait: {waiting}");
    assert!(second.poll().expect("welcomed").is_none());
    assert!(synchronizing(second.stage()), "it read its answer");
    // Its first sealed datagram (its `Joined`) brings the refusal again.
    assert!(h.poll().expect("synchronizing").is_none());
    assert!(second.poll().expect("turned away").is_none());
    assert_eq!(second.stage(), ConnectStage::Asking);
    // The first player and the host go on to play.
    let (peers, _) = poll_until(&mut [&mut h, &mut first], all_handed_over);
    assert!(peers.iter().all(Option::is_some));
}

/// The input delay a player sets is the one its inputs go out with: after one frame with a
/// delay of 3, its host has heard it through frame 3. Beyond the largest delay, and for a
/// peer with no local player, it is refused.
#[test]
fn the_input_delay_set_is_the_delay_inputs_go_out_with() {
    let net = MemoryNet::default();
    let cfg = NetConfig::<World> {
        input_delay: 0,
        ..config(30_000, 5_000, 1)
    };
    let mut h = host(&net, &cfg);
    let mut j = joiner(&net, 2, Role::Player, &cfg);
    let mut s = joiner(&net, 3, Role::Spectator, &cfg);
    let guard = Instant::now() + Duration::from_secs(10);
    let (mut player, mut spectator) = (None, None);
    while player.is_none() || spectator.is_none() {
        assert!(h.poll().expect("the host waits").is_none());
        if player.is_none() {
            player = j.poll().expect("the joiner is welcomed");
        }
        if spectator.is_none() {
            spectator = s.poll().expect("the spectator is welcomed");
        }
        assert!(Instant::now() < guard, "nobody ran");
        std::thread::sleep(Duration::from_millis(1));
    }
    let (mut player, mut spectator) = (player.expect("player"), spectator.expect("spectator"));
    let refused = player.set_input_delay(MAX_INPUT_DELAY + 1).unwrap_err();
    assert!(
        refused.to_string().contains(&format!(
            "input delay {} frames is beyond",
            MAX_INPUT_DELAY + 1
        )),
        "{refused}"
    );
    let refused = spectator.set_input_delay(1).unwrap_err();
    assert!(refused.to_string().contains("no local player"), "{refused}");
    player
        .set_input_delay(MAX_INPUT_DELAY)
        .expect("the largest delay");
    player.set_input_delay(3).expect("a delay of 3");
    while player.advance(Default::default()).expect("advance") != Advance::Advanced {
        assert!(Instant::now() < guard, "the joiner never advanced");
    }
    while h.link().borrow().heard_through(addr(2)) < 0 {
        player.poll();
        spectator.poll();
        let _ = h.poll().expect("the host goes on");
        assert!(Instant::now() < guard, "the host heard nothing");
        std::thread::sleep(Duration::from_millis(1));
    }
    assert_eq!(h.link().borrow().heard_through(addr(2)), 3);
}

/// Both sides finishing end cleanly, each having heard the other; a side whose partner never
/// finishes gives up after its timeout, saying it did not end cleanly.
#[test]
fn a_finish_is_clean_only_when_the_partner_finishes_too() {
    let net = MemoryNet::default();
    let cfg = config(30_000, 5_000, 0);
    let (mut hosted, mut joined) = connected_pair(&net, &cfg);
    let started = Instant::now();
    assert!(
        !hosted.finish(40, Duration::from_millis(300)),
        "the joiner never finished"
    );
    assert!(started.elapsed() >= Duration::from_millis(300));
    let joiner = std::thread::spawn(move || joined.finish(40, Duration::from_secs(10)));
    assert!(
        hosted.finish(40, Duration::from_secs(10)),
        "the host heard the joiner"
    );
    assert!(
        joiner.join().expect("the joiner's thread"),
        "the joiner heard the host"
    );
    assert!(hosted.all_peers_finished());
}

/// A desync is said only by the other player: a spectator's sealed `Resync` (it holds keys
/// too) starts nothing on the host, while the player's does.
#[test]
fn only_the_other_player_can_say_a_desync() {
    let net = MemoryNet::default();
    let cfg = config(30_000, 5_000, 1);
    let mut h = host(&net, &cfg);
    let mut j = joiner(&net, 2, Role::Player, &cfg);
    let mut s = joiner(&net, 3, Role::Spectator, &cfg);
    let (player_link, spectator_link) = (j.link().clone(), s.link().clone());
    let (mut peers, _) = poll_until(&mut [&mut h, &mut j, &mut s], all_handed_over);
    let mut hosted = peers[0].take().expect("host");
    hosted.take_events();
    let said = |link: &crate::net::socket::SharedLink| {
        link.borrow_mut()
            .send_control(&Control::Resync { tick: 3, hash: 7 }, addr(1));
    };
    let desyncs = |events: Vec<NetEvent>| -> Vec<SocketAddr> {
        (events.into_iter())
            .filter_map(|e| match e {
                NetEvent::DesyncDetected { peer, .. } => Some(peer),
                _ => None,
            })
            .collect()
    };
    said(&spectator_link);
    for _ in 0..5 {
        hosted.poll();
    }
    assert!(
        desyncs(hosted.take_events()).is_empty(),
        "a spectator's word"
    );
    said(&player_link);
    for _ in 0..5 {
        hosted.poll();
    }
    assert_eq!(
        desyncs(hosted.take_events()),
        [addr(2)],
        "the player's word"
    );
}

/// A host with two spectators from the start gives each its own GGRS handle after the
/// players': both are handed over, and both follow the match the players play.
#[test]
fn two_spectators_from_the_start_both_watch() {
    let net = MemoryNet::default();
    let cfg = config(30_000, 5_000, 2);
    let mut h = host(&net, &cfg);
    let mut j = joiner(&net, 2, Role::Player, &cfg);
    let mut s1 = joiner(&net, 3, Role::Spectator, &cfg);
    let mut s2 = joiner(&net, 4, Role::Spectator, &cfg);
    let (peers, _) = poll_until(&mut [&mut h, &mut j, &mut s1, &mut s2], all_handed_over);
    let [mut host, mut player, mut s1, mut s2]: [NetPeer<World>; 4] = peers
        .into_iter()
        .map(|p| p.expect("handed over"))
        .collect::<Vec<_>>()
        .try_into()
        .expect("four sides");
    let guard = Instant::now() + Duration::from_secs(20);
    while s1.final_tick().min(s2.final_tick()) < 40 {
        assert!(Instant::now() < guard, "a spectator is left behind");
        let _ = host.advance(engine::WireInput::default());
        let _ = player.advance(engine::WireInput::default());
        let _ = s1.advance(engine::WireInput::default());
        let _ = s2.advance(engine::WireInput::default());
    }
    for watcher in [&s1, &s2] {
        assert_eq!(
            watcher.driver().hash_at(40).expect("kept"),
            host.driver().hash_at(40).expect("kept")
        );
    }
}
