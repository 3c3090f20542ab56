//! Per-tick hash logs of any [`Game`]: one line per confirmed tick, `tick combined <sections>
//! check` in hex (one hash column per section of the game's [`SectionHash::SECTIONS`], in
//! order: the duel's `players projectiles maze history rest`), after two header lines:
//!
//! - `# duel hash log v6 game=… seed=… rules=… players=… inputs=… version=… format=… source=…
//!   check=…`: the [`MatchIdentity`] (the game's name, and every field that decides the match's
//!   states: two logs are compared only when all of them agree) and a free-text `source` (who
//!   wrote it: `host`, `replay`, …);
//! - the column line ([`columns`]).
//!
//! A log is read as one game ([`read_hash_log_file::<G>`](read_hash_log_file)): a log of another
//! game is refused, naming both ([`Error::OtherGame`]).
//!
//! A networked match that went on in a new epoch after a player rejoined has, right after the
//! line of the tick it resumed from, the line `epoch N from TICK check` (the same on both
//! players' logs). A player whose log ended before the history the other side keeps was sent
//! that side's state at `TICK` whole: its log lacks the ticks after its last one, `LAST`, and
//! says so with `epoch N from TICK after LAST check` right after the line of `LAST`.
//!
//! Every line that is not the column line ends in `check`, 8 hex digits: the low half of xxh3
//! over the previous line's check (little-endian; none for the first line) and the line's text
//! before ` check`. A flipped bit, a line deleted, inserted, moved or turned into a comment is
//! damage, told apart from a divergence (whose lines check out but whose hashes differ). The
//! writer writes no comments or blank lines: none is accepted after the column line.
//!
//! Every line ends in `\n`, so a last line without one was torn by a crash: readers report it
//! and use the rest. Everything else is strict: a line that does not parse or is not in the
//! writer's exact form, whose check is wrong, whose combined hash is not the combination of its
//! section hashes, or whose tick is not after the previous one is an error naming the line.
//! The writer hands its lines to the OS at least once a second (they then survive the process
//! being killed) and syncs the file to disk when closed.

use crate::error::Error;
use crate::logs::matchlog::LogHeader;
use game_api::{Game, SectionHash, Tick};
use std::fmt::Write as _;
use std::fs::File;
use std::io::{BufWriter, Write};
use std::marker::PhantomData;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// The column line of a hash log whose hashes are `H`: `# tick combined <sections> check`.
#[must_use]
pub fn columns<H: SectionHash>() -> String {
    format!("# tick combined {} check", H::SECTIONS.join(" "))
}

/// Version of the hash log format, on its first line (2: the `history` column; 3: the match
/// identity and the per-line check chain; 4: epoch lines; 5: epoch lines after a transfer;
/// 6: the game's name and version, the columns its sections). Only this version is read.
pub const HASH_LOG_VERSION: u32 = 6;
/// What the first line starts with (the version follows).
const FIRST_LINE: &str = "# duel hash log v";
/// Largest hash log read (a duel's data line is 99 bytes: about two days of 60 Hz ticks).
const MAX_HASH_LOG_BYTES: u64 = 1 << 30;
/// Longest line a reader accepts (a duel's data line is 99 bytes).
const MAX_LINE: usize = 4096;
/// Longest time a written line may stay in the buffer.
const FLUSH_INTERVAL: Duration = Duration::from_secs(1);

/// Everything that decides a match's states, as a hash log's first line records it: same
/// identity (game and its version included) ⇒ the same states tick by tick, so two logs with
/// one identity are comparable and any difference is a divergence.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MatchIdentity {
    /// The game's [`Game::NAME`] (one token).
    pub game: String,
    /// Match seed.
    pub seed: u64,
    /// Hash of the rules.
    pub rules: u64,
    /// Number of players.
    pub players: u8,
    /// Where the inputs came from ([`inputs_of`]): `bots-<seed>` for a headless bot match,
    /// `peers` for a networked one, the local mode otherwise. One token, no spaces.
    pub inputs: String,
    /// The game's [`Game::VERSION`].
    pub version: String,
    /// The game's [`Game::SNAPSHOT_FORMAT`].
    pub state_format: u32,
}

/// The `inputs` token of a match played in `mode` (a match log's mode) with `bot_seed`:
/// a headless bot match's inputs follow from its bot seed; a networked match's come from its
/// peers (all of a match's peers write `peers`); any other mode is named as itself.
#[must_use]
pub fn inputs_of(mode: &str, bot_seed: Option<u64>) -> String {
    match (mode, bot_seed) {
        ("bot-match", Some(seed)) => format!("bots-{seed:016x}"),
        ("host" | "join" | "spectate", _) => "peers".to_owned(),
        _ => mode.split_whitespace().collect::<Vec<_>>().join("-"),
    }
}

impl MatchIdentity {
    /// The identity of `game`'s match, its inputs coming from `inputs`, this build of the game.
    #[must_use]
    pub fn of_game<G: Game>(game: &G, inputs: String) -> MatchIdentity {
        MatchIdentity {
            game: G::NAME.to_owned(),
            seed: game.seed(),
            rules: G::rules_hash(game.rules()),
            players: game.player_count() as u8,
            inputs,
            version: G::VERSION.to_owned(),
            state_format: G::SNAPSHOT_FORMAT,
        }
    }

    /// The identity of the match a match log records.
    #[must_use]
    pub fn of_log(header: &LogHeader) -> MatchIdentity {
        MatchIdentity {
            game: header.game.clone(),
            seed: header.match_seed,
            rules: header.rules_hash,
            players: header.players,
            inputs: inputs_of(&header.mode, header.bot_seed),
            version: header.game_version.clone(),
            state_format: header.state_format,
        }
    }

    /// The fields as the first line gives them, in order.
    fn fields(&self) -> [(&'static str, String); 7] {
        [
            ("game", self.game.clone()),
            ("seed", self.seed.to_string()),
            ("rules", format!("{:016x}", self.rules)),
            ("players", self.players.to_string()),
            ("inputs", self.inputs.clone()),
            ("version", self.version.clone()),
            ("format", self.state_format.to_string()),
        ]
    }
}

/// The check of a line whose text (before ` check`) is `text`, after a line checked `prev`.
fn line_check(prev: Option<u32>, text: &str) -> u32 {
    let mut h = xxhash_rust::xxh3::Xxh3::new();
    if let Some(prev) = prev {
        h.update(&prev.to_le_bytes());
    }
    h.update(text.as_bytes());
    h.digest() as u32
}

/// The text of a first line before its check.
fn first_line_text(identity: &MatchIdentity, source: &str) -> String {
    let fields: Vec<String> = identity
        .fields()
        .iter()
        .map(|(k, v)| format!("{k}={v}"))
        .collect();
    format!(
        "{FIRST_LINE}{HASH_LOG_VERSION} {} source={source}",
        fields.join(" ")
    )
}

/// Writes a hash log of a `G` match, refusing ticks out of order.
#[derive(Debug)]
pub struct HashLogWriter<G: Game> {
    path: PathBuf,
    out: BufWriter<File>,
    last: Option<Tick>,
    check: u32,
    last_flush: Instant,
    /// The line being written, reused: no allocation per tick.
    line: String,
    game: PhantomData<fn() -> G>,
}

impl<G: Game> HashLogWriter<G> {
    /// Creates (truncates) `path` and writes the two header lines: the match's `identity` and
    /// `source` (free text, one line: who writes the log), then the column line. The writer
    /// holds the file's exclusive lock, as a match log's writer does, and takes it *before*
    /// truncating: a path another writer holds (a match log being written, by this process or
    /// another) is refused with nothing lost.
    ///
    /// # Errors
    /// [`Error::OtherGame`] if `identity` is of another game than `G` (nothing is touched);
    /// [`Error::LogLocked`] if another writer holds the file; [`Error::Io`] if it cannot be
    /// created.
    pub fn create(
        path: &Path,
        identity: &MatchIdentity,
        source: &str,
    ) -> Result<HashLogWriter<G>, Error> {
        if identity.game != G::NAME {
            return Err(Error::other_game::<G>(path, &identity.game));
        }
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
        let source = source.split_whitespace().collect::<Vec<_>>().join(" ");
        let text = first_line_text(identity, &source);
        let check = line_check(None, &text);
        let mut out = BufWriter::new(file);
        writeln!(out, "{text} check={check:08x}\n{}", columns::<G::Hash>())
            .and_then(|()| out.flush())
            .map_err(|e| Error::io(path, e))?;
        Ok(HashLogWriter {
            path: path.to_owned(),
            out,
            last: None,
            check,
            last_flush: Instant::now(),
            line: String::with_capacity(128),
            game: PhantomData,
        })
    }

    /// Appends the line for `tick`; flushes if the last flush is a second old.
    ///
    /// # Errors
    /// [`Error::HashLogOrder`] if `tick` is not after the last tick written; [`Error::Io`].
    pub fn record(&mut self, tick: Tick, hash: &G::Hash) -> Result<(), Error> {
        if let Some(last) = self.last {
            if tick <= last {
                return Err(Error::HashLogOrder { last, got: tick });
            }
        }
        self.last = Some(tick);
        self.append_line(format_args!("{tick} {}", HashColumns(hash)))
    }

    /// Appends `text` as a line with its check, chained to the line before.
    fn append_line(&mut self, text: std::fmt::Arguments<'_>) -> Result<(), Error> {
        self.line.clear();
        let _ = self.line.write_fmt(text); // writing to a String cannot fail
        self.check = line_check(Some(self.check), &self.line);
        writeln!(self.out, "{} {:08x}", self.line, self.check)
            .map_err(|e| Error::io(&self.path, e))?;
        self.flush_if_due()
    }

    /// Appends the line saying the match went on in `epoch` from `tick`, the last tick
    /// written (or 0 before any).
    ///
    /// # Errors
    /// [`Error::HashLogOrder`] if `tick` is not the last tick written; [`Error::Io`].
    pub fn mark_epoch(&mut self, epoch: u32, tick: Tick) -> Result<(), Error> {
        let last = self.last.unwrap_or(0);
        if tick != last {
            return Err(Error::HashLogOrder { last, got: tick });
        }
        self.append_line(format_args!("epoch {epoch} from {tick}"))
    }

    /// Appends the line saying the match went on in `epoch` from `tick`, from the other
    /// player's state sent whole: the ticks after the last one written up to `tick` are in
    /// no line of this log. The next tick written must come after `tick`.
    ///
    /// # Errors
    /// [`Error::HashLogOrder`] if `tick` is not after the last tick written; [`Error::Io`].
    pub fn mark_transfer(&mut self, epoch: u32, tick: Tick) -> Result<(), Error> {
        let last = self.last.unwrap_or(0);
        if tick <= last {
            return Err(Error::HashLogOrder { last, got: tick });
        }
        self.last = Some(tick);
        self.append_line(format_args!("epoch {epoch} from {tick} after {last}"))
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

impl<G: Game> Drop for HashLogWriter<G> {
    fn drop(&mut self) {
        let _ = self.out.flush();
    }
}

/// A hash as a data line gives it: the combined hash, then each section, 16 lower-case hex
/// digits each, one space apart (written straight to the line: no allocation).
struct HashColumns<'a, H>(&'a H);

impl<H: SectionHash> std::fmt::Display for HashColumns<'_, H> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{:016x}", self.0.combined())?;
        for i in 0..H::SECTIONS.len() {
            write!(f, " {:016x}", self.0.section(i))?;
        }
        Ok(())
    }
}

/// One parsed line of a hash log whose hashes are `H` (a game's [`Game::Hash`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HashLogEntry<H> {
    /// The tick.
    pub tick: Tick,
    /// Its hashes.
    pub hash: H,
}

/// A hash log read back; its hashes are `H` (a game's [`Game::Hash`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HashLog<H> {
    /// The format version on the first line.
    pub version: u32,
    /// The match the log is of.
    pub identity: MatchIdentity,
    /// Who wrote it (`host`, `replay`, `bot-match`, …).
    pub source: String,
    /// Every entry, ticks strictly increasing.
    pub entries: Vec<HashLogEntry<H>>,
    /// Every epoch line: `(epoch, the tick it went on from)`, in order.
    pub epochs: Vec<(u32, Tick)>,
    /// A last line cut short by a crash and ignored: `(line number, bytes)`.
    pub torn_line: Option<(usize, usize)>,
}

/// Reads every entry of a hash log of a `G` match (see [`read_hash_log_file`]).
///
/// # Errors
/// As [`read_hash_log_file`].
pub fn read_hash_log<G: Game>(path: &Path) -> Result<Vec<HashLogEntry<G::Hash>>, Error> {
    Ok(read_hash_log_file::<G>(path)?.entries)
}

/// Reads a hash log of a `G` match: its header, its entries and a torn last line (see the
/// module documentation).
///
/// # Errors
/// [`Error::Io`]; [`Error::NotALog`] for a file that is not a hash log (a match log is named);
/// [`Error::LogVersion`] for another version; [`Error::OtherGame`] for a log of another game
/// (named, with `G`'s); [`Error::HashLogSyntax`] naming the line (a damaged line among them:
/// its check does not hold); [`Error::LogTooLarge`] over the limit.
pub fn read_hash_log_file<G: Game>(path: &Path) -> Result<HashLog<G::Hash>, Error> {
    let bytes = crate::logs::matchlog::read_limited(path, MAX_HASH_LOG_BYTES)?;
    parse_hash_log::<G>(path, &bytes)
}

/// The identity and source of a first line (after the version) that is exactly in the
/// writer's form.
fn parse_first_line(rest: &str) -> Result<(MatchIdentity, String), String> {
    let field = |text: &str, key: &str| -> Result<String, String> {
        text.split_whitespace()
            .find_map(|kv| kv.strip_prefix(key)?.strip_prefix('='))
            .map(str::to_owned)
            .ok_or_else(|| format!("the match identity lacks `{key}`"))
    };
    let (fields, source) = rest
        .split_once(" source=")
        .ok_or("the first line has no `source=`")?;
    let number = |key: &str| -> Result<u64, String> {
        let text = field(fields, key)?;
        text.parse().map_err(|e| format!("{key} `{text}`: {e}"))
    };
    let rules_text = field(fields, "rules")?;
    let identity = MatchIdentity {
        game: field(fields, "game")?,
        seed: number("seed")?,
        rules: u64::from_str_radix(&rules_text, 16)
            .map_err(|e| format!("rules `{rules_text}`: {e}"))?,
        players: u8::try_from(number("players")?).map_err(|e| format!("players: {e}"))?,
        inputs: field(fields, "inputs")?,
        version: field(fields, "version")?,
        state_format: u32::try_from(number("format")?).map_err(|e| format!("format: {e}"))?,
    };
    Ok((identity, source.to_owned()))
}

fn parse_hash_log<G: Game>(path: &Path, bytes: &[u8]) -> Result<HashLog<G::Hash>, Error> {
    let syntax = |line: usize, reason: String| Error::HashLogSyntax {
        path: path.to_owned(),
        line,
        reason,
    };
    if !bytes.starts_with(FIRST_LINE.as_bytes()) {
        return Err(not_a_hash_log(path, bytes));
    }
    // Every line the writer ends with '\n': what follows the last one was torn.
    let (whole, torn) = match bytes.iter().rposition(|&b| b == b'\n') {
        Some(end) => bytes.split_at(end + 1),
        None => (&bytes[..0], bytes),
    };
    let mut lines = whole.split(|&b| b == b'\n');
    lines.next_back(); // the empty piece after the last '\n'
    let columns = columns::<G::Hash>();
    let mut log: Option<HashLog<G::Hash>> = None;
    let mut check = 0u32;
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
        if number == 2 {
            if line != columns {
                return Err(syntax(2, format!("not the column line `{columns}`")));
            }
            continue;
        }
        let (text, stated) = split_check(line, number == 1).map_err(|r| syntax(number, r))?;
        let Some(log) = log.as_mut() else {
            let (header, first_check) = parse_header::<G>(path, text, stated)?;
            (log, check) = (Some(header), first_check);
            continue;
        };
        check = checked(Some(check), text, stated).map_err(|r| syntax(number, r))?;
        if let Some(rest) = text.strip_prefix("epoch ") {
            let epoch = parse_epoch(rest, log).map_err(|reason| syntax(number, reason))?;
            log.epochs.push(epoch);
            continue;
        }
        let entry = parse_entry::<G::Hash>(text).map_err(|reason| syntax(number, reason))?;
        // After the last line, or the tick a transfer went on from.
        let floor = (log.entries.last().map(|e| e.tick)).max(log.epochs.last().map(|e| e.1));
        if let Some(last) = floor {
            if entry.tick <= last {
                return Err(syntax(
                    number,
                    format!(
                        "tick {} after tick {last} (ticks must increase: a line out of order or twice)",
                        entry.tick
                    ),
                ));
            }
        }
        log.entries.push(entry);
    }
    let Some(mut log) = log else {
        return Err(syntax(1, "the first line is torn: no header".into()));
    };
    if count < 2 {
        return Err(syntax(2, "the column line is torn".into()));
    }
    if !torn.is_empty() {
        log.torn_line = Some((count + 1, torn.len()));
    }
    Ok(log)
}

/// What a file that does not start like a hash log is instead, for the error.
fn not_a_hash_log(path: &Path, bytes: &[u8]) -> Error {
    let found = if bytes.starts_with(crate::logs::matchlog::LOG_MAGIC) {
        "a match log: `duel-cli verify <log> --hash-log <out>` writes its hash log".to_owned()
    } else {
        let shown: Vec<String> = bytes.iter().take(8).map(|b| format!("{b:02x}")).collect();
        format!("first bytes {}", shown.join(" "))
    };
    Error::NotALog {
        path: path.to_owned(),
        expected: "hash log",
        found,
    }
}

/// The first line (its `text` and `stated` check): the format version, then the match's
/// identity exactly in the writer's form, for this game. Returns the empty log and the line
/// check the next line continues.
fn parse_header<G: Game>(
    path: &Path,
    text: &str,
    stated: u32,
) -> Result<(HashLog<G::Hash>, u32), Error> {
    let syntax = |reason: String| Error::HashLogSyntax {
        path: path.to_owned(),
        line: 1,
        reason,
    };
    let rest = &text[FIRST_LINE.len()..];
    let (version, rest) = rest.split_once(' ').unwrap_or((rest, ""));
    let version: u32 = version
        .parse()
        .map_err(|e| syntax(format!("version `{version}`: {e}")))?;
    if version != HASH_LOG_VERSION {
        return Err(Error::LogVersion {
            path: path.to_owned(),
            found: version,
            expected: HASH_LOG_VERSION,
        });
    }
    let check = checked(None, text, stated).map_err(syntax)?;
    let (identity, source) = parse_first_line(rest).map_err(syntax)?;
    if first_line_text(&identity, &source) != text {
        return Err(syntax("not in the writer's form".into()));
    }
    // Before any data line is read as this game's hashes.
    if identity.game != G::NAME {
        return Err(Error::other_game::<G>(path, &identity.game));
    }
    let log = HashLog {
        version,
        identity,
        source,
        entries: Vec::new(),
        epochs: Vec::new(),
        torn_line: None,
    };
    Ok((log, check))
}

/// An epoch line after `epoch `, exactly in the writer's form (`N from TICK`, right after the
/// line of its tick; or `N from TICK after LAST`, right after the line of `LAST`, before
/// `TICK`), each epoch after the one before.
fn parse_epoch<H>(rest: &str, log: &HashLog<H>) -> Result<(u32, Tick), String> {
    let (epoch, ticks) = rest
        .split_once(" from ")
        .ok_or_else(|| format!("`epoch {rest}` is not `epoch N from TICK`"))?;
    let (tick, after) = match ticks.split_once(" after ") {
        Some((tick, after)) => (tick, Some(after)),
        None => (ticks, None),
    };
    let number = |t: &str| {
        t.parse::<u32>()
            .map_err(|e| format!("epoch line `{rest}`: {e}"))
    };
    let (epoch, tick) = (number(epoch)?, number(tick)?);
    let after = after.map(number).transpose()?;
    let form = match after {
        Some(a) => format!("{epoch} from {tick} after {a}"),
        None => format!("{epoch} from {tick}"),
    };
    if form != rest {
        return Err(format!("epoch line `{rest}` is not in the writer's form"));
    }
    // The last tick written: a line's, or the tick of the last transfer.
    let last = (log.entries.last().map(|e| e.tick))
        .max(log.epochs.last().map(|e| e.1))
        .unwrap_or(0);
    match after {
        None if tick != last => {
            return Err(format!(
                "epoch {epoch} from tick {tick} after the line of tick {last}"
            ))
        }
        Some(a) if a != last || tick <= a => {
            return Err(format!(
                "epoch {epoch} from tick {tick} after {a}, but the last tick written is {last}"
            ))
        }
        _ => {}
    }
    let previous = log.epochs.last().map_or(1, |e| e.0);
    if epoch <= previous {
        return Err(format!("epoch {epoch} after epoch {previous}"));
    }
    Ok((epoch, tick))
}

/// A line's text and its stated check (` check=XXXXXXXX` on the first line, ` XXXXXXXX` on
/// data lines).
fn split_check(line: &str, first: bool) -> Result<(&str, u32), String> {
    let separator = if first { " check=" } else { " " };
    let (text, hex) = line.rsplit_once(separator).ok_or_else(|| {
        if line.starts_with('#') || line.trim().is_empty() {
            "a comment or blank line among the data lines (the writer writes none: damage)".into()
        } else {
            "no check at the end of the line".to_owned()
        }
    })?;
    if hex.len() != 8
        || !hex
            .bytes()
            .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
    {
        return Err(format!("check `{hex}` is not 8 lower-case hex digits"));
    }
    let value = u32::from_str_radix(hex, 16).map_err(|e| format!("check `{hex}`: {e}"))?;
    Ok((text, value))
}

/// The check of `text` after `prev`, if it is the one stated.
fn checked(prev: Option<u32>, text: &str, stated: u32) -> Result<u32, String> {
    let check = line_check(prev, text);
    if check != stated {
        return Err(format!(
            "check {stated:08x} does not hold (the text and the line before give {check:08x}): \
             the line is damaged, or a line before it was changed, dropped or moved"
        ));
    }
    Ok(check)
}

/// One data line's text (before its check): the tick, the combined hash and one hash per
/// section (in [`SectionHash::SECTIONS`] order), all hex; the combined one the combination of
/// the rest, in exactly the form the writer gives them (so no two texts read as the same entry).
fn parse_entry<H: SectionHash>(line: &str) -> Result<HashLogEntry<H>, String> {
    let fields: Vec<&str> = line.split_whitespace().collect();
    let expected = 2 + H::SECTIONS.len();
    if fields.len() != expected {
        return Err(format!(
            "expected {} fields, found {}",
            expected + 1,
            fields.len() + 1
        ));
    }
    let tick = fields[0].parse().map_err(|e| format!("tick: {e}"))?;
    let h = (fields[1..].iter())
        .map(|text| u64::from_str_radix(text, 16).map_err(|e| format!("hash `{text}`: {e}")))
        .collect::<Result<Vec<u64>, String>>()?;
    let (combined, sections) = (h[0], &h[1..]);
    let hash = H::from_sections(sections)
        .ok_or_else(|| format!("{} section hashes do not make a hash", sections.len()))?;
    if hash.combined() != combined {
        return Err(format!(
            "combined hash {combined:016x} is not the combination of its sections ({:016x})",
            hash.combined()
        ));
    }
    let entry = HashLogEntry { tick, hash };
    if format!("{tick} {}", HashColumns(&hash)) != line {
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
    /// The first section that differs, as its name in the game's [`SectionHash::SECTIONS`]
    /// (`None`: only the combined hash does).
    pub section: Option<&'static str>,
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
    pub fn has_gaps<H>(&self, a: &[HashLogEntry<H>], b: &[HashLogEntry<H>]) -> bool {
        let inside = |only: &[(Tick, Tick)], other: &[HashLogEntry<H>]| match (
            other.first(),
            other.last(),
        ) {
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
pub fn compare_logs<H: SectionHash>(a: &[HashLogEntry<H>], b: &[HashLogEntry<H>]) -> LogComparison {
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
                        section: (ea.hash.first_difference(&eb.hash))
                            .and_then(|i| H::SECTIONS.get(i).copied()),
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
/// or any field of the [`MatchIdentity`] that differs, the game first (`game maze-duel vs
/// ring-race`). Empty if nothing does.
#[must_use]
pub fn header_differences<H>(a: &HashLog<H>, b: &HashLog<H>) -> Vec<String> {
    let mut out = Vec::new();
    if a.version != b.version {
        out.push(format!("format version {} vs {}", a.version, b.version));
    }
    for ((key, x), (_, y)) in a.identity.fields().into_iter().zip(b.identity.fields()) {
        if x != y {
            out.push(format!("{key} {x} vs {y}"));
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

    /// Every peer of one networked match names its inputs alike (their logs must compare),
    /// whatever bot each runs; a headless bot match is named by its bot seed; other modes by
    /// themselves, as one token.
    #[test]
    fn inputs_are_named_alike_by_every_peer_of_a_match() {
        for (mode, bots) in [("host", Some(3)), ("join", None), ("spectate", Some(9))] {
            assert_eq!(inputs_of(mode, bots), "peers", "{mode}");
        }
        assert_eq!(inputs_of("bot-match", Some(0xab)), "bots-00000000000000ab");
        assert_ne!(
            inputs_of("bot-match", Some(1)),
            inputs_of("bot-match", Some(2))
        );
        assert_eq!(inputs_of("local-vs-bot-hard", None), "local-vs-bot-hard");
        assert_eq!(inputs_of("a b", None), "a-b");
    }

    /// The column line names every section of the game, in the order the lines give them:
    /// the duel's as before format 6, the ring race's its own.
    #[test]
    fn the_column_line_names_every_section() {
        assert_eq!(
            columns::<engine::StateHash>(),
            "# tick combined players projectiles maze history rest check"
        );
        assert_eq!(
            columns::<ring_race::RingHash>(),
            "# tick combined racers coin rest check"
        );
    }

    /// A data line gives the duel's hash exactly as its own `Display` does (the format the
    /// lines had before they were generic).
    #[test]
    fn a_data_line_is_the_duels_display_of_its_hash() {
        let hash = engine::StateHash::from_sections([1, 2, 3, 4, 0xdead_beef]);
        assert_eq!(HashColumns(&hash).to_string(), hash.to_string());
    }
}
