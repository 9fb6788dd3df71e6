//! Golden images of the world: the fixture pack's NTTR terrain (Copernicus DEM heights, ESA
//! WorldCover land cover) through fl-terrain's chunks and fl-render's terrain pipeline, from two
//! cameras at noon and at sunset, compared with NVIDIA FLIP (mean ≤ 0.03). Beside the
//! comparison each image is checked in words: no cracks (the lower part of the picture is
//! terrain everywhere, never the sky showing through), no black pixel, and from 3,500 m the sunlit slopes
//! are warmer at sunset than at noon.
//!
//! `FL_UPDATE_GOLDEN=1 cargo test -p fl-view --test world_golden` rewrites the references (look
//! at them first). Renders, and on a mismatch `-actual`/`-difference` images, are written under
//! `<target>/tmp/fl-view-golden/`. Attribution: tests/world-golden/NOTICE.

use std::path::Path;

use fl_render::sun::UtcTime;
use fl_render::{Frame, Gpu, OffscreenTarget, Renderer};
use fl_terrain::{Terrain, TerrainConfig};
use fl_view::world::{WorldView, render_world};

const THRESHOLD: f32 = 0.03;
const W: u32 = 320;
const H: u32 = 180;

fn gpu() -> Option<Gpu> {
    fl_fixtures::adapter_or_skip(Gpu::new())
}

fn golden_dirs() -> fl_golden::GoldenDirs {
    fl_golden::GoldenDirs::new(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/world-golden"),
        Path::new(env!("CARGO_TARGET_TMPDIR")).join("fl-view-golden"),
    )
}

fn check_golden(name: &str, actual: &image::RgbaImage) {
    golden_dirs().check(name, actual, THRESHOLD);
}

/// Fraction of pixels in rows `rows` where `a` and `b` are exactly the same colour (where the
/// terrain has a crack, the sky pass draws the very pixel the terrain-less frame has).
fn same_fraction(a: &image::RgbaImage, b: &image::RgbaImage, rows: std::ops::Range<u32>) -> f64 {
    let (mut same, mut n) = (0usize, 0usize);
    for y in rows {
        for x in 0..a.width() {
            let (p, q) = (a.get_pixel(x, y), b.get_pixel(x, y));
            if p == q {
                eprintln!("sky at ({x}, {y}): {p:?}");
                same += 1;
            }
            n += 1;
        }
    }
    same as f64 / n.max(1) as f64
}

/// Red over blue of the sunlit ground: the brightest tenth of the lower half's pixels (the
/// haze over shadowed ground is blue at any hour; the sun's light on slopes is what warms).
fn warmth(img: &image::RgbaImage) -> f64 {
    let mut px: Vec<[f64; 3]> = img
        .rows()
        .skip(img.height() as usize / 2)
        .flatten()
        .map(|p| [f64::from(p[0]), f64::from(p[1]), f64::from(p[2])])
        .collect();
    px.sort_by(|a, b| (b[0] + b[1] + b[2]).total_cmp(&(a[0] + a[1] + a[2])));
    let top = &px[..(px.len() / 10).max(1)];
    let r: f64 = top.iter().map(|p| p[0]).sum();
    let b: f64 = top.iter().map(|p| p[2]).sum();
    r / b.max(1.0)
}

fn noon() -> UtcTime {
    // Solar noon over NTTR on the June solstice (19:42 UTC at 115.6° W).
    UtcTime::new(2026, 6, 21, 19, 42, 0.0)
}

fn sunset() -> UtcTime {
    UtcTime::new(2026, 6, 22, 2, 50, 0.0)
}

/// Renders `view` with its terrain and, for the crack check, the same frame without terrain.
fn render_pair(
    gpu: &Gpu,
    renderer: &mut Renderer,
    terrain: &Terrain,
    name: &str,
    view: &WorldView,
) -> (image::RgbaImage, image::RgbaImage) {
    let (img, stats) = render_world(gpu, renderer, terrain, view).expect("render");
    let p = golden_dirs().output_path(&format!("{name}-render.png"));
    img.save(&p).expect("write render");
    eprintln!("render {name}: {} ({stats:?})", p.display());
    assert!(stats.drawn > 0, "{stats:?}");
    let bare = Frame {
        terrain: Vec::new(),
        ..fl_view::world::world_frame(view, &[])
    };
    let target = OffscreenTarget::new(&gpu.device, view.width, view.height).expect("target");
    renderer
        .render_offscreen(gpu, &bare, &target)
        .expect("render");
    let sky = target.read_rgba(&gpu.device, &gpu.queue).expect("readback");
    (img, sky)
}

fn nttr() -> Option<Terrain> {
    let pack = fl_fixtures::fixture_pack()?;
    let content = fl_view::pack::load_pack(&pack).expect("fixture pack loads");
    Some(Terrain::from_content(&content, TerrainConfig::default()))
}

fn views() -> [(&'static str, WorldView); 2] {
    // West from 3,500 m over the Indian Springs valley towards the Spring Mountains.
    let mut low = WorldView::new(36.27, -115.64, 3_500.0, 270.0, -5.0);
    // The Nevada ranges from 40 km up, looking north-west: the horizon curves.
    let mut high = WorldView::new(36.0, -115.2, 40_000.0, 315.0, -25.0);
    for v in [&mut low, &mut high] {
        v.width = W;
        v.height = H;
    }
    [("nttr_low", low), ("nttr_high", high)]
}

#[test]
fn nttr_terrain_from_two_cameras_at_noon_and_sunset() {
    let Some(terrain) = nttr() else { return };
    let Some(gpu) = gpu() else { return };
    let mut renderer = Renderer::new(&gpu).expect("renderer");
    for (name, view) in views() {
        let mut warm = Vec::new();
        for (when, time) in [("noon", noon()), ("sunset", sunset())] {
            let v = WorldView { time, ..view };
            let full = format!("{name}_{when}");
            let (img, sky) = render_pair(&gpu, &mut renderer, &terrain, &full, &v);
            // No cracks: below the horizon the sky never shows through the terrain.
            let lower = H * 3 / 5..H;
            let through = same_fraction(&img, &sky, lower);
            eprintln!("{full}: {through:.6} of the lower picture shows the sky");
            assert!(
                through == 0.0,
                "{full}: {through:.6} of the lower picture is sky"
            );
            // No black: every pixel has some light (a missing chunk or a NaN would be black).
            let dark = img
                .pixels()
                .filter(|p| u32::from(p[0]) + u32::from(p[1]) + u32::from(p[2]) < 6)
                .count();
            assert_eq!(dark, 0, "{full}: {dark} black pixels");
            warm.push(warmth(&img));
            check_golden(&full, &img);
        }
        // From low down the sun's light on the slopes reddens at sunset. (From 40 km the view
        // at dusk is the blue veil of the air over twilit ground, so no warmth claim there.)
        if name == "nttr_low" {
            assert!(
                warm[1] > warm[0] * 1.1,
                "{name}: sunset {:.2} vs noon {:.2}",
                warm[1],
                warm[0]
            );
        }
    }
}
