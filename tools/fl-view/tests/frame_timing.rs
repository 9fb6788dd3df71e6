//! The frame benchmark of issue #10 (printed, never asserted; `--ignored` because it takes a
//! minute on lavapipe): at 1280 × 720, the CPU time to build and submit a frame and the time
//! until the adapter has finished it, for (a) the empty sky, (b) the fixture pack's NTTR terrain
//! from 3 km, (c) 128 F-16As in view, each as a ratio to the empty sky; and the chunk selection
//! and one-shot chunk build times behind (b).
//!
//! `cargo test -p fl-view --test frame_timing -- --ignored --nocapture`

use std::time::{Duration, Instant};

use fl_render::model::ModelFamily;
use fl_render::sun::UtcTime;
use fl_render::{Frame, Instance, OffscreenTarget, Renderer};
use fl_terrain::chunks::{ChunkSettings, select_chunks};
use fl_terrain::{Terrain, TerrainConfig};
use fl_view::world::{WorldView, build_terrain, world_frame};
use glam::{DMat3, DQuat};

const FRAMES: usize = 7;

fn median(mut v: Vec<Duration>) -> f64 {
    v.sort();
    v[v.len() / 2].as_secs_f64() * 1e3
}

/// (build + submit, until finished), ms, median of [`FRAMES`] after a warm-up.
fn time_frame(
    gpu: &fl_render::Gpu,
    renderer: &mut Renderer,
    frame: &Frame,
    target: &OffscreenTarget,
) -> (f64, f64) {
    renderer
        .render_offscreen(gpu, frame, target)
        .expect("render");
    let _ = gpu.device.poll(wgpu::PollType::wait_indefinitely());
    let (mut cpu, mut total) = (Vec::new(), Vec::new());
    for _ in 0..FRAMES {
        let t0 = Instant::now();
        renderer
            .render_offscreen(gpu, frame, target)
            .expect("render");
        cpu.push(t0.elapsed());
        let _ = gpu.device.poll(wgpu::PollType::wait_indefinitely());
        total.push(t0.elapsed());
    }
    (median(cpu), median(total))
}

#[test]
#[ignore = "benchmark: run with --ignored --nocapture"]
fn frame_timings_at_1280x720() {
    let Some(pack) = fl_fixtures::fixture_pack() else {
        return;
    };
    let gpu = match fl_render::Gpu::new() {
        Ok(g) => g,
        Err(e) => {
            fl_fixtures::skip(&format!("no graphics adapter ({e})"));
            return;
        }
    };
    let content = fl_view::pack::load_pack(&pack).expect("fixture pack");
    let terrain = Terrain::from_content(&content, TerrainConfig::default());
    let mut renderer = Renderer::new(&gpu).expect("renderer");
    // Over the range north of Indian Springs, 3 km above the sea (about 1.5 km above the
    // ground), looking north just below the horizon.
    let mut view = WorldView::new(36.9, -115.9, 3_000.0, 0.0, -5.0);
    view.time = UtcTime::new(2026, 6, 21, 19, 42, 0.0);
    let target = OffscreenTarget::new(&gpu.device, view.width, view.height).expect("target");

    // The chunks: selection alone, then the one-shot build (what fl-view does once; the game
    // streams them on fl-terrain's builder thread instead).
    let cv = view.chunk_view(&terrain);
    let t0 = Instant::now();
    let selected = select_chunks(&cv, &ChunkSettings::default());
    let select_ms = t0.elapsed().as_secs_f64() * 1e3;
    let t0 = Instant::now();
    let chunks = build_terrain(&terrain, &view); // cold: reads the tiles
    let cold_ms = t0.elapsed().as_secs_f64() * 1e3;
    let t0 = Instant::now();
    let chunks2 = build_terrain(&terrain, &view); // warm: tiles cached
    let warm_ms = t0.elapsed().as_secs_f64() * 1e3;
    assert_eq!(chunks.len(), chunks2.len());
    for c in &chunks {
        renderer.upload_terrain(&gpu, c).expect("chunk");
    }
    let tris: usize = chunks.iter().map(|c| c.indices.len() / 3).sum();
    eprintln!(
        "CHUNKS {} selected in {select_ms:.2} ms; {} built ({tris} triangles) in {cold_ms:.0} ms cold, {warm_ms:.0} ms warm ({:.2} ms per chunk)",
        selected.len(),
        chunks.len(),
        warm_ms / chunks.len().max(1) as f64
    );

    let terrain_frame = world_frame(&view, &chunks);
    let sky_frame = Frame {
        terrain: Vec::new(),
        ..terrain_frame.clone()
    };
    let mut rows = vec![("empty sky", sky_frame.clone())];
    rows.push(("NTTR terrain from 3 km", terrain_frame.clone()));
    let f16a = fl_fixtures::pack_model_path(&pack, "f16a");
    let dir = f16a
        .parent()
        .map(std::path::Path::to_path_buf)
        .unwrap_or_default();
    match ModelFamily::load(&dir, "f16a") {
        Ok(family) => {
            let model = renderer.upload_family(&gpu, &family);
            let cam = &sky_frame.camera;
            let (e, n, u) =
                fl_render::sun::east_north_up(view.lat_deg.to_radians(), view.lon_deg.to_radians());
            let q = DQuat::from_mat3(&DMat3::from_cols(e, u, -n));
            // 128 aircraft in a block 300 m to 2 km ahead (as fl-render's own timing test).
            let instances: Vec<Instance> = (0..128)
                .map(|i| {
                    let (a, b) = (f64::from(i % 16), f64::from(i / 16));
                    Instance::new(
                        model,
                        cam.position
                            + n * (300.0 + b * 220.0)
                            + e * ((a - 7.5) * 40.0)
                            + u * ((a + b) % 3.0 * 15.0 - 60.0),
                        q,
                    )
                })
                .collect();
            rows.push((
                "128 F-16A in view",
                Frame {
                    instances: instances.clone(),
                    ..sky_frame.clone()
                },
            ));
            rows.push((
                "128 F-16A over the terrain",
                Frame {
                    instances,
                    ..terrain_frame.clone()
                },
            ));
        }
        Err(e) => fl_fixtures::skip(&format!("no F-16A ({e}): timed sky and terrain only")),
    }
    let mut base = (1.0, 1.0);
    for (i, (name, frame)) in rows.iter().enumerate() {
        let (cpu, total) = time_frame(&gpu, &mut renderer, frame, &target);
        if i == 0 {
            base = (cpu, total);
        }
        let s = renderer.last_frame_stats();
        eprintln!(
            "TIMING 1280x720 {name}: build+submit {cpu:.2} ms ({:.2}x), until finished {total:.1} ms ({:.2}x); {} chunks drawn, {} culled, {} instances drawn ({})",
            cpu / base.0,
            total / base.1,
            s.terrain_chunks,
            s.terrain_culled,
            s.instances - s.culled,
            gpu.info.name
        );
        let img = target.read_rgba(&gpu.device, &gpu.queue).expect("readback");
        let p = std::path::Path::new(env!("CARGO_TARGET_TMPDIR"))
            .join(format!("timing_{}.png", name.replace(' ', "_")));
        img.save(&p).expect("write");
        eprintln!("  kept {}", p.display());
    }
}
