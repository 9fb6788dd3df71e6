//! Missions flown headless by the real binary (`--mission`), over the fixture pack's
//! `ia_dogfight` (player air start at 4000 m against one MiG-21; destroy(bandit1) → success,
//! destroy(player1) → failure): a test-hook kill ends it in success, flying into the ground in
//! failure, the same `--fast` run twice prints the same summary, the real-time embedded server
//! runs one too, and a mission naming a type the pack lacks is refused (exit 1, naming it).

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

const DOGFIGHT: &str = "fl-base-pack:ia_dogfight";

fn pack() -> Option<PathBuf> {
    fl_fixtures::fixture_pack_or("the mission headless runs")
}

/// The headless binary with the user's folders pointed into `data` (no user mods, no
/// known_hosts): our own pack (the checkout's `mods/`) only.
fn headless(data: &Path) -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_fighters-legacy"));
    c.env("XDG_DATA_HOME", data)
        .env("XDG_CONFIG_HOME", data)
        .env("HOME", data)
        .env_remove("RUST_LOG")
        .arg("--headless");
    c
}

/// [`headless`] with the fixture pack loaded too.
fn bin(data: &Path, pack: &Path) -> Command {
    let mut c = headless(data);
    c.arg("--pack").arg(pack);
    c
}

fn summary(out: &Output) -> serde_json::Value {
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "exit {:?}\n{stdout}\n{}",
        out.status.code(),
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_str(&stdout).expect("one JSON object")
}

/// A `--fast` dogfight of at most `seconds`.
fn fast(pack: &Path, seconds: &str, extra: &[&str]) -> Output {
    let data = tempfile::tempdir().expect("tempdir");
    bin(data.path(), pack)
        .args(["--mission", DOGFIGHT, "--fast", "--seconds", seconds])
        .args(extra)
        .output()
        .expect("runs")
}

fn assert_mission_shape(m: &serde_json::Value) {
    assert_eq!(m["id"], DOGFIGHT, "{m}");
    for key in ["elapsed_s", "objects", "triggers_fired", "scripts"] {
        assert!(m[key].is_number(), "{key}: {m}");
    }
    assert!(m["script_errors"].is_array(), "{m}");
    assert_eq!(m["player_slots"], 1, "{m}");
    assert_eq!(m["slots_bound"], 1, "the pilot took the slot: {m}");
}

#[test]
fn a_test_hook_kill_of_the_bandit_ends_the_dogfight_in_success() {
    let Some(pack) = pack() else { return };
    let out = fast(
        &pack,
        "120",
        &["--autopilot", "level", "--mission-destroy", "bandit1@5"],
    );
    let v = summary(&out);
    assert_eq!(v["mode"], "fast", "{v}");
    let m = &v["mission"];
    assert_mission_shape(m);
    assert_eq!(m["state"], "success", "{v}");
    assert_eq!(
        m["outcome_heard"], "success",
        "the client heard the outcome: {v}"
    );
    // The kill at 5 s ends it on the next trigger pass; the run stops a second later.
    let t = m["elapsed_s"].as_f64().expect("elapsed");
    assert!((5.0..5.2).contains(&t), "{t}");
    let flown = v["seconds"].as_f64().expect("seconds");
    assert!(flown < 10.0, "stopped early: {flown}");
    // The player flew the slot's aircraft, predicted with the pack's own model.
    assert_eq!(v["session"]["aircraft"], "fl-base:f5e", "{v}");
    assert_eq!(v["prediction"]["enabled"], true, "{v}");
    assert_eq!(v["exactness"]["mismatches"], 0, "{v}");
}

#[test]
fn flying_into_the_ground_ends_the_dogfight_in_failure() {
    let Some(pack) = pack() else { return };
    let out = fast(&pack, "120", &["--autopilot", "dive"]);
    let v = summary(&out);
    let m = &v["mission"];
    assert_mission_shape(m);
    assert_eq!(m["state"], "failure", "{v}");
    assert_eq!(m["outcome_heard"], "failure", "{v}");
    assert!(m["triggers_fired"].as_u64().is_some_and(|n| n >= 1), "{v}");
    // From 4000 m, 50° nose down: well before the 540 s draw timer.
    let t = m["elapsed_s"].as_f64().expect("elapsed");
    assert!(t < 120.0, "{t}");
    assert!(
        v["combat"]["deaths"].as_u64().is_some_and(|n| n >= 1),
        "{v}"
    );
}

#[test]
fn the_same_fast_mission_twice_prints_the_same_summary() {
    let Some(pack) = pack() else { return };
    let args = ["--autopilot", "aerobatics", "--seed", "7"];
    let a = fast(&pack, "20", &args);
    let b = fast(&pack, "20", &args);
    let (va, vb) = (summary(&a), summary(&b));
    assert_eq!(va["mission"]["state"], "running", "{va}");
    assert_eq!(
        serde_json::to_string(&va["mission"]).expect("json"),
        serde_json::to_string(&vb["mission"]).expect("json"),
    );
    // The whole summary, byte for byte (virtual time, a perfect simulated link).
    assert_eq!(
        String::from_utf8_lossy(&a.stdout),
        String::from_utf8_lossy(&b.stdout)
    );
}

#[test]
fn the_embedded_real_time_server_runs_a_mission_too() {
    let Some(pack) = pack() else { return };
    let data = tempfile::tempdir().expect("tempdir");
    let out = bin(data.path(), &pack)
        .args(["--mission", DOGFIGHT, "--seconds", "20"])
        // 3 s: the pilot has joined (loopback QUIC) by then and hears the outcome.
        .args(["--autopilot", "level", "--mission-destroy", "bandit1@3"])
        .output()
        .expect("runs");
    let v = summary(&out);
    assert_eq!(v["mode"], "single-player", "{v}");
    assert_mission_shape(&v["mission"]);
    assert_eq!(v["mission"]["state"], "success", "{v}");
    assert_eq!(v["mission"]["outcome_heard"], "success", "{v}");
    assert_eq!(v["session"]["aircraft"], "fl-base:f5e", "{v}");
}

#[test]
fn a_mission_naming_a_missing_type_is_refused_naming_it() {
    let Some(pack) = pack() else { return };
    let data = tempfile::tempdir().expect("tempdir");
    let out = bin(data.path(), &pack)
        .args(["--mission", "fl-base-pack:s02_line_holds", "--fast"])
        .output()
        .expect("runs");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("mig29a"), "{stderr}");
    assert!(out.stdout.is_empty(), "no summary for a refused mission");
}

#[test]
fn an_unknown_mission_and_a_bad_hook_are_refused() {
    let Some(pack) = pack() else { return };
    let data = tempfile::tempdir().expect("tempdir");
    let out = bin(data.path(), &pack)
        .args(["--mission", "fl-base-pack:nope", "--fast"])
        .output()
        .expect("runs");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("nope"), "{stderr}");
    let out = bin(data.path(), &pack)
        .args([
            "--mission",
            DOGFIGHT,
            "--fast",
            "--mission-destroy",
            "bandit1",
        ])
        .output()
        .expect("runs");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("OBJECT@SECONDS"), "{stderr}");
}

/// Our own pack's sortie, with no downloaded pack at all: the attack autopilot's gun run shoots
/// down the Lua-flown drone, which ends the mission in success — a scripted gun run, not a hook.
#[test]
fn our_gun_drone_sortie_is_won_by_a_real_gun_run() {
    let data = tempfile::tempdir().expect("tempdir");
    let out = headless(data.path())
        .args(["--mission", "fl-trainer:gun_drone", "--fast"])
        .args(["--seconds", "600", "--autopilot", "attack"])
        .output()
        .expect("runs");
    let v = summary(&out);
    let m = &v["mission"];
    assert_eq!(m["id"], "fl-trainer:gun_drone", "{v}");
    assert_eq!(m["state"], "success", "{v}");
    assert_eq!(
        m["scripts"], 1,
        "the drone's script flew it to the end: {v}"
    );
    assert_eq!(m["script_errors"], serde_json::json!([]), "{v}");
    let combat = &v["combat"];
    assert_eq!(combat["kills"], 1, "{v}");
    assert!(combat["hits"].as_u64().is_some_and(|h| h > 0), "{v}");
    assert_eq!(combat["kill_records"][0]["weapon"], "Gun", "{v}");
}

/// A ground start through the whole client: the trainer sits parked on the home runway (the
/// builtin airfield's fixed 569.6 m) with the hands-off autopilot, and the mission runs on.
#[test]
fn a_ground_start_stays_parked_on_the_runway() {
    let data = tempfile::tempdir().expect("tempdir");
    let out = headless(data.path())
        .args(["--mission", "fl-trainer:free_flight_nevada", "--fast"])
        .args(["--seconds", "20", "--autopilot", "idle"])
        .output()
        .expect("runs");
    let v = summary(&out);
    let m = &v["mission"];
    assert_eq!(m["state"], "running", "no crash, no end: {v}");
    assert_eq!(m["slots_bound"], 1, "{v}");
    assert_eq!(v["combat"]["deaths"], 0, "{v}");
}
