//! A networked peer met in a WebRTC room instead of at a `host:port`: enter the room, settle
//! who hosts ([`crate::net::room`]), then the same handshake and session as over UDP.
//!
//! Only the transport differs: the link conditioner wraps it when configured, the socket
//! counts its bytes, and every refusal, timeout and disconnect is the same [`Error`] (and the
//! same exit status in the tools) as over UDP.

use crate::error::Error;
use crate::net::conditioner::LinkConditioner;
use crate::net::room::RoomPart;
use crate::net::socket::{Link, SharedLink};
use crate::net::webrtc::{RoomConfig, WebRtcTransport};
use crate::net::wire::Role;
use crate::session::netplay::{NetConfig, NetPeer};
use game_api::Game;
use std::net::SocketAddr;
use std::time::Instant;

/// A room entered and settled: the link to play over and this peer's part.
#[derive(Debug)]
pub struct OpenRoom {
    /// The room's transport (wrapped in the conditioner when the config has one).
    pub link: SharedLink,
    /// Host, join the host, or watch it.
    pub part: RoomPart<SocketAddr>,
    /// How many times the room was entered before it settled (1, plus one per negotiation
    /// that stalled: see [`WebRtcTransport::settle`]).
    pub entries: u32,
}

/// Enters `room` as `role` and waits until the room settles what this peer does. The
/// signalling server gets `config.handshake_timeout` to answer, and the room the rest of it to
/// settle.
///
/// This is what a menu calls to open a room; [`NetPeer::online_on`] then plays it.
///
/// # Errors
/// [`Error::Address`] (malformed URL or room name), [`Error::SignalUnreachable`],
/// [`Error::RoomLost`], [`Error::RoomNotConnected`] (nobody to play with could be connected
/// to, with the stage that failed).
pub fn open_room<G: Game>(
    room: &RoomConfig,
    role: Role,
    config: &NetConfig<G>,
) -> Result<OpenRoom, Error> {
    let deadline = Instant::now() + config.handshake_timeout;
    let mut transport = WebRtcTransport::connect(room, role, config.handshake_timeout)?;
    let part = transport.settle(deadline.saturating_duration_since(Instant::now()))?;
    let entries = transport.entries();
    let link = if config.conditioner.is_active() {
        Link::new(LinkConditioner::new(transport, config.conditioner))
    } else {
        Link::new(transport)
    };
    Ok(OpenRoom {
        link,
        part,
        entries,
    })
}

impl<G: Game> NetPeer<G> {
    /// Plays (or, as [`Role::Spectator`], watches) the match of `room`: [`open_room`], then
    /// [`NetPeer::online_on`].
    ///
    /// # Errors
    /// As [`open_room`] and [`NetPeer::host`].
    pub fn online(
        room: &RoomConfig,
        role: Role,
        config: &NetConfig<G>,
    ) -> Result<NetPeer<G>, Error> {
        let open = open_room(room, role, config)?;
        Self::online_on(open.link, open.part, config)
    }

    /// Runs the handshake for the part the room gave this peer: hosts, joins the host, or
    /// watches it, exactly as over UDP.
    ///
    /// # Errors
    /// As [`NetPeer::host`]; a player arriving in a room whose match is full is refused with
    /// [`Error::Refused`], as over UDP.
    pub fn online_on(
        link: SharedLink,
        part: RoomPart<SocketAddr>,
        config: &NetConfig<G>,
    ) -> Result<NetPeer<G>, Error> {
        match part {
            RoomPart::Host => NetPeer::host_on(link, config),
            RoomPart::Join(host) => NetPeer::join_on(link, host, Role::Player, config),
            RoomPart::Spectate(host) => NetPeer::join_on(link, host, Role::Spectator, config),
        }
    }
}
