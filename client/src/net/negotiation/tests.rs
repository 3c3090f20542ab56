use super::*;
use proptest::prelude::*;

fn peer(n: u128) -> PeerId {
    serde_json::from_str(&format!("\"{:032x}\"", n)).expect("a uuid")
}

const A: u128 = 1;
const B: u128 = 2;
const C: u128 = 3;

fn kinds(host: bool, public: bool, relay: bool) -> CandidateKinds {
    CandidateKinds {
        host,
        public,
        relay,
    }
}

#[test]
fn candidate_kinds_are_read_from_candidates_and_descriptions() {
    let json =
        r#"{"candidate":"candidate:1 1 udp 2130706431 192.168.1.2 40000 typ host","sdpMid":"0"}"#;
    assert_eq!(CandidateKinds::in_text(json), kinds(true, false, false));
    let srflx = "candidate:2 1 udp 1694498815 203.0.113.2 40000 typ srflx raddr 0.0.0.0 rport 0";
    assert_eq!(CandidateKinds::in_text(srflx), kinds(false, true, false));
    let sdp =
        "v=0\r\na=candidate:3 1 udp 16777215 198.51.100.20 5000 typ relay raddr 1 rport 2\r\n\
               a=candidate:4 1 udp 1 10.0.0.1 9 typ prflx\r\n";
    assert_eq!(CandidateKinds::in_text(sdp), kinds(false, true, true));
    for nothing in ["", "typ", "typ typ", "candidate:1 typ unknown", "type host"] {
        assert_eq!(
            CandidateKinds::in_text(nothing),
            CandidateKinds::default(),
            "{nothing:?}"
        );
    }
}

/// The side that accepted the offer abandons a negotiation that found no path after
/// PATH_WAIT; the side that offered only after its grace, so that normally one side moves.
#[test]
fn a_negotiation_without_a_path_stalls_first_on_the_accepting_side() {
    let t0 = Instant::now();
    let mut accepting = Negotiations::new();
    accepting.note_signal(SignalNote::From(peer(A), kinds(true, false, false)), t0);
    let mut offering = Negotiations::new();
    offering.note_signal(SignalNote::NewPeer(peer(B)), t0);
    let just_before = t0 + PATH_WAIT - Duration::from_millis(1);
    assert_eq!(accepting.stalled(just_before), None);
    assert_eq!(
        accepting.stalled(t0 + PATH_WAIT),
        Some(Stall {
            peer: peer(A),
            stage: Stage::Met
        })
    );
    assert_eq!(offering.stalled(t0 + PATH_WAIT), None);
    assert_eq!(
        offering.stalled(t0 + PATH_WAIT + OFFERER_GRACE),
        Some(Stall {
            peer: peer(B),
            stage: Stage::Met
        })
    );
}

/// Once ICE found a path, the channels get OPEN_WAIT from that moment; open channels never
/// stall; a reported failure stalls at once.
#[test]
fn the_wait_counts_from_the_last_progress() {
    let t0 = Instant::now();
    let mut n = Negotiations::new();
    n.note_signal(SignalNote::From(peer(A), CandidateKinds::default()), t0);
    let path_at = t0 + Duration::from_secs(7);
    n.note_progress(peer(A), NegotiationEvent::IceConnected, path_at);
    assert_eq!(n.stalled(t0 + PATH_WAIT), None, "a path was found");
    assert_eq!(
        n.stalled(path_at + OPEN_WAIT - Duration::from_millis(1)),
        None
    );
    assert_eq!(
        n.stalled(path_at + OPEN_WAIT).map(|s| s.stage),
        Some(Stage::Path)
    );
    n.note_progress(peer(A), NegotiationEvent::Connected, path_at + OPEN_WAIT);
    assert_eq!(
        n.stalled(path_at + OPEN_WAIT + OPEN_WAIT).map(|s| s.stage),
        Some(Stage::Secure)
    );
    n.note_open(peer(A), path_at + OPEN_WAIT);
    assert_eq!(n.stalled(path_at + Duration::from_secs(3600)), None);

    let mut failed = Negotiations::new();
    failed.note_signal(SignalNote::From(peer(B), CandidateKinds::default()), t0);
    failed.note_progress(peer(B), NegotiationEvent::IceFailed, t0);
    assert_eq!(failed.stalled(t0).map(|s| s.peer), Some(peer(B)));
}

/// A connection that closes while its peer stays in the room is a negotiation to do again:
/// it stalls at once on the accepting side (after the grace on the offering side), though the
/// room did reach open channels once; opening again clears it.
#[test]
fn a_connection_that_closes_before_the_room_settles_stalls() {
    let t0 = Instant::now();
    let mut n = Negotiations::new();
    n.note_signal(SignalNote::From(peer(A), CandidateKinds::default()), t0);
    n.note_open(peer(A), t0);
    assert_eq!(n.stalled(t0 + Duration::from_secs(3600)), None);
    let closed = t0 + Duration::from_secs(2);
    n.note_closed(peer(A), closed);
    assert_eq!(
        n.stalled(closed),
        Some(Stall {
            peer: peer(A),
            stage: Stage::Secure
        })
    );
    n.note_open(peer(A), closed);
    assert_eq!(n.stalled(closed + Duration::from_secs(3600)), None);

    let mut offering = Negotiations::new();
    offering.note_signal(SignalNote::NewPeer(peer(B)), t0);
    offering.note_open(peer(B), t0);
    offering.note_closed(peer(B), closed);
    assert_eq!(
        offering.stalled(closed + OFFERER_GRACE - Duration::from_millis(1)),
        None
    );
    assert!(offering.stalled(closed + OFFERER_GRACE).is_some());
    // Closing what was never met changes nothing.
    offering.note_closed(peer(A), closed);
    assert_eq!(offering.failure(STUN, None), RoomFailure::NobodyToPlayWith);
}

/// The WebRTC stack reports on a peer a moment after the signalling server said it left (its
/// DTLS finishing as it closes, its channels closing): that late news neither begins the
/// negotiation again nor makes it stall (in the lab it made the side that offered enter the
/// room again too, and both sides kept missing each other).
#[test]
fn late_news_of_a_peer_that_left_is_ignored() {
    let t0 = Instant::now();
    let mut n = Negotiations::new();
    n.note_signal(SignalNote::NewPeer(peer(A)), t0);
    n.note_progress(peer(A), NegotiationEvent::IceConnected, t0);
    n.note_signal(SignalNote::PeerLeft(peer(A)), t0);
    n.note_progress(peer(A), NegotiationEvent::Connected, t0);
    n.note_open(peer(A), t0);
    n.note_closed(peer(A), t0);
    assert_eq!(n.stalled(t0 + Duration::from_secs(3600)), None);
    assert_eq!(
        n.failure(STUN, None),
        RoomFailure::ChannelNeverOpened { tries: 1 }
    );
    // News of a peer never introduced at all is ignored the same way.
    n.note_progress(peer(B), NegotiationEvent::IceFailed, t0);
    n.note_open(peer(B), t0);
    assert_eq!(n.stalled(t0 + Duration::from_secs(3600)), None);
}

/// A peer that left is no negotiation to wait for (the other side entering again is not our
/// stall); an entry again starts with none.
#[test]
fn a_peer_that_left_is_forgotten_and_reentry_starts_afresh() {
    let t0 = Instant::now();
    let mut n = Negotiations::new();
    n.note_signal(SignalNote::NewPeer(peer(A)), t0);
    n.note_signal(SignalNote::PeerLeft(peer(A)), t0);
    assert_eq!(n.stalled(t0 + Duration::from_secs(3600)), None);
    n.note_signal(SignalNote::From(peer(B), CandidateKinds::default()), t0);
    let stall = n.stalled(t0 + PATH_WAIT).expect("stalled");
    n.reenter(stall);
    assert_eq!(n.entries(), 2);
    assert_eq!(n.stalled(t0 + Duration::from_secs(3600)), None);
}

/// Signals relayed after the server said a peer left begin no phantom negotiation (in the NAT
/// lab one stalled 4 s later, on its failure report, and counted as a second entry without a
/// path: the room gave up at 14 s while the other side waited out its deadline).
#[test]
fn signals_of_a_peer_that_left_begin_nothing() {
    let t0 = Instant::now();
    let mut n = Negotiations::new();
    n.note_signal(SignalNote::NewPeer(peer(A)), t0);
    n.note_signal(SignalNote::PeerLeft(peer(A)), t0);
    n.note_signal(SignalNote::To(peer(A), kinds(true, true, false)), t0);
    n.note_signal(SignalNote::From(peer(A), kinds(true, true, false)), t0);
    n.note_signal(SignalNote::NewPeer(peer(A)), t0);
    n.note_progress(peer(A), NegotiationEvent::IceFailed, t0);
    assert!(n.is_gone(peer(A)));
    assert_eq!(n.stalled(t0 + Duration::from_secs(3600)), None);
    assert_eq!(n.begun, 1);
}

/// Entering again, our former entry is still in the room for a moment and offers to our new
/// self: forgotten, it is no peer to negotiate with (it was, and its failure counted as
/// another entry without a path).
#[test]
fn our_former_entry_is_no_peer() {
    let t0 = Instant::now();
    let mut n = Negotiations::new();
    n.note_signal(SignalNote::From(peer(B), CandidateKinds::default()), t0);
    let stall = n.stalled(t0 + PATH_WAIT).expect("stalled");
    n.reenter(stall);
    n.forget(peer(C));
    n.note_signal(
        SignalNote::From(peer(C), kinds(true, true, false)),
        t0 + PATH_WAIT,
    );
    n.note_progress(peer(C), NegotiationEvent::Failed, t0 + PATH_WAIT);
    assert_eq!(n.stalled(t0 + PATH_WAIT * 3), None);
    assert!(!n.hopeless());
}

/// Only the newest gone peers are kept, and each once.
#[test]
fn the_gone_list_is_bounded() {
    let mut n = Negotiations::new();
    for p in 0..(GONE_KEPT as u128 + 10) {
        n.forget(peer(p));
        n.forget(peer(p));
    }
    assert_eq!(n.gone.len(), GONE_KEPT);
    assert!(!n.is_gone(peer(0)) && n.is_gone(peer(GONE_KEPT as u128 + 9)));
}

#[test]
fn two_entries_without_a_path_are_hopeless_unless_a_path_was_ever_found() {
    let t0 = Instant::now();
    let mut n = Negotiations::new();
    for entry in 0..NO_PATH_ENTRIES {
        assert!(!n.hopeless(), "entry {entry}");
        n.note_signal(SignalNote::From(peer(A), CandidateKinds::default()), t0);
        n.reenter(n.stalled(t0 + PATH_WAIT).expect("stalled"));
    }
    assert!(n.hopeless());

    // The side that offered sees the other give up and enter again: the same news.
    let mut offering = Negotiations::new();
    for entry in 0..NO_PATH_ENTRIES {
        assert!(!offering.hopeless(), "entry {entry}");
        offering.note_signal(SignalNote::NewPeer(peer(u128::from(entry))), t0);
        let left = t0 + PATH_WAIT;
        offering.note_signal(SignalNote::PeerLeft(peer(u128::from(entry))), left);
        assert_eq!(offering.entries(), 1, "we did not enter again");
    }
    assert!(offering.hopeless());
    // A peer that leaves at once (refused, or gone) is no such news.
    let mut quick = Negotiations::new();
    for entry in 0..NO_PATH_ENTRIES * 2 {
        quick.note_signal(SignalNote::NewPeer(peer(u128::from(entry))), t0);
        quick.note_signal(
            SignalNote::PeerLeft(peer(u128::from(entry))),
            t0 + PATH_WAIT / 3,
        );
    }
    assert!(!quick.hopeless());

    let mut found = Negotiations::new();
    found.note_signal(SignalNote::From(peer(A), CandidateKinds::default()), t0);
    found.note_progress(peer(A), NegotiationEvent::IceConnected, t0);
    found.reenter(found.stalled(t0 + OPEN_WAIT).expect("stalled"));
    for _ in 0..NO_PATH_ENTRIES {
        found.note_signal(SignalNote::From(peer(B), CandidateKinds::default()), t0);
        found.reenter(found.stalled(t0 + PATH_WAIT).expect("stalled"));
    }
    assert!(
        !found.hopeless(),
        "a path was found once: the loss may pass"
    );
}

const NONE: IceGiven = IceGiven {
    stun: false,
    turn: false,
};
const STUN: IceGiven = IceGiven {
    stun: true,
    turn: false,
};
const TURN: IceGiven = IceGiven {
    stun: false,
    turn: true,
};

/// Each failure is named from what was seen: the stage reached, then the candidates.
#[test]
fn the_failure_names_the_stage_and_the_cause() {
    let t0 = Instant::now();
    let met = |local: CandidateKinds, remote: CandidateKinds| {
        let mut n = Negotiations::new();
        n.note_signal(SignalNote::From(peer(A), remote), t0);
        n.note_signal(SignalNote::To(peer(A), local), t0);
        n
    };
    let host = kinds(true, false, false);
    let public = kinds(true, true, false);
    let relay = kinds(true, true, true);
    let no_path = |cause| RoomFailure::NoPath(cause);
    assert_eq!(Negotiations::new().failure(STUN, None), RoomFailure::NoPeer);
    assert_eq!(
        met(host, host).failure(NONE, None),
        no_path(NoPathCause::NoIceServers)
    );
    assert_eq!(
        met(host, public).failure(STUN, None),
        no_path(NoPathCause::StunSilent)
    );
    assert_eq!(
        met(public, public).failure(STUN, None),
        no_path(NoPathCause::SymmetricNat)
    );
    let refused = TurnAnswer::Refused("401 Unauthorized".into());
    assert!(met(public, public).needs_turn_probe(TURN));
    assert!(!met(relay, public).needs_turn_probe(TURN));
    assert!(!met(public, public).needs_turn_probe(STUN));
    assert_eq!(
        met(public, public).failure(TURN, Some(refused)),
        no_path(NoPathCause::TurnRefused("401 Unauthorized".into()))
    );
    assert_eq!(
        met(public, public).failure(TURN, Some(TurnAnswer::Silent)),
        no_path(NoPathCause::TurnSilent)
    );
    assert_eq!(
        met(relay, relay).failure(TURN, None),
        no_path(NoPathCause::RelayFailed)
    );
    assert_eq!(
        met(public, relay).failure(STUN, None),
        no_path(NoPathCause::RelayFailed),
        "the other player's relay did not reach us"
    );

    let mut secure = met(public, public);
    secure.note_progress(peer(A), NegotiationEvent::IceConnected, t0);
    assert_eq!(
        secure.failure(STUN, None),
        RoomFailure::ChannelNeverOpened { tries: 1 }
    );
    secure.reenter(secure.stalled(t0 + OPEN_WAIT).expect("stalled"));
    // Our entry again, and the other side's (a new id offering to us): each a negotiation.
    secure.note_signal(SignalNote::From(peer(B), public), t0);
    secure.note_signal(SignalNote::PeerLeft(peer(B)), t0);
    secure.note_signal(SignalNote::From(peer(3), public), t0);
    assert_eq!(
        secure.failure(STUN, None),
        RoomFailure::ChannelNeverOpened { tries: 3 }
    );
    let mut open = met(public, public);
    open.note_open(peer(A), t0);
    assert_eq!(open.failure(STUN, None), RoomFailure::NobodyToPlayWith);
}

/// Every message says what to do about it.
#[test]
fn every_failure_says_the_fix() {
    for (failure, says) in [
        (RoomFailure::NoPeer, "room link"),
        (RoomFailure::NobodyToPlayWith, "spectators"),
        (
            RoomFailure::NoPath(NoPathCause::NoIceServers),
            "--ice stun:",
        ),
        (RoomFailure::NoPath(NoPathCause::StunSilent), "check --ice"),
        (
            RoomFailure::NoPath(NoPathCause::SymmetricNat),
            "--ice turn:",
        ),
        (
            RoomFailure::NoPath(NoPathCause::TurnRefused("x".into())),
            "--ice-password",
        ),
        (RoomFailure::NoPath(NoPathCause::TurnSilent), "UDP port"),
        (
            RoomFailure::NoPath(NoPathCause::RelayFailed),
            "relay's ports",
        ),
        (
            RoomFailure::ChannelNeverOpened { tries: 3 },
            "tried 3 times",
        ),
    ] {
        let text = failure.to_string();
        assert!(text.contains(says), "{text}");
    }
}

#[derive(Debug, Clone)]
enum Step {
    Signal(u8, u8),
    Progress(u8, u8),
    Open(u8),
    Closed(u8),
    Wait(u16),
    Reenter,
}

fn step() -> impl Strategy<Value = Step> {
    prop_oneof![
        (0u8..4, 0u8..3).prop_map(|(k, p)| Step::Signal(k, p)),
        (0u8..4, 0u8..3).prop_map(|(e, p)| Step::Progress(e, p)),
        (0u8..3).prop_map(Step::Open),
        (0u8..3).prop_map(Step::Closed),
        (0u16..20_000).prop_map(Step::Wait),
        Just(Step::Reenter),
    ]
}

proptest! {
    /// Any order of reports (out of order, for peers never introduced, after they left) is
    /// taken without a panic; a stall names a peer of this entry that is not open; the best
    /// stage never goes back; and a room where some channel opened is never hopeless.
    #[test]
    fn any_reports_are_taken(steps in proptest::collection::vec(step(), 0..60)) {
        let mut n = Negotiations::new();
        let mut now = Instant::now();
        let mut best = None;
        for step in steps {
            match step {
                Step::Signal(kind, p) => {
                    let p = peer(u128::from(p));
                    let note = match kind {
                        0 => SignalNote::NewPeer(p),
                        1 => SignalNote::PeerLeft(p),
                        2 => SignalNote::From(p, kinds(true, kind % 2 == 0, false)),
                        _ => SignalNote::To(p, kinds(true, true, true)),
                    };
                    n.note_signal(note, now);
                }
                Step::Progress(event, p) => {
                    let event = [
                        NegotiationEvent::IceConnected,
                        NegotiationEvent::IceFailed,
                        NegotiationEvent::Connected,
                        NegotiationEvent::Failed,
                    ][usize::from(event)];
                    n.note_progress(peer(u128::from(p)), event, now);
                }
                Step::Open(p) => n.note_open(peer(u128::from(p)), now),
                Step::Closed(p) => n.note_closed(peer(u128::from(p)), now),
                Step::Wait(ms) => now += Duration::from_millis(u64::from(ms)),
                Step::Reenter => {
                    if let Some(stall) = n.stalled(now) {
                        n.reenter(stall);
                    }
                }
            }
            prop_assert!(n.best >= best);
            best = n.best;
            if let Some(stall) = n.stalled(now) {
                prop_assert!(stall.stage < Stage::Open);
                prop_assert!(n.current.iter().any(|c| c.peer == stall.peer));
            }
            if n.best == Some(Stage::Open) {
                prop_assert!(!n.hopeless());
            }
            let _ = n.failure(STUN, None).to_string();
        }
    }
}
