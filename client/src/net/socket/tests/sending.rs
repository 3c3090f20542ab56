//! What the link counts and sends: the refusal tally, its peers, and sealed or clear datagrams by
//! whether the peer holds a channel.

use super::*;

#[test]
fn every_refusal_counts_once_in_dropped_and_traffic_and_handshake_tallies_do_not() {
    let c = SocketCounters {
        bytes_sent: 1 << 20,
        bytes_received: 1 << 21,
        datagrams_sent: 1 << 22,
        datagrams_received: 1 << 23,
        dropped_unknown_sender: 1,
        dropped_damaged: 2,
        dropped_undecodable: 4,
        dropped_wrong_session: 8,
        dropped_unauthenticated: 16,
        dropped_replayed: 32,
        dropped_invalid: 64,
        disconnect_claims: 128,
        dropped_early: 256,
        late_hellos_refused: 1 << 24,
        hellos_refused: 1 << 25,
        hellos_rate_limited: 1 << 26,
        path_changes: 1 << 27,
        dropped_other_epoch: 512,
    };
    assert_eq!(c.dropped(), 1023);
    // Each counter the names above list is one bit of it.
    let bits: u64 = drop_counters().iter().map(|(_, get)| get(&c)).sum();
    assert_eq!(bits, 1023);
}

#[test]
fn peers_are_listed_once_and_the_link_shows_its_state() {
    let mut n = net();
    n.link.borrow_mut().add_peer(addr(PEER));
    n.link.borrow_mut().add_peer(addr(STRANGER));
    n.link.borrow_mut().add_peer(addr(PEER));
    n.connect(CLEAR_PEER);
    n.connect(PEER);
    assert_eq!(
        n.link.borrow().peers(),
        &[addr(PEER), addr(STRANGER), addr(CLEAR_PEER)]
    );
    assert_eq!(n.link.borrow().local_addr(), addr(LINK));
    assert_eq!(n.link.borrow().channel_id(addr(STRANGER)), None);
    assert_eq!(
        n.link.borrow().channel_id(addr(PEER)),
        Some(n.keys[&PEER].id())
    );
    let shown = format!("{:?}", n.link.borrow());
    assert!(
        shown.contains("127.0.0.1:1") && shown.contains("127.0.0.1:3"),
        "{shown}"
    );
}

#[test]
fn a_peer_with_a_channel_is_sent_sealed_datagrams_and_one_without_clear_control_only() {
    let mut n = net();
    let finish = Control::Finish { confirmed: 5 };
    let clear_len = clear(&finish).len() as u64;
    n.link.borrow_mut().send_control(&finish, addr(CLEAR_PEER));
    assert_eq!(n.control_to(CLEAR_PEER), vec![finish.clone()]);
    // GGRS has nothing to say to a peer without keys: nothing is sent.
    n.send_ggrs(CLEAR_PEER, Body::KeepAlive);
    assert!(n.sent_to(CLEAR_PEER).is_empty());
    let c = n.counters();
    assert_eq!((c.datagrams_sent, c.bytes_sent), (1, clear_len));

    n.connect(PEER);
    n.link.borrow_mut().send_control(&finish, addr(PEER));
    n.send_ggrs(PEER, Body::KeepAlive);
    let sent = n.sent_to(PEER);
    assert!(sent.iter().all(|d| clear_control(d).is_none()));
    let sent_bytes: u64 = sent.iter().map(|d| d.len() as u64).sum();
    let keys = n.keys.get_mut(&PEER).expect("connected");
    let opened: Vec<_> = sent.iter().map(|d| keys.open(d).expect("opens")).collect();
    assert_eq!(
        opened,
        vec![
            (Inner::Control, wire::encode_payload(&finish)),
            (Inner::Ggrs, ggrs_payload(Body::KeepAlive)),
        ]
    );
    // A Hello is the handshake's own, clear even to a peer with keys.
    n.link
        .borrow_mut()
        .send_control(&hello(Role::Player), addr(PEER));
    assert_eq!(n.control_to(PEER), vec![hello(Role::Player)]);
    let c = n.counters();
    assert_eq!(c.datagrams_sent, 4);
    assert_eq!(
        c.bytes_sent,
        clear_len + sent_bytes + clear(&hello(Role::Player)).len() as u64
    );
}
