//! GGRS sessions around the deterministic core: the configuration, the driver that serves
//! GGRS's save/load/advance requests, sync tests, networked peers (host, joiner, spectator; met
//! at an address or in an online room),
//! frame pacing and network/rollback statistics.

mod config;
pub mod connecting;
pub mod driver;
pub mod netplay;
pub mod online;
pub mod pacing;
pub mod stats;
pub mod synctest;

pub use config::GgrsConfig;
