//! Who hosts a room: the few bytes peers in a WebRTC room exchange before the handshake, and
//! the rule that turns them into a host, a joiner and spectators.
//!
//! Everyone in a room runs the same command (`online --room NAME`), so nobody is told to host.
//! Each peer tells every peer it connects to, on the room's reliable channel, a [`RoomIntro`]:
//! whether it plays or watches, and where it stands ([`RoomState`]). A peer sends it again
//! whenever its state changes. [`decide`] then gives every peer the same answer from what it
//! has heard:
//!
//! 1. A peer that announces [`RoomState::Hosting`] is the room's host: players join it,
//!    spectators watch it. If its match already has its two players, the host's handshake
//!    answers "the match is full", exactly as over UDP.
//! 2. Otherwise a player that sees another open player hosts if its peer id is the smallest of
//!    the open players it sees. It announces it, which settles the others (rule 1).
//! 3. Otherwise the peer waits (alone in the room, or only spectators and settled players).
//!
//! Rule 1 comes first so that a player arriving in a room whose match is settled never starts
//! a second host: it joins the one there and is turned away. Peer ids come from the signalling
//! server, so rule 2 needs no clock and no agreement on who arrived first.
//!
//! These bytes are untrusted: [`RoomIntro::parse`] accepts exactly [`RoomIntro::LEN`] bytes
//! with our magic and known values, and anything else is dropped (and counted by the transport).

use crate::net::wire::Role;

/// What a peer in a room is doing.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u8)]
pub enum RoomState {
    /// Not yet settled: a player looking for the other player, or a spectator waiting for a
    /// host.
    Open = 1,
    /// Hosts the room's match (the handshake runs or the match is under way).
    Hosting = 2,
    /// Joined (or watches) the room's host.
    Settled = 3,
}

/// One peer's introduction of itself to another in the room.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RoomIntro {
    /// Plays or watches.
    pub role: Role,
    /// Where it stands.
    pub state: RoomState,
}

/// First bytes of every room message.
const ROOM_MAGIC: [u8; 4] = *b"MDRM";
/// Version of the room messages; a peer of another version is ignored (the handshake would
/// refuse it anyway).
const ROOM_VERSION: u8 = 1;

impl RoomIntro {
    /// Length of an encoded intro.
    pub const LEN: usize = 7;

    /// `magic ‖ version ‖ role ‖ state`.
    #[must_use]
    pub fn encode(&self) -> [u8; Self::LEN] {
        let role = match self.role {
            Role::Player => 1,
            Role::Spectator => 2,
        };
        let [a, b, c, d] = ROOM_MAGIC;
        [a, b, c, d, ROOM_VERSION, role, self.state as u8]
    }

    /// Parses an intro; `None` for anything that is not exactly one of ours.
    #[must_use]
    pub fn parse(bytes: &[u8]) -> Option<RoomIntro> {
        let [a, b, c, d, version, role, state] = <[u8; Self::LEN]>::try_from(bytes).ok()?;
        if [a, b, c, d] != ROOM_MAGIC || version != ROOM_VERSION {
            return None;
        }
        let role = match role {
            1 => Role::Player,
            2 => Role::Spectator,
            _ => return None,
        };
        let state = match state {
            1 => RoomState::Open,
            2 => RoomState::Hosting,
            3 => RoomState::Settled,
            _ => return None,
        };
        Some(RoomIntro { role, state })
    }
}

/// What a peer does in its room, once decided.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RoomPart<P> {
    /// Host the match (slot 0).
    Host,
    /// Join the host `P` as a player.
    Join(P),
    /// Watch the host `P`.
    Spectate(P),
}

/// What `me` (with role `role`) does, given the latest intro of every peer connected to it, or
/// `None` to wait for more. `P` is a peer id; ids are unique in a room and ordered the same on
/// every peer. See the module doc for the rules.
pub fn decide<P: Ord + Copy>(me: P, role: Role, peers: &[(P, RoomIntro)]) -> Option<RoomPart<P>> {
    // Several hosts can only be seen after a race (two pairs formed at once); every peer
    // picks the same one.
    let host = peers
        .iter()
        .filter(|(_, intro)| intro.role == Role::Player && intro.state == RoomState::Hosting)
        .map(|&(id, _)| id)
        .min();
    if let Some(host) = host {
        return Some(match role {
            Role::Player => RoomPart::Join(host),
            Role::Spectator => RoomPart::Spectate(host),
        });
    }
    let mut open_players = peers
        .iter()
        .filter(|(_, intro)| intro.role == Role::Player && intro.state == RoomState::Open)
        .map(|&(id, _)| id)
        .peekable();
    let someone_to_pair_with = open_players.peek().is_some();
    let smallest = open_players.all(|id| me < id);
    (role == Role::Player && someone_to_pair_with && smallest).then_some(RoomPart::Host)
}

/// Checks a room name: 1 to 64 characters from `A-Z a-z 0-9 - _ .` (it becomes a path on the
/// signalling server's URL).
///
/// # Errors
/// A message saying what is wrong with it.
pub fn check_room_name(name: &str) -> Result<(), String> {
    const MAX: usize = 64;
    if name.is_empty() {
        return Err("the room name is empty".into());
    }
    if name.len() > MAX {
        return Err(format!(
            "the room name is {} bytes long; at most {MAX}",
            name.len()
        ));
    }
    if let Some(bad) = name
        .chars()
        .find(|c| !(c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.')))
    {
        return Err(format!(
            "the room name `{}` holds {bad:?}; use letters, digits, `-`, `_` and `.`",
            name.escape_debug()
        ));
    }
    if name.chars().all(|c| c == '.') {
        return Err("the room name cannot be only dots".into());
    }
    Ok(())
}

/// Checks a signalling server URL (`ws://HOST:PORT` or `wss://HOST[:PORT][/PATH]`) and returns it
/// without a trailing `/`.
///
/// # Errors
/// A message saying what is wrong with it.
pub fn check_signal_url(url: &str) -> Result<&str, String> {
    const MAX: usize = 512;
    let trimmed = url.trim_end_matches('/');
    if url.len() > MAX {
        return Err(format!("the signalling URL is longer than {MAX} bytes"));
    }
    let Some(rest) = trimmed
        .strip_prefix("ws://")
        .or_else(|| trimmed.strip_prefix("wss://"))
    else {
        return Err(format!(
            "`{}` is not a signalling server URL: write ws://HOST:PORT or wss://HOST",
            url.escape_debug()
        ));
    };
    if rest.is_empty() || rest.starts_with('/') {
        return Err(format!("`{}` names no host", url.escape_debug()));
    }
    if let Some(bad) = rest
        .chars()
        .find(|c| c.is_whitespace() || c.is_control() || matches!(c, '?' | '#'))
    {
        return Err(format!(
            "`{}` holds {bad:?}; the room is added to the URL, so it takes no query or fragment",
            url.escape_debug()
        ));
    }
    Ok(trimmed)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn player(state: RoomState) -> RoomIntro {
        RoomIntro {
            role: Role::Player,
            state,
        }
    }

    const WATCHER: RoomIntro = RoomIntro {
        role: Role::Spectator,
        state: RoomState::Open,
    };

    #[test]
    fn two_open_players_agree_the_smaller_id_hosts() {
        let open = player(RoomState::Open);
        assert_eq!(decide(1, Role::Player, &[(2, open)]), Some(RoomPart::Host));
        assert_eq!(decide(2, Role::Player, &[(1, open)]), None, "waits for 1");
        // Once 1 announces it hosts, 2 joins it.
        assert_eq!(
            decide(2, Role::Player, &[(1, player(RoomState::Hosting))]),
            Some(RoomPart::Join(1))
        );
    }

    #[test]
    fn a_late_player_joins_the_host_even_with_a_smaller_id() {
        // 0 arrives after 5 hosts 9: it must not host a second match, but join 5 (whose
        // handshake then says the match is full).
        let peers = [
            (9, player(RoomState::Settled)),
            (5, player(RoomState::Hosting)),
        ];
        assert_eq!(decide(0, Role::Player, &peers), Some(RoomPart::Join(5)));
        // Having heard only from the settled player, it waits.
        assert_eq!(decide(0, Role::Player, &peers[..1]), None);
    }

    #[test]
    fn spectators_watch_the_host_and_never_host() {
        let open = player(RoomState::Open);
        assert_eq!(decide(0, Role::Spectator, &[(1, open), (2, open)]), None);
        assert_eq!(
            decide(
                0,
                Role::Spectator,
                &[(1, player(RoomState::Hosting)), (2, open)]
            ),
            Some(RoomPart::Spectate(1))
        );
        // A player does not pair with a spectator.
        assert_eq!(decide(0, Role::Player, &[(1, WATCHER)]), None);
        // A spectator claiming to host is not a host.
        let fake = RoomIntro {
            role: Role::Spectator,
            state: RoomState::Hosting,
        };
        assert_eq!(decide(5, Role::Player, &[(1, fake)]), None);
    }

    #[test]
    fn two_hosts_resolve_to_the_same_one_everywhere() {
        let hosts = [
            (7, player(RoomState::Hosting)),
            (3, player(RoomState::Hosting)),
        ];
        assert_eq!(decide(9, Role::Player, &hosts), Some(RoomPart::Join(3)));
        assert_eq!(
            decide(1, Role::Spectator, &hosts),
            Some(RoomPart::Spectate(3))
        );
    }

    #[test]
    fn intros_round_trip_and_strangers_are_refused() {
        for role in [Role::Player, Role::Spectator] {
            for state in [RoomState::Open, RoomState::Hosting, RoomState::Settled] {
                let intro = RoomIntro { role, state };
                assert_eq!(RoomIntro::parse(&intro.encode()), Some(intro));
            }
        }
        let good = player(RoomState::Open).encode();
        for i in 0..RoomIntro::LEN {
            let mut bad = good;
            bad[i] ^= 0x80;
            assert_eq!(RoomIntro::parse(&bad), None, "byte {i} flipped");
        }
        assert_eq!(RoomIntro::parse(&good[..6]), None);
        assert_eq!(RoomIntro::parse(&[good.as_slice(), &[0]].concat()), None);
    }

    #[test]
    fn room_names_and_urls_are_checked() {
        assert!(check_room_name("duel-42_a.b").is_ok());
        for bad in ["", "a/b", "a b", "..", "é", "a?x", &"x".repeat(65)] {
            assert!(check_room_name(bad).is_err(), "{bad:?}");
        }
        assert_eq!(
            check_signal_url("ws://127.0.0.1:3536/"),
            Ok("ws://127.0.0.1:3536")
        );
        assert_eq!(
            check_signal_url("wss://match.example.org/duel"),
            Ok("wss://match.example.org/duel")
        );
        for bad in [
            "http://x",
            "127.0.0.1:3536",
            "ws://",
            "ws:///x",
            "ws://h?next=2",
        ] {
            assert!(check_signal_url(bad).is_err(), "{bad:?}");
        }
    }

    /// A player hosts only when its id is below every open player's: an id equal to one (a
    /// server handing out one id twice) does not make two hosts.
    #[test]
    fn an_equal_id_does_not_host() {
        let open = player(RoomState::Open);
        assert_eq!(decide(4, Role::Player, &[(4, open)]), None);
        assert_eq!(decide(4, Role::Player, &[(4, open), (9, open)]), None);
    }

    /// A room name may be 64 bytes long, and no longer.
    #[test]
    fn a_room_name_of_64_bytes_is_the_longest_accepted() {
        assert_eq!(check_room_name(&"r".repeat(64)), Ok(()));
        let e = check_room_name(&"r".repeat(65)).expect_err("65 bytes");
        assert!(e.contains("at most 64"), "{e}");
    }

    /// A signalling URL may be 512 bytes long (trailing `/` included), and no longer.
    #[test]
    fn a_signal_url_of_512_bytes_is_the_longest_accepted() {
        let host = "h".repeat(512 - "ws://".len());
        let url = format!("ws://{host}");
        assert_eq!(check_signal_url(&url), Ok(url.as_str()));
        let e = check_signal_url(&format!("{url}/")).expect_err("513 bytes");
        assert!(e.contains("longer than 512"), "{e}");
    }

    /// A signalling URL holding whitespace, a control character, `?` or `#` is refused, each on
    /// its own.
    #[test]
    fn a_signal_url_with_whitespace_or_control_characters_is_refused() {
        for bad in [
            "ws://h st",
            "ws://h\u{0}st",
            "ws://h\tst",
            "ws://h?x",
            "ws://h#x",
        ] {
            let e = check_signal_url(bad).expect_err(bad);
            assert!(e.contains("takes no query or fragment"), "{bad:?}: {e}");
        }
    }

    proptest! {
        /// Any bytes parse to an intro or to nothing, never a panic; what parses re-encodes to
        /// the same bytes.
        #[test]
        fn any_bytes_parse_without_panic(bytes in proptest::collection::vec(any::<u8>(), 0..16)) {
            if let Some(intro) = RoomIntro::parse(&bytes) {
                let encoded = intro.encode();
                prop_assert_eq!(encoded.as_slice(), bytes.as_slice());
            }
        }

        /// Any names and URLs are accepted or refused with a message, never a panic; accepted
        /// names hold only safe characters.
        #[test]
        fn any_name_or_url_is_checked_without_panic(s in "\\PC{0,80}") {
            if check_room_name(&s).is_ok() {
                prop_assert!(s.bytes().all(|b| b.is_ascii_alphanumeric() || b"-_.".contains(&b)));
            }
            let _ = check_signal_url(&s);
        }

        /// With every open player in view, exactly one decides to host (the smallest id), and
        /// the others then join it.
        #[test]
        fn everyone_agrees_on_the_host(ids in proptest::collection::btree_set(0u32..1000, 2..6)) {
            let ids: Vec<u32> = ids.into_iter().collect();
            let open = player(RoomState::Open);
            let hosts: Vec<u32> = ids
                .iter()
                .filter(|&&me| {
                    let others: Vec<(u32, RoomIntro)> =
                        ids.iter().filter(|&&o| o != me).map(|&o| (o, open)).collect();
                    decide(me, Role::Player, &others) == Some(RoomPart::Host)
                })
                .copied()
                .collect();
            prop_assert_eq!(hosts, vec![ids[0]]);
            for &other in &ids[1..] {
                let heard: Vec<(u32, RoomIntro)> = ids
                    .iter()
                    .filter(|&&o| o != other)
                    .map(|&o| {
                        let state = if o == ids[0] { RoomState::Hosting } else { RoomState::Open };
                        (o, player(state))
                    })
                    .collect();
                prop_assert_eq!(decide(other, Role::Player, &heard), Some(RoomPart::Join(ids[0])));
            }
        }
    }
}
