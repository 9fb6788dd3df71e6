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
        "combat",
    ] {
        assert!(v[key].is_object(), "{key} missing: {v}");
    }
    // Nobody fought: the combat object is there, with nothing in it.
    for key in ["shots", "hits", "kills", "deaths"] {
        assert_eq!(v["combat"][key], 0, "{key}: {v}");
    }
    assert!(
        v["combat"]["kill_records"]
            .as_array()
            .is_some_and(|a| a.is_empty())
    );
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

/// The client binary with its user data directory in `data` (so the machine's own mods folder
/// never leaks into a test) and logs at `info`.
fn isolated(data: &std::path::Path) -> Command {
    let mut c = bin();
    c.env("XDG_DATA_HOME", data)
        .env("HOME", data)
        .env("RUST_LOG", "info")
        .env_remove("NO_COLOR");
    c
}

fn summary(out: &std::process::Output) -> serde_json::Value {
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_str(&stdout).expect("one JSON object")
}

/// The summary names the type flown, and the own aircraft was predicted with its own model.
fn assert_flew_predicted(v: &serde_json::Value, id: &str) {
    assert_eq!(v["session"]["admitted"], true, "{v}");
    assert_eq!(v["session"]["aircraft"], id, "{v}");
    assert_eq!(v["prediction"]["enabled"], true, "{v}");
    assert!(
        v["prediction"]["compared"].as_u64().is_some_and(|n| n > 10),
        "prediction compared too little: {v}"
    );
    // Predicting with any other model would differ from the server on nearly every compare. The
    // server's input buffer keeps a tick of margin, so on loopback a correction needs a client
    // stall over a tick; even then it is only the server flying the previous input again in
    // the late input's slot, which the summary names (docs/client.md).
    let corrections = v["prediction"]["corrections"].as_u64().unwrap_or(u64::MAX);
    let repeats = v["prediction"]["correction_parts"]["server_repeat"]
        .as_u64()
        .unwrap_or(0);
    assert_eq!(
        corrections, repeats,
        "a correction other than a late input's repeat: {v}"
    );
}

#[test]
fn an_unknown_aircraft_is_refused_with_the_ids_that_exist() {
    let data = tempfile::tempdir().expect("tempdir");
    let out = isolated(data.path())
        .args(["--headless", "--aircraft", "fl-base:nope"])
        .output()
        .expect("runs");
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("unknown aircraft type \"fl-base:nope\"")
            && err.contains("builtin:jet-trainer"),
        "{err}"
    );
    // The cause is said once.
    assert_eq!(err.matches("unknown aircraft type").count(), 1, "{err}");
}

#[test]
fn the_fixture_packs_f5e_flies_predicted_in_single_player() {
    let Some(pack) = fl_fixtures::fixture_pack() else {
        return;
    };
    let data = tempfile::tempdir().expect("tempdir");
    let out = isolated(data.path())
        .args(["--headless", "--single-player", "--seconds", "3"])
        .arg("--pack")
        .arg(&pack)
        .args(["--aircraft", "fl-base:f5e", "--autopilot", "level"])
        .output()
        .expect("runs");
    assert_flew_predicted(&summary(&out), "fl-base:f5e");
}

#[test]
fn a_modders_pack_in_the_user_mods_folder_flies_and_logs_are_plain_text() {
    let data = tempfile::tempdir().expect("tempdir");
    // `$XDG_DATA_HOME/fighters-legacy/mods/<pack>`: the user's mods folder on Linux.
    let pack = data.path().join("fighters-legacy/mods/my-pack");
    fl_content::example::write_example_pack(&pack, "my-pack", "my", "trainer").expect("pack");
    let log = data.path().join("client.log");
    let out = isolated(data.path())
        .args(["--headless", "--single-player", "--seconds", "3"])
        .args(["--aircraft", "my:trainer", "--autopilot", "level"])
        .stderr(std::fs::File::create(&log).expect("log file"))
        .output()
        .expect("runs");
    assert_flew_predicted(&summary(&out), "my:trainer");
    let log = std::fs::read(&log).expect("log");
    let text = String::from_utf8_lossy(&log);
    assert!(
        text.contains("my:trainer"),
        "the loaded types are logged: {text}"
    );
    assert!(
        !log.contains(&0x1b),
        "colour codes in a log written to a file: {text}"
    );
}
