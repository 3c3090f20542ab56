//! The signalling server: it only introduces the peers of a room to each other (WebRTC offers,
//! answers and ICE candidates go through it); the match itself goes peer to peer.
//!
//! This wraps `matchbox_signaling`'s full-mesh server: rooms are the path of the URL
//! (`ws://HOST:PORT/ROOM`), every peer in a room is introduced to every other. It runs on a
//! thread of its own with a small tokio runtime, so a test, `duel-cli signal` or the game can
//! start one in-process.

use crate::error::Error;
use matchbox_signaling::SignalingServer;
use std::net::SocketAddr;
use std::thread::JoinHandle;

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
        let mut server = SignalingServer::full_mesh_builder(bind)
            .with_shutdown(stop)
            .build();
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
