//! Shared helpers of fl-terrain's tests: loading a stack, writing throw-away packs and tiles.
#![allow(dead_code)]

use fl_content::{Content, ErrorPolicy, LoadOptions};
use fl_terrain::{Terrain, TerrainConfig};
use std::path::{Path, PathBuf};

/// Loads packs as the server does (broken things skipped and reported).
pub fn content(packs: &[PathBuf]) -> Content {
    Content::load(&LoadOptions {
        pack_dirs: packs.to_vec(),
        on_error: ErrorPolicy::SkipAndReport,
        ..Default::default()
    })
    .expect("content loads")
}

/// The fixture pack's terrain, or `None` (skip recorded) without the reference material.
pub fn fixture_terrain(cfg: TerrainConfig) -> Option<(PathBuf, Terrain)> {
    let pack = fl_fixtures::fixture_pack()?;
    let c = content(std::slice::from_ref(&pack));
    Some((pack, Terrain::from_content(&c, cfg)))
}

/// The fixture pack's terrain for a test that still checks something without it (`instead`
/// says what, in the partial-skip line); `None` without the pack (a failure under
/// `FL_REQUIRE_FIXTURES=1`).
pub fn fixture_terrain_or(cfg: TerrainConfig, instead: &str) -> Option<(PathBuf, Terrain)> {
    let pack = fl_fixtures::fixture_pack_or(instead)?;
    let c = content(std::slice::from_ref(&pack));
    Some((pack, Terrain::from_content(&c, cfg)))
}

/// A minimal pack manifest.
pub fn write_manifest(dir: &Path, id: &str, version: &str, priority: i32) {
    std::fs::create_dir_all(dir).expect("mkdir");
    std::fs::write(
        dir.join("manifest.toml"),
        format!(
            "[mod]\nid = \"{id}\"\nname = \"{id}\"\nversion = \"{version}\"\nengine-api = \"1.0\"\npriority = {priority}\n"
        ),
    )
    .expect("manifest");
}

/// A theater file.
pub fn write_theater(
    dir: &Path,
    name: &str,
    min_lat: f64,
    min_lon: f64,
    max_lat: f64,
    max_lon: f64,
) {
    std::fs::create_dir_all(dir.join("theaters")).expect("mkdir");
    std::fs::write(
        dir.join("theaters").join(format!("{name}.toml")),
        format!(
            "[theater]\nid = \"{name}\"\nbounds = {{ min_lat = {min_lat}, min_lon = {min_lon}, max_lat = {max_lat}, max_lon = {max_lon} }}\nterrain = \"world\"\n"
        ),
    )
    .expect("theater");
}

/// A 16-bit grayscale PNG of 129 × 129 heights (metres; stored + 32768).
pub fn height_png(f: impl Fn(usize, usize) -> i32) -> Vec<u8> {
    let mut data = Vec::with_capacity(129 * 129 * 2);
    for row in 0..129 {
        for col in 0..129 {
            let v = (f(row, col) + 32768).clamp(0, 65535) as u16;
            data.extend_from_slice(&v.to_be_bytes());
        }
    }
    encode(129, 129, png::BitDepth::Sixteen, &data)
}

/// Any grayscale PNG.
pub fn encode(w: u32, h: u32, depth: png::BitDepth, data: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    {
        let mut enc = png::Encoder::new(&mut out, w, h);
        enc.set_color(png::ColorType::Grayscale);
        enc.set_depth(depth);
        let mut wr = enc.write_header().expect("header");
        wr.write_image_data(data).expect("data");
    }
    out
}

/// Writes a tile file into a pack.
pub fn write_tile(pack: &Path, face: u8, level: u8, name: &str, bytes: &[u8]) -> PathBuf {
    let dir = pack.join(format!("terrain/world/f{face}/l{level}"));
    std::fs::create_dir_all(&dir).expect("mkdir");
    let p = dir.join(format!("{name}.png"));
    std::fs::write(&p, bytes).expect("tile");
    p
}

/// Decodes a 16-bit PNG's samples (the test's own reading of a fixture tile).
pub fn decode_u16(path: &Path) -> Vec<u16> {
    let bytes = std::fs::read(path).expect("read");
    let mut dec = png::Decoder::new(std::io::Cursor::new(bytes.as_slice()));
    dec.set_transformations(png::Transformations::IDENTITY);
    let mut r = dec.read_info().expect("info");
    let mut buf = vec![0u8; r.output_buffer_size().expect("size")];
    r.next_frame(&mut buf).expect("frame");
    buf.chunks_exact(2)
        .map(|c| u16::from_be_bytes([c[0], c[1]]))
        .collect()
}
