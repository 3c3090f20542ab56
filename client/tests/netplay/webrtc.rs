//! Online rooms: a real signalling server in-process on loopback, peers meeting in a room over
//! WebRTC data channels (host candidates only, no internet), the same handshake and session as
//! over UDP; and the errors when the server is down, the rules differ or the room is full.

use crate::common::*;
use client::net::signal::SignalServer;
use client::net::webrtc::RoomConfig;
use client::net::wire::Role;
use client::runs::{run_net_peer, NetRun, NetRunSummary};
use client::session::netplay::{NetConfig, NetPeer};
use client::Error;
use engine::World;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// Hang guard: the longest any peer here may take. Failing past it says which peer hung; it
/// is never a measure of speed.
pub(crate) const LIMIT: Duration = Duration::from_secs(120);

pub(crate) fn signal_server() -> SignalServer {
    SignalServer::start("127.0.0.1:0".parse().expect("addr")).expect("signalling server starts")
}

fn spawn_online(
    room: RoomConfig,
    role: Role,
    config: NetConfig<World>,
    plan: NetRun,
) -> JoinHandle<Result<NetRunSummary, Error>> {
    std::thread::spawn(move || {
        let peer = NetPeer::<World>::online(&room, role, &config)?;
        run_net_peer(peer, &plan)
    })
}

/// Joins `handle`, failing loudly if it has not finished within [`LIMIT`].
pub(crate) fn join_within<T>(handle: JoinHandle<T>, what: &str) -> T {
    let deadline = Instant::now() + LIMIT;
    while !handle.is_finished() {
        assert!(
            Instant::now() < deadline,
            "{what} still running after {LIMIT:?}: hung"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    handle.join().expect("peer thread panicked")
}

pub(crate) fn assert_clean(name: &str, summary: &NetRunSummary, ticks: u32) {
    println!("{name}: {summary}");
    assert_eq!(summary.ticks, ticks, "{name}");
    assert_eq!(summary.desyncs, 0, "{name}");
    assert_eq!(summary.disconnected, None, "{name}");
    assert!(
        summary.socket.bytes_sent > 0 && summary.socket.bytes_received > 0,
        "{name}: the socket counts the WebRTC transport's bytes"
    );
}

/// Two peers meet in a room through a real signalling server and play 600 ticks over WebRTC
/// data channels: identical confirmed hash logs.
#[test]
fn two_peers_meet_in_a_room_and_agree_on_every_confirmed_tick() {
    let server = signal_server();
    let dir = scratch_dir("webrtc-pair");
    let ticks = 600;
    let (a, b) = (dir.join("a.log"), dir.join("b.log"));
    let room = RoomConfig::new(server.url(), "pair");
    let first = spawn_online(
        room.clone(),
        Role::Player,
        test_config(Default::default()),
        plan(ticks, 11, &a),
    );
    let second = spawn_online(
        room,
        Role::Player,
        test_config(Default::default()),
        plan(ticks, 22, &b),
    );
    let first = join_within(first, "first player").expect("first player's run");
    let second = join_within(second, "second player").expect("second player's run");
    assert_clean("first", &first, ticks);
    assert_clean("second", &second, ticks);
    assert_logs_identical(&[&a, &b], ticks);
}

/// The same with a spectator in the room, and the link conditioner wrapping the WebRTC
/// transport on every side: all three logs identical.
#[test]
fn two_peers_and_a_spectator_in_a_room_agree_through_the_conditioner() {
    let server = signal_server();
    let dir = scratch_dir("webrtc-spectator");
    let ticks = 600;
    let (a, b, s) = (dir.join("a.log"), dir.join("b.log"), dir.join("s.log"));
    let room = RoomConfig::new(server.url(), "watched");
    let mut player_config = test_config(rough_link(1));
    player_config.spectators = 1; // used by whichever player the room makes the host
    let first = spawn_online(
        room.clone(),
        Role::Player,
        player_config.clone(),
        plan(ticks, 11, &a),
    );
    let second = spawn_online(
        room.clone(),
        Role::Player,
        NetConfig::<World> {
            conditioner: rough_link(2),
            ..player_config
        },
        plan(ticks, 22, &b),
    );
    let spectator = spawn_online(
        room,
        Role::Spectator,
        test_config(rough_link(3)),
        plan(ticks, 0, &s),
    );
    let first = join_within(first, "first player").expect("first player's run");
    let second = join_within(second, "second player").expect("second player's run");
    let spectator = join_within(spectator, "spectator").expect("spectator's run");
    assert_clean("first", &first, ticks);
    assert_clean("second", &second, ticks);
    assert_clean("spectator", &spectator, ticks);
    assert!(
        first.rollbacks + second.rollbacks > 0,
        "the conditioner wraps the WebRTC transport (its latency forces rollbacks)"
    );
    assert_logs_identical(&[&a, &b, &s], ticks);
}

/// Two transports in a room, below any session: one settles to host and the other to join it,
/// each lists the other (and only it) as connected, both entered once, and a datagram goes
/// each way between the addresses the room gave them. The signalling server going away does
/// not cut them (a match in progress needs only its peers); a peer whose last partner then
/// leaves learns that its room is lost, and what it sends after that is counted as not sent.
#[test]
fn two_transports_in_a_room_settle_on_each_other_and_carry_datagrams() {
    use client::net::room::RoomPart;
    use client::net::transport::Transport as _;
    use client::net::webrtc::WebRtcTransport;
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::Arc;
    let server = signal_server();
    let room = RoomConfig::new(server.url(), "transports");
    let heard = Arc::new(AtomicUsize::new(0));
    let peers: Vec<_> = (0..2)
        .map(|_| {
            let (room, heard) = (room.clone(), heard.clone());
            std::thread::spawn(move || {
                let mut transport = WebRtcTransport::connect(&room, Role::Player, LIMIT)?;
                let part = transport.settle(LIMIT)?;
                let (me, connected) = (transport.local_addr(), transport.connected());
                // Said until both heard the other (the game channel is unreliable), or the
                // hang guard's half is up.
                let (mut got, deadline) = (None, Instant::now() + LIMIT / 2);
                while heard.load(Ordering::SeqCst) < 2 && Instant::now() < deadline {
                    for &to in &connected {
                        transport.send(&me.to_string().into_bytes(), to);
                    }
                    let mut buf = [0; 64];
                    if let (None, Some((n, from))) = (&got, transport.recv(&mut buf)) {
                        got = Some((String::from_utf8_lossy(&buf[..n]).into_owned(), from));
                        heard.fetch_add(1, Ordering::SeqCst);
                    }
                    std::thread::sleep(Duration::from_millis(5));
                }
                Ok::<_, Error>((part, me, connected, transport.entries(), got, transport))
            })
        })
        .collect();
    let mut ends: Vec<_> = peers
        .into_iter()
        .map(|p| join_within(p, "transport").expect("settled"))
        .collect();
    ends.sort_by_key(|(part, ..)| !matches!(part, RoomPart::Host));
    let [(host_part, host, host_sees, host_entries, host_got, mut host_side), (join_part, joiner, joiner_sees, joiner_entries, joiner_got, mut join_side)] =
        <[_; 2]>::try_from(ends).expect("two ends");
    assert_eq!(host_part, RoomPart::Host);
    assert_eq!(join_part, RoomPart::Join(host));
    assert_ne!(host, joiner);
    assert_eq!(host_sees, vec![joiner]);
    assert_eq!(joiner_sees, vec![host]);
    assert_eq!((host_entries, joiner_entries), (1, 1));
    assert_eq!(host_got, Some((joiner.to_string(), joiner)));
    assert_eq!(joiner_got, Some((host.to_string(), host)));
    // The server closes the websockets as it stops; the data channels carry on.
    drop(server);
    let (mut heard, deadline) = ([false; 2], Instant::now() + LIMIT / 2);
    while heard != [true; 2] && Instant::now() < deadline {
        for (n, (side, to)) in [(&mut host_side, joiner), (&mut join_side, host)]
            .into_iter()
            .enumerate()
        {
            side.send(b"still here", to);
            let mut buf = [0; 64];
            if let Some((len, from)) = side.recv(&mut buf) {
                heard[n] |= (&buf[..len], from) == (&b"still here"[..], to);
            }
        }
        std::thread::sleep(Duration::from_millis(5));
    }
    assert_eq!(
        heard, [true; 2],
        "both still hear the other without the server"
    );
    assert_eq!(host_side.connected(), vec![joiner]);
    // The host leaves: the joiner, with no signalling and no partner left, has lost its room.
    drop(host_side);
    let deadline = Instant::now() + LIMIT / 2;
    while !join_side.connected().is_empty() && Instant::now() < deadline {
        join_side.recv(&mut [0; 64]);
        std::thread::sleep(Duration::from_millis(5));
    }
    let lost = join_side.settle(LIMIT);
    assert!(matches!(lost, Err(Error::RoomLost { .. })), "{lost:?}");
    assert!(join_side.connected().is_empty());
    let before = join_side.send_errors;
    for n in 1..=3 {
        join_side.send(b"after the end", host);
        assert_eq!(join_side.send_errors, before + n);
    }
}

/// With no signalling server listening, entering a room fails at once with an error naming
/// the server, not a hang or a panic.
#[test]
fn a_room_on_a_signalling_server_that_is_down_says_so() {
    // A port nothing listens on: bound, then released.
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .expect("free port")
        .port();
    let room = RoomConfig::new(format!("ws://127.0.0.1:{port}"), "nobody");
    let started = std::thread::spawn(move || {
        NetPeer::<World>::online(&room, Role::Player, &test_config(Default::default())).map(|_| ())
    });
    match join_within(started, "peer of a dead server") {
        Err(e @ Error::SignalUnreachable { .. }) => {
            let text = e.to_string();
            assert!(
                text.contains(&format!("127.0.0.1:{port}")) && text.contains("signalling server"),
                "{text}"
            );
        }
        other => panic!("expected SignalUnreachable, got {other:?}"),
    }
}

/// Bad room names and URLs are refused before anything connects.
#[test]
fn a_malformed_room_or_url_is_refused() {
    for room in [
        RoomConfig::new("ws://127.0.0.1:1", "a/b"),
        RoomConfig::new("http://127.0.0.1:1", "ok"),
    ] {
        match NetPeer::<World>::online(&room, Role::Player, &test_config(Default::default())) {
            Err(Error::Address(_)) => {}
            other => panic!("{room:?}: expected an address error, got {other:?}"),
        }
    }
}

/// A third player entering a room whose match is under way is refused by the host's handshake
/// ("the match is full"), as over UDP; the match itself plays on to the end.
#[test]
fn a_third_player_in_a_full_room_is_refused() {
    let server = signal_server();
    let dir = scratch_dir("webrtc-full");
    let ticks = 120;
    let room = RoomConfig::new(server.url(), "full");
    let (started_tx, started) = std::sync::mpsc::channel();
    let third_done = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let players: Vec<_> = [(11, "a.log"), (22, "b.log")]
        .into_iter()
        .map(|(bot_seed, log)| {
            let (room, started_tx, plan, third_done) = (
                room.clone(),
                started_tx.clone(),
                plan(ticks, bot_seed, &dir.join(log)),
                third_done.clone(),
            );
            std::thread::spawn(move || {
                let peer =
                    NetPeer::<World>::online(&room, Role::Player, &test_config(Default::default()));
                let _ = started_tx.send(());
                let mut peer = peer?;
                // The match is under way: keep exchanging datagrams (answering the third
                // player's `Hello`) until it has been turned away, then play. The joiner
                // plays its first frame meanwhile (a host starts only once it hears input).
                let deadline = Instant::now() + LIMIT;
                while !third_done.load(std::sync::atomic::Ordering::SeqCst)
                    && Instant::now() < deadline
                {
                    if peer.world().tick() == 0 {
                        peer.advance(engine::WireInput::default())?;
                    } else {
                        peer.poll();
                    }
                    std::thread::sleep(Duration::from_millis(2));
                }
                run_net_peer(peer, &plan)
            })
        })
        .collect();
    for _ in 0..2 {
        started
            .recv_timeout(LIMIT)
            .expect("both players entered the room (hang guard)");
    }
    let late = std::thread::spawn(move || {
        NetPeer::<World>::online(&room, Role::Player, &test_config(Default::default())).map(|_| ())
    });
    let late = join_within(late, "third player");
    third_done.store(true, std::sync::atomic::Ordering::SeqCst);
    match late {
        Err(Error::Refused { reason }) => assert!(reason.contains("full"), "{reason}"),
        other => panic!("expected the third player refused, got {other:?}"),
    }
    for (i, player) in players.into_iter().enumerate() {
        let summary = join_within(player, "player").expect("player's run");
        assert_clean(&format!("player {i}"), &summary, ticks);
    }
    assert_logs_identical(&[&dir.join("a.log"), &dir.join("b.log")], ticks);
}

/// Two players with different rules meet in a room: the joiner is refused naming the rule
/// that differs, and the host waits on for a player that agrees, as over UDP.
#[test]
fn a_player_with_other_rules_is_refused_with_the_reason() {
    let server = signal_server();
    let room = RoomConfig::new(server.url(), "rules");
    let config = |block_hp| NetConfig::<World> {
        rules: engine::Rules {
            block_hp,
            ..engine::Rules::default()
        },
        handshake_timeout: Duration::from_secs(6),
        ..test_config(Default::default())
    };
    let default_hp = engine::Rules::default().block_hp;
    let peers: Vec<_> = [default_hp, default_hp + 1]
        .into_iter()
        .map(|hp| {
            let (room, config) = (room.clone(), config(hp));
            std::thread::spawn(move || {
                NetPeer::<World>::online(&room, Role::Player, &config).map(|_| ())
            })
        })
        .collect();
    let results: Vec<_> = peers
        .into_iter()
        .map(|p| join_within(p, "player"))
        .collect();
    let refused: Vec<&String> = results
        .iter()
        .filter_map(|r| match r {
            Err(Error::Refused { reason }) => Some(reason),
            _ => None,
        })
        .collect();
    assert_eq!(
        refused.len(),
        1,
        "exactly the joiner is refused: {results:?}"
    );
    assert!(
        refused[0].contains("rules differ: block_hp"),
        "{}",
        refused[0]
    );
    assert!(
        results
            .iter()
            .any(|r| matches!(r, Err(Error::HandshakeTimeout { .. }))),
        "the host waited on for a player that agrees: {results:?}"
    );
}

/// A peer that vanishes mid-match (its WebRTC socket closed without a word): the survivor
/// reports the disconnect and ends cleanly with its log flushed, as over UDP (`duel-cli` exits
/// with status 3 on this summary).
#[test]
fn the_survivor_of_a_vanished_peer_reports_the_disconnect() {
    let server = signal_server();
    let dir = scratch_dir("webrtc-vanish");
    let log = dir.join("survivor.log");
    let room = RoomConfig::new(server.url(), "vanish");
    let mut config = test_config(Default::default());
    config.disconnect_timeout = Duration::from_millis(1500);
    config.disconnect_notify = Duration::from_millis(300);
    let survivor = spawn_online(
        room.clone(),
        Role::Player,
        config.clone(),
        plan(3600, 1, &log),
    );
    let leaver = std::thread::spawn(move || {
        let mut peer =
            NetPeer::<World>::online(&room, Role::Player, &config).expect("enter the room");
        let mut bot = engine::Bot::new(peer.local_slot().expect("a player") as u8, 5);
        let deadline = Instant::now() + LIMIT;
        while peer.world().tick() < 300 && Instant::now() < deadline {
            peer.poll();
            let input = bot.think(peer.world()).to_wire();
            peer.advance(input).expect("advance");
            std::thread::sleep(Duration::from_millis(16));
        }
        peer.world().tick()
        // Dropped here: the transport closes its WebRTC socket.
    });
    let reached = join_within(leaver, "leaving player");
    assert!(reached >= 300, "the leaver played until tick {reached}");
    let survivor = join_within(survivor, "survivor").expect("the survivor ends cleanly");
    println!("survivor: {survivor}");
    assert!(
        survivor.disconnected.is_some(),
        "the disconnect is reported"
    );
    assert!(!survivor.clean_finish);
    assert_eq!(entries(&log).len() as u32, survivor.ticks, "log flushed");
    assert!(
        survivor.ticks >= 250 && survivor.ticks < 3600,
        "stopped where the match got: {}",
        survivor.ticks
    );
}
