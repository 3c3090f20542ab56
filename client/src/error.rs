//! The client crate's one error type.

use engine::Tick;
use std::path::PathBuf;

/// Everything the client layer can refuse or fail at.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The simulation refused something (inputs, a snapshot, rules).
    #[error(transparent)]
    Engine(#[from] engine::Error),
    /// The game refused something (inputs, a snapshot, rules): its own error.
    #[error(transparent)]
    Game(Box<dyn std::error::Error + Send + Sync>),
    /// A tick asked of a history that no longer (or never) held it.
    #[error(transparent)]
    History(#[from] game_api::RingError),
    /// A step asked for that cannot exist: tick 0 is where a match begins, no step reaches it.
    #[error("tick {tick} has no step before it")]
    NoStepBefore {
        /// The tick asked for.
        tick: Tick,
    },
    /// A log skips a tick with no state transfer to carry play across the gap: the tick
    /// cannot be re-simulated.
    #[error("the log has no record of tick {tick}: ticks are missing and no state transfer goes on from the tick before")]
    TickRecordMissing {
        /// The first tick the log has no record of.
        tick: Tick,
    },
    /// A file could not be read or written.
    #[error("{}: {cause}", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// What went wrong (kept out of the error chain: the message already says it).
        cause: std::io::Error,
    },
    /// A hash log line that does not parse.
    #[error("{}:{line}: {reason}", path.display())]
    HashLogSyntax {
        /// The log.
        path: PathBuf,
        /// 1-based line number.
        line: usize,
        /// What is wrong with it.
        reason: String,
    },
    /// No state to show from a match log or snapshot dump at the tick asked for.
    #[error("{}: {reason}", path.display())]
    StateUnavailable {
        /// The log or dump.
        path: std::path::PathBuf,
        /// Why (no such tick, bytes that do not decode, a log that does not re-simulate).
        reason: String,
    },
    /// A per-phase hash file (written beside desync dumps) that does not parse.
    #[error("{}:{line}: {reason}", path.display())]
    PhaseTraceSyntax {
        /// The file.
        path: std::path::PathBuf,
        /// Line number (1-based; 0 for the file as a whole).
        line: usize,
        /// What is wrong.
        reason: String,
    },
    /// GGRS asked to save or load a frame the world is not at.
    #[error("GGRS requested frame {requested} but the world is at tick {expected}")]
    FrameMismatch {
        /// The world's tick.
        expected: Tick,
        /// The frame GGRS named.
        requested: i32,
    },
    /// GGRS asked to load a frame whose cell holds no save of that frame (GGRS only loads
    /// frames it had saved).
    #[error("GGRS asked to load frame {frame}, whose cell holds no save of it")]
    LoadOfUnsavedFrame {
        /// The frame GGRS named.
        frame: i32,
    },
    /// A [`crate::session::lagged::LaggedRun`] given a script that does not fit its game.
    #[error("lagged run: {0}")]
    LaggedScript(String),
    /// GGRS refused a call.
    #[error("GGRS: {0}")]
    Ggrs(ggrs::GgrsError),
    /// The socket could not be bound.
    #[error("cannot bind {addr}: {cause}")]
    Bind {
        /// The address asked for.
        addr: std::net::SocketAddr,
        /// The OS error (e.g. address in use).
        cause: std::io::Error,
    },
    /// An address that does not resolve.
    #[error("{0}")]
    Address(String),
    /// The peer refused the match at the handshake, or we refused it.
    #[error("match refused at handshake: {reason}")]
    Refused {
        /// What differs (rules, versions) or why the peer was turned away.
        reason: String,
    },
    /// A rejoin was refused: by the other player (its reason), or by this side (the other's
    /// answer did not fit its log).
    #[error("rejoin refused: {reason}")]
    RejoinRefused {
        /// Why.
        reason: String,
    },
    /// A spectator welcomed after the start could not catch up: the host's state was
    /// refused, or the host gave it up (it fell too far behind).
    #[error("cannot follow the match: {reason}")]
    CatchUpFailed {
        /// Why.
        reason: String,
    },
    /// A resync after a desync could not be finished: the other side's answer did not fit,
    /// its state was refused, or it did not take part within the reconnect grace.
    #[error("the desync could not be repaired: {reason}")]
    ResyncFailed {
        /// Why.
        reason: String,
    },
    /// The other player did not take the rejoin in time.
    #[error("no answer to the rejoin from {peer} within {seconds} s (the match may be over: the other player waits for the reconnect grace only, 30 s by default)")]
    RejoinTimeout {
        /// The other player's address from the log.
        peer: std::net::SocketAddr,
        /// How long we waited.
        seconds: u64,
    },
    /// Nobody answered the handshake in time.
    #[error("no answer from {peer} within {seconds} s{hint}")]
    HandshakeTimeout {
        /// Who was expected to answer (or "any joiner" for a host).
        peer: String,
        /// How long we waited.
        seconds: u64,
        /// What may be wrong and what to do, for the transport used (over UDP: the port
        /// forward a host behind a router needs); empty or starting with a separator.
        hint: String,
    },
    /// Nothing listens on the host's UDP port: the OS said so (an ICMP "port unreachable"), so
    /// the joiner gives up at once instead of waiting out its handshake.
    #[error("nothing listens on UDP port {} at {} (the host is not running, or it listens on another port)", host.port(), host.ip())]
    PortClosed {
        /// The host tried.
        host: std::net::SocketAddr,
    },
    /// The signalling server of an online room did not answer (not running, wrong address).
    #[error("cannot reach the signalling server at {url}: {reason} (is it running? start one with `./run signal`, or give another with --signal)")]
    SignalUnreachable {
        /// The room URL tried.
        url: String,
        /// What went wrong.
        reason: String,
    },
    /// Nobody to play with (for a spectator: no host) could be connected to in an online room
    /// within the time given, or it became clear nobody would be: the stage that failed (nobody
    /// came, no network path, the encrypted channel never opened) and the fix.
    #[cfg(feature = "webrtc")]
    #[error("no connection in room {url} (waited {seconds} s): {failure}")]
    RoomNotConnected {
        /// The room URL.
        url: String,
        /// How long we waited, in whole seconds.
        seconds: u64,
        /// What failed.
        failure: crate::net::webrtc::RoomFailure,
    },
    /// The room was lost before it settled who hosts: the signalling server went away, or the
    /// WebRTC stack failed.
    #[error("lost the room {url} before it was settled: {reason}")]
    RoomLost {
        /// The room URL.
        url: String,
        /// What went wrong.
        reason: String,
    },
    /// The signalling server could not start or stopped.
    #[error("signalling server: {0}")]
    SignalServer(String),
    /// The handshake was done but GGRS did not synchronize with these peers in time.
    #[error("no synchronization with {peers} within {millis} ms after the handshake (the peer vanished?)")]
    SyncTimeout {
        /// The peers that did not synchronize.
        peers: String,
        /// How long we waited.
        millis: u64,
    },
    /// A running match confirmed nothing for the freeze timeout.
    #[error("the match froze at tick {tick}: nothing was confirmed for {seconds} s although the session runs (the other side stopped sending usable input)")]
    MatchFrozen {
        /// The last final tick.
        tick: engine::Tick,
        /// The freeze timeout, in whole seconds.
        seconds: u64,
    },
    /// A spectator fell so far behind the host that it cannot catch up.
    #[error("spectator fell too far behind the host to catch up (at tick {tick})")]
    SpectatorTooFarBehind {
        /// Where the spectator was.
        tick: Tick,
    },
    /// The operation needs a playing peer, and this one watches.
    #[error("{what} needs a player slot; this peer is a spectator")]
    NotAPlayer {
        /// What was asked.
        what: &'static str,
    },
    /// Re-simulating a logged tick gave other audited events ([`game_api::Game::Audit`]: the
    /// duel's rail shots as judged, the ring race's coins taken) than the log holds.
    #[error("tick {tick}: the log's audited events differ from the re-simulation: logged {logged}, re-simulated {got}")]
    AuditMismatch {
        /// The tick.
        tick: Tick,
        /// The logged audited events.
        logged: String,
        /// The re-simulated ones.
        got: String,
    },
    /// A log (match log or hash log) of another game than the one it is read as: nothing of it
    /// is read as that game's inputs, hashes or states.
    #[error("{}: a log of the game `{found}`, read as `{expected}`", path.display())]
    OtherGame {
        /// The log.
        path: PathBuf,
        /// The game the log names (made printable, at most 40 characters).
        found: String,
        /// The game it was read as ([`game_api::Game::NAME`]).
        expected: &'static str,
    },
    /// Two hash logs compared for a desync are not of the same match.
    #[error("{} and {} are not logs of the same match: {differences}", a.display(), b.display())]
    LogsOfOtherMatches {
        /// One log.
        a: PathBuf,
        /// The other.
        b: PathBuf,
        /// How their identities differ.
        differences: String,
    },
    /// Two hash logs compared for a desync hold no tick in common: nothing was compared.
    #[error("no tick in common, nothing compared: {} holds {held_a}, {} holds {held_b}", a.display(), b.display())]
    NoTickInCommon {
        /// One log.
        a: PathBuf,
        /// The ticks it holds.
        held_a: String,
        /// The other.
        b: PathBuf,
        /// The ticks it holds.
        held_b: String,
    },
    /// Two hash logs agree on every common tick, but one has gaps inside the other's span.
    #[error("the logs have gaps the other does not (listed above): ticks left unchecked")]
    UncheckedGaps,
    /// A sync test found a frame whose re-simulation differs from the original.
    #[error("sync test: frames {frames:?} re-simulated differently (checked at frame {at}); snapshots written to {}{}", dump.display(), phases.as_deref().map(|p| format!("; {p}")).unwrap_or_default())]
    SyncTestMismatch {
        /// The frame being simulated when the mismatch was found.
        at: i32,
        /// The mismatched frames.
        frames: Vec<i32>,
        /// Where the original and re-simulated snapshots were written.
        dump: PathBuf,
        /// The verdict of the per-phase hashes of the first mismatched frame's step, original
        /// against re-simulated (`first phase that differs in the step to tick 150: movement
        /// (section players)`), when both were kept.
        phases: Option<String>,
    },
    /// A match log record that is damaged or out of order. Reading stops there.
    #[error("{}: corrupt record at byte {offset} (LSN {lsn}): {reason}", path.display())]
    LogCorrupt {
        /// The log.
        path: PathBuf,
        /// Byte offset of the record.
        offset: u64,
        /// The LSN the record claims (the one expected there when its prefix is damaged).
        lsn: u64,
        /// What is wrong.
        reason: String,
    },
    /// A match log written in another format version.
    #[error("{}: log format version {found}, this build reads version {expected}", path.display())]
    LogVersion {
        /// The log.
        path: PathBuf,
        /// The version in the log.
        found: u32,
        /// The version this build reads.
        expected: u32,
    },
    /// A log whose rules do not hash to the hash it records (or to the rules asked for).
    #[error("the log's rules hash {recorded:016x} does not match the rules {actual:016x}")]
    LogRulesMismatch {
        /// The hash in the header.
        recorded: u64,
        /// The hash of the rules compared against.
        actual: u64,
    },
    /// Re-simulating a log gave another state than it records.
    #[error("tick {tick}: re-simulation differs from the log in section `{section}` (logged {logged:016x}, got {got:016x})")]
    VerifyMismatch {
        /// The first tick that differs.
        tick: Tick,
        /// The first section that differs.
        section: &'static str,
        /// The logged section hash.
        logged: u64,
        /// The re-simulated section hash.
        got: u64,
    },
    /// A state asked of a match log past its last tick.
    #[error("the log ends at tick {last}: it holds no state for tick {tick}")]
    LogEndsBefore {
        /// The tick asked for.
        tick: Tick,
        /// The log's last tick.
        last: Tick,
    },
    /// A finished log cannot be continued.
    #[error("{}: the match already ended at tick {tick}", path.display())]
    LogFinished {
        /// The log.
        path: PathBuf,
        /// Its last tick.
        tick: Tick,
    },
    /// A file that is not the kind of log expected (no magic, or another kind of log).
    #[error("{}: not a {expected} ({found})", path.display())]
    NotALog {
        /// The file.
        path: PathBuf,
        /// The kind of log expected (`match log`, `hash log`).
        expected: &'static str,
        /// What it looks like instead.
        found: String,
    },
    /// A log longer than a reader accepts (it is not read into memory).
    #[error("{}: longer than the {limit}-byte limit for this kind of log", path.display())]
    LogTooLarge {
        /// The log.
        path: PathBuf,
        /// The limit, in bytes.
        limit: u64,
    },
    /// The rules recorded in a log's header do not parse or validate.
    #[error("the rules recorded in the log header are invalid: {reason}")]
    LogRules {
        /// What is wrong with them.
        reason: String,
    },
    /// Another writer holds the log (the match is still running, or being resumed).
    #[error("{}: another process is writing this log (is the match still running?)", path.display())]
    LogLocked {
        /// The log.
        path: PathBuf,
    },
    /// The log changed between reading it and reopening it to continue it.
    #[error("{}: the log changed since it was read (last LSN {read_lsn} then, {now_lsn} now)", path.display())]
    LogChanged {
        /// The log.
        path: PathBuf,
        /// Its last LSN when read.
        read_lsn: u64,
        /// Its last LSN now.
        now_lsn: u64,
    },
    /// A log that cannot be continued honestly (not a bot match, no bot seed, no stop tick).
    #[error("{}: cannot resume: {reason}", path.display())]
    LogNotResumable {
        /// The log.
        path: PathBuf,
        /// Why not.
        reason: String,
    },
    /// A tick the caller expected in order arrived out of order.
    #[error("hash log: tick {got} written after tick {last}")]
    HashLogOrder {
        /// The last tick written.
        last: Tick,
        /// The tick that came next.
        got: Tick,
    },
    /// The signalling server refused this peer the room: another secret holds it (a stranger
    /// who knows the name, or a link with another secret), or the link is malformed.
    #[error("the signalling server refused the room {url}: {reason}")]
    RoomRefused {
        /// The room (without its secret).
        url: String,
        /// The server's reason.
        reason: String,
    },
    /// A match log written by another game, game version or state format: it would not
    /// re-simulate the same, so it is not verified as if it did.
    #[error("the log was written by another build: {what} {logged}, this build's is {ours}")]
    LogBuild {
        /// What differs.
        what: &'static str,
        /// The log's.
        logged: String,
        /// This build's.
        ours: String,
    },
}

impl From<ggrs::GgrsError> for Error {
    fn from(e: ggrs::GgrsError) -> Error {
        Error::Ggrs(e)
    }
}

impl Error {
    /// Wraps an I/O error with the path it concerns.
    pub fn io(path: impl Into<PathBuf>, cause: std::io::Error) -> Error {
        Error::Io {
            path: path.into(),
            cause,
        }
    }

    /// A log at `path` naming the game `found` (untrusted text), read as `G`.
    pub fn other_game<G: game_api::Game>(path: &std::path::Path, found: &str) -> Error {
        Error::OtherGame {
            path: path.to_owned(),
            found: crate::net::wire::printable(found, 40),
            expected: G::NAME,
        }
    }

    /// Wraps an error of the game's own.
    pub fn game<E: std::error::Error + Send + Sync + 'static>(error: E) -> Error {
        Error::Game(Box::new(error))
    }
}
