//! One offscreen picture of a model family in daylight, for looking at a model by eye:
//! `cargo run -p fl-render --example shot -- <model dir> <stem> <out.png> [WxH]`
//! (e.g. `…/fl-base-pack/aircraft/f16a f16a /tmp/f16a.png 1280x720`). The modder's real tool is
//! fl-view; this is the renderer's own smallest end-to-end use.

use std::path::Path;

use fl_render::model::ModelFamily;
use fl_render::sun::{UtcTime, east_north_up, geodetic_direction};
use fl_render::{Camera, Frame, Gpu, Instance, LodHint, OffscreenTarget, Renderer, SkyParams};
use glam::{DMat3, DQuat, DVec3};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().collect();
    if args.len() < 4 {
        eprintln!("usage: shot <model dir> <stem> <out.png> [WxH]");
        std::process::exit(2);
    }
    let (w, h) = match args.get(4).and_then(|s| s.split_once('x')) {
        Some((w, h)) => (w.parse()?, h.parse()?),
        None => (1280u32, 720u32),
    };
    let gpu = Gpu::new()?;
    let mut renderer = Renderer::new(&gpu)?;
    let family = ModelFamily::load(Path::new(&args[1]), &args[2])?;
    for w in &family.warnings {
        eprintln!("warning: {w}");
    }
    let model = renderer.upload_family(&gpu, &family);
    // Over Nevada at 2 km, heading north-west, a summer afternoon.
    let (lat, lon) = (36.27f64.to_radians(), -115.64f64.to_radians());
    let (e, n, u) = east_north_up(lat, lon);
    let pos = DVec3::new(0.0, -fl_render::frame::PLANET_RADIUS_M, 0.0)
        + geodetic_direction(lat, lon) * (fl_render::frame::PLANET_RADIUS_M + 2000.0);
    let fwd = (n - e).normalize();
    let right = fwd.cross(u);
    let q = DQuat::from_mat3(&DMat3::from_cols(right, u, -fwd));
    let mut inst = Instance::new(model, pos, q);
    inst.lod = LodHint::Base;
    let centre = pos - fwd * 7.5;
    let eye = centre + (fwd * 0.6 + right * 1.0 + u * 0.35).normalize() * 20.0;
    let camera = Camera::looking_at(eye, centre, u, 45f64.to_radians())
        .with_aspect(f64::from(w) / f64::from(h));
    let frame = Frame {
        camera,
        sky: SkyParams::at(UtcTime::new(2026, 6, 21, 22, 0, 0.0)),
        lights: vec![],
        terrain: Vec::new(),
        instances: vec![inst],
    };
    let target = OffscreenTarget::new(&gpu.device, w, h)?;
    renderer.render_offscreen(&gpu, &frame, &target)?;
    target.save_png(&gpu.device, &gpu.queue, Path::new(&args[3]))?;
    println!(
        "{} ({}): {}",
        args[3],
        gpu.info.name,
        family.base.path.display()
    );
    Ok(())
}
