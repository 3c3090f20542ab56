//! A lost DTLS flight is resent: the WebRTC stack's DTLS (rtc-dtls 0.21.1, patched in
//! `vendor/rtc-dtls`) must finish a handshake whose server flight was lost once, as a WebRTC
//! room does when a router drops one datagram while two players connect.
//!
//! Two sans-IO endpoints talk in memory, the clock driven by hand: no sockets, no timing.

use rtc_dtls::cipher_suite::CipherSuiteId;
use rtc_dtls::config::{ConfigBuilder, HandshakeConfig};
use rtc_dtls::crypto::Certificate;
use rtc_dtls::crypto_provider::{default_provider, RTCCryptoProvider};
use rtc_dtls::endpoint::{Endpoint, EndpointEvent};
use rtc_shared::TransportProtocol;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::{Duration, Instant};

const CLIENT: SocketAddr =
    SocketAddr::new(std::net::IpAddr::V4(std::net::Ipv4Addr::LOCALHOST), 4444);
const SERVER: SocketAddr =
    SocketAddr::new(std::net::IpAddr::V4(std::net::Ipv4Addr::LOCALHOST), 4445);

fn config(provider: &Arc<dyn RTCCryptoProvider>, is_client: bool) -> Arc<HandshakeConfig> {
    let certificate = Certificate::generate_self_signed(vec!["lab".into()], provider.crypto())
        .expect("a self-signed certificate");
    let config = ConfigBuilder::default()
        .with_crypto_provider(Arc::clone(provider))
        .with_cipher_suites(vec![CipherSuiteId::Tls_Ecdhe_Ecdsa_With_Aes_128_Gcm_Sha256])
        .with_insecure_skip_verify(true)
        .with_certificates(vec![certificate])
        .build(is_client, None)
        .expect("a DTLS config");
    Arc::new(config)
}

/// Moves every datagram `from` has queued to `to` (or drops them all when `lose`); returns
/// how many there were and whether `to` finished its handshake.
fn deliver(
    from: &mut Endpoint,
    from_addr: SocketAddr,
    to: &mut Endpoint,
    now: Instant,
    lose: bool,
) -> (usize, bool) {
    let (mut sent, mut done) = (0, false);
    while let Some(datagram) = from.poll_transmit() {
        sent += 1;
        if lose {
            continue;
        }
        let events = to
            .read(now, from_addr, None, datagram.message)
            .expect("a DTLS record");
        done |= events
            .iter()
            .any(|e| matches!(e, EndpointEvent::HandshakeComplete));
    }
    (sent, done)
}

/// The server's flight 4 (ServerHello … ServerHelloDone) is lost once; the client's
/// retransmitted ClientHello then reaches the server before the server's own timer fires —
/// the order that left the server without a timer before the patch. Both sides must still
/// finish, within a few retransmit intervals.
#[test]
fn a_lost_server_flight_is_resent() {
    let provider = default_provider().expect("the ring crypto provider");
    let mut client = Endpoint::new(CLIENT, TransportProtocol::UDP, None);
    let mut server = Endpoint::new(
        SERVER,
        TransportProtocol::UDP,
        Some(config(&provider, false)),
    );
    let start = Instant::now();
    client
        .connect(start, SERVER, config(&provider, true), None)
        .expect("the client starts");
    deliver(&mut client, CLIENT, &mut server, start, false); // ClientHello
    deliver(&mut server, SERVER, &mut client, start, false); // HelloVerifyRequest
    deliver(&mut client, CLIENT, &mut server, start, false); // ClientHello with the cookie
    let (lost, _) = deliver(&mut server, SERVER, &mut client, start, true); // flight 4, lost
    assert!(lost > 0, "the server sent its flight 4");

    // The client's timer fires first and its resent ClientHello reaches the server.
    let mut now = client
        .poll_timeout(&SERVER)
        .expect("the client waits for flight 4");
    client
        .handle_timeout(SERVER, now)
        .expect("the client resends");
    deliver(&mut client, CLIENT, &mut server, now, false);
    assert!(
        server.poll_timeout(&CLIENT).is_some(),
        "the server, still missing the client's next flight, must keep its retransmit timer"
    );

    let (mut client_done, mut server_done) = (false, false);
    for _ in 0..6 {
        now += Duration::from_secs(1);
        server
            .handle_timeout(CLIENT, now)
            .expect("the server's timer");
        client_done |= deliver(&mut server, SERVER, &mut client, now, false).1;
        client
            .handle_timeout(SERVER, now)
            .expect("the client's timer");
        server_done |= deliver(&mut client, CLIENT, &mut server, now, false).1;
        client_done |= deliver(&mut server, SERVER, &mut client, now, false).1;
        if client_done && server_done {
            return;
        }
    }
    panic!(
        "the handshake did not finish within 6 s of a lost flight 4 \
         (client done: {client_done}, server done: {server_done})"
    );
}
