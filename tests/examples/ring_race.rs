//! The ring race, headless, over UDP through the same netcode as the duel: one process hosts,
//! another joins (another machine, or this one), each plays a scripted racer for `TICKS` ticks
//! at 60 Hz, writes a hash log and a match log, and prints where the race ended.
//!
//! ```text
//! cargo run -p integration-tests --example ring_race -- host 7070
//! cargo run -p integration-tests --example ring_race -- join 127.0.0.1:7070
//! ```
//!
//! Both print the same final hash; `ring-race-host.hashes` and `ring-race-join.hashes` agree
//! line for line (the library's `desync_report::<RingRace>` compares them).

use client::logs::peer_logs::{LogPaths, PeerLogs};
use client::session::netplay::{NetConfig, NetEvent, NetPeer};
use game_api::{Game, SectionHash, Tick};
use ring_race::{buttons, RingInput, RingRace};
use std::net::SocketAddr;
use std::path::PathBuf;
use std::time::{Duration, Instant};

/// Ticks each side plays: ten seconds.
const TICKS: Tick = 600;

/// A racer that sweeps forward and back and dashes now and then, differently per slot.
fn racer(slot: usize, tick: Tick) -> RingInput {
    let forward = (tick / 90) % 2 == (slot as u32) % 2;
    RingInput {
        thrust: if forward { 100 } else { -60 },
        buttons: if tick.is_multiple_of(45 + 7 * slot as u32) {
            buttons::DASH
        } else {
            0
        },
    }
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let config = NetConfig::<RingRace>::default();
    let mut peer = match args.as_slice() {
        [mode, port] if mode == "host" => {
            let bind: SocketAddr = format!("0.0.0.0:{port}").parse()?;
            println!("ring race: hosting on {bind}, waiting for a racer");
            NetPeer::<RingRace>::host(bind, &config)?
        }
        [mode, host] if mode == "join" => {
            let host: SocketAddr = host.parse()?;
            println!("ring race: joining {host}");
            NetPeer::<RingRace>::join(host, "0.0.0.0:0".parse()?, &config)?
        }
        _ => return Err("usage: ring_race host PORT | ring_race join HOST:PORT".into()),
    };
    let slot = peer.local_slot().unwrap_or(0);
    let role = if slot == 0 { "host" } else { "join" };
    let paths = LogPaths {
        hash_log: Some(PathBuf::from(format!("ring-race-{role}.hashes"))),
        match_log: Some(PathBuf::from(format!("ring-race-{role}.log"))),
        dump_dir: None,
    };
    let mut logs = PeerLogs::open(&peer, &paths, None)?;
    let frame = Duration::from_secs(1) / config.fps;
    let mut next = Instant::now();
    while logs.logged() < TICKS {
        let tick = peer.world().tick();
        peer.advance(racer(slot, tick))?;
        logs.catch_up(&peer, TICKS)?;
        for event in peer.take_events() {
            if let NetEvent::DesyncDetected { tick, .. } = event {
                eprintln!("ring race: desync detected at tick {tick}");
            }
        }
        next += frame;
        std::thread::sleep(next.saturating_duration_since(Instant::now()));
    }
    let clean = peer.finish(TICKS, Duration::from_secs(5));
    logs.close(clean)?;
    let state = peer.driver().snapshot_at(TICKS)?;
    let scores: Vec<u8> = state.racers.iter().map(|r| r.score).collect();
    println!(
        "ring race: {role} at tick {TICKS}, hash {:016x}, scores {scores:?}, winner {:?}; logs {} and {}",
        RingRace::snapshot_hash(state).combined(),
        state.winner,
        paths.hash_log.as_deref().map_or(String::new(), |p| p.display().to_string()),
        paths.match_log.as_deref().map_or(String::new(), |p| p.display().to_string()),
    );
    Ok(())
}
