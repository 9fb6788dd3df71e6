//! Shared test helpers: a GPU or a recorded skip, the golden-image comparison (NVIDIA FLIP),
//! and the fixture pack's F-16A.
#![allow(dead_code)] // each test binary uses part of this

use std::path::{Path, PathBuf};

use fl_render::{Gpu, OffscreenTarget, Renderer};

/// Environment variable that turns "no adapter" into a failure instead of a skip.
pub const REQUIRE_GPU_VAR: &str = "FL_REQUIRE_GPU";
/// Environment variable that rewrites the golden references from the current renders.
pub const UPDATE_GOLDEN_VAR: &str = "FL_UPDATE_GOLDEN";

/// A device, or `None` after recording a skip (fails instead under `FL_REQUIRE_GPU=1`).
pub fn gpu() -> Option<Gpu> {
    match Gpu::new() {
        Ok(g) => {
            eprintln!(
                "adapter: {} ({}, {})",
                g.info.name, g.info.backend, g.info.device_type
            );
            Some(g)
        }
        Err(e) => {
            if std::env::var(REQUIRE_GPU_VAR).as_deref() == Ok("1") {
                panic!("{REQUIRE_GPU_VAR}=1 but no graphics adapter: {e}");
            }
            fl_fixtures::skip(&format!(
                "no graphics adapter ({e}); install libvulkan1 mesa-vulkan-drivers for lavapipe"
            ));
            None
        }
    }
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

/// Writes `img` as `<temp>/fl-render-golden/<name>-render.png` (for looking at a render whose
/// assertions failed before its golden comparison) and returns the path.
pub fn keep(name: &str, img: &image::RgbaImage) -> PathBuf {
    let p = out_dir().join(format!("{name}-render.png"));
    img.save(&p).expect("write render");
    eprintln!("render {name}: {}", p.display());
    p
}

/// A failed comparison: the mean FLIP error and where the evidence was written.
#[derive(Debug)]
pub struct GoldenMismatch {
    pub mean: f32,
    pub actual: PathBuf,
    pub difference: PathBuf,
}

fn out_dir() -> PathBuf {
    let d = Path::new(env!("CARGO_TARGET_TMPDIR")).join("fl-render-golden");
    let _ = std::fs::create_dir_all(&d);
    d
}

/// Mean FLIP error between two same-sized images (0 = identical).
pub fn flip_mean(reference: &image::RgbaImage, test: &image::RgbaImage) -> (f32, image::RgbImage) {
    assert_eq!(
        reference.dimensions(),
        test.dimensions(),
        "image sizes differ"
    );
    let (w, h) = reference.dimensions();
    let rgb = |i: &image::RgbaImage| {
        image::DynamicImage::ImageRgba8(i.clone())
            .to_rgb8()
            .into_raw()
    };
    let r = nv_flip::FlipImageRgb8::with_data(w, h, &rgb(reference));
    let t = nv_flip::FlipImageRgb8::with_data(w, h, &rgb(test));
    let err = nv_flip::flip(r, t, nv_flip::DEFAULT_PIXELS_PER_DEGREE);
    let pool = nv_flip::FlipPool::from_image(&err);
    let vis = err.apply_color_lut(&nv_flip::magma_lut());
    let diff = image::RgbImage::from_raw(w, h, vis.to_vec()).expect("flip image size");
    (pool.mean(), diff)
}

/// Compares `actual` with `reference`; on a mean FLIP error above `threshold`, writes
/// `<name>-actual.png` and `<name>-difference.png` into the test's temp dir and says where.
pub fn compare(
    name: &str,
    reference: &image::RgbaImage,
    actual: &image::RgbaImage,
    threshold: f32,
) -> Result<f32, GoldenMismatch> {
    let (mean, diff) = flip_mean(reference, actual);
    if mean <= threshold {
        return Ok(mean);
    }
    let dir = out_dir();
    let a = dir.join(format!("{name}-actual.png"));
    let d = dir.join(format!("{name}-difference.png"));
    actual.save(&a).expect("write actual");
    diff.save(&d).expect("write difference");
    Err(GoldenMismatch {
        mean,
        actual: a,
        difference: d,
    })
}

/// The golden check: `tests/golden/<name>.png` against `actual` (mean FLIP ≤ `threshold`);
/// `FL_UPDATE_GOLDEN=1` rewrites the reference instead.
pub fn check_golden(name: &str, actual: &image::RgbaImage, threshold: f32) {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/golden")
        .join(format!("{name}.png"));
    if std::env::var(UPDATE_GOLDEN_VAR).as_deref() == Ok("1") {
        actual.save(&path).expect("write golden");
        eprintln!("golden {name}: reference rewritten at {}", path.display());
        return;
    }
    let reference = match image::open(&path) {
        Ok(i) => i.to_rgba8(),
        Err(e) => {
            let a = out_dir().join(format!("{name}-actual.png"));
            actual.save(&a).expect("write actual");
            panic!(
                "golden {name}: no readable reference at {} ({e}); this render is at {}; \
                 run with {UPDATE_GOLDEN_VAR}=1 to accept it",
                path.display(),
                a.display()
            );
        }
    };
    match compare(name, &reference, actual, threshold) {
        Ok(mean) => eprintln!("golden {name}: mean FLIP {mean:.4} (threshold {threshold})"),
        Err(m) => panic!(
            "golden {name}: mean FLIP {:.4} is above {threshold}; actual: {}, difference: {}; \
             if the change is intended, rerun with {UPDATE_GOLDEN_VAR}=1",
            m.mean,
            m.actual.display(),
            m.difference.display()
        ),
    }
}
