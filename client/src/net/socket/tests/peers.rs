//! Dropping one peer and forgetting them all: what each resets.

use super::*;

#[test]
fn dropping_a_peer_forgets_its_channel_answer_and_held_datagrams_and_nothing_else() {
    let mut n = connected();
    n.connect(CLEAR_PEER);
    for port in [PEER, CLEAR_PEER] {
        let d = n.sealed_control(port, &Control::Joined);
        n.send(port, &d);
        let d = n.ggrs(port, Body::KeepAlive);
        n.send(port, &d);
        n.link.borrow_mut().answer_hellos_with(
            addr(port),
            clear(&Control::Finish {
                confirmed: u32::from(port),
            }),
        );
    }
    n.send_ggrs(PEER, input(0, 3, -1, false));
    n.sent_to(PEER);
    n.pump(false);
    assert_eq!(n.inbox().len(), 2);
    assert_eq!(n.held(), 2);

    n.link.borrow_mut().drop_peer(addr(PEER));
    assert_eq!(n.link.borrow().peers(), &[addr(CLEAR_PEER)]);
    let link = n.link.borrow();
    assert_eq!(
        (
            link.channel_id(addr(PEER)),
            link.proven(addr(PEER)),
            link.heard_through(addr(PEER))
        ),
        (None, false, -1)
    );
    assert!(link.proven(addr(CLEAR_PEER)));
    drop(link);
    assert_eq!(n.held(), 1);
    // Its Hello is a stranger's now: unanswered; the other peer's still is.
    n.send(PEER, &clear(&hello(Role::Player)));
    n.send(CLEAR_PEER, &clear(&hello(Role::Player)));
    let d = n.ggrs(PEER, Body::KeepAlive);
    n.send(PEER, &d);
    n.pump(false);
    assert!(n.sent_to(PEER).is_empty());
    assert_eq!(
        n.control_to(CLEAR_PEER),
        vec![Control::Finish { confirmed: 4 }]
    );
    assert_eq!(n.counters().dropped_unknown_sender, 2);
    // Its held datagram is gone; the other's is read.
    n.link.borrow_mut().set_limits(
        limits(),
        vec![
            (addr(PEER), Sender::Player { slots: 1 }),
            (addr(CLEAR_PEER), Sender::Player { slots: 1 }),
        ],
    );
    let got = n.pump(false);
    assert_eq!(got.len(), 1);
    assert_eq!(got[0].0, addr(CLEAR_PEER));
    // Back with new keys, nothing of what was sent to it before counts.
    n.connect(PEER);
    let d = n.ggrs(PEER, Body::InputAck { ack_frame: 0 });
    n.send(PEER, &d);
    assert!(n.pump(false).is_empty());
    assert_eq!(n.counters().dropped_invalid, 1);
}

#[test]
fn forgetting_the_peers_returns_the_link_to_a_fresh_one() {
    let mut n = running();
    {
        let mut link = n.link.borrow_mut();
        link.set_local_frame(10);
        link.answer_hellos_with(addr(PEER), clear(&Control::Finish { confirmed: 0 }));
        link.refuse_hellos(info(3), Refusing::UnderWay);
    }
    let lead = limits().max_lead;
    let d = n.ggrs(PEER, input(0, 1, -1, true));
    n.send(PEER, &d);
    let d = n.sealed_control(PEER, &Control::Finish { confirmed: 2 });
    n.send(PEER, &d);
    n.pump(false);
    n.link.borrow_mut().forget_peers();
    {
        let link = n.link.borrow();
        assert!(link.peers().is_empty());
        assert_eq!(
            (link.channel_id(addr(PEER)), link.proven(addr(PEER))),
            (None, false)
        );
    }
    assert!(n.link.borrow_mut().take_disconnect_claims().is_empty());
    assert!(n.inbox().is_empty());
    // No refusals: a stranger's Hello is dropped unanswered.
    n.send(STRANGER, &clear(&hello(Role::Player)));
    n.pump(false);
    assert!(n.sent_to(STRANGER).is_empty());
    // No answers: a Hello from the old peer (now a stranger, accepted) is not answered.
    n.send(PEER, &clear(&hello(Role::Player)));
    n.pump(true);
    assert!(n.sent_to(PEER).is_empty());
    // No channel: what it sends under its old keys is a stranger's, and it is sent clear.
    let d = n.sealed_control(PEER, &Control::Joined);
    n.send(PEER, &d);
    n.pump(true);
    assert_eq!(n.counters().dropped_unknown_sender, 2);
    n.link
        .borrow_mut()
        .send_control(&Control::Finish { confirmed: 0 }, addr(PEER));
    assert_eq!(n.control_to(PEER), vec![Control::Finish { confirmed: 0 }]);
    // No limits: a connected peer's GGRS datagram is held again, and nothing held before
    // returns.
    n.connect(PEER);
    let d = n.ggrs(PEER, input(lead + 5, 1, -1, false));
    n.send(PEER, &d);
    assert!(n.pump(false).is_empty());
    n.link
        .borrow_mut()
        .set_limits(limits(), vec![(addr(PEER), Sender::Player { slots: 1 })]);
    // Local frame 0 again: the held input is too far ahead.
    assert!(n.pump(false).is_empty());
    assert_eq!(n.counters().dropped_invalid, 1);
}

#[test]
fn forgetting_the_peers_discards_what_was_held() {
    let mut n = connected();
    let d = n.ggrs(PEER, Body::KeepAlive);
    n.send(PEER, &d);
    n.pump(false);
    assert_eq!(n.held(), 1);
    n.link.borrow_mut().forget_peers();
    assert_eq!(n.held(), 0);
    n.connect(PEER);
    n.link
        .borrow_mut()
        .set_limits(limits(), vec![(addr(PEER), Sender::Player { slots: 1 })]);
    assert!(n.pump(false).is_empty());
    assert_eq!(n.counters().datagrams_received, 0);
}

/// A peer turned away hears its refusal under its keys, and again at each sealed datagram it
/// sends from where it was heard (one that missed the first, lost or read before it held the
/// keys, would otherwise wait out its timeout), past `forget_peers` too — but never for a
/// replay, a forgery, a datagram from elsewhere, or once its address holds a channel again;
/// of too many, the oldest is forgotten.
#[test]
fn a_peer_turned_away_hears_its_refusal_again_at_each_sealed_datagram_it_sends() {
    let mut n = connected();
    n.link.borrow_mut().turn_away(addr(PEER), "taken");
    let refusal = (
        Inner::Control,
        wire::encode_payload(&Control::Reject {
            reason: "taken".into(),
        }),
    );
    assert_eq!(n.opened_by(PEER), vec![refusal.clone()]);
    assert!(n.link.borrow().peers().is_empty());
    assert_eq!(n.link.borrow().channel_id(addr(PEER)), None);
    // Each sealed datagram it sends is answered with the refusal again and taken no further.
    let joined = n.sealed_control(PEER, &Control::Joined);
    n.send(PEER, &joined);
    let d = n.ggrs(PEER, Body::KeepAlive);
    n.send(PEER, &d);
    assert!(n.pump(true).is_empty());
    assert!(n.inbox().is_empty());
    assert_eq!(n.opened_by(PEER), vec![refusal.clone(), refusal.clone()]);
    assert_eq!(n.counters().dropped_unknown_sender, 2);
    // A replay, a forgery, one from elsewhere and a clear datagram: no answer.
    n.send(PEER, &joined);
    let mut forged = n.sealed_control(PEER, &Control::Joined);
    *forged.last_mut().expect("bytes") ^= 1;
    n.send(PEER, &forged);
    let d = n.sealed_control(PEER, &Control::Joined);
    n.send(STRANGER, &d);
    n.send(PEER, &clear(&Control::Joined));
    n.pump(false);
    assert!(n.sent_to(PEER).is_empty());
    assert!(n.sent_to(STRANGER).is_empty());
    assert_eq!(n.counters().dropped_unknown_sender, 6);
    // The link forgetting its peers forgets no refusal.
    n.link.borrow_mut().forget_peers();
    let d = n.sealed_control(PEER, &Control::Joined);
    n.send(PEER, &d);
    n.pump(true);
    assert_eq!(n.opened_by(PEER), vec![refusal.clone()]);
    // Welcomed again (new keys): what comes under the old ones is not answered.
    let mut old = n.keys.remove(&PEER).expect("old keys");
    let mut unanswered_under_old_keys = |n: &mut Net| {
        let d = old
            .seal(Inner::Control, &wire::encode_payload(&Control::Joined))
            .expect("seal");
        n.send(PEER, &d);
        n.pump(false);
        assert!(n.sent_to(PEER).is_empty());
    };
    n.connect(PEER);
    unanswered_under_old_keys(&mut n);
    // Nor once that channel is forgotten too: the old refusal went with the old keys.
    n.link.borrow_mut().forget_peers();
    unanswered_under_old_keys(&mut n);
    // Of one more than are kept, the first turned away is answered no more, the second is.
    let ports: Vec<u16> = (10..).take(MAX_TURNED_AWAY + 1).collect();
    for &port in &ports {
        n.connect(port);
        n.link.borrow_mut().turn_away(addr(port), "taken");
        assert_eq!(n.opened_by(port), vec![refusal.clone()]);
    }
    for (port, answered) in [(ports[0], 0), (ports[1], 1)] {
        let d = n.sealed_control(port, &Control::Joined);
        n.send(port, &d);
        n.pump(false);
        assert_eq!(n.opened_by(port).len(), answered, "port {port}");
    }
}
