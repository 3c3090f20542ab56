//! The replay list: the match logs the game wrote (`matches/*.duellog` by default), newest
//! first, each the newest ones said in a line: when, what kind of match against whom, the
//! result, and how long it lasted.

use client::logs::matchlog::{read_log, LogHeader};
use engine::{RoundPhase, TICKS_PER_SECOND};
use std::path::{Path, PathBuf};
use std::time::SystemTime;

/// Most logs listed (the newest ones).
pub const MAX_LISTED: usize = 200;
/// The newest logs described in a line (reading one means replaying its last stretch).
pub const MAX_DESCRIBED: usize = 24;

/// One match log on the replay screen.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ReplayEntry {
    /// The log.
    pub path: PathBuf,
    /// Its file name, as listed.
    pub name: String,
    /// When it was last written (newest first).
    pub modified: SystemTime,
    /// `12-02 14:03  vs bot (easy)  you won 2-1  1:23`, for the newest logs that read; the
    /// file name is shown otherwise.
    pub line: Option<String>,
}

impl ReplayEntry {
    /// What the list shows for it.
    #[must_use]
    pub fn label(&self) -> &str {
        self.line.as_deref().unwrap_or(&self.name)
    }
}

/// The kind of match and the opponent, from the log's mode; and which slot was this
/// machine's player, when one was (vs bot, online), to say the result from its side.
fn kind_of(header: &LogHeader) -> (String, Option<u8>) {
    let mode = header.mode.as_str();
    let you = header.rejoin.as_ref().map(|k| k.slot);
    match mode {
        "local" => ("local, 2 players".into(), None),
        "training" => ("training".into(), Some(0)),
        "bot-match" => ("bot vs bot".into(), None),
        "host" | "join" => ("online vs the other player".into(), you),
        "spectate" => ("watched online".into(), None),
        _ => match mode.strip_prefix("local-vs-bot") {
            Some(level) => {
                let level = level.strip_prefix('-').unwrap_or("hard");
                (format!("vs bot ({level})"), Some(0))
            }
            None => (mode.to_owned(), None),
        },
    }
}

/// `m:ss` for `ticks`.
fn duration(ticks: u32) -> String {
    let secs = ticks / TICKS_PER_SECOND;
    format!("{}:{:02}", secs / 60, secs % 60)
}

/// `MM-DD HH:MM` (UTC) for `t`.
fn date(t: SystemTime) -> String {
    let secs = t
        .duration_since(SystemTime::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    let days = i64::try_from(secs / 86_400).unwrap_or(0);
    let (_, month, day) = civil_from_days(days);
    let minutes = secs % 86_400 / 60;
    format!(
        "{month:02}-{day:02} {:02}:{:02}",
        minutes / 60,
        minutes % 60
    )
}

/// The proleptic Gregorian date of `days` after 1970-01-01 (Howard Hinnant's algorithm).
fn civil_from_days(days: i64) -> (i64, u32, u32) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let month = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let year = yoe + era * 400 + i64::from(month <= 2);
    (year, month, day)
}

/// The line for the log at `path` written at `modified`; `None` when it does not read or
/// replay (the file name is listed instead, and opening it says what is wrong).
#[must_use]
pub fn describe(path: &Path, modified: SystemTime) -> Option<String> {
    let log = read_log::<engine::World>(path).ok()?;
    let (kind, you) = kind_of(&log.header);
    let last = log.last_tick();
    let mut replay = client::logs::replay::Replay::new(log).ok()?;
    replay.seek(last).ok()?;
    let round = replay.world().state().round;
    let score = |a: u8| {
        let b = if a == 0 { 1 } else { 0 };
        format!("{}-{}", round.wins[usize::from(a)], round.wins[b])
    };
    let result = match (round.phase, round.last_winner, you) {
        (RoundPhase::MatchOver, Some(w), Some(me)) if w == me => format!("you won {}", score(me)),
        (RoundPhase::MatchOver, Some(_), Some(me)) => format!("you lost {}", score(me)),
        (RoundPhase::MatchOver, Some(w), None) => format!("P{} won {}", w + 1, score(w)),
        (RoundPhase::MatchOver, None, _) => format!("draw {}", score(0)),
        _ => format!("unfinished at {}", score(you.unwrap_or(0))),
    };
    Some(format!(
        "{}  {kind}  {result}  {}",
        date(modified),
        duration(last)
    ))
}

/// The `.duellog` files in `dir`, newest first (ties by name), at most [`MAX_LISTED`]. A
/// missing or unreadable folder lists nothing.
#[must_use]
pub fn list_replays(dir: &Path) -> Vec<ReplayEntry> {
    let Ok(read) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut entries: Vec<ReplayEntry> = read
        .filter_map(Result::ok)
        .filter(|e| e.file_type().is_ok_and(|t| t.is_file()))
        .filter_map(|e| {
            let path = e.path();
            (path.extension()? == "duellog").then_some(())?;
            let name = path.file_name()?.to_string_lossy().into_owned();
            let modified = e
                .metadata()
                .and_then(|m| m.modified())
                .unwrap_or(SystemTime::UNIX_EPOCH);
            Some(ReplayEntry {
                path,
                name,
                modified,
                line: None,
            })
        })
        .collect();
    entries.sort_by(|a, b| b.modified.cmp(&a.modified).then(a.name.cmp(&b.name)));
    entries.truncate(MAX_LISTED);
    for entry in entries.iter_mut().take(MAX_DESCRIBED) {
        entry.line = describe(&entry.path, entry.modified);
    }
    entries
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[test]
    fn dates_and_durations_read_as_a_person_writes_them() {
        assert_eq!(civil_from_days(0), (1970, 1, 1));
        assert_eq!(civil_from_days(19_723), (2024, 1, 1));
        assert_eq!(civil_from_days(19_782), (2024, 2, 29));
        assert_eq!(civil_from_days(-1), (1969, 12, 31));
        let t = SystemTime::UNIX_EPOCH + Duration::from_secs(1_764_684_180); // 2025-12-02 14:03
        assert_eq!(date(t), "12-02 14:03");
        assert_eq!(duration(0), "0:00");
        assert_eq!(duration(83 * TICKS_PER_SECOND + 59), "1:23");
    }

    /// A finished match log is described by its kind, its result and its length: a bot match
    /// by who won; a match against the bot from the human's side.
    #[test]
    fn a_finished_log_says_who_won_and_how_long_it_took() {
        let dir = std::env::temp_dir().join(format!("maze-duel-described-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("bots.duellog");
        let summary = client::runs::run_bot_match(&client::runs::BotMatch {
            rules: engine::Rules::default(),
            seed: 3,
            bot_seed: 4,
            players: 2,
            ticks: 60_000,
            stop_at_match_end: true,
            hash_log: None,
            match_log: Some(path.clone()),
        })
        .expect("a bot match");
        let winner = summary
            .wins
            .iter()
            .position(|&w| w == *summary.wins.iter().max().unwrap());
        let line = describe(&path, SystemTime::UNIX_EPOCH).expect("described");
        let (a, b) = (summary.wins[0], summary.wins[1]);
        let score = if winner == Some(0) {
            format!("{a}-{b}")
        } else {
            format!("{b}-{a}")
        };
        assert_eq!(
            line,
            format!(
                "01-01 00:00  bot vs bot  P{} won {score}  {}",
                winner.unwrap() + 1,
                duration(summary.ticks)
            )
        );
        // Against the bot, with the human standing still: the bot wins; said from your side.
        let path = dir.join("vs-bot.duellog");
        let mut m = crate::LocalMatch::new(engine::Rules::default(), 5)
            .unwrap()
            .with_bots(&[1])
            .with_difficulty(engine::Difficulty::Hard)
            .with_logs(crate::LocalLogs::to(Some(path.clone()), None))
            .unwrap();
        use crate::MatchSource as _;
        while m.current().round.phase != RoundPhase::MatchOver {
            m.advance(&[engine::InputCmd::idle(0)]).unwrap();
        }
        m.close().unwrap();
        let line = describe(&path, SystemTime::UNIX_EPOCH).expect("described");
        assert!(line.contains("vs bot (hard)  you lost 0-"), "{line}");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn logs_are_listed_newest_first_and_nothing_else() {
        let dir = std::env::temp_dir().join(format!("maze-duel-replays-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(dir.join("sub.duellog")).unwrap();
        let base = SystemTime::UNIX_EPOCH + Duration::from_secs(1_700_000_000);
        for (name, age) in [
            ("old.duellog", 30),
            ("new.duellog", 10),
            ("mid.duellog", 20),
        ] {
            let f = std::fs::File::create(dir.join(name)).unwrap();
            f.set_modified(base - Duration::from_secs(age)).unwrap();
        }
        std::fs::write(dir.join("notes.txt"), "x").unwrap();
        let listed = list_replays(&dir);
        let names: Vec<&str> = listed.iter().map(|e| e.name.as_str()).collect();
        assert_eq!(names, ["new.duellog", "mid.duellog", "old.duellog"]);
        // Empty files are no match logs: listed by name.
        assert!(listed
            .iter()
            .all(|e| e.line.is_none() && e.label() == e.name));
        assert!(list_replays(&dir.join("missing")).is_empty());
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
