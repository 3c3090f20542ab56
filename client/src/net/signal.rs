//! The signalling server: it only introduces the peers of a room to each other (WebRTC offers,
//! answers and ICE candidates go through it); the match itself goes peer to peer.
//!
//! It is `matchbox_signaling`'s server with a topology of our own, [`SecretMesh`]: the
//! full mesh of matchbox (every peer in a room is introduced to every other, signals go from
//! one peer to the one it names), plus two guards, because anyone who can reach the server can
//! speak to it:
//!
//! - **Admission.** Rooms are the path of the URL, and the room's secret its query
//!   (`ws://HOST:PORT/ROOM?secret=SECRET`, see [`crate::net::room_secret`]). The first peer of a
//!   room fixes its secret (or opens it without one); a later peer presenting another secret,
//!   or none, is refused at the websocket upgrade with `403 Forbidden` and the reason in the
//!   body, before it is introduced to anyone. A room whose last peer has left forgets its
//!   secret. A path that is no room name, or a query that is no valid secret, is refused with
//!   `400`.
//! - **What is relayed.** Every request is at most [`MAX_MESSAGE_BYTES`] of JSON that parses
//!   as a matchbox request, and every signal passes `net::signal_check` (its SDP parses and
//!   can be applied; its ICE candidate parses). matchbox `unwrap`s what it is sent, so one bad
//!   signal would end the receiving peer's every connection, its match included: a peer
//!   sending one is disconnected instead (a close frame saying why), and the others are told
//!   it left. A peer sending more than [`MAX_SIGNALS`] signals is disconnected too, and a room
//!   takes at most [`MAX_PEERS_PER_ROOM`] peers (`503` beyond).
//!
//! It runs on a thread of its own with a small tokio runtime, so a test, `duel-cli signal` or
//! the game can start one in-process.

use crate::error::Error;
use crate::net::room::check_room_name;
use crate::net::room_secret::{self, RoomSecret};
use crate::net::signal_check::check_signal;
use axum::extract::ws::{CloseFrame, Message};
use axum::http::{StatusCode, Uri};
use axum::response::IntoResponse;
use futures::StreamExt;
use matchbox_signaling::common_logic::SignalingChannel;
use matchbox_signaling::{
    NoCallbacks, SignalingServerBuilder, SignalingState, SignalingTopology, WsStateMeta,
};
use matchbox_socket::{PeerEvent, PeerId, PeerRequest};
use std::collections::HashMap;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex, PoisonError};
use std::thread::JoinHandle;

pub use crate::net::signal_check::MAX_MESSAGE_BYTES;

/// The most signals one peer may send in its connection (a handshake takes an offer or an
/// answer and a few candidates per local address).
pub const MAX_SIGNALS: u32 = 1024;

/// The most peers a room holds: two players and their spectators, with room to spare. Every
/// newcomer costs every peer in the room a WebRTC negotiation, so a peer with the secret may
/// not open connections without end.
pub const MAX_PEERS_PER_ROOM: usize = 16;

/// Separates a room's name from its secret in the path the admission hands on to the topology
/// (neither may hold it).
const KEY_SEPARATOR: char = ':';

/// A running signalling server; dropping it shuts it down.
#[derive(Debug)]
pub struct SignalServer {
    addr: SocketAddr,
    shutdown: Option<tokio::sync::oneshot::Sender<()>>,
    thread: Option<JoinHandle<Result<(), String>>>,
}

impl SignalServer {
    /// Binds `bind` (port 0 picks a free port) and serves rooms there until dropped.
    ///
    /// # Errors
    /// [`Error::Bind`] (the port is in use, the address is not local) or
    /// [`Error::SignalServer`] if its runtime cannot start.
    pub fn start(bind: SocketAddr) -> Result<SignalServer, Error> {
        let (shutdown, stop) = tokio::sync::oneshot::channel();
        let rooms = Rooms::default();
        let gate = rooms.clone();
        let mut server = SignalingServerBuilder::new(bind, SecretMesh, rooms)
            .with_shutdown(stop)
            .build_with(move |router| {
                let admission = axum::middleware::from_fn(
                    move |mut request: axum::extract::Request, next: axum::middleware::Next| {
                        let admitted = gate.admit(request.uri());
                        async move {
                            match admitted {
                                Ok(uri) => {
                                    *request.uri_mut() = uri;
                                    next.run(request).await
                                }
                                Err(refusal) => refusal.into_response(),
                            }
                        }
                    },
                );
                // Before matchbox's routes: they take the room from the path the admission
                // wrote (a layer on `router` would run after its routing).
                axum::Router::new().fallback_service(tower::Layer::layer(&admission, router))
            });
        let addr = server.bind().map_err(|e| match e {
            matchbox_signaling::Error::Bind(cause) => Error::Bind { addr: bind, cause },
            other => Error::SignalServer(other.to_string()),
        })?;
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .map_err(|e| Error::SignalServer(format!("cannot start its runtime: {e}")))?;
        let thread = std::thread::Builder::new()
            .name("signal-server".into())
            .spawn(move || runtime.block_on(server.serve()).map_err(|e| e.to_string()))
            .map_err(|e| Error::SignalServer(format!("cannot start its thread: {e}")))?;
        Ok(SignalServer {
            addr,
            shutdown: Some(shutdown),
            thread: Some(thread),
        })
    }

    /// The address it listens on.
    #[must_use]
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// The URL peers give as `--signal`: `ws://ADDR`.
    #[must_use]
    pub fn url(&self) -> String {
        format!("ws://{}", self.addr)
    }

    /// Serves until the server stops by itself (it does not, unless it fails).
    ///
    /// # Errors
    /// [`Error::SignalServer`] with the reason it stopped.
    pub fn wait(mut self) -> Result<(), Error> {
        let thread = self.thread.take();
        match thread.map(JoinHandle::join) {
            Some(Ok(Err(reason))) => Err(Error::SignalServer(reason)),
            Some(Err(_)) => Err(Error::SignalServer("its thread panicked".into())),
            Some(Ok(Ok(()))) | None => Ok(()),
        }
    }
}

impl Drop for SignalServer {
    fn drop(&mut self) {
        if let Some(shutdown) = self.shutdown.take() {
            let _ = shutdown.send(());
        }
        // Shutting down closes the peers' websockets and waits at most a few seconds for them.
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

/// One room: its secret, fixed by its first peer, and the peers in it.
#[derive(Debug, Default)]
struct Room {
    secret: Option<RoomSecret>,
    peers: HashMap<PeerId, SignalingChannel>,
}

/// The rooms with someone in them, shared by the admission and every peer's connection.
#[derive(Debug, Clone, Default)]
pub struct Rooms(Arc<Mutex<HashMap<String, Room>>>);

impl SignalingState for Rooms {}

/// Why a peer cannot be in a room with another secret.
fn another_secret(name: &str, presented: Option<&RoomSecret>) -> String {
    match presented {
        Some(_) => format!("the room `{name}` is protected by another secret"),
        None => format!("the room `{name}` is protected by a secret, and this link has none"),
    }
}

fn room_full(name: &str) -> String {
    format!("the room `{name}` holds {MAX_PEERS_PER_ROOM} peers, the most a room takes")
}

impl Rooms {
    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<String, Room>> {
        // Nothing panics while holding it; should something, the map is still consistent.
        self.0.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Decides on a websocket request before it is upgraded: the URI to hand on (its path
    /// names the room and secret for [`SecretMesh`]), or the status and reason to refuse it
    /// with.
    fn admit(&self, uri: &Uri) -> Result<Uri, (StatusCode, String)> {
        let refuse = |status: StatusCode, reason: String| Err((status, reason));
        let name = uri.path().strip_prefix('/').unwrap_or_default();
        if let Err(reason) = check_room_name(name) {
            return refuse(StatusCode::BAD_REQUEST, format!("not a room: {reason}"));
        }
        let secret = match room_secret::parse_query(uri.query()) {
            Ok(secret) => secret,
            Err(reason) => return refuse(StatusCode::BAD_REQUEST, reason),
        };
        if let Some(room) = self.lock().get(name) {
            if room.secret != secret {
                return refuse(StatusCode::FORBIDDEN, another_secret(name, secret.as_ref()));
            }
            if room.peers.len() >= MAX_PEERS_PER_ROOM {
                return refuse(StatusCode::SERVICE_UNAVAILABLE, room_full(name));
            }
        }
        let key = format!(
            "/{name}{KEY_SEPARATOR}{}",
            secret.as_ref().map_or("", RoomSecret::as_str)
        );
        key.parse()
            .map_err(|_| (StatusCode::BAD_REQUEST, "not a room".to_owned()))
    }

    /// Puts `peer` in the room `name` (creating it with `secret`) and introduces it to the
    /// peers already there; `Err` when another secret holds the room (a peer of another secret
    /// got in between the admission and here).
    fn join(
        &self,
        name: &str,
        secret: Option<RoomSecret>,
        peer: PeerId,
        channel: SignalingChannel,
    ) -> Result<(), String> {
        let mut rooms = self.lock();
        let room = rooms.entry(name.to_owned()).or_default();
        if room.peers.is_empty() {
            room.secret = secret;
        } else if room.secret != secret {
            return Err(another_secret(name, secret.as_ref()));
        } else if room.peers.len() >= MAX_PEERS_PER_ROOM {
            return Err(room_full(name));
        }
        let new_peer = event_text(&PeerEvent::NewPeer(peer));
        for other in room.peers.values() {
            let _ = other.send(Ok(Message::Text(new_peer.clone().into())));
        }
        room.peers.insert(peer, channel);
        Ok(())
    }

    /// Takes `peer` out of its room and tells the others; an empty room is forgotten, secret
    /// and all.
    fn leave(&self, name: &str, peer: PeerId) {
        let mut rooms = self.lock();
        let Some(room) = rooms.get_mut(name) else {
            return;
        };
        if room.peers.remove(&peer).is_none() {
            return;
        }
        if room.peers.is_empty() {
            rooms.remove(name);
            return;
        }
        let left = event_text(&PeerEvent::PeerLeft(peer));
        for other in room.peers.values() {
            let _ = other.send(Ok(Message::Text(left.clone().into())));
        }
    }

    /// Checks one request of `sender` in room `name` and relays its signal; `Err` says why the
    /// sender must be disconnected.
    fn relay(&self, name: &str, sender: PeerId, text: &str) -> Result<(), String> {
        if text.len() > MAX_MESSAGE_BYTES {
            return Err(format!(
                "a message of {} bytes; at most {MAX_MESSAGE_BYTES}",
                text.len()
            ));
        }
        let request: PeerRequest =
            serde_json::from_str(text).map_err(|e| format!("not a signalling request: {e}"))?;
        let (receiver, data) = match request {
            PeerRequest::KeepAlive => return Ok(()),
            PeerRequest::Signal { receiver, data } => (receiver, data),
        };
        check_signal(&data)?;
        let event = event_text(&PeerEvent::Signal { sender, data });
        // A receiver in no room of ours, or in another room, is not told (matchbox does the
        // same: a peer may have just left).
        if let Some(channel) = self.lock().get(name).and_then(|r| r.peers.get(&receiver)) {
            let _ = channel.send(Ok(Message::Text(event.into())));
        }
        Ok(())
    }
}

fn event_text(event: &PeerEvent) -> String {
    serde_json::to_string(event).expect("peer events serialize")
}

/// Closes a peer's websocket with "policy violation" and the reason (cut to what a close frame
/// holds).
fn close(channel: &SignalingChannel, reason: &str) {
    let mut reason = reason.to_owned();
    while reason.len() > 120 {
        reason.pop();
    }
    let _ = channel.send(Ok(Message::Close(Some(CloseFrame {
        code: 1008,
        reason: reason.into(),
    }))));
}

/// The full mesh of matchbox behind our admission, relaying only signals that pass
/// `net::signal_check` (see the module doc).
#[derive(Debug, Default)]
pub struct SecretMesh;

#[matchbox_socket::async_trait::async_trait]
impl SignalingTopology<NoCallbacks, Rooms> for SecretMesh {
    async fn state_machine(upgrade: WsStateMeta<NoCallbacks, Rooms>) {
        let WsStateMeta {
            room: key,
            peer_id,
            sender,
            mut receiver,
            state: rooms,
            ..
        } = upgrade;
        // The admission wrote the key; anything else reaching here is refused all the same.
        let parsed = key.split_once(KEY_SEPARATOR).and_then(|(name, secret)| {
            let secret = match secret {
                "" => None,
                s => Some(RoomSecret::parse(s).ok()?),
            };
            check_room_name(name)
                .ok()
                .map(|()| (name.to_owned(), secret))
        });
        let Some((name, secret)) = parsed else {
            close(&sender, "not a room");
            return;
        };
        if let Err(reason) = rooms.join(&name, secret, peer_id, sender.clone()) {
            close(&sender, &reason);
            return;
        }
        let mut signals = 0u32;
        let violation = loop {
            let text = match receiver.next().await {
                Some(Ok(Message::Text(text))) => text,
                Some(Ok(Message::Ping(_) | Message::Pong(_))) => continue,
                Some(Ok(Message::Binary(_))) => break Some("a binary message".to_owned()),
                Some(Ok(Message::Close(_)) | Err(_)) | None => break None,
            };
            signals += 1;
            if signals > MAX_SIGNALS {
                break Some(format!("more than {MAX_SIGNALS} requests"));
            }
            if let Err(reason) = rooms.relay(&name, peer_id, text.as_str()) {
                break Some(reason);
            }
        };
        if let Some(reason) = violation {
            close(&sender, &format!("disconnected: {reason}"));
        }
        rooms.leave(&name, peer_id);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::signal_check::tests::{GOOD_CANDIDATE, GOOD_SDP};
    use matchbox_socket::PeerSignal;

    fn uri(s: &str) -> Uri {
        s.parse().expect("uri")
    }

    fn status(r: Result<Uri, (StatusCode, String)>) -> StatusCode {
        r.err().map_or(StatusCode::OK, |(status, _)| status)
    }

    fn channel() -> (
        SignalingChannel,
        tokio::sync::mpsc::UnboundedReceiver<Result<Message, axum::Error>>,
    ) {
        tokio::sync::mpsc::unbounded_channel()
    }

    fn texts(
        rx: &mut tokio::sync::mpsc::UnboundedReceiver<Result<Message, axum::Error>>,
    ) -> Vec<String> {
        std::iter::from_fn(|| rx.try_recv().ok())
            .map(|m| match m {
                Ok(Message::Text(t)) => t.as_str().to_owned(),
                other => format!("{other:?}"),
            })
            .collect()
    }

    const S1: &str = "aaaaaaaaaaaaaaaaaaaaaaaa";
    const S2: &str = "bbbbbbbbbbbbbbbbbbbbbbbb";

    #[test]
    fn the_first_peer_fixes_the_secret_and_an_empty_room_forgets_it() {
        let rooms = Rooms::default();
        let s1 = RoomSecret::parse(S1).ok();
        assert_eq!(
            rooms
                .admit(&uri(&format!("/duel?secret={S1}")))
                .expect("empty room"),
            uri(&format!("/duel:{S1}"))
        );
        let a = uuid_like(1);
        rooms
            .join("duel", s1.clone(), a, channel().0)
            .expect("first");
        assert_eq!(
            status(rooms.admit(&uri(&format!("/duel?secret={S1}")))),
            StatusCode::OK
        );
        for other in [format!("/duel?secret={S2}"), "/duel".to_owned()] {
            assert_eq!(
                status(rooms.admit(&uri(&other))),
                StatusCode::FORBIDDEN,
                "{other}"
            );
        }
        // Between the admission and the join, another secret got in first: refused there.
        let b = uuid_like(2);
        let e = rooms
            .join("duel", RoomSecret::parse(S2).ok(), b, channel().0)
            .expect_err("another secret");
        assert!(e.contains("protected by another secret"), "{e}");
        // Other rooms are not affected; the room is forgotten once empty.
        assert_eq!(status(rooms.admit(&uri("/other"))), StatusCode::OK);
        rooms.leave("duel", a);
        assert_eq!(
            status(rooms.admit(&uri(&format!("/duel?secret={S2}")))),
            StatusCode::OK
        );
        assert!(rooms.lock().is_empty());
    }

    #[test]
    fn a_room_holds_a_bounded_number_of_peers() {
        let rooms = Rooms::default();
        for n in 0..MAX_PEERS_PER_ROOM {
            assert_eq!(
                status(rooms.admit(&uri("/crowd"))),
                StatusCode::OK,
                "peer {n}"
            );
            rooms
                .join("crowd", None, uuid_like(n as u128), channel().0)
                .expect("room left");
        }
        assert_eq!(
            status(rooms.admit(&uri("/crowd"))),
            StatusCode::SERVICE_UNAVAILABLE
        );
        let e = rooms
            .join("crowd", None, uuid_like(99), channel().0)
            .expect_err("full");
        assert!(e.contains("the most a room takes"), "{e}");
        rooms.leave("crowd", uuid_like(0));
        assert_eq!(status(rooms.admit(&uri("/crowd"))), StatusCode::OK);
    }

    #[test]
    fn malformed_rooms_and_secrets_are_bad_requests() {
        let rooms = Rooms::default();
        for bad in [
            "/",
            "/a/b",
            "/..",
            "/duel?secret=short",
            "/duel?other=1",
            "/duel?secret=aaaaaaaaaaaaaaaa&x=1",
            "/duel:aaaaaaaaaaaaaaaa",
        ] {
            assert_eq!(
                status(rooms.admit(&uri(bad))),
                StatusCode::BAD_REQUEST,
                "{bad}"
            );
        }
    }

    fn uuid_like(n: u128) -> matchbox_socket::PeerId {
        // PeerId wraps a UUID; any 128 bits make one.
        serde_json::from_str(&format!("\"{:032x}\"", n)).expect("a uuid")
    }

    #[test]
    fn only_good_signals_are_relayed_to_the_peer_named() {
        let rooms = Rooms::default();
        let (a, b) = (uuid_like(1), uuid_like(2));
        let (a_tx, mut a_rx) = channel();
        let (b_tx, mut b_rx) = channel();
        rooms.join("r", None, a, a_tx).expect("a");
        rooms.join("r", None, b, b_tx).expect("b");
        assert_eq!(texts(&mut a_rx).len(), 1, "a is told b is new");
        let request = |data: PeerSignal| {
            serde_json::to_string(&PeerRequest::Signal { receiver: a, data }).expect("json")
        };
        for good in [
            request(PeerSignal::Answer(GOOD_SDP.into())),
            request(PeerSignal::IceCandidate(GOOD_CANDIDATE.into())),
            serde_json::to_string(&PeerRequest::KeepAlive).expect("json"),
        ] {
            assert_eq!(rooms.relay("r", b, &good), Ok(()));
        }
        assert_eq!(
            texts(&mut a_rx).len(),
            2,
            "both signals relayed, not the keep-alive"
        );
        for bad in [
            request(PeerSignal::Answer("garbage".into())),
            request(PeerSignal::Offer(String::new())),
            request(PeerSignal::IceCandidate("{".into())),
            "not json".into(),
            r#"{"Signal":{"receiver":"x","data":1}}"#.into(),
            request(PeerSignal::Answer(format!(
                "{GOOD_SDP}{}",
                " ".repeat(MAX_MESSAGE_BYTES)
            ))),
        ] {
            assert!(rooms.relay("r", b, &bad).is_err(), "{bad:.80}");
        }
        assert!(texts(&mut a_rx).is_empty(), "nothing malformed reached a");
        rooms.leave("r", b);
        assert_eq!(texts(&mut a_rx).len(), 1, "a is told b left");
        assert!(texts(&mut b_rx).is_empty());
    }

    fn events(
        rx: &mut tokio::sync::mpsc::UnboundedReceiver<Result<Message, axum::Error>>,
    ) -> Vec<PeerEvent> {
        texts(rx)
            .iter()
            .map(|t| serde_json::from_str(t).expect("a peer event"))
            .collect()
    }

    /// Peers in a room are told, as matchbox's events, who came, what was signalled to them
    /// and by whom, and who left.
    #[test]
    fn peers_are_told_who_came_what_was_signalled_and_who_left() {
        let rooms = Rooms::default();
        let (a, b) = (uuid_like(1), uuid_like(2));
        let (a_tx, mut a_rx) = channel();
        rooms.join("r", None, a, a_tx).expect("a");
        rooms.join("r", None, b, channel().0).expect("b");
        assert_eq!(events(&mut a_rx), [PeerEvent::NewPeer(b)]);
        let data = PeerSignal::IceCandidate(GOOD_CANDIDATE.into());
        let request = PeerRequest::Signal {
            receiver: a,
            data: data.clone(),
        };
        let text = serde_json::to_string(&request).expect("json");
        rooms.relay("r", b, &text).expect("relayed");
        rooms.leave("r", b);
        assert_eq!(
            events(&mut a_rx),
            [
                PeerEvent::Signal { sender: b, data },
                PeerEvent::PeerLeft(b)
            ]
        );
    }

    /// A request of exactly [`MAX_MESSAGE_BYTES`] is read; one byte more disconnects its sender.
    #[test]
    fn a_request_of_max_message_bytes_is_the_longest_read() {
        let rooms = Rooms::default();
        rooms.join("r", None, uuid_like(1), channel().0).expect("a");
        let keep_alive = serde_json::to_string(&PeerRequest::KeepAlive).expect("json");
        // JSON may end in whitespace: the same request, padded to the limit.
        let longest = format!("{keep_alive:<MAX_MESSAGE_BYTES$}");
        assert_eq!(longest.len(), MAX_MESSAGE_BYTES);
        assert_eq!(rooms.relay("r", uuid_like(1), &longest), Ok(()));
        let e = rooms
            .relay("r", uuid_like(1), &format!("{longest} "))
            .expect_err("one byte too many");
        assert!(e.contains(&format!("at most {MAX_MESSAGE_BYTES}")), "{e}");
    }

    /// The reason a peer is disconnected for goes in a close frame with the policy-violation
    /// code, whole up to 120 bytes, cut to its first 120 beyond (a close frame holds 123).
    #[test]
    fn a_close_frame_says_why_in_at_most_120_bytes() {
        for (reason, sent) in [
            ("short".to_owned(), "short".to_owned()),
            ("r".repeat(120), "r".repeat(120)),
            (format!("{}tail", "r".repeat(120)), "r".repeat(120)),
        ] {
            let (tx, mut rx) = channel();
            close(&tx, &reason);
            match rx.try_recv() {
                Ok(Ok(Message::Close(Some(frame)))) => {
                    assert_eq!(frame.code, 1008);
                    assert_eq!(frame.reason.as_str(), sent);
                }
                other => panic!("expected a close frame, got {other:?}"),
            }
        }
    }

    /// A websocket client of the server under test: it speaks matchbox's protocol by hand.
    mod over_websockets {
        use super::*;
        use futures::SinkExt;
        use tokio_tungstenite::tungstenite::Message as WsMessage;

        type Socket = tokio_tungstenite::WebSocketStream<
            tokio_tungstenite::MaybeTlsStream<tokio::net::TcpStream>,
        >;

        /// Runs `f` on a small runtime of its own.
        fn client<T>(f: impl std::future::Future<Output = T>) -> T {
            tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .expect("runtime")
                .block_on(f)
        }

        /// The next event the server sends, or the reason of the close frame it sends instead.
        async fn next(ws: &mut Socket) -> Result<PeerEvent, String> {
            loop {
                match ws.next().await {
                    Some(Ok(WsMessage::Text(t))) => {
                        return Ok(serde_json::from_str(t.as_str()).expect("a peer event"))
                    }
                    Some(Ok(WsMessage::Close(frame))) => {
                        return Err(frame.map_or(String::new(), |f| f.reason.as_str().to_owned()))
                    }
                    Some(Ok(_)) => {}
                    Some(Err(e)) => return Err(format!("websocket error: {e}")),
                    None => return Err("closed without a frame".to_owned()),
                }
            }
        }

        /// Enters `room` of the server at `url`; the socket and the id the server assigned.
        async fn enter(url: &str, room: &str) -> (Socket, PeerId) {
            let (mut ws, _) = tokio_tungstenite::connect_async(format!("{url}/{room}"))
                .await
                .expect("the upgrade is accepted");
            match next(&mut ws).await {
                Ok(PeerEvent::IdAssigned(id)) => (ws, id),
                other => panic!("expected an id first, got {other:?}"),
            }
        }

        async fn send(ws: &mut Socket, request: &PeerRequest) {
            let text = serde_json::to_string(request).expect("json");
            ws.send(WsMessage::Text(text.into())).await.expect("sent");
        }

        /// A server started on port 0 serves at the address and URL it gives, introduces the
        /// peers of a room to each other, and is gone once dropped.
        #[test]
        fn a_server_serves_where_it_says_until_dropped() {
            let server = SignalServer::start("127.0.0.1:0".parse().expect("addr")).expect("start");
            let addr = server.addr();
            assert!(addr.ip().is_loopback() && addr.port() != 0, "{addr}");
            assert_eq!(server.url(), format!("ws://{addr}"));
            let url = server.url();
            client(async {
                let (mut a, _) = enter(&url, "duel").await;
                let (b, b_id) = enter(&url, "duel").await;
                assert_eq!(next(&mut a).await, Ok(PeerEvent::NewPeer(b_id)));
                drop((a, b));
            });
            drop(server);
            let refused = client(tokio_tungstenite::connect_async(format!("{url}/duel")));
            assert!(refused.is_err(), "a dropped server still accepts");
        }

        /// `wait` serves on: it does not return while the server runs (a `duel-cli signal`
        /// that returned at once would stop serving). The server waited on here serves until
        /// the test process ends.
        #[test]
        fn waiting_on_a_server_does_not_return_while_it_serves() {
            let server = SignalServer::start("127.0.0.1:0".parse().expect("addr")).expect("start");
            let url = server.url();
            let (returned, wait_returned) = std::sync::mpsc::channel();
            std::thread::spawn(move || {
                let _ = returned.send(server.wait());
            });
            // A wait that returned would have dropped the server; it still serves, and `wait`
            // has not returned (the bound only gives a wrong `wait` time to show itself).
            client(async {
                let (mut a, _) = enter(&url, "waited").await;
                let (_b, b_id) = enter(&url, "waited").await;
                assert_eq!(next(&mut a).await, Ok(PeerEvent::NewPeer(b_id)));
            });
            let waited = wait_returned.recv_timeout(std::time::Duration::from_millis(300));
            assert!(
                matches!(waited, Err(std::sync::mpsc::RecvTimeoutError::Timeout)),
                "wait returned while the server serves: {waited:?}"
            );
        }

        /// A peer may send [`MAX_SIGNALS`] requests; the next one is not relayed, and the server
        /// disconnects it saying why.
        #[test]
        fn a_peer_is_disconnected_after_max_signals_requests() {
            let server = SignalServer::start("127.0.0.1:0".parse().expect("addr")).expect("start");
            let url = server.url();
            client(async {
                let (mut ws, me) = enter(&url, "chatty").await;
                // A signal to itself comes back: it shows which requests were relayed.
                let to_self = PeerRequest::Signal {
                    receiver: me,
                    data: PeerSignal::IceCandidate(GOOD_CANDIDATE.into()),
                };
                for _ in 1..MAX_SIGNALS {
                    send(&mut ws, &PeerRequest::KeepAlive).await;
                }
                send(&mut ws, &to_self).await;
                assert!(
                    matches!(next(&mut ws).await, Ok(PeerEvent::Signal { sender, .. }) if sender == me),
                    "request {MAX_SIGNALS} is relayed"
                );
                send(&mut ws, &to_self).await;
                assert_eq!(
                    next(&mut ws).await,
                    Err(format!("disconnected: more than {MAX_SIGNALS} requests"))
                );
            });
        }
    }
}
