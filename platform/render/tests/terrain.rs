//! Terrain chunks in the renderer (plain data, no fl-terrain): a chunk is drawn where the
//! ground is, coloured by its land cover, culled when out of view; inconsistent chunks are
//! refused; chunks not drawn for a while are evicted.

mod common;

use fl_render::terrain::{EVICT_AFTER_FRAMES, TerrainChunk};
use fl_render::{Camera, ChunkError, Frame, Renderer, SkyParams};
use glam::{DQuat, DVec3};

/// A flat square chunk of `half_m` around `origin` (world Y up, as at the world origin), one
/// land-cover class.
fn flat_chunk(key: u64, origin: DVec3, half_m: f32, class: u8) -> TerrainChunk {
    const N: usize = 21;
    let mut c = TerrainChunk {
        key,
        origin,
        ..TerrainChunk::default()
    };
    for j in 0..N {
        for i in 0..N {
            let s = |k: usize| -half_m + 2.0 * half_m * k as f32 / (N - 1) as f32;
            c.positions.push([s(i), 0.0, s(j)]);
            c.normals.push([0.0, 1.0, 0.0]);
            c.land_cover.push(class);
        }
    }
    for j in 0..N - 1 {
        for i in 0..N - 1 {
            let a = (j * N + i) as u32;
            let (b, cc) = (a + 1, a + N as u32);
            let d = cc + 1;
            // Counter-clockwise seen from +Y.
            c.indices.extend_from_slice(&[a, cc, d, a, d, b]);
        }
    }
    c
}

fn frame(pitch_deg: f64, terrain: Vec<u64>) -> Frame {
    let camera = Camera {
        position: DVec3::new(0.0, 500.0, 0.0),
        orientation: DQuat::from_rotation_x(pitch_deg.to_radians()),
        vertical_fov_rad: 60f64.to_radians(),
        aspect: 1.0,
        near_m: 0.25,
    };
    Frame {
        camera,
        sky: SkyParams::with_sun(DVec3::new(0.3, 1.0, -0.4)),
        lights: Vec::new(),
        instances: Vec::new(),
        terrain,
    }
}

fn mean(img: &image::RgbaImage, rows: std::ops::Range<u32>) -> [f64; 3] {
    let mut s = [0.0; 3];
    let mut n = 0.0;
    for y in rows {
        for x in 0..img.width() {
            let p = img.get_pixel(x, y);
            for k in 0..3 {
                s[k] += f64::from(p[k]);
            }
            n += 1.0;
        }
    }
    s.map(|v| v / n)
}

#[test]
fn a_chunk_is_drawn_where_the_ground_is_coloured_by_its_land_cover() {
    let Some(gpu) = common::gpu() else { return };
    let mut r = Renderer::new(&gpu).expect("renderer");
    r.upload_terrain(&gpu, &flat_chunk(1, DVec3::ZERO, 20_000.0, 10))
        .expect("trees");
    r.upload_terrain(&gpu, &flat_chunk(2, DVec3::ZERO, 20_000.0, 60))
        .expect("bare");
    assert!(r.has_terrain(1) && r.has_terrain(2));
    let (w, h) = (96, 96);
    let none = common::render(&gpu, &mut r, &frame(-20.0, vec![]), w, h);
    let trees = common::render(&gpu, &mut r, &frame(-20.0, vec![1]), w, h);
    assert_eq!(r.last_frame_stats().terrain_chunks, 1);
    let bare = common::render(&gpu, &mut r, &frame(-20.0, vec![2]), w, h);
    common::keep("terrain_flat_none", &none);
    common::keep("terrain_flat_trees", &trees);
    common::keep("terrain_flat_bare", &bare);
    let low = h * 3 / 4..h;
    let (n, g, b) = (
        mean(&none, low.clone()),
        mean(&trees, low.clone()),
        mean(&bare, low),
    );
    // Tree cover is greener than it is red and blue; bare ground redder than green and blue; both
    // differ from the sky's own ground (what shows without the chunk).
    assert!(g[1] > g[0] && g[1] > g[2], "trees {g:?}");
    assert!(b[0] > b[1] && b[1] > b[2], "bare {b:?}");
    let diff = |a: [f64; 3], c: [f64; 3]| (0..3).map(|k| (a[k] - c[k]).abs()).sum::<f64>();
    assert!(diff(g, n) > 15.0 && diff(b, n) > 15.0, "{n:?} {g:?} {b:?}");
    // The top rows stay sky in every case.
    let top = 0..h / 8;
    assert!(diff(mean(&trees, top.clone()), mean(&none, top)) < 1.0);
    // A chunk behind the camera is culled, the one below is drawn.
    r.upload_terrain(
        &gpu,
        &flat_chunk(3, DVec3::new(0.0, 0.0, 30_000.0), 500.0, 30),
    )
    .expect("behind");
    let _ = common::render(&gpu, &mut r, &frame(-20.0, vec![1, 3]), w, h);
    let s = r.last_frame_stats();
    assert_eq!((s.terrain_chunks, s.terrain_culled), (1, 1));
}

#[test]
fn inconsistent_chunks_are_refused_and_undrawn_chunks_are_evicted() {
    let Some(gpu) = common::gpu() else { return };
    let mut r = Renderer::new(&gpu).expect("renderer");
    let good = flat_chunk(7, DVec3::ZERO, 1_000.0, 30);
    let mut c = good.clone();
    c.normals.pop();
    assert!(matches!(
        r.upload_terrain(&gpu, &c),
        Err(ChunkError::Mismatch { key: 7, .. })
    ));
    let mut c = good.clone();
    c.indices[4] = c.positions.len() as u32;
    assert!(matches!(
        r.upload_terrain(&gpu, &c),
        Err(ChunkError::Invalid { .. })
    ));
    let mut c = good.clone();
    c.positions[3][1] = f32::NAN;
    assert!(matches!(
        r.upload_terrain(&gpu, &c),
        Err(ChunkError::Invalid { .. })
    ));
    let mut c = good.clone();
    c.indices.pop();
    assert!(matches!(
        r.upload_terrain(&gpu, &c),
        Err(ChunkError::Invalid { .. })
    ));
    assert_eq!(r.terrain_chunk_count(), 0);

    r.upload_terrain(&gpu, &good).expect("good");
    r.upload_terrain(
        &gpu,
        &TerrainChunk {
            key: 8,
            ..good.clone()
        },
    )
    .expect("good");
    let target = fl_render::OffscreenTarget::new(&gpu.device, 4, 4).expect("target");
    // Chunk 7 drawn every frame, chunk 8 never: 8 goes, 7 stays.
    for _ in 0..=EVICT_AFTER_FRAMES + 1 {
        r.render_offscreen(&gpu, &frame(-20.0, vec![7]), &target)
            .expect("render");
    }
    assert!(r.has_terrain(7));
    assert!(!r.has_terrain(8));
    r.remove_terrain(7);
    assert_eq!(r.terrain_chunk_count(), 0);
}

/// One aerial perspective for everything in the air: from 12 km up, a structure silhouette (the
/// model pipeline), a patch of ground (the terrain pipeline) and a puff of smoke (particles), all
/// 10 km away and 30° below the horizon, under a fog thick enough that nothing of their own
/// colour is left, show the same haze colour. (Before models and particles shared terrain's
/// function they took the sky at the horizon, and the terrain the sky just above the limb.)
#[test]
fn models_terrain_and_particles_fade_into_the_same_haze() {
    let Some(gpu) = common::gpu() else {
        return;
    };
    let mut renderer = Renderer::new(&gpu).expect("renderer");
    const SIZE: u32 = 256;
    let camera_pos = DVec3::new(0.0, 12_000.0, 0.0);
    let pitch = -30f64.to_radians();
    let orientation = DQuat::from_rotation_x(pitch);
    // Body −Z forward turned about local up by `az` degrees, then pitched down 30°.
    let dir = |az: f64| {
        let a = az.to_radians();
        DVec3::new(-a.sin() * pitch.cos(), pitch.sin(), -a.cos() * pitch.cos())
    };
    let pixel = |d: DVec3| {
        let c = orientation.inverse() * d;
        let t = (30f64).to_radians().tan();
        let x = c.x / -c.z / t;
        let y = c.y / -c.z / t;
        (
            ((x + 1.0) * 0.5 * f64::from(SIZE)) as u32,
            ((1.0 - y) * 0.5 * f64::from(SIZE)) as u32,
        )
    };
    let (d_model, d_ground, d_smoke) = (dir(15.0), dir(-15.0), dir(0.0));
    let ground = flat_chunk(7, camera_pos + d_ground * 10_000.0, 400.0, 30);
    renderer.upload_terrain(&gpu, &ground).expect("upload");
    renderer.set_particles(&[fl_render::Particle::new(
        fl_render::ParticleKind::Smoke,
        camera_pos + d_smoke * 10_000.0,
        250.0,
    )
    .with_opacity(1.0)]);
    let mut sky = SkyParams::with_sun(DVec3::new(0.0, 1.0, 0.0));
    sky.weather.fog_density_per_m = 0.5;
    sky.weather.fog_start_m = 0.0;
    let mut structure = fl_render::Instance::new(
        renderer.silhouette(fl_render::Category::Structure),
        camera_pos + d_model * 10_000.0,
        DQuat::IDENTITY,
    );
    structure.scale = 40.0;
    let frame = Frame {
        camera: Camera {
            position: camera_pos,
            orientation,
            vertical_fov_rad: 60f64.to_radians(),
            aspect: 1.0,
            near_m: 0.25,
        },
        sky,
        lights: Vec::new(),
        instances: vec![structure],
        terrain: vec![7],
    };
    let img = common::render(&gpu, &mut renderer, &frame, SIZE, SIZE);
    common::keep("haze_shared", &img);
    let bare = {
        let mut f = frame.clone();
        f.instances.clear();
        f.terrain.clear();
        renderer.set_particles(&[]);
        common::render(&gpu, &mut renderer, &f, SIZE, SIZE)
    };
    let at = |d: DVec3| {
        let (x, y) = pixel(d);
        (*img.get_pixel(x, y), *bare.get_pixel(x, y))
    };
    let (model, model_sky) = at(d_model);
    let (ground_px, ground_sky) = at(d_ground);
    let (smoke, smoke_sky) = at(d_smoke);
    eprintln!(
        "model {model:?} (sky {model_sky:?}), ground {ground_px:?} (sky {ground_sky:?}), smoke {smoke:?} (sky {smoke_sky:?})"
    );
    // Each is drawn (the sky pass alone shows the ground of the sky table there)...
    for (p, s, what) in [
        (model, model_sky, "model"),
        (ground_px, ground_sky, "ground"),
        (smoke, smoke_sky, "smoke"),
    ] {
        assert_ne!(p, s, "{what} not drawn");
    }
    // ...and all three are the same haze.
    let close = |a: image::Rgba<u8>, b: image::Rgba<u8>| (0..3).all(|k| a[k].abs_diff(b[k]) <= 3);
    assert!(
        close(model, ground_px),
        "model {model:?} vs ground {ground_px:?}"
    );
    assert!(
        close(smoke, ground_px),
        "smoke {smoke:?} vs ground {ground_px:?}"
    );
}
