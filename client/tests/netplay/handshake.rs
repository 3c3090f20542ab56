//! The handshake refuses a peer with other rules or another build, saying why (the host keeps
//! waiting for a joiner that agrees), and gives up on a host that never answers; the host's
//! seed and slot assignment decide the match.

use crate::common::*;
use client::net::handshake;
use client::net::socket::Link;
use client::net::transport::UdpTransport;
use client::net::wire::{PeerInfo, Role};
use client::session::netplay::NetPeer;
use client::Error;
use engine::Rules;
use engine::World;
use std::time::Duration;

/// A host that gives up quickly, for tests whose host never gets a joiner it can accept.
fn impatient_host() -> client::session::netplay::NetConfig<World> {
    let mut config = test_config(Default::default());
    config.handshake_timeout = Duration::from_secs(2);
    config
}

#[test]
fn different_rules_are_refused_with_the_reason() {
    let dir = scratch_dir("handshake-rules");
    let (addr, host) = spawn_loopback_host(impatient_host(), plan(60, 1, &dir.join("h.log")));
    let mut config = test_config(Default::default());
    config.rules = Rules {
        block_hp: 5,
        ..Rules::default()
    };
    let joined = NetPeer::<World>::join_on(
        loopback_link(Default::default()),
        addr,
        Role::Player,
        &config,
    );
    let Err(Error::Refused { reason }) = joined else {
        panic!("joiner not refused")
    };
    assert!(
        reason.ends_with("differs from host (host's value first): rules differ: block_hp 3 vs 5"),
        "{reason}"
    );
    let result = host.join().expect("host thread");
    assert!(
        matches!(result, Err(Error::HandshakeTimeout { .. })),
        "the host kept waiting for a joiner that agrees: {result:?}"
    );
}

#[test]
fn another_protocol_or_state_format_is_refused() {
    let dir = scratch_dir("handshake-version");
    let (addr, host) = spawn_loopback_host(impatient_host(), plan(60, 1, &dir.join("h.log")));
    let link = loopback_link(Default::default());
    let mut info = PeerInfo::local::<World>(&Rules::default());
    info.protocol += 1;
    info.state_format += 1;
    let err = handshake::join(
        &link,
        &info,
        addr,
        Role::Player,
        None,
        Duration::from_secs(10),
    )
    .unwrap_err();
    let Error::Refused { reason } = err else {
        panic!("{err}")
    };
    assert!(
        reason.contains("protocol version") && reason.contains("state format"),
        "{reason}"
    );
    assert!(matches!(
        host.join().expect("host thread"),
        Err(Error::HandshakeTimeout { .. })
    ));
}

#[test]
fn a_host_that_never_answers_times_out_with_a_message() {
    // A bound socket that nobody reads: datagrams vanish.
    let silent = UdpTransport::bind("127.0.0.1:0".parse().expect("addr")).expect("bind");
    let addr = client::net::transport::Transport::local_addr(&silent);
    let link = Link::new(UdpTransport::bind("127.0.0.1:0".parse().expect("addr")).expect("bind"));
    let info = PeerInfo::local::<World>(&Rules::default());
    let err = handshake::join(
        &link,
        &info,
        addr,
        Role::Player,
        None,
        Duration::from_millis(600),
    )
    .unwrap_err();
    assert!(matches!(err, Error::HandshakeTimeout { .. }), "{err}");
    assert!(err.to_string().contains(&addr.to_string()));
    drop(silent);
}

/// The host's match seed and slot assignment decide the match: a joiner configured with another
/// seed plays the host's (both worlds start from it) in slot 1, and a second player asking to
/// join is refused with a reason instead of taking a slot.
#[test]
fn the_joiner_plays_the_hosts_seed_in_slot_1_and_a_third_player_is_refused() {
    let dir = scratch_dir("handshake-seed");
    let host_config = test_config(Default::default());
    let (addr, host) = spawn_loopback_host(host_config.clone(), plan(60, 1, &dir.join("h.log")));
    let mut config = test_config(Default::default());
    config.seed = host_config.seed + 1;
    let mut peer = NetPeer::<World>::join_on(
        loopback_link(Default::default()),
        addr,
        Role::Player,
        &config,
    )
    .expect("join");
    let agreement = peer.agreement().clone();
    assert_eq!(agreement.match_seed, host_config.seed, "the host's seed");
    assert_eq!(agreement.local_slot, Some(1), "the joiner's slot");
    assert_eq!(peer.world().state().match_seed, host_config.seed);
    // The host starts the match once the joiner's first input arrives; a third player asking
    // after that is told the match is under way (before, it is left asking).
    let deadline = std::time::Instant::now() + Duration::from_secs(60);
    let mut late: Option<std::thread::JoinHandle<Result<(), Error>>> = None;
    while peer.final_tick() < 60 && std::time::Instant::now() < deadline {
        peer.poll();
        peer.advance(engine::WireInput::default()).expect("advance");
        if peer.final_tick() >= 5 && late.is_none() {
            late = Some(std::thread::spawn(move || {
                NetPeer::<World>::join_on(
                    loopback_link(Default::default()),
                    addr,
                    Role::Player,
                    &test_config(Default::default()),
                )
                .map(|_| ())
            }));
        }
        std::thread::sleep(Duration::from_millis(16));
    }
    // Play the match out so the host finishes cleanly (the deadline only bounds a hang).
    assert!(peer.final_tick() >= 60, "the match was played out");
    let late = late.expect("asked").join().expect("late thread");
    let Err(Error::Refused { reason }) = late else {
        panic!("a third player was not refused: {late:?}")
    };
    assert!(reason.contains("under way"), "{reason}");
    drop(peer);
    let summary = host.join().expect("host thread").expect("host run");
    assert_eq!(summary.ticks, 60);
}

/// Contract: a joiner holding an invite code, at a host that takes none, is refused with words
/// saying so (not a timeout), and the host keeps waiting.
#[test]
fn a_code_at_a_host_without_one_is_refused_saying_so() {
    let dir = scratch_dir("handshake-code-at-open-host");
    let (addr, host) = spawn_loopback_host(impatient_host(), plan(60, 1, &dir.join("h.log")));
    let mut config = test_config(Default::default());
    config.invite = Some(client::net::seal::InviteCode::from_bytes([1; 10]));
    let joined = NetPeer::<World>::join_on(
        loopback_link(Default::default()),
        addr,
        Role::Player,
        &config,
    );
    let Err(Error::Refused { reason }) = joined else {
        panic!("joiner not refused")
    };
    assert!(reason.contains("takes no invite code"), "{reason}");
    assert!(matches!(
        host.join().expect("host thread"),
        Err(Error::HandshakeTimeout { .. })
    ));
}
