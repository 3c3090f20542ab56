//! Networked sessions end to end: sync test, two peers and a spectator over loopback UDP
//! through the link conditioner (in one process and as separate OS processes), garbage
//! datagrams, a vanishing peer, handshake refusals; and peers meeting in an online room over
//! WebRTC through an in-process signalling server, and attackers of its rooms.

mod attacks;
#[path = "../support/child.rs"]
mod child;
mod common;
mod connecting;
mod desync;
mod garbage;
mod handshake;
mod hostile;
mod journal;
mod late_spectator;
mod processes;
mod rail_fairness;
mod raw;
mod reconnect;
mod rejoin;
mod resync;
mod session;
mod spectators_across_epochs;
mod synctest;
mod vanish;
mod webrtc;
mod webrtc_hostile;
