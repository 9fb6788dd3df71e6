//! End-to-end tests of `fm-trim` and `validate-flight-model`: the library paths and the real
//! binaries (exit codes, table, JSON).

use fl_fixtures::{PACK_AIRCRAFT, pack_model_path};
use std::path::{Path, PathBuf};
use std::process::Command;

fn expect_path(pack: &Path, a: &str) -> PathBuf {
    pack.join("aircraft")
        .join(a)
        .join(format!("{a}.expect.toml"))
}

#[test]
fn every_row_of_every_pack_expectation_passes() {
    let Some(pack) = fl_fixtures::fixture_pack() else {
        return;
    };
    let mut total = 0;
    for a in PACK_AIRCRAFT {
        let r = flight_tools::run_expect(&pack_model_path(&pack, a), &expect_path(&pack, a))
            .expect("runs");
        let table = flight_tools::render_table(&r);
        println!("{table}");
        assert_eq!(r.failed(), 0, "{a}:\n{table}");
        assert!(
            r.rows.len() >= 2,
            "{a}: every file has rows plus the built-in check"
        );
        total += r.rows.len();
    }
    assert!(total >= 24, "only {total} rows checked");
}

fn tmp(name: &str, text: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("flight-tools-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("tmp dir");
    let p = dir.join(name);
    std::fs::write(&p, text).expect("write");
    p
}

fn jet() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../engine/flight/tests/data/test_jet.toml")
}

/// fl-flight's test jet, compiled.
fn test_jet() -> fl_flight::model::AircraftModel {
    let parsed = fl_flight::schema::read_flight_model(&jet()).unwrap_or_else(|e| panic!("{e}"));
    fl_flight::model::AircraftModel::from_def(&parsed.value).unwrap_or_else(|e| panic!("{e}"))
}

#[test]
fn fm_trim_binary_passes_fails_and_speaks_json() {
    let exe = env!("CARGO_BIN_EXE_fm-trim");
    // A row the test jet meets (computed independently below) and one it cannot.
    let m = test_jet();
    let got = {
        let row = fl_flight::perf::expect::ExpectRow {
            line: 1,
            metric: "max_level_mach".into(),
            altitude_m: 9000.0,
            mass_kg: Some(7000.0),
            payload_kg: 0.0,
            payload_cd0: 0.0,
            mach: None,
            load_factor: None,
            afterburner: true,
            expected: 0.0,
            tolerance: 0.0,
        };
        fl_flight::perf::expect::compute(&m, &row).expect("computes")
    };
    assert!(got > 1.0 && got < 2.5, "test jet max level Mach {got}");
    let pass = tmp(
        "pass.expect.toml",
        &format!(
            "[[expect]]\nmetric = \"max_level_mach\"\naltitude_m = 9000.0\nmass_kg = 7000\nexpected = {got:.4}\ntolerance = 0.01\n"
        ),
    );
    let out = Command::new(exe)
        .arg(jet())
        .arg("--expect")
        .arg(&pass)
        .output()
        .expect("run");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        stdout.contains("PASS") && stdout.contains("2 passed, 0 failed"),
        "{stdout}"
    );

    let fail = tmp(
        "fail.expect.toml",
        "[[expect]]\nmetric = \"max_level_mach\"\naltitude_m = 9000.0\nexpected = 4.0\ntolerance = 0.01\n",
    );
    let out = Command::new(exe)
        .arg(jet())
        .arg("--expect")
        .arg(&fail)
        .output()
        .expect("run");
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stdout).contains("FAIL"));

    let out = Command::new(exe)
        .arg(jet())
        .arg("--expect")
        .arg(&fail)
        .arg("--json")
        .output()
        .expect("run");
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("valid JSON");
    assert_eq!(v["failed"], 1);
    assert_eq!(v["rows"][0]["metric"], "max_level_mach");
    assert_eq!(v["rows"][0]["pass"], false);
    assert!(
        v["rows"][0]["got"]
            .as_f64()
            .is_some_and(|g| (g - got).abs() < 0.05 || g > 0.0)
    );

    let unknown = tmp(
        "unknown.expect.toml",
        "[[expect]]\nmetric = \"barrel_roll_style\"\nexpected = 1.0\n",
    );
    let out = Command::new(exe)
        .arg(jet())
        .arg("--expect")
        .arg(&unknown)
        .output()
        .expect("run");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stdout.contains("unknown metric 'barrel_roll_style'"),
        "{stdout}"
    );

    let missing = tmp(
        "ps.expect.toml",
        "[[expect]]\nmetric = \"ps_mps\"\nexpected = 1.0\n",
    );
    let out = Command::new(exe)
        .arg(jet())
        .arg("--expect")
        .arg(&missing)
        .output()
        .expect("run");
    assert!(String::from_utf8_lossy(&out.stdout).contains("requires a `mach`"));

    // A broken model is an error with its cause chain, exit 2.
    let broken = tmp("broken.toml", "[aircraft]\nname = \"x\"\n");
    let out = Command::new(exe)
        .arg(&broken)
        .arg("--expect")
        .arg(&pass)
        .output()
        .expect("run");
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("broken.toml") && stderr.contains("flight_model"),
        "{stderr}"
    );

    // Without --expect: a summary table.
    let out = Command::new(exe).arg(jet()).output().expect("run");
    assert!(out.status.success());
    assert!(String::from_utf8_lossy(&out.stdout).contains("Mmax_AB"));
}

#[test]
fn ps_tolerance_is_absolute_and_others_fractional() {
    let m = test_jet();
    let mk = |metric: &str, expected: f64, tolerance: f64| fl_flight::perf::expect::ExpectRow {
        line: 1,
        metric: metric.into(),
        altitude_m: 3000.0,
        mass_kg: Some(7000.0),
        payload_kg: 0.0,
        payload_cd0: 0.0,
        mach: Some(0.6),
        load_factor: Some(3.0),
        afterburner: true,
        expected,
        tolerance,
    };
    let ps = fl_flight::perf::expect::compute(&m, &mk("ps_mps", 0.0, 0.0)).expect("ps");
    // 5 m/s absolute either side.
    assert!(fl_flight::perf::expect::judge(&m, &mk("ps_mps", ps + 4.9, 5.0)).pass);
    assert!(!fl_flight::perf::expect::judge(&m, &mk("ps_mps", ps + 5.1, 5.0)).pass);
    let g = fl_flight::perf::expect::compute(&m, &mk("max_lift_g", 0.0, 0.0)).expect("g");
    assert!(fl_flight::perf::expect::judge(&m, &mk("max_lift_g", g * 1.04, 0.05)).pass);
    assert!(!fl_flight::perf::expect::judge(&m, &mk("max_lift_g", g * 1.06, 0.05)).pass);
}

#[test]
fn validate_binary_exit_codes() {
    let exe = env!("CARGO_BIN_EXE_validate-flight-model");
    let out = Command::new(exe).arg(jet()).output().expect("run");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    let text = std::fs::read_to_string(jet())
        .expect("read")
        .replace("cn_beta  =  0.15", "cn_beta  = -0.15");
    let bad = tmp("bad.toml", &text);
    let out = Command::new(exe).arg(&bad).output().expect("run");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stdout.contains("bad.toml:") && stdout.contains("error: `aero.moments.cn_beta`"),
        "{stdout}"
    );
    if let Some(pack) = fl_fixtures::fixture_pack_or("validated test_jet only") {
        let files: Vec<_> = PACK_AIRCRAFT
            .iter()
            .map(|a| pack_model_path(&pack, a))
            .collect();
        let r = flight_tools::validate_files(&files);
        assert_eq!(r.errors, 0, "{:?}", r.lines);
        let out = Command::new(exe).args(&files).output().expect("run");
        assert!(out.status.success());
    }
}
