//! The replay list: the match logs the game wrote (`matches/*.duellog` by default), newest
//! first, each the newest ones said in a line: when, what kind of match against whom, the
//! result, and how long it lasted.

use client::logs::matchlog::{read_log, LogHeader};
use engine::{RoundPhase, RoundState, TICKS_PER_SECOND};
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
    kind_of_mode(&header.mode, header.rejoin.as_ref().map(|k| k.slot))
}

/// [`kind_of`] for a log of `mode` whose online player (if any) played slot `you`.
fn kind_of_mode(mode: &str, you: Option<u8>) -> (String, Option<u8>) {
    match mode {
        "local" => ("local, 2 players".into(), None),
        "training" => ("training".into(), Some(0)),
        "bot-match" => ("bot vs bot".into(), None),
        "host" | "join" => ("online vs the other player".into(), you),
        "spectate" => ("watched online".into(), None),
        _ => {
            let level = |rest: &str| rest.strip_prefix('-').unwrap_or("hard").to_owned();
            match (
                mode.strip_prefix("local-vs-bot"),
                mode.strip_prefix("local-bots"),
            ) {
                (Some(rest), _) => (format!("vs bot ({})", level(rest)), Some(0)),
                (None, Some(rest)) => (format!("bots only ({})", level(rest)), None),
                (None, None) => (mode.to_owned(), None),
            }
        }
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
    let result = result_of(&replay.world().state().round, you);
    Some(format!(
        "{}  {kind}  {result}  {}",
        date(modified),
        duration(last)
    ))
}

/// How a match at `round` came out, said from slot `you`'s side when there is one: `you won
/// 2-1`, `P2 won 2-0`, `draw 1-1`, `unfinished at 0-1` (the side's own wins first).
fn result_of(round: &RoundState, you: Option<u8>) -> String {
    let score = |a: u8| {
        let b = if a == 0 { 1 } else { 0 };
        format!("{}-{}", round.wins[usize::from(a)], round.wins[b])
    };
    match (round.phase, round.last_winner, you) {
        (RoundPhase::MatchOver, Some(w), Some(me)) if w == me => format!("you won {}", score(me)),
        (RoundPhase::MatchOver, Some(_), Some(me)) => format!("you lost {}", score(me)),
        (RoundPhase::MatchOver, Some(w), None) => format!("P{} won {}", w + 1, score(w)),
        (RoundPhase::MatchOver, None, _) => format!("draw {}", score(0)),
        _ => format!("unfinished at {}", score(you.unwrap_or(0))),
    }
}

/// The `.duellog` files in `dir`, newest first (ties by name), at most [`MAX_LISTED`]. A
/// missing or unreadable folder lists nothing.
#[must_use]
pub fn list_replays(dir: &Path) -> Vec<ReplayEntry> {
    list_at_most(dir, MAX_LISTED, MAX_DESCRIBED)
}

/// [`list_replays`] with its limits: `listed` logs, the first `described` of them described.
fn list_at_most(dir: &Path, listed: usize, described: usize) -> Vec<ReplayEntry> {
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
    entries.truncate(listed);
    for entry in entries.iter_mut().take(described) {
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
        // Century years are leap years only every 400 years, and an era's last day is the
        // 29th of February of a year divisible by 400.
        for (days, date) in [
            (47_540, (2100, 2, 28)),
            (47_541, (2100, 3, 1)),
            (47_847, (2101, 1, 1)),
            (84_065, (2200, 3, 1)),
            (157_053, (2399, 12, 31)),
            (157_113, (2400, 2, 29)),
            (157_114, (2400, 3, 1)),
        ] {
            assert_eq!(civil_from_days(days), date, "{days}");
        }
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

    /// Every mode a log can have is named, with the slot its result is told from: the human's
    /// against the bot and in training, the online player's own, nobody's otherwise.
    #[test]
    fn every_kind_of_log_is_named_with_the_side_it_is_told_from() {
        let kinds = [
            ("local", Some(1), "local, 2 players", None),
            ("training", None, "training", Some(0)),
            ("bot-match", Some(1), "bot vs bot", None),
            ("host", Some(0), "online vs the other player", Some(0)),
            ("join", Some(1), "online vs the other player", Some(1)),
            ("join", None, "online vs the other player", None),
            ("spectate", Some(1), "watched online", None),
            ("local-vs-bot", None, "vs bot (hard)", Some(0)),
            ("local-vs-bot-easy", None, "vs bot (easy)", Some(0)),
            ("local-vs-bot-beginner", None, "vs bot (beginner)", Some(0)),
            ("local-bots", None, "bots only (hard)", None),
            ("local-bots-easy", None, "bots only (easy)", None),
            ("tournament", Some(1), "tournament", None),
        ];
        for (mode, slot, kind, you) in kinds {
            assert_eq!(kind_of_mode(mode, slot), (kind.to_owned(), you), "{mode}");
        }
    }

    /// A result is said from the side's own wins first: won, lost, who won when nobody's
    /// side is told, a draw, and a match left unfinished.
    #[test]
    fn results_are_said_from_the_sides_own_score() {
        let round = |phase, [a, b]: [u8; 2], last_winner| RoundState {
            phase,
            wins: [a, b, 0, 0],
            last_winner,
            ..RoundState::default()
        };
        let over = RoundPhase::MatchOver;
        let p1_won = round(over, [2, 1], Some(0));
        let p2_won = round(over, [0, 2], Some(1));
        let cases = [
            (p1_won, Some(0), "you won 2-1"),
            (p1_won, Some(1), "you lost 1-2"),
            (p1_won, None, "P1 won 2-1"),
            (p2_won, Some(1), "you won 2-0"),
            (p2_won, Some(0), "you lost 0-2"),
            (p2_won, None, "P2 won 2-0"),
            (round(over, [1, 1], None), Some(1), "draw 1-1"),
            (
                round(RoundPhase::Fighting, [0, 1], None),
                Some(1),
                "unfinished at 1-0",
            ),
            (
                round(RoundPhase::RoundOver, [0, 1], Some(1)),
                None,
                "unfinished at 0-1",
            ),
        ];
        for (state, you, said) in cases {
            assert_eq!(result_of(&state, you), said, "{state:?} from {you:?}");
        }
    }

    /// Logs written at the same moment list by name; past the limits, the oldest are not
    /// listed and only the newest are described.
    #[test]
    fn ties_list_by_name_and_only_the_newest_are_listed_and_described() {
        let dir = std::env::temp_dir().join(format!("maze-duel-limits-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let first = dir.join("a.duellog");
        let mut m = crate::LocalMatch::new(engine::Rules::default(), 5)
            .unwrap()
            .with_logs(crate::LocalLogs::to(Some(first.clone()), None))
            .unwrap();
        use crate::MatchSource as _;
        for _ in 0..10 {
            m.advance(&[engine::InputCmd::idle(0); 2]).unwrap();
        }
        m.close().unwrap();
        let at = SystemTime::UNIX_EPOCH + Duration::from_secs(1_700_000_000);
        for name in ["d", "c", "b", "a"] {
            let path = dir.join(format!("{name}.duellog"));
            if path != first {
                std::fs::copy(&first, &path).unwrap();
            }
            std::fs::File::options()
                .write(true)
                .open(&path)
                .unwrap()
                .set_modified(at)
                .unwrap();
        }
        let listed = list_at_most(&dir, 3, 2);
        let names: Vec<&str> = listed.iter().map(|e| e.name.as_str()).collect();
        assert_eq!(names, ["a.duellog", "b.duellog", "c.duellog"]);
        let described: Vec<bool> = listed.iter().map(|e| e.line.is_some()).collect();
        assert_eq!(described, [true, true, false]);
        assert!(listed[0]
            .label()
            .contains("local, 2 players  unfinished at 0-0  0:00"));
        assert_eq!(listed[2].label(), "c.duellog");
        assert_eq!(list_replays(&dir).len(), 4);
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
