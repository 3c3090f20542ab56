//! Per-tick hash logs: one line per confirmed tick, `tick combined players projectiles maze
//! rest` in hex, after a `#` header naming the match. Two logs of the same match from two
//! machines are line-comparable.

use crate::error::Error;
use engine::{Section, StateHash, Tick};
use std::fs::File;
use std::io::{BufRead, BufReader, BufWriter, Write};
use std::path::{Path, PathBuf};

/// Column header line of every hash log.
pub const COLUMNS: &str = "# tick combined players projectiles maze rest";

/// Writes a hash log, refusing ticks out of order.
#[derive(Debug)]
pub struct HashLogWriter {
    path: PathBuf,
    out: BufWriter<File>,
    last: Option<Tick>,
}

impl HashLogWriter {
    /// Creates (truncates) `path` and writes the header: `# duel hash log v1 <description>`.
    ///
    /// # Errors
    /// [`Error::Io`] if the file cannot be created.
    pub fn create(path: &Path, description: &str) -> Result<HashLogWriter, Error> {
        let file = File::create(path).map_err(|e| Error::io(path, e))?;
        let mut out = BufWriter::new(file);
        writeln!(out, "# duel hash log v1 {description}\n{COLUMNS}")
            .map_err(|e| Error::io(path, e))?;
        Ok(HashLogWriter {
            path: path.to_owned(),
            out,
            last: None,
        })
    }

    /// Appends the line for `tick`.
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
        writeln!(self.out, "{tick} {hash}").map_err(|e| Error::io(&self.path, e))
    }

    /// The last tick written.
    #[must_use]
    pub fn last_tick(&self) -> Option<Tick> {
        self.last
    }

    /// Flushes buffered lines to the file.
    ///
    /// # Errors
    /// [`Error::Io`].
    pub fn flush(&mut self) -> Result<(), Error> {
        self.out.flush().map_err(|e| Error::io(&self.path, e))
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

/// Reads every entry of a hash log (header lines skipped).
///
/// # Errors
/// [`Error::Io`], or [`Error::HashLogSyntax`] naming the line.
pub fn read_hash_log(path: &Path) -> Result<Vec<HashLogEntry>, Error> {
    let file = File::open(path).map_err(|e| Error::io(path, e))?;
    let mut entries = Vec::new();
    for (i, line) in BufReader::new(file).lines().enumerate() {
        let line = line.map_err(|e| Error::io(path, e))?;
        if line.starts_with('#') || line.trim().is_empty() {
            continue;
        }
        let syntax = |reason: String| Error::HashLogSyntax {
            path: path.to_owned(),
            line: i + 1,
            reason,
        };
        let fields: Vec<&str> = line.split_whitespace().collect();
        let expected = 2 + Section::ALL.len();
        if fields.len() != expected {
            return Err(syntax(format!(
                "expected {expected} fields, found {}",
                fields.len()
            )));
        }
        let tick = fields[0]
            .parse()
            .map_err(|e| syntax(format!("tick: {e}")))?;
        let mut h = [0u64; 1 + Section::ALL.len()];
        for (slot, text) in h.iter_mut().zip(&fields[1..]) {
            *slot =
                u64::from_str_radix(text, 16).map_err(|e| syntax(format!("hash `{text}`: {e}")))?;
        }
        let [combined, sections @ ..] = h;
        let hash = StateHash::from_sections(sections);
        if hash.combined != combined {
            return Err(syntax(format!(
                "combined hash {combined:016x} does not match its sections ({:016x})",
                hash.combined
            )));
        }
        entries.push(HashLogEntry { tick, hash });
    }
    Ok(entries)
}

/// Where two hash logs first disagree.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LogComparison {
    /// Every tick both logs hold has the same hashes.
    Agree {
        /// Ticks compared.
        common: usize,
    },
    /// The first tick whose hashes differ, and the first section that differs there.
    Diverge {
        /// The tick.
        tick: Tick,
        /// The section.
        section: Section,
    },
}

/// Compares two logs tick by tick over the ticks both contain.
#[must_use]
pub fn compare_logs(a: &[HashLogEntry], b: &[HashLogEntry]) -> LogComparison {
    let mut j = 0;
    let mut common = 0;
    for ea in a {
        while j < b.len() && b[j].tick < ea.tick {
            j += 1;
        }
        let Some(eb) = b.get(j).filter(|eb| eb.tick == ea.tick) else {
            continue;
        };
        common += 1;
        if let Some(section) = ea.hash.first_difference(&eb.hash) {
            return LogComparison::Diverge {
                tick: ea.tick,
                section,
            };
        }
    }
    LogComparison::Agree { common }
}
