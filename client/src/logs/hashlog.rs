//! Per-tick hash logs: one line per confirmed tick, `tick combined players projectiles maze
//! history rest` in hex (one column per [`Section`], in [`Section::ALL`] order), after a
//! `# duel hash log v2 <description>` line naming the match (`seed=`, `rules=`, `players=`,
//! `source=`) and a column line. Two logs of the same match from two
//! machines are line-comparable.
//!
//! Every line ends in `\n`, so a last line without one was torn by a crash: readers report it
//! and use the rest. Everything else is strict: a line that does not parse or is not in the
//! writer's exact form, whose combined hash is not the combination of its section hashes, or
//! whose tick is not after the previous one is an error naming the line. The writer hands its lines to the OS at least once a second (they
//! then survive the process being killed) and syncs the file to disk when closed.

use crate::error::Error;
use engine::{Section, StateHash, Tick};
use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// Column header line of every hash log.
pub const COLUMNS: &str = "# tick combined players projectiles maze history rest";
/// Version of the hash log format, on its first line (2: the `history` column).
pub const HASH_LOG_VERSION: u32 = 2;
/// What the first line starts with (the version follows).
const FIRST_LINE: &str = "# duel hash log v";
/// Largest hash log read (a data line is 90 bytes: about two days of 60 Hz ticks).
const MAX_HASH_LOG_BYTES: u64 = 1 << 30;
/// Longest line a reader accepts (a data line is 90 bytes).
const MAX_LINE: usize = 4096;
/// Longest time a written line may stay in the buffer.
const FLUSH_INTERVAL: Duration = Duration::from_secs(1);
/// Header fields that must agree for two logs to be of the same match.
const MATCH_FIELDS: [&str; 3] = ["seed", "rules", "players"];

/// Writes a hash log, refusing ticks out of order.
#[derive(Debug)]
pub struct HashLogWriter {
    path: PathBuf,
    out: BufWriter<File>,
    last: Option<Tick>,
    last_flush: Instant,
}

impl HashLogWriter {
    /// Creates (truncates) `path` and writes the header: `# duel hash log v2 <description>`.
    /// The writer holds the file's exclusive lock, as a match log's writer does, and takes it
    /// *before* truncating: a path another writer holds (a match log being written, by this
    /// process or another) is refused with nothing lost.
    ///
    /// # Errors
    /// [`Error::LogLocked`] if another writer holds the file; [`Error::Io`] if it cannot be
    /// created.
    pub fn create(path: &Path, description: &str) -> Result<HashLogWriter, Error> {
        let file = std::fs::OpenOptions::new()
            .write(true)
            .create(true)
            .truncate(false)
            .open(path)
            .map_err(|e| Error::io(path, e))?;
        match file.try_lock() {
            Ok(()) => {}
            Err(std::fs::TryLockError::WouldBlock) => {
                return Err(Error::LogLocked {
                    path: path.to_owned(),
                })
            }
            Err(std::fs::TryLockError::Error(e)) => return Err(Error::io(path, e)),
        }
        file.set_len(0).map_err(|e| Error::io(path, e))?;
        let mut out = BufWriter::new(file);
        writeln!(
            out,
            "{FIRST_LINE}{HASH_LOG_VERSION} {description}\n{COLUMNS}"
        )
        .and_then(|()| out.flush())
        .map_err(|e| Error::io(path, e))?;
        Ok(HashLogWriter {
            path: path.to_owned(),
            out,
            last: None,
            last_flush: Instant::now(),
        })
    }

    /// Appends the line for `tick`; flushes if the last flush is a second old.
    ///
    /// # Errors
    /// [`Error::HashLogOrder`] if `tick` is not after the last tick written; [`Error::Io`].
    pub fn record(&mut self, tick: Tick, hash: &StateHash) -> Result<(), Error> {
        if let Some(last) = self.last {
            if tick <= last {
                return Err(Error::HashLogOrder { last, got: tick });
            }
        }
        self.last = Some(tick);
        writeln!(self.out, "{tick} {hash}").map_err(|e| Error::io(&self.path, e))?;
        self.flush_if_due()
    }

    /// Flushes if the last flush is a second old or more (call it regularly when no ticks are
    /// recorded: what was recorded before must still reach the OS).
    ///
    /// # Errors
    /// [`Error::Io`].
    pub fn flush_if_due(&mut self) -> Result<(), Error> {
        if self.last_flush.elapsed() >= FLUSH_INTERVAL {
            self.flush()?;
        }
        Ok(())
    }

    /// The last tick written.
    #[must_use]
    pub fn last_tick(&self) -> Option<Tick> {
        self.last
    }

    /// Hands buffered lines to the OS (they then survive the process being killed).
    ///
    /// # Errors
    /// [`Error::Io`].
    pub fn flush(&mut self) -> Result<(), Error> {
        self.last_flush = Instant::now();
        self.out.flush().map_err(|e| Error::io(&self.path, e))
    }

    /// Flushes and syncs the file to disk (it then survives a power loss).
    ///
    /// # Errors
    /// [`Error::Io`].
    pub fn sync(&mut self) -> Result<(), Error> {
        self.flush()?;
        self.out
            .get_ref()
            .sync_data()
            .map_err(|e| Error::io(&self.path, e))
    }
}

impl Drop for HashLogWriter {
    fn drop(&mut self) {
        let _ = self.out.flush();
    }
}

/// One parsed line of a hash log.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HashLogEntry {
    /// The tick.
    pub tick: Tick,
    /// Its hashes.
    pub hash: StateHash,
}

/// A hash log read back.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HashLog {
    /// The format version on the first line.
    pub version: u32,
    /// The rest of the first line (`seed=… rules=… players=… source=…`).
    pub description: String,
    /// Every entry, ticks strictly increasing.
    pub entries: Vec<HashLogEntry>,
    /// A last line cut short by a crash and ignored: `(line number, bytes)`.
    pub torn_line: Option<(usize, usize)>,
}

impl HashLog {
    /// The value of `key=value` in the description, if present.
    #[must_use]
    pub fn field(&self, key: &str) -> Option<&str> {
        self.description
            .split_whitespace()
            .find_map(|kv| kv.strip_prefix(key)?.strip_prefix('='))
    }
}

/// Reads every entry of a hash log (see [`read_hash_log_file`]).
///
/// # Errors
/// As [`read_hash_log_file`].
pub fn read_hash_log(path: &Path) -> Result<Vec<HashLogEntry>, Error> {
    Ok(read_hash_log_file(path)?.entries)
}

/// Reads a hash log: its first line, its entries and a torn last line (see the module
/// documentation).
///
/// # Errors
/// [`Error::Io`]; [`Error::NotALog`] for a file that is not a hash log (a match log is named);
/// [`Error::LogVersion`] for another version; [`Error::HashLogSyntax`] naming the line;
/// [`Error::LogTooLarge`] over the limit.
pub fn read_hash_log_file(path: &Path) -> Result<HashLog, Error> {
    let bytes = crate::matchlog::read_limited(path, MAX_HASH_LOG_BYTES)?;
    parse_hash_log(path, &bytes)
}

fn parse_hash_log(path: &Path, bytes: &[u8]) -> Result<HashLog, Error> {
    let syntax = |line: usize, reason: String| Error::HashLogSyntax {
        path: path.to_owned(),
        line,
        reason,
    };
    if !bytes.starts_with(FIRST_LINE.as_bytes()) {
        let found = if bytes.starts_with(crate::matchlog::LOG_MAGIC) {
            "a match log: `duel-cli verify <log> --hash-log <out>` writes its hash log".to_owned()
        } else {
            let shown: Vec<String> = bytes.iter().take(8).map(|b| format!("{b:02x}")).collect();
            format!("first bytes {}", shown.join(" "))
        };
        return Err(Error::NotALog {
            path: path.to_owned(),
            expected: "hash log",
            found,
        });
    }
    // Every line the writer ends with '\n': what follows the last one was torn.
    let (whole, torn) = match bytes.iter().rposition(|&b| b == b'\n') {
        Some(end) => bytes.split_at(end + 1),
        None => (&bytes[..0], bytes),
    };
    let mut lines = whole.split(|&b| b == b'\n');
    lines.next_back(); // the empty piece after the last '\n'
    let mut log = HashLog {
        version: 0,
        description: String::new(),
        entries: Vec::new(),
        torn_line: None,
    };
    let mut count = 0;
    for (i, raw) in lines.enumerate() {
        let number = i + 1;
        count = number;
        if raw.len() > MAX_LINE {
            return Err(syntax(
                number,
                format!("{} bytes, more than {MAX_LINE}", raw.len()),
            ));
        }
        let line = std::str::from_utf8(raw)
            .map_err(|e| syntax(number, format!("not UTF-8 text ({e})")))?;
        if number == 1 {
            let rest = &line[FIRST_LINE.len()..];
            let (version, description) = rest.split_once(' ').unwrap_or((rest, ""));
            log.version = version
                .parse()
                .map_err(|e| syntax(1, format!("version `{version}`: {e}")))?;
            if log.version != HASH_LOG_VERSION {
                return Err(Error::LogVersion {
                    path: path.to_owned(),
                    found: log.version,
                    expected: HASH_LOG_VERSION,
                });
            }
            log.description = description.to_owned();
            continue;
        }
        if line.starts_with('#') || line.trim().is_empty() {
            continue;
        }
        let entry = parse_entry(line).map_err(|reason| syntax(number, reason))?;
        if let Some(last) = log.entries.last() {
            if entry.tick <= last.tick {
                return Err(syntax(
                    number,
                    format!(
                        "tick {} after tick {} (ticks must increase: a line out of order or twice)",
                        entry.tick, last.tick
                    ),
                ));
            }
        }
        log.entries.push(entry);
    }
    if count == 0 {
        return Err(syntax(1, "the first line is torn: no header".into()));
    }
    if !torn.is_empty() {
        log.torn_line = Some((count + 1, torn.len()));
    }
    Ok(log)
}

/// One data line: the tick, the combined hash and one hash per section (in [`Section::ALL`]
/// order), all hex; the combined one the combination of the rest, in exactly the form the
/// writer gives them (so no two texts read as the same entry).
fn parse_entry(line: &str) -> Result<HashLogEntry, String> {
    let fields: Vec<&str> = line.split_whitespace().collect();
    let expected = 2 + Section::ALL.len();
    if fields.len() != expected {
        return Err(format!(
            "expected {expected} fields, found {}",
            fields.len()
        ));
    }
    let tick = fields[0].parse().map_err(|e| format!("tick: {e}"))?;
    let mut h = [0u64; 1 + Section::ALL.len()];
    for (slot, text) in h.iter_mut().zip(&fields[1..]) {
        *slot = u64::from_str_radix(text, 16).map_err(|e| format!("hash `{text}`: {e}"))?;
    }
    let [combined, sections @ ..] = h;
    let hash = StateHash::from_sections(sections);
    if hash.combined != combined {
        return Err(format!(
            "combined hash {combined:016x} is not the combination of its sections ({:016x})",
            hash.combined
        ));
    }
    let entry = HashLogEntry { tick, hash };
    if format!("{tick} {hash}") != line {
        return Err(
            "not in the writer's form (`tick` then 16-digit lower-case hex hashes, one space \
             apart)"
                .into(),
        );
    }
    Ok(entry)
}

/// The first tick where two logs disagree.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Divergence {
    /// The tick.
    pub tick: Tick,
    /// The first section that differs (`None`: only the combined hash does).
    pub section: Option<Section>,
}

/// Two logs compared tick by tick.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct LogComparison {
    /// Ticks both logs hold.
    pub common: usize,
    /// The first common tick whose hashes (combined or any section) differ.
    pub divergence: Option<Divergence>,
    /// Ticks only the first log holds, as inclusive ranges.
    pub only_in_a: Vec<(Tick, Tick)>,
    /// Ticks only the second log holds, as inclusive ranges.
    pub only_in_b: Vec<(Tick, Tick)>,
}

impl LogComparison {
    /// Whether the logs hold the same ticks with the same hashes.
    #[must_use]
    pub fn identical(&self) -> bool {
        self.divergence.is_none() && self.only_in_a.is_empty() && self.only_in_b.is_empty()
    }

    /// Whether a tick only one log holds lies inside the other log's span: a line missing
    /// from the middle of a log, which leaves that tick unchecked (rather than one log simply
    /// starting later or ending earlier). `a` and `b` are the entries compared.
    #[must_use]
    pub fn has_gaps(&self, a: &[HashLogEntry], b: &[HashLogEntry]) -> bool {
        let inside =
            |only: &[(Tick, Tick)], other: &[HashLogEntry]| match (other.first(), other.last()) {
                (Some(first), Some(last)) => only
                    .iter()
                    .any(|&(from, to)| to > first.tick && from < last.tick),
                _ => false,
            };
        inside(&self.only_in_a, b) || inside(&self.only_in_b, a)
    }
}

/// Compares two logs' entries (each with strictly increasing ticks, as read): every common tick
/// on every column, and the ticks only one of them holds.
#[must_use]
pub fn compare_logs(a: &[HashLogEntry], b: &[HashLogEntry]) -> LogComparison {
    let mut out = LogComparison::default();
    let only = |ranges: &mut Vec<(Tick, Tick)>, tick: Tick| match ranges.last_mut() {
        Some(r) if r.1.checked_add(1) == Some(tick) => r.1 = tick,
        _ => ranges.push((tick, tick)),
    };
    let (mut i, mut j) = (0, 0);
    while i < a.len() || j < b.len() {
        match (a.get(i), b.get(j)) {
            (Some(ea), Some(eb)) if ea.tick == eb.tick => {
                out.common += 1;
                if out.divergence.is_none() && ea.hash != eb.hash {
                    out.divergence = Some(Divergence {
                        tick: ea.tick,
                        section: ea.hash.first_difference(&eb.hash),
                    });
                }
                i += 1;
                j += 1;
            }
            (Some(ea), eb) if eb.is_none_or(|eb| ea.tick < eb.tick) => {
                only(&mut out.only_in_a, ea.tick);
                i += 1;
            }
            (_, Some(eb)) => {
                only(&mut out.only_in_b, eb.tick);
                j += 1;
            }
            (_, None) => unreachable!("one of the logs has entries left"),
        }
    }
    out
}

/// What in two logs' first lines says they are not of the same match: another format version,
/// or another `seed`, `rules` or `players` where both record it. Empty if nothing does.
#[must_use]
pub fn header_differences(a: &HashLog, b: &HashLog) -> Vec<String> {
    let mut out = Vec::new();
    if a.version != b.version {
        out.push(format!("format version {} vs {}", a.version, b.version));
    }
    for key in MATCH_FIELDS {
        if let (Some(x), Some(y)) = (a.field(key), b.field(key)) {
            if x != y {
                out.push(format!("{key} {x} vs {y}"));
            }
        }
    }
    out
}

/// Inclusive tick ranges as `1–5, 9`.
#[must_use]
pub fn format_ranges(ranges: &[(Tick, Tick)]) -> String {
    let shown: Vec<String> = ranges
        .iter()
        .map(|&(from, to)| {
            if from == to {
                from.to_string()
            } else {
                format!("{from}–{to}")
            }
        })
        .collect();
    shown.join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The column line names every section, in the order the lines give them.
    #[test]
    fn the_column_line_names_every_section() {
        let names: Vec<&str> = Section::ALL.iter().map(|s| s.name()).collect();
        assert_eq!(COLUMNS, format!("# tick combined {}", names.join(" ")));
    }
}
