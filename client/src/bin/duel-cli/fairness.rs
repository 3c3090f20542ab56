//! `rail-fairness`: two OS peers on loopback, each a child process running the hidden
//! `rail-fairness-peer` subcommand, once per way of showing remote players; and that peer.

use anyhow::Result;
use client::net::conditioner::ConditionerConfig;
use client::remote_view::RemoteView;
use std::net::SocketAddr;
use std::time::Duration;

/// Runs both sides of a fairness run as child processes for each view and prints the table.
pub(crate) fn rail_fairness(
    ticks: u32,
    conditioner: &str,
    port: u16,
    input_delay: usize,
) -> Result<()> {
    use client::runs::rail_fairness::FairnessReport;
    use std::process::{Command as Process, Stdio};
    ConditionerConfig::parse(conditioner).map_err(anyhow::Error::msg)?;
    let exe = std::env::current_exe()?;
    out!("rail fairness: {ticks} ticks per run, link {conditioner} each way, input delay {input_delay}");
    for view in ["predicted", "past"] {
        let addr = format!("127.0.0.1:{port}");
        let side = |role: &str| {
            Process::new(&exe)
                .args(["rail-fairness-peer", role, &addr, view])
                .args(["--ticks", &ticks.to_string(), "--conditioner", conditioner])
                .args(["--input-delay", &input_delay.to_string()])
                .stdout(Stdio::piped())
                .spawn()
        };
        let host = side("host")?;
        let join = side("join")?;
        let report = |child: std::process::Child, role: &str| -> Result<FairnessReport> {
            let out = child.wait_with_output()?;
            let text = String::from_utf8_lossy(&out.stdout);
            let line = text.lines().last().unwrap_or_default();
            anyhow::ensure!(
                out.status.success(),
                "{role} side failed ({}): {text}",
                out.status
            );
            FairnessReport::parse(line).map_err(anyhow::Error::msg)
        };
        let (h, j) = (report(host, "host")?, report(join, "join")?);
        let sum = |f: fn(&FairnessReport) -> u64| f(&h) + f(&j);
        let seen = sum(|r| r.seen_hits);
        let confirmed = sum(|r| r.seen_hits_confirmed);
        let taken = sum(|r| r.hits_taken);
        let cover = sum(|r| r.hits_taken_behind_cover);
        out!(
            "view={view}: shots={} seen_hits={seen} confirmed={confirmed} agreement={:.2}% \
             lost_same_aim={} hits_taken={taken} behind_cover={cover} ({:.2}%) rollbacks={}",
            sum(|r| r.shots),
            100.0 * confirmed as f64 / seen.max(1) as f64,
            sum(|r| r.seen_hits_lost_same_aim),
            100.0 * cover as f64 / taken.max(1) as f64,
            sum(|r| r.rollbacks),
        );
    }
    Ok(())
}

/// `duel-cli rail-fairness-peer`: one side of a fairness run; prints its report as the last
/// line of its output.
pub(crate) fn rail_fairness_peer(
    role: &str,
    addr: SocketAddr,
    view: RemoteView,
    ticks: u32,
    conditioner: ConditionerConfig,
    input_delay: usize,
) -> Result<()> {
    use client::runs::rail_fairness::{run_fairness_side, FairnessPlan, FairnessRole};
    let role = match role {
        "host" => FairnessRole::Host,
        "join" => FairnessRole::Join,
        other => anyhow::bail!("role `{other}`: expected host or join"),
    };
    let plan = FairnessPlan {
        ticks,
        bot_seed: 11,
        view,
        fps: 60,
        input_delay,
        deadline: Duration::from_secs(u64::from(ticks) / 15 + 60),
    };
    out!("{}", run_fairness_side(role, addr, conditioner, &plan)?);
    Ok(())
}
