//! The NAT lab: real matches between two `duel-cli` processes in two homes behind NAT routers,
//! with our signalling server and a TURN server (coturn) on a public net — all network
//! namespaces on this machine (`lab.rs`). Root only: elsewhere every test here is skipped with
//! a loud reason (`./run test` runs them as root, after installing iptables and coturn).
//!
//! Each test builds its own lab, so they run side by side; every process has a deadline.
//! `NAT_LAB_ATTEMPTS=N` makes the loss test try N matches per case and print the figures the
//! docs/online-rooms.md quotes (3 by default).

mod lab;

use lab::{lab_or_skip, Ended, Home, Nat, ROUTER_A, TURN_IP, TURN_PASSWORD, TURN_USER};

/// Ticks each match plays: enough to show both ends agree, short enough for CI.
const TICKS: &str = "120";

fn stun() -> Vec<String> {
    vec!["--ice".into(), format!("stun:{TURN_IP}:3478")]
}

fn turn(password: &str) -> Vec<String> {
    vec![
        "--ice".into(),
        format!("turn:{TURN_IP}:3478"),
        "--ice-user".into(),
        TURN_USER.into(),
        "--ice-password".into(),
        password.into(),
    ]
}

/// Both homes run `duel-cli online` in room `room` with `extra` options; returns A's and B's
/// ends.
fn online_match(lab: &lab::Lab, room: &str, extra: &[String]) -> (Ended, Ended) {
    let link = lab.room(room);
    let args = |seed: &'static str| {
        let mut args: Vec<String> = [
            "online",
            "--room",
            &link,
            "--ticks",
            TICKS,
            "--bot-seed",
            seed,
        ]
        .map(str::to_owned)
        .to_vec();
        args.extend_from_slice(extra);
        args
    };
    let (a, b) = (args("1"), args("2"));
    let a = lab.peer(
        Home::A,
        &format!("{room}-a"),
        &a.iter().map(String::as_str).collect::<Vec<_>>(),
    );
    let b = lab.peer(
        Home::B,
        &format!("{room}-b"),
        &b.iter().map(String::as_str).collect::<Vec<_>>(),
    );
    (a.wait(), b.wait())
}

/// Both ends played the whole match and agree on its final state.
fn assert_played(lab: &lab::Lab, a: &Ended, b: &Ended) {
    let dir = lab.dir().display();
    assert_eq!(
        a.code,
        Some(0),
        "home A did not finish (logs in {dir}):\n{}",
        a.output
    );
    assert_eq!(
        b.code,
        Some(0),
        "home B did not finish (logs in {dir}):\n{}",
        b.output
    );
    assert!(a.final_hash().is_some(), "{}", a.output);
    for end in [a, b] {
        assert!(
            !end.output.contains("panicked"),
            "a panic reached the user:\n{}",
            end.output
        );
    }
    assert_eq!(
        a.final_hash(),
        b.final_hash(),
        "the two ends disagree:\n{}\n{}",
        a.output,
        b.output
    );
}

/// The number that follows the first `prefix` in `output` ("tried 3 times", "(waited 20 s").
fn number_after(output: &str, prefix: &str) -> Option<u32> {
    let rest = output.split(prefix).nth(1)?;
    rest.split_whitespace().next()?.parse().ok()
}

/// Both ends failed, each saying `says`.
fn assert_both_say(lab: &lab::Lab, a: &Ended, b: &Ended, says: &str) {
    for (home, end) in [("A", a), ("B", b)] {
        assert_eq!(
            end.code,
            Some(1),
            "home {home} (logs in {}):\n{}",
            lab.dir().display(),
            end.output
        );
        assert!(
            end.output.contains(says),
            "home {home} should say {says:?}:\n{}",
            end.output
        );
        assert!(
            !end.output.contains("panicked"),
            "a panic reached the user:\n{}",
            end.output
        );
    }
}

#[test]
fn cone_nats_are_crossed_with_stun() {
    let lab = lab_or_skip!("cone-stun", Nat::Cone, Nat::Cone);
    let (a, b) = online_match(&lab, "cone", &stun());
    assert_played(&lab, &a, &b);
    assert_eq!(a.entries(), Some(1), "{}", a.output);
}

#[test]
fn symmetric_nats_are_crossed_with_turn() {
    let lab = lab_or_skip!("symmetric-turn", Nat::Symmetric, Nat::Symmetric);
    let (a, b) = online_match(&lab, "relay", &turn(TURN_PASSWORD));
    assert_played(&lab, &a, &b);
}

/// STUN cannot cross a symmetric NAT: both players are told so, and that TURN is the fix —
/// before the deadline is up (two entries found no path: about 22 s on an idle machine; the
/// deadline is 60 s so that a loaded one still shows the early end).
#[test]
fn symmetric_nats_with_stun_only_name_the_symmetric_nat() {
    let lab = lab_or_skip!("symmetric-stun", Nat::Symmetric, Nat::Symmetric);
    let mut extra = stun();
    extra.extend(["--handshake-timeout".into(), "60".into()]);
    let (a, b) = online_match(&lab, "nopath", &extra);
    assert_both_say(&lab, &a, &b, "behind a symmetric NAT");
    assert_both_say(&lab, &a, &b, "--ice turn:");
    for end in [&a, &b] {
        let waited = number_after(&end.output, "(waited ");
        assert!(
            waited.is_some_and(|s| s < 60),
            "gave up only at the deadline:\n{}",
            end.output
        );
    }
}

#[test]
fn a_wrong_turn_password_is_named() {
    let lab = lab_or_skip!("turn-refused", Nat::Symmetric, Nat::Symmetric);
    let (a, b) = online_match(&lab, "refused", &turn("not-the-password"));
    assert_both_say(&lab, &a, &b, "the TURN server refused our credentials");
    assert_both_say(&lab, &a, &b, "401");
}

/// A TURN server that does not answer (nothing listens on the port given): asked directly,
/// it stays silent, and both players are told so.
#[test]
fn a_silent_turn_server_is_named() {
    let lab = lab_or_skip!("turn-silent", Nat::Symmetric, Nat::Symmetric);
    let extra: Vec<String> = turn(TURN_PASSWORD)
        .into_iter()
        .map(|a| a.replace(":3478", ":3479"))
        .collect();
    let (a, b) = online_match(&lab, "silent", &extra);
    assert_both_say(&lab, &a, &b, "the TURN server did not answer");
}

/// A STUN server that does not answer: no public address came back, and that is what both
/// players read (not "symmetric NAT").
#[test]
fn a_silent_stun_server_is_named() {
    let lab = lab_or_skip!("stun-silent", Nat::Cone, Nat::Cone);
    let extra = vec!["--ice".into(), format!("stun:{TURN_IP}:3479")];
    let (a, b) = online_match(&lab, "nostun", &extra);
    assert_both_say(&lab, &a, &b, "no STUN server told us our public address");
}

#[test]
fn without_any_ice_server_the_fix_is_named() {
    let lab = lab_or_skip!("no-ice", Nat::Cone, Nat::Cone);
    let (a, b) = online_match(&lab, "lan-only", &["--no-ice".into()]);
    assert_both_say(
        &lab,
        &a,
        &b,
        "with no STUN server only addresses on the players' own networks",
    );
}

/// A LAN with no router (no default route anywhere): webrtc-rs's mDNS could not start there
/// and matchbox panicked; our build does without mDNS, and the room connects.
#[test]
fn a_room_on_a_lan_without_a_default_route_connects() {
    if let Some(why) = lab::unavailable() {
        eprintln!("\n*** NAT LAB SKIPPED (flat LAN): {why} ***\n");
        return;
    }
    let lab = lab::Lab::flat_lan("flat-lan");
    let (a, b) = online_match(&lab, "lan", &["--no-ice".into()]);
    assert_played(&lab, &a, &b);
}

#[test]
fn nobody_in_the_room_is_named() {
    let lab = lab_or_skip!("alone", Nat::Cone, Nat::Cone);
    let link = lab.room("alone");
    let alone = lab
        .peer(
            Home::A,
            "alone",
            &["online", "--room", &link, "--handshake-timeout", "3"],
        )
        .wait();
    assert_eq!(alone.code, Some(1), "{}", alone.output);
    assert!(
        alone.output.contains("nobody else came to the room")
            && alone.output.contains("waited 3 s"),
        "{}",
        alone.output
    );
}

/// Hosting over plain UDP behind a router works only with a port forward: without one, each
/// side is told what to forward; with one, the match is played.
#[test]
fn udp_hosting_needs_a_port_forward() {
    let lab = lab_or_skip!("udp", Nat::Cone, Nat::Cone);
    let host_at = format!("{}:7000", lab::HOME_A);
    let public = format!("{ROUTER_A}:7000");
    // Without a forward both sides must wait their whole timeout, so it is short there; with
    // one the match must not depend on how fast a loaded machine starts the second process.
    let run = |tag: &str, timeout: &str| {
        let opts = ["--handshake-timeout", timeout, "--ticks", TICKS];
        let mut host = lab.peer(
            Home::A,
            &format!("host-{tag}"),
            &[&["host", "--bind", &host_at], &opts[..]].concat(),
        );
        // A joiner that came first would be refused at once: nothing would listen yet.
        host.await_line("listening on");
        let join = lab.peer(
            Home::B,
            &format!("join-{tag}"),
            &[&["join", &public], &opts[..]].concat(),
        );
        (host.wait(), join.wait())
    };
    let (host, join) = run("closed", "4");
    assert_eq!(host.code, Some(1), "{}", host.output);
    assert!(
        host.output.contains("forwards UDP port 7000"),
        "{}",
        host.output
    );
    assert_eq!(join.code, Some(1), "{}", join.output);
    assert!(
        join.output.contains("forward UDP port 7000"),
        "{}",
        join.output
    );

    lab.forward_port_to_a(7000);
    let (host, join) = run("forwarded", "30");
    assert_played(&lab, &host, &join);
}

/// One DTLS ServerHello lost on the way: webrtc-rs 0.21 never resent it and the match was
/// lost; with our patch (`vendor/rtc-dtls`) it is resent a second later, in the same entry.
#[test]
fn one_lost_server_hello_costs_a_second_not_the_match() {
    let lab = lab_or_skip!("lost-hello", Nat::Cone, Nat::Cone);
    lab.lose_one_server_hello();
    let (a, b) = online_match(&lab, "hello", &stun());
    assert_played(&lab, &a, &b);
    assert_eq!(a.entries(), Some(1), "{}", a.output);
}

/// A negotiation whose encrypted channel never opens (every ServerHello of that connection
/// lost) is abandoned and the room entered again; the next negotiation opens.
#[test]
fn a_negotiation_that_stalls_is_tried_again() {
    let lab = lab_or_skip!("stall", Nat::Cone, Nat::Cone);
    lab.doom_first_dtls_flow();
    let (a, b) = online_match(&lab, "stall", &stun());
    assert_played(&lab, &a, &b);
    let entries = a.entries().max(b.entries());
    assert_eq!(
        entries,
        Some(2),
        "one side entered again:\n{}\n{}",
        a.output,
        b.output
    );
}

#[test]
fn a_channel_that_never_opens_is_named_with_its_tries() {
    let lab = lab_or_skip!("no-channel", Nat::Cone, Nat::Cone);
    lab.lose_every_server_hello();
    let mut extra = stun();
    extra.extend(["--handshake-timeout".into(), "24".into()]);
    let (a, b) = online_match(&lab, "nochannel", &extra);
    assert_both_say(&lab, &a, &b, "the encrypted channel over it never opened");
    // A path about a second after each entry, then 5 s for the channel: within 24 s at least
    // two negotiations even on a loaded machine (about 12 s for two on an idle one), which both
    // sides count, whichever side entered again.
    for end in [&a, &b] {
        let tries = number_after(&end.output, "tried ");
        assert!(tries.is_some_and(|n| n >= 2), "{}", end.output);
    }
}

/// Matches set up through routers that each lose 3 % of the datagrams: every attempt connects
/// and plays (cone + STUN and symmetric + TURN). With `NAT_LAB_ATTEMPTS=N`, N attempts per
/// case and the figures printed.
#[test]
fn setup_under_loss_connects() {
    let attempts: u32 = std::env::var("NAT_LAB_ATTEMPTS")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(3);
    for (case, nat, ice) in [
        ("cone-stun", Nat::Cone, stun()),
        ("symmetric-turn", Nat::Symmetric, turn(TURN_PASSWORD)),
    ] {
        let lab = lab_or_skip!(case, nat, nat);
        lab.lose(3);
        let mut seconds = Vec::new();
        let mut retried = 0;
        for n in 0..attempts {
            let (a, b) = online_match(&lab, &format!("loss{n}"), &ice);
            assert_played(&lab, &a, &b);
            seconds.extend(
                [a.seconds_to_tick_0(), b.seconds_to_tick_0()]
                    .into_iter()
                    .flatten(),
            );
            retried += u32::from(a.entries().max(b.entries()) > Some(1));
        }
        seconds.sort_by(f64::total_cmp);
        let at = |q: f64| seconds[((seconds.len() - 1) as f64 * q).round() as usize];
        eprintln!(
            "NAT lab, 3 % loss per router, {case}: {attempts}/{attempts} connected, {retried} \
             after entering again; time to tick 0: median {:.2} s, p90 {:.2} s, max {:.2} s",
            at(0.5),
            at(0.9),
            at(1.0)
        );
    }
}
