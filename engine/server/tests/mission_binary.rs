//! `fl-server --mission`: `--check` names what a refused mission lacks (exit 1) and passes a good
//! one; a refused mission stops the start-up naming it; a good one runs before the server
//! listens (the log says so). Loopback only; the server process is ended by its own handle.

mod process;

use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::time::Duration;

fn server(dir: &std::path::Path, pack: &std::path::Path) -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_fl-server"));
    c.env_remove("RUST_LOG")
        .env_remove("NO_COLOR")
        .current_dir(dir)
        .args(["--bind", "127.0.0.1", "--port", "0", "--data-dir", "data"])
        .arg("--pack")
        .arg(pack);
    c
}

fn pack() -> Option<PathBuf> {
    fl_fixtures::fixture_pack_or("fl-server --mission")
}

#[test]
fn check_names_what_a_refused_mission_lacks_and_passes_a_good_one() {
    let Some(pack) = pack() else { return };
    let dir = tempfile::tempdir().expect("tempdir");
    let out = server(dir.path(), &pack)
        .args(["--check", "--mission", "fl-base-pack:s02_line_holds"])
        .output()
        .expect("runs");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{stdout}");
    assert!(stdout.contains("mig29a"), "{stdout}");
    let out = server(dir.path(), &pack)
        .args(["--check", "--mission", "fl-base-pack:ia_dogfight"])
        .output()
        .expect("runs");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{stdout}");
}

#[test]
fn a_refused_mission_stops_the_start_up_naming_it() {
    let Some(pack) = pack() else { return };
    let dir = tempfile::tempdir().expect("tempdir");
    let out = server(dir.path(), &pack)
        .args(["--mission", "fl-base-pack:s02_line_holds"])
        .output()
        .expect("runs");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("mig29a"), "{stderr}");
    assert!(
        !String::from_utf8_lossy(&out.stdout).contains("listening"),
        "it never listened"
    );
}

#[test]
fn a_good_mission_runs_before_the_server_listens() {
    let Some(pack) = pack() else { return };
    let dir = tempfile::tempdir().expect("tempdir");
    let log = dir.path().join("server.log");
    let mut child = server(dir.path(), &pack)
        .args(["--mission", "fl-base-pack:ia_dogfight"])
        .stdout(Stdio::piped())
        .stderr(std::fs::File::create(&log).expect("log file"))
        .spawn()
        .expect("fl-server starts");
    let rx = process::stdout_lines(&mut child);
    let line = rx.recv_timeout(Duration::from_secs(60));
    let _ = child.kill();
    let _ = child.wait();
    let line = line.expect("a listening line within a minute");
    assert!(line.starts_with("listening on 127.0.0.1:"), "{line}");
    // The mission's bandit is in the world before anyone joins.
    assert!(line.contains(" 1 entities)"), "{line}");
    let text = std::fs::read_to_string(&log).expect("log");
    assert!(text.contains("mission started"), "{text}");
    assert!(text.contains("mission running"), "{text}");
    assert!(text.contains("fl-base-pack:ia_dogfight"), "{text}");
}
