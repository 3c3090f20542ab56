//! GGRS sessions around the deterministic core: the configuration, the driver that serves
//! GGRS's save/load/advance requests, sync tests, networked peers (host, joiner, spectator; met
//! at an address or in an online room),
//! frame pacing and network/rollback statistics.

mod config;
pub mod connecting;
pub mod driver;
pub mod lagged;
pub mod netplay;
#[cfg(feature = "webrtc")]
pub mod online;
pub mod pacing;
pub mod stats;
pub mod synctest;

pub use config::GgrsConfig;

#[cfg(test)]
mod tests {
    /// Issue 22: a peer, its driver and a sync test can move to another thread (a game polls
    /// them wherever it likes, not only on the window's thread).
    #[test]
    fn peers_drivers_and_sync_tests_are_send() {
        fn send<T: Send>() {}
        send::<super::netplay::NetPeer<engine::World>>();
        send::<super::driver::Driver<engine::World>>();
        send::<super::synctest::SyncTester<engine::World>>();
        send::<crate::net::socket::SharedLink>();
    }
}
