//! The peers a room's transport has a data channel open to, each with what it last said about
//! itself (its [`RoomIntro`]), which is what the room settles on ([`crate::net::room::decide`]).
//!
//! The two kinds of news come apart: matchbox reports a peer connected, and its intros come on
//! the reliable room channel, which can deliver before matchbox reports the sender connected on
//! our side. An intro from a peer not yet listed is kept (a bounded number) and taken when the
//! peer is. News of a peer that already left the room, or of our own former entry into it
//! (which lingers a moment after we enter again and may still connect to our new self), can
//! come late: such a peer is nobody to play with and is never listed, or the room could settle
//! on joining a peer that is not there — or on ourselves.

use crate::net::room::RoomIntro;
use crate::net::webrtc::peer_addr;
use matchbox_socket::PeerId;
use std::net::SocketAddr;

/// Intros kept from peers not yet reported connected (a room holds at most 16 peers).
pub(crate) const MAX_EARLY_INTROS: usize = 64;

/// The connected peers of one entry into a room, in the order they connected.
#[derive(Debug, Default)]
pub(crate) struct RoomPeers {
    /// Connected peers, their synthetic addresses, and their latest intro.
    open: Vec<(PeerId, SocketAddr, Option<RoomIntro>)>,
    /// Intros from peers not yet reported connected, oldest first.
    early: Vec<(PeerId, RoomIntro)>,
}

impl RoomPeers {
    /// matchbox reports `id` connected; `gone` says the peer already left the room (or is our
    /// own former entry). Returns whether `id` is a peer to tell who we are: false for a gone
    /// one, which is not listed and whose early intros are dropped.
    pub(crate) fn open(&mut self, id: PeerId, gone: bool) -> bool {
        if gone {
            self.early.retain(|&(p, _)| p != id);
            return false;
        }
        if !self.open.iter().any(|&(p, _, _)| p == id) {
            let heard = self
                .early
                .iter()
                .rposition(|&(p, _)| p == id)
                .map(|at| self.early[at].1);
            self.early.retain(|&(p, _)| p != id);
            self.open.push((id, peer_addr(id), heard));
        }
        true
    }

    /// The connection with `id` closed: no longer listed.
    pub(crate) fn closed(&mut self, id: PeerId) {
        self.open.retain(|&(p, _, _)| p != id);
    }

    /// `id` said `intro` on the room channel. Returns false when it is dropped: from a peer
    /// not listed while [`MAX_EARLY_INTROS`] are already kept.
    pub(crate) fn heard(&mut self, id: PeerId, intro: RoomIntro) -> bool {
        if let Some(peer) = self.open.iter_mut().find(|(p, _, _)| *p == id) {
            peer.2 = Some(intro);
        } else if self.early.len() < MAX_EARLY_INTROS {
            self.early.push((id, intro));
        } else {
            return false;
        }
        true
    }

    /// The latest intro of each connected peer that said one.
    pub(crate) fn intros(&self) -> Vec<(PeerId, RoomIntro)> {
        self.open
            .iter()
            .filter_map(|&(id, _, intro)| intro.map(|i| (id, i)))
            .collect()
    }

    /// The connected peers' ids.
    pub(crate) fn ids(&self) -> Vec<PeerId> {
        self.open.iter().map(|&(id, _, _)| id).collect()
    }

    /// The connected peers' synthetic addresses.
    pub(crate) fn addrs(&self) -> Vec<SocketAddr> {
        self.open.iter().map(|&(_, addr, _)| addr).collect()
    }

    /// The connected peer at `addr`.
    pub(crate) fn at(&self, addr: SocketAddr) -> Option<PeerId> {
        self.open
            .iter()
            .find(|&&(_, a, _)| a == addr)
            .map(|&(id, _, _)| id)
    }

    /// How many peers are connected.
    pub(crate) fn len(&self) -> usize {
        self.open.len()
    }

    /// Forgets everyone and every kept intro (the room is entered again).
    pub(crate) fn clear(&mut self) {
        self.open.clear();
        self.early.clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::room::RoomState;
    use crate::net::wire::Role;

    fn id(n: u128) -> PeerId {
        serde_json::from_str(&format!("\"{n:032x}\"")).expect("a uuid")
    }

    fn intro(role: Role, state: RoomState) -> RoomIntro {
        RoomIntro { role, state }
    }

    #[test]
    fn an_intro_heard_before_its_sender_connected_is_taken_when_it_is() {
        let mut peers = RoomPeers::default();
        let looking = intro(Role::Player, RoomState::Open);
        let hosting = intro(Role::Player, RoomState::Hosting);
        assert!(peers.heard(id(1), looking));
        assert!(peers.heard(id(2), looking));
        assert!(peers.heard(id(1), hosting));
        assert_eq!(peers.len(), 0);
        assert_eq!(peers.intros(), vec![]);
        assert!(peers.open(id(1), false));
        // The latest of its early intros, and only its own.
        assert_eq!(peers.intros(), vec![(id(1), hosting)]);
        assert_eq!(peers.addrs(), vec![peer_addr(id(1))]);
        // Connected again (matchbox says so twice): listed once, its intro kept.
        assert!(peers.open(id(1), false));
        assert_eq!(peers.ids(), vec![id(1)]);
        assert_eq!(peers.intros(), vec![(id(1), hosting)]);
        // Connected with nothing said yet: listed, no intro until it says one.
        assert!(peers.open(id(3), false));
        assert_eq!(peers.ids(), vec![id(1), id(3)]);
        assert_eq!(peers.intros(), vec![(id(1), hosting)]);
        assert!(peers.heard(id(3), looking));
        assert!(peers.heard(id(1), looking));
        assert_eq!(peers.intros(), vec![(id(1), looking), (id(3), looking)]);
        // Peer 2's early intro is still kept for it; 1's taken ones are not taken twice.
        assert!(peers.open(id(2), false));
        assert_eq!(
            peers.intros(),
            vec![(id(1), looking), (id(3), looking), (id(2), looking)]
        );
    }

    /// Late news of a peer that left, or of our own former entry: it is never listed, so the
    /// room cannot settle on it, and what it said before is dropped.
    #[test]
    fn late_news_of_a_peer_gone_lists_nobody() {
        let mut peers = RoomPeers::default();
        let hosting = intro(Role::Player, RoomState::Hosting);
        assert!(peers.heard(id(7), hosting));
        assert!(!peers.open(id(7), true));
        assert_eq!(peers.len(), 0);
        assert_eq!(peers.at(peer_addr(id(7))), None);
        assert_eq!(peers.intros(), vec![]);
        // Its early intro is gone with it: had the id been listed later, nothing of it is kept.
        assert!(peers.open(id(7), false));
        assert_eq!(peers.intros(), vec![]);
    }

    #[test]
    fn a_closed_peer_is_no_longer_listed_and_a_cleared_room_holds_nothing() {
        let mut peers = RoomPeers::default();
        let looking = intro(Role::Spectator, RoomState::Open);
        for n in 1..=3 {
            assert!(peers.open(id(n), false));
            assert!(peers.heard(id(n), looking));
        }
        assert_eq!(peers.at(peer_addr(id(2))), Some(id(2)));
        peers.closed(id(2));
        assert_eq!(peers.ids(), vec![id(1), id(3)]);
        assert_eq!(peers.at(peer_addr(id(2))), None);
        assert_eq!(peers.at(peer_addr(id(3))), Some(id(3)));
        // Heard again while closed: kept as early, taken when it connects again.
        assert!(peers.heard(id(2), looking));
        assert_eq!(peers.len(), 2);
        assert!(peers.heard(id(9), looking));
        peers.clear();
        assert_eq!(peers.len(), 0);
        assert!(peers.open(id(2), false));
        assert!(peers.open(id(9), false));
        assert_eq!(peers.intros(), vec![], "cleared intros are not taken");
    }

    #[derive(Debug, Clone)]
    enum Op {
        Open(u8, bool),
        Closed(u8),
        Heard(u8, bool),
        Clear,
    }

    fn op() -> impl proptest::strategy::Strategy<Value = Op> {
        use proptest::prelude::*;
        prop_oneof![
            2 => (0u8..6, any::<bool>()).prop_map(|(p, gone)| Op::Open(p, gone)),
            1 => (0u8..6).prop_map(Op::Closed),
            12 => (0u8..80, any::<bool>()).prop_map(|(p, hosting)| Op::Heard(p, hosting)),
            1 => Just(Op::Clear),
        ]
    }

    proptest::proptest! {
        /// Any order of news from matchbox and the room channel (peers connecting, some
        /// already gone, closing, intros from listed and unlisted peers, a room entered again):
        /// a peer is listed once, exactly while its last news is a connection not gone; every
        /// intro given is one its peer said; a listed peer is always heard; and intros from
        /// unlisted peers are dropped only past the bound.
        #[test]
        fn any_news_keeps_the_room_peers_consistent(ops in proptest::collection::vec(op(), 0..400)) {
            use std::collections::{BTreeMap, BTreeSet};
            let mut peers = RoomPeers::default();
            let mut listed = BTreeSet::new();
            let mut said: BTreeMap<u8, BTreeSet<bool>> = BTreeMap::new();
            // Intros kept for each peer not listed.
            let mut early: BTreeMap<u8, usize> = BTreeMap::new();
            for op in ops {
                match op {
                    Op::Open(p, gone) => {
                        proptest::prop_assert_eq!(peers.open(id(p.into()), gone), !gone);
                        if !gone {
                            listed.insert(p);
                        }
                        early.remove(&p);
                    }
                    Op::Closed(p) => {
                        peers.closed(id(p.into()));
                        listed.remove(&p);
                    }
                    Op::Heard(p, hosting) => {
                        let state = if hosting { RoomState::Hosting } else { RoomState::Open };
                        let kept = peers.heard(id(p.into()), intro(Role::Player, state));
                        let held: usize = early.values().sum();
                        if listed.contains(&p) {
                            proptest::prop_assert!(kept, "a listed peer is always heard");
                        } else {
                            proptest::prop_assert_eq!(kept, held < MAX_EARLY_INTROS, "{} held", held);
                            *early.entry(p).or_default() += usize::from(kept);
                        }
                        said.entry(p).or_default().insert(hosting);
                    }
                    Op::Clear => {
                        peers.clear();
                        listed.clear();
                        said.clear();
                        early.clear();
                    }
                }
                let ids = peers.ids();
                let unique: BTreeSet<PeerId> = ids.iter().copied().collect();
                proptest::prop_assert_eq!(unique.len(), ids.len(), "listed once");
                let want: BTreeSet<PeerId> = listed.iter().map(|&p| id(p.into())).collect();
                proptest::prop_assert_eq!(unique, want);
                proptest::prop_assert_eq!(peers.len(), listed.len());
                for (who, heard) in peers.intros() {
                    let p = listed
                        .iter()
                        .copied()
                        .find(|&p| id(p.into()) == who)
                        .expect("an intro of a listed peer");
                    let hosting = heard.state == RoomState::Hosting;
                    proptest::prop_assert!(said[&p].contains(&hosting));
                }
            }
        }
    }

    #[test]
    fn early_intros_are_kept_up_to_their_bound() {
        let mut peers = RoomPeers::default();
        let looking = intro(Role::Player, RoomState::Open);
        for n in 0..MAX_EARLY_INTROS {
            assert!(peers.heard(id(n as u128 + 100), looking), "{n}");
        }
        assert!(
            !peers.heard(id(1), looking),
            "one past the bound is dropped"
        );
        // A listed peer's intro is never dropped, however many are kept.
        assert!(peers.open(id(2), false));
        assert!(peers.heard(id(2), looking));
        // Taking one frees a place.
        assert!(peers.open(id(100), false));
        assert!(peers.heard(id(1), looking));
        assert!(!peers.heard(id(3), looking));
    }
}
