//! Hostile and unusual packs, built in a temporary directory: bad tiles fall back to the coarser
//! level with one warning naming the file, bad names and out-of-theater tiles are reported once,
//! and where a level's coverage ends the surface blends into the coarser level without a step.

mod support;

use fl_terrain::cube::{self, TileKey};
use fl_terrain::{Terrain, TerrainConfig};
use std::path::Path;
use support::{content, encode, height_png, write_manifest, write_theater, write_tile};

/// A level-3 tile in the middle of face 1 (−X), so its 3 × 3 block stays on the face.
fn centre() -> TileKey {
    let p = cube::dir_to_face_uv(cube::latlon_to_dir(10.0, -85.0));
    TileKey::at(p.face, 3, p.u, p.v)
}

fn name(k: TileKey) -> String {
    format!("tile_{}_{}", k.i, k.j)
}

/// A pack with a 3 × 3 block of flat 1000 m level-3 tiles around the centre, and the centre's
/// four level-4 children at 2000 m (those in `skip` left out, `replace` written instead).
fn build(dir: &Path, skip: &[usize], replace: Option<(usize, &[u8])>) {
    write_manifest(dir, "hostile", "1.0", 10);
    write_theater(dir, "big", -35.0, -150.0, 50.0, -30.0);
    let c = centre();
    for di in -1i64..=1 {
        for dj in -1i64..=1 {
            let k = TileKey::new(
                c.face,
                3,
                (i64::from(c.i) + di) as u32,
                (i64::from(c.j) + dj) as u32,
            )
            .expect("in face");
            write_tile(dir, k.face, 3, &name(k), &height_png(|_, _| 1000));
        }
    }
    for q in 0..4usize {
        let k = TileKey::new(
            c.face,
            4,
            c.i * 2 + (q as u32 & 1),
            c.j * 2 + (q as u32 >> 1),
        )
        .expect("child");
        if skip.contains(&q) {
            continue;
        }
        match replace {
            Some((r, bytes)) if r == q => {
                write_tile(dir, k.face, 4, &name(k), bytes);
            }
            _ => {
                write_tile(dir, k.face, 4, &name(k), &height_png(|_, _| 2000));
            }
        }
    }
}

fn terrain(dir: &Path) -> Terrain {
    Terrain::from_content(&content(&[dir.to_path_buf()]), TerrainConfig::default())
}

/// Heights over the centre tile and around it, as bits.
fn survey(t: &Terrain) -> Vec<u64> {
    let c = centre();
    let mut out = Vec::new();
    for a in 0..=30 {
        for b in 0..=30 {
            let s = -0.25 + 1.5 * f64::from(a) / 30.0;
            let q = -0.25 + 1.5 * f64::from(b) / 30.0;
            let (u, v) = c.face_uv(s, q);
            out.push(t.height_at_face_uv(c.face, u, v).to_bits());
        }
    }
    out
}

#[test]
fn a_hostile_tile_is_skipped_once_and_the_coarser_level_stands_in() {
    let good = height_png(|_, _| 2000);
    let mut truncated = good.clone();
    truncated.truncate(good.len() / 2);
    let mut corrupt = good.clone();
    let mid = corrupt.len() / 2;
    for b in &mut corrupt[mid..mid + 8] {
        *b ^= 0x5a;
    }
    let mut absurd = good.clone();
    absurd[16..20].copy_from_slice(&1_000_000u32.to_be_bytes());
    absurd[20..24].copy_from_slice(&1_000_000u32.to_be_bytes());
    let variants: Vec<(&str, Vec<u8>)> = vec![
        (
            "wrong size",
            encode(65, 65, png::BitDepth::Sixteen, &vec![0; 65 * 65 * 2]),
        ),
        (
            "8-bit",
            encode(129, 129, png::BitDepth::Eight, &vec![7; 129 * 129]),
        ),
        ("truncated", truncated),
        ("corrupt", corrupt),
        ("absurd dimensions", absurd),
        ("not a png", b"GIF89a nothing to see".to_vec()),
        ("empty", Vec::new()),
    ];
    let reference = tempfile::tempdir().expect("tmp");
    build(reference.path(), &[3], None);
    let want = survey(&terrain(reference.path()));
    // The coarser level really differs from the finer one there (the test can fail).
    let full = tempfile::tempdir().expect("tmp");
    build(full.path(), &[], None);
    assert_ne!(survey(&terrain(full.path())), want);
    for (what, bytes) in variants {
        let dir = tempfile::tempdir().expect("tmp");
        build(dir.path(), &[], Some((3, &bytes)));
        let t = terrain(dir.path());
        assert_eq!(survey(&t), want, "{what}: the bad tile reads as absent");
        assert_eq!(survey(&t), want, "{what}: and again, from the verdict");
        let bad = t.store().bad_tiles();
        assert_eq!(bad.len(), 1, "{what}: one warning: {bad:?}");
        let c = centre();
        let file = format!("tile_{}_{}.png", c.i * 2 + 1, c.j * 2 + 1);
        assert!(
            bad[0].starts_with("hostile/terrain/world/f1/l4/") && bad[0].contains(&file),
            "{what}: {}",
            bad[0]
        );
        assert!(bad[0].contains("coarser level"), "{}", bad[0]);
    }
}

#[test]
fn bad_names_and_tiles_outside_the_theaters_are_reported_once() {
    let dir = tempfile::tempdir().expect("tmp");
    build(dir.path(), &[], None);
    let flat = height_png(|_, _| 5);
    write_tile(dir.path(), 1, 3, "tile_99_0", &flat);
    write_tile(dir.path(), 1, 3, "tile_x", &flat);
    write_tile(dir.path(), 1, 3, "tile_01_2", &flat);
    // Two tiles on face 4 (around lat 0, lon 0): far outside the theater.
    write_tile(dir.path(), 4, 3, "tile_3_3", &flat);
    write_tile(dir.path(), 4, 3, "tile_4_4", &flat);
    let t = terrain(dir.path());
    let w = &t.index().warnings;
    let has = |needle: &str| w.iter().filter(|x| x.contains(needle)).count();
    assert_eq!(
        has("tile_99_0.png: tile (99, 0) does not exist at level 3"),
        1,
        "{w:?}"
    );
    assert_eq!(has("tile_x.png: not a tile name"), 1, "{w:?}");
    assert_eq!(has("tile_01_2.png: not a tile name"), 1, "{w:?}");
    assert_eq!(
        has("hostile: 2 terrain tile(s) lie outside every theater's bounds"),
        1,
        "{w:?}"
    );
    assert_eq!(w.len(), 4, "{w:?}");
    assert!(t.index().levels(4).is_empty());
    // Around lat 0 lon 0 the base rules.
    let d = cube::latlon_to_dir(0.0, 0.0);
    assert_eq!(t.height_at(0.0, 0.0), t.base().height(d));
}

#[test]
fn where_a_level_ends_the_surface_blends_into_the_coarser_one() {
    let dir = tempfile::tempdir().expect("tmp");
    build(dir.path(), &[], None);
    let t = terrain(dir.path());
    let c = centre();
    let r = fl_flight::gravity::EARTH_RADIUS_M;
    // Along v through the children's middle, from inside the centre tile across its +u edge,
    // where level 4 ends and level 3 goes on.
    let (mut prev, mut max_slope) = (None::<(f64, fl_flight::math::Vec3)>, 0.0f64);
    let mut at_edge = None;
    for k in 0..=4000 {
        let s = 0.5 + f64::from(k) / 4000.0;
        let (u, v) = c.face_uv(s, 0.3);
        let info = t.face_uv_info(c.face, u, v);
        assert_eq!(info.pack_weight, 1.0, "inside the theater");
        let d = cube::face_uv_to_dir(c.face, u, v);
        if let Some((ph, pd)) = prev {
            let dist = (d - pd).length() * r;
            max_slope = max_slope.max((info.height_m - ph).abs() / dist);
        }
        if k == 2000 {
            at_edge = Some(info.height_m);
        }
        if k == 0 {
            assert_eq!(info.height_m, 2000.0, "deep inside level 4");
            assert_eq!(info.level, Some(4));
        }
        if k == 4000 {
            assert_eq!(info.height_m, 1000.0, "level 3 beyond");
            assert_eq!(info.level, Some(3));
        }
        prev = Some((info.height_m, d));
    }
    assert_eq!(
        at_edge,
        Some(1000.0),
        "at the edge the coarser level exactly"
    );
    // 1000 m over 16 samples of ~4.9 km: at most 1.5 x 1000 / 78 km.
    assert!(max_slope < 0.03, "{max_slope}");
}

#[test]
fn a_higher_priority_pack_overrides_a_tile() {
    let low = tempfile::tempdir().expect("tmp");
    build(low.path(), &[], None);
    let high = tempfile::tempdir().expect("tmp");
    write_manifest(high.path(), "override", "1.0", 50);
    let c = centre();
    let k = TileKey::new(c.face, 4, c.i * 2, c.j * 2).expect("child");
    write_tile(high.path(), k.face, 4, &name(k), &height_png(|_, _| 3000));
    let both = Terrain::from_content(
        &content(&[low.path().to_path_buf(), high.path().to_path_buf()]),
        TerrainConfig::default(),
    );
    let (u, v) = k.face_uv(0.5, 0.5);
    assert_eq!(both.height_at_face_uv(k.face, u, v), 3000.0);
    assert_eq!(
        both.index().file_of(k, false).map(|f| f.0),
        Some("override")
    );
    let (u, v) = k.beyond(1.5, 0.5).face_uv(0.5, 0.5);
    assert_eq!(both.height_at_face_uv(k.face, u, v), 2000.0);
}

#[test]
fn a_broken_theater_file_and_a_tile_escaping_the_pack_are_warnings_not_failures() {
    let dir = tempfile::tempdir().expect("tmp");
    build(dir.path(), &[], None);
    std::fs::write(
        dir.path().join("theaters/broken.toml"),
        "[theater\nbounds = 3",
    )
    .expect("write");
    std::fs::write(
        dir.path().join("theaters/nan.toml"),
        "[theater]\nbounds = { min_lat = nan, min_lon = 0, max_lat = 1, max_lon = 1 }",
    )
    .expect("write");
    // A level-4 tile that is a symlink to a file outside the pack.
    let outside = tempfile::tempdir().expect("tmp");
    let secret = outside.path().join("secret.png");
    std::fs::write(&secret, height_png(|_, _| 9999)).expect("write");
    let c = centre();
    let k = TileKey::new(c.face, 4, c.i * 2 + 1, c.j * 2 + 1).expect("child");
    let link = dir
        .path()
        .join(format!("terrain/world/f{}/l4/{}.png", k.face, name(k)));
    std::fs::remove_file(&link).expect("rm");
    #[cfg(unix)]
    std::os::unix::fs::symlink(&secret, &link).expect("symlink");
    #[cfg(not(unix))]
    std::fs::write(&link, b"not a png").expect("write");
    let t = terrain(dir.path());
    let w = &t.index().warnings;
    assert!(
        w.iter()
            .any(|x| x.contains("theaters/broken.toml: theater ignored")),
        "{w:?}"
    );
    assert!(
        w.iter()
            .any(|x| x.contains("theaters/nan.toml: theater ignored")),
        "{w:?}"
    );
    // The escaping tile is refused when read: the coarser level (1000 m) stands in, never 9999.
    let (u, v) = k.face_uv(0.5, 0.5);
    assert_eq!(t.height_at_face_uv(k.face, u, v), 1000.0);
    let bad = t.store().bad_tiles();
    assert_eq!(bad.len(), 1, "{bad:?}");
    assert!(bad[0].contains(&format!("{}.png", name(k))), "{}", bad[0]);
}
