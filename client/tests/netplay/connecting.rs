//! The polled connection a window runs between frames (`client::session::connecting`): host and joiner
//! polled in turn on one thread, never blocking, through their stages to running peers.

use crate::common::*;
use client::net::wire::Role;
use client::session::connecting::{ConnectStage, Connecting};
use engine::World;
use std::time::{Duration, Instant};

#[test]
fn polled_connections_go_through_their_stages_on_one_thread() {
    let mut host_config = test_config(Default::default());
    // Past at once: a host from a menu waits until it is cancelled, not for this.
    host_config.handshake_timeout = Duration::ZERO;
    let host_link = loopback_link(Default::default());
    let addr = host_link.borrow().local_addr();
    let mut host = Connecting::<World>::host(host_link, &host_config).waiting_indefinitely();
    assert_eq!(host.stage(), ConnectStage::Waiting { for_player: true });
    for _ in 0..20 {
        assert!(host.poll().expect("still waiting").is_none());
        std::thread::sleep(Duration::from_millis(5));
    }
    let config = test_config(Default::default());
    let mut joiner = Connecting::<World>::join(
        loopback_link(Default::default()),
        addr,
        Role::Player,
        &config,
    );
    assert_eq!(joiner.stage(), ConnectStage::Asking);
    let (mut host_stages, mut joiner_stages) = (Vec::new(), Vec::new());
    let (mut hosted, mut joined) = (None, None);
    let hang_guard = Instant::now() + Duration::from_secs(30);
    while hosted.is_none() || joined.is_none() {
        assert!(Instant::now() < hang_guard, "never connected");
        if hosted.is_none() {
            hosted = host.poll().expect("host");
            host_stages.push(host.stage());
        }
        match joined.as_mut() {
            None => {
                joined = joiner.poll().expect("joiner");
                joiner_stages.push(joiner.stage());
            }
            // A joiner plays on once handed over; the host hands over once it hears input.
            Some(peer) => {
                peer.advance(engine::WireInput::default())
                    .expect("joiner plays");
            }
        }
        std::thread::sleep(Duration::from_millis(1));
    }
    let syncing = |s: &ConnectStage| matches!(s, ConnectStage::Synchronizing { .. });
    for (who, stages) in [("host", &host_stages), ("joiner", &joiner_stages)] {
        assert!(
            stages.iter().any(syncing),
            "{who} never showed synchronizing"
        );
    }
    assert!(host_stages
        .iter()
        .take_while(|s| !syncing(s))
        .all(|s| *s == ConnectStage::Waiting { for_player: true }));
    let last_progress = joiner_stages.iter().rev().find_map(|s| match s {
        ConnectStage::Synchronizing { done, total } => Some((*done, *total)),
        _ => None,
    });
    assert!(
        last_progress.is_some_and(|(done, total)| total > 0 && done <= total),
        "{last_progress:?}"
    );
    let (hosted, joined) = (hosted.expect("host peer"), joined.expect("joiner peer"));
    assert_eq!(hosted.agreement().local_slot, Some(0));
    assert_eq!(joined.agreement().local_slot, Some(1));
    let err = host.poll().expect_err("handed over");
    assert!(err.to_string().contains("over"), "{err}");
}
