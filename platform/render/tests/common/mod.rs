//! Shared test helpers: a GPU or a recorded skip, the golden-image comparison (NVIDIA FLIP),
//! and the fixture pack's F-16A.
#![allow(dead_code)] // each test binary uses part of this

use std::path::{Path, PathBuf};

use fl_render::{Gpu, OffscreenTarget, Renderer};

/// A device, or `None` after recording a skip (fails instead under `FL_REQUIRE_GPU=1`).
pub fn gpu() -> Option<Gpu> {
    let g = fl_fixtures::adapter_or_skip(Gpu::new())?;
    eprintln!(
        "adapter: {} ({}, {})",
        g.info.name, g.info.backend, g.info.device_type
    );
    Some(g)
}

/// The fixture pack's F-16A directory, or `None` after the fixtures' skip/fail rule.
pub fn f16a_dir() -> Option<PathBuf> {
    fl_fixtures::reference("fixtures/fl-base-pack/aircraft/f16a")
}

/// Renders `frame` at `w`×`h` and reads it back.
pub fn render(
    gpu: &Gpu,
    renderer: &mut Renderer,
    frame: &fl_render::Frame,
    w: u32,
    h: u32,
) -> image::RgbaImage {
    let target = OffscreenTarget::new(&gpu.device, w, h).expect("target");
    renderer
        .render_offscreen(gpu, frame, &target)
        .expect("render");
    target.read_rgba(&gpu.device, &gpu.queue).expect("readback")
}

/// Median time (ms) until `frame` is finished on `target`, over five renders after one warm-up.
/// For printing only: tests never assert on time.
pub fn median_frame_ms(
    gpu: &Gpu,
    renderer: &mut Renderer,
    frame: &fl_render::Frame,
    target: &OffscreenTarget,
) -> f64 {
    let mut times = Vec::new();
    for _ in 0..6 {
        let t = std::time::Instant::now();
        renderer
            .render_offscreen(gpu, frame, target)
            .expect("render");
        let _ = gpu.device.poll(wgpu::PollType::wait_indefinitely());
        times.push(t.elapsed().as_secs_f64() * 1e3);
    }
    times.remove(0);
    times.sort_by(f64::total_cmp);
    times[times.len() / 2]
}

/// This suite's golden references (`tests/golden/`) and evidence directory
/// (`<target tmp>/fl-render-golden/`).
pub fn golden_dirs() -> fl_golden::GoldenDirs {
    fl_golden::GoldenDirs::new(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/golden"),
        Path::new(env!("CARGO_TARGET_TMPDIR")).join("fl-render-golden"),
    )
}

/// Writes `img` as `<temp>/fl-render-golden/<name>-render.png` (for looking at a render whose
/// assertions failed before its golden comparison) and returns the path.
pub fn keep(name: &str, img: &image::RgbaImage) -> PathBuf {
    let p = golden_dirs().output_path(&format!("{name}-render.png"));
    img.save(&p).expect("write render");
    eprintln!("render {name}: {}", p.display());
    p
}

#[allow(unused_imports)] // each test binary uses part of this
pub use fl_golden::{GoldenMismatch, UPDATE_GOLDEN_VAR, flip_mean};

/// Compares `actual` with `reference` (see [`fl_golden::GoldenDirs::compare`]).
pub fn compare(
    name: &str,
    reference: &image::RgbaImage,
    actual: &image::RgbaImage,
    threshold: f32,
) -> Result<f32, GoldenMismatch> {
    golden_dirs().compare(name, reference, actual, threshold)
}

/// The golden check against `tests/golden/<name>.png` (see [`fl_golden::GoldenDirs::check`]).
pub fn check_golden(name: &str, actual: &image::RgbaImage, threshold: f32) {
    golden_dirs().check(name, actual, threshold);
}

/// A square of side `side` metres facing +Z, glowing `color` (emissive, unlit).
pub fn glowing_square(side: f32, color: [f32; 3]) -> fl_render::model::ModelData {
    use fl_render::model::{MeshData, ModelData, Node, Primitive, Vertex};
    use glam::{Quat, Vec3};
    let h = side / 2.0;
    let v = |x: f32, y: f32| Vertex {
        position: [x, y, 0.0],
        normal: [0.0, 0.0, 1.0],
        uv: [0.0, 0.0],
        tangent: [1.0, 0.0, 0.0, 1.0],
    };
    ModelData {
        path: "test:square".into(),
        meshes: vec![MeshData {
            name: None,
            primitives: vec![Primitive {
                vertices: vec![v(-h, -h), v(h, -h), v(h, h), v(-h, h)],
                indices: vec![0, 1, 2, 0, 2, 3],
                material: Some(0),
                has_tangents: true,
            }],
        }],
        nodes: vec![Node {
            name: None,
            parent: None,
            children: vec![],
            translation: Vec3::ZERO,
            rotation: Quat::IDENTITY,
            scale: Vec3::ONE,
            mesh: Some(0),
        }],
        roots: vec![0],
        materials: vec![fl_render::model::Material {
            base_color: [0.0, 0.0, 0.0, 1.0],
            emissive: color,
            ..Default::default()
        }],
        images: vec![],
        warnings: vec![],
    }
}
