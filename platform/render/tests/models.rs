//! Model loading on the CPU: the pack's F-16A family as it is, and hostile glTF files (truncated,
//! garbage, absurd counts and sizes, missing buffers, cycles, an image that is not an image):
//! each gives a typed error naming the file, or — for textures — a warning, never a panic.

mod common;

use std::path::{Path, PathBuf};

use fl_render::model::texture::ImageCache;
use fl_render::model::{
    ModelError, ModelFamily, TexturePixels, load_gltf, load_gltf_bytes, load_gltf_cached,
};

#[test]
fn the_pack_f16a_family_loads_with_its_textures_and_anchor() {
    let Some(dir) = common::f16a_dir() else {
        return;
    };
    let f = ModelFamily::load(&dir, "f16a").expect("f16a");
    let base = &f.base;
    assert_eq!(f.lods.len(), 3, "f16a_lod0..2");
    assert!(f.shadow.is_some(), "f16a_shadow");
    // Nodes with names (articulation and hardpoints address them).
    assert!(base.node_index("f16a").is_some() && base.node_index("hardpoint_9").is_some());
    let dmg = base.node_index("f16a_b").expect("damage node");
    assert!(base.is_damage_node(dmg) && !base.is_damage_node(base.node_index("f16a").unwrap_or(0)));
    // The F-16A spans z −16.0 … +0.54 in its file (nose at +Z).
    let (lo, hi) = base.bounds().expect("bounds");
    assert!(
        (lo.z + 16.0).abs() < 0.05 && (hi.z - 0.54).abs() < 0.01,
        "{lo} {hi}"
    );
    // No KTX2 in a source checkout: the PNG masters from textures-src/ are used, quietly.
    let m = &base.materials[0];
    let img = base.images[m.base_color_texture.expect("base colour texture")]
        .as_ref()
        .expect("image");
    assert!(
        img.source.ends_with("textures-src/f16a_diffuse.png"),
        "{}",
        img.source.display()
    );
    assert_eq!((img.width, img.height), (1024, 1024));
    assert!(matches!(&img.pixels, TexturePixels::Rgba8(p) if p.len() == 1024 * 1024 * 4));
    assert!(m.metallic_roughness_texture.is_some() && m.occlusion_texture.is_some());
    assert!(f.warnings.is_empty(), "{:?}", f.warnings);
    // The cockpit's camera_anchor, in body axes: 0.7 m up and 2.8 m aft of the reference point.
    let eye = f.camera_anchor.expect("camera_anchor");
    assert!(
        (eye - glam::Vec3::new(0.0, 0.705, 2.814)).length() < 0.01,
        "{eye}"
    );
    // LOD meshes are lighter than the base.
    let tris = |m: &fl_render::model::ModelData| -> usize {
        m.meshes
            .iter()
            .flat_map(|x| &x.primitives)
            .map(|p| p.indices.len() / 3)
            .sum()
    };
    assert!(
        tris(&f.lods[2]) * 4 < tris(base),
        "{} vs {}",
        tris(&f.lods[2]),
        tris(base)
    );
}

/// A GLB container around `json` and `bin`.
fn glb(json: &str, bin: &[u8]) -> Vec<u8> {
    let mut j = json.as_bytes().to_vec();
    while !j.len().is_multiple_of(4) {
        j.push(b' ');
    }
    let mut b = bin.to_vec();
    while !b.len().is_multiple_of(4) {
        b.push(0);
    }
    let total = 12 + 8 + j.len() + if b.is_empty() { 0 } else { 8 + b.len() };
    let mut out = Vec::new();
    out.extend_from_slice(b"glTF");
    out.extend_from_slice(&2u32.to_le_bytes());
    out.extend_from_slice(&(total as u32).to_le_bytes());
    out.extend_from_slice(&(j.len() as u32).to_le_bytes());
    out.extend_from_slice(b"JSON");
    out.extend_from_slice(&j);
    if !b.is_empty() {
        out.extend_from_slice(&(b.len() as u32).to_le_bytes());
        out.extend_from_slice(b"BIN\0");
        out.extend_from_slice(&b);
    }
    out
}

/// One triangle: positions (36 bytes) then u16 indices (6 bytes, padded to 8).
fn triangle_bin() -> Vec<u8> {
    let mut b = Vec::new();
    for v in [[0f32, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]] {
        for c in v {
            b.extend_from_slice(&c.to_le_bytes());
        }
    }
    for i in [0u16, 1, 2, 0] {
        b.extend_from_slice(&i.to_le_bytes());
    }
    b
}

/// The triangle's JSON with the pieces a test wants to break.
fn triangle_json(pos_count: u64, view0_len: u64, extra: &str) -> String {
    format!(
        r#"{{"asset":{{"version":"2.0"}},"scene":0,"scenes":[{{"nodes":[0]}}],
        "nodes":[{{"name":"tri","mesh":0}}],
        "meshes":[{{"primitives":[{{"attributes":{{"POSITION":0}},"indices":1,"material":0}}]}}],
        "materials":[{{"pbrMetallicRoughness":{{"baseColorFactor":[1,0,0,1],"baseColorTexture":{{"index":0}}}}}}],
        "textures":[{{"source":0}}],
        "images":[{{"uri":"../../textures/tri_diffuse.ktx2"}}],
        "buffers":[{{"byteLength":44}}],
        "bufferViews":[{{"buffer":0,"byteOffset":0,"byteLength":{view0_len}}},{{"buffer":0,"byteOffset":36,"byteLength":6}}],
        "accessors":[{{"bufferView":0,"componentType":5126,"count":{pos_count},"type":"VEC3","min":[0,0,0],"max":[1,1,0]}},
                     {{"bufferView":1,"componentType":5123,"count":3,"type":"SCALAR"}}]{extra}}}"#
    )
}

fn tmp_model(bytes: &[u8]) -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().expect("tempdir");
    let model_dir = dir.path().join("aircraft/tri");
    std::fs::create_dir_all(&model_dir).expect("mkdir");
    let p = model_dir.join("tri.glb");
    std::fs::write(&p, bytes).expect("write");
    (dir, p)
}

fn names_file(e: &ModelError, file: &Path) -> bool {
    e.to_string().contains(&file.display().to_string())
}

#[test]
fn a_good_triangle_loads_and_a_missing_texture_is_one_warning() {
    let (_d, p) = tmp_model(&glb(&triangle_json(3, 36, ""), &triangle_bin()));
    let m = load_gltf(&p).expect("loads");
    assert_eq!(m.meshes[0].primitives[0].indices, vec![0, 1, 2]);
    // No normals in the file: computed (+Z for this triangle).
    assert_eq!(
        m.meshes[0].primitives[0].vertices[0].normal,
        [0.0, 0.0, 1.0]
    );
    assert_eq!(m.materials[0].base_color_texture, None, "factors only");
    assert_eq!(m.warnings.len(), 1, "{:?}", m.warnings);
    let w = m.warnings[0].to_string();
    assert!(
        w.contains("tri_diffuse.ktx2") && w.contains("textures-src") && w.contains("factors"),
        "{w}"
    );
}

#[test]
fn the_source_png_is_used_when_no_ktx2_exists_and_ktx2_wins_when_it_does() {
    let (d, p) = tmp_model(&glb(&triangle_json(3, 36, ""), &triangle_bin()));
    let src = p.parent().expect("dir").join("textures-src");
    std::fs::create_dir_all(&src).expect("mkdir");
    image::RgbaImage::from_pixel(4, 4, image::Rgba([0, 255, 0, 255]))
        .save(src.join("tri_diffuse.png"))
        .expect("png");
    let m = load_gltf(&p).expect("loads");
    let i = m.materials[0].base_color_texture.expect("texture");
    assert!(
        m.images[i]
            .as_ref()
            .expect("image")
            .source
            .ends_with("textures-src/tri_diffuse.png")
    );
    assert!(m.warnings.is_empty(), "{:?}", m.warnings);
    // A released pack's KTX2 (uncompressed RGBA8 here) takes precedence.
    let tex = d.path().join("textures");
    std::fs::create_dir_all(&tex).expect("mkdir");
    let mut k = vec![
        0xAB, 0x4B, 0x54, 0x58, 0x20, 0x32, 0x30, 0xBB, 0x0D, 0x0A, 0x1A, 0x0A,
    ];
    for v in [43u32, 1, 1, 1, 0, 0, 1, 1, 0] {
        k.extend_from_slice(&v.to_le_bytes());
    }
    k.extend_from_slice(&[0; 32]);
    for v in [104u64, 4, 4] {
        k.extend_from_slice(&v.to_le_bytes());
    }
    k.extend_from_slice(&[9, 9, 9, 255]);
    std::fs::write(tex.join("tri_diffuse.ktx2"), &k).expect("ktx2");
    let m = load_gltf(&p).expect("loads");
    let img = m.images[0].as_ref().expect("image");
    assert!(
        img.source.ends_with("tri_diffuse.ktx2"),
        "{}",
        img.source.display()
    );
    assert_eq!(img.pixels, TexturePixels::Rgba8(vec![9, 9, 9, 255]));
}

#[test]
fn an_image_that_is_not_an_image_is_a_warning_naming_it() {
    let (_d, p) = tmp_model(&glb(&triangle_json(3, 36, ""), &triangle_bin()));
    let src = p.parent().expect("dir").join("textures-src");
    std::fs::create_dir_all(&src).expect("mkdir");
    std::fs::write(src.join("tri_diffuse.png"), b"this is not a PNG at all").expect("write");
    let m = load_gltf(&p).expect("a bad texture is never fatal");
    assert_eq!(m.materials[0].base_color_texture, None);
    assert_eq!(m.warnings.len(), 1);
    assert!(
        m.warnings[0]
            .message
            .contains("textures-src/tri_diffuse.png"),
        "{}",
        m.warnings[0]
    );
}

#[test]
fn truncated_and_garbage_files_are_typed_errors_naming_the_file() {
    let good = glb(&triangle_json(3, 36, ""), &triangle_bin());
    let p = PathBuf::from("/pack/aircraft/tri/tri.glb");
    for cut in (0..good.len()).step_by(5) {
        let e = load_gltf_bytes(&p, &good[..cut]).expect_err("truncated");
        assert!(names_file(&e, &p), "{e}");
    }
    // Deterministic garbage, and garbage behind a valid GLB magic.
    let mut x = 0x9E37_79B9u32;
    let mut garbage = Vec::new();
    for _ in 0..4096 {
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        garbage.push(x as u8);
    }
    assert!(names_file(
        &load_gltf_bytes(&p, &garbage).expect_err("garbage"),
        &p
    ));
    let mut magic = good[..12].to_vec();
    magic.extend_from_slice(&garbage);
    assert!(load_gltf_bytes(&p, &magic).is_err());
    // Flipping each byte of the good file never panics (errors or loads).
    for i in 0..good.len() {
        let mut m = good.clone();
        m[i] ^= 0xFF;
        let _ = load_gltf_bytes(&p, &m);
    }
}

#[test]
fn absurd_counts_and_sizes_are_refused_before_allocating() {
    let p = PathBuf::from("/pack/aircraft/tri/tri.glb");
    // An accessor claiming four billion vertices in a 36-byte view.
    let e = load_gltf_bytes(
        &p,
        &glb(&triangle_json(4_000_000_000, 36, ""), &triangle_bin()),
    )
    .expect_err("count");
    assert!(
        matches!(e, ModelError::Limit { .. } | ModelError::Invalid { .. }) && names_file(&e, &p),
        "{e}"
    );
    // A plausible count that does not fit its view.
    let e =
        load_gltf_bytes(&p, &glb(&triangle_json(1000, 36, ""), &triangle_bin())).expect_err("fit");
    assert!(matches!(e, ModelError::Invalid { .. }), "{e}");
    // A view that runs past its buffer.
    let e = load_gltf_bytes(&p, &glb(&triangle_json(3, 1 << 40, ""), &triangle_bin()))
        .expect_err("view");
    assert!(e.to_string().contains("bufferView"), "{e}");
    // Indices past the vertices.
    let mut bin = triangle_bin();
    bin[38] = 200;
    let e = load_gltf_bytes(&p, &glb(&triangle_json(3, 36, ""), &bin)).expect_err("index");
    assert!(e.to_string().contains("index 200"), "{e}");
}

#[test]
fn a_missing_buffer_file_is_an_error_naming_both_files() {
    let dir = tempfile::tempdir().expect("tempdir");
    let p = dir.path().join("tri.gltf");
    let json = triangle_json(3, 36, "").replace(
        r#""buffers":[{"byteLength":44}]"#,
        r#""buffers":[{"byteLength":44,"uri":"tri_missing.bin"}]"#,
    );
    std::fs::write(&p, json).expect("write");
    let e = load_gltf(&p).expect_err("missing buffer");
    let s = e.to_string();
    assert!(
        s.contains("tri.gltf") && s.contains("tri_missing.bin"),
        "{s}"
    );
    // A GLB whose buffer points at a BIN chunk it does not have.
    let e = load_gltf_bytes(&p, &glb(&triangle_json(3, 36, ""), &[])).expect_err("no BIN");
    assert!(names_file(&e, &p), "{e}");
}

#[test]
fn node_cycles_are_refused() {
    let p = PathBuf::from("/pack/x.glb");
    let json = triangle_json(3, 36, "").replace(
        r#""nodes":[{"name":"tri","mesh":0}]"#,
        r#""nodes":[{"name":"a","children":[1]},{"name":"b","children":[0],"mesh":0}]"#,
    );
    let e = load_gltf_bytes(&p, &glb(&json, &triangle_bin())).expect_err("cycle");
    assert!(names_file(&e, &p), "{e}");
}

#[test]
fn a_missing_model_file_is_an_io_error_naming_it() {
    let p = PathBuf::from("/nonexistent/aircraft/x/x.glb");
    let e = load_gltf(&p).expect_err("missing");
    assert!(
        matches!(e, ModelError::Io { .. }) && names_file(&e, &p),
        "{e}"
    );
}

#[test]
fn a_family_warns_once_per_missing_texture_and_decodes_each_file_once() {
    let bytes = glb(&triangle_json(3, 36, ""), &triangle_bin());
    let (_d, p) = tmp_model(&bytes);
    let dir = p.parent().expect("dir").to_path_buf();
    std::fs::write(dir.join("tri_lod0.glb"), &bytes).expect("lod0");
    std::fs::write(dir.join("tri_lod1.glb"), &bytes).expect("lod1");
    let f = ModelFamily::load(&dir, "tri").expect("family");
    assert_eq!(f.lods.len(), 2);
    assert_eq!(
        f.warnings.len(),
        1,
        "one warning for the one missing texture: {:?}",
        f.warnings
    );
    // With the PNG present, the LODs get the same decoded image as the base.
    let src = dir.join("textures-src");
    std::fs::create_dir_all(&src).expect("mkdir");
    image::RgbaImage::from_pixel(2, 2, image::Rgba([1, 2, 3, 255]))
        .save(src.join("tri_diffuse.png"))
        .expect("png");
    let f = ModelFamily::load(&dir, "tri").expect("family");
    assert!(f.warnings.is_empty());
    assert_eq!(f.base.images[0], f.lods[1].images[0]);
}

/// A pack at `<tmp>/pack` with the triangle as `aircraft/tri/tri.glb`, and a directory beside
/// the pack (`<tmp>/outside`) holding files a hostile pack might point at.
#[cfg(unix)]
fn pack_and_outside(bytes: &[u8]) -> (tempfile::TempDir, PathBuf, PathBuf, PathBuf) {
    let tmp = tempfile::tempdir().expect("tempdir");
    let root = tmp.path().join("pack");
    let dir = root.join("aircraft/tri");
    let outside = tmp.path().join("outside");
    std::fs::create_dir_all(&dir).expect("mkdir");
    std::fs::create_dir_all(&outside).expect("mkdir");
    std::fs::write(dir.join("tri.glb"), bytes).expect("write");
    (tmp, root, dir, outside)
}

#[cfg(unix)]
#[test]
fn a_sibling_linked_out_of_the_pack_is_left_out_with_a_warning() {
    let bytes = glb(&triangle_json(3, 36, ""), &triangle_bin());
    let (_tmp, root, dir, outside) = pack_and_outside(&bytes);
    std::fs::write(outside.join("secret.glb"), &bytes).expect("write");
    std::os::unix::fs::symlink(outside.join("secret.glb"), dir.join("tri_lod0.glb"))
        .expect("symlink");
    std::os::unix::fs::symlink(outside.join("secret.glb"), dir.join("tri_shadow.glb"))
        .expect("symlink");
    // Unconfined (a model on its own), the link is followed...
    let open = ModelFamily::load(&dir, "tri").expect("family");
    assert_eq!(open.lods.len(), 1);
    // ...inside a pack it is refused, and said so.
    let f = ModelFamily::load_within(&root, &dir, "tri").expect("family");
    assert!(f.lods.is_empty() && f.shadow.is_none());
    let outside_warnings = f
        .warnings
        .iter()
        .filter(|w| w.message.contains("outside the pack"))
        .count();
    assert_eq!(outside_warnings, 2, "{:?}", f.warnings);
    // The base file itself linked out is an error.
    std::fs::remove_file(dir.join("tri.glb")).expect("rm");
    std::os::unix::fs::symlink(outside.join("secret.glb"), dir.join("tri.glb")).expect("symlink");
    let e = ModelFamily::load_within(&root, &dir, "tri").expect_err("base outside");
    assert!(matches!(e, ModelError::OutsidePack { .. }), "{e}");
}

#[cfg(unix)]
#[test]
fn buffers_and_textures_outside_the_pack_are_refused() {
    // A buffer URI climbing out of the pack is an error naming the file.
    let json = triangle_json(3, 36, "").replace(
        r#""buffers":[{"byteLength":44}]"#,
        r#""buffers":[{"byteLength":44,"uri":"../../../outside/tri.bin"}]"#,
    );
    let (_tmp, root, dir, outside) = pack_and_outside(b"");
    std::fs::write(outside.join("tri.bin"), triangle_bin()).expect("bin");
    let gltf = dir.join("tri.gltf");
    std::fs::write(&gltf, &json).expect("gltf");
    assert!(load_gltf(&gltf).is_ok(), "unconfined, the buffer is read");
    let e = load_gltf_cached(&gltf, &mut ImageCache::within(&root)).expect_err("outside");
    assert!(
        matches!(e, ModelError::OutsidePack { .. }) && e.to_string().contains("tri.bin"),
        "{e}"
    );

    // A texture linked out of the pack: the material's factors and a warning, never the file.
    let bytes = glb(&triangle_json(3, 36, ""), &triangle_bin());
    let (_tmp, root, dir, outside) = pack_and_outside(&bytes);
    image::RgbaImage::from_pixel(2, 2, image::Rgba([9, 9, 9, 255]))
        .save(outside.join("tri_diffuse.png"))
        .expect("png");
    std::fs::create_dir_all(dir.join("textures-src")).expect("mkdir");
    std::os::unix::fs::symlink(
        outside.join("tri_diffuse.png"),
        dir.join("textures-src/tri_diffuse.png"),
    )
    .expect("symlink");
    let f = ModelFamily::load(&dir, "tri").expect("family");
    assert!(
        f.base.images[0].is_some(),
        "unconfined, the link is followed"
    );
    let f = ModelFamily::load_within(&root, &dir, "tri").expect("family");
    assert!(f.base.images[0].is_none());
    assert!(
        f.warnings
            .iter()
            .any(|w| w.message.contains("outside the pack")),
        "{:?}",
        f.warnings
    );
}

#[cfg(unix)]
#[test]
fn a_fifo_in_place_of_a_sibling_never_blocks_the_load() {
    let bytes = glb(&triangle_json(3, 36, ""), &triangle_bin());
    let (_tmp, root, dir, _outside) = pack_and_outside(&bytes);
    let status = std::process::Command::new("mkfifo")
        .arg(dir.join("tri_lod0.glb"))
        .status()
        .expect("mkfifo");
    assert!(status.success());
    // Opening a FIFO with no writer would block forever; it must be refused before opening.
    let f = ModelFamily::load_within(&root, &dir, "tri").expect("family");
    assert!(f.lods.is_empty());
    assert!(
        f.warnings
            .iter()
            .any(|w| w.message.contains("not a regular file")),
        "{:?}",
        f.warnings
    );
}
