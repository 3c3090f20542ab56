//! Frame pacing measurement: how steadily the real window loop simulates 60 ticks a second and
//! how long frames take. A measurement, printed by `--measure-pacing`, never a timed test.

use std::fmt;
use std::time::{Duration, Instant};

/// Frames before this much wall time are left out of the steady-state figures (window
/// creation, first present, caches warming up). The overall worst frame still counts them.
const WARMUP: Duration = Duration::from_secs(1);

/// Records ticks and frame times as the loop runs.
#[derive(Debug)]
pub(crate) struct PacingRecorder {
    start: Instant,
    last_frame: Instant,
    ticks: u64,
    /// Frame intervals (present to present) after the warm-up.
    steady: Vec<Duration>,
    worst_overall: Duration,
    frames: u64,
    /// Time spent drawing and presenting (SDL batches draw calls and runs them at present),
    /// after the warm-up.
    draw_total: Duration,
    draw_worst: Duration,
    draws: u32,
}

impl PacingRecorder {
    pub(crate) fn new() -> PacingRecorder {
        PacingRecorder::started_at(Instant::now())
    }

    /// A recorder whose run began at `start` (its first frame interval is measured from it).
    fn started_at(start: Instant) -> PacingRecorder {
        PacingRecorder {
            start,
            last_frame: start,
            ticks: 0,
            steady: Vec::with_capacity(8192),
            worst_overall: Duration::ZERO,
            frames: 0,
            draw_total: Duration::ZERO,
            draw_worst: Duration::ZERO,
            draws: 0,
        }
    }

    /// One simulation tick ran.
    pub(crate) fn tick(&mut self) {
        self.ticks += 1;
    }

    /// A frame was presented now.
    pub(crate) fn frame(&mut self) {
        self.frame_at(Instant::now());
    }

    /// A frame was presented at `now`.
    fn frame_at(&mut self, now: Instant) {
        let interval = now - self.last_frame;
        self.last_frame = now;
        self.frames += 1;
        self.worst_overall = self.worst_overall.max(interval);
        if now - self.start >= WARMUP {
            self.steady.push(interval);
        }
    }

    /// Drawing and presenting one frame took `spent`.
    pub(crate) fn drew(&mut self, spent: Duration) {
        self.drew_at(spent, Instant::now());
    }

    /// Drawing and presenting the frame that ended at `now` took `spent`.
    fn drew_at(&mut self, spent: Duration, now: Instant) {
        if now - self.start >= WARMUP {
            self.draw_total += spent;
            self.draw_worst = self.draw_worst.max(spent);
            self.draws += 1;
        }
    }

    /// The wall time since the recorder started.
    pub(crate) fn elapsed(&self) -> Duration {
        self.start.elapsed()
    }

    pub(crate) fn report(&self, renderer: &str, vsync: bool) -> PacingReport {
        self.report_at(Instant::now(), renderer, vsync)
    }

    /// The figures of the run so far, as of `now`.
    fn report_at(&self, now: Instant, renderer: &str, vsync: bool) -> PacingReport {
        let mut sorted = self.steady.clone();
        sorted.sort_unstable();
        let pick = |q: f64| {
            sorted
                .get(((sorted.len() as f64 - 1.0) * q).round() as usize)
                .copied()
                .unwrap_or_default()
        };
        let total: Duration = sorted.iter().sum();
        PacingReport {
            wall: now - self.start,
            ticks: self.ticks,
            frames: self.frames,
            mean_frame: total.checked_div(sorted.len() as u32).unwrap_or_default(),
            median_frame: pick(0.5),
            p99_frame: pick(0.99),
            worst_steady_frame: sorted.last().copied().unwrap_or_default(),
            worst_frame: self.worst_overall,
            frames_over_20ms: sorted.iter().filter(|d| d.as_millis() >= 20).count() as u64,
            mean_draw: self.draw_total.checked_div(self.draws).unwrap_or_default(),
            worst_draw: self.draw_worst,
            renderer: renderer.to_string(),
            vsync,
        }
    }
}

/// What a pacing run measured.
#[derive(Clone, Debug, PartialEq)]
pub struct PacingReport {
    /// Wall time of the run.
    pub wall: Duration,
    /// Simulation ticks run.
    pub ticks: u64,
    /// Frames presented.
    pub frames: u64,
    /// Mean frame interval after the warm-up second.
    pub mean_frame: Duration,
    /// Median frame interval after the warm-up second.
    pub median_frame: Duration,
    /// 99th percentile frame interval after the warm-up second.
    pub p99_frame: Duration,
    /// Longest frame interval after the warm-up second.
    pub worst_steady_frame: Duration,
    /// Longest frame interval of the whole run, warm-up included.
    pub worst_frame: Duration,
    /// Frames after the warm-up that took 20 ms or more.
    pub frames_over_20ms: u64,
    /// Mean time to draw and present a frame (including any wait for vsync), after the
    /// warm-up.
    pub mean_draw: Duration,
    /// Longest time to draw and present a frame, after the warm-up.
    pub worst_draw: Duration,
    /// SDL's name for the renderer.
    pub renderer: String,
    /// Whether the renderer presents with vsync (real or simulated by SDL).
    pub vsync: bool,
}

impl PacingReport {
    /// Simulation ticks per second of wall time.
    #[must_use]
    pub fn tick_rate(&self) -> f64 {
        self.ticks as f64 / self.wall.as_secs_f64().max(f64::EPSILON)
    }

    /// Frames per second of wall time.
    #[must_use]
    pub fn frame_rate(&self) -> f64 {
        self.frames as f64 / self.wall.as_secs_f64().max(f64::EPSILON)
    }
}

impl fmt::Display for PacingReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let ms = |d: Duration| d.as_secs_f64() * 1000.0;
        writeln!(
            f,
            "pacing: {:.1} s wall, renderer {}, vsync {}",
            self.wall.as_secs_f64(),
            self.renderer,
            if self.vsync { "on" } else { "off" }
        )?;
        writeln!(
            f,
            "simulation: {} ticks = {:.2} ticks/s (target 60)",
            self.ticks,
            self.tick_rate()
        )?;
        writeln!(
            f,
            "frames: {} = {:.2} fps; after the 1 s warm-up: mean {:.2} ms, median {:.2} ms, \
             p99 {:.2} ms, worst {:.2} ms, {} frames >= 20 ms",
            self.frames,
            self.frame_rate(),
            ms(self.mean_frame),
            ms(self.median_frame),
            ms(self.p99_frame),
            ms(self.worst_steady_frame),
            self.frames_over_20ms
        )?;
        writeln!(
            f,
            "draw + present: mean {:.2} ms, worst {:.2} ms",
            ms(self.mean_draw),
            ms(self.worst_draw)
        )?;
        write!(
            f,
            "worst frame including warm-up: {:.2} ms",
            ms(self.worst_frame)
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rates_divide_by_wall_time() {
        let r = PacingReport {
            wall: Duration::from_secs(2),
            ticks: 120,
            frames: 150,
            mean_frame: Duration::ZERO,
            median_frame: Duration::ZERO,
            p99_frame: Duration::ZERO,
            worst_steady_frame: Duration::ZERO,
            worst_frame: Duration::ZERO,
            frames_over_20ms: 0,
            mean_draw: Duration::ZERO,
            worst_draw: Duration::ZERO,
            renderer: "software".into(),
            vsync: true,
        };
        assert!((r.tick_rate() - 60.0).abs() < 1e-9);
        assert!((r.frame_rate() - 75.0).abs() < 1e-9);
        assert!(r.to_string().contains("60.00 ticks/s"));
    }

    /// A run on a made-up clock: frames 16 ms apart with one slow frame in the warm-up
    /// second and some after it, so each figure has one right answer.
    #[test]
    fn figures_leave_out_the_warm_up_and_pick_their_percentiles() {
        let t0 = Instant::now();
        let ms = Duration::from_millis;
        let mut r = PacingRecorder::started_at(t0);
        let mut at = t0;
        // Warm-up: one frame of 300 ms, 43 of 16 ms and one of 2 ms, ending at 0.99 s: all
        // left out of the steady figures. The first steady frame ends at exactly 1 s.
        for step in std::iter::once(300)
            .chain(std::iter::repeat_n(16, 43))
            .chain([2])
        {
            at += ms(step);
            r.frame_at(at);
            r.drew_at(ms(50), at);
        }
        assert_eq!(at - t0, ms(990));
        r.tick();
        // Steady: 97 frames of 10 ms, 2 of exactly 20 ms and one of 30 ms.
        let steady: Vec<u64> = std::iter::repeat_n(10, 97).chain([20, 20, 30]).collect();
        for (i, step) in steady.iter().enumerate() {
            at += ms(*step);
            r.frame_at(at);
            r.drew_at(ms(1 + i as u64 % 3), at);
            r.tick();
            r.tick();
        }
        let report = r.report_at(at + ms(5), "made-up", false);
        let want = PacingReport {
            wall: at + ms(5) - t0,
            ticks: 201,
            frames: 145,
            // (97 × 10 + 20 + 20 + 30) / 100 ms
            mean_frame: Duration::from_micros(10_400),
            median_frame: ms(10),
            p99_frame: ms(20),
            worst_steady_frame: ms(30),
            worst_frame: ms(300),
            frames_over_20ms: 3,
            // (34 × 1 + 33 × 2 + 33 × 3) / 100 ms
            mean_draw: Duration::from_micros(1_990),
            worst_draw: ms(3),
            renderer: "made-up".into(),
            vsync: false,
        };
        assert_eq!(report, want);
        let text = report.to_string();
        for part in [
            "renderer made-up, vsync off",
            "201 ticks",
            "145 = ",
            "mean 10.40 ms, median 10.00 ms, p99 20.00 ms, worst 30.00 ms, 3 frames >= 20 ms",
            "draw + present: mean 1.99 ms, worst 3.00 ms",
            "worst frame including warm-up: 300.00 ms",
        ] {
            assert!(text.contains(part), "{part:?} in {text}");
        }
    }

    /// Before any frame after the warm-up there are no steady figures, only zeros.
    #[test]
    fn a_run_inside_its_warm_up_has_no_steady_figures() {
        let t0 = Instant::now();
        let mut r = PacingRecorder::started_at(t0);
        r.frame_at(t0 + Duration::from_millis(999));
        r.drew_at(Duration::from_millis(4), t0 + Duration::from_millis(999));
        let report = r.report_at(t0 + Duration::from_millis(999), "x", true);
        assert_eq!(
            (
                report.frames,
                report.mean_frame,
                report.p99_frame,
                report.worst_steady_frame
            ),
            (1, Duration::ZERO, Duration::ZERO, Duration::ZERO)
        );
        assert_eq!(
            (report.mean_draw, report.worst_draw),
            (Duration::ZERO, Duration::ZERO)
        );
        assert_eq!(report.worst_frame, Duration::from_millis(999));
        assert!(report.to_string().contains("vsync on"));
    }

    /// The wrappers the game calls read the real clock: a recorder that began two seconds
    /// ago counts what it is told as steady (no figure here depends on how fast this runs).
    #[test]
    fn the_games_calls_record_on_the_real_clock() {
        let past = Instant::now().checked_sub(Duration::from_secs(2));
        let Some(start) = past else {
            return; // a clock younger than two seconds: nothing to check against
        };
        let mut r = PacingRecorder::started_at(start);
        r.frame();
        r.drew(Duration::from_millis(7));
        r.frame();
        let report = r.report("real", true);
        assert_eq!(
            (report.frames, report.worst_draw),
            (2, Duration::from_millis(7))
        );
        assert!(report.wall >= Duration::from_secs(2));
        assert!(
            report.worst_frame >= Duration::from_secs(2),
            "the first frame's interval"
        );
        assert!(r.elapsed() >= Duration::from_secs(2));
        assert!(PacingRecorder::new().elapsed() < Duration::from_secs(2));
    }
}
