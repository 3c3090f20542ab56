//! What sealing costs per datagram, next to the clear framing it replaced.
//!
//! - `datagram/clear_frame+open`: the old framing of a GGRS-sized payload (xxh3 check), framed
//!   and opened: the "before".
//! - `datagram/seal+open`: the same payload sealed under a Noise channel (ChaCha20-Poly1305
//!   with a counter nonce) and opened through its replay window: the "after".
//! - `handshake/noise_nn` and `handshake/noise_nnpsk0`: a whole handshake, both sides (once per
//!   peer per match).

use client::net::seal::{Channel, Initiator, Inner, InviteCode, Responder};
use client::net::wire::{self, Control, Kind};
use criterion::{criterion_group, criterion_main, BatchSize, Criterion};
use std::hint::black_box;

/// A typical GGRS input message at 60 Hz is 40–70 bytes.
const PAYLOAD: usize = 60;

fn pair(invite: Option<&InviteCode>) -> (Channel, Channel) {
    let mut joiner = Initiator::new(b"bench", invite).expect("initiator");
    let (answer, host) = Responder::read_hello(b"bench", invite, joiner.message())
        .expect("hello")
        .answer(b"welcome")
        .expect("answer");
    joiner.read_answer(&answer).expect("answer opens");
    (joiner.into_channel().expect("channel"), host)
}

fn bench(c: &mut Criterion) {
    let payload = vec![0x5au8; PAYLOAD];
    let mut group = c.benchmark_group("datagram");
    group.bench_function("clear_frame+open", |b| {
        let msg = Control::Reject {
            reason: "x".repeat(PAYLOAD - 12),
        };
        b.iter(|| {
            let d = wire::encode(Kind::Control, 7, black_box(&msg));
            black_box(wire::open(&d).is_ok())
        });
    });
    group.bench_function("seal+open", |b| {
        let (mut a, mut h) = pair(None);
        b.iter(|| {
            let d = a.seal(Inner::Ggrs, black_box(&payload)).expect("seal");
            black_box(h.open(&d).is_ok())
        });
    });
    group.finish();
    let code = InviteCode::from_bytes([3; InviteCode::BYTES]);
    let mut group = c.benchmark_group("handshake");
    for (name, invite) in [("noise_nn", None), ("noise_nnpsk0", Some(&code))] {
        group.bench_function(name, |b| {
            b.iter_batched(|| (), |()| black_box(pair(invite)), BatchSize::SmallInput);
        });
    }
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
