//! The `fl-server` binary as a test runs it: its stdout read line by line on a thread, and a
//! graceful stop by SIGTERM to our own child's pid, waited for within a bound.

#![allow(dead_code)]

use std::io::{BufRead, BufReader};
use std::process::{Child, Command, ExitStatus};
use std::sync::mpsc::{Receiver, channel};
use std::time::{Duration, Instant};

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
