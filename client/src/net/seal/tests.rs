use super::*;
use proptest::prelude::*;
use std::collections::BTreeSet;

fn code(byte: u8) -> InviteCode {
    InviteCode::from_bytes([byte; InviteCode::BYTES])
}

/// A finished handshake: (joiner's channel, host's channel).
fn pair(prologue: &[u8], invite: Option<&InviteCode>) -> (Channel, Channel) {
    let mut joiner = Initiator::new(prologue, invite).expect("initiator");
    let host = Responder::read_hello(prologue, invite, joiner.message()).expect("hello opens");
    let (answer, host_channel) = host.answer(b"welcome").expect("answer");
    assert_eq!(
        joiner.read_answer(&answer).expect("answer opens"),
        b"welcome"
    );
    (joiner.into_channel().expect("finished"), host_channel)
}

#[test]
fn a_handshake_gives_both_sides_one_channel_id_and_datagrams_open_once() {
    for invite in [None, Some(code(7))] {
        let (mut a, mut b) = pair(b"prologue", invite.as_ref());
        assert_eq!(a.id(), b.id());
        assert_ne!(a.id(), 0);
        let d1 = a.seal(Inner::Ggrs, b"input").expect("seal");
        let d2 = a.seal(Inner::Control, b"finish").expect("seal");
        assert_eq!(d1.len(), SEALED_HEADER_LEN + 1 + 5 + TAG_LEN);
        assert_eq!(b.open(&d2), Ok((Inner::Control, b"finish".to_vec())));
        assert_eq!(
            b.open(&d1),
            Ok((Inner::Ggrs, b"input".to_vec())),
            "reordered"
        );
        assert_eq!(b.open(&d1), Err(SealError::Replayed));
        assert_eq!(b.open(&d2), Err(SealError::Replayed));
        // The other direction has its own key: b's datagram opens at a only.
        let back = b.seal(Inner::Ggrs, b"ack").expect("seal");
        assert!(b.open(&back).is_err());
        assert_eq!(a.open(&back), Ok((Inner::Ggrs, b"ack".to_vec())));
        assert_eq!((a.sent(), b.sent()), (2, 1));
    }
}

#[test]
fn every_bit_flip_and_truncation_of_a_sealed_datagram_is_refused_and_changes_nothing() {
    let (mut a, mut b) = pair(b"p", None);
    let datagram = a.seal(Inner::Ggrs, &[9; 40]).expect("seal");
    for i in 0..datagram.len() {
        for bit in 0..8 {
            let mut bad = datagram.clone();
            bad[i] ^= 1 << bit;
            assert!(b.open(&bad).is_err(), "flip of bit {bit} at byte {i}");
        }
    }
    for len in 0..datagram.len() {
        assert!(b.open(&datagram[..len]).is_err(), "truncated to {len}");
    }
    // None of the failures moved the window: the real one still opens, once.
    assert_eq!(b.open(&datagram), Ok((Inner::Ggrs, vec![9; 40])));
}

#[test]
fn another_code_or_no_code_or_another_prologue_fails_the_handshake_at_the_hello() {
    let joiner = Initiator::new(b"p", Some(&code(1))).expect("initiator");
    for (prologue, invite) in [
        (&b"p"[..], Some(code(2))),
        (&b"p"[..], None),
        (&b"q"[..], Some(code(1))),
    ] {
        assert!(
            Responder::read_hello(prologue, invite.as_ref(), joiner.message()).is_err(),
            "{:?}",
            invite.map(|c| c.to_string())
        );
    }
    // An open joiner is refused by a host with a code, and an open host reads it.
    let open = Initiator::new(b"p", None).expect("initiator");
    assert!(Responder::read_hello(b"p", Some(&code(1)), open.message()).is_err());
    assert!(Responder::read_hello(b"p", None, open.message()).is_ok());
    // Garbage of every length up to the limit, and past it.
    for len in [0, 1, 31, 32, 48, 100, MAX_HANDSHAKE_MESSAGE + 1] {
        let junk = vec![0x5a; len];
        assert!(
            Responder::read_hello(b"p", Some(&code(1)), &junk).is_err(),
            "{len}"
        );
    }
}

/// An answer from someone who is not the host (a forger racing it) does not open, and leaves
/// the joiner able to read the real answer.
#[test]
fn a_forged_answer_is_refused_and_the_real_one_still_opens() {
    let invite = code(3);
    let mut joiner = Initiator::new(b"p", Some(&invite)).expect("initiator");
    // A forger that saw the Hello but lacks the code can only send bytes that do not open.
    let mut junk = joiner.message().to_vec();
    junk.extend_from_slice(&[1; 16]);
    assert!(joiner.read_answer(&junk).is_err());
    let (answer, mut host) = Responder::read_hello(b"p", Some(&invite), joiner.message())
        .expect("opens")
        .answer(b"ok")
        .expect("answer");
    let mut flipped = answer.clone();
    flipped[40] ^= 1;
    assert!(joiner.read_answer(&flipped).is_err());
    assert_eq!(joiner.read_answer(&answer).expect("real answer"), b"ok");
    let mut joined = joiner.into_channel().expect("finished");
    let d = joined.seal(Inner::Ggrs, b"x").expect("seal");
    assert_eq!(host.open(&d), Ok((Inner::Ggrs, b"x".to_vec())));
}

#[test]
fn an_unfinished_handshake_has_no_channel() {
    let joiner = Initiator::new(b"p", None).expect("initiator");
    assert!(joiner.into_channel().is_err());
}

#[test]
fn a_payload_over_the_limit_is_not_sealed_and_a_datagram_over_it_not_opened() {
    let (mut a, mut b) = pair(b"p", None);
    assert!(a.seal(Inner::Ggrs, &vec![0; MAX_PAYLOAD as usize]).is_ok());
    assert_eq!(
        a.seal(Inner::Ggrs, &vec![0; MAX_PAYLOAD as usize + 1]),
        Err(SealError::Malformed)
    );
    let mut long = a
        .seal(Inner::Ggrs, &vec![0; MAX_PAYLOAD as usize])
        .expect("seal");
    long.push(0);
    assert_eq!(b.open(&long), Err(SealError::NotSealed));
}

#[test]
fn invite_codes_are_written_in_four_groups_and_read_back_in_any_case() {
    let c = InviteCode::from_bytes([0xff, 0, 0x12, 0x34, 0x56, 0x78, 0x9a, 0xbc, 0xde, 0xf0]);
    let text = c.to_string();
    assert_eq!(text.len(), 19);
    assert_eq!(text.matches('-').count(), 3);
    assert_eq!(InviteCode::parse(&text), Ok(c));
    assert_eq!(
        InviteCode::parse(&text.to_uppercase().replace('-', " ")),
        Ok(c)
    );
    assert_eq!(
        format!("{c:?}"),
        "InviteCode(…)",
        "a secret is not debug-printed"
    );
    let zero = InviteCode::from_bytes([0; InviteCode::BYTES]);
    assert_eq!(zero.to_string(), "aaaa-aaaa-aaaa-aaaa");
    let ones = InviteCode::from_bytes([0xff; InviteCode::BYTES]);
    assert_eq!(ones.to_string(), "9999-9999-9999-9999");
    assert!(InviteCode::parse("aaaa-aaaa-aaaa-aaa")
        .unwrap_err()
        .contains("15 characters"));
    assert!(InviteCode::parse("aaaa-aaaa-aaaa-aaaaa")
        .unwrap_err()
        .contains("too many"));
    assert!(InviteCode::parse("aaaa-aaaa-aaaa-aal0")
        .unwrap_err()
        .contains("'l'"));
    let a = InviteCode::random().expect("random");
    let b = InviteCode::random().expect("random");
    assert_ne!(a, b);
}

#[test]
fn an_invitation_is_an_address_and_perhaps_a_code() {
    let c = code(4);
    let text = format!("127.0.0.1:7000#{c}");
    assert_eq!(split_invitation(&text), Ok(("127.0.0.1:7000", Some(c))));
    assert_eq!(split_invitation("host:7000"), Ok(("host:7000", None)));
    assert!(split_invitation("host:7000#abc")
        .unwrap_err()
        .contains("`host:7000#abc`"));
}

#[test]
fn the_replay_window_accepts_each_counter_once_within_the_window() {
    let mut w = ReplayWindow::default();
    assert!(w.is_fresh(0));
    w.accept(0);
    assert!(!w.is_fresh(0));
    w.accept(5);
    assert!(w.is_fresh(1) && w.is_fresh(4) && !w.is_fresh(5));
    w.accept(5 + REPLAY_WINDOW - 1);
    assert!(!w.is_fresh(5), "still remembered at the window's edge");
    assert!(!w.is_fresh(4), "older than the window");
    assert!(w.is_fresh(6));
    w.accept(10 * REPLAY_WINDOW);
    assert!(!w.is_fresh(10 * REPLAY_WINDOW - REPLAY_WINDOW));
    assert!(w.is_fresh(10 * REPLAY_WINDOW - REPLAY_WINDOW + 1));
    assert!(w.is_fresh(u64::MAX));
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    /// The window agrees with a model that remembers every counter: a counter is fresh iff it
    /// was never accepted and is within the window below the highest one accepted.
    #[test]
    fn the_replay_window_matches_a_model_of_everything_seen(
        steps in proptest::collection::vec((0u64..3000, any::<bool>()), 1..400),
    ) {
        let mut w = ReplayWindow::default();
        let mut seen = BTreeSet::new();
        for (counter, accept) in steps {
            let highest = seen.iter().next_back().copied();
            let fresh = !seen.contains(&counter)
                && highest.is_none_or(|h| counter > h || h - counter < REPLAY_WINDOW);
            prop_assert_eq!(w.is_fresh(counter), fresh, "counter {}", counter);
            if accept && fresh {
                w.accept(counter);
                seen.insert(counter);
            }
        }
    }

    /// Written codes read back as themselves; any text parses or is refused, never panics.
    #[test]
    fn codes_round_trip_and_any_text_is_read_safely(
        bytes in any::<[u8; InviteCode::BYTES]>(),
        text in "\\PC{0,40}",
    ) {
        let c = InviteCode::from_bytes(bytes);
        prop_assert_eq!(InviteCode::parse(&c.to_string()), Ok(c));
        if let Ok(parsed) = InviteCode::parse(&text) {
            prop_assert_eq!(InviteCode::parse(&parsed.to_string()), Ok(parsed));
        }
    }

    /// Arbitrary bytes given to a channel as datagrams, and to a host as Hellos, never open
    /// and never disturb the real traffic.
    #[test]
    fn arbitrary_bytes_never_open(
        junk in proptest::collection::vec(proptest::collection::vec(any::<u8>(), 0..120), 1..20),
    ) {
        let (mut a, mut b) = pair(b"p", Some(&code(9)));
        for j in &junk {
            prop_assert!(b.open(j).is_err());
            prop_assert!(Responder::read_hello(b"p", Some(&code(9)), j).is_err());
        }
        let real = a.seal(Inner::Ggrs, b"real").expect("seal");
        prop_assert_eq!(b.open(&real), Ok((Inner::Ggrs, b"real".to_vec())));
    }
}
