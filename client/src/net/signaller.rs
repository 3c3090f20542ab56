//! How our peers speak to a signalling server: what matchbox's own native signaller does (one
//! websocket, JSON requests and events), plus two guards.
//!
//! - **A refusal says why.** A server that refuses the websocket upgrade (ours does for a room
//!   held by another secret, [`crate::net::signal`]) answers with a status and a reason in the body;
//!   matchbox would report only "HTTP error: 403". The reason is kept for the transport, which
//!   turns it into [`crate::Error::RoomRefused`]. So is the reason of a close frame.
//! - **Malformed signals never reach matchbox.** matchbox 0.15 `unwrap`s the SDP a peer sends
//!   it, so one garbage answer (from a peer of a server that does not check, or a server that
//!   is not ours) would panic its message loop and end every connection of this peer, its match
//!   included. Every event is parsed here first and every signal checked with
//!   [`crate::net::signal_check`]; what fails is dropped and counted (that peer's handshake then
//!   never completes, which ends nothing else). Messages are bounded in size.
//! - **What passed is noted.** Who was introduced or left, and the kinds of ICE candidates each
//!   side sent, go to the transport ([`SignalNote`]), which follows each negotiation with them
//!   (`net::negotiation`): whether to try again, and why a room connected nobody.

use crate::net::negotiation::{CandidateKinds, SignalNote};
use crate::net::signal_check::{check_signal, MAX_MESSAGE_BYTES};
use async_tungstenite::smol::{connect_async_with_config, ConnectStream};
use async_tungstenite::tungstenite::{self, protocol::WebSocketConfig, Message};
use async_tungstenite::WebSocketStream;
use futures::StreamExt;
use matchbox_socket::async_trait::async_trait;
use matchbox_socket::{
    PeerEvent, PeerRequest, PeerSignal, SignalingError, Signaller, SignallerBuilder,
};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};

/// The largest event accepted from the server: a signal relayed as it was sent, plus the
/// sender's id.
const MAX_EVENT_BYTES: usize = MAX_MESSAGE_BYTES + 1024;
/// The most bytes of a refusal's body kept for the message.
const MAX_REASON_BYTES: usize = 200;
/// The most notes kept between two reads by the transport (a hostile server could send events
/// without end; the first ones are what a diagnosis needs).
const MAX_NOTES: usize = 4096;

/// What the signaller tells the transport, from matchbox's thread.
#[derive(Debug, Default, Clone)]
pub(crate) struct SignalReport {
    /// Why the server refused us or closed our websocket, if it said.
    refusal: Arc<Mutex<Option<String>>>,
    /// Events dropped: not JSON events, or signals that failed the checks.
    dropped: Arc<AtomicU64>,
    /// What passed, not yet taken by the transport.
    notes: Arc<Mutex<Vec<SignalNote>>>,
}

impl SignalReport {
    /// Why the server refused or closed, if it said.
    pub(crate) fn refusal(&self) -> Option<String> {
        self.refusal
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }

    /// Events dropped so far.
    pub(crate) fn dropped(&self) -> u64 {
        self.dropped.load(Ordering::Relaxed)
    }

    fn refuse(&self, reason: String) {
        *self.refusal.lock().unwrap_or_else(PoisonError::into_inner) = Some(reason);
    }

    /// What passed since the last call, in order.
    pub(crate) fn take_notes(&self) -> Vec<SignalNote> {
        std::mem::take(&mut *self.notes.lock().unwrap_or_else(PoisonError::into_inner))
    }

    fn note(&self, note: SignalNote) {
        let mut notes = self.notes.lock().unwrap_or_else(PoisonError::into_inner);
        if notes.len() < MAX_NOTES {
            notes.push(note);
        }
    }
}

/// The kinds of ICE candidates a signal carries.
fn candidates_in(signal: &PeerSignal) -> CandidateKinds {
    match signal {
        PeerSignal::IceCandidate(text) | PeerSignal::Offer(text) | PeerSignal::Answer(text) => {
            CandidateKinds::in_text(text)
        }
    }
}

/// Builds [`GuardedSignaller`]s; matchbox calls it once, with the room URL.
#[derive(Debug)]
pub(crate) struct GuardedSignallerBuilder(pub(crate) SignalReport);

/// Printable text of at most [`MAX_REASON_BYTES`] from what a server sent.
fn printable(bytes: &[u8]) -> String {
    let text = String::from_utf8_lossy(&bytes[..bytes.len().min(MAX_REASON_BYTES)]);
    text.chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect::<String>()
        .trim()
        .to_owned()
}

#[async_trait]
impl SignallerBuilder for GuardedSignallerBuilder {
    /// Connects once (the transport asks for one attempt: an unreachable server is reported at
    /// once).
    async fn new_signaller(
        &self,
        _attempts: Option<u16>,
        room_url: String,
    ) -> Result<Box<dyn Signaller>, SignalingError> {
        let config = WebSocketConfig::default()
            .max_message_size(Some(MAX_EVENT_BYTES))
            .max_frame_size(Some(MAX_EVENT_BYTES));
        match connect_async_with_config(room_url, Some(config)).await {
            Ok((websocket, _)) => Ok(Box::new(GuardedSignaller {
                websocket,
                report: self.0.clone(),
            })),
            Err(tungstenite::Error::Http(response)) => {
                let body = response
                    .body()
                    .as_deref()
                    .map(printable)
                    .unwrap_or_default();
                let reason = if body.is_empty() {
                    format!("it answered {}", response.status())
                } else {
                    body
                };
                self.0.refuse(reason.clone());
                Err(SignalingError::UserImplementationError(reason))
            }
            Err(e) => Err(SignalingError::NegotiationFailed(Box::new(
                SignalingError::WebSocket(e),
            ))),
        }
    }
}

/// One websocket to the signalling server, checking what comes in (see the module doc).
struct GuardedSignaller {
    websocket: WebSocketStream<ConnectStream>,
    report: SignalReport,
}

#[async_trait]
impl Signaller for GuardedSignaller {
    async fn send(&mut self, request: PeerRequest) -> Result<(), SignalingError> {
        if let PeerRequest::Signal { receiver, data } = &request {
            self.report
                .note(SignalNote::To(*receiver, candidates_in(data)));
        }
        let text = serde_json::to_string(&request)
            .map_err(|e| SignalingError::UserImplementationError(e.to_string()))?;
        self.websocket
            .send(Message::Text(text.into()))
            .await
            .map_err(SignalingError::from)
    }

    async fn next_message(&mut self) -> Result<PeerEvent, SignalingError> {
        loop {
            let text = match self.websocket.next().await {
                Some(Ok(Message::Text(text))) => text,
                Some(Ok(Message::Close(frame))) => {
                    if let Some(frame) = frame.filter(|f| !f.reason.is_empty()) {
                        self.report.refuse(printable(frame.reason.as_bytes()));
                    }
                    return Err(SignalingError::StreamExhausted);
                }
                // Pings are answered by tungstenite; binary messages are not signalling.
                Some(Ok(_)) => continue,
                Some(Err(e)) => return Err(SignalingError::from(e)),
                None => return Err(SignalingError::StreamExhausted),
            };
            let event = serde_json::from_str::<PeerEvent>(text.as_str()).ok();
            let checked = event.filter(|event| match event {
                PeerEvent::Signal { data, .. } => check_signal(data).is_ok(),
                _ => true,
            });
            match checked {
                Some(event) => {
                    match &event {
                        PeerEvent::NewPeer(id) => self.report.note(SignalNote::NewPeer(*id)),
                        PeerEvent::PeerLeft(id) => self.report.note(SignalNote::PeerLeft(*id)),
                        PeerEvent::Signal { sender, data } => self
                            .report
                            .note(SignalNote::From(*sender, candidates_in(data))),
                        PeerEvent::IdAssigned(_) => {}
                    }
                    return Ok(event);
                }
                None => {
                    self.report.dropped.fetch_add(1, Ordering::Relaxed);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_refusal_is_cut_to_printable_text() {
        assert_eq!(
            printable(b"  the room `x` is protected\r\n"),
            "the room `x` is protected"
        );
        assert_eq!(printable(b"a\x1b[31mb"), "a [31mb");
        assert_eq!(printable(&[b'x'; 1000]).len(), MAX_REASON_BYTES);
        assert_eq!(printable(&[0xff, b'o', b'k']), "\u{fffd}ok");
    }
}
