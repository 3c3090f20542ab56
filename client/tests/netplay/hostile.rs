//! Hostile peers and fake hosts (issue 9, items 12–18, kept under the sealed protocol of
//! issue 17): strangers at the handshake, peers that vanish before GGRS synchronizes, crafted
//! GGRS messages in the real layout sealed by a peer that holds real keys, lost refusals, late
//! joiners, and the host's first sync request arriving with its answer. Every datagram here is
//! built by hand from a real socket on 127.0.0.1, the Noise handshake through
//! `client::net::seal`.

use crate::common::*;
use crate::raw::*;
use client::net::ggrs_message::{literal_run, Body, ConnectionStatus, GgrsMessage, Input, Limits};
use client::net::wire::{Control, HostAnswer, PeerInfo, Role};
use client::session::netplay::NetPeer;
use client::session::GgrsConfig;
use client::Error;
use engine::Rules;
use engine::World;
use std::sync::mpsc;
use std::time::{Duration, Instant};

pub fn other_rules_info() -> PeerInfo {
    PeerInfo::local::<World>(&Rules {
        block_hp: 5,
        ..Rules::default()
    })
}

/// A host (taking `spectators`) that no real joiner will reach: it answers strangers for 2 s,
/// then must end with a handshake timeout, which [`ImpatientHost::times_out`] checks.
pub struct ImpatientHost {
    pub addr: std::net::SocketAddr,
    thread: PeerThread,
}

impl ImpatientHost {
    pub fn start(name: &str, spectators: usize) -> ImpatientHost {
        Self::start_with(name, spectators, None)
    }

    pub fn start_with(
        name: &str,
        spectators: usize,
        invite: Option<client::net::seal::InviteCode>,
    ) -> ImpatientHost {
        let dir = scratch_dir(name);
        let mut config = test_config(Default::default());
        config.handshake_timeout = Duration::from_secs(2);
        config.spectators = spectators;
        config.invite = invite;
        let (addr, thread) = spawn_loopback_host(config, plan(60, 1, &dir.join("h.log")));
        ImpatientHost { addr, thread }
    }

    /// The host kept waiting for an agreeing joiner until its timeout, strangers or not.
    pub fn times_out(self) {
        let result = self.thread.join().expect("host thread did not panic");
        assert!(
            matches!(result, Err(Error::HandshakeTimeout { .. })),
            "{:?}",
            result.map(|r| r.ticks)
        );
    }
}

fn refusal(answer: Result<(HostAnswer, Option<SealedPeer>), String>) -> String {
    match answer {
        Ok((HostAnswer::Reject { reason }, None)) => reason,
        Ok((answer, _)) => panic!("expected a refusal, got {answer:?}"),
        Err(clear) => panic!("expected an authenticated refusal, got the clear {clear:?}"),
    }
}

/// Item 13: one stranger's `Hello` with other rules used to end a waiting host ("match refused
/// at handshake", exit 1). It is refused, under keys, with the rules that differ, and the host
/// goes on to play the real joiner.
#[test]
fn a_stranger_with_other_rules_is_refused_and_the_host_keeps_waiting() {
    let dir = scratch_dir("hostile-rules-stranger");
    let ticks = 300;
    let (h, j) = (dir.join("host.log"), dir.join("join.log"));
    let (addr, host) = spawn_loopback_host(test_config(Default::default()), plan(ticks, 1, &h));
    let reason = refusal(RawPeer::bind().handshake(&other_rules_info(), Role::Player, None, addr));
    assert!(reason.contains("rules differ: block_hp 3 vs 5"), "{reason}");
    let joiner = spawn_loopback_joiner(
        addr,
        Role::Player,
        test_config(Default::default()),
        plan(ticks, 2, &j),
    );
    let host = host.join().expect("host thread").expect("host plays on");
    let joiner = joiner.join().expect("joiner thread").expect("joiner plays");
    assert_eq!((host.ticks, joiner.ticks), (ticks, ticks));
    assert!(host.socket.hellos_refused >= 1, "{:?}", host.socket);
    assert_logs_identical(&[&h, &j], ticks);
}

/// Found on the way (item 13's class): the host echoed a stranger's engine version whole in its
/// refusal; 4 000 bytes of it pushed the answer past the payload limit and the encoder
/// panicked, ending the host. The echo is cut short and the host keeps waiting. (Since
/// protocol 6 the version is the game's.)
#[test]
fn a_hello_with_a_huge_game_version_is_refused_without_crashing_the_host() {
    let host = ImpatientHost::start("hostile-huge-version", 0);
    let mut info = our_info();
    // As long as a Hello may be (the payload limit is 4096 bytes, the rules take ~110).
    info.game_version = "9".repeat(3700);
    let reason = refusal(RawPeer::bind().handshake(&info, Role::Player, None, host.addr));
    assert!(
        reason.contains("maze-duel ") && reason.len() < 300,
        "{reason}"
    );
    host.times_out();
}

/// Item 16: a lost refusal was never sent again, so at 50 % loss the joiner waited out its
/// timeout and blamed the host. The same `Hello` repeated is answered again, with the same
/// answer (from the host's cache: no second Diffie–Hellman), which opens to the reason.
#[test]
fn a_lost_reject_is_sent_again_at_the_next_hello() {
    let dir = scratch_dir("hostile-lost-reject");
    let mut config = test_config(Default::default());
    config.handshake_timeout = Duration::from_secs(3);
    let (addr, host) = spawn_loopback_host(config, plan(60, 1, &dir.join("h.log")));
    let stranger = RawPeer::bind();
    let (hello, mut initiator) = hello_for(&other_rules_info(), Role::Player, None);
    let mut answers = Vec::new();
    for _ in 0..2 {
        // The first answer is "lost": read and kept aside, as if it never arrived.
        stranger.send_control(&hello, addr);
        if let Some((_, Control::Answer { noise })) = stranger.recv_control(soon()) {
            answers.push(noise);
        }
    }
    assert_eq!(answers.len(), 2, "each Hello is answered");
    assert_eq!(answers[0], answers[1], "with the same answer");
    let payload = initiator.read_answer(&answers[1]).expect("opens");
    let Ok(HostAnswer::Reject { reason }) = client::net::wire::decode(&payload) else {
        panic!("not a refusal")
    };
    assert!(reason.contains("rules differ: block_hp 3 vs 5"), "{reason}");
    let result = host.join().expect("host thread");
    let Err(Error::HandshakeTimeout { .. }) = result else {
        panic!("{:?}", result.map(|r| r.ticks))
    };
}

/// Item 16 as the issue saw it: at 50 % loss on the host's side, a joiner with other rules
/// waited out its timeout and said "no answer … is the host running?". It hears the reason.
#[test]
fn at_half_loss_a_refused_joiner_hears_the_reason_not_no_answer() {
    let dir = scratch_dir("hostile-half-loss-reject");
    let lossy = client::net::conditioner::ConditionerConfig {
        loss_permille: 500,
        burst_len: 1,
        seed: 3,
        ..Default::default()
    };
    let mut host_config = test_config(lossy);
    host_config.handshake_timeout = Duration::from_secs(3);
    let (addr, host) = spawn_host(
        move || loopback_link(lossy),
        host_config,
        plan(60, 1, &dir.join("h.log")),
    );
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
        panic!("expected the refusal, got {:?}", joined.map(|_| ()))
    };
    assert!(reason.contains("rules differ: block_hp 3 vs 5"), "{reason}");
    assert!(matches!(
        host.join().expect("host thread"),
        Err(Error::HandshakeTimeout { .. })
    ));
}

/// Item 16: a joiner arriving once the match is under way got silence and then "no answer
/// (is the host running?)". It is told the match is under way.
#[test]
fn a_late_joiner_is_told_the_match_is_under_way() {
    let dir = scratch_dir("hostile-late-joiner");
    let ticks = 300;
    let (h, j) = (dir.join("host.log"), dir.join("join.log"));
    let (addr, host) = spawn_loopback_host(test_config(Default::default()), plan(ticks, 1, &h));
    let (tx, rx) = mpsc::channel();
    let joiner_plan = plan(ticks, 2, &j);
    let joiner = std::thread::spawn(move || {
        let peer = NetPeer::<World>::join_on(
            loopback_link(Default::default()),
            addr,
            Role::Player,
            &test_config(Default::default()),
        )?;
        tx.send(()).expect("signal");
        client::runs::run_net_peer(peer, &joiner_plan)
    });
    rx.recv_timeout(Duration::from_secs(30))
        .expect("the real joiner synchronized");
    let late = RawPeer::bind();
    let deadline = soon();
    let mut answer = None;
    while answer.is_none() && Instant::now() < deadline {
        late.hello(&our_info(), Role::Player, None, addr);
        answer = late.recv_control(Instant::now() + Duration::from_millis(200));
    }
    let Some((_, Control::Reject { reason })) = answer else {
        panic!("the late joiner got {answer:?}")
    };
    assert!(reason.contains("under way"), "{reason}");
    let host = host.join().expect("host thread").expect("host run");
    joiner.join().expect("joiner thread").expect("joiner run");
    assert_eq!(host.ticks, ticks);
    assert!(host.socket.late_hellos_refused >= 1);
}

/// Item 12: a stranger's valid `Hello` took the slot and vanished; GGRS never synchronized and
/// the host hung forever while the real joiner was told "the match is full". A stranger that
/// completes the handshake (it proves its keys, so it does take the slot) and then vanishes is
/// forgotten at the sync timeout and the host welcomes the real joiner.
#[test]
fn a_welcomed_peer_that_vanishes_before_sync_frees_the_slot() {
    let dir = scratch_dir("hostile-vanish-before-sync");
    let ticks = 300;
    let (h, j) = (dir.join("host.log"), dir.join("join.log"));
    let mut host_config = test_config(Default::default());
    host_config.sync_timeout = Duration::from_secs(2);
    let (addr, host) = spawn_loopback_host(host_config, plan(ticks, 1, &h));
    let mut stranger = RawPeer::welcomed(addr, Role::Player);
    // The host's first sync request says the slot is the stranger's (a real joiner asking
    // before that would be welcomed too, and lose the slot to it: see the report on the
    // welcomed candidate that loses the race).
    assert!(
        stranger.recv_ggrs(soon()).is_some(),
        "the host synchronizes with the stranger"
    );
    drop(stranger); // and vanishes
    let joiner = spawn_loopback_joiner(
        addr,
        Role::Player,
        test_config(Default::default()),
        plan(ticks, 2, &j),
    );
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(host.join());
    });
    let host = rx
        .recv_timeout(Duration::from_secs(60))
        .expect("the host does not hang")
        .expect("host thread")
        .expect("host plays the real joiner");
    let joiner = joiner.join().expect("joiner thread").expect("joiner plays");
    assert_eq!((host.ticks, joiner.ticks), (ticks, ticks));
    assert_logs_identical(&[&h, &j], ticks);
}

fn welcome(players: u8, slot: Option<u8>) -> HostAnswer {
    HostAnswer::Welcome {
        info: our_info(),
        match_seed: 1,
        players,
        slot,
        secret: None,
    }
}

/// Item 12, the joiner's side: a host that welcomes (under real keys) and then vanishes before
/// GGRS synchronizes used to leave the joiner waiting forever.
#[test]
fn a_host_that_vanishes_after_the_welcome_is_reported() {
    let fake_host = RawPeer::bind();
    let host_addr = fake_host.addr();
    let mut config = test_config(Default::default());
    config.handshake_timeout = Duration::from_secs(2);
    config.sync_timeout = Duration::from_secs(1);
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let joined = NetPeer::<World>::join_on(
            loopback_link(Default::default()),
            host_addr,
            Role::Player,
            &config,
        );
        let _ = tx.send(joined.map(|_| ()));
    });
    let (_fake, _) = fake_host.answer_hello(&welcome(2, Some(1)));
    let result = rx
        .recv_timeout(Duration::from_secs(30))
        .expect("the joiner does not hang");
    assert!(
        matches!(result, Err(Error::SyncTimeout { .. })),
        "{result:?}"
    );
}

/// The sync timeout (item 12) must not cut off a joiner whose host is still waiting for a
/// spectator: GGRS starts only once everyone has arrived.
#[test]
fn a_joiner_waits_while_the_host_still_waits_for_its_spectator() {
    let dir = scratch_dir("hostile-late-spectator");
    let ticks = 120;
    let (h, j, s) = (dir.join("h.log"), dir.join("j.log"), dir.join("s.log"));
    let mut host_config = test_config(Default::default());
    host_config.spectators = 1;
    let (addr, host) = spawn_loopback_host(host_config, plan(ticks, 1, &h));
    let mut quick = test_config(Default::default());
    quick.sync_timeout = Duration::from_millis(500);
    let joiner = spawn_loopback_joiner(addr, Role::Player, quick.clone(), plan(ticks, 2, &j));
    // Arrives well after the joiner's own sync timeout would have run out.
    std::thread::sleep(Duration::from_secs(2));
    let spectator = spawn_loopback_joiner(addr, Role::Spectator, quick, plan(ticks, 0, &s));
    for (name, t) in [("host", host), ("joiner", joiner), ("spectator", spectator)] {
        let summary = t.join().expect("thread").expect(name);
        assert_eq!(summary.ticks, ticks, "{name}");
    }
}

/// A hostile "host" (holding real keys) may welcome us with any numbers; only a two-player
/// match in the slot we asked for is accepted before anything reaches GGRS's builder.
#[test]
fn a_welcome_with_impossible_numbers_is_refused() {
    for (players, slot) in [(200u8, Some(1u8)), (2, Some(0)), (2, None)] {
        let fake_host = RawPeer::bind();
        let host_addr = fake_host.addr();
        let (tx, rx) = mpsc::channel();
        std::thread::spawn(move || {
            let joined = NetPeer::<World>::join_on(
                loopback_link(Default::default()),
                host_addr,
                Role::Player,
                &test_config(Default::default()),
            );
            let _ = tx.send(joined.map(|_| ()));
        });
        let _fake = fake_host.answer_hello(&welcome(players, slot));
        let result = rx.recv_timeout(Duration::from_secs(30)).expect("no hang");
        let Err(Error::Refused { reason }) = result else {
            panic!("{players} {slot:?}: {result:?}")
        };
        assert!(reason.contains("invalid welcome"), "{reason}");
    }
}

/// Item 18: the host's first sync request travels right behind the handshake and used to be
/// dropped (the session was not set up yet), costing a 200 ms retry. A host starts GGRS once
/// the joiner's sealed `Joined` arrives; a sync request sent the moment it does is held and
/// answered, sealed under the new channel.
#[test]
fn the_hosts_first_sync_request_arriving_with_the_welcome_is_answered() {
    let fake_host = RawPeer::bind();
    let host_addr = fake_host.addr();
    let mut config = test_config(Default::default());
    config.sync_timeout = Duration::from_secs(5);
    std::thread::spawn(move || {
        let _ = NetPeer::<World>::join_on(
            loopback_link(Default::default()),
            host_addr,
            Role::Player,
            &config,
        );
    });
    let (mut fake, _) = fake_host.answer_hello(&welcome(2, Some(1)));
    let deadline = soon();
    let mut joined = false;
    while !joined && Instant::now() < deadline {
        if let Some((_, datagram)) = fake.raw.recv_datagram(deadline) {
            joined = matches!(
                fake.channel.open(&datagram),
                Ok((client::net::seal::Inner::Control, _))
            );
        }
    }
    assert!(joined, "the joiner proved it read the answer");
    fake.send_ggrs(&GgrsMessage {
        magic: 9,
        body: Body::SyncRequest {
            random_request: 0xabcd,
        },
    });
    let deadline = soon();
    let mut answered = false;
    while !answered {
        let Some(msg) = fake.recv_ggrs(deadline) else {
            break;
        };
        answered = msg.body
            == Body::SyncReply {
                random_reply: 0xabcd,
            };
    }
    assert!(answered, "the first sync request was answered");
}

pub fn input_size() -> usize {
    Limits::for_match::<GgrsConfig<engine::World>>(2, 8).input_size
}

pub fn statuses() -> Vec<ConnectionStatus> {
    vec![
        ConnectionStatus {
            disconnected: false,
            last_frame: -1,
        };
        2
    ]
}

fn varint(mut v: u64) -> Vec<u8> {
    let mut out = Vec::new();
    while v > 0x7f {
        out.push((v as u8) | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
    out
}

/// The crafted messages of issue 9 item 14, as `magic`, continuing from `start`: each crashed a
/// peer once (an assertion, an abort on allocation, an overflow inside GGRS's decoders). Each
/// must be refused by `ggrs_message::check` as outside the match's limits.
pub fn crafted(magic: u16, start: i32) -> Vec<GgrsMessage> {
    let input = |bytes: Vec<u8>| GgrsMessage {
        magic,
        body: Body::Input(Input {
            peer_connect_status: statuses(),
            disconnect_requested: false,
            start_frame: start,
            ack_frame: -1,
            bytes,
        }),
    };
    // 301 frames of real-looking input in one message.
    let mut frames = Vec::new();
    for _ in 0..301 {
        frames.extend_from_slice(&(input_size() as u16).to_le_bytes());
        frames.extend(std::iter::repeat_n(0u8, input_size()));
    }
    let too_many = input(literal_run(&frames));
    // A run-length header claiming 2^40 zero bytes.
    let huge = input(varint((1 << 40) << 2 | 1));
    // Run lengths whose sum overflows.
    let sum: Vec<u8> = (0..5).flat_map(|_| varint(u64::MAX - 2)).collect();
    let overflow = input(sum);
    // A varint of 0xff bytes that never ends.
    let ff = input(vec![0xff; 24]);
    // A pong from the epoch: the round trip times the frame rate overflows.
    let pong = GgrsMessage {
        magic,
        body: Body::QualityReply { pong: 0 },
    };
    // A checksum report at the lowest frame.
    let checksum = GgrsMessage {
        magic,
        body: Body::ChecksumReport {
            checksum: 0,
            frame: i32::MIN,
        },
    };
    vec![too_many, huge, overflow, ff, pong, checksum]
}

/// Found on the way (item 14's class): an `Input` from a spectator reached GGRS's
/// `assert!(player < num_players)` and ended the host. A spectator holding real keys that
/// synchronizes and then sends one, sealed, is refused; the players finish their match.
#[test]
fn an_input_from_a_spectator_is_dropped_and_the_match_goes_on() {
    use std::sync::atomic::{AtomicBool, Ordering};
    use std::sync::Arc;
    let dir = scratch_dir("hostile-spectator-input");
    let ticks = 300;
    let (h, j) = (dir.join("host.log"), dir.join("join.log"));
    let mut host_config = test_config(Default::default());
    host_config.spectators = 1;
    // The raw spectator never says `Finish`: do not wait long for it.
    let mut host_plan = plan(ticks, 1, &h);
    host_plan.finish_timeout = Duration::from_secs(1);
    let (addr, host) = spawn_loopback_host(host_config, host_plan);
    let stop = Arc::new(AtomicBool::new(false));
    let stop2 = stop.clone();
    let spectator = std::thread::spawn(move || {
        let Ok((HostAnswer::Welcome { slot: None, .. }, Some(mut raw))) =
            RawPeer::bind().handshake(&our_info(), Role::Spectator, None, addr)
        else {
            panic!("spectator not welcomed")
        };
        let mut sent = false;
        while !stop2.load(Ordering::Relaxed) {
            let Some(msg) = raw.recv_ggrs(Instant::now() + Duration::from_millis(50)) else {
                continue;
            };
            if let Body::SyncRequest { random_request } = msg.body {
                raw.send_ggrs(&GgrsMessage {
                    magic: 77,
                    body: Body::SyncReply {
                        random_reply: random_request,
                    },
                });
                if !sent {
                    let mut frame = (input_size() as u16).to_le_bytes().to_vec();
                    frame.extend(std::iter::repeat_n(0u8, input_size()));
                    raw.send_ggrs(&GgrsMessage {
                        magic: 77,
                        body: Body::Input(Input {
                            peer_connect_status: statuses(),
                            disconnect_requested: false,
                            start_frame: 0,
                            ack_frame: -1,
                            bytes: literal_run(&frame),
                        }),
                    });
                    sent = true;
                }
            }
        }
        sent
    });
    let joiner = spawn_loopback_joiner(
        addr,
        Role::Player,
        test_config(Default::default()),
        plan(ticks, 2, &j),
    );
    let host = host
        .join()
        .expect("host thread did not panic")
        .expect("host run");
    let joiner = joiner.join().expect("joiner thread").expect("joiner run");
    stop.store(true, Ordering::Relaxed);
    assert!(
        spectator.join().expect("spectator thread"),
        "the input was sent"
    );
    println!("host: {host} {:?}", host.socket);
    assert_eq!((host.ticks, joiner.ticks), (ticks, ticks));
    assert!(host.socket.dropped_invalid >= 1);
    assert_logs_identical(&[&h, &j], ticks);
}

/// Issue 10: a spectator at a host that takes none is told at its first `Hello` that the
/// spectator slots are full, in those words, not "the match is full" or silence.
#[test]
fn a_spectator_is_told_at_once_that_the_spectator_slots_are_full() {
    let host = ImpatientHost::start("hostile-spectators-full", 0);
    let reason = refusal(RawPeer::bind().handshake(&our_info(), Role::Spectator, None, host.addr));
    assert_eq!(
        reason,
        "spectator slots full: this host takes no spectators"
    );
    host.times_out();
}

/// The same when the host's only spectator slot is already taken by a spectator that proved
/// its keys.
#[test]
fn a_second_spectator_is_told_the_one_slot_is_taken() {
    let host = ImpatientHost::start("hostile-spectator-slot-taken", 1);
    let Ok((HostAnswer::Welcome { slot: None, .. }, Some(_first))) =
        RawPeer::bind().handshake(&our_info(), Role::Spectator, None, host.addr)
    else {
        panic!("the first spectator was not welcomed")
    };
    // The slot goes to the first once the host has read its sealed `Joined`: ask until the
    // second is refused (a bound on a hang, not a threshold).
    let deadline = soon();
    let reason = loop {
        let answer = RawPeer::bind().handshake(&our_info(), Role::Spectator, None, host.addr);
        if let Ok((HostAnswer::Reject { reason }, None)) = answer {
            break reason;
        }
        assert!(
            Instant::now() < deadline,
            "the second spectator was not told"
        );
    };
    assert_eq!(
        reason,
        "spectator slots full: its one spectator slot is taken"
    );
    host.times_out();
}

/// Issue 10: a `Hello` arriving while the host synchronizes with its joiner (every slot taken,
/// GGRS not yet running) was dropped unanswered, so a spectator waited out its whole timeout.
/// One `Hello` now gets its answer at once.
#[test]
fn a_spectator_arriving_while_the_host_synchronizes_is_answered_at_once() {
    let dir = scratch_dir("hostile-spectator-during-sync");
    let mut config = test_config(Default::default());
    config.handshake_timeout = Duration::from_secs(4);
    config.sync_timeout = Duration::from_secs(4);
    let (addr, host) = spawn_loopback_host(config, plan(60, 1, &dir.join("h.log")));
    // Takes the player slot (it proves its keys) and never synchronizes: the host sits in its
    // sync wait.
    let Ok((HostAnswer::Welcome { .. }, Some(_squatter))) =
        RawPeer::bind().handshake(&our_info(), Role::Player, None, addr)
    else {
        panic!("the squatter was not welcomed")
    };
    let watcher = RawPeer::bind();
    let deadline = soon();
    let reason = loop {
        // The host gives the slot at its next poll after the squatter's `Joined`; until then
        // a spectator's `Hello` is a candidate's, answered under keys.
        watcher.hello(&our_info(), Role::Spectator, None, addr);
        if let Some((_, Control::Reject { reason })) =
            watcher.recv_control(Instant::now() + Duration::from_millis(200))
        {
            break reason;
        }
        assert!(
            Instant::now() < deadline,
            "a spectator during sync got no answer"
        );
    };
    assert!(reason.starts_with("spectator slots full"), "{reason}");
    let _ = host.join().expect("host thread");
}

/// A `Hello` from a build of another protocol version does not decode here (its layout may
/// differ), yet its sender is told both versions instead of hearing nothing.
#[test]
fn a_hello_of_another_protocol_version_is_answered_with_both_versions() {
    let host = ImpatientHost::start("hostile-old-protocol", 0);
    // Variant 0 (Hello), protocol 1, then a layout this build does not know.
    let mut payload = Vec::new();
    payload.extend_from_slice(&0u32.to_le_bytes());
    payload.extend_from_slice(&1u32.to_le_bytes());
    payload.extend_from_slice(&[0xEE; 5]);
    let old = RawPeer::bind();
    old.send_raw(&frame(1, 0, &payload), host.addr);
    let Some((_, Control::Reject { reason })) = old.recv_control(soon()) else {
        panic!("the old build was not told")
    };
    let expected = format!(
        "protocol version {} vs 1",
        client::net::wire::PROTOCOL_VERSION
    );
    assert!(reason.starts_with(&expected), "{reason}");
    host.times_out();
}
