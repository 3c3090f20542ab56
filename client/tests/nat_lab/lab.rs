//! One lab: network namespaces on this machine standing for a small internet.
//!
//! ```text
//!   home A (192.168.1.2) ── router A ──┐                 ┌── router B ── home B (192.168.2.2)
//!            NAT: cone or symmetric    │     "public"    │    NAT: cone or symmetric
//!                      203.0.113.2 ────┤  203.0.113.1/5  ├──── 203.0.113.6
//!                                      │  signalling  198.51.100.10:3536
//!                                      │  coturn      198.51.100.20:3478
//!                                      └── sink (where packets for private addresses vanish)
//! ```
//!
//! The routers masquerade their home behind their public address: **cone** is Linux's NAT,
//! which keeps a mapping's port for every destination (endpoint-independent mapping) and lets
//! in only replies (the filtering of a home router); **symmetric** randomizes the port per
//! destination (`--random-fully`), so the address a STUN server sees is useless to the other
//! peer. Unsolicited datagrams to a router are dropped, not answered (as a home router does; an
//! answer would also make Linux pick another port for the mapping). The public net routes
//! private addresses to a sink, silently, as the internet drops them.
//!
//! Everything stays inside the namespaces; they are deleted (and their processes killed) when
//! the lab is dropped. Root is needed: without it the lab is skipped, saying so loudly.

use std::io::{BufReader, Read};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::{Duration, Instant};

/// The signalling server, in the public net.
pub const SIGNAL: &str = "198.51.100.10:3536";
/// The STUN/TURN server (coturn), in the public net.
pub const TURN_IP: &str = "198.51.100.20";
/// coturn's user and password.
pub const TURN_USER: &str = "lab";
pub const TURN_PASSWORD: &str = "labpassword";
/// Router A's public address (where a port forward to home A is reached).
pub const ROUTER_A: &str = "203.0.113.2";
/// Home A's address on its LAN.
pub const HOME_A: &str = "192.168.1.2";
/// The longest any process of a lab may run.
const PROCESS_LIMIT: Duration = Duration::from_secs(90);

/// How a router translates.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Nat {
    /// Endpoint-independent mapping (Linux's MASQUERADE).
    Cone,
    /// A new port per destination (`MASQUERADE --random-fully`).
    Symmetric,
}

/// A home behind its router.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Home {
    A,
    B,
}

/// Why the lab cannot run here, or `None` when it can. `NAT_LAB_REQUIRED` (set by `./run test`
/// when it runs as root) turns a missing tool into a failure instead of a skip.
pub fn unavailable() -> Option<String> {
    let uid = run_output("id", &["-u"]).unwrap_or_default();
    if uid.trim() != "0" {
        return Some(format!(
            "it builds network namespaces, which needs root (uid is {})",
            uid.trim()
        ));
    }
    let missing: Vec<&str> = ["ip", "iptables", "turnserver", "ss"]
        .into_iter()
        .filter(|tool| run_output("sh", &["-c", &format!("command -v {tool}")]).is_none())
        .collect();
    if !missing.is_empty() {
        let why = format!(
            "{} missing (`./run test` installs iptables and coturn)",
            missing.join(", ")
        );
        assert!(
            std::env::var_os("NAT_LAB_REQUIRED").is_none(),
            "NAT_LAB_REQUIRED is set, but {why}"
        );
        return Some(why);
    }
    None
}

/// Skips the calling test, loudly, when the lab cannot run here.
macro_rules! lab_or_skip {
    ($name:expr, $a:expr, $b:expr) => {
        match lab::unavailable() {
            Some(why) => {
                eprintln!("\n*** NAT LAB SKIPPED ({}): {why} ***\n", $name);
                return;
            }
            None => lab::Lab::new($name, $a, $b),
        }
    };
}
pub(crate) use lab_or_skip;

/// Runs a command to its end; its standard output when it succeeded.
fn run_output(program: &str, args: &[&str]) -> Option<String> {
    let out = Command::new(program).args(args).output().ok()?;
    out.status
        .success()
        .then(|| String::from_utf8_lossy(&out.stdout).into_owned())
}

/// A lab: its namespaces, servers and scratch folder.
pub struct Lab {
    prefix: String,
    servers: Vec<Child>,
    dir: PathBuf,
    /// Where its signalling server listens.
    signal: &'static str,
}

/// The signalling server of a flat LAN, on home A.
const LAN_SIGNAL: &str = "10.9.0.1:3536";

static LABS: AtomicU32 = AtomicU32::new(0);

impl Lab {
    /// Builds the namespaces and routers, starts the signalling server and coturn, and waits
    /// until both listen.
    pub fn new(name: &str, a: Nat, b: Nat) -> Lab {
        let mut lab = Lab::empty(name, SIGNAL);
        lab.build(a, b);
        lab.start_servers();
        lab
    }

    /// Two homes on one LAN (10.9.0.1 and .2) with no router at all: no default route, the
    /// signalling server on home A.
    pub fn flat_lan(name: &str) -> Lab {
        let mut lab = Lab::empty(name, LAN_SIGNAL);
        for ns in ["ha", "hb"] {
            lab.sh(None, &format!("ip netns add {}", lab.ns(ns)));
            lab.sh(Some(ns), "ip link set lo up");
        }
        lab.sh(
            None,
            &format!(
                "ip -n {} link add eth0 type veth peer name eth0 netns {}",
                lab.ns("ha"),
                lab.ns("hb")
            ),
        );
        for (ns, addr) in [("ha", "10.9.0.1/24"), ("hb", "10.9.0.2/24")] {
            lab.sh(Some(ns), &format!("ip addr add {addr} dev eth0"));
            lab.sh(Some(ns), "ip link set eth0 up");
        }
        lab.start_signal("ha");
        lab
    }

    /// Starts our signalling server in namespace `which`, on the lab's address, and waits
    /// until it listens.
    fn start_signal(&mut self, which: &str) {
        let signal = self.spawn_in(
            which,
            env!("CARGO_BIN_EXE_duel-cli"),
            &["signal", "--bind", self.signal],
            "signal",
        );
        self.servers.push(signal);
        self.wait_listening(which, "-t", "3536");
    }

    fn empty(name: &str, signal: &'static str) -> Lab {
        let n = LABS.fetch_add(1, Ordering::Relaxed);
        let prefix = format!("nl{}x{n}", std::process::id());
        let dir = std::env::temp_dir().join(format!("nat-lab-{prefix}-{name}"));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("the lab's folder");
        Lab {
            prefix,
            servers: Vec::new(),
            dir,
            signal,
        }
    }

    fn ns(&self, which: &str) -> String {
        format!("{}-{which}", self.prefix)
    }

    /// Runs `ip`/`iptables`/... in namespace `which` (`None`: here) and insists it succeeds.
    fn sh(&self, which: Option<&str>, command: &str) {
        let full = match which {
            Some(w) => format!("ip netns exec {} {command}", self.ns(w)),
            None => command.to_owned(),
        };
        let out = Command::new("sh")
            .args(["-c", &full])
            .output()
            .expect("sh runs");
        assert!(
            out.status.success(),
            "lab setup failed: `{full}`: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }

    fn build(&self, a: Nat, b: Nat) {
        for ns in ["pub", "ra", "rb", "ha", "hb", "sink"] {
            self.sh(None, &format!("ip netns add {}", self.ns(ns)));
            self.sh(Some(ns), "ip link set lo up");
        }
        let (pubns, sink) = (self.ns("pub"), self.ns("sink"));
        // The public net: a link to each router, the servers' addresses, a default route to
        // the sink.
        for (link, router, net) in [
            ("pa", "ra", "203.0.113.1/30"),
            ("pb", "rb", "203.0.113.5/30"),
        ] {
            self.sh(
                None,
                &format!(
                    "ip -n {pubns} link add {link} type veth peer name wan netns {}",
                    self.ns(router)
                ),
            );
            self.sh(Some("pub"), &format!("ip addr add {net} dev {link}"));
            self.sh(Some("pub"), &format!("ip link set {link} up"));
        }
        self.sh(Some("pub"), "ip addr add 198.51.100.10/32 dev lo");
        self.sh(Some("pub"), &format!("ip addr add {TURN_IP}/32 dev lo"));
        self.sh(
            None,
            &format!("ip -n {pubns} link add void type veth peer name sink netns {sink}"),
        );
        self.sh(Some("pub"), "ip addr add 100.64.0.1/30 dev void");
        self.sh(Some("pub"), "ip link set void up");
        self.sh(Some("sink"), "ip addr add 100.64.0.2/30 dev sink");
        self.sh(Some("sink"), "ip link set sink up");
        self.sh(Some("pub"), "ip route add default via 100.64.0.2");
        self.sh(Some("pub"), "sysctl -qw net.ipv4.ip_forward=1");
        // The routers and their homes.
        for (router, home, wan, gateway, lan, host, nat) in [
            (
                "ra",
                "ha",
                "203.0.113.2/30",
                "203.0.113.1",
                "192.168.1.1/24",
                "192.168.1.2/24",
                a,
            ),
            (
                "rb",
                "hb",
                "203.0.113.6/30",
                "203.0.113.5",
                "192.168.2.1/24",
                "192.168.2.2/24",
                b,
            ),
        ] {
            self.sh(Some(router), &format!("ip addr add {wan} dev wan"));
            self.sh(Some(router), "ip link set wan up");
            self.sh(Some(router), &format!("ip route add default via {gateway}"));
            self.sh(
                None,
                &format!(
                    "ip -n {} link add lan type veth peer name eth0 netns {}",
                    self.ns(router),
                    self.ns(home)
                ),
            );
            self.sh(Some(router), &format!("ip addr add {lan} dev lan"));
            self.sh(Some(router), "ip link set lan up");
            self.sh(Some(home), &format!("ip addr add {host} dev eth0"));
            self.sh(Some(home), "ip link set eth0 up");
            let lan_gateway = lan.split('/').next().unwrap_or_default();
            self.sh(
                Some(home),
                &format!("ip route add default via {lan_gateway}"),
            );
            self.sh(Some(router), "sysctl -qw net.ipv4.ip_forward=1");
            let random = match nat {
                Nat::Cone => "",
                Nat::Symmetric => " --random-fully",
            };
            self.sh(
                Some(router),
                &format!("iptables -t nat -A POSTROUTING -o wan -j MASQUERADE{random}"),
            );
            self.sh(
                Some(router),
                "iptables -A INPUT -i wan -m conntrack --ctstate NEW,INVALID -j DROP",
            );
        }
    }

    fn start_servers(&mut self) {
        self.start_signal("pub");
        let dir = self.dir.display().to_string();
        let turn = self.spawn_in(
            "pub",
            "turnserver",
            &[
                "-n",
                "--listening-ip",
                TURN_IP,
                "--relay-ip",
                TURN_IP,
                "--listening-port",
                "3478",
                "--min-port",
                "49152",
                "--max-port",
                "65535",
                "--lt-cred-mech",
                "--realm",
                "lab",
                "--user",
                &format!("{TURN_USER}:{TURN_PASSWORD}"),
                "--userdb",
                &format!("{dir}/turndb"),
                "--pidfile",
                &format!("{dir}/turnserver.pid"),
                "--no-tls",
                "--no-dtls",
                "--no-cli",
                "--log-file",
                "stdout",
            ],
            "turn",
        );
        self.servers.push(turn);
        self.wait_listening("pub", "-u", "3478");
    }

    /// Waits until something in namespace `which` listens on `port` (`proto`: `-t` TCP, `-u`
    /// UDP).
    fn wait_listening(&self, which: &str, proto: &str, port: &str) {
        let deadline = Instant::now() + Duration::from_secs(20);
        let sport = format!(":{port}");
        loop {
            let ns = self.ns(which);
            let args = [
                "netns", "exec", &ns, "ss", proto, "-lnH", "sport", "=", &sport,
            ];
            if run_output("ip", &args).is_some_and(|out| !out.trim().is_empty()) {
                return;
            }
            assert!(
                Instant::now() < deadline,
                "the lab's server on port {port} did not start (logs in {})",
                self.dir.display()
            );
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// Starts `program` in namespace `which`, its output into `<name>.out` in the lab folder.
    fn spawn_in(&self, which: &str, program: &str, args: &[&str], name: &str) -> Child {
        let out = std::fs::File::create(self.dir.join(format!("{name}.out"))).expect("a log");
        let err = out.try_clone().expect("a log");
        Command::new("ip")
            .args(["netns", "exec", &self.ns(which), program])
            .args(args)
            .stdout(Stdio::from(out))
            .stderr(Stdio::from(err))
            .spawn()
            .unwrap_or_else(|e| panic!("starting {program}: {e}"))
    }

    /// Drops `percent` % of the datagrams each router forwards, either way (iptables'
    /// `statistic` match: this kernel has no netem).
    pub fn lose(&self, percent: u32) {
        for router in ["ra", "rb"] {
            self.sh(
                Some(router),
                &format!(
                    "iptables -I FORWARD -p udp -m statistic --mode random --probability {} -j DROP",
                    f64::from(percent) / 100.0
                ),
            );
        }
    }

    /// The iptables match of a DTLS ServerHello in a UDP datagram: a handshake record (22)
    /// whose first message is of type 2.
    const SERVER_HELLO: &'static str =
        "-p udp -m u32 --u32 '0>>22&0x3C@8>>24=0x16 && 0>>22&0x3C@18&0xFF=0x02'";

    /// Drops exactly one DTLS ServerHello datagram on its way into each home (only the side
    /// that is the DTLS server sends one).
    pub fn lose_one_server_hello(&self) {
        let hello = Self::SERVER_HELLO;
        for router in ["ra", "rb"] {
            self.sh(
                Some(router),
                &format!(
                    "iptables -I FORWARD -i wan {hello} -m recent --name hello --rcheck -j ACCEPT"
                ),
            );
            self.sh(
                Some(router),
                &format!(
                    "iptables -I FORWARD 2 -i wan {hello} -m recent --name hello --set -j DROP"
                ),
            );
        }
    }

    /// Drops every DTLS ServerHello of the first connection (UDP flow) that carries one, and
    /// only of that one: that negotiation's encrypted channel never opens, later ones do.
    pub fn doom_first_dtls_flow(&self) {
        let hello = Self::SERVER_HELLO;
        for router in ["ra", "rb"] {
            for rule in [
                format!("-i wan {hello} -m connmark --mark 7 -j DROP"),
                format!("-i wan {hello} -m recent --name doomed --rcheck -j ACCEPT"),
                format!("-i wan {hello} -m recent --name doomed --set -j CONNMARK --set-mark 7"),
                format!("-i wan {hello} -m connmark --mark 7 -j DROP"),
            ] {
                self.sh(Some(router), &format!("iptables -A FORWARD {rule}"));
            }
        }
    }

    /// Drops every DTLS ServerHello: no encrypted channel ever opens.
    pub fn lose_every_server_hello(&self) {
        let hello = Self::SERVER_HELLO;
        for router in ["ra", "rb"] {
            self.sh(
                Some(router),
                &format!("iptables -A FORWARD -i wan {hello} -j DROP"),
            );
        }
    }

    /// Router A forwards UDP `port` on its public address to home A.
    pub fn forward_port_to_a(&self, port: u16) {
        self.sh(
            Some("ra"),
            &format!(
                "iptables -t nat -A PREROUTING -i wan -p udp --dport {port} -j DNAT --to-destination {HOME_A}:{port}"
            ),
        );
        self.sh(
            Some("ra"),
            &format!("iptables -I INPUT -i wan -p udp --dport {port} -j ACCEPT"),
        );
    }

    /// A room link of this lab's signalling server.
    pub fn room(&self, name: &str) -> String {
        format!(
            "ws://{}/{name}?secret=labsecretlabsecretlab000",
            self.signal
        )
    }

    /// Starts `duel-cli ARGS` in `home`; `name` names its output file.
    pub fn peer(&self, home: Home, name: &str, args: &[&str]) -> Peer {
        let which = match home {
            Home::A => "ha",
            Home::B => "hb",
        };
        let child = self.spawn_in(which, env!("CARGO_BIN_EXE_duel-cli"), args, name);
        Peer {
            child,
            out: self.dir.join(format!("{name}.out")),
        }
    }

    /// The lab's folder (logs of every process).
    pub fn dir(&self) -> &Path {
        &self.dir
    }
}

impl Drop for Lab {
    fn drop(&mut self) {
        for server in &mut self.servers {
            let _ = server.kill();
            let _ = server.wait();
        }
        for ns in ["ha", "hb", "ra", "rb", "pub", "sink"] {
            // Whatever still runs in it (a peer left behind by a failed test) goes first.
            if let Some(pids) = run_output("ip", &["netns", "pids", &self.ns(ns)]) {
                for pid in pids.split_whitespace() {
                    let _ = Command::new("kill").args(["-9", pid]).status();
                }
            }
            let _ = Command::new("ip")
                .args(["netns", "del", &self.ns(ns)])
                .status();
        }
    }
}

/// A `duel-cli` run in a home.
pub struct Peer {
    child: Child,
    out: PathBuf,
}

/// How a peer's run ended.
#[derive(Debug)]
pub struct Ended {
    /// Its exit status (`None`: killed at the lab's limit).
    pub code: Option<i32>,
    /// Everything it printed.
    pub output: String,
}

impl Ended {
    /// Seconds from entering the room to tick 0, as `duel-cli online` prints them.
    pub fn seconds_to_tick_0(&self) -> Option<f64> {
        let line = self
            .output
            .lines()
            .find(|l| l.starts_with("connected: tick 0 after"))?;
        line.split_whitespace().nth(4)?.parse().ok()
    }

    /// How many times the room was entered, as `duel-cli online` prints it.
    pub fn entries(&self) -> Option<u32> {
        let line = self
            .output
            .lines()
            .find(|l| l.starts_with("connected: tick 0 after"))?;
        let at = line.find("(entered ")? + "(entered ".len();
        line[at..].split_whitespace().next()?.parse().ok()
    }

    /// The hash the match summary ends with.
    pub fn final_hash(&self) -> Option<&str> {
        let line = self.output.lines().find(|l| l.starts_with("ticks="))?;
        line.split_whitespace()
            .find_map(|w| w.strip_prefix("hash="))
    }
}

impl Peer {
    /// Waits until the peer has printed a line starting with `prefix` (a host's "listening
    /// on"), so what it announced is in place; panics if it ends or the lab's limit passes
    /// first.
    pub fn await_line(&mut self, prefix: &str) {
        let deadline = Instant::now() + PROCESS_LIMIT;
        loop {
            let output = std::fs::read_to_string(&self.out).unwrap_or_default();
            if output.lines().any(|l| l.starts_with(prefix)) {
                return;
            }
            let ended = self.child.try_wait().expect("the peer's status");
            assert!(
                ended.is_none() && Instant::now() < deadline,
                "no line {prefix:?} from the peer ({ended:?}):\n{output}"
            );
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// Waits for the peer to end (killing it at the lab's limit).
    pub fn wait(mut self) -> Ended {
        let deadline = Instant::now() + PROCESS_LIMIT;
        let code = loop {
            if let Some(status) = self.child.try_wait().expect("the peer's status") {
                break status.code();
            }
            if Instant::now() >= deadline {
                let _ = self.child.kill();
                let _ = self.child.wait();
                break None;
            }
            std::thread::sleep(Duration::from_millis(20));
        };
        let mut output = String::new();
        if let Ok(file) = std::fs::File::open(&self.out) {
            let _ = BufReader::new(file).read_to_string(&mut output);
        }
        Ended { code, output }
    }
}
