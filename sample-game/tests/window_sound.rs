//! The window's sound and title, on an offscreen window with SDL's dummy audio device: a
//! window opened silent stays silent until the volume is raised above 0 (then it opens its
//! sound at that volume, at most 100); the menu's sounds reach the mixer; the title names
//! the match's seed once a match runs. (One test: SDL starts once per process.)

use engine::Rules;
use sample_game::present::sound::Sfx;
use sample_game::{App, AppOptions, LocalMatch, Renderer};
use std::time::Duration;

#[test]
fn the_window_opens_its_sound_when_raised_from_silence_and_names_the_seed() {
    std::env::set_var("SDL_VIDEODRIVER", "offscreen");
    std::env::set_var("SDL_AUDIODRIVER", "dummy");
    let options = AppOptions {
        window_size: (320, 240),
        software: true,
        volume: 0,
        run_for: Some(Duration::from_millis(100)),
        title: "sound test".into(),
        ..AppOptions::default()
    };
    let mut app = App::new(options, Renderer::default()).expect("offscreen window");
    assert_eq!(app.with_mixer(|_| ()), None, "silent from the start");
    // A menu sound while silent goes nowhere (and nothing breaks).
    app.play_ui(Sfx::Reload);
    app.set_volume(0);
    assert_eq!(app.with_mixer(|_| ()), None, "still silent at volume 0");
    app.set_volume(250);
    assert_eq!(
        app.with_mixer(|m| (m.volume, m.started.len())),
        Some((100, 0)),
        "opened at the most there is"
    );
    app.set_volume(30);
    assert_eq!(app.with_mixer(|m| m.volume), Some(30));
    app.play_ui(Sfx::Reload);
    app.play_ui(Sfx::Shot);
    let started = app.with_mixer(|m| m.started.iter().map(|&(_, s)| s).collect::<Vec<_>>());
    assert_eq!(started, Some(vec![Sfx::Reload, Sfx::Shot]));
    // Muted again: the mixer stays (volume 0), it is not closed.
    app.set_volume(0);
    assert_eq!(app.with_mixer(|m| m.volume), Some(0));

    assert_eq!(app.title(), "sound test");
    let mut source = LocalMatch::new(Rules::default(), 77)
        .expect("match")
        .with_bots(&[0, 1]);
    app.run(&mut source).expect("runs for its 100 ms");
    assert_eq!(app.title(), "sound test — seed 77");
}
