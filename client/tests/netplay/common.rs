//! Helpers: peers in threads, conditioned links, log comparison.

use client::logs::hashlog::{read_hash_log, HashLogEntry};
use client::net::conditioner::{ConditionerConfig, LinkConditioner};
use client::net::socket::{Link, SharedLink};
use client::net::transport::{Transport, UdpTransport};
use client::net::wire::Role;
use client::runs::{run_net_peer, NetRun, NetRunSummary};
use client::session::netplay::{NetConfig, NetPeer};
use client::Error;
use engine::World;
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::sync::mpsc;
use std::thread::JoinHandle;
use std::time::Duration;

/// The impairment the issue asks for: ~80 ms round trip (40 ms each way), 20 ms of jitter
/// (±10 each way), 5 % loss in short bursts, 1 % duplication, 2 % reordering.
pub fn rough_link(seed: u64) -> ConditionerConfig {
    ConditionerConfig {
        latency_ms: 40,
        jitter_ms: 10,
        loss_permille: 50,
        burst_len: 2,
        duplicate_permille: 10,
        reorder_permille: 20,
        seed,
    }
}

/// Settings for tests: generous timeouts so a loaded CI machine cannot turn slowness into a
/// disconnect; correctness never depends on them.
pub fn test_config(conditioner: ConditionerConfig) -> NetConfig<World> {
    NetConfig::<World> {
        seed: 2026,
        disconnect_timeout: Duration::from_secs(10),
        disconnect_notify: Duration::from_secs(2),
        handshake_timeout: Duration::from_secs(20),
        sync_timeout: Duration::from_secs(20),
        conditioner,
        ..NetConfig::<World>::default()
    }
}

pub fn plan(ticks: u32, bot_seed: u64, log: &Path) -> NetRun {
    NetRun {
        ticks,
        bot_seed,
        hash_log: Some(log.to_owned()),
        finish_timeout: Duration::from_secs(15),
        fps: 60,
        inject_desync: None,
        inject_after: None,
        dump_dir: None,
        match_log: None,
    }
}

/// A fresh directory for one test's files.
pub fn scratch_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("duel-netplay-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("scratch dir");
    dir
}

/// Opens a conditioned UDP link on a free loopback port.
pub fn loopback_link(conditioner: ConditionerConfig) -> SharedLink {
    let udp = UdpTransport::bind("127.0.0.1:0".parse().expect("addr")).expect("bind");
    wrap(udp, conditioner)
}

pub fn wrap<T: Transport + 'static>(t: T, conditioner: ConditionerConfig) -> SharedLink {
    if conditioner.is_active() {
        Link::new(LinkConditioner::new(t, conditioner))
    } else {
        Link::new(t)
    }
}

pub type PeerThread = JoinHandle<Result<NetRunSummary, Error>>;

/// Starts a host in a thread; returns its address once bound.
pub fn spawn_host(
    make_link: impl FnOnce() -> SharedLink + Send + 'static,
    config: NetConfig<World>,
    plan: NetRun,
) -> (SocketAddr, PeerThread) {
    let (tx, rx) = mpsc::channel();
    let handle = std::thread::spawn(move || {
        let link = make_link();
        tx.send(link.borrow().local_addr()).expect("report address");
        let peer = NetPeer::<World>::host_on(link, &config)?;
        run_net_peer(peer, &plan)
    });
    (rx.recv().expect("host address"), handle)
}

/// Starts a host on a loopback UDP link in a thread; returns its address once bound.
pub fn spawn_loopback_host(config: NetConfig<World>, plan: NetRun) -> (SocketAddr, PeerThread) {
    spawn_host(|| loopback_link(Default::default()), config, plan)
}

/// Starts a joiner or spectator on a loopback UDP link in a thread.
pub fn spawn_loopback_joiner(
    host: SocketAddr,
    role: Role,
    config: NetConfig<World>,
    plan: NetRun,
) -> PeerThread {
    spawn_joiner(
        || loopback_link(Default::default()),
        host,
        role,
        config,
        plan,
    )
}

/// Starts a joiner or spectator in a thread.
pub fn spawn_joiner(
    make_link: impl FnOnce() -> SharedLink + Send + 'static,
    host: SocketAddr,
    role: Role,
    config: NetConfig<World>,
    plan: NetRun,
) -> PeerThread {
    std::thread::spawn(move || {
        let peer = NetPeer::<World>::join_on(make_link(), host, role, &config)?;
        run_net_peer(peer, &plan)
    })
}

pub fn entries(path: &Path) -> Vec<HashLogEntry<engine::StateHash>> {
    read_hash_log::<engine::World>(path).expect("hash log reads")
}

/// Asserts the logs hold exactly ticks 1..=ticks, identical line for line.
pub fn assert_logs_identical(paths: &[&Path], ticks: u32) {
    let first = entries(paths[0]);
    assert_eq!(
        first.len(),
        ticks as usize,
        "{} holds every tick",
        paths[0].display()
    );
    assert!(
        first.iter().zip(1..).all(|(e, t)| e.tick == t),
        "ticks in order without gaps"
    );
    for path in &paths[1..] {
        let other = entries(path);
        assert_eq!(
            other,
            first,
            "{} differs from {}",
            path.display(),
            paths[0].display()
        );
    }
}
