//! The `fighters-legacy` binary: `--headless --linksim` prints one JSON summary and exits 0;
//! without `--headless` it explains that this build has no window (exit 2); bad options are
//! refused with the option named.

use std::process::Command;

fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_fighters-legacy"))
}

#[test]
fn headless_linksim_prints_one_json_summary() {
    let out = bin()
        .args([
            "--headless",
            "--linksim",
            "--seconds",
            "5",
            "--latency-ms",
            "40",
            "--jitter-ms",
            "10",
            "--loss",
            "0.01",
            "--autopilot",
            "orbit",
        ])
        .output()
        .expect("runs");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: serde_json::Value = serde_json::from_str(&stdout).expect("one JSON object");
    assert_eq!(v["mode"], "linksim");
    assert_eq!(v["session"]["admitted"], true);
    for key in [
        "prediction",
        "render",
        "snapshots",
        "network",
        "interpolation",
        "exactness",
    ] {
        assert!(v[key].is_object(), "{key} missing: {v}");
    }
    assert!(v["prediction"]["correction_m"]["p99"].is_number());
    assert!(v["render"]["visual_pops"].is_number());
    assert!(v["interpolation"]["remote_error_m"]["p50"].is_number());
    assert!(v["network"]["rtt_ms"].as_f64().is_some_and(|r| r > 60.0));
    assert!(v["snapshots"]["applied"].as_u64().is_some_and(|n| n > 100));
}

#[test]
fn without_headless_it_says_what_to_do() {
    let out = bin().output().expect("runs");
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("--headless"), "{err}");

    let out = bin()
        .args(["--headless", "--linksim", "--autopilot", "barrel"])
        .output()
        .expect("runs");
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("unknown autopilot") && err.contains("aerobatics"),
        "{err}"
    );

    let out = bin()
        .args(["--headless", "--connect", "host:notaport"])
        .output()
        .expect("runs");
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--connect"));
}
