//! The `fl-server` binary: writes its default configuration, prints `listening on …` only when
//! ready, writes metrics JSON, and exits cleanly on SIGTERM. Loopback only.

mod process;

use serde_json::Value;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

#[test]
fn starts_listens_reports_and_stops_on_sigterm() {
    let dir = std::env::temp_dir().join(format!("fl-server-bin-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("temp dir");
    let metrics = dir.join("metrics.json");
    let mut child = process::Owned::new(
        Command::new(env!("CARGO_BIN_EXE_fl-server"))
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
            .expect("fl-server starts"),
    );
    let rx = process::stdout_lines(&mut child);
    let line = rx
        .recv_timeout(Duration::from_secs(60))
        .expect("a listening line within a minute");
    assert!(line.starts_with("listening on 127.0.0.1:"), "{line}");
    assert!(dir.join("server.toml").exists(), "default config written");
    assert!(dir.join("data").exists(), "identity directory created");

    // The file is replaced atomically every second; wait for one written after a few ticks.
    let deadline = Instant::now() + Duration::from_secs(30);
    let mut json = Value::Null;
    while Instant::now() < deadline {
        if let Ok(text) = std::fs::read_to_string(&metrics) {
            json = serde_json::from_str(&text)
                .unwrap_or_else(|e| panic!("metrics JSON does not parse: {e}: {text}"));
            if json["ticks"].as_u64().is_some_and(|t| t >= 2) {
                break;
            }
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    check_metrics(&json);
    let exit = process::terminate(&mut child, Duration::from_secs(15));
    assert!(exit.success(), "{exit:?}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// Every documented field of the metrics document, with values a freshly started, unpaused
/// server with 4 AI aircraft and no peers must have.
fn check_metrics(m: &Value) {
    let keys = |v: &Value| -> Vec<String> {
        v.as_object()
            .map(|o| o.keys().cloned().collect())
            .unwrap_or_default()
    };
    assert_eq!(
        keys(m),
        [
            "ticks",
            "dropped_ticks",
            "tick_hz",
            "load_factor",
            "entities",
            "paused",
            "world_tick",
            "phases",
            "peers",
            "players"
        ],
        "{m}"
    );
    let ticks = m["ticks"].as_u64().unwrap_or(0);
    assert!(ticks >= 2, "{m}");
    assert!(
        m["dropped_ticks"].as_u64().is_some_and(|d| d <= ticks),
        "{m}"
    );
    assert!(m["tick_hz"].as_f64().is_some_and(|hz| hz > 0.0), "{m}");
    assert!(
        m["load_factor"]
            .as_f64()
            .is_some_and(|f| f > 0.0 && f <= 1.0),
        "{m}"
    );
    assert_eq!(m["entities"], 4, "{m}");
    assert_eq!(m["paused"], false, "{m}");
    // Not paused: the world ticked with the runtime (its tick counts from its own start).
    assert!(
        m["world_tick"]
            .as_u64()
            .is_some_and(|t| t >= 1 && t <= ticks + 1),
        "{m}"
    );
    assert_eq!(
        keys(&m["phases"]),
        ["total", "network", "world", "snapshots"]
    );
    for phase in ["total", "network", "world", "snapshots"] {
        let p = &m["phases"][phase];
        assert_eq!(keys(p), ["p50_ms", "p95_ms", "p99_ms", "max_ms"], "{phase}");
        let v: Vec<f64> = ["p50_ms", "p95_ms", "p99_ms", "max_ms"]
            .iter()
            .map(|k| p[*k].as_f64().unwrap_or(-1.0))
            .collect();
        assert!(v[0] >= 0.0, "{phase}: {p}");
        assert!(v.windows(2).all(|w| w[0] <= w[1]), "{phase}: {p}");
    }
    assert!(
        m["phases"]["total"]["max_ms"].as_f64().unwrap_or(0.0) > 0.0,
        "ticks take time: {m}"
    );
    assert_eq!(m["peers"], Value::Array(Vec::new()), "no peers: {m}");
    assert_eq!(m["players"], Value::Array(Vec::new()), "no players: {m}");
}
