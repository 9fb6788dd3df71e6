//! The real `fl-view` binary against the fixture pack and hostile packs: a model shot of the
//! requested size in which the model covers a plausible share; each error exits 2 naming the
//! thing and the file; no display is one line and exit 2; the world shot; the time to a first
//! image is printed (never asserted). GPU tests record an `FL-SKIP` without an adapter
//! (`FL_REQUIRE_GPU=1` fails instead), as fl-render's do.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

const BIN: &str = env!("CARGO_BIN_EXE_fl-view");

fn run(args: &[&str]) -> Output {
    Command::new(BIN)
        .args(args)
        .output()
        .expect("the fl-view binary runs")
}

fn text(o: &Output) -> (String, String) {
    (
        String::from_utf8_lossy(&o.stdout).into_owned(),
        String::from_utf8_lossy(&o.stderr).into_owned(),
    )
}

/// `true` when the run failed only because there is no graphics adapter (then a skip is
/// recorded, or the test fails under `FL_REQUIRE_GPU=1`).
fn no_gpu(o: &Output) -> bool {
    let (_, err) = text(o);
    if o.status.success() || !err.contains("no graphics adapter") {
        return false;
    }
    fl_fixtures::no_adapter(err.trim());
    true
}

fn pack() -> Option<PathBuf> {
    fl_fixtures::fixture_pack()
}

/// Asserts exit status 2, no panic, and that stderr contains every `needle`.
fn assert_fails(o: &Output, needles: &[&str]) {
    let (out, err) = text(o);
    assert_eq!(
        o.status.code(),
        Some(2),
        "exit status; stdout {out}\nstderr {err}"
    );
    assert!(!err.contains("panicked"), "no panic: {err}");
    for n in needles {
        assert!(err.contains(n), "stderr names {n:?}: {err}");
    }
}

/// Share of pixels that are not the studio's black background.
fn coverage(png: &Path) -> (u32, u32, f64) {
    let img = image::open(png).expect("a readable PNG").to_rgba8();
    let lit = img
        .pixels()
        .filter(|p| p.0[0].max(p.0[1]).max(p.0[2]) > 12)
        .count();
    let (w, h) = img.dimensions();
    (w, h, lit as f64 / f64::from(w * h))
}

#[test]
fn model_shot_has_the_requested_size_and_shows_the_model() {
    let Some(pack) = pack() else { return };
    let dir = tempfile::tempdir().expect("temp dir");
    let out = dir.path().join("f16a.png");
    let o = run(&[
        "--pack",
        pack.to_str().expect("utf-8 path"),
        "--model",
        "fl-base:f16a",
        "--out",
        out.to_str().expect("utf-8 path"),
        "--size",
        "320x200",
    ]);
    if no_gpu(&o) {
        return;
    }
    let (stdout, stderr) = text(&o);
    assert!(o.status.success(), "{stdout}\n{stderr}");
    for line in stdout.lines().filter(|l| l.contains("first image")) {
        println!("fl-view model shot: {line}");
    }
    let (w, h, share) = coverage(&out);
    assert_eq!((w, h), (320, 200));
    println!("the F-16A covers {:.1} % of the image", share * 100.0);
    // Framed from its bounding radius: clearly there, not filling the frame.
    assert!((0.04..0.6).contains(&share), "coverage {share}");

    // From straight ahead the same aircraft shows far less of itself than from the side.
    let front = dir.path().join("front.png");
    let side = dir.path().join("side.png");
    for (yaw, file) in [("0", &front), ("90", &side)] {
        let o = run(&[
            "--pack",
            pack.to_str().expect("utf-8 path"),
            "--model",
            "fl-base:f16a",
            "--out",
            file.to_str().expect("utf-8 path"),
            "--size",
            "320x200",
            "--yaw",
            yaw,
            "--pitch",
            "0",
        ]);
        assert!(o.status.success(), "{:?}", text(&o));
    }
    let (_, _, f) = coverage(&front);
    let (_, _, s) = coverage(&side);
    println!("front {:.1} %, side {:.1} %", f * 100.0, s * 100.0);
    assert!(
        s > f * 1.3,
        "the side view shows more of the fuselage: side {s}, front {f}"
    );
}

#[test]
fn lod_and_damage_options_render() {
    let Some(pack) = pack() else { return };
    let dir = tempfile::tempdir().expect("temp dir");
    let out = dir.path().join("lod.png");
    let o = run(&[
        "--pack",
        pack.to_str().expect("utf-8 path"),
        "--model",
        "fl-base:mig21bis",
        "--out",
        out.to_str().expect("utf-8 path"),
        "--size",
        "160x120",
        "--lod",
        "auto",
        "--damaged",
        "--light",
        "daylight",
    ]);
    if no_gpu(&o) {
        return;
    }
    assert!(o.status.success(), "{:?}", text(&o));
    let img = image::open(&out).expect("PNG").to_rgba8();
    assert_eq!(img.dimensions(), (160, 120));
}

#[test]
fn unknown_model_id_names_the_id_and_the_pack() {
    let Some(pack) = pack() else { return };
    let o = run(&[
        "--pack",
        pack.to_str().expect("utf-8 path"),
        "--model",
        "fl-base:nope",
        "--out",
        "/nonexistent/never.png",
    ]);
    assert_fails(
        &o,
        &[
            "unknown model id \"fl-base:nope\"",
            "fl-base-pack",
            "fl-base:f16a",
        ],
    );
}

/// A one-entity pack whose mesh file holds `glb`.
fn pack_with_mesh(dir: &Path, glb: &[u8]) -> PathBuf {
    let root = dir.join("bad-pack");
    std::fs::create_dir_all(root.join("entities")).expect("mkdir");
    std::fs::create_dir_all(root.join("aircraft/crate")).expect("mkdir");
    std::fs::write(
        root.join("manifest.toml"),
        "[mod]\nname = \"Bad\"\nid = \"bad-pack\"\nversion = \"1\"\nengine-api = \"1.0\"\npriority = 10\n",
    )
    .expect("write");
    std::fs::write(
        root.join("entities/crate.toml"),
        "[entity]\nid = \"bad-pack:crate\"\nname = \"Crate\"\ncategory = \"structure\"\nmax_hp = 10\nmesh = \"crate/crate\"\n",
    )
    .expect("write");
    std::fs::write(root.join("aircraft/crate/crate.glb"), glb).expect("write");
    root
}

#[test]
fn an_unreadable_gltf_names_the_file() {
    let dir = tempfile::tempdir().expect("temp dir");
    let root = pack_with_mesh(dir.path(), b"glTF\x02\x00\x00\x00garbage");
    let o = run(&[
        "--pack",
        root.to_str().expect("utf-8 path"),
        "--model",
        "bad-pack:crate",
        "--out",
        dir.path().join("x.png").to_str().expect("utf-8 path"),
    ]);
    assert_fails(&o, &["bad-pack:crate", "aircraft/crate/crate.glb"]);
    assert!(!dir.path().join("x.png").exists(), "no picture written");
}

#[test]
fn a_pack_that_does_not_load_names_its_manifest() {
    let dir = tempfile::tempdir().expect("temp dir");
    let root = dir.path().join("broken");
    std::fs::create_dir_all(&root).expect("mkdir");
    std::fs::write(root.join("manifest.toml"), "[mod]\nid = \"../evil\"\n").expect("write");
    let o = run(&[
        "--pack",
        root.to_str().expect("utf-8 path"),
        "--model",
        "x:y",
        "--out",
        dir.path().join("x.png").to_str().expect("utf-8 path"),
    ]);
    assert_fails(&o, &["did not load", "manifest.toml"]);
    let missing = dir.path().join("missing");
    let o = run(&[
        "--pack",
        missing.to_str().expect("utf-8 path"),
        "--model",
        "x:y",
        "--out",
        "x.png",
    ]);
    assert_fails(&o, &["did not load", "missing"]);
}

#[test]
fn out_of_range_arguments_name_the_option() {
    let cases: [(&[&str], &[&str]); 11] = [
        (
            &["--lat", "91", "--lon", "0"],
            &["--lat", "between -90 and 90"],
        ),
        (
            &["--lat", "0", "--lon", "-181"],
            &["--lon", "between -180 and 180"],
        ),
        (
            &["--lat", "0", "--lon", "0", "--alt", "-600"],
            &["--alt", "-500"],
        ),
        (
            &["--lat", "0", "--lon", "0", "--alt", "100001"],
            &["--alt", "100000"],
        ),
        (
            &["--lat", "0", "--lon", "0", "--heading", "361"],
            &["--heading", "between 0 and 360"],
        ),
        (
            &["--lat", "0", "--lon", "0", "--pitch", "-91"],
            &["--pitch", "between -90 and 90"],
        ),
        (
            &["--lat", "0", "--lon", "0", "--time", "2026-02-30T10:00"],
            &["--time", "does not exist"],
        ),
        (
            &[
                "--lat",
                "0",
                "--lon",
                "0",
                "--time",
                "2026-06-21T17:30+02:00",
            ],
            &["--time", "UTC"],
        ),
        (
            &["--lat", "0", "--lon", "0", "--weather", "fog"],
            &["--weather", "partly_cloudy"],
        ),
        (
            &["--lat", "0", "--lon", "0", "--size", "0x10"],
            &["--size", "1…8192"],
        ),
        (
            &["--model", "fl-base:f16a", "--lod", "x"],
            &["--lod", "base, auto"],
        ),
    ];
    for (args, needles) in cases {
        let mut all = args.to_vec();
        all.extend(["--out", "/nonexistent/never.png"]);
        let o = run(&all);
        assert_fails(&o, needles);
    }
}

#[test]
fn a_pose_on_a_node_the_model_lacks_lists_its_nodes() {
    let Some(pack) = pack() else { return };
    let o = run(&[
        "--pack",
        pack.to_str().expect("utf-8 path"),
        "--model",
        "fl-base:f16a",
        "--pose",
        "canopy=x:30",
        "--out",
        "/nonexistent/never.png",
    ]);
    assert_fails(&o, &["--pose", "canopy", "f16a.glb", "hardpoint_0"]);
}

#[test]
fn without_a_display_the_window_says_so_and_suggests_out() {
    let Some(pack) = pack() else { return };
    let o = Command::new(BIN)
        .args([
            "--pack",
            pack.to_str().expect("utf-8 path"),
            "--model",
            "fl-base:f16a",
        ])
        .env_remove("DISPLAY")
        .env_remove("WAYLAND_DISPLAY")
        .output()
        .expect("runs");
    assert_fails(&o, &["no display", "--out"]);
    let (_, err) = text(&o);
    let lines: Vec<&str> = err.lines().filter(|l| l.contains("error")).collect();
    assert_eq!(lines.len(), 1, "one line: {err}");
}

#[test]
fn world_shot_from_a_camera_over_nevada() {
    let Some(pack) = pack() else { return };
    let dir = tempfile::tempdir().expect("temp dir");
    let out = dir.path().join("world.png");
    let o = run(&[
        "--pack",
        pack.to_str().expect("utf-8 path"),
        "--lat",
        "36.27",
        "--lon",
        "-115.64",
        "--alt",
        "3500",
        "--heading",
        "270",
        "--pitch",
        "-5",
        "--time",
        "2026-06-21T17:30",
        "--weather",
        "clear",
        "--out",
        out.to_str().expect("utf-8 path"),
        "--size",
        "320x180",
    ]);
    if no_gpu(&o) {
        return;
    }
    let (stdout, stderr) = text(&o);
    assert!(o.status.success(), "{stdout}\n{stderr}");
    for line in stdout
        .lines()
        .filter(|l| l.contains("first image") || l.contains("terrain"))
    {
        println!("fl-view world shot: {line}");
    }
    let img = image::open(&out).expect("PNG").to_rgba8();
    assert_eq!(img.dimensions(), (320, 180));
    // Daylight: the top row is sky (blue over red), the bottom row is not empty.
    let top = img.get_pixel(160, 2).0;
    assert!(top[2] > top[0], "blue sky at the top: {top:?}");
}

#[test]
fn wireframe_shot_draws_edges_only() {
    let Some(pack) = pack() else { return };
    let dir = tempfile::tempdir().expect("temp dir");
    let shot = |file: &Path, extra: &[&str]| {
        let mut args = vec![
            "--pack",
            pack.to_str().expect("utf-8 path"),
            "--model",
            "fl-base:f16a",
            "--out",
            file.to_str().expect("utf-8 path"),
            "--size",
            "640x400",
            // The coarsest level: the base mesh's triangles are so small that its edges fill
            // the shape at this size.
            "--lod",
            "2",
        ];
        args.extend_from_slice(extra);
        run(&args)
    };
    let filled = dir.path().join("filled.png");
    let lines = dir.path().join("lines.png");
    let o = shot(&filled, &[]);
    if no_gpu(&o) {
        return;
    }
    assert!(o.status.success(), "{:?}", text(&o));
    let o = shot(&lines, &["--wireframe"]);
    assert!(o.status.success(), "{:?}", text(&o));
    let (_, err) = text(&o);
    if err.contains("wireframe unavailable") {
        fl_fixtures::skip("the adapter has no POLYGON_MODE_LINE; the shot was drawn filled");
        return;
    }
    let (_, _, f) = coverage(&filled);
    let (_, _, l) = coverage(&lines);
    println!("filled {:.1} %, wireframe {:.1} %", f * 100.0, l * 100.0);
    assert!(
        l > 0.005 && l < f * 0.8,
        "edges only: wireframe {l}, filled {f}"
    );
}

#[test]
fn the_window_draws_frames_under_xvfb() {
    use std::process::Stdio;
    let Some(pack) = pack() else { return };
    let Some(x) = fl_fixtures::Xvfb::start() else {
        return;
    };
    let result = (|| {
        let mut child = x
            .command(BIN)
            .args([
                "--pack",
                pack.to_str().expect("utf-8 path"),
                "--model",
                "fl-base:f16a",
                "--size",
                "400x300",
                "--frames",
                "3",
            ])
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .map_err(|e| e.to_string())?;
        let status = fl_fixtures::wait_bounded(&mut child, std::time::Duration::from_secs(180))
            .ok_or("fl-view did not finish in 180 s")?;
        let out = child.wait_with_output().map_err(|e| e.to_string())?;
        Ok::<_, String>((status, out))
    })();
    drop(x);
    let (status, out) = result.expect("the window ran");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    if !status.success() && stderr.contains("no graphics adapter") {
        fl_fixtures::skip("no graphics adapter for the window");
        return;
    }
    assert!(status.success(), "{stdout}\n{stderr}");
    assert!(stdout.contains("after 3 frame(s)"), "{stdout}");
    for l in stdout.lines().chain(stderr.lines()) {
        if l.contains("first frame") {
            println!("fl-view window: {l}");
        }
    }
}

#[test]
fn a_missing_texture_is_a_warning_not_an_error() {
    let Some(pack) = pack() else { return };
    let dir = tempfile::tempdir().expect("temp dir");
    // The F-16A's base mesh with its ORM texture but without its base-colour PNG.
    let glb = std::fs::read(pack.join("aircraft/f16a/f16a.glb")).expect("fixture mesh");
    let root = pack_with_mesh(dir.path(), &glb);
    std::fs::create_dir_all(root.join("aircraft/crate/textures-src")).expect("mkdir");
    std::fs::copy(
        pack.join("aircraft/f16a/textures-src/f16a_orm.png"),
        root.join("aircraft/crate/textures-src/f16a_orm.png"),
    )
    .expect("copy");
    let out = dir.path().join("notex.png");
    let o = run(&[
        "--pack",
        root.to_str().expect("utf-8 path"),
        "--model",
        "bad-pack:crate",
        "--out",
        out.to_str().expect("utf-8 path"),
        "--size",
        "160x100",
    ]);
    if no_gpu(&o) {
        return;
    }
    let (stdout, stderr) = text(&o);
    assert!(o.status.success(), "{stdout}\n{stderr}");
    assert!(
        stderr.contains("f16a_diffuse") && stderr.contains("WARN"),
        "the missing texture is named in a warning: {stderr}"
    );
    assert_eq!(
        stderr.matches("f16a_diffuse.png: not found").count(),
        1,
        "warned once: {stderr}"
    );
    let (_, _, share) = coverage(&out);
    assert!(share > 0.02, "still drawn (material factors): {share}");
}
