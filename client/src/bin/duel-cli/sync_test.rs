//! `sync-test`: a GGRS sync test, which rolls back and re-simulates every frame and compares
//! checksums.

use anyhow::Result;
use client::session::synctest::{run_sync_test, SyncTest};

/// `duel-cli sync-test`: runs the test and prints its summary (a mismatch is an error).
pub(crate) fn sync_test(plan: &SyncTest) -> Result<()> {
    let summary = run_sync_test(plan)?;
    out!(
        "ticks={} rollbacks={} mismatches=0 hash={:016x}",
        summary.ticks,
        summary.rollbacks,
        summary.final_hash.combined
    );
    Ok(())
}
