//! Geodetic coordinates on the sim's spherical planet and the local east-north-up frame.
//!
//! Owns: world position ⇄ (latitude, longitude, altitude), the local east-north-up (ENU) basis
//! at a position, the "level frame" in which horizontal quantities (wind, spawn offsets) are
//! written, and heading/pitch/roll ⇄ world orientation in that local frame. Must not: use the
//! platform's libm (transcendentals go through [`crate::math`]) or keep state.
//!
//! The convention is the C++ original's (and the terrain pack's): the planet's centre is at
//! (0, −R, 0), world +Y is the polar axis, so **the world origin is the north pole**. For the unit
//! direction `d` from the centre, latitude = asin(d.y) and longitude = atan2(d.x, d.z), longitude
//! positive east. Longitude 0 is the meridian on the world's +Z side of the pole, 90° E the +X
//! side.
//!
//! Local frame: `up` is away from the centre, `east` = normalize(Y × up) (the direction of
//! increasing longitude), `north` = up × east; (east, north, up) is right-handed. At a pole the
//! longitude and so east/north are undefined; there (within [`POLE_EPS`] of the polar axis) the
//! frame is the limit along the prime meridian: east = +X, and north = −Z at the north pole (+Z
//! at the south pole). At the world origin that is exactly the tangent-plane convention the sim
//! used before it had a globe: X east, −Z north, Y up, heading 0 along −Z turning towards +X.
//!
//! Near the pole the local frame turns with longitude (it rotates by the change of longitude,
//! which is fast within a few kilometres of the axis), so compass headings and compass winds mean
//! little there — the reason content is anchored at a real latitude (docs/flight-model.md).
//!
//! The **level frame** names the local axes the way the world's are named at the origin:
//! x = east, y = up, z = south (−north). A vector written in it is the same world vector at the
//! origin and the same local vector (e.g. "a westerly wind blows towards +x") anywhere else.

use crate::gravity::Planet;
use crate::math::{Quat, Vec3, asin, atan2, cos, sin, sqrt};
use std::f64::consts::{PI, TAU};

/// Distance from the polar axis, as a fraction of the radius, inside which the local frame is the
/// pole's fixed frame (east = +X): about 6 µm on Earth.
pub const POLE_EPS: f64 = 1e-12;

/// A geodetic position on the spherical planet.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Geodetic {
    /// Latitude, rad, positive north (−π/2 … π/2).
    pub lat_rad: f64,
    /// Longitude, rad, positive east (−π … π from [`from_world`]).
    pub lon_rad: f64,
    /// Altitude above the sphere (geodetic, = [`Planet::altitude`]), m.
    pub alt_m: f64,
}

impl Geodetic {
    /// A position from degrees of latitude and longitude and metres of altitude.
    pub fn from_degrees(lat_deg: f64, lon_deg: f64, alt_m: f64) -> Self {
        Self {
            lat_rad: lat_deg.to_radians(),
            lon_rad: lon_deg.to_radians(),
            alt_m,
        }
    }

    /// Latitude, degrees.
    pub fn lat_deg(&self) -> f64 {
        self.lat_rad.to_degrees()
    }

    /// Longitude, degrees.
    pub fn lon_deg(&self) -> f64 {
        self.lon_rad.to_degrees()
    }

    /// True when every field is finite.
    pub fn is_finite(&self) -> bool {
        self.lat_rad.is_finite() && self.lon_rad.is_finite() && self.alt_m.is_finite()
    }
}

/// The unit vector from the planet's centre towards latitude `lat_rad`, longitude `lon_rad`.
pub fn direction(lat_rad: f64, lon_rad: f64) -> Vec3 {
    let cl = cos(lat_rad);
    Vec3::new(cl * sin(lon_rad), sin(lat_rad), cl * cos(lon_rad))
}

/// The world position of a geodetic position.
pub fn to_world(planet: &Planet, g: Geodetic) -> Vec3 {
    planet.centre() + direction(g.lat_rad, g.lon_rad) * (planet.radius_m + g.alt_m)
}

/// The geodetic position of a world position. At the planet's centre (no direction) it returns
/// latitude π/2, longitude 0 and altitude −R.
pub fn from_world(planet: &Planet, p: Vec3) -> Geodetic {
    let r = p - planet.centre();
    let len = r.length();
    if len < 1e-300 || !len.is_finite() {
        return Geodetic {
            lat_rad: PI / 2.0,
            lon_rad: 0.0,
            alt_m: len - planet.radius_m,
        };
    }
    Geodetic {
        lat_rad: asin((r.y / len).clamp(-1.0, 1.0)),
        lon_rad: atan2(r.x, r.z),
        alt_m: len - planet.radius_m,
    }
}

/// `p` moved along its own radial to geodetic altitude `alt_m` (its ground track kept). At the
/// origin this reduces to writing the altitude into Y.
pub fn at_altitude(planet: &Planet, p: Vec3, alt_m: f64) -> Vec3 {
    let c = planet.centre();
    let r = p - c;
    let len = r.length();
    if len < 1e-300 || !len.is_finite() {
        return Vec3::new(p.x, alt_m, p.z);
    }
    c + r * ((planet.radius_m + alt_m) / len)
}

/// The local east-north-up basis (world vectors, unit, right-handed).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Enu {
    /// Towards increasing longitude.
    pub east: Vec3,
    /// Towards increasing latitude.
    pub north: Vec3,
    /// Away from the planet's centre.
    pub up: Vec3,
}

impl Enu {
    /// The frame whose vertical is the unit vector `up` (see the module's pole rule).
    pub fn from_up(up: Vec3) -> Self {
        let h2 = up.x * up.x + up.z * up.z;
        let east = if h2 > POLE_EPS * POLE_EPS {
            let k = 1.0 / sqrt(h2);
            Vec3::new(up.z * k, 0.0, -up.x * k)
        } else {
            Vec3::new(1.0, 0.0, 0.0)
        };
        let north = up.cross(east);
        Self { east, north, up }
    }

    /// The frame at world position `p`.
    pub fn at(planet: &Planet, p: Vec3) -> Self {
        Self::from_up(planet.up(p))
    }

    /// The frame at latitude `lat_rad`, longitude `lon_rad`.
    pub fn at_lat_lon(lat_rad: f64, lon_rad: f64) -> Self {
        Self::from_up(direction(lat_rad, lon_rad))
    }

    /// The world vector with local components `east`, `north`, `up`.
    #[inline]
    pub fn to_world(&self, east: f64, north: f64, up: f64) -> Vec3 {
        self.east * east + self.north * north + self.up * up
    }

    /// A world vector's local components as `Vec3 { x: east, y: north, z: up }`.
    #[inline]
    pub fn from_world(&self, v: Vec3) -> Vec3 {
        Vec3::new(v.dot(self.east), v.dot(self.north), v.dot(self.up))
    }

    /// The world vector of a level-frame vector (x east, y up, z south).
    #[inline]
    pub fn level_to_world(&self, v: Vec3) -> Vec3 {
        self.east * v.x + self.up * v.y - self.north * v.z
    }

    /// A world vector in the level frame (x east, y up, z south).
    #[inline]
    pub fn world_to_level(&self, v: Vec3) -> Vec3 {
        Vec3::new(v.dot(self.east), v.dot(self.up), -v.dot(self.north))
    }

    /// The rotation taking level-frame vectors to world vectors (identity at the origin).
    pub fn level_rotation(&self) -> Quat {
        quat_from_basis(self.east, self.up, -self.north)
    }

    /// The unit horizontal direction of compass heading `heading_rad` (0 north, π/2 east).
    pub fn horizontal_direction(&self, heading_rad: f64) -> Vec3 {
        self.north * cos(heading_rad) + self.east * sin(heading_rad)
    }

    /// The compass heading of a world direction's horizontal part, rad in [0, 2π) (0 for a
    /// vertical or zero vector).
    pub fn heading_of(&self, v: Vec3) -> f64 {
        let e = v.dot(self.east);
        let n = v.dot(self.north);
        if e * e + n * n <= 1e-24 * v.dot(v) {
            return 0.0;
        }
        wrap_two_pi(atan2(e, n))
    }
}

/// `a` wrapped into [0, 2π).
pub fn wrap_two_pi(a: f64) -> f64 {
    if !a.is_finite() {
        return 0.0;
    }
    let x = a % TAU;
    let x = if x < 0.0 { x + TAU } else { x };
    if x >= TAU { 0.0 } else { x }
}

/// Heading, pitch and roll of an aircraft in its local frame.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Attitude {
    /// Compass heading of the nose, rad in [0, 2π): 0 north, π/2 east.
    pub heading_rad: f64,
    /// Nose above the local horizon, rad.
    pub pitch_rad: f64,
    /// Bank, rad, positive right wing down (±π inverted).
    pub roll_rad: f64,
}

/// The engine-body → world orientation of an aircraft with the given heading, pitch and roll in
/// the local frame `enu` (yaw about up, then pitch about the wing, then roll about the nose). The
/// engine body has X right wing, Y up, Z aft, so at the origin heading 0 is the identity.
pub fn orientation(enu: &Enu, heading_rad: f64, pitch_rad: f64, roll_rad: f64) -> Quat {
    enu.level_rotation()
        .then(Quat::from_axis_angle(Vec3::Y, -heading_rad))
        .then(Quat::from_axis_angle(Vec3::new(1.0, 0.0, 0.0), pitch_rad))
        .then(Quat::from_axis_angle(Vec3::new(0.0, 0.0, 1.0), -roll_rad))
        .normalize()
}

/// Heading, pitch and roll of an engine-body → world orientation in the local frame `enu`. At
/// ±90° pitch the heading is that of the canopy's reverse and the roll is 0-ish (gimbal lock).
pub fn attitude(enu: &Enu, q: Quat) -> Attitude {
    let fwd = q.rotate(Vec3::new(0.0, 0.0, -1.0));
    let right = q.rotate(Vec3::new(1.0, 0.0, 0.0));
    let roof = q.rotate(Vec3::Y);
    let f_up = fwd.dot(enu.up).clamp(-1.0, 1.0);
    let heading_rad = if fwd.dot(enu.east).abs() + fwd.dot(enu.north).abs() > 1e-12 {
        enu.heading_of(fwd)
    } else {
        // Nose straight up or down: the heading is where the canopy's back points.
        enu.heading_of(roof * -f_up.signum())
    };
    Attitude {
        heading_rad,
        pitch_rad: asin(f_up),
        roll_rad: atan2(-right.dot(enu.up), roof.dot(enu.up)),
    }
}

/// The rotation whose matrix has the given columns (images of X, Y, Z; an orthonormal,
/// right-handed basis), by Shepperd's method.
pub fn quat_from_basis(x: Vec3, y: Vec3, z: Vec3) -> Quat {
    let (m00, m01, m02) = (x.x, y.x, z.x);
    let (m10, m11, m12) = (x.y, y.y, z.y);
    let (m20, m21, m22) = (x.z, y.z, z.z);
    let trace = m00 + m11 + m22;
    let q = if trace > 0.0 {
        let s = sqrt(trace + 1.0) * 2.0;
        Quat {
            w: 0.25 * s,
            x: (m21 - m12) / s,
            y: (m02 - m20) / s,
            z: (m10 - m01) / s,
        }
    } else if m00 > m11 && m00 > m22 {
        let s = sqrt(1.0 + m00 - m11 - m22) * 2.0;
        Quat {
            w: (m21 - m12) / s,
            x: 0.25 * s,
            y: (m01 + m10) / s,
            z: (m02 + m20) / s,
        }
    } else if m11 > m22 {
        let s = sqrt(1.0 + m11 - m00 - m22) * 2.0;
        Quat {
            w: (m02 - m20) / s,
            x: (m01 + m10) / s,
            y: 0.25 * s,
            z: (m12 + m21) / s,
        }
    } else {
        let s = sqrt(1.0 + m22 - m00 - m11) * 2.0;
        Quat {
            w: (m10 - m01) / s,
            x: (m02 + m20) / s,
            y: (m12 + m21) / s,
            z: 0.25 * s,
        }
    };
    q.normalize()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::state::AircraftState;

    const NEVADA_LAT: f64 = 36.25;
    const NEVADA_LON: f64 = -115.0;

    fn close(a: Vec3, b: Vec3, tol: f64) -> bool {
        (a - b).length() <= tol
    }

    fn sample_points() -> Vec<(f64, f64)> {
        let mut v = vec![
            (NEVADA_LAT, NEVADA_LON),
            (36.24917, -114.99611),
            (0.0, 0.0),
            (0.0, 180.0),
            (-33.9, 151.2),
            (51.5, -0.1),
            (89.9, 45.0),
            (-89.9, -135.0),
            (-10.0, 179.9),
            (60.0, -179.9),
        ];
        for i in 0..24 {
            let lat = -85.0 + 7.3 * f64::from(i);
            let lon = -175.0 + 14.7 * f64::from(i);
            v.push((lat, lon));
        }
        v
    }

    fn assert_frame(enu: &Enu, what: &str) {
        for (n, v) in [("east", enu.east), ("north", enu.north), ("up", enu.up)] {
            assert!(
                (v.length() - 1.0).abs() < 1e-14,
                "{what}: |{n}| = {}",
                v.length()
            );
        }
        assert!(enu.east.dot(enu.north).abs() < 1e-14, "{what}");
        assert!(enu.east.dot(enu.up).abs() < 1e-14, "{what}");
        assert!(enu.north.dot(enu.up).abs() < 1e-14, "{what}");
        assert!(
            close(enu.east.cross(enu.north), enu.up, 1e-14),
            "{what}: not right-handed"
        );
    }

    #[test]
    fn world_and_geodetic_round_trip() {
        let planet = Planet::earth();
        for (lat, lon) in sample_points() {
            for alt in [-400.0, 0.0, 1234.5, 30_000.0] {
                let g = Geodetic::from_degrees(lat, lon, alt);
                let p = to_world(&planet, g);
                let back = from_world(&planet, p);
                assert!((back.lat_deg() - lat).abs() < 1e-9, "{lat} {lon}: {back:?}");
                assert!((back.lon_deg() - lon).abs() < 1e-9, "{lat} {lon}: {back:?}");
                assert!((back.alt_m - alt).abs() < 1e-6, "{lat} {lon}: {back:?}");
                assert!((planet.altitude(p) - alt).abs() < 1e-6);
                let again = to_world(&planet, back);
                assert!(close(again, p, 1e-6), "{p:?} -> {again:?}");
            }
        }
        // World → geodetic → world from arbitrary world points.
        for p in [
            Vec3::new(0.0, 0.0, 0.0),
            Vec3::new(1234.0, 5000.0, -98_765.0),
            Vec3::new(-4.2e6, -3.0e6, 2.5e6),
        ] {
            let again = to_world(&planet, from_world(&planet, p));
            assert!(close(again, p, 1e-6), "{p:?} -> {again:?}");
        }
    }

    #[test]
    fn the_origin_is_the_north_pole_and_longitude_grows_east() {
        let planet = Planet::earth();
        let g = from_world(&planet, Vec3::ZERO);
        assert_eq!(g.lat_rad, PI / 2.0);
        assert_eq!(g.alt_m, 0.0);
        // The C++ original's convention: lon = atan2(x, z).
        let p = to_world(&planet, Geodetic::from_degrees(0.0, 90.0, 0.0));
        assert!(close(
            p,
            Vec3::new(planet.radius_m, -planet.radius_m, 0.0),
            1e-6
        ));
        let p = to_world(&planet, Geodetic::from_degrees(0.0, 0.0, 0.0));
        assert!(close(
            p,
            Vec3::new(0.0, -planet.radius_m, planet.radius_m),
            1e-6
        ));
        // A step east increases longitude; a step north increases latitude.
        for (lat, lon) in sample_points() {
            if lat.abs() > 89.0 {
                continue;
            }
            let g = Geodetic::from_degrees(lat, lon, 100.0);
            let p = to_world(&planet, g);
            let enu = Enu::at(&planet, p);
            let e = from_world(&planet, p + enu.east * 10.0);
            let n = from_world(&planet, p + enu.north * 10.0);
            let d_lon = wrap_pm_pi(e.lon_rad - g.lon_rad);
            assert!(
                d_lon > 0.0 && (e.lat_rad - g.lat_rad).abs() < 1e-10,
                "{lat} {lon}"
            );
            assert!(n.lat_rad > g.lat_rad, "{lat} {lon}");
            assert!(
                wrap_pm_pi(n.lon_rad - g.lon_rad).abs() < 1e-12,
                "{lat} {lon}"
            );
        }
    }

    fn wrap_pm_pi(a: f64) -> f64 {
        let x = wrap_two_pi(a);
        if x > PI { x - TAU } else { x }
    }

    #[test]
    fn the_local_frame_is_orthonormal_and_right_handed() {
        let planet = Planet::earth();
        for (lat, lon) in sample_points() {
            let enu = Enu::at_lat_lon(lat.to_radians(), lon.to_radians());
            assert_frame(&enu, &format!("{lat} {lon}"));
            let p = to_world(&planet, Geodetic::from_degrees(lat, lon, 5000.0));
            let at = Enu::at(&planet, p);
            assert!(close(at.east, enu.east, 1e-12) && close(at.north, enu.north, 1e-12));
            // East and north agree with the derivatives of the position.
            let (la, lo) = (lat.to_radians(), lon.to_radians());
            let dn = direction(la + 1e-7, lo) - direction(la - 1e-7, lo);
            let de = direction(la, lo + 1e-7) - direction(la, lo - 1e-7);
            assert!(
                close(dn.normalize_or_zero(), enu.north, 1e-7),
                "{lat} {lon}"
            );
            assert!(close(de.normalize_or_zero(), enu.east, 1e-7), "{lat} {lon}");
        }
        // The poles and the world origin.
        for p in [
            Vec3::ZERO,
            Vec3::new(0.0, 3000.0, 0.0),
            Vec3::new(0.0, -2.0 * planet.radius_m, 0.0),
        ] {
            assert_frame(&Enu::at(&planet, p), &format!("{p:?}"));
        }
        let south = Enu::at(&planet, Vec3::new(0.0, -2.0 * planet.radius_m, 0.0));
        assert_eq!(south.north, Vec3::new(0.0, 0.0, 1.0));
        assert_frame(&Enu::at_lat_lon(PI / 2.0, 1.0), "pole by lat/lon");
    }

    #[test]
    fn at_the_origin_the_frame_is_the_old_tangent_plane() {
        // Before the globe the sim assumed X east, −Z north, Y up at the origin, and heading 0
        // along −Z turning towards +X (AircraftState::flying).
        let planet = Planet::earth();
        for p in [Vec3::ZERO, Vec3::new(0.0, 5000.0, 0.0)] {
            let enu = Enu::at(&planet, p);
            assert_eq!(enu.east, Vec3::new(1.0, 0.0, 0.0));
            assert_eq!(enu.north, Vec3::new(0.0, 0.0, -1.0));
            assert_eq!(enu.up, Vec3::Y);
            assert_eq!(enu.level_rotation(), Quat::IDENTITY);
            let v = Vec3::new(3.0, -1.0, 7.0);
            assert_eq!(enu.level_to_world(v), v);
            assert_eq!(enu.world_to_level(v), v);
            for h in [0.0, 0.3, 1.2, 3.0, 5.5] {
                let q = orientation(&enu, h, 0.0, 0.0);
                let old = AircraftState::flying(p, h, 1.0, 0.0).orientation;
                let d = (q.w - old.w).abs()
                    + (q.x - old.x).abs()
                    + (q.y - old.y).abs()
                    + (q.z - old.z).abs();
                assert!(d < 1e-15, "heading {h}: {q:?} vs {old:?}");
            }
            assert!(close(
                enu.horizontal_direction(0.0),
                Vec3::new(0.0, 0.0, -1.0),
                0.0
            ));
            assert!(close(
                enu.horizontal_direction(PI / 2.0),
                Vec3::new(1.0, 0.0, 0.0),
                1e-16
            ));
        }
    }

    #[test]
    fn in_nevada_up_is_54_degrees_from_world_y() {
        let planet = Planet::earth();
        let p = to_world(
            &planet,
            Geodetic::from_degrees(NEVADA_LAT, NEVADA_LON, 1000.0),
        );
        let enu = Enu::at(&planet, p);
        let angle = libm::acos(enu.up.dot(Vec3::Y)).to_degrees();
        assert!((angle - (90.0 - NEVADA_LAT)).abs() < 1e-9, "{angle}");
        assert!(angle > 53.0 && angle < 54.5);
        // About 5,800 km (a chord of 53.75°) from the origin at the pole.
        let d = p.length();
        assert!(d > 5.7e6 && d < 5.9e6, "{d}");
        // North points towards the pole, roughly towards the world origin and world +Y.
        assert!(enu.north.dot(Vec3::Y) > 0.5);
        assert!(enu.north.dot((Vec3::ZERO - p).normalize_or_zero()) > 0.5);
        assert_frame(&enu, "Nevada");
    }

    #[test]
    fn attitudes_round_trip_in_the_local_frame() {
        let planet = Planet::earth();
        for (lat, lon) in sample_points() {
            let p = to_world(&planet, Geodetic::from_degrees(lat, lon, 3000.0));
            let enu = Enu::at(&planet, p);
            for (h, pi, r) in [
                (0.0_f64, 0.0_f64, 0.0_f64),
                (90.0, 0.0, 0.0),
                (135.0, 10.0, -30.0),
                (270.0, -45.0, 60.0),
                (359.0, 80.0, 170.0),
                (12.0, -5.0, -179.0),
            ] {
                let q = orientation(&enu, h.to_radians(), pi.to_radians(), r.to_radians());
                let a = attitude(&enu, q);
                let dh = wrap_pm_pi(a.heading_rad - h.to_radians()).abs();
                let dr = wrap_pm_pi(a.roll_rad - r.to_radians()).abs();
                assert!(dh < 1e-9, "{lat} {lon} {h}: {}", a.heading_rad.to_degrees());
                assert!((a.pitch_rad - pi.to_radians()).abs() < 1e-9);
                assert!(dr < 1e-9, "{lat} {lon} {r}: {}", a.roll_rad.to_degrees());
                // The nose points along the compass heading, pitched up by `pitch`.
                let fwd = q.rotate(Vec3::new(0.0, 0.0, -1.0));
                let want = enu.horizontal_direction(h.to_radians()) * cos(pi.to_radians())
                    + enu.up * sin(pi.to_radians());
                assert!(close(fwd, want, 1e-12), "{lat} {lon} {h}");
            }
        }
    }

    #[test]
    fn level_frame_and_enu_components_agree() {
        let enu = Enu::at_lat_lon(NEVADA_LAT.to_radians(), NEVADA_LON.to_radians());
        let w = enu.level_to_world(Vec3::new(5.0, 0.0, 0.0));
        assert!(close(w, enu.east * 5.0, 1e-14));
        let w = enu.level_to_world(Vec3::new(0.0, 0.0, 5.0));
        assert!(close(w, enu.north * -5.0, 1e-14));
        let v = Vec3::new(1.0, 2.0, -3.0);
        assert!(close(enu.world_to_level(enu.level_to_world(v)), v, 1e-14));
        assert!(close(
            enu.level_rotation().rotate(v),
            enu.level_to_world(v),
            1e-14
        ));
        let l = enu.from_world(enu.to_world(4.0, -2.0, 1.0));
        assert!(close(l, Vec3::new(4.0, -2.0, 1.0), 1e-14));
        assert!((enu.heading_of(enu.east) - PI / 2.0).abs() < 1e-15);
        assert!((enu.heading_of(-enu.east) - 1.5 * PI).abs() < 1e-15);
        assert_eq!(enu.heading_of(enu.up), 0.0);
    }

    #[test]
    fn altitude_moves_along_the_radial() {
        let planet = Planet::earth();
        let p = to_world(
            &planet,
            Geodetic::from_degrees(NEVADA_LAT, NEVADA_LON, 10.0),
        );
        let q = at_altitude(&planet, p, 5000.0);
        let g = from_world(&planet, q);
        assert!((g.alt_m - 5000.0).abs() < 1e-6);
        assert!((g.lat_deg() - NEVADA_LAT).abs() < 1e-12);
        assert!((g.lon_deg() - NEVADA_LON).abs() < 1e-12);
        assert_eq!(
            at_altitude(&planet, Vec3::new(0.0, 7.0, 0.0), 3000.0),
            Vec3::new(0.0, 3000.0, 0.0)
        );
    }
}
