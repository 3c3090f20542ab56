//! Outage and epoch records of networked matches: each must follow the tick it happened after,
//! epochs must count up, and `verify` checks an epoch's state hash against the re-simulated
//! state there; a forged one is refused naming the tick, and an honest one passes.

use super::scratch;
use client::matchlog::{
    read_log, EpochRecord, LogHeader, MatchLogWriter, OutageRecord, Record, TickRecord,
};
use client::replay::verify;
use client::Error;
use engine::{Bot, Rules, StateHash, World};
use std::path::Path;

/// A log of `ticks` bot ticks; returns the state hashes by tick (index = tick).
fn played(path: &Path, ticks: u32, extra: impl Fn(u32, &World) -> Vec<Record>) -> Vec<StateHash> {
    let mut world = World::new(Rules::default(), 4, 2).expect("world");
    let header = LogHeader::for_world(&world, "host", None);
    let mut log = MatchLogWriter::create(path, &header, &world, u32::MAX).expect("create");
    let mut bots = [Bot::new(0, 1), Bot::new(1, 2)];
    let mut hashes = vec![world.state_hash()];
    for _ in 0..ticks {
        let inputs: Vec<_> = bots.iter_mut().map(|b| b.think(&world)).collect();
        world.step(&inputs).expect("step");
        log.append(&Record::Tick(TickRecord {
            tick: world.tick(),
            inputs: inputs.iter().map(|i| i.to_wire()).collect(),
            hash: world.state_hash(),
            shots: client::tick_logs::rail_shots(world.events()).collect(),
        }))
        .expect("append");
        hashes.push(world.state_hash());
        for record in extra(world.tick(), &world) {
            log.append(&record).expect("append");
        }
    }
    hashes
}

/// Records to append after a tick, by tick and the state there.
type Extra = fn(u32, &World) -> Vec<Record>;

fn epoch(epoch: u32, tick: u32, hash: StateHash) -> Record {
    Record::Epoch(EpochRecord {
        epoch,
        tick,
        hash,
        peer: "127.0.0.1:7000".into(),
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
    let log = read_log(&path).expect("reads");
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
    let log = read_log(&path).expect("the framing is fine");
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
        let err = read_log(&path).expect_err(name);
        assert!(err.to_string().contains(says), "{name}: {err}");
    }
}
