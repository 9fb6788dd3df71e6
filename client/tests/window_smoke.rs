//! The real game binary in a real window under Xvfb: `fighters-legacy --single-player
//! --autopilot level --seconds N --screenshot shot.png` (windowed, no `--headless`) starts the
//! embedded server, flies, saves a screenshot and exits 0; the picture shows sky, terrain and
//! the HUD. And without a display the window mode says so in one line with exit status 2.

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Duration;

use fl_fixtures::{Xvfb, wait_bounded};

const BIN: &str = env!("CARGO_BIN_EXE_fighters-legacy");

/// Fraction of pixels whose colour is far from the image's mean colour (a blank or one-colour
/// picture scores ~0).
fn varied_fraction(img: &image::RgbaImage) -> f64 {
    let n = f64::from(img.width() * img.height());
    let mut mean = [0.0f64; 3];
    for p in img.pixels() {
        for c in 0..3 {
            mean[c] += f64::from(p[c]) / n;
        }
    }
    let far = img
        .pixels()
        .filter(|p| {
            (0..3)
                .map(|c| (f64::from(p[c]) - mean[c]).abs())
                .sum::<f64>()
                > 60.0
        })
        .count();
    far as f64 / n
}

/// Pixels that look like HUD symbology: the HUD's green (bright green, little red and blue).
fn hud_green_pixels(img: &image::RgbaImage) -> usize {
    img.pixels()
        .filter(|p| p[1] > 150 && p[1] > p[0].saturating_add(60) && p[1] > p[2].saturating_add(40))
        .count()
}

#[test]
fn the_real_binary_flies_single_player_in_a_window_and_saves_a_screenshot() {
    let Some(x) = Xvfb::start() else { return };
    let dir = tempfile::tempdir().expect("temp dir");
    let shot = dir.path().join("shot.png");
    let settings = dir.path().join("settings.toml");
    let mut child = x
        .command(BIN)
        .args([
            "--single-player",
            "--autopilot",
            "level",
            "--seconds",
            "4",
            "--size",
            "480x270",
            "--screenshot",
        ])
        .arg(&shot)
        .arg("--settings")
        .arg(&settings)
        // No user mods from this machine: the builtin content and the checkout's own pack.
        .env("XDG_DATA_HOME", dir.path())
        .env("HOME", dir.path())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the game starts");
    let status = wait_bounded(&mut child, Duration::from_secs(240));
    let out = child.wait_with_output().expect("output");
    let (stdout, stderr) = (
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr),
    );
    println!("{stdout}\n{stderr}");
    let status = status.expect("the scripted flight ends by itself");
    if stderr.contains("no adapter") || stderr.contains("NoAdapter") {
        fl_fixtures::no_adapter(&stderr);
        return;
    }
    assert!(status.success(), "exit {status:?}: {stderr}");
    assert!(
        Path::new(&shot).exists(),
        "no screenshot at {}",
        shot.display()
    );
    let img = image::open(&shot).expect("a PNG").to_rgba8();
    assert_eq!((img.width(), img.height()), (480, 270));
    let varied = varied_fraction(&img);
    let green = hud_green_pixels(&img);
    println!("varied {varied:.3}, HUD-green pixels {green}");
    assert!(
        varied > 0.05,
        "a flat picture ({varied:.3}): no terrain or sky gradient"
    );
    assert!(green > 200, "no HUD in the picture ({green} green pixels)");
    // The sky is at the top (bluish), the ground lower down (not the sky's colour).
    let top = img.get_pixel(img.width() / 2, 5);
    assert!(
        top[2] > top[0],
        "the top of the picture is not sky: {top:?}"
    );
}

#[test]
fn without_a_display_the_window_mode_says_so_and_exits_2() {
    let out = Command::new(BIN)
        .args(["--single-player"])
        .env_remove("DISPLAY")
        .env_remove("WAYLAND_DISPLAY")
        .output()
        .expect("runs");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("no display") && stderr.contains("--headless"),
        "{stderr}"
    );
    assert_eq!(stderr.trim().lines().count(), 1, "{stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
}
