//! Issue 18 item 1: no output is ever opened over an input, over another output, or over a
//! log another writer holds. Each case used to exit 0 with the log destroyed; now each is
//! refused before anything is opened (exit 1, saying which options collide) and the log's
//! bytes are unchanged.

use crate::child::{output_within, CHILD_LIMIT};
use crate::{record, scratch};
use client::logs::matchlog::{LogHeader, MatchLogWriter};
use engine::{Rules, World};
use std::process::Command;

fn duel_cli(args: &[&std::ffi::OsStr]) -> (Option<i32>, String) {
    let out = output_within(
        Command::new(env!("CARGO_BIN_EXE_duel-cli")).args(args),
        CHILD_LIMIT,
    );
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn one_path_given_as_an_input_and_an_output_is_refused_and_the_log_kept() {
    let dir = scratch("same-path");
    let log = record(&dir);
    let bytes = std::fs::read(&log).expect("log");
    let other_spelling = dir.join(".").join("match.log");
    let fresh = dir.join("fresh.log");
    let cases: Vec<(Vec<&std::ffi::OsStr>, &str)> = vec![
        (
            vec![
                "verify".as_ref(),
                log.as_os_str(),
                "--hash-log".as_ref(),
                log.as_os_str(),
            ],
            "the log to verify and as --hash-log",
        ),
        (
            vec![
                "verify".as_ref(),
                log.as_os_str(),
                "--hash-log".as_ref(),
                other_spelling.as_os_str(),
            ],
            "the log to verify and as --hash-log",
        ),
        (
            vec![
                "resume".as_ref(),
                log.as_os_str(),
                "--hash-log".as_ref(),
                log.as_os_str(),
            ],
            "the log to resume and as --hash-log",
        ),
        (
            vec![
                "bot-match".as_ref(),
                "--match-log".as_ref(),
                log.as_os_str(),
                "--hash-log".as_ref(),
                log.as_os_str(),
            ],
            "--hash-log and as --match-log",
        ),
        (
            vec![
                "bot-match".as_ref(),
                "--match-log".as_ref(),
                fresh.as_os_str(),
                "--hash-log".as_ref(),
                fresh.as_os_str(),
            ],
            "--hash-log and as --match-log",
        ),
    ];
    for (args, words) in cases {
        let (code, stderr) = duel_cli(&args);
        assert_eq!(code, Some(1), "{args:?}: {stderr}");
        assert!(stderr.contains(words), "{args:?}: {stderr}");
        assert_eq!(
            std::fs::read(&log).expect("log"),
            bytes,
            "{args:?} changed the log"
        );
    }
    assert!(!fresh.exists(), "nothing was opened for a refused command");
}

/// A hash log aimed at a match log another writer holds is refused before truncating it.
#[test]
fn a_hash_log_over_a_log_being_written_is_refused_and_nothing_lost() {
    let dir = scratch("locked-path");
    let path = dir.join("live.log");
    let world = World::new(Rules::default(), 5, 2).expect("world");
    let header = LogHeader::for_game(&world, "test", None);
    let writer = MatchLogWriter::create(&path, &header, &world, 300).expect("writer");
    let bytes = std::fs::read(&path).expect("log");
    let (code, stderr) = duel_cli(&[
        "bot-match".as_ref(),
        "--ticks".as_ref(),
        "60".as_ref(),
        "--hash-log".as_ref(),
        path.as_os_str(),
    ]);
    assert_eq!(code, Some(1), "{stderr}");
    assert!(stderr.contains("another process is writing"), "{stderr}");
    assert_eq!(std::fs::read(&path).expect("log"), bytes);
    drop(writer);
}
