//! The survivor's side of a rejoin on the in-memory network, driven by hand from a raw link
//! as an attacker (or a broken build) would: a rejoin without the match's secret, `Resume`s
//! whose ticks, inputs or hash do not fit, each refused with a reason while the survivor keeps
//! waiting; then the real one, answered with the gap and the next epoch. And the rejoiner's
//! side against a survivor driven by hand: its state or the gap offered, each misfit refused
//! naming it; a clear `Reject` final only after the grace; the `Resume` repeated at its pace.

use super::*;
use crate::net::seal::{Initiator, MatchSecret, Psk};
use crate::net::wire::{InputRun, RejoinAnswer};
use engine::{Rules, StateHash, Tick, WireInput};

/// A match played to `ticks` on the in-memory network whose joiner then died: the host still
/// waiting for it, the joiner's secret, its last final tick and the hashes it held.
struct Orphaned {
    net: MemoryNet,
    host: NetPeer<World>,
    secret: MatchSecret,
    hashes: Vec<(Tick, StateHash)>,
    inputs: Vec<Vec<WireInput>>,
}

fn orphaned(ticks: Tick) -> Orphaned {
    orphaned_after(ticks, false)
}

/// As [`orphaned`]; with `resync_first`, the joiner asks for a resync first and the match
/// plays on in epoch 2 (so the host holds its answer to that resync when the joiner dies).
fn orphaned_after(ticks: Tick, resync_first: bool) -> Orphaned {
    let net = MemoryNet::default();
    let cfg = NetConfig::<World> {
        disconnect_notify: Duration::from_millis(50),
        disconnect_timeout: Duration::from_secs(3),
        ..config(30_000, 5_000, 0)
    };
    let (mut hosted, mut joined) = connected_pair(&net, &cfg);
    let guard = Instant::now() + Duration::from_secs(20);
    if resync_first {
        while joined.final_tick() < 20 {
            assert!(Instant::now() < guard, "the match does not get going");
            let _ = joined.advance(WireInput::default());
            let _ = hosted.advance(WireInput::default());
        }
        joined.begin_resync(joined.final_tick(), false);
        let in_epoch_2 = |p: &NetPeer<World>| p.agreement().epoch == 2 && p.running();
        while !(in_epoch_2(&hosted) && in_epoch_2(&joined)) {
            assert!(Instant::now() < guard, "the resync never ends");
            let _ = joined.advance(WireInput::default());
            let _ = hosted.advance(WireInput::default());
        }
    }
    while joined.final_tick() < ticks {
        assert!(Instant::now() < guard, "the match does not get going");
        let _ = joined.advance(WireInput::default());
        let _ = hosted.advance(WireInput {
            move_x: 50,
            ..WireInput::default()
        });
    }
    let through = joined.final_tick();
    let secret = joined
        .agreement()
        .secret
        .clone()
        .expect("a player holds the secret");
    let hashes = (1..=through)
        .filter_map(|t| joined.driver().hash_at(t).ok().map(|h| (t, h)))
        .collect();
    let inputs = (through.saturating_sub(8)..through)
        .map(|t| {
            let slice = joined.driver().inputs_at(t).expect("inputs");
            slice.to_vec()
        })
        .collect();
    drop(joined);
    // The host notices the silence.
    while hosted.reconnecting().is_none() {
        assert!(Instant::now() < guard, "the host never notices");
        let _ = hosted.advance(WireInput::default());
        std::thread::sleep(Duration::from_millis(2));
    }
    Orphaned {
        net,
        host: hosted,
        secret,
        hashes,
        inputs,
    }
}

/// A rejoiner on a raw link at `port`: its link, once the host accepted its handshake under
/// `secret`; or the host's clear refusal.
fn handshake(o: &mut Orphaned, port: u16, secret: &MatchSecret) -> Result<SharedLink, String> {
    let link = Link::new(o.net.endpoint(port));
    let info = PeerInfo::local::<World>(&Rules::default());
    let mut initiator =
        Initiator::keyed(&wire::rejoin_prologue(&info, 1), Some(Psk::Secret(secret)))
            .expect("initiator");
    link.borrow_mut().add_peer(addr(1));
    link.borrow_mut().send_control(
        &Control::Rejoin {
            info,
            slot: 1,
            noise: initiator.message().to_vec(),
        },
        addr(1),
    );
    let _ = o.host.advance(WireInput::default());
    link.borrow_mut().pump(false);
    let inbox = link.borrow_mut().take_control();
    for (_, msg) in inbox {
        match msg {
            Control::Answer { noise } => {
                let payload = initiator.read_answer(&noise).expect("the answer opens");
                assert_eq!(
                    wire::decode::<RejoinAnswer>(&payload),
                    Ok(RejoinAnswer::Accepted)
                );
                let channel = initiator.into_channel().expect("channel");
                link.borrow_mut().add_channel(addr(1), channel);
                return Ok(link);
            }
            Control::Reject { reason } => return Err(reason),
            _ => {}
        }
    }
    Err("no answer".into())
}

/// Sends `resume` sealed from `link` and returns the host's sealed answer.
fn ask(o: &mut Orphaned, link: &SharedLink, resume: &Control) -> Control {
    link.borrow_mut().send_control(resume, addr(1));
    let _ = o.host.advance(WireInput::default());
    link.borrow_mut().pump(false);
    let answers = link.borrow_mut().take_control();
    answers
        .into_iter()
        .map(|(_, m)| m)
        .next()
        .expect("an answer")
}

fn resume(through: Tick, hash: u64, recent: Vec<WireInput>) -> Control {
    Control::Resume {
        through,
        hash,
        recent: InputRun::encode(&recent),
    }
}

/// The duel's inputs a run carries (every run a survivor sends decodes).
fn duel_inputs(run: &InputRun) -> Vec<WireInput> {
    run.decode().expect("the duel's inputs")
}

fn refusal(answer: Control) -> String {
    match answer {
        Control::Reject { reason } => reason,
        other => panic!("expected a refusal, got {other:?}"),
    }
}

#[test]
fn a_rejoin_without_the_match_secret_is_refused_and_the_host_keeps_waiting() {
    let mut o = orphaned(120);
    let stranger = MatchSecret::from_bytes([7; 32]);
    let reason = handshake(&mut o, 3, &stranger).expect_err("refused");
    assert!(reason.contains("this match's secret"), "{reason}");
    assert_eq!(o.host.refused_rejoins(), 1);
    assert!(
        o.host.reconnecting().is_some(),
        "still waiting for the real player"
    );
    // The real one still gets in.
    let secret = o.secret.clone();
    assert!(handshake(&mut o, 4, &secret).is_ok());
}

#[test]
fn resumes_that_do_not_fit_are_refused_with_the_reason_and_the_real_one_is_answered() {
    let mut o = orphaned(120);
    let secret = o.secret.clone();
    let (through, hash) = *o.hashes.last().expect("hashes");
    let recent: Vec<WireInput> = o.inputs.iter().flatten().copied().collect();
    let cases = [
        (
            resume(through, hash.combined ^ 1, recent.clone()),
            "the states differ",
        ),
        (
            resume(through + 50, hash.combined, recent.clone()),
            "carries the inputs of only",
        ),
        (
            resume(through, hash.combined, vec![WireInput::default(); 3]),
            "malformed",
        ),
        (
            resume(u32::MAX, hash.combined, recent.clone()),
            "carries the inputs",
        ),
        // More recent ticks than the log has ticks at all.
        (
            resume(5, o.hashes[4].1.combined, vec![WireInput::default(); 20]),
            "malformed",
        ),
    ];
    for (port, (bad, why)) in (10..).zip(cases) {
        let link = handshake(&mut o, port, &secret).expect("accepted");
        let reason = refusal(ask(&mut o, &link, &bad));
        assert!(reason.contains(why), "{bad:?}: {reason}");
        // The refusal was lost: the `Resume` repeated is told it again.
        assert_eq!(refusal(ask(&mut o, &link, &bad)), reason);
        assert!(o.host.epochs().is_empty());
        assert!(
            o.host.reconnecting().is_some(),
            "still waiting after {bad:?}"
        );
    }
    // The real log's end: the next epoch, from the host's last final tick, with the gap.
    let link = handshake(&mut o, 21, &secret).expect("accepted");
    let answer = ask(&mut o, &link, &resume(through, hash.combined, recent));
    let Control::ResumeAt {
        epoch, tick, gap, ..
    } = answer
    else {
        panic!("expected the resume, got {answer:?}");
    };
    assert_eq!(epoch, 2);
    assert!(tick >= through);
    assert_eq!(duel_inputs(&gap).len(), (tick - through) as usize * 2);
    assert_eq!(o.host.epochs().len(), 1);
    assert_eq!(o.host.epochs()[0].peer, addr(21));
    assert_eq!(o.host.final_tick(), tick);
    assert_eq!(o.host.reconnecting(), None);
    // The answer was lost: the same `Resume` again gets the same answer, and no second epoch.
    let again = ask(&mut o, &link, &resume(through, hash.combined, Vec::new()));
    assert!(
        matches!(again, Control::ResumeAt { epoch: 2, tick: t, .. } if t == tick),
        "{again:?}"
    );
    assert_eq!(o.host.epochs().len(), 1);
}

/// A rejoiner whose log went past the survivor's last final tick (its inputs there reached
/// nobody): the survivor checks its own inputs in that log are the ones it played, steps its
/// state there, and both go on from the rejoiner's last tick, with nothing to send back.
#[test]
fn a_rejoiner_that_logged_past_the_survivor_brings_it_there() {
    let mut o = orphaned(120);
    let secret = o.secret.clone();
    let ours = o.host.final_tick();
    let driver = o.host.driver();
    let k = 3;
    let mut world = driver.world().clone();
    Game::restore(
        &mut world,
        driver.snapshot_at(ours).expect("final state kept"),
    )
    .expect("restore");
    let mut recent = Vec::new();
    for (n, tick) in (ours..ours + k).enumerate() {
        let mut inputs = driver
            .inputs_at(tick)
            .expect("the host predicted past its final tick")
            .to_vec();
        // The rejoiner's own inputs there are its own (the survivor only predicted them), one
        // different stick a tick, so every tick's inputs must be taken from their own place.
        inputs[1].move_x = 20 * (n as i8 + 1);
        inputs[1].move_y = -15 * (n as i8 + 1);
        engine::Game::step(&mut world, &inputs).expect("step");
        recent.extend_from_slice(&inputs);
    }
    let hash = world.state_hash();
    // A log claiming another input of the survivor's than it played is refused.
    let mut forged = recent.clone();
    forged[0].move_x = forged[0].move_x.wrapping_add(1);
    let link = handshake(&mut o, 30, &secret).expect("accepted");
    let reason = refusal(ask(&mut o, &link, &resume(ours + k, hash.combined, forged)));
    assert!(reason.contains("another input of ours"), "{reason}");
    // The true one.
    let link = handshake(&mut o, 31, &secret).expect("accepted");
    let answer = ask(&mut o, &link, &resume(ours + k, hash.combined, recent));
    let Control::ResumeAt {
        tick,
        gap,
        hash: at,
        ..
    } = answer
    else {
        panic!("expected the resume, got {answer:?}");
    };
    assert_eq!(
        (tick, duel_inputs(&gap).len(), at),
        (ours + k, 0, hash.combined)
    );
    assert_eq!(o.host.final_tick(), ours + k);
    assert_eq!(o.host.driver().hash_at(ours + k).expect("kept"), hash);
    assert_eq!(
        o.host.world().tick(),
        ours + k,
        "the prediction past it is gone"
    );
}

/// The survivor's answers after `resume`, all of them.
fn ask_all(o: &mut Orphaned, link: &SharedLink, resume: &Control) -> Vec<Control> {
    link.borrow_mut().send_control(resume, addr(1));
    let _ = o.host.advance(WireInput::default());
    link.borrow_mut().pump(false);
    let answers = link.borrow_mut().take_control();
    answers.into_iter().map(|(_, m)| m).collect()
}

/// The survivor's state sent whole after `answers`' `ResyncAt`: the offer, and the world its
/// parts make (checked as the rejoiner checks them).
fn assembled(answers: Vec<Control>) -> (Tick, Vec<WireInput>, engine::World) {
    use crate::session::netplay::transfer::Assembly;
    let mut answers = answers.into_iter();
    let Some(Control::ResyncAt {
        epoch,
        tick,
        gap,
        snapshot,
    }) = answers.next()
    else {
        panic!("expected the state offered first");
    };
    assert_eq!((epoch, snapshot.tick), (2, tick));
    let mut assembly = Assembly::new(snapshot).expect("a fitting offer");
    for part in answers {
        if let Control::SnapshotChunk { tick, index, bytes } = part {
            assembly.add(tick, index, &bytes).expect("a fitting part");
        }
    }
    assert_eq!(assembly.missing(), Vec::<u16>::new(), "every part sent");
    let (world, _) = assembly.finish(&Rules::default()).expect("checks out");
    (tick, duel_inputs(&gap), world)
}

/// A log cut further back than the survivor's history (past what a killed process can lose):
/// nothing there can be checked or stepped, so the survivor's state at its last final tick
/// goes whole, in parts that check out, and the new epoch starts there; a part asked for
/// again comes again.
#[test]
fn a_log_cut_further_back_than_the_history_is_sent_the_survivors_state_whole() {
    let mut o = orphaned(600);
    let secret = o.secret.clone();
    let ours = o.host.final_tick();
    let held = o.host.driver().hash_at(ours).expect("kept");
    let (tick, hash) = o.hashes[0];
    assert!(
        o.host.driver().hash_at(tick).is_err(),
        "outside the history"
    );
    let link = handshake(&mut o, 20, &secret).expect("accepted");
    let answers = ask_all(&mut o, &link, &resume(tick, hash.combined, Vec::new()));
    let (resumed, gap, world) = assembled(answers);
    assert_eq!((resumed, gap.len()), (ours, 0));
    assert_eq!(world.state_hash(), held, "the survivor's own state");
    assert_eq!(o.host.epochs().len(), 1);
    assert_eq!(o.host.epochs()[0].tick, ours);
    let again = ask_all(
        &mut o,
        &link,
        &Control::SnapshotNeed {
            tick: ours,
            missing: vec![0],
        },
    );
    assert!(
        matches!(again.as_slice(), [Control::SnapshotChunk { index: 0, tick, .. }] if *tick == ours),
        "{again:?}"
    );
}

/// Within the history, a log end is resumed from as it is (a killed process loses its last
/// second at most): the gap's inputs, no state sent.
#[test]
fn a_log_cut_within_the_history_is_resumed_with_the_gap() {
    let mut o = orphaned(600);
    let secret = o.secret.clone();
    let (tick, hash) = o.hashes[o.hashes.len() - 120];
    let link = handshake(&mut o, 21, &secret).expect("accepted");
    let answer = ask(&mut o, &link, &resume(tick, hash.combined, Vec::new()));
    assert!(matches!(answer, Control::ResumeAt { .. }), "{answer:?}");
}

/// A flood of rejoins under wrong secrets (from a spoofed source, say) costs the survivor at
/// most the handshake's budget of answers; the real player still gets in once it refills.
#[test]
fn a_flood_of_forged_rejoins_is_answered_within_the_budget() {
    let mut o = orphaned(60);
    let attacker = Link::new(o.net.endpoint(40));
    attacker.borrow_mut().add_peer(addr(1));
    let info = PeerInfo::local::<World>(&Rules::default());
    let forged = MatchSecret::from_bytes([9; 32]);
    for _ in 0..200 {
        let initiator =
            Initiator::keyed(&wire::rejoin_prologue(&info, 1), Some(Psk::Secret(&forged)))
                .expect("initiator");
        attacker.borrow_mut().send_control(
            &Control::Rejoin {
                info: info.clone(),
                slot: 1,
                noise: initiator.message().to_vec(),
            },
            addr(1),
        );
    }
    let _ = o.host.advance(WireInput::default());
    attacker.borrow_mut().pump(false);
    let answers = attacker.borrow_mut().take_control().len();
    assert!(
        answers > 0 && answers <= crate::net::handshake::ANSWER_BURST as usize,
        "{answers}"
    );
    assert_eq!(o.host.refused_rejoins(), 200);
    std::thread::sleep(Duration::from_millis(100));
    let secret = o.secret.clone();
    assert!(
        handshake(&mut o, 41, &secret).is_ok(),
        "the real one after the flood"
    );
}

/// A rejoiner that vanishes again once the resume is agreed: the new epoch's session does not
/// wait for it forever (GGRS would), but for the reconnect grace, then says so.
#[test]
fn a_rejoiner_that_vanishes_after_the_resume_is_given_up_after_the_grace() {
    let mut o = orphaned(60);
    let secret = o.secret.clone();
    let (tick, hash) = *o.hashes.last().expect("hashes");
    let recent: Vec<WireInput> = o.inputs.iter().flatten().copied().collect();
    let link = handshake(&mut o, 50, &secret).expect("accepted");
    let answer = ask(&mut o, &link, &resume(tick, hash.combined, recent));
    assert!(matches!(answer, Control::ResumeAt { .. }), "{answer:?}");
    drop(link);
    let guard = Instant::now() + Duration::from_secs(20);
    let err = loop {
        match o.host.advance(WireInput::default()) {
            Ok(_) => assert!(Instant::now() < guard, "waits forever"),
            Err(e) => break e,
        }
        std::thread::sleep(Duration::from_millis(5));
    };
    assert!(
        matches!(err, Error::SyncTimeout { .. })
            && err
                .to_string()
                .contains("the other player of the new epoch"),
        "{err}"
    );
}

/// The limits of a resume at their bounds: at most `MAX_RECENT_TICKS` of recent inputs, at
/// most `MAX_GAP_TICKS` of gap sent back; one more is refused, saying which.
#[test]
fn a_resume_at_each_limit_is_taken_and_one_past_it_refused() {
    use crate::session::netplay::rejoin::{MAX_GAP_TICKS, MAX_RECENT_TICKS};
    let mut o = orphaned(600);
    let secret = o.secret.clone();
    let ours = o.host.final_tick();
    let at = |o: &Orphaned, back: u32| {
        let tick = ours - back;
        (tick, o.host.driver().hash_at(tick).expect("kept").combined)
    };
    let inputs = |ticks: usize| vec![WireInput::default(); ticks * 2];
    let (tick, hash) = at(&o, 10);
    let link = handshake(&mut o, 60, &secret).expect("accepted");
    let reason = refusal(ask(
        &mut o,
        &link,
        &resume(tick, hash, inputs(MAX_RECENT_TICKS + 1)),
    ));
    assert!(reason.contains("malformed"), "{reason}");
    // Exactly at both limits: taken, the gap sent whole.
    let (tick, hash) = at(&o, MAX_GAP_TICKS as u32);
    let link = handshake(&mut o, 62, &secret).expect("accepted");
    let answer = ask(&mut o, &link, &resume(tick, hash, inputs(MAX_RECENT_TICKS)));
    let Control::ResumeAt {
        gap, tick: resumed, ..
    } = answer
    else {
        panic!("expected the resume, got {answer:?}");
    };
    assert_eq!(
        (resumed, duel_inputs(&gap).len()),
        (ours, MAX_GAP_TICKS * 2)
    );
}

/// One tick past the gap a resume carries, the survivor's state goes whole instead; so it
/// does for a log of as many recent ticks as it has ticks (no malformation), far back.
#[test]
fn one_tick_past_the_gap_limit_is_sent_the_state_whole() {
    use crate::session::netplay::rejoin::MAX_GAP_TICKS;
    let mut o = orphaned(600);
    let secret = o.secret.clone();
    let ours = o.host.final_tick();
    let tick = ours - (MAX_GAP_TICKS as u32 + 1);
    let hash = o.host.driver().hash_at(tick).expect("kept").combined;
    let link = handshake(&mut o, 61, &secret).expect("accepted");
    let (resumed, gap, _) = assembled(ask_all(&mut o, &link, &resume(tick, hash, Vec::new())));
    assert_eq!((resumed, gap.len()), (ours, 0));
    let mut o = orphaned(600);
    let secret = o.secret.clone();
    let link = handshake(&mut o, 63, &secret).expect("accepted");
    let five = vec![WireInput::default(); 10];
    let (resumed, ..) = assembled(ask_all(&mut o, &link, &resume(5, 0, five)));
    assert_eq!(resumed, o.host.final_tick());
}

/// A rejoin for a slot whose player is still heard gets no answer at all, even under the
/// right secret: the slot is not free (and the rejoiner keeps asking).
#[test]
fn a_rejoin_for_a_player_still_heard_is_not_answered() {
    let net = MemoryNet::default();
    let cfg = config(30_000, 5_000, 0);
    let (mut hosted, mut joined) = connected_pair(&net, &cfg);
    for _ in 0..50 {
        let _ = joined.advance(WireInput::default());
        let _ = hosted.advance(WireInput::default());
    }
    let secret = joined.agreement().secret.clone().expect("secret");
    let mut o = Orphaned {
        net,
        host: hosted,
        secret: secret.clone(),
        hashes: Vec::new(),
        inputs: Vec::new(),
    };
    assert_eq!(
        handshake(&mut o, 3, &secret).err().as_deref(),
        Some("no answer")
    );
    let _ = joined.advance(WireInput::default());
}

/// A repeated `Rejoin` (its answer was lost) is answered again with the very same answer;
/// another handshake, from another address or with other keys, gets its own.
#[test]
fn a_repeated_rejoin_gets_the_same_answer_and_another_its_own() {
    let mut o = orphaned(60);
    let info = PeerInfo::local::<World>(&Rules::default());
    let secret = o.secret.clone();
    let rejoin = |o: &mut Orphaned, port: u16, initiator: &Initiator| -> Vec<u8> {
        let mut at = o.net.endpoint(port);
        let hello = Control::Rejoin {
            info: info.clone(),
            slot: 1,
            noise: initiator.message().to_vec(),
        };
        at.send(&wire::encode(Kind::Control, 0, &hello), addr(1));
        let _ = o.host.advance(WireInput::default());
        let mut buf = vec![0; MAX_DATAGRAM];
        let (n, _) = at.recv(&mut buf).expect("an answer");
        buf[..n].to_vec()
    };
    let keyed = || {
        Initiator::keyed(&wire::rejoin_prologue(&info, 1), Some(Psk::Secret(&secret)))
            .expect("initiator")
    };
    let first = keyed();
    let a = rejoin(&mut o, 70, &first);
    assert_eq!(rejoin(&mut o, 70, &first), a, "the lost answer, again");
    assert_ne!(
        rejoin(&mut o, 71, &first),
        a,
        "another address, another handshake"
    );
    assert_ne!(
        rejoin(&mut o, 70, &keyed()),
        a,
        "other keys, another handshake"
    );
}

/// A rejoiner on the dead player's own address (the same port) hears nothing of the old
/// epoch while the resume is agreed: the old session is not polled meanwhile.
#[test]
fn a_rejoiner_on_the_old_address_hears_nothing_of_the_old_epoch() {
    let mut o = orphaned(60);
    let secret = o.secret.clone();
    let link = handshake(&mut o, 2, &secret).expect("accepted on the old port");
    // Whatever the host sent there before it accepted (under the old keys) is gone; from now
    // on, anything sealed to this port opens under the new keys and would be read as GGRS.
    link.borrow_mut().pump(false);
    link.borrow_mut().set_limits(
        crate::net::ggrs_message::Limits::for_match::<crate::session::GgrsConfig<engine::World>>(
            2, 8,
        ),
        vec![(
            addr(1),
            crate::net::ggrs_message::Sender::Player { slots: 1 },
        )],
    );
    let before = link.borrow().counters();
    // Longer than GGRS's keep-alive and resend intervals (200 ms): the old session would send.
    let until = Instant::now() + Duration::from_millis(600);
    while Instant::now() < until {
        let _ = o.host.advance(WireInput::default());
        std::thread::sleep(Duration::from_millis(2));
    }
    assert!(
        link.borrow_mut().pump(false).is_empty(),
        "no GGRS datagram of the old session"
    );
    assert_eq!(link.borrow().counters(), before, "nothing arrived at all");
    // Resumed there, the new session speaks to it under its new keys (its channel was kept,
    // only the old epoch's were dropped).
    let (tick, hash) = *o.hashes.last().expect("hashes");
    let recent: Vec<WireInput> = o.inputs.iter().flatten().copied().collect();
    let answer = ask(&mut o, &link, &resume(tick, hash.combined, recent));
    assert!(
        matches!(answer, Control::ResumeAt { epoch: 2, .. }),
        "{answer:?}"
    );
    link.borrow_mut().begin_epoch(2);
    let until = Instant::now() + Duration::from_millis(600);
    let mut heard = 0;
    while Instant::now() < until && heard == 0 {
        let _ = o.host.advance(WireInput::default());
        heard += link.borrow_mut().pump(false).len();
        std::thread::sleep(Duration::from_millis(2));
    }
    assert!(
        heard > 0,
        "the new epoch's session synchronizes with the rejoiner"
    );
}

/// A rejoiner on the address of a player the host answered a resync for is not taken for
/// that resync's follower once its rejoin is accepted: its `Resume` starts an epoch of its
/// own (3), not the resync's answer (epoch 2) sent again.
#[test]
fn an_accepted_rejoin_forgets_the_last_resyncs_answer() {
    let mut o = orphaned_after(60, true);
    assert_eq!(o.host.agreement().epoch, 2, "the resync ran");
    let secret = o.secret.clone();
    let link = handshake(&mut o, 2, &secret).expect("accepted on the old port");
    let (tick, hash) = *o.hashes.last().expect("hashes");
    let recent: Vec<WireInput> = o.inputs.iter().flatten().copied().collect();
    let answer = ask(&mut o, &link, &resume(tick, hash.combined, recent));
    assert!(
        matches!(answer, Control::ResumeAt { epoch: 3, .. }),
        "the rejoin's own epoch, not the resync's answer again: {answer:?}"
    );
}

/// A rejoiner that proves itself and then never says where its log ends holds the match no
/// longer than a silent player would: the survivor goes back to waiting, and past the grace
/// the match ends.
#[test]
fn an_accepted_rejoin_that_never_resumes_holds_nothing_past_the_grace() {
    let mut o = orphaned(60);
    let secret = o.secret.clone();
    let _link = handshake(&mut o, 80, &secret).expect("accepted");
    let guard = Instant::now() + Duration::from_secs(20);
    loop {
        let _ = o.host.advance(WireInput::default());
        if o.host
            .take_events()
            .iter()
            .any(|e| matches!(e, NetEvent::Disconnected { .. }))
        {
            break;
        }
        assert!(
            Instant::now() < guard,
            "an accepted rejoin held the match forever"
        );
        std::thread::sleep(Duration::from_millis(5));
    }
}

/// A rejoiner whose log ends exactly at the survivor's last final tick needs to send no
/// inputs at all: nothing is missing on either side.
#[test]
fn a_rejoiner_at_exactly_the_survivors_tick_needs_no_inputs() {
    let mut o = orphaned(60);
    let secret = o.secret.clone();
    let ours = o.host.final_tick();
    let hash = o.host.driver().hash_at(ours).expect("kept").combined;
    let link = handshake(&mut o, 90, &secret).expect("accepted");
    let answer = ask(&mut o, &link, &resume(ours, hash, Vec::new()));
    assert!(
        matches!(&answer, Control::ResumeAt { tick, gap, .. } if *tick == ours && duel_inputs(gap).is_empty()),
        "{answer:?}"
    );
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(24))]

    /// Whatever a rejoiner holding the secret claims in its `Resume` (a broken build, or an
    /// attacker who stole a log): the survivor answers with a resume that fits the claim or
    /// a refusal, never panics, and a refusal leaves it waiting as before.
    #[test]
    fn any_resume_is_answered_with_a_fitting_resume_or_a_refusal(
        back in proptest::prelude::any::<bool>(),
        offset in 0u32..400,
        far in proptest::prop_oneof![
            proptest::strategy::Just(u32::MAX),
            proptest::strategy::Just(u32::MAX - 1),
            proptest::prelude::any::<u32>(),
        ],
        use_far in proptest::prelude::any::<bool>(),
        true_hash in proptest::prelude::any::<bool>(),
        hash in proptest::prelude::any::<u64>(),
        recent in proptest::collection::vec(proptest::prelude::any::<[u8; 5]>(), 0..300),
    ) {
        let mut o = orphaned(60);
        let secret = o.secret.clone();
        let ours = o.host.final_tick();
        let through = match (use_far, back) {
            (true, _) => far,
            (false, true) => ours.saturating_sub(offset),
            (false, false) => ours + offset,
        };
        let hash = match o.host.driver().hash_at(through) {
            Ok(h) if true_hash => h.combined,
            _ => hash,
        };
        let recent: Vec<WireInput> = recent
            .iter()
            .map(|b| WireInput { buttons: b[0], move_x: b[1] as i8, move_y: b[2] as i8, view_ticks: b[3], view_frac: b[4] })
            .collect();
        let link = handshake(&mut o, 100, &secret).expect("accepted");
        match ask(&mut o, &link, &resume(through, hash, recent)) {
            Control::ResumeAt { epoch, tick, gap, .. } => {
                proptest::prop_assert_eq!(epoch, 2);
                proptest::prop_assert!(tick >= through);
                proptest::prop_assert_eq!(duel_inputs(&gap).len(), (tick - through) as usize * 2);
                proptest::prop_assert_eq!(o.host.final_tick(), tick);
            }
            // A log end the survivor cannot step from: its own state, whole.
            Control::ResyncAt { epoch, tick, gap, snapshot } => {
                proptest::prop_assert_eq!(epoch, 2);
                proptest::prop_assert!(tick > through);
                proptest::prop_assert!(duel_inputs(&gap).is_empty());
                proptest::prop_assert_eq!(snapshot.tick, tick);
                proptest::prop_assert_eq!(o.host.final_tick(), tick);
            }
            Control::Reject { reason } => {
                proptest::prop_assert!(!reason.is_empty());
                proptest::prop_assert!(o.host.epochs().is_empty());
                proptest::prop_assert!(o.host.reconnecting().is_some(), "{}", reason);
                proptest::prop_assert!(o.host.advance(WireInput::default()).is_ok());
            }
            other => proptest::prop_assert!(false, "{:?}", other),
        }
    }
}

/// A rejoin from a log ending at `world` (slot 1 of match seed 7, epoch 1, under `secret`),
/// started from port 2 toward a survivor's link at port 1 that takes rejoins.
fn rejoin_toward_survivor(
    net: &MemoryNet,
    world: engine::World,
    secret: &MatchSecret,
) -> (
    crate::session::netplay::rejoin::Rejoining<World>,
    SharedLink,
) {
    use crate::session::netplay::rejoin::{RejoinPlan, Rejoining};
    let plan = RejoinPlan::<World> {
        world,
        recent: Vec::new(),
        secret: secret.clone(),
        match_seed: 7,
        slot: 1,
        peer: addr(1),
        epoch: 1,
    };
    let survivor = Link::new(net.endpoint(1));
    survivor.borrow_mut().accept_rejoins(true);
    // A reconnect grace of 1 s: the new epoch's session gives a survivor that vanishes up
    // that soon.
    let cfg = NetConfig::<World> {
        disconnect_timeout: Duration::from_millis(1_000),
        ..config(5_000, 5_000, 0)
    };
    let rejoining =
        Rejoining::<World>::start(Link::new(net.endpoint(2)), plan, &cfg).expect("start");
    (rejoining, survivor)
}

/// The survivor's acceptance of a `Rejoin` (`info`, `slot`, `noise`) from `from` under
/// `secret`: the Noise answer, and the channel it opens.
fn accept_rejoin(
    survivor: &SharedLink,
    from: SocketAddr,
    secret: &MatchSecret,
    (info, slot, noise): (&PeerInfo, u8, &[u8]),
) {
    let prologue = wire::rejoin_prologue(info, slot);
    let responder =
        crate::net::seal::Responder::read_keyed(&prologue, Some(Psk::Secret(secret)), noise)
            .expect("under the secret");
    let (noise, channel) = responder
        .answer(&wire::encode_payload(&RejoinAnswer::Accepted))
        .expect("answer");
    let mut link = survivor.borrow_mut();
    link.add_channel(from, channel);
    link.send_raw(
        &wire::encode(Kind::Control, 0, &Control::Answer { noise }),
        from,
    );
}

/// What a fake survivor sends after the rejoiner's `Resume`: a `ResyncAt` and parts.
type Offer = fn(&engine::World) -> Vec<Control>;

/// The rejoiner's side against a survivor driven by hand (a broken build, or a stolen log's
/// holder): a rejoin from a log ending at tick 50, the survivor's handshake accepted, then
/// `offer` answers its `Resume` (and its every `SnapshotNeed`) with what it returns, the
/// survivor's state being the same match at tick 80. The rejoin's outcome, and the stages
/// it said it was at, in order.
fn rejoin_against(offer: Offer) -> (Result<NetPeer<World>, crate::Error>, Vec<&'static str>) {
    let net = MemoryNet::default();
    let secret = MatchSecret::from_bytes([7; 32]);
    let mut world = engine::World::new(Rules::default(), 11, 2).expect("world");
    let idle = |w: &mut engine::World| {
        let t = w.tick();
        w.step(&[engine::InputCmd::idle(t), engine::InputCmd::idle(t)])
            .expect("step");
    };
    while world.tick() < 50 {
        idle(&mut world);
    }
    let mut theirs = world.clone();
    while theirs.tick() < 80 {
        idle(&mut theirs);
    }
    let (mut rejoining, survivor) = rejoin_toward_survivor(&net, world, &secret);
    let deadline = Instant::now() + Duration::from_secs(10);
    let mut stages = vec![rejoining.stage_name()];
    loop {
        assert!(
            Instant::now() < deadline,
            "the rejoin neither ends nor fails"
        );
        match rejoining.poll() {
            Ok(Some(peer)) => return (Ok(peer), stages),
            Err(e) => return (Err(e), stages),
            Ok(None) => {}
        }
        if stages.last() != Some(&rejoining.stage_name()) {
            stages.push(rejoining.stage_name());
        }
        survivor.borrow_mut().pump(false);
        let inbox = survivor.borrow_mut().take_control();
        for (from, msg) in inbox {
            match msg {
                Control::Rejoin { info, slot, noise } => {
                    accept_rejoin(&survivor, from, &secret, (&info, slot, &noise));
                }
                Control::Resume { .. } | Control::SnapshotNeed { .. } => {
                    for m in offer(&theirs) {
                        survivor.borrow_mut().send_control(&m, from);
                    }
                }
                _ => {}
            }
        }
        std::thread::sleep(Duration::from_millis(2));
    }
}

/// The honest offer of `world`'s state: the `ResyncAt` and its parts.
fn honest(world: &engine::World) -> Vec<Control> {
    use crate::session::netplay::transfer;
    let bytes = world.state().to_bytes();
    let tick = world.tick();
    let mut out = vec![Control::ResyncAt {
        epoch: 2,
        tick,
        gap: crate::net::wire::InputRun::default(),
        snapshot: transfer::offer(tick, &bytes, world.state_hash().combined),
    }];
    out.extend(transfer::part_messages(
        tick,
        &bytes,
        transfer::all_parts(bytes.len() as u32),
    ));
    out
}

/// A survivor's state sent whole is taken only when it fits the log and checks out whole;
/// each misfit is refused naming what did not fit, and the honest one starts the new epoch
/// from that state, its log told which ticks it skipped.
#[test]
fn a_rejoiner_takes_the_survivors_state_only_when_it_fits_and_checks_out() {
    let (peer, stages) = rejoin_against(honest);
    let peer = peer.expect("the honest offer");
    assert_eq!(peer.world().tick(), 80);
    assert_eq!(
        stages,
        [
            "proving this is the player who left",
            "agreeing where the match goes on",
            "receiving the other player's state",
        ]
    );
    let report = peer.rejoin_report().expect("a report");
    assert_eq!(report.gap_ticks, 30);
    assert!(report.snapshot_bytes > 0);
    assert!(report.to_string().contains("state sent whole"), "{report}");
    match &peer.epochs()[0].cause {
        crate::session::netplay::EpochCause::Transferred(t) => assert_eq!(t.from, 50),
        other => panic!("expected a transfer, got {other:?}"),
    }
    // A part lost on the way is asked for again, and the state still taken once it comes.
    let losing_the_first_part_once: Offer = |w| {
        static LOST: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);
        let mut m = honest(w);
        if !LOST.swap(true, std::sync::atomic::Ordering::Relaxed) {
            m.remove(1);
        }
        m
    };
    let (peer, _) = rejoin_against(losing_the_first_part_once);
    assert_eq!(peer.expect("asked for again").world().tick(), 80);
    let cases: [(&str, Offer, &str); 9] = [
        (
            "a refusal for an answer",
            |_| {
                vec![Control::Reject {
                    reason: "the survivor says no".into(),
                }]
            },
            "the survivor says no",
        ),
        (
            "a refusal with the offer",
            |w| {
                let mut m = honest(w);
                m.truncate(1);
                m.push(Control::Reject {
                    reason: "the survivor gave up".into(),
                });
                m
            },
            "the survivor gave up",
        ),
        (
            "a refusal while the parts are asked for",
            |w| {
                static OFFERED: std::sync::atomic::AtomicBool =
                    std::sync::atomic::AtomicBool::new(false);
                if OFFERED.swap(true, std::sync::atomic::Ordering::Relaxed) {
                    return vec![Control::Reject {
                        reason: "the survivor gave up later".into(),
                    }];
                }
                let mut m = honest(w);
                m.truncate(1);
                m
            },
            "the survivor gave up later",
        ),
        (
            "an epoch not after the log's",
            |w| {
                let mut m = honest(w);
                if let Control::ResyncAt { epoch, .. } = &mut m[0] {
                    *epoch = 1;
                }
                m
            },
            "in epoch 1",
        ),
        (
            "a tick not after the log's end",
            |w| {
                let mut m = honest(w);
                if let Control::ResyncAt { tick, snapshot, .. } = &mut m[0] {
                    (*tick, snapshot.tick) = (50, 50);
                }
                m
            },
            "to go on from tick 50",
        ),
        (
            "inputs with the state",
            |w| {
                let mut m = honest(w);
                if let Control::ResyncAt { gap, .. } = &mut m[0] {
                    let mut inputs = duel_inputs(gap);
                    inputs.push(WireInput::default());
                    *gap = InputRun::encode(&inputs);
                }
                m
            },
            "with 1 inputs",
        ),
        (
            "a snapshot of another tick",
            |w| {
                let mut m = honest(w);
                if let Control::ResyncAt { snapshot, .. } = &mut m[0] {
                    snapshot.tick += 1;
                }
                m
            },
            "offers its state of tick 81",
        ),
        (
            "an oversized offer",
            |w| {
                let mut m = honest(w);
                if let Control::ResyncAt { snapshot, .. } = &mut m[0] {
                    snapshot.len = u32::MAX;
                }
                m
            },
            "the other player's state was refused",
        ),
        (
            "a part whose bytes are not the offer's",
            |w| {
                let mut m = honest(w);
                if let Some(Control::SnapshotChunk { bytes, .. }) = m.get_mut(1) {
                    bytes[0] ^= 1;
                }
                m
            },
            "the other player's state was refused",
        ),
    ];
    for (name, offer, says) in cases {
        match rejoin_against(offer).0 {
            Err(crate::Error::RejoinRefused { reason }) => {
                assert!(reason.contains(says), "{name}: {reason}");
            }
            Err(e) => panic!("{name}: expected a refusal, got {e}"),
            Ok(_) => panic!("{name}: taken"),
        }
    }
}

/// How a fake survivor answers a `Rejoin`: accepted under the secret, or a clear `Reject`.
#[derive(Clone, Copy, PartialEq)]
enum Answering {
    Accept,
    RejectInClear,
}

/// The rejoiner's side against a survivor that answers its `Rejoin` as `answering` says and
/// never answers a `Resume`; polled until it fails or `for_at_most` has passed. Its outcome
/// (`None`: still under way), the `Resume`s the survivor heard with how long after the rejoin
/// was accepted the last poll came, and the rejoin itself.
fn rejoin_answered(
    answering: Answering,
    for_at_most: Duration,
) -> (
    Option<crate::Error>,
    (usize, Duration),
    crate::session::netplay::rejoin::Rejoining<World>,
) {
    let net = MemoryNet::default();
    let secret = MatchSecret::from_bytes([7; 32]);
    let world = engine::World::new(Rules::default(), 11, 2).expect("world");
    let (mut rejoining, survivor) = rejoin_toward_survivor(&net, world, &secret);
    let started = Instant::now();
    let (mut resumes, mut accepted) = (0, None::<Instant>);
    while started.elapsed() < for_at_most {
        // Before the poll, so no send of the poll that is accepted comes before it.
        let polled = Instant::now();
        if let Err(e) = rejoining.poll() {
            return (Some(e), (resumes, Duration::ZERO), rejoining);
        }
        if accepted.is_none() && rejoining.stage_name() == "agreeing where the match goes on" {
            accepted = Some(polled);
        }
        survivor.borrow_mut().pump(false);
        let inbox = survivor.borrow_mut().take_control();
        for (from, msg) in inbox {
            match msg {
                Control::Rejoin { info, slot, noise } if answering == Answering::Accept => {
                    accept_rejoin(&survivor, from, &secret, (&info, slot, &noise));
                }
                Control::Rejoin { .. } => {
                    let reject = Control::Reject {
                        reason: "no such match here".into(),
                    };
                    (survivor.borrow_mut())
                        .send_raw(&wire::encode(Kind::Control, 0, &reject), from);
                }
                Control::Resume { .. } => resumes += 1,
                _ => {}
            }
        }
        std::thread::sleep(Duration::from_millis(1));
    }
    let since = accepted.map_or(Duration::ZERO, |a| a.elapsed());
    (None, (resumes, since), rejoining)
}

/// A clear `Reject` (anyone could send one) ends a rejoin only once no real answer has come
/// for the grace, saying the reason; the rejoin says what it is doing and when it gives up.
#[test]
fn a_clear_reject_ends_a_rejoin_after_the_grace_with_its_reason() {
    let (failed, _, rejoining) = rejoin_answered(Answering::RejectInClear, Duration::from_secs(4));
    match failed {
        Some(crate::Error::RejoinRefused { reason }) => assert_eq!(reason, "no such match here"),
        other => panic!("expected the refusal, got {other:?}"),
    }
    assert!(
        rejoining.waited() >= crate::net::handshake::CLEAR_REJECT_GRACE,
        "refused after {:?}",
        rejoining.waited()
    );
    assert_eq!(rejoining.gives_up_after(), Duration::from_millis(5_000));
    let (_, _, under_way) = rejoin_answered(Answering::RejectInClear, Duration::from_millis(20));
    assert_eq!(
        format!("{under_way:?}"),
        "Rejoining { stage: \"proving this is the player who left\", .. }"
    );
}

/// Once accepted, the rejoiner says where its log ends at once and again only at the repeat's
/// pace (150 ms), however often it is polled.
#[test]
fn an_accepted_rejoiner_repeats_its_resume_at_the_repeats_pace() {
    let (failed, (resumes, since), _) =
        rejoin_answered(Answering::Accept, Duration::from_millis(300));
    assert!(failed.is_none(), "{failed:?}");
    let repeats = since.as_millis() as usize / 150 + 1;
    assert!(resumes >= 1, "the resume was said");
    assert!(
        resumes <= repeats,
        "{resumes} resumes in {since:?} of polls every millisecond"
    );
}

/// A rejoiner resumed in the next epoch whose survivor then vanishes: its new session does
/// not synchronize forever (GGRS would wait), but gives the survivor up after the reconnect
/// grace, saying so.
#[test]
fn a_rejoiner_whose_survivor_vanishes_after_the_resume_gives_it_up_after_the_grace() {
    let (peer, _) = rejoin_against(|w| {
        let gap = vec![WireInput::default(); (w.tick() - 50) as usize * 2];
        vec![Control::ResumeAt {
            epoch: 2,
            tick: w.tick(),
            hash: w.state_hash().combined,
            gap: InputRun::encode(&gap),
        }]
    });
    let mut peer = peer.expect("resumed");
    let started = Instant::now();
    let guard = started + Duration::from_secs(20);
    let err = loop {
        match peer.advance(WireInput::default()) {
            Ok(advance) => {
                assert_eq!(advance, Advance::Synchronizing);
                assert!(Instant::now() < guard, "waits forever");
            }
            Err(e) => break e,
        }
        std::thread::sleep(Duration::from_millis(5));
    };
    assert!(started.elapsed() >= Duration::from_millis(1_000));
    assert!(
        matches!(&err, Error::SyncTimeout { peers, millis: 1_000 } if peers == "the other player of the new epoch"),
        "{err}"
    );
}

/// A survivor that answers the `Resume` with the inputs of the ticks the log lacks (not its
/// state whole): the rejoiner steps them and goes on in the next epoch at the survivor's tick;
/// the same answer with another hash is refused.
#[test]
fn a_rejoiner_resumed_with_the_gap_steps_it_and_goes_on_at_the_survivors_tick() {
    fn resumed_at(w: &engine::World, hash: u64) -> Vec<Control> {
        let gap = vec![WireInput::default(); (w.tick() - 50) as usize * 2];
        vec![Control::ResumeAt {
            epoch: 2,
            tick: w.tick(),
            hash,
            gap: InputRun::encode(&gap),
        }]
    }
    let (peer, stages) = rejoin_against(|w| resumed_at(w, w.state_hash().combined));
    let peer = peer.expect("the honest answer");
    assert_eq!(peer.world().tick(), 80);
    assert_eq!(peer.agreement().epoch, 2);
    assert_eq!(
        stages,
        [
            "proving this is the player who left",
            "agreeing where the match goes on"
        ]
    );
    assert_eq!(peer.rejoin_report().expect("a report").gap_ticks, 30);
    // At the log's own end: nothing to step, the log's own state.
    let (peer, _) = rejoin_against(|_| {
        let mut at_50 = engine::World::new(Rules::default(), 11, 2).expect("world");
        while at_50.tick() < 50 {
            let t = at_50.tick();
            (at_50.step(&[engine::InputCmd::idle(t), engine::InputCmd::idle(t)])).expect("step");
        }
        vec![Control::ResumeAt {
            epoch: 2,
            tick: 50,
            hash: at_50.state_hash().combined,
            gap: InputRun::default(),
        }]
    });
    let peer = peer.expect("resumed where the log ends");
    assert_eq!(peer.world().tick(), 50);
    assert_eq!(peer.rejoin_report().expect("a report").gap_ticks, 0);
    let misfits: [(Offer, &str); 4] = [
        (
            |w| resumed_at(w, w.state_hash().combined ^ 1),
            "the states differ at the resume tick 80",
        ),
        (
            |w| {
                let mut m = resumed_at(w, w.state_hash().combined);
                if let Control::ResumeAt { epoch, .. } = &mut m[0] {
                    *epoch = 1;
                }
                m
            },
            "resumes at tick 80 in epoch 1",
        ),
        (
            |_| {
                vec![Control::ResumeAt {
                    epoch: 2,
                    tick: 49,
                    hash: 0,
                    gap: InputRun::default(),
                }]
            },
            "resumes at tick 49 in epoch 2; this log ends at tick 50",
        ),
        (
            |w| {
                let mut m = resumed_at(w, w.state_hash().combined);
                if let Control::ResumeAt { gap, .. } = &mut m[0] {
                    let mut inputs = duel_inputs(gap);
                    inputs.pop();
                    *gap = InputRun::encode(&inputs);
                }
                m
            },
            "sent 59 inputs for the 30 ticks",
        ),
    ];
    for (offer, says) in misfits {
        match rejoin_against(offer).0 {
            Err(crate::Error::RejoinRefused { reason }) => {
                assert!(reason.contains(says), "{reason}")
            }
            other => panic!("expected a refusal saying {says:?}, got {other:?}"),
        }
    }
}
