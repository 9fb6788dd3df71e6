//! Frame timings on this machine's adapter, printed (run with `--nocapture`); never asserted.
//! For each size: CPU time to build and submit a frame, and the wall time until the adapter has
//! finished it (on lavapipe that is the software rasteriser's time).

mod common;

use std::time::{Duration, Instant};

use fl_render::frame::PLANET_RADIUS_M;
use fl_render::model::ModelFamily;
use fl_render::sun::{UtcTime, east_north_up, geodetic_direction};
use fl_render::{Camera, Frame, Instance, OffscreenTarget, Renderer, SkyParams};
use glam::{DQuat, DVec3};

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

#[test]
fn frame_timings() {
    let Some(gpu) = common::gpu() else { return };
    let mut renderer = Renderer::new(&gpu).expect("renderer");
    let (lat, lon) = (36.27f64, -115.64f64);
    let (e, n, u) = east_north_up(lat.to_radians(), lon.to_radians());
    let centre = DVec3::new(0.0, -PLANET_RADIUS_M, 0.0);
    let cam_pos = centre
        + geodetic_direction(lat.to_radians(), lon.to_radians()) * (PLANET_RADIUS_M + 3000.0);
    let camera = Camera::looking_at(cam_pos, cam_pos + n + u * 0.1, u, 60f64.to_radians());
    let sky = SkyParams::at(UtcTime::new(2026, 6, 21, 19, 0, 0.0));
    let mut scenes = vec![("empty sky", Vec::new())];
    if let Some(dir) = fl_fixtures::reference_or(
        "fixtures/fl-base-pack/aircraft/f16a",
        "timed the empty sky only",
    ) {
        let family = ModelFamily::load(&dir, "f16a").expect("f16a");
        let model = renderer.upload_family(&gpu, &family);
        let body = glam::DMat3::from_cols(e, u, -n);
        let q = DQuat::from_mat3(&body);
        // 128 aircraft in a block 300 m to 2 km ahead.
        let instances = (0..128)
            .map(|i| {
                let (a, b) = ((i % 16) as f64, (i / 16) as f64);
                Instance::new(
                    model,
                    cam_pos
                        + n * (300.0 + b * 220.0)
                        + e * ((a - 7.5) * 40.0)
                        + u * ((a + b) % 3.0 * 15.0),
                    q,
                )
            })
            .collect();
        scenes.push(("128 F-16A", instances));
    }
    for (w, h) in [(256, 256), (1280, 720)] {
        let target = OffscreenTarget::new(&gpu.device, w, h).expect("target");
        for (name, instances) in &scenes {
            let frame = Frame {
                camera: camera.with_aspect(f64::from(w) / f64::from(h)),
                sky,
                lights: vec![],
                terrain: Vec::new(),
                instances: instances.clone(),
            };
            // Warm-up (pipeline and shader caches), then 5 measured frames.
            renderer
                .render_offscreen(&gpu, &frame, &target)
                .expect("render");
            let _ = gpu.device.poll(wgpu::PollType::wait_indefinitely());
            let (mut cpu, mut total) = (Vec::new(), Vec::new());
            for _ in 0..5 {
                let t0 = Instant::now();
                renderer
                    .render_offscreen(&gpu, &frame, &target)
                    .expect("render");
                cpu.push(t0.elapsed());
                let _ = gpu.device.poll(wgpu::PollType::wait_indefinitely());
                total.push(t0.elapsed());
            }
            // Kept for looking at (the path is printed).
            let img = target.read_rgba(&gpu.device, &gpu.queue).expect("readback");
            common::keep(&format!("timing_{w}x{h}_{}", name.replace(' ', "_")), &img);
            eprintln!(
                "TIMING {w}x{h} {name}: build+submit {:.2} ms, until finished {:.2} ms (median of 5, {})",
                median(cpu).as_secs_f64() * 1e3,
                median(total).as_secs_f64() * 1e3,
                gpu.info.name
            );
        }
    }
}
