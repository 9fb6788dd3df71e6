//! Drawing behaviour that is not a golden image: no adapter is a typed error, every category's
//! silhouette is visible, instancing draws every instance, articulation moves a node, damage
//! variants replace their base node, and fog thickens with distance.

mod common;

use fl_render::model::texture::BlockFormat;
use fl_render::model::{ImageData, MeshData, ModelData, Node, Primitive, TexturePixels};
use fl_render::{
    Camera, Category, Frame, Instance, NodePose, RenderError, Renderer, SkyParams, Weather,
};
use glam::{DQuat, DVec3, Mat4, Quat, Vec3};

const SIZE: u32 = 128;

#[test]
fn no_adapter_is_a_typed_error() {
    match fl_render::Gpu::with_backends(wgpu::Backends::empty()) {
        Err(RenderError::NoAdapter(why)) => eprintln!("no adapter: {why}"),
        other => panic!("expected NoAdapter, got {:?}", other.map(|g| g.info)),
    }
}

/// Run by `an_adapter_name_that_matches_nothing_is_a_typed_error` in a child process with
/// `WGPU_ADAPTER_NAME` set (the variable is read at `Gpu::new`; tests must not change their own
/// process's environment).
#[test]
#[ignore = "run as a child process by an_adapter_name_that_matches_nothing_is_a_typed_error"]
fn child_gpu_with_adapter_name() {
    match fl_render::Gpu::new() {
        Err(RenderError::NoAdapter(why)) => println!("CHILD-NO-ADAPTER: {why}"),
        Ok(g) => println!("CHILD-ADAPTER: {}", g.info.name),
        Err(e) => println!("CHILD-OTHER: {e}"),
    }
}

#[test]
fn an_adapter_name_that_matches_nothing_is_a_typed_error() {
    let run = |name: &str| {
        let out = std::process::Command::new(std::env::current_exe().expect("test binary"))
            .args([
                "--ignored",
                "--exact",
                "child_gpu_with_adapter_name",
                "--nocapture",
            ])
            .env(fl_render::gpu::ADAPTER_NAME_VAR, name)
            .output()
            .expect("child");
        String::from_utf8_lossy(&out.stdout).into_owned()
    };
    let none = run("no-such-adapter-xyz");
    assert!(
        none.contains("CHILD-NO-ADAPTER") && none.contains("no-such-adapter-xyz"),
        "{none}"
    );
    // With an adapter present, naming it (part of its name, any case) picks it.
    if let Some(gpu) = common::gpu() {
        let part = gpu
            .info
            .name
            .split_whitespace()
            .next()
            .unwrap_or("")
            .to_uppercase();
        let found = run(&part);
        assert!(
            found.contains(&format!("CHILD-ADAPTER: {}", gpu.info.name)),
            "{found}"
        );
    }
}

fn lit(px: &image::RgbaImage) -> usize {
    px.pixels()
        .filter(|p| p.0[0].max(p.0[1]).max(p.0[2]) > 10)
        .count()
}

fn studio(camera: Camera, instances: Vec<Instance>) -> Frame {
    Frame {
        camera,
        sky: SkyParams::studio(),
        lights: vec![fl_render::DirectionalLight {
            direction: Vec3::new(0.3, 1.0, 0.5),
            color: Vec3::splat(3.0),
        }],
        terrain: Vec::new(),
        instances,
    }
}

#[test]
fn wireframe_draws_edges_where_the_device_can() {
    let Some(gpu) = common::gpu() else { return };
    let mut renderer = Renderer::new(&gpu).expect("renderer");
    assert_eq!(renderer.wireframe_supported(), gpu.info.wireframe);
    let cam = Camera::looking_at(
        DVec3::new(9.0, 6.0, 9.0),
        DVec3::ZERO,
        DVec3::Y,
        50f64.to_radians(),
    );
    let inst = Instance::new(
        renderer.silhouette(Category::Aircraft),
        DVec3::ZERO,
        DQuat::IDENTITY,
    );
    let frame = studio(cam, vec![inst]);
    let filled = lit(&common::render(&gpu, &mut renderer, &frame, SIZE, SIZE));
    if !renderer.set_wireframe(true) {
        assert!(!gpu.info.wireframe);
        let same = lit(&common::render(&gpu, &mut renderer, &frame, SIZE, SIZE));
        assert_eq!(same, filled, "without line polygons models stay filled");
        fl_fixtures::skip(&format!("{} has no POLYGON_MODE_LINE", gpu.info.name));
        return;
    }
    let lines = lit(&common::render(&gpu, &mut renderer, &frame, SIZE, SIZE));
    common::keep(
        "wireframe_silhouette",
        &common::render(&gpu, &mut renderer, &frame, SIZE, SIZE),
    );
    assert!(!renderer.set_wireframe(false));
    let again = lit(&common::render(&gpu, &mut renderer, &frame, SIZE, SIZE));
    eprintln!("filled {filled} px, wireframe {lines} px, filled again {again} px");
    assert!(lines > 50, "the edges are drawn: {lines} px");
    assert!(lines * 2 < filled, "only edges: {lines} of {filled} px");
    assert_eq!(again, filled, "switching back fills again");
}

#[test]
fn every_category_silhouette_is_visible() {
    let Some(gpu) = common::gpu() else { return };
    let mut renderer = Renderer::new(&gpu).expect("renderer");
    for (c, distance) in [
        (Category::Aircraft, 40.0),
        (Category::GroundVehicle, 20.0),
        (Category::Ship, 200.0),
        (Category::Missile, 8.0),
        (Category::Structure, 80.0),
    ] {
        let cam = Camera::looking_at(
            DVec3::new(distance * 0.6, distance * 0.5, distance * 0.6),
            DVec3::ZERO,
            DVec3::Y,
            50f64.to_radians(),
        );
        let inst = Instance::new(renderer.silhouette(c), DVec3::ZERO, DQuat::IDENTITY);
        let img = common::render(&gpu, &mut renderer, &studio(cam, vec![inst]), SIZE, SIZE);
        let n = lit(&img);
        assert!(n > 200, "{c:?} silhouette covers only {n} px");
    }
    // A type whose model cannot be loaded is drawn as its silhouette.
    let (h, family) = renderer.load_family_or_silhouette(
        &gpu,
        std::path::Path::new("/nonexistent"),
        "nothing",
        Category::GroundVehicle,
    );
    assert!(family.is_none());
    assert_eq!(h, renderer.silhouette(Category::GroundVehicle));
}

fn two_node_model() -> ModelData {
    // Node 0 "body": a unit box; node 1 "flap" (child of body): another box 3 m to the right;
    // node 2 "flap_b": the damaged flap, 3 m to the left.
    let sil = fl_render::model::silhouette::silhouette(Category::Structure);
    let mut prim: Primitive = sil.meshes[0].primitives[0].clone();
    for v in &mut prim.vertices {
        v.position = (Vec3::from(v.position) * 0.1).to_array();
    }
    let node = |name: &str, t: Vec3, parent: Option<usize>, children: Vec<usize>| Node {
        name: Some(name.into()),
        parent,
        children,
        translation: t,
        rotation: Quat::IDENTITY,
        scale: Vec3::ONE,
        mesh: Some(0),
    };
    ModelData {
        path: "test:two_nodes".into(),
        meshes: vec![MeshData {
            name: None,
            primitives: vec![prim],
        }],
        nodes: vec![
            node("body", Vec3::ZERO, None, vec![1, 2]),
            node("flap", Vec3::new(3.0, 0.0, 0.0), Some(0), vec![]),
            node("flap_b", Vec3::new(-3.0, 0.0, 0.0), Some(0), vec![]),
        ],
        roots: vec![0],
        materials: sil.materials.clone(),
        images: vec![],
        warnings: vec![],
    }
}

fn columns_lit(img: &image::RgbaImage, x0: u32, x1: u32) -> usize {
    img.enumerate_pixels()
        .filter(|(x, _, p)| *x >= x0 && *x < x1 && p.0[0].max(p.0[1]).max(p.0[2]) > 10)
        .count()
}

#[test]
fn articulation_moves_a_node_and_damage_swaps_variants() {
    let Some(gpu) = common::gpu() else { return };
    let mut renderer = Renderer::new(&gpu).expect("renderer");
    let data = two_node_model();
    let flap = data.node_index("flap").expect("flap") as u32;
    let model = renderer.upload_model(&gpu, &data, Mat4::IDENTITY);
    // Looking down −Z at the origin from 12 m: x = +3 m is right of centre, −3 m left.
    let cam = Camera::looking_at(
        DVec3::new(0.0, 0.0, 12.0),
        DVec3::ZERO,
        DVec3::Y,
        50f64.to_radians(),
    );
    let inst = Instance::new(model, DVec3::ZERO, DQuat::IDENTITY);
    let right = |img: &image::RgbaImage| columns_lit(img, SIZE * 3 / 4, SIZE);
    let left = |img: &image::RgbaImage| columns_lit(img, 0, SIZE / 4);
    let clean = common::render(
        &gpu,
        &mut renderer,
        &studio(cam, vec![inst.clone()]),
        SIZE,
        SIZE,
    );
    assert!(
        right(&clean) > 50 && left(&clean) == 0,
        "clean: the flap on the right, no damage node"
    );
    // Damaged: the flap_b variant replaces the flap.
    let damaged = Instance {
        damaged: true,
        ..inst.clone()
    };
    let img = common::render(&gpu, &mut renderer, &studio(cam, vec![damaged]), SIZE, SIZE);
    assert!(
        right(&img) == 0 && left(&img) > 50,
        "damaged: flap_b on the left instead"
    );
    // Articulated: the flap posed above the body instead of to its right.
    let posed = Instance {
        articulation: vec![NodePose {
            node: flap,
            rotation: Quat::IDENTITY,
            translation: Vec3::new(0.0, 3.0, 0.0),
        }],
        ..inst.clone()
    };
    let img = common::render(&gpu, &mut renderer, &studio(cam, vec![posed]), SIZE, SIZE);
    let top = img
        .enumerate_pixels()
        .filter(|(_, y, p)| *y < SIZE / 4 && p.0[1] > 10)
        .count();
    assert!(right(&img) == 0 && top > 50, "posed: the flap moved up");
}

#[test]
fn instancing_draws_every_instance() {
    let Some(gpu) = common::gpu() else { return };
    let mut renderer = Renderer::new(&gpu).expect("renderer");
    let building = renderer.silhouette(Category::Structure);
    // A 10 × 10 grid of 20 m buildings seen from above: every one appears as its own blob.
    let instances: Vec<Instance> = (0..100)
        .map(|i| {
            let (x, z) = (f64::from(i % 10) - 4.5, f64::from(i / 10) - 4.5);
            Instance::new(
                building,
                DVec3::new(x * 60.0, 0.0, z * 60.0),
                DQuat::IDENTITY,
            )
        })
        .collect();
    let cam = Camera::looking_at(
        DVec3::new(0.0, 900.0, 0.0),
        DVec3::ZERO,
        DVec3::NEG_Z,
        45f64.to_radians(),
    );
    let img = common::render(&gpu, &mut renderer, &studio(cam, instances), 256, 256);
    // Count lit cells on the 10 × 10 grid of screen positions the buildings should occupy.
    let m = fl_render::camera::CameraMatrices::new(&cam);
    let mut seen = 0;
    for i in 0..100 {
        let (x, z) = (f64::from(i % 10) - 4.5, f64::from(i / 10) - 4.5);
        let p = DVec3::new(x * 60.0, 10.0, z * 60.0) - cam.position;
        let c = m.view_proj * p.as_vec3().extend(1.0);
        let (sx, sy) = (
            (c.x / c.w * 0.5 + 0.5) * 256.0,
            (0.5 - c.y / c.w * 0.5) * 256.0,
        );
        if img
            .get_pixel(sx.clamp(0.0, 255.0) as u32, sy.clamp(0.0, 255.0) as u32)
            .0[1]
            > 10
        {
            seen += 1;
        }
    }
    assert_eq!(seen, 100, "every instance drawn");
    let stats = renderer.last_frame_stats();
    assert_eq!(
        (stats.instances, stats.culled, stats.parts, stats.batches),
        (100, 0, 100, 1),
        "{stats:?}"
    );
    // Looking at the horizon instead: the buildings below the view are culled, not drawn.
    let away = Camera::looking_at(
        DVec3::new(0.0, 900.0, 0.0),
        DVec3::new(0.0, 950.0, -1000.0),
        DVec3::Y,
        45f64.to_radians(),
    );
    let instances = (0..100)
        .map(|i| {
            let (x, z) = (f64::from(i % 10) - 4.5, f64::from(i / 10) - 4.5);
            Instance::new(
                building,
                DVec3::new(x * 60.0, 0.0, z * 60.0),
                DQuat::IDENTITY,
            )
        })
        .collect();
    let img = common::render(&gpu, &mut renderer, &studio(away, instances), 256, 256);
    let stats = renderer.last_frame_stats();
    assert_eq!((stats.culled, stats.parts), (100, 0), "{stats:?}");
    assert_eq!(lit(&img), 0);
}

#[test]
fn fog_thickens_with_distance() {
    let Some(gpu) = common::gpu() else { return };
    let mut renderer = Renderer::new(&gpu).expect("renderer");
    // A black box filling the middle of the view at 500 m and at 4 km, with and without fog.
    let black = {
        let mut m = fl_render::model::silhouette::silhouette(Category::Structure);
        m.materials[0].base_color = [0.0, 0.0, 0.0, 1.0];
        m.materials[0].metallic = 0.0;
        m
    };
    let model = renderer.upload_model(&gpu, &black, Mat4::IDENTITY);
    let cam = Camera::looking_at(
        DVec3::new(0.0, 5.0, 0.0),
        DVec3::new(0.0, 5.0, -1.0),
        DVec3::Y,
        30f64.to_radians(),
    );
    let sky = SkyParams::with_sun(DVec3::new(0.3, 0.8, 0.2));
    let frame_with = |dist: f64, weather: Weather| {
        let mut sky = sky;
        sky.weather = weather;
        sky.exposure = Some(1.0);
        Frame {
            camera: cam,
            sky,
            lights: vec![],
            // Scaled with distance so it always covers the same part of the view (its centre
            // on the line of sight).
            terrain: Vec::new(),
            instances: vec![Instance {
                scale: (dist / 25.0) as f32,
                ..Instance::new(
                    model,
                    DVec3::new(0.0, 5.0 - 5.0 * dist / 25.0, -dist),
                    DQuat::IDENTITY,
                )
            }],
        }
    };
    let frame = |dist: f64, fog: f32| frame_with(dist, Weather::from_message(0, fog, 0.0));
    let centre = |img: &image::RgbaImage| {
        let p = img.get_pixel(SIZE / 2, SIZE / 2).0;
        u32::from(p[0]) + u32::from(p[1]) + u32::from(p[2])
    };
    let near_clear = centre(&common::render(
        &gpu,
        &mut renderer,
        &frame(500.0, 0.0),
        SIZE,
        SIZE,
    ));
    let near_fog = centre(&common::render(
        &gpu,
        &mut renderer,
        &frame(500.0, 1e-3),
        SIZE,
        SIZE,
    ));
    let far_fog = centre(&common::render(
        &gpu,
        &mut renderer,
        &frame(4000.0, 1e-3),
        SIZE,
        SIZE,
    ));
    eprintln!(
        "centre pixel (sum of RGB): 500 m clear {near_clear}, 500 m fog {near_fog}, 4 km fog {far_fog}"
    );
    assert!(
        near_fog > near_clear,
        "fog lightens a dark object: {near_clear} -> {near_fog}"
    );
    assert!(
        far_fog > near_fog,
        "and more with distance: {near_fog} -> {far_fog}"
    );
    // Fog that starts at 5 km leaves an object at 4 km as in clear air.
    let far_clear = centre(&common::render(
        &gpu,
        &mut renderer,
        &frame(4000.0, 0.0),
        SIZE,
        SIZE,
    ));
    let far_late = centre(&common::render(
        &gpu,
        &mut renderer,
        &frame_with(4000.0, Weather::from_message(0, 1e-3, 5000.0)),
        SIZE,
        SIZE,
    ));
    eprintln!("4 km: clear {far_clear}, fog from 5 km {far_late}");
    assert!(far_late.abs_diff(far_clear) <= 3 && far_fog > far_late + 100);
}

/// A 2 m square facing +Z with texture coordinates 0…1, textured by image 0.
fn textured_square(image: ImageData) -> ModelData {
    let v = |x: f32, y: f32| fl_render::model::Vertex {
        position: [x, y, 0.0],
        normal: [0.0, 0.0, 1.0],
        uv: [(x + 1.0) / 2.0, (1.0 - y) / 2.0],
        tangent: [1.0, 0.0, 0.0, 1.0],
    };
    ModelData {
        path: "test:textured".into(),
        meshes: vec![MeshData {
            name: None,
            primitives: vec![Primitive {
                vertices: vec![v(-1.0, -1.0), v(1.0, -1.0), v(1.0, 1.0), v(-1.0, 1.0)],
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
            base_color: [1.0; 4],
            roughness: 1.0,
            base_color_texture: Some(0),
            ..Default::default()
        }],
        images: vec![Some(image)],
        warnings: vec![],
    }
}

#[test]
fn textures_are_sampled_from_rgba8_and_bc_blocks() {
    let Some(gpu) = common::gpu() else { return };
    let mut renderer = Renderer::new(&gpu).expect("renderer");
    let cam = Camera::looking_at(
        DVec3::new(0.0, 0.0, 3.0),
        DVec3::ZERO,
        DVec3::Y,
        50f64.to_radians(),
    );
    let light = Frame {
        camera: cam,
        sky: SkyParams::studio(),
        lights: vec![fl_render::DirectionalLight {
            direction: Vec3::Z,
            color: Vec3::splat(3.0),
        }],
        terrain: Vec::new(),
        instances: vec![],
    };
    let draw = |renderer: &mut Renderer, model| {
        let frame = Frame {
            terrain: Vec::new(),
            instances: vec![Instance::new(model, DVec3::ZERO, DQuat::IDENTITY)],
            ..light.clone()
        };
        common::render(&gpu, renderer, &frame, SIZE, SIZE)
            .get_pixel(SIZE / 2, SIZE / 2)
            .0
    };
    // An RGBA8 green image (as decoded from a PNG or an uncompressed KTX2).
    let green = ImageData {
        source: "test:green".into(),
        width: 4,
        height: 4,
        pixels: TexturePixels::Rgba8([0u8, 255, 0, 255].repeat(16)),
    };
    let m = renderer.upload_model(&gpu, &textured_square(green), Mat4::IDENTITY);
    let p = draw(&mut renderer, m);
    assert!(
        p[1] > 100 && p[0] < 30 && p[2] < 30,
        "RGBA8 green texture: {p:?}"
    );
    // A BC1 block of pure red (both end points 0xF800), as a KTX2 from a released pack holds.
    let red = ImageData {
        source: "test:red.ktx2".into(),
        width: 4,
        height: 4,
        pixels: TexturePixels::Blocks {
            format: BlockFormat::Bc1 { srgb: true },
            levels: vec![vec![0x00, 0xF8, 0x00, 0xF8, 0, 0, 0, 0]],
        },
    };
    let m = renderer.upload_model(&gpu, &textured_square(red), Mat4::IDENTITY);
    let p = draw(&mut renderer, m);
    if gpu.info.bc_textures {
        assert!(
            p[0] > 100 && p[1] < 30 && p[2] < 30,
            "BC1 red texture: {p:?}"
        );
    } else {
        // Without BC support the factors (white) are drawn, with a warning.
        assert!(
            p[0] > 100 && p[1] > 100 && p[2] > 100,
            "factors when BC is unsupported: {p:?}"
        );
        fl_fixtures::skip(
            "the adapter cannot sample BC textures; checked the factor fallback only",
        );
    }
}

#[test]
fn oversized_inputs_are_bounded_not_fatal() {
    let Some(gpu) = common::gpu() else { return };
    let mut renderer = Renderer::new(&gpu).expect("renderer");
    // A texture wider than any device allows (built directly, past the loader's own limit).
    let wide = 16_385u32;
    let image = ImageData {
        source: "test:wide.png".into(),
        width: wide,
        height: 1,
        pixels: TexturePixels::Rgba8([0u8, 0, 255, 255].repeat(wide as usize)),
    };
    let m = renderer.upload_model(&gpu, &textured_square(image), Mat4::IDENTITY);
    let cam = Camera::looking_at(
        DVec3::new(0.0, 0.0, 3.0),
        DVec3::ZERO,
        DVec3::Y,
        50f64.to_radians(),
    );
    let frame = studio(cam, vec![Instance::new(m, DVec3::ZERO, DQuat::IDENTITY)]);
    let p = *common::render(&gpu, &mut renderer, &frame, 64, 64).get_pixel(32, 32);
    assert!(
        p.0[2] > 100 && p.0[0] < 30,
        "scaled down and drawn blue: {p:?}"
    );
    // More instances than one frame draws: the excess is dropped with a warning.
    let building = renderer.silhouette(Category::Structure);
    let many: Vec<Instance> = (0..fl_render::renderer::MAX_DRAWN_PARTS + 5000)
        .map(|i| {
            Instance::new(
                building,
                DVec3::new(0.0, 0.0, -100.0 - i as f64),
                DQuat::IDENTITY,
            )
        })
        .collect();
    let img = common::render(&gpu, &mut renderer, &studio(cam, many), 64, 64);
    assert!(lit(&img) > 0);
}
