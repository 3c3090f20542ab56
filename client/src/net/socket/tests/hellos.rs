//! `Hello`s after the handshake answered them: answered again, refused in so many words, or
//! left unanswered while a slot may yet free up; and a `Hello` of another protocol version.

use super::*;

#[test]
fn an_undecodable_control_is_counted_and_an_old_hello_is_told_both_versions() {
    let n = net();
    n.link.borrow_mut().add_peer(addr(CLEAR_PEER));
    n.send(CLEAR_PEER, &clear_frame(1, &[9, 0, 0, 0]));
    n.pump(false);
    assert_eq!(n.counters().dropped_undecodable, 1);
    assert!(n.sent_to(CLEAR_PEER).is_empty(), "garbage gets no answer");
    assert!(n.inbox().is_empty());

    for from in [CLEAR_PEER, STRANGER] {
        n.send(from, &old_hello());
        // A stranger is heard while strangers are accepted (a host waiting for joiners).
        n.pump(true);
        assert_eq!(
            n.rejection_to(from),
            format!(
                "protocol version {} vs 1: the host runs another version of the game",
                wire::PROTOCOL_VERSION
            )
        );
    }
    let c = n.counters();
    assert_eq!((c.dropped_undecodable, c.datagrams_sent), (3, 2));
    assert!(n.inbox().is_empty());
}

#[test]
fn a_hello_again_is_answered_again_with_the_latest_answer_for_that_peer_only() {
    let mut n = connected();
    n.link.borrow_mut().add_peer(addr(CLEAR_PEER));
    let answer = |reason: &str| {
        clear(&Control::Reject {
            reason: reason.into(),
        })
    };
    let latest = answer("latest");
    n.link
        .borrow_mut()
        .answer_hellos_with(addr(PEER), answer("first"));
    n.link
        .borrow_mut()
        .answer_hellos_with(addr(CLEAR_PEER), answer("other"));
    n.link
        .borrow_mut()
        .answer_hellos_with(addr(PEER), latest.clone());
    // The joiner lost the answer: it says Hello again, in clear, though the host holds keys.
    n.send(PEER, &clear(&hello(Role::Player)));
    let joined = n.sealed_control(PEER, &Control::Joined);
    n.send(PEER, &joined);
    n.pump(false);
    assert_eq!(n.sent_to(PEER), vec![latest.clone()]);
    assert!(n.sent_to(CLEAR_PEER).is_empty());
    let c = n.counters();
    assert_eq!((c.datagrams_sent, c.bytes_sent), (1, latest.len() as u64));
    // The Hello itself still reaches the inbox; only a Hello is answered.
    assert_eq!(
        n.inbox(),
        vec![
            (addr(PEER), hello(Role::Player)),
            (addr(PEER), Control::Joined)
        ]
    );
    n.send(CLEAR_PEER, &clear(&hello(Role::Spectator)));
    n.pump(false);
    assert_eq!(n.sent_to(CLEAR_PEER), vec![answer("other")]);
}

#[test]
fn without_refusals_a_strangers_hello_of_any_version_is_dropped_unanswered() {
    let n = net();
    n.send(STRANGER, &clear(&hello(Role::Player)));
    n.pump(false);
    assert_eq!(n.counters().dropped_unknown_sender, 1);
    n.send(STRANGER, &old_hello());
    n.pump(false);
    let c = n.counters();
    assert_eq!((c.dropped_unknown_sender, c.dropped_undecodable), (2, 0));
    assert!(n.sent_to(STRANGER).is_empty());
    assert_eq!(c.datagrams_sent, 0);
}

#[test]
fn once_under_way_every_strangers_hello_is_refused_saying_why() {
    let n = running();
    n.link
        .borrow_mut()
        .refuse_hellos(info(Rules::default().block_hp), Refusing::UnderWay);
    n.send(STRANGER, &clear(&hello(Role::Player)));
    n.pump(false);
    assert_eq!(
        n.rejection_to(STRANGER),
        "the match is full (already under way)"
    );
    n.send(STRANGER, &clear(&hello(Role::Spectator)));
    n.pump(false);
    assert_eq!(
        n.rejection_to(STRANGER),
        "spectator slots full: the match is already under way"
    );
    let other_rules = hello_with(info(Rules::default().block_hp + 1), Role::Player);
    n.send(STRANGER, &clear(&other_rules));
    n.pump(false);
    assert_eq!(
        n.rejection_to(STRANGER),
        format!(
            "peer 127.0.0.1:3 differs from host (host's value first): rules differ: block_hp {} vs {}",
            Rules::default().block_hp,
            Rules::default().block_hp + 1
        )
    );
    let c = n.counters();
    assert_eq!((c.late_hellos_refused, c.datagrams_sent), (3, 3));
    assert_eq!(c.hellos_refused, 0, "the handshake's tally, not the link's");
    assert!(n.inbox().is_empty());

    // Another version is told so; anything else from a stranger is dropped unanswered.
    n.send(STRANGER, &old_hello());
    n.pump(false);
    assert!(n
        .rejection_to(STRANGER)
        .starts_with(&format!("protocol version {} vs 1", wire::PROTOCOL_VERSION)));
    n.send(STRANGER, &clear(&Control::Finish { confirmed: 1 }));
    n.send(STRANGER, &clear_frame(1, &[7; 3]));
    n.pump(false);
    assert!(n.sent_to(STRANGER).is_empty());
    let c = n.counters();
    assert_eq!((c.late_hellos_refused, c.dropped_undecodable), (3, 2));
    assert_eq!(c.dropped_unknown_sender, 1);
}

#[test]
fn while_synchronizing_only_hellos_that_could_never_be_accepted_are_refused() {
    for takes_spectators in [false, true] {
        let n = running();
        n.link.borrow_mut().refuse_hellos(
            info(Rules::default().block_hp),
            Refusing::WhileSynchronizing { takes_spectators },
        );
        n.send(STRANGER, &clear(&hello(Role::Player)));
        n.pump(false);
        assert!(n.sent_to(STRANGER).is_empty(), "a slot may free up");
        assert_eq!(n.counters().dropped_unknown_sender, 1);
        n.send(STRANGER, &clear(&hello(Role::Spectator)));
        n.pump(false);
        if takes_spectators {
            assert!(n.sent_to(STRANGER).is_empty());
            assert_eq!(n.counters().late_hellos_refused, 0);
        } else {
            assert_eq!(
                n.rejection_to(STRANGER),
                "spectator slots full: this host takes no spectators"
            );
            assert_eq!(n.counters().late_hellos_refused, 1);
        }
        let other_rules = hello_with(info(Rules::default().block_hp + 1), Role::Player);
        n.send(STRANGER, &clear(&other_rules));
        n.pump(false);
        assert!(n.rejection_to(STRANGER).contains("block_hp"));
    }
}
