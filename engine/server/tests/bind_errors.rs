//! The `fl-server` binary on a port that is already taken: it exits with one line that names
//! the address, gives the operating system's cause exactly once, and says what to change
//! (`--port`, or `[discovery] query_port` for the query responder). Loopback only; every wait
//! is bounded.

use std::net::UdpSocket;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// Runs `fl-server` in a fresh directory with `args` and returns (success, stderr).
fn run_server(dir: &std::path::Path, args: &[&str]) -> (bool, String) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_fl-server"))
        .args(["--config", "server.toml", "--data-dir", "data"])
        .args(args)
        .current_dir(dir)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("fl-server starts");
    let deadline = Instant::now() + Duration::from_secs(60);
    let status = loop {
        if let Some(status) = child.try_wait().expect("wait") {
            break status;
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            let _ = child.wait();
            panic!("fl-server did not exit on a port in use");
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    let mut stderr = String::new();
    use std::io::Read;
    child
        .stderr
        .take()
        .expect("stderr")
        .read_to_string(&mut stderr)
        .expect("stderr is text");
    (status.success(), stderr)
}

/// The last line the binary printed (its error), after the log lines.
fn error_line(stderr: &str) -> &str {
    stderr
        .lines()
        .rev()
        .find(|l| l.starts_with("fl-server: "))
        .unwrap_or_else(|| panic!("no error line in:\n{stderr}"))
}

#[test]
fn a_game_port_in_use_names_the_address_and_suggests_port() {
    let taken = UdpSocket::bind("127.0.0.1:0").expect("bind loopback");
    let addr = taken.local_addr().expect("addr");
    let dir = tempfile::tempdir().expect("tempdir");
    let port = addr.port().to_string();
    let (ok, stderr) = run_server(dir.path(), &["--bind", "127.0.0.1", "--port", &port]);
    assert!(!ok, "a server on a taken port must fail");
    let line = error_line(&stderr);
    assert!(
        line.starts_with(&format!("fl-server: cannot bind UDP {addr}: ")),
        "{line}"
    );
    assert!(line.contains("choose another port with --port"), "{line}");
    // The cause is said once: "Address already in use (os error 98)" on Linux.
    assert_eq!(line.matches("already in use").count(), 1, "{line}");
}

#[test]
fn a_query_port_in_use_names_it_and_what_to_change() {
    let taken = UdpSocket::bind("127.0.0.1:0").expect("bind loopback");
    let addr = taken.local_addr().expect("addr");
    let dir = tempfile::tempdir().expect("tempdir");
    std::fs::write(
        dir.path().join("server.toml"),
        format!(
            "[server]\nbind = \"127.0.0.1\"\nport = 0\n\n[discovery]\nquery_enabled = true\n\
             query_port = {}\n",
            addr.port()
        ),
    )
    .expect("config written");
    let (ok, stderr) = run_server(dir.path(), &[]);
    assert!(!ok, "a server whose query port is taken must fail");
    let line = error_line(&stderr);
    assert!(
        line.starts_with(&format!(
            "fl-server: cannot bind the query responder on UDP {addr}: "
        )),
        "{line}"
    );
    assert!(line.contains("[discovery] query_port"), "{line}");
    assert_eq!(line.matches("already in use").count(), 1, "{line}");
}
