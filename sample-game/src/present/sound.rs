//! Sound: short effects generated at start-up, mixed in SDL2's audio callback, driven by the
//! prediction journal so that rollback never makes a sound lie.
//!
//! Every sound belongs to the event that caused it ([`EventKey`]). A match source hands the
//! game, each frame, the events to present and the events a rollback took back; a correction
//! arrives as both (the old version taken back, the new one presented, under the same key).
//! [`SoundDirector`] turns that into exactly one thing per happening:
//! - a new event starts its sound once;
//! - a retracted event cuts its sound if it is still playing;
//! - a corrected event (taken back and presented again in the same frame) keeps the sound that
//!   is already playing: it is not played twice.
//!
//! [`Mixer`] is the sink: voices keyed by event, summed into 16-bit mono with a volume and a
//! mute. It is plain data, so a test drives it as a recording sink without any audio device;
//! [`AudioOut`] wraps it in an SDL playback device (any failure to open one leaves the game
//! silent, never stopped). Presentation only: the simulation never hears any of this.

use engine::{Event, EventKey, EventKind, HitSource, Tick};
use std::sync::{Arc, Mutex};

/// Samples per second of every effect and of the output.
pub const SAMPLE_RATE: i32 = 44_100;

/// The effects.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Sfx {
    /// A projectile fired.
    Shot,
    /// A rail shot.
    Rail,
    /// A hit landed.
    Hit,
    /// A melee swing began.
    Swing,
    /// A block broke.
    BlockBreak,
    /// A magazine is full again.
    Reload,
    /// A knock-out.
    Ko,
    /// The fight begins.
    RoundStart,
    /// A new round's countdown begins.
    Countdown,
    /// The menu's highlight moved, or a value changed.
    MenuMove,
    /// A menu choice was taken.
    MenuSelect,
    /// Back out of a menu screen.
    MenuBack,
}

impl Sfx {
    /// Every effect, in table order.
    pub const ALL: [Sfx; 12] = [
        Sfx::Shot,
        Sfx::Rail,
        Sfx::Hit,
        Sfx::Swing,
        Sfx::BlockBreak,
        Sfx::Reload,
        Sfx::Ko,
        Sfx::RoundStart,
        Sfx::Countdown,
        Sfx::MenuMove,
        Sfx::MenuSelect,
        Sfx::MenuBack,
    ];

    /// The effect an event makes, if any.
    #[must_use]
    pub fn for_event(kind: &EventKind) -> Option<Sfx> {
        match kind {
            EventKind::ShotFired { .. } => Some(Sfx::Shot),
            EventKind::RailShot(_) => Some(Sfx::Rail),
            EventKind::Hit { source, .. } => Some(match source {
                HitSource::Melee | HitSource::Projectile(_) | HitSource::Rail => Sfx::Hit,
            }),
            EventKind::MeleeStarted { .. } => Some(Sfx::Swing),
            EventKind::BlockBroken { .. } => Some(Sfx::BlockBreak),
            EventKind::Reloaded { .. } => Some(Sfx::Reload),
            EventKind::Ko { .. } => Some(Sfx::Ko),
            EventKind::FightStarted { .. } => Some(Sfx::RoundStart),
            EventKind::RoundReset { .. } => Some(Sfx::Countdown),
            EventKind::BlockDamaged { .. }
            | EventKind::WallHit { .. }
            | EventKind::Expired { .. }
            | EventKind::ReloadStarted { .. }
            | EventKind::RoundWon { .. }
            | EventKind::MatchWon { .. } => None,
        }
    }

    fn index(self) -> usize {
        Sfx::ALL.iter().position(|&s| s == self).unwrap_or(0)
    }
}

/// A private xorshift for noise, so effects are the same every run.
struct Noise(u32);

impl Noise {
    fn next(&mut self) -> f32 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 17;
        self.0 ^= self.0 << 5;
        (self.0 as f32 / u32::MAX as f32) * 2.0 - 1.0
    }
}

/// The seed of an effect's noise: its own for each effect.
fn noise_seed(sfx: Sfx) -> u32 {
    0x2545_F491 ^ sfx.index() as u32
}

/// Generates an effect's samples: short tones, sweeps and noise with an exponential fade.
#[must_use]
pub fn synth(sfx: Sfx) -> Vec<i16> {
    let rate = SAMPLE_RATE as f32;
    let mut noise = Noise(noise_seed(sfx));
    // (seconds, start Hz, end Hz, noise share, square wave, loudness)
    let (secs, f0, f1, noisy, square, gain) = match sfx {
        Sfx::Shot => (0.08, 880.0, 440.0, 0.2, true, 0.35),
        Sfx::Rail => (0.30, 2400.0, 300.0, 0.15, false, 0.45),
        Sfx::Hit => (0.12, 220.0, 110.0, 0.6, false, 0.55),
        Sfx::Swing => (0.14, 300.0, 600.0, 0.8, false, 0.3),
        Sfx::BlockBreak => (0.25, 160.0, 60.0, 0.9, false, 0.5),
        Sfx::Reload => (0.10, 1200.0, 1200.0, 0.1, true, 0.25),
        Sfx::Ko => (0.6, 110.0, 40.0, 0.4, false, 0.7),
        Sfx::RoundStart => (0.35, 523.0, 784.0, 0.0, true, 0.35),
        Sfx::Countdown => (0.15, 660.0, 660.0, 0.0, true, 0.3),
        Sfx::MenuMove => (0.03, 1400.0, 1400.0, 0.0, false, 0.18),
        Sfx::MenuSelect => (0.09, 700.0, 1050.0, 0.0, true, 0.22),
        Sfx::MenuBack => (0.08, 800.0, 500.0, 0.0, true, 0.2),
    };
    let n = (secs * rate) as usize;
    let mut phase = 0.0f32;
    (0..n)
        .map(|i| {
            let t = i as f32 / n as f32;
            let freq = f0 + (f1 - f0) * t;
            phase = (phase + freq / rate).fract();
            let tone = if square {
                if phase < 0.5 {
                    1.0
                } else {
                    -1.0
                }
            } else {
                (phase * std::f32::consts::TAU).sin()
            };
            let v = tone * (1.0 - noisy) + noise.next() * noisy;
            let envelope = (-4.0 * t).exp() * (1.0 - t).min(1.0);
            (v * envelope * gain * f32::from(i16::MAX)) as i16
        })
        .collect()
}

/// Where [`soft_clip`] starts to bend: three quarters of full scale.
const KNEE: i32 = 24_576;

/// A sum of voices as a 16-bit sample: unchanged up to 24 576 (three quarters of full scale),
/// above it bent smoothly towards full scale without reaching it, so a pile of loud effects (a
/// KO during a volley) gets louder more slowly instead of clipping into a square buzz.
/// Monotone and odd.
#[must_use]
pub fn soft_clip(sum: i32) -> i16 {
    let magnitude = i64::from(sum).abs();
    let knee = i64::from(KNEE);
    let bent = if magnitude <= knee {
        magnitude
    } else {
        let room = i64::from(i16::MAX) - knee;
        let excess = magnitude - knee;
        knee + excess * room / (excess + room)
    };
    let signed = if sum < 0 { -bent } else { bent };
    i16::try_from(signed).expect("bent within ±i16::MAX")
}

/// One sound playing.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Voice {
    key: EventKey,
    sfx: Sfx,
    at: usize,
}

/// Voices keyed by event, summed into 16-bit mono. Also a record of what was started and cut,
/// for the netcode panel and for tests.
pub struct Mixer {
    samples: Vec<Vec<i16>>,
    voices: Vec<Voice>,
    /// Volume, 0..=100.
    pub volume: u8,
    /// Silences the output (voices still run, so unmuting does not replay anything).
    pub muted: bool,
    /// Every start, in order (key and effect).
    pub started: Vec<(EventKey, Sfx)>,
    /// Every cut of a voice still playing, in order.
    pub cut: Vec<EventKey>,
    /// The voices summed at full precision before [`soft_clip`] (reused between callbacks).
    sum: Vec<i32>,
}

impl std::fmt::Debug for Mixer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Mixer")
            .field("voices", &self.voices.len())
            .field("volume", &self.volume)
            .field("muted", &self.muted)
            .finish_non_exhaustive()
    }
}

impl Default for Mixer {
    fn default() -> Mixer {
        Mixer {
            samples: Sfx::ALL.iter().map(|&s| synth(s)).collect(),
            voices: Vec::new(),
            volume: 70,
            muted: false,
            started: Vec::new(),
            cut: Vec::new(),
            sum: Vec::new(),
        }
    }
}

impl Mixer {
    /// Starts `sfx` for the event `key`.
    pub fn play(&mut self, key: EventKey, sfx: Sfx) {
        self.voices.push(Voice { key, sfx, at: 0 });
        self.started.push((key, sfx));
    }

    /// Starts a menu sound (no event: it can never be taken back, so it needs no key of its
    /// own; a new one cuts the one before, so fast scrolling does not pile up).
    pub fn play_ui(&mut self, sfx: Sfx) {
        let key = EventKey {
            tick: Tick::MAX,
            kind: u8::MAX,
            a: 0,
            b: 0,
        };
        self.cut(&key);
        self.play(key, sfx);
    }

    /// Stops the sound of `key` if it is still playing.
    pub fn cut(&mut self, key: &EventKey) {
        let before = self.voices.len();
        self.voices.retain(|v| v.key != *key);
        if self.voices.len() != before {
            self.cut.push(*key);
        }
    }

    /// Whether a sound of `key` is playing.
    #[must_use]
    pub fn is_playing(&self, key: &EventKey) -> bool {
        self.voices.iter().any(|v| v.key == *key)
    }

    /// Sounds playing now.
    #[must_use]
    pub fn playing(&self) -> usize {
        self.voices.len()
    }

    /// Fills `out` with the next samples of every voice, summed and then softly limited (see
    /// [`soft_clip`]); finished voices are dropped.
    pub fn mix(&mut self, out: &mut [i16]) {
        let gain = if self.muted {
            0
        } else {
            i32::from(self.volume.min(100))
        };
        self.sum.clear();
        self.sum.resize(out.len(), 0);
        for v in &mut self.voices {
            let samples = &self.samples[v.sfx.index()];
            let rest = samples.get(v.at..).unwrap_or_default();
            for (acc, &s) in self.sum.iter_mut().zip(rest) {
                *acc += i32::from(s) * gain / 100;
            }
            v.at += out.len();
        }
        for (o, &acc) in out.iter_mut().zip(&self.sum) {
            *o = soft_clip(acc);
        }
        let samples = &self.samples;
        self.voices.retain(|v| v.at < samples[v.sfx.index()].len());
    }
}

/// Turns each frame's presented and retracted events into sound starts and cuts, so that a
/// happening is heard once however often rollback rewrites it (see the module docs).
#[derive(Debug, Default)]
pub struct SoundDirector {
    /// Corrections seen (a sound kept, not restarted).
    pub corrections: u64,
}

impl SoundDirector {
    /// Applies one frame: `retracted` events taken back, `presented` events to present (a
    /// correction is in both, under the same key).
    pub fn frame(&mut self, presented: &[Event], retracted: &[Event], mixer: &mut Mixer) {
        for gone in retracted {
            let key = gone.key();
            if presented.iter().any(|e| e.key() == key) {
                continue; // a correction: the sound already playing stays
            }
            mixer.cut(&key);
        }
        for event in presented {
            let key = event.key();
            if retracted.iter().any(|e| e.key() == key) {
                self.corrections += 1;
                continue;
            }
            if let Some(sfx) = Sfx::for_event(&event.kind) {
                mixer.play(key, sfx);
            }
        }
    }
}

/// The mixer behind an SDL playback device.
pub struct AudioOut {
    /// The mixer the callback reads (lock it briefly to play, cut or change the volume).
    pub mixer: Arc<Mutex<Mixer>>,
    _device: Option<sdl2::audio::AudioDevice<Callback>>,
}

/// The audio callback: mixes under the lock.
pub struct Callback(Arc<Mutex<Mixer>>);

impl sdl2::audio::AudioCallback for Callback {
    type Channel = i16;
    fn callback(&mut self, out: &mut [i16]) {
        match self.0.lock() {
            Ok(mut mixer) => mixer.mix(out),
            Err(_) => out.fill(0),
        }
    }
}

impl AudioOut {
    /// Opens SDL's default playback device; without one (or without an audio subsystem) the
    /// game plays silent, and says so once on stderr.
    #[must_use]
    pub fn open(sdl: &sdl2::Sdl, volume: u8) -> AudioOut {
        let mixer = Arc::new(Mutex::new(Mixer {
            volume,
            ..Mixer::default()
        }));
        let spec = sdl2::audio::AudioSpecDesired {
            freq: Some(SAMPLE_RATE),
            channels: Some(1),
            samples: Some(512),
        };
        let device = sdl
            .audio()
            .and_then(|audio| audio.open_playback(None, &spec, |_| Callback(Arc::clone(&mixer))));
        let device = match device {
            Ok(d) => {
                d.resume();
                Some(d)
            }
            Err(e) => {
                eprintln!("maze-duel: no sound ({e})");
                None
            }
        };
        AudioOut {
            mixer,
            _device: device,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Menu sounds play at once and never pile up: a new one cuts the one before; each is a
    /// short sound of its own.
    #[test]
    fn a_menu_sound_replaces_the_last_one() {
        let mut mixer = Mixer::default();
        mixer.play_ui(Sfx::MenuMove);
        mixer.play_ui(Sfx::MenuMove);
        mixer.play_ui(Sfx::MenuSelect);
        assert_eq!(mixer.playing(), 1);
        assert_eq!(mixer.started.len(), 3);
        assert_eq!(mixer.cut.len(), 2);
        for sfx in [Sfx::MenuMove, Sfx::MenuSelect, Sfx::MenuBack] {
            let samples = synth(sfx);
            assert!(
                !samples.is_empty() && samples.len() < SAMPLE_RATE as usize / 5,
                "{sfx:?}"
            );
            assert!(samples.iter().any(|&s| s != 0), "{sfx:?} is silent");
        }
    }

    #[test]
    fn soft_clip_passes_quiet_sums_and_bends_loud_ones_below_full_scale() {
        for x in [-KNEE, -1000, 0, 1, 12_345, KNEE] {
            assert_eq!(i32::from(soft_clip(x)), x);
        }
        let mut last = soft_clip(i32::MIN + 1);
        assert!(last > i16::MIN);
        for x in (-1_000_000..=1_000_000).step_by(997) {
            let y = soft_clip(x);
            assert!(y >= last, "monotone at {x}");
            assert!(y.unsigned_abs() < 32_767, "never full scale at {x}");
            assert_eq!(i32::from(soft_clip(-x)), -i32::from(y), "odd at {x}");
            last = y;
        }
        assert!(soft_clip(i32::MAX) < i16::MAX && soft_clip(i32::MIN) > i16::MIN);
        // Above the knee the excess e is bent to e·room/(e + room), room = 32 767 − 24 576:
        // full scale itself comes out halfway up the room.
        for (sum, bent) in [
            (32_767, 28_671),
            (100_000, 31_964),
            (1_000_000, 32_698),
            (i32::MAX, 32_766),
        ] {
            assert_eq!((soft_clip(sum), soft_clip(-sum)), (bent, -bent), "{sum}");
        }
    }

    /// The mix is each voice's samples scaled by the volume, summed, then soft-clipped; a
    /// voice ends the moment its last sample is out, and the next call goes on from where the
    /// last one stopped.
    #[test]
    fn the_mix_is_the_scaled_sum_and_a_voice_ends_with_its_last_sample() {
        let (a, b) = (synth(Sfx::Ko), synth(Sfx::Rail));
        let mut mixer = Mixer {
            volume: 60,
            ..Mixer::default()
        };
        mixer.play(event(1, EventKind::Ko { victim: 0, by: 1 }).key(), Sfx::Ko);
        mixer.play(event(2, EventKind::Reloaded { player: 1 }).key(), Sfx::Rail);
        let scaled = |s: i16| i32::from(s) * 60 / 100;
        let mut out = vec![0i16; 1000];
        for call in 0..2 {
            mixer.mix(&mut out);
            for (i, &o) in out.iter().enumerate() {
                let at = call * 1000 + i;
                assert_eq!(o, soft_clip(scaled(a[at]) + scaled(b[at])), "sample {at}");
            }
        }
        let mut rest = vec![0i16; b.len() - 2000];
        mixer.mix(&mut rest);
        assert_eq!(
            mixer.playing(),
            1,
            "the rail's last sample is out: it ended"
        );
        assert_eq!(
            rest.last().copied(),
            Some(soft_clip(scaled(a[b.len() - 1]) + scaled(b[b.len() - 1])))
        );
    }

    /// The device's callback fills what SDL asks for with the mix, and with silence if the
    /// mixer's lock was poisoned by a panic.
    #[test]
    fn the_callback_fills_the_buffer_with_the_mix_or_silence() {
        use sdl2::audio::AudioCallback as _;
        let shared = Arc::new(Mutex::new(Mixer::default()));
        shared.lock().expect("lock").play_ui(Sfx::Hit);
        let mut expected = Mixer::default();
        expected.play_ui(Sfx::Hit);
        let mut want = vec![0i16; 512];
        expected.mix(&mut want);
        let mut callback = Callback(Arc::clone(&shared));
        let mut out = vec![7i16; 512];
        callback.callback(&mut out);
        assert_eq!(out, want);
        let poison = Arc::clone(&shared);
        let _ = std::thread::spawn(move || {
            let _held = poison.lock().expect("lock");
            panic!("poisons the mixer's lock");
        })
        .join();
        callback.callback(&mut out);
        assert!(out.iter().all(|&s| s == 0));
    }

    /// What a mixer shows of itself: its voices, volume and mute.
    #[test]
    fn a_mixer_debugs_as_its_voices_volume_and_mute() {
        let mut mixer = Mixer::default();
        mixer.play_ui(Sfx::MenuMove);
        mixer.volume = 40;
        assert_eq!(
            format!("{mixer:?}"),
            "Mixer { voices: 1, volume: 40, muted: false, .. }"
        );
    }

    #[test]
    fn every_effect_at_once_at_full_volume_never_clips() {
        let mut mixer = Mixer {
            volume: 100,
            ..Mixer::default()
        };
        for (i, &sfx) in Sfx::ALL.iter().enumerate() {
            let key = EventKey {
                tick: i as u32,
                kind: 0,
                a: 0,
                b: 0,
            };
            mixer.play(key, sfx);
        }
        let mut out = vec![0i16; 4096];
        mixer.mix(&mut out);
        let peak = out.iter().map(|s| s.unsigned_abs()).max().unwrap_or(0);
        assert!(peak > u16::try_from(KNEE).unwrap(), "loud: {peak}");
        assert!(peak < 32_767, "not clipped: {peak}");
    }

    fn event(tick: u32, kind: EventKind) -> Event {
        Event { tick, kind }
    }

    #[test]
    fn a_correction_keeps_the_sound_and_a_retraction_cuts_it() {
        let mut mixer = Mixer::default();
        let mut director = SoundDirector::default();
        let hit = |damage| {
            event(
                5,
                EventKind::Hit {
                    attacker: 0,
                    attacker_generation: 1,
                    victim: 1,
                    damage,
                    source: HitSource::Melee,
                },
            )
        };
        director.frame(&[hit(18)], &[], &mut mixer);
        assert_eq!(mixer.started.len(), 1);
        // Rollback: the same hit did 12, not 18: corrected, not played again.
        director.frame(&[hit(12)], &[hit(18)], &mut mixer);
        assert_eq!(mixer.started.len(), 1, "not played twice");
        assert!(mixer.is_playing(&hit(12).key()));
        assert_eq!(director.corrections, 1);
        // Rollback: it never happened.
        director.frame(&[], &[hit(12)], &mut mixer);
        assert!(!mixer.is_playing(&hit(12).key()), "cut");
        assert_eq!(mixer.cut, vec![hit(12).key()]);
    }

    #[test]
    fn voices_mix_fade_and_end_and_mute_silences() {
        let mut mixer = Mixer::default();
        mixer.play(
            event(1, EventKind::Reloaded { player: 0 }).key(),
            Sfx::Reload,
        );
        let mut out = vec![0i16; 256];
        mixer.mix(&mut out);
        assert!(out.iter().any(|&s| s != 0), "audible");
        mixer.muted = true;
        mixer.mix(&mut out);
        assert!(out.iter().all(|&s| s == 0), "muted");
        let mut long = vec![0i16; SAMPLE_RATE as usize];
        mixer.mix(&mut long);
        assert_eq!(mixer.playing(), 0, "a short effect ends");
    }

    /// Every effect's waveform, pinned: its length and the xxh3 of its samples (on x86-64
    /// Linux, whose libm gives `sin` and `exp`). A change to the synthesis fails here on
    /// purpose; the message holds the new pins to copy in once the change is heard to be right.
    #[test]
    fn every_effects_waveform_is_pinned() {
        let pins = [
            (Sfx::Shot, 3528, 0xc041_884b_d724_20ac_u64),
            (Sfx::Rail, 13230, 0xb369_bba6_464e_5e6d),
            (Sfx::Hit, 5292, 0x9e68_08eb_a952_7743),
            (Sfx::Swing, 6174, 0x122f_ffea_6660_7468),
            (Sfx::BlockBreak, 11025, 0x3715_bb95_dab0_d0a8),
            (Sfx::Reload, 4410, 0x8fda_aad1_84f3_0d73),
            (Sfx::Ko, 26460, 0xbd35_6c11_246d_b538),
            (Sfx::RoundStart, 15435, 0xdd81_5049_9b01_27db),
            (Sfx::Countdown, 6615, 0x6fe2_7c04_2031_1f80),
            (Sfx::MenuMove, 1323, 0x067b_f677_f4a5_7cc8),
            (Sfx::MenuSelect, 3969, 0xe4c3_5e29_6898_f3f1),
            (Sfx::MenuBack, 3528, 0x7b85_7f1d_f9f4_40cb),
        ];
        let now: Vec<(Sfx, usize, u64)> = Sfx::ALL
            .iter()
            .map(|&sfx| {
                let s = synth(sfx);
                let bytes: Vec<u8> = s.iter().flat_map(|v| v.to_le_bytes()).collect();
                (sfx, s.len(), xxhash_rust::xxh3::xxh3_64(&bytes))
            })
            .collect();
        assert_eq!(now, pins, "now: {now:#x?}");
    }

    /// Each effect has its own row of the table and its own noise; the noise is the
    /// xorshift32 sequence (13, 17, 5) mapped onto −1..1.
    #[test]
    fn each_effect_has_its_own_row_and_noise() {
        for (i, sfx) in Sfx::ALL.into_iter().enumerate() {
            assert_eq!(sfx.index(), i, "{sfx:?}");
        }
        let seeds: std::collections::BTreeSet<u32> =
            Sfx::ALL.iter().map(|&sfx| noise_seed(sfx)).collect();
        assert_eq!(seeds.len(), Sfx::ALL.len());
        let mut noise = Noise(1);
        let first = [noise.next(), noise.next(), noise.next()];
        // States 270369, 67634689, 2647435461 (xorshift32 from 1), as fractions of u32::MAX.
        assert_eq!(first, [-0.999_874_1, -0.968_505_14, 0.232_808_23]);
        let mut noise = Noise(0x2545_F491);
        let draws: Vec<f32> = (0..10_000).map(|_| noise.next()).collect();
        assert!(draws.iter().all(|d| (-1.0..=1.0).contains(d)));
        let mean = draws.iter().sum::<f32>() / 10_000.0;
        assert!(mean.abs() < 0.05, "mean {mean}");
    }

    #[test]
    fn every_effect_is_short_and_not_silent() {
        for sfx in Sfx::ALL {
            let s = synth(sfx);
            assert!(!s.is_empty() && s.len() < SAMPLE_RATE as usize, "{sfx:?}");
            assert!(s.iter().any(|&v| v.unsigned_abs() > 1000), "{sfx:?}");
        }
    }
}
