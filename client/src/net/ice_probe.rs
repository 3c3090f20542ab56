//! Asks a TURN server for a relay with our credentials, to say *why* no relay came when a room
//! found no path: webrtc-rs gathers TURN candidates silently, so a wrong password and a server
//! that never answers look the same from above (no relay candidate).
//!
//! The probe is WebRTC's own TURN client (`rtc-turn`, sans-IO) driven over one UDP socket for
//! a bounded time: an Allocate, answered by the long-term credential challenge, then the
//! Allocate with our user name and password. The relay it gets is released at once.

use rtc_shared::{TaggedBytesMut, TransportContext, TransportMessage, TransportProtocol};
use rtc_turn::client::{Client, ClientConfig, Event};
use sansio::Protocol;
use std::net::{SocketAddr, UdpSocket};
use std::time::{Duration, Instant};

/// What a TURN server said to our credentials.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum TurnProbe {
    /// It gave us a relay: the credentials work.
    Allocated,
    /// It refused the Allocate (the reason as the server gave it, e.g. "401 Unauthorized").
    Refused(String),
    /// It did not answer in time.
    Silent,
    /// The probe could not be made (the host does not resolve, no socket).
    NotProbed(String),
}

/// The `host:port` of a `turn:` URL (port 3478 by default); `None` for TURN over TCP or TLS
/// (`turns:`, `?transport=tcp`), which this probe does not speak.
pub(crate) fn turn_udp_server(url: &str) -> Option<String> {
    let rest = url.strip_prefix("turn:")?;
    let (server, query) = rest.split_once('?').unwrap_or((rest, ""));
    if query
        .split('&')
        .any(|q| q.eq_ignore_ascii_case("transport=tcp"))
    {
        return None;
    }
    // `[v6]:port`, `[v6]`, `host:port` or `host`.
    let has_port = match server.rsplit_once(']') {
        Some((_, after)) => after.starts_with(':'),
        None => server.contains(':'),
    };
    Some(if has_port {
        server.to_owned()
    } else {
        format!("{server}:3478")
    })
}

/// Asks `server` (`host:port`) for a relay as `user` with `password`, for at most `limit`.
pub(crate) fn probe_turn(server: &str, user: &str, password: &str, limit: Duration) -> TurnProbe {
    match try_probe(server, user, password, limit) {
        Ok(probe) => probe,
        Err(e) => TurnProbe::NotProbed(e),
    }
}

fn try_probe(
    server: &str,
    user: &str,
    password: &str,
    limit: Duration,
) -> Result<TurnProbe, String> {
    let socket = UdpSocket::bind("0.0.0.0:0").map_err(|e| format!("no UDP socket: {e}"))?;
    let local = socket.local_addr().map_err(|e| e.to_string())?;
    let crypto =
        rtc_turn::crypto::default_provider().map_err(|e| format!("no crypto provider: {e}"))?;
    let mut client = Client::new(
        ClientConfig {
            turn_serv_addr: server.to_owned(),
            local_addr: local,
            transport_protocol: TransportProtocol::UDP,
            username: user.to_owned(),
            password: password.to_owned(),
            ..ClientConfig::default()
        },
        crypto,
    )
    .map_err(|e| format!("`{server}`: {e}"))?;
    let start = Instant::now();
    let deadline = start + limit;
    client.allocate(start).map_err(|e| e.to_string())?;
    let mut buf = [0u8; 1500];
    loop {
        while let Some(out) = client.poll_write() {
            // A send that fails (no route) is a server that cannot answer.
            let _ = socket.send_to(&out.message, out.transport.peer_addr);
        }
        while let Some(event) = client.poll_event() {
            match event {
                Event::AllocateResponse(_, relayed) => {
                    if let Ok(mut relay) = client.relay(relayed) {
                        let _ = relay.close(Instant::now());
                    }
                    while let Some(out) = client.poll_write() {
                        let _ = socket.send_to(&out.message, out.transport.peer_addr);
                    }
                    return Ok(TurnProbe::Allocated);
                }
                Event::AllocateError(_, e) => return Ok(TurnProbe::Refused(e.to_string())),
                Event::TransactionTimeout(_) => return Ok(TurnProbe::Silent),
                _ => {}
            }
        }
        let now = Instant::now();
        if now >= deadline {
            return Ok(TurnProbe::Silent);
        }
        let wake = client.poll_timeout().map_or(deadline, |t| t.min(deadline));
        let wait = wake
            .saturating_duration_since(now)
            .max(Duration::from_millis(1));
        socket
            .set_read_timeout(Some(wait))
            .map_err(|e| e.to_string())?;
        match socket.recv_from(&mut buf) {
            Ok((n, from)) => {
                let message = TransportMessage {
                    now: Instant::now(),
                    transport: context(local, from),
                    message: buf[..n].into(),
                };
                // What does not parse is not the server's answer; keep waiting.
                let _ = client.handle_read(message as TaggedBytesMut);
            }
            Err(_) => {
                let _ = client.handle_timeout(Instant::now());
            }
        }
    }
}

fn context(local: SocketAddr, peer: SocketAddr) -> TransportContext {
    TransportContext {
        local_addr: local,
        peer_addr: peer,
        transport_protocol: TransportProtocol::UDP,
        ecn: None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_turn_url_gives_its_udp_server() {
        for (url, server) in [
            ("turn:h", Some("h:3478")),
            ("turn:h:5000", Some("h:5000")),
            ("turn:h:5000?transport=udp", Some("h:5000")),
            ("turn:[2001:db8::1]", Some("[2001:db8::1]:3478")),
            ("turn:[2001:db8::1]:9", Some("[2001:db8::1]:9")),
            ("turn:h?transport=tcp", None),
            ("turns:h:5349", None),
            ("stun:h:3478", None),
        ] {
            assert_eq!(turn_udp_server(url).as_deref(), server, "{url}");
        }
    }

    /// A TURN server in miniature, on loopback: it challenges an Allocate without credentials
    /// (401 with a realm and a nonce, as RFC 5766 says), then gives a relay only to a request
    /// signed with `user`/`password` (and refuses, 401, any other). Serves until `stop`.
    fn fake_turn(
        user: &'static str,
        password: &'static str,
    ) -> (String, std::sync::mpsc::Sender<()>) {
        use rtc_stun::attributes::{ATTR_NONCE, ATTR_REALM, ATTR_USERNAME};
        use rtc_stun::error_code::{ErrorCodeAttribute, CODE_UNAUTHORIZED};
        use rtc_stun::integrity::MessageIntegrity;
        use rtc_stun::message::{
            Message, MessageType, Setter, CLASS_ERROR_RESPONSE, CLASS_SUCCESS_RESPONSE,
            METHOD_ALLOCATE,
        };
        use rtc_stun::textattrs::TextAttribute;
        use rtc_turn::proto::lifetime::Lifetime;
        use rtc_turn::proto::relayaddr::RelayedAddress;
        let socket = UdpSocket::bind("127.0.0.1:0").expect("socket");
        socket
            .set_read_timeout(Some(Duration::from_millis(20)))
            .expect("timeout");
        let server = socket.local_addr().expect("addr").to_string();
        let (stop, stopped) = std::sync::mpsc::channel::<()>();
        std::thread::spawn(move || {
            let crypto = rtc_turn::crypto::default_provider().expect("crypto");
            let key = MessageIntegrity::long_term_integrity_key(
                user.into(),
                "lab".into(),
                password.into(),
                crypto.crypto(),
            )
            .expect("key");
            let mut buf = [0u8; 1500];
            while stopped.try_recv().is_err() {
                let Ok((n, from)) = socket.recv_from(&mut buf) else {
                    continue;
                };
                let mut request = Message::new();
                request.raw = buf[..n].to_vec();
                if request.decode().is_err() || request.typ.method != METHOD_ALLOCATE {
                    continue;
                }
                let signed = TextAttribute::get_from_as(&request, ATTR_USERNAME).is_ok();
                let good =
                    signed && MessageIntegrity::check(&mut request, &key, crypto.crypto()).is_ok();
                let mut answer = Message::new();
                let built = if good {
                    let integrity = MessageIntegrity::new_raw_integrity_with_provider(
                        key.clone(),
                        crypto.crypto(),
                    );
                    let setters: Vec<Box<dyn Setter + '_>> = vec![
                        Box::new(request.transaction_id),
                        Box::new(MessageType::new(METHOD_ALLOCATE, CLASS_SUCCESS_RESPONSE)),
                        Box::new(RelayedAddress {
                            ip: std::net::Ipv4Addr::LOCALHOST.into(),
                            port: 50_000,
                        }),
                        Box::new(Lifetime(Duration::from_secs(600))),
                        Box::new(integrity),
                    ];
                    answer.build(&setters)
                } else {
                    answer.build(&[
                        Box::new(request.transaction_id),
                        Box::new(MessageType::new(METHOD_ALLOCATE, CLASS_ERROR_RESPONSE)),
                        Box::new(ErrorCodeAttribute {
                            code: CODE_UNAUTHORIZED,
                            reason: b"Unauthorized".to_vec(),
                        }),
                        Box::new(TextAttribute::new(ATTR_REALM, "lab".into())),
                        Box::new(TextAttribute::new(ATTR_NONCE, "nonce1".into())),
                    ])
                };
                if built.is_ok() {
                    let _ = socket.send_to(&answer.raw, from);
                }
            }
        });
        (server, stop)
    }

    /// The right credentials get a relay; a wrong password or user is refused with the
    /// server's 401 (what the room's error then says).
    #[test]
    fn credentials_are_allocated_or_refused_as_the_server_says() {
        let (server, stop) = fake_turn("lab", "secret");
        let limit = Duration::from_secs(5);
        assert_eq!(
            probe_turn(&server, "lab", "secret", limit),
            TurnProbe::Allocated
        );
        for (user, password) in [("lab", "wrong"), ("other", "secret"), ("", "")] {
            match probe_turn(&server, user, password, limit) {
                TurnProbe::Refused(reason) => assert!(reason.contains("401"), "{reason}"),
                other => panic!("{user}/{password}: expected a refusal, got {other:?}"),
            }
        }
        let _ = stop.send(());
    }

    /// A server that never answers is silent within the limit; one that does not resolve is
    /// not probed.
    #[test]
    fn a_silent_server_and_an_unknown_host_say_so() {
        let silent = UdpSocket::bind("127.0.0.1:0").expect("socket");
        let server = silent.local_addr().expect("addr").to_string();
        assert_eq!(
            probe_turn(&server, "u", "p", Duration::from_millis(300)),
            TurnProbe::Silent
        );
        assert!(matches!(
            probe_turn(
                "no-such-host.invalid:3478",
                "u",
                "p",
                Duration::from_millis(300)
            ),
            TurnProbe::NotProbed(_)
        ));
    }
}
