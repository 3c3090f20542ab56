//! The ring race — a second game with a differently shaped state — played by the same
//! generic session code as the duel, over the in-memory network: a host, a joiner and a
//! spectator agree tick by tick with a plain run of the confirmed inputs; a desync injected
//! into the joiner's step is detected and repaired by the host's state; a peer of the other
//! game is refused by name.

use super::*;
use crate::session::driver::Injection;
use crate::session::netplay::{EpochCause, NetEvent};
use game_api::Tick;
use ring_race::{buttons, RingInput, RingPhase, RingRace, RingRules};

fn race_config(spectators: usize) -> NetConfig<RingRace> {
    NetConfig::<RingRace> {
        handshake_timeout: Duration::from_secs(30),
        sync_timeout: Duration::from_secs(5),
        spectators,
        seed: 11,
        ..NetConfig::<RingRace>::default()
    }
}

/// Slot `slot`'s input when its world stands at `tick`: thrust that sweeps both ways, a dash
/// now and then, so that racers pass, bump and take coins.
fn racer_input(slot: usize, tick: Tick) -> RingInput {
    let sweep = (tick as i32 * (3 + slot as i32 * 2) + slot as i32 * 90) % 254;
    RingInput {
        thrust: (sweep - 127) as i8,
        buttons: if tick.is_multiple_of(37 + slot as u32 * 11) {
            buttons::DASH
        } else {
            0
        },
    }
}

/// Every peer advanced once with its scripted input (a spectator's is ignored).
fn advance_all(peers: &mut [NetPeer<RingRace>]) {
    for (slot, peer) in peers.iter_mut().enumerate() {
        let input = racer_input(slot, peer.world().tick());
        let _ = peer.advance(input);
    }
}

/// The confirmed inputs of ticks `from..` the host's final tick, appended to `inputs`.
fn record_confirmed(host: &NetPeer<RingRace>, inputs: &mut Vec<Vec<RingInput>>) {
    for tick in inputs.len() as Tick..host.final_tick() {
        let played = host.driver().inputs_at(tick).expect("still in the history");
        inputs.push(played.to_vec());
    }
}

/// A host, a joiner and a spectator of the ring race, connected (the match runs).
fn race_of_three(net: &MemoryNet, cfg: &NetConfig<RingRace>) -> Vec<NetPeer<RingRace>> {
    let mut h = host(net, cfg);
    let mut j = joiner(net, 2, Role::Player, cfg);
    let mut s = joiner(net, 3, Role::Spectator, cfg);
    let (peers, _) = poll_until(&mut [&mut h, &mut j, &mut s], all_handed_over);
    peers.into_iter().map(|p| p.expect("handed over")).collect()
}

#[test]
fn the_ring_race_plays_over_the_network_as_a_plain_run_of_its_confirmed_inputs() {
    let net = MemoryNet::default();
    let mut peers = race_of_three(&net, &race_config(1));
    let mut confirmed = Vec::new();
    let guard = Instant::now() + Duration::from_secs(30);
    while peers.iter().any(|p| p.final_tick() < 400) {
        assert!(Instant::now() < guard, "the race does not get going");
        advance_all(&mut peers);
        record_confirmed(&peers[0], &mut confirmed);
    }
    // A plain run of the confirmed inputs, from a fresh race.
    let mut plain = RingRace::new(RingRules::default(), 11, 2).expect("a race");
    let mut hashes = vec![plain.state_hash()];
    for inputs in &confirmed {
        plain.step(inputs).expect("steps");
        hashes.push(plain.state_hash());
    }
    // Both racers' scripted inputs reached the host as played (the joiner's over the wire).
    let thrusts: std::collections::BTreeSet<(usize, i8)> = (confirmed.iter())
        .flat_map(|inputs| inputs.iter().enumerate().map(|(s, i)| (s, i.thrust)))
        .collect();
    assert!(thrusts.len() > 100, "{} distinct inputs", thrusts.len());
    // Every peer's state at every tick it still holds is the plain run's.
    let last = peers.iter().map(NetPeer::final_tick).min().expect("peers");
    for (who, peer) in ["host", "joiner", "spectator"].iter().zip(&peers) {
        for tick in last.saturating_sub(40)..=last {
            let held = peer.driver().hash_at(tick).expect("held");
            assert_eq!(held, hashes[tick as usize], "{who} at tick {tick}");
        }
    }
    let scores: Vec<u8> = plain.state().racers.iter().map(|r| r.score).collect();
    assert!(
        scores.iter().any(|&s| s > 0),
        "coins were taken: {scores:?}"
    );
}

/// A host and a joiner whose step to tick 150 is nudged by one bit after its `bumps` phase,
/// every time it is simulated.
fn nudged_after_bumps_at_150(net: &MemoryNet, cfg: &NetConfig<RingRace>) -> Vec<NetPeer<RingRace>> {
    let (hosted, mut joined) = connected_pair(net, cfg);
    joined.driver_mut().inject(Injection {
        tick: 150,
        first_pass_only: false,
        after: RingPhase::Bumps,
    });
    vec![hosted, joined]
}

#[test]
fn a_desync_in_the_joiners_bumps_is_detected_and_repaired_by_the_hosts_state() {
    let net = MemoryNet::default();
    let cfg = race_config(0);
    let mut peers = nudged_after_bumps_at_150(&net, &cfg);
    let mut desyncs = Vec::new();
    let guard = Instant::now() + Duration::from_secs(30);
    while peers.iter().any(|p| p.final_tick() < 450) {
        assert!(
            Instant::now() < guard,
            "the race does not get past the resync"
        );
        advance_all(&mut peers);
        for peer in &mut peers {
            for event in peer.take_events() {
                if let NetEvent::DesyncDetected { tick, .. } = event {
                    desyncs.push(tick);
                }
            }
        }
    }
    assert!(desyncs.iter().any(|&t| t >= 150), "detected: {desyncs:?}");
    // The joiner went on from the host's state in a new epoch; since then both agree.
    let epochs = peers[1].epochs();
    let resync = (epochs.iter())
        .find(|e| matches!(e.cause, EpochCause::Resync(_)))
        .expect("a resync epoch");
    let EpochCause::Resync(detail) = &resync.cause else {
        unreachable!()
    };
    assert_ne!(
        detail.replaced, resync.hash,
        "the joiner's own state differed"
    );
    let last = peers[0].final_tick().min(peers[1].final_tick());
    for tick in last.saturating_sub(40)..=last {
        assert_eq!(
            peers[0].driver().hash_at(tick).expect("host"),
            peers[1].driver().hash_at(tick).expect("joiner"),
            "tick {tick}"
        );
    }
}

#[test]
fn a_peer_of_the_other_game_is_refused_by_name() {
    let net = MemoryNet::default();
    let mut h = host(&net, &race_config(0));
    let mut j = joiner(&net, 2, Role::Player, &config(30_000, 5_000, 0));
    let guard = Instant::now() + Duration::from_secs(10);
    let refusal = loop {
        assert!(Instant::now() < guard, "no refusal");
        let _ = h.poll();
        match j.poll() {
            Ok(None) => {}
            Ok(Some(_)) => panic!("a duel joined a ring race"),
            Err(e) => break e.to_string(),
        }
        std::thread::sleep(Duration::from_millis(1));
    };
    assert!(refusal.contains("game ring-race vs maze-duel"), "{refusal}");
}

/// A fresh directory for one test's files.
fn scratch(name: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("ring-race-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("scratch dir");
    dir
}

/// Contract: the whole desync path — a networked peer's logs and dumps, then the report that
/// reads both peers' files — serves the ring race as it serves the duel: a one-bit desync
/// injected after the joiner's `bumps` phase (not repaired here) is named by its tick, its
/// section, the field that differs, the phase where it began, and the peer whose own states
/// do not follow from its inputs.
#[test]
fn a_desync_in_the_ring_race_is_named_down_to_phase_field_and_faulty_peer() {
    use crate::forensics::{desync_report, PeerFiles};
    use crate::logs::peer_logs::{LogPaths, PeerLogs};
    let dir = scratch("desync");
    let net = MemoryNet::default();
    // Checksums compared every 7 ticks: the first check after the nudge is at 154, and the
    // dumps reach back the interval from there, over the tick that first differed.
    let cfg = NetConfig::<RingRace> {
        resync: false,
        desync_interval: 7,
        ..race_config(0)
    };
    let mut peers = nudged_after_bumps_at_150(&net, &cfg);
    let mut notices = Vec::new();
    let files: Vec<PeerFiles> = ["host", "join"]
        .iter()
        .map(|role| PeerFiles {
            hash_log: dir.join(format!("{role}.hashes")),
            dumps: dir.join(format!("{role}.dumps")),
            match_log: Some(dir.join(format!("{role}.log"))),
        })
        .collect();
    let mut logs: Vec<PeerLogs<RingRace>> = (peers.iter().zip(&files))
        .map(|(peer, f)| {
            let paths = LogPaths {
                hash_log: Some(f.hash_log.clone()),
                match_log: f.match_log.clone(),
                dump_dir: Some(f.dumps.clone()),
            };
            PeerLogs::open(peer, &paths, None).expect("logs open")
        })
        .collect();
    let guard = Instant::now() + Duration::from_secs(30);
    while peers.iter().any(|p| p.final_tick() < 300) {
        assert!(Instant::now() < guard, "the race does not get to tick 300");
        advance_all(&mut peers);
        for (peer, log) in peers.iter_mut().zip(&mut logs) {
            log.catch_up(peer, Tick::MAX).expect("logged");
            for event in peer.take_events() {
                if let NetEvent::DesyncDetected {
                    tick,
                    local,
                    remote,
                    peer: from,
                } = event
                {
                    notices.extend(
                        log.on_desync(peer, tick, local, remote, from)
                            .expect("dumped"),
                    );
                }
            }
        }
    }
    for log in &mut logs {
        log.close(true).expect("closed");
    }
    // A desync is noticed again only when reported at a tick earlier than every one noticed:
    // GGRS can report a later tick first (it takes checksums in a `HashMap`'s order).
    let mut told = PeerLogs::open(&peers[0], &LogPaths::default(), None).expect("no logs");
    let from: std::net::SocketAddr = "127.0.0.1:9".parse().unwrap();
    let mut notice_at = |tick| {
        (told.on_desync(&peers[0], tick, 1, 2, from))
            .expect("nothing to dump")
            .map(|notice| notice.tick)
    };
    assert_eq!(notice_at(161), Some(161));
    assert_eq!(notice_at(168), None);
    assert_eq!(notice_at(154), Some(154));
    assert_eq!(notice_at(154), None);
    assert_eq!(notice_at(161), None);
    // Each peer is told once, with the interval its checks ran at and the ticks it dumped.
    assert_eq!(notices.len(), 2, "{notices:?}");
    for notice in &notices {
        assert_eq!((notice.tick, notice.interval), (154, 7), "{notice:?}");
        let (_, first, last) = notice.dumps.clone().expect("dumped");
        assert_eq!((first, last), (147, 154), "{notice:?}");
    }
    let mut lines = Vec::new();
    let found = desync_report::<RingRace>(&files[0], &files[1], &mut lines).expect("a report");
    let report = lines.join("\n");
    assert_eq!(found, Some((150, "racers".to_owned())), "{report}");
    assert!(
        report.contains("first phase that differs in the step to tick 150: bumps"),
        "{report}"
    );
    assert!(
        report.contains("racers[1].pos: "),
        "the field named: {report}"
    );
    assert!(
        report.contains("=> the faulty peer is join"),
        "the joiner named: {report}"
    );
    // The fields named are those of both peers' states at that tick (a state of another tick
    // would differ in `tick` too): only the joiner's nudged racer.
    let fields: Vec<&str> = (report.lines())
        .skip_while(|l| !l.starts_with("fields that differ at tick 150:"))
        .skip(1)
        .take_while(|l| l.starts_with("  "))
        .collect();
    assert!(
        !fields.is_empty() && fields.iter().all(|l| l.starts_with("  racers[1].")),
        "{report}"
    );
    // Each peer's own step to that tick, re-simulated here from its dumped state: the host's
    // follows, the joiner's does not, from the phase the nudge came after.
    let retraced = "its step to tick 150, re-simulated here from its dumped state and logged \
                    inputs,";
    assert!(
        report.contains(&format!(
            "host: {retraced} matches its own per-phase hashes"
        )),
        "{report}"
    );
    assert!(
        report.contains(&format!(
            "join: {retraced} differs from its own per-phase hashes after phase bumps"
        )),
        "{report}"
    );
    // Without the joiner's dump of that tick, the fields named are those of the next tick both
    // peers dumped: the host's dump of the tick is not compared with another of the joiner's.
    use crate::forensics::dumps::dump_file;
    let joiners = dump_file(&files[1].dumps, "snapshot", 150);
    std::fs::remove_file(joiners.expect("the joiner dumped tick 150")).expect("removed");
    let both = |t| {
        dump_file(&files[0].dumps, "snapshot", t).is_some()
            && dump_file(&files[1].dumps, "snapshot", t).is_some()
    };
    let expected = match (151..=300).find(|&t| both(t)) {
        Some(t) => format!("fields that differ at tick {t}:"),
        None => format!(
            "no snapshot dumps of tick 150 or later on both sides ({} / {})",
            files[0].dumps.display(),
            files[1].dumps.display()
        ),
    };
    let mut lines = Vec::new();
    desync_report::<RingRace>(&files[0], &files[1], &mut lines).expect("a report");
    assert!(lines.contains(&expected), "{expected}: {lines:#?}");
    // The duel's reader refuses the race's files, naming both games.
    let refused = desync_report::<engine::World>(&files[0], &files[1], &mut Vec::new())
        .expect_err("another game's logs");
    assert!(refused.to_string().contains("ring-race"), "{refused}");
    let _ = std::fs::remove_dir_all(&dir);
}
