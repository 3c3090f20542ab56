//! `host`, `join`, `spectate` and `online`: a bot plays (or a spectator watches) a networked
//! match, with the options they share and the exit status of a networked run; and `signal`,
//! the signalling server online rooms meet through.

use crate::parse_phase;
use anyhow::{Context, Result};
use clap::Args;
use client::load_rules;
use client::net::conditioner::ConditionerConfig;
use client::net::room_secret::RoomSecret;
use client::net::seal::InviteCode;
use client::net::signal::SignalServer;
use client::net::transport::{default_bind_for, resolve};
use client::net::webrtc::{IceServers, RoomConfig};
use client::net::wire::Role;
use client::runs::{run_net_peer, NetRun};
use client::session::netplay::open_link;
use client::session::netplay::{NetConfig, NetPeer};
use engine::Phase;
use engine::World;
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Duration;

/// Options shared by host, join and spectate.
#[derive(Args)]
pub(crate) struct NetArgs {
    /// Final (confirmed) ticks to reach before finishing.
    #[arg(long, default_value_t = 3600, value_parser = crate::ranges::parser::<u32>(crate::ranges::TICKS))]
    ticks: u32,
    /// Seed of the local bot.
    #[arg(long, default_value_t = 7)]
    bot_seed: u64,
    /// Rules file (TOML); the built-in defaults when absent.
    #[arg(long)]
    rules: Option<PathBuf>,
    /// Per-tick hash log of confirmed ticks.
    #[arg(long)]
    hash_log: Option<PathBuf>,
    /// Durable match log of confirmed ticks (a replay file).
    #[arg(long)]
    match_log: Option<PathBuf>,
    /// Frames of input delay (0 to 30).
    #[arg(long, default_value_t = 2, value_parser = crate::ranges::parser::<usize>(crate::ranges::INPUT_DELAY))]
    input_delay: usize,
    /// Compare checksums with the peer every N confirmed frames (1 to 600).
    #[arg(long, default_value_t = 1, value_parser = crate::ranges::parser::<u32>(crate::ranges::DESYNC_INTERVAL))]
    desync_interval: u32,
    /// Simulation frames per second (1 to 240).
    #[arg(long, default_value_t = 60, value_parser = crate::ranges::parser::<u32>(crate::ranges::FPS))]
    fps: u32,
    /// Impair outgoing datagrams: `latency=40,jitter=10,loss=5,burst=2,dup=1,reorder=2,seed=1`
    /// (milliseconds one way; loss/dup/reorder in percent).
    #[arg(long, value_parser = ConditionerConfig::parse)]
    conditioner: Option<ConditionerConfig>,
    /// Seconds to wait for the other side at the handshake.
    #[arg(long, default_value_t = 30, value_parser = crate::ranges::parser::<u64>(crate::ranges::HANDSHAKE_TIMEOUT))]
    handshake_timeout: u64,
    /// Seconds GGRS may take to synchronize after the handshake (a host whose peers do not
    /// synchronize in time forgets them and waits for a joiner again).
    #[arg(long, default_value_t = 5, value_parser = crate::ranges::parser::<u64>(crate::ranges::SYNC_TIMEOUT))]
    sync_timeout: u64,
    /// The reconnect grace: milliseconds the other side may stay silent (a Wi-Fi drop, a
    /// router restart) before it counts as gone and the match ends; until then the match
    /// waits for it and resumes where it stopped.
    #[arg(long, visible_alias = "reconnect-grace-ms", default_value_t = 30_000, value_parser = crate::ranges::parser::<u64>(crate::ranges::DISCONNECT_TIMEOUT_MS))]
    disconnect_timeout_ms: u64,
    /// Only report a desync (dumps and all), never repair it: by default the host's state
    /// replaces the joiner's and the match goes on in a new epoch.
    #[arg(long)]
    no_resync: bool,
    /// Where snapshots are dumped when a desync is detected (default: `<hash log>.dumps`, or
    /// `desync-dump` without a hash log).
    #[arg(long)]
    dump_dir: Option<PathBuf>,
    /// The host's invite code (the handshake's pre-shared key): `random` (host only) makes a
    /// fresh one and prints the invitation to share; a joiner may also give it after its
    /// address, `HOST:PORT#CODE`. Without a code the match is still encrypted, but anyone who
    /// reaches the host can take the slot.
    #[arg(long, value_name = "CODE|random")]
    code: Option<String>,
    /// Debugging aid: perturb this peer's state at the given tick, to see the desync found.
    #[arg(long, hide = true, value_parser = crate::ranges::parser::<u32>(crate::ranges::TICK))]
    debug_inject_desync: Option<u32>,
    /// Debugging aid: the phase of that tick's step after which to perturb (`movement`, ...;
    /// default: after the whole step).
    #[arg(long, hide = true, value_parser = parse_phase)]
    debug_inject_phase: Option<Phase>,
}

impl NetArgs {
    /// The files a networked run reads and writes, each with the option that names it.
    pub(crate) fn files(&self) -> (crate::NamedFiles<'_>, crate::NamedFiles<'_>) {
        let inputs = self
            .rules
            .as_deref()
            .map(|p| ("--rules", p))
            .into_iter()
            .collect();
        let outputs = [
            self.hash_log.as_deref().map(|p| ("--hash-log", p)),
            self.match_log.as_deref().map(|p| ("--match-log", p)),
            self.dump_dir.as_deref().map(|p| ("--dump-dir", p)),
        ]
        .into_iter()
        .flatten()
        .collect();
        (inputs, outputs)
    }

    /// The invite code given with `--code` (`random`: a fresh one, for a host).
    fn invite(&self, may_make: bool) -> Result<Option<InviteCode>> {
        match self.code.as_deref() {
            None => Ok(None),
            Some("random") if may_make => {
                Ok(Some(InviteCode::random().map_err(anyhow::Error::msg)?))
            }
            Some("random") => {
                anyhow::bail!("--code random makes a code for a host; a joiner gives the host's")
            }
            Some(text) => Ok(Some(
                InviteCode::parse(text).map_err(|e| anyhow::anyhow!("--code: {e}"))?,
            )),
        }
    }

    fn config(&self, seed: u64, spectators: usize) -> Result<NetConfig<World>> {
        Ok(NetConfig::<World> {
            rules: load_rules(self.rules.as_deref())?,
            seed,
            input_delay: self.input_delay,
            desync_interval: self.desync_interval,
            fps: self.fps,
            handshake_timeout: Duration::from_secs(self.handshake_timeout),
            sync_timeout: Duration::from_secs(self.sync_timeout),
            disconnect_timeout: Duration::from_millis(self.disconnect_timeout_ms),
            disconnect_notify: client::session::netplay::DEFAULT_DISCONNECT_NOTIFY
                .min(Duration::from_millis(self.disconnect_timeout_ms)),
            spectators,
            conditioner: self.conditioner.unwrap_or_default(),
            resync: !self.no_resync,
            ..NetConfig::<World>::default()
        })
    }

    fn plan(&self) -> NetRun {
        NetRun {
            ticks: self.ticks,
            bot_seed: self.bot_seed,
            hash_log: self.hash_log.clone(),
            finish_timeout: Duration::from_secs(10),
            fps: self.fps,
            inject_desync: self.debug_inject_desync,
            inject_after: self.debug_inject_phase,
            dump_dir: self.dump_dir.clone().or_else(|| {
                self.hash_log
                    .is_none()
                    .then(|| PathBuf::from("desync-dump"))
            }),
            match_log: self.match_log.clone(),
        }
    }
}

/// `duel-cli host`: hosts a match as player 1 and plays it with a bot.
pub(crate) fn host(
    bind: SocketAddr,
    spectators: usize,
    seed: u64,
    net: &NetArgs,
) -> Result<ExitCode> {
    let mut config = net.config(seed, spectators)?;
    config.invite = net.invite(true)?;
    let link = open_link(bind, config.conditioner)?;
    let local = link.borrow().local_addr();
    out!("listening on {local}");
    if let Some(code) = config.invite {
        out!("invite: {local}#{code} (share it with the other player; it is the key)");
    }
    let peer = NetPeer::<World>::host_on(link, &config)?;
    Ok(net_exit(&run_net_peer(peer, &net.plan())?))
}

/// `duel-cli join` (as [`Role::Player`]) and `duel-cli spectate` (as [`Role::Spectator`]).
pub(crate) fn join(
    host: &str,
    bind: Option<SocketAddr>,
    net: &NetArgs,
    role: Role,
) -> Result<ExitCode> {
    let (host, in_address) =
        client::net::seal::split_invitation(host).map_err(anyhow::Error::msg)?;
    let given = net.invite(false)?;
    if let (Some(a), Some(b)) = (in_address, given) {
        anyhow::ensure!(
            a == b,
            "the code after the address and --code differ; give one"
        );
    }
    let host = resolve(host).map_err(anyhow::Error::msg)?;
    let bind = bind.unwrap_or_else(|| default_bind_for(host));
    let mut config = net.config(0, 0)?;
    config.invite = in_address.or(given);
    let link = open_link(bind, config.conditioner)?;
    let peer = NetPeer::<World>::join_on(link, host, role, &config)
        .with_context(|| format!("joining {host}"))?;
    Ok(net_exit(&run_net_peer(peer, &net.plan())?))
}

/// `duel-cli rejoin`: takes the slot back from the match log `log` and plays on with a bot.
pub(crate) fn rejoin(log: &Path, bind: Option<SocketAddr>, net: &NetArgs) -> Result<ExitCode> {
    anyhow::ensure!(
        net.match_log.is_none(),
        "--match-log: a rejoin continues the log it is given ({}) and writes no other",
        log.display()
    );
    let read = client::logs::matchlog::read_log::<engine::World>(log)
        .with_context(|| format!("the match log {}", log.display()))?;
    let peer = client::runs::rejoin_peer(&read, log)?;
    let bind = bind.unwrap_or_else(|| default_bind_for(peer));
    let mut plan = net.plan();
    plan.match_log = Some(log.to_owned());
    let config = net.config(0, 0)?;
    let link = open_link(bind, config.conditioner)?;
    let summary = client::runs::rejoin_logged_match(link, &config, &plan)
        .with_context(|| format!("rejoining from {}", log.display()))?;
    Ok(net_exit(&summary))
}

/// Which secret `duel-cli online` enters its room with.
pub(crate) enum RoomSecretArg {
    /// `--room-secret`.
    Given(String),
    /// `--no-room-secret`: an open room.
    None,
    /// The secret of a `--room` link, or a new one.
    LinkOrNew,
}

/// The room `duel-cli online` enters: `room` is a name or a link (`ws://…/ROOM?secret=…`);
/// `signal` defaults to the link's server or [`client::net::webrtc::DEFAULT_SIGNAL_URL`].
pub(crate) fn room_config(
    room: &str,
    secret: RoomSecretArg,
    signal: Option<&str>,
    ice: IceServers,
) -> Result<RoomConfig> {
    let mut config = if room.contains("://") {
        let linked = RoomConfig::from_link(room)?;
        if let Some(signal) = signal.filter(|s| s.trim_end_matches('/') != linked.signal_url) {
            anyhow::bail!(
                "--signal {signal} differs from the server of the room link ({}); give one",
                linked.signal_url
            );
        }
        linked
    } else {
        RoomConfig::new(
            signal.unwrap_or(client::net::webrtc::DEFAULT_SIGNAL_URL),
            room,
        )
    };
    config.secret = match secret {
        RoomSecretArg::Given(text) => {
            let given = RoomSecret::parse(&text).map_err(anyhow::Error::msg)?;
            if config.secret.as_ref().is_some_and(|s| *s != given) {
                anyhow::bail!("--room-secret differs from the secret in the room link; give one");
            }
            Some(given)
        }
        RoomSecretArg::None if config.secret.is_some() => {
            anyhow::bail!("--no-room-secret, but the room link carries a secret")
        }
        RoomSecretArg::None => None,
        RoomSecretArg::LinkOrNew => match config.secret {
            Some(secret) => Some(secret),
            None => Some(RoomSecret::generate().map_err(anyhow::Error::msg)?),
        },
    };
    config.room_url()?;
    Ok(config.with_ice(ice))
}

/// `duel-cli online`: meets the other player in a room of a signalling server and plays (or,
/// as [`Role::Spectator`], watches) over WebRTC; the room decides who hosts.
pub(crate) fn online(
    room: &RoomConfig,
    role: Role,
    spectators: usize,
    seed: u64,
    net: &NetArgs,
) -> Result<ExitCode> {
    let config = net.config(seed, spectators)?;
    let url = room.room_url()?;
    out!("entering room {url}");
    if room.secret.is_some() {
        out!(
            "room link (give it to the other player and any spectators, who run `duel-cli \
             online --room LINK`): {}",
            room.link()?
        );
    } else {
        out!("the room has no secret: anyone who knows its name can enter it");
    }
    let entered = std::time::Instant::now();
    let open = client::session::online::open_room(room, role, &config)
        .and_then(|open| {
            let entries = open.entries;
            NetPeer::<World>::online_on(open.link, open.part, &config).map(|peer| (peer, entries))
        })
        .with_context(|| format!("room {url}"));
    let (peer, entries) = open?;
    out!(
        "connected: tick 0 after {:.2} s in the room (entered {entries} time{})",
        entered.elapsed().as_secs_f64(),
        if entries == 1 { "" } else { "s" }
    );
    Ok(net_exit(&run_net_peer(peer, &net.plan())?))
}

/// `duel-cli signal`: serves rooms on `bind` until killed.
pub(crate) fn signal(bind: SocketAddr) -> Result<ExitCode> {
    let server = SignalServer::start(bind)?;
    out!("signalling server listening on {}", server.url());
    server.wait()?;
    Ok(ExitCode::SUCCESS)
}

/// Exit status of a networked run: 0 clean, 2 desync detected (repaired or not: it is a bug
/// either way), 3 a peer disconnected.
fn net_exit(summary: &client::runs::NetRunSummary) -> ExitCode {
    out!("{summary}");
    if summary.desyncs > 0 {
        let at = summary
            .first_desync
            .map_or(String::new(), |t| format!(" first at tick {t},"));
        let repaired = match summary.resyncs.len() {
            0 => String::new(),
            n => format!(", {n} repaired by a resync (the match went on in sync)"),
        };
        err_out!(
            "duel-cli: desync detected{at} {} checks differed{repaired} (the dumps and next \
             command are printed above); exiting with status 2",
            summary.desyncs
        );
        ExitCode::from(2)
    } else if let Some(peer) = summary.disconnected {
        // A room's peers have synthetic addresses (`webrtc::peer_addr`): no use to a reader.
        let who = if client::net::webrtc::is_room_peer(peer) {
            "the other peer in the room".to_owned()
        } else {
            format!("the peer at {peer}")
        };
        err_out!(
            "duel-cli: {who} disconnected after {} final ticks; the match ended early (exit status 3)",
            summary.ticks
        );
        ExitCode::from(3)
    } else {
        ExitCode::SUCCESS
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const S: &str = "abcdefghijklmnopqrstuvwx";

    fn room(arg: &str, secret: RoomSecretArg, signal: Option<&str>) -> Result<RoomConfig> {
        room_config(arg, secret, signal, IceServers::default())
    }

    #[test]
    fn online_takes_a_name_or_a_link_and_a_secret_by_default() {
        let named = room("friday", RoomSecretArg::LinkOrNew, None).expect("name");
        assert_eq!(named.signal_url, client::net::webrtc::DEFAULT_SIGNAL_URL);
        let generated = named.secret.clone().expect("a secret is generated");
        assert_eq!(generated.as_str().len(), 24);
        // The printed link is what the other player passes back as --room.
        let other =
            room(&named.link().expect("link"), RoomSecretArg::LinkOrNew, None).expect("link");
        assert_eq!(other, named);
        let given =
            room("friday", RoomSecretArg::Given(S.into()), Some("ws://h:1")).expect("given");
        assert_eq!(
            given.link().expect("link"),
            format!("ws://h:1/friday?secret={S}")
        );
        let open = room("friday", RoomSecretArg::None, None).expect("open");
        assert_eq!(open.secret, None);
    }

    #[test]
    fn online_refuses_contradictions_and_bad_secrets() {
        let link = format!("ws://h:1/friday?secret={S}");
        for (arg, secret, signal) in [
            (
                link.as_str(),
                RoomSecretArg::LinkOrNew,
                Some("ws://other:1"),
            ),
            (
                link.as_str(),
                RoomSecretArg::Given("zyxwvutsrqponmlkjihgfedc".into()),
                None,
            ),
            (link.as_str(), RoomSecretArg::None, None),
            ("friday", RoomSecretArg::Given("hunter2".into()), None),
            (
                "ws://h:1/friday?secret=short",
                RoomSecretArg::LinkOrNew,
                None,
            ),
            ("fri day", RoomSecretArg::LinkOrNew, None),
        ] {
            assert!(room(arg, secret, signal).is_err(), "{arg:?} {signal:?}");
        }
        // The link's own server given again is no contradiction.
        assert!(room(&link, RoomSecretArg::Given(S.into()), Some("ws://h:1/")).is_ok());
    }
}
