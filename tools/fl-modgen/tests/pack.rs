//! Our pack, `mods/fl-trainer`, as the game meets it: the committed generated files are what
//! the generator writes (they never drift), the pack loads through the real content stack with
//! no finding, its type flies, its assets resolve, and its models load through fl-render's
//! loader with the documented size, axes, gear and cockpit eye.

use fl_content::{AssetKind, ResolvedAsset, StackSources, load_stack};
use fl_modgen::trainer;
use fl_render::model::{ModelData, ModelFamily, load_gltf};
use glam::Vec3;
use std::path::PathBuf;

fn pack() -> PathBuf {
    fl_modgen::default_pack_dir()
}

#[test]
fn the_committed_files_are_what_the_generator_writes() {
    let drift = fl_modgen::drift(&pack());
    assert!(
        drift.is_empty(),
        "run `cargo run -p fl-modgen` and commit the result:\n{}",
        drift.join("\n")
    );
}

#[test]
fn the_drift_check_sees_a_changed_file() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    fl_modgen::write(dir.path()).unwrap_or_else(|e| panic!("{e}"));
    assert!(fl_modgen::drift(dir.path()).is_empty());
    let wav = dir.path().join("audio/engine/trainer_idle.wav");
    let mut bytes = std::fs::read(&wav).unwrap_or_else(|e| panic!("{e}"));
    let last = bytes.len() - 1;
    bytes[last] ^= 1;
    std::fs::write(&wav, bytes).unwrap_or_else(|e| panic!("{e}"));
    std::fs::remove_file(dir.path().join("aircraft/trainer/trainer_lod2.glb"))
        .unwrap_or_else(|e| panic!("{e}"));
    let drift = fl_modgen::drift(dir.path());
    assert_eq!(drift.len(), 2, "{drift:?}");
}

#[test]
fn generation_is_deterministic() {
    assert_eq!(fl_modgen::generate(), fl_modgen::generate());
}

#[test]
fn the_pack_loads_with_no_finding_and_its_trainer_flies() {
    let load = load_stack(&StackSources {
        mods_dirs: Vec::new(),
        pack_dirs: vec![pack()],
    });
    let lines: Vec<String> = load
        .findings
        .items
        .iter()
        .map(ToString::to_string)
        .collect();
    assert!(lines.is_empty(), "{lines:#?}");
    let content = load.content.unwrap_or_else(|| panic!("nothing loaded"));
    assert_eq!(
        content
            .packs()
            .iter()
            .map(|p| p.id.as_str())
            .collect::<Vec<_>>(),
        ["fl-trainer"]
    );
    let t = content
        .aircraft_type("fl-trainer:jet-trainer")
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(t.def.name, "FL-1 Jet Trainer");
    let fm = t
        .flight_model
        .as_ref()
        .unwrap_or_else(|| panic!("no flight model"));
    assert!((fm.span_m - trainer::SPAN_M).abs() < 1e-9);
    for (kind, name, file) in [
        (
            AssetKind::Mesh,
            "trainer/trainer",
            "aircraft/trainer/trainer.glb",
        ),
        (
            AssetKind::Mesh,
            "trainer/trainer_cockpit",
            "aircraft/trainer/trainer_cockpit.glb",
        ),
        (
            AssetKind::Audio,
            "engine/trainer_idle",
            "audio/engine/trainer_idle.wav",
        ),
        (
            AssetKind::Audio,
            "engine/trainer_mil",
            "audio/engine/trainer_mil.wav",
        ),
        (
            AssetKind::Mission,
            "free_flight_nevada",
            "missions/free_flight_nevada.yaml",
        ),
    ] {
        match content.resolve_asset(kind, name) {
            Ok(ResolvedAsset::File { pack, path }) => {
                assert_eq!(pack, "fl-trainer");
                assert!(path.ends_with(file), "{}", path.display());
            }
            other => panic!("{name}: {other:?}"),
        }
        let bytes = content
            .read_asset(kind, name)
            .unwrap_or_else(|e| panic!("{e}"));
        assert!(!bytes.is_empty());
    }
    // Referenced by the entity: mesh, cockpit and flight model.
    assert_eq!(t.def.mesh.as_deref(), Some("trainer/trainer"));
    assert_eq!(t.def.cockpit.as_deref(), Some("trainer/trainer_cockpit"));
}

fn bounds(m: &ModelData) -> (Vec3, Vec3) {
    m.bounds()
        .unwrap_or_else(|| panic!("{}: empty", m.path.display()))
}

/// Share of triangles whose winding agrees with their vertex normals (front faces outwards).
fn winding_agreement(m: &ModelData) -> f64 {
    let (mut good, mut all) = (0usize, 0usize);
    for mesh in &m.meshes {
        for p in &mesh.primitives {
            for t in p.indices.chunks_exact(3) {
                let v = |i: u32| &p.vertices[i as usize];
                let (a, b, c) = (v(t[0]), v(t[1]), v(t[2]));
                let pa = Vec3::from(a.position);
                let f = (Vec3::from(b.position) - pa).cross(Vec3::from(c.position) - pa);
                if f.length() < 1e-9 {
                    continue;
                }
                let n = Vec3::from(a.normal) + Vec3::from(b.normal) + Vec3::from(c.normal);
                all += 1;
                if f.dot(n) > 0.0 {
                    good += 1;
                }
            }
        }
    }
    good as f64 / all.max(1) as f64
}

#[test]
fn the_model_family_loads_through_fl_render_at_the_documented_size_and_axes() {
    let root = std::fs::canonicalize(pack()).unwrap_or_else(|e| panic!("{e}"));
    let dir = root.join("aircraft/trainer");
    let fam = ModelFamily::load_within(&root, &dir, "trainer").unwrap_or_else(|e| panic!("{e}"));
    assert!(fam.warnings.is_empty(), "{:?}", fam.warnings);
    assert!(fam.base.warnings.is_empty(), "{:?}", fam.base.warnings);
    assert_eq!(fam.lods.len(), 3);
    assert!(fam.shadow.is_some());
    let (lo, hi) = bounds(&fam.base);
    let size = hi - lo;
    // Span along x, length along z (nose +z), height along y.
    assert!(
        (size.x - trainer::SPAN_M as f32).abs() < 0.05,
        "span {}",
        size.x
    );
    assert!((11.9..12.4).contains(&size.z), "length {}", size.z);
    assert!((3.3..4.3).contains(&size.y), "height {}", size.y);
    // The origin is the CG: the nose tip 6.3 m ahead, the wheels 1.25 m below.
    assert!(
        (hi.z - trainer::CG_STATION_M as f32).abs() < 0.05,
        "nose at z {}",
        hi.z
    );
    assert!(
        (lo.y + trainer::CG_HEIGHT_M as f32).abs() < 0.02,
        "wheels at y {}",
        lo.y
    );
    // Smooth normals over the coarsest levels' few airfoil points bend away from a few sliver
    // faces at the trailing edges; a winding error would flip whole surfaces.
    for (i, m) in std::iter::once(&fam.base).chain(&fam.lods).enumerate() {
        let a = winding_agreement(m);
        println!("{}: {a:.4}", m.path.display());
        assert!(
            a > if i < 2 { 0.995 } else { 0.97 },
            "{}: {:.4} of triangles agree",
            m.path.display(),
            a
        );
    }
    // The fin is aft: the highest point of the model lies behind the CG.
    let top = fam
        .base
        .meshes
        .iter()
        .flat_map(|m| &m.primitives)
        .flat_map(|p| &p.vertices)
        .max_by(|a, b| a.position[1].total_cmp(&b.position[1]))
        .unwrap_or_else(|| panic!("no vertices"));
    assert!(
        top.position[2] < -3.0,
        "highest point at z {}",
        top.position[2]
    );
    // Gear legs are their own nodes, turning about their strut tops.
    for name in ["gear_nose", "gear_main_l", "gear_main_r"] {
        assert!(fam.base.node_index(name).is_some(), "{name}");
    }
    // The pilot's eye, in body axes (x right, y up, z aft): 2.75 m ahead of the CG, 0.76 m up,
    // under the canopy.
    let eye = fam
        .camera_anchor
        .unwrap_or_else(|| panic!("no camera_anchor"));
    assert!((eye - Vec3::new(0.0, 0.76, -2.75)).length() < 0.01, "{eye}");
}

#[test]
fn the_cockpit_has_a_panel_and_an_eye() {
    let path = pack().join("aircraft/trainer/trainer_cockpit.glb");
    let c = load_gltf(&path).unwrap_or_else(|e| panic!("{e}"));
    assert!(c.warnings.is_empty(), "{:?}", c.warnings);
    let eye_node = c
        .node_index("camera_anchor")
        .unwrap_or_else(|| panic!("no anchor"));
    let eye = c.node_model_matrix(eye_node).transform_point3(Vec3::ZERO);
    let (lo, hi) = bounds(&c);
    // Everything around the eye, within the fuselage's width, most of it ahead and below.
    assert!(lo.x > -0.7 && hi.x < 0.7, "{lo} {hi}");
    assert!(hi.z > eye.z + 0.5, "the panel is ahead of the eye");
    assert!(winding_agreement(&c) > 0.995);
    let tris: usize = c
        .meshes
        .iter()
        .flat_map(|m| &m.primitives)
        .map(|p| p.indices.len() / 3)
        .sum();
    assert!(tris > 1000, "{tris} triangles");
}
