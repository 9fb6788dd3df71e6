//! fl-terrain over the fixture pack's NTTR tiles: the index, heights against samples read
//! straight from the PNGs, seams, the theater edge, land cover and the floor.

mod support;

use fl_flight::env::Floor;
use fl_flight::gravity::Planet;
use fl_terrain::cube::{self, TileKey};
use fl_terrain::{Base, TerrainConfig};
use support::{decode_u16, fixture_terrain};

fn tile_path(pack: &std::path::Path, key: TileKey, lc: bool) -> std::path::PathBuf {
    pack.join("terrain")
        .join(format!("{}.png", key.asset_name("world", lc)))
}

#[test]
fn the_index_uses_the_nttr_tiles_and_ignores_face_5_with_one_warning() {
    let Some((_, t)) = fixture_terrain(TerrainConfig::default()) else {
        return;
    };
    let ix = t.index();
    assert_eq!(ix.levels(1), vec![10, 9, 8, 7, 6]);
    assert!(
        ix.levels(5).is_empty(),
        "face 5's wrapped tiles are outside NTTR"
    );
    let tiles = ix.height_tiles();
    assert!(tiles.iter().all(|k| k.face == 1));
    // Every face-1 tile of levels 6–10 is used; face 5's 83 are not.
    assert_eq!(tiles.len(), 15 + 45 + 149 + 523 + 1939);
    let outside: Vec<&String> = ix
        .warnings
        .iter()
        .filter(|w| w.contains("outside every theater"))
        .collect();
    assert_eq!(outside.len(), 1, "{:?}", ix.warnings);
    assert_eq!(
        outside[0],
        "fl-base-pack: 83 terrain tile(s) lie outside every theater's bounds (theaters/*.toml) and are ignored"
    );
    assert_eq!(ix.theaters.len(), 1);
    assert_eq!(ix.theaters[0].id, "nttr");
}

#[test]
fn heights_are_the_tiles_samples_at_lattice_points_and_bilinear_between() {
    let Some((pack, t)) = fixture_terrain(TerrainConfig::default()) else {
        return;
    };
    for key in [
        TileKey::new(1, 10, 221, 965),
        TileKey::new(1, 10, 230, 950),
        TileKey::new(1, 10, 205, 975),
    ] {
        let key = key.expect("valid");
        let px = decode_u16(&tile_path(&pack, key, false));
        let sample = |row: usize, col: usize| f64::from(px[row * 129 + col]) - 32768.0;
        let n = 1024.0;
        for (row, col) in [(40usize, 70usize), (64, 64), (20, 100), (100, 30)] {
            let u = (f64::from(key.i) + col as f64 / 128.0) / n;
            let v = (f64::from(key.j) + row as f64 / 128.0) / n;
            let info = t.face_uv_info(1, u, v);
            assert_eq!(info.level, Some(10));
            assert_eq!(info.pack_weight, 1.0);
            assert_eq!(
                info.height_m,
                sample(row, col),
                "{key:?} row {row} col {col}"
            );
            // The same point by latitude/longitude (through the inverse mapping): within 1 mm.
            let (lat, lon) = cube::dir_to_latlon(cube::face_uv_to_dir(1, u, v));
            assert!((t.height_at(lat, lon) - sample(row, col)).abs() < 1e-3);
            // The bilinear midpoint of a cell is the mean of its four samples.
            let um = (f64::from(key.i) + (col as f64 + 0.5) / 128.0) / n;
            let vm = (f64::from(key.j) + (row as f64 + 0.5) / 128.0) / n;
            let mean = (sample(row, col)
                + sample(row, col + 1)
                + sample(row + 1, col)
                + sample(row + 1, col + 1))
                / 4.0;
            assert!((t.height_at_face_uv(1, um, vm) - mean).abs() < 1e-9);
        }
    }
    // Plausible Nevada: somewhere between Death Valley and the highest peaks.
    let h = t.height_at(37.0, -115.5);
    assert!((500.0..3500.0).contains(&h), "{h}");
}

#[test]
fn tiles_share_their_edges_and_the_surface_has_no_seam() {
    let Some((pack, t)) = fixture_terrain(TerrainConfig::default()) else {
        return;
    };
    let a = TileKey::new(1, 10, 221, 965).expect("valid");
    let b = TileKey::new(1, 10, 222, 965).expect("valid");
    let c = TileKey::new(1, 10, 221, 966).expect("valid");
    let (pa, pb, pc) = (
        decode_u16(&tile_path(&pack, a, false)),
        decode_u16(&tile_path(&pack, b, false)),
        decode_u16(&tile_path(&pack, c, false)),
    );
    for r in 0..129 {
        assert_eq!(pa[r * 129 + 128], pb[r * 129], "u edge row {r}");
        assert_eq!(pa[128 * 129 + r], pc[r], "v edge col {r}");
    }
    // Across the u edge between a and b: the surface is continuous (a 1e-9 step in u moves
    // under a millimetre) at every row.
    let n = 1024.0;
    for r in 0..=16 {
        let v = (965.0 + f64::from(r) / 16.0) / n;
        let u = 222.0 / n;
        let lo = t.height_at_face_uv(1, u - 1e-12, v);
        let hi = t.height_at_face_uv(1, u + 1e-12, v);
        assert!((lo - hi).abs() < 1e-3, "row {r}: {lo} {hi}");
    }
    // Across levels: the L9 tile's samples are the even L10 samples (same lattice points).
    let l9 = TileKey::new(1, 9, 110, 482).expect("valid");
    let p9 = decode_u16(&tile_path(&pack, l9, false));
    let child = TileKey::new(1, 10, 220, 964).expect("valid");
    let pc = decode_u16(&tile_path(&pack, child, false));
    for r in (0..=128).step_by(8) {
        for col in (0..=128).step_by(8) {
            assert_eq!(p9[(r / 2) * 129 + col / 2], pc[r * 129 + col]);
        }
    }
}

#[test]
fn the_theater_edge_blends_into_the_base_without_a_cliff() {
    let Some((_, t)) = fixture_terrain(TerrainConfig::default()) else {
        return;
    };
    let margin = t.config().theater_margin_m;
    let r = fl_flight::gravity::EARTH_RADIUS_M;
    // Walk east across the western edge (lon −117.5) at 36.8° N and north across the southern
    // edge (lat 35.0) at −115.0°, 25 m per step.
    for (name, start, step) in [
        (
            "west",
            (36.8, -117.7),
            (0.0, 25.0 / (r * 36.8f64.to_radians().cos())),
        ),
        ("south", (34.85, -115.0), (25.0 / r, 0.0)),
    ] {
        let mut prev: Option<(f64, f64, f64)> = None;
        let mut max_diff = 0.0f64;
        let mut saw = (false, false);
        for k in 0..24_000 {
            let lat = start.0 + (step.0 * f64::from(k)).to_degrees();
            let lon = start.1 + (step.1 * f64::from(k)).to_degrees();
            let info = t.info_at(lat, lon);
            let d = cube::latlon_to_dir(lat, lon);
            // The surface outside the pack: the base, continued as land around the theater.
            let b = t.outer_height(d);
            if info.pack_weight == 0.0 {
                assert_eq!(info.height_m, b, "{name} outside is the outer surface");
                saw.0 = true;
            } else if info.pack_weight == 1.0 {
                saw.1 = true;
            }
            // The pack's own surface here (weight ignored) bounds the blend's slope.
            let pack_h = if info.pack_weight > 0.0 {
                (info.height_m - (1.0 - info.pack_weight) * b) / info.pack_weight
            } else {
                b
            };
            max_diff = max_diff.max((pack_h - b).abs());
            if let Some((ph, ppack, pb)) = prev {
                let dh = (info.height_m - ph).abs();
                let bound = (pack_h - ppack).abs().max((b - pb).abs())
                    + 1.5 * max_diff / margin * 25.0
                    + 1e-6;
                assert!(
                    dh <= bound,
                    "{name} step {k} at ({lat}, {lon}): {dh} > {bound}"
                );
            }
            prev = Some((info.height_m, pack_h, b));
        }
        assert!(saw.0 && saw.1, "{name}: the walk crosses the whole margin");
        assert!(
            max_diff > 100.0,
            "{name}: pack and base differ there ({max_diff})"
        );
    }
}

#[test]
fn outside_the_theater_is_the_base_and_land_cover_comes_from_the_pack_inside() {
    let Some((pack, t)) = fixture_terrain(TerrainConfig::default()) else {
        return;
    };
    let base = Base::default();
    for (lat, lon) in [
        (0.0, 0.0),
        (36.5, 179.9),
        (36.5, -179.9),
        (-45.0, 100.0),
        (89.0, 0.0),
    ] {
        let d = cube::latlon_to_dir(lat, lon);
        assert_eq!(t.height_at(lat, lon), base.height(d), "({lat}, {lon})");
        assert_eq!(t.land_cover_at(lat, lon), base.land_cover(d));
    }
    // Land cover: the nearest sample of the finest tile.
    let key = TileKey::new(1, 10, 221, 965).expect("valid");
    let lc = decode_u16(&tile_path(&pack, key, true));
    let (row, col) = (50usize, 77usize);
    let u = (221.0 + (col as f64 + 0.3) / 128.0) / 1024.0;
    let v = (965.0 + (row as f64 - 0.3) / 128.0) / 1024.0;
    let (lat, lon) = cube::dir_to_latlon(cube::face_uv_to_dir(1, u, v));
    assert_eq!(
        t.land_cover_at(lat, lon),
        (lc[row * 129 + col] & 0xff) as u8
    );
}

#[test]
fn heights_do_not_depend_on_the_cache() {
    // A cache too small for more than a couple of tiles evicts constantly: same bits.
    let Some((_, big)) = fixture_terrain(TerrainConfig::default()) else {
        return;
    };
    let Some((_, small)) = fixture_terrain(TerrainConfig {
        cache_bytes: 40_000,
        ..TerrainConfig::default()
    }) else {
        return;
    };
    let mut n = 0;
    for a in 0..40 {
        for b in 0..40 {
            let lat = 35.05 + f64::from(a) * 0.085;
            let lon = -117.45 + f64::from(b) * 0.098;
            assert_eq!(
                big.height_at(lat, lon).to_bits(),
                small.height_at(lat, lon).to_bits()
            );
            n += 1;
        }
    }
    assert_eq!(n, 1600);
    let s = small.store().stats();
    assert!(s.bytes <= 40_000 + 34_000 && s.evictions > 100, "{s:?}");
}

#[test]
fn the_floor_gives_height_and_a_normal_from_the_slope() {
    let Some((_, t)) = fixture_terrain(TerrainConfig::default()) else {
        return;
    };
    let planet = Planet::earth();
    let r = planet.radius_m;
    // A mountain flank in the range: the normal leans away from up, pointing downhill.
    let mut tilted = 0;
    for k in 0..50 {
        let lat = 36.2 + f64::from(k) * 0.03;
        let lon = -115.7;
        let h = t.height_at(lat, lon);
        let p = cube::latlon_to_world(r, lat, lon, h + 50.0);
        let f = t.sample(&planet, p);
        assert!((f.height_m - h).abs() < 1e-6);
        assert!((f.normal.length() - 1.0).abs() < 1e-12);
        let up = planet.up(p);
        let cos = f.normal.dot(up);
        assert!(cos > 0.5, "slopes under 60°");
        if cos < 0.999 {
            tilted += 1;
            // Downhill along the normal's tangential part.
            let tang = f.normal - up * cos;
            let q = p + tang.normalize_or_zero() * 30.0;
            assert!(t.height_at_world(r, q) < h + 1e-6 || tang.length() < 1e-3);
        }
    }
    assert!(tilted > 10, "{tilted}");
    // Over the sea, exactly the flat floor's normal.
    let p = cube::latlon_to_world(r, 85.0, 10.0, 100.0);
    let f = t.sample(&planet, p);
    assert_eq!((f.height_m, f.normal), (0.0, planet.up(p)));
}
