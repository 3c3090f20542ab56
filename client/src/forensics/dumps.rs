//! Dump files and states: `<role>-tick-<t>.<ext>` files found by tick, snapshots read within the
//! engine's size limit, and the state at any tick of a match log or a dump.

use crate::error::Error;
use crate::matchlog::{read_limited, read_log, LOG_MAGIC};
use engine::{Tick, WorldSnapshot, MAX_SNAPSHOT_BYTES};
use std::path::{Path, PathBuf};

/// The files `*-tick-<t>.<ext>` in `dir` with their ticks, in no particular order (none if the
/// directory cannot be read).
#[must_use]
pub fn dump_files(dir: &Path, ext: &str) -> Vec<(Tick, PathBuf)> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    entries
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter_map(|p| {
            let name = p.file_name()?.to_str()?.to_owned();
            let stem = name.strip_suffix(ext)?.strip_suffix('.')?;
            let t = stem.rsplit_once("-tick-")?.1.parse().ok()?;
            Some((t, p))
        })
        .collect()
}

/// The dump file of exactly `tick` in `dir`.
#[must_use]
pub fn dump_file(dir: &Path, ext: &str, tick: Tick) -> Option<PathBuf> {
    dump_files(dir, ext)
        .into_iter()
        .find_map(|(t, p)| (t == tick).then_some(p))
}

/// Reads a `.snapshot` file (a desync or sync-test dump) strictly, within
/// [`MAX_SNAPSHOT_BYTES`].
///
/// # Errors
/// [`Error::Io`], [`Error::LogTooLarge`], [`Error::StateUnavailable`] for bytes that do not
/// decode as a snapshot.
pub fn read_snapshot_file(path: &Path) -> Result<WorldSnapshot, Error> {
    let bytes = read_limited(path, MAX_SNAPSHOT_BYTES)?;
    WorldSnapshot::from_bytes(&bytes).map_err(|e| unavailable(path, e.to_string()))
}

fn unavailable(path: &Path, reason: String) -> Error {
    Error::StateUnavailable {
        path: path.to_owned(),
        reason,
    }
}

/// The state at `tick` of a match log (re-simulated from its nearest checkpoint, every hash
/// checked) or of a `.snapshot` dump (`tick`, if given, must be the dump's).
///
/// # Errors
/// [`Error::StateUnavailable`] without a tick for a log, for a tick the file does not hold,
/// or a log that does not re-simulate to it; the readers' errors.
pub fn state_at(path: &Path, tick: Option<Tick>) -> Result<WorldSnapshot, Error> {
    let mut magic = [0u8; 8];
    let is_log = std::fs::File::open(path)
        .and_then(|mut f| std::io::Read::read_exact(&mut f, &mut magic))
        .is_ok()
        && &magic == LOG_MAGIC;
    if !is_log {
        let snapshot = read_snapshot_file(path)?;
        if let Some(t) = tick.filter(|&t| t != snapshot.tick) {
            let held = snapshot.tick;
            return Err(unavailable(path, format!("holds tick {held}, not {t}")));
        }
        return Ok(snapshot);
    }
    let tick = tick.ok_or_else(|| unavailable(path, "a match log needs --tick".into()))?;
    let log = read_log(path)?;
    let last = log.last_tick();
    if tick > last {
        return Err(unavailable(path, format!("the log ends at tick {last}")));
    }
    // Re-simulated from the header, every record and checkpoint on the way checked: a
    // checkpoint is never believed on its own.
    let world = crate::replay::verified_state_at(&log, tick)
        .map_err(|e| unavailable(path, format!("re-simulating to tick {tick}: {e}")))?;
    Ok(world.snapshot())
}
