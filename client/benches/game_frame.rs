//! The game's frame as the window draws it — the world from the camera, then the HUD with egui
//! — at 1280 × 720 on whatever adapter `fl_render::Gpu::new()` gives (lavapipe without a GPU):
//!
//! 1. the empty sky with the HUD, and 128 of our FL-1 trainers in view with the HUD: CPU time
//!    per frame (build the frame, record and submit the world, lay out, tessellate and submit
//!    the HUD) and the time until the adapter has finished, as p50 / p99 / max;
//! 2. a 300 m/s low pass 150 m over the fixture pack's Nevada terrain with the game's terrain
//!    stream (chunks built on its worker, at most 8 uploaded a frame): every frame's whole
//!    time (stream, uploads, world, HUD, finished) and the worst 1 % of frames, the streaming
//!    spikes a player would feel. The pass moves by each frame's real time, as the game does.
//!
//! `cargo bench -p fighters-legacy --bench game_frame`
//!
//! Without an adapter it says so and measures nothing; without the fixture pack it skips the
//! low pass. Under `cargo test --benches` each routine runs once.

use std::cell::RefCell;
use std::path::PathBuf;
use std::time::{Duration, Instant};

use criterion::{Criterion, SamplingMode, criterion_group, criterion_main};
use fighters_legacy::app::camera::Eye;
use fighters_legacy::app::scene::{Sky, build_frame};
use fighters_legacy::app::world::{WorldTerrain, lat_lon_deg, local_up, world_point};
use fighters_legacy::content::{ContentOptions, terrain_of};
use fighters_legacy::hud::{self, HudExtras, HudSettings};
use fighters_legacy::instruments::Reading;
use fl_render::model::ModelFamily;
use fl_render::sun::{UtcTime, east_north_up};
use fl_render::{Frame, Gpu, Instance, OffscreenTarget, Renderer, UiFrame, UiPainter, Weather};
use glam::{DMat3, DQuat, DVec3};

const WIDTH: u32 = 1280;
const HEIGHT: u32 = 720;
const FOV_DEG: f64 = 60.0;
/// The low pass: speed, height above the ground, length.
const PASS_SPEED_MPS: f64 = 300.0;
const PASS_HEIGHT_M: f64 = 150.0;
const PASS_SECONDS: f64 = 40.0;
/// Start of the pass (over the ranges north-west of the airfield) and its heading, degrees.
const PASS_START: (f64, f64) = (36.75, -115.95);
const PASS_HEADING_DEG: f64 = 60.0;

/// Per-frame times of one scene.
#[derive(Default)]
struct Times {
    cpu: Vec<Duration>,
    total: Vec<Duration>,
}

/// The `p`-quantile (0 … 1) of `v`, ms.
fn quantile_ms(v: &[Duration], p: f64) -> f64 {
    let mut v = v.to_vec();
    v.sort();
    if v.is_empty() {
        return f64::NAN;
    }
    let i = ((p * v.len() as f64).ceil() as usize).clamp(1, v.len()) - 1;
    v[i].as_secs_f64() * 1e3
}

/// Mean of the slowest 1 % of `v` (at least one frame), ms.
fn worst_percent_ms(v: &[Duration]) -> f64 {
    let mut v = v.to_vec();
    v.sort();
    let n = (v.len() / 100).max(1).min(v.len());
    let tail = &v[v.len() - n..];
    tail.iter().map(Duration::as_secs_f64).sum::<f64>() / n.max(1) as f64 * 1e3
}

fn summary(name: &str, t: &Times) {
    let line = |what: &str, v: &[Duration]| {
        if !v.is_empty() {
            eprintln!(
                "  {name:<28} {what:<6} p50 {:7.2} ms  p99 {:7.2} ms  worst 1% {:7.2} ms  max {:7.2} ms  ({} frames)",
                quantile_ms(v, 0.5),
                quantile_ms(v, 0.99),
                worst_percent_ms(v),
                quantile_ms(v, 1.0),
                v.len()
            );
        }
    };
    line("CPU", &t.cpu);
    line("total", &t.total);
}

/// A cruise reading: what the HUD shows in level flight at 3 km.
fn cruise() -> Reading {
    Reading {
        ias_mps: 180.0,
        tas_mps: 210.0,
        mach: 0.64,
        ground_speed_mps: 205.0,
        altitude_m: 3_000.0,
        radar_altitude_m: None,
        vertical_speed_mps: 1.5,
        g: 1.0,
        aoa_rad: Some(0.05),
        stall_fraction: 0.3,
        heading_rad: 0.6,
        pitch_rad: 0.03,
        roll_rad: 0.1,
        track_rad: 0.62,
        flight_path_rad: Some((0.01, -0.02)),
        fuel_kg: 900.0,
        fuel_fraction: 0.6,
        throttle: 0.8,
        ..Reading::default()
    }
}

/// The HUD on top of the world in `target`: one egui pass (layout and tessellation) and its
/// submission, as the window does each frame.
struct HudPass {
    ctx: egui::Context,
    painter: UiPainter,
    reading: Reading,
    extras: HudExtras,
    settings: HudSettings,
}

impl HudPass {
    fn new(gpu: &Gpu) -> HudPass {
        HudPass {
            ctx: egui::Context::default(),
            painter: UiPainter::for_offscreen(gpu),
            reading: cruise(),
            extras: HudExtras {
                max_g: 3.2,
                bingo_fuel_kg: 400.0,
                ..HudExtras::default()
            },
            settings: HudSettings::default(),
        }
    }

    fn draw(&mut self, gpu: &Gpu, target: &OffscreenTarget) {
        let raw = egui::RawInput {
            screen_rect: Some(egui::Rect::from_min_size(
                egui::Pos2::ZERO,
                egui::vec2(WIDTH as f32, HEIGHT as f32),
            )),
            ..egui::RawInput::default()
        };
        let (reading, extras, settings) = (&self.reading, &self.extras, &self.settings);
        let output = self.ctx.run_ui(raw, |ui| {
            let painter = ui.ctx().layer_painter(egui::LayerId::background());
            hud::draw(&painter, ui.ctx().content_rect(), reading, extras, settings);
        });
        let frame = UiFrame::from_output(&self.ctx, output);
        if let Err(e) = self.painter.paint_offscreen(gpu, target, frame) {
            eprintln!("HUD paint failed: {e}");
        }
    }
}

/// One frame as the window draws it — `build` makes the world's frame, which is rendered with
/// the HUD over it — until the adapter has finished; records and returns (CPU, total).
fn timed_frame(
    gpu: &Gpu,
    renderer: &mut Renderer,
    hud: &mut HudPass,
    target: &OffscreenTarget,
    times: &mut Times,
    build: impl FnOnce(&mut Renderer) -> Frame,
) -> (Duration, Duration) {
    let t0 = Instant::now();
    let frame = build(renderer);
    if let Err(e) = renderer.render_offscreen(gpu, &frame, target) {
        eprintln!("render failed: {e}");
    }
    hud.draw(gpu, target);
    let cpu = t0.elapsed();
    let _ = gpu.device.poll(wgpu::PollType::wait_indefinitely());
    let total = t0.elapsed();
    times.cpu.push(cpu);
    times.total.push(total);
    (cpu, total)
}

fn noon() -> Sky {
    Sky {
        time: UtcTime::new(2026, 6, 21, 19, 30, 0.0),
        weather: Weather::default(),
    }
}

/// The eye 3 km over the airfield looking north-east, just below the horizon.
fn cruise_eye() -> Eye {
    let (lat, lon) = fighters_legacy::app::NEVADA_AIRFIELD;
    let (e, n, u) = east_north_up(lat.to_radians(), lon.to_radians());
    Eye {
        position: world_point(lat, lon, 3_000.0),
        forward: (n + e * 0.3 - u * 0.05).normalize(),
        up: u,
        near_m: 0.5,
    }
}

/// 128 trainers in a 16 × 8 block 300 m to 1.9 km ahead of `eye`, all in view.
fn formation(eye: &Eye, model: fl_render::ModelHandle) -> Vec<Instance> {
    let fwd = eye.forward;
    let right = fwd.cross(eye.up).normalize();
    let up = right.cross(fwd);
    let q = DQuat::from_mat3(&DMat3::from_cols(right, up, -fwd));
    (0..128)
        .map(|i| {
            let (a, b) = (f64::from(i % 16), f64::from(i / 16));
            Instance::new(
                model,
                eye.position
                    + fwd * (300.0 + b * 220.0)
                    + right * ((a - 7.5) * 30.0)
                    + up * ((a + b) % 3.0 * 12.0 - 40.0),
                q,
            )
        })
        .collect()
}

fn trainer_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../mods/fl-trainer/aircraft/trainer")
}

/// The low pass's state: where the eye is along the track and the terrain streamed so far.
struct LowPass {
    world: WorldTerrain,
    eye: Eye,
    flown_s: f64,
    last: Option<Instant>,
}

impl LowPass {
    fn start(gpu: &Gpu, renderer: &mut Renderer) -> Option<LowPass> {
        let Some(pack) = fl_fixtures::fixture_pack() else {
            eprintln!("fixture pack not found: the low pass over Nevada is skipped");
            return None;
        };
        let opts = ContentOptions {
            user_mods: false,
            mods_dirs: Vec::new(),
            pack_dirs: vec![pack],
        };
        let content = match fighters_legacy::content::load(&opts, None) {
            Ok(c) => c,
            Err(e) => {
                eprintln!("the fixture pack does not load ({e}): low pass skipped");
                return None;
            }
        };
        let world = match WorldTerrain::start(gpu, renderer, terrain_of(&content), PASS_START) {
            Ok(w) => w,
            Err(e) => {
                eprintln!("no terrain stream ({e}): low pass skipped");
                return None;
            }
        };
        Some(LowPass {
            world,
            eye: Self::eye_at(0.0, 1_500.0),
            flown_s: 0.0,
            last: None,
        })
    }

    /// The eye `t` seconds along the track at `altitude_m`, looking along it.
    fn eye_at(t: f64, altitude_m: f64) -> Eye {
        let (lat0, lon0) = PASS_START;
        let (e, n, _) = east_north_up(lat0.to_radians(), lon0.to_radians());
        let h = PASS_HEADING_DEG.to_radians();
        let dir = n * h.cos() + e * h.sin();
        let start = world_point(lat0, lon0, 0.0);
        let ground = start + dir * (PASS_SPEED_MPS * t);
        let (lat, lon) = lat_lon_deg(ground);
        let position = world_point(lat, lon, altitude_m);
        let up = local_up(position);
        let forward = (dir - up * dir.dot(up)).normalize_or(DVec3::Z);
        Eye {
            position,
            forward: (forward - up * 0.08).normalize(),
            up,
            near_m: 0.5,
        }
    }

    /// One frame of the pass: the eye moves by the real time since the last frame (as the
    /// game's camera does), restarting at the end of the track.
    fn frame(&mut self, gpu: &Gpu, renderer: &mut Renderer) -> Frame {
        let now = Instant::now();
        let dt = self
            .last
            .map_or(1.0 / 60.0, |t| (now - t).as_secs_f64().min(0.25));
        self.last = Some(now);
        self.flown_s += dt;
        if self.flown_s > PASS_SECONDS {
            self.flown_s = 0.0;
        }
        let altitude = self.world.ground_m() + PASS_HEIGHT_M;
        self.eye = Self::eye_at(self.flown_s, altitude);
        let aspect = f64::from(WIDTH) / f64::from(HEIGHT);
        // The game's default terrain detail (Medium).
        let drawn = self.world.update(
            gpu,
            renderer,
            &self.eye,
            (FOV_DEG, aspect, HEIGHT),
            fighters_legacy::settings::TerrainDetail::default().max_error_px(),
        );
        build_frame(&self.eye, FOV_DEG, aspect, &noon(), Vec::new(), drawn)
    }
}

fn bench(c: &mut Criterion) {
    let gpu = match Gpu::new() {
        Ok(g) => g,
        Err(e) => {
            eprintln!("no graphics adapter ({e}): game frame bench skipped");
            return;
        }
    };
    let mut renderer = match Renderer::new(&gpu) {
        Ok(r) => r,
        Err(e) => {
            eprintln!("no renderer on {} ({e}): bench skipped", gpu.info.name);
            return;
        }
    };
    let target = match OffscreenTarget::new(&gpu.device, WIDTH, HEIGHT) {
        Ok(t) => t,
        Err(e) => {
            eprintln!("no {WIDTH}x{HEIGHT} target ({e}): bench skipped");
            return;
        }
    };
    let eye = cruise_eye();
    let aspect = f64::from(WIDTH) / f64::from(HEIGHT);
    let trainers = match ModelFamily::load(&trainer_dir(), "trainer") {
        Ok(family) => {
            let model = renderer.upload_family(&gpu, &family);
            Some(formation(&eye, model))
        }
        Err(e) => {
            eprintln!("our FL-1 trainer does not load ({e}): 128 aircraft skipped");
            None
        }
    };
    let mut scenes: Vec<(&str, Vec<Instance>)> = vec![("empty sky + HUD", Vec::new())];
    if let Some(t) = trainers {
        scenes.push(("128 FL-1 in view + HUD", t));
    }
    let hud = RefCell::new(HudPass::new(&gpu));
    let renderer = RefCell::new(renderer);
    // The world of a fixed scene: `instances` from the cruise eye, no terrain.
    let scene = |instances: &Vec<Instance>| {
        let instances = instances.clone();
        move |_: &mut Renderer| build_frame(&eye, FOV_DEG, aspect, &noon(), instances, Vec::new())
    };
    let times: Vec<RefCell<Times>> = (0..=scenes.len()).map(|_| RefCell::default()).collect();

    // Five frames of each scene first, unrecorded: the first frame's pipeline and texture
    // work is a start-up cost, not a frame time.
    for (_, instances) in &scenes {
        let (mut r, mut hud) = (renderer.borrow_mut(), hud.borrow_mut());
        for _ in 0..5 {
            let mut unrecorded = Times::default();
            timed_frame(
                &gpu,
                &mut r,
                &mut hud,
                &target,
                &mut unrecorded,
                scene(instances),
            );
        }
    }
    let mut group = c.benchmark_group("game frame 1280x720");
    group
        .sample_size(10)
        .sampling_mode(SamplingMode::Flat)
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(10));
    for (k, (name, instances)) in scenes.iter().enumerate() {
        group.bench_function(*name, |b| {
            b.iter_custom(|iters| {
                let (mut r, mut hud) = (renderer.borrow_mut(), hud.borrow_mut());
                let mut t = times[k].borrow_mut();
                (0..iters)
                    .map(|_| {
                        timed_frame(&gpu, &mut r, &mut hud, &target, &mut t, scene(instances)).0
                    })
                    .sum()
            })
        });
    }
    let low_pass = RefCell::new(LowPass::start(&gpu, &mut renderer.borrow_mut()));
    if low_pass.borrow().is_some() {
        let k = scenes.len();
        group.measurement_time(Duration::from_secs(30));
        group.bench_function("300 m/s low pass, streaming + HUD", |b| {
            b.iter_custom(|iters| {
                let (mut r, mut hud) = (renderer.borrow_mut(), hud.borrow_mut());
                let mut pass = low_pass.borrow_mut();
                let Some(pass) = pass.as_mut() else {
                    return Duration::ZERO;
                };
                let mut t = times[k].borrow_mut();
                (0..iters)
                    .map(|_| {
                        let build = |r: &mut Renderer| pass.frame(&gpu, r);
                        timed_frame(&gpu, &mut r, &mut hud, &target, &mut t, build).1
                    })
                    .sum()
            })
        });
    }
    group.finish();

    eprintln!(
        "\ngame frame summary, {WIDTH}x{HEIGHT} on {} (every frame criterion ran, warm-up included):",
        gpu.info.name
    );
    for (k, (name, _)) in scenes.iter().enumerate() {
        summary(name, &times[k].borrow());
    }
    if let Some(pass) = low_pass.borrow().as_ref() {
        summary("300 m/s low pass", &times[scenes.len()].borrow());
        let totals = pass.world.totals();
        eprintln!("  low pass terrain: {totals:?}");
    }
}

criterion_group!(benches, bench);
criterion_main!(benches);
