//! What a running peer says about itself: the frames it could not advance, its statistics
//! once a second, its socket's counters and how far it runs ahead.

use super::*;
use engine::{Tick, WireInput};

/// Advances `peer` until it says something other than `Synchronizing`; fails after 10 s.
fn advance_past_synchronizing(peer: &mut NetPeer<World>) -> Advance {
    let guard = Instant::now() + Duration::from_secs(10);
    loop {
        match peer.advance(WireInput::default()).expect("advances") {
            Advance::Synchronizing => {}
            other => return other,
        }
        assert!(Instant::now() < guard, "still synchronizing");
        std::thread::sleep(Duration::from_millis(1));
    }
}

/// A player whose partner never advances runs ahead as far as its prediction window lets it,
/// then stalls: each advance that steps no new frame says so (GGRS 0.13 answers with no frame
/// to advance, not an error), leaves the world where it was and is counted as a stall.
#[test]
fn a_player_alone_stalls_at_its_prediction_window_and_counts_each_stall() {
    let net = MemoryNet::default();
    let cfg = config(30_000, 5_000, 0);
    let (mut hosted, mut joined) = connected_pair(&net, &cfg);
    let mut advanced = 0usize;
    let guard = Instant::now() + Duration::from_secs(10);
    while advance_past_synchronizing(&mut hosted) == Advance::Advanced {
        advanced += 1;
        // The partner answers (its session polled) but plays no frame.
        joined.poll();
        assert!(Instant::now() < guard, "never stalls");
    }
    // Its last confirmed tick is the one before its final tick.
    let window = Tick::try_from(cfg.max_prediction).expect("small");
    assert_eq!(hosted.world().tick(), hosted.final_tick() - 1 + window);
    assert!(advanced >= cfg.max_prediction, "{advanced} frames played");
    assert_eq!(hosted.total_stalls(), 1);
    let tick = hosted.world().tick();
    for stalls in 2..=5 {
        joined.poll();
        assert_eq!(advance_past_synchronizing(&mut hosted), Advance::Stalled);
        assert_eq!(hosted.total_stalls(), stalls);
        assert_eq!(hosted.world().tick(), tick, "a stall steps nothing");
    }
    // The partner plays: the first player moves on.
    let guard = Instant::now() + Duration::from_secs(10);
    loop {
        let _ = joined
            .advance(WireInput::default())
            .expect("the partner advances");
        if hosted.advance(WireInput::default()).expect("advances") == Advance::Advanced {
            break;
        }
        assert!(Instant::now() < guard, "never moves on");
    }
    assert!(hosted.world().tick() > tick);
}

/// Once a second has passed, a peer's statistics come with its own ticks, its traffic and its
/// partner's ping, and stay the latest until the next second; its socket's counters hold
/// every datagram it sent and read.
#[test]
fn statistics_come_after_a_second_with_the_peers_ticks_and_traffic() {
    let net = MemoryNet::default();
    let (mut hosted, mut joined) = connected_pair(&net, &config(30_000, 5_000, 0));
    // Each peer's statistics clock started before this.
    let since = Instant::now();
    let guard = since + Duration::from_secs(20);
    while since.elapsed() < Duration::from_millis(1100) || hosted.final_tick() < 10 {
        let _ = joined.advance(WireInput::default()).expect("advances");
        let _ = hosted.advance(WireInput::default()).expect("advances");
        assert!(Instant::now() < guard, "the match does not get going");
        std::thread::sleep(Duration::from_millis(2));
    }
    let stats = hosted.update_stats().expect("a second has passed");
    assert_eq!(stats.predicted_tick, hosted.world().tick());
    assert_eq!(stats.confirmed_tick, hosted.final_tick());
    assert_eq!(stats.frames_ahead, hosted.frames_ahead());
    assert!(stats.ping_ms.is_some(), "{stats:?}");
    assert!(
        stats.bytes_sent_per_sec > 0 && stats.bytes_received_per_sec > 0,
        "{stats:?}"
    );
    assert_eq!(hosted.stats(), &stats);
    for peer in [&hosted, &joined] {
        let counters = peer.socket_counters();
        assert!(
            counters.datagrams_sent > 0 && counters.datagrams_received > 0,
            "{counters:?}"
        );
        assert!(
            counters.bytes_sent >= counters.datagrams_sent,
            "{counters:?}"
        );
    }
}

/// A player that plays twice as often as its partner runs its prediction window ahead of it
/// and says so (its pacing slows it by this); its partner says it is behind, and a spectator
/// is never ahead.
#[test]
fn a_player_run_ahead_of_its_partner_says_so_and_a_spectator_never() {
    let net = MemoryNet::default();
    let [mut hosted, mut joined, mut watching] = connected_trio(&net, &config(30_000, 5_000, 1));
    let guard = Instant::now() + Duration::from_secs(10);
    let mut frame = 0u64;
    while hosted.frames_ahead() <= 0 {
        let _ = hosted.advance(WireInput::default()).expect("advances");
        if frame.is_multiple_of(2) {
            let _ = joined.advance(WireInput::default()).expect("advances");
        }
        let _ = watching.advance(WireInput::default());
        frame += 1;
        assert!(Instant::now() < guard, "the host never says it is ahead");
    }
    assert_eq!(watching.frames_ahead(), 0);
    assert!(joined.frames_ahead() < 0, "{}", joined.frames_ahead());
}
