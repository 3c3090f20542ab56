//! Lag-compensated rail, through a rough link (~200 ms round trip, 5 % loss): with remote
//! players shown from confirmed history and the view carried in the input, the shots a
//! shooter sees hit are the shots that end confirmed as hits.

use crate::common::*;
use client::net::wire::Role;
use client::remote_view::RemoteView;
use client::runs::rail_fairness::{
    fairness_rules, run_fairness_peer, FairnessPlan, FairnessReport,
};
use client::session::netplay::NetPeer;
use engine::World;
use std::sync::mpsc;
use std::time::Duration;

fn fairness_pair(
    view: RemoteView,
    ticks: u32,
    latency_ms: u32,
) -> (FairnessReport, FairnessReport) {
    let link = move |seed| client::net::conditioner::ConditionerConfig {
        latency_ms,
        ..rough_link(seed)
    };
    let plan = FairnessPlan {
        ticks,
        bot_seed: 11,
        view,
        fps: 60,
        input_delay: client::session::netplay::NetConfig::<World>::default().input_delay,
        deadline: Duration::from_secs(u64::from(ticks) / 15 + 60),
    };
    let config = |seed| client::session::netplay::NetConfig::<World> {
        rules: fairness_rules(),
        ..test_config(link(seed))
    };
    let (tx, rx) = mpsc::channel();
    let host_config = config(21);
    let host_plan = FairnessPlan {
        bot_seed: 12,
        ..plan.clone()
    };
    let host = std::thread::spawn(move || {
        let link = loopback_link(link(21));
        tx.send(link.borrow().local_addr()).expect("address");
        let peer = NetPeer::<World>::host_on(link, &host_config)?;
        run_fairness_peer(peer, &host_plan)
    });
    let addr = rx.recv().expect("host address");
    let peer = NetPeer::<World>::join_on(loopback_link(link(22)), addr, Role::Player, &config(22))
        .expect("join");
    let joiner = run_fairness_peer(peer, &plan).expect("joiner runs");
    let host = host.join().expect("host thread").expect("host runs");
    (host, joiner)
}

#[test]
fn past_view_shots_seen_as_hits_are_confirmed_hits() {
    let (host, joiner) = fairness_pair(RemoteView::Past, 1500, 100);
    println!("host   {host}\njoiner {joiner}");
    for r in [host, joiner] {
        assert!(r.ticks >= 1400, "the run went on: {r}");
        assert!(r.rollbacks > 20, "the link forced rollbacks: {r}");
        assert!(r.seen_hits >= 20, "enough hits to judge: {r}");
        // The view's promise, exactly: a shot aimed the same way is judged the same way.
        assert_eq!(r.seen_hits_lost_same_aim, 0, "{r}");
    }
    // Overall (a shooter's own position can still be moved by an unconfirmed collision).
    let seen = host.seen_hits + joiner.seen_hits;
    let confirmed = host.seen_hits_confirmed + joiner.seen_hits_confirmed;
    assert!(
        confirmed * 100 >= seen * 97,
        "agreement {confirmed}/{seen}: host {host}, joiner {joiner}"
    );
}
