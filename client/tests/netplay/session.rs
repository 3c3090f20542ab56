//! Two peers and a spectator in one process, over loopback UDP through the conditioner.

use crate::common::*;
use client::wire::Role;

/// 3 600 ticks at ~80 ms RTT, jitter, 5 % loss, duplication and reordering: no desync,
/// identical confirmed hash logs on both players and the spectator.
#[test]
fn two_peers_and_a_spectator_agree_on_every_confirmed_tick_through_a_rough_link() {
    let dir = scratch_dir("session");
    let ticks = 3600;
    let (h, j, s) = (
        dir.join("host.log"),
        dir.join("join.log"),
        dir.join("spectator.log"),
    );
    let mut host_config = test_config(rough_link(1));
    host_config.spectators = 1;
    let (addr, host) = spawn_host(
        || loopback_link(rough_link(1)),
        host_config,
        plan(ticks, 11, &h),
    );
    let joiner = spawn_joiner(
        || loopback_link(rough_link(2)),
        addr,
        Role::Player,
        test_config(rough_link(2)),
        plan(ticks, 22, &j),
    );
    let spectator = spawn_joiner(
        || loopback_link(rough_link(3)),
        addr,
        Role::Spectator,
        test_config(rough_link(3)),
        plan(ticks, 0, &s),
    );
    let host = host.join().expect("host thread").expect("host run");
    let joiner = joiner.join().expect("joiner thread").expect("joiner run");
    let spectator = spectator
        .join()
        .expect("spectator thread")
        .expect("spectator run");
    for (name, summary) in [
        ("host", &host),
        ("joiner", &joiner),
        ("spectator", &spectator),
    ] {
        println!("{name}: {summary}");
        assert_eq!(summary.ticks, ticks, "{name}");
        assert_eq!(summary.desyncs, 0, "{name}");
        assert_eq!(summary.disconnected, None, "{name}");
    }
    assert!(
        host.rollbacks > 0 && joiner.rollbacks > 0,
        "the link forced rollbacks"
    );
    assert_logs_identical(&[&h, &j, &s], ticks);
}
