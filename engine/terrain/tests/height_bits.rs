//! Heights are bit-for-bit what they were: a table recorded before the warm path was made
//! faster (tests/data/height_bits.txt) against today's `height_at`, `height_at_world`,
//! `info_at`, `height_at_face_uv`, `land_cover_at` and `Floor::sample` over NTTR, the theater
//! edge, the skirt around it, level edges, the base elsewhere, cube-face edges and corners and
//! the poles. The server and the client's prediction read these heights, so a faster path may
//! not change one bit.
//!
//! Every point is asked twice (cold, then with the tiles and the thread's recent tiles warm) and
//! in two orders, so a fast path that remembered the wrong tile would show.
//!
//! To record the table again (only when a change of the surface is intended):
//! `FL_TERRAIN_RECORD_BITS=1 cargo test -p fl-terrain --test height_bits`.

mod support;

use fl_flight::env::Floor;
use fl_flight::gravity::Planet;
use fl_flight::math::Vec3;
use fl_terrain::{Terrain, TerrainConfig, cube};
use std::fmt::Write as _;
use std::path::PathBuf;

fn table_path() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data/height_bits.txt")
}

/// A deterministic stream in [0, 1).
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> f64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 >> 11) as f64 / (1u64 << 53) as f64
    }
}

/// A query: latitude/longitude (degrees), or a face position.
#[derive(Clone, Copy)]
enum Q {
    LatLon(f64, f64),
    FaceUv(u8, f64, f64),
}

/// The points, by group name.
fn points() -> Vec<(&'static str, Q)> {
    let mut v = Vec::new();
    let mut r = Rng(0x9e37_79b9_7f4a_7c15);
    // Inside NTTR (35–38.5 N, 117.5–113.5 W), including the bench's 20 km square.
    for _ in 0..300 {
        v.push((
            "nttr",
            Q::LatLon(35.0 + r.next() * 3.5, -117.5 + r.next() * 4.0),
        ));
    }
    for _ in 0..100 {
        v.push((
            "square",
            Q::LatLon(37.0 + r.next() * 0.18, -115.6 + r.next() * 0.22),
        ));
    }
    // Within 15 km of the theater's edge, both sides (the theater-edge blend).
    for _ in 0..300 {
        let along = r.next();
        let across = (r.next() - 0.5) * 0.3;
        let q = match (r.next() * 4.0) as u32 {
            0 => (35.0 + across, -117.5 + along * 4.0),
            1 => (38.5 + across, -117.5 + along * 4.0),
            2 => (35.0 + along * 3.5, -117.5 + across),
            _ => (35.0 + along * 3.5, -113.5 + across),
        };
        v.push(("edge", Q::LatLon(q.0, q.1)));
    }
    // The skirt: up to ~600 km around the theater.
    for _ in 0..200 {
        v.push((
            "skirt",
            Q::LatLon(30.0 + r.next() * 13.5, -123.0 + r.next() * 15.0),
        ));
    }
    // Level edges and corners inside NTTR's face-1 tiles: exact tile boundaries of levels 6–10
    // (u, v multiples of 1/1024 and nearby), and random face positions over the theater.
    for _ in 0..200 {
        let level = 6 + (r.next() * 5.0) as u32;
        let n = f64::from(1u32 << level);
        let i = (0.18 + r.next() * 0.06) * n;
        let j = (0.91 + r.next() * 0.07) * n;
        let (u, v0) = match (r.next() * 3.0) as u32 {
            0 => (libm::floor(i) / n, j / n),
            1 => (i / n, libm::floor(j) / n),
            _ => (libm::floor(i) / n, libm::floor(j) / n),
        };
        v.push(("lattice", Q::FaceUv(1, u, v0)));
    }
    for _ in 0..100 {
        v.push((
            "faceuv",
            Q::FaceUv(1, 0.15 + r.next() * 0.12, 0.88 + r.next() * 0.12),
        ));
    }
    // The base elsewhere: an even spread over the sphere (Fibonacci lattice).
    for i in 0..300 {
        let y = 1.0 - 2.0 * (f64::from(i) + 0.5) / 300.0;
        let th = f64::from(i) * 2.399_963_229_728_653;
        let lon = (th.to_degrees() + 180.0).rem_euclid(360.0) - 180.0;
        v.push(("globe", Q::LatLon(libm::asin(y).to_degrees(), lon)));
    }
    // Cube-face edges and corners (lon ±45°, ±135° on the equator; the ±35.26° corners) and
    // the poles, exactly and a hair off.
    for lon in [-135.0, -45.0, 45.0, 135.0, 180.0, -180.0, 0.0, 90.0, -90.0] {
        for lat in [
            0.0,
            1e-9,
            -1e-9,
            35.264_389_682_754_654,
            -35.264_389_682_754_654,
            20.0,
            -60.0,
        ] {
            for dl in [0.0, 1e-9, -1e-9] {
                v.push(("cube", Q::LatLon(lat, lon + dl)));
            }
        }
    }
    for lat in [90.0, -90.0, 89.999_999, -89.999_999] {
        for lon in [-180.0, -90.0, 0.0, 37.0, 90.0, 180.0] {
            v.push(("pole", Q::LatLon(lat, lon)));
        }
    }
    for f in 0..6u8 {
        for (u, v0) in [
            (0.0, 0.0),
            (1.0, 1.0),
            (0.0, 0.5),
            (0.5, 1.0),
            (0.5, 0.5),
            (1.0, 0.3),
        ] {
            v.push(("faces", Q::FaceUv(f, u, v0)));
        }
    }
    v
}

/// One line of the table: every answer's bits at the query (the query itself is the line's
/// place: the points are generated, not read).
fn line(t: &Terrain, planet: &Planet, q: Q) -> String {
    let mut s = String::new();
    match q {
        Q::LatLon(lat, lon) => {
            let h = t.height_at(lat, lon);
            let info = t.info_at(lat, lon);
            let p = cube::latlon_to_world(planet.radius_m, lat, lon, 1500.0);
            let hw = t.height_at_world(planet.radius_m, p);
            let f = t.sample(planet, p);
            let lc = t.land_cover_at(lat, lon);
            // `info.height_m` and the floor's height are the same computation as `h` and `hw`:
            // checked equal here rather than stored twice.
            assert_eq!(info.height_m.to_bits(), h.to_bits());
            assert_eq!(f.height_m.to_bits(), hw.to_bits());
            let _ = write!(
                s,
                "{:x} {:x} {:?} {:x} n {:x} {:x} {:x} {lc}",
                h.to_bits(),
                hw.to_bits(),
                info.level,
                info.pack_weight.to_bits(),
                f.normal.x.to_bits(),
                f.normal.y.to_bits(),
                f.normal.z.to_bits(),
            );
        }
        Q::FaceUv(face, u, v) => {
            let info = t.face_uv_info(face, u, v);
            let h = t.height_at_face_uv(face, u, v);
            let hd = t.height_dir(cube::face_uv_to_dir(face, u, v));
            assert_eq!(info.height_m.to_bits(), h.to_bits());
            let _ = write!(
                s,
                "{:x} {:?} {:x} dir {:x}",
                h.to_bits(),
                info.level,
                info.pack_weight.to_bits(),
                hd.to_bits(),
            );
        }
    }
    s
}

/// The table for one terrain, every point asked in the given order.
fn table(t: &Terrain, name: &str, pts: &[(&'static str, Q)], order: &[usize]) -> Vec<String> {
    let planet = Planet::earth();
    let mut out = vec![String::new(); pts.len()];
    for &i in order {
        let (g, q) = pts[i];
        out[i] = format!("{name} {g} {i} {}", line(t, &planet, q));
    }
    out
}

fn terrains() -> Vec<(&'static str, Terrain)> {
    let mut v = vec![("base", Terrain::default())];
    // Without the pack this is a partial skip (recorded, and a failure under
    // FL_REQUIRE_FIXTURES=1), not a whole-test one: the base half still runs.
    if let Some((_, t)) = support::fixture_terrain_or(
        TerrainConfig::default(),
        "checked the base-only half of the table",
    ) {
        v.push(("pack", t));
    }
    v
}

#[test]
fn heights_are_bit_identical_to_the_recorded_table() {
    let pts = points();
    let forward: Vec<usize> = (0..pts.len()).collect();
    let terrains = terrains();
    if std::env::var_os("FL_TERRAIN_RECORD_BITS").is_some() {
        assert_eq!(terrains.len(), 2, "recording needs the fixture pack");
        let mut text = String::new();
        for (name, t) in &terrains {
            for l in table(t, name, &pts, &forward) {
                text.push_str(&l);
                text.push('\n');
            }
        }
        std::fs::create_dir_all(table_path().parent().expect("parent")).expect("mkdir");
        std::fs::write(table_path(), text).expect("write the table");
        return;
    }
    let text = std::fs::read_to_string(table_path()).expect("tests/data/height_bits.txt");
    let want: Vec<&str> = text.lines().collect();
    assert_eq!(want.len(), 2 * pts.len(), "the table has both terrains");
    // Shuffled order (deterministic): a path that answers from the wrong remembered tile
    // differs from the forward pass.
    let mut shuffled = forward.clone();
    let mut r = Rng(0x2545_f491_4f6c_dd1d);
    for i in (1..shuffled.len()).rev() {
        let j = (r.next() * (i + 1) as f64) as usize;
        shuffled.swap(i, j.min(i));
    }
    for (k, (name, t)) in terrains.iter().enumerate() {
        let expect = &want[k * pts.len()..(k + 1) * pts.len()];
        // Cold (fresh terrain, nothing decoded), then warm forward, then warm shuffled.
        for (pass, order) in [
            ("cold", &forward),
            ("warm", &forward),
            ("shuffled", &shuffled),
        ] {
            let got = table(t, name, &pts, order);
            let bad: Vec<(usize, &String)> = got
                .iter()
                .enumerate()
                .filter(|(i, g)| g.as_str() != expect[*i])
                .collect();
            assert!(
                bad.is_empty(),
                "{name} {pass}: {} of {} points differ; first: got\n{}\nwant\n{}",
                bad.len(),
                pts.len(),
                bad[0].1,
                expect[bad[0].0]
            );
        }
    }
}

/// The directions the simulation actually asks with (world positions), on a second thread too:
/// the per-thread recent tiles must answer the same on every thread.
#[test]
fn another_thread_reads_the_same_bits() {
    let Some((_, t)) = support::fixture_terrain(TerrainConfig::default()) else {
        return;
    };
    let planet = Planet::earth();
    let pts: Vec<Vec3> = points()
        .iter()
        .filter_map(|(_, q)| match q {
            Q::LatLon(lat, lon) => Some(cube::latlon_to_world(planet.radius_m, *lat, *lon, 0.0)),
            Q::FaceUv(..) => None,
        })
        .collect();
    let here: Vec<u64> = pts
        .iter()
        .map(|p| t.height_at_world(planet.radius_m, *p).to_bits())
        .collect();
    let t2 = t.clone();
    let pts2 = pts.clone();
    let there: Vec<u64> = std::thread::spawn(move || {
        pts2.iter()
            .rev()
            .map(|p| t2.height_at_world(Planet::earth().radius_m, *p).to_bits())
            .collect::<Vec<_>>()
    })
    .join()
    .expect("thread");
    let there: Vec<u64> = there.into_iter().rev().collect();
    assert_eq!(here, there);
}
