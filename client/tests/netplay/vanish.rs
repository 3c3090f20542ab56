//! A peer that vanishes mid-match: the other side reports the disconnect and ends cleanly,
//! its hash log flushed up to where the match got.

use crate::common::*;
use client::net::wire::Role;
use client::session::netplay::NetPeer;
use engine::Bot;
use engine::World;
use std::time::{Duration, Instant};

#[test]
fn the_survivor_reports_the_disconnect_and_flushes_its_log() {
    let dir = scratch_dir("vanish");
    let h = dir.join("host.log");
    let mut config = test_config(rough_link(1));
    config.disconnect_timeout = Duration::from_millis(1500);
    config.disconnect_notify = Duration::from_millis(300);
    let (addr, host) = spawn_host(
        || loopback_link(rough_link(1)),
        config.clone(),
        plan(3600, 1, &h),
    );
    // The joiner plays about 300 frames by hand, then disappears without a word.
    let joiner = std::thread::spawn(move || {
        let mut peer =
            NetPeer::<World>::join_on(loopback_link(rough_link(2)), addr, Role::Player, &config)
                .expect("join");
        let mut bot = Bot::new(1, 5);
        let deadline = Instant::now() + Duration::from_secs(60);
        while peer.world().tick() < 300 && Instant::now() < deadline {
            peer.poll();
            let input = bot.think(peer.world()).to_wire();
            peer.advance(input).expect("advance");
            std::thread::sleep(Duration::from_millis(16));
        }
        peer.world().tick()
    });
    let reached = joiner.join().expect("joiner thread");
    assert!(reached >= 300);
    let host = host
        .join()
        .expect("host thread")
        .expect("host ends cleanly, not with an error");
    println!("host: {host}");
    assert!(host.disconnected.is_some(), "the disconnect is reported");
    assert!(!host.clean_finish);
    let logged = entries(&h);
    assert_eq!(
        logged.len() as u32,
        host.ticks,
        "every final tick reached is in the flushed log"
    );
    assert!(
        host.ticks >= 250 && host.ticks < 3600,
        "stopped where the match got: {}",
        host.ticks
    );
}
