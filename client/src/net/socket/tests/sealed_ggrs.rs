//! Sealed GGRS messages: held until GGRS starts, then passed only once, under the sender's own
//! keys, within the match's limits, acknowledging no frame never sent to that peer; and what a
//! peer proves (`proven`) and has sent (`heard_through`).

use super::*;

#[test]
fn ggrs_datagrams_are_held_until_the_limits_are_set_and_read_once() {
    let mut n = connected();
    let keep_alive = n.ggrs(PEER, Body::KeepAlive);
    n.send(PEER, &keep_alive);
    let sync = n.ggrs(PEER, Body::SyncRequest { random_request: 11 });
    n.send(PEER, &sync);
    assert!(n.pump(false).is_empty());
    assert_eq!(n.held(), 2);
    let c = n.counters();
    assert_eq!(
        (c.datagrams_received, c.bytes_received, c.dropped()),
        (0, 0, 0)
    );
    n.link
        .borrow_mut()
        .set_limits(limits(), vec![(addr(PEER), Sender::Player { slots: 1 })]);
    let got = n.pump(false);
    let bodies: Vec<Body> = got.iter().map(|(_, m)| mirror(m).body).collect();
    assert_eq!(
        bodies,
        vec![Body::KeepAlive, Body::SyncRequest { random_request: 11 }],
        "in the order they came"
    );
    assert!(got.iter().all(|(from, _)| *from == addr(PEER)));
    let c = n.counters();
    assert_eq!(
        (c.datagrams_received, c.bytes_received),
        (2, (keep_alive.len() + sync.len()) as u64)
    );
    assert!(n.pump(false).is_empty(), "held datagrams are read once");
    assert_eq!((n.held(), n.counters().dropped()), (0, 0));
}

#[test]
fn at_most_16_ggrs_datagrams_are_held_per_peer_and_32_in_all() {
    let mut n = connected();
    n.connect(CLEAR_PEER);
    n.connect(5);
    for _ in 0..MAX_EARLY_PER_PEER + 1 {
        let d = n.ggrs(PEER, Body::KeepAlive);
        n.send(PEER, &d);
    }
    n.pump(false);
    assert_eq!((n.held(), n.counters().dropped_early), (16, 1));
    for port in [CLEAR_PEER, 5] {
        for _ in 0..MAX_EARLY_PER_PEER {
            let d = n.ggrs(port, Body::KeepAlive);
            n.send(port, &d);
        }
    }
    n.pump(false);
    assert_eq!(n.held(), MAX_EARLY);
    assert_eq!(n.counters().dropped_early, 1 + 16, "port 5 came last");
    // A stranger's are never held, whatever it sends.
    let d = (pair().1)
        .seal(Inner::Ggrs, &ggrs_payload(Body::KeepAlive))
        .expect("seal");
    n.send(STRANGER, &d);
    n.pump(false);
    assert_eq!(n.counters().dropped_unknown_sender, 1);
    n.link.borrow_mut().set_limits(
        limits(),
        vec![
            (addr(PEER), Sender::Player { slots: 1 }),
            (addr(CLEAR_PEER), Sender::Spectator),
        ],
    );
    let got = n.pump(false);
    assert_eq!(got.len(), MAX_EARLY);
    assert_eq!(
        got.iter().filter(|(from, _)| *from == addr(PEER)).count(),
        16
    );
    assert_eq!(n.counters().datagrams_received, 32);
}

#[test]
fn held_datagrams_of_a_peer_without_a_role_are_dropped_as_unknown_when_read() {
    let mut n = connected();
    let d = n.ggrs(PEER, Body::KeepAlive);
    n.send(PEER, &d);
    n.pump(false);
    n.link.borrow_mut().set_limits(limits(), Vec::new());
    assert!(n.pump(false).is_empty());
    let c = n.counters();
    assert_eq!((c.dropped_unknown_sender, c.datagrams_received), (1, 0));
}

/// Regression (found by the property test): a peer that held GGRS datagrams and then
/// connected again had them handed to GGRS under its new keys, before it proved it holds them.
#[test]
fn new_keys_drop_what_was_held_under_the_old_ones() {
    let mut n = connected();
    n.connect(CLEAR_PEER);
    for port in [PEER, CLEAR_PEER] {
        let d = n.ggrs(port, Body::KeepAlive);
        n.send(port, &d);
    }
    n.pump(false);
    assert_eq!(n.held(), 2);
    n.connect(PEER);
    assert_eq!(n.held(), 1, "the other peer's stays held");
    assert!(!n.link.borrow().proven(addr(PEER)));
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
}

#[test]
fn sealed_ggrs_from_the_peer_passes_only_once_under_its_keys_within_its_limits() {
    let mut n = running();
    n.connect(CLEAR_PEER); // a channel, but no role in the match
    let ack = n.ggrs(PEER, Body::InputAck { ack_frame: -1 });
    n.send(PEER, &ack);
    let got = n.pump(false);
    assert_eq!(got.len(), 1);
    assert_eq!(mirror(&got[0].1).body, Body::InputAck { ack_frame: -1 });
    let c = n.counters();
    assert_eq!(
        (c.datagrams_received, c.bytes_received),
        (1, ack.len() as u64)
    );

    n.send(PEER, &ack);
    assert!(n.pump(false).is_empty());
    assert_eq!(n.counters().dropped_replayed, 1);

    let mut flipped = n.ggrs(PEER, Body::KeepAlive);
    *flipped.last_mut().expect("tag") ^= 0x80;
    n.send(PEER, &flipped);
    // Sealed under the keys of another peer of this match, sent from the peer's address.
    let other = n.ggrs(CLEAR_PEER, Body::KeepAlive);
    n.send(PEER, &other);
    assert!(n.pump(false).is_empty());
    assert_eq!(n.counters().dropped_wrong_session, 1);
    assert_eq!(n.counters().dropped_unauthenticated, 1);

    // The other peer holds keys but is not among GGRS's senders.
    let d = n.ggrs(CLEAR_PEER, Body::KeepAlive);
    n.send(CLEAR_PEER, &d);
    let d = n.sealed(PEER, Inner::Ggrs, &[200, 0, 0]);
    n.send(PEER, &d);
    let d = n.ggrs(PEER, Body::InputAck { ack_frame: -2 });
    n.send(PEER, &d);
    assert!(n.pump(false).is_empty());
    let c = n.counters();
    assert_eq!(
        (
            c.dropped_unknown_sender,
            c.dropped_undecodable,
            c.dropped_invalid
        ),
        (1, 1, 1)
    );
    assert_eq!(
        (c.datagrams_received, c.bytes_received),
        (1, ack.len() as u64),
        "only what reached GGRS is received"
    );
    // The refusals opened under the keys: the window moved past them, a fresh one passes.
    let d = n.ggrs(PEER, Body::KeepAlive);
    n.send(PEER, &d);
    assert_eq!(n.pump(false).len(), 1);
}

/// Regression: GGRS 0.13 drops every pending input up to whatever frame an acknowledgement
/// names, so one forged `InputAck` for a frame never sent hung both peers. An acknowledgement
/// (alone or inside an `Input`) passes only for a frame the link sent that very peer.
#[test]
fn an_acknowledgement_of_a_frame_never_sent_to_that_peer_is_refused() {
    let mut n = running();
    n.connect(CLEAR_PEER);
    n.link.borrow_mut().set_limits(
        limits(),
        vec![
            (addr(PEER), Sender::Player { slots: 1 }),
            (addr(CLEAR_PEER), Sender::Player { slots: 1 }),
        ],
    );
    let passes = |n: &mut Net, from: u16, body: Body| {
        let d = n.ggrs(from, body);
        n.send(from, &d);
        let before = n.counters().dropped_invalid;
        let got = n.pump(false);
        let refused = n.counters().dropped_invalid - before;
        assert_eq!(got.len() as u64 + refused, 1);
        !got.is_empty()
    };
    // Nothing sent yet: no frame may be acknowledged.
    assert!(!passes(&mut n, PEER, Body::InputAck { ack_frame: 0 }));
    assert!(passes(&mut n, PEER, Body::InputAck { ack_frame: -1 }));
    // Frames 0..=4 sent, then a resend of frame 2 and a keep-alive: still through 4.
    n.send_ggrs(PEER, input(0, 5, -1, false));
    n.send_ggrs(PEER, input(2, 1, -1, false));
    n.send_ggrs(PEER, Body::KeepAlive);
    assert_eq!(n.opened_by(PEER).len(), 3);
    assert!(!passes(&mut n, PEER, Body::InputAck { ack_frame: 5 }));
    assert!(!passes(
        &mut n,
        PEER,
        Body::InputAck {
            ack_frame: i32::MAX
        }
    ));
    assert!(passes(&mut n, PEER, Body::InputAck { ack_frame: 4 }));
    assert!(passes(&mut n, PEER, Body::InputAck { ack_frame: 2 }));
    assert!(!passes(&mut n, PEER, input(0, 1, 5, false)));
    assert!(passes(&mut n, PEER, input(0, 1, 4, false)));
    // What was sent to one peer is no acknowledgement for another.
    assert!(!passes(&mut n, CLEAR_PEER, Body::InputAck { ack_frame: 0 }));
    assert!(!passes(&mut n, CLEAR_PEER, input(0, 1, 4, false)));
    // Held acknowledgements are weighed when read, against what was sent by then.
    let mut n = connected();
    let d = n.ggrs(PEER, Body::InputAck { ack_frame: 1 });
    n.send(PEER, &d);
    let d = n.ggrs(PEER, Body::InputAck { ack_frame: 2 });
    n.send(PEER, &d);
    n.pump(false);
    n.send_ggrs(PEER, input(0, 2, -1, false));
    n.link
        .borrow_mut()
        .set_limits(limits(), vec![(addr(PEER), Sender::Player { slots: 1 })]);
    let got = n.pump(false);
    assert_eq!(got.len(), 1);
    assert_eq!(mirror(&got[0].1).body, Body::InputAck { ack_frame: 1 });
    assert_eq!(n.counters().dropped_invalid, 1);
}

#[test]
fn heard_through_follows_the_last_input_frame_accepted_and_no_refused_one() {
    let mut n = running();
    let heard = |n: &Net| n.link.borrow().heard_through(addr(PEER));
    assert_eq!(heard(&n), -1);
    let deliver = |n: &mut Net, body: Body| {
        let d = n.ggrs(PEER, body);
        n.send(PEER, &d);
        n.pump(false).len()
    };
    assert_eq!(deliver(&mut n, input(0, 3, -1, false)), 1);
    assert_eq!(heard(&n), 2);
    assert_eq!(deliver(&mut n, input(1, 1, -1, false)), 1, "a resend");
    assert_eq!(heard(&n), 2, "never backwards");
    assert_eq!(deliver(&mut n, input(3, 0, -1, false)), 1, "no frames");
    assert_eq!(heard(&n), 2);
    let lead = limits().max_lead;
    assert_eq!(
        deliver(&mut n, input(lead, 5, -1, false)),
        0,
        "too far ahead"
    );
    assert_eq!(
        deliver(&mut n, input(3, 4, 0, false)),
        0,
        "acks a frame not sent"
    );
    assert_eq!(
        deliver(&mut n, input(3, 4, -1, true)),
        0,
        "a disconnect claim"
    );
    assert_eq!(heard(&n), 2);
    assert_eq!(deliver(&mut n, input(3, 4, -1, false)), 1);
    assert_eq!(heard(&n), 6);
    // Only the peer's own inputs count, and only while it has a channel.
    assert_eq!(n.link.borrow().heard_through(addr(STRANGER)), -1);
    n.connect(PEER);
    assert_eq!(heard(&n), -1, "new keys, a new peer");
}

#[test]
fn a_remote_player_may_run_ahead_only_as_far_as_the_local_frame_allows() {
    let mut n = running();
    let lead = limits().max_lead;
    let d = n.ggrs(PEER, input(lead + 5, 1, -1, false));
    n.send(PEER, &d);
    assert!(n.pump(false).is_empty());
    assert_eq!(n.counters().dropped_invalid, 1);
    n.link.borrow_mut().set_local_frame(10);
    let d = n.ggrs(PEER, input(lead + 5, 1, -1, false));
    n.send(PEER, &d);
    assert_eq!(n.pump(false).len(), 1);
}

#[test]
fn a_disconnect_claim_is_counted_every_time_and_its_sender_listed_once() {
    let mut n = running();
    for start in [0, 1] {
        let d = n.ggrs(PEER, input(start, 1, -1, true));
        n.send(PEER, &d);
    }
    assert!(n.pump(false).is_empty(), "a claim never reaches GGRS");
    assert_eq!(n.counters().disconnect_claims, 2);
    assert_eq!(
        n.link.borrow_mut().take_disconnect_claims(),
        vec![addr(PEER)]
    );
    assert!(n.link.borrow_mut().take_disconnect_claims().is_empty());
}

#[test]
fn a_peer_is_proven_by_its_first_sealed_datagram_that_opens_and_never_by_a_forged_one() {
    let mut n = connected();
    let proven = |n: &Net| n.link.borrow().proven(addr(PEER));
    assert!(!proven(&n));
    let mut forgeries = Vec::new();
    let mut flipped = n.sealed_control(PEER, &Control::Joined);
    flipped[SEALED_HEADER_LEN] ^= 1;
    forgeries.push(flipped);
    let (_, mut other) = pair();
    let mut other_keys = other.seal(Inner::Control, &[4]).expect("seal");
    other_keys[3..7].copy_from_slice(&n.keys[&PEER].id().to_le_bytes());
    forgeries.push(other_keys);
    forgeries.push(other.seal(Inner::Control, &[4]).expect("seal"));
    n.link
        .borrow_mut()
        .send_control(&Control::Joined, addr(PEER));
    forgeries.push(n.sent_to(PEER).remove(0));
    forgeries.push(clear(&Control::Joined));
    forgeries.push(clear(&hello(Role::Player)));
    for d in &forgeries {
        n.send(PEER, d);
    }
    // Sealed by the peer, but from another address.
    let d = n.sealed_control(PEER, &Control::Joined);
    n.send(STRANGER, &d);
    n.pump(false);
    assert!(!proven(&n), "{:?}", n.counters());
    assert_eq!(n.inbox(), vec![(addr(PEER), hello(Role::Player))]);
    // The peer's first real datagram proves it, whatever it carries (here a GGRS message,
    // held since GGRS has not started).
    let d = n.ggrs(PEER, Body::KeepAlive);
    n.send(PEER, &d);
    n.pump(false);
    assert!(proven(&n));
    assert!(!n.link.borrow().proven(addr(STRANGER)));
    // New keys must be proven again.
    n.connect(PEER);
    assert!(!proven(&n));
}
