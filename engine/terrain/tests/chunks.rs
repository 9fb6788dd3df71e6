//! Chunk meshes over the fixture pack's NTTR tiles: vertices on the surface `height_at` reads,
//! land cover from the pack, and a selection over Nevada that reaches the pack's detail.

mod support;

use fl_flight::gravity::EARTH_RADIUS_M as R;
use fl_flight::math::Vec3;
use fl_terrain::TerrainConfig;
use fl_terrain::chunks::{ChunkSettings, ChunkView, GRID, build_chunk, select_chunks};
use fl_terrain::cube::{self, TileKey};

#[test]
fn a_chunk_over_nttr_has_the_heights_and_land_cover_of_the_pack_at_its_vertices() {
    let Some((_, t)) = support::fixture_terrain(TerrainConfig::default()) else {
        return;
    };
    let p = cube::dir_to_face_uv(cube::latlon_to_dir(36.27, -115.64));
    let centre = Vec3::new(0.0, -R, 0.0);
    for level in [9u8, 12] {
        let key = TileKey::at(p.face, level, p.u, p.v);
        let m = build_chunk(&t, key, R);
        let (lo, hi) = m.height_range_m;
        // The Spring Mountains' foothills: real relief, well above the sea.
        assert!(lo > 500.0 && hi - lo > 20.0, "{key:?}: {lo} .. {hi}");
        let mut classes = std::collections::BTreeSet::new();
        for i in 0..GRID * GRID {
            let w = m.world_position(i).expect("vertex");
            let d = (w - centre).normalize_or_zero();
            let (lat, lon) = cube::dir_to_latlon(d);
            let h = (w - centre).length() - R;
            let want = t.height_at(lat, lon);
            // f32 offsets within a chunk of at most ~20 km: millimetres.
            assert!((h - want).abs() < 0.02, "{key:?} vertex {i}: {h} vs {want}");
            assert_eq!(
                m.land_cover[i],
                t.land_cover_at(lat, lon),
                "{key:?} vertex {i}"
            );
            classes.insert(m.land_cover[i]);
        }
        // WorldCover classes from the pack, not the base's.
        assert!(
            classes.iter().all(|c| *c % 10 == 0 || *c == 95),
            "{classes:?}"
        );
        assert!(!classes.contains(&0), "{classes:?}");
    }
}

#[test]
fn the_selection_over_nevada_from_3_km_reaches_the_packs_detail_within_its_bound() {
    let view = ChunkView {
        position: cube::latlon_to_world(R, 36.27, -115.64, 3_500.0),
        ground_height_m: 1_200.0,
        forward: None,
        vertical_fov_rad: 60f64.to_radians(),
        aspect: 16.0 / 9.0,
        viewport_height_px: 720,
        max_error_px: 2.0,
    };
    let s = ChunkSettings::default();
    let sel = select_chunks(&view, &s);
    let deepest = sel.iter().map(|c| c.key.level).max().unwrap_or(0);
    assert_eq!(deepest, s.max_level);
    assert!(sel.len() <= s.max_chunks);
    println!("{} chunks, deepest level {deepest}", sel.len());
}

/// Inside the theater's 10 km edge blend the drawn land cover fades into the dry land around
/// the theater: just inside the bound most vertices take the base's dry class, deeper in the
/// pack's class, and past the blend every vertex has the pack's class (`land_cover_at` itself
/// is unchanged). Before, the drawn class was the pack's up to the bound: the theater's
/// rectangle showed as a hard colour edge.
#[test]
fn the_theater_edge_fades_the_drawn_land_cover_into_the_land_around_it() {
    let Some((_, t)) = support::fixture_terrain(TerrainConfig::default()) else {
        return;
    };
    let margin = t.config().theater_margin_m;
    let centre = Vec3::new(0.0, -R, 0.0);
    let base = t.base();
    // (dry class chosen, pack class kept, vertices) by band of distance inside the bound.
    let mut near = (0usize, 0usize, 0usize);
    let mut mid = (0usize, 0usize, 0usize);
    let mut deep_changed = 0usize;
    // NTTR's western bound is 117.5° W: chunks astride the first 10 km inside it.
    for lat in [35.6, 36.0, 36.4, 36.8, 37.2] {
        for lon in [-117.47, -117.40] {
            let p = cube::dir_to_face_uv(cube::latlon_to_dir(lat, lon));
            let key = TileKey::at(p.face, 10, p.u, p.v);
            let m = build_chunk(&t, key, R);
            for i in 0..GRID * GRID {
                let d = (m.world_position(i).expect("vertex") - centre).normalize_or_zero();
                let (vlat, vlon) = cube::dir_to_latlon(d);
                let inside = t
                    .index()
                    .theaters
                    .iter()
                    .map(|th| th.bounds.inside_m(vlat, vlon, R))
                    .fold(f64::NEG_INFINITY, f64::max);
                let pack = t.land_cover_at(vlat, vlon);
                let dry = base.dry_cover(d);
                let drawn = m.land_cover[i];
                let band = if inside > 0.0 && inside < 0.15 * margin {
                    &mut near
                } else if inside > 0.85 * margin && inside < margin {
                    &mut mid
                } else {
                    if inside >= margin && drawn != pack {
                        deep_changed += 1;
                    }
                    continue;
                };
                // Only vertices where the two differ tell which was drawn.
                if pack != dry {
                    band.2 += 1;
                    if drawn == dry {
                        band.0 += 1;
                    } else if drawn == pack {
                        band.1 += 1;
                    }
                }
            }
        }
    }
    eprintln!("near the bound (dry, pack, n): {near:?}; near the margin: {mid:?}");
    assert_eq!(
        deep_changed, 0,
        "past the blend the drawn class is the pack's"
    );
    assert!(
        near.2 > 20 && mid.2 > 20,
        "too few vertices: {near:?} {mid:?}"
    );
    assert!(
        near.0 * 10 > near.2 * 8,
        "just inside the bound most vertices are the dry land's: {near:?}"
    );
    assert!(
        mid.1 * 10 > mid.2 * 8,
        "at the margin most vertices are the pack's: {mid:?}"
    );
}
