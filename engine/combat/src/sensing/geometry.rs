//! Where a target is as a sensor sees it: bearing off the nose (azimuth, elevation), range, the
//! range band scaled by the target's signature and aspect, and whether the ground is behind it.
//!
//! Frames: an observer's orientation is fl-flight's engine-body → world quaternion (body X right
//! wing, Y up, Z aft), so the nose is body −Z. Azimuth is the angle off the nose in the body's
//! horizontal plane (positive right), elevation the angle above that plane. An omnidirectional
//! sensor ignores azimuth and measures elevation from the *local horizontal* (planet up at the
//! observer): a ground radar's "near-vertical hole" (sensors/1s91.toml) must not depend on how a
//! spawner happened to orient a vehicle. Must not: sample terrain (that is `los`) or draw dice.

use super::spec::{Lobe, SensorKind, Signatures};
use fl_flight::gravity::Planet;
use fl_flight::math::{Quat, Vec3, atan2, cos, sin, sqrt};

/// A slack so a target exactly on an authored half-angle is inside (one ULP must not narrow a
/// cone).
const ANGLE_EPS_RAD: f64 = 1e-9;

/// An observer's look frame (unit world vectors).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LookFrame {
    /// Where azimuth 0 points.
    pub forward: Vec3,
    /// Elevation +90°.
    pub up: Vec3,
    /// Azimuth +90°.
    pub right: Vec3,
}

impl LookFrame {
    /// The body frame of an fl-flight orientation (nose = body −Z, up = body +Y, right = body +X).
    pub fn body(q: Quat) -> Self {
        Self {
            forward: q.rotate(Vec3::new(0.0, 0.0, -1.0)),
            up: q.rotate(Vec3::Y),
            right: q.rotate(Vec3::new(1.0, 0.0, 0.0)),
        }
    }

    /// The local level frame at `p` (up away from the planet's centre; forward and right any
    /// horizontal pair): what an omnidirectional sensor measures elevation against.
    pub fn level(planet: &Planet, p: Vec3) -> Self {
        let up = planet.up(p);
        // Any horizontal vector: Y × up, or X × up at the poles (where Y is vertical).
        let east = Vec3::Y.cross(up);
        let right = if east.length() > 1e-9 {
            east.normalize_or_zero()
        } else {
            Vec3::new(1.0, 0.0, 0.0).cross(up).normalize_or_zero()
        };
        Self {
            forward: up.cross(right),
            up,
            right,
        }
    }

    /// The frame a sensor looks in: the body's, or the local level's when omnidirectional.
    pub fn for_sensor(omnidirectional: bool, planet: &Planet, p: Vec3, q: Quat) -> Self {
        if omnidirectional {
            Self::level(planet, p)
        } else {
            Self::body(q)
        }
    }
}

/// An fl-flight orientation whose nose (body −Z) points along `forward`, its roof (body +Y) as
/// near `up_hint` as the nose allows: how a seeker or a turret without an attitude of its own is
/// aimed (e.g. along a missile's velocity). Degenerate inputs give the identity.
pub fn look_along(forward: Vec3, up_hint: Vec3) -> Quat {
    let f = forward.normalize_or_zero();
    if f == Vec3::ZERO || !f.is_finite() {
        return Quat::IDENTITY;
    }
    // Right = forward × up; when the hint is parallel to the nose, any perpendicular will do.
    let mut r = f.cross(up_hint).normalize_or_zero();
    if r == Vec3::ZERO || !r.is_finite() {
        let other = if f.y.abs() < 0.9 {
            Vec3::Y
        } else {
            Vec3::new(1.0, 0.0, 0.0)
        };
        r = f.cross(other).normalize_or_zero();
    }
    let u = r.cross(f);
    // The rotation's columns are the body axes in the world: X = r, Y = u, Z = −f.
    fl_flight::geodetic::quat_from_basis(r, u, -f)
}

/// A target's position as seen from an observer.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Bearing {
    /// Straight-line distance, m (> 0).
    pub range_m: f64,
    /// Unit line of sight, observer → target (world).
    pub los: Vec3,
    /// Angle off the look frame's forward in its horizontal plane, rad, (−π, π], positive right.
    pub az_rad: f64,
    /// Angle above the look frame's horizontal plane, rad, [−π/2, π/2].
    pub el_rad: f64,
}

impl Bearing {
    /// The bearing of `target` from `observer` in `frame`; `None` when a position is not finite
    /// or the two coincide (no line of sight to measure).
    pub fn of(observer: Vec3, frame: &LookFrame, target: Vec3) -> Option<Self> {
        let d = target - observer;
        let range_m = d.length();
        if !range_m.is_finite() || range_m < 1e-6 {
            return None;
        }
        let los = d * (1.0 / range_m);
        let fx = los.dot(frame.forward);
        let fy = los.dot(frame.up);
        let fz = los.dot(frame.right);
        let az_rad = atan2(fz, fx);
        let el_rad = atan2(fy, sqrt(fx * fx + fz * fz));
        if !(az_rad.is_finite() && el_rad.is_finite()) {
            return None;
        }
        Some(Self {
            range_m,
            los,
            az_rad,
            el_rad,
        })
    }
}

/// A lobe's angular limits precomputed for the per-target test: the same answer as [`in_lobe`]
/// without a transcendental per target (|az| ≤ a ⟺ cos az ≥ cos a; |el| ≤ e ⟺ |sin el| ≤ sin e).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Cone {
    cos_az: f64,
    sin_el: f64,
    min_range_m: f64,
}

impl Cone {
    /// The cone of a lobe (with the same boundary slack as [`in_lobe`]).
    pub fn new(lobe: &Lobe) -> Self {
        let pi = core::f64::consts::PI;
        let a = (lobe.az_half_rad + ANGLE_EPS_RAD).min(pi);
        let e = (lobe.el_half_rad + ANGLE_EPS_RAD).min(pi / 2.0);
        Self {
            cos_az: if a >= pi { -1.0 } else { cos(a) },
            sin_el: if e >= pi / 2.0 { 1.0 } else { sin(e) },
            min_range_m: lobe.min_range_m,
        }
    }

    /// Whether a target seen along unit `los` at `range_m` is inside, the far edge at
    /// `max_range_m`.
    #[inline]
    pub fn contains(
        &self,
        frame: &LookFrame,
        los: Vec3,
        range_m: f64,
        max_range_m: f64,
        omnidirectional: bool,
    ) -> bool {
        if !(range_m <= max_range_m && range_m >= self.min_range_m) {
            return false;
        }
        let fy = los.dot(frame.up);
        if fy.abs() > self.sin_el {
            return false;
        }
        if omnidirectional {
            return true;
        }
        let fx = los.dot(frame.forward);
        let fz = los.dot(frame.right);
        fx >= self.cos_az * sqrt(fx * fx + fz * fz)
    }
}

/// How far a signature stretches a kind of sensor's range: √s for radar (the fourth-power radar
/// equation, softened as the design record says), s for IR, visual and laser. A negative or
/// non-finite signature is 0: the target is invisible to that kind, never a panic.
#[inline]
pub fn signature_range_scale(kind: SensorKind, sig: &Signatures) -> f64 {
    let s = sig.for_kind(kind);
    if !(s > 0.0 && s.is_finite()) {
        return 0.0;
    }
    if kind == SensorKind::Radar {
        sqrt(s)
    } else {
        s
    }
}

/// The aspect term: the range factor for a target whose nose points along `target_forward`,
/// seen along `los` (observer → target). 1 from the beam and behind (where the pack quotes its
/// IR ranges), falling as `1 − (1 − head_on)·cos θ` towards `head_on` nose-on, θ being the angle
/// between the target's nose and the direction back to the observer. Smooth, monotonic, and 1
/// for `head_on = 1`; a zero or non-finite forward (no attitude known) gives 1.
#[inline]
pub fn aspect_factor(head_on: f64, target_forward: Vec3, los: Vec3) -> f64 {
    if head_on >= 1.0 {
        return 1.0;
    }
    let f = target_forward.normalize_or_zero();
    if f == Vec3::ZERO || !f.is_finite() {
        return 1.0;
    }
    // cos θ between the target's nose and the direction target → observer (−los).
    let c = -f.dot(los);
    if c <= 0.0 {
        1.0
    } else {
        1.0 - (1.0 - head_on.max(0.0)) * c.min(1.0)
    }
}

/// Whether `b` is inside `lobe` with the lobe's far edge at `max_range_m` (the authored range
/// already scaled by signature, aspect and clutter). Omnidirectional sensors skip the azimuth
/// test. The dead zone (`min_range_m`) is not scaled: a target that close is never seen.
#[inline]
pub fn in_lobe(b: &Bearing, lobe: &Lobe, omnidirectional: bool, max_range_m: f64) -> bool {
    b.range_m <= max_range_m
        && b.range_m >= lobe.min_range_m
        && (omnidirectional || b.az_rad.abs() <= lobe.az_half_rad + ANGLE_EPS_RAD)
        && b.el_rad.abs() <= lobe.el_half_rad + ANGLE_EPS_RAD
}

/// Whether the ground is behind the target along the line of sight (look-down): the ray from the
/// target onward along `los` meets the sphere of the ground's height under the target. A target
/// below its own ground height (a corrupt state) counts as looking down. Co-altitude targets at
/// range are *not* look-down: past the target the chord rises (the Earth curves away).
pub fn looks_down(planet: &Planet, target: Vec3, los: Vec3, ground_m: f64) -> bool {
    let rel = target - planet.centre();
    let rg = planet.radius_m + ground_m;
    let c = rel.dot(rel) - rg * rg;
    if c <= 0.0 {
        return true;
    }
    let b = rel.dot(los);
    // |rel + s·los|² = rg² has a root s > 0 iff the ray heads down (b < 0) and does not pass
    // above the sphere (discriminant b² − c ≥ 0).
    b < 0.0 && b * b >= c
}

/// The target's speed along the line of sight over the ground, m/s (positive opening). The
/// main-lobe clutter of a look-down radar sits at zero ground speed, so this — not the closing
/// speed with the radar — is what a notch filter compares: a beaming target has it near zero.
#[inline]
pub fn ground_radial_speed(target_velocity: Vec3, los: Vec3) -> f64 {
    target_velocity.dot(los)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn deg(r: f64) -> f64 {
        r.to_degrees()
    }

    #[test]
    fn identity_orientation_looks_down_world_minus_z() {
        let f = LookFrame::body(Quat::IDENTITY);
        let o = Vec3::ZERO;
        let ahead = Bearing::of(o, &f, Vec3::new(0.0, 0.0, -1000.0)).expect("bearing");
        assert_eq!(ahead.range_m, 1000.0);
        assert!(ahead.az_rad.abs() < 1e-12 && ahead.el_rad.abs() < 1e-12);
        let right = Bearing::of(o, &f, Vec3::new(1000.0, 0.0, -1000.0)).expect("bearing");
        assert!(
            (deg(right.az_rad) - 45.0).abs() < 1e-9,
            "{}",
            deg(right.az_rad)
        );
        let above = Bearing::of(o, &f, Vec3::new(0.0, 1000.0, -1000.0)).expect("bearing");
        assert!((deg(above.el_rad) - 45.0).abs() < 1e-9);
        let behind = Bearing::of(o, &f, Vec3::new(0.0, 0.0, 1000.0)).expect("bearing");
        assert!((deg(behind.az_rad).abs() - 180.0).abs() < 1e-9);
        assert!(Bearing::of(o, &f, o).is_none());
        assert!(Bearing::of(o, &f, Vec3::new(f64::NAN, 0.0, 0.0)).is_none());
        assert!(Bearing::of(o, &f, Vec3::new(f64::INFINITY, 0.0, 0.0)).is_none());
    }

    #[test]
    fn look_along_points_the_nose_and_keeps_the_roof_up() {
        let dirs = [
            Vec3::new(0.0, 0.0, -1.0),
            Vec3::new(1.0, 0.2, 0.3),
            Vec3::new(-0.5, -0.8, 0.1),
            Vec3::new(0.0, 1.0, 0.0),
            Vec3::new(0.0, -1.0, 0.0),
            Vec3::new(0.0, 0.0, 1.0),
        ];
        for d in dirs {
            let q = look_along(d, Vec3::Y);
            let f = LookFrame::body(q);
            let dn = d.normalize_or_zero();
            assert!((f.forward.dot(dn) - 1.0).abs() < 1e-12, "{d:?}");
            assert!((f.up.length() - 1.0).abs() < 1e-12);
            assert!(f.up.dot(f.forward).abs() < 1e-12);
            if dn.y.abs() < 0.99 {
                assert!(f.up.y > 0.0, "roof up for {d:?}");
                assert!(f.right.y.abs() < 1e-12, "wings level for {d:?}");
            }
        }
        assert_eq!(look_along(Vec3::ZERO, Vec3::Y), Quat::IDENTITY);
        assert_eq!(
            look_along(Vec3::new(f64::NAN, 0.0, 0.0), Vec3::Y),
            Quat::IDENTITY
        );
    }

    #[test]
    fn a_yawed_observer_turns_its_cone_with_it() {
        // Heading 90° (fl-flight: positive turns from −Z towards +X).
        let q = Quat::from_axis_angle(Vec3::Y, -core::f64::consts::FRAC_PI_2);
        let f = LookFrame::body(q);
        let b = Bearing::of(Vec3::ZERO, &f, Vec3::new(5000.0, 0.0, 0.0)).expect("bearing");
        assert!(b.az_rad.abs() < 1e-9, "{}", deg(b.az_rad));
        let lobe = Lobe::from_pack_units(10.0, 10.0, 0.0, 5.0, 0.5, 0.0);
        assert!(in_lobe(&b, &lobe, false, lobe.max_range_m));
        let side = Bearing::of(Vec3::ZERO, &f, Vec3::new(0.0, 0.0, -5000.0)).expect("bearing");
        assert!(!in_lobe(&side, &lobe, false, lobe.max_range_m));
        assert!(
            in_lobe(&side, &lobe, true, lobe.max_range_m),
            "omni ignores azimuth"
        );
    }

    #[test]
    fn lobe_edges_and_dead_zone() {
        let lobe = Lobe::from_pack_units(30.0, 20.0, 1.0, 10.0, 0.5, 0.0);
        let f = LookFrame::body(Quat::IDENTITY);
        let at = |x: f64, y: f64, z: f64| Bearing::of(Vec3::ZERO, &f, Vec3::new(x, y, z));
        let r = 5000.0;
        let a = 30f64.to_radians();
        let edge = at(r * sin(a), 0.0, -r * cos(a)).expect("b");
        assert!(
            in_lobe(&edge, &lobe, false, lobe.max_range_m),
            "on the edge is inside"
        );
        let a = 30.01f64.to_radians();
        let out = at(r * sin(a), 0.0, -r * cos(a)).expect("b");
        assert!(!in_lobe(&out, &lobe, false, lobe.max_range_m));
        let near = at(0.0, 0.0, -1000.0).expect("b");
        assert!(!in_lobe(&near, &lobe, false, lobe.max_range_m), "dead zone");
        let far = at(0.0, 0.0, -18_600.0).expect("b");
        assert!(!in_lobe(&far, &lobe, false, lobe.max_range_m));
        assert!(
            in_lobe(&far, &lobe, false, 2.0 * lobe.max_range_m),
            "scaled range"
        );
        let high = at(0.0, 3000.0, -3000.0).expect("b");
        assert!(!in_lobe(&high, &lobe, false, lobe.max_range_m));
        assert!(
            !in_lobe(&high, &lobe, true, lobe.max_range_m),
            "omni keeps elevation"
        );
    }

    #[test]
    fn the_precomputed_cone_agrees_with_the_angles() {
        let lobes = [
            Lobe::from_pack_units(60.0, 30.0, 0.5, 30.0, 0.35, 0.0),
            Lobe::from_pack_units(20.0, 15.0, 0.0, 10.0, 0.6, 0.0),
            Lobe::from_pack_units(90.0, 60.0, 0.0, 8.0, 0.15, 0.0),
            Lobe::from_pack_units(180.0, 80.0, 0.3, 27.0, 0.5, 0.0),
            Lobe::from_pack_units(120.0, 90.0, 0.3, 27.0, 0.5, 0.0),
        ];
        let q = Quat::from_axis_angle(Vec3::new(0.3, 0.9, -0.2).normalize_or_zero(), 0.7);
        let frame = LookFrame::body(q);
        // A deterministic spread of directions and ranges.
        let mut x = 0x1234_5678_u64;
        let mut next = || {
            x = x.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1);
            (x >> 11) as f64 / (1u64 << 53) as f64 * 2.0 - 1.0
        };
        for _ in 0..20_000 {
            let t = Vec3::new(next(), next(), next()) * 60_000.0;
            let Some(b) = Bearing::of(Vec3::ZERO, &frame, t) else {
                continue;
            };
            for lobe in &lobes {
                let cone = Cone::new(lobe);
                for omni in [false, true] {
                    assert_eq!(
                        in_lobe(&b, lobe, omni, lobe.max_range_m),
                        cone.contains(&frame, b.los, b.range_m, lobe.max_range_m, omni),
                        "{lobe:?} {b:?} omni {omni}"
                    );
                }
            }
        }
    }

    #[test]
    fn signatures_scale_radar_by_root_and_others_linearly() {
        let sig = Signatures {
            rcs: 0.25,
            ir: 0.5,
            visual: 2.0,
            laser: -1.0,
        };
        assert_eq!(signature_range_scale(SensorKind::Radar, &sig), 0.5);
        assert_eq!(signature_range_scale(SensorKind::Ir, &sig), 0.5);
        assert_eq!(signature_range_scale(SensorKind::Visual, &sig), 2.0);
        assert_eq!(signature_range_scale(SensorKind::Laser, &sig), 0.0);
        let nan = Signatures {
            rcs: f64::NAN,
            ..sig
        };
        assert_eq!(signature_range_scale(SensorKind::Radar, &nan), 0.0);
    }

    #[test]
    fn aspect_is_full_from_beam_and_tail_and_reduced_nose_on() {
        let los = Vec3::new(0.0, 0.0, -1.0); // observer looks along −Z at the target
        // Target flying towards the observer (+Z): nose-on.
        assert!((aspect_factor(0.4, Vec3::new(0.0, 0.0, 1.0), los) - 0.4).abs() < 1e-12);
        // Flying away: tail.
        assert_eq!(aspect_factor(0.4, Vec3::new(0.0, 0.0, -1.0), los), 1.0);
        // Beam.
        assert_eq!(aspect_factor(0.4, Vec3::new(1.0, 0.0, 0.0), los), 1.0);
        // 45° off the nose: between.
        let f = aspect_factor(0.4, Vec3::new(1.0, 0.0, 1.0), los);
        assert!(f > 0.4 && f < 1.0, "{f}");
        assert_eq!(aspect_factor(0.4, Vec3::ZERO, los), 1.0);
        assert_eq!(aspect_factor(1.0, Vec3::new(0.0, 0.0, 1.0), los), 1.0);
    }

    #[test]
    fn look_down_is_ground_behind_the_target() {
        let planet = Planet::earth();
        let up = Vec3::Y; // at the world origin (the north pole) up is +Y
        let obs = Vec3::new(0.0, 6000.0, 0.0);
        // A low target ahead and below: look-down.
        let low = Vec3::new(0.0, 300.0, -20_000.0);
        let los = (low - obs).normalize_or_zero();
        assert!(looks_down(&planet, low, los, 0.0));
        // A high target seen from below: sky behind.
        let obs_low = Vec3::new(0.0, 300.0, 0.0);
        let high = Vec3::new(0.0, 6000.0, -20_000.0);
        let los = (high - obs_low).normalize_or_zero();
        assert!(!looks_down(&planet, high, los, 0.0));
        // Co-altitude at 40 km: the chord rises past the target.
        let co = fl_flight::geodetic::at_altitude(&planet, Vec3::new(0.0, 0.0, -40_000.0), 6000.0);
        let los = (co - obs).normalize_or_zero();
        assert!(
            los.dot(up) < 0.0,
            "the chord starts below the observer's horizontal"
        );
        assert!(!looks_down(&planet, co, los, 0.0));
        // Below its own ground: looking down whatever the geometry.
        assert!(looks_down(&planet, high, Vec3::Y, 7000.0));
    }

    #[test]
    fn level_frame_is_orthonormal_with_planet_up() {
        let planet = Planet::earth();
        for p in [
            Vec3::ZERO,
            Vec3::new(3.0e6, -1.0e6, 2.0e6),
            Vec3::new(0.0, -2.0 * planet.radius_m, 0.0),
        ] {
            let f = LookFrame::level(&planet, p);
            assert!((f.up.dot(planet.up(p)) - 1.0).abs() < 1e-12);
            assert!(f.forward.dot(f.up).abs() < 1e-12 && f.right.dot(f.up).abs() < 1e-12);
            assert!((f.forward.length() - 1.0).abs() < 1e-12);
            assert!((f.right.length() - 1.0).abs() < 1e-12);
        }
    }
}
