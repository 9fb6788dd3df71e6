//! Golden images on the machine's adapter (lavapipe here), compared with NVIDIA FLIP: the F-16A
//! lit from three axes (axis and handedness), the sky at noon and at sunset over Nevada, an
//! aircraft over Nevada with no jitter between cameras a millimetre apart, and no z-fighting
//! between surfaces a metre apart at 30 km. `FL_UPDATE_GOLDEN=1` rewrites the references;
//! a mismatch writes `-actual` and `-difference` PNGs and prints their paths.

mod common;

use std::path::Path;

use fl_render::frame::PLANET_RADIUS_M;
use fl_render::model::ModelFamily;
use fl_render::sun::{UtcTime, east_north_up, geodetic_direction};
use fl_render::{Camera, DirectionalLight, Frame, Instance, LodHint, Renderer, SkyParams};
use glam::{DQuat, DVec3, Mat4, Vec3, Vec4};

const SIZE: u32 = 256;
/// Mean FLIP allowed against a reference (the 0.01–0.05 range).
const THRESHOLD: f32 = 0.02;

fn nevada(lat: f64, lon: f64, alt: f64) -> DVec3 {
    DVec3::new(0.0, -PLANET_RADIUS_M, 0.0)
        + geodetic_direction(lat.to_radians(), lon.to_radians()) * (PLANET_RADIUS_M + alt)
}

/// A camera at `pos` looking along compass heading/pitch (degrees) in the local frame.
fn camera_enu(pos: DVec3, lat: f64, lon: f64, heading: f64, pitch: f64, fov_deg: f64) -> Camera {
    let (e, n, u) = east_north_up(lat.to_radians(), lon.to_radians());
    let (h, p) = (heading.to_radians(), pitch.to_radians());
    let fwd = (e * h.sin() + n * h.cos()) * p.cos() + u * p.sin();
    Camera::looking_at(pos, pos + fwd, u, fov_deg.to_radians())
}

/// Pixels that are not the (black) studio background.
fn covered(img: &image::RgbaImage) -> Vec<(u32, u32, [u8; 4])> {
    img.enumerate_pixels()
        .filter(|(_, _, p)| p.0[0].max(p.0[1]).max(p.0[2]) > 10)
        .map(|(x, y, p)| (x, y, p.0))
        .collect()
}

/// Where a world point lands on a `SIZE`² image of `camera` (pixel x, y; y down).
fn project(camera: &Camera, p: DVec3) -> (f32, f32) {
    let m = fl_render::camera::CameraMatrices::new(camera);
    let rel = (p - camera.position).as_vec3();
    let c = m.view_proj * Vec4::new(rel.x, rel.y, rel.z, 1.0);
    let ndc = c.truncate() / c.w;
    (
        (ndc.x * 0.5 + 0.5) * SIZE as f32,
        (0.5 - ndc.y * 0.5) * SIZE as f32,
    )
}

fn sum_rgb(px: &[(u32, u32, [u8; 4])], keep: impl Fn(u32, u32) -> bool) -> [u64; 3] {
    let mut s = [0u64; 3];
    for &(x, y, c) in px {
        if keep(x, y) {
            for i in 0..3 {
                s[i] += u64::from(c[i]);
            }
        }
    }
    s
}

#[test]
fn f16a_lit_from_three_axes() {
    let Some(dir) = common::f16a_dir() else {
        return;
    };
    let Some(gpu) = common::gpu() else { return };
    let mut renderer = Renderer::new(&gpu).expect("renderer");
    let family = ModelFamily::load(&dir, "f16a").expect("f16a family");
    let model = renderer.upload_family(&gpu, &family);
    // Identity orientation: nose along world −Z, right wing +X, up +Y (the body frame).
    let pos = DVec3::new(0.0, 1000.0, 0.0);
    let mut inst = Instance::new(model, pos, DQuat::IDENTITY);
    inst.lod = LodHint::Base;
    // The mesh runs from the nose (body z ≈ −0.5) to the tail (≈ +16): aim at its middle.
    let centre = pos + DVec3::new(0.0, 0.3, 7.7);
    let nose = pos
        + family
            .body_from_mesh
            .transform_point3(Vec3::new(0.0, 0.0, 0.54))
            .as_dvec3();
    assert!(
        (nose - pos - DVec3::new(0.0, 0.0, -0.54)).length() < 1e-3,
        "the mesh nose maps to body −Z"
    );
    let lights = vec![
        DirectionalLight {
            direction: Vec3::X,
            color: Vec3::new(3.0, 0.0, 0.0),
        },
        DirectionalLight {
            direction: Vec3::Y,
            color: Vec3::new(0.0, 3.0, 0.0),
        },
        DirectionalLight {
            direction: Vec3::Z,
            color: Vec3::new(0.0, 0.0, 3.0),
        },
    ];
    let frame = |camera: Camera| Frame {
        camera,
        sky: SkyParams::studio(),
        lights: lights.clone(),
        terrain: Vec::new(),
        instances: vec![inst.clone()],
    };

    // Side view from +X (the right side): image right is world −Z, so the nose points right;
    // the red (+X) light lights the side we see, the green (+Y) light the top.
    let side = Camera::looking_at(
        centre + DVec3::new(26.0, 0.0, 0.0),
        centre,
        DVec3::Y,
        40f64.to_radians(),
    );
    let img = common::render(&gpu, &mut renderer, &frame(side), SIZE, SIZE);
    common::keep("f16a_side", &img);
    let px = covered(&img);
    assert!(
        px.len() > 2000,
        "the aircraft is visible from the side ({} px)",
        px.len()
    );
    let max_x = px.iter().map(|p| p.0).max().unwrap_or(0) as f32;
    let min_x = px.iter().map(|p| p.0).min().unwrap_or(0) as f32;
    let (nose_x, _) = project(&side, nose);
    // The needle nose is thinner than a pixel at its tip, hence the margin.
    assert!(
        (max_x - nose_x).abs() < 12.0 && nose_x - min_x > 150.0,
        "side view: the nose ({nose_x}) is the right end ({min_x}..{max_x})"
    );
    let s = sum_rgb(&px, |_, _| true);
    assert!(
        s[0] > 2 * s[2],
        "side view: lit red by +X, not blue by +Z: {s:?}"
    );
    common::check_golden("f16a_side", &img, THRESHOLD);

    // Top view, north (−Z) up: the nose at the top, the right wing (+X) on the right.
    let top = Camera::looking_at(
        centre + DVec3::new(0.0, 26.0, 0.0),
        centre,
        DVec3::NEG_Z,
        40f64.to_radians(),
    );
    let img = common::render(&gpu, &mut renderer, &frame(top), SIZE, SIZE);
    common::keep("f16a_top", &img);
    let px = covered(&img);
    let min_y = px.iter().map(|p| p.1).min().unwrap_or(SIZE) as f32;
    let (_, nose_y) = project(&top, nose);
    assert!(
        (min_y - nose_y).abs() < 12.0,
        "top view: the nose ({nose_y}) is the top end ({min_y})"
    );
    let s = sum_rgb(&px, |_, _| true);
    assert!(
        s[1] > s[0] && s[1] > s[2],
        "top view: lit green from above: {s:?}"
    );
    let right = sum_rgb(&px, |x, _| x >= SIZE / 2);
    let left = sum_rgb(&px, |x, _| x < SIZE / 2);
    assert!(
        right[0] > 2 * left[0],
        "top view: the +X (red) light reaches the right wing's side: {right:?} vs {left:?}"
    );
    common::check_golden("f16a_top", &img, THRESHOLD);

    // Front view, from ahead of the nose looking aft: the aircraft's right (+X, red) is on the
    // image's left.
    let front = Camera::looking_at(
        centre + DVec3::new(0.0, 2.0, -24.0),
        centre,
        DVec3::Y,
        40f64.to_radians(),
    );
    let img = common::render(&gpu, &mut renderer, &frame(front), SIZE, SIZE);
    common::keep("f16a_front", &img);
    let px = covered(&img);
    let right = sum_rgb(&px, |x, _| x >= SIZE / 2);
    let left = sum_rgb(&px, |x, _| x < SIZE / 2);
    assert!(
        left[0] > 2 * right[0],
        "front view: red (+X) on the image's left: {left:?} vs {right:?}"
    );
    let s = sum_rgb(&px, |_, _| true);
    assert!(
        s[2] * 4 < s[0] + s[1],
        "front view: the blue (+Z, aft) light is behind: {s:?}"
    );
    common::check_golden("f16a_front", &img, THRESHOLD);
}

fn sky_frame(time: UtcTime, heading: f64, pitch: f64, fov: f64) -> Frame {
    let (lat, lon) = (36.27, -115.64);
    let camera = camera_enu(nevada(lat, lon, 1500.0), lat, lon, heading, pitch, fov);
    Frame {
        camera,
        sky: SkyParams::at(time),
        lights: Vec::new(),
        terrain: Vec::new(),
        instances: Vec::new(),
    }
}

#[test]
fn sky_at_noon_and_sunset_over_nevada() {
    let Some(gpu) = common::gpu() else { return };
    let mut renderer = Renderer::new(&gpu).expect("renderer");
    // Noon: looking south, the sun high (77°) near the top of the view.
    let noon_frame = sky_frame(UtcTime::new(2026, 6, 21, 19, 42, 0.0), 180.0, 35.0, 90.0);
    let noon = common::render(&gpu, &mut renderer, &noon_frame, SIZE, SIZE);
    common::keep("sky_noon", &noon);
    // The sun's disc is where the ephemeris puts it: the brightest pixel is the projection of
    // the sun's direction (ephemeris → world → camera → screen, end to end).
    let brightest = noon
        .enumerate_pixels()
        .max_by_key(|(_, _, p)| u32::from(p.0[0]) + u32::from(p.0[1]) + u32::from(p.0[2]))
        .map(|(x, y, _)| (x as f32, y as f32))
        .unwrap_or_default();
    let sun = project(
        &noon_frame.camera,
        noon_frame.camera.position + noon_frame.sky.sun_direction * 1e6,
    );
    assert!(
        (brightest.0 - sun.0).abs() < 3.0 && (brightest.1 - sun.1).abs() < 3.0,
        "the sun's disc at {brightest:?}, the ephemeris says {sun:?}"
    );
    // Blue above, brighter and paler towards the horizon, the ground darker below it.
    let at = |img: &image::RgbaImage, x: u32, y: u32| img.get_pixel(x, y).0;
    let zenithward = at(&noon, SIZE / 2, 40);
    assert!(
        i32::from(zenithward[2]) > i32::from(zenithward[0]) + 30,
        "noon sky is blue: {zenithward:?}"
    );
    common::check_golden("sky_noon", &noon, THRESHOLD);
    // Sunset: looking at the sun (azimuth 300°) just above the horizon.
    let sunset = common::render(
        &gpu,
        &mut renderer,
        &sky_frame(UtcTime::new(2026, 6, 22, 2, 50, 0.0), 300.0, 5.0, 60.0),
        SIZE,
        SIZE,
    );
    common::keep("sky_sunset", &sunset);
    let glow = at(&sunset, SIZE / 2, SIZE / 2 + 10);
    assert!(
        i32::from(glow[0]) > i32::from(glow[2]) + 20,
        "sunset glow is warm: {glow:?}"
    );
    // Away from the sun (the top of the view, ~35° up) the sky turns bluer than the glow.
    let high = at(&sunset, SIZE / 2, 5);
    let blueness = |p: [u8; 4]| i32::from(p[2]) - i32::from(p[0]);
    assert!(
        blueness(high) > blueness(glow) + 40,
        "sky above the glow is bluer: {high:?} vs {glow:?}"
    );
    common::check_golden("sky_sunset", &sunset, THRESHOLD);
}

#[test]
fn aircraft_over_nevada_does_not_jitter() {
    let Some(dir) = common::f16a_dir() else {
        return;
    };
    let Some(gpu) = common::gpu() else { return };
    let mut renderer = Renderer::new(&gpu).expect("renderer");
    let family = ModelFamily::load(&dir, "f16a").expect("f16a family");
    let model = renderer.upload_family(&gpu, &family);
    let (lat, lon) = (36.27, -115.64);
    let pos = nevada(lat, lon, 2500.0);
    assert!(
        pos.length() > 5.5e6,
        "about 5,900 km from the origin: {}",
        pos.length()
    );
    let (e, n, u) = east_north_up(lat.to_radians(), lon.to_radians());
    // Heading west (270°), 20° of bank: body −Z along west, +Y up, rolled about the nose.
    let body = glam::DMat3::from_cols(n, u, e); // X right = north, Y up, Z aft = east
    let orientation = DQuat::from_mat3(&body) * DQuat::from_rotation_z(-20f64.to_radians());
    let inst = Instance::new(model, pos, orientation.normalize());
    let cam_pos = pos + e * 19.0 + n * -27.0 + u * 5.0;
    let camera = Camera::looking_at(cam_pos, pos + e * 7.0, u, 45f64.to_radians());
    let time = UtcTime::new(2026, 6, 21, 18, 0, 0.0);
    let frame = |camera: Camera| Frame {
        camera,
        sky: SkyParams::at(time),
        lights: Vec::new(),
        terrain: Vec::new(),
        instances: vec![inst.clone()],
    };
    let a = common::render(&gpu, &mut renderer, &frame(camera), SIZE, SIZE);
    let mut moved = camera;
    moved.position += DVec3::new(1.0, 1.0, 1.0).normalize() * 0.001;
    let b = common::render(&gpu, &mut renderer, &frame(moved), SIZE, SIZE);
    let (mean, _) = common::flip_mean(&a, &b);
    let differing = a.pixels().zip(b.pixels()).filter(|(p, q)| p != q).count();
    eprintln!(
        "1 mm camera move at {:.0} km from the origin: mean FLIP {mean:.5}, {differing} pixels differ",
        pos.length() / 1000.0
    );
    assert!(
        mean < 0.002,
        "a 1 mm camera move changed the image: mean FLIP {mean}"
    );
    // Flying on: the aircraft and the chasing camera both move (0.37 m steps, a rate at which
    // f32 world positions, 0.5 m apart out here, would round differently each frame). The
    // relative geometry is unchanged, so the image must be too; f32 subtraction on the GPU
    // would shift the aircraft against the camera by up to half a metre from frame to frame.
    for k in 1..=4 {
        let step = e * (0.37 * f64::from(k)) + n * (0.11 * f64::from(k));
        let mut cam_k = camera;
        cam_k.position += step;
        let mut inst_k = inst.clone();
        inst_k.position += step;
        let img = common::render(
            &gpu,
            &mut renderer,
            &Frame {
                terrain: Vec::new(),
                instances: vec![inst_k],
                ..frame(cam_k)
            },
            SIZE,
            SIZE,
        );
        let (mean, _) = common::flip_mean(&a, &img);
        assert!(
            mean < 0.002,
            "moving {:.2} m with the camera changed the image: mean FLIP {mean}",
            step.length()
        );
    }
    // The aircraft fills a good part of the frame (the comparison is about it, not the sky).
    let sky_only = common::render(
        &gpu,
        &mut renderer,
        &Frame {
            terrain: Vec::new(),
            instances: vec![],
            ..frame(camera)
        },
        SIZE,
        SIZE,
    );
    let aircraft_px = a
        .pixels()
        .zip(sky_only.pixels())
        .filter(|(p, q)| p != q)
        .count();
    assert!(aircraft_px > 3000, "aircraft covers {aircraft_px} px");
    common::check_golden("nevada_no_jitter", &a, THRESHOLD);
    common::check_golden("nevada_no_jitter", &b, THRESHOLD);
}

#[test]
fn surfaces_a_metre_apart_at_30_km_do_not_z_fight() {
    let Some(gpu) = common::gpu() else { return };
    let mut renderer = Renderer::new(&gpu).expect("renderer");
    let red = renderer.upload_model(
        &gpu,
        &common::glowing_square(6000.0, [4.0, 0.0, 0.0]),
        Mat4::IDENTITY,
    );
    let blue = renderer.upload_model(
        &gpu,
        &common::glowing_square(6000.0, [0.0, 0.0, 4.0]),
        Mat4::IDENTITY,
    );
    let (lat, lon) = (36.27, -115.64);
    let cam_pos = nevada(lat, lon, 3000.0);
    let (_, n, u) = east_north_up(lat.to_radians(), lon.to_radians());
    let camera = Camera::looking_at(cam_pos, cam_pos + n, u, 10f64.to_radians());
    // Squares face the camera: their +Z towards it (−north).
    let (e, _, _) = east_north_up(lat.to_radians(), lon.to_radians());
    let facing = DQuat::from_mat3(&glam::DMat3::from_cols(e, u, -n));
    let frame = |red_m: f64, blue_m: f64| Frame {
        camera,
        sky: SkyParams::studio(),
        lights: vec![],
        terrain: Vec::new(),
        instances: vec![
            Instance::new(red, cam_pos + n * red_m, facing),
            Instance::new(blue, cam_pos + n * blue_m, facing),
        ],
    };
    let count = |img: &image::RgbaImage| {
        let reds = img.pixels().filter(|p| p.0[0] > 100 && p.0[2] < 30).count();
        let blues = img.pixels().filter(|p| p.0[2] > 100 && p.0[0] < 30).count();
        (reds, blues)
    };
    let total = (SIZE * SIZE) as usize;
    // Red in front by a metre, then blue in front by a metre: each time only the nearer shows,
    // so the depth test, not the draw order, decides.
    let img = common::render(&gpu, &mut renderer, &frame(30_000.0, 30_001.0), SIZE, SIZE);
    common::keep("zfight_red_nearer", &img);
    let (r, b) = count(&img);
    assert_eq!(
        (r, b),
        (total, 0),
        "red nearer: {r} red, {b} blue of {total}"
    );
    let (r, b) = count(&common::render(
        &gpu,
        &mut renderer,
        &frame(30_001.0, 30_000.0),
        SIZE,
        SIZE,
    ));
    assert_eq!(
        (r, b),
        (0, total),
        "blue nearer: {r} red, {b} blue of {total}"
    );
}

#[test]
fn the_golden_harness_fails_on_a_changed_image() {
    // A reference and a copy with a patch painted over it: the comparison must fail and leave
    // the -actual and -difference images where it says.
    let reference = image::RgbaImage::from_fn(SIZE, SIZE, |x, y| {
        image::Rgba([(x % 256) as u8, (y % 256) as u8, 128, 255])
    });
    let mut changed = reference.clone();
    for y in 64..192 {
        for x in 64..192 {
            changed.put_pixel(x, y, image::Rgba([255, 255, 255, 255]));
        }
    }
    assert!(common::compare("harness_same", &reference, &reference, THRESHOLD).is_ok());
    let m =
        common::compare("harness_changed", &reference, &changed, THRESHOLD).expect_err("must fail");
    assert!(m.mean > THRESHOLD);
    assert!(Path::new(&m.actual).is_file() && Path::new(&m.difference).is_file());
    eprintln!(
        "changed image: mean FLIP {:.3}; wrote {} and {}",
        m.mean,
        m.actual.display(),
        m.difference.display()
    );
}

#[test]
fn formation_of_128_aircraft() {
    let Some(dir) = common::f16a_dir() else {
        return;
    };
    let Some(gpu) = common::gpu() else { return };
    let mut renderer = Renderer::new(&gpu).expect("renderer");
    let family = ModelFamily::load(&dir, "f16a").expect("f16a family");
    let model = renderer.upload_family(&gpu, &family);
    let (lat, lon) = (36.27, -115.64);
    let (e, n, u) = east_north_up(f64::to_radians(lat), f64::to_radians(lon));
    let cam_pos = nevada(lat, lon, 3000.0);
    // 16 × 8 aircraft heading north, 150 m to 1.7 km ahead, in three altitude layers; the view
    // looks north and a little down, so near ones get the base mesh and far ones the LODs.
    let q = DQuat::from_mat3(&glam::DMat3::from_cols(e, u, -n));
    let instances: Vec<Instance> = (0..128)
        .map(|i| {
            let (a, b) = (f64::from(i % 16), f64::from(i / 16));
            let p = cam_pos
                + n * (150.0 + b * 220.0)
                + e * ((a - 7.5) * 45.0)
                + u * ((a + b) % 3.0 * 15.0 - 40.0);
            Instance::new(model, p, q)
        })
        .collect();
    let camera = Camera::looking_at(cam_pos, cam_pos + n - u * 0.08, u, 50f64.to_radians());
    let frame = Frame {
        camera,
        sky: SkyParams::at(UtcTime::new(2026, 6, 21, 18, 30, 0.0)),
        lights: Vec::new(),
        terrain: Vec::new(),
        instances,
    };
    let img = common::render(&gpu, &mut renderer, &frame, SIZE, SIZE);
    common::keep("formation_128", &img);
    let stats = renderer.last_frame_stats();
    eprintln!("128 aircraft: {stats:?}");
    assert_eq!(stats.instances, 128);
    assert!(
        stats.parts + stats.culled == 128 && stats.parts > 60,
        "{stats:?}"
    );
    // Several levels of detail are in use at once (base up close, LODs far away).
    assert!(stats.batches >= 2, "{stats:?}");
    common::check_golden("formation_128", &img, THRESHOLD);
}
