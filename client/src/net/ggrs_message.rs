//! GGRS's messages, checked against the hard limits of the match before GGRS sees them.
//!
//! GGRS 0.13 trusts what a peer sends. An `Input` message with more frames than its input queue
//! holds (128) trips `assertion failed: self.length <= INPUT_QUEUE_LENGTH`; its run-length
//! decoder allocates whatever length a header claims (2^40 bytes aborts the process) and its
//! varint and length sums overflow (a panic, since `overflow-checks` is on in every profile);
//! frame numbers near `i32::MAX` overflow when GGRS adds to them; an `Input` from a spectator
//! trips `assert!(player < num_players)`; a forged "peer disconnected" status silently drops a
//! player; a `QualityReply` echoing a time far in the past overflows GGRS's frame-advantage
//! arithmetic. Anyone who sees the session id (it travels in clear) can send these.
//!
//! So the socket decodes every GGRS payload into [`GgrsMessage`], a mirror of GGRS's own message
//! types with the same serde layout (a test checks it against `ggrs::Message` for every
//! variant), checks it against [`Limits`] with [`check`], decodes the input run itself with
//! bounded arithmetic, and hands GGRS a re-encoded message whose input run is one literal block
//! of the exact size it describes: GGRS's decoders then never see a peer-chosen length. Whatever
//! fails is dropped and counted ([`crate::net::socket::SocketCounters::dropped_invalid`]).

use crate::net::wire;
use serde::{Deserialize, Serialize};
use std::fmt;

/// Frames GGRS's input queue holds per player (`INPUT_QUEUE_LENGTH` in ggrs 0.13).
pub const GGRS_INPUT_QUEUE_LENGTH: i32 = 128;
/// Most frames of input one message may carry. A player sends only what the other has not
/// acknowledged (at most the prediction window plus both input delays); a host sends a spectator
/// at most 128 unacknowledged frames before GGRS drops it, plus the frame that tipped it over.
pub const MAX_INPUTS_PER_MESSAGE: usize = 129;
/// Highest frame number accepted anywhere in a message (about 200 days at 60 Hz): far below
/// `i32::MAX`, so GGRS's own `frame + n` arithmetic cannot overflow.
pub const MAX_FRAME: i32 = 1 << 30;
/// Longest round trip a `QualityReply` may imply; GGRS multiplies it by the frame rate.
pub const MAX_RTT_MS: u128 = 60_000;

/// GGRS's `ConnectionStatus`: a peer's view of one player's connection.
#[allow(missing_docs)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct ConnectionStatus {
    pub disconnected: bool,
    pub last_frame: i32,
}

/// GGRS's `Input` message: the sender's unacknowledged inputs from `start_frame` on, delta- and
/// run-length-encoded in `bytes`.
#[allow(missing_docs)]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Input {
    pub peer_connect_status: Vec<ConnectionStatus>,
    pub disconnect_requested: bool,
    pub start_frame: i32,
    pub ack_frame: i32,
    pub bytes: Vec<u8>,
}

/// GGRS's `MessageBody`, variant for variant in GGRS's order (bincode tags by position).
#[allow(missing_docs)]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum Body {
    SyncRequest { random_request: u32 },
    SyncReply { random_reply: u32 },
    Input(Input),
    InputAck { ack_frame: i32 },
    QualityReport { frame_advantage: i16, ping: u128 },
    QualityReply { pong: u128 },
    ChecksumReport { checksum: u128, frame: i32 },
    KeepAlive,
}

/// GGRS's `Message`: a header holding the sender's random `magic`, and a body.
#[allow(missing_docs)]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct GgrsMessage {
    pub magic: u16,
    pub body: Body,
}

/// Who sent a GGRS message, as far as this match is concerned.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Sender {
    /// A remote player of a P2P session, sending the inputs of `slots` players per frame. It
    /// may not run further ahead of the local frame than [`Limits::max_lead`], and may not
    /// declare anyone disconnected (in a two-player match a real peer never does: it stops
    /// sending instead).
    Player {
        /// Players behind that address.
        slots: usize,
    },
    /// A spectator, heard by the host: acknowledgements and reports, never inputs.
    Spectator,
    /// The host, heard by a spectator: every player's inputs, and the host's view of who is
    /// still connected.
    Host,
}

/// The hard limits of one match.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// Players in the match (every `Input` carries one connection status per player).
    pub players: usize,
    /// Bytes of one player's input per frame, as GGRS serializes it.
    pub input_size: usize,
    /// Frames a remote player may run ahead of the local frame. GGRS's input queue holds 128
    /// frames counted from the oldest frame still inside the prediction window, so this is
    /// `128 - max_prediction - 8`: legitimate traffic (prediction window plus both input delays)
    /// stays well inside it, and the queue cannot overflow.
    pub max_lead: i32,
}

impl Limits {
    /// The limits of a match of `players` under GGRS configuration `C` with prediction window
    /// `max_prediction`. The input size is measured on `C::Input::default()`, the way GGRS
    /// measures it, so a larger input type needs no change here.
    #[must_use]
    pub fn for_match<C: ggrs::Config>(players: usize, max_prediction: usize) -> Limits {
        let input_size = bincode::serialized_size(&C::Input::default())
            .map_or(usize::MAX, |n| usize::try_from(n).unwrap_or(usize::MAX));
        let window = i32::try_from(max_prediction).unwrap_or(i32::MAX);
        Limits {
            players,
            input_size,
            max_lead: GGRS_INPUT_QUEUE_LENGTH
                .saturating_sub(window)
                .saturating_sub(8)
                .max(0),
        }
    }
}

/// Why a GGRS message was refused.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Refusal {
    /// The payload is not a GGRS message.
    Undecodable,
    /// A frame number outside `[-1, MAX_FRAME]`, or further ahead than the sender may be.
    FrameOutOfRange {
        /// Which field.
        field: &'static str,
        /// Its value.
        frame: i64,
        /// The highest value allowed.
        max: i64,
    },
    /// More frames of input than [`MAX_INPUTS_PER_MESSAGE`], or more bytes than they can take.
    TooManyInputs {
        /// Frames (or bytes, for the run-length block) found.
        found: u64,
        /// The limit.
        max: u64,
    },
    /// The run-length or delta encoding is damaged (a bad varint, a run past the end, a frame
    /// of the wrong size).
    BadEncoding(&'static str),
    /// One connection status per player is required.
    WrongPlayerCount {
        /// Statuses found.
        found: usize,
    },
    /// Inputs from a sender that has none to send (a spectator).
    UnexpectedInput,
    /// A remote player declares someone disconnected: the match must end as a disconnect.
    DisconnectClaim {
        /// The slot declared disconnected.
        slot: usize,
    },
    /// A frame advantage or round trip beyond anything a live peer reports.
    Implausible(&'static str),
    /// An acknowledgement of a frame of input never sent to that peer.
    AckBeyondSent {
        /// The frame acknowledged.
        ack: i32,
        /// The last frame sent to it (−1: none).
        sent: i32,
    },
}

impl fmt::Display for Refusal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Refusal::Undecodable => write!(f, "not a GGRS message"),
            Refusal::FrameOutOfRange { field, frame, max } => {
                write!(f, "{field} {frame} out of range (at most {max})")
            }
            Refusal::TooManyInputs { found, max } => write!(f, "{found} inputs (at most {max})"),
            Refusal::BadEncoding(what) => write!(f, "bad input encoding: {what}"),
            Refusal::WrongPlayerCount { found } => write!(f, "{found} connection statuses"),
            Refusal::UnexpectedInput => write!(f, "inputs from a spectator"),
            Refusal::DisconnectClaim { slot } => write!(f, "claims slot {slot} disconnected"),
            Refusal::Implausible(what) => write!(f, "implausible {what}"),
            Refusal::AckBeyondSent { ack, sent } => {
                write!(
                    f,
                    "acknowledges frame {ack}, but only up to {sent} was sent"
                )
            }
        }
    }
}

/// Where this side stands with the sender of a message, for [`check`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Heard {
    /// The local session's current frame.
    pub local_frame: i32,
    /// The highest frame of input we sent the sender (−1: none). GGRS 0.13 drops every
    /// unacknowledged input up to whatever frame an acknowledgement names, even one it never
    /// sent: an input lost on the way would then never be sent again and both peers freeze.
    /// So no acknowledgement may name a later frame than this.
    pub sent_through: i32,
    /// Wall-clock time in milliseconds since the Unix epoch (GGRS's clock for pings).
    pub now_ms: u128,
}

/// A message that passed [`check`].
#[derive(Debug, Clone)]
pub struct Checked {
    /// The message GGRS may safely handle.
    pub message: ggrs::Message,
    /// The last frame of input it carries, if it carries inputs.
    pub last_input: Option<i32>,
}

/// Decodes `payload` as a GGRS message and checks it against `limits`, as sent by `sender`
/// with this side at `heard`. Returns the message GGRS may safely handle.
///
/// # Errors
/// A [`Refusal`] saying what is wrong; nothing refused may reach GGRS.
pub fn check(
    payload: &[u8],
    sender: Sender,
    heard: &Heard,
    limits: &Limits,
) -> Result<Checked, Refusal> {
    let mut last_input = None;
    let mut msg: GgrsMessage = wire::decode(payload).map_err(|_| Refusal::Undecodable)?;
    // The furthest ahead any frame a remote player names may be.
    let lead_cap = match sender {
        Sender::Player { .. } => i64::from(heard.local_frame) + i64::from(limits.max_lead),
        Sender::Spectator | Sender::Host => i64::from(MAX_FRAME),
    }
    .min(i64::from(MAX_FRAME));
    let frame = |field, value, min| frame_in_range(field, value, min, lead_cap);
    match &mut msg.body {
        Body::SyncRequest { .. } | Body::SyncReply { .. } | Body::KeepAlive => {}
        Body::InputAck { ack_frame } => {
            frame("ack frame", *ack_frame, -1)?;
            acknowledged(*ack_frame, heard.sent_through)?;
        }
        Body::ChecksumReport { frame: at, .. } => frame("checksum frame", *at, 0)?,
        Body::QualityReport {
            frame_advantage, ..
        } => {
            if i32::from(*frame_advantage).abs() > limits.max_lead {
                return Err(Refusal::Implausible("frame advantage"));
            }
        }
        Body::QualityReply { pong } => {
            if heard.now_ms.saturating_sub(*pong) > MAX_RTT_MS {
                return Err(Refusal::Implausible("round trip"));
            }
        }
        Body::Input(input) => last_input = check_input(input, sender, heard, limits, lead_cap)?,
    }
    let canonical = wire::encode_payload(&msg);
    let message =
        wire::decode_own::<ggrs::Message>(&canonical).map_err(|_| Refusal::Undecodable)?;
    Ok(Checked {
        message,
        last_input,
    })
}

/// A frame named in `field` must lie in `min..=lead_cap`.
fn frame_in_range(field: &'static str, value: i32, min: i32, lead_cap: i64) -> Result<(), Refusal> {
    if value < min || i64::from(value) > lead_cap {
        return Err(Refusal::FrameOutOfRange {
            field,
            frame: i64::from(value),
            max: lead_cap,
        });
    }
    Ok(())
}

/// Checks an input message from `sender` and rewrites its bytes to their canonical (literal)
/// run encoding. Returns the last frame of input it carries, if any.
fn check_input(
    input: &mut Input,
    sender: Sender,
    heard: &Heard,
    limits: &Limits,
    lead_cap: i64,
) -> Result<Option<i32>, Refusal> {
    let frame = |field, value, min| frame_in_range(field, value, min, lead_cap);
    let slots = match sender {
        Sender::Player { slots } => slots,
        Sender::Host => limits.players,
        Sender::Spectator => return Err(Refusal::UnexpectedInput),
    };
    if input.peer_connect_status.len() != limits.players {
        return Err(Refusal::WrongPlayerCount {
            found: input.peer_connect_status.len(),
        });
    }
    frame("start frame", input.start_frame, 0)?;
    frame("ack frame", input.ack_frame, -1)?;
    acknowledged(input.ack_frame, heard.sent_through)?;
    for (slot, status) in input.peer_connect_status.iter().enumerate() {
        frame("connection status frame", status.last_frame, -1)?;
        if status.disconnected && matches!(sender, Sender::Player { .. }) {
            return Err(Refusal::DisconnectClaim { slot });
        }
    }
    let frame_bytes = slots
        .checked_mul(limits.input_size)
        .filter(|&n| n <= usize::from(u16::MAX))
        .ok_or(Refusal::BadEncoding("input size"))?;
    let decoded = decode_run(&input.bytes, MAX_INPUTS_PER_MESSAGE * (2 + frame_bytes))?;
    let count = count_frames(&decoded, frame_bytes)?;
    if count > MAX_INPUTS_PER_MESSAGE {
        return Err(Refusal::TooManyInputs {
            found: count as u64,
            max: MAX_INPUTS_PER_MESSAGE as u64,
        });
    }
    let mut last_input = None;
    if let Some(after_start) = count.checked_sub(1) {
        let last = i64::from(input.start_frame) + after_start as i64;
        if last > lead_cap {
            return Err(Refusal::FrameOutOfRange {
                field: "last input frame",
                frame: last,
                max: lead_cap,
            });
        }
        // Within `lead_cap`, which is at most `MAX_FRAME`.
        last_input = i32::try_from(last).ok();
    }
    input.bytes = literal_run(&decoded);
    Ok(last_input)
}

/// An acknowledgement of `ack` is only taken for a frame we sent.
fn acknowledged(ack: i32, sent_through: i32) -> Result<(), Refusal> {
    if ack > sent_through {
        return Err(Refusal::AckBeyondSent {
            ack,
            sent: sent_through,
        });
    }
    Ok(())
}

/// The last frame of input in a GGRS message we are about to send (our own encoding of a
/// `ggrs::Message`), or `None` if it carries none.
#[must_use]
pub fn last_input_frame(payload: &[u8]) -> Option<i32> {
    let msg: GgrsMessage = wire::decode_own(payload).ok()?;
    let Body::Input(input) = msg.body else {
        return None;
    };
    let decoded = decode_run(&input.bytes, usize::MAX / 2).ok()?;
    let mut pos = 0usize;
    let mut count = 0i32;
    while let Some(prefix) = decoded.get(pos..pos + 2) {
        pos += 2 + usize::from(u16::from_le_bytes([prefix[0], prefix[1]]));
        count += 1;
    }
    (count > 0).then(|| input.start_frame.saturating_add(count - 1))
}

/// Reads one unsigned LEB128 varint (the encoding `bitfield-rle` uses) from the start of
/// `data`: its value and length, refusing truncation and anything beyond 64 bits.
fn varint(data: &[u8]) -> Result<(u64, usize), Refusal> {
    let mut value = 0u64;
    for (i, &byte) in data.iter().enumerate().take(10) {
        let bits = u64::from(byte & 0x7f);
        if i == 9 && bits > 1 {
            return Err(Refusal::BadEncoding("varint beyond 64 bits"));
        }
        value |= bits << (7 * i);
        if byte & 0x80 == 0 {
            return Ok((value, i + 1));
        }
    }
    Err(Refusal::BadEncoding("unterminated varint"))
}

/// Decodes a `bitfield-rle` block (varint headers: `len << 2 | 1` for a run of zero bytes,
/// `len << 2 | 3` for a run of `0xff`, `len << 1` for `len` literal bytes that follow), never
/// producing more than `max_len` bytes whatever the headers claim.
///
/// # Errors
/// [`Refusal::TooManyInputs`] past `max_len`, [`Refusal::BadEncoding`] for bad varints or
/// literals running past the end.
pub fn decode_run(data: &[u8], max_len: usize) -> Result<Vec<u8>, Refusal> {
    let mut out = Vec::new();
    let mut pos = 0;
    while pos < data.len() {
        let (header, used) = varint(&data[pos..])?;
        pos += used;
        let repeat = header & 1 == 1;
        let len = if repeat { header >> 2 } else { header >> 1 };
        let room = (max_len - out.len()) as u64;
        if len > room {
            return Err(Refusal::TooManyInputs {
                found: len.saturating_add(out.len() as u64),
                max: max_len as u64,
            });
        }
        let len = len as usize; // <= room, which fits
        if repeat {
            let byte = if header & 2 == 2 { 0xff } else { 0 };
            out.resize(out.len() + len, byte);
        } else {
            let literal = data
                .get(pos..pos + len)
                .ok_or(Refusal::BadEncoding("literal past the end"))?;
            out.extend_from_slice(literal);
            pos += len;
        }
    }
    Ok(out)
}

/// The number of frames in a decoded delta block (`u16` length ‖ that many bytes, per frame),
/// each of which must be exactly `frame_bytes` long.
fn count_frames(decoded: &[u8], frame_bytes: usize) -> Result<usize, Refusal> {
    let mut pos = 0;
    let mut count = 0;
    while pos < decoded.len() {
        let prefix = decoded
            .get(pos..pos + 2)
            .ok_or(Refusal::BadEncoding("truncated length prefix"))?;
        let len = usize::from(u16::from_le_bytes([prefix[0], prefix[1]]));
        if len != frame_bytes {
            return Err(Refusal::BadEncoding("frame of the wrong size"));
        }
        pos += 2;
        if decoded.len() - pos < len {
            return Err(Refusal::BadEncoding("truncated frame"));
        }
        pos += len;
        count += 1;
    }
    Ok(count)
}

/// `decoded` as one literal `bitfield-rle` block (or nothing when empty): GGRS's decoder reads
/// it with no run to expand and no length but the one written here.
#[must_use]
pub fn literal_run(decoded: &[u8]) -> Vec<u8> {
    if decoded.is_empty() {
        return Vec::new();
    }
    let mut header = (decoded.len() as u64) << 1;
    let mut out = Vec::with_capacity(decoded.len() + 10);
    while header > 0x7f {
        out.push((header as u8) | 0x80);
        header >>= 7;
    }
    out.push(header as u8);
    out.extend_from_slice(decoded);
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::session::GgrsConfig;

    fn limits() -> Limits {
        Limits::for_match::<GgrsConfig<engine::World>>(2, 8)
    }

    /// [`check`] at `local_frame` and `now_ms`, as by a peer we sent every frame to.
    fn check_at(
        payload: &[u8],
        sender: Sender,
        local_frame: i32,
        limits: &Limits,
        now_ms: u128,
    ) -> Result<ggrs::Message, Refusal> {
        let heard = Heard {
            local_frame,
            sent_through: MAX_FRAME,
            now_ms,
        };
        check(payload, sender, &heard, limits).map(|c| c.message)
    }

    fn input(start_frame: i32, frames: usize, frame_bytes: usize) -> GgrsMessage {
        let mut raw = Vec::new();
        for f in 0..frames {
            raw.extend_from_slice(&(frame_bytes as u16).to_le_bytes());
            raw.extend((0..frame_bytes).map(|i| (f + i) as u8));
        }
        GgrsMessage {
            magic: 7,
            body: Body::Input(Input {
                peer_connect_status: vec![
                    ConnectionStatus {
                        disconnected: false,
                        last_frame: start_frame - 1,
                    };
                    2
                ],
                disconnect_requested: false,
                start_frame,
                ack_frame: start_frame - 1,
                bytes: literal_run(&raw),
            }),
        }
    }

    fn run(msg: &GgrsMessage, sender: Sender, local: i32) -> Result<ggrs::Message, Refusal> {
        check_at(
            &wire::encode_payload(msg),
            sender,
            local,
            &limits(),
            1_000_000,
        )
    }

    /// Every variant of the mirror decodes as `ggrs::Message` and re-encodes to the same bytes,
    /// and GGRS's own field names show the values where the mirror put them.
    #[test]
    fn mirror_has_ggrs_layout() {
        let bodies = vec![
            Body::SyncRequest { random_request: 1 },
            Body::SyncReply { random_reply: 2 },
            input(5, 2, 3).body,
            Body::InputAck { ack_frame: 77 },
            Body::QualityReport {
                frame_advantage: -3,
                ping: 99,
            },
            Body::QualityReply { pong: 1234 },
            Body::ChecksumReport {
                checksum: 1 << 100,
                frame: 42,
            },
            Body::KeepAlive,
        ];
        for body in bodies {
            let msg = GgrsMessage { magic: 513, body };
            let bytes = wire::encode_payload(&msg);
            let theirs: ggrs::Message = wire::decode(&bytes).expect("GGRS decodes the mirror");
            assert_eq!(wire::encode_payload(&theirs), bytes, "{msg:?}");
            let text = format!("{theirs:?}");
            assert!(text.contains("magic: 513"), "{text}");
            match msg.body {
                Body::Input(_) => assert!(text.contains("start_frame: 5"), "{text}"),
                Body::InputAck { .. } => assert!(text.contains("ack_frame: 77"), "{text}"),
                Body::ChecksumReport { .. } => assert!(text.contains("frame: 42"), "{text}"),
                _ => {}
            }
        }
    }

    #[test]
    fn input_size_is_measured_on_the_input_type() {
        let expected = bincode::serialized_size(&engine::WireInput::default()).expect("size");
        assert_eq!(limits().input_size as u64, expected);
    }

    #[test]
    fn a_real_input_passes_and_reaches_ggrs_as_one_literal_run() {
        let msg = input(10, 3, limits().input_size);
        let accepted = run(&msg, Sender::Player { slots: 1 }, 10).expect("accepted");
        assert_eq!(wire::encode_payload(&accepted), wire::encode_payload(&msg));
    }

    #[test]
    fn too_many_frames_of_input_are_refused() {
        let size = limits().input_size;
        let msg = input(0, 301, size);
        let err = run(&msg, Sender::Host, 0).unwrap_err();
        assert!(matches!(err, Refusal::TooManyInputs { .. }), "{err}");
    }

    #[test]
    fn inputs_far_ahead_of_the_local_frame_are_refused() {
        let size = limits().input_size;
        let lead = limits().max_lead;
        assert!(run(&input(lead, 1, size), Sender::Player { slots: 1 }, 0).is_ok());
        let err = run(&input(lead + 1, 1, size), Sender::Player { slots: 1 }, 0).unwrap_err();
        assert!(matches!(err, Refusal::FrameOutOfRange { .. }), "{err}");
    }

    #[test]
    fn run_length_headers_cannot_make_us_allocate_or_overflow() {
        let mut huge = Vec::new();
        let header = (1u64 << 40) << 2 | 1;
        huge.extend(literal_run(&[]));
        let mut h = header;
        while h > 0x7f {
            huge.push((h as u8) | 0x80);
            h >>= 7;
        }
        huge.push(h as u8);
        assert!(matches!(
            decode_run(&huge, 1000),
            Err(Refusal::TooManyInputs { .. })
        ));
        assert!(decode_run(&[0xff; 40], 1000).is_err());
        assert!(decode_run(
            &[0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f],
            10
        )
        .is_err());
        assert!(
            decode_run(&[0x08, 1, 2], 10).is_err(),
            "literal past the end"
        );
    }

    #[test]
    fn a_spectator_may_not_send_inputs_and_a_player_may_not_declare_disconnects() {
        let size = limits().input_size;
        assert_eq!(
            run(&input(0, 1, size), Sender::Spectator, 0).unwrap_err(),
            Refusal::UnexpectedInput
        );
        let mut msg = input(0, 1, size);
        if let Body::Input(i) = &mut msg.body {
            i.peer_connect_status[1].disconnected = true;
        }
        assert_eq!(
            run(&msg, Sender::Player { slots: 1 }, 0).unwrap_err(),
            Refusal::DisconnectClaim { slot: 1 }
        );
        // The host's view of who is connected is what a spectator plays by.
        assert!(run(&input_for_host(&msg), Sender::Host, 0).is_ok());
    }

    fn input_for_host(msg: &GgrsMessage) -> GgrsMessage {
        let mut m = msg.clone();
        if let Body::Input(i) = &mut m.body {
            let mut raw = Vec::new();
            let size = limits().input_size * 2;
            raw.extend_from_slice(&(size as u16).to_le_bytes());
            raw.extend(std::iter::repeat_n(0u8, size));
            i.bytes = literal_run(&raw);
        }
        m
    }

    #[test]
    fn frames_near_the_integer_limit_and_stale_pongs_are_refused() {
        for body in [
            Body::ChecksumReport {
                checksum: 0,
                frame: i32::MIN,
            },
            Body::InputAck {
                ack_frame: i32::MAX,
            },
            Body::QualityReply { pong: 0 },
            Body::QualityReport {
                frame_advantage: i16::MAX,
                ping: 0,
            },
        ] {
            let msg = GgrsMessage { magic: 1, body };
            assert!(run(&msg, Sender::Host, 0).is_err(), "{msg:?}");
        }
    }

    /// What anything `check` accepts must satisfy: the limits hold, and GGRS's own run-length
    /// decoder reads exactly what ours did.
    fn assert_within_limits(accepted: &ggrs::Message, sender: Sender, local: i32) {
        let l = limits();
        let msg: GgrsMessage = wire::decode_own(&wire::encode_payload(accepted)).expect("mirror");
        let cap = match sender {
            Sender::Player { .. } => i64::from(local) + i64::from(l.max_lead),
            _ => i64::from(MAX_FRAME),
        }
        .min(i64::from(MAX_FRAME));
        let ok = |f: i32, min: i32| f >= min && i64::from(f) <= cap;
        match msg.body {
            Body::Input(i) => {
                assert_ne!(sender, Sender::Spectator);
                assert_eq!(i.peer_connect_status.len(), l.players);
                assert!(ok(i.start_frame, 0) && ok(i.ack_frame, -1));
                for st in &i.peer_connect_status {
                    assert!(ok(st.last_frame, -1));
                    assert!(!(st.disconnected && matches!(sender, Sender::Player { .. })));
                }
                let theirs = bitfield_rle::decode(&i.bytes).expect("GGRS decodes it");
                let ours = decode_run(&i.bytes, usize::MAX).expect("ours too");
                assert_eq!(theirs, ours);
                let slots = match sender {
                    Sender::Player { slots } => slots,
                    _ => l.players,
                };
                let count = count_frames(&ours, slots * l.input_size).expect("frames");
                assert!(count <= MAX_INPUTS_PER_MESSAGE);
                if count > 0 {
                    assert!(i64::from(i.start_frame) + count as i64 - 1 <= cap);
                }
            }
            Body::InputAck { ack_frame } => assert!(ok(ack_frame, -1)),
            Body::ChecksumReport { frame, .. } => assert!(ok(frame, 0)),
            Body::QualityReport {
                frame_advantage, ..
            } => assert!(i32::from(frame_advantage).abs() <= l.max_lead),
            Body::QualityReply { pong } => {
                assert!(1_000_000u128.saturating_sub(pong) <= MAX_RTT_MS)
            }
            Body::SyncRequest { .. } | Body::SyncReply { .. } | Body::KeepAlive => {}
        }
    }

    /// `msg` with its input's start frame, ack frame and connection-status frames set.
    fn with_frames(mut msg: GgrsMessage, start: i32, ack: i32, status: i32) -> GgrsMessage {
        if let Body::Input(i) = &mut msg.body {
            i.start_frame = start;
            i.ack_frame = ack;
            for s in &mut i.peer_connect_status {
                s.last_frame = status;
            }
        }
        msg
    }

    /// Contract: every frame field is accepted at its lowest value and refused one below it,
    /// and accepted at the highest frame and refused one above it.
    #[test]
    fn every_frame_field_is_accepted_at_its_bounds_and_refused_one_past() {
        let host_input = |start, ack, status| {
            run(
                &with_frames(input_for_host(&input(0, 0, 0)), start, ack, status),
                Sender::Host,
                0,
            )
        };
        assert!(host_input(0, -1, -1).is_ok());
        for (start, ack, status, field) in [
            (-1, -1, -1, "start frame"),
            (0, -2, -1, "ack frame"),
            (0, -1, -2, "connection status frame"),
            (MAX_FRAME + 1, -1, -1, "start frame"),
            (0, MAX_FRAME + 1, -1, "ack frame"),
            (0, -1, MAX_FRAME + 1, "connection status frame"),
        ] {
            match host_input(start, ack, status) {
                Err(Refusal::FrameOutOfRange { field: f, .. }) => assert_eq!(f, field),
                other => panic!("{start} {ack} {status}: {other:?}"),
            }
        }
        assert!(host_input(MAX_FRAME, MAX_FRAME, MAX_FRAME).is_ok());
        let body = |body| run(&GgrsMessage { magic: 1, body }, Sender::Host, 0);
        assert!(body(Body::InputAck { ack_frame: -1 }).is_ok());
        assert!(body(Body::InputAck { ack_frame: -2 }).is_err());
        assert!(body(Body::InputAck {
            ack_frame: MAX_FRAME
        })
        .is_ok());
        assert!(body(Body::InputAck {
            ack_frame: MAX_FRAME + 1
        })
        .is_err());
        let checksum = |frame| Body::ChecksumReport { checksum: 0, frame };
        assert!(body(checksum(0)).is_ok());
        assert!(body(checksum(-1)).is_err());
        assert!(body(checksum(MAX_FRAME)).is_ok());
        assert!(body(checksum(MAX_FRAME + 1)).is_err());
    }

    /// Contract: a player's inputs may reach exactly `local + max_lead` with their last frame;
    /// one frame further is refused, naming the last input frame.
    #[test]
    fn the_last_input_frame_may_reach_the_lead_cap_and_not_one_past() {
        let (size, lead) = (limits().input_size, limits().max_lead);
        let player = Sender::Player { slots: 1 };
        assert!(run(&input(lead - 2, 3, size), player, 0).is_ok());
        match run(&input(lead - 1, 3, size), player, 0) {
            Err(Refusal::FrameOutOfRange { field, frame, max }) => {
                assert_eq!(
                    (field, frame, max),
                    ("last input frame", i64::from(lead + 1), i64::from(lead))
                );
            }
            other => panic!("{other:?}"),
        }
        // The local frame moves the cap.
        assert!(run(&input(lead + 8, 3, size), player, 10).is_ok());
        assert!(run(&input(lead + 9, 3, size), player, 10).is_err());
    }

    /// Contract: a message may carry exactly [`MAX_INPUTS_PER_MESSAGE`] frames of input.
    #[test]
    fn the_most_inputs_a_message_may_carry_are_accepted() {
        let size = limits().input_size;
        let most = input(0, MAX_INPUTS_PER_MESSAGE, size);
        assert!(run(&most, Sender::Player { slots: 1 }, MAX_FRAME - 200).is_ok());
        let more = input(0, MAX_INPUTS_PER_MESSAGE + 1, size);
        assert!(matches!(
            run(&more, Sender::Player { slots: 1 }, MAX_FRAME - 200),
            Err(Refusal::TooManyInputs { .. })
        ));
    }

    /// Contract: a frame advantage of exactly `max_lead` either way is plausible, one more is
    /// not; a pong exactly [`MAX_RTT_MS`] old is plausible, one millisecond older is not, and
    /// one from the future is not a long round trip.
    #[test]
    fn frame_advantage_and_round_trip_are_accepted_at_their_limits() {
        let lead = i16::try_from(limits().max_lead).expect("small");
        let body = |body| run(&GgrsMessage { magic: 1, body }, Sender::Host, 0);
        let report = |frame_advantage| Body::QualityReport {
            frame_advantage,
            ping: 0,
        };
        assert!(body(report(lead)).is_ok());
        assert!(body(report(-lead)).is_ok());
        assert_eq!(
            body(report(lead + 1)).unwrap_err(),
            Refusal::Implausible("frame advantage")
        );
        assert!(body(report(-lead - 1)).is_err());
        let now = 1_000_000;
        assert!(body(Body::QualityReply {
            pong: now - MAX_RTT_MS
        })
        .is_ok());
        assert_eq!(
            body(Body::QualityReply {
                pong: now - MAX_RTT_MS - 1
            })
            .unwrap_err(),
            Refusal::Implausible("round trip")
        );
        assert!(body(Body::QualityReply { pong: now + 5 }).is_ok());
    }

    /// Contract: the bytes of one frame of every slot may be at most `u16::MAX` (GGRS's length
    /// prefix); one more is refused before anything is decoded.
    #[test]
    fn one_frame_of_input_may_be_at_most_u16_max_bytes() {
        // 65535 = 5 × 13107: a 5-byte input, 13107 slots fill the prefix exactly.
        let five = Limits {
            input_size: 5,
            ..limits()
        };
        let empty = wire::encode_payload(&input(0, 0, 5));
        let at = |slots| check_at(&empty, Sender::Player { slots }, 0, &five, 1_000_000);
        assert!(at(13_107).is_ok());
        assert_eq!(at(13_108).unwrap_err(), Refusal::BadEncoding("input size"));
    }

    /// Contract: a run may fill exactly the room left, a literal may end exactly at the end of
    /// the block, and a frame may end exactly at the end of the decoded bytes.
    #[test]
    fn runs_literals_and_frames_may_end_exactly_at_their_limits() {
        // A run of 8 zero bytes: header 8 << 2 | 1.
        assert_eq!(decode_run(&[8 << 2 | 1], 8), Ok(vec![0; 8]));
        assert!(matches!(
            decode_run(&[8 << 2 | 1], 7),
            Err(Refusal::TooManyInputs { found: 8, max: 7 })
        ));
        // A run of 3 0xff bytes after 5 literal bytes: exactly 8.
        assert_eq!(
            decode_run(&[5 << 1, 1, 2, 3, 4, 5, 3 << 2 | 3], 8),
            Ok(vec![1, 2, 3, 4, 5, 0xff, 0xff, 0xff])
        );
        assert!(decode_run(&[5 << 1, 1, 2, 3, 4, 5, 3 << 2 | 3], 7).is_err());
        assert_eq!(decode_run(&[2 << 1, 1, 2], 8), Ok(vec![1, 2]));
        assert_eq!(
            decode_run(&[2 << 1, 1], 8),
            Err(Refusal::BadEncoding("literal past the end"))
        );
        assert_eq!(count_frames(&[3, 0, 7, 8, 9], 3), Ok(1));
        assert_eq!(count_frames(&[3, 0, 7, 8, 9, 3, 0, 1, 2, 3], 3), Ok(2));
        assert_eq!(
            count_frames(&[3, 0, 7, 8], 3),
            Err(Refusal::BadEncoding("truncated frame"))
        );
        assert_eq!(
            count_frames(&[3, 0, 7, 8, 9, 3], 3),
            Err(Refusal::BadEncoding("truncated length prefix"))
        );
    }

    /// Contract: a varint's tenth byte may hold the 64th bit and nothing more.
    #[test]
    fn a_varint_may_use_exactly_64_bits() {
        let mut max = vec![0xff; 9];
        max.push(0x01);
        assert_eq!(varint(&max), Ok((u64::MAX, 10)));
        *max.last_mut().expect("ten bytes") = 0x02;
        assert_eq!(
            varint(&max),
            Err(Refusal::BadEncoding("varint beyond 64 bits"))
        );
        assert_eq!(varint(&[0x7f]), Ok((0x7f, 1)));
        assert_eq!(varint(&[0x80, 0x01]), Ok((0x80, 2)));
        assert_eq!(
            varint(&[0x80]),
            Err(Refusal::BadEncoding("unterminated varint"))
        );
    }

    /// Contract: a literal block's header is one varint byte up to 63 bytes and two from 64.
    #[test]
    fn literal_run_headers_are_varints() {
        assert_eq!(literal_run(&[]), Vec::<u8>::new());
        let small = literal_run(&[9; 63]);
        assert_eq!((small[0], small.len()), (126, 64));
        let large = literal_run(&[9; 64]);
        assert_eq!(&large[..2], &[0x80, 0x01]);
        assert_eq!(decode_run(&large, 64), Ok(vec![9; 64]));
    }

    /// Contract: every refusal says what was wrong in words (these are counted and logged).
    #[test]
    fn refusals_name_what_was_wrong() {
        let texts: Vec<String> = [
            Refusal::Undecodable,
            Refusal::FrameOutOfRange {
                field: "ack frame",
                frame: -2,
                max: 9,
            },
            Refusal::TooManyInputs {
                found: 130,
                max: 129,
            },
            Refusal::BadEncoding("truncated frame"),
            Refusal::WrongPlayerCount { found: 3 },
            Refusal::UnexpectedInput,
            Refusal::DisconnectClaim { slot: 1 },
            Refusal::Implausible("round trip"),
        ]
        .iter()
        .map(ToString::to_string)
        .collect();
        assert_eq!(
            texts,
            [
                "not a GGRS message",
                "ack frame -2 out of range (at most 9)",
                "130 inputs (at most 129)",
                "bad input encoding: truncated frame",
                "3 connection statuses",
                "inputs from a spectator",
                "claims slot 1 disconnected",
                "implausible round trip",
            ]
        );
    }

    mod properties {
        use super::*;
        use proptest::prelude::*;

        fn sender() -> impl Strategy<Value = Sender> {
            prop_oneof![
                Just(Sender::Player { slots: 1 }),
                Just(Sender::Spectator),
                Just(Sender::Host),
            ]
        }

        fn frame() -> impl Strategy<Value = i32> {
            prop_oneof![
                4 => -2..150i32,
                1 => any::<i32>(),
                1 => Just(i32::MAX),
                1 => Just(i32::MIN),
            ]
        }

        /// Run-length blocks built from arbitrary headers: huge runs, literals past the end,
        /// varints of 0xff, and real encodings of real frames.
        fn run_bytes() -> impl Strategy<Value = Vec<u8>> {
            let header = prop_oneof![
                any::<u64>(),
                (0u64..64).prop_map(|n| n << 2 | 1),
                (0u64..64).prop_map(|n| n << 2 | 3),
                (0u64..64).prop_map(|n| n << 1),
            ];
            let segment = prop_oneof![
                (header, proptest::collection::vec(any::<u8>(), 0..8)).prop_map(|(h, tail)| {
                    let mut out = literal_run(&[]);
                    let mut h = h;
                    while h > 0x7f {
                        out.push((h as u8) | 0x80);
                        h >>= 7;
                    }
                    out.push(h as u8);
                    out.extend(tail);
                    out
                }),
                proptest::collection::vec(any::<u8>(), 0..16),
                (0usize..140, any::<u8>(), 1usize..=2).prop_map(|(frames, fill, slots)| {
                    let size = limits().input_size * slots;
                    let mut raw = Vec::new();
                    for _ in 0..frames {
                        raw.extend_from_slice(&(size as u16).to_le_bytes());
                        raw.extend(std::iter::repeat_n(fill, size));
                    }
                    bitfield_rle::encode(raw)
                }),
            ];
            let real = (1usize..20, any::<u8>(), 1usize..=2).prop_map(|(frames, fill, slots)| {
                let size = limits().input_size * slots;
                let mut raw = Vec::new();
                for f in 0..frames {
                    raw.extend_from_slice(&(size as u16).to_le_bytes());
                    raw.extend(std::iter::repeat_n(fill.wrapping_add(f as u8), size));
                }
                bitfield_rle::encode(raw)
            });
            prop_oneof![
                2 => real,
                3 => proptest::collection::vec(segment, 0..4).prop_map(|v| v.concat()),
            ]
        }

        fn body() -> impl Strategy<Value = Body> {
            let status = || {
                (any::<bool>(), frame()).prop_map(|(disconnected, last_frame)| ConnectionStatus {
                    disconnected,
                    last_frame,
                })
            };
            let statuses = prop_oneof![
                2 => proptest::collection::vec(status(), 2..=2),
                1 => proptest::collection::vec(status(), 0..4),
            ];
            let input = (statuses, any::<bool>(), frame(), frame(), run_bytes()).prop_map(
                |(peer_connect_status, disconnect_requested, start_frame, ack_frame, bytes)| {
                    Body::Input(Input {
                        peer_connect_status,
                        disconnect_requested,
                        start_frame,
                        ack_frame,
                        bytes,
                    })
                },
            );
            prop_oneof![
                any::<u32>().prop_map(|random_request| Body::SyncRequest { random_request }),
                any::<u32>().prop_map(|random_reply| Body::SyncReply { random_reply }),
                input,
                frame().prop_map(|ack_frame| Body::InputAck { ack_frame }),
                (any::<i16>(), any::<u128>()).prop_map(|(frame_advantage, ping)| {
                    Body::QualityReport {
                        frame_advantage,
                        ping,
                    }
                }),
                prop_oneof![any::<u128>(), 900_000u128..1_100_000]
                    .prop_map(|pong| Body::QualityReply { pong }),
                (any::<u128>(), frame())
                    .prop_map(|(checksum, frame)| Body::ChecksumReport { checksum, frame }),
                Just(Body::KeepAlive),
            ]
        }

        /// The generators reach accepted inputs too, not only refusals (a property that only ever
        /// sees refusals would prove little about what GGRS is handed).
        #[test]
        fn generated_messages_include_accepted_inputs() {
            use proptest::strategy::ValueTree;
            let mut runner = proptest::test_runner::TestRunner::deterministic();
            let strategy = (any::<u16>(), body());
            let (mut inputs, mut accepted) = (0, 0);
            for _ in 0..3000 {
                let (magic, body) = strategy.new_tree(&mut runner).expect("tree").current();
                let is_input = matches!(body, Body::Input(_));
                let payload = wire::encode_payload(&GgrsMessage { magic, body });
                if let Ok(msg) = check_at(&payload, Sender::Host, 10, &limits(), 1_000_000) {
                    assert_within_limits(&msg, Sender::Host, 10);
                    inputs += usize::from(is_input);
                    accepted += 1;
                }
            }
            assert!(
                inputs > 0 && accepted > inputs,
                "{inputs} inputs of {accepted} accepted"
            );
        }

        proptest! {
            #![proptest_config(ProptestConfig::with_cases(2000))]

            /// Arbitrary bytes never panic, and anything accepted is within limits.
            #[test]
            fn arbitrary_payloads(payload in proptest::collection::vec(any::<u8>(), 0..600),
                                  sender in sender(), local in 0..1000i32) {
                if let Ok(msg) = check_at(&payload, sender, local, &limits(), 1_000_000) {
                    assert_within_limits(&msg, sender, local);
                }
            }

            /// Well-formed GGRS messages with arbitrary (often hostile) field values.
            #[test]
            fn arbitrary_messages(magic in any::<u16>(), body in body(),
                                  sender in sender(), local in 0..1000i32) {
                let payload = wire::encode_payload(&GgrsMessage { magic, body });
                if let Ok(msg) = check_at(&payload, sender, local, &limits(), 1_000_000) {
                    assert_within_limits(&msg, sender, local);
                }
            }

            /// Real messages with bytes flipped, cut off or inserted.
            #[test]
            fn mutated_messages(frames in 0usize..20, start in 0..100i32,
                                edits in proptest::collection::vec((any::<usize>(), any::<u8>(), 0u8..3), 1..6),
                                sender in sender()) {
                let mut payload = wire::encode_payload(&input(start, frames, limits().input_size));
                for (at, byte, how) in edits {
                    let i = at % (payload.len() + 1);
                    match how {
                        0 if i < payload.len() => payload[i] ^= byte | 1,
                        1 => payload.insert(i, byte),
                        _ => payload.truncate(i),
                    }
                }
                if let Ok(msg) = check_at(&payload, sender, 100, &limits(), 1_000_000) {
                    assert_within_limits(&msg, sender, 100);
                }
            }
        }
    }
}
