//! What a test needs from the machine besides the reference material: a graphics adapter and
//! an X display (Xvfb), with the same rule as the material — a missing one records a skip, and
//! `FL_REQUIRE_GPU=1` (set where an adapter is known to exist) turns a missing adapter into a
//! failure. Also a bounded wait for a child process, so no test hangs on a binary that does.
//!
//! Must not: know any crate of ours (the adapter comes in as a `Result`, so fl-render stays
//! out of this crate's dependencies).

use std::io::{BufRead, BufReader};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::time::{Duration, Instant};

/// Environment variable that turns a missing graphics adapter into a failure (`1`).
pub const REQUIRE_GPU_VAR: &str = "FL_REQUIRE_GPU";

/// The adapter (or whatever `opened` holds), or `None` after recording a skip naming `e`;
/// panics instead under `FL_REQUIRE_GPU=1`.
#[track_caller]
pub fn adapter_or_skip<T, E: std::fmt::Display>(opened: Result<T, E>) -> Option<T> {
    match opened {
        Ok(g) => Some(g),
        Err(e) => {
            no_adapter(&e.to_string());
            None
        }
    }
}

/// Records that the test found no graphics adapter (`why` says how it knows); panics instead
/// under `FL_REQUIRE_GPU=1`.
#[track_caller]
pub fn no_adapter(why: &str) {
    if std::env::var(REQUIRE_GPU_VAR).as_deref() == Ok("1") {
        panic!("{REQUIRE_GPU_VAR}=1 but no graphics adapter: {why}");
    }
    crate::skip(&format!(
        "no graphics adapter ({why}); install libvulkan1 mesa-vulkan-drivers for lavapipe"
    ));
}

/// An Xvfb server on a display it picked itself (`-displayfd`, so parallel tests never
/// collide), stopped when dropped.
#[derive(Debug)]
pub struct Xvfb {
    child: Child,
    display: String,
}

impl Xvfb {
    /// Starts Xvfb (1024×768, no TCP); `None` after recording a skip when it is not installed.
    /// Panics when it starts but names no display (a broken install is a failure, not a skip).
    pub fn start() -> Option<Xvfb> {
        let spawned = Command::new("Xvfb")
            .args([
                "-displayfd",
                "1",
                "-screen",
                "0",
                "1024x768x24",
                "-nolisten",
                "tcp",
            ])
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn();
        let Ok(mut child) = spawned else {
            crate::skip("Xvfb is not installed (./dev installs xvfb)");
            return None;
        };
        let mut line = String::new();
        if let Some(out) = child.stdout.take() {
            let _ = BufReader::new(out).read_line(&mut line);
        }
        let number = line.trim().to_owned();
        let xvfb = Xvfb {
            child,
            display: format!(":{number}"),
        };
        assert!(!number.is_empty(), "Xvfb gave no display number");
        Some(xvfb)
    }

    /// The `DISPLAY` value, e.g. `:99`.
    pub fn display(&self) -> &str {
        &self.display
    }

    /// `cmd` set up to open its windows on this display (and not on a Wayland one).
    pub fn command(&self, program: &str) -> Command {
        let mut c = Command::new(program);
        c.env("DISPLAY", &self.display)
            .env_remove("WAYLAND_DISPLAY");
        c
    }
}

impl Drop for Xvfb {
    fn drop(&mut self) {
        // Our own child, by its handle.
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Waits for `child` at most `limit`; past that kills it (our own child, by handle) and
/// returns `None`.
pub fn wait_bounded(child: &mut Child, limit: Duration) -> Option<ExitStatus> {
    let until = Instant::now() + limit;
    while Instant::now() < until {
        if let Ok(Some(status)) = child.try_wait() {
            return Some(status);
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    let _ = child.kill();
    let _ = child.wait();
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_present_adapter_passes_through() {
        assert_eq!(adapter_or_skip::<u8, &str>(Ok(7)), Some(7));
    }

    #[test]
    fn a_child_past_its_limit_is_stopped() {
        let Ok(mut child) = Command::new("sleep").arg("30").spawn() else {
            crate::skip("no `sleep` binary");
            return;
        };
        assert_eq!(wait_bounded(&mut child, Duration::from_millis(200)), None);
        assert!(
            child.try_wait().is_ok_and(|s| s.is_some()),
            "stopped and reaped, not left running"
        );
        let mut quick = Command::new("true").spawn().expect("true");
        assert!(wait_bounded(&mut quick, Duration::from_secs(20)).is_some_and(|s| s.success()));
    }
}
