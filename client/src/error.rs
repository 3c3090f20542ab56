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
    /// A tick the caller expected in order arrived out of order.
    #[error("hash log: tick {got} written after tick {last}")]
    HashLogOrder {
        /// The last tick written.
        last: Tick,
        /// The tick that came next.
        got: Tick,
    },
}

impl Error {
    /// Wraps an I/O error with the path it concerns.
    pub fn io(path: impl Into<PathBuf>, cause: std::io::Error) -> Error {
        Error::Io {
            path: path.into(),
            cause,
        }
    }
}
