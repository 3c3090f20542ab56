//! Sealed datagrams: the Noise handshake that gives each pair of peers its own keys, and the
//! channel that seals every datagram after it.
//!
//! Crypto is [`snow`]'s, never ours. A joiner (or spectator) is the Noise *initiator*, the host
//! the *responder*; the pattern is `NN` for an open match and `NNpsk0` when the host shares an
//! [`InviteCode`], which is then the pre-shared key: only someone holding the code can complete
//! the handshake (or read or change it), and a Hello made without it fails to decrypt at once,
//! before any Diffie–Hellman work. The clear part of a `Hello` (protocol, build, rules, role)
//! is the Noise *prologue*, so changing any of it in flight breaks the handshake.
//!
//! After the two handshake messages each side holds a [`Channel`]: ChaCha20-Poly1305 keys for
//! each direction, a 64-bit send counter used as the nonce, and a [`ReplayWindow`] (as in
//! WireGuard and DTLS) refusing any counter seen before or older than the window. A sealed
//! datagram is `magic "MD" ‖ kind 3 ‖ channel id u32 ‖ counter u64 ‖ AEAD(inner kind ‖
//! payload)`; the channel id is taken from the handshake hash, so it names this pair of keys
//! and nothing an attacker could choose. The header is covered too: the counter is the nonce
//! and the id must match the channel's, so a changed header fails to open like a changed
//! payload.

use crate::net::wire::{MAGIC, MAX_PAYLOAD};
use std::fmt;

/// Noise pattern of a match without an invite code.
pub const NOISE_OPEN: &str = "Noise_NN_25519_ChaChaPoly_BLAKE2s";
/// Noise pattern of a match with an invite code (the pre-shared key, mixed in first).
pub const NOISE_INVITE: &str = "Noise_NNpsk0_25519_ChaChaPoly_BLAKE2s";
/// Datagram kind byte of a sealed datagram.
pub const SEALED_KIND: u8 = 3;
/// Bytes before the ciphertext: magic, kind, channel id, counter.
pub const SEALED_HEADER_LEN: usize = 2 + 1 + 4 + 8;
/// Bytes the AEAD adds (Poly1305 tag).
pub const TAG_LEN: usize = 16;
/// Largest Noise handshake message accepted (ours are 32–80 bytes plus a payload).
pub const MAX_HANDSHAKE_MESSAGE: usize = 1024;
/// Counters a [`ReplayWindow`] remembers below the highest one seen.
pub const REPLAY_WINDOW: u64 = 1024;

/// What a sealed datagram carries, inside the encryption.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u8)]
pub enum Inner {
    /// A [`crate::net::wire::Control`] message (finish).
    Control = 1,
    /// A GGRS message.
    Ggrs = 2,
}

/// Why a handshake message or a sealed datagram was not taken.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum SealError {
    /// Not a sealed datagram of ours, or of another channel.
    NotSealed,
    /// Does not decrypt: forged, damaged, or made with other keys (another invite code).
    Unauthenticated,
    /// Its counter was seen before, or is older than the replay window.
    Replayed,
    /// The sending counter is spent (2^64 − 1 datagrams: never in practice).
    Exhausted,
    /// The handshake message is malformed or too long.
    Malformed,
}

impl fmt::Display for SealError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            SealError::NotSealed => "not a sealed datagram of this channel",
            SealError::Unauthenticated => "does not authenticate",
            SealError::Replayed => "replayed",
            SealError::Exhausted => "sending counter exhausted",
            SealError::Malformed => "malformed handshake message",
        })
    }
}

/// The short secret a host shares with its invitation (beside its address or room link):
/// 80 random bits, written as 16 characters of a 32-letter alphabet without look-alikes, in
/// groups of four (`k3f9-2xq8-...`).
#[derive(Clone, Copy, PartialEq, Eq)]
pub struct InviteCode([u8; InviteCode::BYTES]);

/// The alphabet of written codes: lowercase letters and digits without `l`, `o`, `0`, `1`.
const ALPHABET: &[u8; 32] = b"abcdefghijkmnpqrstuvwxyz23456789";

impl InviteCode {
    /// Bytes of secret.
    pub const BYTES: usize = 10;
    /// Characters of a written code, without the dashes.
    pub const CHARS: usize = 16;

    /// A fresh code from the operating system's random number generator.
    ///
    /// # Errors
    /// The OS has no randomness to give (a message saying so).
    pub fn random() -> Result<InviteCode, String> {
        let mut bytes = [0u8; Self::BYTES];
        getrandom::fill(&mut bytes)
            .map_err(|e| format!("no randomness for an invite code: {e}"))?;
        Ok(InviteCode(bytes))
    }

    /// The code with these secret bytes (tests, and codes kept in a log).
    #[must_use]
    pub fn from_bytes(bytes: [u8; Self::BYTES]) -> InviteCode {
        InviteCode(bytes)
    }

    /// Reads a written code: its 16 characters in any case, dashes and spaces ignored.
    ///
    /// # Errors
    /// A message naming what is wrong (a character outside the alphabet, too few or too many).
    pub fn parse(text: &str) -> Result<InviteCode, String> {
        let mut bits: u128 = 0;
        let mut count = 0usize;
        for c in text.chars().filter(|c| *c != '-' && *c != ' ') {
            let lower = c.to_ascii_lowercase();
            let Some(value) = ALPHABET.iter().position(|&a| char::from(a) == lower) else {
                return Err(format!(
                    "the invite code holds {c:?}; codes use the letters and digits {}",
                    std::str::from_utf8(ALPHABET).unwrap_or_default()
                ));
            };
            count += 1;
            if count > Self::CHARS {
                break;
            }
            bits = (bits << 5) | value as u128;
        }
        if count != Self::CHARS {
            return Err(format!(
                "the invite code has {} characters; it has {} (dashes aside)",
                if count > Self::CHARS {
                    "too many".to_string()
                } else {
                    count.to_string()
                },
                Self::CHARS
            ));
        }
        let mut bytes = [0u8; Self::BYTES];
        for (i, byte) in bytes.iter_mut().enumerate() {
            *byte = (bits >> (8 * (Self::BYTES - 1 - i))) as u8;
        }
        Ok(InviteCode(bytes))
    }

    /// The 32-byte pre-shared key Noise mixes in: a fixed label, then the secret.
    fn psk(&self) -> [u8; 32] {
        let mut psk = [0u8; 32];
        let label = b"maze-duel invite v1:";
        psk[..label.len()].copy_from_slice(label);
        psk[label.len()..label.len() + Self::BYTES].copy_from_slice(&self.0);
        psk
    }
}

impl fmt::Display for InviteCode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let bits = self
            .0
            .iter()
            .fold(0u128, |acc, &b| (acc << 8) | u128::from(b));
        for i in 0..Self::CHARS {
            if i > 0 && i % 4 == 0 {
                f.write_str("-")?;
            }
            let shift = 5 * (Self::CHARS - 1 - i);
            let value = ((bits >> shift) & 31) as usize;
            write!(f, "{}", char::from(ALPHABET[value]))?;
        }
        Ok(())
    }
}

impl fmt::Debug for InviteCode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // A secret: never printed by accident in a debug dump.
        f.write_str("InviteCode(…)")
    }
}

impl std::str::FromStr for InviteCode {
    type Err = String;

    fn from_str(s: &str) -> Result<InviteCode, String> {
        InviteCode::parse(s)
    }
}

/// Splits an invitation `ADDRESS#CODE` into the address and its code (`ADDRESS` alone: no
/// code).
///
/// # Errors
/// The code after `#` does not read as one (the message says why).
pub fn split_invitation(text: &str) -> Result<(&str, Option<InviteCode>), String> {
    match text.rsplit_once('#') {
        Some((address, code)) => {
            let code = InviteCode::parse(code).map_err(|e| format!("`{text}`: {e}"))?;
            Ok((address, Some(code)))
        }
        None => Ok((text, None)),
    }
}

/// The per-match secret a host gives each player inside its encrypted welcome (never a
/// spectator, never in clear): the pre-shared key of a rejoin, so that only a player of this
/// match can take its slot back. Each player keeps it in its match log.
#[derive(Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct MatchSecret([u8; 32]);

impl fmt::Debug for MatchSecret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("MatchSecret(..)")
    }
}

impl MatchSecret {
    /// A fresh secret from the operating system's random number generator.
    ///
    /// # Errors
    /// The OS has no randomness to give (a message saying so).
    pub fn random() -> Result<MatchSecret, String> {
        let mut bytes = [0u8; 32];
        getrandom::fill(&mut bytes)
            .map_err(|e| format!("no randomness for a match secret: {e}"))?;
        Ok(MatchSecret(bytes))
    }

    /// The secret with these bytes (tests).
    #[must_use]
    pub fn from_bytes(bytes: [u8; 32]) -> MatchSecret {
        MatchSecret(bytes)
    }

    fn key(&self) -> &[u8; 32] {
        &self.0
    }
}

/// The pre-shared key of a handshake: an invite code's, or a match secret's for a rejoin.
#[derive(Debug, Clone, Copy)]
pub enum Psk<'a> {
    /// An invite code (a `Hello`).
    Invite(&'a InviteCode),
    /// The match's secret (a `Rejoin`).
    Secret(&'a MatchSecret),
}

impl Psk<'_> {
    fn key(self) -> [u8; 32] {
        match self {
            Psk::Invite(code) => code.psk(),
            Psk::Secret(secret) => *secret.key(),
        }
    }
}

fn builder<'a>(
    prologue: &'a [u8],
    invite: Option<&'a [u8; 32]>,
) -> Result<snow::Builder<'a>, SealError> {
    let pattern = if invite.is_some() {
        NOISE_INVITE
    } else {
        NOISE_OPEN
    };
    let params = pattern.parse().map_err(|_| SealError::Malformed)?;
    let builder = snow::Builder::new(params)
        .prologue(prologue)
        .map_err(|_| SealError::Malformed)?;
    match invite {
        Some(psk) => builder.psk(0, psk).map_err(|_| SealError::Malformed),
        None => Ok(builder),
    }
}

/// The joining side of a Noise handshake: one first message, repeated until an answer opens.
pub struct Initiator {
    state: snow::HandshakeState,
    first: Vec<u8>,
}

impl fmt::Debug for Initiator {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Initiator").finish_non_exhaustive()
    }
}

impl Initiator {
    /// Starts a handshake bound to `prologue` (the clear part of the `Hello`), with the
    /// invite code if there is one.
    ///
    /// # Errors
    /// [`SealError::Malformed`] if Noise cannot start (no randomness).
    pub fn new(prologue: &[u8], invite: Option<&InviteCode>) -> Result<Initiator, SealError> {
        Initiator::keyed(prologue, invite.map(Psk::Invite))
    }

    /// As [`Initiator::new`], under any pre-shared key (a rejoin's is the match secret).
    ///
    /// # Errors
    /// As [`Initiator::new`].
    pub fn keyed(prologue: &[u8], psk: Option<Psk<'_>>) -> Result<Initiator, SealError> {
        let psk = psk.map(Psk::key);
        let mut state = builder(prologue, psk.as_ref())?
            .build_initiator()
            .map_err(|_| SealError::Malformed)?;
        let mut first = vec![0u8; MAX_HANDSHAKE_MESSAGE];
        let len = state
            .write_message(&[], &mut first)
            .map_err(|_| SealError::Malformed)?;
        first.truncate(len);
        Ok(Initiator { state, first })
    }

    /// The first handshake message, sent in every `Hello`.
    #[must_use]
    pub fn message(&self) -> &[u8] {
        &self.first
    }

    /// Reads the host's answer: its payload, and the channel to it. A forged or damaged answer
    /// leaves the handshake as it was, so the real one can still be read.
    ///
    /// # Errors
    /// [`SealError::Unauthenticated`] or [`SealError::Malformed`].
    pub fn read_answer(&mut self, answer: &[u8]) -> Result<Vec<u8>, SealError> {
        if answer.len() > MAX_HANDSHAKE_MESSAGE {
            return Err(SealError::Malformed);
        }
        let mut payload = vec![0u8; answer.len()];
        let len = self
            .state
            .read_message(answer, &mut payload)
            .map_err(|_| SealError::Unauthenticated)?;
        payload.truncate(len);
        Ok(payload)
    }

    /// The channel, once [`Initiator::read_answer`] has succeeded.
    ///
    /// # Errors
    /// [`SealError::Malformed`] if the handshake is not finished.
    pub fn into_channel(self) -> Result<Channel, SealError> {
        Channel::from_handshake(self.state)
    }
}

/// What a host makes of a joiner's first handshake message.
pub struct Responder {
    state: snow::HandshakeState,
}

impl fmt::Debug for Responder {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Responder").finish_non_exhaustive()
    }
}

impl Responder {
    /// Reads a joiner's first message under `prologue` and the host's invite code. This costs
    /// no Diffie–Hellman: a message made without the code is refused here, cheaply.
    ///
    /// # Errors
    /// [`SealError::Unauthenticated`] (another code, or none where one is needed, or a changed
    /// prologue), [`SealError::Malformed`].
    pub fn read_hello(
        prologue: &[u8],
        invite: Option<&InviteCode>,
        message: &[u8],
    ) -> Result<Responder, SealError> {
        Responder::read_keyed(prologue, invite.map(Psk::Invite), message)
    }

    /// As [`Responder::read_hello`], under any pre-shared key (a rejoin's is the match
    /// secret): a message made without it is refused here.
    ///
    /// # Errors
    /// As [`Responder::read_hello`].
    pub fn read_keyed(
        prologue: &[u8],
        psk: Option<Psk<'_>>,
        message: &[u8],
    ) -> Result<Responder, SealError> {
        if message.len() > MAX_HANDSHAKE_MESSAGE {
            return Err(SealError::Malformed);
        }
        let psk = psk.map(Psk::key);
        let mut state = builder(prologue, psk.as_ref())?
            .build_responder()
            .map_err(|_| SealError::Malformed)?;
        let mut payload = vec![0u8; message.len()];
        let len = state
            .read_message(message, &mut payload)
            .map_err(|e| match e {
                snow::Error::Input => SealError::Malformed,
                _ => SealError::Unauthenticated,
            })?;
        // Our first message carries no payload. Without a code nothing is encrypted yet, so
        // this is what tells an open host a message made with a code (its tag reads as 16
        // bytes of payload).
        if len != 0 {
            return Err(SealError::Unauthenticated);
        }
        Ok(Responder { state })
    }

    /// Answers with `payload` (encrypted to the joiner): the answer to send, and the channel.
    ///
    /// # Errors
    /// [`SealError::Malformed`] if the payload is too long.
    pub fn answer(mut self, payload: &[u8]) -> Result<(Vec<u8>, Channel), SealError> {
        let mut out = vec![0u8; payload.len() + 64 + TAG_LEN];
        let len = self
            .state
            .write_message(payload, &mut out)
            .map_err(|_| SealError::Malformed)?;
        out.truncate(len);
        Ok((out, Channel::from_handshake(self.state)?))
    }
}

/// Remembers which counters arrived, to refuse a datagram seen before: the highest counter and
/// a bitmap of the [`REPLAY_WINDOW`] below it. Anything older than the window is refused too
/// (GGRS resends what matters, so a very late datagram is never needed).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReplayWindow {
    /// One more than the highest counter accepted (0: none yet).
    next: u64,
    /// Bit `i` set: counter `next - 1 - i` was accepted.
    seen: [u64; (REPLAY_WINDOW / 64) as usize],
}

impl Default for ReplayWindow {
    fn default() -> Self {
        ReplayWindow {
            next: 0,
            seen: [0; (REPLAY_WINDOW / 64) as usize],
        }
    }
}

impl ReplayWindow {
    /// Whether `counter` would be accepted (not seen, not too old); changes nothing.
    #[must_use]
    pub fn is_fresh(&self, counter: u64) -> bool {
        if counter >= self.next {
            return true;
        }
        let back = self.next - 1 - counter;
        back < REPLAY_WINDOW && !self.bit(back)
    }

    /// Whether `counter` is past every counter accepted so far.
    #[must_use]
    pub fn is_newest(&self, counter: u64) -> bool {
        counter >= self.next
    }

    /// Records `counter` as accepted. Call only after the datagram opened, so a forged counter
    /// can never move the window.
    pub fn accept(&mut self, counter: u64) {
        if counter >= self.next {
            let shift = counter - self.next + 1;
            self.shift(shift);
            self.next = counter + 1;
            self.set(0);
        } else {
            self.set(self.next - 1 - counter);
        }
    }

    fn bit(&self, back: u64) -> bool {
        self.seen[(back / 64) as usize] & (1 << (back % 64)) != 0
    }

    fn set(&mut self, back: u64) {
        self.seen[(back / 64) as usize] |= 1 << (back % 64);
    }

    /// Moves every bit `by` places older, dropping those past the window.
    fn shift(&mut self, by: u64) {
        if by >= REPLAY_WINDOW {
            self.seen = Default::default();
            return;
        }
        let words = (by / 64) as usize;
        let bits = (by % 64) as u32;
        let n = self.seen.len();
        for i in (0..n).rev() {
            let from = i.checked_sub(words);
            let low = from.map_or(0, |j| self.seen[j]);
            let carry = match from.and_then(|j| j.checked_sub(1)) {
                Some(k) if bits > 0 => self.seen[k] >> (64 - bits),
                _ => 0,
            };
            self.seen[i] = if bits > 0 { low << bits } else { low } | carry;
        }
    }
}

/// The keys shared with one peer after the handshake: seals what goes to it, opens what comes
/// from it, once each.
pub struct Channel {
    transport: snow::StatelessTransportState,
    id: u32,
    next_send: u64,
    window: ReplayWindow,
}

impl fmt::Debug for Channel {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Channel")
            .field("id", &self.id)
            .field("next_send", &self.next_send)
            .finish_non_exhaustive()
    }
}

impl Channel {
    fn from_handshake(state: snow::HandshakeState) -> Result<Channel, SealError> {
        let hash = state.get_handshake_hash();
        let id = u32::from_le_bytes(
            hash.get(..4)
                .and_then(|b| b.try_into().ok())
                .ok_or(SealError::Malformed)?,
        )
        .max(1);
        let transport = state
            .into_stateless_transport_mode()
            .map_err(|_| SealError::Malformed)?;
        Ok(Channel {
            transport,
            id,
            next_send: 0,
            window: ReplayWindow::default(),
        })
    }

    /// The channel id every sealed datagram of this channel carries (from the handshake hash,
    /// equal on both sides, never 0).
    #[must_use]
    pub fn id(&self) -> u32 {
        self.id
    }

    /// Datagrams sealed so far.
    #[must_use]
    pub fn sent(&self) -> u64 {
        self.next_send
    }

    /// `payload` of kind `inner`, sealed for the peer, appended to `out` as a whole datagram.
    ///
    /// # Errors
    /// [`SealError::Exhausted`] (never in practice), [`SealError::Malformed`] if the payload is
    /// over [`MAX_PAYLOAD`].
    pub fn seal_into(
        &mut self,
        inner: Inner,
        payload: &[u8],
        out: &mut Vec<u8>,
    ) -> Result<(), SealError> {
        if payload.len() as u64 > MAX_PAYLOAD {
            return Err(SealError::Malformed);
        }
        let counter = self.next_send;
        if counter == u64::MAX {
            return Err(SealError::Exhausted);
        }
        let mut plain = Vec::with_capacity(1 + payload.len());
        plain.push(inner as u8);
        plain.extend_from_slice(payload);
        let start = out.len();
        out.extend_from_slice(&MAGIC);
        out.push(SEALED_KIND);
        out.extend_from_slice(&self.id.to_le_bytes());
        out.extend_from_slice(&counter.to_le_bytes());
        let at = out.len();
        out.resize(at + plain.len() + TAG_LEN, 0);
        match self
            .transport
            .write_message(counter, &plain, &mut out[at..])
        {
            Ok(len) => {
                out.truncate(at + len);
                self.next_send += 1;
                Ok(())
            }
            Err(_) => {
                out.truncate(start);
                Err(SealError::Malformed)
            }
        }
    }

    /// `payload` sealed as a new datagram.
    ///
    /// # Errors
    /// As [`Channel::seal_into`].
    pub fn seal(&mut self, inner: Inner, payload: &[u8]) -> Result<Vec<u8>, SealError> {
        let mut out = Vec::with_capacity(SEALED_HEADER_LEN + 1 + payload.len() + TAG_LEN);
        self.seal_into(inner, payload, &mut out)?;
        Ok(out)
    }

    /// Whether `datagram` (of this channel) states a counter past every one opened so far: if
    /// it then opens, it is the peer's newest word (a peer heard from a new address moves
    /// there only on such a datagram, so a replayed old one cannot move it).
    #[must_use]
    pub fn is_newest(&self, datagram: &[u8]) -> bool {
        datagram
            .get(7..SEALED_HEADER_LEN)
            .and_then(|b| b.try_into().ok())
            .is_some_and(|b| self.window.is_newest(u64::from_le_bytes(b)))
    }

    /// Opens a sealed datagram from the peer: its inner kind and payload. A datagram is opened
    /// at most once; nothing that fails changes the channel.
    ///
    /// # Errors
    /// [`SealError::NotSealed`] (another kind or channel id, too short or too long),
    /// [`SealError::Replayed`], [`SealError::Unauthenticated`].
    pub fn open(&mut self, datagram: &[u8]) -> Result<(Inner, Vec<u8>), SealError> {
        let max = SEALED_HEADER_LEN + 1 + MAX_PAYLOAD as usize + TAG_LEN;
        if datagram.len() < SEALED_HEADER_LEN + 1 + TAG_LEN
            || datagram.len() > max
            || datagram[..2] != MAGIC
            || datagram[2] != SEALED_KIND
        {
            return Err(SealError::NotSealed);
        }
        let id = u32::from_le_bytes(
            datagram[3..7]
                .try_into()
                .map_err(|_| SealError::NotSealed)?,
        );
        if id != self.id {
            return Err(SealError::NotSealed);
        }
        let counter = u64::from_le_bytes(
            datagram[7..SEALED_HEADER_LEN]
                .try_into()
                .map_err(|_| SealError::NotSealed)?,
        );
        if !self.window.is_fresh(counter) {
            return Err(SealError::Replayed);
        }
        let sealed = &datagram[SEALED_HEADER_LEN..];
        let mut plain = vec![0u8; sealed.len()];
        let len = self
            .transport
            .read_message(counter, sealed, &mut plain)
            .map_err(|_| SealError::Unauthenticated)?;
        plain.truncate(len);
        let inner = match plain.first() {
            Some(1) => Inner::Control,
            Some(2) => Inner::Ggrs,
            // Authentic but of no kind we know: the peer is not this build.
            _ => return Err(SealError::Unauthenticated),
        };
        self.window.accept(counter);
        plain.remove(0);
        Ok((inner, plain))
    }
}

/// The channel id a sealed datagram states, if it is one (for routing before opening).
#[must_use]
pub fn sealed_id(datagram: &[u8]) -> Option<u32> {
    (datagram.len() >= SEALED_HEADER_LEN && datagram[..2] == MAGIC && datagram[2] == SEALED_KIND)
        .then(|| u32::from_le_bytes([datagram[3], datagram[4], datagram[5], datagram[6]]))
}

#[cfg(test)]
mod tests;
