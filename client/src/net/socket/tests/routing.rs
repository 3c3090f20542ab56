//! Where each datagram goes (GGRS, the control inbox, the held queue, or one counter), by what
//! it is, who sends it (a peer with a channel, one without, a stranger) and whether GGRS started.

use super::*;

/// Where one datagram went.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Fate {
    /// Handed to GGRS.
    Ggrs,
    /// Into the control inbox.
    Inbox,
    /// Held until the limits are set.
    Held,
    /// Refused, under this counter.
    Dropped(&'static str),
}

/// Sends `datagram` from `from`, pumps once, and says where it went, checking that it went
/// exactly one way and that only what was taken is counted as received.
fn fate(n: &Net, from: u16, datagram: &[u8]) -> Fate {
    let before = n.counters();
    let held = n.held();
    n.send(from, datagram);
    let ggrs = n.pump(false);
    let inbox = n.inbox();
    let after = n.counters();
    let dropped: Vec<_> = drop_counters()
        .into_iter()
        .filter(|(_, get)| get(&after) != get(&before))
        .map(|(name, get)| (name, get(&after) - get(&before)))
        .collect();
    let received = after.datagrams_received - before.datagrams_received;
    let received_bytes = after.bytes_received - before.bytes_received;
    let fates: Vec<Fate> = [
        (!ggrs.is_empty()).then_some(Fate::Ggrs),
        (!inbox.is_empty()).then_some(Fate::Inbox),
        (n.held() > held).then_some(Fate::Held),
    ]
    .into_iter()
    .flatten()
    .chain(dropped.iter().map(|(name, _)| Fate::Dropped(name)))
    .collect();
    assert_eq!(fates.len(), 1, "one datagram, one fate: {fates:?}");
    assert!(dropped.iter().all(|(_, by)| *by == 1), "{dropped:?}");
    let taken = matches!(fates[0], Fate::Ggrs | Fate::Inbox);
    assert_eq!(ggrs.len() + inbox.len(), usize::from(taken));
    assert_eq!(received, u64::from(taken), "{fates:?}");
    assert_eq!(
        received_bytes,
        if taken { datagram.len() as u64 } else { 0 },
        "{fates:?}"
    );
    if let Some((from_addr, _)) = ggrs.first().map(|(a, m)| (*a, m)) {
        assert_eq!(from_addr, addr(from));
    }
    if let Some((from_addr, _)) = inbox.first() {
        assert_eq!(*from_addr, addr(from));
    }
    fates[0]
}

/// A datagram as made for one case of the table: sealed ones by the peer's keys.
type Maker = fn(&mut Net) -> Vec<u8>;

/// The datagrams of the routing table, by name.
fn table_datagrams() -> Vec<(&'static str, Maker)> {
    vec![
        ("sealed GGRS keep-alive", |n| n.ggrs(PEER, Body::KeepAlive)),
        ("sealed Finish", |n| {
            n.sealed_control(PEER, &Control::Finish { confirmed: 3 })
        }),
        ("sealed Joined", |n| {
            n.sealed_control(PEER, &Control::Joined)
        }),
        ("sealed Hello", |n| {
            n.sealed_control(PEER, &hello(Role::Player))
        }),
        ("sealed, not a GGRS message", |n| {
            n.sealed(PEER, Inner::Ggrs, &[200, 0, 0])
        }),
        ("sealed, not a control message", |n| {
            n.sealed(PEER, Inner::Control, &[200, 0, 0])
        }),
        ("sealed, opened before", |n| {
            let d = n.sealed_control(PEER, &Control::Joined);
            n.send(PEER, &d);
            n.pump(false);
            n.inbox();
            d
        }),
        ("sealed, one bit flipped", |n| {
            let mut d = n.ggrs(PEER, Body::KeepAlive);
            d[SEALED_HEADER_LEN + 2] ^= 4;
            d
        }),
        ("sealed, its counter changed", |n| {
            let mut d = n.ggrs(PEER, Body::KeepAlive);
            d[SEALED_HEADER_LEN - 1] ^= 1;
            d
        }),
        ("sealed under other keys, with the channel's id", |n| {
            let (_, mut other) = pair();
            let mut d = other
                .seal(Inner::Ggrs, &ggrs_payload(Body::KeepAlive))
                .expect("seal");
            let id = n.keys[&PEER].id();
            d[3..7].copy_from_slice(&id.to_le_bytes());
            d
        }),
        ("sealed by the link itself, reflected", |n| {
            n.link
                .borrow_mut()
                .send_control(&Control::Joined, addr(PEER));
            n.sent_to(PEER).pop().expect("sent")
        }),
        ("sealed under another channel", |_| {
            let (_, mut other) = pair();
            other
                .seal(Inner::Ggrs, &ggrs_payload(Body::KeepAlive))
                .expect("seal")
        }),
        ("sealed, truncated after its header", |n| {
            n.ggrs(PEER, Body::KeepAlive)[..SEALED_HEADER_LEN + 4].to_vec()
        }),
        ("clear Hello", |_| clear(&hello(Role::Player))),
        ("clear Finish", |_| clear(&Control::Finish { confirmed: 3 })),
        ("clear Joined", |_| clear(&Control::Joined)),
        ("clear Answer", |_| {
            clear(&Control::Answer { noise: vec![1; 48] })
        }),
        ("clear Reject", |_| {
            clear(&Control::Reject {
                reason: "no".into(),
            })
        }),
        ("clear kind 2 (GGRS before protocol 3)", |_| {
            clear_frame(2, &ggrs_payload(Body::KeepAlive))
        }),
        ("clear, undecodable", |_| clear_frame(1, &[9, 0, 0, 0])),
        ("clear, damaged", |_| {
            let mut d = clear(&Control::Joined);
            *d.last_mut().expect("payload") ^= 1;
            d
        }),
        ("noise", |_| vec![0x5a; 40]),
        ("clear Resume", |_| {
            clear(&Control::Resume {
                through: 3,
                hash: 4,
                recent: crate::net::wire::InputRun::default(),
            })
        }),
        ("clear ResumeAt", |_| {
            clear(&Control::ResumeAt {
                epoch: 2,
                tick: 3,
                hash: 4,
                gap: crate::net::wire::InputRun::default(),
            })
        }),
        ("clear Resync", |_| {
            clear(&Control::Resync { tick: 3, hash: 4 })
        }),
        ("clear SnapshotChunk", |_| {
            clear(&Control::SnapshotChunk {
                tick: 3,
                index: 0,
                bytes: vec![1; 8],
            })
        }),
        ("sealed GGRS keep-alive of another epoch", |n| {
            let mut payload = 2u32.to_le_bytes().to_vec();
            payload.extend_from_slice(&ggrs_message_bytes(Body::KeepAlive));
            n.sealed(PEER, Inner::Ggrs, &payload)
        }),
    ]
}

/// Contract: the fate of every kind of datagram from each kind of sender, before and after
/// the limits are set (GGRS started). Columns: the peer with a channel without a policy, the
/// same with one, a peer without a channel, a stranger (these two alike in both states).
#[test]
fn each_datagram_goes_exactly_one_way_by_sender_and_link_state() {
    use Fate::{Dropped as D, Ggrs, Held, Inbox};
    let unknown = D("unknown_sender");
    let expected: [[Fate; 4]; 27] = [
        [Held, Ggrs, unknown, unknown],
        [Inbox, Inbox, unknown, unknown],
        [Inbox, Inbox, unknown, unknown],
        [D("undecodable"), D("undecodable"), unknown, unknown],
        // Shorter than the epoch every GGRS payload starts with.
        [D("undecodable"), D("undecodable"), unknown, unknown],
        [D("undecodable"), D("undecodable"), unknown, unknown],
        // A datagram naming a proven peer's channel is judged under it from any address (the
        // peer may have moved): this one was opened before.
        [D("replayed"); 4],
        [D("unauthenticated"), D("unauthenticated"), unknown, unknown],
        [D("unauthenticated"), D("unauthenticated"), unknown, unknown],
        [D("unauthenticated"), D("unauthenticated"), unknown, unknown],
        [D("unauthenticated"), D("unauthenticated"), unknown, unknown],
        [D("wrong_session"), D("wrong_session"), unknown, unknown],
        [D("damaged"), D("damaged"), unknown, unknown],
        [Inbox, Inbox, Inbox, unknown],
        [
            D("unauthenticated"),
            D("unauthenticated"),
            D("unauthenticated"),
            unknown,
        ],
        [
            D("unauthenticated"),
            D("unauthenticated"),
            D("unauthenticated"),
            unknown,
        ],
        [unknown, unknown, Inbox, unknown],
        [unknown, unknown, Inbox, unknown],
        [D("damaged"), D("damaged"), D("damaged"), unknown],
        [
            D("undecodable"),
            D("undecodable"),
            D("undecodable"),
            unknown,
        ],
        [D("damaged"), D("damaged"), D("damaged"), unknown],
        [D("damaged"), D("damaged"), D("damaged"), unknown],
        // Only ever sealed: a clear one from a peer is forged, a stranger's is a stranger's.
        [
            D("unauthenticated"),
            D("unauthenticated"),
            D("unauthenticated"),
            unknown,
        ],
        [
            D("unauthenticated"),
            D("unauthenticated"),
            D("unauthenticated"),
            unknown,
        ],
        [
            D("unauthenticated"),
            D("unauthenticated"),
            D("unauthenticated"),
            unknown,
        ],
        [
            D("unauthenticated"),
            D("unauthenticated"),
            D("unauthenticated"),
            unknown,
        ],
        // A session before a rejoin or a resync, still in flight.
        [D("other_epoch"), D("other_epoch"), unknown, unknown],
    ];
    let datagrams = table_datagrams();
    assert_eq!(datagrams.len(), expected.len());
    for ((name, make), row) in datagrams.into_iter().zip(expected) {
        for (column, want) in row.into_iter().enumerate() {
            let from = [PEER, PEER, CLEAR_PEER, STRANGER][column];
            let policies: &[bool] = match column {
                0 => &[false],
                1 => &[true],
                _ => &[false, true],
            };
            for &policy in policies {
                let mut n = if policy { running() } else { connected() };
                n.link.borrow_mut().add_peer(addr(CLEAR_PEER));
                let d = make(&mut n);
                assert_eq!(
                    fate(&n, from, &d),
                    want,
                    "{name} from port {from}, policy {policy}"
                );
                // Nothing but a Hello from a known peer with an answer is ever answered, and
                // none of these has one.
                assert!(n.sent_to(from).is_empty(), "{name}: answered");
            }
        }
    }
}

#[test]
fn control_from_peers_reaches_the_inbox_and_from_strangers_only_while_accepted() {
    let mut n = connected();
    let finish = n.sealed_control(PEER, &Control::Finish { confirmed: 3 });
    n.send(PEER, &finish);
    n.send(STRANGER, &clear(&hello(Role::Player)));
    assert!(n.pump(false).is_empty());
    let c = n.counters();
    assert_eq!(
        (c.datagrams_received, c.bytes_received),
        (1, finish.len() as u64)
    );
    assert_eq!(c.dropped_unknown_sender, 1);
    assert_eq!(
        n.inbox(),
        vec![(addr(PEER), Control::Finish { confirmed: 3 })]
    );
    assert!(n.inbox().is_empty(), "the inbox is taken once");

    // While strangers are accepted, their Hellos reach the inbox; nothing else of theirs does.
    n.send(STRANGER, &clear(&hello(Role::Spectator)));
    n.send(STRANGER, &clear(&Control::Finish { confirmed: 1 }));
    n.send(STRANGER, &clear(&Control::Answer { noise: vec![0; 48] }));
    let mut damaged = clear(&hello(Role::Player));
    damaged[wire::HEADER_LEN] ^= 1;
    n.send(STRANGER, &damaged);
    n.pump(true);
    assert_eq!(n.inbox(), vec![(addr(STRANGER), hello(Role::Spectator))]);
    let c = n.counters();
    assert_eq!(c.datagrams_received, 2);
    assert_eq!(
        (c.dropped_unknown_sender, c.dropped_damaged),
        (3, 1),
        "{c:?}"
    );
    // GGRS's socket never accepts strangers.
    n.send(STRANGER, &clear(&hello(Role::Player)));
    assert!(GameSocket::new(n.link.clone())
        .receive_all_messages()
        .is_empty());
    assert!(n.inbox().is_empty());
    assert_eq!(n.counters().dropped_unknown_sender, 4);
}
