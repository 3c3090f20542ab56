//! `LocalMatch`: both players on this machine (keyboard, controllers, or the engine's bot), the
//! `World` stepped right here.

use crate::matches::match_source::{AfterMatch, MatchSource, Rematch};
use crate::matches::net_view::NetView;
use anyhow::{ensure, Context as _};
use client::logs::hashlog::{inputs_of, HashLogWriter, MatchIdentity};
use client::logs::matchlog::{read_log, LogHeader, MatchLogWriter, DEFAULT_CHECKPOINT_EVERY};
use client::logs::tick_logs::TickLogs;
use engine::{
    Bot, Difficulty, Event, InputCmd, PlayerId, RoundPhase, Rules, SavedWorld, WireInput, World,
    WorldSnapshot,
};
use std::path::{Path, PathBuf};

/// Players in a local match.
const PLAYERS: usize = 2;

/// A local two-player match. Each slot is played by a human (inputs passed to
/// [`MatchSource::advance`]) or by an [`engine::Bot`].
#[derive(Debug)]
pub struct LocalMatch {
    world: World,
    /// The state before the last step, for interpolation. Saved into, never reallocated.
    previous: WorldSnapshot,
    seed: u64,
    humans: Vec<PlayerId>,
    bots: Vec<Bot>,
    difficulty: Difficulty,
    inputs: Vec<InputCmd>,
    logs: LocalLogs,
    /// A training room's match (logged as mode `training`).
    training: bool,
}

/// Where a local match writes its logs: the durable match log (also the replay file) and the
/// per-tick hash log. A rematch gets its own files, named after its seed.
#[derive(Debug, Default)]
pub struct LocalLogs {
    match_log_path: Option<PathBuf>,
    hash_log_path: Option<PathBuf>,
    /// The files first asked for: a rematch's or a reset's files are named after these, so
    /// the third reset logs to `<stem>-reset3`, not `<stem>-reset1-reset2-reset3`.
    first_paths: (Option<PathBuf>, Option<PathBuf>),
    logs: TickLogs<World>,
    /// The match log's checkpoints, saved into one reused image.
    checkpoint: Option<SavedWorld>,
}

impl LocalLogs {
    /// Logs to these files (either may be absent).
    #[must_use]
    pub fn to(match_log: Option<PathBuf>, hash_log: Option<PathBuf>) -> LocalLogs {
        LocalLogs {
            first_paths: (match_log.clone(), hash_log.clone()),
            match_log_path: match_log,
            hash_log_path: hash_log,
            ..LocalLogs::default()
        }
    }

    pub(crate) fn open(&mut self, world: &World, mode: &str) -> anyhow::Result<()> {
        if let Some(path) = &self.match_log_path {
            let header = LogHeader::for_game(world, mode, None);
            self.logs.match_log = Some(
                MatchLogWriter::create(path, &header, world, DEFAULT_CHECKPOINT_EVERY)
                    .with_context(|| format!("creating the match log {}", path.display()))?,
            );
        }
        if let Some(path) = &self.hash_log_path {
            let identity = MatchIdentity::of_game(world, inputs_of(mode, None));
            self.logs.hash_log = Some(HashLogWriter::<World>::create(path, &identity, mode)?);
        }
        Ok(())
    }

    pub(crate) fn record(&mut self, world: &World, inputs: &[WireInput]) -> anyhow::Result<()> {
        let hash = world.state_hash();
        let slot = &mut self.checkpoint;
        Ok(self
            .logs
            .record(world.tick(), inputs, hash, world.events(), || {
                let saved: &SavedWorld = match slot {
                    Some(saved) => {
                        world.save_image(saved);
                        saved
                    }
                    None => slot.insert(world.image()),
                };
                Ok(saved)
            })?)
    }

    pub(crate) fn close(&mut self, completed: bool) -> anyhow::Result<()> {
        Ok(self.logs.close(completed)?)
    }

    /// The files for the rematch on `seed`: `<stem>-seed<seed>.<ext>` beside the originals.
    fn for_rematch(&self, seed: u64) -> LocalLogs {
        self.renamed(&format!("seed{seed}"))
    }

    /// The first files asked for with `-<tag>` after their stems.
    fn renamed(&self, tag: &str) -> LocalLogs {
        let rename = |p: &PathBuf| {
            let stem = p.file_stem().and_then(|s| s.to_str()).unwrap_or("match");
            let ext = p.extension().and_then(|s| s.to_str()).unwrap_or("log");
            p.with_file_name(format!("{stem}-{tag}.{ext}"))
        };
        let (match_log, hash_log) = &self.first_paths;
        LocalLogs {
            match_log_path: match_log.as_ref().map(rename),
            hash_log_path: hash_log.as_ref().map(rename),
            first_paths: self.first_paths.clone(),
            ..LocalLogs::default()
        }
    }
}

impl LocalMatch {
    /// A match between two humans on `seed`'s maze.
    ///
    /// # Errors
    /// If the rules do not validate.
    pub fn new(rules: Rules, seed: u64) -> anyhow::Result<LocalMatch> {
        let world = World::new(rules, seed, PLAYERS).context("setting up the match")?;
        Ok(LocalMatch::from_world(world))
    }

    /// Two humans playing on from `world` as it stands; no logs yet.
    fn from_world(world: World) -> LocalMatch {
        LocalMatch {
            previous: world.snapshot(),
            seed: world.state().match_seed,
            world,
            humans: (0..PLAYERS as PlayerId).collect(),
            bots: Vec::new(),
            difficulty: Difficulty::Hard,
            inputs: Vec::with_capacity(PLAYERS),
            logs: LocalLogs::default(),
            training: false,
        }
    }

    /// A training room's match: logged as mode `training` (call before
    /// [`LocalMatch::with_logs`]).
    #[must_use]
    pub(crate) fn training(mut self) -> LocalMatch {
        self.training = true;
        self
    }

    /// Back to the start of the same maze, the logs going on in new files
    /// (`<stem>-reset<n>.<ext>`): the training room's reset.
    ///
    /// # Errors
    /// If a log cannot be closed or created.
    pub(crate) fn restart(&mut self, n: u32) -> anyhow::Result<()> {
        self.close()?;
        let world = World::new(self.world.rules().clone(), self.seed, PLAYERS)
            .context("setting up the match")?;
        let logs = self.logs.renamed(&format!("reset{n}"));
        let mut fresh = LocalMatch::from_world(world);
        fresh.humans = self.humans.clone();
        fresh.bots = std::mem::take(&mut self.bots);
        fresh.difficulty = self.difficulty;
        fresh.training = self.training;
        *self = fresh.with_logs(logs)?;
        Ok(())
    }

    /// Writes the match (and its rematches) to these logs, starting now.
    ///
    /// # Errors
    /// If a log cannot be created.
    pub fn with_logs(mut self, logs: LocalLogs) -> anyhow::Result<LocalMatch> {
        self.logs = logs;
        let mode = self.mode();
        self.logs.open(&self.world, mode)?;
        Ok(self)
    }

    fn mode(&self) -> &'static str {
        if self.training {
            return "training";
        }
        mode_for(self.bots.len(), self.difficulty)
    }

    /// Plays the bots at `difficulty` (the match log's mode records it, so `resume` continues
    /// with the same bot).
    #[must_use]
    pub fn with_difficulty(mut self, difficulty: Difficulty) -> LocalMatch {
        self.difficulty = difficulty;
        self.bots = std::mem::take(&mut self.bots)
            .into_iter()
            .map(|b| b.with_difficulty(difficulty))
            .collect();
        self
    }

    /// Continues a local match from its match log after the game was closed or killed: the
    /// last checkpoint, then every logged tick re-applied with its hash checked; the log is
    /// continued in place (a torn tail is cut first).
    ///
    /// # Errors
    /// If the log is damaged, already finished, or does not re-simulate.
    pub fn resume(path: &Path) -> anyhow::Result<LocalMatch> {
        let log = read_log::<World>(path).with_context(|| format!("reading {}", path.display()))?;
        // Re-simulated from the header before the file is touched (a log that does not replay
        // keeps its tail), and the checkpoint a cut left missing written.
        let (world, writer) =
            client::logs::replay::reopen_for_resume(path, &log, DEFAULT_CHECKPOINT_EVERY)
                .context("re-simulating the logged ticks")?;
        if let Some(cut) = log.tail_report() {
            eprintln!("maze-duel: {}: {cut}", path.display());
        }
        let mut m = LocalMatch::from_world(world);
        m.logs = LocalLogs::to(Some(path.to_owned()), None);
        let (bots, difficulty) = bots_of_mode(&log.header.mode, m.world.player_count());
        if !bots.is_empty() {
            m = m.with_bots(&bots).with_difficulty(difficulty);
        }
        m.logs.logs.match_log = Some(writer);
        Ok(m)
    }

    /// Also writes a hash log of the ticks played from now on (a resumed match's first line
    /// says `source=resume`); `None` writes none.
    ///
    /// # Errors
    /// If the hash log cannot be created.
    pub fn with_hash_log(mut self, path: Option<PathBuf>) -> anyhow::Result<LocalMatch> {
        if let Some(path) = path {
            let identity = MatchIdentity::of_game(&self.world, inputs_of(self.mode(), None));
            let source = format!("resume from tick {}", self.world.tick());
            self.logs.logs.hash_log =
                Some(HashLogWriter::<World>::create(&path, &identity, &source)?);
            self.logs.first_paths.1 = Some(path.clone());
            self.logs.hash_log_path = Some(path);
        }
        Ok(self)
    }

    /// Hands the given slots to bots (seeded from the match seed, so a bot match replays).
    #[must_use]
    pub fn with_bots(mut self, slots: &[PlayerId]) -> LocalMatch {
        self.humans.retain(|slot| !slots.contains(slot));
        self.bots = slots
            .iter()
            .filter(|&&slot| usize::from(slot) < PLAYERS)
            .map(|&slot| Bot::new(slot, bot_seed(self.seed, slot)).with_difficulty(self.difficulty))
            .collect();
        self
    }

    /// The live world.
    #[must_use]
    pub fn world(&self) -> &World {
        &self.world
    }

    /// The seed of the current match.
    #[must_use]
    pub fn seed(&self) -> u64 {
        self.seed
    }
}

/// A bot's seed: the match seed mixed with its slot.
fn bot_seed(match_seed: u64, slot: PlayerId) -> u64 {
    engine::splitmix64(match_seed ^ (u64::from(slot) + 1).wrapping_mul(0x9E37_79B9_7F4A_7C15))
}

impl MatchSource for LocalMatch {
    fn local_players(&self) -> &[PlayerId] {
        &self.humans
    }

    fn advance(&mut self, local: &[InputCmd]) -> anyhow::Result<Vec<Event>> {
        ensure!(
            local.len() == self.humans.len(),
            "expected {} local inputs, got {}",
            self.humans.len(),
            local.len()
        );
        let tick = self.world.tick();
        self.inputs.clear();
        for slot in 0..PLAYERS as PlayerId {
            let input = match self.bots.iter_mut().find(|b| b.player() == slot) {
                Some(bot) => bot.think(&self.world),
                None => {
                    let k = self.humans.iter().position(|&h| h == slot);
                    k.map_or(InputCmd::idle(tick), |k| local[k])
                }
            };
            self.inputs.push(InputCmd { tick, ..input });
        }
        self.world.save_into(&mut self.previous);
        let events = self.world.step(&self.inputs)?.to_vec();
        let mut wire = [WireInput::default(); PLAYERS];
        for (w, i) in wire.iter_mut().zip(&self.inputs) {
            *w = i.to_wire();
        }
        self.logs.record(&self.world, &wire)?;
        Ok(events)
    }

    fn current(&self) -> &WorldSnapshot {
        self.world.state()
    }

    fn previous(&self) -> &WorldSnapshot {
        &self.previous
    }

    fn rules(&self) -> &Rules {
        self.world.rules()
    }

    fn net_view(&self) -> NetView {
        NetView::local(self.world.tick(), self.world.state_hash())
    }

    fn can_pause(&self) -> bool {
        true
    }

    fn after_match(&self) -> AfterMatch {
        let round = &self.world.state().round;
        // Against the bot alone (one human: the other slot is the bot's; the training room's
        // dummy is a second local player): harder after a win, easier after a loss (a draw
        // offers none).
        let other_level = match (self.humans.as_slice(), round.last_winner) {
            (&[me], Some(winner)) => {
                if winner == me {
                    self.difficulty.harder()
                } else {
                    self.difficulty.easier()
                }
            }
            _ => None,
        };
        AfterMatch {
            rematch: Rematch::AtOnce,
            other_level,
        }
    }

    fn rematch(&mut self) -> anyhow::Result<bool> {
        self.play_level(self.difficulty)
    }

    fn play_level(&mut self, level: Difficulty) -> anyhow::Result<bool> {
        let seed = self.seed.wrapping_add(1);
        let bot_slots: Vec<PlayerId> = self.bots.iter().map(Bot::player).collect();
        let rules = self.world.rules().clone();
        self.close()?;
        let logs = self.logs.for_rematch(seed);
        let mut next = LocalMatch::new(rules, seed)?
            .with_difficulty(level)
            .with_bots(&bot_slots);
        next.training = self.training;
        *self = next.with_logs(logs)?;
        Ok(true)
    }

    fn close(&mut self) -> anyhow::Result<()> {
        let over = self.world.state().round.phase == RoundPhase::MatchOver;
        self.logs.close(over)
    }
}

/// The match-log mode of a local match with `bots` of its slots played by bots at
/// `difficulty`: `local` (people only), `local-vs-bot` with the bot's level (people against a
/// bot; `local-vs-bot` alone is the hard bot, which logs of earlier versions played), or
/// `local-bots` with the level (bots only, as `--measure-pacing` plays; alone: hard), so that a
/// resumed match puts bots back in the same slots and the replay list says who played.
#[must_use]
pub fn mode_for(bots: usize, difficulty: Difficulty) -> &'static str {
    match (bots, difficulty) {
        (0, _) => "local",
        (1, Difficulty::Beginner) => "local-vs-bot-beginner",
        (1, Difficulty::Easy) => "local-vs-bot-easy",
        (1, Difficulty::Normal) => "local-vs-bot-normal",
        (1, Difficulty::Hard) => "local-vs-bot",
        (_, Difficulty::Beginner) => "local-bots-beginner",
        (_, Difficulty::Easy) => "local-bots-easy",
        (_, Difficulty::Normal) => "local-bots-normal",
        (_, Difficulty::Hard) => "local-bots",
    }
}

/// The bots of a local match logged in `mode` ([`mode_for`]): none, a bot in slot 1, or every
/// slot of `players`; and their level.
fn bots_of_mode(mode: &str, players: usize) -> (Vec<PlayerId>, Difficulty) {
    let (bots, level) = match (
        mode.strip_prefix("local-vs-bot"),
        mode.strip_prefix("local-bots"),
    ) {
        (Some(level), _) => (vec![1], level),
        (None, Some(level)) => ((0..players as PlayerId).collect(), level),
        (None, None) => return (Vec::new(), Difficulty::Hard),
    };
    let difficulty = match level {
        "-beginner" => Difficulty::Beginner,
        "-easy" => Difficulty::Easy,
        "-normal" => Difficulty::Normal,
        _ => Difficulty::Hard,
    };
    (bots, difficulty)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn inputs_are_stamped_and_previous_trails_by_one_tick() {
        let mut m = LocalMatch::new(Rules::default(), 3).unwrap();
        let stale = InputCmd {
            tick: 999,
            ..InputCmd::idle(0)
        };
        for expected in 1..=5 {
            m.advance(&[stale, stale]).unwrap();
            assert_eq!(m.current().tick, expected);
            assert_eq!(m.previous().tick, expected - 1);
        }
    }

    /// Each human's input goes to that human's slot, and a bot's slot gets what that bot
    /// thinks of the world; every input is stamped with the tick. The match plays by the
    /// rules it was given and can pause.
    #[test]
    fn each_slot_plays_its_own_input_and_a_bots_slot_its_bots() {
        let rules = Rules {
            rounds_to_win: 4,
            ..Rules::default()
        };
        let press = |move_x: i8, b: u8| InputCmd {
            move_x,
            buttons: b,
            ..InputCmd::idle(77)
        };
        let (a, b) = (press(127, 0), press(-127, engine::buttons::SHOOT));
        let mut humans = LocalMatch::new(rules.clone(), 3).unwrap();
        assert_eq!(humans.rules(), &rules);
        assert!(humans.can_pause());
        humans.advance(&[a, b]).unwrap();
        assert_eq!(humans.inputs, [a, b].map(|i| InputCmd { tick: 0, ..i }));
        let mut vs_bot = LocalMatch::new(rules, 3).unwrap().with_bots(&[1]);
        for tick in 0..40 {
            let mut bot = vs_bot.bots[0].clone();
            let thought = bot.think(vs_bot.world());
            vs_bot.advance(&[a]).unwrap();
            assert_eq!(vs_bot.inputs, [InputCmd { tick, ..a }, thought]);
        }
    }

    #[test]
    fn the_wrong_number_of_inputs_is_an_error() {
        let mut m = LocalMatch::new(Rules::default(), 3)
            .unwrap()
            .with_bots(&[1]);
        assert_eq!(m.local_players(), &[0]);
        assert!(m.advance(&[InputCmd::idle(0); 2]).is_err());
        assert!(m.advance(&[InputCmd::idle(0)]).is_ok());
    }

    #[test]
    fn rematch_starts_the_next_seed_and_keeps_the_bots() {
        let mut m = LocalMatch::new(Rules::default(), 41)
            .unwrap()
            .with_bots(&[0, 1]);
        for _ in 0..10 {
            m.advance(&[]).unwrap();
        }
        assert!(m.rematch().unwrap());
        assert_eq!((m.seed(), m.current().tick), (42, 0));
        assert!(m.local_players().is_empty());
    }

    /// Bots only take slots the match has; a bot's seed comes from the match seed and its
    /// slot, so two bots of one match, or the bots of one slot in matches of nearby seeds,
    /// are seeded apart.
    #[test]
    fn bots_take_only_real_slots_and_are_seeded_apart() {
        let m = LocalMatch::new(Rules::default(), 9)
            .unwrap()
            .with_bots(&[1, 2, 7]);
        assert_eq!(m.bots.len(), 1);
        assert_eq!(m.bots[0].player(), 1);
        assert_eq!(m.local_players(), &[0]);
        let mut seeds = Vec::new();
        for match_seed in 0..64 {
            for slot in 0..PLAYERS as PlayerId {
                seeds.push(bot_seed(match_seed, slot));
            }
        }
        seeds.sort_unstable();
        seeds.dedup();
        assert_eq!(seeds.len(), 64 * PLAYERS, "every bot seeded apart");
    }

    /// Each rematch logs to files named after the first ones and its seed (both logs), not
    /// after the previous rematch's.
    #[test]
    fn each_rematch_logs_beside_the_first_files_under_its_seed() {
        let dir = std::env::temp_dir().join(format!("duel-rematch-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let logs = LocalLogs::to(Some(dir.join("m.duellog")), Some(dir.join("m.hashlog")));
        let mut m = LocalMatch::new(Rules::default(), 41)
            .unwrap()
            .with_bots(&[0, 1])
            .with_logs(logs)
            .unwrap();
        for ticks in [10, 20, 30] {
            for _ in 0..ticks {
                m.advance(&[]).unwrap();
            }
            assert!(m.rematch().unwrap());
        }
        m.close().unwrap();
        let mut names: Vec<String> = std::fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        let expected = [
            "m-seed42.duellog",
            "m-seed42.hashlog",
            "m-seed43.duellog",
            "m-seed43.hashlog",
            "m-seed44.duellog",
            "m-seed44.hashlog",
            "m.duellog",
            "m.hashlog",
        ];
        assert_eq!(names, expected);
        for (name, ticks) in [("m", 10), ("m-seed42", 20), ("m-seed43", 30)] {
            let log = read_log::<World>(&dir.join(format!("{name}.duellog"))).unwrap();
            assert_eq!(log.last_tick(), ticks, "{name}");
        }
    }

    /// Closing a decided match ends its log (it no longer resumes); closing one still being
    /// played leaves it open to resume.
    #[test]
    fn only_a_decided_match_closes_its_log_as_ended() {
        let dir = std::env::temp_dir().join(format!("duel-ended-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let (open, ended) = (dir.join("open.duellog"), dir.join("ended.duellog"));
        let mut m = LocalMatch::new(Rules::default(), 5)
            .unwrap()
            .with_logs(LocalLogs::to(Some(open.clone()), None))
            .unwrap();
        m.advance(&[InputCmd::idle(0); 2]).unwrap();
        m.close().unwrap();
        drop(m);
        assert_eq!(read_log::<World>(&open).unwrap().end, None);
        assert!(LocalMatch::resume(&open).is_ok());
        let mut m = decided_against(Difficulty::Easy, 1)
            .with_logs(LocalLogs::to(Some(ended.clone()), None))
            .unwrap();
        m.advance(&[InputCmd::idle(0)]).unwrap();
        m.close().unwrap();
        drop(m);
        assert!(read_log::<World>(&ended).unwrap().end.is_some());
        assert!(LocalMatch::resume(&ended).is_err());
    }

    /// A resumed match's rematch logs beside the resumed log and the hash log asked for.
    #[test]
    fn a_resumed_matchs_rematch_logs_beside_its_files() {
        let dir = std::env::temp_dir().join(format!("duel-resumed-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("m.duellog");
        let mut m = LocalMatch::new(Rules::default(), 41)
            .unwrap()
            .with_logs(LocalLogs::to(Some(path.clone()), None))
            .unwrap();
        for _ in 0..10 {
            m.advance(&[InputCmd::idle(0); 2]).unwrap();
        }
        drop(m);
        let mut resumed = LocalMatch::resume(&path)
            .unwrap()
            .with_hash_log(Some(dir.join("r.hashlog")))
            .unwrap();
        resumed.advance(&[InputCmd::idle(0); 2]).unwrap();
        assert!(resumed.rematch().unwrap());
        for _ in 0..5 {
            resumed.advance(&[InputCmd::idle(0); 2]).unwrap();
        }
        resumed.close().unwrap();
        let log = read_log::<World>(&dir.join("m-seed42.duellog")).unwrap();
        assert_eq!(log.last_tick(), 5);
        assert!(dir.join("r-seed42.hashlog").exists());
    }

    /// A local match against the bot decided with `winner` (player 0 is the human).
    fn decided_against(level: Difficulty, winner: PlayerId) -> LocalMatch {
        let mut m = LocalMatch::new(Rules::default(), 5)
            .unwrap()
            .with_difficulty(level)
            .with_bots(&[1]);
        let mut snap = m.world.snapshot();
        snap.round.phase = RoundPhase::MatchOver;
        snap.round.phase_timer = 0;
        snap.round.wins[usize::from(winner)] = Rules::default().rounds_to_win;
        snap.round.last_winner = Some(winner);
        m.world.restore(&snap).unwrap();
        m
    }

    #[test]
    fn after_a_bot_match_the_next_level_is_offered_from_the_players_side() {
        let offer = |level, winner| decided_against(level, winner).after_match();
        assert_eq!(
            offer(Difficulty::Easy, 0).other_level,
            Some(Difficulty::Normal)
        );
        assert_eq!(
            offer(Difficulty::Easy, 1).other_level,
            Some(Difficulty::Beginner)
        );
        assert_eq!(offer(Difficulty::Hard, 0).other_level, None);
        assert_eq!(offer(Difficulty::Beginner, 1).other_level, None);
        assert_eq!(offer(Difficulty::Easy, 0).rematch, Rematch::AtOnce);
        // Two humans: no bot level to offer.
        let humans = LocalMatch::new(Rules::default(), 5).unwrap();
        assert_eq!(humans.after_match().other_level, None);
    }

    #[test]
    fn a_rematch_keeps_the_bots_level_and_another_level_changes_it() {
        let mut m = decided_against(Difficulty::Easy, 0);
        assert!(m.rematch().unwrap());
        assert_eq!(
            (m.difficulty, m.mode()),
            (Difficulty::Easy, "local-vs-bot-easy")
        );
        assert_eq!(m.bots.len(), 1);
        assert!(m.play_level(Difficulty::Normal).unwrap());
        assert_eq!(
            (m.difficulty, m.mode()),
            (Difficulty::Normal, "local-vs-bot-normal")
        );
        assert_eq!(m.local_players(), &[0]);
        assert_eq!(m.current().round.phase, RoundPhase::Countdown);
    }

    /// The bot's level is in the log's mode, so a resumed match vs an easy bot goes on against
    /// the same easy bot: the resumed run equals the uninterrupted one.
    #[test]
    fn a_match_against_an_easy_bot_resumes_against_the_same_bot() {
        let dir = std::env::temp_dir().join(format!("duel-easy-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("easy.duellog");
        let play = |m: &mut LocalMatch, ticks: std::ops::Range<u32>| {
            for t in ticks {
                let me = InputCmd {
                    move_x: if t % 90 < 45 { 127 } else { -127 },
                    ..InputCmd::idle(0)
                };
                m.advance(&[me]).unwrap();
            }
        };
        for (level, mode) in [
            (Difficulty::Easy, "local-vs-bot-easy"),
            (Difficulty::Beginner, "local-vs-bot-beginner"),
            (Difficulty::Normal, "local-vs-bot-normal"),
        ] {
            let fresh = || {
                LocalMatch::new(Rules::default(), 12)
                    .unwrap()
                    .with_bots(&[1])
                    .with_difficulty(level)
            };
            let mut whole = fresh();
            play(&mut whole, 0..600);
            let _ = std::fs::remove_file(&path);
            let mut first = fresh()
                .with_logs(LocalLogs::to(Some(path.clone()), None))
                .unwrap();
            play(&mut first, 0..300);
            drop(first);
            assert_eq!(read_log::<World>(&path).unwrap().header.mode, mode);
            let mut resumed = LocalMatch::resume(&path).unwrap();
            assert_eq!(resumed.difficulty, level);
            play(&mut resumed, 300..600);
            assert_eq!(resumed.current(), whole.current(), "{level:?}");
        }
        let hard = LocalMatch::new(Rules::default(), 12)
            .unwrap()
            .with_bots(&[1]);
        assert_eq!(
            hard.mode(),
            "local-vs-bot",
            "logs of earlier versions are the hard bot"
        );
    }

    /// Every count of bots and level has its own mode, and reading a mode back gives the bots
    /// their slots and level again.
    #[test]
    fn the_mode_says_which_slots_bots_play_and_at_what_level() {
        let levels = [
            Difficulty::Beginner,
            Difficulty::Easy,
            Difficulty::Normal,
            Difficulty::Hard,
        ];
        let mut seen = std::collections::BTreeSet::new();
        for bots in 0..=2usize {
            for level in levels {
                let mode = mode_for(bots, level);
                seen.insert(mode);
                let (slots, read) = bots_of_mode(mode, 2);
                assert_eq!(slots.len(), bots, "{mode}");
                if bots > 0 {
                    assert_eq!(read, level, "{mode}");
                }
            }
        }
        assert_eq!(seen.len(), 9, "{seen:?}");
        assert_eq!(mode_for(2, Difficulty::Hard), "local-bots");
        assert_eq!(bots_of_mode("local-vs-bot", 2), (vec![1], Difficulty::Hard));
        assert_eq!(
            bots_of_mode("local-bots-easy", 3),
            (vec![0, 1, 2], Difficulty::Easy)
        );
        assert_eq!(bots_of_mode("training", 2).0, Vec::<PlayerId>::new());
    }

    /// A bots-only match (the pacing measurement) is logged as one and resumes with bots in
    /// every slot: no person is put in a bot's place, and the run equals the uninterrupted one.
    #[test]
    fn a_bots_only_match_resumes_with_bots_in_every_slot() {
        let dir = std::env::temp_dir().join(format!("duel-bots-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("bots.duellog");
        let fresh = || {
            LocalMatch::new(Rules::default(), 14)
                .unwrap()
                .with_bots(&[0, 1])
        };
        let mut whole = fresh();
        for _ in 0..400 {
            whole.advance(&[]).unwrap();
        }
        let _ = std::fs::remove_file(&path);
        let mut first = fresh()
            .with_logs(LocalLogs::to(Some(path.clone()), None))
            .unwrap();
        for _ in 0..200 {
            first.advance(&[]).unwrap();
        }
        drop(first);
        assert_eq!(read_log::<World>(&path).unwrap().header.mode, "local-bots");
        let mut resumed = LocalMatch::resume(&path).unwrap();
        assert!(
            resumed.local_players().is_empty(),
            "{:?}",
            resumed.local_players()
        );
        for _ in 200..400 {
            resumed.advance(&[]).unwrap();
        }
        assert_eq!(resumed.current(), whole.current());
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_bot_match_is_reproducible() {
        let run = || {
            let mut m = LocalMatch::new(Rules::default(), 9)
                .unwrap()
                .with_bots(&[0, 1]);
            for _ in 0..600 {
                m.advance(&[]).unwrap();
            }
            m.world().state_hash()
        };
        assert_eq!(run(), run());
    }
}
