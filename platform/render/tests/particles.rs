//! Particles in the renderer: billboards drawn over the sky where they are, hidden behind opaque
//! geometry, and a golden image of an afterburner, a smoke trail and tracers; plus their cost at
//! 1280 × 720 (printed, never asserted).

mod common;

use fl_render::particles::smoke_column;
use fl_render::{Camera, Category, Frame, Instance, Particle, ParticleKind, Renderer, SkyParams};
use glam::{DQuat, DVec3, Vec3};

const SIZE: u32 = 256;

/// Camera 1,000 m over the world origin (Y up) looking along −Z, the sun high behind it.
fn frame(fov_deg: f64, instances: Vec<Instance>) -> Frame {
    Frame {
        camera: Camera {
            position: DVec3::new(0.0, 1000.0, 0.0),
            orientation: DQuat::IDENTITY,
            vertical_fov_rad: fov_deg.to_radians(),
            aspect: 1.0,
            near_m: 0.25,
        },
        sky: SkyParams::with_sun(DVec3::new(0.3, 0.8, 0.5)),
        lights: Vec::new(),
        instances,
        terrain: Vec::new(),
    }
}

fn px(img: &image::RgbaImage, x: u32, y: u32) -> [i32; 3] {
    let p = img.get_pixel(x, y).0;
    [p[0] as i32, p[1] as i32, p[2] as i32]
}

fn diff(a: [i32; 3], b: [i32; 3]) -> i32 {
    (0..3).map(|i| (a[i] - b[i]).abs()).sum()
}

#[test]
fn particles_show_over_the_sky_where_they_are() {
    let Some(gpu) = common::gpu() else { return };
    let mut renderer = Renderer::new(&gpu).expect("renderer");
    let f = frame(60.0, Vec::new());
    let sky = common::render(&gpu, &mut renderer, &f, SIZE, SIZE);
    // Focal length 221.7 px: (-60, +30, -200) m → pixel (61, 95); (60, 30, -200) → (194, 95);
    // (0, 60, -200) → (128, 61).
    renderer.set_particles(&[
        Particle::new(ParticleKind::Smoke, DVec3::new(-60.0, 1030.0, -200.0), 12.0),
        Particle::new(ParticleKind::Flame, DVec3::new(60.0, 1030.0, -200.0), 6.0),
        Particle::new(ParticleKind::Tracer, DVec3::new(0.0, 1060.0, -200.0), 1.0)
            .with_velocity(Vec3::new(1000.0, 0.0, 0.0)),
    ]);
    let img = common::render(&gpu, &mut renderer, &f, SIZE, SIZE);
    common::keep("particles_sky", &img);
    assert_eq!(renderer.last_frame_stats().particles, 3);
    let (s0, s1) = (px(&sky, 61, 95), px(&img, 61, 95));
    assert!(diff(s0, s1) > 60, "smoke: sky {s0:?} → {s1:?}");
    // Grey smoke over a blue sky: less blue than the sky.
    assert!(
        s1[2] - s1[0] < s0[2] - s0[0],
        "smoke not grey: {s0:?} → {s1:?}"
    );
    let (f0, f1) = (px(&sky, 194, 95), px(&img, 194, 95));
    assert!(
        f1[0] > f0[0] + 40 && f1[0] > f1[2],
        "flame: {f0:?} → {f1:?}"
    );
    // The tracer streak runs sideways: bright 10 px either side of its centre, not 10 px above.
    for x in [118, 128, 138] {
        let (t0, t1) = (px(&sky, x, 61), px(&img, x, 61));
        assert!(t1[0] > t0[0] + 30, "tracer at x {x}: {t0:?} → {t1:?}");
    }
    assert_eq!(
        px(&sky, 128, 50),
        px(&img, 128, 50),
        "tracer drawn too wide"
    );
    // Far from every particle nothing changes.
    for (x, y) in [(5, 5), (250, 250), (128, 200), (20, 160)] {
        assert_eq!(px(&sky, x, y), px(&img, x, y), "pixel ({x}, {y}) changed");
    }
    // An empty list draws nothing again.
    renderer.set_particles(&[]);
    let again = common::render(&gpu, &mut renderer, &f, SIZE, SIZE);
    assert_eq!(again, sky);
}

#[test]
fn a_distant_tracer_flying_away_stays_visible() {
    let Some(gpu) = common::gpu() else { return };
    let mut renderer = Renderer::new(&gpu).expect("renderer");
    let f = frame(60.0, Vec::new());
    let sky = common::render(&gpu, &mut renderer, &f, SIZE, SIZE);
    // A round 2 km ahead and 2° up, flying straight away from the camera (the chase view of a
    // burst): its real 0.25 m is a tenth of a pixel and its streak is end-on; it must still
    // light the pixels where it is (focal length 221.7 px: 2° up → 7.7 px above the centre).
    let dir = DVec3::new(0.0, 2f64.to_radians().sin(), -2f64.to_radians().cos());
    renderer.set_particles(&[Particle::new(
        ParticleKind::Tracer,
        DVec3::new(0.0, 1000.0, 0.0) + dir * 2000.0,
        0.25,
    )
    .with_velocity((dir * 1000.0).as_vec3())]);
    let img = common::render(&gpu, &mut renderer, &f, SIZE, SIZE);
    common::keep("particles_distant_tracer", &img);
    let lit = (118..=122)
        .flat_map(|y| (126..=130).map(move |x| (x, y)))
        .filter(|&(x, y)| px(&img, x, y)[0] > px(&sky, x, y)[0] + 25)
        .count();
    assert!(lit >= 2, "a distant tracer lit {lit} pixels");
    // And only there: nothing 10 px away changes.
    assert_eq!(px(&sky, 128, 130), px(&img, 128, 130));
}

#[test]
fn particles_are_hidden_behind_opaque_geometry() {
    let Some(gpu) = common::gpu() else { return };
    let mut renderer = Renderer::new(&gpu).expect("renderer");
    // A 60 m structure (the silhouette scaled 3×) spanning the view's centre, front face 270 m out.
    let mut building = Instance::new(
        renderer.silhouette(Category::Structure),
        DVec3::new(0.0, 985.0, -300.0),
        DQuat::IDENTITY,
    );
    building.scale = 3.0;
    let f = frame(60.0, vec![building]);
    let bare = common::render(&gpu, &mut renderer, &f, SIZE, SIZE);
    let centre = px(&bare, 128, 128);
    renderer.set_particles(&[
        Particle::new(ParticleKind::Smoke, DVec3::new(0.0, 1000.0, -600.0), 10.0),
        Particle::new(
            ParticleKind::Explosion,
            DVec3::new(0.0, 1000.0, -650.0),
            15.0,
        ),
    ]);
    let behind = common::render(&gpu, &mut renderer, &f, SIZE, SIZE);
    common::keep("particles_behind", &behind);
    assert_eq!(renderer.last_frame_stats().particles, 2);
    assert_eq!(
        behind, bare,
        "a particle behind the building shows through it"
    );
    renderer.set_particles(&[Particle::new(
        ParticleKind::Smoke,
        DVec3::new(0.0, 1000.0, -150.0),
        10.0,
    )]);
    let front = common::render(&gpu, &mut renderer, &f, SIZE, SIZE);
    common::keep("particles_front", &front);
    assert!(
        diff(px(&front, 128, 128), centre) > 20,
        "smoke in front of the building does not show: {centre:?} → {:?}",
        px(&front, 128, 128)
    );
}

/// An aircraft (the builtin silhouette) flying left in full afterburner, a smoke trail behind it,
/// tracers fired ahead, a smoke column rising from the ground far away.
fn afterburner_scene() -> Vec<Particle> {
    let mut ps = Vec::new();
    // The silhouette's tail is 7.5 m aft of its origin; the aircraft sits at x = −8.
    let tail = DVec3::new(-0.5, 980.0, -80.0);
    for i in 0..12 {
        let d = f64::from(i) * 0.6;
        ps.push(
            Particle::new(
                ParticleKind::Flame,
                tail + DVec3::X * (0.4 + d),
                0.8 - 0.04 * i as f32,
            )
            .with_opacity(0.7 - 0.05 * i as f32),
        );
    }
    for i in 0..24 {
        let d = 10.0 + f64::from(i) * 2.0;
        let wobble = (f64::from(i) * 1.7).sin() * 0.4;
        ps.push(
            Particle::new(
                ParticleKind::Smoke,
                tail + DVec3::new(d, wobble, 0.0),
                1.2 + 0.12 * i as f32,
            )
            .with_opacity(0.8 - 0.03 * i as f32),
        );
    }
    // Fired ahead and to the left, away from the camera: four rounds 50 m apart.
    let nose = DVec3::new(-15.5, 980.3, -80.0);
    let dir = DVec3::new(-0.8, 0.05, -0.6).normalize();
    for i in 0..4 {
        ps.push(
            Particle::new(
                ParticleKind::Tracer,
                nose + dir * (25.0 + 50.0 * f64::from(i)),
                0.3,
            )
            .with_velocity((dir * 1000.0).as_vec3()),
        );
    }
    ps.extend(smoke_column(
        DVec3::new(150.0, 0.0, -2500.0),
        DVec3::Y,
        900.0,
        120.0,
        DVec3::new(250.0, 0.0, 0.0),
        30,
    ));
    ps.push(Particle::new(
        ParticleKind::Explosion,
        DVec3::new(-300.0, 700.0, -2500.0),
        60.0,
    ));
    ps
}

#[test]
fn golden_afterburner_smoke_and_tracers() {
    let Some(gpu) = common::gpu() else { return };
    let mut renderer = Renderer::new(&gpu).expect("renderer");
    let aircraft = Instance::new(
        renderer.silhouette(Category::Aircraft),
        DVec3::new(-8.0, 980.0, -80.0),
        DQuat::from_rotation_y(std::f64::consts::FRAC_PI_2),
    );
    let mut f = frame(40.0, vec![aircraft]);
    f.camera.orientation = DQuat::from_rotation_x(-14f64.to_radians());
    renderer.set_particles(&afterburner_scene());
    let img = common::render(&gpu, &mut renderer, &f, SIZE, SIZE);
    common::keep("particles_afterburner", &img);
    common::check_golden("particles_afterburner", &img, 0.02);
}

#[test]
fn particle_cost_at_1280x720() {
    let Some(gpu) = common::gpu() else { return };
    let mut renderer = Renderer::new(&gpu).expect("renderer");
    let target = fl_render::OffscreenTarget::new(&gpu.device, 1280, 720).expect("target");
    let mut f = frame(60.0, Vec::new());
    f.camera.aspect = 1280.0 / 720.0;
    let scene = afterburner_scene();
    // 10,000 puffs of a few metres spread over the view 100…600 m out.
    let many: Vec<Particle> = (0..10_000)
        .map(|i| {
            let a = f64::from(i) * 2.399_963;
            let r = 100.0 + 500.0 * (f64::from(i) / 10_000.0);
            let kind = if i % 5 == 0 {
                ParticleKind::Flame
            } else {
                ParticleKind::Smoke
            };
            Particle::new(
                kind,
                DVec3::new(r * 0.5 * a.sin(), 1000.0 + r * 0.25 * a.cos(), -r),
                3.0,
            )
            .with_opacity(0.5)
        })
        .collect();
    for (name, list) in [
        ("none", &[][..]),
        ("afterburner scene (71)", &scene[..]),
        ("10,000 puffs", &many[..]),
    ] {
        renderer.set_particles(list);
        let median = common::median_frame_ms(&gpu, &mut renderer, &f, &target);
        eprintln!("particles 1280x720, {name}: median {median:.1} ms until finished");
    }
}
