//! The `fighters-legacy` binary against a UDP port on 127.0.0.1 that never answers: however
//! short `--seconds` is, the run ends with the join timeout's message (stage, address and port,
//! time waited) on stderr and in the summary, and exits 1. `--join-timeout` keeps it short.

use std::net::UdpSocket;
use std::process::Command;

#[test]
fn a_silent_server_ends_the_run_with_the_join_timeout_message() {
    let silent = UdpSocket::bind("127.0.0.1:0").expect("bind loopback");
    let addr = silent.local_addr().expect("addr");
    let pin = "00".repeat(32);
    let out = Command::new(env!("CARGO_BIN_EXE_fighters-legacy"))
        .args(["--headless", "--connect", &addr.to_string(), "--pin", &pin])
        .args(["--seconds", "0.1", "--join-timeout", "0.5"])
        .output()
        .expect("runs");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stdout}\n{stderr}");
    let expected =
        format!("The server at {addr} did not answer in time (waiting for the connection, 0.5 s).");
    let v: serde_json::Value = serde_json::from_str(&stdout).expect("one JSON object");
    let ended = v["session"]["ended"].as_str().unwrap_or_default();
    assert!(ended.starts_with(&expected), "{ended}");
    assert_eq!(v["session"]["retryable"], true);
    assert!(
        stderr.contains(&format!("fighters-legacy: {expected}")),
        "{stderr}"
    );

    let bad = Command::new(env!("CARGO_BIN_EXE_fighters-legacy"))
        .args(["--headless", "--join-timeout", "0"])
        .output()
        .expect("runs");
    assert_eq!(bad.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&bad.stderr).contains("--join-timeout"));
}
