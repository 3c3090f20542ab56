//! Spectators welcomed by a running host on the in-memory network: one is caught up and
//! follows; relayed inputs that do not fit (not whole ticks, past a gap, from anyone but the
//! host) are not taken, and a relayed hash that differs is a desync; a late `Hello` with other rules, with an invite code the host does
//! not take, or at a host that takes no late spectators is refused saying why.

use super::*;
use crate::net::seal::Initiator;
use crate::net::wire::HostAnswer;
use crate::session::netplay::watch::MAX_RELAY_TICKS;
use engine::{Tick, WireInput};

/// A running pair on `net` and a spectator at port 5 welcomed after `ticks`, caught up.
fn watched(net: &MemoryNet, ticks: u32) -> (NetPeer<World>, NetPeer<World>, NetPeer<World>) {
    watched_with(net, ticks, &config(30_000, 5_000, 0))
}

/// Plays the pair on until the host's final tick reaches `tick`.
fn play_to(hosted: &mut NetPeer<World>, joined: &mut NetPeer<World>, tick: Tick) {
    let guard = Instant::now() + Duration::from_secs(20);
    while hosted.final_tick() < tick {
        assert!(
            Instant::now() < guard,
            "the match does not get to tick {tick}"
        );
        let _ = joined.advance(WireInput::default());
        let _ = hosted.advance(WireInput::default());
    }
}

/// Plays the pair on, `spectator` following, until it reaches `tick`.
fn follow_to(
    hosted: &mut NetPeer<World>,
    joined: &mut NetPeer<World>,
    spectator: &mut NetPeer<World>,
    tick: Tick,
) {
    let guard = Instant::now() + Duration::from_secs(20);
    while spectator.final_tick() < tick {
        assert!(
            Instant::now() < guard,
            "the spectator does not follow to {tick}"
        );
        let _ = joined.advance(WireInput::default());
        let _ = hosted.advance(WireInput::default());
        let _ = spectator.advance(WireInput::default());
    }
}

/// The players stand still (polled, not advancing) until `spectator` reaches `target`;
/// fails saying `stuck` after 20 s.
fn stand_still_until_it_holds(
    hosted: &mut NetPeer<World>,
    joined: &mut NetPeer<World>,
    spectator: &mut NetPeer<World>,
    target: Tick,
    stuck: &str,
) {
    let guard = Instant::now() + Duration::from_secs(20);
    while spectator.world().tick() < target {
        assert!(Instant::now() < guard, "{stuck}");
        hosted.poll();
        joined.poll();
        let _ = spectator.advance(WireInput::default());
        std::thread::sleep(Duration::from_millis(5));
    }
}

/// [`watched`] with every side on `cfg`.
fn watched_with(
    net: &MemoryNet,
    ticks: u32,
    cfg: &NetConfig<World>,
) -> (NetPeer<World>, NetPeer<World>, NetPeer<World>) {
    let cfg = cfg.clone();
    let (mut hosted, mut joined) = connected_pair(net, &cfg);
    play_to(&mut hosted, &mut joined, ticks);
    let mut watching = joiner(net, 5, Role::Spectator, &cfg);
    let spectator = caught_up(&mut hosted, &mut joined, &mut watching);
    (hosted, joined, spectator)
}

/// Plays the pair on until the spectator `watching` is caught up; fails after 20 s.
fn caught_up(
    hosted: &mut NetPeer<World>,
    joined: &mut NetPeer<World>,
    watching: &mut Connecting<World>,
) -> NetPeer<World> {
    let guard = Instant::now() + Duration::from_secs(20);
    loop {
        assert!(Instant::now() < guard, "the spectator is never caught up");
        let _ = joined.advance(WireInput::default());
        let _ = hosted.advance(WireInput::default());
        if let Some(peer) = watching.poll().expect("welcomed") {
            return peer;
        }
        std::thread::sleep(Duration::from_millis(1));
    }
}

#[test]
fn a_spectator_welcomed_mid_match_starts_from_the_host_state_and_follows() {
    let net = MemoryNet::default();
    let (mut hosted, mut joined, mut spectator) = watched(&net, 60);
    let from = spectator.driver().frame_base();
    assert!(from >= 60, "caught up at tick {from}");
    assert_eq!(hosted.late_spectators(), 1);
    assert_eq!(
        spectator.world().state_hash(),
        hosted.driver().hash_at(from).expect("the host's hash"),
        "the state it was sent is the host's final state"
    );
    follow_to(&mut hosted, &mut joined, &mut spectator, from + 120);
    let t = spectator.final_tick();
    assert_eq!(
        spectator.driver().hash_at(t).ok(),
        hosted.driver().hash_at(t).ok()
    );
    assert!(spectator
        .take_events()
        .iter()
        .all(|e| !matches!(e, NetEvent::DesyncDetected { .. })));
}

#[test]
fn relayed_inputs_that_do_not_fit_are_not_taken() {
    let net = MemoryNet::default();
    let (hosted, _joined, mut spectator) = watched(&net, 60);
    let host = addr(1);
    let next = spectator.world().tick() + 1;
    let held = || spectator_queue(&spectator);
    let before = held();
    let tick = vec![WireInput::default(); 2];
    // Not whole ticks (half of one, one and a half); past a gap; from a stranger; nothing
    // new; more ticks than a relay ever carries.
    spectator.take_relay(host, next, &tick[..1], 0);
    spectator.take_relay(host, next, &[tick.clone(), tick[..1].to_vec()].concat(), 0);
    spectator.take_relay(host, next + 5, &tick, 0);
    spectator.take_relay(addr(77), next, &tick, 0);
    spectator.take_relay(host, next - 1, &tick, 0);
    let too_many = vec![WireInput::default(); 2 * (MAX_RELAY_TICKS + 1)];
    spectator.take_relay(host, next, &too_many, 0);
    assert_eq!(spectator_queue(&spectator), before);
    // What fits is taken; a hash that is not the state reached there is a desync, for each
    // relay taken (the second taken before the first is stepped).
    spectator.take_relay(host, next, &tick, 0);
    spectator.take_relay(host, next + 1, &tick, 0);
    assert_eq!(spectator_queue(&spectator), before + 2);
    drop(hosted);
    let _ = spectator.take_events();
    spectator.advance(WireInput::default()).expect("steps");
    spectator.advance(WireInput::default()).expect("steps");
    let desyncs: Vec<_> = (spectator.take_events().into_iter())
        .filter_map(|e| match e {
            NetEvent::DesyncDetected { tick, remote, .. } => Some((tick, remote)),
            _ => None,
        })
        .collect();
    assert_eq!(desyncs, vec![(next, 0), (next + 1, 0)]);
}

fn spectator_queue(spectator: &NetPeer<World>) -> usize {
    spectator.frames_behind_host().expect("a spectator")
}

/// A late spectator's `Hello` with `info` (and an invite flag) at a running host: what it is
/// answered, opened where it is sealed for it, and how many the host counts refused.
fn late_hello(cfg: &NetConfig<World>, info: PeerInfo, invite: bool) -> (Vec<String>, u64) {
    let net = MemoryNet::default();
    let (mut hosted, mut joined) = connected_pair(&net, cfg);
    play_to(&mut hosted, &mut joined, 30);
    let mut at = net.endpoint(9);
    let prologue = wire::hello_prologue(&info, Role::Spectator, invite);
    let code = crate::net::seal::InviteCode::from_bytes([3; crate::net::seal::InviteCode::BYTES]);
    let mut initiator = Initiator::new(&prologue, invite.then_some(&code)).expect("initiator");
    let hello = Control::Hello {
        info,
        role: Role::Spectator,
        invite,
        noise: initiator.message().to_vec(),
    };
    at.send(&wire::encode(Kind::Control, 0, &hello), addr(1));
    let _ = hosted.advance(WireInput::default());
    let said = control_at(&mut at)
        .into_iter()
        .map(|m| match m {
            Control::Reject { reason } => reason,
            Control::Answer { noise } => match initiator
                .read_answer(&noise)
                .map(|p| wire::decode::<HostAnswer>(&p))
            {
                Ok(Ok(HostAnswer::Reject { reason })) => reason,
                Ok(Ok(HostAnswer::Welcome { .. })) => "welcome".into(),
                other => format!("{other:?}"),
            },
            other => format!("{other:?}"),
        })
        .collect();
    (said, hosted.refused_late_spectators())
}

#[test]
fn a_late_hello_with_other_rules_an_unwanted_code_or_at_a_host_taking_none_is_refused() {
    let cfg = config(30_000, 5_000, 0);
    let mut other = engine::Rules::default();
    other.max_hp += 1;
    let (said, refused) = late_hello(&cfg, PeerInfo::local::<World>(&other), false);
    assert!(
        said.iter().any(|r| r.contains("differs from host")),
        "{said:?}"
    );
    assert_eq!(refused, 1);
    let (said, refused) = late_hello(
        &cfg,
        PeerInfo::local::<World>(&engine::Rules::default()),
        true,
    );
    assert!(
        said.iter().any(|r| r.contains("takes no invite code")),
        "{said:?}"
    );
    assert_eq!(refused, 1);
    let none = NetConfig::<World> {
        late_spectators: 0,
        ..cfg.clone()
    };
    let (said, _) = late_hello(
        &none,
        PeerInfo::local::<World>(&engine::Rules::default()),
        false,
    );
    assert!(said.iter().any(|r| r.contains("under way")), "{said:?}");
    let (said, refused) = late_hello(
        &cfg,
        PeerInfo::local::<World>(&engine::Rules::default()),
        false,
    );
    assert_eq!(
        said,
        vec!["welcome".to_string()],
        "and the right one is welcomed"
    );
    assert_eq!(refused, 0);
    // At a host with an invite code (the test's spectator holds code 3): none, a wrong one,
    // the right one.
    let with_code = |c: u8| NetConfig::<World> {
        invite: Some(crate::net::seal::InviteCode::from_bytes(
            [c; crate::net::seal::InviteCode::BYTES],
        )),
        ..cfg.clone()
    };
    let ours = PeerInfo::local::<World>(&engine::Rules::default());
    for (cfg, invite, says, refused_now) in [
        (with_code(3), false, "needs its invite code", 1),
        (with_code(4), true, "does not match", 1),
        (with_code(3), true, "welcome", 0),
    ] {
        let (said, refused) = late_hello(&cfg, ours.clone(), invite);
        assert!(said.iter().any(|r| r.contains(says)), "{said:?}");
        assert_eq!(refused, refused_now, "{said:?}");
    }
}

/// A `Hello` from an address that never proves it holds its keys (a spoofed source) gets the
/// handshake's answer and nothing else: no snapshot, no relay; and it is forgotten.
#[test]
fn a_spectator_that_never_proves_its_keys_is_sent_nothing_but_the_answer_and_forgotten() {
    let net = MemoryNet::default();
    let cfg = config(30_000, 5_000, 0);
    let (mut hosted, mut joined) = connected_pair(&net, &cfg);
    let guard = Instant::now() + Duration::from_secs(30);
    play_to(&mut hosted, &mut joined, 30);
    let mut spoofed = stranger_hello(&net, 9, 1, Role::Spectator);
    let _ = hosted.advance(WireInput::default());
    assert_eq!(hosted.late_spectators(), 1, "welcomed");
    while hosted.late_spectators() > 0 {
        assert!(Instant::now() < guard, "never forgotten");
        let _ = joined.advance(WireInput::default());
        let _ = hosted.advance(WireInput::default());
        std::thread::sleep(Duration::from_millis(5));
    }
    let mut buf = vec![0; MAX_DATAGRAM];
    let (mut all, mut clear) = (0, 0);
    while let Some((n, _)) = spoofed.recv(&mut buf) {
        all += 1;
        clear += usize::from(wire::open(&buf[..n]).is_ok());
    }
    assert_eq!((all, clear), (1, 1), "only the handshake's answer");
}

/// A spectator that leaves (its process closed) watches again the same way, from a new
/// process: welcomed beside the one the host still holds, caught up from the host's state of
/// the moment, following.
#[test]
fn a_spectator_that_left_watches_again_and_follows() {
    let net = MemoryNet::default();
    let (mut hosted, mut joined, first) = watched(&net, 60);
    let left_at = first.final_tick();
    drop(first);
    let cfg = config(30_000, 5_000, 0);
    let mut again = joiner(&net, 6, Role::Spectator, &cfg);
    let guard = Instant::now() + Duration::from_secs(20);
    let mut back = loop {
        assert!(Instant::now() < guard, "never caught up again");
        let _ = joined.advance(WireInput::default());
        let _ = hosted.advance(WireInput::default());
        if let Some(peer) = again.poll().expect("welcomed again") {
            break peer;
        }
        std::thread::sleep(Duration::from_millis(1));
    };
    let from = back.driver().frame_base();
    assert!(
        from >= left_at,
        "caught up from the host's state of the moment: {from}"
    );
    while back.final_tick() < from + 60 {
        assert!(Instant::now() < guard, "does not follow");
        let _ = joined.advance(WireInput::default());
        let _ = hosted.advance(WireInput::default());
        let _ = back.advance(WireInput::default());
    }
    let t = back.final_tick();
    assert_eq!(
        back.driver().hash_at(t).ok(),
        hosted.driver().hash_at(t).ok()
    );
}

/// A new epoch told to a spectator already following: only the host's notice of a later
/// epoch counts (a stranger's, or one of the epoch it is in, moves nothing); an epoch that
/// would begin before the spectator's own tick is refused saying so; one ahead is marked
/// once the spectator's world reaches it, after comparing its state there with the host's.
#[test]
fn a_new_epoch_is_taken_only_from_the_host_and_marked_where_it_begins() {
    use crate::net::wire::SnapshotOffer;
    let net = MemoryNet::default();
    let (mut hosted, mut joined, mut spectator) = watched(&net, 60);
    let guard = Instant::now() + Duration::from_secs(20);
    follow_to(&mut hosted, &mut joined, &mut spectator, 100);
    let own = spectator.world().tick();
    let offer = |tick: u32, hash: u64| SnapshotOffer {
        tick,
        len: 1,
        checksum: 0,
        hash,
    };
    let epoch = spectator.agreement().epoch;
    // A stranger's notice, and the host's of the epoch it is in: nothing.
    spectator.take_catch_up(addr(77), epoch + 1, offer(own + 5, 0));
    spectator.take_catch_up(addr(1), epoch, offer(own + 5, 0));
    assert_eq!(spectator.agreement().epoch, epoch);
    while spectator.world().tick() < own + 10 {
        assert!(Instant::now() < guard, "the spectator does not follow");
        let _ = joined.advance(WireInput::default());
        let _ = hosted.advance(WireInput::default());
        let _ = spectator.advance(WireInput::default());
    }
    assert!(spectator.epochs().is_empty(), "nothing marked");
    assert!(spectator
        .take_events()
        .iter()
        .all(|e| !matches!(e, NetEvent::DesyncDetected { .. })));
    let own = spectator.world().tick();
    // The host's of a later epoch from a tick ahead: marked there, with the host's hash.
    let at = own + 20;
    play_to(&mut hosted, &mut joined, at);
    let hash = hosted.driver().hash_at(at).expect("held").combined;
    spectator.take_catch_up(addr(1), epoch + 1, offer(at, hash));
    assert_eq!(spectator.agreement().epoch, epoch + 1);
    assert!(spectator.epochs().is_empty(), "not there yet");
    while spectator.world().tick() < at {
        assert!(Instant::now() < guard, "the spectator does not follow");
        let _ = joined.advance(WireInput::default());
        let _ = hosted.advance(WireInput::default());
        let _ = spectator.advance(WireInput::default());
    }
    assert_eq!(
        spectator.world().tick(),
        at,
        "one tick a frame, following live"
    );
    assert_eq!(spectator.epochs().len(), 1, "marked at its tick");
    while spectator.world().tick() < at + 5 {
        assert!(Instant::now() < guard, "the spectator does not follow");
        let _ = joined.advance(WireInput::default());
        let _ = hosted.advance(WireInput::default());
        let _ = spectator.advance(WireInput::default());
    }
    let marked: Vec<_> = spectator
        .epochs()
        .iter()
        .map(|e| (e.epoch, e.tick))
        .collect();
    assert_eq!(marked, vec![(epoch + 1, at)]);
    assert!(spectator
        .take_events()
        .iter()
        .all(|e| !matches!(e, NetEvent::DesyncDetected { .. })));
    // One from its own tick is marked at once.
    let now = spectator.world().tick();
    let here = spectator.driver().hash_at(now).expect("held").combined;
    spectator.take_catch_up(addr(1), epoch + 2, offer(now, here));
    let last = spectator.epochs().last().map(|e| (e.epoch, e.tick));
    assert_eq!(last, Some((epoch + 2, now)));
    // One before its own tick cannot be followed: said, not ignored.
    spectator.take_catch_up(addr(1), epoch + 3, offer(at, hash));
    let err = spectator.advance(WireInput::default()).unwrap_err();
    assert!(
        err.to_string().contains("before this spectator's tick"),
        "{err}"
    );
}

/// Relayed ticks lost on the way are sent again after a while even when no tick is new (the
/// match stands still: nobody advances, everyone polls), so the spectator gets there.
#[test]
fn a_lost_relay_is_sent_again_while_the_match_stands_still() {
    let net = MemoryNet::default();
    let (mut hosted, mut joined, mut spectator) = watched(&net, 60);
    let guard = Instant::now() + Duration::from_secs(20);
    follow_to(&mut hosted, &mut joined, &mut spectator, 80);
    // New ticks relayed while the spectator is not reading, and all of them lost: more than
    // one relay carries, so they come again in several.
    let relayed_from = hosted.final_tick();
    play_to(
        &mut hosted,
        &mut joined,
        relayed_from + MAX_RELAY_TICKS as Tick + 10,
    );
    hosted.poll();
    assert!(
        net.lose_all_to(addr(5)) > 0,
        "something was relayed and lost"
    );
    let target = hosted.final_tick();
    let (started, mut received) = (Instant::now(), 0);
    while spectator.world().tick() < target {
        assert!(
            Instant::now() < guard,
            "the lost ticks are never sent again: the spectator stays at {} of {target}",
            spectator.world().tick()
        );
        // The host polls more often than the spectator reads.
        for _ in 0..4 {
            hosted.poll();
        }
        joined.poll();
        received += net.waiting_for(addr(5));
        let _ = spectator.advance(WireInput::default());
        std::thread::sleep(Duration::from_millis(5));
    }
    // Sent again at the relay's pace (150 ms), not at every poll: one relay a repeat.
    let repeats = started.elapsed().as_millis() as usize / 150 + 1;
    assert!(
        received <= repeats + 1,
        "{received} datagrams over {repeats} repeats"
    );
    assert_eq!(hosted.final_tick(), target, "the match stood still");
    assert_eq!(
        spectator.driver().hash_at(target).ok(),
        hosted.driver().hash_at(target).ok()
    );
    // One tick more, then standing still again: that one tick reaches it too.
    while hosted.final_tick() == target {
        assert!(Instant::now() < guard, "the match does not go on");
        let _ = joined.advance(WireInput::default());
        let _ = hosted.advance(WireInput::default());
    }
    let target = hosted.final_tick();
    stand_still_until_it_holds(
        &mut hosted,
        &mut joined,
        &mut spectator,
        target,
        "the last tick never reaches the spectator",
    );
}

/// A late spectator that goes silent (its machine gone, no goodbye: it is kept but never
/// polled again) is forgotten by the host after the reconnect grace, and the match goes on.
#[test]
fn a_late_spectator_silent_for_the_grace_is_forgotten() {
    let net = MemoryNet::default();
    let cfg = NetConfig::<World> {
        disconnect_timeout: Duration::from_millis(1_000),
        ..config(30_000, 5_000, 0)
    };
    let (mut hosted, mut joined, _silent) = watched_with(&net, 60, &cfg);
    assert_eq!(hosted.late_spectators(), 1);
    let guard = Instant::now() + Duration::from_secs(20);
    // The players stand still (polled, not advancing), so the spectator never falls behind
    // the host's history: only its silence can lose it.
    let held = hosted.final_tick();
    while hosted.late_spectators() > 0 {
        assert!(
            Instant::now() < guard,
            "a silent spectator is never forgotten"
        );
        hosted.poll();
        joined.poll();
        std::thread::sleep(Duration::from_millis(5));
    }
    assert_eq!(hosted.final_tick(), held);
    joined
        .advance(WireInput::default())
        .expect("the match goes on");
    hosted
        .advance(WireInput::default())
        .expect("the match goes on");
}

/// [`watched`], played on to tick 90, the players then standing still until the spectator
/// holds their final tick.
fn watched_level_at_90(net: &MemoryNet) -> (NetPeer<World>, NetPeer<World>, NetPeer<World>) {
    let (mut hosted, mut joined, mut spectator) = watched(net, 60);
    let guard = Instant::now() + Duration::from_secs(30);
    while spectator.world().tick() < 90 || spectator.world().tick() < hosted.final_tick() {
        assert!(Instant::now() < guard, "the spectator does not follow");
        if spectator.world().tick() < 90 {
            let _ = joined.advance(WireInput::default());
            let _ = hosted.advance(WireInput::default());
        }
        let _ = spectator.advance(WireInput::default());
        std::thread::sleep(Duration::from_millis(1));
    }
    (hosted, joined, spectator)
}

/// A late spectator following live when the players resync is told the new epoch, again if
/// the notice is lost, and marks it where the players resumed; the notice is repeated at the
/// relay's pace, not at every poll, and once the spectator holds the epoch's first tick the
/// host sends it nothing more while nothing is new.
#[test]
fn a_late_spectator_is_told_a_new_epoch_again_if_lost_and_then_left_in_peace() {
    let net = MemoryNet::default();
    let (mut hosted, mut joined, mut spectator) = watched_level_at_90(&net);
    let guard = Instant::now() + Duration::from_secs(30);
    joined.begin_resync(joined.final_tick(), false);
    let in_epoch_2 = |p: &NetPeer<World>| p.agreement().epoch == 2 && p.running();
    while !(in_epoch_2(&hosted) && in_epoch_2(&joined)) {
        assert!(Instant::now() < guard, "the resync never ends");
        let _ = hosted.advance(WireInput::default());
        let _ = joined.advance(WireInput::default());
    }
    let resumed = hosted.epochs()[0].tick;
    hosted.poll();
    assert!(
        net.lose_all_to(addr(5)) > 0,
        "the first notice went out, and is lost"
    );
    // The players stand still; the spectator reads what comes, counted.
    let (mut polls, mut received) = (0usize, 0usize);
    let started = Instant::now();
    while spectator.epochs().is_empty() {
        assert!(Instant::now() < guard, "the new epoch is never told again");
        hosted.poll();
        joined.poll();
        received += net.waiting_for(addr(5));
        spectator.advance(WireInput::default()).expect("follows");
        polls += 1;
        std::thread::sleep(Duration::from_millis(1));
    }
    let marked: Vec<_> = (spectator.epochs().iter())
        .map(|e| (e.epoch, e.tick))
        .collect();
    assert_eq!(marked, vec![(2, resumed)]);
    assert_eq!(
        spectator.driver().hash_at(resumed).ok(),
        hosted.driver().hash_at(resumed).ok()
    );
    // At the relay's pace: a few datagrams a repeat (150 ms), never one a poll.
    let repeats = started.elapsed().as_millis() as usize / 150 + 1;
    assert!(
        received <= 3 * repeats + 2,
        "{received} datagrams in {polls} polls over {repeats} repeats"
    );
    // Every tick acknowledged and nothing new: nothing more is sent to it.
    let settle = Instant::now() + Duration::from_millis(500);
    while Instant::now() < settle {
        hosted.poll();
        joined.poll();
        let _ = spectator.advance(WireInput::default());
        std::thread::sleep(Duration::from_millis(1));
    }
    let quiet = Instant::now() + Duration::from_millis(450);
    while Instant::now() < quiet {
        hosted.poll();
        joined.poll();
        std::thread::sleep(Duration::from_millis(1));
    }
    assert_eq!(
        net.waiting_for(addr(5)),
        0,
        "sent again although it holds all"
    );
}

/// A late spectator that already holds the new epoch's first tick when the players resync
/// still marks the epoch when the one notice sent is lost: holding the tick is not hearing of
/// the epoch, so the notice is repeated until its acknowledgement names the epoch.
#[test]
fn a_lost_epoch_notice_is_repeated_to_a_spectator_already_holding_its_tick() {
    let net = MemoryNet::default();
    let (mut hosted, mut joined, mut spectator) = watched_level_at_90(&net);
    let guard = Instant::now() + Duration::from_secs(30);
    // The spectator follows throughout the resync, acknowledging each tick relayed, and the
    // host's first notice of epoch 2 is lost.
    joined.begin_resync(joined.final_tick(), false);
    while hosted.agreement().epoch < 2 {
        assert!(Instant::now() < guard, "the resync never ends");
        let _ = joined.advance(WireInput::default());
        let _ = spectator.advance(WireInput::default());
        std::thread::sleep(Duration::from_millis(1));
        let _ = hosted.advance(WireInput::default());
    }
    let resumed = hosted.epochs()[0].tick;
    // The host's relay of the frame it resumed in: the notice, then the epoch's first tick.
    // The notice is lost; the tick arrives.
    assert!(net.lose_first_to(addr(5)), "the notice went out");
    spectator.poll();
    let held = spectator.world().tick() + spectator_queue(&spectator) as Tick;
    assert_eq!(held, resumed, "holds the epoch's first tick");
    assert_eq!(spectator.agreement().epoch, 1, "not told of epoch 2");
    // The players stand still; the host polls more often than the spectator reads.
    let (started, mut received) = (Instant::now(), 0);
    while spectator.epochs().is_empty() {
        assert!(
            Instant::now() < guard,
            "never marks the epoch: the notice was not told again"
        );
        for _ in 0..8 {
            hosted.poll();
        }
        joined.poll();
        received += net.waiting_for(addr(5));
        spectator.advance(WireInput::default()).expect("follows");
        std::thread::sleep(Duration::from_millis(1));
    }
    // At the relay's pace: the notice each repeat (and the tick once more, if its
    // acknowledgement came late), not at every poll.
    let repeats = started.elapsed().as_millis() as usize / 150 + 1;
    assert!(
        received <= repeats + 2,
        "{received} datagrams over {repeats} repeats"
    );
    let marked: Vec<_> = (spectator.epochs().iter())
        .map(|e| (e.epoch, e.tick))
        .collect();
    assert_eq!(marked, vec![(2, resumed)]);
    assert_eq!(spectator.agreement().epoch, 2);
    assert!(spectator
        .take_events()
        .iter()
        .all(|e| !matches!(e, NetEvent::DesyncDetected { .. })));
}

/// A spectator welcomed just before the players resync, whose snapshot is sent only after
/// (it proves its keys late), starts in the epoch of that snapshot, not the host's new one,
/// and so hears of the new epoch and marks it where the players resumed.
#[test]
fn a_spectator_welcomed_before_a_resync_and_caught_up_after_it_marks_the_new_epoch() {
    let net = MemoryNet::default();
    let cfg = config(30_000, 5_000, 0);
    let (mut hosted, mut joined) = connected_pair(&net, &cfg);
    let guard = Instant::now() + Duration::from_secs(30);
    play_to(&mut hosted, &mut joined, 60);
    let mut watching = joiner(&net, 5, Role::Spectator, &cfg);
    // Its `Hello` reaches the host and is welcomed; the answer waits unread.
    while hosted.late_spectators() == 0 {
        assert!(Instant::now() < guard, "never welcomed");
        assert!(watching.poll().expect("joining").is_none());
        let _ = joined.advance(WireInput::default());
        let _ = hosted.advance(WireInput::default());
    }
    let welcomed_at = hosted.final_tick();
    joined.begin_resync(joined.final_tick(), false);
    let in_epoch_2 = |p: &NetPeer<World>| p.agreement().epoch == 2 && p.running();
    while !(in_epoch_2(&hosted) && in_epoch_2(&joined)) {
        assert!(Instant::now() < guard, "the resync never ends");
        let _ = hosted.advance(WireInput::default());
        let _ = joined.advance(WireInput::default());
    }
    let resumed = hosted.epochs()[0].tick;
    assert!(resumed >= welcomed_at);
    let mut spectator = loop {
        assert!(Instant::now() < guard, "the spectator is never caught up");
        hosted.poll();
        joined.poll();
        if let Some(peer) = watching.poll().expect("welcomed") {
            break peer;
        }
        std::thread::sleep(Duration::from_millis(1));
    };
    assert_eq!(spectator.world().tick(), welcomed_at, "from its snapshot");
    assert_eq!(spectator.agreement().epoch, 1, "the snapshot's epoch");
    while spectator.world().tick() < resumed + 5 {
        assert!(
            Instant::now() < guard,
            "the spectator does not follow: at {} epoch {} resumed {resumed} host {}",
            spectator.world().tick(),
            spectator.agreement().epoch,
            hosted.final_tick()
        );
        let _ = joined.advance(WireInput::default());
        let _ = hosted.advance(WireInput::default());
        let _ = spectator.advance(WireInput::default());
        std::thread::sleep(Duration::from_millis(1));
    }
    let marked: Vec<_> = (spectator.epochs().iter())
        .map(|e| (e.epoch, e.tick))
        .collect();
    assert_eq!(marked, vec![(2, resumed)]);
    assert_eq!(
        spectator.driver().hash_at(resumed).ok(),
        hosted.driver().hash_at(resumed).ok()
    );
}

/// A running pair and a spectator at port 5 welcomed, that has read the host's answer (and so
/// proved its keys) and then reads nothing more; the host's final tick when it welcomed it,
/// and the spectator's side.
fn proven_and_unread(net: &MemoryNet) -> (NetPeer<World>, NetPeer<World>, Tick, Connecting<World>) {
    let cfg = config(30_000, 5_000, 0);
    let (mut hosted, mut joined) = connected_pair(net, &cfg);
    let guard = Instant::now() + Duration::from_secs(20);
    play_to(&mut hosted, &mut joined, 30);
    let mut watching = joiner(net, 5, Role::Spectator, &cfg);
    while hosted.late_spectators() == 0 {
        assert!(Instant::now() < guard, "never welcomed");
        assert!(watching.poll().expect("joining").is_none());
        let _ = joined.advance(WireInput::default());
        let _ = hosted.advance(WireInput::default());
    }
    let welcomed_at = hosted.final_tick();
    assert!(watching.poll().expect("joining").is_none());
    (hosted, joined, welcomed_at, watching)
}

/// A welcomed spectator that proved its keys and then reads nothing (its snapshot lost, or
/// slow) is offered the snapshot again at the relay's pace, not with every new tick; an
/// acknowledgement from it of a tick before its snapshot is not taken as its own state (only
/// a spectator carried into a new epoch has one).
#[test]
fn an_untaken_snapshot_is_offered_again_at_the_relays_pace() {
    let net = MemoryNet::default();
    let (mut hosted, mut joined, ..) = proven_and_unread(&net);
    hosted.take_relay_ack(addr(5), 1, 1);
    let started = Instant::now();
    while started.elapsed() < Duration::from_millis(400) {
        let _ = joined.advance(WireInput::default());
        let _ = hosted.advance(WireInput::default());
        std::thread::sleep(Duration::from_millis(1));
    }
    let sent = net.waiting_for(addr(5));
    let repeats = started.elapsed().as_millis() as usize / 150 + 1;
    // The offer and its parts (one here) once, then the offer alone each repeat.
    assert!(sent >= 2, "the snapshot was offered: {sent}");
    assert!(
        sent <= repeats + 2,
        "{sent} datagrams over {repeats} repeats"
    );
}

/// A spectator's requests for parts of its snapshot are answered at most once a repeat
/// however often it asks, and never for a snapshot of another tick.
#[test]
fn requests_for_snapshot_parts_are_answered_at_most_once_a_repeat() {
    let net = MemoryNet::default();
    let (mut hosted, mut joined, welcomed_at, _) = proven_and_unread(&net);
    let started = Instant::now();
    while started.elapsed() < Duration::from_millis(400) {
        let _ = joined.advance(WireInput::default());
        let _ = hosted.advance(WireInput::default());
        // Its snapshot is of a tick no later than the one it was welcomed at.
        for tick in welcomed_at.saturating_sub(10)..=welcomed_at {
            hosted.resend_catch_up(addr(5), tick, &[0]);
        }
        std::thread::sleep(Duration::from_millis(1));
    }
    let sent = net.waiting_for(addr(5));
    let repeats = started.elapsed().as_millis() as usize / 150 + 1;
    // The offer each repeat (the parts with the first), and the part asked for each repeat.
    assert!(sent >= 3, "a part was sent again: {sent}");
    assert!(
        sent <= 2 * repeats + 2,
        "{sent} datagrams over {repeats} repeats"
    );
}

/// An acknowledgement of ticks never sent (a broken or lying spectator) moves nothing: what
/// was lost on the way is still sent again, and the spectator gets there.
#[test]
fn an_acknowledgement_of_ticks_never_sent_moves_nothing() {
    let net = MemoryNet::default();
    let (mut hosted, mut joined, mut spectator) = watched(&net, 60);
    follow_to(&mut hosted, &mut joined, &mut spectator, 80);
    let from = hosted.final_tick();
    play_to(&mut hosted, &mut joined, from + 20);
    hosted.poll();
    assert!(net.lose_all_to(addr(5)) > 0, "relayed and lost");
    let target = hosted.final_tick();
    hosted.take_relay_ack(addr(5), target + 1_000, 1);
    stand_still_until_it_holds(
        &mut hosted,
        &mut joined,
        &mut spectator,
        target,
        "the lie was believed: the lost ticks are never sent again",
    );
}

/// A snapshot's offer repeated while its parts are being gathered does not start the
/// gathering over: a spectator that reads the offer, its part and a repeat of the offer at
/// once is caught up by that one read, asking for nothing again.
#[test]
fn a_repeated_offer_does_not_start_a_snapshot_over() {
    let net = MemoryNet::default();
    let (mut hosted, mut joined, _, mut watching) = proven_and_unread(&net);
    // The offer and its part, then the offer again a repeat later, all waiting unread.
    let guard = Instant::now() + Duration::from_secs(10);
    while net.waiting_for(addr(5)) < 3 {
        assert!(Instant::now() < guard, "the offer is never repeated");
        let _ = joined.advance(WireInput::default());
        let _ = hosted.advance(WireInput::default());
        std::thread::sleep(Duration::from_millis(1));
    }
    let spectator = watching.poll().expect("caught up");
    assert!(
        spectator.is_some(),
        "the repeat started the snapshot over: not caught up by the read that held it whole"
    );
}

/// Parts of a late spectator's snapshot that do not fit (of another tick, past the last, cut
/// short or too long) are refused and counted, and change nothing: the real part, asked for
/// again, still completes the snapshot and the spectator follows from it.
#[test]
fn snapshot_parts_that_do_not_fit_are_refused_and_counted_while_catching_up() {
    let net = MemoryNet::default();
    let (mut hosted, mut joined, _, mut watching) = proven_and_unread(&net);
    let guard = Instant::now() + Duration::from_secs(10);
    let mut play_until = |waiting: usize| {
        while net.waiting_for(addr(5)) < waiting {
            assert!(Instant::now() < guard, "nothing offered");
            let _ = joined.advance(WireInput::default());
            let _ = hosted.advance(WireInput::default());
            std::thread::sleep(Duration::from_millis(1));
        }
    };
    // The offer and its part lost; the offer alone, a repeat later, read.
    play_until(2);
    net.lose_all_to(addr(5));
    play_until(1);
    assert!(watching.poll().expect("gathering").is_none());
    let Stage::Synchronizing { peer, .. } = &mut watching.stage else {
        panic!("not synchronizing")
    };
    let (tick, missing) = peer.gathering().expect("gathering");
    assert_eq!(missing, vec![0]);
    let bytes = hosted.driver().snapshot_at(tick).expect("held").to_bytes();
    for (claimed, index, bytes) in super::resync::parts_that_do_not_fit(&bytes, tick) {
        assert!(peer.take_catch_up_part(claimed, index, &bytes), "awaited");
    }
    assert_eq!(peer.refused_snapshot_parts(), 4);
    assert_eq!(peer.gathering(), Some((tick, vec![0])), "nothing taken");
    // It asks for the part it misses, at most once a repeat however often it is polled (the
    // host reads nothing meanwhile; its GGRS session says what it says besides, on its own
    // pace).
    net.lose_all_to(addr(1));
    let started = Instant::now();
    while started.elapsed() < Duration::from_millis(400) {
        assert!(watching.poll().expect("gathering").is_none());
        std::thread::sleep(Duration::from_millis(1));
    }
    let asked = net.waiting_for(addr(1));
    let repeats = started.elapsed().as_millis() as usize / 150 + 1;
    assert!(
        (1..=2 * repeats).contains(&asked),
        "{asked} datagrams over {repeats} repeats"
    );
    let spectator = caught_up(&mut hosted, &mut joined, &mut watching);
    assert_eq!(spectator.driver().frame_base(), tick, "started from it");
    assert_eq!(
        spectator.driver().hash_at(tick).ok(),
        hosted.driver().hash_at(tick).ok(),
        "the host's state"
    );
}

/// [`watched_with`] at 60 ticks, then the players stand still until the spectator holds the
/// host's final tick (nothing relayed is left to send or to step).
fn watched_holding_all(
    net: &MemoryNet,
    cfg: &NetConfig<World>,
) -> (NetPeer<World>, NetPeer<World>, NetPeer<World>) {
    let (mut hosted, mut joined, mut spectator) = watched_with(net, 60, cfg);
    let target = hosted.final_tick();
    stand_still_until_it_holds(
        &mut hosted,
        &mut joined,
        &mut spectator,
        target,
        "never holds the host's tick",
    );
    (hosted, joined, spectator)
}

/// A late spectator with more than `max_frames_behind` relayed ticks still to simulate says it
/// is catching up (and how far behind) and steps `catchup_speed` ticks a frame; with that many
/// or fewer it follows live, one tick a frame.
#[test]
fn a_late_spectator_further_behind_than_allowed_catches_up_at_its_speed() {
    let net = MemoryNet::default();
    let cfg = config(30_000, 5_000, 0);
    let (behind, speed) = (cfg.max_frames_behind, cfg.catchup_speed);
    assert!(speed > 1, "a speed that differs from live");
    let (_hosted, _joined, mut spectator) = watched_holding_all(&net, &cfg);
    // Nothing more from the host but what the test relays.
    net.lose_all_to(addr(5));
    let at = spectator.world().tick();
    let ticks = |n: usize| vec![WireInput::default(); 2 * n];
    spectator.take_relay(addr(1), at + 1, &ticks(behind), 0);
    assert_eq!(spectator.catching_up(), None, "{behind} behind is live");
    let _ = spectator.advance(WireInput::default());
    assert_eq!(spectator.world().tick(), at + 1, "one tick a frame");
    spectator.take_relay(addr(1), at + 1 + behind as Tick, &ticks(2), 0);
    assert_eq!(spectator.catching_up(), Some(behind + 1));
    let _ = spectator.advance(WireInput::default());
    assert_eq!(spectator.world().tick(), at + 1 + speed as Tick);
    assert_eq!(spectator.final_tick(), at + 1 + speed as Tick);
}

/// A late spectator acknowledges what it has queued as well as what it has stepped (the host
/// then sends none of it again), and gives up a host silent for the reconnect grace — not
/// before, and saying so.
#[test]
fn a_late_spectator_acknowledges_its_queue_and_gives_up_a_host_silent_for_the_grace() {
    let net = MemoryNet::default();
    let grace = Duration::from_secs(1);
    let cfg = NetConfig::<World> {
        disconnect_timeout: grace,
        ..config(30_000, 5_000, 0)
    };
    let (mut hosted, mut joined, mut spectator) = watched_holding_all(&net, &cfg);
    let target = hosted.final_tick();
    play_to(&mut hosted, &mut joined, target + 30);
    hosted.poll();
    let guard = Instant::now() + Duration::from_secs(10);
    while spectator_queue(&spectator) < 30 {
        assert!(Instant::now() < guard, "the relay never comes");
        spectator.poll();
    }
    // Its acknowledgement read, the host stands still and sends nothing again.
    hosted.poll();
    let started = Instant::now();
    while started.elapsed() < Duration::from_millis(400) {
        hosted.poll();
        std::thread::sleep(Duration::from_millis(1));
    }
    assert_eq!(net.waiting_for(addr(5)), 0, "what it holds was sent again");
    // Silent from here (the host is never polled again): given up after the grace.
    let silent_from = Instant::now();
    while !spectator
        .take_events()
        .contains(&NetEvent::Disconnected { peer: addr(1) })
    {
        assert!(Instant::now() < guard, "never given up");
        let _ = spectator.advance(WireInput::default());
        std::thread::sleep(Duration::from_millis(2));
    }
    // Last heard just before the silence: a little less than the grace may pass here.
    assert!(silent_from.elapsed() >= grace / 2, "given up early");
    assert_eq!(
        spectator.gone_reason(addr(1)),
        "the host was silent for 1 s, the whole reconnect grace"
    );
}

/// A late spectator that acknowledges nothing while the players play on past the host's
/// history is given up, told why under its keys; that refusal lost, its next acknowledgement
/// brings it again, and the spectator ends saying why (not, after the grace, that the host went
/// silent).
#[test]
fn a_late_spectator_fallen_behind_the_history_is_given_up_and_told_why_again_if_lost() {
    let net = MemoryNet::default();
    let cfg = NetConfig::<World> {
        disconnect_timeout: Duration::from_secs(60),
        ..config(30_000, 5_000, 0)
    };
    let (mut hosted, mut joined, mut spectator) = watched_with(&net, 60, &cfg);
    let following = spectator.final_tick() + 2;
    follow_to(&mut hosted, &mut joined, &mut spectator, following);
    // Past any history a peer keeps (the GGRS window, the desync interval's, a rejoin's gap).
    let history = crate::session::driver::HISTORY_TICKS
        + crate::session::netplay::MAX_DESYNC_HISTORY
        + crate::session::netplay::rejoin::MAX_GAP_TICKS;
    let behind = following + 2 * history as Tick;
    play_to(&mut hosted, &mut joined, behind);
    let guard = Instant::now() + Duration::from_secs(20);
    while hosted.late_spectators() > 0 {
        assert!(Instant::now() < guard, "a spectator fallen behind is kept");
        hosted.poll();
        joined.poll();
        std::thread::sleep(Duration::from_millis(5));
    }
    assert!(net.lose_all_to(addr(5)) > 0, "the refusal was on its way");
    let guard = Instant::now() + Duration::from_secs(20);
    let failure = loop {
        assert!(Instant::now() < guard, "the spectator is never told");
        hosted.poll();
        joined.poll();
        if let Err(e) = spectator.advance(WireInput::default()) {
            break e;
        }
        std::thread::sleep(Duration::from_millis(5));
    };
    assert!(
        matches!(&failure, Error::CatchUpFailed { reason } if reason.contains("fell too far behind")),
        "{failure}"
    );
}
