//! A desync is repaired, not only reported: the host's state becomes the joiner's, a new epoch
//! goes on from it, the two hash logs agree from the resync tick on, and both match logs
//! verify straight through it. With resync off the desync stays, as before.

use crate::common::*;
use client::logs::hashlog::read_hash_log_file;
use client::logs::matchlog::read_log;
use client::logs::replay::verify;
use client::net::wire::Role;
use client::session::netplay::NetConfig;
use engine::World;
use std::path::Path;

/// Which side's step to tick 150 is nudged (the faulty peer).
#[derive(Clone, Copy, PartialEq, Eq)]
enum Faulty {
    Host,
    Joiner,
}

/// Plays 600 ticks with a desync injected into the `faulty` side's step to tick 150; returns
/// both summaries.
fn play(
    dir: &Path,
    config: impl Fn() -> NetConfig<World>,
    faulty: Faulty,
) -> (client::runs::NetRunSummary, client::runs::NetRunSummary) {
    let mut host_plan = plan(600, 1, &dir.join("host.log"));
    host_plan.match_log = Some(dir.join("host.mlog"));
    let mut join_plan = plan(600, 2, &dir.join("join.log"));
    join_plan.match_log = Some(dir.join("join.mlog"));
    match faulty {
        Faulty::Host => host_plan.inject_desync = Some(150),
        Faulty::Joiner => join_plan.inject_desync = Some(150),
    }
    let (addr, host) = spawn_loopback_host(config(), host_plan);
    let joiner = spawn_loopback_joiner(addr, Role::Player, config(), join_plan);
    let host = host.join().expect("host thread").expect("host run");
    let joiner = joiner.join().expect("joiner thread").expect("joiner run");
    (host, joiner)
}

/// The whole contract, with the fault on either side: the host's state wins either way.
fn resynchronizes(faulty: Faulty, name: &str) {
    let dir = scratch_dir(name);
    let (host, joiner) = play(&dir, || test_config(Default::default()), faulty);
    println!("{host}\n{joiner}");
    assert!(host.desyncs > 0 && joiner.desyncs > 0, "both report it");
    assert_eq!(host.resyncs.len(), 1, "{:?}", host.resyncs);
    assert_eq!(host.resyncs, joiner.resyncs, "one resync, the same on both");
    let (detected, resumed) = host.resyncs[0];
    assert!(detected >= 150 && resumed >= detected, "{:?}", host.resyncs);
    assert_eq!((host.ticks, joiner.ticks), (600, 600));
    assert_eq!(host.final_hash, joiner.final_hash, "in sync at the end");

    let h = read_hash_log_file::<engine::World>(&dir.join("host.log")).expect("host hash log");
    let j = read_hash_log_file::<engine::World>(&dir.join("join.log")).expect("join hash log");
    assert_eq!(h.epochs, vec![(2, resumed)], "the resync is marked");
    assert_eq!(j.epochs, h.epochs);
    assert_eq!((h.entries.len(), j.entries.len()), (600, 600));
    for (a, b) in h.entries.iter().zip(&j.entries) {
        assert_eq!(a.tick, b.tick);
        let same = a == b;
        match a.tick {
            // Equal before the injection, different from it through the resume tick (the
            // joiner's own states, kept), equal after.
            t if t < 150 => assert!(same, "tick {t} agrees before the desync"),
            t if t <= resumed => assert!(!same, "tick {t}: the joiner's own state is logged"),
            t => assert!(same, "tick {t} agrees after the resync at {resumed}"),
        }
    }

    for side in ["host", "join"] {
        let log =
            read_log::<engine::World>(&dir.join(format!("{side}.mlog"))).expect("match log reads");
        assert_eq!(log.resyncs.len(), 1, "{side}");
        let r = &log.resyncs[0];
        assert_eq!(
            (r.epoch, r.tick, r.desync),
            (2, resumed, detected),
            "{side}"
        );
        // The state that replaced the joiner's is the host's at that tick; what it replaced
        // is what each side's own hash log holds there.
        let at = resumed as usize - 1;
        assert_eq!(r.hash, h.entries[at].hash, "{side}");
        let own = if side == "join" { &j } else { &h };
        assert_eq!(r.replaced, own.entries[at].hash, "{side}");
        // Each side dumped its states around the desync, as it did before resyncs, and its
        // log says where.
        let dumps = r.dumps.as_deref().expect("the dumps are named");
        assert!(Path::new(dumps)
            .join(format!("{side}-tick-{detected}.snapshot"))
            .exists());
        // The faulty side's log shows its fault: its state at tick 150 does not follow from
        // its inputs. The other's verifies to the end, through the resync.
        match (side == "host", faulty) {
            (true, Faulty::Host) | (false, Faulty::Joiner) => {
                let e = verify(&log, None).expect_err("the fault is in this log");
                assert!(
                    matches!(e, client::Error::VerifyMismatch { tick: 150, .. }),
                    "{side}: {e}"
                );
            }
            _ => {
                let report = verify(&log, None).expect("verifies straight through the resync");
                assert_eq!(report.ticks, 600, "{side}");
            }
        }
    }
}

/// The joiner diverges: it takes the host's state and the match goes on in sync.
#[test]
fn an_injected_desync_is_resynchronized_and_the_hash_logs_agree_from_the_resync_on() {
    resynchronizes(Faulty::Joiner, "resync-joiner");
}

/// The host diverges: its state still wins (it is authoritative), and the joiner's log, whose
/// own states all follow from its inputs, verifies through the state it took.
#[test]
fn a_desync_of_the_host_is_resynchronized_to_the_host_and_the_joiner_log_verifies() {
    resynchronizes(Faulty::Host, "resync-host");
}

#[test]
fn with_resync_off_the_desync_stays_and_is_only_reported() {
    let dir = scratch_dir("resync-off");
    let (host, joiner) = play(
        &dir,
        || NetConfig::<World> {
            resync: false,
            ..test_config(Default::default())
        },
        Faulty::Joiner,
    );
    assert!(host.desyncs > 0 && joiner.desyncs > 0);
    assert!(host.resyncs.is_empty() && joiner.resyncs.is_empty());
    let h = read_hash_log_file::<engine::World>(&dir.join("host.log")).expect("host hash log");
    let j = read_hash_log_file::<engine::World>(&dir.join("join.log")).expect("join hash log");
    assert!(h.epochs.is_empty() && j.epochs.is_empty(), "no new epoch");
    // Every tick from the injection through the first detection differs, unrepaired.
    let detected = host.first_desync.expect("detected") as usize;
    for t in 150..=detected {
        assert_ne!(h.entries[t - 1], j.entries[t - 1], "tick {t}");
    }
}
