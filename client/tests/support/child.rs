#![allow(dead_code)] // shared by two test harnesses; each uses part of it
//! Child processes that cannot hang a test: every wait has a limit, and a child still running at
//! its limit is killed and the test fails saying so. The limits are far above any normal run;
//! they only turn a hang into a failure, they never judge speed.

use std::io::Read;
use std::process::{Child, Command, ExitStatus, Output, Stdio};
use std::time::{Duration, Instant};

/// Limit for one `duel-cli` run in these tests.
pub const CHILD_LIMIT: Duration = Duration::from_secs(180);

/// Waits for `child` at most `limit`; kills it and panics if it is still running then.
pub fn wait_within(child: &mut Child, limit: Duration, what: &str) -> ExitStatus {
    let deadline = Instant::now() + limit;
    loop {
        if let Some(status) = child.try_wait().expect("polls the child") {
            return status;
        }
        if Instant::now() >= deadline {
            let _ = child.kill();
            let _ = child.wait();
            panic!("{what} still running after {limit:?}: killed (a hang, not a result)");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// `command.output()`, bounded by `limit` (stdin closed, stdout and stderr captured).
pub fn output_within(command: &mut Command, limit: Duration) -> Output {
    let what = format!("{command:?}");
    let child = command
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("spawning {what}: {e}"));
    output_of(&mut KillOnDrop(child), limit, &what)
}

/// `child.wait_with_output()`, bounded by `limit`.
pub fn output_of(child: &mut Child, limit: Duration, what: &str) -> Output {
    // Drained on threads, so a child filling a pipe cannot block while we poll it.
    let drain = |pipe: Option<Box<dyn Read + Send>>| {
        std::thread::spawn(move || {
            let mut bytes = Vec::new();
            if let Some(mut pipe) = pipe {
                let _ = pipe.read_to_end(&mut bytes);
            }
            bytes
        })
    };
    let stdout = drain(
        child
            .stdout
            .take()
            .map(|p| Box::new(p) as Box<dyn Read + Send>),
    );
    let stderr = drain(
        child
            .stderr
            .take()
            .map(|p| Box::new(p) as Box<dyn Read + Send>),
    );
    let status = wait_within(child, limit, what);
    Output {
        status,
        stdout: stdout.join().expect("stdout drained"),
        stderr: stderr.join().expect("stderr drained"),
    }
}

/// The lines `child` prints on stdout, read on a thread: `recv_timeout` bounds waiting for
/// one, and the channel ends when the child closes its stdout.
pub fn stdout_lines(child: &mut Child) -> std::sync::mpsc::Receiver<String> {
    use std::io::BufRead;
    let stdout = child.stdout.take().expect("stdout piped");
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for line in std::io::BufReader::new(stdout)
            .lines()
            .map_while(Result::ok)
        {
            if tx.send(line).is_err() {
                break;
            }
        }
    });
    rx
}

/// Polls `done` until it holds; fails if `child` exits first or `limit` passes (killing it).
pub fn wait_until(child: &mut Child, limit: Duration, what: &str, mut done: impl FnMut() -> bool) {
    let deadline = Instant::now() + limit;
    while !done() {
        if let Some(status) = child.try_wait().expect("polls the child") {
            panic!("{what}: the child exited ({status}) before the awaited moment");
        }
        if Instant::now() >= deadline {
            let _ = child.kill();
            let _ = child.wait();
            panic!("{what}: not reached within {limit:?}: killed the child");
        }
        std::thread::sleep(Duration::from_millis(5));
    }
}

/// A child killed (and reaped) when the test is done with it, panicking or not: a failed test
/// leaves no process behind. Killing one that has already been waited for does nothing.
pub struct KillOnDrop(pub Child);

impl std::ops::Deref for KillOnDrop {
    type Target = Child;
    fn deref(&self) -> &Child {
        &self.0
    }
}

impl std::ops::DerefMut for KillOnDrop {
    fn deref_mut(&mut self) -> &mut Child {
        &mut self.0
    }
}

impl Drop for KillOnDrop {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}
