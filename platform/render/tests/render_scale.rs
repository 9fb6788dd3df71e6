//! The render scale: the scene drawn smaller or larger than the output and resampled into it by
//! the tonemap pass. At scale 1 a hard edge has no partial pixels (no anti-aliasing); at 0.5 the
//! upscale softens it, at 2 the downscale averages four samples per pixel — either way the
//! square stays where it was and keeps its size.

mod common;

use fl_render::{Camera, Frame, Instance, OffscreenTarget, Renderer, SkyParams};
use glam::{DQuat, DVec3, Mat4};

const SIZE: u32 = 128;

struct Measure {
    /// Pixels fully red.
    full: usize,
    /// Pixels partly red (an edge that was filtered).
    partial: usize,
    /// Red-weighted centroid, pixels.
    centroid: (f64, f64),
    /// Red summed over the image, in units of one full pixel.
    area: f64,
}

fn measure(img: &image::RgbaImage) -> Measure {
    let full_red = img.pixels().map(|p| p.0[0]).max().unwrap_or(0);
    assert!(full_red > 100, "the square must show (max red {full_red})");
    let (mut full, mut partial, mut area, mut cx, mut cy) = (0, 0, 0.0, 0.0, 0.0);
    for (x, y, p) in img.enumerate_pixels() {
        let r = p.0[0];
        if r + 2 >= full_red {
            full += 1;
        } else if r > 8 {
            partial += 1;
        }
        // Coverage is judged on the encoded value: good enough to locate the square.
        let w = f64::from(r) / f64::from(full_red);
        area += w;
        cx += w * (f64::from(x) + 0.5);
        cy += w * (f64::from(y) + 0.5);
    }
    Measure {
        full,
        partial,
        centroid: (cx / area, cy / area),
        area,
    }
}

#[test]
fn the_scene_is_drawn_at_the_render_scale_and_resampled_into_the_output() {
    let Some(gpu) = common::gpu() else { return };
    let mut renderer = Renderer::new(&gpu).expect("renderer");
    let square = renderer.upload_model(
        &gpu,
        &common::glowing_square(40.0, [4.0, 0.0, 0.0]),
        Mat4::IDENTITY,
    );
    // High above the north pole, looking along −Z at a square turned 30° about the view axis,
    // so its edges are slanted and any staircase shows.
    let eye = DVec3::new(0.0, 10_000.0, 0.0);
    let camera = Camera::looking_at(eye, eye - DVec3::Z, DVec3::Y, 40f64.to_radians());
    let turn = DQuat::from_rotation_z(30f64.to_radians());
    let frame = Frame {
        camera,
        sky: SkyParams::studio(),
        lights: vec![],
        terrain: Vec::new(),
        instances: vec![Instance::new(square, eye - DVec3::Z * 150.0, turn)],
    };
    let mut images = Vec::new();
    for scale in [1.0f32, 0.5, 2.0] {
        // One renderer for every scale, as in the game when the setting changes.
        let target =
            OffscreenTarget::with_render_scale(&gpu.device, SIZE, SIZE, scale).expect("target");
        let side = (SIZE as f32 * scale).round() as u32;
        assert_eq!(
            target.scene_size(),
            (side, side),
            "scene size at scale {scale}"
        );
        renderer
            .render_offscreen(&gpu, &frame, &target)
            .expect("render");
        let img = target.read_rgba(&gpu.device, &gpu.queue).expect("readback");
        assert_eq!(
            img.dimensions(),
            (SIZE, SIZE),
            "output size at scale {scale}"
        );
        common::keep(&format!("render_scale_{scale}"), &img);
        images.push((scale, measure(&img)));
    }
    let base = &images[0].1;
    assert!(
        base.full > 1000,
        "the square covers a good part of the image"
    );
    // Scale 1 is the old path: every pixel is either the square or the background.
    assert_eq!(base.partial, 0, "scale 1 must not filter");
    for (scale, m) in &images[1..] {
        eprintln!(
            "scale {scale}: full {}, partial {}, area {:.1} (scale 1: {:.1}), centroid {:?} (scale 1: {:?})",
            m.full, m.partial, m.area, base.area, m.centroid, base.centroid
        );
        // Resampled edges: pixels of partial coverage along the slanted sides.
        assert!(m.partial > 40, "scale {scale}: edges must be filtered");
        // Same place (within a pixel) and size: the fully covered interior within 5 %. The
        // summed red is looser (15 %): edges are filtered in linear radiance before the
        // tonemap curve, which lifts a half-covered pixel above half brightness.
        assert!(
            (m.centroid.0 - base.centroid.0).abs() < 1.0,
            "scale {scale}"
        );
        assert!(
            (m.centroid.1 - base.centroid.1).abs() < 1.0,
            "scale {scale}"
        );
        assert!(
            (m.full as f64 / base.full as f64 - 1.0).abs() < 0.05,
            "scale {scale}"
        );
        assert!((m.area / base.area - 1.0).abs() < 0.15, "scale {scale}");
    }
}
