//! The `fl-server` binary as a test runs it: owned so that a failing assertion never leaves it
//! running, its stdout read line by line on a thread, and a graceful stop by SIGTERM to our own
//! child's pid, waited for within a bound.

#![allow(dead_code)]

use std::io::{BufRead, BufReader};
use std::ops::{Deref, DerefMut};
use std::process::{Child, Command, ExitStatus};
use std::sync::mpsc::{Receiver, channel};
use std::time::{Duration, Instant};

/// A child process killed (through its own handle) when dropped, so a test that panics half-way
/// leaves nothing running; a no-op once it has exited.
#[derive(Debug)]
pub struct Owned(Child);

impl Owned {
    pub fn new(child: Child) -> Self {
        Self(child)
    }
}

impl Deref for Owned {
    type Target = Child;
    fn deref(&self) -> &Child {
        &self.0
    }
}

impl DerefMut for Owned {
    fn deref_mut(&mut self) -> &mut Child {
        &mut self.0
    }
}

impl Drop for Owned {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// `child`'s stdout lines as they come (the child must have been spawned with a piped stdout).
pub fn stdout_lines(child: &mut Child) -> Receiver<String> {
    let stdout = child.stdout.take().expect("a piped stdout");
    let (tx, rx) = channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines().map_while(Result::ok) {
            let _ = tx.send(line);
        }
    });
    rx
}

/// Sends SIGTERM to `child` (by its own pid) and returns how it exited; panics when it is still
/// running after `limit`.
pub fn terminate(child: &mut Child, limit: Duration) -> ExitStatus {
    let status = Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status()
        .expect("kill runs");
    assert!(status.success());
    let deadline = Instant::now() + limit;
    loop {
        if let Some(s) = child.try_wait().expect("wait") {
            return s;
        }
        assert!(
            Instant::now() < deadline,
            "fl-server did not stop on SIGTERM"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}
