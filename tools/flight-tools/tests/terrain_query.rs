//! `terrain-query` end to end: the real binary over the fixture pack and over no pack, and its
//! refusals of bad arguments (exit status 2).

use std::process::Command;

fn query(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_terrain-query"))
        .args(args)
        .output()
        .expect("runs")
}

#[test]
fn prints_one_json_object_per_point() {
    let Some(pack) = fl_fixtures::fixture_pack() else {
        return;
    };
    let pack = pack.to_str().expect("utf-8 path");
    let out = query(&["--pack", pack, "37.0", "-115.5", "0", "0", "36.5", "179.9"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8(out.stdout).expect("utf-8");
    let rows: Vec<serde_json::Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).expect("a JSON object per line"))
        .collect();
    assert_eq!(rows.len(), 3, "{text}");
    let keys: Vec<&str> = rows[0]
        .as_object()
        .expect("object")
        .keys()
        .map(String::as_str)
        .collect();
    assert_eq!(keys, ["lat", "lon", "height_m", "level", "land_cover"]);
    assert_eq!(rows[0]["level"], 10);
    let h = rows[0]["height_m"].as_f64().expect("number");
    assert!((500.0..3500.0).contains(&h), "{h}");
    assert!(
        rows[0]["land_cover"]
            .as_u64()
            .is_some_and(|c| c > 0 && c <= 100)
    );
    // Outside the theater (and on face 5's ignored tiles): the base.
    assert!(rows[1]["level"].is_null() && rows[2]["level"].is_null());
    // The warning about the ignored tiles is on stderr, once.
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(err.matches("outside every theater").count(), 1, "{err}");
}

#[test]
fn without_a_pack_the_base_answers() {
    let out = query(&["10", "20"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: serde_json::Value = serde_json::from_slice(out.stdout.trim_ascii()).expect("one object");
    assert!(v["level"].is_null());
    assert!(v["height_m"].as_f64().is_some());
}

#[test]
fn bad_arguments_exit_2_with_a_message() {
    for (args, says) in [
        (vec!["37.0"], "LAT LON pairs"),
        (vec!["91", "0"], "latitude 91"),
        (vec!["0", "-181"], "longitude -181"),
        (vec!["abc", "0"], "invalid value"),
        (
            vec!["--pack", "/nonexistent-pack-dir", "0", "0"],
            "not a pack directory",
        ),
        (vec![], "required"),
    ] {
        let out = query(&args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains(says), "{args:?}: {err}");
        assert!(out.stdout.is_empty());
    }
}
