//! Datagram framing: the clear handshake datagrams, and what the sealed ones carry.
//!
//! Before two peers share keys, a datagram is `magic "MD" ‖ kind 1 ‖ session u32 (0) ‖ check
//! u32 ‖ payload`, integers little-endian, where `check` is the low 32 bits of xxh3 over
//! `kind ‖ session ‖ payload`: random bytes, truncations and bit flips are recognised and
//! dropped before anything parses them. Only the handshake travels so: a `Hello` carrying the
//! joiner's first Noise message, the host's `Answer` carrying the second (its payload, a
//! [`HostAnswer`], is encrypted to the joiner), and a clear `Reject` for a `Hello` the host
//! cannot answer under keys. Everything after the handshake, GGRS's messages included, is
//! sealed ([`crate::net::seal`]). Payloads are bincode with a size limit.
//!
use bincode::Options;
use game_api::Game;
use serde::{Deserialize, Serialize};

/// First two bytes of every datagram.
pub const MAGIC: [u8; 2] = *b"MD";
/// Bytes before the payload.
pub const HEADER_LEN: usize = 11;
/// Largest payload accepted; GGRS messages for 4 players are far smaller.
pub const MAX_PAYLOAD: u64 = 4096;

/// What a clear datagram carries.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u8)]
pub enum Kind {
    /// A [`Control`] message of the handshake.
    Control = 1,
}

/// Protocol version of the framing and control messages; peers must agree.
///
/// 2: [`PeerInfo`] carries the rules themselves, so a mismatch names the rules that differ.
/// 3: the handshake is Noise and everything after it sealed; kind 2 (clear GGRS) is gone.
/// A `Hello` of another version is still answered (see [`hello_protocol`]).
/// 4: rejoin (`Rejoin`, `Resume`, `ResumeAt`).
/// 5: resync after a desync (`Resync`, `ResyncAt`, snapshot chunks); every sealed GGRS datagram
/// names its epoch.
/// 6: the game is named ([`PeerInfo::game`], its version and snapshot format); inputs in
/// control messages travel as the game's own wire form ([`InputRun`]).
/// 7: a late spectator's [`Control::RelayAck`] names the last epoch it was told of.
pub const PROTOCOL_VERSION: u32 = 7;

/// Most differing rules named one by one in a refusal; the rest are counted.
const MAX_RULES_NAMED: usize = 8;

/// Whether a peer plays or watches.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum Role {
    /// Plays a slot.
    Player,
    /// Watches.
    Spectator,
}

/// What a peer states about itself; everything must match for a match to start.
///
/// Made by [`PeerInfo::local`] for a game `G`; one decoded from a peer knows no game, so the
/// rules that differ are named by the local side's ([`PeerInfo::differences`]).
#[derive(Clone, Serialize, Deserialize)]
pub struct PeerInfo {
    /// [`PROTOCOL_VERSION`].
    pub protocol: u32,
    /// The game played ([`Game::NAME`]).
    pub game: String,
    /// Its version ([`Game::VERSION`]).
    pub game_version: String,
    /// Its snapshot format ([`Game::SNAPSHOT_FORMAT`]).
    pub state_format: u32,
    /// Hash of the rules the peer plays by ([`Game::rules_hash`]).
    pub rules_hash: u64,
    /// The rules themselves ([`Game::rules_to_bytes`]), so that a mismatch can say which rules
    /// differ. Untrusted: only ever decoded to be compared.
    pub rules: Vec<u8>,
    /// How this build names the rules two rules' bytes differ in (the local game's); `None`
    /// in an info decoded from a peer.
    #[serde(skip)]
    names_rules: Option<RulesNamer>,
}

/// Names the rules in which two rules' bytes differ, `None` unless both decode.
type RulesNamer = fn(&[u8], &[u8]) -> Option<Vec<(&'static str, String, String)>>;

/// [`RulesNamer`] of the game `G`.
fn rules_named_by<G: Game>(
    ours: &[u8],
    theirs: &[u8],
) -> Option<Vec<(&'static str, String, String)>> {
    let (ours, theirs) = (G::rules_from_bytes(ours)?, G::rules_from_bytes(theirs)?);
    Some(G::rules_differences(&ours, &theirs))
}

impl PartialEq for PeerInfo {
    /// Equal when everything sent is: the local namer is not part of what a peer states.
    fn eq(&self, other: &PeerInfo) -> bool {
        (
            self.protocol,
            &self.game,
            &self.game_version,
            self.state_format,
        ) == (
            other.protocol,
            &other.game,
            &other.game_version,
            other.state_format,
        ) && (self.rules_hash, &self.rules) == (other.rules_hash, &other.rules)
    }
}

impl Eq for PeerInfo {}

impl std::fmt::Debug for PeerInfo {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PeerInfo")
            .field("protocol", &self.protocol)
            .field("game", &self.game)
            .field("game_version", &self.game_version)
            .field("state_format", &self.state_format)
            .field("rules_hash", &format_args!("{:016x}", self.rules_hash))
            .field("rules", &format_args!("{} bytes", self.rules.len()))
            .finish()
    }
}

impl PeerInfo {
    /// This build's info for a match of `G` played by `rules`.
    #[must_use]
    pub fn local<G: Game>(rules: &G::Rules) -> PeerInfo {
        PeerInfo {
            protocol: PROTOCOL_VERSION,
            game: G::NAME.to_owned(),
            game_version: G::VERSION.to_owned(),
            state_format: G::SNAPSHOT_FORMAT,
            rules_hash: G::rules_hash(rules),
            rules: G::rules_to_bytes(rules),
            names_rules: Some(rules_named_by::<G>),
        }
    }

    /// Every way `other` differs from `self`, as a human-readable list, or `None` if they agree.
    /// Another game is said alone (its version and rules mean nothing to this one).
    #[must_use]
    pub fn differences(&self, other: &PeerInfo) -> Option<String> {
        if self.game != other.game {
            return Some(format!(
                "game {} vs {}",
                printable(&self.game, 40),
                printable(&other.game, 40)
            ));
        }
        let mut diffs = Vec::new();
        if self.protocol != other.protocol {
            diffs.push(format!(
                "protocol version {} vs {}",
                self.protocol, other.protocol
            ));
        }
        if self.game_version != other.game_version {
            diffs.push(format!(
                "{} {} vs {}",
                printable(&self.game, 40),
                printable(&self.game_version, 40),
                printable(&other.game_version, 40)
            ));
        }
        if self.state_format != other.state_format {
            diffs.push(format!(
                "state format {} vs {}",
                self.state_format, other.state_format
            ));
        }
        if self.rules_hash != other.rules_hash || self.rules != other.rules {
            diffs.push(self.rules_differences(other));
        }
        (!diffs.is_empty()).then(|| diffs.join(", "))
    }

    /// The rules that differ, by name and value (ours first), when both sides' rules decode
    /// as this build's game's; otherwise just the two hashes.
    fn rules_differences(&self, other: &PeerInfo) -> String {
        let hashes = if self.rules_hash == other.rules_hash {
            format!(
                "rules hash {:016x} on both sides but other rules bytes",
                self.rules_hash
            )
        } else {
            format!(
                "rules hash {:016x} vs {:016x}",
                self.rules_hash, other.rules_hash
            )
        };
        let Some(differing) = (self.names_rules).and_then(|names| names(&self.rules, &other.rules))
        else {
            return hashes;
        };
        // A peer could send rules that do not match the hash it states: name the rules only
        // when its bytes are the rules it hashed, else trust nothing but the hashes.
        if xxhash_rust::xxh3::xxh3_64(&other.rules) != other.rules_hash {
            return format!("{hashes} (its rules do not match its hash)");
        }
        if differing.is_empty() {
            return hashes;
        }
        let mut named: Vec<String> = differing
            .iter()
            .take(MAX_RULES_NAMED)
            .map(|(name, a, b)| format!("{name} {a} vs {b}"))
            .collect();
        if differing.len() > MAX_RULES_NAMED {
            named.push(format!("and {} more", differing.len() - MAX_RULES_NAMED));
        }
        format!("rules differ: {}", named.join(", "))
    }
}

/// A run of inputs (every player's, slot order, tick after tick) in a control message: the
/// game's inputs in their wire form ([`encode_payload`] of a `Vec<G::Input>`), so the framing
/// and the socket need not know the game. Decoded, with the payload's limits, only by the
/// session that plays `G`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(transparent)]
pub struct InputRun(Vec<u8>);

impl Default for InputRun {
    /// No inputs: the encoding of an empty run (its length, 0), which decodes as any game's.
    fn default() -> InputRun {
        InputRun::encode::<()>(&[])
    }
}

impl InputRun {
    /// `inputs` in their wire form.
    #[must_use]
    pub fn encode<I: Serialize>(inputs: &[I]) -> InputRun {
        InputRun(encode_payload(&inputs))
    }

    /// The inputs, decoded as `I` within the payload limit.
    ///
    /// # Errors
    /// [`Reject::Undecodable`]: not exactly a run of `I`s.
    pub fn decode<I: for<'de> Deserialize<'de>>(&self) -> Result<Vec<I>, Reject> {
        decode(&self.0)
    }
}

/// The protocol version a `Hello` states, read from its first bytes only, for a `Hello` this
/// build cannot decode (another protocol version may lay out the rest differently): `Some`
/// only if the payload starts like a `Hello` (variant 0) and states a version other than ours.
/// The host answers it with a `Reject` naming both versions instead of ignoring it, since
/// `Reject`'s layout has never changed.
#[must_use]
pub fn hello_protocol(payload: &[u8]) -> Option<u32> {
    let variant = u32::from_le_bytes(payload.get(0..4)?.try_into().ok()?);
    let protocol = u32::from_le_bytes(payload.get(4..8)?.try_into().ok()?);
    (variant == 0 && protocol != PROTOCOL_VERSION).then_some(protocol)
}

/// At most `max` characters of text a peer sent, control characters replaced: it is echoed
/// back in a `Reject` (which must stay within [`MAX_PAYLOAD`]) and printed on a terminal.
#[must_use]
pub fn printable(text: &str, max: usize) -> String {
    let mut out: String = text
        .chars()
        .take(max)
        .map(|c| if c.is_control() { '?' } else { c })
        .collect();
    if text.chars().count() > max {
        out.push('…');
    }
    out
}

/// Messages of our own, before, beside and after GGRS. The variants keep their positions across
/// protocol versions where they can: an older build still reads our `Reject` (position 2).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum Control {
    /// Joiner or spectator → host, clear: who I am, what I want, and the first Noise message.
    /// The fields before `noise` are the handshake's prologue ([`hello_prologue`]).
    Hello {
        /// Build and rules.
        info: PeerInfo,
        /// Play or watch.
        role: Role,
        /// Whether the joiner holds an invite code (the Noise pattern follows from it).
        invite: bool,
        /// The first handshake message.
        noise: Vec<u8>,
    },
    /// Host → joiner/spectator, clear framing: the second Noise message, whose encrypted
    /// payload is a [`HostAnswer`].
    Answer {
        /// The second handshake message.
        noise: Vec<u8>,
    },
    /// Host → joiner/spectator, clear and unauthenticated: refused before any keys, and why
    /// (another protocol version, another or no invite code). A joiner does not take it as
    /// final at once: an authenticated answer arriving meanwhile wins (a forger racing the
    /// host cannot end the join).
    Reject {
        /// What differs.
        reason: String,
    },
    /// Sealed only: a peer has confirmed every tick it was asked to play and is about to leave.
    Finish {
        /// Its last confirmed tick.
        confirmed: u32,
    },
    /// Sealed only, joiner → host: the welcome was read. Being sealed, it proves the joiner
    /// holds the keys, which is what gives it its slot (so does any sealed datagram).
    Joined,
    /// A player taking its slot back after its process died, → the player still waiting,
    /// clear: who it is and the first Noise message, made under the match's secret (the
    /// pre-shared key only the players hold, from their welcome), so nobody else can finish
    /// the handshake. The fields before `noise` are the prologue ([`rejoin_prologue`]).
    Rejoin {
        /// Build and rules.
        info: PeerInfo,
        /// The slot it played.
        slot: u8,
        /// The first handshake message.
        noise: Vec<u8>,
    },
    /// Sealed only, rejoiner → the waiting player: its log ends at tick `through` with state
    /// hash `hash`; `recent` holds every player's input (slot order, tick after tick) for the
    /// last ticks up to `through`, which the other may not have confirmed yet.
    Resume {
        /// The last tick in its log.
        through: u32,
        /// The combined state hash there.
        hash: u64,
        /// Inputs of ticks `through + 1 - recent.len() / players ..= through`, flattened.
        recent: InputRun,
    },
    /// Sealed only, the waiting player → rejoiner: the match goes on from `tick` (state hash
    /// `hash`) under `epoch`; `gap` holds every player's input for the ticks the rejoiner's
    /// log lacks (after its `through`, up to `tick`), flattened as in `Resume`.
    ResumeAt {
        /// The new epoch.
        epoch: u32,
        /// The resume tick: GGRS frame 0 of the new session.
        tick: u32,
        /// The combined state hash at `tick`.
        hash: u64,
        /// The inputs of the gap.
        gap: InputRun,
    },
    /// Sealed only, either player → the other: the states differ at `tick` (a desync was
    /// detected there). From the joiner it asks the host to lead a resync; from the host it
    /// tells the joiner to stop and say where it stands ([`Control::Resume`]).
    Resync {
        /// The tick the desync was detected at.
        tick: u32,
        /// The sender's combined state hash there (its checksum).
        hash: u64,
    },
    /// Sealed only, host → joiner, the answer to a `Resume` during a resync: as `ResumeAt`
    /// (the gap's inputs, so the joiner's log misses no tick), and the host's own state at
    /// `tick`, which replaces the joiner's, in [`Control::SnapshotChunk`]s.
    ResyncAt {
        /// The new epoch.
        epoch: u32,
        /// The resume tick: GGRS frame 0 of the new session.
        tick: u32,
        /// The inputs of the ticks the joiner lacks, flattened as in `Resume`.
        gap: InputRun,
        /// The snapshot that follows in chunks.
        snapshot: SnapshotOffer,
    },
    /// Sealed only: part `index` of the snapshot at `tick` (every part but the last holds
    /// exactly `CHUNK_BYTES`).
    SnapshotChunk {
        /// The snapshot's tick.
        tick: u32,
        /// Which part.
        index: u16,
        /// Its bytes.
        bytes: Vec<u8>,
    },
    /// Sealed only, joiner → host: the parts of the snapshot at `tick` still missing (at most
    /// `MAX_NEEDED` named at once), to be sent again.
    SnapshotNeed {
        /// The snapshot's tick.
        tick: u32,
        /// The missing parts.
        missing: Vec<u16>,
    },
    /// Sealed only, host → a spectator welcomed after the start: the match is under way; it
    /// starts from the host's final state at `snapshot.tick` (sent in `SnapshotChunk`s) and
    /// follows the confirmed inputs relayed after it ([`Control::Relay`]).
    CatchUp {
        /// The host's epoch.
        epoch: u32,
        /// The snapshot that follows in chunks.
        snapshot: SnapshotOffer,
    },
    /// Sealed only, host → late spectator: every player's confirmed inputs of ticks `from`,
    /// `from + 1`, … (slot order, tick after tick; the inputs of tick `t` lead to the state at
    /// `t`), and the host's combined state hash at the last of them.
    Relay {
        /// The first tick.
        from: u32,
        /// The inputs, flattened.
        inputs: InputRun,
        /// The host's hash at tick `from + inputs.len() / players - 1`.
        hash: u64,
    },
    /// Sealed only, late spectator → host: it holds every tick through `through`, and has
    /// been told of the players' epochs through `epoch` (a new epoch's notice, a
    /// [`Control::CatchUp`], is repeated until a spectator says it has it).
    RelayAck {
        /// Its last tick held.
        through: u32,
        /// The last epoch it was told of.
        epoch: u32,
    },
}

/// What a snapshot sent in chunks is ([`Control::ResyncAt`], then [`Control::SnapshotChunk`]s):
/// the receiver checks every chunk against it and the whole against its checksum and hash
/// before anything is restored.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct SnapshotOffer {
    /// The snapshot's tick.
    pub tick: u32,
    /// Its length in bytes ([`Game::snapshot_to_bytes`]).
    pub len: u32,
    /// xxh3 of those bytes.
    pub checksum: u64,
    /// The combined state hash of the world it restores to.
    pub hash: u64,
}

impl Control {
    /// Whether the message is only ever sent sealed, after a handshake (a clear one is
    /// forged): everything of a rejoin after its handshake, of a resync and of a late
    /// spectator's catching up.
    #[must_use]
    pub fn sealed_only(&self) -> bool {
        matches!(
            self,
            Control::Resume { .. }
                | Control::ResumeAt { .. }
                | Control::Resync { .. }
                | Control::ResyncAt { .. }
                | Control::SnapshotChunk { .. }
                | Control::SnapshotNeed { .. }
                | Control::CatchUp { .. }
                | Control::Relay { .. }
                | Control::RelayAck { .. }
        )
    }
}

/// The waiting player's answer to a [`Control::Rejoin`], encrypted inside
/// [`Control::Answer`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum RejoinAnswer {
    /// The slot is the rejoiner's again: it says where its log ends next ([`Control::Resume`]).
    Accepted,
    /// Refused, and why (authenticated).
    Refused {
        /// Why.
        reason: String,
    },
}

/// The host's answer to a `Hello`, encrypted to the joiner inside [`Control::Answer`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum HostAnswer {
    /// Accepted; the match parameters.
    Welcome {
        /// The host's build and rules.
        info: PeerInfo,
        /// The match seed.
        match_seed: u64,
        /// Number of players.
        players: u8,
        /// The slot assigned to the receiver (`None` for a spectator).
        slot: Option<u8>,
        /// The match's secret, for a player (never a spectator): the key of a rejoin.
        secret: Option<crate::net::seal::MatchSecret>,
    },
    /// Refused, and why (authenticated: only the host could have said it).
    Reject {
        /// What differs.
        reason: String,
    },
}

/// The Noise prologue of a `Hello`: a label and the clear fields, so that changing any of
/// them in flight breaks the handshake.
#[must_use]
pub fn hello_prologue(info: &PeerInfo, role: Role, invite: bool) -> Vec<u8> {
    let mut prologue = b"rollback hello v6\0".to_vec();
    prologue.extend_from_slice(&encode_payload(&(info, role, invite)));
    prologue
}

/// The Noise prologue of a `Rejoin`: a label and its clear fields.
#[must_use]
pub fn rejoin_prologue(info: &PeerInfo, slot: u8) -> Vec<u8> {
    let mut prologue = b"rollback rejoin v6\0".to_vec();
    prologue.extend_from_slice(&encode_payload(&(info, slot)));
    prologue
}

fn payload_options() -> impl Options {
    bincode::DefaultOptions::new()
        .with_fixint_encoding()
        .with_little_endian()
        .with_limit(MAX_PAYLOAD)
}

/// `value` in the payload layout (bincode, fixed-size little-endian integers), without the size
/// limit: for re-encoding a message whose size our own checks already bound.
#[must_use]
pub fn encode_payload<T: Serialize>(value: &T) -> Vec<u8> {
    bincode::DefaultOptions::new()
        .with_fixint_encoding()
        .with_little_endian()
        .serialize(value)
        .expect("serializing to memory cannot fail")
}

/// As [`encode_payload`], appended to `out` (no second buffer on the send path).
pub fn encode_payload_into<T: Serialize>(value: &T, out: &mut Vec<u8>) {
    bincode::DefaultOptions::new()
        .with_fixint_encoding()
        .with_little_endian()
        .serialize_into(out, value)
        .expect("serializing to memory cannot fail");
}

/// Decodes bytes made by [`encode_payload`] from a value we built ourselves (no size limit).
pub(crate) fn decode_own<T: for<'de> Deserialize<'de>>(payload: &[u8]) -> Result<T, Reject> {
    bincode::DefaultOptions::new()
        .with_fixint_encoding()
        .with_little_endian()
        .reject_trailing_bytes()
        .deserialize(payload)
        .map_err(|_| Reject::Undecodable)
}

fn check(kind: u8, session: u32, payload: &[u8]) -> u32 {
    let mut h = xxhash_rust::xxh3::Xxh3::new();
    h.update(&[kind]);
    h.update(&session.to_le_bytes());
    h.update(payload);
    h.digest() as u32
}

/// Frames `value` as a datagram of `kind` for `session`.
///
/// # Panics
/// If the value encodes to more than [`MAX_PAYLOAD`] bytes (a programming error).
#[must_use]
pub fn encode<T: Serialize>(kind: Kind, session: u32, value: &T) -> Vec<u8> {
    let payload = payload_options()
        .serialize(value)
        .expect("payload within limit");
    let mut out = Vec::with_capacity(HEADER_LEN + payload.len());
    out.extend_from_slice(&MAGIC);
    out.push(kind as u8);
    out.extend_from_slice(&session.to_le_bytes());
    out.extend_from_slice(&check(kind as u8, session, &payload).to_le_bytes());
    out.extend_from_slice(&payload);
    out
}

/// Why a clear datagram was not accepted.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reject {
    /// Too short, wrong magic, unknown kind or failed check: not ours, or damaged.
    Damaged,
    /// Intact, but the payload does not decode.
    Undecodable,
}

/// The kind, session and payload of an intact datagram.
///
/// # Errors
/// [`Reject::Damaged`] for anything that is not an intact datagram of ours.
pub fn open(datagram: &[u8]) -> Result<(Kind, u32, &[u8]), Reject> {
    if datagram.len() < HEADER_LEN || datagram[..2] != MAGIC {
        return Err(Reject::Damaged);
    }
    let kind = match datagram[2] {
        1 => Kind::Control,
        _ => return Err(Reject::Damaged),
    };
    if (datagram.len() - HEADER_LEN) as u64 > MAX_PAYLOAD {
        return Err(Reject::Damaged);
    }
    let session = u32::from_le_bytes(datagram[3..7].try_into().expect("4 bytes"));
    let stated = u32::from_le_bytes(datagram[7..11].try_into().expect("4 bytes"));
    let payload = &datagram[HEADER_LEN..];
    if check(datagram[2], session, payload) != stated {
        return Err(Reject::Damaged);
    }
    Ok((kind, session, payload))
}

/// Decodes a payload, refusing trailing bytes and oversized lengths.
///
/// # Errors
/// [`Reject::Undecodable`].
pub fn decode<T: for<'de> Deserialize<'de>>(payload: &[u8]) -> Result<T, Reject> {
    payload_options()
        .reject_trailing_bytes()
        .deserialize(payload)
        .map_err(|_| Reject::Undecodable)
}

#[cfg(test)]
mod tests {
    use super::*;
    use engine::{Rules, World};

    #[test]
    fn round_trip_and_damage_detection() {
        let msg = Control::Finish { confirmed: 77 };
        let bytes = encode(Kind::Control, 9, &msg);
        let (kind, session, payload) = open(&bytes).expect("intact");
        assert_eq!((kind, session), (Kind::Control, 9));
        assert_eq!(decode::<Control>(payload), Ok(msg));
        for i in 0..bytes.len() {
            let mut flipped = bytes.clone();
            flipped[i] ^= 0x10;
            assert_eq!(open(&flipped).err(), Some(Reject::Damaged), "flip at {i}");
        }
        for len in 0..bytes.len() {
            assert!(open(&bytes[..len]).is_err(), "truncated to {len}");
        }
    }

    #[test]
    fn a_huge_engine_version_is_not_echoed_whole() {
        let a = PeerInfo::local::<World>(&Rules::default());
        let mut b = a.clone();
        b.game_version = "\u{1b}[2J".to_string() + &"9".repeat(4000);
        let text = a.differences(&b).expect("differs");
        assert!(text.len() < 200 && !text.contains('\u{1b}'), "{text}");
        let reject = Control::Reject { reason: text };
        let _ = encode(Kind::Control, 0, &reject); // within the payload limit
    }

    #[test]
    fn differences_name_each_mismatch() {
        let a = PeerInfo::local::<World>(&Rules::default());
        let mut b = a.clone();
        assert_eq!(a.differences(&b), None);
        b.rules_hash = 2;
        b.state_format += 1;
        let text = a.differences(&b).expect("differs");
        assert!(
            text.contains("rules hash") && text.contains("state format"),
            "{text}"
        );
    }

    #[test]
    fn a_rules_mismatch_names_the_rules_and_values() {
        let ours = PeerInfo::local::<World>(&Rules::default());
        let theirs = PeerInfo::local::<World>(&Rules {
            melee_damage: 30,
            block_hp: 5,
            ..Rules::default()
        });
        assert_eq!(
            ours.differences(&theirs).as_deref(),
            Some("rules differ: block_hp 3 vs 5, melee_damage 18 vs 30")
        );
    }

    /// Rules differing from the defaults in their first `n` rules (of the ten changed here).
    fn rules_differing_in(n: usize) -> Rules {
        let edits: [fn(&mut Rules); 10] = [
            |r| r.maze_cells_w = 3,
            |r| r.maze_cells_h = 3,
            |r| r.extra_openings_percent = 1,
            |r| r.block_percent = 1,
            |r| r.block_hp = 1,
            |r| r.stick_deadzone = 1,
            |r| r.max_hp = 1,
            |r| r.projectile_life = 1,
            |r| r.projectile_damage = 1,
            |r| r.projectile_hitstun = 1,
        ];
        let mut rules = Rules::default();
        edits.iter().take(n).for_each(|edit| edit(&mut rules));
        rules
    }

    #[test]
    fn many_differing_rules_are_counted_past_the_first_eight() {
        let ours = PeerInfo::local::<World>(&Rules::default());
        let text = ours
            .differences(&PeerInfo::local::<World>(&rules_differing_in(10)))
            .expect("differs");
        assert!(text.ends_with(", and 2 more"), "{text}");
        assert_eq!(text.matches(" vs ").count(), MAX_RULES_NAMED, "{text}");
        // Exactly eight: all named, nothing counted.
        let text = ours
            .differences(&PeerInfo::local::<World>(&rules_differing_in(8)))
            .expect("differs");
        assert_eq!(text.matches(" vs ").count(), 8, "{text}");
        assert!(!text.contains("more"), "{text}");
    }

    #[test]
    fn rules_that_do_not_match_their_hash_or_do_not_decode_fall_back_to_hashes() {
        let ours = PeerInfo::local::<World>(&Rules::default());
        let mut liar = PeerInfo::local::<World>(&Rules {
            block_hp: 5,
            ..Rules::default()
        });
        liar.rules_hash = 7;
        let text = ours.differences(&liar).expect("differs");
        assert!(text.contains("do not match its hash"), "{text}");
        assert!(!text.contains("block_hp"), "{text}");
        for rules in [Vec::new(), vec![0xFF; 3], vec![0; 4000]] {
            let mut odd = ours.clone();
            odd.rules = rules;
            let text = ours.differences(&odd).expect("differs");
            assert!(text.starts_with("rules hash"), "{text}");
        }
        // Equal hashes but other bytes (a forged hash) is still a difference.
        let mut forged = ours.clone();
        forged.rules = liar.rules.clone();
        assert!(ours.differences(&forged).is_some());
    }

    #[test]
    fn the_protocol_of_a_hello_from_another_version_is_read_from_its_prefix() {
        let mut old = PeerInfo::local::<World>(&Rules::default());
        old.protocol = 1;
        let hello = Control::Hello {
            info: old,
            role: Role::Player,
            invite: false,
            noise: vec![0; 32],
        };
        let payload = encode_payload(&hello);
        assert_eq!(hello_protocol(&payload), Some(1));
        assert_eq!(hello_protocol(&payload[..7]), None);
        let ours = encode_payload(&Control::Hello {
            info: PeerInfo::local::<World>(&Rules::default()),
            role: Role::Player,
            invite: true,
            noise: vec![0; 48],
        });
        assert_eq!(hello_protocol(&ours), None);
        let finish = encode_payload(&Control::Finish { confirmed: 5 });
        assert_eq!(hello_protocol(&finish), None);
    }

    #[test]
    fn a_hello_fits_in_one_small_datagram() {
        let hello = Control::Hello {
            info: PeerInfo::local::<World>(&Rules::default()),
            role: Role::Spectator,
            invite: true,
            noise: vec![0; 48],
        };
        let bytes = encode(Kind::Control, 0, &hello);
        assert!(bytes.len() < 400, "{} bytes", bytes.len());
    }

    /// Contract: a datagram of exactly the header, with an empty payload, is intact; one byte
    /// shorter is not.
    #[test]
    fn a_datagram_of_exactly_the_header_is_intact() {
        let framed = |byte: u8, payload: &[u8]| {
            let mut d = MAGIC.to_vec();
            d.push(byte);
            d.extend_from_slice(&5u32.to_le_bytes());
            d.extend_from_slice(&check(byte, 5, payload).to_le_bytes());
            d.extend_from_slice(payload);
            d
        };
        let d = framed(1, &[]);
        assert_eq!(d.len(), HEADER_LEN);
        assert_eq!(open(&d), Ok((Kind::Control, 5, &[][..])));
        assert_eq!(open(&d[..HEADER_LEN - 1]), Err(Reject::Damaged));
        // Clear GGRS datagrams (kind 2 before protocol 3) and any other kind are not ours.
        for byte in [0u8, 2, 3, 255] {
            assert_eq!(
                open(&framed(byte, &[])),
                Err(Reject::Damaged),
                "kind {byte}"
            );
        }
    }

    /// Contract: a payload of exactly the limit is opened, one byte more is refused before any
    /// decoding (a `Hello` of 8 KiB is not parsed).
    #[test]
    fn a_payload_over_the_limit_is_refused_before_decoding() {
        let at = |n: usize| {
            let payload = vec![0u8; n];
            let mut d = MAGIC.to_vec();
            d.push(1);
            d.extend_from_slice(&0u32.to_le_bytes());
            d.extend_from_slice(&check(1, 0, &payload).to_le_bytes());
            d.extend_from_slice(&payload);
            d
        };
        assert!(open(&at(MAX_PAYLOAD as usize)).is_ok());
        assert_eq!(open(&at(MAX_PAYLOAD as usize + 1)), Err(Reject::Damaged));
    }

    /// Rules bytes that differ under an equal hash (a forged `Hello`) are not reported as the
    /// same hash twice.
    #[test]
    fn other_rules_bytes_under_the_same_hash_are_said_so() {
        let ours = PeerInfo::local::<World>(&Rules::default());
        let mut forged = ours.clone();
        forged.rules = vec![0xFF; 3];
        let text = ours.differences(&forged).expect("differs");
        assert!(
            text.contains("on both sides but other rules bytes"),
            "{text}"
        );
        assert!(!text.contains(" vs "), "{text}");
    }

    /// Contract: text of exactly `max` characters is echoed whole, one more is cut with `…`,
    /// and control characters become `?`.
    #[test]
    fn printable_keeps_exactly_max_characters() {
        assert_eq!(printable("héllo", 5), "héllo");
        assert_eq!(printable("héllo!", 5), "héllo…");
        assert_eq!(printable("a\u{7}b", 5), "a?b");
    }

    /// Contract: each field of the peer info is compared on its own.
    #[test]
    fn each_peer_info_field_alone_is_a_difference() {
        let a = PeerInfo::local::<World>(&Rules::default());
        let edits: [fn(&mut PeerInfo); 5] = [
            |p| p.protocol += 1,
            |p| p.game_version.push('x'),
            |p| p.state_format += 1,
            |p| p.rules_hash += 1,
            |p| p.rules[0] ^= 1,
        ];
        for (edit, named) in edits.into_iter().zip([
            "protocol",
            "maze-duel",
            "state format",
            "rules hash",
            "rules hash",
        ]) {
            let mut b = a.clone();
            edit(&mut b);
            assert_ne!(a, b, "{named}: unequal infos");
            let text = a.differences(&b).expect("differs");
            assert!(text.starts_with(named) && !text.contains(", "), "{text}");
        }
    }

    /// Contract: a peer of another game is told so alone; its version, format and rules
    /// mean nothing to this game.
    #[test]
    fn another_game_is_said_alone() {
        let a = PeerInfo::local::<World>(&Rules::default());
        let mut b = a.clone();
        b.game = "ring-race".into();
        b.protocol += 1;
        b.rules_hash ^= 1;
        assert_eq!(
            a.differences(&b).as_deref(),
            Some("game maze-duel vs ring-race")
        );
    }

    /// Contract: an info read off the wire equals the one sent, but names rules only through
    /// the local game: decoded, it compares by hashes.
    #[test]
    fn a_decoded_info_names_rules_only_through_the_local_game() {
        let ours = PeerInfo::local::<World>(&Rules::default());
        let theirs = PeerInfo::local::<World>(&Rules {
            block_hp: 5,
            ..Rules::default()
        });
        let decoded: PeerInfo = decode(&encode_payload(&theirs)).expect("decodes");
        assert_eq!(decoded, theirs);
        let mut other_game = theirs.clone();
        other_game.game = "ring-race".into();
        assert_ne!(other_game, theirs);
        let shown = format!("{theirs:?}");
        assert!(
            shown.contains("maze-duel") && shown.contains(&format!("{} bytes", theirs.rules.len())),
            "{shown}"
        );
        assert_eq!(
            ours.differences(&decoded).as_deref(),
            Some("rules differ: block_hp 3 vs 5")
        );
        let text = decoded.differences(&ours).expect("differs");
        assert!(
            text.starts_with("rules hash ") && !text.contains("block_hp"),
            "{text}"
        );
    }

    /// Contract: a run decodes as the inputs encoded, the empty run (the default) as no
    /// inputs of any game, and bytes that are not exactly a run are refused.
    #[test]
    fn input_runs_decode_as_encoded_and_nothing_else() {
        let inputs = [
            engine::WireInput {
                buttons: 3,
                move_x: -5,
                ..engine::WireInput::default()
            },
            engine::WireInput::default(),
        ];
        let run = InputRun::encode(&inputs);
        assert_eq!(run.decode::<engine::WireInput>(), Ok(inputs.to_vec()));
        assert_eq!(
            InputRun::default().decode::<engine::WireInput>(),
            Ok(Vec::new())
        );
        assert_eq!(InputRun::default().decode::<u64>(), Ok(Vec::new()));
        let mut longer = run.clone();
        longer.0.push(0);
        assert_eq!(
            longer.decode::<engine::WireInput>(),
            Err(Reject::Undecodable)
        );
        let cut = InputRun(run.0[..run.0.len() - 1].to_vec());
        assert_eq!(cut.decode::<engine::WireInput>(), Err(Reject::Undecodable));
        assert_eq!(
            InputRun(Vec::new()).decode::<u8>(),
            Err(Reject::Undecodable)
        );
    }

    mod fuzz {
        use super::*;
        use proptest::prelude::*;

        /// A `Hello` payload from our own encoder with bytes edited: mostly still decodes, so
        /// `differences` sees hostile rules bytes, versions and lengths.
        fn edited_hello() -> impl Strategy<Value = Vec<u8>> {
            let base = encode_payload(&Control::Hello {
                info: PeerInfo::local::<World>(&Rules::default()),
                role: Role::Player,
                invite: true,
                noise: vec![7; 48],
            });
            proptest::collection::vec((any::<usize>(), any::<u8>()), 0..6).prop_map(move |edits| {
                let mut bytes = base.clone();
                for (at, value) in edits {
                    let i = at % bytes.len();
                    bytes[i] = value;
                }
                bytes
            })
        }

        /// Any bytes a sealed peer sends as a run of inputs either decode as the game's inputs
        /// — and then are exactly their encoding — or are refused; never a panic, never a
        /// second reading of the same bytes.
        fn decodes_canonically_or_is_refused<I>(bytes: &[u8]) -> Result<(), TestCaseError>
        where
            I: Serialize + for<'de> Deserialize<'de> + std::fmt::Debug,
        {
            let run = InputRun(bytes.to_vec());
            match run.decode::<I>() {
                Ok(inputs) => prop_assert_eq!(InputRun::encode(&inputs), run),
                Err(e) => prop_assert_eq!(e, Reject::Undecodable),
            }
            Ok(())
        }

        proptest! {
            #[test]
            fn hostile_input_runs_decode_canonically_or_are_refused(
                bytes in proptest::collection::vec(any::<u8>(), 0..120),
                len in 0u64..20,
                tail in proptest::collection::vec(any::<u8>(), 0..60),
            ) {
                decodes_canonically_or_is_refused::<engine::WireInput>(&bytes)?;
                decodes_canonically_or_is_refused::<ring_race::RingInput>(&bytes)?;
                // A plausible length prefix before random items.
                let mut framed = len.to_le_bytes().to_vec();
                framed.extend_from_slice(&tail);
                decodes_canonically_or_is_refused::<engine::WireInput>(&framed)?;
                decodes_canonically_or_is_refused::<ring_race::RingInput>(&framed)?;
            }
        }

        proptest! {
            #![proptest_config(ProptestConfig::with_cases(3000))]

            /// No payload panics the decoder, the protocol probe or the comparison, and a
            /// refusal built from any decoded `Hello` is short, printable and fits a datagram.
            #[test]
            fn hostile_hellos_decode_compare_and_refuse_safely(
                payload in prop_oneof![
                    proptest::collection::vec(any::<u8>(), 0..300),
                    edited_hello(),
                ],
            ) {
                let _ = hello_protocol(&payload);
                if let Ok(Control::Hello { info, .. }) = decode::<Control>(&payload) {
                    let ours = PeerInfo::local::<World>(&Rules::default());
                    if let Some(text) = ours.differences(&info) {
                        prop_assert!(text.len() < 1200, "{} bytes", text.len());
                        prop_assert!(!text.chars().any(char::is_control), "{text}");
                        let reason = format!("peer 127.0.0.1:9 differs from host: {text}");
                        let _ = encode(Kind::Control, 0, &Control::Reject { reason });
                    } else {
                        prop_assert_eq!(&info, &ours);
                    }
                }
            }
        }
    }
}
