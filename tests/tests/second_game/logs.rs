//! Logs are generic: the ring race writes a match log and a hash log through the same
//! `TickLogs<G>` as the duel, `verify` and replays reproduce it through the same code, damage is
//! refused or cut as for the duel, and a log of one game read as the other is refused naming
//! both games.

use super::script;
use bincode::Options as _;
use client::logs::hashlog::{
    columns, compare_logs, inputs_of, read_hash_log_file, HashLogWriter, MatchIdentity,
    HASH_LOG_VERSION,
};
use client::logs::matchlog::{read_log, LogHeader, MatchLogWriter, Record, TickRecord, LOG_MAGIC};
use client::logs::replay::{recover, verify, verify_logging, Replay};
use client::logs::tick_logs::TickLogs;
use client::runs::{run_bot_match, BotMatch};
use client::Error;
use engine::World;
use game_api::Game;
use proptest::prelude::*;
use ring_race::{RingEvent, RingInput, RingRace, RingRules};
use std::path::{Path, PathBuf};

const RACERS: usize = 3;
const TICKS: u32 = 900;

fn scratch(name: &str) -> PathBuf {
    static N: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let n = N.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let dir = std::env::temp_dir().join(format!("ring-logs-{name}-{}-{n}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("dir");
    dir
}

/// A scripted race of `TICKS` ticks logged through `TickLogs` (checkpoints every 300 ticks):
/// the match log's and hash log's paths, every tick's state hash, and the race at its end.
fn logged_race(dir: &Path) -> (PathBuf, PathBuf, Vec<ring_race::RingHash>, RingRace) {
    let mut race = RingRace::new(RingRules::default(), 21, RACERS).expect("race");
    let (mlog, hlog) = (dir.join("race.mlog"), dir.join("race.hashlog"));
    let header = LogHeader::for_game(&race, "scripted", None).with_stop(TICKS, false);
    let identity = MatchIdentity::of_game(&race, inputs_of("scripted", None));
    let mut logs = TickLogs::new(
        Some(HashLogWriter::create(&hlog, &identity, "race").expect("hash log")),
        Some(MatchLogWriter::create(&mlog, &header, &race, 300).expect("match log")),
    );
    let mut inputs: Vec<RingInput> = Vec::new();
    let mut state = race.snapshot();
    let mut hashes = Vec::new();
    for tick in 0..TICKS {
        inputs.clear();
        inputs.extend((0..RACERS).map(|slot| script(tick, slot)));
        race.step(&inputs).expect("step");
        race.save_into(&mut state);
        hashes.push(race.state_hash());
        logs.record(
            race.tick(),
            &inputs,
            race.state_hash(),
            race.last_events(),
            || Ok(&state),
        )
        .expect("record");
    }
    logs.close(true).expect("close");
    (mlog, hlog, hashes, race)
}

/// A short duel bot match with both logs: the match log's and the hash log's paths.
fn logged_duel(dir: &Path) -> (PathBuf, PathBuf) {
    let (mlog, hlog) = (dir.join("duel.mlog"), dir.join("duel.hashlog"));
    run_bot_match(&BotMatch {
        rules: engine::Rules::default(),
        seed: 3,
        bot_seed: 8,
        players: 2,
        ticks: 120,
        stop_at_match_end: false,
        hash_log: Some(hlog.clone()),
        match_log: Some(mlog.clone()),
    })
    .expect("duel");
    (mlog, hlog)
}

/// Contract: the ring race's match log verifies (every tick, every checkpoint, every coin
/// taken), a replay and a recovery reach its final state hash, its hash log holds every tick's
/// hash under the ring race's own columns, and a hash log written from the replay is the
/// players' own, line for line.
#[test]
fn a_ring_race_log_verifies_replays_and_hashes_like_the_duels() {
    let dir = scratch("verify");
    let (mlog, hlog, hashes, race) = logged_race(&dir);
    let log = read_log::<RingRace>(&mlog).expect("the match log reads");
    assert_eq!(log.header.game, "ring-race");
    assert_eq!(log.ticks.len(), TICKS as usize);
    let coins: Vec<&RingEvent> = log.ticks.iter().flat_map(|t| &t.audit).collect();
    assert!(
        coins
            .iter()
            .any(|e| matches!(e, RingEvent::CoinTaken { .. })),
        "the race took coins, and the log audits them: {coins:?}"
    );
    let report = verify(&log, None).expect("verifies");
    assert_eq!((report.ticks, report.checkpoints), (TICKS, 4));
    assert!(report.ended);

    let mut replay = Replay::new(log.clone()).expect("replay");
    replay.seek(TICKS).expect("seek to the end");
    assert_eq!(replay.world().state_hash(), race.state_hash());
    replay.seek(450).expect("seek back");
    assert_eq!(replay.world().state_hash(), hashes[449]);
    assert_eq!(
        recover(log.clone()).expect("recover").snapshot(),
        race.snapshot()
    );

    let read = read_hash_log_file::<RingRace>(&hlog).expect("the hash log reads");
    assert_eq!(read.identity.game, "ring-race");
    assert_eq!(read.version, HASH_LOG_VERSION);
    let text = std::fs::read_to_string(&hlog).expect("text");
    assert_eq!(
        text.lines().nth(1),
        Some("# tick combined racers coin rest check")
    );
    assert_eq!(
        columns::<ring_race::RingHash>(),
        "# tick combined racers coin rest check"
    );
    let logged: Vec<_> = read.entries.iter().map(|e| e.hash).collect();
    assert_eq!(logged, hashes);

    let again = dir.join("replay.hashlog");
    let mut out = HashLogWriter::create(&again, &MatchIdentity::of_log(&log.header), "replay")
        .expect("create");
    verify_logging(&log, None, Some(&mut out)).expect("verifies");
    drop(out);
    let replayed = read_hash_log_file::<RingRace>(&again).expect("reads");
    assert!(compare_logs(&read.entries, &replayed.entries).identical());
    let _ = std::fs::remove_dir_all(&dir);
}

/// Contract: a coin taken that the log records differently (checksums intact: written record
/// by record) is an audit mismatch named by its tick, as a changed rail shot is in the duel.
#[test]
fn a_forged_coin_in_a_ring_race_log_is_an_audit_mismatch() {
    let dir = scratch("forged-coin");
    let (mlog, _, _, _) = logged_race(&dir);
    let log = read_log::<RingRace>(&mlog).expect("reads");
    let victim = (log.ticks.iter())
        .find(|t| !t.audit.is_empty())
        .expect("a coin taken")
        .tick;
    let forged = dir.join("forged.mlog");
    let race = RingRace::new(RingRules::default(), 21, RACERS).expect("race");
    let header = LogHeader::for_game(&race, "scripted", None);
    let mut writer = MatchLogWriter::create(&forged, &header, &race, u32::MAX).expect("create");
    for record in &log.ticks {
        let mut record: TickRecord<RingRace> = record.clone();
        if record.tick == victim {
            if let Some(RingEvent::CoinTaken { coin, .. }) = record.audit.first_mut() {
                *coin += 1;
            }
        }
        writer.append(&Record::Tick(record)).expect("append");
    }
    drop(writer);
    match verify(&read_log::<RingRace>(&forged).expect("reads"), None) {
        Err(Error::AuditMismatch { tick, .. }) => assert_eq!(tick, victim),
        other => panic!("expected an audit mismatch at tick {victim}, got {other:?}"),
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// Contract: a flipped byte inside the ring race's match log is corruption named by its byte
/// offset, a torn tail is cut and the rest verifies, and a hash log's flipped byte or torn
/// last line is refused or reported, as for the duel.
#[test]
fn a_damaged_ring_race_log_is_refused_and_a_torn_one_cut() {
    let dir = scratch("damage");
    let (mlog, hlog, _, _) = logged_race(&dir);
    let bytes = std::fs::read(&mlog).expect("bytes");

    let flipped = dir.join("flipped.mlog");
    let mut damaged = bytes.clone();
    damaged[bytes.len() / 2] ^= 0x10;
    std::fs::write(&flipped, &damaged).expect("write");
    assert!(
        matches!(
            read_log::<RingRace>(&flipped),
            Err(Error::LogCorrupt { .. })
        ),
        "a flipped byte is corruption"
    );

    let torn = dir.join("torn.mlog");
    std::fs::write(&torn, &bytes[..bytes.len() - 7]).expect("write");
    let log = read_log::<RingRace>(&torn).expect("a torn tail is cut");
    assert!(
        log.torn_bytes > 0 && log.end.is_none(),
        "{:?}",
        log.tail_report()
    );
    let report = verify(&log, None).expect("the rest verifies");
    assert_eq!(report.ticks, TICKS, "only the end record was torn");

    let text = std::fs::read(&hlog).expect("hash log");
    let flipped = dir.join("flipped.hashlog");
    let mut damaged = text.clone();
    let at = text.len() / 2;
    damaged[at] = if damaged[at] == b'0' { b'1' } else { b'0' };
    std::fs::write(&flipped, &damaged).expect("write");
    assert!(matches!(
        read_hash_log_file::<RingRace>(&flipped),
        Err(Error::HashLogSyntax { .. })
    ));
    let torn = dir.join("torn.hashlog");
    std::fs::write(&torn, &text[..text.len() - 5]).expect("write");
    let read = read_hash_log_file::<RingRace>(&torn).expect("a torn last line is reported");
    assert_eq!(read.entries.len(), TICKS as usize - 1);
    assert!(read.torn_line.is_some());
    let _ = std::fs::remove_dir_all(&dir);
}

/// Issue 22: a log of one game read as the other is refused before any record is read as the
/// wrong game's, the error naming both games; the hash logs too, and `desync`'s comparison
/// names the game first among the differences.
#[test]
fn a_log_of_one_game_read_as_the_other_names_both_games() {
    let dir = scratch("other-game");
    let (ring_mlog, ring_hlog, _, _) = logged_race(&dir);
    let (duel_mlog, duel_hlog) = logged_duel(&dir);
    let refused = |err: Error, found: &str, expected: &str| {
        let text = err.to_string();
        match &err {
            Error::OtherGame {
                found: f,
                expected: e,
                ..
            } => assert_eq!((f.as_str(), *e), (found, expected), "{text}"),
            other => panic!("expected another game, got {other:?}"),
        }
        assert!(text.contains(found) && text.contains(expected), "{text}");
    };
    refused(
        read_log::<World>(&ring_mlog).unwrap_err(),
        "ring-race",
        "maze-duel",
    );
    refused(
        read_log::<RingRace>(&duel_mlog).unwrap_err(),
        "maze-duel",
        "ring-race",
    );
    refused(
        read_hash_log_file::<World>(&ring_hlog).unwrap_err(),
        "ring-race",
        "maze-duel",
    );
    refused(
        read_hash_log_file::<RingRace>(&duel_hlog).unwrap_err(),
        "maze-duel",
        "ring-race",
    );
    // Nor can a writer of one game start a log whose header or identity names the other.
    let race = RingRace::new(RingRules::default(), 1, 2).expect("race");
    let duel = World::new(engine::Rules::default(), 1, 2).expect("duel");
    let header = LogHeader::for_game(&duel, "local", None);
    let err = MatchLogWriter::create(&dir.join("mixed.mlog"), &header, &race, 300).unwrap_err();
    refused(err, "maze-duel", "ring-race");
    assert!(!dir.join("mixed.mlog").exists(), "nothing is created");
    let identity = MatchIdentity::of_game(&duel, inputs_of("local", None));
    let err = HashLogWriter::<RingRace>::create(&dir.join("mixed.hashlog"), &identity, "mixed")
        .unwrap_err();
    refused(err, "maze-duel", "ring-race");
    assert!(!dir.join("mixed.hashlog").exists(), "nothing is created");
    let _ = std::fs::remove_dir_all(&dir);
}

/// The log's bytes with its header record re-framed around `header` (the records after it
/// chain by LSN, not by content: they stay whole).
fn with_header(bytes: &[u8], edit: impl FnOnce(&mut LogHeader)) -> Vec<u8> {
    let options = bincode::DefaultOptions::new()
        .with_fixint_encoding()
        .with_little_endian();
    let start = LOG_MAGIC.len();
    let len = u32::from_le_bytes(bytes[start..start + 4].try_into().expect("4")) as usize;
    let payload = &bytes[start + 25..start + 25 + len];
    let mut header: LogHeader = options.deserialize(payload).expect("the header decodes");
    edit(&mut header);
    let payload = options.serialize(&header).expect("encodes");
    let mut record = bytes[start..start + 25].to_vec();
    record[..4].copy_from_slice(&(payload.len() as u32).to_le_bytes());
    let prefix = xxhash_rust::xxh3::xxh3_64(&record[..21]) as u32;
    record[21..25].copy_from_slice(&prefix.to_le_bytes());
    record.extend_from_slice(&payload);
    let check = xxhash_rust::xxh3::xxh3_64(&record);
    record.extend_from_slice(&check.to_le_bytes());
    let mut out = LOG_MAGIC.to_vec();
    out.extend_from_slice(&record);
    out.extend_from_slice(&bytes[start + 25 + len + 8..]);
    out
}

/// A header-only hash log whose identity names the game `game`, checks intact.
fn hash_log_naming(game: &str) -> String {
    let text = format!(
        "# duel hash log v{HASH_LOG_VERSION} game={game} seed=21 rules=0000000000000001 \
         players=3 inputs=scripted version=0.2.0 format=1 source=forged"
    );
    let check = xxhash_rust::xxh3::xxh3_64(text.as_bytes()) as u32;
    format!(
        "{text} check={check:08x}\n{}\n",
        columns::<ring_race::RingHash>()
    )
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    /// A match log whose header (checks intact) names any other game is refused as that
    /// game's log, named as written, and never read as the ring race's.
    #[test]
    fn a_forged_header_naming_another_game_is_refused_by_name(
        game in "[a-z][a-z0-9-]{0,30}",
        junk in ".{0,60}",
    ) {
        prop_assume!(game != "ring-race" && junk != "ring-race");
        let dir = scratch("forged-header");
        let (mlog, _, _, _) = logged_race(&dir);
        let bytes = std::fs::read(&mlog).expect("bytes");
        // An honest re-framing reads back: only the name decides.
        std::fs::write(&mlog, with_header(&bytes, |_| {})).expect("write");
        prop_assert!(read_log::<RingRace>(&mlog).is_ok());
        for name in [game.clone(), junk] {
            std::fs::write(&mlog, with_header(&bytes, |h| h.game = name.clone())).expect("write");
            match read_log::<RingRace>(&mlog) {
                Err(Error::OtherGame { found, expected, .. }) => {
                    prop_assert_eq!(expected, "ring-race");
                    if name == game {
                        prop_assert_eq!(found, name);
                    }
                }
                other => prop_assert!(false, "{name:?}: {other:?}"),
            }
        }
        let _ = std::fs::remove_dir_all(&dir);
    }

    /// A hash log whose first line (its check intact) names any other game is refused by
    /// name; the ring race's own name reads.
    #[test]
    fn a_hash_log_naming_another_game_is_refused_by_name(game in "[a-z][a-z0-9-]{0,30}") {
        let dir = scratch("forged-hash-log");
        let path = dir.join("forged.hashlog");
        std::fs::write(&path, hash_log_naming(&game)).expect("write");
        match read_hash_log_file::<RingRace>(&path) {
            Ok(log) => prop_assert_eq!(game.as_str(), "ring-race", "{:?}", log.identity),
            Err(Error::OtherGame { found, expected, .. }) => {
                prop_assert_eq!((found.as_str(), expected), (game.as_str(), "ring-race"));
            }
            Err(other) => prop_assert!(false, "{other}"),
        }
        std::fs::write(&path, hash_log_naming("ring-race")).expect("write");
        prop_assert!(read_hash_log_file::<RingRace>(&path).is_ok());
        let _ = std::fs::remove_dir_all(&dir);
    }
}
