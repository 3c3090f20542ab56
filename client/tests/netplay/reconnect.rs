//! A link that goes dark mid-match: within the reconnect grace both sides wait (frozen, not
//! frozen out), follow the joiner to the new port its NAT gave it, and finish identically;
//! past the grace both end saying why, with every confirmed tick kept.

use crate::common::*;
use client::logs::matchlog::read_log;
use client::net::conditioner::ConditionerConfig;
use client::net::transport::{Transport, UdpTransport};
use client::net::wire::Role;
use client::runs::NetRunSummary;
use client::session::netplay::NetConfig;
use engine::World;
use std::net::SocketAddr;
use std::path::Path;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// One failure of the link both peers share: once `after` datagrams have crossed it (either
/// way), nothing crosses for `lasts`.
#[derive(Clone)]
struct Blackout(Arc<Mutex<Cut>>);

struct Cut {
    crossed: u64,
    after: u64,
    lasts: Duration,
    began: Option<Instant>,
}

impl Blackout {
    fn new(after: u64, lasts: Duration) -> Blackout {
        Blackout(Arc::new(Mutex::new(Cut {
            crossed: 0,
            after,
            lasts,
            began: None,
        })))
    }

    /// Whether a datagram crossing now is lost (counting it if the link is up).
    fn swallows(&self) -> bool {
        let mut cut = self.0.lock().expect("blackout");
        if let Some(began) = cut.began {
            return began.elapsed() < cut.lasts;
        }
        cut.crossed += 1;
        if cut.crossed > cut.after {
            cut.began = Some(Instant::now());
        }
        cut.began.is_some()
    }

    fn over(&self) -> bool {
        let cut = self.0.lock().expect("blackout");
        cut.began.is_some_and(|b| b.elapsed() >= cut.lasts)
    }
}

/// A loopback socket behind the blackout; `rebinds` once it is over, as a home router that
/// restarted maps the player to a new port.
struct DarkLink {
    udp: UdpTransport,
    blackout: Blackout,
    rebinds: bool,
}

impl DarkLink {
    fn shared(blackout: &Blackout, rebinds: bool) -> client::net::socket::SharedLink {
        let udp = UdpTransport::bind(loopback()).expect("bind");
        let link = DarkLink {
            udp,
            blackout: blackout.clone(),
            rebinds,
        };
        wrap(link, ConditionerConfig::default())
    }

    fn rebind_once_over(&mut self) {
        if self.rebinds && self.blackout.over() {
            self.udp = UdpTransport::bind(loopback()).expect("rebind");
            self.rebinds = false;
        }
    }
}

fn loopback() -> SocketAddr {
    "127.0.0.1:0".parse().expect("addr")
}

impl Transport for DarkLink {
    fn send(&mut self, bytes: &[u8], to: SocketAddr) {
        self.rebind_once_over();
        if !self.blackout.swallows() {
            self.udp.send(bytes, to);
        }
    }

    fn recv(&mut self, buf: &mut [u8]) -> Option<(usize, SocketAddr)> {
        self.rebind_once_over();
        loop {
            let got = self.udp.recv(buf)?;
            if !self.blackout.swallows() {
                return Some(got);
            }
        }
    }

    fn local_addr(&self) -> SocketAddr {
        self.udp.local_addr()
    }
}

/// The default reconnect grace (30 s), generous handshake and sync waits for a loaded machine.
fn grace_config() -> NetConfig<World> {
    NetConfig::<World> {
        disconnect_timeout: NetConfig::<World>::default().disconnect_timeout,
        disconnect_notify: NetConfig::<World>::default().disconnect_notify,
        ..test_config(ConditionerConfig::default())
    }
}

/// Host and joiner through one blackout; the joiner comes back on a new port.
fn play_through(blackout: &Blackout, ticks: u32, dir: &Path) -> [NetRunSummary; 2] {
    let paths = ["host", "joiner"].map(|who| {
        let mut plan = plan(ticks, 7, &dir.join(format!("{who}.log")));
        plan.match_log = Some(dir.join(format!("{who}.duel")));
        plan
    });
    let [host_plan, joiner_plan] = paths;
    let (b1, b2) = (blackout.clone(), blackout.clone());
    let (addr, host) = spawn_host(
        move || DarkLink::shared(&b1, false),
        grace_config(),
        host_plan,
    );
    let joiner = spawn_joiner(
        move || DarkLink::shared(&b2, true),
        addr,
        Role::Player,
        grace_config(),
        joiner_plan,
    );
    let joiner = joiner.join().expect("joiner thread");
    let host = host.join().expect("host thread");
    [
        host.expect("the host ends without an error"),
        joiner.expect("the joiner ends without an error"),
    ]
}

/// The match log at `path` verifies through every tick its player reached.
fn assert_log_verifies(path: &Path, ticks: u32) {
    let log = read_log::<engine::World>(path).expect("the match log reads");
    let report = client::logs::replay::verify(&log, None).expect("the match log verifies");
    assert_eq!(report.ticks, ticks, "{}", path.display());
}

#[test]
fn a_five_second_blackout_is_waited_out_and_the_match_finishes_identically() {
    let dir = scratch_dir("blackout-5s");
    let blackout = Blackout::new(2400, Duration::from_secs(5));
    let [host, joiner] = play_through(&blackout, 900, &dir);
    println!("host: {host}\njoiner: {joiner}");
    assert!(blackout.over(), "the link went dark");
    for side in [&host, &joiner] {
        assert_eq!(side.disconnected, None, "nobody gave up: {side}");
        assert!(side.clean_finish, "{side}");
        // One outage is the blackout; a busy machine (two cores building while the test runs)
        // can starve a peer into a short pause of its own, which is also waited out.
        let long: Vec<_> = side
            .outages
            .iter()
            .filter(|o| o.silent >= Duration::from_secs(4))
            .collect();
        assert_eq!(long.len(), 1, "{side:?}");
        assert!(long[0].tick > 0 && long[0].tick < 900, "{:?}", long[0]);
    }
    assert_eq!(
        host.socket.path_changes, 1,
        "the host followed the new port"
    );
    assert_eq!(joiner.socket.path_changes, 0, "the host never moved");
    assert_logs_identical(&[&dir.join("host.log"), &dir.join("joiner.log")], 900);
    assert_eq!(host.final_hash, joiner.final_hash);
    for who in ["host", "joiner"] {
        assert_log_verifies(&dir.join(format!("{who}.duel")), 900);
    }
}

#[test]
fn a_blackout_longer_than_the_grace_ends_the_match_for_both_saying_so() {
    let dir = scratch_dir("blackout-60s");
    // 60 s of darkness against the default 30 s grace (and a 10 s freeze watchdog that must
    // not fire while the peer is merely silent).
    let blackout = Blackout::new(2400, Duration::from_secs(60));
    let [host, joiner] = play_through(&blackout, 3600, &dir);
    println!("host: {host}\njoiner: {joiner}");
    assert!(!blackout.over(), "both ended inside the blackout");
    for (side, who) in [(&host, "host"), (&joiner, "joiner")] {
        assert!(side.disconnected.is_some(), "{side}");
        let reason = side.disconnect_reason.as_deref().unwrap_or_default();
        assert!(
            reason.contains("silent for 30 s, the whole reconnect grace"),
            "{reason}"
        );
        assert!(side.outages.is_empty(), "{side:?}");
        assert!(side.ticks > 0 && side.ticks < 3600, "{side}");
        // Nothing confirmed is lost: the hash log and the match log hold every final tick.
        let log = dir.join(format!("{who}.log"));
        assert_eq!(entries(&log).len() as u32, side.ticks, "{}", log.display());
        assert_log_verifies(&dir.join(format!("{who}.duel")), side.ticks);
    }
    // What both confirmed agrees.
    let (h, j) = (
        entries(&dir.join("host.log")),
        entries(&dir.join("joiner.log")),
    );
    let common = h.len().min(j.len());
    assert_eq!(h[..common], j[..common]);
}
