//! The `fl-server` binary: writes its default configuration, prints `listening on …` only when
//! ready, writes metrics JSON, and exits cleanly on SIGTERM. Loopback only.

use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

#[test]
fn starts_listens_reports_and_stops_on_sigterm() {
    let dir = std::env::temp_dir().join(format!("fl-server-bin-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("temp dir");
    let metrics = dir.join("metrics.json");
    let mut child = Command::new(env!("CARGO_BIN_EXE_fl-server"))
        .args([
            "--config",
            "server.toml",
            "--bind",
            "127.0.0.1",
            "--port",
            "0",
        ])
        .args([
            "--data-dir",
            "data",
            "--ai",
            "4",
            "--workers",
            "1",
            "--metrics-json",
        ])
        .arg(&metrics)
        .current_dir(&dir)
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("fl-server starts");
    let stdout = child.stdout.take().expect("stdout");
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines().map_while(Result::ok) {
            let _ = tx.send(line);
        }
    });
    let line = rx
        .recv_timeout(Duration::from_secs(60))
        .expect("a listening line within a minute");
    assert!(line.starts_with("listening on 127.0.0.1:"), "{line}");
    assert!(dir.join("server.toml").exists(), "default config written");
    assert!(dir.join("data").exists(), "identity directory created");

    let deadline = Instant::now() + Duration::from_secs(30);
    let mut json = String::new();
    while Instant::now() < deadline {
        if let Ok(text) = std::fs::read_to_string(&metrics)
            && text.contains("\"tick_hz\"")
        {
            json = text;
            break;
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    assert!(json.contains("\"entities\":4"), "metrics: {json}");

    let status = Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status()
        .expect("kill runs");
    assert!(status.success());
    let deadline = Instant::now() + Duration::from_secs(15);
    let exit = loop {
        if let Some(s) = child.try_wait().expect("wait") {
            break s;
        }
        assert!(
            Instant::now() < deadline,
            "fl-server did not stop on SIGTERM"
        );
        std::thread::sleep(Duration::from_millis(50));
    };
    assert!(exit.success(), "{exit:?}");
    let _ = std::fs::remove_dir_all(&dir);
}
