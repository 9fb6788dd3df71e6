//! egui painted over a rendered frame (fl_render::ui::UiPainter): a filled rectangle lands at
//! its place in its exact sRGB colour while the scene around it is kept; text is drawn with real
//! glyphs (the default fonts are compiled in); a painter of another format refuses, never a
//! panic.

mod common;

use fl_render::sun::east_north_up;
use fl_render::{Camera, Frame, OffscreenTarget, Renderer, SkyParams, UiFrame, UiPainter};
use glam::DVec3;

const W: u32 = 160;
const H: u32 = 120;

fn sky_frame() -> Frame {
    let (lat, lon) = (36.27f64.to_radians(), -115.64f64.to_radians());
    let (_, n, u) = east_north_up(lat, lon);
    let pos = DVec3::new(0.0, -fl_render::frame::PLANET_RADIUS_M, 0.0)
        + fl_render::sun::geodetic_direction(lat, lon)
            * (fl_render::frame::PLANET_RADIUS_M + 1000.0);
    Frame {
        camera: Camera::looking_at(pos, pos + n, u, 60f64.to_radians())
            .with_aspect(f64::from(W) / f64::from(H)),
        sky: SkyParams::with_sun((u + n).normalize()),
        lights: Vec::new(),
        instances: Vec::new(),
        terrain: Vec::new(),
    }
}

/// One egui pass at `W`×`H` points, one pixel per point, painting with `draw`.
fn ui_frame(ctx: &egui::Context, draw: impl Fn(&egui::Painter)) -> UiFrame {
    let input = egui::RawInput {
        screen_rect: Some(egui::Rect::from_min_size(
            egui::Pos2::ZERO,
            egui::vec2(W as f32, H as f32),
        )),
        ..Default::default()
    };
    let out = ctx.run_ui(input, |ui| draw(ui.painter()));
    UiFrame::from_output(ctx, out)
}

fn px(img: &image::RgbaImage, x: u32, y: u32) -> [u8; 4] {
    img.get_pixel(x, y).0
}

#[test]
fn a_filled_rect_lands_in_place_in_its_srgb_colour_over_the_kept_scene() {
    let Some(gpu) = common::gpu() else { return };
    let mut renderer = Renderer::new(&gpu).expect("renderer");
    let frame = sky_frame();
    let scene = common::render(&gpu, &mut renderer, &frame, W, H);

    let target = OffscreenTarget::new(&gpu.device, W, H).expect("target");
    renderer
        .render_offscreen(&gpu, &frame, &target)
        .expect("render");
    let mut painter = UiPainter::for_offscreen(&gpu);
    let ctx = egui::Context::default();
    let colour = egui::Color32::from_rgb(200, 100, 50);
    let ui = ui_frame(&ctx, |p| {
        p.rect_filled(
            egui::Rect::from_min_max(egui::pos2(40.0, 30.0), egui::pos2(80.0, 60.0)),
            0.0,
            colour,
        );
    });
    painter
        .paint_offscreen(&gpu, &target, ui)
        .expect("paint ui");
    let img = target.read_rgba(&gpu.device, &gpu.queue).expect("readback");
    common::keep("ui_rect", &img);

    // Inside (away from the feathered edge): the colour as given, sRGB in, sRGB out.
    for (x, y) in [(42, 32), (60, 45), (77, 57)] {
        let p = px(&img, x, y);
        for (c, want) in p[..3].iter().zip([200u8, 100, 50]) {
            assert!(
                c.abs_diff(want) <= 2,
                "({x},{y}) = {p:?}, painted (200,100,50)"
            );
        }
    }
    // Outside: the scene, untouched (the pass loads instead of clearing).
    for (x, y) in [(5, 5), (38, 45), (82, 45), (60, 28), (60, 62), (150, 110)] {
        assert_eq!(px(&img, x, y), px(&scene, x, y), "scene pixel ({x},{y})");
    }
    // And the scene is not blank there (sky above, ground below).
    assert_ne!(px(&scene, 5, 5), px(&scene, 5, 115));
}

#[test]
fn text_is_drawn_with_real_glyphs() {
    let Some(gpu) = common::gpu() else { return };
    let target = OffscreenTarget::new(&gpu.device, W, H).expect("target");
    let mut painter = UiPainter::for_offscreen(&gpu);
    let ctx = egui::Context::default();
    let font = egui::FontId::monospace(40.0);
    // Black background first (a rect over the whole target), then an "I" and a "W".
    let ui = ui_frame(&ctx, |p| {
        p.rect_filled(
            egui::Rect::from_min_size(egui::Pos2::ZERO, egui::vec2(W as f32, H as f32)),
            0.0,
            egui::Color32::BLACK,
        );
        p.text(
            egui::pos2(40.0, 60.0),
            egui::Align2::CENTER_CENTER,
            "I",
            font.clone(),
            egui::Color32::WHITE,
        );
        p.text(
            egui::pos2(120.0, 60.0),
            egui::Align2::CENTER_CENTER,
            "W",
            font.clone(),
            egui::Color32::WHITE,
        );
    });
    painter
        .paint_offscreen(&gpu, &target, ui)
        .expect("paint ui");
    let img = target.read_rgba(&gpu.device, &gpu.queue).expect("readback");
    common::keep("ui_text", &img);
    let lit = |x0: u32, x1: u32| {
        img.enumerate_pixels()
            .filter(|(x, _, p)| (x0..x1).contains(x) && p.0[0] > 128)
            .count()
    };
    let (i, w) = (lit(0, 80), lit(80, W));
    // Without fonts both would be the same replacement box (the monospace I has serifs, so
    // the W has about 1.8 times its ink, not more).
    assert!(i > 20, "an I is drawn: {i} lit pixels");
    assert!(
        w * 10 > i * 14,
        "a W has far more ink than an I: {w} vs {i}"
    );
}

#[test]
fn a_painter_of_another_format_refuses_and_keeps_going() {
    let Some(gpu) = common::gpu() else { return };
    let target = OffscreenTarget::new(&gpu.device, W, H).expect("target");
    let mut painter = UiPainter::new(&gpu, wgpu::TextureFormat::Bgra8UnormSrgb);
    let ctx = egui::Context::default();
    let ui = ui_frame(&ctx, |p| {
        p.text(
            egui::pos2(10.0, 10.0),
            egui::Align2::LEFT_TOP,
            "x",
            egui::FontId::monospace(12.0),
            egui::Color32::WHITE,
        );
    });
    let err = painter
        .paint_offscreen(&gpu, &target, ui)
        .expect_err("format mismatch");
    assert!(err.to_string().contains("cannot paint"), "{err}");
    // A bad scale is refused too (after the textures were taken).
    let mut painter = UiPainter::for_offscreen(&gpu);
    let mut ui = ui_frame(&ctx, |_| {});
    ui.pixels_per_point = f32::NAN;
    assert!(painter.paint_offscreen(&gpu, &target, ui).is_err());
}
