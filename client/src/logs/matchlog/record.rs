//! Record framing and the record-kind dispatch: one kind byte per [`Record`] variant, one arm
//! each in `encode_payload` and `decode_payload`. A new kind of record joins here.

use super::{Record, TickRecord};
use bincode::Options;
use game_api::{Game, Tick};

/// Bytes of framing before a record's payload: len, lsn, prev_lsn, kind, prefix check.
pub(super) const PREFIX_LEN: usize = 4 + 8 + 8 + 1 + 4;
/// The prefix bytes covered by the prefix check.
pub(super) const PREFIX_CHECKED: usize = PREFIX_LEN - 4;
/// Bytes of framing after it.
pub(super) const SUFFIX_LEN: usize = 8;
/// Largest payload a record may declare.
pub(super) const MAX_PAYLOAD: u32 = 16 << 20;

pub(super) const KIND_HEADER: u8 = 1;
pub(super) const KIND_TICK: u8 = 2;
pub(super) const KIND_CHECKPOINT: u8 = 3;
pub(super) const KIND_END: u8 = 4;
pub(super) const KIND_EPOCH: u8 = 5;
pub(super) const KIND_OUTAGE: u8 = 6;
pub(super) const KIND_RESYNC: u8 = 7;

fn options() -> impl Options {
    bincode::DefaultOptions::new()
        .with_fixint_encoding()
        .with_little_endian()
        .reject_trailing_bytes()
        .with_limit(u64::from(MAX_PAYLOAD))
}

/// A record borrowed for writing (a tick record is written every tick: no clone).
pub(super) enum RecordRef<'a, G: Game> {
    /// Any record.
    Record(&'a Record<G>),
    /// A tick record.
    Tick(&'a TickRecord<G>),
}

pub(super) fn encode_payload<G: Game>(record: RecordRef<'_, G>, out: &mut Vec<u8>) -> u8 {
    let opts = options();
    let record = match record {
        RecordRef::Tick(t) => {
            return opts
                .serialize_into(&mut *out, t)
                .map(|()| KIND_TICK)
                .expect("records always encode");
        }
        RecordRef::Record(r) => r,
    };
    let result = match record {
        Record::Header(h) => opts.serialize_into(&mut *out, h).map(|()| KIND_HEADER),
        Record::Tick(t) => opts.serialize_into(&mut *out, t).map(|()| KIND_TICK),
        Record::Checkpoint { tick, snapshot } => opts
            .serialize_into(&mut *out, &(tick, snapshot))
            .map(|()| KIND_CHECKPOINT),
        Record::End { tick, reason } => opts
            .serialize_into(&mut *out, &(tick, reason))
            .map(|()| KIND_END),
        Record::Epoch(e) => opts.serialize_into(&mut *out, e).map(|()| KIND_EPOCH),
        Record::Outage(o) => opts.serialize_into(&mut *out, o).map(|()| KIND_OUTAGE),
        Record::Resync(r) => opts.serialize_into(&mut *out, r).map(|()| KIND_RESYNC),
    };
    result.expect("records always encode")
}

/// The header's payload alone (the first record, read before the log is known to be `G`'s).
pub(super) fn decode_header(payload: &[u8]) -> Result<super::LogHeader, String> {
    options().deserialize(payload).map_err(|e| e.to_string())
}

pub(super) fn decode_payload<G: Game>(kind: u8, payload: &[u8]) -> Result<Record<G>, String> {
    let opts = options();
    let err = |e: bincode::Error| e.to_string();
    match kind {
        KIND_HEADER => opts.deserialize(payload).map(Record::Header).map_err(err),
        KIND_TICK => opts.deserialize(payload).map(Record::Tick).map_err(err),
        KIND_CHECKPOINT => opts
            .deserialize::<(Tick, Vec<u8>)>(payload)
            .map(|(tick, snapshot)| Record::Checkpoint { tick, snapshot })
            .map_err(err),
        KIND_END => opts
            .deserialize::<(Tick, String)>(payload)
            .map(|(tick, reason)| Record::End { tick, reason })
            .map_err(err),
        KIND_EPOCH => opts.deserialize(payload).map(Record::Epoch).map_err(err),
        KIND_OUTAGE => opts.deserialize(payload).map(Record::Outage).map_err(err),
        KIND_RESYNC => opts.deserialize(payload).map(Record::Resync).map_err(err),
        other => Err(format!("unknown record kind {other}")),
    }
}

pub(super) fn checksum(framed: &[u8]) -> u64 {
    xxhash_rust::xxh3::xxh3_64(framed)
}

/// The check over a record's first 21 bytes (length, LSNs, kind): the low half of their xxh3.
pub(super) fn prefix_check(prefix: &[u8]) -> u32 {
    checksum(prefix) as u32
}
