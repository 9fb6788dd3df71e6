//! Sun shadows: an aircraft (the builtin silhouette) 10 m above a flat terrain chunk darkens the
//! ground where the sun direction puts its shadow and nowhere else, and casts nothing with the
//! sun below the horizon; a golden image; the shadow map's cost at 1280 × 720 (printed).

mod common;

use fl_render::model::ModelFamily;
use fl_render::model::silhouette::silhouette;
use fl_render::terrain::TerrainChunk;
use fl_render::{Camera, Category, Frame, Instance, Renderer, SkyParams};
use glam::{DQuat, DVec3};

const SIZE: u32 = 256;

/// A flat square chunk of `half_m` around the world origin (Y up there), grassland.
fn flat_chunk() -> TerrainChunk {
    const N: usize = 41;
    let half_m = 100.0f32;
    let mut c = TerrainChunk {
        key: 1,
        origin: DVec3::ZERO,
        ..TerrainChunk::default()
    };
    for j in 0..N {
        for i in 0..N {
            let s = |k: usize| -half_m + 2.0 * half_m * k as f32 / (N - 1) as f32;
            c.positions.push([s(i), 0.0, s(j)]);
            c.normals.push([0.0, 1.0, 0.0]);
            c.land_cover.push(30);
        }
    }
    for j in 0..N - 1 {
        for i in 0..N - 1 {
            let a = (j * N + i) as u32;
            let (b, cc) = (a + 1, a + N as u32);
            let d = cc + 1;
            c.indices.extend_from_slice(&[a, cc, d, a, d, b]);
        }
    }
    c
}

/// Looking straight down from 100 m over the origin (image up = world −Z, right = +X); the
/// aircraft's origin 10 m above the ground, nose towards −Z.
fn frame(sun: DVec3, aircraft: Option<Instance>) -> Frame {
    Frame {
        camera: Camera {
            position: DVec3::new(0.0, 100.0, 0.0),
            orientation: DQuat::from_rotation_x(-std::f64::consts::FRAC_PI_2),
            vertical_fov_rad: 60f64.to_radians(),
            aspect: 1.0,
            near_m: 0.25,
        },
        sky: SkyParams {
            exposure: Some(1.0),
            ..SkyParams::with_sun(sun)
        },
        lights: Vec::new(),
        instances: aircraft.into_iter().collect(),
        terrain: vec![1],
    }
}

/// The pixel where a ground point (x, 0, z) projects (focal length 221.7 px at 60°).
fn ground_px(x: f64, z: f64) -> (u32, u32) {
    let f = 128.0 / 30f64.to_radians().tan();
    (
        (128.0 + f * x / 100.0).round() as u32,
        (128.0 + f * z / 100.0).round() as u32,
    )
}

fn lum(img: &image::RgbaImage, (x, y): (u32, u32)) -> f64 {
    // A 3 × 3 mean, so one edge pixel does not decide.
    let mut s = 0.0;
    for dy in 0..3 {
        for dx in 0..3 {
            let p = img.get_pixel(x + dx - 1, y + dy - 1).0;
            s += 0.2126 * f64::from(p[0]) + 0.7152 * f64::from(p[1]) + 0.0722 * f64::from(p[2]);
        }
    }
    s / 9.0
}

#[test]
fn an_aircraft_casts_its_shadow_where_the_sun_says() {
    let Some(gpu) = common::gpu() else { return };
    let mut renderer = Renderer::new(&gpu).expect("renderer");
    renderer.upload_terrain(&gpu, &flat_chunk()).expect("chunk");
    let aircraft = Instance::new(
        renderer.silhouette(Category::Aircraft),
        DVec3::new(0.0, 10.0, 0.0),
        DQuat::IDENTITY,
    );
    // The sun 45° up in the east (+X): the shadow falls 10 m west (−X) of the aircraft.
    let sun = DVec3::new(1.0, 1.0, 0.0).normalize();
    let lit = common::render(
        &gpu,
        &mut renderer,
        &frame(sun, Some(aircraft.clone())),
        SIZE,
        SIZE,
    );
    common::keep("shadow_aircraft", &lit);
    let bare = common::render(&gpu, &mut renderer, &frame(sun, None), SIZE, SIZE);
    // Under the fuselage's shadow (x −10, z −5: the forward fuselage, clear of the wings) and
    // under the left wing's shadow (x −12, z 1.5), against the same ground without the aircraft
    // and the mirror point east of it.
    for (x, z) in [(-10.0, -5.0), (-12.0, 1.5)] {
        let (under, none) = (lum(&lit, ground_px(x, z)), lum(&bare, ground_px(x, z)));
        let mirror = lum(&lit, ground_px(-x, z));
        eprintln!(
            "ground ({x}, {z}): {under:.1} with the aircraft, {none:.1} without, mirror {mirror:.1}"
        );
        assert!(
            under < 0.7 * none,
            "no shadow at ({x}, {z}): {under} vs {none}"
        );
        assert!(
            under < 0.7 * mirror,
            "shadow also east at ({x}, {z}): {under} vs {mirror}"
        );
        // Daylight shadows are lit by the sky: blue-grey, not black (before the sky's multiple
        // scattering was counted: 11 against 121).
        assert!(
            under > 0.2 * none,
            "shadow at ({x}, {z}) nearly black: {under} vs {none}"
        );
        let (s, l) = (
            lit.get_pixel(ground_px(x, z).0, ground_px(x, z).1),
            bare.get_pixel(ground_px(x, z).0, ground_px(x, z).1),
        );
        assert!(
            f64::from(s[2]) / f64::from(s[0].max(1)) > f64::from(l[2]) / f64::from(l[0].max(1)),
            "shadow at ({x}, {z}) not bluer than the sunlit ground: {s:?} vs {l:?}"
        );
    }
    // Where no shadow can fall (east, and far west) the ground is unchanged.
    for (x, z) in [(10.0, -5.0), (12.0, 1.5), (-30.0, -5.0), (0.0, 20.0)] {
        let p = ground_px(x, z);
        assert!(
            (lum(&lit, p) - lum(&bare, p)).abs() < 1.0,
            "ground ({x}, {z}) changed: {} vs {}",
            lum(&lit, p),
            lum(&bare, p)
        );
    }
    common::check_golden("shadow_aircraft", &lit, 0.02);

    // The sun below the horizon: nothing cast (the pixels where the shadow would be are those of
    // the bare ground).
    let set = DVec3::new(1.0, -0.05, 0.0).normalize();
    let night = common::render(&gpu, &mut renderer, &frame(set, Some(aircraft)), SIZE, SIZE);
    let night_bare = common::render(&gpu, &mut renderer, &frame(set, None), SIZE, SIZE);
    for (x, z) in [(-10.0, -5.0), (-12.0, 1.5), (-40.0, -5.0)] {
        let p = ground_px(x, z);
        assert_eq!(night.get_pixel(p.0, p.1), night_bare.get_pixel(p.0, p.1));
    }
}

#[test]
fn a_family_casts_from_its_shadow_mesh() {
    let Some(gpu) = common::gpu() else { return };
    let mut renderer = Renderer::new(&gpu).expect("renderer");
    renderer.upload_terrain(&gpu, &flat_chunk()).expect("chunk");
    // The aircraft silhouette drawn, with the 20 m structure box as its `_shadow` mesh: the
    // ground shaded is the box's shadow, not the aircraft's.
    let family = |shadow| ModelFamily {
        base: silhouette(Category::Aircraft),
        lods: Vec::new(),
        shadow,
        cockpit: None,
        camera_anchor: None,
        body_from_mesh: glam::Mat4::IDENTITY,
        warnings: Vec::new(),
    };
    let with_proxy = renderer.upload_family(&gpu, &family(Some(silhouette(Category::Structure))));
    let plain = renderer.upload_family(&gpu, &family(None));
    let sun = DVec3::new(1.0, 1.0, 0.0).normalize();
    let at = |h| {
        Some(Instance::new(
            h,
            DVec3::new(0.0, 10.0, 0.0),
            DQuat::IDENTITY,
        ))
    };
    let proxy = common::render(&gpu, &mut renderer, &frame(sun, at(with_proxy)), SIZE, SIZE);
    common::keep("shadow_proxy", &proxy);
    let model = common::render(&gpu, &mut renderer, &frame(sun, at(plain)), SIZE, SIZE);
    // (−20, −8) lies in the box's shadow (x −30…0, z ±10) and outside the aircraft's.
    let p = ground_px(-20.0, -8.0);
    let (a, b) = (lum(&proxy, p), lum(&model, p));
    assert!(a < 0.7 * b, "the shadow mesh does not cast: {a} vs {b}");
    // The aircraft, not the box, is what is seen: the pixel 8 m east at z −8 is ground in both.
    let q = ground_px(8.0, -8.0);
    assert!((lum(&proxy, q) - lum(&model, q)).abs() < 1.0);
}

#[test]
fn shadow_cost_at_1280x720() {
    let Some(gpu) = common::gpu() else { return };
    let mut renderer = Renderer::new(&gpu).expect("renderer");
    renderer.upload_terrain(&gpu, &flat_chunk()).expect("chunk");
    let target = fl_render::OffscreenTarget::new(&gpu.device, 1280, 720).expect("target");
    let aircraft = renderer.silhouette(Category::Aircraft);
    // 16 aircraft over the chunk.
    let many: Vec<Instance> = (0..16)
        .map(|i| {
            let (x, z) = (
                f64::from(i % 4) * 20.0 - 30.0,
                f64::from(i / 4) * 20.0 - 30.0,
            );
            Instance::new(aircraft, DVec3::new(x, 10.0, z), DQuat::IDENTITY)
        })
        .collect();
    for (name, sun) in [
        (
            "sun below the horizon (no shadow map)",
            DVec3::new(1.0, -0.05, 0.0),
        ),
        (
            "sun up (shadow map drawn and sampled)",
            DVec3::new(1.0, 1.0, 0.0),
        ),
    ] {
        let mut f = frame(sun.normalize(), None);
        f.instances = many.clone();
        f.camera.aspect = 1280.0 / 720.0;
        let median = common::median_frame_ms(&gpu, &mut renderer, &f, &target);
        eprintln!(
            "shadows 1280x720, terrain + 16 aircraft, {name}: median {median:.1} ms until finished"
        );
    }
}
