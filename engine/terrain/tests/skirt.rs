//! The land around a theater (the skirt): NTTR is not an island in the base's sea. Walking
//! outward from each of its edges the surface stays land with a bounded slope, its height near
//! the edge is the pack's, far away it is the ordinary base, and it is the same bits every load.

mod support;

use fl_flight::gravity::EARTH_RADIUS_M;
use fl_terrain::base::class;
use fl_terrain::cube;
use fl_terrain::{Base, SKIRT_REACH_M, Terrain, TerrainConfig};
use support::fixture_terrain;

/// Steepest slope allowed on the skirt (rise over run): a gentle desert bajada, far below the
/// pack's own mountain flanks.
const MAX_SKIRT_SLOPE: f64 = 0.02;
const STEP_M: f64 = 250.0;
const WALK_M: f64 = 300_000.0;

/// NTTR's bounds in the fixture pack.
const S: f64 = 35.0;
const N: f64 = 38.5;
const W: f64 = -117.5;
const E: f64 = -113.5;

/// Walks outward from the bound: (name, start lat, start lon, dlat per m, dlon per m).
fn walks() -> Vec<(String, f64, f64, f64, f64)> {
    let per_m = (1.0 / EARTH_RADIUS_M).to_degrees();
    let mut v = Vec::new();
    for lon in [-117.0f64, -115.5, -114.0] {
        v.push((format!("south at {lon}"), S, lon, -per_m, 0.0));
        v.push((format!("north at {lon}"), N, lon, per_m, 0.0));
    }
    for lat in [35.5f64, 36.75, 38.0] {
        let per_m_lon = per_m / lat.to_radians().cos();
        v.push((format!("west at {lat}"), lat, W, 0.0, -per_m_lon));
        v.push((format!("east at {lat}"), lat, E, 0.0, per_m_lon));
    }
    v
}

#[test]
fn walking_outward_from_every_edge_for_300_km_stays_land_with_a_bounded_slope() {
    let Some((_, t)) = fixture_terrain(TerrainConfig::default()) else {
        return;
    };
    let steps = (WALK_M / STEP_M) as u32;
    let mut worst = 0.0f64;
    for (name, lat0, lon0, dlat, dlon) in walks() {
        let mut prev: Option<f64> = None;
        let (mut lo, mut hi, mut steepest) = (f64::INFINITY, 0.0f64, 0.0f64);
        for k in 0..=steps {
            let m = f64::from(k) * STEP_M;
            let (lat, lon) = (lat0 + dlat * m, lon0 + dlon * m);
            let h = t.height_at(lat, lon);
            assert!(h > 0.0, "{name}: sea {m} m out at ({lat}, {lon})");
            let lc = t.land_cover_at(lat, lon);
            assert_ne!(lc, class::WATER, "{name}: water {m} m out");
            if let Some(p) = prev {
                let slope = (h - p).abs() / STEP_M;
                steepest = steepest.max(slope);
                assert!(
                    slope < MAX_SKIRT_SLOPE,
                    "{name}: slope {slope} at {m} m ({p} -> {h})"
                );
            }
            prev = Some(h);
            lo = lo.min(h);
            hi = hi.max(h);
        }
        println!("{name}: {lo:.0}..{hi:.0} m, steepest {steepest:.4}");
        worst = worst.max(steepest);
    }
    println!("steepest skirt slope over every walk: {worst:.4} (bound {MAX_SKIRT_SLOPE})");
}

#[test]
fn near_the_edge_the_skirt_is_close_to_the_pack_and_the_land_cover_is_dry_land() {
    let Some((_, t)) = fixture_terrain(TerrainConfig::default()) else {
        return;
    };
    let margin = t.config().theater_margin_m;
    let per_m = (1.0 / EARTH_RADIUS_M).to_degrees();
    let mut worst = 0.0f64;
    for (name, lat0, lon0, dlat, dlon) in walks() {
        // The pack's mean along 40 km of the edge, just deeper than the margin inside, against
        // the surface 1 km outside the bound.
        let inset = 1.2 * margin;
        let along = |j: i32| f64::from(j) * 1000.0 * per_m;
        let (mut pack, mut outside) = (0.0, 0.0);
        for j in -20..=20 {
            let (slat, slon) = if dlat == 0.0 {
                (lat0 + along(j), lon0)
            } else {
                (lat0, lon0 + along(j) / lat0.to_radians().cos())
            };
            let inside = t.info_at(slat - dlat * inset, slon - dlon * inset);
            assert_eq!(
                inside.pack_weight, 1.0,
                "{name}: a margin inside is the pack"
            );
            pack += inside.height_m / 41.0;
            outside += t.height_at(slat + dlat * 1000.0, slon + dlon * 1000.0) / 41.0;
        }
        let diff = (outside - pack).abs();
        println!("{name}: pack {pack:.0} m, skirt {outside:.0} m");
        worst = worst.max(diff);
        let lc = t.land_cover_at(lat0 + dlat * 20_000.0, lon0 + dlon * 20_000.0);
        assert!(
            lc == class::BARE || lc == class::SHRUB,
            "{name}: land cover {lc}"
        );
    }
    // Without the skirt the base is sea here (0 m) and this would be the pack's full height.
    assert!(worst < 400.0, "skirt and pack differ by {worst} m");
}

#[test]
fn far_from_every_theater_and_without_a_pack_the_base_is_unchanged() {
    let Some((_, t)) = fixture_terrain(TerrainConfig::default()) else {
        return;
    };
    let base = Base::default();
    let no_pack = Terrain::default();
    let per_m = (1.0 / EARTH_RADIUS_M).to_degrees();
    // Beyond the reach (plus the box) the fixture's terrain is the base itself.
    for (lat, lon) in [
        (S - (SKIRT_REACH_M + 1000.0) * per_m, -115.5),
        (N + (SKIRT_REACH_M + 1000.0) * per_m, -115.5),
        (
            36.75,
            E + (SKIRT_REACH_M + 1000.0) * per_m / 36.75f64.to_radians().cos(),
        ),
        (36.75, -100.0),
        (-36.75, 64.5),
        (10.0, 20.0),
    ] {
        let d = cube::latlon_to_dir(lat, lon);
        assert_eq!(t.height_at(lat, lon).to_bits(), base.height(d).to_bits());
        assert_eq!(t.land_cover_at(lat, lon), base.land_cover(d));
    }
    // With no pack there is no skirt anywhere, even where NTTR would be.
    for (_, lat0, lon0, dlat, dlon) in walks() {
        for k in 0..30 {
            let m = f64::from(k) * 10_000.0;
            let (lat, lon) = (lat0 + dlat * m, lon0 + dlon * m);
            let d = cube::latlon_to_dir(lat, lon);
            assert_eq!(
                no_pack.height_at(lat, lon).to_bits(),
                base.height(d).to_bits()
            );
            assert_eq!(no_pack.land_cover_at(lat, lon), base.land_cover(d));
        }
    }
}

#[test]
fn the_skirt_is_the_same_bits_on_every_load_and_with_any_cache() {
    let Some((_, a)) = fixture_terrain(TerrainConfig::default()) else {
        return;
    };
    let Some((_, b)) = fixture_terrain(TerrainConfig {
        cache_bytes: 40_000,
        ..TerrainConfig::default()
    }) else {
        return;
    };
    // A grid over NTTR and 600 km around it, queried in different orders.
    let pts: Vec<(f64, f64)> = (0..30)
        .flat_map(|i| {
            (0..30).map(move |j| (30.0 + f64::from(i) * 0.45, -124.0 + f64::from(j) * 0.6))
        })
        .collect();
    let ha: Vec<u64> = pts
        .iter()
        .map(|p| a.height_at(p.0, p.1).to_bits())
        .collect();
    let hb: Vec<u64> = pts
        .iter()
        .rev()
        .map(|p| b.height_at(p.0, p.1).to_bits())
        .collect();
    assert!(ha.iter().eq(hb.iter().rev()));
    for p in &pts {
        assert_eq!(a.land_cover_at(p.0, p.1), b.land_cover_at(p.0, p.1));
    }
}
