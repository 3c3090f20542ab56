//! The replay list: the match logs the game wrote (`matches/*.duellog` by default), newest
//! first.

use std::path::{Path, PathBuf};
use std::time::SystemTime;

/// Most logs listed (the newest ones).
pub const MAX_LISTED: usize = 200;

/// One match log on the replay screen.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ReplayEntry {
    /// The log.
    pub path: PathBuf,
    /// Its file name, as listed.
    pub name: String,
    /// When it was last written (newest first).
    pub modified: SystemTime,
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
            })
        })
        .collect();
    entries.sort_by(|a, b| b.modified.cmp(&a.modified).then(a.name.cmp(&b.name)));
    entries.truncate(MAX_LISTED);
    entries
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

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
        let names: Vec<String> = list_replays(&dir).into_iter().map(|e| e.name).collect();
        assert_eq!(names, ["new.duellog", "mid.duellog", "old.duellog"]);
        assert!(list_replays(&dir.join("missing")).is_empty());
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
