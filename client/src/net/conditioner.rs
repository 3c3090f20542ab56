//! A link conditioner: latency, jitter, loss (with bursts), duplication and reordering applied
//! to outgoing datagrams in user space (this kernel has no netem).
//!
//! Every decision (drop, duplicate, delay) comes from a seeded [`DetRng`], so a given seed
//! impairs the same datagrams the same way; only the wall-clock release of delayed datagrams
//! depends on when the conditioner is polled.

use crate::net::transport::Transport;
use engine::DetRng;
use std::collections::BinaryHeap;
use std::net::SocketAddr;
use std::time::{Duration, Instant};

/// How to impair a link. Applied on the sending side: condition both peers to impair both
/// directions (round-trip time is then twice `latency_ms`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct ConditionerConfig {
    /// One-way delay added to every datagram, in milliseconds.
    pub latency_ms: u32,
    /// Uniform random variation of the delay, ± this many milliseconds.
    pub jitter_ms: u32,
    /// Datagrams lost, per thousand.
    pub loss_permille: u32,
    /// Mean length of a loss burst (1 = independent losses); the long-run loss rate stays
    /// `loss_permille`.
    pub burst_len: u32,
    /// Datagrams sent twice, per thousand.
    pub duplicate_permille: u32,
    /// Datagrams held back past later ones, per thousand.
    pub reorder_permille: u32,
    /// Seed of the impairment decisions.
    pub seed: u64,
}

/// Longest one-way delay or jitter accepted, in milliseconds (a minute: beyond, GGRS would
/// count the peer as gone long before anything arrives).
pub const MAX_DELAY_MS: u32 = 60_000;
/// Longest mean loss burst accepted.
pub const MAX_BURST: u32 = 1000;

impl ConditionerConfig {
    /// Whether this configuration changes anything.
    #[must_use]
    pub fn is_active(&self) -> bool {
        self.latency_ms > 0
            || self.jitter_ms > 0
            || self.loss_permille > 0
            || self.duplicate_permille > 0
            || self.reorder_permille > 0
    }

    /// Parses `key=value,...` with keys `latency`, `jitter` (milliseconds, at most
    /// [`MAX_DELAY_MS`]), `loss` (percent, may have a fraction like `5` or `0.5`), `burst`
    /// (1 to [`MAX_BURST`]), `dup` (percent), `reorder` (percent), `seed`.
    ///
    /// # Errors
    /// A message naming the unknown key, or the bad value and the range it must be in.
    pub fn parse(text: &str) -> Result<ConditionerConfig, String> {
        let mut c = ConditionerConfig {
            burst_len: 1,
            ..ConditionerConfig::default()
        };
        for part in text.split(',').map(str::trim).filter(|p| !p.is_empty()) {
            let (key, value) = part
                .split_once('=')
                .ok_or_else(|| format!("conditioner: `{part}` is not key=value"))?;
            let int = |v: &str, max: u32| {
                v.parse::<u32>().ok().filter(|n| *n <= max).ok_or_else(|| {
                    format!("conditioner: {key}={v} is not a whole number from 0 to {max}")
                })
            };
            let permille = |v: &str| {
                parse_percent_as_permille(v).map_err(|e| format!("conditioner: {key}={v}: {e}"))
            };
            match key {
                "latency" => c.latency_ms = int(value, MAX_DELAY_MS)?,
                "jitter" => c.jitter_ms = int(value, MAX_DELAY_MS)?,
                "loss" => c.loss_permille = permille(value)?,
                "burst" => c.burst_len = int(value, MAX_BURST)?.max(1),
                "dup" => c.duplicate_permille = permille(value)?,
                "reorder" => c.reorder_permille = permille(value)?,
                "seed" => {
                    c.seed = value.parse().map_err(|_| format!("conditioner: seed={value} is not a number"))?;
                }
                _ => {
                    return Err(format!(
                        "conditioner: unknown key `{key}` (known: latency, jitter, loss, burst, dup, reorder, seed)"
                    ))
                }
            }
        }
        Ok(c)
    }
}

/// `"5"` → 50, `"0.5"` → 5, `"12.25"` → 122 (per mille, truncated), at most 100 %.
fn parse_percent_as_permille(v: &str) -> Result<u32, String> {
    let (whole, frac) = v.split_once('.').unwrap_or((v, ""));
    let whole: u32 = whole
        .parse()
        .map_err(|_| "not a percentage from 0 to 100".to_string())?;
    let tenth = match frac.chars().next() {
        None => 0,
        Some(d) => d.to_digit(10).ok_or("not a percentage from 0 to 100")?,
    };
    match whole.checked_mul(10).and_then(|w| w.checked_add(tenth)) {
        Some(permille) if permille <= 1000 => Ok(permille),
        _ => Err("more than 100 % (a percentage from 0 to 100)".into()),
    }
}

#[derive(Debug, PartialEq, Eq)]
struct Delayed {
    release: Instant,
    seq: u64,
    to: SocketAddr,
    bytes: Vec<u8>,
}

impl Ord for Delayed {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        // BinaryHeap is a max-heap: earliest release (then earliest sent) first.
        other
            .release
            .cmp(&self.release)
            .then(other.seq.cmp(&self.seq))
    }
}

impl PartialOrd for Delayed {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

/// Counts of what the conditioner did.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ConditionerStats {
    /// Datagrams handed to the conditioner.
    pub offered: u64,
    /// Datagrams dropped.
    pub dropped: u64,
    /// Extra copies sent.
    pub duplicated: u64,
    /// Datagrams held back to arrive out of order.
    pub reordered: u64,
}

/// Wraps a transport and impairs what it sends.
#[derive(Debug)]
pub struct LinkConditioner<T> {
    inner: T,
    config: ConditionerConfig,
    rng: DetRng,
    queue: BinaryHeap<Delayed>,
    seq: u64,
    burst_left: u32,
    stats: ConditionerStats,
}

impl<T: Transport> LinkConditioner<T> {
    /// Impairs `inner` as `config` says.
    pub fn new(inner: T, config: ConditionerConfig) -> LinkConditioner<T> {
        LinkConditioner {
            inner,
            rng: DetRng::from_seed(config.seed),
            config,
            queue: BinaryHeap::new(),
            seq: 0,
            burst_left: 0,
            stats: ConditionerStats::default(),
        }
    }

    /// What it has done so far.
    #[must_use]
    pub fn stats(&self) -> ConditionerStats {
        self.stats
    }

    fn chance(&mut self, permille: u32) -> bool {
        permille > 0 && self.rng.below(1000) < permille
    }

    fn lose(&mut self) -> bool {
        if self.burst_left > 0 {
            self.burst_left -= 1;
            return true;
        }
        let burst = self.config.burst_len.max(1);
        // Entering a burst of `burst` losses with probability loss/burst keeps the mean rate.
        if self.rng.below(1000 * burst) < self.config.loss_permille {
            self.burst_left = burst - 1;
            return true;
        }
        false
    }

    fn delay(&mut self) -> Duration {
        let jitter = self.config.jitter_ms;
        let offset = if jitter > 0 {
            self.rng.symmetric(jitter)
        } else {
            0
        };
        let ms = (i64::from(self.config.latency_ms) + i64::from(offset)).max(0);
        Duration::from_millis(ms as u64)
    }

    fn enqueue(&mut self, bytes: &[u8], to: SocketAddr, mut release: Instant) {
        if self.chance(self.config.reorder_permille) {
            self.stats.reordered += 1;
            release += Duration::from_millis(u64::from(self.config.jitter_ms) * 2 + 10);
        }
        self.seq += 1;
        self.queue.push(Delayed {
            release,
            seq: self.seq,
            to,
            bytes: bytes.to_vec(),
        });
    }

    /// Sends every held datagram whose time has come.
    pub fn release_due(&mut self) {
        self.release_due_at(Instant::now());
    }

    /// Sends every held datagram due at or before `now`, earliest first. Time is a parameter
    /// here (and in [`LinkConditioner::send_at`]) so the tests can say exactly when each
    /// datagram leaves without waiting for it.
    fn release_due_at(&mut self, now: Instant) {
        while self.queue.peek().is_some_and(|d| d.release <= now) {
            let d = self.queue.pop().expect("peeked");
            self.inner.send(&d.bytes, d.to);
        }
    }

    /// Impairs one datagram offered at `now`: lost, or held for its delay (and perhaps a
    /// copy for another), then sends whatever is due.
    fn send_at(&mut self, bytes: &[u8], to: SocketAddr, now: Instant) {
        self.stats.offered += 1;
        if self.lose() {
            self.stats.dropped += 1;
        } else {
            let delay = self.delay();
            self.enqueue(bytes, to, now + delay);
            if self.chance(self.config.duplicate_permille) {
                self.stats.duplicated += 1;
                let delay = self.delay();
                self.enqueue(bytes, to, now + delay);
            }
        }
        self.release_due_at(now);
    }
}

impl<T: Transport> Transport for LinkConditioner<T> {
    fn send(&mut self, bytes: &[u8], to: SocketAddr) {
        self.send_at(bytes, to, Instant::now());
    }

    fn recv(&mut self, buf: &mut [u8]) -> Option<(usize, SocketAddr)> {
        self.release_due();
        self.inner.recv(buf)
    }

    fn local_addr(&self) -> SocketAddr {
        self.inner.local_addr()
    }

    fn is_plain_udp(&self) -> bool {
        self.inner.is_plain_udp()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Records what reaches the wire.
    #[derive(Default)]
    struct Wire {
        sent: Vec<Vec<u8>>,
    }

    impl Transport for Wire {
        fn send(&mut self, bytes: &[u8], _to: SocketAddr) {
            self.sent.push(bytes.to_vec());
        }
        fn recv(&mut self, _buf: &mut [u8]) -> Option<(usize, SocketAddr)> {
            None
        }
        fn local_addr(&self) -> SocketAddr {
            "127.0.0.1:1".parse().expect("addr")
        }
    }

    /// The conditioner is as plain UDP as what it wraps (the port-forward hint of an
    /// unanswered handshake depends on it).
    #[test]
    fn the_conditioner_is_plain_udp_when_what_it_wraps_is() {
        let udp = crate::net::transport::UdpTransport::bind("127.0.0.1:0".parse().expect("addr"))
            .expect("a socket");
        let config = ConditionerConfig::default();
        assert!(LinkConditioner::new(udp, config).is_plain_udp());
        assert!(!LinkConditioner::new(Wire::default(), config).is_plain_udp());
    }

    /// `Transport::send` is the conditioner's way in: a datagram offered there is counted and
    /// impaired like any (without delay it leaves at once; at total loss it never does).
    #[test]
    fn a_datagram_sent_as_a_transport_goes_through_the_impairments() {
        let to = "127.0.0.1:2".parse().expect("addr");
        let mut clear = LinkConditioner::new(Wire::default(), ConditionerConfig::default());
        Transport::send(&mut clear, b"hi", to);
        assert_eq!(clear.inner.sent, vec![b"hi".to_vec()]);
        assert_eq!(clear.stats().offered, 1);
        let lossy = ConditionerConfig {
            loss_permille: 1000,
            ..ConditionerConfig::default()
        };
        let mut lost = LinkConditioner::new(Wire::default(), lossy);
        Transport::send(&mut lost, b"hi", to);
        assert!(lost.inner.sent.is_empty());
        assert_eq!((lost.stats().offered, lost.stats().dropped), (1, 1));
    }

    /// When each datagram left: `offers[i]` is the millisecond datagram `i` is offered at,
    /// and the clock then steps a millisecond at a time to `until_ms`. Returns, in wire order,
    /// each datagram's index and the millisecond it left. No real time passes.
    fn timeline(
        config: ConditionerConfig,
        offers: &[u64],
        until_ms: u64,
    ) -> (Vec<(u32, u64)>, ConditionerStats) {
        let mut link = LinkConditioner::new(Wire::default(), config);
        let to = "127.0.0.1:2".parse().expect("addr");
        let t0 = Instant::now();
        let mut left = Vec::new();
        for ms in 0..=until_ms {
            let now = t0 + Duration::from_millis(ms);
            for (i, _) in offers.iter().enumerate().filter(|&(_, &at)| at == ms) {
                link.send_at(&(i as u32).to_le_bytes(), to, now);
            }
            link.release_due_at(now);
            for bytes in link.inner.sent.drain(..) {
                let index = u32::from_le_bytes(bytes.try_into().expect("4 bytes"));
                left.push((index, ms));
            }
        }
        assert!(
            link.queue.is_empty(),
            "every datagram left by {until_ms} ms"
        );
        (left, link.stats())
    }

    /// How long datagram `index` was held (its offer at `offers[index]`).
    fn held(offers: &[u64], (index, left): (u32, u64)) -> u64 {
        left - offers[index as usize]
    }

    #[test]
    fn same_seed_same_decisions() {
        let config = ConditionerConfig {
            loss_permille: 50,
            burst_len: 3,
            duplicate_permille: 10,
            reorder_permille: 20,
            jitter_ms: 4,
            seed: 4,
            ..ConditionerConfig::default()
        };
        let offers: Vec<u64> = (0..2000).map(|i| i / 4).collect();
        let (a, sa) = timeline(config, &offers, 600);
        let (b, sb) = timeline(config, &offers, 600);
        assert_eq!(
            (&a, sa),
            (&b, sb),
            "the same datagrams, the same way, at the same times"
        );
        // The long-run loss rate is about 5 %, in bursts.
        assert!((60..=150).contains(&sa.dropped), "dropped {}", sa.dropped);
        assert!(sa.duplicated > 0 && sa.reordered > 0);
        assert_eq!(sa.offered, 2000);
        assert_eq!(a.len() as u64, sa.offered - sa.dropped + sa.duplicated);
        // A seed's decisions are pinned, so a lab run impairs the same datagrams in every
        // build: any change to the order or number of draws shows here.
        let mut hasher = xxhash_rust::xxh3::Xxh3::new();
        for (index, ms) in &a {
            hasher.update(&index.to_le_bytes());
            hasher.update(&ms.to_le_bytes());
        }
        assert_eq!(
            hasher.digest(),
            0xb600_0475_894a_d042,
            "{:#x}",
            hasher.digest()
        );
        let other = ConditionerConfig { seed: 5, ..config };
        assert_ne!(
            timeline(other, &offers, 600).0,
            a,
            "another seed, other decisions"
        );
    }

    /// An impairment set to zero draws nothing from the seed: loss alone (no jitter, no
    /// duplicates, no reordering) drops exactly the datagrams it always dropped.
    #[test]
    fn an_impairment_at_zero_draws_nothing() {
        let config = ConditionerConfig::parse("loss=5,burst=2,latency=3,seed=11").expect("parses");
        let offers: Vec<u64> = (0..1000).collect();
        let (left, stats) = timeline(config, &offers, 1010);
        assert_eq!((stats.duplicated, stats.reordered), (0, 0));
        let arrived: Vec<u32> = left.iter().map(|&(i, _)| i).collect();
        let digest = xxhash_rust::xxh3::xxh3_64(&bincode::serialize(&arrived).expect("encodes"));
        assert_eq!(
            (stats.dropped, digest),
            (36, 0x917a_08e8_3aed_9c4f),
            "{:?} {digest:#x}",
            stats.dropped
        );
    }

    /// Latency alone holds every datagram exactly that long, then sends it, in order.
    #[test]
    fn latency_holds_each_datagram_exactly_that_long() {
        let config = ConditionerConfig::parse("latency=40").expect("parses");
        let offers: Vec<u64> = (0..10).collect();
        let (left, stats) = timeline(config, &offers, 100);
        let want: Vec<(u32, u64)> = (0..10).map(|i| (i, u64::from(i) + 40)).collect();
        assert_eq!(left, want);
        assert_eq!(
            stats,
            ConditionerStats {
                offered: 10,
                ..ConditionerStats::default()
            }
        );
        // Without impairment a datagram leaves the moment it is offered.
        let (left, _) = timeline(ConditionerConfig::default(), &offers, 20);
        assert_eq!(left, (0..10).map(|i| (i, u64::from(i))).collect::<Vec<_>>());
    }

    /// Jitter spreads the delay over the whole of `latency ± jitter`, never below zero.
    #[test]
    fn jitter_spreads_delays_over_its_range_and_never_below_zero() {
        let offers = vec![0u64; 500];
        for (text, lowest, highest) in [
            ("latency=50,jitter=20", 30, 70),
            ("latency=5,jitter=20", 0, 25),
        ] {
            let config = ConditionerConfig::parse(text).expect("parses");
            let (left, stats) = timeline(config, &offers, 200);
            assert_eq!(left.len(), 500, "{text}");
            assert_eq!(stats.offered, 500);
            let delays: Vec<u64> = left.iter().map(|&l| held(&offers, l)).collect();
            let (min, max) = (delays.iter().min(), delays.iter().max());
            assert_eq!((min, max), (Some(&lowest), Some(&highest)), "{text}");
        }
    }

    /// A reordered datagram is held `2 × jitter + 10` ms more, so it arrives after datagrams
    /// sent later; the others keep their delay.
    #[test]
    fn a_reordered_datagram_is_held_past_later_ones() {
        let config = ConditionerConfig::parse("jitter=3,reorder=20,seed=7").expect("parses");
        let offers: Vec<u64> = (0..400).collect();
        let (left, stats) = timeline(config, &offers, 500);
        assert_eq!(left.len(), 400);
        let delays: Vec<u64> = left.iter().map(|&l| held(&offers, l)).collect();
        let late: Vec<u64> = delays.iter().copied().filter(|&d| d > 3).collect();
        assert_eq!(late.len() as u64, stats.reordered);
        assert!((40..=120).contains(&stats.reordered), "{stats:?}");
        assert!(delays.iter().all(|&d| d <= 3 || (16..=19).contains(&d)));
        assert_eq!(
            (late.iter().min(), late.iter().max()),
            (Some(&16), Some(&19))
        );
        let order: Vec<u32> = left.iter().map(|&(i, _)| i).collect();
        assert!(
            order.windows(2).any(|w| w[0] > w[1]),
            "some arrive out of order"
        );
    }

    /// `dup=100` sends every datagram twice, each copy with its own delay.
    #[test]
    fn duplication_sends_a_second_copy() {
        let config = ConditionerConfig::parse("dup=100,latency=10,jitter=5").expect("parses");
        let offers: Vec<u64> = (0..50).collect();
        let (left, stats) = timeline(config, &offers, 100);
        assert_eq!(stats.duplicated, 50);
        for i in 0..50 {
            let copies: Vec<u64> = left
                .iter()
                .filter(|&&(index, _)| index == i)
                .map(|&l| held(&offers, l))
                .collect();
            assert_eq!(copies.len(), 2, "datagram {i}");
            assert!(copies.iter().all(|d| (5..=15).contains(d)), "{copies:?}");
        }
    }

    /// Losses come in runs of the burst length (two bursts may touch), at the asked rate.
    #[test]
    fn losses_come_in_bursts_of_their_length() {
        for (burst, rate) in [(1, 100), (4, 100), (7, 50)] {
            let config = ConditionerConfig {
                loss_permille: rate,
                burst_len: burst,
                seed: 3,
                ..ConditionerConfig::default()
            };
            let offers: Vec<u64> = (0..8000).collect();
            let (left, stats) = timeline(config, &offers, 8000);
            let mut arrived = vec![false; 8000];
            for &(i, _) in &left {
                arrived[i as usize] = true;
            }
            let runs: Vec<u32> = arrived
                .split(|&a| a)
                .map(|run| run.len() as u32)
                .filter(|&n| n > 0)
                .collect();
            assert!(
                runs.iter().all(|n| n % burst == 0),
                "burst {burst}: {runs:?}"
            );
            assert_eq!(runs.iter().sum::<u32>() as u64, stats.dropped);
            let expected = u64::from(rate) * 8;
            let (low, high) = (expected * 7 / 10, expected * 13 / 10);
            assert!(
                (low..=high).contains(&stats.dropped),
                "burst {burst}: {stats:?}"
            );
            if burst > 1 {
                assert!(runs.contains(&burst), "burst {burst}: {runs:?}");
            }
        }
    }

    /// Datagrams whose time has come leave when the link is read, or released, without a
    /// new datagram being sent.
    #[test]
    fn reading_or_releasing_sends_what_is_due() {
        let config = ConditionerConfig::parse("latency=100").expect("parses");
        let to = "127.0.0.1:2".parse().expect("addr");
        let past = Instant::now()
            .checked_sub(Duration::from_secs(1))
            .expect("a second of uptime");
        let mut link = LinkConditioner::new(Wire::default(), config);
        link.send_at(b"one", to, past);
        assert!(link.inner.sent.is_empty(), "held at first");
        let mut buf = [0u8; 8];
        assert_eq!(link.recv(&mut buf), None);
        assert_eq!(link.inner.sent, vec![b"one".to_vec()]);
        link.send_at(b"two", to, past);
        link.release_due();
        assert_eq!(link.inner.sent, vec![b"one".to_vec(), b"two".to_vec()]);
    }

    /// Any one impairment alone makes the conditioner active (`--conditioner loss=5` must
    /// install it); a burst length or a seed alone changes nothing, nor does nothing at all.
    #[test]
    fn each_impairment_alone_makes_the_conditioner_active() {
        for text in [
            "latency=1",
            "jitter=1",
            "loss=5",
            "loss=0.1",
            "dup=1",
            "reorder=1",
        ] {
            let c = ConditionerConfig::parse(text).expect("parses");
            assert!(c.is_active(), "{text}");
        }
        for text in ["", "burst=3", "seed=9", "latency=0,loss=0,dup=0"] {
            let c = ConditionerConfig::parse(text).expect("parses");
            assert!(!c.is_active(), "{text:?}");
        }
    }

    #[test]
    fn parse_reads_every_key_and_rejects_unknown_ones() {
        let c = ConditionerConfig::parse(
            "latency=40,jitter=10,loss=5,burst=3,dup=1,reorder=2.5,seed=9",
        )
        .expect("parses");
        assert_eq!(
            c,
            ConditionerConfig {
                latency_ms: 40,
                jitter_ms: 10,
                loss_permille: 50,
                burst_len: 3,
                duplicate_permille: 10,
                reorder_permille: 25,
                seed: 9
            }
        );
        assert!(ConditionerConfig::parse("lag=3")
            .unwrap_err()
            .contains("unknown key `lag`"));
        assert!(ConditionerConfig::parse("loss=150").is_err());
    }

    /// Issue 18: values past their range are refused, naming the range, instead of panicking
    /// in the arithmetic (`loss=999999999`, `jitter=3000000000`, `burst=5000000`).
    #[test]
    fn values_past_their_range_are_refused_naming_it() {
        for (text, words) in [
            ("loss=999999999", "0 to 100"),
            ("loss=100.1", "more than 100"),
            ("jitter=3000000000", "from 0 to 60000"),
            ("latency=60001", "from 0 to 60000"),
            ("loss=1,burst=5000000", "from 0 to 1000"),
        ] {
            let err = ConditionerConfig::parse(text).expect_err(text);
            assert!(err.contains(words), "{text}: {err}");
        }
        let edge = ConditionerConfig::parse("latency=60000,jitter=60000,loss=100,burst=1000")
            .expect("at the bounds");
        assert_eq!(
            (
                edge.latency_ms,
                edge.jitter_ms,
                edge.loss_permille,
                edge.burst_len
            ),
            (60_000, 60_000, 1000, 1000)
        );
    }

    mod fuzz {
        use super::*;
        use proptest::prelude::*;

        fn option_text() -> impl Strategy<Value = String> {
            let key = prop_oneof![
                Just("latency"),
                Just("jitter"),
                Just("loss"),
                Just("burst"),
                Just("dup"),
                Just("reorder"),
                Just("seed"),
                Just("x"),
            ];
            let value = prop_oneof![
                any::<u64>().prop_map(|v| v.to_string()),
                (0u32..70_000).prop_map(|v| v.to_string()),
                (0u32..200, 0u32..10).prop_map(|(a, b)| format!("{a}.{b}")),
                "\\PC{0,6}",
            ];
            proptest::collection::vec((key, value), 0..6).prop_map(|kv| {
                kv.iter()
                    .map(|(k, v)| format!("{k}={v}"))
                    .collect::<Vec<_>>()
                    .join(",")
            })
        }

        proptest! {
            #![proptest_config(ProptestConfig::with_cases(512))]

            /// Any option text parses or is refused with a message, never panics; whatever
            /// parses is within its ranges and impairs datagrams without panicking.
            #[test]
            fn any_option_text_is_parsed_or_refused_and_what_parses_runs(
                text in prop_oneof![option_text(), "\\PC{0,40}"],
            ) {
                if let Ok(c) = ConditionerConfig::parse(&text) {
                    prop_assert!(c.latency_ms <= MAX_DELAY_MS && c.jitter_ms <= MAX_DELAY_MS);
                    prop_assert!((1..=MAX_BURST).contains(&c.burst_len));
                    prop_assert!(c.loss_permille <= 1000 && c.duplicate_permille <= 1000);
                    prop_assert!(c.reorder_permille <= 1000);
                    let mut link = LinkConditioner::new(Wire::default(), c);
                    let to = "127.0.0.1:2".parse().expect("addr");
                    for i in 0..20u32 {
                        link.send(&i.to_le_bytes(), to);
                    }
                    link.release_due();
                }
            }
        }
    }
}
