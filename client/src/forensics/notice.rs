//! What a peer prints the moment a desync is detected.

use game_api::Tick;
use std::fmt;
use std::net::SocketAddr;
use std::path::PathBuf;

/// What a peer says when a desync is detected: the tick, both checksums, the dumps and the
/// command to run next.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DesyncNotice {
    /// The checked tick whose checksums differ.
    pub tick: Tick,
    /// Checksums are compared every this many ticks.
    pub interval: u32,
    /// Our checksum of `tick`.
    pub local: u64,
    /// The peer's.
    pub remote: u64,
    /// The peer.
    pub peer: SocketAddr,
    /// Where the snapshots and phase hashes went, and the ticks dumped.
    pub dumps: Option<(PathBuf, Tick, Tick)>,
    /// This peer's hash log.
    pub hash_log: Option<PathBuf>,
    /// This peer's match log.
    pub match_log: Option<PathBuf>,
}

impl fmt::Display for DesyncNotice {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let tick = self.tick;
        if self.interval <= 1 {
            writeln!(
                f,
                "DESYNC at tick {tick}: the first tick whose checksums differ"
            )?;
        } else {
            let from = tick.saturating_sub(self.interval - 1);
            writeln!(
                f,
                "DESYNC at tick {tick} (checksums compared every {} ticks: the first divergent \
                 tick is one of {from}–{tick})",
                self.interval
            )?;
        }
        writeln!(
            f,
            "  checksums: ours {:016x}, peer {} {:016x}",
            self.local, self.peer, self.remote
        )?;
        match &self.dumps {
            Some((dir, from, to)) => writeln!(
                f,
                "  dumps: {} (ticks {from}–{to}: .snapshot and .phases per-phase hashes each, \
                 .txt for the last 4)",
                dir.display()
            )?,
            None => writeln!(f, "  dumps: none (no dump directory)")?,
        }
        let ours = self
            .hash_log
            .as_ref()
            .map_or("<this peer's hash log>".into(), |p| p.display().to_string());
        write!(
            f,
            "  next: duel-cli desync {ours} <the other peer's hash log>"
        )?;
        if let Some(log) = &self.match_log {
            write!(
                f,
                " --match-a {} --match-b <the other peer's match log>",
                log.display()
            )?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn notice(interval: u32) -> DesyncNotice {
        DesyncNotice {
            tick: 150,
            interval,
            local: 0x8d20_106c_d714_95b5,
            remote: 0x2d5d_8503_d98b_857d,
            peer: "127.0.0.1:7000".parse().expect("addr"),
            dumps: Some((PathBuf::from("host.log.dumps"), 100, 150)),
            hash_log: Some(PathBuf::from("host.log")),
            match_log: Some(PathBuf::from("host.mlog")),
        }
    }

    #[test]
    fn the_notice_names_tick_checksums_dumps_and_next_command() {
        let text = notice(1).to_string();
        assert!(text.starts_with("DESYNC at tick 150: the first tick whose checksums differ"));
        assert!(text.contains("ours 8d20106cd71495b5, peer 127.0.0.1:7000 2d5d8503d98b857d"));
        assert!(text.contains("dumps: host.log.dumps (ticks 100–150"));
        assert!(text.contains(
            "next: duel-cli desync host.log <the other peer's hash log> --match-a host.mlog"
        ));
    }

    #[test]
    fn with_sparse_checks_the_notice_gives_the_range_of_the_first_divergent_tick() {
        let text = notice(50).to_string();
        assert!(
            text.contains("every 50 ticks: the first divergent tick is one of 101–150"),
            "{text}"
        );
    }
}
