//! Two peers and a spectator in one process, over loopback UDP through the conditioner; a
//! spectator that falls behind catches up, or says it cannot.

use crate::common::*;
use client::net::wire::Role;
use engine::World;

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

/// A spectator that stops simulating (but keeps receiving) falls behind the host; once more
/// than `max_frames_behind` behind, each advance simulates `catchup_speed` frames until it is
/// back within the limit; and one that falls further behind than the relayed inputs are kept
/// says so (`SpectatorTooFarBehind`) instead of stalling or inventing inputs.
#[test]
fn a_spectator_behind_catches_up_and_says_when_it_cannot() {
    use client::session::netplay::NetPeer;
    use client::Error;
    use engine::WireInput;
    use std::time::{Duration, Instant};

    let dir = scratch_dir("catch-up");
    let mut host_config = test_config(Default::default());
    host_config.spectators = 1;
    let (addr, host) = spawn_loopback_host(host_config, plan(600, 11, &dir.join("host.log")));
    let joiner = spawn_loopback_joiner(
        addr,
        Role::Player,
        test_config(Default::default()),
        plan(600, 22, &dir.join("join.log")),
    );
    let config = test_config(Default::default());
    let mut spectator = NetPeer::<World>::join_on(
        loopback_link(Default::default()),
        addr,
        Role::Spectator,
        &config,
    )
    .expect("spectate");
    // The deadline only turns a hang into a failure; no assertion depends on timing.
    let deadline = Instant::now() + Duration::from_secs(60);
    let bounded = |what: &str| assert!(Instant::now() < deadline, "{what}: still waiting at 60 s");
    let behind = |s: &NetPeer<World>| s.frames_behind_host().expect("a spectator");
    let pause = || std::thread::sleep(Duration::from_millis(5));

    while spectator.world().tick() < 30 {
        bounded("watching the first ticks");
        spectator.poll();
        spectator.advance(WireInput::default()).expect("advance");
        std::thread::sleep(Duration::from_millis(16));
    }
    // Keep receiving without simulating until well past the catch-up threshold.
    while behind(&spectator) < config.max_frames_behind + 10 {
        bounded("falling behind");
        spectator.poll();
        pause();
    }
    let mut catch_up_steps = 0;
    while behind(&spectator) > config.max_frames_behind {
        bounded("catching up");
        let before = spectator.world().tick();
        spectator.advance(WireInput::default()).expect("advance");
        assert_eq!(
            spectator.world().tick() - before,
            config.catchup_speed as u32,
            "{} frames behind: one advance simulates the catch-up speed",
            behind(&spectator)
        );
        catch_up_steps += 1;
    }
    assert!(catch_up_steps >= 5, "caught up in {catch_up_steps} steps");

    // Now fall behind past the inputs the spectator keeps (60 frames).
    while behind(&spectator) < 62 {
        bounded("falling far behind");
        spectator.poll();
        pause();
    }
    let err = spectator.advance(WireInput::default()).unwrap_err();
    assert!(matches!(err, Error::SpectatorTooFarBehind { .. }), "{err}");
    drop(spectator);
    let _ = host.join();
    let _ = joiner.join();
}

/// Issue 17: a spectator that leaves without a word (its process died) is reported gone by
/// GGRS, and the host then finishes cleanly instead of waiting its whole finish timeout for a
/// `Finish` that can never come.
#[test]
fn a_host_does_not_wait_for_the_finish_of_a_spectator_that_left() {
    use client::session::netplay::NetPeer;
    use engine::WireInput;
    use std::time::{Duration, Instant};

    let dir = scratch_dir("spectator-left");
    let mut host_config = test_config(Default::default());
    host_config.spectators = 1;
    // The spectator is noticed gone after 1 s; the finish waits at most 15 s (`plan`).
    host_config.disconnect_timeout = Duration::from_secs(1);
    host_config.disconnect_notify = Duration::from_millis(300);
    let (addr, host) = spawn_loopback_host(host_config, plan(600, 11, &dir.join("host.log")));
    let joiner = spawn_loopback_joiner(
        addr,
        Role::Player,
        test_config(Default::default()),
        plan(600, 22, &dir.join("join.log")),
    );
    let mut spectator = NetPeer::<World>::join_on(
        loopback_link(Default::default()),
        addr,
        Role::Spectator,
        &test_config(Default::default()),
    )
    .expect("spectate");
    let guard = Instant::now() + Duration::from_secs(60);
    while spectator.world().tick() < 60 && Instant::now() < guard {
        let _ = spectator.advance(WireInput::default());
        std::thread::sleep(Duration::from_millis(5));
    }
    drop(spectator); // gone without a Finish
    let host = host.join().expect("host thread").expect("host run");
    let joiner = joiner.join().expect("joiner thread").expect("joiner run");
    assert_eq!((host.ticks, joiner.ticks), (600, 600));
    assert_eq!(host.disconnected, None, "a spectator leaving ends nothing");
    assert!(
        host.clean_finish,
        "the host waited for the spectator: {host}"
    );
}
