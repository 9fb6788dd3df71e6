//! Cube-sphere addressing: faces, the tangent warp, tile keys, lat/lon and world positions.
//!
//! Owns the one mapping between a direction from the planet's centre, geodetic latitude and
//! longitude, a face with its (u, v) in [0, 1]², and a quadtree tile (face, level, i, j) with its
//! local (s, t). The convention is the C++ original's (and the fl-base-pack generator's), so the
//! pack's files land where they were made for:
//!
//! * faces by outward axis: 0 +X, 1 −X, 2 +Y (north pole), 3 −Y, 4 +Z, 5 −Z;
//! * a face point at warped coordinates (a, b) ∈ [−1, 1]² is, per face: 0 (1, a, b), 1 (−1, b, a),
//!   2 (b, 1, a), 3 (a, −1, b), 4 (a, b, 1), 5 (b, a, −1); a = tan((2u − 1)·π/4), likewise b;
//! * lat = asin(dir.y), lon = atan2(dir.x, dir.z) (east positive); the planet's centre is at
//!   (0, −R, 0), so the world origin is the north pole;
//! * at `level` a face has 2^level tiles per axis; tile (i, j) covers u ∈ [i, i+1]/2^level
//!   (i along u) and v ∈ [j, j+1]/2^level.
//!
//! Every transcendental is `libm`'s so the bits are the same on every platform. Must not: know
//! about files, caches or heights.

use fl_flight::math::Vec3;

/// π/4.
const QUARTER_PI: f64 = core::f64::consts::FRAC_PI_4;

/// Deepest quadtree level addressed (2^24 tiles per face axis, ≈ 0.6 m per tile sample).
pub const MAX_LEVEL: u8 = 24;

/// A tile of the cube-sphere quadtree.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct TileKey {
    /// Face 0..6 (see the module docs).
    pub face: u8,
    /// Quadtree depth: 2^level tiles per face axis.
    pub level: u8,
    /// Column along u, 0 .. 2^level.
    pub i: u32,
    /// Row along v, 0 .. 2^level.
    pub j: u32,
}

impl TileKey {
    /// A key, `None` when the face, level or indices are out of range.
    pub fn new(face: u8, level: u8, i: u32, j: u32) -> Option<Self> {
        if face >= 6 || level > MAX_LEVEL {
            return None;
        }
        let n = 1u32 << level;
        (i < n && j < n).then_some(Self { face, level, i, j })
    }

    /// Tiles per face axis at this key's level.
    #[inline]
    pub fn tiles_per_axis(self) -> u32 {
        1u32 << self.level
    }

    /// A compact, unique integer for the key (face 3 bits, level 5, i 28, j 28).
    #[inline]
    pub fn packed(self) -> u64 {
        (u64::from(self.face) << 61)
            | (u64::from(self.level) << 56)
            | (u64::from(self.i) << 28)
            | u64::from(self.j)
    }

    /// The parent (one level coarser); a level-0 key is its own parent.
    pub fn parent(self) -> Self {
        if self.level == 0 {
            return self;
        }
        Self {
            face: self.face,
            level: self.level - 1,
            i: self.i >> 1,
            j: self.j >> 1,
        }
    }

    /// The tile holding face position (u, v) at `level`.
    #[inline]
    pub fn at(face: u8, level: u8, u: f64, v: f64) -> Self {
        Self {
            face,
            level,
            i: index_for(u, level),
            j: index_for(v, level),
        }
    }

    /// The pack-relative asset name of this tile's heights under terrain `id`
    /// (`world/f1/l6/tile_14_58`); land cover adds `_lc`.
    pub fn asset_name(self, id: &str, land_cover: bool) -> String {
        format!(
            "{id}/f{}/l{}/tile_{}_{}{}",
            self.face,
            self.level,
            self.i,
            self.j,
            if land_cover { "_lc" } else { "" }
        )
    }

    /// The face position of tile-local (s, t) ∈ [0, 1]².
    pub fn face_uv(self, s: f64, t: f64) -> (f64, f64) {
        let n = f64::from(self.tiles_per_axis());
        ((f64::from(self.i) + s) / n, (f64::from(self.j) + t) / n)
    }

    /// The neighbour across one edge at the same level, crossing onto the adjacent face where
    /// needed. Found geometrically (the direction half a tile beyond the edge, re-projected), so
    /// it agrees with [`face_uv_to_dir`] by construction rather than through a hand-written
    /// table of rotations.
    pub fn neighbour(self, edge: Edge) -> Self {
        let n = self.tiles_per_axis();
        match edge {
            Edge::NegU if self.i > 0 => {
                return Self {
                    i: self.i - 1,
                    ..self
                };
            }
            Edge::PosU if self.i + 1 < n => {
                return Self {
                    i: self.i + 1,
                    ..self
                };
            }
            Edge::NegV if self.j > 0 => {
                return Self {
                    j: self.j - 1,
                    ..self
                };
            }
            Edge::PosV if self.j + 1 < n => {
                return Self {
                    j: self.j + 1,
                    ..self
                };
            }
            _ => {}
        }
        let (du, dv) = match edge {
            Edge::NegU => (-0.5, 0.5),
            Edge::PosU => (1.5, 0.5),
            Edge::NegV => (0.5, -0.5),
            Edge::PosV => (0.5, 1.5),
        };
        self.beyond(du, dv)
    }

    /// The tile at tile-local (s, t), which may lie outside [0, 1]² (up to one tile beyond an
    /// edge or a corner): the same tile, a neighbour on this face, or one on an adjacent face.
    pub fn beyond(self, s: f64, t: f64) -> Self {
        let (u, v) = self.face_uv(s, t);
        if (0.0..=1.0).contains(&u) && (0.0..=1.0).contains(&v) {
            return Self::at(self.face, self.level, u, v);
        }
        let p = dir_to_face_uv(face_uv_to_dir(self.face, u, v));
        Self::at(p.face, self.level, p.u, p.v)
    }
}

/// A tile edge.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Edge {
    /// u decreasing (i − 1).
    NegU,
    /// u increasing (i + 1).
    PosU,
    /// v decreasing (j − 1).
    NegV,
    /// v increasing (j + 1).
    PosV,
}

/// A face and a position on it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct FacePos {
    /// Face 0..6.
    pub face: u8,
    /// u ∈ [0, 1].
    pub u: f64,
    /// v ∈ [0, 1].
    pub v: f64,
}

/// `floor(c · 2^level)` clamped into the face: a position exactly on 1.0 belongs to the last tile.
#[inline]
pub fn index_for(c: f64, level: u8) -> u32 {
    let n = 1u32 << level;
    let x = c * f64::from(n);
    if x.is_nan() || x <= 0.0 {
        return 0;
    }
    // `as` saturates; the clamp keeps 1.0 (and anything past it) in the last tile.
    (x as u32).min(n - 1)
}

/// The face warp: face coordinate c ∈ [−1, 1] → cube coordinate tan(c·π/4).
#[inline]
pub fn warp(c: f64) -> f64 {
    libm::tan(c * QUARTER_PI)
}

/// The inverse warp: cube coordinate → face coordinate atan(w)/(π/4).
#[inline]
pub fn unwarp(w: f64) -> f64 {
    libm::atan(w) / QUARTER_PI
}

/// The (unnormalised) cube point of face `face` at warped coordinates (a, b).
#[inline]
pub fn cube_point(face: u8, a: f64, b: f64) -> Vec3 {
    match face {
        0 => Vec3::new(1.0, a, b),
        1 => Vec3::new(-1.0, b, a),
        2 => Vec3::new(b, 1.0, a),
        3 => Vec3::new(a, -1.0, b),
        4 => Vec3::new(a, b, 1.0),
        _ => Vec3::new(b, a, -1.0),
    }
}

/// Face (u, v) → unit direction from the planet's centre.
#[inline]
pub fn face_uv_to_dir(face: u8, u: f64, v: f64) -> Vec3 {
    cube_point(face, warp(2.0 * u - 1.0), warp(2.0 * v - 1.0)).normalize_or_zero()
}

/// Any non-zero direction → face and (u, v). Ties between axes go to X, then Y (the
/// original's rule), so a direction on a cube edge has one answer.
#[inline]
pub fn dir_to_face_uv(d: Vec3) -> FacePos {
    let (ax, ay, az) = (d.x.abs(), d.y.abs(), d.z.abs());
    let (face, a, b) = if ax >= ay && ax >= az {
        if d.x > 0.0 {
            (0, d.y / ax, d.z / ax)
        } else {
            (1, d.z / ax, d.y / ax)
        }
    } else if ay >= az {
        if d.y > 0.0 {
            (2, d.z / ay, d.x / ay)
        } else {
            (3, d.x / ay, d.z / ay)
        }
    } else if d.z > 0.0 {
        (4, d.x / az, d.y / az)
    } else {
        (5, d.y / az, d.x / az)
    };
    FacePos {
        face,
        u: (0.5 * (unwarp(a) + 1.0)).clamp(0.0, 1.0),
        v: (0.5 * (unwarp(b) + 1.0)).clamp(0.0, 1.0),
    }
}

/// Geodetic latitude and longitude (degrees) → unit direction.
#[inline]
pub fn latlon_to_dir(lat_deg: f64, lon_deg: f64) -> Vec3 {
    let (slat, clat) = libm::sincos(lat_deg.to_radians());
    let (slon, clon) = libm::sincos(lon_deg.to_radians());
    Vec3::new(clat * slon, slat, clat * clon)
}

/// Unit direction → (latitude, longitude) in degrees. Longitude is in (−180, 180]; at a pole it
/// is whatever atan2 gives (0 for the exact pole).
#[inline]
pub fn dir_to_latlon(d: Vec3) -> (f64, f64) {
    let lat = libm::asin(d.y.clamp(-1.0, 1.0));
    let lon = libm::atan2(d.x, d.z);
    (lat.to_degrees(), lon.to_degrees())
}

/// World position → unit direction from a planet of radius `radius_m` centred at (0, −R, 0).
#[inline]
pub fn world_to_dir(radius_m: f64, p: Vec3) -> Vec3 {
    let d = Vec3::new(p.x, p.y + radius_m, p.z).normalize_or_zero();
    if d == Vec3::ZERO { Vec3::Y } else { d }
}

/// Geodetic latitude, longitude (degrees) and height (m above the sphere) → world position.
pub fn latlon_to_world(radius_m: f64, lat_deg: f64, lon_deg: f64, height_m: f64) -> Vec3 {
    let d = latlon_to_dir(lat_deg, lon_deg);
    let r = radius_m + height_m;
    Vec3::new(d.x * r, d.y * r - radius_m, d.z * r)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64, tol: f64) -> bool {
        (a - b).abs() <= tol
    }

    #[test]
    fn face_centres_are_the_axes() {
        let want = [
            Vec3::new(1.0, 0.0, 0.0),
            Vec3::new(-1.0, 0.0, 0.0),
            Vec3::Y,
            Vec3::new(0.0, -1.0, 0.0),
            Vec3::new(0.0, 0.0, 1.0),
            Vec3::new(0.0, 0.0, -1.0),
        ];
        for (f, w) in want.iter().enumerate() {
            assert_eq!(face_uv_to_dir(f as u8, 0.5, 0.5), *w, "face {f}");
        }
        // The north pole is the centre of face 2 and the world origin.
        let p = dir_to_face_uv(world_to_dir(6_371_000.0, Vec3::ZERO));
        assert_eq!((p.face, p.u, p.v), (2, 0.5, 0.5));
        assert_eq!(dir_to_latlon(Vec3::Y).0, 90.0);
    }

    #[test]
    fn faces_are_right_handed_u_cross_v_is_outward() {
        for f in 0..6u8 {
            let o = face_uv_to_dir(f, 0.5, 0.5);
            let du = face_uv_to_dir(f, 0.6, 0.5) - o;
            let dv = face_uv_to_dir(f, 0.5, 0.6) - o;
            assert!(du.cross(dv).dot(o) > 0.0, "face {f}");
        }
    }

    #[test]
    fn uv_round_trips_on_every_face() {
        for f in 0..6u8 {
            for iu in 0..=16 {
                for iv in 0..=16 {
                    let (u, v) = (f64::from(iu) / 16.0, f64::from(iv) / 16.0);
                    let d = face_uv_to_dir(f, u, v);
                    let p = dir_to_face_uv(d);
                    // On an edge the point belongs to one of the faces sharing it; compare the
                    // direction then, the coordinates otherwise.
                    let back = face_uv_to_dir(p.face, p.u, p.v);
                    assert!((back - d).length() < 1e-14, "face {f} ({u}, {v})");
                    if iu % 16 != 0 && iv % 16 != 0 {
                        assert_eq!(p.face, f);
                        assert!(close(p.u, u, 1e-14) && close(p.v, v, 1e-14));
                    }
                }
            }
        }
    }

    #[test]
    fn known_points_land_on_the_generators_faces() {
        // Nevada (the fixture pack's theater) is on face 1 (−X): lon −115° puts x < 0.
        let p = dir_to_face_uv(latlon_to_dir(36.5, -115.5));
        assert_eq!(p.face, 1);
        let k = TileKey::at(p.face, 6, p.u, p.v);
        assert!(
            (12..=15).contains(&k.i) && (58..=61).contains(&k.j),
            "{k:?}"
        );
        // lat 0 lon 0 is +Z, lon 90 is +X, lon 180 is −Z, lat −90 is −Y.
        assert_eq!(dir_to_face_uv(latlon_to_dir(0.0, 0.0)).face, 4);
        assert_eq!(dir_to_face_uv(latlon_to_dir(0.0, 90.0)).face, 0);
        assert_eq!(dir_to_face_uv(latlon_to_dir(0.0, 180.0)).face, 5);
        assert_eq!(dir_to_face_uv(latlon_to_dir(-89.0, 10.0)).face, 3);
    }

    #[test]
    fn latlon_tile_latlon_round_trips_everywhere_including_edges_and_corners() {
        let mut n = 0;
        let mut lat = -90.0;
        while lat <= 90.0 {
            let mut lon = -180.0;
            while lon <= 180.0 {
                let d = latlon_to_dir(lat, lon);
                let p = dir_to_face_uv(d);
                for level in [0u8, 6, 10, 16] {
                    let k = TileKey::at(p.face, level, p.u, p.v);
                    let nt = f64::from(k.tiles_per_axis());
                    let (s, t) = (p.u * nt - f64::from(k.i), p.v * nt - f64::from(k.j));
                    assert!((0.0..=1.0).contains(&s) && (0.0..=1.0).contains(&t));
                    let (u, v) = k.face_uv(s, t);
                    let back = face_uv_to_dir(k.face, u, v);
                    let (la, lo) = dir_to_latlon(back);
                    assert!(close(la, lat, 1e-9), "{lat} {lon} l{level}: {la}");
                    if lat.abs() < 89.999 {
                        let dl = (lo - lon + 540.0).rem_euclid(360.0) - 180.0;
                        assert!(dl.abs() < 1e-9, "{lat} {lon} l{level}: {lo}");
                    }
                }
                n += 1;
                lon += 7.5;
            }
            lat += 3.75;
        }
        assert!(n > 2000);
        // Exact cube edges and corners: (±1, ±1, ±1)/√3 and edge midpoints.
        for x in [-1.0f64, 0.0, 1.0] {
            for y in [-1.0f64, 0.0, 1.0] {
                for z in [-1.0f64, 0.0, 1.0] {
                    let d = Vec3::new(x, y, z).normalize_or_zero();
                    if d == Vec3::ZERO {
                        continue;
                    }
                    let p = dir_to_face_uv(d);
                    let back = face_uv_to_dir(p.face, p.u, p.v);
                    assert!((back - d).length() < 1e-15, "{d:?}");
                }
            }
        }
    }

    #[test]
    fn neighbours_within_a_face_and_across_every_face_edge() {
        for f in 0..6u8 {
            for level in [0u8, 1, 3] {
                let n = 1u32 << level;
                for i in 0..n {
                    for j in 0..n {
                        let k = TileKey::new(f, level, i, j).expect("in range");
                        for e in [Edge::NegU, Edge::PosU, Edge::NegV, Edge::PosV] {
                            let nb = k.neighbour(e);
                            assert_eq!(nb.level, level);
                            // Adjacent: the two tiles share an edge — some corner of one is a
                            // corner of the other (same direction).
                            let corners = |t: TileKey| {
                                [(0.0, 0.0), (1.0, 0.0), (0.0, 1.0), (1.0, 1.0)].map(|(s, q)| {
                                    let (u, v) = t.face_uv(s, q);
                                    face_uv_to_dir(t.face, u, v)
                                })
                            };
                            let (a, b) = (corners(k), corners(nb));
                            let shared = a
                                .iter()
                                .filter(|p| b.iter().any(|q| (**p - *q).length() < 1e-12))
                                .count();
                            assert_eq!(shared, 2, "{k:?} {e:?} -> {nb:?}");
                            // And the relation is symmetric: some edge of the neighbour leads back.
                            let back = [Edge::NegU, Edge::PosU, Edge::NegV, Edge::PosV]
                                .iter()
                                .any(|e2| nb.neighbour(*e2) == k);
                            assert!(back, "{k:?} {e:?} -> {nb:?}");
                        }
                    }
                }
            }
        }
        // Face 2 (+Y) at level 0: its −u edge (u = 0 means a = −1: z = −1) is face 5 (−Z).
        let k = TileKey::new(2, 0, 0, 0).expect("in range");
        assert_eq!(k.neighbour(Edge::NegU).face, 5);
        assert_eq!(k.neighbour(Edge::PosU).face, 4);
        assert_eq!(k.neighbour(Edge::NegV).face, 1);
        assert_eq!(k.neighbour(Edge::PosV).face, 0);
    }

    #[test]
    fn index_for_clamps_the_far_edge_and_hostile_values() {
        assert_eq!(index_for(1.0, 3), 7);
        assert_eq!(index_for(0.0, 3), 0);
        assert_eq!(index_for(-0.1, 3), 0);
        assert_eq!(index_for(f64::NAN, 3), 0);
        assert_eq!(index_for(0.5, 3), 4);
        assert!(TileKey::new(6, 0, 0, 0).is_none());
        assert!(TileKey::new(0, 2, 4, 0).is_none());
        assert!(TileKey::new(0, MAX_LEVEL + 1, 0, 0).is_none());
    }

    #[test]
    fn world_and_latlon_agree() {
        let r = 6_371_000.0;
        let p = latlon_to_world(r, 36.25, -115.0, 1234.0);
        let d = world_to_dir(r, p);
        let (la, lo) = dir_to_latlon(d);
        assert!(close(la, 36.25, 1e-12) && close(lo, -115.0, 1e-12));
        assert!(close(
            (p - Vec3::new(0.0, -r, 0.0)).length() - r,
            1234.0,
            1e-6
        ));
    }
}
