//! The `maze-duel` binary itself, run as a player runs it: what it writes, what it prints and
//! how it exits. Everything it starts is tested in `sample_game::launch`; these check the
//! shell around it (the exit code, the error line, a start from the command line to a file).

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// `maze-duel ARGS` without a display or a sound card, in `dir`.
fn maze_duel(dir: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_maze-duel"))
        .args(args)
        .current_dir(dir)
        .env("SDL_VIDEODRIVER", "offscreen")
        .env("SDL_AUDIODRIVER", "dummy")
        .env("HOME", dir)
        .env_remove("XDG_CONFIG_HOME")
        .output()
        .expect("the binary runs")
}

/// A folder of this test's own, emptied.
fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("binary-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("scratch folder");
    dir
}

/// The number that starts the pacing report's line beginning with `label`.
fn report_count(report: &str, label: &str) -> u32 {
    (report.lines())
        .find_map(|l| l.strip_prefix(label))
        .and_then(|l| l.split(' ').next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("no count after {label:?} in {report}"))
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

#[test]
fn a_start_that_fails_exits_with_failure_and_one_line_saying_why() {
    let dir = scratch("fails");
    let out = maze_duel(
        &dir,
        &[
            "--rules",
            "no-such-rules.toml",
            "--menu-screenshot",
            "menu.png",
        ],
    );
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    let err = text(&out.stderr);
    assert!(
        err.starts_with("maze-duel: rules file no-such-rules.toml"),
        "{err}"
    );
    assert!(!dir.join("menu.png").exists(), "nothing written");
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn the_menu_screenshot_shows_the_settings_problem_and_exits_cleanly() {
    let dir = scratch("menu");
    std::fs::write(dir.join("bad.toml"), "volume = 500\n").expect("write");
    let out = maze_duel(
        &dir,
        &[
            "--config",
            "bad.toml",
            "--size",
            "640x400",
            "--menu-screenshot",
            "menu.png",
        ],
    );
    assert!(out.status.success(), "{out:?}");
    assert!(text(&out.stdout).contains("wrote menu.png"), "{out:?}");
    assert!(
        text(&out.stderr).contains("volume"),
        "the problem is printed: {out:?}"
    );
    let png = std::fs::read(dir.join("menu.png")).expect("the PNG");
    assert!(png.starts_with(b"\x89PNG"), "a PNG");
    // The same menu with the problem as its note, drawn here: the binary drew exactly that.
    let loaded = sample_game::Config::load(&dir.join("bad.toml"));
    let mut menu = sample_game::Menu::new(loaded.config);
    // (It names the file as the command line did.)
    let absolute = dir.join("bad.toml").display().to_string();
    menu.note = (loaded.problems.first()).map(|p| p.replace(&absolute, "bad.toml"));
    let renderer = sample_game::Renderer::new(sample_game::BitmapFont::load().expect("font"));
    let expected = sample_game::render_menu_to_rgba(&menu, (640, 400), &renderer).expect("drawn");
    sample_game::write_png(&dir.join("expected.png"), (640, 400), &expected).expect("written");
    assert!(
        std::fs::read(dir.join("expected.png")).expect("read") == png,
        "the binary's menu is the menu with the settings' problem noted ({})",
        dir.display()
    );
    let _ = std::fs::remove_dir_all(dir);
}

/// A pacing measurement: both players on bots for its time, reported, logged as the bots' match at
/// the level asked for with `--vs-bot` (else hard), under the seed given.
#[test]
fn a_measured_bot_match_runs_its_time_and_records_its_log() {
    let dir = scratch("measure");
    for (extra, mode) in [
        (&[][..], "local-bots"),
        (
            &["--vs-bot", "--bot-difficulty", "easy"][..],
            "local-bots-easy",
        ),
    ] {
        let mut args = vec![
            "--measure-pacing",
            "0.3",
            "--seed",
            "9",
            "--volume",
            "0",
            "--size",
            "320x200",
            "--match-log",
            "bots.duellog",
            "--software",
        ];
        args.extend_from_slice(extra);
        let out = maze_duel(&dir, &args);
        assert!(out.status.success(), "{out:?}");
        let said = text(&out.stdout);
        assert!(said.contains("maze-duel: seed 9"), "{said}");
        assert!(said.contains("recording to bots.duellog"), "{said}");
        // The pacing report: SDL's software renderer (asked for), presenting with vsync as
        // the window asks, and the match's ticks — the run lasts its time, not one frame.
        assert!(
            said.contains("s wall, renderer software, vsync on\n"),
            "{said}"
        );
        let ticks = report_count(&said, "simulation: ");
        // 0.3 s of wall time banks at least 0.25 s of ticks (a frame catches up at most
        // 250 ms), whatever the machine's load: 15 ticks; 6 leaves room for the last frame.
        assert!(ticks >= 6, "{said}");
        let frames = report_count(&said, "frames: ");
        assert!(frames >= 1, "frames are drawn and counted: {said}");
        let log = client::logs::matchlog::read_log::<engine::World>(&dir.join("bots.duellog"))
            .expect("the log reads back");
        assert_eq!(log.header.match_seed, 9);
        assert_eq!(log.header.mode, mode);
    }
    let _ = std::fs::remove_dir_all(dir);
}

/// With no arguments the menu opens (and says where the settings go), and stays open until
/// the player quits: the process is still there when the line arrives.
#[test]
fn no_arguments_open_the_menu_and_keep_it_open() {
    use std::io::BufRead as _;
    let dir = scratch("menu-window");
    let mut child = Command::new(env!("CARGO_BIN_EXE_maze-duel"))
        .current_dir(&dir)
        .env("SDL_VIDEODRIVER", "offscreen")
        .env("SDL_AUDIODRIVER", "dummy")
        .env("HOME", &dir)
        .env_remove("XDG_CONFIG_HOME")
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .expect("the binary starts");
    let stdout = child.stdout.take().expect("piped");
    let mut said = Vec::new();
    let mut open = None;
    for line in std::io::BufReader::new(stdout).lines() {
        let line = line.expect("a line");
        if line.starts_with("maze-duel: menu open") {
            open = Some(line);
            break;
        }
        said.push(line);
    }
    let running = child.try_wait().expect("waitable").is_none();
    let _ = child.kill();
    let _ = child.wait();
    let settings = dir.join(".config/maze-duel/config.toml");
    assert_eq!(
        open,
        Some(format!(
            "maze-duel: menu open; settings save to {}",
            settings.display()
        )),
        "before it: {said:?}"
    );
    assert!(running, "the menu waits for the player");
    let _ = std::fs::remove_dir_all(dir);
}
