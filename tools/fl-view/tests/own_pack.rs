//! Our own pack (`mods/fl-trainer`, in the repository: never skipped for want of the fixture
//! pack) through the real `fl-view` binary: the FL-1 trainer renders offscreen as a white
//! airframe with red trim, wider seen from above than head-on, and its cockpit loads with the
//! family. GPU runs record an `FL-SKIP` without an adapter (`FL_REQUIRE_GPU=1` fails instead).

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

const BIN: &str = env!("CARGO_BIN_EXE_fl-view");

fn pack() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../mods/fl-trainer")
}

fn shot(out: &Path, yaw: &str, pitch: &str) -> Option<Output> {
    let o = Command::new(BIN)
        .arg("--pack")
        .arg(pack())
        .args(["--model", "fl-trainer:jet-trainer", "--size", "320x200"])
        .args(["--yaw", yaw, "--pitch", pitch, "--out"])
        .arg(out)
        .output()
        .expect("the fl-view binary runs");
    let err = String::from_utf8_lossy(&o.stderr).into_owned();
    if !o.status.success() && err.contains("no graphics adapter") {
        fl_fixtures::no_adapter(err.trim());
        return None;
    }
    assert!(o.status.success(), "{err}");
    assert!(!err.contains("WARN"), "no warning: {err}");
    Some(o)
}

/// (share of lit pixels, share of white-ish, share of red-ish) of the studio shot.
fn colours(png: &Path) -> (f64, f64, f64) {
    let img = image::open(png).expect("a readable PNG").to_rgba8();
    let n = f64::from(img.width() * img.height());
    let (mut lit, mut white, mut red) = (0u32, 0u32, 0u32);
    for p in img.pixels() {
        let [r, g, b, _] = p.0.map(i32::from);
        if r.max(g).max(b) > 12 {
            lit += 1;
        }
        if r > 120 && g > 120 && b > 110 && (r - b).abs() < 50 {
            white += 1;
        }
        if r > 70 && r > 2 * g && r > 2 * b {
            red += 1;
        }
    }
    (f64::from(lit) / n, f64::from(white) / n, f64::from(red) / n)
}

#[test]
fn the_trainer_renders_white_with_red_trim_and_is_wider_from_above() {
    let dir = tempfile::tempdir().expect("temp dir");
    let side = dir.path().join("side.png");
    let Some(o) = shot(&side, "45", "20") else {
        return;
    };
    let stdout = String::from_utf8_lossy(&o.stdout);
    assert!(stdout.contains("fl-trainer:jet-trainer"), "{stdout}");
    let (lit, white, red) = colours(&side);
    println!("3/4 view: lit {lit:.3}, white {white:.3}, red {red:.3}");
    assert!((0.02..0.7).contains(&lit), "lit {lit}");
    assert!(white > 0.3 * lit, "mostly white paint: {white} of {lit}");
    assert!(red > 0.005, "red trim seen: {red}");
    let top = dir.path().join("top.png");
    let front = dir.path().join("front.png");
    shot(&top, "0", "89").expect("the device was there a moment ago");
    shot(&front, "0", "0").expect("the device was there a moment ago");
    let (lit_top, _, _) = colours(&top);
    let (lit_front, _, _) = colours(&front);
    println!("from above {lit_top:.3}, head-on {lit_front:.3}");
    assert!(
        lit_top > 1.5 * lit_front,
        "planform {lit_top} vs head-on {lit_front}"
    );
}
