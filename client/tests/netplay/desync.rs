//! An injected desync in a two-peer headless match is found: `duel-cli desync` names the exact
//! tick and field from the two peers' hash logs and snapshot dumps.

use crate::child::{output_within, CHILD_LIMIT};
use crate::common::*;
use client::wire::Role;
use std::process::Command;

#[test]
fn injected_desync_is_named_down_to_the_field() {
    let dir = scratch_dir("desync");
    let (h, j) = (dir.join("host.log"), dir.join("join.log"));
    let mut host_plan = plan(300, 1, &h);
    host_plan.inject_desync = Some(150);
    let (addr, host) = spawn_host(
        || loopback_link(Default::default()),
        test_config(Default::default()),
        host_plan,
    );
    let joiner = spawn_joiner(
        || loopback_link(Default::default()),
        addr,
        Role::Player,
        test_config(Default::default()),
        plan(300, 2, &j),
    );
    let host = host.join().expect("host thread").expect("host run");
    let joiner = joiner.join().expect("joiner thread").expect("joiner run");
    assert!(
        host.desyncs > 0 && joiner.desyncs > 0,
        "both peers detect it: {host} / {joiner}"
    );
    let out = output_within(
        Command::new(env!("CARGO_BIN_EXE_duel-cli"))
            .arg("desync")
            .arg(&h)
            .arg(&j),
        CHILD_LIMIT,
    );
    let text = String::from_utf8_lossy(&out.stdout);
    println!("{text}");
    assert_eq!(out.status.code(), Some(2), "divergence exits 2");
    assert!(
        text.contains("first divergence at tick 150, section players"),
        "{text}"
    );
    assert!(text.contains("fields that differ at tick 150:"), "{text}");
    assert!(text.contains("players[1].pos.x: "), "{text}");
}
