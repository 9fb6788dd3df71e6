//! The frame benchmark of issue #10: at 1280 × 720 on whatever adapter `fl_render::Gpu::new()`
//! gives (lavapipe on a machine without a GPU), for three scenes — the empty sky, the fixture
//! pack's NTTR terrain from 3 km, 128 F-16As in view — (1) the CPU time to build and submit a
//! frame and (2) the time until the adapter has finished it; then a summary of the medians as
//! ratios to the empty sky.
//!
//! `cargo bench -p fl-view --bench frame`
//!
//! Without an adapter it prints why and measures nothing; without the fixture pack (or its
//! F-16A) it measures the scenes it can and says which it skipped. In criterion's test mode
//! (`cargo test --benches`, `cargo test --all-targets`) each routine runs once.

use std::cell::RefCell;
use std::time::{Duration, Instant};

use criterion::{Criterion, SamplingMode, criterion_group, criterion_main};
use fl_render::model::ModelFamily;
use fl_render::sun::UtcTime;
use fl_render::{Frame, Gpu, Instance, OffscreenTarget, Renderer};
use fl_terrain::{Terrain, TerrainConfig};
use fl_view::world::{WorldView, build_terrain, world_frame};
use glam::{DMat3, DQuat};

/// One scene's per-frame times, recorded by the routines for the closing summary.
#[derive(Default)]
struct Times {
    cpu: Vec<Duration>,
    total: Vec<Duration>,
    /// What the scene's last frame drew.
    stats: fl_render::FrameStats,
}

fn median_ms(v: &[Duration]) -> Option<f64> {
    let mut v = v.to_vec();
    v.sort();
    v.get(v.len() / 2).map(|d| d.as_secs_f64() * 1e3)
}

/// The scenes that can be built here: (name, frame), the empty sky first; and a note per
/// scene skipped.
fn scenes(gpu: &Gpu, renderer: &mut Renderer, view: &WorldView) -> Vec<(&'static str, Frame)> {
    let sky = world_frame(view, &[]);
    let mut out = vec![("empty sky", sky.clone())];
    let Some(pack) = fl_fixtures::fixture_pack() else {
        eprintln!("fixture pack not found: NTTR terrain and 128 F-16A skipped (sky only)");
        return out;
    };
    match fl_view::pack::load_pack(&pack) {
        Ok(content) => {
            let terrain = Terrain::from_content(&content, TerrainConfig::default());
            // The one-shot build fl-view does (the game streams these on a worker thread); its
            // time is not part of a frame.
            let t0 = Instant::now();
            let chunks = build_terrain(&terrain, view);
            let build_ms = t0.elapsed().as_secs_f64() * 1e3;
            let mut uploaded = 0usize;
            for c in &chunks {
                match renderer.upload_terrain(gpu, c) {
                    Ok(()) => uploaded += 1,
                    Err(e) => eprintln!("a chunk was refused: {e}"),
                }
            }
            let tris: usize = chunks.iter().map(|c| c.indices.len() / 3).sum();
            eprintln!(
                "NTTR: {} chunks ({tris} triangles) built in {build_ms:.0} ms (cold), {uploaded} uploaded",
                chunks.len()
            );
            out.push(("NTTR terrain from 3 km", world_frame(view, &chunks)));
        }
        Err(e) => eprintln!("fixture pack does not load ({e}): NTTR terrain skipped"),
    }
    let f16a = fl_fixtures::pack_model_path(&pack, "f16a");
    let dir = f16a
        .parent()
        .map(std::path::Path::to_path_buf)
        .unwrap_or_default();
    match ModelFamily::load(&dir, "f16a") {
        Ok(family) => {
            let model = renderer.upload_family(gpu, &family);
            let cam = &sky.camera;
            let (e, n, u) =
                fl_render::sun::east_north_up(view.lat_deg.to_radians(), view.lon_deg.to_radians());
            let q = DQuat::from_mat3(&DMat3::from_cols(e, u, -n));
            // A block of 16 × 8 aircraft 300 m to 1.9 km ahead, all inside the view.
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
            out.push((
                "128 F-16A in view",
                Frame {
                    instances,
                    ..sky.clone()
                },
            ));
        }
        Err(e) => eprintln!("no F-16A in the fixture pack ({e}): 128 F-16A skipped"),
    }
    out
}

fn bench(c: &mut Criterion) {
    let gpu = match Gpu::new() {
        Ok(g) => g,
        Err(e) => {
            eprintln!("no graphics adapter ({e}): frame bench skipped");
            return;
        }
    };
    let mut renderer = match Renderer::new(&gpu) {
        Ok(r) => r,
        Err(e) => {
            eprintln!(
                "no renderer on {} ({e}): frame bench skipped",
                gpu.info.name
            );
            return;
        }
    };
    // Over the range north of Indian Springs, 3 km above the sea (about 1.5 km above the
    // ground), looking north just below the horizon, at noon.
    let mut view = WorldView::new(36.9, -115.9, 3_000.0, 0.0, -5.0);
    view.time = UtcTime::new(2026, 6, 21, 19, 42, 0.0);
    view.width = 1280;
    view.height = 720;
    let target = match OffscreenTarget::new(&gpu.device, view.width, view.height) {
        Ok(t) => t,
        Err(e) => {
            eprintln!("no 1280x720 target ({e}): frame bench skipped");
            return;
        }
    };
    let scenes = scenes(&gpu, &mut renderer, &view);
    let renderer = RefCell::new(renderer);
    let times: Vec<RefCell<Times>> = scenes.iter().map(|_| RefCell::default()).collect();
    let wait = || {
        let _ = gpu.device.poll(wgpu::PollType::wait_indefinitely());
    };

    let mut group = c.benchmark_group("frame 1280x720");
    group
        .sample_size(10)
        .sampling_mode(SamplingMode::Flat)
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(3));
    for (k, (name, frame)) in scenes.iter().enumerate() {
        // (1) Build and submit: the clock stops when `render_offscreen` returns; the wait for
        // the adapter comes after, outside the measurement, so frames never queue up.
        group.bench_function(format!("{name}: build + submit (CPU)"), |b| {
            b.iter_custom(|iters| {
                let mut r = renderer.borrow_mut();
                let mut sum = Duration::ZERO;
                for _ in 0..iters {
                    let t0 = Instant::now();
                    if let Err(e) = r.render_offscreen(&gpu, frame, &target) {
                        eprintln!("{name}: render failed: {e}");
                    }
                    let dt = t0.elapsed();
                    wait();
                    sum += dt;
                    times[k].borrow_mut().cpu.push(dt);
                }
                sum
            })
        });
        // (2) The whole frame: from the start of the build until the adapter is done.
        group.bench_function(format!("{name}: until finished (GPU done)"), |b| {
            b.iter_custom(|iters| {
                let mut r = renderer.borrow_mut();
                let mut sum = Duration::ZERO;
                for _ in 0..iters {
                    let t0 = Instant::now();
                    if let Err(e) = r.render_offscreen(&gpu, frame, &target) {
                        eprintln!("{name}: render failed: {e}");
                    }
                    wait();
                    let dt = t0.elapsed();
                    sum += dt;
                    times[k].borrow_mut().total.push(dt);
                }
                sum
            })
        });
        times[k].borrow_mut().stats = renderer.borrow().last_frame_stats();
    }
    group.finish();

    eprintln!(
        "\nframe summary, 1280x720 on {} (medians of every frame criterion ran, its warm-up included; ratios to the empty sky):",
        gpu.info.name
    );
    let base = times.first().map(|t| {
        let t = t.borrow();
        (median_ms(&t.cpu), median_ms(&t.total))
    });
    for ((name, _), t) in scenes.iter().zip(&times) {
        let t = t.borrow();
        let (Some(cpu), Some(total)) = (median_ms(&t.cpu), median_ms(&t.total)) else {
            continue;
        };
        let (bc, bt) = match base {
            Some((Some(bc), Some(bt))) => (bc, bt),
            _ => (cpu, total),
        };
        eprintln!(
            "  {name:<24} build + submit {cpu:7.2} ms ({:5.2}x)   until finished {total:7.1} ms ({:5.2}x)   \
             [{} + {} frames; {} chunks drawn, {} culled; {} instances drawn]",
            cpu / bc,
            total / bt,
            t.cpu.len(),
            t.total.len(),
            t.stats.terrain_chunks,
            t.stats.terrain_culled,
            t.stats.instances - t.stats.culled,
        );
    }
}

criterion_group!(benches, bench);
criterion_main!(benches);
