//! The locator end to end, in a child test process per environment (the environment is
//! process-wide, so each case gets its own): found material is returned and records nothing;
//! missing material records one `FL-SKIP` line per call, on stderr and in `$FL_SKIP_LOG`; under
//! `FL_REQUIRE_FIXTURES=1` missing material fails the test with the places it looked at.

use std::path::Path;
use std::process::{Command, Output};

/// Runs [`probe`] in a child process with `shared` as `FL_SHARED_DIR`.
fn run_probe(shared: &Path, log: &Path, require: bool) -> Output {
    let exe = std::env::current_exe().expect("own test binary");
    let mut cmd = Command::new(exe);
    cmd.args([
        "probe",
        "--exact",
        "--ignored",
        "--nocapture",
        "--test-threads=1",
    ])
    .env("FL_SHARED_DIR", shared)
    .env("FL_SKIP_LOG", log)
    .env_remove("FL_REQUIRE_FIXTURES");
    if require {
        cmd.env("FL_REQUIRE_FIXTURES", "1");
    }
    cmd.output().expect("child test runs")
}

#[test]
#[ignore = "run by the other tests of this file in a child process with its own environment"]
fn probe() {
    let pack = fl_fixtures::fixture_pack();
    println!("pack={}", pack.is_some());
    let spec =
        fl_fixtures::reference_or(fl_fixtures::PROTOCOL_SPEC, "checked the transcription only");
    println!("spec={}", spec.is_some());
}

#[test]
fn missing_material_is_skipped_and_logged_once_per_call() {
    let empty = tempfile::tempdir().expect("tempdir");
    let log = empty.path().join("skips.log");
    let out = run_probe(empty.path(), &log, false);
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stdout}\n{stderr}");
    assert!(
        stdout.contains("pack=false") && stdout.contains("spec=false"),
        "{stdout}"
    );
    let logged = std::fs::read_to_string(&log).expect("skip log written");
    let lines: Vec<&str> = logged.lines().collect();
    assert_eq!(lines.len(), 2, "{logged}");
    assert!(lines[0].starts_with("FL-SKIP: locator::probe: `fixtures/fl-base-pack` not found"));
    assert!(lines[0].ends_with("test not run"), "{}", lines[0]);
    assert!(lines[1].contains("`spec/network-protocol.txt` not found"));
    assert!(lines[1].ends_with("checked the transcription only"));
    assert!(
        lines[0].contains(&empty.path().display().to_string()),
        "names where it looked"
    );
    for l in &lines {
        assert!(stderr.contains(l), "{l} on stderr: {stderr}");
    }
}

#[test]
fn required_material_that_is_missing_fails_the_test() {
    let empty = tempfile::tempdir().expect("tempdir");
    let log = empty.path().join("skips.log");
    let out = run_probe(empty.path(), &log, true);
    let all = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(!out.status.success(), "{all}");
    assert!(
        all.contains(
            "FL_REQUIRE_FIXTURES=1 but the reference material `fixtures/fl-base-pack` was not found"
        ),
        "{all}"
    );
    assert!(all.contains(&empty.path().display().to_string()), "{all}");
    assert!(!log.exists(), "a failure is not a skip");
}

#[test]
fn present_material_is_found_and_nothing_is_skipped() {
    let shared = tempfile::tempdir().expect("tempdir");
    std::fs::create_dir_all(shared.path().join("fixtures/fl-base-pack")).expect("pack dir");
    std::fs::create_dir_all(shared.path().join("spec")).expect("spec dir");
    std::fs::write(shared.path().join("spec/network-protocol.txt"), "spec").expect("spec");
    let log = shared.path().join("skips.log");
    let out = run_probe(shared.path(), &log, true);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{stdout}");
    assert!(
        stdout.contains("pack=true") && stdout.contains("spec=true"),
        "{stdout}"
    );
    assert!(!log.exists());
    assert!(!String::from_utf8_lossy(&out.stderr).contains("FL-SKIP"));
}
