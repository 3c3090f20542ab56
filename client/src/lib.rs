//! What a playing peer needs around the deterministic core: rules files, per-tick hash logs,
//! headless bot matches, and (built on GGRS) rollback sessions.
#![forbid(unsafe_code)]
#![deny(missing_docs)]

mod error;
pub mod hashlog;
mod headless;
mod rules_file;

pub use error::Error;
pub use headless::{run_bot_match, BotMatch, BotMatchSummary};
pub use rules_file::load_rules;
