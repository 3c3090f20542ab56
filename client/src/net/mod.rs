//! The network layer: raw datagram transports, our framing on the wire, the handshake before
//! tick 0, the socket GGRS talks through, GGRS's messages checked against the match's limits, and
//! a link conditioner for testing under latency and loss; and the WebRTC transport with its
//! rooms and signalling server, for play across the internet without port forwarding (cargo
//! feature `webrtc`, on by default).

pub mod conditioner;
pub mod ggrs_message;
pub mod handshake;
#[cfg(feature = "webrtc")]
pub(crate) mod ice_probe;
#[cfg(feature = "webrtc")]
pub(crate) mod negotiation;
#[cfg(feature = "webrtc")]
pub mod room;
#[cfg(feature = "webrtc")]
pub(crate) mod room_peers;
pub mod room_secret;
pub mod seal;
#[cfg(feature = "webrtc")]
pub mod signal;
#[cfg(feature = "webrtc")]
pub(crate) mod signal_check;
#[cfg(feature = "webrtc")]
pub(crate) mod signaller;
pub mod socket;
pub mod transport;
#[cfg(feature = "webrtc")]
pub mod webrtc;
pub mod wire;
