//! The world window's terrain streaming, proven with a real device: the renderer keeps every
//! chunk the stream holds (the stream owns residency), and the real binary flies a fast path
//! over the fixture pack's NTTR under Xvfb (320x180, 360 frames at 1,500 m/s) without a frame ever waiting for a chunk build,
//! uploading and evicting chunks and ending on a picture with sky and ground.
//!
//! Structural measures only (frames drawn with requests pending, blocking builds, chunks
//! uploaded/evicted, residency bound); times are printed, never asserted.

use std::path::Path;
use std::process::{Command, Output, Stdio};
use std::time::Duration;

use fl_fixtures::{Xvfb, wait_bounded};
use fl_flight::gravity::EARTH_RADIUS_M;
use fl_render::{Frame, Gpu, OffscreenTarget, Renderer, SkyParams};
use fl_scene::stream_sink::{RendererTerrain, SinkTotals, StreamSink, frame_keys};
use fl_terrain::chunks::ChunkBuilder;
use fl_terrain::cube::TileKey;
use fl_terrain::stream::{StreamSettings, TerrainStream};
use fl_terrain::{Terrain, TerrainConfig};
use fl_view::world::WorldView;

const BIN: &str = env!("CARGO_BIN_EXE_fl-view");

fn gpu() -> Option<Gpu> {
    fl_fixtures::adapter_or_skip(Gpu::new())
}

/// Renderer frames past the renderer's own undrawn-chunk eviction (600 frames) while the stream
/// keeps a chunk it does not draw: the camera's face root, covered by finer chunks. Without the
/// stream owning residency the renderer dropped that root behind the stream's back, and any later
/// frame where it stands in would have drawn a hole.
#[test]
fn the_renderer_keeps_every_chunk_the_stream_holds() {
    let Some(gpu) = gpu() else { return };
    let mut renderer = Renderer::new(&gpu).expect("renderer");
    let terrain = Terrain::base_only(TerrainConfig::default());
    let builder = ChunkBuilder::new(terrain.clone(), EARTH_RADIUS_M).expect("builder thread");
    let mut view = WorldView::new(36.27, -115.64, 3_000.0, 270.0, -5.0);
    (view.width, view.height) = (32, 18);
    let mut totals = SinkTotals::default();
    let settings = StreamSettings {
        // Coarse, so the builder keeps up in a debug build; the roots stay resident forever.
        chunks: fl_terrain::chunks::ChunkSettings {
            max_chunks: 64,
            ..Default::default()
        },
        ..StreamSettings::default()
    };
    let mut stream = {
        let mut sink = StreamSink::new(RendererTerrain::new(&gpu, &mut renderer), &mut totals);
        TerrainStream::new(&terrain, builder, settings, &mut sink).expect("roots")
    };
    let target = OffscreenTarget::new(&gpu.device, view.width, view.height).expect("target");
    let cv = view.chunk_view(&terrain);
    let face = fl_terrain::cube::dir_to_face_uv(fl_terrain::cube::latlon_to_dir(
        view.lat_deg,
        view.lon_deg,
    ))
    .face;
    let here = TileKey::new(face, 0, 0, 0).expect("root");
    let mut root_undrawn = 0u32;
    let frames = fl_render::terrain::EVICT_AFTER_FRAMES + 60;
    for f in 0..frames {
        let drawn = {
            let mut sink = StreamSink::new(RendererTerrain::new(&gpu, &mut renderer), &mut totals);
            frame_keys(stream.update(&cv, &mut sink))
        };
        if !drawn.contains(&here.packed()) {
            root_undrawn += 1;
        }
        for k in &drawn {
            assert!(
                renderer.has_terrain(*k),
                "frame {f}: drawn chunk {k} not on the GPU"
            );
        }
        let frame = Frame {
            camera: view.camera(),
            sky: SkyParams::at(view.time),
            lights: Vec::new(),
            instances: Vec::new(),
            terrain: drawn,
        };
        renderer
            .render_offscreen(&gpu, &frame, &target)
            .expect("render");
        if f % 50 == 0 {
            // Let the builder thread run (the stream never waits for it).
            std::thread::sleep(Duration::from_millis(20));
        }
    }
    // The test means something only if the root went undrawn long enough.
    assert!(
        u64::from(root_undrawn) > fl_render::terrain::EVICT_AFTER_FRAMES,
        "the camera's root was undrawn for only {root_undrawn} frames; {:?}",
        stream.stats()
    );
    for face in 0..6u8 {
        let root = TileKey::new(face, 0, 0, 0).expect("root");
        assert!(stream.is_resident(root));
        assert!(
            renderer.has_terrain(root.packed()),
            "root of face {face} resident in the stream, gone from the GPU"
        );
    }
    assert_eq!(renderer.terrain_chunk_count(), stream.resident_count());
    assert_eq!(
        totals.uploaded - totals.evicted,
        stream.resident_count() as u64
    );
}

/// Runs fl-view on the Xvfb display, bounded: killed (our own child) after `secs` seconds.
fn run_bounded(args: &[&str], x: &Xvfb, secs: u64) -> Output {
    let mut child = x
        .command(BIN)
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("fl-view starts");
    let _ = wait_bounded(&mut child, Duration::from_secs(secs));
    child.wait_with_output().expect("fl-view output")
}

/// The `world-stats key=value …` line's value of `key`.
fn stat(stdout: &str, key: &str) -> f64 {
    let line = stdout
        .lines()
        .find(|l| l.starts_with("world-stats "))
        .unwrap_or_else(|| panic!("no world-stats line in:\n{stdout}"));
    line.split_whitespace()
        .find_map(|kv| kv.strip_prefix(&format!("{key}=")))
        .map(|v| match v {
            "true" => 1.0,
            "false" => 0.0,
            v => v.parse().unwrap_or(f64::NAN),
        })
        .unwrap_or_else(|| panic!("no {key} in {line}"))
}

/// Mean colour of rows `rows`.
fn mean_rgb(img: &image::RgbaImage, rows: std::ops::Range<u32>) -> [f64; 3] {
    let mut sum = [0.0; 3];
    let mut n = 0.0;
    for y in rows {
        for x in 0..img.width() {
            let p = img.get_pixel(x, y);
            for c in 0..3 {
                sum[c] += f64::from(p[c]);
            }
            n += 1.0;
        }
    }
    sum.map(|v| v / f64::max(n, 1.0))
}

/// Mean and standard deviation of the luminance of rows `rows`.
fn luma(img: &image::RgbaImage, rows: std::ops::Range<u32>) -> (f64, f64) {
    let v: Vec<f64> = rows
        .flat_map(|y| (0..img.width()).map(move |x| (x, y)))
        .map(|(x, y)| {
            let p = img.get_pixel(x, y);
            0.2126 * f64::from(p[0]) + 0.7152 * f64::from(p[1]) + 0.0722 * f64::from(p[2])
        })
        .collect();
    let n = v.len().max(1) as f64;
    let mean = v.iter().sum::<f64>() / n;
    let var = v.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / n;
    (mean, var.sqrt())
}

#[test]
fn a_fast_flight_over_nttr_streams_terrain_without_waiting() {
    let Some(pack) = fl_fixtures::fixture_pack() else {
        return;
    };
    let Some(x) = Xvfb::start() else { return };
    let dir = tempfile::tempdir().expect("tempdir");
    let shot = dir.path().join("flight.png");
    let o = run_bounded(
        &[
            "--pack",
            pack.to_str().expect("utf-8 path"),
            "--lat",
            "36.6",
            "--lon",
            "-115.9",
            "--alt",
            "3500",
            "--heading",
            "0",
            "--pitch",
            "-6",
            "--time",
            "2026-06-21T19:00",
            "--size",
            "320x180",
            "--frames",
            "360",
            "--speed",
            "1500",
            "--screenshot",
            shot.to_str().expect("utf-8 path"),
        ],
        &x,
        170,
    );
    drop(x);
    let stdout = String::from_utf8_lossy(&o.stdout);
    let stderr = String::from_utf8_lossy(&o.stderr);
    if !o.status.success() && stderr.contains("no graphics adapter") {
        fl_fixtures::skip("no graphics adapter for the window");
        return;
    }
    assert!(o.status.success(), "{}\n{stdout}\n{stderr}", o.status);
    println!("{stdout}");
    let frames = stat(&stdout, "frames");
    assert!(frames >= 360.0, "{stdout}");
    // Frames went on while chunks were being built, and none was built on the render thread.
    assert!(stat(&stdout, "pending_frames") > 0.0, "{stdout}");
    assert!(stat(&stdout, "stand_in_frames") > 0.0, "{stdout}");
    assert_eq!(stat(&stdout, "blocking_builds"), 0.0, "{stdout}");
    // Terrain came and went, residency stayed within the stream's bound and on the GPU.
    assert!(stat(&stdout, "uploaded") > 50.0, "{stdout}");
    assert!(stat(&stdout, "evicted") > 0.0, "{stdout}");
    assert!(stat(&stdout, "max_resident") <= stat(&stdout, "resident_bound"));
    assert_eq!(stat(&stdout, "lost_on_gpu"), 0.0, "{stdout}");
    assert_eq!(stat(&stdout, "refused"), 0.0, "{stdout}");
    // 360 frames × 1/60 s × 1500 m/s, north over the basin (never down to the ground).
    assert!((stat(&stdout, "flown_m") - 9_000.0).abs() < 5.0, "{stdout}");
    // The picture: sky above, ground below, neither flat; the terrain settled first.
    assert_eq!(stat(&stdout, "converged"), 1.0, "{stdout}");
    let img = image::open(&shot).expect("screenshot").to_rgba8();
    assert_eq!(img.dimensions(), (320, 180));
    // Sky at the top, ground at the bottom: the sky is much bluer than the ground (Nevada's
    // desert is not blue) and the ground is not one flat colour.
    let (_, ground_sd) = luma(&img, 135..180);
    let (sky, ground) = (mean_rgb(&img, 0..18), mean_rgb(&img, 135..180));
    assert!(sky[2] > sky[0], "sky not blue: {sky:?}");
    assert!(
        (sky[2] - sky[0]) > (ground[2] - ground[0]) + 20.0,
        "sky {sky:?} not bluer than ground {ground:?}"
    );
    assert!(
        ground_sd > 3.0,
        "the ground is flat colour (sd {ground_sd:.1})"
    );
    save_for_review(&shot);
}

/// Keeps the last screenshot under the target's tmp dir for a person to look at.
fn save_for_review(shot: &Path) {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("fl-view-world-window");
    if std::fs::create_dir_all(&dir).is_ok() {
        let _ = std::fs::copy(shot, dir.join("flight.png"));
    }
}

#[test]
fn the_world_window_without_a_display_says_so() {
    let o = Command::new(BIN)
        .args(["--lat", "36.27", "--lon", "-115.64", "--frames", "3"])
        .env_remove("DISPLAY")
        .env_remove("WAYLAND_DISPLAY")
        .output()
        .expect("fl-view runs");
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("no display"), "{stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
}

#[test]
fn screenshot_needs_a_scripted_run_and_belongs_to_the_window() {
    for (args, needle) in [
        (
            &["--lat", "36", "--lon", "-115", "--screenshot", "x.png"][..],
            "--screenshot",
        ),
        (
            &[
                "--lat",
                "36",
                "--lon",
                "-115",
                "--out",
                "x.png",
                "--fly-seconds",
                "2",
            ][..],
            "--fly-seconds",
        ),
        (
            &[
                "--lat", "36", "--lon", "-115", "--speed", "-5", "--frames", "2",
            ][..],
            "--speed",
        ),
    ] {
        let o = Command::new(BIN).args(args).output().expect("fl-view runs");
        let stderr = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {stderr}");
        assert!(stderr.contains(needle), "{args:?}: {stderr}");
    }
}
