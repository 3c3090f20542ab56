//! A peer heard from a new address (its NAT mapped a new port after a router restart, or it
//! moved networks) is followed there, but only on its own newest datagram: nothing a stranger
//! sends, forges or replays moves it, and it stays named as at the handshake.

use super::*;

/// Where the peer's NAT maps it after the restart.
const MOVED: u16 = 5;

/// A running link whose peer is proven (one keep-alive opened from its own address).
fn proven() -> Net {
    let mut n = running();
    let d = n.ggrs(PEER, Body::KeepAlive);
    n.send(PEER, &d);
    assert_eq!(n.pump(false).len(), 1);
    n
}

fn path(n: &Net) -> SocketAddr {
    n.link.borrow().path(addr(PEER)).expect("a channel")
}

#[test]
fn a_peer_heard_from_a_new_port_moves_there_and_keeps_its_name() {
    let mut n = proven();
    let d = n.ggrs(PEER, Body::KeepAlive);
    n.send(MOVED, &d);
    let got = n.pump(false);
    assert_eq!(got.len(), 1, "its datagram is read");
    assert_eq!(got[0].0, addr(PEER), "GGRS knows it by its first address");
    assert_eq!(path(&n), addr(MOVED));
    assert_eq!(n.counters().path_changes, 1);
    assert_eq!(n.counters().dropped(), 0);
    // What goes to it goes to where it is now, sealed as ever.
    n.send_ggrs(PEER, Body::KeepAlive);
    assert!(n.sent_to(PEER).is_empty(), "nothing to the old address");
    let sent = n.sent_to(MOVED);
    assert_eq!(sent.len(), 1);
    let keys = n.keys.get_mut(&PEER).expect("keys");
    assert!(keys.open(&sent[0]).is_ok());
    // And its next datagrams from there are its own.
    let d = n.ggrs(PEER, Body::KeepAlive);
    n.send(MOVED, &d);
    assert_eq!(n.pump(false).len(), 1);
    assert_eq!(n.counters().path_changes, 1, "moved once");
}

#[test]
fn a_replayed_datagram_from_another_address_moves_nothing() {
    let mut n = proven();
    let old = n.ggrs(PEER, Body::KeepAlive);
    n.send(PEER, &old);
    n.pump(false);
    n.send(STRANGER, &old);
    assert!(n.pump(false).is_empty());
    assert_eq!(n.counters().dropped_replayed, 1);
    assert_eq!((path(&n), n.counters().path_changes), (addr(PEER), 0));
}

#[test]
fn an_older_datagram_arriving_late_from_another_address_is_read_but_moves_nothing() {
    let mut n = proven();
    let older = n.ggrs(PEER, Body::KeepAlive);
    let newer = n.ggrs(PEER, Body::KeepAlive);
    n.send(PEER, &newer);
    n.pump(false);
    // Unseen and inside the replay window, so it is the peer's: but not its newest word.
    n.send(STRANGER, &older);
    let got = n.pump(false);
    assert_eq!(got.len(), 1);
    assert_eq!(got[0].0, addr(PEER));
    assert_eq!((path(&n), n.counters().path_changes), (addr(PEER), 0));
}

#[test]
fn a_forged_datagram_naming_the_channel_moves_nothing() {
    let mut n = proven();
    // The channel's id and a counter far ahead, then garbage: a stranger's best forgery.
    let mut d = n.ggrs(PEER, Body::KeepAlive);
    d[7..SEALED_HEADER_LEN].copy_from_slice(&(1u64 << 40).to_le_bytes());
    n.send(STRANGER, &d);
    assert!(n.pump(false).is_empty());
    assert_eq!(n.counters().dropped_unauthenticated, 1);
    assert_eq!((path(&n), n.counters().path_changes), (addr(PEER), 0));
    // The forged counter moved no window: the peer's next real datagram still opens.
    let next = n.ggrs(PEER, Body::KeepAlive);
    n.send(PEER, &next);
    assert_eq!(n.pump(false).len(), 1);
}

#[test]
fn a_peer_not_yet_proven_is_not_followed() {
    // The handshake is done but nothing sealed has come from the peer's own address yet.
    let mut n = running();
    let d = n.ggrs(PEER, Body::KeepAlive);
    n.send(MOVED, &d);
    assert!(n.pump(false).is_empty());
    assert_eq!(n.counters().dropped_unknown_sender, 1);
    assert_eq!((path(&n), n.counters().path_changes), (addr(PEER), 0));
}

#[test]
fn a_peer_that_moves_back_is_followed_back() {
    let mut n = proven();
    for port in [MOVED, PEER] {
        let d = n.ggrs(PEER, Body::KeepAlive);
        n.send(port, &d);
        assert_eq!(n.pump(false).len(), 1);
        assert_eq!(path(&n), addr(port));
    }
    assert_eq!(n.counters().path_changes, 2);
}

#[test]
fn a_new_peer_on_the_address_a_peer_moved_to_is_heard_under_its_own_keys() {
    let mut n = proven();
    let d = n.ggrs(PEER, Body::KeepAlive);
    n.send(MOVED, &d);
    n.pump(false);
    // Another peer then shakes hands from that address: each is heard under its own keys.
    n.connect(MOVED);
    n.link.borrow_mut().set_limits(
        limits(),
        vec![
            (addr(PEER), Sender::Player { slots: 1 }),
            (addr(MOVED), Sender::Spectator),
        ],
    );
    let mine = n.ggrs(MOVED, Body::KeepAlive);
    n.send(MOVED, &mine);
    let theirs = n.ggrs(PEER, Body::KeepAlive);
    n.send(MOVED, &theirs);
    let got: Vec<SocketAddr> = n.pump(false).into_iter().map(|(a, _)| a).collect();
    assert_eq!(got, vec![addr(MOVED), addr(PEER)]);
    assert_eq!(n.counters().dropped(), 0);
}

/// A peer that started over (a rejoin: new keys, a new epoch) is heard only under its new
/// channel: a datagram of the epoch before, replayed from its address or any other, opens
/// under nothing and reaches nobody.
#[test]
fn a_datagram_of_the_epoch_before_is_refused_from_any_address() {
    let mut n = proven();
    let old = n.ggrs(PEER, Body::KeepAlive);
    let old_too = n.ggrs(PEER, Body::KeepAlive);
    n.connect(PEER);
    n.send(PEER, &old);
    n.send(MOVED, &old_too);
    assert!(n.pump(false).is_empty());
    let c = n.counters();
    assert_eq!((c.dropped_wrong_session, c.dropped_unknown_sender), (1, 1));
    assert_eq!((path(&n), c.path_changes), (addr(PEER), 0));
    // The new epoch's own datagrams are heard.
    let new = n.ggrs(PEER, Body::KeepAlive);
    n.send(PEER, &new);
    assert_eq!(n.pump(false).len(), 1);
}
