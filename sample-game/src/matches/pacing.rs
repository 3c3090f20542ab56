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
        let now = Instant::now();
        PacingRecorder {
            start: now,
            last_frame: now,
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
        let now = Instant::now();
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
        if self.start.elapsed() >= WARMUP {
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
            wall: self.elapsed(),
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
}
