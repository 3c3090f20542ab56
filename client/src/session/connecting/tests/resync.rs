//! The joiner's side of a resync fed by hand what a broken or hostile host (one holding the
//! real keys) could send: snapshot parts of another tick, past the last, cut short or too
//! long, a damaged whole, an answer that does not fit. Each is refused with its reason and the
//! joiner's own state is left as it was; the real snapshot is taken whole and play goes on in
//! the next epoch. And the host's side: a joiner whose resume does not fit is refused.

use super::*;
use crate::net::wire::SnapshotOffer;
use crate::session::netplay::transfer;
use crate::session::netplay::{Advance, EpochCause};
use engine::{StateHash, Tick, WireInput};

/// A match played to about `ticks` on the in-memory network, then the joiner following a
/// resync (as if it had seen a desync); the host is not polled again.
fn following(ticks: Tick) -> (NetPeer<World>, NetPeer<World>) {
    let net = MemoryNet::default();
    let (mut hosted, mut joined) = connected_pair(&net, &config(30_000, 5_000, 0));
    let guard = Instant::now() + Duration::from_secs(20);
    let host_input = WireInput {
        move_x: 40,
        ..WireInput::default()
    };
    while joined.final_tick() < ticks {
        assert!(Instant::now() < guard, "the match does not get going");
        let _ = joined.advance(WireInput::default());
        let _ = hosted.advance(host_input);
    }
    // The host, predicting, holds a state at the joiner's last final tick (any state of the
    // host's will do here).
    while hosted.world().tick() < joined.final_tick() {
        assert!(Instant::now() < guard, "the host does not get there");
        let _ = hosted.advance(host_input);
    }
    joined.begin_resync(joined.final_tick(), true);
    (hosted, joined)
}

/// A host and a joiner on `net`, played until the host's final tick reaches `tick`.
fn pair_at(net: &MemoryNet, tick: Tick) -> (NetPeer<World>, NetPeer<World>) {
    let (mut hosted, mut joined) = connected_pair(net, &config(30_000, 5_000, 0));
    let guard = Instant::now() + Duration::from_secs(20);
    while hosted.final_tick() < tick {
        assert!(Instant::now() < guard, "the match does not get going");
        let _ = joined.advance(WireInput::default());
        let _ = hosted.advance(WireInput::default());
    }
    (hosted, joined)
}

/// The host's state at `tick`, as a resync sends it.
fn host_state(hosted: &NetPeer<World>, tick: Tick) -> (Vec<u8>, SnapshotOffer) {
    let snapshot = hosted
        .driver()
        .snapshot_at(tick)
        .expect("the host holds it");
    let bytes = snapshot.to_bytes();
    let hash = hosted.driver().hash_at(tick).expect("hash").combined;
    let offer = transfer::offer(tick, &bytes, hash);
    (bytes, offer)
}

/// Four parts of the snapshot `bytes` of `tick` that do not fit, as `(tick, index, bytes)`:
/// its first part claimed for the next tick, at the index past the last, cut short by a byte,
/// and a byte too long.
pub(super) fn parts_that_do_not_fit(bytes: &[u8], tick: Tick) -> Vec<(Tick, u16, Vec<u8>)> {
    let part = transfer::chunk(bytes, 0).expect("a part").to_vec();
    let last = transfer::parts(bytes.len() as u32) as u16;
    let mut longer = part.clone();
    longer.push(0);
    vec![
        (tick + 1, 0, part.clone()),
        (tick, last, part.clone()),
        (tick, 0, part[..part.len() - 1].to_vec()),
        (tick, 0, longer),
    ]
}

fn host_of(joined: &NetPeer<World>) -> SocketAddr {
    joined.agreement().remote_players[0].1
}

/// What the joiner holds: its last final tick and the hash there.
fn held(joined: &NetPeer<World>) -> (Tick, StateHash) {
    let tick = joined.final_tick();
    (tick, joined.driver().hash_at(tick).expect("hash"))
}

#[test]
fn parts_of_another_tick_past_the_last_cut_short_or_too_long_are_refused_and_nothing_changes() {
    let (hosted, mut joined) = following(90);
    let before = held(&joined);
    let (tick, from) = (before.0, host_of(&joined));
    let (bytes, offer) = host_state(&hosted, tick);
    joined.take_resync_answer(from, 2, tick, Vec::new(), offer);
    for (claimed, index, bytes) in parts_that_do_not_fit(&bytes, tick) {
        joined.take_snapshot_part(from, claimed, index, &bytes);
    }
    assert_eq!(joined.refused_snapshot_parts(), 4);
    // Still waiting for the real part: the match stands, nothing replaced.
    assert_eq!(
        joined.advance(WireInput::default()).ok(),
        Some(Advance::Stalled)
    );
    assert_eq!(held(&joined), before);
    assert!(joined.epochs().is_empty());
}

#[test]
fn a_damaged_whole_is_refused_by_its_checksum_and_the_own_state_is_kept() {
    let (hosted, mut joined) = following(90);
    let before = held(&joined);
    let (tick, from) = (before.0, host_of(&joined));
    let (mut bytes, offer) = host_state(&hosted, tick);
    joined.take_resync_answer(from, 2, tick, Vec::new(), offer);
    let at = bytes.len() / 2;
    bytes[at] ^= 0x10;
    for i in 0..transfer::parts(offer.len) as u16 {
        let part = transfer::chunk(&bytes, i).expect("part").to_vec();
        joined.take_snapshot_part(from, tick, i, &part);
    }
    let e = joined.advance(WireInput::default()).expect_err("refused");
    assert!(
        matches!(&e, Error::ResyncFailed { reason } if reason.contains("not the offered")),
        "{e}"
    );
    assert_eq!(held(&joined), before, "its own state is kept");
    assert!(joined.epochs().is_empty());
}

#[test]
fn an_answer_that_does_not_fit_ends_the_resync_saying_so() {
    for (epoch, gap) in [(1, 0), (2, 2)] {
        let (hosted, mut joined) = following(90);
        let before = held(&joined);
        let (tick, from) = (before.0, host_of(&joined));
        let (_, offer) = host_state(&hosted, tick);
        let gap = vec![WireInput::default(); gap];
        joined.take_resync_answer(from, epoch, tick, gap, offer);
        let e = joined.advance(WireInput::default()).expect_err("refused");
        assert!(e.to_string().contains("does not fit"), "{e}");
        assert_eq!(held(&joined), before);
    }
}

#[test]
fn an_answer_from_anyone_but_the_host_is_not_read() {
    let (hosted, mut joined) = following(90);
    let (tick, _) = held(&joined);
    let (bytes, offer) = host_state(&hosted, tick);
    let stranger = addr(77);
    let forged = SnapshotOffer {
        hash: offer.hash ^ 1,
        ..offer
    };
    joined.take_resync_answer(stranger, 2, tick, Vec::new(), forged);
    joined.take_snapshot_part(stranger, tick, 0, &bytes[..bytes.len().min(2048)]);
    assert_eq!(
        joined.advance(WireInput::default()).ok(),
        Some(Advance::Stalled)
    );
    assert!(joined.epochs().is_empty());
    // The host's own answer is still awaited, and taken.
    let host = host_of(&joined);
    joined.take_resync_answer(host, 2, tick, Vec::new(), offer);
    for i in 0..transfer::parts(offer.len) as u16 {
        let part = transfer::chunk(&bytes, i).expect("part").to_vec();
        joined.take_snapshot_part(host, tick, i, &part);
    }
    joined.advance(WireInput::default()).expect("taken");
    assert_eq!(joined.agreement().epoch, 2);
}

#[test]
fn the_host_state_taken_whole_replaces_the_own_and_the_next_epoch_begins_there() {
    let (hosted, mut joined) = following(90);
    let before = held(&joined);
    let (tick, from) = (before.0, host_of(&joined));
    let (bytes, offer) = host_state(&hosted, tick);
    joined.take_resync_answer(from, 2, tick, Vec::new(), offer);
    for i in 0..transfer::parts(offer.len) as u16 {
        let part = transfer::chunk(&bytes, i).expect("part").to_vec();
        joined.take_snapshot_part(from, tick, i, &part);
    }
    joined.advance(WireInput::default()).expect("taken");
    let change = joined.epochs().last().expect("a new epoch");
    assert_eq!((change.epoch, change.tick), (2, tick));
    assert_eq!(change.hash.combined, offer.hash);
    let EpochCause::<World>::Resync(detail) = &change.cause else {
        panic!("a resync: {:?}", change.cause)
    };
    assert_eq!(
        detail.replaced, before.1,
        "what it replaced is kept for the logs"
    );
    assert_eq!(detail.snapshot, bytes);
    assert_eq!(joined.agreement().epoch, 2);
    assert_eq!(
        joined.driver().hash_at(tick).expect("hash").combined,
        offer.hash
    );
    assert_eq!(
        joined.driver().frame_base(),
        tick,
        "frame 0 of the new session"
    );
}

#[test]
fn a_host_refuses_a_resume_whose_inputs_do_not_fit_and_says_why() {
    let net = MemoryNet::default();
    let (mut hosted, _joined) = pair_at(&net, 60);
    let joiner = hosted.agreement().remote_players[0].1;
    hosted.begin_resync(hosted.final_tick(), false);
    // Three inputs for two players.
    hosted.answer_resync(joiner, hosted.final_tick(), &[WireInput::default(); 3]);
    let e = hosted.advance(WireInput::default()).expect_err("refused");
    assert!(
        matches!(&e, Error::ResyncFailed { reason } if reason.contains("malformed")),
        "{e}"
    );
    assert!(hosted.epochs().is_empty());
}

/// A joiner's resume from further back than the host's history (which a live joiner never
/// is): refused saying so; a resync, unlike a rejoin, sends no state to skip to.
#[test]
fn a_host_refuses_a_resync_resume_from_before_its_history() {
    let net = MemoryNet::default();
    let (mut hosted, _joined) = pair_at(&net, 500);
    let joiner = hosted.agreement().remote_players[0].1;
    assert!(
        hosted.driver().hash_at(1).is_err(),
        "tick 1 is out of the history"
    );
    hosted.begin_resync(hosted.final_tick(), false);
    hosted.answer_resync(joiner, 1, &[]);
    let e = hosted.advance(WireInput::default()).expect_err("refused");
    assert!(
        matches!(&e, Error::ResyncFailed { reason } if reason.contains("further back")),
        "{e}"
    );
    assert!(hosted.epochs().is_empty());
}

/// Plays `hosted` and `joined` until both are in `epoch` and running again.
fn play_into_epoch(hosted: &mut NetPeer<World>, joined: &mut NetPeer<World>, epoch: u32) {
    let guard = Instant::now() + Duration::from_secs(20);
    loop {
        assert!(Instant::now() < guard, "epoch {epoch} never runs on both");
        let _ = hosted.take_events();
        let _ = joined.take_events();
        hosted.advance(WireInput::default()).expect("host advances");
        joined
            .advance(WireInput::default())
            .expect("joiner advances");
        let there = |p: &NetPeer<World>| p.agreement().epoch == epoch && p.running();
        if there(hosted) && there(joined) {
            return;
        }
    }
}

/// A second desync is repaired like the first (a match takes up to `MAX_RESYNCS`): the host
/// leads it afresh, not with its answer to the first, and both go on in epoch 3.
#[test]
fn a_second_desync_is_resynchronized_like_the_first() {
    let net = MemoryNet::default();
    let (mut hosted, mut joined) = connected_pair(&net, &config(30_000, 5_000, 0));
    play_into_epoch(&mut hosted, &mut joined, 1);
    for epoch in [2, 3] {
        let guard = Instant::now() + Duration::from_secs(20);
        while joined.final_tick() < joined.driver().frame_base() + 30 {
            assert!(Instant::now() < guard, "the match does not go on");
            let _ = hosted.advance(WireInput::default());
            let _ = joined.advance(WireInput::default());
        }
        let tick = joined.final_tick();
        joined.begin_resync(tick, false);
        play_into_epoch(&mut hosted, &mut joined, epoch);
    }
    let epochs = |p: &NetPeer<World>| p.epochs().iter().map(|e| e.epoch).collect::<Vec<_>>();
    assert_eq!(epochs(&hosted), vec![2, 3]);
    assert_eq!(epochs(&joined), vec![2, 3]);
}

/// A spectator of the start can hold ticks its host has not simulated yet: GGRS relays every
/// confirmed frame, and the host's own input delay confirms frames past its world. A resync
/// the host leads then resumes no earlier than the last tick relayed (the host steps its old
/// session there first), so the spectator goes on into the new epoch and marks it where the
/// players do, instead of being told an epoch that began behind it.
#[test]
fn a_resync_resumes_no_earlier_than_the_ticks_relayed_to_the_spectators_of_the_start() {
    let net = MemoryNet::default();
    let [mut hosted, mut joined, mut watcher] = connected_trio(&net, &config(30_000, 5_000, 1));
    let guard = Instant::now() + Duration::from_secs(20);
    while hosted.final_tick() < 60 || watcher.world().tick() < 60 {
        assert!(Instant::now() < guard, "the match does not get going");
        let _ = joined.advance(WireInput::default());
        let _ = hosted.advance(WireInput::default());
        let _ = watcher.advance(WireInput::default());
    }
    // The joiner runs a few frames ahead; the host takes one and relays what that confirms.
    for _ in 0..4 {
        let _ = joined.advance(WireInput::default());
    }
    let _ = hosted.advance(WireInput::default());
    for _ in 0..10 {
        let _ = watcher.advance(WireInput::default());
    }
    let ahead = watcher.world().tick();
    assert!(
        ahead > hosted.final_tick(),
        "the spectator holds tick {ahead}, past the host's final {}",
        hosted.final_tick()
    );
    joined.begin_resync(joined.final_tick(), false);
    let in_epoch_2 = |p: &NetPeer<World>| p.agreement().epoch == 2;
    while !(in_epoch_2(&hosted) && hosted.running() && in_epoch_2(&joined) && joined.running())
        || watcher.epochs().is_empty()
    {
        assert!(Instant::now() < guard, "the resync never reaches everyone");
        let _ = hosted.advance(WireInput::default());
        let _ = joined.advance(WireInput::default());
        watcher
            .advance(WireInput::default())
            .expect("the spectator follows");
    }
    let resumed = hosted.epochs()[0].tick;
    assert!(
        resumed >= ahead,
        "resumed at {resumed}, before the spectator's {ahead}"
    );
    let marked: Vec<_> = (watcher.epochs().iter())
        .map(|e| (e.epoch, e.tick))
        .collect();
    assert_eq!(marked, vec![(2, resumed)]);
    assert!(watcher
        .take_events()
        .iter()
        .all(|e| !matches!(e, NetEvent::DesyncDetected { .. })));
}

/// A host leading a resync with no spectator ahead of it holds its old session still: its
/// final tick does not move and nothing is simulated while the joiner's `Resume` is awaited
/// (only a host whose spectators hold later ticks plays on, and only up to them).
#[test]
fn a_host_leading_a_resync_holds_its_old_session_while_no_spectator_is_ahead() {
    let net = MemoryNet::default();
    let (mut hosted, mut joined) = pair_at(&net, 60);
    // The joiner runs ahead (as in the spectators' case), but no spectator watches.
    for _ in 0..4 {
        let _ = joined.advance(WireInput::default());
    }
    let _ = hosted.advance(WireInput::default());
    hosted.begin_resync(hosted.final_tick(), false);
    let (final_tick, world) = (hosted.final_tick(), hosted.world().tick());
    for _ in 0..10 {
        let advanced = hosted.advance(WireInput::default()).expect("held");
        assert_eq!(advanced, Advance::Stalled);
    }
    assert_eq!(
        (hosted.final_tick(), hosted.world().tick()),
        (final_tick, world)
    );
}

/// The host's answer to a resync lost on the way: the joiner's repeated `Resume` gets the
/// same answer again (and the snapshot's parts when it asks), and both go on in epoch 2.
#[test]
fn a_lost_resync_answer_is_sent_again_when_the_joiner_repeats_its_resume() {
    let net = MemoryNet::default();
    let (mut hosted, mut joined) = connected_pair(&net, &config(30_000, 5_000, 0));
    let guard = Instant::now() + Duration::from_secs(20);
    while hosted.final_tick().min(joined.final_tick()) < 60 {
        assert!(Instant::now() < guard, "the match does not get going");
        let _ = joined.advance(WireInput::default());
        let _ = hosted.advance(WireInput::default());
    }
    joined.begin_resync(joined.final_tick(), false);
    while hosted.agreement().epoch < 2 {
        assert!(Instant::now() < guard, "the host never answers");
        let _ = hosted.advance(WireInput::default());
    }
    assert!(
        net.lose_all_to(addr(2)) > 0,
        "the answer went out, and is lost"
    );
    play_into_epoch(&mut hosted, &mut joined, 2);
    assert_eq!(hosted.epochs()[0].tick, joined.epochs()[0].tick);
}

/// The joiner's requests for parts of a resync's snapshot are answered at most once a repeat
/// however often it asks; a request from anyone else, or for another tick, is answered never
/// and holds nothing back (a peer asking all the time cannot keep the joiner waiting).
#[test]
fn requests_for_resync_parts_are_answered_once_a_repeat_and_only_to_the_joiner() {
    let net = MemoryNet::default();
    let (mut hosted, mut joined) = pair_at(&net, 60);
    joined.begin_resync(joined.final_tick(), false);
    let guard = Instant::now() + Duration::from_secs(20);
    while hosted.agreement().epoch < 2 {
        assert!(Instant::now() < guard, "the host never answers");
        let _ = joined.advance(WireInput::default());
        let _ = hosted.advance(WireInput::default());
    }
    let tick = hosted.epochs()[0].tick;
    net.lose_all_to(addr(2));
    hosted.resend_parts(addr(77), tick, &[0]);
    hosted.resend_parts(addr(2), tick + 1, &[0]);
    assert_eq!(net.waiting_for(addr(2)), 0, "answered what it should not");
    let started = Instant::now();
    while started.elapsed() < Duration::from_millis(400) {
        hosted.resend_parts(addr(77), tick, &[0]);
        hosted.resend_parts(addr(2), tick + 1, &[0]);
        hosted.resend_parts(addr(2), tick, &[0]);
        std::thread::sleep(Duration::from_millis(1));
    }
    let sent = net.waiting_for(addr(2));
    let repeats = started.elapsed().as_millis() as usize / 150 + 1;
    assert!(
        (2..=repeats).contains(&sent),
        "{sent} parts sent over {repeats} repeats"
    );
}
