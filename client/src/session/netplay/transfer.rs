//! A game's state sent in chunks: split, offered, reassembled and checked like any untrusted
//! input before it is restored.
//!
//! The sender offers the snapshot ([`SnapshotOffer`]: tick, length, xxh3 of the bytes, the
//! state hash it restores to) and sends it in parts of [`CHUNK_BYTES`]. The receiver takes a
//! part only if it names the offered tick, an index inside the offer and exactly the length
//! that index must have; the whole must match the checksum, decode through
//! [`Game::snapshot_from_bytes`] (the game's own limits) and [`Game::from_snapshot`] (its
//! invariants, under our rules), be of the offered tick and hash as offered. Until then nothing is restored: a bad
//! part or a bad whole changes nothing on the receiving side.

use crate::net::wire::SnapshotOffer;
use game_api::{Game, SectionHash};

/// Bytes of every part but the last (a sealed datagram holds at most 4096).
pub const CHUNK_BYTES: usize = 2048;
/// Largest snapshot offered or taken, whatever the game (the duel's largest world, 8192
/// projectiles in a 63 × 63 grid, is about 350 KB); a game's own
/// [`Game::MAX_SNAPSHOT_BYTES`] may be smaller and is checked when the bytes are decoded.
pub const MAX_TRANSFER_BYTES: u32 = 1 << 20;
/// Most missing parts a receiver names in one request.
pub const MAX_NEEDED: usize = 64;

/// Why a part or a whole snapshot was refused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TransferError {
    /// The offer itself is impossible: no bytes, or more than [`MAX_TRANSFER_BYTES`].
    BadOffer {
        /// The length offered.
        len: u32,
    },
    /// A part of a snapshot of another tick.
    OtherTick {
        /// The tick the part or the snapshot names.
        got: u32,
        /// The offered tick.
        offered: u32,
    },
    /// A part whose index is past the offer's last.
    OutOfRange {
        /// Its index.
        index: u16,
        /// Parts in the offer.
        parts: usize,
    },
    /// A part shorter or longer than its index must be (truncated, oversized).
    WrongLength {
        /// Its index.
        index: u16,
        /// Its length.
        got: usize,
        /// The length that index has.
        expected: usize,
    },
    /// Not every part has arrived.
    Incomplete {
        /// Parts still missing.
        missing: usize,
    },
    /// The whole does not match the offer's checksum (a part was damaged or forged).
    Checksum {
        /// xxh3 of what arrived.
        got: u64,
        /// The offer's.
        offered: u64,
    },
    /// The bytes are not a state a world can be in, or not under our rules.
    Snapshot {
        /// What the engine said.
        reason: String,
    },
    /// The state restored hashes otherwise than offered.
    Hash {
        /// Its hash.
        got: u64,
        /// The offer's.
        offered: u64,
    },
}

impl std::fmt::Display for TransferError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            TransferError::BadOffer { len } => write!(
                f,
                "a snapshot of {len} bytes was offered (between 1 and {MAX_TRANSFER_BYTES} are taken)"
            ),
            TransferError::OtherTick { got, offered } => write!(
                f,
                "a snapshot part claims tick {got}; the offered snapshot is of tick {offered}"
            ),
            TransferError::OutOfRange { index, parts } => write!(
                f,
                "snapshot part {index} is past the last of its {parts} parts"
            ),
            TransferError::WrongLength {
                index,
                got,
                expected,
            } => write!(
                f,
                "snapshot part {index} holds {got} bytes; that part has {expected}"
            ),
            TransferError::Incomplete { missing } => {
                write!(f, "{missing} snapshot parts have not arrived")
            }
            TransferError::Checksum { got, offered } => write!(
                f,
                "the snapshot's bytes hash to {got:016x}, not the offered {offered:016x}"
            ),
            TransferError::Snapshot { reason } => {
                write!(f, "the snapshot is not a state this match can be in: {reason}")
            }
            TransferError::Hash { got, offered } => write!(
                f,
                "the snapshot restores to state hash {got:016x}, not the offered {offered:016x}"
            ),
        }
    }
}

impl std::error::Error for TransferError {}

/// The offer of `bytes` (a snapshot of `tick` whose world hashes to `hash`).
#[must_use]
pub fn offer(tick: u32, bytes: &[u8], hash: u64) -> SnapshotOffer {
    SnapshotOffer {
        tick,
        len: u32::try_from(bytes.len()).unwrap_or(u32::MAX),
        checksum: xxhash_rust::xxh3::xxh3_64(bytes),
        hash,
    }
}

/// Parts an offer of `len` bytes is sent in.
#[must_use]
pub fn parts(len: u32) -> usize {
    (len as usize).div_ceil(CHUNK_BYTES)
}

/// Part `index` of `bytes`, if there is one.
#[must_use]
pub fn chunk(bytes: &[u8], index: u16) -> Option<&[u8]> {
    let start = usize::from(index) * CHUNK_BYTES;
    (start < bytes.len()).then(|| &bytes[start..bytes.len().min(start + CHUNK_BYTES)])
}

/// The [`crate::net::wire::Control::SnapshotChunk`]s of the snapshot `bytes` at `tick` for the
/// parts `indexes` (at most [`MAX_NEEDED`]; an index past the last gives none).
pub fn part_messages<'a>(
    tick: u32,
    bytes: &'a [u8],
    indexes: impl IntoIterator<Item = u16> + 'a,
) -> impl Iterator<Item = crate::net::wire::Control> + 'a {
    (indexes.into_iter().take(MAX_NEEDED)).filter_map(move |index| {
        chunk(bytes, index).map(|part| crate::net::wire::Control::SnapshotChunk {
            tick,
            index,
            bytes: part.to_vec(),
        })
    })
}

/// Every part index of a snapshot of `len` bytes.
pub fn all_parts(len: u32) -> std::ops::Range<u16> {
    0..parts(len).min(usize::from(u16::MAX)) as u16
}

/// A snapshot being received: the offer and the parts so far.
#[derive(Debug, Clone)]
pub struct Assembly {
    offer: SnapshotOffer,
    parts: Vec<Option<Vec<u8>>>,
}

impl Assembly {
    /// Starts receiving `offer`.
    ///
    /// # Errors
    /// [`TransferError::BadOffer`] for an empty offer or one over [`MAX_TRANSFER_BYTES`].
    pub fn new(offer: SnapshotOffer) -> Result<Assembly, TransferError> {
        if offer.len == 0 || offer.len > MAX_TRANSFER_BYTES {
            return Err(TransferError::BadOffer { len: offer.len });
        }
        Ok(Assembly {
            offer,
            parts: vec![None; parts(offer.len)],
        })
    }

    /// The offer being received.
    #[must_use]
    pub fn offer(&self) -> &SnapshotOffer {
        &self.offer
    }

    /// Takes part `index` of the snapshot of `tick`. A part already held is kept as it was
    /// (the first copy that fits wins; the checksum judges the whole).
    ///
    /// # Errors
    /// [`TransferError::OtherTick`], [`TransferError::OutOfRange`],
    /// [`TransferError::WrongLength`]; nothing is kept then.
    pub fn add(&mut self, tick: u32, index: u16, bytes: &[u8]) -> Result<(), TransferError> {
        if tick != self.offer.tick {
            return Err(TransferError::OtherTick {
                got: tick,
                offered: self.offer.tick,
            });
        }
        let count = self.parts.len();
        let i = usize::from(index);
        if i >= count {
            return Err(TransferError::OutOfRange {
                index,
                parts: count,
            });
        }
        let expected = if i + 1 == count {
            self.offer.len as usize - i * CHUNK_BYTES
        } else {
            CHUNK_BYTES
        };
        if bytes.len() != expected {
            return Err(TransferError::WrongLength {
                index,
                got: bytes.len(),
                expected,
            });
        }
        self.parts[i].get_or_insert_with(|| bytes.to_vec());
        Ok(())
    }

    /// The parts still missing, lowest first, at most [`MAX_NEEDED`].
    #[must_use]
    pub fn missing(&self) -> Vec<u16> {
        (self.parts.iter().enumerate())
            .filter(|(_, p)| p.is_none())
            .take(MAX_NEEDED)
            .map(|(i, _)| i as u16)
            .collect()
    }

    /// The snapshot, checked: every part there, the checksum, the decoding and its
    /// invariants, the tick, the rules, the hash.
    ///
    /// # Errors
    /// The first check that fails.
    pub fn finish<G: Game>(&self, rules: &G::Rules) -> Result<(G, Vec<u8>), TransferError> {
        let missing = self.parts.iter().filter(|p| p.is_none()).count();
        if missing > 0 {
            return Err(TransferError::Incomplete { missing });
        }
        let bytes: Vec<u8> = self.parts.iter().flatten().flatten().copied().collect();
        let got = xxhash_rust::xxh3::xxh3_64(&bytes);
        if got != self.offer.checksum {
            return Err(TransferError::Checksum {
                got,
                offered: self.offer.checksum,
            });
        }
        let world = restore::<G>(rules, self.offer.tick, &bytes)?;
        let got = world.state_hash().combined();
        if got != self.offer.hash {
            return Err(TransferError::Hash {
                got,
                offered: self.offer.hash,
            });
        }
        Ok((world, bytes))
    }
}

/// A fresh world from snapshot `bytes` that must be of `tick`, through every check the
/// engine has for untrusted state.
///
/// # Errors
/// [`TransferError::Snapshot`], or [`TransferError::OtherTick`] for a snapshot of another
/// tick.
pub fn restore<G: Game>(rules: &G::Rules, tick: u32, bytes: &[u8]) -> Result<G, TransferError> {
    let failed = |e: G::Error| TransferError::Snapshot {
        reason: e.to_string(),
    };
    let snapshot = G::snapshot_from_bytes(bytes).map_err(failed)?;
    let world = G::from_snapshot(rules.clone(), &snapshot).map_err(failed)?;
    if world.tick() != tick {
        return Err(TransferError::OtherTick {
            got: world.tick(),
            offered: tick,
        });
    }
    Ok(world)
}

#[cfg(test)]
mod tests {
    use super::*;
    use engine::{InputCmd, Rules, World};
    use proptest::prelude::*;

    /// Rules under which both players keep firing: many projectiles in flight, so that a
    /// snapshot spans several parts.
    fn busy_rules() -> Rules {
        Rules {
            magazine: 255,
            shot_cooldown: 1,
            projectile_life: 600,
            // The largest maze: its grid alone spans two parts.
            maze_cells_w: 31,
            maze_cells_h: 31,
            ..Rules::default()
        }
    }

    /// A world some way into a match, with projectiles in flight, and its bytes.
    fn played(ticks: u32) -> (World, Vec<u8>) {
        let mut world = World::new(busy_rules(), 7, 2).unwrap();
        for t in 0..ticks {
            let fire = InputCmd {
                buttons: engine::buttons::SHOOT,
                move_x: if t % 40 < 20 { 60 } else { -60 },
                ..InputCmd::idle(t)
            };
            world.step(&[fire, fire]).unwrap();
        }
        let bytes = world.state().to_bytes();
        (world, bytes)
    }

    fn send_all(world: &World, bytes: &[u8]) -> Assembly {
        let tick = world.tick();
        let offer = offer(tick, bytes, world.state_hash().combined());
        let mut a = Assembly::new(offer).unwrap();
        for i in 0..parts(offer.len) as u16 {
            a.add(tick, i, chunk(bytes, i).unwrap()).unwrap();
        }
        a
    }

    #[test]
    fn a_snapshot_sent_in_parts_restores_to_the_same_state_in_a_fresh_world() {
        let (world, bytes) = played(200);
        let a = send_all(&world, &bytes);
        assert!(a.missing().is_empty());
        let (got, kept) = a.finish::<World>(world.rules()).unwrap();
        assert_eq!(kept, bytes);
        assert_eq!(got.state_hash(), world.state_hash());
        assert_eq!(got.tick(), world.tick());
    }

    #[test]
    fn parts_of_another_tick_past_the_last_or_of_the_wrong_length_are_refused_and_not_kept() {
        let (world, bytes) = played(120);
        assert!(parts(bytes.len() as u32) > 2, "{} bytes", bytes.len());
        let tick = world.tick();
        let offer = offer(tick, &bytes, world.state_hash().combined());
        let mut a = Assembly::new(offer).unwrap();
        let n = parts(offer.len) as u16;
        let first = chunk(&bytes, 0).unwrap();
        assert_eq!(
            a.add(tick + 1, 0, first),
            Err(TransferError::OtherTick {
                got: tick + 1,
                offered: tick
            })
        );
        assert_eq!(
            a.add(tick, n, first),
            Err(TransferError::OutOfRange {
                index: n,
                parts: n as usize
            })
        );
        let expected = first.len();
        assert!(matches!(
            a.add(tick, 0, &first[..expected - 1]),
            Err(TransferError::WrongLength { index: 0, .. })
        ));
        let mut longer = first.to_vec();
        longer.push(0);
        assert!(matches!(
            a.add(tick, 0, &longer),
            Err(TransferError::WrongLength { index: 0, .. })
        ));
        // Nothing of those was kept.
        assert_eq!(a.missing().len(), n as usize);
        assert_eq!(
            a.finish::<World>(world.rules()).unwrap_err(),
            TransferError::Incomplete {
                missing: n as usize
            }
        );
    }

    #[test]
    fn a_snapshot_splits_into_whole_parts_and_a_shorter_last_one_and_no_more() {
        let exact = vec![7u8; 2 * CHUNK_BYTES];
        assert_eq!(parts(exact.len() as u32), 2);
        assert_eq!(chunk(&exact, 1).map(<[u8]>::len), Some(CHUNK_BYTES));
        assert_eq!(
            chunk(&exact, 2),
            None,
            "no empty part past a whole last one"
        );
        let longer = vec![7u8; 2 * CHUNK_BYTES + 1];
        assert_eq!(parts(longer.len() as u32), 3);
        assert_eq!(chunk(&longer, 2).map(<[u8]>::len), Some(1));
        assert_eq!(chunk(&longer, 3), None);
        assert_eq!((parts(0), chunk(&[], 0)), (0, None));
    }

    #[test]
    fn each_refusal_says_what_was_wrong_with_its_figures() {
        let said = [
            (TransferError::BadOffer { len: 0 }, "0 bytes"),
            (TransferError::OtherTick { got: 5, offered: 4 }, "tick 5"),
            (
                TransferError::OutOfRange { index: 9, parts: 2 },
                "part 9 is past",
            ),
            (
                TransferError::WrongLength {
                    index: 1,
                    got: 3,
                    expected: 4,
                },
                "holds 3 bytes; that part has 4",
            ),
            (TransferError::Incomplete { missing: 2 }, "2 snapshot parts"),
            (
                TransferError::Checksum { got: 1, offered: 2 },
                "not the offered",
            ),
            (
                TransferError::Snapshot {
                    reason: "bad".into(),
                },
                "can be in: bad",
            ),
            (TransferError::Hash { got: 1, offered: 2 }, "state hash"),
        ];
        for (e, words) in said {
            assert!(e.to_string().contains(words), "{e}");
        }
    }

    #[test]
    fn offers_of_nothing_or_past_the_limit_are_refused() {
        let o = |len| SnapshotOffer {
            tick: 1,
            len,
            checksum: 0,
            hash: 0,
        };
        assert_eq!(
            Assembly::new(o(0)).unwrap_err(),
            TransferError::BadOffer { len: 0 }
        );
        assert_eq!(
            Assembly::new(o(MAX_TRANSFER_BYTES + 1)).unwrap_err(),
            TransferError::BadOffer {
                len: MAX_TRANSFER_BYTES + 1
            }
        );
        let most = Assembly::new(o(MAX_TRANSFER_BYTES)).unwrap();
        assert_eq!(most.missing().len(), MAX_NEEDED);
    }

    #[test]
    fn a_damaged_part_fails_the_checksum_and_a_forged_whole_fails_the_hash() {
        let (world, bytes) = played(150);
        let tick = world.tick();
        let good = offer(tick, &bytes, world.state_hash().combined());
        let mut damaged = bytes.clone();
        damaged[bytes.len() / 2] ^= 0x40;
        let mut a = Assembly::new(good).unwrap();
        for i in 0..parts(good.len) as u16 {
            a.add(tick, i, chunk(&damaged, i).unwrap()).unwrap();
        }
        assert!(matches!(
            a.finish::<World>(world.rules()),
            Err(TransferError::Checksum { .. })
        ));
        // A sender that checksums its forgery still has to match the hash it offered.
        let (other, other_bytes) = played(151);
        let forged = SnapshotOffer {
            tick: other.tick(),
            ..offer(other.tick(), &other_bytes, world.state_hash().combined())
        };
        let mut b = Assembly::new(forged).unwrap();
        for i in 0..parts(forged.len) as u16 {
            b.add(forged.tick, i, chunk(&other_bytes, i).unwrap())
                .unwrap();
        }
        assert!(matches!(
            b.finish::<World>(world.rules()),
            Err(TransferError::Hash { .. })
        ));
    }

    #[test]
    fn a_snapshot_of_another_tick_than_offered_or_of_other_rules_is_refused() {
        let (world, bytes) = played(90);
        let lying = offer(world.tick() + 5, &bytes, world.state_hash().combined());
        let mut a = Assembly::new(lying).unwrap();
        for i in 0..parts(lying.len) as u16 {
            a.add(lying.tick, i, chunk(&bytes, i).unwrap()).unwrap();
        }
        assert!(matches!(
            a.finish::<World>(world.rules()),
            Err(TransferError::OtherTick { .. })
        ));
        let a = send_all(&world, &bytes);
        let mut other = busy_rules();
        other.max_hp = other.max_hp.saturating_add(1);
        assert!(matches!(
            a.finish::<World>(&other),
            Err(TransferError::Snapshot { .. })
        ));
    }

    proptest! {
        /// Whatever bytes arrive as parts, in whatever order and with whatever claims, the
        /// assembly either restores exactly the offered state or refuses: it never panics
        /// and never restores another state.
        #[test]
        fn any_parts_restore_the_offered_state_or_are_refused(
            ops in prop::collection::vec(
                (0u32..3, 0u16..4, 0usize..3, any::<u8>(), 0usize..4096),
                0..24,
            ),
            ticks in 1u32..90,
        ) {
            let (world, bytes) = played(ticks);
            let tick = world.tick();
            let offer = offer(tick, &bytes, world.state_hash().combined());
            let mut a = Assembly::new(offer).unwrap();
            for (tick_off, index, how, flip, at) in ops {
                let claimed = tick + tick_off.saturating_sub(1);
                let mut part = chunk(&bytes, index).unwrap_or(&bytes[..1]).to_vec();
                match how {
                    0 => {}
                    1 => { let i = at % part.len(); part[i] ^= flip | 1; }
                    _ => part.truncate(at % part.len()),
                }
                let _ = a.add(claimed, index, &part);
            }
            if let Ok((got, kept)) = a.finish::<World>(world.rules()) {
                prop_assert_eq!(got.state_hash(), world.state_hash());
                prop_assert_eq!(kept, bytes);
            }
        }
    }
}
