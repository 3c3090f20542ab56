//! The socket GGRS talks through: our framing over any [`Transport`], with a list of known
//! peers, a session id, and counters for everything it sends, receives and drops.

use crate::transport::{Transport, MAX_DATAGRAM};
use crate::wire::{self, Control, Kind};
use ggrs::{Message, NonBlockingSocket};
use std::cell::RefCell;
use std::net::SocketAddr;
use std::rc::Rc;

/// What crossed (or was refused at) the socket.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct SocketCounters {
    /// Bytes handed to the transport (headers included).
    pub bytes_sent: u64,
    /// Bytes received from known peers (headers included).
    pub bytes_received: u64,
    /// Datagrams sent.
    pub datagrams_sent: u64,
    /// Datagrams accepted.
    pub datagrams_received: u64,
    /// Datagrams from an address that is not a peer of this match.
    pub dropped_unknown_sender: u64,
    /// Datagrams that are not intact datagrams of ours (random bytes, truncated, corrupted).
    pub dropped_damaged: u64,
    /// Intact datagrams whose payload does not decode.
    pub dropped_undecodable: u64,
    /// GGRS datagrams carrying another session id (a stale match).
    pub dropped_wrong_session: u64,
}

impl SocketCounters {
    /// Every datagram refused, whatever the reason.
    #[must_use]
    pub fn dropped(&self) -> u64 {
        self.dropped_unknown_sender
            + self.dropped_damaged
            + self.dropped_undecodable
            + self.dropped_wrong_session
    }
}

/// The transport and the state shared by the handshake, the GGRS socket and the peer loop.
pub struct Link {
    transport: Box<dyn Transport>,
    session: u32,
    peers: Vec<SocketAddr>,
    counters: SocketCounters,
    control: Vec<(SocketAddr, Control)>,
    /// Control datagrams to repeat to a peer whenever it sends a `Hello` again (the host's
    /// `Welcome`, in case the first one was lost).
    answers: Vec<(SocketAddr, Vec<u8>)>,
    buf: Vec<u8>,
}

impl std::fmt::Debug for Link {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Link")
            .field("local", &self.transport.local_addr())
            .field("session", &self.session)
            .field("peers", &self.peers)
            .field("counters", &self.counters)
            .finish_non_exhaustive()
    }
}

/// A shared handle to a [`Link`]; the GGRS session owns one, the peer loop another.
pub type SharedLink = Rc<RefCell<Link>>;

impl Link {
    /// A link over `transport`, with no peers yet and session 0 (handshake only).
    pub fn new(transport: impl Transport + 'static) -> SharedLink {
        Rc::new(RefCell::new(Link {
            transport: Box::new(transport),
            session: 0,
            peers: Vec::new(),
            counters: SocketCounters::default(),
            control: Vec::new(),
            answers: Vec::new(),
            buf: vec![0; MAX_DATAGRAM],
        }))
    }

    /// The address datagrams arrive on.
    #[must_use]
    pub fn local_addr(&self) -> SocketAddr {
        self.transport.local_addr()
    }

    /// Accepts datagrams from `peer` from now on.
    pub fn add_peer(&mut self, peer: SocketAddr) {
        if !self.peers.contains(&peer) {
            self.peers.push(peer);
        }
    }

    /// The peers whose datagrams are accepted.
    #[must_use]
    pub fn peers(&self) -> &[SocketAddr] {
        &self.peers
    }

    /// Sets the session id GGRS datagrams carry.
    pub fn set_session(&mut self, session: u32) {
        self.session = session;
    }

    /// Repeats `datagram` to `peer` whenever it says `Hello` again.
    pub fn answer_hellos_with(&mut self, peer: SocketAddr, datagram: Vec<u8>) {
        self.answers.retain(|(p, _)| *p != peer);
        self.answers.push((peer, datagram));
    }

    /// Counters so far.
    #[must_use]
    pub fn counters(&self) -> SocketCounters {
        self.counters
    }

    fn send_raw(&mut self, bytes: &[u8], to: SocketAddr) {
        self.counters.bytes_sent += bytes.len() as u64;
        self.counters.datagrams_sent += 1;
        self.transport.send(bytes, to);
    }

    /// Sends a control message.
    pub fn send_control(&mut self, msg: &Control, to: SocketAddr) {
        let bytes = wire::encode(Kind::Control, self.session, msg);
        self.send_raw(&bytes, to);
    }

    /// Reads everything waiting: control messages go to the control inbox (from any sender
    /// while `accept_strangers`, else from peers only), GGRS messages are returned.
    pub fn pump(&mut self, accept_strangers: bool) -> Vec<(SocketAddr, Message)> {
        let mut ggrs_messages = Vec::new();
        let mut buf = std::mem::take(&mut self.buf);
        while let Some((len, from)) = self.transport.recv(&mut buf) {
            let known = self.peers.contains(&from);
            let opened = wire::open(&buf[..len]);
            match opened {
                Err(_) if !known && !accept_strangers => self.counters.dropped_unknown_sender += 1,
                Err(_) => self.counters.dropped_damaged += 1,
                Ok((Kind::Control, _, payload)) if known || accept_strangers => {
                    match wire::decode::<Control>(payload) {
                        Ok(msg) => {
                            self.counters.bytes_received += len as u64;
                            self.counters.datagrams_received += 1;
                            if matches!(msg, Control::Hello { .. }) {
                                self.repeat_answer(from);
                            }
                            self.control.push((from, msg));
                        }
                        Err(_) => self.counters.dropped_undecodable += 1,
                    }
                }
                Ok((Kind::Ggrs, session, payload)) if known => {
                    if session != self.session || self.session == 0 {
                        self.counters.dropped_wrong_session += 1;
                        continue;
                    }
                    match wire::decode::<Message>(payload) {
                        Ok(msg) => {
                            self.counters.bytes_received += len as u64;
                            self.counters.datagrams_received += 1;
                            ggrs_messages.push((from, msg));
                        }
                        Err(_) => self.counters.dropped_undecodable += 1,
                    }
                }
                Ok(_) => self.counters.dropped_unknown_sender += 1,
            }
        }
        self.buf = buf;
        ggrs_messages
    }

    fn repeat_answer(&mut self, to: SocketAddr) {
        if let Some(bytes) = self
            .answers
            .iter()
            .find(|(p, _)| *p == to)
            .map(|(_, b)| b.clone())
        {
            self.send_raw(&bytes, to);
        }
    }

    /// Takes the control messages received so far.
    pub fn take_control(&mut self) -> Vec<(SocketAddr, Control)> {
        std::mem::take(&mut self.control)
    }
}

/// The [`NonBlockingSocket`] handed to GGRS: a handle to the shared [`Link`].
#[derive(Debug, Clone)]
pub struct GameSocket {
    link: SharedLink,
}

impl GameSocket {
    /// A GGRS socket over `link`.
    #[must_use]
    pub fn new(link: SharedLink) -> GameSocket {
        GameSocket { link }
    }
}

impl NonBlockingSocket<SocketAddr> for GameSocket {
    fn send_to(&mut self, msg: &Message, addr: &SocketAddr) {
        let mut link = self.link.borrow_mut();
        let bytes = wire::encode(Kind::Ggrs, link.session, msg);
        link.send_raw(&bytes, *addr);
    }

    fn receive_all_messages(&mut self) -> Vec<(SocketAddr, Message)> {
        self.link.borrow_mut().pump(false)
    }
}
