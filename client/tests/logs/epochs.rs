//! Outage, epoch and resync records of networked matches: each must follow the tick it happened
//! after, epochs must count up, and `verify` checks an epoch's state hash against the
//! re-simulated state there; a forged one is refused naming the tick, and an honest one passes.
//! A resync's snapshot must be the state it names, and `verify`, replays and recovery go on
//! from it; so must a transfer's (a rejoin whose log ended before the other side's history),
//! across the ticks it skipped.

use super::scratch;
use client::logs::matchlog::{
    read_log, EpochRecord, LogHeader, MatchLogWriter, OutageRecord, Record, ResyncRecord,
    StateTransfer, TickRecord,
};
use client::logs::replay::{recover, verify, Replay};
use client::Error;
use engine::{Bot, InputCmd, Rules, StateHash, World};
use std::path::Path;

/// One tick of the bots: `world` stepped with their inputs, and its tick record logged.
fn bot_tick(world: &mut World, bots: &mut [Bot; 2], log: &mut MatchLogWriter<World>) {
    let inputs: Vec<_> = bots.iter_mut().map(|b| b.think(world)).collect();
    world.step(&inputs).expect("step");
    log.append(&Record::Tick(TickRecord {
        tick: world.tick(),
        inputs: inputs.iter().map(|i| i.to_wire()).collect(),
        hash: world.state_hash(),
        audit: crate::audited(world.events()),
    }))
    .expect("append");
}

/// A log of `ticks` bot ticks; returns the state hashes by tick (index = tick).
fn played(
    path: &Path,
    ticks: u32,
    extra: impl Fn(u32, &World) -> Vec<Record<World>>,
) -> Vec<StateHash> {
    let mut world = World::new(Rules::default(), 4, 2).expect("world");
    let header = LogHeader::for_game(&world, "host", None);
    let mut log = MatchLogWriter::create(path, &header, &world, u32::MAX).expect("create");
    let mut bots = [Bot::new(0, 1), Bot::new(1, 2)];
    let mut hashes = vec![world.state_hash()];
    for _ in 0..ticks {
        bot_tick(&mut world, &mut bots, &mut log);
        hashes.push(world.state_hash());
        for record in extra(world.tick(), &world) {
            log.append(&record).expect("append");
        }
    }
    hashes
}

/// Records to append after a tick, by tick and the state there.
type Extra = fn(u32, &World) -> Vec<Record<World>>;

fn epoch(epoch: u32, tick: u32, hash: StateHash) -> Record<World> {
    Record::Epoch(EpochRecord {
        epoch,
        tick,
        hash,
        peer: "127.0.0.1:7000".into(),
        transfer: None,
    })
}

#[test]
fn honest_outages_and_epochs_read_back_and_verify() {
    let dir = scratch("epochs-honest");
    let path = dir.join("m.duel");
    played(&path, 300, |tick, world| match tick {
        100 => vec![Record::Outage(OutageRecord {
            tick,
            silent_ms: 5000,
        })],
        150 => vec![epoch(2, tick, world.state_hash())],
        250 => vec![epoch(3, tick, world.state_hash())],
        _ => Vec::new(),
    });
    let log = read_log::<World>(&path).expect("reads");
    assert_eq!(
        log.outages,
        vec![OutageRecord {
            tick: 100,
            silent_ms: 5000
        }]
    );
    let epochs: Vec<(u32, u32)> = log.epochs.iter().map(|e| (e.epoch, e.tick)).collect();
    assert_eq!(epochs, vec![(2, 150), (3, 250)]);
    assert_eq!(verify(&log, None).expect("verifies").ticks, 300);
}

#[test]
fn an_epoch_whose_hash_is_not_the_state_there_is_refused_by_verify() {
    let dir = scratch("epochs-forged");
    let path = dir.join("m.duel");
    played(&path, 200, |tick, world| {
        if tick == 120 {
            let mut forged = world.state_hash();
            forged.players ^= 1;
            vec![epoch(2, tick, forged)]
        } else {
            Vec::new()
        }
    });
    let log = read_log::<World>(&path).expect("the framing is fine");
    match verify(&log, None) {
        Err(Error::VerifyMismatch { tick, section, .. }) => {
            assert_eq!((tick, section), (120, "epoch"));
        }
        other => panic!("expected the epoch refused, got {other:?}"),
    }
}

#[test]
fn epoch_and_outage_records_out_of_place_are_refused_by_the_reader() {
    let dir = scratch("epochs-misplaced");
    let cases: [(&str, Extra, &str); 4] = [
        (
            "epoch of another tick",
            |t, w| {
                if t == 50 {
                    vec![epoch(2, 49, w.state_hash())]
                } else {
                    Vec::new()
                }
            },
            "epoch 2 from tick 49",
        ),
        (
            "epoch counting down",
            |t, w| match t {
                50 => vec![epoch(3, 50, w.state_hash())],
                60 => vec![epoch(2, 60, w.state_hash())],
                _ => Vec::new(),
            },
            "epoch 2 after epoch 3",
        ),
        (
            "epoch 1 again",
            |t, w| {
                if t == 50 {
                    vec![epoch(1, 50, w.state_hash())]
                } else {
                    Vec::new()
                }
            },
            "epoch 1 after epoch 1",
        ),
        (
            "outage of another tick",
            |t, _| {
                if t == 50 {
                    vec![Record::Outage(OutageRecord {
                        tick: 51,
                        silent_ms: 1,
                    })]
                } else {
                    Vec::new()
                }
            },
            "outage at tick 51",
        ),
    ];
    for (name, extra, says) in cases {
        let path = dir.join(format!("{}.duel", name.replace(' ', "-")));
        played(&path, 80, extra);
        let err = read_log::<World>(&path).expect_err(name);
        assert!(err.to_string().contains(says), "{name}: {err}");
    }
}

/// A log of a joiner whose state at `at` was replaced by a resync: its own bot-played ticks up
/// to `at`, then a resync record holding another state of tick `at` (the same match played
/// idle: the "host's"), then ticks played on from that state. `edit` may change the record.
/// Returns the final state reached.
fn resynced(path: &Path, at: u32, ticks: u32, edit: impl Fn(&mut ResyncRecord<World>)) -> World {
    resynced_with(path, at, ticks, edit, |_, _| Vec::new())
}

/// A networked player's log with one record of each networked kind: an outage after tick
/// 100, epoch 2 from tick 150 (a rejoin), a resync into epoch 3 after tick 250, and epoch 4
/// from the state of tick 450 sent whole after tick 400; 500 ticks. The fuzz tests damage and
/// craft it as they do a bot match's.
pub(super) fn networked_log(path: &Path) {
    let mut world = resynced_with(
        path,
        250,
        400,
        |r| r.epoch = 3,
        |tick, world| match tick {
            100 => vec![Record::Outage(OutageRecord {
                tick,
                silent_ms: 2500,
            })],
            150 => vec![epoch(2, tick, world.state_hash())],
            _ => Vec::new(),
        },
    );
    let read = read_log::<World>(path).expect("reads");
    let mut log = MatchLogWriter::resume(path, &read, u32::MAX).expect("resume");
    while world.tick() < 450 {
        let tick = world.tick();
        world
            .step(&[InputCmd::idle(tick), InputCmd::idle(tick)])
            .expect("step");
    }
    log.append(&transfer(4, 400, &world)).expect("append");
    let mut bots = [Bot::new(0, 5), Bot::new(1, 6)];
    while world.tick() < 500 {
        bot_tick(&mut world, &mut bots, &mut log);
    }
}

/// Epoch `epoch` from `world`'s state, sent whole, after tick `from`.
fn transfer(epoch: u32, from: u32, world: &World) -> Record<World> {
    Record::Epoch(EpochRecord {
        epoch,
        tick: world.tick(),
        hash: world.state_hash(),
        peer: "127.0.0.1:7000".into(),
        transfer: Some(StateTransfer {
            from,
            snapshot: world.state().to_bytes(),
        }),
    })
}

/// A rejoiner's log whose own ticks end at `from`; the match went on without it to `to`,
/// whose state was then sent whole (epoch 2), and it logged the ticks after that up to
/// `ticks`. `edit` may change the epoch record. Returns the final state reached.
fn transferred(
    path: &Path,
    (from, to, ticks): (u32, u32, u32),
    edit: impl Fn(&mut EpochRecord<World>),
) -> World {
    let mut world = World::new(Rules::default(), 4, 2).expect("world");
    let header = LogHeader::for_game(&world, "join", None);
    let mut log = MatchLogWriter::create(path, &header, &world, u32::MAX).expect("create");
    let mut bots = [Bot::new(0, 1), Bot::new(1, 2)];
    while world.tick() < from {
        bot_tick(&mut world, &mut bots, &mut log);
    }
    while world.tick() < to {
        let inputs: Vec<_> = bots.iter_mut().map(|b| b.think(&world)).collect();
        world.step(&inputs).expect("step");
    }
    let Record::Epoch(mut record) = transfer(2, from, &world) else {
        unreachable!("an epoch record");
    };
    edit(&mut record);
    log.append(&Record::Epoch(record)).expect("append");
    while world.tick() < ticks {
        bot_tick(&mut world, &mut bots, &mut log);
    }
    world
}

#[test]
fn a_transfer_reads_back_and_verify_replays_and_recovery_go_across_the_ticks_it_skipped() {
    let dir = scratch("transfer-honest");
    let path = dir.join("m.duel");
    let end = transferred(&path, (120, 260, 400), |_| {});
    let log = read_log::<World>(&path).expect("reads");
    let (epoch, t) = log.transfer_from(120).expect("the transfer");
    assert_eq!((epoch.epoch, epoch.tick, t.from), (2, 260, 120));
    assert_eq!(log.ticks.len(), 120 + 140, "no record of the ticks skipped");
    assert!(log.tick_record(121).is_none() && log.tick_record(261).is_some());
    assert_eq!(log.last_tick(), 400);
    assert_eq!(log.checkpoint_before(270).map(|c| c.0), Some(260));
    assert_eq!(log.checkpoint_before(259).map(|c| c.0), Some(0));
    assert_eq!(verify(&log, None).expect("verifies across it").ticks, 400);
    // A hash log written from the replay marks the transfer as the player's does.
    let hashes = dir.join("m.hashes");
    let identity = client::logs::hashlog::MatchIdentity::of_game(
        &World::new(Rules::default(), 4, 2).expect("world"),
        client::logs::hashlog::inputs_of("join", None),
    );
    let mut out =
        client::logs::hashlog::HashLogWriter::<World>::create(&hashes, &identity, "replay")
            .expect("hash log");
    client::logs::replay::verify_logging(&log, None, Some(&mut out)).expect("verifies");
    out.sync().expect("sync");
    let written = client::logs::hashlog::read_hash_log_file::<World>(&hashes).expect("reads back");
    assert_eq!(written.epochs, vec![(2, 260)]);
    assert_eq!(written.entries.len(), 260);
    assert!(written
        .entries
        .iter()
        .all(|e| e.tick <= 120 || e.tick > 260));
    // Stepping across it, and seeking past it from before and back.
    let mut replay = Replay::new(log.clone()).expect("replay");
    replay.seek(119).expect("seek");
    while replay.step().expect("step") {}
    assert_eq!(replay.world().state_hash(), end.state_hash());
    for target in [300, 50, 260, 120, 400, 261, 10] {
        replay.seek(target).expect("seek");
        let expected = match log.transfer_from(target - 1) {
            _ if target == 260 => log.epochs[0].hash,
            _ => log.tick_record(target).expect("record").hash,
        };
        assert_eq!(replay.world().tick(), target);
        assert_eq!(replay.world().state_hash(), expected, "tick {target}");
    }
    // A tick the log skipped lands where the match went on.
    replay.seek(200).expect("seek into the skipped ticks");
    assert_eq!(replay.world().tick(), 260);
    assert_eq!(
        recover(log).expect("recovers").state_hash(),
        end.state_hash()
    );
}

#[test]
fn a_log_that_ends_with_a_transfer_recovers_to_the_state_sent() {
    let dir = scratch("transfer-last");
    let path = dir.join("m.duel");
    let end = transferred(&path, (120, 260, 260), |_| {});
    let log = read_log::<World>(&path).expect("reads");
    assert_eq!(log.last_tick(), 260);
    assert_eq!(verify(&log, None).expect("verifies").ticks, 260);
    // The state at either end of the gap, as a resume takes it.
    let at = |tick| client::logs::replay::verified_state_at(&log, tick).expect("a state");
    assert_eq!(at(260).state_hash(), end.state_hash());
    assert_eq!(
        at(120).state_hash(),
        log.tick_record(120).expect("logged").hash
    );
    assert_eq!(
        recover(log).expect("recovers").state_hash(),
        end.state_hash()
    );
}

/// A change made to a transfer's epoch record before it is written.
type EpochEdit = fn(&mut EpochRecord<World>);

fn transfer_of(e: &mut EpochRecord<World>) -> &mut StateTransfer {
    e.transfer.as_mut().expect("a transfer")
}

#[test]
fn a_transfer_whose_snapshot_or_place_does_not_fit_is_refused_by_the_reader() {
    let dir = scratch("transfer-misplaced");
    let cases: [(&str, EpochEdit, &str); 6] = [
        (
            "from another tick",
            |e| transfer_of(e).from -= 1,
            "epoch 2 from tick 119, but the last tick recorded is Some(120)",
        ),
        (
            "to the tick it skips from",
            |e| e.tick = e.transfer.as_ref().map_or(0, |t| t.from),
            "transfers the state of tick 120 after tick 120",
        ),
        (
            "a snapshot of another tick",
            |e| e.tick -= 1,
            "epoch 2 from tick 259 transfers a snapshot of tick 260",
        ),
        (
            "a hash that is not the snapshot's",
            |e| e.hash.players ^= 1,
            "transfers a snapshot of tick 260 hashing",
        ),
        (
            "a damaged snapshot",
            |e| transfer_of(e).snapshot.truncate(10),
            "epoch 2 transfer",
        ),
        ("epoch 1 again", |e| e.epoch = 1, "epoch 1 after epoch 1"),
    ];
    for (name, edit, says) in cases {
        let path = dir.join(format!("{}.duel", name.replace(' ', "-")));
        transferred(&path, (120, 260, 300), edit);
        let err = read_log::<World>(&path).expect_err(name);
        assert!(err.to_string().contains(says), "{name}: {err}");
    }
}

#[test]
fn a_transfer_of_another_state_than_the_log_goes_on_from_is_refused_by_verify() {
    let dir = scratch("transfer-forged");
    let path = dir.join("m.duel");
    // Every check of the record recomputed: the state of tick 260 of an idle match.
    transferred(&path, (120, 260, 300), |e| {
        let mut idle = World::new(Rules::default(), 4, 2).expect("world");
        while idle.tick() < 260 {
            let tick = idle.tick();
            idle.step(&[InputCmd::idle(tick), InputCmd::idle(tick)])
                .expect("step");
        }
        e.hash = idle.state_hash();
        transfer_of(e).snapshot = idle.state().to_bytes();
    });
    let log = read_log::<World>(&path).expect("the record itself is consistent");
    match verify(&log, None) {
        Err(Error::VerifyMismatch { tick, .. }) => assert_eq!(tick, 261),
        other => panic!("expected the tick after the transfer refused, got {other:?}"),
    }
}

/// As [`resynced`], with `extra` records after each tick.
fn resynced_with(
    path: &Path,
    at: u32,
    ticks: u32,
    edit: impl Fn(&mut ResyncRecord<World>),
    extra: impl Fn(u32, &World) -> Vec<Record<World>>,
) -> World {
    let mut own = World::new(Rules::default(), 4, 2).expect("world");
    let header = LogHeader::for_game(&own, "join", None);
    let mut log = MatchLogWriter::create(path, &header, &own, u32::MAX).expect("create");
    let mut bots = [Bot::new(0, 1), Bot::new(1, 2)];
    let mut host = own.clone();
    for _ in 0..at {
        host.step(&[InputCmd::idle(host.tick()), InputCmd::idle(host.tick())])
            .expect("step");
    }
    let mut step = |world: &mut World, log: &mut MatchLogWriter<World>| {
        bot_tick(world, &mut bots, log);
        for record in extra(world.tick(), world) {
            log.append(&record).expect("append");
        }
    };
    for _ in 0..at {
        step(&mut own, &mut log);
    }
    assert_ne!(
        own.state_hash(),
        host.state_hash(),
        "two states of tick {at}"
    );
    let mut record = ResyncRecord {
        epoch: 2,
        tick: at,
        desync: at,
        replaced: own.state_hash(),
        hash: host.state_hash(),
        dumps: Some("join.log.dumps".into()),
        snapshot: host.state().to_bytes(),
    };
    edit(&mut record);
    log.append(&Record::Resync(record)).expect("append");
    let mut world = host;
    for _ in at..ticks {
        step(&mut world, &mut log);
    }
    world
}

#[test]
fn a_resync_reads_back_and_verify_replays_and_recovery_go_on_from_its_snapshot() {
    let dir = scratch("resync-honest");
    let path = dir.join("m.duel");
    let end = resynced(&path, 200, 300, |_| {});
    let log = read_log::<World>(&path).expect("reads");
    assert_eq!(log.resyncs.len(), 1);
    assert_eq!(log.resyncs[0].dumps.as_deref(), Some("join.log.dumps"));
    assert_eq!(verify(&log, None).expect("verifies through it").ticks, 300);
    let mut replay = Replay::new(log.clone()).expect("replay");
    // Stepping across the resync, and seeking past it from before.
    replay.seek(199).expect("seek");
    while replay.step().expect("step") {}
    assert_eq!(replay.world().state_hash(), end.state_hash());
    replay.seek(250).expect("seek back and past");
    replay.seek(300).expect("seek to the end");
    assert_eq!(replay.world().state_hash(), end.state_hash());
    // Seeks back and forth land where they are asked, on the state the log names there (at the
    // resync tick, the state that replaced the log's own).
    for target in [250, 120, 299, 200, 10, 300, 150, 201, 199] {
        replay.seek(target).expect("seek");
        let expected = match log.resync_at(target) {
            Some(r) => r.hash,
            None => log.tick_record(target).expect("record").hash,
        };
        assert_eq!(replay.world().tick(), target);
        assert_eq!(replay.world().state_hash(), expected, "tick {target}");
    }
    assert_eq!(
        recover(log).expect("recovers").state_hash(),
        end.state_hash()
    );
}

/// A change made to a resync record before it is written.
type Edit = fn(&mut ResyncRecord<World>);

#[test]
fn a_resync_whose_snapshot_or_place_does_not_fit_is_refused_by_the_reader() {
    let dir = scratch("resync-misplaced");
    let cases: [(&str, Edit, &str); 4] = [
        ("another tick", |r| r.tick -= 1, "resync from tick 149"),
        ("epoch 1 again", |r| r.epoch = 1, "epoch 1 after epoch 1"),
        (
            "a hash that is not the snapshot's",
            |r| r.hash.players ^= 1,
            "holds a snapshot of tick 150 hashing",
        ),
        (
            "a damaged snapshot",
            |r| r.snapshot.truncate(r.snapshot.len() - 1),
            "resync at tick 150",
        ),
    ];
    for (name, edit, says) in cases {
        let path = dir.join(format!("{}.duel", name.replace(' ', "-")));
        resynced(&path, 150, 200, edit);
        let err = read_log::<World>(&path).expect_err(name);
        assert!(err.to_string().contains(says), "{name}: {err}");
    }
}

#[test]
fn a_resync_that_claims_to_replace_another_state_than_the_log_holds_is_refused_by_verify() {
    let dir = scratch("resync-forged");
    let path = dir.join("m.duel");
    resynced(&path, 150, 200, |r| r.replaced.maze ^= 1);
    let log = read_log::<World>(&path).expect("the framing is fine");
    match verify(&log, None) {
        Err(Error::VerifyMismatch { tick, section, .. }) => {
            assert_eq!((tick, section), (150, "resync"));
        }
        other => panic!("expected the resync refused, got {other:?}"),
    }
}

/// A log that begins mid-match (a spectator that joined late): its first checkpoint is of
/// tick 100, and the ticks after it. `seed` is the header's seed.
fn joined_late(path: &Path, seed: u64) {
    let mut world = World::new(Rules::default(), 4, 2).expect("world");
    let mut bots = [Bot::new(0, 1), Bot::new(1, 2)];
    for _ in 0..100 {
        let inputs: Vec<_> = bots.iter_mut().map(|b| b.think(&world)).collect();
        world.step(&inputs).expect("step");
    }
    let header = LogHeader {
        match_seed: seed,
        ..LogHeader::for_game(&world, "spectate", None)
    };
    let mut log = MatchLogWriter::create(path, &header, &world, u32::MAX).expect("create");
    for _ in 0..100 {
        bot_tick(&mut world, &mut bots, &mut log);
    }
}

#[test]
fn a_log_that_begins_mid_match_verifies_from_its_first_checkpoint() {
    let dir = scratch("joined-late");
    let path = dir.join("m.duel");
    joined_late(&path, 4);
    let log = read_log::<World>(&path).expect("reads");
    assert_eq!(log.checkpoints.first().map(|c| c.0), Some(100));
    assert_eq!(verify(&log, None).expect("verifies").ticks, 200);
}

#[test]
fn a_log_whose_first_checkpoint_is_of_another_match_than_its_header_is_refused() {
    let dir = scratch("joined-late-other-seed");
    let path = dir.join("m.duel");
    joined_late(&path, 5);
    let log = read_log::<World>(&path).expect("the framing is fine");
    match verify(&log, None) {
        Err(Error::VerifyMismatch {
            tick,
            section,
            logged,
            got,
        }) => assert_eq!((tick, section, logged, got), (100, "checkpoint seed", 5, 4)),
        other => panic!("expected the seed refused, got {other:?}"),
    }
}

/// A log whose ticks skip where no transfer goes on from (a `MatchLog` built by hand, past
/// the reader's checks): `verify` refuses it naming the first tick missing, rather than
/// stepping on from a state the log never had.
#[test]
fn ticks_that_skip_where_no_transfer_goes_on_from_are_refused_by_verify() {
    let dir = scratch("transfer-unmoored");
    let path = dir.join("m.duel");
    transferred(&path, (120, 260, 300), |_| {});
    let mut log = read_log::<World>(&path).expect("reads");
    log.epochs[0].transfer.as_mut().expect("a transfer").from = 119;
    match verify(&log, None) {
        Err(Error::TickRecordMissing { tick }) => assert_eq!(tick, 121),
        other => panic!("expected the gap refused, got {other:?}"),
    }
}
