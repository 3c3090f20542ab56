//! Garbage fired at a live session: random bytes, truncated, bit-flipped and replayed sealed
//! datagrams, sealed datagrams re-addressed to another channel, and intact clear frames with an
//! undecodable payload, arriving "from" the real peer, and junk and forged clear `Finish`es from
//! a third address. Nothing panics, nothing desyncs, the match runs to the end, and every
//! refused datagram is counted by kind.

use crate::common::*;
use client::net::transport::{Transport, UdpTransport};
use client::net::wire::{self, Kind, Role};
use engine::DetRng;
use std::net::{SocketAddr, UdpSocket};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

/// A transport that, every few reads, hands up a hostile datagram as if the last real sender
/// had sent it: random bytes, a truncated, replayed or bit-flipped real datagram, a real sealed
/// datagram re-addressed to another channel id, or an intact clear control frame whose payload
/// does not decode.
struct Hostile {
    inner: UdpTransport,
    rng: DetRng,
    seen: Vec<(Vec<u8>, SocketAddr)>,
    reads: u64,
    /// Hostile datagrams produced, by kind: random, truncated, replayed, bit-flipped, other
    /// channel, undecodable.
    made: [u64; 6],
}

impl Hostile {
    fn new(seed: u64) -> Hostile {
        let inner = UdpTransport::bind("127.0.0.1:0".parse().expect("addr")).expect("bind");
        Hostile {
            inner,
            rng: DetRng::from_seed(seed),
            seen: Vec::new(),
            reads: 0,
            made: [0; 6],
        }
    }
}

impl Transport for Hostile {
    fn send(&mut self, bytes: &[u8], to: SocketAddr) {
        self.inner.send(bytes, to);
    }

    fn recv(&mut self, buf: &mut [u8]) -> Option<(usize, SocketAddr)> {
        self.reads += 1;
        if self.reads.is_multiple_of(7) && !self.seen.is_empty() {
            let (sample, from) = self.seen[self.rng.below(self.seen.len() as u32) as usize].clone();
            let kind = self.rng.below(6) as usize;
            let bytes: Vec<u8> = match kind {
                0 => (0..1 + self.rng.below(200))
                    .map(|_| self.rng.next_u32() as u8)
                    .collect(),
                1 => sample[..self.rng.below(sample.len() as u32) as usize].to_vec(),
                2 => sample,
                3 => {
                    let mut b = sample;
                    let i = self.rng.below(b.len() as u32) as usize;
                    b[i] ^= 1 << self.rng.below(8);
                    b
                }
                // A real sealed datagram under another channel id (a stale match on the same
                // ports looks so); a clear sample stays as it is.
                4 => {
                    let mut b = sample;
                    if client::net::seal::sealed_id(&b).is_some() {
                        b[3] = b[3].wrapping_add(1);
                    }
                    b
                }
                // An intact clear frame: the check passes, so only the payload can refuse it.
                _ => wire::encode(Kind::Control, 0, &u32::MAX), // no such variant
            };
            self.made[kind] += 1;
            buf[..bytes.len()].copy_from_slice(&bytes);
            return Some((bytes.len(), from));
        }
        let (len, from) = self.inner.recv(buf)?;
        if self.seen.len() < 256 {
            self.seen.push((buf[..len].to_vec(), from));
        } else {
            let i = self.rng.below(256) as usize;
            self.seen[i] = (buf[..len].to_vec(), from);
        }
        Some((len, from))
    }

    fn local_addr(&self) -> SocketAddr {
        self.inner.local_addr()
    }
}

/// Sends junk and forged control datagrams from a third address until told to stop.
fn third_party(targets: Vec<SocketAddr>, stop: Arc<AtomicBool>) -> std::thread::JoinHandle<u64> {
    std::thread::spawn(move || {
        let socket = UdpSocket::bind("127.0.0.1:0").expect("bind attacker");
        let mut rng = DetRng::from_seed(99);
        let forged = client::net::wire::encode(
            client::net::wire::Kind::Control,
            0,
            &client::net::wire::Control::Finish { confirmed: 1 },
        );
        let mut sent = 0;
        while !stop.load(Ordering::Relaxed) {
            for target in &targets {
                let junk: Vec<u8> = (0..1 + rng.below(64))
                    .map(|_| rng.next_u32() as u8)
                    .collect();
                let _ = socket.send_to(&junk, target);
                let _ = socket.send_to(&forged, target);
                sent += 2;
            }
            std::thread::sleep(Duration::from_millis(5));
        }
        sent
    })
}

/// Contract: over a rough link, garbage from the real peer's address and from a third one
/// never reaches GGRS or ends the match; logs stay identical and each kind is counted.
#[test]
fn garbage_is_dropped_and_counted_while_the_match_goes_on() {
    let dir = scratch_dir("garbage");
    let ticks = 900;
    let (h, j) = (dir.join("host.log"), dir.join("join.log"));
    let host_transport = Hostile::new(5);
    let join_transport = Hostile::new(6);
    let join_addr = join_transport.local_addr();
    let (host_addr, host) = spawn_host(
        move || wrap(host_transport, rough_link(1)),
        test_config(rough_link(1)),
        plan(ticks, 1, &h),
    );
    let stop = Arc::new(AtomicBool::new(false));
    let attacker = third_party(vec![host_addr, join_addr], stop.clone());
    let joiner = spawn_joiner(
        move || wrap(join_transport, rough_link(2)),
        host_addr,
        Role::Player,
        test_config(rough_link(2)),
        plan(ticks, 2, &j),
    );
    let host = host.join().expect("host thread").expect("host run");
    let joiner = joiner.join().expect("joiner thread").expect("joiner run");
    stop.store(true, Ordering::Relaxed);
    let junk_sent = attacker.join().expect("attacker");
    assert!(junk_sent > 100);
    for (name, s) in [("host", &host), ("joiner", &joiner)] {
        println!("{name}: {s} {:?}", s.socket);
        assert_eq!(
            (s.ticks, s.desyncs, s.disconnected),
            (ticks, 0, None),
            "{name}"
        );
        assert!(
            s.socket.dropped_unknown_sender > 0,
            "{name}: third-party datagrams counted"
        );
        assert!(
            s.socket.dropped_damaged > 0,
            "{name}: random/truncated/flipped counted"
        );
        assert!(
            s.socket.dropped_wrong_session > 0,
            "{name}: sealed datagrams of another channel counted"
        );
        assert!(
            s.socket.dropped_replayed > 0,
            "{name}: replayed sealed datagrams counted"
        );
        assert!(
            s.socket.dropped_unauthenticated > 0,
            "{name}: flipped sealed datagrams and forged clear Finishes counted"
        );
        assert!(
            s.socket.dropped_undecodable > 0,
            "{name}: intact frames that do not decode counted"
        );
    }
    assert_logs_identical(&[&h, &j], ticks);
}
